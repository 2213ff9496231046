/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Object commands of the model: MPT (SW2HW/HW2SW/QUERY), CQ (SW2HW/HW2SW/
 * QUERY/MODIFY), SRQ (SW2HW/HW2SW/QUERY/ARM), the QP state machine and
 * QUERY_QP, SET_PORT (GID table) and QUERY_PORT. Contexts live in the ICM
 * pages the driver mapped; only what silicon keeps outside ICM (engine
 * runtime) is in struct hm_objs.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>

#include "hermon_model_priv.h"

#define HM_LOG_MAX_CQ_SZ 22
#define HM_LOG_MAX_QP_SZ 14

struct hermon_prm_queue_pair_ee_context_entry *
hm_qpc(struct hermon_model *m, uint32_t qpn)
{
	if (!m->layout.valid || qpn >= (1u << m->layout.log_num_qp))
		return NULL;
	return hm_icm_ptr(m, m->layout.base[HERMON_MODEL_QPC] +
			  (uint64_t)qpn * HM_QPC_ENTRY,
			  HERMON_PRM_SIZE(queue_pair_ee_context_entry));
}

struct hermon_prm_completion_queue_context *
hm_cqc(struct hermon_model *m, uint32_t cqn)
{
	if (!m->layout.valid || cqn >= (1u << m->layout.log_num_cq))
		return NULL;
	return hm_icm_ptr(m, m->layout.base[HERMON_MODEL_CQC] +
			  (uint64_t)cqn * HM_CQC_ENTRY, HM_CQC_ENTRY);
}

struct hermon_prm_srq_context *
hm_srqc(struct hermon_model *m, uint32_t srqn)
{
	if (!m->layout.valid || srqn >= (1u << m->layout.log_num_srq))
		return NULL;
	return hm_icm_ptr(m, m->layout.base[HERMON_MODEL_SRQC] +
			  (uint64_t)srqn * HM_SRQC_ENTRY,
			  HERMON_PRM_SIZE(srq_context));
}

struct hermon_prm_mpt *
hm_mpt(struct hermon_model *m, uint32_t index)
{
	if (!m->layout.valid || index >= (1u << m->layout.log_dmpt))
		return NULL;
	return hm_icm_ptr(m, m->layout.base[HERMON_MODEL_DMPT] +
			  (uint64_t)index * HM_MPT_ENTRY, HM_MPT_ENTRY);
}

void *
hm_queue_ptr(struct hermon_model *m, uint64_t mtt_addr, uint32_t log2_pg,
	     uint64_t off, size_t len)
{
	const struct hermon_prm_mtt *mtt;
	uint32_t shift = HERMON_ICM_PAGE_SHIFT + log2_pg;
	uint64_t pa, in_pg;

	if (shift > 30)
		return NULL;
	in_pg = off & ((1ull << shift) - 1);
	if (in_pg + len > (1ull << shift))
		return NULL;               /* silicon never splits an entry */
	mtt = hm_icm_ptr(m, m->layout.base[HERMON_MODEL_MTT] + mtt_addr +
			 (off >> shift) * HM_MTT_ENTRY, HM_MTT_ENTRY);
	if (mtt == NULL || HERMON_GET(mtt, mtt, p) == 0)
		return NULL;
	pa = HERMON_GET64(mtt, mtt, ptag_h, ptag_l) & ~((1ull << shift) - 1);
	return hm_dma_ptr(pa + in_pg, len);
}

void
hm_obj_free(struct hermon_model *m)
{
	free(m->obj.qp);
	free(m->obj.cq);
	free(m->obj.srq);
	free(m->obj.active);
	memset(&m->obj, 0, sizeof(m->obj));
}

/* Runtime arrays for the table sizes of the current INIT_HCA. */
static int
hm_obj_ensure(struct hermon_model *m)
{
	uint32_t nqp, ncq, nsrq;

	if (!m->hca_init || !m->layout.valid)
		return -1;
	nqp = 1u << m->layout.log_num_qp;
	ncq = 1u << m->layout.log_num_cq;
	nsrq = 1u << m->layout.log_num_srq;
	if (m->obj.qp != NULL && m->obj.nqp == nqp && m->obj.ncq == ncq &&
	    m->obj.nsrq == nsrq)
		return 0;
	hm_obj_free(m);
	m->obj.qp = calloc(nqp, sizeof(*m->obj.qp));
	m->obj.cq = calloc(ncq, sizeof(*m->obj.cq));
	m->obj.srq = calloc(nsrq, sizeof(*m->obj.srq));
	m->obj.active = calloc(nqp, sizeof(*m->obj.active));
	if (m->obj.qp == NULL || m->obj.cq == NULL || m->obj.srq == NULL ||
	    m->obj.active == NULL) {
		hm_obj_free(m);
		return -1;
	}
	m->obj.nqp = nqp;
	m->obj.ncq = ncq;
	m->obj.nsrq = nsrq;
	return 0;
}

