/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Counters: the provider supplies the wire-level ones; the library keeps
 * those it sees itself (connection manager, CQ error events) and overlays
 * them, so NDK's set is complete whatever the provider.
 */

#include <string.h>

#include "prdma_private.h"

/* Counters the library owns, whatever the provider says. */
#define LIB_OWNED (RTE_BIT64(PRDMA_DEV_CNT_CONNECT) | RTE_BIT64(PRDMA_DEV_CNT_ACCEPT) | \
		   RTE_BIT64(PRDMA_DEV_CNT_CONNECT_FAILURE) | \
		   RTE_BIT64(PRDMA_DEV_CNT_CONNECTION_ERROR) | \
		   RTE_BIT64(PRDMA_DEV_CNT_ACTIVE_CONNECTION) | \
		   RTE_BIT64(PRDMA_DEV_CNT_CQ_ERROR))

const char *
prdma_dev_counter_name(enum prdma_dev_counter c)
{
#define NAME_(e, n, d) [PRDMA_DEV_CNT_##e] = n,
	static const char *const names[] = { PRDMA_DEV_COUNTER_LIST(NAME_) };
#undef NAME_
	return (unsigned int)c < RTE_DIM(names) ? names[c] : NULL;
}

const char *
prdma_qp_counter_name(enum prdma_qp_counter c)
{
#define NAME_(e, n, d) [PRDMA_QP_CNT_##e] = n,
	static const char *const names[] = { PRDMA_QP_COUNTER_LIST(NAME_) };
#undef NAME_
	return (unsigned int)c < RTE_DIM(names) ? names[c] : NULL;
}

int
prdma_dev_counters_get(struct prdma_dev *dev, struct prdma_dev_counters *c)
{
	unsigned int i;
	int ret = 0;

	if (dev == NULL || c == NULL)
		return prdma_err(EINVAL);
	memset(c, 0, sizeof(*c));
	if (dev->ops->dev_counters_get != NULL)
		ret = dev->ops->dev_counters_get(dev, c);
	else
		c->missing_mask = RTE_LEN2MASK(PRDMA_DEV_CNT_MAX, uint64_t);
	if (ret < 0)
		return prdma_err(-ret);
	for (i = 0; i < PRDMA_DEV_CNT_MAX; i++) {
		if (!(LIB_OWNED & RTE_BIT64(i)))
			continue;
		c->value[i] = __atomic_load_n(&dev->lib_cnt[i], __ATOMIC_RELAXED);
		c->missing_mask &= ~RTE_BIT64(i);
	}
	return 0;
}

int
prdma_dev_counters_reset(struct prdma_dev *dev)
{
	unsigned int i;
	int ret = 0;

	if (dev == NULL)
		return prdma_err(EINVAL);
	if (dev->ops->dev_counters_reset != NULL)
		ret = dev->ops->dev_counters_reset(dev);
	for (i = 0; i < PRDMA_DEV_CNT_MAX; i++)
		if ((LIB_OWNED & RTE_BIT64(i)) && i != PRDMA_DEV_CNT_ACTIVE_CONNECTION)
			__atomic_store_n(&dev->lib_cnt[i], 0, __ATOMIC_RELAXED);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_qp_counters_get(struct prdma_qp *qp, struct prdma_qp_counters *c)
{
	int ret;

	if (!prdma__obj_live(qp, PRDMA__OBJ_QP) || c == NULL)
		return prdma_err(EINVAL);
	memset(c, 0, sizeof(*c));
	if (qp->dev->ops->qp_counters_get == NULL) {
		c->missing_mask = RTE_LEN2MASK(PRDMA_QP_CNT_MAX, uint64_t);
		return 0;
	}
	ret = qp->dev->ops->qp_counters_get(qp, c);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_qp_counters_reset(struct prdma_qp *qp)
{
	int ret;

	if (!prdma__obj_live(qp, PRDMA__OBJ_QP))
		return prdma_err(EINVAL);
	if (qp->dev->ops->qp_counters_reset == NULL)
		return 0;
	ret = qp->dev->ops->qp_counters_reset(qp);
	return ret < 0 ? prdma_err(-ret) : 0;
}

void
prdma_dev_counter_add(struct prdma_dev *dev, enum prdma_dev_counter c, int64_t delta)
{
	__atomic_fetch_add(&dev->lib_cnt[c], (uint64_t)delta, __ATOMIC_RELAXED);
}
