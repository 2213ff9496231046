/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The special QPs: CONF_SPECIAL_QP, which gives the firmware the 8-aligned
 * block of QPNs whose first four are QP0 and QP1 of each port, and the MLX
 * WQEs those QPs send. An MLX WQE carries the packet's headers inline,
 * built by the driver (Linux mlx4_ib build_mlx_header, iPXE
 * hermon_fill_mlx_send_wqe), then the payload by gather entries; the
 * device adds only the ICRC. The model puts the frame on its wire and the
 * receiving port parses it as a card would: a RoCE v1 (EtherType 0x8915)
 * or, on RoCE v2 firmware (conf.rocev2, ConnectX-3 Pro), RoCE v2 (IPv4 or
 * IPv6, UDP to 4791) UD SEND whose BTH DestQP is 1 reaches that port's GSI
 * QP, with the GRH in the first 40 bytes of the receive buffer (for RoCE
 * v2 over IPv4: 20 undefined bytes, then the IPv4 header, where Linux
 * ib_get_rdma_header_version looks for it). What no port would take is a
 * counted drop at the port the DMAC names (a malformed RoCE v2 frame also
 * in rocev2_bad); a WQE the device cannot send completes in error. On an
 * InfiniBand port the frame is LRH-framed (hm_mlx_exec_ib).
 */

#include <string.h>

#include <rte_byteorder.h>

#include "hermon_model_exec.h"
#include "../hermon_mad_wire.h"

static uint32_t
be16_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t
be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint8_t
hm_sqp_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled)
{
	uint32_t base = c->in_mod & 0xffffff, i;

	if (c->opcode != HERMON_CMD_CONF_SPECIAL_QP)
		return HERMON_STAT_OK;
	*handled = true;
	if (!m->hca_init || !m->layout.valid)
		return HERMON_STAT_BAD_SYS_STATE;
	/* 0 releases the block (Linux mlx4_cleanup_qp_table) */
	if (base == 0) {
		m->sqp_conf = false;
		return HERMON_STAT_OK;
	}
	/* an aligned block of the QP table, clear of the firmware's own QPs */
	if (base % HERMON_SQP_ALIGN != 0 ||
	    base + HERMON_SQP_BLOCK > (1u << m->layout.log_num_qp) || base < HM_RSVD_QPS)
		return HERMON_STAT_BAD_PARAM;
	for (i = 0; i < HERMON_SQP_BLOCK && m->obj.qp != NULL && base + i < m->obj.nqp; i++)
		if (m->obj.qp[base + i].active)
			return HERMON_STAT_BAD_RES_STATE;
	m->sqp_base = base;
	m->sqp_conf = true;
	return HERMON_STAT_OK;
}

bool
hm_sqp_type_ok(const struct hermon_model *m, uint32_t qpn, uint32_t st)
{
	uint32_t k;

	if (st != HERMON_QPST_MLX)
		return true;
	/* MLX is the service type of QP0/QP1 only, once the block is known */
	if (!m->sqp_conf || qpn < m->sqp_base)
		return false;
	k = qpn - m->sqp_base;
	return k < 4 && (k & 1) < m->conf.ports;
}

uint32_t
hm_sqp_dest(struct hermon_model *m, uint8_t port, uint32_t dqpn)
{
	if (dqpn > 1)
		return dqpn;
	/* QP0/QP1 exist on the wire only where CONF_SPECIAL_QP placed them */
	if (!m->sqp_conf || port < 1 || port > m->conf.ports)
		return UINT32_MAX;
	return hermon_sqp_qpn(m->sqp_base, port, dqpn);
}

/*
 * Decode a RoCE UD frame of @hlen header bytes and @plen payload bytes as
 * the receiving port does: RoCE v1 (EtherType 0x8915, GRH) or, when
 * @v2_ok, RoCE v2 (IPv4 or IPv6, UDP to 4791). -1: no RoCE port takes
 * it; -2: a RoCE v2 frame (UDP to 4791) that is malformed.
 */
int
hm_roce_decode(const uint8_t *h, uint32_t hlen, uint32_t plen, bool v2_ok,
	       struct hm_roce_pkt *p)
{
	uint32_t off = 12, type, pad = (4 - plen) & 3, l4;
	const uint8_t *n, *u = NULL, *b, *d;

