/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Address handles. */

#include <string.h>

#include "prdma_private.h"

static int
ah_attr_valid(struct prdma_dev *dev, const struct prdma_ah_attr *attr)
{
	struct prdma_dev_attr dattr;

	if (attr->flow_label > 0xfffff ||
	    (attr->flags & ~(PRDMA_AH_F_DMAC | PRDMA_AH_F_NOWAIT | PRDMA_AH_F_GLOBAL)) != 0)
		return 0;
	if (prdma__dev_attr(dev, &dattr) < 0)
		return 0;
	return attr->port_num >= 1 && attr->port_num <= dattr.phys_port_cnt;
}

struct prdma_ah *
prdma_ah_create(struct prdma_pd *pd, const struct prdma_ah_attr *attr)
{
	struct prdma_dev *dev;
	struct prdma_ah *ah;
	int ret;

	if (!prdma__obj_live(pd, PRDMA__OBJ_PD) || attr == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = pd->dev;
	pthread_mutex_lock(&dev->lock);
	if (!ah_attr_valid(dev, attr)) {
		pthread_mutex_unlock(&dev->lock);
		rte_errno = EINVAL;
		return NULL;
	}
	ah = prdma__obj_alloc(dev, dev->obj_size.ah, "prdma_ah", PRDMA__OBJ_AH);
	if (ah == NULL)
		goto out;
	ah->dev = dev;
	ah->pd = pd;
	ah->attr = *attr;
	ret = dev->ops->ah_create(ah);
	if (ret < 0) {
		prdma__obj_free(dev, ah);
		ah = NULL;
		rte_errno = -ret;
		goto out;
	}
	pd->users++;
out:
	pthread_mutex_unlock(&dev->lock);
	return ah;
}

int
prdma_ah_query(struct prdma_ah *ah, struct prdma_ah_attr *attr)
{
	if (!prdma__obj_live(ah, PRDMA__OBJ_AH) || attr == NULL)
		return prdma_err(EINVAL);
	pthread_mutex_lock(&ah->dev->lock);
	*attr = ah->attr;
	pthread_mutex_unlock(&ah->dev->lock);
	return 0;
}

int
prdma_ah_modify(struct prdma_ah *ah, const struct prdma_ah_attr *attr)
{
	struct prdma_dev *dev;
	int ret;

	if (!prdma__obj_live(ah, PRDMA__OBJ_AH) || attr == NULL)
		return prdma_err(EINVAL);
	dev = ah->dev;
	pthread_mutex_lock(&dev->lock);
	if (!ah_attr_valid(dev, attr))
		ret = -EINVAL;
	else
		ret = dev->ops->ah_modify(ah, attr);
	if (ret == 0)
		ah->attr = *attr;
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_ah_destroy(struct prdma_ah *ah)
{
	struct prdma_dev *dev;
	int ret;

	if (prdma__obj_check(ah, PRDMA__OBJ_AH) < 0)
		return -EINVAL;
	dev = ah->dev;
	pthread_mutex_lock(&dev->lock);
	/* Again under the lock: another thread's destroy may have won. */
	ret = prdma__obj_live(ah, PRDMA__OBJ_AH) ? dev->ops->ah_destroy(ah) : -EINVAL;
	if (ret == 0) {
		ah->pd->users--;
		prdma__obj_free(dev, ah);
	}
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}
