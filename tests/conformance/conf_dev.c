/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Devices: registry, bad devargs, queries, modify, remove and re-probe. */

#include <string.h>

#include <rte_errno.h>

#include "conf.h"

static void
test_dev_list(void **state)
{
	unsigned int i, seen[2] = { 0, 0 };
	char what[96];
	uint16_t id;

	RTE_SET_USED(state);
	CONF_TRUE("prdma_dev_count", prdma_dev_count() >= 2);
	for (id = prdma_dev_next(0); id < PRDMA_MAX_DEVS; id = prdma_dev_next(id + 1)) {
		CONF_TRUE("prdma_dev_name of a listed id", prdma_dev_name(id) != NULL);
		for (i = 0; i < 2; i++)
			if (id == conf_devs[i].id)
				seen[i]++;
	}
	for (i = 0; i < 2; i++) {
		struct conf_dev *d = &conf_devs[i];
		const char *name = prdma_dev_name((uint16_t)d->id);

		snprintf(what, sizeof(what), "device %s listed by prdma_dev_next", d->devargs);
		CONF_EQ(what, 1, seen[i]);
		CONF_TRUE("prdma_dev_name", name != NULL);
		snprintf(what, sizeof(what), "prdma_dev_get_by_name(\"%s\")", name);
		CONF_EQ(what, d->id, prdma_dev_get_by_name(name));
		CONF_EQ("prdma_dev_id(open handle)", d->id, prdma_dev_id(d->dev));
		if (strcmp(d->attr.name, name) != 0)
			fail_msg("dev_query name: expected \"%s\", got \"%s\"", name,
				 d->attr.name);
		if (strcmp(d->attr.provider, d->provider) != 0)
			fail_msg("dev_query provider: expected \"%s\", got \"%s\"",
				 d->provider, d->attr.provider);
	}
	CONF_TRUE("A and B are distinct devices", CONF_A->id != CONF_B->id);
	conf_check_rc(prdma_dev_get_by_name("conf-no-such-device"), -ENODEV,
		      "prdma_dev_get_by_name(unknown)");
	CONF_TRUE("prdma_dev_name(PRDMA_MAX_DEVS) is NULL",
		  prdma_dev_name(PRDMA_MAX_DEVS) == NULL);
	CONF_TRUE("prdma_dev_open(PRDMA_MAX_DEVS) is NULL",
		  prdma_dev_open(PRDMA_MAX_DEVS) == NULL);
}

static void
test_dev_bad_devargs(void **state)
{
	struct {
		char args[128];
		int expected;
	} cases[4];
	uint16_t before = prdma_dev_count();
	unsigned int i;
	char what[256];

	RTE_SET_USED(state);
	snprintf(cases[0].args, sizeof(cases[0].args), "confnosuchprovider:x=1");
	cases[0].expected = -ENODEV;
	snprintf(cases[1].args, sizeof(cases[1].args), "%s", "");
	cases[1].expected = -EINVAL;
	snprintf(cases[2].args, sizeof(cases[2].args), "%s:conf_bogus_key=1",
		 CONF_A->provider);
	cases[2].expected = -EINVAL;
	snprintf(cases[3].args, sizeof(cases[3].args), "%s:conf_bogus", CONF_A->provider);
	cases[3].expected = -EINVAL;
	for (i = 0; i < RTE_DIM(cases); i++) {
		rte_errno = 0;
		snprintf(what, sizeof(what), "prdma_dev_probe(\"%.127s\")", cases[i].args);
		conf_check_rc(prdma_dev_probe(cases[i].args), cases[i].expected, what);
		CONF_EQ("device count after a failed probe", before, prdma_dev_count());
	}
	rte_errno = 0;
	conf_check_rc(prdma_dev_probe(NULL), -EINVAL, "prdma_dev_probe(NULL)");
}

