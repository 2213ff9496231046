/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Memory keys: one table per device for MRs and MWs. A key is
 * (slot << 8) | key byte, the InfiniBand layout, so that rebinding a window
 * changes only its key byte. The key byte is random and never the one the
 * slot handed out last, and slots are taken round-robin, so a stale key
 * does not come back soon.
 */

#include <errno.h>
#include <string.h>

#include <rte_memory.h>

#include "roce.h"

static int
key_alloc(struct roce_dev *dev, uint8_t kind)
{
	uint32_t i, slot;
	uint8_t b;

	for (i = 0; i < ROCE_MAX_KEYS - 1; i++) {
		slot = dev->key_next;
		dev->key_next = dev->key_next + 1 >= ROCE_MAX_KEYS ? 1 : dev->key_next + 1;
		if (dev->keys[slot].kind == ROCE_KEY_FREE) {
			struct roce_key *k = &dev->keys[slot];
			uint8_t last = k->last_byte;
			uint32_t gen = k->gen;
			uint32_t life = k->life;

			memset(k, 0, sizeof(*k));
			k->gen = gen + 1;
			k->life = life + 1;
			do {
				b = (uint8_t)prdma_random32();
			} while (b == last);
			k->last_byte = b;
			k->key = slot << 8 | b;
			k->kind = kind;
			return (int)slot;
		}
	}
	return -ENOSPC;
}

int
roce_mr_reg(struct prdma_mr *pmr)
{
	struct roce_mr *mr = (struct roce_mr *)pmr;
	struct roce_dev *dev = roce_dev_of(pmr->dev);
	struct roce_key *k;
	int slot;

	if (dev->nb_mr >= ROCE_MAX_MR)
		return -ENOSPC;
	roce_engine_lock(dev);
	slot = key_alloc(dev, ROCE_KEY_MR);
	if (slot < 0) {
		roce_engine_unlock(dev);
		return slot;
	}
	k = &dev->keys[slot];
	k->valid = 1;
	k->dma = !!(pmr->flags & PRDMA_MR_F_DMA);
	k->access = pmr->access;
	k->pd = pmr->pd;
	k->addr = (uintptr_t)pmr->addr;
	k->length = pmr->length;
	k->mr = pmr;
	mr->slot = (uint32_t)slot;
	pmr->lkey = k->key;
	pmr->rkey = (pmr->access & (PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_WRITE |
				    PRDMA_ACCESS_REMOTE_ATOMIC)) ? k->key : 0;
	dev->nb_mr++;
	roce_engine_unlock(dev);
	return 0;
}

int
roce_mr_dereg(struct prdma_mr *pmr)
{
	struct roce_mr *mr = (struct roce_mr *)pmr;
	struct roce_dev *dev = roce_dev_of(pmr->dev);
	struct roce_key *k = &dev->keys[mr->slot];

	/*
	 * The port may still read the region through zero-copy frames (sent
	 * by WQEs not yet completed, or READ responses): wait for them a
	 * moment, stepping the engine, then refuse.
	 */
	if (roce_zc_wait(dev, roce_zc_key_held, mr->slot) < 0) {
		ROCE_LOG(ERR, "%s: MR 0x%x: %u zero-copy frame(s) from it still held by the "
			 "port", pmr->dev->name, pmr->lkey, roce_zc_key_held(dev, mr->slot));
		return -EBUSY;
	}
	roce_engine_lock(dev);
	if (k->binds != 0) {
		roce_engine_unlock(dev);
		ROCE_LOG(ERR, "%s: MR 0x%x has %u memory window(s) bound",
			 pmr->dev->name, pmr->lkey, k->binds);
		return -EBUSY;
	}
	k->kind = ROCE_KEY_FREE;
	k->valid = 0;
	k->gen++;  /* a WRITE in progress through it stops here */
	dev->nb_mr--;
	roce_engine_unlock(dev);
	return 0;
}

int
roce_mw_alloc(struct prdma_mw *pmw)
{
	struct roce_mw *mw = (struct roce_mw *)pmw;
	struct roce_dev *dev = roce_dev_of(pmw->dev);
	int slot;

	if (dev->nb_mw >= ROCE_MAX_MW)
		return -ENOSPC;
	roce_engine_lock(dev);
	slot = key_alloc(dev, ROCE_KEY_MW);
	if (slot < 0) {
		roce_engine_unlock(dev);
		return slot;
	}
	dev->keys[slot].pd = pmw->pd;
	dev->keys[slot].mw = pmw;
	mw->slot = (uint32_t)slot;
	pmw->rkey = dev->keys[slot].key;
	dev->nb_mw++;
	roce_engine_unlock(dev);
	return 0;
}

