/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Object memory and protection domains. */

#include <string.h>

#include <rte_malloc.h>

#include "prdma_private.h"

/*
 * Object memory is type-stable per device: a destroyed object's block goes
 * to the device's cache for its kind, not back to DPDK's heap, and the next
 * create of that kind takes the most recently freed block. A destroyed
 * handle therefore always points at memory the library owns, so checking
 * its marker is an ordinary read, never a use after free (and an ASan
 * build sees a clean read of the header while the object body stays
 * poisoned). The caches are freed when the device is removed. Their size
 * is the peak number of live objects of each kind.
 */
#if defined(__SANITIZE_ADDRESS__)
#define PRDMA_OBJ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PRDMA_OBJ_ASAN 1
#endif
#endif

#ifdef PRDMA_OBJ_ASAN
#include <sanitizer/asan_interface.h>
#define OBJ_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define OBJ_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define OBJ_POISON(p, n) do { (void)(p); (void)(n); } while (0)
#define OBJ_UNPOISON(p, n) do { (void)(p); (void)(n); } while (0)
#endif

/*
 * Called with dev->lock held. The handle is one cache line past the start
 * of the allocation; the line before it holds the marker. Every object of
 * a kind on a device has the same size (dev->obj_size).
 */
void *
prdma__obj_alloc(struct prdma_dev *dev, size_t size, const char *what,
		 enum prdma__obj_kind kind)
{
	struct prdma__obj_hdr *h = dev->obj_cache[kind];

	if (h != NULL) {
		dev->obj_cache[kind] = h->next_free;
		OBJ_UNPOISON(h + 1, size);
		memset(h + 1, 0, size);
	} else {
		h = rte_zmalloc_socket(what, sizeof(*h) + size, RTE_CACHE_LINE_SIZE,
				       dev->socket_id);
	}
	if (h == NULL) {
		PRDMA_LOG(ERR, "%s: cannot allocate %zu bytes for a %s",
			  dev->name, size, what);
		rte_errno = ENOMEM;
		return NULL;
	}
	h->kind = kind;
	h->next_free = NULL;
	h->magic = PRDMA__OBJ_MAGIC(kind);
	dev->objects++;
	return h + 1;
}

static size_t
obj_size_of(const struct prdma_dev *dev, uint32_t kind)
{
	switch (kind) {
	case PRDMA__OBJ_PD: return dev->obj_size.pd;
	case PRDMA__OBJ_MR: return dev->obj_size.mr;
	case PRDMA__OBJ_MW: return dev->obj_size.mw;
	case PRDMA__OBJ_CQ: return dev->obj_size.cq;
	case PRDMA__OBJ_SRQ: return dev->obj_size.srq;
	case PRDMA__OBJ_QP: return dev->obj_size.qp;
	case PRDMA__OBJ_AH: return dev->obj_size.ah;
	case PRDMA__OBJ_TMPL: return sizeof(struct prdma_wr_tmpl);
	default: return 0;
	}
}

/* Called with dev->lock held. */
void
prdma__obj_free(struct prdma_dev *dev, void *obj)
{
	struct prdma__obj_hdr *h = (struct prdma__obj_hdr *)obj - 1;
	uint32_t kind = h->kind;

	/* Cleared first: a later call on this handle sees a dead marker
	 * until the block is handed to a new object of the same kind
	 * (doc/security.md, "Stale handles"). */
	__atomic_store_n(&h->magic, 0, __ATOMIC_RELEASE);
	dev->objects--;
	if (kind == 0 || kind >= PRDMA__OBJ_KINDS) {
		rte_free(h);
		return;
	}
	OBJ_POISON(obj, obj_size_of(dev, kind));
	h->next_free = dev->obj_cache[kind];
	dev->obj_cache[kind] = h;
}

/* At device removal: the dead objects' memory goes back to DPDK. */
void
prdma__obj_cache_free(struct prdma_dev *dev)
{
	struct prdma__obj_hdr *h;
	uint32_t k;

	for (k = 0; k < PRDMA__OBJ_KINDS; k++) {
		while ((h = dev->obj_cache[k]) != NULL) {
			dev->obj_cache[k] = h->next_free;
			OBJ_UNPOISON(h + 1, obj_size_of(dev, k));
			rte_free(h);
		}
	}
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
