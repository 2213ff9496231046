/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Error completions: local protection, remote access (keys, bounds, rights,
 * PDs), receive length and misaligned atomics. Remote errors are checked on
 * both sides and around the target: no byte outside the allowed range may
 * change.
 */

#include <string.h>

#include "conf.h"

#define E_PAGE 4096
#define E_CANARY 0xa5
#define E_ALL (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE | \
	       PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_ATOMIC)

/* A posts one request; expect @p status at A and nothing at B. */
static void
local_err(struct conf_pair *p, struct prdma_send_wr *wr, enum prdma_wc_status status,
	  const char *what)
{
	struct prdma_wc wc;

	conf_post_send(p->s[0].qp, wr, what);
	conf_expect_wc(p->s[0].scq, &wc, what, wr->wr_id, status, -1);
	conf_expect_no_wc(p->s[1].rcq, CONF_QUIET_MS, "receiver of a refused request");
	conf_check_qp_state(p->s[0].qp, PRDMA_QPS_ERR, what);
}

static void
test_bad_lkey(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr;
	struct conf_qp_opts o;
	struct prdma_sge sge;
	struct conf_buf a, b;
	struct conf_pair p;

	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, E_PAGE, E_ALL);
	conf_buf_make(ctx, &b, CONF_B->pd, E_PAGE, E_ALL);
	conf_post_recv(p.s[1].qp, 1, b.p, E_PAGE, b.mr->lkey, "receive");
	conf_wr_init(&wr, &sge, 1, PRDMA_WR_SEND, a.p, 64, ~a.mr->lkey);
	local_err(&p, &wr, PRDMA_WC_LOC_PROT_ERR, "SEND with an unknown lkey");
}

static void
test_lkey_out_of_bounds(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr;
	struct conf_qp_opts o;
	struct prdma_sge sge;
	struct conf_buf a, b;
	struct conf_pair p;

	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, E_PAGE, E_ALL);
	conf_buf_make(ctx, &b, CONF_B->pd, E_PAGE, E_ALL);
	conf_post_recv(p.s[1].qp, 1, b.p, E_PAGE, b.mr->lkey, "receive");
	conf_wr_init(&wr, &sge, 1, PRDMA_WR_SEND, a.p + E_PAGE - 63, 64, a.mr->lkey);
	local_err(&p, &wr, PRDMA_WC_LOC_PROT_ERR, "SEND one byte past the local MR");
}

static void
test_lkey_other_pd(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr;
	struct conf_qp_opts o;
	struct prdma_sge sge;
	struct conf_buf a, b;
	struct prdma_pd *pd2;
	struct conf_pair p;

	pd2 = prdma_pd_alloc(CONF_A->dev);
	CONF_TRUE("second PD on A", pd2 != NULL);
	conf_track(ctx, CONF_OBJ_PD, pd2);
	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, pd2, E_PAGE, E_ALL);
	conf_buf_make(ctx, &b, CONF_B->pd, E_PAGE, E_ALL);
	conf_post_recv(p.s[1].qp, 1, b.p, E_PAGE, b.mr->lkey, "receive");
	conf_wr_init(&wr, &sge, 1, PRDMA_WR_SEND, a.p, 64, a.mr->lkey);
	local_err(&p, &wr, PRDMA_WC_LOC_PROT_ERR, "SEND with the lkey of another PD");
}

/* Remote access errors: how the request is wrong. */
enum rem_kind {
	REM_OK_KEY,                        /* valid rkey, see offset */
	REM_BAD_KEY,
	REM_OTHER_PD,                      /* MR in a PD other than the QP's */
};

struct rem_variant {
	const char *name;
	enum prdma_wr_opcode op;
	enum rem_kind kind;
	uint32_t mr_access;                /* B's target MR */
	uint32_t qp_access;                /* B's QP */
	long offset;                       /* from the MR start; < 0 before it */
	uint32_t len;
	int whole_unchanged;               /* nothing at all may change */
};

#define MR_END(len) ((long)E_PAGE - (long)(len) + 1)

