/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef T_ROCE_H
#define T_ROCE_H

/*
 * Helpers of the roce device tests: a pair of devices (the two sides of a
 * ring link, or any two devargs), and connected QPs between them.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <prdma.h>

#include "t_eal.h"

#define T_BUF_LEN (1u << 16)

/* One side: device, PD, CQs, a registered buffer. */
struct t_side {
	int id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *scq;
	struct prdma_cq *rcq;
	uint8_t *buf;
	struct prdma_mr *mr;
	struct prdma_qp *qp;
	union prdma_gid gid;
	struct rte_ether_addr mac;
};

/* Probe and open devargs @a and @b, with PDs, CQs and buffers. */
void t_pair_open(struct t_side s[2], const char *a, const char *b);
/* Destroy everything and remove both devices. */
void t_pair_close(struct t_side s[2]);
/*
 * Create QPs of @type on both sides and move them to RTS, connected.
 * @dmac: give the peer's MAC explicitly (PRDMA_AH_F_DMAC).
 */
void t_pair_connect(struct t_side s[2], enum prdma_qp_type type, int dmac);
/* Send queue depth t_pair_connect asks for (64 unless a test sets it). */
extern uint32_t t_sq_depth;
/* RC local ACK timeout exponent it sets (14, about 67 ms, unless a test sets it). */
extern uint8_t t_ack_timeout;
/* A CQ of 256 entries on @s's device (asserts it was made). */
struct prdma_cq *t_cq_new(struct t_side *s);

/* Poll @cq (progressing both devices) until one completion or a timeout. */
int t_poll_one(struct t_side s[2], struct prdma_cq *cq, struct prdma_wc *wc);
/* Post one send WR of @opcode with one SGE (buf + loff, len). */
int t_post(struct t_side *s, enum prdma_wr_opcode opcode, uint32_t loff,
	   uint32_t len, uint64_t raddr, uint32_t rkey, uint64_t wr_id);
int t_post_recv(struct t_side *s, uint32_t off, uint32_t len, uint64_t wr_id);

#endif /* T_ROCE_H */
