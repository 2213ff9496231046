/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Completion queues: a ring of 32-byte CQEs (entries pre-marked hardware
 * owned), an 8-byte doorbell record (set_ci, arm word) after the ring,
 * SW2HW_CQ, arming through the record and the UAR CQ doorbell, resize with
 * MODIFY_CQ and HW2SW_CQ. Completion events arrive on the async EQ.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "hermon_barrier.h"
#include "hermon_logs.h"
#include "hermon_mmio.h"
#include "hermon_obj.h"

#define CQE_SZ HERMON_PRM_SIZE(completion_queue_entry)

static uint32_t
log2_ceil(uint32_t v)
{
	return v <= 1 ? 0 : 32 - (uint32_t)__builtin_clz(v - 1);
}

static void
cq_own_all(uint8_t *buf, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		buf[(size_t)i * CQE_SZ + 31] = 0x80;
}

int
hermon_cq_create(struct prdma_cq *pcq, const struct prdma_cq_init_attr *attr)
{
	struct hermon_cq *cq = (struct hermon_cq *)pcq;
	struct hermon_dev *hd = pcq->dev->priv;
	struct hermon_prm_completion_queue_context cqc;
	/* F19: one spare entry (Linux mlx4_ib rounds entries + 1) */
	uint32_t log = RTE_MAX(log2_ceil(attr->cqe + 1), 1u), n;
	int ret, idx;

	if (log > hd->caps.log_max_cq_sz) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	n = 1u << log;
	idx = hermon_bitmap_alloc(&hd->cqs);
	if (idx < 0)
		return idx;
	cq->cqn = (uint32_t)idx;
	cq->hd = hd;
	ret = hermon_queue_alloc(hd, &cq->mem, "cq", (size_t)n * CQE_SZ, 0);
	if (ret < 0)
		goto err_idx;
	ret = hermon_dma_alloc(&cq->dbmem, "cq_db", 64, 64, hd->pdev->socket_id);
	if (ret < 0)
		goto err_mem;
	cq->stash = rte_zmalloc("hermon_cq_stash", n * sizeof(uint64_t), 64);
	cq->stash_ok = rte_zmalloc("hermon_cq_stash", n, 64);
	if (cq->stash == NULL || cq->stash_ok == NULL) {
		ret = -ENOMEM;
		goto err_mem;
	}
	cq->buf = cq->mem.dma.va;
	cq->db = cq->dbmem.va;
	cq->log = log;
	cq->mask = n - 1;
	cq->qps = hd->qp_table;
	cq->last_qpn = UINT32_MAX;    /* no QP cached for the one-CQE poll */
	cq->qp_mask = hd->qps.n - 1;
	cq->arm_sn = 1;
	cq_own_all(cq->buf, n);
	memset(&cqc, 0, sizeof(cqc));
	HERMON_FILL(&cqc, completion_queue_context, log_cq_size, log);
	HERMON_FILL(&cqc, completion_queue_context, usr_page, hd->uar_idx);
	HERMON_FILL(&cqc, completion_queue_context, c_eqn, hd->eq.eqn);
	HERMON_FILL(&cqc, completion_queue_context, log2_page_size, 0);
	HERMON_FILL64(&cqc, completion_queue_context, mtt_base_addr_h, mtt_base_addr_l,
		      (uint64_t)cq->mem.mtt * hd->caps.mtt_entry_sz);
	HERMON_FILL64(&cqc, completion_queue_context, db_record_addr_h, db_record_addr_l,
		      cq->dbmem.iova);
	ret = hermon_cmd_sw2hw_cq(&hd->cmd, cq->cqn, &cqc);
	if (ret < 0)
		goto err_mem;
	pthread_mutex_lock(&hd->ev_lock);
	hd->cq_table[cq->cqn] = cq;
	pthread_mutex_unlock(&hd->ev_lock);
	/*
	 * F19: the device tells a full CQ from an empty one only with a spare
	 * entry: it overruns when n - 1 are unread (Linux mlx4_dev_cap: "spare
	 * CQE", max_cqes = max_cq_sz - 1).
	 */
	pcq->cqe = n - 1;
	return 0;
err_mem:
	rte_free(cq->stash);
	rte_free(cq->stash_ok);
	hermon_dma_free(&cq->dbmem);
	hermon_queue_free(hd, &cq->mem);
err_idx:
	hermon_bitmap_free(&hd->cqs, cq->cqn);
	return ret;
}

