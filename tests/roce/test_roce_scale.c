/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The QP table at scale: the max_qp= devarg (probe, limit, QPN reuse), and
 * 16,384 QPs on each side of a default device pair where the first and the
 * last created still carry traffic (their QPNs look up the right slots, and
 * the engine finds their work among thousands of idle QPs).
 */

#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "t_roce.h"

#define SCALE_NQP 16384u

static struct prdma_qp *
rc_new(struct t_side *s)
{
	struct prdma_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = s->scq;
	ia.recv_cq = s->rcq;
	ia.cap.max_send_wr = 2;
	ia.cap.max_recv_wr = 2;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return prdma_qp_create(s->pd, &ia);
}

static void
probe_refused(const char *args)
{
	int ret;

	rte_errno = 0;
	ret = prdma_dev_probe(args);
	if (ret != -EINVAL || rte_errno != EINVAL)
		fail_msg("%s: %d (rte_errno %d), expected -EINVAL", args, ret, rte_errno);
}

/* max_qp=8: reported, enforced, and a freed slot comes back under a new QPN. */
static void
test_max_qp_devarg(void **state)
{
	struct prdma_qp *qp[9];
	struct prdma_dev_attr da;
	struct t_side s[2];
	uint32_t old;
	int i;

	(void)state;
	assert_int_equal(t_eal_init(), 0);
	probe_refused("roce:ring=sc0,side=0,max_qp=0");
	probe_refused("roce:ring=sc0,side=0,max_qp=1048575");
	probe_refused("roce:ring=sc0,side=0,max_qp=lots");
	probe_refused("roce:ring=sc0,side=0,max_qp=");
	t_pair_open(s, "roce:ring=sc1,side=0,max_qp=8", "roce:ring=sc1,side=1,max_qp=8");
	assert_int_equal(prdma_dev_query(s[0].dev, &da), 0);
	assert_int_equal(da.max_qp, 8);
	assert_int_equal(da.max_res_rd_atom, 8 * da.max_qp_rd_atom);
	for (i = 0; i < 8; i++) {
		qp[i] = rc_new(&s[0]);
		if (qp[i] == NULL)
			fail_msg("QP %d of 8: %s", i, rte_strerror(rte_errno));
	}
	rte_errno = 0;
	assert_null(rc_new(&s[0]));
	assert_int_equal(rte_errno, ENOSPC);
	/* One slot free at a time: its QPN never comes straight back. */
	for (i = 0; i < 200; i++) {
		old = qp[i % 8]->qp_num;
		assert_int_equal(prdma_qp_destroy(qp[i % 8]), 0);
		qp[i % 8] = rc_new(&s[0]);
		assert_non_null(qp[i % 8]);
		assert_int_not_equal(qp[i % 8]->qp_num, old);
		assert_int_not_equal(qp[i % 8]->qp_num, 0xffffff);
	}
	for (i = 0; i < 8; i++)
		assert_int_equal(prdma_qp_destroy(qp[i]), 0);
	t_pair_close(s);
}

