/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The engine: one step receives a burst, dispatches each packet to its QP's
 * requester or responder, runs the timers, lets every QP transmit and
 * flushes the staged frames to the port. Runs with the engine flag held.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_prefetch.h>

#include "roce.h"

/* Stage what the transmit faults let through (a duplicate needs room). */
static void
fault_tx(struct roce_eng *e, struct rte_mbuf *m)
{
	struct rte_mbuf *out[2];
	unsigned int n, i;

	n = roce_fault_frame(e, PRDMA_ROCE_FAULT_TX, m, out, rte_rdtsc());
	for (i = 0; i < n; i++) {
		if (e->txq_len < ROCE_TXQ_SIZE)
			e->txq[e->txq_len++] = out[i];
		else
			rte_pktmbuf_free(out[i]);
	}
}

/*
 * An mbuf for a frame to send. A burst is taken from the pool at once and
 * every header prefetched, so the cache misses of mbufs the peer's lcore
 * freed overlap instead of stalling each frame in turn. A pool too low for
 * a burst still gives what it has, one at a time.
 */
static inline struct rte_mbuf *
tx_mbuf(struct roce_eng *e)
{
	struct rte_mempool *mp = e->dev->mp;
	struct rte_mbuf *m;
	uint32_t i;

	if (unlikely(e->tx_stash_len == 0)) {
		if (rte_mempool_get_bulk(mp, (void **)e->tx_stash, ROCE_TX_STASH) != 0)
			return rte_pktmbuf_alloc(mp);
		for (i = 0; i < ROCE_TX_STASH; i++)
			rte_prefetch0(e->tx_stash[i]);
		e->tx_stash_len = ROCE_TX_STASH;
	}
	m = e->tx_stash[--e->tx_stash_len];
	rte_pktmbuf_reset(m);
	return m;
}

/* An mbuf for a frame, if the engine's transmit queue has room for it. */
static __rte_always_inline struct rte_mbuf *
frame_mbuf(struct roce_eng *e)
{
	struct rte_mbuf *m;

	if (e->txq_len >= ROCE_TXQ_SIZE)
		return NULL;
	m = tx_mbuf(e);
	if (unlikely(m == NULL))
		e->st.drop.tx_no_mbuf++;
	return m;
}

struct rte_mbuf *
roce_frame_start(struct roce_eng *e, const struct roce_path *path,
		 uint16_t sport, uint8_t **bth)
{
	struct rte_mbuf *m;
	uint8_t *p;

	m = frame_mbuf(e);
	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(p, path->hdr, path->hdr_len);
	if (!path->v1)
		roce_put16(p + path->hdr_len - ROCE_UDP_LEN, sport);
	*bth = p + path->hdr_len;
	return m;
}

/*
 * @qp's transmit templates and ICRC seeds, after a modify (the path, the
 * peer QP or the port may have changed): its path's header with its UDP
 * source port and a BTH of its fixed fields (every transmit builder of a
 * connected QP writes P_Key ROCE_DEFAULT_PKEY and the QP's dest_qpn), and
 * from it a plain ACK with everything but PSN and AETH.
 */
static void
qp_tx_build(struct roce_qp *qp)
{
	const struct roce_path *path = &qp->path;
	uint8_t *h = qp->tx_hdr, *a = qp->tx_ack;
	uint32_t udp_len = ROCE_UDP_LEN + ROCE_BTH_LEN + ROCE_AETH_LEN + ROCE_ICRC_LEN;

	RTE_BUILD_BUG_ON(sizeof(qp->tx_hdr) < ROCE_L2L4_MAX + ROCE_BTH_LEN + ROCE_AETH_LEN);
	memset(h, 0, sizeof(qp->tx_hdr));
	memcpy(h, path->hdr, path->hdr_len);
	if (!path->v1)
		roce_put16(h + path->hdr_len - ROCE_UDP_LEN, qp->sport);
	roce_tmpl_bth(h + path->hdr_len, ROCE_DEFAULT_PKEY, qp->dest_qpn);
	qp->tx_seed_ok = 1;
	if (path->v1)
		return; /* RoCEv1: the generic ICRC, no ACK template */
	qp->tx_icrc_seed = roce_icrc_seed(h + path->l3_off, path->ipv6);
	memcpy(a, h, sizeof(qp->tx_ack));
	a[path->hdr_len] = ROCE_OP_ACK;
	roce_frame_lengths(a + path->l3_off, path->ipv6, udp_len, path->ip_csum_base);
	qp->tx_ack_seed = roce_icrc_seed_psn(qp->tx_icrc_seed, a + path->l3_off, path->ipv6);
}

struct rte_mbuf *
roce_qp_frame_start(struct roce_qp *qp, uint8_t **bth)
{
	struct roce_eng *e = qp->eng;
	struct rte_mbuf *m;
	uint8_t *p;

	if (unlikely(!qp->tx_seed_ok))
		qp_tx_build(qp);
	m = frame_mbuf(e);
	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(p, qp->tx_hdr, sizeof(qp->tx_hdr));
	*bth = p + qp->path.hdr_len;
	return m;
}

static __rte_always_inline void
frame_finish(struct roce_eng *e, struct rte_mbuf *m, const struct roce_path *path,
	     uint32_t tlen, const struct roce_qp *qp)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *l3 = p + path->l3_off;
	uint8_t *udp = p + path->hdr_len - ROCE_UDP_LEN;
	uint32_t pad = (uint32_t)(-(int32_t)tlen) & 3, crc, len;
	uint32_t udp_len;

	memset(p + path->hdr_len + tlen, 0, pad);
	tlen += pad;
	if (path->v1) {
		/* GRH payload length: BTH..ICRC. */
		roce_put16(l3 + 4, (uint16_t)(tlen + ROCE_ICRC_LEN));
		p[path->hdr_len + 1] |= (uint8_t)(pad << 4);
		crc = roce_icrc_v1(l3, ROCE_GRH_LEN + tlen);
		goto crc_done;
	}
	udp_len = ROCE_UDP_LEN + tlen + ROCE_ICRC_LEN;
	roce_frame_lengths(l3, path->ipv6, udp_len, path->ip_csum_base);
	/* BTH PadCnt: the builders leave it 0. */
	p[path->hdr_len + 1] |= (uint8_t)(pad << 4);
	if (qp != NULL)
		crc = roce_icrc_seeded(qp->tx_icrc_seed, l3,
				       (uint32_t)(udp - l3) + ROCE_UDP_LEN + tlen, path->ipv6);
	else
		crc = roce_icrc(l3, (uint32_t)(udp - l3) + ROCE_UDP_LEN + tlen, path->ipv6);
