/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * RDMA WRITE ping-pong with perftest write_lat semantics: each side WRITEs
 * the peer's buffer and spins on the last byte of its own buffer until the
 * peer's WRITE lands there. Side A times each round trip.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "demo.h"

/* Signal one WRITE in this many: completions cost as much as the WRITE. */
#define LAT_SIGNAL_EVERY 16

struct lat_side {
	struct demo_ep *ep;
	uint32_t size;
	uint32_t iters;
	uint32_t i;
	uint32_t outstanding;   /* posted, not yet covered by a completion */
	uint32_t unsignaled;    /* posted since the last signaled WRITE */
	int initiator;
	int waiting;
	uint64_t t0;
	uint64_t *samples;
};

/* The stamp of round trip @p i: never 0, and never the previous one. */
static inline uint8_t
stamp(uint32_t i)
{
	return (uint8_t)(i % 255u + 1u);
}

static int
post_write(struct lat_side *s, uint8_t st)
{
	struct demo_ep *ep = s->ep;
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	int ret;

	while (s->outstanding + 1 >= ep->max_send_wr) {
		ret = demo_ep_reap(ep, &s->outstanding);
		if (ret < 0)
			return ret;
		if (app_abort)
			return -ETIMEDOUT;
	}
	ep->src[s->size - 1] = st;
	sge.addr = (uintptr_t)ep->src;
	sge.length = s->size;
	sge.lkey = ep->src_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = ep->peer_addr;
	wr.wr.rdma.rkey = ep->peer_rkey;
	s->unsignaled++;
	if (s->unsignaled == LAT_SIGNAL_EVERY || s->i + 1 == s->iters) {
		wr.send_flags = PRDMA_SEND_SIGNALED;
		wr.wr_id = s->unsignaled;
		s->unsignaled = 0;
	}
	ret = prdma_post_send(ep->qp, &wr, &bad);
	if (ret < 0) {
		DEMO_LOG(ERR, "%s: post WRITE of %u bytes: %s", ep->devargs, s->size,
			 rte_strerror(-ret));
		return ret;
	}
	s->outstanding++;
	return 0;
}

static int
lat_step(void *arg)
{
	struct lat_side *s = arg;
	volatile uint8_t *last = &s->ep->buf[s->size - 1];
	int ret;

	/* Polling the CQ drives a software device; otherwise drive it here. */
	if (s->outstanding > 0) {
		ret = demo_ep_reap(s->ep, &s->outstanding);
		if (ret < 0)
			return ret;
	} else {
		prdma_dev_progress(s->ep->dev);
	}
	if (s->i == s->iters)
		return s->outstanding == 0;
	if (s->initiator && !s->waiting) {
		s->t0 = rte_rdtsc();
		ret = post_write(s, stamp(s->i));
		if (ret < 0)
			return ret;
		s->waiting = 1;
		return 0;
	}
	if (*last != stamp(s->i))
		return 0;
	if (s->initiator) {
		s->samples[s->i] = rte_rdtsc() - s->t0;
		s->waiting = 0;
	} else {
		ret = post_write(s, stamp(s->i));
		if (ret < 0)
			return ret;
	}
	s->i++;
	return 0;
}

static int
verify(const struct demo_ep *ep, uint32_t size, uint32_t seed, uint8_t last)
{
	long bad = app_pattern_check(ep->buf, size - 1, seed);

	if (bad >= 0 || ep->buf[size - 1] != last) {
		DEMO_LOG(ERR, "%s: DATA MISMATCH after the %u-byte WRITE ping-pong at offset %ld",
			 ep->devargs, size, bad >= 0 ? bad : (long)size - 1);
		return 0;
	}
	return 1;
}

int
demo_write_lat(const struct app_runner *r, struct demo_ep *a, struct demo_ep *b,
	       uint32_t size, uint32_t iters, struct demo_lat *out, int *verified)
{
	struct lat_side sa, sb;
	uint32_t seed_a = size * 2 + 1, seed_b = size * 2 + 2;
	int ret;

	if (size == 0 || size > a->buf_len || size > b->buf_len || iters == 0)
		return -EINVAL;
	memset(&sa, 0, sizeof(sa));
	memset(&sb, 0, sizeof(sb));
	sa.samples = calloc(iters, sizeof(*sa.samples));
	if (sa.samples == NULL)
		return -ENOMEM;
	memset(a->buf, 0, size);
	memset(b->buf, 0, size);
	app_pattern_fill(a->src, size, seed_a);
	app_pattern_fill(b->src, size, seed_b);
	sa.ep = a;
	sa.size = size;
	sa.iters = iters;
	sa.initiator = 1;
	sb.ep = b;
	sb.size = size;
	sb.iters = iters;
	ret = app_run_pair(r, lat_step, &sa, lat_step, &sb);
	if (ret == 0) {
		demo_lat_summary(sa.samples, sa.i, out);
		*verified = verify(b, size, seed_a, stamp(iters - 1)) &&
			    verify(a, size, seed_b, stamp(iters - 1));
	}
	free(sa.samples);
	return ret;
}
