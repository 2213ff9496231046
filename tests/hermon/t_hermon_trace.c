/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * What the PMD tells the device, checked against what the drivers that run
 * on a ConnectX-3 tell it: the model's trace of firmware commands and
 * doorbells for bring-up, a QP connect and teardown, compared with the
 * sequences written as data in tests/data/hermon/ (their order and fields
 * come from Linux mlx4_core/mlx4_ib and iPXE hermon.c; each file names the
 * reference per step). And the bring-up cases where a card would stop the
 * old PMD: ports that sense nothing, fixed-type ports, QUERY_ADAPTER before
 * INIT_HCA, a device with a tiny MTT table.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include <prdma.h>

#include "t_eal.h"
#include "t_hermon_trace_match.h"
#include "hermon_model.h"
#include "hermon_regs.h"

#define T_MAX_EV 4096
#define T_MAX_STEPS 128

static struct hermon_model_trace_ev ev[T_MAX_EV];

static struct hermon_model *
model(const char *name, uint8_t ports, uint8_t port_types, bool link_down)
{
	struct hermon_model_conf c = {
		.name = name, .ports = ports, .port_types = port_types,
		.link_down = link_down,
	};
	struct hermon_model *m = hermon_model_create(&c);

	assert_non_null(m);
	return m;
}

static int
probe(const char *name)
{
	char args[96];

	snprintf(args, sizeof(args), "hermon:model,name=%s", name);
	return prdma_dev_probe(args);
}

/* Events [first, end) of @m's trace into ev; returns their number. */
static unsigned int
trace_get(struct hermon_model *m, uint32_t first, bool with_db)
{
	struct hermon_model_trace_ev tmp[64];
	uint32_t total, lost, got, i, n = 0;

	do {
		got = hermon_model_trace_read(m, first, tmp, RTE_DIM(tmp), &total, &lost);
		for (i = 0; i < got; i++)
			if ((with_db || tmp[i].kind != HERMON_MODEL_TRACE_DB) && n < T_MAX_EV)
				ev[n++] = tmp[i];
		first += got;
	} while (got != 0);
	assert_int_equal(lost, 0);
	return n;
}

static void
expect(const char *file, unsigned int n)
{
	static struct t_tr_step steps[T_MAX_STEPS];
	char path[512];
	int ns;
	unsigned int i;

	snprintf(path, sizeof(path), "%s/%s", T_TRACE_DIR, file);
	ns = t_tr_load(path, steps, T_MAX_STEPS);
	assert_true(ns > 0);
	if (t_tr_match(steps, (unsigned int)ns, ev, n) != 0) {
		fprintf(stderr, "--- the PMD's trace (%u events):\n", n);
		for (i = 0; i < n; i++)
			t_tr_print(stderr, &ev[i]);
		fail_msg("%s: the PMD's sequence differs from the reference", file);
	}
}

static uint32_t
trace_total(struct hermon_model *m)
{
	uint32_t total;

	hermon_model_trace_read(m, 0, ev, 0, &total, NULL);
	return total;
}

/*
 * Bring-up and teardown of a dual-port Ethernet card, against the Linux
 * order (F2: QUERY_ADAPTER after INIT_HCA; F1: QUERY_PORT before sensing).
 */
static void
test_bringup_teardown_trace(void **state)
{
	struct hermon_model *m = model("trb", 2, 0, false);
	uint32_t up;
	int id;

	(void)state;
	assert_int_equal(hermon_model_trace_start(m, 1u << 16), 0);
	id = probe("trb");
	assert_true(id >= 0);
	up = trace_total(m);
	expect("bringup.trace", trace_get(m, 0, false));
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	hermon_model_trace_stop(m);
	{
		struct hermon_model_trace_ev tmp[64];
		uint32_t total, got, i, n = 0, first = up;

		do {
			got = hermon_model_trace_read(m, first, tmp, RTE_DIM(tmp),
						      &total, NULL);
			for (i = 0; i < got; i++)
				if (tmp[i].kind != HERMON_MODEL_TRACE_DB)
					ev[n++] = tmp[i];
			first += got;
		} while (got != 0);
		expect("teardown.trace", n);
	}
	hermon_model_put(m);
}