int
hermon_cq_destroy(struct prdma_cq *pcq)
{
	struct hermon_cq *cq = (struct hermon_cq *)pcq;
	struct hermon_dev *hd = cq->hd;
	int ret = hermon_cmd_hw2sw_cq(&hd->cmd, cq->cqn);

	if (ret < 0)
		return ret;
	pthread_mutex_lock(&hd->ev_lock);
	if (hd->cq_table[cq->cqn] == cq)
		hd->cq_table[cq->cqn] = NULL;
	pthread_mutex_unlock(&hd->ev_lock);
	rte_free(cq->stash);
	rte_free(cq->stash_ok);
	hermon_dma_free(&cq->dbmem);
	hermon_queue_free(hd, &cq->mem);
	hermon_bitmap_free(&hd->cqs, cq->cqn);
	return 0;
}

static bool
cqe_sw_owned(const struct hermon_cq *cq, uint32_t idx)
{
	const uint8_t *e = cq->buf + (size_t)(idx & cq->mask) * CQE_SZ;

	return (e[31] >> 7) == ((idx >> cq->log) & 1);
}

/*
 * Resize: the device writes a resize marker into the old ring and continues
 * in the new one after it; the CQEs still unread in the old ring move to the
 * new one, each one slot later, so that the marker's slot is skipped.
 */
int
hermon_cq_resize(struct prdma_cq *pcq, uint32_t cqe)
{
	struct hermon_cq *cq = (struct hermon_cq *)pcq;
	struct hermon_dev *hd = cq->hd;
	struct hermon_queue_mem nm, om;
	struct hermon_prm_completion_queue_context rs;
	uint32_t log = RTE_MAX(log2_ceil(cqe + 1), 1u), n, queued = 0, i, nmask, base;
	uint64_t *nstash;
	uint8_t *nok, *nbuf;
	int ret;

	while (queued <= cq->mask && cqe_sw_owned(cq, cq->ci + queued))
		queued++;
	if (log < log2_ceil(queued + 2))
		log = log2_ceil(queued + 2);
	if (log > hd->caps.log_max_cq_sz) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	n = 1u << log;
	nmask = n - 1;
	ret = hermon_queue_alloc(hd, &nm, "cq", (size_t)n * CQE_SZ, 0);
	if (ret < 0)
		return ret;
	nstash = rte_zmalloc("hermon_cq_stash", n * sizeof(uint64_t), 64);
	nok = rte_zmalloc("hermon_cq_stash", n, 64);
	if (nstash == NULL || nok == NULL) {
		ret = -ENOMEM;
		goto err;
	}
	nbuf = nm.dma.va;
	/*
	 * Every slot starts hardware-owned for the index that reaches it first
	 * after the marker's (ci + 1 onwards): the ring continues, it does not
	 * restart at index 0.
	 */
	base = cq->ci + 1;
	for (i = 0; i < n; i++) {
		uint32_t idx = base + ((i - base) & nmask);

		nbuf[(size_t)i * CQE_SZ + 31] = (uint8_t)((((idx >> log) & 1) ^ 1) << 7);
	}
	memset(&rs, 0, sizeof(rs));
	/*
	 * F14: the same CQ-context layout as SW2HW_CQ (Linux mlx4_cq_resize:
	 * logsize at 0x0c, log_page_size 0x18, MTT address 0x1b/0x1c); the
	 * iPXE PRM's resize_cq struct, which iPXE never issues, puts them
	 * elsewhere.
	 */
	HERMON_FILL(&rs, completion_queue_context, log_cq_size, log);
	HERMON_FILL(&rs, completion_queue_context, log2_page_size, 0);
	HERMON_FILL64(&rs, completion_queue_context, mtt_base_addr_h, mtt_base_addr_l,
		      (uint64_t)nm.mtt * hd->caps.mtt_entry_sz);
	ret = hermon_cmd_resize_cq(&hd->cmd, cq->cqn, &rs);
	if (ret < 0)
		goto err;
	/* move what was not read, up to the marker */
	for (i = cq->ci;; i++) {
		uint8_t *o = cq->buf + (size_t)(i & cq->mask) * CQE_SZ;
		uint8_t *d = nbuf + (size_t)((i + 1) & nmask) * CQE_SZ;

		if (!cqe_sw_owned(cq, i))
			break;
		hermon_barrier_cqe_owner_before_data();
		if ((o[31] & 0x1f) == HERMON_CQE_RESIZE)
			break;
		memcpy(d, o, CQE_SZ);
		d[31] = (uint8_t)((o[31] & 0x7f) | ((((i + 1) >> log) & 1) << 7));
		nstash[(i + 1) & nmask] = cq->stash[i & cq->mask];
		nok[(i + 1) & nmask] = cq->stash_ok[i & cq->mask];
	}
	om = cq->mem;
	rte_free(cq->stash);
	rte_free(cq->stash_ok);
	cq->stash = nstash;
	cq->stash_ok = nok;
	cq->mem = nm;
	cq->buf = nbuf;
	cq->log = log;
	cq->mask = nmask;
	cq->ci++;
	cq->db[0] = rte_cpu_to_be_32(cq->ci & 0xffffff);
	pcq->cqe = n - 1;       /* F19: the spare entry */
	/* the device has let go of the old ring */
	hermon_queue_free(hd, &om);
	return 0;
err:
	rte_free(nstash);
	rte_free(nok);
	hermon_queue_free(hd, &nm);
	return ret;
}

