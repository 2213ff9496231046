/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * What every connection shares: dispatch of received messages, sending
 * (and keeping for resends) a connection's last message, REJ, the timers
 * and the ActiveConnection level.
 */

#include <string.h>

#include <rte_malloc.h>

#include "cm_private.h"

void
cm_recv_msg(struct cm_agent *ag, struct cm_msg *msg, const union prdma_gid *src,
	    bool have_src)
{
	switch (msg->hdr.attr_id) {
	case CM_ATTR_REQ:
		cm_passive_recv_req(ag, msg);
		break;
	case CM_ATTR_MRA:
		cm_recv_mra(ag, msg);
		break;
	case CM_ATTR_REJ:
		cm_recv_rej(ag, msg);
		break;
	case CM_ATTR_REP:
		cm_active_recv_rep(ag, msg);
		break;
	case CM_ATTR_RTU:
		cm_passive_recv_rtu(ag, msg);
		break;
	case CM_ATTR_DREQ:
		cm_disc_recv_dreq(ag, msg, src, have_src);
		break;
	case CM_ATTR_DREP:
		cm_disc_recv_drep(ag, msg);
		break;
	case CM_ATTR_SIDR_REQ:
		cm_sidr_recv_req(ag, msg, src, have_src);
		break;
	case CM_ATTR_SIDR_REP:
		cm_sidr_recv_rep(ag, msg);
		break;
	}
}

struct cm_id_priv *
cm_find_by_local(struct cm_agent *ag, uint32_t local_id)
{
	struct cm_id_priv *id;

	if (local_id == 0)
		return NULL;
	TAILQ_FOREACH(id, &ag->ids, next)
		if (id->local_id == local_id && id->state != CM_LISTEN &&
		    id->state != CM_IDLE)
			return id;
	return NULL;
}

uint8_t
cm_reply_sgid(struct cm_agent *ag, const uint8_t gid[16])
{
	union prdma_gid want, got;
	uint8_t index = 0;

	memcpy(want.raw, gid, 16);
	if (cm_find_sgid(ag, &want, false, false, &index, &got) < 0)
		index = 0;
	return index;
}

int
cm_msg_send(struct cm_id_priv *id, const struct cm_msg *msg, bool keep)
{
	uint8_t mad[CM_MAD_SIZE];
	int ret;

	ret = cm_mad_encode(msg, mad);
	if (ret < 0)
		return ret;
	if (keep) {
		memcpy(id->mad, mad, CM_MAD_SIZE);
		id->mad_valid = true;
	}
	return cm_agent_send(id->agent, &id->dgid, id->sgid_index, mad);
}

int
cm_send_stored(struct cm_id_priv *id)
{
	if (!id->mad_valid)
		return -ENOENT;
	return cm_agent_send(id->agent, &id->dgid, id->sgid_index, id->mad);
}

int
cm_send_rej(struct cm_agent *ag, const union prdma_gid *dgid, uint8_t sgid_index,
	    uint64_t tid, uint32_t local_id, uint32_t remote_id, uint8_t msg_rejected,
	    uint16_t reason, const void *pdata, uint16_t len, uint8_t *keep)
{
	uint8_t mad[CM_MAD_SIZE];
	struct cm_msg msg;
	int i;

	memset(&msg, 0, sizeof(msg));
	cm_mad_hdr_init(&msg.hdr, CM_ATTR_REJ, tid);
	msg.rej.local_comm_id = local_id;
	msg.rej.remote_comm_id = remote_id;
	msg.rej.msg_rejected = msg_rejected;
	msg.rej.reason = reason;
	/* A timeout REJ names the sender's CA GUID so the peer can find the
	 * connection it never learnt our comm ID for. */
	if (reason == PRDMA_CM_REJ_TIMEOUT) {
		for (i = 0; i < 8; i++)
			msg.rej.ari[i] = (uint8_t)(ag->node_guid >> (56 - 8 * i));
		msg.rej.ari_length = 8;
	}
	if (len > 0)
		memcpy(msg.rej.private_data, pdata, RTE_MIN(len, CM_REJ_PDATA));
	cm_mad_encode(&msg, mad);
	if (keep != NULL)
		memcpy(keep, mad, CM_MAD_SIZE);
	return cm_agent_send(ag, dgid, sgid_index, mad);
}

int
cm_id_send_rej(struct cm_id_priv *id, uint8_t msg_rejected, uint16_t reason,
	       const void *pdata, uint16_t len, bool keep)
{
	/* Kept, a duplicate of the rejected REQ is rejected again, and on a
	 * passive id even after it is destroyed (cm_passive_memo_rej). */
	if (keep) {
		id->mad_valid = true;
		id->rej_kept = id->passive;
	}
	return cm_send_rej(id->agent, &id->dgid, id->sgid_index, id->tid, id->local_id,
			   id->remote_id, msg_rejected, reason, pdata, len,
			   keep ? id->mad : NULL);
}

void
cm_timer_start(struct cm_id_priv *id, uint64_t interval, uint8_t retries)
{
	id->interval = interval;
	id->retries_left = retries;
	id->deadline = cm_now() + interval;
	if (id->deadline == 0)
		id->deadline = 1;
}

