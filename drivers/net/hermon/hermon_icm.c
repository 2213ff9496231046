/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * ICM: size every context table from the capabilities and the PMD's
 * profile, lay them out in ICM address space, SET_ICM_SIZE, back the aux
 * area and each table with DMA memory (MAP_ICM_AUX, MAP_ICM), and hand the
 * layout to the firmware with INIT_HCA.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "hermon_dev.h"
#include "hermon_logs.h"
#include "hermon_prm_ext.h"

/* Profile: how many objects of each kind the PMD provisions (log2). */
#define HERMON_PROFILE_LOG_QP      10
#define HERMON_PROFILE_LOG_SRQ     8
#define HERMON_PROFILE_LOG_CQ      10
#define HERMON_PROFILE_LOG_EQ      5
#define HERMON_PROFILE_LOG_MPT     12
#define HERMON_PROFILE_LOG_MTT     14
#define HERMON_PROFILE_LOG_MCG     8
#define HERMON_PROFILE_LOG_RD      4     /* RDMA read/atomic contexts per QP */
#define HERMON_MGM_ENTRY_SIZE      HERMON_PRM_SIZE(mgm_entry)
#define HERMON_ICM_MAX_ALIGN       (1u << 21)

static const char *const icm_names[HERMON_ICM_NB] = {
	[HERMON_ICM_CMPT_QP] = "cmpt_qp", [HERMON_ICM_CMPT_SRQ] = "cmpt_srq",
	[HERMON_ICM_CMPT_CQ] = "cmpt_cq", [HERMON_ICM_CMPT_EQ] = "cmpt_eq",
	[HERMON_ICM_QPC] = "qpc", [HERMON_ICM_AUXC] = "auxc",
	[HERMON_ICM_ALTC] = "altc", [HERMON_ICM_RDMARC] = "rdmarc",
	[HERMON_ICM_SRQC] = "srqc", [HERMON_ICM_CQC] = "cqc",
	[HERMON_ICM_EQC] = "eqc", [HERMON_ICM_DMPT] = "dmpt",
	[HERMON_ICM_MTT] = "mtt", [HERMON_ICM_MCG] = "mcg",
};

