/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Revocation in the middle of a message, over the public API on any
 * provider (devargs in PRDMA_PROT_DEVARGS_A/B). A posts one 16 KiB RDMA
 * WRITE (16 packets at path MTU 1024) to B; once its first bytes have
 * landed, B takes the access away: deregisters the MR, deallocates or
 * rebinds a type 1 window, invalidates or deallocates a type 2 window.
 * From the moment that call (or that work request's completion) returns,
 * not one byte of B's memory may change, and an RC requester must see a
 * remote access error. On the soft provider B runs with burst=1, so each
 * progress call takes one frame and the revocation falls between two
 * packets of the WRITE for certain; the test checks that it did.
 *
 * The same file checks that a peer cannot invalidate an ordinary region
 * with SEND_WITH_INV.
 */

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include "prot.h"

#define W_LEN   (16u * 1024)
#define W_FILL  0xee

enum revoke {
	RV_DEREG,                  /* prdma_mr_dereg of the target MR */
	RV_MW1_DEALLOC,            /* type 1 window deallocated */
	RV_MW1_REBIND,             /* type 1 window bound elsewhere */
	RV_MW2_INVALIDATE,         /* type 2 window, LOCAL_INV on B */
	RV_MW2_DEALLOC,            /* type 2 window deallocated */
};

static int
setup(void **state)
{
	(void)state;
	p_open();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	p_close();
	return 0;
}

/* Wait on B's send CQ for @wr_id; its status. */
static enum prdma_wc_status
b_wait(uint64_t wr_id)
{
	struct prdma_wc wc;

	while (p_poll(p_b.scq, &wc, 2000) == 1)
		if (wc.wr_id == wr_id)
			return wc.status;
	fail_msg("no completion for B's work request %" PRIu64, wr_id);
	return PRDMA_WC_GENERAL_ERR;
}

static struct prdma_mw *
mw_new(enum prdma_mw_type type)
{
	struct prdma_mw *mw = prdma_mw_alloc(p_b.pd, type);

	if (mw == NULL && rte_errno == ENOTSUP)
		return NULL;
	if (mw == NULL)
		fail_msg("prdma_mw_alloc(type %d): %s", type, rte_strerror(rte_errno));
	return mw;
}

static void
mw1_bind(struct prdma_mw *mw, struct prdma_mr *mr, uint64_t addr, uint64_t len,
	 uint64_t wr_id)
{
	struct prdma_mw_bind_info bi;

	memset(&bi, 0, sizeof(bi));
	bi.mr = mr;
	bi.addr = addr;
	bi.length = len;
	bi.access = PRDMA_ACCESS_REMOTE_WRITE;
	assert_int_equal(prdma_mw_bind(p_b.qp, mw, &bi, wr_id, PRDMA_SEND_SIGNALED), 0);
	assert_int_equal(b_wait(wr_id), PRDMA_WC_SUCCESS);
}

static uint32_t
mw2_bind(struct prdma_mw *mw, struct prdma_mr *mr, uint64_t addr, uint64_t len)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	uint32_t rkey = (mw->rkey & ~0xffu) | ((mw->rkey + 0x31) & 0xffu);

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 201;
	wr.opcode = PRDMA_WR_BIND_MW;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.bind_mw.mw = mw;
	wr.wr.bind_mw.rkey = rkey;
	wr.wr.bind_mw.mr = mr;
	wr.wr.bind_mw.addr = addr;
	wr.wr.bind_mw.length = len;
	wr.wr.bind_mw.access = PRDMA_ACCESS_REMOTE_WRITE;
	assert_int_equal(prdma_post_send(p_b.qp, &wr, &bad), 0);
	assert_int_equal(b_wait(201), PRDMA_WC_SUCCESS);
	return rkey;
}

static void
local_inv_b(uint32_t rkey)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 202;
	wr.opcode = PRDMA_WR_LOCAL_INV;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	assert_int_equal(prdma_post_send(p_b.qp, &wr, &bad), 0);
	assert_int_equal(b_wait(202), PRDMA_WC_SUCCESS);
}

static const char *
rv_name(enum revoke how)
{
	static const char *const n[] = {
		"MR dereg", "type 1 MW dealloc", "type 1 MW rebind",
		"type 2 MW invalidate", "type 2 MW dealloc",
	};
	return n[how];
}

