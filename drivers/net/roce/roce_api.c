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
	struct roce_engine *eng;
	unsigned int d, k;
	uint16_t e;

	if (dev == NULL)
		return -ENODEV;
	if (st == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	roce_engine_lock(dev);
	*st = dev->xst;
	memset(st->fault, 0, sizeof(st->fault));
	st->cnp_sent = 0;
	st->cnp_received = 0;
	st->ce_received = 0;
	st->rate_cuts = 0;
	st->rate_increases = 0;
	st->handed_over = 0;
	st->handoff_drops = 0;
	st->zc_frames = 0;
	st->tlp_probes = 0;
	st->tlp_acked = 0;
	st->acks_held = 0;
	/* Each engine counts its own: the device's figures are the sums. */
	for (e = 0; e < dev->nb_eng; e++) {
		eng = &dev->eng[e];
		for (d = 0; d < PRDMA_ROCE_FAULT_DIR_NB; d++)
			for (k = 0; k < PRDMA_ROCE_FAULT_KIND_NB; k++)
				st->fault[d][k] += eng->fault[d].hits[k];
		st->cnp_sent += eng->st.dev[PRDMA_DEV_CNT_CNP_SENT];
		st->ce_received += eng->cc_st.ce_received;
		st->rate_cuts += eng->cc_st.rate_cuts;
		st->rate_increases += eng->cc_st.rate_increases;
		st->handed_over += eng->handed_out;
		st->handoff_drops += eng->handoff_drops;
		st->zc_frames += eng->zc_frames;
		st->tlp_probes += eng->tlp_probes;
		st->tlp_acked += eng->tlp_acked;
		st->acks_held += eng->acks_held;
		st->cnp_received += eng->st.dev[PRDMA_DEV_CNT_CNP_RECEIVED];
	}
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
