/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Firmware life cycle of the model: reset, the firmware area, RUN_FW, the
 * query commands, ports, NOP and the catastrophic-error path.
 */

#include <string.h>

#include "hermon_model_priv.h"

#define HM_FW_MAJOR 2
#define HM_FW_MINOR 42
#define HM_FW_SUB   5000

void
hm_fw_reset(struct hermon_model *m)
{
	m->in_reset = true;
	memset(m->bar0 + HERMON_HCR_OFFSET, 0, HERMON_HCR_DWORDS * 4);
	memset(m->bar0 + HM_ERROR_BUF_OFFSET, 0, HM_ERROR_BUF_DWORDS * 4);
	memset(m->bar2, 0, hm_bar2_len(m));
	m->running = false;
	m->hca_init = false;
	m->catas = false;
	m->hung = false;
	hm_maps_clear(&m->fa);
	hm_maps_clear(&m->aux);
	hm_maps_clear(&m->icm);
	m->icm_size = 0;
	m->aux_needed = 0;
	memset(&m->layout, 0, sizeof(m->layout));
	m->ports_up = 0;
	m->eq_hw = 0;
	memset(m->eq_mask, 0, sizeof(m->eq_mask));
	hm_obj_free(m);
	memset(m->gid, 0, sizeof(m->gid));
	memset(m->mac_valid, 0, sizeof(m->mac_valid));
	memset(m->mc_fltr, 0, sizeof(m->mc_fltr));
	memset(m->rqp, 0, sizeof(m->rqp));
	memset(m->port_mtu, 0, sizeof(m->port_mtu));
	m->ib_port_set = 0;
	m->sqp_conf = false;
	hm_sma_reset(m);
	m->resets++;
	/* F27: the reset frees the semaphore and clears the command register
	 * and the BARs (the driver restores them) */
	m->sem_taken = false;
	m->cfg_log_n = 0;
	m->cfg[1] &= 0xffff0000u;
	m->cfg[4] = 0x0000000c;
	m->cfg[5] = 0;
	m->cfg[6] = 0x0000000c;
	m->cfg[7] = 0;
	m->log_pg_sz = m->conf.log_pg_sz;
	hm_trace_reset(m);
	/* the reset register reads back 0 once the device is out of reset */
	*(volatile uint32_t *)(m->bar0 + HERMON_RESET_OFFSET) = 0;
	m->in_reset = false;
	HM_LOG(DEBUG, m, "reset");
}

void
hm_fw_raise_catas(struct hermon_model *m, uint32_t syndrome)
{
	uint32_t data[6] = { 0 };
	volatile uint32_t *eb = (volatile uint32_t *)(m->bar0 + HM_ERROR_BUF_OFFSET);
	unsigned int i;

	eb[0] = rte_cpu_to_be_32(syndrome);
	for (i = 1; i < HM_ERROR_BUF_DWORDS; i++)
		eb[i] = rte_cpu_to_be_32(0xca7a0000u | i);
	hm_eq_post(m, HERMON_EV_LOCAL_CATAS, 0, data);
	m->catas = true;
	HM_LOG(NOTICE, m, "catastrophic error, syndrome 0x%08x", syndrome);
}

static void *
hm_out_mbox(const struct hm_cmd *c, size_t len)
{
	void *p = hm_dma_ptr(c->out_param, len);

	if (p != NULL)
		memset(p, 0, len);
	return p;
}