static void *
hm_out(const struct hm_cmd *c, size_t len)
{
	void *p = hm_dma_ptr(c->out_param, len);

	if (p != NULL)
		memset(p, 0, len);
	return p;
}

/* ---- MPT ---------------------------------------------------------------- */

static uint8_t
hm_mpt_cmd(struct hermon_model *m, struct hm_cmd *c)
{
	uint32_t idx = c->in_mod & 0xffffff;
	struct hermon_prm_mpt *mpt = hm_mpt(m, idx), *io;

	if (idx < HM_RSVD_MPTS)
		return HERMON_STAT_BAD_RESOURCE;
	if (mpt == NULL)
		return HERMON_STAT_BAD_INDEX;
	switch (c->opcode) {
	case HERMON_CMD_SW2HW_MPT:
		if (HERMON_GET(mpt, mpt, status) == HERMON_MPT_HW &&
		    HERMON_GET(mpt, mpt, mem_key) != 0)
			return HERMON_STAT_BAD_RES_STATE;
		io = hm_dma_ptr(c->in_param, sizeof(*io));
		if (io == NULL)
			return HERMON_STAT_INTERNAL_ERR;
		if ((HERMON_GET(io, mpt, mem_key) & 0xffffff) != idx)
			return HERMON_STAT_BAD_PARAM;
		memcpy(mpt, io, sizeof(*mpt));
		HERMON_FILL(mpt, mpt, win_cnt, 0);
		/* a window may start free (type 2, Linux mlx4_mw_enable) */
		if (HERMON_GET(io, mpt, r_w) || HERMON_GET(io, mpt, status) != HERMON_MPT_FREE)
			HERMON_FILL(mpt, mpt, status, HERMON_MPT_HW);
		return HERMON_STAT_OK;
	case HERMON_CMD_HW2SW_MPT:
		if (HERMON_GET(mpt, mpt, mem_key) == 0)
			return HERMON_STAT_BAD_RES_STATE;
		if (HERMON_GET(mpt, mpt, r_w) && HERMON_GET(mpt, mpt, win_cnt) != 0)
			return HERMON_STAT_REG_BOUND;
		if (c->out_param != 0 && (io = hm_out(c, sizeof(*io))) != NULL)
			memcpy(io, mpt, sizeof(*io));
		if (!HERMON_GET(mpt, mpt, r_w) && HERMON_GET(mpt, mpt, lkey) != 0) {
			/* a bound window lets go of its region */
			struct hermon_prm_mpt *reg = hm_mpt(m, HERMON_GET(mpt, mpt, lkey) >> 8);

			if (reg != NULL && HERMON_GET(reg, mpt, win_cnt) > 0)
				HERMON_FILL(reg, mpt, win_cnt, HERMON_GET(reg, mpt, win_cnt) - 1);
		}
		memset(mpt, 0, sizeof(*mpt));
		HERMON_FILL(mpt, mpt, status, HERMON_MPT_SW);
		return HERMON_STAT_OK;
	default: /* QUERY_MPT */
		io = hm_out(c, sizeof(*io));
		if (io == NULL)
			return HERMON_STAT_INTERNAL_ERR;
		memcpy(io, mpt, sizeof(*io));
		return HERMON_STAT_OK;
	}
}

/* ---- CQ ----------------------------------------------------------------- */

static bool
hm_cq_mapped(struct hermon_model *m, const struct hermon_prm_completion_queue_context *q,
	     uint32_t log_size)
{
	uint64_t mtt = HERMON_GET64(q, completion_queue_context, mtt_base_addr_h,
				    mtt_base_addr_l);
	uint32_t pg = HERMON_GET(q, completion_queue_context, log2_page_size);
	uint64_t base = (uint64_t)HERMON_GET(q, completion_queue_context,
					     page_offset) * 32;
	uint32_t i;

	for (i = 0; i < (1u << log_size); i++)
		if (hm_queue_ptr(m, mtt, pg, base + (uint64_t)i * HM_CQE_SIZE,
				 HM_CQE_SIZE) == NULL)
			return false;
	return true;
}

