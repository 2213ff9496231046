/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "demo.h"

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Nearest-rank percentile of a sorted array. */
static uint64_t
pct(const uint64_t *v, uint32_t n, double p)
{
	uint64_t rank = (uint64_t)(p * n / 100.0 + 0.999999);

	if (rank == 0)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

void
demo_lat_summary(uint64_t *cycles, uint32_t n, struct demo_lat *out)
{
	/* Round trips are measured; half of one is the one-way latency. */
	double us = 1e6 / (double)rte_get_tsc_hz() / 2.0;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	qsort(cycles, n, sizeof(*cycles), cmp_u64);
	out->samples = n;
	out->p50 = (double)pct(cycles, n, 50.0) * us;
	out->p99 = (double)pct(cycles, n, 99.0) * us;
	out->p999 = (double)pct(cycles, n, 99.9) * us;
	out->max = (double)cycles[n - 1] * us;
}

void
demo_pattern_fill(uint8_t *buf, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)((i * 131u + seed * 7u + (i >> 8)) ^ (seed >> 3));
}

long
demo_pattern_check(const uint8_t *buf, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != (uint8_t)((i * 131u + seed * 7u + (i >> 8)) ^ (seed >> 3)))
			return (long)i;
	return -1;
}
