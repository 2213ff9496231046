/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * UD multicast. A RoCEv2 multicast GID is an IP multicast address (an
 * IPv4-mapped 224.0.0.0/4 address or ff00::/8), so a datagram to a group is
 * an ordinary RoCE frame sent to that IP and to its Ethernet group MAC, with
 * DestQP 0xFFFFFF; the receiver hands one copy to every QP of its own that
 * joined the group, each consuming its own receive WQE and checking its own
 * Q_Key. The group table changes on the control path with the engine flag
 * held, so the engine reads it without a lock of its own.
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "roce.h"

#define IGMP_PROTO          2
#define IGMP_V2_REPORT      0x16
#define IGMP_LEAVE          0x17
#define IGMP_ALL_ROUTERS    0xe0000002u   /* 224.0.0.2 */
#define MLD_V2_REPORT       143
#define MLD_TO_INCLUDE      3             /* leave: include no source */
#define MLD_TO_EXCLUDE      4             /* join: exclude no source */
#define IPPROTO_HOPOPTS_    0
#define IPPROTO_ICMPV6_     58

static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
/* ff02::16, all MLDv2-capable routers. */
static const uint8_t mld_routers[16] = { 0xff, 0x02, [15] = 0x16 };

static int
gid_is_v4(const union prdma_gid *gid)
{
	return memcmp(gid->raw, v4mapped, sizeof(v4mapped)) == 0;
}

void
roce_mcast_mac(const union prdma_gid *gid, struct rte_ether_addr *mac)
{
	uint8_t *m = mac->addr_bytes;

	if (gid_is_v4(gid)) {
		m[0] = 0x01;
		m[1] = 0x00;
		m[2] = 0x5e;
		m[3] = gid->raw[13] & 0x7f;
		m[4] = gid->raw[14];
		m[5] = gid->raw[15];
	} else {
		m[0] = 0x33;
		m[1] = 0x33;
		memcpy(m + 2, &gid->raw[12], 4);
	}
}

static struct roce_mcast_grp *
grp_find(struct roce_mcast *mc, const union prdma_gid *gid)
{
	unsigned int i;

	if (mc->nb_grp == 0)
		return NULL;
	for (i = 0; i < ROCE_MCAST_MAX_GRP; i++)
		if (mc->grp[i].nb_qp != 0 &&
		    memcmp(mc->grp[i].gid.raw, gid->raw, sizeof(gid->raw)) == 0)
			return &mc->grp[i];
	return NULL;
}

static int
grp_index_of(const struct roce_mcast_grp *g, const struct roce_qp *qp)
{
	unsigned int i;

	for (i = 0; i < g->nb_qp; i++)
		if (g->qp[i] == qp)
			return (int)i;
	return -1;
}

/* ---------------------------------------------------------------------- */
/* Membership reports                                                      */
/* ---------------------------------------------------------------------- */

static uint16_t
cksum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* IGMPv2 report (join) or leave, with the Router Alert option (RFC 2236). */
static uint32_t
igmp_build(const struct roce_dev *dev, const union prdma_gid *gid, int join,
	   uint8_t *p)
{
	struct rte_ether_addr dmac;
	uint8_t *ip = p + ROCE_ETH_LEN, *igmp = ip + 24;
	uint32_t dst;
	uint16_t sum;
	union prdma_gid dgid;

	if (join) {
		dgid = *gid;
	} else {
		memset(&dgid, 0, sizeof(dgid));
		memcpy(dgid.raw, v4mapped, sizeof(v4mapped));
		dst = rte_cpu_to_be_32(IGMP_ALL_ROUTERS);
		memcpy(&dgid.raw[12], &dst, 4);
	}
	roce_mcast_mac(&dgid, &dmac);
	memcpy(p, dmac.addr_bytes, 6);
	memcpy(p + 6, dev->mac.addr_bytes, 6);
	roce_put16(p + 12, RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, 24 + 8);
	ip[0] = 0x46;                               /* IHL 6: one option word */
	ip[1] = 0xc0;                               /* internetwork control */
	roce_put16(ip + 2, 24 + 8);
	ip[8] = 1;                                  /* TTL: link local */
	ip[9] = IGMP_PROTO;
	memcpy(ip + 12, dev->ip, 4);
	memcpy(ip + 16, &dgid.raw[12], 4);
	ip[20] = 0x94;                              /* Router Alert, length 4 */
	ip[21] = 0x04;
	/* One's-complement sums come out right in either byte order as long
	 * as they are stored the way they were read. */
	sum = cksum_fold(rte_raw_cksum(ip, 24));
	memcpy(ip + 10, &sum, 2);
	igmp[0] = join ? IGMP_V2_REPORT : IGMP_LEAVE;
	memcpy(igmp + 4, &gid->raw[12], 4);
	sum = cksum_fold(rte_raw_cksum(igmp, 8));
	memcpy(igmp + 2, &sum, 2);
	return ROCE_ETH_LEN + 24 + 8;
}

