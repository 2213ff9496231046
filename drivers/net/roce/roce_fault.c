/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Fault injection: drop, duplicate, reorder, corrupt, delay and CE-mark
 * frames on their way out of or into the device, each with its own rate
 * and repeatable generator. Only reached when a fault is set, so the
 * engine pays one predictable branch per frame otherwise.
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>

#include "roce.h"

#define PPM 1000000u
/* A frame held back to be overtaken goes out anyway after this long. */
#define REORDER_HOLD_US 20

/* splitmix64: small, fast, and good enough to decide fault hits. */
static uint64_t
rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int
hit(struct roce_fault_dir *fd, unsigned int kind)
{
	if (fd->rate[kind] == 0)
		return 0;
	if (rng_next(&fd->rng[kind]) % PPM >= fd->rate[kind])
		return 0;
	fd->hits[kind]++;
	return 1;
}

static void
update_on(struct roce_fault_dir *fd)
{
	unsigned int k;
	uint8_t on = fd->reorder != NULL || fd->dq_head != fd->dq_tail;

	for (k = 0; k < PRDMA_ROCE_FAULT_KIND_NB; k++)
		if (fd->rate[k] != 0)
			on = 1;
	fd->on = on;
}

void
roce_fault_config(struct roce_dev *dev, unsigned int dir, unsigned int kind,
		  uint32_t rate_ppm, uint64_t seed)
{
	struct roce_fault_dir *fd;
	uint32_t i;

	for (i = 0; i < dev->nb_eng; i++) {
		fd = &dev->eng[i].fault[dir];
		fd->rate[kind] = RTE_MIN(rate_ppm, PPM);
		/* Each kind its own stream, so one rate does not shift another's
		 * hits; each engine its own (engine 0: the seed's own). */
		fd->rng[kind] = (seed + i * 0x9e3779b97f4a7c15ull) ^
			(0x632be59bd9b4e019ull * (kind + 1 + dir * 8));
		if (fd->delay_tsc == 0)
			fd->delay_tsc = dev->tsc_hz / 10000; /* 100 us */
		update_on(fd);
	}
}

void
roce_fault_delay_config(struct roce_dev *dev, unsigned int dir, uint32_t us)
{
	uint32_t i;

	for (i = 0; i < dev->nb_eng; i++)
		dev->eng[i].fault[dir].delay_tsc = (uint64_t)us * dev->tsc_hz / 1000000;
}

/* Offset of the first byte after the BTH, or 0 if the frame is not RoCE. */
static uint32_t
after_bth(const uint8_t *p, uint32_t len, uint32_t *l3_off, uint16_t *etype)
{
	uint32_t off = ROCE_ETH_LEN;

	if (len < ROCE_ETH_LEN)
		return 0;
	*etype = roce_get16(p + 12);
	*l3_off = off;
	switch (*etype) {
	case RTE_ETHER_TYPE_IPV4:
		off += ROCE_IPV4_LEN + ROCE_UDP_LEN;
		break;
	case RTE_ETHER_TYPE_IPV6:
		off += ROCE_IPV6_LEN + ROCE_UDP_LEN;
		break;
	case ROCE_ETHERTYPE_V1:
		off += ROCE_GRH_LEN;
		break;
	default:
		return 0;
	}
	off += ROCE_BTH_LEN;
	return off < len ? off : 0;
}

/*
 * Flip one bit past the BTH: the ICRC must catch it, and the headers a
 * capture decodes stay well formed.
 */
static void
corrupt(struct roce_fault_dir *fd, struct rte_mbuf *m)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = m->data_len, start, l3;
	uint16_t et;
	uint64_t r;

	start = after_bth(p, len, &l3, &et);
	if (start == 0)
		start = len > ROCE_ETH_LEN ? ROCE_ETH_LEN : 0;
	if (start >= len)
		return;
	r = rng_next(&fd->rng[PRDMA_ROCE_FAULT_CORRUPT]);
	p[start + (uint32_t)(r % (len - start))] ^= (uint8_t)(1u << ((r >> 32) & 7));
}

