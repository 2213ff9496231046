/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* hermon devargs: every key valid and invalid. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "prdma.h"
#include "t_eal.h"
#include "hermon_args.h"

static void
test_valid(void **state)
{
	struct hermon_args a;

	(void)state;
	assert_int_equal(hermon_args_parse("model", &a), 0);
	assert_int_equal(a.kind, HERMON_BUS_MODEL);
	assert_int_equal(a.ports, 1);
	assert_int_equal(a.cmd_timeout_ms, HERMON_CMD_TIMEOUT_MS_DEFAULT);
	assert_int_equal(hermon_args_parse("model,ports=2,name=hca0", &a), 0);
	assert_int_equal(a.ports, 2);
	assert_string_equal(a.name, "hca0");
	assert_int_equal(hermon_args_parse("pci=0000:03:00.0", &a), 0);
	assert_int_equal(a.kind, HERMON_BUS_VFIO);
	assert_string_equal(a.pci, "0000:03:00.0");
	assert_string_equal(a.sysfs, "/sys");
	assert_int_equal(hermon_args_parse("pci=03:00.0,kdrv=uio", &a), 0);
	assert_int_equal(a.kind, HERMON_BUS_UIO);
	assert_string_equal(a.pci, "0000:03:00.0");
	assert_int_equal(hermon_args_parse("pci=0000:03:00.0,kdrv=vfio,sysfs=/tmp/x,"
					   "cmd_timeout_ms=0x100", &a), 0);
	assert_int_equal(a.kind, HERMON_BUS_VFIO);
	assert_string_equal(a.sysfs, "/tmp/x");
	assert_int_equal(a.cmd_timeout_ms, 256);
	/* the port's IPv4 address, static neighbours, the model's MAC */
	assert_int_equal(hermon_args_parse("model,ip=192.0.2.3,mac=02:c9:00:00:00:03,"
					   "neigh=192.0.2.2/02:c9:00:00:00:02,"
					   "neigh=192.0.2.9/02:c9:00:00:00:09", &a), 0);
	assert_true(a.has_ip);
	assert_int_equal(a.ip[0], 192);
	assert_int_equal(a.ip[3], 3);
	assert_true(a.has_mac);
	assert_int_equal(a.mac[5], 3);
	assert_int_equal(a.nb_neigh, 2);
	assert_int_equal(a.neigh[1].ip[3], 9);
	assert_int_equal(a.neigh[1].mac[5], 9);
	assert_false(a.neigh[1].ipv6);
	/* an IPv6 neighbour (the MAC after the slash) */
	assert_int_equal(hermon_args_parse("model,neigh=2001:db8::2/02:c9:00:00:00:22", &a),
			 0);
	assert_int_equal(a.nb_neigh, 1);
	assert_true(a.neigh[0].ipv6);
	assert_int_equal(a.neigh[0].ip[0], 0x20);
	assert_int_equal(a.neigh[0].ip[15], 2);
	assert_int_equal(a.neigh[0].mac[5], 0x22);
	assert_false(a.has_ip6);
	/* the global IPv6 address neighbour discovery answers (F13) */
	assert_int_equal(hermon_args_parse("model,ip6=2001:db8::3", &a), 0);
	assert_true(a.has_ip6);
	assert_int_equal(a.ip6[0], 0x20);
	assert_int_equal(a.ip6[15], 3);
	assert_false(a.no_bf);
	/* BlueFlame: on unless bf=0; the model has it only with model_bf=1 */
	assert_int_equal(hermon_args_parse("model,model_bf=1,bf=0", &a), 0);
	assert_true(a.model_bf);
	assert_true(a.no_bf);
	assert_int_equal(hermon_args_parse("pci=0000:03:00.0,bf=1", &a), 0);
	assert_false(a.no_bf);
	assert_false(a.model_bf);
	/* the model's CA ACK delay: its default unless given */
	assert_false(a.has_model_ack_delay);
	assert_int_equal(hermon_args_parse("model,model_ack_delay=3", &a), 0);
	assert_true(a.has_model_ack_delay);
	assert_int_equal(a.model_ack_delay, 3);
	assert_int_equal(hermon_args_parse("model,model_ack_delay=0", &a), 0);
	assert_true(a.has_model_ack_delay);
	assert_int_equal(a.model_ack_delay, 0);
	/* RoCE v2 (ConnectX-3 Pro): a model option, off by default */
	assert_false(a.model_rocev2);
	assert_int_equal(hermon_args_parse("model,model_rocev2=1", &a), 0);
	assert_true(a.model_rocev2);
}

static void
test_invalid(void **state)
{
	static const char *const bad[] = {
		"", "foo=1", "model=1", "model,pci=0000:03:00.0", "ports=2",
		"model,ports=0", "model,ports=3", "model,ports=x", "model,kdrv=vfio",
		"model,sysfs=/tmp", "pci=zz:00.0", "pci=0000:03:00.0,kdrv=igb",
		"pci=0000:03:00.0,ports=1", "pci=0000:03:00.0,sysfs=relative",
		"model,cmd_timeout_ms=0", "model,cmd_timeout_ms=600001",
		"model,cmd_timeout_ms=-5", "model,name=", "model,model",
		"pci=0000:03:00.0,pci=0000:04:00.0",
		"model,ip=300.0.0.1", "model,ip=0.0.0.0", "model,ip=1.2.3.4,ip=1.2.3.5",
		"model,ip6=192.0.2.3", "model,ip6=::", "model,ip6=ff02::1", "model,ip6=fe80::1",
		"model,ip6=::ffff:192.0.2.3", "model,ip6=2001:db8::1,ip6=2001:db8::2",
		"model,mac=01:00:5e:00:00:01", "model,mac=zz", "pci=0000:03:00.0,mac=02:00:00:00:00:01",
		"model,neigh=192.0.2.2", "model,neigh=192.0.2.2/00:00:00:00:00:00",
		"model,neigh=x/02:00:00:00:00:01", "model,neigh=::/02:00:00:00:00:01",
		"model,neigh=ff02::1/02:00:00:00:00:01", "model,neigh=2001:db8::zz/02:00:00:00:00:01",
		"model,bf=2", "model,bf=x", "model,model_bf=2",
		"pci=0000:03:00.0,model_bf=1", "model,model_ack_delay=32",
		"model,model_ack_delay=x", "pci=0000:03:00.0,model_ack_delay=3",
		"model,model_rocev2=2", "pci=0000:03:00.0,model_rocev2=1",
	};
	struct hermon_args a;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (hermon_args_parse(bad[i], &a) != -EINVAL)
			fail_msg("\"%s\" was accepted", bad[i]);
	/* and through the public probe */
	assert_int_equal(prdma_dev_probe("hermon:model,ports=3"), -EINVAL);
	assert_int_equal(prdma_dev_probe("hermon:"), -EINVAL);
}

static int
setup(void **state)
{
	(void)state;
	return t_eal_init();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
