/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* The order format's content rules and the end-of-run report. */

#include <inttypes.h>
#include <string.h>

#include "app_stats.h"
#include "og.h"

static const char *const og_symbols[] = { "ACME", "GLOBX", "INIT", "UMBR" };

void
og_order_fill(struct og_order *o, uint64_t id, uint64_t tsc)
{
	memset(o, 0, sizeof(*o));
	o->order_id = id;
	o->client_tsc = tsc;
	snprintf(o->symbol, sizeof(o->symbol), "%s", og_symbols[id % RTE_DIM(og_symbols)]);
	o->quantity = (uint32_t)(100 * (1 + id % 10));
	o->price_ticks = (uint32_t)(10000 + id % 500);
	o->side = id & 1 ? OG_SELL : OG_BUY;
}

uint32_t
og_order_decide(const struct og_order *o)
{
	/* A risk check stand-in: no single order above 1000 shares. */
	if (o->quantity == 0 || o->quantity > 1000 || o->symbol[0] == '\0' ||
	    (o->side != OG_BUY && o->side != OG_SELL))
		return OG_REJECTED;
	return OG_ACCEPTED;
}

void
og_report(uint64_t *rtt, uint32_t n, double elapsed_s)
{
	uint32_t buckets[16] = { 0 };
	uint32_t i, b, top = 0;
	uint64_t ns;

	printf("orders: %" PRIu32 " in %.3f s, %.0f orders/s\n", n, elapsed_s,
	       elapsed_s > 0 ? n / elapsed_s : 0.0);
	ex_print_latency("round-trip", rtt, n);
	/* Buckets double from 1 us: [0,1) [1,2) [2,4) ... [16 ms, inf). */
	for (i = 0; i < n; i++) {
		ns = (uint64_t)(ex_tsc_to_us(rtt[i]) * 1000.0);
		for (b = 0; b < RTE_DIM(buckets) - 1 && ns >= (1000ull << b); b++)
			;
		buckets[b]++;
	}
	for (b = 0; b < RTE_DIM(buckets); b++)
		top = RTE_MAX(top, buckets[b]);
	printf("round-trip histogram:\n");
	for (b = 0; b < RTE_DIM(buckets); b++) {
		uint32_t lo = b == 0 ? 0 : 1u << (b - 1), bar;

		if (buckets[b] == 0)
			continue;
		bar = top ? (uint32_t)((uint64_t)buckets[b] * 50 / top) : 0;
		if (b == RTE_DIM(buckets) - 1)
			printf("  >= %6" PRIu32 " us %8" PRIu32 " ", lo, buckets[b]);
		else
			printf("  %5" PRIu32 "-%-5" PRIu32 " us %8" PRIu32 " ", lo, 1u << b,
			       buckets[b]);
		while (bar-- > 0)
			putchar('#');
		putchar('\n');
	}
}
