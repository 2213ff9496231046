/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Shared receive queues: two QPs on one SRQ, the limit event, modify/query. */

#include <string.h>

#include <rte_cycles.h>

#include "conf.h"

#define SRQ_SLOT 1024
#define SRQ_ACCESS (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE)

static struct prdma_srq *
srq_make(struct conf_ctx *ctx, uint32_t max_wr, uint32_t max_sge)
{
	struct prdma_srq_init_attr ia;
	struct prdma_srq *srq;

	memset(&ia, 0, sizeof(ia));
	ia.attr.max_wr = max_wr;
	ia.attr.max_sge = max_sge;
	srq = prdma_srq_create(CONF_B->pd, &ia);
	if (srq == NULL)
		fail_msg("prdma_srq_create(%u x %u): expected an SRQ, got NULL (%s)",
			 max_wr, max_sge, rte_strerror(rte_errno));
	conf_track(ctx, CONF_OBJ_SRQ, srq);
	CONF_TRUE("SRQ actual max_wr >= requested", ia.attr.max_wr >= max_wr);
	CONF_TRUE("SRQ actual max_sge >= requested", ia.attr.max_sge >= max_sge);
	return srq;
}

/* Drop B's queued events (COMM_EST and the like from earlier tests). */
static void
events_drain(void)
{
	struct prdma_async_event ev;

	while (prdma_event_get(CONF_B->dev, &ev) == 1)
		;
}

/* Look for an SRQ_LIMIT_REACHED event of @p srq among B's queued events. */
static int
srq_limit_event(struct prdma_srq *srq, uint64_t ms)
{
	uint64_t end = rte_get_tsc_cycles() + conf_ms_to_tsc(ms);
	struct prdma_async_event ev;
	int ret;

	do {
		while ((ret = prdma_event_get(CONF_B->dev, &ev)) == 1) {
			if (ev.type == PRDMA_EVENT_SRQ_LIMIT_REACHED) {
				if (ev.element.srq != srq)
					fail_msg("SRQ_LIMIT_REACHED: expected SRQ %p, got %p",
						 (void *)srq, (void *)ev.element.srq);
				return 1;
			}
		}
		if (ret < 0)
			fail_msg("prdma_event_get: expected 0 or 1, got %d", ret);
		conf_progress();
	} while (rte_get_tsc_cycles() < end);
	return 0;
}

static void
send_n(struct conf_pair *p, struct conf_buf *a, unsigned int n, uint32_t len,
       uint64_t wr_id)
{
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;
	unsigned int i;

	for (i = 0; i < n; i++) {
		t_pattern_fill(a->p, len, len);
		conf_wr_init(&wr, &sge, wr_id + i, PRDMA_WR_SEND, a->p, len, a->mr->lkey);
		conf_post_send(p->s[0].qp, &wr, "SEND to an SRQ");
		conf_expect_wc(p->s[0].scq, &wc, "SEND to an SRQ", wr_id + i,
			       PRDMA_WC_SUCCESS, PRDMA_WC_SEND);
	}
}

static void
test_srq_two_qps(void **state)
{
	struct conf_ctx *ctx = *state;
	struct conf_buf a, b;
	struct conf_pair p[2];
	struct conf_qp_opts o;
	struct prdma_srq *srq;
	struct prdma_wc wc;
	unsigned int i, k, seen = 0;
	char what[64];

	CONF_REQUIRE_CAP(CONF_B, PRDMA_DEV_CAP_SRQ);
	srq = srq_make(ctx, 32, 1);
	conf_opts_default(&o, PRDMA_QPT_RC);
	o.srq[1] = srq;
	conf_pair_make(ctx, &p[0], &o);
	conf_pair_make(ctx, &p[1], &o);
	conf_buf_make(ctx, &a, CONF_A->pd, 8192, SRQ_ACCESS);
	conf_buf_make(ctx, &b, CONF_B->pd, 8 * SRQ_SLOT, SRQ_ACCESS);
	CONF_EQ("QP on an SRQ: qp->srq", (uintptr_t)srq, (uintptr_t)p[0].s[1].qp->srq);
	CONF_EQ("SRQ users", 2, srq->users);
	conf_check_rc(prdma_srq_destroy(srq), -EBUSY, "prdma_srq_destroy while in use");
	for (i = 0; i < 8; i++)
		conf_post_srq_recv(srq, i, b.p + SRQ_SLOT * i, SRQ_SLOT, b.mr->lkey,
				   "SRQ receive");
	/* Message lengths 10..17 are unique: the length names the sender. */
	for (k = 0; k < 2; k++)
		for (i = 0; i < 4; i++)
			send_n(&p[k], &a, 1, 10 + 4 * k + i, 100 * k + i);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 4; i++) {
			snprintf(what, sizeof(what), "QP %u receive %u via the SRQ", k, i);
			if (!conf_poll_one(p[k].s[1].rcq, &wc, CONF_WAIT_MS))
				fail_msg("%s: expected a completion, got none", what);
			CONF_EQ(what, PRDMA_WC_SUCCESS, wc.status);
			CONF_EQ("wc qp_num names the receiving QP", p[k].s[1].qp->qp_num,
				wc.qp_num);
			CONF_EQ("message order per QP (byte_len)", 10 + 4 * k + i,
				wc.byte_len);
			CONF_TRUE("SRQ wr_id in range", wc.wr_id < 8);
			CONF_TRUE("each SRQ receive used once",
				  (seen & RTE_BIT32(wc.wr_id)) == 0);
			seen |= RTE_BIT32(wc.wr_id);
			conf_check_data(b.p + SRQ_SLOT * wc.wr_id, wc.byte_len, wc.byte_len,
					what);
		}
	}
	CONF_EQ("all 8 SRQ receives consumed", 0xff, seen);
}

