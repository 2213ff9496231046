/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "app_stats.h"

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

uint64_t
app_percentile(const uint64_t *sorted, uint32_t n, double p)
{
	uint64_t rank = (uint64_t)(p * n / 100.0 + 0.999999);

	if (n == 0)
		return 0;
	if (rank == 0)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

void
app_lat_summary(uint64_t *cycles, uint32_t n, unsigned int divisor,
		struct app_lat *out)
{
	double us = 1e6 / (double)rte_get_tsc_hz() / (double)(divisor ? divisor : 1);
	double sum = 0, sq = 0, v;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	qsort(cycles, n, sizeof(*cycles), cmp_u64);
	for (i = 0; i < n; i++) {
		v = (double)cycles[i] * us;
		sum += v;
		sq += v * v;
	}
	out->samples = n;
	out->min = (double)cycles[0] * us;
	out->max = (double)cycles[n - 1] * us;
	out->p50 = (double)app_percentile(cycles, n, 50.0) * us;
	out->p99 = (double)app_percentile(cycles, n, 99.0) * us;
	out->p999 = (double)app_percentile(cycles, n, 99.9) * us;
	out->avg = sum / n;
	v = sq / n - out->avg * out->avg;
	out->stdev = v > 0 ? sqrt(v) : 0;
}

void
app_pattern_fill(uint8_t *buf, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)((i * 131u + seed * 7u + (i >> 8)) ^ (seed >> 3));
}

long
app_pattern_check(const uint8_t *buf, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != (uint8_t)((i * 131u + seed * 7u + (i >> 8)) ^ (seed >> 3)))
			return (long)i;
	return -1;
}
