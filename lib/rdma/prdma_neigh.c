/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The providers' neighbour cache (prdma_neigh.h says the policy). Control
 * path only: linear scans of small tables under a spinlock that is never
 * held across a provider callback.
 */

#include <errno.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>

#include "prdma_neigh.h"

/* The monotonic clock, not the TSC: usable before (and without) the EAL. */
uint64_t
prdma_neigh_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int
ip_eq(const uint8_t *a, int a6, const uint8_t *b, int b6)
{
	return a6 == b6 && memcmp(a, b, b6 ? 16 : 4) == 0;
}

static int
expired(const struct prdma_neigh_entry *e, uint64_t now)
{
	return !e->is_static && now - e->confirmed_ms >= PRDMA_NEIGH_TTL_MS;
}

static struct prdma_neigh_entry *
ent_find(struct prdma_neigh_cache *c, const uint8_t *ip, int ipv6)
{
	uint32_t i;

	for (i = 0; i < c->nb_ent; i++)
		if (c->ent[i].valid && ip_eq(c->ent[i].ip, c->ent[i].ipv6, ip, ipv6))
			return &c->ent[i];
	return NULL;
}

/* A slot for a new entry, or NULL when every slot is held (or static). */
static struct prdma_neigh_entry *
ent_victim(struct prdma_neigh_cache *c, uint64_t now)
{
	struct prdma_neigh_entry *e, *lru = NULL;
	uint64_t last, oldest = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < c->nb_ent; i++) {
		e = &c->ent[i];
		if (!e->valid || expired(e, now))
			return e;
	}
	/* else the least recently used slot nobody holds */
	for (i = 0; i < c->nb_ent; i++) {
		e = &c->ent[i];
		last = RTE_MAX(e->used_ms, e->confirmed_ms);
		if (!e->is_static && now - last >= PRDMA_NEIGH_HOLD_MS && last < oldest) {
			oldest = last;
			lru = e;
		}
	}
	if (lru != NULL)
		c->st.evicted++;
	return lru;
}

/* Learn or refresh @ip; 0 when every slot is held. */
static int
ent_learn(struct prdma_neigh_cache *c, const uint8_t *ip, int ipv6,
	  const struct rte_ether_addr *mac, uint64_t now)
{
	struct prdma_neigh_entry *e = ent_find(c, ip, ipv6);

	if (e == NULL) {
		e = ent_victim(c, now);
		if (e == NULL) {
			c->st.full++;
			return 0;
		}
		memset(e, 0, sizeof(*e));
		memcpy(e->ip, ip, ipv6 ? 16 : 4);
		e->ipv6 = (uint8_t)ipv6;
		e->valid = 1;
		e->used_ms = now;
	}
	e->mac = *mac;
	e->confirmed_ms = now;
	c->st.learned++;
	return 1;
}

/* The resolution of @ip in flight; one abandoned for REQ_TTL_MS is freed. */
static struct prdma_neigh_req *
req_find(struct prdma_neigh_cache *c, const uint8_t *ip, int ipv6, uint64_t now)
{
	struct prdma_neigh_req *r;
	uint32_t i;

	for (i = 0; i < c->nb_req; i++) {
		r = &c->req[i];
		if (!r->valid || !ip_eq(r->ip, r->ipv6, ip, ipv6))
			continue;
		if (now - r->started_ms >= PRDMA_NEIGH_REQ_TTL_MS) {
			r->valid = 0;
			return NULL;
		}
		return r;
	}
	return NULL;
}

/* The resolution of @ip, new if needed (the oldest is recycled when all
 * are in use: its owner asks again on its next step). */
static struct prdma_neigh_req *
req_get(struct prdma_neigh_cache *c, const uint8_t *ip, int ipv6, uint64_t now)
{
	struct prdma_neigh_req *r = req_find(c, ip, ipv6, now), *old = NULL;
	uint32_t i;

	if (r != NULL)
		return r;
	for (i = 0; i < c->nb_req; i++) {
		r = &c->req[i];
		if (!r->valid || now - r->started_ms >= PRDMA_NEIGH_REQ_TTL_MS)
			break;
		if (old == NULL || r->started_ms < old->started_ms)
			old = r;
	}
	if (i == c->nb_req)
		r = old;
	memset(r, 0, sizeof(*r));
	memcpy(r->ip, ip, ipv6 ? 16 : 4);
	r->ipv6 = (uint8_t)ipv6;
	r->started_ms = now;
	r->valid = 1;
	return r;
}

int
prdma_neigh_init(struct prdma_neigh_cache *c, struct prdma_neigh_entry *ent,
		 uint32_t nb_ent, struct prdma_neigh_req *req, uint32_t nb_req,
		 const struct prdma_neigh_ops *ops, void *ctx, uint32_t lookup_ms)
{
	static const struct prdma_neigh_ops none;

	if (c == NULL || ent == NULL || nb_ent == 0 || req == NULL || nb_req == 0)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	memset(ent, 0, sizeof(*ent) * nb_ent);
	memset(req, 0, sizeof(*req) * nb_req);
	rte_spinlock_init(&c->lock);
	c->ent = ent;
	c->nb_ent = nb_ent;
	c->req = req;
	c->nb_req = nb_req;
	c->ops = ops != NULL ? ops : &none;
	c->ctx = ctx;
	c->lookup_ms = lookup_ms;
	return 0;
}

