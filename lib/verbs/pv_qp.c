/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Queue pairs, shared receive queues, address handles, multicast. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "pv_private.h"

static int
err_of(int neg)
{
	if (neg == -ENOTSUP)
		return EOPNOTSUPP;
	return neg < 0 ? -neg : EINVAL;
}

/* ---------------------------------------------------------------- AH */

int
pv_ah_attr_to_prdma(struct prdma_ah_attr *out, const struct ibv_ah_attr *in)
{
	memset(out, 0, sizeof(*out));
	/* RoCE needs the GRH: the destination is a GID, not a LID. */
	if (!in->is_global)
		return EINVAL;
	memcpy(out->dgid.raw, in->grh.dgid.raw, sizeof(out->dgid.raw));
	out->flow_label = in->grh.flow_label;
	out->sgid_index = in->grh.sgid_index;
	out->hop_limit = in->grh.hop_limit;
	out->traffic_class = in->grh.traffic_class;
	out->sl = in->sl;
	out->port_num = in->port_num;
	out->dlid = in->dlid;
	return 0;
}

void
pv_ah_attr_from_prdma(struct ibv_ah_attr *out, const struct prdma_ah_attr *in)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->grh.dgid.raw, in->dgid.raw, sizeof(in->dgid.raw));
	out->grh.flow_label = in->flow_label;
	out->grh.sgid_index = in->sgid_index;
	out->grh.hop_limit = in->hop_limit;
	out->grh.traffic_class = in->traffic_class;
	out->sl = in->sl;
	out->port_num = in->port_num;
	out->dlid = in->dlid;
	out->is_global = 1;
}

