/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Queue pairs (control path), paths and address handles. */

#include <errno.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_ip.h>
#include <rte_malloc.h>

#include "roce.h"

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static int
peer_mac(struct roce_dev *dev, const struct prdma_ah_attr *ah, int loopback,
	 struct rte_ether_addr *mac)
{
	int nowait;

	if (ah->flags & PRDMA_AH_F_DMAC) {
		*mac = ah->dmac;
		return 0;
	}
	if (loopback) {
		*mac = dev->mac;
		return 0;
	}
	if (dev->link != NULL) {
		*mac = dev->link->mac[1 - dev->side];
		return 0;
	}
	nowait = (ah->flags & PRDMA_AH_F_NOWAIT) != 0;
	if (memcmp(ah->dgid.raw, v4mapped, sizeof(v4mapped)) == 0)
		return roce_neigh_resolve(dev, &ah->dgid.raw[12], 0, mac, nowait);
	return roce_neigh_resolve(dev, ah->dgid.raw, 1, mac, nowait);
}

int
roce_path_build(struct roce_dev *dev, const struct prdma_ah_attr *ah,
		struct roce_path *path)
{
	struct rte_ether_addr dmac;
	int v4 = memcmp(ah->dgid.raw, v4mapped, sizeof(v4mapped)) == 0;
	uint8_t *p = path->hdr, *l3, tclass;
	int loopback, ret;

