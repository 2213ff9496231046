/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef APP_CM_EP_H
#define APP_CM_EP_H

/*
 * One endpoint of the CM example apps (prdma-rping, prdma-udaddy): the
 * device, its buffer and MR, the CQ/QP/AH the app makes, and the CM
 * channel and ids, set up and torn down in one order for every app.
 */

#include <stddef.h>
#include <stdint.h>

#include <prdma.h>
#include <prdma_cm.h>

struct app_cm_ep {
	int dev_id;                  /* prdma's device id, -1 before the probe */
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp;
	struct prdma_ah *ah;
	struct prdma_cm_channel *ch;
	struct prdma_cm_id *id;      /* the listener (server) or the connection */
	struct prdma_cm_id *conn;    /* the server's accepted id */
	uint8_t *mem;                /* the app's zeroed buffer, registered as mr */
	struct prdma_mr *mr;
};

/*
 * Probe @p devargs, open the device, allocate a PD and a zeroed buffer of
 * @p len bytes registered with @p access. On failure returns -1 with
 * rte_errno set and *@p what naming the step (for the app's message);
 * what was made stays in @p ep for app_cm_ep_close().
 */
int app_cm_ep_open(struct app_cm_ep *ep, const char *devargs, size_t len,
		   uint32_t access, const char **what);

/* A CM channel and an id in @p ps on port 1; -1 and *@p what on failure. */
int app_cm_ep_cm(struct app_cm_ep *ep, enum prdma_cm_port_space ps, void *ctx,
		 const char **what);

/* The next CM event, progressing the CM and the device meanwhile; NULL
 * after @p timeout_s seconds without one. */
struct prdma_cm_event *app_cm_ep_next_event(struct app_cm_ep *ep, double timeout_s);

/* Keep the device progressing for @p seconds (a peer still reading what we
 * sent over a shared-memory port, a DREP on its way). */
void app_cm_ep_linger(struct app_cm_ep *ep, double seconds);

/* Free all of it: ids before the channel, the QP before its CQ, the
 * device last. Safe on a partly made endpoint. */
void app_cm_ep_close(struct app_cm_ep *ep);

/* Seconds on a monotonic clock. */
double app_now(void);

/*
 * rte_eal_init() for an app named @p prog; returns how many arguments EAL
 * took (the app's own start at argv[ret]), or -1 after printing why.
 */
int app_eal_start(int argc, char **argv, const char *prog);

/* Close every ethdev and clean up EAL. */
void app_eal_stop(void);

#endif /* APP_CM_EP_H */