/* Mark CE as a congested switch would (the ICRC does not cover ECN). */
static void
mark_ce(struct rte_mbuf *m)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t l3, len = m->data_len;
	uint16_t et;

	if (after_bth(p, len, &l3, &et) == 0)
		return;
	if (et == RTE_ETHER_TYPE_IPV4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + l3);

		p[l3 + 1] |= ROCE_ECN_CE;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		/* IPv6 and the GRH: traffic class straddles bytes 0 and 1. */
		p[l3 + 1] |= ROCE_ECN_CE << 4;
	}
}

unsigned int
roce_fault_frame(struct roce_eng *e, unsigned int dir, struct rte_mbuf *m,
		 struct rte_mbuf *out[2], uint64_t now)
{
	struct roce_fault_dir *fd = &e->fault[dir];
	struct rte_mbuf *dup = NULL, *held;
	unsigned int n = 0;

	if (hit(fd, PRDMA_ROCE_FAULT_DROP)) {
		rte_pktmbuf_free(m);
		return 0;
	}
	if (hit(fd, PRDMA_ROCE_FAULT_CORRUPT))
		corrupt(fd, m);
	if (hit(fd, PRDMA_ROCE_FAULT_CE))
		mark_ce(m);
	if (hit(fd, PRDMA_ROCE_FAULT_DUP))
		dup = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
	if (hit(fd, PRDMA_ROCE_FAULT_DELAY) &&
	    fd->dq_head - fd->dq_tail < ROCE_FAULT_HOLD) {
		struct roce_fault_held *h = &fd->delayq[fd->dq_head++ % ROCE_FAULT_HOLD];

		h->m = m;
		h->due = now + fd->delay_tsc;
		m = dup;
		dup = NULL;
		fd->on = 1;
		if (m == NULL)
			return 0;
	}
	if (fd->reorder == NULL && hit(fd, PRDMA_ROCE_FAULT_REORDER)) {
		/* Hold it: the next frame overtakes it. */
		fd->reorder = m;
		fd->reorder_due = now + e->dev->tsc_hz / 1000000 * REORDER_HOLD_US;
		fd->on = 1;
		m = dup;
		dup = NULL;
		if (m == NULL)
			return 0;
	}
	out[n++] = m;
	if (dup != NULL)
		out[n++] = dup;
	held = fd->reorder;
	if (held != NULL && n < 2 && held != m) {
		fd->reorder = NULL;
		out[n++] = held;
		update_on(fd);
	}
	return n;
}

unsigned int
roce_fault_release(struct roce_eng *e, unsigned int dir, uint64_t now,
		   struct rte_mbuf **out, unsigned int cap)
{
	struct roce_fault_dir *fd = &e->fault[dir];
	unsigned int n = 0;

	while (n < cap && fd->dq_tail != fd->dq_head) {
		struct roce_fault_held *h = &fd->delayq[fd->dq_tail % ROCE_FAULT_HOLD];

		if (now != UINT64_MAX && now < h->due)
			break;
		out[n++] = h->m;
		h->m = NULL;
		fd->dq_tail++;
	}
	if (n < cap && fd->reorder != NULL &&
	    (now == UINT64_MAX || now >= fd->reorder_due)) {
		out[n++] = fd->reorder;
		fd->reorder = NULL;
	}
	update_on(fd);
	return n;
}

void
roce_fault_fini(struct roce_dev *dev)
{
	struct rte_mbuf *m[ROCE_FAULT_HOLD + 1];
	unsigned int d, n, i, j;

	for (j = 0; dev->eng != NULL && j < dev->nb_eng; j++) {
		for (d = 0; d < PRDMA_ROCE_FAULT_DIR_NB; d++) {
			n = roce_fault_release(&dev->eng[j], d, UINT64_MAX, m, RTE_DIM(m));
			for (i = 0; i < n; i++)
				rte_pktmbuf_free(m[i]);
		}
	}
}
