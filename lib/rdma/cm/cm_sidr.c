/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Service ID resolution for UD ids (RDMA_PS_UDP): SIDR_REQ carries
 * librdmacm's addressing header and the user's data; the SIDR_REP names
 * the peer's UD QP and Q_Key. There is no connection to keep: the passive
 * side keeps its SIDR_REP only to answer a resent SIDR_REQ.
 */

#include <string.h>

#include "cm_private.h"

static void
ud_ah_attr(const struct cm_id_priv *id, struct prdma_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dgid = id->dgid;
	ah->sgid_index = id->sgid_index;
	ah->hop_limit = CM_HOP_LIMIT;
	ah->port_num = id->pub.port_num;
}

int
cm_sidr_connect(struct cm_id_priv *id, const struct prdma_cm_conn_param *p)
{
	struct cm_agent *ag = id->agent;
	struct cm_cma_hdr h;
	struct cm_msg msg;
	int ret;

	id->local_id = cm_alloc_comm_id();
	id->tid = cm_tid_make(ag->tid_hi, id->local_id);
	id->qkey = p->qkey != 0 ? p->qkey : PRDMA_CM_UDP_QKEY;
	id->lifetime = p->ack_timeout != 0 ? (uint8_t)(p->ack_timeout - 1) :
					     CM_DEF_LIFETIME;
	id->cm_timeout = p->cm_response_timeout != 0 ? p->cm_response_timeout :
						       CM_DEF_RESPONSE_TIMEOUT;
	id->max_retries = p->max_cm_retries != 0 ? p->max_cm_retries :
						   CM_DEF_MAX_RETRIES;
	ret = cm_qp_init(id, id->pub.qp);
	if (ret < 0)
		return ret;
	memset(&msg, 0, sizeof(msg));
	cm_mad_hdr_init(&msg.hdr, CM_ATTR_SIDR_REQ, id->tid);
	msg.sidr_req.request_id = id->local_id;
	msg.sidr_req.pkey = CM_PKEY_DEFAULT;
	msg.sidr_req.service_id = id->service_id;
	h.version = CM_CMA_VERSION;
	h.ip_version = cm_gid_is_v4(&id->sgid) ? 4 : 6;
	h.src_port = id->src_port;
	cm_gid_to_cma_ip(&id->sgid, h.src_ip);
	cm_gid_to_cma_ip(&id->dgid, h.dst_ip);
	cm_cma_hdr_encode(&h, msg.sidr_req.private_data);
	if (p->private_data_len > 0)
		memcpy(msg.sidr_req.private_data + CM_CMA_HDR_SIZE, p->private_data,
		       p->private_data_len);
	id->state = CM_SIDR_REQ_SENT;
	cm_msg_send(id, &msg, true);
	if (id->state == CM_SIDR_REQ_SENT)      /* not failed at once */
		cm_timer_start(id, cm_active_interval(id), id->max_retries);
	return 0;
}

static void
sidr_rep_send(struct cm_agent *ag, const union prdma_gid *dgid, uint8_t sgid_index,
	      uint64_t tid, uint32_t request_id, uint64_t service_id, uint8_t status,
	      uint32_t qpn, uint32_t qkey, const void *pdata, uint16_t len,
	      uint8_t *keep)
{
	uint8_t mad[CM_MAD_SIZE];
	struct cm_msg msg;

	memset(&msg, 0, sizeof(msg));
	cm_mad_hdr_init(&msg.hdr, CM_ATTR_SIDR_REP, tid);
	msg.sidr_rep.request_id = request_id;
	msg.sidr_rep.status = status;
	msg.sidr_rep.qpn = qpn;
	msg.sidr_rep.service_id = service_id;
	msg.sidr_rep.qkey = qkey;
	if (len > 0)
		memcpy(msg.sidr_rep.private_data, pdata, RTE_MIN(len, CM_SIDR_REP_PDATA));
	cm_mad_encode(&msg, mad);
	if (keep != NULL)
		memcpy(keep, mad, CM_MAD_SIZE);
	cm_agent_send(ag, dgid, sgid_index, mad);
}

