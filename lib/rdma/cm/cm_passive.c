/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The passive side of an RC/UC connection: a REQ finds its listener (or
 * gets REJ "invalid service ID"), duplicates and stale connections are
 * told apart, the application accepts (QP to RTS, REP out) or rejects,
 * and the RTU establishes.
 */

#include <string.h>

#include "cm_private.h"

static bool
listener_matches(const struct cm_id_priv *l, const struct cm_cma_hdr *h)
{
	const struct sockaddr_storage *la = &l->pub.local_addr;
	union prdma_gid dst;

	if (h == NULL)
		return true;
	/* An IPv4 listener takes IPv4 only; an IPv6 wildcard takes both. */
	if (la->ss_family == AF_INET && h->ip_version != 4)
		return false;
	if (l->bound) {
		cm_cma_ip_to_gid(h->dst_ip, h->ip_version, &dst);
		return memcmp(&dst, &l->sgid, sizeof(dst)) == 0;
	}
	return true;
}

struct cm_id_priv *
cm_find_listener(struct cm_agent *ag, uint64_t service_id, const struct cm_cma_hdr *h)
{
	struct cm_id_priv *id;

	TAILQ_FOREACH(id, &ag->ids, next)
		if (id->state == CM_LISTEN && id->service_id == service_id &&
		    listener_matches(id, h))
			return id;
	return NULL;
}

/* A REQ we have seen: resend what answered it. */
static void
req_duplicate(struct cm_id_priv *id, const struct cm_msg *msg)
{
	struct cm_msg mra;

	cm_stat_add(id->pub.dev, CM_ST_DUP, 1);
	switch (id->state) {
	case CM_REQ_RCVD:
		/* The application is still deciding: ask the peer to wait. */
		memset(&mra, 0, sizeof(mra));
		cm_mad_hdr_init(&mra.hdr, CM_ATTR_MRA, msg->hdr.tid);
		mra.mra.local_comm_id = id->local_id;
		mra.mra.remote_comm_id = id->remote_id;
		mra.mra.msg_mraed = CM_MSG_REQ;
		mra.mra.service_timeout = CM_MRA_SERVICE_TIMEOUT;
		cm_msg_send(id, &mra, false);
		break;
	case CM_REP_SENT:
		cm_send_stored(id);
		break;
	case CM_TIMEWAIT:
		cm_id_send_rej(id, CM_MSG_REQ, PRDMA_CM_REJ_STALE_CONN, NULL, 0, false);
		break;
	case CM_CLOSED:
		if (id->mad_valid)
			cm_send_stored(id);
		break;
	default:
		break;
	}
}


static void
connect_request_event(struct cm_id_priv *id, struct cm_id_priv *listener,
		      const struct cm_req *r)
{
	struct prdma_cm_conn_param *c;
	struct cm_event_priv *ev;

	ev = cm_event_new(id, PRDMA_CM_EVENT_CONNECT_REQUEST, 0);
	if (ev == NULL) {
		cm_id_send_rej(id, CM_MSG_REQ, PRDMA_CM_REJ_NO_RESOURCES, NULL, 0, false);
		cm_id_free(id);
		return;
	}
	ev->pub.listen_id = &listener->pub;
	c = &ev->pub.param.conn;
	memcpy(ev->pub.private_data, r->private_data + CM_CMA_HDR_SIZE,
	       PRDMA_CM_REQ_PRIVATE_DATA);
	c->private_data = ev->pub.private_data;
	c->private_data_len = PRDMA_CM_REQ_PRIVATE_DATA;
	/* What the peer accepts is what we may issue, and the reverse. */
	c->responder_resources = r->initiator_depth;
	c->initiator_depth = r->responder_resources;
	c->retry_count = r->retry_count;
	c->rnr_retry_count = r->rnr_retry_count;
	c->flow_control = r->e2e_flow_control;
	c->srq = r->srq;
	c->qp_num = r->local_qpn;
	c->ack_timeout = r->primary.local_ack_timeout;
	c->cm_response_timeout = r->remote_cm_response_timeout;
	c->max_cm_retries = r->max_cm_retries;
	cm_event_queue(ev);
}

/* A new REQ from a QP we still hold a connection with: that one is stale. */
static struct cm_id_priv *
find_stale(struct cm_agent *ag, const struct cm_req *r)
{
	struct cm_id_priv *id;

	TAILQ_FOREACH(id, &ag->ids, next)
		if (id->remote_qpn == r->local_qpn && id->remote_guid == r->local_ca_guid &&
		    (id->state == CM_REP_SENT || id->state == CM_ESTABLISHED))
			return id;
	return NULL;
}

