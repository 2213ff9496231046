/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The device registry, driven by a tiny provider registered by this test:
 * probe/list/remove, devargs errors, name clashes, -EBUSY while open or
 * while objects live, -ENOTSUP defaults for ops the provider leaves NULL,
 * fast-path dummies and the asynchronous event queue.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_errno.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>

#include <prdma_provider.h>

#include "t_eal.h"

#define FAKE "conffake"

static unsigned int fake_removed;
static unsigned int fake_cqs;

static void
fake_dev_remove(struct prdma_dev *dev)
{
	RTE_SET_USED(dev);
	fake_removed++;
}

static int
fake_dev_query(struct prdma_dev *dev, struct prdma_dev_attr *attr)
{
	RTE_SET_USED(dev);
	attr->phys_port_cnt = 1;
	attr->max_cqe = 64;
	attr->max_qp_wr = 16;
	attr->max_send_sge = 2;
	attr->max_recv_sge = 2;
	attr->max_pd = 4;
	return 0;
}

static int
fake_port_query(struct prdma_dev *dev, uint8_t port, struct prdma_port_attr *attr)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(port);
	attr->state = PRDMA_PORT_ACTIVE;
	attr->active_mtu = PRDMA_MTU_1024;
	return 0;
}

static int
fake_gid_query(struct prdma_dev *dev, uint8_t port, uint32_t index, union prdma_gid *gid)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(port);
	if (index != 0)
		return -ENOENT;
	prdma_gid_from_ipv4(gid, 0xc0000201);
	return 0;
}

static int
fake_cq_create(struct prdma_cq *cq, const struct prdma_cq_init_attr *attr)
{
	cq->cqe = attr->cqe;
	fake_cqs++;
	return 0;
}

static int
fake_cq_destroy(struct prdma_cq *cq)
{
	RTE_SET_USED(cq);
	fake_cqs--;
	return 0;
}

/* Everything else is left NULL on purpose: the library fills -ENOTSUP. */
static const struct prdma_dev_ops fake_ops = {
	.dev_remove = fake_dev_remove,
	.dev_query = fake_dev_query,
	.port_query = fake_port_query,
	.gid_query = fake_gid_query,
	.cq_create = fake_cq_create,
	.cq_destroy = fake_cq_destroy,
};

static int
fake_probe(struct prdma_dev *dev, const char *args)
{
	static const char *const keys[] = { "name", "fail", "noops", NULL };
	struct rte_kvargs *kv;
	const char *v;
	int ret = 0;

	kv = prdma_args_parse(FAKE, args, keys);
	if (kv == NULL)
		return -EINVAL;
	if (rte_kvargs_count(kv, "fail") != 0) {
		ret = -EIO;
		goto out;
	}
	if (rte_kvargs_count(kv, "name") == 1) {
		v = rte_kvargs_get(kv, "name");
		snprintf(dev->name, sizeof(dev->name), "%s", v != NULL ? v : "");
	}
	if (rte_kvargs_count(kv, "noops") == 0)
		dev->ops = &fake_ops;
	dev->obj_size.pd = sizeof(struct prdma_pd);
	dev->obj_size.mr = sizeof(struct prdma_mr);
	dev->obj_size.mw = sizeof(struct prdma_mw);
	dev->obj_size.cq = sizeof(struct prdma_cq);
	dev->obj_size.srq = sizeof(struct prdma_srq);
	dev->obj_size.qp = sizeof(struct prdma_qp);
	dev->obj_size.ah = sizeof(struct prdma_ah);
out:
	rte_kvargs_free(kv);
	return ret;
}

static struct prdma_provider fake_provider = {
	.name = FAKE,
	.params = "name=<string>,fail=<any>,noops=<any>",
	.probe = fake_probe,
};

PRDMA_PROVIDER_REGISTER(fake_provider);

static int
group_setup(void **state)
{
	RTE_SET_USED(state);
	return t_eal_init() < 0 ? -1 : 0;
}

static int
probe_ok(const char *args)
{
	int id = prdma_dev_probe(args);

	if (id < 0)
		fail_msg("probe(\"%s\"): expected an id, got %d", args, id);
	return id;
}

static void
check_err(int got, int expected, const char *what)
{
	if (got != expected)
		fail_msg("%s: expected %d, got %d", what, expected, got);
	if (rte_errno != -expected)
		fail_msg("%s: expected rte_errno %d, got %d", what, -expected, rte_errno);
}

