/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The destination MAC of a RoCE (v1) path: what the caller gave, or what a
 * GID says without a neighbour table — the EUI-64 of a link-local GID and
 * the IPv6 multicast mapping of a multicast GID, as Linux
 * ib_resolve_eth_dmac (rdma_get_ll_mac, rdma_get_mcast_mac) and rdma-core
 * mlx4_resolve_grh_to_l2 resolve them; an IPv4 GID's from the static
 * neighbours of the devargs (neigh=IP/MAC). Other GIDs need the caller's
 * DMAC (PRDMA_AH_F_DMAC) until the library resolves neighbours for
 * providers.
 */

#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "hermon_logs.h"
#include "hermon_obj.h"

static const uint8_t v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

int
hermon_l2_dmac(const struct hermon_dev *hd, const struct prdma_ah_attr *at,
	       uint8_t mac[6])
{
	const uint8_t *g = at->dgid.raw;
	unsigned int i;

	if (at->flags & PRDMA_AH_F_DMAC) {
		memcpy(mac, at->dmac.addr_bytes, 6);
		return 0;
	}
	if (g[0] == 0xff) {
		mac[0] = 0x33;
		mac[1] = 0x33;
		memcpy(mac + 2, g + 12, 4);
		return 0;
	}
	if (g[0] == 0xfe && (g[1] & 0xc0) == 0x80 && g[11] == 0xff && g[12] == 0xfe) {
		mac[0] = g[8] ^ 0x02;
		mac[1] = g[9];
		mac[2] = g[10];
		mac[3] = g[13];
		mac[4] = g[14];
		mac[5] = g[15];
		return 0;
	}
	/* an IPv4 GID: the static neighbours of the devargs (neigh=) */
	if (memcmp(g, v4_mapped, sizeof(v4_mapped)) == 0)
		for (i = 0; i < hd->args.nb_neigh; i++)
			if (memcmp(hd->args.neigh[i].ip, g + 12, 4) == 0) {
				memcpy(mac, hd->args.neigh[i].mac, 6);
				return 0;
			}
	memset(mac, 0, 6);
	return -1;
}

bool
hermon_l2_dmac_missing(const struct hermon_dev *hd, const struct prdma_ah_attr *at)
{
	char ip[64];
	uint8_t mac[6];

	if (at->port_num < 1 || at->port_num > hd->caps.num_ports ||
	    hd->port[at->port_num - 1].type != HERMON_PORT_TYPE_ETH ||
	    hermon_l2_dmac(hd, at, mac) == 0)
		return false;
	if (memcmp(at->dgid.raw, v4_mapped, sizeof(v4_mapped)) == 0)
		inet_ntop(AF_INET, at->dgid.raw + 12, ip, sizeof(ip));
	else
		inet_ntop(AF_INET6, at->dgid.raw, ip, sizeof(ip));
	HERMON_LOG(ERR, "%s: no MAC for %s: the PMD does not resolve neighbours; "
		   "give it (PRDMA_AH_F_DMAC) or a static neighbour (neigh=IP/MAC)",
		   hd->pdev->name, ip);
	return true;
}
