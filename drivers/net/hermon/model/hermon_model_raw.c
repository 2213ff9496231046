/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * F13: raw Ethernet frames on the model's cable, and the steering that
 * takes them to a raw QP at the receiving port.
 *
 * A raw QP is what mlx4_ib makes of IB_QPT_RAW_PACKET: service type MLX
 * on an ordinary QPN (outside the CONF_SPECIAL_QP block) with the QPC MTU
 * code 7 (Linux MLX4_RAW_QP_MTU); its send WQE is a control segment and
 * the whole frame in its gather list (Linux mlx4_ib_post_send adds no
 * header for it). The model sends that frame as it is: the Ethernet
 * header names the destination, not a GID, so RoCE routing (hm_route)
 * plays no part.
 *
 * Steering follows the mode INIT_HCA chose. The PMD sets neither the B0
 * bit (INIT_HCA 0xd8 bit 3) nor device-managed flow steering (0x14 bit 6),
 * which is A0 steering: Linux then steers an Ethernet port's non-RoCE
 * traffic with SET_PORT(Ethernet, RQP_CALC) (mlx4_SET_PORT_qpn_calc): a
 * base QPN, unicast to MAC-table entry i going to base + i (all unicast
 * with the promiscuous bit), and multicast and broadcast going to the base
 * QPN in MCAST_DEFAULT mode. EtherType rules (an ARP-only entry) need
 * DMFS, which the PMD does not turn on; the receiving agent filters ARP
 * itself. A frame no steering entry takes, or whose QP is not a raw QP
 * able to receive, is dropped and counted (raw_unsteered / raw_dropped).
 *
 * The cable joins every port of both models: a unicast frame reaches the
 * port whose MAC it names, a broadcast one every other Ethernet port that
 * is up, and a multicast one those whose F31 filter takes it. Simplified:
 * broadcast passes the multicast filter without an entry (mlx4_en puts
 * ETH_BCAST in it), and a raw frame carrying RoCE's EtherType is not
 * handed to the RoCE engine (it is counted as unsteered).
 */

#include <string.h>

#include <rte_byteorder.h>

#include "hermon_model_exec.h"

#define HM_RAW_MTU_CODE    7          /* Linux MLX4_RAW_QP_MTU */
#define HM_RAW_MIN_FRAME   14
#define HM_RAW_MAX_FRAME   (1500 + 14 + 4)
#define HM_ETHERTYPE_ROCE  0x8915
/* SET_PORT RQP_CALC mailbox (Linux struct mlx4_set_port_rqp_calc_context) */
#define HM_RQP_BASE_QPN    0x00
#define HM_RQP_PROMISC     0x14       /* bit 31 promiscuous, 23:0 its QPN */
#define HM_RQP_MCAST       0x18       /* bits 31:30 mode, 23:0 its QPN */
#define HM_RQP_MCAST_DEFAULT 2

static uint8_t
hm_path_port(const struct hermon_prm_queue_pair_ee_context_entry *ctx)
{
	const struct hermon_prm_address_path *p =
		HERMON_NESTED(ctx, queue_pair_ee_context_entry, primary_address_path,
			      address_path);

	return (uint8_t)(((HERMON_GET(p, address_path, sched_queue) >> 6) & 1) + 1);
}

bool
hm_raw_type_ok(const struct hermon_model *m, uint32_t qpn,
	       const struct hermon_prm_queue_pair_ee_context_entry *ctx)
{
	return HERMON_GET(ctx, queue_pair_ee_context_entry, st) == HERMON_QPST_MLX &&
		HERMON_GET(ctx, queue_pair_ee_context_entry, mtu) == HM_RAW_MTU_CODE &&
		m->conf.port_type == HERMON_PORT_TYPE_ETH && qpn >= HM_RSVD_QPS &&
		(!m->sqp_conf || qpn < m->sqp_base || qpn >= m->sqp_base + HERMON_SQP_BLOCK);
}

bool
hm_raw_qp(const struct hm_qp *q)
{
	return q->st == HERMON_QPST_MLX && hm_raw_type_ok(q->m, q->qpn, q->ctx);
}

uint8_t
hm_raw_rqp_calc(struct hermon_model *m, uint32_t port, uint64_t in_param)
{
	const uint8_t *b = hm_dma_ptr(in_param, 0x20);
	uint32_t base, promisc, mcast;

	if (b == NULL)
		return HERMON_STAT_INTERNAL_ERR;
	base = rte_be_to_cpu_32(*(const uint32_t *)(b + HM_RQP_BASE_QPN)) & 0xffffff;
	promisc = rte_be_to_cpu_32(*(const uint32_t *)(b + HM_RQP_PROMISC));
	mcast = rte_be_to_cpu_32(*(const uint32_t *)(b + HM_RQP_MCAST));
	if (base >= (1u << m->layout.log_num_qp))
		return HERMON_STAT_BAD_PARAM;
	m->rqp[port - 1].valid = base != 0;
	m->rqp[port - 1].base_qpn = base;
	m->rqp[port - 1].promisc = (promisc >> 31) != 0;
	m->rqp[port - 1].mcast_default = (mcast >> 30) == HM_RQP_MCAST_DEFAULT;
	return HERMON_STAT_OK;
}

