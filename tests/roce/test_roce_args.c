/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Devargs of the roce provider: every key, valid and invalid values. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_errno.h>

#include "roce.h"

static void
test_ring_defaults(void **state)
{
	struct roce_cfg c;

	(void)state;
	assert_int_equal(roce_args_parse("ring=x", &c), 0);
	assert_string_equal(c.ring, "x");
	assert_int_equal(c.side, 0);
	assert_int_equal(c.port, -1);
	assert_int_equal(c.has_ip, 0);
	assert_int_equal(c.has_mac, 0);
	assert_int_equal(c.mtu, 0);
	assert_int_equal(c.progress_thread, 0);
	assert_int_equal(c.burst, ROCE_DEFAULT_BURST);
	assert_string_equal(c.pcap, "");
}

static void
test_all_keys(void **state)
{
	struct roce_cfg c;

	(void)state;
	assert_int_equal(roce_args_parse("ring=loop_1,side=1,ip=10.0.0.7,"
					 "mac=02:00:00:00:00:09,mtu=2048,pcap=/tmp/x.pcap,"
					 "progress=thread,name=myroce,burst=64", &c), 0);
	assert_string_equal(c.ring, "loop_1");
	assert_int_equal(c.side, 1);
	assert_int_equal(c.has_ip, 1);
	assert_int_equal(c.gid.raw[10], 0xff);
	assert_int_equal(c.gid.raw[15], 7);
	assert_int_equal(c.has_mac, 1);
	assert_int_equal(c.mac.addr_bytes[5], 9);
	assert_int_equal(c.mtu, PRDMA_MTU_2048);
	assert_string_equal(c.pcap, "/tmp/x.pcap");
	assert_int_equal(c.progress_thread, 1);
	assert_string_equal(c.name, "myroce");
	assert_int_equal(c.burst, 64);

	assert_int_equal(roce_args_parse("port=3,ip=fe80::1,progress=inline", &c), 0);
	assert_int_equal(c.port, 3);
	assert_int_equal(c.gid.raw[0], 0xfe);
	assert_int_equal(c.progress_thread, 0);
	assert_int_equal(c.progress_hybrid, 0);
	assert_int_equal(roce_args_parse("ring=h,progress=hybrid", &c), 0);
	assert_int_equal(c.progress_thread, 1);
	assert_int_equal(c.progress_hybrid, 1);
	assert_int_equal(roce_args_parse("port=0x1,mtu=256", &c), 0);
	assert_int_equal(c.port, 1);
	assert_int_equal(c.mtu, PRDMA_MTU_256);
	assert_int_equal(roce_args_parse("ring=a,mtu=4096,burst=512", &c), 0);
	assert_int_equal(c.mtu, PRDMA_MTU_4096);
}

static void
test_invalid(void **state)
{
	static const char *const bad[] = {
		"",                          /* neither ring nor port */
		"ring=a,port=0",             /* both */
		"side=1,port=0",             /* side without ring */
		"ring=a,side=2",
		"ring=a,side=-1",
		"ring=a,side=x",
		"ring=",
		"ring",
		"ring=has space",
		"ring=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"port=-1",
		"port=abc",
		"port=99999",
		"ring=a,ip=300.1.1.1",
		"ring=a,ip=nonsense",
		"ring=a,mac=01:00:5e:00:00:01", /* multicast */
		"ring=a,mac=00:00:00:00:00:00",
		"ring=a,mac=zz",
		"ring=a,mtu=1500",
		"ring=a,mtu=8192",
		"ring=a,mtu=0",
		"ring=a,progress=sometimes",
		"ring=a,burst=0",
		"ring=a,burst=513",
		"ring=a,name=",
		"ring=a,name=a/b",
		"ring=a,bogus=1",
		"ring=a,ring=b",
	};
	struct roce_cfg c;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		if (roce_args_parse(bad[i], &c) != -EINVAL)
			fail_msg("\"%s\" was accepted", bad[i]);
	}
}

/* max_qp=: the QP table size, bounded; the default holds 16,384 QPs. */
static void
test_max_qp(void **state)
{
	static const char *const bad[] = {
		"ring=a,max_qp=0",
		"ring=a,max_qp=1048575",        /* ROCE_MAX_QP_LIMIT + 1 */
		"ring=a,max_qp=4294967298",
		"ring=a,max_qp=-1",
		"ring=a,max_qp=many",
		"ring=a,max_qp=16k",
		"ring=a,max_qp= 16",
		"ring=a,max_qp=",
		"ring=a,max_qp",
		"ring=a,max_qp=8,max_qp=9",
	};
	struct roce_cfg c;
	unsigned int i;

	(void)state;
	assert_int_equal(roce_args_parse("ring=a", &c), 0);
	assert_int_equal(c.max_qp, ROCE_DEFAULT_MAX_QP);
	assert_true(c.max_qp >= 16384);
	assert_int_equal(roce_args_parse("ring=a,max_qp=1", &c), 0);
	assert_int_equal(c.max_qp, 1);
	assert_int_equal(roce_args_parse("ring=a,max_qp=100", &c), 0);
	assert_int_equal(c.max_qp, 100);
	assert_int_equal(roce_args_parse("ring=a,max_qp=0x10000", &c), 0);
	assert_int_equal(c.max_qp, 65536);
	assert_int_equal(roce_args_parse("ring=a,max_qp=1048574", &c), 0);
	assert_int_equal(c.max_qp, ROCE_MAX_QP_LIMIT);
	for (i = 0; i < RTE_DIM(bad); i++) {
		rte_errno = 0;
		if (roce_args_parse(bad[i], &c) != -EINVAL)
			fail_msg("\"%s\" was accepted", bad[i]);
	}
}

