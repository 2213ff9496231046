/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The lossy soak: a million mixed RC operations (SEND, WRITE, READ,
 * fetch-and-add, compare-and-swap; most small, a bounded share of 1 MiB
 * transfers) between the two sides of a ring link whose transmit paths
 * drop 1 %, reorder 1 %, duplicate 0.1 % and corrupt 0.1 % of the frames.
 * Every byte is checked against the pattern of the operation that carried
 * it, every send completion must come in posting order, every SEND must
 * arrive exactly once in order, and the atomics' returned values prove
 * each one ran exactly once.
 *
 * Environment: PRDMA_SOAK_OPS (default 1000000), PRDMA_SOAK_LONG=1 (ten
 * million with ten times the large share), PRDMA_SOAK_PCAP=<file> (capture
 * side 0's frames), PRDMA_SOAK_SEED, PRDMA_SOAK_CLEAN=1 (no faults),
 * PRDMA_SOAK_EXTRA=<devargs> (added on both sides, e.g. roce_version=1).
 */

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include <prdma.h>
#include <prdma_fp.h>
#include <prdma_roce.h>

#include "t_eal.h"

#define DEPTH        64              /* operations in flight */
#define SLOT         4096            /* bytes per small slot */
#define LARGE        (1u << 20)
#define RECV_NB      64
#define RECV_LEN     (64u * 1024)    /* SENDs go up to 64 KiB */
#define READ_AREA    (LARGE + SLOT)

enum op { OP_WRITE, OP_SEND, OP_READ, OP_FADD, OP_CAS };

struct rec {
	uint8_t op;
	uint8_t large;
	uint32_t len;
	uint32_t roff;     /* READ: offset in B's read area */
	uint64_t seq;
	uint64_t expect;   /* atomics: the value that must come back */
};

struct side {
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *scq;
	struct prdma_cq *rcq;
	struct prdma_qp *qp;
	uint8_t *mem;
	size_t mem_len;
	struct prdma_mr *mr;
	union prdma_gid gid;
	int id;
};

/* Memory map of each side (offsets into mem). */
#define A_SLOTS      0
#define A_LARGE      (A_SLOTS + DEPTH * SLOT)
#define A_ATOM       (A_LARGE + LARGE)
#define A_LEN        (A_ATOM + DEPTH * 8)
#define B_SLOTS      0
#define B_LARGE      (B_SLOTS + DEPTH * SLOT)
#define B_READ       (B_LARGE + LARGE)
#define B_RECV       (B_READ + READ_AREA)
#define B_ATOM       (B_RECV + RECV_NB * RECV_LEN)
#define B_LEN        (B_ATOM + 64)

static uint64_t rng_state;

static uint64_t
rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t
env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v != NULL && v[0] != '\0' ? strtoull(v, NULL, 0) : def;
}

static void
side_open(struct side *s, const char *args, size_t len)
{
	struct prdma_cq_init_attr ca;

	s->id = prdma_dev_probe(args);
	if (s->id < 0)
		fail_msg("probe %s: %d", args, s->id);
	s->dev = prdma_dev_open((uint16_t)s->id);
	assert_non_null(s->dev);
	s->pd = prdma_pd_alloc(s->dev);
	assert_non_null(s->pd);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 1024;
	s->scq = prdma_cq_create(s->dev, &ca);
	s->rcq = prdma_cq_create(s->dev, &ca);
	assert_non_null(s->scq);
	assert_non_null(s->rcq);
	s->mem_len = len;
	s->mem = rte_zmalloc(NULL, len, 64);
	assert_non_null(s->mem);
	s->mr = prdma_mr_reg(s->pd, s->mem, len, PRDMA_ACCESS_ALL);
	assert_non_null(s->mr);
	assert_int_equal(prdma_gid_query(s->dev, 1, 0, &s->gid), 0);
}

static void
side_close(struct side *s)
{
	assert_int_equal(prdma_qp_destroy(s->qp), 0);
	assert_int_equal(prdma_mr_dereg(s->mr), 0);
	rte_free(s->mem);
	assert_int_equal(prdma_cq_destroy(s->scq), 0);
	assert_int_equal(prdma_cq_destroy(s->rcq), 0);
	assert_int_equal(prdma_pd_free(s->pd), 0);
	assert_int_equal(prdma_dev_close(s->dev), 0);
	assert_int_equal(prdma_dev_remove((uint16_t)s->id), 0);
}

