/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Queue pairs: create, modify (through the state table), query, destroy. */

#include <string.h>

#include "prdma_private.h"

static int
qp_cap_valid(const struct prdma_dev_attr *d, const struct prdma_qp_init_attr *a)
{
	const struct prdma_qp_cap *c = &a->cap;

	if (c->max_send_wr == 0 && c->max_recv_wr == 0 && a->srq == NULL)
		return 0;
	if (c->max_send_wr > d->max_qp_wr || c->max_recv_wr > d->max_qp_wr)
		return 0;
	if (c->max_send_sge > d->max_send_sge || c->max_recv_sge > d->max_recv_sge)
		return 0;
	if (c->max_inline_data > d->max_inline_data)
		return 0;
	return 1;
}

struct prdma_qp *
prdma_qp_create(struct prdma_pd *pd, struct prdma_qp_init_attr *attr)
{
	struct prdma_dev_attr dattr;
	struct prdma_dev *dev;
	struct prdma_qp *qp;
	int ret;

	if (!prdma__obj_live(pd, PRDMA__OBJ_PD) || attr == NULL || attr->comp_mask != 0 ||
	    !prdma__obj_live(attr->send_cq, PRDMA__OBJ_CQ) || !prdma__obj_live(attr->recv_cq, PRDMA__OBJ_CQ) ||
	    (attr->srq != NULL && !prdma__obj_live(attr->srq, PRDMA__OBJ_SRQ))) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = pd->dev;
	if (attr->send_cq->dev != dev || attr->recv_cq->dev != dev ||
	    (attr->srq != NULL && attr->srq->dev != dev)) {
		PRDMA_LOG(ERR, "%s: QP's CQs/SRQ belong to another device", dev->name);
		rte_errno = EINVAL;
		return NULL;
	}
	if ((attr->qp_type != PRDMA_QPT_RC && attr->qp_type != PRDMA_QPT_UC &&
	     attr->qp_type != PRDMA_QPT_UD) ||
	    (attr->create_flags & ~(PRDMA_QP_CREATE_GSI | PRDMA_QP_CREATE_SMI)) != 0 ||
	    (attr->create_flags & (PRDMA_QP_CREATE_GSI | PRDMA_QP_CREATE_SMI)) ==
	    (PRDMA_QP_CREATE_GSI | PRDMA_QP_CREATE_SMI) ||
	    (attr->create_flags != 0 && attr->qp_type != PRDMA_QPT_UD)) {
		rte_errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&dev->lock);
	if (prdma__dev_attr(dev, &dattr) < 0 || !qp_cap_valid(&dattr, attr)) {
		PRDMA_LOG(ERR, "%s: QP caps (send %u x %u, recv %u x %u, inline %u) "
			  "outside the device limits", dev->name,
			  attr->cap.max_send_wr, attr->cap.max_send_sge,
			  attr->cap.max_recv_wr, attr->cap.max_recv_sge,
			  attr->cap.max_inline_data);
		pthread_mutex_unlock(&dev->lock);
		rte_errno = EINVAL;
		return NULL;
	}
	qp = prdma__obj_alloc(dev, dev->obj_size.qp, "prdma_qp", PRDMA__OBJ_QP);
	if (qp == NULL)
		goto out;
	qp->dev_id = dev->dev_id;
	qp->qp_type = attr->qp_type;
	qp->state = PRDMA_QPS_RESET;
	qp->dev = dev;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->qp_context = attr->qp_context;
	ret = dev->ops->qp_create(qp, attr);
	if (ret < 0) {
		prdma__obj_free(dev, qp);
		qp = NULL;
		rte_errno = -ret;
		goto out;
	}
	TAILQ_INSERT_TAIL(&dev->qps, qp, lib_entry);
	pd->users++;
	attr->send_cq->users++;
	attr->recv_cq->users++;
	if (attr->srq != NULL)
		attr->srq->users++;
out:
	pthread_mutex_unlock(&dev->lock);
	return qp;
}