static uint8_t
hm_query_fw(struct hermon_model *m, struct hm_cmd *c)
{
	struct hermon_prm_query_fw *q = hm_out_mbox(c, sizeof(*q));

	if (q == NULL)
		return HERMON_STAT_INTERNAL_ERR;
	HERMON_FILL(q, query_fw, fw_rev_major, HM_FW_MAJOR);
	HERMON_FILL(q, query_fw, fw_pages, HM_FW_PAGES);
	HERMON_FILL(q, query_fw, fw_rev_minor, HM_FW_MINOR);
	HERMON_FILL(q, query_fw, fw_rev_subminor, HM_FW_SUB);
	HERMON_FILL(q, query_fw, cmd_interface_rev, 3);
	HERMON_FILL(q, query_fw, log_max_outstanding_cmd, 0);
	HERMON_FILL(q, query_fw, fw_year, 0x2026);
	HERMON_FILL(q, query_fw, fw_month, 0x11);
	HERMON_FILL(q, query_fw, fw_day, 0x30);
	HERMON_FILL64(q, query_fw, error_buf_offset_h, error_buf_offset_l,
		      HM_ERROR_BUF_OFFSET);
	HERMON_FILL(q, query_fw, error_buf_size, HM_ERROR_BUF_DWORDS);
	HERMON_FILL(q, query_fw, error_buf_bar, HERMON_BAR_CFG / 2);
	(void)m;
	return HERMON_STAT_OK;
}

/* F5: QUERY_FUNC exists only on SYS_EQS firmware. */
static uint8_t
hm_query_func(struct hermon_model *m, struct hm_cmd *c)
{
	uint8_t *f;

	if (m->conf.sys_eqs == 0)
		return HERMON_STAT_BAD_OP;
	f = hm_out_mbox(c, HERMON_FUNC_MBOX_SIZE);
	if (f == NULL)
		return HERMON_STAT_INTERNAL_ERR;
	hermon_mbox_put_be16(f, HERMON_FUNC_RSVD_EQS, HERMON_MODEL_SYS_RSVD_EQS);
	hermon_mbox_put_be16(f, HERMON_FUNC_MAX_EQ, HM_MAX_EQS);
	f[HERMON_FUNC_RSVD_UARS] = m->conf.rsvd_uars & 0xf;
	return HERMON_STAT_OK;
}

static uint8_t
hm_query_dev_cap(struct hermon_model *m, struct hm_cmd *c)
{
	struct hermon_prm_query_dev_cap *q = hm_out_mbox(c, sizeof(*q));

	if (q == NULL)
		return HERMON_STAT_INTERNAL_ERR;
#define CAP(f, v) HERMON_FILL(q, query_dev_cap, f, v)
	CAP(log_max_qp, 17);
	CAP(log2_rsvd_qps, 6);          /* HM_RSVD_QPS */
	CAP(log_max_qp_sz, 14);
	CAP(log_max_srq_sz, 14);
	CAP(log_max_srqs, 16);
	CAP(log2_rsvd_srqs, 6);
	CAP(log_max_cq, 16);
	CAP(log2_rsvd_cqs, 5);
	CAP(log_max_cq_sz, 22);
	CAP(num_rsvd_eqs, 0);
	CAP(log_max_eq, 6);
	CAP(log2_rsvd_eqs, 4);
	CAP(log_max_d_mpts, 17);
	CAP(log_max_eq_sz, 22);
	CAP(log_max_mtts, m->conf.log_max_mtts);
	CAP(log2_rsvd_mrws, 4);
	CAP(log_max_mrw_sz, 64);
	CAP(log2_rsvd_mtts, 4);
	CAP(log_max_ra_res_qp, 4);
	CAP(log_max_ra_req_qp, 4);
	CAP(log_max_ra_res_global, 20);
	CAP(num_ports, m->conf.ports);
	CAP(local_ca_ack_delay, m->conf.has_ack_delay ? m->conf.ack_delay : 15);
	CAP(log_max_gid, 7);
	CAP(log_max_msg, m->conf.log_max_msg);
	CAP(log_max_pkey, 7);
	CAP(stat_rate_support, 0x7f);
	CAP(rc, 1);
	CAP(uc, 1);
	CAP(ud, 1);
	CAP(srq, 1);
	CAP(mw, 1);
	CAP(atm, 1);
	CAP(log_pg_sz, m->log_pg_sz);
	CAP(uar_sz, 0);
	CAP(num_rsvd_uars, m->conf.rsvd_uars);
	if (m->conf.sys_eqs != 0)
		hermon_mbox_put_be16(q, HERMON_DEV_CAP_NUM_SYS_EQS,
				     m->conf.sys_eqs & 0xfff);
	CAP(bf, m->conf.bf);
	hermon_dev_cap_set_roce_v1_v2(q, m->conf.rocev2);
	CAP(log_bf_reg_size, m->conf.bf ? 9 : 0);      /* 512 B registers */
	CAP(log_max_bf_regs_per_page, m->conf.bf ? HM_LOG_BF_REGS : 0);
	CAP(max_desc_sz_sq, 1008);
	CAP(max_sg_sq, 32);
	CAP(max_desc_sz_rq, 512);
	CAP(max_sg_rq, 32);
	CAP(log_max_mcg, 13);
	CAP(num_rsvd_mcgs, 0);
	CAP(log_max_qp_mcg, 8);
	CAP(log_max_pd, 17);
	CAP(num_rsvd_pds, 2);
	CAP(qpc_entry_sz, 256);
	CAP(rdmardc_entry_sz, 32);
	CAP(altc_entry_sz, 64);
	CAP(aux_entry_sz, 64);
	CAP(cqc_entry_sz, 64);
	CAP(eqc_entry_sz, 64);
	CAP(c_mpt_entry_sz, 64);
	CAP(srq_entry_sz, 64);
	CAP(d_mpt_entry_sz, 64);
	CAP(mtt_entry_sz, 8);
	CAP(resd_lkey, 0x100);
	CAP(max_icm_size_h, 0x10);        /* 64 GiB of ICM address space */
	CAP(max_icm_size_l, 0);
#undef CAP
	return HERMON_STAT_OK;
}

