/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Field descriptors of every PRM structure, built from the same lists as
 * the layout types, for debug dumps and for the layout test. Offsets are
 * the running sum of the widths, which is what offsetof() gives on the
 * pseudo-bit types (they have no padding: their sizes are asserted).
 */

#include <string.h>

#include <rte_common.h>

#include "hermon_prm.h"

#define DESC_F(name, width) { #name, 0, (width), NULL },
#define DESC_N(name, type) { #name, 0, 0, &hermon_prm_type_##type },

#define DECL_TYPE(type, LIST) \
	static struct hermon_prm_type hermon_prm_type_##type;
HERMON_PRM_ALL_TYPES(DECL_TYPE)

#define DEF_TYPE(type, LIST) \
	static struct hermon_prm_field hermon_prm_fields_##type[] = { \
		LIST(DESC_F, DESC_N) \
	}; \
	static struct hermon_prm_type hermon_prm_type_##type = { \
		.name = #type, \
		.bit_size = sizeof(struct hermon_pb_##type), \
		.nb_fields = RTE_DIM(hermon_prm_fields_##type), \
		.fields = hermon_prm_fields_##type, \
	};
HERMON_PRM_ALL_TYPES(DEF_TYPE)

#define LIST_TYPE(type, LIST) &hermon_prm_type_##type,
const struct hermon_prm_type *const hermon_prm_types[] = {
	HERMON_PRM_ALL_TYPES(LIST_TYPE)
	NULL
};

/* Nested widths and running offsets are only known once all types exist. */
#define FIX_TYPE(type, LIST) fix_offsets(hermon_prm_fields_##type, \
					 RTE_DIM(hermon_prm_fields_##type));
static void
fix_offsets(struct hermon_prm_field *f, size_t n)
{
	uint32_t off = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (f[i].nested != NULL)
			f[i].bit_width = f[i].nested->bit_size;
		f[i].bit_offset = off;
		off += f[i].bit_width;
	}
}

RTE_INIT(hermon_prm_desc_init)
{
	HERMON_PRM_ALL_TYPES(FIX_TYPE)
}

const struct hermon_prm_type *
hermon_prm_type_find(const char *name)
{
	unsigned int i;

	for (i = 0; hermon_prm_types[i] != NULL; i++)
		if (strcmp(hermon_prm_types[i]->name, name) == 0)
			return hermon_prm_types[i];
	return NULL;
}