struct ibv_ah *
ibv_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr)
{
	struct pv_pd *pd = container_of(ibpd, struct pv_pd, pd);
	struct prdma_ah_attr pa;
	struct pv_ah *ah;
	int ret;

	if (ibpd == NULL || pd->magic != PV_MAGIC_PD || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ret = pv_ah_attr_to_prdma(&pa, attr);
	if (ret != 0) {
		errno = ret;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (ah == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ah->pah = prdma_ah_create(pd->ppd, &pa);
	if (ah->pah == NULL) {
		errno = rte_errno != 0 ? rte_errno : EINVAL;
		free(ah);
		return NULL;
	}
	ah->magic = PV_MAGIC_AH;
	ah->ah.context = ibpd->context;
	ah->ah.pd = ibpd;
	return &ah->ah;
}

int
ibv_destroy_ah(struct ibv_ah *ibah)
{
	struct pv_ah *ah = container_of(ibah, struct pv_ah, ah);
	int ret;

	if (ibah == NULL || ah->magic != PV_MAGIC_AH)
		return EINVAL;
	ret = prdma_ah_destroy(ah->pah);
	if (ret < 0)
		return err_of(ret);
	ah->magic = 0;
	free(ah);
	return 0;
}

/*
 * A RoCEv2 datagram over IPv4 leaves 20 zero bytes and then its IPv4
 * header in the 40-byte GRH area (rdma-core's providers and rxe lay it out
 * so; an IPv6 or IB GRH starts with version 6 instead).
 */
static int
grh_is_ipv4(const struct ibv_grh *grh)
{
	static const uint8_t zero[20];
	const uint8_t *area = (const uint8_t *)grh;

	return memcmp(area, zero, sizeof(zero)) == 0 && (area[20] >> 4) == 4;
}

/* ::ffff:a.b.c.d, RoCEv2's GID of an IPv4 address. */
static void
pv_gid_v4mapped(union ibv_gid *g, const uint8_t *ip4)
{
	memset(g->raw, 0, sizeof(g->raw));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	memcpy(&g->raw[12], ip4, 4);
}

/* The reply path of a received datagram: the GRH's source is the peer. */
int
ibv_init_ah_from_wc(struct ibv_context *c, uint8_t port, struct ibv_wc *wc,
		    struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
	const uint8_t *area = (const uint8_t *)grh;
	union ibv_gid gid, local;
	uint32_t flow;
	int i;

	if (c == NULL || wc == NULL || ah_attr == NULL)
		return pv_err(EINVAL), -1;
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port;
	if (!(wc->wc_flags & IBV_WC_GRH) || grh == NULL)
		return pv_err(EINVAL), -1; /* RoCE datagrams always carry one */
	ah_attr->is_global = 1;
	ah_attr->grh.hop_limit = 0xff;
	if (grh_is_ipv4(grh)) {
		pv_gid_v4mapped(&ah_attr->grh.dgid, area + 20 + 12);  /* source */
		pv_gid_v4mapped(&local, area + 20 + 16);               /* destination */
		ah_attr->grh.traffic_class = area[20 + 1];
	} else {
		memcpy(ah_attr->grh.dgid.raw, grh->sgid.raw, sizeof(grh->sgid.raw));
		memcpy(local.raw, grh->dgid.raw, sizeof(local.raw));
		flow = be32toh(grh->version_tclass_flow);
		ah_attr->grh.flow_label = flow & 0xfffff;
		ah_attr->grh.traffic_class = (flow >> 20) & 0xff;
	}
	for (i = 0; i < 256; i++) {
		if (ibv_query_gid(c, port, i, &gid) != 0)
			break;
		if (memcmp(gid.raw, local.raw, sizeof(gid.raw)) == 0) {
			ah_attr->grh.sgid_index = (uint8_t)i;
			return 0;
		}
	}
	return pv_err(ENOENT), -1;
}

struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
		      uint8_t port)
{
	struct ibv_ah_attr attr;

	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (ibv_init_ah_from_wc(pd->context, port, wc, grh, &attr) != 0)
		return NULL;
	return ibv_create_ah(pd, &attr);
}

/* --------------------------------------------------------------- SRQ */

struct ibv_srq *
ibv_create_srq(struct ibv_pd *ibpd, struct ibv_srq_init_attr *attr)
{
	struct pv_pd *pd = container_of(ibpd, struct pv_pd, pd);
	struct prdma_srq_init_attr ia;
	struct pv_srq *srq;

	if (ibpd == NULL || pd->magic != PV_MAGIC_PD || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (srq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&ia, 0, sizeof(ia));
	ia.attr.max_wr = attr->attr.max_wr;
	ia.attr.max_sge = attr->attr.max_sge;
	ia.attr.srq_limit = attr->attr.srq_limit;
	ia.srq_context = srq;
	srq->psrq = prdma_srq_create(pd->ppd, &ia);
	if (srq->psrq == NULL) {
		errno = rte_errno != 0 ? rte_errno : EINVAL;
		free(srq);
		return NULL;
	}
	attr->attr.max_wr = ia.attr.max_wr;
	attr->attr.max_sge = ia.attr.max_sge;
	srq->magic = PV_MAGIC_SRQ;
	srq->srq.context = ibpd->context;
	srq->srq.srq_context = attr->srq_context;
	srq->srq.pd = ibpd;
	srq->srq.handle = srq->psrq->srq_num;
	pthread_mutex_init(&srq->srq.mutex, NULL);
	pthread_cond_init(&srq->srq.cond, NULL);
	return &srq->srq;
}

int
ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	struct pv_srq *srq = container_of(ibsrq, struct pv_srq, srq);
	struct prdma_srq_attr pa;
	uint32_t pm = 0;
	int ret;

	if (ibsrq == NULL || srq->magic != PV_MAGIC_SRQ || attr == NULL ||
	    (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)) != 0)
		return EINVAL;
	pa.max_wr = attr->max_wr;
	pa.max_sge = attr->max_sge;
	pa.srq_limit = attr->srq_limit;
	if (mask & IBV_SRQ_MAX_WR)
		pm |= PRDMA_SRQ_MAX_WR;
	if (mask & IBV_SRQ_LIMIT)
		pm |= PRDMA_SRQ_LIMIT;
	ret = prdma_srq_modify(srq->psrq, &pa, pm);
	return ret < 0 ? err_of(ret) : 0;
}

int
ibv_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct pv_srq *srq = container_of(ibsrq, struct pv_srq, srq);
	struct prdma_srq_attr pa;
	int ret;

	if (ibsrq == NULL || srq->magic != PV_MAGIC_SRQ || attr == NULL)
		return EINVAL;
	ret = prdma_srq_query(srq->psrq, &pa);
	if (ret < 0)
		return err_of(ret);
	attr->max_wr = pa.max_wr;
	attr->max_sge = pa.max_sge;
	attr->srq_limit = pa.srq_limit;
	return 0;
}

int
ibv_destroy_srq(struct ibv_srq *ibsrq)
{
	struct pv_srq *srq = container_of(ibsrq, struct pv_srq, srq);
	int ret;

	if (ibsrq == NULL || srq->magic != PV_MAGIC_SRQ)
		return EINVAL;
	ret = prdma_srq_destroy(srq->psrq);
	if (ret < 0)
		return err_of(ret);
	srq->magic = 0;
	pthread_cond_destroy(&ibsrq->cond);
	pthread_mutex_destroy(&ibsrq->mutex);
	free(srq);
	return 0;
}

/* ---------------------------------------------------------------- QP */