static void
test_probe_list_remove(void **state)
{
	uint16_t before = prdma_dev_count(), next;
	struct prdma_dev_attr attr;
	struct prdma_dev *dev;
	unsigned int removed = fake_removed;
	const char *name;
	int id;

	RTE_SET_USED(state);
	id = probe_ok(FAKE ":");
	assert_int_equal(prdma_dev_count(), before + 1);
	name = prdma_dev_name(id);
	assert_non_null(name);
	assert_memory_equal(name, FAKE, strlen(FAKE));
	assert_int_equal(prdma_dev_get_by_name(name), id);
	next = prdma_dev_next(0);
	while (next < PRDMA_MAX_DEVS && next != id)
		next = prdma_dev_next(next + 1);
	assert_int_equal(next, id);

	dev = prdma_dev_open(id);
	assert_non_null(dev);
	assert_int_equal(prdma_dev_id(dev), id);
	assert_int_equal(prdma_dev_query(dev, &attr), 0);
	assert_string_equal(attr.name, name);
	assert_string_equal(attr.provider, FAKE);
	assert_int_equal(attr.phys_port_cnt, 1);
	assert_int_equal(prdma_dev_close(dev), 0);

	assert_int_equal(prdma_dev_remove(id), 0);
	assert_int_equal(fake_removed, removed + 1);
	assert_int_equal(prdma_dev_count(), before);
	assert_null(prdma_dev_name(id));
	assert_null(prdma_dev_open(id));
	assert_int_equal(rte_errno, ENODEV);
	check_err(prdma_dev_remove(id), -ENODEV, "second remove");
	check_err(prdma_dev_remove(PRDMA_MAX_DEVS), -ENODEV, "remove of an invalid id");
	check_err(prdma_dev_get_by_name(name), -ENODEV, "get_by_name after remove");
}

static void
test_probe_errors(void **state)
{
	static const struct {
		const char *args;
		int ret;
	} cases[] = {
		{ "", -EINVAL },
		{ "nosuchprovider:x=1", -ENODEV },
		{ "nosuchprovider", -ENODEV },
		{ FAKE "x:", -ENODEV },
		{ FAKE ":bogus=1", -EINVAL },
		{ FAKE ":name=a,bogus", -EINVAL },
		{ FAKE ":fail=1", -EIO },
		{ FAKE ":noops=1", -EPROTO },
	};
	uint16_t before = prdma_dev_count();
	unsigned int i;
	char what[96];

	RTE_SET_USED(state);
	for (i = 0; i < RTE_DIM(cases); i++) {
		rte_errno = 0;
		snprintf(what, sizeof(what), "probe(\"%s\")", cases[i].args);
		check_err(prdma_dev_probe(cases[i].args), cases[i].ret, what);
		assert_int_equal(prdma_dev_count(), before);
	}
	rte_errno = 0;
	check_err(prdma_dev_probe(NULL), -EINVAL, "probe(NULL)");
	check_err(prdma_dev_get_by_name(NULL), -EINVAL, "get_by_name(NULL)");
}

static void
test_name_clash(void **state)
{
	unsigned int removed;
	int id, id2;

	RTE_SET_USED(state);
	id = probe_ok(FAKE ":name=dup");
	assert_string_equal(prdma_dev_name(id), "dup");
	removed = fake_removed;
	check_err(prdma_dev_probe(FAKE ":name=dup"), -EEXIST, "second device named dup");
	/* The refused device's probe was undone. */
	assert_int_equal(fake_removed, removed + 1);
	/* Default names never clash. */
	id2 = probe_ok(FAKE ":");
	assert_int_not_equal(id, id2);
	assert_string_not_equal(prdma_dev_name(id), prdma_dev_name(id2));
	assert_int_equal(prdma_dev_remove(id2), 0);
	assert_int_equal(prdma_dev_remove(id), 0);
}

static void
test_remove_busy(void **state)
{
	struct prdma_dev *d1, *d2;
	int id;

	RTE_SET_USED(state);
	id = probe_ok(FAKE ":");
	d1 = prdma_dev_open(id);
	d2 = prdma_dev_open(id);
	assert_non_null(d1);
	assert_ptr_equal(d1, d2);
	check_err(prdma_dev_remove(id), -EBUSY, "remove while open twice");
	assert_int_equal(prdma_dev_close(d2), 0);
	check_err(prdma_dev_remove(id), -EBUSY, "remove while open once");
	assert_int_equal(prdma_dev_close(d1), 0);
	check_err(prdma_dev_close(d1), -EINVAL, "close of a closed device");
	check_err(prdma_dev_close(NULL), -EINVAL, "close(NULL)");
	assert_int_equal(prdma_dev_remove(id), 0);
}

