/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Work-request templates: a send request validated once when it is bound
 * to its QP, so that a post gives only what changes (data, length, remote
 * address, wr_id). A provider may prebuild its WQE segments for it
 * (wr_tmpl_create); otherwise the library's post below builds a
 * prdma_send_wr and calls the device's post_send, so templates work on
 * every provider with the same errors.
 */

#include <string.h>

#include "prdma_private.h"

#define TMPL_SEND_FLAGS (PRDMA_SEND_FENCE | PRDMA_SEND_SIGNALED | \
			 PRDMA_SEND_SOLICITED | PRDMA_SEND_INLINE)

int
prdma__post_template_bad(void)
{
	return prdma_err(EINVAL);
}

/* The post of an unbound template: the wrapper lets qp == NULL reach it. */
static int
tmpl_post_unbound(struct prdma_qp *qp, const struct prdma_wr_tmpl *t, const void *data,
		  uint32_t len, uint64_t remote_addr, uint64_t wr_id)
{
	RTE_SET_USED(qp);
	RTE_SET_USED(t);
	RTE_SET_USED(data);
	RTE_SET_USED(len);
	RTE_SET_USED(remote_addr);
	RTE_SET_USED(wr_id);
	return prdma_err(EINVAL);
}

static int
tmpl_post_burst_unbound(struct prdma_qp *qp, const struct prdma_wr_tmpl *t,
			const struct prdma_tmpl_req *req, uint16_t nb, uint16_t *posted)
{
	RTE_SET_USED(qp);
	RTE_SET_USED(t);
	RTE_SET_USED(req);
	RTE_SET_USED(nb);
	*posted = 0;
	return prdma_err(EINVAL);
}

/* Unbind: a later post fails with EINVAL, whatever QP it names. */
static void
tmpl_unbind(struct prdma_wr_tmpl *t)
{
	/* the posts first, so that qp == NULL never reaches a provider's */
	__atomic_store_n(&t->post, tmpl_post_unbound, __ATOMIC_RELEASE);
	__atomic_store_n(&t->post_burst, tmpl_post_burst_unbound, __ATOMIC_RELEASE);
	__atomic_store_n(&t->qp, NULL, __ATOMIC_RELEASE);
	t->lib_next = NULL;
}

/* The opcodes a template takes, by QP type; anything else is EINVAL. */
static bool
tmpl_opcode_ok(uint8_t qp_type, enum prdma_wr_opcode op)
{
	switch (op) {
	case PRDMA_WR_SEND:
	case PRDMA_WR_SEND_WITH_IMM:
		return qp_type == PRDMA_QPT_RC || qp_type == PRDMA_QPT_UC ||
			qp_type == PRDMA_QPT_UD;
	case PRDMA_WR_RDMA_WRITE:
	case PRDMA_WR_RDMA_WRITE_WITH_IMM:
		return qp_type == PRDMA_QPT_RC || qp_type == PRDMA_QPT_UC;
	case PRDMA_WR_RDMA_READ:
		return qp_type == PRDMA_QPT_RC;
	default:
		return false;
	}
}

/* What can be checked without the lock: the request itself. */
static int
tmpl_check(const struct prdma_qp *qp, const struct prdma_send_wr *p, uint32_t flags)
{
	if (p == NULL || flags != 0 || p->next != NULL || p->num_sge != 1 ||
	    p->sg_list == NULL || (p->send_flags & ~TMPL_SEND_FLAGS) != 0 ||
	    !tmpl_opcode_ok(qp->qp_type, p->opcode))
		return -EINVAL;
	if (p->sg_list->length > INT32_MAX)
		return -EINVAL;
	if ((p->send_flags & PRDMA_SEND_INLINE) && p->opcode == PRDMA_WR_RDMA_READ)
		return -EINVAL;
	if (qp->qp_type == PRDMA_QPT_UD && !prdma__obj_live(p->wr.ud.ah, PRDMA__OBJ_AH))
		return -EINVAL;
	return 0;
}

