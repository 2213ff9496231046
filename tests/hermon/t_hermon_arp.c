/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * F13, the network half: two cabled models with ip= and no neigh= find
 * each other's MAC by ARP (hermon_arp.c: a raw Ethernet QP per port, A0
 * steering, the "hermon-arp" thread; the model carries the frames,
 * hermon_model_raw.c). RC paths and UD AHs resolve; NOWAIT is EAGAIN,
 * then success; nobody answering is EHOSTUNREACH within the bound; a
 * forged reply is not learnt; a frame no steering entry takes is a
 * counted drop; a RoCE datagram does not reach a raw QP; the device's own
 * address needs no neigh=.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "prdma.h"
#include "prdma_provider.h"
#include "t_eal.h"
#include "hermon_arp.h"
#include "hermon_dev.h"
#include "hermon_model.h"
#include "hermon_obj.h"
#include "hermon_prm_ext.h"

#define A_ARGS "hermon:model,link=arp,side=0,ip=192.0.2.3,mac=02:c9:00:00:00:03"
#define B_ARGS "hermon:model,link=arp,side=1,ip=192.0.2.2,mac=02:c9:00:00:00:02"

static const uint8_t mac_a[6] = { 0x02, 0xc9, 0, 0, 0, 0x03 };
static const uint8_t mac_b[6] = { 0x02, 0xc9, 0, 0, 0, 0x02 };

struct end {
	int id;
	struct prdma_dev *dev;
	struct hermon_dev *hd;
	struct hermon_model *m;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_mr *mr;
	uint8_t *buf;
};

static struct end ea, eb;

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
v4_gid(union prdma_gid *g, uint8_t last)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	g->raw[12] = 192;
	g->raw[14] = 2;
	g->raw[15] = last;
}

/* Forget what the wire taught @e's cache (static entries stay). */
static void
cache_flush(struct end *e)
{
	unsigned int i;

	rte_spinlock_lock(&e->hd->neigh.lock);
	for (i = 0; i < HERMON_NEIGH_MAX; i++)
		if (!e->hd->neigh_ent[i].is_static)
			e->hd->neigh_ent[i].valid = 0;
	memset(e->hd->neigh_req, 0, sizeof(e->hd->neigh_req));
	rte_spinlock_unlock(&e->hd->neigh.lock);
}

static struct prdma_ah *
ah_to(struct end *e, uint8_t last, uint32_t flags)
{
	struct prdma_ah_attr aa;

	memset(&aa, 0, sizeof(aa));
	v4_gid(&aa.dgid, last);
	aa.port_num = 1;
	aa.sgid_index = 1;
	aa.flags = flags;
	return prdma_ah_create(e->pd, &aa);
}

static struct prdma_qp *
qp_new(struct end *e, enum prdma_qp_type t)
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
	a.qkey = 0x11111111;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | (t == PRDMA_QPT_UD ? PRDMA_QP_QKEY :
							  PRDMA_QP_ACCESS_FLAGS)), 0);
	return qp;
}

static int
rc_rtr(struct prdma_qp *qp, uint8_t last, uint32_t dqpn, uint32_t flags)
{
	struct prdma_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = PRDMA_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	v4_gid(&a.ah_attr.dgid, last);
	a.ah_attr.port_num = 1;
	a.ah_attr.sgid_index = 1;
	a.ah_attr.flags = flags;
	return prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU |
			       PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
			       PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER);
}

static void
rc_rts(struct prdma_qp *qp)
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

static int
poll_one(struct end *e, struct prdma_wc *wc, unsigned int ms)
{
	uint64_t t0 = now_ms();

	do {
		if (prdma_cq_poll(e->cq, 1, wc) == 1)
			return 1;
	} while (now_ms() - t0 < ms);
	return 0;
}

static void
post_recv(struct end *e, struct prdma_qp *qp, uint32_t off)
{
	const struct prdma_recv_wr *bad;
	struct prdma_sge sge = { .addr = (uintptr_t)(e->buf + off), .length = 1024,
				 .lkey = e->mr->lkey };
	struct prdma_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };

	assert_int_equal(prdma_post_recv(qp, &wr, &bad), 0);
}

static int
post_send(struct end *e, struct prdma_qp *qp, struct prdma_ah *ah, uint32_t dqpn,
	  uint32_t qkey, uint32_t len)
{
	const struct prdma_send_wr *bad;
	struct prdma_sge sge = { .addr = (uintptr_t)e->buf, .length = len,
				 .lkey = e->mr->lkey };
	struct prdma_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 9;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = dqpn;
	wr.wr.ud.remote_qkey = qkey;
	return prdma_post_send(qp, &wr, &bad);
}

