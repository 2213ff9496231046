/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The requester: segments send-queue WQEs into packets, handles ACKs, NAKs,
 * READ responses and atomic ACKs, retransmits go-back-N on a local ACK
 * timeout or a sequence NAK, waits out RNR NAKs, and completes WQEs in
 * order (roce-wire-facts.md §6, §7).
 */

#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>

#include "roce.h"

/* Packets an RC requester sends past its oldest unacknowledged PSN. */
#define ROCE_MAX_UNACKED_PSNS 128u

enum prdma_wc_opcode
roce_wc_opcode(uint8_t op)
{
	switch (op) {
	case PRDMA_WR_RDMA_WRITE:
	case PRDMA_WR_RDMA_WRITE_WITH_IMM:
		return PRDMA_WC_RDMA_WRITE;
	case PRDMA_WR_RDMA_READ:
		return PRDMA_WC_RDMA_READ;
	case PRDMA_WR_ATOMIC_CMP_AND_SWP:
		return PRDMA_WC_COMP_SWAP;
	case PRDMA_WR_ATOMIC_FETCH_AND_ADD:
		return PRDMA_WC_FETCH_ADD;
	case PRDMA_WR_BIND_MW:
		return PRDMA_WC_BIND_MW;
	case PRDMA_WR_LOCAL_INV:
		return PRDMA_WC_LOCAL_INV;
	default:
		return PRDMA_WC_SEND;
	}
}

static inline int
is_local(uint8_t op)
{
	return op == PRDMA_WR_LOCAL_INV || op == PRDMA_WR_BIND_MW;
}

static inline int
is_rd_atomic(uint8_t op)
{
	return op == PRDMA_WR_RDMA_READ || op == PRDMA_WR_ATOMIC_CMP_AND_SWP ||
		op == PRDMA_WR_ATOMIC_FETCH_AND_ADD;
}

static inline int
is_atomic(uint8_t op)
{
	return op == PRDMA_WR_ATOMIC_CMP_AND_SWP || op == PRDMA_WR_ATOMIC_FETCH_AND_ADD;
}

static inline uint64_t
us_to_tsc(const struct roce_dev *dev, uint64_t us)
{
	return us * dev->tsc_hz / 1000000;
}

static inline uint64_t
ack_timeout_tsc(const struct roce_qp *qp)
{
	return roce_ack_timeout_ns(qp->timeout) * qp->rdev->tsc_hz / 1000000000ull;
}

uint64_t
roce_rto_tsc(const struct roce_qp *qp)
{
	uint8_t t = qp->timeout;

	/* Doubled per timeout in a row, up to exponent ROCE_RTO_BACKOFF_EXP. */
	if (t != 0 && t < ROCE_RTO_BACKOFF_EXP)
		t = (uint8_t)RTE_MIN((uint32_t)t + qp->rto_shift, (uint32_t)ROCE_RTO_BACKOFF_EXP);
	return roce_ack_timeout_ns(t) * qp->rdev->tsc_hz / 1000000000ull;
}

/* Posted WQEs: pairs with post_send's release of sq_head. */
static inline uint32_t
sq_head_acquire(const struct roce_qp *qp)
{
	return __atomic_load_n(&qp->sq_head, __ATOMIC_ACQUIRE);
}

static inline int
outstanding(const struct roce_qp *qp)
{
	return qp->sq_tail != qp->sq_next || qp->sq_off != 0;
}

/*
 * The ACK timer runs while a PSN sent is not acknowledged (una_psn behind
 * max_psn), not while WQEs wait to be retired: an ACK that covers
 * everything is handled before roce_req_complete() moves sq_tail, and a
 * timer armed then would count the next message's timeout from this ACK
 * (a ping-pong with a slow peer resent after a fraction of the timeout).
 */
/*
 * The tail-loss probe. A lost last packet (or its lost ACK) is otherwise
 * found only by the ACK timeout, which is set for the worst path, not for
 * this one: after PTO, two smoothed RTTs and a little slack, with nothing
 * acknowledged since the last transmission, the last packet sent goes
 * again with AckReq, once per tail. PTO adds the peer's ACK delay (ours
 * taken for it) to two RTTs, so a coalesced ACK does not look lost. Its answer is an ACK either way (a
 * duplicate is answered as one), it takes nothing from retry_cnt, and the
 * ACK timer keeps running: the QP's timeout stays the bound. No probe when
 * PTO is not well below the timeout.
 */
