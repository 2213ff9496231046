/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * DPDK telemetry commands under /prdma/, readable with dpdk-telemetry.py
 * while an application runs:
 *   /prdma/devs                  device ids and names
 *   /prdma/info,<dev>            capabilities and port 1
 *   /prdma/counters,<dev>        device counters (NDK set and more)
 *   /prdma/qps,<dev>             QP numbers of a device
 *   /prdma/qp,<dev>,<qpn>        one QP: type, state, attributes, counters
 * They run on the telemetry thread, so they take the device's control lock.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "prdma_private.h"

/* Parse "<n>" or "<n>,<m>" fully; returns the number of values parsed. */
static int
parse_ids(const char *params, uint64_t *a, uint64_t *b)
{
	char *end;

	if (params == NULL || params[0] < '0' || params[0] > '9')
		return 0;
	*a = strtoull(params, &end, 0);
	if (*end == '\0')
		return 1;
	if (*end != ',' || end[1] < '0' || end[1] > '9')
		return 0;
	*b = strtoull(end + 1, &end, 0);
	return *end == '\0' ? 2 : 0;
}

static struct prdma_dev *
tel_dev(const char *params, uint64_t *second, int want)
{
	uint64_t id = 0, other = 0;

	if (parse_ids(params, &id, &other) != want || id >= PRDMA_MAX_DEVS)
		return NULL;
	if (second != NULL)
		*second = other;
	return prdma_dev_open((uint16_t)id);
}

static int
tel_devs(const char *cmd __rte_unused, const char *params __rte_unused,
	 struct rte_tel_data *d)
{
	uint16_t id;

	rte_tel_data_start_dict(d);
	for (id = prdma_dev_next(0); id < PRDMA_MAX_DEVS; id = prdma_dev_next(id + 1)) {
		const char *name = prdma_dev_name(id);
		char key[8];

		if (name == NULL)
			continue;
		snprintf(key, sizeof(key), "%u", id);
		rte_tel_data_add_dict_string(d, key, name);
	}
	return 0;
}

