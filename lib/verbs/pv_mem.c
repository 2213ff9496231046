/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Protection domains and memory regions. Verbs programs register ordinary
 * process memory (malloc, memalign, the stack); prdma registers DPDK
 * memory. The pages of such a range are made DPDK memory first with
 * rte_extmem_register (the soft provider works on virtual addresses, so
 * no IOVA is needed); a range registered twice shares one extmem region.
 * Verbs lets MRs overlap in any way (two malloc'd buffers often share a
 * page), but DPDK memseg lists cannot overlap, grow or split: a range that
 * overlaps registered regions without fitting in one replaces them with
 * one region over their union, and the regions it replaced forward their
 * references to it.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/queue.h>

#include <rte_errno.h>
#include <rte_memory.h>
#include <rte_tailq.h>

#include "pv_private.h"

#undef ibv_reg_mr
#undef ibv_reg_mr_iova

struct pv_extmem {
	TAILQ_ENTRY(pv_extmem) next;
	uintptr_t start;
	size_t len;
	unsigned int refs;        /* MRs on it, and on the regions it replaced */
	struct pv_extmem *into;   /* the region that replaced it, or NULL (listed) */
};

static TAILQ_HEAD(, pv_extmem) pv_extmems = TAILQ_HEAD_INITIALIZER(pv_extmems);
static pthread_mutex_t pv_mem_lock = PTHREAD_MUTEX_INITIALIZER;

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *c)
{
	struct pv_pd *pd;

	if (c == NULL || pv_ctx(c)->magic != PV_MAGIC_CTX) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ppd = prdma_pd_alloc(pv_ctx(c)->dev);
	if (pd->ppd == NULL) {
		errno = rte_errno != 0 ? rte_errno : ENOMEM;
		free(pd);
		return NULL;
	}
	pd->pd.context = c;
	pd->magic = PV_MAGIC_PD;
	return &pd->pd;
}

int
ibv_dealloc_pd(struct ibv_pd *ibpd)
{
	struct pv_pd *pd = container_of(ibpd, struct pv_pd, pd);
	int ret;

	if (ibpd == NULL || pd->magic != PV_MAGIC_PD)
		return EINVAL;
	ret = prdma_pd_free(pd->ppd);
	if (ret < 0)
		return -ret; /* EBUSY while objects use it */
	pd->magic = 0;
	free(pd);
	return 0;
}

/*
 * Replace the listed regions that overlap [s, e) with one region over
 * their union and the range (lock held); *out is the new region, with one
 * reference for the caller. The old regions stay as forwarders while MRs
 * hold them. Between the unregistrations and the registration a lookup of
 * those pages finds no memseg list: the soft provider's zero-copy transmit
 * then copies that frame, and nothing else looks pages up after an MR is
 * registered.
 */
static int
extmem_merge(uintptr_t s, uintptr_t e, size_t pg, struct pv_extmem **out)
{
	TAILQ_HEAD(, pv_extmem) gone = TAILQ_HEAD_INITIALIZER(gone);
	struct pv_extmem *x, *t, *n;
	unsigned int refs = 0;
	bool grew = true;
	int err;

	/* The union may reach further regions: repeat until it stops growing. */
	while (grew) {
		grew = false;
		TAILQ_FOREACH(x, &pv_extmems, next) {
			if (s < x->start + x->len && e > x->start &&
			    (x->start < s || x->start + x->len > e)) {
				s = RTE_MIN(s, x->start);
				e = RTE_MAX(e, x->start + x->len);
				grew = true;
			}
		}
	}
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return ENOMEM;
	RTE_TAILQ_FOREACH_SAFE(x, &pv_extmems, next, t) {
		if (x->start >= s && x->start + x->len <= e) {
			TAILQ_REMOVE(&pv_extmems, x, next);
			rte_extmem_unregister((void *)x->start, x->len);
			TAILQ_INSERT_TAIL(&gone, x, next);
			refs += x->refs;
		}
	}
	if (rte_extmem_register((void *)s, e - s, NULL, 0, pg) == 0) {
		TAILQ_FOREACH(x, &gone, next)
			x->into = n;
		n->start = s;
		n->len = e - s;
		n->refs = refs + 1;
		TAILQ_INSERT_TAIL(&pv_extmems, n, next);
		*out = n;
		return 0;
	}
	err = rte_errno;
	RTE_LOG(ERR, USER1, "prdma verbs: cannot register %#" PRIxPTR "+%zu: %s\n",
		s, (size_t)(e - s), rte_strerror(err));
	/* Put back what was there: each of those was registered before. */
	RTE_TAILQ_FOREACH_SAFE(x, &gone, next, t) {
		TAILQ_REMOVE(&gone, x, next);
		if (rte_extmem_register((void *)x->start, x->len, NULL, 0, pg) != 0)
			RTE_LOG(ERR, USER1, "prdma verbs: cannot restore %#" PRIxPTR
				"+%zu: %s\n", x->start, x->len, rte_strerror(rte_errno));
		TAILQ_INSERT_TAIL(&pv_extmems, x, next);
	}
	free(n);
	return err == ENOSPC ? ENOMEM : (err != 0 ? err : EINVAL);
}

