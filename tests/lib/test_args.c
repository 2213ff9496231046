/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Devargs helpers: prdma_args_parse_u64 and prdma_args_parse. */

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include <rte_errno.h>
#include <rte_kvargs.h>

#include <prdma_provider.h>

struct u64_case {
	const char *value;
	uint64_t min;
	uint64_t max;
	int ret;
	uint64_t out;
};

static const struct u64_case u64_cases[] = {
	/* decimal */
	{ "0", 0, 10, 0, 0 },
	{ "7", 0, 10, 0, 7 },
	{ "10", 0, 10, 0, 10 },
	{ "4096", 256, 4096, 0, 4096 },
	{ "18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX },
	/* hexadecimal */
	{ "0x10", 0, 100, 0, 16 },
	{ "0X1f", 0, 100, 0, 31 },
	{ "0xffffffffffffffff", 0, UINT64_MAX, 0, UINT64_MAX },
	{ "0x", 0, 100, -EINVAL, 0 },
	{ "0xg", 0, 100, -EINVAL, 0 },
	/* range */
	{ "11", 0, 10, -EINVAL, 0 },
	{ "255", 256, 4096, -EINVAL, 0 },
	{ "4097", 256, 4096, -EINVAL, 0 },
	{ "0x1001", 256, 4096, -EINVAL, 0 },
	{ "18446744073709551616", 0, UINT64_MAX, -EINVAL, 0 },
	{ "99999999999999999999999", 0, UINT64_MAX, -EINVAL, 0 },
	/* trailing garbage and other non-numbers */
	{ "12abc", 0, 100, -EINVAL, 0 },
	{ "12 ", 0, 100, -EINVAL, 0 },
	{ " 12", 0, 100, -EINVAL, 0 },
	{ "1.5", 0, 100, -EINVAL, 0 },
	{ "1e3", 0, 10000, -EINVAL, 0 },
	{ "", 0, 100, -EINVAL, 0 },
	{ "abc", 0, 100, -EINVAL, 0 },
	{ "\t5", 0, 100, -EINVAL, 0 },
	{ "\n5", 0, 100, -EINVAL, 0 },
	/* signs: negative numbers must not wrap to huge values */
	{ "-1", 0, UINT64_MAX, -EINVAL, 0 },
	{ "-0", 0, 100, -EINVAL, 0 },
	{ "+5", 0, 100, -EINVAL, 0 },
	{ " -1", 0, UINT64_MAX, -EINVAL, 0 },
};

static void
test_args_parse_u64(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(u64_cases); i++) {
		const struct u64_case *c = &u64_cases[i];
		uint64_t out = 0x5a5a5a5a5a5a5a5aull;
		int ret;

		rte_errno = 0;
		ret = prdma_args_parse_u64("test", "key", c->value, c->min, c->max, &out);
		if (ret != c->ret)
			fail_msg("parse_u64(\"%s\", [%" PRIu64 ", %" PRIu64 "]): expected %d, "
				 "got %d", c->value, c->min, c->max, c->ret, ret);
		if (ret == 0 && out != c->out)
			fail_msg("parse_u64(\"%s\"): expected %" PRIu64 ", got %" PRIu64,
				 c->value, c->out, out);
		if (ret < 0 && out != 0x5a5a5a5a5a5a5a5aull)
			fail_msg("parse_u64(\"%s\"): the output changed on failure", c->value);
		if (ret < 0 && rte_errno != EINVAL)
			fail_msg("parse_u64(\"%s\"): expected rte_errno EINVAL, got %d",
				 c->value, rte_errno);
	}
	assert_int_equal(prdma_args_parse_u64("test", "key", NULL, 0, 1,
					      &(uint64_t){ 0 }), -EINVAL);
}

/* "010" is ten: devargs numbers are decimal unless they start with 0x. */
static void
test_args_parse_u64_leading_zero(void **state)
{
	uint64_t out = 0;

	(void)state;
	assert_int_equal(prdma_args_parse_u64("test", "key", "010", 0, 100, &out), 0);
	if (out != 10)
		fail_msg("parse_u64(\"010\"): expected 10 (decimal), got %" PRIu64, out);
	assert_int_equal(prdma_args_parse_u64("test", "key", "08", 0, 100, &out), 0);
	assert_int_equal(out, 8);
}

static void
test_args_parse_keys(void **state)
{
	static const char *const valid[] = { "ring", "side", "mtu", NULL };
	static const char *const bad[] = {
		"ring=a,bogus=1", "bogus", "bogus=1,ring=a", "=1",
	};
	struct rte_kvargs *kv;
	unsigned int i;

	(void)state;
	kv = prdma_args_parse("test", "ring=conf,side=1", valid);
	assert_non_null(kv);
	assert_int_equal(rte_kvargs_count(kv, "ring"), 1);
	assert_int_equal(rte_kvargs_count(kv, "side"), 1);
	assert_int_equal(rte_kvargs_count(kv, "mtu"), 0);
	rte_kvargs_free(kv);
	kv = prdma_args_parse("test", "", valid);
	assert_non_null(kv);
	assert_int_equal(rte_kvargs_count(kv, NULL), 0);
	rte_kvargs_free(kv);
	for (i = 0; i < RTE_DIM(bad); i++) {
		rte_errno = 0;
		kv = prdma_args_parse("test", bad[i], valid);
		if (kv != NULL) {
			rte_kvargs_free(kv);
			fail_msg("args_parse(\"%s\"): expected NULL, got a kvlist", bad[i]);
		}
		if (rte_errno != EINVAL)
			fail_msg("args_parse(\"%s\"): expected rte_errno EINVAL, got %d",
				 bad[i], rte_errno);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args_parse_u64),
		cmocka_unit_test(test_args_parse_u64_leading_zero),
		cmocka_unit_test(test_args_parse_keys),
	};

	return cmocka_run_group_tests_name("args", tests, NULL, NULL);
}
