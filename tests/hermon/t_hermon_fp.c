/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The Hermon fast path against the device model, case by case where the
 * straight-line post and poll hand over to the general paths: every inline
 * length from 0 to the QP's limit for SEND and RDMA WRITE (one chunk, two
 * chunks, more), 64- and 128-byte strides over many ring wraps (owner
 * parity, stamping), unsignaled runs completed by one CQE, chains, and polls
 * of several CQEs at once.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include <prdma.h>

#include "t_eal.h"
#include "hermon_obj.h"
#include "hermon_model.h"

#define BUF 4096

struct fp_env {
	int id[2];
	struct prdma_dev *dev[2];
	struct prdma_pd *pd[2];
	struct prdma_cq *cq[2];
	struct prdma_qp *qp[2];
	struct prdma_mr *mr[2];
	uint8_t *buf[2];
	uint8_t *src;
};

static struct fp_env env;
/* the devices of the group being run: plain, or a model with BlueFlame */
static const char *fp_devargs[2] = { "hermon:model,link=tfp,side=0",
				     "hermon:model,link=tfp,side=1" };

static void
fp_connect(struct prdma_qp *qp, const union prdma_gid *gid, uint32_t rqpn)
{
	struct prdma_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE |
		PRDMA_ACCESS_REMOTE_READ;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = PRDMA_MTU_1024;
	a.dest_qp_num = rqpn;
	a.ah_attr.dgid = *gid;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_AV |
					 PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
					 PRDMA_QP_RQ_PSN | PRDMA_QP_MAX_DEST_RD_ATOMIC |
					 PRDMA_QP_MIN_RNR_TIMER), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
					 PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT |
					 PRDMA_QP_RNR_RETRY | PRDMA_QP_MAX_QP_RD_ATOMIC), 0);
}

/* An RC pair with @max_inline bytes of inline data and @send_wr WQEs. */
static void
fp_pair(uint32_t max_inline, uint32_t send_wr)
{
	struct prdma_qp_init_attr ia;
	union prdma_gid gid[2];
	int k;

	for (k = 0; k < 2; k++) {
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = PRDMA_QPT_RC;
		ia.send_cq = env.cq[k];
		ia.recv_cq = env.cq[k];
		ia.cap.max_send_wr = send_wr;
		ia.cap.max_recv_wr = 64;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		ia.cap.max_inline_data = max_inline;
		env.qp[k] = prdma_qp_create(env.pd[k], &ia);
		assert_non_null(env.qp[k]);
		assert_int_equal(prdma_gid_query(env.dev[k], 1, 0, &gid[k]), 0);
	}
	for (k = 0; k < 2; k++)
		fp_connect(env.qp[k], &gid[1 - k], env.qp[1 - k]->qp_num);
}

static void
fp_pair_destroy(void)
{
	int k;

	for (k = 0; k < 2; k++) {
		assert_int_equal(prdma_qp_destroy(env.qp[k]), 0);
		env.qp[k] = NULL;
	}
}

/* Wait for @n completions on side @k's CQ, polled @nb at a time. */
static unsigned int
fp_wait(int k, struct prdma_wc *wc, unsigned int n, uint16_t nb)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 5;
	unsigned int got = 0;

	while (got < n && rte_get_tsc_cycles() < end) {
		int r = prdma_cq_poll(env.cq[k], RTE_MIN(nb, (uint16_t)(n - got)), wc + got);

		assert_true(r >= 0);
		got += (unsigned int)r;
	}
	return got;
}

static void
fp_post_recv(uint64_t id, uint32_t len)
{
	struct prdma_sge sge = { (uintptr_t)env.buf[1], len, env.mr[1]->lkey };
	struct prdma_recv_wr rwr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	const struct prdma_recv_wr *bad;

	assert_int_equal(prdma_post_recv(env.qp[1], &rwr, &bad), 0);
}

