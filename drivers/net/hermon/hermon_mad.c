/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * MAD_IFC: the host's way to the firmware's embedded SMA. The drivers that
 * run on a card read the node GUID (Linux mlx4_ib init_node_data), an IB
 * port's default capability mask before SET_PORT (mlx4_get_port_ib_caps),
 * its GIDs (__mlx4_ib_query_gid: PortInfo GID prefix + GUIDInfo) and its
 * state and LID (ib_link_query_port) this way, and so does the PMD. Each
 * call is one LID-routed SMP with the keys ignored (op_mod 3), as Linux
 * issues it without a received work completion.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "prdma_provider.h"
#include "hermon_dev.h"
#include "hermon_logs.h"
#include "hermon_mad.h"

int
hermon_mad_subn(struct hermon_dev *hd, uint8_t port, uint8_t method, uint16_t attr,
		uint32_t attr_mod, const uint8_t *set, uint8_t data[HERMON_SMP_DATA_LEN])
{
	uint8_t in[HERMON_MAD_SIZE], out[HERMON_MAD_SIZE];
	uint16_t status;
	int ret;

	memset(in, 0, sizeof(in));
	in[HERMON_MAD_BASE_VERSION] = 1;
	in[HERMON_MAD_MGMT_CLASS] = HERMON_MGMT_CLASS_SUBN_LID;
	in[HERMON_MAD_CLASS_VERSION] = 1;
	in[HERMON_MAD_METHOD] = method;
	hermon_mad_put16(in + HERMON_MAD_ATTR_ID, attr);
	hermon_mad_put32(in + HERMON_MAD_ATTR_MOD, attr_mod);
	if (set != NULL)
		memcpy(in + HERMON_SMP_DATA, set, HERMON_SMP_DATA_LEN);
	ret = hermon_cmd_mad_ifc(&hd->cmd, port, HERMON_MAD_IFC_IGNORE_KEYS, in, out);
	if (ret < 0)
		return ret;
	status = hermon_mad_get16(out + HERMON_MAD_STATUS);
	if (out[HERMON_MAD_METHOD] != HERMON_MAD_METHOD_GET_RESP || status != 0) {
		HERMON_LOG(DEBUG, "%s: MAD_IFC attr 0x%04x mod 0x%x: method 0x%02x status 0x%04x",
			   hd->pdev->name, attr, attr_mod, out[HERMON_MAD_METHOD], status);
		ret = status == HERMON_MAD_STATUS_BAD_ATTR ||
			status == HERMON_MAD_STATUS_BAD_METHOD ? ENOTSUP :
			status == HERMON_MAD_STATUS_BAD_VALUE ? EINVAL : EPROTO;
		rte_errno = ret;
		return -ret;
	}
	memcpy(data, out + HERMON_SMP_DATA, HERMON_SMP_DATA_LEN);
	return 0;
}

int
hermon_mad_node_guid(struct hermon_dev *hd)
{
	uint8_t d[HERMON_SMP_DATA_LEN];
	int ret;

	ret = hermon_mad_subn(hd, 1, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_NODE_INFO, 0,
			      NULL, d);
	if (ret < 0) {
		HERMON_LOG(ERR, "%s: MAD_IFC NodeInfo: %s", hd->pdev->name,
			   rte_strerror(rte_errno));
		return ret;
	}
	hd->node_guid = hermon_mad_get64(d + HERMON_NI_NODE_GUID);
	hd->sys_image_guid = hermon_mad_get64(d + HERMON_NI_SYS_IMAGE_GUID);
	return 0;
}

int
hermon_mad_port_caps(struct hermon_dev *hd, uint8_t port, uint32_t *cap)
{
	uint8_t d[HERMON_SMP_DATA_LEN];
	int ret;

	ret = hermon_mad_subn(hd, port, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PORT_INFO,
			      port, NULL, d);
	if (ret == 0)
		*cap = hermon_mad_get32(d + HERMON_PI_CAP_MASK);
	return ret;
}

int
hermon_mad_ib_gid(struct hermon_dev *hd, uint8_t port, uint32_t index, uint8_t gid[16])
{
	uint8_t pi[HERMON_SMP_DATA_LEN], gi[HERMON_SMP_DATA_LEN];
	static const uint8_t zero[8];
	int ret;

	ret = hermon_mad_subn(hd, port, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PORT_INFO,
			      port, NULL, pi);
	if (ret < 0)
		return ret;
	ret = hermon_mad_subn(hd, port, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_GUID_INFO,
			      index / HERMON_GUIDS_PER_BLOCK, NULL, gi);
	if (ret == -EINVAL) {
		/* a block past the port's GUIDCap: no such entry */
		rte_errno = ENOENT;
		return -ENOENT;
	}
	if (ret < 0)
		return ret;
	memcpy(gid, pi + HERMON_PI_GID_PREFIX, 8);
	memcpy(gid + 8, gi + (index % HERMON_GUIDS_PER_BLOCK) * 8, 8);
	if (memcmp(gid + 8, zero, 8) == 0) {
		rte_errno = ENOENT;
		return -ENOENT;
	}
	return 0;
}

int
hermon_mad_ib_port(struct hermon_dev *hd, uint8_t port, struct prdma_port_attr *attr)
{
	uint8_t d[HERMON_SMP_DATA_LEN];
	uint32_t mtu;
	int ret;

	ret = hermon_mad_subn(hd, port, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PORT_INFO,
			      port, NULL, d);
	if (ret < 0)
		return ret;
	attr->lid = hermon_mad_get16(d + HERMON_PI_LID);
	attr->sm_lid = hermon_mad_get16(d + HERMON_PI_SM_LID);
	attr->sm_sl = d[HERMON_PI_MTU_SMSL] & 0xf;
	attr->lmc = d[HERMON_PI_LMC] & 7;
	attr->state = d[HERMON_PI_SPEED_STATE] & 0xf;
	attr->phys_state = d[HERMON_PI_PHYS_STATE] >> 4;
	attr->port_cap_flags = hermon_mad_get32(d + HERMON_PI_CAP_MASK);
	attr->active_width = d[HERMON_PI_WIDTH_ACTIVE] & 0xf;
	attr->active_speed = d[HERMON_PI_SPEED_ACTIVE] >> 4;
	/* the IB MTU codes 1-5 are prdma's (PRDMA_MTU_256 .. _4096) */
	mtu = d[HERMON_PI_MTU_CAP] & 0xf;
	if (mtu >= 1 && mtu <= 5)
		attr->max_mtu = (uint8_t)mtu;
	mtu = d[HERMON_PI_MTU_SMSL] >> 4;
	if (mtu >= 1 && mtu <= 5)
		attr->active_mtu = (uint8_t)mtu;
	return 0;
}
