/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Hostile and lost frames: garbage injected into a device's receive path is
 * dropped and counted; frames taken off the link make the requester recover
 * (local ACK timeout, sequence NAK) with go-back-N; a burst's receive
 * completions are all published by its end.
 */

#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "roce.h"
#include "t_roce.h"

static struct roce_dev *
rdev(struct t_side *s)
{
	return roce_dev_of(s->dev);
}

static void
inject(struct roce_dev *dev, const uint8_t *frame, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dev->mp);

	assert_non_null(m);
	memcpy(rte_pktmbuf_mtod(m, void *), frame, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	roce_engine_rx_frame(&dev->eng[0], m);
	rte_pktmbuf_free(m);
}

/* Take the next frame off the ring that feeds @s (0 when there is none). */
static int
steal_frame(struct t_side *s)
{
	struct roce_dev *dev = rdev(s);
	void *m;

	if (rte_ring_dequeue(dev->link->ring[dev->side][0], &m) != 0)
		return 0;
	rte_pktmbuf_free(m);
	return 1;
}

/* A valid RC SEND_ONLY frame from side 0 to side 1's QP, built by side 0. */
static uint32_t
build_valid(struct t_side s[2], uint8_t *frame)
{
	struct roce_dev *dev = rdev(&s[0]);
	struct roce_qp *qp = (struct roce_qp *)s[0].qp;
	struct roce_bth bth;
	struct roce_ext ext;
	struct rte_mbuf *m;
	uint8_t *p;
	uint32_t hlen, len;

	m = roce_frame_start(&dev->eng[0], &qp->path, qp->sport, &p);
	assert_non_null(m);
	memset(&bth, 0, sizeof(bth));
	memset(&ext, 0, sizeof(ext));
	bth.opcode = ROCE_OP_SEND_ONLY;
	bth.pkey = 0xffff;
	bth.dqpn = s[1].qp->qp_num;
	bth.psn = 0x123; /* far from the expected PSN: a sequence error */
	hlen = roce_hdr_encode(p, &bth, &ext);
	memset(p + hlen, 0x5a, 16);
	roce_frame_send(&dev->eng[0], m, &qp->path, hlen + 16);
	/* It went to the staging area: take it back. */
	m = dev->eng[0].txq[--dev->eng[0].txq_len];
	len = m->data_len;
	memcpy(frame, rte_pktmbuf_mtod(m, void *), len);
	rte_pktmbuf_free(m);
	return len;
}

/* Recompute the ICRC of a build_valid() frame after a change. */
static void
refresh_icrc(uint8_t *f)
{
	uint32_t crc = roce_icrc(f + 14, 20 + 8 + 12 + 16, 0);

	crc = rte_cpu_to_le_32(crc);
	memcpy(f + 14 + 20 + 8 + 12 + 16, &crc, 4);
}

