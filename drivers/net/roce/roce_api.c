/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* The provider-specific public functions of prdma_roce.h. */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "roce.h"

struct roce_dev *
roce_dev_checked(struct prdma_dev *pdev)
{
	if (pdev == NULL || pdev->provider == NULL ||
	    strcmp(pdev->provider->name, "roce") != 0 || pdev->priv == NULL) {
		rte_errno = ENODEV;
		return NULL;
	}
	return pdev->priv;
}

int
prdma_roce_fault_set(struct prdma_dev *pdev, enum prdma_roce_fault_dir dir,
		     enum prdma_roce_fault_kind kind, uint32_t rate_ppm, uint64_t seed)
{
	struct roce_dev *dev = roce_dev_checked(pdev);

	if (dev == NULL)
		return -ENODEV;
	if ((unsigned int)dir >= PRDMA_ROCE_FAULT_DIR_NB ||
	    (unsigned int)kind >= PRDMA_ROCE_FAULT_KIND_NB || rate_ppm > 1000000) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	roce_engine_lock(dev);
	roce_fault_config(dev, dir, kind, rate_ppm, seed);
	roce_engine_unlock(dev);
	return 0;
}

int
prdma_roce_fault_delay_set(struct prdma_dev *pdev, enum prdma_roce_fault_dir dir,
			   uint32_t delay_us)
{
	struct roce_dev *dev = roce_dev_checked(pdev);

	if (dev == NULL)
		return -ENODEV;
	if ((unsigned int)dir >= PRDMA_ROCE_FAULT_DIR_NB || delay_us == 0 ||
	    delay_us > 1000000) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	roce_engine_lock(dev);
	roce_fault_delay_config(dev, dir, delay_us);
	roce_engine_unlock(dev);
	return 0;
}

int
prdma_roce_fault_clear(struct prdma_dev *pdev)
{
	struct roce_dev *dev = roce_dev_checked(pdev);
	unsigned int d, k;

	if (dev == NULL)
		return -ENODEV;
	roce_engine_lock(dev);
	for (d = 0; d < PRDMA_ROCE_FAULT_DIR_NB; d++)
		for (k = 0; k < PRDMA_ROCE_FAULT_KIND_NB; k++)
			roce_fault_config(dev, d, k, 0, 0);
	/* Held frames still leave, at their time, from the engine's steps. */
	roce_engine_unlock(dev);
	return 0;
}

int
prdma_roce_stats_get(struct prdma_dev *pdev, struct prdma_roce_stats *st)
{
	struct roce_dev *dev = roce_dev_checked(pdev);
	struct prdma_neigh_stats ns;
	struct roce_stats sum;
	unsigned int d, k, i;

	if (dev == NULL)
		return -ENODEV;
	if (st == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	prdma_neigh_stats_get(&dev->neigh_cache, &ns);
	roce_engine_lock(dev);
	roce_eng_stats(dev, &sum, st);
	st->neigh_learned = ns.learned;
	st->neigh_kernel = ns.external;
	st->neigh_ignored = ns.ignored;
	for (d = 0; d < PRDMA_ROCE_FAULT_DIR_NB; d++)
		for (k = 0; k < PRDMA_ROCE_FAULT_KIND_NB; k++)
			for (i = 0, st->fault[d][k] = 0; i < dev->nb_eng; i++)
				st->fault[d][k] += dev->eng[i].fault[d].hits[k];
	st->cnp_sent = sum.dev[PRDMA_DEV_CNT_CNP_SENT];
	st->cnp_received = sum.dev[PRDMA_DEV_CNT_CNP_RECEIVED];
	st->ack_watch_looks = __atomic_load_n(&dev->ack_watch_looks, __ATOMIC_RELAXED);
	st->ack_watch_steps = __atomic_load_n(&dev->ack_watch_steps, __ATOMIC_RELAXED);
	roce_engine_unlock(dev);
	return 0;
}

int
prdma_roce_qp_rate_get(struct prdma_qp *pqp, uint64_t *mbps)
{
	struct roce_dev *dev;
	struct roce_qp *qp;

	if (!prdma__obj_live(pqp, PRDMA__OBJ_QP) || mbps == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	dev = roce_dev_checked(pqp->dev);
	if (dev == NULL)
		return -ENODEV;
	qp = (struct roce_qp *)pqp;
	roce_engine_lock(dev);
	*mbps = qp->cc.limited ? qp->cc.rc : dev->line_mbps;
	roce_engine_unlock(dev);
	return 0;
}