struct ibv_qp *
ibv_create_qp(struct ibv_pd *ibpd, struct ibv_qp_init_attr *attr)
{
	struct pv_pd *pd = container_of(ibpd, struct pv_pd, pd);
	struct prdma_qp_init_attr ia;
	struct pv_cq *scq, *rcq;
	struct pv_srq *srq = NULL;
	struct pv_qp *qp;

	if (ibpd == NULL || pd->magic != PV_MAGIC_PD || attr == NULL ||
	    attr->send_cq == NULL || attr->recv_cq == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	scq = container_of(attr->send_cq, struct pv_cq, cq);
	rcq = container_of(attr->recv_cq, struct pv_cq, cq);
	if (attr->srq != NULL)
		srq = container_of(attr->srq, struct pv_srq, srq);
	if (scq->magic != PV_MAGIC_CQ || rcq->magic != PV_MAGIC_CQ ||
	    (srq != NULL && srq->magic != PV_MAGIC_SRQ)) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (qp == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = (enum prdma_qp_type)attr->qp_type;
	ia.send_cq = scq->pcq;
	ia.recv_cq = rcq->pcq;
	ia.srq = srq != NULL ? srq->psrq : NULL;
	ia.cap.max_send_wr = attr->cap.max_send_wr;
	ia.cap.max_recv_wr = srq != NULL ? 0 : attr->cap.max_recv_wr;
	ia.cap.max_send_sge = attr->cap.max_send_sge;
	ia.cap.max_recv_sge = srq != NULL ? 0 : attr->cap.max_recv_sge;
	ia.cap.max_inline_data = attr->cap.max_inline_data;
	ia.sq_sig_all = attr->sq_sig_all != 0;
	ia.qp_context = qp;
	qp->pqp = prdma_qp_create(pd->ppd, &ia);
	if (qp->pqp == NULL) {
		errno = rte_errno != 0 ? rte_errno : EINVAL;
		free(qp);
		return NULL;
	}
	attr->cap.max_send_wr = ia.cap.max_send_wr;
	attr->cap.max_send_sge = ia.cap.max_send_sge;
	attr->cap.max_inline_data = ia.cap.max_inline_data;
	if (srq == NULL) {
		attr->cap.max_recv_wr = ia.cap.max_recv_wr;
		attr->cap.max_recv_sge = ia.cap.max_recv_sge;
	}
	qp->magic = PV_MAGIC_QP;
	qp->qp.context = ibpd->context;
	qp->qp.qp_context = attr->qp_context;
	qp->qp.pd = ibpd;
	qp->qp.send_cq = attr->send_cq;
	qp->qp.recv_cq = attr->recv_cq;
	qp->qp.srq = attr->srq;
	qp->qp.handle = qp->pqp->qp_num;
	qp->qp.qp_num = qp->pqp->qp_num;
	qp->qp.state = IBV_QPS_RESET;
	qp->qp.qp_type = attr->qp_type;
	pthread_mutex_init(&qp->qp.mutex, NULL);
	pthread_cond_init(&qp->qp.cond, NULL);
	return &qp->qp;
}

/* Attribute bits prdma takes; their IBV_QP_* values are prdma's. */
#define PV_QP_MASK (IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY | \
		    IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY | \
		    IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
		    IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC | \
		    IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | \
		    IBV_QP_DEST_QPN)

int
ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	struct pv_qp *qp;
	struct prdma_qp_attr pa;
	int ret;

	if (ibqp == NULL || attr == NULL)
		return EINVAL;
	qp = pv_qp(ibqp);
	if (qp->magic != PV_MAGIC_QP || ((unsigned int)mask & ~(unsigned int)PV_QP_MASK) != 0)
		return EINVAL;
	memset(&pa, 0, sizeof(pa));
	pa.qp_state = (enum prdma_qp_state)attr->qp_state;
	pa.cur_qp_state = (enum prdma_qp_state)attr->cur_qp_state;
	pa.path_mtu = (uint8_t)attr->path_mtu;
	pa.en_sqd_async_notify = attr->en_sqd_async_notify;
	pa.max_rd_atomic = attr->max_rd_atomic;
	pa.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	pa.min_rnr_timer = attr->min_rnr_timer;
	pa.port_num = attr->port_num;
	pa.timeout = attr->timeout;
	pa.retry_cnt = attr->retry_cnt;
	pa.rnr_retry = attr->rnr_retry;
	pa.pkey_index = attr->pkey_index;
	pa.qkey = attr->qkey;
	pa.rq_psn = attr->rq_psn;
	pa.sq_psn = attr->sq_psn;
	pa.dest_qp_num = attr->dest_qp_num;
	/* Local write is implied for a QP; the remote bits are prdma's. */
	pa.qp_access_flags = attr->qp_access_flags &
		(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (mask & IBV_QP_AV) {
		ret = pv_ah_attr_to_prdma(&pa.ah_attr, &attr->ah_attr);
		if (ret != 0)
			return ret;
		if (!(mask & IBV_QP_PORT) && attr->ah_attr.port_num == 0)
			pa.ah_attr.port_num = 1;
	}
	ret = prdma_qp_modify(qp->pqp, &pa, (uint32_t)mask);
	if (ret < 0)
		return err_of(ret);
	ibqp->state = (enum ibv_qp_state)qp->pqp->state;
	return 0;
}

void
pv_qp_attr_from_prdma(struct ibv_qp_attr *out, const struct prdma_qp_attr *in)
{
	memset(out, 0, sizeof(*out));
	out->qp_state = (enum ibv_qp_state)in->qp_state;
	out->cur_qp_state = (enum ibv_qp_state)in->cur_qp_state;
	out->path_mtu = (enum ibv_mtu)in->path_mtu;
	out->path_mig_state = IBV_MIG_MIGRATED;
	out->qkey = in->qkey;
	out->rq_psn = in->rq_psn;
	out->sq_psn = in->sq_psn;
	out->dest_qp_num = in->dest_qp_num;
	out->qp_access_flags = (unsigned int)in->qp_access_flags;
	out->cap.max_send_wr = in->cap.max_send_wr;
	out->cap.max_recv_wr = in->cap.max_recv_wr;
	out->cap.max_send_sge = in->cap.max_send_sge;
	out->cap.max_recv_sge = in->cap.max_recv_sge;
	out->cap.max_inline_data = in->cap.max_inline_data;
	pv_ah_attr_from_prdma(&out->ah_attr, &in->ah_attr);
	out->pkey_index = in->pkey_index;
	out->en_sqd_async_notify = in->en_sqd_async_notify;
	out->sq_draining = in->sq_draining;
	out->max_rd_atomic = in->max_rd_atomic;
	out->max_dest_rd_atomic = in->max_dest_rd_atomic;
	out->min_rnr_timer = in->min_rnr_timer;
	out->port_num = in->port_num;
	out->timeout = in->timeout;
	out->retry_cnt = in->retry_cnt;
	out->rnr_retry = in->rnr_retry;
}

int
ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
	     struct ibv_qp_init_attr *init_attr)
{
	struct prdma_qp_attr pa;
	struct pv_qp *qp;
	int ret;

