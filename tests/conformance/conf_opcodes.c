/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* RC opcodes: SEND, SEND_WITH_IMM, WRITE, WRITE_WITH_IMM, READ, atomics. */

#include <string.h>

#include "conf.h"

#define OP_LEN 100
#define OP_BUF (64 * 1024)
#define OP_ACCESS (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE | \
		   PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_ATOMIC)

/* A connected RC pair with a registered buffer on each side. */
struct op_env {
	struct conf_pair p;
	struct conf_buf a;
	struct conf_buf b;
};

static void
op_env_make(struct conf_ctx *ctx, struct op_env *e)
{
	struct conf_qp_opts o;

	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &e->p, &o);
	conf_buf_make(ctx, &e->a, CONF_A->pd, OP_BUF, OP_ACCESS);
	conf_buf_make(ctx, &e->b, CONF_B->pd, OP_BUF, OP_ACCESS);
}

/* How an opcode moves data and what each side's completion says. */
struct op_variant {
	const char *name;
	enum prdma_wr_opcode op;
	enum prdma_wc_opcode send_wc;
	int recv_wc;                       /* -1: no receive consumed */
	int imm;
	int read;                          /* data moves B -> A */
};

static const struct op_variant op_variants[] = {
	{ "SEND", PRDMA_WR_SEND, PRDMA_WC_SEND, PRDMA_WC_RECV, 0, 0 },
	{ "SEND_WITH_IMM", PRDMA_WR_SEND_WITH_IMM, PRDMA_WC_SEND, PRDMA_WC_RECV, 1, 0 },
	{ "RDMA_WRITE", PRDMA_WR_RDMA_WRITE, PRDMA_WC_RDMA_WRITE, -1, 0, 0 },
	{ "RDMA_WRITE_WITH_IMM", PRDMA_WR_RDMA_WRITE_WITH_IMM, PRDMA_WC_RDMA_WRITE,
	  PRDMA_WC_RECV_RDMA_WITH_IMM, 1, 0 },
	{ "RDMA_READ", PRDMA_WR_RDMA_READ, PRDMA_WC_RDMA_READ, -1, 0, 1 },
};

