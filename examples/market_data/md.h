/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef MD_H
#define MD_H

/*
 * Market-data fan-out: one publisher sends sequenced ticks to a UD
 * multicast group; every subscriber QP attached to the group gets its own
 * copy, detects gaps by sequence number and measures one-way latency from
 * the TSC stamp in the tick (publisher and subscribers share a clock here).
 */

#include <stdint.h>

#include "ex_rdma.h"

#define MD_QKEY 0x4d440001u
#define MD_MCAST_QPN 0xffffffu
#define MD_MAX_SUBS 8
#define MD_RQ_DEPTH 512
#define MD_SQ_DEPTH 256
#define MD_SIGNAL_EVERY 32
#define MD_GRH 40
#define MD_SLOT 128                       /* GRH + tick, rounded up */

/* One tick on the wire. */
struct md_tick {
	uint64_t seq;
	uint64_t tsc;                     /* publisher's TSC at send */
	char symbol[8];
	uint32_t price_ticks;
	uint32_t size;
};

struct md_conf {
	uint64_t ticks;
	uint32_t subs;
	uint32_t skip_every;              /* 0: none; else seq % n == n - 1 never sent */
	double timeout_s;
};

struct md_sub {
	unsigned int id;
	struct ex_dev *d;
	struct prdma_cq *cq;
	struct prdma_qp *qp;
	struct ex_buf buf;                /* MD_RQ_DEPTH slots */
	volatile uint64_t progress;       /* next_seq, read by the pacing */
	uint64_t received;
	uint64_t next_seq;
	uint64_t gaps;                    /* sequence numbers never seen */
	uint64_t bad;
	uint64_t first_tsc;
	uint64_t last_tsc;
	uint64_t *lat;                    /* one-way latency per tick, TSC */
	volatile int done;
	int err;
};

struct md_pub {
	struct ex_dev *d;
	struct prdma_cq *cq;
	struct prdma_qp *qp;
	struct prdma_ah *ah;
	const struct md_conf *conf;
	struct md_sub *subs;
	uint64_t seq;                     /* next sequence number */
	uint64_t sent;
	uint64_t skipped;
	uint64_t posted;
	uint64_t completed;
	uint32_t unsignaled;
};

/* Last sequence number of the run (never skipped). */
static inline int
md_is_skipped(const struct md_conf *c, uint64_t seq)
{
	return c->skip_every != 0 && seq + 1 < c->ticks &&
	       seq % c->skip_every == c->skip_every - 1;
}

int md_pub_run(struct md_pub *p, volatile int *abort_flag, uint64_t deadline);
int md_sub_lcore(void *arg);              /* a worker lcore's subscribers */
int md_sub_post_all(struct md_sub *s);

/* Worker lcore arguments: the subscribers it polls. */
struct md_worker {
	struct md_sub *subs[MD_MAX_SUBS];
	unsigned int nb;
	const struct md_conf *conf;
	volatile int *abort_flag;
	uint64_t deadline;
};

#endif /* MD_H */
