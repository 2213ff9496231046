/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Queue pairs: one buffer holding the SQ (fixed-stride WQEs, pre-marked
 * hardware owned, with the 2 KiB prefetch headroom the device needs) and
 * the RQ, a 4-byte RQ doorbell record, a shadow QP context from which every
 * transition command's mailbox is built, QUERY_QP, and a destroy that moves
 * the QP to ERR and waits for the device to flush every outstanding WQE to
 * the CQs before the QP goes away.
 */

#include <errno.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "hermon_logs.h"
#include "hermon_mcast.h"
#include "hermon_obj.h"
#include "hermon_sqp_wire.h"

#define QPC(f, v) HERMON_FILL(&qp->qpc, queue_pair_ee_context_entry, f, v)
#define QPC_GET(c, f) HERMON_GET(c, queue_pair_ee_context_entry, f)
#define HERMON_MAX_WQE 1008u
#define HERMON_FLUSH_WAIT_MS 2000
#define HERMON_RAW_QP_MTU 7             /* Linux MLX4_RAW_QP_MTU */

static uint32_t
log2_ceil(uint32_t v)
{
	return v <= 1 ? 0 : 32 - (uint32_t)__builtin_clz(v - 1);
}

/* Bytes @n inline bytes take from byte @start of a WQE (chunks never cross
 * a 64-byte boundary; each has a 4-byte header), rounded to 16. */
static uint32_t
inline_bytes(uint32_t start, uint32_t n)
{
	uint32_t off = start;

	do {
		uint32_t room = 64 - ((off + 4) & 63), k = RTE_MIN(n, room);

		off += 4 + k;
		n -= k;
	} while (n > 0);
	return RTE_ALIGN_CEIL(off, 16) - start;
}

uint32_t
hermon_inline_room(uint32_t start, uint32_t bytes)
{
	uint32_t n = 0;

	while (start + inline_bytes(start, n + 1) <= bytes)
		n++;
	return n;
}

static void
sq_own_all(struct hermon_qp *qp)
{
	uint32_t i, bytes = (qp->sq_mask + 1) << qp->sq_shift;

	/* first dword of every 64-byte block: owner 1, invalid on pass 0 */
	for (i = 0; i < bytes; i += 64)
		*(uint32_t *)(qp->sq + i) = UINT32_MAX;
}

static uint8_t
port_mtu(const struct hermon_dev *hd, uint8_t port)
{
	return hd->port[port - 1].type == HERMON_PORT_TYPE_IB ? PRDMA_MTU_4096 :
		PRDMA_MTU_1024;
}

