/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Fast path, polling: a CQE belongs to software when its owner bit equals
 * the wrap parity of the consumer index; its fields are read only after
 * that bit. The consumer index is published once per poll call through the
 * CQ doorbell record. Error syndromes become completion statuses through
 * one table.
 */

#include <string.h>

#include <rte_byteorder.h>

#include "hermon_barrier.h"
#include "hermon_obj.h"

/*
 * The one table: CQE syndrome -> completion status (§6.9). No syndrome
 * means success, so an entry left 0 is a syndrome the PRM does not list.
 */
static const uint8_t hermon_synd_status[256] = {
	[HERMON_SYND_LOC_LEN] = PRDMA_WC_LOC_LEN_ERR,
	[HERMON_SYND_LOC_QP_OP] = PRDMA_WC_LOC_QP_OP_ERR,
	[HERMON_SYND_LOC_PROT] = PRDMA_WC_LOC_PROT_ERR,
	[HERMON_SYND_FLUSH] = PRDMA_WC_WR_FLUSH_ERR,
	[HERMON_SYND_MW_BIND] = PRDMA_WC_MW_BIND_ERR,
	[HERMON_SYND_BAD_RESP] = PRDMA_WC_BAD_RESP_ERR,
	[HERMON_SYND_LOC_ACCESS] = PRDMA_WC_LOC_ACCESS_ERR,
	[HERMON_SYND_REM_INV_REQ] = PRDMA_WC_REM_INV_REQ_ERR,
	[HERMON_SYND_REM_ACCESS] = PRDMA_WC_REM_ACCESS_ERR,
	[HERMON_SYND_REM_OP] = PRDMA_WC_REM_OP_ERR,
	[HERMON_SYND_RETRY_EXC] = PRDMA_WC_RETRY_EXC_ERR,
	[HERMON_SYND_RNR_RETRY_EXC] = PRDMA_WC_RNR_RETRY_EXC_ERR,
	[HERMON_SYND_REM_ABORT] = PRDMA_WC_REM_ABORT_ERR,
};

static __rte_always_inline enum prdma_wc_status
synd_status(uint8_t synd)
{
	uint8_t st = hermon_synd_status[synd];

	return st != 0 ? (enum prdma_wc_status)st : PRDMA_WC_GENERAL_ERR;
}

/*
 * The CQE's last byte without its owner bit (S_R and opcode) -> completion
 * opcode plus one of a successful requester CQE, or 0 for everything that
 * takes the out-of-line path (receive side, errors, unknown opcodes).
 */
static const uint8_t hermon_cqe_fast[128] = {
	[0x40 | HERMON_WQE_SEND_INVAL] = 1 + PRDMA_WC_SEND,
	[0x40 | HERMON_WQE_RDMA_WRITE] = 1 + PRDMA_WC_RDMA_WRITE,
	[0x40 | HERMON_WQE_RDMA_WRITE_IMM] = 1 + PRDMA_WC_RDMA_WRITE,
	[0x40 | HERMON_WQE_SEND] = 1 + PRDMA_WC_SEND,
	[0x40 | HERMON_WQE_SEND_IMM] = 1 + PRDMA_WC_SEND,
	[0x40 | HERMON_WQE_RDMA_READ] = 1 + PRDMA_WC_RDMA_READ,
	[0x40 | HERMON_WQE_ATOMIC_CS] = 1 + PRDMA_WC_COMP_SWAP,
	[0x40 | HERMON_WQE_ATOMIC_FA] = 1 + PRDMA_WC_FETCH_ADD,
	[0x40 | HERMON_WQE_BIND_MW] = 1 + PRDMA_WC_BIND_MW,
	[0x40 | HERMON_WQE_LOCAL_INVAL] = 1 + PRDMA_WC_LOCAL_INV,
};

static __rte_always_inline uint32_t
get32(const uint8_t *p)
{
	return rte_be_to_cpu_32(*(const rte_be32_t *)p);
}

