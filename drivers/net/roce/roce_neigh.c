/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Addresses without hand-typed MACs, all on the control path.
 *
 * - The port's kernel interface (iface=, or the ethdev's if_index as
 *   net_af_xdp and net_af_packet report it) gives the GID when ip= is
 *   absent: its first IPv4 address (IPv4-mapped GID), else its first
 *   global IPv6 address.
 * - A peer's MAC comes from, in order: the neighbours this device learned
 *   from ARP on the wire (the library's cache, prdma_neigh.h); the
 *   kernel's neighbour table for the interface (netlink RTM_GETNEIGH)
 *   when the kernel shares it - the XDP program passes ARP and ND to the
 *   kernel - after a kernel-side probe (a UDP datagram to the discard
 *   port) when the entry is missing; our own ARP request otherwise. The
 *   engine answers ARP requests for our IPv4 address on ports the kernel
 *   does not see.
 */

#include <errno.h>
#include <inttypes.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "roce.h"

#define RESOLVE_MS      1000   /* how long a blocking resolution may take */
#define KERNEL_POLL_MS  2      /* between two reads of the kernel's table */
#define DISCARD_PORT    9

int
roce_iface_discover(struct roce_dev *dev)
{
	struct rte_eth_dev_info info;
	unsigned int idx;

	if (dev->cfg.iface[0] != '\0') {
		idx = if_nametoindex(dev->cfg.iface);
		if (idx == 0) {
			ROCE_LOG(ERR, "iface=%s: no such network interface in this namespace",
				 dev->cfg.iface);
			return -ENODEV;
		}
		strlcpy(dev->ifname, dev->cfg.iface, sizeof(dev->ifname));
		dev->ifindex = idx;
		return 0;
	}
	memset(&info, 0, sizeof(info));
	if (rte_eth_dev_info_get(dev->port_id, &info) == 0 && info.if_index != 0 &&
	    if_indextoname(info.if_index, dev->ifname) != NULL)
		dev->ifindex = info.if_index;
	return 0;
}

int
roce_iface_gid(struct roce_dev *dev, union prdma_gid *gid)
{
	struct ifaddrs *ifa, *it;
	int found = 0;

	if (dev->ifindex == 0) {
		ROCE_LOG(ERR, "port=%d: ip=<address> is required: the port has no kernel "
			 "interface to read it from (give iface=<name>)", dev->cfg.port);
		return -EINVAL;
	}
	if (getifaddrs(&ifa) != 0) {
		ROCE_LOG(ERR, "%s: cannot list the interface addresses: %s", dev->ifname,
			 strerror(errno));
		return -errno;
	}
	/* IPv4 first (RoCEv2 peers mostly use IPv4-mapped GIDs). */
	for (it = ifa; it != NULL && !found; it = it->ifa_next)
		if (it->ifa_addr != NULL && it->ifa_addr->sa_family == AF_INET &&
		    strcmp(it->ifa_name, dev->ifname) == 0) {
			const struct sockaddr_in *sin = (const void *)it->ifa_addr;

			prdma_gid_from_ipv4(gid, rte_be_to_cpu_32(sin->sin_addr.s_addr));
			found = 1;
		}
	for (it = ifa; it != NULL && !found; it = it->ifa_next)
		if (it->ifa_addr != NULL && it->ifa_addr->sa_family == AF_INET6 &&
		    strcmp(it->ifa_name, dev->ifname) == 0) {
			const struct sockaddr_in6 *sin6 = (const void *)it->ifa_addr;

			if (IN6_IS_ADDR_LINKLOCAL(&sin6->sin6_addr))
				continue;
			memcpy(gid->raw, &sin6->sin6_addr, 16);
			found = 1;
		}
	freeifaddrs(ifa);
	if (!found) {
		ROCE_LOG(ERR, "%s: the interface has no IPv4 or global IPv6 address; "
			 "give ip=<address>", dev->ifname);
		return -EADDRNOTAVAIL;
	}
	return 0;
}

/*
 * The cache is the library's (prdma_neigh.c: learning only answers to our
 * own requests, ageing, the bounded table); the frames are ours: ARP
 * requests on ports the kernel does not see, else the kernel's table and
 * a probe that makes the kernel ask.
 */
static uint64_t
ms_now(void)
{
	return prdma_neigh_now_ms();
}

/* One netlink dump of the kernel's neighbours on our interface. */
static int
kernel_lookup(struct roce_dev *dev, const uint8_t *ip, int ipv6, struct rte_ether_addr *mac)
{
	struct {
		struct nlmsghdr nh;
		struct ndmsg nd;
	} req;
	char buf[16384];
	struct sockaddr_nl sa;
	int fd, found = 0, done = 0;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg));
	req.nh.nlmsg_type = RTM_GETNEIGH;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = 1;
	req.nd.ndm_family = ipv6 ? AF_INET6 : AF_INET;
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -errno;
	}
	while (!done) {
		struct nlmsghdr *nh;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (uint32_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			struct ndmsg *nd = NLMSG_DATA(nh);
			struct rtattr *rta;
			const uint8_t *dst = NULL, *ll = NULL;
			int alen, dlen = 0, llen = 0;

			if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR) {
				done = 1;
				break;
			}
			if (nh->nlmsg_type != RTM_NEWNEIGH ||
			    nd->ndm_ifindex != (int)dev->ifindex ||
			    (nd->ndm_state & (NUD_INCOMPLETE | NUD_FAILED | NUD_NONE)) ||
			    nd->ndm_state == 0)
				continue;
			alen = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*nd)));
			for (rta = (struct rtattr *)((char *)nd + NLMSG_ALIGN(sizeof(*nd)));
			     RTA_OK(rta, alen); rta = RTA_NEXT(rta, alen)) {
				if (rta->rta_type == NDA_DST) {
					dst = RTA_DATA(rta);
					dlen = (int)RTA_PAYLOAD(rta);
				} else if (rta->rta_type == NDA_LLADDR) {
					ll = RTA_DATA(rta);
					llen = (int)RTA_PAYLOAD(rta);
				}
			}
			if (dst != NULL && ll != NULL && llen == 6 && dlen == (ipv6 ? 16 : 4) &&
			    memcmp(dst, ip, (size_t)dlen) == 0) {
				memcpy(mac->addr_bytes, ll, 6);
				found = 1;
			}
		}
	}
	close(fd);
	return found;
}

