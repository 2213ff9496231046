/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * F13, the network half: ARP on the PMD's Ethernet ports, so that the
 * library's neighbour cache (prdma_neigh.h, hermon_l2.c) can ask the
 * network for an IPv4 peer's MAC, as the soft provider does
 * (drivers/net/roce/roce_neigh.c).
 *
 * Per Ethernet port that is up, with the device's address (ip=), the PMD
 * owns a raw Ethernet QP as ConnectX-3 does it: mlx4_ib maps
 * IB_QPT_RAW_PACKET to service type MLX on an ordinary QPN with the QPC
 * MTU code 7 (MLX4_RAW_QP_MTU), and its send WQE is a control segment
 * and the whole frame in its gather list (mlx4_ib_post_send); the QP is
 * otherwise driven like any other (hermon_qp.c, the fast path's SEND).
 * Frames reach it through the steering of INIT_HCA's mode: the PMD asks
 * for neither B0 nor device-managed flow steering, which is A0, where
 * mlx4_en steers a port's Ethernet traffic with SET_PORT(Ethernet,
 * RQP_CALC) (mlx4_SET_PORT_qpn_calc): unicast to the port's MAC and, in
 * MCAST_DEFAULT mode, broadcast go to the base QPN, here the raw QP.
 * EtherType rules would need DMFS; the agent takes only ARP and counts
 * the rest.
 *
 * A control thread ("hermon-arp", 1 ms idle sleep, the same pattern as
 * hermon_sma.c) polls every agent: a request for our address is answered
 * (the peer's application may sit idle in prdma_cm_*), and every ARP
 * frame about our address goes to prdma_neigh_input(), where the cache's
 * policy applies (it learns only answers to its own requests, refreshes
 * entries from requests). The cache's solicit() posts a request on every
 * agent's port; a blocking resolution waits in hermon_l2.c.
 *
 * IPv6 neighbour discovery (RFC 4861, the frames in hermon_nd.c) runs on
 * the same agent, for the port's link-local address (GID 0, the MAC's
 * EUI-64) and the global ip6= (GID 2): the solicited-node MACs of both
 * join the port's multicast filter (SET_MCAST_FLTR, as mlx4_en's
 * set_rx_mode adds a netdev's multicast list; hermon_mcast.c keeps them
 * when it rewrites the filter), and in A0 steering multicast goes to the
 * base QPN (MCAST_DEFAULT), the raw QP. An NS for one of our addresses is
 * answered by a solicited NA with our target link-layer option; an NA to
 * us, and an NS's source link-layer option, go to prdma_neigh_input() as
 * replies and requests do for ARP (the cache learns only answers to its
 * own requests). An NS or NA failing RFC 4861's validity checks (hop
 * limit 255, checksum, ...) is counted in nd_bad and dropped.
 *
 * Not done: VLANs, gratuitous ARP and unsolicited NA at start-up,
 * duplicate address detection, router discovery.
 */

#include <errno.h>
#include <string.h>
#include <time.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "hermon_agent_res.h"
#include "hermon_arp.h"
#include "hermon_logs.h"
#include "hermon_nd.h"
#include "hermon_obj.h"

#define ARP_NRECV 16
#define ARP_NSEND 16
#define ARP_RSLOT 1536u                     /* any frame the steering gives us */
#define ARP_SSLOT 128u                      /* an ARP frame or an NS/NA */
#define ARP_FRAME 60u                       /* the minimum Ethernet frame */
#define ARP_POLL_NS (1000 * 1000)           /* 1 ms between idle polls */
#define RAW_QP_MTU 7                        /* Linux MLX4_RAW_QP_MTU */

/* SET_PORT(Ethernet, RQP_CALC) mailbox (Linux mlx4_set_port_rqp_calc_context) */
#define RQP_BASE_QPN   0x00
#define RQP_NO_VLAN    0x0d
#define RQP_VLAN_MISS  0x0f
#define RQP_PROMISC    0x14
#define RQP_MCAST      0x18
#define RQP_LEN        0x20
#define RQP_MCAST_DEFAULT 2u                /* bits 31:30 of RQP_MCAST */
#define RQP_VLAN_MISS_IDX 1                 /* Linux MLX4_VLAN_MISS_IDX */