static void
connect_rc(struct side s[2])
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp_attr qa;
	int i;

	for (i = 0; i < 2; i++) {
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = PRDMA_QPT_RC;
		ia.send_cq = s[i].scq;
		ia.recv_cq = s[i].rcq;
		ia.cap.max_send_wr = DEPTH;
		ia.cap.max_recv_wr = RECV_NB;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		s[i].qp = prdma_qp_create(s[i].pd, &ia);
		assert_non_null(s[i].qp);
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_INIT;
		qa.port_num = 1;
		qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ |
			PRDMA_ACCESS_REMOTE_ATOMIC;
		assert_int_equal(prdma_qp_modify(s[i].qp, &qa, PRDMA_QP_STATE |
			PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS), 0);
	}
	for (i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RTR;
		qa.path_mtu = PRDMA_MTU_4096;
		qa.dest_qp_num = s[1 - i].qp->qp_num;
		qa.rq_psn = 0xffff00u;  /* the 24-bit PSN wraps early in the run */
		qa.max_dest_rd_atomic = 16;
		qa.min_rnr_timer = 1;
		qa.ah_attr.dgid = s[1 - i].gid;
		qa.ah_attr.port_num = 1;
		assert_int_equal(prdma_qp_modify(s[i].qp, &qa, PRDMA_QP_STATE |
			PRDMA_QP_AV | PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
			PRDMA_QP_RQ_PSN | PRDMA_QP_MAX_DEST_RD_ATOMIC |
			PRDMA_QP_MIN_RNR_TIMER), 0);
	}
	for (i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RTS;
		qa.sq_psn = 0xffff00u;
		/*
		 * 262 us by default keeps 10^6 lossy operations quick; a run
		 * that also writes a capture is slower per frame and takes a
		 * longer ACK timeout (PRDMA_SOAK_TIMEOUT) so that a preempted
		 * lcore does not look like a dead peer.
		 */
		qa.timeout = (uint8_t)env_u64("PRDMA_SOAK_TIMEOUT", 6);
		qa.retry_cnt = 7;
		qa.rnr_retry = 7;
		qa.max_rd_atomic = 16;
		assert_int_equal(prdma_qp_modify(s[i].qp, &qa, PRDMA_QP_STATE |
			PRDMA_QP_SQ_PSN | PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT |
			PRDMA_QP_RNR_RETRY | PRDMA_QP_MAX_QP_RD_ATOMIC), 0);
	}
}

static inline uint8_t
pat(uint64_t seq, uint32_t i)
{
	return (uint8_t)((seq * 131u) ^ (i * 7u) ^ (i >> 8) ^ (seq >> 8));
}

static void
pat_fill(uint8_t *p, uint32_t len, uint64_t seq)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(seq, i);
}

static long
pat_check(const uint8_t *p, uint32_t len, uint64_t seq)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pat(seq, i))
			return (long)i;
	return -1;
}

/* B's read area holds pattern 0xABCDEF at every offset. */
#define READ_SEQ 0xabcdefull

struct soak {
	struct side s[2];
	struct rec rec[DEPTH];
	uint64_t posted, done;
	/* SENDs in flight to B, in order */
	struct { uint64_t seq; uint32_t len; } sends[DEPTH];
	uint64_t send_posted, send_recv;
	uint64_t fadds, cas;         /* atomics posted */
	int large_out;
	uint64_t nops, large_every;
	uint64_t bytes;
};

static void
post_recv(struct soak *k, uint32_t idx)
{
	struct side *b = &k->s[1];
	struct prdma_sge sge = {
		.addr = (uintptr_t)(b->mem + B_RECV + (size_t)idx * RECV_LEN),
		.length = RECV_LEN, .lkey = b->mr->lkey,
	};
	struct prdma_recv_wr wr = { .wr_id = idx, .sg_list = &sge, .num_sge = 1 };
	const struct prdma_recv_wr *bad;

	assert_int_equal(prdma_post_recv(b->qp, &wr, &bad), 0);
}

