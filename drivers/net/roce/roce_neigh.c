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
 *   from ARP on the wire; the kernel's neighbour table for the interface
 *   (netlink RTM_GETNEIGH) when the kernel shares it - the XDP program
 *   passes ARP and ND to the kernel - after a kernel-side probe (a UDP
 *   datagram to the discard port) when the entry is missing; our own ARP
 *   request otherwise. The engine answers ARP requests for our IPv4
 *   address on ports the kernel does not see.
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
#define ARP_RETRY_MS    200    /* between two requests for one address */
#define KERNEL_POLL_MS  2      /* between two reads of the kernel's table */
#define REQ_TTL_MS      (2 * RESOLVE_MS) /* an abandoned resolution is freed */
#define NEIGH_TTL_MS    60000  /* a learnt MAC is trusted this long */
#define NEIGH_HOLD_MS   10000  /* a MAC used this recently is never evicted */
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
 * Our own cache: MACs learnt from ARP on the wire, under the engine lock.
 *
 * Policy (F7 of the security review): an entry is created only from the
 * answer to a request this device made (a reply, or a request from the
 * address being resolved), and refreshed by a request from an address the
 * cache already holds. Anything else - gratuitous ARP, unsolicited
 * replies, requests from strangers - is answered where we answer ARP but
 * never learnt. An entry not confirmed for NEIGH_TTL_MS is no longer used
 * (the next resolution asks again). A new entry takes a free or expired
 * slot, else the least recently used one that no resolution used or
 * confirmed for NEIGH_HOLD_MS; when every slot is held, nothing is
 * evicted (the answer still reaches the resolution that asked for it).
 */
static uint64_t
ms_now(void)
{
	return rte_get_tsc_cycles() / (rte_get_tsc_hz() / 1000);
}

static int
ip_eq(const uint8_t *a, int a6, const uint8_t *b, int b6)
{
	return a6 == b6 && memcmp(a, b, b6 ? 16 : 4) == 0;
}

static struct roce_neigh *
cache_find(struct roce_dev *dev, const uint8_t *ip, int ipv6)
{
	unsigned int i;

	for (i = 0; i < ROCE_NEIGH_MAX; i++)
		if (dev->neigh[i].valid && ip_eq(dev->neigh[i].ip, dev->neigh[i].ipv6,
						 ip, ipv6))
			return &dev->neigh[i];
	return NULL;
}

static int
cache_lookup(struct roce_dev *dev, const uint8_t *ip, int ipv6, struct rte_ether_addr *mac)
{
	struct roce_neigh *e = cache_find(dev, ip, ipv6);
	uint64_t now = ms_now();

	if (e == NULL || now - e->confirmed_ms >= NEIGH_TTL_MS)
		return 0;
	e->used_ms = now;
	*mac = e->mac;
	return 1;
}

static int
cache_insert(struct roce_dev *dev, const uint8_t *ip, int ipv6,
	     const struct rte_ether_addr *mac)
{
	struct roce_neigh *e = cache_find(dev, ip, ipv6), *victim = NULL;
	uint64_t now = ms_now(), last, oldest = UINT64_MAX;
	unsigned int i;

	if (e == NULL) {
		for (i = 0; i < ROCE_NEIGH_MAX && victim == NULL; i++) {
			e = &dev->neigh[i];
			if (!e->valid || now - e->confirmed_ms >= NEIGH_TTL_MS)
				victim = e;
		}
		/* else the least recently used slot nobody holds */
		for (i = 0; victim == NULL && i < ROCE_NEIGH_MAX; i++) {
			e = &dev->neigh[i];
			last = RTE_MAX(e->used_ms, e->confirmed_ms);
			if (now - last >= NEIGH_HOLD_MS && last < oldest)
				oldest = last;
		}
		for (i = 0; victim == NULL && oldest != UINT64_MAX && i < ROCE_NEIGH_MAX; i++) {
			e = &dev->neigh[i];
			if (RTE_MAX(e->used_ms, e->confirmed_ms) == oldest)
				victim = e;
		}
		if (victim == NULL)
			return 0;
		e = victim;
		memset(e, 0, sizeof(*e));
		memcpy(e->ip, ip, ipv6 ? 16 : 4);
		e->ipv6 = (uint8_t)ipv6;
		e->valid = 1;
		e->used_ms = now;
	}
	e->mac = *mac;
	e->confirmed_ms = now;
	dev->xst.neigh_learned++;
	return 1;
}

/* A resolution in flight; one abandoned for REQ_TTL_MS takes no answer. */
static struct roce_neigh_req *
req_find(struct roce_dev *dev, const uint8_t *ip, int ipv6)
{
	struct roce_neigh_req *r;
	uint64_t now = ms_now();
	unsigned int i;

	for (i = 0; i < ROCE_NEIGH_PENDING; i++) {
		r = &dev->neigh_req[i];
		if (!r->valid || !ip_eq(r->ip, r->ipv6, ip, ipv6))
			continue;
		if (now - r->started_ms >= REQ_TTL_MS) {
			r->valid = 0;
			return NULL;
		}
		return r;
	}
	return NULL;
}

