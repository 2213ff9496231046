/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* The publisher: inline UD SENDs to the group's address handle. */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_pause.h>

#include "md.h"

static const char *const md_symbols[] = { "ACME", "GLOBX", "INIT", "UMBR", "VAND" };

/* The slowest subscriber bounds how far ahead we may run: a real feed
 * paces by rate, this one by what its in-process readers have taken, so a
 * run with no deliberate gaps has none. */
static uint64_t
md_slowest(const struct md_pub *p)
{
	uint64_t m = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < p->conf->subs; i++)
		m = RTE_MIN(m, p->subs[i].progress);
	return m;
}

static int
md_send(struct md_pub *p)
{
	struct md_tick t;
	struct prdma_sge sge = { .addr = (uintptr_t)&t, .length = sizeof(t) };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	int ret;

	memset(&t, 0, sizeof(t));
	t.seq = p->seq;
	snprintf(t.symbol, sizeof(t.symbol), "%s", md_symbols[p->seq % RTE_DIM(md_symbols)]);
	t.price_ticks = (uint32_t)(10000 + p->seq % 97);
	t.size = (uint32_t)(100 * (1 + p->seq % 7));
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = p->posted;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_INLINE |
		ex_signal_every(&p->unsignaled, MD_SIGNAL_EVERY, p->seq + 1 == p->conf->ticks);
	wr.wr.ud.ah = p->ah;
	wr.wr.ud.remote_qpn = MD_MCAST_QPN;
	wr.wr.ud.remote_qkey = MD_QKEY;
	t.tsc = rte_rdtsc();                 /* as late as possible */
	ret = prdma_post_send(p->qp, &wr, &bad);
	if (ret < 0) {
		EX_ERR("publisher: tick %" PRIu64 ": %s", p->seq, rte_strerror(-ret));
		return ret;
	}
	p->posted++;
	p->sent++;
	return 0;
}

int
md_pub_run(struct md_pub *p, volatile int *abort_flag, uint64_t deadline)
{
	struct prdma_wc wc[16];
	int n, i, ret;

	while (!*abort_flag) {
		n = prdma_cq_poll(p->cq, RTE_DIM(wc), wc);
		for (i = 0; i < n; i++) {
			if (wc[i].status != PRDMA_WC_SUCCESS) {
				EX_ERR("publisher: send completion: %s",
				       prdma_wc_status_str(wc[i].status));
				return -EIO;
			}
			p->completed = wc[i].wr_id + 1;
		}
		if (p->seq == p->conf->ticks) {
			if (p->completed == p->posted)
				return 0;
		} else if (md_is_skipped(p->conf, p->seq)) {
			p->skipped++;
			p->seq++;
		} else if (p->posted - p->completed < MD_SQ_DEPTH - MD_SIGNAL_EVERY &&
			   p->seq < md_slowest(p) + MD_RQ_DEPTH / 2) {
			ret = md_send(p);
			if (ret < 0)
				return ret;
			p->seq++;
		}
		if (rte_rdtsc() > deadline) {
			EX_ERR("publisher: timed out at tick %" PRIu64, p->seq);
			return -ETIMEDOUT;
		}
	}
	return -EINTR;
}
