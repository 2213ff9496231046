/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The active side of an RC/UC connection: REQ out (with librdmacm's
 * addressing header), then REP in (QP to RTR/RTS, RTU out). Resends, MRA
 * and the final timeout are in cm_conn.c.
 */

#include <string.h>

#include "cm_private.h"

/* rdma_cm's flow label for IP ids: both ports folded into 20 bits. */
static uint32_t
ip_flow_label(uint16_t sport, uint16_t dport)
{
	return ((uint32_t)sport * 31u + dport) & 0xfffffu;
}

int
cm_active_connect(struct cm_id_priv *id, const struct prdma_cm_conn_param *p)
{
	struct cm_agent *ag = id->agent;
	struct cm_cma_hdr h;
	struct cm_msg msg;
	struct cm_req *r = &msg.req;
	int ret;

	id->transport = id->pub.qp->qp_type == PRDMA_QPT_UC ? CM_TRANSPORT_UC :
							      CM_TRANSPORT_RC;
	id->local_id = cm_alloc_comm_id();
	id->tid = cm_tid_make(ag->tid_hi, id->local_id);
	id->rq_psn = prdma_random32() & 0xffffff;
	id->hop_limit = CM_HOP_LIMIT;
	id->traffic_class = 0;
	id->flow_label = ip_flow_label(id->src_port, id->dst_port);
	id->path_mtu = ag->active_mtu;
	id->lifetime = p->ack_timeout != 0 ? (uint8_t)(p->ack_timeout - 1) :
					     CM_DEF_LIFETIME;
	id->ack_timeout = cm_ack_timeout(ag->ack_delay, id->lifetime);
	id->cm_timeout = p->cm_response_timeout != 0 ? p->cm_response_timeout :
						       CM_DEF_RESPONSE_TIMEOUT;
	id->max_retries = p->max_cm_retries != 0 ? p->max_cm_retries :
						   CM_DEF_MAX_RETRIES;
	id->min_rnr_timer = p->min_rnr_timer != 0 ? p->min_rnr_timer :
						    CM_DEF_MIN_RNR_TIMER;
	id->retry_count = RTE_MIN(p->retry_count, 7);
	id->rnr_retry = RTE_MIN(p->rnr_retry_count, 7);
	id->flow_control = p->flow_control ? 1 : 0;
	if (id->transport == CM_TRANSPORT_RC) {
		id->resp_res = (uint8_t)RTE_MIN((uint32_t)p->responder_resources,
						ag->max_rd_atom);
		id->init_depth = (uint8_t)RTE_MIN((uint32_t)p->initiator_depth,
						  ag->max_init_rd_atom);
	}
	ret = cm_qp_init(id, id->pub.qp);
	if (ret < 0)
		return ret;

	memset(&msg, 0, sizeof(msg));
	cm_mad_hdr_init(&msg.hdr, CM_ATTR_REQ, id->tid);
	r->local_comm_id = id->local_id;
	r->service_id = id->service_id;
	r->local_ca_guid = ag->node_guid;
	r->local_qpn = id->pub.qp->qp_num;
	r->responder_resources = id->resp_res;
	r->initiator_depth = id->init_depth;
	r->remote_cm_response_timeout = id->cm_timeout;
	r->transport_type = id->transport;
	r->e2e_flow_control = id->flow_control;
	r->starting_psn = id->rq_psn;
	r->local_cm_response_timeout = id->cm_timeout;
	r->retry_count = id->retry_count;
	r->pkey = CM_PKEY_DEFAULT;
	r->path_mtu = id->path_mtu;
	r->rnr_retry_count = id->rnr_retry;
	r->max_cm_retries = id->max_retries;
	r->srq = id->pub.qp->srq != NULL;
	/* RoCE paths: permissive LIDs unless the peer is on the link. */
	r->primary.local_lid = 0xffff;
	r->primary.remote_lid = 0xffff;
	memcpy(r->primary.local_gid, id->sgid.raw, 16);
	memcpy(r->primary.remote_gid, id->dgid.raw, 16);
	r->primary.flow_label = id->flow_label;
	r->primary.traffic_class = id->traffic_class;
	r->primary.hop_limit = id->hop_limit;
	r->primary.local_ack_timeout = id->ack_timeout;
	h.version = CM_CMA_VERSION;
	h.ip_version = cm_gid_is_v4(&id->sgid) ? 4 : 6;
	h.src_port = id->src_port;
	cm_gid_to_cma_ip(&id->sgid, h.src_ip);
	cm_gid_to_cma_ip(&id->dgid, h.dst_ip);
	cm_cma_hdr_encode(&h, r->private_data);
	if (p->private_data_len > 0)
		memcpy(r->private_data + CM_CMA_HDR_SIZE, p->private_data,
		       p->private_data_len);

	id->state = CM_REQ_SENT;
	cm_msg_send(id, &msg, true);
	prdma_dev_counter_add(id->pub.dev, PRDMA_DEV_CNT_CONNECT, 1);
	/* Not when the send already failed the connect (no MAC for the peer:
	 * UNREACHABLE is queued). */
	if (id->state == CM_REQ_SENT)
		cm_timer_start(id, cm_active_interval(id), id->max_retries);
	return 0;
}

