/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Soak: QP churn, then mixed traffic with fault injection, with memory
 * sampled throughout.
 *
 *  - churn: PRDMA_SOAK_CYCLES (10000) connect/disconnect cycles of an RC
 *    pair, each carrying one SEND whose bytes are checked;
 *  - traffic: PRDMA_SOAK_SECONDS (30; 600 for the long run) of RC WRITE,
 *    READ, FETCH_AND_ADD and SEND with immediate, and UD SEND, over links
 *    that drop, duplicate, reorder and corrupt frames (the soft provider's
 *    fault devargs, PRDMA_SOAK_FAULTS; without them where a provider has
 *    none, said in the output);
 *  - every operation is accounted for: posted = completed, every RC
 *    request succeeds, every byte that arrived is checked, UD losses are
 *    only what the faults explain;
 *  - DPDK heap in use and RSS, sampled every few seconds, stay flat after
 *    the warm-up; leaks are for the ASan/LSan run and valgrind to find.
 */

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_bitops.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include <prdma.h>

#include "t_eal.h"

#define BUF_LEN   (1u << 20)
#define SLOT      1024u
#define NB_SLOT   64u
#define DEPTH     16u
#define UD_SLOT   (40u + 512u)
#define NB_RECV   32u
#define DEF_FAULTS "tx_drop=0.2%,tx_dup=0.2%,tx_reorder=0.2%,tx_corrupt=0.1%"

/* Memory layout of each side's buffer. */
#define OFF_WRITE 0u                           /* WRITE targets / sources */
#define OFF_READ  (NB_SLOT * SLOT)             /* READ sources (B) / dest (A) */
#define OFF_SEND  (2u * NB_SLOT * SLOT)        /* SEND sources / receives */
#define OFF_ATOM  (3u * NB_SLOT * SLOT)        /* the counter (B) / results (A) */
#define OFF_UD    (4u * NB_SLOT * SLOT)        /* UD sources / receives */

struct side {
	int id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	uint8_t *buf;
	struct prdma_mr *mr;
	struct prdma_qp *rc;
	struct prdma_qp *ud;
	struct prdma_ah *ah;           /* to the peer (UD) */
	union prdma_gid gid;
};

static struct side sa, sb;
static int faults_on;
static uint64_t hz;

struct mem_sample {
	uint64_t heap;
	uint64_t rss;
};