/* RESET to RTS, connected to @peer (same steps as t_pair_connect). */
static void
rc_connect(struct t_side *me, struct prdma_qp *qp, const struct t_side *peer,
	   uint32_t dest_qpn)
{
	struct prdma_qp_attr qa;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_INIT;
	qa.port_num = 1;
	qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ;
	assert_int_equal(prdma_qp_modify(qp, &qa, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS), 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTR;
	qa.path_mtu = PRDMA_MTU_1024;
	qa.dest_qp_num = dest_qpn;
	qa.rq_psn = 100;
	qa.max_dest_rd_atomic = 4;
	qa.min_rnr_timer = 1;
	qa.ah_attr.dgid = peer->gid;
	qa.ah_attr.port_num = 1;
	assert_int_equal(prdma_qp_modify(qp, &qa, PRDMA_QP_STATE | PRDMA_QP_AV |
					 PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
					 PRDMA_QP_RQ_PSN | PRDMA_QP_MAX_DEST_RD_ATOMIC |
					 PRDMA_QP_MIN_RNR_TIMER), 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTS;
	qa.sq_psn = 100;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 4;
	assert_int_equal(prdma_qp_modify(qp, &qa, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
					 PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT |
					 PRDMA_QP_RNR_RETRY | PRDMA_QP_MAX_QP_RD_ATOMIC), 0);
	(void)me;
}

/* A WRITE, a READ and a SEND from s[0]'s @a to s[1]'s @b, data checked. */
static void
traffic(struct t_side s[2], struct prdma_qp *a, struct prdma_qp *b, uint32_t seed)
{
	struct prdma_wc wc;
	uint32_t off = 1024 * (seed % 16);

	s[0].qp = a;
	s[1].qp = b;
	t_pattern_fill(s[0].buf + off, 512, seed);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, off, 512,
				(uintptr_t)s[1].buf + 32768 + off, s[1].mr->rkey, 1), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.qp_num, a->qp_num);
	assert_int_equal(t_pattern_check(s[1].buf + 32768 + off, 512, seed), -1);

	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_READ, off + 16384, 512,
				(uintptr_t)s[1].buf + 32768 + off, s[1].mr->rkey, 2), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_pattern_check(s[0].buf + off + 16384, 512, seed), -1);

	assert_int_equal(t_post_recv(&s[1], 49152 + off, 512, 3), 0);
	assert_int_equal(t_post(&s[0], PRDMA_WR_SEND, off, 100, 0, 0, 4), 0);
	assert_int_equal(t_poll_one(s, s[1].rcq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.qp_num, b->qp_num);
	assert_int_equal(wc.byte_len, 100);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	s[0].qp = NULL;
	s[1].qp = NULL;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* 16,384 QPs a side on the default devices; the first and last connect. */
static void
test_many_qps(void **state)
{
	struct prdma_dev_attr da;
	struct prdma_qp **qp[2];
	struct t_side s[2];
	uint32_t *qpn, i;
	int k;

	(void)state;
	t_pair_open(s, "roce:ring=sc2,side=0", "roce:ring=sc2,side=1");
	assert_int_equal(prdma_dev_query(s[0].dev, &da), 0);
	assert_true(da.max_qp >= SCALE_NQP);
	qpn = calloc(SCALE_NQP, sizeof(*qpn));
	assert_non_null(qpn);
	for (k = 0; k < 2; k++) {
		qp[k] = calloc(SCALE_NQP, sizeof(*qp[k]));
		assert_non_null(qp[k]);
		for (i = 0; i < SCALE_NQP; i++) {
			qp[k][i] = rc_new(&s[k]);
			if (qp[k][i] == NULL)
				fail_msg("side %d QP %u: %s", k, i, rte_strerror(rte_errno));
		}
	}
	for (i = 0; i < SCALE_NQP; i++)
		qpn[i] = qp[0][i]->qp_num;
	qsort(qpn, SCALE_NQP, sizeof(*qpn), cmp_u32);
	for (i = 1; i < SCALE_NQP; i++)
		assert_int_not_equal(qpn[i], qpn[i - 1]);
	/* First with last across the sides, so both table ends are looked up. */
	rc_connect(&s[0], qp[0][0], &s[1], qp[1][SCALE_NQP - 1]->qp_num);
	rc_connect(&s[1], qp[1][SCALE_NQP - 1], &s[0], qp[0][0]->qp_num);
	rc_connect(&s[0], qp[0][SCALE_NQP - 1], &s[1], qp[1][0]->qp_num);
	rc_connect(&s[1], qp[1][0], &s[0], qp[0][SCALE_NQP - 1]->qp_num);
	traffic(s, qp[0][0], qp[1][SCALE_NQP - 1], 7);
	traffic(s, qp[0][SCALE_NQP - 1], qp[1][0], 8);
	traffic(s, qp[0][0], qp[1][SCALE_NQP - 1], 9);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < SCALE_NQP; i++)
			assert_int_equal(prdma_qp_destroy(qp[k][i]), 0);
		free(qp[k]);
	}
	free(qpn);
	t_pair_close(s);
}

/*
 * Work posted to a QP in ERR completes flushed: the engine steps only
 * marked QPs, so the post must mark it (inline and thread progress).
 */
static void
err_posts_flushed(const char *a, const char *b)
{
	struct prdma_qp_attr qa;
	struct prdma_wc wc;
	struct t_side s[2];
	struct prdma_qp *qp[2];
	int k;

	t_pair_open(s, a, b);
	for (k = 0; k < 2; k++) {
		qp[k] = rc_new(&s[k]);
		assert_non_null(qp[k]);
	}
	rc_connect(&s[0], qp[0], &s[1], qp[1]->qp_num);
	rc_connect(&s[1], qp[1], &s[0], qp[0]->qp_num);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_ERR;
	assert_int_equal(prdma_qp_modify(qp[0], &qa, PRDMA_QP_STATE), 0);
	s[0].qp = qp[0];
	s[1].qp = qp[1];
	assert_int_equal(t_post_recv(&s[0], 0, 64, 77), 0);
	assert_int_equal(t_poll_one(s, s[0].rcq, &wc), 1);
	assert_int_equal(wc.wr_id, 77);
	assert_int_equal(wc.status, PRDMA_WC_WR_FLUSH_ERR);
	assert_int_equal(t_post(&s[0], PRDMA_WR_SEND, 0, 8, 0, 0, 78), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.wr_id, 78);
	assert_int_equal(wc.status, PRDMA_WC_WR_FLUSH_ERR);
	t_pair_close(s);
}

static void
test_err_posts_flushed(void **state)
{
	(void)state;
	err_posts_flushed("roce:ring=sc3,side=0,max_qp=4", "roce:ring=sc3,side=1,max_qp=4");
	err_posts_flushed("roce:ring=sc4,side=0,progress=thread",
			  "roce:ring=sc4,side=1,progress=thread");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_qp_devarg),
		cmocka_unit_test(test_many_qps),
		cmocka_unit_test(test_err_posts_flushed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