static const struct rem_variant rem_variants[] = {
	{ "WRITE with an unknown rkey", PRDMA_WR_RDMA_WRITE, REM_BAD_KEY, E_ALL, E_ALL,
	  0, 64, 1 },
	{ "READ with an unknown rkey", PRDMA_WR_RDMA_READ, REM_BAD_KEY, E_ALL, E_ALL,
	  0, 64, 1 },
	{ "WRITE one byte past the MR end", PRDMA_WR_RDMA_WRITE, REM_OK_KEY, E_ALL, E_ALL,
	  MR_END(64), 64, 0 },
	{ "READ one byte past the MR end", PRDMA_WR_RDMA_READ, REM_OK_KEY, E_ALL, E_ALL,
	  MR_END(64), 64, 1 },
	{ "WRITE one byte before the MR start", PRDMA_WR_RDMA_WRITE, REM_OK_KEY, E_ALL,
	  E_ALL, -1, 64, 0 },
	{ "WRITE to an MR without REMOTE_WRITE", PRDMA_WR_RDMA_WRITE, REM_OK_KEY,
	  PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_READ |
	  PRDMA_ACCESS_REMOTE_ATOMIC, E_ALL, 0, 64, 1 },
	{ "READ from an MR without REMOTE_READ", PRDMA_WR_RDMA_READ, REM_OK_KEY,
	  PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE |
	  PRDMA_ACCESS_REMOTE_ATOMIC, E_ALL, 0, 64, 1 },
	{ "CAS on an MR without REMOTE_ATOMIC", PRDMA_WR_ATOMIC_CMP_AND_SWP, REM_OK_KEY,
	  PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ,
	  E_ALL, 0, 8, 1 },
	{ "FETCH_ADD on an MR without REMOTE_ATOMIC", PRDMA_WR_ATOMIC_FETCH_AND_ADD,
	  REM_OK_KEY, PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE |
	  PRDMA_ACCESS_REMOTE_READ, E_ALL, 0, 8, 1 },
	{ "WRITE to a QP without REMOTE_WRITE", PRDMA_WR_RDMA_WRITE, REM_OK_KEY, E_ALL,
	  PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_READ |
	  PRDMA_ACCESS_REMOTE_ATOMIC, 0, 64, 1 },
	{ "READ from a QP without REMOTE_READ", PRDMA_WR_RDMA_READ, REM_OK_KEY, E_ALL,
	  PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE |
	  PRDMA_ACCESS_REMOTE_ATOMIC, 0, 64, 1 },
	{ "CAS on a QP without REMOTE_ATOMIC", PRDMA_WR_ATOMIC_CMP_AND_SWP, REM_OK_KEY,
	  E_ALL, PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE |
	  PRDMA_ACCESS_REMOTE_READ, 0, 8, 1 },
	{ "WRITE to an MR of another PD", PRDMA_WR_RDMA_WRITE, REM_OTHER_PD, E_ALL, E_ALL,
	  0, 64, 1 },
	{ "READ from an MR of another PD", PRDMA_WR_RDMA_READ, REM_OTHER_PD, E_ALL, E_ALL,
	  0, 64, 1 },
};