crc_done:
	crc = rte_cpu_to_le_32(crc);
	memcpy(p + path->hdr_len + tlen, &crc, 4);
	len = path->hdr_len + tlen + ROCE_ICRC_LEN;
	if (len < ROCE_MIN_FRAME) {
		memset(p + len, 0, ROCE_MIN_FRAME - len);
		len = ROCE_MIN_FRAME;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	roce_frame_stage(e, m, path);
}

void
roce_frame_send(struct roce_eng *e, struct rte_mbuf *m,
		const struct roce_path *path, uint32_t tlen)
{
	frame_finish(e, m, path, tlen, NULL);
}

void
roce_frame_send_qp(struct roce_qp *qp, struct rte_mbuf *m, uint32_t tlen)
{
	/* the seed: built by roce_qp_frame_start, which started @m */
	frame_finish(qp->eng, m, &qp->path, tlen, qp->path.v1 ? NULL : qp);
}

int
roce_qp_send_ack(struct roce_qp *qp, uint32_t psn, uint8_t syndrome, uint32_t msn)
{
	const struct roce_path *path = &qp->path;
	struct roce_eng *e = qp->eng;
	uint32_t len = path->hdr_len + ROCE_BTH_LEN + ROCE_AETH_LEN + ROCE_ICRC_LEN, crc;
	struct rte_mbuf *m;
	uint8_t *p, *bth;

	if (unlikely(!qp->tx_seed_ok))
		qp_tx_build(qp);
	if (unlikely(path->v1)) {
		const struct roce_ext ext = { .syndrome = syndrome, .msn = msn };

		m = roce_qp_frame_start(qp, &bth);
		if (m == NULL)
			return -ENOBUFS;
		roce_frame_send_qp(qp, m, roce_tmpl_encode(bth, ROCE_OP_ACK, 0, 0, psn, &ext));
		return 0;
	}
	if (e->txq_len >= ROCE_TXQ_SIZE)
		return -ENOBUFS;
	m = tx_mbuf(e);
	if (unlikely(m == NULL)) {
		e->st.drop.tx_no_mbuf++;
		return -ENOBUFS;
	}
	p = rte_pktmbuf_mtod(m, uint8_t *);
	/* everything but PSN, AETH and ICRC is the template's: lengths,
	 * checksum, opcode; no pad, and longer than ROCE_MIN_FRAME */
	RTE_BUILD_BUG_ON(ROCE_ETH_LEN + ROCE_IPV4_LEN + ROCE_UDP_LEN + ROCE_BTH_LEN +
			 ROCE_AETH_LEN + ROCE_ICRC_LEN < ROCE_MIN_FRAME);
	memcpy(p, qp->tx_ack, sizeof(qp->tx_ack));
	bth = p + path->hdr_len;
	roce_put32(bth + 8, psn & ROCE_PSN_MASK);
	roce_put32(bth + ROCE_BTH_LEN, (uint32_t)syndrome << 24 | (msn & 0xffffff));
	crc = roce_icrc_seeded_psn(qp->tx_ack_seed, p + path->l3_off,
				   len - ROCE_ICRC_LEN - path->l3_off, path->ipv6);
	crc = rte_cpu_to_le_32(crc);
	memcpy(bth + ROCE_BTH_LEN + ROCE_AETH_LEN, &crc, 4);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	roce_frame_stage(e, m, path);
	return 0;
}

void
roce_frame_stage(struct roce_eng *e, struct rte_mbuf *m, const struct roce_path *path)
{
	struct roce_dev *dev = e->dev;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = m->pkt_len;

	e->st.dev[PRDMA_DEV_CNT_RDMA_OUT_FRAMES]++;
	e->st.dev[PRDMA_DEV_CNT_RDMA_OUT_OCTETS] += len + RTE_ETHER_CRC_LEN;
	if (dev->pcap != NULL)
		roce_pcap_write(dev->pcap, m);
	if (unlikely(p[0] & 1))         /* group MAC */
		roce_mcast_tx_loop(e, m);
	if (path->loopback) {
		if (rte_ring_sp_enqueue(e->loop, m) != 0)
			rte_pktmbuf_free(m); /* a full loop ring is a lost frame */
		return;
	}
	if (unlikely(e->fault[PRDMA_ROCE_FAULT_TX].on)) {
		fault_tx(e, m);
		return;
	}
	e->txq[e->txq_len++] = m;
}

/* Engine i sends on tx queue i only: no lock between engines. */
static void
tx_flush(struct roce_eng *e)
{
	uint16_t sent;
	uint32_t left;

	if (unlikely(e->fault[PRDMA_ROCE_FAULT_TX].on))
		e->txq_len += roce_fault_release(e, PRDMA_ROCE_FAULT_TX, rte_rdtsc(),
						 e->txq + e->txq_len,
						 ROCE_TXQ_SIZE - e->txq_len);
	if (e->txq_len == 0)
		return;
	sent = rte_eth_tx_burst(e->dev->port_id, e->queue, e->txq,
				(uint16_t)RTE_MIN(e->txq_len, (uint32_t)UINT16_MAX));
	left = e->txq_len - sent;
	if (left != 0 && sent != 0)
		memmove(e->txq, e->txq + sent, left * sizeof(e->txq[0]));
	e->txq_len = left;
}

/*
 * Whether the @len (4 or 16) bytes of two addresses are equal: two
 * compares inline, where a call to memcmp costs every frame about twenty
 * instructions twice (our address, the peer's).
 */
