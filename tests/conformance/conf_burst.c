/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The contract of prdma_post_send_burst: an array of requests (their next
 * fields ignored) posted as prdma_post_send would post them as a chain,
 * with the same errors: -ENOMEM for the first that does not fit, -EINVAL
 * for a bad one, -EBADMSG before RTS, and bad_wr naming the element that
 * failed (those before it posted). Every provider runs it, through its own
 * burst or the library's.
 */

#include <string.h>

#include "conf.h"

#define B_ACCESS (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE | \
		  PRDMA_ACCESS_REMOTE_READ)
#define B_N 12
/* request k is a SEND when k % 4 == 3; the last one is a READ */
#define B_IS_SEND(k) ((k) % 4 == 3 && (k) != B_N - 1)

/* A stray request that a burst must not follow through next. */
static struct prdma_send_wr stray_wr = { .opcode = PRDMA_WR_MAX };

/*
 * Inline and gather WRITEs, SENDs and a READ in one burst: all complete in
 * array order, the data lands, and nb == 0 posts nothing.
 */
static void
test_burst_mixed(void **state)
{
	struct conf_ctx *ctx = *state;
	const struct prdma_send_wr *bad = NULL;
	struct prdma_send_wr wr[B_N];
	struct prdma_sge sge[B_N];
	struct conf_qp_opts o;
	struct conf_buf a, b;
	struct conf_pair p;
	struct prdma_wc wc;
	char what[64];
	uint32_t k, len;

	conf_opts_default(&o, PRDMA_QPT_RC);
	o.max_send_wr = 32;
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, 8192, B_ACCESS);
	conf_buf_make(ctx, &b, CONF_B->pd, 8192, B_ACCESS);
	for (k = 0; k < B_N; k++) {
		uint8_t *src = a.p + 256 * k;
		enum prdma_wr_opcode op = B_IS_SEND(k) ? PRDMA_WR_SEND : PRDMA_WR_RDMA_WRITE;

		len = 1 + (k * 29) % 64;
		memset(src, 0x30 + k, len);
		conf_wr_init(&wr[k], &sge[k], 100 + k, op, src, len, a.mr->lkey);
		if (k % 2 == 0)
			wr[k].send_flags |= PRDMA_SEND_INLINE;
		wr[k].wr.rdma.remote_addr = (uintptr_t)(b.p + 256 * k);
		wr[k].wr.rdma.rkey = b.mr->rkey;
		wr[k].next = &stray_wr;
		if (op == PRDMA_WR_SEND)
			conf_post_recv(p.s[1].qp, 100 + k, b.p + 256 * k, 256, b.mr->lkey,
				       "receive");
	}
	/* the last one reads back what the first one wrote */
	conf_wr_init(&wr[B_N - 1], &sge[B_N - 1], 100 + B_N - 1, PRDMA_WR_RDMA_READ,
		     a.p + 4096, 1, a.mr->lkey);
	wr[B_N - 1].wr.rdma.remote_addr = (uintptr_t)b.p;
	wr[B_N - 1].wr.rdma.rkey = b.mr->rkey;
	CONF_EQ("burst of 0", 0, prdma_post_send_burst(p.s[0].qp, wr, 0, &bad));
	conf_expect_no_wc(p.s[0].scq, 1, "a burst of 0");
	conf_check_rc(prdma_post_send_burst(p.s[0].qp, wr, B_N, &bad), 0, "burst");
	for (k = 0; k < B_N; k++) {
		snprintf(what, sizeof(what), "burst request %u", k);
		conf_expect_wc(p.s[0].scq, &wc, what, 100 + k, PRDMA_WC_SUCCESS,
			       k == B_N - 1 ? PRDMA_WC_RDMA_READ :
			       B_IS_SEND(k) ? PRDMA_WC_SEND : PRDMA_WC_RDMA_WRITE);
		if (B_IS_SEND(k)) {
			conf_expect_wc(p.s[1].rcq, &wc, what, 100 + k, PRDMA_WC_SUCCESS,
				       PRDMA_WC_RECV);
			CONF_EQ(what, 1 + (k * 29) % 64, wc.byte_len);
		}
		if (k != B_N - 1)
			conf_check_bytes(b.p + 256 * k, 1 + (k * 29) % 64, 0x30 + k, what);
	}
	CONF_EQ("READ of the first WRITE", 0x30, a.p[4096]);
	conf_expect_no_wc(p.s[0].scq, 1, "the stray request behind next");
}