int
hermon_qp_create(struct prdma_qp *pqp, struct prdma_qp_init_attr *attr)
{
	struct hermon_qp *qp = (struct hermon_qp *)pqp;
	struct hermon_dev *hd = pqp->dev->priv;
	struct prdma_qp_cap *cap = &attr->cap;
	bool ud = attr->qp_type == PRDMA_QPT_UD;
	/* QP1 (GSI) or QP0 (SMI): MLX QPs of the special block */
	bool gsi = (attr->create_flags & (PRDMA_QP_CREATE_GSI | PRDMA_QP_CREATE_SMI)) != 0;
	uint32_t start = ud ? 64 : 32, need, sq_n, rq_n, rq_shift, spare, st;
	uint64_t sq_off, rq_off, bytes;
	int ret, idx;

	/* QP1 is an MLX QP of the CONF_SPECIAL_QP block (hermon_sqp.c) */
	if (gsi && hd->sqp_base == 0) {
		rte_errno = ENOTSUP;
		return -ENOTSUP;
	}
	if (gsi && cap->max_inline_data != 0) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	need = RTE_MAX(64u, start + 16 * RTE_MAX(cap->max_send_sge, 1u));
	if (gsi)
		need = RTE_MAX(need, hermon_sqp_wqe_bytes(RTE_MAX(cap->max_send_sge, 1u)));
	need = RTE_MAX(need, 16u + 16 + 16 + 16);   /* raddr + atomic + one SGE */
	need = RTE_MAX(need, 16u + 32);            /* bind, local invalidate */
	if (cap->max_inline_data > 0)
		need = RTE_MAX(need, start + inline_bytes(start, cap->max_inline_data));
	if (need > HERMON_MAX_WQE || cap->max_send_sge > hd->caps.max_sg_sq ||
	    cap->max_recv_sge > hd->caps.max_sg_rq) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	qp->sq_shift = log2_ceil(need);
	spare = (2048u >> qp->sq_shift) + 1;
	sq_n = 1u << log2_ceil(cap->max_send_wr + spare);
	if (attr->srq != NULL) {
		rq_n = 1;
		rq_shift = 4;
	} else {
		rq_n = 1u << log2_ceil(RTE_MAX(cap->max_recv_wr, 1u));
		rq_shift = log2_ceil(16 * RTE_MAX(cap->max_recv_sge, 1u));
		rq_shift = RTE_MAX(rq_shift, 4u);
	}
	if (log2_ceil(sq_n) > hd->caps.log_max_qp_sz ||
	    log2_ceil(rq_n) > hd->caps.log_max_qp_sz) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	qp->hd = hd;
	if (gsi) {
		ret = hermon_sqp_claim(hd, qp,
				       (attr->create_flags & PRDMA_QP_CREATE_SMI) ? 0 : 1);
		if (ret < 0)
			return ret;
	} else {
		idx = hermon_bitmap_alloc(&hd->qps);
		if (idx < 0)
			return idx;
		qp->qpn = (uint32_t)idx;
	}
	hermon_qp_layout(log2_ceil(sq_n), qp->sq_shift - 4, log2_ceil(rq_n), rq_shift - 4,
			 &sq_off, &rq_off);
	bytes = ((uint64_t)sq_n << qp->sq_shift) + ((uint64_t)rq_n << rq_shift);
	ret = hermon_queue_alloc(hd, &qp->mem, "qp", bytes, 64);
	if (ret < 0)
		goto err_idx;
	qp->sq_wrid = rte_zmalloc("hermon_sq_wrid", sq_n * sizeof(uint64_t), 64);
	qp->rq_wrid = rte_zmalloc("hermon_rq_wrid", rq_n * sizeof(uint64_t), 64);
	if (qp->sq_wrid == NULL || qp->rq_wrid == NULL) {
		ret = -ENOMEM;
		goto err_mem;
	}
	qp->sq = (uint8_t *)qp->mem.dma.va + sq_off;
	qp->rq = (uint8_t *)qp->mem.dma.va + rq_off;
	qp->sq_mask = sq_n - 1;
	qp->sq_log = log2_ceil(sq_n);
	qp->sq_spare = spare;
	qp->sq_cap = sq_n - spare;
	qp->max_inline = cap->max_inline_data;
	qp->max_send_sge = RTE_MAX(cap->max_send_sge, 1u);
	qp->sig_all = attr->sq_sig_all ? 3 : 0;
	qp->db_val = rte_cpu_to_be_32(qp->qpn << 8);
	qp->uar_db = (volatile uint32_t *)(hd->uar + HERMON_UAR_SEND_DB);
	qp->mpt_dma = hd->iova_is_va ? NULL : hd->mpt_dma;
	qp->mpt_mask = hd->mpts.n - 1;
	qp->rq_mask = rq_n - 1;
	qp->rq_n = rq_n;
	qp->rq_shift = rq_shift;
	qp->max_recv_sge = attr->srq != NULL ? 0 : (1u << rq_shift) / 16;
	qp->rq_db = (volatile rte_be32_t *)((uint8_t *)qp->mem.dma.va + qp->mem.qbytes);
	qp->srq = (struct hermon_srq *)attr->srq;
	sq_own_all(qp);

	/* F13: a raw Ethernet QP is MLX on an ordinary QPN (mlx4_ib
	 * IB_QPT_RAW_PACKET), with MTU code 7 (MLX4_RAW_QP_MTU) below */
	st = gsi || qp->raw ? HERMON_QPST_MLX : attr->qp_type == PRDMA_QPT_RC ? HERMON_QPST_RC :
		attr->qp_type == PRDMA_QPT_UC ? HERMON_QPST_UC : HERMON_QPST_UD;
	memset(&qp->qpc, 0, sizeof(qp->qpc));
	QPC(st, st);
	QPC(pm_state, 3);
	QPC(pd, pqp->pd->pd_num);
	QPC(log_sq_size, qp->sq_log);
	QPC(log_sq_stride, qp->sq_shift - 4);
	QPC(log_rq_size, log2_ceil(rq_n));
	QPC(log_rq_stride, rq_shift - 4);
	/* F32: the device's largest message (Linux: ilog2(caps.max_msg_sz)) */
	QPC(msg_max, RTE_MIN(hd->caps.log_max_msg, 31u));
	QPC(mtu, qp->raw ? HERMON_RAW_QP_MTU : port_mtu(hd, 1));
	QPC(usr_page, hd->uar_idx);
	QPC(local_qpn_een, qp->qpn);
	QPC(cqn_snd, ((struct hermon_cq *)attr->send_cq)->cqn);
	QPC(cqn_rcv, ((struct hermon_cq *)attr->recv_cq)->cqn);
	if (attr->srq != NULL) {
		QPC(srq, 1);
		QPC(srqn, qp->srq->srqn);
	}
	HERMON_FILL64(&qp->qpc, queue_pair_ee_context_entry, db_record_addr_h,
		      db_record_addr_l, qp->mem.dma.iova + qp->mem.qbytes);
	HERMON_FILL64(&qp->qpc, queue_pair_ee_context_entry, mtt_base_addr_h,
		      mtt_base_addr_l, (uint64_t)qp->mem.mtt * hd->caps.mtt_entry_sz);
	QPC(log2_page_size, 0);
	QPC(page_offset, 0);
	QPC(ack_req_freq, 8);
	QPC(primary_address_path.sched_queue, 0x83);

	/* verbs number the SMI QP 0 and the GSI QP 1 on every port */
	pqp->qp_num = gsi ? qp->sqp_wire : qp->qpn;
	cap->max_send_wr = qp->sq_cap;
	cap->max_send_sge = qp->max_send_sge;
	cap->max_inline_data = hermon_inline_room(start, 1u << qp->sq_shift);
	cap->max_inline_data = RTE_MIN(cap->max_inline_data,
				       HERMON_MAX_WQE - start - 16);
	if (gsi)
		cap->max_inline_data = 0;
	qp->max_inline = cap->max_inline_data;
	hermon_sq_fp_init(qp);
	cap->max_recv_wr = attr->srq != NULL ? 0 : rq_n;
	cap->max_recv_sge = qp->max_recv_sge;
	memset(&qp->attr, 0, sizeof(qp->attr));
	qp->attr.cap = *cap;
	qp->attr.port_num = 1;
	qp->attr.path_mtu = port_mtu(hd, 1);
	hermon_bf_alloc(hd, qp);
	pthread_mutex_lock(&hd->ev_lock);
	hd->qp_table[qp->qpn] = qp;
	pthread_mutex_unlock(&hd->ev_lock);
	return 0;
err_mem:
	rte_free(qp->sq_wrid);
	rte_free(qp->rq_wrid);
	hermon_queue_free(hd, &qp->mem);
err_idx:
	if (gsi)
		hermon_sqp_free(qp);
	else
		hermon_bitmap_free(&hd->qps, qp->qpn);
	return ret;
}

