/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The destination MAC of a RoCE (v1) path (F13): what the caller gave, or
 * what a GID says without a neighbour table - the EUI-64 of a link-local
 * GID and the IPv6 multicast mapping of a multicast GID, as Linux
 * ib_resolve_eth_dmac (rdma_get_ll_mac, rdma_get_mcast_mac) and rdma-core
 * mlx4_resolve_grh_to_l2 resolve them - else the library's neighbour
 * cache (prdma_neigh.h, the one the soft provider uses) for an IPv4 or
 * IPv6 GID. The static neighbours of the devargs (neigh=IP/MAC) are its
 * static entries.
 *
 * The PMD gives the cache no way to ask the network: it has no raw
 * Ethernet queue to send or receive ARP or ND (doc/guides/nics/hermon.md,
 * "Open"), so a miss is EHOSTUNREACH at once, for blocking and
 * PRDMA_AH_F_NOWAIT callers alike: nothing would answer a wait.
 */

#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "hermon_logs.h"
#include "hermon_obj.h"

static const uint8_t v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

int
hermon_l2_init(struct hermon_dev *hd)
{
	struct rte_ether_addr mac;
	unsigned int i;
	int ret;

	ret = prdma_neigh_init(&hd->neigh, hd->neigh_ent, HERMON_NEIGH_MAX, hd->neigh_req,
			       HERMON_NEIGH_PENDING, NULL, hd, 0);
	for (i = 0; ret == 0 && i < hd->args.nb_neigh; i++) {
		memcpy(mac.addr_bytes, hd->args.neigh[i].mac, 6);
		ret = prdma_neigh_add_static(&hd->neigh, hd->args.neigh[i].ip,
					     hd->args.neigh[i].ipv6, &mac);
	}
	return ret;
}

/* What the GID alone gives: 0 with @mac, or 1 when the cache must answer
 * (@ip, @ipv6 the address to ask it for). */
static int
gid_mac(const struct prdma_ah_attr *at, uint8_t mac[6], const uint8_t **ip, int *ipv6)
{
	const uint8_t *g = at->dgid.raw;

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
	*ipv6 = memcmp(g, v4_mapped, sizeof(v4_mapped)) != 0;
	*ip = *ipv6 ? g : g + 12;
	return 1;
}

int
hermon_l2_dmac(struct hermon_dev *hd, const struct prdma_ah_attr *at, uint8_t mac[6])
{
	struct rte_ether_addr e;
	const uint8_t *ip;
	int ipv6;

	if (gid_mac(at, mac, &ip, &ipv6) == 0)
		return 0;
	if (prdma_neigh_lookup(&hd->neigh, ip, ipv6, &e) == 0) {
		memcpy(mac, e.addr_bytes, 6);
		return 0;
	}
	memset(mac, 0, 6);
	return -1;
}

int
hermon_l2_resolve(struct hermon_dev *hd, const struct prdma_ah_attr *at)
{
	struct rte_ether_addr e;
	const uint8_t *ip;
	char buf[64];
	uint8_t mac[6];
	int ipv6, ret;

	if (at->port_num < 1 || at->port_num > hd->caps.num_ports ||
	    hd->port[at->port_num - 1].type != HERMON_PORT_TYPE_ETH ||
	    gid_mac(at, mac, &ip, &ipv6) == 0)
		return 0;
	ret = prdma_neigh_resolve(&hd->neigh, ip, ipv6, &e);
	if (ret != -EHOSTUNREACH)
		return ret;
	inet_ntop(ipv6 ? AF_INET6 : AF_INET, ip, buf, sizeof(buf));
	/* a peer can name any address (a forged CM REQ): counted, not an
	 * ERR line each (hermon_stats.c) */
	hermon_stats_unresolved(hd, buf);
	return ret;
}