int
cm_sidr_accept(struct cm_id_priv *id, const struct prdma_cm_conn_param *p)
{
	struct prdma_qp_attr qa;
	int ret;

	if (id->pub.qp->qp_type != PRDMA_QPT_UD)
		return -EINVAL;
	id->qkey = p->qkey != 0 ? p->qkey : PRDMA_CM_UDP_QKEY;
	ret = cm_qp_init(id, id->pub.qp);
	if (ret < 0)
		return ret;
	/* A QP the application brought up itself keeps its own Q_Key. */
	if (prdma_qp_query(id->pub.qp, &qa, NULL) == 0 && qa.qkey != 0)
		id->qkey = qa.qkey;
	cm_unpend(id);
	id->state = CM_SIDR_DONE;
	id->mad_valid = true;
	sidr_rep_send(id->agent, &id->dgid, id->sgid_index, id->tid, id->remote_id,
		      id->service_id, CM_SIDR_SUCCESS, id->pub.qp->qp_num, id->qkey,
		      p->private_data, p->private_data_len, id->mad);
	return 0;
}

int
cm_sidr_reject(struct cm_id_priv *id, const void *pdata, uint16_t len)
{
	cm_unpend(id);
	id->state = CM_SIDR_DONE;
	id->mad_valid = true;
	sidr_rep_send(id->agent, &id->dgid, id->sgid_index, id->tid, id->remote_id,
		      id->service_id, CM_SIDR_REJECT, 0, 0, pdata, len, id->mad);
	return 0;
}

static void
sidr_request_event(struct cm_id_priv *id, struct cm_id_priv *listener,
		   const struct cm_sidr_req *r)
{
	struct prdma_cm_ud_param *u;
	struct cm_event_priv *ev;

	ev = cm_event_new(id, PRDMA_CM_EVENT_CONNECT_REQUEST, 0);
	if (ev == NULL) {
		cm_sidr_reject(id, NULL, 0);
		cm_id_free(id);
		return;
	}
	ev->pub.listen_id = &listener->pub;
	u = &ev->pub.param.ud;
	memcpy(ev->pub.private_data, r->private_data + CM_CMA_HDR_SIZE,
	       PRDMA_CM_SIDR_REQ_PRIVATE_DATA);
	u->private_data = ev->pub.private_data;
	u->private_data_len = PRDMA_CM_SIDR_REQ_PRIVATE_DATA;
	ud_ah_attr(id, &u->ah_attr);
	cm_event_queue(ev);
}

