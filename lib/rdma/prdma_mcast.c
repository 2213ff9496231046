/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Multicast: UD QPs attach to and detach from multicast GIDs. */

#include <string.h>

#include "prdma_private.h"

int
prdma_gid_is_multicast(const union prdma_gid *gid)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (gid == NULL)
		return 0;
	if (gid->raw[0] == 0xff)
		return 1;
	return memcmp(gid->raw, v4mapped, sizeof(v4mapped)) == 0 &&
		(gid->raw[12] & 0xf0) == 0xe0;
}

static int
mcast_args_valid(const struct prdma_qp *qp, const union prdma_gid *gid)
{
	return prdma__obj_live(qp, PRDMA__OBJ_QP) && gid != NULL && qp->qp_type == PRDMA_QPT_UD &&
		prdma_gid_is_multicast(gid);
}

typedef int (*mcast_op_t)(struct prdma_qp *qp, const union prdma_gid *gid);

static int
mcast_call(struct prdma_qp *qp, const union prdma_gid *gid, int attach)
{
	struct prdma_dev *dev;
	mcast_op_t op;
	int ret;

	if (!mcast_args_valid(qp, gid))
		return prdma_err(EINVAL);
	dev = qp->dev;
	op = attach ? dev->ops->mcast_attach : dev->ops->mcast_detach;
	pthread_mutex_lock(&dev->lock);
	ret = op(qp, gid);
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_qp_attach_mcast(struct prdma_qp *qp, const union prdma_gid *gid)
{
	return mcast_call(qp, gid, 1);
}

int
prdma_qp_detach_mcast(struct prdma_qp *qp, const union prdma_gid *gid)
{
	return mcast_call(qp, gid, 0);
}
