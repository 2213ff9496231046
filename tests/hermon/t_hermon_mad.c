/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * MAD_IFC and the embedded SMA (F7, F8, F29 of issue 14): the IB bring-up
 * against the Linux sequence (bringup-ib.trace), the firmware's node GUID,
 * an IB port's GID 0 from its subnet prefix and port GUID, the PortInfo
 * default capability mask handed back in SET_PORT(IB), the MADs the agent
 * refuses, and a subnet manager's PortInfo sets taking a port from INIT
 * through ARMED to ACTIVE with a LID.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include "prdma_provider.h"
#include "t_eal.h"
#include "t_hermon_trace_match.h"
#include "hermon_dev.h"
#include "hermon_mad.h"
#include "hermon_model.h"

#define T_MAX_EV 4096
#define T_MAX_STEPS 128

static struct hermon_model_trace_ev ev[T_MAX_EV];

struct side {
	struct hermon_model *m;
	int id;
	struct prdma_dev *dev;
	struct hermon_dev *hd;
};

/* A dual-port IB-only model and the device probed on it. */
static void
ib_open(struct side *s, const char *name, bool trace)
{
	struct hermon_model_conf c = { .name = name, .ports = 2, .port_types = 1,
				       .port_type = 1 };
	char args[96];

	s->m = hermon_model_create(&c);
	assert_non_null(s->m);
	if (trace)
		assert_int_equal(hermon_model_trace_start(s->m, 1u << 16), 0);
	snprintf(args, sizeof(args), "hermon:model,name=%s", name);
	s->id = prdma_dev_probe(args);
	assert_true(s->id >= 0);
	s->dev = prdma_dev_open((uint16_t)s->id);
	assert_non_null(s->dev);
	s->hd = s->dev->priv;
}

static void
ib_close(struct side *s)
{
	prdma_dev_close(s->dev);
	assert_int_equal(prdma_dev_remove((uint16_t)s->id), 0);
	hermon_model_put(s->m);
}

static unsigned int
trace_get(struct hermon_model *m)
{
	struct hermon_model_trace_ev tmp[64];
	uint32_t total, lost = 0, got, i, n = 0, first = 0;

	do {
		got = hermon_model_trace_read(m, first, tmp, RTE_DIM(tmp), &total, &lost);
		for (i = 0; i < got; i++)
			if (tmp[i].kind != HERMON_MODEL_TRACE_DB && n < T_MAX_EV)
				ev[n++] = tmp[i];
		first += got;
	} while (got != 0);
	assert_int_equal(lost, 0);
	return n;
}

/* A raw SMP to port @port's agent; the command's result, *status the MAD's. */
static int
raw_smp(struct side *s, uint8_t port, uint8_t op_mod, uint8_t base, uint8_t cls,
	uint8_t method, uint16_t attr, uint32_t mod, uint64_t mkey, const uint8_t *data,
	uint8_t out[HERMON_MAD_SIZE], uint16_t *status)
{
	uint8_t in[HERMON_MAD_SIZE];
	int ret;

	memset(in, 0, sizeof(in));
	memset(out, 0, HERMON_MAD_SIZE);
	in[HERMON_MAD_BASE_VERSION] = base;
	in[HERMON_MAD_MGMT_CLASS] = cls;
	in[HERMON_MAD_CLASS_VERSION] = 1;
	in[HERMON_MAD_METHOD] = method;
	hermon_mad_put64(in + HERMON_MAD_TID, 0x1234);
	hermon_mad_put16(in + HERMON_MAD_ATTR_ID, attr);
	hermon_mad_put32(in + HERMON_MAD_ATTR_MOD, mod);
	hermon_mad_put64(in + HERMON_SMP_MKEY, mkey);
	if (data != NULL)
		memcpy(in + HERMON_SMP_DATA, data, HERMON_SMP_DATA_LEN);
	ret = hermon_cmd_mad_ifc(&s->hd->cmd, port, op_mod, in, out);
	if (ret == 0) {
		assert_int_equal(out[HERMON_MAD_METHOD], HERMON_MAD_METHOD_GET_RESP);
		assert_int_equal(hermon_mad_get64(out + HERMON_MAD_TID), 0x1234);
		*status = hermon_mad_get16(out + HERMON_MAD_STATUS);
	}
	return ret;
}

