/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "app_run.h"

volatile int app_abort;

/* Checking the clock on every step would distort the smallest runs. */
#define APP_CLOCK_EVERY 1024

struct side {
	app_step_t step;
	void *ctx;
	int ret;
};

static int
side_loop(void *arg)
{
	struct side *s = arg;
	int ret;

	do {
		ret = s->step(s->ctx);
	} while (ret == 0 && !app_abort);
	if (ret < 0)
		app_abort = 1;    /* the other side stops waiting for us */
	s->ret = ret > 0 ? 0 : (ret < 0 ? ret : -ETIMEDOUT);
	return 0;
}

void
app_runner_init(struct app_runner *r, double timeout_s)
{
	r->lcore_b = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	r->timeout_s = timeout_s;
}

int
app_run_pair(const struct app_runner *r, app_step_t a, void *ctx_a,
	      app_step_t b, void *ctx_b)
{
	uint64_t deadline = rte_rdtsc() + (uint64_t)(r->timeout_s * rte_get_tsc_hz());
	struct side sb = { .step = b, .ctx = ctx_b, .ret = 0 };
	int ra = 0, rb = 0, done_a = 0, done_b = 0;
	unsigned int n = 0;
	int ret;

	app_abort = 0;
	if (r->lcore_b < RTE_MAX_LCORE) {
		ret = rte_eal_remote_launch(side_loop, &sb, r->lcore_b);
		if (ret < 0)
			return ret;
		while (!done_a && !app_abort) {
			ra = a(ctx_a);
			done_a = ra != 0;
			if (ra < 0)
				app_abort = 1;
			if (++n % APP_CLOCK_EVERY == 0 && rte_rdtsc() > deadline)
				app_abort = 1;
		}
		/* A is done: B gets the rest of the deadline to finish. */
		while (rte_eal_get_lcore_state(r->lcore_b) != WAIT) {
			if (rte_rdtsc() > deadline)
				app_abort = 1;
			rte_pause();
		}
		rte_eal_wait_lcore(r->lcore_b);
		if (!done_a)
			ra = -ETIMEDOUT;
		rb = sb.ret;
	} else {
		while ((!done_a || !done_b) && !app_abort) {
			if (!done_a) {
				ra = a(ctx_a);
				done_a = ra != 0;
			}
			if (!done_b) {
				rb = b(ctx_b);
				done_b = rb != 0;
			}
			if (ra < 0 || rb < 0)
				break;
			if (++n % APP_CLOCK_EVERY == 0 && rte_rdtsc() > deadline)
				app_abort = 1;
		}
		if (!done_a)
			ra = -ETIMEDOUT;
		if (!done_b)
			rb = -ETIMEDOUT;
	}
	if (ra < 0)
		return ra;
	return rb < 0 ? rb : 0;
}