static void
probe_arm(struct roce_qp *qp, uint64_t now)
{
	uint64_t pto, rto;

	qp->probe_tsc = 0;
	if (qp->timer_tsc == 0 || qp->probe_sent)
		return;
	/* The peer may hold its ACK (coalescing) up to its ack delay: take
	 * ours as its, as TCP's PTO adds the worst-case delayed ACK. */
	/* No probe before an RTT is known: a slow peer (Linux rxe in a guest)
	 * would see it as a spurious resend. With one, two RTTs, or SRTT plus
	 * four deviations when the RTT varies more (as TCP's RTO). */
	if (qp->srtt_tsc == 0 || !qp->rdev->cfg.tlp)
		return;
	pto = RTE_MAX(2 * qp->srtt_tsc, qp->srtt_tsc + 4 * qp->rttvar_tsc) +
		RTE_MAX(us_to_tsc(qp->rdev, ROCE_PTO_SLACK_US), qp->rdev->ack_delay_tsc);
	pto = RTE_MAX(pto, us_to_tsc(qp->rdev, ROCE_PTO_MIN_US));
	rto = ack_timeout_tsc(qp);
	if (pto < rto / 2)
		qp->probe_tsc = now + pto;
}

/* An answer, or a first transmission: the plain timeout again. */
static void
timer_restart(struct roce_qp *qp, uint64_t now)
{
	qp->rto_shift = 0;
	if (qp->base.qp_type == PRDMA_QPT_RC && qp->timeout != 0 &&
	    roce_psn_cmp(qp->una_psn, qp->max_psn) < 0)
		qp->timer_tsc = now + ack_timeout_tsc(qp);
	else
		qp->timer_tsc = 0;
	probe_arm(qp, now);
}

/*
 * An answer covering @psn came at @now: the RTT sample ends if it covers
 * the sampled packet (SRTT += (sample - SRTT) / 8, as TCP smooths). A
 * resent packet never starts a sample and a go-back-N ends it (Karn).
 */
static inline void
rtt_answered(struct roce_qp *qp, uint32_t psn, uint64_t now)
{
	uint64_t rtt;

	if (!qp->rtt_on || roce_psn_cmp(psn, qp->rtt_psn) < 0)
		return;
	qp->rtt_on = 0;
	if (now <= qp->rtt_t0)
		return;
	rtt = now - qp->rtt_t0;
	if (qp->srtt_tsc == 0) {
		qp->srtt_tsc = rtt;
		qp->rttvar_tsc = rtt / 2;
		return;
	}
	/* RTTVAR += (|SRTT - sample| - RTTVAR) / 4, as TCP (RFC 6298). */
	qp->rttvar_tsc = qp->rttvar_tsc - qp->rttvar_tsc / 4 +
		(rtt > qp->srtt_tsc ? rtt - qp->srtt_tsc : qp->srtt_tsc - rtt) / 4;
	qp->srtt_tsc = qp->srtt_tsc - qp->srtt_tsc / 8 + rtt / 8;
}

static uint32_t
wqe_npkts(const struct roce_qp *qp, const struct roce_swqe *w)
{
	if (is_atomic(w->opcode) || w->length == 0)
		return 1;
	return (w->length + qp->mtu - 1) / qp->mtu;
}

static void
wqe_wc_fill(struct prdma_wc *wc, const struct roce_qp *qp, const struct roce_swqe *w,
	    enum prdma_wc_status status)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = w->wr_id;
	wc->status = status;
	wc->opcode = roce_wc_opcode(w->opcode);
	wc->qp_num = qp->base.qp_num;
	wc->byte_len = is_atomic(w->opcode) ? 8 : w->length;
}


void
roce_req_complete(struct roce_qp *qp)
{
	uint32_t tail = qp->sq_tail;
	struct prdma_wc *wc;

	/*
	 * A completion is visible only once its slot is free: a program that
	 * polls it may post into that slot at once (a full queue of depth 1
	 * is ibv_rc_pingpong's). So each is written, from the WQE, into a
	 * staged CQ entry, then the slots are released, then the entries
	 * published: one store of each index for the whole run.
	 */
	while (tail != qp->sq_next) {
		struct roce_swqe *w = &qp->sq[tail & qp->sq_mask];

		/* acquire: pairs with the port's release of zero-copy frames,
		 * which read the buffer this completion hands back */
		if (!w->done || __atomic_load_n(&w->zc_out, __ATOMIC_ACQUIRE) != 0)
			break;
		if (w->status != PRDMA_WC_SUCCESS) {
			wc = roce_cq_stage(qp->scq);
			if (wc != NULL)
				wqe_wc_fill(wc, qp, w, (enum prdma_wc_status)w->status);
			tail++;
			/* release: the slot is free for post_send */
			__atomic_store_n(&qp->sq_tail, tail, __ATOMIC_RELEASE);
			roce_cq_commit(qp->scq);
			roce_qp_error(qp, PRDMA_EVENT_MAX);
			return;
		}
		if ((w->flags & ROCE_SWQE_SIGNALED) != 0) {
			wc = roce_cq_stage(qp->scq);
			if (wc != NULL)
				wqe_wc_fill(wc, qp, w, PRDMA_WC_SUCCESS);
		}
		tail++;
	}
	if (tail != qp->sq_tail) {
		/* release: the slots are free for post_send, before the
		 * completions that hand them back are seen */
		__atomic_store_n(&qp->sq_tail, tail, __ATOMIC_RELEASE);
		roce_cq_commit(qp->scq);
	}
	if (qp->base.state == PRDMA_QPS_SQD && !outstanding(qp) && !qp->sqd_event_sent) {
		qp->sqd_event_sent = 1;
		if (qp->en_sqd_async_notify)
			roce_qp_event(qp, PRDMA_EVENT_SQ_DRAINED);
	}
}

