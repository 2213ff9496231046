/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Fuzz the soft provider's receive path with whole Ethernet frames.
 *
 * Two ring-linked devices hold connected RC, UC and UD QPs with posted
 * receives and a registered MR framed by canaries; each input is received
 * by side 1 as a frame off the wire (roce_engine_rx_frame), then both
 * engines run so responses and completions flow.
 *
 * Input: byte 0 steers the harness, the rest is the frame.
 *   bit 0  make the headers routable: IPv4/UDP 4791 to side 1, lengths
 *          consistent with the frame (without it most inputs die early)
 *   bit 1  fix the ICRC up so the fuzzer gets past it
 *   bit 2  point the BTH at one of the live QPs (chosen by bits 5..6,
 *          3 = the transport the opcode names)
 *   bit 3  aim a RETH/AtomicETH at the MR (rkey, address in range)
 *   bit 4  give a UD packet the QP's Q_Key
 * After every input the MR's canaries must be intact; a QP that went to
 * the error state is rebuilt, so every input meets a live QP set.
 */

#include <netinet/in.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "fz_common.h"
#include "roce.h"

#define FZ_MR_LEN  (64u * 1024)
#define FZ_NB_RECV 16
#define FZ_QKEY    0x11111111u

enum { FZ_RC, FZ_UC, FZ_UD, FZ_NB_QP };

struct fz_side {
	int id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct fz_area area;
	struct prdma_mr *mr;
	struct prdma_qp *qp[FZ_NB_QP];
	union prdma_gid gid;
};

static struct fz_side sd[2];
static int ready;

static struct prdma_qp *
qp_make(struct fz_side *s, enum prdma_qp_type type)
{
	struct prdma_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = type;
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.cap.max_send_wr = 32;
	ia.cap.max_recv_wr = FZ_NB_RECV;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 2;
	return prdma_qp_create(s->pd, &ia);
}