int
hermon_icm_map_range(struct hermon_cmd *cmd,
		     int (*fn)(struct hermon_cmd *, const struct hermon_map_mbox *,
			       uint32_t),
		     uint64_t va, rte_iova_t pa, uint64_t len, bool with_va,
		     uint64_t *done)
{
	struct hermon_map_mbox *mb;
	uint64_t pending = 0;
	uint32_t n = 0;
	int ret = 0;

	*done = 0;

	if (((pa | len | (with_va ? va : 0)) & (HERMON_ICM_PAGE_SIZE - 1)) != 0) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	mb = calloc(1, sizeof(*mb));
	if (mb == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	while (len != 0 && ret == 0) {
		/* largest block aligned in both address spaces that fits */
		unsigned int lg = __builtin_ctzll(pa | (with_va ? va : 0) | RTE_BIT64(62));
		uint64_t blk;

		lg = RTE_MIN(lg, (unsigned int)(63 - __builtin_clzll(len)));
		blk = RTE_BIT64(lg);
		memset(&mb->e[n], 0, sizeof(mb->e[n]));
		if (with_va)
			HERMON_FILL64(&mb->e[n], virtual_physical_mapping, va_h, va_l, va);
		HERMON_FILL64(&mb->e[n], virtual_physical_mapping, pa_h, pa_l, pa);
		HERMON_FILL(&mb->e[n], virtual_physical_mapping, log2size,
			    lg - HERMON_ICM_PAGE_SHIFT);
		n++;
		va += blk;
		pa += blk;
		len -= blk;
		pending += blk;
		if (n == HERMON_MAP_ENTRIES_PER_MBOX || len == 0) {
			ret = fn(cmd, mb, n);
			if (ret == 0)
				*done += pending;
			pending = 0;
			n = 0;
		}
	}
	free(mb);
	return ret;
}

static uint64_t
tbl_size(uint32_t log_num, uint32_t entry_sz)
{
	return RTE_MAX((uint64_t)entry_sz << log_num, (uint64_t)HERMON_ICM_PAGE_SIZE);
}

/* Size every table and place it: cMPT spans first, the rest packed. */
/*
 * F3: the UAR pages are what QUERY_DEV_CAP uar_sz says (2^(uar_sz + 20)
 * bytes, Linux mlx4_dev_cap: num_uars = uar_size / PAGE_SIZE); BAR2 holds
 * them and, on BlueFlame parts, as much again of BlueFlame registers, so
 * its length is not the UAR count. Capped by what BAR2 really maps.
 */
static uint32_t
uar_log_pages(const struct hermon_dev *hd)
{
	uint32_t lg = hd->caps.uar_sz + 20 - HERMON_ICM_PAGE_SHIFT;
	uint64_t bar_pages = hd->bus.bar_len[HERMON_BAR_UAR] / HERMON_UAR_PAGE_SIZE;

	while (lg > 0 && ((uint64_t)1 << lg) > bar_pages)
		lg--;
	return RTE_MIN(lg, 15u);
}

static int
icm_layout(struct hermon_dev *hd)
{
	const struct hermon_caps *c = &hd->caps;
	struct hermon_icm *icm = &hd->icm;
	struct hermon_icm_table *t = icm->t;
	uint32_t lq, ls, lc, le, lm, lt, lmc, order[HERMON_ICM_NB];
	uint64_t span, va;
	unsigned int i, j, n = 0;

	lq = RTE_MIN(HERMON_PROFILE_LOG_QP, c->log_max_qp);
	ls = RTE_MIN(HERMON_PROFILE_LOG_SRQ, c->log_max_srqs);
	lc = RTE_MIN(HERMON_PROFILE_LOG_CQ, c->log_max_cq);
	/* F4: the table must hold the first EQ past the reserved ones */
	le = RTE_MIN(RTE_MAX((uint32_t)HERMON_PROFILE_LOG_EQ,
			     rte_log2_u32(c->rsvd_eqs + 1)), (uint32_t)c->log_max_eq);
	lm = RTE_MIN(HERMON_PROFILE_LOG_MPT, c->log_max_mpts);
	lt = RTE_MIN(HERMON_PROFILE_LOG_MTT, c->log_max_mtts);
	lmc = RTE_MIN(HERMON_PROFILE_LOG_MCG, c->log_max_mcg);
	hd->log_uars = uar_log_pages(hd);
	/*
	 * F30: QP and CQ doorbells on a page of their own past the EQ pages:
	 * iPXE HERMON_UAR_NON_EQ_PAGE (128), Linux "the first 128 UARs are
	 * used for EQ doorbells".
	 */
	hd->uar_idx = RTE_MAX(128u, c->rsvd_eqs / 4 + 1);
	if (hd->uar_idx >= (1u << hd->log_uars))
		hd->uar_idx = c->rsvd_eqs / 4 + 1;
	if (hd->uar_idx >= (1u << hd->log_uars)) {
		HERMON_LOG(ERR, "%s: %u UAR pages leave none for doorbells",
			   hd->pdev->name, 1u << hd->log_uars);
		rte_errno = ENOSPC;
		return -ENOSPC;
	}
	if (lq <= c->log2_rsvd_qps || ls <= c->log2_rsvd_srqs ||
	    lc <= c->log2_rsvd_cqs || (1u << le) <= c->rsvd_eqs ||
	    lt <= c->log2_rsvd_mtts || lm <= c->log2_rsvd_mrws) {
		HERMON_LOG(ERR, "%s: device limits leave no usable objects after the "
			   "reserved ones", hd->pdev->name);
		rte_errno = ENOSPC;
		return -ENOSPC;
	}
	icm->log_rd_per_qp = RTE_MIN((uint32_t)HERMON_PROFILE_LOG_RD,
				     (uint32_t)c->log_max_ra_res_qp);
	for (i = 0; i < HERMON_ICM_NB; i++)
		t[i].name = icm_names[i];
#define SET(id, lg, esz) do { t[id].log_num = (lg); t[id].entry_sz = (esz); \
		t[id].size = tbl_size((lg), (esz)); } while (0)
	SET(HERMON_ICM_CMPT_QP, lq, c->cmpt_entry_sz);
	SET(HERMON_ICM_CMPT_SRQ, ls, c->cmpt_entry_sz);
	SET(HERMON_ICM_CMPT_CQ, lc, c->cmpt_entry_sz);
	SET(HERMON_ICM_CMPT_EQ, le, c->cmpt_entry_sz);
	SET(HERMON_ICM_QPC, lq, c->qpc_entry_sz);
	SET(HERMON_ICM_AUXC, lq, c->aux_entry_sz);
	SET(HERMON_ICM_ALTC, lq, c->altc_entry_sz);
	SET(HERMON_ICM_RDMARC, lq + HERMON_PROFILE_LOG_RD, c->rdmarc_entry_sz);
	SET(HERMON_ICM_SRQC, ls, c->srq_entry_sz);
	SET(HERMON_ICM_CQC, lc, c->cqc_entry_sz);
	SET(HERMON_ICM_EQC, le, c->eqc_entry_sz);
	SET(HERMON_ICM_DMPT, lm, c->dmpt_entry_sz);
	SET(HERMON_ICM_MTT, lt, c->mtt_entry_sz);
	SET(HERMON_ICM_MCG, lmc, HERMON_MGM_ENTRY_SIZE);
#undef SET
	/* cMPT: type k lives at k * (entry_sz << 24); only its start is backed */
	span = (uint64_t)c->cmpt_entry_sz << HERMON_CMPT_SHIFT;
	for (i = 0; i < HERMON_CMPT_TYPES; i++)
		t[HERMON_ICM_CMPT_QP + i].va = i * span;
	va = HERMON_CMPT_TYPES * span;
	/* the rest, largest first, so that each stays naturally aligned */
	for (i = HERMON_ICM_QPC; i < HERMON_ICM_NB; i++)
		order[n++] = i;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && t[order[j]].size > t[order[j - 1]].size; j--)
			RTE_SWAP(order[j], order[j - 1]);
	for (i = 0; i < n; i++) {
		va = RTE_ALIGN_CEIL(va, rte_align64pow2(t[order[i]].size));
		t[order[i]].va = va;
		va += t[order[i]].size;
	}
	icm->total = va;
	if (c->max_icm_size != 0 && icm->total > c->max_icm_size) {
		HERMON_LOG(ERR, "%s: ICM layout needs %" PRIu64 " bytes, device allows %"
			   PRIu64, hd->pdev->name, icm->total, c->max_icm_size);
		rte_errno = ENOSPC;
		return -ENOSPC;
	}
	return 0;
}

