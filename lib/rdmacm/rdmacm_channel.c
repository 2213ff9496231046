/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Event channels and events: the CM thread turns each prdma CM event into
 * an rdma_cm_event (a CONNECT_REQUEST also makes the new rdma_cm_id) and
 * queues it on its id's channel. The channel's fd is an eventfd in
 * semaphore mode whose counter is the queue's length, so poll() on it says
 * whether rdma_get_cm_event() has something, and the program's O_NONBLOCK
 * on it decides whether rdma_get_cm_event() waits.
 */

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "rdmacm_private.h"

struct rcm_channel *
rcm_channel_new(bool own)
{
	struct rcm_channel *ch = calloc(1, sizeof(*ch));

	if (ch == NULL)
		return NULL;
	ch->pub.fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (ch->pub.fd < 0) {
		free(ch);
		return NULL;
	}
	TAILQ_INIT(&ch->queue);
	ch->own = own;
	return ch;
}

void
rcm_channel_free(struct rcm_channel *ch)
{
	struct rcm_event *ev;

	while ((ev = TAILQ_FIRST(&ch->queue)) != NULL) {
		TAILQ_REMOVE(&ch->queue, ev, next);
		rcm_event_free(ev);
	}
	close(ch->pub.fd);
	free(ch);
}

static struct rcm_channel *dead_channels;

/* A waiter on a destroyed channel: blocked until the program exits (or
 * cancels the thread; poll() is a cancellation point, no lock is held). */
static void
block_forever(void)
{
	for (;;)
		poll(NULL, 0, -1);
}

struct rdma_event_channel *
rdma_create_event_channel(void)
{
	struct rcm_channel *ch;
	int ret;

	ret = rcm_init();
	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	ch = rcm_channel_new(false);
	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	return &ch->pub;
}

void
rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct rcm_channel *ch = (struct rcm_channel *)channel;
	uint64_t one = 1;

	if (ch == NULL)
		return;
	pthread_mutex_lock(&rcm_lock);
	/* Ids or unacked events still point here: keep it rather than free
	 * what they use (librdmacm requires both gone first). */
	if (ch->ids != 0 || ch->handed != 0) {
		pthread_mutex_unlock(&rcm_lock);
		return;
	}
	if (ch->waiters == 0) {
		rcm_channel_free(ch);
	} else {
		/* A thread still waits in rdma_get_cm_event() (rping's CM thread
		 * does at exit). With librdmacm it stays blocked in read() on
		 * the closed fd, and the program exits around it: wake it so it
		 * blocks for good without touching the channel again, which is
		 * kept (on a list, not leaked) since the waiter still names it. */
		ch->dead = true;
		ch->next_dead = dead_channels;
		dead_channels = ch;
		if (write(ch->pub.fd, &one, sizeof(one)) != sizeof(one))
			one = 0;
	}
	pthread_mutex_unlock(&rcm_lock);
}

struct rcm_event *
rcm_event_alloc(struct rcm_id *id, enum rdma_cm_event_type type, int status)
{
	struct rcm_event *ev = calloc(1, sizeof(*ev));

	if (ev == NULL)
		return NULL;
	ev->owner = id;
	ev->pub.id = &id->pub;
	ev->pub.event = type;
	ev->pub.status = status;
	return ev;
}

void
rcm_event_free(struct rcm_event *ev)
{
	if (ev->pev != NULL)
		prdma_cm_ack_event(ev->pev);
	free(ev);
}

/* Under rcm_lock. */
void
rcm_event_queue(struct rcm_event *ev)
{
	struct rcm_channel *ch = ev->owner->ch;
	uint64_t one = 1;

	TAILQ_INSERT_TAIL(&ch->queue, ev, next);
	/* An eventfd write fails only at a counter of 2^64 - 2. */
	if (write(ch->pub.fd, &one, sizeof(one)) != sizeof(one))
		one = 0;
	pthread_cond_broadcast(&rcm_cond);
}

/* Under rcm_lock: drop the queued (not handed out) events of @id. */
void
rcm_id_purge(struct rcm_id *id)
{
	struct rcm_event *ev, *tmp;
	uint64_t v;

	for (ev = TAILQ_FIRST(&id->ch->queue); ev != NULL; ev = tmp) {
		tmp = TAILQ_NEXT(ev, next);
		if (ev->owner != id)
			continue;
		TAILQ_REMOVE(&id->ch->queue, ev, next);
		if (read(id->ch->pub.fd, &v, sizeof(v)) < 0)
			v = 0;
		rcm_event_free(ev);
	}
}