static int
tel_info(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct prdma_dev_attr a;
	struct prdma_port_attr p;
	struct prdma_dev *dev = tel_dev(params, NULL, 1);
	union prdma_gid gid;
	char buf[64];

	if (dev == NULL)
		return -EINVAL;
	if (prdma_dev_query(dev, &a) < 0) {
		prdma_dev_close(dev);
		return -EIO;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", a.name);
	rte_tel_data_add_dict_string(d, "provider", a.provider);
	rte_tel_data_add_dict_string(d, "node_desc", a.node_desc);
#define U64(f) rte_tel_data_add_dict_u64(d, #f, a.f)
	U64(vendor_id); U64(vendor_part_id); U64(hw_ver); U64(fw_ver);
	U64(node_guid); U64(max_mr_size); U64(max_transfer_length);
	U64(max_inline_data); U64(max_qp); U64(max_qp_wr); U64(max_send_sge);
	U64(max_recv_sge); U64(max_read_sge); U64(max_cq); U64(max_cqe);
	U64(max_mr); U64(max_pd); U64(max_mw); U64(max_ah); U64(max_srq);
	U64(max_srq_wr); U64(max_srq_sge); U64(max_qp_rd_atom);
	U64(max_qp_init_rd_atom); U64(max_mcast_grp); U64(max_mcast_qp_attach);
	U64(max_total_mcast_qp_attach); U64(large_request_threshold);
	U64(max_caller_data); U64(max_callee_data); U64(phys_port_cnt);
	U64(transport); U64(flags);
#undef U64
	if (prdma_port_query(dev, 1, &p) == 0) {
		rte_tel_data_add_dict_u64(d, "port1_state", p.state);
		rte_tel_data_add_dict_u64(d, "port1_active_mtu", prdma_mtu_bytes(p.active_mtu));
		rte_tel_data_add_dict_u64(d, "port1_link_speed_mbps", p.link_speed_mbps);
		rte_tel_data_add_dict_u64(d, "port1_gid_tbl_len", p.gid_tbl_len);
	}
	if (prdma_gid_query(dev, 1, 0, &gid) == 0)
		rte_tel_data_add_dict_string(d, "port1_gid0",
					     prdma_gid_to_str(&gid, buf, sizeof(buf)));
	prdma_dev_close(dev);
	return 0;
}

static int
tel_counters(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct prdma_dev_counters c;
	struct prdma_dev *dev = tel_dev(params, NULL, 1);
	unsigned int i;

	if (dev == NULL)
		return -EINVAL;
	if (prdma_dev_counters_get(dev, &c) < 0) {
		prdma_dev_close(dev);
		return -EIO;
	}
	rte_tel_data_start_dict(d);
	for (i = 0; i < PRDMA_DEV_CNT_MAX; i++)
		if (!(c.missing_mask & RTE_BIT64(i)))
			rte_tel_data_add_dict_u64(d, prdma_dev_counter_name(i), c.value[i]);
	rte_tel_data_add_dict_u64(d, "MissingCounterMask", c.missing_mask);
	prdma_dev_close(dev);
	return 0;
}

static int
tel_qps(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct prdma_dev *dev = tel_dev(params, NULL, 1);
	struct prdma_qp *qp;

	if (dev == NULL)
		return -EINVAL;
	rte_tel_data_start_array(d, RTE_TEL_U64_VAL);
	pthread_mutex_lock(&dev->lock);
	TAILQ_FOREACH(qp, &dev->qps, lib_entry)
		rte_tel_data_add_array_u64(d, qp->qp_num);
	pthread_mutex_unlock(&dev->lock);
	prdma_dev_close(dev);
	return 0;
}

static const char *
qp_type_str(uint8_t type)
{
	switch (type) {
	case PRDMA_QPT_RC: return "RC";
	case PRDMA_QPT_UC: return "UC";
	case PRDMA_QPT_UD: return "UD";
	}
	return "?";
}

static int
tel_qp(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct prdma_qp_counters c;
	struct prdma_qp_attr a;
	struct prdma_qp *qp, *found = NULL;
	uint64_t qpn = 0;
	struct prdma_dev *dev = tel_dev(params, &qpn, 2);
	unsigned int i;
	int ret = -ENOENT;

	if (dev == NULL)
		return -EINVAL;
	pthread_mutex_lock(&dev->lock);
	TAILQ_FOREACH(qp, &dev->qps, lib_entry)
		if (qp->qp_num == qpn)
			found = qp;
	/* The QP stays alive while we hold the lock; query takes it again. */
	if (found != NULL) {
		memset(&a, 0, sizeof(a));
		ret = dev->ops->qp_query(found, &a);
		if (ret == 0 && dev->ops->qp_counters_get != NULL) {
			memset(&c, 0, sizeof(c));
			ret = dev->ops->qp_counters_get(found, &c);
		} else if (ret == 0) {
			memset(&c, 0, sizeof(c));
			c.missing_mask = RTE_LEN2MASK(PRDMA_QP_CNT_MAX, uint64_t);
		}
	}
	if (ret == 0) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_u64(d, "qp_num", found->qp_num);
		rte_tel_data_add_dict_string(d, "type", qp_type_str(found->qp_type));
		rte_tel_data_add_dict_string(d, "state",
					     prdma_qp_state_str(found->state));
		rte_tel_data_add_dict_u64(d, "dest_qp_num", a.dest_qp_num);
		rte_tel_data_add_dict_u64(d, "sq_psn", a.sq_psn);
		rte_tel_data_add_dict_u64(d, "rq_psn", a.rq_psn);
		rte_tel_data_add_dict_u64(d, "path_mtu", prdma_mtu_bytes(a.path_mtu));
		rte_tel_data_add_dict_u64(d, "max_send_wr", a.cap.max_send_wr);
		rte_tel_data_add_dict_u64(d, "max_recv_wr", a.cap.max_recv_wr);
		for (i = 0; i < PRDMA_QP_CNT_MAX; i++)
			if (!(c.missing_mask & RTE_BIT64(i)))
				rte_tel_data_add_dict_u64(d, prdma_qp_counter_name(i),
							  c.value[i]);
	}
	pthread_mutex_unlock(&dev->lock);
	prdma_dev_close(dev);
	return ret;
}

RTE_INIT(prdma_telemetry_init)
{
	rte_telemetry_register_cmd("/prdma/devs", tel_devs,
		"Returns prdma device ids and names. Takes no parameters");
	rte_telemetry_register_cmd("/prdma/info", tel_info,
		"Returns a prdma device's capabilities and port 1. Parameters: int dev_id");
	rte_telemetry_register_cmd("/prdma/counters", tel_counters,
		"Returns a prdma device's counters. Parameters: int dev_id");
	rte_telemetry_register_cmd("/prdma/qps", tel_qps,
		"Returns the QP numbers of a prdma device. Parameters: int dev_id");
	rte_telemetry_register_cmd("/prdma/qp", tel_qp,
		"Returns one QP's state, attributes and counters. Parameters: int dev_id,int qpn");
}
