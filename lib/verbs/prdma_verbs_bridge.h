/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The private contract between prdma's libibverbs-compatible library
 * (lib/verbs) and its librdmacm-compatible library (lib/rdmacm).
 *
 * The rdmacm library runs prdma's CM (prdma_cm.h), which works on prdma
 * objects, while the programs it serves hold libibverbs objects made by
 * lib/verbs. These calls translate between the two. They are exported by
 * the compat libibverbs.so.1 under the version node PRDMA_VERBS_PRIVATE,
 * so nothing but lib/rdmacm may rely on them; none of them is a verbs
 * symbol and no verbs program sees them.
 *
 * Every call returns NULL (rte_errno/errno EINVAL) when handed an object
 * this library did not make, so a mismatched pair of libraries fails
 * cleanly instead of misreading memory.
 */

#ifndef PRDMA_VERBS_BRIDGE_H
#define PRDMA_VERBS_BRIDGE_H

#include <infiniband/verbs.h>

#include <prdma.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Start EAL and probe prdma's devices once per process, from the
 * environment / config file (doc/guides/verbs.md); later calls return the
 * first call's result. Thread safe. 0 or a negative errno.
 */
int prdma_verbs_init(void);

/* The prdma device behind a verbs context. */
struct prdma_dev *prdma_verbs_context_dev(struct ibv_context *ctx);

/*
 * A verbs context for a prdma device (the CM resolves an address to a
 * prdma device; rdma_cm_id.verbs must be a context of this library).
 * The context is shared and reference counted per device; release it with
 * prdma_verbs_context_put(). NULL on failure.
 */
struct ibv_context *prdma_verbs_context_get(struct prdma_dev *dev);
void prdma_verbs_context_put(struct ibv_context *ctx);

/* The prdma objects behind verbs objects made by this library. */
struct prdma_pd *prdma_verbs_pd(struct ibv_pd *pd);
struct prdma_cq *prdma_verbs_cq(struct ibv_cq *cq);
struct prdma_srq *prdma_verbs_srq(struct ibv_srq *srq);
struct prdma_qp *prdma_verbs_qp(struct ibv_qp *qp);

/*
 * Tell the verbs QP that the CM moved its prdma QP to a new state, so
 * ibv_query_qp() and the verbs qp->state agree with it.
 */
void prdma_verbs_qp_sync_state(struct ibv_qp *qp);

#ifdef __cplusplus
}
#endif

#endif /* PRDMA_VERBS_BRIDGE_H */
