/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Completion queues: a single-producer (the engine) single-consumer (the
 * polling lcore) ring. A full ring is an overrun: the CQ raises CQ_ERR and
 * stops accepting, it never overwrites.
 */

#include <errno.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_malloc.h>

#include "roce.h"

static uint32_t
pow2_ge(uint32_t n)
{
	return rte_align32pow2(n < 1 ? 1 : n);
}

static void
cq_fire(struct roce_cq *cq, const struct prdma_wc *wc)
{
	uint32_t arm;
	int fire = 0;

	/* Only a CQ with a notification fd can be armed to any effect: the
	 * others skip the barrier below and the read of the arm. */
	if (cq->base.event_fd < 0)
		return;
	/* full barrier: the head store must be visible before the arm is read
	 * (pairs with roce_cq_arm), or an arm + poll racing with this entry
	 * sees neither and the waiter sleeps forever (store-buffer order) */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	arm = __atomic_load_n(&cq->arm, __ATOMIC_ACQUIRE);
	switch (arm) {
	case ROCE_ARM_NEXT:
		fire = 1;
		break;
	case ROCE_ARM_SOLICITED:
		fire = (wc->wc_flags & PRDMA_WC_SOLICITED) ||
			wc->status != PRDMA_WC_SUCCESS;
		break;
	case ROCE_ARM_N:
		fire = --cq->arm_n == 0;
		break;
	default:
		return;
	}
	if (fire) {
		__atomic_store_n(&cq->arm, ROCE_ARM_NONE, __ATOMIC_RELEASE);
		prdma_cq_notify(&cq->base);
	}
}

struct prdma_wc *
roce_cq_stage(struct roce_cq *cq)
{
	uint32_t tail;

	if (unlikely(cq->overrun))
		return NULL;
	/* acquire: the consumer is done with the slot before we reuse it */
	tail = __atomic_load_n(&cq->tail, __ATOMIC_ACQUIRE);
	if (unlikely(cq->head + cq->staged - tail > cq->mask)) {
		struct prdma_async_event ev;

		cq->overrun = 1;
		roce_cq_eng(cq)->st.drop.cq_overrun++;
		memset(&ev, 0, sizeof(ev));
		ev.type = PRDMA_EVENT_CQ_ERR;
		ev.element.cq = &cq->base;
		prdma_dev_raise_event(cq->base.dev, &ev);
		return NULL;
	}
	return &cq->ring[(cq->head + cq->staged++) & cq->mask];
}

void
roce_cq_commit(struct roce_cq *cq)
{
	uint32_t head = cq->head, n = cq->staged, i;

	if (n == 0)
		return;
	cq->staged = 0;
	/* release, once for the run: every staged entry is written before
	 * the consumer sees any of them */
	__atomic_store_n(&cq->head, head + n, __ATOMIC_RELEASE);
	/* the producer does not rewrite a slot it published: read them back */
	if (unlikely(cq->base.event_fd >= 0))
		for (i = 0; i < n; i++)
			cq_fire(cq, &cq->ring[(head + i) & cq->mask]);
}

void
roce_cq_commit_rx(struct roce_eng *e, struct roce_cq *cq)
{
	uint32_t i;

	if (!e->rx_batch) {
		roce_cq_commit(cq);
		return;
	}
	/* One CQ for a burst's receives is the rule, a few the exception. */
	for (i = 0; i < e->nb_rx_cqs; i++)
		if (e->rx_cqs[i] == cq)
			return;
	if (unlikely(i == ROCE_RX_CQS)) {
		roce_cq_commit(cq);
		return;
	}
	e->rx_cqs[e->nb_rx_cqs++] = cq;
}

void
roce_eng_rx_publish(struct roce_eng *e)
{
	uint32_t i;

	/* a CQ also fed by send completions may be published already: then
	 * it has nothing staged and its commit does nothing */
	for (i = 0; i < e->nb_rx_cqs; i++)
		roce_cq_commit(e->rx_cqs[i]);
	e->nb_rx_cqs = 0;
}

void
roce_cq_push(struct roce_cq *cq, const struct prdma_wc *wc)
{
	struct prdma_wc *slot = roce_cq_stage(cq);

	if (slot == NULL)
		return;
	*slot = *wc;
	roce_cq_commit(cq);
}

