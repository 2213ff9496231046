/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <stdio.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "app_cm_ep.h"

double
app_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
app_cm_ep_open(struct app_cm_ep *ep, const char *devargs, size_t len,
	       uint32_t access, const char **what)
{
	int id;

	id = prdma_dev_probe(devargs);
	if (id < 0) {
		*what = "device probe";
		return -1;
	}
	ep->dev_id = id;
	ep->dev = prdma_dev_open((uint16_t)id);
	ep->pd = ep->dev != NULL ? prdma_pd_alloc(ep->dev) : NULL;
	if (ep->pd == NULL) {
		*what = "device open / PD";
		return -1;
	}
	/* Page aligned, as the programs these apps mirror allocate it. */
	ep->mem = rte_zmalloc("app_cm_ep", len, 4096);
	if (ep->mem == NULL) {
		rte_errno = ENOMEM;
		*what = "buffer allocation";
		return -1;
	}
	ep->mr = prdma_mr_reg(ep->pd, ep->mem, len, access);
	if (ep->mr == NULL) {
		*what = "MR registration";
		return -1;
	}
	return 0;
}

int
app_cm_ep_cm(struct app_cm_ep *ep, enum prdma_cm_port_space ps, void *ctx,
	     const char **what)
{
	ep->ch = prdma_cm_channel_create(0);
	if (ep->ch == NULL) {
		*what = "CM channel";
		return -1;
	}
	ep->id = prdma_cm_id_create(ep->ch, ep->dev, 1, ps, ctx);
	if (ep->id == NULL) {
		*what = "CM id";
		return -1;
	}
	return 0;
}

struct prdma_cm_event *
app_cm_ep_next_event(struct app_cm_ep *ep, double timeout_s)
{
	double deadline = app_now() + timeout_s;
	struct prdma_cm_event *ev;

	while (app_now() < deadline) {
		prdma_cm_channel_progress(ep->ch);
		prdma_dev_progress(ep->dev);
		if (prdma_cm_get_event(ep->ch, &ev) == 0)
			return ev;
	}
	return NULL;
}

void
app_cm_ep_linger(struct app_cm_ep *ep, double seconds)
{
	double end = app_now() + seconds;

	while (app_now() < end)
		prdma_dev_progress(ep->dev);
}

void
app_cm_ep_close(struct app_cm_ep *ep)
{
	if (ep->ah != NULL)
		prdma_ah_destroy(ep->ah);
	if (ep->conn != NULL)
		prdma_cm_id_destroy(ep->conn);
	if (ep->id != NULL)
		prdma_cm_id_destroy(ep->id);
	if (ep->ch != NULL)
		prdma_cm_channel_destroy(ep->ch);
	if (ep->qp != NULL)
		prdma_qp_destroy(ep->qp);
	if (ep->cq != NULL)
		prdma_cq_destroy(ep->cq);
	if (ep->mr != NULL)
		prdma_mr_dereg(ep->mr);
	if (ep->pd != NULL)
		prdma_pd_free(ep->pd);
	rte_free(ep->mem);
	if (ep->dev != NULL)
		prdma_dev_close(ep->dev);
	if (ep->dev_id >= 0)
		prdma_dev_remove((uint16_t)ep->dev_id);
	*ep = (struct app_cm_ep){ .dev_id = -1 };
}

int
app_eal_start(int argc, char **argv, const char *prog)
{
	int ret = rte_eal_init(argc, argv);

	if (ret < 0) {
		fprintf(stderr, "%s: EAL init failed: %s\n", prog, rte_strerror(rte_errno));
		return -1;
	}
	/* getopt wants the program's name before the app's own arguments. */
	argv[ret] = argv[0];
	return ret;
}

void
app_eal_stop(void)
{
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid)
		rte_eth_dev_close(pid);
	rte_eal_cleanup();
}
