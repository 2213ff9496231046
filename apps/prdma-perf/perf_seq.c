/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * perftest 4.5-0.17's out-of-band sequences, test by test, read in its
 * source (src/<test>.c and src/perftest_communication.c at that tag).
 * The line of each step is kept with it, so a mismatch can be checked
 * against the source; doc/perftest-sequences.md tells the same in prose.
 * Only what prdma-perf supports is modelled: no -b (duplex), no
 * multicast, DC, XRC or credits.
 */

#include <errno.h>
#include <stddef.h>

#include "perf.h"
#include "perf_seq.h"

/* A line of perftest_communication.c (not of the test's own file). */
#define COMM_LINE 0x8000u
/* ctx_close_connection(): a handshake, then "done" over TCP only. */
#define CLOSE_SYNC_LINE (COMM_LINE | 1764)
#define CLOSE_DONE_LINE (COMM_LINE | 1770)
/* create_rdma_cm_connection(): a handshake, the data QPs, a handshake. */
#define CM_SYNC1_LINE (COMM_LINE | 2737)
#define CM_DATA_LINE (COMM_LINE | 2745)
#define CM_SYNC2_LINE (COMM_LINE | 2755)

/* The lines of one test's file: where each of its steps is. */
struct seq_lines {
	uint16_t xchg;       /* establish_connection() */
	uint16_t versions;   /* exchange_versions() */
	uint16_t cm;         /* create_rdma_cm_connection() (-R) */
	uint16_t sync0;      /* latency tests: a handshake before the keys */
	uint16_t keys1;      /* the per-QP handshakes */
	uint16_t connect;    /* ctx_connect() */
	uint16_t sync1;      /* send tests: the handshake after ctx_connect */
	uint16_t keys2;      /* the per-QP handshakes after printing ours */
	uint16_t sync2;      /* the handshake after RTR (not in send tests) */
	uint16_t run;        /* run_iter_*() */
	uint16_t post_recv;  /* send tests: ctx_set_recv_wqes() before the run */
	uint16_t sync_run;   /* send tests: the handshake just before the run */
	uint16_t sync_after; /* send_bw -a, and write/read_bw: after the run */
	uint16_t report;     /* write/read_bw: xchg_bw_reports() */
	uint16_t close;      /* ctx_close_connection() */
	uint16_t srv_close;  /* read/atomic_lat, write/read_bw: the server's */
	uint16_t srv_sync;   /* write/read_bw: the server's handshake */
	uint16_t srv_report; /* write/read_bw: the server's report */
};

static const struct seq_lines lines_of[] = {
	[PERF_WRITE_LAT] = { .xchg = 134, .versions = 140, .cm = 165, .sync0 = 194,
			     .keys1 = 202, .connect = 218, .keys2 = 241, .sync2 = 250,
			     .run = 277 },
	[PERF_READ_LAT] = { .xchg = 126, .versions = 132, .cm = 157, .sync0 = 186,
			    .keys1 = 194, .connect = 210, .keys2 = 232, .sync2 = 241,
			    .run = 300, .close = 308, .srv_close = 249 },
	[PERF_ATOMIC_LAT] = { .xchg = 126, .versions = 132, .cm = 157, .sync0 = 186,
			      .keys1 = 194, .connect = 209, .keys2 = 234, .sync2 = 243,
			      .run = 276, .close = 283, .srv_close = 250 },
	[PERF_SEND_LAT] = { .xchg = 246, .versions = 252, .cm = 277, .keys1 = 308,
			    .connect = 350, .sync1 = 357, .keys2 = 380, .run = 458,
			    .post_recv = 444, .sync_run = 453, .close = 470 },
	[PERF_SEND_BW] = { .xchg = 234, .versions = 240, .cm = 268, .keys1 = 303,
			   .connect = 347, .sync1 = 354, .keys2 = 376, .run = 503,
			   .post_recv = 484, .sync_run = 490, .sync_after = 467,
			   .close = 576 },
	[PERF_WRITE_BW] = { .xchg = 120, .versions = 126, .cm = 151, .keys1 = 181,
			    .connect = 196, .keys2 = 220, .sync2 = 229, .run = 349,
			    .sync_after = 396, .report = 401, .close = 405, .srv_sync = 250,
			    .srv_report = 255, .srv_close = 258 },
	[PERF_READ_BW] = { .xchg = 115, .versions = 121, .cm = 146, .keys1 = 176,
			   .connect = 192, .keys2 = 215, .sync2 = 225, .run = 345,
			   .sync_after = 392, .report = 397, .close = 400, .srv_sync = 245,
			   .srv_report = 250, .srv_close = 253 },
	/*
	 * atomic_bw.c is read_bw.c step for step: Debian's 4.5 binaries,
	 * traced, exchange the same messages in the same order. Its own
	 * line numbers are not known here, so its steps name read_bw.c's
	 * (perf_seq_file() says so).
	 */
	[PERF_ATOMIC_BW] = { .xchg = 115, .versions = 121, .cm = 146, .keys1 = 176,
			     .connect = 192, .keys2 = 215, .sync2 = 225, .run = 345,
			     .sync_after = 392, .report = 397, .close = 400, .srv_sync = 245,
			     .srv_report = 250, .srv_close = 253 },
};

