/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Event channels and the CM's progress: receive on every port's GSI QP,
 * then fire the timers that are due. A channel may own a control thread
 * that progresses on its own, for applications that block on the fd.
 */

#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "cm_private.h"

/* The channel thread's nap between progress calls. */
#define CM_THREAD_NAP_NS 200000

int
cm_progress_locked(void)
{
	struct cm_id_priv *id;
	struct cm_agent *ag;
	uint64_t now;
	int work = 0;

	TAILQ_FOREACH(ag, &cm_agents, next) {
		work += cm_agent_poll(ag);
		now = cm_now();
		TAILQ_FOREACH(id, &ag->ids, next) {
			if (id->path_wait && now >= id->path_next) {
				cm_passive_path_retry(id);
				work++;
			}
			if (id->deadline != 0 && now >= id->deadline) {
				id->deadline = 0;
				cm_timer_fire(id);
				work++;
			}
		}
	}
	return work;
}

int
prdma_cm_channel_progress(struct prdma_cm_channel *ch)
{
	int work;

	if (ch == NULL)
		return cm_err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	work = cm_progress_locked();
	pthread_mutex_unlock(&cm_lock);
	return work;
}

/* Nothing owed to a peer is left: no DREQ unanswered, every MAD out. */
static bool
cm_quiet_locked(void)
{
	struct cm_id_priv *id;
	struct cm_agent *ag;
	bool quiet = true;

	TAILQ_FOREACH(ag, &cm_agents, next) {
		if (!cm_agent_idle(ag))
			quiet = false;
		TAILQ_FOREACH(id, &ag->ids, next)
			if (id->state == CM_DREQ_SENT)
				quiet = false;
	}
	return quiet;
}

/*
 * Every connection still up gets its DREQ, as a kernel closing the
 * process's rdma_cm file destroys its ids. The program is past main: its
 * ids take no more events, and the CM forgets their QPs (a program may
 * have destroyed one with ibv_destroy_qp() and no rdma_destroy_qp(); at
 * exit a QP's state no longer matters).
 */
static void
cm_disconnect_all_locked(void)
{
	struct cm_id_priv *id;
	struct cm_agent *ag;

	TAILQ_FOREACH(ag, &cm_agents, next)
		TAILQ_FOREACH(id, &ag->ids, next) {
			id->destroying = true;
			switch (id->state) {
			case CM_ESTABLISHED:
			case CM_REP_SENT:
				id->pub.qp = NULL;
				cm_disc_send_dreq(id, true);
				break;
			case CM_REQ_SENT:
			case CM_REQ_RCVD:
			case CM_SIDR_REQ_SENT:
			case CM_SIDR_REQ_RCVD:
				/* A handshake that would need the QP: a REJ ends it. */
				cm_conn_abort(id);
				id->path_wait = false;
				id->pub.qp = NULL;
				break;
			default:
				id->pub.qp = NULL;
				break;
			}
		}
}

static int
quiesce(unsigned int max_ms, bool disconnect)
{
	const struct timespec nap = { .tv_sec = 0, .tv_nsec = 50000 };
	const struct timespec settle = { .tv_sec = 0, .tv_nsec = 1000000 };
	uint64_t end = cm_now() + rte_get_tsc_hz() / 1000 * max_ms;
	bool owed;
	int ret;

	/* Never block for good: exit() may run while a thread holds the lock. */
	while (pthread_mutex_trylock(&cm_lock) != 0) {
		if (cm_now() >= end)
			return cm_err(EBUSY);
		nanosleep(&nap, NULL);
	}
	if (disconnect)
		cm_disconnect_all_locked();
	for (owed = false;; owed = true) {
		cm_progress_locked();
		if (cm_quiet_locked()) {
			ret = 0;
			break;
		}
		if (cm_now() >= end) {
			ret = -ETIMEDOUT;
			break;
		}
		/* Let the peer's answer and the provider's engine come. */
		pthread_mutex_unlock(&cm_lock);
		nanosleep(&nap, NULL);
		pthread_mutex_lock(&cm_lock);
	}
	pthread_mutex_unlock(&cm_lock);
	/* The soft provider completes a datagram as its engine stages the
	 * frame and transmits it at the end of that step: let it end. */
	if (owed)
		nanosleep(&settle, NULL);
	return ret < 0 ? cm_err(-ret) : 0;
}

int
prdma_cm_quiesce(unsigned int max_ms)
{
	return quiesce(max_ms, false);
}

int
prdma_cm_exit(unsigned int max_ms)
{
	return quiesce(max_ms, true);
}

static void *
channel_thread(void *arg)
{
	struct prdma_cm_channel *ch = arg;
	const struct timespec nap = { .tv_sec = 0, .tv_nsec = CM_THREAD_NAP_NS };

	while (!__atomic_load_n(&ch->stop, __ATOMIC_ACQUIRE)) {
		if (prdma_cm_channel_progress(ch) == 0)
			nanosleep(&nap, NULL);
	}
	return NULL;
}

struct prdma_cm_channel *
prdma_cm_channel_create(uint32_t flags)
{
	struct prdma_cm_channel *ch;
	int ret;

	if ((flags & ~PRDMA_CM_CHANNEL_F_THREAD) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	ch = rte_zmalloc("prdma_cm_channel", sizeof(*ch), 0);
	if (ch == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	TAILQ_INIT(&ch->events);
	ch->flags = flags;
	ch->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ch->efd < 0) {
		ret = errno;
		rte_free(ch);
		rte_errno = ret;
		return NULL;
	}
	if (flags & PRDMA_CM_CHANNEL_F_THREAD) {
		ret = rte_ctrl_thread_create(&ch->thread, "prdma-cm", NULL,
					     channel_thread, ch);
		if (ret != 0) {
			CM_LOG(ERR, "cannot start the channel thread (%d)", ret);
			close(ch->efd);
			rte_free(ch);
			rte_errno = ret < 0 ? -ret : ret;
			return NULL;
		}
		ch->has_thread = true;
	}
	return ch;
}

int
prdma_cm_channel_destroy(struct prdma_cm_channel *ch)
{
	if (ch == NULL)
		return cm_err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	if (ch->ids != 0 || ch->unacked != 0) {
		pthread_mutex_unlock(&cm_lock);
		return cm_err(EBUSY);
	}
	pthread_mutex_unlock(&cm_lock);
	if (ch->has_thread) {
		__atomic_store_n(&ch->stop, true, __ATOMIC_RELEASE);
		pthread_join(ch->thread, NULL);
	}
	close(ch->efd);
	rte_free(ch);
	return 0;
}

int
prdma_cm_channel_fd(struct prdma_cm_channel *ch)
{
	if (ch == NULL)
		return cm_err(EINVAL);
	return ch->efd;
}
