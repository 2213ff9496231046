/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * CM events: queued on the id's channel, signalled through the channel's
 * eventfd, handed out by prdma_cm_get_event() and freed by
 * prdma_cm_ack_event(). An id cannot be destroyed while one of its events
 * is out, so an event never points at freed memory.
 */

#include <string.h>
#include <unistd.h>

#include <rte_malloc.h>
#include <rte_tailq.h>

#include "cm_private.h"

struct cm_event_priv *
cm_event_new(struct cm_id_priv *id, enum prdma_cm_event_type type, int status)
{
	struct cm_event_priv *ev;

	ev = rte_zmalloc("prdma_cm_event", sizeof(*ev), 0);
	if (ev == NULL) {
		CM_LOG(ERR, "no memory for a %s event", prdma_cm_event_str(type));
		return NULL;
	}
	ev->pub.event = type;
	ev->pub.status = status;
	ev->pub.id = &id->pub;
	ev->ch = id->pub.channel;
	return ev;
}

static void
efd_signal(struct prdma_cm_channel *ch)
{
	uint64_t one = 1;

	if (write(ch->efd, &one, sizeof(one)) != sizeof(one))
		CM_LOG(DEBUG, "eventfd write failed");
}

/* Called only once the queue is empty; a zero counter (EAGAIN) is fine. */
static void
efd_drain(struct prdma_cm_channel *ch)
{
	uint64_t v;

	if (read(ch->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		CM_LOG(DEBUG, "eventfd read failed (%d)", errno);
}

void
cm_event_queue(struct cm_event_priv *ev)
{
	struct prdma_cm_channel *ch = ev->ch;

	/* An id its program is destroying takes no more events. */
	if (ev->pub.id != NULL && CM_ID(ev->pub.id)->destroying) {
		rte_free(ev);
		return;
	}
	CM_LOG(DEBUG, "event %s (status %d)", prdma_cm_event_str(ev->pub.event),
	       ev->pub.status);
	TAILQ_INSERT_TAIL(&ch->events, ev, next);
	efd_signal(ch);
}

/* Drop the queued (not yet taken) events of @p id. A CONNECT_REQUEST queued
 * on a listener being destroyed takes its new id with it. */
void
cm_event_purge(struct cm_id_priv *id)
{
	struct prdma_cm_channel *ch = id->pub.channel;
	struct cm_event_priv *ev, *tmp;
	struct cm_id_priv *child;
	bool removed = false;

	RTE_TAILQ_FOREACH_SAFE(ev, &ch->events, next, tmp) {
		if (ev->pub.id != &id->pub && ev->pub.listen_id != &id->pub)
			continue;
		TAILQ_REMOVE(&ch->events, ev, next);
		removed = true;
		if (ev->pub.listen_id == &id->pub) {
			child = CM_ID(ev->pub.id);
			cm_conn_abort(child);
			cm_id_free(child);
		}
		rte_free(ev);
	}
	if (removed && TAILQ_EMPTY(&ch->events))
		efd_drain(ch);
}

int
prdma_cm_get_event(struct prdma_cm_channel *ch, struct prdma_cm_event **event)
{
	struct cm_event_priv *ev;

	if (ch == NULL || event == NULL)
		return cm_err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	ev = TAILQ_FIRST(&ch->events);
	if (ev == NULL) {
		pthread_mutex_unlock(&cm_lock);
		return cm_err(EAGAIN);
	}
	TAILQ_REMOVE(&ch->events, ev, next);
	if (TAILQ_EMPTY(&ch->events))
		efd_drain(ch);
	CM_ID(ev->pub.id)->events_out++;
	if (ev->pub.listen_id != NULL)
		CM_ID(ev->pub.listen_id)->events_out++;
	ch->unacked++;
	pthread_mutex_unlock(&cm_lock);
	*event = &ev->pub;
	return 0;
}

int
prdma_cm_ack_event(struct prdma_cm_event *event)
{
	struct cm_event_priv *ev = (struct cm_event_priv *)event;

	if (event == NULL)
		return cm_err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	CM_ID(ev->pub.id)->events_out--;
	if (ev->pub.listen_id != NULL)
		CM_ID(ev->pub.listen_id)->events_out--;
	ev->ch->unacked--;
	pthread_mutex_unlock(&cm_lock);
	rte_free(ev);
	return 0;
}