static uint16_t
qp_cmd(enum prdma_qp_state cur, enum prdma_qp_state next)
{
	switch (next) {
	case PRDMA_QPS_INIT:
		return cur == PRDMA_QPS_RESET ? HERMON_CMD_RST2INIT_QP :
			HERMON_CMD_INIT2INIT_QP;
	case PRDMA_QPS_RTR:
		return HERMON_CMD_INIT2RTR_QP;
	case PRDMA_QPS_RTS:
		return cur == PRDMA_QPS_RTR ? HERMON_CMD_RTR2RTS_QP :
			cur == PRDMA_QPS_SQD ? HERMON_CMD_SQD2RTS_QP :
			cur == PRDMA_QPS_SQE ? HERMON_CMD_SQERR2RTS_QP :
			HERMON_CMD_RTS2RTS_QP;
	case PRDMA_QPS_SQD:
		return cur == PRDMA_QPS_SQD ? HERMON_CMD_SQD2SQD_QP :
			HERMON_CMD_RTS2SQD_QP;
	case PRDMA_QPS_ERR:
		return HERMON_CMD_2ERR_QP;
	default:
		return HERMON_CMD_2RST_QP;
	}
}

/* Fold the attributes of @mask into the shadow context; opt_param bits. */
static uint32_t
qp_apply(struct hermon_qp *qp, const struct prdma_qp_attr *a, uint32_t mask)
{
	struct hermon_dev *hd = qp->hd;
	uint32_t opt = 0, w[4];
	uint8_t mac[6];

	if (mask & PRDMA_QP_QKEY) {
		QPC(q_key, a->qkey);
		qp->attr.qkey = a->qkey;
		opt |= RTE_BIT32(5);
	}
	if (mask & PRDMA_QP_ACCESS_FLAGS) {
		QPC(rre, (a->qp_access_flags & PRDMA_ACCESS_REMOTE_READ) != 0);
		QPC(rwe, (a->qp_access_flags & PRDMA_ACCESS_REMOTE_WRITE) != 0);
		QPC(rae, (a->qp_access_flags & PRDMA_ACCESS_REMOTE_ATOMIC) != 0);
		qp->attr.qp_access_flags = a->qp_access_flags;
		opt |= RTE_BIT32(1) | RTE_BIT32(2) | RTE_BIT32(3);
	}
	if (mask & PRDMA_QP_PKEY_INDEX) {
		QPC(primary_address_path.pkey_index, a->pkey_index);
		qp->attr.pkey_index = a->pkey_index;
		opt |= RTE_BIT32(4);
	}
	if (mask & PRDMA_QP_PORT) {
		/* sched_queue bit 6 selects port 2 */
		QPC(primary_address_path.sched_queue, 0x83 | ((a->port_num - 1) << 6));
		qp->attr.port_num = a->port_num;
		if (qp->pub.qp_type == PRDMA_QPT_UD) {
			QPC(mtu, port_mtu(hd, a->port_num));
			qp->attr.path_mtu = port_mtu(hd, a->port_num);
		}
		opt |= RTE_BIT32(16);
	}
	if (mask & PRDMA_QP_AV) {
		const struct prdma_ah_attr *ah = &a->ah_attr;
		bool ib = ah->port_num >= 1 && ah->port_num <= hd->caps.num_ports &&
			  hd->port[ah->port_num - 1].type == HERMON_PORT_TYPE_IB;

		memcpy(w, ah->dgid.raw, 16);
		QPC(primary_address_path.rgid_127_96, rte_be_to_cpu_32(w[0]));
		QPC(primary_address_path.rgid_95_64, rte_be_to_cpu_32(w[1]));
		QPC(primary_address_path.rgid_63_32, rte_be_to_cpu_32(w[2]));
		QPC(primary_address_path.rgid_31_0, rte_be_to_cpu_32(w[3]));
		QPC(primary_address_path.mgid_index, ah->sgid_index);
		QPC(primary_address_path.hop_limit, ah->hop_limit != 0 ? ah->hop_limit : 64);
		QPC(primary_address_path.tclass, ah->traffic_class);
		QPC(primary_address_path.flow_label, ah->flow_label);
		/* F9: a GRH on IB only when the AH asks for one (Linux
		 * _mlx4_set_path: grh_mylmc bit 7 from ah_flags & IB_AH_GRH);
		 * RoCE always carries it */
		QPC(primary_address_path.grh_ip, !ib || (ah->flags & PRDMA_AH_F_GLOBAL) != 0);
		QPC(primary_address_path.rlid, ah->dlid);
		/* F9: SL in bits 5:2 on IB, priority in bits 5:3 on Ethernet
		 * (Linux _mlx4_set_path) */
		QPC(primary_address_path.sched_queue, 0x83 | ((ah->port_num - 1) << 6) |
		    (ib ? (ah->sl & 0xf) << 2 : (ah->sl & 7) << 3));
		/* F13: the caller's DMAC, or the one the GID gives (checked by
		 * hermon_qp_modify on Ethernet ports) */
		if (hermon_l2_dmac(hd, ah, mac) == 0) {
			QPC(primary_address_path.dmac_47_32, (uint32_t)mac[0] << 8 | mac[1]);
			QPC(primary_address_path.dmac_31_0,
			    (uint32_t)mac[2] << 24 | (uint32_t)mac[3] << 16 |
			    (uint32_t)mac[4] << 8 | mac[5]);
		}
		qp->attr.ah_attr = *ah;
		opt |= RTE_BIT32(7);
	}
	if (mask & PRDMA_QP_PATH_MTU) {
		QPC(mtu, a->path_mtu);
		qp->attr.path_mtu = a->path_mtu;
	}
	if (mask & PRDMA_QP_TIMEOUT) {
		QPC(primary_address_path.ack_timeout, a->timeout);
		qp->attr.timeout = a->timeout;
		opt |= RTE_BIT32(14);
	}
	if (mask & PRDMA_QP_RETRY_CNT) {
		QPC(retry_count, a->retry_cnt);
		qp->attr.retry_cnt = a->retry_cnt;
		opt |= RTE_BIT32(12);
	}
	if (mask & PRDMA_QP_RNR_RETRY) {
		QPC(rnr_retry, a->rnr_retry);
		qp->attr.rnr_retry = a->rnr_retry;
		opt |= RTE_BIT32(13);
	}
	if (mask & PRDMA_QP_RQ_PSN) {
		QPC(next_rcv_psn, a->rq_psn);
		qp->attr.rq_psn = a->rq_psn;
	}
	if (mask & PRDMA_QP_SQ_PSN) {
		QPC(next_send_psn, a->sq_psn);
		qp->attr.sq_psn = a->sq_psn;
	}
	if (mask & PRDMA_QP_MAX_QP_RD_ATOMIC) {
		QPC(sra_max, log2_ceil(RTE_MAX(a->max_rd_atomic, 1)));
		qp->attr.max_rd_atomic = a->max_rd_atomic;
		opt |= RTE_BIT32(8);
	}
	if (mask & PRDMA_QP_MAX_DEST_RD_ATOMIC) {
		QPC(rra_max, log2_ceil(RTE_MAX(a->max_dest_rd_atomic, 1)));
		qp->attr.max_dest_rd_atomic = a->max_dest_rd_atomic;
		opt |= RTE_BIT32(9);
	}
	if (mask & PRDMA_QP_MIN_RNR_TIMER) {
		QPC(min_rnr_nak, a->min_rnr_timer);
		qp->attr.min_rnr_timer = a->min_rnr_timer;
		opt |= RTE_BIT32(6);
	}
	if (mask & PRDMA_QP_DEST_QPN) {
		QPC(remote_qpn_een, a->dest_qp_num);
		qp->attr.dest_qp_num = a->dest_qp_num;
	}
	if (mask & PRDMA_QP_EN_SQD_ASYNC_NOTIFY)
		qp->attr.en_sqd_async_notify = a->en_sqd_async_notify;
	/*
	 * F10: the path of every QP on an Ethernet port says Ethernet (Linux
	 * _mlx4_set_path and the UD INIT2RTR path: ackto = LINK_TYPE_ETH;
	 * mlx4_en en_resources.c likewise).
	 */
	if (qp->attr.port_num >= 1 && qp->attr.port_num <= hd->caps.num_ports &&
	    hd->port[qp->attr.port_num - 1].type == HERMON_PORT_TYPE_ETH) {
		hermon_path_set_link_type(HERMON_NESTED(&qp->qpc, queue_pair_ee_context_entry,
							primary_address_path, address_path),
					  HERMON_PATH_LINK_TYPE_ETH);
		/* F11: the source MAC is the port's MAC-table entry */
		QPC(primary_address_path.my_lid_smac_idx, HERMON_PORT_SMAC_INDEX);
	}
	return opt;
}