/* MLDv2 report with one record (RFC 3810): CHANGE_TO_EXCLUDE({}) to join,
 * CHANGE_TO_INCLUDE({}) to leave. */
static uint32_t
mld_build(const struct roce_dev *dev, const union prdma_gid *gid, int join,
	  uint8_t *p)
{
	uint8_t *ip = p + ROCE_ETH_LEN, *hbh = ip + ROCE_IPV6_LEN, *icmp = hbh + 8;
	const uint32_t icmp_len = 8 + 20;
	uint8_t pseudo[40];
	uint16_t c;
	uint32_t sum;

	p[0] = 0x33;
	p[1] = 0x33;
	memcpy(p + 2, &mld_routers[12], 4);
	memcpy(p + 6, dev->mac.addr_bytes, 6);
	roce_put16(p + 12, RTE_ETHER_TYPE_IPV6);
	memset(ip, 0, ROCE_IPV6_LEN + 8 + icmp_len);
	roce_put32(ip, 6u << 28);
	roce_put16(ip + 4, (uint16_t)(8 + icmp_len));
	ip[6] = IPPROTO_HOPOPTS_;
	ip[7] = 1;                                  /* hop limit: link local */
	memcpy(ip + 8, dev->ip, 16);
	memcpy(ip + 24, mld_routers, 16);
	hbh[0] = IPPROTO_ICMPV6_;
	hbh[2] = 0x05;                              /* Router Alert: MLD */
	hbh[3] = 0x02;
	hbh[6] = 0x01;                              /* PadN, 0 bytes */
	icmp[0] = MLD_V2_REPORT;
	roce_put16(icmp + 6, 1);                    /* one record */
	icmp[8] = join ? MLD_TO_EXCLUDE : MLD_TO_INCLUDE;
	memcpy(icmp + 12, gid->raw, 16);
	memcpy(pseudo, ip + 8, 32);
	roce_put32(pseudo + 32, icmp_len);
	roce_put32(pseudo + 36, IPPROTO_ICMPV6_);
	sum = rte_raw_cksum(pseudo, sizeof(pseudo));
	sum += rte_raw_cksum(icmp, icmp_len);
	c = cksum_fold(sum);
	memcpy(icmp + 2, &c, 2);
	return ROCE_ETH_LEN + ROCE_IPV6_LEN + 8 + icmp_len;
}

/* Tell the kernel's and the switches' snooping that we joined or left.
 * Called with the engine flag held: the engine is the port's only other
 * transmitter. A report that cannot be sent is logged, not fatal: the
 * group still works where nothing filters. */
