/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma_qp_modify_is_ok against an expectation written independently from
 * the InfiniBand specification, chapter 10.3 (QP state transitions) and the
 * Modify QP attribute tables of chapter 11: for every QP type, every pair
 * of states and every combination of attribute mask bits.
 */

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include <prdma.h>

#define B(x) PRDMA_QP_##x

/* One legal transition for one QP type: required and optional attributes. */
struct spec_row {
	enum prdma_qp_state cur;
	enum prdma_qp_state next;
	unsigned int types;                /* bit per type: 1 UD, 2 UC, 4 RC */
	uint32_t req;
	uint32_t opt;
};

#define UD 1u
#define UC 2u
#define RC 4u
#define ALLT (UD | UC | RC)

#define ANY(s) PRDMA_QPS_##s

/*
 * Rows in the order of the specification's transition list. Any state may
 * go to RESET or ERR with no other attribute; SQE exists for UD/UC only
 * (an RC send queue error takes the QP to ERR).
 */
static const struct spec_row spec[] = {
	/* Reset -> Init */
	{ ANY(RESET), ANY(INIT), UD, B(PKEY_INDEX) | B(PORT) | B(QKEY), 0 },
	{ ANY(RESET), ANY(INIT), UC | RC, B(PKEY_INDEX) | B(PORT) | B(ACCESS_FLAGS), 0 },
	/* Init -> Init */
	{ ANY(INIT), ANY(INIT), UD, 0, B(PKEY_INDEX) | B(PORT) | B(QKEY) },
	{ ANY(INIT), ANY(INIT), UC | RC, 0, B(PKEY_INDEX) | B(PORT) | B(ACCESS_FLAGS) },
	/* Init -> RTR */
	{ ANY(INIT), ANY(RTR), UD, 0, B(PKEY_INDEX) | B(QKEY) },
	{ ANY(INIT), ANY(RTR), UC, B(AV) | B(PATH_MTU) | B(DEST_QPN) | B(RQ_PSN),
	  B(ACCESS_FLAGS) | B(PKEY_INDEX) },
	{ ANY(INIT), ANY(RTR), RC, B(AV) | B(PATH_MTU) | B(DEST_QPN) | B(RQ_PSN) |
	  B(MAX_DEST_RD_ATOMIC) | B(MIN_RNR_TIMER), B(ACCESS_FLAGS) | B(PKEY_INDEX) },
	/* RTR -> RTS */
	{ ANY(RTR), ANY(RTS), UD, B(SQ_PSN), B(CUR_STATE) | B(QKEY) },
	{ ANY(RTR), ANY(RTS), UC, B(SQ_PSN), B(CUR_STATE) | B(ACCESS_FLAGS) },
	{ ANY(RTR), ANY(RTS), RC, B(SQ_PSN) | B(TIMEOUT) | B(RETRY_CNT) | B(RNR_RETRY) |
	  B(MAX_QP_RD_ATOMIC), B(CUR_STATE) | B(ACCESS_FLAGS) | B(MIN_RNR_TIMER) },
	/* RTS -> RTS */
	{ ANY(RTS), ANY(RTS), UD, 0, B(CUR_STATE) | B(QKEY) },
	{ ANY(RTS), ANY(RTS), UC, 0, B(CUR_STATE) | B(ACCESS_FLAGS) },
	{ ANY(RTS), ANY(RTS), RC, 0, B(CUR_STATE) | B(ACCESS_FLAGS) | B(MIN_RNR_TIMER) },
	/* RTS -> SQD */
	{ ANY(RTS), ANY(SQD), ALLT, 0, B(EN_SQD_ASYNC_NOTIFY) },
	/* SQD -> RTS */
	{ ANY(SQD), ANY(RTS), UD, 0, B(CUR_STATE) | B(QKEY) },
	{ ANY(SQD), ANY(RTS), UC, 0, B(CUR_STATE) | B(ACCESS_FLAGS) },
	{ ANY(SQD), ANY(RTS), RC, 0, B(CUR_STATE) | B(ACCESS_FLAGS) | B(MIN_RNR_TIMER) },
	/* SQD -> SQD */
	{ ANY(SQD), ANY(SQD), UD, 0, B(PKEY_INDEX) | B(QKEY) },
	{ ANY(SQD), ANY(SQD), UC, 0, B(AV) | B(ACCESS_FLAGS) | B(PKEY_INDEX) },
	{ ANY(SQD), ANY(SQD), RC, 0, B(PORT) | B(AV) | B(TIMEOUT) | B(RETRY_CNT) |
	  B(RNR_RETRY) | B(MAX_QP_RD_ATOMIC) | B(MAX_DEST_RD_ATOMIC) |
	  B(ACCESS_FLAGS) | B(PKEY_INDEX) | B(MIN_RNR_TIMER) },
	/* SQE -> RTS (unreliable service only) */
	{ ANY(SQE), ANY(RTS), UD, 0, B(CUR_STATE) | B(QKEY) },
	{ ANY(SQE), ANY(RTS), UC, 0, B(CUR_STATE) | B(ACCESS_FLAGS) },
};