struct hermon_arp {
	struct hermon_dev *hd;
	uint8_t port;
	bool steered;
	struct hermon_agent_res res;        /* the raw QP, its CQ, MR and slots */
	uint32_t send_k;
	uint32_t sends_out;
	bool broken;
	struct hermon_arp_stats st;
};

/* A0 steering of @port's Ethernet traffic to @qpn (0: none). */
static int
steer(struct hermon_dev *hd, uint8_t port, uint32_t qpn)
{
	uint8_t *b = rte_zmalloc("hermon_rqp", RQP_LEN, 64);
	int ret;

	if (b == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	*(rte_be32_t *)(b + RQP_BASE_QPN) = rte_cpu_to_be_32(qpn);
	*(rte_be32_t *)(b + RQP_PROMISC) = rte_cpu_to_be_32(qpn);
	*(rte_be32_t *)(b + RQP_MCAST) = rte_cpu_to_be_32(RQP_MCAST_DEFAULT << 30 | qpn);
	b[RQP_VLAN_MISS] = RQP_VLAN_MISS_IDX;
	ret = hermon_cmd_set_port_eth(&hd->cmd, port, HERMON_SET_PORT_RQP_CALC, b, RQP_LEN);
	rte_free(b);
	return ret;
}

/* An agent on every Ethernet port that is up, when there is an address to
 * answer for and ask from: ip= (ARP), ip6= (ND; the link-local one alone
 * is resolved from the EUI-64 and needs no agent). */
static bool
port_wants_agent(const struct hermon_dev *hd, uint8_t port)
{
	return (hd->args.has_ip || hd->args.has_ip6) && port >= 1 &&
		port <= hd->caps.num_ports &&
		hd->port[port - 1].type == HERMON_PORT_TYPE_ETH && hd->port[port - 1].up;
}

int
hermon_arp_nd_macs(const struct hermon_dev *hd, uint8_t port, uint64_t macs[2])
{
	int n = 0;

	/* ND only with ip6= (a link-local peer resolves from the EUI-64) */
	if (!port_wants_agent(hd, port) || !hd->args.has_ip6)
		return 0;
	if (hd->port[port - 1].gid_set)
		macs[n++] = hermon_nd_snmc_mac(hd->port[port - 1].gid);
	if (hd->port[port - 1].ip6_gid_set)
		macs[n++] = hermon_nd_snmc_mac(hd->args.ip6);
	return n;
}

/* Our addresses' solicited-node MACs join the port's multicast filter. */
static int
nd_filter(struct hermon_dev *hd, uint8_t port)
{
	uint64_t macs[2];
	int i, n = hermon_arp_nd_macs(hd, port, macs), ret = 0;

	for (i = 0; i < n && ret == 0; i++)
		ret = hermon_cmd_set_mcast_fltr(&hd->cmd, port, macs[i], false,
						HERMON_MCAST_CONFIG);
	if (ret == 0 && n > 0)
		ret = hermon_cmd_set_mcast_fltr(&hd->cmd, port, 0, false, HERMON_MCAST_ENABLE);
	return ret;
}

static void
agent_free(struct hermon_arp *a)
{
	/* the port's traffic leaves the QP before the QP goes */
	if (a->steered)
		(void)steer(a->hd, a->port, 0);
	hermon_agent_res_free(&a->res);
	rte_free(a);
}

/* The raw QP: a SEND of an RC QP is the control segment and the gather
 * list, the WQE mlx4_ib builds for a raw packet QP. */
static const struct hermon_agent_res_attr arp_res = {
	.name = "hermon_arp_buf",
	.nrecv = ARP_NRECV,
	.nsend = ARP_NSEND,
	.rslot = ARP_RSLOT,
	.sslot = ARP_SSLOT,
	.qp_type = PRDMA_QPT_RC,
	.raw = true,
};

static struct hermon_arp *
agent_new(struct hermon_dev *hd, uint8_t port)
{
	struct hermon_arp *a;

	a = rte_zmalloc_socket("hermon_arp", sizeof(*a), 64, hd->pdev->socket_id);
	if (a == NULL)
		return NULL;
	a->hd = hd;
	a->port = port;
	if (hermon_agent_res_new(hd, port, &arp_res, &a->res) < 0)
		goto err;
	if (steer(hd, port, a->res.qp.qpn) < 0)
		goto err;
	a->steered = true;
	if (nd_filter(hd, port) < 0)
		goto err;
	return a;
err:
	HERMON_LOG(ERR, "%s: port %u: no ARP agent: %s", hd->pdev->name, port,
		   rte_strerror(rte_errno));
	agent_free(a);
	return NULL;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The next send slot, NULL (counted) when none is free. */
static uint8_t *
send_slot(struct hermon_arp *a)
{
	if (a->broken || a->sends_out >= ARP_NSEND) {
		a->st.send_fail++;
		return NULL;
	}
	return hermon_agent_send_slot(&a->res, a->send_k);
}

/* Send the @len-byte frame built in send_slot()'s slot @p. */
static int
raw_post(struct hermon_arp *a, uint8_t *p, uint32_t len)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	int ret;

	sge = (struct prdma_sge){ .addr = (uintptr_t)p, .length = len,
				  .lkey = a->res.mr.pub.lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = a->send_k;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	ret = hermon_post_send(&a->res.qp.pub, &wr, &bad);
	if (ret < 0) {
		a->st.send_fail++;
		return ret;
	}
	a->send_k++;
	a->sends_out++;
	return 0;
}

/* An ARP request (@dmac NULL: broadcast) or reply for @tip; agents' lock held. */
static int
arp_send(struct hermon_arp *a, uint16_t op, const uint8_t *dmac, const uint8_t *tip)
{
	const uint8_t *mac = a->hd->port[a->port - 1].mac;
	uint8_t *p = send_slot(a);
	int ret;

	if (p == NULL)
		return -ENOBUFS;
	memset(p, 0, ARP_FRAME);
	if (dmac != NULL)
		memcpy(p, dmac, 6);
	else
		memset(p, 0xff, 6);
	memcpy(p + 6, mac, 6);
	put16(p + 12, RTE_ETHER_TYPE_ARP);
	put16(p + 14, 1);                      /* Ethernet */
	put16(p + 16, RTE_ETHER_TYPE_IPV4);
	p[18] = 6;
	p[19] = 4;
	put16(p + 20, op);
	memcpy(p + 22, mac, 6);
	memcpy(p + 28, a->hd->args.ip, 4);
	if (dmac != NULL)
		memcpy(p + 32, dmac, 6);
	memcpy(p + 38, tip, 4);
	ret = raw_post(a, p, ARP_FRAME);
	if (ret < 0)
		return ret;
	if (op == 1)
		a->st.requests++;
	else
		a->st.answered++;
	return 0;
}

/* Is @ip one of the port's IPv6 addresses (link-local GID 0, ip6=)? */
static bool
nd_ours(const struct hermon_arp *a, const uint8_t *ip)
{
	const struct hermon_port *port = &a->hd->port[a->port - 1];

	return (port->gid_set && memcmp(ip, port->gid, 16) == 0) ||
		(port->ip6_gid_set && memcmp(ip, a->hd->args.ip6, 16) == 0);
}

/* The address an NS leaves from: ip6= when there is one, else link-local. */
static const uint8_t *
nd_src(const struct hermon_arp *a)
{
	const struct hermon_port *port = &a->hd->port[a->port - 1];

	return port->ip6_gid_set ? a->hd->args.ip6 : port->gid;
}

static int
nd_send_ns(struct hermon_arp *a, const uint8_t *tgt)
{
	uint8_t *p = send_slot(a);
	int ret;

	if (p == NULL)
		return -ENOBUFS;
	ret = raw_post(a, p, hermon_nd_ns(p, a->hd->port[a->port - 1].mac, nd_src(a), tgt));
	if (ret == 0)
		a->st.nd_solicits++;
	return ret;
}

static void
nd_rx(struct hermon_arp *a, const struct hermon_nd_msg *m)
{
	struct rte_ether_addr ll;
	uint8_t *p;

	memcpy(ll.addr_bytes, m->lladdr, 6);
	if (m->type == HERMON_ND_NS) {
		/* for us, from a unicast address (not a DAD probe from ::) */
		if (!nd_ours(a, m->target) || m->src[0] == 0xff ||
		    memcmp(m->src, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16) == 0) {
			a->st.not_ours++;
			return;
		}
		/* the asker's option: a request (refreshes or answers our own) */
		if (m->has_lladdr)
			(void)prdma_neigh_input(&a->hd->neigh, m->src, 1, &ll, 1);
		p = send_slot(a);
		if (p != NULL &&
		    raw_post(a, p, hermon_nd_na(p, a->hd->port[a->port - 1].mac,
						m->has_lladdr ? m->lladdr : m->eth_src,
						m->target, m->src)) == 0)
			a->st.nd_answered++;
		return;
	}
	/* an NA to one of our addresses, telling its target's MAC */
	if (!nd_ours(a, m->dst) || !m->has_lladdr || nd_ours(a, m->target)) {
		a->st.not_ours++;
		return;
	}
	(void)prdma_neigh_input(&a->hd->neigh, m->target, 1, &ll, 0);
}

static void
arp_rx(struct hermon_arp *a, const uint8_t *p, uint32_t len)
{
	struct rte_ether_addr sha;
	struct hermon_nd_msg nd;
	uint16_t op;
	int ret;

	if (len < 42 || (p[12] << 8 | p[13]) != RTE_ETHER_TYPE_ARP ||
	    (p[14] << 8 | p[15]) != 1 || (p[16] << 8 | p[17]) != RTE_ETHER_TYPE_IPV4 ||
	    p[18] != 6 || p[19] != 4) {
		ret = hermon_nd_parse(p, len, &nd);
		if (ret < 0)
			a->st.nd_bad++;
		else if (ret > 0 && a->hd->args.has_ip6)
			nd_rx(a, &nd);
		else if (ret > 0)
			a->st.not_ours++;
		else
			a->st.not_arp++;
		return;
	}
	op = (uint16_t)(p[20] << 8 | p[21]);
	memcpy(sha.addr_bytes, p + 22, 6);
	/* only about us: a reply to us, or a request for our address */
	if (!a->hd->args.has_ip || (op != 1 && op != 2) ||
	    memcmp(p + 38, a->hd->args.ip, 4) != 0 ||
	    !rte_is_unicast_ether_addr(&sha) || rte_is_zero_ether_addr(&sha)) {
		a->st.not_ours++;
		return;
	}
	(void)prdma_neigh_input(&a->hd->neigh, p + 28, 0, &sha, op == 1);
	if (op == 1)
		(void)arp_send(a, 2, sha.addr_bytes, p + 28);
}

/* Drain the agent's CQ; the number of completions taken. */
static unsigned int
agent_step(struct hermon_arp *a)
{
	unsigned int n = 0;
	struct prdma_wc wc;

	while (hermon_poll_cq(&a->res.cq.pub, 1, &wc) == 1) {
		n++;
		if (wc.opcode != PRDMA_WC_RECV) {
			if (a->sends_out > 0)
				a->sends_out--;
			if (wc.status != PRDMA_WC_SUCCESS)
				a->broken = true;
			continue;
		}
		if (wc.status != PRDMA_WC_SUCCESS) {
			a->broken = true;
			continue;
		}
		a->st.received++;
		if (wc.wr_id < ARP_NRECV)
			arp_rx(a, hermon_agent_recv_slot(&a->res, (uint32_t)wc.wr_id),
			       wc.byte_len);
		if (wc.wr_id >= ARP_NRECV ||
		    hermon_agent_post_recv(&a->res, (uint32_t)wc.wr_id) < 0)
			a->broken = true;
	}
	return n;
}

static void *
arp_thread(void *arg)
{
	struct hermon_dev *hd = arg;

	while (!hd->arp_quit) {
		struct timespec ts = { 0, ARP_POLL_NS };
		unsigned int n = 0;
		uint8_t p;

		pthread_mutex_lock(&hd->arp_lock);
		for (p = 1; p <= HERMON_MAX_PORTS; p++) {
			struct hermon_arp *a = hd->arp[p - 1];

			if (a == NULL || hd->fatal)
				continue;
			n += agent_step(a);
			if (a->broken) {
				HERMON_LOG(WARNING, "%s: port %u: ARP agent's QP failed, "
					   "restarting it", hd->pdev->name, p);
				agent_free(a);
				hd->arp[p - 1] = agent_new(hd, p);
			}
		}
		pthread_mutex_unlock(&hd->arp_lock);
		if (n == 0)
			nanosleep(&ts, NULL);
	}
	return NULL;
}

int
hermon_arp_start(struct hermon_dev *hd)
{
	bool any = false;
	uint8_t p;
	int ret;

	pthread_mutex_lock(&hd->arp_lock);
	for (p = 1; p <= HERMON_MAX_PORTS; p++)
		if (port_wants_agent(hd, p)) {
			hd->arp[p - 1] = agent_new(hd, p);
			any |= hd->arp[p - 1] != NULL;
		}
	pthread_mutex_unlock(&hd->arp_lock);
	if (!any)
		return 0;
	hd->arp_quit = false;
	ret = rte_ctrl_thread_create(&hd->arp_thread, "hermon-arp", NULL, arp_thread, hd);
	if (ret != 0) {
		HERMON_LOG(ERR, "%s: no ARP thread: %s", hd->pdev->name, strerror(ret));
		hermon_arp_stop(hd);
		rte_errno = ret;
		return -ret;
	}
	hd->arp_thread_on = true;
	return 0;
}

void
hermon_arp_stop(struct hermon_dev *hd)
{
	uint8_t p;

	if (hd->arp_thread_on) {
		hd->arp_quit = true;
		pthread_join(hd->arp_thread, NULL);
		hd->arp_thread_on = false;
	}
	pthread_mutex_lock(&hd->arp_lock);
	for (p = 1; p <= HERMON_MAX_PORTS; p++)
		if (hd->arp[p - 1] != NULL) {
			agent_free(hd->arp[p - 1]);
			hd->arp[p - 1] = NULL;
		}
	pthread_mutex_unlock(&hd->arp_lock);
}

int
hermon_arp_solicit(void *ctx, const uint8_t *ip, int ipv6)
{
	struct hermon_dev *hd = ctx;
	bool any = false, sent = false;
	uint8_t p;

	/* an address family we have no address of cannot be asked from */
	if (ipv6 ? !hd->args.has_ip6 : !hd->args.has_ip)
		return -EHOSTUNREACH;
	pthread_mutex_lock(&hd->arp_lock);
	for (p = 1; p <= HERMON_MAX_PORTS; p++) {
		if (hd->arp[p - 1] == NULL)
			continue;
		any = true;
		sent |= (ipv6 ? nd_send_ns(hd->arp[p - 1], ip) :
			 arp_send(hd->arp[p - 1], 1, NULL, ip)) == 0;
	}
	pthread_mutex_unlock(&hd->arp_lock);
	/* no agent (no ip=, no Ethernet port up): nothing can ask; a queue
	 * that is full now is retried at the cache's next step */
	return !any ? -EHOSTUNREACH : sent ? 0 : -ENOBUFS;
}

uint32_t
hermon_arp_qpn(struct hermon_dev *hd, uint8_t port)
{
	uint32_t qpn = 0;

	if (port < 1 || port > HERMON_MAX_PORTS)
		return 0;
	pthread_mutex_lock(&hd->arp_lock);
	if (hd->arp[port - 1] != NULL)
		qpn = hd->arp[port - 1]->res.qp.qpn;
	pthread_mutex_unlock(&hd->arp_lock);
	return qpn;
}

int
hermon_arp_get_stats(struct hermon_dev *hd, uint8_t port, struct hermon_arp_stats *st)
{
	int ret = 0;

	if (port < 1 || port > HERMON_MAX_PORTS) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	pthread_mutex_lock(&hd->arp_lock);
	if (hd->arp[port - 1] != NULL)
		*st = hd->arp[port - 1]->st;
	else
		ret = -ENOENT;
	pthread_mutex_unlock(&hd->arp_lock);
	if (ret < 0)
		rte_errno = ENOENT;
	return ret;
}