	memset(p, 0, sizeof(*p));
	if (hlen < off + 2)
		return -1;
	type = be16_at(h + off);
	if (type == 0x8100) {
		off += 4;
		if (hlen < off + 2)
			return -1;
		type = be16_at(h + off);
	}
	off += 2;
	n = h + off;
	/* what follows the UDP header: BTH, DETH, payload, pad, ICRC */
	l4 = HERMON_BTH_LEN + HERMON_DETH_LEN + plen + pad + HERMON_ICRC_LEN;
	if (type == HERMON_ETHERTYPE_ROCE) {
		if (hlen != off + HERMON_GRH_LEN + HERMON_BTH_LEN + HERMON_DETH_LEN)
			return -1;
		/* IPv6-format GRH whose next header is the BTH; PayLen counts
		 * BTH to ICRC with the payload padded (IBA 8.3.1) */
		if ((n[0] >> 4) != 6 || n[6] != HERMON_GRH_NXT_BTH || be16_at(n + 4) != l4)
			return -1;
		p->version = 1;
		memcpy(p->grh, n, HM_GRH);
		memcpy(p->dgid, n + 24, 16);
		b = n + HERMON_GRH_LEN;
	} else if (type == HERMON_ETHERTYPE_IPV4 || type == HERMON_ETHERTYPE_IPV6) {
		bool v4 = type == HERMON_ETHERTYPE_IPV4;
		uint32_t nl = v4 ? HERMON_IPV4_HLEN : HERMON_GRH_LEN, sum = 0, i;

		if (hlen < off + nl + HERMON_UDP_HLEN)
			return -1;
		u = n + nl;
		/* a port classifies UDP to 4791 as RoCE v2; other IP is not its */
		if ((v4 ? n[9] : n[6]) != HERMON_IPPROTO_UDP ||
		    be16_at(u + 2) != HERMON_ROCE_V2_DPORT)
			return -1;
		if (!v2_ok)
			return -1;
		if (hlen != off + nl + HERMON_UDP_HLEN + HERMON_BTH_LEN + HERMON_DETH_LEN)
			return -2;
		if (v4) {
			for (i = 0; i < HERMON_IPV4_HLEN; i += 2)
				sum += be16_at(n + i);
			while (sum >> 16)
				sum = (sum & 0xffff) + (sum >> 16);
			/* no options, a whole datagram, the true length and
			 * a good header checksum */
			if (n[0] != 0x45 || (be16_at(n + 6) & 0x3fff) != 0 || sum != 0xffff ||
			    be16_at(n + 2) != HERMON_IPV4_HLEN + HERMON_UDP_HLEN + l4)
				return -2;
			/* the 40-byte GRH area: 20 bytes undefined (zero
			 * here), then the IPv4 header (Linux
			 * ib_get_rdma_header_version, rdma-core
			 * ibv_init_ah_from_wc read it at offset 20) */
			memcpy(p->grh + 20, n, HERMON_IPV4_HLEN);
			p->dgid[10] = 0xff;
			p->dgid[11] = 0xff;
			memcpy(p->dgid + 12, n + 16, 4);
		} else {
			if ((n[0] >> 4) != 6 || be16_at(n + 4) != HERMON_UDP_HLEN + l4)
				return -2;
			memcpy(p->grh, n, HM_GRH);
			memcpy(p->dgid, n + 24, 16);
		}
		if (be16_at(u + 4) != HERMON_UDP_HLEN + l4)
			return -2;
		p->version = 2;
		p->ipv = v4 ? 4 : 6;
		p->sport = (uint16_t)be16_at(u);
		b = u + HERMON_UDP_HLEN;
	} else {
		return -1;
	}
	d = b + HERMON_BTH_LEN;
	if (b[0] != HERMON_BTH_UD_SEND_ONLY || ((b[1] >> 4) & 3) != pad)
		return p->version == 2 ? -2 : -1;
	p->se = (b[1] & 0x80) != 0;
	p->dqpn = be32_at(b + 4) & 0xffffff;
	p->qkey = be32_at(d);
	p->sqpn = be32_at(d + 4) & 0xffffff;
	return 0;
}

int
hermon_model_roce_decode(const uint8_t *h, uint32_t hlen, uint32_t plen,
			 struct hermon_model_roce_pkt *out)
{
	struct hm_roce_pkt p;
	int ret = hm_roce_decode(h, hlen, plen, true, &p);