static void
mem_sample(struct mem_sample *m)
{
	struct rte_malloc_socket_stats st;
	unsigned long size = 0, res = 0;
	FILE *f;

	memset(&st, 0, sizeof(st));
	rte_malloc_get_socket_stats(0, &st);
	m->heap = st.heap_allocsz_bytes;
	f = fopen("/proc/self/statm", "r");
	if (f != NULL) {
		if (fscanf(f, "%lu %lu", &size, &res) != 2)
			res = 0;
		fclose(f);
	}
	m->rss = (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

static unsigned long
env_ul(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v != NULL && v[0] != '\0' ? strtoul(v, NULL, 0) : def;
}

static int
probe(const char *base, const char *faults)
{
	char args[512];

	if (faults != NULL && faults[0] != '\0' && strncmp(base, "roce:", 5) == 0)
		snprintf(args, sizeof(args), "%s,%s", base, faults);
	else
		snprintf(args, sizeof(args), "%s", base);
	return prdma_dev_probe(args);
}

static void
side_open(struct side *s, const char *args, const char *faults)
{
	struct prdma_cq_init_attr ca;

	s->id = probe(args, faults);
	if (s->id < 0 && faults != NULL) {
		printf("note: \"%s\" refuses the fault devargs (%s): soaking without "
		       "fault injection\n", args, faults);
		s->id = probe(args, NULL);
		faults_on = 0;
	}
	if (s->id < 0)
		fail_msg("probe %s: %d", args, s->id);
	s->dev = prdma_dev_open((uint16_t)s->id);
	assert_non_null(s->dev);
	s->pd = prdma_pd_alloc(s->dev);
	assert_non_null(s->pd);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 4096;
	s->cq = prdma_cq_create(s->dev, &ca);
	assert_non_null(s->cq);
	s->buf = rte_zmalloc(NULL, BUF_LEN, 4096);
	assert_non_null(s->buf);
	s->mr = prdma_mr_reg(s->pd, s->buf, BUF_LEN, PRDMA_ACCESS_ALL);
	assert_non_null(s->mr);
	assert_int_equal(prdma_gid_query(s->dev, 1, 0, &s->gid), 0);
}

static void
side_close(struct side *s)
{
	if (s->ah != NULL)
		assert_int_equal(prdma_ah_destroy(s->ah), 0);
	assert_int_equal(prdma_mr_dereg(s->mr), 0);
	rte_free(s->buf);
	assert_int_equal(prdma_cq_destroy(s->cq), 0);
	assert_int_equal(prdma_pd_free(s->pd), 0);
	assert_int_equal(prdma_dev_close(s->dev), 0);
	assert_int_equal(prdma_dev_remove((uint16_t)s->id), 0);
}

static int
setup(void **state)
{
	char a[256], b[256];
	const char *faults;

	(void)state;
	if (t_eal_init() < 0)
		return -1;
	hz = rte_get_tsc_hz();
	snprintf(a, sizeof(a), "%s", getenv("PRDMA_SOAK_DEVARGS_A") != NULL ?
		 getenv("PRDMA_SOAK_DEVARGS_A") : "roce:ring=soak,side=0");
	snprintf(b, sizeof(b), "%s", getenv("PRDMA_SOAK_DEVARGS_B") != NULL ?
		 getenv("PRDMA_SOAK_DEVARGS_B") : "roce:ring=soak,side=1");
	faults = getenv("PRDMA_SOAK_FAULTS") != NULL ? getenv("PRDMA_SOAK_FAULTS") :
		 DEF_FAULTS;
	faults_on = faults[0] != '\0' && strncmp(a, "roce:", 5) == 0;
	if (!faults_on)
		printf("note: no fault injection for \"%s\"\n", a);
	side_open(&sa, a, faults_on ? faults : NULL);
	side_open(&sb, b, faults_on ? faults : NULL);
	printf("soak on %s / %s, faults: %s\n", a, b, faults_on ? faults : "none");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	side_close(&sa);
	side_close(&sb);
	return 0;
}

static void
progress(void)
{
	prdma_dev_progress(sa.dev);
	prdma_dev_progress(sb.dev);
}

static struct prdma_qp *
qp_new(struct side *s, enum prdma_qp_type type)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = type;
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = prdma_qp_create(s->pd, &ia);
	if (qp == NULL)
		fail_msg("qp_create: %s", rte_strerror(rte_errno));
	return qp;
}

static void
qp_up(struct prdma_qp *qp, const struct side *peer, uint32_t dqpn)
{
	struct prdma_qp_attr qa;
	int ud = qp->qp_type == PRDMA_QPT_UD;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_INIT;
	qa.port_num = 1;
	qa.qkey = 0x11111111;
	qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ |
			     PRDMA_ACCESS_REMOTE_ATOMIC;
	assert_int_equal(prdma_qp_modify(qp, &qa, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | (ud ? PRDMA_QP_QKEY :
							  PRDMA_QP_ACCESS_FLAGS)), 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTR;
	qa.path_mtu = PRDMA_MTU_1024;
	qa.dest_qp_num = dqpn;
	qa.max_dest_rd_atomic = 8;
	qa.min_rnr_timer = 1;
	qa.ah_attr.dgid = peer->gid;
	qa.ah_attr.port_num = 1;
	assert_int_equal(prdma_qp_modify(qp, &qa, ud ? PRDMA_QP_STATE :
					 PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU |
					 PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
					 PRDMA_QP_MAX_DEST_RD_ATOMIC |
					 PRDMA_QP_MIN_RNR_TIMER), 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTS;
	qa.timeout = 8;           /* about 1 ms: losses recover quickly */
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 8;
	assert_int_equal(prdma_qp_modify(qp, &qa, ud ? PRDMA_QP_STATE | PRDMA_QP_SQ_PSN :
					 PRDMA_QP_STATE | PRDMA_QP_SQ_PSN | PRDMA_QP_TIMEOUT |
					 PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
					 PRDMA_QP_MAX_QP_RD_ATOMIC), 0);
}

static void
post_recv(struct side *s, struct prdma_qp *qp, uint32_t off, uint32_t len, uint64_t id)
{
	const struct prdma_recv_wr *bad;
	struct prdma_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct prdma_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	assert_int_equal(prdma_post_recv(qp, &wr, &bad), 0);
}

static int
post_send(struct prdma_qp *qp, struct prdma_send_wr *wr, uint32_t off, uint32_t len)
{
	const struct prdma_send_wr *bad;
	struct prdma_sge sge = { (uintptr_t)sa.buf + off, len, sa.mr->lkey };

	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->send_flags |= PRDMA_SEND_SIGNALED;
	return prdma_post_send(qp, wr, &bad);
}

static int
poll_one(struct prdma_cq *cq, struct prdma_wc *wc, unsigned int ms)
{
	uint64_t end = rte_get_tsc_cycles() + hz / 1000 * ms;

	do {
		if (prdma_cq_poll(cq, 1, wc) == 1)
			return 1;
		progress();
	} while (rte_get_tsc_cycles() < end);
	return 0;
}

static void
drain(struct prdma_cq *cq)
{
	struct prdma_wc wc[32];

	while (prdma_cq_poll(cq, RTE_DIM(wc), wc) > 0)
		;
}

static void
mem_check(const char *what, const struct mem_sample *warm, const struct mem_sample *now)
{
	printf("%s: DPDK heap in use %" PRIu64 " -> %" PRIu64 " bytes, RSS %" PRIu64
	       " -> %" PRIu64 " KiB\n", what, warm->heap, now->heap, warm->rss >> 10,
	       now->rss >> 10);
	assert_true(now->heap <= warm->heap + 64 * 1024);
	assert_true(now->rss <= warm->rss + 16 * 1024 * 1024);
}

static void
test_qp_churn(void **state)
{
	unsigned long cycles = env_ul("PRDMA_SOAK_CYCLES", 10000), i;
	struct mem_sample warm, now;
	struct prdma_send_wr wr;
	struct prdma_wc wc;
	uint64_t t0 = rte_get_tsc_cycles();

	(void)state;
	memset(&warm, 0, sizeof(warm));
	for (i = 0; i < cycles; i++) {
		sa.rc = qp_new(&sa, PRDMA_QPT_RC);
		sb.rc = qp_new(&sb, PRDMA_QPT_RC);
		qp_up(sa.rc, &sb, sb.rc->qp_num);
		qp_up(sb.rc, &sa, sa.rc->qp_num);
		post_recv(&sb, sb.rc, OFF_SEND, SLOT, i);
		t_pattern_fill(sa.buf + OFF_SEND, 200, (uint32_t)i);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.opcode = PRDMA_WR_SEND;
		assert_int_equal(post_send(sa.rc, &wr, OFF_SEND, 200), 0);
		assert_int_equal(poll_one(sa.cq, &wc, 5000), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_int_equal(poll_one(sb.cq, &wc, 5000), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_int_equal(wc.wr_id, i);
		assert_int_equal(wc.byte_len, 200);
		assert_int_equal(t_pattern_check(sb.buf + OFF_SEND, 200, (uint32_t)i), -1);
		assert_int_equal(prdma_qp_destroy(sa.rc), 0);
		assert_int_equal(prdma_qp_destroy(sb.rc), 0);
		drain(sa.cq);
		drain(sb.cq);
		if (i == RTE_MIN(cycles - 1, 200ul))
			mem_sample(&warm);
	}
	sa.rc = NULL;
	sb.rc = NULL;
	mem_sample(&now);
	printf("%lu connect/disconnect cycles in %.1f s\n", cycles,
	       (double)(rte_get_tsc_cycles() - t0) / (double)hz);
	mem_check("churn", &warm, &now);
}

/* The traffic phase's books. */
struct books {
	uint64_t posted, completed, rc_err;
	uint64_t writes, reads, atomics, sends, ud_sent, ud_done, ud_recv, ud_gone, recvs;
	uint64_t bytes_checked;
	uint64_t fadd_expect;     /* counter value the next FADD must return */
	uint64_t slot_seed[NB_SLOT];
	uint8_t slot_op[NB_SLOT];
};

enum { OP_WRITE, OP_READ, OP_FADD, OP_SEND, OP_UD, OP_NB };

/* UD sends count on their own: RC slots must not be reused by them. */
#define UD_ID RTE_BIT64(40)

static void
on_send_done(struct books *bk, const struct prdma_wc *wc)
{
	uint32_t slot = (uint32_t)(wc->wr_id % NB_SLOT);
	uint64_t seed = bk->slot_seed[slot], orig;

	bk->completed++;
	if (wc->wr_id & UD_ID) {
		assert_int_equal(wc->status, PRDMA_WC_SUCCESS);
		bk->ud_done++;
		return;
	}
	if (wc->status != PRDMA_WC_SUCCESS) {
		bk->rc_err++;
		fail_msg("RC request %" PRIu64 " (op %u): %s", wc->wr_id, bk->slot_op[slot],
			 prdma_wc_status_str(wc->status));
	}
	switch (bk->slot_op[slot]) {
	case OP_WRITE:
		/* an RC completion means the data is placed at the target */
		assert_int_equal(t_pattern_check(sb.buf + OFF_WRITE + slot * SLOT, SLOT,
						 (uint32_t)seed), -1);
		bk->bytes_checked += SLOT;
		break;
	case OP_READ:
		assert_int_equal(t_pattern_check(sa.buf + OFF_READ + slot * SLOT, SLOT,
						 (uint32_t)(slot + 1000)), -1);
		bk->bytes_checked += SLOT;
		break;
	case OP_FADD:
		memcpy(&orig, sa.buf + OFF_ATOM + slot * 8, 8);
		assert_true(orig == bk->fadd_expect);
		bk->fadd_expect += seed;
		bk->bytes_checked += 8;
		break;
	default:
		break;
	}
}

static void
on_recv(struct books *bk, const struct prdma_wc *wc)
{
	uint32_t idx = (uint32_t)(wc->wr_id & 0xffff);

	assert_int_equal(wc->status, PRDMA_WC_SUCCESS);
	if (wc->wr_id & RTE_BIT64(32)) {
		/* UD: GRH then 256 bytes whose pattern seed is in imm-less data */
		uint32_t seed;

		assert_int_equal(wc->byte_len, 40 + 256);
		memcpy(&seed, sb.buf + OFF_UD + idx * UD_SLOT + 40, 4);
		assert_int_equal(t_pattern_check(sb.buf + OFF_UD + idx * UD_SLOT + 44, 252,
						 seed), -1);
		bk->ud_recv++;
		bk->bytes_checked += 256;
		post_recv(&sb, sb.ud, OFF_UD + idx * UD_SLOT, UD_SLOT, wc->wr_id);
		return;
	}
	assert_int_equal(wc->opcode, PRDMA_WC_RECV);
	assert_true(wc->wc_flags & PRDMA_WC_WITH_IMM);
	assert_int_equal(wc->byte_len, 300);
	assert_int_equal(t_pattern_check(sb.buf + OFF_SEND + idx * SLOT, 300, wc->imm_data),
			 -1);
	bk->recvs++;
	bk->bytes_checked += 300;
	post_recv(&sb, sb.rc, OFF_SEND + idx * SLOT, SLOT, wc->wr_id);
}

static int
post_op(struct books *bk, unsigned int op, uint64_t n)
{
	uint32_t slot = (uint32_t)(n % NB_SLOT);
	struct prdma_send_wr wr;
	uint32_t seed = (uint32_t)(n * 2654435761u);
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = n;
	if (op != OP_UD) {
		bk->slot_seed[slot] = seed;
		bk->slot_op[slot] = (uint8_t)op;
	}
	switch (op) {
	case OP_WRITE:
		t_pattern_fill(sa.buf + OFF_WRITE + slot * SLOT, SLOT, seed);
		wr.opcode = PRDMA_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = (uintptr_t)sb.buf + OFF_WRITE + slot * SLOT;
		wr.wr.rdma.rkey = sb.mr->rkey;
		ret = post_send(sa.rc, &wr, OFF_WRITE + slot * SLOT, SLOT);
		bk->writes += ret == 0;
		return ret;
	case OP_READ:
		memset(sa.buf + OFF_READ + slot * SLOT, 0, SLOT);
		wr.opcode = PRDMA_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = (uintptr_t)sb.buf + OFF_READ + slot * SLOT;
		wr.wr.rdma.rkey = sb.mr->rkey;
		ret = post_send(sa.rc, &wr, OFF_READ + slot * SLOT, SLOT);
		bk->reads += ret == 0;
		return ret;
	case OP_FADD:
		bk->slot_seed[slot] = (seed & 0xffff) + 1;
		wr.opcode = PRDMA_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = (uintptr_t)sb.buf + OFF_ATOM;
		wr.wr.atomic.rkey = sb.mr->rkey;
		wr.wr.atomic.compare_add = bk->slot_seed[slot];
		ret = post_send(sa.rc, &wr, OFF_ATOM + slot * 8, 8);
		bk->atomics += ret == 0;
		return ret;
	case OP_SEND:
		t_pattern_fill(sa.buf + OFF_SEND + slot * SLOT, 300, seed);
		wr.opcode = PRDMA_WR_SEND_WITH_IMM;
		wr.imm_data = seed;
		ret = post_send(sa.rc, &wr, OFF_SEND + slot * SLOT, 300);
		bk->sends += ret == 0;
		return ret;
	default:
		wr.wr_id = UD_ID | n;
		memcpy(sa.buf + OFF_UD + slot * UD_SLOT, &seed, 4);
		t_pattern_fill(sa.buf + OFF_UD + slot * UD_SLOT + 4, 252, seed);
		wr.opcode = PRDMA_WR_SEND;
		wr.wr.ud.ah = sa.ah;
		wr.wr.ud.remote_qpn = sb.ud->qp_num;
		wr.wr.ud.remote_qkey = 0x11111111;
		ret = post_send(sa.ud, &wr, OFF_UD + slot * UD_SLOT, 256);
		bk->ud_sent += ret == 0;
		return ret;
	}
}

static void
test_mixed_traffic(void **state)
{
	unsigned long secs = env_ul("PRDMA_SOAK_SECONDS", 30);
	/* PRDMA_SOAK_OPS: bit mask of write, read, fadd, send, ud (0x1f) */
	uint32_t ops_mask = (uint32_t)env_ul("PRDMA_SOAK_OPS", 0x1f);
	uint64_t start, end, next_sample, n = 0, n_ud = 0, inflight_rc = 0, ud_seen;
	struct mem_sample warm, now;
	struct prdma_ah_attr aa;
	struct prdma_wc wc[32];
	struct books bk;
	uint32_t i;
	int k, got, warm_done = 0;

	(void)state;
	memset(&bk, 0, sizeof(bk));
	sa.rc = qp_new(&sa, PRDMA_QPT_RC);
	sb.rc = qp_new(&sb, PRDMA_QPT_RC);
	sa.ud = qp_new(&sa, PRDMA_QPT_UD);
	sb.ud = qp_new(&sb, PRDMA_QPT_UD);
	qp_up(sa.rc, &sb, sb.rc->qp_num);
	qp_up(sb.rc, &sa, sa.rc->qp_num);
	qp_up(sa.ud, &sb, 0);
	qp_up(sb.ud, &sa, 0);
	memset(&aa, 0, sizeof(aa));
	aa.dgid = sb.gid;
	aa.port_num = 1;
	sa.ah = prdma_ah_create(sa.pd, &aa);
	assert_non_null(sa.ah);
	for (i = 0; i < NB_SLOT; i++)
		t_pattern_fill(sb.buf + OFF_READ + i * SLOT, SLOT, i + 1000);
	memset(sb.buf + OFF_ATOM, 0, 8);
	for (i = 0; i < NB_RECV; i++) {
		post_recv(&sb, sb.rc, OFF_SEND + i * SLOT, SLOT, i);
		post_recv(&sb, sb.ud, OFF_UD + i * UD_SLOT, UD_SLOT, RTE_BIT64(32) | i);
	}
	start = rte_get_tsc_cycles();
	ud_seen = start;
	end = start + secs * hz;
	next_sample = start + RTE_MIN(secs, 5ul) * hz / 5;
	memset(&warm, 0, sizeof(warm));
	while (rte_get_tsc_cycles() < end || bk.completed < bk.posted) {
		/* RC: up to DEPTH outstanding; UD: one per round, paced by the
		 * receiver's posted buffers so only faults can lose one. */
		while (rte_get_tsc_cycles() < end && inflight_rc < DEPTH) {
			unsigned int op = (unsigned int)(n % 4);

			if (!(ops_mask & RTE_BIT32(op)))
				op = (unsigned int)rte_bsf32(ops_mask & 0xf);

			if (post_op(&bk, op, n) != 0)
				break;
			bk.posted++;
			inflight_rc++;
			n++;
		}
		if ((ops_mask & RTE_BIT32(OP_UD)) && rte_get_tsc_cycles() < end &&
		    (int64_t)(bk.ud_sent - bk.ud_recv - bk.ud_gone) < (int64_t)NB_RECV / 2 &&
		    bk.ud_sent - bk.ud_done < NB_SLOT / 2 && post_op(&bk, OP_UD, n_ud) == 0) {
			bk.posted++;
			n_ud++;
		}
		progress();
		got = prdma_cq_poll(sa.cq, RTE_DIM(wc), wc);
		for (k = 0; k < got; k++) {
			if (!(wc[k].wr_id & UD_ID))
				inflight_rc--;
			on_send_done(&bk, &wc[k]);
		}
		got = prdma_cq_poll(sb.cq, RTE_DIM(wc), wc);
		for (k = 0; k < got; k++)
			on_recv(&bk, &wc[k]);
		if (got > 0)
			ud_seen = rte_get_tsc_cycles();
		/* UD datagrams lost to a fault never arrive: when nothing came
		 * for 20 ms, what is still out is written off as lost. */
		if (faults_on && rte_get_tsc_cycles() - ud_seen > hz / 50) {
			bk.ud_gone = bk.ud_sent > bk.ud_recv ? bk.ud_sent - bk.ud_recv : 0;
			ud_seen = rte_get_tsc_cycles();
		}
		if (rte_get_tsc_cycles() >= next_sample) {
			if (!warm_done) {
				mem_sample(&warm);
				warm_done = 1;
			} else {
				mem_sample(&now);
				assert_true(now.heap <= warm.heap + 64 * 1024);
				assert_true(now.rss <= warm.rss + 16 * 1024 * 1024);
			}
			next_sample += 5 * hz;
		}
		if (rte_get_tsc_cycles() > end + 30 * hz)
			fail_msg("stalled: %" PRIu64 " posted, %" PRIu64 " completed",
				 bk.posted, bk.completed);
	}
	/* Late UD datagrams. */
	{
		uint64_t t = rte_get_tsc_cycles() + hz / 10;

		while (rte_get_tsc_cycles() < t) {
			progress();
			got = prdma_cq_poll(sb.cq, RTE_DIM(wc), wc);
			for (k = 0; k < got; k++)
				on_recv(&bk, &wc[k]);
		}
	}
	mem_sample(&now);
	printf("%lu s: posted %" PRIu64 ", completed %" PRIu64 " (writes %" PRIu64
	       ", reads %" PRIu64 ", atomics %" PRIu64 ", sends %" PRIu64 " received %"
	       PRIu64 ", UD %" PRIu64 " sent %" PRIu64 " received), %" PRIu64 " bytes checked\n",
	       secs, bk.posted, bk.completed, bk.writes, bk.reads, bk.atomics, bk.sends,
	       bk.recvs, bk.ud_sent, bk.ud_recv, bk.bytes_checked);
	assert_true(bk.posted == bk.completed);
	assert_int_equal(bk.rc_err, 0);
	assert_true(bk.recvs == bk.sends);
	{
		uint64_t cnt;

		memcpy(&cnt, sb.buf + OFF_ATOM, 8);
		if (cnt != bk.fadd_expect)
			fail_msg("the target's counter is %" PRIu64 ", the adds sum to %" PRIu64
				 " (%" PRIu64 " atomics)", cnt, bk.fadd_expect, bk.atomics);
	}
	if (!faults_on)
		assert_true(bk.ud_recv == bk.ud_sent);
	assert_true(bk.writes + bk.reads + bk.atomics + bk.sends > 0);
	if (warm_done)
		mem_check("traffic", &warm, &now);
	assert_int_equal(prdma_qp_destroy(sa.rc), 0);
	assert_int_equal(prdma_qp_destroy(sb.rc), 0);
	assert_int_equal(prdma_qp_destroy(sa.ud), 0);
	assert_int_equal(prdma_qp_destroy(sb.ud), 0);
	drain(sa.cq);
	drain(sb.cq);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qp_churn),
		cmocka_unit_test(test_mixed_traffic),
	};

	return cmocka_run_group_tests_name("soak", tests, setup, teardown);
}
