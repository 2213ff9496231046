/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Connections: connect, accept, reject, disconnect over prdma's CM, which
 * moves the id's QP (made by rdma_create_qp) through RTR and RTS itself,
 * as librdmacm does for a QP it made. rdma_establish() and
 * rdma_init_qp_attr() answer for such a QP.
 */

#include <string.h>

#include "rdmacm_private.h"

static void
to_prdma_param(const struct rcm_id *id, const struct rdma_conn_param *c,
	       struct prdma_cm_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->ack_timeout = id->ack_timeout;
	if (c == NULL) {
		p->retry_count = 7;
		p->rnr_retry_count = 7;
		return;
	}
	p->private_data = c->private_data;
	p->private_data_len = c->private_data != NULL ? c->private_data_len : 0;
	p->responder_resources = c->responder_resources;
	p->initiator_depth = c->initiator_depth;
	p->retry_count = c->retry_count;
	p->rnr_retry_count = c->rnr_retry_count;
	p->flow_control = c->flow_control;
}

static struct prdma_qp *
id_qp(struct rcm_id *id)
{
	if (id->pub.qp == NULL)
		return NULL;
	return prdma_verbs_qp(id->pub.qp);
}

int
rdma_connect(struct rdma_cm_id *pub, struct rdma_conn_param *conn_param)
{
	struct rcm_id *id = (struct rcm_id *)pub;
	struct prdma_cm_conn_param p;
	struct prdma_qp *qp;
	int ret;

	if (id == NULL || id->pid == NULL || pub->route.addr.dst_addr.sa_family == 0)
		return rcm_fail(EINVAL);
	/* prdma's CM drives the QP: it must be one rdma_create_qp() made. */
	qp = id_qp(id);
	if (qp == NULL)
		return rcm_fail(EINVAL);
	to_prdma_param(id, conn_param, &p);
	if (pub->qp_type == IBV_QPT_UD)
		p.qkey = RDMA_UDP_QKEY;
	ret = prdma_cm_connect(id->pid, qp, &pub->route.addr.dst_addr, &p);
	rcm_qp_sync(id);
	if (ret < 0)
		return rcm_fail(-ret);
	return id->sync ? rcm_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED) : 0;
}

int
rdma_accept(struct rdma_cm_id *pub, struct rdma_conn_param *conn_param)
{
	struct rcm_id *id = (struct rcm_id *)pub;
	struct prdma_cm_conn_param p;
	struct prdma_qp *qp;
	int ret;

	if (id == NULL || id->pid == NULL || id->listening)
		return rcm_fail(EINVAL);
	qp = id_qp(id);
	if (qp == NULL)
		return rcm_fail(EINVAL);
	to_prdma_param(id, conn_param, &p);
	if (conn_param == NULL) {
		/* librdmacm answers a request with what it asked for. */
		p.responder_resources = id->req_resp_res;
		p.initiator_depth = id->req_init_depth;
	}
	if (pub->qp_type == IBV_QPT_UD)
		p.qkey = RDMA_UDP_QKEY;
	if (id->sync)
		rcm_sync_release(id);
	ret = prdma_cm_accept(id->pid, qp, &p);
	rcm_qp_sync(id);
	if (ret < 0)
		return rcm_fail(-ret);
	if (id->sync && pub->qp_type != IBV_QPT_UD)
		return rcm_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED);
	return 0;
}

int
rdma_reject(struct rdma_cm_id *pub, const void *private_data,
	    uint8_t private_data_len)
{
	struct rcm_id *id = (struct rcm_id *)pub;
	int ret;

	if (id == NULL || id->pid == NULL)
		return rcm_fail(EINVAL);
	ret = prdma_cm_reject(id->pid, private_data,
			      private_data != NULL ? private_data_len : 0, 0);
	return ret < 0 ? rcm_fail(-ret) : 0;
}

int
rdma_reject_ece(struct rdma_cm_id *pub, const void *private_data,
		uint8_t private_data_len)
{
	return rdma_reject(pub, private_data, private_data_len);
}

/* Under rcm_lock: is a DISCONNECTED about @id still queued? */
static bool
disc_queued(struct rcm_id *id)
{
	struct rcm_event *ev;

	TAILQ_FOREACH(ev, &id->ch->queue, next)
		if (ev->owner == id && ev->pub.event == RDMA_CM_EVENT_DISCONNECTED)
			return true;
	return false;
}

int
rdma_disconnect(struct rdma_cm_id *pub)
{
	struct rcm_id *id = (struct rcm_id *)pub;
	bool wait;
	int ret;

	if (id == NULL || id->pid == NULL)
		return rcm_fail(EINVAL);
	ret = prdma_cm_disconnect(id->pid);
	rcm_qp_sync(id);
	pthread_mutex_lock(&rcm_lock);
	/* The peer's DREQ came first: the connection is already down. */
	if (ret < 0 && id->disconnected)
		ret = 0;
	wait = id->sync && ret == 0 && (!id->disconnected || disc_queued(id));
	pthread_mutex_unlock(&rcm_lock);
	if (ret < 0)
		return rcm_fail(-ret);
	return wait ? rcm_sync_wait(id, RDMA_CM_EVENT_DISCONNECTED) : 0;
}