static uint8_t
hm_query_adapter(struct hermon_model *m, struct hm_cmd *c)
{
	struct hermon_prm_query_adapter *q = hm_out_mbox(c, sizeof(*q));
	struct hermon_prm_vsd *vsd;
	static const char vendor[] = "prdma model VSD";
	char board[16] = { 0 };
	uint8_t *bytes;
	unsigned int i;

	if (q == NULL)
		return HERMON_STAT_INTERNAL_ERR;
	HERMON_FILL(q, query_adapter, intapin, 0);
	vsd = HERMON_NESTED(q, query_adapter, vsd, vsd);
	bytes = (uint8_t *)vsd->dw;
	memcpy(bytes, vendor, sizeof(vendor));
	/* the board id lives at VSD + 0xd0, each 4-byte word byte-swapped by
	 * the firmware (Linux get_board_id) */
	memcpy(board, HM_BOARD_ID, sizeof(HM_BOARD_ID));
	for (i = 0; i < sizeof(board); i++)
		bytes[HM_VSD_BOARD_ID + (i & ~3u) + 3 - (i & 3)] = (uint8_t)board[i];
	(void)m;
	return HERMON_STAT_OK;
}

uint8_t
hm_fw_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled)
{
	uint8_t st;

	*handled = true;
	switch (c->opcode) {
	case HERMON_CMD_QUERY_FW:
		return hm_query_fw(m, c);
	case HERMON_CMD_MAP_FA:
		if (m->running)
			return HERMON_STAT_BAD_SYS_STATE;
		return hm_parse_map_mbox(m, c, &m->fa, false);
	case HERMON_CMD_UNMAP_FA:
		if (m->hca_init || m->aux.nb != 0)
			return HERMON_STAT_BAD_SYS_STATE;
		hm_maps_clear(&m->fa);
		m->running = false;
		return HERMON_STAT_OK;
	case HERMON_CMD_RUN_FW:
		if (m->running)
			return HERMON_STAT_BAD_SYS_STATE;
		/* firmware cannot start without its whole area */
		if (m->fa.pages < HM_FW_PAGES)
			return HERMON_STAT_BAD_SYS_STATE;
		m->running = true;
		return HERMON_STAT_OK;
	case HERMON_CMD_QUERY_DEV_CAP:
	case HERMON_CMD_QUERY_FUNC:
	case HERMON_CMD_QUERY_ADAPTER:
	case HERMON_CMD_MOD_STAT_CFG:
	case HERMON_CMD_NOP:
		if (!m->running)
			return HERMON_STAT_BAD_SYS_STATE;
		if (c->opcode == HERMON_CMD_QUERY_DEV_CAP)
			return hm_query_dev_cap(m, c);
		if (c->opcode == HERMON_CMD_QUERY_FUNC)
			return hm_query_func(m, c);
		if (c->opcode == HERMON_CMD_MOD_STAT_CFG) {
			const struct hermon_prm_mod_stat_cfg *cfg =
				hm_dma_ptr(c->in_param, sizeof(*cfg));

			if (cfg == NULL)
				return HERMON_STAT_INTERNAL_ERR;
			if (HERMON_GET(cfg, mod_stat_cfg, log_pg_sz_m))
				m->log_pg_sz = HERMON_ICM_PAGE_SHIFT +
					HERMON_GET(cfg, mod_stat_cfg, log_pg_sz);
			return HERMON_STAT_OK;
		}
		if (c->opcode == HERMON_CMD_QUERY_ADAPTER) {
			/* answered once the HCA is up, where Linux asks */
			if (!m->hca_init)
				return HERMON_STAT_BAD_SYS_STATE;
			return hm_query_adapter(m, c);
		}
		return HERMON_STAT_OK;
	case HERMON_CMD_SENSE_PORT:
	case HERMON_CMD_INIT_PORT:
	case HERMON_CMD_CLOSE_PORT:
		if (!m->hca_init)
			return HERMON_STAT_BAD_SYS_STATE;
		if (c->in_mod < 1 || c->in_mod > m->conf.ports)
			return HERMON_STAT_BAD_PARAM;
		break;
	default:
		*handled = false;
		return HERMON_STAT_BAD_OP;
	}
	st = HERMON_STAT_OK;
	if (c->opcode == HERMON_CMD_SENSE_PORT) {
		/* sensing needs a port that can be either, and a link to sense */
		if (m->conf.port_types != 3)
			return HERMON_STAT_BAD_PARAM;
		c->out_param = m->conf.link_down ? 0 : m->conf.port_type;
	} else if (c->opcode == HERMON_CMD_INIT_PORT) {
		uint32_t data[6] = { 0 };

		if (m->ports_up & RTE_BIT32(c->in_mod - 1))
			return HERMON_STAT_BAD_RES_STATE;
		/* F29: an IB port is brought up with the capabilities the
		 * host set (Linux mlx4_SET_PORT before the port opens) */
		if (m->conf.port_type == HERMON_PORT_TYPE_IB &&
		    (m->ib_port_set & RTE_BIT32(c->in_mod - 1)) == 0)
			return HERMON_STAT_BAD_SYS_STATE;
		m->ports_up |= RTE_BIT32(c->in_mod - 1);
		/* F7: an IB port trains to INIT and waits there for a subnet
		 * manager (hermon_model_sma.c); its GIDs are the SMA's */
		if (m->conf.port_type == HERMON_PORT_TYPE_IB) {
			hm_sma_port_init(m, (uint8_t)c->in_mod);
			return HERMON_STAT_OK;
		}
		if (m->conf.link_down)
			return HERMON_STAT_OK;
		/* the link comes up at once: tell whoever listens */
		data[2] = c->in_mod << 28;
		hm_eq_post(m, HERMON_EV_PORT_CHANGE, HERMON_PORT_CHANGE_ACTIVE, data);
	} else {
		if ((m->ports_up & RTE_BIT32(c->in_mod - 1)) == 0)
			return HERMON_STAT_BAD_RES_STATE;
		m->ports_up &= ~RTE_BIT32(c->in_mod - 1);
		hm_sma_port_close(m, (uint8_t)c->in_mod);
	}
	return st;
}
