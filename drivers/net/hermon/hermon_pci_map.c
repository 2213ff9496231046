/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_byteorder.h>

#include "hermon_logs.h"
#include "hermon_pci_map.h"
#include "hermon_regs.h"

int
hermon_pci_map_enable(struct hermon_bus *bus, hermon_pci_map_bar_t map_bar)
{
	int ret;

	ret = map_bar(bus, HERMON_BAR_CFG);
	if (ret == 0)
		ret = map_bar(bus, HERMON_BAR_UAR);
	/* A short BAR0 would fault on the first access past its end, far
	 * from the cause: refuse it here, naming its size. */
	if (ret == 0 && bus->bar_len[HERMON_BAR_CFG] < HERMON_BAR_CFG_SIZE) {
		HERMON_LOG(ERR, "%s: BAR0 is %zu bytes, need %u", bus->args->pci,
			   bus->bar_len[HERMON_BAR_CFG], HERMON_BAR_CFG_SIZE);
		ret = -ENXIO;
	}
	if (ret == 0)
		ret = hermon_pci_enable(bus);
	return ret;
}

void
hermon_pci_unmap_bars(struct hermon_bus *bus)
{
	unsigned int i;

	for (i = 0; i < HERMON_NB_BARS; i++) {
		if (bus->bar[i] != NULL)
			munmap(bus->bar[i], bus->bar_len[i]);
		bus->bar[i] = NULL;
		bus->bar_len[i] = 0;
	}
}

int
hermon_pci_cfg_pread32(int fd, off_t off, uint32_t *val)
{
	if (pread(fd, val, 4, off) != 4)
		return -EIO;
	*val = rte_le_to_cpu_32(*val);
	return 0;
}

int
hermon_pci_cfg_pwrite32(int fd, off_t off, uint32_t val)
{
	val = rte_cpu_to_le_32(val);
	if (pwrite(fd, &val, 4, off) != 4)
		return -EIO;
	return 0;
}
