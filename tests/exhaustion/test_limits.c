/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Resource exhaustion over the public API, on any provider (devargs in
 * PRDMA_EXH_DEVARGS_A/B): every object type is created up to the limit
 * prdma_dev_query reports, one more fails with NULL and rte_errno set, and
 * everything is freed again (the device closes cleanly); every queue depth,
 * SGE count and inline size one past its limit is refused at creation and
 * at post; a CQ overrun raises a CQ error event and never hands out more
 * completions than the CQ holds.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include <prdma.h>

#include "t_eal.h"

/* Limits above this are not walked object by object (minutes of work). */
#define WALK_MAX 140000u

static char devargs[2][256];
static int dev_id[2] = { -1, -1 };
static struct prdma_dev *dev[2];
static struct prdma_dev_attr attr;
static uint8_t *buf;

static int
setup(void **state)
{
	const char *e;
	int i;

	(void)state;
	if (t_eal_init() < 0)
		return -1;
	e = getenv("PRDMA_EXH_DEVARGS_A");
	snprintf(devargs[0], sizeof(devargs[0]), "%s", e != NULL ? e : "roce:ring=exh,side=0");
	e = getenv("PRDMA_EXH_DEVARGS_B");
	snprintf(devargs[1], sizeof(devargs[1]), "%s", e != NULL ? e : "roce:ring=exh,side=1");
	for (i = 0; i < 2; i++) {
		dev_id[i] = prdma_dev_probe(devargs[i]);
		if (dev_id[i] < 0)
			return -1;
		dev[i] = prdma_dev_open((uint16_t)dev_id[i]);
		if (dev[i] == NULL)
			return -1;
	}
	buf = rte_zmalloc(NULL, 1 << 20, 4096);
	if (buf == NULL || prdma_dev_query(dev[0], &attr) != 0)
		return -1;
	printf("limits: qp %u cq %u mr %u pd %u srq %u ah %u mw %u qp_wr %u sge %u/%u "
	       "inline %u cqe %u srq_wr %u srq_sge %u\n", attr.max_qp, attr.max_cq,
	       attr.max_mr, attr.max_pd, attr.max_srq, attr.max_ah, attr.max_mw,
	       attr.max_qp_wr, attr.max_send_sge, attr.max_recv_sge,
	       attr.max_inline_data, attr.max_cqe, attr.max_srq_wr, attr.max_srq_sge);
	return 0;
}

static int
teardown(void **state)
{
	int i;

	(void)state;
	rte_free(buf);
	for (i = 0; i < 2; i++) {
		if (dev[i] != NULL && prdma_dev_close(dev[i]) != 0)
			return -1;
		if (dev_id[i] >= 0 && prdma_dev_remove((uint16_t)dev_id[i]) != 0)
			return -1;
	}
	return 0;
}

/* The device may have objects of its own (the MR cache, the GSI QP): the
 * limit is reached at most at @limit, and then one more must fail. */
#define WALK(limit, create, destroy, what) do { \
	uint32_t n_, i_; \
	void **v_; \
	if ((limit) == 0 || (limit) > WALK_MAX) { \
		printf("%s: limit %u not walked\n", what, (unsigned int)(limit)); \
		break; \
	} \
	v_ = calloc((size_t)(limit) + 1, sizeof(void *)); \
	assert_non_null(v_); \
	for (n_ = 0; n_ <= (limit); n_++) { \
		rte_errno = 0; \
		v_[n_] = (create); \
		if (v_[n_] == NULL) \
			break; \
	} \
	printf("%s: %u created of %u, then %s\n", what, n_, (unsigned int)(limit), \
	       rte_strerror(rte_errno)); \
	assert_true(n_ <= (limit)); \
	assert_true(n_ + 4 >= (limit)); \
	assert_true(rte_errno != 0); \
	for (i_ = 0; i_ < n_; i_++) \
		assert_int_equal(destroy(v_[i_]), 0); \
	free(v_); \
} while (0)

static struct prdma_cq *
cq_new(uint32_t cqe)
{
	struct prdma_cq_init_attr ca;

	memset(&ca, 0, sizeof(ca));
	ca.cqe = cqe;
	return prdma_cq_create(dev[0], &ca);
}