static inline bool
addr_eq(const uint8_t *a, const uint8_t *b, uint32_t len)
{
	uint64_t x[2], y[2];
	uint32_t u, v;

	if (len == 4) {
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		return u == v;
	}
	if (len != 16)
		return memcmp(a, b, len) == 0;
	memcpy(x, a, 16);
	memcpy(y, b, 16);
	return ((x[0] ^ y[0]) | (x[1] ^ y[1])) == 0;
}

static int
ip_is_ours(const struct roce_dev *dev, const struct roce_pkt *pkt)
{
	if (pkt->ipv6 != dev->ipv6)
		return 0;
	return addr_eq(pkt->dst_ip, dev->ip, dev->ipv6 ? 16 : 4);
}

static inline bool
pkt_is_mcast(const struct roce_pkt *pkt)
{
	return pkt->ipv6 ? pkt->dst_ip[0] == 0xff : (pkt->dst_ip[0] & 0xf0) == 0xe0;
}

/* Drop and count a frame whose ICRC does not match. */
static inline bool
icrc_bad(struct roce_eng *e, const struct roce_pkt *pkt)
{
	if (likely(roce_pkt_icrc_check(pkt) == ROCE_RX_OK))
		return false;
	e->st.drop.bad_icrc++;
	e->st.dev[PRDMA_DEV_CNT_ICRC_DROPS]++;
	return true;
}

/* Past RTR, with its peer set: a QP whose traffic may be shaped. */
static inline bool
qp_connected(const struct roce_qp *qp)
{
	uint8_t st = qp->base.state;

	return st == PRDMA_QPS_RTR || st == PRDMA_QPS_RTS || st == PRDMA_QPS_SQD ||
		st == PRDMA_QPS_SQE;
}

/*
 * One received frame. The ICRC, the one check that reads every byte, comes
 * after the header checks (our address, a QP of ours, its P_Key, its peer),
 * so that a flood of frames for nobody costs no CRC, as in Linux rxe.
 */
static bool
rx_frame(struct roce_eng *e, struct rte_mbuf *m, bool steer)
{
	struct roce_dev *dev = e->dev;
	struct roce_pkt pkt;
	enum roce_rx_verdict v;
	struct roce_qp *qp;
	uint32_t tr, to;
	bool cnp;

	/* A chain only as zero-copy transmit builds it (roce_zc.c). */
	if (likely(m->nb_segs == 1))
		v = roce_pkt_parse_quick(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, &pkt);
	else
		v = roce_zc_rx_parse(m, &pkt);
	/*
	 * Several engines: a frame for another engine's QP goes to it (its
	 * destination QPN names the engine), as do frames of no QP (ARP,
	 * multicast) to engine 0. Malformed frames are dropped where they
	 * arrived. The receiving engine captures it.
	 */
	if (unlikely(dev->nb_eng > 1) && steer) {
		to = e->idx;
		if (v == ROCE_RX_NOT_ROCE || (v == ROCE_RX_OK && pkt_is_mcast(&pkt)))
			to = 0;
		else if (v == ROCE_RX_OK)
			to = roce_slot_eng(pkt.bth.dqpn & dev->qp_slot_mask, dev->nb_eng);
		if (to != e->idx) {
			/* learnt rte_flow rules: this frame's key (roce_flow.c) */
			if (unlikely(dev->flow_learn) && v == ROCE_RX_OK && !pkt_is_mcast(&pkt))
				roce_flow_learn(e, &pkt);
			return roce_eng_handoff(e, to, m);
		}
	}
	if (dev->pcap != NULL)
		roce_pcap_write(dev->pcap, m);
	switch (v) {
	case ROCE_RX_OK:
		break;
	case ROCE_RX_NOT_ROCE:
		if (!roce_arp_rx(dev, rte_pktmbuf_mtod(m, uint8_t *), m->data_len))
			e->st.drop.not_roce++;
		return false;
	case ROCE_RX_BAD_ICRC:
		e->st.drop.bad_icrc++;
		e->st.dev[PRDMA_DEV_CNT_ICRC_DROPS]++;
		return false;
	case ROCE_RX_BAD_OPCODE:
		e->st.drop.bad_opcode++;
		e->st.dev[PRDMA_DEV_CNT_MALFORMED_DROPS]++;
		return false;
	default:
		e->st.drop.malformed++;
		e->st.dev[PRDMA_DEV_CNT_MALFORMED_DROPS]++;
		return false;
	}
	/* A group's frame is delivered to every member: check it first. A
	 * unicast frame does not call into the group code at all. */
	if (unlikely(pkt_is_mcast(&pkt))) {
		roce_pkt_decode(&pkt);
		if (icrc_bad(e, &pkt))
			return false;
		if (roce_mcast_rx(e, m, &pkt))
			return false;
	}
	if (!ip_is_ours(dev, &pkt)) {
		e->st.drop.wrong_ip++;
		e->st.dev[PRDMA_DEV_CNT_MALFORMED_DROPS]++;
		return false;
	}
	e->st.dev[PRDMA_DEV_CNT_RDMA_IN_FRAMES]++;
	e->st.dev[PRDMA_DEV_CNT_RDMA_IN_OCTETS] += m->pkt_len + RTE_ETHER_CRC_LEN;
	qp = roce_qp_lookup(dev, pkt.bth.dqpn);
	if ((pkt.bth.pkey & ROCE_PKEY_MASK) != ROCE_PKEY_MASK) {
		e->st.drop.bad_pkey++;
		e->st.dev[PRDMA_DEV_CNT_MALFORMED_DROPS]++;
		return false;
	}
	tr = pkt.bth.opcode & ROCE_TR_MASK;
	cnp = pkt.bth.opcode == ROCE_OP_CNP;
	/* A CNP throttles a connection: only a connected RC/UC QP hears one. */
	if (qp == NULL ||
	    (cnp && ((qp->base.qp_type != PRDMA_QPT_RC && qp->base.qp_type != PRDMA_QPT_UC) ||
		     !qp_connected(qp))) ||
	    (!cnp && tr == ROCE_TR_RC && qp->base.qp_type != PRDMA_QPT_RC) ||
	    (!cnp && tr == ROCE_TR_UC && qp->base.qp_type != PRDMA_QPT_UC) ||
	    (!cnp && tr == ROCE_TR_UD && qp->base.qp_type != PRDMA_QPT_UD)) {
		e->st.drop.unknown_qp++;
		e->st.dev[PRDMA_DEV_CNT_MALFORMED_DROPS]++;
		return false;
	}
	/*
	 * A connection hears only its peer: a spoofed source writes nothing
	 * and, since CNPs come here too, slows nothing down.
	 */
	if (qp->base.qp_type != PRDMA_QPT_UD &&
	    unlikely(!addr_eq(pkt.src_ip, qp->peer_ip, qp->peer_ip_len) ||
		     qp->peer_ip_len == 0)) {
		e->st.drop.wrong_ip++;
		e->st.dev[PRDMA_DEV_CNT_MALFORMED_DROPS]++;
		return false;
	}
	/* A frame for this QP: the extension headers now (parse_quick). */
	roce_pkt_decode(&pkt);
	/*
	 * Last of the checks, the only one that reads the whole frame. An RC
	 * WRITE MIDDLE carries no address: the responder checks its ICRC
	 * while copying the payload to where the message's state puts it, one
	 * pass over the bytes (roce_resp.c, write_in_place). Not a LAST: an
	 * application may poll the message's last byte, which a bad frame
	 * must never set.
	 */
	if ((pkt.flags & (ROCE_F_WRITE | ROCE_F_MIDDLE | ROCE_F_RESP)) ==
	    (ROCE_F_WRITE | ROCE_F_MIDDLE) && pkt.paylen != 0 && !cnp &&
	    qp->base.qp_type == PRDMA_QPT_RC)
		pkt.icrc_deferred = 1;
	else if (icrc_bad(e, &pkt))
		return false;
	if (unlikely(cnp)) {
		e->st.dev[PRDMA_DEV_CNT_CNP_RECEIVED]++;
		qp->cnt[PRDMA_QP_CNT_CNP_RCVD]++;
		roce_cc_cnp(qp, rte_rdtsc());
		/* limited now: its rate recovers in the steps */
		roce_qp_wake_locked(qp);
		return false;
	}
	if (unlikely(pkt.ecn == ROCE_ECN_CE))
		roce_cc_ce(qp, rte_rdtsc());
	if (pkt.flags & ROCE_F_RESP)
		roce_req_rx(qp, &pkt, e->now);
	else
		roce_resp_rx(qp, &pkt);
	/* Completions, responses, or a window opened: the step runs it. */
	roce_qp_wake_locked(qp);
	return false;
}

