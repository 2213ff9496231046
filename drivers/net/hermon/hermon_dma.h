/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_DMA_H
#define HERMON_DMA_H

/* Device-visible memory: memzones with one IOVA-contiguous range each. */

#include <stddef.h>

#include <rte_memory.h>
#include <rte_memzone.h>

struct hermon_dma {
	const struct rte_memzone *mz;
	void *va;
	rte_iova_t iova;
	size_t len;
};

/*
 * Reserve @len zeroed bytes aligned to @align (a power of two), IOVA
 * contiguous. Returns 0 or a negative errno (rte_errno set) with a log line
 * naming @what when no usable IOVA can be had.
 */
int hermon_dma_alloc(struct hermon_dma *d, const char *what, size_t len,
		     size_t align, int socket);

/* Release (no-op on a zeroed or already released descriptor). */
void hermon_dma_free(struct hermon_dma *d);

#endif /* HERMON_DMA_H */
