/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The send engine and the responder. For every QP out of RESET the engine
 * takes the send WQE whose owner bit matches the SQ wrap parity, runs it to
 * completion against the responder QP (found by destination GID: this model
 * or the one at the other end of the cable) and writes the CQEs. Delivery
 * is instant; what IB leaves to time is kept: an RC message that finds no
 * receive WQE is RNR-NAKed and retried after the responder's RNR timer up
 * to rnr_retry times (7: forever), and an RC request with no responder
 * times out after 4.096 us * 2^ack_timeout, retry_count times. A QP in ERR
 * flushes every WQE it holds and every one posted later.
 */

#include <string.h>

#include <rte_atomic.h>
#include <rte_cycles.h>

#include "hermon_model_exec.h"
#include "../hermon_mgm.h"

#define HM_WQE_BUDGET 16

/* IB RNR timer encodings in microseconds (0 = 655.36 ms). */
static const uint32_t hm_rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280,
	1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440,
	81920, 122880, 163840, 245760, 327680, 491520,
};

int
hm_qp_load(struct hermon_model *m, uint32_t qpn, struct hm_qp *q)
{
	if (m->obj.qp == NULL || qpn >= m->obj.nqp)
		return -1;
	q->m = m;
	q->qpn = qpn;
	q->ctx = hm_qpc(m, qpn);
	if (q->ctx == NULL)
		return -1;
	q->rt = &m->obj.qp[qpn];
	q->st = QX(q, st);
	q->state = QX(q, state);
	q->pd = QX(q, pd);
	q->mtt = HERMON_GET64(q->ctx, queue_pair_ee_context_entry, mtt_base_addr_h,
			      mtt_base_addr_l);
	q->pg = QX(q, log2_page_size);
	q->base = (uint64_t)QX(q, page_offset) * 64;
	q->sq_n = 1u << QX(q, log_sq_size);
	q->sq_stride = 16u << QX(q, log_sq_stride);
	q->rq_n = 1u << QX(q, log_rq_size);
	q->rq_stride = 16u << QX(q, log_rq_stride);
	hermon_qp_layout(QX(q, log_sq_size), QX(q, log_sq_stride), QX(q, log_rq_size),
			 QX(q, log_rq_stride), &q->sq_off, &q->rq_off);
	return 0;
}

static uint64_t
hm_us_to_tsc(uint64_t us)
{
	return rte_get_tsc_hz() / 1000000 * us + 1;
}

static void
hm_gid_of(const struct hermon_prm_address_path *p, uint8_t gid[16])
{
	uint32_t w[4];

	w[0] = rte_cpu_to_be_32(HERMON_GET(p, address_path, rgid_127_96));
	w[1] = rte_cpu_to_be_32(HERMON_GET(p, address_path, rgid_95_64));
	w[2] = rte_cpu_to_be_32(HERMON_GET(p, address_path, rgid_63_32));
	w[3] = rte_cpu_to_be_32(HERMON_GET(p, address_path, rgid_31_0));
	memcpy(gid, w, 16);
}

static void
hm_event_qp(struct hermon_model *m, uint8_t type, uint32_t qpn)
{
	uint32_t data[6] = { qpn & 0xffffff, 0, 0, 0, 0, 0 };

	hm_eq_post(m, type, 0, data);
}

/* Move @q to ERR after an error it detected as responder. */
static void
hm_qp_fail(struct hm_qp *q, uint8_t event)
{
	QX_SET(q, state, HERMON_QPS_ERR);
	q->state = HERMON_QPS_ERR;
	if (event != 0)
		hm_event_qp(q->m, event, q->qpn);
}

/* ---- CQEs ---------------------------------------------------------------- */

void
hm_cqe_ok(struct hm_qp *q, bool send, uint32_t opcode, uint16_t ctr, uint32_t bytes,
	  uint32_t imm, uint32_t src_qpn, bool grh, bool se, uint8_t sl)
{
	hm_cqe_ok_lid(q, send, opcode, ctr, bytes, imm, src_qpn, grh, se, sl, 0);
}

void
hm_cqe_ok_lid(struct hm_qp *q, bool send, uint32_t opcode, uint16_t ctr, uint32_t bytes,
	      uint32_t imm, uint32_t src_qpn, bool grh, bool se, uint8_t sl, uint16_t slid)
{
	struct hermon_prm_completion_queue_entry e;

	memset(&e, 0, sizeof(e));
	HERMON_FILL(&e, completion_queue_entry, sl, sl);
	/* an IB receive: the packet's SLID (what an SMP's answer goes to) */
	HERMON_FILL(&e, completion_queue_entry, slid_smac47_32, slid);
	HERMON_FILL(&e, completion_queue_entry, qpn, q->qpn);
	HERMON_FILL(&e, completion_queue_entry, immediate_rssvalue_invalidatekey, imm);
	HERMON_FILL(&e, completion_queue_entry, srq_rqpn, src_qpn);
	HERMON_FILL(&e, completion_queue_entry, g, grh);
	/* SE of the message: dword 0 bit 27, which the model uses for it */
	HERMON_FILL(&e, completion_queue_entry, fcrc_sd, se);
	HERMON_FILL(&e, completion_queue_entry, byte_cnt, bytes);
	HERMON_FILL(&e, completion_queue_entry, wqe_counter, ctr);
	HERMON_FILL(&e, completion_queue_entry, opcode, opcode);
	HERMON_FILL(&e, completion_queue_entry, s_r, send);
	hm_cq_push(q->m, send ? QX(q, cqn_snd) : QX(q, cqn_rcv), &e, se);
}

void
hm_cqe_err(struct hm_qp *q, bool send, uint16_t ctr, uint8_t synd)
{
	struct hermon_prm_completion_with_error ce;
	struct hermon_prm_completion_queue_entry e;

	memset(&ce, 0, sizeof(ce));
	HERMON_FILL(&ce, completion_with_error, qpn, q->qpn);
	HERMON_FILL(&ce, completion_with_error, syndrome, synd);
	/* the vendor syndrome (byte 0x1a) is the model's own code */
	HERMON_FILL(&ce, completion_with_error, vendor_error_syndrome,
		    HERMON_MODEL_VENDOR_SYND(synd));
	HERMON_FILL(&ce, completion_with_error, wqe_counter, ctr);
	HERMON_FILL(&ce, completion_with_error, opcode, HERMON_CQE_ERROR);
	HERMON_FILL(&ce, completion_with_error, s_r, send);
	memcpy(&e, &ce, sizeof(e));
	hm_cq_push(q->m, send ? QX(q, cqn_snd) : QX(q, cqn_rcv), &e, false);
}

/* ---- receive WQEs --------------------------------------------------------- */


