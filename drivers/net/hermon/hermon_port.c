/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Port addresses: QUERY_PORT gives each port's MAC; on an Ethernet port the
 * PMD derives the link-local GID (fe80::EUI-64 of the MAC) and programs it
 * as entry 0 of the port's GID table with SET_PORT (the device matches
 * destination GIDs against it). An IB port's GID table belongs to its
 * firmware: subnet prefix + port GUID, read with MAD_IFC (hermon_mad.c).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "hermon_logs.h"
#include "hermon_mad.h"
#include "hermon_obj.h"

/* SENSE_PORT answers while the link is still training: ask a few times. */
#define HERMON_SENSE_TRIES    5
#define HERMON_SENSE_WAIT_US  10000

/*
 * The link type of port @p, decided the way the drivers that run on a card
 * decide it (Linux mlx4_dev_cap / mlx4_do_sense_ports, iPXE
 * hermon_set_port_type): QUERY_PORT says which types the port supports; a
 * port that supports one is of that type and is not sensed; a port that
 * supports both is sensed, and when SENSE_PORT answers "none" (no cable,
 * link not up yet) it takes the firmware's suggested type. A port that is
 * down never fails the probe.
 */
int
hermon_port_type(struct hermon_dev *hd, uint8_t p)
{
	struct hermon_port *port = &hd->port[p - 1];
	struct hermon_prm_query_port qp;
	uint32_t hi, lo, sensed = 0;
	unsigned int i;
	int ret;

	ret = hermon_cmd_query_port(&hd->cmd, p, &qp);
	if (ret < 0)
		return ret;
	hi = HERMON_GET(&qp, query_port, mac_47_32);
	lo = HERMON_GET(&qp, query_port, mac_31_0);
	port->mac[0] = (uint8_t)(hi >> 8);
	port->mac[1] = (uint8_t)hi;
	port->mac[2] = (uint8_t)(lo >> 24);
	port->mac[3] = (uint8_t)(lo >> 16);
	port->mac[4] = (uint8_t)(lo >> 8);
	port->mac[5] = (uint8_t)lo;
	port->supported = (uint8_t)(HERMON_GET(&qp, query_port, ib) |
				    HERMON_GET(&qp, query_port, eth) << 1);
	port->link_up = HERMON_GET(&qp, query_port, link_up) != 0;
	if (port->supported == 1 || port->supported == 2) {
		port->type = port->supported;
		return 0;
	}
	for (i = 0; i < HERMON_SENSE_TRIES; i++) {
		ret = hermon_cmd_sense_port(&hd->cmd, p, &sensed);
		if (ret < 0)
			return ret;
		if (sensed == HERMON_PORT_TYPE_IB || sensed == HERMON_PORT_TYPE_ETH)
			break;
		usleep(HERMON_SENSE_WAIT_US);
	}
	if (sensed == HERMON_PORT_TYPE_IB || sensed == HERMON_PORT_TYPE_ETH) {
		port->type = sensed;
		/* a link the device could sense carries signal */
		port->link_up = true;
	} else {
		port->type = HERMON_GET(&qp, query_port, suggested_type) ?
			HERMON_PORT_TYPE_ETH : HERMON_PORT_TYPE_IB;
		HERMON_LOG(NOTICE, "%s: port %u senses no link; taking the suggested "
			   "type (%s)", hd->pdev->name, p,
			   port->type == HERMON_PORT_TYPE_ETH ? "Ethernet" : "IB");
	}
	return 0;
}

/*
 * F11: what Linux does for an Ethernet port before INIT_PORT (mlx4_en
 * mlx4_en_start_port; mlx4_ib _mlx4_set_path -> mlx4_register_mac): the
 * port MAC in entry 0 of the port's MAC table (the QPs' path SMAC index 0
 * points at it), then SET_PORT general with the port MTU and global pause.
 * iPXE hermon_eth_open sets the same general parameters.
 */