static void
test_srq_limit_event(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_srq_attr sa;
	struct conf_buf a, b;
	struct conf_qp_opts o;
	struct prdma_srq *srq;
	struct conf_pair p;
	struct prdma_wc wc;
	unsigned int i;

	CONF_REQUIRE_CAP(CONF_B, PRDMA_DEV_CAP_SRQ);
	srq = srq_make(ctx, 16, 1);
	conf_opts_default(&o, PRDMA_QPT_RC);
	o.srq[1] = srq;
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, 4096, SRQ_ACCESS);
	conf_buf_make(ctx, &b, CONF_B->pd, 16 * 64, SRQ_ACCESS);
	for (i = 0; i < 8; i++)
		conf_post_srq_recv(srq, i, b.p + 64 * i, 64, b.mr->lkey, "SRQ receive");
	events_drain();
	memset(&sa, 0, sizeof(sa));
	sa.srq_limit = 4;
	conf_check_rc(prdma_srq_modify(srq, &sa, PRDMA_SRQ_LIMIT), 0,
		      "srq_modify(LIMIT = 4)");
	/* 8 -> 4 left: not fewer than the limit yet. */
	send_n(&p, &a, 4, 16, 0);
	for (i = 0; i < 4; i++)
		conf_expect_wc(p.s[1].rcq, &wc, "receive", i, PRDMA_WC_SUCCESS,
			       PRDMA_WC_RECV);
	if (srq_limit_event(srq, CONF_QUIET_MS))
		fail_msg("SRQ_LIMIT_REACHED with 4 receives left and limit 4: expected "
			 "no event yet, got one");
	/* 3 left: below the limit. */
	send_n(&p, &a, 1, 16, 4);
	conf_expect_wc(p.s[1].rcq, &wc, "receive", 4, PRDMA_WC_SUCCESS, PRDMA_WC_RECV);
	if (!srq_limit_event(srq, CONF_WAIT_MS))
		fail_msg("SRQ_LIMIT_REACHED with 3 receives left and limit 4: expected "
			 "an event via prdma_event_get, got none");
	CONF_EQ("srq_query", 0, prdma_srq_query(srq, &sa));
	CONF_EQ("srq_limit after the event (disarmed)", 0, sa.srq_limit);
	/* One-shot: more consumption raises nothing. */
	send_n(&p, &a, 1, 16, 5);
	conf_expect_wc(p.s[1].rcq, &wc, "receive", 5, PRDMA_WC_SUCCESS, PRDMA_WC_RECV);
	if (srq_limit_event(srq, CONF_QUIET_MS))
		fail_msg("second SRQ_LIMIT_REACHED without re-arming: expected none");
}

static void
test_srq_modify_query(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_srq_attr sa;
	struct prdma_srq *srq;
	int ret;

	CONF_REQUIRE_CAP(CONF_B, PRDMA_DEV_CAP_SRQ);
	srq = srq_make(ctx, 10, 2);
	memset(&sa, 0, sizeof(sa));
	CONF_EQ("srq_query", 0, prdma_srq_query(srq, &sa));
	CONF_TRUE("query max_wr >= 10", sa.max_wr >= 10);
	CONF_TRUE("query max_sge >= 2", sa.max_sge >= 2);
	CONF_EQ("query srq_limit of a new SRQ", 0, sa.srq_limit);

	sa.srq_limit = 5;
	conf_check_rc(prdma_srq_modify(srq, &sa, PRDMA_SRQ_LIMIT), 0,
		      "srq_modify(LIMIT = 5)");
	memset(&sa, 0, sizeof(sa));
	CONF_EQ("srq_query", 0, prdma_srq_query(srq, &sa));
	CONF_EQ("query srq_limit after modify", 5, sa.srq_limit);

	sa.srq_limit = sa.max_wr + 1;
	conf_check_rc(prdma_srq_modify(srq, &sa, PRDMA_SRQ_LIMIT), -EINVAL,
		      "srq_modify(LIMIT above max_wr)");
	conf_check_rc(prdma_srq_modify(srq, &sa, 0), -EINVAL, "srq_modify(mask 0)");
	conf_check_rc(prdma_srq_modify(srq, &sa, RTE_BIT32(5)), -EINVAL,
		      "srq_modify(unknown mask bit)");

	memset(&sa, 0, sizeof(sa));
	sa.max_wr = 64;
	ret = prdma_srq_modify(srq, &sa, PRDMA_SRQ_MAX_WR);
	if (ret == -ENOTSUP) {
		print_message("note: SRQ resize not supported (-ENOTSUP)\n");
	} else {
		conf_check_rc(ret, 0, "srq_modify(MAX_WR = 64)");
		CONF_EQ("srq_query", 0, prdma_srq_query(srq, &sa));
		CONF_TRUE("query max_wr after resize >= 64", sa.max_wr >= 64);
	}
}

int
conf_group_srq(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_srq_two_qps, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_srq_limit_event, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_srq_modify_query, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("srq", tests, conf_group_setup,
					   conf_group_teardown);
}