/* More requests than the ring holds: -ENOMEM at the first that does not fit. */
static void
test_burst_queue_full(void **state)
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

	conf_opts_default(&o, PRDMA_QPT_RC);
	o.max_send_wr = 8;
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, 4096, B_ACCESS);
	conf_buf_make(ctx, &b, CONF_B->pd, 4096, B_ACCESS);
	CONF_EQ("qp_query", 0, prdma_qp_query(p.s[0].qp, NULL, &ia));
	cap = ia.cap.max_send_wr;
	if (cap + 1 > RTE_DIM(wr)) {
		print_message("[ SKIP ] send queue of %u is deeper than this test\n", cap);
		skip();
	}
	/* No receive at B and RNR retried forever: nothing completes meanwhile. */
	for (i = 0; i <= cap; i++) {
		conf_wr_init(&wr[i], &sge[i], i, PRDMA_WR_SEND, a.p, 8, a.mr->lkey);
		wr[i].send_flags |= i % 2 ? PRDMA_SEND_INLINE : 0;
	}
	conf_check_rc(prdma_post_send_burst(p.s[0].qp, wr, (uint16_t)(cap + 1), &bad),
		      -ENOMEM, "a burst of max_send_wr + 1 sends");
	if (bad != &wr[cap])
		fail_msg("bad_wr: expected request %u (the first that did not fit), got %td",
			 cap, bad - wr);
	CONF_EQ("rte_errno", ENOMEM, rte_errno);
	/* a full ring refuses the next burst at its first request */
	bad = NULL;
	conf_check_rc(prdma_post_send_burst(p.s[0].qp, wr, 1, &bad), -ENOMEM,
		      "a burst on a full ring");
	CONF_TRUE("bad_wr is the first request", bad == &wr[0]);
	for (i = 0; i < cap; i++)
		conf_post_recv(p.s[1].qp, i, b.p, 4096, b.mr->lkey, "receive");
	for (i = 0; i < cap; i++)
		conf_expect_wc(p.s[0].scq, &wc, "send that fitted", i, PRDMA_WC_SUCCESS,
			       PRDMA_WC_SEND);
	conf_expect_no_wc(p.s[0].scq, 1, "the request that did not fit");
}

struct burst_bad {
	const char *name;
	enum prdma_qp_type type;
	enum prdma_wr_opcode op;
	uint32_t flags;                    /* added to SIGNALED */
	uint32_t num_sge;                  /* 0: one; UINT32_MAX: max + 1 */
	uint32_t len;                      /* 0: 8 bytes; UINT32_MAX: max_inline + 1 */
};

static const struct burst_bad burst_bads[] = {
	{ "RDMA_READ on UC", PRDMA_QPT_UC, PRDMA_WR_RDMA_READ, 0, 0, 0 },
	{ "RDMA_WRITE on UD", PRDMA_QPT_UD, PRDMA_WR_RDMA_WRITE, 0, 0, 0 },
	{ "opcode PRDMA_WR_MAX", PRDMA_QPT_RC, PRDMA_WR_MAX, 0, 0, 0 },
	{ "more SGEs than max_send_sge", PRDMA_QPT_RC, PRDMA_WR_SEND, 0, UINT32_MAX, 0 },
	{ "inline WRITE over max_inline_data", PRDMA_QPT_RC, PRDMA_WR_RDMA_WRITE,
	  PRDMA_SEND_INLINE, 0, UINT32_MAX },
};

/*
 * A bad request as the third of a burst of four: -EINVAL, bad_wr = &wr[2],
 * the two before it posted (they complete, to a QP that answers, or flush
 * when the QP is destroyed) and the one after it not.
 */
