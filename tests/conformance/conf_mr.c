/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Memory regions: what may be registered, the DMA MR, keys after dereg. */

#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "conf.h"

#define M_LEN 4096
#define M_ALL (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE | \
	       PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_ATOMIC)

static void
expect_reg_refused(void *addr, size_t len, uint32_t access, const char *what)
{
	struct prdma_mr *mr;

	rte_errno = 0;
	mr = prdma_mr_reg(CONF_A->pd, addr, len, access);
	if (mr != NULL) {
		prdma_mr_dereg(mr);
		fail_msg("%s: expected NULL with rte_errno EINVAL, got an MR", what);
	}
	if (rte_errno != EINVAL)
		fail_msg("%s: expected rte_errno EINVAL, got %d (%s)", what, rte_errno,
			 rte_strerror(rte_errno));
}

static void
test_mr_reg_refused(void **state)
{
	struct conf_ctx *ctx = *state;
	uint8_t on_stack[256];
	struct conf_buf dpdk;
	void *heap;

	heap = malloc(M_LEN);
	CONF_TRUE("malloc", heap != NULL);
	expect_reg_refused(heap, M_LEN, PRDMA_ACCESS_LOCAL_WRITE, "register malloc memory");
	free(heap);
	expect_reg_refused(on_stack, sizeof(on_stack), PRDMA_ACCESS_LOCAL_WRITE,
			   "register stack memory");
	conf_buf_make(ctx, &dpdk, NULL, M_LEN, 0);
	expect_reg_refused(NULL, M_LEN, PRDMA_ACCESS_LOCAL_WRITE, "register NULL");
	expect_reg_refused(dpdk.p, 0, PRDMA_ACCESS_LOCAL_WRITE, "register 0 bytes");
	expect_reg_refused(dpdk.p, M_LEN, PRDMA_ACCESS_REMOTE_WRITE,
			   "REMOTE_WRITE without LOCAL_WRITE");
	expect_reg_refused(dpdk.p, M_LEN, PRDMA_ACCESS_REMOTE_ATOMIC,
			   "REMOTE_ATOMIC without LOCAL_WRITE");
	expect_reg_refused(dpdk.p, M_LEN, RTE_BIT32(20), "unknown access bit");
}

static void
test_mr_fields(void **state)
{
	struct conf_ctx *ctx = *state;
	struct conf_buf b;
	struct prdma_mr *ro;

	conf_buf_make(ctx, &b, CONF_A->pd, M_LEN, M_ALL);
	CONF_EQ("mr->addr", (uintptr_t)b.p, (uintptr_t)b.mr->addr);
	CONF_EQ("mr->length", M_LEN, b.mr->length);
	CONF_EQ("mr->access", M_ALL, b.mr->access);
	CONF_TRUE("mr->pd", b.mr->pd == CONF_A->pd);
	CONF_TRUE("mr->rkey set with remote access", b.mr->rkey != 0);
	CONF_EQ("mr->flags of a normal MR", 0, b.mr->flags & PRDMA_MR_F_DMA);
	conf_check_rc(prdma_pd_free(CONF_A->pd), -EBUSY, "prdma_pd_free with an MR alive");
	ro = prdma_mr_reg(CONF_A->pd, b.p, M_LEN, PRDMA_ACCESS_LOCAL_WRITE);
	CONF_TRUE("second MR on the same memory", ro != NULL);
	conf_track(ctx, CONF_OBJ_MR, ro);
	CONF_TRUE("two MRs have different lkeys", ro->lkey != b.mr->lkey);
}