/*
 * F7/F29/F8 as data: the IB bring-up issues MAD_IFC where Linux does
 * (PortInfo before each SET_PORT(IB), NodeInfo, the GID reads) and hands
 * the default capability mask back in SET_PORT dword 1.
 */
static void
test_ib_bringup_trace(void **state)
{
	static struct t_tr_step steps[T_MAX_STEPS];
	struct side s;
	char path[512];
	unsigned int n, i;
	int ns;

	(void)state;
	ib_open(&s, "tmadt", true);
	n = trace_get(s.m);
	snprintf(path, sizeof(path), "%s/bringup-ib.trace", T_TRACE_DIR);
	ns = t_tr_load(path, steps, T_MAX_STEPS);
	assert_true(ns > 0);
	if (t_tr_match(steps, (unsigned int)ns, ev, n) != 0) {
		for (i = 0; i < n; i++)
			t_tr_print(stderr, &ev[i]);
		fail_msg("bringup-ib.trace: the PMD's sequence differs");
	}
	ib_close(&s);
}

/* F8: an IB port's GID 0 is the SMA's prefix + port GUID, not the MAC's EUI-64. */
static void
test_ib_gid_from_port_guid(void **state)
{
	struct prdma_dev_attr da;
	union prdma_gid gid;
	struct side s;
	uint8_t p;

	(void)state;
	ib_open(&s, "tmadg", false);
	assert_int_equal(prdma_dev_query(s.dev, &da), 0);
	assert_true(da.node_guid == hermon_model_node_guid(s.m));
	for (p = 1; p <= 2; p++) {
		assert_int_equal(prdma_gid_query(s.dev, p, 0, &gid), 0);
		assert_int_equal(hermon_mad_get64(gid.raw), 0xfe80000000000000ull);
		assert_true(hermon_mad_get64(gid.raw + 8) == hermon_model_port_guid(s.m, p));
	}
	/* entries the SM has not assigned are empty */
	assert_int_equal(prdma_gid_query(s.dev, 1, 1, &gid), -ENOENT);
	ib_close(&s);
}

/* F29: the PortInfo capability mask survives SET_PORT(IB) (Linux sends it back). */
static void
test_ib_cap_mask_default(void **state)
{
	struct prdma_port_attr pa;
	struct side s;

	(void)state;
	ib_open(&s, "tmadc", false);
	assert_int_equal(prdma_port_query(s.dev, 1, &pa), 0);
	assert_int_equal(pa.port_cap_flags & HERMON_MODEL_DEFAULT_CAP_MASK,
			 HERMON_MODEL_DEFAULT_CAP_MASK);
	assert_true((pa.port_cap_flags & PRDMA_PORT_CAP_CM_SUP) != 0);
	ib_close(&s);
}

