/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* ICM commands of the model: size, aux, MAP/UNMAP_ICM, INIT/CLOSE_HCA. */

#include <string.h>

#include "hermon_model_priv.h"

#define HM_MAX_ICM_SIZE (16ull << 32)     /* as QUERY_DEV_CAP reports */

static uint8_t
hm_unmap_icm(struct hermon_model *m, const struct hm_cmd *c)
{
	uint64_t lo = c->in_param, hi = lo + ((uint64_t)c->in_mod << HERMON_ICM_PAGE_SHIFT);
	uint32_t i, kept = 0, hit = 0;

	if (c->in_mod == 0 || (lo & (HERMON_ICM_PAGE_SIZE - 1)) != 0)
		return HERMON_STAT_BAD_PARAM;
	for (i = 0; i < m->icm.nb; i++) {
		const struct hm_map *e = &m->icm.e[i];
		bool inside = e->va >= lo && e->va + e->size <= hi;
		bool overlap = e->va < hi && lo < e->va + e->size;

		/* a block is all or nothing, as the driver mapped it */
		if (overlap && !inside)
			return HERMON_STAT_BAD_PARAM;
		hit += inside;
	}
	if (hit == 0)
		return HERMON_STAT_BAD_PARAM;
	m->icm.pages = 0;
	for (i = 0; i < m->icm.nb; i++) {
		const struct hm_map *e = &m->icm.e[i];

		if (e->va >= lo && e->va + e->size <= hi)
			continue;
		m->icm.e[kept++] = *e;
		m->icm.pages += e->size >> HERMON_ICM_PAGE_SHIFT;
	}
	m->icm.nb = kept;
	return HERMON_STAT_OK;
}

static uint8_t
hm_init_hca(struct hermon_model *m, const struct hm_cmd *c)
{
	const struct hermon_prm_init_hca *ih;
	const struct hermon_prm_qpcbaseaddr *q;
	const struct hermon_prm_multicastparam *mc;
	const struct hermon_prm_tptparams *tpt;
	const struct hermon_prm_uar_params *uar;
	struct hm_layout l;
	unsigned int t;

	ih = hm_dma_ptr(c->in_param, sizeof(*ih));
	if (ih == NULL)
		return HERMON_STAT_INTERNAL_ERR;
	if (HERMON_GET(ih, init_hca, version) != HERMON_INIT_HCA_VERSION)
		return HERMON_STAT_BAD_PARAM;
	q = HERMON_NESTED(ih, init_hca, qpc_eec_cqc_eqc_rdb_parameters, qpcbaseaddr);
	mc = HERMON_NESTED(ih, init_hca, multicast_parameters, multicastparam);
	tpt = HERMON_NESTED(ih, init_hca, tpt_parameters, tptparams);
	uar = HERMON_NESTED(ih, init_hca, uar_parameters, uar_params);
	memset(&l, 0, sizeof(l));
	l.base[HERMON_MODEL_QPC] = HERMON_GET64(q, qpcbaseaddr, qpc_base_addr_h,
						qpc_base_addr_l);
	l.log_num_qp = HERMON_GET(q, qpcbaseaddr, log_num_of_qp);
	l.base[HERMON_MODEL_SRQC] = HERMON_GET64(q, qpcbaseaddr, srqc_base_addr_h,
						 srqc_base_addr_l);
	l.log_num_srq = HERMON_GET(q, qpcbaseaddr, log_num_of_srq);
	l.base[HERMON_MODEL_CQC] = HERMON_GET64(q, qpcbaseaddr, cqc_base_addr_h,
						cqc_base_addr_l);
	l.log_num_cq = HERMON_GET(q, qpcbaseaddr, log_num_of_cq);
	l.base[HERMON_MODEL_ALTC] = HERMON_GET64(q, qpcbaseaddr, altc_base_addr_h,
						 altc_base_addr_l);
	l.base[HERMON_MODEL_AUXC] = HERMON_GET64(q, qpcbaseaddr, auxc_base_addr_h,
						 auxc_base_addr_l);
	l.base[HERMON_MODEL_EQC] = HERMON_GET64(q, qpcbaseaddr, eqc_base_addr_h,
						eqc_base_addr_l);
	l.log_num_eq = HERMON_GET(q, qpcbaseaddr, log_num_of_eq);
	l.base[HERMON_MODEL_RDMARC] = HERMON_GET64(q, qpcbaseaddr,
						   rdmardc_base_addr_h,
						   rdmardc_base_addr_l);
	l.log_rd = HERMON_GET(q, qpcbaseaddr, log_num_rd);
	l.base[HERMON_MODEL_MCG] = HERMON_GET64(mc, multicastparam, mc_base_addr_h,
						mc_base_addr_l);
	l.log_mc = HERMON_GET(mc, multicastparam, log_mc_table_sz);
	l.log_mc_hash = HERMON_GET(mc, multicastparam, log_mc_table_hash_sz);
	l.log_mc_entry = HERMON_GET(mc, multicastparam, log_mc_table_entry_sz);
	l.base[HERMON_MODEL_DMPT] = HERMON_GET64(tpt, tptparams, dmpt_base_adr_h,
						 dmpt_base_adr_l);
	l.log_dmpt = HERMON_GET(tpt, tptparams, log_dmpt_sz);
	l.base[HERMON_MODEL_MTT] = HERMON_GET64(tpt, tptparams, mtt_base_addr_h,
						mtt_base_addr_l);
	l.base[HERMON_MODEL_CMPT] = HERMON_GET64(tpt, tptparams, cmpt_base_adr_h,
						 cmpt_base_adr_l);
	/*
	 * F5: SYS_EQS firmware takes only log_num_eqs 0x1f with its system-EQ
	 * count at 0x8a (Linux profile.c) and then has its 64 EQs.
	 */
	if (m->conf.sys_eqs != 0) {
		if (l.log_num_eq != HERMON_INIT_HCA_SYS_LOG_EQS ||
		    hermon_mbox_be16(ih, HERMON_INIT_HCA_NUM_SYS_EQS) != m->conf.sys_eqs)
			return HERMON_STAT_BAD_PARAM;
		l.log_num_eq = 6;
	}
	if (l.log_num_eq > 6 || l.log_num_qp > 17 || l.log_num_cq > 16 ||
	    l.log_num_srq > 16 || l.log_dmpt > 17)
		return HERMON_STAT_BAD_PARAM;
	/* no more UAR pages than QUERY_DEV_CAP uar_sz gives (the rest of
	 * BAR2 is BlueFlame), in 4 KiB pages */
	if (HERMON_GET(uar, uar_params, log_max_uars) > HM_LOG_UARS ||
	    HERMON_GET(uar, uar_params, uar_page_sz) != 0)
		return HERMON_STAT_BAD_PARAM;
	/* an MGM entry holds at least its header and eight QPs; the hash is
	 * a proper part of the table, the rest being the AMGM area */
	if (l.log_mc_entry < 6 || l.log_mc_entry > HM_MCG_LOG_ENTRY_MAX ||
	    l.log_mc > 24 || (l.log_mc != 0 && l.log_mc_hash >= l.log_mc))
		return HERMON_STAT_BAD_PARAM;
	/* every table must start in ICM the driver has backed */
	for (t = 0; t < HERMON_MODEL_TABLE_NB; t++) {
		if (l.base[t] >= m->icm_size)
			return HERMON_STAT_BAD_PARAM;
		if (hm_icm_ptr(m, l.base[t], 8) == NULL)
			return HERMON_STAT_ICM_ERROR;
	}
	l.valid = true;
	m->layout = l;
	m->hca_init = true;
	return HERMON_STAT_OK;
}

