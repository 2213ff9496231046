/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef FLOOD_H
#define FLOOD_H

/*
 * Healthy RC traffic between two soft RoCE devices while the target's
 * receive path is flooded with garbage: shared by the exhaustion test
 * (progress under flood) and bench/flood (throughput with and without).
 */

#include <stdint.h>

struct flood_result {
	uint64_t ops;             /* healthy WRITEs completed successfully */
	uint64_t bytes;
	uint64_t errors;          /* healthy WRITEs completed with an error */
	uint64_t garbage;         /* garbage frames injected */
	uint64_t dropped;         /* frames the target counted as dropped */
	double seconds;
	int data_ok;              /* the target's buffer holds what was written */
};

/* Probe the two devices and connect them; 0 or a negative errno. */
int flood_open(void);
void flood_close(void);
/*
 * Run healthy WRITEs of @msg bytes, @depth outstanding, for @seconds;
 * with @garbage_per_step > 0, that many garbage frames enter the target's
 * receive path before each of its engine steps (a full receive burst is
 * the port's full rate).
 */
int flood_run(double seconds, uint32_t msg, uint32_t depth,
	      uint32_t garbage_per_step, struct flood_result *res);

#endif /* FLOOD_H */
