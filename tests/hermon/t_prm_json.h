/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef T_PRM_JSON_H
#define T_PRM_JSON_H

#include <stdint.h>

/* One field of tests/data/reference/hermon-prm-layouts.json (generated table). */
struct t_prm_json_field {
	const char *type;     /**< PRM name without "hermonprm_" and "_st" */
	const char *field;    /**< dotted for nested fields; NULL in the size table */
	uint32_t bit_offset;
	uint32_t bit_width;   /**< the structure's size in the size table */
};

extern const struct t_prm_json_field t_prm_json_fields[];
extern const struct t_prm_json_field t_prm_json_sizes[];

#endif /* T_PRM_JSON_H */