uint8_t
hm_icm_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled)
{
	*handled = true;
	switch (c->opcode) {
	case HERMON_CMD_SET_ICM_SIZE:
		if (!m->running || m->hca_init || m->icm.nb != 0)
			return HERMON_STAT_BAD_SYS_STATE;
		if (c->in_param == 0 || c->in_param > HM_MAX_ICM_SIZE)
			return HERMON_STAT_EXCEED_LIM;
		m->icm_size = RTE_ALIGN_CEIL(c->in_param, HERMON_ICM_PAGE_SIZE);
		/* one aux page per 64 MiB of ICM address space, plus one */
		m->aux_needed = 1 + (m->icm_size >> 26);
		c->out_param = m->aux_needed;
		return HERMON_STAT_OK;
	case HERMON_CMD_MAP_ICM_AUX:
		if (!m->running || m->hca_init || m->icm_size == 0)
			return HERMON_STAT_BAD_SYS_STATE;
		return hm_parse_map_mbox(m, c, &m->aux, false);
	case HERMON_CMD_UNMAP_ICM_AUX:
		if (!m->running || m->hca_init || m->icm.nb != 0)
			return HERMON_STAT_BAD_SYS_STATE;
		hm_maps_clear(&m->aux);
		return HERMON_STAT_OK;
	case HERMON_CMD_MAP_ICM:
		if (!m->running || m->icm_size == 0)
			return HERMON_STAT_BAD_SYS_STATE;
		if (m->aux.pages < m->aux_needed)
			return HERMON_STAT_ICM_ERROR;
		return hm_parse_map_mbox(m, c, &m->icm, true);
	case HERMON_CMD_UNMAP_ICM:
		if (!m->running)
			return HERMON_STAT_BAD_SYS_STATE;
		return hm_unmap_icm(m, c);
	case HERMON_CMD_INIT_HCA:
		if (!m->running || m->hca_init || m->icm_size == 0)
			return HERMON_STAT_BAD_SYS_STATE;
		if (m->aux.pages < m->aux_needed)
			return HERMON_STAT_ICM_ERROR;
		return hm_init_hca(m, c);
	case HERMON_CMD_CLOSE_HCA:
		if (!m->hca_init)
			return HERMON_STAT_BAD_SYS_STATE;
		/* an orderly close needs the ports down and the EQs back */
		if (c->op_mod == 0 && (m->eq_hw != 0 || m->ports_up != 0))
			return HERMON_STAT_RESOURCE_BUSY;
		m->hca_init = false;
		hm_obj_free(m);
		memset(m->gid, 0, sizeof(m->gid));
		memset(m->mac_valid, 0, sizeof(m->mac_valid));
		m->ib_port_set = 0;
		memset(m->mc_fltr, 0, sizeof(m->mc_fltr));
		memset(m->rqp, 0, sizeof(m->rqp));
		m->eq_hw = 0;
		m->ports_up = 0;
		memset(m->eq_mask, 0, sizeof(m->eq_mask));
		return HERMON_STAT_OK;
	default:
		*handled = false;
		return HERMON_STAT_BAD_OP;
	}
}
