/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Remote access protection over the public API, on any provider (devargs
 * in PRDMA_PROT_DEVARGS_A/B): a request with the rkey of another PD, of a
 * deregistered MR, one byte past an MR, without the MR's or the QP's
 * access right, or a misaligned atomic is refused; the requester completes
 * with the remote error, the responder raises the access event, flushes its
 * receive and counts the NAK; and not one byte of the target (canaries
 * included) nor of the requester's READ/atomic destination changes.
 * Memory keys are not guessable in sequence, and an MR deregistered under
 * a stream of remote WRITEs is never written after dereg returns.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "prot.h"

#define WAIT_MS 2000

struct refusal {
	enum prdma_wr_opcode op;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t len;
	enum prdma_wc_status status;       /* requester's completion */
	enum prdma_event_type event;       /* responder's async event */
	enum prdma_qp_counter b_nak;       /* responder's NAK counter */
	enum prdma_qp_counter a_nak;       /* requester's NAK counter */
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

/* Run one request that must be refused; @target holds the memory aimed at. */
static void
refused(const struct refusal *r, struct p_area *target, uint32_t b_access)
{
	struct prdma_wc wc;
	int ret;

	p_connect(PRDMA_QPT_RC, b_access);
	assert_int_equal(p_post_recv_b(0, 64, 77), 0);
	p_snap(target);
	p_snap(&p_a.area);
	ret = p_post(r->op, 0, r->len, r->raddr, r->rkey, 5);
	if (ret == -EINVAL && r->status == PRDMA_WC_REM_INV_REQ_ERR) {
		/* refused locally at post: nothing went on the wire */
		assert_int_equal(p_changed(target), -1);
		p_disconnect();
		return;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(p_poll(p_a.scq, &wc, WAIT_MS), 1);
	assert_int_equal(wc.wr_id, 5);
	if (wc.status != r->status)
		fail_msg("requester status %s, expected %s", prdma_wc_status_str(wc.status),
			 prdma_wc_status_str(r->status));
	assert_int_equal(p_event(p_b.dev, r->event, WAIT_MS), 1);
	/* The responder's QP went to error: its posted receive is flushed. */
	assert_int_equal(p_poll(p_b.rcq, &wc, WAIT_MS), 1);
	assert_int_equal(wc.wr_id, 77);
	assert_int_equal(wc.status, PRDMA_WC_WR_FLUSH_ERR);
	if (p_qp_counter(p_b.qp, r->b_nak) >= 0)
		assert_int_equal(p_qp_counter(p_b.qp, r->b_nak), 1);
	if (p_qp_counter(p_a.qp, r->a_nak) >= 0)
		assert_int_equal(p_qp_counter(p_a.qp, r->a_nak), 1);
	if (p_changed(target) != -1)
		fail_msg("target byte %ld changed", p_changed(target) - (long)P_CANARY);
	/* READ and atomic results must not land in the requester either. */
	if (p_changed(&p_a.area) != -1)
		fail_msg("requester byte %ld changed", p_changed(&p_a.area) - (long)P_CANARY);
	p_disconnect();
}

static void
refuse_all_ops(uint64_t raddr, uint32_t rkey, struct p_area *target, uint32_t b_access)
{
	static const enum prdma_wr_opcode ops[] = {
		PRDMA_WR_RDMA_WRITE, PRDMA_WR_RDMA_READ, PRDMA_WR_ATOMIC_FETCH_AND_ADD,
		PRDMA_WR_ATOMIC_CMP_AND_SWP };
	struct refusal r;
	unsigned int i;

	for (i = 0; i < RTE_DIM(ops); i++) {
		memset(&r, 0, sizeof(r));
		r.op = ops[i];
		r.raddr = raddr;
		r.rkey = rkey;
		r.len = ops[i] >= PRDMA_WR_ATOMIC_CMP_AND_SWP ? 8 : 256;
		r.status = PRDMA_WC_REM_ACCESS_ERR;
		r.event = PRDMA_EVENT_QP_ACCESS_ERR;
		r.b_nak = PRDMA_QP_CNT_NAK_ACC_SENT;
		r.a_nak = PRDMA_QP_CNT_NAK_ACC_RCVD;
		refused(&r, target, b_access);
	}
}

static void
test_rkey_of_another_pd(void **state)
{
	struct prdma_pd *pd2;
	struct prdma_mr *mr2;
	struct p_area ar;

	(void)state;
	pd2 = prdma_pd_alloc(p_b.dev);
	assert_non_null(pd2);
	p_area_alloc(&ar, P_LEN, 0x33);
	mr2 = prdma_mr_reg(pd2, ar.data, P_LEN, PRDMA_ACCESS_ALL);
	assert_non_null(mr2);
	refuse_all_ops((uintptr_t)ar.data, mr2->rkey, &ar, PRDMA_ACCESS_ALL & ~PRDMA_ACCESS_MW_BIND);
	assert_int_equal(prdma_mr_dereg(mr2), 0);
	assert_int_equal(prdma_pd_free(pd2), 0);
	p_area_free(&ar);
}

static void
test_rkey_of_deregistered_mr(void **state)
{
	struct prdma_mr *mr;
	struct p_area ar;
	uint32_t rkey;

	(void)state;
	p_area_alloc(&ar, P_LEN, 0x44);
	mr = prdma_mr_reg(p_b.pd, ar.data, P_LEN, PRDMA_ACCESS_ALL);
	assert_non_null(mr);
	rkey = mr->rkey;
	assert_int_equal(prdma_mr_dereg(mr), 0);
	refuse_all_ops((uintptr_t)ar.data, rkey, &ar, PRDMA_ACCESS_ALL & ~PRDMA_ACCESS_MW_BIND);
	p_area_free(&ar);
}

static void
test_one_byte_past_the_end(void **state)
{
	uint32_t all = PRDMA_ACCESS_ALL & ~PRDMA_ACCESS_MW_BIND;
	struct prdma_wc wc;
	struct refusal r;
	long first;

	(void)state;
	/* Exactly the last 256 bytes: allowed, and only those change. */
	p_connect(PRDMA_QPT_RC, all);
	p_snap(&p_b.area);
	memset(p_a.area.data, 0x99, 256);
	assert_int_equal(p_post(PRDMA_WR_RDMA_WRITE, 0, 256,
				(uintptr_t)p_b.area.data + P_LEN - 256, p_b.mr->rkey, 1), 0);
	assert_int_equal(p_poll(p_a.scq, &wc, WAIT_MS), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	first = p_changed(&p_b.area);
	assert_int_equal(first, (long)(P_CANARY + P_LEN - 256));
	memcpy(p_b.area.shadow + first, p_b.area.base + first, 256);
	assert_int_equal(p_changed(&p_b.area), -1);
	p_disconnect();
	memset(p_a.area.data, 0x11, P_LEN);
	/* One byte more: refused, for each operation. */
	memset(&r, 0, sizeof(r));
	r.status = PRDMA_WC_REM_ACCESS_ERR;
	r.event = PRDMA_EVENT_QP_ACCESS_ERR;
	r.b_nak = PRDMA_QP_CNT_NAK_ACC_SENT;
	r.a_nak = PRDMA_QP_CNT_NAK_ACC_RCVD;
	r.rkey = p_b.mr->rkey;
	r.op = PRDMA_WR_RDMA_WRITE;
	r.len = 256;
	r.raddr = (uintptr_t)p_b.area.data + P_LEN - 255;
	refused(&r, &p_b.area, all);
	r.op = PRDMA_WR_RDMA_READ;
	refused(&r, &p_b.area, all);
	r.op = PRDMA_WR_ATOMIC_FETCH_AND_ADD;
	r.len = 8;
	r.raddr = (uintptr_t)p_b.area.data + P_LEN;
	refused(&r, &p_b.area, all);
	/* And one byte before the start. */
	r.op = PRDMA_WR_RDMA_WRITE;
	r.len = 16;
	r.raddr = (uintptr_t)p_b.area.data - 1;
	refused(&r, &p_b.area, all);
}

static void
test_no_access_right(void **state)
{
	static const struct {
		uint32_t mr_access;
		enum prdma_wr_opcode op;
	} c[] = {
		{ PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_READ |
		  PRDMA_ACCESS_REMOTE_ATOMIC, PRDMA_WR_RDMA_WRITE },
		{ PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE |
		  PRDMA_ACCESS_REMOTE_ATOMIC, PRDMA_WR_RDMA_READ },
		{ PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE |
		  PRDMA_ACCESS_REMOTE_READ, PRDMA_WR_ATOMIC_FETCH_AND_ADD },
		{ PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE |
		  PRDMA_ACCESS_REMOTE_READ, PRDMA_WR_ATOMIC_CMP_AND_SWP },
	};
	static const uint32_t qp_access[] = {
		PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_ATOMIC,
		PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_ATOMIC,
		PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ,
		PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ,
	};
	uint32_t all = PRDMA_ACCESS_ALL & ~PRDMA_ACCESS_MW_BIND;
	struct prdma_mr *mr;
	struct refusal r;
	struct p_area ar;
	unsigned int i;

	(void)state;
	p_area_alloc(&ar, P_LEN, 0x55);
	for (i = 0; i < RTE_DIM(c); i++) {
		memset(&r, 0, sizeof(r));
		r.op = c[i].op;
		r.len = r.op >= PRDMA_WR_ATOMIC_CMP_AND_SWP ? 8 : 128;
		r.status = PRDMA_WC_REM_ACCESS_ERR;
		r.event = PRDMA_EVENT_QP_ACCESS_ERR;
		r.b_nak = PRDMA_QP_CNT_NAK_ACC_SENT;
		r.a_nak = PRDMA_QP_CNT_NAK_ACC_RCVD;
		/* The MR lacks the right (the QP has them all). */
		mr = prdma_mr_reg(p_b.pd, ar.data, P_LEN, c[i].mr_access);
		assert_non_null(mr);
		r.raddr = (uintptr_t)ar.data + 64;
		r.rkey = mr->rkey;
		refused(&r, &ar, all);
		assert_int_equal(prdma_mr_dereg(mr), 0);
		/* The QP lacks the right (the MR has them all). */
		r.raddr = (uintptr_t)p_b.area.data + 64;
		r.rkey = p_b.mr->rkey;
		refused(&r, &p_b.area, qp_access[i]);
	}
	p_area_free(&ar);
}

static void
test_atomic_misaligned(void **state)
{
	uint32_t all = PRDMA_ACCESS_ALL & ~PRDMA_ACCESS_MW_BIND;
	struct refusal r;
	unsigned int off;

	(void)state;
	for (off = 1; off < 8; off += 3) {
		memset(&r, 0, sizeof(r));
		r.op = off == 1 ? PRDMA_WR_ATOMIC_FETCH_AND_ADD : PRDMA_WR_ATOMIC_CMP_AND_SWP;
		r.len = 8;
		r.raddr = (uintptr_t)p_b.area.data + 64 + off;
		r.rkey = p_b.mr->rkey;
		r.status = PRDMA_WC_REM_INV_REQ_ERR;
		r.event = PRDMA_EVENT_QP_REQ_ERR;
		r.b_nak = PRDMA_QP_CNT_NAK_INV_SENT;
		r.a_nak = PRDMA_QP_CNT_NAK_INV_RCVD;
		refused(&r, &p_b.area, all);
	}
}

#define NB_KEYS 512

static void
test_keys_not_guessable(void **state)
{
	static struct prdma_mr *mr[NB_KEYS];
	uint32_t key[NB_KEYS], diff, best_diff = 0;
	unsigned int i, j, same, best = 0, byte_seq = 0, distinct = 0;
	uint8_t seen[256];

	(void)state;
	for (i = 0; i < NB_KEYS; i++) {
		mr[i] = prdma_mr_reg(p_b.pd, p_b.area.data + (i % 64) * 64, 64,
				     PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE);
		assert_non_null(mr[i]);
		key[i] = mr[i]->rkey;
	}
	/* Every key is distinct. */
	for (i = 0; i < NB_KEYS; i++)
		for (j = i + 1; j < NB_KEYS; j++)
			assert_true(key[i] != key[j]);
	/* No step between consecutive keys dominates (a counter has one). */
	for (i = 1; i < NB_KEYS; i++) {
		diff = key[i] - key[i - 1];
		for (same = 0, j = 1; j < NB_KEYS; j++)
			if (key[j] - key[j - 1] == diff)
				same++;
		if (same > best) {
			best = same;
			best_diff = diff;
		}
	}
	printf("most common step between keys: 0x%08x, %u of %u\n", best_diff, best,
	       NB_KEYS - 1);
	assert_true(best < NB_KEYS / 16);
	/* The key byte is not a counter and spreads over its range. */
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < NB_KEYS; i++) {
		if (!seen[key[i] & 0xff])
			distinct++;
		seen[key[i] & 0xff] = 1;
		if (i > 0 && (uint8_t)(key[i] - key[i - 1]) == 1)
			byte_seq++;
	}
	printf("key byte: %u distinct values, %u successors of the previous one\n",
	       distinct, byte_seq);
	assert_true(distinct >= 128);
	assert_true(byte_seq < NB_KEYS / 16);
	for (i = 0; i < NB_KEYS; i++)
		assert_int_equal(prdma_mr_dereg(mr[i]), 0);
}

/*
 * A peer keeps WRITEing into an MR while it is deregistered. UC: the
 * responder drops writes with a bad key silently, so the stream goes on
 * after dereg; RC: the stream ends with a remote access error. Either way
 * nothing is written once dereg has returned.
 */
static void
dereg_under_traffic(enum prdma_qp_type type)
{
	uint32_t all = PRDMA_ACCESS_ALL & ~PRDMA_ACCESS_MW_BIND;
	uint64_t end, hz = rte_get_tsc_hz();
	unsigned int posted = 0, done = 0, landed_before = 0, i, after = 0;
	struct prdma_wc wc[16];
	struct prdma_mr *mr;
	struct p_area ar;
	uint32_t rkey;
	int n, saw_err = 0;

	p_area_alloc(&ar, P_LEN, 0x00);
	mr = prdma_mr_reg(p_b.pd, ar.data, P_LEN, PRDMA_ACCESS_LOCAL_WRITE |
			  PRDMA_ACCESS_REMOTE_WRITE);
	assert_non_null(mr);
	/* The handle is gone after the dereg: keep the key the peer holds. */
	rkey = mr->rkey;
	p_connect(type, all);
	memset(p_a.area.data, 0xee, P_LEN);
	/* Stream until writes are landing. */
	end = rte_get_tsc_cycles() + hz * 2;
	while (landed_before == 0 && rte_get_tsc_cycles() < end) {
		if (posted - done < 64 &&
		    p_post(PRDMA_WR_RDMA_WRITE, 0, 1024, (uintptr_t)ar.data + (posted % 60) * 1024,
			   rkey, posted) == 0)
			posted++;
		n = prdma_cq_poll(p_a.scq, RTE_DIM(wc), wc);
		for (i = 0; i < (unsigned int)n; i++)
			assert_int_equal(wc[i].status, PRDMA_WC_SUCCESS);
		done += (unsigned int)n;
		prdma_dev_progress(p_a.dev);
		prdma_dev_progress(p_b.dev);
		landed_before = ar.data[0] == 0xee;
	}
	assert_true(landed_before);
	/* More in flight, then deregister in the middle of it. */
	for (i = 0; i < 32 && posted - done < 64; i++)
		if (p_post(PRDMA_WR_RDMA_WRITE, 0, 1024, (uintptr_t)ar.data + (i % 60) * 1024,
			   rkey, posted) == 0)
			posted++;
	prdma_dev_progress(p_a.dev);
	assert_int_equal(prdma_mr_dereg(mr), 0);
	/* From here on no byte may change. */
	memset(ar.data, 0x5a, P_LEN);
	p_snap(&ar);
	end = rte_get_tsc_cycles() + hz / 5;
	while (rte_get_tsc_cycles() < end) {
		if (!saw_err && posted - done < 64 &&
		    p_post(PRDMA_WR_RDMA_WRITE, 0, 1024, (uintptr_t)ar.data + (posted % 60) * 1024,
			   rkey, posted) == 0) {
			posted++;
			after++;
		}
		n = prdma_cq_poll(p_a.scq, RTE_DIM(wc), wc);
		for (i = 0; i < (unsigned int)n; i++)
			if (wc[i].status != PRDMA_WC_SUCCESS)
				saw_err = 1;
		done += (unsigned int)n;
		prdma_dev_progress(p_a.dev);
		prdma_dev_progress(p_b.dev);
		assert_int_equal(p_changed(&ar), -1);
	}
	printf("%s: %u writes posted after dereg, requester error seen: %d\n",
	       type == PRDMA_QPT_RC ? "RC" : "UC", after, saw_err);
	if (type == PRDMA_QPT_RC)
		assert_true(saw_err);
	else
		assert_true(after > 100);
	assert_int_equal(p_changed(&ar), -1);
	p_disconnect();
	p_area_free(&ar);
}

static void
test_dereg_under_traffic_uc(void **state)
{
	(void)state;
	dereg_under_traffic(PRDMA_QPT_UC);
}

static void
test_dereg_under_traffic_rc(void **state)
{
	(void)state;
	dereg_under_traffic(PRDMA_QPT_RC);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rkey_of_another_pd),
		cmocka_unit_test(test_rkey_of_deregistered_mr),
		cmocka_unit_test(test_one_byte_past_the_end),
		cmocka_unit_test(test_no_access_right),
		cmocka_unit_test(test_atomic_misaligned),
		cmocka_unit_test(test_keys_not_guessable),
		cmocka_unit_test(test_dereg_under_traffic_uc),
		cmocka_unit_test(test_dereg_under_traffic_rc),
	};

	struct CMUnitTest run[RTE_DIM(tests)];
	const char *only = getenv("PRDMA_PROT_ONLY");
	const char *skip = getenv("PRDMA_PROT_SKIP");
	size_t i, n = 0;

	/* PRDMA_PROT_ONLY / PRDMA_PROT_SKIP: a substring of the test names to
	 * keep or to leave out (a provider's known bug runs on its own). */
	for (i = 0; i < RTE_DIM(tests); i++) {
		if (only != NULL && strstr(tests[i].name, only) == NULL)
			continue;
		if (skip != NULL && skip[0] != '\0' && strstr(tests[i].name, skip) != NULL) {
			printf("skipped by PRDMA_PROT_SKIP: %s\n", tests[i].name);
			continue;
		}
		run[n++] = tests[i];
	}
	return _cmocka_run_group_tests("protection", run, n, setup, teardown);
}
