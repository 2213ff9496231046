/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The special QPs. CONF_SPECIAL_QP tells the firmware which 8-aligned
 * block of QPNs holds QP0 and QP1 of each port (Linux mlx4_init_qp_table
 * reserves it from the allocator and issues the command from
 * mlx4_setup_hca, before any port is initialised; iPXE hermon_start does
 * the same). The GSI QP (QP1) is an MLX QP: each send WQE carries the
 * whole packet header inline, built here, and the MAD by a gather entry;
 * the device adds the ICRC (Linux mlx4_ib build_mlx_header and its MLX
 * branch of mlx4_ib_post_send, iPXE hermon_fill_mlx_send_wqe). On an
 * Ethernet port the header is RoCE v1 (Ethernet, EtherType 0x8915, GRH,
 * BTH, DETH), the form every ConnectX-3 sends, or, from a RoCE v2 GID
 * of a device that reports RoCE v1/v2 (ConnectX-3 Pro firmware), RoCE v2
 * (Ethernet, IPv4 or IPv6, UDP 4791, BTH, DETH). On an
 * InfiniBand port QP0 (SMI) and QP1 send LRH, BTH, DETH (QP1 a GRH too
 * when its AH asks for one), QP0 on VL15. Received MADs land like any UD
 * datagram: the GRH (or the 40 bytes where it would be) first.
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_io.h>

#include "hermon_barrier.h"
#include "hermon_logs.h"
#include "hermon_mad_wire.h"
#include "hermon_obj.h"
#include "hermon_sqp_wire.h"

#define QPC(qp, f, v) HERMON_FILL(&(qp)->qpc, queue_pair_ee_context_entry, f, v)

int
hermon_sqp_conf(struct hermon_dev *hd)
{
	uint32_t base = RTE_ALIGN_CEIL(1u << hd->caps.log2_rsvd_qps, HERMON_SQP_ALIGN);
	int ret;

	ret = hermon_cmd_conf_special_qp(&hd->cmd, base);
	if (ret < 0) {
		HERMON_LOG(ERR, "%s: CONF_SPECIAL_QP(0x%x): %s", hd->pdev->name, base,
			   rte_strerror(rte_errno));
		return ret;
	}
	hd->sqp_base = base;
	return 0;
}

/* The block is the firmware's now: no ordinary QP may take its QPNs. */
void
hermon_sqp_reserve(struct hermon_dev *hd)
{
	uint32_t i;

	for (i = hd->sqp_base; hd->sqp_base != 0 && i < hd->sqp_base + HERMON_SQP_BLOCK &&
	     i < hd->qps.n; i++)
		hd->qps.bits[i / 64] |= RTE_BIT64(i % 64);
}

void
hermon_sqp_release(struct hermon_dev *hd)
{
	if (hd->sqp_base == 0)
		return;
	/* Linux mlx4_cleanup_qp_table: CONF_SPECIAL_QP(0) */
	(void)hermon_cmd_conf_special_qp(&hd->cmd, 0);
	hd->sqp_base = 0;
}

/* The slot of QP @wire of port @port (each port has one QP0 and one QP1). */
static struct hermon_qp **
sqp_slot(struct hermon_dev *hd, uint8_t wire, uint8_t port)
{
	return wire == 0 ? &hd->smi[port - 1] : &hd->gsi[port - 1];
}

int
hermon_sqp_claim(struct hermon_dev *hd, struct hermon_qp *qp, uint8_t wire)
{
	/* the agent names its port up front; anyone else starts on port 1 */
	uint8_t port = qp->sma_owned ? qp->gsi_port : 1;
	struct hermon_qp **slot = sqp_slot(hd, wire, port);

	if (hd->sqp_base == 0) {
		rte_errno = ENOTSUP;
		return -ENOTSUP;
	}
	/* an application's QP0 takes the port over from the PMD's agent */
	if (wire == 0 && !qp->sma_owned)
		hermon_sma_yield(hd, port);
	pthread_mutex_lock(&hd->ev_lock);
	if (*slot != NULL) {
		pthread_mutex_unlock(&hd->ev_lock);
		rte_errno = EBUSY;
		return -EBUSY;
	}
	*slot = qp;
	pthread_mutex_unlock(&hd->ev_lock);
	qp->mlx = true;
	qp->sqp_wire = wire;
	qp->gsi_port = port;
	qp->qpn = hermon_sqp_qpn(hd->sqp_base, port, wire);
	return 0;
}

