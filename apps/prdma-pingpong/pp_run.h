/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PP_RUN_H
#define PP_RUN_H

#include "pp.h"

#define PP_MAX_QP (PP_SRQ_MSGS - 1)   /* srq_pingpong: num_qp < MAX_QP */

struct pp_ctx {
	const struct pp_opts *o;
	int dev_id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_srq *srq;
	struct prdma_qp *qp[PP_MAX_QP];
	int pending[PP_MAX_QP];
	uint32_t nqp;
	struct prdma_ah *ah;          /* UD: to the peer's QP */
	uint32_t peer_qpn;
	uint8_t *buf;
	struct prdma_mr *mr;
	uint8_t port_mtu;
	uint16_t lid;
	double usec;
};

int pp_ctx_open(struct pp_ctx *c, const struct pp_opts *o);
int pp_ctx_close(struct pp_ctx *c);
int pp_post_recv(struct pp_ctx *c, uint32_t n);
void pp_my_dests(struct pp_ctx *c, struct pp_dest *mine);
int pp_connect(struct pp_ctx *c, const struct pp_dest *mine, const struct pp_dest *peer);
/* The ping-pong; @p routs receives are posted. */
int pp_run(struct pp_ctx *c, int routs);
int pp_check(const struct pp_ctx *c);

#endif /* PP_RUN_H */
