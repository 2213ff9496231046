/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The objects of prdma's libibverbs-compatible library. Each verbs object
 * a program sees is the first member of one of these, so the library gets
 * back to the prdma object with no lookup; a magic word tells this
 * library's objects from anything else handed to the bridge calls.
 */

#ifndef PV_PRIVATE_H
#define PV_PRIVATE_H

#include <stdint.h>
#include <pthread.h>

#include <infiniband/verbs.h>

#include <rte_common.h>

#include <prdma.h>

#define PV_MAGIC_CTX 0x70764358u /* "pvCX" */
#define PV_MAGIC_PD  0x70765044u
#define PV_MAGIC_CQ  0x70764351u
#define PV_MAGIC_SRQ 0x70765352u
#define PV_MAGIC_QP  0x70765150u
#define PV_MAGIC_AH  0x70764148u
#define PV_MAGIC_MR  0x70764d52u

/* WRs and WCs translated per call on the fast path, from preallocated scratch. */
#define PV_SEND_BATCH 32
#define PV_POLL_BATCH 32

/* One prdma device as a verbs device. */
struct pv_device {
	struct ibv_device dev;            /* what ibv_get_device_list hands out */
	uint16_t dev_id;                  /* prdma device id */
	uint64_t node_guid;               /* network order */
};

struct pv_context {
	struct verbs_context vctx;        /* its last member is the ibv_context */
	uint32_t magic;
	struct pv_device *pvdev;
	struct prdma_dev *dev;
	uint32_t refs;                    /* bridge users + the opener */
};

struct pv_pd {
	struct ibv_pd pd;
	uint32_t magic;
	struct prdma_pd *ppd;
};

struct pv_extmem;

struct pv_mr {
	struct ibv_mr mr;
	uint32_t magic;
	struct prdma_mr *pmr;
	struct pv_extmem *ext;            /* NULL when the range was DPDK memory */
};

struct pv_cq {
	struct ibv_cq cq;
	uint32_t magic;
	struct prdma_cq *pcq;
	struct prdma_wc scratch[PV_POLL_BATCH];
};

struct pv_srq {
	struct ibv_srq srq;
	uint32_t magic;
	struct prdma_srq *psrq;
};

struct pv_qp {
	struct ibv_qp qp;
	uint32_t magic;
	struct prdma_qp *pqp;
	struct prdma_send_wr scratch[PV_SEND_BATCH];
};

struct pv_ah {
	struct ibv_ah ah;
	uint32_t magic;
	struct prdma_ah *pah;
};

static inline struct pv_context *
pv_ctx(struct ibv_context *c)
{
	return container_of(c, struct pv_context, vctx.context);
}

static inline struct pv_qp *
pv_qp(struct ibv_qp *q)
{
	return container_of(q, struct pv_qp, qp);
}

/* Setting errno and returning it, as verbs calls that return an int do. */
static inline int
pv_err(int e)
{
	errno = e;
	return e;
}

/* pv_init.c */
int pv_init(void);
int pv_in_init(void);

/* pv_device.c */
struct pv_device *pv_device_of(uint16_t dev_id);
struct ibv_context *pv_context_open(struct pv_device *pvdev);
struct ibv_context *pv_shared_context_get(uint16_t dev_id);
void pv_shared_context_put(struct ibv_context *c);

/* pv_fp.c: the context ops of the fast path */
int pv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int pv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int pv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int pv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int pv_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/* pv_qp.c */
void pv_qp_attr_from_prdma(struct ibv_qp_attr *out, const struct prdma_qp_attr *in);
void pv_ah_attr_from_prdma(struct ibv_ah_attr *out, const struct prdma_ah_attr *in);
int pv_ah_attr_to_prdma(struct prdma_ah_attr *out, const struct ibv_ah_attr *in);

#endif /* PV_PRIVATE_H */