	if (ah->sgid_index != 0) {
		ROCE_LOG(ERR, "%s: sgid_index %u: only GID 0 exists", dev->pdev->name,
			 ah->sgid_index);
		return -EINVAL;
	}
	if (v4 == dev->ipv6) {
		ROCE_LOG(ERR, "%s: destination is %s but the device address is %s",
			 dev->pdev->name, v4 ? "IPv4" : "IPv6", dev->ipv6 ? "IPv6" : "IPv4");
		return -EINVAL;
	}
	/* ECN-capable transport unless the caller chose the ECN bits. */
	tclass = ah->traffic_class;
	if (dev->cfg.ecn && (tclass & ROCE_ECN_MASK) == 0)
		tclass |= ROCE_ECN_ECT0;
	loopback = memcmp(ah->dgid.raw, dev->gid.raw, 16) == 0;
	if (prdma_gid_is_multicast(&ah->dgid)) {
		roce_mcast_mac(&ah->dgid, &dmac);
		ret = 0;
	} else {
		ret = peer_mac(dev, ah, loopback, &dmac);
	}
	if (ret < 0)
		return ret;
	memset(path, 0, sizeof(*path));
	/* By address, not MAC: ports of one host may share a MAC (net_ring). */
	path->loopback = (uint8_t)loopback;
	memcpy(p, dmac.addr_bytes, 6);
	memcpy(p + 6, dev->mac.addr_bytes, 6);
	if (dev->cfg.roce_version == 1) {
		/* RoCEv1: EtherType 0x8915 and a GRH carrying both GIDs. */
		roce_put16(p + 12, ROCE_ETHERTYPE_V1);
		l3 = p + ROCE_ETH_LEN;
		roce_put32(l3, 6u << 28 | (uint32_t)tclass << 20 | (ah->flow_label & 0xfffff));
		l3[6] = ROCE_GRH_NXT_BTH;
		l3[7] = ah->hop_limit != 0 ? ah->hop_limit : ROCE_UD_HOP_LIMIT;
		memcpy(l3 + 8, dev->gid.raw, 16);
		memcpy(l3 + 24, ah->dgid.raw, 16);
		path->l3_off = ROCE_ETH_LEN;
		path->ipv6 = (uint8_t)!v4;
		path->v1 = 1;
		path->hdr_len = ROCE_ETH_LEN + ROCE_GRH_LEN;
		return 0;
	}
	roce_put16(p + 12, v4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	path->l3_off = ROCE_ETH_LEN;
	l3 = p + ROCE_ETH_LEN;
	if (v4) {
		l3[0] = 0x45;
		l3[1] = tclass;
		roce_put16(l3 + 6, 0x4000);           /* DF */
		l3[8] = ah->hop_limit != 0 ? ah->hop_limit : ROCE_UD_HOP_LIMIT;
		l3[9] = IPPROTO_UDP;
		memcpy(l3 + 12, dev->ip, 4);
		memcpy(l3 + 16, &ah->dgid.raw[12], 4);
		path->ip_csum_base = rte_raw_cksum(l3, ROCE_IPV4_LEN);
		path->ipv6 = 0;
		path->hdr_len = ROCE_ETH_LEN + ROCE_IPV4_LEN + ROCE_UDP_LEN;
	} else {
		roce_put32(l3, 6u << 28 | (uint32_t)tclass << 20 |
			   (ah->flow_label & 0xfffff));
		l3[6] = IPPROTO_UDP;
		l3[7] = ah->hop_limit != 0 ? ah->hop_limit : ROCE_UD_HOP_LIMIT;
		memcpy(l3 + 8, dev->ip, 16);
		memcpy(l3 + 24, ah->dgid.raw, 16);
		path->ipv6 = 1;
		path->hdr_len = ROCE_ETH_LEN + ROCE_IPV6_LEN + ROCE_UDP_LEN;
	}
	roce_put16(p + path->hdr_len - ROCE_UDP_LEN + 2, ROCE_UDP_PORT);
	return 0;
}

int
roce_ah_create(struct prdma_ah *pah)
{
	struct roce_ah *ah = (struct roce_ah *)pah;
	struct roce_dev *dev = roce_dev_of(pah->dev);
	int ret;

	if (dev->nb_ah >= ROCE_MAX_AH)
		return -ENOSPC;
	ret = roce_path_build(dev, &pah->attr, &ah->path);
	if (ret == 0)
		dev->nb_ah++;
	return ret;
}

int
roce_ah_modify(struct prdma_ah *pah, const struct prdma_ah_attr *attr)
{
	struct roce_ah *ah = (struct roce_ah *)pah;
	struct roce_dev *dev = roce_dev_of(pah->dev);
	struct roce_path path;
	int ret;

	ret = roce_path_build(dev, attr, &path);
	if (ret < 0)
		return ret;
	roce_engine_lock(dev);
	ah->path = path;
	roce_engine_unlock(dev);
	return 0;
}

int
roce_ah_destroy(struct prdma_ah *pah)
{
	roce_dev_of(pah->dev)->nb_ah--;
	return 0;
}

/* Per-QP UDP source port in 0xC000-0xFFFF (wire facts §1.2): one per QP
 * keeps its packets on one ECMP/RSS path. */
static uint16_t
qp_sport(uint32_t qpn)
{
	uint32_t h = qpn * 0x9e3779b1u;

	return (uint16_t)(0xc000 | (h >> 18));
}

int
roce_qp_table_init(struct roce_dev *dev, int socket)
{
	uint32_t slots = rte_align32pow2(dev->cfg.max_qp + 2);

	dev->qp_slot_mask = slots - 1;
	dev->qp_slot_bits = (uint32_t)rte_bsf32(slots);
	dev->qp_act_words = RTE_MAX(slots / 64, 1u);
	dev->qp_sum_words = (dev->qp_act_words + 63) / 64;
	dev->qp_slot_next = 2;
	dev->qp_tbl = rte_zmalloc_socket("roce_qp_tbl", sizeof(*dev->qp_tbl) * slots,
					 RTE_CACHE_LINE_SIZE, socket);
	dev->qpn_gen = rte_zmalloc_socket("roce_qpn_gen", sizeof(*dev->qpn_gen) * slots,
					  RTE_CACHE_LINE_SIZE, socket);
	if (dev->qp_tbl == NULL || dev->qpn_gen == NULL) {
		ROCE_LOG(ERR, "max_qp=%u: no memory for a table of %u QPs",
			 dev->cfg.max_qp, slots);
		roce_qp_table_fini(dev);
		return -ENOMEM;
	}
	return 0;
}

void
roce_qp_table_fini(struct roce_dev *dev)
{
	rte_free(dev->qp_tbl);
	rte_free(dev->qpn_gen);
	dev->qp_tbl = NULL;
	dev->qpn_gen = NULL;
}

/*
 * A free slot, round robin (a destroyed QP's slot is the last one taken
 * again), and new upper QPN bits for it: random, so QPNs differ across
 * runs, and never those the slot had last, so a QPN does not come back
 * right after its QP is destroyed even when one slot is free.
 */
static int
qpn_alloc(struct roce_dev *dev, int gsi, uint32_t eng, uint32_t *qpn)
{
	uint32_t i, slot, gen, ngen = 1u << (ROCE_QPN_BITS - dev->qp_slot_bits);

	if (gsi) {
		if (dev->qp_tbl[1] != NULL)
			return -EBUSY;
		*qpn = 1;
		return 1;
	}
	for (i = 0; i <= dev->qp_slot_mask; i++) {
		slot = dev->qp_slot_next;
		dev->qp_slot_next = slot + 1 > dev->qp_slot_mask ? 2 : slot + 1;
		/* engine @eng owns the slots eng mod N: the QPN names it */
		if (slot < 2 || dev->qp_tbl[slot] != NULL ||
		    roce_slot_eng(slot, dev->nb_eng) != eng)
			continue;
		gen = (dev->qpn_gen[slot] + 1 + prdma_random32() % (ngen - 1)) & (ngen - 1);
		/* 0xffffff is the multicast QPN */
		if (((gen << dev->qp_slot_bits) | slot) == 0xffffff)
			gen = (gen + 1) & (ngen - 1);
		if (gen == dev->qpn_gen[slot])
			gen = (gen + 1) & (ngen - 1);
		dev->qpn_gen[slot] = gen;
		*qpn = (gen << dev->qp_slot_bits) | slot;
		return (int)slot;
	}
	return -ENOSPC;
}

static void
qp_reset_state(struct roce_qp *qp)
{
	qp->sq_head = qp->sq_tail = qp->sq_next = 0;
	qp->sq_off = 0;
	qp->rd_out = 0;
	qp->pkts_noack = 0;
	qp->timer_tsc = 0;
	qp->probe_tsc = 0;
	qp->probe_sent = 0;
	qp->probe_next = 0;
	qp->rtt_on = 0;
	qp->srtt_tsc = 0;
	qp->rttvar_tsc = 0;
	qp->ack_hold_tsc = 0;
	qp->in_rnr_wait = 0;
	qp->tx_halt = 0;
	qp->rq.head = qp->rq.tail = 0;
	qp->resp_op = 0;
	qp->uc_drop = 0;
	qp->resp_err = 0;
	qp->have_rwqe = 0;
	qp->nak_sent = 0;
	qp->out_head = qp->out_tail = 0;
	qp->msn = 0;
	qp->res_next = 0;
	memset(qp->res, 0, sizeof(*qp->res) * qp->res_cap);
	qp->comm_est_sent = 0;
	qp->sqd_event_sent = 0;
}

/* The responder's block for @rd READ/atomic resources: its outq then res. */
static void *
resp_block(uint32_t rd, int socket)
{
	return rte_zmalloc_socket("roce_resp", sizeof(struct roce_out) * ROCE_OUTQ_SIZE(rd) +
				  sizeof(struct roce_res) * rd, RTE_CACHE_LINE_SIZE, socket);
}

static void
resp_block_set(struct roce_qp *qp, void *block, uint32_t rd)
{
	qp->outq = block;
	qp->out_mask = ROCE_OUTQ_SIZE(rd) - 1;
	qp->res = (struct roce_res *)(qp->outq + ROCE_OUTQ_SIZE(rd));
	qp->res_cap = rd;
}

/*
 * Move the responder's state to @block, sized for @rd > res_cap (engine
 * flag held): queued answers keep their ring positions, resources their
 * entries. Returns the old block.
 */
static void *
resp_block_grow(struct roce_qp *qp, void *block, uint32_t rd)
{
	struct roce_out *old_out = qp->outq;
	struct roce_res *old_res = qp->res;
	uint32_t old_mask = qp->out_mask, old_cap = qp->res_cap, i;

	resp_block_set(qp, block, rd);
	for (i = qp->out_tail; i != qp->out_head; i++)
		qp->outq[i & qp->out_mask] = old_out[i & old_mask];
	memcpy(qp->res, old_res, sizeof(*old_res) * old_cap);
	return old_out;
}

/*
 * Several engines: a CQ is filled by one engine only (its ring has one
 * producer), an SRQ emptied by one (one consumer). A QP goes to the engine
 * its send CQ, else its receive CQ, else its SRQ is bound to; with all of
 * them new, to the next engine in turn, and they are bound to it. A QP
 * whose CQs or SRQ are bound to different engines is refused. The GSI QP
 * has slot 1: engine 1 mod N. Returns the engine or -EINVAL (engine flags
 * held).
 */
static int
qp_place(struct roce_dev *dev, struct roce_qp *qp, int gsi)
{
	int32_t b[3] = { qp->scq != NULL ? qp->scq->eng : -1,
			 qp->rcq != NULL ? qp->rcq->eng : -1,
			 qp->srq != NULL ? qp->srq->eng : -1 };
	int32_t eng = gsi ? (int32_t)roce_slot_eng(1, dev->nb_eng) : -1;
	unsigned int i;

	if (dev->nb_eng == 1)
		return 0;
	for (i = 0; i < RTE_DIM(b); i++) {
		if (b[i] < 0)
			continue;
		if (eng >= 0 && b[i] != eng) {
			/* once per device at ERR: a loop of refused creates
			 * would flood the log */
			rte_log(dev->place_logged ? RTE_LOG_DEBUG : RTE_LOG_ERR, roce_logtype,
				"roce: %s: engines=%u: a QP's CQs and SRQ must be "
				"served by one engine (its send CQ's); this one's %s is "
				"bound to engine %d, not %d\n", dev->pdev->name, dev->nb_eng,
				i == 0 ? "send CQ" : i == 1 ? "receive CQ" : "SRQ",
				b[i], eng);
			dev->place_logged = 1;
			rte_errno = EINVAL;
			return -EINVAL;
		}
		eng = b[i];
	}
	if (eng < 0) {
		eng = (int32_t)dev->eng_next;
		dev->eng_next = (dev->eng_next + 1) % dev->nb_eng;
	}
	return eng;
}

/* Bind the QP and its CQs and SRQ to engine @eng (engine flags held). */
static void
qp_bind(struct roce_qp *qp, uint32_t eng)
{
	struct roce_dev *dev = qp->rdev;

	qp->eng = &dev->eng[eng];
	/* relaxed: pollers read it relaxed (roce_cq_eng); the engines see it
	 * with the flags' release */
	if (qp->scq != NULL)
		__atomic_store_n(&qp->scq->eng, (int32_t)eng, __ATOMIC_RELAXED);
	if (qp->rcq != NULL)
		__atomic_store_n(&qp->rcq->eng, (int32_t)eng, __ATOMIC_RELAXED);
	if (qp->srq != NULL)
		qp->srq->eng = (int32_t)eng;
}

int
roce_qp_create(struct prdma_qp *pqp, struct prdma_qp_init_attr *attr)
{
	struct roce_qp *qp = (struct roce_qp *)pqp;
	struct roce_dev *dev = roce_dev_of(pqp->dev);
	int gsi = !!(attr->create_flags & PRDMA_QP_CREATE_GSI);
	uint32_t nsq, i, qpn;
	void *block;
	int slot, ret, eng;

	/* RoCE has no subnet management (no QP0) */
	if (attr->create_flags & PRDMA_QP_CREATE_SMI)
		return -ENOTSUP;
	qp->rdev = dev;
	qp->scq = (struct roce_cq *)attr->send_cq;
	qp->rcq = (struct roce_cq *)attr->recv_cq;
	qp->srq = (struct roce_srq *)attr->srq;
	qp->sq_sig_all = attr->sq_sig_all;
	qp->gsi = (uint8_t)gsi;
	nsq = rte_align32pow2(attr->cap.max_send_wr < 1 ? 1 : attr->cap.max_send_wr);
	qp->max_send_sge = RTE_MAX(attr->cap.max_send_sge, 1u);
	qp->max_inline = attr->cap.max_inline_data;
	qp->sq = rte_zmalloc_socket("roce_sq", sizeof(struct roce_swqe) * nsq,
				    RTE_CACHE_LINE_SIZE, pqp->dev->socket_id);
	if (qp->sq == NULL)
		return -ENOMEM;
	if (qp->max_inline != 0) {
		qp->sq_inline = rte_zmalloc_socket("roce_sqi", (size_t)qp->max_inline * nsq,
						   RTE_CACHE_LINE_SIZE, pqp->dev->socket_id);
		if (qp->sq_inline == NULL) {
			ret = -ENOMEM;
			goto err;
		}
		for (i = 0; i < nsq; i++)
			qp->sq[i].inl = qp->sq_inline + (size_t)i * qp->max_inline;
	}
	qp->sq_mask = nsq - 1;
	/* One resource until modify asks for more (max_dest_rd_atomic). */
	block = resp_block(1, pqp->dev->socket_id);
	if (block == NULL) {
		ret = -ENOMEM;
		goto err;
	}
	resp_block_set(qp, block, 1);
	if (qp->srq == NULL) {
		ret = roce_rq_init(&qp->rq, attr->cap.max_recv_wr,
				   RTE_MAX(attr->cap.max_recv_sge, 1u), pqp->dev->socket_id);
		if (ret < 0)
			goto err;
	}
	roce_engine_lock(dev);
	eng = qp_place(dev, qp, gsi);
	if (eng < 0)
		slot = eng;
	else
		slot = dev->nb_qps >= dev->cfg.max_qp && !gsi ? -ENOSPC :
			qpn_alloc(dev, gsi, (uint32_t)eng, &qpn);
	if (slot < 0) {
		roce_engine_unlock(dev);
		ret = slot;
		goto err;
	}
	qp_bind(qp, (uint32_t)eng);
	qp->slot = (uint32_t)slot;
	pqp->qp_num = qpn;
	qp->sport = qp_sport(qpn);
	qp->tx_seed_ok = 0;
	qp->path_mtu = dev->active_mtu;
	qp->mtu = prdma_mtu_bytes(dev->active_mtu);
	if (gsi)
		qp->qkey = PRDMA_GSI_QKEY;
	dev->qp_tbl[slot] = qp;
	dev->nb_qps++;
	roce_engine_unlock(dev);

	attr->cap.max_send_wr = nsq;
	attr->cap.max_send_sge = qp->max_send_sge;
	if (qp->srq == NULL) {
		attr->cap.max_recv_wr = qp->rq.mask + 1;
		attr->cap.max_recv_sge = qp->rq.max_sge;
	} else {
		attr->cap.max_recv_wr = 0;
		attr->cap.max_recv_sge = 0;
	}
	return 0;
err:
	roce_rq_fini(&qp->rq);
	rte_free(qp->outq);
	rte_free(qp->sq_inline);
	rte_free(qp->sq);
	return ret;
}

static void
flush_wc(struct roce_qp *qp, struct roce_cq *cq, uint64_t wr_id, enum prdma_wc_opcode op)
{
	struct prdma_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = wr_id;
	wc.status = PRDMA_WC_WR_FLUSH_ERR;
	wc.opcode = op;
	wc.qp_num = qp->base.qp_num;
	roce_cq_push(cq, &wc);
}

void
roce_qp_flush(struct roce_qp *qp)
{
	uint32_t head;

	/* acquire: pairs with post_send's release of sq_head */
	head = __atomic_load_n(&qp->sq_head, __ATOMIC_ACQUIRE);
	while (qp->sq_tail != head) {
		struct roce_swqe *w = &qp->sq[qp->sq_tail & qp->sq_mask];

		/* In ERR (nothing is sent): not before its zero-copy frames are
		 * released (acquire: pairs with their release; their callback
		 * wakes the QP and the next step flushes on). */
		if (qp->base.state == PRDMA_QPS_ERR &&
		    __atomic_load_n(&w->zc_out, __ATOMIC_ACQUIRE) != 0)
			break;
		flush_wc(qp, qp->scq, w->wr_id, roce_wc_opcode(w->opcode));
		qp->sq_tail++;
	}
	qp->sq_next = qp->sq_tail;
	qp->sq_off = 0;
	qp->rd_out = 0;
	qp->timer_tsc = 0;
	qp->probe_tsc = 0;
	qp->in_rnr_wait = 0;
	__atomic_store_n(&qp->sq_tail, qp->sq_tail, __ATOMIC_RELEASE);
	if (qp->have_rwqe) {
		flush_wc(qp, qp->rcq, qp->cur_rwqe.wr_id, PRDMA_WC_RECV);
		qp->have_rwqe = 0;
	}
	if (qp->srq == NULL && qp->rq.wqe != NULL) {
		head = __atomic_load_n(&qp->rq.head, __ATOMIC_ACQUIRE);
		while (qp->rq.tail != head) {
			flush_wc(qp, qp->rcq, qp->rq.wqe[qp->rq.tail & qp->rq.mask].wr_id,
				 PRDMA_WC_RECV);
			qp->rq.tail++;
		}
		/* release: the slots are free for the poster again */
		__atomic_store_n(&qp->rq.tail, qp->rq.tail, __ATOMIC_RELEASE);
	}
}

void
roce_qp_error(struct roce_qp *qp, enum prdma_event_type ev)
{
	if (qp->base.state == PRDMA_QPS_ERR)
		return;
	qp->base.state = PRDMA_QPS_ERR;
	if (ev != PRDMA_EVENT_MAX)
		roce_qp_event(qp, ev);
	roce_qp_flush(qp);
}

/* The peer's address in the form the parser gives a frame's source. */
static void
roce_qp_peer_ip_set(struct roce_qp *qp, const union prdma_gid *dgid)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	memset(qp->peer_ip, 0, sizeof(qp->peer_ip));
	if (memcmp(dgid->raw, v4mapped, sizeof(v4mapped)) == 0) {
		memcpy(qp->peer_ip, &dgid->raw[12], 4);
		qp->peer_ip_len = 4;
	} else {
		memcpy(qp->peer_ip, dgid->raw, 16);
		qp->peer_ip_len = 16;
	}
}