static enum rdma_cm_event_type
event_type(enum prdma_cm_event_type t)
{
	switch (t) {
	case PRDMA_CM_EVENT_CONNECT_REQUEST:
		return RDMA_CM_EVENT_CONNECT_REQUEST;
	case PRDMA_CM_EVENT_ESTABLISHED:
		return RDMA_CM_EVENT_ESTABLISHED;
	case PRDMA_CM_EVENT_REJECTED:
		return RDMA_CM_EVENT_REJECTED;
	case PRDMA_CM_EVENT_UNREACHABLE:
		return RDMA_CM_EVENT_UNREACHABLE;
	case PRDMA_CM_EVENT_DISCONNECTED:
		return RDMA_CM_EVENT_DISCONNECTED;
	case PRDMA_CM_EVENT_TIMEWAIT_EXIT:
		return RDMA_CM_EVENT_TIMEWAIT_EXIT;
	case PRDMA_CM_EVENT_CONNECT_ERROR:
	default:
		return RDMA_CM_EVENT_CONNECT_ERROR;
	}
}

static void
ud_param(struct rcm_event *ev, const struct prdma_cm_event *pev)
{
	const struct prdma_cm_ud_param *u = &pev->param.ud;
	struct rdma_ud_param *r = &ev->pub.param.ud;
	uint16_t len = RTE_MIN(u->private_data_len, (uint16_t)sizeof(ev->pdata));

	memcpy(ev->pdata, pev->private_data, len);
	r->private_data = len > 0 ? ev->pdata : NULL;
	r->private_data_len = (uint8_t)RTE_MIN(len, 255);
	r->qp_num = u->qp_num;
	r->qkey = u->qkey;
	r->ah_attr.is_global = 1;
	memcpy(r->ah_attr.grh.dgid.raw, u->ah_attr.dgid.raw, 16);
	r->ah_attr.grh.flow_label = u->ah_attr.flow_label;
	r->ah_attr.grh.sgid_index = u->ah_attr.sgid_index;
	r->ah_attr.grh.hop_limit = u->ah_attr.hop_limit != 0 ? u->ah_attr.hop_limit : 64;
	r->ah_attr.grh.traffic_class = u->ah_attr.traffic_class;
	r->ah_attr.sl = u->ah_attr.sl;
	r->ah_attr.dlid = u->ah_attr.dlid;
	r->ah_attr.port_num = u->ah_attr.port_num != 0 ? u->ah_attr.port_num : 1;
}

static void
conn_param(struct rcm_event *ev, const struct prdma_cm_event *pev)
{
	const struct prdma_cm_conn_param *c = &pev->param.conn;
	struct rdma_conn_param *r = &ev->pub.param.conn;
	uint16_t len = RTE_MIN(c->private_data_len, (uint16_t)sizeof(ev->pdata));

	memcpy(ev->pdata, pev->private_data, len);
	r->private_data = len > 0 ? ev->pdata : NULL;
	r->private_data_len = (uint8_t)RTE_MIN(len, 255);
	r->responder_resources = c->responder_resources;
	r->initiator_depth = c->initiator_depth;
	r->flow_control = c->flow_control;
	r->retry_count = c->retry_count;
	r->rnr_retry_count = c->rnr_retry_count;
	r->srq = c->srq;
	r->qp_num = c->qp_num;
}

/* A peer's request: the new id, on the listener's channel, with its context. */
static struct rcm_id *
request_id(struct prdma_cm_event *pev, struct rcm_id **listenerp)
{
	struct rcm_id *l = pev->listen_id != NULL ? pev->listen_id->context : NULL;
	struct rcm_id *id;

	*listenerp = l;
	if (l == NULL || l->destroying)
		return NULL;
	id = rcm_id_new(l->ch, l->pub.context, l->pub.ps, l->pub.qp_type);
	if (id == NULL)
		return NULL;
	if (rcm_id_attach(id, pev->id->dev) < 0) {
		TAILQ_REMOVE(&rcm_ids, id, next);
		id->ch->ids--;
		free(id);
		return NULL;
	}
	id->pid = pev->id;
	pev->id->context = id;
	id->listener = l;
	id->sync = l->sync;
	id->bound = true;
	id->req_resp_res = pev->param.conn.responder_resources;
	id->req_init_depth = pev->param.conn.initiator_depth;
	rcm_id_fill_addrs(id);
	return id;
}