static void
hm_parse_scatter(struct hm_qp *dq, const uint8_t *w, uint32_t bytes, struct hm_rwqe *r)
{
	uint32_t off;

	r->nseg = 0;
	r->cap = 0;
	r->bad_key = false;
	for (off = 0; off + 16 <= bytes && r->nseg < HM_MAX_SEGS; off += 16) {
		const struct hermon_prm_wqe_segment_data_ptr *d = (const void *)(w + off);
		uint32_t key = HERMON_GET(d, wqe_segment_data_ptr, l_key);
		uint32_t len = HERMON_GET(d, wqe_segment_data_ptr, byte_count);
		uint64_t addr = HERMON_GET64(d, wqe_segment_data_ptr, local_address_h,
					     local_address_l);

		if (key == HERMON_INVALID_LKEY)
			break;
		if (len == 0)
			continue;
		if (hm_key_check(dq->m, key, dq->pd, addr, len, HM_ACC_LW, dq->qpn) != 0)
			r->bad_key = true;
		r->seg[r->nseg++] = (struct hm_seg){ .addr = addr, .len = len, .key = key };
		r->cap += len;
	}
}

/* Peek at the receive WQE @dq would use next; -1 when there is none. */
int
hm_rwqe_peek(struct hm_qp *dq, struct hm_rwqe *r)
{
	struct hermon_model *m = dq->m;
	const volatile uint32_t *db;
	const uint8_t *w;

	r->srq = QX(dq, srq) != 0;
	if (r->srq) {
		struct hermon_prm_srq_context *s;
		uint32_t stride, n;

		r->srqn = QX(dq, srqn);
		s = hm_srqc(m, r->srqn);
		if (s == NULL || r->srqn >= m->obj.nsrq || !m->obj.srq[r->srqn].hw)
			return -1;
		db = hm_dma_ptr(HERMON_GET64(s, srq_context, db_record_addr_h,
					     db_record_addr_l), 4);
		if (db == NULL || ((rte_be_to_cpu_32(*db) -
				    HERMON_GET(s, srq_context, srq_wqe_counter)) & 0xffff) == 0)
			return -1;
		rte_io_rmb(); /* the record was read before the WQE it counts */
		stride = 16u << HERMON_GET(s, srq_context, log_srq_stride);
		n = 1u << HERMON_GET(s, srq_context, log_srq_size);
		r->ctr = m->obj.srq[r->srqn].head & (n - 1);
		w = hm_queue_ptr(m, HERMON_GET64(s, srq_context, mtt_base_addr_h,
						 mtt_base_addr_l),
				 HERMON_GET(s, srq_context, log2_page_size),
				 (uint64_t)HERMON_GET(s, srq_context, page_offset) * 64 +
				 (uint64_t)r->ctr * stride, stride);
		if (w == NULL)
			return -1;
		r->next = rte_be_to_cpu_16(*(const uint16_t *)(w + 2));
		hm_parse_scatter(dq, w + 16, stride - 16, r);
		return 0;
	}
	db = hm_dma_ptr(HERMON_GET64(dq->ctx, queue_pair_ee_context_entry,
				     db_record_addr_h, db_record_addr_l), 4);
	if (db == NULL || ((rte_be_to_cpu_32(*db) - QX(dq, rq_wqe_counter)) & 0xffff) == 0)
		return -1;
	rte_io_rmb(); /* the record was read before the WQE it counts */
	r->ctr = (uint16_t)QX(dq, rq_wqe_counter);
	w = hm_queue_ptr(m, dq->mtt, dq->pg, dq->base + dq->rq_off +
			 (uint64_t)(r->ctr & (dq->rq_n - 1)) * dq->rq_stride,
			 dq->rq_stride);
	if (w == NULL)
		return -1;
	hm_parse_scatter(dq, w, dq->rq_stride, r);
	return 0;
}

/* Consume the WQE hm_rwqe_peek returned; raises the SRQ limit event. */
void
hm_rwqe_take(struct hm_qp *dq, const struct hm_rwqe *r)
{
	struct hermon_model *m = dq->m;
	struct hermon_prm_srq_context *s;
	const volatile uint32_t *db;
	uint32_t left, lwm, data[6] = { 0 };

	if (!r->srq) {
		QX_SET(dq, rq_wqe_counter, (QX(dq, rq_wqe_counter) + 1) & 0xffff);
		return;
	}
	s = hm_srqc(m, r->srqn);
	HERMON_FILL(s, srq_context, srq_wqe_counter,
		    (HERMON_GET(s, srq_context, srq_wqe_counter) + 1) & 0xffff);
	m->obj.srq[r->srqn].head = r->next;
	db = hm_dma_ptr(HERMON_GET64(s, srq_context, db_record_addr_h,
				     db_record_addr_l), 4);
	left = (rte_be_to_cpu_32(*db) - HERMON_GET(s, srq_context, srq_wqe_counter)) &
		0xffff;
	lwm = HERMON_GET(s, srq_context, lwm);
	if (lwm != 0 && left < lwm) {
		HERMON_FILL(s, srq_context, lwm, 0);
		data[0] = r->srqn;
		hm_eq_post(m, HERMON_EV_SRQ_LIMIT, 0, data);
	}
}

/* ---- one send WQE ---------------------------------------------------------- */


enum hm_step { HM_STEP_DONE, HM_STEP_WAIT };

/* Parse the segments after the control segment. -1: malformed. */
int
hm_wqe_parse(struct hm_qp *q, const uint8_t *w, struct hm_wqe *x)
{
	uint32_t off = 16, end = x->ds * 16, op = x->opcode;

	if (end < 16 || end > q->sq_stride)
		return -1;
	if (q->st == HERMON_QPST_UD && (op == HERMON_WQE_SEND || op == HERMON_WQE_SEND_IMM)) {
		if (off + 48 > end)
			return -1;
		x->ud = (const void *)(w + off);
		x->dqpn = HERMON_GET(x->ud, wqe_segment_ud, destination_qp);
		x->qkey = HERMON_GET(x->ud, wqe_segment_ud, q_key);
		off += 48;
	}
	if (op == HERMON_WQE_RDMA_WRITE || op == HERMON_WQE_RDMA_WRITE_IMM ||
	    op == HERMON_WQE_RDMA_READ || op == HERMON_WQE_ATOMIC_CS ||
	    op == HERMON_WQE_ATOMIC_FA) {
		const struct hermon_prm_wqe_segment_remote_address *ra = (const void *)(w + off);

		if (off + 16 > end)
			return -1;
		x->raddr = HERMON_GET64(ra, wqe_segment_remote_address, remote_virt_addr_h,
					remote_virt_addr_l);
		x->rkey = HERMON_GET(ra, wqe_segment_remote_address, rkey);
		off += 16;
	}
	if (op == HERMON_WQE_ATOMIC_CS || op == HERMON_WQE_ATOMIC_FA) {
		const struct hermon_prm_wqe_segment_atomic *at = (const void *)(w + off);

		if (off + 16 > end)
			return -1;
		x->swap = HERMON_GET64(at, wqe_segment_atomic, swap_add_h, swap_add_l);
		x->cmp = HERMON_GET64(at, wqe_segment_atomic, compare_h, compare_l);
		off += 16;
	}
	if (op == HERMON_WQE_BIND_MW) {
		if (off + 32 > end)
			return -1;
		x->bind = (const void *)(w + off);
		return 0;
	}
	if (op == HERMON_WQE_LOCAL_INVAL) {
		if (off + 32 > end)
			return -1;
		x->inv_key = rte_be_to_cpu_32(((const uint32_t *)(w + off))[2]);
		return 0;
	}
	x->nseg = 0;
	x->len = 0;
	x->ninl = 0;
	while (off < end && x->nseg < HM_MAX_SEGS) {
		uint32_t hdr = rte_be_to_cpu_32(*(const uint32_t *)(w + off));

		if (hdr & RTE_BIT32(31)) {
			uint32_t n = hdr & 0x3ff;

			if (off + 4 + n > end || x->ninl + n > sizeof(x->inl))
				return -1;
			memcpy(x->inl + x->ninl, w + off + 4, n);
			if (n != 0)
				x->seg[x->nseg++] = (struct hm_seg){
					.len = n, .direct = x->inl + x->ninl };
			x->ninl += n;
			x->len += n;
			off = RTE_ALIGN_CEIL(off + 4 + n, 16);
		} else {
			const struct hermon_prm_wqe_segment_data_ptr *d = (const void *)(w + off);
			uint32_t n = HERMON_GET(d, wqe_segment_data_ptr, byte_count);

			/* a gather byte count of 0 is 2^31 bytes (rdma-core writes
			 * 0x80000000, a zero-length inline segment, for 0 bytes) */
			if (n == 0)
				n = RTE_BIT32(31);
			if (n != 0)
				x->seg[x->nseg++] = (struct hm_seg){
					.addr = HERMON_GET64(d, wqe_segment_data_ptr,
							     local_address_h, local_address_l),
					.len = n,
					.key = HERMON_GET(d, wqe_segment_data_ptr, l_key) };
			x->len += n;
			off += 16;
		}
	}
	return 0;
}

