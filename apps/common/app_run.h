/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef APP_RUN_H
#define APP_RUN_H

/*
 * Two sides of a measurement, each a step function, run on two lcores
 * (or in turn on one when only one lcore was given), with a deadline.
 */

/* A step does a bounded amount of work; returns 1 once its side is done,
 * 0 to be called again, negative errno to fail the run. */
typedef int (*app_step_t)(void *ctx);

struct app_runner {
	unsigned int lcore_b;       /* RTE_MAX_LCORE: one lcore drives both */
	double timeout_s;
};

/* Side B goes to the next worker lcore, if there is one. */
void app_runner_init(struct app_runner *r, double timeout_s);

/* Run side A on this lcore and side B on lcore_b (or both here, in
 * turn). Returns 0, or the first side's error; -ETIMEDOUT on a stall. */
int app_run_pair(const struct app_runner *r, app_step_t a, void *ctx_a,
		 app_step_t b, void *ctx_b);

/* Set by the runner when the deadline passes or a side fails; steps that
 * wait on the other side give up on it. */
extern volatile int app_abort;

#endif /* APP_RUN_H */