bool
roce_eng_handoff(struct roce_eng *e, uint32_t to, struct rte_mbuf *m)
{
	/* SP/SC: only engine e enqueues here, only engine @to dequeues */
	if (likely(rte_ring_sp_enqueue(e->dev->eng[to].hand_in[e->idx], m) == 0)) {
		e->xst.rx_handoff++;
	} else {
		e->xst.rx_handoff_drops++;
		rte_pktmbuf_free(m);
	}
	return true;
}

void
roce_engine_rx_frame(struct roce_eng *e, struct rte_mbuf *m)
{
	rx_frame(e, m, false);
}

static unsigned int
fault_rx(struct roce_eng *e, struct rte_mbuf **pkts, unsigned int n)
{
	struct rte_mbuf *out[ROCE_FAULT_HOLD + 1];
	uint64_t now = rte_rdtsc();
	unsigned int i, j, k, work = n;

	for (i = 0; i < n; i++) {
		k = roce_fault_frame(e, PRDMA_ROCE_FAULT_RX, pkts[i], out, now);
		for (j = 0; j < k; j++)
			if (!rx_frame(e, out[j], true))
				rte_pktmbuf_free(out[j]);
	}
	k = roce_fault_release(e, PRDMA_ROCE_FAULT_RX, now, out, RTE_DIM(out));
	for (j = 0; j < k; j++)
		if (!rx_frame(e, out[j], true))
			rte_pktmbuf_free(out[j]);
	return work + k;
}

/*
 * The ring's inline dequeue stores 64-bit words, not mbuf pointers: read
 * them through a type that may alias them, or under strict aliasing the
 * compiler sees the array never written and drops the loop (clang -O3 did,
 * and ran off the end of the step: roce-smoke's test_loopback crashed).
 */
typedef struct rte_mbuf *roce_mbuf_ptr __attribute__((__may_alias__));

/*
 * Receive @n frames, the peer's lcore wrote every one: prefetch all the
 * headers first, then each frame's data one frame ahead.
 */
static inline void
rx_frames(struct roce_eng *e, roce_mbuf_ptr *pkts, unsigned int n, bool steer)
{
	unsigned int i;

	if (n == 0)
		return;             /* most polls of a port find nothing */
	for (i = 0; i < n; i++)
		rte_prefetch0(pkts[i]);
	e->rx_batch = 1;
	for (i = 0; i < n; i++) {
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		if (!rx_frame(e, pkts[i], steer))
			rte_pktmbuf_free(pkts[i]);
	}
	/* the burst's receive completions, one head store per CQ */
	e->rx_batch = 0;
	if (e->nb_rx_cqs != 0)
		roce_eng_rx_publish(e);
}

/* Frames the other engines received for our QPs (already steered). */
static unsigned int
rx_handed(struct roce_eng *e, struct rte_mbuf **pkts)
{
	struct roce_dev *dev = e->dev;
	unsigned int j, n, total = 0;

	for (j = 0; j < dev->nb_eng; j++) {
		if (j == e->idx)
			continue;
		n = rte_ring_sc_dequeue_burst(e->hand_in[j], (void **)pkts, dev->burst, NULL);
		if (n == 0)
			continue;
		if (total == 0)
			e->now = rte_rdtsc();
		rx_frames(e, (roce_mbuf_ptr *)pkts, n, false);
		total += n;
	}
	return total;
}

