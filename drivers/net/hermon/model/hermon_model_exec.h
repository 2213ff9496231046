/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_MODEL_EXEC_H
#define HERMON_MODEL_EXEC_H

/* The send engine's view of a QP and of WQEs, shared by its files. */

#include "hermon_model_priv.h"
#include "../hermon_sqp_wire.h"

#define HM_MAX_SEGS 64
#define HM_GRH 40

/* A QP context with its queue geometry decoded. */
struct hm_qp {
	struct hermon_model *m;
	uint32_t qpn;
	struct hermon_prm_queue_pair_ee_context_entry *ctx;
	struct hm_qp_rt *rt;
	uint32_t st, state, pd;
	uint64_t mtt, base, sq_off, rq_off;
	uint32_t pg, sq_n, sq_stride, rq_n, rq_stride;
};

#define QX(q, f) HERMON_GET((q)->ctx, queue_pair_ee_context_entry, f)
#define QX_SET(q, f, v) HERMON_FILL((q)->ctx, queue_pair_ee_context_entry, f, v)

struct hm_rwqe {
	struct hm_seg seg[HM_MAX_SEGS];
	uint32_t nseg;
	uint32_t cap;                 /* bytes the scatter list holds */
	uint16_t ctr;                 /* reported in the CQE */
	uint16_t next;                /* SRQ: the WQE after this one */
	uint32_t srqn;
	bool srq;
	bool bad_key;
};

struct hm_wqe {
	uint32_t opcode, ds, len, imm, rkey, dqpn, qkey, ninl;
	uint32_t ctrl2;               /* control dword 2 (MLX: VL15, SLR, SL) */
	bool signaled, se;
	uint64_t raddr, swap, cmp;
	uint16_t ctr;
	const struct hermon_prm_wqe_segment_ud *ud;
	const struct hermon_prm_wqe_segment_bind *bind;
	uint32_t inv_key;
	struct hm_seg seg[HM_MAX_SEGS];
	uint32_t nseg;
	uint8_t inl[1024];
};


int hm_qp_load(struct hermon_model *m, uint32_t qpn, struct hm_qp *q);
void hm_cqe_ok(struct hm_qp *q, bool send, uint32_t opcode, uint16_t ctr, uint32_t bytes,
	       uint32_t imm, uint32_t src_qpn, bool grh, bool se, uint8_t sl);
/* The same with the SLID of the received packet (an IB receive). */
void hm_cqe_ok_lid(struct hm_qp *q, bool send, uint32_t opcode, uint16_t ctr, uint32_t bytes,
		   uint32_t imm, uint32_t src_qpn, bool grh, bool se, uint8_t sl,
		   uint16_t slid);
void hm_cqe_err(struct hm_qp *q, bool send, uint16_t ctr, uint8_t synd);
/* The receive WQE @dq would use next (-1: none), and taking it. */
int hm_rwqe_peek(struct hm_qp *dq, struct hm_rwqe *r);
void hm_rwqe_take(struct hm_qp *dq, const struct hm_rwqe *r);
/* The segments after the control segment; -1: malformed. */
int hm_wqe_parse(struct hm_qp *q, const uint8_t *w, struct hm_wqe *x);
int hm_local_segs_ok(struct hm_qp *q, const struct hm_wqe *x, uint32_t acc);

/* hermon_model_raw.c: is @q a raw Ethernet QP; run its WQE as a frame. */
bool hm_raw_qp(const struct hm_qp *q);
void hm_raw_exec(struct hm_qp *q, struct hm_wqe *x, uint8_t *synd);

/* hermon_model_sqp.c: an MLX WQE of QP0/QP1 (@x parsed); *synd the error. */
void hm_mlx_exec(struct hm_qp *q, struct hm_wqe *x, uint8_t *synd);

/* A RoCE (v1 or v2) UD datagram as the receiving port decodes it. */
struct hm_roce_pkt {
	uint8_t version;             /* 1 or 2 */
	uint8_t ipv;                 /* v2: 4 or 6 */
	uint16_t sport;              /* v2: the UDP source port */
	uint8_t grh[HM_GRH];         /* the 40 bytes the receiver gets first */
	uint8_t dgid[16];            /* where it goes (v2 IPv4: ::ffff:daddr) */
	uint32_t dqpn, sqpn, qkey;
	bool se;
};
int hm_roce_decode(const uint8_t *h, uint32_t hlen, uint32_t plen, bool v2_ok,
		   struct hm_roce_pkt *p);
/* The QPN a datagram to wire QPN @dqpn reaches on port @port of @m. */
uint32_t hm_sqp_dest(struct hermon_model *m, uint8_t port, uint32_t dqpn);

#endif /* HERMON_MODEL_EXEC_H */