/* The DMA MR's lkey works for any DPDK memory in local SGEs. */
static void
test_mr_get_dma(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr;
	struct conf_qp_opts o;
	struct prdma_sge sge;
	struct conf_buf a, b;
	struct prdma_mr *dma;
	struct conf_pair p;
	struct prdma_wc wc;

	rte_errno = 0;
	CONF_TRUE("get_dma with REMOTE_WRITE refused",
		  prdma_mr_get_dma(CONF_A->pd, PRDMA_ACCESS_LOCAL_WRITE |
				   PRDMA_ACCESS_REMOTE_WRITE) == NULL);
	CONF_EQ("rte_errno of get_dma with remote access", EINVAL, rte_errno);
	dma = prdma_mr_get_dma(CONF_A->pd, PRDMA_ACCESS_LOCAL_WRITE);
	if (dma == NULL)
		fail_msg("prdma_mr_get_dma(LOCAL_WRITE): expected an MR, got NULL (%s)",
			 rte_strerror(rte_errno));
	conf_track(ctx, CONF_OBJ_MR, dma);
	CONF_TRUE("DMA MR flag", (dma->flags & PRDMA_MR_F_DMA) != 0);
	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, NULL, 2 * M_LEN, 0);   /* unregistered DPDK memory */
	conf_buf_make(ctx, &b, CONF_B->pd, M_LEN, M_ALL);
	t_pattern_fill(a.p + 100, 3000, 61);
	conf_post_recv(p.s[1].qp, 1, b.p, M_LEN, b.mr->lkey, "receive");
	conf_wr_init(&wr, &sge, 1, PRDMA_WR_SEND, a.p + 100, 3000, dma->lkey);
	conf_post_send(p.s[0].qp, &wr, "SEND through the DMA lkey");
	conf_expect_wc(p.s[0].scq, &wc, "SEND through the DMA lkey", 1, PRDMA_WC_SUCCESS,
		       PRDMA_WC_SEND);
	conf_expect_wc(p.s[1].rcq, &wc, "receive", 1, PRDMA_WC_SUCCESS, PRDMA_WC_RECV);
	conf_check_data(b.p, 3000, 61, "data sent through the DMA lkey");
	/* READ into unregistered memory through the DMA lkey (local write). */
	t_pattern_fill(b.p, 2000, 62);
	conf_wr_init(&wr, &sge, 2, PRDMA_WR_RDMA_READ, a.p + M_LEN, 2000, dma->lkey);
	wr.wr.rdma.remote_addr = (uintptr_t)b.p;
	wr.wr.rdma.rkey = b.mr->rkey;
	conf_post_send(p.s[0].qp, &wr, "READ into the DMA lkey");
	conf_expect_wc(p.s[0].scq, &wc, "READ into the DMA lkey", 2, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RDMA_READ);
	conf_check_data(a.p + M_LEN, 2000, 62, "data read through the DMA lkey");
}

/* After dereg, the old rkey is refused remotely. */
static void
test_mr_dereg_rkey(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr;
	struct conf_qp_opts o;
	struct prdma_sge sge;
	struct conf_buf a, b;
	struct conf_pair p;
	struct prdma_wc wc;
	uint32_t rkey;

	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, M_LEN, M_ALL);
	conf_buf_make(ctx, &b, CONF_B->pd, M_LEN, M_ALL);
	rkey = b.mr->rkey;
	t_pattern_fill(a.p, 64, 1);
	conf_wr_init(&wr, &sge, 1, PRDMA_WR_RDMA_WRITE, a.p, 64, a.mr->lkey);
	wr.wr.rdma.remote_addr = (uintptr_t)b.p;
	wr.wr.rdma.rkey = rkey;
	conf_post_send(p.s[0].qp, &wr, "WRITE before dereg");
	conf_expect_wc(p.s[0].scq, &wc, "WRITE before dereg", 1, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RDMA_WRITE);
	conf_check_data(b.p, 64, 1, "WRITE before dereg");
	CONF_EQ("prdma_mr_dereg", 0, prdma_mr_dereg(b.mr));
	conf_forget(ctx, b.mr);
	t_pattern_fill(a.p, 64, 2);
	wr.wr_id = 2;
	conf_post_send(p.s[0].qp, &wr, "WRITE after dereg");
	conf_expect_wc(p.s[0].scq, &wc, "WRITE with the rkey of a deregistered MR", 2,
		       PRDMA_WC_REM_ACCESS_ERR, -1);
	conf_check_data(b.p, 64, 1, "memory of the deregistered MR");
}

/* After dereg, the old lkey is refused locally. */
static void
test_mr_dereg_lkey(void **state)
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
	conf_buf_make(ctx, &a, CONF_A->pd, M_LEN, M_ALL);
	conf_buf_make(ctx, &b, CONF_B->pd, M_LEN, M_ALL);
	conf_post_recv(p.s[1].qp, 1, b.p, M_LEN, b.mr->lkey, "receive");
	conf_wr_init(&wr, &sge, 1, PRDMA_WR_SEND, a.p, 64, a.mr->lkey);
	CONF_EQ("prdma_mr_dereg", 0, prdma_mr_dereg(a.mr));
	conf_forget(ctx, a.mr);
	conf_post_send(p.s[0].qp, &wr, "SEND with the lkey of a deregistered MR");
	conf_expect_wc(p.s[0].scq, &wc, "SEND with the lkey of a deregistered MR", 1,
		       PRDMA_WC_LOC_PROT_ERR, -1);
	conf_expect_no_wc(p.s[1].rcq, CONF_QUIET_MS, "receiver");
}

int
conf_group_mr(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mr_reg_refused, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_mr_fields, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_mr_get_dma, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_mr_dereg_rkey, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_mr_dereg_lkey, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("mr", tests, conf_group_setup,
					   conf_group_teardown);
}
