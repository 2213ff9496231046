/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef TP_FWD_H
#define TP_FWD_H

/*
 * Forwarding engines, testpmd style: an engine is a name and a per-stream
 * step; a stream is one QP on one worker lcore.
 */

#include <stdint.h>

#include "tp.h"

#define TP_LAT_RING 4096u
#define TP_MAX_STREAMS TP_MAX_OBJ

struct tp_stream;

struct tp_engine {
	const char *name;
	const char *help;
	int needs_rdma_peer;         /* WRITE/READ: the peer's buffer and rkey */
	int (*begin)(struct tp_stream *st);
	/* Bounded work; negative errno stops the stream (counted as an error). */
	int (*step)(struct tp_stream *st);
};

struct tp_stream {
	uint32_t qp_id;
	struct tp_qp *q;
	const struct tp_engine *eng;
	int passive;                 /* the listed peer of an active stream */
	unsigned int lcore;
	uint32_t size;
	uint32_t depth;
	struct prdma_dev *peer_dev;  /* a local peer's device nobody else polls */
	/* Counters written by the worker, read by 'show fwd stats'. */
	volatile uint64_t ops;
	volatile uint64_t bytes;
	volatile uint64_t errors;
	volatile uint64_t nb_samples;
	uint64_t samples[TP_LAT_RING]; /* TSC round trips, the latest */
	/* Engine state. */
	uint32_t outstanding;
	uint32_t rx_posted;
	int waiting;
	int failed;
	uint64_t t0;
	/* 'show fwd stats' deltas. */
	uint64_t last_ops, last_bytes, last_tsc;
};

extern const struct tp_engine *const tp_engines[];

/* Helpers for the engines (tp_engines.c). */
int tp_stream_post_recvs(struct tp_stream *st, uint32_t n);

#endif /* TP_FWD_H */
