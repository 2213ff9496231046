/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Firmware bring-up: reset, QUERY_FW, the firmware area (MAP_FA), RUN_FW,
 * QUERY_DEV_CAP, QUERY_ADAPTER (after INIT_HCA); and the catastrophic-error buffer.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "hermon_barrier.h"
#include "hermon_dev.h"
#include "hermon_logs.h"
#include "hermon_mmio.h"
#include "hermon_prm_ext.h"

#define HERMON_CFG_DWORDS       64
#define HERMON_CFG_HEADER       16         /* dwords restored after a reset */
#define HERMON_CFG_COMMAND      1          /* the command register's dword */
#define HERMON_RESET_WAIT_MS    2000
#define HERMON_SEM_WAIT_MS      10000      /* Linux MLX4_SEM_TIMEOUT_JIFFIES */
#define HERMON_PCI_CAP_EXP      0x10

/* The PCI Express capability's offset in the saved header, 0 if none. */
static uint32_t
cfg_pcie_cap(const uint32_t *cfg)
{
	uint32_t ptr, n;

	if (!(cfg[HERMON_CFG_COMMAND] & RTE_BIT32(16 + 4)))   /* status: cap list */
		return 0;
	ptr = cfg[0x34 / 4] & 0xfc;
	for (n = 0; ptr >= 0x40 && ptr < 4 * HERMON_CFG_DWORDS && n < 48; n++) {
		uint32_t d = cfg[ptr / 4] >> (8 * (ptr % 4));

		if ((d & 0xff) == HERMON_PCI_CAP_EXP)
			return ptr;
		ptr = (d >> 8) & 0xfc;
	}
	return 0;
}

static uint32_t
sem_read(struct hermon_bus *bus)
{
	if (bus->ops->sem_read32 != NULL)
		return bus->ops->sem_read32(bus);
	return hermon_mmio_read32(bus->bar[HERMON_BAR_CFG], HERMON_SEMAPHORE_OFFSET);
}

/*
 * F27: the reset as Linux mlx4_reset does it: save the header (all but
 * dwords 22 and 23), take the HW semaphore that locks out a flash update
 * (a read of 0), reset, wait, poll the vendor ID, restore the PCIe device
 * and link control, then header dwords 0-15 with the command register
 * last (it re-enables memory decoding once the BARs are back).
 */
int
hermon_fw_reset(struct hermon_dev *hd)
{
	uint32_t cfg[HERMON_CFG_DWORDS], v = UINT32_MAX, cap, sem_ms;
	unsigned int i, waited;

	memset(cfg, 0, sizeof(cfg));
	for (i = 0; i < HERMON_CFG_DWORDS; i++) {
		if (i == 22 || i == 23)
			continue;
		if (hermon_bus_cfg_read32(&hd->bus, i * 4, &cfg[i]) < 0) {
			HERMON_LOG(ERR, "%s: cannot read config space", hd->pdev->name);
			rte_errno = EIO;
			return -EIO;
		}
	}
	sem_ms = hd->bus.sem_wait_ms != 0 ? hd->bus.sem_wait_ms : HERMON_SEM_WAIT_MS;
	for (waited = 0; (v = sem_read(&hd->bus)) != 0 && waited < sem_ms; waited++)
		usleep(1000);
	if (v != 0) {
		HERMON_LOG(ERR, "%s: HW semaphore not obtained in %u ms (flash update?): "
			   "not resetting", hd->pdev->name, sem_ms);
		rte_errno = EAGAIN;
		return -EAGAIN;
	}
	v = UINT32_MAX;
	hermon_mmio_write32(hd->bus.bar[HERMON_BAR_CFG], HERMON_RESET_OFFSET,
			    HERMON_RESET_VALUE);
	hermon_barrier_reset_before_poll();
	if (hd->bus.reset_delay_ms != 0)
		usleep(hd->bus.reset_delay_ms * 1000);
	for (waited = 0; waited <= HERMON_RESET_WAIT_MS; waited++) {
		if (hermon_bus_cfg_read32(&hd->bus, 0, &v) == 0 &&
		    (v & 0xffff) != 0xffff)
			break;
		usleep(1000);
	}
	if ((v & 0xffff) == 0xffff) {
		HERMON_LOG(ERR, "%s: device did not come back from reset in %u ms",
			   hd->pdev->name, HERMON_RESET_WAIT_MS);
		rte_errno = EIO;
		return -EIO;
	}
	/* device and link control: their dwords, without the RW1C status half */
	cap = cfg_pcie_cap(cfg);
	if (cap != 0) {
		hermon_bus_cfg_write32(&hd->bus, cap + 8, cfg[(cap + 8) / 4] & 0xffff);
		hermon_bus_cfg_write32(&hd->bus, cap + 0x10, cfg[(cap + 0x10) / 4] & 0xffff);
	}
	for (i = 0; i < HERMON_CFG_HEADER; i++)
		if (i != HERMON_CFG_COMMAND)
			hermon_bus_cfg_write32(&hd->bus, i * 4, cfg[i]);
	hermon_bus_cfg_write32(&hd->bus, HERMON_CFG_COMMAND * 4, cfg[HERMON_CFG_COMMAND]);
	hermon_cmd_reset(&hd->cmd);
	hd->fatal = false;
	return 0;
}

