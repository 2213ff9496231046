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
#include <stdbool.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_io.h>
#include <rte_memory.h>

#include "hermon_barrier.h"
#include "hermon_obj.h"

/*
 * What follows the control segment, by QP type and opcode: one look-up both
 * refuses an opcode the QP type does not take (WK_NONE) and picks the
 * segments to write.
 */
enum hermon_wr_kind {
	WK_NONE = 0,
	WK_SEND = 1,    /* data only: it starts at byte 16 (WK_SEND * 16) */
	WK_RADDR = 2,   /* remote address, data at byte 32 (WK_RADDR * 16) */
	WK_ATOMIC,      /* remote address, atomic, data */
	WK_UD,          /* datagram, data */
	WK_BIND,        /* bind segment, no data */
	WK_LINV,        /* local invalidate segment, no data */
};

#define KINDS_UC \
	[PRDMA_WR_SEND] = WK_SEND, [PRDMA_WR_SEND_WITH_IMM] = WK_SEND, \
	[PRDMA_WR_SEND_WITH_INV] = WK_SEND, [PRDMA_WR_RDMA_WRITE] = WK_RADDR, \
	[PRDMA_WR_RDMA_WRITE_WITH_IMM] = WK_RADDR, [PRDMA_WR_LOCAL_INV] = WK_LINV, \
	[PRDMA_WR_BIND_MW] = WK_BIND

static const uint8_t hermon_wr_kind[8][16] = {
	[PRDMA_QPT_RC] = { KINDS_UC, [PRDMA_WR_RDMA_READ] = WK_RADDR,
			   [PRDMA_WR_ATOMIC_CMP_AND_SWP] = WK_ATOMIC,
			   [PRDMA_WR_ATOMIC_FETCH_AND_ADD] = WK_ATOMIC },
	[PRDMA_QPT_UC] = { KINDS_UC },
	[PRDMA_QPT_UD] = { [PRDMA_WR_SEND] = WK_UD, [PRDMA_WR_SEND_WITH_IMM] = WK_UD },
};

/*
 * F21: strong ordering (control dword 2 bit 7) for local invalidation and
 * window binds, as rdma-core mlx4_post_send sets MLX4_WQE_CTRL_STRONG_ORDER.
 */
static const rte_be32_t hermon_wqe_so[16] = {
	[PRDMA_WR_LOCAL_INV] = RTE_BE32(RTE_BIT32(7)),
	[PRDMA_WR_BIND_MW] = RTE_BE32(RTE_BIT32(7)),
};

/*
 * Control dword 0 (big-endian) by the ring pass's parity and the request's
 * opcode: the WQE opcode, with the owner bit (31) that makes it the
 * device's on that pass.
 */
#define OWN RTE_BIT32(31)
static const rte_be32_t hermon_wqe_own[2][16] = {
	{
		[PRDMA_WR_SEND] = RTE_BE32(HERMON_WQE_SEND),
		[PRDMA_WR_SEND_WITH_IMM] = RTE_BE32(HERMON_WQE_SEND_IMM),
		[PRDMA_WR_SEND_WITH_INV] = RTE_BE32(HERMON_WQE_SEND_INVAL),
		[PRDMA_WR_RDMA_WRITE] = RTE_BE32(HERMON_WQE_RDMA_WRITE),
		[PRDMA_WR_RDMA_WRITE_WITH_IMM] = RTE_BE32(HERMON_WQE_RDMA_WRITE_IMM),
		[PRDMA_WR_RDMA_READ] = RTE_BE32(HERMON_WQE_RDMA_READ),
		[PRDMA_WR_ATOMIC_CMP_AND_SWP] = RTE_BE32(HERMON_WQE_ATOMIC_CS),
		[PRDMA_WR_ATOMIC_FETCH_AND_ADD] = RTE_BE32(HERMON_WQE_ATOMIC_FA),
		[PRDMA_WR_LOCAL_INV] = RTE_BE32(HERMON_WQE_LOCAL_INVAL),
		[PRDMA_WR_BIND_MW] = RTE_BE32(HERMON_WQE_BIND_MW),
	}, {
		[PRDMA_WR_SEND] = RTE_BE32(OWN | HERMON_WQE_SEND),
		[PRDMA_WR_SEND_WITH_IMM] = RTE_BE32(OWN | HERMON_WQE_SEND_IMM),
		[PRDMA_WR_SEND_WITH_INV] = RTE_BE32(OWN | HERMON_WQE_SEND_INVAL),
		[PRDMA_WR_RDMA_WRITE] = RTE_BE32(OWN | HERMON_WQE_RDMA_WRITE),
		[PRDMA_WR_RDMA_WRITE_WITH_IMM] = RTE_BE32(OWN | HERMON_WQE_RDMA_WRITE_IMM),
		[PRDMA_WR_RDMA_READ] = RTE_BE32(OWN | HERMON_WQE_RDMA_READ),
		[PRDMA_WR_ATOMIC_CMP_AND_SWP] = RTE_BE32(OWN | HERMON_WQE_ATOMIC_CS),
		[PRDMA_WR_ATOMIC_FETCH_AND_ADD] = RTE_BE32(OWN | HERMON_WQE_ATOMIC_FA),
		[PRDMA_WR_LOCAL_INV] = RTE_BE32(OWN | HERMON_WQE_LOCAL_INVAL),
		[PRDMA_WR_BIND_MW] = RTE_BE32(OWN | HERMON_WQE_BIND_MW),
	},
};
#undef OWN

_Static_assert(PRDMA_WR_MAX <= 16, "hermon_wr_kind rows hold every opcode");
_Static_assert(PRDMA_SEND_FENCE == 1 && PRDMA_SEND_SIGNALED == 2 &&
	       PRDMA_SEND_SOLICITED == 4, "sq_ctrl2 and the f bit index by these");