static __rte_always_inline uint16_t
get16(const uint8_t *p)
{
	return rte_be_to_cpu_16(*(const rte_be16_t *)p);
}

/* Receive side of a CQE: whose WQE it was, and the flags. */
static void
poll_recv(struct hermon_qp *qp, const uint8_t *e, uint8_t op, uint16_t ctr,
	  struct prdma_wc *wc)
{
	struct hermon_srq *srq = qp->srq;

	if (srq != NULL) {
		uint32_t p = srq->free_prod;

		wc->wr_id = srq->wrid[ctr & srq->mask];
		srq->freed[p & srq->mask] = ctr;
		/* release: the index lands before the count that publishes it */
		__atomic_store_n(&srq->free_prod, p + 1, __ATOMIC_RELEASE);
	} else {
		wc->wr_id = qp->rq_wrid[ctr & qp->rq_mask];
		qp->rq_tail += (uint16_t)(ctr + 1 - qp->rq_tail);
	}
	wc->opcode = op == HERMON_CQE_RECV_WRITE_IMM ? PRDMA_WC_RECV_RDMA_WITH_IMM :
		PRDMA_WC_RECV;
	wc->wc_flags = (op == HERMON_CQE_RECV_WRITE_IMM || op == HERMON_CQE_RECV_SEND_IMM ?
			PRDMA_WC_WITH_IMM : 0) |
		(op == HERMON_CQE_RECV_SEND_INV ? PRDMA_WC_WITH_INV : 0) |
		((e[8] & 0x80) ? PRDMA_WC_GRH : 0) |
		((e[0] & 0x08) ? PRDMA_WC_SOLICITED : 0);
	wc->imm_data = get32(e + 4);
	wc->src_qp = get32(e + 8) & 0xffffff;
	wc->sl = e[12] >> 4;
}

/* A successful requester CQE of a live QP, @k from hermon_cqe_fast. */
static __rte_always_inline void
poll_send_ok(struct hermon_qp *qp, const uint8_t *e, uint32_t qpn, uint32_t k,
	     struct prdma_wc *wc)
{
	uint32_t ctr, t;

	/* the fields from registers first: fewer values live across the rest */
	wc->qp_num = qpn;
	wc->opcode = (enum prdma_wc_opcode)(k - 1);
	wc->status = PRDMA_WC_SUCCESS;
	wc->vendor_err = 0;
	wc->wc_flags = 0;
	wc->byte_len = get32(e + 0x14);
	ctr = get16(e + 0x18);
	wc->wr_id = qp->sq_wrid[ctr & qp->sq_mask];
	/* only this lcore writes sq_tail: one read of it is enough */
	t = qp->sq_tail;
	qp->sq_tail = t + (uint16_t)(ctr + 1 - t);
}

/*
 * Every CQE but a successful requester one of a live QP: receive
 * completions, error CQEs (the QP enters ERR) and CQEs left by a destroyed
 * QP, whose wr_id the destroy put in the stash.
 */