static void
test_garbage_counted(void **state)
{
	uint8_t frame[256], bad[256];
	struct roce_dev_drops before, *d;
	struct roce_dev *dev;
	struct t_side s[2];
	uint32_t len, i;
	unsigned int seed = 7;
	struct prdma_wc wc;

	(void)state;
	t_pair_open(s, "roce:ring=rx1,side=0", "roce:ring=rx1,side=1");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	dev = rdev(&s[1]);
	roce_engine_lock(dev);
	len = build_valid(s, frame);
	before = dev->eng[0].st.drop;
	d = &dev->eng[0].st.drop;

	/* Truncated at every length. */
	for (i = 0; i < len; i++)
		inject(dev, frame, i);
	assert_true(d->malformed + d->not_roce > before.malformed + before.not_roce);
	/* Bad ICRC. */
	memcpy(bad, frame, len);
	bad[len - 1] ^= 0xff;
	inject(dev, bad, len);
	assert_int_equal(d->bad_icrc, before.bad_icrc + 1);
	/* Unknown destination QP (the ICRC is recomputed by a real sender, so
	 * build it through side 0 with another QPN). */
	memcpy(bad, frame, len);
	bad[14 + 20 + 8 + 7] ^= 0x55;
	refresh_icrc(bad);
	inject(dev, bad, len);
	assert_int_equal(d->unknown_qp, before.unknown_qp + 1);
	/* Bad P_Key. */
	memcpy(bad, frame, len);
	bad[14 + 20 + 8 + 2] = 0x12;
	refresh_icrc(bad);
	inject(dev, bad, len);
	assert_int_equal(d->bad_pkey, before.bad_pkey + 1);
	/* Not for our IP. */
	memcpy(bad, frame, len);
	bad[14 + 19] ^= 1;
	refresh_icrc(bad);
	inject(dev, bad, len);
	assert_int_equal(d->wrong_ip, before.wrong_ip + 1);
	/* Random garbage of every size. */
	for (i = 0; i < 5000; i++) {
		uint32_t n = (uint32_t)rand_r(&seed) % sizeof(bad), k;

		memcpy(bad, frame, len);
		for (k = (i & 1) ? 42 : 0; k < n; k++)
			bad[k] = (uint8_t)rand_r(&seed);
		inject(dev, bad, n);
	}
	/* The valid frame itself is ahead of the expected PSN: one NAK. */
	inject(dev, frame, len);
	inject(dev, frame, len);
	assert_int_equal(((struct roce_qp *)s[1].qp)->cnt[PRDMA_QP_CNT_NAK_SEQ_SENT], 1);
	assert_true(dev->eng[0].st.dev[PRDMA_DEV_CNT_ICRC_DROPS] >= 1);
	assert_true(dev->eng[0].st.dev[PRDMA_DEV_CNT_MALFORMED_DROPS] >= 1);
	roce_engine_unlock(dev);
	/* The connection still works. */
	t_pattern_fill(s[0].buf, 100, 4);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 100,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 1), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_pattern_check(s[1].buf, 100, 4), -1);
	t_pair_close(s);
}

static void
set_timeout(struct t_side *s, uint8_t timeout, uint8_t retry)
{
	struct prdma_qp_attr qa;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(prdma_qp_modify(s->qp, &qa, PRDMA_QP_STATE), 0);
	roce_engine_lock(rdev(s));
	((struct roce_qp *)s->qp)->timeout = timeout;
	((struct roce_qp *)s->qp)->retry_cnt = retry;
	((struct roce_qp *)s->qp)->retry_left = retry;
	roce_engine_unlock(rdev(s));
}

static void
test_loss_recovery(void **state)
{
	struct roce_qp *qp;
	struct prdma_wc wc;
	struct t_side s[2];

	(void)state;
	t_pair_open(s, "roce:ring=rx2,side=0", "roce:ring=rx2,side=1");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	qp = (struct roce_qp *)s[0].qp;
	set_timeout(&s[0], 8, 3); /* about 1 ms */

	/* Lost single-packet WRITE: the tail-loss probe (or, were it lost
	 * too, the local ACK timeout) resends it. */
	t_pattern_fill(s[0].buf, 512, 5);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 512,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 1), 0);
	assert_int_equal(steal_frame(&s[1]), 1);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_pattern_check(s[1].buf, 512, 5), -1);
	assert_true(qp->cnt[PRDMA_QP_CNT_TIMEOUTS] + rdev(&s[0])->eng[0].xst.tlp_probes >= 1);
	assert_true(qp->cnt[PRDMA_QP_CNT_RETRANSMITS] + rdev(&s[0])->eng[0].xst.tlp_probes >= 1);

	/* First packet of a 4-packet WRITE lost: sequence NAK, go-back-N. */
	t_pattern_fill(s[0].buf, 4096, 6);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 4096,
				(uintptr_t)s[1].buf + 8192, s[1].mr->rkey, 2), 0);
	assert_int_equal(steal_frame(&s[1]), 1);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_pattern_check(s[1].buf + 8192, 4096, 6), -1);
	assert_true(qp->cnt[PRDMA_QP_CNT_NAK_SEQ_RCVD] >= 1);

	/* Lost READ response: the READ is asked again. */
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_READ, 16384, 4096,
				(uintptr_t)s[1].buf + 8192, s[1].mr->rkey, 3), 0);
	/* Let side 1 answer, then drop the first response on its way back. */
	{
		struct roce_dev *d1 = rdev(&s[1]);
		int stolen = 0, k;

		for (k = 0; k < 1000 && !stolen; k++) {
			roce_engine_lock(d1);
			roce_engine_step(d1);
			roce_engine_unlock(d1);
			stolen = steal_frame(&s[0]);
		}
		assert_int_equal(stolen, 1);
	}
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_pattern_check(s[0].buf + 16384, 4096, 6), -1);

	/* Nothing gets through: the retry count runs out. Side 1's engine
	 * flag is held so that side 0's polls cannot step it. */
	roce_engine_lock(rdev(&s[1]));
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 8,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 4), 0);
	{
		uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 2;
		int n = 0;

		while (n == 0 && rte_get_tsc_cycles() < end) {
			steal_frame(&s[1]);
			n = prdma_cq_poll(s[0].scq, 1, &wc);
		}
		roce_engine_unlock(rdev(&s[1]));
		assert_int_equal(n, 1);
	}
	assert_int_equal(wc.wr_id, 4);
	assert_int_equal(wc.status, PRDMA_WC_RETRY_EXC_ERR);
	assert_int_equal(s[0].qp->state, PRDMA_QPS_ERR);
	t_pair_close(s);
}