/* After 2RST the device starts again at WQE 0: so does the driver. */
static void
qp_reset_queues(struct hermon_qp *qp)
{
	qp->sq_head = 0;
	qp->sq_tail = 0;
	qp->rq_head = 0;
	qp->rq_tail = 0;
	*qp->rq_db = 0;
	sq_own_all(qp);
}

/*
 * One transition command with its mailbox (opt_param mask + the context):
 * F22, Linux __mlx4_qp_modify sends one for every transition but 2RST,
 * 2ERR and RTS2SQD included.
 */
static int
qp_transition(struct hermon_qp *qp, uint16_t op, uint32_t opt)
{
	struct hermon_prm_qp_ee_state_transitions *mb;
	uint32_t in_mod = qp->qpn;
	int ret;

	if (op == HERMON_CMD_RTS2SQD_QP && qp->attr.en_sqd_async_notify)
		in_mod |= RTE_BIT32(31);
	mb = rte_zmalloc("hermon_qp_mbox", sizeof(*mb), 64);
	if (mb == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	HERMON_FILL(mb, qp_ee_state_transitions, opt_param_mask, opt);
	memcpy(HERMON_NESTED(mb, qp_ee_state_transitions, qpc_eec_data,
			     queue_pair_ee_context_entry), &qp->qpc, sizeof(qp->qpc));
	ret = hermon_cmd_qp_modify(&qp->hd->cmd, op, in_mod, 0, mb);
	rte_free(mb);
	return ret;
}

int
hermon_qp_modify(struct prdma_qp *pqp, const struct prdma_qp_attr *attr, uint32_t mask)
{
	struct hermon_qp *qp = (struct hermon_qp *)pqp;
	struct hermon_dev *hd = qp->hd;
	enum prdma_qp_state cur = (enum prdma_qp_state)pqp->state;
	enum prdma_qp_state next = (mask & PRDMA_QP_STATE) ? attr->qp_state : cur;
	struct hermon_prm_qpc_save { struct hermon_prm_queue_pair_ee_context_entry c; } save;
	uint16_t op;
	uint32_t opt;
	int ret;

	/* F15: no more responder resources than the RDMARC table holds */
	if ((mask & PRDMA_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > (1u << hd->icm.log_rd_per_qp)) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	/* QP0/QP1 are per port: the port picks the QPN in the special block */
	if ((mask & PRDMA_QP_PORT) && qp->mlx) {
		ret = hermon_sqp_port(qp, attr->port_num);
		if (ret < 0)
			return ret;
	}
	/*
	 * F13: an RC/UC path on an Ethernet port needs its peer's MAC (the
	 * library's neighbour cache, hermon_l2.c): without one the path is
	 * refused rather than send frames to a zero or wrong MAC.
	 */
	if (mask & PRDMA_QP_AV) {
		ret = hermon_l2_resolve(hd, &attr->ah_attr);
		if (ret < 0) {
			rte_errno = -ret;
			return ret;
		}
	}
	save.c = qp->qpc;
	opt = qp_apply(qp, attr, mask);
	if (next == PRDMA_QPS_RESET) {
		if (cur == PRDMA_QPS_RESET)
			return 0;
		ret = hermon_cmd_qp_modify(&hd->cmd, HERMON_CMD_2RST_QP, qp->qpn, 2, NULL);
		if (ret == 0)
			qp_reset_queues(qp);
		return ret;
	}
	op = qp_cmd(cur, next);
	if (op == HERMON_CMD_2ERR_QP || op == HERMON_CMD_RTS2SQD_QP)
		opt = 0;
	ret = qp_transition(qp, op, opt);
	if (ret < 0)
		qp->qpc = save.c;
	return ret;
}

static enum prdma_qp_state
hw_state(uint32_t s)
{
	static const enum prdma_qp_state map[8] = {
		PRDMA_QPS_RESET, PRDMA_QPS_INIT, PRDMA_QPS_RTR, PRDMA_QPS_RTS,
		PRDMA_QPS_SQE, PRDMA_QPS_SQD, PRDMA_QPS_ERR, PRDMA_QPS_SQD,
	};

	return map[s & 7];
}

static int
qp_query_hw(struct hermon_qp *qp, struct hermon_prm_qp_ee_state_transitions *mb)
{
	return hermon_cmd_query_qp(&qp->hd->cmd, qp->qpn, mb);
}

int
hermon_qp_query(struct prdma_qp *pqp, struct prdma_qp_attr *attr)
{
	struct hermon_qp *qp = (struct hermon_qp *)pqp;
	struct hermon_prm_qp_ee_state_transitions *mb;
	const struct hermon_prm_queue_pair_ee_context_entry *c;
	uint32_t s;
	int ret;

	/* take the events the device raised so far (an error may be among them) */
	pthread_mutex_lock(&qp->hd->ev_lock);
	hermon_eq_poll(qp->hd);
	pthread_mutex_unlock(&qp->hd->ev_lock);
	mb = rte_zmalloc("hermon_qp_mbox", sizeof(*mb), 64);
	if (mb == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	ret = qp_query_hw(qp, mb);
	if (ret < 0) {
		rte_free(mb);
		return ret;
	}
	c = HERMON_NESTED(mb, qp_ee_state_transitions, qpc_eec_data,
			  queue_pair_ee_context_entry);
	*attr = qp->attr;
	s = QPC_GET(c, state);
	/* the device's state is the truth: it moves to ERR by itself */
	pqp->state = (uint8_t)hw_state(s);
	attr->sq_draining = s == 7;
	attr->sq_psn = QPC_GET(c, next_send_psn);
	attr->rq_psn = QPC_GET(c, next_rcv_psn);
	attr->qkey = QPC_GET(c, q_key);
	attr->dest_qp_num = QPC_GET(c, remote_qpn_een);
	attr->min_rnr_timer = (uint8_t)QPC_GET(c, min_rnr_nak);
	attr->retry_cnt = (uint8_t)QPC_GET(c, retry_count);
	attr->rnr_retry = (uint8_t)QPC_GET(c, rnr_retry);
	rte_free(mb);
	return 0;
}

/* Resolve the wr_ids of this QP's CQEs still in @cq: the QP object dies. */
static void
qp_stash(struct hermon_qp *qp, struct hermon_cq *cq)
{
	uint32_t i;

	for (i = cq->ci; i - cq->ci <= cq->mask; i++) {
		const uint8_t *e = cq->buf + (size_t)(i & cq->mask) * 32;
		uint16_t ctr;

		if ((e[31] >> 7) != ((i >> cq->log) & 1))
			break;
		if ((rte_be_to_cpu_32(*(const uint32_t *)e) & 0xffffff) != qp->qpn)
			continue;
		ctr = rte_be_to_cpu_16(*(const uint16_t *)(e + 0x18));
		if (e[31] & 0x40)
			cq->stash[i & cq->mask] = qp->sq_wrid[ctr & qp->sq_mask];
		else if (qp->srq != NULL)
			cq->stash[i & cq->mask] = qp->srq->wrid[ctr & qp->srq->mask];
		else
			cq->stash[i & cq->mask] = qp->rq_wrid[ctr & qp->rq_mask];
		if (cq->stash_ok[i & cq->mask] == 0)
			cq->stash_n++;
		cq->stash_ok[i & cq->mask] = 1;
	}
}

int
hermon_qp_destroy(struct prdma_qp *pqp)
{
	struct hermon_qp *qp = (struct hermon_qp *)pqp;
	struct hermon_dev *hd = qp->hd;
	struct hermon_prm_qp_ee_state_transitions *mb;
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * HERMON_FLUSH_WAIT_MS;
	int ret;

	/* no datagram may reach this QPN once it is free to be reused */
	if (pqp->qp_type == PRDMA_QPT_UD)
		hermon_mcast_qp_gone(hd, qp->qpn);
	if (pqp->state != PRDMA_QPS_RESET) {
		ret = qp_transition(qp, HERMON_CMD_2ERR_QP, 0);
		mb = rte_zmalloc("hermon_qp_mbox", sizeof(*mb), 64);
		/* the device flushes what it holds; wait until it has */
		while (ret == 0 && mb != NULL && rte_get_tsc_cycles() < end) {
			const struct hermon_prm_queue_pair_ee_context_entry *c =
				HERMON_NESTED(mb, qp_ee_state_transitions, qpc_eec_data,
					      queue_pair_ee_context_entry);
			struct timespec ts = { 0, 50000 };

			if (qp_query_hw(qp, mb) < 0)
				break;
			if (QPC_GET(c, sq_wqe_counter) == (qp->sq_head & 0xffff) &&
			    (qp->srq != NULL ||
			     QPC_GET(c, rq_wqe_counter) == (qp->rq_head & 0xffff)))
				break;
			nanosleep(&ts, NULL);
		}
		rte_free(mb);
		qp_stash(qp, (struct hermon_cq *)pqp->send_cq);
		if (pqp->recv_cq != pqp->send_cq)
			qp_stash(qp, (struct hermon_cq *)pqp->recv_cq);
		ret = hermon_cmd_qp_modify(&hd->cmd, HERMON_CMD_2RST_QP, qp->qpn, 2, NULL);
		if (ret < 0)
			return ret;
	}
	/* only the slot's owner clears it (security review F8, issue 13) */
	pthread_mutex_lock(&hd->ev_lock);
	if (hd->qp_table[qp->qpn] == qp)
		hd->qp_table[qp->qpn] = NULL;
	pthread_mutex_unlock(&hd->ev_lock);
	if (pqp->send_cq != NULL)
		hermon_cq_forget_qp((struct hermon_cq *)pqp->send_cq, qp);
	if (pqp->recv_cq != NULL)
		hermon_cq_forget_qp((struct hermon_cq *)pqp->recv_cq, qp);
	hermon_bf_free(hd, qp);
	rte_free(qp->sq_wrid);
	rte_free(qp->rq_wrid);
	hermon_queue_free(hd, &qp->mem);
	if (qp->mlx)
		hermon_sqp_free(qp);
	else
		hermon_bitmap_free(&hd->qps, qp->qpn);
	return 0;
}