/* Every attribute bit prdma.h defines (besides STATE). */
static const uint32_t attr_bits[] = {
	B(CUR_STATE), B(EN_SQD_ASYNC_NOTIFY), B(ACCESS_FLAGS), B(PKEY_INDEX), B(PORT),
	B(QKEY), B(AV), B(PATH_MTU), B(TIMEOUT), B(RETRY_CNT), B(RNR_RETRY),
	B(RQ_PSN), B(MAX_QP_RD_ATOMIC), B(MIN_RNR_TIMER), B(SQ_PSN),
	B(MAX_DEST_RD_ATOMIC), B(DEST_QPN),
};

static const struct {
	enum prdma_qp_type type;
	unsigned int bit;
	const char *name;
} types[] = {
	{ PRDMA_QPT_UD, UD, "UD" },
	{ PRDMA_QPT_UC, UC, "UC" },
	{ PRDMA_QPT_RC, RC, "RC" },
};

static int
state_valid_for(unsigned int tbit, enum prdma_qp_state s)
{
	return s != PRDMA_QPS_SQE || tbit != RC;
}

/* The expectation: 0 or -EINVAL. */
static int
expected(unsigned int tbit, enum prdma_qp_state cur, enum prdma_qp_state next,
	 uint32_t mask)
{
	unsigned int i;

	mask &= ~B(STATE);
	if (!state_valid_for(tbit, cur) || !state_valid_for(tbit, next))
		return -EINVAL;
	if (next == PRDMA_QPS_RESET || next == PRDMA_QPS_ERR)
		return mask == 0 ? 0 : -EINVAL;
	for (i = 0; i < RTE_DIM(spec); i++) {
		const struct spec_row *r = &spec[i];

		if (r->cur != cur || r->next != next || (r->types & tbit) == 0)
			continue;
		if ((mask & r->req) != r->req)
			return -EINVAL;
		return (mask & ~(r->req | r->opt)) == 0 ? 0 : -EINVAL;
	}
	return -EINVAL;
}

/* Expand a compact index over the attribute bits into a mask. */
static uint32_t
mask_of(uint32_t combo)
{
	uint32_t m = 0;
	unsigned int b;

	for (b = 0; b < RTE_DIM(attr_bits); b++)
		if (combo & RTE_BIT32(b))
			m |= attr_bits[b];
	return m;
}

static void
test_qp_state_exhaustive(void **state)
{
	unsigned int t, mismatches = 0;
	uint64_t checked = 0, legal = 0;
	int cur, next;
	uint32_t combo;

	(void)state;
	for (t = 0; t < RTE_DIM(types); t++) {
		for (cur = 0; cur < PRDMA_QPS_MAX; cur++) {
			for (next = 0; next < PRDMA_QPS_MAX; next++) {
				for (combo = 0; combo < RTE_BIT32(RTE_DIM(attr_bits)); combo++) {
					uint32_t mask = mask_of(combo) | B(STATE);
					int exp = expected(types[t].bit, cur, next, mask);
					int got = prdma_qp_modify_is_ok(types[t].type, cur,
									next, mask);

					checked++;
					legal += exp == 0;
					if (exp == got)
						continue;
					if (++mismatches <= 20)
						print_error("%s %s -> %s mask 0x%05x: expected %d, "
							    "got %d\n", types[t].name,
							    prdma_qp_state_str(cur),
							    prdma_qp_state_str(next), mask, exp,
							    got);
				}
			}
		}
	}
	print_message("checked %" PRIu64 " (type, state, state, mask) cases, %" PRIu64
		      " legal\n", checked, legal);
	if (mismatches != 0)
		fail_msg("%u cases differ from the IB spec expectation", mismatches);
}

