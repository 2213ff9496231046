/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Several engines per device (engines=, issue 17): where QPs go (slot mod
 * N names the engine), the refusal of a QP whose CQs or SRQ another engine
 * serves, frames that arrive on the other engine's queue (handed over and
 * counted), and two threads driving two engines with no lock between them.
 */

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>

#include "roce.h"
#include "t_roce.h"

static struct roce_qp *
rqp(struct prdma_qp *qp)
{
	return (struct roce_qp *)qp;
}

static struct prdma_qp *
qp_new(struct t_side *s, struct prdma_cq *scq, struct prdma_cq *rcq, struct prdma_srq *srq)
{
	struct prdma_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.srq = srq;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = srq != NULL ? 0 : 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return prdma_qp_create(s->pd, &ia);
}

static uint32_t
qp_engine(struct prdma_qp *qp)
{
	return rqp(qp)->eng->idx;
}

static uint32_t
qp_slot_engine(struct prdma_qp *qp)
{
	struct roce_dev *dev = rqp(qp)->rdev;

	return (qp->qp_num & dev->qp_slot_mask) % dev->nb_eng;
}

static void
test_placement(void **state)
{
	struct t_side s[2];
	struct prdma_cq *cq[2][2];
	struct prdma_qp *qp[8];
	struct prdma_roce_stats x;
	unsigned int i;

	(void)state;
	t_pair_open(s, "roce:ring=eng1,side=0,engines=2", "roce:ring=eng1,side=1,engines=2");
	assert_int_equal(prdma_roce_stats_get(s[0].dev, &x), 0);
	assert_int_equal(x.engines, 2);
	for (i = 0; i < 2; i++) {
		cq[i][0] = t_cq_new(&s[0]);
		cq[i][1] = t_cq_new(&s[0]);
	}
	/* The first QP of each CQ pair: the engines in turn. Then the rest
	 * follow their send CQ; every slot says its engine. */
	for (i = 0; i < RTE_DIM(qp); i++) {
		qp[i] = qp_new(&s[0], cq[i % 2][0], cq[i % 2][1], NULL);
		assert_non_null(qp[i]);
		assert_int_equal(qp_engine(qp[i]), qp_slot_engine(qp[i]));
		assert_int_equal(qp_engine(qp[i]), qp_engine(qp[i % 2]));
	}
	assert_int_not_equal(qp_engine(qp[0]), qp_engine(qp[1]));
	assert_int_equal(roce_cq_eng((struct roce_cq *)cq[1][0])->idx, qp_engine(qp[1]));
	for (i = 0; i < RTE_DIM(qp); i++)
		assert_int_equal(prdma_qp_destroy(qp[i]), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(prdma_cq_destroy(cq[i][0]), 0);
		assert_int_equal(prdma_cq_destroy(cq[i][1]), 0);
	}
	t_pair_close(s);
}

static void
test_binding_refused(void **state)
{
	struct prdma_srq_init_attr sa;
	struct t_side s[2];
	struct prdma_cq *a, *b, *c, *d;
	struct prdma_qp *qa, *qb, *q;
	struct prdma_srq *srq;

	(void)state;
	t_pair_open(s, "roce:ring=eng2,side=0,engines=2", "roce:ring=eng2,side=1,engines=2");
	a = t_cq_new(&s[0]);
	b = t_cq_new(&s[0]);
	c = t_cq_new(&s[0]);
	d = t_cq_new(&s[0]);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	srq = prdma_srq_create(s[0].pd, &sa);
	assert_non_null(srq);
	qa = qp_new(&s[0], a, b, srq);        /* a, b and the SRQ: one engine */
	assert_non_null(qa);
	qb = qp_new(&s[0], c, d, NULL);       /* c, d: the other */
	assert_non_null(qb);
	assert_int_not_equal(qp_engine(qa), qp_engine(qb));
	/* Send CQ on one engine, receive CQ on the other: refused. */
	rte_errno = 0;
	q = qp_new(&s[0], a, d, NULL);
	assert_null(q);
	assert_int_equal(rte_errno, EINVAL);
	/* The SRQ is the other engine's. */
	rte_errno = 0;
	q = qp_new(&s[0], c, c, srq);
	assert_null(q);
	assert_int_equal(rte_errno, EINVAL);
	/* Alike: accepted. */
	q = qp_new(&s[0], c, d, NULL);
	assert_non_null(q);
	assert_int_equal(qp_engine(q), qp_engine(qb));
	assert_int_equal(prdma_qp_destroy(q), 0);
	assert_int_equal(prdma_qp_destroy(qb), 0);
	assert_int_equal(prdma_qp_destroy(qa), 0);
	assert_int_equal(prdma_srq_destroy(srq), 0);
	assert_int_equal(prdma_cq_destroy(a), 0);
	assert_int_equal(prdma_cq_destroy(b), 0);
	assert_int_equal(prdma_cq_destroy(c), 0);
	assert_int_equal(prdma_cq_destroy(d), 0);
	t_pair_close(s);
}