/* The -a loop of the send tests has its own lines. */
#define SEND_LAT_ALL_POST_RECV 419
#define SEND_LAT_ALL_SYNC 428
#define SEND_LAT_ALL_RUN 433
#define SEND_BW_ALL_POST_RECV 423
#define SEND_BW_ALL_SYNC 429
#define SEND_BW_ALL_RUN 448
#define SEND_BW_ALL_SERVER_RUN 455
#define SEND_BW_SERVER_RUN 508
#define WRITE_BW_ALL_RUN 308        /* read_bw.c has it at the same line */

struct seq_out {
	struct perf_seq_step *steps;
	unsigned int n, max;
	int overflow;
};

static void
add(struct seq_out *out, enum perf_seq_op op, uint16_t size_idx, uint16_t line)
{
	if (out->n == out->max) {
		out->overflow = 1;
		return;
	}
	out->steps[out->n].op = (uint8_t)op;
	out->steps[out->n].size_idx = size_idx;
	out->steps[out->n].line = line;
	out->n++;
}

/* ctx_close_connection(). */
static void
add_close(struct seq_out *out, const struct perf_seq_cfg *c)
{
	add(out, PERF_SEQ_SYNC, 0, CLOSE_SYNC_LINE);
	if (!c->use_cm)
		add(out, PERF_SEQ_DONE, 0, CLOSE_DONE_LINE);
}

/* The send tests' traffic: per size with -a, each after its own handshake. */
static void
add_send_runs(struct seq_out *out, const struct perf_seq_cfg *c, const struct seq_lines *l)
{
	int bw = c->test == PERF_SEND_BW;
	uint32_t i;

	if (!c->all_sizes) {
		if (!bw || c->server)
			add(out, PERF_SEQ_POST_RECV, 0, l->post_recv);
		add(out, PERF_SEQ_SYNC, 0, l->sync_run);
		add(out, PERF_SEQ_RUN, 0, bw && c->server ? SEND_BW_SERVER_RUN : l->run);
		return;
	}
	for (i = 0; i < c->nb_sizes; i++) {
		if (!bw || c->server)
			add(out, PERF_SEQ_POST_RECV, (uint16_t)i,
			    bw ? SEND_BW_ALL_POST_RECV : SEND_LAT_ALL_POST_RECV);
		add(out, PERF_SEQ_SYNC, 0, bw ? SEND_BW_ALL_SYNC : SEND_LAT_ALL_SYNC);
		add(out, PERF_SEQ_RUN, (uint16_t)i,
		    !bw ? SEND_LAT_ALL_RUN : (c->server ? SEND_BW_ALL_SERVER_RUN :
					      SEND_BW_ALL_RUN));
		if (bw)
			add(out, PERF_SEQ_SYNC, 0, l->sync_after);
	}
}

