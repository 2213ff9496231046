/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* The gateway: every received order gets a decision written straight into
 * the client's acknowledgement ring, then its receive buffer is reposted. */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "og.h"

static int
og_gateway_ack(struct og_gateway *g, const struct prdma_wc *wc)
{
	uint32_t buf_idx = (uint32_t)wc->wr_id;
	const struct og_order *o = (const void *)(g->e->buf.p + buf_idx * OG_ORDER_SIZE);
	struct og_ack *a = (void *)(g->e->out.p +
				   (g->served & (OG_OUT_SLOTS - 1)) * sizeof(struct og_ack));
	uint32_t slot = (uint32_t)(o->order_id & (OG_RING_SLOTS - 1));
	struct prdma_sge sge;
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	int ret;

	if (wc->byte_len != OG_ORDER_SIZE) {
		EX_ERR("gateway: order of %" PRIu32 " bytes, expected %d", wc->byte_len,
		       OG_ORDER_SIZE);
		return -EBADMSG;
	}
	a->order_id = o->order_id;
	a->client_tsc = o->client_tsc;
	a->status = og_order_decide(o);
	a->filled = a->status == OG_ACCEPTED ? o->quantity : 0;
	if (a->status != OG_ACCEPTED)
		g->rejected++;
	sge.addr = (uintptr_t)a;
	sge.length = sizeof(*a);
	sge.lkey = g->e->out.mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = g->served;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = slot;
	wr.wr.rdma.remote_addr = g->ring_addr + slot * sizeof(struct og_ack);
	wr.wr.rdma.rkey = g->ring_rkey;
	wr.send_flags = ex_signal_every(&g->unsignaled, OG_SIGNAL_EVERY,
					g->served + 1 == g->conf->orders);
	ret = prdma_post_send(g->e->rc.qp, &wr, &bad);
	if (ret < 0) {
		EX_ERR("gateway: acknowledging order %" PRIu64 ": %s", o->order_id,
		       rte_strerror(-ret));
		return ret;
	}
	g->served++;
	/* The order's fields are in the ack now, so its buffer is free again.
	 * The ack's own staging slot is reused OG_OUT_SLOTS acks later, more
	 * than the send queue holds, so its write has left by then. */
	return ex_post_recv(g->e->rc.qp, buf_idx, g->e->buf.p + buf_idx * OG_ORDER_SIZE,
			    OG_ORDER_SIZE, g->e->buf.mr->lkey);
}

int
og_gateway_step(void *arg)
{
	struct og_gateway *g = arg;
	struct prdma_wc wc[16];
	int n, i, ret;

	n = prdma_cq_poll(g->e->rc.rcq, RTE_DIM(wc), wc);
	for (i = 0; i < n; i++) {
		if (wc[i].status != PRDMA_WC_SUCCESS || wc[i].opcode != PRDMA_WC_RECV) {
			EX_ERR("gateway: receive completion: %s",
			       prdma_wc_status_str(wc[i].status));
			return -EIO;
		}
		ret = og_gateway_ack(g, &wc[i]);
		if (ret < 0)
			return ret;
	}
	n = prdma_cq_poll(g->e->rc.scq, RTE_DIM(wc), wc);
	for (i = 0; i < n; i++) {
		if (wc[i].status != PRDMA_WC_SUCCESS) {
			EX_ERR("gateway: acknowledgement write: %s",
			       prdma_wc_status_str(wc[i].status));
			return -EIO;
		}
		g->writes_done = (uint32_t)wc[i].wr_id + 1;
	}
	return g->served == g->conf->orders && g->writes_done == g->conf->orders;
}