int
hm_local_segs_ok(struct hm_qp *q, const struct hm_wqe *x, uint32_t acc)
{
	uint32_t i;

	for (i = 0; i < x->nseg; i++)
		if (x->seg[i].direct == NULL &&
		    hm_key_check(q->m, x->seg[i].key, q->pd, x->seg[i].addr,
				 x->seg[i].len, acc, q->qpn) != 0)
			return -1;
	return 0;
}

static uint32_t
hm_mtu(struct hm_qp *q)
{
	uint32_t c = QX(q, mtu);

	return c >= 1 && c <= 5 ? 128u << c : 1024;
}

static void
hm_psn_advance(struct hm_qp *q, struct hm_qp *dq, uint32_t len)
{
	uint32_t mtu = hm_mtu(q), n = len == 0 ? 1 : (len + mtu - 1) / mtu;

	QX_SET(q, next_send_psn, (QX(q, next_send_psn) + n) & 0xffffff);
	if (dq != NULL && dq->st != HERMON_QPST_UD)
		QX_SET(dq, next_rcv_psn, (QX(dq, next_rcv_psn) + n) & 0xffffff);
}

/* Local invalidation of @key in @m's tables, checked against @pd. */
static int
hm_invalidate(struct hermon_model *m, uint32_t key, uint32_t pd, bool remote)
{
	struct hermon_prm_mpt *mpt = hm_mpt(m, key >> 8);

	if (mpt == NULL || HERMON_GET(mpt, mpt, status) != HERMON_MPT_HW ||
	    HERMON_GET(mpt, mpt, mem_key) != ((key >> 8) | (key << 24)) ||
	    HERMON_GET(mpt, mpt, pd) != pd)
		return -1;
	/* remotely, regions need en_rinv and windows must be type 2 */
	if (remote && (HERMON_GET(mpt, mpt, r_w) ? !HERMON_GET(mpt, mpt, en_rinv) :
		       !HERMON_GET(mpt, mpt, bqp)))
		return -1;
	if (!HERMON_GET(mpt, mpt, r_w)) {
		struct hermon_prm_mpt *reg = hm_mpt(m, HERMON_GET(mpt, mpt, lkey) >> 8);

		if (reg != NULL && HERMON_GET(reg, mpt, win_cnt) > 0)
			HERMON_FILL(reg, mpt, win_cnt, HERMON_GET(reg, mpt, win_cnt) - 1);
		HERMON_FILL(mpt, mpt, lkey, 0);
	}
	HERMON_FILL(mpt, mpt, status, HERMON_MPT_FREE);
	return 0;
}

static uint8_t
hm_bind(struct hm_qp *q, const struct hm_wqe *x)
{
	const struct hermon_prm_wqe_segment_bind *b = x->bind;
	uint32_t nkey = HERMON_GET(b, wqe_segment_bind, new_rkey);
	uint32_t lkey = HERMON_GET(b, wqe_segment_bind, lkey);
	uint64_t addr = HERMON_GET64(b, wqe_segment_bind, addr_h, addr_l);
	uint64_t len = HERMON_GET64(b, wqe_segment_bind, length_h, length_l);
	bool rw = HERMON_GET(b, wqe_segment_bind, rw) != 0;
	bool at = HERMON_GET(b, wqe_segment_bind, a) != 0;
	struct hermon_prm_mpt *w = hm_mpt(q->m, nkey >> 8), *reg, *old;
	uint32_t st;

	if (w == NULL || HERMON_GET(w, mpt, mem_key) == 0 || HERMON_GET(w, mpt, r_w) ||
	    HERMON_GET(w, mpt, pd) != q->pd)
		return HERMON_SYND_MW_BIND;
	st = HERMON_GET(w, mpt, status);
	if (st != HERMON_MPT_HW && st != HERMON_MPT_FREE)
		return HERMON_SYND_MW_BIND;
	/* a type-2 bind needs a window made type 2 (bound-to-QP) that is
	 * free; a type-1 bind one that is not type 2 */
	if (HERMON_GET(b, wqe_segment_bind, type2) ?
	    (!HERMON_GET(w, mpt, bqp) || st != HERMON_MPT_FREE) :
	    HERMON_GET(w, mpt, bqp) != 0)
		return HERMON_SYND_MW_BIND;
	if (len != 0) {
		reg = hm_mpt(q->m, lkey >> 8);
		if (reg == NULL || HERMON_GET(reg, mpt, status) != HERMON_MPT_HW ||
		    HERMON_GET(reg, mpt, mem_key) != ((lkey >> 8) | (lkey << 24)) ||
		    !HERMON_GET(reg, mpt, r_w) || !HERMON_GET(reg, mpt, eb) ||
		    HERMON_GET(reg, mpt, pd) != q->pd ||
		    ((rw || at) && !HERMON_GET(reg, mpt, lw)) ||
		    hm_key_check(q->m, lkey, q->pd, addr, len, 0, q->qpn) != 0)
			return HERMON_SYND_MW_BIND;
	} else {
		reg = NULL;
	}
	old = HERMON_GET(w, mpt, lkey) != 0 ? hm_mpt(q->m, HERMON_GET(w, mpt, lkey) >> 8) :
		NULL;
	if (old != NULL && HERMON_GET(old, mpt, win_cnt) > 0)
		HERMON_FILL(old, mpt, win_cnt, HERMON_GET(old, mpt, win_cnt) - 1);
	HERMON_FILL(w, mpt, mem_key, (nkey >> 8) | (nkey << 24));
	HERMON_FILL(w, mpt, rr, HERMON_GET(b, wqe_segment_bind, rr));
	HERMON_FILL(w, mpt, rw, rw);
	HERMON_FILL(w, mpt, atomic, at);
	HERMON_FILL(w, mpt, lr, 0);
	HERMON_FILL(w, mpt, lw, 0);
	HERMON_FILL64(w, mpt, start_addr_h, start_addr_l, addr);
	HERMON_FILL64(w, mpt, len_h, len_l, len);
	HERMON_FILL(w, mpt, lkey, reg != NULL ? lkey : 0);
	HERMON_FILL(w, mpt, qpn, HERMON_GET(b, wqe_segment_bind, type2) ? q->qpn : 0);
	HERMON_FILL(w, mpt, status, reg != NULL ? HERMON_MPT_HW : HERMON_MPT_FREE);
	if (reg != NULL)
		HERMON_FILL(reg, mpt, win_cnt, HERMON_GET(reg, mpt, win_cnt) + 1);
	return 0;
}

