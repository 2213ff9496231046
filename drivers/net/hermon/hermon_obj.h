/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_OBJ_H
#define HERMON_OBJ_H

/*
 * The PMD's objects (each embeds the library's public head first) and the
 * control-path helpers that create them. The fast-path fields of a QP, CQ
 * and SRQ come first in each structure, and each is written by one lcore.
 */

#include <stdbool.h>
#include <stdint.h>

#include "prdma_provider.h"
#include "hermon_dev.h"
#include "hermon_prm_ext.h"

struct hermon_pd {
	struct prdma_pd pub;
};

struct hermon_mr {
	struct prdma_mr pub;
	uint32_t index;                  /**< dMPT index */
	uint32_t mtt;                    /**< first MTT entry, 0: none */
	uint32_t nmtt;
};

struct hermon_mw {
	struct prdma_mw pub;
	uint32_t index;
};

struct hermon_ah {
	struct prdma_ah pub;
	struct hermon_prm_ud_address_vector av;
	/* bytes 40-47 of the datagram segment: VLAN (BE) and DMAC (F12) */
	uint8_t l2[8];
};

/* hermon_l2.c: the neighbour cache, with neigh= as its static entries */
int hermon_l2_init(struct hermon_dev *hd);
/* 0 and the DMAC of @at, or -1 (zero MAC) if unknown (starts no resolution). */
int hermon_l2_dmac(struct hermon_dev *hd, const struct prdma_ah_attr *at,
		   uint8_t mac[6]);
/* 0 when @at needs no DMAC (not Ethernet) or has one; else a negative
 * errno: -EHOSTUNREACH (counted, hermon_stats.c) when no MAC is known. */
int hermon_l2_resolve(struct hermon_dev *hd, const struct prdma_ah_attr *at);

struct hermon_qp;

/* A run of MTT entries describing a queue buffer in 4 KiB pages. */
struct hermon_queue_mem {
	struct hermon_dma dma;
	uint32_t mtt;
	uint32_t nmtt;
	size_t qbytes;                   /**< bytes the MTT covers */
};

struct hermon_cq {
	struct prdma_cq pub;
	/* fast path (the polling lcore) */
	uint8_t *buf;
	uint32_t ci;
	uint32_t mask;
	uint32_t log;
	volatile rte_be32_t *db;         /**< [0] set_ci, [1] arm word */
	struct hermon_qp **qps;          /**< the device's QPN table */
	uint32_t qp_mask;
	uint64_t *stash;                 /**< wr_ids of CQEs whose QP is gone */
	uint8_t *stash_ok;
	/** stash_ok entries set (never fewer): 0 lets a poll skip stash_ok */
	uint32_t stash_n;
	/** the QP of the last one-CQE poll, looked up while stash_n was 0;
	 * last_qpn is UINT32_MAX (no QPN) when none (hermon_cq_forget_qp) */
	uint32_t last_qpn;
	struct hermon_qp *last_qp;
	/* control path */
	struct hermon_dev *hd;
	uint32_t cqn;
	uint32_t arm_sn;
	uint32_t arm_n;                  /**< RearmNCq target, 0: none */
	uint32_t arm_pos;
	struct hermon_queue_mem mem;
	struct hermon_dma dbmem;         /**< the doorbell record */
};

struct hermon_srq {
	struct prdma_srq pub;
	/* fast path (the posting lcore) */
	uint8_t *buf;
	uint32_t shift;                  /**< log2 of the WQE stride */
	uint32_t mask;
	uint32_t max_sge;
	uint32_t head;                   /**< next free WQE */
	uint32_t tail;                   /**< last free WQE (never used) */
	uint16_t counter;
	volatile rte_be32_t *db;
	uint64_t *wrid;
	/* freed WQEs: pushed by the CQ's lcore, linked in by the poster */
	uint16_t *freed;
	volatile uint32_t free_prod;
	uint32_t free_cons;
	/* control path */
	uint32_t srqn;
	uint32_t max_wr;
	struct hermon_queue_mem mem;
};

