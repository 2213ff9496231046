/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Index allocators for PDs, dMPT entries, CQs, SRQs and QPs, the MTT
 * allocator, and queue buffers described by MTT runs. Control path only
 * (the device's control lock is held).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "hermon_logs.h"
#include "hermon_mcast.h"
#include "hermon_obj.h"

static int
bm_init(struct hermon_bitmap *b, uint32_t n, uint32_t first)
{
	b->bits = calloc((n + 63) / 64, sizeof(uint64_t));
	if (b->bits == NULL)
		return -ENOMEM;
	b->n = n;
	b->first = first;
	b->next = first;
	return 0;
}

int
hermon_bitmap_alloc(struct hermon_bitmap *b)
{
	uint32_t k, i;

	for (k = 0; k < b->n - b->first; k++) {
		i = b->next + k;
		if (i >= b->n)
			i = b->first + (i - b->n);
		if ((b->bits[i / 64] & RTE_BIT64(i % 64)) == 0) {
			b->bits[i / 64] |= RTE_BIT64(i % 64);
			b->next = i + 1 < b->n ? i + 1 : b->first;
			return (int)i;
		}
	}
	rte_errno = ENOSPC;
	return -ENOSPC;
}

void
hermon_bitmap_free(struct hermon_bitmap *b, uint32_t i)
{
	if (i >= b->first && i < b->n)
		b->bits[i / 64] &= ~RTE_BIT64(i % 64);
}

static uint32_t
lg(uint32_t v)
{
	return (uint32_t)__builtin_ctz(v);
}

/*
 * BlueFlame (issue 14 item 5): BAR2 past the UAR space (2^(uar_sz + 20)
 * bytes) holds a BlueFlame page per UAR page, as Linux map_bf_area lays
 * it out; each page has registers of 2^log_bf_reg_size bytes, each of two
 * halves a WQE is copied to in turn. bf=0, a device without BlueFlame or
 * a BAR2 too short for the page leaves bf_page NULL: the doorbell only.
 */
static void
hermon_res_bf_init(struct hermon_dev *hd)
{
	const struct hermon_caps *c = &hd->caps;
	size_t uar_space = (size_t)1 << (c->uar_sz + 20);
	size_t off = uar_space + (size_t)hd->uar_idx * HERMON_UAR_PAGE_SIZE;
	uint32_t n;

	hd->bf_page = NULL;
	hd->bf_used = 0;
	if (hd->bus.args->no_bf || !c->bf || c->log_bf_reg_size < 7 ||
	    c->log_bf_reg_size > 12 || hd->bus.bar_len[HERMON_BAR_UAR] < off + HERMON_UAR_PAGE_SIZE)
		return;
	hd->bf_reg_size = 1u << c->log_bf_reg_size;
	n = RTE_MIN((uint32_t)HERMON_UAR_PAGE_SIZE >> c->log_bf_reg_size,
		    1u << RTE_MIN(c->log_max_bf_regs_per_page, 5u));
	hd->bf_nregs = RTE_MIN(n, 32u);
	hd->bf_page = (uint8_t *)hd->bus.bar[HERMON_BAR_UAR] + off;
}

/*
 * A BlueFlame register for @qp (Linux mlx4_bf_alloc: one per send queue),
 * or none when all are taken: that QP rings the doorbell only. Lock-free:
 * QPs are created and destroyed from any thread.
 */
void
hermon_bf_alloc(struct hermon_dev *hd, struct hermon_qp *qp)
{
	uint32_t used = __atomic_load_n(&hd->bf_used, __ATOMIC_RELAXED), i;

	qp->bf = NULL;
	qp->bf_reg = -1;
	qp->bf_off = 0;
	qp->bf_max = 0;
	if (hd->bf_page == NULL)
		return;
	do {
		for (i = 0; i < hd->bf_nregs && (used & RTE_BIT32(i)) != 0; i++)
			;
		if (i == hd->bf_nregs)
			return;
	} while (!__atomic_compare_exchange_n(&hd->bf_used, &used, used | RTE_BIT32(i), false,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	qp->bf_reg = (int)i;
	qp->bf = hd->bf_page + (size_t)i * hd->bf_reg_size;
	qp->bf_half = hd->bf_reg_size / 2;
	qp->bf_max = qp->bf_half;
}

void
hermon_bf_free(struct hermon_dev *hd, struct hermon_qp *qp)
{
	if (qp->bf_reg >= 0)
		__atomic_fetch_and(&hd->bf_used, ~RTE_BIT32((uint32_t)qp->bf_reg),
				   __ATOMIC_RELEASE);
	qp->bf = NULL;
	qp->bf_reg = -1;
	qp->bf_max = 0;
}

int
hermon_res_init(struct hermon_dev *hd)
{
	const struct hermon_icm_table *t = hd->icm.t;
	const struct hermon_caps *c = &hd->caps;
	uint32_t nmpt = 1u << t[HERMON_ICM_DMPT].log_num;
	uint32_t nqp = 1u << t[HERMON_ICM_QPC].log_num;
	uint32_t ncq = 1u << t[HERMON_ICM_CQC].log_num;
	uint32_t nsrq = 1u << t[HERMON_ICM_SRQC].log_num;
	int ret = 0;

	ret |= bm_init(&hd->pds, RTE_MIN(1u << 16, 1u << c->log_max_pd),
		       RTE_MAX(c->num_rsvd_pds, 1u));
	ret |= bm_init(&hd->mpts, nmpt, 1u << c->log2_rsvd_mrws);
	ret |= bm_init(&hd->cqs, ncq, 1u << c->log2_rsvd_cqs);
	ret |= bm_init(&hd->srqs, nsrq, 1u << c->log2_rsvd_srqs);
	ret |= bm_init(&hd->qps, nqp, 1u << c->log2_rsvd_qps);
	hd->mtt_n = 1u << t[HERMON_ICM_MTT].log_num;
	/* rounded up: a device may report fewer than 64 MTT entries */
	hd->mtt_bits = calloc((hd->mtt_n + 63) / 64, sizeof(uint64_t));
	hd->mpt_key = calloc(nmpt, 1);
	hd->mpt_dma = rte_zmalloc("hermon_mpt_dma", nmpt, 64);
	hd->qp_table = calloc(nqp, sizeof(*hd->qp_table));
	hd->cq_table = calloc(ncq, sizeof(*hd->cq_table));
	hd->srq_table = calloc(nsrq, sizeof(*hd->srq_table));
	if (ret != 0 || hd->mtt_bits == NULL || hd->mpt_key == NULL ||
	    hd->mpt_dma == NULL || hd->qp_table == NULL || hd->cq_table == NULL ||
	    hd->srq_table == NULL) {
		hermon_res_fini(hd);
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	/* the firmware's MTT entries and the async EQ's page are taken */
	(void)lg;
	for (ret = 0; ret < (int)(1u << c->log2_rsvd_mtts) + 1 &&
	     ret < (int)hd->mtt_n; ret++)
		hd->mtt_bits[ret / 64] |= RTE_BIT64(ret % 64);
	hd->uar = (uint8_t *)hd->bus.bar[HERMON_BAR_UAR] +
		(size_t)hd->uar_idx * HERMON_UAR_PAGE_SIZE;
	hermon_res_bf_init(hd);
	hd->iova_is_va = rte_eal_iova_mode() == RTE_IOVA_VA;
	ret = hermon_mcast_init(hd);
	if (ret < 0)
		hermon_res_fini(hd);
	return ret;
}

void
hermon_res_fini(struct hermon_dev *hd)
{
	hermon_mcast_fini(hd);
	free(hd->pds.bits);
	free(hd->mpts.bits);
	free(hd->cqs.bits);
	free(hd->srqs.bits);
	free(hd->qps.bits);
	free(hd->mtt_bits);
	free(hd->mpt_key);
	rte_free(hd->mpt_dma);
	free(hd->qp_table);
	free(hd->cq_table);
	free(hd->srq_table);
	memset(&hd->pds, 0, sizeof(hd->pds));
	memset(&hd->mpts, 0, sizeof(hd->mpts));
	memset(&hd->cqs, 0, sizeof(hd->cqs));
	memset(&hd->srqs, 0, sizeof(hd->srqs));
	memset(&hd->qps, 0, sizeof(hd->qps));
	hd->mtt_bits = NULL;
	hd->mpt_key = NULL;
	hd->mpt_dma = NULL;
	hd->qp_table = NULL;
	hd->cq_table = NULL;
	hd->srq_table = NULL;
}

static bool
mtt_used(const struct hermon_dev *hd, uint32_t i)
{
	return (hd->mtt_bits[i / 64] & RTE_BIT64(i % 64)) != 0;
}

int
hermon_mtt_alloc(struct hermon_dev *hd, uint32_t n)
{
	uint32_t i, run = 0;

	for (i = 0; i < hd->mtt_n && n != 0; i++) {
		run = mtt_used(hd, i) ? 0 : run + 1;
		if (run == n) {
			uint32_t first = i + 1 - n, k;

			for (k = first; k <= i; k++)
				hd->mtt_bits[k / 64] |= RTE_BIT64(k % 64);
			return (int)first;
		}
	}
	HERMON_LOG(ERR, "%s: no run of %u free MTT entries", hd->pdev->name, n);
	rte_errno = ENOSPC;
	return -ENOSPC;
}

void
hermon_mtt_free(struct hermon_dev *hd, uint32_t first, uint32_t n)
{
	uint32_t k;

	for (k = first; k < first + n && k < hd->mtt_n; k++)
		hd->mtt_bits[k / 64] &= ~RTE_BIT64(k % 64);
}

int
hermon_mtt_write(struct hermon_dev *hd, uint32_t first, const rte_iova_t *pages,
		 uint32_t n)
{
	struct hermon_write_mtt_mbox *mb;
	uint32_t done = 0, k, chunk;
	int ret = 0;

	mb = calloc(1, sizeof(*mb));
	if (mb == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	while (done < n && ret == 0) {
		chunk = RTE_MIN(n - done, (uint32_t)HERMON_WRITE_MTT_MAX);
		memset(mb, 0, sizeof(*mb));
		HERMON_FILL64(&mb->hdr, write_mtt_hdr, mtt_addr_h, mtt_addr_l,
			      (uint64_t)(first + done) * hd->caps.mtt_entry_sz);
		for (k = 0; k < chunk; k++) {
			HERMON_FILL64(&mb->mtt[k], mtt, ptag_h, ptag_l, pages[done + k]);
			HERMON_FILL(&mb->mtt[k], mtt, p, 1);
		}
		ret = hermon_cmd_write_mtt(&hd->cmd, mb, chunk);
		done += chunk;
	}
	free(mb);
	return ret;
}

int
hermon_queue_alloc(struct hermon_dev *hd, struct hermon_queue_mem *q,
		   const char *what, size_t bytes, size_t extra)
{
	rte_iova_t *pages;
	uint32_t n, i;
	int ret;

	memset(q, 0, sizeof(*q));
	q->qbytes = RTE_ALIGN_CEIL(bytes, HERMON_ICM_PAGE_SIZE);
	n = (uint32_t)(q->qbytes / HERMON_ICM_PAGE_SIZE);
	ret = hermon_dma_alloc(&q->dma, what, q->qbytes + RTE_ALIGN_CEIL(extra, 64),
			       HERMON_ICM_PAGE_SIZE, hd->pdev->socket_id);
	if (ret < 0)
		return ret;
	ret = hermon_mtt_alloc(hd, n);
	if (ret < 0)
		goto err;
	q->mtt = (uint32_t)ret;
	q->nmtt = n;
	pages = malloc(n * sizeof(*pages));
	if (pages == NULL) {
		ret = -ENOMEM;
		goto err_mtt;
	}
	for (i = 0; i < n; i++)
		pages[i] = q->dma.iova + (rte_iova_t)i * HERMON_ICM_PAGE_SIZE;
	ret = hermon_mtt_write(hd, q->mtt, pages, n);
	free(pages);
	if (ret < 0)
		goto err_mtt;
	return 0;
err_mtt:
	hermon_mtt_free(hd, q->mtt, q->nmtt);
	q->nmtt = 0;
err:
	hermon_dma_free(&q->dma);
	rte_errno = -ret;
	return ret;
}

void
hermon_queue_free(struct hermon_dev *hd, struct hermon_queue_mem *q)
{
	if (q->nmtt != 0)
		hermon_mtt_free(hd, q->mtt, q->nmtt);
	hermon_dma_free(&q->dma);
	memset(q, 0, sizeof(*q));
}