/*
 * A's QP on engine 0, B's peer on engine 1: A sends on queue 0, which is
 * B's engine 0's, and B answers on queue 1, A's engine 1's. Every frame
 * is handed over, and the connection still works.
 */
static void
test_handoff(void **state)
{
	struct t_side s[2];
	struct prdma_roce_stats x[2];
	struct prdma_cq *ca, *cb;
	struct prdma_qp *other;
	struct prdma_wc wc;
	unsigned int i;

	(void)state;
	t_pair_open(s, "roce:ring=eng3,side=0,engines=2", "roce:ring=eng3,side=1,engines=2");
	/* B: a first QP takes engine 0, so the connected one gets engine 1 */
	ca = t_cq_new(&s[1]);
	cb = t_cq_new(&s[1]);
	other = qp_new(&s[1], ca, cb, NULL);
	assert_non_null(other);
	assert_int_equal(qp_engine(other), 0);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	assert_int_equal(qp_engine(s[0].qp), 0);
	assert_int_equal(qp_engine(s[1].qp), 1);
	for (i = 0; i < 64; i++)
		s[0].buf[i] = (uint8_t)(i + 1);
	for (i = 0; i < 8; i++) {
		assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64,
					(uintptr_t)s[1].buf + i * 64, s[1].mr->rkey, i), 0);
		assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_memory_equal(s[1].buf + i * 64, s[0].buf, 64);
	}
	/* a READ: the responses come back through A's handoff */
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_READ, 4096, 256,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 99), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(s[0].buf + 4096, s[1].buf, 256);
	for (i = 0; i < 2; i++)
		assert_int_equal(prdma_roce_stats_get(s[i].dev, &x[i]), 0);
	assert_true(x[1].rx_handoff >= 9);    /* the requests */
	assert_true(x[0].rx_handoff >= 1);    /* ACKs and READ responses */
	assert_int_equal(x[0].rx_handoff_drops + x[1].rx_handoff_drops, 0);
	assert_int_equal(prdma_qp_destroy(other), 0);
	assert_int_equal(prdma_cq_destroy(ca), 0);
	assert_int_equal(prdma_cq_destroy(cb), 0);
	t_pair_close(s);
}

/*
 * The same cross placement through loss and reordering (each engine draws
 * its own fault stream): go-back-N, timers and handed-over frames together.
 */