/* Fail the oldest unfinished WQE with @status: the QP goes to ERR. */
static void
fail_wqe(struct roce_qp *qp, struct roce_swqe *w, enum prdma_wc_status status)
{
	uint32_t i;

	/* Everything older is finished (acknowledged before the error). */
	for (i = qp->sq_tail; i != qp->sq_next; i++) {
		struct roce_swqe *o = &qp->sq[i & qp->sq_mask];

		if (o == w)
			break;
		if (!o->done) {
			o->done = 1;
			o->status = PRDMA_WC_WR_FLUSH_ERR;
		}
	}
	if (w->started == 0)
		w->started = 1;
	w->done = 1;
	w->status = (uint8_t)status;
	if (((uint32_t)(w - qp->sq)) == (qp->sq_next & qp->sq_mask) && qp->sq_next != qp->sq_head)
		qp->sq_next++;
	qp->tx_halt = 1;
	roce_req_complete(qp);
}

/* Go back to @psn: the next packet sent is the one carrying it (1). */
static int
rewind_to(struct roce_qp *qp, uint32_t psn)
{
	uint32_t i;

	qp->rtt_on = 0;
	for (i = qp->sq_tail; i != qp->sq_next + (qp->sq_off != 0); i++) {
		struct roce_swqe *w = &qp->sq[i & qp->sq_mask];
		uint32_t off;

		if (!w->started || w->done || is_local(w->opcode))
			continue;
		if (roce_psn_cmp(psn, w->last_psn) > 0)
			continue;
		if (w->opcode == PRDMA_WR_RDMA_READ) {
			/* Resume at the first byte not yet received. */
			psn = w->resp_psn;
		} else if (roce_psn_cmp(psn, w->first_psn) < 0) {
			psn = w->first_psn;
		}
		off = roce_psn_diff(psn, w->first_psn) * qp->mtu;
		qp->sq_next = i;
		qp->sq_off = is_atomic(w->opcode) ? 0 : off;
		qp->sq_psn = psn;
		return 1;
	}
	return 0;
}

/*
 * The packet's @pay bytes at qp->sq_off straight from the MR, when they lie
 * in one SGE (a packet across SGEs is copied). -EACCES: the lkey does not
 * grant them, as the copy would find.
 */
static int
zc_send(struct roce_qp *qp, struct roce_swqe *w, struct rte_mbuf *m,
	const struct roce_path *path, uint32_t hlen, uint32_t pay)
{
	struct roce_dev *dev = qp->rdev;
	uint32_t i, off = qp->sq_off;
	struct roce_key *k = NULL;
	uint64_t va;

	for (i = 0; i < w->num_sge && off >= w->sge[i].length; i++)
		off -= w->sge[i].length;
	if (i == w->num_sge || w->sge[i].length - off < pay)
		return -ENOBUFS;
	va = w->sge[i].addr + off;
	if (roce_key_check(dev, w->sge[i].lkey, qp->base.pd, 0, va, pay, 0, 0, &k) < 0)
		return -EACCES;
	if (k == NULL)
		return -ENOBUFS; /* the DMA MR: no key slot to account it to */
	return roce_zc_frame_send(qp->eng, qp, m, path, hlen, va, pay, k, &w->zc_out);
}

