/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <string.h>

#include "hermon_bus.h"

int
hermon_bus_open(struct hermon_bus *bus, const struct hermon_args *args)
{
	static const struct hermon_bus_ops *const by_kind[] = {
		[HERMON_BUS_VFIO] = &hermon_bus_vfio,
		[HERMON_BUS_UIO] = &hermon_bus_uio,
		[HERMON_BUS_MODEL] = &hermon_bus_model,
	};
	int ret;

	memset(bus, 0, sizeof(*bus));
	bus->args = args;
	bus->ops = by_kind[args->kind];
	bus->vfio_fd = -1;
	bus->cfg_fd = -1;
	ret = bus->ops->open(bus);
	if (ret < 0)
		bus->ops = NULL;
	return ret;
}

void
hermon_bus_close(struct hermon_bus *bus)
{
	if (bus->ops != NULL)
		bus->ops->close(bus);
	bus->ops = NULL;
}
