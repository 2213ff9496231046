/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The fast path behind context->ops: verbs work requests and completions
 * translated to and from prdma's, in batches through per-QP and per-CQ
 * scratch arrays (no allocation, no lock, no system call). Scatter lists
 * and receive requests have the same layout in both APIs and pass as
 * they are (checked at build time below).
 */

#include <endian.h>
#include <errno.h>
#include <stddef.h>

#include "pv_private.h"

/* ibv_sge and prdma_sge, ibv_recv_wr and prdma_recv_wr: one layout. */
_Static_assert(sizeof(struct ibv_sge) == sizeof(struct prdma_sge), "sge size");
_Static_assert(offsetof(struct ibv_sge, addr) == offsetof(struct prdma_sge, addr), "sge");
_Static_assert(offsetof(struct ibv_sge, length) == offsetof(struct prdma_sge, length), "sge");
_Static_assert(offsetof(struct ibv_sge, lkey) == offsetof(struct prdma_sge, lkey), "sge");
_Static_assert(sizeof(struct ibv_recv_wr) == sizeof(struct prdma_recv_wr), "recv wr");
_Static_assert(offsetof(struct ibv_recv_wr, next) == offsetof(struct prdma_recv_wr, next), "wr");
_Static_assert(offsetof(struct ibv_recv_wr, sg_list) == offsetof(struct prdma_recv_wr, sg_list),
	       "recv wr");
_Static_assert(offsetof(struct ibv_recv_wr, num_sge) == offsetof(struct prdma_recv_wr, num_sge),
	       "recv wr");
/* The send flags are prdma's bits. */
_Static_assert(IBV_SEND_FENCE == PRDMA_SEND_FENCE && IBV_SEND_SIGNALED == PRDMA_SEND_SIGNALED &&
	       IBV_SEND_SOLICITED == PRDMA_SEND_SOLICITED && IBV_SEND_INLINE == PRDMA_SEND_INLINE,
	       "send flags");
_Static_assert((int)IBV_WC_SEND == (int)PRDMA_WC_SEND && (int)IBV_WC_LOCAL_INV ==
	       (int)PRDMA_WC_LOCAL_INV && (int)IBV_WC_RECV == (int)PRDMA_WC_RECV &&
	       (int)IBV_WC_RECV_RDMA_WITH_IMM == (int)PRDMA_WC_RECV_RDMA_WITH_IMM, "wc opcodes");

#define PV_OP_BAD PRDMA_WR_MAX

static const uint8_t pv_opcode[] = {
	[IBV_WR_RDMA_WRITE] = PRDMA_WR_RDMA_WRITE,
	[IBV_WR_RDMA_WRITE_WITH_IMM] = PRDMA_WR_RDMA_WRITE_WITH_IMM,
	[IBV_WR_SEND] = PRDMA_WR_SEND,
	[IBV_WR_SEND_WITH_IMM] = PRDMA_WR_SEND_WITH_IMM,
	[IBV_WR_RDMA_READ] = PRDMA_WR_RDMA_READ,
	[IBV_WR_ATOMIC_CMP_AND_SWP] = PRDMA_WR_ATOMIC_CMP_AND_SWP,
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = PRDMA_WR_ATOMIC_FETCH_AND_ADD,
	[IBV_WR_LOCAL_INV] = PRDMA_WR_LOCAL_INV,
	[IBV_WR_BIND_MW] = PV_OP_BAD,
	[IBV_WR_SEND_WITH_INV] = PRDMA_WR_SEND_WITH_INV,
};

static const uint8_t pv_wc_status[PRDMA_WC_STATUS_MAX] = {
	[PRDMA_WC_SUCCESS] = IBV_WC_SUCCESS,
	[PRDMA_WC_LOC_LEN_ERR] = IBV_WC_LOC_LEN_ERR,
	[PRDMA_WC_LOC_QP_OP_ERR] = IBV_WC_LOC_QP_OP_ERR,
	[PRDMA_WC_LOC_PROT_ERR] = IBV_WC_LOC_PROT_ERR,
	[PRDMA_WC_WR_FLUSH_ERR] = IBV_WC_WR_FLUSH_ERR,
	[PRDMA_WC_MW_BIND_ERR] = IBV_WC_MW_BIND_ERR,
	[PRDMA_WC_BAD_RESP_ERR] = IBV_WC_BAD_RESP_ERR,
	[PRDMA_WC_LOC_ACCESS_ERR] = IBV_WC_LOC_ACCESS_ERR,
	[PRDMA_WC_REM_INV_REQ_ERR] = IBV_WC_REM_INV_REQ_ERR,
	[PRDMA_WC_REM_ACCESS_ERR] = IBV_WC_REM_ACCESS_ERR,
	[PRDMA_WC_REM_OP_ERR] = IBV_WC_REM_OP_ERR,
	[PRDMA_WC_RETRY_EXC_ERR] = IBV_WC_RETRY_EXC_ERR,
	[PRDMA_WC_RNR_RETRY_EXC_ERR] = IBV_WC_RNR_RETRY_EXC_ERR,
	[PRDMA_WC_REM_ABORT_ERR] = IBV_WC_REM_ABORT_ERR,
	[PRDMA_WC_FATAL_ERR] = IBV_WC_FATAL_ERR,
	[PRDMA_WC_GENERAL_ERR] = IBV_WC_GENERAL_ERR,
};

