/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Posting and reaping shared by the latency and bandwidth loops. */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include "perf.h"

/* Samples kept in a timed (-D) latency run; later ones are counted only. */
#define PERF_DURATION_SAMPLES (1u << 22)
/* The peak rate is measured over windows of at least this many us. */
#define PERF_PEAK_WINDOW_US 100
/* Look at the out-of-band socket once in this many idle steps. */
#define PERF_PEER_CHECK_EVERY 256

int
perf_run_init(struct perf_run *r, struct perf_side *s, uint32_t size)
{
	const struct perf_opts *o = s->o;

	memset(r, 0, sizeof(*r));
	r->side = s;
	r->size = size;
	r->iters = o->duration > 0 ? 0 : o->iters;
	if (o->duration > 0)
		r->deadline = rte_rdtsc() + (uint64_t)(o->duration * rte_get_tsc_hz());
	r->sig_every = RTE_MAX(1u, RTE_MIN(o->cq_mod, s->max_send_wr));
	/* A READ or atomic latency sample ends with its own completion. */
	if (perf_test_is_lat(o->test) && (perf_test_verb(o->test) == PERF_VERB_READ ||
					  perf_test_verb(o->test) == PERF_VERB_ATOMIC))
		r->sig_every = 1;
	r->q_out = calloc(s->nqp, sizeof(*r->q_out));
	r->q_unsig = calloc(s->nqp, sizeof(*r->q_unsig));
	r->q_posted = calloc(s->nqp, sizeof(*r->q_posted));
	r->nb_samples_max = r->iters != 0 ? r->iters : PERF_DURATION_SAMPLES;
	if (perf_test_is_lat(o->test))
		r->samples = calloc(r->nb_samples_max, sizeof(*r->samples));
	if (r->q_out == NULL || r->q_unsig == NULL || r->q_posted == NULL ||
	    (perf_test_is_lat(o->test) && r->samples == NULL)) {
		perf_run_fini(r);
		return -ENOMEM;
	}
	return 0;
}

void
perf_run_fini(struct perf_run *r)
{
	free(r->q_out);
	free(r->q_unsig);
	free(r->q_posted);
	free(r->samples);
	r->q_out = r->q_unsig = NULL;
	r->q_posted = NULL;
	r->samples = NULL;
}

int
perf_reap(struct perf_run *r)
{
	uint64_t now, win = rte_get_tsc_hz() / (1000000 / PERF_PEAK_WINDOW_US);
	struct perf_side *s = r->side;
	struct prdma_wc wc[32];
	double rate;
	int n, i;

	n = prdma_cq_poll(s->scq, RTE_DIM(wc), wc);
	if (n <= 0)
		return n;
	for (i = 0; i < n; i++) {
		uint32_t q = (uint32_t)(wc[i].wr_id >> 32);
		uint32_t cnt = (uint32_t)wc[i].wr_id;

		if (wc[i].status != PRDMA_WC_SUCCESS || q >= s->nqp) {
			PERF_LOG(ERR, "%s: completion on QP 0x%06x: %s (vendor 0x%x)",
				 s->devargs, wc[i].qp_num, prdma_wc_status_str(wc[i].status),
				 wc[i].vendor_err);
			return -EIO;
		}
		r->q_out[q] -= cnt;
		r->completed += cnt;
	}
	now = rte_rdtsc();
	r->t_last = now;
	if (r->t_prev_comp == 0) {
		r->t_prev_comp = now;
		r->ops_prev_comp = r->completed;
	} else if (now - r->t_prev_comp >= win) {
		rate = (double)(r->completed - r->ops_prev_comp) * (double)rte_get_tsc_hz() /
		       (double)(now - r->t_prev_comp);
		if (rate > r->peak_ops_s)
			r->peak_ops_s = rate;
		r->t_prev_comp = now;
		r->ops_prev_comp = r->completed;
	}
	return n;
}

int
perf_post(struct perf_run *r, uint32_t q, uint8_t stamp, int force_signal)
{
	struct perf_side *s = r->side;
	enum perf_verb v = perf_test_verb(s->o->test);
	const struct perf_key *pk = &s->peer[q];
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	uint8_t *src = perf_tx_slot(s, q);
	int ret;

	while (r->q_out[q] >= s->max_send_wr) {
		ret = perf_reap(r);
		if (ret < 0)
			return ret;
		if (app_abort)
			return -ETIMEDOUT;
	}
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)src;
	sge.length = r->size;
	sge.lkey = s->mr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	switch (v) {
	case PERF_VERB_WRITE:
	case PERF_VERB_SEND:
		src[r->size - 1] = stamp;
		wr.opcode = v == PERF_VERB_SEND ? PRDMA_WR_SEND : PRDMA_WR_RDMA_WRITE;
		if (s->o->conn == PERF_CONN_UD) {
			wr.wr.ud.ah = s->ah[q];
			wr.wr.ud.remote_qpn = pk->qpn;
			wr.wr.ud.remote_qkey = s->peer_qkey[q];
		} else {
			wr.wr.rdma.remote_addr = pk->vaddr;
			wr.wr.rdma.rkey = pk->rkey;
		}
		if (r->size <= s->max_inline && r->size <= s->o->inline_size)
			wr.send_flags |= PRDMA_SEND_INLINE;
		break;
	case PERF_VERB_READ:
		sge.addr = (uintptr_t)perf_rx_slot(s, q);
		wr.opcode = PRDMA_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = pk->vaddr;
		wr.wr.rdma.rkey = pk->rkey;
		break;
	case PERF_VERB_ATOMIC:
		sge.addr = (uintptr_t)perf_rx_slot(s, q);
		sge.length = 8;
		wr.opcode = s->o->atomic_cas ? PRDMA_WR_ATOMIC_CMP_AND_SWP :
			    PRDMA_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = pk->vaddr;
		wr.wr.atomic.rkey = pk->rkey;
		wr.wr.atomic.compare_add = s->o->atomic_cas ? 0 : 1;
		wr.wr.atomic.swap = 0;
		break;
	}
	r->q_unsig[q]++;
	if (force_signal || r->q_unsig[q] >= r->sig_every) {
		wr.send_flags |= PRDMA_SEND_SIGNALED;
		/* wr_id: the QP and how many requests this completion covers. */
		wr.wr_id = (uint64_t)q << 32 | r->q_unsig[q];
		r->q_unsig[q] = 0;
	}
	ret = prdma_post_send(s->qp[q], &wr, &bad);
	if (ret < 0) {
		PERF_LOG(ERR, "%s: post of %u bytes on QP 0x%06x: %s", s->devargs, r->size,
			 s->qp[q]->qp_num, rte_strerror(-ret));
		return ret;
	}
	if (r->posted == 0)
		r->t_first = rte_rdtsc();
	r->q_out[q]++;
	r->q_posted[q]++;
	r->posted++;
	return 0;
}