int
perf_seq_build(const struct perf_seq_cfg *c, struct perf_seq_step *steps, unsigned int max)
{
	struct seq_out out = { .steps = steps, .max = max };
	const struct seq_lines *l;
	int t = c->test;
	int send = t == PERF_SEND_LAT || t == PERF_SEND_BW;
	int lat = t == PERF_WRITE_LAT || t == PERF_READ_LAT || t == PERF_ATOMIC_LAT;

	if (t < 0 || (size_t)t >= RTE_DIM(lines_of) || lines_of[t].versions == 0 ||
	    c->nqp == 0 || c->nb_sizes == 0 || c->nb_sizes >= PERF_SEQ_ALL_SIZES)
		return -EINVAL;
	l = &lines_of[t];
	if (c->use_cm)
		add(&out, PERF_SEQ_CM_XCHG, 0, l->xchg);
	add(&out, PERF_SEQ_VERSIONS, 0, l->versions);
	if (c->use_cm) {
		add(&out, PERF_SEQ_SYNC, 0, CM_SYNC1_LINE);
		add(&out, PERF_SEQ_CM_DATA, 0, CM_DATA_LINE);
		add(&out, PERF_SEQ_SYNC, 0, CM_SYNC2_LINE);
	}
	if (lat)
		add(&out, PERF_SEQ_SYNC, 0, l->sync0);
	add(&out, PERF_SEQ_KEYS, 0, l->keys1);
	if (!c->use_cm)
		add(&out, PERF_SEQ_CONNECT, 0, l->connect);
	if (send)
		add(&out, PERF_SEQ_SYNC, 0, l->sync1);
	add(&out, PERF_SEQ_KEYS, 0, l->keys2);
	if (!send)
		add(&out, PERF_SEQ_SYNC, 0, l->sync2);
	switch (t) {
	case PERF_WRITE_LAT:
		/* Both sides run; no handshake, no "done": the TCP FIN ends it. */
		add(&out, PERF_SEQ_RUN, PERF_SEQ_ALL_SIZES, l->run);
		break;
	case PERF_READ_LAT:
	case PERF_ATOMIC_LAT:
		/* Only the client posts; the server goes straight to its close. */
		if (!c->server)
			add(&out, PERF_SEQ_RUN, PERF_SEQ_ALL_SIZES, l->run);
		add_close(&out, c);
		break;
	case PERF_SEND_LAT:
	case PERF_SEND_BW:
		/* No BW report: xchg_bw_reports() runs only with -b (duplex). */
		add_send_runs(&out, c, l);
		add_close(&out, c);
		break;
	case PERF_WRITE_BW:
	case PERF_READ_BW:
	case PERF_ATOMIC_BW:
		/* The half-duplex server only waits for the client's handshake. */
		if (!c->server)
			add(&out, PERF_SEQ_RUN, PERF_SEQ_ALL_SIZES,
			    c->all_sizes ? WRITE_BW_ALL_RUN : l->run);
		add(&out, PERF_SEQ_SYNC, 0, c->server ? l->srv_sync : l->sync_after);
		add(&out, PERF_SEQ_BW_REPORT, 0, c->server ? l->srv_report : l->report);
		add_close(&out, c);
		break;
	default:
		return -EINVAL;
	}
	return out.overflow ? -ENOSPC : (int)out.n;
}

const char *
perf_seq_op_name(enum perf_seq_op op)
{
	static const char *const names[PERF_SEQ_OP_NB] = {
		[PERF_SEQ_CM_XCHG] = "cm_xchg", [PERF_SEQ_VERSIONS] = "versions",
		[PERF_SEQ_KEYS] = "keys", [PERF_SEQ_SYNC] = "sync",
		[PERF_SEQ_CM_DATA] = "cm_data", [PERF_SEQ_CONNECT] = "connect",
		[PERF_SEQ_POST_RECV] = "post_recv", [PERF_SEQ_RUN] = "run",
		[PERF_SEQ_BW_REPORT] = "bw_report", [PERF_SEQ_DONE] = "done",
	};

	return (unsigned int)op < PERF_SEQ_OP_NB ? names[op] : "?";
}

const char *
perf_seq_file(int test, const struct perf_seq_step *st)
{
	if (st->line & COMM_LINE)
		return "src/perftest_communication.c";
	switch (test) {
	case PERF_WRITE_LAT: return "src/write_lat.c";
	case PERF_READ_LAT: return "src/read_lat.c";
	case PERF_ATOMIC_LAT: return "src/atomic_lat.c";
	case PERF_SEND_LAT: return "src/send_lat.c";
	case PERF_SEND_BW: return "src/send_bw.c";
	case PERF_WRITE_BW: return "src/write_bw.c";
	case PERF_READ_BW: return "src/read_bw.c";
	case PERF_ATOMIC_BW: return "src/read_bw.c"; /* see lines_of[] */
	default: return "?";
	}
}

unsigned int
perf_seq_messages(const struct perf_seq_step *steps, unsigned int n, uint32_t nqp)
{
	unsigned int i, m = 0;

	for (i = 0; i < n; i++) {
		switch (steps[i].op) {
		case PERF_SEQ_KEYS: m += nqp; break;
		case PERF_SEQ_SYNC: m++; break;
		case PERF_SEQ_VERSIONS: m += 4; break;
		case PERF_SEQ_BW_REPORT: m += 5; break;
		default: break;
		}
	}
	return m;
}