	if (ret < 0)
		return ret;
	out->version = p.version;
	out->ipv = p.ipv;
	out->sport = p.sport;
	out->dqpn = p.dqpn;
	out->sqpn = p.sqpn;
	out->qkey = p.qkey;
	memcpy(out->grh, p.grh, sizeof(out->grh));
	memcpy(out->dgid, p.dgid, sizeof(out->dgid));
	return 0;
}

static void
hm_mlx_drop(struct hermon_model *m)
{
	m->drops++;
	m->sqp_drops++;
}

/* An InfiniBand UD datagram (LRH, a GRH or not), as the receiving port decodes it. */
struct hm_ib_pkt {
	const uint8_t *grh;          /* NULL: LNH 2, no GRH */
	uint16_t dlid, slid;
	uint8_t vl, sl;
	uint32_t dqpn, sqpn, qkey;
	bool se;
};

/* -1 when @h is not LRH [+ GRH] + BTH + DETH of a UD SEND of @plen bytes. */
static int
hm_lrh_decode(const uint8_t *h, uint32_t hlen, uint32_t plen, struct hm_ib_pkt *p)
{
	bool grh = (h[1] & 3) == HERMON_LRH_LNH_IBA_GLOBAL;
	const uint8_t *g = h + HERMON_LRH_LEN;
	const uint8_t *b = g + (grh ? HERMON_GRH_LEN : 0), *d = b + HERMON_BTH_LEN;
	uint32_t pad = (4 - plen) & 3;

	if (hlen != (grh ? HERMON_SQP_IB_GRH_HLEN : HERMON_SQP_IB_HLEN) || (h[0] & 0xf) != 0 ||
	    (!grh && (h[1] & 3) != HERMON_LRH_LNH_IBA_LOCAL))
		return -1;
	/* IBA 8.3: IPv6-format, next header BTH, PayLen BTH through ICRC */
	if (grh && ((g[0] >> 4) != 6 || g[6] != HERMON_GRH_NXT_BTH ||
		    be16_at(g + 4) != RTE_ALIGN_CEIL(HERMON_BTH_LEN + HERMON_DETH_LEN + plen, 4) +
		    HERMON_ICRC_LEN))
		return -1;
	p->grh = grh ? g : NULL;
	/* PktLen: 4-byte words from the LRH through the ICRC (IBA 7.7.8) */
	if ((be16_at(h + 4) & 0x7ff) != (hlen + plen + pad + HERMON_ICRC_LEN) / 4)
		return -1;
	if (b[0] != HERMON_BTH_UD_SEND_ONLY || ((b[1] >> 4) & 3) != pad)
		return -1;
	p->vl = h[0] >> 4;
	p->sl = h[1] >> 4;
	p->dlid = (uint16_t)be16_at(h + 2);
	p->slid = (uint16_t)be16_at(h + 6);
	p->se = (b[1] & 0x80) != 0;
	p->dqpn = be32_at(b + 4) & 0xffffff;
	p->qkey = be32_at(d);
	p->sqpn = be32_at(d + 4) & 0xffffff;
	return 0;
}

/*
 * An MLX WQE on an InfiniBand port: the port puts the LRH-framed packet on
 * its link, which reaches the same port of the model at the other end of
 * the cable (a port with no cable loops back to itself). The receiving
 * port takes it as IBA 7.2/7.9 and 9.6 say: VL15 carries only QP0's SMPs
 * (and QP0 takes only VL15), the DLID is the permissive LID or the
 * receiving port's LID, a port that is DOWN takes nothing and only an
 * ACTIVE port takes anything but SMPs; QP0 checks no Q_Key. The SLID is
 * the header's with SLR, else the sending port's LID.
 */