/* Pre-mark every entry hardware-owned for the first pass (§6.7). */
static void
hm_cq_own_all(struct hermon_model *m, const struct hermon_prm_completion_queue_context *q)
{
	uint64_t mtt = HERMON_GET64(q, completion_queue_context, mtt_base_addr_h,
				    mtt_base_addr_l);
	uint32_t pg = HERMON_GET(q, completion_queue_context, log2_page_size);
	uint32_t log = HERMON_GET(q, completion_queue_context, log_cq_size), i;
	uint64_t base = (uint64_t)HERMON_GET(q, completion_queue_context,
					     page_offset) * 32;

	for (i = 0; i < (1u << log); i++) {
		struct hermon_prm_completion_queue_entry *e =
			hm_queue_ptr(m, mtt, pg, base + (uint64_t)i * HM_CQE_SIZE,
				     HM_CQE_SIZE);

		HERMON_FILL(e, completion_queue_entry, owner, 1);
	}
}

static uint8_t
hm_cq_resize(struct hermon_model *m, struct hermon_prm_completion_queue_context *ctx,
	     const struct hermon_prm_completion_queue_context *rs, uint32_t cqn)
{
	struct hermon_prm_completion_queue_context nq;
	struct hermon_prm_completion_queue_entry marker;
	uint32_t log = HERMON_GET(rs, completion_queue_context, log_cq_size);
	uint32_t pi = HERMON_GET(ctx, completion_queue_context, producer_counter);
	uint32_t ci;
	const uint32_t *db;

	if (log > HM_LOG_MAX_CQ_SZ)
		return HERMON_STAT_BAD_PARAM;
	db = hm_dma_ptr(HERMON_GET64(ctx, completion_queue_context, db_record_addr_h,
				     db_record_addr_l), 8);
	if (db == NULL)
		return HERMON_STAT_INTERNAL_ERR;
	ci = rte_be_to_cpu_32(db[0]) & 0xffffff;
	/* the marker takes one entry of the new ring too */
	if (((pi - ci) & 0xffffff) + 1 >= (1u << log))
		return HERMON_STAT_BAD_SIZE;
	nq = *ctx;
	HERMON_FILL(&nq, completion_queue_context, log_cq_size, log);
	HERMON_FILL(&nq, completion_queue_context, page_offset,
		    HERMON_GET(rs, completion_queue_context, page_offset));
	HERMON_FILL(&nq, completion_queue_context, log2_page_size,
		    HERMON_GET(rs, completion_queue_context, log2_page_size));
	HERMON_FILL64(&nq, completion_queue_context, mtt_base_addr_h, mtt_base_addr_l,
		      HERMON_GET64(rs, completion_queue_context, mtt_base_addr_h,
				   mtt_base_addr_l));
	/* the driver prepared the new ring's owner bits: it is not touched */
	if (!hm_cq_mapped(m, &nq, log))
		return HERMON_STAT_BAD_PARAM;
	/* the marker goes into the old ring, then the new one takes over */
	memset(&marker, 0, sizeof(marker));
	HERMON_FILL(&marker, completion_queue_entry, qpn, 0);
	HERMON_FILL(&marker, completion_queue_entry, opcode, HERMON_CQE_RESIZE);
	HERMON_FILL(&marker, completion_queue_entry, wqe_counter, cqn & 0xffff);
	hm_cq_push(m, cqn, &marker, false);
	HERMON_FILL(&nq, completion_queue_context, producer_counter,
		    HERMON_GET(ctx, completion_queue_context, producer_counter));
	*ctx = nq;
	return HERMON_STAT_OK;
}

