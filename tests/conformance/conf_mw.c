/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Memory windows and invalidation: BIND_MW (type 2), prdma_mw_bind
 * (type 1), access through and outside a window, SEND_WITH_INV and
 * LOCAL_INV. B owns the memory, A accesses it.
 */

#include <string.h>

#include "conf.h"

#define MW_BUF 4096
#define MW_OFF 512                         /* window start inside the MR */
#define MW_LEN 1024
#define MW_CANARY 0xa5
#define MW_ACCESS (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE | \
		   PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_MW_BIND)

struct mw_env {
	struct conf_pair p;
	struct conf_buf a;                 /* A's local buffer */
	struct conf_buf b;                 /* B's receive buffer */
	struct conf_buf t;                 /* B's target region */
};

static void
mw_env_make(struct conf_ctx *ctx, struct mw_env *e)
{
	struct conf_qp_opts o;

	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &e->p, &o);
	conf_buf_make(ctx, &e->a, CONF_A->pd, MW_BUF, MW_ACCESS);
	conf_buf_make(ctx, &e->b, CONF_B->pd, MW_BUF, MW_ACCESS);
	conf_buf_make(ctx, &e->t, CONF_B->pd, MW_BUF, MW_ACCESS);
	memset(e->t.p, MW_CANARY, MW_BUF);
}

/* A writes @p len bytes at @p addr with @p rkey; expect @p status at A. */
static void
a_write(struct mw_env *e, uint64_t wr_id, uint64_t addr, uint32_t rkey, uint32_t len,
	uint32_t seed, enum prdma_wc_status status, const char *what)
{
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;

	t_pattern_fill(e->a.p, len, seed);
	conf_wr_init(&wr, &sge, wr_id, PRDMA_WR_RDMA_WRITE, e->a.p, len, e->a.mr->lkey);
	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	conf_post_send(e->p.s[0].qp, &wr, what);
	conf_expect_wc(e->p.s[0].scq, &wc, what, wr_id, status, PRDMA_WC_RDMA_WRITE);
}

static void
a_read(struct mw_env *e, uint64_t wr_id, uint64_t addr, uint32_t rkey, uint32_t len,
       enum prdma_wc_status status, const char *what)
{
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;

	memset(e->a.p + 2048, 0, len);
	conf_wr_init(&wr, &sge, wr_id, PRDMA_WR_RDMA_READ, e->a.p + 2048, len,
		     e->a.mr->lkey);
	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	conf_post_send(e->p.s[0].qp, &wr, what);
	conf_expect_wc(e->p.s[0].scq, &wc, what, wr_id, status, PRDMA_WC_RDMA_READ);
}

/* Bind a type 2 window with a work request on B's QP; returns the rkey. */
static uint32_t
bind_type2(struct mw_env *e, struct prdma_mw *mw, uint32_t access)
{
	struct prdma_send_wr wr;
	struct prdma_wc wc;
	uint32_t rkey = (mw->rkey & ~0xffu) | ((mw->rkey + 0x17) & 0xffu);

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 77;
	wr.opcode = PRDMA_WR_BIND_MW;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.bind_mw.mw = mw;
	wr.wr.bind_mw.rkey = rkey;
	wr.wr.bind_mw.mr = e->t.mr;
	wr.wr.bind_mw.addr = (uintptr_t)e->t.p + MW_OFF;
	wr.wr.bind_mw.length = MW_LEN;
	wr.wr.bind_mw.access = access;
	conf_post_send(e->p.s[1].qp, &wr, "BIND_MW type 2");
	conf_expect_wc(e->p.s[1].scq, &wc, "BIND_MW type 2 completion", 77,
		       PRDMA_WC_SUCCESS, PRDMA_WC_BIND_MW);
	return rkey;
}

static struct prdma_mw *
mw_alloc(struct conf_ctx *ctx, enum prdma_mw_type type)
{
	struct prdma_mw *mw = prdma_mw_alloc(CONF_B->pd, type);

	if (mw == NULL)
		fail_msg("prdma_mw_alloc(type %d): expected a window, got NULL (%s)",
			 type, rte_strerror(rte_errno));
	conf_track(ctx, CONF_OBJ_MW, mw);
	CONF_EQ("mw->type", type, mw->type);
	return mw;
}

