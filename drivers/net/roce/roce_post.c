/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * post_send / post_recv: validate, write the WQE into its ring slot
 * (copying inline data), publish. In inline progress mode post_send then
 * tries the engine flag and transmits this QP's work at once.
 */

#include <errno.h>
#include <string.h>

#include "roce.h"

static int
op_allowed(uint8_t qp_type, enum prdma_wr_opcode op)
{
	switch (qp_type) {
	case PRDMA_QPT_UD:
		return op == PRDMA_WR_SEND || op == PRDMA_WR_SEND_WITH_IMM;
	case PRDMA_QPT_UC:
		return op == PRDMA_WR_SEND || op == PRDMA_WR_SEND_WITH_IMM ||
			op == PRDMA_WR_RDMA_WRITE || op == PRDMA_WR_RDMA_WRITE_WITH_IMM ||
			op == PRDMA_WR_LOCAL_INV || op == PRDMA_WR_BIND_MW;
	case PRDMA_QPT_RC:
		return (unsigned int)op < PRDMA_WR_MAX;
	}
	return 0;
}

static int
wr_check(const struct roce_qp *qp, const struct prdma_send_wr *wr, uint64_t *total)
{
	uint64_t len = 0;
	uint32_t i;

	if (!op_allowed(qp->base.qp_type, wr->opcode))
		return -EINVAL;
	if (wr->num_sge > qp->max_send_sge || (wr->num_sge != 0 && wr->sg_list == NULL))
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > ROCE_MAX_MSG)
		return -EINVAL;
	if ((wr->send_flags & PRDMA_SEND_INLINE) && len > qp->max_inline)
		return -EINVAL;
	switch (wr->opcode) {
	case PRDMA_WR_ATOMIC_CMP_AND_SWP:
	case PRDMA_WR_ATOMIC_FETCH_AND_ADD:
		if (len != 8 || (wr->send_flags & PRDMA_SEND_INLINE))
			return -EINVAL;
		break;
	case PRDMA_WR_RDMA_READ:
		if (wr->send_flags & PRDMA_SEND_INLINE)
			return -EINVAL;
		break;
	case PRDMA_WR_BIND_MW:
		if (wr->wr.bind_mw.mw == NULL)
			return -EINVAL;
		break;
	case PRDMA_WR_SEND:
	case PRDMA_WR_SEND_WITH_IMM:
		if (qp->base.qp_type == PRDMA_QPT_UD &&
		    (wr->wr.ud.ah == NULL || wr->wr.ud.ah->dev != qp->base.dev ||
		     len > qp->mtu))
			return -EINVAL;
		break;
	default:
		break;
	}
	*total = len;
	return 0;
}