static void
test_handoff_lossy(void **state)
{
	struct t_side s[2];
	struct prdma_roce_stats x;
	struct prdma_cq *ca, *cb;
	struct prdma_qp *other;
	struct prdma_wc wc;
	unsigned int i, j;

	(void)state;
	t_pair_open(s, "roce:ring=eng7,side=0,engines=2,tx_drop=2%,tx_reorder=1%",
		    "roce:ring=eng7,side=1,engines=2,tx_drop=2%,tx_dup=1%");
	ca = t_cq_new(&s[1]);
	cb = t_cq_new(&s[1]);
	other = qp_new(&s[1], ca, cb, NULL);
	assert_non_null(other);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	assert_int_not_equal(qp_engine(s[0].qp), qp_engine(s[1].qp));
	for (i = 0; i < 40; i++) {
		for (j = 0; j < 4096; j++)
			s[0].buf[j] = (uint8_t)(i * 31 + j);
		assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 4096,
					(uintptr_t)s[1].buf + 8192, s[1].mr->rkey, i), 0);
		assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_memory_equal(s[1].buf + 8192, s[0].buf, 4096);
		assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_READ, 16384, 4096,
					(uintptr_t)s[1].buf + 8192, s[1].mr->rkey, 100 + i), 0);
		assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_memory_equal(s[0].buf + 16384, s[0].buf, 4096);
	}
	assert_int_equal(prdma_roce_stats_get(s[0].dev, &x), 0);
	assert_true(x.fault[PRDMA_ROCE_FAULT_TX][PRDMA_ROCE_FAULT_DROP] >= 1);
	assert_true(x.rx_handoff >= 1);
	assert_int_equal(prdma_qp_destroy(other), 0);
	assert_int_equal(prdma_cq_destroy(ca), 0);
	assert_int_equal(prdma_cq_destroy(cb), 0);
	t_pair_close(s);
}

/*
 * Inline progress with only one CQ polled: A's, on engine 0. B's QP is on
 * engine 1, whose CQs nobody polls; A's frames reach B's queue 0. B's
 * engine 0 is stepped by A's polls (the ring peer), hands them over, and
 * B's engine 1 must then be stepped too, though nobody polls it.
 */
static void
test_unpolled_engine(void **state)
{
	struct t_side s[2];
	struct prdma_cq *ca, *cb;
	struct prdma_qp *other;
	struct prdma_wc wc;
	uint64_t end;
	int n = 0;

	(void)state;
	t_pair_open(s, "roce:ring=eng8,side=0,engines=2", "roce:ring=eng8,side=1,engines=2");
	ca = t_cq_new(&s[1]);
	cb = t_cq_new(&s[1]);
	other = qp_new(&s[1], ca, cb, NULL);
	assert_non_null(other);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	assert_int_equal(qp_engine(s[0].qp), 0);
	assert_int_equal(qp_engine(s[1].qp), 1);
	memset(s[0].buf, 0x3c, 512);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 512,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 7), 0);
	/* prdma_cq_poll only: no prdma_dev_progress, which steps every engine */
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 2;
	while (n == 0 && rte_get_tsc_cycles() < end)
		n = prdma_cq_poll(s[0].scq, 1, &wc);
	assert_int_equal(n, 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(s[1].buf, s[0].buf, 512);
	assert_int_equal(prdma_qp_destroy(other), 0);
	assert_int_equal(prdma_cq_destroy(ca), 0);
	assert_int_equal(prdma_cq_destroy(cb), 0);
	t_pair_close(s);
}

#define T_WRITES 3000

struct t_worker {
	struct t_side *s;             /* its own pair: QPs, CQs */
	uint32_t off;                 /* its part of the buffers */
	int done;
	int err;
};

/* Post and poll its own QP and CQ only: nothing shared with the other. */
static void *
worker(void *arg)
{
	struct t_worker *w = arg;
	struct t_side *s = w->s;
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 20;
	uint32_t posted = 0, inflight = 0;
	struct prdma_wc wc[16];
	int n, i;

	while (w->done < T_WRITES && rte_get_tsc_cycles() < end) {
		while (posted < T_WRITES && inflight < 32) {
			if (t_post(&s[0], PRDMA_WR_RDMA_WRITE, w->off + (posted % 64) * 64, 64,
				   (uintptr_t)s[1].buf + w->off + (posted % 64) * 64,
				   s[1].mr->rkey, posted) != 0)
				break;
			posted++;
			inflight++;
		}
		n = prdma_cq_poll(s[0].scq, RTE_DIM(wc), wc);
		for (i = 0; i < n; i++) {
			if (wc[i].status != PRDMA_WC_SUCCESS)
				w->err++;
			w->done++;
			inflight--;
		}
	}
	return NULL;
}