static void
mw_unbind(struct roce_dev *dev, struct roce_key *k)
{
	struct roce_key *mrk;

	if (k->valid && k->mr != NULL) {
		mrk = &dev->keys[((struct roce_mr *)k->mr)->slot];
		if (mrk->binds > 0)
			mrk->binds--;
	}
	k->valid = 0;
	k->mr = NULL;
	k->length = 0;
	k->gen++;  /* a WRITE in progress through it stops here */
}

int
roce_mw_dealloc(struct prdma_mw *pmw)
{
	struct roce_mw *mw = (struct roce_mw *)pmw;
	struct roce_dev *dev = roce_dev_of(pmw->dev);
	struct roce_key *k = &dev->keys[mw->slot];

	roce_engine_lock(dev);
	mw_unbind(dev, k);
	k->kind = ROCE_KEY_FREE;
	k->gen++;
	dev->nb_mw--;
	roce_engine_unlock(dev);
	return 0;
}

/* The DMA MR accepts any range inside one DPDK memory segment list. */
static int
dma_range_ok(uint64_t va, uint64_t len)
{
	const struct rte_memseg_list *msl;

	if (len == 0)
		return 1;
	if (va + len < va)
		return 0;
	msl = rte_mem_virt2memseg_list((void *)(uintptr_t)va);
	return msl != NULL &&
		msl == rte_mem_virt2memseg_list((void *)(uintptr_t)(va + len - 1));
}

int
roce_key_check(struct roce_dev *dev, uint32_t key, struct prdma_pd *pd,
	       uint32_t qpn, uint64_t va, uint64_t len, uint32_t access,
	       int remote, struct roce_key **out)
{
	struct roce_key *k = roce_key_get(dev, key);

	if (k == NULL || !k->valid)
		return -EACCES;
	if (k->pd != pd)
		return -EPERM;
	if (remote) {
		if (k->dma)
			return -EACCES;
		if (k->kind == ROCE_KEY_MR && key != k->mr->rkey)
			return -EACCES;
		if (k->kind == ROCE_KEY_MW && k->mw->type == PRDMA_MW_TYPE_2 &&
		    k->mw_qpn != qpn)
			return -EACCES;
	} else if (k->kind != ROCE_KEY_MR) {
		return -EACCES; /* a window is never an lkey */
	}
	if ((k->access & access) != access)
		return -EACCES;
	if (k->dma)
		return dma_range_ok(va, len) ? 0 : -EACCES;
	if (len != 0 && (va < k->addr || va + len < va ||
			 va + len > k->addr + k->length))
		return -EACCES;
	if (out != NULL)
		*out = k;
	return 0;
}

int
roce_key_invalidate(struct roce_dev *dev, uint32_t key, struct prdma_pd *pd,
		    uint32_t qpn)
{
	struct roce_key *k = roce_key_get(dev, key);

	if (k == NULL || k->pd != pd || k->dma)
		return -EINVAL;
	if (k->kind == ROCE_KEY_MW) {
		/* Type 1 windows are unbound by a bind, not invalidated. */
		if (k->mw->type != PRDMA_MW_TYPE_2 || !k->valid || k->mw_qpn != qpn)
			return -EINVAL;
		mw_unbind(dev, k);
		return 0;
	}
	if (!k->valid)
		return -EINVAL;
	k->valid = 0;
	k->gen++;
	return 0;
}

int
roce_key_invalidate_remote(struct roce_dev *dev, uint32_t key, struct prdma_pd *pd,
			   uint32_t qpn)
{
	struct roce_key *k = roce_key_get(dev, key);

	/* A region from prdma_mr_reg is the owner's to revoke, not a peer's. */
	if (k == NULL || k->kind != ROCE_KEY_MW)
		return -EINVAL;
	return roce_key_invalidate(dev, key, pd, qpn);
}

