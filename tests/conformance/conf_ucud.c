/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* UC (SEND, WRITE) and UD (SEND with an AH, GRH, source QP, Q_Key). */

#include <string.h>

#include "conf.h"

#define UD_GRH 40
#define X_BUF (256 * 1024)
#define X_ACCESS (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE)

static void
test_uc_send_write(void **state)
{
	struct conf_ctx *ctx = *state;
	uint32_t mtu = conf_mtu_bytes();
	const uint32_t lens[] = { 0, 1, mtu, mtu + 1, 5 * mtu + 3 };
	struct prdma_send_wr wr;
	struct conf_buf a, b;
	struct prdma_sge sge;
	struct conf_qp_opts o;
	struct conf_pair p;
	struct prdma_wc wc;
	unsigned int i, k;
	char what[64];

	CONF_REQUIRE_CAP(CONF_A, PRDMA_DEV_CAP_UC);
	conf_opts_default(&o, PRDMA_QPT_UC);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, X_BUF, X_ACCESS);
	conf_buf_make(ctx, &b, CONF_B->pd, X_BUF, X_ACCESS);
	for (k = 0; k < 3; k++) {
		enum prdma_wr_opcode op = k == 0 ? PRDMA_WR_SEND : k == 1 ?
			PRDMA_WR_RDMA_WRITE : PRDMA_WR_RDMA_WRITE_WITH_IMM;

		for (i = 0; i < RTE_DIM(lens); i++) {
			uint32_t seed = 100 * k + i;

			snprintf(what, sizeof(what), "UC %s %u B",
				 k == 0 ? "SEND" : k == 1 ? "WRITE" : "WRITE_WITH_IMM",
				 lens[i]);
			memset(b.p, 0, lens[i] + 64);
			t_pattern_fill(a.p, lens[i], seed);
			if (op != PRDMA_WR_RDMA_WRITE)
				conf_post_recv(p.s[1].qp, seed, b.p, X_BUF, b.mr->lkey, what);
			conf_wr_init(&wr, &sge, seed, op, a.p, lens[i], a.mr->lkey);
			wr.imm_data = 0x1234 + seed;
			wr.wr.rdma.remote_addr = (uintptr_t)b.p;
			wr.wr.rdma.rkey = b.mr->rkey;
			conf_post_send(p.s[0].qp, &wr, what);
			conf_expect_wc(p.s[0].scq, &wc, what, seed, PRDMA_WC_SUCCESS,
				       op == PRDMA_WR_SEND ? PRDMA_WC_SEND :
				       PRDMA_WC_RDMA_WRITE);
			if (op != PRDMA_WR_RDMA_WRITE) {
				conf_expect_wc(p.s[1].rcq, &wc, what, seed, PRDMA_WC_SUCCESS,
					       op == PRDMA_WR_SEND ? PRDMA_WC_RECV :
					       PRDMA_WC_RECV_RDMA_WITH_IMM);
				CONF_EQ(what, lens[i], wc.byte_len);
				if (op == PRDMA_WR_RDMA_WRITE_WITH_IMM)
					CONF_EQ("UC WRITE_WITH_IMM imm_data", 0x1234 + seed,
						wc.imm_data);
			} else {
				/* UC WRITE: no ACK, so wait for the data itself. */
				conf_wait_data(b.p, lens[i], seed, what);
			}
			conf_check_data(b.p, lens[i], seed, what);
			conf_check_bytes(b.p + lens[i], 64, 0, what);
		}
	}
}

struct ud_env {
	struct prdma_cq *cq[2][2];         /* [side][send, recv] */
	struct prdma_qp *qp[2];
	struct prdma_ah *ah;               /* A -> B */
	struct conf_buf a;
	struct conf_buf b;
};

