/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The verbs objects of a PMD-owned control agent (hermon_agent_res.h).
 * The SMP agent (hermon_sma.c) and the ARP/ND agent (hermon_arp.c) differ
 * only in sizes and in the kind of QP: the agent objects are made with the
 * PMD's own object ops, never through the library, so the application
 * sees none of them. Control path only.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "hermon_agent_res.h"

/* @ret < 0 is the error: rte_errno follows it, whoever failed. */
static int
res_err(int ret)
{
	rte_errno = -ret;
	return ret;
}

static int
qp_to(struct hermon_agent_res *r, uint8_t port, enum prdma_qp_state s, uint32_t mask)
{
	struct prdma_qp_attr at;
	int ret;

	memset(&at, 0, sizeof(at));
	at.qp_state = s;
	at.port_num = port;
	ret = hermon_qp_modify(&r->qp.pub, &at, PRDMA_QP_STATE | mask);
	if (ret == 0)
		r->qp.pub.state = s;
	return ret;
}

static int
qp_new(struct hermon_dev *hd, uint8_t port, const struct hermon_agent_res_attr *at,
       struct hermon_agent_res *r)
{
	struct prdma_qp_init_attr qa;
	int ret;

	memset(&qa, 0, sizeof(qa));
	qa.qp_type = at->qp_type;
	qa.send_cq = &r->cq.pub;
	qa.recv_cq = &r->cq.pub;
	qa.cap.max_send_wr = at->nsend;
	qa.cap.max_recv_wr = at->nrecv;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.sq_sig_all = 1;
	qa.create_flags = at->create_flags;
	r->qp.pub.dev = hd->pdev;
	r->qp.pub.pd = &r->pd.pub;
	r->qp.pub.send_cq = &r->cq.pub;
	r->qp.pub.recv_cq = &r->cq.pub;
	r->qp.pub.qp_type = at->qp_type;
	r->qp.pub.state = PRDMA_QPS_RESET;
	r->qp.raw = at->raw;
	r->qp.sma_owned = at->sma_owned;
	if (at->sma_owned)
		r->qp.gsi_port = port;
	ret = hermon_qp_create(&r->qp.pub, &qa);
	if (ret < 0)
		return ret;
	r->qp_ok = true;
	ret = qp_to(r, port, PRDMA_QPS_INIT, PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT | at->init_mask);
	if (ret == 0)
		ret = qp_to(r, port, PRDMA_QPS_RTR, 0);
	if (ret == 0)
		ret = qp_to(r, port, PRDMA_QPS_RTS, PRDMA_QP_SQ_PSN);
	return ret;
}

int
hermon_agent_res_new(struct hermon_dev *hd, uint8_t port,
		     const struct hermon_agent_res_attr *at, struct hermon_agent_res *r)
{
	struct prdma_cq_init_attr ca = { .cqe = at->nrecv + at->nsend };
	size_t bytes = (size_t)at->nrecv * at->rslot + (size_t)at->nsend * at->sslot;
	uint32_t i;
	int ret;

	r->nrecv = at->nrecv;
	r->nsend = at->nsend;
	r->rslot = at->rslot;
	r->sslot = at->sslot;
	r->buf = rte_zmalloc_socket(at->name, bytes, 64, hd->pdev->socket_id);
	if (r->buf == NULL) {
		ret = -ENOMEM;
		goto err;
	}
	r->pd.pub.dev = hd->pdev;
	ret = hermon_pd_alloc(&r->pd.pub);
	if (ret < 0)
		goto err;
	r->pd_ok = true;
	r->cq.pub.dev = hd->pdev;
	r->cq.pub.event_fd = -1;
	ret = hermon_cq_create(&r->cq.pub, &ca);
	if (ret < 0)
		goto err;
	r->cq_ok = true;
	r->mr.pub.dev = hd->pdev;
	r->mr.pub.pd = &r->pd.pub;
	r->mr.pub.addr = r->buf;
	r->mr.pub.length = bytes;
	r->mr.pub.access = PRDMA_ACCESS_LOCAL_WRITE;
	ret = hermon_mr_reg(&r->mr.pub);
	if (ret < 0)
		goto err;
	r->mr_ok = true;
	ret = qp_new(hd, port, at, r);
	if (ret < 0)
		goto err;
	for (i = 0; i < r->nrecv; i++) {
		ret = hermon_agent_post_recv(r, i);
		if (ret < 0)
			goto err;
	}
	return 0;
err:
	/* what was made goes in reverse order; the caller has nothing to free */
	hermon_agent_res_free(r);
	return res_err(ret);
}

void
hermon_agent_res_free(struct hermon_agent_res *r)
{
	if (r->qp_ok)
		(void)hermon_qp_destroy(&r->qp.pub);
	if (r->mr_ok)
		(void)hermon_mr_dereg(&r->mr.pub);
	if (r->cq_ok)
		(void)hermon_cq_destroy(&r->cq.pub);
	if (r->pd_ok)
		(void)hermon_pd_free(&r->pd.pub);
	rte_free(r->buf);
	r->buf = NULL;
	r->qp_ok = r->mr_ok = r->cq_ok = r->pd_ok = false;
}

uint8_t *
hermon_agent_recv_slot(const struct hermon_agent_res *r, uint32_t i)
{
	return r->buf + (size_t)i * r->rslot;
}

uint8_t *
hermon_agent_send_slot(const struct hermon_agent_res *r, uint32_t k)
{
	return r->buf + (size_t)r->nrecv * r->rslot + (size_t)(k % r->nsend) * r->sslot;
}

int
hermon_agent_post_recv(struct hermon_agent_res *r, uint32_t i)
{
	const struct prdma_recv_wr *bad;
	struct prdma_sge sge = { .addr = (uintptr_t)hermon_agent_recv_slot(r, i),
				 .length = r->rslot, .lkey = r->mr.pub.lkey };
	struct prdma_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };

	return hermon_post_recv(&r->qp.pub, &wr, &bad);
}