static void
poll_other(struct hermon_cq *cq, const uint8_t *e, uint32_t ci, struct hermon_qp *qp,
	   uint32_t qpn, struct prdma_wc *wc)
{
	uint8_t b31 = e[31], op = b31 & 0x1f;
	uint16_t ctr = get16(e + 0x18);

	wc->qp_num = qpn;
	wc->byte_len = get32(e + 0x14);
	wc->vendor_err = 0;
	wc->wc_flags = 0;
	wc->status = PRDMA_WC_SUCCESS;
	/* a CQE the destroy resolved belongs to the old QP even when a new
	 * one has its QPN already (QP0/QP1 come back at once) */
	if (unlikely(qp == NULL || qp->qpn != qpn || cq->stash_ok[ci & cq->mask])) {
		/* the QP was destroyed: its wr_id was resolved then */
		if (cq->stash_ok[ci & cq->mask]) {
			wc->wr_id = cq->stash[ci & cq->mask];
			cq->stash_ok[ci & cq->mask] = 0;
			cq->stash_n--;
		} else {
			wc->wr_id = 0;
		}
		wc->opcode = (b31 & 0x40) ? PRDMA_WC_SEND : PRDMA_WC_RECV;
		if (op == HERMON_CQE_ERROR) {
			wc->status = synd_status(e[0x1b]);
			wc->vendor_err = e[0x1a];    /* F24: rdma-core cq.c */
		}
		return;
	}
	if (op == HERMON_CQE_ERROR) {
		wc->status = synd_status(e[0x1b]);
		wc->vendor_err = e[0x1a];    /* F24: rdma-core cq.c */
		qp->pub.state = PRDMA_QPS_ERR;
		if (b31 & 0x40) {
			wc->wr_id = qp->sq_wrid[ctr & qp->sq_mask];
			wc->opcode = PRDMA_WC_SEND;
			qp->sq_tail += (uint16_t)(ctr + 1 - qp->sq_tail);
		} else {
			poll_recv(qp, e, HERMON_CQE_RECV_SEND, ctr, wc);
			wc->wc_flags = 0;
		}
	} else if (b31 & 0x40) {
		/* a requester opcode the PRM does not list: report it as a send */
		wc->wr_id = qp->sq_wrid[ctr & qp->sq_mask];
		wc->opcode = PRDMA_WC_SEND;
		qp->sq_tail += (uint16_t)(ctr + 1 - qp->sq_tail);
	} else {
		poll_recv(qp, e, op, ctr, wc);
	}
}

static __rte_always_inline void
poll_publish_ci(struct hermon_cq *cq, uint32_t ci)
{
	cq->ci = ci;
	hermon_barrier_cqe_before_ci();
	cq->db[0] = rte_cpu_to_be_32(ci & 0xffffff);
}

/*
 * hermon_poll_cq from its first CQE that is not a successful requester
 * one: @n completions are already in @wc, @ci is that CQE's index.
 */
static __rte_noinline int
poll_cq_any(struct hermon_cq *cq, uint16_t nb, struct prdma_wc *wc, uint16_t n,
	    uint32_t ci)
{
	/* in locals: the completion stores could alias the CQ's fields */
	const uint8_t *const buf = cq->buf;
	struct hermon_qp *const *const qps = cq->qps;
	const uint8_t *const stash_ok = cq->stash_ok;
	const uint32_t mask = cq->mask, log = cq->log, qp_mask = cq->qp_mask;
	/*
	 * The send queue a run of successful requester CQEs frees, advanced
	 * once when the run ends (only this lcore writes sq_tail; the poster
	 * sees it after the call, as it would have).
	 */
	struct hermon_qp *run = NULL;
	uint16_t run_ctr = 0;

	for (; n < nb; n++, ci++) {
		const uint8_t *e = buf + ((ci & mask) << 5);
		uint32_t b31 = e[31], qpn, k;
		struct hermon_qp *qp;

		if (((b31 >> 7) ^ (ci >> log)) & 1)
			break;
		hermon_barrier_cqe_owner_before_data();
		qpn = get32(e) & 0xffffff;
		qp = qps[qpn & qp_mask];
		k = hermon_cqe_fast[b31 & 0x7f];
		if (likely(k != 0 && qp != NULL && qp->qpn == qpn &&
			   stash_ok[ci & mask] == 0)) {
			uint16_t ctr = get16(e + 0x18);

			wc[n].qp_num = qpn;
			wc[n].opcode = (enum prdma_wc_opcode)(k - 1);
			wc[n].status = PRDMA_WC_SUCCESS;
			wc[n].vendor_err = 0;
			wc[n].wc_flags = 0;
			wc[n].byte_len = get32(e + 0x14);
			wc[n].wr_id = qp->sq_wrid[ctr & qp->sq_mask];
			if (unlikely(qp != run)) {
				if (run != NULL)
					run->sq_tail += (uint16_t)(run_ctr + 1 - run->sq_tail);
				run = qp;
			}
			run_ctr = ctr;
		} else {
			if (run != NULL) {
				run->sq_tail += (uint16_t)(run_ctr + 1 - run->sq_tail);
				run = NULL;
			}
			poll_other(cq, e, ci, qp, qpn, &wc[n]);
		}
	}
	if (run != NULL)
		run->sq_tail += (uint16_t)(run_ctr + 1 - run->sq_tail);
	if (n != 0)
		poll_publish_ci(cq, ci);
	return n;
}

