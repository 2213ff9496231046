/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef OG_H
#define OG_H

/*
 * Order gateway: a client sends fixed-size orders over RC with inline SEND;
 * the gateway acknowledges each by RDMA WRITE with immediate into a ring the
 * client registered up front (the immediate names the slot, so the client
 * never parses a message to find its acknowledgement).
 */

#include <stdint.h>

#include "ex_rdma.h"

#define OG_ORDER_SIZE 64                  /* bytes on the wire per order */
#define OG_RING_SLOTS 256                 /* acknowledgement ring (power of 2) */
#define OG_MAX_WINDOW 64                  /* orders in flight */
#define OG_SIGNAL_EVERY 16                /* one signaled send per this many */
#define OG_SQ_DEPTH 128
#define OG_RQ_DEPTH (2 * OG_MAX_WINDOW)
#define OG_OUT_SLOTS 256                  /* gateway's ack staging (> SQ depth) */

enum og_side { OG_BUY = 1, OG_SELL = 2 };
enum og_status { OG_ACCEPTED = 1, OG_REJECTED = 2 };

/* What the client sends: exactly OG_ORDER_SIZE bytes. */
struct og_order {
	uint64_t order_id;
	uint64_t client_tsc;              /* echoed back; the client's clock */
	char symbol[8];
	uint32_t quantity;
	uint32_t price_ticks;
	uint8_t side;                     /* enum og_side */
	uint8_t pad[OG_ORDER_SIZE - 33];
} __rte_packed;

/* What the gateway writes into the client's ring slot. */
struct og_ack {
	uint64_t order_id;
	uint64_t client_tsc;
	uint32_t status;                  /* enum og_status */
	uint32_t filled;
} __rte_aligned(32);

struct og_conf {
	uint32_t orders;
	uint32_t window;
	double timeout_s;
};

/* One end: its device, CQs and QP, and its buffers. */
struct og_end {
	struct ex_rc_end rc;
	struct ex_buf buf;                /* client: ack ring; gateway: orders */
	struct ex_buf out;                /* gateway: acks to write */
};

struct og_client {
	struct og_end *e;
	const struct og_conf *conf;
	uint32_t sent;
	uint32_t acked;
	uint32_t unsignaled;
	uint32_t sends_done;              /* orders whose send has completed */
	uint32_t bad_acks;
	uint64_t *rtt;                    /* one round trip per order, TSC */
	uint64_t *sent_tsc;
};

struct og_gateway {
	struct og_end *e;
	const struct og_conf *conf;
	uint64_t ring_addr;               /* the client's ring */
	uint32_t ring_rkey;
	uint32_t served;
	uint32_t rejected;
	uint32_t writes_done;             /* acks whose write has completed */
	uint32_t unsignaled;
};

int og_client_step(void *arg);
int og_gateway_step(void *arg);

/* Build order @p id: deterministic fields the gateway can check. */
void og_order_fill(struct og_order *o, uint64_t id, uint64_t tsc);
/* The gateway's decision (a fixed rule both sides can recompute). */
uint32_t og_order_decide(const struct og_order *o);

/* Round-trip percentiles and a log2 histogram of @p n samples. */
void og_report(uint64_t *rtt, uint32_t n, double elapsed_s);

#endif /* OG_H */
