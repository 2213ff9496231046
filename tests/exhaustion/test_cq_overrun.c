/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * CQ overrun: more signaled completions than a small CQ holds, without
 * polling. The device raises PRDMA_EVENT_CQ_ERR and counts a CQError; the
 * completions the CQ did keep are the oldest ones, in order, intact (none
 * overwritten by a later one), and never more than the CQ's depth; the QP
 * and the device tear down cleanly afterwards. Any provider (devargs in
 * PRDMA_PROT_DEVARGS_A/B).
 */

#include <string.h>

#include "prot.h"

static int
setup(void **state)
{
	(void)state;
	p_open();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	p_close();
	return 0;
}

static void
test_cq_overrun(void **state)
{
	struct prdma_cq_init_attr ca;
	struct prdma_dev_counters c0, c1;
	struct prdma_cq *small, *saved;
	struct prdma_wc wc[64];
	uint32_t depth, i, got;
	int n, saw = 0;

	(void)state;
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 8;
	small = prdma_cq_create(p_a.dev, &ca);
	assert_non_null(small);
	depth = small->cqe;
	assert_true(depth < 64);
	saved = p_a.scq;
	p_a.scq = small;
	p_connect(PRDMA_QPT_RC, PRDMA_ACCESS_REMOTE_WRITE);
	p_a.scq = saved;
	assert_int_equal(prdma_dev_counters_get(p_a.dev, &c0), 0);
	for (i = 0; i < depth * 4; i++) {
		assert_int_equal(p_post(PRDMA_WR_RDMA_WRITE, 0, 64,
					(uintptr_t)p_b.area.data, p_b.mr->rkey, i), 0);
		p_idle(1);
	}
	saw = p_event(p_a.dev, PRDMA_EVENT_CQ_ERR, 2000);
	assert_int_equal(saw, 1);
	assert_int_equal(prdma_dev_counters_get(p_a.dev, &c1), 0);
	if (!(c1.missing_mask & RTE_BIT64(PRDMA_DEV_CNT_CQ_ERROR)))
		assert_true(c1.value[PRDMA_DEV_CNT_CQ_ERROR] > c0.value[PRDMA_DEV_CNT_CQ_ERROR]);
	/* What the CQ kept: at most its depth, the oldest first, unharmed. */
	got = 0;
	while ((n = prdma_cq_poll(small, RTE_DIM(wc), wc)) > 0) {
		for (i = 0; i < (uint32_t)n; i++) {
			assert_true(got + i < depth);
			assert_int_equal(wc[i].wr_id, got + i);
			assert_int_equal(wc[i].status, PRDMA_WC_SUCCESS);
			assert_int_equal(wc[i].opcode, PRDMA_WC_RDMA_WRITE);
			assert_int_equal(wc[i].qp_num, p_a.qp->qp_num);
		}
		got += (uint32_t)n;
		p_idle(1);
	}
	printf("CQ of %u: %u completions kept of %u, CQ error event raised\n", depth, got,
	       depth * 4);
	assert_true(got <= depth);
	p_disconnect();
	assert_int_equal(prdma_cq_destroy(small), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cq_overrun),
	};

	return cmocka_run_group_tests_name("exhaustion-cq-overrun", tests, setup, teardown);
}