/* Build and queue one packet of @w at byte offset qp->sq_off. */
static int
send_packet(struct roce_qp *qp, struct roce_swqe *w)
{
	struct roce_dev *dev = qp->rdev;
	const struct roce_path *path;
	/* zeroed: the compiler cannot see which fields the opcode reads */
	struct roce_ext ext = { .va = 0 };
	struct rte_mbuf *m;
	uint32_t pay = 0, hlen, base, psn;
	int first, last, ret;
	uint8_t op, *p, se = 0, ackreq = 0;

	switch (qp->base.qp_type) {
	case PRDMA_QPT_UD:
		base = ROCE_TR_UD;
		path = &w->ah->path;
		break;
	case PRDMA_QPT_UC:
		base = ROCE_TR_UC;
		path = &qp->path;
		break;
	default:
		base = ROCE_TR_RC;
		path = &qp->path;
		break;
	}
	psn = roce_psn_add(w->first_psn, qp->sq_off / qp->mtu);
	first = qp->sq_off == 0;
	switch (w->opcode) {
	case PRDMA_WR_RDMA_READ:
		op = ROCE_OP_READ_REQ;
		ext.va = w->raddr + qp->sq_off;
		ext.rkey = w->rkey;
		ext.dma_len = w->length - qp->sq_off;
		last = 1;
		break;
	case PRDMA_WR_ATOMIC_CMP_AND_SWP:
	case PRDMA_WR_ATOMIC_FETCH_AND_ADD:
		op = w->opcode == PRDMA_WR_ATOMIC_CMP_AND_SWP ? ROCE_OP_CMP_SWAP :
			ROCE_OP_FETCH_ADD;
		ext.va = w->raddr;
		ext.rkey = w->rkey;
		if (op == ROCE_OP_CMP_SWAP) {
			ext.swap_add = w->swap;
			ext.compare = w->compare_add;
		} else {
			ext.swap_add = w->compare_add;
			ext.compare = 0;
		}
		last = 1;
		psn = w->first_psn;
		break;
	default:
		pay = RTE_MIN(qp->mtu, w->length - qp->sq_off);
		last = qp->sq_off + pay >= w->length;
		if (w->opcode == PRDMA_WR_RDMA_WRITE ||
		    w->opcode == PRDMA_WR_RDMA_WRITE_WITH_IMM) {
			int imm = w->opcode == PRDMA_WR_RDMA_WRITE_WITH_IMM;

			if (first && last)
				op = imm ? ROCE_OP_WRITE_ONLY_IMM : ROCE_OP_WRITE_ONLY;
			else if (first)
				op = ROCE_OP_WRITE_FIRST;
			else if (last)
				op = imm ? ROCE_OP_WRITE_LAST_IMM : ROCE_OP_WRITE_LAST;
			else
				op = ROCE_OP_WRITE_MIDDLE;
			ext.va = w->raddr;
			ext.rkey = w->rkey;
			ext.dma_len = w->length;
			se = last && imm && (w->flags & ROCE_SWQE_SOLICITED);
		} else {
			int imm = w->opcode == PRDMA_WR_SEND_WITH_IMM;
			int inv = w->opcode == PRDMA_WR_SEND_WITH_INV;

			if (first && last)
				op = imm ? ROCE_OP_SEND_ONLY_IMM : inv ?
					ROCE_OP_SEND_ONLY_INV : ROCE_OP_SEND_ONLY;
			else if (first)
				op = ROCE_OP_SEND_FIRST;
			else if (last)
				op = imm ? ROCE_OP_SEND_LAST_IMM : inv ?
					ROCE_OP_SEND_LAST_INV : ROCE_OP_SEND_LAST;
			else
				op = ROCE_OP_SEND_MIDDLE;
			se = last && (w->flags & ROCE_SWQE_SOLICITED);
		}
		ext.imm = w->imm_inv;
		ext.ieth = w->imm_inv;
		break;
	}
	if (qp->base.qp_type == PRDMA_QPT_RC) {
		/* AckReq where IBA requesters set it: the last packet of a
		 * message, and every ROCE_ACK_EVERY packets within one. */
		if (last || ++qp->pkts_noack >= ROCE_ACK_EVERY || qp->probe_next) {
			ackreq = 1;
			qp->pkts_noack = 0;
		}
	}
	if (qp->base.qp_type == PRDMA_QPT_UD) {
		/* A path per AH and a destination per WR: no QP template. */
		m = roce_frame_start(qp->eng, path, qp->sport, &p);
		if (m == NULL)
			return -ENOBUFS;
		roce_tmpl_bth(p, ROCE_DEFAULT_PKEY, w->remote_qpn);
		/* A controlled Q_Key (MSB set) in the WR means the QP's own. */
		ext.qkey = (w->remote_qkey & 0x80000000u) ? qp->qkey : w->remote_qkey;
		ext.src_qpn = qp->base.qp_num;
	} else {
		m = roce_qp_frame_start(qp, &p);
		if (m == NULL)
			return -ENOBUFS;
	}
	hlen = roce_tmpl_encode(p, (uint8_t)(base | op), se, ackreq, psn, &ext);
	if (pay != 0 && !(w->flags & ROCE_SWQE_INLINE) && roce_zc_wanted(dev, pay) &&
	    qp->base.qp_type != PRDMA_QPT_UD) {
		ret = zc_send(qp, w, m, path, hlen, pay);
		if (ret == 0)
			goto sent;
		if (ret != -ENOBUFS) {
			rte_pktmbuf_free(m);
			return ret;
		}
		/* no reference or mbuf for it now: copy this one */
	}
	if (pay != 0) {
		if (w->flags & ROCE_SWQE_INLINE) {
			memcpy(p + hlen, w->inl + qp->sq_off, pay);
		} else {
			ret = roce_sge_copy_out(dev, qp->base.pd, w->sge, w->num_sge,
						qp->sq_off, p + hlen, pay);
			if (ret < 0) {
				rte_pktmbuf_free(m);
				return -EACCES;
			}
		}
	}
	if (qp->base.qp_type == PRDMA_QPT_UD)
		roce_frame_send(qp->eng, m, path, hlen + pay);
	else
		roce_frame_send_qp(qp, m, hlen + pay);
sent:
	qp->cnt[PRDMA_QP_CNT_TX_PACKETS]++;
	qp->cnt[PRDMA_QP_CNT_TX_BYTES] += pay;
	if (unlikely(qp->probe_next)) {
		/* The probe: counted apart, it is not a retry. */
		qp->probe_next = 0;
		qp->eng->xst.tlp_probes++;
	} else if (roce_psn_cmp(psn, qp->max_psn) < 0) {
		qp->cnt[PRDMA_QP_CNT_RETRANSMITS]++;
		qp->eng->st.dev[PRDMA_DEV_CNT_RETRANSMITS]++;
	} else {
		/* New data: a new tail to probe, and maybe an RTT sample. */
		qp->probe_sent = 0;
		if (ackreq && !qp->rtt_on && qp->base.qp_type == PRDMA_QPT_RC) {
			qp->rtt_on = 1;
			qp->rtt_psn = psn;
			qp->rtt_t0 = rte_rdtsc();
		}
	}
	if (w->opcode == PRDMA_WR_RDMA_READ || is_atomic(w->opcode)) {
		qp->sq_off = 0;
		qp->sq_psn = roce_psn_add(w->last_psn, 1);
		qp->sq_next++;
		if (roce_psn_cmp(qp->sq_psn, qp->max_psn) > 0)
			qp->max_psn = qp->sq_psn;
		return 0;
	}
	qp->sq_off += pay;
	qp->sq_psn = roce_psn_add(psn, 1);
	if (roce_psn_cmp(qp->sq_psn, qp->max_psn) > 0)
		qp->max_psn = qp->sq_psn;
	if (last) {
		qp->sq_off = 0;
		qp->sq_next++;
		if (qp->base.qp_type != PRDMA_QPT_RC)
			w->done = 1;
	}
	return 0;
}

