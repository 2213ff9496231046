/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_PRM_H
#define HERMON_PRM_H

/*
 * PRM structure machinery.
 *
 * Every Hermon structure is declared once, in hermon_prm_structs.h, as the
 * PRM writes it: an ordered list of name[width] pseudo-bit fields. Each list
 * expands into two types:
 *  - struct hermon_pb_<s>: one byte per bit, so offsetof() is the bit offset
 *    and sizeof() the width of a field, both known at compile time;
 *  - struct hermon_prm_<s>: the real buffer, big-endian dwords, which is what
 *    mailboxes, contexts and queue entries are made of.
 * Bit B of a structure lives in dword B / 32 at bit B % 32 counted from the
 * LSB of that (big-endian) dword.
 */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_bitops.h>
#include <rte_byteorder.h>
#include <rte_common.h>

#define HERMON_PB_F(name, width) uint8_t name[width];
#define HERMON_PB_N(name, type) struct hermon_pb_##type name;

/* Declare layout + buffer types of @type from @LIST, checking its size. */
#define HERMON_PRM_DECLARE(type, LIST, bytes) \
	struct hermon_pb_##type { LIST(HERMON_PB_F, HERMON_PB_N) }; \
	struct hermon_prm_##type { rte_be32_t dw[(bytes) / 4]; }; \
	static_assert(sizeof(struct hermon_pb_##type) == (size_t)(bytes) * 8, \
		      "PRM " #type ": fields do not add up to its size"); \
	static_assert(sizeof(struct hermon_prm_##type) == (size_t)(bytes), \
		      "PRM " #type ": buffer size");

/* Bit offset and width of a (possibly dotted, nested) field. */
#define HERMON_PB_OFF(type, field) offsetof(struct hermon_pb_##type, field)
#define HERMON_PB_WIDTH(type, field) sizeof(((struct hermon_pb_##type *)0)->field)
/* Size in bytes of a PRM structure. */
#define HERMON_PRM_SIZE(type) sizeof(struct hermon_prm_##type)

/*
 * Compile-time guards folded into an expression (0 when they hold):
 *  - the buffer is of the named structure (distinct pointer types do not
 *    compare, so a wrong mailbox type is a build error);
 *  - the field is a scalar that does not cross a dword boundary.
 */
#define HERMON_PRM_TYPECHK(buf, type) \
	(0 * sizeof((buf) == (struct hermon_prm_##type *)0))
#define HERMON_PB_SCALARCHK(type, field) \
	(0 * sizeof(char[(HERMON_PB_OFF(type, field) % 32 + \
			  HERMON_PB_WIDTH(type, field) <= 32) ? 1 : -1]))

static inline uint32_t
hermon_prm_mask(unsigned int width)
{
	return width >= 32 ? UINT32_MAX : (RTE_BIT32(width) - 1);
}

/* Set @width bits at bit offset @off of the big-endian dword array @dw. */
static inline void
hermon_prm_set(rte_be32_t *dw, size_t off, size_t width, uint32_t value)
{
	uint32_t shift = off % 32;
	uint32_t mask = hermon_prm_mask(width) << shift;
	uint32_t cur = rte_be_to_cpu_32(dw[off / 32]);

	cur = (cur & ~mask) | ((value << shift) & mask);
	dw[off / 32] = rte_cpu_to_be_32(cur);
}

/* Read @width bits at bit offset @off of the big-endian dword array @dw. */
static inline uint32_t
hermon_prm_get(const rte_be32_t *dw, size_t off, size_t width)
{
	return (rte_be_to_cpu_32(dw[off / 32]) >> (off % 32)) &
		hermon_prm_mask(width);
}

/* Set field @field of PRM structure @type in buffer @buf. */
#define HERMON_FILL(buf, type, field, value) \
	hermon_prm_set((buf)->dw + HERMON_PRM_TYPECHK(buf, type) + \
		       HERMON_PB_SCALARCHK(type, field), \
		       HERMON_PB_OFF(type, field), HERMON_PB_WIDTH(type, field), \
		       (uint32_t)(value))

/* Read field @field of PRM structure @type from buffer @buf. */
#define HERMON_GET(buf, type, field) \
	hermon_prm_get((buf)->dw + HERMON_PRM_TYPECHK(buf, type) + \
		       HERMON_PB_SCALARCHK(type, field), \
		       HERMON_PB_OFF(type, field), HERMON_PB_WIDTH(type, field))

/*
 * 64-bit quantities split in an _h field (bits 63:32) and an _l field that
 * holds the top bits of the low dword (the PRM puts flags or log sizes in
 * the bits below it: qpc_base_addr_l is [31:5], mtt_base_addr_l [31:3]).
 */
#define HERMON_FILL64(buf, type, fh, fl, value) do { \
	uint64_t v64_ = (value); \
	HERMON_FILL(buf, type, fh, v64_ >> 32); \
	HERMON_FILL(buf, type, fl, (uint32_t)v64_ >> \
		    (32 - HERMON_PB_WIDTH(type, fl))); \
} while (0)

#define HERMON_GET64(buf, type, fh, fl) \
	(((uint64_t)HERMON_GET(buf, type, fh) << 32) | \
	 ((uint64_t)HERMON_GET(buf, type, fl) << (32 - HERMON_PB_WIDTH(type, fl))))

/* A pointer to the nested structure @field of @buf, typed as @ntype. */
#define HERMON_NESTED(buf, type, field, ntype) \
	((struct hermon_prm_##ntype *)(void *)((buf)->dw + \
		HERMON_PRM_TYPECHK(buf, type) + HERMON_PB_OFF(type, field) / 32 + \
		0 * sizeof(char[(HERMON_PB_OFF(type, field) % 32 == 0 && \
				 sizeof(((struct hermon_pb_##type *)0)->field) == \
				 sizeof(struct hermon_pb_##ntype)) ? 1 : -1])))

#include "hermon_prm_structs.h"

/* Field descriptors, for dumps and for the layout test. */
struct hermon_prm_type;

struct hermon_prm_field {
	const char *name;
	uint32_t bit_offset;
	uint32_t bit_width;
	const struct hermon_prm_type *nested;   /**< NULL for a scalar field */
};

struct hermon_prm_type {
	const char *name;
	uint32_t bit_size;
	uint32_t nb_fields;
	const struct hermon_prm_field *fields;
};

/* Every declared structure, NULL-terminated. */
extern const struct hermon_prm_type *const hermon_prm_types[];

/* Find a structure's descriptor by its PRM name (without prefix). */
const struct hermon_prm_type *hermon_prm_type_find(const char *name);

#endif /* HERMON_PRM_H */
