/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Asynchronous events: delivered both to the registered callback and to the
 * queue, with the affected object. COMM_EST (first packet on a QP in RTR)
 * and QP_REQ_ERR (an invalid request at the responder) are provoked here;
 * CQ_ERR, QP_ACCESS_ERR, SQ_DRAINED and SRQ_LIMIT_REACHED are provoked by
 * the cq, errors, qp-state and srq groups.
 */

#include <string.h>

#include <rte_cycles.h>

#include "conf.h"

#define EV_MAX 32

struct ev_log {
	unsigned int n;
	struct prdma_async_event ev[EV_MAX];
};

/* Static: a failing check leaves the test by longjmp with it registered. */
static struct ev_log evlog;

static void
ev_record(struct prdma_dev *dev, const struct prdma_async_event *ev, void *arg)
{
	struct ev_log *l = arg;

	RTE_SET_USED(dev);
	if (l->n < EV_MAX)
		l->ev[l->n++] = *ev;
}

static void
events_drain(struct conf_dev *d)
{
	struct prdma_async_event ev;

	while (prdma_event_get(d->dev, &ev) == 1)
		;
}

/* Find @p type for @p qp in the queue of @p d, progressing for up to @p ms. */
static int
queue_has(struct conf_dev *d, enum prdma_event_type type, struct prdma_qp *qp,
	  uint64_t ms)
{
	uint64_t end = rte_get_tsc_cycles() + conf_ms_to_tsc(ms);
	struct prdma_async_event ev;

	do {
		while (prdma_event_get(d->dev, &ev) == 1)
			if (ev.type == type && ev.element.qp == qp) {
				CONF_EQ("event qp_num", qp->qp_num, ev.qp_num);
				return 1;
			}
		conf_progress();
	} while (rte_get_tsc_cycles() < end);
	return 0;
}

static int
log_has(const struct ev_log *l, enum prdma_event_type type, struct prdma_qp *qp)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (l->ev[i].type == type && l->ev[i].element.qp == qp)
			return 1;
	return 0;
}

static void
modify_or_fail(struct prdma_qp *qp, struct prdma_qp_attr *a, uint32_t mask,
	       const char *what)
{
	int ret = prdma_qp_modify(qp, a, mask);

	if (ret != 0)
		fail_msg("prdma_qp_modify to %s: expected 0, got %d (%s)", what, ret,
			 rte_strerror(rte_errno));
}

