/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Fault injection through the provider that has it: the software RoCE
 * provider (prdma_roce.h). A device of another provider gets a clear
 * "has no fault injection"; nothing is faked.
 */

#include <errno.h>
#include <string.h>

#include <prdma_roce.h>

#include "tp.h"

static const char *const dirs[PRDMA_ROCE_FAULT_DIR_NB] = {
	[PRDMA_ROCE_FAULT_TX] = "tx",
	[PRDMA_ROCE_FAULT_RX] = "rx",
};
static const char *const kinds[PRDMA_ROCE_FAULT_KIND_NB] = {
	[PRDMA_ROCE_FAULT_DROP] = "drop",
	[PRDMA_ROCE_FAULT_DUP] = "dup",
	[PRDMA_ROCE_FAULT_REORDER] = "reorder",
	[PRDMA_ROCE_FAULT_CORRUPT] = "corrupt",
	[PRDMA_ROCE_FAULT_DELAY] = "delay",
	[PRDMA_ROCE_FAULT_CE] = "ce",
};

static int
index_of(const char *s, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] != NULL && strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

/* The provider answers -ENODEV for a device that is not its own. */
static void
report(int ret, uint16_t dev, const char *what)
{
	struct prdma_dev_attr a;

	if (ret == -ENODEV && prdma_dev_query(tp.devs[dev].dev, &a) == 0)
		tp_err("device %u: provider '%s' has no fault injection", dev, a.provider);
	else
		tp_err_errno(ret, "%s on device %u", what, dev);
}

int
tp_fault_set(uint16_t dev, const char *dir, const char *kind, uint32_t ppm)
{
	struct tp_dev *d = tp_dev_get(dev);
	int di, ki, ret;

	if (d == NULL)
		return -ENODEV;
	di = index_of(dir, dirs, PRDMA_ROCE_FAULT_DIR_NB);
	ki = index_of(kind, kinds, PRDMA_ROCE_FAULT_KIND_NB);
	if (di < 0 || ki < 0) {
		tp_err("bad fault '%s %s': direction tx|rx, kind drop|dup|reorder|corrupt|delay|ce",
		       dir, kind);
		return -EINVAL;
	}
	if (ppm > 1000000) {
		tp_err("fault rate %u ppm: at most 1000000", ppm);
		return -EINVAL;
	}
	/* A fixed seed: the same command gives the same losses. */
	ret = prdma_roce_fault_set(d->dev, (enum prdma_roce_fault_dir)di,
				   (enum prdma_roce_fault_kind)ki, ppm, 1);
	if (ret < 0) {
		report(ret, dev, "set fault");
		return ret;
	}
	tp_out("device %u: %s %s at %u ppm", dev, dir, kind, ppm);
	return 0;
}

int
tp_fault_clear(uint16_t dev)
{
	struct tp_dev *d = tp_dev_get(dev);
	int ret;

	if (d == NULL)
		return -ENODEV;
	ret = prdma_roce_fault_clear(d->dev);
	if (ret < 0) {
		report(ret, dev, "clear fault");
		return ret;
	}
	tp_out("device %u: faults cleared", dev);
	return 0;
}