int
hermon_port_eth_setup(struct hermon_dev *hd, uint8_t p)
{
	const uint8_t *mac = hd->port[p - 1].mac;
	struct hermon_mac_table_mbox *t;
	struct hermon_prm_set_port_general g;
	int ret;

	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	HERMON_FILL(&t->mac[HERMON_PORT_SMAC_INDEX], mac_entry, mac_h,
		    (uint32_t)mac[0] << 8 | mac[1]);
	HERMON_FILL(&t->mac[HERMON_PORT_SMAC_INDEX], mac_entry, mac_l,
		    (uint32_t)mac[2] << 24 | (uint32_t)mac[3] << 16 |
		    (uint32_t)mac[4] << 8 | mac[5]);
	HERMON_FILL(&t->mac[HERMON_PORT_SMAC_INDEX], mac_entry, v, 1);
	ret = hermon_cmd_set_port_eth(&hd->cmd, p, HERMON_SET_PORT_MAC_TABLE, t,
				      sizeof(*t));
	free(t);
	if (ret < 0)
		return ret;
	memset(&g, 0, sizeof(g));
	HERMON_FILL(&g, set_port_general, v_mtu, 1);
	HERMON_FILL(&g, set_port_general, v_pprx, 1);
	HERMON_FILL(&g, set_port_general, v_pptx, 1);
	HERMON_FILL(&g, set_port_general, mtu, HERMON_ETH_PORT_MTU);
	HERMON_FILL(&g, set_port_general, pptx, 1);
	HERMON_FILL(&g, set_port_general, pprx, 1);
	return hermon_cmd_set_port_eth(&hd->cmd, p, HERMON_SET_PORT_GENERAL, &g,
				       sizeof(g));
}

/*
 * F29: what Linux does for an IB port before INIT_PORT (mlx4_setup_hca ->
 * mlx4_SET_PORT): SET_PORT(IB) with MTU cap 4096 and the VL cap, asking
 * for 8 data VLs and halving while the firmware says it has too few
 * (EXCEED_LIM, Linux's -ENOMEM). Dword 1 is the port's PortInfo
 * capability mask: the default the firmware reports through MAD_IFC
 * (mlx4_get_port_ib_caps), or 0 when it cannot say (Linux warns and
 * continues the same way).
 */