int
prdma_neigh_add_static(struct prdma_neigh_cache *c, const uint8_t *ip, int ipv6,
		       const struct rte_ether_addr *mac)
{
	struct prdma_neigh_entry *e;
	uint32_t i;
	int ret = -ENOSPC;

	if (!rte_is_unicast_ether_addr(mac) || rte_is_zero_ether_addr(mac))
		return -EINVAL;
	rte_spinlock_lock(&c->lock);
	e = ent_find(c, ip, ipv6);
	for (i = 0; e == NULL && i < c->nb_ent; i++)
		if (!c->ent[i].is_static)
			e = &c->ent[i];
	if (e != NULL) {
		memset(e, 0, sizeof(*e));
		memcpy(e->ip, ip, ipv6 ? 16 : 4);
		e->ipv6 = (uint8_t)ipv6;
		e->is_static = 1;
		e->valid = 1;
		e->mac = *mac;
		e->confirmed_ms = prdma_neigh_now_ms();
		ret = 0;
	}
	rte_spinlock_unlock(&c->lock);
	return ret;
}

int
prdma_neigh_lookup(struct prdma_neigh_cache *c, const uint8_t *ip, int ipv6,
		   struct rte_ether_addr *mac)
{
	struct prdma_neigh_entry *e;
	int ret = -ENOENT;

	rte_spinlock_lock(&c->lock);
	e = ent_find(c, ip, ipv6);
	if (e != NULL && !expired(e, prdma_neigh_now_ms())) {
		*mac = e->mac;
		ret = 0;
	}
	rte_spinlock_unlock(&c->lock);
	return ret;
}

int
prdma_neigh_resolve(struct prdma_neigh_cache *c, const uint8_t *ip, int ipv6,
		    struct rte_ether_addr *mac)
{
	struct prdma_neigh_entry *e;
	struct prdma_neigh_req *r;
	uint64_t now = prdma_neigh_now_ms();
	int ret, lookup = 0, probe = 0;

	rte_spinlock_lock(&c->lock);
	e = ent_find(c, ip, ipv6);
	if (e != NULL && !expired(e, now)) {
		e->used_ms = now;
		*mac = e->mac;
		c->st.hits++;
		rte_spinlock_unlock(&c->lock);
		return 0;
	}
	c->st.misses++;
	if (c->ops->solicit == NULL && c->ops->lookup == NULL) {
		rte_spinlock_unlock(&c->lock);
		return -EHOSTUNREACH;
	}
	r = req_get(c, ip, ipv6, now);
	if (r->answered) {
		/* answered while every slot was held: this caller takes it */
		*mac = r->mac;
		r->valid = 0;
		rte_spinlock_unlock(&c->lock);
		return 0;
	}
	if (c->ops->lookup != NULL && now >= r->next_lookup_ms) {
		r->next_lookup_ms = now + c->lookup_ms;
		lookup = 1;
	}
	if (c->ops->solicit != NULL && now >= r->next_probe_ms) {
		r->next_probe_ms = now + PRDMA_NEIGH_RETRY_MS;
		probe = 1;
	}
	rte_spinlock_unlock(&c->lock);

	if (lookup && c->ops->lookup(c->ctx, ip, ipv6, mac) > 0) {
		rte_spinlock_lock(&c->lock);
		c->st.external++;
		r = req_find(c, ip, ipv6, now);
		if (r != NULL)
			r->valid = 0;
		rte_spinlock_unlock(&c->lock);
		return 0;
	}
	if (!probe)
		return -EAGAIN;
	ret = c->ops->solicit(c->ctx, ip, ipv6);
	rte_spinlock_lock(&c->lock);
	r = req_find(c, ip, ipv6, now);
	if (ret == 0) {
		c->st.solicits++;
	} else if (r != NULL) {
		if (ret == -EHOSTUNREACH)
			r->valid = 0;
		else
			r->next_probe_ms = 0;   /* not sent: again at the next step */
	}
	rte_spinlock_unlock(&c->lock);
	return ret == -EHOSTUNREACH ? ret : -EAGAIN;
}

int
prdma_neigh_input(struct prdma_neigh_cache *c, const uint8_t *ip, int ipv6,
		  const struct rte_ether_addr *mac, int request)
{
	struct prdma_neigh_entry *e;
	struct prdma_neigh_req *r;
	uint64_t now = prdma_neigh_now_ms();
	int learnt = 0;

	if (!rte_is_unicast_ether_addr(mac) || rte_is_zero_ether_addr(mac))
		return 0;
	rte_spinlock_lock(&c->lock);
	r = req_find(c, ip, ipv6, now);
	e = ent_find(c, ip, ipv6);
	if (e != NULL && e->is_static) {
		/* configured: the wire does not override it */
	} else if (r != NULL && !r->answered) {
		/* The first answer to our own request (or the peer asking for
		 * us while we ask for it). Cached, the request is done; when
		 * every slot is held it waits for its resolution to take it. */
		if (ent_learn(c, ip, ipv6, mac, now)) {
			r->valid = 0;
		} else {
			r->mac = *mac;
			r->answered = 1;
		}
		learnt = 1;
	} else if (request && e != NULL) {
		learnt = ent_learn(c, ip, ipv6, mac, now);   /* a known peer refreshes */
	}
	if (!learnt)
		c->st.ignored++;
	rte_spinlock_unlock(&c->lock);
	return learnt;
}

void
prdma_neigh_stats_get(struct prdma_neigh_cache *c, struct prdma_neigh_stats *st)
{
	rte_spinlock_lock(&c->lock);
	*st = c->st;
	rte_spinlock_unlock(&c->lock);
}
