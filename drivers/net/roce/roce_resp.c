/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The responder: PSN and opcode-sequence checks, access checks, placement
 * of SEND and WRITE data, READ and atomic execution with responder
 * resources kept for duplicates, and the queue of ACKs/NAKs/READ
 * responses sent back in PSN order (roce-wire-facts.md §6, §8).
 */

#include <errno.h>
#include <string.h>

#include "roce.h"

#define OUTQ_MASK (qp->out_mask)

static struct roce_out *
out_push(struct roce_qp *qp)
{
	struct roce_out *o;

	if (qp->out_head - qp->out_tail > qp->out_mask)
		return NULL;
	o = &qp->outq[qp->out_head & OUTQ_MASK];
	memset(o, 0, sizeof(*o));
	qp->out_head++;
	return o;
}

/*
 * Queue a plain ACK of @psn. @lazy: no AckReq asked for it (the engine
 * may hold it to its deadline); @now_: a duplicate's answer, which never
 * waits (the requester probes or retries for it). Returns the queued
 * ACK, or NULL when the response queue is full.
 */
static struct roce_out *
send_ack(struct roce_qp *qp, uint32_t psn, int lazy, int now_)
{
	struct roce_out *o;

	/* Coalesce with a queued plain ACK: a later ACK covers it. */
	if (qp->out_head != qp->out_tail) {
		o = &qp->outq[(qp->out_head - 1) & OUTQ_MASK];
		if (o->kind == ROCE_OUT_ACK && o->syndrome == ROCE_AETH_ACK_NOCREDIT) {
			o->psn = psn;
			o->msn = qp->msn;
			o->lazy &= (uint8_t)lazy;
			o->replay |= (uint8_t)now_;
			return o;
		}
	}
	o = out_push(qp);
	if (o == NULL)
		return NULL;
	o->kind = ROCE_OUT_ACK;
	o->syndrome = ROCE_AETH_ACK_NOCREDIT;
	o->psn = psn;
	o->msn = qp->msn;
	o->lazy = (uint8_t)lazy;
	o->replay = (uint8_t)now_;
	return o;
}

static void
send_nak(struct roce_qp *qp, uint32_t psn, uint8_t syndrome)
{
	struct roce_out *o = out_push(qp);

	qp->eng->st.dev[PRDMA_DEV_CNT_NAKS_SENT]++;
	switch (syndrome) {
	case ROCE_NAK_PSN_SEQ:
		qp->cnt[PRDMA_QP_CNT_NAK_SEQ_SENT]++;
		break;
	case ROCE_NAK_INV_REQ:
		qp->cnt[PRDMA_QP_CNT_NAK_INV_SENT]++;
		break;
	case ROCE_NAK_REM_ACCESS:
		qp->cnt[PRDMA_QP_CNT_NAK_ACC_SENT]++;
		break;
	case ROCE_NAK_REM_OP:
		qp->cnt[PRDMA_QP_CNT_NAK_OP_SENT]++;
		break;
	default:
		qp->cnt[PRDMA_QP_CNT_RNR_NAK_SENT]++;
		qp->eng->st.dev[PRDMA_DEV_CNT_RNR_EVENTS]++;
		break;
	}
	if (o == NULL)
		return;
	o->kind = ROCE_OUT_ACK;
	o->syndrome = syndrome;
	o->psn = psn;
	o->msn = qp->msn;
}

static void
recv_wc(struct roce_qp *qp, enum prdma_wc_status status, enum prdma_wc_opcode op,
	uint32_t byte_len, const struct roce_pkt *pkt)
{
	/* written in its CQ slot: no copy on the way */
	struct prdma_wc *wc = roce_cq_stage(qp->rcq);

	qp->have_rwqe = 0;
	if (wc == NULL)
		return;             /* overrun: lost, as the CQ reported */
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = qp->cur_rwqe.wr_id;
	wc->status = status;
	wc->opcode = op;
	wc->byte_len = byte_len;
	wc->qp_num = qp->base.qp_num;
	if (pkt != NULL && status == PRDMA_WC_SUCCESS) {
		if (pkt->flags & ROCE_F_IMM) {
			wc->wc_flags |= PRDMA_WC_WITH_IMM;
			wc->imm_data = pkt->ext.imm;
		} else if (pkt->flags & ROCE_F_IETH) {
			wc->wc_flags |= PRDMA_WC_WITH_INV;
			wc->invalidated_rkey = pkt->ext.ieth;
		}
		if (pkt->bth.se)
			wc->wc_flags |= PRDMA_WC_SOLICITED;
		if (qp->base.qp_type == PRDMA_QPT_UD) {
			wc->src_qp = pkt->ext.src_qpn;
			wc->wc_flags |= PRDMA_WC_GRH;
		}
	}
	/* an error too: the QP's flush that follows publishes it in order */
	roce_cq_commit_rx(qp->eng, qp->rcq);
}