static uint32_t
small_len(void)
{
	uint64_t r = rnd();

	if (r % 100 < 80)
		return 1 + (uint32_t)((r >> 8) % 256);
	return 1 + (uint32_t)((r >> 8) % SLOT);
}

/* Post the next operation; 0 when it must wait (a large one in flight). */
static int
post_next(struct soak *k)
{
	struct side *a = &k->s[0], *b = &k->s[1];
	uint64_t seq = k->posted, r = rnd();
	struct rec *rc = &k->rec[seq % DEPTH];
	uint32_t slot = (uint32_t)(seq % DEPTH);
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	struct prdma_sge sge;
	int large = k->large_every != 0 && seq % k->large_every == k->large_every / 2;
	uint32_t pick = (uint32_t)(r % 100);

	if (large && k->large_out)
		return 0;
	memset(rc, 0, sizeof(*rc));
	memset(&wr, 0, sizeof(wr));
	rc->seq = seq;
	if (large)
		rc->op = pick < 50 ? OP_WRITE : OP_READ;
	else if (pick < 40)
		rc->op = OP_WRITE;
	else if (pick < 65)
		rc->op = OP_SEND;
	else if (pick < 85)
		rc->op = OP_READ;
	else if (pick < 95)
		rc->op = OP_FADD;
	else
		rc->op = OP_CAS;
	if (rc->op == OP_SEND && k->send_posted - k->send_recv >= DEPTH)
		rc->op = OP_WRITE;
	rc->large = (uint8_t)large;
	rc->len = large ? LARGE : small_len();
	if (rc->op == OP_SEND && (r >> 40) % 1000 == 0)
		rc->len = RECV_LEN - (uint32_t)((r >> 20) % 4096);  /* a big SEND */
	sge.lkey = a->mr->lkey;
	sge.length = rc->len;
	sge.addr = (uintptr_t)(a->mem + (large ? A_LARGE : A_SLOTS + (size_t)slot * SLOT));
	wr.wr_id = seq;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	switch (rc->op) {
	case OP_WRITE:
		wr.opcode = PRDMA_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = (uintptr_t)(b->mem +
			(large ? B_LARGE : B_SLOTS + (size_t)slot * SLOT));
		wr.wr.rdma.rkey = b->mr->rkey;
		pat_fill((uint8_t *)(uintptr_t)sge.addr, rc->len, seq);
		break;
	case OP_SEND:
		if (rc->len > SLOT) {
			/* the big SENDs come from the large area (free: checked above) */
			if (k->large_out)
				return 0;
			sge.addr = (uintptr_t)(a->mem + A_LARGE);
			rc->large = 1;
		}
		wr.opcode = PRDMA_WR_SEND;
		pat_fill((uint8_t *)(uintptr_t)sge.addr, rc->len, seq);
		k->sends[k->send_posted % DEPTH].seq = seq;
		k->sends[k->send_posted % DEPTH].len = rc->len;
		k->send_posted++;
		break;
	case OP_READ:
		wr.opcode = PRDMA_WR_RDMA_READ;
		rc->roff = large ? 0 : (uint32_t)((r >> 16) % (READ_AREA - rc->len));
		wr.wr.rdma.remote_addr = (uintptr_t)(b->mem + B_READ + rc->roff);
		wr.wr.rdma.rkey = b->mr->rkey;
		memset((void *)(uintptr_t)sge.addr, 0xee, rc->len);
		break;
	default:
		sge.addr = (uintptr_t)(a->mem + A_ATOM + (size_t)slot * 8);
		sge.length = 8;
		rc->len = 8;
		wr.wr.atomic.rkey = b->mr->rkey;
		if (rc->op == OP_FADD) {
			wr.opcode = PRDMA_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.remote_addr = (uintptr_t)(b->mem + B_ATOM);
			wr.wr.atomic.compare_add = 1;
			rc->expect = k->fadds++;
		} else {
			wr.opcode = PRDMA_WR_ATOMIC_CMP_AND_SWP;
			wr.wr.atomic.remote_addr = (uintptr_t)(b->mem + B_ATOM + 8);
			wr.wr.atomic.compare_add = k->cas;
			wr.wr.atomic.swap = k->cas + 1;
			rc->expect = k->cas++;
		}
		break;
	}
	if (rc->large)
		k->large_out = 1;
	if (prdma_post_send(a->qp, &wr, &bad) != 0)
		fail_msg("post_send of op %" PRIu64 " failed", seq);
	k->posted++;
	k->bytes += rc->len;
	return 1;
}