/* One inline request of @len bytes; its data arrives, nothing past it. */
static void
fp_inline_one(enum prdma_wr_opcode op, uint32_t len, uint64_t id)
{
	struct prdma_sge sge = { (uintptr_t)env.src, len, 0 };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad = NULL;
	struct prdma_wc wc[2];
	uint32_t i;

	memset(env.buf[1], 0xee, BUF);
	t_pattern_fill(env.src, len, (uint32_t)id);
	if (op == PRDMA_WR_SEND)
		fp_post_recv(id, BUF);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = PRDMA_SEND_SIGNALED | PRDMA_SEND_INLINE;
	wr.wr.rdma.remote_addr = (uintptr_t)env.buf[1];
	wr.wr.rdma.rkey = env.mr[1]->rkey;
	assert_int_equal(prdma_post_send(env.qp[0], &wr, &bad), 0);
	/* the data is copied at post time: scribbling on it changes nothing */
	memset(env.src, 0x11, len);
	assert_int_equal(fp_wait(0, wc, 1, 1), 1);
	assert_int_equal(wc[0].status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc[0].wr_id, id);
	assert_int_equal(wc[0].qp_num, env.qp[0]->qp_num);
	assert_int_equal(wc[0].opcode, op == PRDMA_WR_SEND ? PRDMA_WC_SEND :
			 PRDMA_WC_RDMA_WRITE);
	assert_int_equal(wc[0].wc_flags, 0);
	assert_int_equal(wc[0].vendor_err, 0);
	if (op == PRDMA_WR_SEND) {
		assert_int_equal(fp_wait(1, wc + 1, 1, 4), 1);
		assert_int_equal(wc[1].status, PRDMA_WC_SUCCESS);
		assert_int_equal(wc[1].opcode, PRDMA_WC_RECV);
		assert_int_equal(wc[1].wr_id, id);
		assert_int_equal(wc[1].byte_len, len);
	}
	assert_int_equal(t_pattern_check(env.buf[1], len, (uint32_t)id), -1);
	for (i = len; i < len + 64; i++)
		assert_int_equal(env.buf[1][i], 0xee);
}

static void
test_inline_every_length(void **state)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp_attr qa;
	uint32_t len, max;

	(void)state;
	fp_pair(300, 16);
	assert_int_equal(prdma_qp_query(env.qp[0], &qa, &ia), 0);
	max = ia.cap.max_inline_data;
	assert_true(max >= 300);
	/* SEND data starts at byte 16, WRITE data at 32: chunks split differently */
	for (len = 0; len <= max; len++) {
		fp_inline_one(PRDMA_WR_RDMA_WRITE, len, 1000 + len);
		fp_inline_one(PRDMA_WR_SEND, len, 5000 + len);
	}
	fp_pair_destroy();
}

/* Inline over the QP's limit is refused at post time, fast path or not. */
static void
test_inline_too_long(void **state)
{
	struct prdma_sge sge = { 0, 0, 0 };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad = NULL;
	struct prdma_qp_init_attr ia;
	struct prdma_qp_attr qa;

	(void)state;
	fp_pair(40, 16);
	assert_int_equal(prdma_qp_query(env.qp[0], &qa, &ia), 0);
	sge.addr = (uintptr_t)env.src;
	sge.length = ia.cap.max_inline_data + 1;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 7;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.send_flags = PRDMA_SEND_SIGNALED | PRDMA_SEND_INLINE;
	wr.wr.rdma.remote_addr = (uintptr_t)env.buf[1];
	wr.wr.rdma.rkey = env.mr[1]->rkey;
	assert_int_equal(prdma_post_send(env.qp[0], &wr, &bad), -EINVAL);
	assert_ptr_equal(bad, &wr);
	/* an opcode out of range and an SGE count over the QP's are refused too */
	sge.length = 8;
	wr.opcode = (enum prdma_wr_opcode)77;
	bad = NULL;
	assert_int_equal(prdma_post_send(env.qp[0], &wr, &bad), -EINVAL);
	assert_ptr_equal(bad, &wr);
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.num_sge = 2;
	bad = NULL;
	assert_int_equal(prdma_post_send(env.qp[0], &wr, &bad), -EINVAL);
	assert_ptr_equal(bad, &wr);
	/* and the QP still works */
	fp_inline_one(PRDMA_WR_RDMA_WRITE, 8, 8);
	fp_pair_destroy();
}

/*
 * Many ring wraps with @max_inline bytes (0: a 64-byte stride, 64: a
 * 128-byte one): each round posts a run of unsignaled WRITEs closed by a
 * signaled one, singly or as a chain, and polls its one CQE.
 */
