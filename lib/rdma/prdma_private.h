/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PRDMA_PRIVATE_H
#define PRDMA_PRIVATE_H

/* Library-internal declarations (not installed). */

#include <errno.h>

#include <rte_errno.h>

#include "prdma_provider.h"

/* Set rte_errno to the positive @err and return its negation. */
static inline int
prdma_err(int err)
{
	rte_errno = err;
	return -err;
}

/* prdma_fp.c */
void prdma_fp_reset(struct prdma_fp_ops *fp);
void prdma_fp_install(uint16_t dev_id, const struct prdma_fp_ops *fp);

/* prdma_ops.c: validate the provider's ops and fill the gaps. */
int prdma_ops_complete(struct prdma_dev *dev);

/* prdma_dev.c: the device's capabilities, without the control lock. */
int prdma__dev_attr(struct prdma_dev *dev, struct prdma_dev_attr *attr);

/*
 * prdma_obj.c: allocate an object of the provider's size, zeroed, with its
 * validity marker set; free it, marker cleared first.
 */
void *prdma__obj_alloc(struct prdma_dev *dev, size_t size, const char *what,
		       enum prdma__obj_kind kind);
void prdma__obj_free(struct prdma_dev *dev, void *obj);
void prdma__obj_cache_free(struct prdma_dev *dev);

/*
 * A handle passed to the public API: EINVAL (rte_errno too) unless it is a
 * live object of @kind. Used before and again under the device lock.
 */
static inline int
prdma__obj_check(const void *obj, enum prdma__obj_kind kind)
{
	return prdma__obj_live(obj, kind) ? 0 : prdma_err(EINVAL);
}

/* prdma_tmpl.c: at QP destroy (device lock held), unbind its templates. */
void prdma__tmpl_unbind_all(struct prdma_qp *qp);

#endif /* PRDMA_PRIVATE_H */
