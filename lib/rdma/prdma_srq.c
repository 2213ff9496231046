/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Shared receive queues. */

#include "prdma_private.h"

struct prdma_srq *
prdma_srq_create(struct prdma_pd *pd, struct prdma_srq_init_attr *attr)
{
	struct prdma_dev_attr dattr;
	struct prdma_dev *dev;
	struct prdma_srq *srq;
	int ret;

	if (!prdma__obj_live(pd, PRDMA__OBJ_PD) || attr == NULL || attr->comp_mask != 0 ||
	    attr->attr.max_wr == 0 || attr->attr.max_sge == 0 ||
	    attr->attr.srq_limit > attr->attr.max_wr) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = pd->dev;
	pthread_mutex_lock(&dev->lock);
	if (prdma__dev_attr(dev, &dattr) == 0 &&
	    ((dattr.max_srq_wr != 0 && attr->attr.max_wr > dattr.max_srq_wr) ||
	     (dattr.max_srq_sge != 0 && attr->attr.max_sge > dattr.max_srq_sge))) {
		PRDMA_LOG(ERR, "%s: SRQ of %u WRs x %u SGEs above the limits %u x %u",
			  dev->name, attr->attr.max_wr, attr->attr.max_sge,
			  dattr.max_srq_wr, dattr.max_srq_sge);
		pthread_mutex_unlock(&dev->lock);
		rte_errno = EINVAL;
		return NULL;
	}
	srq = prdma__obj_alloc(dev, dev->obj_size.srq, "prdma_srq", PRDMA__OBJ_SRQ);
	if (srq == NULL)
		goto out;
	srq->dev_id = dev->dev_id;
	srq->dev = dev;
	srq->pd = pd;
	srq->srq_context = attr->srq_context;
	ret = dev->ops->srq_create(srq, attr);
	if (ret < 0) {
		prdma__obj_free(dev, srq);
		srq = NULL;
		rte_errno = -ret;
		goto out;
	}
	pd->users++;
out:
	pthread_mutex_unlock(&dev->lock);
	return srq;
}

int
prdma_srq_modify(struct prdma_srq *srq, const struct prdma_srq_attr *attr,
		 uint32_t mask)
{
	struct prdma_dev *dev;
	int ret;

	if (!prdma__obj_live(srq, PRDMA__OBJ_SRQ) || attr == NULL || mask == 0 ||
	    (mask & ~(PRDMA_SRQ_MAX_WR | PRDMA_SRQ_LIMIT)) != 0 ||
	    ((mask & PRDMA_SRQ_MAX_WR) && attr->max_wr == 0))
		return prdma_err(EINVAL);
	dev = srq->dev;
	pthread_mutex_lock(&dev->lock);
	ret = dev->ops->srq_modify(srq, attr, mask);
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_srq_query(struct prdma_srq *srq, struct prdma_srq_attr *attr)
{
	struct prdma_dev *dev;
	int ret;

	if (!prdma__obj_live(srq, PRDMA__OBJ_SRQ) || attr == NULL)
		return prdma_err(EINVAL);
	dev = srq->dev;
	pthread_mutex_lock(&dev->lock);
	ret = dev->ops->srq_query(srq, attr);
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_srq_destroy(struct prdma_srq *srq)
{
	struct prdma_dev *dev;
	int ret;

	if (prdma__obj_check(srq, PRDMA__OBJ_SRQ) < 0)
		return -EINVAL;
	dev = srq->dev;
	pthread_mutex_lock(&dev->lock);
	/* Again under the lock: another thread's destroy may have won. */
	if (!prdma__obj_live(srq, PRDMA__OBJ_SRQ)) {
		pthread_mutex_unlock(&dev->lock);
		return prdma_err(EINVAL);
	}
	if (srq->users != 0) {
		pthread_mutex_unlock(&dev->lock);
		PRDMA_LOG(ERR, "%s: SRQ %u still used by %u QP(s)", dev->name,
			  srq->srq_num, srq->users);
		return prdma_err(EBUSY);
	}
	ret = dev->ops->srq_destroy(srq);
	if (ret == 0) {
		srq->pd->users--;
		prdma__obj_free(dev, srq);
	}
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}