int
perf_peer_done(const struct perf_side *s)
{
	struct pollfd pfd;

	if (s->peer_done_flag != NULL)
		return *s->peer_done_flag;
	/* -R: the client's next out-of-band SEND has arrived. */
	if (s->cm_mode)
		return prdma_cq_peek(s->ctl_rcq) > 0;
	if (s->oob_fd < 0)
		return 0;
	pfd.fd = s->oob_fd;
	pfd.events = POLLIN;
	/* The client's next out-of-band message (or its close) ends the run. */
	return poll(&pfd, 1, 0) > 0;
}

/* Whether a run with a duration is over, or one with a count has posted all. */
static inline int
run_over(const struct perf_run *r, uint64_t target)
{
	return r->iters != 0 ? r->posted >= target : rte_rdtsc() >= r->deadline;
}

int
perf_lat_initiator(const struct perf_side *s)
{
	/* perftest's write_lat server posts its first WRITE unprompted and the
	 * client answers (run_iter_lat_write: no poll while "scnt < 1 &&
	 * machine == SERVER"); in send_lat it is the client that goes first
	 * (run_iter_lat_send), and only the client posts READs and atomics. */
	return s->o->test == PERF_WRITE_LAT ? s->server : !s->server;
}

static int
step_lat(struct perf_run *r)
{
	int ret;

	ret = perf_lat_initiator(r->side) ? perf_lat_client(r) : perf_lat_server(r);
	/* The loopback's responder of a timed run ends with the initiator. */
	if (ret > 0 && perf_lat_initiator(r->side) && r->side->peer_done_flag != NULL)
		*r->side->peer_done_flag = 1;
	return ret;
}

int
perf_step_client(void *arg)
{
	struct perf_run *r = arg;
	int ret;

	if (perf_test_is_lat(r->side->o->test))
		return step_lat(r);
	ret = perf_bw_client(r);
	if (ret > 0 && r->side->peer_done_flag != NULL)
		*r->side->peer_done_flag = 1;
	return ret;
}

int
perf_step_server(void *arg)
{
	struct perf_run *r = arg;
	struct perf_side *s = r->side;

	if (perf_test_is_lat(s->o->test))
		return step_lat(r);
	return perf_bw_server(r);
}

int
perf_run_over(const struct perf_run *r, uint64_t target)
{
	return run_over(r, target);
}

int
perf_idle_until_peer(struct perf_run *r)
{
	prdma_dev_progress(r->side->dev);
	if (++r->check % PERF_PEER_CHECK_EVERY != 0)
		return 0;
	return perf_peer_done(r->side);
}

/* One receive completion taken: its QP gets the receive back at once. */
static int
recv_done(struct perf_run *r, struct prdma_wc *wc, uint32_t *q)
{
	struct perf_side *s = r->side;
	int n;

	/* A receive posted for an out-of-band message (-R) may take data. */
	if (wc->wr_id == 0xffffffffull)
		wc->wr_id = 0;
	if (wc->status != PRDMA_WC_SUCCESS || wc->wr_id >= s->nqp) {
		PERF_LOG(ERR, "%s: receive on QP 0x%06x: %s (vendor 0x%x)", s->devargs,
			 wc->qp_num, prdma_wc_status_str(wc->status), wc->vendor_err);
		return -EIO;
	}
	*q = (uint32_t)wc->wr_id;
	r->received++;
	/* The peer must never see RNR. */
	n = perf_side_fill_recv(s, *q, 1);
	return n < 0 ? n : 1;
}

int
perf_recv_one(struct perf_run *r, uint32_t *q)
{
	struct prdma_wc wc;
	int n;

	n = prdma_cq_poll(r->side->rcq, 1, &wc);
	if (n <= 0)
		return n;
	return recv_done(r, &wc, q);
}

int
perf_recv_burst(struct perf_run *r)
{
	struct prdma_wc wc[PERF_RECV_BURST];
	uint32_t q;
	int n, i, ret;

	n = prdma_cq_poll(r->side->rcq, PERF_RECV_BURST, wc);
	for (i = 0; i < n; i++) {
		ret = recv_done(r, &wc[i], &q);
		if (ret < 0)
			return ret;
	}
	return n;
}