static void
rem_one(struct conf_ctx *ctx, const struct rem_variant *v)
{
	int atomic = v->op == PRDMA_WR_ATOMIC_CMP_AND_SWP ||
		v->op == PRDMA_WR_ATOMIC_FETCH_AND_ADD;
	struct prdma_async_event ev;
	struct prdma_send_wr wr;
	struct conf_qp_opts o;
	struct prdma_sge sge;
	struct conf_buf a, t;
	int seen = 0;
	struct prdma_mr *mr;
	struct prdma_pd *pd;
	struct conf_pair p;
	struct prdma_wc wc;
	char what[128];
	uint8_t *mr_start;

	conf_opts_default(&o, PRDMA_QPT_RC);
	o.access = v->qp_access;
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, E_PAGE, E_ALL);
	memset(a.p, 0x5c, E_PAGE);
	/* Target: three pages, the MR over the middle one, canaries around. */
	conf_buf_make(ctx, &t, NULL, 3 * E_PAGE, 0);
	memset(t.p, E_CANARY, 3 * E_PAGE);
	mr_start = t.p + E_PAGE;
	pd = CONF_B->pd;
	if (v->kind == REM_OTHER_PD) {
		pd = prdma_pd_alloc(CONF_B->dev);
		CONF_TRUE("second PD on B", pd != NULL);
		conf_track(ctx, CONF_OBJ_PD, pd);
	}
	mr = prdma_mr_reg(pd, mr_start, E_PAGE, v->mr_access);
	if (mr == NULL)
		fail_msg("%s: prdma_mr_reg(access 0x%x): expected an MR, got NULL",
			 v->name, v->mr_access);
	conf_track(ctx, CONF_OBJ_MR, mr);

	conf_wr_init(&wr, &sge, 1, v->op, a.p, v->len, a.mr->lkey);
	t_pattern_fill(a.p, v->len, 1);
	if (atomic) {
		wr.wr.atomic.remote_addr = (uintptr_t)(mr_start + v->offset);
		wr.wr.atomic.rkey = v->kind == REM_BAD_KEY ? ~mr->rkey : mr->rkey;
		wr.wr.atomic.compare_add = 0xa5a5a5a5a5a5a5a5ull;
		wr.wr.atomic.swap = 1;
	} else {
		wr.wr.rdma.remote_addr = (uintptr_t)(mr_start + v->offset);
		wr.wr.rdma.rkey = v->kind == REM_BAD_KEY ? ~mr->rkey : mr->rkey;
	}
	while (prdma_event_get(CONF_B->dev, &ev) == 1)
		;
	snprintf(what, sizeof(what), "%s: requester", v->name);
	conf_post_send(p.s[0].qp, &wr, what);
	conf_expect_wc(p.s[0].scq, &wc, what, 1, PRDMA_WC_REM_ACCESS_ERR, -1);
	snprintf(what, sizeof(what), "%s: responder QP", v->name);
	conf_check_qp_state(p.s[1].qp, PRDMA_QPS_ERR, what);
	conf_check_qp_state(p.s[0].qp, PRDMA_QPS_ERR, "requester after a remote error");
	/* The responder reports its access violation as an affiliated event. */
	while (prdma_event_get(CONF_B->dev, &ev) == 1)
		if (ev.type == PRDMA_EVENT_QP_ACCESS_ERR && ev.element.qp == p.s[1].qp)
			seen = 1;
	if (!seen)
		fail_msg("%s: expected PRDMA_EVENT_QP_ACCESS_ERR for the responder QP "
			 "0x%x, got none", v->name, p.s[1].qp->qp_num);
	snprintf(what, sizeof(what), "%s: memory before the MR", v->name);
	conf_check_bytes(t.p, E_PAGE, E_CANARY, what);
	snprintf(what, sizeof(what), "%s: memory after the MR", v->name);
	conf_check_bytes(t.p + 2 * E_PAGE, E_PAGE, E_CANARY, what);
	if (v->whole_unchanged) {
		snprintf(what, sizeof(what), "%s: the MR itself", v->name);
		conf_check_bytes(mr_start, E_PAGE, E_CANARY, what);
	}
	if (v->op == PRDMA_WR_RDMA_READ || atomic) {
		snprintf(what, sizeof(what), "%s: requester's local buffer", v->name);
		conf_check_data(a.p, v->len, 1, what);
	}
}

static void
test_remote_access_errors(void **state)
{
	struct conf_ctx *ctx = *state;
	unsigned int i;

	for (i = 0; i < RTE_DIM(rem_variants); i++) {
		const struct rem_variant *v = &rem_variants[i];

		if ((v->op == PRDMA_WR_ATOMIC_CMP_AND_SWP ||
		     v->op == PRDMA_WR_ATOMIC_FETCH_AND_ADD) &&
		    (CONF_A->attr.flags & PRDMA_DEV_CAP_ATOMIC) == 0)
			continue;
		rem_one(ctx, v);
		/* Release this variant's objects before the next one. */
		conf_test_teardown((void **)&ctx);
	}
}

