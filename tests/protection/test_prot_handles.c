/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Stale handles over the public API, on any provider: a second destroy of
 * a PD, MR, MW, CQ, SRQ, QP or AH, and a call on a destroyed handle,
 * return -EINVAL with rte_errno EINVAL (creators NULL), and do not touch
 * whatever took the object's place. Each stale call is made right after
 * the destroy, before anything is allocated, so the memory cannot have
 * been handed to a new object (doc/security.md: what is guaranteed).
 */

#include <stdio.h>
#include <string.h>

#include <rte_errno.h>

#include "prot.h"

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

#define STALE_RC(call) do { \
	rte_errno = 0; \
	assert_int_equal((call), -EINVAL); \
	assert_int_equal(rte_errno, EINVAL); \
} while (0)

#define STALE_NULL(call) do { \
	rte_errno = 0; \
	assert_null(call); \
	assert_int_equal(rte_errno, EINVAL); \
} while (0)

static struct prdma_qp *
qp_new(struct prdma_pd *pd, struct prdma_cq *cq)
{
	struct prdma_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return prdma_qp_create(pd, &ia);
}

static void
test_double_destroy(void **state)
{
	struct prdma_cq_init_attr ca;
	struct prdma_srq_init_attr sa;
	struct prdma_ah_attr aa;
	struct prdma_qp_attr qa;
	struct prdma_qp_counters qc;
	struct prdma_pd *pd;
	struct prdma_mr *mr;
	struct prdma_mw *mw;
	struct prdma_cq *cq;
	struct prdma_srq *srq;
	struct prdma_qp *qp;
	struct prdma_ah *ah;

	(void)state;
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 16;

	/* QP: destroy twice, then every call on it. */
	qp = qp_new(p_a.pd, p_a.scq);
	assert_non_null(qp);
	assert_int_equal(prdma_qp_destroy(qp), 0);
	STALE_RC(prdma_qp_destroy(qp));
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_INIT;
	STALE_RC(prdma_qp_modify(qp, &qa, PRDMA_QP_STATE));
	STALE_RC(prdma_qp_query(qp, &qa, NULL));
	STALE_RC(prdma_qp_counters_get(qp, &qc));
	STALE_RC(prdma_qp_counters_reset(qp));

	/* CQ: destroy twice; a QP may not be made on a destroyed one. */
	cq = prdma_cq_create(p_a.dev, &ca);
	assert_non_null(cq);
	assert_int_equal(prdma_cq_destroy(cq), 0);
	STALE_RC(prdma_cq_destroy(cq));
	STALE_RC(prdma_cq_resize(cq, 32));
	STALE_RC(prdma_cq_arm(cq, PRDMA_CQ_ARM_NEXT));
	STALE_NULL(qp_new(p_a.pd, cq));

	/* MR and MW. */
	mr = prdma_mr_reg(p_a.pd, p_a.area.data, 4096, PRDMA_ACCESS_LOCAL_WRITE |
			  PRDMA_ACCESS_MW_BIND);
	assert_non_null(mr);
	assert_int_equal(prdma_mr_dereg(mr), 0);
	STALE_RC(prdma_mr_dereg(mr));
	mw = prdma_mw_alloc(p_a.pd, PRDMA_MW_TYPE_1);
	if (mw != NULL) {
		assert_int_equal(prdma_mw_dealloc(mw), 0);
		STALE_RC(prdma_mw_dealloc(mw));
	} else {
		printf("no type 1 windows on %s (%s)\n", p_devargs[0], rte_strerror(rte_errno));
	}

	/* SRQ. */
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 8;
	sa.attr.max_sge = 1;
	srq = prdma_srq_create(p_a.pd, &sa);
	if (srq != NULL) {
		assert_int_equal(prdma_srq_destroy(srq), 0);
		STALE_RC(prdma_srq_destroy(srq));
	} else {
		printf("no SRQ on %s (%s)\n", p_devargs[0], rte_strerror(rte_errno));
	}

	/* AH. */
	memset(&aa, 0, sizeof(aa));
	aa.dgid = p_b.gid;
	aa.port_num = 1;
	ah = prdma_ah_create(p_a.pd, &aa);
	assert_non_null(ah);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	STALE_RC(prdma_ah_destroy(ah));
	STALE_RC(prdma_ah_query(ah, &aa));

	/* PD: destroy twice; nothing may be made on a destroyed one. */
	pd = prdma_pd_alloc(p_a.dev);
	assert_non_null(pd);
	assert_int_equal(prdma_pd_free(pd), 0);
	STALE_RC(prdma_pd_free(pd));
	STALE_NULL(prdma_mr_reg(pd, p_a.area.data, 4096, PRDMA_ACCESS_LOCAL_WRITE));
	STALE_NULL(prdma_mw_alloc(pd, PRDMA_MW_TYPE_1));
	STALE_NULL(qp_new(pd, p_a.scq));
	STALE_NULL(prdma_ah_create(pd, &aa));
	STALE_NULL(prdma_srq_create(pd, &sa));
}

