/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef APP_STATS_H
#define APP_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Latency figures in microseconds, perftest's columns and a few more. */
struct app_lat {
	double min, max, p50, avg, stdev, p99, p999;
	uint32_t samples;
};

/*
 * Sort @p cycles (TSC ticks per sample) in place and summarize them,
 * each divided by @p divisor: 2 turns round trips into one-way latency.
 */
void app_lat_summary(uint64_t *cycles, uint32_t n, unsigned int divisor,
		     struct app_lat *out);

/* Nearest-rank percentile of a sorted array (p in 0..100). */
uint64_t app_percentile(const uint64_t *sorted, uint32_t n, double p);

/* Fill with a pattern derived from @p seed; check returns the first bad
 * offset or -1. */
void app_pattern_fill(uint8_t *buf, size_t len, uint32_t seed);
long app_pattern_check(const uint8_t *buf, size_t len, uint32_t seed);

#endif /* APP_STATS_H */