int
hermon_port_ib_setup(struct hermon_dev *hd, uint8_t p)
{
	struct hermon_prm_set_port_ib *ib;
	uint32_t vl, cap = 0;
	int ret = -ENOSPC;

	if (hermon_mad_port_caps(hd, p, &cap) < 0) {
		HERMON_LOG(WARNING, "%s: port %u: no default capability mask (%s); "
			   "continuing with 0", hd->pdev->name, p, rte_strerror(rte_errno));
		cap = 0;
	}
	ib = calloc(1, sizeof(*ib));
	if (ib == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	for (vl = HERMON_IB_VL_CAP_MAX; vl >= 1 && ret == -ENOSPC; vl >>= 1) {
		memset(ib, 0, sizeof(*ib));
		HERMON_FILL(ib, set_port_ib, c_mtu_cap, 1);
		HERMON_FILL(ib, set_port_ib, c_vl_cap, 1);
		HERMON_FILL(ib, set_port_ib, mtu_cap, HERMON_IB_MTU_4096);
		HERMON_FILL(ib, set_port_ib, vl_cap, vl);
		HERMON_FILL(ib, set_port_ib, cap_mask, cap);
		ret = hermon_cmd_set_port_ib(&hd->cmd, p, ib);
	}
	free(ib);
	return ret;
}

/*
 * The typed GID table of a RoCE v1/v2 device (Linux
 * mlx4_ib_update_gids_v1_v2, SET_PORT selector 0xd): each address twice,
 * as RoCE v2 at entries 0 and 1 (what a GID search finds first: Linux
 * rdma_cm prefers v2 where the device has it) and as RoCE v1 at 2 and 3.
 */
static int
gid_init_v1_v2(struct hermon_dev *hd, uint8_t p, const struct hermon_gid_table_mbox *v1)
{
	struct hermon_roce_gid_table_mbox *t = calloc(1, sizeof(*t));
	static const uint8_t zero[16];
	unsigned int i;
	int ret;

	if (t == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	/* 0, 1: v2, 2, 3: the same as v1; ip6= at 4 (v2) and 5 (v1) */
	for (i = 0; i < 6; i++) {
		struct hermon_roce_gid_entry *e = &t->gid[i];

		memcpy(e->gid, v1->gid[i < 4 ? i & 1 : 2].dw, 16);
		if (i == 2 || i == 3 || i == 5 || memcmp(e->gid, zero, 16) == 0)
			continue;
		e->version = HERMON_ROCE_GID_V2;
		/* IPv4-mapped (::ffff:a.b.c.d) is type 0, any other IPv6 */
		if (!(e->gid[10] == 0xff && e->gid[11] == 0xff &&
		      memcmp(e->gid, zero, 10) == 0))
			e->type = HERMON_ROCE_GID_IPV6;
	}
	ret = hermon_cmd_set_port_roce_gids(&hd->cmd, p, t);
	free(t);
	return ret;
}

int
hermon_ports_gid_init(struct hermon_dev *hd)
{
	struct hermon_gid_table_mbox *t;
	uint8_t p;
	int ret = 0;

	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	for (p = 1; p <= hd->caps.num_ports && ret == 0; p++) {
		struct hermon_port *port = &hd->port[p - 1];
		uint8_t *g = port->gid;

		/* F8: an IB port's GID 0 is its firmware's: the subnet prefix
		 * and the port GUID, read through the SMA (Linux
		 * __mlx4_ib_query_gid) */
		if (port->type == HERMON_PORT_TYPE_IB) {
			ret = hermon_mad_ib_gid(hd, p, 0, g);
			if (ret == 0)
				port->gid_set = true;
			continue;
		}
		memset(g, 0, 16);
		g[0] = 0xfe;
		g[1] = 0x80;
		g[8] = port->mac[0] ^ 0x02;
		g[9] = port->mac[1];
		g[10] = port->mac[2];
		g[11] = 0xff;
		g[12] = 0xfe;
		g[13] = port->mac[3];
		g[14] = port->mac[4];
		g[15] = port->mac[5];
		memset(t, 0, sizeof(*t));
		memcpy(t->gid[0].dw, g, 16);
		/* entry 1: the IPv4 address (RoCE GID ::ffff:a.b.c.d), on
		 * Ethernet, as mlx4_ib adds the netdev's addresses */
		if (hd->args.has_ip && port->type == HERMON_PORT_TYPE_ETH) {
			memset(port->ip_gid, 0, 16);
			port->ip_gid[10] = 0xff;
			port->ip_gid[11] = 0xff;
			memcpy(port->ip_gid + 12, hd->args.ip, 4);
			memcpy(t->gid[1].dw, port->ip_gid, 16);
		}
		/* entry 2: the global IPv6 address (ip6=, F13's ND answers it) */
		if (hd->args.has_ip6 && port->type == HERMON_PORT_TYPE_ETH)
			memcpy(t->gid[2].dw, hd->args.ip6, 16);
		/*
		 * F8: only an Ethernet port has a host-written (RoCE) GID
		 * table (Linux mlx4_ib_update_gids: SET_PORT selector 5 with
		 * op_mod 1 only); an IB port's belongs to its firmware (above).
		 * A RoCE v1/v2 device takes the typed table instead.
		 */
		if (hd->caps.roce_v1_v2)
			ret = gid_init_v1_v2(hd, p, t);
		else
			ret = hermon_cmd_set_port_gids(&hd->cmd, p, true, t);
		if (ret == 0) {
			port->gid_set = true;
			port->ip_gid_set = hd->args.has_ip;
			port->ip6_gid_set = hd->args.has_ip6;
			port->roce_v2 = hd->caps.roce_v1_v2;
		}
	}
	free(t);
	if (ret < 0)
		HERMON_LOG(ERR, "%s: port addresses: %s", hd->pdev->name,
			   rte_strerror(rte_errno));
	return ret;
}
