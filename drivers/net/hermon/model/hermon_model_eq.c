/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * EQ commands of the model (contexts live in the EQC table in ICM), event
 * posting, and WRITE_MTT (entries go into the MTT table in ICM).
 */

#include <string.h>

#include <rte_atomic.h>

#include "hermon_model_priv.h"

#define HM_EQC_SIZE       64        /* eqc_entry_sz reported by the model */
#define HM_EQE_SIZE       32
#define HM_RSVD_EQS       16        /* 1 << log2_rsvd_eqs */
#define HM_RSVD_MTTS      16        /* 1 << log2_rsvd_mtts */
#define HM_LOG_MAX_EQ_SZ  22

static struct hermon_prm_eqc *
hm_eqc(struct hermon_model *m, uint32_t eqn)
{
	return hm_icm_ptr(m, m->layout.base[HERMON_MODEL_EQC] +
			  (uint64_t)eqn * HM_EQC_SIZE, HM_EQC_SIZE);
}

/* Where EQE @idx of the EQ described by @eqc lives in host memory. */
static struct hermon_prm_event_queue_entry *
hm_eqe(struct hermon_model *m, const struct hermon_prm_eqc *eqc, uint32_t idx)
{
	const struct hermon_prm_mtt *mtt;
	uint32_t page_shift = HERMON_ICM_PAGE_SHIFT +
		HERMON_GET(eqc, eqc, log2_page_size);
	uint64_t off = (uint64_t)HERMON_GET(eqc, eqc, page_offset) * 32 +
		(uint64_t)idx * HM_EQE_SIZE;
	uint64_t mtt_addr, pa;

	if (page_shift > 30)
		return NULL;
	mtt_addr = HERMON_GET64(eqc, eqc, mtt_base_addr_h, mtt_base_addr_l);
	mtt = hm_icm_ptr(m, m->layout.base[HERMON_MODEL_MTT] + mtt_addr +
			 (off >> page_shift) * sizeof(*mtt), sizeof(*mtt));
	if (mtt == NULL || HERMON_GET(mtt, mtt, p) == 0)
		return NULL;
	pa = HERMON_GET64(mtt, mtt, ptag_h, ptag_l) & ~((1ull << page_shift) - 1);
	return hm_dma_ptr(pa + (off & ((1ull << page_shift) - 1)), HM_EQE_SIZE);
}

static uint32_t
hm_eq_doorbell_ci(const struct hermon_model *m, uint32_t eqn)
{
	const volatile uint32_t *db = (const volatile uint32_t *)
		(m->bar2 + HERMON_UAR_EQ_DB_PAGE(eqn) * HERMON_UAR_PAGE_SIZE +
		 HERMON_UAR_EQ_DB(eqn));

	return rte_be_to_cpu_32(*db) & 0xffffff;
}

