/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Stateful fuzzing of the soft provider: each input is a PROGRAM run
 * against two ring-linked devices (side 0 and side 1), each with an RC, a
 * UC and a UD QP connected to the other side's, two registered areas
 * framed by canaries (X: every access, Y: remote read only) and a type 1
 * and a type 2 memory window over X.
 *
 * Where fuzz_roce_rx.c feeds one frame to idle QPs, a program here posts
 * work (so the requester has READs, atomics and SENDs outstanding), feeds
 * frames built by the provider's own encoder (roce_frame_start /
 * roce_hdr_encode / roce_frame_send: correct lengths, checksums and ICRC)
 * with PSNs chosen relative to the receiving QP's state (so they land in
 * sequence, duplicate or ahead, as the program says), deregisters MRs,
 * binds, invalidates and frees windows, breaks and destroys QPs, and steps
 * each engine on its own so that the real peer's answers can be let
 * through, dropped or raced.
 *
 * Input: byte 0 picks the initial PSNs (bit 0: near the 2^24 wrap), the
 * ACK timeout (bit 1: 8 us, real retransmissions; else 67 ms, so only
 * the TIMEOUT op fires timers and a program replays the same way) and
 * the pair of devices (bits 2-3: IPv4 RoCEv2, IPv6 RoCEv2, RoCEv1 with
 * ACK coalescing). Then a
 * sequence of operations, one byte each (value % OP_NB) followed by the
 * argument bytes it reads; a program that runs out reads zeros.
 *
 * Oracles, checked when the program has run and both sides have settled
 * (what they catch stays in memory until then): the canaries around all four areas are intact, and an area
 * whose MR was deregistered keeps the pattern written at deregistration
 * until the program ends (no packet may write through a dead key: the
 * writes-after-deregistration class of bug). ASan/UBSan watch the rest;
 * in the sanitizer builds the provider's rte_malloc objects have
 * redzones too (lib/rdma/prdma_asan_alloc.c).
 *
 * Every input starts from freshly created and connected QPs and windows,
 * and ends by draining both links, so that inputs do not depend on each
 * other and a saved crash replays on its own.
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "fz_common.h"
#include "prdma_roce.h"
#include "roce.h"

#define FZ_X_LEN    (64u * 1024)
#define FZ_Y_LEN    (8u * 1024)
#define FZ_QKEY     0x11111111u
#define FZ_DEAD     0xd1
#define FZ_NB_DEAD  4
#define FZ_MAX_OPS  64

enum { FZ_RC, FZ_UC, FZ_UD, FZ_NB_QP };

struct fz_side {
	struct prdma_dev *dev;
	struct roce_dev *rdev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct fz_area x, y;
	struct prdma_mr *mx, *my;
	uint8_t x_dead;                   /* mx deregistered in this input */
	struct prdma_mw *mw1, *mw2;
	struct prdma_ah *ah;              /* UD: to the other side */
	struct prdma_qp *qp[FZ_NB_QP];
	uint32_t qpn[FZ_NB_QP];           /* last QPN, kept after a destroy */
	uint32_t dead[FZ_NB_DEAD];        /* rkeys of deregistered MRs, freed MWs */
	uint32_t nb_dead;
	union prdma_gid gid;
};

/* Three linked pairs: IPv4 RoCEv2, IPv6 RoCEv2, RoCEv1 with ACK
 * coalescing; an input runs on the one its control byte picks. */
#define FZ_NB_PAIR 3
static struct fz_side pairs[FZ_NB_PAIR][2];
static struct fz_side *sd = pairs[0];
static int ready;

/* The program being run. */
struct fz_prog {
	const uint8_t *p;
	size_t left;
};

static uint8_t
rd8(struct fz_prog *g)
{
	if (g->left == 0)
		return 0;
	g->left--;
	return *g->p++;
}

static uint16_t
rd16(struct fz_prog *g)
{
	uint16_t v = rd8(g);

	return (uint16_t)(v << 8 | rd8(g));
}

/* ------------------------------------------------------------------ */
/* Objects                                                             */
/* ------------------------------------------------------------------ */

static void
dead_add(struct fz_side *s, uint32_t key)
{
	s->dead[s->nb_dead++ % FZ_NB_DEAD] = key;
}

static struct prdma_qp *
qp_make(struct fz_side *s, enum prdma_qp_type type)
{
	struct prdma_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = type;
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 2;
	ia.cap.max_inline_data = 64;
	return prdma_qp_create(s->pd, &ia);
}

