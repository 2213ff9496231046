/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Multicast groups of the Hermon PMD against the model, checked in the MCG
 * table itself (READ_MCG): the model's MGID hash and its refusals, groups
 * forced into one bucket so that they chain through the AMGM area, detach
 * unchaining the head, the middle and the tail, delivery to a group deep in
 * a chain, the per-group and per-device limits with every group in one
 * bucket, a destroyed QP leaving its groups, and the Ethernet port's
 * multicast MAC filter (F31).
 */

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "prdma.h"
#include "prdma_fp.h"
#include "prdma_provider.h"
#include "t_eal.h"
#include "hermon_dev.h"
#include "hermon_mgm.h"
#include "hermon_model.h"
#include "hermon_prm_ext.h"

#define QKEY 0x11223344u
#define GRH 40

struct t_mc {
	struct hermon_model *m;
	int id;
	struct prdma_dev *dev;
	struct hermon_dev *hd;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_dev_attr attr;
	uint32_t nb_hash, nb_entries;
};

/* The model's documented hash, written again here from its definition. */
static uint32_t
t_crc32c(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffffu;
	size_t i;
	int b;

	for (i = 0; i < n; i++) {
		crc ^= p[i];
		for (b = 0; b < 8; b++)
			crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return crc ^ 0xffffffffu;
}

static void
mc_gid(union prdma_gid *g, unsigned int k)
{
	memset(g, 0, sizeof(*g));
	g->raw[0] = 0xff;
	g->raw[1] = 0x0e;
	g->raw[12] = 0xca;
	g->raw[13] = 0xfe;
	g->raw[14] = (uint8_t)(k >> 8);
	g->raw[15] = (uint8_t)k;
}

static void
mc_open(struct t_mc *t, const char *name)
{
	struct prdma_cq_init_attr ca = { .cqe = 256 };
	char args[64];

	memset(t, 0, sizeof(*t));
	{
		struct hermon_model_conf conf = { .name = name, .ports = 1 };

		t->m = hermon_model_create(&conf);
	}
	assert_non_null(t->m);
	snprintf(args, sizeof(args), "hermon:model,name=%s", name);
	t->id = prdma_dev_probe(args);
	assert_true(t->id >= 0);
	t->dev = prdma_dev_open((uint16_t)t->id);
	assert_non_null(t->dev);
	t->hd = t->dev->priv;
	assert_int_equal(prdma_dev_query(t->dev, &t->attr), 0);
	t->nb_entries = 1u << t->hd->icm.t[HERMON_ICM_MCG].log_num;
	t->nb_hash = t->nb_entries / 2;
	t->pd = prdma_pd_alloc(t->dev);
	assert_non_null(t->pd);
	t->cq = prdma_cq_create(t->dev, &ca);
	assert_non_null(t->cq);
}

static void
mc_close(struct t_mc *t)
{
	assert_int_equal(prdma_cq_destroy(t->cq), 0);
	assert_int_equal(prdma_pd_free(t->pd), 0);
	prdma_dev_close(t->dev);
	assert_int_equal(prdma_dev_remove((uint16_t)t->id), 0);
	hermon_model_put(t->m);
}

static struct prdma_qp *
mc_qp(struct t_mc *t, uint32_t qkey, bool rts)
{
	struct prdma_qp_init_attr ia = {
		.qp_type = PRDMA_QPT_UD, .send_cq = t->cq, .recv_cq = t->cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct prdma_qp_attr a;
	struct prdma_qp *qp = prdma_qp_create(t->pd, &ia);

	assert_non_null(qp);
	if (!rts)
		return qp;
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qkey = qkey;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_QKEY), 0);
	a.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE), 0);
	a.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	return qp;
}

static void
mgm_read(struct t_mc *t, uint32_t idx, struct hermon_prm_mgm_entry *e)
{
	assert_int_equal(hermon_cmd_read_mcg(&t->hd->cmd, idx, e), 0);
}