/*
 * Keep the REJ @mad we sent for the REQ with comm ID @remote_id from CA
 * @remote_guid. The peer resends that REQ until the REJ reaches it, and a
 * copy sent just before may arrive after the application here destroyed
 * the rejected id, or, for a REJ sent without an id (stale connection,
 * backlog full), after the reason went away (the stale connection torn
 * down, a slot freed); on a device that moves MADs on a thread of its own
 * a loaded machine delays it by milliseconds. Without a record that copy
 * would look like a new connection: a CONNECT_REQUEST nobody asked for.
 * Kept as long as the peer resends: (its response timeout + 2 packet
 * lifetimes) x (retries + 1), from its REQ and bounded (F5), and at
 * least a time-wait.
 */
static void
memo_rej(struct cm_agent *ag, uint32_t remote_id, uint64_t remote_guid,
	 const union prdma_gid *dgid, uint8_t sgid_index, const uint8_t mad[CM_MAD_SIZE],
	 uint8_t peer_cm_timeout, uint8_t lifetime, uint8_t max_retries)
{
	struct cm_rej_memo *m = NULL;
	uint64_t now = cm_now(), keep;
	uint32_t i;

	for (i = 0; i < CM_REJ_MEMO && m == NULL; i++)
		if (ag->rej_memo[i].expires <= now)
			m = &ag->rej_memo[i];
	if (m == NULL) {
		m = &ag->rej_memo[ag->rej_memo_next];
		ag->rej_memo_next = (ag->rej_memo_next + 1) % CM_REJ_MEMO;
	}
	keep = (cm_time_tsc(peer_cm_timeout) + 2 * cm_time_tsc(lifetime)) *
	       ((uint64_t)max_retries + 1);
	keep = RTE_MAX(keep, cm_time_tsc(CM_MAX_TIMEWAIT));
	m->expires = now + keep;
	m->remote_id = remote_id;
	m->remote_guid = remote_guid;
	m->dgid = *dgid;
	m->sgid_index = sgid_index;
	memcpy(m->mad, mad, CM_MAD_SIZE);
}

/* The REQ's timers as the passive side bounds them (F5). */
static uint8_t
req_peer_timeout(const struct cm_req *r)
{
	return (uint8_t)RTE_MAX(RTE_MIN(r->local_cm_response_timeout,
					CM_MAX_RESPONSE_TIMEOUT),
				CM_MIN_RESPONSE_TIMEOUT);
}

static uint8_t
req_lifetime(const struct cm_req *r)
{
	uint8_t ack = r->primary.local_ack_timeout;

	return (uint8_t)RTE_MIN(ack > 0 ? ack - 1 : 0, CM_MAX_LIFETIME);
}

/* A passive id that rejected its REQ is being destroyed. */
void
cm_passive_memo_rej(struct cm_id_priv *id)
{
	memo_rej(id->agent, id->remote_id, id->remote_guid, &id->dgid, id->sgid_index,
		 id->mad, id->peer_cm_timeout, id->lifetime, id->max_retries);
}

/*
 * A REJ for a REQ that has no id here. Stale-connection and no-resources
 * REJs are kept (memo_rej): a late copy of the REQ is rejected again even
 * once the stale connection is gone or a backlog slot is free.
 */
static void
reject_unknown(struct cm_agent *ag, const struct cm_msg *msg, uint16_t reason)
{
	const struct cm_req *r = &msg->req;
	uint8_t rej[CM_MAD_SIZE];
	union prdma_gid peer;
	uint8_t sgid_index;

	memcpy(peer.raw, r->primary.local_gid, 16);
	sgid_index = cm_reply_sgid(ag, r->primary.remote_gid);
	cm_send_rej(ag, &peer, sgid_index, msg->hdr.tid, 0, r->local_comm_id,
		    CM_MSG_REQ, reason, NULL, 0, rej);
	if (reason == PRDMA_CM_REJ_STALE_CONN || reason == PRDMA_CM_REJ_NO_RESOURCES)
		memo_rej(ag, r->local_comm_id, r->local_ca_guid, &peer, sgid_index, rej,
			 req_peer_timeout(r), req_lifetime(r), r->max_cm_retries);
}

