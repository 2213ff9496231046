/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The post contract of prdma_fp.h: a full queue gives -ENOMEM, a bad
 * request -EINVAL, and bad_wr names the first request not posted (those
 * before it were posted); a long chain of mixed requests completes in
 * order.
 */

#include <string.h>

#include "conf.h"

#define P_ACCESS (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE | \
		  PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_ATOMIC)
#define P_DEPTH 8

static void
test_post_send_queue_full(void **state)
{
	struct conf_ctx *ctx = *state;
	const struct prdma_send_wr *bad = NULL;
	struct prdma_send_wr wr[64];
	struct prdma_sge sge[64];
	struct prdma_qp_init_attr ia;
	struct conf_qp_opts o;
	struct conf_buf a, b;
	struct conf_pair p;
	struct prdma_wc wc;
	uint32_t cap, i;
	int ret;

	conf_opts_default(&o, PRDMA_QPT_RC);
	o.max_send_wr = P_DEPTH;
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, 4096, P_ACCESS);
	conf_buf_make(ctx, &b, CONF_B->pd, 4096, P_ACCESS);
	CONF_EQ("qp_query", 0, prdma_qp_query(p.s[0].qp, NULL, &ia));
	cap = ia.cap.max_send_wr;
	if (cap + 1 > RTE_DIM(wr)) {
		print_message("[ SKIP ] send queue of %u is deeper than this test\n", cap);
		skip();
	}
	/* No receive at B and RNR retried forever: nothing completes. */
	for (i = 0; i <= cap; i++) {
		conf_wr_init(&wr[i], &sge[i], i, PRDMA_WR_SEND, a.p, 8, a.mr->lkey);
		wr[i].next = i < cap ? &wr[i + 1] : NULL;
	}
	ret = prdma_post_send(p.s[0].qp, &wr[0], &bad);
	conf_check_rc(ret, -ENOMEM, "posting max_send_wr + 1 sends");
	if (bad != &wr[cap])
		fail_msg("bad_wr: expected request %u (the first that did not fit), got "
			 "%td", cap, bad - wr);
	/* The ones that fit were posted: a receive lets all of them through. */
	for (i = 0; i < cap; i++)
		conf_post_recv(p.s[1].qp, i, b.p, 4096, b.mr->lkey, "receive");
	for (i = 0; i < cap; i++)
		conf_expect_wc(p.s[0].scq, &wc, "send that fitted", i, PRDMA_WC_SUCCESS,
			       PRDMA_WC_SEND);
	conf_expect_no_wc(p.s[0].scq, 1, "the request that did not fit");
}

static void
test_post_recv_queue_full(void **state)
{
	struct conf_ctx *ctx = *state;
	const struct prdma_recv_wr *bad = NULL;
	struct prdma_recv_wr wr[64];
	struct prdma_qp_init_attr ia;
	struct conf_qp_opts o;
	struct prdma_sge sge;
	struct conf_buf b;
	struct conf_pair p;
	uint32_t cap, i;
	int ret;

	conf_opts_default(&o, PRDMA_QPT_RC);
	o.max_recv_wr = P_DEPTH;
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &b, CONF_B->pd, 4096, P_ACCESS);
	CONF_EQ("qp_query", 0, prdma_qp_query(p.s[1].qp, NULL, &ia));
	cap = ia.cap.max_recv_wr;
	if (cap + 1 > RTE_DIM(wr)) {
		print_message("[ SKIP ] receive queue of %u is deeper than this test\n", cap);
		skip();
	}
	sge.addr = (uintptr_t)b.p;
	sge.length = 64;
	sge.lkey = b.mr->lkey;
	for (i = 0; i <= cap; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i < cap ? &wr[i + 1] : NULL;
	}
	ret = prdma_post_recv(p.s[1].qp, &wr[0], &bad);
	conf_check_rc(ret, -ENOMEM, "posting max_recv_wr + 1 receives");
	if (bad != &wr[cap])
		fail_msg("bad_wr: expected receive %u, got %td", cap, bad - wr);
}

struct bad_post {
	const char *name;
	enum prdma_qp_type type;
	enum prdma_wr_opcode op;
	uint32_t num_sge;                  /* 0: one; UINT32_MAX: max + 1 */
};

static const struct bad_post bad_posts[] = {
	{ "RDMA_READ on UC", PRDMA_QPT_UC, PRDMA_WR_RDMA_READ, 0 },
	{ "ATOMIC_CMP_AND_SWP on UC", PRDMA_QPT_UC, PRDMA_WR_ATOMIC_CMP_AND_SWP, 0 },
	{ "RDMA_WRITE on UD", PRDMA_QPT_UD, PRDMA_WR_RDMA_WRITE, 0 },
	{ "RDMA_READ on UD", PRDMA_QPT_UD, PRDMA_WR_RDMA_READ, 0 },
	{ "opcode PRDMA_WR_MAX", PRDMA_QPT_RC, PRDMA_WR_MAX, 0 },
	{ "more SGEs than max_send_sge", PRDMA_QPT_RC, PRDMA_WR_SEND, UINT32_MAX },
};