static int
fw_query(struct hermon_dev *hd)
{
	struct hermon_prm_query_fw q;
	struct hermon_fw_info *fw = &hd->fw;
	int ret;

	ret = hermon_cmd_query_fw(&hd->cmd, &q);
	if (ret < 0)
		return ret;
	fw->major = (uint16_t)HERMON_GET(&q, query_fw, fw_rev_major);
	fw->minor = (uint16_t)HERMON_GET(&q, query_fw, fw_rev_minor);
	fw->subminor = (uint16_t)HERMON_GET(&q, query_fw, fw_rev_subminor);
	fw->fw_pages = (uint16_t)HERMON_GET(&q, query_fw, fw_pages);
	fw->cmd_if_rev = (uint16_t)HERMON_GET(&q, query_fw, cmd_interface_rev);
	fw->error_buf_offset = HERMON_GET64(&q, query_fw, error_buf_offset_h,
					    error_buf_offset_l);
	fw->error_buf_size = HERMON_GET(&q, query_fw, error_buf_size);
	fw->error_buf_bar = (uint8_t)(HERMON_GET(&q, query_fw, error_buf_bar) * 2);
	if (fw->cmd_if_rev < 2 || fw->cmd_if_rev > 3) {
		HERMON_LOG(ERR, "%s: firmware %u.%u.%u has command interface revision "
			   "%u; 2 or 3 is required", hd->pdev->name, fw->major,
			   fw->minor, fw->subminor, fw->cmd_if_rev);
		rte_errno = ENOTSUP;
		return -ENOTSUP;
	}
	if (fw->fw_pages == 0) {
		HERMON_LOG(ERR, "%s: firmware asks for no firmware area", hd->pdev->name);
		rte_errno = EPROTO;
		return -EPROTO;
	}
	/* an error buffer outside its BAR would be read out of bounds */
	if (fw->error_buf_bar != HERMON_BAR_CFG ||
	    fw->error_buf_offset + 4ull * fw->error_buf_size >
	    hd->bus.bar_len[HERMON_BAR_CFG]) {
		HERMON_LOG(WARNING, "%s: error buffer (BAR%u + 0x%" PRIx64 ") not usable",
			   hd->pdev->name, fw->error_buf_bar, fw->error_buf_offset);
		fw->error_buf_size = 0;
	}
	HERMON_LOG(INFO, "%s: firmware %u.%u.%u, cmd-if rev %u, %u FW pages",
		   hd->pdev->name, fw->major, fw->minor, fw->subminor,
		   fw->cmd_if_rev, fw->fw_pages);
	return 0;
}