/* No responder answered an RC request: time out, retry, give up. */
static enum hm_step
hm_no_answer(struct hm_qp *q, uint64_t now, uint8_t *synd)
{
	uint32_t t = HERMON_GET(q->ctx, queue_pair_ee_context_entry,
				primary_address_path.ack_timeout);

	q->m->timeouts++;
	if (t == 0)                       /* IB: 0 waits forever */
		goto wait_forever;
	if (q->rt->retry_tries >= QX(q, retry_count)) {
		*synd = HERMON_SYND_RETRY_EXC;
		return HM_STEP_DONE;
	}
	q->rt->retry_tries++;
	q->rt->wait_until = now + hm_us_to_tsc(((uint64_t)4096 << t) / 1000);
	return HM_STEP_WAIT;
wait_forever:
	q->rt->wait_until = now + hm_us_to_tsc(1000);
	return HM_STEP_WAIT;
}

static enum hm_step
hm_rnr(struct hm_qp *q, struct hm_qp *dq, uint64_t now, uint8_t *synd)
{
	uint32_t lim = QX(q, rnr_retry);

	q->m->rnr_naks++;
	if (lim != 7 && q->rt->rnr_tries >= lim) {
		*synd = HERMON_SYND_RNR_RETRY_EXC;
		return HM_STEP_DONE;
	}
	if (q->rt->rnr_tries < 255)
		q->rt->rnr_tries++;
	q->rt->wait_until = now + hm_us_to_tsc(hm_rnr_us[QX(dq, min_rnr_nak) & 31]);
	return HM_STEP_WAIT;
}

static void
hm_grh(struct hm_qp *q, const struct hm_wqe *x, uint8_t out[HM_GRH])
{
	const struct hermon_prm_ud_address_vector *av =
		HERMON_NESTED(x->ud, wqe_segment_ud, ud_address_vector, ud_address_vector);
	uint32_t port = HERMON_GET(av, ud_address_vector, port_number);
	uint32_t gi = HERMON_GET(av, ud_address_vector, mgid_index);
	uint32_t w[4];

	memset(out, 0, HM_GRH);
	out[0] = 0x60;
	out[4] = (uint8_t)(x->len >> 8);
	out[5] = (uint8_t)x->len;
	out[6] = 0x1b;
	out[7] = (uint8_t)HERMON_GET(av, ud_address_vector, hop_limit);
	if (port >= 1 && port <= q->m->conf.ports && gi < HERMON_GID_TABLE_LEN)
		memcpy(out + 8, q->m->gid[port - 1][gi], 16);
	w[0] = rte_cpu_to_be_32(HERMON_GET(av, ud_address_vector, rgid_127_96));
	w[1] = rte_cpu_to_be_32(HERMON_GET(av, ud_address_vector, rgid_95_64));
	w[2] = rte_cpu_to_be_32(HERMON_GET(av, ud_address_vector, rgid_63_32));
	w[3] = rte_cpu_to_be_32(HERMON_GET(av, ud_address_vector, rgid_31_0));
	memcpy(out + 24, w, 16);
}

/*
 * An Ethernet port puts on the wire only what a path marked Ethernet sends
 * (Linux sets link type ETH in every RoCE path, F10): anything else leaves
 * nothing.
 */
/* The port a QP's primary path names (sched_queue bit 6). */
static uint8_t
hm_qp_port(const struct hm_qp *q)
{
	const struct hermon_prm_address_path *p =
		HERMON_NESTED(q->ctx, queue_pair_ee_context_entry,
			      primary_address_path, address_path);

	return (uint8_t)(((HERMON_GET(p, address_path, sched_queue) >> 6) & 1) + 1);
}

static bool
hm_wire_ok(const struct hm_qp *q)
{
	const struct hermon_prm_address_path *p =
		HERMON_NESTED(q->ctx, queue_pair_ee_context_entry,
			      primary_address_path, address_path);
	uint32_t port = (HERMON_GET(p, address_path, sched_queue) >> 6) & 1;

	if (q->m->conf.port_type != HERMON_PORT_TYPE_ETH)
		return true;
	if (hermon_path_link_type(p) != HERMON_PATH_LINK_TYPE_ETH)
		return false;
	/* F11: the source MAC comes from the port's MAC table (Linux
	 * registers it before any RoCE QP uses the port) */
	return port < q->m->conf.ports &&
		q->m->mac_valid[port][HERMON_GET(p, address_path, my_lid_smac_idx)];
}

/*
 * The destination MAC an Ethernet frame of @x carries: the UD datagram
 * segment's (rdma-core set_datagram_seg: VLAN at byte 40, MAC at 42) or the
 * QP path's (Linux _mlx4_set_path copies the resolved DMAC there).
 */
static void
hm_dmac(const struct hm_qp *q, const struct hm_wqe *x, uint8_t mac[6])
{
	if (q->st == HERMON_QPST_UD) {
		memcpy(mac, (const uint8_t *)x->ud->dw + 42, 6);
	} else {
		const struct hermon_prm_address_path *p =
			HERMON_NESTED(q->ctx, queue_pair_ee_context_entry,
				      primary_address_path, address_path);
		uint32_t hi = HERMON_GET(p, address_path, dmac_47_32);
		uint32_t lo = HERMON_GET(p, address_path, dmac_31_0);

		mac[0] = (uint8_t)(hi >> 8);
		mac[1] = (uint8_t)hi;
		mac[2] = (uint8_t)(lo >> 24);
		mac[3] = (uint8_t)(lo >> 16);
		mac[4] = (uint8_t)(lo >> 8);
		mac[5] = (uint8_t)lo;
	}
}