static void
test_dev_open_close(void **state)
{
	struct prdma_dev_attr attr;
	struct prdma_dev *again;

	RTE_SET_USED(state);
	/* The group's PD is alive: the last close must refuse. */
	conf_check_rc(prdma_dev_close(CONF_A->dev), -EBUSY,
		      "prdma_dev_close with a PD alive");
	CONF_EQ("dev_query after the refused close", 0,
		prdma_dev_query(CONF_A->dev, &attr));
	conf_check_rc(prdma_dev_remove((uint16_t)CONF_A->id), -EBUSY,
		      "prdma_dev_remove of an open device");
	again = prdma_dev_open((uint16_t)CONF_A->id);
	CONF_TRUE("second prdma_dev_open returns the same handle", again == CONF_A->dev);
	/* A second reference may be dropped even with objects alive. */
	CONF_EQ("close of the second reference", 0, prdma_dev_close(again));
	conf_check_rc(prdma_dev_close(NULL), -EINVAL, "prdma_dev_close(NULL)");
}

static void
test_dev_query(void **state)
{
	unsigned int i, j;
	char what[96];

	RTE_SET_USED(state);
	for (i = 0; i < 2; i++) {
		const struct prdma_dev_attr *a = &conf_devs[i].attr;
		const struct {
			const char *name;
			uint64_t value;
		} nonzero[] = {
			{ "max_mr_size", a->max_mr_size },
			{ "max_transfer_length", a->max_transfer_length },
			{ "max_qp", a->max_qp },
			{ "max_qp_wr", a->max_qp_wr },
			{ "max_send_sge", a->max_send_sge },
			{ "max_recv_sge", a->max_recv_sge },
			{ "max_read_sge", a->max_read_sge },
			{ "max_cq", a->max_cq },
			{ "max_cqe", a->max_cqe },
			{ "max_mr", a->max_mr },
			{ "max_pd", a->max_pd },
			{ "max_ah", a->max_ah },
			{ "phys_port_cnt", a->phys_port_cnt },
			{ "node_guid", a->node_guid },
			{ "flags", a->flags },
			{ "page_size_cap", a->page_size_cap },
		};

		for (j = 0; j < RTE_DIM(nonzero); j++) {
			if (nonzero[j].value == 0)
				fail_msg("%s: dev_query %s: expected non-zero, got 0",
					 a->name, nonzero[j].name);
		}
		snprintf(what, sizeof(what), "%s: PRDMA_DEV_CAP_RC", a->name);
		CONF_TRUE(what, (a->flags & PRDMA_DEV_CAP_RC) != 0);
		if (a->flags & PRDMA_DEV_CAP_SRQ)
			CONF_TRUE("SRQ capable: max_srq and max_srq_wr",
				  a->max_srq != 0 && a->max_srq_wr != 0 &&
				  a->max_srq_sge != 0);
		if (a->flags & PRDMA_DEV_CAP_ATOMIC)
			CONF_TRUE("atomics: max_qp_rd_atom and max_qp_init_rd_atom",
				  a->max_qp_rd_atom != 0 && a->max_qp_init_rd_atom != 0);
		if (a->flags & (PRDMA_DEV_CAP_MW_TYPE1 | PRDMA_DEV_CAP_MW_TYPE2))
			CONF_TRUE("memory windows: max_mw", a->max_mw != 0);
		CONF_TRUE("max_qp_rd_atom (RC READ needs responder resources)",
			  a->max_qp_rd_atom != 0 && a->max_qp_init_rd_atom != 0);
		CONF_TRUE("transport is IB, RoCEv1 or RoCEv2",
			  a->transport <= PRDMA_TRANSPORT_ROCE_V2);
		CONF_TRUE("max_mr_size covers 1 MiB", a->max_mr_size >= (1u << 20));
	}
}

static void
test_port_query(void **state)
{
	struct prdma_port_attr pa;
	unsigned int i;

	RTE_SET_USED(state);
	for (i = 0; i < 2; i++) {
		struct conf_dev *d = &conf_devs[i];
		const struct prdma_port_attr *p = &d->port;

		CONF_EQ("port 1 state (ACTIVE)", PRDMA_PORT_ACTIVE, p->state);
		CONF_TRUE("port 1 active_mtu is a valid enum prdma_mtu",
			  prdma_mtu_bytes(p->active_mtu) != 0);
		CONF_TRUE("port 1 max_mtu is a valid enum prdma_mtu",
			  prdma_mtu_bytes(p->max_mtu) != 0);
		CONF_TRUE("port 1 active_mtu <= max_mtu", p->active_mtu <= p->max_mtu);
		CONF_TRUE("port 1 gid_tbl_len >= 1", p->gid_tbl_len >= 1);
		CONF_TRUE("port 1 max_msg_sz >= 1 MiB", p->max_msg_sz >= (1u << 20));
		CONF_TRUE("port 1 link_layer",
			  p->link_layer == PRDMA_LINK_LAYER_ETHERNET ||
			  p->link_layer == PRDMA_LINK_LAYER_INFINIBAND);
		if (p->link_layer == PRDMA_LINK_LAYER_ETHERNET)
			CONF_TRUE("Ethernet port has a MAC",
				  !rte_is_zero_ether_addr(&p->mac));
		conf_check_rc(prdma_port_query(d->dev, 0, &pa), -EINVAL,
			      "prdma_port_query(port 0)");
		conf_check_rc(prdma_port_query(d->dev, d->attr.phys_port_cnt + 1, &pa),
			      -EINVAL, "prdma_port_query(phys_port_cnt + 1)");
	}
}