/* Values each attribute may take, whatever the transition. */
static int
qp_attr_values_valid(const struct prdma_qp *qp, const struct prdma_dev_attr *d,
		     const struct prdma_qp_attr *a, uint32_t mask)
{
	if ((mask & PRDMA_QP_PATH_MTU) && prdma_mtu_bytes(a->path_mtu) == 0)
		return 0;
	if ((mask & PRDMA_QP_TIMEOUT) && a->timeout > 31)
		return 0;
	if ((mask & PRDMA_QP_RETRY_CNT) && a->retry_cnt > 7)
		return 0;
	if ((mask & PRDMA_QP_RNR_RETRY) && a->rnr_retry > 7)
		return 0;
	if ((mask & PRDMA_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return 0;
	if ((mask & PRDMA_QP_RQ_PSN) && a->rq_psn > 0xffffff)
		return 0;
	if ((mask & PRDMA_QP_SQ_PSN) && a->sq_psn > 0xffffff)
		return 0;
	if ((mask & PRDMA_QP_DEST_QPN) && a->dest_qp_num > 0xffffff)
		return 0;
	if ((mask & PRDMA_QP_PORT) && (a->port_num == 0 || a->port_num > d->phys_port_cnt))
		return 0;
	if ((mask & PRDMA_QP_PKEY_INDEX) && d->max_pkeys != 0 &&
	    a->pkey_index >= d->max_pkeys)
		return 0;
	if ((mask & PRDMA_QP_ACCESS_FLAGS) &&
	    (a->qp_access_flags & ~(PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE |
				    PRDMA_ACCESS_REMOTE_READ |
				    PRDMA_ACCESS_REMOTE_ATOMIC)) != 0)
		return 0;
	/* UC has no READ or atomics. */
	if ((mask & PRDMA_QP_ACCESS_FLAGS) && qp->qp_type == PRDMA_QPT_UC &&
	    (a->qp_access_flags & (PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_ATOMIC)))
		return 0;
	if ((mask & PRDMA_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > d->max_qp_init_rd_atom)
		return 0;
	if ((mask & PRDMA_QP_MAX_DEST_RD_ATOMIC) &&
	    a->max_dest_rd_atomic > d->max_qp_rd_atom)
		return 0;
	if ((mask & PRDMA_QP_AV) &&
	    (a->ah_attr.port_num == 0 || a->ah_attr.port_num > d->phys_port_cnt ||
	     a->ah_attr.flow_label > 0xfffff))
		return 0;
	return 1;
}

int
prdma_qp_modify(struct prdma_qp *qp, const struct prdma_qp_attr *attr,
		uint32_t attr_mask)
{
	enum prdma_qp_state cur, next;
	struct prdma_dev_attr dattr;
	struct prdma_dev *dev;
	int ret;

	if (!prdma__obj_live(qp, PRDMA__OBJ_QP) || attr == NULL)
		return prdma_err(EINVAL);
	dev = qp->dev;
	pthread_mutex_lock(&dev->lock);
	cur = (enum prdma_qp_state)qp->state;
	next = (attr_mask & PRDMA_QP_STATE) ? attr->qp_state : cur;
	ret = prdma_qp_modify_is_ok((enum prdma_qp_type)qp->qp_type, cur, next,
				    attr_mask);
	if (ret == 0 && (attr_mask & PRDMA_QP_CUR_STATE) && attr->cur_qp_state != cur)
		ret = -EINVAL;
	if (ret == 0 && (prdma__dev_attr(dev, &dattr) < 0 ||
			 !qp_attr_values_valid(qp, &dattr, attr, attr_mask)))
		ret = -EINVAL;
	if (ret < 0) {
		PRDMA_LOG(DEBUG, "%s: QP %u: modify %s -> %s (mask 0x%x) refused",
			  dev->name, qp->qp_num, prdma_qp_state_str(cur),
			  prdma_qp_state_str(next), attr_mask);
	} else {
		ret = dev->ops->qp_modify(qp, attr, attr_mask);
		if (ret == 0)
			qp->state = next;
	}
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_qp_query(struct prdma_qp *qp, struct prdma_qp_attr *attr,
	       struct prdma_qp_init_attr *init_attr)
{
	struct prdma_qp_attr tmp;
	struct prdma_dev *dev;
	int ret;

	if (!prdma__obj_live(qp, PRDMA__OBJ_QP) || (attr == NULL && init_attr == NULL))
		return prdma_err(EINVAL);
	dev = qp->dev;
	memset(&tmp, 0, sizeof(tmp));
	pthread_mutex_lock(&dev->lock);
	ret = dev->ops->qp_query(qp, &tmp);
	if (ret == 0) {
		tmp.qp_state = (enum prdma_qp_state)qp->state;
		tmp.cur_qp_state = tmp.qp_state;
	}
	pthread_mutex_unlock(&dev->lock);
	if (ret < 0)
		return prdma_err(-ret);
	if (attr != NULL)
		*attr = tmp;
	if (init_attr != NULL) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_type = (enum prdma_qp_type)qp->qp_type;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->srq = qp->srq;
		init_attr->cap = tmp.cap;
		init_attr->qp_context = qp->qp_context;
	}
	return 0;
}

int
prdma_qp_destroy(struct prdma_qp *qp)
{
	struct prdma_dev *dev;
	int ret;

	if (prdma__obj_check(qp, PRDMA__OBJ_QP) < 0)
		return -EINVAL;
	dev = qp->dev;
	pthread_mutex_lock(&dev->lock);
	/* Again under the lock: another thread's destroy may have won. */
	ret = prdma__obj_live(qp, PRDMA__OBJ_QP) ? dev->ops->qp_destroy(qp) : -EINVAL;
	if (ret == 0) {
		prdma__tmpl_unbind_all(qp);
		TAILQ_REMOVE(&dev->qps, qp, lib_entry);
		qp->pd->users--;
		qp->send_cq->users--;
		qp->recv_cq->users--;
		if (qp->srq != NULL)
			qp->srq->users--;
		prdma__obj_free(dev, qp);
	}
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}