/* engine_cpus=: one CPU per engine, forms "3", "2-3", "[0,2-3]"; needs a thread. */
static void
test_engine_cpus(void **state)
{
	static const char *const bad[] = {
		"ring=a,progress=thread,engine_cpus=",
		"ring=a,progress=thread,engine_cpus=x",
		"ring=a,progress=thread,engine_cpus=-1",
		"ring=a,progress=thread,engine_cpus=1024",     /* CPU_SETSIZE */
		"ring=a,progress=thread,engine_cpus=0x1",
		"ring=a,progress=thread,engines=2,engine_cpus=3-2",
		"ring=a,progress=thread,engines=2,engine_cpus=[0,]",
		"ring=a,progress=thread,engines=2,engine_cpus=[0,1",
		"ring=a,progress=thread,engines=2,engine_cpus=[]",
		"ring=a,progress=thread,engines=2,engine_cpus=[0;1]",
		"ring=a,progress=thread,engines=2,engine_cpus=0",     /* too few */
		"ring=a,progress=thread,engine_cpus=[0,1]",           /* too many */
		"ring=a,progress=thread,engines=8,engine_cpus=0-8",   /* above 8 */
		"ring=a,engine_cpus=0",                               /* inline */
		"ring=a,progress=inline,engine_cpus=0",
		"ring=a,progress=thread,engine_cpus=0,engine_cpus=1",
	};
	struct roce_cfg c;
	unsigned int i;

	(void)state;
	assert_int_equal(roce_args_parse("ring=a,progress=thread", &c), 0);
	assert_int_equal(c.nb_engine_cpus, 0);
	assert_int_equal(roce_args_parse("ring=a,progress=thread,engine_cpus=1023", &c), 0);
	assert_int_equal(c.nb_engine_cpus, 1);
	assert_int_equal(c.engine_cpus[0], 1023);
	assert_int_equal(roce_args_parse("ring=a,progress=hybrid,engines=2,engine_cpus=2-3", &c), 0);
	assert_int_equal(c.nb_engine_cpus, 2);
	assert_int_equal(c.engine_cpus[0], 2);
	assert_int_equal(c.engine_cpus[1], 3);
	assert_int_equal(roce_args_parse("ring=a,engines=4,engine_cpus=[5,0-1,1],"
					 "progress=thread", &c), 0);
	assert_int_equal(c.nb_engine_cpus, 4);
	assert_int_equal(c.engine_cpus[0], 5);
	assert_int_equal(c.engine_cpus[1], 0);
	assert_int_equal(c.engine_cpus[2], 1);
	assert_int_equal(c.engine_cpus[3], 1);
	for (i = 0; i < RTE_DIM(bad); i++) {
		if (roce_args_parse(bad[i], &c) != -EINVAL)
			fail_msg("\"%s\" was accepted", bad[i]);
	}
}

/* flow=: auto (the default), 0 or 1; nothing else, and once. */
static void
test_flow(void **state)
{
	static const char *const bad[] = {
		"ring=a,flow=", "ring=a,flow=2", "ring=a,flow=yes", "ring=a,flow=-1",
		"ring=a,flow=AUTO", "ring=a,flow=0,flow=1",
	};
	struct roce_cfg c;
	unsigned int i;

	(void)state;
	assert_int_equal(roce_args_parse("ring=a", &c), 0);
	assert_int_equal(c.flow, ROCE_FLOW_AUTO);
	assert_int_equal(roce_args_parse("ring=a,flow=0", &c), 0);
	assert_int_equal(c.flow, ROCE_FLOW_OFF);
	assert_int_equal(roce_args_parse("ring=a,flow=1", &c), 0);
	assert_int_equal(c.flow, ROCE_FLOW_ON);
	assert_int_equal(roce_args_parse("ring=a,flow=0,flow=auto", &c), -EINVAL);
	assert_int_equal(roce_args_parse("port=1,flow=auto", &c), 0);
	assert_int_equal(c.flow, ROCE_FLOW_AUTO);
	for (i = 0; i < RTE_DIM(bad); i++) {
		if (roce_args_parse(bad[i], &c) != -EINVAL)
			fail_msg("\"%s\" was accepted", bad[i]);
	}
}

/* rto_backoff=: 1 (the default) or 0. */
static void
test_rto_backoff(void **state)
{
	struct roce_cfg c;

	(void)state;
	assert_int_equal(roce_args_parse("ring=a", &c), 0);
	assert_int_equal(c.rto_backoff, 1);
	assert_int_equal(roce_args_parse("ring=a,rto_backoff=0", &c), 0);
	assert_int_equal(c.rto_backoff, 0);
	assert_int_equal(roce_args_parse("ring=a,rto_backoff=1", &c), 0);
	assert_int_equal(c.rto_backoff, 1);
	assert_int_equal(roce_args_parse("ring=a,rto_backoff=2", &c), -EINVAL);
	assert_int_equal(roce_args_parse("ring=a,rto_backoff=", &c), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_defaults),
		cmocka_unit_test(test_all_keys),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_max_qp),
		cmocka_unit_test(test_engine_cpus),
		cmocka_unit_test(test_flow),
		cmocka_unit_test(test_rto_backoff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