void
cm_sidr_recv_req(struct cm_agent *ag, const struct cm_msg *msg,
		 const union prdma_gid *src, bool have_src)
{
	const struct cm_sidr_req *r = &msg->sidr_req;
	struct cm_id_priv *id, *listener;
	union prdma_gid peer, dst;
	struct cm_cma_hdr h;

	if (cm_cma_hdr_decode(r->private_data, &h) < 0) {
		/* Without the header we do not even know where to answer. */
		if (!have_src) {
			cm_stat_add(ag->dev, CM_ST_MALFORMED, 1);
			return;
		}
		sidr_rep_send(ag, src, 0, msg->hdr.tid, r->request_id, r->service_id,
			      CM_SIDR_REJECT, 0, 0, NULL, 0, NULL);
		return;
	}
	if (have_src)
		peer = *src;
	else
		cm_cma_ip_to_gid(h.src_ip, h.ip_version, &peer);
	TAILQ_FOREACH(id, &ag->ids, next)
		if (id->passive && id->remote_id == r->request_id &&
		    (id->state == CM_SIDR_REQ_RCVD || id->state == CM_SIDR_DONE) &&
		    memcmp(&id->dgid, &peer, sizeof(peer)) == 0) {
			cm_stat_add(ag->dev, CM_ST_DUP, 1);
			if (id->state == CM_SIDR_DONE)
				cm_send_stored(id);
			return;
		}
	listener = cm_find_listener(ag, r->service_id, &h);
	if (listener != NULL && cm_listener_load(ag, listener) >= listener->backlog)
		cm_stat_add(ag->dev, CM_ST_REFUSED, 1);
	if (listener == NULL || cm_listener_load(ag, listener) >= listener->backlog) {
		if (listener == NULL)
			CM_LOG(DEBUG, "%s: SIDR_REQ for service ID %016" PRIx64
			       ": no listener, SIDR_REP (service ID not supported)",
			       ag->dev->name, r->service_id);
		/* the CMA header's address is not a GID (IPv4 without the
		 * ::ffff: prefix): the GID it names is what our table holds */
		cm_cma_ip_to_gid(h.dst_ip, h.ip_version, &dst);
		sidr_rep_send(ag, &peer, cm_reply_sgid(ag, dst.raw), msg->hdr.tid,
			      r->request_id, r->service_id,
			      listener == NULL ? CM_SIDR_UNSUPPORTED : CM_SIDR_REJECT,
			      0, 0, NULL, 0, NULL);
		return;
	}
	id = cm_child_new(listener);
	if (id == NULL) {
		sidr_rep_send(ag, &peer, 0, msg->hdr.tid, r->request_id, r->service_id,
			      CM_SIDR_REJECT, 0, 0, NULL, 0, NULL);
		return;
	}
	id->state = CM_SIDR_REQ_RCVD;
	id->tid = msg->hdr.tid;
	id->remote_id = r->request_id;
	id->service_id = r->service_id;
	id->dgid = peer;
	id->src_port = (uint16_t)r->service_id;
	id->dst_port = h.src_port;
	cm_cma_ip_to_gid(h.dst_ip, h.ip_version, &id->sgid);
	if (cm_find_sgid(ag, &id->sgid, false, false, &id->sgid_index, &id->sgid) < 0) {
		cm_sidr_reject(id, NULL, 0);
		cm_id_free(id);
		return;
	}
	cm_gid_to_sockaddr(&id->sgid, id->src_port, &id->pub.local_addr);
	cm_gid_to_sockaddr(&peer, id->dst_port, &id->pub.peer_addr);
	sidr_request_event(id, listener, r);
}

void
cm_sidr_recv_rep(struct cm_agent *ag, const struct cm_msg *msg)
{
	const struct cm_sidr_rep *r = &msg->sidr_rep;
	struct prdma_cm_ud_param *u;
	struct cm_event_priv *ev;
	struct cm_id_priv *id;

	id = cm_find_by_local(ag, r->request_id);
	if (id == NULL || id->passive) {
		cm_stat_add(ag->dev, CM_ST_UNMATCHED, 1);
		return;
	}
	if (id->state != CM_SIDR_REQ_SENT) {
		cm_stat_add(ag->dev, CM_ST_DUP, 1);
		return;
	}
	cm_timer_stop(id);
	if (r->status != CM_SIDR_SUCCESS) {
		id->state = CM_CLOSED;
		ev = cm_event_new(id, PRDMA_CM_EVENT_REJECTED, r->status);
	} else {
		id->state = CM_SIDR_DONE;
		ev = cm_event_new(id, PRDMA_CM_EVENT_ESTABLISHED, 0);
	}
	if (ev == NULL)
		return;
	u = &ev->pub.param.ud;
	memcpy(ev->pub.private_data, r->private_data, CM_SIDR_REP_PDATA);
	u->private_data = ev->pub.private_data;
	u->private_data_len = CM_SIDR_REP_PDATA;
	if (r->status == CM_SIDR_SUCCESS) {
		u->qp_num = r->qpn;
		u->qkey = r->qkey;
		ud_ah_attr(id, &u->ah_attr);
	}
	cm_event_queue(ev);
}