static void
hm_mlx_exec_ib(struct hm_qp *q, struct hm_wqe *x, uint32_t hlen, uint32_t plen,
	       uint32_t k, uint8_t *synd)
{
	struct hermon_model *m = q->m, *dm;
	uint8_t sport = (uint8_t)(((q->qpn - m->sqp_base) & 1) + 1);
	const struct hm_sma_port *ss, *ds;
	struct hm_seg src[HM_MAX_SEGS + 1];
	static const uint8_t no_grh[HM_GRH];
	struct hm_ib_pkt pkt;
	struct hm_rwqe r;
	struct hm_qp dq;
	uint32_t i, ns = 0;
	uint16_t lmask;

	*synd = 0;
	if (hm_lrh_decode(x->inl, hlen, plen, &pkt) < 0 ||
	    (pkt.vl == HERMON_VL_SMI) != ((x->ctrl2 & HERMON_MLX_VL15) != 0)) {
		hm_mlx_drop(m);
		return;
	}
	dm = m->peer != NULL ? m->peer : m;
	if (!dm->hca_init || dm->catas || sport > dm->conf.ports ||
	    dm->conf.port_type != HERMON_PORT_TYPE_IB || m->conf.link_down ||
	    (dm->ports_up & RTE_BIT32(sport - 1)) == 0) {
		hm_mlx_drop(m);
		return;
	}
	ss = &m->sma[sport - 1];
	ds = &dm->sma[sport - 1];
	lmask = (uint16_t)~((1u << ds->lmc) - 1);
	if ((pkt.vl == HERMON_VL_SMI) != (pkt.dqpn == 0) ||
	    ss->state == HERMON_IB_PORT_DOWN || ds->state == HERMON_IB_PORT_DOWN ||
	    (pkt.vl != HERMON_VL_SMI && (ss->state != HERMON_IB_PORT_ACTIVE ||
					 ds->state != HERMON_IB_PORT_ACTIVE)) ||
	    (pkt.dlid != HERMON_LID_PERMISSIVE &&
	     (ds->lid == 0 || (pkt.dlid & lmask) != (ds->lid & lmask)))) {
		hm_mlx_drop(dm);
		return;
	}
	if ((x->ctrl2 & HERMON_MLX_SLR) == 0)
		pkt.slid = (uint16_t)(ss->lid | (pkt.slid & ((1u << ss->lmc) - 1)));
	/* SMPs carry no GRH (IBA 14.2.1); a GRH's DGID must be the port's */
	if (pkt.grh != NULL) {
		uint8_t gport = 0;

		if (pkt.vl == HERMON_VL_SMI || hm_route(m, pkt.grh + 24, &gport) != dm ||
		    gport != sport) {
			hm_mlx_drop(dm);
			return;
		}
	}
	if (hm_qp_load(dm, hm_sqp_dest(dm, sport, pkt.dqpn), &dq) < 0 || !dq.rt->active ||
	    (dq.st != HERMON_QPST_UD && dq.st != HERMON_QPST_MLX) ||
	    (dq.state != HERMON_QPS_RTR && dq.state != HERMON_QPS_RTS &&
	     dq.state != HERMON_QPS_SQD && dq.state != HERMON_QPS_SQE) ||
	    (pkt.dqpn != 0 && pkt.qkey != QX(&dq, q_key)) || hm_rwqe_peek(&dq, &r) < 0) {
		hm_mlx_drop(dm);
		return;
	}
	if (r.bad_key || r.cap < HM_GRH + plen) {
		hm_rwqe_take(&dq, &r);
		hm_cqe_err(&dq, false, r.ctr, r.bad_key ? HERMON_SYND_LOC_PROT :
			   HERMON_SYND_LOC_LEN);
		return;
	}
	/* the GRH, or 40 bytes that hold none (IBA 11.4.1.1) */
	src[ns++] = (struct hm_seg){ .len = HM_GRH,
				     .direct = pkt.grh != NULL ? pkt.grh : no_grh };
	for (i = k; i < x->nseg; i++)
		src[ns++] = x->seg[i];
	if (hm_copy(dm, r.seg, r.nseg, m, src, ns, HM_GRH + plen) != 0) {
		*synd = HERMON_SYND_LOC_PROT;
		return;
	}
	hm_rwqe_take(&dq, &r);
	m->sqp_ib_sent++;
	hm_cqe_ok_lid(&dq, false, HERMON_CQE_RECV_SEND, r.ctr, HM_GRH + plen, 0, pkt.sqpn,
		      pkt.grh != NULL, pkt.se, pkt.sl, pkt.slid);
}

/* The model (this one or the one at the cable's end) whose port has @dmac. */
static struct hermon_model *
hm_by_dmac(struct hermon_model *m, const uint8_t dmac[6])
{
	struct hermon_model *c[2] = { m, m->peer };
	unsigned int i, p;

	for (i = 0; i < 2; i++)
		for (p = 0; c[i] != NULL && p < c[i]->conf.ports; p++)
			if (memcmp(c[i]->mac[p], dmac, 6) == 0)
				return c[i];
	return NULL;
}

