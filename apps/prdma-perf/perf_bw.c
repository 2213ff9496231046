/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Bandwidth loops with perftest's semantics: the client keeps -t requests
 * in flight on every QP (round robin), one in -Q signaled; the server
 * serves (WRITE, READ) or receives and counts (SEND).
 */

#include <errno.h>

#include <rte_cycles.h>

#include "perf.h"

/* Requests posted on one QP before moving to the next. */
#define PERF_BW_BURST 16

static uint64_t
outstanding(const struct perf_run *r)
{
	return r->posted - r->completed;
}

/* A timed run ends with one signaled request per QP that has unsignaled
 * ones, so every posted request is accounted for by a completion. It
 * carries the run's stamp: a different one would rewrite a byte of the
 * source slot that requests in flight still send from (zero-copy: the
 * payload leaves from the slot after its ICRC was taken, so the frame
 * would fail the ICRC at the peer, a drop and a NAK on a lossless link). */
static int
post_tail(struct perf_run *r)
{
	struct perf_side *s = r->side;
	uint32_t q;
	int ret;

	for (q = 0; q < s->nqp; q++) {
		if (r->q_unsig[q] == 0)
			continue;
		ret = perf_post(r, q, 1, 1);
		if (ret < 0)
			return ret;
	}
	r->tail_posted = 1;
	return 0;
}

int
perf_bw_client(struct perf_run *r)
{
	struct perf_side *s = r->side;
	uint64_t total = (uint64_t)r->iters * s->nqp;
	uint32_t tries, k, q, depth = RTE_MIN(s->o->tx_depth, s->max_send_wr);
	int ret;

	ret = perf_reap(r);
	if (ret < 0)
		return ret;
	if (perf_run_over(r, total)) {
		if (r->iters == 0 && !r->tail_posted) {
			ret = post_tail(r);
			if (ret < 0)
				return ret;
		}
		return outstanding(r) == 0;
	}
	for (tries = 0; tries < s->nqp; tries++) {
		q = r->q;
		r->q = q + 1 == s->nqp ? 0 : q + 1;
		for (k = 0; k < PERF_BW_BURST && r->q_out[q] < depth; k++) {
			if (perf_run_over(r, total) ||
			    (r->iters != 0 && r->q_posted[q] >= r->iters))
				break;
			/* Each QP's last request is signaled: it covers the rest. */
			ret = perf_post(r, q, 1, r->iters != 0 && r->q_posted[q] + 1 == r->iters);
			if (ret < 0)
				return ret;
		}
		if (k > 0)
			break;
	}
	return 0;
}

int
perf_bw_server(struct perf_run *r)
{
	struct perf_side *s = r->side;
	uint64_t total = (uint64_t)r->iters * s->nqp;
	int ret;

	if (perf_test_verb(s->o->test) != PERF_VERB_SEND)
		return perf_idle_until_peer(r);
	ret = perf_recv_burst(r);
	if (ret < 0)
		return ret;
	if (ret > 0) {
		r->t_last = rte_rdtsc();
		if (r->received == (uint64_t)ret)   /* the first burst */
			r->t_first = r->t_last;
	}
	if (r->iters != 0 && r->received >= total)
		return 1;
	/* UC and UD may lose messages: the client's end ends the count too. */
	if (r->iters != 0 && s->o->conn == PERF_CONN_RC)
		return 0;
	return ret == 0 && perf_idle_until_peer(r);
}
