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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_value),
		cmocka_unit_test(test_table_only),
		cmocka_unit_test(test_fold4),
		cmocka_unit_test(test_fold16),
	};
	uint32_t i, x = 0x12345678u;

	for (i = 0; i < sizeof(data); i++) {
		x = x * 1103515245u + 12345u;
		data[i] = (uint8_t)(x >> 16);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