static void
test_two_threads(void **state)
{
	struct t_side s[2], p[2];
	struct prdma_roce_stats x;
	struct t_worker w[2];
	pthread_t th[2];
	unsigned int i;

	(void)state;
	t_pair_open(s, "roce:ring=eng4,side=0,engines=2", "roce:ring=eng4,side=1,engines=2");
	/* pair s on engine 0 of both sides, pair p on engine 1 */
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	memcpy(p, s, sizeof(p));
	for (i = 0; i < 2; i++) {
		p[i].scq = t_cq_new(&p[i]);
		p[i].rcq = t_cq_new(&p[i]);
	}
	t_pair_connect(p, PRDMA_QPT_RC, 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(qp_engine(s[i].qp), 0);
		assert_int_equal(qp_engine(p[i].qp), 1);
	}
	for (i = 0; i < T_BUF_LEN / 2; i++)
		s[0].buf[i] = (uint8_t)(i * 7 + 3);
	for (i = T_BUF_LEN / 2; i < T_BUF_LEN; i++)
		s[0].buf[i] = (uint8_t)(i * 5 + 1);
	memset(w, 0, sizeof(w));
	w[0].s = s;
	w[0].off = 0;
	w[1].s = p;
	w[1].off = T_BUF_LEN / 2;
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, worker, &w[i]), 0);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < 2; i++) {
		assert_int_equal(w[i].err, 0);
		assert_int_equal(w[i].done, T_WRITES);
		assert_memory_equal(s[1].buf + w[i].off, s[0].buf + w[i].off, 64 * 64);
	}
	/* placed alike on both sides: each frame came on its engine's queue */
	assert_int_equal(prdma_roce_stats_get(s[1].dev, &x), 0);
	assert_int_equal(x.rx_handoff, 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(prdma_qp_destroy(p[i].qp), 0);
		assert_int_equal(prdma_cq_destroy(p[i].scq), 0);
		assert_int_equal(prdma_cq_destroy(p[i].rcq), 0);
	}
	t_pair_close(s);
}

static void
test_bad_engines(void **state)
{
	(void)state;
	assert_int_equal(t_eal_init(), 0);
	assert_true(prdma_dev_probe("roce:ring=eng5,side=0,engines=0") < 0);
	assert_true(prdma_dev_probe("roce:ring=eng5,side=0,engines=9") < 0);
	assert_true(prdma_dev_probe("roce:ring=eng5,side=0,engines=x") < 0);
}

static int
thread_cpu(struct t_side *s, uint32_t i)
{
	struct roce_dev *dev = rqp(s->qp)->rdev;
	rte_cpuset_t set;
	int cpu, found = -1;

	assert_int_equal(pthread_getaffinity_np(dev->eng[i].thread, sizeof(set), &set), 0);
	if (CPU_COUNT(&set) != 1)
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			found = cpu;
	return found;
}

/*
 * engine_cpus=: each engine's progress thread runs on its CPU only (read
 * back from the thread); the pair still moves data. A CPU the process may
 * not run on fails the probe.
 */
static void
test_engine_cpus(void **state)
{
	char a[128], b[128];
	struct t_side s[2];
	struct prdma_wc wc;
	rte_cpuset_t mine;
	int c0 = -1, c1 = -1, cpu, i;

	(void)state;
	assert_int_equal(t_eal_init(), 0);
	/* the last two CPUs the process may use (one twice on one CPU) */
	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &mine))
			continue;
		c0 = c1;
		c1 = cpu;
	}
	if (c0 < 0)
		c0 = c1;
	snprintf(a, sizeof(a), "roce:ring=eng7,side=0,engines=2,progress=thread,"
		 "engine_cpus=[%d,%d]", c1, c0);
	snprintf(b, sizeof(b), "roce:ring=eng7,side=1,engines=2,progress=hybrid,"
		 "engine_cpus=[%d,%d]", c0, c1);
	t_pair_open(s, a, b);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	assert_int_equal(thread_cpu(&s[0], 0), c1);
	assert_int_equal(thread_cpu(&s[0], 1), c0);
	assert_int_equal(thread_cpu(&s[1], 0), c0);
	assert_int_equal(thread_cpu(&s[1], 1), c1);
	for (i = 0; i < 64; i++)
		s[0].buf[i] = (uint8_t)(i * 3 + 1);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)s[1].buf,
				s[1].mr->rkey, 1), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(s[1].buf, s[0].buf, 64);
	t_pair_close(s);
	/* CPU 1023: not one this process can use (no machine here has 1024) */
	assert_true(prdma_dev_probe("roce:ring=eng8,side=0,progress=thread,engine_cpus=1023") < 0);
}