int
hermon_fw_start(struct hermon_dev *hd)
{
	uint64_t done;
	size_t len;
	int ret;

	ret = fw_query(hd);
	if (ret < 0)
		return ret;
	len = (size_t)hd->fw.fw_pages * HERMON_ICM_PAGE_SIZE;
	ret = hermon_dma_alloc(&hd->fw_area, "fa", len,
			       RTE_MIN(rte_align64pow2(len), (uint64_t)1 << 21),
			       hd->pdev->socket_id);
	if (ret < 0)
		return ret;
	ret = hermon_icm_map_range(&hd->cmd, hermon_cmd_map_fa, 0, hd->fw_area.iova,
				   len, false, &done);
	hd->fa_mapped = done != 0;
	if (ret < 0)
		goto err_run;
	ret = hermon_cmd_run_fw(&hd->cmd);
	if (ret < 0)
		goto err_run;
	hd->fw_running = true;
	/*
	 * F28: ask for 4 KiB pages, as Linux mlx4_init_fw does right after
	 * RUN_FW (a failure only warns there too); QUERY_DEV_CAP then says
	 * whether the device took it.
	 */
	{
		struct hermon_prm_mod_stat_cfg cfg;

		memset(&cfg, 0, sizeof(cfg));
		HERMON_FILL(&cfg, mod_stat_cfg, log_pg_sz_m, 1);
		HERMON_FILL(&cfg, mod_stat_cfg, log_pg_sz, 0);
		if (hermon_cmd_mod_stat_cfg(&hd->cmd, &cfg) < 0)
			HERMON_LOG(WARNING, "%s: MOD_STAT_CFG refused the 4 KiB page size",
				   hd->pdev->name);
	}
	return 0;

err_run:
	if (hd->fa_mapped && hermon_cmd_unmap_fa(&hd->cmd) == 0)
		hd->fa_mapped = false;
	/* a block the device may still use is never given back */
	if (!hd->fa_mapped)
		hermon_dma_free(&hd->fw_area);
	return ret;
}

void
hermon_fw_stop(struct hermon_dev *hd)
{
	if (hd->fa_mapped && hermon_cmd_unmap_fa(&hd->cmd) == 0)
		hd->fa_mapped = false;
	hd->fw_running = false;
	if (!hd->fa_mapped)
		hermon_dma_free(&hd->fw_area);
}

static void
adapter_board_id(struct hermon_dev *hd, const struct hermon_prm_query_adapter *q)
{
	const struct hermon_prm_vsd *vsd;
	const uint8_t *b;
	size_t i, n;

	vsd = HERMON_NESTED(q, query_adapter, vsd, vsd);
	b = (const uint8_t *)vsd->dw + HERMON_VSD_BOARD_ID;
	/*
	 * F26: the board id is the 16 bytes at VSD + 0xd0, each 4-byte word
	 * byte-swapped by the firmware (Linux get_board_id; a Topspin VSD
	 * is not handled).
	 */
	n = RTE_MIN(sizeof(hd->caps.board_id) - 1, (size_t)HERMON_VSD_BOARD_ID_LEN);
	memset(hd->caps.board_id, 0, sizeof(hd->caps.board_id));
	for (i = 0; i < n; i++)
		hd->caps.board_id[i] = (char)b[(i & ~(size_t)3) + 3 - (i & 3)];
	/* firmware strings are not ours to trust: keep printable bytes only */
	for (i = 0; hd->caps.board_id[i] != '\0'; i++)
		if (hd->caps.board_id[i] < 0x20 || hd->caps.board_id[i] > 0x7e)
			hd->caps.board_id[i] = '?';
}