void
hm_eq_post(struct hermon_model *m, uint8_t type, uint8_t subtype,
	   const uint32_t data[6])
{
	struct hermon_prm_event_queue_entry *eqe;
	struct hermon_prm_eqc *eqc;
	uint32_t eqn, pi, ci, log_size;
	unsigned int i;

	if (!m->hca_init || type >= 64)
		return;
	for (eqn = 0; eqn < HM_MAX_EQS; eqn++)
		if ((m->eq_hw & RTE_BIT64(eqn)) && (m->eq_mask[eqn] & RTE_BIT64(type)))
			break;
	if (eqn == HM_MAX_EQS || (eqc = hm_eqc(m, eqn)) == NULL)
		return;
	log_size = HERMON_GET(eqc, eqc, log_eq_size);
	pi = HERMON_GET(eqc, eqc, producer_counter);
	ci = hm_eq_doorbell_ci(m, eqn);
	HERMON_FILL(eqc, eqc, consumer_counter, ci);
	if (((pi - ci) & 0xffffff) >= (1u << log_size)) {
		HM_LOG(NOTICE, m, "EQ %u overflow, event 0x%02x lost", eqn, type);
		/* without overflow-ignore the EQ goes to its error state */
		if (HERMON_GET(eqc, eqc, oi) == 0) {
			HERMON_FILL(eqc, eqc, status, 0x9);    /* overflow */
			m->eq_overflows++;
		}
		return;
	}
	eqe = hm_eqe(m, eqc, pi & ((1u << log_size) - 1));
	if (eqe == NULL) {
		HERMON_FILL(eqc, eqc, status, 0xa);     /* write failure */
		return;
	}
	for (i = 0; i < 6; i++)
		eqe->dw[1 + i] = rte_cpu_to_be_32(data[i]);
	eqe->dw[0] = 0;
	HERMON_FILL(eqe, event_queue_entry, event_type, type);
	HERMON_FILL(eqe, event_queue_entry, event_sub_type, subtype);
	/* the entry's body is visible before its owner bit flips */
	rte_io_wmb();
	eqe->dw[7] = 0;
	HERMON_FILL(eqe, event_queue_entry, owner, (pi >> log_size) & 1);
	HERMON_FILL(eqc, eqc, producer_counter, (pi + 1) & 0xffffff);
	/* an armed EQ interrupts once and is fired until armed again */
	if (HERMON_GET(eqc, eqc, st) == HERMON_EQ_ST_ARMED ||
	    HERMON_GET(eqc, eqc, st) == HERMON_EQ_ST_ALWAYS_ARMED) {
		m->interrupts++;
		if (HERMON_GET(eqc, eqc, st) == HERMON_EQ_ST_ARMED)
			HERMON_FILL(eqc, eqc, st, HERMON_EQ_ST_FIRED);
	}
}

static uint8_t
hm_eq_check_index(const struct hermon_model *m, uint32_t eqn)
{
	if (!m->hca_init)
		return HERMON_STAT_BAD_SYS_STATE;
	if (eqn >= HM_MAX_EQS || eqn >= (1u << m->layout.log_num_eq))
		return HERMON_STAT_BAD_INDEX;
	if (eqn < HM_RSVD_EQS)
		return HERMON_STAT_BAD_RESOURCE;
	if (m->conf.sys_eqs != 0 && eqn < HERMON_MODEL_SYS_RSVD_EQS)
		return HERMON_STAT_BAD_RESOURCE;
	/* its doorbell would fall on a UAR page the firmware keeps */
	if (HERMON_UAR_EQ_DB_PAGE(eqn) < m->conf.rsvd_uars)
		return HERMON_STAT_BAD_RESOURCE;
	return HERMON_STAT_OK;
}

static uint8_t
hm_sw2hw_eq(struct hermon_model *m, const struct hm_cmd *c)
{
	const struct hermon_prm_eqc *in;
	struct hermon_prm_eqc *ctx;
	uint32_t eqn = c->in_mod, n, i;
	uint8_t st = hm_eq_check_index(m, eqn);

	if (st != HERMON_STAT_OK)
		return st;
	if (m->eq_hw & RTE_BIT64(eqn))
		return HERMON_STAT_BAD_RES_STATE;
	ctx = hm_eqc(m, eqn);
	if (ctx == NULL)
		return HERMON_STAT_ICM_ERROR;
	in = hm_dma_ptr(c->in_param, sizeof(*in));
	if (in == NULL)
		return HERMON_STAT_INTERNAL_ERR;
	if (HERMON_GET(in, eqc, log_eq_size) > HM_LOG_MAX_EQ_SZ)
		return HERMON_STAT_BAD_PARAM;
	/* pages below the device's smallest page size are refused */
	if (HERMON_ICM_PAGE_SHIFT + HERMON_GET(in, eqc, log2_page_size) < m->log_pg_sz)
		return HERMON_STAT_BAD_PARAM;
	n = 1u << HERMON_GET(in, eqc, log_eq_size);
	/* the whole queue must be reachable through its MTT entries */
	for (i = 0; i < n; i++)
		if (hm_eqe(m, in, i) == NULL)
			return HERMON_STAT_BAD_PARAM;
	memcpy(ctx, in, sizeof(*ctx));
	HERMON_FILL(ctx, eqc, status, 0);
	HERMON_FILL(ctx, eqc, producer_counter, 0);
	for (i = 0; i < n; i++)
		HERMON_FILL(hm_eqe(m, ctx, i), event_queue_entry, owner, 1);
	m->eq_hw |= RTE_BIT64(eqn);
	m->eq_mask[eqn] = 0;
	return HERMON_STAT_OK;
}