static void
test_burst_invalid(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_sge sge[64];
	struct conf_buf a;
	struct prdma_cq *cq;
	unsigned int i, k;
	char what[96];

	conf_buf_make(ctx, &a, CONF_A->pd, 8192, B_ACCESS);
	cq = conf_cq(ctx, CONF_A, 64, 0);
	for (k = 0; k < 64; k++) {
		sge[k].addr = (uintptr_t)a.p;
		sge[k].length = 8;
		sge[k].lkey = a.mr->lkey;
	}
	for (i = 0; i < RTE_DIM(burst_bads); i++) {
		const struct burst_bad *v = &burst_bads[i];
		const struct prdma_send_wr *bad = NULL;
		struct prdma_send_wr wr[4];
		struct prdma_sge big;
		struct prdma_ah *ah = NULL;
		struct prdma_qp_init_attr ia;
		struct conf_qp_opts o;
		struct prdma_qp *qp;
		struct prdma_wc wc;
		unsigned int flushed = 0;

		conf_opts_default(&o, v->type);
		qp = conf_qp(ctx, CONF_A, NULL, &o, cq, cq, NULL);
		conf_qp_connect(qp, &o, &CONF_B->gid, 0x100, 0, 0);
		if (v->type == PRDMA_QPT_UD)
			ah = conf_ah(ctx, CONF_A, NULL, &CONF_B->gid);
		CONF_EQ("qp_query", 0, prdma_qp_query(qp, NULL, &ia));
		for (k = 0; k < 4; k++) {
			memset(&wr[k], 0, sizeof(wr[k]));
			wr[k].wr_id = k;
			wr[k].sg_list = sge;
			wr[k].num_sge = 1;
			wr[k].opcode = PRDMA_WR_SEND;
			wr[k].send_flags = PRDMA_SEND_SIGNALED | (k == 1 ? PRDMA_SEND_INLINE : 0);
			wr[k].wr.ud.ah = ah;
			wr[k].wr.ud.remote_qpn = 0x100;
			wr[k].wr.ud.remote_qkey = CONF_QKEY;
		}
		wr[2].opcode = v->op;
		wr[2].send_flags |= v->flags;
		if (v->num_sge == UINT32_MAX) {
			if (ia.cap.max_send_sge + 1 > 64)
				continue;
			wr[2].num_sge = ia.cap.max_send_sge + 1;
		}
		if (v->len == UINT32_MAX) {
			if (ia.cap.max_inline_data + 1 > 8192)
				continue;
			big.addr = (uintptr_t)a.p;
			big.length = ia.cap.max_inline_data + 1;
			big.lkey = a.mr->lkey;
			wr[2].sg_list = &big;
		}
		wr[2].wr.rdma.remote_addr = (uintptr_t)a.p;
		snprintf(what, sizeof(what), "burst with %s third", v->name);
		rte_errno = 0;
		conf_check_rc(prdma_post_send_burst(qp, wr, 4, &bad), -EINVAL, what);
		CONF_EQ("rte_errno", EINVAL, rte_errno);
		if (bad != &wr[2])
			fail_msg("%s: expected bad_wr = the third request, got %td", what,
				 bad - wr);
		/* The two before it were taken: they complete or the destroy flushes them. */
		CONF_EQ("destroy", 0, prdma_qp_destroy(qp));
		conf_forget(ctx, qp);
		while (prdma_cq_poll(cq, 1, &wc) == 1) {
			if (wc.wr_id >= 2)
				fail_msg("%s: request %" PRIu64 " (not posted) completed", what,
					 wc.wr_id);
			flushed++;
		}
		if (v->type != PRDMA_QPT_UD && flushed > 2)
			fail_msg("%s: %u completions for two requests", what, flushed);
		if (ah != NULL) {
			CONF_EQ("ah_destroy", 0, prdma_ah_destroy(ah));
			conf_forget(ctx, ah);
		}
	}
}

/* Before RTS: -EBADMSG at the first request, nothing posted. */
static void
test_burst_not_rts(void **state)
{
	struct conf_ctx *ctx = *state;
	const struct prdma_send_wr *bad = NULL;
	struct prdma_send_wr wr[2];
	struct prdma_sge sge[2];
	struct conf_qp_opts o;
	struct prdma_qp *qp;
	struct prdma_cq *cq;
	struct conf_buf a;

	conf_buf_make(ctx, &a, CONF_A->pd, 4096, B_ACCESS);
	cq = conf_cq(ctx, CONF_A, 16, 0);
	conf_opts_default(&o, PRDMA_QPT_RC);
	qp = conf_qp(ctx, CONF_A, NULL, &o, cq, cq, NULL);
	conf_wr_init(&wr[0], &sge[0], 1, PRDMA_WR_SEND, a.p, 8, a.mr->lkey);
	conf_wr_init(&wr[1], &sge[1], 2, PRDMA_WR_SEND, a.p, 8, a.mr->lkey);
	rte_errno = 0;
	conf_check_rc(prdma_post_send_burst(qp, wr, 2, &bad), -EBADMSG,
		      "a burst on a QP in RESET");
	CONF_EQ("rte_errno", EBADMSG, rte_errno);
	CONF_TRUE("bad_wr is the first request", bad == &wr[0]);
	conf_expect_no_wc(cq, 1, "a burst refused in RESET");
}

int
conf_group_burst(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_burst_mixed, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_burst_queue_full, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_burst_invalid, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_burst_not_rts, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("burst", tests, conf_group_setup,
					   conf_group_teardown);
}