/* A resolution in flight for @ip, new if needed (the oldest is recycled
 * when all are in use: its owner asks again on its next step). */
static struct roce_neigh_req *
req_get(struct roce_dev *dev, const uint8_t *ip, int ipv6)
{
	struct roce_neigh_req *r = req_find(dev, ip, ipv6), *old = NULL;
	uint64_t now = ms_now();
	unsigned int i;

	if (r != NULL)
		return r;
	for (i = 0; i < ROCE_NEIGH_PENDING; i++) {
		r = &dev->neigh_req[i];
		if (!r->valid || now - r->started_ms >= REQ_TTL_MS)
			break;
		if (old == NULL || r->started_ms < old->started_ms)
			old = r;
	}
	if (i == ROCE_NEIGH_PENDING)
		r = old;
	memset(r, 0, sizeof(*r));
	memcpy(r->ip, ip, ipv6 ? 16 : 4);
	r->ipv6 = (uint8_t)ipv6;
	r->started_ms = now;
	r->valid = 1;
	return r;
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
	struct rte_mbuf *m;
	uint8_t *p;

	if (dev->txq_len >= ROCE_TXQ_SIZE)
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
	dev->txq[dev->txq_len++] = m;
	if (op == 1)
		dev->xst.arp_requests++;
	else
		dev->xst.arp_replies++;
	return 0;
}

int
roce_arp_rx(struct roce_dev *dev, const uint8_t *p, uint32_t len)
{
	struct roce_neigh_req *r;
	struct roce_neigh *e;
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
	r = req_find(dev, p + 28, 0);
	e = cache_find(dev, p + 28, 0);
	if (r != NULL && !r->answered) {
		/* The first answer to our own request (or the peer asking for
		 * us while we ask for it). Cached, the request is done; when
		 * every slot is held it waits for its resolution to take it. */
		if (cache_insert(dev, p + 28, 0, &sha)) {
			r->valid = 0;
		} else {
			r->mac = sha;
			r->answered = 1;
		}
	} else if (op == 1 && e != NULL) {
		cache_insert(dev, p + 28, 0, &sha);     /* a known peer refreshes */
	} else {
		dev->xst.neigh_ignored++;
	}
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

/*
 * One non-blocking step of a resolution: 0 with @mac, -EAGAIN while the
 * answer is awaited (a request or kernel probe went out at most every
 * ARP_RETRY_MS), or an error. Never sleeps and never waits: the answer
 * arrives through the engine (roce_arp_rx) or the kernel's table.
 */
static int
resolve_step(struct roce_dev *dev, const uint8_t *ip, int ipv6,
	     struct rte_ether_addr *mac)
{
	struct roce_neigh_req *r;
	uint64_t now;
	int ret, lookup = 0, probe = 0;

	roce_engine_lock(dev);
	ret = cache_lookup(dev, ip, ipv6, mac);
	if (ret) {
		roce_engine_unlock(dev);
		return 0;
	}
	if (dev->ifindex == 0 && ipv6) {
		roce_engine_unlock(dev);
		ROCE_LOG(ERR, "%s: no MAC for an IPv6 peer: neighbour discovery needs the "
			 "port's kernel interface (iface=) or PRDMA_AH_F_DMAC", dev->pdev->name);
		return -EHOSTUNREACH;
	}
	r = req_get(dev, ip, ipv6);
	if (r->answered) {
		*mac = r->mac;
		r->valid = 0;
		roce_engine_unlock(dev);
		return 0;
	}
	now = ms_now();
	if (dev->ifindex != 0) {
		if (now >= r->next_lookup_ms) {
			r->next_lookup_ms = now + KERNEL_POLL_MS;
			lookup = 1;
		}
		if (now >= r->next_probe_ms) {
			r->next_probe_ms = now + ARP_RETRY_MS;
			probe = 1;
		}
	} else if (now >= r->next_probe_ms &&
		   arp_send(dev, 1, NULL, ip) == 0) {
		r->next_probe_ms = now + ARP_RETRY_MS;
	}
	roce_engine_unlock(dev);
	/* The kernel's table is read outside the engine lock (a syscall). */
	if (lookup && kernel_lookup(dev, ip, ipv6, mac) > 0) {
		__atomic_fetch_add(&dev->xst.neigh_kernel, 1, __ATOMIC_RELAXED);
		roce_engine_lock(dev);
		r = req_find(dev, ip, ipv6);
		if (r != NULL)
			r->valid = 0;
		roce_engine_unlock(dev);
		return 0;
	}
	if (probe)
		kernel_probe(dev, ip, ipv6);
	return -EAGAIN;
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
		ret = resolve_step(dev, ip, ipv6, mac);
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
			roce_link_step_peer(dev, rte_rdtsc());
		rte_pause();
	}
	log_unreachable(dev, ip, ipv6, RESOLVE_MS);
	return -EHOSTUNREACH;
}
