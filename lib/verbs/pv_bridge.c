/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* The private contract with lib/rdmacm (prdma_verbs_bridge.h). */

#include <errno.h>

#include <rte_errno.h>

#include "pv_private.h"
#include "prdma_verbs_bridge.h"

static void *
bad(void)
{
	errno = EINVAL;
	rte_errno = EINVAL;
	return NULL;
}

static struct pv_context *
ctx_of(struct ibv_context *c)
{
	if (c == NULL || c->abi_compat != __VERBS_ABI_IS_EXTENDED ||
	    pv_ctx(c)->magic != PV_MAGIC_CTX)
		return NULL;
	return pv_ctx(c);
}

struct prdma_dev *
prdma_verbs_context_dev(struct ibv_context *c)
{
	struct pv_context *ctx = ctx_of(c);

	return ctx != NULL ? ctx->dev : bad();
}

struct ibv_context *
prdma_verbs_context_get(struct prdma_dev *dev)
{
	struct ibv_context *c;
	int ret;

	if (dev == NULL)
		return bad();
	ret = prdma_verbs_init();
	if (ret < 0)
		return NULL;
	c = pv_shared_context_get(prdma_dev_id(dev));
	if (c == NULL)
		rte_errno = errno;
	return c;
}

void
prdma_verbs_context_put(struct ibv_context *c)
{
	if (ctx_of(c) != NULL)
		pv_shared_context_put(c);
}

struct prdma_pd *
prdma_verbs_pd(struct ibv_pd *ibpd)
{
	struct pv_pd *pd = container_of(ibpd, struct pv_pd, pd);

	return ibpd != NULL && pd->magic == PV_MAGIC_PD ? pd->ppd : bad();
}

struct prdma_cq *
prdma_verbs_cq(struct ibv_cq *ibcq)
{
	struct pv_cq *cq = container_of(ibcq, struct pv_cq, cq);

	return ibcq != NULL && cq->magic == PV_MAGIC_CQ ? cq->pcq : bad();
}

struct prdma_srq *
prdma_verbs_srq(struct ibv_srq *ibsrq)
{
	struct pv_srq *srq = container_of(ibsrq, struct pv_srq, srq);

	return ibsrq != NULL && srq->magic == PV_MAGIC_SRQ ? srq->psrq : bad();
}

struct prdma_qp *
prdma_verbs_qp(struct ibv_qp *ibqp)
{
	return ibqp != NULL && pv_qp(ibqp)->magic == PV_MAGIC_QP ? pv_qp(ibqp)->pqp : bad();
}

void
prdma_verbs_qp_sync_state(struct ibv_qp *ibqp)
{
	if (ibqp != NULL && pv_qp(ibqp)->magic == PV_MAGIC_QP)
		ibqp->state = (enum ibv_qp_state)pv_qp(ibqp)->pqp->state;
}