unsigned int
roce_req_tx(struct roce_qp *qp, uint64_t now)
{
	uint8_t state = qp->base.state;
	uint32_t head, budget = qp->rdev->burst, n = 0;
	uint8_t max_rd = RTE_MAX(qp->max_rd_atomic, (uint8_t)1);

	if ((state != PRDMA_QPS_RTS && state != PRDMA_QPS_SQD) || qp->in_rnr_wait ||
	    qp->tx_halt)
		return 0;
	/* acquire: pairs with post_send's release of sq_head */
	head = __atomic_load_n(&qp->sq_head, __ATOMIC_ACQUIRE);
	while (qp->sq_next != head && n < budget) {
		struct roce_swqe *w = &qp->sq[qp->sq_next & qp->sq_mask];
		int ret;

		if (w->done) {
			if (w->started && !is_local(w->opcode))
				qp->sq_psn = roce_psn_add(w->last_psn, 1);
			qp->sq_off = 0;
			qp->sq_next++;
			continue;
		}
		if (!w->started) {
			if (state == PRDMA_QPS_SQD)
				break;
			if ((w->flags & ROCE_SWQE_FENCE) && qp->rd_out != 0)
				break;
			if (is_local(w->opcode)) {
				int st;

				if (w->opcode == PRDMA_WR_BIND_MW)
					st = roce_mw_bind_exec(qp, w);
				else
					st = roce_key_invalidate(qp->rdev, w->imm_inv,
								 qp->base.pd,
								 qp->base.qp_num) == 0 ?
						PRDMA_WC_SUCCESS : PRDMA_WC_LOC_QP_OP_ERR;
				w->started = 1;
				w->done = 1;
				w->status = (uint8_t)st;
				qp->sq_next++;
				if (st != PRDMA_WC_SUCCESS) {
					qp->tx_halt = 1;
					break;
				}
				continue;
			}
			if (is_rd_atomic(w->opcode) && qp->rd_out >= max_rd)
				break;
			/* New work takes PSNs never used, even right after a
			 * go-back-N whose tail was acknowledged meanwhile. */
			qp->sq_psn = qp->max_psn;
			w->first_psn = qp->sq_psn;
			w->last_psn = roce_psn_add(w->first_psn, wqe_npkts(qp, w) - 1);
			w->resp_psn = w->first_psn;
			w->rereq = 0;
			w->started = 1;
			qp->sq_off = 0;
			/* In flight until answered, however often it is resent. */
			if (is_rd_atomic(w->opcode))
				qp->rd_out++;
		}
		/*
		 * RC keeps at most ROCE_MAX_UNACKED_PSNS packets beyond the
		 * oldest unacknowledged PSN in flight, as rxe's requester does
		 * (rxe_req.c: wait while req.psn > comp.psn + 128) and as
		 * hardware bounds its window: a loss then costs one window of
		 * go-back-N, not the whole send queue's packets.
		 */
		if (qp->base.qp_type == PRDMA_QPT_RC &&
		    roce_psn_cmp(qp->sq_psn, roce_psn_add(qp->una_psn,
							   ROCE_MAX_UNACKED_PSNS)) > 0)
			break;
		if (qp->base.qp_type == PRDMA_QPT_UD && w->length > qp->mtu) {
			fail_wqe(qp, w, PRDMA_WC_LOC_LEN_ERR);
			break;
		}
		if (unlikely(qp->cc.limited)) {
			uint64_t sent = qp->cnt[PRDMA_QP_CNT_TX_BYTES];

			if (now == 0)
				now = rte_rdtsc();
			if (now < qp->cc.next_tx)
				break;
			ret = send_packet(qp, w);
			if (ret == 0)
				roce_cc_paced(qp, now, (uint32_t)(qp->cnt[PRDMA_QP_CNT_TX_BYTES] -
								 sent) + 64);
		} else {
			ret = send_packet(qp, w);
		}
		if (ret == -ENOBUFS)
			break;
		if (ret < 0) {
			fail_wqe(qp, w, PRDMA_WC_LOC_PROT_ERR);
			break;
		}
		n++;
	}
	if (n != 0 && qp->base.qp_type == PRDMA_QPT_RC && qp->timeout != 0) {
		if (now == 0)
			now = rte_rdtsc();
		/* The probe counts from the last transmission (the tail). */
		if (qp->timer_tsc == 0)
			timer_restart(qp, now);
		else
			probe_arm(qp, now);
	}
	return n;
}

