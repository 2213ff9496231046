/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Model bus: the "device" is a hermon_model; its BAR regions are handed to
 * the PMD as if they had been mmap'ed. A model already created under the
 * devargs' name (by a test) is attached to, otherwise one is created.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>

#include "hermon_bus.h"
#include "hermon_logs.h"
#include "hermon_regs.h"
#include "model/hermon_model.h"

static uint32_t model_seq;

static int
model_open(struct hermon_bus *bus)
{
	const struct hermon_args *a = bus->args;
	struct hermon_model_conf conf = {
		.ports = a->ports,
		.link = a->link[0] != '\0' ? a->link : NULL,
		.side = a->side,
		.has_mac = a->has_mac,
		.bf = a->model_bf,
		.has_ack_delay = a->has_model_ack_delay,
		.ack_delay = a->model_ack_delay,
		.rocev2 = a->model_rocev2,
	};
	char name[64];
	const struct hermon_pci_id *id;
	uint32_t cfg0;

	if (a->name[0] != '\0')
		snprintf(name, sizeof(name), "%s", a->name);
	else if (a->link[0] != '\0')
		snprintf(name, sizeof(name), "%s.%u", a->link, a->side);
	else
		snprintf(name, sizeof(name), "hermon-model%u",
			 __atomic_fetch_add(&model_seq, 1, __ATOMIC_RELAXED));
	memcpy(conf.mac, a->mac, sizeof(conf.mac));
	bus->model = hermon_model_get(name);
	if (bus->model == NULL) {
		conf.name = name;
		bus->model = hermon_model_create(&conf);
		if (bus->model == NULL) {
			HERMON_LOG(ERR, "model %s: cannot create: %s", name,
				   rte_strerror(rte_errno));
			return -rte_errno;
		}
	}
	bus->bar[HERMON_BAR_CFG] = hermon_model_bar(bus->model, HERMON_BAR_CFG,
						    &bus->bar_len[HERMON_BAR_CFG]);
	bus->bar[HERMON_BAR_UAR] = hermon_model_bar(bus->model, HERMON_BAR_UAR,
						    &bus->bar_len[HERMON_BAR_UAR]);
	hermon_model_cfg_read32(bus->model, 0, &cfg0);
	bus->device_id = (uint16_t)(cfg0 >> 16);
	id = hermon_pci_id_find(bus->device_id);
	bus->part = id != NULL ? id->part : "model";
	bus->reset_delay_ms = 0;
	bus->sem_wait_ms = 50;
	return 0;
}

static void
model_close(struct hermon_bus *bus)
{
	hermon_model_put(bus->model);
	bus->model = NULL;
	memset(bus->bar, 0, sizeof(bus->bar));
	memset(bus->bar_len, 0, sizeof(bus->bar_len));
}

static int
model_cfg_read32(struct hermon_bus *bus, uint32_t off, uint32_t *val)
{
	return hermon_model_cfg_read32(bus->model, off, val);
}

static uint32_t
model_sem_read32(struct hermon_bus *bus)
{
	return hermon_model_sem_read32(bus->model);
}

static int
model_cfg_write32(struct hermon_bus *bus, uint32_t off, uint32_t val)
{
	return hermon_model_cfg_write32(bus->model, off, val);
}

/* A card sees the go write itself; plain BAR memory cannot tell the
 * model, so the bus does (the model then runs the command at once). */
static void
model_hcr_posted(void *arg)
{
	struct hermon_bus *bus = arg;

	hermon_model_hcr_posted(bus->model);
}

const struct hermon_bus_ops hermon_bus_model = {
	.name = "model",
	.open = model_open,
	.close = model_close,
	.cfg_read32 = model_cfg_read32,
	.cfg_write32 = model_cfg_write32,
	.sem_read32 = model_sem_read32,
	.hcr_posted = model_hcr_posted,
};
