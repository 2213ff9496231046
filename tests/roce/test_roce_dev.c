/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Probing with devargs (valid and invalid) and what the device reports. */

#include <string.h>

#include <rte_ethdev.h>

#include "roce.h"
#include "t_roce.h"

static void
test_probe_devargs(void **state)
{
	static const char *const bad[] = {
		"roce:",
		"roce:ring=d1,side=2",
		"roce:ring=d1,bogus=1",
		"roce:ring=d1,mtu=1000",
		"roce:ring=d1,ip=1.2.3",
		"roce:ring=d1,progress=never",
		"roce:port=0,ring=d1",
	};
	int a, b, i, ret;

	(void)state;
	assert_int_equal(t_eal_init(), 0);
	for (i = 0; i < (int)RTE_DIM(bad); i++) {
		ret = prdma_dev_probe(bad[i]);
		if (ret != -EINVAL)
			fail_msg("%s: %d, expected -EINVAL", bad[i], ret);
	}
	/* Port mode: the port must exist, and an address is required. */
	assert_int_equal(prdma_dev_probe("roce:port=30,ip=10.0.0.1"), -ENODEV);
	a = prdma_dev_probe("roce:ring=d1,side=0,name=left,mtu=1024,burst=8");
	assert_true(a >= 0);
	assert_string_equal(prdma_dev_name((uint16_t)a), "left");
	/* The same side twice is refused; the other side joins. */
	assert_int_equal(prdma_dev_probe("roce:ring=d1,side=0"), -EEXIST);
	b = prdma_dev_probe("roce:ring=d1,side=1,ip=192.0.2.77");
	assert_true(b >= 0);
	{
		struct prdma_dev *d = prdma_dev_open((uint16_t)a);
		char args[64];

		/* An existing port without ip= is refused. */
		snprintf(args, sizeof(args), "roce:port=%u", roce_dev_of(d)->port_id);
		assert_int_equal(prdma_dev_probe(args), -EINVAL);
		assert_int_equal(prdma_dev_close(d), 0);
	}
	{
		struct prdma_dev *d = prdma_dev_open((uint16_t)b);
		union prdma_gid g;
		char str[64];

		assert_int_equal(prdma_gid_query(d, 1, 0, &g), 0);
		prdma_gid_to_str(&g, str, sizeof(str));
		assert_non_null(strstr(str, "192.0.2.77"));
		assert_int_equal(prdma_gid_query(d, 1, 1, &g), -ENOENT);
		assert_int_equal(prdma_dev_close(d), 0);
	}
	{
		struct prdma_dev *d = prdma_dev_open((uint16_t)a);
		struct prdma_port_attr pa;

		assert_int_equal(prdma_port_query(d, 1, &pa), 0);
		assert_int_equal(pa.active_mtu, PRDMA_MTU_1024);
		assert_int_equal(pa.max_mtu, PRDMA_MTU_4096);
		assert_int_equal(prdma_dev_close(d), 0);
	}
	assert_int_equal(prdma_dev_remove((uint16_t)a), 0);
	assert_int_equal(prdma_dev_remove((uint16_t)b), 0);
	/* The link is gone with its last side: a new one can take the name. */
	a = prdma_dev_probe("roce:ring=d1,side=1");
	assert_true(a >= 0);
	assert_int_equal(prdma_dev_remove((uint16_t)a), 0);
}