/* B's QP stays in RTR: its first arriving packet raises COMM_EST. */
static void
test_event_comm_est(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_cq *cq[2];
	struct prdma_qp *qp[2];
	struct conf_qp_opts o;
	struct prdma_qp_attr a;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;
	struct conf_buf ba, bb;
	unsigned int i;

	conf_opts_default(&o, PRDMA_QPT_RC);
	for (i = 0; i < 2; i++) {
		cq[i] = conf_cq(ctx, &conf_devs[i], 16, 0);
		qp[i] = conf_qp(ctx, &conf_devs[i], conf_devs[i].pd, &o, cq[i], cq[i], NULL);
	}
	conf_buf_make(ctx, &ba, CONF_A->pd, 64, PRDMA_ACCESS_LOCAL_WRITE);
	conf_buf_make(ctx, &bb, CONF_B->pd, 64, PRDMA_ACCESS_LOCAL_WRITE);
	conf_qp_connect(qp[0], &o, &CONF_B->gid, qp[1]->qp_num, CONF_PSN_B, CONF_PSN_A);

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = o.access;
	modify_or_fail(qp[1], &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT |
		       PRDMA_QP_ACCESS_FLAGS, "INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = conf_path_mtu();
	a.dest_qp_num = qp[0]->qp_num;
	a.rq_psn = CONF_PSN_A;
	a.ah_attr.dgid = CONF_A->gid;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = o.min_rnr_timer;
	modify_or_fail(qp[1], &a, PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU |
		       PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN | PRDMA_QP_MAX_DEST_RD_ATOMIC |
		       PRDMA_QP_MIN_RNR_TIMER, "RTR");

	events_drain(CONF_B);
	memset(&evlog, 0, sizeof(evlog));
	conf_check_rc(prdma_event_callback_register(CONF_B->dev, ev_record, &evlog), 0,
		      "prdma_event_callback_register");
	conf_post_recv(qp[1], 7, bb.p, 64, bb.mr->lkey, "receive on the RTR QP");
	t_pattern_fill(ba.p, 64, 41);
	conf_wr_init(&wr, &sge, 1, PRDMA_WR_SEND, ba.p, 64, ba.mr->lkey);
	conf_post_send(qp[0], &wr, "SEND to a QP in RTR");
	conf_expect_wc(cq[1], &wc, "receive on the RTR QP", 7, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RECV);
	conf_check_data(bb.p, 64, 41, "data received in RTR");
	conf_expect_wc(cq[0], &wc, "SEND to a QP in RTR", 1, PRDMA_WC_SUCCESS,
		       PRDMA_WC_SEND);
	if (!queue_has(CONF_B, PRDMA_EVENT_COMM_EST, qp[1], CONF_WAIT_MS))
		fail_msg("first packet on a QP in RTR: expected PRDMA_EVENT_COMM_EST "
			 "queued for it, got none");
	prdma_event_callback_register(CONF_B->dev, NULL, NULL);
	if (!log_has(&evlog, PRDMA_EVENT_COMM_EST, qp[1]))
		fail_msg("first packet on a QP in RTR: expected the callback to get "
			 "PRDMA_EVENT_COMM_EST, it got %u other event(s)", evlog.n);
}

/*
 * A misaligned atomic that reaches the responder is an invalid request
 * there: no receive WQE describes it, so B reports it as an event.
 */
static void
test_event_qp_req_err(void **state)
{
	const struct prdma_send_wr *bad;
	struct conf_ctx *ctx = *state;
	struct conf_qp_opts o;
	struct conf_pair p;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;
	struct conf_buf ba, bb;
	int ret;

	CONF_REQUIRE_CAP(CONF_A, PRDMA_DEV_CAP_ATOMIC);
	conf_opts_default(&o, PRDMA_QPT_RC);
	o.access |= PRDMA_ACCESS_REMOTE_ATOMIC;
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &ba, CONF_A->pd, 64, PRDMA_ACCESS_LOCAL_WRITE);
	conf_buf_make(ctx, &bb, CONF_B->pd, 64, PRDMA_ACCESS_LOCAL_WRITE |
		      PRDMA_ACCESS_REMOTE_ATOMIC);
	events_drain(CONF_B);
	memset(&evlog, 0, sizeof(evlog));
	prdma_event_callback_register(CONF_B->dev, ev_record, &evlog);
	conf_wr_init(&wr, &sge, 4, PRDMA_WR_ATOMIC_FETCH_AND_ADD, ba.p, 8, ba.mr->lkey);
	wr.wr.atomic.remote_addr = (uintptr_t)bb.p + 4;
	wr.wr.atomic.rkey = bb.mr->rkey;
	wr.wr.atomic.compare_add = 1;
	ret = prdma_post_send(p.s[0].qp, &wr, &bad);
	if (ret == -EINVAL) {
		prdma_event_callback_register(CONF_B->dev, NULL, NULL);
		print_message("[ SKIP ] %s refuses misaligned atomics at post: the "
			      "responder never sees one\n", CONF_A->attr.name);
		skip();
	}
	conf_check_rc(ret, 0, "post of a misaligned FETCH_AND_ADD");
	conf_expect_wc(p.s[0].scq, &wc, "misaligned FETCH_AND_ADD", 4,
		       PRDMA_WC_REM_INV_REQ_ERR, -1);
	if (!queue_has(CONF_B, PRDMA_EVENT_QP_REQ_ERR, p.s[1].qp, CONF_WAIT_MS))
		fail_msg("invalid request at the responder: expected "
			 "PRDMA_EVENT_QP_REQ_ERR queued for its QP, got none");
	prdma_event_callback_register(CONF_B->dev, NULL, NULL);
	if (!log_has(&evlog, PRDMA_EVENT_QP_REQ_ERR, p.s[1].qp))
		fail_msg("invalid request at the responder: expected the callback to "
			 "get PRDMA_EVENT_QP_REQ_ERR, it got %u other event(s)", evlog.n);
	conf_check_qp_state(p.s[1].qp, PRDMA_QPS_ERR, "responder after the invalid request");
	conf_check_bytes(bb.p, 64, 0, "responder memory after the refused atomic");
}

int
conf_group_events(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_event_comm_est, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_event_qp_req_err, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("events", tests, conf_group_setup,
					   conf_group_teardown);
}