int
roce_mw_bind_exec(struct roce_qp *qp, const struct roce_swqe *w)
{
	struct roce_dev *dev = qp->rdev;
	struct roce_mw *mw = (struct roce_mw *)w->mw;
	uint32_t slot = w->bind_rkey >> 8;
	struct roce_key *k, *mrk;
	struct prdma_mr *mr = w->mr;

	/* The window may have been freed since the bind was posted, and
	 * another made in its memory and slot: find it through the key table
	 * (the new rkey names its slot) and require the slot's life the post
	 * saw, before reading the object. */
	if (mw == NULL || slot == 0 || slot >= ROCE_MAX_KEYS)
		return PRDMA_WC_MW_BIND_ERR;
	k = &dev->keys[slot];
	if (k->kind != ROCE_KEY_MW || k->mw != &mw->base || k->life != w->imm_inv ||
	    mw->base.pd != qp->base.pd || slot != mw->slot)
		return PRDMA_WC_MW_BIND_ERR;
	if (mw->base.type == PRDMA_MW_TYPE_2 && k->valid)
		return PRDMA_WC_MW_BIND_ERR; /* invalidate it first */
	if (w->bind_len == 0) {
		if (mw->base.type == PRDMA_MW_TYPE_2)
			return PRDMA_WC_MW_BIND_ERR;
		mw_unbind(dev, k);
		k->key = w->bind_rkey;
		mw->base.rkey = k->key;
		return PRDMA_WC_SUCCESS;
	}
	/* Likewise the MR: found by the key the post recorded (post_send),
	 * never read unless this device's key table still holds it. */
	mrk = mr != NULL ? roce_key_get(dev, w->rkey) : NULL;
	if (mrk == NULL || mrk->kind != ROCE_KEY_MR || mrk->mr != mr || mrk->dma || !mrk->valid ||
	    !(mrk->access & PRDMA_ACCESS_MW_BIND) || mr->pd != qp->base.pd)
		return PRDMA_WC_MW_BIND_ERR;
	if (w->bind_addr < mrk->addr || w->bind_addr + w->bind_len < w->bind_addr ||
	    w->bind_addr + w->bind_len > mrk->addr + mrk->length)
		return PRDMA_WC_MW_BIND_ERR;
	if ((w->bind_access & ~(PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_WRITE |
				PRDMA_ACCESS_REMOTE_ATOMIC)) != 0)
		return PRDMA_WC_MW_BIND_ERR;
	/* Remote write or atomic through a window needs local write on the MR. */
	if ((w->bind_access & (PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_ATOMIC)) &&
	    !(mrk->access & PRDMA_ACCESS_LOCAL_WRITE))
		return PRDMA_WC_MW_BIND_ERR;
	mw_unbind(dev, k);
	k->key = w->bind_rkey;
	k->addr = w->bind_addr;
	k->length = w->bind_len;
	k->access = w->bind_access;
	k->mr = mr;
	k->mw_qpn = qp->base.qp_num;
	k->valid = 1;
	mrk->binds++;
	mw->base.rkey = k->key;
	return PRDMA_WC_SUCCESS;
}

/* Walk SGEs from byte @off for @len bytes; copy with @dir (0 out, 1 in). */
static int
sge_copy(struct roce_dev *dev, struct prdma_pd *pd, const struct prdma_sge *sge,
	 uint32_t nsge, uint32_t off, uint8_t *buf, uint32_t len, int in)
{
	uint32_t i, n;

	for (i = 0; i < nsge && len > 0; i++) {
		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = RTE_MIN(sge[i].length - off, len);
		if (roce_key_check(dev, sge[i].lkey, pd, 0, sge[i].addr + off, n,
				   in ? PRDMA_ACCESS_LOCAL_WRITE : 0, 0, NULL) < 0)
			return -EACCES;
		if (in)
			memcpy((void *)(uintptr_t)(sge[i].addr + off), buf, n);
		else
			memcpy(buf, (const void *)(uintptr_t)(sge[i].addr + off), n);
		buf += n;
		len -= n;
		off = 0;
	}
	return len == 0 ? 0 : -EMSGSIZE;
}

int
roce_sge_copy_out(struct roce_dev *dev, struct prdma_pd *pd,
		  const struct prdma_sge *sge, uint32_t nsge, uint32_t off,
		  uint8_t *dst, uint32_t len)
{
	return sge_copy(dev, pd, sge, nsge, off, dst, len, 0);
}

int
roce_sge_copy_in(struct roce_dev *dev, struct prdma_pd *pd,
		 const struct prdma_sge *sge, uint32_t nsge, uint32_t off,
		 const uint8_t *src, uint32_t len)
{
	return sge_copy(dev, pd, sge, nsge, off, (uint8_t *)(uintptr_t)src, len, 1);
}
