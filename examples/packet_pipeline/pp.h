/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PP_H
#define PP_H

/*
 * Packet pipeline: packets received on a DPDK ethdev are copied into
 * fixed-size slots and pushed by RDMA WRITE, a batch at a time, into a ring
 * in the consumer's memory; a second small WRITE publishes the producer
 * index. The consumer reads the ring with no receive queue at all and
 * returns credits by RDMA WRITE with immediate (the immediate is its
 * consumer index), which is the producer's only receive traffic.
 */

#include <stdint.h>

#include <rte_mbuf.h>

#include "ex_rdma.h"

#define PP_SLOT_SIZE 2048                 /* one packet per slot */
#define PP_SLOT_HDR 8
#define PP_MAX_PKT (PP_SLOT_SIZE - PP_SLOT_HDR)
#define PP_RING_SLOTS 1024                /* power of 2 */
#define PP_BATCH 32                       /* packets per rx burst / WRITE batch */
#define PP_SQ_DEPTH 256
#define PP_RQ_DEPTH 64
#define PP_CREDIT_EVERY (PP_RING_SLOTS / 8)
#define PP_SIGNAL_EVERY 16                /* batches per signaled send */
#define PP_MIN_PKT 64
#define PP_SRC_RING 1024

/* The head of every slot. */
struct pp_slot_hdr {
	uint32_t len;
	uint32_t seq;                     /* the packet's sequence number */
};

/* The consumer's registered memory: the producer index then the ring. */
struct pp_ring_mem {
	volatile uint64_t prod;           /* written by the producer */
	uint8_t pad[RTE_CACHE_LINE_SIZE - 8];
	uint8_t slots[PP_RING_SLOTS][PP_SLOT_SIZE];
};

/* The producer's registered memory: the staging copy of the ring (the
 * WRITE source), the index to publish, and the consumer index cell the
 * credit writes land in. */
struct pp_stage_mem {
	uint8_t slots[PP_RING_SLOTS][PP_SLOT_SIZE];
	volatile uint64_t cons;           /* written by the consumer */
	uint8_t pad[RTE_CACHE_LINE_SIZE - 8];
};

struct pp_conf {
	uint64_t packets;
	int drop_on_full;                 /* drop instead of back-pressure */
	double timeout_s;
};

/* The ethdev the packets come from: a net_ring port whose receive ring the
 * generator fills (a NIC would fill it in a real pipeline). */
struct pp_source {
	struct rte_mempool *pool;
	struct rte_ring *rx_ring;
	struct rte_ring *tx_ring;
	uint16_t port;
	int port_ok;
	uint64_t generated;
	uint64_t src_full;                /* generator found the ring full */
};

struct pp_end {
	struct ex_rc_end rc;
	struct ex_buf mem;                /* pp_ring_mem or pp_stage_mem */
	struct ex_buf small;              /* inline-free staging for indices */
};

struct pp_producer {
	struct pp_end *e;
	struct pp_source *src;
	const struct pp_conf *conf;
	uint64_t remote_addr;             /* consumer's pp_ring_mem */
	uint32_t remote_rkey;
	uint64_t prod;                    /* packets written to the ring */
	uint64_t cons_seen;               /* last consumer index received */
	uint64_t drops;                   /* no credit (drop_on_full) */
	uint64_t oversize;                /* longer than a slot: dropped */
	uint64_t batches;
	uint64_t posted;                  /* send WRs posted */
	uint64_t completed;               /* send WRs known complete */
	uint32_t unsignaled;
	volatile int finished;            /* every packet accounted for */
	volatile uint64_t final;          /* packets the consumer will see */
};

struct pp_consumer {
	struct pp_end *e;
	struct pp_producer *p;            /* only for the end-of-run count */
	uint64_t remote_addr;             /* producer's cons cell */
	uint32_t remote_rkey;
	uint64_t cons;
	uint64_t returned;                /* last index sent back as credit */
	uint64_t bad;                     /* slots that failed their checks */
	uint64_t last_seq;                /* sequence numbers only increase */
	uint64_t bytes;
	uint64_t posted;
	uint64_t completed;
	uint64_t first_tsc;
	uint64_t last_tsc;
};

int pp_source_open(struct pp_source *s);
void pp_source_close(struct pp_source *s);
/* Put up to @p n more packets into the source port's receive ring. */
void pp_source_generate(struct pp_source *s, uint64_t limit, unsigned int n);
/* Length of packet @p seq (deterministic: the consumer recomputes it). */
uint32_t pp_packet_len(uint64_t seq);

int pp_producer_step(void *arg);
int pp_consumer_step(void *arg);

#endif /* PP_H */