void
cm_timer_stop(struct cm_id_priv *id)
{
	id->deadline = 0;
}

/* Resend the kept message if retries are left; false when they ran out. */
static bool
resend(struct cm_id_priv *id)
{
	if (id->retries_left == 0)
		return false;
	id->retries_left--;
	cm_stat_add(id->pub.dev, CM_ST_RESEND, 1);
	cm_send_stored(id);
	id->deadline = cm_now() + id->interval;
	return true;
}

uint64_t
cm_active_interval(const struct cm_id_priv *id)
{
	return 2 * cm_time_tsc(id->lifetime) + cm_time_tsc(id->cm_timeout);
}

uint64_t
cm_passive_interval(const struct cm_id_priv *id)
{
	return cm_time_tsc(id->peer_cm_timeout);
}

void
cm_set_established(struct cm_id_priv *id, bool up)
{
	if (id->established == up)
		return;
	id->established = up;
	prdma_dev_counter_add(id->pub.dev, PRDMA_DEV_CNT_ACTIVE_CONNECTION, up ? 1 : -1);
}

void
cm_unpend(struct cm_id_priv *id)
{
	if (id->listener != NULL && id->pending_counted) {
		id->listener->pending--;
		id->pending_counted = false;
	}
}

int
cm_event_simple(struct cm_id_priv *id, enum prdma_cm_event_type type, int status)
{
	struct cm_event_priv *ev = cm_event_new(id, type, status);

	if (ev == NULL)
		return -ENOMEM;
	cm_event_queue(ev);
	return 0;
}

/* A connection attempt failed: the QP to ERR, the event, the counter. */
void
cm_conn_fail(struct cm_id_priv *id, enum prdma_cm_event_type type, int status,
	     const uint8_t *pdata, uint16_t len)
{
	struct cm_event_priv *ev;

	cm_timer_stop(id);
	cm_unpend(id);
	cm_qp_error(id);
	id->state = CM_CLOSED;
	prdma_dev_counter_add(id->pub.dev, PRDMA_DEV_CNT_CONNECT_FAILURE, 1);
	ev = cm_event_new(id, type, status);
	if (ev == NULL)
		return;
	if (pdata != NULL) {
		memcpy(ev->pub.private_data, pdata, len);
		ev->pub.param.conn.private_data = ev->pub.private_data;
		ev->pub.param.conn.private_data_len = len;
	}
	cm_event_queue(ev);
}

void
cm_recv_rej(struct cm_agent *ag, const struct cm_msg *msg)
{
	const struct cm_rej *r = &msg->rej;
	struct cm_id_priv *id = NULL, *it;
	uint64_t guid = 0;
	int i;

	if (r->reason == PRDMA_CM_REJ_TIMEOUT && r->ari_length >= 8) {
		for (i = 0; i < 8; i++)
			guid = guid << 8 | r->ari[i];
		TAILQ_FOREACH(it, &ag->ids, next)
			if (it->passive && it->remote_id == r->local_comm_id &&
			    it->remote_guid == guid && it->state != CM_CLOSED) {
				id = it;
				break;
			}
	}
	if (id == NULL)
		id = cm_find_by_local(ag, r->remote_comm_id);
	if (id == NULL ||
	    (id->remote_id != 0 && r->local_comm_id != 0 && id->remote_id != r->local_comm_id)) {
		cm_stat_add(ag->dev, CM_ST_UNMATCHED, 1);
		return;
	}
	switch (id->state) {
	case CM_REQ_SENT:
	case CM_REP_SENT:
	case CM_REQ_RCVD:
		CM_LOG(DEBUG, "%s: connection %08x rejected, reason %u", ag->dev->name,
		       id->local_id, r->reason);
		cm_conn_fail(id, PRDMA_CM_EVENT_REJECTED, r->reason, r->private_data,
			     CM_REJ_PDATA);
		break;
	case CM_ESTABLISHED:
		if (r->reason != PRDMA_CM_REJ_STALE_CONN) {
			cm_stat_add(ag->dev, CM_ST_UNMATCHED, 1);
			break;
		}
		/* The peer no longer knows this connection. */
		prdma_dev_counter_add(id->pub.dev, PRDMA_DEV_CNT_CONNECTION_ERROR, 1);
		cm_set_established(id, false);
		cm_qp_error(id);
		cm_event_simple(id, PRDMA_CM_EVENT_DISCONNECTED, 0);
		cm_disc_timewait(id);
		break;
	default:
		cm_stat_add(ag->dev, CM_ST_UNMATCHED, 1);
		break;
	}
}

void
cm_recv_mra(struct cm_agent *ag, const struct cm_msg *msg)
{
	const struct cm_mra *m = &msg->mra;
	struct cm_id_priv *id;

	id = cm_find_by_local(ag, m->remote_comm_id);
	if (id == NULL ||
	    !((id->state == CM_REQ_SENT && m->msg_mraed == CM_MSG_REQ) ||
	      (id->state == CM_REP_SENT && m->msg_mraed == CM_MSG_REP))) {
		cm_stat_add(ag->dev, CM_ST_UNMATCHED, 1);
		return;
	}
	/* The peer is alive but slow: wait its service time, then resume. */
	id->deadline = cm_now() +
		       cm_time_tsc(RTE_MIN(m->service_timeout, CM_MAX_MRA_TIMEOUT)) +
		       cm_time_tsc(id->lifetime);
	CM_LOG(DEBUG, "%s: connection %08x: MRA, waiting %u more", ag->dev->name,
	       id->local_id, m->service_timeout);
}

