/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PROT_H
#define PROT_H

/*
 * Protection tests: two devices (devargs from PRDMA_PROT_DEVARGS_A/B, the
 * soft provider's ring link by default), A the requester, B the target.
 * B's memory sits between canaries and is compared byte for byte around
 * every refused access, so "refused" means "not one byte changed".
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <prdma.h>

#include "t_eal.h"

#define P_LEN        (64u * 1024)
#define P_CANARY     4096u
#define P_QKEY       0x11111111u

/* Memory with canaries on both sides; only data is ever registered. */
struct p_area {
	uint8_t *base;
	uint8_t *data;
	size_t len;
	uint8_t *shadow;          /* copy of base..end taken by p_snap */
};

struct p_side {
	int id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *scq;
	struct prdma_cq *rcq;
	struct p_area area;
	struct prdma_mr *mr;
	struct prdma_qp *qp;
	union prdma_gid gid;
	struct rte_ether_addr mac;
};

extern struct p_side p_a, p_b;
extern char p_devargs[2][256];

/* Probe both devices (once per process) and open them with PD, CQs, area. */
void p_open(void);
void p_close(void);

void p_area_alloc(struct p_area *ar, size_t len, uint8_t fill);
void p_area_free(struct p_area *ar);
/* Remember every byte of the area, canaries included. */
void p_snap(struct p_area *ar);
/* Offset (from base) of the first byte that changed since p_snap, or -1. */
long p_changed(const struct p_area *ar);

/* Create RC/UC/UD QPs on both sides and connect them (RC/UC) or bring
 * them to RTS (UD). @b_access: B's QP access flags. */
void p_connect(enum prdma_qp_type type, uint32_t b_access);
void p_disconnect(void);

/* Post on A: an RDMA/atomic request from A's area at @loff. */
int p_post(enum prdma_wr_opcode op, uint32_t loff, uint32_t len, uint64_t raddr,
	   uint32_t rkey, uint64_t wr_id);
/* Post a receive of B's area [off, off + len). */
int p_post_recv_b(uint32_t off, uint32_t len, uint64_t wr_id);
/* Poll @cq, progressing both devices, up to @ms milliseconds. */
int p_poll(struct prdma_cq *cq, struct prdma_wc *wc, unsigned int ms);
/* Progress both devices for @ms milliseconds. */
void p_idle(unsigned int ms);
/* Wait for an event of @type on @dev (progressing); 1 when seen. */
int p_event(struct prdma_dev *dev, enum prdma_event_type type, unsigned int ms);
/* A QP counter, or -1 when the provider does not keep it. */
int64_t p_qp_counter(struct prdma_qp *qp, enum prdma_qp_counter c);
/* The name of the soft provider's devargs (1 when A is "roce:"). */
int p_is_roce(void);

#endif /* PROT_H */
