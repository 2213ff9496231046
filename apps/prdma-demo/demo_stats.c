/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include "demo.h"

void
demo_lat_summary(uint64_t *cycles, uint32_t n, struct demo_lat *out)
{
	struct app_lat l;

	/* Round trips are measured; half of one is the one-way latency. */
	app_lat_summary(cycles, n, 2, &l);
	out->p50 = l.p50;
	out->p99 = l.p99;
	out->p999 = l.p999;
	out->max = l.max;
	out->samples = l.samples;
}