/* A fatal responder error: NAK, then the QP goes to ERR. */
static void
resp_fatal(struct roce_qp *qp, uint32_t psn, uint8_t nak, enum prdma_event_type ev)
{
	if (qp->base.qp_type == PRDMA_QPT_RC)
		send_nak(qp, psn, nak);
	qp->resp_op = 0;
	roce_qp_error(qp, ev);
}

static int
take_rwqe(struct roce_qp *qp)
{
	if (qp->have_rwqe)
		return 0;
	if (roce_recv_take(qp) == NULL)
		return -ENOENT;
	qp->have_rwqe = 1;
	qp->rcv_off = 0;
	return 0;
}

static void
comm_est(struct roce_qp *qp)
{
	if (qp->base.state == PRDMA_QPS_RTR && !qp->comm_est_sent) {
		qp->comm_est_sent = 1;
		roce_qp_event(qp, PRDMA_EVENT_COMM_EST);
	}
}

/* Payload of a SEND into the receive WQE; 0 or a completion status. */
static int
place_send(struct roce_qp *qp, const struct roce_pkt *pkt)
{
	int ret;

	if (pkt->paylen == 0)
		return PRDMA_WC_SUCCESS;
	ret = roce_sge_copy_in(qp->rdev, qp->base.pd, qp->cur_rwqe.sge,
			       qp->cur_rwqe.num_sge, qp->rcv_off, pkt->payload,
			       pkt->paylen);
	if (ret == -EMSGSIZE)
		return PRDMA_WC_LOC_LEN_ERR;
	if (ret < 0)
		return PRDMA_WC_LOC_PROT_ERR;
	qp->rcv_off += pkt->paylen;
	return PRDMA_WC_SUCCESS;
}

static int
length_ok(const struct roce_qp *qp, const struct roce_pkt *pkt)
{
	uint32_t f = pkt->flags;

	if (!(f & ROCE_F_PAYLOAD))
		return 1;
	if ((f & ROCE_F_ONLY) == ROCE_F_ONLY)
		return pkt->paylen <= qp->mtu;
	if (f & ROCE_F_LAST)
		return pkt->paylen >= 1 && pkt->paylen <= qp->mtu;
	return pkt->paylen == qp->mtu;
}

/* Drop the queued answers to requests from @psn on. */
static void
out_truncate(struct roce_qp *qp, uint32_t psn)
{
	uint32_t i, keep = qp->out_tail;

	for (i = qp->out_tail; i != qp->out_head; i++) {
		struct roce_out *o = &qp->outq[i & OUTQ_MASK];
		uint32_t start = o->kind == ROCE_OUT_ACK ? o->psn : o->first_psn;

		if (roce_psn_cmp(start, psn) >= 0)
			continue;
		if (i != keep)
			qp->outq[keep & OUTQ_MASK] = *o;
		keep++;
	}
	qp->out_head = keep;
}