static uint8_t
hm_cq_cmd(struct hermon_model *m, struct hm_cmd *c)
{
	uint32_t cqn = c->in_mod & 0xffffff;
	struct hermon_prm_completion_queue_context *ctx = hm_cqc(m, cqn), *io;
	struct hm_cq_rt *rt;

	if (ctx == NULL || cqn >= m->obj.ncq)
		return HERMON_STAT_BAD_INDEX;
	rt = &m->obj.cq[cqn];
	switch (c->opcode) {
	case HERMON_CMD_SW2HW_CQ:
		if (rt->hw)
			return HERMON_STAT_BAD_RES_STATE;
		io = hm_dma_ptr(c->in_param, sizeof(*io));
		if (io == NULL)
			return HERMON_STAT_INTERNAL_ERR;
		if (HERMON_GET(io, completion_queue_context, log_cq_size) >
		    HM_LOG_MAX_CQ_SZ ||
		    !hm_cq_mapped(m, io, HERMON_GET(io, completion_queue_context,
						   log_cq_size)) ||
		    hm_dma_ptr(HERMON_GET64(io, completion_queue_context,
					    db_record_addr_h, db_record_addr_l),
			       8) == NULL)
			return HERMON_STAT_BAD_PARAM;
		memcpy(ctx, io, sizeof(*ctx));
		HERMON_FILL(ctx, completion_queue_context, status, 0);
		HERMON_FILL(ctx, completion_queue_context, producer_counter, 0);
		HERMON_FILL(ctx, completion_queue_context, consumer_counter, 0);
		hm_cq_own_all(m, ctx);
		rt->hw = true;
		rt->armed = 0;
		rt->arm_seen = rte_be_to_cpu_32(((const uint32_t *)hm_dma_ptr(
			HERMON_GET64(ctx, completion_queue_context, db_record_addr_h,
				     db_record_addr_l), 8))[1]);
		return HERMON_STAT_OK;
	case HERMON_CMD_HW2SW_CQ:
	case HERMON_CMD_QUERY_CQ:
		if (!rt->hw)
			return HERMON_STAT_BAD_RES_STATE;
		if (c->opcode == HERMON_CMD_QUERY_CQ || c->out_param != 0) {
			io = hm_out(c, sizeof(*io));
			if (io == NULL)
				return HERMON_STAT_INTERNAL_ERR;
			memcpy(io, ctx, sizeof(*io));
		}
		if (c->opcode == HERMON_CMD_HW2SW_CQ)
			rt->hw = false;
		return HERMON_STAT_OK;
	default: /* MODIFY_CQ */
		if (!rt->hw)
			return HERMON_STAT_BAD_RES_STATE;
		if (c->op_mod == 0) {
			/* the new ring in a CQ context, as Linux sends it */
			const struct hermon_prm_completion_queue_context *rs =
				hm_dma_ptr(c->in_param, sizeof(*rs));

			if (rs == NULL)
				return HERMON_STAT_INTERNAL_ERR;
			return hm_cq_resize(m, ctx, rs, cqn);
		}
		if (c->op_mod == 1) {
			io = hm_dma_ptr(c->in_param, sizeof(*io));
			if (io == NULL)
				return HERMON_STAT_INTERNAL_ERR;
			HERMON_FILL(ctx, completion_queue_context, cq_max_count,
				    HERMON_GET(io, completion_queue_context, cq_max_count));
			HERMON_FILL(ctx, completion_queue_context, cq_period,
				    HERMON_GET(io, completion_queue_context, cq_period));
			return HERMON_STAT_OK;
		}
		return HERMON_STAT_BAD_PARAM;
	}
}

/* ---- SRQ ---------------------------------------------------------------- */

static uint8_t
hm_srq_cmd(struct hermon_model *m, struct hm_cmd *c)
{
	uint32_t srqn = c->in_mod & 0xffffff;
	struct hermon_prm_srq_context *ctx = hm_srqc(m, srqn), *io;
	struct hm_srq_rt *rt;

	if (ctx == NULL || srqn >= m->obj.nsrq)
		return HERMON_STAT_BAD_INDEX;
	rt = &m->obj.srq[srqn];
	switch (c->opcode) {
	case HERMON_CMD_SW2HW_SRQ:
		if (rt->hw)
			return HERMON_STAT_BAD_RES_STATE;
		io = hm_dma_ptr(c->in_param, sizeof(*io));
		if (io == NULL)
			return HERMON_STAT_INTERNAL_ERR;
		if (HERMON_GET(io, srq_context, srqn) != srqn ||
		    hm_dma_ptr(HERMON_GET64(io, srq_context, db_record_addr_h,
					    db_record_addr_l), 4) == NULL)
			return HERMON_STAT_BAD_PARAM;
		memcpy(ctx, io, sizeof(*ctx));
		HERMON_FILL(ctx, srq_context, state, HERMON_SRQ_HW);
		HERMON_FILL(ctx, srq_context, srq_wqe_counter, 0);
		rt->hw = true;
		rt->head = 0;
		return HERMON_STAT_OK;
	case HERMON_CMD_ARM_SRQ:
		if (!rt->hw)
			return HERMON_STAT_BAD_RES_STATE;
		if (c->in_param > 0xffff)
			return HERMON_STAT_BAD_PARAM;
		HERMON_FILL(ctx, srq_context, lwm, (uint32_t)c->in_param);
		return HERMON_STAT_OK;
	default: /* HW2SW_SRQ, QUERY_SRQ */
		if (!rt->hw)
			return HERMON_STAT_BAD_RES_STATE;
		if (c->opcode == HERMON_CMD_QUERY_SRQ || c->out_param != 0) {
			io = hm_out(c, sizeof(*io));
			if (io == NULL)
				return HERMON_STAT_INTERNAL_ERR;
			memcpy(io, ctx, sizeof(*io));
		}
		if (c->opcode == HERMON_CMD_HW2SW_SRQ) {
			rt->hw = false;
			HERMON_FILL(ctx, srq_context, state, HERMON_SRQ_SW);
		}
		return HERMON_STAT_OK;
	}
}

