/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Congestion signals: frames leave ECT(0) with a fixed per-QP UDP source
 * port in 0xC000-0xFFFF; a CE-marked arrival makes the receiver send CNPs
 * (opcode 0x81, BECN, 16 zero bytes, at most one per QP per interval); a
 * CNP cuts the sender's rate, and without CNPs the rate climbs back to
 * the line. CE marks come from the provider's fault injection.
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include <prdma_roce.h>

#include "roce.h"
#include "t_roce.h"

static void
stream(struct t_side s[2], uint64_t us, uint64_t *writes)
{
	uint64_t end = rte_rdtsc() + us * rte_get_tsc_hz() / 1000000;
	struct prdma_wc wc[16];
	int outstanding = 0, n;

	while (rte_rdtsc() < end) {
		while (outstanding < 16 &&
		       t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 4096, (uintptr_t)s[1].buf + 4096,
			      s[1].mr->rkey, 7) == 0)
			outstanding++;
		n = prdma_cq_poll(s[0].scq, 16, wc);
		for (int i = 0; i < n; i++)
			assert_int_equal(wc[i].status, PRDMA_WC_SUCCESS);
		outstanding -= n;
		*writes += (uint64_t)n;
		prdma_dev_progress(s[1].dev);
	}
	while (outstanding > 0) {
		assert_int_equal(t_poll_one(s, s[0].scq, wc), 1);
		assert_int_equal(wc[0].status, PRDMA_WC_SUCCESS);
		outstanding--;
	}
}

static void
test_ect_and_sport(void **state)
{
	struct t_side s[2];
	struct roce_qp *q0, *q1;

	(void)state;
	t_pair_open(s, "roce:ring=cc1,side=0", "roce:ring=cc1,side=1");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	q0 = (struct roce_qp *)s[0].qp;
	q1 = (struct roce_qp *)s[1].qp;
	/* IPv4 TOS byte: ECN field ECT(0). */
	assert_int_equal(q0->path.hdr[ROCE_ETH_LEN + 1] & ROCE_ECN_MASK, ROCE_ECN_ECT0);
	assert_int_equal(q0->sport & 0xc000, 0xc000);
	assert_int_equal(q1->sport & 0xc000, 0xc000);
	assert_int_not_equal(q0->sport, q1->sport);
	t_pair_close(s);
	/* ecn=0 turns the marking off. */
	t_pair_open(s, "roce:ring=cc2,side=0,ecn=0", "roce:ring=cc2,side=1,ecn=0");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	q0 = (struct roce_qp *)s[0].qp;
	assert_int_equal(q0->path.hdr[ROCE_ETH_LEN + 1] & ROCE_ECN_MASK, 0);
	t_pair_close(s);
}

static void
test_cnp_frame(void **state)
{
	struct t_side s[2];
	struct roce_dev *d1;
	struct roce_qp *q1;
	struct roce_pkt pkt;
	struct rte_mbuf *m;
	uint8_t *p, *bth;
	uint32_t i, staged;

	(void)state;
	/* A long interval: the second CE surely falls inside it. */
	t_pair_open(s, "roce:ring=cc3,side=0", "roce:ring=cc3,side=1,cnp_interval_us=1000000");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	d1 = roce_dev_of(s[1].dev);
	q1 = (struct roce_qp *)s[1].qp;
	roce_engine_lock(d1);
	q1->cc.cnp_tsc = 0;
	staged = d1->eng[0].txq_len;
	roce_cc_ce(q1, rte_rdtsc());
	assert_int_equal(d1->eng[0].txq_len, staged + 1);
	m = d1->eng[0].txq[--d1->eng[0].txq_len];
	/* A second CE right away: inside the interval, no CNP. */
	roce_cc_ce(q1, rte_rdtsc());
	assert_int_equal(d1->eng[0].txq_len, staged);
	roce_engine_unlock(d1);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	bth = p + ROCE_ETH_LEN + ROCE_IPV4_LEN + ROCE_UDP_LEN;
	assert_int_equal(bth[0], ROCE_OP_CNP);
	assert_int_equal(bth[4] & 0x40, 0x40);                 /* BECN */
	assert_int_equal(roce_get24(bth + 5), s[0].qp->qp_num);
	assert_int_equal(roce_get24(bth + 9), 0);              /* PSN 0 */
	for (i = 0; i < ROCE_CNP_LEN; i++)
		assert_int_equal(bth[ROCE_BTH_LEN + i], 0);
	/* UDP length 8 + 12 + 16 + 4, as the ConnectX capture has it. */
	assert_int_equal(roce_get16(p + ROCE_ETH_LEN + ROCE_IPV4_LEN + 4), 40);
	assert_int_equal(roce_pkt_parse(p, m->data_len, &pkt), ROCE_RX_OK);
	assert_int_equal(pkt.bth.opcode, ROCE_OP_CNP);
	rte_pktmbuf_free(m);
	t_pair_close(s);
}