static void
test_rc_opcodes(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;
	struct op_env e;
	unsigned int i;
	char what[128];

	op_env_make(ctx, &e);
	for (i = 0; i < RTE_DIM(op_variants); i++) {
		const struct op_variant *v = &op_variants[i];
		const uint32_t seed = 1000 + i, imm = 0xc0de0000u + i;
		/* Target at a non-zero offset so addressing is exercised. */
		uint8_t *src = (v->read ? e.b.p : e.a.p) + 128;
		uint8_t *dst = (v->read ? e.a.p : e.b.p) + 256;

		memset(e.a.p, 0, OP_BUF);
		memset(e.b.p, 0, OP_BUF);
		t_pattern_fill(src, OP_LEN, seed);
		if (v->recv_wc >= 0) {
			snprintf(what, sizeof(what), "%s: receive", v->name);
			/* WRITE_WITH_IMM consumes a receive but places no data in it. */
			conf_post_recv(e.p.s[1].qp, 500 + i, v->op == PRDMA_WR_SEND ||
				       v->op == PRDMA_WR_SEND_WITH_IMM ? dst : e.b.p + 8192,
				       OP_LEN * 2, e.b.mr->lkey, what);
		}
		conf_wr_init(&wr, &sge, 100 + i, v->op, v->read ? dst : src, OP_LEN,
			     e.a.mr->lkey);
		if (v->imm)
			wr.imm_data = imm;
		if (v->op == PRDMA_WR_RDMA_WRITE || v->op == PRDMA_WR_RDMA_WRITE_WITH_IMM) {
			wr.wr.rdma.remote_addr = (uintptr_t)dst;
			wr.wr.rdma.rkey = e.b.mr->rkey;
		} else if (v->read) {
			wr.wr.rdma.remote_addr = (uintptr_t)src;
			wr.wr.rdma.rkey = e.b.mr->rkey;
		}
		snprintf(what, sizeof(what), "%s: post", v->name);
		conf_post_send(e.p.s[0].qp, &wr, what);
		snprintf(what, sizeof(what), "%s: requester completion", v->name);
		conf_expect_wc(e.p.s[0].scq, &wc, what, 100 + i, PRDMA_WC_SUCCESS,
			       v->send_wc);
		CONF_EQ("requester wc qp_num", e.p.s[0].qp->qp_num, wc.qp_num);
		if (v->read)
			CONF_EQ("READ requester byte_len", OP_LEN, wc.byte_len);
		if (v->recv_wc >= 0) {
			snprintf(what, sizeof(what), "%s: responder completion", v->name);
			conf_expect_wc(e.p.s[1].rcq, &wc, what, 500 + i, PRDMA_WC_SUCCESS,
				       v->recv_wc);
			CONF_EQ("responder wc byte_len", OP_LEN, wc.byte_len);
			CONF_EQ("responder wc qp_num", e.p.s[1].qp->qp_num, wc.qp_num);
			snprintf(what, sizeof(what), "%s: PRDMA_WC_WITH_IMM", v->name);
			CONF_EQ(what, v->imm ? PRDMA_WC_WITH_IMM : 0,
				wc.wc_flags & PRDMA_WC_WITH_IMM);
			if (v->imm)
				CONF_EQ("imm_data (host order)", imm, wc.imm_data);
		} else {
			snprintf(what, sizeof(what), "%s: responder receive CQ", v->name);
			conf_expect_no_wc(e.p.s[1].rcq, 1, what);
		}
		snprintf(what, sizeof(what), "%s: data at the target", v->name);
		conf_check_data(dst, OP_LEN, seed, what);
		snprintf(what, sizeof(what), "%s: byte after the target", v->name);
		conf_check_bytes(dst + OP_LEN, 64, 0, what);
		conf_check_bytes(dst - 64, 64, 0, what);
	}
	conf_expect_no_wc(e.p.s[0].scq, CONF_QUIET_MS, "requester CQ after all opcodes");
	conf_check_qp_state(e.p.s[0].qp, PRDMA_QPS_RTS, "requester after all opcodes");
	conf_check_qp_state(e.p.s[1].qp, PRDMA_QPS_RTS, "responder after all opcodes");
}

struct atomic_variant {
	const char *name;
	enum prdma_wr_opcode op;
	uint64_t initial;
	uint64_t compare_add;
	uint64_t swap;
	uint64_t final;
};

static const struct atomic_variant atomic_variants[] = {
	{ "CAS equal (swaps)", PRDMA_WR_ATOMIC_CMP_AND_SWP, 0x1122334455667788ull,
	  0x1122334455667788ull, 0xdeadbeefcafef00dull, 0xdeadbeefcafef00dull },
	{ "CAS different (no swap)", PRDMA_WR_ATOMIC_CMP_AND_SWP, 0x1122334455667788ull,
	  0x1122334455667789ull, 0xdeadbeefcafef00dull, 0x1122334455667788ull },
	{ "FETCH_AND_ADD", PRDMA_WR_ATOMIC_FETCH_AND_ADD, 0x00000000ffffffffull,
	  0x0000000000000001ull, 0, 0x0000000100000000ull },
	{ "FETCH_AND_ADD wraps", PRDMA_WR_ATOMIC_FETCH_AND_ADD, 0xffffffffffffffffull,
	  0x0000000000000002ull, 0, 0x0000000000000001ull },
};