/* A bad request in the middle of a chain: the first one is posted. */
static void
test_post_send_invalid(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_sge sge[64];
	struct conf_buf a;
	struct prdma_cq *cq;
	unsigned int i, k;
	char what[96];

	conf_buf_make(ctx, &a, CONF_A->pd, 4096, P_ACCESS);
	cq = conf_cq(ctx, CONF_A, 64, 0);
	for (k = 0; k < 64; k++) {
		sge[k].addr = (uintptr_t)a.p;
		sge[k].length = 8;
		sge[k].lkey = a.mr->lkey;
	}
	for (i = 0; i < RTE_DIM(bad_posts); i++) {
		const struct bad_post *v = &bad_posts[i];
		const struct prdma_send_wr *bad = NULL;
		struct prdma_send_wr wr[2];
		struct prdma_ah *ah = NULL;
		struct conf_qp_opts o;
		struct prdma_qp_init_attr ia;
		struct prdma_qp *qp;
		struct prdma_wc wc;

		conf_opts_default(&o, v->type);
		qp = conf_qp(ctx, CONF_A, NULL, &o, cq, cq, NULL);
		conf_qp_connect(qp, &o, &CONF_B->gid, 0x100, 0, 0);
		if (v->type == PRDMA_QPT_UD)
			ah = conf_ah(ctx, CONF_A, NULL, &CONF_B->gid);
		CONF_EQ("qp_query", 0, prdma_qp_query(qp, NULL, &ia));
		for (k = 0; k < 2; k++) {
			memset(&wr[k], 0, sizeof(wr[k]));
			wr[k].wr_id = k;
			wr[k].sg_list = sge;
			wr[k].num_sge = 1;
			wr[k].wr.ud.ah = ah;
			wr[k].wr.ud.remote_qpn = 0x100;
			wr[k].wr.ud.remote_qkey = CONF_QKEY;
		}
		/* wr[0]: a request the QP accepts (UC/RC to a QP that is not there). */
		wr[0].opcode = PRDMA_WR_SEND;
		wr[0].next = &wr[1];
		wr[1].opcode = v->op;
		if (v->num_sge == UINT32_MAX) {
			if (ia.cap.max_send_sge + 1 > 64)
				continue;
			wr[1].num_sge = ia.cap.max_send_sge + 1;
		}
		wr[1].wr.rdma.remote_addr = (uintptr_t)a.p;
		snprintf(what, sizeof(what), "post of %s", v->name);
		conf_check_rc(prdma_post_send(qp, &wr[0], &bad), -EINVAL, what);
		if (bad != &wr[1])
			fail_msg("%s: expected bad_wr = the second request, got %s", what,
				 bad == &wr[0] ? "the first" : "something else");
		/* The valid one before it was taken: destroy flushes it. */
		CONF_EQ("destroy", 0, prdma_qp_destroy(qp));
		conf_forget(ctx, qp);
		while (prdma_cq_poll(cq, 1, &wc) == 1)
			;
		if (ah != NULL) {
			CONF_EQ("ah_destroy", 0, prdma_ah_destroy(ah));
			conf_forget(ctx, ah);
		}
	}
}

