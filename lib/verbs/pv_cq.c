/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Completion queues and completion channels. A channel's fd is an epoll
 * set holding the event fd of each prdma CQ created on it, so a program
 * can poll(2) or select(2) the channel as it does a kernel one, and
 * ibv_get_cq_event blocks in epoll_wait unless the fd is O_NONBLOCK.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#include <rte_errno.h>

#include "pv_private.h"

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *c)
{
	struct ibv_comp_channel *ch;

	if (c == NULL || pv_ctx(c)->magic != PV_MAGIC_CTX) {
		errno = EINVAL;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ch->fd = epoll_create1(EPOLL_CLOEXEC);
	if (ch->fd < 0) {
		free(ch);
		return NULL;
	}
	ch->context = c;
	return ch;
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	if (ch == NULL)
		return pv_err(EINVAL);
	if (ch->refcnt != 0)
		return pv_err(EBUSY);
	close(ch->fd);
	free(ch);
	return 0;
}

struct ibv_cq *
ibv_create_cq(struct ibv_context *c, int cqe, void *cq_context,
	      struct ibv_comp_channel *channel, int comp_vector)
{
	struct prdma_cq_init_attr ia;
	struct epoll_event ev;
	struct pv_cq *cq;

	if (c == NULL || pv_ctx(c)->magic != PV_MAGIC_CTX || cqe < 1 ||
	    comp_vector < 0 || comp_vector >= c->num_comp_vectors) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (cq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&ia, 0, sizeof(ia));
	ia.cqe = (uint32_t)cqe;
	ia.flags = channel != NULL ? PRDMA_CQ_F_EVENT_FD : 0;
	ia.cq_context = cq;
	cq->pcq = prdma_cq_create(pv_ctx(c)->dev, &ia);
	if (cq->pcq == NULL) {
		errno = rte_errno != 0 ? rte_errno : ENOMEM;
		free(cq);
		return NULL;
	}
	if (channel != NULL) {
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN;
		ev.data.ptr = cq;
		if (epoll_ctl(channel->fd, EPOLL_CTL_ADD, prdma_cq_event_fd(cq->pcq), &ev) != 0) {
			int e = errno;

			prdma_cq_destroy(cq->pcq);
			free(cq);
			errno = e;
			return NULL;
		}
		channel->refcnt++;
	}
	cq->magic = PV_MAGIC_CQ;
	cq->cq.context = c;
	cq->cq.channel = channel;
	cq->cq.cq_context = cq_context;
	cq->cq.cqe = (int)cq->pcq->cqe;
	pthread_mutex_init(&cq->cq.mutex, NULL);
	pthread_cond_init(&cq->cq.cond, NULL);
	return &cq->cq;
}

int
ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct pv_cq *cq = container_of(ibcq, struct pv_cq, cq);
	int ret;

	if (ibcq == NULL || cq->magic != PV_MAGIC_CQ || cqe < 1)
		return EINVAL;
	ret = prdma_cq_resize(cq->pcq, (uint32_t)cqe);
	if (ret < 0)
		return ret == -ENOTSUP ? EOPNOTSUPP : -ret;
	ibcq->cqe = (int)cq->pcq->cqe;
	return 0;
}

int
ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct pv_cq *cq = container_of(ibcq, struct pv_cq, cq);
	struct ibv_comp_channel *ch;
	int fd = -1, ret;

	if (ibcq == NULL || cq->magic != PV_MAGIC_CQ)
		return EINVAL;
	ch = ibcq->channel;
	if (ch != NULL)
		fd = prdma_cq_event_fd(cq->pcq);
	ret = prdma_cq_destroy(cq->pcq);
	if (ret < 0)
		return -ret;
	if (ch != NULL) {
		if (fd >= 0)
			epoll_ctl(ch->fd, EPOLL_CTL_DEL, fd, NULL);
		ch->refcnt--;
	}
	cq->magic = 0;
	pthread_cond_destroy(&ibcq->cond);
	pthread_mutex_destroy(&ibcq->mutex);
	free(cq);
	return 0;
}

int
pv_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct pv_cq *cq = container_of(ibcq, struct pv_cq, cq);
	int ret;

	ret = prdma_cq_arm(cq->pcq, solicited_only ? PRDMA_CQ_ARM_SOLICITED : PRDMA_CQ_ARM_NEXT);
	return ret < 0 ? -ret : 0;
}

int
ibv_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq_out, void **cq_context)
{
	struct epoll_event ev;
	struct pv_cq *cq;
	int nonblock, n;

	if (ch == NULL || cq_out == NULL || cq_context == NULL)
		return pv_err(EINVAL), -1;
	nonblock = (fcntl(ch->fd, F_GETFL) & O_NONBLOCK) != 0;
	for (;;) {
		n = epoll_wait(ch->fd, &ev, 1, nonblock ? 0 : -1);
		if (n < 0) {
			if (errno == EINTR && !nonblock)
				continue;
			return -1;
		}
		if (n == 0)
			return pv_err(EAGAIN), -1;
		cq = ev.data.ptr;
		/* A wake-up with nothing to consume (another thread took it). */
		if (prdma_cq_get_event(cq->pcq) <= 0) {
			if (nonblock)
				return pv_err(EAGAIN), -1;
			continue;
		}
		*cq_out = &cq->cq;
		*cq_context = cq->cq.cq_context;
		return 0;
	}
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	if (cq == NULL)
		return;
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}
