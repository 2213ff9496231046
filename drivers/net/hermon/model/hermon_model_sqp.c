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
 * receiving port parses it as a card would: a RoCE (v1, EtherType 0x8915)
 * UD SEND whose BTH DestQP is 1 reaches that port's GSI QP, with the GRH in
 * the first 40 bytes of the receive buffer. What no port would take is a
 * counted drop; a WQE the device cannot send completes in error.
 */

#include <string.h>

#include <rte_byteorder.h>

#include "hermon_model_exec.h"

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

/* The received datagram, as the receiving port decoded it. */
struct hm_mlx_pkt {
	const uint8_t *grh;          /* the 40 bytes the receiver gets first */
	uint32_t dqpn, sqpn, qkey;
	bool se;
};

/*
 * Decode a RoCE v1 UD frame of @hlen header bytes and @plen payload bytes
 * as the receiving port does; -1 when it is not one (no port takes it).
 */
static int
hm_mlx_decode(const uint8_t *h, uint32_t hlen, uint32_t plen, struct hm_mlx_pkt *p)
{
	uint32_t off = 12, type;
	const uint8_t *g, *b, *d;

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
	if (type != HERMON_ETHERTYPE_ROCE ||
	    hlen != off + HERMON_GRH_LEN + HERMON_BTH_LEN + HERMON_DETH_LEN)
		return -1;
	g = h + off;
	b = g + HERMON_GRH_LEN;
	d = b + HERMON_BTH_LEN;
	/* IPv6-format GRH whose next header is the BTH; PayLen counts BTH
	 * to ICRC with the payload padded to 4 bytes (IBA 8.3.1) */
	if ((g[0] >> 4) != 6 || g[6] != HERMON_GRH_NXT_BTH ||
	    be16_at(g + 4) != RTE_ALIGN_CEIL(HERMON_BTH_LEN + HERMON_DETH_LEN + plen, 4) + 4)
		return -1;
	if (b[0] != HERMON_BTH_UD_SEND_ONLY || ((b[1] >> 4) & 3) != ((4 - plen) & 3))
		return -1;
	p->grh = g;
	p->se = (b[1] & 0x80) != 0;
	p->dqpn = be32_at(b + 4) & 0xffffff;
	p->qkey = be32_at(d);
	p->sqpn = be32_at(d + 4) & 0xffffff;
	return 0;
}

static void
hm_mlx_drop(struct hermon_model *m)
{
	m->drops++;
	m->sqp_drops++;
}

void
hm_mlx_exec(struct hm_qp *q, struct hm_wqe *x, uint8_t *synd)
{
	uint32_t hlen = 0, plen, k, i, ns = 0;
	struct hm_seg src[HM_MAX_SEGS + 1];
	struct hermon_model *dm;
	struct hm_mlx_pkt pkt;
	struct hm_rwqe r;
	struct hm_qp dq;
	uint8_t dport;

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
	/* an InfiniBand port's LRH-framed SMPs/GMPs are not modelled yet */
	if (q->m->conf.port_type != HERMON_PORT_TYPE_ETH ||
	    hm_mlx_decode(x->inl, hlen, plen, &pkt) < 0) {
		hm_mlx_drop(q->m);
		return;
	}
	dm = hm_route(q->m, pkt.grh + 24, &dport);
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
	hm_cqe_ok(&dq, false, HERMON_CQE_RECV_SEND, r.ctr, HM_GRH + plen, 0, pkt.sqpn,
		  true, pkt.se, 0);
}
