/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* sysfs checks shared by the VFIO and UIO buses. */

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_errno.h>

#include "hermon_bus.h"
#include "hermon_logs.h"
#include "hermon_regs.h"

static int
fail(int err)
{
	rte_errno = err;
	return -err;
}

/* Read a sysfs hex attribute such as "vendor" ("0x15b3\n"). */
static int
read_hex(const char *dir, const char *attr, unsigned long *out)
{
	char path[PATH_MAX], buf[32], *end;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	f = fopen(path, "r");
	if (f == NULL)
		return -errno;
	if (fgets(buf, sizeof(buf), f) == NULL) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	errno = 0;
	*out = strtoul(buf, &end, 16);
	if (errno != 0 || end == buf || (*end != '\n' && *end != '\0'))
		return -EINVAL;
	return 0;
}

int
hermon_pci_check(struct hermon_bus *bus, const char *const drivers[])
{
	const struct hermon_args *a = bus->args;
	const struct hermon_pci_id *id;
	char link[PATH_MAX], target[PATH_MAX];
	unsigned long vendor, device;
	struct stat st;
	ssize_t n;
	unsigned int i;

	snprintf(bus->dev_dir, sizeof(bus->dev_dir), "%s/bus/pci/devices/%s",
		 a->sysfs, a->pci);
	if (stat(bus->dev_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		HERMON_LOG(ERR, "%s: no such PCI device (%s not found)", a->pci,
			   bus->dev_dir);
		return fail(ENODEV);
	}
	if (read_hex(bus->dev_dir, "vendor", &vendor) < 0 ||
	    read_hex(bus->dev_dir, "device", &device) < 0) {
		HERMON_LOG(ERR, "%s: cannot read vendor/device ids from %s", a->pci,
			   bus->dev_dir);
		return fail(ENODEV);
	}
	id = vendor == HERMON_PCI_VENDOR_MELLANOX ?
		hermon_pci_id_find((uint16_t)device) : NULL;
	if (id == NULL) {
		HERMON_LOG(ERR, "%s: %04lx:%04lx is not a Mellanox Hermon device",
			   a->pci, vendor, device);
		return fail(ENODEV);
	}
	if (!id->supported) {
		HERMON_LOG(ERR, "%s: %s: virtual functions have no HCR; not supported",
			   a->pci, id->part);
		return fail(ENOTSUP);
	}
	bus->device_id = (uint16_t)device;
	bus->part = id->part;

	snprintf(link, sizeof(link), "%s/driver", bus->dev_dir);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0) {
		HERMON_LOG(ERR, "%s (%s): not bound to any kernel driver; bind it to %s",
			   a->pci, id->part, drivers[0]);
		return fail(ENODEV);
	}
	target[n] = '\0';
	for (i = 0; drivers[i] != NULL; i++)
		if (strcmp(basename(target), drivers[i]) == 0)
			return 0;
	HERMON_LOG(ERR, "%s (%s): bound to driver %s, not %s; unbind it first",
		   a->pci, id->part, basename(target), drivers[0]);
	return fail(EBUSY);
}

int
hermon_pci_enable(struct hermon_bus *bus)
{
	uint32_t cmd;
	int ret;

	ret = hermon_bus_cfg_read32(bus, 4, &cmd);
	if (ret < 0)
		return ret;
	/* memory decoding (bit 1), bus mastering (bit 2); status bits are W1C */
	return hermon_bus_cfg_write32(bus, 4, (cmd & 0xffff) | 0x6);
}
