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
#include "hermon_prm_ext.h"

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
			/* EQ doorbells follow event polling, not the work traced */
			if ((tmp[i].kind != HERMON_MODEL_TRACE_DB ||
			     (with_db && tmp[i].db_offset < 0x800)) && n < T_MAX_EV)
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
 * F8: on IB ports (dual-port, IB-only firmware) the PMD must not send the
 * RoCE GID table (SET_PORT selector 5): Linux sends it only with op_mod 1
 * on Ethernet ports; IB SET_PORT takes in_mod = port and the IB layout,
 * and the model refuses anything else there. GID 0 stays link-local.
 */
static void
test_ib_port_no_gid_table(void **state)
{
	struct hermon_model *m = model("trib", 2, 1, false);
	union prdma_gid gid;
	struct prdma_dev *dev;
	unsigned int n, i;
	int id;

	(void)state;
	assert_int_equal(hermon_model_trace_start(m, 1u << 16), 0);
	id = probe("trib");
	assert_true(id >= 0);
	n = trace_get(m, 0, false);
	for (i = 0; i < n; i++) {
		if (ev[i].kind != HERMON_MODEL_TRACE_CMD ||
		    ev[i].opcode != HERMON_CMD_SET_PORT)
			continue;
		assert_int_equal(ev[i].op_mod, 0);
		assert_int_equal(ev[i].in_mod >> 8, 0);
	}
	dev = prdma_dev_open((uint16_t)id);
	assert_non_null(dev);
	for (i = 1; i <= 2; i++) {
		assert_int_equal(prdma_gid_query(dev, (uint8_t)i, 0, &gid), 0);
		assert_int_equal(gid.raw[0], 0xfe);
		assert_int_equal(gid.raw[1], 0x80);
	}
	prdma_dev_close(dev);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	hermon_model_put(m);
}

/*
 * F29: each IB port gets SET_PORT(IB) (op_mod 0, in_mod = port) with MTU
 * cap 4096 (5 << 12), 8 data VLs (8 << 4) and the change-MTU/VL flags
 * (bits 22, 21) before its INIT_PORT, as Linux mlx4_SET_PORT in
 * mlx4_setup_hca; the model refuses INIT_PORT on an IB port without it.
 */
static void
test_ib_set_port_caps(void **state)
{
	struct hermon_model *m = model("tribc", 2, 1, false);
	unsigned int n, i;
	uint32_t set = 0, up = 0;
	int id;

	(void)state;
	assert_int_equal(hermon_model_trace_start(m, 1u << 16), 0);
	id = probe("tribc");
	assert_true(id >= 0);
	n = trace_get(m, 0, false);
	for (i = 0; i < n; i++) {
		if (ev[i].kind != HERMON_MODEL_TRACE_CMD)
			continue;
		if (ev[i].opcode == HERMON_CMD_SET_PORT) {
			assert_int_equal(ev[i].op_mod, 0);
			assert_true(ev[i].in_mod == 1 || ev[i].in_mod == 2);
			assert_int_equal(ev[i].status, 0);
			assert_int_equal(ev[i].field[0], RTE_BIT32(22) | RTE_BIT32(21) |
					 5u << 12 | 8u << 4);
			set |= RTE_BIT32(ev[i].in_mod);
		} else if (ev[i].opcode == HERMON_CMD_INIT_PORT) {
			assert_int_equal(ev[i].status, 0);
			/* its SET_PORT came first */
			assert_true((set & RTE_BIT32(ev[i].in_mod)) != 0);
			up |= RTE_BIT32(ev[i].in_mod);
		}
	}
	assert_int_equal(up, RTE_BIT32(1) | RTE_BIT32(2));
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	hermon_model_put(m);
}

/*
 * F5: "SYS_EQS" firmware (ConnectX-3 Pro) reports num_sys_eqs in
 * QUERY_DEV_CAP. As Linux mlx4_init_hca / profile.c: QUERY_FUNC right
 * after QUERY_DEV_CAP (reserved EQs from it), INIT_HCA with log_num_eqs
 * 0x1f and num_sys_eqs; the EQ past QUERY_FUNC's reserved ones. The model
 * refuses an INIT_HCA without them and the EQs QUERY_FUNC reserves.
 */