static void
ud_env_make(struct conf_ctx *ctx, struct ud_env *e)
{
	struct conf_qp_opts o;
	unsigned int i;

	conf_opts_default(&o, PRDMA_QPT_UD);
	for (i = 0; i < 2; i++) {
		e->cq[i][0] = conf_cq(ctx, &conf_devs[i], o.cq_depth, 0);
		e->cq[i][1] = conf_cq(ctx, &conf_devs[i], o.cq_depth, 0);
		e->qp[i] = conf_qp(ctx, &conf_devs[i], NULL, &o, e->cq[i][0],
				   e->cq[i][1], NULL);
		conf_qp_connect(e->qp[i], &o, NULL, 0, 0, 0x100 + i);
	}
	e->ah = conf_ah(ctx, CONF_A, NULL, &CONF_B->gid);
	conf_buf_make(ctx, &e->a, CONF_A->pd, X_BUF, X_ACCESS);
	conf_buf_make(ctx, &e->b, CONF_B->pd, X_BUF, X_ACCESS);
}

static void
ud_send(struct ud_env *e, uint64_t wr_id, enum prdma_wr_opcode op, uint32_t len,
	uint32_t qkey, uint32_t imm, const char *what)
{
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;

	conf_wr_init(&wr, &sge, wr_id, op, e->a.p, len, e->a.mr->lkey);
	wr.imm_data = imm;
	wr.wr.ud.ah = e->ah;
	wr.wr.ud.remote_qpn = e->qp[1]->qp_num;
	wr.wr.ud.remote_qkey = qkey;
	conf_post_send(e->qp[0], &wr, what);
	/* A UD send completes once it has left, whatever the receiver does. */
	conf_expect_wc(e->cq[0][0], &wc, what, wr_id, PRDMA_WC_SUCCESS, PRDMA_WC_SEND);
}

/* A UD message is one packet: more than the path MTU must not leave. */
static void
ud_oversize(struct ud_env *e, uint32_t mtu)
{
	const struct prdma_send_wr *bad = NULL;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;
	int ret;

	conf_post_recv(e->qp[1], 99, e->b.p, X_BUF, e->b.mr->lkey, "large receive");
	conf_wr_init(&wr, &sge, 99, PRDMA_WR_SEND, e->a.p, mtu + 1, e->a.mr->lkey);
	wr.wr.ud.ah = e->ah;
	wr.wr.ud.remote_qpn = e->qp[1]->qp_num;
	wr.wr.ud.remote_qkey = CONF_QKEY;
	ret = prdma_post_send(e->qp[0], &wr, &bad);
	if (ret == 0) {
		if (!conf_poll_one(e->cq[0][0], &wc, CONF_WAIT_MS))
			fail_msg("UD SEND of MTU + 1 bytes: expected -EINVAL or an error "
				 "completion, got no completion");
		if (wc.status == PRDMA_WC_SUCCESS)
			fail_msg("UD SEND of MTU + 1 bytes: expected -EINVAL or an error "
				 "completion, got success");
	} else {
		conf_check_rc(ret, -EINVAL, "UD SEND of MTU + 1 bytes");
		CONF_TRUE("bad_wr names the oversized request", bad == &wr);
	}
	conf_expect_no_wc(e->cq[1][1], CONF_QUIET_MS, "receiver of an oversized UD SEND");
}

static void
test_ud_send(void **state)
{
	struct conf_ctx *ctx = *state;
	uint32_t mtu = conf_mtu_bytes();
	const uint32_t lens[] = { 0, 1, 100, mtu };
	struct prdma_wc wc;
	struct ud_env e;
	unsigned int i, k;
	char what[64];

	CONF_REQUIRE_CAP(CONF_A, PRDMA_DEV_CAP_UD);
	ud_env_make(ctx, &e);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < RTE_DIM(lens); i++) {
			uint32_t seed = 10 * k + i, imm = 0xfeed0000u + seed;

			snprintf(what, sizeof(what), "UD %s %u B",
				 k ? "SEND_WITH_IMM" : "SEND", lens[i]);
			memset(e.b.p, 0, lens[i] + UD_GRH + 64);
			t_pattern_fill(e.a.p, lens[i], seed);
			conf_post_recv(e.qp[1], seed, e.b.p, UD_GRH + mtu, e.b.mr->lkey, what);
			ud_send(&e, seed, k ? PRDMA_WR_SEND_WITH_IMM : PRDMA_WR_SEND, lens[i],
				CONF_QKEY, imm, what);
			conf_expect_wc(e.cq[1][1], &wc, what, seed, PRDMA_WC_SUCCESS,
				       PRDMA_WC_RECV);
			CONF_EQ("UD receive PRDMA_WC_GRH", PRDMA_WC_GRH,
				wc.wc_flags & PRDMA_WC_GRH);
			CONF_EQ("UD receive byte_len (GRH + payload)", UD_GRH + lens[i],
				wc.byte_len);
			CONF_EQ("UD receive src_qp", e.qp[0]->qp_num, wc.src_qp);
			CONF_EQ("UD receive qp_num", e.qp[1]->qp_num, wc.qp_num);
			CONF_EQ("UD receive PRDMA_WC_WITH_IMM", k ? PRDMA_WC_WITH_IMM : 0,
				wc.wc_flags & PRDMA_WC_WITH_IMM);
			if (k)
				CONF_EQ("UD receive imm_data", imm, wc.imm_data);
			conf_check_data(e.b.p + UD_GRH, lens[i], seed,
					"UD payload at offset 40");
			conf_check_bytes(e.b.p + UD_GRH + lens[i], 64, 0, what);
		}
	}
	ud_oversize(&e, mtu);
}

