/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_PCI_MAP_H
#define HERMON_PCI_MAP_H

/*
 * What the VFIO and UIO buses do alike once they own a device: they differ
 * only in where a BAR's mapping and the config space come from (a VFIO
 * region of the device fd, or the sysfs resourceN and config files), so
 * the steps around those are written once here.
 */

#include <stdint.h>
#include <sys/types.h>

#include "hermon_bus.h"

/* Map BAR @p bar into bus->bar[bar] and bus->bar_len[bar]; 0 or a negative
 * errno, logged. */
typedef int (*hermon_pci_map_bar_t)(struct hermon_bus *bus, unsigned int bar);

/*
 * Map BAR0 (the configuration space with the HCR) and BAR2 (the UAR pages)
 * with @p map_bar, check that BAR0 covers HERMON_BAR_CFG_SIZE, the range
 * the PMD reads and writes, and enable memory decoding and
 * bus mastering. 0 or a negative errno; what is mapped stays mapped for
 * hermon_pci_unmap_bars() on failure.
 */
int hermon_pci_map_enable(struct hermon_bus *bus, hermon_pci_map_bar_t map_bar);

/* Unmap every mapped BAR and forget it. */
void hermon_pci_unmap_bars(struct hermon_bus *bus);

/* One little-endian config space dword at file offset @p off of @p fd. */
int hermon_pci_cfg_pread32(int fd, off_t off, uint32_t *val);
int hermon_pci_cfg_pwrite32(int fd, off_t off, uint32_t val);

#endif /* HERMON_PCI_MAP_H */