static void
test_cnp_reaction(void **state)
{
	struct t_side s[2];
	struct prdma_roce_stats x0, x1;
	struct prdma_dev_counters c0, c1;
	uint64_t writes = 0, rate, line, t0, us;

	(void)state;
	t_pair_open(s, "roce:ring=cc4,side=0", "roce:ring=cc4,side=1,cnp_interval_us=50");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	assert_int_equal(prdma_roce_qp_rate_get(s[0].qp, &line), 0);
	/* Every frame side 1 receives arrives marked CE. */
	assert_int_equal(prdma_roce_fault_set(s[1].dev, PRDMA_ROCE_FAULT_RX,
					      PRDMA_ROCE_FAULT_CE, 1000000, 3), 0);
	t0 = rte_rdtsc();
	stream(s, 5000, &writes);
	us = (rte_rdtsc() - t0) * 1000000 / rte_get_tsc_hz();
	assert_int_equal(prdma_roce_qp_rate_get(s[0].qp, &rate), 0);
	assert_int_equal(prdma_roce_stats_get(s[0].dev, &x0), 0);
	assert_int_equal(prdma_roce_stats_get(s[1].dev, &x1), 0);
	assert_int_equal(prdma_dev_counters_get(s[0].dev, &c0), 0);
	assert_int_equal(prdma_dev_counters_get(s[1].dev, &c1), 0);
	print_message("CE: %" PRIu64 " writes in %" PRIu64 " us, %" PRIu64 " CE seen, %" PRIu64
		      " CNPs sent, %" PRIu64 " received, %" PRIu64 " cuts, rate %" PRIu64
		      " of %" PRIu64 " Mb/s\n", writes, us, x1.ce_received, x1.cnp_sent,
		      x0.cnp_received, x0.rate_cuts, rate, line);
	assert_true(x1.ce_received > 0);
	assert_true(x1.cnp_sent > 0);
	/* At most one per QP per 50 us (one QP sends requests here). */
	assert_true(x1.cnp_sent <= us / 50 + 1);
	assert_int_equal(c1.value[PRDMA_DEV_CNT_CNP_SENT], x1.cnp_sent);
	assert_int_equal(c0.value[PRDMA_DEV_CNT_CNP_RECEIVED], x1.cnp_sent);
	assert_int_equal(x0.rate_cuts, x0.cnp_received);
	assert_true(rate < line);
	/* Without marks the rate climbs back to the line. */
	assert_int_equal(prdma_roce_fault_clear(s[1].dev), 0);
	t0 = rte_rdtsc();
	while (rate < line && rte_rdtsc() - t0 < 2 * rte_get_tsc_hz()) {
		stream(s, 1000, &writes);
		assert_int_equal(prdma_roce_qp_rate_get(s[0].qp, &rate), 0);
	}
	assert_int_equal(prdma_roce_stats_get(s[0].dev, &x0), 0);
	print_message("recovered to %" PRIu64 " Mb/s after %" PRIu64 " increase steps\n",
		      rate, x0.rate_increases);
	assert_int_equal(rate, line);
	assert_true(x0.rate_increases > 0);
	t_pair_close(s);
}

