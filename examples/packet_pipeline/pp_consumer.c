/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* The consumer: reads slots up to the published producer index, checks
 * every packet, and returns credits by WRITE with immediate. */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_ether.h>

#include "app_stats.h"
#include "pp.h"

#define PP_CREDIT_WRITES 16               /* credit writes in flight */

static int
pp_slot_check(struct pp_consumer *c, const uint8_t *slot, uint64_t *last_seq)
{
	const struct pp_slot_hdr *h = (const void *)slot;
	const uint8_t *pkt = slot + PP_SLOT_HDR;
	uint32_t seq;

	memcpy(&seq, pkt + sizeof(struct rte_ether_hdr), sizeof(seq));
	if (h->len != pp_packet_len(h->seq) || seq != h->seq ||
	    (c->cons != 0 && h->seq <= *last_seq) ||
	    app_pattern_check(pkt + sizeof(struct rte_ether_hdr) + 4,
			      h->len - sizeof(struct rte_ether_hdr) - 4, seq) >= 0) {
		if (c->bad++ < 5)
			EX_ERR("consumer: slot %" PRIu64 " holds a bad packet (seq %" PRIu32
			       ", len %" PRIu32 ")", c->cons, h->seq, h->len);
		return -1;
	}
	*last_seq = h->seq;
	c->bytes += h->len;
	return 0;
}

static int
pp_credit(struct pp_consumer *c)
{
	uint64_t *cell = (uint64_t *)c->e->small.p;
	struct prdma_sge sge = { .addr = (uintptr_t)cell, .length = sizeof(*cell),
				 .lkey = c->e->small.mr->lkey };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	int ret;

	*cell = c->cons;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = c->posted;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = PRDMA_SEND_SIGNALED | PRDMA_SEND_INLINE;
	wr.imm_data = (uint32_t)c->cons;
	wr.wr.rdma.remote_addr = c->remote_addr;
	wr.wr.rdma.rkey = c->remote_rkey;
	ret = prdma_post_send(c->e->rc.qp, &wr, &bad);
	if (ret < 0) {
		EX_ERR("consumer: credit write: %s", rte_strerror(-ret));
		return ret;
	}
	c->posted++;
	c->returned = c->cons;
	return 0;
}

int
pp_consumer_step(void *arg)
{
	struct pp_consumer *c = arg;
	struct pp_ring_mem *r = (void *)c->e->mem.p;
	struct prdma_wc wc[8];
	uint64_t prod;
	unsigned int k;
	int n, i;

	/* Polling the send CQ also drives the device's engine, which is what
	 * places the producer's WRITEs in our memory. */
	n = prdma_cq_poll(c->e->rc.scq, RTE_DIM(wc), wc);
	for (i = 0; i < n; i++) {
		if (wc[i].status != PRDMA_WC_SUCCESS) {
			EX_ERR("consumer: credit write completion: %s",
			       prdma_wc_status_str(wc[i].status));
			return -EIO;
		}
		c->completed = wc[i].wr_id + 1;
	}
	prod = r->prod;
	/* The slots below prod were placed before prod was: read them after. */
	rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (k = 0; k < PP_BATCH && c->cons < prod; k++) {
		if (c->first_tsc == 0)
			c->first_tsc = rte_rdtsc();
		pp_slot_check(c, r->slots[c->cons & (PP_RING_SLOTS - 1)], &c->last_seq);
		c->cons++;
		c->last_tsc = rte_rdtsc();
	}
	if (c->cons != c->returned && c->posted - c->completed < PP_CREDIT_WRITES &&
	    (c->cons - c->returned >= PP_CREDIT_EVERY || c->cons == prod)) {
		if (pp_credit(c) < 0)
			return -EIO;
	}
	if (__atomic_load_n(&c->p->finished, __ATOMIC_ACQUIRE) && c->cons == c->p->final &&
	    c->cons == c->returned && c->completed == c->posted)
		return 1;
	return 0;
}