/* The QPN port @p (1-based) of @dm steers @frame to, or UINT32_MAX. */
static uint32_t
hm_raw_steer(const struct hermon_model *dm, uint8_t p, const uint8_t *frame)
{
	const uint8_t *dmac = frame;
	uint16_t et = (uint16_t)(frame[12] << 8 | frame[13]);

	if (!dm->rqp[p - 1].valid || et == HM_ETHERTYPE_ROCE)
		return UINT32_MAX;
	if (dmac[0] & 1)
		return dm->rqp[p - 1].mcast_default ? dm->rqp[p - 1].base_qpn : UINT32_MAX;
	/* the port's MAC is MAC-table entry 0 (the only one the model serves) */
	if (memcmp(dmac, dm->mac[p - 1], 6) == 0 && dm->mac_valid[p - 1][0])
		return dm->rqp[p - 1].base_qpn;
	return dm->rqp[p - 1].promisc ? dm->rqp[p - 1].base_qpn : UINT32_MAX;
}

/* Deliver the frame (@len bytes gathered by @src) at port @p of @dm. */
static void
hm_raw_rx(struct hermon_model *dm, uint8_t p, const uint8_t *frame, uint32_t len,
	  struct hermon_model *sm, const struct hm_seg *src, uint32_t ns)
{
	uint32_t qpn = hm_raw_steer(dm, p, frame);
	struct hm_rwqe r;
	struct hm_qp dq;

	if (qpn == UINT32_MAX) {
		dm->raw_unsteered++;
		return;
	}
	if (hm_qp_load(dm, qpn, &dq) < 0 || !dq.rt->active || !hm_raw_qp(&dq) ||
	    hm_path_port(dq.ctx) != p ||
	    (dq.state != HERMON_QPS_RTR && dq.state != HERMON_QPS_RTS) ||
	    hm_rwqe_peek(&dq, &r) < 0) {
		dm->raw_dropped++;
		return;
	}
	if (r.bad_key || r.cap < len) {
		hm_rwqe_take(&dq, &r);
		hm_cqe_err(&dq, false, r.ctr, r.bad_key ? HERMON_SYND_LOC_PROT :
			   HERMON_SYND_LOC_LEN);
		return;
	}
	if (hm_copy(dm, r.seg, r.nseg, sm, src, ns, len) != 0) {
		dm->raw_dropped++;
		return;
	}
	hm_rwqe_take(&dq, &r);
	dm->raw_delivered++;
	hm_cqe_ok(&dq, false, HERMON_CQE_RECV_SEND, r.ctr, len, 0, 0, false, false, 0);
}

static bool
hm_raw_port_live(const struct hermon_model *m, uint8_t p)
{
	return m->hca_init && !m->catas && !m->conf.link_down &&
		m->conf.port_type == HERMON_PORT_TYPE_ETH && p <= m->conf.ports &&
		(m->ports_up & RTE_BIT32(p - 1)) != 0;
}

void
hm_raw_exec(struct hm_qp *q, struct hm_wqe *x, uint8_t *synd)
{
	struct hermon_model *m = q->m, *ends[2] = { q->m, q->m->peer };
	uint8_t frame[HM_RAW_MAX_FRAME], sport = hm_path_port(q->ctx);
	struct hm_seg dst = { .len = sizeof(frame), .direct = frame };
	unsigned int e;
	uint8_t p;

	*synd = 0;
	if (x->len < HM_RAW_MIN_FRAME || x->len > HM_RAW_MAX_FRAME) {
		*synd = HERMON_SYND_LOC_LEN;
		return;
	}
	if (hm_local_segs_ok(q, x, HM_ACC_LR) != 0) {
		*synd = HERMON_SYND_LOC_PROT;
		return;
	}
	/* the frame's first bytes: its Ethernet header decides where it goes */
	if (hm_copy(m, &dst, 1, m, x->seg, x->nseg, x->len) != 0) {
		*synd = HERMON_SYND_LOC_PROT;
		return;
	}
	m->raw_sent++;
	if (!hm_raw_port_live(m, sport))
		return;
	for (e = 0; e < 2; e++) {
		struct hermon_model *dm = ends[e];

		if (dm == NULL || (e == 1 && dm == m))
			continue;
		for (p = 1; p <= dm->conf.ports && p <= 2; p++) {
			bool self = dm == m && p == sport;

			if (!hm_raw_port_live(dm, p))
				continue;
			if (frame[0] & 1) {
				bool bcast = memcmp(frame, "\xff\xff\xff\xff\xff\xff", 6) == 0;

				if (self)
					continue;
				if (!bcast && !hm_mc_fltr_pass(dm, p - 1, frame)) {
					dm->mc_filtered++;
					continue;
				}
			} else if (memcmp(frame, dm->mac[p - 1], 6) != 0) {
				continue;
			}
			hm_raw_rx(dm, p, frame, x->len, m, x->seg, x->nseg);
		}
	}
}
