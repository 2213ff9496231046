/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* GID text conversion, completion status and event names. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_errno.h>

#include <prdma.h>

struct gid_case {
	const char *in;
	uint8_t raw[16];
	const char *out;                   /* canonical text */
};

static const struct gid_case gid_cases[] = {
	{ "192.0.2.1", { [10] = 0xff, [11] = 0xff, [12] = 192, [13] = 0, [14] = 2,
			 [15] = 1 }, "::ffff:192.0.2.1" },
	{ "0.0.0.0", { [10] = 0xff, [11] = 0xff }, "::ffff:0.0.0.0" },
	{ "255.255.255.255", { [10] = 0xff, [11] = 0xff, [12] = 0xff, [13] = 0xff,
			       [14] = 0xff, [15] = 0xff }, "::ffff:255.255.255.255" },
	{ "fe80::1", { 0xfe, 0x80, [15] = 1 }, "fe80::1" },
	{ "FE80:0:0:0:0202:c9ff:fe00:1", { 0xfe, 0x80, [8] = 0x02, [9] = 0x02,
	  [10] = 0xc9, [11] = 0xff, [12] = 0xfe, [13] = 0, [14] = 0, [15] = 1 },
	  "fe80::202:c9ff:fe00:1" },
	{ "::", { 0 }, "::" },
	{ "2001:db8::ffff:0:1", { 0x20, 0x01, 0x0d, 0xb8, [10] = 0xff, [11] = 0xff,
				  [15] = 1 }, "2001:db8::ffff:0:1" },
};

static void
test_gid_from_to_str(void **state)
{
	char buf[64];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(gid_cases); i++) {
		const struct gid_case *c = &gid_cases[i];
		union prdma_gid g, back;

		memset(&g, 0x77, sizeof(g));
		if (prdma_gid_from_str(&g, c->in) != 0)
			fail_msg("gid_from_str(\"%s\"): expected 0, got an error", c->in);
		if (memcmp(g.raw, c->raw, 16) != 0)
			fail_msg("gid_from_str(\"%s\"): bytes differ from the expectation",
				 c->in);
		if (strcmp(prdma_gid_to_str(&g, buf, sizeof(buf)), c->out) != 0)
			fail_msg("gid_to_str of \"%s\": expected \"%s\", got \"%s\"", c->in,
				 c->out, buf);
		assert_int_equal(prdma_gid_from_str(&back, buf), 0);
		assert_memory_equal(back.raw, g.raw, 16);
	}
}

static void
test_gid_from_str_invalid(void **state)
{
	static const char *const bad[] = {
		"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "hello", "::g", "1:2:3:4:5:6:7:8:9",
		" 192.0.2.1", "192.0.2.1 ", "fe80::1%eth0", "0x01020304",
	};
	union prdma_gid g;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		rte_errno = 0;
		if (prdma_gid_from_str(&g, bad[i]) != -EINVAL)
			fail_msg("gid_from_str(\"%s\"): expected -EINVAL", bad[i]);
		if (rte_errno != EINVAL)
			fail_msg("gid_from_str(\"%s\"): expected rte_errno EINVAL, got %d",
				 bad[i], rte_errno);
	}
	assert_int_equal(prdma_gid_from_str(NULL, "1.2.3.4"), -EINVAL);
	assert_int_equal(prdma_gid_from_str(&g, NULL), -EINVAL);
}

static void
test_gid_to_str_edges(void **state)
{
	union prdma_gid g;
	char buf[64], small[8];

	(void)state;
	prdma_gid_from_ipv4(&g, 0xc0000202);    /* 192.0.2.2, host order */
	assert_string_equal(prdma_gid_to_str(&g, buf, sizeof(buf)), "::ffff:192.0.2.2");
	/* A buffer too small for the text gives "?" rather than a cut address. */
	assert_string_equal(prdma_gid_to_str(&g, small, sizeof(small)), "?");
	assert_string_equal(prdma_gid_to_str(NULL, buf, sizeof(buf)), "?");
	assert_null(prdma_gid_to_str(&g, NULL, 16));
}