static unsigned int
rx_burst(struct roce_eng *e)
{
	struct roce_dev *dev = e->dev;
	struct rte_mbuf *pkts[ROCE_MAX_BURST];
	roce_mbuf_ptr *loop = (roce_mbuf_ptr *)pkts;
	unsigned int n, total = 0;

	n = rte_ring_sc_dequeue_burst(e->loop, (void **)pkts, dev->burst, NULL);
	if (n != 0) {
		e->now = rte_rdtsc();
		rx_frames(e, loop, n, true);
	}
	total += n;
	if (unlikely(dev->nb_eng > 1))
		total += rx_handed(e, pkts);
	n = rte_eth_rx_burst(dev->port_id, e->queue, pkts, dev->burst);
	if (unlikely(e->fault[PRDMA_ROCE_FAULT_RX].on)) {
		e->now = rte_rdtsc();
		return total + fault_rx(e, pkts, n);
	}
	/* The requester's timers restart from the time a frame came in. */
	if (n != 0 && total == 0)
		e->now = rte_rdtsc();
	rx_frames(e, (roce_mbuf_ptr *)pkts, n, true);
	return total + n;
}

/*
 * ACK coalescing, on by default (ack_delay_us, 0 = off). A plain ACK alone
 * in the queue may wait: a later ACK replaces it (one ACK covers every PSN
 * before it). It leaves
 *  - with the next request its QP sends, right behind it in the same burst
 *    (@req_sent: a ping-pong's answer carries the ACK of the ping, so the
 *    peer's send completion never waits for a deadline, and one burst
 *    carries both frames);
 *  - once it covers ROCE_ACK_COUNT packets;
 *  - at once (with this step) when it acknowledges a message that
 *    completed a receive (SEND, WRITE with immediate): see rc_rx;
 *  - asked for by AckReq, after ROCE_ACK_GRACE_US (one-way traffic: the
 *    next message's ACK may replace it meanwhile), unless ack_delay_us was
 *    given explicitly (an application that never stops polling and wants
 *    fewer ACK frames): then it waits for
 *  - its deadline, ack_delay_us after it was first held (at most a quarter
 *    of the QP's ACK timeout, so the peer's timer never fires for it);
 *  - when its QP leaves RTS for ERR or RESET, or is destroyed
 *    (roce_engine_ack_flush): the message it acknowledges was executed.
 * A held ACK is sent by the first engine step after its time: with inline
 * progress the application's next call, or the ACK watch's step when the
 * application has stopped calling (roce_ack_watch.c).
 * The answer to a duplicate, NAKs, READ and atomic responses never wait.
 */
static inline bool
ack_held(struct roce_qp *qp, uint64_t now, bool req_sent)
{
	struct roce_dev *dev = qp->rdev;
	struct roce_eng *e = qp->eng;
	const struct roce_out *o;
	uint64_t hold;

	if (likely(dev->ack_delay_tsc == 0))
		return false;
	if (req_sent)
		goto release;
	o = &qp->outq[qp->out_tail & qp->out_mask];
	if (qp->out_head - qp->out_tail != 1 || o->kind != ROCE_OUT_ACK ||
	    o->syndrome != ROCE_AETH_ACK_NOCREDIT || o->replay || o->urgent ||
	    roce_psn_diff(o->psn, qp->ack_last_psn) >= ROCE_ACK_COUNT)
		goto release;
	if (now == 0)
		now = rte_rdtsc();
	if (qp->ack_hold_tsc == 0) {
		hold = dev->ack_delay_tsc;
		if (qp->timeout != 0)
			hold = RTE_MIN(hold, roce_ack_timeout_ns(qp->timeout) *
				       dev->tsc_hz / 4000000000ull);
		qp->ack_hold_tsc = now + hold;
		qp->ack_grace_tsc = now + RTE_MIN(hold, dev->ack_grace_tsc);
		e->xst.acks_held++;
	} else if ((!o->lazy && !dev->cfg.ack_delay_set && now >= qp->ack_grace_tsc) ||
		   now >= qp->ack_hold_tsc) {
		goto release;
	}
	/* relaxed: the ACK watch only compares it with the step count (+1:
	 * 0 is never held) */
	__atomic_store_n(&e->ack_held_step, e->steps + 1, __ATOMIC_RELAXED);
	return true;
release:
	qp->ack_hold_tsc = 0;
	return false;
}

void
roce_engine_ack_flush(struct roce_dev *dev, struct roce_qp *qp)
{
	const struct roce_out *o = &qp->outq[qp->out_tail & qp->out_mask];
	uint8_t st = qp->base.state;

	/* every engine's flag is held (control path): the QP's engine sends it */
	RTE_SET_USED(dev);
	if (qp->out_head - qp->out_tail != 1 || o->kind != ROCE_OUT_ACK ||
	    o->syndrome != ROCE_AETH_ACK_NOCREDIT ||
	    (st != PRDMA_QPS_RTR && st != PRDMA_QPS_RTS && st != PRDMA_QPS_SQD &&
	     st != PRDMA_QPS_SQE))
		return;
	qp->ack_hold_tsc = 0;
	roce_resp_tx(qp);
	tx_flush(qp->eng);
}

/* Everything a QP does per step besides receiving. */
static unsigned int
qp_step(struct roce_qp *qp, uint64_t now)
{
	unsigned int n = 0;

	if (qp->base.state == PRDMA_QPS_ERR) {
		roce_qp_flush(qp);
		return n;
	}
	if (qp->timer_tsc != 0 || qp->in_rnr_wait)
		roce_req_timers(qp, now);
	if (unlikely(qp->cc.limited))
		roce_cc_timers(qp, now);
	n += roce_req_tx(qp, now);
	roce_req_complete(qp);
	return n;
}

/*
 * Whether @qp can do something in the next step without a frame or a
 * timer: responses queued, a rate to recover, or work not yet sent. A QP
 * waiting for ACKs is not busy: a frame for it marks it again.
 */
