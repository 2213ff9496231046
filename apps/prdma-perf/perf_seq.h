/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PERF_SEQ_H
#define PERF_SEQ_H

/*
 * perftest 4.5's out-of-band sequence for each test, as data: which
 * exchanges (and which local steps between them) one side performs, in
 * order. prdma-perf's remote mode executes this list, and the tests
 * compare it with the sequence read in perftest's source
 * (doc/perftest-sequences.md gives the source lines of every step).
 */

#include <stdint.h>

enum perf_seq_op {
	PERF_SEQ_CM_XCHG,    /* -R: the exchange QP's rdma_cm connection */
	PERF_SEQ_VERSIONS,   /* version, cycle buffer, cache line, MTU */
	PERF_SEQ_KEYS,       /* one handshake per QP, each with that QP's key */
	PERF_SEQ_SYNC,       /* one handshake with QP 0's key */
	PERF_SEQ_CM_DATA,    /* -R: the data QPs' rdma_cm connections (or SIDRs) */
	PERF_SEQ_CONNECT,    /* local: the data QPs to RTS (not with -R) */
	PERF_SEQ_POST_RECV,  /* local: the receive queues filled */
	PERF_SEQ_RUN,        /* local: the traffic of one size, or of all */
	PERF_SEQ_BW_REPORT,  /* five 8-byte values each way */
	PERF_SEQ_DONE,       /* "done\0" written, not read (TCP only) */
	PERF_SEQ_OP_NB
};

/* PERF_SEQ_RUN's size: every size in turn, with nothing in between. */
#define PERF_SEQ_ALL_SIZES UINT16_MAX

struct perf_seq_step {
	uint8_t op;          /* enum perf_seq_op */
	uint16_t size_idx;   /* RUN: the size's index, or PERF_SEQ_ALL_SIZES */
	uint16_t line;       /* where perftest does it (see perf_seq_file()) */
};

struct perf_seq_cfg {
	int test;            /* enum perf_test */
	int server;
	int use_cm;          /* -R */
	uint32_t nqp;
	uint32_t nb_sizes;   /* 1, or the number of sizes -a runs */
	int all_sizes;       /* -a (perftest's RUN_ALL) */
};

/* Enough for every test with -a (23 sizes, 5 steps each) and -R. */
#define PERF_SEQ_MAX_STEPS 160

/* The step's line in perf_seq_file(). */
static inline unsigned int
perf_seq_line(const struct perf_seq_step *st)
{
	return st->line & 0x7fffu;
}

/* Fill @p steps (room for @p max); returns the count or -ENOSPC/-EINVAL. */
int perf_seq_build(const struct perf_seq_cfg *c, struct perf_seq_step *steps,
		   unsigned int max);
const char *perf_seq_op_name(enum perf_seq_op op);
/* The perftest source file a step's line number refers to. */
const char *perf_seq_file(int test, const struct perf_seq_step *st);
/* Handshakes (each one message either way) the sequence holds in all. */
unsigned int perf_seq_messages(const struct perf_seq_step *steps, unsigned int n,
			       uint32_t nqp);

#endif /* PERF_SEQ_H */