/* Make the kernel resolve @ip: any datagram to it starts ARP or ND. */
static void
kernel_probe(struct roce_dev *dev, const uint8_t *ip, int ipv6)
{
	static const char probe[] = "prdma neighbour probe";
	int fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	/* Out of our interface even if a route would pick another. */
	(void)setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev->ifname,
			 (socklen_t)strlen(dev->ifname));
	if (ipv6) {
		struct sockaddr_in6 a;

		memset(&a, 0, sizeof(a));
		a.sin6_family = AF_INET6;
		a.sin6_port = htons(DISCARD_PORT);
		memcpy(&a.sin6_addr, ip, 16);
		(void)sendto(fd, probe, sizeof(probe), MSG_DONTWAIT, (struct sockaddr *)&a,
			     sizeof(a));
	} else {
		struct sockaddr_in a;

		memset(&a, 0, sizeof(a));
		a.sin_family = AF_INET;
		a.sin_port = htons(DISCARD_PORT);
		memcpy(&a.sin_addr, ip, 4);
		(void)sendto(fd, probe, sizeof(probe), MSG_DONTWAIT, (struct sockaddr *)&a,
			     sizeof(a));
	}
	close(fd);
}

/* Build an ARP request or reply (IPv4 over Ethernet, RFC 826). */
static int
arp_send(struct roce_dev *dev, uint16_t op, const struct rte_ether_addr *dmac,
	 const uint8_t *tip)
{
	/* ARP is engine 0's (it receives the frames of no QP); the control
	 * path sends with every flag held */
	struct roce_eng *e = &dev->eng[0];
	struct rte_mbuf *m;
	uint8_t *p;

	if (e->txq_len >= ROCE_TXQ_SIZE)
		return -ENOBUFS;
	m = rte_pktmbuf_alloc(dev->mp);
	if (m == NULL)
		return -ENOMEM;
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memset(p, 0, ROCE_MIN_FRAME);
	if (dmac != NULL)
		memcpy(p, dmac->addr_bytes, 6);
	else
		memset(p, 0xff, 6);
	memcpy(p + 6, dev->mac.addr_bytes, 6);
	roce_put16(p + 12, RTE_ETHER_TYPE_ARP);
	roce_put16(p + 14, 1);                       /* Ethernet */
	roce_put16(p + 16, RTE_ETHER_TYPE_IPV4);
	p[18] = 6;
	p[19] = 4;
	roce_put16(p + 20, op);
	memcpy(p + 22, dev->mac.addr_bytes, 6);
	memcpy(p + 28, dev->ip, 4);
	if (dmac != NULL)
		memcpy(p + 32, dmac->addr_bytes, 6);
	memcpy(p + 38, tip, 4);
	m->data_len = ROCE_MIN_FRAME;
	m->pkt_len = ROCE_MIN_FRAME;
	if (dev->pcap != NULL)
		roce_pcap_write(dev->pcap, m);
	e->txq[e->txq_len++] = m;
	if (op == 1)
		e->xst.arp_requests++;
	else
		e->xst.arp_replies++;
	return 0;
}