/* A REQ whose id is gone but whose REJ is kept: the REJ again. */
static bool
memo_duplicate(struct cm_agent *ag, const struct cm_req *r)
{
	uint64_t now = cm_now();
	struct cm_rej_memo *m;
	uint32_t i;

	for (i = 0; i < CM_REJ_MEMO; i++) {
		m = &ag->rej_memo[i];
		if (m->expires > now && m->remote_id == r->local_comm_id &&
		    m->remote_guid == r->local_ca_guid) {
			cm_stat_add(ag->dev, CM_ST_DUP, 1);
			cm_agent_send(ag, &m->dgid, m->sgid_index, m->mad);
			return true;
		}
	}
	return false;
}

void
cm_passive_recv_req(struct cm_agent *ag, const struct cm_msg *msg)
{
	const struct cm_req *r = &msg->req;
	struct cm_id_priv *id, *listener, *stale;
	struct cm_cma_hdr h;
	bool hdr_ok;
	int ret;

	TAILQ_FOREACH(id, &ag->ids, next)
		if (id->passive && id->remote_id == r->local_comm_id &&
		    id->remote_guid == r->local_ca_guid && id->state != CM_SIDR_DONE &&
		    id->state != CM_SIDR_REQ_RCVD) {
			req_duplicate(id, msg);
			return;
		}
	if (memo_duplicate(ag, r))
		return;
	stale = find_stale(ag, r);
	if (stale != NULL) {
		CM_LOG(DEBUG, "%s: REQ from QP %u reuses a live connection: stale",
		       ag->dev->name, r->local_qpn);
		reject_unknown(ag, msg, PRDMA_CM_REJ_STALE_CONN);
		if (stale->state == CM_ESTABLISHED)
			prdma_dev_counter_add(ag->dev, PRDMA_DEV_CNT_CONNECTION_ERROR, 1);
		cm_disc_send_dreq(stale, true);
		return;
	}
	hdr_ok = cm_cma_hdr_decode(r->private_data, &h) == 0;
	listener = cm_find_listener(ag, r->service_id, hdr_ok ? &h : NULL);
	if (listener == NULL) {
		CM_LOG(DEBUG, "%s: REQ from QP %u for service ID %016" PRIx64
		       ": no listener, REJ (invalid service ID)", ag->dev->name,
		       r->local_qpn, r->service_id);
		reject_unknown(ag, msg, PRDMA_CM_REJ_INVALID_SERVICE_ID);
		return;
	}
	if (!hdr_ok) {
		reject_unknown(ag, msg, PRDMA_CM_REJ_CONSUMER_DEFINED);
		return;
	}
	if (r->transport_type != CM_TRANSPORT_RC && r->transport_type != CM_TRANSPORT_UC) {
		reject_unknown(ag, msg, PRDMA_CM_REJ_INVALID_TRANSPORT);
		return;
	}
	if (cm_listener_load(ag, listener) >= listener->backlog) {
		/* F5: undecided and accepted-but-not-established alike. */
		cm_stat_add(ag->dev, CM_ST_REFUSED, 1);
		reject_unknown(ag, msg, PRDMA_CM_REJ_NO_RESOURCES);
		return;
	}
	id = cm_child_new(listener);
	if (id == NULL) {
		reject_unknown(ag, msg, PRDMA_CM_REJ_NO_RESOURCES);
		return;
	}
	id->state = CM_REQ_RCVD;
	id->tid = msg->hdr.tid;
	id->remote_id = r->local_comm_id;
	id->remote_guid = r->local_ca_guid;
	id->remote_qpn = r->local_qpn;
	id->sq_psn = r->starting_psn;
	id->transport = r->transport_type;
	id->service_id = r->service_id;
	memcpy(id->dgid.raw, r->primary.local_gid, 16);
	id->hop_limit = r->primary.hop_limit;
	id->traffic_class = r->primary.traffic_class;
	id->flow_label = r->primary.flow_label;
	id->path_mtu = RTE_MIN(r->path_mtu, ag->active_mtu);
	id->ack_timeout = r->primary.local_ack_timeout;
	/* The lifetime feeds our MRA and time-wait timers: bounded (F5). */
	id->lifetime = req_lifetime(r);
	id->retry_count = r->retry_count;
	id->rnr_retry = r->rnr_retry_count;
	id->flow_control = r->e2e_flow_control;
	id->cm_timeout = r->remote_cm_response_timeout;
	/* How often we resend the REP: the peer's, within sane bounds (F5). */
	id->peer_cm_timeout = req_peer_timeout(r);
	id->max_retries = r->max_cm_retries;
	id->src_port = (uint16_t)r->service_id;
	id->dst_port = h.src_port;
	cm_cma_ip_to_gid(h.dst_ip, h.ip_version, &id->sgid);
	ret = cm_find_sgid(ag, &id->sgid, false, false, &id->sgid_index, &id->sgid);
	if (ret < 0) {
		/* The header names an address this port does not have. */
		cm_id_send_rej(id, CM_MSG_REQ, PRDMA_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       false);
		cm_id_free(id);
		return;
	}
	cm_gid_to_sockaddr(&id->sgid, id->src_port, &id->pub.local_addr);
	cm_cma_ip_to_gid(h.src_ip, h.ip_version, &id->dgid);
	cm_gid_to_sockaddr(&id->dgid, id->dst_port, &id->pub.peer_addr);
	/* Replies go where the path says the peer is. */
	memcpy(id->dgid.raw, r->primary.local_gid, 16);
	/* Start resolving the peer now: the accept needs its MAC. */
	(void)cm_agent_path_ready(ag, &id->dgid, id->sgid_index);
	connect_request_event(id, listener, r);
}

