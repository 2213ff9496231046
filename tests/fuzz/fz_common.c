/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>
#include <rte_malloc.h>

#include "fz_common.h"
#include "t_eal.h"

#define FZ_CANARY_BYTE 0xc5

void
fz_fail(const char *what, const char *file, int line)
{
	fprintf(stderr, "fuzz invariant broken: %s (%s:%d)\n", what, file, line);
	abort();
}

void
fz_eal_init(void)
{
	/* Millions of hostile inputs would otherwise log millions of lines. */
	if (getenv("PRDMA_TEST_EAL_ARGS") == NULL)
		setenv("PRDMA_TEST_EAL_ARGS", "--no-huge -m 1024 --no-shconf --no-pci "
		       "--log-level=*:crit -l 0", 0);
	if (t_eal_init() < 0)
		fz_fail("t_eal_init", __FILE__, __LINE__);
	if (getenv("FZ_VERBOSE") == NULL)
		rte_log_set_global_level(RTE_LOG_CRIT);
}

void
fz_area_alloc(struct fz_area *a, size_t len)
{
	a->base = rte_malloc(NULL, len + 2 * FZ_CANARY_LEN, 4096);
	FZ_CHECK(a->base != NULL);
	memset(a->base, FZ_CANARY_BYTE, len + 2 * FZ_CANARY_LEN);
	a->data = a->base + FZ_CANARY_LEN;
	a->len = len;
	memset(a->data, 0, len);
}

void
fz_area_free(struct fz_area *a)
{
	rte_free(a->base);
	a->base = NULL;
	a->data = NULL;
}

/* memcmp against a reference: a stateful harness checks often. */
static int
all_canary(const uint8_t *p, size_t n)
{
	static uint8_t ref[FZ_CANARY_LEN];

	if (ref[0] != FZ_CANARY_BYTE)
		memset(ref, FZ_CANARY_BYTE, sizeof(ref));
	return n <= sizeof(ref) && memcmp(p, ref, n) == 0;
}

int
fz_area_canary_ok(const struct fz_area *a)
{
	return all_canary(a->base, FZ_CANARY_LEN) &&
	       all_canary(a->data + a->len, FZ_CANARY_LEN) ? 0 : -1;
}