/* On a failure: what each QP saw, to tell the transport's story. */
static void
dump(struct soak *k)
{
	struct prdma_qp_counters c;
	struct prdma_async_event ev;
	int i, j;

	for (i = 0; i < 4; i++) {
		const struct rec *r = &k->rec[(k->done + (uint64_t)i) % DEPTH];

		printf("op %" PRIu64 ": kind %u, %u bytes%s\n", r->seq, r->op, r->len,
		       r->large ? ", large" : "");
	}
	for (i = 0; i < 2; i++) {
		if (prdma_qp_counters_get(k->s[i].qp, &c) != 0)
			continue;
		printf("side %d QP state %s:", i, prdma_qp_state_str(k->s[i].qp->state));
		for (j = 0; j < PRDMA_QP_CNT_MAX; j++)
			if (c.value[j] != 0)
				printf(" %s=%" PRIu64, prdma_qp_counter_name(j), c.value[j]);
		printf("\n");
		for (j = 0; j < 16 && prdma_event_get(k->s[i].dev, &ev) > 0; j++)
			printf("side %d event %s\n", i, prdma_event_type_str(ev.type));
	}
}

static void
check_send_wc(struct soak *k, const struct prdma_wc *wc)
{
	struct side *a = &k->s[0], *b = &k->s[1];
	struct rec *rc = &k->rec[k->done % DEPTH];
	uint32_t slot = (uint32_t)(rc->seq % DEPTH);
	const uint8_t *p;
	uint64_t got;
	long bad;

	if (wc->status != PRDMA_WC_SUCCESS)
		dump(k);
	if (wc->status != PRDMA_WC_SUCCESS)
		fail_msg("op %" PRIu64 ": completion status %s", k->done,
			 prdma_wc_status_str(wc->status));
	if (wc->wr_id != k->done)
		fail_msg("completion out of order: got %" PRIu64 ", expected %" PRIu64,
			 wc->wr_id, k->done);
	switch (rc->op) {
	case OP_WRITE:
		p = b->mem + (rc->large ? B_LARGE : B_SLOTS + (size_t)slot * SLOT);
		bad = pat_check(p, rc->len, rc->seq);
		if (bad >= 0)
			fail_msg("WRITE %" PRIu64 " (%u B): byte %ld wrong at the target",
				 rc->seq, rc->len, bad);
		break;
	case OP_READ:
		p = a->mem + (rc->large ? A_LARGE : A_SLOTS + (size_t)slot * SLOT);
		bad = -1;
		{
			uint32_t i;

			for (i = 0; i < rc->len; i++)
				if (p[i] != pat(READ_SEQ, rc->roff + i)) {
					bad = (long)i;
					break;
				}
		}
		if (bad >= 0)
			fail_msg("READ %" PRIu64 " (%u B): byte %ld wrong", rc->seq, rc->len, bad);
		break;
	case OP_FADD:
	case OP_CAS:
		memcpy(&got, a->mem + A_ATOM + (size_t)slot * 8, 8);
		if (got != rc->expect)
			fail_msg("atomic %" PRIu64 ": returned %" PRIu64 ", expected %" PRIu64
				 " (executed twice or lost)", rc->seq, got, rc->expect);
		break;
	default:
		break;
	}
	if (rc->large)
		k->large_out = 0;
	k->done++;
}

static void
check_recv_wc(struct soak *k, const struct prdma_wc *wc)
{
	struct side *b = &k->s[1];
	uint64_t seq;
	uint32_t len;
	long bad;

	if (wc->status != PRDMA_WC_SUCCESS)
		dump(k);
	if (wc->status != PRDMA_WC_SUCCESS)
		fail_msg("receive: status %s", prdma_wc_status_str(wc->status));
	if (k->send_recv == k->send_posted)
		fail_msg("a SEND arrived that was never posted (duplicate)");
	seq = k->sends[k->send_recv % DEPTH].seq;
	len = k->sends[k->send_recv % DEPTH].len;
	if (wc->byte_len != len)
		fail_msg("SEND %" PRIu64 ": %u bytes received, %u sent", seq, wc->byte_len, len);
	bad = pat_check(b->mem + B_RECV + (size_t)wc->wr_id * RECV_LEN, len, seq);
	if (bad >= 0)
		fail_msg("SEND %" PRIu64 ": byte %ld wrong", seq, bad);
	k->send_recv++;
	post_recv(k, (uint32_t)wc->wr_id);
}

