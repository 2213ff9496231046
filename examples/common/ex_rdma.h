/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef EX_RDMA_H
#define EX_RDMA_H

/*
 * The few steps every example repeats with the public API: open a device
 * with a PD, make CQs and QPs, register a buffer, and bring QPs up (RC
 * connected to a peer, UD ready to send and receive). Each helper logs what
 * failed and returns a negative errno, so a main() reads as a list of steps.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_cycles.h>

#include <prdma.h>

#define EX_ERR(fmt, ...) fprintf(stderr, "error: " fmt "\n", ##__VA_ARGS__)

/* One opened device and its PD. */
struct ex_dev {
	int id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	union prdma_gid gid;
	struct prdma_dev_attr attr;
	uint32_t mtu_bytes;                /* the port's active MTU */
};

/* A buffer of DPDK memory and its MR. */
struct ex_buf {
	uint8_t *p;
	size_t len;
	struct prdma_mr *mr;
};

/* rte_eal_init() and its arguments skipped in @p argc and @p argv: 0, or
 * -1 after the error line. */
int ex_eal_init(int *argc, char ***argv);

/* Option value @p s, a whole number in [@p min, @p max] in any base
 * strtoull() reads; -EINVAL for anything else. */
int ex_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v);

int ex_dev_open(struct ex_dev *d, const char *devargs);
/* Free the PD, close and remove the device (also after a partial open). */
void ex_dev_close(struct ex_dev *d);

struct prdma_cq *ex_cq_create(struct ex_dev *d, uint32_t depth);

/* A QP with one SGE per request and @p inline_len bytes of inline data. */
struct prdma_qp *ex_qp_create(struct ex_dev *d, enum prdma_qp_type type,
			      struct prdma_cq *scq, struct prdma_cq *rcq,
			      uint32_t sq_depth, uint32_t rq_depth,
			      uint32_t inline_len);

int ex_buf_alloc(struct ex_dev *d, struct ex_buf *b, size_t len, uint32_t access);
void ex_buf_free(struct ex_buf *b);

/* RESET -> INIT -> RTR -> RTS of an RC QP towards (peer's GID, peer QPN). */
int ex_rc_connect(struct prdma_qp *qp, const struct ex_dev *local,
		  const struct ex_dev *peer, uint32_t peer_qpn,
		  uint32_t sq_psn, uint32_t rq_psn);

/* One end of an RC connection: its device, a send and a receive CQ, and
 * the QP. Zero it and set d.id to -1 before use, so that closing after a
 * partial open (or none) is safe. */
struct ex_rc_end {
	struct ex_dev d;
	struct prdma_cq *scq;
	struct prdma_cq *rcq;
	struct prdma_qp *qp;
};

/* Open the device, make its CQs (@p sq_depth and @p rq_depth entries) and
 * an RC QP over them with those depths and @p inline_len inline bytes. */
int ex_rc_end_open(struct ex_rc_end *e, const char *devargs, uint32_t sq_depth,
		   uint32_t rq_depth, uint32_t inline_len);

/* Destroy the QP, free the end's @p nb_bufs buffers, destroy the CQs and
 * close the device: the buffers are passed in because their MRs must go
 * after the QP that may still name them and before the PD. */
void ex_rc_end_close(struct ex_rc_end *e, struct ex_buf *const bufs[], unsigned int nb_bufs);

/* Connect the QPs of @p a and @p b to each other; each side's send PSN is
 * the other's receive PSN. */
int ex_rc_connect_pair(struct ex_rc_end *a, struct ex_rc_end *b, uint32_t a_psn,
		       uint32_t b_psn);

/* RESET -> INIT -> RTR -> RTS of a UD QP with Q_Key @p qkey. */
int ex_ud_up(struct prdma_qp *qp, uint32_t qkey, uint32_t sq_psn);

/*
 * Selective signaling: PRDMA_SEND_SIGNALED for one send in @p every and for
 * the run's @p last one, else 0. A signaled completion also vouches for the
 * unsignaled sends posted before it, which is all a sender needs to know to
 * reuse their send-queue slots, and the last one is signaled so that the
 * run ends with nothing unaccounted for.
 */
static inline uint32_t
ex_signal_every(uint32_t *unsignaled, uint32_t every, int last)
{
	if (++*unsignaled == every || last) {
		*unsignaled = 0;
		return PRDMA_SEND_SIGNALED;
	}
	return 0;
}

/* Post one receive of [addr, addr + len); no SGE when @p len is 0 (a
 * receive that only takes a WRITE with immediate's notification). */
int ex_post_recv(struct prdma_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
		 uint32_t lkey);

static inline double
ex_tsc_to_us(uint64_t tsc)
{
	return (double)tsc * 1e6 / (double)rte_get_tsc_hz();
}

/* Percentiles of @p n TSC samples (sorted in place), printed on one line
 * in microseconds after @p label. */
void ex_print_latency(const char *label, uint64_t *tsc, uint32_t n);

#endif /* EX_RDMA_H */