/* F1: an uncabled port (SENSE_PORT answers none) does not stop the probe. */
static void
test_sense_none_probe(void **state)
{
	struct hermon_model *m = model("trn", 2, 0, true);
	struct prdma_port_attr pa;
	struct prdma_dev *dev;
	int id;

	(void)state;
	id = probe("trn");
	assert_true(id >= 0);
	dev = prdma_dev_open((uint16_t)id);
	assert_non_null(dev);
	assert_int_equal(prdma_port_query(dev, 1, &pa), 0);
	/* the model suggests Ethernet; no link, so the port is down */
	assert_int_equal(pa.link_layer, PRDMA_LINK_LAYER_ETHERNET);
	assert_int_equal(pa.state, PRDMA_PORT_DOWN);
	prdma_dev_close(dev);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	hermon_model_put(m);
}

/* F1: a fixed-type (IB-only) port is not sensed; its type is the one it has. */
static void
test_fixed_type_not_sensed(void **state)
{
	struct hermon_model *m = model("trf", 1, 1, false);
	struct prdma_port_attr pa;
	struct prdma_dev *dev;
	unsigned int n, i;
	int id;

	(void)state;
	assert_int_equal(hermon_model_trace_start(m, 1u << 16), 0);
	id = probe("trf");
	assert_true(id >= 0);
	n = trace_get(m, 0, false);
	for (i = 0; i < n; i++)
		assert_int_not_equal(ev[i].opcode, HERMON_CMD_SENSE_PORT);
	dev = prdma_dev_open((uint16_t)id);
	assert_non_null(dev);
	assert_int_equal(prdma_port_query(dev, 1, &pa), 0);
	assert_int_equal(pa.link_layer, PRDMA_LINK_LAYER_INFINIBAND);
	prdma_dev_close(dev);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	hermon_model_put(m);
}

/*
 * F6 of the security review: a device with a 32-entry MTT table. The
 * reserved-MTT bitmap used to be written past its (empty) allocation; the
 * ASan build catches the write.
 */
static void
test_tiny_mtt_table(void **state)
{
	struct hermon_model_conf c = { .name = "trm", .log_max_mtts = 5 };
	struct hermon_model *m = hermon_model_create(&c);
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_mr *mr;
	uint8_t *buf;
	int id;

	(void)state;
	assert_non_null(m);
	id = probe("trm");
	assert_true(id >= 0);
	dev = prdma_dev_open((uint16_t)id);
	assert_non_null(dev);
	pd = prdma_pd_alloc(dev);
	assert_non_null(pd);
	/* the MTT entries left after the reserved ones and the EQ's page */
	buf = rte_zmalloc("trm", 8 * 4096, 4096);
	assert_non_null(buf);
	mr = prdma_mr_reg(pd, buf, 8 * 4096, PRDMA_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	assert_int_equal(prdma_mr_dereg(mr), 0);
	/* more than the table holds: refused, not written past its end */
	mr = prdma_mr_reg(pd, buf, 8 * 4096, PRDMA_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	assert_null(prdma_mr_reg(pd, buf, 8 * 4096, PRDMA_ACCESS_LOCAL_WRITE));
	assert_int_equal(prdma_mr_dereg(mr), 0);
	rte_free(buf);
	assert_int_equal(prdma_pd_free(pd), 0);
	prdma_dev_close(dev);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	hermon_model_put(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bringup_teardown_trace),
		cmocka_unit_test(test_sense_none_probe),
		cmocka_unit_test(test_fixed_type_not_sensed),
		cmocka_unit_test(test_tiny_mtt_table),
	};

	if (t_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("hermon-trace", tests, NULL, NULL);
}