/* 0, or EINVAL for a request prdma has no counterpart of. */
static inline int
wr_to_prdma(struct prdma_send_wr *o, const struct ibv_send_wr *w)
{
	if ((unsigned int)w->opcode >= RTE_DIM(pv_opcode) || w->num_sge < 0 ||
	    pv_opcode[w->opcode] == PV_OP_BAD)
		return EINVAL;
	o->wr_id = w->wr_id;
	o->next = NULL;
	o->sg_list = (struct prdma_sge *)w->sg_list;
	o->num_sge = (uint32_t)w->num_sge;
	o->opcode = (enum prdma_wr_opcode)pv_opcode[w->opcode];
	o->send_flags = w->send_flags & (IBV_SEND_FENCE | IBV_SEND_SIGNALED |
					 IBV_SEND_SOLICITED | IBV_SEND_INLINE);
	switch (w->opcode) {
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		o->invalidate_rkey = w->invalidate_rkey;
		break;
	default:
		o->imm_data = be32toh(w->imm_data); /* verbs: network order */
		break;
	}
	switch (w->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		o->wr.rdma.remote_addr = w->wr.rdma.remote_addr;
		o->wr.rdma.rkey = w->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		o->wr.atomic.remote_addr = w->wr.atomic.remote_addr;
		o->wr.atomic.compare_add = w->wr.atomic.compare_add;
		o->wr.atomic.swap = w->wr.atomic.swap;
		o->wr.atomic.rkey = w->wr.atomic.rkey;
		break;
	default:
		break;
	}
	return 0;
}

int
pv_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct pv_qp *qp = pv_qp(ibqp);
	struct ibv_send_wr *first, *w;
	const struct prdma_send_wr *pbad;
	struct prdma_send_wr *o;
	unsigned int n, i;
	int ret = 0;

	while (wr != NULL) {
		first = wr;
		for (n = 0, w = wr; w != NULL && n < PV_SEND_BATCH; w = w->next, n++) {
			o = &qp->scratch[n];
			ret = wr_to_prdma(o, w);
			if (ret == 0 && ibqp->qp_type == IBV_QPT_UD) {
				if (w->wr.ud.ah == NULL) {
					ret = EINVAL;
				} else {
					o->wr.ud.ah = container_of(w->wr.ud.ah, struct pv_ah, ah)->pah;
					o->wr.ud.remote_qpn = w->wr.ud.remote_qpn;
					o->wr.ud.remote_qkey = w->wr.ud.remote_qkey;
				}
			}
			if (ret != 0)
				break;
			if (n > 0)
				qp->scratch[n - 1].next = o;
		}
		if (n > 0) {
			pbad = NULL;
			ret = prdma_post_send(qp->pqp, qp->scratch, &pbad);
			if (ret < 0) {
				i = pbad != NULL ? (unsigned int)(pbad - qp->scratch) : 0;
				for (*bad = first; i > 0 && *bad != NULL; i--)
					*bad = (*bad)->next;
				return -ret;
			}
		}
		if (w != NULL && n < PV_SEND_BATCH) {
			/* The request that did not translate. */
			*bad = w;
			return EINVAL;
		}
		wr = w;
	}
	return 0;
}

int
pv_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	const struct prdma_recv_wr *pbad = NULL;
	int ret;

	ret = prdma_post_recv(pv_qp(ibqp)->pqp, (const struct prdma_recv_wr *)wr, &pbad);
	if (ret < 0) {
		*bad = (struct ibv_recv_wr *)(uintptr_t)pbad;
		return -ret;
	}
	return 0;
}

int
pv_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	const struct prdma_recv_wr *pbad = NULL;
	int ret;

	ret = prdma_post_srq_recv(container_of(ibsrq, struct pv_srq, srq)->psrq,
				  (const struct prdma_recv_wr *)wr, &pbad);
	if (ret < 0) {
		*bad = (struct ibv_recv_wr *)(uintptr_t)pbad;
		return -ret;
	}
	return 0;
}

static inline void
wc_from_prdma(struct ibv_wc *o, const struct prdma_wc *w)
{
	o->wr_id = w->wr_id;
	o->status = (unsigned int)w->status < PRDMA_WC_STATUS_MAX ?
		(enum ibv_wc_status)pv_wc_status[w->status] : IBV_WC_GENERAL_ERR;
	o->opcode = (enum ibv_wc_opcode)w->opcode;
	o->vendor_err = w->vendor_err;
	o->byte_len = w->byte_len;
	o->wc_flags = 0;
	if (w->wc_flags & PRDMA_WC_WITH_INV) {
		o->invalidated_rkey = w->invalidated_rkey;
		o->wc_flags |= IBV_WC_WITH_INV;
	} else {
		o->imm_data = htobe32(w->imm_data);
		if (w->wc_flags & PRDMA_WC_WITH_IMM)
			o->wc_flags |= IBV_WC_WITH_IMM;
	}
	if (w->wc_flags & PRDMA_WC_GRH)
		o->wc_flags |= IBV_WC_GRH;
	o->qp_num = w->qp_num;
	o->src_qp = w->src_qp;
	o->pkey_index = w->pkey_index;
	o->slid = 0;
	o->sl = w->sl;
	o->dlid_path_bits = 0;
}

int
pv_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct pv_cq *cq = container_of(ibcq, struct pv_cq, cq);
	int done = 0, got, i;

	while (done < n) {
		got = prdma_cq_poll(cq->pcq, (uint16_t)RTE_MIN(n - done, PV_POLL_BATCH),
				    cq->scratch);
		if (got < 0)
			return done > 0 ? done : -1;
		for (i = 0; i < got; i++)
			wc_from_prdma(&wc[done + i], &cq->scratch[i]);
		done += got;
		if (got < PV_POLL_BATCH)
			break;
	}
	return done;
}
