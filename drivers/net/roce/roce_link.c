/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Ring mode: two devices joined by two rte_rings per engine (engines=),
 * each side an ethdev made with rte_eth_from_rings, a queue per engine.
 * The first device probed with a name builds the link (rings, both ports,
 * and the mbuf pool both sides allocate from, so that frames still sitting
 * in a ring never outlive their pool); the second joins it; the last one
 * to leave tears it down.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "roce.h"

#define ROCE_MAX_LINKS 16

static struct roce_link *links[ROCE_MAX_LINKS];
static pthread_mutex_t links_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t link_gen;

static void
ring_drain(struct rte_ring *r)
{
	void *obj;

	while (rte_ring_dequeue(r, &obj) == 0)
		rte_pktmbuf_free(obj);
}

static void
link_free(struct roce_link *l)
{
	int i, q;

	for (i = 0; i < 2; i++) {
		if (l->port[i] != RTE_MAX_ETHPORTS) {
			rte_eth_dev_stop(l->port[i]);
			rte_eth_dev_close(l->port[i]);
		}
	}
	for (i = 0; i < 2; i++) {
		for (q = 0; q < ROCE_MAX_ENGINES; q++) {
			if (l->ring[i][q] != NULL) {
				ring_drain(l->ring[i][q]);
				rte_ring_free(l->ring[i][q]);
			}
		}
	}
	rte_mempool_free(l->mp);
	rte_free(l);
}

/*
 * @nq ring pairs: side i's rx queue q is ring[i][q], the other side's tx
 * queue q. Both sides have the same number of queues (engines= of the side
 * that built the link; the other must ask for as many).
 */