/* Move a QP0/QP1 still in RESET to port @port's QPN. */
int
hermon_sqp_port(struct hermon_qp *qp, uint8_t port)
{
	struct hermon_dev *hd = qp->hd;
	uint32_t qpn;
	uint8_t old;

	if (port < 1 || port > hd->caps.num_ports || port > 2) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	/* only an InfiniBand port has subnet management (QP0) */
	if (qp->sqp_wire == 0 && hd->port[port - 1].type != HERMON_PORT_TYPE_IB) {
		rte_errno = ENOTSUP;
		return -ENOTSUP;
	}
	if (port == qp->gsi_port)
		return 0;
	if (qp->pub.state != PRDMA_QPS_RESET) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	qpn = hermon_sqp_qpn(hd->sqp_base, port, qp->sqp_wire);
	if (qp->sqp_wire == 0 && !qp->sma_owned)
		hermon_sma_yield(hd, port);
	pthread_mutex_lock(&hd->ev_lock);
	if (*sqp_slot(hd, qp->sqp_wire, port) != NULL) {
		pthread_mutex_unlock(&hd->ev_lock);
		rte_errno = EBUSY;
		return -EBUSY;
	}
	*sqp_slot(hd, qp->sqp_wire, qp->gsi_port) = NULL;
	*sqp_slot(hd, qp->sqp_wire, port) = qp;
	if (hd->qp_table[qp->qpn] == qp)
		hd->qp_table[qp->qpn] = NULL;
	hd->qp_table[qpn] = qp;
	pthread_mutex_unlock(&hd->ev_lock);
	old = qp->gsi_port;
	qp->gsi_port = port;
	qp->qpn = qpn;
	qp->db_val = rte_cpu_to_be_32(qpn << 8);
	QPC(qp, local_qpn_een, qpn);
	/* the port it left gets its agent back */
	if (qp->sqp_wire == 0 && !qp->sma_owned)
		hermon_sma_resume(hd, old);
	return 0;
}

void
hermon_sqp_free(struct hermon_qp *qp)
{
	struct hermon_dev *hd = qp->hd;
	bool freed = false;

	pthread_mutex_lock(&hd->ev_lock);
	if (qp->gsi_port >= 1 && qp->gsi_port <= 2 &&
	    *sqp_slot(hd, qp->sqp_wire, qp->gsi_port) == qp) {
		*sqp_slot(hd, qp->sqp_wire, qp->gsi_port) = NULL;
		freed = true;
	}
	pthread_mutex_unlock(&hd->ev_lock);
	/* an application's QP0 is gone: the PMD's agent answers again */
	if (freed && qp->sqp_wire == 0 && !qp->sma_owned)
		hermon_sma_resume(hd, qp->gsi_port);
}

/* The inline header's place: chunks never cross a 64-byte boundary. */
static uint32_t
hdr_end(uint32_t start, uint32_t n)
{
	uint32_t off = start;

	while (n > 0) {
		uint32_t room = 64 - ((off + 4) & 63), k = RTE_MIN(n, room);

		off += 4 + k;
		n -= k;
	}
	return RTE_ALIGN_CEIL(off, 16);
}

uint32_t
hermon_sqp_wqe_bytes(uint32_t sge)
{
	return hdr_end(16, HERMON_SQP_MAX_HLEN) + 16 * sge;
}