static void
icm_unmap_tables(struct hermon_dev *hd)
{
	struct hermon_icm *icm = &hd->icm;
	int i;

	for (i = HERMON_ICM_NB - 1; i >= 0; i--) {
		struct hermon_icm_table *t = &icm->t[i];

		if (t->mapped && hermon_cmd_unmap_icm(&hd->cmd, t->va,
				(uint32_t)(t->mapped_len >> HERMON_ICM_PAGE_SHIFT)) == 0)
			t->mapped = false;
		/* memory the device may still reach is only freed after reset */
		if (!t->mapped)
			hermon_dma_free(&t->mem);
	}
}

int
hermon_icm_map(struct hermon_dev *hd)
{
	struct hermon_icm *icm = &hd->icm;
	uint64_t done;
	unsigned int i;
	int ret;

	ret = icm_layout(hd);
	if (ret < 0)
		return ret;
	ret = hermon_cmd_set_icm_size(&hd->cmd, icm->total, &icm->aux_pages);
	if (ret < 0)
		return ret;
	if (icm->aux_pages == 0 || icm->aux_pages > (1u << 20)) {
		HERMON_LOG(ERR, "%s: SET_ICM_SIZE asks for %" PRIu64 " aux pages",
			   hd->pdev->name, icm->aux_pages);
		rte_errno = EPROTO;
		return -EPROTO;
	}
	ret = hermon_dma_alloc(&icm->aux, "aux",
			       icm->aux_pages * HERMON_ICM_PAGE_SIZE,
			       HERMON_ICM_PAGE_SIZE, hd->pdev->socket_id);
	if (ret < 0)
		return ret;
	ret = hermon_icm_map_range(&hd->cmd, hermon_cmd_map_icm_aux, 0,
				   icm->aux.iova, icm->aux.len, false, &done);
	icm->aux_mapped = done != 0;
	if (ret < 0)
		goto err_tables;
	for (i = 0; i < HERMON_ICM_NB; i++) {
		struct hermon_icm_table *t = &icm->t[i];

		ret = hermon_dma_alloc(&t->mem, t->name, t->size,
				       RTE_MIN(rte_align64pow2(t->size),
					       (uint64_t)HERMON_ICM_MAX_ALIGN),
				       hd->pdev->socket_id);
		if (ret < 0)
			goto err_tables;
		ret = hermon_icm_map_range(&hd->cmd, hermon_cmd_map_icm, t->va,
					   t->mem.iova, t->size, true, &t->mapped_len);
		/* what did get mapped before a failure is unmapped with the rest */
		t->mapped = t->mapped_len != 0;
		if (ret < 0)
			goto err_tables;
	}
	return 0;

err_tables:
	hermon_icm_unmap(hd);
	return ret;
}

void
hermon_icm_unmap(struct hermon_dev *hd)
{
	struct hermon_icm *icm = &hd->icm;

	icm_unmap_tables(hd);
	if (icm->aux_mapped && hermon_cmd_unmap_icm_aux(&hd->cmd) == 0)
		icm->aux_mapped = false;
	if (!icm->aux_mapped)
		hermon_dma_free(&icm->aux);
}

