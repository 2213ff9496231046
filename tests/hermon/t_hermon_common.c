/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The Hermon tests' shared helpers (t_hermon_common.h). Each test program
 * links its own copy; the fixtures assert with cmocka, so they run inside
 * a test or a group setup.
 */

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_io.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

#include "prdma.h"
#include "t_eal.h"
#include "hermon_arp.h"
#include "hermon_model.h"
#include "hermon_prm_ext.h"
#include "t_hermon_common.h"

#define T_BUF 8192u
#define T_QKEY 0x11111111u

static void
count_mz(const struct rte_memzone *mz, void *arg)
{
	(void)mz;
	(*(unsigned int *)arg)++;
}

void
t_res_snapshot(struct t_res *r)
{
	struct rte_malloc_socket_stats st;
	struct dirent *e;
	DIR *d;

	r->memzones = 0;
	rte_memzone_walk(count_mz, &r->memzones);
	r->fds = 0;
	d = opendir("/proc/self/fd");
	if (d != NULL) {
		while ((e = readdir(d)) != NULL)
			r->fds += e->d_name[0] != '.';
		closedir(d);
	}
	r->malloc_allocs = 0;
	if (rte_malloc_get_socket_stats(0, &st) == 0)
		r->malloc_allocs = st.alloc_count;
}

uint64_t
t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int
t_end_up(struct t_end *e, const char *args, const char *model)
{
	struct prdma_cq_init_attr ca = { .cqe = 64 };

	memset(e, 0, sizeof(*e));
	if (t_eal_init() != 0)
		return -1;
	e->id = prdma_dev_probe(args);
	if (e->id < 0)
		return -1;
	e->dev = prdma_dev_open((uint16_t)e->id);
	if (e->dev == NULL)
		return -1;
	e->hd = e->dev->priv;
	if (model != NULL) {
		e->m = hermon_model_get(model);
		if (e->m == NULL)
			return -1;
	}
	e->pd = prdma_pd_alloc(e->dev);
	e->cq = prdma_cq_create(e->dev, &ca);
	e->buf = rte_zmalloc("t_hermon_end", T_BUF, 64);
	if (e->pd == NULL || e->cq == NULL || e->buf == NULL)
		return -1;
	e->mr = prdma_mr_reg(e->pd, e->buf, T_BUF, PRDMA_ACCESS_LOCAL_WRITE);
	return e->mr != NULL ? 0 : -1;
}

void
t_end_down(struct t_end *e)
{
	if (e->qp != NULL)
		assert_int_equal(prdma_qp_destroy(e->qp), 0);
	assert_int_equal(prdma_mr_dereg(e->mr), 0);
	rte_free(e->buf);
	assert_int_equal(prdma_cq_destroy(e->cq), 0);
	assert_int_equal(prdma_pd_free(e->pd), 0);
	prdma_dev_close(e->dev);
	assert_int_equal(prdma_dev_remove((uint16_t)e->id), 0);
	hermon_model_put(e->m);
	memset(e, 0, sizeof(*e));
}

int
t_ends_up(struct t_end *a, const char *a_args, struct t_end *b, const char *b_args,
	  const char *link, bool v6)
{
	char ma[32], mb[32];

	snprintf(ma, sizeof(ma), "%s.0", link);
	snprintf(mb, sizeof(mb), "%s.1", link);
	if (t_end_up(a, a_args, ma) != 0 || t_end_up(b, b_args, mb) != 0)
		return -1;
	a->v6 = v6;
	b->v6 = v6;
	return 0;
}

void
t_ends_down(struct t_end *a, struct t_end *b)
{
	t_end_down(b);
	t_end_down(a);
}

int
t_poll_one(struct t_end *e, struct prdma_wc *wc, unsigned int ms)
{
	uint64_t t0 = t_now_ms();
	int n;

	do {
		n = prdma_cq_poll(e->cq, 1, wc);
		if (n != 0)
			return n;
	} while (t_now_ms() - t0 < ms);
	return 0;
}