static void
test_ud_wrong_qkey(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_wc wc;
	struct ud_env e;

	CONF_REQUIRE_CAP(CONF_A, PRDMA_DEV_CAP_UD);
	ud_env_make(ctx, &e);
	conf_post_recv(e.qp[1], 1, e.b.p, 4096, e.b.mr->lkey, "receive");
	memset(e.b.p, 0, 4096);
	t_pattern_fill(e.a.p, 64, 5);
	/* MSB clear: the WR's Q_Key is used as given. */
	ud_send(&e, 1, PRDMA_WR_SEND, 64, CONF_QKEY ^ 0x00010000u, 0,
		"UD SEND with a wrong Q_Key");
	conf_expect_no_wc(e.cq[1][1], CONF_QUIET_MS, "receiver of a wrong Q_Key");
	conf_check_bytes(e.b.p, 4096, 0, "receive buffer after a wrong Q_Key");
	/* The receive is still there for a correct datagram. */
	ud_send(&e, 2, PRDMA_WR_SEND, 64, CONF_QKEY, 0, "UD SEND with the right Q_Key");
	conf_expect_wc(e.cq[1][1], &wc, "receiver of the right Q_Key", 1, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RECV);
	conf_check_data(e.b.p + UD_GRH, 64, 5, "UD payload");
}

/* An AH keeps what it was given; modify changes it. */
static void
test_ah_query_modify(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_ah_attr q, m;
	struct prdma_ah *ah;

	ah = conf_ah(ctx, CONF_A, NULL, &CONF_B->gid);
	memset(&q, 0, sizeof(q));
	CONF_EQ("prdma_ah_query", 0, prdma_ah_query(ah, &q));
	if (memcmp(&q.dgid, &CONF_B->gid, sizeof(q.dgid)) != 0)
		fail_msg("ah_query dgid: expected B's GID");
	CONF_EQ("ah_query port_num", 1, q.port_num);
	m = q;
	m.hop_limit = 17;
	m.traffic_class = 0x48;
	m.flow_label = 0x12345;
	conf_check_rc(prdma_ah_modify(ah, &m), 0, "prdma_ah_modify");
	memset(&q, 0, sizeof(q));
	CONF_EQ("prdma_ah_query", 0, prdma_ah_query(ah, &q));
	CONF_EQ("hop_limit after modify", 17, q.hop_limit);
	CONF_EQ("traffic_class after modify", 0x48, q.traffic_class);
	CONF_EQ("flow_label after modify", 0x12345, q.flow_label);
	m.port_num = 0;
	conf_check_rc(prdma_ah_modify(ah, &m), -EINVAL, "ah_modify to port 0");
	m.port_num = 1;
	m.flow_label = 0x100000;
	conf_check_rc(prdma_ah_modify(ah, &m), -EINVAL, "ah_modify with a 21-bit flow label");
	CONF_EQ("prdma_ah_query", 0, prdma_ah_query(ah, &q));
	CONF_EQ("flow_label after refused modifies", 0x12345, q.flow_label);
}

int
conf_group_ucud(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_uc_send_write, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_ud_send, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_ud_wrong_qkey, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_ah_query_modify, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("uc-ud", tests, conf_group_setup,
					   conf_group_teardown);
}
