/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Subscribers: each a UD QP attached to the group, with its own receive
 * ring, gap detection and latency samples. */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "md.h"

static int
md_sub_post(struct md_sub *s, uint32_t slot)
{
	return ex_post_recv(s->qp, slot, s->buf.p + (size_t)slot * MD_SLOT, MD_SLOT,
			    s->buf.mr->lkey);
}

int
md_sub_post_all(struct md_sub *s)
{
	uint32_t i;
	int ret;

	for (i = 0; i < MD_RQ_DEPTH; i++) {
		ret = md_sub_post(s, i);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int
md_sub_tick(struct md_sub *s, const struct prdma_wc *wc, uint64_t now,
	    const struct md_conf *conf)
{
	const struct md_tick *t;
	uint32_t slot = (uint32_t)wc->wr_id;

	if (wc->status != PRDMA_WC_SUCCESS || wc->byte_len != MD_GRH + sizeof(*t)) {
		EX_ERR("subscriber %u: bad receive: %s, %" PRIu32 " bytes", s->id,
		       prdma_wc_status_str(wc->status), wc->byte_len);
		s->bad++;
		return md_sub_post(s, slot);
	}
	t = (const void *)(s->buf.p + (size_t)slot * MD_SLOT + MD_GRH);
	if (s->first_tsc == 0)
		s->first_tsc = now;
	s->last_tsc = now;
	if (t->seq < s->next_seq || t->seq >= conf->ticks) {
		s->bad++;                  /* duplicate or out of order */
	} else {
		s->gaps += t->seq - s->next_seq;
		s->next_seq = t->seq + 1;
		s->lat[s->received++] = now - t->tsc;
	}
	s->progress = s->next_seq;
	if (s->next_seq == conf->ticks)
		s->done = 1;
	/* Post the slot back before anything else can take the ring's room. */
	return md_sub_post(s, slot);
}

static int
md_sub_poll(struct md_sub *s, const struct md_conf *conf)
{
	struct prdma_wc wc[32];
	uint64_t now;
	int n, i, ret;

	n = prdma_cq_poll(s->cq, RTE_DIM(wc), wc);
	now = rte_rdtsc();
	for (i = 0; i < n; i++) {
		ret = md_sub_tick(s, &wc[i], now, conf);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int
md_sub_lcore(void *arg)
{
	struct md_worker *w = arg;
	unsigned int i, left;
	int ret;

	do {
		left = 0;
		for (i = 0; i < w->nb; i++) {
			if (w->subs[i]->done)
				continue;
			left++;
			ret = md_sub_poll(w->subs[i], w->conf);
			if (ret < 0) {
				w->subs[i]->err = ret;
				*w->abort_flag = 1;
				return ret;
			}
		}
		if (rte_rdtsc() > w->deadline) {
			*w->abort_flag = 1;
			return -ETIMEDOUT;
		}
	} while (left != 0 && !*w->abort_flag);
	return 0;
}
