/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Memory regions and memory windows. */

#include <string.h>

#include <rte_memory.h>

#include "prdma_private.h"

/* One memseg list must hold the whole range, with every page present. */
bool
prdma_mem_is_dma(const void *addr, size_t len)
{
	const struct rte_memseg_list *msl;
	uintptr_t start = (uintptr_t)addr, end, pg;

	if (addr == NULL || len == 0 || start + len < start)
		return false;
	end = start + len - 1;
	msl = rte_mem_virt2memseg_list(addr);
	if (msl == NULL || msl != rte_mem_virt2memseg_list((void *)end) ||
	    msl->page_sz == 0)
		return false;
	for (pg = RTE_ALIGN_FLOOR(start, msl->page_sz); pg <= end;
	     pg += msl->page_sz) {
		if (rte_mem_virt2memseg((void *)pg, msl) == NULL)
			return false;
		if (pg + msl->page_sz < pg)
			break;
	}
	return true;
}

static int
access_valid(uint32_t access)
{
	if ((access & ~PRDMA_ACCESS_ALL) != 0)
		return 0;
	/* Remote write and remote atomic imply that the HCA writes locally. */
	if ((access & (PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & PRDMA_ACCESS_LOCAL_WRITE))
		return 0;
	return 1;
}

static struct prdma_mr *
mr_create(struct prdma_pd *pd, void *addr, uint64_t length, uint32_t access,
	  uint32_t flags)
{
	struct prdma_dev *dev = pd->dev;
	struct prdma_mr *mr;
	int ret;

	pthread_mutex_lock(&dev->lock);
	mr = prdma__obj_alloc(dev, dev->obj_size.mr, "prdma_mr", PRDMA__OBJ_MR);
	if (mr == NULL)
		goto out;
	mr->dev = dev;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->access = access;
	mr->flags = flags;
	ret = dev->ops->mr_reg(mr);
	if (ret < 0) {
		prdma__obj_free(dev, mr);
		mr = NULL;
		rte_errno = -ret;
		goto out;
	}
	pd->users++;
out:
	pthread_mutex_unlock(&dev->lock);
	return mr;
}

struct prdma_mr *
prdma_mr_reg(struct prdma_pd *pd, void *addr, size_t length, uint32_t access)
{
	struct prdma_dev_attr attr;

	if (!prdma__obj_live(pd, PRDMA__OBJ_PD) || addr == NULL || length == 0 || !access_valid(access)) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (prdma__dev_attr(pd->dev, &attr) == 0 && attr.max_mr_size != 0 &&
	    length > attr.max_mr_size) {
		PRDMA_LOG(ERR, "%s: MR of %zu bytes exceeds max_mr_size %" PRIu64,
			  pd->dev->name, length, attr.max_mr_size);
		rte_errno = EINVAL;
		return NULL;
	}
	if (!prdma_mem_is_dma(addr, length)) {
		PRDMA_LOG(ERR, "%s: cannot register %p+%zu: not DPDK memory "
			  "(use rte_malloc, a memzone, a mempool or rte_extmem_register)",
			  pd->dev->name, addr, length);
		rte_errno = EINVAL;
		return NULL;
	}
	return mr_create(pd, addr, length, access, 0);
}

struct prdma_mr *
prdma_mr_get_dma(struct prdma_pd *pd, uint32_t access)
{
	if (!prdma__obj_live(pd, PRDMA__OBJ_PD) || (access & ~PRDMA_ACCESS_LOCAL_WRITE) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	return mr_create(pd, NULL, UINT64_MAX, access, PRDMA_MR_F_DMA);
}

int
prdma_mr_dereg(struct prdma_mr *mr)
{
	struct prdma_dev *dev;
	int ret;

	if (prdma__obj_check(mr, PRDMA__OBJ_MR) < 0)
		return -EINVAL;
	dev = mr->dev;
	pthread_mutex_lock(&dev->lock);
	/* Again under the lock: another thread's dereg may have won. */
	ret = prdma__obj_live(mr, PRDMA__OBJ_MR) ? dev->ops->mr_dereg(mr) : -EINVAL;
	if (ret == 0) {
		mr->pd->users--;
		prdma__obj_free(dev, mr);
	}
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

struct prdma_mw *
prdma_mw_alloc(struct prdma_pd *pd, enum prdma_mw_type type)
{
	struct prdma_dev *dev;
	struct prdma_mw *mw;
	int ret;

	if (!prdma__obj_live(pd, PRDMA__OBJ_PD) || (type != PRDMA_MW_TYPE_1 && type != PRDMA_MW_TYPE_2)) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = pd->dev;
	pthread_mutex_lock(&dev->lock);
	mw = prdma__obj_alloc(dev, dev->obj_size.mw, "prdma_mw", PRDMA__OBJ_MW);
	if (mw == NULL)
		goto out;
	mw->dev = dev;
	mw->pd = pd;
	mw->type = type;
	ret = dev->ops->mw_alloc(mw);
	if (ret < 0) {
		prdma__obj_free(dev, mw);
		mw = NULL;
		rte_errno = -ret;
		goto out;
	}
	pd->users++;
out:
	pthread_mutex_unlock(&dev->lock);
	return mw;
}

int
prdma_mw_dealloc(struct prdma_mw *mw)
{
	struct prdma_dev *dev;
	int ret;

	if (prdma__obj_check(mw, PRDMA__OBJ_MW) < 0)
		return -EINVAL;
	dev = mw->dev;
	pthread_mutex_lock(&dev->lock);
	ret = prdma__obj_live(mw, PRDMA__OBJ_MW) ? dev->ops->mw_dealloc(mw) : -EINVAL;
	if (ret == 0) {
		mw->pd->users--;
		prdma__obj_free(dev, mw);
	}
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_mw_bind(struct prdma_qp *qp, struct prdma_mw *mw,
	      const struct prdma_mw_bind_info *info, uint64_t wr_id,
	      uint32_t send_flags)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	uint32_t rkey;
	int ret;

	if (!prdma__obj_live(qp, PRDMA__OBJ_QP) || !prdma__obj_live(mw, PRDMA__OBJ_MW) || info == NULL ||
	    (info->mr != NULL && !prdma__obj_live(info->mr, PRDMA__OBJ_MR)) || mw->type != PRDMA_MW_TYPE_1 ||
	    mw->pd != qp->pd || (info->length != 0 && info->mr == NULL) ||
	    (info->access & ~(PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_WRITE |
			      PRDMA_ACCESS_REMOTE_ATOMIC)) != 0 ||
	    (send_flags & ~(PRDMA_SEND_SIGNALED | PRDMA_SEND_FENCE)) != 0)
		return prdma_err(EINVAL);
	/* A new key byte on every bind, so stale rkeys stop working. */
	rkey = (mw->rkey & ~0xffu) | ((mw->rkey + 1) & 0xffu);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = PRDMA_WR_BIND_MW;
	wr.send_flags = send_flags;
	wr.wr.bind_mw.mw = mw;
	wr.wr.bind_mw.rkey = rkey;
	wr.wr.bind_mw.mr = info->mr;
	wr.wr.bind_mw.addr = info->addr;
	wr.wr.bind_mw.length = info->length;
	wr.wr.bind_mw.access = info->access;
	ret = prdma_post_send(qp, &wr, &bad);
	if (ret < 0)
		return prdma_err(-ret);
	mw->rkey = rkey;
	return 0;
}