/* Entry @idx holds group @k with @cnt members and link @next. */
static void
mgm_expect(struct t_mc *t, uint32_t idx, unsigned int k, uint32_t cnt, uint32_t next)
{
	struct hermon_prm_mgm_entry e;
	union prdma_gid g;
	uint8_t eg[16];

	mgm_read(t, idx, &e);
	mc_gid(&g, k);
	hermon_mgm_gid(&e, eg);
	if (memcmp(eg, g.raw, 16) != 0)
		fail_msg("MCG entry %u does not hold group %u", idx, k);
	assert_int_equal(hermon_mgm_count(&e), cnt);
	assert_int_equal(hermon_mgm_next(&e), next);
}

static void
mgm_expect_empty(struct t_mc *t, uint32_t idx)
{
	struct hermon_prm_mgm_entry e, zero;

	memset(&zero, 0, sizeof(zero));
	mgm_read(t, idx, &e);
	if (memcmp(&e, &zero, sizeof(e)) != 0)
		fail_msg("MCG entry %u is not empty", idx);
}

static uint32_t
mgm_next(struct t_mc *t, uint32_t idx)
{
	struct hermon_prm_mgm_entry e;

	mgm_read(t, idx, &e);
	return hermon_mgm_next(&e);
}

static void
mgm_expect_all_empty(struct t_mc *t)
{
	uint32_t i;

	for (i = 0; i < t->nb_entries; i++)
		mgm_expect_empty(t, i);
}

static int
attach(struct prdma_qp *qp, unsigned int k)
{
	union prdma_gid g;

	mc_gid(&g, k);
	return prdma_qp_attach_mcast(qp, &g);
}

static int
detach(struct prdma_qp *qp, unsigned int k)
{
	union prdma_gid g;

	mc_gid(&g, k);
	return prdma_qp_detach_mcast(qp, &g);
}

static void
test_hash_and_refusals(void **state)
{
	struct prdma_qp *qp;
	struct hermon_prm_gid_entry in;
	struct hermon_prm_mgm_entry e;
	union prdma_gid g;
	uint32_t hash, w[4];
	unsigned int k;
	struct t_mc t;

	(void)state;
	assert_int_equal(t_crc32c((const uint8_t *)"123456789", 9), 0xe3069283u);
	mc_open(&t, "mch");
	assert_true(t.attr.flags & PRDMA_DEV_CAP_UD_MCAST);
	assert_int_equal(t.attr.max_mcast_grp, t.nb_entries - t.nb_hash);
	assert_int_equal(t.attr.max_mcast_qp_attach, HERMON_MGM_QPS);
	assert_int_equal(t.attr.max_total_mcast_qp_attach,
			 t.attr.max_mcast_grp * HERMON_MGM_QPS);
	for (k = 0; k < 32; k++) {
		mc_gid(&g, k * 7919);
		memcpy(w, g.raw, 16);
		memset(&in, 0, sizeof(in));
		HERMON_FILL(&in, gid_entry, gid_127_96, rte_be_to_cpu_32(w[0]));
		HERMON_FILL(&in, gid_entry, gid_95_64, rte_be_to_cpu_32(w[1]));
		HERMON_FILL(&in, gid_entry, gid_63_32, rte_be_to_cpu_32(w[2]));
		HERMON_FILL(&in, gid_entry, gid_31_0, rte_be_to_cpu_32(w[3]));
		assert_int_equal(hermon_cmd_mgid_hash(&t.hd->cmd, &in, &hash), 0);
		assert_int_equal(hash, t_crc32c(g.raw, 16) & (t.nb_hash - 1));
	}
	assert_int_equal(hermon_model_mgid_hash_force(t.m, true, t.nb_hash + 5), 0);
	assert_int_equal(hermon_cmd_mgid_hash(&t.hd->cmd, &in, &hash), 0);
	assert_int_equal(hash, 5);
	assert_int_equal(hermon_model_mgid_hash_force(t.m, false, 0), 0);

	/* the firmware refuses what would break its chains */
	assert_int_equal(hermon_cmd_read_mcg(&t.hd->cmd, t.nb_entries, &e), -ERANGE);
	memset(&e, 0, sizeof(e));
	assert_int_equal(hermon_cmd_write_mcg(&t.hd->cmd, t.nb_entries, &e), -ERANGE);
	HERMON_FILL(&e, mgm_entry, next_gid_index, 3);           /* into the hash */
	assert_int_equal(hermon_cmd_write_mcg(&t.hd->cmd, 1, &e), -EINVAL);
	HERMON_FILL(&e, mgm_entry, next_gid_index, t.nb_entries); /* past the end */
	assert_int_equal(hermon_cmd_write_mcg(&t.hd->cmd, 1, &e), -EINVAL);
	memset(&e, 0, sizeof(e));
	HERMON_FILL(hermon_mgm_hdr(&e), mcg_hdr, members_count, HERMON_MGM_QPS + 1);
	assert_int_equal(hermon_cmd_write_mcg(&t.hd->cmd, 1, &e), -EINVAL);
	mgm_expect_all_empty(&t);

	/* a firmware error reaches the caller and leaves the table as it was */
	qp = mc_qp(&t, QKEY, false);
	assert_int_equal(hermon_model_fault_status(t.m, 0x027, 0x03, 1), 0);
	assert_int_equal(attach(qp, 1), -EINVAL);
	assert_int_equal(prdma_qp_destroy(qp), 0);
	mgm_expect_all_empty(&t);
	mc_close(&t);
}