/* Window access: inside works, one byte past either end is refused. */
static void
check_window(struct mw_env *e, uint32_t rkey, const char *kind)
{
	uint64_t base = (uintptr_t)e->t.p + MW_OFF;
	char what[128];

	snprintf(what, sizeof(what), "%s: WRITE inside the window", kind);
	a_write(e, 1, base, rkey, MW_LEN, 31, PRDMA_WC_SUCCESS, what);
	conf_check_data(e->t.p + MW_OFF, MW_LEN, 31, what);
	snprintf(what, sizeof(what), "%s: READ inside the window", kind);
	a_read(e, 2, base + 16, rkey, 64, PRDMA_WC_SUCCESS, what);
	if (memcmp(e->a.p + 2048, e->t.p + MW_OFF + 16, 64) != 0)
		fail_msg("%s: data read differs from the window's content", what);
	conf_check_bytes(e->t.p, MW_OFF, MW_CANARY, "bytes before the window");
	conf_check_bytes(e->t.p + MW_OFF + MW_LEN, MW_BUF - MW_OFF - MW_LEN, MW_CANARY,
			 "bytes after the window");

	/* One byte past the end: REM_ACCESS_ERR, nothing outside changes. */
	snprintf(what, sizeof(what), "%s: WRITE one byte past the window", kind);
	a_write(e, 3, base + 64 + 1, rkey, MW_LEN - 64, 32, PRDMA_WC_REM_ACCESS_ERR, what);
	conf_check_bytes(e->t.p + MW_OFF + MW_LEN, MW_BUF - MW_OFF - MW_LEN, MW_CANARY,
			 "bytes after the window after the refused WRITE");
	conf_check_bytes(e->t.p, MW_OFF, MW_CANARY,
			 "bytes before the window after the refused WRITE");
	conf_check_qp_state(e->p.s[1].qp, PRDMA_QPS_ERR,
			    "responder after a remote access error");
}

static void
test_mw_type2_bind(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_mw *mw;
	struct mw_env e;
	uint32_t rkey;

	CONF_REQUIRE_CAP(CONF_B, PRDMA_DEV_CAP_MW_TYPE2);
	mw_env_make(ctx, &e);
	mw = mw_alloc(ctx, PRDMA_MW_TYPE_2);
	rkey = bind_type2(&e, mw, PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ);
	check_window(&e, rkey, "type 2");
}

static void
test_mw_type1_bind(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_mw_bind_info bi;
	struct prdma_wc wc;
	struct prdma_mw *mw;
	struct mw_env e;
	uint32_t old;

	CONF_REQUIRE_CAP(CONF_B, PRDMA_DEV_CAP_MW_TYPE1);
	mw_env_make(ctx, &e);
	mw = mw_alloc(ctx, PRDMA_MW_TYPE_1);
	old = mw->rkey;
	memset(&bi, 0, sizeof(bi));
	bi.mr = e.t.mr;
	bi.addr = (uintptr_t)e.t.p + MW_OFF;
	bi.length = MW_LEN;
	bi.access = PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ;
	conf_check_rc(prdma_mw_bind(e.p.s[1].qp, mw, &bi, 78, PRDMA_SEND_SIGNALED), 0,
		      "prdma_mw_bind(type 1)");
	conf_expect_wc(e.p.s[1].scq, &wc, "type 1 bind completion", 78,
		       PRDMA_WC_SUCCESS, PRDMA_WC_BIND_MW);
	CONF_TRUE("type 1 bind gives a new rkey", mw->rkey != old);
	check_window(&e, mw->rkey, "type 1");
}

/* The window's old rkey dies with a rebind (type 1). */
static void
test_mw_type1_rebind(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_mw_bind_info bi;
	struct prdma_wc wc;
	struct prdma_mw *mw;
	struct mw_env e;
	uint32_t first;

	CONF_REQUIRE_CAP(CONF_B, PRDMA_DEV_CAP_MW_TYPE1);
	mw_env_make(ctx, &e);
	mw = mw_alloc(ctx, PRDMA_MW_TYPE_1);
	memset(&bi, 0, sizeof(bi));
	bi.mr = e.t.mr;
	bi.addr = (uintptr_t)e.t.p + MW_OFF;
	bi.length = MW_LEN;
	bi.access = PRDMA_ACCESS_REMOTE_WRITE;
	conf_check_rc(prdma_mw_bind(e.p.s[1].qp, mw, &bi, 1, PRDMA_SEND_SIGNALED), 0,
		      "first bind");
	conf_expect_wc(e.p.s[1].scq, &wc, "first bind", 1, PRDMA_WC_SUCCESS,
		       PRDMA_WC_BIND_MW);
	first = mw->rkey;
	a_write(&e, 10, bi.addr, first, 32, 5, PRDMA_WC_SUCCESS, "WRITE via first rkey");
	conf_check_rc(prdma_mw_bind(e.p.s[1].qp, mw, &bi, 2, PRDMA_SEND_SIGNALED), 0,
		      "second bind");
	conf_expect_wc(e.p.s[1].scq, &wc, "second bind", 2, PRDMA_WC_SUCCESS,
		       PRDMA_WC_BIND_MW);
	CONF_TRUE("rebind changes the rkey", mw->rkey != first);
	a_write(&e, 11, bi.addr, mw->rkey, 32, 6, PRDMA_WC_SUCCESS, "WRITE via new rkey");
	conf_check_data(e.t.p + MW_OFF, 32, 6, "WRITE via new rkey");
	a_write(&e, 12, bi.addr, first, 32, 7, PRDMA_WC_REM_ACCESS_ERR,
		"WRITE via the rkey of the previous bind");
	conf_check_data(e.t.p + MW_OFF, 32, 6, "window after the refused WRITE");
}