static int pd_free_v(void *p) { return prdma_pd_free(p); }
static int cq_destroy_v(void *p) { return prdma_cq_destroy(p); }
static int mr_dereg_v(void *p) { return prdma_mr_dereg(p); }
static int mw_dealloc_v(void *p) { return prdma_mw_dealloc(p); }
static int ah_destroy_v(void *p) { return prdma_ah_destroy(p); }
static int srq_destroy_v(void *p) { return prdma_srq_destroy(p); }
static int qp_destroy_v(void *p) { return prdma_qp_destroy(p); }

static void
test_pd_limit(void **state)
{
	(void)state;
	WALK(attr.max_pd, prdma_pd_alloc(dev[0]), pd_free_v, "pd");
}

static void
test_cq_limit(void **state)
{
	(void)state;
	WALK(attr.max_cq, cq_new(4), cq_destroy_v, "cq");
}

static void
test_mr_limit(void **state)
{
	struct prdma_pd *pd = prdma_pd_alloc(dev[0]);

	(void)state;
	assert_non_null(pd);
	WALK(attr.max_mr, prdma_mr_reg(pd, buf, 4096, PRDMA_ACCESS_LOCAL_WRITE),
	     mr_dereg_v, "mr");
	assert_int_equal(prdma_pd_free(pd), 0);
}

static void
test_mw_limit(void **state)
{
	struct prdma_pd *pd = prdma_pd_alloc(dev[0]);

	(void)state;
	assert_non_null(pd);
	if (!(attr.flags & (PRDMA_DEV_CAP_MW_TYPE1 | PRDMA_DEV_CAP_MW_TYPE2)))
		skip();
	WALK(attr.max_mw, prdma_mw_alloc(pd, (attr.flags & PRDMA_DEV_CAP_MW_TYPE2) ?
					 PRDMA_MW_TYPE_2 : PRDMA_MW_TYPE_1),
	     mw_dealloc_v, "mw");
	assert_int_equal(prdma_pd_free(pd), 0);
}

static void
test_ah_limit(void **state)
{
	struct prdma_pd *pd = prdma_pd_alloc(dev[0]);
	struct prdma_ah_attr aa;

	(void)state;
	assert_non_null(pd);
	memset(&aa, 0, sizeof(aa));
	assert_int_equal(prdma_gid_query(dev[1], 1, 0, &aa.dgid), 0);
	aa.port_num = 1;
	WALK(attr.max_ah, prdma_ah_create(pd, &aa), ah_destroy_v, "ah");
	assert_int_equal(prdma_pd_free(pd), 0);
}

static struct prdma_srq *
srq_new(struct prdma_pd *pd, uint32_t wr, uint32_t sge)
{
	struct prdma_srq_init_attr sa;

	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = wr;
	sa.attr.max_sge = sge;
	return prdma_srq_create(pd, &sa);
}

static void
test_srq_limit(void **state)
{
	struct prdma_pd *pd = prdma_pd_alloc(dev[0]);

	(void)state;
	assert_non_null(pd);
	if (!(attr.flags & PRDMA_DEV_CAP_SRQ))
		skip();
	WALK(attr.max_srq, srq_new(pd, 4, 1), srq_destroy_v, "srq");
	assert_int_equal(prdma_pd_free(pd), 0);
}

static struct prdma_qp *
qp_new(struct prdma_pd *pd, struct prdma_cq *cq, const struct prdma_qp_cap *cap)
{
	struct prdma_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap = *cap;
	return prdma_qp_create(pd, &ia);
}

static void
test_qp_limit(void **state)
{
	struct prdma_pd *pd = prdma_pd_alloc(dev[0]);
	struct prdma_cq *cq = cq_new(64);
	struct prdma_qp_cap cap = { 2, 2, 1, 1, 0 };

	(void)state;
	assert_non_null(pd);
	assert_non_null(cq);
	WALK(attr.max_qp, qp_new(pd, cq, &cap), qp_destroy_v, "qp");
	assert_int_equal(prdma_cq_destroy(cq), 0);
	assert_int_equal(prdma_pd_free(pd), 0);
}

