/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Flood benchmark: the throughput of a healthy RC connection (4 KiB
 * WRITEs, 16 outstanding) between two soft RoCE devices, measured in one
 * run without and then with a full receive burst of garbage (random bytes,
 * bad ICRCs, unknown QPs, foreign P_Keys) entering the target's receive
 * path before each engine step. Prints both figures and their ratio; the
 * goal is >= 80 %.
 *
 *   prdma-flood-bench [seconds per run (3)] [garbage frames per step (32)]
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "flood.h"
#include "t_eal.h"

static void
show(const char *what, const struct flood_result *r)
{
	printf("%-14s %10.0f WRITE/s %9.1f MB/s  errors %" PRIu64 "  data %s  "
	       "garbage %" PRIu64 " (%.0f/s), dropped %" PRIu64 "\n", what,
	       (double)r->ops / r->seconds, (double)r->bytes / r->seconds / 1e6,
	       r->errors, r->data_ok ? "ok" : "BAD", r->garbage,
	       (double)r->garbage / r->seconds, r->dropped);
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	unsigned int burst = argc > 2 ? (unsigned int)atoi(argv[2]) : 32;
	struct flood_result base, flood;
	double ratio;

	if (secs <= 0 || t_eal_init() < 0 || flood_open() < 0) {
		fprintf(stderr, "usage: %s [seconds] [garbage per step]; setup failed\n",
			argv[0]);
		return 1;
	}
	if (flood_run(secs, 4096, 16, 0, &base) < 0 ||
	    flood_run(secs, 4096, 16, burst, &flood) < 0)
		return 1;
	show("without flood", &base);
	show("with flood", &flood);
	ratio = base.ops != 0 ? (double)flood.ops / flood.seconds /
		((double)base.ops / base.seconds) : 0;
	printf("ratio: %.1f %% of the healthy throughput kept under flood (goal >= 80 %%)\n",
	       ratio * 100.0);
	flood_close();
	return base.errors == 0 && flood.errors == 0 && base.data_ok && flood.data_ok ? 0 : 1;
}