int
hermon_fw_query_caps(struct hermon_dev *hd)
{
	struct hermon_prm_query_dev_cap q;
	struct hermon_caps *c = &hd->caps;
	int ret;

	ret = hermon_cmd_query_dev_cap(&hd->cmd, &q);
	if (ret < 0)
		return ret;
#define CAP(f) HERMON_GET(&q, query_dev_cap, f)
	c->log_max_qp = CAP(log_max_qp);
	c->log2_rsvd_qps = CAP(log2_rsvd_qps);
	c->log_max_qp_sz = CAP(log_max_qp_sz);
	c->log_max_srqs = CAP(log_max_srqs);
	c->log2_rsvd_srqs = CAP(log2_rsvd_srqs);
	c->log_max_srq_sz = CAP(log_max_srq_sz);
	c->log_max_cq = CAP(log_max_cq);
	c->log2_rsvd_cqs = CAP(log2_rsvd_cqs);
	c->log_max_cq_sz = CAP(log_max_cq_sz);
	c->log_max_eq = CAP(log_max_eq);
	c->log_max_eq_sz = CAP(log_max_eq_sz);
	c->rsvd_eqs = RTE_MAX(CAP(num_rsvd_eqs), 1u << CAP(log2_rsvd_eqs));
	c->log_max_mpts = CAP(log_max_d_mpts);
	c->log2_rsvd_mrws = CAP(log2_rsvd_mrws);
	c->log_max_mrw_sz = CAP(log_max_mrw_sz);
	c->log_max_mtts = CAP(log_max_mtts);
	c->log2_rsvd_mtts = CAP(log2_rsvd_mtts);
	c->log_max_ra_res_qp = CAP(log_max_ra_res_qp);
	c->log_max_ra_req_qp = CAP(log_max_ra_req_qp);
	c->log_max_ra_res_global = CAP(log_max_ra_res_global);
	c->num_ports = CAP(num_ports);
	c->local_ca_ack_delay = CAP(local_ca_ack_delay);
	c->log_max_gid = CAP(log_max_gid);
	c->log_max_msg = CAP(log_max_msg);
	c->log_max_pkey = CAP(log_max_pkey);
	c->log_max_mcg = CAP(log_max_mcg);
	c->log_max_qp_mcg = CAP(log_max_qp_mcg);
	c->num_rsvd_mcgs = CAP(num_rsvd_mcgs);
	c->log_max_pd = CAP(log_max_pd);
	c->num_rsvd_pds = CAP(num_rsvd_pds);
	c->uar_sz = CAP(uar_sz);
	c->num_rsvd_uars = CAP(num_rsvd_uars);
	c->bf = CAP(bf) != 0;
	c->roce_v1_v2 = hermon_dev_cap_roce_v1_v2(&q);
	c->log_bf_reg_size = CAP(log_bf_reg_size);
	c->log_max_bf_regs_per_page = CAP(log_max_bf_regs_per_page);
	c->max_desc_sz_sq = CAP(max_desc_sz_sq);
	c->max_desc_sz_rq = CAP(max_desc_sz_rq);
	c->max_sg_sq = CAP(max_sg_sq);
	c->max_sg_rq = CAP(max_sg_rq);
	c->rc = CAP(rc);
	c->uc = CAP(uc);
	c->ud = CAP(ud);
	c->srq = CAP(srq);
	c->atomic = CAP(atm);
	c->mw = CAP(mw);
	c->qpc_entry_sz = CAP(qpc_entry_sz);
	c->rdmarc_entry_sz = CAP(rdmardc_entry_sz);
	c->altc_entry_sz = CAP(altc_entry_sz);
	c->aux_entry_sz = CAP(aux_entry_sz);
	c->cqc_entry_sz = CAP(cqc_entry_sz);
	c->eqc_entry_sz = CAP(eqc_entry_sz);
	c->cmpt_entry_sz = CAP(c_mpt_entry_sz);
	c->srq_entry_sz = CAP(srq_entry_sz);
	c->dmpt_entry_sz = CAP(d_mpt_entry_sz);
	c->mtt_entry_sz = CAP(mtt_entry_sz);
	c->resd_lkey = CAP(resd_lkey);
	c->max_icm_size = HERMON_GET64(&q, query_dev_cap, max_icm_size_h,
				       max_icm_size_l);
	/* F28: every MTT entry and context page of the PMD is 4 KiB */
	if (CAP(log_pg_sz) > HERMON_ICM_PAGE_SHIFT) {
		HERMON_LOG(ERR, "%s: the device's smallest page is %u KiB; the PMD "
			   "uses 4 KiB pages", hd->pdev->name,
			   1u << (CAP(log_pg_sz) - 10));
		rte_errno = ENOTSUP;
		return -ENOTSUP;
	}
#undef CAP
	/*
	 * F5: firmware that keeps system EQs (ConnectX-3 Pro) reports their
	 * number in QUERY_DEV_CAP; the reserved EQs and UARs and the EQ count
	 * are then QUERY_FUNC's (Linux mlx4_init_hca -> mlx4_query_func).
	 */
	c->num_sys_eqs = hermon_mbox_be16(&q, HERMON_DEV_CAP_NUM_SYS_EQS) & 0xfff;
	if (c->num_sys_eqs != 0) {
		uint8_t *f = calloc(1, HERMON_FUNC_MBOX_SIZE);
		uint16_t max_eq;

		if (f == NULL) {
			rte_errno = ENOMEM;
			return -ENOMEM;
		}
		ret = hermon_cmd_query_func(&hd->cmd, f, HERMON_FUNC_MBOX_SIZE);
		c->rsvd_eqs = hermon_mbox_be16(f, HERMON_FUNC_RSVD_EQS);
		max_eq = hermon_mbox_be16(f, HERMON_FUNC_MAX_EQ);
		c->num_rsvd_uars = f[HERMON_FUNC_RSVD_UARS] & 0xf;
		free(f);
		if (ret < 0)
			return ret;
		if (max_eq == 0 || c->rsvd_eqs >= max_eq) {
			HERMON_LOG(ERR, "%s: QUERY_FUNC leaves no EQ (%u reserved of %u)",
				   hd->pdev->name, c->rsvd_eqs, max_eq);
			rte_errno = ENOSPC;
			return -ENOSPC;
		}
		c->log_max_eq = (uint8_t)rte_log2_u32(max_eq);
		if ((1u << c->log_max_eq) > max_eq)
			c->log_max_eq--;
	}
	/*
	 * F4: an EQ's doorbell lives in UAR page eqn / 4, and the reserved UAR
	 * pages are the firmware's: no EQ below 4 * reserved UARs (Linux
	 * mlx4_QUERY_DEV_CAP, iPXE hermon_create_eq).
	 */
	c->rsvd_eqs = RTE_MAX(c->rsvd_eqs, 4u * c->num_rsvd_uars);
	if (c->num_ports == 0 || c->num_ports > HERMON_MAX_PORTS ||
	    !rte_is_power_of_2(c->qpc_entry_sz) || !rte_is_power_of_2(c->cqc_entry_sz) ||
	    !rte_is_power_of_2(c->eqc_entry_sz) || !rte_is_power_of_2(c->srq_entry_sz) ||
	    !rte_is_power_of_2(c->dmpt_entry_sz) || !rte_is_power_of_2(c->cmpt_entry_sz) ||
	    !rte_is_power_of_2(c->mtt_entry_sz) || !rte_is_power_of_2(c->aux_entry_sz) ||
	    !rte_is_power_of_2(c->altc_entry_sz) ||
	    !rte_is_power_of_2(c->rdmarc_entry_sz) ||
	    c->eqc_entry_sz < HERMON_PRM_SIZE(eqc) || c->mtt_entry_sz != 8) {
		HERMON_LOG(ERR, "%s: QUERY_DEV_CAP answer is inconsistent (%u ports, "
			   "entry sizes qpc %u cqc %u eqc %u mtt %u)", hd->pdev->name,
			   c->num_ports, c->qpc_entry_sz, c->cqc_entry_sz,
			   c->eqc_entry_sz, c->mtt_entry_sz);
		rte_errno = EPROTO;
		return -EPROTO;
	}
	return 0;
}