/*
 * After a go-back-N, an ACK sent for the first transmission may cover
 * work queued for resending: do not send it again.
 */
static void
skip_acked(struct roce_qp *qp)
{
	while (qp->sq_next != sq_head_acquire(qp)) {
		struct roce_swqe *w = &qp->sq[qp->sq_next & qp->sq_mask];

		if (!w->started || !w->done || is_local(w->opcode))
			break;
		qp->sq_psn = roce_psn_add(w->last_psn, 1);
		qp->sq_off = 0;
		qp->sq_next++;
	}
}

/* Every SEND/WRITE up to @psn is acknowledged. */
static void
ack_upto(struct roce_qp *qp, uint32_t psn, uint64_t now)
{
	uint32_t i, una = roce_psn_add(psn, 1);

	/* To sq_head, not sq_next: after a go-back-N the answers to the
	 * first transmission still count. */
	for (i = qp->sq_tail; i != sq_head_acquire(qp); i++) {
		struct roce_swqe *w = &qp->sq[i & qp->sq_mask];

		if (w->done)
			continue;
		if (!w->started || roce_psn_cmp(w->last_psn, psn) > 0)
			break;
		if (is_rd_atomic(w->opcode)) {
			/* Acked past a READ/atomic whose response never came:
			 * ask again, once per gap (later ACKs say the same);
			 * the timer restarts from it if that is lost too. */
			una = w->resp_psn;
			if (!w->rereq || w->rereq_psn != w->resp_psn) {
				w->rereq = 1;
				w->rereq_psn = w->resp_psn;
				rewind_to(qp, w->resp_psn);
			}
			break;
		}
		w->done = 1;
	}
	rtt_answered(qp, psn, now);
	if (roce_psn_cmp(una, qp->una_psn) > 0) {
		qp->una_psn = una;
		if (qp->probe_sent && roce_psn_cmp(psn, qp->probe_psn) >= 0) {
			/* The probed tail is acknowledged, no timeout needed. */
			qp->eng->xst.tlp_acked++;
		}
		qp->probe_sent = 0;
	}
	skip_acked(qp);
	qp->retry_left = qp->retry_cnt;
	timer_restart(qp, now);
}

/* The oldest unfinished, started WQE. */
static struct roce_swqe *
oldest(struct roce_qp *qp)
{
	uint32_t i;

	for (i = qp->sq_tail; i != qp->sq_next + (qp->sq_off != 0); i++) {
		struct roce_swqe *w = &qp->sq[i & qp->sq_mask];

		if (!w->done && w->started)
			return w;
	}
	return NULL;
}

