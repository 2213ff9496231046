/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* The producer: ethdev receive -> slot copy -> batched RDMA WRITE, gated
 * by the credits the consumer returns. */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ring.h>

#include "pp.h"

static int
pp_post_write(struct pp_producer *p, void *src, uint32_t len, uint32_t lkey,
	      uint64_t raddr, uint32_t flags)
{
	struct prdma_sge sge = { .addr = (uintptr_t)src, .length = len, .lkey = lkey };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = p->posted;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.send_flags = flags;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = p->remote_rkey;
	ret = prdma_post_send(p->e->rc.qp, &wr, &bad);
	if (ret < 0) {
		EX_ERR("producer: RDMA WRITE of %" PRIu32 " bytes: %s", len, rte_strerror(-ret));
		return ret;
	}
	p->posted++;
	return 0;
}

/* Write slots [first, last) of the staging copy to the same slots of the
 * remote ring (two WRITEs when the range wraps), then publish the index. */
static int
pp_flush(struct pp_producer *p, uint64_t first, uint64_t last, int signal)
{
	struct pp_stage_mem *st = (void *)p->e->mem.p;
	uint32_t lkey = p->e->mem.mr->lkey;
	uint64_t idx = first;
	uint32_t slot, n, tail_len;
	uint64_t *cell = (uint64_t *)p->e->small.p;
	int ret;

	while (idx < last) {
		slot = (uint32_t)(idx & (PP_RING_SLOTS - 1));
		n = (uint32_t)RTE_MIN(last - idx, (uint64_t)(PP_RING_SLOTS - slot));
		/* Whole slots, except the last one stops at its packet's end. */
		tail_len = PP_SLOT_HDR + ((struct pp_slot_hdr *)st->slots[slot + n - 1])->len;
		ret = pp_post_write(p, st->slots[slot], (n - 1) * PP_SLOT_SIZE + tail_len,
				    lkey, p->remote_addr + offsetof(struct pp_ring_mem, slots) +
				    (uint64_t)slot * PP_SLOT_SIZE, 0);
		if (ret < 0)
			return ret;
		idx += n;
	}
	/* RC executes WRITEs in order, so the consumer sees the index only
	 * after the slots it covers (the run checks PRDMA_DEV_CAP_IN_ORDER_DMA).
	 * Inline: the value is copied now, the cell can change for the next. */
	*cell = last;
	return pp_post_write(p, cell, sizeof(*cell), p->e->small.mr->lkey,
			     p->remote_addr + offsetof(struct pp_ring_mem, prod),
			     PRDMA_SEND_INLINE | (signal ? PRDMA_SEND_SIGNALED : 0));
}

static int
pp_producer_poll(struct pp_producer *p)
{
	struct prdma_wc wc[16];
	int n, i, ret;

	n = prdma_cq_poll(p->e->rc.rcq, RTE_DIM(wc), wc);
	for (i = 0; i < n; i++) {
		if (wc[i].status != PRDMA_WC_SUCCESS ||
		    wc[i].opcode != PRDMA_WC_RECV_RDMA_WITH_IMM) {
			EX_ERR("producer: credit completion: %s",
			       prdma_wc_status_str(wc[i].status));
			return -EIO;
		}
		/* The immediate is the low 32 bits of the consumer index, which
		 * is never more than a ring behind ours. */
		p->cons_seen = RTE_MAX(p->cons_seen,
				       p->prod - (uint32_t)((uint32_t)p->prod - wc[i].imm_data));
		ret = ex_post_recv(p->e->rc.qp, 0, NULL, 0, 0);
		if (ret < 0)
			return ret;
	}
	n = prdma_cq_poll(p->e->rc.scq, RTE_DIM(wc), wc);
	for (i = 0; i < n; i++) {
		if (wc[i].status != PRDMA_WC_SUCCESS) {
			EX_ERR("producer: WRITE completion: %s",
			       prdma_wc_status_str(wc[i].status));
			return -EIO;
		}
		p->completed = wc[i].wr_id + 1;
	}
	return 0;
}

int
pp_producer_step(void *arg)
{
	struct pp_producer *p = arg;
	struct pp_stage_mem *st = (void *)p->e->mem.p;
	struct rte_mbuf *pkts[PP_BATCH];
	uint64_t credits, first = p->prod;
	uint16_t n, i, want;
	int ret, done;

	pp_source_generate(p->src, p->conf->packets, PP_BATCH);
	ret = pp_producer_poll(p);
	if (ret < 0)
		return ret;
	if (p->finished)
		return p->completed == p->posted;
	credits = PP_RING_SLOTS - (p->prod - p->cons_seen);
	/* A batch posts at most three WRs. */
	if (p->posted - p->completed + 3 > PP_SQ_DEPTH)
		return 0;
	want = p->conf->drop_on_full ? PP_BATCH : (uint16_t)RTE_MIN(credits, (uint64_t)PP_BATCH);
	n = want == 0 ? 0 : rte_eth_rx_burst(p->src->port, 0, pkts, want);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *slot = st->slots[p->prod & (PP_RING_SLOTS - 1)];
		struct pp_slot_hdr *h = (struct pp_slot_hdr *)slot;
		const void *d;
		uint32_t seq;

		if (m->pkt_len > PP_MAX_PKT || m->pkt_len < PP_MIN_PKT) {
			p->oversize++;
		} else if (credits == 0) {
			p->drops++;
		} else {
			/* read() points into the mbuf when the bytes are contiguous
			 * and copies them into the slot only when they are not. */
			d = rte_pktmbuf_read(m, 0, m->pkt_len, slot + PP_SLOT_HDR);
			if (d != slot + PP_SLOT_HDR)
				memcpy(slot + PP_SLOT_HDR, d, m->pkt_len);
			memcpy(&seq, slot + PP_SLOT_HDR + sizeof(struct rte_ether_hdr),
			       sizeof(seq));
			h->len = m->pkt_len;
			h->seq = seq;
			p->prod++;
			credits--;
		}
		rte_pktmbuf_free(m);
	}
	done = p->src->generated == p->conf->packets &&
	       rte_ring_count(p->src->rx_ring) == 0 &&
	       p->prod + p->drops + p->oversize == p->conf->packets;
	if (p->prod != first) {
		p->batches++;
		ret = pp_flush(p, first, p->prod,
			       ex_signal_every(&p->unsignaled, PP_SIGNAL_EVERY, done) != 0);
		if (ret < 0)
			return ret;
	} else if (done && p->unsignaled != 0) {
		/* Nothing new, but the last batches went unsignaled. */
		ret = pp_flush(p, p->prod, p->prod, 1);
		if (ret < 0)
			return ret;
	}
	if (done) {
		p->final = p->prod;
		/* The consumer reads final once it sees finished. */
		__atomic_store_n(&p->finished, 1, __ATOMIC_RELEASE);
	}
	return 0;
}