/* A long chain of mixed requests completes in posting order. */
static void
test_post_pipeline(void **state)
{
	static const enum prdma_wr_opcode ops[] = {
		PRDMA_WR_RDMA_WRITE, PRDMA_WR_RDMA_READ, PRDMA_WR_SEND,
		PRDMA_WR_ATOMIC_FETCH_AND_ADD, PRDMA_WR_RDMA_READ, PRDMA_WR_RDMA_WRITE,
		PRDMA_WR_SEND_WITH_IMM, PRDMA_WR_RDMA_READ,
	};
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr[48];
	struct prdma_sge sge[48];
	struct conf_qp_opts o;
	struct conf_buf a, b;
	struct conf_pair p;
	struct prdma_wc wc;
	uint64_t *counter;
	unsigned int i, n = RTE_DIM(wr), nrecv = 0, nfadd = 0;
	int atomics = (CONF_A->attr.flags & PRDMA_DEV_CAP_ATOMIC) != 0;
	char what[64];

	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, 128 * 1024, P_ACCESS);
	conf_buf_make(ctx, &b, CONF_B->pd, 128 * 1024, P_ACCESS);
	counter = (uint64_t *)(b.p + 127 * 1024);
	*counter = 0;
	for (i = 0; i < n; i++) {
		enum prdma_wr_opcode op = ops[i % RTE_DIM(ops)];
		uint32_t len = 100 + 97 * i;
		uint8_t *la = a.p + 2048 * i, *ra = b.p + 2048 * i;

		if (op == PRDMA_WR_ATOMIC_FETCH_AND_ADD && !atomics)
			op = PRDMA_WR_RDMA_WRITE;
		if (op == PRDMA_WR_ATOMIC_FETCH_AND_ADD)
			len = 8;
		len = RTE_MIN(len, 2048u);
		if (op == PRDMA_WR_RDMA_READ)
			t_pattern_fill(ra, len, i);
		else
			t_pattern_fill(la, len, i);
		conf_wr_init(&wr[i], &sge[i], i, op, la, len, a.mr->lkey);
		wr[i].imm_data = i;
		wr[i].wr.rdma.remote_addr = (uintptr_t)ra;
		wr[i].wr.rdma.rkey = b.mr->rkey;
		if (op == PRDMA_WR_ATOMIC_FETCH_AND_ADD) {
			wr[i].wr.atomic.remote_addr = (uintptr_t)counter;
			wr[i].wr.atomic.rkey = b.mr->rkey;
			wr[i].wr.atomic.compare_add = 1;
			nfadd++;
		}
		if (op == PRDMA_WR_SEND || op == PRDMA_WR_SEND_WITH_IMM)
			conf_post_recv(p.s[1].qp, i, ra, 2048, b.mr->lkey, "receive");
		/* Half the requests unsignaled: order must hold regardless. */
		if (i % 2 == 1 && op != PRDMA_WR_RDMA_READ &&
		    op != PRDMA_WR_ATOMIC_FETCH_AND_ADD)
			wr[i].send_flags = 0;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	conf_post_send(p.s[0].qp, &wr[0], "chain of 48 mixed requests");
	for (i = 0; i < n; i++) {
		if (wr[i].send_flags == 0)
			continue;
		snprintf(what, sizeof(what), "request %u (opcode %d) in order", i,
			 wr[i].opcode);
		conf_expect_wc(p.s[0].scq, &wc, what, i, PRDMA_WC_SUCCESS, -1);
	}
	conf_expect_no_wc(p.s[0].scq, 1, "after the chain");
	for (i = 0; i < n; i++) {
		uint8_t *la = a.p + 2048 * i, *ra = b.p + 2048 * i;

		if (wr[i].opcode == PRDMA_WR_ATOMIC_FETCH_AND_ADD)
			continue;
		snprintf(what, sizeof(what), "request %u (opcode %d) data", i, wr[i].opcode);
		conf_check_data(wr[i].opcode == PRDMA_WR_RDMA_READ ? la : ra,
				sge[i].length, i, what);
		if (wr[i].opcode == PRDMA_WR_SEND || wr[i].opcode == PRDMA_WR_SEND_WITH_IMM) {
			conf_expect_wc(p.s[1].rcq, &wc, what, i, PRDMA_WC_SUCCESS,
				       PRDMA_WC_RECV);
			nrecv++;
		}
	}
	CONF_TRUE("the chain had receives", nrecv > 0);
	CONF_EQ("FETCH_ADDs applied exactly once", nfadd, *counter);
}

/*
 * Many more requests than the queues are deep, in batches: every ring
 * (send queue, receive queue, both CQs) wraps many times.
 */
static void
test_post_ring_wrap(void **state)
{
	struct conf_ctx *ctx = *state;
	const unsigned int total = 600, batch = 6;
	struct prdma_send_wr wr[6];
	struct prdma_sge sge[6];
	struct conf_qp_opts o;
	struct conf_buf a, b;
	struct conf_pair p;
	struct prdma_wc wc;
	unsigned int i, k;
	char what[64];

	conf_opts_default(&o, PRDMA_QPT_RC);
	o.max_send_wr = P_DEPTH;
	o.max_recv_wr = P_DEPTH;
	o.cq_depth = P_DEPTH;
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, batch * 256, P_ACCESS);
	conf_buf_make(ctx, &b, CONF_B->pd, batch * 256, P_ACCESS);
	for (i = 0; i < total; i += batch) {
		for (k = 0; k < batch; k++) {
			uint32_t len = 1 + (i + k) % 255;

			t_pattern_fill(a.p + 256 * k, len, i + k);
			conf_post_recv(p.s[1].qp, i + k, b.p + 256 * k, 256, b.mr->lkey,
				       "receive");
			conf_wr_init(&wr[k], &sge[k], i + k,
				     k % 3 == 2 ? PRDMA_WR_SEND_WITH_IMM : PRDMA_WR_SEND,
				     a.p + 256 * k, len, a.mr->lkey);
			wr[k].imm_data = i + k;
			wr[k].next = k + 1 < batch ? &wr[k + 1] : NULL;
		}
		conf_post_send(p.s[0].qp, &wr[0], "batch of sends");
		for (k = 0; k < batch; k++) {
			snprintf(what, sizeof(what), "message %u", i + k);
			conf_expect_wc(p.s[0].scq, &wc, what, i + k, PRDMA_WC_SUCCESS,
				       PRDMA_WC_SEND);
			conf_expect_wc(p.s[1].rcq, &wc, what, i + k, PRDMA_WC_SUCCESS,
				       PRDMA_WC_RECV);
			CONF_EQ(what, 1 + (i + k) % 255, wc.byte_len);
			if (k % 3 == 2)
				CONF_EQ("imm_data", i + k, wc.imm_data);
			conf_check_data(b.p + 256 * k, wc.byte_len, i + k, what);
		}
	}
}

int
conf_group_post(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_post_send_queue_full, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_post_recv_queue_full, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_post_send_invalid, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_post_pipeline, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_post_ring_wrap, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("post", tests, conf_group_setup,
					   conf_group_teardown);
}