static void
test_fault_api(void **state)
{
	struct t_side s[2];
	struct prdma_roce_stats x;

	(void)state;
	t_pair_open(s, "roce:ring=cc5,side=0", "roce:ring=cc5,side=1");
	assert_int_equal(prdma_roce_fault_set(s[0].dev, 2, PRDMA_ROCE_FAULT_DROP, 1, 1), -EINVAL);
	assert_int_equal(prdma_roce_fault_set(s[0].dev, PRDMA_ROCE_FAULT_TX, 99, 1, 1), -EINVAL);
	assert_int_equal(prdma_roce_fault_set(s[0].dev, PRDMA_ROCE_FAULT_TX,
					      PRDMA_ROCE_FAULT_DROP, 1000001, 1), -EINVAL);
	assert_int_equal(prdma_roce_fault_delay_set(s[0].dev, PRDMA_ROCE_FAULT_TX, 0), -EINVAL);
	assert_int_equal(prdma_roce_stats_get(NULL, &x), -ENODEV);
	/* Everything dropped: the QP's retries run out (a peer gone). */
	assert_int_equal(prdma_roce_fault_set(s[0].dev, PRDMA_ROCE_FAULT_TX,
					      PRDMA_ROCE_FAULT_DROP, 1000000, 1), 0);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	{
		struct prdma_wc wc;

		/* timeout 14 (67 ms) and retry_cnt 7 from t_pair_connect */
		assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64,
					(uintptr_t)s[1].buf, s[1].mr->rkey, 1), 0);
		assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
		assert_int_equal(wc.status, PRDMA_WC_RETRY_EXC_ERR);
		assert_int_equal(s[0].qp->state, PRDMA_QPS_ERR);
	}
	assert_int_equal(prdma_roce_stats_get(s[0].dev, &x), 0);
	assert_true(x.fault[PRDMA_ROCE_FAULT_TX][PRDMA_ROCE_FAULT_DROP] >= 8);
	assert_int_equal(prdma_roce_fault_clear(s[0].dev), 0);
	t_pair_close(s);
}

/* ack_delay_us: a lone ACK waits to be replaced by a later one. */
static void
test_ack_coalescing(void **state)
{
	struct t_side s[2];
	struct prdma_dev_counters c;
	struct prdma_wc wc;
	uint64_t frames;
	int i;

	(void)state;
	t_pair_open(s, "roce:ring=cc6,side=0", "roce:ring=cc6,side=1,ack_delay_us=200");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	assert_int_equal(prdma_dev_counters_reset(s[1].dev), 0);
	/* One WRITE at a time: without coalescing, one ACK each. */
	for (i = 0; i < 32; i++) {
		assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64,
					(uintptr_t)s[1].buf, s[1].mr->rkey, (uint64_t)i), 0);
		prdma_dev_progress(s[0].dev);
		prdma_dev_progress(s[1].dev);
	}
	for (i = 0; i < 32; i++) {
		assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_int_equal(wc.wr_id, (uint64_t)i);
	}
	assert_int_equal(prdma_dev_counters_get(s[1].dev, &c), 0);
	frames = c.value[PRDMA_DEV_CNT_RDMA_OUT_FRAMES];
	print_message("32 WRITEs answered by %" PRIu64 " ACK frames\n", frames);
	assert_true(frames >= 1 && frames <= 8);
	t_pair_close(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ect_and_sport),
		cmocka_unit_test(test_cnp_frame),
		cmocka_unit_test(test_cnp_reaction),
		cmocka_unit_test(test_fault_api),
		cmocka_unit_test(test_ack_coalescing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
