/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_BUS_H
#define HERMON_BUS_H

/*
 * How the PMD reaches a device: map BAR0 and BAR2 and access PCI config
 * space. VFIO, UIO and the model each implement these few operations; the
 * rest of the PMD sees only the mapped BARs and never which bus it is on.
 */

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "hermon_args.h"

#define HERMON_NB_BARS 6

struct hermon_model;
struct hermon_bus;

struct hermon_bus_ops {
	const char *name;
	int (*open)(struct hermon_bus *bus);
	void (*close)(struct hermon_bus *bus);
	int (*cfg_read32)(struct hermon_bus *bus, uint32_t off, uint32_t *val);
	int (*cfg_write32)(struct hermon_bus *bus, uint32_t off, uint32_t val);
	/* the HW semaphore read (F27); NULL: a plain BAR0 read */
	uint32_t (*sem_read32)(struct hermon_bus *bus);
	/* the HCR go bit was written (arg: the bus); NULL: the device sees
	 * the write itself */
	void (*hcr_posted)(void *bus);
};

struct hermon_bus {
	const struct hermon_bus_ops *ops;
	const struct hermon_args *args;
	char dev_dir[512];                /**< <sysfs>/bus/pci/devices/<DBDF> */
	void *bar[HERMON_NB_BARS];
	size_t bar_len[HERMON_NB_BARS];
	uint16_t device_id;
	const char *part;                 /**< part name from the id table */
	uint32_t reset_delay_ms;          /**< settle time after a reset */
	uint32_t sem_wait_ms;             /**< HW semaphore wait (0: Linux's 10 s) */
	/* VFIO */
	int vfio_fd;
	uint64_t vfio_cfg_off;
	/* UIO */
	int cfg_fd;
	/* model */
	struct hermon_model *model;
};

extern const struct hermon_bus_ops hermon_bus_vfio;
extern const struct hermon_bus_ops hermon_bus_uio;
extern const struct hermon_bus_ops hermon_bus_model;

/* Open the bus @args names and map the BARs; 0 or a negative errno. */
int hermon_bus_open(struct hermon_bus *bus, const struct hermon_args *args);
void hermon_bus_close(struct hermon_bus *bus);

static inline int
hermon_bus_cfg_read32(struct hermon_bus *bus, uint32_t off, uint32_t *val)
{
	return bus->ops->cfg_read32(bus, off, val);
}

static inline int
hermon_bus_cfg_write32(struct hermon_bus *bus, uint32_t off, uint32_t val)
{
	return bus->ops->cfg_write32(bus, off, val);
}

/* PCI helpers shared by VFIO and UIO (hermon_pci.c). */

/* Mellanox device ids this PMD drives; NULL part for unknown ids. */
struct hermon_pci_id {
	uint16_t device_id;
	bool supported;       /**< false: VFs (no HCR, paravirtual channel) */
	const char *part;
};
const struct hermon_pci_id *hermon_pci_id_find(uint16_t device_id);

/*
 * Check the sysfs view of the device named by bus->args: present, a
 * Mellanox Hermon id, bound to one of @drivers (NULL-terminated). Fills
 * bus->dev_dir, device_id and part. Logs a named reason on failure.
 */
int hermon_pci_check(struct hermon_bus *bus, const char *const drivers[]);

/* Turn on memory decoding and bus mastering in the command register. */
int hermon_pci_enable(struct hermon_bus *bus);

#endif /* HERMON_BUS_H */
