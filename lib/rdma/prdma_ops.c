/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Default control ops: a provider leaves NULL what it does not support and
 * the library fills the gap with functions that return -ENOTSUP, so no
 * caller ever checks for NULL (rdma-core's dummy_ops idea).
 */

#include "prdma_private.h"

static int
unsup_modify(struct prdma_dev *d, uint32_t m, const struct prdma_dev_modify_attr *a)
{ RTE_SET_USED(d); RTE_SET_USED(m); RTE_SET_USED(a); return -ENOTSUP; }
static int
unsup_port_modify(struct prdma_dev *d, uint8_t p, uint32_t s, uint32_t c)
{ RTE_SET_USED(d); RTE_SET_USED(p); RTE_SET_USED(s); RTE_SET_USED(c); return -ENOTSUP; }
static int
unsup_mr(struct prdma_mr *mr)
{ RTE_SET_USED(mr); return -ENOTSUP; }
static int
unsup_mw(struct prdma_mw *mw)
{ RTE_SET_USED(mw); return -ENOTSUP; }
static int
unsup_cq_create(struct prdma_cq *cq, const struct prdma_cq_init_attr *a)
{ RTE_SET_USED(cq); RTE_SET_USED(a); return -ENOTSUP; }
static int
unsup_cq(struct prdma_cq *cq)
{ RTE_SET_USED(cq); return -ENOTSUP; }
static int
unsup_cq_resize(struct prdma_cq *cq, uint32_t n)
{ RTE_SET_USED(cq); RTE_SET_USED(n); return -ENOTSUP; }
static int
unsup_cq_arm(struct prdma_cq *cq, enum prdma_cq_arm_flags f, uint32_t n)
{ RTE_SET_USED(cq); RTE_SET_USED(f); RTE_SET_USED(n); return -ENOTSUP; }
static int
unsup_srq_create(struct prdma_srq *srq, struct prdma_srq_init_attr *a)
{ RTE_SET_USED(srq); RTE_SET_USED(a); return -ENOTSUP; }
static int
unsup_srq_modify(struct prdma_srq *srq, const struct prdma_srq_attr *a, uint32_t m)
{ RTE_SET_USED(srq); RTE_SET_USED(a); RTE_SET_USED(m); return -ENOTSUP; }
static int
unsup_srq_query(struct prdma_srq *srq, struct prdma_srq_attr *a)
{ RTE_SET_USED(srq); RTE_SET_USED(a); return -ENOTSUP; }
static int
unsup_srq(struct prdma_srq *srq)
{ RTE_SET_USED(srq); return -ENOTSUP; }
static int
unsup_qp_create(struct prdma_qp *qp, struct prdma_qp_init_attr *a)
{ RTE_SET_USED(qp); RTE_SET_USED(a); return -ENOTSUP; }
static int
unsup_qp_modify(struct prdma_qp *qp, const struct prdma_qp_attr *a, uint32_t m)
{ RTE_SET_USED(qp); RTE_SET_USED(a); RTE_SET_USED(m); return -ENOTSUP; }
static int
unsup_qp_query(struct prdma_qp *qp, struct prdma_qp_attr *a)
{ RTE_SET_USED(qp); RTE_SET_USED(a); return -ENOTSUP; }
static int
unsup_qp(struct prdma_qp *qp)
{ RTE_SET_USED(qp); return -ENOTSUP; }
static int
unsup_mcast(struct prdma_qp *qp, const union prdma_gid *gid)
{ RTE_SET_USED(qp); RTE_SET_USED(gid); return -ENOTSUP; }
static int
unsup_ah(struct prdma_ah *ah)
{ RTE_SET_USED(ah); return -ENOTSUP; }
static int
unsup_ah_modify(struct prdma_ah *ah, const struct prdma_ah_attr *a)
{ RTE_SET_USED(ah); RTE_SET_USED(a); return -ENOTSUP; }

static int unsup_tmpl(struct prdma_qp *qp, struct prdma_wr_tmpl *t)
{ RTE_SET_USED(qp); RTE_SET_USED(t); return -ENOTSUP; }

#define FILL(field, fn) do { if (o->field == NULL) o->field = fn; } while (0)

int
prdma_ops_complete(struct prdma_dev *dev)
{
	struct prdma_dev_ops *o = &dev->ops_full;

	if (dev->ops == NULL || dev->ops->dev_query == NULL ||
	    dev->ops->port_query == NULL || dev->ops->gid_query == NULL)
		return -EPROTO;
	*o = *dev->ops;
	FILL(dev_modify, unsup_modify);
	FILL(port_modify, unsup_port_modify);
	FILL(mr_reg, unsup_mr);
	FILL(mr_dereg, unsup_mr);
	FILL(mw_alloc, unsup_mw);
	FILL(mw_dealloc, unsup_mw);
	FILL(cq_create, unsup_cq_create);
	FILL(cq_destroy, unsup_cq);
	FILL(cq_resize, unsup_cq_resize);
	FILL(cq_arm, unsup_cq_arm);
	FILL(srq_create, unsup_srq_create);
	FILL(srq_modify, unsup_srq_modify);
	FILL(srq_query, unsup_srq_query);
	FILL(srq_destroy, unsup_srq);
	FILL(qp_create, unsup_qp_create);
	FILL(qp_modify, unsup_qp_modify);
	FILL(qp_query, unsup_qp_query);
	FILL(qp_destroy, unsup_qp);
	FILL(wr_tmpl_create, unsup_tmpl);
	FILL(mcast_attach, unsup_mcast);
	FILL(mcast_detach, unsup_mcast);
	FILL(ah_create, unsup_ah);
	FILL(ah_modify, unsup_ah_modify);
	FILL(ah_destroy, unsup_ah);
	dev->ops = o;
	return 0;
}