/* Find the responder QP for @x; -1 when nothing answers at that address. */
static int
hm_responder(struct hm_qp *q, const struct hm_wqe *x, struct hm_qp *dq)
{
	uint8_t gid[16], port;
	struct hermon_model *dm;
	uint32_t dqpn, dlid;
	bool grh;

	if (!hm_wire_ok(q))
		return -1;
	if (q->st == HERMON_QPST_UD) {
		const struct hermon_prm_ud_address_vector *av =
			HERMON_NESTED(x->ud, wqe_segment_ud, ud_address_vector,
				      ud_address_vector);
		uint32_t w[4];

		grh = HERMON_GET(av, ud_address_vector, g) != 0;
		dlid = HERMON_GET(av, ud_address_vector, rlid);

		w[0] = rte_cpu_to_be_32(HERMON_GET(av, ud_address_vector, rgid_127_96));
		w[1] = rte_cpu_to_be_32(HERMON_GET(av, ud_address_vector, rgid_95_64));
		w[2] = rte_cpu_to_be_32(HERMON_GET(av, ud_address_vector, rgid_63_32));
		w[3] = rte_cpu_to_be_32(HERMON_GET(av, ud_address_vector, rgid_31_0));
		memcpy(gid, w, 16);
		dqpn = x->dqpn;
	} else {
		const struct hermon_prm_address_path *p =
			HERMON_NESTED(q->ctx, queue_pair_ee_context_entry,
				      primary_address_path, address_path);

		hm_gid_of(p, gid);
		grh = HERMON_GET(p, address_path, grh_ip) != 0;
		dlid = HERMON_GET(p, address_path, rlid);
		dqpn = QX(q, remote_qpn_een);
	}
	/* F9: an IB packet without a GRH has only an LRH: the switch fabric
	 * routes it by DLID; RoCE always carries the GRH */
	if (q->m->conf.port_type == HERMON_PORT_TYPE_IB && !grh)
		dm = hm_route_lid(q->m, (uint16_t)dlid, &port);
	else
		dm = hm_route(q->m, gid, &port);
	if (dm == NULL)
		return -1;
	/*
	 * IBA 7.2 (link states): an IB port sends and takes data packets
	 * only in LinkActive; in INIT and ARMED it carries SMPs (VL15) alone,
	 * so until a subnet manager activates both ends a data packet is
	 * discarded at the link and nothing answers it: RC retries to
	 * RETRY_EXC_ERR, UC/UD are lost (Linux mlx4_ib does not check: the
	 * port does). QP0's SMPs take hm_mlx_exec_ib, which lets them pass.
	 */
	if (q->m->conf.port_type == HERMON_PORT_TYPE_IB &&
	    (!hm_sma_port_active(q->m, hm_qp_port(q)) || !hm_sma_port_active(dm, port))) {
		q->m->ib_inactive_drops++;
		return -1;
	}
	/* F12/F13: on Ethernet the frame goes to its DMAC, whatever the GID
	 * says: one that is not the destination port's reaches nobody */
	if (q->m->conf.port_type == HERMON_PORT_TYPE_ETH) {
		uint8_t mac[6];

		hm_dmac(q, x, mac);
		if (memcmp(mac, dm->mac[port - 1], 6) != 0)
			return -1;
	}
	/* DestQP 0/1 on the wire is the port's QP0/QP1 (CONF_SPECIAL_QP) */
	if (q->st == HERMON_QPST_UD)
		dqpn = hm_sqp_dest(dm, port, dqpn);
	if (hm_qp_load(dm, dqpn, dq) < 0 || !dq->rt->active)
		return -1;
	/* F13: a raw Ethernet QP takes frames by steering, no RoCE datagram */
	if ((dq->st != q->st && !(q->st == HERMON_QPST_UD && dq->st == HERMON_QPST_MLX)) ||
	    hm_raw_qp(dq) ||
	    (dq->state != HERMON_QPS_RTR && dq->state != HERMON_QPS_RTS &&
				dq->state != HERMON_QPS_SQD && dq->state != HERMON_QPS_SQE))
		return -1;
	return 0;
}

static enum hm_step hm_recv_msg(struct hm_qp *q, struct hm_qp *dq, struct hm_wqe *x,
				uint64_t now, uint8_t *synd);

/* A multicast frame on Ethernet goes to 33:33 + the MGID's low 32 bits. */
static bool
hm_mcast_dmac_ok(const struct hm_qp *q, const struct hm_wqe *x)
{
	const struct hermon_prm_ud_address_vector *av =
		HERMON_NESTED(x->ud, wqe_segment_ud, ud_address_vector, ud_address_vector);
	uint32_t lo = HERMON_GET(av, ud_address_vector, rgid_31_0);
	const uint8_t want[6] = { 0x33, 0x33, (uint8_t)(lo >> 24), (uint8_t)(lo >> 16),
				  (uint8_t)(lo >> 8), (uint8_t)lo };
	uint8_t mac[6];

	if (q->m->conf.port_type != HERMON_PORT_TYPE_ETH)
		return true;
	hm_dmac(q, x, mac);
	return memcmp(mac, want, 6) == 0;
}

/*
 * A UD datagram to DestQP 0xFFFFFF: one copy to every QP the destination
 * GID's group lists, on this model (its port loops its own multicast back,
 * as the soft provider does by default) and on the one at the other end of
 * the cable. Each member checks its own Q_Key and takes its own receive
 * WQE; a member that cannot take it drops its copy, the others still get
 * theirs. A group nobody here joined is a counted drop.
 */
static enum hm_step
hm_mcast(struct hm_qp *q, struct hm_wqe *x, uint64_t now, uint8_t *synd)
{
	const struct hermon_prm_ud_address_vector *av =
		HERMON_NESTED(x->ud, wqe_segment_ud, ud_address_vector, ud_address_vector);
	struct hermon_model *dms[2] = { q->m, q->m->peer };
	uint32_t qpn[HM_MCG_MAX_QPS], w[4], sq_key, n, i, d, copies = 0;
	uint8_t gid[16], mac[6];
	struct hm_qp dq;

	w[0] = rte_cpu_to_be_32(HERMON_GET(av, ud_address_vector, rgid_127_96));
	w[1] = rte_cpu_to_be_32(HERMON_GET(av, ud_address_vector, rgid_95_64));
	w[2] = rte_cpu_to_be_32(HERMON_GET(av, ud_address_vector, rgid_63_32));
	w[3] = rte_cpu_to_be_32(HERMON_GET(av, ud_address_vector, rgid_31_0));
	memcpy(gid, w, 16);
	/* a Q_Key with the MSB set means "use the QP's own" */
	sq_key = (x->qkey & RTE_BIT32(31)) ? QX(q, q_key) : x->qkey;
	QX_SET(q, next_send_psn, (QX(q, next_send_psn) + 1) & 0xffffff);
	for (d = 0; d < RTE_DIM(dms); d++) {
		struct hermon_model *dm = dms[d];

		if (dm == NULL || !dm->hca_init || dm->catas)
			continue;
		/* F31: the receiving port takes only MACs its filter holds
		 * (the cable joins port 1 of each end) */
		hm_dmac(q, x, mac);
		if (!hm_mc_fltr_pass(dm, 0, mac)) {
			dm->mc_filtered++;
			dm->drops++;
			continue;
		}
		n = hm_mcg_members(dm, gid, qpn, RTE_DIM(qpn));
		for (i = 0; i < n; i++) {
			if (hm_qp_load(dm, qpn[i], &dq) < 0 || !dq.rt->active ||
			    dq.st != HERMON_QPST_UD ||
			    (dq.state != HERMON_QPS_RTR && dq.state != HERMON_QPS_RTS &&
			     dq.state != HERMON_QPS_SQD && dq.state != HERMON_QPS_SQE) ||
			    sq_key != QX(&dq, q_key)) {
				dm->drops++;
				continue;
			}
			hm_recv_msg(q, &dq, x, now, synd);
			copies++;
		}
	}
	if (copies == 0)
		q->m->drops++;
	return HM_STEP_DONE;
}