static void
fp_wraps(uint32_t max_inline)
{
	struct prdma_send_wr wr[8];
	struct prdma_sge sge[8];
	const struct prdma_send_wr *bad;
	struct prdma_wc wc[4];
	uint32_t round, i, run;

	fp_pair(max_inline, 8);
	for (round = 0; round < 200; round++) {
		run = 1 + round % 7;
		for (i = 0; i < run; i++) {
			sge[i].addr = (uintptr_t)(env.src + 8 * i);
			sge[i].length = 8;
			sge[i].lkey = env.mr[0]->lkey;
			memset(&wr[i], 0, sizeof(wr[i]));
			wr[i].wr_id = round * 16 + i;
			wr[i].sg_list = &sge[i];
			wr[i].num_sge = 1;
			wr[i].opcode = PRDMA_WR_RDMA_WRITE;
			wr[i].send_flags = (i == run - 1 ? PRDMA_SEND_SIGNALED : 0) |
				(max_inline != 0 ? PRDMA_SEND_INLINE : 0);
			wr[i].wr.rdma.remote_addr = (uintptr_t)(env.buf[1] + 8 * i);
			wr[i].wr.rdma.rkey = env.mr[1]->rkey;
			wr[i].next = round & 1 ? &wr[i + 1] : NULL;
			t_pattern_fill(env.src + 8 * i, 8, round * 16 + i);
		}
		wr[run - 1].next = NULL;
		if (round & 1) {
			assert_int_equal(prdma_post_send(env.qp[0], &wr[0], &bad), 0);
		} else {
			for (i = 0; i < run; i++)
				assert_int_equal(prdma_post_send(env.qp[0], &wr[i], &bad), 0);
		}
		assert_int_equal(fp_wait(0, wc, 1, 4), 1);
		assert_int_equal(wc[0].status, PRDMA_WC_SUCCESS);
		assert_int_equal(wc[0].wr_id, round * 16 + run - 1);
		for (i = 0; i < run; i++)
			assert_int_equal(t_pattern_check(env.buf[1] + 8 * i, 8, round * 16 + i), -1);
		/* nothing more: the unsignaled ones left no CQE */
		assert_int_equal(prdma_cq_poll(env.cq[0], 4, wc), 0);
	}
	fp_pair_destroy();
}

static void
test_wraps_stride64(void **state)
{
	(void)state;
	fp_wraps(0);
}

static void
test_wraps_stride128(void **state)
{
	(void)state;
	fp_wraps(64);
}

/*
 * F16: posting stamps the slot one headroom ahead in every 64-byte block
 * but the first, up to the size of the WQE it held (rdma-core and Linux
 * stamp_send_wqe), so that no stale block of an earlier large WQE looks
 * valid to the prefetcher. A 256-byte stride with 200-byte inline WRITEs
 * fills every block; after the ring wraps, each stamped slot is checked.
 */