static void
cq_arm_db(struct hermon_cq *cq, uint32_t cmd)
{
	uint32_t sn = cq->arm_sn & 3, ci = cq->ci & 0xffffff;
	uint8_t *uar = cq->hd->uar;

	cq->db[1] = rte_cpu_to_be_32(sn << 28 | cmd << 24 | ci);
	hermon_barrier_dbrec_before_doorbell();
	hermon_mmio_write32(uar, HERMON_UAR_CQ_DB, sn << 28 | cmd << 24 | cq->cqn);
	hermon_mmio_write32(uar, HERMON_UAR_CQ_DB + 4, ci);
}

static uint32_t
cq_ready(const struct hermon_cq *cq)
{
	uint32_t n = 0;

	while (n <= cq->mask && cqe_sw_owned(cq, cq->ci + n))
		n++;
	return n;
}

int
hermon_cq_arm(struct prdma_cq *pcq, enum prdma_cq_arm_flags flags, uint32_t n)
{
	struct hermon_cq *cq = (struct hermon_cq *)pcq;

	if (n > pcq->cqe) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	pthread_mutex_lock(&cq->hd->ev_lock);
	cq->arm_n = n;
	cq->arm_pos = cq->ci + cq_ready(cq);
	cq_arm_db(cq, flags == PRDMA_CQ_ARM_SOLICITED && n == 0 ?
		  HERMON_CQ_DB_REQ_NOT_SOL : HERMON_CQ_DB_REQ_NOT);
	pthread_mutex_unlock(&cq->hd->ev_lock);
	return 0;
}

void
hermon_cq_event(struct hermon_dev *hd, uint32_t cqn)
{
	struct hermon_cq *cq;

	if (cqn >= hd->cqs.n || (cq = hd->cq_table[cqn]) == NULL) {
		HERMON_LOG(DEBUG, "%s: completion event for unknown CQ %u",
			   hd->pdev->name, cqn);
		return;
	}
	cq->arm_sn++;
	if (cq->arm_n != 0 && cq->ci + cq_ready(cq) - cq->arm_pos < cq->arm_n) {
		/* RearmNCq: not enough yet, wait for the next one */
		cq_arm_db(cq, HERMON_CQ_DB_REQ_NOT);
		return;
	}
	cq->arm_n = 0;
	prdma_cq_notify(&cq->pub);
}