void
hermon_sq_fp_init(struct hermon_qp *qp)
{
	uint32_t i;

	qp->sq_kinds = hermon_wr_kind[qp->pub.qp_type & 7];
	/* data at byte kind * 16, two chunks at most (up to byte 128), QP's limit */
	for (i = 0; i < RTE_DIM(qp->sq_inl_fast); i++)
		qp->sq_inl_fast[i] = i == WK_SEND || i == WK_RADDR ?
			RTE_MIN(qp->max_inline, 120 - 16 * i) : 0;
	/* C = 0b11 asks for a CQE (always, when the QP signals all); SE = bit 1 */
	for (i = 0; i < RTE_DIM(qp->sq_ctrl2); i++)
		qp->sq_ctrl2[i] = rte_cpu_to_be_32(
			((i & PRDMA_SEND_SIGNALED) || qp->sig_all != 0 ? 3u << 2 : 0) |
			((i & PRDMA_SEND_SOLICITED) ? 2u : 0));
	/* stamping: the slot one headroom ahead, blocks past the first */
	qp->sq_stamp_room = qp->sq_shift > 6 ? 1u << qp->sq_shift : 0;
	qp->sq_stamp_delta = qp->sq_spare << qp->sq_shift;
	qp->sq_stamp_mask = ((qp->sq_mask + 1) << qp->sq_shift) - 1;
}

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

/* The remote address segment of RDMA WRITE and READ. */
static __rte_always_inline void
put_raddr(uint8_t *w, const struct prdma_send_wr *wr)
{
	put64(w + 16, wr->wr.rdma.remote_addr);
	put32(w + 24, wr->wr.rdma.rkey);
	put32(w + 28, 0);
}

static __rte_always_inline uint64_t
sge_addr(const struct hermon_qp *qp, const struct prdma_sge *s)
{
	/* a DMA MR is a physical region: it takes IOVAs */
	if (unlikely(qp->mpt_dma != NULL && qp->mpt_dma[(s->lkey >> 8) & qp->mpt_mask]))
		return rte_mem_virt2iova((void *)(uintptr_t)s->addr);
	return s->addr;
}

/*
 * Inline data of any number of SGEs from WQE byte @off: chunks never cross
 * 64 bytes. Returns the 16-aligned end, or 0 if the data exceeds @max.
 */
static __rte_noinline uint32_t
put_inline(uint8_t *w, uint32_t off, const struct prdma_send_wr *wr, uint32_t max)
{
	uint32_t i, total = 0, room, k, chunk = 0, hdr = off;

	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (unlikely(total > max))
		return 0;
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

/*
 * Copy @n <= 64 bytes as two overlapping fixed-size moves: a handful of
 * instructions where a variable-length memcpy costs one per few bytes, and
 * never a byte read past the source.
 */
static __rte_always_inline void
copy_upto64(uint8_t *d, const uint8_t *s, uint32_t n)
{
	if (likely(n >= 16)) {
		if (n > 32) {
			memcpy(d, s, 32);
			memcpy(d + n - 32, s + n - 32, 32);
		} else {
			memcpy(d, s, 16);
			memcpy(d + n - 16, s + n - 16, 16);
		}
	} else if (n >= 8) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(d, s, 4);
		memcpy(d + n - 4, s + n - 4, 4);
	} else if (n > 0) {
		d[0] = s[0];
		d[n >> 1] = s[n >> 1];
		d[n - 1] = s[n - 1];
	}
}

/* One inline chunk of @n bytes (header included) at WQE byte @off. */
/*
 * F17: the first dword of a 64-byte block past block 0 is what tells the
 * prefetcher the block is valid (a stamp is 0xffffffff): a segment that
 * starts a block is written with that dword last, behind a barrier
 * (rdma-core/Linux order every segment so; only a block's first dword
 * carries the validity). Block 0 is guarded by the owner bit.
 */
static __rte_always_inline void
order_block_start(uint32_t off)
{
	if ((off & 63) == 0 && off != 0)
		hermon_barrier_dseg_before_count();
}

static __rte_always_inline void
put_chunk(uint8_t *w, uint32_t off, const uint8_t *src, uint32_t n)
{
	/* the data, then the header that makes the chunk valid */
	copy_upto64(w + off + 4, src, n);
	order_block_start(off);
	*(rte_be32_t *)(w + off) = rte_cpu_to_be_32(RTE_BIT32(31) | n);
}

/*
 * One gather entry. F17: key and address before the byte count; F18: 0
 * bytes is written as 0x80000000 (a zero-length inline segment), since a
 * byte count of 0 means 2^31 (rdma-core set_data_seg).
 */
static __rte_always_inline void
put_dseg(uint8_t *w, uint32_t off, uint32_t len, uint32_t lkey, uint64_t addr)
{
	put32(w + off + 4, lkey);
	put64(w + off + 8, addr);
	order_block_start(off);
	put32(w + off, len != 0 ? len : RTE_BIT32(31));
}

/*
 * The common case of put_inline: one source buffer. @off is 16-aligned, so
 * a chunk header sits at (off & 63) in {0, 16, 32, 48} and the chunk's
 * data may run to the next 64-byte boundary: 60 - (off & 63) bytes; every
 * further chunk starts on a boundary and holds up to 60.
 */
static __rte_always_inline uint32_t
put_inline_one(uint8_t *w, uint32_t off, const struct prdma_sge *sg, uint32_t max)
{
	const uint8_t *src = (const uint8_t *)(uintptr_t)sg->addr;
	uint32_t len = sg->length, room = 60 - (off & 63);

	if (unlikely(len > max))
		return 0;
	if (len > room) {
		put_chunk(w, off, src, room);
		off += 4 + room;
		src += room;
		len -= room;
		while (unlikely(len > 60)) {
			put_chunk(w, off, src, 60);
			off += 64;
			src += 60;
			len -= 60;
		}
	}
	put_chunk(w, off, src, len);
	return (off + 4 + len + 15) & ~15u;
}