static void
test_stamp_every_block(void **state)
{
	struct prdma_sge sge = { 0, 200, 0 };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	struct hermon_qp *hq;
	struct prdma_wc wc;
	uint32_t i, slot, b, checked = 0;

	(void)state;
	fp_pair(200, 16);
	hq = (struct hermon_qp *)env.qp[0];
	assert_int_equal(hq->sq_shift, 8);
	sge.addr = (uintptr_t)env.src;
	for (i = 0; i < 4 * (hq->sq_mask + 1); i++) {
		const uint8_t *s;
		uint32_t end;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = PRDMA_WR_RDMA_WRITE;
		wr.send_flags = PRDMA_SEND_SIGNALED | PRDMA_SEND_INLINE;
		wr.wr.rdma.remote_addr = (uintptr_t)env.buf[1];
		wr.wr.rdma.rkey = env.mr[1]->rkey;
		assert_int_equal(prdma_post_send(env.qp[0], &wr, &bad), 0);
		slot = (hq->sq_head - 1 + hq->sq_spare) & hq->sq_mask;
		s = hq->sq + ((size_t)slot << hq->sq_shift);
		end = RTE_MIN((uint32_t)(s[7] & 0x3f) * 16, 1u << hq->sq_shift);
		for (b = 64; b < end; b += 64) {
			assert_int_equal(*(const uint32_t *)(s + b), UINT32_MAX);
			checked++;
		}
		assert_int_equal(fp_wait(0, &wc, 1, 1), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	}
	/* the slots held 240-byte WQEs once the ring had wrapped */
	assert_true(checked > 3 * (hq->sq_mask + 1));
	fp_pair_destroy();
}

/*
 * F16 for template posts, which stamp by a variant chosen at the
 * template's create from the stride (none for 64 bytes, block 1 for 128,
 * every block past the first for more): a ring pass of large WQEs first
 * dirties every block (where the stride allows it), then template posts
 * must leave every block but the first of the slot one headroom ahead
 * stamped, and complete.
 */
static void
test_tmpl_stamp(void **state)
{
	static const uint32_t inl[] = { 16, 88, 200 }, shift[] = { 6, 7, 8 };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	struct hermon_qp *hq;
	struct prdma_wc wc;
	uint32_t k, i, b, checked;

	(void)state;
	for (k = 0; k < RTE_DIM(inl); k++) {
		struct prdma_sge sge = { 0, inl[k], 0 };
		struct prdma_wr_tmpl *t;
		uint32_t len = RTE_MIN(inl[k], 64u);

		fp_pair(inl[k], 16);
		hq = (struct hermon_qp *)env.qp[0];
		assert_int_equal(hq->sq_shift, shift[k]);
		sge.addr = (uintptr_t)env.src;
		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = PRDMA_WR_RDMA_WRITE;
		wr.send_flags = PRDMA_SEND_SIGNALED | PRDMA_SEND_INLINE;
		wr.wr.rdma.remote_addr = (uintptr_t)env.buf[1];
		wr.wr.rdma.rkey = env.mr[1]->rkey;
		for (i = 0; i < hq->sq_mask + 1; i++) {
			assert_int_equal(prdma_post_send(env.qp[0], &wr, &bad), 0);
			assert_int_equal(fp_wait(0, &wc, 1, 1), 1);
		}
		sge.length = len;
		t = prdma_wr_template_create(env.qp[0], &wr, 0);
		assert_non_null(t);
		checked = 0;
		for (i = 0; i < 2 * (hq->sq_mask + 1); i++) {
			uint32_t slot;
			const uint8_t *s;

			assert_int_equal(prdma_post_template(env.qp[0], t, env.src, len,
							     (uintptr_t)env.buf[1], 100 + i), 0);
			slot = (hq->sq_head - 1 + hq->sq_spare) & hq->sq_mask;
			s = hq->sq + ((size_t)slot << hq->sq_shift);
			for (b = 64; b < (1u << hq->sq_shift); b += 64) {
				if (*(const uint32_t *)(s + b) != UINT32_MAX)
					fail_msg("stride %u: block %u of the headroom slot "
						 "not stamped", 1u << hq->sq_shift, b / 64);
				checked++;
			}
			assert_int_equal(fp_wait(0, &wc, 1, 1), 1);
			assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
			assert_int_equal(wc.wr_id, 100 + i);
		}
		assert_int_equal(checked, 2 * (hq->sq_mask + 1) * ((1u << shift[k]) / 64 - 1));
		assert_int_equal(prdma_wr_template_destroy(t), 0);
		fp_pair_destroy();
	}
}

/*
 * A CQE left by a destroyed QP reports the wr_id its destroy resolved
 * (the stash) even when a live QP has that number by the time of a poll
 * of one CQE (QP0/QP1 come back at once): the one-CQE path must not take
 * it as the new QP's, nor keep the destroyed QP in its cache. The reuse
 * is simulated: the peer QP is put in the old number's slot with that
 * number, for the poll.
 */
static void
test_poll_stash_reused_qpn(void **state)
{
	struct prdma_sge sge = { 0, 8, 0 };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	struct hermon_qp *h1;
	struct hermon_cq *hc;
	struct hermon_dev *hd;
	struct prdma_wc wc;
	uint32_t na, n1, k;

	(void)state;
	fp_pair(64, 16);
	h1 = (struct hermon_qp *)env.qp[1];
	hc = (struct hermon_cq *)env.cq[0];
	hd = hc->hd;    /* side 0's QPN table, which CQ 0 looks QPs up in */
	na = env.qp[0]->qp_num;
	n1 = h1->qpn;
	sge.addr = (uintptr_t)env.src;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x5151;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.send_flags = PRDMA_SEND_SIGNALED | PRDMA_SEND_INLINE;
	wr.wr.rdma.remote_addr = (uintptr_t)env.buf[1];
	wr.wr.rdma.rkey = env.mr[1]->rkey;
	/* a one-CQE poll caches the QP; its destroy must forget it */
	assert_int_equal(prdma_post_send(env.qp[0], &wr, &bad), 0);
	assert_int_equal(fp_wait(0, &wc, 1, 1), 1);
	assert_ptr_equal(hc->last_qp, (struct hermon_qp *)env.qp[0]);
	assert_int_equal(hc->last_qpn, na);
	assert_int_equal(prdma_post_send(env.qp[0], &wr, &bad), 0);
	for (k = 0; k < 5000000 && prdma_cq_peek(env.cq[0]) < 1; k++)
		rte_pause();
	assert_int_equal(prdma_cq_peek(env.cq[0]), 1);
	assert_int_equal(prdma_qp_destroy(env.qp[0]), 0);
	env.qp[0] = NULL;
	assert_int_equal(hc->last_qpn, UINT32_MAX);
	assert_null(hc->last_qp);
	assert_int_equal(hc->stash_n, 1);
	hd->qp_table[na] = h1;
	h1->qpn = na;
	k = (uint32_t)prdma_cq_poll(env.cq[0], 1, &wc);
	h1->qpn = n1;
	hd->qp_table[na] = NULL;
	assert_int_equal(k, 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 0x5151);
	assert_int_equal(wc.qp_num, na);
	assert_int_equal(hc->stash_n, 0);
	assert_int_equal(prdma_qp_destroy(env.qp[1]), 0);
	env.qp[1] = NULL;
}

/*
 * F21: LOCAL_INV and BIND_MW carry the strong-ordering bit (control dword
 * 2 bit 7, rdma-core MLX4_WQE_CTRL_STRONG_ORDER); other requests do not.
 */
static void
test_strong_order_bit(void **state)
{
	struct prdma_sge sge = { 0, 16, 0 };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	struct hermon_qp *hq;
	const uint8_t *w;

	(void)state;
	fp_pair(64, 16);
	hq = (struct hermon_qp *)env.qp[0];
	sge.addr = (uintptr_t)env.src;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)env.buf[1];
	wr.wr.rdma.rkey = env.mr[1]->rkey;
	assert_int_equal(prdma_post_send(env.qp[0], &wr, &bad), 0);
	w = hq->sq + ((size_t)((hq->sq_head - 1) & hq->sq_mask) << hq->sq_shift);
	assert_int_equal(w[11] & 0x80, 0);
	/* a key nobody has: the QP goes to error, and the pair goes away */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = PRDMA_WR_LOCAL_INV;
	wr.invalidate_rkey = 0xdead0001;
	assert_int_equal(prdma_post_send(env.qp[0], &wr, &bad), 0);
	w = hq->sq + ((size_t)((hq->sq_head - 1) & hq->sq_mask) << hq->sq_shift);
	assert_int_equal(w[11] & 0x80, 0x80);
	fp_pair_destroy();
}

