/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * roce_crc32(), the ICRC's CRC-32, on each of its paths (table, four
 * folded lanes, sixteen folded lanes) against a bit-at-a-time reference
 * at every length up to past four 256-byte blocks, at every alignment.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "roce_wire.h"

#define MAX_LEN 1100

static uint8_t data[MAX_LEN + 16];

/* IEEE 802.3 CRC-32, one bit at a time: slow and obviously right. */
static uint32_t
crc_ref(const uint8_t *p, uint32_t len)
{
	uint32_t crc = 0xffffffffu;
	int b;

	while (len-- != 0) {
		crc ^= *p++;
		for (b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

static void
check_all_lengths(void)
{
	uint32_t len, off;

	for (len = 0; len <= MAX_LEN; len++)
		for (off = 0; off < 16; off += 3)
			if (roce_crc32(data + off, len) != crc_ref(data + off, len))
				fail_msg("length %u at offset %u: %08x, want %08x", len, off,
					 roce_crc32(data + off, len), crc_ref(data + off, len));
}

static void
test_check_value(void **state)
{
	static const uint8_t nine[] = "123456789";

	(void)state;
	/* The catalogue check value of CRC-32/ISO-HDLC. */
	assert_int_equal(crc_ref(nine, 9), 0xcbf43926u);
	assert_int_equal(roce_crc32(nine, 9), 0xcbf43926u);
}

static void
test_table_only(void **state)
{
	(void)state;
	assert_int_equal(roce_crc32_paths(0), 0);
	check_all_lengths();
}

static void
test_fold4(void **state)
{
	unsigned int got;

	(void)state;
	got = roce_crc32_paths(ROCE_CRC32_FOLD4);
	if (!(got & ROCE_CRC32_FOLD4))
		skip();
	check_all_lengths();
}

static void
test_fold16(void **state)
{
	unsigned int got;

	(void)state;
	got = roce_crc32_paths(ROCE_CRC32_FOLD4 | ROCE_CRC32_FOLD16);
	if (!(got & ROCE_CRC32_FOLD16)) {
		printf("# this CPU has no VPCLMULQDQ: the sixteen-lane path is not used\n");
		skip();
	}
	check_all_lengths();
}

/*
 * A buffer CRC'd in pieces (a chained frame: headers, payload, pad) with
 * roce_crc32_update() gives the CRC of the whole, on every path, for
 * pieces of every size class.
 */
static void
test_update_pieces(void **state)
{
	static const uint32_t cuts[] = { 0, 1, 7, 15, 16, 63, 64, 70, 255, 256, 300, 777 };
	static const unsigned int paths[] = {
		0, ROCE_CRC32_FOLD4, ROCE_CRC32_FOLD4 | ROCE_CRC32_FOLD16,
	};
	uint32_t a, b, reg, len = MAX_LEN;
	unsigned int p;

	(void)state;
	for (p = 0; p < RTE_DIM(paths); p++) {
		roce_crc32_paths(paths[p]);
		for (a = 0; a < RTE_DIM(cuts); a++) {
			for (b = a; b < RTE_DIM(cuts); b++) {
				reg = roce_crc32_update(0xffffffffu, data, cuts[a]);
				reg = roce_crc32_update(reg, data + cuts[a], cuts[b] - cuts[a]);
				reg = roce_crc32_update(reg, data + cuts[b], len - cuts[b]);
				if (~reg != crc_ref(data, len))
					fail_msg("path %u, cuts %u/%u: %08x, want %08x", paths[p],
						 cuts[a], cuts[b], ~reg, crc_ref(data, len));
			}
		}
	}
	roce_crc32_paths(ROCE_CRC32_FOLD4 | ROCE_CRC32_FOLD16);
}

/*
 * roce_crc32_copy(), the receive path's copy and CRC in one pass, against
 * the two done apart (roce_crc32_update() and memcpy) on every path, at
 * random lengths up to a 9000-byte jumbo frame's payload and random source
 * and destination alignments, from a random running register: the same
 * register, the same bytes at the destination, not one byte written
 * outside it, the source untouched.
 */
#define COPY_MAX 9000
#define GUARD 64

static void
test_copy_fused(void **state)
{
	static const unsigned int paths[] = {
		0, ROCE_CRC32_FOLD4, ROCE_CRC32_FOLD4 | ROCE_CRC32_FOLD16,
	};
	static uint8_t src[COPY_MAX + GUARD], keep[COPY_MAX + GUARD];
	static uint8_t dst[COPY_MAX + 3 * GUARD], want[COPY_MAX + 3 * GUARD];
	uint32_t i, n, len, so, doff, reg, got, exp, x = 0x9e3779b9u;
	unsigned int p;

	(void)state;
	for (i = 0; i < sizeof(src); i++) {
		x = x * 1664525u + 1013904223u;
		src[i] = (uint8_t)(x >> 24);
	}
	memcpy(keep, src, sizeof(src));
	for (p = 0; p < RTE_DIM(paths); p++) {
		roce_crc32_paths(paths[p]);
		for (n = 0; n < 3000; n++) {
			x = x * 1664525u + 1013904223u;
			/* Mostly short, as the size classes' edges are. */
			len = (n & 3) == 0 ? (x >> 8) % (COPY_MAX + 1) : (x >> 8) % 600;
			x = x * 1664525u + 1013904223u;
			so = (x >> 8) % GUARD;
			doff = GUARD + (x >> 16) % GUARD;
			x = x * 1664525u + 1013904223u;
			reg = x;
			memset(dst, 0xa5, sizeof(dst));
			memcpy(want, dst, sizeof(dst));
			memcpy(want + doff, src + so, len);
			exp = roce_crc32_update(reg, src + so, len);
			got = roce_crc32_copy(reg, dst + doff, src + so, len);
			if (got != exp)
				fail_msg("path %u, length %u, src +%u, dst +%u: %08x, want %08x",
					 paths[p], len, so, doff, got, exp);
			if (memcmp(dst, want, sizeof(dst)) != 0)
				fail_msg("path %u, length %u, src +%u, dst +%u: bytes differ",
					 paths[p], len, so, doff);
		}
		/* And the whole CRC, as the ICRC check finishes it. */
		if (~roce_crc32_copy(0xffffffffu, dst, src, COPY_MAX) != crc_ref(src, COPY_MAX))
			fail_msg("path %u: the whole buffer's CRC", paths[p]);
	}
	assert_memory_equal(src, keep, sizeof(src));
	roce_crc32_paths(ROCE_CRC32_FOLD4 | ROCE_CRC32_FOLD16);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_value),
		cmocka_unit_test(test_table_only),
		cmocka_unit_test(test_fold4),
		cmocka_unit_test(test_fold16),
		cmocka_unit_test(test_update_pieces),
		cmocka_unit_test(test_copy_fused),
	};
	uint32_t i, x = 0x12345678u;

	for (i = 0; i < sizeof(data); i++) {
		x = x * 1103515245u + 12345u;
		data[i] = (uint8_t)(x >> 16);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