static void
soak_run(const char *args_a, const char *args_b, uint64_t nops, uint64_t large_every)
{
	struct soak *k = calloc(1, sizeof(*k));
	struct prdma_wc wc[32];
	struct prdma_dev_counters ca, cb;
	struct prdma_roce_stats xa, xb;
	uint64_t t0, t1, last = 0, last_tsc, fv;
	uint32_t i;
	int n, j;

	assert_non_null(k);
	assert_int_equal(t_eal_init(), 0);
	rng_state = env_u64("PRDMA_SOAK_SEED", 7);
	k->nops = nops;
	k->large_every = large_every;
	side_open(&k->s[0], args_a, A_LEN);
	side_open(&k->s[1], args_b, B_LEN);
	connect_rc(k->s);
	for (i = 0; i < READ_AREA; i++)
		k->s[1].mem[B_READ + i] = pat(READ_SEQ, i);
	for (i = 0; i < RECV_NB; i++)
		post_recv(k, i);
	t0 = rte_rdtsc();
	last_tsc = t0;
	while (k->done < nops) {
		while (k->posted < nops && k->posted - k->done < DEPTH)
			if (!post_next(k))
				break;
		n = prdma_cq_poll(k->s[0].scq, 32, wc);
		for (j = 0; j < n; j++)
			check_send_wc(k, &wc[j]);
		n = prdma_cq_poll(k->s[1].rcq, 32, wc);
		for (j = 0; j < n; j++)
			check_recv_wc(k, &wc[j]);
		prdma_dev_progress(k->s[1].dev);
		if (k->done != last) {
			last = k->done;
			last_tsc = rte_rdtsc();
		} else if (rte_rdtsc() - last_tsc > 10 * rte_get_tsc_hz()) {
			fail_msg("no progress for 10 s at op %" PRIu64, k->done);
		}
	}
	/* The SENDs all arrived, and nothing more. */
	t1 = rte_rdtsc();
	while (k->send_recv < k->send_posted && rte_rdtsc() - t1 < 5 * rte_get_tsc_hz()) {
		n = prdma_cq_poll(k->s[1].rcq, 32, wc);
		for (j = 0; j < n; j++)
			check_recv_wc(k, &wc[j]);
		prdma_dev_progress(k->s[0].dev);
	}
	assert_int_equal(k->send_recv, k->send_posted);
	t1 = rte_rdtsc();
	for (i = 0; i < 1000; i++) {
		prdma_dev_progress(k->s[0].dev);
		prdma_dev_progress(k->s[1].dev);
	}
	assert_int_equal(prdma_cq_poll(k->s[1].rcq, 32, wc), 0);
	memcpy(&fv, k->s[1].mem + B_ATOM, 8);
	assert_int_equal(fv, k->fadds);
	memcpy(&fv, k->s[1].mem + B_ATOM + 8, 8);
	assert_int_equal(fv, k->cas);
	assert_int_equal(prdma_dev_counters_get(k->s[0].dev, &ca), 0);
	assert_int_equal(prdma_dev_counters_get(k->s[1].dev, &cb), 0);
	assert_int_equal(prdma_roce_stats_get(k->s[0].dev, &xa), 0);
	assert_int_equal(prdma_roce_stats_get(k->s[1].dev, &xb), 0);
	printf("soak: %" PRIu64 " ops (%" PRIu64 " SENDs, %" PRIu64 " FADD, %" PRIu64
	       " CAS), %.1f MB in %.1f s\n", k->done, k->send_posted, k->fadds, k->cas,
	       (double)k->bytes / 1e6, (double)(t1 - t0) / (double)rte_get_tsc_hz());
	printf("soak: faults tx A drop %" PRIu64 " reorder %" PRIu64 " dup %" PRIu64
	       " corrupt %" PRIu64 "; B drop %" PRIu64 " reorder %" PRIu64 " dup %" PRIu64
	       " corrupt %" PRIu64 "\n",
	       xa.fault[0][PRDMA_ROCE_FAULT_DROP], xa.fault[0][PRDMA_ROCE_FAULT_REORDER],
	       xa.fault[0][PRDMA_ROCE_FAULT_DUP], xa.fault[0][PRDMA_ROCE_FAULT_CORRUPT],
	       xb.fault[0][PRDMA_ROCE_FAULT_DROP], xb.fault[0][PRDMA_ROCE_FAULT_REORDER],
	       xb.fault[0][PRDMA_ROCE_FAULT_DUP], xb.fault[0][PRDMA_ROCE_FAULT_CORRUPT]);
	printf("soak: retransmits %" PRIu64 "/%" PRIu64 ", duplicates seen %" PRIu64 "/%" PRIu64
	       ", ICRC drops %" PRIu64 "/%" PRIu64 ", NAKs sent %" PRIu64 "/%" PRIu64 "\n",
	       ca.value[PRDMA_DEV_CNT_RETRANSMITS], cb.value[PRDMA_DEV_CNT_RETRANSMITS],
	       ca.value[PRDMA_DEV_CNT_DUPLICATES], cb.value[PRDMA_DEV_CNT_DUPLICATES],
	       ca.value[PRDMA_DEV_CNT_ICRC_DROPS], cb.value[PRDMA_DEV_CNT_ICRC_DROPS],
	       ca.value[PRDMA_DEV_CNT_NAKS_SENT], cb.value[PRDMA_DEV_CNT_NAKS_SENT]);
	/* The faults really happened, and the receivers saw them. */
	if (nops >= 100000 && !env_u64("PRDMA_SOAK_CLEAN", 0)) {
		assert_true(xa.fault[0][PRDMA_ROCE_FAULT_DROP] > 0);
		assert_true(xb.fault[0][PRDMA_ROCE_FAULT_CORRUPT] > 0);
		assert_true(cb.value[PRDMA_DEV_CNT_DUPLICATES] > 0);
		assert_true(ca.value[PRDMA_DEV_CNT_ICRC_DROPS] + cb.value[PRDMA_DEV_CNT_ICRC_DROPS] > 0);
		assert_true(ca.value[PRDMA_DEV_CNT_RETRANSMITS] > 0);
	}
	side_close(&k->s[0]);
	side_close(&k->s[1]);
	free(k);
}