static void
test_sys_eqs_firmware(void **state)
{
	struct hermon_model_conf c = { .name = "trsys", .sys_eqs = 8 };
	struct hermon_model *m;
	unsigned int n, i;
	int id, dev_cap = -1, func = -1, icm = -1, eqs = 0;

	(void)state;
	m = hermon_model_create(&c);
	assert_non_null(m);
	assert_int_equal(hermon_model_trace_start(m, 1u << 16), 0);
	id = probe("trsys");
	assert_true(id >= 0);
	n = trace_get(m, 0, false);
	for (i = 0; i < n; i++) {
		if (ev[i].kind != HERMON_MODEL_TRACE_CMD)
			continue;
		assert_int_equal(ev[i].status, 0);
		if (ev[i].opcode == HERMON_CMD_QUERY_DEV_CAP)
			dev_cap = (int)i;
		else if (ev[i].opcode == HERMON_CMD_QUERY_FUNC)
			func = (int)i;
		else if (ev[i].opcode == HERMON_CMD_SET_ICM_SIZE)
			icm = (int)i;
		else if (ev[i].opcode == HERMON_CMD_INIT_HCA)
			assert_int_equal(ev[i].field[2], 0x1f);
		else if (ev[i].opcode == HERMON_CMD_SW2HW_EQ) {
			assert_true(ev[i].in_mod >= HERMON_MODEL_SYS_RSVD_EQS);
			eqs++;
		}
	}
	assert_true(dev_cap >= 0 && func == dev_cap + 1 && icm > func);
	assert_int_equal(eqs, 1);
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

/*
 * F3: on a BlueFlame part BAR2 is twice the UAR space; INIT_HCA gets the UAR
 * count of QUERY_DEV_CAP uar_sz, not of the BAR length (the model refuses
 * more UARs than uar_sz gives).
 */
static void
test_uars_from_dev_cap(void **state)
{
	struct hermon_model_conf c = { .name = "tru", .bf = true };
	struct hermon_model *m = hermon_model_create(&c);
	unsigned int n, i, seen = 0;
	int id;

	(void)state;
	assert_non_null(m);
	assert_int_equal(hermon_model_trace_start(m, 1u << 16), 0);
	id = probe("tru");
	assert_true(id >= 0);
	n = trace_get(m, 0, false);
	for (i = 0; i < n; i++)
		if (ev[i].opcode == HERMON_CMD_INIT_HCA) {
			assert_int_equal(ev[i].field[1], 8);    /* uar_sz 0: 2^8 pages */
			seen++;
		}
	assert_int_equal(seen, 1);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	hermon_model_put(m);
}

/*
 * F4: with 8 reserved UAR pages the EQs whose doorbells fall there (0-31)
 * are the firmware's: the PMD's EQ is 32, in a table large enough for it.
 */
static void
test_eq_past_reserved_uars(void **state)
{
	struct hermon_model_conf c = { .name = "tre", .rsvd_uars = 8 };
	struct hermon_model *m = hermon_model_create(&c);
	unsigned int n, i, seen = 0;
	int id;

	(void)state;
	assert_non_null(m);
	assert_int_equal(hermon_model_trace_start(m, 1u << 16), 0);
	id = probe("tre");
	assert_true(id >= 0);
	n = trace_get(m, 0, false);
	for (i = 0; i < n; i++) {
		if (ev[i].opcode == HERMON_CMD_SW2HW_EQ) {
			assert_int_equal(ev[i].in_mod, 32);
			seen++;
		}
		if (ev[i].opcode == HERMON_CMD_INIT_HCA)
			assert_true(ev[i].field[2] >= 6);       /* log_num_eq */
	}
	assert_int_equal(seen, 1);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	hermon_model_put(m);
}

/* One RC QP per side of a cable, connected to each other. */
struct trq_side {
	struct hermon_model *m;
	int id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_mr *mr;
	struct prdma_qp *qp;
	uint8_t *buf;
};

static void
trq_connect(struct prdma_qp *qp, const union prdma_gid *gid, uint32_t rqpn)
{
	struct prdma_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = PRDMA_MTU_1024;
	a.dest_qp_num = rqpn;
	a.ah_attr.dgid = *gid;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_AV |
					 PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
					 PRDMA_QP_RQ_PSN | PRDMA_QP_MAX_DEST_RD_ATOMIC |
					 PRDMA_QP_MIN_RNR_TIMER), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTS;
	a.timeout = 8;
	a.retry_cnt = 2;
	a.rnr_retry = 2;
	a.max_rd_atomic = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
					 PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT |
					 PRDMA_QP_RNR_RETRY | PRDMA_QP_MAX_QP_RD_ATOMIC), 0);
}