static void
test_gid_query(void **state)
{
	static const union prdma_gid zero;
	union prdma_gid g;
	unsigned int i;
	int ret;

	RTE_SET_USED(state);
	for (i = 0; i < 2; i++) {
		struct conf_dev *d = &conf_devs[i];

		CONF_TRUE("GID index 0 is set", memcmp(&d->gid, &zero, sizeof(zero)) != 0);
		ret = prdma_gid_query(d->dev, 1, d->port.gid_tbl_len, &g);
		if (ret >= 0)
			fail_msg("gid_query(index gid_tbl_len = %u): expected an error, got %d",
				 d->port.gid_tbl_len, ret);
		CONF_TRUE("rte_errno set by the refused gid_query", rte_errno == -ret);
		conf_check_rc(prdma_gid_query(d->dev, 0, 0, &g), -EINVAL,
			      "prdma_gid_query(port 0)");
	}
	CONF_TRUE("A and B have different GIDs",
		  memcmp(&CONF_A->gid, &CONF_B->gid, sizeof(CONF_A->gid)) != 0);
}

static void
test_dev_modify_node_desc(void **state)
{
	struct prdma_dev_modify_attr m, saved;
	struct prdma_dev_attr a;
	struct conf_dev *d = CONF_A;
	int ret;

	RTE_SET_USED(state);
	memset(&m, 0, sizeof(m));
	snprintf(m.node_desc, sizeof(m.node_desc), "prdma conformance node");
	ret = prdma_dev_modify(d->dev, PRDMA_DEV_MODIFY_NODE_DESC, &m);
	if ((d->attr.flags & PRDMA_DEV_CAP_NODE_DESC_MODIFY) == 0) {
		conf_check_rc(ret, -ENOTSUP, "dev_modify node_desc without the capability");
		return;
	}
	conf_check_rc(ret, 0, "dev_modify(NODE_DESC)");
	CONF_EQ("dev_query after modify", 0, prdma_dev_query(d->dev, &a));
	if (strcmp(a.node_desc, m.node_desc) != 0)
		fail_msg("node_desc: expected \"%s\", got \"%s\"", m.node_desc, a.node_desc);

	memset(&saved, 0, sizeof(saved));
	memcpy(saved.node_desc, d->attr.node_desc, sizeof(saved.node_desc));
	saved.node_desc[sizeof(saved.node_desc) - 1] = '\0';
	conf_check_rc(prdma_dev_modify(d->dev, PRDMA_DEV_MODIFY_NODE_DESC, &saved), 0,
		      "dev_modify restoring node_desc");
	CONF_EQ("dev_query after restore", 0, prdma_dev_query(d->dev, &a));
	if (strcmp(a.node_desc, saved.node_desc) != 0)
		fail_msg("restored node_desc: expected \"%s\", got \"%s\"",
			 saved.node_desc, a.node_desc);

	memset(m.node_desc, 'x', sizeof(m.node_desc));
	conf_check_rc(prdma_dev_modify(d->dev, PRDMA_DEV_MODIFY_NODE_DESC, &m), -EINVAL,
		      "dev_modify with an unterminated node_desc");
	memset(&m, 0, sizeof(m));
	m.comp_mask = 1;
	conf_check_rc(prdma_dev_modify(d->dev, PRDMA_DEV_MODIFY_NODE_DESC, &m), -EINVAL,
		      "dev_modify with comp_mask != 0");
	conf_check_rc(prdma_dev_modify(d->dev, RTE_BIT32(7), &saved), -EINVAL,
		      "dev_modify with an unknown mask bit");
}

