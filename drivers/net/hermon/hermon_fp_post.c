/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Fast path, posting: send WQEs (control, datagram, remote address, atomic,
 * bind, local invalidate, data and inline segments) handed over by their
 * owner bit and announced by the UAR send doorbell; receive WQEs announced
 * by the RQ/SRQ doorbell record. No lock, no allocation, no system call.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_io.h>
#include <rte_memory.h>

#include "hermon_barrier.h"
#include "hermon_obj.h"

/* Opcodes each QP type accepts, and their WQE opcode. */
#define OPS_UD (RTE_BIT32(PRDMA_WR_SEND) | RTE_BIT32(PRDMA_WR_SEND_WITH_IMM))
#define OPS_UC (OPS_UD | RTE_BIT32(PRDMA_WR_SEND_WITH_INV) | \
		RTE_BIT32(PRDMA_WR_RDMA_WRITE) | RTE_BIT32(PRDMA_WR_RDMA_WRITE_WITH_IMM) | \
		RTE_BIT32(PRDMA_WR_LOCAL_INV) | RTE_BIT32(PRDMA_WR_BIND_MW))
#define OPS_RC (OPS_UC | RTE_BIT32(PRDMA_WR_RDMA_READ) | \
		RTE_BIT32(PRDMA_WR_ATOMIC_CMP_AND_SWP) | \
		RTE_BIT32(PRDMA_WR_ATOMIC_FETCH_AND_ADD))

static const uint32_t hermon_ops_of_type[8] = {
	[PRDMA_QPT_RC] = OPS_RC, [PRDMA_QPT_UC] = OPS_UC, [PRDMA_QPT_UD] = OPS_UD,
};

static const uint8_t hermon_wqe_op[PRDMA_WR_MAX] = {
	[PRDMA_WR_SEND] = HERMON_WQE_SEND,
	[PRDMA_WR_SEND_WITH_IMM] = HERMON_WQE_SEND_IMM,
	[PRDMA_WR_SEND_WITH_INV] = HERMON_WQE_SEND_INVAL,
	[PRDMA_WR_RDMA_WRITE] = HERMON_WQE_RDMA_WRITE,
	[PRDMA_WR_RDMA_WRITE_WITH_IMM] = HERMON_WQE_RDMA_WRITE_IMM,
	[PRDMA_WR_RDMA_READ] = HERMON_WQE_RDMA_READ,
	[PRDMA_WR_ATOMIC_CMP_AND_SWP] = HERMON_WQE_ATOMIC_CS,
	[PRDMA_WR_ATOMIC_FETCH_AND_ADD] = HERMON_WQE_ATOMIC_FA,
	[PRDMA_WR_LOCAL_INV] = HERMON_WQE_LOCAL_INVAL,
	[PRDMA_WR_BIND_MW] = HERMON_WQE_BIND_MW,
};

static __rte_always_inline void
put32(uint8_t *p, uint32_t v)
{
	*(rte_be32_t *)p = rte_cpu_to_be_32(v);
}

static __rte_always_inline void
put64(uint8_t *p, uint64_t v)
{
	*(rte_be64_t *)p = rte_cpu_to_be_64(v);
}

static __rte_always_inline uint64_t
sge_addr(const struct hermon_qp *qp, const struct prdma_sge *s)
{
	/* a DMA MR is a physical region: it takes IOVAs */
	if (unlikely(qp->mpt_dma != NULL && qp->mpt_dma[(s->lkey >> 8) & qp->mpt_mask]))
		return rte_mem_virt2iova((void *)(uintptr_t)s->addr);
	return s->addr;
}