#define FAULTS "tx_drop=1%,tx_reorder=1%,tx_dup=0.1%,tx_corrupt=0.1%"

static void
test_soak_lossy(void **state)
{
	char a[512], b[512];
	const char *pcap = getenv("PRDMA_SOAK_PCAP");
	uint64_t nops = env_u64("PRDMA_SOAK_OPS", 1000000);
	uint64_t large_every = 20000;

	(void)state;
	if (env_u64("PRDMA_SOAK_LONG", 0) != 0) {
		nops = env_u64("PRDMA_SOAK_OPS", 10000000);
		large_every = 2000;
	}
	const char *extra = getenv("PRDMA_SOAK_EXTRA");  /* more devargs, both sides */
	const char *faults = env_u64("PRDMA_SOAK_CLEAN", 0) ? "" : "," FAULTS;

	if (extra == NULL)
		extra = "";
	snprintf(a, sizeof(a), "roce:ring=soak,side=0%s,fault_seed=%" PRIu64 "%s%s%s%s",
		 faults, env_u64("PRDMA_SOAK_SEED", 7), pcap != NULL ? ",pcap=" : "",
		 pcap != NULL ? pcap : "", extra[0] != '\0' ? "," : "", extra);
	snprintf(b, sizeof(b), "roce:ring=soak,side=1%s,fault_seed=%" PRIu64 "%s%s", faults,
		 env_u64("PRDMA_SOAK_SEED", 7) + 1, extra[0] != '\0' ? "," : "", extra);
	soak_run(a, b, nops, nops < large_every ? nops / 2 + 1 : large_every);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soak_lossy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