/*
 * The first CQE at @ci when it is a successful requester one of a live QP
 * while no CQE of a destroyed QP waits (stash_n 0): fills @wc and frees
 * its send queue slots, and returns 1 (the caller publishes the consumer
 * index). 0 when the CQE is hardware's, -1 for any other CQE (untouched:
 * poll_cq_any takes it). Straight-line code that calls nothing.
 */
static __rte_always_inline int
poll_first(struct hermon_cq *cq, uint32_t ci, struct prdma_wc *wc)
{
	const uint8_t *e = cq->buf + ((ci & cq->mask) << 5);
	uint32_t b31 = e[31], qpn, k;
	struct hermon_qp *qp;

	if (((b31 >> 7) ^ (ci >> cq->log)) & 1)
		return 0;
	hermon_barrier_cqe_owner_before_data();
	qpn = get32(e) & 0xffffff;
	k = hermon_cqe_fast[b31 & 0x7f];
	/* the QP of the last such CQE, cached only while no CQE of a
	 * destroyed QP waited, is live (its destroy forgets it) */
	if (likely(qpn == cq->last_qpn)) {
		qp = cq->last_qp;
		if (unlikely(k == 0 || qp->qpn != qpn))
			return -1;
	} else {
		qp = cq->qps[qpn & cq->qp_mask];
		if (unlikely(k == 0 || qp == NULL || qp->qpn != qpn || cq->stash_n != 0))
			return -1;
		cq->last_qpn = qpn;
		cq->last_qp = qp;
	}
	poll_send_ok(qp, e, qpn, k, wc);
	return 1;
}

/* hermon_poll_cq of other than one CQE: the first as one, the rest in a loop. */
static __rte_noinline int
poll_cq_many(struct hermon_cq *cq, uint16_t nb, struct prdma_wc *wc)
{
	uint32_t ci = cq->ci;
	int r;

	if (nb == 0)
		return 0;
	r = poll_first(cq, ci, wc);
	if (r == 0)
		return 0;
	if (r < 0)
		return poll_cq_any(cq, nb, wc, 0, ci);
	return poll_cq_any(cq, nb, wc, 1, ci + 1);
}

/*
 * The common call: one CQE asked for, a successful requester one (see
 * poll_first), with the consumer index published here; a call for another
 * count goes to poll_cq_many, any other CQE to poll_cq_any, which checks
 * each CQE against the stash.
 */
int
hermon_poll_cq(struct prdma_cq *pcq, uint16_t nb, struct prdma_wc *wc)
{
	struct hermon_cq *cq = (struct hermon_cq *)pcq;
	uint32_t ci = cq->ci;
	int r;

	if (unlikely(nb != 1))
		return poll_cq_many(cq, nb, wc);
	r = poll_first(cq, ci, wc);
	if (likely(r > 0)) {
		poll_publish_ci(cq, ci + 1);
		return 1;
	}
	if (r == 0)
		return 0;
	return poll_cq_any(cq, 1, wc, 0, ci);
}

void
hermon_cq_forget_qp(struct hermon_cq *cq, const struct hermon_qp *qp)
{
	if (cq->last_qp == qp) {
		cq->last_qpn = UINT32_MAX;
		cq->last_qp = NULL;
	}
}

int
hermon_peek_cq(struct prdma_cq *pcq)
{
	const struct hermon_cq *cq = (const struct hermon_cq *)pcq;
	uint32_t n = 0, ci = cq->ci;

	while (n <= cq->mask) {
		const uint8_t *e = cq->buf + (((ci + n) & cq->mask) << 5);

		if ((e[31] >> 7) != (((ci + n) >> cq->log) & 1))
			break;
		n++;
	}
	return (int)n;
}
