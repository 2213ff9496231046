/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-perf's bandwidth client (perf_bw.c) against stubs of the posting
 * and reaping: a request never rewrites the byte of the source slot that
 * requests still in flight send from. With zero-copy transmit the payload
 * leaves from that slot after the ICRC is taken over it; on the ring link
 * the peer reads it only when it receives the frame, so a changed byte made
 * the frame fail its ICRC: a drop, a NAK and a go-back-N on a lossless link
 * (tools/perf_loopback, timed write_bw).
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "perf.h"

#define NQP 2
#define POSTS_MAX 4096

static int run_over;
static unsigned int nb_posts;
static uint8_t stamps[POSTS_MAX];
static uint32_t post_qp[POSTS_MAX];

/* The stubs: posting records the stamp, nothing ever completes. */
int
perf_post(struct perf_run *r, uint32_t q, uint8_t stamp, int force_signal)
{
	assert_true(nb_posts < POSTS_MAX);
	stamps[nb_posts] = stamp;
	post_qp[nb_posts++] = q;
	r->posted++;
	r->q_posted[q]++;
	r->q_out[q]++;
	if (force_signal)
		r->q_unsig[q] = 0;
	else
		r->q_unsig[q]++;
	return 0;
}

int
perf_reap(struct perf_run *r)
{
	(void)r;
	return 0;
}

int
perf_run_over(const struct perf_run *r, uint64_t target)
{
	(void)r;
	(void)target;
	return run_over;
}

enum perf_verb
perf_test_verb(enum perf_test t)
{
	(void)t;
	return PERF_VERB_WRITE;
}

int
perf_idle_until_peer(struct perf_run *r)
{
	(void)r;
	return 1;
}

int
perf_recv_burst(struct perf_run *r)
{
	(void)r;
	return 0;
}

/*
 * A timed run (-D): requests until the time is up, then the tail, one
 * signaled request per QP with unsignaled ones. Each QP's requests, the
 * tail's included, carry one stamp: none rewrites a byte in flight.
 */
static void
test_timed_tail_keeps_stamp(void **state)
{
	struct perf_opts o;
	struct perf_side s;
	struct perf_run r;
	uint32_t q_out[NQP] = { 0 }, q_unsig[NQP] = { 0 };
	uint64_t q_posted[NQP] = { 0 };
	uint8_t first[NQP];
	int seen[NQP] = { 0 };
	unsigned int i, before;

	(void)state;
	memset(&o, 0, sizeof(o));
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	o.test = PERF_WRITE_BW;
	o.tx_depth = 128;
	o.conn = PERF_CONN_RC;
	s.o = &o;
	s.nqp = NQP;
	s.max_send_wr = 128;
	r.side = &s;
	r.size = 4096;
	r.iters = 0;
	r.q_out = q_out;
	r.q_unsig = q_unsig;
	r.q_posted = q_posted;
	nb_posts = 0;
	run_over = 0;

	for (i = 0; i < 8; i++)
		assert_int_equal(perf_bw_client(&r), 0);
	before = nb_posts;
	assert_true(before > 0);
	run_over = 1;
	/* Nothing completes: the tail is posted, the run is not over. */
	assert_int_equal(perf_bw_client(&r), 0);
	assert_int_equal(r.tail_posted, 1);
	assert_int_equal(nb_posts, before + NQP);
	for (i = 0; i < nb_posts; i++) {
		uint32_t q = post_qp[i];

		if (!seen[q]) {
			seen[q] = 1;
			first[q] = stamps[i];
		}
		assert_int_equal(stamps[i], first[q]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timed_tail_keeps_stamp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