static void
rx_ack(struct roce_qp *qp, struct roce_pkt *pkt, uint64_t now)
{
	uint32_t psn = pkt->bth.psn;
	uint8_t syn = pkt->ext.syndrome;
	struct roce_swqe *w;
	enum prdma_wc_status st;

	switch (syn & ROCE_AETH_TYPE_MASK) {
	case ROCE_AETH_ACK:
		ack_upto(qp, psn, now);
		qp->rnr_left = qp->rnr_retry;
		return;
	case ROCE_AETH_RNR_NAK:
		qp->cnt[PRDMA_QP_CNT_RNR_NAK_RCVD]++;
		qp->eng->st.dev[PRDMA_DEV_CNT_RNR_EVENTS]++;
		qp->eng->st.dev[PRDMA_DEV_CNT_NAKS_RECEIVED]++;
		ack_upto(qp, roce_psn_add(psn, ROCE_PSN_MASK), now);
		w = oldest(qp);
		if (w == NULL)
			return;
		if (qp->rnr_retry != 7) {
			if (qp->rnr_left == 0) {
				fail_wqe(qp, w, PRDMA_WC_RNR_RETRY_EXC_ERR);
				return;
			}
			qp->rnr_left--;
		}
		qp->in_rnr_wait = 1;
		qp->rnr_psn = psn;
		qp->rnr_tsc = now + us_to_tsc(qp->rdev, roce_rnr_timer_us(syn & 0x1f));
		qp->timer_tsc = 0;
		return;
	case ROCE_AETH_NAK:
		break;
	default:
		return; /* reserved type: ignore */
	}
	qp->eng->st.dev[PRDMA_DEV_CNT_NAKS_RECEIVED]++;
	ack_upto(qp, roce_psn_add(psn, ROCE_PSN_MASK), now);
	w = oldest(qp);
	switch (syn) {
	case ROCE_NAK_PSN_SEQ:
		qp->cnt[PRDMA_QP_CNT_NAK_SEQ_RCVD]++;
		if (w == NULL)
			return;
		if (qp->retry_left == 0) {
			fail_wqe(qp, w, PRDMA_WC_RETRY_EXC_ERR);
			return;
		}
		qp->retry_left--;
		rewind_to(qp, psn);
		timer_restart(qp, now);
		return;
	case ROCE_NAK_INV_REQ:
		qp->cnt[PRDMA_QP_CNT_NAK_INV_RCVD]++;
		st = PRDMA_WC_REM_INV_REQ_ERR;
		break;
	case ROCE_NAK_REM_ACCESS:
		qp->cnt[PRDMA_QP_CNT_NAK_ACC_RCVD]++;
		st = PRDMA_WC_REM_ACCESS_ERR;
		break;
	default:
		qp->cnt[PRDMA_QP_CNT_NAK_OP_RCVD]++;
		st = PRDMA_WC_REM_OP_ERR;
		break;
	}
	if (w != NULL)
		fail_wqe(qp, w, st);
}

static void
rx_read_resp(struct roce_qp *qp, struct roce_pkt *pkt, uint64_t now)
{
	uint32_t psn = pkt->bth.psn, off, i;
	struct roce_swqe *w = NULL;

	for (i = qp->sq_tail; i != sq_head_acquire(qp); i++) {
		struct roce_swqe *o = &qp->sq[i & qp->sq_mask];

		if (!o->started)
			break;
		if (o->done)
			continue;
		if (o->opcode == PRDMA_WR_RDMA_READ) {
			w = o;
			break;
		}
		/* A response implicitly acknowledges what precedes it. */
		if (!is_rd_atomic(o->opcode) && roce_psn_cmp(o->last_psn, psn) < 0) {
			o->done = 1;
			continue;
		}
		break;
	}
	if (w == NULL || roce_psn_cmp(psn, w->first_psn) < 0 ||
	    roce_psn_cmp(psn, w->last_psn) > 0)
		return; /* stale or unexpected */
	if (psn != w->resp_psn) {
		if (roce_psn_cmp(psn, w->resp_psn) > 0) {
			/* A response was lost: ask again from the missing one, once
			 * per gap (the timer covers a lost re-request). */
			qp->cnt[PRDMA_QP_CNT_OUT_OF_SEQUENCE]++;
			if (!w->rereq || w->rereq_psn != w->resp_psn) {
				w->rereq = 1;
				w->rereq_psn = w->resp_psn;
				rewind_to(qp, w->resp_psn);
			}
		}
		return;
	}
	off = roce_psn_diff(psn, w->first_psn) * qp->mtu;
	if (((pkt->flags & (ROCE_F_FIRST | ROCE_F_MIDDLE)) && !(pkt->flags & ROCE_F_LAST) &&
	     pkt->paylen != qp->mtu) || off + pkt->paylen > w->length ||
	    ((pkt->flags & ROCE_F_LAST) && off + pkt->paylen != w->length)) {
		fail_wqe(qp, w, PRDMA_WC_BAD_RESP_ERR);
		return;
	}
	if (pkt->paylen != 0 &&
	    roce_sge_copy_in(qp->rdev, qp->base.pd, w->sge, w->num_sge, off,
			     pkt->payload, pkt->paylen) < 0) {
		fail_wqe(qp, w, PRDMA_WC_LOC_PROT_ERR);
		return;
	}
	qp->cnt[PRDMA_QP_CNT_RX_PACKETS]++;
	qp->cnt[PRDMA_QP_CNT_RX_BYTES] += pkt->paylen;
	w->resp_psn = roce_psn_add(psn, 1);
	rtt_answered(qp, psn, now);
	if (roce_psn_cmp(psn, qp->una_psn) >= 0) {
		qp->una_psn = roce_psn_add(psn, 1);
		qp->probe_sent = 0;
	}
	qp->retry_left = qp->retry_cnt;
	if (pkt->flags & ROCE_F_LAST) {
		w->done = 1;
		if (qp->rd_out > 0)
			qp->rd_out--;
	}
	timer_restart(qp, now);
}