	RTE_SET_USED(mask); /* every attribute is returned, as providers do */
	if (ibqp == NULL || attr == NULL)
		return EINVAL;
	qp = pv_qp(ibqp);
	if (qp->magic != PV_MAGIC_QP)
		return EINVAL;
	ret = prdma_qp_query(qp->pqp, &pa, NULL);
	if (ret < 0)
		return err_of(ret);
	pv_qp_attr_from_prdma(attr, &pa);
	ibqp->state = attr->qp_state;
	if (init_attr != NULL) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = ibqp->qp_context;
		init_attr->send_cq = ibqp->send_cq;
		init_attr->recv_cq = ibqp->recv_cq;
		init_attr->srq = ibqp->srq;
		init_attr->cap = attr->cap;
		init_attr->qp_type = ibqp->qp_type;
	}
	return 0;
}

int
ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct pv_qp *qp;
	int ret;

	if (ibqp == NULL)
		return EINVAL;
	qp = pv_qp(ibqp);
	if (qp->magic != PV_MAGIC_QP)
		return EINVAL;
	ret = prdma_qp_destroy(qp->pqp);
	if (ret < 0)
		return err_of(ret);
	qp->magic = 0;
	pthread_cond_destroy(&ibqp->cond);
	pthread_mutex_destroy(&ibqp->mutex);
	free(qp);
	return 0;
}

struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	RTE_SET_USED(qp);
	return NULL; /* no QP is created with the extended post API */
}

int
ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	RTE_SET_USED(qp);
	RTE_SET_USED(op);
	RTE_SET_USED(flags);
	return 0;
}

/* --------------------------------------------------------- multicast */

static int
mcast(struct ibv_qp *ibqp, const union ibv_gid *gid, int attach)
{
	union prdma_gid pg;
	struct pv_qp *qp;
	int ret;

	if (ibqp == NULL || gid == NULL)
		return EINVAL;
	qp = pv_qp(ibqp);
	if (qp->magic != PV_MAGIC_QP)
		return EINVAL;
	memcpy(pg.raw, gid->raw, sizeof(pg.raw));
	ret = attach ? prdma_qp_attach_mcast(qp->pqp, &pg) : prdma_qp_detach_mcast(qp->pqp, &pg);
	return ret < 0 ? err_of(ret) : 0;
}

int
ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	RTE_SET_USED(lid);
	return mcast(qp, gid, 1);
}

int
ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	RTE_SET_USED(lid);
	return mcast(qp, gid, 0);
}