int
roce_post_send(struct prdma_qp *pqp, const struct prdma_send_wr *wr,
	       const struct prdma_send_wr **bad_wr)
{
	struct roce_qp *qp = (struct roce_qp *)pqp;
	struct roce_dev *dev = qp->rdev;
	uint8_t state = pqp->state;
	uint32_t head = qp->sq_head, tail, i, off;
	uint64_t len;
	int ret = 0;

	if (unlikely(state != PRDMA_QPS_RTS && state != PRDMA_QPS_SQD &&
		     state != PRDMA_QPS_ERR && state != PRDMA_QPS_SQE)) {
		*bad_wr = wr;
		rte_errno = EBADMSG;
		return -EBADMSG;
	}
	/* acquire: the engine is done with the slots it released */
	tail = __atomic_load_n(&qp->sq_tail, __ATOMIC_ACQUIRE);
	for (; wr != NULL; wr = wr->next) {
		struct roce_swqe *w;

		ret = wr_check(qp, wr, &len);
		if (unlikely(ret == 0 && head - tail > qp->sq_mask))
			ret = -ENOMEM;
		if (unlikely(ret < 0)) {
			*bad_wr = wr;
			rte_errno = -ret;
			break;
		}
		w = &qp->sq[head & qp->sq_mask];
		w->wr_id = wr->wr_id;
		w->opcode = (uint8_t)wr->opcode;
		w->flags = 0;
		if ((wr->send_flags & PRDMA_SEND_SIGNALED) || qp->sq_sig_all)
			w->flags |= ROCE_SWQE_SIGNALED;
		if (wr->send_flags & PRDMA_SEND_FENCE)
			w->flags |= ROCE_SWQE_FENCE;
		if (wr->send_flags & PRDMA_SEND_SOLICITED)
			w->flags |= ROCE_SWQE_SOLICITED;
		w->done = 0;
		w->started = 0;
		w->status = PRDMA_WC_SUCCESS;
		w->imm_inv = wr->imm_data;
		w->length = (uint32_t)len;
		w->num_sge = (uint8_t)wr->num_sge;
		switch (wr->opcode) {
		case PRDMA_WR_RDMA_WRITE:
		case PRDMA_WR_RDMA_WRITE_WITH_IMM:
		case PRDMA_WR_RDMA_READ:
			w->raddr = wr->wr.rdma.remote_addr;
			w->rkey = wr->wr.rdma.rkey;
			break;
		case PRDMA_WR_ATOMIC_CMP_AND_SWP:
		case PRDMA_WR_ATOMIC_FETCH_AND_ADD:
			w->raddr = wr->wr.atomic.remote_addr;
			w->rkey = wr->wr.atomic.rkey;
			w->compare_add = wr->wr.atomic.compare_add;
			w->swap = wr->wr.atomic.swap;
			break;
		case PRDMA_WR_BIND_MW:
			w->mw = wr->wr.bind_mw.mw;
			w->mr = wr->wr.bind_mw.mr;
			/* the window's slot life, so the bind cannot reach a
			 * window allocated later in the same memory and slot */
			if (w->mw != NULL) {
				uint32_t slot = ((const struct roce_mw *)w->mw)->slot;

				w->imm_inv = slot < ROCE_MAX_KEYS ? dev->keys[slot].life : 0;
			}
			/* the MR's key, to find it again when the bind runs:
			 * it may be deregistered by then */
			w->rkey = w->mr != NULL ? w->mr->lkey : 0;
			w->bind_addr = wr->wr.bind_mw.addr;
			w->bind_len = wr->wr.bind_mw.length;
			w->bind_rkey = wr->wr.bind_mw.rkey;
			w->bind_access = wr->wr.bind_mw.access;
			break;
		default:
			break;
		}
		if (qp->base.qp_type == PRDMA_QPT_UD) {
			w->ah = (struct roce_ah *)wr->wr.ud.ah;
			w->remote_qpn = wr->wr.ud.remote_qpn & ROCE_PSN_MASK;
			w->remote_qkey = wr->wr.ud.remote_qkey;
		}
		if ((wr->send_flags & PRDMA_SEND_INLINE) && len != 0) {
			w->flags |= ROCE_SWQE_INLINE;
			for (i = 0, off = 0; i < wr->num_sge; i++) {
				memcpy(w->inl + off,
				       (const void *)(uintptr_t)wr->sg_list[i].addr,
				       wr->sg_list[i].length);
				off += wr->sg_list[i].length;
			}
			w->num_sge = 0;
		} else {
			for (i = 0; i < wr->num_sge; i++)
				w->sge[i] = wr->sg_list[i];
		}
		head++;
	}
	/* release: the WQEs are written before the engine sees the new head */
	__atomic_store_n(&qp->sq_head, head, __ATOMIC_RELEASE);
	if ((!dev->cfg.progress_thread || dev->cfg.progress_hybrid) &&
	    roce_eng_trylock(qp->eng)) {
		roce_engine_kick(qp->eng, qp);
		roce_eng_unlock(qp->eng);
	} else {
		/* the engine steps only marked QPs */
		roce_qp_wake(qp);
	}
	return ret;
}

int
roce_post_recv(struct prdma_qp *pqp, const struct prdma_recv_wr *wr,
	       const struct prdma_recv_wr **bad_wr)
{
	struct roce_qp *qp = (struct roce_qp *)pqp;
	int ret;

	if (unlikely(qp->srq != NULL || pqp->state == PRDMA_QPS_RESET)) {
		*bad_wr = wr;
		rte_errno = qp->srq != NULL ? EINVAL : EBADMSG;
		return -rte_errno;
	}
	ret = roce_rq_post(&qp->rq, wr, bad_wr);
	/* In ERR the engine flushes them: it steps only marked QPs. */
	if (unlikely(pqp->state == PRDMA_QPS_ERR))
		roce_qp_wake(qp);
	return ret;
}
