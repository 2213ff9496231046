/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Many engines per device (engines=): QPs spread over the engines and
 * follow their CQs, the UDP source port names the receiver's engine, a
 * frame that arrives on another engine's queue is handed over to the
 * QP's engine and not lost, and two threads each driving one engine of
 * both devices move traffic at the same time.
 */

#include <pthread.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce.h"
#include "t_roce.h"

#define NCQ 4

struct pair_side {
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq[NCQ];
	uint8_t *buf;
	struct prdma_mr *mr;
	union prdma_gid gid;
	int id;
};

static void
side_open(struct pair_side *s, const char *args)
{
	struct prdma_cq_init_attr ca;
	int i;

	memset(s, 0, sizeof(*s));
	s->id = prdma_dev_probe(args);
	if (s->id < 0)
		fail_msg("probe %s: %d", args, s->id);
	s->dev = prdma_dev_open((uint16_t)s->id);
	assert_non_null(s->dev);
	s->pd = prdma_pd_alloc(s->dev);
	assert_non_null(s->pd);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 1024;
	for (i = 0; i < NCQ; i++) {
		s->cq[i] = prdma_cq_create(s->dev, &ca);
		assert_non_null(s->cq[i]);
	}
	s->buf = rte_zmalloc(NULL, T_BUF_LEN, 64);
	assert_non_null(s->buf);
	s->mr = prdma_mr_reg(s->pd, s->buf, T_BUF_LEN, PRDMA_ACCESS_ALL);
	assert_non_null(s->mr);
	assert_int_equal(prdma_gid_query(s->dev, 1, 0, &s->gid), 0);
}

static void
side_close(struct pair_side *s)
{
	int i;

	assert_int_equal(prdma_mr_dereg(s->mr), 0);
	rte_free(s->buf);
	for (i = 0; i < NCQ; i++)
		assert_int_equal(prdma_cq_destroy(s->cq[i]), 0);
	assert_int_equal(prdma_pd_free(s->pd), 0);
	assert_int_equal(prdma_dev_close(s->dev), 0);
	assert_int_equal(prdma_dev_remove((uint16_t)s->id), 0);
}

static struct prdma_qp *
qp_new(struct pair_side *s, enum prdma_qp_type type, struct prdma_cq *scq,
       struct prdma_cq *rcq)
{
	struct prdma_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = type;
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.cap.max_send_wr = 256;
	ia.cap.max_recv_wr = 256;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return prdma_qp_create(s->pd, &ia);
}

