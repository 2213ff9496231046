/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * QPs and SRQs on an id, made through the verbs library. As librdmacm,
 * rdma_create_qp() creates the CQs (each with a completion channel) the
 * program leaves out, uses a per-device PD when it gives none, and moves
 * the QP at once to INIT (RC/UC: receives may be posted before connect)
 * or to RTS (UD, Q_Key RDMA_UDP_QKEY).
 */

#include <string.h>

#include "rdmacm_private.h"

void
rcm_qp_sync(struct rcm_id *id)
{
	if (id->pub.qp != NULL)
		prdma_verbs_qp_sync_state(id->pub.qp);
}

int
rcm_qp_prepare(struct rcm_id *id, struct ibv_qp *vqp)
{
	struct prdma_qp *qp = prdma_verbs_qp(vqp);
	struct prdma_qp_attr a;
	int ret;

	if (qp == NULL)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = id->pub.port_num;
	a.pkey_index = 0;
	if (qp->qp_type == PRDMA_QPT_UD) {
		a.qkey = RDMA_UDP_QKEY;
		ret = prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
				      PRDMA_QP_PORT | PRDMA_QP_QKEY);
		if (ret == 0) {
			a.qp_state = PRDMA_QPS_RTR;
			ret = prdma_qp_modify(qp, &a, PRDMA_QP_STATE);
		}
		if (ret == 0) {
			a.qp_state = PRDMA_QPS_RTS;
			a.sq_psn = 0;
			ret = prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN);
		}
	} else {
		/* READ is granted here; the CM bounds it at RTR with the
		 * responder resources both sides agreed. */
		a.qp_access_flags = PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE |
				    PRDMA_ACCESS_REMOTE_READ;
		if (qp->qp_type == PRDMA_QPT_RC)
			a.qp_access_flags |= PRDMA_ACCESS_REMOTE_ATOMIC;
		ret = prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
				      PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS);
	}
	prdma_verbs_qp_sync_state(vqp);
	return ret;
}

static void
cq_free(struct ibv_cq **cq, struct ibv_comp_channel **ch)
{
	if (*cq != NULL)
		ibv_destroy_cq(*cq);
	if (*ch != NULL)
		ibv_destroy_comp_channel(*ch);
	*cq = NULL;
	*ch = NULL;
}

void
rcm_cqs_destroy(struct rcm_id *id)
{
	if (id->own_send_cq)
		cq_free(&id->pub.send_cq, &id->pub.send_cq_channel);
	if (id->own_recv_cq)
		cq_free(&id->pub.recv_cq, &id->pub.recv_cq_channel);
	id->own_send_cq = false;
	id->own_recv_cq = false;
}

static int
cq_make(struct rcm_id *id, uint32_t depth, struct ibv_cq **cq,
	struct ibv_comp_channel **ch)
{
	*ch = ibv_create_comp_channel(id->pub.verbs);
	if (*ch == NULL)
		return -1;
	*cq = ibv_create_cq(id->pub.verbs, depth != 0 ? (int)depth : 1, id, *ch, 0);
	if (*cq == NULL) {
		ibv_destroy_comp_channel(*ch);
		*ch = NULL;
		return -1;
	}
	return 0;
}

/* The CQs the program left out of its attributes. */
static int
cqs_fill(struct rcm_id *id, struct ibv_cq **scq, struct ibv_cq **rcq,
	 const struct ibv_qp_cap *cap)
{
	if (*rcq == NULL) {
		if (id->pub.recv_cq == NULL) {
			if (cq_make(id, cap->max_recv_wr, &id->pub.recv_cq,
				    &id->pub.recv_cq_channel) < 0)
				return -1;
			id->own_recv_cq = true;
		}
		*rcq = id->pub.recv_cq;
	}
	if (*scq == NULL) {
		if (id->pub.send_cq == NULL) {
			if (cq_make(id, cap->max_send_wr, &id->pub.send_cq,
				    &id->pub.send_cq_channel) < 0)
				return -1;
			id->own_send_cq = true;
		}
		*scq = id->pub.send_cq;
	}
	return 0;
}

static struct ibv_pd *
pick_pd(struct rcm_id *id, struct ibv_pd *pd)
{
	if (pd == NULL)
		pd = id->pub.pd;
	if (pd == NULL)
		pd = rcm_default_pd(id->pub.verbs);
	if (pd != NULL && pd->context != id->pub.verbs) {
		errno = EINVAL;
		return NULL;
	}
	return pd;
}