void
t_post_recv(struct t_end *e, struct prdma_qp *qp, uint64_t wr_id)
{
	const struct prdma_recv_wr *bad;
	struct prdma_sge sge = { .addr = (uintptr_t)(e->buf + T_RX), .length = 1024,
				 .lkey = e->mr->lkey };
	struct prdma_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };

	memset(e->buf + T_RX, 0xee, 1024);
	assert_int_equal(prdma_post_recv(qp, &wr, &bad), 0);
}

int
t_post_send(struct t_end *e, struct prdma_qp *qp, struct prdma_ah *ah, uint32_t dqpn,
	    uint32_t qkey, uint32_t len)
{
	const struct prdma_send_wr *bad;
	struct prdma_sge sge = { .addr = (uintptr_t)e->buf, .length = len,
				 .lkey = e->mr->lkey };
	struct prdma_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = T_SEND_ID;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = dqpn;
	wr.wr.ud.remote_qkey = qkey;
	return prdma_post_send(qp, &wr, &bad);
}

void
t_v6_ip(uint8_t *g, uint8_t last)
{
	memset(g, 0, 16);
	g[0] = 0x20;
	g[1] = 0x01;
	g[2] = 0x0d;
	g[3] = 0xb8;
	g[15] = last;
}

/* Peer @last's GID and the source GID index that reaches it. */
static uint8_t
peer_gid(const struct t_end *e, union prdma_gid *g, uint8_t last)
{
	if (e->v6) {
		t_v6_ip(g->raw, last);
		return 2;                /* ip6= */
	}
	memset(g, 0, sizeof(*g));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	g->raw[12] = 192;
	g->raw[14] = 2;
	g->raw[15] = last;
	return 1;
}

struct prdma_ah *
t_ah_to(struct t_end *e, uint8_t last, uint32_t flags)
{
	struct prdma_ah_attr aa;

	memset(&aa, 0, sizeof(aa));
	aa.sgid_index = peer_gid(e, &aa.dgid, last);
	aa.port_num = 1;
	aa.flags = flags;
	return prdma_ah_create(e->pd, &aa);
}

struct prdma_qp *
t_qp_new(struct t_end *e, enum prdma_qp_type t)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp_attr a;
	struct prdma_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = t;
	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.sq_sig_all = 1;
	qp = prdma_qp_create(e->pd, &ia);
	assert_non_null(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qkey = T_QKEY;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | (t == PRDMA_QPT_UD ? PRDMA_QP_QKEY :
							  PRDMA_QP_ACCESS_FLAGS)), 0);
	return qp;
}

int
t_rc_rtr(struct t_end *e, struct prdma_qp *qp, uint8_t last, uint32_t dqpn, uint32_t flags)
{
	struct prdma_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = PRDMA_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.sgid_index = peer_gid(e, &a.ah_attr.dgid, last);
	a.ah_attr.port_num = 1;
	a.ah_attr.flags = flags;
	return prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU |
			       PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
			       PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER);
}

void
t_rc_rts(struct prdma_qp *qp)
{
	struct prdma_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
					 PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT |
					 PRDMA_QP_RNR_RETRY | PRDMA_QP_MAX_QP_RD_ATOMIC), 0);
}

void
t_cache_flush(struct t_end *e)
{
	unsigned int i;

	rte_spinlock_lock(&e->hd->neigh.lock);
	for (i = 0; i < HERMON_NEIGH_MAX; i++)
		if (!e->hd->neigh_ent[i].is_static)
			e->hd->neigh_ent[i].valid = 0;
	memset(e->hd->neigh_req, 0, sizeof(e->hd->neigh_req));
	rte_spinlock_unlock(&e->hd->neigh.lock);
}

/* The PMD does not track the state of a QP made by its own ops: the
 * library's modify would, so the test does it as hermon_arp.c does. */
static void
raw_to(struct hermon_qp *q, enum prdma_qp_state s, uint32_t mask)
{
	struct prdma_qp_attr at;

	memset(&at, 0, sizeof(at));
	at.port_num = 1;
	at.qp_state = s;
	assert_int_equal(hermon_qp_modify(&q->pub, &at, PRDMA_QP_STATE | mask), 0);
	q->pub.state = s;
}