/* Our REQ or SIDR_REQ never left: its peer's MAC did not resolve. */
void
cm_unresolved(struct cm_id_priv *id)
{
	switch (id->state) {
	case CM_REQ_SENT:
		cm_conn_fail(id, PRDMA_CM_EVENT_UNREACHABLE, -EHOSTUNREACH, NULL, 0);
		break;
	case CM_SIDR_REQ_SENT:
		cm_timer_stop(id);
		id->state = CM_CLOSED;
		cm_event_simple(id, PRDMA_CM_EVENT_UNREACHABLE, -EHOSTUNREACH);
		break;
	default:
		break;
	}
}

void
cm_timer_fire(struct cm_id_priv *id)
{
	switch (id->state) {
	case CM_REQ_SENT:
	case CM_REP_SENT:
		if (resend(id))
			return;
		CM_LOG(DEBUG, "%s: connection %08x: no answer after %u resends",
		       id->pub.dev->name, id->local_id, id->max_retries);
		cm_id_send_rej(id, id->state == CM_REQ_SENT ? CM_MSG_REQ : CM_MSG_REP,
			       PRDMA_CM_REJ_TIMEOUT, NULL, 0, false);
		cm_conn_fail(id, PRDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0);
		break;
	case CM_SIDR_REQ_SENT:
		if (resend(id))
			return;
		cm_timer_stop(id);
		id->state = CM_CLOSED;
		cm_event_simple(id, PRDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
		break;
	case CM_DREQ_SENT:
		if (resend(id))
			return;
		/* The peer vanished without answering: a lost connection. */
		prdma_dev_counter_add(id->pub.dev, PRDMA_DEV_CNT_CONNECTION_ERROR, 1);
		cm_event_simple(id, PRDMA_CM_EVENT_DISCONNECTED, -ETIMEDOUT);
		cm_disc_timewait(id);
		break;
	case CM_TIMEWAIT:
		id->state = CM_CLOSED;
		cm_event_simple(id, PRDMA_CM_EVENT_TIMEWAIT_EXIT, 0);
		break;
	default:
		break;
	}
}

void
cm_conn_abort(struct cm_id_priv *id)
{
	cm_timer_stop(id);
	switch (id->state) {
	case CM_REQ_SENT:
		cm_id_send_rej(id, CM_MSG_REQ, PRDMA_CM_REJ_TIMEOUT, NULL, 0, false);
		break;
	case CM_REQ_RCVD:
		/* Kept: a late copy of the REQ gets this REJ too. */
		cm_id_send_rej(id, CM_MSG_REQ, PRDMA_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       true);
		break;
	case CM_REP_SENT:
		cm_id_send_rej(id, CM_MSG_REP, PRDMA_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       true);
		cm_qp_error(id);
		break;
	case CM_ESTABLISHED:
		cm_disc_send_dreq(id, false);
		break;
	case CM_SIDR_REQ_RCVD:
		cm_sidr_reject(id, NULL, 0);
		break;
	default:
		break;
	}
	cm_unpend(id);
	id->state = CM_CLOSED;
}

struct cm_id_priv *
cm_child_new(struct cm_id_priv *listener)
{
	struct cm_id_priv *id;

	id = rte_zmalloc_socket("prdma_cm_id", sizeof(*id), 0,
				listener->pub.dev->socket_id);
	if (id == NULL)
		return NULL;
	id->pub.dev = listener->pub.dev;
	id->pub.channel = listener->pub.channel;
	id->pub.context = listener->pub.context;
	id->pub.ps = listener->pub.ps;
	id->pub.port_num = listener->pub.port_num;
	id->agent = listener->agent;
	id->agent->refs++;
	id->passive = true;
	id->listener = listener;
	id->pending_counted = true;
	listener->pending++;
	id->local_id = cm_alloc_comm_id();
	TAILQ_INSERT_TAIL(&id->agent->ids, id, next);
	id->pub.channel->ids++;
	cm_stat_add(id->pub.dev, CM_ST_IDS, 1);
	return id;
}

void
cm_id_free(struct cm_id_priv *id)
{
	struct cm_agent *ag = id->agent;
	struct cm_id_priv *it;

	cm_unpend(id);
	if (id->rej_kept)
		cm_passive_memo_rej(id);
	TAILQ_FOREACH(it, &ag->ids, next)
		if (it->listener == id) {
			it->listener = NULL;
			it->pending_counted = false;
		}
	cm_set_established(id, false);
	TAILQ_REMOVE(&ag->ids, id, next);
	id->pub.channel->ids--;
	cm_stat_add(id->pub.dev, CM_ST_IDS, -1);
	rte_free(id);
	cm_agent_put(ag);
}