/* Two linked models @link.0/1, each with a PD, CQ, MR on one page. */
static void
trq_open(struct trq_side *s, const char *link)
{
	struct prdma_cq_init_attr ca;
	int k;

	memset(s, 0, 2 * sizeof(*s));
	for (k = 0; k < 2; k++) {
		char name[16], args[96];
		struct hermon_model_conf c = { .link = link, .side = (uint8_t)k };

		snprintf(name, sizeof(name), "%s.%d", link, k);
		c.name = name;
		s[k].m = hermon_model_create(&c);
		assert_non_null(s[k].m);
		snprintf(args, sizeof(args), "hermon:model,name=%s,link=%s,side=%d",
			 name, link, k);
		s[k].id = prdma_dev_probe(args);
		assert_true(s[k].id >= 0);
		s[k].dev = prdma_dev_open((uint16_t)s[k].id);
		s[k].pd = prdma_pd_alloc(s[k].dev);
		memset(&ca, 0, sizeof(ca));
		ca.cqe = 64;
		s[k].cq = prdma_cq_create(s[k].dev, &ca);
		s[k].buf = rte_zmalloc("trq", 4096, 4096);
		assert_non_null(s[k].buf);
		s[k].mr = prdma_mr_reg(s[k].pd, s[k].buf, 4096, PRDMA_ACCESS_LOCAL_WRITE |
				       PRDMA_ACCESS_REMOTE_WRITE);
		assert_non_null(s[k].mr);
	}
}

/* An RC QP on each side, connected to each other. */
static void
trq_pair(struct trq_side *s)
{
	struct prdma_qp_init_attr ia;
	union prdma_gid gid[2];
	int k;

	for (k = 0; k < 2; k++) {
		assert_int_equal(prdma_gid_query(s[k].dev, 1, 0, &gid[k]), 0);
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = PRDMA_QPT_RC;
		ia.send_cq = s[k].cq;
		ia.recv_cq = s[k].cq;
		ia.cap.max_send_wr = 16;
		ia.cap.max_recv_wr = 16;
		ia.cap.max_send_sge = 2;
		ia.cap.max_recv_sge = 1;
		s[k].qp = prdma_qp_create(s[k].pd, &ia);
		assert_non_null(s[k].qp);
	}
	for (k = 0; k < 2; k++)
		trq_connect(s[k].qp, &gid[1 - k], s[1 - k].qp->qp_num);
}

static int
trq_wait(struct trq_side *s, struct prdma_wc *wc)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 5;
	int r = 0;

	while (r == 0 && rte_get_tsc_cycles() < end)
		r = prdma_cq_poll(s->cq, 1, wc);
	return r;
}

static void
trq_close(struct trq_side *s)
{
	int k;

	for (k = 0; k < 2; k++) {
		if (s[k].qp != NULL)
			assert_int_equal(prdma_qp_destroy(s[k].qp), 0);
		assert_int_equal(prdma_mr_dereg(s[k].mr), 0);
		assert_int_equal(prdma_cq_destroy(s[k].cq), 0);
		assert_int_equal(prdma_pd_free(s[k].pd), 0);
		prdma_dev_close(s[k].dev);
		assert_int_equal(prdma_dev_remove((uint16_t)s[k].id), 0);
		rte_free(s[k].buf);
		hermon_model_put(s[k].m);
	}
}

/*
 * F18: a zero-length gather entry next to a real one. The byte count 0
 * means 2^31 bytes to the device; the PMD writes 0x80000000 (no bytes).
 */