static void
test_chain_and_unchain(void **state)
{
	struct prdma_qp *qa, *qb, *qc;
	struct hermon_prm_mgm_entry e;
	uint32_t a1, a2, a3;
	const uint32_t b = 5;
	struct t_mc t;

	(void)state;
	mc_open(&t, "mcc");
	qa = mc_qp(&t, QKEY, false);
	qb = mc_qp(&t, QKEY, false);
	qc = mc_qp(&t, QKEY, false);
	assert_int_equal(hermon_model_mgid_hash_force(t.m, true, b), 0);

	/* four groups, one bucket: the first in it, the rest chained */
	assert_int_equal(attach(qa, 1), 0);
	assert_int_equal(attach(qa, 2), 0);
	assert_int_equal(attach(qa, 3), 0);
	assert_int_equal(attach(qa, 4), 0);
	a1 = mgm_next(&t, b);
	a2 = mgm_next(&t, a1);
	a3 = mgm_next(&t, a2);
	assert_true(a1 >= t.nb_hash && a2 >= t.nb_hash && a3 >= t.nb_hash);
	assert_true(a1 != a2 && a2 != a3 && a1 != a3);
	mgm_expect(&t, b, 1, 1, a1);
	mgm_expect(&t, a1, 2, 1, a2);
	mgm_expect(&t, a2, 3, 1, a3);
	mgm_expect(&t, a3, 4, 1, 0);

	/* members of a group in the middle of the chain */
	assert_int_equal(attach(qb, 3), 0);
	assert_int_equal(attach(qc, 3), 0);
	assert_int_equal(attach(qa, 3), -EEXIST);
	assert_int_equal(detach(qb, 1), -ENOENT);
	assert_int_equal(detach(qb, 9), -ENOENT);
	mgm_expect(&t, a2, 3, 3, a3);
	assert_int_equal(detach(qb, 3), 0);
	mgm_read(&t, a2, &e);
	assert_int_equal(hermon_mgm_count(&e), 2);
	assert_int_equal(hermon_mgm_qpn(&e, 0), qa->qp_num);
	assert_int_equal(hermon_mgm_qpn(&e, 1), qc->qp_num);
	assert_int_equal(hermon_mgm_qpn(&e, 2), 0);

	/* the head leaves: its successor moves into the bucket */
	assert_int_equal(detach(qa, 1), 0);
	mgm_expect(&t, b, 2, 1, a2);
	mgm_expect_empty(&t, a1);
	/* the middle leaves: unlinked */
	assert_int_equal(detach(qa, 3), 0);
	assert_int_equal(detach(qc, 3), 0);
	mgm_expect(&t, b, 2, 1, a3);
	mgm_expect_empty(&t, a2);
	/* a new group chains from the tail again */
	assert_int_equal(attach(qb, 5), 0);
	a1 = mgm_next(&t, a3);
	assert_true(a1 >= t.nb_hash);
	mgm_expect(&t, a1, 5, 1, 0);
	assert_int_equal(detach(qb, 5), 0);
	mgm_expect(&t, a3, 4, 1, 0);
	mgm_expect_empty(&t, a1);
	/* the tail leaves */
	assert_int_equal(detach(qa, 4), 0);
	mgm_expect(&t, b, 2, 1, 0);
	assert_int_equal(detach(qa, 2), 0);
	assert_int_equal(detach(qa, 2), -ENOENT);
	mgm_expect_all_empty(&t);

	assert_int_equal(hermon_model_mgid_hash_force(t.m, false, 0), 0);
	assert_int_equal(prdma_qp_destroy(qa), 0);
	assert_int_equal(prdma_qp_destroy(qb), 0);
	assert_int_equal(prdma_qp_destroy(qc), 0);
	mc_close(&t);
}