/* Write @n header bytes as inline chunks from byte @off; the end offset. */
static uint32_t
put_hdr(uint8_t *w, uint32_t off, const uint8_t *h, uint32_t n)
{
	while (n > 0) {
		uint32_t room = 64 - ((off + 4) & 63), k = RTE_MIN(n, room);

		/* the bytes, then the chunk's header (the prefetcher must not
		 * see a valid header before its data: rdma-core set_inline) */
		memcpy(w + off + 4, h, k);
		rte_io_wmb();
		*(rte_be32_t *)(w + off) = rte_cpu_to_be_32(RTE_BIT32(31) | k);
		off += 4 + k;
		h += k;
		n -= k;
	}
	return RTE_ALIGN_CEIL(off, 16);
}

/*
 * The headers sit at the Ethernet header's odd offsets: every field goes
 * in byte by byte (hermon_mad_put16/32), never by an aligned store.
 */
#define hdr_put16 hermon_mad_put16
#define hdr_put32 hermon_mad_put32

/*
 * BTH + DETH of a UD SEND from special QP @src_qp (IBA 9.2, 9.3), the same
 * for both framings.
 */
static void
put_bth_deth(struct hermon_qp *qp, const struct prdma_send_wr *wr, uint32_t pad,
	     uint32_t src_qp, uint8_t *b)
{
	uint8_t *d = b + HERMON_BTH_LEN;
	uint32_t qkey = wr->wr.ud.remote_qkey;

	b[0] = HERMON_BTH_UD_SEND_ONLY;
	b[1] = (uint8_t)(((wr->send_flags & PRDMA_SEND_SOLICITED) ? 0x80 : 0) | pad << 4);
	hdr_put16(b + 2, HERMON_DEFAULT_PKEY);
	hdr_put32(b + 4, wr->wr.ud.remote_qpn & 0xffffff);
	hdr_put32(b + 8, qp->mlx_psn++ & 0xffffff);
	/* a Q_Key with the MSB set means the QP's own (IBA 10.2.5) */
	if (qkey & RTE_BIT32(31))
		qkey = qp->attr.qkey;
	hdr_put32(d, qkey);
	hdr_put32(d + 4, src_qp);
}

/* The IPv4 header checksum (RFC 791), which Linux computes for QP1 in
 * software (ib_ud_ip4_csum): the MLX WQE carries the header as built. */
