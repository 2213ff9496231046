/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The ACK timer's backoff. A soft responder answers only while its process
 * runs: bench/roce-afxdp.sh (timeout 10, 4.2 ms; retry_cnt 7) stalled on a
 * loaded machine when one process was off its CPU for longer than the 34 ms
 * a fixed timer allowed. Its peer's eight resends all waited in the
 * paused side's receive ring; once it ran again it answered each with a
 * duplicate ACK, which reached a QP already in ERR. Here the responder's
 * engine is held (nobody steps it, its frames wait in the ring) for a
 * while and then let go:
 *  - paused 150 ms: the requester must not retry out, and the WRITE
 *    completes once the responder runs (a fixed 4.2 ms timer completes it
 *    with RETRY_EXC_ERR after 34 ms);
 *  - never let go: the QP still retries out, after the backed-off sum
 *    (4.2 + 8.4 + 16.8 + 33.6 + 4 x 67.1 = 331 ms), not later than a bound;
 *  - the intervals themselves: doubled per timeout in a row up to
 *    exponent 14's, a QP timeout of 14 or more unchanged, reset by an answer.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_ring.h>

#include "roce.h"
#include "t_roce.h"

static struct roce_dev *
rdev(struct t_side *s)
{
	return roce_dev_of(s->dev);
}

/* Drop every frame waiting for @s (a responder that is gone). */
static void
steal_all(struct t_side *s)
{
	struct roce_dev *dev = rdev(s);
	void *m;

	while (rte_ring_dequeue(dev->link->ring[dev->side][0], &m) == 0)
		rte_pktmbuf_free(m);
}

static double
ms_since(uint64_t t0)
{
	return (double)(rte_get_tsc_cycles() - t0) * 1e3 / (double)rte_get_tsc_hz();
}

static void
test_paused_responder(void **state)
{
	struct t_side s[2];
	struct prdma_wc wc;
	struct roce_qp *qp;
	uint64_t t0, timeouts;
	int n = 0;

	(void)state;
	t_ack_timeout = 10;
	t_pair_open(s, "roce:ring=rto1,side=0", "roce:ring=rto1,side=1");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	qp = (struct roce_qp *)s[0].qp;
	/* Side 1's engine flag held: side 0's polls cannot step it either. */
	roce_engine_lock(rdev(&s[1]));
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)s[1].buf,
				s[1].mr->rkey, 1), 0);
	t0 = rte_get_tsc_cycles();
	while (n == 0 && ms_since(t0) < 150) {
		n = prdma_cq_poll(s[0].scq, 1, &wc);
		prdma_dev_progress(s[0].dev);
	}
	timeouts = qp->cnt[PRDMA_QP_CNT_TIMEOUTS];
	roce_engine_unlock(rdev(&s[1]));
	print_message("paused 150 ms: %" PRIu64 " timeouts, %s\n", timeouts,
		      n == 0 ? "no completion" : prdma_wc_status_str(wc.status));
	/* Not retried out while the responder was away. */
	assert_int_equal(n, 0);
	/* 4.2, 12.6, 29.4, 63, 130 ms: five at most (a fixed timer: eight). */
	assert_true(timeouts >= 1 && timeouts <= 5);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.wr_id, 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	/* The answer reset the backoff. */
	assert_int_equal(qp->rto_shift, 0);
	t_pair_close(s);
	t_ack_timeout = 14;
}

/* A peer that never answers; returns how long until RETRY_EXC_ERR. */
static double
dead_peer(const char *a0, const char *a1)
{
	struct t_side s[2];
	struct prdma_wc wc;
	uint64_t t0;
	double ms;
	int n = 0;

	t_ack_timeout = 10;
	t_pair_open(s, a0, a1);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	roce_engine_lock(rdev(&s[1]));
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)s[1].buf,
				s[1].mr->rkey, 2), 0);
	t0 = rte_get_tsc_cycles();
	while (n == 0 && ms_since(t0) < 3000) {
		steal_all(&s[1]);
		n = prdma_cq_poll(s[0].scq, 1, &wc);
		prdma_dev_progress(s[0].dev);
	}
	ms = ms_since(t0);
	roce_engine_unlock(rdev(&s[1]));
	print_message("dead peer: %s after %.0f ms\n",
		      n == 0 ? "no completion" : prdma_wc_status_str(wc.status), ms);
	assert_int_equal(n, 1);
	assert_int_equal(wc.status, PRDMA_WC_RETRY_EXC_ERR);
	t_pair_close(s);
	t_ack_timeout = 14;
	return ms;
}

static void
test_dead_peer_bounded(void **state)
{
	(void)state;
	/* Each deadline counts from when the timer fired: never early. */
	assert_true(dead_peer("roce:ring=rto2,side=0", "roce:ring=rto2,side=1") >= 300);
}

/*
 * rto_backoff=0: the QP's timeout exactly, as an HCA keeps it, for an
 * application that wants a dead peer found after timeout x (retry_cnt + 1):
 * 8 x 4.2 = 34 ms here, well under the 331 ms of the backoff.
 */
static void
test_dead_peer_fixed_timer(void **state)
{
	double ms;

	(void)state;
	ms = dead_peer("roce:ring=rto4,side=0,rto_backoff=0",
		       "roce:ring=rto4,side=1,rto_backoff=0");
	assert_true(ms >= 33);
	assert_true(ms < 300);
}

static void
test_intervals(void **state)
{
	static const struct {
		uint8_t timeout, shift;
		uint8_t exp;     /* the interval's exponent */
	} c[] = {
		{ 10, 0, 10 }, { 10, 1, 11 }, { 10, 3, 13 }, { 10, 4, 14 }, { 10, 7, 14 },
		{ 10, 14, 14 }, { 1, 2, 3 }, { 14, 0, 14 }, { 14, 5, 14 }, { 18, 3, 18 },
	};
	struct t_side s[2];
	struct roce_qp *qp;
	uint64_t want, got;
	unsigned int i;

	(void)state;
	t_pair_open(s, "roce:ring=rto3,side=0", "roce:ring=rto3,side=1");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	qp = (struct roce_qp *)s[0].qp;
	for (i = 0; i < RTE_DIM(c); i++) {
		qp->timeout = c[i].timeout;
		qp->rto_shift = c[i].shift;
		want = roce_ack_timeout_ns(c[i].exp) * rte_get_tsc_hz() / 1000000000ull;
		got = roce_rto_tsc(qp);
		if (got != want)
			print_message("timeout %u shift %u: %" PRIu64 " != %" PRIu64 "\n",
				      c[i].timeout, c[i].shift, got, want);
		assert_true(got == want);
	}
	qp->timeout = 0; /* no timer at all */
	qp->rto_shift = 3;
	assert_true(roce_rto_tsc(qp) == 0);
	qp->timeout = 14;
	qp->rto_shift = 0;
	t_pair_close(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_paused_responder),
		cmocka_unit_test(test_dead_peer_bounded),
		cmocka_unit_test(test_dead_peer_fixed_timer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