static void
revoke_mid_write(enum prdma_qp_type type, enum revoke how)
{
	uint32_t access = PRDMA_ACCESS_ALL & ~PRDMA_ACCESS_MW_BIND;
	struct prdma_mw *mw = NULL;
	struct prdma_mr *mr;
	struct prdma_wc wc;
	struct p_area ar;
	uint64_t end, hz = rte_get_tsc_hz();
	uint32_t rkey, landed;
	int64_t drops0 = 0, drops;
	int done = 0, mid;

	p_area_alloc(&ar, P_LEN, 0x00);
	mr = prdma_mr_reg(p_b.pd, ar.data, P_LEN, PRDMA_ACCESS_LOCAL_WRITE |
			  PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_MW_BIND);
	assert_non_null(mr);
	p_connect(type, type == PRDMA_QPT_UC ? PRDMA_ACCESS_REMOTE_WRITE : access);
	rkey = mr->rkey;
	if (how != RV_DEREG) {
		mw = mw_new(how <= RV_MW1_REBIND ? PRDMA_MW_TYPE_1 : PRDMA_MW_TYPE_2);
		if (mw == NULL) {
			p_disconnect();
			assert_int_equal(prdma_mr_dereg(mr), 0);
			p_area_free(&ar);
			skip();
		}
		if (how <= RV_MW1_REBIND) {
			mw1_bind(mw, mr, (uintptr_t)ar.data, W_LEN, 200);
			rkey = mw->rkey;
		} else {
			rkey = mw2_bind(mw, mr, (uintptr_t)ar.data, W_LEN);
		}
	}
	if (type == PRDMA_QPT_UC)
		drops0 = p_qp_counter(p_b.qp, PRDMA_QP_CNT_ACCESS_DROPS);

	memset(p_a.area.data, W_FILL, W_LEN);
	assert_int_equal(p_post(PRDMA_WR_RDMA_WRITE, 0, W_LEN, (uintptr_t)ar.data, rkey, 1),
			 0);
	/* B one step at a time (A too, so that the frames leave) until data lands. */
	end = rte_get_tsc_cycles() + hz * 2;
	while (ar.data[0] != W_FILL && rte_get_tsc_cycles() < end) {
		prdma_dev_progress(p_b.dev);
		if (ar.data[0] != W_FILL)
			prdma_dev_progress(p_a.dev);
	}
	assert_int_equal(ar.data[0], W_FILL);
	for (landed = 0; landed < W_LEN && ar.data[landed] == W_FILL; landed++)
		;
	mid = landed < W_LEN;

	switch (how) {
	case RV_DEREG:
		assert_int_equal(prdma_mr_dereg(mr), 0);
		mr = NULL;
		break;
	case RV_MW1_DEALLOC:
	case RV_MW2_DEALLOC:
		assert_int_equal(prdma_mw_dealloc(mw), 0);
		mw = NULL;
		break;
	case RV_MW1_REBIND:
		/* Elsewhere in the same MR: the old rkey must stop at once. */
		mw1_bind(mw, mr, (uintptr_t)ar.data + 2 * W_LEN, W_LEN, 203);
		break;
	case RV_MW2_INVALIDATE:
		local_inv_b(rkey);
		break;
	}
	/* Whatever landed until now was allowed; from here on nothing may. */
	for (landed = 0; landed < W_LEN && ar.data[landed] == W_FILL; landed++)
		;
	mid = mid && landed < W_LEN;
	printf("%s, %s: %u of %u bytes had landed when the access was revoked\n",
	       type == PRDMA_QPT_RC ? "RC" : "UC", rv_name(how), landed, W_LEN);
	if (p_is_roce() && !mid)
		fail_msg("the WRITE completed before the revocation: the test did not run");
	p_snap(&ar);
	end = rte_get_tsc_cycles() + hz / 5;
	while (rte_get_tsc_cycles() < end) {
		prdma_dev_progress(p_a.dev);
		prdma_dev_progress(p_b.dev);
		if (!done && prdma_cq_poll(p_a.scq, 1, &wc) == 1) {
			done = 1;
			printf("  requester completion: %s\n", prdma_wc_status_str(wc.status));
		}
		if (p_changed(&ar) != -1)
			fail_msg("%s: a byte at offset %ld changed after the revocation",
				 rv_name(how), p_changed(&ar) - (long)P_CANARY);
	}
	assert_true(done);
	if (type == PRDMA_QPT_RC && mid)
		assert_int_equal(wc.status, PRDMA_WC_REM_ACCESS_ERR);
	if (type == PRDMA_QPT_UC && mid) {
		drops = p_qp_counter(p_b.qp, PRDMA_QP_CNT_ACCESS_DROPS);
		printf("  B's access_drops: %" PRId64 "\n", drops < 0 ? drops : drops - drops0);
		if (drops >= 0)
			assert_true(drops > drops0);
	}
	/* A connection made afterwards still works. */
	p_disconnect();
	p_connect(PRDMA_QPT_RC, access);
	assert_int_equal(p_post(PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)p_b.area.data,
				p_b.mr->rkey, 2), 0);
	assert_int_equal(p_poll(p_a.scq, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	p_disconnect();
	if (mw != NULL)
		assert_int_equal(prdma_mw_dealloc(mw), 0);
	if (mr != NULL)
		assert_int_equal(prdma_mr_dereg(mr), 0);
	p_area_free(&ar);
}

static void test_rc_mr_dereg(void **s) { (void)s; revoke_mid_write(PRDMA_QPT_RC, RV_DEREG); }
static void test_uc_mr_dereg(void **s) { (void)s; revoke_mid_write(PRDMA_QPT_UC, RV_DEREG); }
static void
test_rc_mw1_dealloc(void **s)
{
	(void)s;
	revoke_mid_write(PRDMA_QPT_RC, RV_MW1_DEALLOC);
}
static void
test_rc_mw1_rebind(void **s)
{
	(void)s;
	revoke_mid_write(PRDMA_QPT_RC, RV_MW1_REBIND);
}
static void
test_uc_mw1_dealloc(void **s)
{
	(void)s;
	revoke_mid_write(PRDMA_QPT_UC, RV_MW1_DEALLOC);
}
static void
test_rc_mw2_invalidate(void **s)
{
	(void)s;
	revoke_mid_write(PRDMA_QPT_RC, RV_MW2_INVALIDATE);
}
static void
test_rc_mw2_dealloc(void **s)
{
	(void)s;
	revoke_mid_write(PRDMA_QPT_RC, RV_MW2_DEALLOC);
}
static void
test_uc_mw2_invalidate(void **s)
{
	(void)s;
	revoke_mid_write(PRDMA_QPT_UC, RV_MW2_INVALIDATE);
}

/*
 * SEND_WITH_INV naming an ordinary region: refused on both sides (the
 * receive completes in error, the requester gets remote invalid request),
 * and the region keeps working for its owner and for other connections.
 */
static void
test_send_inv_region_refused(void **state)
{
	uint32_t access = PRDMA_ACCESS_ALL & ~PRDMA_ACCESS_MW_BIND;
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;
	struct prdma_mr *x;
	struct p_area ar;

	(void)state;
	p_area_alloc(&ar, 4096, 0x00);
	x = prdma_mr_reg(p_b.pd, ar.data, 4096, PRDMA_ACCESS_LOCAL_WRITE |
			 PRDMA_ACCESS_REMOTE_WRITE);
	assert_non_null(x);
	p_connect(PRDMA_QPT_RC, access);
	assert_int_equal(p_post_recv_b(0, 4096, 7), 0);
	sge.addr = (uintptr_t)p_a.area.data;
	sge.length = 16;
	sge.lkey = p_a.mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 3;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND_WITH_INV;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.invalidate_rkey = x->rkey;
	assert_int_equal(prdma_post_send(p_a.qp, &wr, &bad), 0);
	assert_int_equal(p_poll(p_b.rcq, &wc, 2000), 1);
	printf("B's receive: %s\n", prdma_wc_status_str(wc.status));
	assert_int_equal(wc.wr_id, 7);
	assert_int_equal(wc.status, PRDMA_WC_REM_INV_REQ_ERR);
	assert_int_equal(p_poll(p_a.scq, &wc, 2000), 1);
	printf("A's SEND_WITH_INV: %s\n", prdma_wc_status_str(wc.status));
	assert_int_equal(wc.wr_id, 3);
	assert_int_equal(wc.status, PRDMA_WC_REM_INV_REQ_ERR);
	p_disconnect();

	/* The region is intact: another connection writes to it. */
	p_connect(PRDMA_QPT_RC, access);
	memset(p_a.area.data, 0x3c, 64);
	assert_int_equal(p_post(PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)ar.data, x->rkey, 4),
			 0);
	assert_int_equal(p_poll(p_a.scq, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(ar.data[63], 0x3c);
	p_disconnect();
	assert_int_equal(prdma_mr_dereg(x), 0);
	p_area_free(&ar);
}

/* argv[1]: "revoke" or "send-inv" runs one group only (see meson.build). */
int
main(int argc, char **argv)
{
	const struct CMUnitTest revoke[] = {
		cmocka_unit_test(test_rc_mr_dereg),
		cmocka_unit_test(test_uc_mr_dereg),
		cmocka_unit_test(test_rc_mw1_dealloc),
		cmocka_unit_test(test_rc_mw1_rebind),
		cmocka_unit_test(test_uc_mw1_dealloc),
		cmocka_unit_test(test_rc_mw2_invalidate),
		cmocka_unit_test(test_rc_mw2_dealloc),
		cmocka_unit_test(test_uc_mw2_invalidate),
	};
	const struct CMUnitTest send_inv[] = {
		cmocka_unit_test(test_send_inv_region_refused),
	};
	int ret = 0;

	if (argc < 2 || strcmp(argv[1], "send-inv") != 0)
		ret |= cmocka_run_group_tests_name("revoke", revoke, setup, teardown);
	if (argc < 2 || strcmp(argv[1], "revoke") != 0)
		ret |= cmocka_run_group_tests_name("send-inv", send_inv, setup, teardown);
	return ret;
}