int
roce_arp_rx(struct roce_dev *dev, const uint8_t *p, uint32_t len)
{
	struct rte_ether_addr sha;
	uint16_t op;

	if (len < 42 || roce_get16(p + 12) != RTE_ETHER_TYPE_ARP ||
	    roce_get16(p + 14) != 1 || roce_get16(p + 16) != RTE_ETHER_TYPE_IPV4 ||
	    p[18] != 6 || p[19] != 4)
		return 0;
	if (dev->ipv6)
		return 1;
	op = roce_get16(p + 20);
	memcpy(sha.addr_bytes, p + 22, 6);
	/* Only about us: a reply to us, or a request for our address. */
	if (memcmp(p + 38, dev->ip, 4) != 0 || !rte_is_unicast_ether_addr(&sha))
		return 1;
	(void)prdma_neigh_input(&dev->neigh_cache, p + 28, 0, &sha, op == 1);
	if (op == 1 && dev->ifindex == 0)
		arp_send(dev, 2, &sha, p + 28);
	return 1;
}

static void
log_unreachable(struct roce_dev *dev, const uint8_t *ip, int ipv6, uint64_t ms)
{
	char buf[64];

	if (ipv6)
		inet_ntop(AF_INET6, ip, buf, sizeof(buf));
	else
		inet_ntop(AF_INET, ip, buf, sizeof(buf));
	ROCE_LOG(ERR, "%s: %s does not answer %s on %s within %" PRIu64 " ms",
		 dev->pdev->name, buf, ipv6 ? "neighbour discovery" : "ARP",
		 dev->ifname[0] != '\0' ? dev->ifname : "the port", ms);
}

/* The cache's request: our ARP request, or make the kernel ask. */
static int
neigh_solicit(void *ctx, const uint8_t *ip, int ipv6)
{
	struct roce_dev *dev = ctx;
	int ret;

	if (dev->ifindex != 0) {
		kernel_probe(dev, ip, ipv6);
		return 0;
	}
	if (ipv6) {
		ROCE_LOG(ERR, "%s: no MAC for an IPv6 peer: neighbour discovery needs the "
			 "port's kernel interface (iface=) or PRDMA_AH_F_DMAC", dev->pdev->name);
		return -EHOSTUNREACH;
	}
	roce_engine_lock(dev);
	ret = arp_send(dev, 1, NULL, ip);
	roce_engine_unlock(dev);
	return ret;
}

/* The kernel's table, on ports it sees (a syscall: never under a lock). */
static int
neigh_lookup(void *ctx, const uint8_t *ip, int ipv6, struct rte_ether_addr *mac)
{
	struct roce_dev *dev = ctx;

	if (dev->ifindex == 0)
		return 0;
	return kernel_lookup(dev, ip, ipv6, mac) > 0;
}

static const struct prdma_neigh_ops neigh_ops = {
	.solicit = neigh_solicit,
	.lookup = neigh_lookup,
};

int
roce_neigh_init(struct roce_dev *dev)
{
	return prdma_neigh_init(&dev->neigh_cache, dev->neigh, ROCE_NEIGH_MAX,
				dev->neigh_req, ROCE_NEIGH_PENDING, &neigh_ops, dev,
				KERNEL_POLL_MS);
}

/*
 * @nowait (PRDMA_AH_F_NOWAIT: the CM, and any caller that must not wait):
 * one step, -EAGAIN until the answer is in; the caller retries and gives
 * up when it chooses. Otherwise the calling thread waits up to RESOLVE_MS,
 * stepping the engine itself on ports the kernel does not see.
 */
int
roce_neigh_resolve(struct roce_dev *dev, const uint8_t *ip, int ipv6,
		   struct rte_ether_addr *mac, int nowait)
{
	uint64_t start = ms_now();
	int ret;

	for (;;) {
		ret = prdma_neigh_resolve(&dev->neigh_cache, ip, ipv6, mac);
		if (ret != -EAGAIN || nowait)
			return ret;
		if (ms_now() - start >= RESOLVE_MS)
			break;
		if (dev->ifindex != 0) {
			usleep(KERNEL_POLL_MS * 1000);
			continue;
		}
		roce_engine_lock(dev);
		roce_engine_step(dev);
		roce_engine_unlock(dev);
		if (dev->link != NULL)
			roce_link_step_peer(&dev->eng[0], rte_rdtsc());
		rte_pause();
	}
	log_unreachable(dev, ip, ipv6, RESOLVE_MS);
	return -EHOSTUNREACH;
}
