/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_MCAST_H
#define HERMON_MCAST_H

/* UD multicast groups of the Hermon PMD: the MCG table through firmware. */

#include <stdint.h>

#include "prdma_provider.h"

struct hermon_dev;

/* Geometry and bookkeeping, from the MCG table INIT_HCA was given. */
int hermon_mcast_init(struct hermon_dev *hd);
void hermon_mcast_fini(struct hermon_dev *hd);
/* max_mcast_grp, max_mcast_qp_attach, max_total_mcast_qp_attach, the flag. */
void hermon_mcast_query(const struct hermon_dev *hd, struct prdma_dev_attr *attr);
int hermon_mcast_attach(struct prdma_qp *qp, const union prdma_gid *gid);
int hermon_mcast_detach(struct prdma_qp *qp, const union prdma_gid *gid);
/* QP @qpn is being destroyed: take it out of every group it is in. */
void hermon_mcast_qp_gone(struct hermon_dev *hd, uint32_t qpn);

#endif /* HERMON_MCAST_H */