static inline bool
qp_busy(struct roce_qp *qp)
{
	uint8_t state = qp->base.state;

	if (qp->out_head != qp->out_tail || unlikely(qp->cc.limited))
		return true;
	if ((state != PRDMA_QPS_RTS && state != PRDMA_QPS_SQD) || qp->in_rnr_wait ||
	    qp->tx_halt)
		return false;
	/* acquire: pairs with post_send's release of sq_head */
	return qp->sq_next != __atomic_load_n(&qp->sq_head, __ATOMIC_ACQUIRE);
}

/* The earliest deadline of @qp: RNR wait, tail-loss probe, ACK timeout. */
static inline uint64_t
qp_due(const struct roce_qp *qp)
{
	if (qp->in_rnr_wait)
		return qp->rnr_tsc;
	if (qp->probe_tsc != 0 && qp->probe_tsc < qp->timer_tsc)
		return qp->probe_tsc;
	return qp->timer_tsc;
}

/* After @qp ran: marked for the next step if busy, else its timer noted. */
static inline void
qp_settle(struct roce_eng *e, struct roce_qp *qp)
{
	uint64_t due;

	if (qp_busy(qp)) {
		roce_qp_wake_locked(qp);
		return;
	}
	due = qp_due(qp);
	if (due == 0)
		return;
	e->qp_tmr[qp->slot >> 6] |= RTE_BIT64(qp->slot & 63);
	if (due < e->timer_next)
		e->timer_next = due;
}

/*
 * The earliest deadline has come: mark the QPs whose timer expired and
 * find the next deadline. Deadlines only move later once armed (an ACK
 * restarts the timer), so timer_next may be early, never late.
 */
static void
timers_scan(struct roce_eng *e, uint64_t now)
{
	struct roce_dev *dev = e->dev;
	uint64_t next = UINT64_MAX, bits, due;
	struct roce_qp *qp;
	uint32_t w, slot;

	for (w = 0; w < dev->qp_act_words; w++) {
		bits = e->qp_tmr[w];
		while (bits != 0) {
			slot = w * 64 + rte_bsf64(bits);
			bits &= bits - 1;
			qp = dev->qp_tbl[slot];
			due = 0;
			if (qp != NULL)
				due = qp_due(qp);
			if (due == 0 || due <= now) {
				/* gone, disarmed, or due: a step settles it again */
				e->qp_tmr[w] &= ~RTE_BIT64(slot & 63);
				if (due != 0)
					roce_qp_wake_locked(qp);
				continue;
			}
			if (due < next)
				next = due;
		}
	}
	e->timer_next = next;
}

/*
 * A go-back-N resend may wait for room in the port behind many other QPs:
 * its ACK timer counts from when it left, not from the timeout that asked
 * for it, or a busy port times the resend out before it is even sent and
 * thousands of QPs retry themselves out together.
 */
static inline void
resend_timer(struct roce_qp *qp, uint64_t rtx, uint64_t now)
{
	if (unlikely(qp->cnt[PRDMA_QP_CNT_RETRANSMITS] != rtx) && qp->timer_tsc != 0)
		qp->timer_tsc = now + roce_rto_tsc(qp);
}

static unsigned int
qp_run(struct roce_eng *e, struct roce_qp *qp, uint64_t now)
{
	uint64_t rtx = qp->cnt[PRDMA_QP_CNT_RETRANSMITS];
	unsigned int work;

	work = qp_step(qp, now);
	resend_timer(qp, rtx, now);
	if (qp->out_head != qp->out_tail && !ack_held(qp, now, work != 0))
		work += roce_resp_tx(qp);
	qp_settle(e, qp);
	return work;
}

/*
 * Run the QPs of word @w marked in @bits, @bits first then @later. When the
 * port takes no more frames, the rest keep their marks and the next step
 * starts with the QP that was next: false then.
 */
static bool
word_run(struct roce_eng *e, uint32_t w, uint64_t bits, uint64_t later,
	 uint64_t now, unsigned int *work)
{
	struct roce_dev *dev = e->dev;
	struct roce_qp *qp;
	uint32_t slot;

	for (;;) {
		if (bits == 0) {
			if (later == 0)
				return true;
			bits = later;
			later = 0;
		}
		slot = w * 64 + rte_bsf64(bits);
		if (unlikely(e->txq_len >= ROCE_TXQ_SIZE)) {
			tx_flush(e);
			if (e->txq_len >= ROCE_TXQ_SIZE) {
				bits |= later;
				if (__atomic_fetch_or(&e->qp_act[w], bits,
						      __ATOMIC_RELAXED) == 0)
					__atomic_fetch_or(&e->qp_act_sum[w >> 6],
							  RTE_BIT64(w & 63), __ATOMIC_RELAXED);
				e->qp_run_next = slot;
				return false;
			}
		}
		bits &= bits - 1;
		qp = dev->qp_tbl[slot];
		if (qp != NULL)
			*work += qp_run(e, qp, now);
	}
}

/*
 * Run the marked QPs, only those: a step costs the same with many idle
 * QPs. The walk starts where the previous step stopped for lack of room in
 * the port and wraps around, so every QP waiting to send (or to answer)
 * gets its turn in table order, none starved by those before it.
 */