/* Move @q (of @s) to RTS towards @peer_qpn at @peer. */
static void
qp_connect(struct prdma_qp *q, const union prdma_gid *peer, uint32_t peer_qpn)
{
	struct prdma_qp_attr qa;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_INIT;
	qa.port_num = 1;
	qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ;
	assert_int_equal(prdma_qp_modify(q, &qa, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS), 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTR;
	qa.path_mtu = PRDMA_MTU_1024;
	qa.dest_qp_num = peer_qpn;
	qa.rq_psn = 100;
	qa.max_dest_rd_atomic = 4;
	qa.min_rnr_timer = 1;
	qa.ah_attr.dgid = *peer;
	qa.ah_attr.port_num = 1;
	assert_int_equal(prdma_qp_modify(q, &qa, PRDMA_QP_STATE | PRDMA_QP_AV |
					 PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
					 PRDMA_QP_RQ_PSN | PRDMA_QP_MAX_DEST_RD_ATOMIC |
					 PRDMA_QP_MIN_RNR_TIMER), 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTS;
	qa.sq_psn = 100;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 4;
	assert_int_equal(prdma_qp_modify(q, &qa, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
					 PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT |
					 PRDMA_QP_RNR_RETRY | PRDMA_QP_MAX_QP_RD_ATOMIC), 0);
}

static int
post_write(struct pair_side *s, struct prdma_qp *q, uint32_t loff, uint32_t len,
	   uint64_t raddr, uint32_t rkey, uint64_t wr_id)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;

	sge.addr = (uintptr_t)(s->buf + loff);
	sge.length = len;
	sge.lkey = s->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return prdma_post_send(q, &wr, &bad);
}

static struct roce_dev *
rdev_of(struct pair_side *s)
{
	return roce_dev_of(s->dev);
}

/* engines= is 1, 2, 4 or 8; anything else is refused at probe. */
static void
test_engines_devarg(void **state)
{
	static const char *const bad[] = {
		"roce:ring=eng0,side=0,engines=0", "roce:ring=eng0,side=0,engines=3",
		"roce:ring=eng0,side=0,engines=16", "roce:ring=eng0,side=0,engines=x",
	};
	struct pair_side a;
	unsigned int i;
	int ret;

	(void)state;
	assert_int_equal(t_eal_init(), 0);
	for (i = 0; i < RTE_DIM(bad); i++) {
		ret = prdma_dev_probe(bad[i]);
		if (ret >= 0)
			fail_msg("%s: probed", bad[i]);
	}
	side_open(&a, "roce:ring=eng1,side=0");
	assert_int_equal(prdma_dev_progress_queues(a.dev), 1);
	assert_int_equal(rdev_of(&a)->nb_eng, 1);
	assert_int_equal(prdma_dev_progress_queue(a.dev, 1), -EINVAL);
	side_close(&a);
	side_open(&a, "roce:ring=eng2,side=0,engines=4");
	assert_int_equal(prdma_dev_progress_queues(a.dev), 4);
	assert_true(prdma_dev_progress_queue(a.dev, 3) >= 0);
	assert_int_equal(prdma_dev_progress_queue(a.dev, 4), -EINVAL);
	/* The other side of a ring link must have as many. */
	ret = prdma_dev_probe("roce:ring=eng2,side=1,engines=2");
	assert_true(ret < 0);
	side_close(&a);
}

/*
 * QPs go to the least loaded engine unless a CQ or SRQ of theirs already
 * serves one; UD QPs are engine 0's; a QP whose CQs serve different
 * engines is refused. An RC QP's QPN low bits are its engine, and the
 * source port of what it sends carries the low bits of the peer's QPN.
 */
static void
test_engines_spread(void **state)
{
	struct prdma_qp *q[NCQ], *x, *ud;
	struct roce_qp *rq;
	struct pair_side a, b;
	int i, e;

	(void)state;
	assert_int_equal(t_eal_init(), 0);
	side_open(&a, "roce:ring=engs,side=0,engines=2");
	side_open(&b, "roce:ring=engs,side=1,engines=2");
	for (i = 0; i < NCQ; i++) {
		q[i] = qp_new(&a, PRDMA_QPT_RC, a.cq[i], a.cq[i]);
		assert_non_null(q[i]);
		e = prdma_qp_progress_queue(q[i]);
		assert_int_equal(e, i % 2);
		assert_int_equal(q[i]->qp_num & 1, (uint32_t)e);
	}
	/* two per engine now: a QP on cq[1] follows it */
	x = qp_new(&a, PRDMA_QPT_RC, a.cq[1], a.cq[1]);
	assert_non_null(x);
	assert_int_equal(prdma_qp_progress_queue(x), 1);
	assert_int_equal(rdev_of(&a)->eng[0].nb_qps, 2);
	assert_int_equal(rdev_of(&a)->eng[1].nb_qps, 3);
	assert_int_equal(prdma_qp_destroy(x), 0);
	/* CQs of two engines: refused */
	rte_errno = 0;
	x = qp_new(&a, PRDMA_QPT_RC, a.cq[0], a.cq[1]);
	assert_null(x);
	assert_int_equal(rte_errno, EXDEV);
	/* UD: engine 0, and not on a CQ of engine 1 */
	ud = qp_new(&a, PRDMA_QPT_UD, a.cq[2], a.cq[2]);
	assert_non_null(ud);
	assert_int_equal(prdma_qp_progress_queue(ud), 0);
	x = qp_new(&a, PRDMA_QPT_UD, a.cq[3], a.cq[3]);
	assert_null(x);
	assert_int_equal(prdma_qp_destroy(ud), 0);
	/* the source port names the destination QP's engine */
	qp_connect(q[0], &b.gid, 0x123457);
	rq = (struct roce_qp *)q[0];
	assert_int_equal(rq->sport & 7, 0x123457 & 7);
	assert_true(rq->sport >= 0xc000);
	/* once its QPs are gone a CQ may serve another engine */
	assert_int_equal(prdma_qp_destroy(q[1]), 0);
	x = qp_new(&a, PRDMA_QPT_RC, a.cq[0], a.cq[1]);
	assert_non_null(x);
	assert_int_equal(prdma_qp_progress_queue(x), 0);
	assert_int_equal(prdma_qp_destroy(x), 0);
	for (i = 0; i < NCQ; i++)
		if (i != 1)
			assert_int_equal(prdma_qp_destroy(q[i]), 0);
	side_close(&a);
	side_close(&b);
}

/* Poll @cq until @n completions, driving both devices; all must succeed. */
static void
drain(struct pair_side *a, struct pair_side *b, struct prdma_cq *cq, int n)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 10;
	struct prdma_wc wc[32];
	int got = 0, k, i;

	while (got < n && rte_get_tsc_cycles() < end) {
		k = prdma_cq_poll(cq, 32, wc);
		for (i = 0; i < k; i++)
			assert_int_equal(wc[i].status, PRDMA_WC_SUCCESS);
		got += k;
		prdma_dev_progress(a->dev);
		prdma_dev_progress(b->dev);
	}
	assert_int_equal(got, n);
}