int
hermon_icm_init_hca(struct hermon_dev *hd)
{
	const struct hermon_icm_table *t = hd->icm.t;
	struct hermon_prm_init_hca *ih;
	struct hermon_prm_qpcbaseaddr *q;
	struct hermon_prm_multicastparam *mc;
	struct hermon_prm_tptparams *tpt;
	struct hermon_prm_uar_params *uar;
	int ret;

	ih = calloc(1, sizeof(*ih));
	if (ih == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	HERMON_FILL(ih, init_hca, version, HERMON_INIT_HCA_VERSION);
	/* check the port of UD address vectors */
	HERMON_FILL(ih, init_hca, udp, 1);
	q = HERMON_NESTED(ih, init_hca, qpc_eec_cqc_eqc_rdb_parameters, qpcbaseaddr);
	HERMON_FILL64(q, qpcbaseaddr, qpc_base_addr_h, qpc_base_addr_l,
		      t[HERMON_ICM_QPC].va);
	HERMON_FILL(q, qpcbaseaddr, log_num_of_qp, t[HERMON_ICM_QPC].log_num);
	HERMON_FILL64(q, qpcbaseaddr, srqc_base_addr_h, srqc_base_addr_l,
		      t[HERMON_ICM_SRQC].va);
	HERMON_FILL(q, qpcbaseaddr, log_num_of_srq, t[HERMON_ICM_SRQC].log_num);
	HERMON_FILL64(q, qpcbaseaddr, cqc_base_addr_h, cqc_base_addr_l,
		      t[HERMON_ICM_CQC].va);
	HERMON_FILL(q, qpcbaseaddr, log_num_of_cq, t[HERMON_ICM_CQC].log_num);
	HERMON_FILL64(q, qpcbaseaddr, altc_base_addr_h, altc_base_addr_l,
		      t[HERMON_ICM_ALTC].va);
	HERMON_FILL64(q, qpcbaseaddr, auxc_base_addr_h, auxc_base_addr_l,
		      t[HERMON_ICM_AUXC].va);
	HERMON_FILL64(q, qpcbaseaddr, eqc_base_addr_h, eqc_base_addr_l,
		      t[HERMON_ICM_EQC].va);
	/* F5: on SYS_EQS firmware Linux writes log_num_eqs 0x1f and the
	 * system-EQ count (profile.c); the EQC table base stays the host's */
	if (hd->caps.num_sys_eqs != 0) {
		HERMON_FILL(q, qpcbaseaddr, log_num_of_eq, HERMON_INIT_HCA_SYS_LOG_EQS);
		hermon_mbox_put_be16(ih, HERMON_INIT_HCA_NUM_SYS_EQS,
				     hd->caps.num_sys_eqs);
	} else {
		HERMON_FILL(q, qpcbaseaddr, log_num_of_eq, t[HERMON_ICM_EQC].log_num);
	}
	HERMON_FILL64(q, qpcbaseaddr, rdmardc_base_addr_h, rdmardc_base_addr_l,
		      t[HERMON_ICM_RDMARC].va);
	HERMON_FILL(q, qpcbaseaddr, log_num_rd, hd->icm.log_rd_per_qp);
	mc = HERMON_NESTED(ih, init_hca, multicast_parameters, multicastparam);
	HERMON_FILL64(mc, multicastparam, mc_base_addr_h, mc_base_addr_l,
		      t[HERMON_ICM_MCG].va);
	HERMON_FILL(mc, multicastparam, log_mc_table_entry_sz,
		    rte_log2_u32(HERMON_MGM_ENTRY_SIZE));
	HERMON_FILL(mc, multicastparam, log_mc_table_sz, t[HERMON_ICM_MCG].log_num);
	HERMON_FILL(mc, multicastparam, log_mc_table_hash_sz,
		    t[HERMON_ICM_MCG].log_num - 1);
	tpt = HERMON_NESTED(ih, init_hca, tpt_parameters, tptparams);
	HERMON_FILL64(tpt, tptparams, dmpt_base_adr_h, dmpt_base_adr_l,
		      t[HERMON_ICM_DMPT].va);
	HERMON_FILL(tpt, tptparams, log_dmpt_sz, t[HERMON_ICM_DMPT].log_num);
	HERMON_FILL64(tpt, tptparams, mtt_base_addr_h, mtt_base_addr_l,
		      t[HERMON_ICM_MTT].va);
	HERMON_FILL64(tpt, tptparams, cmpt_base_adr_h, cmpt_base_adr_l,
		      t[HERMON_ICM_CMPT_QP].va);
	uar = HERMON_NESTED(ih, init_hca, uar_parameters, uar_params);
	HERMON_FILL(uar, uar_params, uar_page_sz, 0);            /* 4 KiB */
	HERMON_FILL(uar, uar_params, log_max_uars, hd->log_uars);
	ret = hermon_cmd_init_hca(&hd->cmd, ih);
	free(ih);
	if (ret == 0)
		hd->hca_init = true;
	return ret;
}

void
hermon_icm_close_hca(struct hermon_dev *hd)
{
	if (hd->hca_init && hermon_cmd_close_hca(&hd->cmd, false) == 0)
		hd->hca_init = false;
}