static struct roce_link *
link_create(const char *name, int socket, uint32_t nq)
{
	struct roce_link *l;
	char buf[RTE_RING_NAMESIZE];
	uint32_t gen = ++link_gen, q;
	int i, ret;

	l = rte_zmalloc_socket("roce_link", sizeof(*l), RTE_CACHE_LINE_SIZE, socket);
	if (l == NULL)
		return NULL;
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->nb_q = nq;
	l->port[0] = l->port[1] = RTE_MAX_ETHPORTS;
	snprintf(buf, sizeof(buf), "roce_mp_%u", gen);
	l->mp = rte_pktmbuf_pool_create(buf, ROCE_NB_MBUF, 256, 0,
					ROCE_MBUF_DATAROOM, socket);
	if (l->mp == NULL) {
		ROCE_LOG(ERR, "ring %s: no mbuf pool: %s", name, rte_strerror(rte_errno));
		goto err;
	}
	for (i = 0; i < 2; i++) {
		for (q = 0; q < nq; q++) {
			snprintf(buf, sizeof(buf), "roce_r%u_%d_%u", gen, i, q);
			l->ring[i][q] = rte_ring_create(buf, ROCE_RING_SIZE, socket,
							RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (l->ring[i][q] == NULL) {
				ROCE_LOG(ERR, "ring %s: cannot create a ring: %s", name,
					 rte_strerror(rte_errno));
				goto err;
			}
		}
		/* Locally administered, per link and side. */
		l->mac[i].addr_bytes[0] = 0x02;
		l->mac[i].addr_bytes[1] = 0x52;
		l->mac[i].addr_bytes[2] = 0x4f;
		l->mac[i].addr_bytes[3] = (uint8_t)(gen >> 8);
		l->mac[i].addr_bytes[4] = (uint8_t)gen;
		l->mac[i].addr_bytes[5] = (uint8_t)(i + 1);
	}
	for (i = 0; i < 2; i++) {
		snprintf(buf, sizeof(buf), "net_roce_%u_%d", gen, i);
		ret = rte_eth_from_rings(buf, l->ring[i], nq, l->ring[1 - i], nq,
					 (unsigned int)(socket < 0 ? 0 : socket));
		if (ret < 0) {
			ROCE_LOG(ERR, "ring %s: rte_eth_from_rings: %s", name,
				 rte_strerror(rte_errno));
			goto err;
		}
		l->port[i] = (uint16_t)ret;
	}
	return l;
err:
	link_free(l);
	return NULL;
}

int
roce_link_attach(struct roce_dev *dev, const char *name, int side)
{
	struct roce_link *l = NULL;
	int i, free_slot = -1;

	pthread_mutex_lock(&links_lock);
	for (i = 0; i < ROCE_MAX_LINKS; i++) {
		if (links[i] != NULL && strcmp(links[i]->name, name) == 0)
			l = links[i];
		else if (links[i] == NULL && free_slot < 0)
			free_slot = i;
	}
	if (l == NULL) {
		if (free_slot < 0) {
			pthread_mutex_unlock(&links_lock);
			ROCE_LOG(ERR, "ring=%s: too many ring links (%d)", name,
				 ROCE_MAX_LINKS);
			return -ENOSPC;
		}
		l = link_create(name, dev->pdev->socket_id, dev->nb_eng);
		if (l == NULL) {
			pthread_mutex_unlock(&links_lock);
			return -ENOMEM;
		}
		links[free_slot] = l;
	}
	if (l->nb_q != dev->nb_eng) {
		pthread_mutex_unlock(&links_lock);
		ROCE_LOG(ERR, "ring=%s,side=%d: engines=%u, but the link has %u queues "
			 "(the other side's engines=)", name, side, dev->nb_eng, l->nb_q);
		return -EINVAL;
	}
	if (l->dev[side] != NULL) {
		pthread_mutex_unlock(&links_lock);
		ROCE_LOG(ERR, "ring=%s,side=%d: that side is already probed", name, side);
		return -EEXIST;
	}
	l->dev[side] = dev;
	l->refs++;
	dev->link = l;
	dev->side = side;
	dev->port_id = l->port[side];
	dev->mp = l->mp;
	dev->mac = l->mac[side];
	pthread_mutex_unlock(&links_lock);
	return 0;
}

void
roce_link_detach(struct roce_dev *dev)
{
	struct roce_link *l = dev->link;
	int i;

	if (l == NULL)
		return;
	pthread_mutex_lock(&links_lock);
	/* The peer may be stepping us from its own engine: hold our flag. */
	__atomic_store_n(&l->dev[dev->side], NULL, __ATOMIC_RELEASE);
	/* Wait until no engine step of the peer still holds our pointer. */
	for (i = 0; i < ROCE_MAX_ENGINES; i++)
		while (__atomic_load_n(&l->q[i].stepping, __ATOMIC_ACQUIRE) != 0)
			rte_pause();
	dev->link = NULL;
	if (--l->refs == 0) {
		for (i = 0; i < ROCE_MAX_LINKS; i++)
			if (links[i] == l)
				links[i] = NULL;
		link_free(l);
	}
	pthread_mutex_unlock(&links_lock);
}

/* Engine q of one side steps engine q of the other: the pair of a QP
 * placed alike on both sides. */
int
roce_link_step_peer(struct roce_eng *e, uint64_t now)
{
	struct roce_dev *dev = e->dev;
	struct roce_link *l = dev->link;
	struct roce_dev *peer;
	struct roce_eng *pe;
	int n = 0;

	if (l == NULL)
		return 0;
	/* Leave a peer alone that its own lcore keeps stepping: sharing it
	 * would bounce its cache lines between cores for nothing. */
	/* Signed: the peer's stamp may be newer than our (idle) step's time. */
	if ((int64_t)(now - __atomic_load_n(&l->q[e->idx].last_step[1 - dev->side],
					    __ATOMIC_RELAXED)) <
	    (int64_t)(dev->tsc_hz / ROCE_PEER_IDLE_DIV))
		return 0;
	/* Pin the peer: its removal waits for stepping to drop to zero. */
	__atomic_fetch_add(&l->q[e->idx].stepping, 1, __ATOMIC_ACQ_REL);
	peer = __atomic_load_n(&l->dev[1 - dev->side], __ATOMIC_ACQUIRE);
	if (peer != NULL && !peer->cfg.progress_thread) {
		pe = &peer->eng[e->idx];
		if (roce_eng_trylock(pe)) {
			n = roce_eng_step(pe);
			roce_eng_unlock(pe);
			roce_eng_stamp(pe, now);
		}
		/* and the peer's engines nobody steps (frames handed to them) */
		if (unlikely(peer->nb_eng > 1))
			n += roce_eng_step_idle(pe, now);
	}
	__atomic_fetch_sub(&l->q[e->idx].stepping, 1, __ATOMIC_RELEASE);
	return n;
}

void
roce_link_stepped(struct roce_eng *e, uint64_t now)
{
	struct roce_dev *dev = e->dev;
	uint64_t *ts = &dev->link->q[e->idx].last_step[dev->side];

	/* Write rarely: every write costs the peer a cache miss. */
	if ((int64_t)(now - __atomic_load_n(ts, __ATOMIC_RELAXED)) >
	    (int64_t)(dev->tsc_hz / (4 * ROCE_PEER_IDLE_DIV)))
		__atomic_store_n(ts, now, __ATOMIC_RELAXED);
}

/*
 * Frames this side sent to a peer that has left wait in a ring nobody reads
 * until the link goes: drop them, so that their zero-copy references come
 * back (a QP destroy or MR dereg waits for them).
 */
void
roce_link_drain_orphan(struct roce_dev *dev)
{
	struct roce_link *l = dev->link;
	uint32_t q;

	if (l == NULL)
		return;
	pthread_mutex_lock(&links_lock);
	/* Our tx rings are the peer's rx rings: their only reader is absent. */
	if (__atomic_load_n(&l->dev[1 - dev->side], __ATOMIC_ACQUIRE) == NULL)
		for (q = 0; q < l->nb_q; q++)
			ring_drain(l->ring[1 - dev->side][q]);
	pthread_mutex_unlock(&links_lock);
}