/*
 * A's QP on engine 0, B's on engine 1: on a ring link a frame arrives on
 * the queue of the sender's engine, so every frame each way lands on the
 * other engine's queue. All of them are handed over and none lost.
 */
static void
test_engines_handover(void **state)
{
	struct prdma_roce_stats st;
	struct prdma_qp *qa, *qb, *pad;
	struct roce_dev *rb;
	struct pair_side a, b;
	const int n = 2000;
	int i;

	(void)state;
	assert_int_equal(t_eal_init(), 0);
	side_open(&a, "roce:ring=engh,side=0,engines=2");
	side_open(&b, "roce:ring=engh,side=1,engines=2");
	qa = qp_new(&a, PRDMA_QPT_RC, a.cq[0], a.cq[0]);
	pad = qp_new(&b, PRDMA_QPT_RC, b.cq[0], b.cq[0]);
	qb = qp_new(&b, PRDMA_QPT_RC, b.cq[1], b.cq[1]);
	assert_non_null(qa);
	assert_non_null(pad);
	assert_non_null(qb);
	assert_int_equal(prdma_qp_progress_queue(qa), 0);
	assert_int_equal(prdma_qp_progress_queue(qb), 1);
	qp_connect(qa, &b.gid, qb->qp_num);
	qp_connect(qb, &a.gid, qa->qp_num);
	for (i = 0; i < (int)T_BUF_LEN / 2; i++)
		a.buf[i] = (uint8_t)(i * 7 + 1);
	for (i = 0; i < n; i++) {
		uint32_t off = (uint32_t)(i % 32) * 1024;

		assert_int_equal(post_write(&a, qa, off, 1024, (uintptr_t)b.buf + off,
					    b.mr->rkey, (uint64_t)i), 0);
		if (i % 128 == 127)
			drain(&a, &b, a.cq[0], 128);
	}
	drain(&a, &b, a.cq[0], n % 128);
	assert_memory_equal(a.buf, b.buf, 32 * 1024);
	rb = rdev_of(&b);
	/* B: requests in on queue 0, handed to engine 1 */
	assert_true(rb->eng[0].handed_out >= (uint64_t)n);
	assert_int_equal(rb->eng[1].handed_in, rb->eng[0].handed_out);
	assert_int_equal(rb->eng[0].handoff_drops + rb->eng[1].handoff_drops, 0);
	/* A: the ACKs from B's engine 1 in on queue 1, handed to engine 0 */
	assert_true(rdev_of(&a)->eng[1].handed_out > 0);
	assert_int_equal(prdma_roce_stats_get(b.dev, &st), 0);
	assert_int_equal(st.handed_over, rb->eng[0].handed_out + rb->eng[1].handed_out);
	assert_int_equal(st.handoff_drops, 0);
	/* each frame counted once, by the engine that handled it */
	assert_true(rb->eng[1].st.dev[PRDMA_DEV_CNT_RDMA_IN_FRAMES] >= (uint64_t)n);
	assert_int_equal(prdma_qp_destroy(qa), 0);
	assert_int_equal(prdma_qp_destroy(qb), 0);
	assert_int_equal(prdma_qp_destroy(pad), 0);
	side_close(&a);
	side_close(&b);
}

/* Two threads, each driving one engine of both devices. */
struct drv {
	struct pair_side *a, *b;
	struct prdma_qp *qa;
	struct prdma_cq *cqa;
	uint16_t qa_eng, qb_eng;
	uint32_t base;            /* its part of the buffers */
	int n;
	int done;
	int errors;
};

