/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Shared receive queues: WQEs of a 16-byte "next" segment and data
 * segments, kept on a linked free list whose order the device follows
 * (one WQE always stays free as the list's tail), a 4-byte doorbell record
 * counting posted WQEs, SW2HW_SRQ, ARM_SRQ for the limit event, QUERY_SRQ
 * and HW2SW_SRQ.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "hermon_logs.h"
#include "hermon_obj.h"

static uint32_t
log2_ceil(uint32_t v)
{
	return v <= 1 ? 0 : 32 - (uint32_t)__builtin_clz(v - 1);
}

int
hermon_srq_create(struct prdma_srq *psrq, struct prdma_srq_init_attr *attr)
{
	struct hermon_srq *s = (struct hermon_srq *)psrq;
	struct hermon_dev *hd = psrq->dev->priv;
	struct hermon_prm_srq_context ctx;
	uint32_t sge = RTE_MAX(attr->attr.max_sge, 1u), log, shift, n, i;
	int ret, idx;

	if (attr->attr.max_wr == 0 || sge > hd->caps.max_sg_rq ||
	    attr->attr.srq_limit > attr->attr.max_wr) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	log = log2_ceil(attr->attr.max_wr + 1);
	shift = RTE_MAX(log2_ceil(16 * (sge + 1)), 5u);
	if (log > hd->caps.log_max_srq_sz || log > 15 || shift > 10) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	n = 1u << log;
	idx = hermon_bitmap_alloc(&hd->srqs);
	if (idx < 0)
		return idx;
	s->srqn = (uint32_t)idx;
	ret = hermon_queue_alloc(hd, &s->mem, "srq", (size_t)n << shift, 64);
	if (ret < 0)
		goto err_idx;
	s->wrid = rte_zmalloc("hermon_srq_wrid", n * sizeof(uint64_t), 64);
	s->freed = rte_zmalloc("hermon_srq_free", n * sizeof(uint16_t), 64);
	if (s->wrid == NULL || s->freed == NULL) {
		ret = -ENOMEM;
		goto err_mem;
	}
	s->buf = s->mem.dma.va;
	s->db = (volatile rte_be32_t *)(s->buf + s->mem.qbytes);
	s->shift = shift;
	s->mask = n - 1;
	s->max_sge = ((1u << shift) - 16) / 16;
	s->max_wr = n - 1;
	for (i = 0; i < n; i++)
		*(rte_be16_t *)(s->buf + ((size_t)i << shift) + 2) =
			rte_cpu_to_be_16((uint16_t)((i + 1) & s->mask));
	s->head = 0;
	s->tail = n - 1;
	memset(&ctx, 0, sizeof(ctx));
	HERMON_FILL(&ctx, srq_context, srqn, s->srqn);
	HERMON_FILL(&ctx, srq_context, log_srq_size, log);
	HERMON_FILL(&ctx, srq_context, log_srq_stride, shift - 4);
	HERMON_FILL(&ctx, srq_context, pd, psrq->pd->pd_num);
	HERMON_FILL(&ctx, srq_context, page_offset, 0);
	HERMON_FILL(&ctx, srq_context, log2_page_size, 0);
	HERMON_FILL64(&ctx, srq_context, mtt_base_addr_h, mtt_base_addr_l,
		      (uint64_t)s->mem.mtt * hd->caps.mtt_entry_sz);
	HERMON_FILL64(&ctx, srq_context, db_record_addr_h, db_record_addr_l,
		      s->mem.dma.iova + s->mem.qbytes);
	HERMON_FILL(&ctx, srq_context, lwm, attr->attr.srq_limit);
	ret = hermon_cmd_sw2hw_srq(&hd->cmd, s->srqn, &ctx);
	if (ret < 0)
		goto err_mem;
	pthread_mutex_lock(&hd->ev_lock);
	hd->srq_table[s->srqn] = s;
	pthread_mutex_unlock(&hd->ev_lock);
	psrq->srq_num = s->srqn;
	attr->attr.max_wr = s->max_wr;
	attr->attr.max_sge = s->max_sge;
	return 0;
err_mem:
	rte_free(s->wrid);
	rte_free(s->freed);
	hermon_queue_free(hd, &s->mem);
err_idx:
	hermon_bitmap_free(&hd->srqs, s->srqn);
	return ret;
}

int
hermon_srq_modify(struct prdma_srq *psrq, const struct prdma_srq_attr *attr,
		  uint32_t mask)
{
	struct hermon_srq *s = (struct hermon_srq *)psrq;
	struct hermon_dev *hd = psrq->dev->priv;

	if (mask == 0 || (mask & ~(PRDMA_SRQ_MAX_WR | PRDMA_SRQ_LIMIT)) != 0) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	if (mask & PRDMA_SRQ_MAX_WR) {
		/* Hermon has no SRQ resize command */
		rte_errno = ENOTSUP;
		return -ENOTSUP;
	}
	if (attr->srq_limit > s->max_wr) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	return hermon_cmd_arm_srq(&hd->cmd, s->srqn, attr->srq_limit);
}

int
hermon_srq_query(struct prdma_srq *psrq, struct prdma_srq_attr *attr)
{
	struct hermon_srq *s = (struct hermon_srq *)psrq;
	struct hermon_dev *hd = psrq->dev->priv;
	struct hermon_prm_srq_context ctx;
	int ret = hermon_cmd_query_srq(&hd->cmd, s->srqn, &ctx);

	if (ret < 0)
		return ret;
	attr->max_wr = s->max_wr;
	attr->max_sge = s->max_sge;
	attr->srq_limit = HERMON_GET(&ctx, srq_context, lwm);
	return 0;
}

int
hermon_srq_destroy(struct prdma_srq *psrq)
{
	struct hermon_srq *s = (struct hermon_srq *)psrq;
	struct hermon_dev *hd = psrq->dev->priv;
	int ret = hermon_cmd_hw2sw_srq(&hd->cmd, s->srqn);

	if (ret < 0)
		return ret;
	pthread_mutex_lock(&hd->ev_lock);
	if (hd->srq_table[s->srqn] == s)
		hd->srq_table[s->srqn] = NULL;
	pthread_mutex_unlock(&hd->ev_lock);
	rte_free(s->wrid);
	rte_free(s->freed);
	hermon_queue_free(hd, &s->mem);
	hermon_bitmap_free(&hd->srqs, s->srqn);
	return 0;
}
