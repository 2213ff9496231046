/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Object memory and protection domains. */

#include <string.h>

#include <rte_malloc.h>

#include "prdma_private.h"

/*
 * Called with dev->lock held. The handle is one cache line past the start
 * of the allocation; the line before it holds the marker.
 */
void *
prdma__obj_alloc(struct prdma_dev *dev, size_t size, const char *what,
		 enum prdma__obj_kind kind)
{
	struct prdma__obj_hdr *h = rte_zmalloc_socket(what, sizeof(*h) + size,
						      RTE_CACHE_LINE_SIZE, dev->socket_id);

	if (h == NULL) {
		PRDMA_LOG(ERR, "%s: cannot allocate %zu bytes for a %s",
			  dev->name, size, what);
		rte_errno = ENOMEM;
		return NULL;
	}
	h->kind = kind;
	h->magic = PRDMA__OBJ_MAGIC(kind);
	dev->objects++;
	return h + 1;
}

/* Called with dev->lock held. */
void
prdma__obj_free(struct prdma_dev *dev, void *obj)
{
	struct prdma__obj_hdr *h = (struct prdma__obj_hdr *)obj - 1;

	/*
	 * Cleared before the memory goes back: a later call on this handle
	 * sees a dead marker unless the memory has been handed out again
	 * (doc/security.md, "Stale handles").
	 */
	__atomic_store_n(&h->magic, 0, __ATOMIC_RELEASE);
	dev->objects--;
	rte_free(h);
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
	pd = prdma__obj_alloc(dev, dev->obj_size.pd, "prdma_pd", PRDMA__OBJ_PD);
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

	if (prdma__obj_check(pd, PRDMA__OBJ_PD) < 0)
		return -EINVAL;
	dev = pd->dev;
	pthread_mutex_lock(&dev->lock);
	if (!prdma__obj_live(pd, PRDMA__OBJ_PD)) {
		ret = -EINVAL;  /* freed by another thread meanwhile */
	} else if (pd->users != 0) {
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