int
roce_qp_modify(struct prdma_qp *pqp, const struct prdma_qp_attr *a, uint32_t mask)
{
	struct roce_qp *qp = (struct roce_qp *)pqp;
	struct roce_dev *dev = qp->rdev;
	enum prdma_qp_state cur = (enum prdma_qp_state)pqp->state;
	enum prdma_qp_state next = (mask & PRDMA_QP_STATE) ? a->qp_state : cur;
	struct roce_path path;
	void *block = NULL;
	uint32_t rd = 0;
	int ret;

	if ((mask & PRDMA_QP_MAX_DEST_RD_ATOMIC) &&
	    a->max_dest_rd_atomic > qp->res_cap) {
		rd = RTE_MIN(a->max_dest_rd_atomic, (uint8_t)ROCE_MAX_RD_ATOMIC);
		/* allocated outside the engine flag, swapped under it */
		block = resp_block(rd, pqp->dev->socket_id);
		if (block == NULL)
			return -ENOMEM;
	}
	if ((mask & PRDMA_QP_AV) && pqp->qp_type != PRDMA_QPT_UD) {
		ret = roce_path_build(dev, &a->ah_attr, &path);
		if (ret < 0) {
			rte_free(block);
			return ret;
		}
	}
	if ((mask & PRDMA_QP_PKEY_INDEX) && a->pkey_index != 0) {
		rte_free(block);
		return -EINVAL;
	}
	roce_engine_lock(dev);
	if (block != NULL)
		block = resp_block_grow(qp, block, rd);
	if (mask & PRDMA_QP_AV) {
		qp->ah_attr = a->ah_attr;
		if (pqp->qp_type != PRDMA_QPT_UD) {
			qp->path = path;
			roce_qp_peer_ip_set(qp, &a->ah_attr.dgid);
		}
	}
	if (mask & PRDMA_QP_ACCESS_FLAGS)
		qp->access = a->qp_access_flags;
	if (mask & PRDMA_QP_PKEY_INDEX)
		qp->pkey_index = a->pkey_index;
	if (mask & PRDMA_QP_PORT)
		qp->port_num = a->port_num;
	if (mask & PRDMA_QP_QKEY)
		qp->qkey = a->qkey;
	if (mask & PRDMA_QP_PATH_MTU) {
		qp->path_mtu = a->path_mtu;
		qp->mtu = prdma_mtu_bytes(RTE_MIN(a->path_mtu, dev->active_mtu));
	}
	if (mask & PRDMA_QP_TIMEOUT)
		qp->timeout = a->timeout;
	if (mask & PRDMA_QP_RETRY_CNT)
		qp->retry_cnt = a->retry_cnt;
	if (mask & PRDMA_QP_RNR_RETRY)
		qp->rnr_retry = a->rnr_retry;
	if (mask & PRDMA_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = a->min_rnr_timer;
	if (mask & PRDMA_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = a->max_rd_atomic;
	if (mask & PRDMA_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & PRDMA_QP_DEST_QPN)
		qp->dest_qpn = a->dest_qp_num;
	/* the path or the peer QP may have changed: the next frame reseeds */
	qp->tx_seed_ok = 0;
	if (mask & PRDMA_QP_EN_SQD_ASYNC_NOTIFY)
		qp->en_sqd_async_notify = a->en_sqd_async_notify;
	if (mask & PRDMA_QP_RQ_PSN) {
		qp->rq_psn_attr = a->rq_psn;
		qp->epsn = a->rq_psn;
		qp->ack_last_psn = roce_psn_add(a->rq_psn, ROCE_PSN_MASK);
	}
	if (mask & PRDMA_QP_SQ_PSN) {
		qp->sq_psn_attr = a->sq_psn;
		qp->sq_psn = a->sq_psn;
		qp->una_psn = a->sq_psn;
		qp->max_psn = a->sq_psn;
	}
	if (mask & (PRDMA_QP_RETRY_CNT | PRDMA_QP_STATE)) {
		qp->retry_left = qp->retry_cnt;
		qp->rto_shift = 0;
	}
	if (mask & (PRDMA_QP_RNR_RETRY | PRDMA_QP_STATE))
		qp->rnr_left = qp->rnr_retry;
	/* What the responder executed is acknowledged before the QP stops. */
	if ((next == PRDMA_QPS_RESET || next == PRDMA_QPS_ERR) && next != cur)
		roce_engine_ack_flush(dev, qp);
	if (next == PRDMA_QPS_RESET && cur != PRDMA_QPS_RESET) {
		/* RESET discards the queues without completions. */
		qp_reset_state(qp);
	} else if (next == PRDMA_QPS_ERR && cur != PRDMA_QPS_ERR) {
		pqp->state = PRDMA_QPS_ERR;
		roce_qp_flush(qp);
	} else if (next == PRDMA_QPS_SQD) {
		qp->sqd_event_sent = 0;
	}
	/* Its steering rule: installed at RTR, removed at RESET and ERR. */
	roce_flow_qp_modify(qp, cur, next, mask);
	/* The new state may let posted work go (RTS), or drain it (SQD). */
	roce_qp_wake_locked(qp);
	roce_engine_unlock(dev);
	rte_free(block);
	return 0;
}

int
roce_qp_query(struct prdma_qp *pqp, struct prdma_qp_attr *a)
{
	struct roce_qp *qp = (struct roce_qp *)pqp;
	struct roce_dev *dev = qp->rdev;

	roce_engine_lock(dev);
	a->path_mtu = qp->path_mtu;
	a->sq_draining = pqp->state == PRDMA_QPS_SQD && qp->sq_tail != qp->sq_next;
	a->en_sqd_async_notify = qp->en_sqd_async_notify;
	a->max_rd_atomic = qp->max_rd_atomic;
	a->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	a->min_rnr_timer = qp->min_rnr_timer;
	a->port_num = qp->port_num;
	a->timeout = qp->timeout;
	a->retry_cnt = qp->retry_cnt;
	a->rnr_retry = qp->rnr_retry;
	a->pkey_index = qp->pkey_index;
	a->qkey = qp->qkey;
	a->rq_psn = qp->epsn;
	a->sq_psn = qp->sq_psn;
	a->dest_qp_num = qp->dest_qpn;
	a->qp_access_flags = qp->access;
	a->cap.max_send_wr = qp->sq_mask + 1;
	a->cap.max_send_sge = qp->max_send_sge;
	a->cap.max_inline_data = qp->max_inline;
	if (qp->srq == NULL) {
		a->cap.max_recv_wr = qp->rq.mask + 1;
		a->cap.max_recv_sge = qp->rq.max_sge;
	}
	a->ah_attr = qp->ah_attr;
	roce_engine_unlock(dev);
	return 0;
}

int
roce_qp_destroy(struct prdma_qp *pqp)
{
	struct roce_qp *qp = (struct roce_qp *)pqp;
	struct roce_dev *dev = qp->rdev;
	struct roce_eng *e = qp->eng;
	uint32_t w = qp->slot >> 6;

	roce_engine_lock(dev);
	/* A held ACK leaves first: the peer waits for it to complete. */
	roce_engine_ack_flush(dev, qp);
	/*
	 * Zero-copy frames still held by the port point into this QP's send
	 * queue (their WQE's count): send nothing more and wait for them
	 * (stepping the engine). Those the port never took (still in our
	 * transmit queue: a memif peer that left with its ring full) are
	 * freed; only frames the port itself holds make the destroy refuse,
	 * rather than free memory under them.
	 */
	if (roce_zc_slot_held(dev, qp->slot) != 0) {
		uint32_t purged;

		qp->tx_halt = 1;
		qp->out_tail = qp->out_head;
		roce_engine_unlock(dev);
		if (roce_zc_wait(dev, roce_zc_slot_held, qp->slot) < 0) {
			roce_engine_lock(dev);
			purged = roce_zc_purge_txq(dev, qp->slot);
			roce_engine_unlock(dev);
			if (purged != 0)
				ROCE_LOG(WARNING, "%s: QP 0x%x: %u queued frame(s) the port "
					 "never took freed", dev->pdev->name, pqp->qp_num,
					 purged);
			if (roce_zc_slot_held(dev, qp->slot) != 0) {
				ROCE_LOG(ERR, "%s: QP 0x%x: %u zero-copy frame(s) still held "
					 "by the port", dev->pdev->name, pqp->qp_num,
					 roce_zc_slot_held(dev, qp->slot));
				return -EBUSY;
			}
		}
		roce_engine_lock(dev);
	}
	if (pqp->state != PRDMA_QPS_RESET)
		roce_qp_flush(qp);
	/* The slot and its marks are this QP's only while it holds the slot. */
	if (dev->qp_tbl[qp->slot] == qp) {
		dev->qp_tbl[qp->slot] = NULL;
		/* A mark left set would only step an empty slot: clear it anyway. */
		__atomic_fetch_and(&e->qp_act[w], ~RTE_BIT64(qp->slot & 63),
				   __ATOMIC_RELAXED);
		e->qp_tmr[w] &= ~RTE_BIT64(qp->slot & 63);
	}
	roce_mcast_qp_gone(dev, qp);
	roce_flow_qp_gone(qp);
	dev->nb_qps--;
	roce_engine_unlock(dev);
	roce_rq_fini(&qp->rq);
	rte_free(qp->outq);
	rte_free(qp->sq_inline);
	rte_free(qp->sq);
	return 0;
}