struct hermon_qp {
	struct prdma_qp pub;
	/* send queue (the posting lcore) */
	uint8_t *sq;
	uint32_t sq_head;
	volatile uint32_t sq_tail;       /**< advanced by the send CQ's poller */
	uint32_t sq_mask;
	uint32_t sq_log;                 /**< log2 of the ring size */
	uint32_t sq_shift;               /**< log2 of the WQE stride */
	uint32_t sq_cap;                 /**< usable WQEs (ring minus headroom) */
	uint32_t sq_spare;
	uint32_t max_inline;
	uint32_t max_send_sge;
	uint32_t sig_all;                /**< C bits for every WQE */
	rte_be32_t db_val;               /**< qpn << 8, big-endian */
	volatile uint32_t *uar_db;       /**< UAR send doorbell */
	uint8_t *bf;                     /**< BlueFlame register, or NULL */
	uint32_t bf_off;                 /**< the half the next copy goes to */
	uint32_t bf_half;                /**< bytes of one half (the largest copy) */
	uint32_t bf_max;                 /**< bf_half with a register, else 0 (one test) */
	int bf_reg;                      /**< its index in the page, or -1 */
	uint64_t *sq_wrid;
	const uint8_t *mpt_dma;          /**< per dMPT: lkey is a DMA MR */
	uint32_t mpt_mask;
	/* send queue constants, precomputed by hermon_sq_fp_init */
	const uint8_t *sq_kinds;         /**< segment kind by opcode, for the QP type */
	rte_be32_t sq_ctrl2[8];          /**< ctrl dword 2 by send_flags & 6 */
	uint32_t sq_inl_fast[4];         /**< inline bytes of the short path, by kind */
	uint32_t sq_stamp_room;          /**< stride if > 64 (blocks to stamp), or 0 */
	uint32_t sq_stamp_delta;         /**< headroom in bytes */
	uint32_t sq_stamp_mask;          /**< ring bytes - 1 */
	/* receive queue (the receiving lcore) */
	uint8_t *rq;
	uint32_t rq_head;
	volatile uint32_t rq_tail;
	uint32_t rq_mask;
	uint32_t rq_shift;
	uint32_t max_recv_sge;
	volatile rte_be32_t *rq_db;
	uint64_t *rq_wrid;
	struct hermon_srq *srq;
	/* control path */
	struct hermon_dev *hd;
	uint32_t qpn;
	uint32_t rq_n;
	struct hermon_queue_mem mem;
	struct hermon_prm_queue_pair_ee_context_entry qpc;   /**< shadow */
	struct prdma_qp_attr attr;
	/* hermon_sqp.c: the GSI QP (QP1), an MLX QP whose WQEs carry headers */
	bool mlx;
	uint8_t gsi_port;                /* the port of QP0/QP1 */
	uint8_t sqp_wire;                /* 0: SMI (QP0), 1: GSI (QP1) */
	bool sma_owned;                  /* the PMD's own QP0 (hermon_sma.c) */
	bool raw;                        /* F13: raw Ethernet QP (hermon_arp.c) */
	uint32_t mlx_psn;
};

/* hermon_res.c: index allocators (control path). */
void hermon_bf_alloc(struct hermon_dev *hd, struct hermon_qp *qp);
void hermon_bf_free(struct hermon_dev *hd, struct hermon_qp *qp);
int hermon_res_init(struct hermon_dev *hd);
void hermon_res_fini(struct hermon_dev *hd);
int hermon_bitmap_alloc(struct hermon_bitmap *b);
void hermon_bitmap_free(struct hermon_bitmap *b, uint32_t i);
/* @n contiguous MTT entries; their first index or -ENOSPC. */
int hermon_mtt_alloc(struct hermon_dev *hd, uint32_t n);
void hermon_mtt_free(struct hermon_dev *hd, uint32_t first, uint32_t n);
/* Write @n MTT entries from @first with the IOVAs of @pages. */
int hermon_mtt_write(struct hermon_dev *hd, uint32_t first, const rte_iova_t *pages,
		     uint32_t n);
/* A zeroed queue buffer of @bytes (+ @extra bytes after it), its MTT run. */
int hermon_queue_alloc(struct hermon_dev *hd, struct hermon_queue_mem *q,
		       const char *what, size_t bytes, size_t extra);
void hermon_queue_free(struct hermon_dev *hd, struct hermon_queue_mem *q);

/* Object ops. */
int hermon_pd_alloc(struct prdma_pd *pd);
int hermon_pd_free(struct prdma_pd *pd);
int hermon_mr_reg(struct prdma_mr *mr);
int hermon_mr_dereg(struct prdma_mr *mr);
int hermon_mw_alloc(struct prdma_mw *mw);
int hermon_mw_dealloc(struct prdma_mw *mw);
int hermon_cq_create(struct prdma_cq *cq, const struct prdma_cq_init_attr *attr);
int hermon_cq_destroy(struct prdma_cq *cq);
int hermon_cq_resize(struct prdma_cq *cq, uint32_t cqe);
int hermon_cq_arm(struct prdma_cq *cq, enum prdma_cq_arm_flags flags, uint32_t n);
/* A completion event for @cqn arrived (EQ poller, ev_lock held). */
void hermon_cq_event(struct hermon_dev *hd, uint32_t cqn);
int hermon_srq_create(struct prdma_srq *srq, struct prdma_srq_init_attr *attr);
int hermon_srq_modify(struct prdma_srq *srq, const struct prdma_srq_attr *attr,
		      uint32_t mask);
