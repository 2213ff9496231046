/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The "hermon" provider: probe (devargs, bus, bring-up in firmware order),
 * teardown in reverse, the device/port/GID queries, and the object and
 * fast-path entry points (hermon_obj.h).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "prdma_fp.h"
#include "prdma_provider.h"
#include "hermon_arp.h"
#include "hermon_dev.h"
#include "hermon_logs.h"
#include "hermon_mad.h"
#include "hermon_mcast.h"
#include "hermon_obj.h"
#include "hermon_sqp_wire.h"

int
hermon_ports_init(struct hermon_dev *hd)
{
	uint8_t p;
	int ret;

	for (p = 1; p <= hd->caps.num_ports; p++) {
		struct hermon_port *port = &hd->port[p - 1];

		ret = hermon_port_type(hd, p);
		if (ret < 0)
			goto err;
		if (port->type == HERMON_PORT_TYPE_ETH) {
			ret = hermon_port_eth_setup(hd, p);
			if (ret < 0)
				goto err;
		} else {
			ret = hermon_port_ib_setup(hd, p);
			if (ret < 0)
				goto err;
		}
		port->state = PRDMA_PORT_DOWN;
		ret = hermon_cmd_init_port(&hd->cmd, p);
		if (ret < 0)
			goto err;
		port->up = true;
		/* an uncabled port stays DOWN until a port-change event */
		if (port->link_up)
			port->state = PRDMA_PORT_INIT;
	}
	return 0;
err:
	hermon_ports_close(hd);
	return ret;
}

void
hermon_ports_close(struct hermon_dev *hd)
{
	int p;

	/* ascending, as Linux mlx4_unload_one closes them */
	for (p = 1; p <= HERMON_MAX_PORTS; p++) {
		struct hermon_port *port = &hd->port[p - 1];

		if (port->up && hermon_cmd_close_port(&hd->cmd, (uint8_t)p) == 0)
			port->up = false;
		port->state = PRDMA_PORT_DOWN;
	}
}

/* True while the device may still use any memory we gave it. */
static bool
hermon_dev_holds_memory(const struct hermon_dev *hd)
{
	unsigned int i;

	if (hd->fa_mapped || hd->icm.aux_mapped || hd->eq.hw || hd->hca_init)
		return true;
	for (i = 0; i < HERMON_ICM_NB; i++)
		if (hd->icm.t[i].mapped)
			return true;
	return false;
}

/*
 * Last step of every unwind: when a command of the teardown failed, reset
 * the device so that it lets go of our memory, and only then free it.
 */
static void
hermon_dev_release(struct hermon_dev *hd)
{
	unsigned int i;

	if (hermon_dev_holds_memory(hd)) {
		HERMON_LOG(WARNING, "%s: teardown incomplete, resetting the device",
			   hd->pdev->name);
		if (hermon_fw_reset(hd) < 0) {
			HERMON_LOG(ERR, "%s: reset failed: leaking the device's memory "
				   "rather than freeing it under DMA", hd->pdev->name);
			return;
		}
		hd->fa_mapped = false;
		hd->fw_running = false;
		hd->hca_init = false;
		hd->icm.aux_mapped = false;
		hd->eq.hw = false;
		hd->eq.mapped = false;
		for (i = 0; i < HERMON_ICM_NB; i++)
			hd->icm.t[i].mapped = false;
		for (i = 0; i < HERMON_MAX_PORTS; i++)
			hd->port[i].up = false;
	}
	hermon_dma_free(&hd->eq.buf);
	for (i = 0; i < HERMON_ICM_NB; i++)
		hermon_dma_free(&hd->icm.t[i].mem);
	hermon_dma_free(&hd->icm.aux);
	hermon_dma_free(&hd->fw_area);
}

static void
hermon_dev_free(struct hermon_dev *hd)
{
	hermon_cmd_fini(&hd->cmd);
	hermon_bus_close(&hd->bus);
	pthread_mutex_destroy(&hd->ev_lock);
	pthread_mutex_destroy(&hd->sma_lock);
	pthread_mutex_destroy(&hd->arp_lock);
	free(hd);
}