/*
 * SEND_WITH_INV: variant 1 invalidates a type 2 MW. Variant 0 names an
 * ordinary MR's rkey: a peer may not invalidate a region (IBA: only type 2
 * windows and fast-register MRs; Linux rxe refuses it too), so the receive
 * and the SEND complete with remote invalid request and the MR still works.
 */
static void
send_inv(struct conf_ctx *ctx, int use_mw)
{
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;
	struct mw_env e;
	uint32_t rkey;
	uint64_t addr;

	mw_env_make(ctx, &e);
	addr = (uintptr_t)e.t.p + MW_OFF;
	if (use_mw)
		rkey = bind_type2(&e, mw_alloc(ctx, PRDMA_MW_TYPE_2),
				  PRDMA_ACCESS_REMOTE_WRITE);
	else
		rkey = e.t.mr->rkey;
	a_write(&e, 1, addr, rkey, 16, 3, PRDMA_WC_SUCCESS, "WRITE before invalidation");

	conf_post_recv(e.p.s[1].qp, 50, e.b.p, MW_BUF, e.b.mr->lkey, "receive");
	t_pattern_fill(e.a.p, 40, 9);
	conf_wr_init(&wr, &sge, 2, PRDMA_WR_SEND_WITH_INV, e.a.p, 40, e.a.mr->lkey);
	wr.invalidate_rkey = rkey;
	conf_post_send(e.p.s[0].qp, &wr, "SEND_WITH_INV");
	if (!use_mw) {
		conf_expect_wc(e.p.s[1].rcq, &wc, "SEND_WITH_INV of a region, responder", 50,
			       PRDMA_WC_REM_INV_REQ_ERR, PRDMA_WC_RECV);
		conf_expect_wc(e.p.s[0].scq, &wc, "SEND_WITH_INV of a region, requester", 2,
			       PRDMA_WC_REM_INV_REQ_ERR, PRDMA_WC_SEND);
		return;
	}
	conf_expect_wc(e.p.s[0].scq, &wc, "SEND_WITH_INV requester", 2, PRDMA_WC_SUCCESS,
		       PRDMA_WC_SEND);
	conf_expect_wc(e.p.s[1].rcq, &wc, "SEND_WITH_INV responder", 50, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RECV);
	CONF_EQ("responder wc PRDMA_WC_WITH_INV", PRDMA_WC_WITH_INV,
		wc.wc_flags & PRDMA_WC_WITH_INV);
	CONF_EQ("responder wc invalidated_rkey", rkey, wc.invalidated_rkey);
	CONF_EQ("responder wc byte_len", 40, wc.byte_len);
	conf_check_data(e.b.p, 40, 9, "SEND_WITH_INV data");

	a_write(&e, 3, addr, rkey, 16, 4, PRDMA_WC_REM_ACCESS_ERR,
		"WRITE with the invalidated rkey");
	conf_check_data(e.t.p + MW_OFF, 16, 3, "target after the refused WRITE");
}

static void
test_send_with_inv_region_refused(void **state)
{
	CONF_REQUIRE_CAP(CONF_A, PRDMA_DEV_CAP_SEND_INV);
	send_inv(*state, 0);
}

static void
test_send_with_inv_mw(void **state)
{
	CONF_REQUIRE_CAP(CONF_A, PRDMA_DEV_CAP_SEND_INV);
	CONF_REQUIRE_CAP(CONF_B, PRDMA_DEV_CAP_MW_TYPE2);
	send_inv(*state, 1);
}

static void
test_local_inv(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr;
	struct prdma_wc wc;
	struct mw_env e;
	uint64_t addr;

	mw_env_make(ctx, &e);
	addr = (uintptr_t)e.t.p + MW_OFF;
	a_write(&e, 1, addr, e.t.mr->rkey, 16, 3, PRDMA_WC_SUCCESS,
		"WRITE before LOCAL_INV");
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 60;
	wr.opcode = PRDMA_WR_LOCAL_INV;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.invalidate_rkey = e.t.mr->rkey;
	conf_post_send(e.p.s[1].qp, &wr, "LOCAL_INV");
	conf_expect_wc(e.p.s[1].scq, &wc, "LOCAL_INV completion", 60, PRDMA_WC_SUCCESS,
		       PRDMA_WC_LOCAL_INV);
	a_write(&e, 2, addr, e.t.mr->rkey, 16, 4, PRDMA_WC_REM_ACCESS_ERR,
		"WRITE after LOCAL_INV of the rkey");
	conf_check_data(e.t.p + MW_OFF, 16, 3, "target after the refused WRITE");
}

int
conf_group_mw(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mw_type2_bind, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_mw_type1_bind, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_mw_type1_rebind, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_send_with_inv_region_refused, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_send_with_inv_mw, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_local_inv, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("mw-inv", tests, conf_group_setup,
					   conf_group_teardown);
}