/* Requests a listener holds: undecided, or accepted and awaiting the RTU
 * (their own path wait included). Bounded by the backlog (F5). */
uint32_t
cm_listener_load(struct cm_agent *ag, const struct cm_id_priv *listener)
{
	struct cm_id_priv *it;
	uint32_t n = 0;

	TAILQ_FOREACH(it, &ag->ids, next)
		if (it->listener == listener &&
		    (it->state == CM_REQ_RCVD || it->state == CM_REP_SENT ||
		     it->state == CM_SIDR_REQ_RCVD))
			n++;
	return n;
}

/*
 * The second half of an accept: once the peer's MAC is known, the QP to
 * RTR/RTS and the REP (encoded in id->mad) out. -EAGAIN while the MAC is
 * being resolved: the CM never waits for it (F2), progress retries.
 */
static int
accept_finish(struct cm_id_priv *id)
{
	int ret;

	ret = cm_agent_path_ready(id->agent, &id->dgid, id->sgid_index);
	if (ret == 0)
		ret = cm_qp_rtr_rts(id);
	if (ret == -EAGAIN)
		return ret;
	if (ret < 0) {
		cm_id_send_rej(id, CM_MSG_REQ, PRDMA_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       true);
		cm_unpend(id);
		cm_qp_error(id);
		id->state = CM_CLOSED;
		return ret;
	}
	cm_unpend(id);
	id->state = CM_REP_SENT;
	id->mad_valid = true;
	cm_send_stored(id);
	prdma_dev_counter_add(id->pub.dev, PRDMA_DEV_CNT_ACCEPT, 1);
	cm_timer_start(id, cm_passive_interval(id), id->max_retries);
	return 0;
}

void
cm_passive_path_retry(struct cm_id_priv *id)
{
	int ret;

	if (id->state != CM_REQ_RCVD) {
		id->path_wait = false;       /* rejected or failed meanwhile */
		return;
	}
	ret = accept_finish(id);
	if (ret == -EAGAIN && cm_now() < id->path_deadline) {
		id->path_next = cm_now() + rte_get_tsc_hz() / 1000000 * CM_RESOLVE_POLL_US;
		return;
	}
	id->path_wait = false;
	if (ret == -EAGAIN) {
		CM_LOG(WARNING, "%s: connection %08x: the peer's address did not resolve "
		       "within %u ms", id->pub.dev->name, id->local_id, CM_RESOLVE_MS);
		cm_stat_add(id->pub.dev, CM_ST_UNRESOLVED, 1);
		cm_conn_fail(id, PRDMA_CM_EVENT_UNREACHABLE, -EHOSTUNREACH, NULL, 0);
	} else if (ret < 0) {
		prdma_dev_counter_add(id->pub.dev, PRDMA_DEV_CNT_CONNECT_FAILURE, 1);
		cm_event_simple(id, PRDMA_CM_EVENT_CONNECT_ERROR, ret);
	}
}