static void
hermon_dev_remove(struct prdma_dev *dev)
{
	struct hermon_dev *hd = dev->priv;

	if (hd == NULL)
		return;
	hermon_arp_stop(hd);
	hermon_sma_stop(hd);
	hermon_ports_close(hd);
	hermon_sqp_release(hd);
	hermon_eq_destroy(hd);
	hermon_icm_close_hca(hd);
	hermon_icm_unmap(hd);
	hermon_fw_stop(hd);
	hermon_dev_release(hd);
	hermon_res_fini(hd);
	hermon_dev_free(hd);
	dev->priv = NULL;
}

/* Poll events and the error buffer; 0, or -EIO once the device is dead. */
static int
hermon_dev_progress(struct prdma_dev *dev)
{
	struct hermon_dev *hd = dev->priv;
	bool fatal;

	pthread_mutex_lock(&hd->ev_lock);
	hermon_eq_poll(hd);
	fatal = hermon_fw_check_catas(hd);
	pthread_mutex_unlock(&hd->ev_lock);
	if (fatal) {
		rte_errno = EIO;
		return -EIO;
	}
	return 0;
}

static uint32_t
lim(uint8_t log2)
{
	return log2 >= 32 ? UINT32_MAX : (uint32_t)1 << log2;
}

static int
hermon_dev_query(struct prdma_dev *dev, struct prdma_dev_attr *attr)
{
	struct hermon_dev *hd = dev->priv;
	const struct hermon_caps *c = &hd->caps;
	const struct hermon_icm_table *t = hd->icm.t;

	snprintf(attr->name, sizeof(attr->name), "%s", dev->name);
	snprintf(attr->provider, sizeof(attr->provider), "hermon");
	snprintf(attr->node_desc, sizeof(attr->node_desc), "%.30s %.24s",
		 hd->bus.part != NULL ? hd->bus.part : "Hermon", c->board_id);
	attr->vendor_id = HERMON_PCI_VENDOR_MELLANOX;
	attr->vendor_part_id = hd->bus.device_id;
	attr->fw_ver = ((uint64_t)hd->fw.major << 32) |
		((uint64_t)hd->fw.minor << 16) | hd->fw.subminor;
	attr->max_mr_size = c->log_max_mrw_sz >= 64 ? UINT64_MAX :
		(uint64_t)1 << c->log_max_mrw_sz;
	attr->page_size_cap = ~(uint64_t)(HERMON_ICM_PAGE_SIZE - 1);
	attr->max_transfer_length = lim(c->log_max_msg);
	/* what fits in the largest send WQE next to ctrl + raddr + inline header */
	attr->max_inline_data = c->max_desc_sz_sq > 64 ? c->max_desc_sz_sq - 64u : 0;
	/* usable objects: the provisioned tables minus the reserved entries */
	attr->max_qp = lim((uint8_t)t[HERMON_ICM_QPC].log_num) - lim(c->log2_rsvd_qps);
	/* the special-QP block is the firmware's (CONF_SPECIAL_QP) */
	if (hd->sqp_base != 0)
		attr->max_qp -= HERMON_SQP_BLOCK;
	attr->max_qp_wr = lim(c->log_max_qp_sz);
	attr->max_send_sge = c->max_sg_sq;
	attr->max_recv_sge = c->max_sg_rq;
	attr->max_read_sge = c->max_sg_sq;
	attr->max_cq = lim((uint8_t)t[HERMON_ICM_CQC].log_num) - lim(c->log2_rsvd_cqs);
	attr->max_cqe = lim(c->log_max_cq_sz) - 1;
	attr->max_mr = lim((uint8_t)t[HERMON_ICM_DMPT].log_num) - lim(c->log2_rsvd_mrws);
	attr->max_mw = attr->max_mr;
	/* what the PD allocator holds (hermon_res.c caps it at 2^16) */
	attr->max_pd = RTE_MIN(lim(c->log_max_pd), 1u << 16) - RTE_MAX(c->num_rsvd_pds, 1u);
	attr->max_ah = UINT32_MAX;
	attr->max_srq = lim((uint8_t)t[HERMON_ICM_SRQC].log_num) - lim(c->log2_rsvd_srqs);
	attr->max_srq_wr = lim(c->log_max_srq_sz) - 1;
	attr->max_srq_sge = c->max_sg_rq;
	/* F15: what the RDMARC table holds per QP (Linux: 1 << rdmarc_shift) */
	attr->max_qp_rd_atom = 1u << hd->icm.log_rd_per_qp;
	attr->max_qp_init_rd_atom = lim(c->log_max_ra_req_qp);
	attr->max_res_rd_atom = attr->max_qp_rd_atom * attr->max_qp;
	attr->max_pkeys = lim(c->log_max_pkey);
	attr->local_ca_ack_delay = c->local_ca_ack_delay;
	attr->phys_port_cnt = c->num_ports;
	attr->transport = hd->port[0].type == HERMON_PORT_TYPE_IB ? PRDMA_TRANSPORT_IB :
		hd->port[0].roce_v2 ? PRDMA_TRANSPORT_ROCE_V2 : PRDMA_TRANSPORT_ROCE_V1;
	/* the firmware's NodeInfo (MAD_IFC at probe, hermon_mad.c) */
	attr->node_guid = hd->node_guid;
	attr->sys_image_guid = hd->sys_image_guid;
	attr->max_inline_data = hermon_inline_room(64, 1024);
	attr->max_inline_data = RTE_MIN(attr->max_inline_data, 1008u - 64 - 16);
	attr->max_qp_wr = lim(c->log_max_qp_sz) - 33;
	attr->flags = PRDMA_DEV_CAP_IN_ORDER_DMA | PRDMA_DEV_CAP_LOOPBACK_CONN |
		PRDMA_DEV_CAP_CQ_RESIZE | PRDMA_DEV_CAP_SEND_INV |
		(c->mw ? PRDMA_DEV_CAP_MW_TYPE2 : 0) |
		(c->rc ? PRDMA_DEV_CAP_RC : 0) | (c->uc ? PRDMA_DEV_CAP_UC : 0) |
		(c->ud ? PRDMA_DEV_CAP_UD : 0) | (c->srq ? PRDMA_DEV_CAP_SRQ : 0) |
		(c->atomic ? PRDMA_DEV_CAP_ATOMIC : 0) |
		(c->mw ? PRDMA_DEV_CAP_MW_TYPE1 : 0);
	/* the CM over the GSI QP (hermon_sqp.c): the private data of IB CM
	 * REQ (92 bytes, less librdmacm's 36-byte header) and REP (196) */
	if (hd->sqp_base != 0) {
		attr->max_caller_data = 56;
		attr->max_callee_data = 196;
	}
	hermon_mcast_query(hd, attr);
	return 0;
}

