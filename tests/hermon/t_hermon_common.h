/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef T_HERMON_COMMON_H
#define T_HERMON_COMMON_H

/*
 * Helpers shared by the Hermon tests (t_hermon_common.c): resource
 * counting for leak checks, and the fixture of two model HCAs on one
 * cable that the ARP/ND tests (raw QPs, IPv4 or IPv6 peers) and the
 * special-QP tests (QP1 and raw MLX WQEs) drive. The t_* calls that
 * return nothing fail the running test on any error (cmocka asserts).
 */

#include <stdbool.h>
#include <stdint.h>

#include "prdma_provider.h"
#include "hermon_obj.h"

struct hermon_model;

struct t_res {
	unsigned int memzones;
	unsigned int fds;
	uint64_t malloc_allocs;
};

void t_res_snapshot(struct t_res *r);

/* Milliseconds of CLOCK_MONOTONIC. */
uint64_t t_now_ms(void);

/** One end of the cable: a device with a PD, a CQ and an 8 KiB MR. */
struct t_end {
	int id;
	struct prdma_dev *dev;
	struct hermon_dev *hd;
	struct hermon_model *m;          /**< its model, when t_end_up named one */
	struct prdma_pd *pd;
	struct prdma_cq *cq;             /**< 64 CQEs, every QP of the test's */
	struct prdma_mr *mr;             /**< over buf, local write */
	uint8_t *buf;                    /**< 8 KiB: sends from 0, receives at T_RX */
	struct prdma_qp *qp;             /**< QP1 (t_gsi_end_up), else NULL */
	union prdma_gid gid;             /**< GID 1 (t_gsi_end_up) */
	bool v6;                         /**< peers are IPv6 (ip6=, GID 2), else IPv4 */
};

#define T_RX 4096                        /* where t_post_recv lands in buf */
#define T_SEND_ID 7                      /* the wr_id of t_post_send */
#define T_MAD 256

/* Probe and open @args (EAL started first), with the objects; the model
 * named @model (NULL: none) referenced. 0, or -1 (for a group setup). */
int t_end_up(struct t_end *e, const char *args, const char *model);
/* Free all of @e, its QP1 first. */
void t_end_down(struct t_end *e);
/* Two ends @a and @b of model link @link ("<link>.0", "<link>.1"), with
 * IPv6 or IPv4 peers: 0 or -1, as a group setup wants. */
int t_ends_up(struct t_end *a, const char *a_args, struct t_end *b, const char *b_args,
	      const char *link, bool v6);
void t_ends_down(struct t_end *a, struct t_end *b);

/* Poll @e's CQ for one completion for up to @ms: 1, or 0 if none came. */
int t_poll_one(struct t_end *e, struct prdma_wc *wc, unsigned int ms);
/* A 1 KiB receive at T_RX of @e->buf on @qp (filled with 0xee first, so
 * what a test reads there was received). */
void t_post_recv(struct t_end *e, struct prdma_qp *qp, uint64_t wr_id);
/* A signalled SEND of @len bytes from @e->buf (wr_id T_SEND_ID); with
 * @ah a UD datagram to @dqpn/@qkey. 0 or what prdma_post_send says. */
int t_post_send(struct t_end *e, struct prdma_qp *qp, struct prdma_ah *ah, uint32_t dqpn,
		uint32_t qkey, uint32_t len);

/* ARP/ND ends (t_ends_up): peer "@last" is ::ffff:192.0.2.last from GID 1,
 * or with v6 2001:db8::last from GID 2 (ip6=). */
void t_v6_ip(uint8_t *g, uint8_t last);
struct prdma_ah *t_ah_to(struct t_end *e, uint8_t last, uint32_t flags);
/* A QP of type @t on @e in INIT (UD with Q_Key 0x11111111). */
struct prdma_qp *t_qp_new(struct t_end *e, enum prdma_qp_type t);
/* RC @qp of @e to RTR toward peer @last's @dqpn: prdma_qp_modify's answer. */
int t_rc_rtr(struct t_end *e, struct prdma_qp *qp, uint8_t last, uint32_t dqpn,
	     uint32_t flags);
void t_rc_rts(struct prdma_qp *qp);
/* Forget what the wire taught @e's neighbour cache (static entries stay). */
void t_cache_flush(struct t_end *e);
/* A raw Ethernet QP of the test's own on @e (the PMD's object), in RTS;
 * the caller destroys it with hermon_qp_destroy() and rte_free(). */
struct hermon_qp *t_raw_qp(struct t_end *e);
/* Send @len bytes of @e->buf as a frame on @q; wait for its completion. */
void t_raw_send(struct t_end *e, struct hermon_qp *q, uint32_t len);
/* Wait up to 2 s for @e's port 1 agent to have received more than @before. */
void t_wait_received(struct t_end *e, uint64_t before);

/* Special-QP ends: t_end_up, then QP1 in RTS (8 WRs a queue) and GID 1. */
void t_gsi_end_up(struct t_end *e, const char *args);
/* @e's QP1 on port 1 in RTS (again after the test freed the last one). */
void t_gsi_make(struct t_end *e);
/* An AH from @from's GID @sidx to @to's GID @didx. */
struct prdma_ah *t_gsi_ah(struct t_end *from, const struct t_end *to, uint8_t sidx,
			  uint8_t didx);
/* The T_MAD bytes at @e->buf as a MAD from QP1 to @dqpn with the GSI Q_Key. */
int t_gsi_send(struct t_end *e, struct prdma_ah *ah, uint32_t dqpn);
/* Write the raw WQE @wqe (@n bytes) into the next SQ slot of @e's QP1 and
 * ring the doorbell, bypassing the PMD's post (wr_id 99). */
void t_wqe_post(struct t_end *e, const uint8_t *wqe, uint32_t n);

#endif /* T_HERMON_COMMON_H */