static void
test_port_modify(void **state)
{
	const uint32_t flag = PRDMA_PORT_CAP_CM_SUP;
	struct conf_dev *d = CONF_A;
	struct prdma_port_attr p;
	uint32_t had;
	int ret;

	RTE_SET_USED(state);
	conf_check_rc(prdma_port_modify(d->dev, 1, flag, flag), -EINVAL,
		      "port_modify setting and clearing the same flag");
	conf_check_rc(prdma_port_modify(d->dev, 0, flag, 0), -EINVAL,
		      "port_modify(port 0)");
	had = d->port.port_cap_flags & flag;
	ret = prdma_port_modify(d->dev, 1, had ? 0 : flag, had ? flag : 0);
	if ((d->attr.flags & PRDMA_DEV_CAP_PORT_MODIFY) == 0) {
		conf_check_rc(ret, -ENOTSUP, "port_modify without the capability");
		return;
	}
	conf_check_rc(ret, 0, "port_modify toggling CM_SUP");
	CONF_EQ("port_query after modify", 0, prdma_port_query(d->dev, 1, &p));
	CONF_EQ("CM_SUP after toggling", had ^ flag, p.port_cap_flags & flag);
	conf_check_rc(prdma_port_modify(d->dev, 1, had, had ? 0 : flag), 0,
		      "port_modify restoring CM_SUP");
	CONF_EQ("port_query after restore", 0, prdma_port_query(d->dev, 1, &p));
	CONF_EQ("CM_SUP restored", had, p.port_cap_flags & flag);
}

/* Runs last in the group: the devices leave and come back. */
static void
test_dev_remove_reprobe(void **state)
{
	unsigned int i;
	int ret;

	RTE_SET_USED(state);
	for (i = 0; i < 2; i++) {
		struct conf_dev *d = &conf_devs[i];
		uint16_t before;

		CONF_EQ("prdma_pd_free(group PD)", 0, prdma_pd_free(d->pd));
		d->pd = NULL;
		CONF_EQ("prdma_dev_close", 0, prdma_dev_close(d->dev));
		d->dev = NULL;
		before = prdma_dev_count();
		CONF_EQ("prdma_dev_remove", 0, prdma_dev_remove((uint16_t)d->id));
		CONF_EQ("device count after remove", before - 1, prdma_dev_count());
		CONF_TRUE("prdma_dev_name of a removed id is NULL",
			  prdma_dev_name((uint16_t)d->id) == NULL);
		CONF_TRUE("prdma_dev_open of a removed id fails",
			  prdma_dev_open((uint16_t)d->id) == NULL);
		conf_check_rc(prdma_dev_remove((uint16_t)d->id), -ENODEV,
			      "second prdma_dev_remove");
		d->id = -1;
	}
	for (i = 0; i < 2; i++) {
		struct conf_dev *d = &conf_devs[i];

		ret = prdma_dev_probe(d->devargs);
		if (ret < 0)
			fail_msg("re-probe \"%s\" after remove: expected an id, got %d (%s)",
				 d->devargs, ret, rte_strerror(-ret));
		d->id = ret;
		d->dev = prdma_dev_open((uint16_t)ret);
		CONF_TRUE("open after re-probe", d->dev != NULL);
		d->pd = prdma_pd_alloc(d->dev);
		CONF_TRUE("PD after re-probe", d->pd != NULL);
		CONF_EQ("gid_query after re-probe", 0, prdma_gid_query(d->dev, 1, 0, &d->gid));
	}
}

int
conf_group_dev(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dev_list),
		cmocka_unit_test(test_dev_bad_devargs),
		cmocka_unit_test(test_dev_open_close),
		cmocka_unit_test(test_dev_query),
		cmocka_unit_test(test_port_query),
		cmocka_unit_test(test_gid_query),
		cmocka_unit_test(test_dev_modify_node_desc),
		cmocka_unit_test(test_port_modify),
		cmocka_unit_test(test_dev_remove_reprobe),
	};

	return cmocka_run_group_tests_name("devices", tests, conf_group_setup,
					   conf_group_teardown);
}