/*
 * The SL an IB packet of @x carries: the UD address vector's, or the QP
 * path's, from sched_queue bits 5:2 (Linux _mlx4_set_path for IB). On
 * Ethernet there is no SL (no VLAN tag here): 0.
 */
static uint8_t
hm_sl(const struct hm_qp *q, const struct hm_wqe *x)
{
	if (q->m->conf.port_type != HERMON_PORT_TYPE_IB)
		return 0;
	if (q->st == HERMON_QPST_UD)
		return (uint8_t)HERMON_GET(HERMON_NESTED(x->ud, wqe_segment_ud,
							 ud_address_vector,
							 ud_address_vector),
					   ud_address_vector, sl);
	return (uint8_t)((HERMON_GET(HERMON_NESTED(q->ctx, queue_pair_ee_context_entry,
						   primary_address_path, address_path),
				     address_path, sched_queue) >> 2) & 0xf);
}

/* Responder side of a message that consumes a receive WQE. */
static enum hm_step
hm_recv_msg(struct hm_qp *q, struct hm_qp *dq, struct hm_wqe *x, uint64_t now,
	    uint8_t *synd)
{
	bool ud = q->st == HERMON_QPST_UD, rc = q->st == HERMON_QPST_RC;
	bool write_imm = x->opcode == HERMON_WQE_RDMA_WRITE_IMM;
	uint32_t need = x->len + (ud ? HM_GRH : 0), cqe_op, imm = 0;
	struct hm_rwqe r;
	uint8_t grh[HM_GRH];

	if (hm_rwqe_peek(dq, &r) < 0) {
		if (rc)
			return hm_rnr(q, dq, now, synd);
		q->m->drops++;
		return HM_STEP_DONE;      /* UC and UD: the message is dropped */
	}
	if (!write_imm && (r.bad_key || r.cap < need)) {
		hm_rwqe_take(dq, &r);
		hm_cqe_err(dq, false, r.ctr, r.bad_key ? HERMON_SYND_LOC_PROT :
			   HERMON_SYND_LOC_LEN);
		if (!ud)
			hm_qp_fail(dq, 0);
		if (rc)
			*synd = r.bad_key ? HERMON_SYND_REM_OP : HERMON_SYND_REM_INV_REQ;
		return HM_STEP_DONE;
	}
	if (x->opcode == HERMON_WQE_SEND_INVAL &&
	    hm_invalidate(dq->m, x->imm, dq->pd, true) != 0) {
		/* the receive WQE the message was for completes in error */
		hm_rwqe_take(dq, &r);
		hm_cqe_err(dq, false, r.ctr, HERMON_SYND_REM_INV_REQ);
		if (rc)
			*synd = HERMON_SYND_REM_INV_REQ;
		hm_qp_fail(dq, HERMON_EV_WQ_INVAL_REQ);
		return HM_STEP_DONE;
	}
	if (write_imm) {
		/* the data went to the rkey's memory already */
		cqe_op = HERMON_CQE_RECV_WRITE_IMM;
		imm = x->imm;
	} else {
		struct hm_seg src[HM_MAX_SEGS + 1];
		uint32_t ns = 0, i;

		if (ud) {
			hm_grh(q, x, grh);
			src[ns++] = (struct hm_seg){ .len = HM_GRH, .direct = grh };
		}
		for (i = 0; i < x->nseg; i++)
			src[ns++] = x->seg[i];
		if (hm_copy(dq->m, r.seg, r.nseg, q->m, src, ns, need) != 0) {
			*synd = HERMON_SYND_LOC_PROT;
			return HM_STEP_DONE;
		}
		cqe_op = x->opcode == HERMON_WQE_SEND ? HERMON_CQE_RECV_SEND :
			x->opcode == HERMON_WQE_SEND_IMM ? HERMON_CQE_RECV_SEND_IMM :
			HERMON_CQE_RECV_SEND_INV;
		imm = x->opcode == HERMON_WQE_SEND ? 0 : x->imm;
	}
	hm_rwqe_take(dq, &r);
	if (dq->state == HERMON_QPS_RTR && !dq->rt->comm_est) {
		dq->rt->comm_est = true;
		hm_event_qp(dq->m, HERMON_EV_COMM_EST, dq->qpn);
	}
	hm_cqe_ok(dq, false, cqe_op, r.ctr, need, imm, q->qpn, ud, x->se, hm_sl(q, x));
	return HM_STEP_DONE;
}

/* Remote access error found by the responder of an RC/UC request. */
static enum hm_step
hm_rem_access(struct hm_qp *q, struct hm_qp *dq, uint8_t *synd)
{
	if (q->st != HERMON_QPST_RC) {
		q->m->drops++;
		return HM_STEP_DONE;
	}
	hm_qp_fail(dq, HERMON_EV_WQ_ACCESS_ERR);
	*synd = HERMON_SYND_REM_ACCESS;
	return HM_STEP_DONE;
}