/* Without PRDMA_QP_STATE in the mask the same rules apply (next = cur). */
static void
test_qp_state_no_state_bit(void **state)
{
	unsigned int t, b;
	int s;

	(void)state;
	for (t = 0; t < RTE_DIM(types); t++) {
		for (s = 0; s < PRDMA_QPS_MAX; s++) {
			for (b = 0; b < RTE_DIM(attr_bits); b++) {
				int exp = expected(types[t].bit, s, s, attr_bits[b]);
				int got = prdma_qp_modify_is_ok(types[t].type, s, s,
								attr_bits[b]);

				if (exp != got)
					fail_msg("%s %s (no STATE bit) mask 0x%x: expected %d, "
						 "got %d", types[t].name, prdma_qp_state_str(s),
						 attr_bits[b], exp, got);
			}
		}
	}
}

static void
test_qp_state_bad_arguments(void **state)
{
	static const uint32_t unknown[] = {
		RTE_BIT32(14), RTE_BIT32(18), RTE_BIT32(19), RTE_BIT32(21), RTE_BIT32(31),
	};
	unsigned int i;

	(void)state;
	assert_int_equal(prdma_qp_modify_is_ok(PRDMA_QPT_RC, PRDMA_QPS_RESET,
					       PRDMA_QPS_ERR, B(STATE)), 0);
	assert_int_equal(prdma_qp_modify_is_ok((enum prdma_qp_type)0, PRDMA_QPS_RESET,
					       PRDMA_QPS_ERR, B(STATE)), -EINVAL);
	assert_int_equal(prdma_qp_modify_is_ok((enum prdma_qp_type)5, PRDMA_QPS_RESET,
					       PRDMA_QPS_ERR, B(STATE)), -EINVAL);
	assert_int_equal(prdma_qp_modify_is_ok(PRDMA_QPT_RC, PRDMA_QPS_MAX,
					       PRDMA_QPS_ERR, B(STATE)), -EINVAL);
	assert_int_equal(prdma_qp_modify_is_ok(PRDMA_QPT_RC, PRDMA_QPS_RESET,
					       PRDMA_QPS_MAX, B(STATE)), -EINVAL);
	assert_int_equal(prdma_qp_modify_is_ok(PRDMA_QPT_RC, (enum prdma_qp_state)-1,
					       PRDMA_QPS_ERR, B(STATE)), -EINVAL);
	for (i = 0; i < RTE_DIM(unknown); i++) {
		int got = prdma_qp_modify_is_ok(PRDMA_QPT_RC, PRDMA_QPS_RESET,
						PRDMA_QPS_ERR, B(STATE) | unknown[i]);

		if (got != -EINVAL)
			fail_msg("unknown mask bit 0x%x: expected -EINVAL, got %d",
				 unknown[i], got);
	}
}

static void
test_qp_state_names(void **state)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};
	int s;

	(void)state;
	for (s = 0; s < PRDMA_QPS_MAX; s++)
		assert_string_equal(prdma_qp_state_str(s), names[s]);
	assert_string_equal(prdma_qp_state_str(PRDMA_QPS_MAX), "UNKNOWN");
	assert_string_equal(prdma_qp_state_str((enum prdma_qp_state)-1), "UNKNOWN");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qp_state_exhaustive),
		cmocka_unit_test(test_qp_state_no_state_bit),
		cmocka_unit_test(test_qp_state_bad_arguments),
		cmocka_unit_test(test_qp_state_names),
	};

	return cmocka_run_group_tests_name("qp_state", tests, NULL, NULL);
}