/* What the agent refuses or answers with a MAD status, as IBA and the PRM say. */
static void
test_mad_ifc_refused(void **state)
{
	uint8_t out[HERMON_MAD_SIZE], d[HERMON_SMP_DATA_LEN];
	uint16_t st;
	struct side s;

	(void)state;
	ib_open(&s, "tmadr", false);
	/* no port 3: the command fails */
	assert_int_equal(raw_smp(&s, 3, 3, 1, HERMON_MGMT_CLASS_SUBN_LID, 1,
				 HERMON_SMP_ATTR_NODE_INFO, 0, 0, NULL, out, &st), -EINVAL);
	/* a MAD the SMA does not take is discarded: bad management packet */
	assert_int_equal(raw_smp(&s, 1, 3, 2, HERMON_MGMT_CLASS_SUBN_LID, 1,
				 HERMON_SMP_ATTR_NODE_INFO, 0, 0, NULL, out, &st), -EBADMSG);
	assert_int_equal(raw_smp(&s, 1, 3, 1, 0x03, 1, 0x0011, 0, 0, NULL, out, &st),
			 -EBADMSG);
	/* answered, with the IBA status: an unknown method, a read-only
	 * attribute, an unknown attribute, a block past the table */
	assert_int_equal(raw_smp(&s, 1, 3, 1, HERMON_MGMT_CLASS_SUBN_LID, 0x05,
				 HERMON_SMP_ATTR_NODE_INFO, 0, 0, NULL, out, &st), 0);
	assert_int_equal(st, HERMON_MAD_STATUS_BAD_METHOD);
	assert_int_equal(raw_smp(&s, 1, 3, 1, HERMON_MGMT_CLASS_SUBN_LID, 2,
				 HERMON_SMP_ATTR_NODE_INFO, 0, 0, out + 64, out, &st), 0);
	assert_int_equal(st, HERMON_MAD_STATUS_BAD_ATTR);
	assert_int_equal(raw_smp(&s, 1, 3, 1, HERMON_MGMT_CLASS_SUBN_LID, 1, 0x0099, 0, 0,
				 NULL, out, &st), 0);
	assert_int_equal(st, HERMON_MAD_STATUS_BAD_ATTR);
	assert_int_equal(hermon_mad_subn(s.hd, 1, 1, HERMON_SMP_ATTR_PKEY_TABLE, 4, NULL,
					 d), -EINVAL);
	/* the P_Key table: entry 0 is the default partition */
	assert_int_equal(hermon_mad_subn(s.hd, 1, 1, HERMON_SMP_ATTR_PKEY_TABLE, 0, NULL,
					 d), 0);
	assert_int_equal(hermon_mad_get16(d), 0xffff);
	/* a directed-route SMP's answer has D set */
	assert_int_equal(raw_smp(&s, 1, 3, 1, HERMON_MGMT_CLASS_SUBN_DR, 1,
				 HERMON_SMP_ATTR_NODE_INFO, 0, 0, NULL, out, &st), 0);
	assert_int_equal(st, HERMON_MAD_STATUS_D);
	assert_true(hermon_mad_get64(out + HERMON_SMP_DATA + HERMON_NI_NODE_GUID) ==
		    hermon_model_node_guid(s.m));
	/* GUID 0 cannot be set; the others can */
	memset(d, 0, sizeof(d));
	hermon_mad_put64(d, 0x1111);
	hermon_mad_put64(d + 8, 0x2222);
	assert_int_equal(hermon_mad_subn(s.hd, 1, 2, HERMON_SMP_ATTR_GUID_INFO, 0, d, d), 0);
	assert_true(hermon_mad_get64(d) == hermon_model_port_guid(s.m, 1));
	assert_int_equal(hermon_mad_get64(d + 8), 0x2222);
	/* with an M_Key set, a Set that checks keys and carries another one
	 * is discarded; the right key (or ignoring keys) is taken */
	assert_int_equal(hermon_mad_subn(s.hd, 1, 1, HERMON_SMP_ATTR_PORT_INFO, 1, NULL, d),
			 0);
	hermon_mad_put64(d + HERMON_PI_MKEY, 0xabcd);
	assert_int_equal(hermon_mad_subn(s.hd, 1, 2, HERMON_SMP_ATTR_PORT_INFO, 1, d, d), 0);
	assert_int_equal(raw_smp(&s, 1, 0, 1, HERMON_MGMT_CLASS_SUBN_LID, 2,
				 HERMON_SMP_ATTR_PORT_INFO, 1, 0x1, d, out, &st), -EBADMSG);
	assert_int_equal(raw_smp(&s, 1, 0, 1, HERMON_MGMT_CLASS_SUBN_LID, 2,
				 HERMON_SMP_ATTR_PORT_INFO, 1, 0xabcd, d, out, &st), 0);
	assert_int_equal(st, 0);
	ib_close(&s);
}

/* The port's PortInfo state and LID, as the library reports them. */
static void
port_is(struct side *s, uint8_t p, uint8_t state, uint16_t lid)
{
	struct prdma_port_attr pa;

	assert_int_equal(prdma_port_query(s->dev, p, &pa), 0);
	assert_int_equal(pa.state, state);
	assert_int_equal(pa.lid, lid);
	assert_int_equal(pa.link_layer, PRDMA_LINK_LAYER_INFINIBAND);
}

