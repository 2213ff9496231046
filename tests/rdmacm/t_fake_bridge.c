/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "t_eal.h"
#include "prdma_verbs_bridge.h"
#include "t_fake_bridge.h"

struct fake_ctx {
	struct ibv_context ctx;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
};

struct fake_qp {
	struct ibv_qp qp;
	struct prdma_qp *pqp;
};

static struct fake_ctx ctxs[2];
static unsigned int syncs;

int
prdma_verbs_init(void)
{
	static int done;
	const char *args[2] = {
		"roce:ring=rcmt,side=0,ip=" T_IP_A ",progress=thread",
		"roce:ring=rcmt,side=1,ip=" T_IP_B ",progress=thread",
	};
	struct prdma_cq_init_attr ca = { .cqe = 256 };
	int i, id;

	/* meson runs it again on two cabled hermon:model devices */
	if (getenv("PRDMA_RDMACM_DEVARGS_A") != NULL &&
	    getenv("PRDMA_RDMACM_DEVARGS_B") != NULL) {
		args[0] = getenv("PRDMA_RDMACM_DEVARGS_A");
		args[1] = getenv("PRDMA_RDMACM_DEVARGS_B");
	}
	if (done)
		return done < 0 ? done : 0;
	done = t_eal_init();
	if (done < 0)
		return done;
	for (i = 0; i < 2; i++) {
		id = prdma_dev_probe(args[i]);
		if (id < 0)
			return done = id;
		ctxs[i].dev = prdma_dev_open((uint16_t)id);
		if (ctxs[i].dev == NULL)
			return done = -rte_errno;
		ctxs[i].pd = prdma_pd_alloc(ctxs[i].dev);
		ctxs[i].cq = prdma_cq_create(ctxs[i].dev, &ca);
		if (ctxs[i].pd == NULL || ctxs[i].cq == NULL)
			return done = -ENOMEM;
	}
	done = 1;
	return 0;
}

struct ibv_context *
prdma_verbs_context_get(struct prdma_dev *dev)
{
	int i;

	for (i = 0; i < 2; i++)
		if (ctxs[i].dev == dev)
			return &ctxs[i].ctx;
	errno = EINVAL;
	return NULL;
}

void
prdma_verbs_context_put(struct ibv_context *ctx)
{
	(void)ctx;
}

struct prdma_dev *
prdma_verbs_context_dev(struct ibv_context *ctx)
{
	return ((struct fake_ctx *)ctx)->dev;
}

struct prdma_pd *
prdma_verbs_pd(struct ibv_pd *pd)
{
	(void)pd;
	return NULL;
}

struct prdma_cq *
prdma_verbs_cq(struct ibv_cq *cq)
{
	(void)cq;
	return NULL;
}

struct prdma_srq *
prdma_verbs_srq(struct ibv_srq *srq)
{
	(void)srq;
	return NULL;
}

struct prdma_qp *
prdma_verbs_qp(struct ibv_qp *qp)
{
	return qp != NULL ? ((struct fake_qp *)qp)->pqp : NULL;
}

void
prdma_verbs_qp_sync_state(struct ibv_qp *qp)
{
	struct fake_qp *f = (struct fake_qp *)qp;

	syncs++;
	f->qp.state = (enum ibv_qp_state)f->pqp->state;
}

unsigned int
t_fake_syncs(void)
{
	return syncs;
}

struct ibv_qp *
t_fake_qp(struct ibv_context *ctx, enum ibv_qp_type type)
{
	struct fake_ctx *c = (struct fake_ctx *)ctx;
	struct prdma_qp_init_attr a;
	struct fake_qp *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return NULL;
	memset(&a, 0, sizeof(a));
	a.qp_type = type == IBV_QPT_UD ? PRDMA_QPT_UD :
		    type == IBV_QPT_UC ? PRDMA_QPT_UC : PRDMA_QPT_RC;
	a.send_cq = c->cq;
	a.recv_cq = c->cq;
	a.cap.max_send_wr = 16;
	a.cap.max_recv_wr = 16;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	f->pqp = prdma_qp_create(c->pd, &a);
	if (f->pqp == NULL) {
		free(f);
		return NULL;
	}
	f->qp.context = ctx;
	f->qp.qp_num = f->pqp->qp_num;
	f->qp.qp_type = type;
	f->qp.state = IBV_QPS_RESET;
	return &f->qp;
}

void
t_fake_qp_free(struct ibv_qp *qp)
{
	struct fake_qp *f = (struct fake_qp *)qp;

	if (f == NULL)
		return;
	prdma_qp_destroy(f->pqp);
	free(f);
}