static uint16_t
ip4_csum(const uint8_t *ip)
{
	uint32_t sum = 0, i;

	for (i = 0; i < HERMON_IPV4_HLEN; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * The RoCE v2 network and UDP headers at @n of one MAD to @at from @sgid
 * (IBA A17.4; Linux build_mlx_header with a RoCE v2 source GID): IPv4 when
 * the SGID is IPv4-mapped (TOS the traffic class, ID 0, DF, TTL the hop
 * limit, the checksum filled in), else IPv6 in the GRH's place with next
 * header UDP; UDP from port 0xc000 (Linux MLX4_ROCEV2_QP1_SPORT) to 4791,
 * checksum 0. The lengths count what is on the wire: BTH, DETH, the
 * payload with its pad, the ICRC (Linux leaves the pad out of the IPv4
 * and UDP lengths; a MAD, 256 bytes, has none). Returns the UDP header.
 */
static uint8_t *
put_v2_net(const struct prdma_ah_attr *at, const uint8_t sgid[16], bool v4, uint32_t l4,
	   uint8_t *n)
{
	uint8_t *u = n + (v4 ? HERMON_IPV4_HLEN : HERMON_GRH_LEN);
	uint8_t hop = at->hop_limit != 0 ? at->hop_limit : 64;

	if (v4) {
		n[0] = 0x45;
		n[1] = at->traffic_class;
		hdr_put16(n + 2, (uint16_t)(HERMON_IPV4_HLEN + HERMON_UDP_HLEN + l4));
		hdr_put16(n + 4, 0);
		hdr_put16(n + 6, 0x4000);          /* DF */
		n[8] = hop;
		n[9] = HERMON_IPPROTO_UDP;
		hdr_put16(n + 10, 0);
		memcpy(n + 12, sgid + 12, 4);
		memcpy(n + 16, at->dgid.raw + 12, 4);
		hdr_put16(n + 10, ip4_csum(n));
	} else {
		hdr_put32(n, 6u << 28 | (uint32_t)at->traffic_class << 20 |
			  (at->flow_label & 0xfffff));
		hdr_put16(n + 4, (uint16_t)(HERMON_UDP_HLEN + l4));
		n[6] = HERMON_IPPROTO_UDP;
		n[7] = hop;
		memcpy(n + 8, sgid, 16);
		memcpy(n + 24, at->dgid.raw, 16);
	}
	hdr_put16(u, HERMON_ROCE_V2_QP1_SPORT);
	hdr_put16(u + 2, HERMON_ROCE_V2_DPORT);
	hdr_put16(u + 4, (uint16_t)(HERMON_UDP_HLEN + l4));
	hdr_put16(u + 6, 0);
	return u;
}

static bool
gid_v4_mapped(const uint8_t g[16])
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(g, pfx, sizeof(pfx)) == 0;
}

/*
 * The RoCE header of one MAD to @ah: its source GID's type picks the
 * framing, as Linux build_mlx_header does by the sgid's gid_type. RoCE v1
 * (IBA A16.4, 9.2, 9.3): Ethernet (0x8915), GRH, BTH, DETH; RoCE v2 (a v2
 * entry of a RoCE v1/v2 device's table): Ethernet (0x0800 or 0x86dd),
 * IPv4 or IPv6, UDP, BTH, DETH. *hlen gets its length.
 */
static int
build_roce_hdr(struct hermon_qp *qp, const struct prdma_send_wr *wr, uint32_t len,
	       uint8_t h[HERMON_SQP_MAX_HLEN], uint32_t *hlen)
{
	const struct hermon_ah *ah = (const struct hermon_ah *)wr->wr.ud.ah;
	const struct prdma_ah_attr *at = &ah->pub.attr;
	const struct hermon_port *port = &qp->hd->port[qp->gsi_port - 1];
	uint8_t *g = h + HERMON_ETH_HLEN, *b;
	uint32_t pad = (4 - len) & 3, v, idx = at->sgid_index, l4, type;
	static const uint8_t zero[6];
	const uint8_t *sgid;
	bool v2 = false, v4 = false;

	/* a RoCE v1/v2 table: 0 and 1 are v2, 2 and 3 the same as v1 */
	if (port->roce_v2 && idx < 4) {
		v2 = idx < 2;
		idx &= 1;
	} else if (port->roce_v2 && (idx == 4 || idx == 5)) {
		v2 = idx == 4;             /* ip6=: 4 as v2, 5 as v1 */
		idx = 2;
	}
	if (idx == 0 && port->gid_set)
		sgid = port->gid;
	else if (idx == 1 && port->ip_gid_set)
		sgid = port->ip_gid;
	else if (idx == 2 && port->ip6_gid_set)
		sgid = qp->hd->args.ip6;
	else
		return EINVAL;
	/* no DMAC, no frame (the AH resolves it: hermon_l2_dmac) */
	if (memcmp(ah->l2 + 2, zero, 6) == 0)
		return EHOSTUNREACH;
	if (v2) {
		v4 = gid_v4_mapped(sgid);
		/* IPv4 goes to IPv4 only */
		if (v4 != gid_v4_mapped(at->dgid.raw))
			return EINVAL;
	}
	memcpy(h, ah->l2 + 2, 6);
	memcpy(h + 6, port->mac, 6);
	type = !v2 ? HERMON_ETHERTYPE_ROCE : v4 ? HERMON_ETHERTYPE_IPV4 : HERMON_ETHERTYPE_IPV6;
	h[12] = (uint8_t)(type >> 8);
	h[13] = (uint8_t)(type & 0xff);
	l4 = HERMON_BTH_LEN + HERMON_DETH_LEN + len + pad + HERMON_ICRC_LEN;
	if (v2) {
		b = put_v2_net(at, sgid, v4, l4, g) + HERMON_UDP_HLEN;
		*hlen = v4 ? HERMON_SQP_V2_IP4_HLEN : HERMON_SQP_V2_IP6_HLEN;
	} else {
		b = g + HERMON_GRH_LEN;
		memcpy(g + 8, sgid, 16);
		v = 6u << 28 | (uint32_t)at->traffic_class << 20 | (at->flow_label & 0xfffff);
		hdr_put32(g, v);
		hdr_put16(g + 4, (uint16_t)l4);
		g[6] = HERMON_GRH_NXT_BTH;
		g[7] = at->hop_limit != 0 ? at->hop_limit : 64;
		memcpy(g + 24, at->dgid.raw, 16);
		*hlen = HERMON_SQP_ROCE_HLEN;
	}
	/* the source QP on the wire is 1, whatever QPN the block gave it */
	put_bth_deth(qp, wr, pad, 1, b);
	return 0;
}

/*
 * The IB header of one SMP/GMP to @ah (IBA 7.7, 8.3, 9.2, 9.3, Linux
 * build_mlx_header's IB branch): QP0 on VL15, QP1 on VL0; to the
 * permissive DLID the SLID is permissive too (and the WQE says SLR), else
 * the device puts the port's LID in. A QP1 MAD whose AH asks for a GRH
 * (PRDMA_AH_F_GLOBAL) carries one (LNH 3: SGID the port's GID 0 as read
 * at probe, the AH's DGID, class, flow label and hop limit); SMPs never
 * do. *flags gets MLX control dword 2's VL15/SLR/SL bits, *hlen the
 * header's length.
 */
static int
build_ib_hdr(struct hermon_qp *qp, const struct prdma_send_wr *wr, uint32_t len,
	     uint8_t h[HERMON_SQP_IB_GRH_HLEN], uint32_t *flags, uint32_t *hlen)
{
	const struct hermon_ah *ah = (const struct hermon_ah *)wr->wr.ud.ah;
	const struct prdma_ah_attr *at = &ah->pub.attr;
	const struct hermon_port *port = &qp->hd->port[qp->gsi_port - 1];
	bool smi = qp->sqp_wire == 0;
	bool grh = !smi && (at->flags & PRDMA_AH_F_GLOBAL) != 0;
	uint8_t *g = h + HERMON_LRH_LEN, *b = g + (grh ? HERMON_GRH_LEN : 0);
	uint32_t pad = (4 - len) & 3;
	uint16_t dlid = at->dlid;

	if (dlid == 0)
		return EHOSTUNREACH;
	*hlen = HERMON_SQP_IB_HLEN + (grh ? HERMON_GRH_LEN : 0);
	if (grh) {
		if (at->sgid_index != 0 || !port->gid_set)
			return EINVAL;
		hdr_put32(g, 6u << 28 | (uint32_t)at->traffic_class << 20 |
			  (at->flow_label & 0xfffff));
		/* PayLen: BTH through the ICRC, the payload padded (IBA 8.3.1) */
		hdr_put16(g + 4, (uint16_t)(RTE_ALIGN_CEIL(HERMON_BTH_LEN + HERMON_DETH_LEN +
							   len, 4) + HERMON_ICRC_LEN));
		g[6] = HERMON_GRH_NXT_BTH;
		g[7] = at->hop_limit != 0 ? at->hop_limit : 64;
		memcpy(g + 8, port->gid, 16);
		memcpy(g + 24, at->dgid.raw, 16);
	}
	h[0] = (uint8_t)((smi ? HERMON_VL_SMI : 0) << 4);
	h[1] = (uint8_t)((at->sl & 0xf) << 4 |
			 (grh ? HERMON_LRH_LNH_IBA_GLOBAL : HERMON_LRH_LNH_IBA_LOCAL));
	hdr_put16(h + 2, dlid);
	hdr_put16(h + 4, (uint16_t)((*hlen + len + pad + HERMON_ICRC_LEN) / 4));
	hdr_put16(h + 6, dlid == HERMON_LID_PERMISSIVE ? HERMON_LID_PERMISSIVE : 0);
	put_bth_deth(qp, wr, pad, qp->sqp_wire, b);
	*flags = (smi ? HERMON_MLX_VL15 : 0) |
		(dlid == HERMON_LID_PERMISSIVE ? HERMON_MLX_SLR : 0) |
		(uint32_t)(at->sl & 0xf) << 8;
	return 0;
}

static int
post_one(struct hermon_qp *qp, const struct prdma_send_wr *wr, uint32_t head)
{
	uint8_t h[HERMON_SQP_MAX_HLEN];    /* the longest header */
	RTE_BUILD_BUG_ON(HERMON_SQP_IB_GRH_HLEN > HERMON_SQP_MAX_HLEN);
	uint32_t off, len = 0, i, c, flags = 0, rlid = 0, hlen = 0;
	bool ib = qp->hd->port[qp->gsi_port - 1].type == HERMON_PORT_TYPE_IB;
	uint8_t *w;
	int err;

	if (head - qp->sq_tail >= qp->sq_cap)
		return ENOMEM;
	if (wr->opcode != PRDMA_WR_SEND || wr->wr.ud.ah == NULL ||
	    wr->num_sge > qp->max_send_sge || (wr->send_flags & PRDMA_SEND_INLINE))
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (ib) {
		err = build_ib_hdr(qp, wr, len, h, &flags, &hlen);
		rlid = ((const struct hermon_ah *)wr->wr.ud.ah)->pub.attr.dlid;
	} else if (qp->sqp_wire == 1) {
		err = build_roce_hdr(qp, wr, len, h, &hlen);
	} else {
		err = ENOTSUP;
	}
	if (err != 0)
		return err;
	w = qp->sq + ((head & qp->sq_mask) << qp->sq_shift);
	off = put_hdr(w, 16, h, hlen);
	for (i = 0; i < wr->num_sge; i++, off += 16) {
		const struct prdma_sge *sg = &wr->sg_list[i];

		*(rte_be32_t *)(w + off + 4) = rte_cpu_to_be_32(sg->lkey);
		*(rte_be64_t *)(w + off + 8) = rte_cpu_to_be_64(sg->addr);
		/* the byte count after the rest (rdma-core set_data_seg) */
		rte_io_wmb();
		*(rte_be32_t *)(w + off) = rte_cpu_to_be_32(sg->length != 0 ?
							    sg->length : RTE_BIT32(31));
	}
	/* MLX control: DS; C (CQE) in dword 2 bits 3:2, ICRC bit 4 clear:
	 * the device computes it (iPXE icrc = 0); on IB VL15/SLR/SL and the
	 * DLID in dword 3 (Linux build_mlx_header), on Ethernet SL 0 */
	c = (wr->send_flags & PRDMA_SEND_SIGNALED) || qp->sig_all != 0 ? 3u << 2 : 0;
	*(rte_be32_t *)(w + 4) = rte_cpu_to_be_32(off >> 4);
	*(rte_be32_t *)(w + 8) = rte_cpu_to_be_32(c | flags);
	*(rte_be32_t *)(w + 12) = rte_cpu_to_be_32(rlid << 16);
	qp->sq_wrid[head & qp->sq_mask] = wr->wr_id;
	hermon_barrier_wqe_before_owner();
	*(rte_be32_t *)w = rte_cpu_to_be_32(((head >> qp->sq_log) & 1 ? RTE_BIT32(31) : 0) |
					    HERMON_WQE_SEND);
	return 0;
}

int
hermon_sqp_post_send(struct hermon_qp *qp, const struct prdma_send_wr *wr,
		     const struct prdma_send_wr **bad_wr)
{
	uint32_t head = qp->sq_head;
	int err = 0;

	if (qp->pub.state < PRDMA_QPS_RTS) {
		*bad_wr = wr;
		rte_errno = EBADMSG;
		return -EBADMSG;
	}
	for (; wr != NULL; wr = wr->next) {
		err = post_one(qp, wr, head);
		if (err != 0)
			break;
		head++;
	}
	if (head != qp->sq_head) {
		qp->sq_head = head;
		hermon_barrier_wqe_before_doorbell();
		rte_write32_relaxed(qp->db_val, qp->uar_db);
	}
	if (err != 0) {
		*bad_wr = wr;
		rte_errno = err;
		return -err;
	}
	return 0;
}