/*
 * F7: a subnet manager activates an IB port through its SMA. The port
 * trains to INIT and stays there (never ACTIVE by itself); the SM assigns
 * the LID, its own LID and the subnet prefix, then ARMED, then ACTIVE
 * (INIT straight to ACTIVE is refused); the port reports ACTIVE with its
 * LID, raises PORT_ACTIVE, and its GID carries the new prefix. The SMPs
 * reach the SMA through MAD_IFC on the managed device (no QP0 wire: see
 * doc/guides/nics/hermon.md, F7).
 */
static void
test_sm_activates_port(void **state)
{
	struct prdma_async_event e;
	uint8_t d[HERMON_SMP_DATA_LEN];
	union prdma_gid gid;
	struct side s;
	bool active = false;

	(void)state;
	ib_open(&s, "tmads", false);
	port_is(&s, 1, PRDMA_PORT_INIT, 0);
	port_is(&s, 2, PRDMA_PORT_INIT, 0);
	assert_int_equal(hermon_mad_subn(s.hd, 2, 1, HERMON_SMP_ATTR_PORT_INFO, 2, NULL, d),
			 0);
	assert_int_equal(d[HERMON_PI_PHYS_STATE] >> 4, HERMON_IB_PHYS_LINKUP);
	/* LIDs and the prefix, state unchanged (NOP) */
	hermon_mad_put64(d + HERMON_PI_GID_PREFIX, 0xfe80000000001234ull);
	hermon_mad_put16(d + HERMON_PI_LID, 7);
	hermon_mad_put16(d + HERMON_PI_SM_LID, 1);
	d[HERMON_PI_SPEED_STATE] &= 0xf0;
	assert_int_equal(hermon_mad_subn(s.hd, 2, 2, HERMON_SMP_ATTR_PORT_INFO, 2, d, d), 0);
	assert_int_equal(d[HERMON_PI_SPEED_STATE] & 0xf, HERMON_IB_PORT_INIT);
	/* INIT -> ACTIVE skips ARMED: refused */
	d[HERMON_PI_SPEED_STATE] = (uint8_t)((d[HERMON_PI_SPEED_STATE] & 0xf0) |
					     HERMON_IB_PORT_ACTIVE);
	assert_int_equal(hermon_mad_subn(s.hd, 2, 2, HERMON_SMP_ATTR_PORT_INFO, 2, d, d),
			 -EINVAL);
	port_is(&s, 2, PRDMA_PORT_INIT, 7);
	assert_int_equal(hermon_mad_subn(s.hd, 2, 1, HERMON_SMP_ATTR_PORT_INFO, 2, NULL, d),
			 0);
	d[HERMON_PI_SPEED_STATE] = (uint8_t)((d[HERMON_PI_SPEED_STATE] & 0xf0) |
					     HERMON_IB_PORT_ARMED);
	assert_int_equal(hermon_mad_subn(s.hd, 2, 2, HERMON_SMP_ATTR_PORT_INFO, 2, d, d), 0);
	port_is(&s, 2, PRDMA_PORT_ARMED, 7);
	d[HERMON_PI_SPEED_STATE] = (uint8_t)((d[HERMON_PI_SPEED_STATE] & 0xf0) |
					     HERMON_IB_PORT_ACTIVE);
	assert_int_equal(hermon_mad_subn(s.hd, 2, 2, HERMON_SMP_ATTR_PORT_INFO, 2, d, d), 0);
	port_is(&s, 2, PRDMA_PORT_ACTIVE, 7);
	port_is(&s, 1, PRDMA_PORT_INIT, 0);
	while (prdma_event_get(s.dev, &e) == 1)
		if (e.type == PRDMA_EVENT_PORT_ACTIVE && e.element.port_num == 2)
			active = true;
	assert_true(active);
	assert_int_equal(prdma_gid_query(s.dev, 2, 0, &gid), 0);
	assert_int_equal(hermon_mad_get64(gid.raw), 0xfe80000000001234ull);
	assert_true(hermon_mad_get64(gid.raw + 8) == hermon_model_port_guid(s.m, 2));
	ib_close(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ib_bringup_trace),
		cmocka_unit_test(test_ib_gid_from_port_guid),
		cmocka_unit_test(test_ib_cap_mask_default),
		cmocka_unit_test(test_mad_ifc_refused),
		cmocka_unit_test(test_sm_activates_port),
	};

	if (t_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("hermon-mad", tests, NULL, NULL);
}