static unsigned int
qps_run(struct roce_eng *e, uint64_t now)
{
	uint32_t n = e->dev->qp_sum_words, w0 = e->qp_run_next >> 6, s0 = w0 >> 6;
	uint64_t wlow = RTE_BIT64(w0 & 63) - 1, blow = RTE_BIT64(e->qp_run_next & 63) - 1;
	uint64_t mask, sum, bits, top;
	unsigned int work = 0;
	uint32_t i, s, w;

	/*
	 * The common case: the previous step ran everything (it starts from
	 * slot 0) and the summary fits a word's bits. One pass gathers the
	 * marked summary words, then only those are visited, in order.
	 */
	if (likely(e->qp_run_next == 0 && n <= 64)) {
		for (top = 0, i = 0; i < n; i++)
			top |= (uint64_t)(__atomic_load_n(&e->qp_act_sum[i],
							  __ATOMIC_RELAXED) != 0) << i;
		while (top != 0) {
			s = (uint32_t)rte_bsf64(top);
			top &= top - 1;
			/* acquire: pairs with roce_qp_wake's release */
			sum = __atomic_exchange_n(&e->qp_act_sum[s], 0, __ATOMIC_ACQUIRE);
			while (sum != 0) {
				w = s * 64 + rte_bsf64(sum);
				sum &= sum - 1;
				bits = __atomic_exchange_n(&e->qp_act[w], 0, __ATOMIC_ACQUIRE);
				if (!word_run(e, w, bits, 0, now, &work)) {
					if (sum != 0)
						__atomic_fetch_or(&e->qp_act_sum[s], sum,
								  __ATOMIC_RELAXED);
					return work;
				}
			}
		}
		return work;
	}
	for (i = 0; i <= n; i++) {
		/* s0 twice: the words from w0 first, those below it last (no
		 * modulo: a division a step costs more than the whole scan) */
		s = s0 + i;
		if (s >= n)
			s -= n;
		mask = i == 0 ? ~wlow : i == n ? wlow : UINT64_MAX;
		if ((__atomic_load_n(&e->qp_act_sum[s], __ATOMIC_RELAXED) & mask) == 0)
			continue;
		/* acquire: pairs with roce_qp_wake's release */
		sum = __atomic_fetch_and(&e->qp_act_sum[s], ~mask, __ATOMIC_ACQUIRE) & mask;
		while (sum != 0) {
			w = s * 64 + rte_bsf64(sum);
			sum &= sum - 1;
			bits = __atomic_exchange_n(&e->qp_act[w], 0, __ATOMIC_ACQUIRE);
			if (w == w0 && i == 0 ?
			    !word_run(e, w, bits & ~blow, bits & blow, now, &work) :
			    !word_run(e, w, bits, 0, now, &work)) {
				if (sum != 0)
					__atomic_fetch_or(&e->qp_act_sum[s], sum,
							  __ATOMIC_RELAXED);
				return work;
			}
		}
	}
	/* All run: the next step may take the common path again. */
	e->qp_run_next = 0;
	return work;
}

/* Whether any QP is marked (the summary is one or a few cache lines). */
static inline bool
qps_marked(const struct roce_eng *e)
{
	uint64_t any = 0;
	uint32_t i;

	for (i = 0; i < e->dev->qp_sum_words; i++)
		any |= __atomic_load_n(&e->qp_act_sum[i], __ATOMIC_RELAXED);
	return any != 0;
}

int
roce_eng_step(struct roce_eng *e)
{
	unsigned int work;
	uint64_t now;

	/* relaxed: the ACK watch only looks for a change */
	__atomic_store_n(&e->steps, e->steps + 1, __ATOMIC_RELAXED);
	/*
	 * Responses (ACKs, NAKs, READ responses) leave in the same step as the
	 * request that produced them, as an HCA answers without being polled:
	 * an application that stops polling once it has seen its last receive
	 * must not leave the sender waiting for an ACK until it retries out.
	 */
	work = rx_burst(e);
	/* QPs whose zero-copy frames the port let go: completions to give. */
	roce_zc_wake(e->dev);
	/*
	 * Reading the TSC costs about a third of an idle step. A step that
	 * received reads it in rx_burst, one with QPs to run reads it here;
	 * an idle one looks at the timers only every ROCE_IDLE_TSC_STEPS
	 * steps, so a timer fires at most that many idle polls late, and
	 * no timer is ever armed from a stale time.
	 */
	if (work == 0) {
		if (!qps_marked(e) &&
		    (++e->idle_steps & (ROCE_IDLE_TSC_STEPS - 1)) != 0)
			goto flush;
		e->now = rte_rdtsc();
	}
	now = e->now;
	if (unlikely(now >= e->timer_next))
		timers_scan(e, now);
	work += qps_run(e, now);
flush:
	tx_flush(e);
	return (int)work;
}

int
roce_engine_step(struct roce_dev *dev)
{
	uint32_t i;
	int n = 0;

	for (i = 0; i < dev->nb_eng; i++)
		n += roce_eng_step(&dev->eng[i]);
	return n;
}

/*
 * Several engines, inline progress: a frame that reached the queue of an
 * engine whose CQs nobody polls (RSS or a fanout hashing a QP's frames
 * there, ARP for engine 0) must still be handed on. A poll of one engine
 * therefore also steps the device's other engines that have not been
 * stepped for 50 us (as a ring link steps an idle peer); engines that
 * their own lcores (or a ring peer's) keep stepping are left alone.
 */
int
roce_eng_step_idle(struct roce_eng *e, uint64_t now)
{
	struct roce_dev *dev = e->dev;
	const int64_t idle = (int64_t)(dev->tsc_hz / ROCE_PEER_IDLE_DIV);
	struct roce_eng *o;
	uint32_t j;
	int n = 0;

	for (j = 0; j < dev->nb_eng; j++) {
		o = &dev->eng[j];
		/* relaxed: a coarse hint; signed, the stamp may be newer */
		if (o == e || (int64_t)(now - __atomic_load_n(&o->last_poll,
							       __ATOMIC_RELAXED)) < idle)
			continue;
		if (roce_eng_trylock(o)) {
			n += roce_eng_step(o);
			roce_eng_unlock(o);
		}
	}
	return n;
}

int
roce_eng_poll(struct roce_eng *e)
{
	struct roce_dev *dev = e->dev;
	uint64_t now = 0;
	int n = 0;

	if (roce_eng_trylock(e)) {
		n = roce_eng_step(e);
		now = e->now;
		roce_eng_unlock(e);
		if (dev->link != NULL)
			roce_link_stepped(e, now);
		roce_eng_stamp(e, now);
	}
	if (unlikely(dev->nb_eng > 1))
		n += roce_eng_step_idle(e, now != 0 ? now : rte_rdtsc());
	if (dev->link != NULL)
		n += roce_link_step_peer(e, now != 0 ? now : rte_rdtsc());
	return n;
}

int
roce_engine_poll(struct roce_dev *dev)
{
	uint32_t i;
	int n = 0;

	for (i = 0; i < dev->nb_eng; i++)
		n += roce_eng_poll(&dev->eng[i]);
	return n;
}

