/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Receiver not ready: retries exhausted, and a late receive that succeeds. */

#include <string.h>

#include "conf.h"

#define RNR_ACCESS (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE)

static void
rnr_pair(struct conf_ctx *ctx, struct conf_pair *p, struct conf_buf *a,
	 struct conf_buf *b, uint8_t rnr_retry)
{
	struct conf_qp_opts o;

	conf_opts_default(&o, PRDMA_QPT_RC);
	o.rnr_retry = rnr_retry;
	o.min_rnr_timer = 1;            /* 0.01 ms: retries come fast */
	conf_pair_make(ctx, p, &o);
	conf_buf_make(ctx, a, CONF_A->pd, 4096, RNR_ACCESS);
	conf_buf_make(ctx, b, CONF_B->pd, 4096, RNR_ACCESS);
}

static void
test_rnr_retry_exceeded(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr;
	struct conf_buf a, b;
	struct prdma_sge sge;
	struct conf_pair p;
	struct prdma_wc wc;

	rnr_pair(ctx, &p, &a, &b, 1);
	conf_wr_init(&wr, &sge, 1, PRDMA_WR_SEND, a.p, 64, a.mr->lkey);
	conf_post_send(p.s[0].qp, &wr, "SEND with no receive posted");
	conf_expect_wc(p.s[0].scq, &wc, "SEND with no receive, rnr_retry=1", 1,
		       PRDMA_WC_RNR_RETRY_EXC_ERR, -1);
	conf_check_qp_state(p.s[0].qp, PRDMA_QPS_ERR, "requester after RNR retries");
	conf_expect_no_wc(p.s[1].rcq, 1, "responder without a receive");
	conf_check_qp_state(p.s[1].qp, PRDMA_QPS_RTS,
			    "responder after sending RNR NAKs (no error on its side)");
}

static void
test_rnr_late_receive(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr;
	struct conf_buf a, b;
	struct prdma_sge sge;
	struct conf_pair p;
	struct prdma_wc wc;

	rnr_pair(ctx, &p, &a, &b, 7);
	t_pattern_fill(a.p, 3000, 12);
	conf_wr_init(&wr, &sge, 1, PRDMA_WR_SEND, a.p, 3000, a.mr->lkey);
	conf_post_send(p.s[0].qp, &wr, "SEND before the receive");
	conf_expect_no_wc(p.s[0].scq, 20, "SEND waiting for a receive (rnr_retry=7)");
	conf_post_recv(p.s[1].qp, 2, b.p, 4096, b.mr->lkey, "late receive");
	conf_expect_wc(p.s[0].scq, &wc, "SEND after the late receive", 1,
		       PRDMA_WC_SUCCESS, PRDMA_WC_SEND);
	conf_expect_wc(p.s[1].rcq, &wc, "late receive", 2, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RECV);
	CONF_EQ("late receive byte_len", 3000, wc.byte_len);
	conf_check_data(b.p, 3000, 12, "late receive data");
}

int
conf_group_rnr(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rnr_retry_exceeded, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_rnr_late_receive, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("rnr", tests, conf_group_setup,
					   conf_group_teardown);
}