int
roce_cq_create(struct prdma_cq *pcq, const struct prdma_cq_init_attr *attr)
{
	struct roce_cq *cq = (struct roce_cq *)pcq;
	struct roce_dev *dev = roce_dev_of(pcq->dev);
	uint32_t n = pow2_ge(attr->cqe);

	if (dev->nb_cq >= ROCE_MAX_CQ)
		return -ENOSPC;
	cq->ring = rte_zmalloc_socket("roce_cq", sizeof(struct prdma_wc) * n,
				      RTE_CACHE_LINE_SIZE, pcq->dev->socket_id);
	if (cq->ring == NULL)
		return -ENOMEM;
	cq->rdev = dev;
	/* one engine: bound to it from the start; else by its first QP */
	cq->eng = dev->nb_eng == 1 ? 0 : -1;
	cq->mask = n - 1;
	cq->base.cqe = n;
	dev->nb_cq++;
	return 0;
}

int
roce_cq_destroy(struct prdma_cq *pcq)
{
	struct roce_cq *cq = (struct roce_cq *)pcq;

	cq->rdev->nb_cq--;
	rte_free(cq->ring);
	return 0;
}

int
roce_cq_resize(struct prdma_cq *pcq, uint32_t cqe)
{
	struct roce_cq *cq = (struct roce_cq *)pcq;
	struct roce_dev *dev = cq->rdev;
	uint32_t n = pow2_ge(cqe), queued, i;
	struct prdma_wc *ring;

	ring = rte_zmalloc_socket("roce_cq", sizeof(struct prdma_wc) * n,
				  RTE_CACHE_LINE_SIZE, pcq->dev->socket_id);
	if (ring == NULL)
		return -ENOMEM;
	roce_engine_lock(dev);
	queued = cq->head - cq->tail;
	if (queued > n) {
		roce_engine_unlock(dev);
		rte_free(ring);
		return -EINVAL;
	}
	for (i = 0; i < queued; i++)
		ring[i] = cq->ring[(cq->tail + i) & cq->mask];
	rte_free(cq->ring);
	cq->ring = ring;
	cq->mask = n - 1;
	cq->tail = 0;
	cq->head = queued;
	cq->base.cqe = n;
	roce_engine_unlock(dev);
	return 0;
}

int
roce_cq_arm(struct prdma_cq *pcq, enum prdma_cq_arm_flags flags, uint32_t n)
{
	struct roce_cq *cq = (struct roce_cq *)pcq;

	if (n != 0) {
		cq->arm_n = n;
		__atomic_store_n(&cq->arm, ROCE_ARM_N, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&cq->arm, flags == PRDMA_CQ_ARM_SOLICITED ?
				 ROCE_ARM_SOLICITED : ROCE_ARM_NEXT, __ATOMIC_RELEASE);
	}
	/* full barrier: the arm is visible before the caller's next poll reads
	 * the head (pairs with cq_fire) */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}

int
roce_poll_cq(struct prdma_cq *pcq, uint16_t nb, struct prdma_wc *wc)
{
	struct roce_cq *cq = (struct roce_cq *)pcq;
	uint32_t head, tail = cq->tail, n, i;
	struct roce_eng *e = roce_cq_eng(cq);

	if (roce_eng_polls(e))
		roce_eng_poll(e);
	/* acquire: entries up to head are fully written */
	head = __atomic_load_n(&cq->head, __ATOMIC_ACQUIRE);
	n = RTE_MIN(head - tail, (uint32_t)nb);
	for (i = 0; i < n; i++)
		wc[i] = cq->ring[(tail + i) & cq->mask];
	/* release: our reads of the slots finish before the producer reuses them */
	__atomic_store_n(&cq->tail, tail + n, __ATOMIC_RELEASE);
	return (int)n;
}

int
roce_peek_cq(struct prdma_cq *pcq)
{
	struct roce_cq *cq = (struct roce_cq *)pcq;
	struct roce_eng *e = roce_cq_eng(cq);

	if (roce_eng_polls(e))
		roce_eng_poll(e);
	/* acquire: pairs with the producer's release of head */
	return (int)(__atomic_load_n(&cq->head, __ATOMIC_ACQUIRE) - cq->tail);
}