/* Make [addr, addr+len) DPDK memory; NULL when it already is. */
static int
extmem_get(void *addr, size_t len, struct pv_extmem **out)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t s = RTE_ALIGN_FLOOR((uintptr_t)addr, pg);
	uintptr_t e = RTE_ALIGN_CEIL((uintptr_t)addr + len, pg);
	struct pv_extmem *x;
	int ret = 0;

	*out = NULL;
	pthread_mutex_lock(&pv_mem_lock);
	TAILQ_FOREACH(x, &pv_extmems, next) {
		if (s >= x->start && e <= x->start + x->len) {
			x->refs++;
			*out = x;
			goto out;
		}
		if (s < x->start + x->len && e > x->start) {
			ret = extmem_merge(s, e, pg, out);
			goto out;
		}
	}
	if (rte_mem_virt2memseg_list(addr) != NULL &&
	    rte_mem_virt2memseg_list((void *)((uintptr_t)addr + len - 1)) ==
	    rte_mem_virt2memseg_list(addr))
		goto out; /* DPDK memory already */
	x = calloc(1, sizeof(*x));
	if (x == NULL) {
		ret = ENOMEM;
		goto out;
	}
	if (rte_extmem_register((void *)s, e - s, NULL, 0, pg) != 0) {
		ret = rte_errno == ENOSPC ? ENOMEM : (rte_errno != 0 ? rte_errno : EINVAL);
		RTE_LOG(ERR, USER1, "prdma verbs: cannot register %p+%zu: %s\n", addr, len,
			rte_strerror(rte_errno));
		free(x);
		goto out;
	}
	x->start = s;
	x->len = e - s;
	x->refs = 1;
	TAILQ_INSERT_TAIL(&pv_extmems, x, next);
	*out = x;
out:
	pthread_mutex_unlock(&pv_mem_lock);
	return ret;
}

/* Drop an MR's reference: on its region and on each one that replaced it. */
static void
extmem_put(struct pv_extmem *x)
{
	struct pv_extmem *into;

	pthread_mutex_lock(&pv_mem_lock);
	for (; x != NULL; x = into) {
		into = x->into;
		if (--x->refs != 0)
			continue;
		if (into == NULL) {
			TAILQ_REMOVE(&pv_extmems, x, next);
			rte_extmem_unregister((void *)x->start, x->len);
		}
		free(x);
	}
	pthread_mutex_unlock(&pv_mem_lock);
}

#define PV_ACCESS_KNOWN (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
			 IBV_ACCESS_MW_BIND)

struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *ibpd, void *addr, size_t length, uint64_t iova,
		 unsigned int access)
{
	struct pv_pd *pd = container_of(ibpd, struct pv_pd, pd);
	struct pv_mr *mr;
	int ret;

	if (ibpd == NULL || pd->magic != PV_MAGIC_PD || addr == NULL || length == 0) {
		errno = EINVAL;
		return NULL;
	}
	/* prdma keys address by virtual address: the iova must be it. */
	if (iova != (uintptr_t)addr) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* Optional flags may be ignored (verbs.h's IBV_ACCESS_OPTIONAL_RANGE). */
	access &= ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	if (access & ~PV_ACCESS_KNOWN) {
		errno = EINVAL;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ret = extmem_get(addr, length, &mr->ext);
	if (ret != 0) {
		free(mr);
		errno = ret;
		return NULL;
	}
	/* The IBV_ACCESS_* bits of these five are prdma's PRDMA_ACCESS_*. */
	mr->pmr = prdma_mr_reg(pd->ppd, addr, length, access);
	if (mr->pmr == NULL) {
		errno = rte_errno != 0 ? rte_errno : EINVAL;
		extmem_put(mr->ext);
		free(mr);
		return NULL;
	}
	mr->magic = PV_MAGIC_MR;
	mr->mr.context = ibpd->context;
	mr->mr.pd = ibpd;
	mr->mr.addr = addr;
	mr->mr.length = length;
	mr->mr.lkey = mr->pmr->lkey;
	mr->mr.rkey = mr->pmr->rkey;
	mr->mr.handle = mr->pmr->lkey;
	return &mr->mr;
}

struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

int
ibv_dereg_mr(struct ibv_mr *ibmr)
{
	struct pv_mr *mr = container_of(ibmr, struct pv_mr, mr);
	int ret;

	if (ibmr == NULL || mr->magic != PV_MAGIC_MR)
		return EINVAL;
	ret = prdma_mr_dereg(mr->pmr);
	if (ret < 0)
		return -ret;
	extmem_put(mr->ext);
	mr->magic = 0;
	free(mr);
	return 0;
}

int
ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length,
	     int access)
{
	RTE_SET_USED(mr);
	RTE_SET_USED(flags);
	RTE_SET_USED(pd);
	RTE_SET_USED(addr);
	RTE_SET_USED(length);
	RTE_SET_USED(access);
	errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_INPUT;
}

/* No fork protection is needed: no page is pinned by a kernel. */
int
ibv_fork_init(void)
{
	return 0;
}

enum ibv_fork_status
ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

int
ibv_dontfork_range(void *base, size_t size)
{
	RTE_SET_USED(base);
	RTE_SET_USED(size);
	return 0;
}

int
ibv_dofork_range(void *base, size_t size)
{
	RTE_SET_USED(base);
	RTE_SET_USED(size);
	return 0;
}