static void
test_objects_counted(void **state)
{
	struct prdma_cq_init_attr ca;
	struct prdma_dev *dev;
	struct prdma_cq *cq;
	struct prdma_pd *pd;
	int id;

	RTE_SET_USED(state);
	id = probe_ok(FAKE ":");
	dev = prdma_dev_open(id);
	assert_non_null(dev);
	pd = prdma_pd_alloc(dev);
	assert_non_null(pd);
	check_err(prdma_dev_close(dev), -EBUSY, "close with a PD alive");
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 8;
	cq = prdma_cq_create(dev, &ca);
	assert_non_null(cq);
	assert_int_equal(fake_cqs, 1);
	assert_int_equal(cq->event_fd, -1);
	assert_int_equal(prdma_pd_free(pd), 0);
	check_err(prdma_dev_close(dev), -EBUSY, "close with a CQ alive");
	check_err(prdma_dev_remove(id), -EBUSY, "remove with a CQ alive");
	assert_int_equal(prdma_cq_destroy(cq), 0);
	assert_int_equal(fake_cqs, 0);
	assert_int_equal(prdma_dev_close(dev), 0);
	assert_int_equal(prdma_dev_remove(id), 0);
}

static void
test_enotsup_defaults(void **state)
{
	struct prdma_dev_modify_attr dm;
	struct prdma_srq_init_attr sa;
	struct prdma_qp_init_attr qa;
	struct prdma_cq_init_attr ca;
	struct prdma_ah_attr aa;
	struct prdma_port_attr pa;
	union prdma_gid gid;
	struct prdma_dev *dev;
	struct prdma_wc wc;
	struct prdma_cq *cq;
	struct prdma_pd *pd;
	void *mem;
	int id;

	RTE_SET_USED(state);
	id = probe_ok(FAKE ":");
	dev = prdma_dev_open(id);
	assert_non_null(dev);
	pd = prdma_pd_alloc(dev);
	assert_non_null(pd);
	mem = rte_zmalloc("t", 4096, 64);
	assert_non_null(mem);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 8;
	cq = prdma_cq_create(dev, &ca);
	assert_non_null(cq);

	rte_errno = 0;
	assert_null(prdma_mr_reg(pd, mem, 4096, PRDMA_ACCESS_LOCAL_WRITE));
	assert_int_equal(rte_errno, ENOTSUP);
	rte_errno = 0;
	assert_null(prdma_mr_get_dma(pd, PRDMA_ACCESS_LOCAL_WRITE));
	assert_int_equal(rte_errno, ENOTSUP);
	rte_errno = 0;
	assert_null(prdma_mw_alloc(pd, PRDMA_MW_TYPE_2));
	assert_int_equal(rte_errno, ENOTSUP);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 4;
	sa.attr.max_sge = 1;
	rte_errno = 0;
	assert_null(prdma_srq_create(pd, &sa));
	assert_int_equal(rte_errno, ENOTSUP);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_RC;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	rte_errno = 0;
	assert_null(prdma_qp_create(pd, &qa));
	assert_int_equal(rte_errno, ENOTSUP);
	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	rte_errno = 0;
	assert_null(prdma_ah_create(pd, &aa));
	assert_int_equal(rte_errno, ENOTSUP);
	memset(&dm, 0, sizeof(dm));
	check_err(prdma_dev_modify(dev, PRDMA_DEV_MODIFY_NODE_DESC, &dm), -ENOTSUP,
		  "dev_modify");
	check_err(prdma_port_modify(dev, 1, PRDMA_PORT_CAP_CM_SUP, 0), -ENOTSUP,
		  "port_modify");
	check_err(prdma_cq_resize(cq, 16), -ENOTSUP, "cq_resize");
	check_err(prdma_cq_arm(cq, PRDMA_CQ_ARM_NEXT), -ENOTSUP, "cq_arm");
	check_err(prdma_cq_arm_n(cq, 2), -ENOTSUP, "cq_arm_n");
	assert_int_equal(prdma_dev_progress(dev), 0);
	/* Failed creations left nothing behind. */
	assert_int_equal(pd->users, 0);

	/* The provider installed no fast path: dummies answer. */
	rte_errno = 0;
	assert_int_equal(prdma_cq_poll(cq, 1, &wc), 0);
	assert_int_equal(rte_errno, ENODEV);
	assert_int_equal(prdma_cq_peek(cq), 0);

	/* Ports and GIDs go through the provider, with the port checked. */
	assert_int_equal(prdma_port_query(dev, 1, &pa), 0);
	assert_int_equal(pa.state, PRDMA_PORT_ACTIVE);
	check_err(prdma_port_query(dev, 0, &pa), -EINVAL, "port_query(0)");
	check_err(prdma_port_query(dev, 2, &pa), -EINVAL, "port_query(2)");
	assert_int_equal(prdma_gid_query(dev, 1, 0, &gid), 0);
	check_err(prdma_gid_query(dev, 1, 1, &gid), -ENOENT, "gid_query(index 1)");

	assert_int_equal(prdma_cq_destroy(cq), 0);
	assert_int_equal(prdma_pd_free(pd), 0);
	rte_free(mem);
	assert_int_equal(prdma_dev_close(dev), 0);
	assert_int_equal(prdma_dev_remove(id), 0);
}