/* Duplicate request on RC (C9-105 and the READ/atomic replay rules). */
static void
rc_duplicate(struct roce_qp *qp, struct roce_pkt *pkt)
{
	uint32_t psn = pkt->bth.psn, i;

	qp->cnt[PRDMA_QP_CNT_DUPLICATES]++;
	qp->eng->st.dev[PRDMA_DEV_CNT_DUPLICATES]++;
	if (pkt->flags & (ROCE_F_READ | ROCE_F_ATOMIC)) {
		for (i = 0; i < qp->res_cap; i++) {
			struct roce_res *r = &qp->res[i];
			struct roce_out *o;

			if (!r->valid || roce_psn_cmp(psn, r->first_psn) < 0 ||
			    roce_psn_cmp(psn, r->last_psn) > 0)
				continue;
			if (r->atomic != !!(pkt->flags & ROCE_F_ATOMIC))
				return;
			if (r->atomic && psn != r->first_psn)
				return;
			if (!r->atomic &&
			    (pkt->ext.rkey != r->rkey || pkt->ext.va < r->va ||
			     pkt->ext.va + pkt->ext.dma_len > r->va + r->len))
				return; /* not a subset of the original READ */
			/*
			 * The requester went back to @psn and resends what
			 * follows: answers queued from @psn on would only hold
			 * this one back (responses leave in PSN order).
			 */
			out_truncate(qp, psn);
			o = out_push(qp);
			if (o == NULL)
				return;
			o->replay = 1;
			o->first_psn = psn;
			o->psn = psn;
			o->msn = r->msn;
			if (r->atomic) {
				o->kind = ROCE_OUT_ATOMIC;
				o->orig = r->orig;
				return;
			}
			o->kind = ROCE_OUT_READ;
			o->va = pkt->ext.va;
			o->rkey = pkt->ext.rkey;
			o->len = pkt->ext.dma_len;
			return;
		}
		return; /* resource gone: drop */
	}
	send_ack(qp, roce_psn_add(qp->epsn, ROCE_PSN_MASK), 0, 1);
}

static struct roce_res *
res_alloc(struct roce_qp *qp)
{
	uint32_t n = RTE_MAX(qp->max_dest_rd_atomic, (uint8_t)1);
	struct roce_res *r = &qp->res[qp->res_next % n];

	qp->res_next++;
	memset(r, 0, sizeof(*r));
	r->valid = 1;
	return r;
}

/* READ/atomic requests not yet answered. */
static uint32_t
rd_pending(const struct roce_qp *qp)
{
	uint32_t i, n = 0;

	for (i = qp->out_tail; i != qp->out_head; i++)
		if (qp->outq[i & OUTQ_MASK].kind != ROCE_OUT_ACK &&
		    !qp->outq[i & OUTQ_MASK].replay)
			n++;
	return n;
}

static void
rc_read(struct roce_qp *qp, struct roce_pkt *pkt)
{
	uint32_t psn = pkt->bth.psn, len = pkt->ext.dma_len, n;
	struct roce_res *r;
	struct roce_out *o;

	if (!(qp->access & PRDMA_ACCESS_REMOTE_READ)) {
		resp_fatal(qp, psn, ROCE_NAK_REM_ACCESS, PRDMA_EVENT_QP_ACCESS_ERR);
		return;
	}
	if (len > ROCE_MAX_MSG ||
	    rd_pending(qp) >= (uint32_t)RTE_MAX(qp->max_dest_rd_atomic, 1)) {
		resp_fatal(qp, psn, ROCE_NAK_INV_REQ, PRDMA_EVENT_QP_REQ_ERR);
		return;
	}
	if (len != 0 && roce_key_check(qp->rdev, pkt->ext.rkey, qp->base.pd,
				       qp->base.qp_num, pkt->ext.va, len,
				       PRDMA_ACCESS_REMOTE_READ, 1, NULL) < 0) {
		resp_fatal(qp, psn, ROCE_NAK_REM_ACCESS, PRDMA_EVENT_QP_ACCESS_ERR);
		return;
	}
	n = len == 0 ? 1 : (len + qp->mtu - 1) / qp->mtu;
	qp->msn = (qp->msn + 1) & ROCE_PSN_MASK;
	r = res_alloc(qp);
	r->first_psn = psn;
	r->last_psn = roce_psn_add(psn, n - 1);
	r->va = pkt->ext.va;
	r->rkey = pkt->ext.rkey;
	r->len = len;
	r->msn = qp->msn;
	o = out_push(qp);
	if (o != NULL) {
		o->kind = ROCE_OUT_READ;
		o->psn = psn;
		o->first_psn = psn;
		o->va = pkt->ext.va;
		o->rkey = pkt->ext.rkey;
		o->len = len;
		o->msn = qp->msn;
	}
	qp->epsn = roce_psn_add(psn, n);
}