/* Inline data from WQE byte @off: chunks never cross 64 bytes. */
static __rte_always_inline uint32_t
put_inline(uint8_t *w, uint32_t off, const struct prdma_send_wr *wr, uint32_t max,
	   int *err)
{
	uint32_t i, total = 0, room, k, chunk = 0, hdr = off;

	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (unlikely(total > max)) {
		*err = EINVAL;
		return off;
	}
	off += 4;
	room = 64 - (off & 63);
	for (i = 0; i < wr->num_sge; i++) {
		const uint8_t *src = (const uint8_t *)(uintptr_t)wr->sg_list[i].addr;
		uint32_t len = wr->sg_list[i].length;

		while (len > 0) {
			if (room == 0) {
				put32(w + hdr, RTE_BIT32(31) | chunk);
				hdr = off;
				off += 4;
				chunk = 0;
				room = 64 - (off & 63);
			}
			k = RTE_MIN(len, room);
			memcpy(w + off, src, k);
			off += k;
			src += k;
			len -= k;
			room -= k;
			chunk += k;
		}
	}
	put32(w + hdr, RTE_BIT32(31) | chunk);
	return RTE_ALIGN_CEIL(off, 16);
}

/* The common case of put_inline: one source buffer. */
static __rte_always_inline uint32_t
put_inline_one(uint8_t *w, uint32_t off, const struct prdma_sge *sg, uint32_t max,
	       int *err)
{
	const uint8_t *src = (const uint8_t *)(uintptr_t)sg->addr;
	uint32_t len = sg->length, k;

	if (unlikely(len > max)) {
		*err = EINVAL;
		return off;
	}
	for (;;) {
		k = RTE_MIN(len, 64 - ((off + 4) & 63));
		put32(w + off, RTE_BIT32(31) | k);
		memcpy(w + off + 4, src, k);
		off += 4 + k;
		len -= k;
		if (likely(len == 0))
			return RTE_ALIGN_CEIL(off, 16);
		src += k;
	}
}

static __rte_always_inline uint32_t
put_data(const struct hermon_qp *qp, uint8_t *w, uint32_t off,
	 const struct prdma_send_wr *wr)
{
	uint32_t i;

	for (i = 0; i < wr->num_sge; i++, off += 16) {
		const struct prdma_sge *s = &wr->sg_list[i];

		put32(w + off, s->length);
		put32(w + off + 4, s->lkey);
		put64(w + off + 8, sge_addr(qp, s));
	}
	return off;
}

static void
put_bind(uint8_t *w, const struct prdma_send_wr *wr)
{
	struct hermon_prm_wqe_segment_bind *b = (void *)w;
	uint32_t acc = wr->wr.bind_mw.access;

	memset(b, 0, sizeof(*b));
	HERMON_FILL(b, wqe_segment_bind, rr, (acc & PRDMA_ACCESS_REMOTE_READ) != 0);
	HERMON_FILL(b, wqe_segment_bind, rw, (acc & PRDMA_ACCESS_REMOTE_WRITE) != 0);
	HERMON_FILL(b, wqe_segment_bind, a, (acc & PRDMA_ACCESS_REMOTE_ATOMIC) != 0);
	HERMON_FILL(b, wqe_segment_bind, type2,
		    wr->wr.bind_mw.mw != NULL && wr->wr.bind_mw.mw->type == PRDMA_MW_TYPE_2);
	HERMON_FILL(b, wqe_segment_bind, new_rkey, wr->wr.bind_mw.rkey);
	HERMON_FILL(b, wqe_segment_bind, lkey,
		    wr->wr.bind_mw.mr != NULL ? wr->wr.bind_mw.mr->lkey : 0);
	HERMON_FILL64(b, wqe_segment_bind, addr_h, addr_l, wr->wr.bind_mw.addr);
	HERMON_FILL64(b, wqe_segment_bind, length_h, length_l, wr->wr.bind_mw.length);
}