/*
 * QUERY_ADAPTER once the HCA is initialised: Linux mlx4_init_hca (and
 * mthca) issue it only after INIT_HCA, iPXE never; firmware need not
 * answer it earlier.
 */
int
hermon_fw_query_adapter(struct hermon_dev *hd)
{
	struct hermon_prm_query_adapter qa;
	int ret;

	ret = hermon_cmd_query_adapter(&hd->cmd, &qa);
	if (ret < 0)
		return ret;
	adapter_board_id(hd, &qa);
	return 0;
}

bool
hermon_fw_check_catas(struct hermon_dev *hd)
{
	const uint8_t *bar = hd->bus.bar[HERMON_BAR_CFG];
	uint32_t i, first;

	if (hd->fatal)
		return true;
	if (hd->fw.error_buf_size == 0)
		return false;
	/*
	 * F23: only dword 0 says "fatal" (Linux poll_catas reads just it);
	 * the other dwords are diagnostics, printed below.
	 */
	first = hermon_mmio_read32(bar, (uint32_t)hd->fw.error_buf_offset);
	if (first == 0)
		return false;
	hd->fatal = true;
	hd->catas_syndrome = first;
	hd->cmd.dead = true;
	HERMON_LOG(ERR, "%s: catastrophic error, error buffer dword 0 = 0x%08x",
		   hd->pdev->name, first);
	for (i = 0; i < hd->fw.error_buf_size; i++)
		HERMON_LOG(ERR, "%s:   error buffer[%u] = 0x%08x", hd->pdev->name, i,
			   hermon_mmio_read32(bar, (uint32_t)hd->fw.error_buf_offset +
					      4 * i));
	prdma_dev_raise_event(hd->pdev, &(struct prdma_async_event){
		.type = PRDMA_EVENT_DEVICE_FATAL, .syndrome = first,
	});
	return true;
}