/* One past each size at creation: NULL and EINVAL; exactly at it: works. */
static void
test_sizes_at_creation(void **state)
{
	struct prdma_pd *pd = prdma_pd_alloc(dev[0]);
	struct prdma_cq *cq = cq_new(64), *big;
	struct prdma_qp_cap ok = { 16, 16, 1, 1, 0 }, cap;
	struct prdma_qp *qp;
	struct prdma_srq *srq;
	unsigned int i;

	(void)state;
	assert_non_null(pd);
	assert_non_null(cq);
	for (i = 0; i < 5; i++) {
		cap = ok;
		switch (i) {
		case 0: cap.max_send_wr = attr.max_qp_wr; break;
		case 1: cap.max_recv_wr = attr.max_qp_wr; break;
		case 2: cap.max_send_sge = attr.max_send_sge; break;
		case 3: cap.max_recv_sge = attr.max_recv_sge; break;
		default: cap.max_inline_data = attr.max_inline_data; break;
		}
		qp = qp_new(pd, cq, &cap);
		if (qp == NULL)
			fail_msg("size %u at its limit refused: %s", i, rte_strerror(rte_errno));
		assert_int_equal(prdma_qp_destroy(qp), 0);
		switch (i) {
		case 0: cap.max_send_wr++; break;
		case 1: cap.max_recv_wr++; break;
		case 2: cap.max_send_sge++; break;
		case 3: cap.max_recv_sge++; break;
		default: cap.max_inline_data++; break;
		}
		rte_errno = 0;
		qp = qp_new(pd, cq, &cap);
		if (qp != NULL)
			fail_msg("size %u one past its limit accepted", i);
		assert_int_equal(rte_errno, EINVAL);
	}
	big = cq_new(attr.max_cqe);
	if (big == NULL) {
		/* the device's largest CQ may need more memory than EAL has */
		printf("a CQ of %u entries: %s\n", attr.max_cqe, rte_strerror(rte_errno));
		assert_true(rte_errno == ENOMEM || rte_errno == ENOSPC);
	} else {
		assert_int_equal(prdma_cq_destroy(big), 0);
	}
	rte_errno = 0;
	assert_null(cq_new(attr.max_cqe + 1));
	assert_int_equal(rte_errno, EINVAL);
	if (attr.flags & PRDMA_DEV_CAP_SRQ) {
		srq = srq_new(pd, attr.max_srq_wr, attr.max_srq_sge);
		if (srq == NULL)
			fail_msg("an SRQ at its limits: %s", rte_strerror(rte_errno));
		assert_int_equal(prdma_srq_destroy(srq), 0);
		rte_errno = 0;
		assert_null(srq_new(pd, attr.max_srq_wr + 1, 1));
		assert_int_equal(rte_errno, EINVAL);
		rte_errno = 0;
		assert_null(srq_new(pd, 4, attr.max_srq_sge + 1));
		assert_int_equal(rte_errno, EINVAL);
	}
	assert_int_equal(prdma_cq_destroy(cq), 0);
	assert_int_equal(prdma_pd_free(pd), 0);
}