struct hermon_qp *
t_raw_qp(struct t_end *e)
{
	struct prdma_qp_init_attr qa;
	struct hermon_qp *q = rte_zmalloc("t_raw", sizeof(*q), 64);

	assert_non_null(q);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_RC;
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.sq_sig_all = 1;
	q->pub.dev = e->dev;
	q->pub.pd = e->pd;
	q->pub.send_cq = e->cq;
	q->pub.recv_cq = e->cq;
	q->pub.qp_type = PRDMA_QPT_RC;
	q->raw = true;
	assert_int_equal(hermon_qp_create(&q->pub, &qa), 0);
	raw_to(q, PRDMA_QPS_INIT, PRDMA_QP_PORT | PRDMA_QP_PKEY_INDEX);
	raw_to(q, PRDMA_QPS_RTR, 0);
	raw_to(q, PRDMA_QPS_RTS, PRDMA_QP_SQ_PSN);
	return q;
}

void
t_raw_send(struct t_end *e, struct hermon_qp *q, uint32_t len)
{
	const struct prdma_send_wr *bad;
	struct prdma_sge sge = { .addr = (uintptr_t)e->buf, .length = len,
				 .lkey = e->mr->lkey };
	struct prdma_send_wr wr;
	struct prdma_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	assert_int_equal(hermon_post_send(&q->pub, &wr, &bad), 0);
	assert_int_equal(t_poll_one(e, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
}

void
t_wait_received(struct t_end *e, uint64_t before)
{
	struct hermon_arp_stats st;
	uint64_t t0 = t_now_ms();

	do {
		assert_int_equal(hermon_arp_get_stats(e->hd, 1, &st), 0);
		if (st.received > before)
			return;
		usleep(1000);
	} while (t_now_ms() - t0 < 2000);
	fail_msg("the agent received nothing");
}

void
t_gsi_make(struct t_end *e)
{
	struct prdma_qp_init_attr qa;
	struct prdma_qp_attr a;

	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_UD;
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	qa.cap.max_send_wr = 8;
	qa.cap.max_recv_wr = 8;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.create_flags = PRDMA_QP_CREATE_GSI;
	e->qp = prdma_qp_create(e->pd, &qa);
	assert_non_null(e->qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qkey = PRDMA_GSI_QKEY;
	assert_int_equal(prdma_qp_modify(e->qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_QKEY), 0);
	a.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(prdma_qp_modify(e->qp, &a, PRDMA_QP_STATE), 0);
	a.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(prdma_qp_modify(e->qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
}

void
t_gsi_end_up(struct t_end *e, const char *args)
{
	assert_int_equal(t_end_up(e, args, NULL), 0);
	t_gsi_make(e);
	assert_int_equal(prdma_gid_query(e->dev, 1, 1, &e->gid), 0);
}

struct prdma_ah *
t_gsi_ah(struct t_end *from, const struct t_end *to, uint8_t sidx, uint8_t didx)
{
	struct prdma_ah_attr at;

	memset(&at, 0, sizeof(at));
	assert_int_equal(prdma_gid_query(to->dev, 1, didx, &at.dgid), 0);
	at.sgid_index = sidx;
	at.hop_limit = 64;
	at.port_num = 1;
	return prdma_ah_create(from->pd, &at);
}

int
t_gsi_send(struct t_end *e, struct prdma_ah *ah, uint32_t dqpn)
{
	return t_post_send(e, e->qp, ah, dqpn, PRDMA_GSI_QKEY, T_MAD);
}

void
t_wqe_post(struct t_end *e, const uint8_t *wqe, uint32_t n)
{
	struct hermon_qp *qp = (struct hermon_qp *)e->qp;
	uint8_t *w = qp->sq + ((qp->sq_head & qp->sq_mask) << qp->sq_shift);
	uint32_t own = (qp->sq_head >> qp->sq_log) & 1 ? RTE_BIT32(31) : 0;

	/* all but the first dword, then the first: the owner bit last */
	memcpy(w + 4, wqe + 4, n - 4);
	qp->sq_wrid[qp->sq_head & qp->sq_mask] = 99;
	rte_wmb();
	*(rte_be32_t *)w = rte_cpu_to_be_32(own | HERMON_WQE_SEND);
	qp->sq_head++;
	rte_wmb();
	rte_write32_relaxed(qp->db_val, qp->uar_db);
}