static int
qp_done(struct rcm_id *id, struct ibv_qp *qp, struct ibv_pd *pd)
{
	int ret;

	if (qp == NULL) {
		ret = errno != 0 ? errno : ENOMEM;
		rcm_cqs_destroy(id);
		return rcm_fail(ret);
	}
	id->pub.qp = qp;
	id->pub.pd = pd;
	id->pub.qp_type = qp->qp_type;
	ret = rcm_qp_prepare(id, qp);
	if (ret < 0) {
		id->pub.qp = NULL;
		ibv_destroy_qp(qp);
		rcm_cqs_destroy(id);
		return rcm_fail(-ret);
	}
	return 0;
}

int
rdma_create_qp(struct rdma_cm_id *pub, struct ibv_pd *pd,
	       struct ibv_qp_init_attr *attr)
{
	struct rcm_id *id = (struct rcm_id *)pub;

	if (id == NULL || attr == NULL || pub->verbs == NULL || pub->qp != NULL)
		return rcm_fail(EINVAL);
	pd = pick_pd(id, pd);
	if (pd == NULL)
		return -1;
	if (attr->srq == NULL)
		attr->srq = pub->srq;
	if (cqs_fill(id, &attr->send_cq, &attr->recv_cq, &attr->cap) < 0)
		return rcm_fail(errno != 0 ? errno : ENOMEM);
	errno = 0;
	return qp_done(id, ibv_create_qp(pd, attr), pd);
}

int
rdma_create_qp_ex(struct rdma_cm_id *pub, struct ibv_qp_init_attr_ex *attr)
{
	struct rcm_id *id = (struct rcm_id *)pub;
	struct ibv_pd *pd;

	if (id == NULL || attr == NULL || pub->verbs == NULL || pub->qp != NULL)
		return rcm_fail(EINVAL);
	pd = pick_pd(id, (attr->comp_mask & IBV_QP_INIT_ATTR_PD) ? attr->pd : NULL);
	if (pd == NULL)
		return -1;
	attr->pd = pd;
	attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
	if (attr->srq == NULL)
		attr->srq = pub->srq;
	if (cqs_fill(id, &attr->send_cq, &attr->recv_cq, &attr->cap) < 0)
		return rcm_fail(errno != 0 ? errno : ENOMEM);
	errno = 0;
	return qp_done(id, ibv_create_qp_ex(pub->verbs, attr), pd);
}

void
rdma_destroy_qp(struct rdma_cm_id *pub)
{
	struct rcm_id *id = (struct rcm_id *)pub;

	if (pub == NULL || pub->qp == NULL)
		return;
	/* The CM must not touch the QP again, even for a late DREQ. */
	if (id->pid != NULL)
		prdma_cm_id_release_qp(id->pid);
	ibv_destroy_qp(pub->qp);
	pub->qp = NULL;
}

int
rdma_create_srq(struct rdma_cm_id *pub, struct ibv_pd *pd,
		struct ibv_srq_init_attr *attr)
{
	struct rcm_id *id = (struct rcm_id *)pub;
	struct ibv_srq *srq;

	if (id == NULL || attr == NULL || pub->verbs == NULL || pub->srq != NULL)
		return rcm_fail(EINVAL);
	pd = pick_pd(id, pd);
	if (pd == NULL)
		return -1;
	srq = ibv_create_srq(pd, attr);
	if (srq == NULL)
		return -1;
	pub->srq = srq;
	pub->pd = pd;
	return 0;
}

int
rdma_create_srq_ex(struct rdma_cm_id *pub, struct ibv_srq_init_attr_ex *attr)
{
	struct rcm_id *id = (struct rcm_id *)pub;
	struct ibv_srq *srq;
	struct ibv_pd *pd;

	if (id == NULL || attr == NULL || pub->verbs == NULL || pub->srq != NULL)
		return rcm_fail(EINVAL);
	pd = pick_pd(id, (attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) ? attr->pd : NULL);
	if (pd == NULL)
		return -1;
	attr->pd = pd;
	attr->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
	srq = ibv_create_srq_ex(pub->verbs, attr);
	if (srq == NULL)
		return -1;
	pub->srq = srq;
	pub->pd = pd;
	return 0;
}

void
rdma_destroy_srq(struct rdma_cm_id *pub)
{
	if (pub == NULL || pub->srq == NULL)
		return;
	ibv_destroy_srq(pub->srq);
	pub->srq = NULL;
}