/* ---- QP ----------------------------------------------------------------- */

static void
hm_qp_activate(struct hermon_model *m, uint32_t qpn, bool on)
{
	struct hm_objs *o = &m->obj;
	uint32_t i;

	if (o->qp[qpn].active == on)
		return;
	o->qp[qpn].active = on;
	if (on) {
		o->active[o->nactive++] = qpn;
		return;
	}
	for (i = 0; i < o->nactive; i++) {
		if (o->active[i] == qpn) {
			o->active[i] = o->active[--o->nactive];
			break;
		}
	}
}

/* Legal source states of each transition command (hermon-prm-facts §5.1). */
static bool
hm_qp_from_ok(uint16_t op, uint32_t st)
{
	switch (op) {
	case HERMON_CMD_RST2INIT_QP:
		return st == HERMON_QPS_RST;
	case HERMON_CMD_INIT2INIT_QP:
	case HERMON_CMD_INIT2RTR_QP:
		return st == HERMON_QPS_INIT;
	case HERMON_CMD_RTR2RTS_QP:
		return st == HERMON_QPS_RTR;
	case HERMON_CMD_RTS2RTS_QP:
	case HERMON_CMD_RTS2SQD_QP:
		return st == HERMON_QPS_RTS;
	case HERMON_CMD_SQD2RTS_QP:
	case HERMON_CMD_SQD2SQD_QP:
		return st == HERMON_QPS_SQD;
	case HERMON_CMD_SQERR2RTS_QP:
		return st == HERMON_QPS_SQE;
	default:
		return true;                /* 2ERR, 2RST: from anywhere */
	}
}

static uint32_t
hm_qp_to(uint16_t op)
{
	switch (op) {
	case HERMON_CMD_RST2INIT_QP:
	case HERMON_CMD_INIT2INIT_QP:
		return HERMON_QPS_INIT;
	case HERMON_CMD_INIT2RTR_QP:
		return HERMON_QPS_RTR;
	case HERMON_CMD_RTS2SQD_QP:
	case HERMON_CMD_SQD2SQD_QP:
		return HERMON_QPS_SQD;
	case HERMON_CMD_2ERR_QP:
		return HERMON_QPS_ERR;
	case HERMON_CMD_2RST_QP:
		return HERMON_QPS_RST;
	default:
		return HERMON_QPS_RTS;
	}
}

#define QPC(f) HERMON_GET(ctx, queue_pair_ee_context_entry, f)
#define QPC_SET(f, v) HERMON_FILL(ctx, queue_pair_ee_context_entry, f, v)