static enum hm_step
hm_exec_wqe(struct hm_qp *q, struct hm_wqe *x, uint64_t now, uint8_t *synd,
	    uint32_t *bytes)
{
	struct hm_qp dq;
	uint32_t op = x->opcode;

	*synd = 0;
	*bytes = 0;
	switch (op) {
	case HERMON_WQE_NOP:
		return HM_STEP_DONE;
	case HERMON_WQE_LOCAL_INVAL:
		if (hm_invalidate(q->m, x->inv_key, q->pd, false) != 0)
			*synd = HERMON_SYND_LOC_QP_OP;
		return HM_STEP_DONE;
	case HERMON_WQE_BIND_MW:
		if (q->st == HERMON_QPST_UD) {
			*synd = HERMON_SYND_LOC_QP_OP;
			return HM_STEP_DONE;
		}
		*synd = hm_bind(q, x);
		return HM_STEP_DONE;
	case HERMON_WQE_SEND: case HERMON_WQE_SEND_IMM: case HERMON_WQE_SEND_INVAL:
	case HERMON_WQE_RDMA_WRITE: case HERMON_WQE_RDMA_WRITE_IMM:
		if (hm_local_segs_ok(q, x, HM_ACC_LR) != 0) {
			*synd = HERMON_SYND_LOC_PROT;
			return HM_STEP_DONE;
		}
		break;
	case HERMON_WQE_RDMA_READ: case HERMON_WQE_ATOMIC_CS: case HERMON_WQE_ATOMIC_FA:
		if (q->st != HERMON_QPST_RC ||
		    ((op == HERMON_WQE_ATOMIC_CS || op == HERMON_WQE_ATOMIC_FA) &&
		     x->len != 8)) {
			*synd = HERMON_SYND_LOC_QP_OP;
			return HM_STEP_DONE;
		}
		if (hm_local_segs_ok(q, x, HM_ACC_LW) != 0) {
			*synd = HERMON_SYND_LOC_PROT;
			return HM_STEP_DONE;
		}
		break;
	default:
		*synd = HERMON_SYND_LOC_QP_OP;
		return HM_STEP_DONE;
	}
	if (q->st == HERMON_QPST_UD) {
		if (x->len > hm_mtu(q)) {
			*synd = HERMON_SYND_LOC_LEN;
			return HM_STEP_DONE;
		}
		if (x->dqpn == HERMON_MCAST_QPN) {
			if (!hm_wire_ok(q) || !hm_mcast_dmac_ok(q, x)) {
				q->m->drops++;
				return HM_STEP_DONE;
			}
			return hm_mcast(q, x, now, synd);
		}
		if (hm_responder(q, x, &dq) < 0) {
			q->m->drops++;
			return HM_STEP_DONE;
		}
		/* a Q_Key with the MSB set means "use the QP's own" */
		if (((x->qkey & RTE_BIT32(31)) ? QX(q, q_key) : x->qkey) != QX(&dq, q_key)) {
			q->m->drops++;
			return HM_STEP_DONE;
		}
		hm_psn_advance(q, &dq, x->len);
		return hm_recv_msg(q, &dq, x, now, synd);
	}
	if (hm_responder(q, x, &dq) < 0) {
		if (q->st == HERMON_QPST_UC) {
			q->m->drops++;
			return HM_STEP_DONE;
		}
		return hm_no_answer(q, now, synd);
	}
	switch (op) {
	case HERMON_WQE_RDMA_WRITE: case HERMON_WQE_RDMA_WRITE_IMM: {
		struct hm_seg dst = { .addr = x->raddr, .len = x->len, .key = x->rkey };
		struct hm_rwqe r;

		if (x->len != 0 && (!QX(&dq, rwe) ||
				    hm_key_check(dq.m, x->rkey, dq.pd, x->raddr, x->len,
						 HM_ACC_RW, dq.qpn) != 0))
			return hm_rem_access(q, &dq, synd);
		/* WRITE_IMM needs its receive WQE before any data lands */
		if (op == HERMON_WQE_RDMA_WRITE_IMM && hm_rwqe_peek(&dq, &r) < 0) {
			if (q->st == HERMON_QPST_RC)
				return hm_rnr(q, &dq, now, synd);
			q->m->drops++;
			return HM_STEP_DONE;
		}
		if (x->len != 0 && hm_copy(dq.m, &dst, 1, q->m, x->seg, x->nseg, x->len) != 0) {
			*synd = HERMON_SYND_LOC_PROT;
			return HM_STEP_DONE;
		}
		hm_psn_advance(q, &dq, x->len);
		if (op == HERMON_WQE_RDMA_WRITE_IMM)
			return hm_recv_msg(q, &dq, x, now, synd);
		return HM_STEP_DONE;
	}
	case HERMON_WQE_RDMA_READ: {
		struct hm_seg src = { .addr = x->raddr, .len = x->len, .key = x->rkey };

		if (x->len != 0 && (!QX(&dq, rre) ||
				    hm_key_check(dq.m, x->rkey, dq.pd, x->raddr, x->len,
						 HM_ACC_RR, dq.qpn) != 0))
			return hm_rem_access(q, &dq, synd);
		if (x->len != 0 && hm_copy(q->m, x->seg, x->nseg, dq.m, &src, 1, x->len) != 0) {
			*synd = HERMON_SYND_LOC_PROT;
			return HM_STEP_DONE;
		}
		hm_psn_advance(q, &dq, x->len);
		*bytes = x->len;
		return HM_STEP_DONE;
	}
	case HERMON_WQE_ATOMIC_CS: case HERMON_WQE_ATOMIC_FA: {
		uint64_t *t, orig;
		struct hm_seg src = { .len = 8, .direct = (const uint8_t *)&orig };
		uint32_t n = 8;

		if (x->raddr & 7) {
			hm_qp_fail(&dq, HERMON_EV_WQ_INVAL_REQ);
			*synd = HERMON_SYND_REM_INV_REQ;
			return HM_STEP_DONE;
		}
		if (!QX(&dq, rae) || hm_key_check(dq.m, x->rkey, dq.pd, x->raddr, 8,
						  HM_ACC_AT, dq.qpn) != 0)
			return hm_rem_access(q, &dq, synd);
		t = hm_xlate(dq.m, x->rkey, x->raddr, &n);
		if (t == NULL || n != 8) {
			*synd = HERMON_SYND_REM_OP;
			return HM_STEP_DONE;
		}
		if (op == HERMON_WQE_ATOMIC_FA) {
			orig = __atomic_fetch_add(t, x->swap, __ATOMIC_SEQ_CST);
		} else {
			orig = x->cmp;
			__atomic_compare_exchange_n(t, &orig, x->swap, false,
						    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		}
		if (hm_copy(q->m, x->seg, x->nseg, NULL, &src, 1, 8) != 0) {
			*synd = HERMON_SYND_LOC_PROT;
			return HM_STEP_DONE;
		}
		hm_psn_advance(q, &dq, 8);
		*bytes = 8;
		return HM_STEP_DONE;
	}
	default: /* the SEND family */
		hm_psn_advance(q, &dq, x->len);
		return hm_recv_msg(q, &dq, x, now, synd);
	}
}

/* Pointer to SQ slot @ctr when its owner bit says it is posted. */
static const uint8_t *
hm_sq_head(struct hm_qp *q, uint16_t ctr)
{
	const uint8_t *w = hm_queue_ptr(q->m, q->mtt, q->pg, q->base + q->sq_off +
					(uint64_t)(ctr & (q->sq_n - 1)) * q->sq_stride,
					q->sq_stride);
	uint32_t d0;

	if (w == NULL)
		return NULL;
	d0 = rte_be_to_cpu_32(*(const volatile uint32_t *)w);
	if ((d0 >> 31) != ((uint32_t)(ctr / q->sq_n) & 1))
		return NULL;
	rte_io_rmb(); /* owner bit read before the rest of the WQE */
	return w;
}

static unsigned int
hm_flush(struct hm_qp *q)
{
	unsigned int n = 0;
	const uint8_t *w;
	uint16_t ctr;

	for (ctr = (uint16_t)QX(q, sq_wqe_counter); n < HM_WQE_BUDGET; ctr++, n++) {
		w = hm_sq_head(q, ctr);
		if (w == NULL)
			break;
		hm_cqe_err(q, true, ctr, HERMON_SYND_FLUSH);
		QX_SET(q, sq_wqe_counter, (uint16_t)(ctr + 1));
	}
	if (!QX(q, srq)) {
		struct hm_rwqe r;

		while (n < 2 * HM_WQE_BUDGET && hm_rwqe_peek(q, &r) == 0) {
			hm_rwqe_take(q, &r);
			hm_cqe_err(q, false, r.ctr, HERMON_SYND_FLUSH);
			n++;
		}
	}
	return n;
}

/*
 * Run the send WQE @w (slot @ctr, from the ring or a BlueFlame copy):
 * 1 if it completed (the counter moves on), 0 if it waits (RNR, timeout),
 * -1 if it failed the QP.
 */
static int
hm_run_one(struct hm_qp *q, const uint8_t *w, uint16_t ctr, uint64_t now)
{
	static struct hm_wqe x;           /* under the wire lock: one user */
	const struct hermon_prm_wqe_segment_ctrl_send *c = (const void *)w;
	uint8_t synd;
	uint32_t bytes;

	memset(&x, 0, offsetof(struct hm_wqe, seg));
	x.opcode = HERMON_GET(c, wqe_segment_ctrl_send, opcode);
	x.ds = HERMON_GET(c, wqe_segment_ctrl_send, ds);
	x.signaled = HERMON_GET(c, wqe_segment_ctrl_send, c) == 3;
	x.se = HERMON_GET(c, wqe_segment_ctrl_send, s) != 0;
	x.imm = HERMON_GET(c, wqe_segment_ctrl_send, immediate);
	x.ctrl2 = rte_be_to_cpu_32(((const rte_be32_t *)w)[2]);
	x.ctr = ctr;
	if (hm_wqe_parse(q, w, &x) < 0) {
		synd = HERMON_SYND_LOC_QP_OP;
		bytes = 0;
	} else if (q->st == HERMON_QPST_MLX && hm_raw_qp(q)) {
		hm_raw_exec(q, &x, &synd);       /* F13: the WQE is a whole frame */
		bytes = 0;
	} else if (q->st == HERMON_QPST_MLX) {
		hm_mlx_exec(q, &x, &synd);
		bytes = 0;
	} else if (hm_exec_wqe(q, &x, now, &synd, &bytes) == HM_STEP_WAIT) {
		return 0;
	}
	q->rt->rnr_tries = 0;
	q->rt->retry_tries = 0;
	q->rt->wait_until = 0;
	if (synd != 0) {
		hm_cqe_err(q, true, ctr, synd);
		QX_SET(q, sq_wqe_counter, (uint16_t)(ctr + 1));
		QX_SET(q, state, HERMON_QPS_ERR);
		return -1;
	}
	if (x.signaled)
		hm_cqe_ok(q, true, x.opcode, ctr, bytes, 0, 0, false, false, 0);
	QX_SET(q, sq_wqe_counter, (uint16_t)(ctr + 1));
	return 1;
}

static unsigned int
hm_run_sq(struct hm_qp *q, uint64_t now)
{
	unsigned int n = 0;
	const uint8_t *w;
	uint16_t ctr;
	int r;

	if (q->rt->wait_until > now)
		return 0;
	for (ctr = (uint16_t)QX(q, sq_wqe_counter); n < HM_WQE_BUDGET; ctr++) {
		w = hm_sq_head(q, ctr);
		if (w == NULL)
			break;
		r = hm_run_one(q, w, ctr, now);
		if (r == 0)
			break;
		n++;
		if (r < 0)
			break;
	}
	return n;
}

/*
 * One BlueFlame half holding a copy (its first dword not 0). A card takes
 * the WQE from the copy when all of it arrived, and otherwise ignores the
 * copy and reads the ring, as for a doorbell. The model cannot see which
 * write-combining chunks arrived; it takes the copy only when it is the
 * QP's next WQE (counter and QPN in the control segment, as rdma-core
 * writes them) and equals the ring copy byte for byte (bar the counter
 * and QPN), and counts every other copy as a torn one: the ring path then
 * runs the WQE. The half is cleared for the next copy.
 */
static unsigned int
hm_bf_half(struct hermon_model *m, uint8_t *half, unsigned int h, uint64_t now)
{
	uint8_t copy[HM_BF_REG_SIZE / 2];
	const uint8_t *w;
	uint32_t d0, qpn, len;
	uint16_t ctr;
	struct hm_qp q;
	int r = 0;

	rte_io_rmb(); /* the first dword before the rest of the copy */
	memcpy(copy, half, sizeof(copy));
	memset(half, 0, sizeof(copy));
	m->bf_half[h]++;
	d0 = rte_be_to_cpu_32(*(const uint32_t *)copy);
	qpn = rte_be_to_cpu_32(*(const uint32_t *)(copy + 8)) >> 8;
	ctr = (uint16_t)(d0 >> 8);
	len = (rte_be_to_cpu_32(*(const uint32_t *)(copy + 4)) & 0x3f) * 16;
	if (len == 0 || len > sizeof(copy) || hm_qp_load(m, qpn, &q) < 0 ||
	    q.state != HERMON_QPS_RTS || q.rt->wait_until > now ||
	    (uint16_t)QX(&q, sq_wqe_counter) != ctr)
		goto torn;
	w = hm_sq_head(&q, ctr);
	if (w == NULL || len > q.sq_stride)
		goto torn;
	/* the copy carries the counter and QPN where the ring has 0 */
	if (rte_be_to_cpu_32(*(const uint32_t *)w) != (d0 & ~0x00ffff00u) ||
	    memcmp(w + 4, copy + 4, 4) != 0 ||
	    (rte_be_to_cpu_32(*(const uint32_t *)(w + 8)) & 0xff) !=
	    (rte_be_to_cpu_32(*(const uint32_t *)(copy + 8)) & 0xff) ||
	    memcmp(w + 12, copy + 12, len - 12) != 0)
		goto torn;
	r = hm_run_one(&q, copy, ctr, now);
	if (r != 0) {
		m->bf_exec++;
		return 1;
	}
torn:
	m->bf_fallback++;
	return 0;
}

/* The BlueFlame registers of every UAR page an active QP uses. */
static unsigned int
hm_bf_poll(struct hermon_model *m, uint64_t now)
{
	uint32_t seen[(1u << HM_LOG_UARS) / 32] = { 0 };
	unsigned int n = 0, i, r, h;
	struct hm_qp q;

	for (i = 0; i < m->obj.nactive; i++) {
		uint32_t page;
		uint8_t *bf;

		if (hm_qp_load(m, m->obj.active[i], &q) < 0)
			continue;
		page = QX(&q, usr_page) & ((1u << HM_LOG_UARS) - 1);
		if (seen[page / 32] & RTE_BIT32(page % 32))
			continue;
		seen[page / 32] |= RTE_BIT32(page % 32);
		bf = m->bar2 + HM_UAR_BAR_SIZE + (size_t)page * HERMON_UAR_PAGE_SIZE;
		for (r = 0; r < (1u << HM_LOG_BF_REGS); r++)
			for (h = 0; h < 2; h++) {
				uint8_t *half = bf + r * HM_BF_REG_SIZE + h * (HM_BF_REG_SIZE / 2);

				if (__atomic_load_n((uint32_t *)half, __ATOMIC_ACQUIRE) != 0)
					n += hm_bf_half(m, half, h, now);
			}
	}
	return n;
}

unsigned int
hm_exec_poll(struct hermon_model *m)
{
	uint64_t now;
	unsigned int n = 0, i;
	struct hm_qp q;

	if (!m->hca_init || m->catas || m->obj.qp == NULL || m->obj.nactive == 0)
		return 0;
	now = rte_get_tsc_cycles();
	if (m->conf.bf)
		n += hm_bf_poll(m, now);
	for (i = 0; i < m->obj.nactive; i++) {
		if (hm_qp_load(m, m->obj.active[i], &q) < 0)
			continue;
		if (q.state == HERMON_QPS_ERR)
			n += hm_flush(&q);
		else if (q.state == HERMON_QPS_RTS)
			n += hm_run_sq(&q, now);
	}
	m->exec_work += n;
	return n;
}
