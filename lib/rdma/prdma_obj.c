/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Object memory and protection domains. */

#include <string.h>

#include <rte_malloc.h>

#include "prdma_private.h"

/* Called with dev->lock held. */
void *
prdma__obj_alloc(struct prdma_dev *dev, size_t size, const char *what)
{
	void *obj = rte_zmalloc_socket(what, size, RTE_CACHE_LINE_SIZE,
				       dev->socket_id);

	if (obj == NULL) {
		PRDMA_LOG(ERR, "%s: cannot allocate %zu bytes for a %s",
			  dev->name, size, what);
		rte_errno = ENOMEM;
		return NULL;
	}
	dev->objects++;
	return obj;
}

/* Called with dev->lock held. */
void
prdma__obj_free(struct prdma_dev *dev, void *obj)
{
	dev->objects--;
	rte_free(obj);
}

struct prdma_pd *
prdma_pd_alloc(struct prdma_dev *dev)
{
	static uint32_t pd_seq;
	struct prdma_pd *pd;
	int ret;

	if (dev == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&dev->lock);
	pd = prdma__obj_alloc(dev, dev->obj_size.pd, "prdma_pd");
	if (pd == NULL)
		goto out;
	pd->dev = dev;
	pd->pd_num = ++pd_seq;
	ret = dev->ops->pd_alloc != NULL ? dev->ops->pd_alloc(pd) : 0;
	if (ret < 0) {
		prdma__obj_free(dev, pd);
		pd = NULL;
		rte_errno = -ret;
	}
out:
	pthread_mutex_unlock(&dev->lock);
	return pd;
}

int
prdma_pd_free(struct prdma_pd *pd)
{
	struct prdma_dev *dev;
	int ret = 0;

	if (pd == NULL)
		return prdma_err(EINVAL);
	dev = pd->dev;
	pthread_mutex_lock(&dev->lock);
	if (pd->users != 0) {
		PRDMA_LOG(ERR, "%s: PD %u still has %u object(s)", dev->name,
			  pd->pd_num, pd->users);
		ret = -EBUSY;
	} else if (dev->ops->pd_free != NULL) {
		ret = dev->ops->pd_free(pd);
	}
	if (ret == 0)
		prdma__obj_free(dev, pd);
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}