static uint8_t
hm_qp_cmd(struct hermon_model *m, struct hm_cmd *c)
{
	uint32_t qpn = c->in_mod & 0xffffff, st, to, sqc, rqc, spsn, rpsn;
	struct hermon_prm_queue_pair_ee_context_entry *ctx = hm_qpc(m, qpn);
	struct hermon_prm_qp_ee_state_transitions *mb;
	const struct hermon_prm_queue_pair_ee_context_entry *in;

	if (ctx == NULL || qpn >= m->obj.nqp)
		return HERMON_STAT_BAD_INDEX;
	st = QPC(state);
	if (c->opcode == HERMON_CMD_QUERY_QP) {
		mb = hm_out(c, sizeof(*mb));
		if (mb == NULL)
			return HERMON_STAT_INTERNAL_ERR;
		memcpy(HERMON_NESTED(mb, qp_ee_state_transitions, qpc_eec_data,
				     queue_pair_ee_context_entry), ctx, sizeof(*ctx));
		return HERMON_STAT_OK;
	}
	if (!hm_qp_from_ok(c->opcode, st))
		return HERMON_STAT_BAD_QP_STATE;
	to = hm_qp_to(c->opcode);
	if (c->opcode == HERMON_CMD_2RST_QP) {
		if (c->op_mod != 2 && c->op_mod != 3)
			return HERMON_STAT_BAD_PARAM;
		memset(ctx, 0, sizeof(*ctx));
		hm_qp_activate(m, qpn, false);
		memset(&m->obj.qp[qpn], 0, sizeof(m->obj.qp[qpn]));
		return HERMON_STAT_OK;
	}
	/* F22: like every transition but 2RST, these read their mailbox
	 * (Linux __mlx4_qp_modify sends one): none is a DMA fault */
	if ((c->opcode == HERMON_CMD_2ERR_QP || c->opcode == HERMON_CMD_RTS2SQD_QP) &&
	    hm_dma_ptr(c->in_param, sizeof(struct hermon_prm_qp_ee_state_transitions)) == NULL)
		return HERMON_STAT_INTERNAL_ERR;
	if (c->opcode == HERMON_CMD_2ERR_QP || c->opcode == HERMON_CMD_RTS2SQD_QP) {
		QPC_SET(state, to);
		if (c->opcode == HERMON_CMD_RTS2SQD_QP && (c->in_mod & RTE_BIT32(31))) {
			uint32_t data[6] = { qpn, 0, 0, 0, 0, 0 };

			/* the engine runs WQEs to completion: drained at once */
			hm_eq_post(m, HERMON_EV_SQ_DRAINED, 0, data);
		}
		return HERMON_STAT_OK;
	}
	mb = hm_dma_ptr(c->in_param, sizeof(*mb));
	if (mb == NULL)
		return HERMON_STAT_INTERNAL_ERR;
	in = HERMON_NESTED(mb, qp_ee_state_transitions, qpc_eec_data,
			   queue_pair_ee_context_entry);
	if (c->opcode == HERMON_CMD_RST2INIT_QP) {
		uint32_t stype = HERMON_GET(in, queue_pair_ee_context_entry, st);

		if ((stype != HERMON_QPST_RC && stype != HERMON_QPST_UC &&
		     stype != HERMON_QPST_UD && stype != HERMON_QPST_MLX) ||
		    (!hm_sqp_type_ok(m, qpn, stype) && !hm_raw_type_ok(m, qpn, in)) ||
		    HERMON_GET(in, queue_pair_ee_context_entry, log_sq_size) >
		    HM_LOG_MAX_QP_SZ ||
		    HERMON_GET(in, queue_pair_ee_context_entry, log_rq_size) >
		    HM_LOG_MAX_QP_SZ ||
		    HERMON_GET(in, queue_pair_ee_context_entry, local_qpn_een) != qpn)
			return HERMON_STAT_BAD_PARAM;
	}
	/* more responder contexts than INIT_HCA gave each QP would use the
	 * next QP's RDMARC entries */
	if (HERMON_GET(in, queue_pair_ee_context_entry, rra_max) > m->layout.log_rd)
		return HERMON_STAT_BAD_PARAM;
	/* no message larger than QUERY_DEV_CAP log_max_msg */
	if (HERMON_GET(in, queue_pair_ee_context_entry, msg_max) > m->conf.log_max_msg)
		return HERMON_STAT_BAD_PARAM;
	/* runtime the device owns survives a transition */
	sqc = QPC(sq_wqe_counter);
	rqc = QPC(rq_wqe_counter);
	spsn = QPC(next_send_psn);
	rpsn = QPC(next_rcv_psn);
	memcpy(ctx, in, sizeof(*ctx));
	if (c->opcode != HERMON_CMD_RST2INIT_QP) {
		QPC_SET(sq_wqe_counter, sqc);
		QPC_SET(rq_wqe_counter, rqc);
		if (c->opcode != HERMON_CMD_INIT2RTR_QP)
			QPC_SET(next_rcv_psn, rpsn);
		if (c->opcode != HERMON_CMD_RTR2RTS_QP &&
		    c->opcode != HERMON_CMD_SQD2RTS_QP &&
		    c->opcode != HERMON_CMD_SQERR2RTS_QP)
			QPC_SET(next_send_psn, spsn);
	} else {
		QPC_SET(sq_wqe_counter, 0);
		QPC_SET(rq_wqe_counter, 0);
		memset(&m->obj.qp[qpn], 0, sizeof(m->obj.qp[qpn]));
	}
	QPC_SET(state, to);
	hm_qp_activate(m, qpn, true);
	return HERMON_STAT_OK;
}

/* ---- ports -------------------------------------------------------------- */

/* Data VLs of the model's IB ports (ConnectX-3: VL0-7). */
#define HM_IB_DATA_VLS 8

