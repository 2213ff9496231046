/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Disconnection: DREQ out (resent until the DREP), DREQ in (answered with a
 * DREP even when no connection matches, as Linux does), then the
 * time-wait that keeps the QP number out of use until late packets die.
 */

#include <string.h>

#include "cm_private.h"

void
cm_disc_timewait(struct cm_id_priv *id)
{
	id->state = CM_TIMEWAIT;
	/* The peer's REQ chose ack_timeout on the passive side: bounded (F5). */
	cm_timer_start(id, cm_time_tsc(RTE_MIN(id->ack_timeout, CM_MAX_TIMEWAIT)), 0);
}

int
cm_disc_send_dreq(struct cm_id_priv *id, bool retry)
{
	struct cm_msg msg;

	cm_set_established(id, false);
	cm_qp_error(id);
	memset(&msg, 0, sizeof(msg));
	/* A DREQ opens a transaction of its own. */
	id->tid = cm_tid_make(id->agent->tid_hi, id->local_id);
	cm_mad_hdr_init(&msg.hdr, CM_ATTR_DREQ, id->tid);
	msg.dreq.local_comm_id = id->local_id;
	msg.dreq.remote_comm_id = id->remote_id;
	msg.dreq.remote_qpn = id->remote_qpn;
	id->state = CM_DREQ_SENT;
	cm_msg_send(id, &msg, true);
	if (retry)
		cm_timer_start(id, id->passive ? cm_passive_interval(id) :
						 cm_active_interval(id),
			       id->max_retries);
	else
		cm_timer_stop(id);
	return 0;
}

static void
send_drep(struct cm_agent *ag, const union prdma_gid *dgid, uint8_t sgid_index,
	  const struct cm_msg *dreq)
{
	uint8_t mad[CM_MAD_SIZE];
	struct cm_msg msg;

	memset(&msg, 0, sizeof(msg));
	cm_mad_hdr_init(&msg.hdr, CM_ATTR_DREP, dreq->hdr.tid);
	msg.drep.local_comm_id = dreq->dreq.remote_comm_id;
	msg.drep.remote_comm_id = dreq->dreq.local_comm_id;
	cm_mad_encode(&msg, mad);
	cm_agent_send(ag, dgid, sgid_index, mad);
}

void
cm_disc_recv_dreq(struct cm_agent *ag, const struct cm_msg *msg,
		  const union prdma_gid *src, bool have_src)
{
	const struct cm_dreq *d = &msg->dreq;
	struct cm_id_priv *id;

	id = cm_find_by_local(ag, d->remote_comm_id);
	if (id == NULL || id->remote_id != d->local_comm_id) {
		cm_stat_add(ag->dev, CM_ST_UNMATCHED, 1);
		CM_LOG(DEBUG, "%s: DREQ for unknown connection %08x%s", ag->dev->name,
		       d->remote_comm_id, have_src ? "" : ", no source to answer");
		if (have_src)
			send_drep(ag, src, 0, msg);
		return;
	}
	/* Linux ignores a DREQ naming another QP than the connection's. */
	if (!id->has_qp_num || d->remote_qpn != id->qp_num) {
		cm_stat_add(ag->dev, CM_ST_UNMATCHED, 1);
		CM_LOG(DEBUG, "%s: DREQ for connection %08x names QP %u, not its QP %u: ignored",
		       ag->dev->name, id->local_id, d->remote_qpn,
		       id->has_qp_num ? id->qp_num : 0);
		return;
	}
	switch (id->state) {
	case CM_ESTABLISHED:
	case CM_REP_SENT:
	case CM_DREQ_SENT:
		cm_set_established(id, false);
		cm_qp_error(id);
		send_drep(ag, &id->dgid, id->sgid_index, msg);
		cm_event_simple(id, PRDMA_CM_EVENT_DISCONNECTED, 0);
		cm_disc_timewait(id);
		break;
	case CM_TIMEWAIT:
	case CM_CLOSED:
		cm_stat_add(ag->dev, CM_ST_DUP, 1);
		send_drep(ag, &id->dgid, id->sgid_index, msg);
		break;
	default:
		cm_stat_add(ag->dev, CM_ST_UNMATCHED, 1);
		CM_LOG(DEBUG, "%s: DREQ for connection %08x in state %d: ignored",
		       ag->dev->name, id->local_id, id->state);
		break;
	}
}

void
cm_disc_recv_drep(struct cm_agent *ag, const struct cm_msg *msg)
{
	struct cm_id_priv *id;

	id = cm_find_by_local(ag, msg->drep.remote_comm_id);
	if (id == NULL || id->remote_id != msg->drep.local_comm_id) {
		cm_stat_add(ag->dev, CM_ST_UNMATCHED, 1);
		return;
	}
	if (id->state != CM_DREQ_SENT) {
		cm_stat_add(ag->dev, CM_ST_DUP, 1);
		return;
	}
	cm_event_simple(id, PRDMA_CM_EVENT_DISCONNECTED, 0);
	cm_disc_timewait(id);
}