static void
qp_up(struct fz_side *s, struct prdma_qp *qp, const struct fz_side *peer,
      uint32_t dqpn)
{
	struct prdma_qp_attr qa;
	uint32_t mask;
	int ud = qp->qp_type == PRDMA_QPT_UD;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_INIT;
	qa.port_num = 1;
	qa.qkey = FZ_QKEY;
	qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE |
		(qp->qp_type == PRDMA_QPT_RC ?
		 PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_ATOMIC : 0);
	mask = PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT |
		(ud ? PRDMA_QP_QKEY : PRDMA_QP_ACCESS_FLAGS);
	FZ_CHECK(prdma_qp_modify(qp, &qa, mask) == 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTR;
	mask = PRDMA_QP_STATE;
	if (!ud) {
		qa.path_mtu = PRDMA_MTU_1024;
		qa.dest_qp_num = dqpn;
		qa.rq_psn = 0;
		qa.max_dest_rd_atomic = 4;
		qa.min_rnr_timer = 1;
		qa.ah_attr.dgid = peer->gid;
		qa.ah_attr.port_num = 1;
		mask |= PRDMA_QP_AV | PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
			PRDMA_QP_RQ_PSN;
		if (qp->qp_type == PRDMA_QPT_RC)
			mask |= PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER;
	}
	FZ_CHECK(prdma_qp_modify(qp, &qa, mask) == 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTS;
	qa.sq_psn = 0;
	qa.timeout = 1;
	qa.retry_cnt = 1;
	qa.rnr_retry = 1;
	qa.max_rd_atomic = 4;
	mask = PRDMA_QP_STATE | PRDMA_QP_SQ_PSN;
	if (qp->qp_type == PRDMA_QPT_RC)
		mask |= PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
			PRDMA_QP_MAX_QP_RD_ATOMIC;
	FZ_CHECK(prdma_qp_modify(qp, &qa, mask) == 0);
	(void)s;
}

static void
recv_fill(struct fz_side *s, struct prdma_qp *qp)
{
	const struct prdma_recv_wr *bad;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;

	/* Post until the queue is full: -ENOMEM ends it. */
	do {
		sge.addr = (uintptr_t)s->area.data;
		sge.length = 2048;
		sge.lkey = s->mr->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
	} while (prdma_post_recv(qp, &wr, &bad) == 0);
}

static void
set_build(void)
{
	static const enum prdma_qp_type types[FZ_NB_QP] = {
		PRDMA_QPT_RC, PRDMA_QPT_UC, PRDMA_QPT_UD };
	int i, t;

	for (i = 0; i < 2; i++)
		for (t = 0; t < FZ_NB_QP; t++) {
			sd[i].qp[t] = qp_make(&sd[i], types[t]);
			FZ_CHECK(sd[i].qp[t] != NULL);
		}
	for (i = 0; i < 2; i++)
		for (t = 0; t < FZ_NB_QP; t++) {
			qp_up(&sd[i], sd[i].qp[t], &sd[1 - i], sd[1 - i].qp[t]->qp_num);
			recv_fill(&sd[i], sd[i].qp[t]);
		}
}

static void
drain(void)
{
	struct prdma_wc wc[32];
	int i, k;

	for (k = 0; k < 4; k++)
		for (i = 0; i < 2; i++) {
			prdma_dev_progress(sd[i].dev);
			while (prdma_cq_poll(sd[i].cq, RTE_DIM(wc), wc) > 0)
				;
		}
}

static void
set_destroy(void)
{
	int i, t;

	for (i = 0; i < 2; i++)
		for (t = 0; t < FZ_NB_QP; t++)
			FZ_CHECK(prdma_qp_destroy(sd[i].qp[t]) == 0);
	drain();
}

static void
setup(void)
{
	static const char *const args[2] = {
		"roce:ring=fzrx,side=0,ip=192.0.2.1",
		"roce:ring=fzrx,side=1,ip=192.0.2.2",
	};
	struct prdma_cq_init_attr ca;
	int i;

	fz_eal_init();
	for (i = 0; i < 2; i++) {
		sd[i].id = prdma_dev_probe(args[i]);
		FZ_CHECK(sd[i].id >= 0);
		sd[i].dev = prdma_dev_open((uint16_t)sd[i].id);
		FZ_CHECK(sd[i].dev != NULL);
		sd[i].pd = prdma_pd_alloc(sd[i].dev);
		FZ_CHECK(sd[i].pd != NULL);
		memset(&ca, 0, sizeof(ca));
		ca.cqe = 4096;
		sd[i].cq = prdma_cq_create(sd[i].dev, &ca);
		FZ_CHECK(sd[i].cq != NULL);
		fz_area_alloc(&sd[i].area, FZ_MR_LEN);
		sd[i].mr = prdma_mr_reg(sd[i].pd, sd[i].area.data, FZ_MR_LEN,
					PRDMA_ACCESS_ALL);
		FZ_CHECK(sd[i].mr != NULL);
		FZ_CHECK(prdma_gid_query(sd[i].dev, 1, 0, &sd[i].gid) == 0);
	}
	set_build();
	ready = 1;
}

/* Make the frame's headers those of an IPv4 RoCEv2 packet to side 1. */
static void
fix_headers(uint8_t *f, uint32_t len)
{
	uint8_t *l3 = f + ROCE_ETH_LEN, *udp = l3 + ROCE_IPV4_LEN;

	roce_put16(f + 12, RTE_ETHER_TYPE_IPV4);
	l3[0] = 0x45;
	roce_put16(l3 + 2, (uint16_t)(len - ROCE_ETH_LEN));
	roce_put16(l3 + 6, 0);
	l3[9] = IPPROTO_UDP;
	memcpy(l3 + 12, &sd[0].gid.raw[12], 4);
	memcpy(l3 + 16, &sd[1].gid.raw[12], 4);
	roce_put16(udp + 2, ROCE_UDP_PORT);
	roce_put16(udp + 4, (uint16_t)(len - ROCE_ETH_LEN - ROCE_IPV4_LEN));
}

static void
fix_transport(uint8_t *f, uint32_t len, uint8_t ctl)
{
	uint8_t *bth = f + ROCE_ETH_LEN + ROCE_IPV4_LEN + ROCE_UDP_LEN;
	uint32_t tlen = len - (uint32_t)(bth - f), flags;
	unsigned int which = (ctl >> 5) & 3;
	uint8_t tr = bth[0] & ROCE_TR_MASK;

	flags = roce_opcode_flags(bth[0]);
	if (which == 3)
		which = tr == ROCE_TR_UC ? FZ_UC : tr == ROCE_TR_UD ? FZ_UD : FZ_RC;
	if (which == FZ_NB_QP)
		which = FZ_RC;
	if (ctl & RTE_BIT32(2))
		roce_put24(bth + 5, sd[1].qp[which]->qp_num);
	if ((ctl & RTE_BIT32(3)) && (flags & (ROCE_F_RETH | ROCE_F_ATMETH)) &&
	    tlen >= ROCE_BTH_LEN + ROCE_RETH_LEN) {
		uint64_t off = roce_get64(bth + ROCE_BTH_LEN) % FZ_MR_LEN;

		roce_put64(bth + ROCE_BTH_LEN, (uintptr_t)sd[1].area.data + off);
		roce_put32(bth + ROCE_BTH_LEN + 8, sd[1].mr->rkey);
	}
	if ((ctl & RTE_BIT32(4)) && tr == ROCE_TR_UD &&
	    tlen >= ROCE_BTH_LEN + ROCE_DETH_LEN)
		roce_put32(bth + ROCE_BTH_LEN, FZ_QKEY);
}

static void
fix_icrc(uint8_t *f, uint32_t len)
{
	uint8_t *l3 = f + ROCE_ETH_LEN;
	uint32_t crc;

	crc = roce_icrc(l3, len - ROCE_ETH_LEN - ROCE_ICRC_LEN, 0);
	crc = rte_cpu_to_le_32(crc);
	memcpy(f + len - ROCE_ICRC_LEN, &crc, 4);
}

static void
rebuild_if_broken(void)
{
	int i, t, broken = 0;

	for (i = 0; i < 2; i++)
		for (t = 0; t < FZ_NB_QP; t++)
			if (sd[i].qp[t]->state != PRDMA_QPS_RTS)
				broken = 1;
	if (broken) {
		set_destroy();
		set_build();
		return;
	}
	for (t = 0; t < FZ_NB_QP; t++)
		recv_fill(&sd[1], sd[1].qp[t]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_dev *dev;
	struct rte_mbuf *m;
	uint32_t len, room;
	uint8_t ctl, *f;

	if (!ready)
		setup();
	if (size < 1)
		return 0;
	ctl = data[0];
	data++;
	size--;
	dev = roce_dev_of(sd[1].dev);
	m = rte_pktmbuf_alloc(dev->mp);
	FZ_CHECK(m != NULL);
	room = rte_pktmbuf_tailroom(m);
	len = (uint32_t)RTE_MIN(size, (size_t)room);
	f = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(f, data, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	if ((ctl & RTE_BIT32(0)) &&
	    len >= ROCE_ETH_LEN + ROCE_IPV4_LEN + ROCE_UDP_LEN + ROCE_BTH_LEN +
		   ROCE_ICRC_LEN) {
		fix_headers(f, len);
		fix_transport(f, len, ctl);
		if (ctl & RTE_BIT32(1))
			fix_icrc(f, len);
	}
	roce_engine_lock(dev);
	dev->eng[0].now = rte_rdtsc();
	roce_engine_rx_frame(&dev->eng[0], m);
	roce_engine_unlock(dev);
	rte_pktmbuf_free(m);
	drain();
	FZ_CHECK(fz_area_canary_ok(&sd[1].area) == 0);
	FZ_CHECK(fz_area_canary_ok(&sd[0].area) == 0);
	rebuild_if_broken();
	return 0;
}