static void
test_rc_atomics(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;
	struct op_env e;
	unsigned int i;
	char what[128];

	CONF_REQUIRE_CAP(CONF_A, PRDMA_DEV_CAP_ATOMIC);
	op_env_make(ctx, &e);
	for (i = 0; i < RTE_DIM(atomic_variants); i++) {
		const struct atomic_variant *v = &atomic_variants[i];
		uint64_t *remote = (uint64_t *)(e.b.p + 64 + 8 * i);
		uint64_t *local = (uint64_t *)(e.a.p + 64 + 8 * i);

		memset(e.b.p, 0x5a, 256);
		*remote = v->initial;
		*local = 0x0badc0de0badc0deull;
		conf_wr_init(&wr, &sge, 200 + i, v->op, local, 8, e.a.mr->lkey);
		wr.wr.atomic.remote_addr = (uintptr_t)remote;
		wr.wr.atomic.rkey = e.b.mr->rkey;
		wr.wr.atomic.compare_add = v->compare_add;
		wr.wr.atomic.swap = v->swap;
		snprintf(what, sizeof(what), "%s: post", v->name);
		conf_post_send(e.p.s[0].qp, &wr, what);
		snprintf(what, sizeof(what), "%s: requester completion", v->name);
		conf_expect_wc(e.p.s[0].scq, &wc, what, 200 + i, PRDMA_WC_SUCCESS,
			       v->op == PRDMA_WR_ATOMIC_CMP_AND_SWP ? PRDMA_WC_COMP_SWAP :
			       PRDMA_WC_FETCH_ADD);
		CONF_EQ("atomic wc byte_len", 8, wc.byte_len);
		snprintf(what, sizeof(what), "%s: original value returned", v->name);
		CONF_EQ(what, v->initial, *local);
		snprintf(what, sizeof(what), "%s: remote value after", v->name);
		CONF_EQ(what, v->final, *remote);
		snprintf(what, sizeof(what), "%s: bytes around the target", v->name);
		conf_check_bytes(e.b.p, 64 + 8 * i, 0x5a, what);
		conf_check_bytes((uint8_t *)(remote + 1), 256 - 64 - 8 * (i + 1), 0x5a, what);
		conf_expect_no_wc(e.p.s[1].rcq, 1, "atomics consume no receive");
	}
}

/* Two QPs of one device connected to each other (PRDMA_DEV_CAP_LOOPBACK_CONN). */
static void
test_rc_loopback_one_device(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_qp *qp[2];
	struct prdma_cq *cq[2];
	struct prdma_send_wr wr;
	struct conf_qp_opts o;
	struct prdma_sge sge;
	struct prdma_wc wc;
	struct conf_buf a;
	unsigned int i;

	CONF_REQUIRE_CAP(CONF_A, PRDMA_DEV_CAP_LOOPBACK_CONN);
	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_buf_make(ctx, &a, CONF_A->pd, OP_BUF, OP_ACCESS);
	for (i = 0; i < 2; i++) {
		cq[i] = conf_cq(ctx, CONF_A, 64, 0);
		qp[i] = conf_qp(ctx, CONF_A, NULL, &o, cq[i], cq[i], NULL);
	}
	for (i = 0; i < 2; i++)
		conf_qp_connect(qp[i], &o, &CONF_A->gid, qp[1 - i]->qp_num,
				i ? CONF_PSN_A : CONF_PSN_B, i ? CONF_PSN_B : CONF_PSN_A);
	t_pattern_fill(a.p, 5000, 91);
	conf_post_recv(qp[1], 1, a.p + 8192, 8192, a.mr->lkey, "loopback receive");
	conf_wr_init(&wr, &sge, 2, PRDMA_WR_SEND, a.p, 5000, a.mr->lkey);
	conf_post_send(qp[0], &wr, "loopback SEND");
	conf_expect_wc(cq[0], &wc, "loopback SEND", 2, PRDMA_WC_SUCCESS, PRDMA_WC_SEND);
	conf_expect_wc(cq[1], &wc, "loopback receive", 1, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RECV);
	CONF_EQ("loopback receive byte_len", 5000, wc.byte_len);
	conf_check_data(a.p + 8192, 5000, 91, "loopback SEND data");
	conf_wr_init(&wr, &sge, 3, PRDMA_WR_RDMA_READ, a.p + 32768, 5000, a.mr->lkey);
	wr.wr.rdma.remote_addr = (uintptr_t)a.p;
	wr.wr.rdma.rkey = a.mr->rkey;
	conf_post_send(qp[1], &wr, "loopback READ");
	conf_expect_wc(cq[1], &wc, "loopback READ", 3, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RDMA_READ);
	conf_check_data(a.p + 32768, 5000, 91, "loopback READ data");
}

int
conf_group_opcodes(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rc_opcodes, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_rc_atomics, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_rc_loopback_one_device, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("rc-opcodes", tests, conf_group_setup,
					   conf_group_teardown);
}
