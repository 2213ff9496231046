/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The engines of a device (engines=): their state made at probe and freed
 * at removal, the control path's lock over all of them, and the sum of
 * their counters. Engine i owns the QP slots i mod N and port queue i;
 * the rings between engines carry frames that arrived on the wrong queue.
 */

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_pause.h>

#include "roce.h"

static uint32_t eng_gen;

void
roce_engine_lock(struct roce_dev *dev)
{
	unsigned int spins = 0;
	uint32_t i;

	/* In index order: two control calls never hold one flag each. */
	for (i = 0; i < dev->nb_eng; i++) {
		while (!roce_eng_trylock(&dev->eng[i])) {
			if (++spins % 1024 == 0)
				sched_yield();
			else
				rte_pause();
		}
	}
}

void
roce_engine_unlock(struct roce_dev *dev)
{
	uint32_t i = dev->nb_eng;

	while (i-- > 0)
		roce_eng_unlock(&dev->eng[i]);
}

static void
ring_free_drain(struct rte_ring *r)
{
	void *obj;

	if (r == NULL)
		return;
	while (rte_ring_dequeue(r, &obj) == 0)
		rte_pktmbuf_free(obj);
	rte_ring_free(r);
}

static struct rte_ring *
eng_ring(const char *what, uint32_t idx, int socket)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "roce_%s%u_%u", what, ++eng_gen, idx);
	return rte_ring_create(name, strcmp(what, "lp") == 0 ? ROCE_RING_SIZE :
			       ROCE_HANDOFF_SIZE, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
}

int
roce_eng_init(struct roce_dev *dev, int socket)
{
	struct roce_eng *e;
	uint32_t i, j;

	dev->nb_eng = dev->cfg.engines != 0 ? dev->cfg.engines : 1;
	dev->eng = rte_zmalloc_socket("roce_eng", sizeof(*dev->eng) * dev->nb_eng,
				      RTE_CACHE_LINE_SIZE, socket);
	if (dev->eng == NULL)
		return -ENOMEM;
	for (i = 0; i < dev->nb_eng; i++) {
		e = &dev->eng[i];
		e->dev = dev;
		e->idx = (uint16_t)i;
		e->queue = (uint16_t)i;
		e->timer_next = UINT64_MAX;
		e->qp_act = rte_zmalloc_socket("roce_qp_act",
					       sizeof(uint64_t) * dev->qp_act_words,
					       RTE_CACHE_LINE_SIZE, socket);
		e->qp_act_sum = rte_zmalloc_socket("roce_qp_sum",
						   sizeof(uint64_t) * dev->qp_sum_words,
						   RTE_CACHE_LINE_SIZE, socket);
		e->qp_tmr = rte_zmalloc_socket("roce_qp_tmr",
					       sizeof(uint64_t) * dev->qp_act_words,
					       RTE_CACHE_LINE_SIZE, socket);
		e->loop = eng_ring("lp", i, socket);
		if (e->qp_act == NULL || e->qp_act_sum == NULL || e->qp_tmr == NULL ||
		    e->loop == NULL)
			goto nomem;
		for (j = 0; j < dev->nb_eng && dev->nb_eng > 1; j++) {
			if (j == i)
				continue;
			e->hand_in[j] = eng_ring("ho", i * ROCE_MAX_ENGINES + j, socket);
			if (e->hand_in[j] == NULL)
				goto nomem;
		}
	}
	return 0;
nomem:
	ROCE_LOG(ERR, "%s: engines=%u: no memory for the engines", dev->pdev->name,
		 dev->nb_eng);
	return -ENOMEM;
}

void
roce_eng_fini(struct roce_dev *dev)
{
	struct roce_eng *e;
	uint32_t i, j;

	if (dev->eng == NULL)
		return;
	for (i = 0; i < dev->nb_eng; i++) {
		e = &dev->eng[i];
		ring_free_drain(e->loop);
		for (j = 0; j < ROCE_MAX_ENGINES; j++)
			ring_free_drain(e->hand_in[j]);
		for (j = 0; j < e->txq_len; j++)
			rte_pktmbuf_free(e->txq[j]);
		e->txq_len = 0;
		/* Still raw from the pool (never reset): they go back the same way. */
		if (e->tx_stash_len != 0)
			rte_mempool_put_bulk(dev->mp, (void **)e->tx_stash, e->tx_stash_len);
		e->tx_stash_len = 0;
		rte_free(e->qp_act);
		rte_free(e->qp_act_sum);
		rte_free(e->qp_tmr);
	}
	rte_free(dev->eng);
	dev->eng = NULL;
}

/* @n 64-bit counters at @src added to @dst (relaxed: each its own word). */
static void
sum64(uint64_t *dst, const uint64_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] += __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

void
roce_eng_stats(const struct roce_dev *dev, struct roce_stats *st,
	       struct prdma_roce_stats *xst)
{
	uint32_t i;

	if (st != NULL)
		memset(st, 0, sizeof(*st));
	if (xst != NULL)
		*xst = dev->xst;
	for (i = 0; i < dev->nb_eng; i++) {
		if (st != NULL)
			sum64((uint64_t *)st, (const uint64_t *)&dev->eng[i].st,
			      sizeof(*st) / sizeof(uint64_t));
		if (xst != NULL)
			sum64((uint64_t *)xst, (const uint64_t *)&dev->eng[i].xst,
			      sizeof(*xst) / sizeof(uint64_t));
	}
	if (xst != NULL)
		xst->engines = dev->nb_eng;
}