/* Several signaled requests, then polls of several CQEs at once, in order. */
static void
test_poll_many(void **state)
{
	struct prdma_sge sge = { 0, 16, 0 };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	struct prdma_wc wc[32];
	uint32_t i, round;

	(void)state;
	fp_pair(64, 32);
	sge.addr = (uintptr_t)env.src;
	for (round = 0; round < 20; round++) {
		for (i = 0; i < 12; i++) {
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = round * 100 + i;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = i % 3 == 0 ? PRDMA_WR_SEND : PRDMA_WR_RDMA_WRITE;
			wr.send_flags = PRDMA_SEND_SIGNALED | PRDMA_SEND_INLINE;
			wr.wr.rdma.remote_addr = (uintptr_t)env.buf[1];
			wr.wr.rdma.rkey = env.mr[1]->rkey;
			if (wr.opcode == PRDMA_WR_SEND)
				fp_post_recv(i, BUF);
			assert_int_equal(prdma_post_send(env.qp[0], &wr, &bad), 0);
		}
		/* the peer's receive CQEs and these requester ones share no CQ */
		assert_int_equal(fp_wait(0, wc, 12, (uint16_t)(1 + round % 16)), 12);
		for (i = 0; i < 12; i++) {
			assert_int_equal(wc[i].status, PRDMA_WC_SUCCESS);
			assert_int_equal(wc[i].wr_id, round * 100 + i);
			assert_int_equal(wc[i].opcode, i % 3 == 0 ? PRDMA_WC_SEND :
					 PRDMA_WC_RDMA_WRITE);
			assert_int_equal(wc[i].qp_num, env.qp[0]->qp_num);
		}
		assert_int_equal(fp_wait(1, wc, 4, 3), 4);
		for (i = 0; i < 4; i++)
			assert_int_equal(wc[i].opcode, PRDMA_WC_RECV);
	}
	fp_pair_destroy();
}

/* The WQE of the last post on side 0: its bytes (DS * 16) into @out (256). */
static uint32_t
fp_last_wqe(uint8_t *out)
{
	struct hermon_qp *hq = (struct hermon_qp *)env.qp[0];
	const uint8_t *w = hq->sq + ((size_t)((hq->sq_head - 1) & hq->sq_mask) << hq->sq_shift);
	uint32_t n = (uint32_t)(w[7] & 0x3f) * 16;

	if (n > RTE_MIN(256u, 1u << hq->sq_shift))
		fail_msg("a WQE of %u bytes (DS) in a %u-byte slot", n, 1u << hq->sq_shift);
	memcpy(out, w, n);
	/* the owner bit follows the ring pass, not the request */
	out[0] &= 0x7f;
	return n;
}