/* Under rcm_lock (the CM thread). */
void
rcm_dispatch(struct prdma_cm_event *pev)
{
	struct rcm_id *id, *listener = NULL;
	struct rcm_event *ev;
	bool ud;

	if (pev->event == PRDMA_CM_EVENT_CONNECT_REQUEST) {
		id = request_id(pev, &listener);
		if (id == NULL) {
			struct prdma_cm_id *pid = pev->id;

			prdma_cm_reject(pid, NULL, 0, PRDMA_CM_REJ_NO_RESOURCES);
			prdma_cm_ack_event(pev);
			prdma_cm_id_destroy(pid);
			return;
		}
	} else {
		id = pev->id->context;
		if (id == NULL) {
			prdma_cm_ack_event(pev);
			return;
		}
	}
	ev = rcm_event_alloc(id, event_type(pev->event), pev->status);
	if (ev == NULL) {
		/* No memory for the event: the request is refused; any other
		 * event is lost, as a full kernel queue would lose it. */
		prdma_cm_ack_event(pev);
		return;
	}
	ev->pev = pev;
	ev->pub.listen_id = listener != NULL ? &listener->pub : NULL;
	ud = id->pub.ps == RDMA_PS_UDP || id->pub.qp_type == IBV_QPT_UD;
	if (ud)
		ud_param(ev, pev);
	else
		conn_param(ev, pev);
	switch (pev->event) {
	case PRDMA_CM_EVENT_ESTABLISHED:
		id->connected = true;
		rcm_id_fill_addrs(id);
		rcm_qp_sync(id);
		break;
	case PRDMA_CM_EVENT_DISCONNECTED:
		id->disconnected = true;
		rcm_qp_sync(id);
		break;
	case PRDMA_CM_EVENT_REJECTED:
	case PRDMA_CM_EVENT_UNREACHABLE:
	case PRDMA_CM_EVENT_CONNECT_ERROR:
		rcm_qp_sync(id);
		break;
	default:
		break;
	}
	rcm_event_queue(ev);
}

/* Under rcm_lock: hand out @ev (taken off its queue). */
static void
hand_out(struct rcm_channel *ch, struct rcm_event *ev)
{
	uint64_t v;

	TAILQ_REMOVE(&ch->queue, ev, next);
	/* The counter is the queue length: this read never waits. */
	if (read(ch->pub.fd, &v, sizeof(v)) < 0)
		v = 0;
	ch->handed++;
	ev->owner->handed++;
}

int
rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	struct rcm_channel *ch = (struct rcm_channel *)channel;
	struct pollfd pfd;
	struct rcm_event *ev;
	int fl, ret = 0;

	if (ch == NULL || event == NULL)
		return rcm_fail(EINVAL);
	pthread_mutex_lock(&rcm_lock);
	ch->waiters++;
	for (;;) {
		if (ch->dead) {
			ch->waiters--;
			pthread_mutex_unlock(&rcm_lock);
			block_forever();
		}
		ev = TAILQ_FIRST(&ch->queue);
		if (ev != NULL) {
			hand_out(ch, ev);
			*event = &ev->pub;
			break;
		}
		pthread_mutex_unlock(&rcm_lock);
		fl = fcntl(ch->pub.fd, F_GETFL);
		if (fl >= 0 && (fl & O_NONBLOCK) != 0) {
			pthread_mutex_lock(&rcm_lock);
			ret = EAGAIN;
			break;
		}
		pfd.fd = ch->pub.fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
			ret = errno;
			pthread_mutex_lock(&rcm_lock);
			break;
		}
		pthread_mutex_lock(&rcm_lock);
	}
	ch->waiters--;
	pthread_mutex_unlock(&rcm_lock);
	return ret != 0 ? rcm_fail(ret) : 0;
}

/* Under rcm_lock: wait for the next event about @id on its channel. */
struct rcm_event *
rcm_wait_event_locked(struct rcm_id *id)
{
	struct rcm_event *ev;

	for (;;) {
		TAILQ_FOREACH(ev, &id->ch->queue, next)
			if (ev->owner == id) {
				hand_out(id->ch, ev);
				return ev;
			}
		pthread_cond_wait(&rcm_cond, &rcm_lock);
	}
}

void
rcm_ack_locked(struct rcm_event *ev)
{
	struct rcm_id *id = ev->owner;

	id->ch->handed--;
	id->handed--;
	if (id->pub.event == &ev->pub)
		id->pub.event = NULL;
	rcm_event_free(ev);
	pthread_cond_broadcast(&rcm_cond);
}

int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct rcm_event *ev = (struct rcm_event *)event;

	if (ev == NULL)
		return rcm_fail(EINVAL);
	pthread_mutex_lock(&rcm_lock);
	rcm_ack_locked(ev);
	pthread_mutex_unlock(&rcm_lock);
	return 0;
}

const char *
rdma_event_str(enum rdma_cm_event_type event)
{
	static const char *const names[] = {
		[RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
		[RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
		[RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
		[RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
		[RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
		[RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
		[RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
		[RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
		[RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
		[RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
		[RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
		[RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
		[RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
		[RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
		[RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
		[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	if ((unsigned int)event < RTE_DIM(names) && names[event] != NULL)
		return names[event];
	return "UNKNOWN EVENT";
}