static void
test_query(void **state)
{
	struct prdma_dev_attr da;
	struct prdma_port_attr pa;
	struct t_side s[2];
	union prdma_gid g;
	char str[64];

	(void)state;
	t_pair_open(s, "roce:ring=d2,side=0", "roce:ring=d2,side=1");
	assert_int_equal(prdma_dev_query(s[0].dev, &da), 0);
	assert_string_equal(da.provider, "roce");
	assert_int_equal(da.transport, PRDMA_TRANSPORT_ROCE_V2);
	assert_int_equal(da.phys_port_cnt, 1);
	assert_int_equal(da.max_caller_data, 56);
	assert_int_equal(da.max_callee_data, 196);
	assert_int_equal(da.max_send_sge, ROCE_MAX_SGE);
	assert_int_equal(da.max_qp_rd_atom, ROCE_MAX_RD_ATOMIC);
	/* perftest's initiator depth is the peer's responder resources
	 * (rxe: 128): accepted at RTS (tests/interop, read_lat against rxe). */
	assert_int_equal(da.max_qp_init_rd_atom, ROCE_MAX_INIT_RD_ATOMIC);
	assert_true(da.max_qp_init_rd_atom >= 128);
	assert_int_equal(da.max_transfer_length, 1u << 31);
	assert_true(da.node_guid != 0);
	assert_true((da.flags & (PRDMA_DEV_CAP_RC | PRDMA_DEV_CAP_UC | PRDMA_DEV_CAP_UD |
				 PRDMA_DEV_CAP_SRQ | PRDMA_DEV_CAP_MW_TYPE1 |
				 PRDMA_DEV_CAP_MW_TYPE2 | PRDMA_DEV_CAP_ATOMIC |
				 PRDMA_DEV_CAP_SEND_INV | PRDMA_DEV_CAP_CQ_RESIZE |
				 PRDMA_DEV_CAP_LOOPBACK_CONN | PRDMA_DEV_CAP_IN_ORDER_DMA)) ==
		    (PRDMA_DEV_CAP_RC | PRDMA_DEV_CAP_UC | PRDMA_DEV_CAP_UD |
		     PRDMA_DEV_CAP_SRQ | PRDMA_DEV_CAP_MW_TYPE1 | PRDMA_DEV_CAP_MW_TYPE2 |
		     PRDMA_DEV_CAP_ATOMIC | PRDMA_DEV_CAP_SEND_INV |
		     PRDMA_DEV_CAP_CQ_RESIZE | PRDMA_DEV_CAP_LOOPBACK_CONN |
		     PRDMA_DEV_CAP_IN_ORDER_DMA));
	assert_int_equal(prdma_port_query(s[0].dev, 1, &pa), 0);
	assert_int_equal(pa.state, PRDMA_PORT_ACTIVE);
	assert_int_equal(pa.active_mtu, PRDMA_MTU_4096);
	assert_int_equal(pa.link_layer, PRDMA_LINK_LAYER_ETHERNET);
	assert_int_equal(pa.gid_tbl_len, 1);
	assert_int_equal(pa.max_msg_sz, 1u << 31);
	assert_true(pa.link_speed_mbps > 0);
	/* Locally administered MACs, different per side. */
	assert_true(pa.mac.addr_bytes[0] & 2);
	assert_false(rte_is_same_ether_addr(&s[0].mac, &s[1].mac));
	assert_int_equal(prdma_gid_query(s[0].dev, 1, 0, &g), 0);
	prdma_gid_to_str(&g, str, sizeof(str));
	assert_non_null(strstr(str, "192.0.2.1"));
	assert_int_equal(prdma_gid_query(s[1].dev, 1, 0, &g), 0);
	prdma_gid_to_str(&g, str, sizeof(str));
	assert_non_null(strstr(str, "192.0.2.2"));
	t_pair_close(s);
}

/* Two devices on IPv6 addresses: IPv6 framing end to end. */
static void
test_ipv6(void **state)
{
	struct t_side s[2];
	struct prdma_wc wc;

	(void)state;
	t_pair_open(s, "roce:ring=d3,side=0,ip=fd00::1", "roce:ring=d3,side=1,ip=fd00::2");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	t_pattern_fill(s[0].buf, 3000, 11);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 3000,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 1), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_pattern_check(s[1].buf, 3000, 11), -1);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_READ, 8192, 3000,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 2), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_pattern_check(s[0].buf + 8192, 3000, 11), -1);
	t_pair_close(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_devargs),
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_ipv6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