static void
mcast_report(struct roce_dev *dev, const union prdma_gid *gid, int join)
{
	struct rte_mbuf *m;
	uint32_t len;
	uint8_t *p;

	if (!dev->cfg.igmp)
		return;
	m = rte_pktmbuf_alloc(dev->mp);
	if (m == NULL) {
		ROCE_LOG(WARNING, "%s: no mbuf for a membership report", dev->pdev->name);
		return;
	}
	p = rte_pktmbuf_mtod(m, uint8_t *);
	len = gid_is_v4(gid) ? igmp_build(dev, gid, join, p) : mld_build(dev, gid, join, p);
	if (len < ROCE_MIN_FRAME) {
		memset(p + len, 0, ROCE_MIN_FRAME - len);
		len = ROCE_MIN_FRAME;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	if (dev->pcap != NULL)
		roce_pcap_write(dev->pcap, m);
	if (rte_eth_tx_burst(dev->port_id, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		ROCE_LOG(WARNING, "%s: membership report not sent (port busy)",
			 dev->pdev->name);
		return;
	}
	dev->mcast.st.reports++;
}

/* ---------------------------------------------------------------------- */
/* Control path                                                            */
/* ---------------------------------------------------------------------- */

int
roce_mcast_attach(struct prdma_qp *pqp, const union prdma_gid *gid)
{
	struct roce_qp *qp = (struct roce_qp *)pqp;
	struct roce_dev *dev = qp->rdev;
	struct roce_mcast *mc = &dev->mcast;
	struct roce_mcast_grp *g;
	unsigned int i;
	int ret = 0;

	if (gid_is_v4(gid) == dev->ipv6) {
		ROCE_LOG(ERR, "%s: multicast group is %s but the device address is %s",
			 dev->pdev->name, dev->ipv6 ? "IPv4" : "IPv6",
			 dev->ipv6 ? "IPv6" : "IPv4");
		return -EINVAL;
	}
	roce_engine_lock(dev);
	g = grp_find(mc, gid);
	if (g != NULL && grp_index_of(g, qp) >= 0) {
		ret = -EEXIST;
	} else if (mc->nb_total >= ROCE_MCAST_MAX_TOTAL) {
		ret = -ENOSPC;
	} else if (g != NULL) {
		if (g->nb_qp >= ROCE_MCAST_MAX_QP_ATTACH)
			ret = -ENOSPC;
		else
			g->qp[g->nb_qp++] = qp;
	} else if (mc->nb_grp >= ROCE_MCAST_MAX_GRP) {
		ret = -ENOSPC;
	} else {
		for (i = 0; i < ROCE_MCAST_MAX_GRP && mc->grp[i].nb_qp != 0; i++)
			;
		g = &mc->grp[i];
		g->gid = *gid;
		g->qp[0] = qp;
		g->nb_qp = 1;
		mc->nb_grp++;
		mcast_report(dev, gid, 1);
	}
	if (ret == 0)
		mc->nb_total++;
	roce_engine_unlock(dev);
	return ret;
}

/* Remove entry @idx of @g (engine flag held). */
static void
grp_remove(struct roce_dev *dev, struct roce_mcast_grp *g, unsigned int idx)
{
	struct roce_mcast *mc = &dev->mcast;

	g->qp[idx] = g->qp[--g->nb_qp];
	g->qp[g->nb_qp] = NULL;
	mc->nb_total--;
	if (g->nb_qp == 0) {
		mc->nb_grp--;
		mcast_report(dev, &g->gid, 0);
	}
}

int
roce_mcast_detach(struct prdma_qp *pqp, const union prdma_gid *gid)
{
	struct roce_qp *qp = (struct roce_qp *)pqp;
	struct roce_dev *dev = qp->rdev;
	struct roce_mcast_grp *g;
	int idx, ret = -ENOENT;

	roce_engine_lock(dev);
	g = grp_find(&dev->mcast, gid);
	idx = g != NULL ? grp_index_of(g, qp) : -1;
	if (idx >= 0) {
		grp_remove(dev, g, (unsigned int)idx);
		ret = 0;
	}
	roce_engine_unlock(dev);
	return ret;
}

void
roce_mcast_qp_gone(struct roce_dev *dev, struct roce_qp *qp)
{
	struct roce_mcast *mc = &dev->mcast;
	unsigned int i;
	int idx;

	if (mc->nb_grp == 0)
		return;
	for (i = 0; i < ROCE_MCAST_MAX_GRP; i++) {
		if (mc->grp[i].nb_qp == 0)
			continue;
		idx = grp_index_of(&mc->grp[i], qp);
		if (idx >= 0)
			grp_remove(dev, &mc->grp[i], (unsigned int)idx);
	}
}

/* ---------------------------------------------------------------------- */
/* Engine                                                                  */
/* ---------------------------------------------------------------------- */

/* relaxed: with several engines each may count here, none reads */
#define MC_COUNT(mc, f, n) __atomic_fetch_add(&(mc)->st.f, (n), __ATOMIC_RELAXED)

/*
 * Several engines: engine 0 receives every group frame (roce_engine.c),
 * delivers it to the members it owns and hands the frame (one more
 * reference, not a copy) to each other engine that owns a member; those
 * deliver to theirs. Each member QP is thus served only by its engine.
 */
static void
mcast_fan_out(struct roce_eng *e, struct rte_mbuf *m, const struct roce_mcast_grp *g)
{
	struct roce_dev *dev = e->dev;
	uint32_t want = 0, j;
	unsigned int i;

	for (i = 0; i < g->nb_qp; i++)
		want |= RTE_BIT32(g->qp[i]->eng->idx);
	for (j = 1; j < dev->nb_eng; j++) {
		if ((want & RTE_BIT32(j)) == 0)
			continue;
		rte_mbuf_refcnt_update(m, 1);
		roce_eng_handoff(e, j, m);
	}
}

int
roce_mcast_rx(struct roce_eng *e, struct rte_mbuf *m, struct roce_pkt *pkt)
{
	struct roce_dev *dev = e->dev;
	struct roce_mcast *mc = &dev->mcast;
	struct roce_mcast_grp *g;
	union prdma_gid gid;
	unsigned int i, n = 0;

	if (pkt->ipv6) {
		if (pkt->dst_ip[0] != 0xff)
			return 0;
		memcpy(gid.raw, pkt->dst_ip, 16);
	} else {
		if ((pkt->dst_ip[0] & 0xf0) != 0xe0)
			return 0;
		memcpy(gid.raw, v4mapped, sizeof(v4mapped));
		memcpy(&gid.raw[12], pkt->dst_ip, 4);
	}
	/* a frame handed on by engine 0 was counted and checked there */
	if (e->idx == 0) {
		e->st.dev[PRDMA_DEV_CNT_RDMA_IN_FRAMES]++;
		e->st.dev[PRDMA_DEV_CNT_RDMA_IN_OCTETS] += pkt->roce_len;
	}
	/* Only UD datagrams go to groups, and only to DestQP 0xFFFFFF. */
	if ((pkt->bth.opcode & ROCE_TR_MASK) != ROCE_TR_UD ||
	    pkt->bth.dqpn != ROCE_MCAST_QPN || pkt->ipv6 != dev->ipv6 ||
	    (pkt->bth.pkey & ROCE_PKEY_MASK) != ROCE_PKEY_MASK) {
		MC_COUNT(mc, bad_dqpn, 1);
		e->st.dev[PRDMA_DEV_CNT_MALFORMED_DROPS]++;
		return 1;
	}
	if (!dev->cfg.mcast_loop &&
	    memcmp(pkt->src_ip, dev->ip, dev->ipv6 ? 16 : 4) == 0) {
		MC_COUNT(mc, own_dropped, 1);
		return 1;
	}
	g = grp_find(mc, &gid);
	if (g == NULL) {
		MC_COUNT(mc, no_group, 1);
		return 1;
	}
	if (unlikely(dev->nb_eng > 1) && e->idx == 0)
		mcast_fan_out(e, m, g);
	/* Each QP applies its own Q_Key and takes its own receive WQE. */
	for (i = 0; i < g->nb_qp; i++) {
		if (g->qp[i]->eng != e)
			continue;
		roce_resp_rx(g->qp[i], pkt);
		n++;
	}
	MC_COUNT(mc, delivered, n);
	return 1;
}

void
roce_mcast_tx_loop(struct roce_eng *e, struct rte_mbuf *m)
{
	struct roce_dev *dev = e->dev;
	struct rte_mbuf *c;

	if (!dev->cfg.mcast_loop || dev->mcast.nb_grp == 0)
		return;
	c = rte_pktmbuf_copy(m, dev->mp, 0, UINT32_MAX);
	if (c == NULL) {
		e->st.drop.tx_no_mbuf++;
		return;
	}
	if (rte_ring_sp_enqueue(e->loop, c) != 0) {
		rte_pktmbuf_free(c);    /* a full loop ring is a lost frame */
		return;
	}
	MC_COUNT(&dev->mcast, looped, 1);
}
