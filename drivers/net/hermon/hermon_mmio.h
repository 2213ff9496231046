/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_MMIO_H
#define HERMON_MMIO_H

/*
 * MMIO accessors. The HCR only takes 32-bit accesses, so these are the only
 * widths offered; values are big-endian on the bus.
 */

#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_io.h>

static inline void
hermon_mmio_write32(void *bar, uint32_t off, uint32_t value)
{
	rte_write32_relaxed(rte_cpu_to_be_32(value),
			    (volatile void *)((uint8_t *)bar + off));
}

static inline uint32_t
hermon_mmio_read32(const void *bar, uint32_t off)
{
	return rte_be_to_cpu_32(rte_read32_relaxed(
		(const volatile void *)((const uint8_t *)bar + off)));
}

#endif /* HERMON_MMIO_H */