/* Posting past the QP's actual capacities is refused with the first bad WR. */
static void
test_sizes_at_post(void **state)
{
	struct prdma_pd *pd = prdma_pd_alloc(dev[0]);
	struct prdma_cq *cq = cq_new(64);
	struct prdma_qp_cap cap = { 8, 8, 2, 2, 32 };
	const struct prdma_send_wr *bad;
	const struct prdma_recv_wr *rbad;
	struct prdma_send_wr wr[64];
	struct prdma_recv_wr rwr;
	struct prdma_sge sge[16];
	struct prdma_qp_init_attr ia;
	struct prdma_qp_attr qa;
	struct prdma_mr *mr;
	struct prdma_qp *qp;
	unsigned int i;
	int ret;

	(void)state;
	assert_non_null(pd);
	assert_non_null(cq);
	mr = prdma_mr_reg(pd, buf, 1 << 20, PRDMA_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	qp = qp_new(pd, cq, &cap);
	assert_non_null(qp);
	assert_int_equal(prdma_qp_query(qp, &qa, &ia), 0);
	cap = qa.cap;
	/* Receives can be posted in INIT. */
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_INIT;
	qa.port_num = 1;
	qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE;
	assert_int_equal(prdma_qp_modify(qp, &qa, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS), 0);
	for (i = 0; i < RTE_DIM(sge); i++) {
		sge[i].addr = (uintptr_t)buf + i * 64;
		sge[i].length = 64;
		sge[i].lkey = mr->lkey;
	}
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = sge;
	rwr.num_sge = cap.max_recv_sge + 1;
	ret = prdma_post_recv(qp, &rwr, &rbad);
	assert_int_equal(ret, -EINVAL);
	assert_ptr_equal(rbad, &rwr);
	/* Fill the receive queue, then one more is refused. */
	rwr.num_sge = 1;
	for (i = 0; i < cap.max_recv_wr; i++)
		assert_int_equal(prdma_post_recv(qp, &rwr, &rbad), 0);
	ret = prdma_post_recv(qp, &rwr, &rbad);
	assert_int_equal(ret, -ENOMEM);
	/* Send-side checks need RTS; a loopback-free peer is fine: the
	 * requests never complete, only their acceptance is looked at. */
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTR;
	qa.path_mtu = PRDMA_MTU_1024;
	qa.dest_qp_num = 0xabc;
	qa.max_dest_rd_atomic = 1;
	qa.min_rnr_timer = 1;
	assert_int_equal(prdma_gid_query(dev[1], 1, 0, &qa.ah_attr.dgid), 0);
	qa.ah_attr.port_num = 1;
	assert_int_equal(prdma_qp_modify(qp, &qa, PRDMA_QP_STATE | PRDMA_QP_AV |
					 PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
					 PRDMA_QP_RQ_PSN | PRDMA_QP_MAX_DEST_RD_ATOMIC |
					 PRDMA_QP_MIN_RNR_TIMER), 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTS;
	qa.timeout = 20;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 1;
	assert_int_equal(prdma_qp_modify(qp, &qa, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
					 PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT |
					 PRDMA_QP_RNR_RETRY | PRDMA_QP_MAX_QP_RD_ATOMIC), 0);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < RTE_DIM(wr); i++) {
		wr[i].wr_id = i;
		wr[i].opcode = PRDMA_WR_SEND;
		wr[i].sg_list = sge;
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < RTE_DIM(wr) ? &wr[i + 1] : NULL;
	}
	/* Too many SGEs in the second request of a chain: the first is posted. */
	wr[1].num_sge = cap.max_send_sge + 1;
	wr[2].next = NULL;
	ret = prdma_post_send(qp, &wr[0], &bad);
	assert_int_equal(ret, -EINVAL);
	assert_ptr_equal(bad, &wr[1]);
	wr[1].num_sge = 1;
	/* Inline data one byte past the limit. */
	wr[1].send_flags = PRDMA_SEND_INLINE;
	sge[0].length = cap.max_inline_data + 1;
	wr[1].next = NULL;
	ret = prdma_post_send(qp, &wr[1], &bad);
	assert_int_equal(ret, -EINVAL);
	assert_ptr_equal(bad, &wr[1]);
	sge[0].length = 64;
	wr[1].send_flags = 0;
	/* Fill the send queue: one request of a long chain is refused. */
	wr[1].next = &wr[2];
	wr[RTE_DIM(wr) - 1].next = NULL;
	wr[2].next = &wr[3];
	if (cap.max_send_wr < RTE_DIM(wr) - 1) {
		ret = prdma_post_send(qp, &wr[1], &bad);
		assert_int_equal(ret, -ENOMEM);
		assert_non_null(bad);
		printf("send queue of %u: refused at request %u\n", cap.max_send_wr,
		       (unsigned int)(bad - &wr[1]));
		assert_true((unsigned int)(bad - &wr[1]) <= cap.max_send_wr);
	}
	assert_int_equal(prdma_qp_destroy(qp), 0);
	{
		struct prdma_wc wc[16];

		while (prdma_cq_poll(cq, 16, wc) > 0)
			;
	}
	assert_int_equal(prdma_mr_dereg(mr), 0);
	assert_int_equal(prdma_cq_destroy(cq), 0);
	assert_int_equal(prdma_pd_free(pd), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pd_limit),
		cmocka_unit_test(test_cq_limit),
		cmocka_unit_test(test_mr_limit),
		cmocka_unit_test(test_mw_limit),
		cmocka_unit_test(test_ah_limit),
		cmocka_unit_test(test_srq_limit),
		cmocka_unit_test(test_qp_limit),
		cmocka_unit_test(test_sizes_at_creation),
		cmocka_unit_test(test_sizes_at_post),
	};

	return cmocka_run_group_tests_name("exhaustion-limits", tests, setup, teardown);
}