static void
test_wc_status_str(void **state)
{
	static const struct {
		enum prdma_wc_status status;
		const char *text;
	} expect[] = {
		{ PRDMA_WC_SUCCESS, "success" },
		{ PRDMA_WC_LOC_LEN_ERR, "local length error" },
		{ PRDMA_WC_LOC_QP_OP_ERR, "local QP operation error" },
		{ PRDMA_WC_LOC_PROT_ERR, "local protection error" },
		{ PRDMA_WC_WR_FLUSH_ERR, "work request flushed" },
		{ PRDMA_WC_MW_BIND_ERR, "memory window bind error" },
		{ PRDMA_WC_BAD_RESP_ERR, "bad response" },
		{ PRDMA_WC_LOC_ACCESS_ERR, "local access error" },
		{ PRDMA_WC_REM_INV_REQ_ERR, "remote invalid request" },
		{ PRDMA_WC_REM_ACCESS_ERR, "remote access error" },
		{ PRDMA_WC_REM_OP_ERR, "remote operation error" },
		{ PRDMA_WC_RETRY_EXC_ERR, "transport retry counter exceeded" },
		{ PRDMA_WC_RNR_RETRY_EXC_ERR, "RNR retry counter exceeded" },
		{ PRDMA_WC_REM_ABORT_ERR, "remote aborted" },
		{ PRDMA_WC_FATAL_ERR, "fatal error" },
		{ PRDMA_WC_GENERAL_ERR, "general error" },
	};
	unsigned int i, j;

	(void)state;
	/* The table covers every status the header defines. */
	assert_int_equal(RTE_DIM(expect), PRDMA_WC_STATUS_MAX);
	for (i = 0; i < RTE_DIM(expect); i++) {
		const char *s = prdma_wc_status_str(expect[i].status);

		assert_int_equal(expect[i].status, i);
		if (s == NULL || strcmp(s, expect[i].text) != 0)
			fail_msg("wc_status_str(%u): expected \"%s\", got \"%s\"", i,
				 expect[i].text, s != NULL ? s : "(null)");
		for (j = 0; j < i; j++)
			assert_string_not_equal(s, prdma_wc_status_str(expect[j].status));
	}
	assert_string_equal(prdma_wc_status_str(PRDMA_WC_STATUS_MAX), "unknown status");
	assert_string_equal(prdma_wc_status_str((enum prdma_wc_status)-1),
			    "unknown status");
}

static void
test_event_type_str(void **state)
{
	unsigned int i, j;

	(void)state;
	for (i = 0; i < PRDMA_EVENT_MAX; i++) {
		const char *s = prdma_event_type_str(i);

		if (s == NULL || strcmp(s, "unknown event") == 0)
			fail_msg("event_type_str(%u): expected a name, got \"%s\"", i,
				 s != NULL ? s : "(null)");
		for (j = 0; j < i; j++)
			assert_string_not_equal(s, prdma_event_type_str(j));
	}
	assert_string_equal(prdma_event_type_str(PRDMA_EVENT_MAX), "unknown event");
}

static void
test_mtu_bytes(void **state)
{
	(void)state;
	assert_int_equal(prdma_mtu_bytes(0), 0);
	assert_int_equal(prdma_mtu_bytes(PRDMA_MTU_256), 256);
	assert_int_equal(prdma_mtu_bytes(PRDMA_MTU_512), 512);
	assert_int_equal(prdma_mtu_bytes(PRDMA_MTU_1024), 1024);
	assert_int_equal(prdma_mtu_bytes(PRDMA_MTU_2048), 2048);
	assert_int_equal(prdma_mtu_bytes(PRDMA_MTU_4096), 4096);
	assert_int_equal(prdma_mtu_bytes(6), 0);
	assert_int_equal(prdma_mtu_bytes(-1), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gid_from_to_str),
		cmocka_unit_test(test_gid_from_str_invalid),
		cmocka_unit_test(test_gid_to_str_edges),
		cmocka_unit_test(test_wc_status_str),
		cmocka_unit_test(test_event_type_str),
		cmocka_unit_test(test_mtu_bytes),
	};

	return cmocka_run_group_tests_name("str", tests, NULL, NULL);
}