/*
 * A receive burst publishes its receive completions at its end, each CQ
 * once: SENDs to QPs on more CQs than the engine's list holds
 * (ROCE_RX_CQS) arrive in one burst, and after that one step every CQ has
 * published its completion, none is left staged (one past the list is
 * published at once, the others at the burst's end).
 */
#define T_RX_NCQ (ROCE_RX_CQS + 3)

static void
test_rx_burst_publishes_every_cq(void **state)
{
	struct prdma_qp *qa[T_RX_NCQ], *qb[T_RX_NCQ];
	struct prdma_cq *cq[T_RX_NCQ], *rcq;
	const struct roce_cq *rc;
	struct t_side s[2];
	struct prdma_wc wc;
	unsigned int i;

	(void)state;
	RTE_BUILD_BUG_ON(T_RX_NCQ > ROCE_DEFAULT_BURST);
	t_pair_open(s, "roce:ring=rx3,side=0", "roce:ring=rx3,side=1");
	rcq = s[1].rcq;
	for (i = 0; i < T_RX_NCQ; i++) {
		cq[i] = t_cq_new(&s[1]);
		s[1].rcq = cq[i];
		t_pair_connect(s, PRDMA_QPT_RC, 0);
		qa[i] = s[0].qp;
		qb[i] = s[1].qp;
		assert_int_equal(t_post_recv(&s[1], i * 64, 64, 100 + i), 0);
	}
	s[1].rcq = rcq;
	/* B's engine held: every SEND waits in its port for one step */
	roce_engine_lock(rdev(&s[1]));
	for (i = 0; i < T_RX_NCQ; i++) {
		s[0].qp = qa[i];
		assert_int_equal(t_post(&s[0], PRDMA_WR_SEND, 4096 + i * 64, 8, 0, 0, i), 0);
	}
	roce_engine_step(rdev(&s[1]));
	roce_engine_unlock(rdev(&s[1]));
	for (i = 0; i < T_RX_NCQ; i++) {
		rc = (const struct roce_cq *)cq[i];
		assert_int_equal(rc->staged, 0);
		assert_int_equal(rc->head - rc->tail, 1);
		assert_int_equal(prdma_cq_poll(cq[i], 1, &wc), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_int_equal(wc.wr_id, 100 + i);
		assert_int_equal(wc.byte_len, 8);
		assert_int_equal(wc.qp_num, qb[i]->qp_num);
	}
	for (i = 0; i < T_RX_NCQ; i++) {
		assert_int_equal(prdma_qp_destroy(qa[i]), 0);
		assert_int_equal(prdma_qp_destroy(qb[i]), 0);
		assert_int_equal(prdma_cq_destroy(cq[i]), 0);
	}
	s[0].qp = NULL;
	s[1].qp = NULL;
	t_pair_close(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_garbage_counted),
		cmocka_unit_test(test_loss_recovery),
		cmocka_unit_test(test_rx_burst_publishes_every_cq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