int
cm_passive_accept(struct cm_id_priv *id, const struct prdma_cm_conn_param *p)
{
	struct cm_agent *ag = id->agent;
	struct cm_msg msg;
	struct cm_rep *rep = &msg.rep;
	int ret;

	if ((id->transport == CM_TRANSPORT_RC) != (id->pub.qp->qp_type == PRDMA_QPT_RC))
		return -EINVAL;
	id->rq_psn = prdma_random32() & 0xffffff;
	if (id->transport == CM_TRANSPORT_RC) {
		id->resp_res = (uint8_t)RTE_MIN((uint32_t)p->responder_resources,
						ag->max_rd_atom);
		id->init_depth = (uint8_t)RTE_MIN((uint32_t)p->initiator_depth,
						  ag->max_init_rd_atom);
	}
	id->min_rnr_timer = p->min_rnr_timer != 0 ? p->min_rnr_timer :
						    CM_DEF_MIN_RNR_TIMER;
	ret = cm_qp_init(id, id->pub.qp);
	if (ret < 0) {
		cm_id_send_rej(id, CM_MSG_REQ, PRDMA_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       true);
		cm_unpend(id);
		cm_qp_error(id);
		id->state = CM_CLOSED;
		return ret;
	}
	memset(&msg, 0, sizeof(msg));
	cm_mad_hdr_init(&msg.hdr, CM_ATTR_REP, id->tid);
	rep->local_comm_id = id->local_id;
	rep->remote_comm_id = id->remote_id;
	rep->local_qpn = id->pub.qp->qp_num;
	rep->starting_psn = id->rq_psn;
	rep->responder_resources = id->resp_res;
	rep->initiator_depth = id->init_depth;
	rep->target_ack_delay = ag->ack_delay;
	rep->e2e_flow_control = id->flow_control;
	/* The active side's RNR retry: what our application asks for. */
	rep->rnr_retry_count = (uint8_t)RTE_MIN(p->rnr_retry_count, 7);
	rep->srq = id->pub.qp->srq != NULL;
	rep->local_ca_guid = ag->node_guid;
	if (p->private_data_len > 0)
		memcpy(rep->private_data, p->private_data, p->private_data_len);
	ret = cm_mad_encode(&msg, id->mad);
	if (ret < 0)
		return ret;
	id->mad_valid = false;               /* kept, sent by accept_finish */
	ret = accept_finish(id);
	if (ret != -EAGAIN)
		return ret;
	/* The peer's MAC is not known yet: REP when it is, or UNREACHABLE. */
	id->path_wait = true;
	id->path_deadline = cm_now() + rte_get_tsc_hz() / 1000 * CM_RESOLVE_MS;
	id->path_next = cm_now() + rte_get_tsc_hz() / 1000000 * CM_RESOLVE_POLL_US;
	return 0;
}

int
cm_passive_reject(struct cm_id_priv *id, const void *pdata, uint16_t len,
		  uint16_t reason)
{
	cm_id_send_rej(id, CM_MSG_REQ, reason, pdata, len, true);
	cm_unpend(id);
	id->state = CM_CLOSED;
	return 0;
}

void
cm_passive_recv_rtu(struct cm_agent *ag, const struct cm_msg *msg)
{
	struct cm_id_priv *id;
	struct cm_event_priv *ev;
	struct prdma_cm_conn_param *c;

	id = cm_find_by_local(ag, msg->rtu.remote_comm_id);
	if (id == NULL || id->remote_id != msg->rtu.local_comm_id) {
		cm_stat_add(ag->dev, CM_ST_UNMATCHED, 1);
		return;
	}
	if (id->state != CM_REP_SENT) {
		cm_stat_add(ag->dev, CM_ST_DUP, 1);
		return;
	}
	cm_timer_stop(id);
	id->state = CM_ESTABLISHED;
	cm_set_established(id, true);
	ev = cm_event_new(id, PRDMA_CM_EVENT_ESTABLISHED, 0);
	if (ev == NULL)
		return;
	c = &ev->pub.param.conn;
	c->private_data = ev->pub.private_data;
	c->responder_resources = id->resp_res;
	c->initiator_depth = id->init_depth;
	c->retry_count = id->retry_count;
	c->rnr_retry_count = id->rnr_retry;
	c->flow_control = id->flow_control;
	c->qp_num = id->remote_qpn;
	c->ack_timeout = id->ack_timeout;
	c->min_rnr_timer = id->min_rnr_timer;
	cm_event_queue(ev);
}