static int
hermon_port_query(struct prdma_dev *dev, uint8_t port, struct prdma_port_attr *attr)
{
	struct hermon_dev *hd = dev->priv;
	const struct hermon_port *p;

	if (port < 1 || port > hd->caps.num_ports) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	/* the port state is what the last port-change event said */
	pthread_mutex_lock(&hd->ev_lock);
	hermon_eq_poll(hd);
	pthread_mutex_unlock(&hd->ev_lock);
	p = &hd->port[port - 1];
	memset(attr, 0, sizeof(*attr));
	attr->state = hd->fatal ? PRDMA_PORT_DOWN : p->state;
	attr->phys_state = attr->state == PRDMA_PORT_ACTIVE ? 5 : 3;
	attr->link_layer = p->type == HERMON_PORT_TYPE_IB ?
		PRDMA_LINK_LAYER_INFINIBAND : PRDMA_LINK_LAYER_ETHERNET;
	attr->max_mtu = PRDMA_MTU_4096;
	attr->active_mtu = p->type == HERMON_PORT_TYPE_IB ? PRDMA_MTU_4096 :
		PRDMA_MTU_1024;
	attr->gid_tbl_len = lim(hd->caps.log_max_gid);
	attr->pkey_tbl_len = (uint16_t)RTE_MIN(lim(hd->caps.log_max_pkey), 0xffffu);
	attr->max_msg_sz = lim(hd->caps.log_max_msg);
	memcpy(attr->mac.addr_bytes, p->mac, 6);
	attr->port_cap_flags = PRDMA_PORT_CAP_CM_SUP |
		(p->type == HERMON_PORT_TYPE_ETH ? PRDMA_PORT_CAP_IP_BASED_GIDS : 0);
	/* an IB port's state, LID and capabilities are its SMA's PortInfo
	 * (Linux mlx4_ib ib_link_query_port); the CM runs on the GSI QP */
	if (p->type == HERMON_PORT_TYPE_IB && !hd->fatal && p->up &&
	    hermon_mad_ib_port(hd, port, attr) == 0)
		attr->port_cap_flags |= PRDMA_PORT_CAP_CM_SUP;
	return 0;
}