static uint8_t
hm_eq_out(struct hermon_model *m, const struct hm_cmd *c, bool release)
{
	struct hermon_prm_eqc *ctx, *out;
	uint32_t eqn = c->in_mod;
	uint8_t st = hm_eq_check_index(m, eqn);

	if (st != HERMON_STAT_OK)
		return st;
	if ((m->eq_hw & RTE_BIT64(eqn)) == 0)
		return HERMON_STAT_BAD_RES_STATE;
	ctx = hm_eqc(m, eqn);
	if (ctx == NULL)
		return HERMON_STAT_ICM_ERROR;
	if (c->out_param != 0 || !release) {
		out = hm_dma_ptr(c->out_param, sizeof(*out));
		if (out == NULL)
			return HERMON_STAT_INTERNAL_ERR;
		memcpy(out, ctx, sizeof(*out));
	}
	if (release) {
		m->eq_hw &= ~RTE_BIT64(eqn);
		m->eq_mask[eqn] = 0;
	}
	return HERMON_STAT_OK;
}

static uint8_t
hm_map_eq(struct hermon_model *m, const struct hm_cmd *c)
{
	uint32_t eqn = c->in_mod & 0x3ff, i;
	bool unmap = (c->in_mod & RTE_BIT32(31)) != 0;
	uint8_t st = hm_eq_check_index(m, eqn);

	if (st != HERMON_STAT_OK)
		return st;
	if ((c->in_mod & 0x7ffffc00u) != 0)
		return HERMON_STAT_BAD_PARAM;
	if ((m->eq_hw & RTE_BIT64(eqn)) == 0)
		return HERMON_STAT_BAD_RES_STATE;
	if (unmap) {
		m->eq_mask[eqn] &= ~c->in_param;
		return HERMON_STAT_OK;
	}
	/* an event type goes to one EQ: the last mapping wins */
	for (i = 0; i < HM_MAX_EQS; i++)
		m->eq_mask[i] &= ~c->in_param;
	m->eq_mask[eqn] |= c->in_param;
	return HERMON_STAT_OK;
}

static uint8_t
hm_write_mtt(struct hermon_model *m, const struct hm_cmd *c)
{
	const struct hermon_prm_write_mtt_hdr *hdr;
	uint64_t addr;
	void *dst;
	size_t len;

	if (!m->hca_init)
		return HERMON_STAT_BAD_SYS_STATE;
	if (c->in_mod == 0 || c->in_mod > HERMON_WRITE_MTT_MAX)
		return HERMON_STAT_BAD_PARAM;
	len = (size_t)c->in_mod * HERMON_PRM_SIZE(mtt);
	hdr = hm_dma_ptr(c->in_param, sizeof(*hdr) + len);
	if (hdr == NULL)
		return HERMON_STAT_INTERNAL_ERR;
	addr = HERMON_GET64(hdr, write_mtt_hdr, mtt_addr_h, mtt_addr_l);
	if ((addr & 7) != 0)
		return HERMON_STAT_BAD_PARAM;
	if (addr / HERMON_PRM_SIZE(mtt) < HM_RSVD_MTTS)
		return HERMON_STAT_BAD_RESOURCE;
	dst = hm_icm_ptr(m, m->layout.base[HERMON_MODEL_MTT] + addr, len);
	if (dst == NULL)
		return HERMON_STAT_ICM_ERROR;
	memcpy(dst, hdr + 1, len);
	return HERMON_STAT_OK;
}

uint8_t
hm_eq_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled)
{
	*handled = true;
	switch (c->opcode) {
	case HERMON_CMD_SW2HW_EQ:
		return hm_sw2hw_eq(m, c);
	case HERMON_CMD_HW2SW_EQ:
		return hm_eq_out(m, c, true);
	case HERMON_CMD_QUERY_EQ:
		return hm_eq_out(m, c, false);
	case HERMON_CMD_MAP_EQ:
		return hm_map_eq(m, c);
	case HERMON_CMD_WRITE_MTT:
		return hm_write_mtt(m, c);
	default:
		*handled = false;
		return HERMON_STAT_BAD_OP;
	}
}