static void
rc_atomic(struct roce_qp *qp, struct roce_pkt *pkt)
{
	uint32_t psn = pkt->bth.psn;
	struct roce_res *r;
	struct roce_out *o;
	uint64_t *p, orig;

	if (!(qp->access & PRDMA_ACCESS_REMOTE_ATOMIC)) {
		resp_fatal(qp, psn, ROCE_NAK_REM_ACCESS, PRDMA_EVENT_QP_ACCESS_ERR);
		return;
	}
	if ((pkt->ext.va & 7) != 0 ||
	    rd_pending(qp) >= (uint32_t)RTE_MAX(qp->max_dest_rd_atomic, 1)) {
		resp_fatal(qp, psn, ROCE_NAK_INV_REQ, PRDMA_EVENT_QP_REQ_ERR);
		return;
	}
	if (roce_key_check(qp->rdev, pkt->ext.rkey, qp->base.pd, qp->base.qp_num,
			   pkt->ext.va, 8, PRDMA_ACCESS_REMOTE_ATOMIC, 1, NULL) < 0) {
		resp_fatal(qp, psn, ROCE_NAK_REM_ACCESS, PRDMA_EVENT_QP_ACCESS_ERR);
		return;
	}
	p = (uint64_t *)(uintptr_t)pkt->ext.va;
	if ((pkt->bth.opcode & 0x1f) == ROCE_OP_CMP_SWAP) {
		orig = pkt->ext.compare;
		/* Atomic against local CPU users of the same word. */
		__atomic_compare_exchange_n(p, &orig, pkt->ext.swap_add, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(p, pkt->ext.swap_add, __ATOMIC_SEQ_CST);
	}
	qp->msn = (qp->msn + 1) & ROCE_PSN_MASK;
	r = res_alloc(qp);
	r->atomic = 1;
	r->first_psn = psn;
	r->last_psn = psn;
	r->va = pkt->ext.va;
	r->rkey = pkt->ext.rkey;
	r->orig = orig;
	r->msn = qp->msn;
	o = out_push(qp);
	if (o != NULL) {
		o->kind = ROCE_OUT_ATOMIC;
		o->psn = psn;
		o->msn = qp->msn;
		o->orig = orig;
	}
	qp->epsn = roce_psn_add(psn, 1);
}

/*
 * SEND and WRITE packets of RC and UC. Returns 0 when accepted, or the
 * NAK code (RC) of the failure; an RNR returns ROCE_AETH_RNR_NAK.
 */
static int
send_write(struct roce_qp *qp, struct roce_pkt *pkt, enum prdma_event_type *ev)
{
	uint32_t f = pkt->flags;
	int st;

	*ev = PRDMA_EVENT_QP_REQ_ERR;
	if (!length_ok(qp, pkt))
		return ROCE_NAK_INV_REQ;
	if (f & ROCE_F_SEND) {
		if ((f & ROCE_F_FIRST) && take_rwqe(qp) < 0)
			return ROCE_AETH_RNR_NAK;
		if (!qp->have_rwqe)
			return ROCE_NAK_INV_REQ;
		st = place_send(qp, pkt);
		if (st != PRDMA_WC_SUCCESS) {
			recv_wc(qp, (enum prdma_wc_status)st, PRDMA_WC_RECV, qp->rcv_off, NULL);
			*ev = PRDMA_EVENT_MAX;
			return st == PRDMA_WC_LOC_LEN_ERR ? ROCE_NAK_INV_REQ : ROCE_NAK_REM_OP;
		}
		if (f & ROCE_F_LAST) {
			/*
			 * A key the peer may not invalidate (a region, a type 1
			 * window, another QP's window): the receive completes
			 * in error, the requester gets an invalid request NAK
			 * and the QP goes to ERR, as IBA and Linux rxe do.
			 */
			if ((f & ROCE_F_IETH) &&
			    roce_key_invalidate_remote(qp->rdev, pkt->ext.ieth, qp->base.pd,
						       qp->base.qp_num) < 0) {
				recv_wc(qp, PRDMA_WC_REM_INV_REQ_ERR, PRDMA_WC_RECV,
					qp->rcv_off, NULL);
				*ev = PRDMA_EVENT_MAX;
				return ROCE_NAK_INV_REQ;
			}
			recv_wc(qp, PRDMA_WC_SUCCESS, PRDMA_WC_RECV, qp->rcv_off, pkt);
			qp->resp_op = 0;
			qp->msn = (qp->msn + 1) & ROCE_PSN_MASK;
		} else {
			qp->resp_op = ROCE_F_SEND >> 8;
		}
		return 0;
	}
	/* WRITE */
	if (!(f & ROCE_F_FIRST) && qp->wr_key != NULL &&
	    unlikely(qp->wr_key->gen != qp->wr_gen)) {
		/*
		 * The key this WRITE was checked against on its FIRST packet
		 * was deregistered, invalidated, rebound or deallocated since:
		 * not one more byte lands.
		 */
		*ev = PRDMA_EVENT_QP_ACCESS_ERR;
		return ROCE_NAK_REM_ACCESS;
	}
	if (f & ROCE_F_FIRST) {
		if (!(qp->access & PRDMA_ACCESS_REMOTE_WRITE)) {
			*ev = PRDMA_EVENT_QP_ACCESS_ERR;
			return ROCE_NAK_REM_ACCESS;
		}
		if (pkt->ext.dma_len > ROCE_MAX_MSG ||
		    ((f & ROCE_F_LAST) && pkt->ext.dma_len != pkt->paylen) ||
		    (!(f & ROCE_F_LAST) && pkt->ext.dma_len <= qp->mtu))
			return ROCE_NAK_INV_REQ;
		qp->wr_key = NULL;
		if (pkt->ext.dma_len != 0 &&
		    roce_key_check(qp->rdev, pkt->ext.rkey, qp->base.pd, qp->base.qp_num,
				   pkt->ext.va, pkt->ext.dma_len,
				   PRDMA_ACCESS_REMOTE_WRITE, 1, &qp->wr_key) < 0) {
			*ev = PRDMA_EVENT_QP_ACCESS_ERR;
			return ROCE_NAK_REM_ACCESS;
		}
		if (qp->wr_key != NULL)
			qp->wr_gen = qp->wr_key->gen;
		qp->wr_va = pkt->ext.va;
		qp->wr_resid = pkt->ext.dma_len;
		qp->wr_len = pkt->ext.dma_len;
	}
	if (pkt->paylen > qp->wr_resid ||
	    ((f & ROCE_F_LAST) && pkt->paylen != qp->wr_resid))
		return ROCE_NAK_INV_REQ;
	/* The immediate needs a receive WQE: check before placing anything. */
	if ((f & ROCE_F_IMM) && take_rwqe(qp) < 0)
		return ROCE_AETH_RNR_NAK;
	if (pkt->paylen != 0) {
		if (!pkt->placed)
			memcpy((void *)(uintptr_t)qp->wr_va, pkt->payload, pkt->paylen);
		qp->wr_va += pkt->paylen;
		qp->wr_resid -= pkt->paylen;
	}
	if (f & ROCE_F_LAST) {
		if (f & ROCE_F_IMM)
			recv_wc(qp, PRDMA_WC_SUCCESS, PRDMA_WC_RECV_RDMA_WITH_IMM,
				qp->wr_len, pkt);
		qp->resp_op = 0;
		qp->msn = (qp->msn + 1) & ROCE_PSN_MASK;
	} else {
		qp->resp_op = ROCE_F_WRITE >> 8;
	}
	return 0;
}

/* A frame whose ICRC failed: dropped as the engine drops it. */
static void
icrc_drop(struct roce_qp *qp)
{
	qp->eng->st.drop.bad_icrc++;
	qp->eng->st.dev[PRDMA_DEV_CNT_ICRC_DROPS]++;
}

/*
 * The ICRC the engine left to us (an RC WRITE MIDDLE): when the
 * packet is the expected one and send_write() will place it, copy its
 * payload to the message's next bytes while checking it, in one pass;
 * else check it alone. Either way before anything acts on the packet: a
 * bad one (-1) changes nothing but those bytes of the message in progress,
 * which its resend writes again.
 */
static int
write_in_place(struct roce_qp *qp, struct roce_pkt *pkt, int32_t d)
{
	uint32_t f = pkt->flags;
	enum roce_rx_verdict v;

	pkt->icrc_deferred = 0;
	if (d == 0 && qp->resp_op == (ROCE_F_WRITE >> 8) && length_ok(qp, pkt) &&
	    (qp->wr_key == NULL || qp->wr_key->gen == qp->wr_gen) &&
	    pkt->paylen < qp->wr_resid && !(f & ROCE_F_LAST)) {
		v = roce_pkt_icrc_copy(pkt, (void *)(uintptr_t)qp->wr_va);
		pkt->placed = v == ROCE_RX_OK;
	} else {
		v = roce_pkt_icrc_check(pkt);
	}
	if (likely(v == ROCE_RX_OK))
		return 0;
	icrc_drop(qp);
	return -1;
}

static int
sequence_ok(const struct roce_qp *qp, uint32_t f)
{
	if (qp->resp_op != 0)
		return (f & (ROCE_F_MIDDLE | ROCE_F_LAST)) && !(f & ROCE_F_FIRST) &&
			(f & ((uint32_t)qp->resp_op << 8));
	return (f & ROCE_F_FIRST) != 0;
}

static void
rc_rx(struct roce_qp *qp, struct roce_pkt *pkt)
{
	uint32_t psn = pkt->bth.psn, f = pkt->flags;
	enum prdma_event_type ev;
	int32_t d = roce_psn_cmp(psn, qp->epsn);
	int ret;

	if (pkt->icrc_deferred && write_in_place(qp, pkt, d) < 0)
		return;
	if (d > 0) {
		qp->cnt[PRDMA_QP_CNT_OUT_OF_SEQUENCE]++;
		qp->eng->st.dev[PRDMA_DEV_CNT_OUT_OF_SEQUENCE]++;
		if (!qp->nak_sent) {
			qp->nak_sent = 1;
			send_nak(qp, qp->epsn, ROCE_NAK_PSN_SEQ);
		}
		return;
	}
	if (d < 0) {
		rc_duplicate(qp, pkt);
		return;
	}
	qp->nak_sent = 0;
	comm_est(qp);
	if (!sequence_ok(qp, f)) {
		resp_fatal(qp, psn, ROCE_NAK_INV_REQ, PRDMA_EVENT_QP_REQ_ERR);
		return;
	}
	qp->cnt[PRDMA_QP_CNT_RX_PACKETS]++;
	qp->cnt[PRDMA_QP_CNT_RX_BYTES] += pkt->paylen;
	if (f & ROCE_F_READ) {
		rc_read(qp, pkt);
		return;
	}
	if (f & ROCE_F_ATOMIC) {
		rc_atomic(qp, pkt);
		return;
	}
	ret = send_write(qp, pkt, &ev);
	if (ret == ROCE_AETH_RNR_NAK) {
		send_nak(qp, psn, (uint8_t)(ROCE_AETH_RNR_NAK | (qp->min_rnr_timer & 0x1f)));
		return;
	}
	if (ret != 0) {
		resp_fatal(qp, psn, (uint8_t)ret, ev);
		return;
	}
	qp->epsn = roce_psn_add(psn, 1);
	/*
	 * ACK what AckReq asks for; with coalescing on, also what it does not
	 * (a middle packet), lazily: that ACK leaves once it covers
	 * ROCE_ACK_COUNT packets or at its deadline, so a requester that asks
	 * rarely (rxe: every 64th packet) still sees its window move.
	 */
	if (pkt->bth.ackreq) {
		struct roce_out *o = send_ack(qp, psn, 0, 0);

		/*
		 * A message that completed a receive: the application on this
		 * side has its CQE now and may go on to anything but another
		 * engine call (perftest's handshake: read, then connect), while
		 * the peer waits for this ACK to see its send complete. It
		 * leaves with this step, as a card's would, not after a grace
		 * period that only a later step or thread can end.
		 */
		if (o != NULL && (f & ROCE_F_LAST) && (f & (ROCE_F_SEND | ROCE_F_IMM)))
			o->urgent = 1;
	} else if (qp->rdev->ack_delay_tsc != 0) {
		send_ack(qp, psn, 1, 0);
	}
}

static void
uc_rx(struct roce_qp *qp, struct roce_pkt *pkt)
{
	uint32_t psn = pkt->bth.psn, f = pkt->flags;
	enum prdma_event_type ev;
	int ret;

	if (psn != qp->epsn) {
		/* A gap: abandon the message in progress, resync on FIRST/ONLY. */
		qp->cnt[PRDMA_QP_CNT_OUT_OF_SEQUENCE]++;
		qp->eng->st.dev[PRDMA_DEV_CNT_OUT_OF_SEQUENCE]++;
		qp->resp_op = 0;
		qp->rcv_off = 0;
		qp->uc_drop = 1;
	}
	qp->epsn = roce_psn_add(psn, 1);
	if (f & ROCE_F_FIRST)
		qp->uc_drop = 0;
	if (qp->uc_drop || !sequence_ok(qp, f)) {
		qp->uc_drop = 1;
		qp->resp_op = 0;
		qp->rcv_off = 0;
		return;
	}
	comm_est(qp);
	ret = send_write(qp, pkt, &ev);
	if (ret == 0) {
		qp->cnt[PRDMA_QP_CNT_RX_PACKETS]++;
		qp->cnt[PRDMA_QP_CNT_RX_BYTES] += pkt->paylen;
		return;
	}
	if (ret == ROCE_AETH_RNR_NAK)
		qp->eng->st.drop.ud_no_wqe++;
	else if (ret == ROCE_NAK_REM_ACCESS)
		qp->cnt[PRDMA_QP_CNT_ACCESS_DROPS]++;
	/* UC drops the message; a local receive error also ends the QP. */
	qp->uc_drop = 1;
	qp->resp_op = 0;
	qp->rcv_off = 0;
	if (ev == PRDMA_EVENT_MAX)
		roce_qp_error(qp, PRDMA_EVENT_MAX);
}

static void
ud_rx(struct roce_qp *qp, struct roce_pkt *pkt)
{
	uint8_t grh[ROCE_GRH_LEN];
	int ret, st = PRDMA_WC_SUCCESS;

	if (pkt->ext.qkey != qp->qkey) {
		qp->eng->st.drop.bad_qkey++;
		return;
	}
	if (pkt->paylen > qp->mtu) {
		qp->eng->st.drop.malformed++;
		return;
	}
	if (take_rwqe(qp) < 0) {
		qp->eng->st.drop.ud_no_wqe++;
		return;
	}
	comm_est(qp);
	/* The GRH area: the IPv6 header, or 20 zero bytes and the IPv4 header. */
	memset(grh, 0, sizeof(grh));
	if (pkt->v1 || pkt->ipv6)
		memcpy(grh, pkt->l3, ROCE_IPV6_LEN);  /* the GRH, or the IPv6 header */
	else
		memcpy(grh + 20, pkt->l3, ROCE_IPV4_LEN);
	ret = roce_sge_copy_in(qp->rdev, qp->base.pd, qp->cur_rwqe.sge,
			       qp->cur_rwqe.num_sge, 0, grh, ROCE_GRH_LEN);
	if (ret == 0 && pkt->paylen != 0)
		ret = roce_sge_copy_in(qp->rdev, qp->base.pd, qp->cur_rwqe.sge,
				       qp->cur_rwqe.num_sge, ROCE_GRH_LEN, pkt->payload,
				       pkt->paylen);
	if (ret == -EMSGSIZE)
		st = PRDMA_WC_LOC_LEN_ERR;
	else if (ret < 0)
		st = PRDMA_WC_LOC_PROT_ERR;
	qp->cnt[PRDMA_QP_CNT_RX_PACKETS]++;
	qp->cnt[PRDMA_QP_CNT_RX_BYTES] += pkt->paylen;
	recv_wc(qp, (enum prdma_wc_status)st, PRDMA_WC_RECV, ROCE_GRH_LEN + pkt->paylen,
		pkt);
}

void
roce_resp_rx(struct roce_qp *qp, struct roce_pkt *pkt)
{
	uint8_t state = qp->base.state;

	if (state != PRDMA_QPS_RTR && state != PRDMA_QPS_RTS &&
	    state != PRDMA_QPS_SQD && state != PRDMA_QPS_SQE) {
		/* counted as the engine counts it, the ICRC first */
		if (pkt->icrc_deferred && roce_pkt_icrc_check(pkt) != ROCE_RX_OK)
			icrc_drop(qp);
		else
			qp->eng->st.drop.qp_state++;
		return;
	}
	switch (qp->base.qp_type) {
	case PRDMA_QPT_RC:
		rc_rx(qp, pkt);
		break;
	case PRDMA_QPT_UC:
		uc_rx(qp, pkt);
		break;
	default:
		ud_rx(qp, pkt);
		break;
	}
}

static int
tx_ack(struct roce_qp *qp, const struct roce_out *o)
{
	struct roce_ext ext = { .syndrome = ROCE_AETH_ACK_NOCREDIT };
	struct rte_mbuf *m;
	uint8_t *p;

	if (o->kind != ROCE_OUT_ATOMIC) {
		if (roce_qp_send_ack(qp, o->psn, o->syndrome, o->msn) < 0)
			return -ENOBUFS;
		if (o->syndrome == ROCE_AETH_ACK_NOCREDIT)
			qp->ack_last_psn = o->psn;
		return 0;
	}
	m = roce_qp_frame_start(qp, &p);
	if (m == NULL)
		return -ENOBUFS;
	ext.msn = o->msn;
	ext.orig = o->orig;
	roce_frame_send_qp(qp, m, roce_tmpl_encode(p, ROCE_OP_ATOMIC_ACK, 0, 0, o->psn, &ext));
	return 0;
}

/* One READ response packet; 1 when the READ is fully answered. */
static int
tx_read(struct roce_qp *qp, struct roce_out *o)
{
	uint32_t rem = o->len - o->off, pay = RTE_MIN(rem, qp->mtu);
	int first = o->off == 0, last = pay == rem;
	struct roce_ext ext = { .syndrome = ROCE_AETH_ACK_NOCREDIT };
	struct rte_mbuf *m;
	unsigned int hlen;
	uint8_t *p, op;

	struct roce_key *k = NULL;

	/* The MR may have gone since the request: check again before reading. */
	if (pay != 0 && roce_key_check(qp->rdev, o->rkey, qp->base.pd, qp->base.qp_num,
				       o->va + o->off, pay, PRDMA_ACCESS_REMOTE_READ, 1,
				       &k) < 0) {
		o->kind = ROCE_OUT_ACK;
		o->syndrome = ROCE_NAK_REM_ACCESS;
		return 0;
	}
	m = roce_qp_frame_start(qp, &p);
	if (m == NULL)
		return -ENOBUFS;
	if (first && last)
		op = ROCE_OP_READ_RESP_ONLY;
	else if (first)
		op = ROCE_OP_READ_RESP_FIRST;
	else if (last)
		op = ROCE_OP_READ_RESP_LAST;
	else
		op = ROCE_OP_READ_RESP_MIDDLE;
	ext.msn = o->msn;
	hlen = roce_tmpl_encode(p, op, 0, 0, o->psn, &ext);
	/* From the MR itself when the port takes chains (no WQE to hold). */
	if (k == NULL || !roce_zc_wanted(qp->rdev, pay) ||
	    roce_zc_frame_send(qp->eng, qp, m, &qp->path, hlen, o->va + o->off, pay, k,
			       NULL) != 0) {
		if (pay != 0)
			memcpy(p + hlen, (const void *)(uintptr_t)(o->va + o->off), pay);
		roce_frame_send_qp(qp, m, hlen + pay);
	}
	o->off += pay;
	o->psn = roce_psn_add(o->psn, 1);
	return last;
}

unsigned int
roce_resp_tx(struct roce_qp *qp)
{
	unsigned int n = 0;
	int ret;

	while (qp->out_tail != qp->out_head && n < qp->rdev->burst) {
		struct roce_out *o = &qp->outq[qp->out_tail & OUTQ_MASK];

		if (o->kind == ROCE_OUT_READ) {
			ret = tx_read(qp, o);
			if (ret < 0)
				break;
			if (o->kind != ROCE_OUT_READ)
				continue; /* became a NAK */
			n++;
			if (ret == 1)
				qp->out_tail++;
			continue;
		}
		if (tx_ack(qp, o) < 0)
			break;
		n++;
		qp->out_tail++;
	}
	return n;
}
