/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* The client: keeps up to `window` orders in flight and matches each
 * acknowledgement by the slot its immediate names. */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "og.h"

static int
og_client_send(struct og_client *c)
{
	struct og_order o;
	struct prdma_sge sge = { .addr = (uintptr_t)&o, .length = sizeof(o), .lkey = 0 };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	uint64_t now = rte_rdtsc();
	int ret;

	og_order_fill(&o, c->sent, now);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = c->sent;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	/* Inline: the order is copied at post time, so it may live on the stack
	 * and needs no MR. Only one send in OG_SIGNAL_EVERY completes, which
	 * is enough to know when send-queue slots are free again. */
	wr.send_flags = PRDMA_SEND_INLINE |
		ex_signal_every(&c->unsignaled, OG_SIGNAL_EVERY, c->sent + 1 == c->conf->orders);
	ret = prdma_post_send(c->e->rc.qp, &wr, &bad);
	if (ret < 0) {
		EX_ERR("client: posting order %" PRIu32 ": %s", c->sent, rte_strerror(-ret));
		return ret;
	}
	c->sent_tsc[c->sent] = now;
	c->sent++;
	return 0;
}

static int
og_client_ack(struct og_client *c, const struct prdma_wc *wc, uint64_t now)
{
	const volatile struct og_ack *ring = (const void *)c->e->buf.p;
	uint32_t slot = wc->imm_data & (OG_RING_SLOTS - 1);
	uint64_t id = ring[slot].order_id;
	int ret;

	if (wc->opcode != PRDMA_WC_RECV_RDMA_WITH_IMM || !(wc->wc_flags & PRDMA_WC_WITH_IMM) ||
	    id >= c->conf->orders || (id & (OG_RING_SLOTS - 1)) != slot ||
	    ring[slot].client_tsc != c->sent_tsc[id] || c->rtt[id] != 0) {
		c->bad_acks++;
		EX_ERR("client: bad acknowledgement in slot %" PRIu32 " (order %" PRIu64 ")",
		       slot, id);
	} else {
		c->rtt[id] = RTE_MAX(now - c->sent_tsc[id], (uint64_t)1);
	}
	c->acked++;
	/* Every acknowledgement consumed one receive: give it back. */
	ret = ex_post_recv(c->e->rc.qp, 0, NULL, 0, 0);
	if (ret < 0)
		EX_ERR("client: reposting a receive: %s", rte_strerror(-ret));
	return ret;
}

int
og_client_step(void *arg)
{
	struct og_client *c = arg;
	struct prdma_wc wc[16];
	uint64_t now;
	int n, i, ret;

	/* Unsignaled sends hold their send-queue slot until a later signaled
	 * one completes, so the queue needs room for a whole signaling run. */
	if (c->sent < c->conf->orders && c->sent - c->acked < c->conf->window &&
	    c->sent - c->sends_done < OG_SQ_DEPTH - OG_SIGNAL_EVERY) {
		ret = og_client_send(c);
		if (ret < 0)
			return ret;
	}
	n = prdma_cq_poll(c->e->rc.rcq, RTE_DIM(wc), wc);
	now = rte_rdtsc();
	for (i = 0; i < n; i++) {
		if (wc[i].status != PRDMA_WC_SUCCESS) {
			EX_ERR("client: receive completion: %s",
			       prdma_wc_status_str(wc[i].status));
			return -EIO;
		}
		ret = og_client_ack(c, &wc[i], now);
		if (ret < 0)
			return ret;
	}
	n = prdma_cq_poll(c->e->rc.scq, RTE_DIM(wc), wc);
	for (i = 0; i < n; i++) {
		if (wc[i].status != PRDMA_WC_SUCCESS) {
			EX_ERR("client: order %" PRIu64 ": %s", wc[i].wr_id,
			       prdma_wc_status_str(wc[i].status));
			return -EIO;
		}
		/* A completion retires every send posted before it. */
		c->sends_done = (uint32_t)wc[i].wr_id + 1;
	}
	return c->acked == c->conf->orders && c->sends_done == c->conf->orders;
}