/* An RC connection A <-> B with no neigh=: both paths by ARP, a SEND lands. */
static void
test_rc_connection(void **state)
{
	struct prdma_qp *qa = qp_new(&ea, PRDMA_QPT_RC), *qb = qp_new(&eb, PRDMA_QPT_RC);
	struct prdma_neigh_stats s;
	struct prdma_wc wc;

	(void)state;
	cache_flush(&ea);
	cache_flush(&eb);
	assert_int_equal(rc_rtr(qa, 2, qb->qp_num, 0), 0);
	assert_int_equal(rc_rtr(qb, 3, qa->qp_num, 0), 0);
	rc_rts(qa);
	rc_rts(qb);
	post_recv(&eb, qb, 4096);
	memcpy(ea.buf, "over arp", 8);
	assert_int_equal(post_send(&ea, qa, NULL, 0, 0, 8), 0);
	assert_int_equal(poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(eb.buf + 4096, "over arp", 8);
	prdma_neigh_stats_get(&ea.hd->neigh, &s);
	assert_true(s.solicits >= 1);
	assert_true(s.learned >= 1);
	assert_int_equal(prdma_qp_destroy(qa), 0);
	assert_int_equal(prdma_qp_destroy(qb), 0);
}

/* A UD AH (blocking) takes the peer's MAC from ARP; a datagram lands. */
static void
test_ud_ah(void **state)
{
	struct prdma_qp *qa = qp_new(&ea, PRDMA_QPT_UD), *qb = qp_new(&eb, PRDMA_QPT_UD);
	struct prdma_qp_attr a;
	struct prdma_ah *ah;
	struct prdma_wc wc;

	(void)state;
	cache_flush(&eb);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(prdma_qp_modify(qa, &a, PRDMA_QP_STATE), 0);
	assert_int_equal(prdma_qp_modify(qb, &a, PRDMA_QP_STATE), 0);
	a.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(prdma_qp_modify(qa, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	assert_int_equal(prdma_qp_modify(qb, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	ah = ah_to(&eb, 3, 0);
	assert_non_null(ah);
	assert_memory_equal(((struct hermon_ah *)ah)->l2 + 2, mac_a, 6);
	post_recv(&ea, qa, 4096);
	memcpy(eb.buf, "ud by arp", 9);
	assert_int_equal(post_send(&eb, qb, ah, qa->qp_num, 0x11111111, 9), 0);
	assert_int_equal(poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(ea.buf + 4096 + 40, "ud by arp", 9);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	assert_int_equal(prdma_qp_destroy(qa), 0);
	assert_int_equal(prdma_qp_destroy(qb), 0);
}

/* NOWAIT: EAGAIN while the answer is out, then the AH. */
static void
test_nowait(void **state)
{
	uint64_t t0 = now_ms();
	struct prdma_ah *ah;
	unsigned int eagain = 0;

	(void)state;
	cache_flush(&ea);
	for (;;) {
		ah = ah_to(&ea, 2, PRDMA_AH_F_NOWAIT);
		if (ah != NULL)
			break;
		assert_int_equal(rte_errno, EAGAIN);
		eagain++;
		assert_true(now_ms() - t0 < 2000);
		usleep(1000);
	}
	assert_true(eagain >= 1);
	assert_memory_equal(((struct hermon_ah *)ah)->l2 + 2, mac_b, 6);
	assert_int_equal(prdma_ah_destroy(ah), 0);
}

/* Nobody at 192.0.2.99: EHOSTUNREACH after the 1 s bound, not before. */
static void
test_unanswered(void **state)
{
	struct prdma_qp *qa = qp_new(&ea, PRDMA_QPT_RC);
	uint64_t t0 = now_ms(), dt;

	(void)state;
	assert_null(ah_to(&ea, 99, PRDMA_AH_F_NOWAIT));
	assert_int_equal(rte_errno, EAGAIN);
	assert_null(ah_to(&ea, 99, 0));
	assert_int_equal(rte_errno, EHOSTUNREACH);
	dt = now_ms() - t0;
	assert_true(dt >= 900 && dt < 5000);
	assert_int_equal(rc_rtr(qa, 99, 1, 0), -EHOSTUNREACH);
	assert_int_equal(prdma_qp_destroy(qa), 0);
}

/* A raw QP of the test's own on @e (the PMD's internal object). */
static struct hermon_qp *
raw_qp(struct end *e)
{
	struct prdma_qp_init_attr qa;
	struct hermon_qp *q = rte_zmalloc("t_raw", sizeof(*q), 64);
	struct prdma_qp_attr at;

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
	memset(&at, 0, sizeof(at));
	at.port_num = 1;
	at.qp_state = PRDMA_QPS_INIT;
	assert_int_equal(hermon_qp_modify(&q->pub, &at, PRDMA_QP_STATE | PRDMA_QP_PORT |
					  PRDMA_QP_PKEY_INDEX), 0);
	q->pub.state = PRDMA_QPS_INIT;
	at.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(hermon_qp_modify(&q->pub, &at, PRDMA_QP_STATE), 0);
	q->pub.state = PRDMA_QPS_RTR;
	at.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(hermon_qp_modify(&q->pub, &at, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	q->pub.state = PRDMA_QPS_RTS;
	return q;
}

/* Send @len bytes of @e->buf as a frame on @q; wait for its completion. */
static void
raw_send(struct end *e, struct hermon_qp *q, uint32_t len)
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
	assert_int_equal(poll_one(e, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
}

static void
arp_frame(uint8_t *p, uint16_t op, const uint8_t *dmac, const uint8_t *sha,
	  uint8_t spa_last, uint8_t tpa_last)
{
	memset(p, 0, 60);
	memcpy(p, dmac, 6);
	memcpy(p + 6, sha, 6);
	p[12] = 0x08;
	p[13] = 0x06;
	p[15] = 1;
	p[16] = 0x08;
	p[18] = 6;
	p[19] = 4;
	p[21] = (uint8_t)op;
	memcpy(p + 22, sha, 6);
	p[28] = 192;
	p[30] = 2;
	p[31] = spa_last;
	memcpy(p + 32, dmac, 6);
	p[38] = 192;
	p[40] = 2;
	p[41] = tpa_last;
}

static void
wait_received(struct end *e, uint64_t before)
{
	struct hermon_arp_stats st;
	uint64_t t0 = now_ms();

	do {
		assert_int_equal(hermon_arp_get_stats(e->hd, 1, &st), 0);
		if (st.received > before)
			return;
		usleep(1000);
	} while (now_ms() - t0 < 2000);
	fail_msg("the ARP agent received nothing");
}

/* Forged replies (unsolicited, or for an address being asked) do not poison. */
static void
test_forged_reply(void **state)
{
	static const uint8_t evil[6] = { 0x02, 0x66, 0x66, 0x66, 0x66, 0x66 };
	struct hermon_qp *q = raw_qp(&eb);
	struct prdma_neigh_stats s0, s1;
	struct hermon_arp_stats st;
	struct rte_ether_addr mac;
	uint8_t ip[4] = { 192, 0, 2, 77 };

	(void)state;
	prdma_neigh_stats_get(&ea.hd->neigh, &s0);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st), 0);
	/* "192.0.2.77 is at 02:66:..": nobody asked */
	arp_frame(eb.buf, 2, mac_a, evil, 77, 3);
	raw_send(&eb, q, 60);
	wait_received(&ea, st.received);
	prdma_neigh_stats_get(&ea.hd->neigh, &s1);
	assert_int_equal(s1.ignored - s0.ignored, 1);
	assert_int_equal(s1.learned, s0.learned);
	assert_int_equal(prdma_neigh_lookup(&ea.hd->neigh, ip, 0, &mac), -ENOENT);
	assert_null(ah_to(&ea, 77, PRDMA_AH_F_NOWAIT));
	assert_int_equal(rte_errno, EAGAIN);
	assert_int_equal(hermon_qp_destroy(&q->pub), 0);
	rte_free(q);
}

/* With no steering entry at A's port the frame is a counted drop. */
static void
test_unsteered_drop(void **state)
{
	struct hermon_qp *q = raw_qp(&eb);
	struct hermon_model_stats m0, m1;
	struct hermon_arp_stats st0, st1;
	uint8_t mbox[0x20] = { 0 };
	uint32_t qpn = hermon_arp_qpn(ea.hd, 1);
	uint64_t t0;

	(void)state;
	assert_true(qpn != 0);
	/* A's port without steering (RQP_CALC base QPN 0) */
	assert_int_equal(hermon_cmd_set_port_eth(&ea.hd->cmd, 1, HERMON_SET_PORT_RQP_CALC,
						 mbox, sizeof(mbox)), 0);
	assert_int_equal(hermon_model_get_stats(ea.m, &m0), 0);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st0), 0);
	arp_frame(eb.buf, 1, mac_a, mac_b, 2, 3);
	raw_send(&eb, q, 60);
	t0 = now_ms();
	do {
		assert_int_equal(hermon_model_get_stats(ea.m, &m1), 0);
	} while (m1.raw_unsteered == m0.raw_unsteered && now_ms() - t0 < 2000);
	assert_int_equal(m1.raw_unsteered - m0.raw_unsteered, 1);
	assert_int_equal(m1.raw_delivered, m0.raw_delivered);
	usleep(20000);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st1), 0);
	assert_int_equal(st1.received, st0.received);
	/* steering back: the same frame reaches A's agent */
	*(rte_be32_t *)mbox = rte_cpu_to_be_32(qpn);
	*(rte_be32_t *)(mbox + 0x14) = rte_cpu_to_be_32(qpn);
	*(rte_be32_t *)(mbox + 0x18) = rte_cpu_to_be_32(2u << 30 | qpn);
	assert_int_equal(hermon_cmd_set_port_eth(&ea.hd->cmd, 1, HERMON_SET_PORT_RQP_CALC,
						 mbox, sizeof(mbox)), 0);
	raw_send(&eb, q, 60);
	wait_received(&ea, st1.received);
	assert_int_equal(hermon_qp_destroy(&q->pub), 0);
	rte_free(q);
}

/* A RoCE datagram aimed at the raw QP's QPN goes nowhere. */
static void
test_datagram_not_raw(void **state)
{
	struct prdma_qp *qb = qp_new(&eb, PRDMA_QPT_UD);
	struct hermon_model_stats m0, m1;
	struct hermon_arp_stats st0, st1;
	struct prdma_qp_attr a;
	struct prdma_ah *ah;
	struct prdma_wc wc;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(prdma_qp_modify(qb, &a, PRDMA_QP_STATE), 0);
	a.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(prdma_qp_modify(qb, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	ah = ah_to(&eb, 3, 0);
	assert_non_null(ah);
	assert_int_equal(hermon_model_get_stats(ea.m, &m0), 0);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st0), 0);
	arp_frame(eb.buf, 1, mac_a, mac_b, 2, 3);
	/* the raw QP's Q_Key is 0: only its service type keeps the datagram out */
	assert_int_equal(post_send(&eb, qb, ah, hermon_arp_qpn(ea.hd, 1), 0, 60), 0);
	assert_int_equal(poll_one(&eb, &wc, 2000), 1);
	usleep(20000);
	assert_int_equal(hermon_model_get_stats(ea.m, &m1), 0);
	assert_int_equal(m1.raw_delivered, m0.raw_delivered);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st1), 0);
	assert_int_equal(st1.received, st0.received);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	assert_int_equal(prdma_qp_destroy(qb), 0);
}

/* Our own address is our MAC without asking (no neigh= for loopback). */
static void
test_self_address(void **state)
{
	struct prdma_neigh_stats s0, s1;
	struct prdma_ah *ah;

	(void)state;
	prdma_neigh_stats_get(&ea.hd->neigh, &s0);
	ah = ah_to(&ea, 3, PRDMA_AH_F_NOWAIT);
	assert_non_null(ah);
	assert_memory_equal(((struct hermon_ah *)ah)->l2 + 2, mac_a, 6);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	prdma_neigh_stats_get(&ea.hd->neigh, &s1);
	assert_int_equal(s1.solicits, s0.solicits);
}

static int
end_up(struct end *e, const char *args, const char *model)
{
	struct prdma_cq_init_attr ca = { .cqe = 64 };

	memset(e, 0, sizeof(*e));
	e->id = prdma_dev_probe(args);
	if (e->id < 0)
		return -1;
	e->dev = prdma_dev_open((uint16_t)e->id);
	if (e->dev == NULL)
		return -1;
	e->hd = e->dev->priv;
	e->m = hermon_model_get(model);
	e->pd = prdma_pd_alloc(e->dev);
	e->cq = prdma_cq_create(e->dev, &ca);
	e->buf = rte_zmalloc("t_arp", 8192, 64);
	if (e->m == NULL || e->pd == NULL || e->cq == NULL || e->buf == NULL)
		return -1;
	e->mr = prdma_mr_reg(e->pd, e->buf, 8192, PRDMA_ACCESS_LOCAL_WRITE);
	return e->mr != NULL ? 0 : -1;
}

static void
end_down(struct end *e)
{
	prdma_mr_dereg(e->mr);
	rte_free(e->buf);
	prdma_cq_destroy(e->cq);
	prdma_pd_free(e->pd);
	prdma_dev_close(e->dev);
	prdma_dev_remove((uint16_t)e->id);
	hermon_model_put(e->m);
}

static int
setup(void **state)
{
	(void)state;
	if (t_eal_init() != 0)
		return -1;
	if (end_up(&ea, A_ARGS, "arp.0") != 0 || end_up(&eb, B_ARGS, "arp.1") != 0)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	end_down(&eb);
	end_down(&ea);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_connection),
		cmocka_unit_test(test_ud_ah),
		cmocka_unit_test(test_nowait),
		cmocka_unit_test(test_unanswered),
		cmocka_unit_test(test_forged_reply),
		cmocka_unit_test(test_unsteered_drop),
		cmocka_unit_test(test_datagram_not_raw),
		cmocka_unit_test(test_self_address),
	};

	return cmocka_run_group_tests_name("hermon-arp", tests, setup, teardown);
}
