/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * VFIO bus: the device joins DPDK's default container through the public
 * rte_vfio.h API, which also DMA-maps all of DPDK's memory into it; BARs
 * are mmap'ed regions of the device fd, config space is a region too.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/vfio.h>

#include <rte_errno.h>
#include <rte_vfio.h>

#include "hermon_bus.h"
#include "hermon_logs.h"
#include "hermon_pci_map.h"

static const char *const vfio_drivers[] = { "vfio-pci", NULL };

static int
vfio_map_bar(struct hermon_bus *bus, unsigned int bar)
{
	struct vfio_region_info reg = { .argsz = sizeof(reg), .index = bar };
	void *va;

	if (ioctl(bus->vfio_fd, VFIO_DEVICE_GET_REGION_INFO, &reg) < 0) {
		HERMON_LOG(ERR, "%s: VFIO region info of BAR%u: %s", bus->args->pci,
			   bar, strerror(errno));
		return -errno;
	}
	if (reg.size == 0 || (reg.flags & VFIO_REGION_INFO_FLAG_MMAP) == 0) {
		HERMON_LOG(ERR, "%s: BAR%u is empty or cannot be mmap'ed",
			   bus->args->pci, bar);
		return -ENXIO;
	}
	va = mmap(NULL, reg.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		  bus->vfio_fd, (off_t)reg.offset);
	if (va == MAP_FAILED) {
		HERMON_LOG(ERR, "%s: mmap BAR%u: %s", bus->args->pci, bar,
			   strerror(errno));
		return -errno;
	}
	bus->bar[bar] = va;
	bus->bar_len[bar] = reg.size;
	return 0;
}

static int
vfio_open(struct hermon_bus *bus)
{
	const struct hermon_args *a = bus->args;
	struct vfio_device_info info = { .argsz = sizeof(info) };
	struct vfio_region_info cfg = {
		.argsz = sizeof(cfg), .index = VFIO_PCI_CONFIG_REGION_INDEX,
	};
	char base[PATH_MAX], link[PATH_MAX], grp[64];
	int group = -1, ret;
	ssize_t n;

	bus->vfio_fd = -1;
	ret = hermon_pci_check(bus, vfio_drivers);
	if (ret < 0)
		return ret;
	snprintf(link, sizeof(link), "%s/iommu_group", bus->dev_dir);
	n = readlink(link, grp, sizeof(grp) - 1);
	if (n < 0) {
		HERMON_LOG(ERR, "%s: no IOMMU group (enable the IOMMU, e.g. intel_iommu=on, "
			   "or load vfio with enable_unsafe_noiommu_mode=1)", a->pci);
		rte_errno = ENODEV;
		return -ENODEV;
	}
	if (!rte_vfio_is_enabled("vfio")) {
		HERMON_LOG(ERR, "%s: VFIO is not enabled in EAL (is the vfio-pci module "
			   "loaded and /dev/vfio accessible?)", a->pci);
		rte_errno = ENODEV;
		return -ENODEV;
	}
	snprintf(base, sizeof(base), "%s/bus/pci/devices", a->sysfs);
	if (rte_vfio_get_group_num(base, a->pci, &group) != 1) {
		HERMON_LOG(ERR, "%s: cannot resolve its IOMMU group", a->pci);
		rte_errno = ENODEV;
		return -ENODEV;
	}
	if (rte_vfio_setup_device(base, a->pci, &bus->vfio_fd, &info) != 0) {
		HERMON_LOG(ERR, "%s: VFIO setup of group %d failed (group in use by "
			   "another process or not viable?)", a->pci, group);
		bus->vfio_fd = -1;
		rte_errno = EIO;
		return -EIO;
	}
	if (ioctl(bus->vfio_fd, VFIO_DEVICE_GET_REGION_INFO, &cfg) < 0) {
		ret = -errno;
		HERMON_LOG(ERR, "%s: VFIO config region: %s", a->pci, strerror(-ret));
		goto err;
	}
	bus->vfio_cfg_off = cfg.offset;
	ret = hermon_pci_map_enable(bus, vfio_map_bar);
	if (ret < 0)
		goto err;
	bus->reset_delay_ms = 1000;
	return 0;
err:
	hermon_pci_unmap_bars(bus);
	rte_vfio_release_device(base, a->pci, bus->vfio_fd);
	bus->vfio_fd = -1;
	rte_errno = -ret;
	return ret;
}

static void
vfio_close(struct hermon_bus *bus)
{
	char base[PATH_MAX];

	hermon_pci_unmap_bars(bus);
	if (bus->vfio_fd >= 0) {
		snprintf(base, sizeof(base), "%s/bus/pci/devices", bus->args->sysfs);
		rte_vfio_release_device(base, bus->args->pci, bus->vfio_fd);
	}
	bus->vfio_fd = -1;
}

/* Config space is the device fd's config region, at vfio_cfg_off. */
static int
vfio_cfg_read32(struct hermon_bus *bus, uint32_t off, uint32_t *val)
{
	return hermon_pci_cfg_pread32(bus->vfio_fd, (off_t)(bus->vfio_cfg_off + off), val);
}

static int
vfio_cfg_write32(struct hermon_bus *bus, uint32_t off, uint32_t val)
{
	return hermon_pci_cfg_pwrite32(bus->vfio_fd, (off_t)(bus->vfio_cfg_off + off), val);
}

const struct hermon_bus_ops hermon_bus_vfio = {
	.name = "vfio",
	.open = vfio_open,
	.close = vfio_close,
	.cfg_read32 = vfio_cfg_read32,
	.cfg_write32 = vfio_cfg_write32,
};