static void
rep_fill_event(struct cm_id_priv *id, const struct cm_rep *rep)
{
	struct cm_event_priv *ev;
	struct prdma_cm_conn_param *c;

	ev = cm_event_new(id, PRDMA_CM_EVENT_ESTABLISHED, 0);
	if (ev == NULL)
		return;
	c = &ev->pub.param.conn;
	memcpy(ev->pub.private_data, rep->private_data, CM_REP_PDATA);
	c->private_data = ev->pub.private_data;
	c->private_data_len = CM_REP_PDATA;
	c->responder_resources = id->resp_res;
	c->initiator_depth = id->init_depth;
	c->retry_count = id->retry_count;
	c->rnr_retry_count = id->rnr_retry;
	c->flow_control = rep->e2e_flow_control;
	c->srq = rep->srq;
	c->qp_num = rep->local_qpn;
	c->ack_timeout = id->ack_timeout;
	c->min_rnr_timer = id->min_rnr_timer;
	c->cm_response_timeout = id->cm_timeout;
	c->max_cm_retries = id->max_retries;
	cm_event_queue(ev);
}

void
cm_active_recv_rep(struct cm_agent *ag, const struct cm_msg *msg)
{
	const struct cm_rep *rep = &msg->rep;
	struct cm_id_priv *id;
	struct cm_msg rtu;
	int ret;

	id = cm_find_by_local(ag, rep->remote_comm_id);
	if (id == NULL || id->passive) {
		cm_stat_add(ag->dev, CM_ST_UNMATCHED, 1);
		return;
	}
	if (id->state != CM_REQ_SENT) {
		/* A resent REP: our RTU was lost, send it again. */
		cm_stat_add(ag->dev, CM_ST_DUP, 1);
		if (id->state == CM_ESTABLISHED && id->remote_id == rep->local_comm_id)
			cm_send_stored(id);
		return;
	}
	id->remote_id = rep->local_comm_id;
	id->remote_guid = rep->local_ca_guid;
	id->remote_qpn = rep->local_qpn;
	id->sq_psn = rep->starting_psn;
	id->rnr_retry = rep->rnr_retry_count;
	if (id->transport == CM_TRANSPORT_RC) {
		/* The REP speaks for the peer: what it accepts we may issue. */
		id->init_depth = (uint8_t)RTE_MIN((uint32_t)rep->responder_resources,
						  ag->max_init_rd_atom);
		id->resp_res = (uint8_t)RTE_MIN((uint32_t)rep->initiator_depth,
						ag->max_rd_atom);
	}
	id->ack_timeout = cm_ack_timeout(rep->target_ack_delay, id->lifetime);
	ret = cm_qp_rtr_rts(id);
	if (ret == -EAGAIN) {
		/* The peer's MAC is no longer known (the REQ reached it, but
		 * the entry aged out). Not waited for under cm_lock (F2): the
		 * resolution runs, and the peer's REP resend (or our REQ
		 * resend, which makes it resend) finds it done. */
		CM_LOG(DEBUG, "%s: connection %08x: REP held until the peer's MAC "
		       "resolves", ag->dev->name, id->local_id);
		return;
	}
	cm_timer_stop(id);
	if (ret < 0) {
		cm_id_send_rej(id, CM_MSG_REP, PRDMA_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       false);
		cm_conn_fail(id, PRDMA_CM_EVENT_CONNECT_ERROR, ret, NULL, 0);
		return;
	}
	memset(&rtu, 0, sizeof(rtu));
	cm_mad_hdr_init(&rtu.hdr, CM_ATTR_RTU, id->tid);
	rtu.rtu.local_comm_id = id->local_id;
	rtu.rtu.remote_comm_id = id->remote_id;
	cm_msg_send(id, &rtu, true);
	id->state = CM_ESTABLISHED;
	cm_set_established(id, true);
	rep_fill_event(id, rep);
}