static __rte_always_inline uint32_t
put_data(const struct hermon_qp *qp, uint8_t *w, uint32_t off,
	 const struct prdma_send_wr *wr)
{
	uint32_t i;

	/* F17: last to first, so that no block looks complete early */
	for (i = wr->num_sge; i-- > 0;) {
		const struct prdma_sge *s = &wr->sg_list[i];

		put_dseg(w, off + 16 * i, s->length, s->lkey, sge_addr(qp, s));
	}
	return off + 16 * wr->num_sge;
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

/*
 * The segments of the less common kinds (atomic, datagram, bind, local
 * invalidate), kept out of line so that they cost the common kinds no
 * registers. Returns the WQE offset after them, or 0 for a bad request.
 */
static __rte_noinline uint32_t
put_segs_other(uint8_t *w, const struct prdma_send_wr *wr, enum hermon_wr_kind kind)
{
	const struct hermon_ah *ah;

	switch (kind) {
	case WK_ATOMIC:
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
		return 48;
	case WK_UD:
		ah = (const struct hermon_ah *)wr->wr.ud.ah;
		if (unlikely(ah == NULL))
			return 0;
		memcpy(w + 16, &ah->av, 32);
		put32(w + 48, wr->wr.ud.remote_qpn & 0xffffff);
		put32(w + 52, wr->wr.ud.remote_qkey);
		memcpy(w + 56, ah->l2, 8);
		return 64;
	case WK_BIND:
		put_bind(w + 16, wr);
		return 48;
	case WK_LINV:
		memset(w + 16, 0, 32);
		put32(w + 24, wr->invalidate_rkey);
		return 48;
	default:
		return 0;
	}
}

/*
 * The control segment and the request's wr_id, then the owner bit that
 * hands the WQE (@off bytes long) to the device, then the stamp.
 */
static __rte_always_inline void
put_ctrl(struct hermon_qp *qp, uint8_t *w, const struct prdma_send_wr *wr,
	 uint32_t head, uint32_t off)
{
	uint32_t flags = wr->send_flags;

	/* DS in 16-byte units; PRDMA_SEND_FENCE (bit 0) lands on f (bit 6) */
	put32(w + 4, (off >> 4) | ((flags & PRDMA_SEND_FENCE) << 6));
	*(rte_be32_t *)(w + 8) = qp->sq_ctrl2[flags & (PRDMA_SEND_SIGNALED |
						       PRDMA_SEND_SOLICITED)] |
		hermon_wqe_so[wr->opcode];
	put32(w + 12, wr->imm_data);
	qp->sq_wrid[head & qp->sq_mask] = wr->wr_id;
	hermon_barrier_wqe_before_owner();
	*(rte_be32_t *)w = hermon_wqe_own[(head >> qp->sq_log) & 1][wr->opcode];
	/*
	 * F16: stamp the slot past the headroom, the first dword of every
	 * 64-byte block but block 0 up to the size of the WQE it last held
	 * (its DS; 0x3f while it still holds the initial fill), so that the
	 * prefetcher sees no stale block (rdma-core/Linux stamp_send_wqe).
	 * A 64-byte stride has no such block (sq_stamp_room 0).
	 */
	if (qp->sq_stamp_room != 0) {
		uint8_t *s = qp->sq + (((uintptr_t)(w - qp->sq) + qp->sq_stamp_delta) &
				       qp->sq_stamp_mask);
		uint32_t end = RTE_MIN((uint32_t)(s[7] & 0x3f) << 4, qp->sq_stamp_room), b;

		for (b = 64; b < end; b += 64)
			*(uint32_t *)(s + b) = UINT32_MAX;
	}
}

/*
 * Write the send WQE of @wr in slot @head and hand it to the device (its
 * owner bit); the doorbell is the caller's. Returns 0 or a positive errno.
 */
static __rte_always_inline int
post_one(struct hermon_qp *qp, const struct prdma_send_wr *wr, uint32_t head)
{
	uint32_t off, flags = wr->send_flags, opc = (uint32_t)wr->opcode, kind;
	uint8_t *w;

	if (unlikely(head - qp->sq_tail >= qp->sq_cap))
		return ENOMEM;
	if (unlikely(opc >= PRDMA_WR_MAX))
		return EINVAL;
	kind = qp->sq_kinds[opc];
	if (unlikely(kind == WK_NONE || wr->num_sge > qp->max_send_sge))
		return EINVAL;
	w = qp->sq + ((head & qp->sq_mask) << qp->sq_shift);
	if (likely(kind == WK_RADDR)) {
		put_raddr(w, wr);
		off = 32;
	} else if (kind == WK_SEND) {
		off = 16;
	} else {
		off = put_segs_other(w, wr, kind);
		if (unlikely(off == 0))
			return EINVAL;
		if (kind >= WK_BIND)
			goto ctrl;
	}
	if (flags & PRDMA_SEND_INLINE) {
		if (likely(wr->num_sge == 1))
			off = put_inline_one(w, off, wr->sg_list, qp->max_inline);
		else
			off = put_inline(w, off, wr, qp->max_inline);
		if (unlikely(off == 0))
			return EINVAL;
	} else {
		off = put_data(qp, w, off, wr);
	}
ctrl:
	put_ctrl(qp, w, wr, head, off);
	return 0;
}

static __rte_always_inline void
post_doorbell(struct hermon_qp *qp, uint32_t head)
{
	qp->sq_head = head;
	hermon_barrier_wqe_before_doorbell();
	rte_write32_relaxed(qp->db_val, qp->uar_db);
}

/*
 * BlueFlame (rdma-core mlx4_post_send, one inline WQE of at most half a
 * register): the WQE is in the ring with its owner bit; its copy goes to
 * the register's current half, with the WQE counter in control bits 8-23
 * and the QPN in bits 8-31 of control dword 2, in 64-bit stores rounded up
 * to 64 bytes. The device takes the WQE from the copy, with no doorbell
 * and no read of the ring; a copy that arrives torn, it ignores, and reads
 * the ring as for a doorbell. The halves alternate so that the device
 * never reads a half being written. The ring copy stays as posted.
 */
static __rte_always_inline void
post_bf(struct hermon_qp *qp, uint32_t head, uint32_t bytes)
{
	const uint64_t *src = (const uint64_t *)(qp->sq + ((head & qp->sq_mask) << qp->sq_shift));
	volatile uint64_t *dst = (volatile uint64_t *)(qp->bf + qp->bf_off);
	uint32_t i, n = ((bytes + 63) & ~63u) / 8;
	union { uint64_t q; rte_be32_t d[2]; } c0, c1;

	qp->sq_head = head + 1;
	c0.q = src[0];
	c0.d[0] |= rte_cpu_to_be_32((head & 0xffff) << 8);
	c1.q = src[1];
	c1.d[0] |= qp->db_val;
	hermon_barrier_wqe_before_bf();
	dst[0] = c0.q;
	dst[1] = c1.q;
	for (i = 2; i < n; i++)
		dst[i] = src[i];
	hermon_barrier_bf_flush();
	qp->bf_off ^= qp->bf_half;
}

static __rte_noinline int
post_fail(const struct prdma_send_wr *wr, const struct prdma_send_wr **bad_wr, int err)
{
	*bad_wr = wr;
	rte_errno = err;
	return -err;
}

/* A chain of requests (or none): one doorbell for all that were written. */
static __rte_noinline int
post_send_chain(struct hermon_qp *qp, const struct prdma_send_wr *wr,
		const struct prdma_send_wr **bad_wr)
{
	uint32_t head = qp->sq_head;
	int err = 0;

	/* QP1's MLX WQEs carry built headers (a UD QP: never the short path) */
	if (unlikely(qp->mlx))
		return hermon_sqp_post_send(qp, wr, bad_wr);
	if (unlikely(qp->pub.state < PRDMA_QPS_RTS))
		return post_fail(wr, bad_wr, EBADMSG);
	for (; wr != NULL; wr = wr->next) {
		err = post_one(qp, wr, head);
		if (unlikely(err != 0))
			break;
		head++;
	}
	if (likely(head != qp->sq_head))
		post_doorbell(qp, head);
	if (unlikely(err != 0))
		return post_fail(wr, bad_wr, err);
	return 0;
}

/*
 * The common request, of the common kinds (SEND, RDMA WRITE or READ; one
 * inline buffer, or gather entries that take virtual addresses), written
 * in slot @head in straight-line code that calls nothing and so saves no
 * registers. The caller has checked the QP's state and the ring room.
 * Returns the WQE's bytes, or 0, before a byte is written, for anything
 * else: the caller hands it to post_one, which checks and reports it.
 */
static __rte_always_inline uint32_t
post_fast(struct hermon_qp *qp, const struct prdma_send_wr *wr, uint32_t head)
{
	uint32_t opc = (uint32_t)wr->opcode, flags = wr->send_flags, kind, off;
	uint8_t *w;

	if (unlikely(opc >= PRDMA_WR_MAX))
		return 0;
	kind = qp->sq_kinds[opc];
	if (unlikely(kind - WK_SEND > WK_RADDR - WK_SEND))
		return 0;
	/* the control segment, then the remote address segment for WK_RADDR */
	off = kind * 16;
	if (flags & PRDMA_SEND_INLINE) {
		const uint8_t *src;
		uint32_t len, room = 60 - off;

		/* one buffer that fits the QP and two chunks at most */
		if (unlikely(wr->num_sge != 1))
			return 0;
		src = (const uint8_t *)(uintptr_t)wr->sg_list->addr;
		len = wr->sg_list->length;
		if (unlikely(len > qp->sq_inl_fast[kind]))
			return 0;
		w = qp->sq + ((head & qp->sq_mask) << qp->sq_shift);
		if (likely(kind == WK_RADDR))
			put_raddr(w, wr);
		if (len > room) {
			/* the second chunk starts on the 64-byte boundary */
			put_chunk(w, off, src, room);
			put_chunk(w, 64, src + room, len - room);
			off += 4;
		} else {
			put_chunk(w, off, src, len);
		}
		off = (off + 4 + len + 15) & ~15u;
	} else {
		uint32_t i;

		if (unlikely(wr->num_sge > qp->max_send_sge || qp->mpt_dma != NULL))
			return 0;
		w = qp->sq + ((head & qp->sq_mask) << qp->sq_shift);
		if (likely(kind == WK_RADDR))
			put_raddr(w, wr);
		for (i = wr->num_sge; i-- > 0;) {
			const struct prdma_sge *sg = &wr->sg_list[i];

			put_dseg(w, off + 16 * i, sg->length, sg->lkey, sg->addr);
		}
		off += 16 * wr->num_sge;
	}
	put_ctrl(qp, w, wr, head, off);
	return off;
}

/*
 * The common call, one request that post_fast takes; everything else,
 * errors included, goes before a byte is written to post_send_chain.
 */
int
hermon_post_send(struct prdma_qp *pqp, const struct prdma_send_wr *wr,
		 const struct prdma_send_wr **bad_wr)
{
	struct hermon_qp *qp = (struct hermon_qp *)pqp;
	uint32_t head, bytes;

	if (unlikely(wr == NULL || wr->next != NULL || pqp->state < PRDMA_QPS_RTS))
		goto general;
	head = qp->sq_head;
	if (unlikely(head - qp->sq_tail >= qp->sq_cap))
		goto general;
	bytes = post_fast(qp, wr, head);
	if (unlikely(bytes == 0))
		goto general;
	/* bf_max is 0 without a register: one test on the doorbell-only path */
	if (bytes <= qp->bf_max && (wr->send_flags & PRDMA_SEND_INLINE))
		post_bf(qp, head, bytes);
	else
		post_doorbell(qp, head + 1);
	return 0;
general:
	return post_send_chain(qp, wr, bad_wr);
}

/* One request of a burst that post_fast does not take: 0 or a positive errno. */
static __rte_noinline int
post_one_other(struct hermon_qp *qp, const struct prdma_send_wr *wr, uint32_t head)
{
	return post_one(qp, wr, head);
}

/*
 * The send queue's constants for one burst, in locals: the WQE stores
 * (bytes, and 32-bit words) may alias the QP's fields, so that through
 * the QP the compiler would reload each of them after every store.
 */
struct burst_sq {
	uint8_t *sq;
	uint64_t *wrid;
	const uint8_t *kinds;
	uint32_t mask, shift, log;
	uint32_t inl[WK_RADDR + 1];
	uint32_t stamp_room, stamp_delta, stamp_mask;
	rte_be32_t ctrl2[8];
};

/*
 * One request of a burst as post_fast writes an inline one (the same
 * WQE, byte for byte), from the burst's constants: false, before a byte is
 * written, for anything else.
 */
static __rte_always_inline bool
burst_inline(const struct burst_sq *b, const struct prdma_send_wr *wr, uint32_t head,
	     const rte_be32_t *own)
{
	uint32_t opc = (uint32_t)wr->opcode, flags = wr->send_flags, kind, off, len;
	const uint8_t *src;
	uint8_t *w, *st;

	if (unlikely(opc >= PRDMA_WR_MAX))
		return false;
	kind = b->kinds[opc];
	if (unlikely(kind - WK_SEND > WK_RADDR - WK_SEND || !(flags & PRDMA_SEND_INLINE) ||
		     wr->num_sge != 1))
		return false;
	len = wr->sg_list->length;
	if (unlikely(len > b->inl[kind]))
		return false;
	src = (const uint8_t *)(uintptr_t)wr->sg_list->addr;
	w = b->sq + ((head & b->mask) << b->shift);
	if (likely(kind == WK_RADDR)) {
		put_raddr(w, wr);
		/* a first chunk that fills block 0 is a constant size: no branch */
		if (len > 28) {
			put_chunk(w, 32, src, 28);
			put_chunk(w, 64, src + 28, len - 28);
			off = 36;
		} else {
			put_chunk(w, 32, src, len);
			off = 32;
		}
	} else if (len > 44) {
		put_chunk(w, 16, src, 44);
		put_chunk(w, 64, src + 44, len - 44);
		off = 20;
	} else {
		put_chunk(w, 16, src, len);
		off = 16;
	}
	off = (off + 4 + len + 15) & ~15u;
	put32(w + 4, (off >> 4) | ((flags & PRDMA_SEND_FENCE) << 6));
	*(rte_be32_t *)(w + 8) = b->ctrl2[flags & (PRDMA_SEND_SIGNALED | PRDMA_SEND_SOLICITED)];
	put32(w + 12, wr->imm_data);
	b->wrid[head & b->mask] = wr->wr_id;
	hermon_barrier_wqe_before_owner();
	*(rte_be32_t *)w = own[opc];
	/*
	 * F16, as put_ctrl stamps: the blocks of the slot past the headroom
	 * up to the size of the WQE it held; block 1 is always inside a
	 * stride that needs stamping (128 bytes or more).
	 */
	if (b->stamp_room != 0) {
		uint32_t end, k;

		st = b->sq + (((uintptr_t)(w - b->sq) + b->stamp_delta) & b->stamp_mask);
		end = (uint32_t)(st[7] & 0x3f) << 4;
		if (end > 64) {
			*(uint32_t *)(st + 64) = UINT32_MAX;
			end = RTE_MIN(end, b->stamp_room);
			for (k = 128; unlikely(k < end); k += 64)
				*(uint32_t *)(st + k) = UINT32_MAX;
		}
	}
	return true;
}

/*
 * prdma_post_send_burst: the QP's state and the ring room once for the
 * burst, then each request: an inline SEND or RDMA WRITE of the short
 * path from the burst's constants, anything else as post_one takes it in
 * a chain, and one doorbell for all that were written. A request that does
 * not fit fails with ENOMEM, as the first one past the ring of a chain does.
 */
int
hermon_post_send_burst(struct prdma_qp *pqp, const struct prdma_send_wr *wr,
		       uint16_t nb, const struct prdma_send_wr **bad_wr)
{
	struct hermon_qp *qp = (struct hermon_qp *)pqp;
	uint32_t head = qp->sq_head, room, n, i;
	const rte_be32_t *own;
	struct burst_sq b;
	int err = 0;

	if (unlikely(nb == 0))
		return 0;
	if (unlikely(pqp->state < PRDMA_QPS_RTS))
		return post_fail(wr, bad_wr, EBADMSG);
	room = qp->sq_cap - (head - qp->sq_tail);
	n = RTE_MIN((uint32_t)nb, room);
	b.sq = qp->sq;
	b.wrid = qp->sq_wrid;
	b.kinds = qp->sq_kinds;
	b.mask = qp->sq_mask;
	b.shift = qp->sq_shift;
	b.log = qp->sq_log;
	b.inl[WK_NONE] = 0;
	b.inl[WK_SEND] = qp->sq_inl_fast[WK_SEND];
	b.inl[WK_RADDR] = qp->sq_inl_fast[WK_RADDR];
	b.stamp_room = qp->sq_stamp_room;
	b.stamp_delta = qp->sq_stamp_delta;
	b.stamp_mask = qp->sq_stamp_mask;
	memcpy(b.ctrl2, qp->sq_ctrl2, sizeof(b.ctrl2));
	/* control dword 0 by opcode for this pass of the ring */
	own = hermon_wqe_own[(head >> b.log) & 1];
	for (i = 0; i < n; i++) {
		if (unlikely(((head + i) & b.mask) == 0))
			own = hermon_wqe_own[((head + i) >> b.log) & 1];
		if (unlikely(!burst_inline(&b, &wr[i], head + i, own))) {
			err = post_one_other(qp, &wr[i], head + i);
			if (unlikely(err != 0))
				break;
		}
	}
	if (unlikely(i < nb && err == 0))
		err = ENOMEM;
	if (likely(i != 0))
		post_doorbell(qp, head + i);
	if (unlikely(err != 0))
		return post_fail(&wr[i], bad_wr, err);
	return 0;
}

/*
 * Work-request templates (prdma_wr_template_create). What a template fixes
 * is prebuilt once, big-endian, in t->prov: control dword 0 by ring
 * parity, the f bit of dword 1, dwords 2-3 (C/SE with sq_sig_all folded
 * in, the immediate) as one 64-bit store, the rkey dword pair of the
 * remote address segment, the lkey. A post writes only the slot address,
 * the remote address, the data, DS, wr_id, the owner dword, the stamp and
 * the doorbell: the WQE is the one prdma_post_send writes for the same
 * request, byte for byte.
 */
struct hermon_tmpl {
	rte_be32_t own[2];
	uint32_t fence;       /* dword 1's f bit, host order */
	rte_be32_t lkey;
	uint64_t ctrl23;      /* dwords 2 and 3 as they lie in the WQE */
	uint64_t rkey0;       /* remote address segment bytes 8-15: rkey, 0 */
	/* for the single post: the QP's ring as it needs it, no shift by a register */
	uint32_t ring;        /* WQEs in the ring: head & ring is its parity */
	uint32_t stride;      /* bytes of one slot */
	/* inline: hermon_tmpl_inl's row of the kind and f bit, by length */
	const struct tmpl_inl_row *inl;
};

/*
 * The inline single post's per-length words, big-endian, by kind (row
 * kind - 1), f bit and length up to the short path's bound (120 - 16 *
 * kind): control dword 1 (DS and f) and the header of the last inline
 * chunk (the only one for a length within block 0, the second one past
 * it), side by side so that one row pointer in the template and the
 * length give both. Filled once at load; a look-up where the post would
 * spend about ten instructions on the arithmetic.
 */
#define TMPL_INL_MAX 104
struct tmpl_inl_row {
	rte_be32_t ctrl1;
	rte_be32_t last_hdr;
};
static struct tmpl_inl_row hermon_tmpl_inl[2][2][TMPL_INL_MAX + 1];

RTE_INIT(hermon_tmpl_inl_init)
{
	uint32_t kind, f, len;

	for (kind = WK_SEND; kind <= WK_RADDR; kind++) {
		const uint32_t room = 60 - kind * 16;

		for (f = 0; f < 2; f++) {
			for (len = 0; len <= TMPL_INL_MAX; len++) {
				struct tmpl_inl_row *r = &hermon_tmpl_inl[kind - 1][f][len];
				uint32_t bytes = (kind * 16 + 4 + (len > room ? 4 : 0) + len +
						  15) & ~15u;

				r->ctrl1 = rte_cpu_to_be_32((bytes >> 4) | (f << 6));
				r->last_hdr = rte_cpu_to_be_32(RTE_BIT32(31) |
							       (len > room ? len - room : len));
			}
		}
	}
}

_Static_assert(TMPL_INL_MAX == 120 - 16 * WK_SEND && 120 - 16 * WK_RADDR <= TMPL_INL_MAX,
	       "the tables cover the short path's inline bound (hermon_sq_fp_init)");

/* How a template's post stamps the slot one headroom ahead (fixed per QP). */
enum {
	TS_NONE,   /* a 64-byte stride: nothing past block 0 */
	TS_ONE,    /* a 128-byte stride: block 1 */
	TS_LOOP,   /* larger: every block but the first */
};

_Static_assert(sizeof(struct hermon_tmpl) <= sizeof(((struct prdma_wr_tmpl *)0)->prov),
	       "the prebuilt segments fit the template");

static __rte_noinline int
tmpl_fail(int err)
{
	rte_errno = err;
	return -err;
}

/*
 * One post from a template of segment kind @kind (WK_SEND or WK_RADDR),
 * inline (@inl, at most two chunks: the create checked the bound) or one
 * gather entry; @bf for a QP with a BlueFlame register, @stamp how its
 * stride is stamped (both fixed from the QP's create to its destroy). The
 * library's wrapper checked the template, its QP and @len. Every value of
 * the QP or the template used after the first WQE store is either read
 * once there or held in a register (a byte store may alias them); no
 * shift by a variable (it would pin the count register): the slot is
 * index * stride, the ring parity head & ring, DS and the last chunk's
 * header come from hermon_tmpl_inl.
 *
 * F16 here stamps every 64-byte block but the first of the slot one
 * headroom ahead, not only those the WQE it last held reached (put_ctrl):
 * the slot is software's until it is posted, so the extra stamps are
 * harmless, and they spare reading its old size. The slot is also
 * stamped before this WQE's owner bit rather than after, which is as safe
 * for the same reason.
 */
static __rte_always_inline int
tmpl_post(struct prdma_qp *pqp, const struct prdma_wr_tmpl *t, const void *data,
	  uint32_t len, uint64_t raddr, uint64_t wr_id, const uint32_t kind, const bool inl,
	  const bool bf, const int stamp)
{
	struct hermon_qp *qp = (struct hermon_qp *)pqp;
	const struct hermon_tmpl *h = (const struct hermon_tmpl *)t->prov;
	const uint32_t room = 60 - kind * 16;
	const uint32_t head = qp->sq_head;
	uint32_t idx, slot;
	rte_be32_t own;
	uint8_t *sq, *w;

	if (unlikely(pqp->state < PRDMA_QPS_RTS))
		return tmpl_fail(EBADMSG);
	/* ring full: head - tail >= cap, as the sign of head - (tail + cap),
	 * which needs no copy of head (the counts are never 2^31 apart) */
	if (unlikely((int32_t)(head - (qp->sq_tail + qp->sq_cap)) >= 0))
		return tmpl_fail(ENOMEM);
	idx = head & qp->sq_mask;
	qp->sq_wrid[idx] = wr_id;
	/* read after the wr_id store (which cannot alias it): one register
	 * fewer while all six arguments are live */
	sq = qp->sq;
	slot = idx * h->stride;
	if (stamp != TS_NONE) {
		uint8_t *st = sq + ((slot + qp->sq_stamp_delta) & qp->sq_stamp_mask);

		*(uint32_t *)(st + 64) = UINT32_MAX;
		if (stamp == TS_LOOP) {
			uint32_t k, end = qp->sq_stamp_room;

			for (k = 128; k < end; k += 64)
				*(uint32_t *)(st + k) = UINT32_MAX;
		}
	}
	w = sq + slot;
	/* the WQE's bytes: control (+ remote address), then the data */
	if (inl)
		*(rte_be32_t *)(w + 4) = h->inl[len].ctrl1;
	else
		put32(w + 4, (kind + 1) | h->fence);
	*(uint64_t *)(w + 8) = h->ctrl23;
	if (kind == WK_RADDR) {
		put64(w + 16, raddr);
		*(uint64_t *)(w + 24) = h->rkey0;
	}
	if (inl) {
		const uint8_t *src = data;
		const rte_be32_t last = h->inl[len].last_hdr;

		/* laid out for two chunks, the second over 32 bytes (a jump
		 * for shorter data) */
		if (likely(len > room)) {
			memcpy(w + kind * 16 + 4, src, room);
			*(rte_be32_t *)(w + kind * 16) = rte_cpu_to_be_32(RTE_BIT32(31) | room);
			/* the second chunk, at byte 68: its first and last 32 bytes
			 * addressed from len (no pointer arithmetic), or shorter */
			if (likely(len > room + 32)) {
				memcpy(w + 68, src + room, 32);
				memcpy(w + len + 36 - room, src + len - 32, 16);
				memcpy(w + len + 52 - room, src + len - 16, 16);
			} else {
				copy_upto64(w + 68, src + room, len - room);
			}
			/* F17: block 1's first dword after its data */
			hermon_barrier_dseg_before_count();
			*(rte_be32_t *)(w + 64) = last;
		} else {
			copy_upto64(w + kind * 16 + 4, src, len);
			*(rte_be32_t *)(w + kind * 16) = last;
		}
	} else {
		*(rte_be32_t *)(w + kind * 16 + 4) = h->lkey;
		put64(w + kind * 16 + 8, (uintptr_t)data);
		put32(w + kind * 16, len != 0 ? len : RTE_BIT32(31));
	}
	/* the ring parity of head: read here, it lives in no register across the copy */
	own = h->own[0];
	if (head & h->ring)
		own = h->own[1];
	hermon_barrier_wqe_before_owner();
	*(rte_be32_t *)w = own;
	if (bf && inl) {
		uint32_t bytes = (rte_be_to_cpu_32(h->inl[len].ctrl1) & 0x3f) << 4;

		if (bytes <= qp->bf_max) {
			post_bf(qp, head, bytes);
			return 0;
		}
	}
	post_doorbell(qp, head + 1);
	return 0;
}

/*
 * prdma_post_template_burst: the QP's state and the ring room once, each
 * request's WQE as tmpl_post writes it (byte for byte) from the QP's and
 * the template's constants held in locals (the WQE stores may alias them),
 * and one doorbell for all that were written (no BlueFlame, as for
 * hermon_post_send_burst).
 */
static __rte_always_inline int
tmpl_burst(struct prdma_qp *pqp, const struct prdma_wr_tmpl *t,
	   const struct prdma_tmpl_req *req, uint16_t nb, uint16_t *posted,
	   const uint32_t kind, const bool inl)
{
	struct hermon_qp *qp = (struct hermon_qp *)pqp;
	const struct hermon_tmpl *h = (const struct hermon_tmpl *)t->prov;
	const uint32_t room = 60 - kind * 16;
	const uint32_t head = qp->sq_head;
	uint8_t *const sq = qp->sq;
	uint64_t *const wrid = qp->sq_wrid;
	const uint32_t mask = qp->sq_mask, shift = qp->sq_shift, log = qp->sq_log;
	const uint32_t room_st = qp->sq_stamp_room, delta = qp->sq_stamp_delta;
	const uint32_t smask = qp->sq_stamp_mask, max_len = t->max_len;
	const uint32_t fence = h->fence;
	const rte_be32_t own0 = h->own[0], own1 = h->own[1], lkey = h->lkey;
	const uint64_t ctrl23 = h->ctrl23, rkey0 = h->rkey0;
	uint32_t n, i;
	int err = 0;

	if (unlikely(nb == 0)) {
		*posted = 0;
		return 0;
	}
	if (unlikely(pqp->state < PRDMA_QPS_RTS)) {
		*posted = 0;
		return tmpl_fail(EBADMSG);
	}
	n = RTE_MIN((uint32_t)nb, qp->sq_cap - (head - qp->sq_tail));
	for (i = 0; i < n; i++) {
		const struct prdma_tmpl_req *r = &req[i];
		const uint32_t len = r->len, idx = (head + i) & mask, slot = idx << shift;
		uint32_t bytes;
		uint8_t *w;

		if (unlikely(len > max_len)) {
			err = EINVAL;
			break;
		}
		wrid[idx] = r->wr_id;
		if (room_st != 0) {
			uint8_t *st = sq + ((slot + delta) & smask);
			uint32_t k;

			*(uint32_t *)(st + 64) = UINT32_MAX;
			for (k = 128; unlikely(k < room_st); k += 64)
				*(uint32_t *)(st + k) = UINT32_MAX;
		}
		w = sq + slot;
		if (inl)
			bytes = (kind * 16 + 4 + (len > room ? 4 : 0) + len + 15) & ~15u;
		else
			bytes = kind * 16 + 16;
		put32(w + 4, (bytes >> 4) | fence);
		*(uint64_t *)(w + 8) = ctrl23;
		if (kind == WK_RADDR) {
			put64(w + 16, r->remote_addr);
			*(uint64_t *)(w + 24) = rkey0;
		}
		if (inl) {
			const uint8_t *src = r->data;

			if (len > room) {
				put_chunk(w, kind * 16, src, room);
				put_chunk(w, 64, src + room, len - room);
			} else {
				put_chunk(w, kind * 16, src, len);
			}
		} else {
			*(rte_be32_t *)(w + kind * 16 + 4) = lkey;
			put64(w + kind * 16 + 8, (uintptr_t)r->data);
			put32(w + kind * 16, len != 0 ? len : RTE_BIT32(31));
		}
		hermon_barrier_wqe_before_owner();
		*(rte_be32_t *)w = ((head + i) >> log) & 1 ? own1 : own0;
	}
	if (unlikely(i < nb && err == 0))
		err = ENOMEM;
	if (likely(i != 0))
		post_doorbell(qp, head + i);
	*posted = (uint16_t)i;
	if (unlikely(err != 0))
		return tmpl_fail(err);
	return 0;
}

#define TMPL_BURST(name, kind, inl) \
static int \
name(struct prdma_qp *qp, const struct prdma_wr_tmpl *t, const struct prdma_tmpl_req *req, \
     uint16_t nb, uint16_t *posted) \
{ \
	return tmpl_burst(qp, t, req, nb, posted, kind, inl); \
}

TMPL_BURST(hermon_post_tmpl_burst_raddr_inl, WK_RADDR, true)
TMPL_BURST(hermon_post_tmpl_burst_send_inl, WK_SEND, true)
TMPL_BURST(hermon_post_tmpl_burst_raddr, WK_RADDR, false)
TMPL_BURST(hermon_post_tmpl_burst_send, WK_SEND, false)
#undef TMPL_BURST

#define TMPL_POST(name, kind, inl, bf, stamp) \
static int \
name(struct prdma_qp *qp, const struct prdma_wr_tmpl *t, const void *data, uint32_t len, \
     uint64_t raddr, uint64_t wr_id) \
{ \
	return tmpl_post(qp, t, data, len, raddr, wr_id, kind, inl, bf, stamp); \
}

/* one per shape, BlueFlame (inline only) and stamping: [stamp] rows */
#define TMPL_POST_STAMPS(name, kind, inl, bf) \
	TMPL_POST(name ## _s0, kind, inl, bf, TS_NONE) \
	TMPL_POST(name ## _s1, kind, inl, bf, TS_ONE) \
	TMPL_POST(name ## _sn, kind, inl, bf, TS_LOOP) \
	static const prdma_post_tmpl_t name[3] = { name ## _s0, name ## _s1, name ## _sn };

TMPL_POST_STAMPS(hermon_post_tmpl_raddr_inl, WK_RADDR, true, false)
TMPL_POST_STAMPS(hermon_post_tmpl_raddr_inl_bf, WK_RADDR, true, true)
TMPL_POST_STAMPS(hermon_post_tmpl_send_inl, WK_SEND, true, false)
TMPL_POST_STAMPS(hermon_post_tmpl_send_inl_bf, WK_SEND, true, true)
TMPL_POST_STAMPS(hermon_post_tmpl_raddr, WK_RADDR, false, false)
TMPL_POST_STAMPS(hermon_post_tmpl_send, WK_SEND, false, false)
#undef TMPL_POST_STAMPS
#undef TMPL_POST

/*
 * wr_tmpl_create: the library has validated the request for the QP type.
 * RC/UC SEND and RDMA requests whose WQE the short path writes (inline
 * within two chunks, or one gather entry of a virtual-address MR) get a
 * native post; the rest (UD, QP1, larger inline, DMA MRs) keep the
 * library's, through hermon_post_send.
 */
int
hermon_wr_tmpl_create(struct prdma_qp *pqp, struct prdma_wr_tmpl *t)
{
	struct hermon_qp *qp = (struct hermon_qp *)pqp;
	struct hermon_tmpl *h = (struct hermon_tmpl *)t->prov;
	const struct prdma_send_wr *p = &t->proto;
	uint32_t opc = (uint32_t)p->opcode, flags = p->send_flags, kind, st;
	bool inl = (flags & PRDMA_SEND_INLINE) != 0;

	if (qp->mlx || opc >= PRDMA_WR_MAX)
		return -ENOTSUP;
	kind = qp->sq_kinds[opc];
	if (kind != WK_SEND && kind != WK_RADDR)
		return -ENOTSUP;
	if (inl ? t->max_len > qp->sq_inl_fast[kind] : qp->mpt_dma != NULL)
		return -ENOTSUP;
	h->own[0] = hermon_wqe_own[0][opc];
	h->own[1] = hermon_wqe_own[1][opc];
	h->fence = (flags & PRDMA_SEND_FENCE) << 6;
	h->lkey = rte_cpu_to_be_32(t->sge.lkey);
	{
		rte_be32_t d[2] = {
			qp->sq_ctrl2[flags & (PRDMA_SEND_SIGNALED | PRDMA_SEND_SOLICITED)] |
				hermon_wqe_so[opc],
			rte_cpu_to_be_32(p->imm_data),
		};
		rte_be32_t r[2] = { rte_cpu_to_be_32(p->wr.rdma.rkey), 0 };

		memcpy(&h->ctrl23, d, sizeof(d));
		memcpy(&h->rkey0, r, sizeof(r));
	}
	h->inl = hermon_tmpl_inl[kind - 1][(flags & PRDMA_SEND_FENCE) != 0];
	h->ring = qp->sq_mask + 1;
	h->stride = 1u << qp->sq_shift;
	/* the stride and bf_max are set at the QP's create (bf_max cleared at
	 * its destroy only) */
	st = qp->sq_stamp_room == 0 ? TS_NONE : qp->sq_stamp_room <= 128 ? TS_ONE : TS_LOOP;
	if (kind == WK_RADDR) {
		t->post = (!inl ? hermon_post_tmpl_raddr : qp->bf_max != 0 ?
			hermon_post_tmpl_raddr_inl_bf : hermon_post_tmpl_raddr_inl)[st];
		t->post_burst = inl ? hermon_post_tmpl_burst_raddr_inl :
			hermon_post_tmpl_burst_raddr;
	} else {
		t->post = (!inl ? hermon_post_tmpl_send : qp->bf_max != 0 ?
			hermon_post_tmpl_send_inl_bf : hermon_post_tmpl_send_inl)[st];
		t->post_burst = inl ? hermon_post_tmpl_burst_send_inl :
			hermon_post_tmpl_burst_send;
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
