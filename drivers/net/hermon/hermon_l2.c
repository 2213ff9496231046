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
 * The cache asks the network with ARP for IPv4 and neighbour discovery
 * for IPv6 (hermon_arp.c, hermon_nd.c: a raw Ethernet QP per port and a
 * thread answering requests and solicitations): a miss is EAGAIN under
 * PRDMA_AH_F_NOWAIT until the answer is in, and a blocking caller waits
 * up to L2_RESOLVE_MS, then EHOSTUNREACH, as on the soft provider
 * (roce_neigh_resolve). Without an address of the family to ask from
 * (ip= for IPv4, ip6= for IPv6) nothing can ask: EHOSTUNREACH at once.
 * The device's own address (ip=, ip6=) is its port's MAC without asking
 * (a loopback connection), as a kernel's local route would give it.
 */

#include <errno.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "hermon_arp.h"
#include "hermon_logs.h"
#include "hermon_obj.h"

#define L2_RESOLVE_MS 1000               /* a blocking resolution's bound */
#define L2_WAIT_NS (1000 * 1000)         /* between two looks at the cache */

static const struct prdma_neigh_ops l2_ops = {
	.solicit = hermon_arp_solicit,
};

static const uint8_t v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

int
hermon_l2_init(struct hermon_dev *hd)
{
	struct rte_ether_addr mac;
	unsigned int i;
	int ret;

	ret = prdma_neigh_init(&hd->neigh, hd->neigh_ent, HERMON_NEIGH_MAX, hd->neigh_req,
			       HERMON_NEIGH_PENDING, &l2_ops, hd, 0);
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
gid_mac(const struct hermon_dev *hd, const struct prdma_ah_attr *at, uint8_t mac[6],
	const uint8_t **ip, int *ipv6)
{
	const uint8_t *g = at->dgid.raw;
	uint8_t port = at->port_num >= 1 && at->port_num <= hd->caps.num_ports ?
		at->port_num : 1;

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
	/* our own address: the port's MAC (a connection to ourselves) */
	if ((!*ipv6 && hd->args.has_ip && memcmp(*ip, hd->args.ip, 4) == 0) ||
	    (*ipv6 && hd->args.has_ip6 && memcmp(*ip, hd->args.ip6, 16) == 0)) {
		memcpy(mac, hd->port[port - 1].mac, 6);
		return 0;
	}
	return 1;
}

int
hermon_l2_dmac(struct hermon_dev *hd, const struct prdma_ah_attr *at, uint8_t mac[6])
{
	struct rte_ether_addr e;
	const uint8_t *ip;
	int ipv6;

	if (gid_mac(hd, at, mac, &ip, &ipv6) == 0)
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
	uint64_t start;
	const uint8_t *ip;
	char buf[64];
	uint8_t mac[6];
	int ipv6, ret;

	if (at->port_num < 1 || at->port_num > hd->caps.num_ports ||
	    hd->port[at->port_num - 1].type != HERMON_PORT_TYPE_ETH ||
	    gid_mac(hd, at, mac, &ip, &ipv6) == 0)
		return 0;
	start = prdma_neigh_now_ms();
	for (;;) {
		struct timespec ts = { 0, L2_WAIT_NS };

		ret = prdma_neigh_resolve(&hd->neigh, ip, ipv6, &e);
		/* NOWAIT (the CM): one step, EAGAIN until the answer is in */
		if (ret != -EAGAIN || (at->flags & PRDMA_AH_F_NOWAIT))
			break;
		if (prdma_neigh_now_ms() - start >= L2_RESOLVE_MS) {
			ret = -EHOSTUNREACH;
			break;
		}
		/* the ARP thread takes the answer; the model's runs the wire */
		nanosleep(&ts, NULL);
	}
	if (ret != -EHOSTUNREACH)
		return ret;
	inet_ntop(ipv6 ? AF_INET6 : AF_INET, ip, buf, sizeof(buf));
	/* a peer can name any address (a forged CM REQ): counted, not an
	 * ERR line each (hermon_stats.c) */
	hermon_stats_unresolved(hd, buf);
	return ret;
}