void
hm_mlx_exec(struct hm_qp *q, struct hm_wqe *x, uint8_t *synd)
{
	uint32_t hlen = 0, plen, k, i, ns = 0;
	struct hm_seg src[HM_MAX_SEGS + 1];
	struct hermon_model *dm;
	struct hm_roce_pkt pkt;
	struct hm_rwqe r;
	struct hm_qp dq;
	uint8_t dport;
	int ret;

	*synd = 0;
	if (x->opcode != HERMON_WQE_SEND) {
		*synd = HERMON_SYND_LOC_QP_OP;
		return;
	}
	/* the headers come first, inline; then the payload, gathered */
	for (k = 0; k < x->nseg && x->seg[k].direct != NULL; k++)
		hlen += x->seg[k].len;
	for (i = k; i < x->nseg; i++)
		if (x->seg[i].direct != NULL) {
			*synd = HERMON_SYND_LOC_QP_OP;
			return;
		}
	if (hlen == 0) {
		*synd = HERMON_SYND_LOC_QP_OP;
		return;
	}
	plen = x->len - hlen;
	if (hm_local_segs_ok(q, x, HM_ACC_LR) != 0) {
		*synd = HERMON_SYND_LOC_PROT;
		return;
	}
	if (q->m->conf.port_type == HERMON_PORT_TYPE_IB) {
		hm_mlx_exec_ib(q, x, hlen, plen, k, synd);
		return;
	}
	/* the frame leaves; its receiver parses it (the sender's type is
	 * its GID's, so a v2 frame implies a v2 sender) */
	ret = hm_roce_decode(x->inl, hlen, plen, true, &pkt);
	if (ret < 0) {
		/* the port its DMAC names parses it and drops it; a
		 * malformed RoCE v2 frame is counted as such there */
		dm = hm_by_dmac(q->m, x->inl);
		if (dm == NULL)
			dm = q->m;
		if (ret == -2)
			dm->rocev2_bad++;
		hm_mlx_drop(dm);
		return;
	}
	dm = hm_route(q->m, pkt.dgid, &dport);
	/* only RoCE v2 firmware takes UDP 4791 as RoCE: elsewhere a plain drop */
	if (dm != NULL && pkt.version == 2 && !dm->conf.rocev2) {
		hm_mlx_drop(dm);
		return;
	}
	/* on Ethernet the frame goes where its DMAC says */
	if (dm == NULL || dport < 1 || dport > dm->conf.ports ||
	    memcmp(x->inl, dm->mac[dport - 1], 6) != 0) {
		hm_mlx_drop(q->m);
		return;
	}
	if (hm_qp_load(dm, hm_sqp_dest(dm, dport, pkt.dqpn), &dq) < 0 || !dq.rt->active ||
	    (dq.st != HERMON_QPST_UD && dq.st != HERMON_QPST_MLX) ||
	    (dq.state != HERMON_QPS_RTR && dq.state != HERMON_QPS_RTS &&
	     dq.state != HERMON_QPS_SQD && dq.state != HERMON_QPS_SQE) ||
	    pkt.qkey != QX(&dq, q_key)) {
		hm_mlx_drop(dm);
		return;
	}
	if (hm_rwqe_peek(&dq, &r) < 0) {
		hm_mlx_drop(dm);
		return;
	}
	if (r.bad_key || r.cap < HM_GRH + plen) {
		hm_rwqe_take(&dq, &r);
		hm_cqe_err(&dq, false, r.ctr, r.bad_key ? HERMON_SYND_LOC_PROT :
			   HERMON_SYND_LOC_LEN);
		return;
	}
	src[ns++] = (struct hm_seg){ .len = HM_GRH, .direct = pkt.grh };
	for (i = k; i < x->nseg; i++)
		src[ns++] = x->seg[i];
	if (hm_copy(dm, r.seg, r.nseg, q->m, src, ns, HM_GRH + plen) != 0) {
		*synd = HERMON_SYND_LOC_PROT;
		return;
	}
	hm_rwqe_take(&dq, &r);
	if (pkt.version == 2)
		dm->rocev2_rx++;
	hm_cqe_ok(&dq, false, HERMON_CQE_RECV_SEND, r.ctr, HM_GRH + plen, 0, pkt.sqpn,
		  true, pkt.se, 0);
}
