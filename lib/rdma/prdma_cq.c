/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Completion queues and their notification file descriptor. */

#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "prdma_private.h"

struct prdma_cq *
prdma_cq_create(struct prdma_dev *dev, const struct prdma_cq_init_attr *attr)
{
	struct prdma_dev_attr dattr;
	struct prdma_cq *cq;
	int ret;

	if (dev == NULL || attr == NULL || attr->comp_mask != 0 || attr->cqe == 0 ||
	    (attr->flags & ~PRDMA_CQ_F_EVENT_FD) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&dev->lock);
	if (prdma__dev_attr(dev, &dattr) == 0 && dattr.max_cqe != 0 &&
	    attr->cqe > dattr.max_cqe) {
		PRDMA_LOG(ERR, "%s: CQ depth %u above max_cqe %u", dev->name,
			  attr->cqe, dattr.max_cqe);
		pthread_mutex_unlock(&dev->lock);
		rte_errno = EINVAL;
		return NULL;
	}
	cq = prdma__obj_alloc(dev, dev->obj_size.cq, "prdma_cq", PRDMA__OBJ_CQ);
	if (cq == NULL)
		goto out;
	cq->dev_id = dev->dev_id;
	cq->dev = dev;
	cq->cq_context = attr->cq_context;
	cq->flags = attr->flags;
	cq->event_fd = -1;
	if (attr->flags & PRDMA_CQ_F_EVENT_FD) {
		cq->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (cq->event_fd < 0) {
			ret = -errno;
			goto err_free;
		}
	}
	ret = dev->ops->cq_create(cq, attr);
	if (ret < 0)
		goto err_fd;
	goto out;

err_fd:
	if (cq->event_fd >= 0)
		close(cq->event_fd);
err_free:
	prdma__obj_free(dev, cq);
	cq = NULL;
	rte_errno = -ret;
out:
	pthread_mutex_unlock(&dev->lock);
	return cq;
}

int
prdma_cq_destroy(struct prdma_cq *cq)
{
	struct prdma_dev *dev;
	int ret;

	if (prdma__obj_check(cq, PRDMA__OBJ_CQ) < 0)
		return -EINVAL;
	dev = cq->dev;
	pthread_mutex_lock(&dev->lock);
	/* Again under the lock: another thread's destroy may have won. */
	if (!prdma__obj_live(cq, PRDMA__OBJ_CQ)) {
		pthread_mutex_unlock(&dev->lock);
		return prdma_err(EINVAL);
	}
	if (cq->users != 0) {
		pthread_mutex_unlock(&dev->lock);
		PRDMA_LOG(ERR, "%s: CQ still used by %u QP(s)", dev->name, cq->users);
		return prdma_err(EBUSY);
	}
	ret = dev->ops->cq_destroy(cq);
	if (ret == 0) {
		if (cq->event_fd >= 0)
			close(cq->event_fd);
		prdma__obj_free(dev, cq);
	}
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_cq_resize(struct prdma_cq *cq, uint32_t cqe)
{
	struct prdma_dev_attr dattr;
	struct prdma_dev *dev;
	int ret;

	if (!prdma__obj_live(cq, PRDMA__OBJ_CQ) || cqe == 0)
		return prdma_err(EINVAL);
	dev = cq->dev;
	pthread_mutex_lock(&dev->lock);
	if (prdma__dev_attr(dev, &dattr) == 0 && dattr.max_cqe != 0 &&
	    cqe > dattr.max_cqe)
		ret = -EINVAL;
	else
		ret = dev->ops->cq_resize(cq, cqe);
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_cq_arm(struct prdma_cq *cq, enum prdma_cq_arm_flags flags)
{
	int ret;

	if (!prdma__obj_live(cq, PRDMA__OBJ_CQ) || (flags != PRDMA_CQ_ARM_NEXT && flags != PRDMA_CQ_ARM_SOLICITED))
		return prdma_err(EINVAL);
	ret = cq->dev->ops->cq_arm(cq, flags, 0);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_cq_arm_n(struct prdma_cq *cq, uint32_t n)
{
	int ret;

	if (!prdma__obj_live(cq, PRDMA__OBJ_CQ) || n == 0 || n > cq->cqe)
		return prdma_err(EINVAL);
	ret = cq->dev->ops->cq_arm(cq, PRDMA_CQ_ARM_NEXT, n);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_cq_event_fd(struct prdma_cq *cq)
{
	if (prdma__obj_check(cq, PRDMA__OBJ_CQ) < 0)
		return -EINVAL;
	if (cq->event_fd < 0)
		return prdma_err(ENOTSUP);
	return cq->event_fd;
}

int
prdma_cq_get_event(struct prdma_cq *cq)
{
	uint64_t n;

	if (prdma__obj_check(cq, PRDMA__OBJ_CQ) < 0)
		return -EINVAL;
	if (cq->event_fd < 0)
		return prdma_err(ENOTSUP);
	if (read(cq->event_fd, &n, sizeof(n)) != sizeof(n))
		return errno == EAGAIN ? 0 : prdma_err(errno);
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

void
prdma_cq_notify(struct prdma_cq *cq)
{
	uint64_t one = 1;

	if (cq->event_fd >= 0 && write(cq->event_fd, &one, sizeof(one)) < 0)
		PRDMA_LOG(DEBUG, "CQ notify: %s", strerror(errno));
}