static void
qp_up(struct prdma_qp *qp, const struct fz_side *peer, uint32_t dqpn,
      uint32_t rq_psn, uint32_t sq_psn, uint8_t timeout)
{
	struct prdma_qp_attr qa;
	uint32_t mask;
	int ud = qp->qp_type == PRDMA_QPT_UD, rc = qp->qp_type == PRDMA_QPT_RC;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_INIT;
	qa.port_num = 1;
	qa.qkey = FZ_QKEY;
	qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE |
		(rc ? PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_ATOMIC : 0);
	mask = PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT |
		(ud ? PRDMA_QP_QKEY : PRDMA_QP_ACCESS_FLAGS);
	FZ_CHECK(prdma_qp_modify(qp, &qa, mask) == 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTR;
	mask = PRDMA_QP_STATE;
	if (!ud) {
		qa.path_mtu = PRDMA_MTU_1024;
		qa.dest_qp_num = dqpn;
		qa.rq_psn = rq_psn;
		qa.max_dest_rd_atomic = 2;
		qa.min_rnr_timer = 1;
		qa.ah_attr.dgid = peer->gid;
		qa.ah_attr.port_num = 1;
		mask |= PRDMA_QP_AV | PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
			PRDMA_QP_RQ_PSN;
		if (rc)
			mask |= PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER;
	}
	FZ_CHECK(prdma_qp_modify(qp, &qa, mask) == 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTS;
	qa.sq_psn = ud ? 0 : sq_psn;
	qa.timeout = timeout;
	qa.retry_cnt = 2;
	qa.rnr_retry = 2;
	qa.max_rd_atomic = 2;
	mask = PRDMA_QP_STATE | PRDMA_QP_SQ_PSN;
	if (rc)
		mask |= PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
			PRDMA_QP_MAX_QP_RD_ATOMIC;
	FZ_CHECK(prdma_qp_modify(qp, &qa, mask) == 0);
}

static int
recv_post(struct fz_side *s, struct prdma_qp *qp, uint8_t where, uint16_t off,
	  uint16_t len)
{
	const struct prdma_recv_wr *bad;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;

	switch (where & 3) {
	case 0:
	case 1:
		sge.addr = (uintptr_t)s->x.data + off % (FZ_X_LEN / 2);
		sge.lkey = s->mx->lkey;
		break;
	case 2:
		sge.addr = (uintptr_t)s->y.data + off % FZ_Y_LEN;
		sge.lkey = s->my->lkey;   /* no local write: a protection error */
		break;
	default:
		sge.addr = (uintptr_t)s->x.data + off;
		sge.lkey = s->mx->lkey ^ (where & 0xf0);   /* bad or stale key */
		break;
	}
	sge.length = len;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = off;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return prdma_post_recv(qp, &wr, &bad);
}

static void
pair_build(unsigned int t, uint32_t psn0, uint32_t psn1, uint8_t timeout)
{
	static const enum prdma_qp_type types[FZ_NB_QP] = {
		PRDMA_QPT_RC, PRDMA_QPT_UC, PRDMA_QPT_UD };
	int i;

	for (i = 0; i < 2; i++) {
		sd[i].qp[t] = qp_make(&sd[i], types[t]);
		FZ_CHECK(sd[i].qp[t] != NULL);
		sd[i].qpn[t] = sd[i].qp[t]->qp_num;
	}
	/* side i sends from psn_i, so the other side expects it */
	qp_up(sd[0].qp[t], &sd[1], sd[1].qpn[t], psn1, psn0, timeout);
	qp_up(sd[1].qp[t], &sd[0], sd[0].qpn[t], psn0, psn1, timeout);
	for (i = 0; i < 2; i++) {
		FZ_CHECK(recv_post(&sd[i], sd[i].qp[t], 0, 0, 2048) == 0);
		FZ_CHECK(recv_post(&sd[i], sd[i].qp[t], 0, 4096, 4096) == 0);
	}
}

static void
mr_x_reg(struct fz_side *s)
{
	memset(s->x.data, 0, s->x.len);
	s->mx = prdma_mr_reg(s->pd, s->x.data, FZ_X_LEN, PRDMA_ACCESS_ALL);
	FZ_CHECK(s->mx != NULL);
	s->x_dead = 0;
}

static void
pair_setup(const char *const args[2])
{
	struct prdma_cq_init_attr ca;
	struct prdma_ah_attr aa;
	int i, id;

	for (i = 0; i < 2; i++) {
		id = prdma_dev_probe(args[i]);
		FZ_CHECK(id >= 0);
		sd[i].dev = prdma_dev_open((uint16_t)id);
		FZ_CHECK(sd[i].dev != NULL);
		sd[i].rdev = roce_dev_of(sd[i].dev);
		sd[i].pd = prdma_pd_alloc(sd[i].dev);
		FZ_CHECK(sd[i].pd != NULL);
		memset(&ca, 0, sizeof(ca));
		ca.cqe = 4096;
		sd[i].cq = prdma_cq_create(sd[i].dev, &ca);
		FZ_CHECK(sd[i].cq != NULL);
		fz_area_alloc(&sd[i].x, FZ_X_LEN);
		fz_area_alloc(&sd[i].y, FZ_Y_LEN);
		mr_x_reg(&sd[i]);
		sd[i].my = prdma_mr_reg(sd[i].pd, sd[i].y.data, FZ_Y_LEN,
					PRDMA_ACCESS_REMOTE_READ);
		FZ_CHECK(sd[i].my != NULL);
		FZ_CHECK(prdma_gid_query(sd[i].dev, 1, 0, &sd[i].gid) == 0);
	}
	for (i = 0; i < 2; i++) {
		memset(&aa, 0, sizeof(aa));
		aa.dgid = sd[1 - i].gid;
		aa.port_num = 1;
		sd[i].ah = prdma_ah_create(sd[i].pd, &aa);
		FZ_CHECK(sd[i].ah != NULL);
	}
}

static void
setup(void)
{
	static const char *const args[FZ_NB_PAIR][2] = {
		{ "roce:ring=fzflow,side=0,ip=192.0.2.1",
		  "roce:ring=fzflow,side=1,ip=192.0.2.2" },
		{ "roce:ring=fzflow6,side=0,ip=fd00::1",
		  "roce:ring=fzflow6,side=1,ip=fd00::2" },
		{ "roce:ring=fzflow1,side=0,ip=192.0.2.5,roce_version=1,ack_delay_us=2",
		  "roce:ring=fzflow1,side=1,ip=192.0.2.6,roce_version=1,ack_delay_us=2" },
	};
	unsigned int k;

	fz_eal_init();
	for (k = 0; k < FZ_NB_PAIR; k++) {
		sd = pairs[k];
		pair_setup(args[k]);
	}
	sd = pairs[0];
	ready = 1;
}

/* Frames queued to side @i and not yet received: gone. */
static void
link_drop(int i)
{
	struct rte_mbuf *m[32];
	uint16_t n;

	while ((n = rte_eth_rx_burst(sd[i].rdev->port_id, 0, m, RTE_DIM(m))) != 0)
		rte_pktmbuf_free_bulk(m, n);
}

static void
step(int i)
{
	roce_engine_lock(sd[i].rdev);
	roce_engine_step(sd[i].rdev);
	roce_engine_unlock(sd[i].rdev);
}

static void
cq_drain(int i)
{
	struct prdma_wc wc[32];

	while (prdma_cq_poll(sd[i].cq, RTE_DIM(wc), wc) > 0)
		;
}

static void
check(void)
{
	static uint8_t dead[FZ_X_LEN];
	uint32_t i;

	if (dead[0] != FZ_DEAD)
		memset(dead, FZ_DEAD, sizeof(dead));
	for (i = 0; i < 2; i++) {
		FZ_CHECK(fz_area_canary_ok(&sd[i].x) == 0);
		FZ_CHECK(fz_area_canary_ok(&sd[i].y) == 0);
		/* nothing may write through the keys of a deregistered MR */
		if (sd[i].x_dead && memcmp(sd[i].x.data, dead, FZ_X_LEN) != 0)
			fz_fail("write to a deregistered MR", __FILE__, __LINE__);
	}
}

static void
input_begin(uint8_t ctl)
{
	uint32_t psn0 = 0, psn1 = 0;
	uint8_t timeout = (ctl & 2) ? 1 : 14;
	unsigned int t;
	int i;

	sd = pairs[((ctl >> 2) & 3) % FZ_NB_PAIR];
	if (ctl & 1) {
		psn0 = ROCE_PSN_MASK - 3;
		psn1 = ROCE_PSN_MASK - 1;
	}
	for (t = 0; t < FZ_NB_QP; t++)
		pair_build(t, psn0, psn1, timeout);
	for (i = 0; i < 2; i++) {
		/* the same memory for every input: replays do not depend on order */
		memset(sd[i].x.data, 0, FZ_X_LEN);
		memset(sd[i].y.data, 0, FZ_Y_LEN);
		sd[i].mw1 = prdma_mw_alloc(sd[i].pd, PRDMA_MW_TYPE_1);
		sd[i].mw2 = prdma_mw_alloc(sd[i].pd, PRDMA_MW_TYPE_2);
		FZ_CHECK(sd[i].mw1 != NULL && sd[i].mw2 != NULL);
		sd[i].nb_dead = 0;
		memset(sd[i].dead, 0, sizeof(sd[i].dead));
	}
}

static void
input_end(void)
{
	unsigned int t, k;
	int i;

	for (i = 0; i < 2; i++)
		FZ_CHECK(prdma_roce_fault_clear(sd[i].dev) == 0);
	/* let what is in flight finish, then look at memory */
	for (k = 0; k < 8; k++)
		for (i = 0; i < 2; i++) {
			step(i);
			cq_drain(i);
		}
	check();
	for (i = 0; i < 2; i++) {
		for (t = 0; t < FZ_NB_QP; t++)
			if (sd[i].qp[t] != NULL) {
				FZ_CHECK(prdma_qp_destroy(sd[i].qp[t]) == 0);
				sd[i].qp[t] = NULL;
			}
		if (sd[i].mw1 != NULL)
			FZ_CHECK(prdma_mw_dealloc(sd[i].mw1) == 0);
		if (sd[i].mw2 != NULL)
			FZ_CHECK(prdma_mw_dealloc(sd[i].mw2) == 0);
		sd[i].mw1 = sd[i].mw2 = NULL;
		if (sd[i].x_dead) {
			/* the stand-in op_dereg left, then X anew */
			FZ_CHECK(prdma_mr_dereg(sd[i].mx) == 0);
			mr_x_reg(&sd[i]);
		}
	}
	for (i = 0; i < 2; i++) {
		step(i);
		cq_drain(i);
	}
	link_drop(0);
	link_drop(1);
}

/* ------------------------------------------------------------------ */
/* Operations                                                          */
/* ------------------------------------------------------------------ */

/* A remote key of side @s and the address it starts at. */
static uint32_t
key_pick(const struct fz_side *s, uint8_t sel, uint64_t *base)
{
	*base = (uintptr_t)s->x.data;
	switch (sel & 7) {
	case 0:
		return s->mx->rkey;
	case 1:
		*base = (uintptr_t)s->y.data;
		return s->my->rkey;
	case 2:
		return s->mw1 != NULL ? s->mw1->rkey : 0;
	case 3:
		return s->mw2 != NULL ? s->mw2->rkey : 0;
	case 4:
		return s->dead[(sel >> 3) % FZ_NB_DEAD];
	case 5:   /* the right index, a stale key byte */
		return s->mx->rkey ^ (uint32_t)(1 + (sel >> 3));
	case 6:
		return s->mx->lkey + 0x100u * (sel >> 3);
	default:
		return (uint32_t)sel << 24 | 0x00abcdu;
	}
}

static void
op_post_send(struct fz_prog *g)
{
	static const enum prdma_wr_opcode ops[] = {
		PRDMA_WR_SEND, PRDMA_WR_SEND_WITH_IMM, PRDMA_WR_SEND_WITH_INV,
		PRDMA_WR_RDMA_WRITE, PRDMA_WR_RDMA_WRITE_WITH_IMM, PRDMA_WR_RDMA_READ,
		PRDMA_WR_ATOMIC_CMP_AND_SWP, PRDMA_WR_ATOMIC_FETCH_AND_ADD,
		PRDMA_WR_LOCAL_INV,
	};
	uint8_t a = rd8(g), o = rd8(g), ks = rd8(g), fl = rd8(g);
	uint16_t len = rd16(g), loff = rd16(g), roff = rd16(g);
	int i = a & 1;
	unsigned int t = ((a >> 1) & 3) % FZ_NB_QP;
	struct fz_side *s = &sd[i], *peer = &sd[1 - i];
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge[2];
	uint64_t rbase;

	if (s->qp[t] == NULL)
		return;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = len;
	wr.opcode = ops[o % RTE_DIM(ops)];
	wr.send_flags = fl & (PRDMA_SEND_FENCE | PRDMA_SEND_SIGNALED | PRDMA_SEND_SOLICITED |
			      PRDMA_SEND_INLINE);
	if (a & 0x80)
		wr.send_flags |= PRDMA_SEND_SIGNALED;
	len %= 8193;
	if (wr.opcode == PRDMA_WR_ATOMIC_CMP_AND_SWP ||
	    wr.opcode == PRDMA_WR_ATOMIC_FETCH_AND_ADD)
		len = 8;
	if ((fl & PRDMA_SEND_INLINE) && len > 64)
		len = 64;
	sge[0].addr = (uintptr_t)s->x.data + loff % (FZ_X_LEN - 8192);
	sge[0].length = len;
	sge[0].lkey = s->mx->lkey;
	if (fl & 0x10) {   /* the local buffer in the area without local write */
		sge[0].addr = (uintptr_t)s->y.data + loff % (FZ_Y_LEN / 2);
		sge[0].lkey = s->my->lkey;
	}
	if (fl & 0x20)     /* two SGEs, the second one short */
		sge[1] = (struct prdma_sge){ .addr = sge[0].addr + len,
			.length = (uint32_t)(fl >> 6) * 100, .lkey = sge[0].lkey };
	wr.sg_list = sge;
	wr.num_sge = (fl & 0x20) ? 2 : 1;
	if (len == 0 && !(fl & 0x20))
		wr.num_sge = a & 0x40 ? 1 : 0;
	wr.imm_data = rd8(g);
	wr.wr.rdma.rkey = key_pick(peer, ks, &rbase);
	wr.wr.rdma.remote_addr = rbase + roff;
	if (wr.opcode == PRDMA_WR_ATOMIC_CMP_AND_SWP ||
	    wr.opcode == PRDMA_WR_ATOMIC_FETCH_AND_ADD) {
		uint64_t ra = rbase + (roff & ~(ks & 0x80 ? 0u : 7u));

		memset(&wr.wr, 0, sizeof(wr.wr));
		wr.wr.atomic.remote_addr = ra;
		wr.wr.atomic.rkey = key_pick(peer, ks, &rbase);
		wr.wr.atomic.compare_add = roff & 3;
		wr.wr.atomic.swap = loff;
	}
	if (wr.opcode == PRDMA_WR_SEND_WITH_INV || wr.opcode == PRDMA_WR_LOCAL_INV)
		wr.invalidate_rkey = key_pick(wr.opcode == PRDMA_WR_LOCAL_INV ? s : peer,
					      ks, &rbase);
	if (t == FZ_UD) {
		wr.opcode = (o & 1) ? PRDMA_WR_SEND_WITH_IMM : PRDMA_WR_SEND;
		memset(&wr.wr, 0, sizeof(wr.wr));
		wr.wr.ud.ah = s->ah;
		wr.wr.ud.remote_qpn = (ks & 0x80) ? ks : peer->qpn[FZ_UD];
		wr.wr.ud.remote_qkey = (ks & 0x40) ? 0x2222 : FZ_QKEY;
	}
	(void)prdma_post_send(s->qp[t], &wr, &bad);
}

static void
op_post_recv(struct fz_prog *g)
{
	uint8_t a = rd8(g), where = rd8(g);
	uint16_t off = rd16(g), len = rd16(g);
	int i = a & 1;
	unsigned int t = ((a >> 1) & 3) % FZ_NB_QP;

	if (sd[i].qp[t] != NULL)
		(void)recv_post(&sd[i], sd[i].qp[t], where, off, len % 8193);
}

/* The base a fed frame's PSN is chosen relative to. */
static uint32_t
psn_base(const struct roce_qp *q, uint8_t sel)
{
	const struct roce_swqe *w;

	switch (sel & 3) {
	case 0:
		return q->epsn;            /* what the responder expects */
	case 1:
		return q->una_psn;         /* the requester's oldest unacknowledged */
	case 2:
		if (q->sq_tail == q->sq_head)
			return q->una_psn;
		w = &q->sq[q->sq_tail & q->sq_mask];
		/* a READ's next response, else the oldest WQE's first PSN */
		return w->opcode == PRDMA_WR_RDMA_READ && w->started ?
			w->resp_psn : w->first_psn;
	default:
		return q->max_psn;         /* next PSN never sent */
	}
}

/*
 * Build a frame on side @from's QP @t to side 1 - @from with the encoder
 * the provider sends with, and feed it to the receiver as if off the wire.
 */
static void
op_feed(struct fz_prog *g)
{
	uint8_t a = rd8(g), opc = rd8(g), ps = rd8(g), dps = rd8(g), ks = rd8(g);
	uint8_t ls = rd8(g), syn = rd8(g), fill = rd8(g), misc = rd8(g);
	uint16_t voff = rd16(g), plen = rd16(g), dlen = rd16(g);
	int to = a & 1, from = 1 - to;
	unsigned int t = ((a >> 1) & 3) % FZ_NB_QP;
	struct fz_side *d = &sd[to], *s = &sd[from];
	struct roce_dev *sdev = s->rdev;
	const struct roce_path *path;
	struct roce_qp *dq, *sq;
	struct roce_bth b;
	struct roce_ext e;
	struct rte_mbuf *m;
	uint16_t sport;
	uint32_t mtu = 1024, hlen, i;
	uint64_t base;
	uint8_t *bth, tr;

	if (s->qp[t] == NULL)
		return;
	sq = (struct roce_qp *)s->qp[t];
	dq = d->qp[t] != NULL ? (struct roce_qp *)d->qp[t] : NULL;
	if (t == FZ_UD) {
		path = &((struct roce_ah *)s->ah)->path;
		sport = 0xc000;
	} else {
		path = &sq->path;
		sport = sq->sport;
	}
	tr = t == FZ_RC ? ROCE_TR_RC : t == FZ_UC ? ROCE_TR_UC : ROCE_TR_UD;
	memset(&b, 0, sizeof(b));
	memset(&e, 0, sizeof(e));
	/* bit 5 of opc: any opcode byte at all (CNP, other transports) */
	b.opcode = (opc & 0x20) ? (uint8_t)(opc ^ 0x20) : (uint8_t)(tr | (opc & 0x1f));
	b.se = a >> 7;
	b.ackreq = (a >> 6) & 1;
	b.becn = (a >> 5) & 1;
	b.pkey = (misc & 0x80) ? 0x1234 : ROCE_DEFAULT_PKEY;
	b.dqpn = (misc & 0x40) ? (uint32_t)dlen : d->qpn[t];
	b.psn = (ps & 4) ? (uint32_t)dps << 16 | voff :
		roce_psn_add(dq != NULL ? psn_base(dq, ps) : 0, (uint32_t)(int8_t)dps);
	e.rkey = key_pick(d, ks, &base);
	e.va = base + voff - ((ks & 0x80) ? 64 : 0);
	if ((opc & 0x1f) == ROCE_OP_CMP_SWAP || (opc & 0x1f) == ROCE_OP_FETCH_ADD)
		e.va &= ~(uint64_t)((ks & 0x40) ? 0 : 7);
	switch (ls & 3) {
	case 0:
		plen = (uint16_t)mtu;
		break;
	case 1:
		plen &= 0xff;
		break;
	case 2:
		plen = 0;
		break;
	default:
		plen %= 4097;
		break;
	}
	switch ((ls >> 2) & 3) {
	case 0:
		e.dma_len = plen;
		break;
	case 1:
		e.dma_len = mtu * (1 + ((ls >> 4) & 7)) + ((ls & 0x80) ? dlen % mtu : 0);
		break;
	case 2:
		e.dma_len = dlen;
		break;
	default:
		e.dma_len = 0x80000000u | dlen;
		break;
	}
	e.syndrome = syn;
	e.msn = dq != NULL && (misc & 1) ? dq->msn : (uint32_t)dlen;
	e.swap_add = fill;
	e.compare = misc & 2 ? 0 : fill;
	e.orig = (uint64_t)fill << 8 | misc;
	e.imm = fill;
	e.ieth = key_pick(d, (uint8_t)(ks >> 3), &base);
	e.qkey = (misc & 4) ? 0x2222 : FZ_QKEY;
	e.src_qpn = s->qpn[t];
	roce_engine_lock(sdev);
	m = roce_frame_start(&sdev->eng[0], path, sport, &bth);
	if (m == NULL) {
		roce_engine_unlock(sdev);
		return;
	}
	hlen = roce_hdr_encode(bth, &b, &e);
	if (hlen + plen + ROCE_L2L4_MAX + ROCE_ICRC_LEN + 4 >
	    rte_pktmbuf_tailroom(m))
		plen = 0;
	for (i = 0; i < plen; i++)
		bth[hlen + i] = (uint8_t)(fill + i);
	roce_frame_send(&sdev->eng[0], m, path, hlen + plen);
	/*
	 * roce_frame_send staged it for the port: take it back. With a
	 * transmit fault set it may be held, lost or doubled instead; then it
	 * goes out through the link like any frame of the sender's.
	 */
	if (sdev->eng[0].txq_len == 0 || sdev->eng[0].txq[sdev->eng[0].txq_len - 1] != m) {
		roce_engine_unlock(sdev);
		return;
	}
	sdev->eng[0].txq_len--;
	roce_engine_unlock(sdev);
	if (misc & 8)      /* damage one byte: the ICRC (or a header) fails */
		rte_pktmbuf_mtod(m, uint8_t *)[(voff % m->data_len)] ^= (uint8_t)(1u << (fill & 7));
	if (misc & 0x10)   /* CE-marked: the notification point answers a CNP */
		rte_pktmbuf_mtod(m, uint8_t *)[path->l3_off + 1] |= ROCE_ECN_CE;
	roce_engine_lock(d->rdev);
	d->rdev->eng[0].now = rte_rdtsc();
	roce_engine_rx_frame(&d->rdev->eng[0], m);
	roce_engine_unlock(d->rdev);
	rte_pktmbuf_free(m);
}

/* Raw bytes as a frame to one side. */
static void
op_raw(struct fz_prog *g)
{
	uint8_t a = rd8(g);
	uint16_t len = rd16(g) % 1500;
	struct roce_dev *dev = sd[a & 1].rdev;
	struct rte_mbuf *m;
	uint8_t *f;
	uint16_t i;

	m = rte_pktmbuf_alloc(dev->mp);
	FZ_CHECK(m != NULL);
	f = rte_pktmbuf_mtod(m, uint8_t *);
	for (i = 0; i < len; i++)
		f[i] = rd8(g);
	m->data_len = len;
	m->pkt_len = len;
	roce_engine_lock(dev);
	dev->eng[0].now = rte_rdtsc();
	roce_engine_rx_frame(&dev->eng[0], m);
	roce_engine_unlock(dev);
	rte_pktmbuf_free(m);
}

static void
op_step(struct fz_prog *g)
{
	uint8_t a = rd8(g);
	unsigned int k, n = 1 + ((a >> 2) & 7);

	for (k = 0; k < n; k++) {
		if ((a & 3) != 1)
			step(0);
		if ((a & 3) != 0)
			step(1);
	}
}

static void
op_drop(struct fz_prog *g)
{
	link_drop(rd8(g) & 1);
}

static void
op_dereg(struct fz_prog *g)
{
	struct fz_side *s = &sd[rd8(g) & 1];
	uint32_t rkey;

	if (s->x_dead)
		return;
	rkey = s->mx->rkey;
	/* EBUSY while windows are bound to it: then it stays */
	if (prdma_mr_dereg(s->mx) != 0)
		return;
	s->mx = NULL;
	dead_add(s, rkey);
	memset(s->x.data, FZ_DEAD, FZ_X_LEN);
	s->x_dead = 1;
	/* the program goes on with a key that is stale: posts and
	 * packets naming it must fail, not write */
	s->mx = prdma_mr_reg(s->pd, s->y.data, 64, PRDMA_ACCESS_LOCAL_WRITE);
	FZ_CHECK(s->mx != NULL);
}

static void
op_mw(struct fz_prog *g)
{
	uint8_t a = rd8(g), k = rd8(g);
	uint16_t off = rd16(g), len = rd16(g);
	struct fz_side *s = &sd[a & 1];
	struct prdma_mw **mwp = (a & 2) ? &s->mw2 : &s->mw1;
	struct prdma_qp *qp = s->qp[FZ_RC];
	const struct prdma_send_wr *bad;
	struct prdma_mw_bind_info bi;
	struct prdma_send_wr wr;
	uint32_t access = (uint32_t)(k & 0x0e);

	if (qp == NULL || s->x_dead)
		return;
	switch ((a >> 2) & 3) {
	case 0:   /* bind (length 0 unbinds) */
		if (*mwp == NULL)
			return;
		if ((*mwp)->type == PRDMA_MW_TYPE_1) {
			bi.mr = s->mx;
			bi.addr = (uintptr_t)s->x.data + off;
			bi.length = len;
			bi.access = access;
			(void)prdma_mw_bind(qp, *mwp, &bi, 7, PRDMA_SEND_SIGNALED);
			return;
		}
		memset(&wr, 0, sizeof(wr));
		wr.opcode = PRDMA_WR_BIND_MW;
		wr.send_flags = PRDMA_SEND_SIGNALED;
		wr.wr.bind_mw.mw = *mwp;
		wr.wr.bind_mw.rkey = ((*mwp)->rkey & ~0xffu) | (uint8_t)((*mwp)->rkey + 1 + (k >> 4));
		wr.wr.bind_mw.mr = s->mx;
		wr.wr.bind_mw.addr = (uintptr_t)s->x.data + off;
		wr.wr.bind_mw.length = len;
		wr.wr.bind_mw.access = access;
		(void)prdma_post_send(qp, &wr, &bad);
		return;
	case 1:   /* local invalidate */
		if (*mwp == NULL)
			return;
		memset(&wr, 0, sizeof(wr));
		wr.opcode = PRDMA_WR_LOCAL_INV;
		wr.send_flags = PRDMA_SEND_SIGNALED;
		wr.invalidate_rkey = (*mwp)->rkey;
		(void)prdma_post_send(qp, &wr, &bad);
		return;
	default:  /* free it, keep its key as a dead one, maybe get a new one */
		if (*mwp == NULL)
			return;
		dead_add(s, (*mwp)->rkey);
		FZ_CHECK(prdma_mw_dealloc(*mwp) == 0);
		*mwp = NULL;
		if (a & 0x10)
			*mwp = prdma_mw_alloc(s->pd, (a & 2) ? PRDMA_MW_TYPE_2 : PRDMA_MW_TYPE_1);
		return;
	}
}

static void
op_qp_state(struct fz_prog *g)
{
	uint8_t a = rd8(g);
	int i = a & 1;
	unsigned int t = ((a >> 1) & 3) % FZ_NB_QP;
	struct prdma_qp_attr qa;

	if (sd[i].qp[t] == NULL)
		return;
	switch ((a >> 3) & 3) {
	case 0:
	case 1:
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_ERR;
		(void)prdma_qp_modify(sd[i].qp[t], &qa, PRDMA_QP_STATE);
		break;
	case 2:
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RESET;
		(void)prdma_qp_modify(sd[i].qp[t], &qa, PRDMA_QP_STATE);
		break;
	default:
		FZ_CHECK(prdma_qp_destroy(sd[i].qp[t]) == 0);
		sd[i].qp[t] = NULL;
		break;
	}
}

static void
op_poll(struct fz_prog *g)
{
	cq_drain(rd8(g) & 1);
}

/* Fire a QP's ACK/RNR timer now, so retransmission replays the same way. */
static void
op_timeout(struct fz_prog *g)
{
	uint8_t a = rd8(g);
	int i = a & 1;
	unsigned int t = ((a >> 1) & 3) % FZ_NB_QP;
	struct roce_qp *q;

	if (sd[i].qp[t] == NULL)
		return;
	q = (struct roce_qp *)sd[i].qp[t];
	roce_engine_lock(sd[i].rdev);
	if (q->timer_tsc != 0)
		q->timer_tsc = 1;
	if (q->in_rnr_wait)
		q->rnr_tsc = 1;
	sd[i].rdev->eng[0].timer_next = 0;
	roce_engine_unlock(sd[i].rdev);
	step(i);
}

/* Loss, duplicates, reordering, corruption, delay, CE on one side. */
static void
op_fault(struct fz_prog *g)
{
	uint8_t a = rd8(g), r = rd8(g);
	struct prdma_dev *dev = sd[a & 1].dev;
	enum prdma_roce_fault_dir dir = (a >> 1) & 1 ? PRDMA_ROCE_FAULT_RX : PRDMA_ROCE_FAULT_TX;
	unsigned int kind = ((a >> 2) & 7) % PRDMA_ROCE_FAULT_KIND_NB;

	if (kind == PRDMA_ROCE_FAULT_DELAY)
		FZ_CHECK(prdma_roce_fault_delay_set(dev, dir, 1 + (r & 15)) == 0);
	/* a fixed seed: the same program hits the same frames */
	FZ_CHECK(prdma_roce_fault_set(dev, dir, (enum prdma_roce_fault_kind)kind,
				      RTE_MIN((uint32_t)r * 4000, 1000000u), 1) == 0);
}

enum {
	OP_POST_SEND, OP_POST_RECV, OP_FEED, OP_FEED2, OP_RAW, OP_STEP, OP_DROP,
	OP_DEREG, OP_MW, OP_QP_STATE, OP_POLL, OP_TIMEOUT, OP_FAULT, OP_NB
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_prog g = { data, size };
	unsigned int n;

	if (!ready)
		setup();
	if (size < 1)
		return 0;
	input_begin(rd8(&g));
	for (n = 0; n < FZ_MAX_OPS && g.left > 0; n++) {
		switch (rd8(&g) % OP_NB) {
		case OP_POST_SEND:
			op_post_send(&g);
			break;
		case OP_POST_RECV:
			op_post_recv(&g);
			break;
		case OP_FEED:
		case OP_FEED2:
			op_feed(&g);
			break;
		case OP_RAW:
			op_raw(&g);
			break;
		case OP_STEP:
			op_step(&g);
			break;
		case OP_DROP:
			op_drop(&g);
			break;
		case OP_DEREG:
			op_dereg(&g);
			break;
		case OP_MW:
			op_mw(&g);
			break;
		case OP_QP_STATE:
			op_qp_state(&g);
			break;
		case OP_POLL:
			op_poll(&g);
			break;
		case OP_TIMEOUT:
			op_timeout(&g);
			break;
		default:
			op_fault(&g);
			break;
		}
	}
	input_end();
	return 0;
}