static void
test_zero_length_sge(void **state)
{
	struct trq_side s[2];
	struct prdma_sge rsge, sge[2];
	struct prdma_recv_wr rwr = { .wr_id = 1, .sg_list = &rsge, .num_sge = 1 };
	struct prdma_send_wr wr = {
		.wr_id = 2, .sg_list = sge, .num_sge = 2,
		.opcode = PRDMA_WR_SEND, .send_flags = PRDMA_SEND_SIGNALED,
	};
	const struct prdma_recv_wr *rbad;
	const struct prdma_send_wr *bad;
	struct prdma_wc wc;

	(void)state;
	trq_open(s, "trz");
	trq_pair(s);
	rsge = (struct prdma_sge){ (uintptr_t)s[1].buf, 1024, s[1].mr->lkey };
	assert_int_equal(prdma_post_recv(s[1].qp, &rwr, &rbad), 0);
	memset(s[0].buf, 0x3c, 64);
	sge[0] = (struct prdma_sge){ (uintptr_t)s[0].buf, 0, s[0].mr->lkey };
	sge[1] = (struct prdma_sge){ (uintptr_t)s[0].buf, 64, s[0].mr->lkey };
	assert_int_equal(prdma_post_send(s[0].qp, &wr, &bad), 0);
	assert_int_equal(trq_wait(&s[0], &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(trq_wait(&s[1], &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 64);
	assert_int_equal(s[1].buf[63], 0x3c);
	trq_close(s);
}

/*
 * F24: vendor_err is the error CQE's vendor syndrome (byte 0x1a, rdma-core
 * cq.c), not the syndrome (0x1b).
 */
static void
test_vendor_err_byte(void **state)
{
	struct trq_side s[2];
	struct prdma_sge sge;
	struct prdma_send_wr wr = {
		.wr_id = 3, .sg_list = &sge, .num_sge = 1,
		.opcode = PRDMA_WR_RDMA_WRITE, .send_flags = PRDMA_SEND_SIGNALED,
	};
	const struct prdma_send_wr *bad;
	struct prdma_wc wc;

	(void)state;
	trq_open(s, "trv");
	trq_pair(s);
	sge = (struct prdma_sge){ (uintptr_t)s[0].buf, 64, s[0].mr->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)s[1].buf;
	wr.wr.rdma.rkey = s[1].mr->rkey ^ 0x55;          /* nobody's key */
	assert_int_equal(prdma_post_send(s[0].qp, &wr, &bad), 0);
	assert_int_equal(trq_wait(&s[0], &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_REM_ACCESS_ERR);
	assert_int_equal(wc.vendor_err, HERMON_MODEL_VENDOR_SYND(HERMON_SYND_REM_ACCESS));
	trq_close(s);
}

/*
 * A QP connect and one RDMA WRITE between two Ethernet models, traced on
 * side 0 against tests/data/hermon/qp-connect.trace (F10: the path says
 * Ethernet, or the port sends nothing and the WRITE times out; F30: the
 * send doorbell on UAR page 128).
 */
static void
test_qp_connect_trace(void **state)
{
	struct trq_side s[2];
	struct prdma_qp_init_attr ia;
	struct prdma_cq_init_attr ca;
	union prdma_gid gid[2];
	struct prdma_wc wc;
	uint64_t end;
	unsigned int n;
	int k, r = 0;

	(void)state;
	memset(s, 0, sizeof(s));
	for (k = 0; k < 2; k++) {
		char name[16], args[96];
		struct hermon_model_conf c = { .link = "trq", .side = (uint8_t)k };

		snprintf(name, sizeof(name), "trq.%d", k);
		c.name = name;
		s[k].m = hermon_model_create(&c);
		assert_non_null(s[k].m);
		snprintf(args, sizeof(args), "hermon:model,name=%s,link=trq,side=%d", name, k);
		s[k].id = prdma_dev_probe(args);
		assert_true(s[k].id >= 0);
		s[k].dev = prdma_dev_open((uint16_t)s[k].id);
		s[k].pd = prdma_pd_alloc(s[k].dev);
		memset(&ca, 0, sizeof(ca));
		ca.cqe = 64;
		s[k].cq = prdma_cq_create(s[k].dev, &ca);
		s[k].buf = rte_zmalloc("trq", 4096, 4096);
		assert_non_null(s[k].buf);
		s[k].mr = prdma_mr_reg(s[k].pd, s[k].buf, 4096, PRDMA_ACCESS_LOCAL_WRITE |
				       PRDMA_ACCESS_REMOTE_WRITE);
		assert_non_null(s[k].mr);
		assert_int_equal(prdma_gid_query(s[k].dev, 1, 0, &gid[k]), 0);
	}
	assert_int_equal(hermon_model_trace_start(s[0].m, 1u << 16), 0);
	for (k = 0; k < 2; k++) {
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = PRDMA_QPT_RC;
		ia.send_cq = s[k].cq;
		ia.recv_cq = s[k].cq;
		ia.cap.max_send_wr = 16;
		ia.cap.max_recv_wr = 16;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		s[k].qp = prdma_qp_create(s[k].pd, &ia);
		assert_non_null(s[k].qp);
	}
	for (k = 0; k < 2; k++)
		trq_connect(s[k].qp, &gid[1 - k], s[1 - k].qp->qp_num);
	{
		struct prdma_sge sge = { (uintptr_t)s[0].buf, 256, s[0].mr->lkey };
		struct prdma_send_wr wr = {
			.wr_id = 7, .sg_list = &sge, .num_sge = 1,
			.opcode = PRDMA_WR_RDMA_WRITE, .send_flags = PRDMA_SEND_SIGNALED,
		};
		const struct prdma_send_wr *bad;

		memset(s[0].buf, 0x5a, 256);
		wr.wr.rdma.remote_addr = (uintptr_t)s[1].buf;
		wr.wr.rdma.rkey = s[1].mr->rkey;
		assert_int_equal(prdma_post_send(s[0].qp, &wr, &bad), 0);
	}
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 5;
	while (r == 0 && rte_get_tsc_cycles() < end)
		r = prdma_cq_poll(s[0].cq, 1, &wc);
	assert_int_equal(r, 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(s[1].buf[255], 0x5a);
	hermon_model_trace_stop(s[0].m);
	n = trace_get(s[0].m, 0, true);
	expect("qp-connect.trace", n);
	for (k = 0; k < 2; k++) {
		assert_int_equal(prdma_qp_destroy(s[k].qp), 0);
		assert_int_equal(prdma_mr_dereg(s[k].mr), 0);
		assert_int_equal(prdma_cq_destroy(s[k].cq), 0);
		assert_int_equal(prdma_pd_free(s[k].pd), 0);
		prdma_dev_close(s[k].dev);
		assert_int_equal(prdma_dev_remove((uint16_t)s[k].id), 0);
		rte_free(s[k].buf);
		hermon_model_put(s[k].m);
	}
}

/*
 * F6: the EQ is polled; an ARMED EQ would raise an interrupt on the first
 * event (the port-change of INIT_PORT) that nothing clears.
 */
static void
test_eq_raises_no_interrupt(void **state)
{
	struct hermon_model *m = model("tri", 2, 0, false);
	struct hermon_model_state st;
	struct prdma_port_attr pa;
	struct prdma_dev *dev;
	int id;

	(void)state;
	id = probe("tri");
	assert_true(id >= 0);
	dev = prdma_dev_open((uint16_t)id);
	assert_non_null(dev);
	/* the port-change events were written and taken */
	assert_int_equal(prdma_port_query(dev, 1, &pa), 0);
	assert_int_equal(pa.state, PRDMA_PORT_ACTIVE);
	hermon_model_get_state(m, &st);
	assert_int_equal(st.interrupts, 0);
	assert_int_equal(st.eq_overflows, 0);
	prdma_dev_close(dev);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	hermon_model_put(m);
}

/*
 * F15: the responder resources a QP may ask for are the RDMARC entries
 * INIT_HCA gave it; the advertised max_qp_rd_atom is accepted, one more is
 * refused (the model refuses rra_max beyond log_num_rd).
 */
static void
test_rd_atomic_limit(void **state)
{
	struct hermon_model *m = model("trr", 1, 0, false);
	struct prdma_qp_init_attr ia;
	struct prdma_cq_init_attr ca;
	struct prdma_dev_attr da;
	struct prdma_qp_attr a;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp;
	union prdma_gid gid;
	int id;

	(void)state;
	id = probe("trr");
	assert_true(id >= 0);
	dev = prdma_dev_open((uint16_t)id);
	assert_int_equal(prdma_dev_query(dev, &da), 0);
	assert_int_equal(prdma_gid_query(dev, 1, 0, &gid), 0);
	pd = prdma_pd_alloc(dev);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 16;
	cq = prdma_cq_create(dev, &ca);
	assert_non_null(cq);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = prdma_qp_create(pd, &ia);
	assert_non_null(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = PRDMA_ACCESS_REMOTE_READ;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = PRDMA_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.ah_attr.dgid = gid;
	a.ah_attr.port_num = 1;
	a.min_rnr_timer = 1;
	if (da.max_qp_rd_atom < 16) {
		a.max_dest_rd_atomic = (uint8_t)(da.max_qp_rd_atom + 1);
		assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_AV |
						 PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
						 PRDMA_QP_RQ_PSN |
						 PRDMA_QP_MAX_DEST_RD_ATOMIC |
						 PRDMA_QP_MIN_RNR_TIMER), -EINVAL);
	}
	a.max_dest_rd_atomic = (uint8_t)da.max_qp_rd_atom;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_AV |
					 PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
					 PRDMA_QP_RQ_PSN | PRDMA_QP_MAX_DEST_RD_ATOMIC |
					 PRDMA_QP_MIN_RNR_TIMER), 0);
	assert_int_equal(prdma_qp_destroy(qp), 0);
	assert_int_equal(prdma_cq_destroy(cq), 0);
	assert_int_equal(prdma_pd_free(pd), 0);
	prdma_dev_close(dev);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	hermon_model_put(m);
}

/* F26: the board id comes from VSD + 0xd0, dword-swapped (Linux get_board_id). */
static void
test_board_id(void **state)
{
	struct hermon_model *m = model("trd", 1, 0, false);
	struct prdma_dev_attr a;
	struct prdma_dev *dev;
	int id;

	(void)state;
	id = probe("trd");
	assert_true(id >= 0);
	dev = prdma_dev_open((uint16_t)id);
	assert_int_equal(prdma_dev_query(dev, &a), 0);
	if (strstr(a.node_desc, "MT_PRDMA000001") == NULL)
		fail_msg("node description \"%s\" lacks the model's board id", a.node_desc);
	prdma_dev_close(dev);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	hermon_model_put(m);
}

/*
 * F28: a device whose smallest page after reset is 8 KiB takes 4 KiB pages
 * once MOD_STAT_CFG asks for them (Linux mlx4_init_fw); the model refuses
 * 4 KiB context pages otherwise.
 */
static void
test_page_size_override(void **state)
{
	struct hermon_model_conf c = { .name = "trp", .log_pg_sz = 13 };
	struct hermon_model *m = hermon_model_create(&c);
	int id;

	(void)state;
	assert_non_null(m);
	id = probe("trp");
	assert_true(id >= 0);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	hermon_model_put(m);
}

/* F32: QPC msg_max from QUERY_DEV_CAP log_max_msg, not a constant 31. */
static void
test_msg_max_from_dev_cap(void **state)
{
	struct hermon_model_conf c = { .name = "trg", .log_max_msg = 30 };
	struct hermon_model *m = hermon_model_create(&c);
	struct prdma_qp_init_attr ia;
	struct prdma_cq_init_attr ca;
	struct prdma_qp_attr a;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp;
	int id;

	(void)state;
	assert_non_null(m);
	id = probe("trg");
	assert_true(id >= 0);
	dev = prdma_dev_open((uint16_t)id);
	pd = prdma_pd_alloc(dev);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 16;
	cq = prdma_cq_create(dev, &ca);
	assert_non_null(cq);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = prdma_qp_create(pd, &ia);
	assert_non_null(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS), 0);
	assert_int_equal(prdma_qp_destroy(qp), 0);
	assert_int_equal(prdma_cq_destroy(cq), 0);
	assert_int_equal(prdma_pd_free(pd), 0);
	prdma_dev_close(dev);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	hermon_model_put(m);
}

/*
 * An RC SEND between two cabled IB models over a path with a GRH (routed
 * by the peer's GID) or without one (@lid != 0: the models' ports get LIDs
 * @lid and @lid + 0x10 and the path names the peer's by its DLID only).
 */
static void
ib_rc_send(const char *link, uint16_t lid)
{
	struct trq_side s[2];
	struct prdma_cq_init_attr ca;
	struct prdma_qp_init_attr ia;
	union prdma_gid gid[2];
	struct prdma_qp_attr a;
	struct prdma_sge sge, rsge;
	struct prdma_recv_wr rwr = { .wr_id = 1, .sg_list = &rsge, .num_sge = 1 };
	struct prdma_send_wr wr = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = PRDMA_WR_SEND, .send_flags = PRDMA_SEND_SIGNALED,
	};
	const struct prdma_recv_wr *rbad;
	const struct prdma_send_wr *bad;
	struct prdma_wc wc;
	int k;

	memset(s, 0, sizeof(s));
	for (k = 0; k < 2; k++) {
		char name[16], args[96];
		struct hermon_model_conf c = { .link = link, .side = (uint8_t)k,
					       .port_type = 1 };

		snprintf(name, sizeof(name), "%s.%d", link, k);
		c.name = name;
		c.lid = lid != 0 ? (uint16_t)(lid + 0x10 * k) : 0;
		/* data needs ACTIVE ports (IBA 7.2): as if an SM had run */
		c.sm_active = true;
		s[k].m = hermon_model_create(&c);
		assert_non_null(s[k].m);
		snprintf(args, sizeof(args), "hermon:model,name=%s,link=%s,side=%d", name,
			 link, k);
		s[k].id = prdma_dev_probe(args);
		assert_true(s[k].id >= 0);
		s[k].dev = prdma_dev_open((uint16_t)s[k].id);
		s[k].pd = prdma_pd_alloc(s[k].dev);
		memset(&ca, 0, sizeof(ca));
		ca.cqe = 16;
		s[k].cq = prdma_cq_create(s[k].dev, &ca);
		s[k].buf = rte_zmalloc("tri2", 4096, 4096);
		s[k].mr = prdma_mr_reg(s[k].pd, s[k].buf, 4096, PRDMA_ACCESS_LOCAL_WRITE);
		assert_non_null(s[k].mr);
		assert_int_equal(prdma_gid_query(s[k].dev, 1, 0, &gid[k]), 0);
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = PRDMA_QPT_RC;
		ia.send_cq = s[k].cq;
		ia.recv_cq = s[k].cq;
		ia.cap.max_send_wr = 4;
		ia.cap.max_recv_wr = 4;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		s[k].qp = prdma_qp_create(s[k].pd, &ia);
		assert_non_null(s[k].qp);
	}
	for (k = 0; k < 2; k++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = PRDMA_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = PRDMA_ACCESS_LOCAL_WRITE;
		assert_int_equal(prdma_qp_modify(s[k].qp, &a, PRDMA_QP_STATE |
						 PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT |
						 PRDMA_QP_ACCESS_FLAGS), 0);
		memset(&a, 0, sizeof(a));
		a.qp_state = PRDMA_QPS_RTR;
		a.path_mtu = PRDMA_MTU_1024;
		a.dest_qp_num = s[1 - k].qp->qp_num;
		if (lid == 0) {
			a.ah_attr.dgid = gid[1 - k];
			a.ah_attr.flags = PRDMA_AH_F_GLOBAL;
		} else {
			a.ah_attr.dlid = (uint16_t)(lid + 0x10 * (1 - k));
		}
		a.ah_attr.port_num = 1;
		a.ah_attr.sl = 5;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		assert_int_equal(prdma_qp_modify(s[k].qp, &a, PRDMA_QP_STATE | PRDMA_QP_AV |
						 PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
						 PRDMA_QP_RQ_PSN |
						 PRDMA_QP_MAX_DEST_RD_ATOMIC |
						 PRDMA_QP_MIN_RNR_TIMER), 0);
		memset(&a, 0, sizeof(a));
		a.qp_state = PRDMA_QPS_RTS;
		a.timeout = 8;
		a.retry_cnt = 2;
		a.rnr_retry = 2;
		a.max_rd_atomic = 1;
		assert_int_equal(prdma_qp_modify(s[k].qp, &a, PRDMA_QP_STATE |
						 PRDMA_QP_SQ_PSN | PRDMA_QP_TIMEOUT |
						 PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
						 PRDMA_QP_MAX_QP_RD_ATOMIC), 0);
	}
	rsge = (struct prdma_sge){ (uintptr_t)s[1].buf, 256, s[1].mr->lkey };
	assert_int_equal(prdma_post_recv(s[1].qp, &rwr, &rbad), 0);
	sge = (struct prdma_sge){ (uintptr_t)s[0].buf, 32, s[0].mr->lkey };
	assert_int_equal(prdma_post_send(s[0].qp, &wr, &bad), 0);
	assert_int_equal(trq_wait(&s[1], &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.sl, 5);
	assert_int_equal(trq_wait(&s[0], &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	trq_close(s);
}

/*
 * F9 (SL part): on an IB port the path's SL goes in sched_queue bits 5:2
 * (Linux _mlx4_set_path); the model's IB port carries it to the
 * responder's CQE. The path has a GRH (PRDMA_AH_F_GLOBAL): routed by GID.
 */
static void
test_ib_path_sl(void **state)
{
	(void)state;
	ib_rc_send("tri2", 0);
}

/*
 * F9 (GRH part): an IB path whose AH has no GRH (no PRDMA_AH_F_GLOBAL)
 * clears the QPC grh bit (Linux _mlx4_set_path sets it only for IB_AH_GRH)
 * and the model routes such a packet by its DLID alone. The old PMD set
 * the bit on every path, so the model looked for the (zero) DGID and the
 * SEND reached nobody.
 */
static void
test_ib_path_no_grh(void **state)
{
	(void)state;
	ib_rc_send("tri3", 0x11);
}

/*
 * F13: an Ethernet path or UD AH whose peer MAC nobody knows (an IPv4 GID
 * with no static neighbour, no PRDMA_AH_F_DMAC) is refused with
 * EHOSTUNREACH: the PMD cannot resolve neighbours, and the old code took
 * it and sent its frames to a zero MAC.
 */
static void
test_no_dmac_refused(void **state)
{
	struct hermon_model *m = model("trn", 1, 0, false);
	struct prdma_qp_init_attr ia;
	struct prdma_cq_init_attr ca;
	struct prdma_ah_attr aa;
	struct prdma_qp_attr a;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp;
	struct prdma_ah *ah;
	uint32_t mask = PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU |
			PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
			PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER;
	int id;

	(void)state;
	id = probe("trn");
	assert_true(id >= 0);
	dev = prdma_dev_open((uint16_t)id);
	pd = prdma_pd_alloc(dev);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 16;
	cq = prdma_cq_create(dev, &ca);
	assert_non_null(cq);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = prdma_qp_create(pd, &ia);
	assert_non_null(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS), 0);
	/* ::ffff:192.0.2.77, no neigh= for it */
	memset(&aa, 0, sizeof(aa));
	aa.dgid.raw[10] = 0xff;
	aa.dgid.raw[11] = 0xff;
	aa.dgid.raw[12] = 192;
	aa.dgid.raw[14] = 2;
	aa.dgid.raw[15] = 77;
	aa.port_num = 1;
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = PRDMA_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr = aa;
	assert_int_equal(prdma_qp_modify(qp, &a, mask), -EHOSTUNREACH);
	assert_int_equal(rte_errno, EHOSTUNREACH);
	assert_int_equal(qp->state, PRDMA_QPS_INIT);
	ah = prdma_ah_create(pd, &aa);
	assert_null(ah);
	assert_int_equal(rte_errno, EHOSTUNREACH);
	/* the caller's MAC is taken */
	aa.flags = PRDMA_AH_F_DMAC;
	aa.dmac.addr_bytes[0] = 0x02;
	aa.dmac.addr_bytes[5] = 0x77;
	ah = prdma_ah_create(pd, &aa);
	assert_non_null(ah);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	a.ah_attr = aa;
	assert_int_equal(prdma_qp_modify(qp, &a, mask), 0);
	assert_int_equal(prdma_qp_destroy(qp), 0);
	assert_int_equal(prdma_cq_destroy(cq), 0);
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
		cmocka_unit_test(test_ib_port_no_gid_table),
		cmocka_unit_test(test_ib_set_port_caps),
		cmocka_unit_test(test_sys_eqs_firmware),
		cmocka_unit_test(test_tiny_mtt_table),
		cmocka_unit_test(test_uars_from_dev_cap),
		cmocka_unit_test(test_eq_past_reserved_uars),
		cmocka_unit_test(test_qp_connect_trace),
		cmocka_unit_test(test_eq_raises_no_interrupt),
		cmocka_unit_test(test_rd_atomic_limit),
		cmocka_unit_test(test_zero_length_sge),
		cmocka_unit_test(test_vendor_err_byte),
		cmocka_unit_test(test_board_id),
		cmocka_unit_test(test_page_size_override),
		cmocka_unit_test(test_msg_max_from_dev_cap),
		cmocka_unit_test(test_ib_path_sl),
		cmocka_unit_test(test_ib_path_no_grh),
		cmocka_unit_test(test_no_dmac_refused),
	};

	if (t_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("hermon-trace", tests, NULL, NULL);
}