/*
 * A template's post writes the WQE prdma_post_send writes for the same
 * request, byte for byte (owner bit aside): inline WRITE of every chunk
 * shape, WRITE with immediate, inline SEND with fence and solicited, and
 * gather WRITE and READ; then its single and burst posts complete.
 */
static void
test_tmpl_same_wqe(void **state)
{
	static const uint32_t lens[] = { 0, 1, 16, 28, 29, 44, 45, 60, 64, 88 };
	static const struct {
		enum prdma_wr_opcode op;
		uint32_t flags;
	} shapes[] = {
		{ PRDMA_WR_RDMA_WRITE, PRDMA_SEND_INLINE },
		{ PRDMA_WR_RDMA_WRITE_WITH_IMM, PRDMA_SEND_INLINE },
		{ PRDMA_WR_SEND, PRDMA_SEND_INLINE | PRDMA_SEND_FENCE | PRDMA_SEND_SOLICITED },
		{ PRDMA_WR_RDMA_WRITE, 0 },
		{ PRDMA_WR_RDMA_READ, 0 },
	};
	uint8_t a[256], b[256];
	struct prdma_tmpl_req req[2];
	struct prdma_wc wc[4];
	uint32_t i, k, na, nb;
	uint16_t posted;

	(void)state;
	/* what earlier cases left on the shared CQs (flushes at their destroy) */
	for (k = 0; k < 2; k++)
		while (prdma_cq_poll(env.cq[k], 4, wc) > 0)
			;
	fp_pair(88, 16);
	for (k = 0; k < RTE_DIM(shapes); k++) {
		for (i = 0; i < RTE_DIM(lens); i++) {
			bool inl = (shapes[k].flags & PRDMA_SEND_INLINE) != 0;
			/* SEND and WRITE with immediate consume a receive */
			bool recv = shapes[k].op == PRDMA_WR_SEND ||
				shapes[k].op == PRDMA_WR_RDMA_WRITE_WITH_IMM;
			uint8_t *src = inl ? env.src : env.buf[0];
			struct prdma_sge sge = { (uintptr_t)src, lens[i],
						 inl ? 0 : env.mr[0]->lkey };
			const struct prdma_send_wr *bad = NULL;
			struct prdma_wr_tmpl *t;
			struct prdma_send_wr wr;

			memset(&wr, 0, sizeof(wr));
			wr.wr_id = 7;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = shapes[k].op;
			wr.send_flags = PRDMA_SEND_SIGNALED | shapes[k].flags;
			wr.imm_data = 0xabcd0000u + i;
			wr.wr.rdma.remote_addr = (uintptr_t)env.buf[1] + 8 * i;
			wr.wr.rdma.rkey = env.mr[1]->rkey;
			t_pattern_fill(src, lens[i], i);
			if (recv)
				fp_post_recv(1, BUF);
			assert_int_equal(prdma_post_send(env.qp[0], &wr, &bad), 0);
			na = fp_last_wqe(a);
			if (fp_wait(0, wc, 1, 1) != 1)
				fail_msg("opcode %d length %u: no completion of prdma_post_send",
					 shapes[k].op, lens[i]);
			if (wc[0].status != PRDMA_WC_SUCCESS)
				fail_msg("opcode %d length %u: prdma_post_send completed with %s",
					 shapes[k].op, lens[i], prdma_wc_status_str(wc[0].status));

			sge.length = 88;
			t = prdma_wr_template_create(env.qp[0], &wr, 0);
			assert_non_null(t);
			if (recv)
				fp_post_recv(2, BUF);
			assert_int_equal(prdma_post_template(env.qp[0], t, src, lens[i],
							     wr.wr.rdma.remote_addr, 7), 0);
			nb = fp_last_wqe(b);
			assert_int_equal(fp_wait(0, wc, 1, 1), 1);
			assert_int_equal(wc[0].status, PRDMA_WC_SUCCESS);
			assert_int_equal(wc[0].wr_id, 7);
			if (na != nb || memcmp(a, b, na) != 0)
				fail_msg("opcode %d flags %#x length %u: the template's WQE "
					 "(%u bytes) differs from prdma_post_send's (%u)",
					 shapes[k].op, shapes[k].flags, lens[i], nb, na);

			/* the burst writes the same WQE too */
			if (recv) {
				fp_post_recv(3, BUF);
				fp_post_recv(4, BUF);
			}
			req[0].data = src;
			req[0].len = lens[i];
			req[0].remote_addr = wr.wr.rdma.remote_addr;
			req[0].wr_id = 8;
			req[0].reserved = 0;
			req[1] = req[0];
			req[1].wr_id = 9;
			assert_int_equal(prdma_post_template_burst(env.qp[0], t, req, 2, &posted),
					 0);
			assert_int_equal(posted, 2);
			nb = fp_last_wqe(b);
			assert_int_equal(fp_wait(0, wc, 2, 2), 2);
			assert_int_equal(wc[0].wr_id, 8);
			assert_int_equal(wc[1].wr_id, 9);
			if (na != nb || memcmp(a, b, na) != 0)
				fail_msg("opcode %d flags %#x length %u: the template burst's "
					 "WQE differs from prdma_post_send's", shapes[k].op,
					 shapes[k].flags, lens[i]);
			assert_int_equal(prdma_wr_template_destroy(t), 0);
			if (recv)
				assert_int_equal(fp_wait(1, wc, 4, 4), 4);
		}
	}
	fp_pair_destroy();
}

