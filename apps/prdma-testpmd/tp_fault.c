/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Fault injection through the provider, when it has it. The software RoCE
 * provider's fault API (prdma_roce_fault_set, prdma_roce.h) is looked up
 * at run time: a library built without it, or a device of a provider with
 * none, gets a clear "has no fault injection" and nothing is faked.
 */

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "tp.h"

typedef int (*fault_set_t)(struct prdma_dev *dev, int dir, int kind, uint32_t rate_ppm,
			   uint64_t seed);
typedef int (*fault_clear_t)(struct prdma_dev *dev);

/* prdma_roce.h's enumerations, in their order. */
static const char *const dirs[] = { "tx", "rx" };
static const char *const kinds[] = { "drop", "dup", "reorder", "corrupt", "delay", "ce" };

static int
lookup(const char *name, const char *what, void **fn)
{
	*fn = dlsym(RTLD_DEFAULT, name);
	if (*fn == NULL) {
		tp_err("%s: this build of the provider has no fault injection (%s not found)",
		       what, name);
		return -ENOTSUP;
	}
	return 0;
}

static int
index_of(const char *s, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static int
provider_check(struct tp_dev *d, uint16_t dev)
{
	struct prdma_dev_attr a;

	if (prdma_dev_query(d->dev, &a) == 0 && strcmp(a.provider, "roce") != 0) {
		tp_err("device %u: provider '%s' has no fault injection", dev, a.provider);
		return -ENOTSUP;
	}
	return 0;
}

int
tp_fault_set(uint16_t dev, const char *dir, const char *kind, uint32_t ppm)
{
	struct tp_dev *d = tp_dev_get(dev);
	int di, ki, ret;
	void *fn = NULL;

	if (d == NULL)
		return -ENODEV;
	di = index_of(dir, dirs, RTE_DIM(dirs));
	ki = index_of(kind, kinds, RTE_DIM(kinds));
	if (di < 0 || ki < 0) {
		tp_err("bad fault '%s %s': direction tx|rx, kind drop|dup|reorder|corrupt|delay|ce",
		       dir, kind);
		return -EINVAL;
	}
	if (ppm > 1000000) {
		tp_err("fault rate %u ppm: at most 1000000", ppm);
		return -EINVAL;
	}
	ret = provider_check(d, dev);
	if (ret == 0)
		ret = lookup("prdma_roce_fault_set", "set fault", &fn);
	if (ret < 0)
		return ret;
	ret = ((fault_set_t)(uintptr_t)fn)(d->dev, di, ki, ppm, 1);
	if (ret < 0) {
		tp_err_errno(ret, "set fault on device %u", dev);
		return ret;
	}
	tp_out("device %u: %s %s at %u ppm", dev, dir, kind, ppm);
	return 0;
}

int
tp_fault_clear(uint16_t dev)
{
	struct tp_dev *d = tp_dev_get(dev);
	void *fn = NULL;
	int ret;

	if (d == NULL)
		return -ENODEV;
	ret = provider_check(d, dev);
	if (ret == 0)
		ret = lookup("prdma_roce_fault_clear", "clear fault", &fn);
	if (ret < 0)
		return ret;
	ret = ((fault_clear_t)(uintptr_t)fn)(d->dev);
	if (ret < 0) {
		tp_err_errno(ret, "clear fault on device %u", dev);
		return ret;
	}
	tp_out("device %u: faults cleared", dev);
	return 0;
}