int
hermon_post_send(struct prdma_qp *pqp, const struct prdma_send_wr *wr,
		 const struct prdma_send_wr **bad_wr)
{
	struct hermon_qp *qp = (struct hermon_qp *)pqp;
	uint32_t head = qp->sq_head, ops = hermon_ops_of_type[pqp->qp_type & 7];
	int err = 0;

	if (unlikely(pqp->state < PRDMA_QPS_RTS)) {
		err = EBADMSG;
		goto out;
	}
	for (; wr != NULL; wr = wr->next) {
		uint8_t *w;
		uint32_t off = 16, op, fence;

		if (unlikely(head - qp->sq_tail >= qp->sq_cap)) {
			err = ENOMEM;
			break;
		}
		if (unlikely((unsigned int)wr->opcode >= PRDMA_WR_MAX ||
			     !(ops & RTE_BIT32(wr->opcode)) ||
			     wr->num_sge > qp->max_send_sge)) {
			err = EINVAL;
			break;
		}
		w = qp->sq + ((head & qp->sq_mask) << qp->sq_shift);
		op = hermon_wqe_op[wr->opcode];
		if (pqp->qp_type == PRDMA_QPT_UD) {
			const struct hermon_ah *ah = (const struct hermon_ah *)wr->wr.ud.ah;

			if (unlikely(ah == NULL)) {
				err = EINVAL;
				break;
			}
			memcpy(w + 16, &ah->av, 32);
			put32(w + 48, wr->wr.ud.remote_qpn & 0xffffff);
			put32(w + 52, wr->wr.ud.remote_qkey);
			put64(w + 56, 0);
			off = 64;
		}
		switch (wr->opcode) {
		case PRDMA_WR_RDMA_WRITE:
		case PRDMA_WR_RDMA_WRITE_WITH_IMM:
		case PRDMA_WR_RDMA_READ:
			put64(w + 16, wr->wr.rdma.remote_addr);
			put32(w + 24, wr->wr.rdma.rkey);
			put32(w + 28, 0);
			off = 32;
			break;
		case PRDMA_WR_ATOMIC_CMP_AND_SWP:
		case PRDMA_WR_ATOMIC_FETCH_AND_ADD:
			put64(w + 16, wr->wr.atomic.remote_addr);
			put32(w + 24, wr->wr.atomic.rkey);
			put32(w + 28, 0);
			if (wr->opcode == PRDMA_WR_ATOMIC_CMP_AND_SWP) {
				put64(w + 32, wr->wr.atomic.swap);
				put64(w + 40, wr->wr.atomic.compare_add);
			} else {
				put64(w + 32, wr->wr.atomic.compare_add);
				put64(w + 40, 0);
			}
			off = 48;
			break;
		case PRDMA_WR_BIND_MW:
			put_bind(w + 16, wr);
			off = 48;
			break;
		case PRDMA_WR_LOCAL_INV:
			memset(w + 16, 0, 32);
			put32(w + 24, wr->invalidate_rkey);
			off = 48;
			break;
		default:
			break;
		}
		if (wr->opcode != PRDMA_WR_BIND_MW && wr->opcode != PRDMA_WR_LOCAL_INV) {
			if ((wr->send_flags & PRDMA_SEND_INLINE) && wr->num_sge == 1)
				off = put_inline_one(w, off, wr->sg_list, qp->max_inline, &err);
			else if (wr->send_flags & PRDMA_SEND_INLINE)
				off = put_inline(w, off, wr, qp->max_inline, &err);
			else
				off = put_data(qp, w, off, wr);
			if (unlikely(err != 0))
				break;
		}
		fence = (wr->send_flags & PRDMA_SEND_FENCE) ? RTE_BIT32(6) : 0;
		put32(w + 4, (off / 16) | fence);
		put32(w + 8, ((wr->send_flags & PRDMA_SEND_SIGNALED) ? 3u << 2 : qp->sig_all << 2) |
		      ((wr->send_flags & PRDMA_SEND_SOLICITED) ? 2u : 0));
		put32(w + 12, wr->imm_data);
		qp->sq_wrid[head & qp->sq_mask] = wr->wr_id;
		hermon_barrier_wqe_before_owner();
		put32(w, op | (((head >> qp->sq_log) & 1) << 31));
		/* stamp the slot past the headroom: prefetched blocks look stale */
		if (qp->sq_shift > 6)
			*(uint32_t *)(qp->sq + (((head + qp->sq_spare) & qp->sq_mask) <<
						qp->sq_shift) + 64) = UINT32_MAX;
		head++;
	}
	if (likely(head != qp->sq_head)) {
		qp->sq_head = head;
		hermon_barrier_wqe_before_doorbell();
		rte_write32_relaxed(qp->db_val, qp->uar_db);
	}
out:
	if (unlikely(err != 0)) {
		*bad_wr = wr;
		rte_errno = err;
		return -err;
	}
	return 0;
}

