/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * VFIO and UIO error paths on fake sysfs trees (this machine has neither):
 * absent device, foreign ids, VFs, unbound, bound elsewhere, no IOMMU
 * group, VFIO not enabled, UIO without physical addresses.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "prdma.h"
#include "t_eal.h"

#define BDF "0000:03:00.0"

static char root[256];

static void
put(const char *rel, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
sh(const char *fmt, const char *arg)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), fmt, root, arg);
	assert_int_equal(system(cmd), 0);
}

/* A device directory with @vendor/@device, bound to @driver (or none). */
static void
fake_dev(const char *vendor, const char *device, const char *driver, bool group)
{
	char dir[512];

	sh("rm -rf %s/bus%s", "");
	sh("mkdir -p %s/bus/pci/devices/%s", BDF);
	snprintf(dir, sizeof(dir), "bus/pci/devices/%s/vendor", BDF);
	put(dir, vendor);
	snprintf(dir, sizeof(dir), "bus/pci/devices/%s/device", BDF);
	put(dir, device);
	if (driver != NULL) {
		sh("mkdir -p %s/bus/pci/drivers/%s", driver);
		snprintf(dir, sizeof(dir), "ln -s ../../drivers/%s %%s/bus/pci/devices/"
			 BDF "/driver", driver);
		assert_true(strlen(dir) < 512);
		{
			char cmd[2048];

			snprintf(cmd, sizeof(cmd), dir, root);
			assert_int_equal(system(cmd), 0);
		}
	}
	if (group) {
		sh("mkdir -p %s/kernel/iommu_groups/%s", "7");
		sh("ln -s ../../../../kernel/iommu_groups/7 %s/bus/pci/devices/%s/iommu_group",
		   BDF);
	}
}

static int
probe(const char *extra)
{
	char args[512];

	snprintf(args, sizeof(args), "hermon:pci=" BDF ",sysfs=%s%s", root, extra);
	return prdma_dev_probe(args);
}

static void
test_absent(void **state)
{
	(void)state;
	sh("rm -rf %s/bus%s", "");
	assert_int_equal(probe(""), -ENODEV);
	assert_int_equal(probe(",kdrv=uio"), -ENODEV);
}

static void
test_not_hermon(void **state)
{
	(void)state;
	fake_dev("0x8086\n", "0x1003\n", "vfio-pci", true);
	assert_int_equal(probe(""), -ENODEV);
	fake_dev("0x15b3\n", "0x1017\n", "vfio-pci", true);   /* a later part */
	assert_int_equal(probe(""), -ENODEV);
	fake_dev("garbage\n", "0x1003\n", "vfio-pci", true);
	assert_int_equal(probe(""), -ENODEV);
	fake_dev("0x15b3\n", "0x1004\n", "vfio-pci", true);   /* CX-3 VF */
	assert_int_equal(probe(""), -ENOTSUP);
}

static void
test_binding(void **state)
{
	(void)state;
	fake_dev("0x15b3\n", "0x1003\n", NULL, true);
	assert_int_equal(probe(""), -ENODEV);
	fake_dev("0x15b3\n", "0x1003\n", "some_kernel_driver", true);
	assert_int_equal(probe(""), -EBUSY);
	assert_int_equal(probe(",kdrv=uio"), -EBUSY);
	fake_dev("0x15b3\n", "0x1007\n", "uio_pci_generic", true);
	assert_int_equal(probe(",kdrv=vfio"), -EBUSY);
}

static void
test_vfio(void **state)
{
	(void)state;
	fake_dev("0x15b3\n", "0x1003\n", "vfio-pci", false);
	assert_int_equal(probe(""), -ENODEV);        /* no IOMMU group */
	fake_dev("0x15b3\n", "0x673c\n", "vfio-pci", true);
	assert_int_equal(probe(""), -ENODEV);        /* VFIO not enabled in EAL */
}

static void
test_uio(void **state)
{
	(void)state;
	/* the tests run without hugepages, in IOVA-as-VA mode */
	fake_dev("0x15b3\n", "0x1003\n", "uio_pci_generic", false);
	assert_int_equal(probe(",kdrv=uio"), -EINVAL);
	fake_dev("0x15b3\n", "0x6340\n", "igb_uio", false);
	assert_int_equal(probe(",kdrv=uio"), -EINVAL);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/prdma-hermon-sysfs.%d", (int)getpid());
	if (mkdir(root, 0700) != 0)
		return -1;
	return t_eal_init();
}

static int
teardown(void **state)
{
	(void)state;
	sh("rm -rf %s%s", "");
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_not_hermon),
		cmocka_unit_test(test_binding),
		cmocka_unit_test(test_vfio),
		cmocka_unit_test(test_uio),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
