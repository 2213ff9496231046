/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * udaddy's data transfers on a UD QP: the receives, the SEND with
 * immediate messages and the waits for their completions.
 */

#include <stdio.h>
#include <string.h>

#include <prdma_fp.h>

#include "udaddy.h"

void
udaddy_pattern(uint8_t *buf, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
}

int
udaddy_post_recvs(struct udaddy_ep *e)
{
	struct prdma_sge sge = { .addr = (uintptr_t)e->c.mem, .length = UDADDY_GRH + e->o->size,
				 .lkey = e->c.mr->lkey };
	struct prdma_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	const struct prdma_recv_wr *bad;
	int i;

	for (i = 0; i < e->o->count; i++)
		if (prdma_post_recv(e->c.qp, &wr, &bad) != 0) {
			printf("failed to post receives: %d\n", -rte_errno);
			return -1;
		}
	return 0;
}

int
udaddy_post_sends(struct udaddy_ep *e, uint32_t off)
{
	struct prdma_sge sge = { .addr = (uintptr_t)e->c.mem + off, .length = e->o->size,
				 .lkey = e->c.mr->lkey };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	int i;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.opcode = PRDMA_WR_SEND_WITH_IMM;
	/* Signaled (udaddy's client's are not): the completions free the
	 * send queue; the waits for receives skip them. */
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.imm_data = e->c.qp->qp_num;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.ud.ah = e->c.ah;
	wr.wr.ud.remote_qpn = e->remote_qpn;
	wr.wr.ud.remote_qkey = e->remote_qkey;
	for (i = 0; i < e->o->count; i++)
		if (prdma_post_send(e->c.qp, &wr, &bad) != 0) {
			printf("failed to post sends: %d\n", -rte_errno);
			return -1;
		}
	return 0;
}

static int
wait_kind(struct udaddy_ep *e, int n, int recv, struct prdma_wc *first)
{
	double deadline = app_now() + e->o->timeout_s;
	struct prdma_wc wc;
	int done = 0;

	while (done < n) {
		prdma_dev_progress(e->c.dev);
		prdma_cm_channel_progress(e->c.ch);
		while (done < n && prdma_cq_poll(e->c.cq, 1, &wc) == 1) {
			if (wc.status != PRDMA_WC_SUCCESS) {
				printf("udaddy: failed polling CQ: %s\n",
				       prdma_wc_status_str(wc.status));
				return -1;
			}
			if ((wc.opcode >= PRDMA_WC_RECV) != recv)
				continue;
			if (done == 0 && first != NULL)
				*first = wc;
			done++;
			deadline = app_now() + e->o->timeout_s;
		}
		if (app_now() > deadline) {
			printf("udaddy: timed out: %d of %d %s completions\n", done, n,
			       recv ? "receive" : "send");
			return -1;
		}
	}
	return 0;
}

int
udaddy_wait_recvs(struct udaddy_ep *e, int n, struct prdma_wc *first)
{
	return wait_kind(e, n, 1, first);
}

int
udaddy_wait_sends(struct udaddy_ep *e, int n)
{
	return wait_kind(e, n, 0, NULL);
}