static void
rx_atomic_ack(struct roce_qp *qp, struct roce_pkt *pkt, uint64_t now)
{
	uint32_t psn = pkt->bth.psn, i;
	struct roce_swqe *w = NULL;
	uint64_t orig = pkt->ext.orig;

	for (i = qp->sq_tail; i != sq_head_acquire(qp); i++) {
		struct roce_swqe *o = &qp->sq[i & qp->sq_mask];

		if (!o->started)
			break;
		if (o->done)
			continue;
		if (is_atomic(o->opcode)) {
			w = o;
			break;
		}
		if (o->opcode != PRDMA_WR_RDMA_READ && roce_psn_cmp(o->last_psn, psn) < 0) {
			o->done = 1;
			continue;
		}
		break;
	}
	if (w == NULL || w->first_psn != psn)
		return;
	if (roce_sge_copy_in(qp->rdev, qp->base.pd, w->sge, w->num_sge, 0,
			     (const uint8_t *)&orig, 8) < 0) {
		fail_wqe(qp, w, PRDMA_WC_LOC_PROT_ERR);
		return;
	}
	w->done = 1;
	if (qp->rd_out > 0)
		qp->rd_out--;
	rtt_answered(qp, psn, now);
	if (roce_psn_cmp(psn, qp->una_psn) >= 0) {
		qp->una_psn = roce_psn_add(psn, 1);
		qp->probe_sent = 0;
	}
	qp->retry_left = qp->retry_cnt;
	timer_restart(qp, now);
}

void
roce_req_rx(struct roce_qp *qp, struct roce_pkt *pkt, uint64_t now)
{
	uint8_t state = qp->base.state;
	uint32_t psn = pkt->bth.psn;

	if (state != PRDMA_QPS_RTS && state != PRDMA_QPS_SQD) {
		qp->eng->st.drop.qp_state++;
		return;
	}
	/* Only PSNs we have sent can be answered. */
	if (roce_psn_cmp(psn, qp->max_psn) >= 0 && !(pkt->flags & ROCE_F_READ)) {
		qp->cnt[PRDMA_QP_CNT_OUT_OF_SEQUENCE]++;
		return;
	}
	switch (pkt->bth.opcode & 0x1f) {
	case ROCE_OP_ACK:
		rx_ack(qp, pkt, now);
		break;
	case ROCE_OP_ATOMIC_ACK:
		rx_atomic_ack(qp, pkt, now);
		break;
	default:
		rx_read_resp(qp, pkt, now);
		break;
	}
	roce_req_complete(qp);
}

void
roce_req_timers(struct roce_qp *qp, uint64_t now)
{
	struct roce_swqe *w;

	if (qp->base.state != PRDMA_QPS_RTS && qp->base.state != PRDMA_QPS_SQD)
		return;
	if (qp->in_rnr_wait) {
		if (now < qp->rnr_tsc)
			return;
		qp->in_rnr_wait = 0;
		rewind_to(qp, qp->rnr_psn);
		timer_restart(qp, now);
		return;
	}
	if (qp->timer_tsc == 0)
		return;
	if (now < qp->timer_tsc) {
		if (qp->probe_tsc == 0 || now < qp->probe_tsc)
			return;
		qp->probe_tsc = 0;
		if (qp->probe_sent || roce_psn_cmp(qp->una_psn, qp->max_psn) >= 0 ||
		    oldest(qp) == NULL)
			return;
		qp->probe_sent = 1;
		qp->probe_psn = roce_psn_add(qp->max_psn, ROCE_PSN_MASK);
		qp->probe_next = (uint8_t)rewind_to(qp, qp->probe_psn);
		return;
	}
	qp->probe_tsc = 0;
	qp->probe_next = 0;
	qp->probe_sent = 0; /* the resent tail may be probed again */
	w = oldest(qp);
	if (w == NULL) {
		qp->timer_tsc = 0;
		return;
	}
	qp->cnt[PRDMA_QP_CNT_TIMEOUTS]++;
	if (qp->retry_left == 0) {
		fail_wqe(qp, w, PRDMA_WC_RETRY_EXC_ERR);
		return;
	}
	qp->retry_left--;
	rewind_to(qp, qp->una_psn);
	/* Nothing came back for a whole timeout: wait longer for the next
	 * (unless rto_backoff=0: the QP's timeout exactly, as an HCA). */
	if (qp->rdev->cfg.rto_backoff && qp->rto_shift < ROCE_RTO_BACKOFF_EXP)
		qp->rto_shift++;
	qp->timer_tsc = now + roce_rto_tsc(qp);
}
