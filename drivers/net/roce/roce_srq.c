/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Receive queues (a QP's own or a shared one): SPSC rings of receive WQEs. */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "roce.h"

int
roce_rq_init(struct roce_rq *rq, uint32_t nb, uint32_t max_sge, int socket)
{
	uint32_t n = rte_align32pow2(nb < 1 ? 1 : nb);

	rq->wqe = rte_zmalloc_socket("roce_rq", sizeof(struct roce_rwqe) * n,
				     RTE_CACHE_LINE_SIZE, socket);
	if (rq->wqe == NULL)
		return -ENOMEM;
	rq->mask = n - 1;
	rq->max_sge = max_sge;
	rq->head = 0;
	rq->tail = 0;
	return 0;
}

void
roce_rq_fini(struct roce_rq *rq)
{
	rte_free(rq->wqe);
	rq->wqe = NULL;
}

int
roce_rq_post(struct roce_rq *rq, const struct prdma_recv_wr *wr,
	     const struct prdma_recv_wr **bad_wr)
{
	uint32_t head = rq->head, tail, i;
	struct roce_rwqe *w;

	/* acquire: the engine finished reading the slots it released */
	tail = __atomic_load_n(&rq->tail, __ATOMIC_ACQUIRE);
	for (; wr != NULL; wr = wr->next) {
		if (unlikely(wr->num_sge > rq->max_sge ||
			     (wr->num_sge != 0 && wr->sg_list == NULL))) {
			*bad_wr = wr;
			rte_errno = EINVAL;
			goto out_err;
		}
		if (unlikely(head - tail > rq->mask)) {
			*bad_wr = wr;
			rte_errno = ENOMEM;
			goto out_err;
		}
		w = &rq->wqe[head & rq->mask];
		w->wr_id = wr->wr_id;
		w->num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++)
			w->sge[i] = wr->sg_list[i];
		head++;
	}
	/* release: the WQEs are written before the engine sees them */
	__atomic_store_n(&rq->head, head, __ATOMIC_RELEASE);
	return 0;
out_err:
	__atomic_store_n(&rq->head, head, __ATOMIC_RELEASE);
	return -rte_errno;
}

int
roce_srq_create(struct prdma_srq *psrq, struct prdma_srq_init_attr *attr)
{
	struct roce_srq *srq = (struct roce_srq *)psrq;
	struct roce_dev *dev = roce_dev_of(psrq->dev);
	int ret;

	if (dev->nb_srq >= ROCE_MAX_SRQ)
		return -ENOSPC;
	ret = roce_rq_init(&srq->rq, attr->attr.max_wr, attr->attr.max_sge,
			   psrq->dev->socket_id);
	if (ret < 0)
		return ret;
	srq->max_wr = srq->rq.mask + 1;
	srq->limit = attr->attr.srq_limit;
	/* one consumer: bound to the engine of its first QP (roce_qp.c) */
	srq->eng = dev->nb_eng == 1 ? 0 : -1;
	attr->attr.max_wr = srq->max_wr;
	psrq->srq_num = prdma_random32() & 0xffffff;
	dev->nb_srq++;
	return 0;
}

int
roce_srq_modify(struct prdma_srq *psrq, const struct prdma_srq_attr *attr,
		uint32_t mask)
{
	struct roce_srq *srq = (struct roce_srq *)psrq;
	struct roce_dev *dev = roce_dev_of(psrq->dev);
	struct roce_rq nrq;
	uint32_t queued, i;
	int ret;

	if ((mask & PRDMA_SRQ_LIMIT) && attr->srq_limit > srq->max_wr &&
	    !(mask & PRDMA_SRQ_MAX_WR))
		return -EINVAL;
	if (mask & PRDMA_SRQ_MAX_WR) {
		if (attr->max_wr > ROCE_MAX_SRQ_WR)
			return -EINVAL;
		ret = roce_rq_init(&nrq, attr->max_wr, srq->rq.max_sge,
				   psrq->dev->socket_id);
		if (ret < 0)
			return ret;
		roce_engine_lock(dev);
		queued = srq->rq.head - srq->rq.tail;
		if (queued > nrq.mask + 1) {
			roce_engine_unlock(dev);
			roce_rq_fini(&nrq);
			return -EINVAL;
		}
		for (i = 0; i < queued; i++)
			nrq.wqe[i] = srq->rq.wqe[(srq->rq.tail + i) & srq->rq.mask];
		nrq.head = queued;
		roce_rq_fini(&srq->rq);
		srq->rq = nrq;
		srq->max_wr = nrq.mask + 1;
		roce_engine_unlock(dev);
	}
	if (mask & PRDMA_SRQ_LIMIT) {
		if (attr->srq_limit > srq->max_wr)
			return -EINVAL;
		__atomic_store_n(&srq->limit, attr->srq_limit, __ATOMIC_RELEASE);
	}
	return 0;
}

int
roce_srq_query(struct prdma_srq *psrq, struct prdma_srq_attr *attr)
{
	struct roce_srq *srq = (struct roce_srq *)psrq;

	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = __atomic_load_n(&srq->limit, __ATOMIC_ACQUIRE);
	return 0;
}

int
roce_srq_destroy(struct prdma_srq *psrq)
{
	struct roce_srq *srq = (struct roce_srq *)psrq;

	roce_dev_of(psrq->dev)->nb_srq--;
	roce_rq_fini(&srq->rq);
	return 0;
}

int
roce_post_srq_recv(struct prdma_srq *psrq, const struct prdma_recv_wr *wr,
		   const struct prdma_recv_wr **bad_wr)
{
	struct roce_srq *srq = (struct roce_srq *)psrq;

	return roce_rq_post(&srq->rq, wr, bad_wr);
}

struct roce_rwqe *
roce_recv_take(struct roce_qp *qp)
{
	struct roce_rq *rq = qp->srq != NULL ? &qp->srq->rq : &qp->rq;
	uint32_t head, tail = rq->tail;
	struct roce_rwqe *w;

	/* acquire: pairs with the poster's release of head */
	head = __atomic_load_n(&rq->head, __ATOMIC_ACQUIRE);
	if (head == tail)
		return NULL;
	qp->cur_rwqe = rq->wqe[tail & rq->mask];
	w = &qp->cur_rwqe;
	/* release: our copy is taken before the poster reuses the slot */
	__atomic_store_n(&rq->tail, tail + 1, __ATOMIC_RELEASE);
	if (qp->srq != NULL) {
		struct roce_srq *srq = qp->srq;
		uint32_t limit = __atomic_load_n(&srq->limit, __ATOMIC_ACQUIRE);

		if (limit != 0 && head - (tail + 1) < limit) {
			struct prdma_async_event ev;

			__atomic_store_n(&srq->limit, 0, __ATOMIC_RELEASE);
			memset(&ev, 0, sizeof(ev));
			ev.type = PRDMA_EVENT_SRQ_LIMIT_REACHED;
			ev.element.srq = &srq->base;
			prdma_dev_raise_event(srq->base.dev, &ev);
		}
	}
	return w;
}
