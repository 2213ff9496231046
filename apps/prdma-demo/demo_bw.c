/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Bandwidth: side A keeps a window of WRITE, READ or SEND requests in
 * flight; side B serves (and, for SEND, keeps receives posted).
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>

#include "demo.h"

struct bw_init {
	struct demo_ep *ep;
	enum demo_bw_op op;
	uint32_t size;
	uint32_t msgs;
	uint32_t window;
	uint32_t signal_every;
	uint32_t posted;
	uint32_t outstanding;
	uint32_t unsignaled;
	uint64_t t_start;
	uint64_t t_end;
	volatile int done;
};

struct bw_target {
	struct demo_ep *ep;
	enum demo_bw_op op;
	uint32_t size;
	uint32_t msgs;
	uint32_t recv_posted;   /* SEND: receives posted so far */
	uint32_t received;
	const struct bw_init *init;
};

static int
bw_post(struct bw_init *s)
{
	struct demo_ep *ep = s->ep;
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	sge.length = s->size;
	switch (s->op) {
	case DEMO_BW_WRITE:
		wr.opcode = PRDMA_WR_RDMA_WRITE;
		sge.addr = (uintptr_t)ep->src;
		sge.lkey = ep->src_mr->lkey;
		break;
	case DEMO_BW_READ:
		wr.opcode = PRDMA_WR_RDMA_READ;
		sge.addr = (uintptr_t)ep->buf;
		sge.lkey = ep->buf_mr->lkey;
		break;
	default:
		wr.opcode = PRDMA_WR_SEND;
		sge.addr = (uintptr_t)ep->src;
		sge.lkey = ep->src_mr->lkey;
		break;
	}
	wr.wr.rdma.remote_addr = ep->peer_addr;
	wr.wr.rdma.rkey = ep->peer_rkey;
	s->unsignaled++;
	if (s->unsignaled == s->signal_every || s->posted + 1 == s->msgs) {
		wr.send_flags = PRDMA_SEND_SIGNALED;
		wr.wr_id = s->unsignaled;
		s->unsignaled = 0;
	}
	ret = prdma_post_send(ep->qp, &wr, &bad);
	if (ret < 0) {
		s->unsignaled--;
		if (ret == -ENOMEM)
			return 0;       /* send queue full: reap first */
		DEMO_LOG(ERR, "%s: post of %u bytes: %s", ep->devargs, s->size,
			 rte_strerror(-ret));
		return ret;
	}
	s->posted++;
	s->outstanding++;
	return 1;
}

static int
init_step(void *arg)
{
	struct bw_init *s = arg;
	int ret;

	if (s->t_start == 0)
		s->t_start = rte_rdtsc();
	while (s->posted < s->msgs && s->outstanding < s->window) {
		ret = bw_post(s);
		if (ret < 0)
			return ret;
		if (ret == 0)
			break;
	}
	ret = demo_ep_reap(s->ep, &s->outstanding);
	if (ret < 0)
		return ret;
	if (ret == 0)
		prdma_dev_progress(s->ep->dev);
	if (s->posted == s->msgs && s->outstanding == 0) {
		s->t_end = rte_rdtsc();
		s->done = 1;
		return 1;
	}
	return 0;
}

static int
recv_post(struct bw_target *t, uint32_t n)
{
	const struct prdma_recv_wr *bad;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;
	uint32_t k;
	int ret;

	sge.addr = (uintptr_t)t->ep->buf;
	sge.length = t->size;
	sge.lkey = t->ep->buf_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	for (k = 0; k < n; k++) {
		ret = prdma_post_recv(t->ep->qp, &wr, &bad);
		if (ret < 0) {
			DEMO_LOG(ERR, "%s: post receive: %s", t->ep->devargs, rte_strerror(-ret));
			return ret;
		}
		t->recv_posted++;
	}
	return 0;
}

static int
target_step(void *arg)
{
	struct bw_target *t = arg;
	struct prdma_wc wc[32];
	int n, i, ret;

	if (t->op != DEMO_BW_SEND) {
		prdma_dev_progress(t->ep->dev);
		return t->init->done;
	}
	n = prdma_cq_poll(t->ep->rcq, RTE_DIM(wc), wc);
	if (n == 0)
		prdma_dev_progress(t->ep->dev);
	for (i = 0; i < n; i++) {
		if (wc[i].status != PRDMA_WC_SUCCESS || wc[i].byte_len != t->size) {
			DEMO_LOG(ERR, "%s: receive completion: %s, %u bytes (expected %u)",
				 t->ep->devargs, prdma_wc_status_str(wc[i].status),
				 wc[i].byte_len, t->size);
			return -EIO;
		}
	}
	t->received += (uint32_t)n;
	if (n > 0 && t->recv_posted < t->msgs) {
		ret = recv_post(t, RTE_MIN((uint32_t)n, t->msgs - t->recv_posted));
		if (ret < 0)
			return ret;
	}
	return t->received == t->msgs;
}

int
demo_bandwidth(const struct app_runner *r, struct demo_ep *a, struct demo_ep *b,
	       enum demo_bw_op op, uint32_t size, uint32_t msgs, uint32_t window,
	       struct demo_bw *out, int *verified)
{
	struct bw_init s;
	struct bw_target t;
	uint8_t *dst;
	uint32_t seed = size * 4 + (uint32_t)op + 3;
	double sec;
	long bad;
	int ret;

	if (size == 0 || size > a->buf_len || size > b->buf_len || msgs == 0)
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	s.ep = a;
	s.op = op;
	s.size = size;
	s.msgs = msgs;
	s.window = RTE_MIN(window, a->max_send_wr - 1);
	s.signal_every = RTE_MAX(s.window / 4, 1u);
	t.ep = b;
	t.op = op;
	t.size = size;
	t.msgs = msgs;
	t.init = &s;
	if (op == DEMO_BW_READ) {
		app_pattern_fill(b->buf, size, seed);
		memset(a->buf, 0, size);
		dst = a->buf;
	} else {
		app_pattern_fill(a->src, size, seed);
		memset(b->buf, 0, size);
		dst = b->buf;
	}
	if (op == DEMO_BW_SEND) {
		ret = recv_post(&t, RTE_MIN(msgs, b->max_recv_wr));
		if (ret < 0)
			return ret;
	}
	ret = app_run_pair(r, init_step, &s, target_step, &t);
	if (ret < 0)
		return ret;
	sec = (double)(s.t_end - s.t_start) / (double)rte_get_tsc_hz();
	out->msgs = msgs;
	out->gbps = sec > 0 ? (double)msgs * size * 8.0 / sec / 1e9 : 0;
	out->mmsgs = sec > 0 ? (double)msgs / sec / 1e6 : 0;
	bad = app_pattern_check(dst, size, seed);
	*verified = bad < 0;
	if (bad >= 0)
		DEMO_LOG(ERR, "DATA MISMATCH after %u-byte %s bandwidth at offset %ld",
			 size, op == DEMO_BW_WRITE ? "WRITE" : op == DEMO_BW_READ ?
			 "READ" : "SEND", bad);
	return 0;
}