static int
setup(void **state)
{
	const char *const *devargs = fp_devargs;
	struct prdma_cq_init_attr ca;
	int k;

	(void)state;
	if (t_eal_init() < 0)
		return -1;
	for (k = 0; k < 2; k++) {
		env.id[k] = prdma_dev_probe(devargs[k]);
		if (env.id[k] < 0)
			return -1;
		env.dev[k] = prdma_dev_open((uint16_t)env.id[k]);
		if (env.dev[k] == NULL)
			return -1;
		env.pd[k] = prdma_pd_alloc(env.dev[k]);
		memset(&ca, 0, sizeof(ca));
		ca.cqe = 256;
		env.cq[k] = prdma_cq_create(env.dev[k], &ca);
		env.buf[k] = rte_zmalloc("tfp", 2 * BUF, 64);
		if (env.pd[k] == NULL || env.cq[k] == NULL || env.buf[k] == NULL)
			return -1;
		/* remote read for the template test's READ */
		env.mr[k] = prdma_mr_reg(env.pd[k], env.buf[k], 2 * BUF,
					 PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE |
					 PRDMA_ACCESS_REMOTE_READ);
		if (env.mr[k] == NULL)
			return -1;
	}
	/* inline and gather sources: side 0's registered buffer */
	env.src = env.buf[0];
	return 0;
}

static int
teardown(void **state)
{
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		if (env.qp[k] != NULL)
			prdma_qp_destroy(env.qp[k]);
		prdma_mr_dereg(env.mr[k]);
		prdma_cq_destroy(env.cq[k]);
		prdma_pd_free(env.pd[k]);
		prdma_dev_close(env.dev[k]);
		prdma_dev_remove((uint16_t)env.id[k]);
		rte_free(env.buf[k]);
	}
	return 0;
}

/*
 * BlueFlame (issue 14 item 5): one inline request posted while side 0's
 * model is paused, so that the model sees the register copy before it can
 * find the WQE in the ring; @garble (0 none, 1 a flipped data byte, 2 the
 * second 64-byte block never arrived) spoils the copy first.
 */
static void
bf_post_one(uint32_t len, uint64_t id, int garble)
{
	struct hermon_qp *qp = (struct hermon_qp *)env.qp[0];
	struct hermon_model *m = hermon_model_get("tfpbf.0");
	struct prdma_sge sge = { (uintptr_t)env.src, len, 0 };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad = NULL;
	struct prdma_wc wc;
	uint8_t *half;

	assert_non_null(m);
	memset(env.buf[1], 0xee, BUF);
	t_pattern_fill(env.src, len, (uint32_t)id);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.send_flags = PRDMA_SEND_SIGNALED | PRDMA_SEND_INLINE;
	wr.wr.rdma.remote_addr = (uintptr_t)env.buf[1];
	wr.wr.rdma.rkey = env.mr[1]->rkey;
	hermon_model_pause(m);
	half = qp->bf + qp->bf_off;
	assert_int_equal(prdma_post_send(env.qp[0], &wr, &bad), 0);
	/* the copy went to the half that was current, and the next is the other */
	assert_int_equal(qp->bf + (qp->bf_off ^ qp->bf_half) - half, 0);
	assert_int_not_equal(*(volatile uint32_t *)half, 0);
	if (garble == 1)
		half[40] ^= 0xff;
	else if (garble == 2)
		memset(half + 64, 0, 64);
	hermon_model_resume(m);
	assert_int_equal(fp_wait(0, &wc, 1, 1), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.wr_id, id);
	assert_int_equal(t_pattern_check(env.buf[1], len, (uint32_t)id), -1);
	assert_int_equal(env.buf[1][len], 0xee);
}