static int
poll_one(struct prdma_cq *cq, struct prdma_wc *wc, unsigned int ms)
{
	const struct timespec nap = { 0, 100000 };
	unsigned int i;

	for (i = 0; i < ms * 10; i++) {
		if (prdma_cq_poll(cq, 1, wc) == 1)
			return 1;
		nanosleep(&nap, NULL);
	}
	return 0;
}

/* A datagram to a group deep in a chain reaches its members only. */
static void
test_chain_delivery(void **state)
{
	struct prdma_qp *src, *r1, *r2, *r3;
	struct prdma_ah_attr aa;
	struct prdma_send_wr wr;
	struct prdma_recv_wr rw;
	struct prdma_sge sge;
	struct prdma_wc wc;
	struct prdma_ah *ah;
	struct prdma_mr *mr;
	uint8_t *buf;
	int got_r2 = 0, got_send = 0, i;
	struct t_mc t;

	(void)state;
	mc_open(&t, "mcd");
	assert_int_equal(hermon_model_mgid_hash_force(t.m, true, 9), 0);
	src = mc_qp(&t, QKEY, true);
	r1 = mc_qp(&t, QKEY, true);
	r2 = mc_qp(&t, QKEY, true);
	r3 = mc_qp(&t, QKEY + 1, true);           /* another Q_Key: drops its copy */
	assert_int_equal(attach(r1, 1), 0);
	assert_int_equal(attach(r1, 2), 0);
	assert_int_equal(attach(r2, 3), 0);
	assert_int_equal(attach(r3, 3), 0);
	buf = rte_zmalloc("t_mc", 4 * 4096, 64);
	assert_non_null(buf);
	mr = prdma_mr_reg(t.pd, buf, 4 * 4096, PRDMA_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	for (i = 0; i < 3; i++) {
		struct prdma_qp *r = i == 0 ? r1 : i == 1 ? r2 : r3;
		const struct prdma_recv_wr *bad;

		sge = (struct prdma_sge){ .addr = (uintptr_t)(buf + 4096 * (i + 1)),
					  .length = 4096, .lkey = mr->lkey };
		rw = (struct prdma_recv_wr){ .wr_id = 100 + i, .sg_list = &sge,
					     .num_sge = 1 };
		assert_int_equal(prdma_post_recv(r, &rw, &bad), 0);
	}
	memset(&aa, 0, sizeof(aa));
	mc_gid(&aa.dgid, 3);
	aa.port_num = 1;
	ah = prdma_ah_create(t.pd, &aa);
	assert_non_null(ah);
	for (i = 0; i < 64; i++)
		buf[i] = (uint8_t)(i * 3 + 1);
	sge = (struct prdma_sge){ .addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 7;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = HERMON_MCAST_QPN;
	wr.wr.ud.remote_qkey = QKEY;
	{
		const struct prdma_send_wr *bad;

		assert_int_equal(prdma_post_send(src, &wr, &bad), 0);
	}
	while (poll_one(t.cq, &wc, 200) == 1) {
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		if (wc.wr_id == 7) {
			got_send++;
		} else if (wc.wr_id == 101) {
			got_r2++;
			assert_int_equal(wc.byte_len, GRH + 64);
			assert_int_equal(wc.src_qp, src->qp_num);
			assert_memory_equal(buf + 2 * 4096 + GRH, buf, 64);
		} else {
			fail_msg("unexpected completion wr_id %" PRIu64, wc.wr_id);
		}
	}
	assert_int_equal(got_send, 1);
	assert_int_equal(got_r2, 1);

	assert_int_equal(prdma_ah_destroy(ah), 0);
	assert_int_equal(prdma_qp_destroy(src), 0);
	assert_int_equal(prdma_qp_destroy(r1), 0);
	assert_int_equal(prdma_qp_destroy(r2), 0);
	assert_int_equal(prdma_qp_destroy(r3), 0);
	/* destroying the members took them out of every group */
	mgm_expect_all_empty(&t);
	assert_int_equal(prdma_mr_dereg(mr), 0);
	rte_free(buf);
	mc_close(&t);
}

/*
 * Send 64 bytes from @src to group @k; the number of receive completions
 * of wr_id @rid that arrive (the send's own completion is checked).
 */
static int
mc_send_count(struct t_mc *t, struct prdma_qp *src, unsigned int k, uint8_t *buf,
	      struct prdma_mr *mr, uint64_t rid)
{
	const struct prdma_send_wr *bad;
	struct prdma_ah_attr aa;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;
	struct prdma_ah *ah;
	int got = 0, sent = 0;

	memset(&aa, 0, sizeof(aa));
	mc_gid(&aa.dgid, k);
	aa.port_num = 1;
	ah = prdma_ah_create(t->pd, &aa);
	assert_non_null(ah);
	sge = (struct prdma_sge){ .addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 7;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = HERMON_MCAST_QPN;
	wr.wr.ud.remote_qkey = QKEY;
	assert_int_equal(prdma_post_send(src, &wr, &bad), 0);
	while (poll_one(t->cq, &wc, 200) == 1) {
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		if (wc.wr_id == 7)
			sent++;
		else if (wc.wr_id == rid)
			got++;
		else
			fail_msg("unexpected completion wr_id %" PRIu64, wc.wr_id);
	}
	assert_int_equal(sent, 1);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	return got;
}

/*
 * F31: an Ethernet port takes a multicast frame only when its MAC is in the
 * port's filter; the PMD programs it (SET_MCAST_FLTR) as groups come and go.
 * Without that (the PMD before F31) the model drops the frame at the port.
 */
static void
test_mac_filter(void **state)
{
	struct hermon_model_stats st0, st;
	const struct prdma_recv_wr *bad;
	struct prdma_qp *src, *r;
	struct prdma_recv_wr rw;
	struct prdma_sge sge;
	struct prdma_mr *mr;
	uint8_t *buf;
	struct t_mc t;
	int i;

	(void)state;
	mc_open(&t, "mcf");
	src = mc_qp(&t, QKEY, true);
	r = mc_qp(&t, QKEY, true);
	buf = rte_zmalloc("t_mc", 8 * 4096, 64);
	assert_non_null(buf);
	mr = prdma_mr_reg(t.pd, buf, 8 * 4096, PRDMA_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	for (i = 0; i < 4; i++) {
		sge = (struct prdma_sge){ .addr = (uintptr_t)(buf + 4096 * (i + 1)),
					  .length = 4096, .lkey = mr->lkey };
		rw = (struct prdma_recv_wr){ .wr_id = 100, .sg_list = &sge, .num_sge = 1 };
		assert_int_equal(prdma_post_recv(r, &rw, &bad), 0);
	}
	assert_int_equal(attach(r, 1), 0);
	assert_int_equal(attach(r, 2), 0);
	assert_int_equal(hermon_model_get_stats(t.m, &st0), 0);
	/* both groups' MACs are in the filter: both frames arrive */
	if (mc_send_count(&t, src, 1, buf, mr, 100) != 1)
		fail_msg("a frame to a joined group did not pass the port's MAC filter");
	assert_int_equal(mc_send_count(&t, src, 2, buf, mr, 100), 1);
	assert_int_equal(hermon_model_get_stats(t.m, &st), 0);
	assert_int_equal(st.mc_filtered, st0.mc_filtered);
	/* the group's last member left: its MAC left the filter, group 2's stays */
	assert_int_equal(detach(r, 1), 0);
	assert_int_equal(mc_send_count(&t, src, 1, buf, mr, 100), 0);
	assert_int_equal(hermon_model_get_stats(t.m, &st), 0);
	assert_int_equal(st.mc_filtered, st0.mc_filtered + 1);
	assert_int_equal(mc_send_count(&t, src, 2, buf, mr, 100), 1);
	assert_int_equal(prdma_qp_destroy(src), 0);
	assert_int_equal(prdma_qp_destroy(r), 0);
	assert_int_equal(prdma_mr_dereg(mr), 0);
	rte_free(buf);
	mc_close(&t);
}

/* The limits hold even when the hash puts every group in one bucket. */
static void
test_limits_one_bucket(void **state)
{
	struct prdma_qp *qp[HERMON_MGM_QPS + 1], *q;
	uint32_t max = 0, i;
	struct t_mc t;

	(void)state;
	mc_open(&t, "mcl");
	max = t.attr.max_mcast_grp;
	for (i = 0; i <= HERMON_MGM_QPS; i++)
		qp[i] = mc_qp(&t, QKEY, false);
	for (i = 0; i < HERMON_MGM_QPS; i++)
		assert_int_equal(attach(qp[i], 1), 0);
	assert_int_equal(attach(qp[HERMON_MGM_QPS], 1), -ENOSPC);
	assert_int_equal(rte_errno, ENOSPC);
	for (i = 0; i < HERMON_MGM_QPS; i++)
		assert_int_equal(detach(qp[i], 1), 0);

	assert_int_equal(hermon_model_mgid_hash_force(t.m, true, 0), 0);
	q = qp[0];
	for (i = 0; i < max; i++)
		if (attach(q, 100 + i) != 0)
			fail_msg("group %u of %u in one bucket: %d", i, max, -rte_errno);
	assert_int_equal(attach(q, 100 + max), -ENOSPC);
	/* the whole AMGM area bar one entry is one chain now */
	for (i = 0; i < max; i++)
		assert_int_equal(detach(q, 100 + (i * 37) % max), 0);
	mgm_expect_all_empty(&t);
	assert_int_equal(attach(q, 100 + max), 0);
	/* destroying the QP detaches it (the hash must stay what it was) */
	for (i = 0; i <= HERMON_MGM_QPS; i++)
		assert_int_equal(prdma_qp_destroy(qp[i]), 0);
	mgm_expect_all_empty(&t);
	assert_int_equal(hermon_model_mgid_hash_force(t.m, false, 0), 0);
	mc_close(&t);
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
		cmocka_unit_test(test_hash_and_refusals),
		cmocka_unit_test(test_chain_and_unchain),
		cmocka_unit_test(test_chain_delivery),
		cmocka_unit_test(test_limits_one_bucket),
		cmocka_unit_test(test_mac_filter),
	};

	return cmocka_run_group_tests_name("hermon-mcast", tests, setup, NULL);
}