static __rte_always_inline void
put_recv(uint8_t *w, const struct prdma_recv_wr *wr, uint32_t max)
{
	uint32_t i;

	for (i = 0; i < wr->num_sge; i++, w += 16) {
		put32(w, wr->sg_list[i].length);
		put32(w + 4, wr->sg_list[i].lkey);
		put64(w + 8, wr->sg_list[i].addr);
	}
	if (wr->num_sge < max) {
		put32(w, 0);
		put32(w + 4, HERMON_INVALID_LKEY);
		put64(w + 8, 0);
	}
}

int
hermon_post_recv(struct prdma_qp *pqp, const struct prdma_recv_wr *wr,
		 const struct prdma_recv_wr **bad_wr)
{
	struct hermon_qp *qp = (struct hermon_qp *)pqp;
	uint32_t head = qp->rq_head;
	int err = 0;

	if (unlikely(pqp->state == PRDMA_QPS_RESET || qp->srq != NULL)) {
		err = pqp->state == PRDMA_QPS_RESET ? EBADMSG : EINVAL;
		goto out;
	}
	for (; wr != NULL; wr = wr->next) {
		if (unlikely(head - qp->rq_tail > qp->rq_mask)) {
			err = ENOMEM;
			break;
		}
		if (unlikely(wr->num_sge > qp->max_recv_sge)) {
			err = EINVAL;
			break;
		}
		put_recv(qp->rq + ((head & qp->rq_mask) << qp->rq_shift), wr,
			 qp->max_recv_sge);
		qp->rq_wrid[head & qp->rq_mask] = wr->wr_id;
		head++;
	}
	if (likely(head != qp->rq_head)) {
		qp->rq_head = head;
		hermon_barrier_desc_before_dbrec();
		*qp->rq_db = rte_cpu_to_be_32(head & 0xffff);
	}
out:
	if (unlikely(err != 0)) {
		*bad_wr = wr;
		rte_errno = err;
		return -err;
	}
	return 0;
}

int
hermon_post_srq_recv(struct prdma_srq *psrq, const struct prdma_recv_wr *wr,
		     const struct prdma_recv_wr **bad_wr)
{
	struct hermon_srq *s = (struct hermon_srq *)psrq;
	/* acquire: the freed indices are read after the count that covers them */
	uint32_t prod = __atomic_load_n(&s->free_prod, __ATOMIC_ACQUIRE);
	uint16_t start = s->counter;
	int err = 0;

	while (s->free_cons != prod) {
		uint16_t idx = s->freed[s->free_cons++ & s->mask];

		*(rte_be16_t *)(s->buf + ((size_t)s->tail << s->shift) + 2) =
			rte_cpu_to_be_16(idx);
		s->tail = idx;
	}
	for (; wr != NULL; wr = wr->next) {
		uint8_t *w;

		if (unlikely(s->head == s->tail)) {
			err = ENOMEM;
			break;
		}
		if (unlikely(wr->num_sge > s->max_sge)) {
			err = EINVAL;
			break;
		}
		w = s->buf + ((size_t)s->head << s->shift);
		put_recv(w + 16, wr, s->max_sge);
		s->wrid[s->head] = wr->wr_id;
		s->head = rte_be_to_cpu_16(*(const rte_be16_t *)(w + 2));
		s->counter++;
	}
	if (likely(s->counter != start)) {
		hermon_barrier_desc_before_dbrec();
		*s->db = rte_cpu_to_be_32(s->counter);
	}
	if (unlikely(err != 0)) {
		*bad_wr = wr;
		rte_errno = err;
		return -err;
	}
	return 0;
}