static int
hermon_gid_query(struct prdma_dev *dev, uint8_t port, uint32_t index,
		 union prdma_gid *gid)
{
	struct hermon_dev *hd = dev->priv;

	if (port < 1 || port > hd->caps.num_ports ||
	    index >= lim(hd->caps.log_max_gid)) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	/* an IB port's table is the firmware's: ask its SMA each time, as
	 * Linux __mlx4_ib_query_gid does (an SM may change the prefix) */
	memset(gid, 0, sizeof(*gid));
	if (hd->port[port - 1].type == HERMON_PORT_TYPE_IB && hd->port[port - 1].up)
		return hermon_mad_ib_gid(hd, port, index, gid->raw);
	/* entry 0 (and 1 with ip=) is what SET_PORT programmed; a RoCE
	 * v1/v2 device has them again as v1 at 2 and 3 */
	if (hd->port[port - 1].ip6_gid_set &&
	    index == (hd->port[port - 1].roce_v2 ? 4 : 2)) {
		memcpy(gid->raw, hd->args.ip6, 16);
		return 0;
	}
	if (hd->port[port - 1].ip6_gid_set && hd->port[port - 1].roce_v2 && index == 5) {
		memcpy(gid->raw, hd->args.ip6, 16);
		return 0;
	}
	if (hd->port[port - 1].roce_v2 && (index == 2 || index == 3))
		index -= 2;
	if (index == 1 && hd->port[port - 1].ip_gid_set) {
		memcpy(gid->raw, hd->port[port - 1].ip_gid, 16);
		return 0;
	}
	if (index != 0 || !hd->port[port - 1].gid_set) {
		rte_errno = ENOENT;
		return -ENOENT;
	}
	memcpy(gid->raw, hd->port[port - 1].gid, 16);
	return 0;
}

static const struct prdma_dev_ops hermon_dev_ops = {
	.dev_remove = hermon_dev_remove,
	.dev_query = hermon_dev_query,
	.dev_progress = hermon_dev_progress,
	.port_query = hermon_port_query,
	.gid_query = hermon_gid_query,
	.pd_alloc = hermon_pd_alloc,
	.pd_free = hermon_pd_free,
	.mr_reg = hermon_mr_reg,
	.mr_dereg = hermon_mr_dereg,
	.mw_alloc = hermon_mw_alloc,
	.mw_dealloc = hermon_mw_dealloc,
	.cq_create = hermon_cq_create,
	.cq_destroy = hermon_cq_destroy,
	.cq_resize = hermon_cq_resize,
	.cq_arm = hermon_cq_arm,
	.srq_create = hermon_srq_create,
	.srq_modify = hermon_srq_modify,
	.srq_query = hermon_srq_query,
	.srq_destroy = hermon_srq_destroy,
	.qp_create = hermon_qp_create,
	.qp_modify = hermon_qp_modify,
	.qp_query = hermon_qp_query,
	.qp_destroy = hermon_qp_destroy,
	.wr_tmpl_create = hermon_wr_tmpl_create,
	.ah_create = hermon_ah_create,
	.ah_modify = hermon_ah_modify,
	.ah_destroy = hermon_ah_destroy,
	.mcast_attach = hermon_mcast_attach,
	.mcast_detach = hermon_mcast_detach,
};