struct prdma_wr_tmpl *
prdma_wr_template_create(struct prdma_qp *qp, const struct prdma_send_wr *proto,
			 uint32_t flags)
{
	struct prdma_qp_attr qa;
	struct prdma_wr_tmpl *t = NULL;
	struct prdma_dev *dev;
	int ret;

	if (prdma__obj_check(qp, PRDMA__OBJ_QP) < 0)
		return NULL;
	ret = tmpl_check(qp, proto, flags);
	if (ret < 0) {
		prdma_err(-ret);
		return NULL;
	}
	dev = qp->dev;
	pthread_mutex_lock(&dev->lock);
	if (!prdma__obj_live(qp, PRDMA__OBJ_QP)) {
		ret = -EINVAL;
		goto out;
	}
	/* the QP's actual capacities, as post_send applies them */
	memset(&qa, 0, sizeof(qa));
	ret = dev->ops->qp_query(qp, &qa);
	if (ret < 0)
		goto out;
	if (qa.cap.max_send_sge < 1 ||
	    ((proto->send_flags & PRDMA_SEND_INLINE) &&
	     proto->sg_list->length > qa.cap.max_inline_data)) {
		ret = -EINVAL;
		goto out;
	}
	t = prdma__obj_alloc(dev, sizeof(*t), "prdma_wr_tmpl", PRDMA__OBJ_TMPL);
	if (t == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	t->qp = qp;
	t->lib_dev = dev;
	t->flags = flags;
	t->max_len = proto->sg_list->length;
	t->proto = *proto;
	t->sge = *proto->sg_list;
	t->sge.addr = 0;
	t->proto.sg_list = &t->sge;
	t->post = prdma_fp_generic_post_template;
	t->post_burst = prdma_fp_generic_post_template_burst;
	ret = dev->ops->wr_tmpl_create(qp, t);
	if (ret == -ENOTSUP) {
		t->post = prdma_fp_generic_post_template;
		t->post_burst = prdma_fp_generic_post_template_burst;
		ret = 0;
	}
	if (ret < 0) {
		prdma__obj_free(dev, t);
		t = NULL;
		goto out;
	}
	t->lib_next = qp->lib_tmpl;
	qp->lib_tmpl = t;
out:
	pthread_mutex_unlock(&dev->lock);
	if (ret < 0) {
		prdma_err(-ret);
		return NULL;
	}
	return t;
}

int
prdma_wr_template_destroy(struct prdma_wr_tmpl *t)
{
	struct prdma_wr_tmpl **pp;
	struct prdma_dev *dev;
	int ret = 0;

	if (prdma__obj_check(t, PRDMA__OBJ_TMPL) < 0)
		return -EINVAL;
	dev = t->lib_dev;
	pthread_mutex_lock(&dev->lock);
	/* again under the lock: another thread's destroy may have won */
	if (!prdma__obj_live(t, PRDMA__OBJ_TMPL)) {
		ret = -EINVAL;
	} else {
		if (t->qp != NULL) {
			for (pp = &t->qp->lib_tmpl; *pp != NULL; pp = &(*pp)->lib_next)
				if (*pp == t) {
					*pp = t->lib_next;
					break;
				}
		}
		tmpl_unbind(t);
		prdma__obj_free(dev, t);
	}
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

void
prdma__tmpl_unbind_all(struct prdma_qp *qp)
{
	struct prdma_wr_tmpl *t = qp->lib_tmpl, *next;

	/* the templates stay the application's; a post through one fails */
	for (; t != NULL; t = next) {
		next = t->lib_next;
		tmpl_unbind(t);
	}
	qp->lib_tmpl = NULL;
}

int
prdma_fp_generic_post_template(struct prdma_qp *qp, const struct prdma_wr_tmpl *t,
			       const void *data, uint32_t len, uint64_t remote_addr,
			       uint64_t wr_id)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;

	wr = t->proto;
	sge.addr = (uintptr_t)data;
	sge.length = len;
	sge.lkey = t->sge.lkey;
	wr.wr_id = wr_id;
	wr.next = NULL;
	wr.sg_list = &sge;
	if (wr.opcode == PRDMA_WR_RDMA_WRITE || wr.opcode == PRDMA_WR_RDMA_WRITE_WITH_IMM ||
	    wr.opcode == PRDMA_WR_RDMA_READ)
		wr.wr.rdma.remote_addr = remote_addr;
	return prdma_fp_ops[qp->dev_id].post_send(qp, &wr, &bad);
}

/*
 * The burst for a template without the provider's own: each request
 * through the template's post (the provider's or the library's), so that
 * the errors are exactly prdma_post_template's.
 */
int
prdma_fp_generic_post_template_burst(struct prdma_qp *qp, const struct prdma_wr_tmpl *t,
				     const struct prdma_tmpl_req *req, uint16_t nb,
				     uint16_t *posted)
{
	prdma_post_tmpl_t post = t->post;
	uint16_t i;
	int ret;

	for (i = 0; i < nb; i++) {
		if (unlikely(req[i].len > t->max_len)) {
			ret = prdma_err(EINVAL);
			goto fail;
		}
		ret = post(qp, t, req[i].data, req[i].len, req[i].remote_addr, req[i].wr_id);
		if (unlikely(ret != 0))
			goto fail;
	}
	*posted = nb;
	return 0;
fail:
	*posted = i;
	return ret;
}