/* Both sides of a link have as many queues: a side asking otherwise is refused. */
static void
test_link_mismatch(void **state)
{
	int a, b;

	(void)state;
	assert_int_equal(t_eal_init(), 0);
	a = prdma_dev_probe("roce:ring=eng6,side=0,engines=2");
	assert_true(a >= 0);
	b = prdma_dev_probe("roce:ring=eng6,side=1");
	assert_int_equal(b, -EINVAL);
	assert_int_equal(prdma_dev_remove((uint16_t)a), 0);
}

/*
 * Port mode: two net_ring ethdevs of two queue pairs each, made here (no
 * RSS: software steering only). engines=2 configures both queues; a QP on
 * engine 1 of B still gets A's engine-0 frames (handed over). engines=3
 * exceeds the port's queues: refused.
 */
static void
test_port_two_queues(void **state)
{
	struct rte_ring *r[2][2];
	struct prdma_roce_stats x;
	struct prdma_cq *ca, *cb;
	struct prdma_qp *other;
	char args[2][128], name[32];
	struct t_side s[2];
	struct prdma_wc wc;
	int port[2], i, q;

	(void)state;
	assert_int_equal(t_eal_init(), 0);
	for (i = 0; i < 2; i++) {
		for (q = 0; q < 2; q++) {
			snprintf(name, sizeof(name), "t_eq_r%d%d", i, q);
			r[i][q] = rte_ring_create(name, 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
			assert_non_null(r[i][q]);
		}
	}
	/* port i receives on r[i][q] and sends on r[1 - i][q] */
	port[0] = rte_eth_from_rings("t_eq_p0", r[0], 2, r[1], 2, 0);
	port[1] = rte_eth_from_rings("t_eq_p1", r[1], 2, r[0], 2, 0);
	assert_true(port[0] >= 0 && port[1] >= 0);
	snprintf(args[0], sizeof(args[0]), "roce:port=%d,ip=10.9.1.1,engines=3", port[0]);
	assert_int_equal(prdma_dev_probe(args[0]), -EINVAL);
	snprintf(args[0], sizeof(args[0]), "roce:port=%d,ip=10.9.1.1,engines=2", port[0]);
	snprintf(args[1], sizeof(args[1]), "roce:port=%d,ip=10.9.1.2,engines=2", port[1]);
	t_pair_open(s, args[0], args[1]);
	ca = t_cq_new(&s[1]);
	cb = t_cq_new(&s[1]);
	other = qp_new(&s[1], ca, cb, NULL);
	assert_non_null(other);
	t_pair_connect(s, PRDMA_QPT_RC, 1);
	assert_int_equal(qp_engine(s[0].qp), 0);
	assert_int_equal(qp_engine(s[1].qp), 1);
	memset(s[0].buf, 0x5a, 256);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 256,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 1), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(s[1].buf, s[0].buf, 256);
	assert_int_equal(prdma_roce_stats_get(s[1].dev, &x), 0);
	assert_true(x.rx_handoff >= 1);
	assert_int_equal(prdma_qp_destroy(other), 0);
	assert_int_equal(prdma_cq_destroy(ca), 0);
	assert_int_equal(prdma_cq_destroy(cb), 0);
	t_pair_close(s);
	for (i = 0; i < 2; i++) {
		rte_eth_dev_stop((uint16_t)port[i]);
		rte_eth_dev_close((uint16_t)port[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_engines),
		cmocka_unit_test(test_link_mismatch),
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_binding_refused),
		cmocka_unit_test(test_handoff),
		cmocka_unit_test(test_handoff_lossy),
		cmocka_unit_test(test_unpolled_engine),
		cmocka_unit_test(test_two_threads),
		cmocka_unit_test(test_engine_cpus),
		cmocka_unit_test(test_port_two_queues),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