void
roce_engine_kick(struct roce_eng *e, struct roce_qp *qp)
{
	unsigned int sent = 0;

	if (qp->base.state == PRDMA_QPS_RTS || qp->base.state == PRDMA_QPS_SQD) {
		uint64_t rtx = qp->cnt[PRDMA_QP_CNT_RETRANSMITS];

		/* 0: the requester reads the TSC only if it arms a timer. */
		sent = roce_req_tx(qp, 0);
		if (unlikely(qp->cnt[PRDMA_QP_CNT_RETRANSMITS] != rtx))
			resend_timer(qp, rtx, rte_rdtsc());
		roce_req_complete(qp);
	}
	/*
	 * After the request, a held ACK (ack_held) leaves right behind it, in
	 * a burst of its own: the peer has its send completion a frame after
	 * our answer, never a deadline later, and the answer does not wait
	 * for the ACK to cross (over a veth pair a burst's frames are seen
	 * together).
	 */
	if (qp->out_head != qp->out_tail && !ack_held(qp, 0, sent != 0)) {
		if (sent != 0 && e->dev->ack_delay_tsc != 0)
			tx_flush(e);
		roce_resp_tx(qp);
	}
	/* What is left (a full staging area, a QP in ERR) is the engine's. */
	if (unlikely(qp->base.state == PRDMA_QPS_ERR))
		roce_qp_wake_locked(qp);
	else
		qp_settle(e, qp);
	tx_flush(e);
}

/* progress=hybrid: watch a poller this long, then nap this long at a time. */
#define ROCE_HYBRID_WATCH_US 200
#define ROCE_HYBRID_NAP_US 50
#define ROCE_HYBRID_PAUSES 32

static uint32_t
engine_thread(void *arg)
{
	struct roce_eng *e = arg;
	struct roce_dev *dev = e->dev;
	uint64_t watch = 0, now;
	const uint64_t watch_max = rte_get_tsc_hz() / 1000000 * ROCE_HYBRID_WATCH_US;
	unsigned int idle = 0;
	int n;

	while (__atomic_load_n(&e->thread_run, __ATOMIC_ACQUIRE)) {
		/*
		 * progress=hybrid: someone polled since the last look, and
		 * polls step the engine: stay off the engine flag and watch,
		 * so that a poller turning to spin on memory (ib_write_lat
		 * between its CQ polls) is covered at once; once it has kept
		 * polling for a while, nap instead, leaving the core to it
		 * (two busy threads per process do not fit a small machine).
		 */
		if (dev->cfg.progress_hybrid &&
		    __atomic_exchange_n(&e->polled, 0, __ATOMIC_RELAXED) != 0) {
			now = rte_get_tsc_cycles();
			if (watch == 0)
				watch = now;
			if (now - watch > watch_max) {
				usleep(ROCE_HYBRID_NAP_US);
			} else {
				/* a look per microsecond or so: each one
				 * costs the poller a cache miss */
				for (n = 0; n < ROCE_HYBRID_PAUSES; n++)
					rte_pause();
			}
			idle = 0;
			continue;
		}
		watch = 0;
		n = 0;
		if (roce_eng_trylock(e)) {
			n = roce_eng_step(e);
			roce_eng_unlock(e);
		}
		/* Busy-poll while there is traffic; nap when idle so a shared
		 * core is not burnt. */
		if (n > 0) {
			idle = 0;
		} else if (++idle > 4096) {
			usleep(20);
		} else {
			rte_pause();
		}
	}
	return 0;
}

static void *
engine_thread_start(void *arg)
{
	engine_thread(arg);
	return NULL;
}

/*
 * engine_cpus=: move engine i's thread onto its CPU. rte_ctrl_thread_create
 * gave it the control-thread CPU set (the CPUs not given to EAL lcores, or
 * all of them if none is left); a CPU the process may not use, or one that
 * does not exist, is refused by the kernel (EINVAL) and so is the device.
 */
static int
engine_thread_pin(struct roce_dev *dev, struct roce_eng *e, uint32_t i)
{
	rte_cpuset_t set;
	int ret;

	if (dev->cfg.nb_engine_cpus == 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(dev->cfg.engine_cpus[i], &set);
	ret = pthread_setaffinity_np(e->thread, sizeof(set), &set);
	if (ret != 0)
		ROCE_LOG(ERR, "%s: engine_cpus: engine %u cannot run on CPU %u: %s",
			 dev->pdev->name, i, dev->cfg.engine_cpus[i], strerror(ret));
	return -ret;
}

/* progress=thread: one thread per engine (on its engine_cpus= CPU, if given). */
int
roce_engine_thread_start(struct roce_dev *dev)
{
	char name[RTE_MAX_THREAD_NAME_LEN];
	struct roce_eng *e;
	uint32_t i;
	int ret;

	for (i = 0; i < dev->nb_eng; i++) {
		e = &dev->eng[i];
		if (dev->nb_eng == 1)
			snprintf(name, sizeof(name), "roce-%u", dev->pdev->dev_id);
		else
			snprintf(name, sizeof(name), "roce-%u.%u", dev->pdev->dev_id & 0xff,
				 i & 7);
		e->thread_run = 1;
		ret = rte_ctrl_thread_create(&e->thread, name, NULL, engine_thread_start, e);
		if (ret != 0) {
			e->thread_run = 0;
			ROCE_LOG(ERR, "%s: cannot start the progress thread: %s",
				 dev->pdev->name, strerror(ret));
			roce_engine_thread_stop(dev);
			return -ret;
		}
		e->thread_started = 1;
		ret = engine_thread_pin(dev, e, i);
		if (ret != 0) {
			roce_engine_thread_stop(dev);
			return ret;
		}
	}
	return 0;
}

void
roce_engine_thread_stop(struct roce_dev *dev)
{
	struct roce_eng *e;
	uint32_t i;

	for (i = 0; i < dev->nb_eng; i++) {
		e = &dev->eng[i];
		if (!e->thread_started)
			continue;
		__atomic_store_n(&e->thread_run, 0, __ATOMIC_RELEASE);
		pthread_join(e->thread, NULL);
		e->thread_started = 0;
	}
}