int hermon_srq_query(struct prdma_srq *srq, struct prdma_srq_attr *attr);
int hermon_srq_destroy(struct prdma_srq *srq);
int hermon_qp_create(struct prdma_qp *qp, struct prdma_qp_init_attr *attr);
int hermon_qp_modify(struct prdma_qp *qp, const struct prdma_qp_attr *attr,
		     uint32_t mask);
int hermon_qp_query(struct prdma_qp *qp, struct prdma_qp_attr *attr);
int hermon_qp_destroy(struct prdma_qp *qp);
int hermon_ah_create(struct prdma_ah *ah);
int hermon_ah_modify(struct prdma_ah *ah, const struct prdma_ah_attr *attr);
int hermon_ah_destroy(struct prdma_ah *ah);

/* hermon_port.c */
int hermon_ports_gid_init(struct hermon_dev *hd);

/* hermon_sqp.c: the special QPs (CONF_SPECIAL_QP, the GSI QP, MLX WQEs). */
int hermon_sqp_conf(struct hermon_dev *hd);
void hermon_sqp_reserve(struct hermon_dev *hd);
void hermon_sqp_release(struct hermon_dev *hd);
/* Claim port 1's GSI QPN for @qp (its port may change before INIT). */
/* Take QP @wire (0 SMI, 1 GSI) of port 1 for @qp; then move it to @port. */
int hermon_sqp_claim(struct hermon_dev *hd, struct hermon_qp *qp, uint8_t wire);
int hermon_sqp_port(struct hermon_qp *qp, uint8_t port);
void hermon_sqp_free(struct hermon_qp *qp);

/*
 * hermon_sma.c: the PMD's SMP agent on each InfiniBand port's QP0. Start
 * it on every IB port (and its control thread); stop it all (teardown).
 * An application's QP0 takes the port over: yield stops the agent of
 * @port, resume starts it again once the port's QP0 is free.
 */
int hermon_sma_start(struct hermon_dev *hd);
void hermon_sma_stop(struct hermon_dev *hd);
void hermon_sma_yield(struct hermon_dev *hd, uint8_t port);
void hermon_sma_resume(struct hermon_dev *hd, uint8_t port);
/* Bytes of an MLX WQE with @sge gather entries. */
uint32_t hermon_sqp_wqe_bytes(uint32_t sge);
int hermon_sqp_post_send(struct hermon_qp *qp, const struct prdma_send_wr *wr,
			 const struct prdma_send_wr **bad_wr);

/* Fast path (hermon_fp_post.c, hermon_fp_poll.c). */
int hermon_post_send(struct prdma_qp *qp, const struct prdma_send_wr *wr,
		     const struct prdma_send_wr **bad_wr);
int hermon_wr_tmpl_create(struct prdma_qp *qp, struct prdma_wr_tmpl *t);
int hermon_post_send_burst(struct prdma_qp *qp, const struct prdma_send_wr *wr,
			   uint16_t nb, const struct prdma_send_wr **bad_wr);
int hermon_post_recv(struct prdma_qp *qp, const struct prdma_recv_wr *wr,
		     const struct prdma_recv_wr **bad_wr);
int hermon_post_srq_recv(struct prdma_srq *srq, const struct prdma_recv_wr *wr,
			 const struct prdma_recv_wr **bad_wr);
int hermon_poll_cq(struct prdma_cq *cq, uint16_t nb, struct prdma_wc *wc);
int hermon_peek_cq(struct prdma_cq *cq);
/* Precompute the send queue's fast-path constants (after its layout is set). */
void hermon_sq_fp_init(struct hermon_qp *qp);
/* The QP is being destroyed: @cq's one-CQE poll must not use it again. */
void hermon_cq_forget_qp(struct hermon_cq *cq, const struct hermon_qp *qp);
/* Inline bytes a WQE can carry from byte @start of a @bytes-long WQE. */
uint32_t hermon_inline_room(uint32_t start, uint32_t bytes);

#endif /* HERMON_OBJ_H */
