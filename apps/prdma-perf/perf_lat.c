/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Latency loops with perftest's semantics: WRITE and SEND ping-pong (the
 * client times each round trip), READ and atomic request/response (the
 * client times each completion; the server only serves).
 */

#include <errno.h>

#include <rte_cycles.h>

#include "perf.h"

/*
 * The byte round trip i writes last: perftest's "(char)++scnt", so 1..255,
 * then 0, 1, ... (perftest_resources.c run_iter_lat_write). Two sides that
 * wrapped differently would wait for each other from round trip 256 on.
 */
static inline uint8_t
stamp(uint32_t i)
{
	return (uint8_t)(i + 1u);
}

/* Reap send completions when signaled ones are pending, else progress. */
static int
keep_going(struct perf_run *r)
{
	if (r->q_out[0] > r->q_unsig[0])
		return perf_reap(r);
	prdma_dev_progress(r->side->dev);
	return 0;
}

static void
sample(struct perf_run *r, uint64_t now)
{
	if (r->i < r->nb_samples_max)
		r->samples[r->i] = now - r->t0;
}

/* Did the peer's answer to round trip i arrive? 1, 0, or negative errno. */
static int
arrived(struct perf_run *r)
{
	struct perf_side *s = r->side;
	volatile uint8_t *last = &perf_rx_slot(s, 0)[r->size - 1];
	uint32_t q;
	int ret;

	switch (perf_test_verb(s->o->test)) {
	case PERF_VERB_WRITE:
		ret = keep_going(r);
		if (ret < 0)
			return ret;
		return *last == stamp(r->i);
	case PERF_VERB_SEND:
		if (r->q_out[0] > r->q_unsig[0]) {
			ret = perf_reap(r);
			if (ret < 0)
				return ret;
		}
		return perf_recv_one(r, &q);
	default:
		ret = perf_reap(r);
		if (ret < 0)
			return ret;
		return r->q_out[0] == 0;
	}
}

int
perf_lat_client(struct perf_run *r)
{
	uint64_t now;
	int ret;

	if (!r->waiting) {
		if (perf_run_over(r, r->iters)) {
			/* Unsignaled requests are done once the peer answered them. */
			ret = keep_going(r);
			if (ret < 0)
				return ret;
			if (r->q_out[0] == r->q_unsig[0]) {
				r->t_last = rte_rdtsc();
				return 1;
			}
			return 0;
		}
		r->t0 = rte_rdtsc();
		ret = perf_post(r, 0, stamp(r->i), r->iters != 0 && r->i + 1 == r->iters);
		if (ret < 0)
			return ret;
		r->waiting = 1;
		return 0;
	}
	ret = arrived(r);
	if (ret <= 0)
		return ret;
	now = rte_rdtsc();
	sample(r, now);
	r->i++;
	r->waiting = 0;
	return 0;
}

int
perf_lat_server(struct perf_run *r)
{
	enum perf_verb v = perf_test_verb(r->side->o->test);
	uint64_t now;
	int ret;

	if (v == PERF_VERB_READ || v == PERF_VERB_ATOMIC)
		return perf_idle_until_peer(r);
	if (r->iters != 0 && r->i == r->iters) {
		ret = keep_going(r);
		if (ret < 0)
			return ret;
		return r->q_out[0] == r->q_unsig[0];
	}
	if (r->iters == 0 && perf_idle_until_peer(r))
		return 1;
	ret = arrived(r);
	if (ret <= 0)
		return ret;
	/* The server's sample: from its previous answer to this one. */
	now = rte_rdtsc();
	if (r->i > 0 && r->i - 1 < r->nb_samples_max)
		r->samples[r->i - 1] = now - r->t0;
	r->t0 = now;
	ret = perf_post(r, 0, stamp(r->i), r->iters != 0 && r->i + 1 == r->iters);
	if (ret < 0)
		return ret;
	r->i++;
	return 0;
}
