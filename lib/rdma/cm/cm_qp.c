/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Moving the application's QP with what the CM exchanged, as rdma_cm does:
 * INIT before the REQ/REP goes out, RTR and RTS once the peer's QPN and
 * PSN are known, ERR when the connection ends.
 */

#include <string.h>

#include "cm_private.h"

static uint32_t
rc_access(const struct cm_id_priv *id)
{
	uint32_t a = PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE;

	/* READ and atomics only where the CM grants responder resources. */
	if (id->pub.qp->qp_type == PRDMA_QPT_RC && id->resp_res > 0)
		a |= PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_ATOMIC;
	return a;
}

static int
ud_up(struct cm_id_priv *id, struct prdma_qp *qp)
{
	struct prdma_qp_attr a;
	int ret;

	if (qp->state == PRDMA_QPS_RTS)
		return 0;
	memset(&a, 0, sizeof(a));
	if (qp->state == PRDMA_QPS_RESET) {
		a.qp_state = PRDMA_QPS_INIT;
		a.port_num = id->pub.port_num;
		a.qkey = id->qkey;
		ret = prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
				      PRDMA_QP_PORT | PRDMA_QP_QKEY);
		if (ret < 0)
			return ret;
	}
	if (qp->state == PRDMA_QPS_INIT) {
		a.qp_state = PRDMA_QPS_RTR;
		ret = prdma_qp_modify(qp, &a, PRDMA_QP_STATE);
		if (ret < 0)
			return ret;
	}
	if (qp->state != PRDMA_QPS_RTR)
		return -EINVAL;
	a.qp_state = PRDMA_QPS_RTS;
	a.sq_psn = prdma_random32() & 0xffffff;
	return prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN);
}

int
cm_qp_init(struct cm_id_priv *id, struct prdma_qp *qp)
{
	struct prdma_qp_attr a;
	int ret;

	id->pub.qp = qp;
	if (qp->qp_type == PRDMA_QPT_UD)
		return ud_up(id, qp);
	if (qp->state == PRDMA_QPS_INIT)
		return 0;
	if (qp->state != PRDMA_QPS_RESET)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = id->pub.port_num;
	a.qp_access_flags = rc_access(id);
	ret = prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
			      PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS);
	return ret;
}

int
cm_qp_rtr_rts(struct cm_id_priv *id)
{
	struct prdma_qp *qp = id->pub.qp;
	bool rc = qp->qp_type == PRDMA_QPT_RC;
	struct prdma_qp_attr a;
	uint32_t mask;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.ah_attr.dgid = id->dgid;
	a.ah_attr.sgid_index = id->sgid_index;
	a.ah_attr.hop_limit = id->hop_limit;
	a.ah_attr.traffic_class = id->traffic_class;
	a.ah_attr.flow_label = id->flow_label;
	a.ah_attr.port_num = id->pub.port_num;
	/* Under cm_lock: never wait for ARP (F2), EAGAIN instead. */
	a.ah_attr.flags = PRDMA_AH_F_NOWAIT;
	a.path_mtu = id->path_mtu;
	a.dest_qp_num = id->remote_qpn;
	a.rq_psn = id->rq_psn;
	mask = PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
	       PRDMA_QP_RQ_PSN;
	if (rc) {
		a.max_dest_rd_atomic = id->resp_res;
		a.min_rnr_timer = id->min_rnr_timer;
		mask |= PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER;
	}
	ret = prdma_qp_modify(qp, &a, mask);
	if (ret == -EAGAIN)
		return ret;                  /* the MAC is still resolving */
	if (ret < 0) {
		CM_LOG(ERR, "QP %u: RTR refused (%d)", qp->qp_num, ret);
		return ret;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTS;
	a.sq_psn = id->sq_psn;
	mask = PRDMA_QP_STATE | PRDMA_QP_SQ_PSN;
	if (rc) {
		a.timeout = id->ack_timeout;
		a.retry_cnt = id->retry_count;
		a.rnr_retry = id->rnr_retry;
		a.max_rd_atomic = id->init_depth;
		mask |= PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
			PRDMA_QP_MAX_QP_RD_ATOMIC;
	}
	ret = prdma_qp_modify(qp, &a, mask);
	if (ret < 0)
		CM_LOG(ERR, "QP %u: RTS refused (%d)", qp->qp_num, ret);
	return ret;
}

void
cm_qp_error(struct cm_id_priv *id)
{
	struct prdma_qp_attr a;
	struct prdma_qp *qp = id->pub.qp;

	if (qp == NULL || qp->state == PRDMA_QPS_RESET || qp->state == PRDMA_QPS_ERR)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_ERR;
	if (prdma_qp_modify(qp, &a, PRDMA_QP_STATE) < 0)
		CM_LOG(WARNING, "QP %u: cannot move to ERR", qp->qp_num);
}
