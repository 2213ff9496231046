/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>

#include "hermon_dma.h"
#include "hermon_logs.h"

static uint32_t hermon_dma_seq;

int
hermon_dma_alloc(struct hermon_dma *d, const char *what, size_t len,
		 size_t align, int socket)
{
	char name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;

	memset(d, 0, sizeof(*d));
	if (len == 0 || !rte_is_power_of_2(align)) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "hermon_%s_%u", what,
		 __atomic_fetch_add(&hermon_dma_seq, 1, __ATOMIC_RELAXED));
	mz = rte_memzone_reserve_aligned(name, len, socket,
					 RTE_MEMZONE_IOVA_CONTIG, align);
	if (mz == NULL && socket != SOCKET_ID_ANY)
		mz = rte_memzone_reserve_aligned(name, len, SOCKET_ID_ANY,
						 RTE_MEMZONE_IOVA_CONTIG, align);
	if (mz == NULL) {
		int err = rte_errno;

		HERMON_LOG(ERR, "cannot reserve %zu bytes of DMA memory for %s: %s",
			   len, what, rte_strerror(err));
		rte_errno = err;
		return -err;
	}
	if (mz->iova == RTE_BAD_IOVA) {
		HERMON_LOG(ERR, "%s: memory has no IOVA (hugepages or IOVA mode unusable)",
			   what);
		rte_memzone_free(mz);
		rte_errno = EFAULT;
		return -EFAULT;
	}
	memset(mz->addr, 0, len);
	d->mz = mz;
	d->va = mz->addr;
	d->iova = mz->iova;
	d->len = len;
	return 0;
}

void
hermon_dma_free(struct hermon_dma *d)
{
	if (d->mz != NULL)
		rte_memzone_free(d->mz);
	memset(d, 0, sizeof(*d));
}