static void
bf_stats(struct hermon_model_stats *st)
{
	assert_int_equal(hermon_model_get_stats(hermon_model_get("tfpbf.0"), st), 0);
}

/* A small inline WQE goes by BlueFlame and runs from the copy; halves alternate. */
static void
test_bf_executes_alternating(void **state)
{
	struct hermon_model_stats a, b;
	struct hermon_qp *qp;
	uint32_t off0, i;

	(void)state;
	fp_pair(128, 16);
	qp = (struct hermon_qp *)env.qp[0];
	assert_non_null(qp->bf);
	assert_int_equal(qp->bf_half, 256);
	off0 = qp->bf_off;
	bf_stats(&a);
	for (i = 0; i < 6; i++) {
		bf_post_one(i % 2 ? 80 : 20, 100 + i, 0);
		assert_int_equal(qp->bf_off, off0 ^ (i % 2 ? 0 : qp->bf_half));
	}
	bf_stats(&b);
	assert_int_equal(b.bf_exec - a.bf_exec, 6);
	assert_int_equal(b.bf_fallback - a.bf_fallback, 0);
	assert_int_equal(b.bf_half[0] - a.bf_half[0], 3);
	assert_int_equal(b.bf_half[1] - a.bf_half[1], 3);
	fp_pair_destroy();
}

/* A torn or garbled copy is ignored and the WQE runs from the ring. */
static void
test_bf_torn_falls_back(void **state)
{
	struct hermon_model_stats a, b;
	int garble;

	(void)state;
	fp_pair(128, 16);
	for (garble = 1; garble <= 2; garble++) {
		bf_stats(&a);
		bf_post_one(80, 200 + (uint64_t)garble, garble);
		bf_stats(&b);
		assert_int_equal(b.bf_exec - a.bf_exec, 0);
		assert_int_equal(b.bf_fallback - a.bf_fallback, 1);
	}
	/* and the next good copy runs from the register again */
	bf_stats(&a);
	bf_post_one(20, 300, 0);
	bf_stats(&b);
	assert_int_equal(b.bf_exec - a.bf_exec, 1);
	fp_pair_destroy();
}

static int
setup_bf(void **state)
{
	fp_devargs[0] = "hermon:model,link=tfpbf,side=0,model_bf=1";
	fp_devargs[1] = "hermon:model,link=tfpbf,side=1,model_bf=1";
	return setup(state);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_every_length),
		cmocka_unit_test(test_inline_too_long),
		cmocka_unit_test(test_wraps_stride64),
		cmocka_unit_test(test_wraps_stride128),
		cmocka_unit_test(test_poll_many),
		cmocka_unit_test(test_stamp_every_block),
		cmocka_unit_test(test_strong_order_bit),
		cmocka_unit_test(test_tmpl_same_wqe),
		cmocka_unit_test(test_tmpl_stamp),
		cmocka_unit_test(test_poll_stash_reused_qpn),
	};

	/* the same cases on a BlueFlame model, then BlueFlame's own */
	const struct CMUnitTest bf_tests[] = {
		cmocka_unit_test(test_bf_executes_alternating),
		cmocka_unit_test(test_bf_torn_falls_back),
		cmocka_unit_test(test_inline_every_length),
		cmocka_unit_test(test_inline_too_long),
		cmocka_unit_test(test_wraps_stride64),
		cmocka_unit_test(test_wraps_stride128),
		cmocka_unit_test(test_poll_many),
		cmocka_unit_test(test_stamp_every_block),
		cmocka_unit_test(test_strong_order_bit),
		cmocka_unit_test(test_tmpl_same_wqe),
		cmocka_unit_test(test_tmpl_stamp),
		cmocka_unit_test(test_poll_stash_reused_qpn),
	};
	int ret;

	ret = cmocka_run_group_tests_name("hermon-fp", tests, setup, teardown);
	ret += cmocka_run_group_tests_name("hermon-fp-bf", bf_tests, setup_bf, teardown);
	return ret;
}