static void *
drive(void *arg)
{
	struct drv *d = arg;
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 30;
	struct prdma_wc wc[32];
	int posted = 0, k, i;

	while (d->done < d->n && rte_get_tsc_cycles() < end) {
		while (posted < d->n && posted - d->done < 64) {
			uint32_t off = d->base + (uint32_t)(posted % 8) * 512;

			if (post_write(d->a, d->qa, off, 512, (uintptr_t)d->b->buf + off,
				       d->b->mr->rkey, (uint64_t)posted) != 0)
				break;
			posted++;
		}
		k = prdma_cq_poll(d->cqa, 32, wc);
		for (i = 0; i < k; i++)
			if (wc[i].status != PRDMA_WC_SUCCESS)
				d->errors++;
		d->done += k;
		prdma_dev_progress_queue(d->a->dev, d->qa_eng);
		prdma_dev_progress_queue(d->b->dev, d->qb_eng);
	}
	return NULL;
}

/*
 * Pair 0: A engine 0 to B engine 1, pair 1: A engine 1 to B engine 0, so
 * both threads hand frames to each other's engines while they run.
 */
static void
test_engines_threads(void **state)
{
	struct prdma_qp *qa[2], *qb[2], *pad;
	struct pair_side a, b;
	pthread_t th[2];
	struct drv d[2];
	int i;

	(void)state;
	assert_int_equal(t_eal_init(), 0);
	side_open(&a, "roce:ring=engt,side=0,engines=2");
	side_open(&b, "roce:ring=engt,side=1,engines=2");
	qa[0] = qp_new(&a, PRDMA_QPT_RC, a.cq[0], a.cq[0]);
	qa[1] = qp_new(&a, PRDMA_QPT_RC, a.cq[1], a.cq[1]);
	pad = qp_new(&b, PRDMA_QPT_RC, b.cq[2], b.cq[2]);  /* engine 0 */
	qb[0] = qp_new(&b, PRDMA_QPT_RC, b.cq[0], b.cq[0]); /* engine 1 */
	qb[1] = qp_new(&b, PRDMA_QPT_RC, b.cq[2], b.cq[2]); /* engine 0 */
	assert_int_equal(prdma_qp_progress_queue(qa[0]), 0);
	assert_int_equal(prdma_qp_progress_queue(qa[1]), 1);
	assert_int_equal(prdma_qp_progress_queue(qb[0]), 1);
	assert_int_equal(prdma_qp_progress_queue(qb[1]), 0);
	for (i = 0; i < 2; i++) {
		qp_connect(qa[i], &b.gid, qb[i]->qp_num);
		qp_connect(qb[i], &a.gid, qa[i]->qp_num);
	}
	for (i = 0; i < (int)T_BUF_LEN; i++)
		a.buf[i] = (uint8_t)(i * 13 + 5);
	for (i = 0; i < 2; i++) {
		memset(&d[i], 0, sizeof(d[i]));
		d[i].a = &a;
		d[i].b = &b;
		d[i].qa = qa[i];
		d[i].cqa = a.cq[i];
		/* thread i drives A's engine i and B's engine of its peer QP */
		d[i].qa_eng = (uint16_t)i;
		d[i].qb_eng = (uint16_t)(1 - i);
		d[i].base = (uint32_t)i * 8192;
		d[i].n = 20000;
		assert_int_equal(pthread_create(&th[i], NULL, drive, &d[i]), 0);
	}
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(d[i].errors, 0);
		assert_int_equal(d[i].done, d[i].n);
	}
	/* each thread wrote 8 slots of 512 bytes at its base */
	assert_memory_equal(a.buf, b.buf, 8 * 512);
	assert_memory_equal(a.buf + 8192, b.buf + 8192, 8 * 512);
	assert_true(rdev_of(&b)->eng[0].handed_out > 0);
	assert_true(rdev_of(&b)->eng[1].handed_out > 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(prdma_qp_destroy(qa[i]), 0);
		assert_int_equal(prdma_qp_destroy(qb[i]), 0);
	}
	assert_int_equal(prdma_qp_destroy(pad), 0);
	side_close(&a);
	side_close(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_engines_devarg),
		cmocka_unit_test(test_engines_spread),
		cmocka_unit_test(test_engines_handover),
		cmocka_unit_test(test_engines_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