static uint8_t
hm_port_cmd(struct hermon_model *m, struct hm_cmd *c)
{
	uint32_t port = c->in_mod & 0xff, sel = (c->in_mod >> 8) & 0xff, i;

	if (port < 1 || port > m->conf.ports)
		return HERMON_STAT_BAD_PARAM;
	if (c->opcode == HERMON_CMD_QUERY_PORT) {
		struct hermon_prm_query_port *q = hm_out(c, sizeof(*q));
		const uint8_t *mac = m->mac[port - 1];

		if (q == NULL)
			return HERMON_STAT_INTERNAL_ERR;
		HERMON_FILL(q, query_port, link_up,
			    (m->ports_up & RTE_BIT32(port - 1)) != 0 && !m->conf.link_down);
		HERMON_FILL(q, query_port, ib, (m->conf.port_types & 1) != 0);
		HERMON_FILL(q, query_port, eth, (m->conf.port_types & 2) != 0);
		HERMON_FILL(q, query_port, suggested_type,
			    m->conf.port_type == HERMON_PORT_TYPE_ETH);
		HERMON_FILL(q, query_port, ib_mtu, 5);
		HERMON_FILL(q, query_port, eth_mtu, 1500);
		HERMON_FILL(q, query_port, width, 2);        /* 4x */
		HERMON_FILL(q, query_port, mac_47_32, (uint32_t)mac[0] << 8 | mac[1]);
		HERMON_FILL(q, query_port, mac_31_0, (uint32_t)mac[2] << 24 |
			    (uint32_t)mac[3] << 16 | (uint32_t)mac[4] << 8 | mac[5]);
		return HERMON_STAT_OK;
	}
	/*
	 * F8: an IB port takes only the IB SET_PORT (op_mod 0, in_mod = the
	 * port, the IB port layout: Linux mlx4_SET_PORT, iPXE set_port_ib);
	 * its GID table is the firmware's (subnet prefix + port GUID), so an
	 * Ethernet selector or a host GID table is refused.
	 */
	if (m->conf.port_type == HERMON_PORT_TYPE_IB &&
	    (c->op_mod != 0 || sel != 0))
		return HERMON_STAT_BAD_PARAM;
	if (m->conf.port_type == HERMON_PORT_TYPE_IB) {
		const struct hermon_prm_set_port_ib *ib =
			hm_dma_ptr(c->in_param, sizeof(*ib));
		uint32_t mtu, vl;

		if (ib == NULL)
			return HERMON_STAT_INTERNAL_ERR;
		mtu = HERMON_GET(ib, set_port_ib, mtu_cap);
		vl = HERMON_GET(ib, set_port_ib, vl_cap);
		/* IB MTU codes 1 (256) to 5 (4096); VL caps 1, 2, 4 or 8 */
		if (HERMON_GET(ib, set_port_ib, c_mtu_cap) && (mtu < 1 || mtu > 5))
			return HERMON_STAT_BAD_PARAM;
		if (HERMON_GET(ib, set_port_ib, c_vl_cap)) {
			if (vl == 0 || (vl & (vl - 1)) != 0)
				return HERMON_STAT_BAD_PARAM;
			if (vl > HM_IB_DATA_VLS)
				return HERMON_STAT_EXCEED_LIM;
		}
		if (HERMON_GET(ib, set_port_ib, c_mtu_cap) &&
		    HERMON_GET(ib, set_port_ib, c_vl_cap))
			m->ib_port_set |= (uint8_t)RTE_BIT32(port - 1);
		/* dword 1 is the port's PortInfo capability mask (F29) */
		hm_sma_set_caps(m, (uint8_t)port, HERMON_GET(ib, set_port_ib, cap_mask));
		return HERMON_STAT_OK;
	}
	/* SET_PORT: the GID table, and an Ethernet port's MAC table and MTU */
	if (c->op_mod == 1 && sel == HERMON_SET_PORT_MAC_TABLE) {
		const struct hermon_mac_table_mbox *t = hm_dma_ptr(c->in_param,
								   sizeof(*t));

		if (t == NULL)
			return HERMON_STAT_INTERNAL_ERR;
		for (i = 0; i < HERMON_MAC_TABLE_LEN; i++)
			m->mac_valid[port - 1][i] = HERMON_GET(&t->mac[i], mac_entry, v);
		return HERMON_STAT_OK;
	}
	/* F13: A0 steering of the port's Ethernet traffic (hermon_model_raw.c) */
	if (c->op_mod == 1 && sel == HERMON_SET_PORT_RQP_CALC)
		return hm_raw_rqp_calc(m, port, c->in_param);
	if (c->op_mod == 1 && sel == HERMON_SET_PORT_GENERAL) {
		const struct hermon_prm_set_port_general *g =
			hm_dma_ptr(c->in_param, sizeof(*g));

		if (g == NULL)
			return HERMON_STAT_INTERNAL_ERR;
		if (HERMON_GET(g, set_port_general, v_mtu))
			m->port_mtu[port - 1] = (uint16_t)HERMON_GET(g, set_port_general, mtu);
		return HERMON_STAT_OK;
	}
	if (sel == HERMON_SET_PORT_GID_TABLE) {
		const struct hermon_gid_table_mbox *t = hm_dma_ptr(c->in_param,
								   sizeof(*t));

		if (t == NULL)
			return HERMON_STAT_INTERNAL_ERR;
		for (i = 0; i < HERMON_GID_TABLE_LEN; i++) {
			memcpy(m->gid[port - 1][i], t->gid[i].dw, 16);
			m->gid_v2[port - 1][i] = false;
		}
	}
	/* the typed table exists only on RoCE v1/v2 firmware (ConnectX-3 Pro) */
	if (sel == HERMON_SET_PORT_ROCE_ADDR) {
		const struct hermon_roce_gid_table_mbox *t;

		if (!m->conf.rocev2 || c->op_mod != 1)
			return HERMON_STAT_BAD_PARAM;
		t = hm_dma_ptr(c->in_param, sizeof(*t));
		if (t == NULL)
			return HERMON_STAT_INTERNAL_ERR;
		for (i = 0; i < HERMON_GID_TABLE_LEN; i++) {
			memcpy(m->gid[port - 1][i], t->gid[i].gid, 16);
			m->gid_v2[port - 1][i] = t->gid[i].version == HERMON_ROCE_GID_V2;
		}
	}
	return HERMON_STAT_OK;
}