static void
test_recv_too_small(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr;
	struct conf_qp_opts o;
	struct prdma_sge sge;
	struct conf_buf a, b;
	struct conf_pair p;
	struct prdma_wc wc;

	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, E_PAGE, E_ALL);
	conf_buf_make(ctx, &b, CONF_B->pd, E_PAGE, E_ALL);
	memset(b.p, E_CANARY, E_PAGE);
	/* Exactly the receive's size fits. */
	conf_post_recv(p.s[1].qp, 6, b.p + 2048, 100, b.mr->lkey, "100-byte receive");
	t_pattern_fill(a.p, 100, 6);
	conf_wr_init(&wr, &sge, 0, PRDMA_WR_SEND, a.p, 100, a.mr->lkey);
	conf_post_send(p.s[0].qp, &wr, "100-byte SEND into 100 bytes");
	conf_expect_wc(p.s[0].scq, &wc, "SEND that fits exactly", 0, PRDMA_WC_SUCCESS,
		       PRDMA_WC_SEND);
	conf_expect_wc(p.s[1].rcq, &wc, "receive that fits exactly", 6, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RECV);
	conf_check_data(b.p + 2048, 100, 6, "receive that fits exactly");
	conf_check_bytes(b.p + 2148, 64, E_CANARY, "after a receive that fits exactly");
	conf_post_recv(p.s[1].qp, 7, b.p, 32, b.mr->lkey, "32-byte receive");
	conf_wr_init(&wr, &sge, 1, PRDMA_WR_SEND, a.p, 100, a.mr->lkey);
	conf_post_send(p.s[0].qp, &wr, "100-byte SEND");
	conf_expect_wc(p.s[1].rcq, &wc, "receiver of a too long SEND", 7,
		       PRDMA_WC_LOC_LEN_ERR, -1);
	conf_expect_wc(p.s[0].scq, &wc, "requester of a too long SEND", 1,
		       PRDMA_WC_REM_INV_REQ_ERR, -1);
	conf_check_bytes(b.p + 32, 2048 - 32, E_CANARY,
			 "memory past the 32-byte receive buffer");
	conf_check_qp_state(p.s[1].qp, PRDMA_QPS_ERR, "receiver after LOC_LEN_ERR");
}

static void
test_misaligned_atomic(void **state)
{
	struct conf_ctx *ctx = *state;
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct conf_qp_opts o;
	struct prdma_sge sge;
	struct conf_buf a, b;
	struct conf_pair p;
	struct prdma_wc wc;
	int ret;

	CONF_REQUIRE_CAP(CONF_A, PRDMA_DEV_CAP_ATOMIC);
	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, E_PAGE, E_ALL);
	conf_buf_make(ctx, &b, CONF_B->pd, E_PAGE, E_ALL);
	memset(b.p, E_CANARY, E_PAGE);
	conf_wr_init(&wr, &sge, 1, PRDMA_WR_ATOMIC_FETCH_AND_ADD, a.p, 8, a.mr->lkey);
	wr.wr.atomic.remote_addr = (uintptr_t)b.p + 4;
	wr.wr.atomic.rkey = b.mr->rkey;
	wr.wr.atomic.compare_add = 1;
	ret = prdma_post_send(p.s[0].qp, &wr, &bad);
	if (ret == 0) {
		conf_expect_wc(p.s[0].scq, &wc, "misaligned FETCH_ADD", 1,
			       PRDMA_WC_REM_INV_REQ_ERR, -1);
	} else if (ret != -EINVAL) {
		fail_msg("misaligned FETCH_ADD: expected post 0 (then REM_INV_REQ_ERR) or "
			 "-EINVAL, got %d", ret);
	}
	conf_check_bytes(b.p, E_PAGE, E_CANARY, "memory around a misaligned atomic");
}

int
conf_group_errors(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_lkey, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_lkey_out_of_bounds, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_lkey_other_pd, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_remote_access_errors, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_recv_too_small, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_misaligned_atomic, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("errors", tests, conf_group_setup,
					   conf_group_teardown);
}