static unsigned int cb_calls;
static enum prdma_event_type cb_last;

static void
event_cb(struct prdma_dev *dev, const struct prdma_async_event *event, void *arg)
{
	RTE_SET_USED(dev);
	assert_ptr_equal(arg, &cb_calls);
	cb_calls++;
	cb_last = event->type;
}

static void
test_events(void **state)
{
	struct prdma_async_event ev, got;
	struct prdma_dev *dev;
	unsigned int i;
	int id;

	RTE_SET_USED(state);
	id = probe_ok(FAKE ":");
	dev = prdma_dev_open(id);
	assert_non_null(dev);
	assert_int_equal(prdma_event_get(dev, &got), 0);
	assert_int_equal(prdma_event_callback_register(dev, event_cb, &cb_calls), 0);
	memset(&ev, 0, sizeof(ev));
	ev.type = PRDMA_EVENT_PORT_ACTIVE;
	ev.element.port_num = 1;
	prdma_dev_raise_event(dev, &ev);
	assert_int_equal(cb_calls, 1);
	assert_int_equal(cb_last, PRDMA_EVENT_PORT_ACTIVE);
	assert_int_equal(prdma_event_get(dev, &got), 1);
	assert_int_equal(got.type, PRDMA_EVENT_PORT_ACTIVE);
	assert_int_equal(got.element.port_num, 1);
	assert_int_equal(prdma_event_get(dev, &got), 0);

	/* Unregistered: still queued; a full queue counts what it drops. */
	assert_int_equal(prdma_event_callback_register(dev, NULL, NULL), 0);
	for (i = 0; i < PRDMA_EVENT_QUEUE_LEN + 3; i++) {
		ev.type = (enum prdma_event_type)(i % PRDMA_EVENT_MAX);
		ev.qp_num = i;
		prdma_dev_raise_event(dev, &ev);
	}
	assert_int_equal(cb_calls, 1);
	assert_int_equal(prdma_event_lost(dev), 3);
	for (i = 0; i < PRDMA_EVENT_QUEUE_LEN; i++) {
		assert_int_equal(prdma_event_get(dev, &got), 1);
		assert_int_equal(got.qp_num, i);
	}
	assert_int_equal(prdma_event_get(dev, &got), 0);
	check_err(prdma_event_get(NULL, &got), -EINVAL, "event_get(NULL)");
	assert_int_equal(prdma_dev_close(dev), 0);
	assert_int_equal(prdma_dev_remove(id), 0);
}

static void
test_table_full(void **state)
{
	int ids[PRDMA_MAX_DEVS];
	unsigned int n = 0, i;
	int ret, err;

	RTE_SET_USED(state);
	while (prdma_dev_count() < PRDMA_MAX_DEVS)
		ids[n++] = probe_ok(FAKE ":");
	rte_errno = 0;
	ret = prdma_dev_probe(FAKE ":");
	err = rte_errno;
	for (i = 0; i < n; i++)
		assert_int_equal(prdma_dev_remove(ids[i]), 0);
	assert_int_equal(ret, -ENOSPC);
	assert_int_equal(err, ENOSPC);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_list_remove),
		cmocka_unit_test(test_probe_errors),
		cmocka_unit_test(test_name_clash),
		cmocka_unit_test(test_remove_busy),
		cmocka_unit_test(test_objects_counted),
		cmocka_unit_test(test_enotsup_defaults),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_table_full),
	};

	return cmocka_run_group_tests_name("registry", tests, group_setup, NULL);
}
