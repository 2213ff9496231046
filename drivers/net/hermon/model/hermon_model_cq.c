/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * CQE writing: room is judged from the consumer index in the CQ's doorbell
 * record (a full CQ overruns into a CQ error event and the CQE is lost,
 * never written over one the driver has not consumed); the owner bit goes
 * last; an armed CQ raises one completion event. Arm requests are taken
 * from the arm word of the doorbell record, which the driver writes before
 * ringing the arm doorbell, so no request is lost when two CQs ring the
 * same UAR register back to back.
 */

#include <string.h>

#include <rte_atomic.h>

#include "hermon_model_priv.h"

#define CQC(f) HERMON_GET(ctx, completion_queue_context, f)
#define HM_CQ_STATUS_OVERFLOW 0x9
#define HM_CQ_ERR_OVERRUN 0x01

void
hm_cq_push(struct hermon_model *m, uint32_t cqn,
	   struct hermon_prm_completion_queue_entry *cqe, bool solicited)
{
	struct hermon_prm_completion_queue_context *ctx = hm_cqc(m, cqn);
	struct hermon_prm_completion_queue_entry *e;
	volatile uint32_t *db;
	struct hm_cq_rt *rt;
	uint32_t pi, ci, log, arm, data[6] = { 0 };
	unsigned int i;
	bool err;

	if (ctx == NULL || cqn >= m->obj.ncq || !m->obj.cq[cqn].hw ||
	    CQC(status) != 0)
		return;
	rt = &m->obj.cq[cqn];
	db = hm_dma_ptr(HERMON_GET64(ctx, completion_queue_context, db_record_addr_h,
				     db_record_addr_l), 8);
	if (db == NULL)
		return;
	log = CQC(log_cq_size);
	pi = CQC(producer_counter);
	ci = rte_be_to_cpu_32(db[0]) & 0xffffff;
	HERMON_FILL(ctx, completion_queue_context, consumer_counter, ci);
	/* full at n - 1 unread: the last entry is the spare that tells a
	 * full ring from an empty one */
	if (((pi - ci) & 0xffffff) >= (1u << log) - 1) {
		HERMON_FILL(ctx, completion_queue_context, status, HM_CQ_STATUS_OVERFLOW);
		data[0] = cqn;
		data[2] = HM_CQ_ERR_OVERRUN;
		HM_LOG(DEBUG, m, "CQ %u overrun", cqn);
		hm_eq_post(m, HERMON_EV_CQ_ERROR, 0, data);
		return;
	}
	e = hm_queue_ptr(m, HERMON_GET64(ctx, completion_queue_context, mtt_base_addr_h,
					 mtt_base_addr_l), CQC(log2_page_size),
			 (uint64_t)CQC(page_offset) * 32 +
			 (uint64_t)(pi & ((1u << log) - 1)) * HM_CQE_SIZE, HM_CQE_SIZE);
	if (e == NULL) {
		HERMON_FILL(ctx, completion_queue_context, status, 0xa);
		return;
	}
	err = HERMON_GET(cqe, completion_queue_entry, opcode) == HERMON_CQE_ERROR;
	for (i = 0; i < 7; i++)
		e->dw[i] = cqe->dw[i];
	HERMON_FILL(cqe, completion_queue_entry, owner, (pi >> log) & 1);
	/* the entry's body is visible before its owner bit says it is valid */
	rte_io_wmb();
	e->dw[7] = cqe->dw[7];
	HERMON_FILL(ctx, completion_queue_context, producer_counter, (pi + 1) & 0xffffff);

	/* the arm word is written by the driver before its doorbell */
	arm = rte_be_to_cpu_32(db[1]);
	if (arm != rt->arm_seen) {
		rt->arm_seen = arm;
		rt->armed = (uint8_t)((arm >> 24) & 7);
	}
	if (rt->armed == HERMON_CQ_DB_REQ_NOT ||
	    (rt->armed == HERMON_CQ_DB_REQ_NOT_SOL && (solicited || err))) {
		rt->armed = 0;
		HERMON_FILL(ctx, completion_queue_context, last_notified_indx, pi);
		data[0] = cqn;
		hm_eq_post(m, HERMON_EV_COMP, 0, data);
	}
}