uint8_t
hm_obj_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled)
{
	*handled = true;
	switch (c->opcode) {
	case HERMON_CMD_SW2HW_MPT: case HERMON_CMD_HW2SW_MPT:
	case HERMON_CMD_QUERY_MPT: case HERMON_CMD_SW2HW_CQ:
	case HERMON_CMD_HW2SW_CQ: case HERMON_CMD_QUERY_CQ:
	case HERMON_CMD_MODIFY_CQ: case HERMON_CMD_SW2HW_SRQ:
	case HERMON_CMD_HW2SW_SRQ: case HERMON_CMD_QUERY_SRQ:
	case HERMON_CMD_ARM_SRQ: case HERMON_CMD_RST2INIT_QP:
	case HERMON_CMD_INIT2INIT_QP: case HERMON_CMD_INIT2RTR_QP:
	case HERMON_CMD_RTR2RTS_QP: case HERMON_CMD_RTS2RTS_QP:
	case HERMON_CMD_SQERR2RTS_QP: case HERMON_CMD_2ERR_QP:
	case HERMON_CMD_RTS2SQD_QP: case HERMON_CMD_SQD2RTS_QP:
	case HERMON_CMD_SQD2SQD_QP: case HERMON_CMD_2RST_QP:
	case HERMON_CMD_QUERY_QP: case HERMON_CMD_SET_PORT:
	case HERMON_CMD_QUERY_PORT:
		break;
	default:
		*handled = false;
		return HERMON_STAT_BAD_OP;
	}
	if (!m->hca_init)
		return HERMON_STAT_BAD_SYS_STATE;
	if (hm_obj_ensure(m) < 0)
		return HERMON_STAT_INTERNAL_ERR;
	switch (c->opcode) {
	case HERMON_CMD_SW2HW_MPT: case HERMON_CMD_HW2SW_MPT:
	case HERMON_CMD_QUERY_MPT:
		return hm_mpt_cmd(m, c);
	case HERMON_CMD_SW2HW_CQ: case HERMON_CMD_HW2SW_CQ:
	case HERMON_CMD_QUERY_CQ: case HERMON_CMD_MODIFY_CQ:
		return hm_cq_cmd(m, c);
	case HERMON_CMD_SW2HW_SRQ: case HERMON_CMD_HW2SW_SRQ:
	case HERMON_CMD_QUERY_SRQ: case HERMON_CMD_ARM_SRQ:
		return hm_srq_cmd(m, c);
	case HERMON_CMD_SET_PORT: case HERMON_CMD_QUERY_PORT:
		return hm_port_cmd(m, c);
	default:
		return hm_qp_cmd(m, c);
	}
}
