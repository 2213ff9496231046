/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * UIO bus: BARs are the sysfs resourceN files mmap'ed, config space is the
 * sysfs config file, and the device sees physical addresses, so EAL must
 * run in IOVA-as-PA mode on hugepages (rte_mem_virt2iova is then the PA).
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "hermon_bus.h"
#include "hermon_logs.h"
#include "hermon_pci_map.h"

static const char *const uio_drivers[] = { "uio_pci_generic", "igb_uio", NULL };

static int
uio_map_bar(struct hermon_bus *bus, unsigned int bar)
{
	char path[PATH_MAX];
	struct stat st;
	void *va;
	int fd;

	snprintf(path, sizeof(path), "%s/resource%u", bus->dev_dir, bar);
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0) {
		HERMON_LOG(ERR, "%s: open %s: %s", bus->args->pci, path, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) != 0 || st.st_size == 0) {
		HERMON_LOG(ERR, "%s: BAR%u (%s) is empty", bus->args->pci, bar, path);
		close(fd);
		return -ENXIO;
	}
	va = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (va == MAP_FAILED) {
		HERMON_LOG(ERR, "%s: mmap %s: %s", bus->args->pci, path, strerror(errno));
		return -errno;
	}
	bus->bar[bar] = va;
	bus->bar_len[bar] = (size_t)st.st_size;
	return 0;
}

static void
uio_close(struct hermon_bus *bus)
{
	hermon_pci_unmap_bars(bus);
	if (bus->cfg_fd >= 0)
		close(bus->cfg_fd);
	bus->cfg_fd = -1;
}

static int
uio_open(struct hermon_bus *bus)
{
	const struct hermon_args *a = bus->args;
	char path[PATH_MAX];
	int ret;

	bus->cfg_fd = -1;
	ret = hermon_pci_check(bus, uio_drivers);
	if (ret < 0)
		return ret;
	if (rte_eal_iova_mode() != RTE_IOVA_PA) {
		HERMON_LOG(ERR, "%s: UIO gives the device physical addresses: run EAL "
			   "with --iova-mode=pa (IOVA mode is VA)", a->pci);
		rte_errno = EINVAL;
		return -EINVAL;
	}
	if (!rte_eal_has_hugepages()) {
		HERMON_LOG(ERR, "%s: UIO needs hugepages (--no-huge memory has no "
			   "stable physical address)", a->pci);
		rte_errno = EINVAL;
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/config", bus->dev_dir);
	bus->cfg_fd = open(path, O_RDWR | O_CLOEXEC);
	if (bus->cfg_fd < 0) {
		ret = -errno;
		HERMON_LOG(ERR, "%s: open %s: %s", a->pci, path, strerror(errno));
		goto err;
	}
	ret = hermon_pci_map_enable(bus, uio_map_bar);
	if (ret < 0)
		goto err;
	bus->reset_delay_ms = 1000;
	return 0;
err:
	uio_close(bus);
	rte_errno = -ret;
	return ret;
}

static int
uio_cfg_read32(struct hermon_bus *bus, uint32_t off, uint32_t *val)
{
	return hermon_pci_cfg_pread32(bus->cfg_fd, (off_t)off, val);
}

static int
uio_cfg_write32(struct hermon_bus *bus, uint32_t off, uint32_t val)
{
	return hermon_pci_cfg_pwrite32(bus->cfg_fd, (off_t)off, val);
}

const struct hermon_bus_ops hermon_bus_uio = {
	.name = "uio",
	.open = uio_open,
	.close = uio_close,
	.cfg_read32 = uio_cfg_read32,
	.cfg_write32 = uio_cfg_write32,
};