int
rdma_establish(struct rdma_cm_id *pub)
{
	struct rcm_id *id = (struct rcm_id *)pub;

	/* prdma's CM sends the RTU itself once the REP is in. */
	if (id == NULL || id->pid == NULL)
		return rcm_fail(EINVAL);
	return 0;
}

int
rdma_notify(struct rdma_cm_id *pub, enum ibv_event_type event)
{
	(void)event;
	return pub == NULL ? rcm_fail(EINVAL) : 0;
}

static uint32_t
to_ibv_access(uint32_t a)
{
	uint32_t r = 0;

	if (a & PRDMA_ACCESS_LOCAL_WRITE)
		r |= IBV_ACCESS_LOCAL_WRITE;
	if (a & PRDMA_ACCESS_REMOTE_WRITE)
		r |= IBV_ACCESS_REMOTE_WRITE;
	if (a & PRDMA_ACCESS_REMOTE_READ)
		r |= IBV_ACCESS_REMOTE_READ;
	if (a & PRDMA_ACCESS_REMOTE_ATOMIC)
		r |= IBV_ACCESS_REMOTE_ATOMIC;
	return r;
}

int
rdma_init_qp_attr(struct rdma_cm_id *pub, struct ibv_qp_attr *attr, int *mask)
{
	struct rcm_id *id = (struct rcm_id *)pub;
	enum ibv_qp_state want;
	struct prdma_qp_attr pa;
	struct prdma_qp *qp;

	if (id == NULL || attr == NULL || mask == NULL || pub->verbs == NULL)
		return rcm_fail(EINVAL);
	want = attr->qp_state;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = want;
	if (want == IBV_QPS_INIT) {
		attr->port_num = pub->port_num;
		attr->pkey_index = 0;
		*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (pub->qp_type == IBV_QPT_UD) {
			attr->qkey = RDMA_UDP_QKEY;
			*mask |= IBV_QP_QKEY;
		} else {
			attr->qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
						IBV_ACCESS_REMOTE_WRITE |
						IBV_ACCESS_REMOTE_READ;
			*mask |= IBV_QP_ACCESS_FLAGS;
		}
		return 0;
	}
	/* RTR and RTS: what the CM gave the QP, once it has. */
	qp = id_qp(id);
	if ((want != IBV_QPS_RTR && want != IBV_QPS_RTS) || qp == NULL ||
	    qp->state < (want == IBV_QPS_RTR ? PRDMA_QPS_RTR : PRDMA_QPS_RTS) ||
	    qp->state > PRDMA_QPS_RTS)
		return rcm_fail(EINVAL);
	if (prdma_qp_query(qp, &pa, NULL) < 0)
		return rcm_fail(EINVAL);
	attr->path_mtu = (enum ibv_mtu)pa.path_mtu;
	attr->dest_qp_num = pa.dest_qp_num;
	attr->rq_psn = pa.rq_psn;
	attr->sq_psn = pa.sq_psn;
	attr->max_dest_rd_atomic = pa.max_dest_rd_atomic;
	attr->max_rd_atomic = pa.max_rd_atomic;
	attr->min_rnr_timer = pa.min_rnr_timer;
	attr->timeout = pa.timeout;
	attr->retry_cnt = pa.retry_cnt;
	attr->rnr_retry = pa.rnr_retry;
	attr->qp_access_flags = to_ibv_access(pa.qp_access_flags);
	attr->ah_attr.is_global = 1;
	memcpy(attr->ah_attr.grh.dgid.raw, pa.ah_attr.dgid.raw, 16);
	attr->ah_attr.grh.sgid_index = pa.ah_attr.sgid_index;
	attr->ah_attr.grh.hop_limit = pa.ah_attr.hop_limit;
	attr->ah_attr.grh.traffic_class = pa.ah_attr.traffic_class;
	attr->ah_attr.grh.flow_label = pa.ah_attr.flow_label;
	attr->ah_attr.port_num = pub->port_num;
	if (want == IBV_QPS_RTR) {
		*mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (pub->qp_type == IBV_QPT_RC)
			*mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	} else {
		*mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		if (pub->qp_type == IBV_QPT_RC)
			*mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				 IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return 0;
}

int
rdma_set_local_ece(struct rdma_cm_id *pub, struct ibv_ece *ece)
{
	(void)pub;
	(void)ece;
	return rcm_fail(EOPNOTSUPP);
}

int
rdma_get_remote_ece(struct rdma_cm_id *pub, struct ibv_ece *ece)
{
	(void)pub;
	(void)ece;
	return rcm_fail(EOPNOTSUPP);
}

int
rdma_join_multicast(struct rdma_cm_id *pub, struct sockaddr *addr, void *context)
{
	(void)pub;
	(void)addr;
	(void)context;
	return rcm_fail(ENOSYS);
}

int
rdma_join_multicast_ex(struct rdma_cm_id *pub, struct rdma_cm_join_mc_attr_ex *mc,
		       void *context)
{
	(void)pub;
	(void)mc;
	(void)context;
	return rcm_fail(ENOSYS);
}

int
rdma_leave_multicast(struct rdma_cm_id *pub, struct sockaddr *addr)
{
	(void)pub;
	(void)addr;
	return rcm_fail(ENOSYS);
}