/*
 * A stale QP handle destroyed again after a new connection was made: the
 * call fails and the connection's QPs (which may hold the stale QP's slot
 * in the provider's QP table) keep working.
 */
static void
test_stale_qp_spares_successor(void **state)
{
	uint32_t access = PRDMA_ACCESS_ALL & ~PRDMA_ACCESS_MW_BIND;
	struct prdma_qp *stale[2];
	struct prdma_wc wc;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		stale[i] = qp_new(i == 0 ? p_a.pd : p_b.pd, i == 0 ? p_a.scq : p_b.scq);
		assert_non_null(stale[i]);
	}
	for (i = 0; i < 2; i++)
		assert_int_equal(prdma_qp_destroy(stale[i]), 0);
	p_connect(PRDMA_QPT_RC, access);
	for (i = 0; i < 2; i++) {
		if (stale[i] == p_a.qp || stale[i] == p_b.qp) {
			/* The same memory: the handle is the new QP's, rightly. */
			printf("stale QP %d's memory went to the new QP: not retried\n", i);
			continue;
		}
		STALE_RC(prdma_qp_destroy(stale[i]));
	}
	assert_int_equal(p_post(PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)p_b.area.data,
				p_b.mr->rkey, 1), 0);
	assert_int_equal(p_poll(p_a.scq, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	p_disconnect();
}

/*
 * A BIND_MW queued on B's QP (fenced behind a READ that needs A's
 * answer), then its window freed before the bind ran and a new window
 * made, as often as it takes for the new one to reuse the old one's
 * memory and key slot (a provider's allocator hands both out again): the
 * queued bind must fail and leave the new window unbound, never bind the
 * window the application made since. A provider may instead refuse the
 * free (-EBUSY) until the bind has completed.
 */
#define RECYCLE_TRIES 20000

static void
test_stale_bind_spares_recycled_window(void **state)
{
	struct prdma_send_wr rd, wr;
	const struct prdma_send_wr *bad;
	struct prdma_sge sge;
	struct prdma_qp_attr qa;
	struct prdma_mw *mw, *nmw = NULL;
	struct prdma_wc wc;
	uint32_t old_rkey, bind_rkey, nrkey;
	int i, ret, recycled = 0;

	(void)state;
	p_connect(PRDMA_QPT_RC, PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTS;
	qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ;
	assert_int_equal(prdma_qp_modify(p_a.qp, &qa, PRDMA_QP_STATE | PRDMA_QP_ACCESS_FLAGS), 0);
	mw = prdma_mw_alloc(p_b.pd, PRDMA_MW_TYPE_2);
	assert_non_null(mw);
	old_rkey = mw->rkey;
	bind_rkey = (old_rkey & ~0xffu) | ((old_rkey + 1) & 0xffu);
	/* The READ waits for A, which nothing progresses until the poll. */
	sge.addr = (uintptr_t)p_b.area.data + 8192;
	sge.length = 64;
	sge.lkey = p_b.mr->lkey;
	memset(&rd, 0, sizeof(rd));
	rd.wr_id = 90;
	rd.opcode = PRDMA_WR_RDMA_READ;
	rd.send_flags = PRDMA_SEND_SIGNALED;
	rd.sg_list = &sge;
	rd.num_sge = 1;
	rd.wr.rdma.remote_addr = (uintptr_t)p_a.area.data;
	rd.wr.rdma.rkey = p_a.mr->rkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 91;
	wr.opcode = PRDMA_WR_BIND_MW;
	wr.send_flags = PRDMA_SEND_SIGNALED | PRDMA_SEND_FENCE;
	wr.wr.bind_mw.mw = mw;
	wr.wr.bind_mw.rkey = bind_rkey;
	wr.wr.bind_mw.mr = p_b.mr;
	wr.wr.bind_mw.addr = (uintptr_t)p_b.area.data;
	wr.wr.bind_mw.length = 4096;
	wr.wr.bind_mw.access = PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ;
	rd.next = &wr;
	assert_int_equal(prdma_post_send(p_b.qp, &rd, &bad), 0);
	ret = prdma_mw_dealloc(mw);
	if (ret == -EBUSY) {
		/* The other right answer: no freeing while a bind for the
		 * window is queued (Hermon: the WQE names it only by index). */
		assert_int_equal(rte_errno, EBUSY);
		printf("dealloc refused while the bind is queued\n");
		assert_int_equal(p_poll(p_b.scq, &wc, 2000), 1);
		assert_int_equal(wc.wr_id, 90);
		assert_int_equal(p_poll(p_b.scq, &wc, 2000), 1);
		assert_int_equal(wc.wr_id, 91);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_int_equal(prdma_mw_dealloc(mw), 0);
		p_disconnect();
		return;
	}
	assert_int_equal(ret, 0);
	for (i = 0; i < RECYCLE_TRIES; i++) {
		nmw = prdma_mw_alloc(p_b.pd, PRDMA_MW_TYPE_2);
		assert_non_null(nmw);
		if (nmw == mw && (nmw->rkey >> 8) == (old_rkey >> 8)) {
			recycled = 1;
			break;
		}
		assert_int_equal(prdma_mw_dealloc(nmw), 0);
		nmw = NULL;
	}
	printf("window %s after %d allocations\n",
	       recycled ? "recycled (same memory and key slot)" : "not recycled", i);
	if (nmw == NULL) {
		nmw = prdma_mw_alloc(p_b.pd, PRDMA_MW_TYPE_2);
		assert_non_null(nmw);
	}
	nrkey = nmw->rkey;
	assert_int_equal(p_poll(p_b.scq, &wc, 2000), 1);
	assert_int_equal(wc.wr_id, 90);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(p_poll(p_b.scq, &wc, 2000), 1);
	assert_int_equal(wc.wr_id, 91);
	assert_int_not_equal(wc.status, PRDMA_WC_SUCCESS);
	/* The new window kept its key and grants nothing: a WRITE through
	 * the stale bind's key fails and changes no byte. */
	assert_int_equal(nmw->rkey, nrkey);
	p_snap(&p_b.area);
	assert_int_equal(p_post(PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)p_b.area.data,
				bind_rkey, 92), 0);
	assert_int_equal(p_poll(p_a.scq, &wc, 2000), 1);
	assert_int_not_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(p_changed(&p_b.area), -1);
	p_disconnect();
	assert_int_equal(prdma_mw_dealloc(nmw), 0);
}

#ifdef PRDMA_DEBUG
/* fast_path_debug: the inline wrappers check the marker too. */
static void
test_fast_path_stale(void **state)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_cq_init_attr ca;
	struct prdma_wc wc;
	struct prdma_qp *qp;
	struct prdma_cq *cq;

	(void)state;
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 16;
	cq = prdma_cq_create(p_a.dev, &ca);
	assert_non_null(cq);
	qp = qp_new(p_a.pd, cq);
	assert_non_null(qp);
	assert_int_equal(prdma_qp_destroy(qp), 0);
	assert_int_equal(prdma_cq_destroy(cq), 0);
	memset(&wr, 0, sizeof(wr));
	STALE_RC(prdma_post_send(qp, &wr, &bad));
	assert_int_equal(prdma_cq_poll(cq, 1, &wc), 0);
}
#endif

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_double_destroy),
		cmocka_unit_test(test_stale_qp_spares_successor),
		cmocka_unit_test(test_stale_bind_spares_recycled_window),
#ifdef PRDMA_DEBUG
		cmocka_unit_test(test_fast_path_stale),
#endif
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