static int
hermon_probe(struct prdma_dev *dev, const char *args)
{
	struct hermon_dev *hd;
	int ret;

	hd = calloc(1, sizeof(*hd));
	if (hd == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	hd->pdev = dev;
	pthread_mutex_init(&hd->ev_lock, NULL);
	pthread_mutex_init(&hd->sma_lock, NULL);
	pthread_mutex_init(&hd->arp_lock, NULL);
	ret = hermon_args_parse(args, &hd->args);
	if (ret < 0)
		goto err_args;
	ret = hermon_l2_init(hd);
	if (ret < 0)
		goto err_args;
	if (hd->args.name[0] != '\0')
		snprintf(dev->name, sizeof(dev->name), "%s", hd->args.name);
	ret = hermon_bus_open(&hd->bus, &hd->args);
	if (ret < 0)
		goto err_args;
	ret = hermon_cmd_init(&hd->cmd, hd->bus.bar[HERMON_BAR_CFG],
			      hd->args.cmd_timeout_ms, dev->socket_id, dev->name);
	if (ret < 0)
		goto err_bus;
	if (hd->bus.ops->hcr_posted != NULL)
		hermon_cmd_set_posted(&hd->cmd, hd->bus.ops->hcr_posted, &hd->bus);
	ret = hermon_fw_reset(hd);
	if (ret < 0)
		goto err_cmd;
	ret = hermon_fw_start(hd);
	if (ret < 0)
		goto err_release;
	ret = hermon_fw_query_caps(hd);
	if (ret < 0)
		goto err_fw;
	ret = hermon_icm_map(hd);
	if (ret < 0)
		goto err_fw;
	ret = hermon_icm_init_hca(hd);
	if (ret < 0)
		goto err_icm;
	ret = hermon_fw_query_adapter(hd);
	if (ret < 0)
		goto err_hca;
	ret = hermon_eq_create(hd);
	if (ret < 0)
		goto err_hca;
	ret = hermon_sqp_conf(hd);
	if (ret < 0)
		goto err_eq;
	ret = hermon_ports_init(hd);
	if (ret < 0)
		goto err_sqp;
	/* Linux mlx4_ib init_node_data: NodeInfo through the SMA */
	ret = hermon_mad_node_guid(hd);
	if (ret < 0)
		goto err_ports;
	ret = hermon_res_init(hd);
	if (ret < 0)
		goto err_ports;
	hermon_sqp_reserve(hd);
	ret = hermon_ports_gid_init(hd);
	if (ret < 0)
		goto err_res;

	dev->priv = hd;
	dev->ops = &hermon_dev_ops;
	dev->obj_size = (struct prdma_obj_size){
		.pd = sizeof(struct hermon_pd), .mr = sizeof(struct hermon_mr),
		.mw = sizeof(struct hermon_mw), .cq = sizeof(struct hermon_cq),
		.srq = sizeof(struct hermon_srq), .qp = sizeof(struct hermon_qp),
		.ah = sizeof(struct hermon_ah),
	};
	dev->fp.post_send = hermon_post_send;
	dev->fp.post_send_burst = hermon_post_send_burst;
	dev->fp.post_recv = hermon_post_recv;
	dev->fp.post_srq_recv = hermon_post_srq_recv;
	dev->fp.poll_cq = hermon_poll_cq;
	dev->fp.peek_cq = hermon_peek_cq;
	/* F7: QP0 of each IB port, answered through the firmware's SMA (Linux
	 * ib_mad_port_open once the device is registered); without it the
	 * port works, but no subnet manager can activate it */
	(void)hermon_sma_start(hd);
	/* F13: ARP for the neighbour cache, answered while the application
	 * is idle (a failure leaves static neighbours only) */
	(void)hermon_arp_start(hd);
	HERMON_LOG(INFO, "%s: %s (0x%04x) on %s, firmware %u.%u.%u, %u port(s)",
		   dev->name, hd->bus.part, hd->bus.device_id, hd->bus.ops->name,
		   hd->fw.major, hd->fw.minor, hd->fw.subminor, hd->caps.num_ports);
	return 0;

err_res:
	hermon_res_fini(hd);
err_ports:
	hermon_ports_close(hd);
err_sqp:
	hermon_sqp_release(hd);
err_eq:
	hermon_eq_destroy(hd);
err_hca:
	hermon_icm_close_hca(hd);
err_icm:
	hermon_icm_unmap(hd);
err_fw:
	hermon_fw_stop(hd);
err_release:
	hermon_dev_release(hd);
err_cmd:
	hermon_cmd_fini(&hd->cmd);
err_bus:
	hermon_bus_close(&hd->bus);
err_args:
	pthread_mutex_destroy(&hd->ev_lock);
	pthread_mutex_destroy(&hd->sma_lock);
	pthread_mutex_destroy(&hd->arp_lock);
	free(hd);
	rte_errno = -ret;
	return ret;
}

static struct prdma_provider hermon_provider = {
	.name = "hermon",
	.params = HERMON_ARGS_KEYS,
	.probe = hermon_probe,
};

PRDMA_PROVIDER_REGISTER(hermon_provider);
