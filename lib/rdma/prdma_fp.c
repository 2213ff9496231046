/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The fast-path table. Each slot points at dummies until a provider's probe
 * installs its functions, and again after the device is removed, so that a
 * stale handle gives an error instead of a jump through NULL.
 */

#include <string.h>

#include "prdma_private.h"

struct prdma_fp_ops prdma_fp_ops[PRDMA_MAX_DEVS];

int
prdma_fp_dummy_post_send(struct prdma_qp *qp, const struct prdma_send_wr *wr,
			 const struct prdma_send_wr **bad_wr)
{
	RTE_SET_USED(qp);
	*bad_wr = wr;
	rte_errno = ENODEV;
	return -ENODEV;
}

/*
 * The burst for a provider without its own: each request through the
 * device's post_send, alone (a copy without its chain), so that a failure
 * names the array element. A removed device's post_send is the dummy, so
 * this also fails with ENODEV then.
 */
int
prdma_fp_generic_post_send_burst(struct prdma_qp *qp, const struct prdma_send_wr *wr,
				 uint16_t nb, const struct prdma_send_wr **bad_wr)
{
	prdma_post_send_t post = prdma_fp_ops[qp->dev_id].post_send;
	const struct prdma_send_wr *bad;
	struct prdma_send_wr one;
	uint16_t i;
	int ret;

	for (i = 0; i < nb; i++) {
		one = wr[i];
		one.next = NULL;
		ret = post(qp, &one, &bad);
		if (unlikely(ret != 0)) {
			*bad_wr = &wr[i];
			return ret;
		}
	}
	return 0;
}

int
prdma_fp_dummy_post_recv(struct prdma_qp *qp, const struct prdma_recv_wr *wr,
			 const struct prdma_recv_wr **bad_wr)
{
	RTE_SET_USED(qp);
	*bad_wr = wr;
	rte_errno = ENODEV;
	return -ENODEV;
}

int
prdma_fp_dummy_post_srq_recv(struct prdma_srq *srq, const struct prdma_recv_wr *wr,
			     const struct prdma_recv_wr **bad_wr)
{
	RTE_SET_USED(srq);
	*bad_wr = wr;
	rte_errno = ENODEV;
	return -ENODEV;
}

int
prdma_fp_dummy_poll_cq(struct prdma_cq *cq, uint16_t nb, struct prdma_wc *wc)
{
	RTE_SET_USED(cq);
	RTE_SET_USED(nb);
	RTE_SET_USED(wc);
	rte_errno = ENODEV;
	return 0;
}

int
prdma_fp_dummy_peek_cq(struct prdma_cq *cq)
{
	RTE_SET_USED(cq);
	rte_errno = ENODEV;
	return 0;
}

void
prdma_fp_reset(struct prdma_fp_ops *fp)
{
	memset(fp, 0, sizeof(*fp));
	fp->post_send = prdma_fp_dummy_post_send;
	fp->post_recv = prdma_fp_dummy_post_recv;
	fp->post_srq_recv = prdma_fp_dummy_post_srq_recv;
	fp->poll_cq = prdma_fp_dummy_poll_cq;
	fp->peek_cq = prdma_fp_dummy_peek_cq;
	fp->post_send_burst = prdma_fp_generic_post_send_burst;
}

void
prdma_fp_install(uint16_t dev_id, const struct prdma_fp_ops *fp)
{
	struct prdma_fp_ops *slot = &prdma_fp_ops[dev_id];

	prdma_fp_reset(slot);
	/* A provider may leave entries it does not support NULL. */
	if (fp->post_send != NULL)
		slot->post_send = fp->post_send;
	if (fp->post_recv != NULL)
		slot->post_recv = fp->post_recv;
	if (fp->post_srq_recv != NULL)
		slot->post_srq_recv = fp->post_srq_recv;
	if (fp->poll_cq != NULL)
		slot->poll_cq = fp->poll_cq;
	if (fp->peek_cq != NULL)
		slot->peek_cq = fp->peek_cq;
	if (fp->post_send_burst != NULL)
		slot->post_send_burst = fp->post_send_burst;
}

RTE_INIT(prdma_fp_init)
{
	unsigned int i;

	for (i = 0; i < PRDMA_MAX_DEVS; i++)
		prdma_fp_reset(&prdma_fp_ops[i]);
}
