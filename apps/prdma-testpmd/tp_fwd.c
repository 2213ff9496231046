/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Streams on worker lcores, start/stop, and the live statistics. */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "tp_fwd.h"

static struct tp_stream streams[TP_MAX_STREAMS];
static unsigned int nb_streams;
static const struct tp_engine *engine;
static volatile int fwd_stop;
static int running;
static uint32_t fwd_size = 64;
static uint32_t fwd_depth = 32;
static uint64_t start_tsc;

int
tp_fwd_running(void)
{
	return running;
}

void
tp_fwd_engines_list(char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; tp_engines[i] != NULL && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "|" : "",
					tp_engines[i]->name);
}

int
tp_fwd_set_size(uint32_t size)
{
	if (size == 0 || size > TP_QP_BUF_LEN) {
		tp_err("fwd size %u: 1..%u bytes", size, TP_QP_BUF_LEN);
		return -EINVAL;
	}
	if (running) {
		tp_err("forwarding is running: 'stop' first");
		return -EBUSY;
	}
	fwd_size = size;
	tp_out("fwd size: %u bytes", size);
	return 0;
}

int
tp_fwd_set_depth(uint32_t depth)
{
	if (depth == 0 || depth > 4096) {
		tp_err("fwd depth %u: 1..4096", depth);
		return -EINVAL;
	}
	if (running) {
		tp_err("forwarding is running: 'stop' first");
		return -EBUSY;
	}
	fwd_depth = depth;
	tp_out("fwd depth: %u requests in flight per stream", depth);
	return 0;
}

static int
worker(void *arg)
{
	unsigned int lcore = rte_lcore_id(), i, n = 0;
	int ret;

	RTE_SET_USED(arg);
	while (!fwd_stop) {
		for (i = 0; i < nb_streams; i++) {
			struct tp_stream *st = &streams[i];

			if (st->lcore != lcore || st->failed)
				continue;
			ret = st->eng->step(st);
			if (ret < 0) {
				st->failed = ret;
				st->errors++;
			}
			/* A peer device that no stream polls must still progress. */
			if (st->peer_dev != NULL && (++n & 15) == 0)
				prdma_dev_progress(st->peer_dev);
		}
	}
	return 0;
}

static int
parse_qps(const char *list, uint32_t *ids, unsigned int *n)
{
	char buf[256], *tok, *save = NULL;
	uint32_t v;

	snprintf(buf, sizeof(buf), "%s", list);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (tp_parse_u32(tok, &v) < 0 || *n == TP_MAX_STREAMS) {
			tp_err("bad QP list '%s': QP ids separated by commas, e.g. 0,1", list);
			return -EINVAL;
		}
		ids[(*n)++] = v;
	}
	if (*n == 0) {
		tp_err("no QP given");
		return -EINVAL;
	}
	return 0;
}

static int
stream_setup(struct tp_stream *st, uint32_t id, const uint32_t *ids, unsigned int k,
	     unsigned int n)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp_attr at;
	struct tp_qp *q = tp_qp_get(id);
	unsigned int j;

	if (q == NULL)
		return -ENOENT;
	if (q->qp->state != PRDMA_QPS_RTS) {
		tp_err("QP %u is in %s: connect it first ('qp connect' or 'cm connect')", id,
		       prdma_qp_state_str((enum prdma_qp_state)q->qp->state));
		return -EINVAL;
	}
	if (q->qp->qp_type == PRDMA_QPT_UD) {
		tp_err("QP %u is UD: the engines run on connected QPs", id);
		return -EINVAL;
	}
	if (engine->needs_rdma_peer && q->peer_rkey == 0) {
		tp_err("QP %u: the peer's buffer is unknown, %s needs it", id, engine->name);
		return -EINVAL;
	}
	for (j = 0; j < k; j++) {
		if (ids[j] == id) {
			tp_err("QP %u listed twice", id);
			return -EINVAL;
		}
		if (q->scq == tp.qps[ids[j]].scq || q->scq == tp.qps[ids[j]].rcq ||
		    q->rcq == tp.qps[ids[j]].scq || q->rcq == tp.qps[ids[j]].rcq) {
			tp_err("QP %u and QP %u share a CQ: each stream needs its own", id, ids[j]);
			return -EINVAL;
		}
	}
	memset(st, 0, sizeof(*st));
	st->qp_id = id;
	st->q = q;
	st->eng = engine;
	st->size = fwd_size;
	prdma_qp_query(q->qp, &at, &ia);
	st->depth = RTE_MIN(fwd_depth, RTE_MAX(1u, at.cap.max_send_wr));
	if (q->srq < 0)
		st->depth = RTE_MIN(st->depth, RTE_MAX(1u, at.cap.max_recv_wr));
	/* The later of two listed peers is the passive end. */
	for (j = 0; j < k; j++)
		if (q->peer == (int)ids[j])
			st->passive = 1;
	if (q->peer >= 0 && q->dev != tp.qps[q->peer].dev) {
		st->peer_dev = tp.devs[tp.qps[q->peer].dev].dev;
		for (j = 0; j < n; j++)
			if ((int)ids[j] == q->peer)
				st->peer_dev = NULL;   /* its own stream polls it */
	}
	return 0;
}

int
tp_fwd_start(const char *name, const char *list)
{
	uint32_t ids[TP_MAX_STREAMS];
	unsigned int i, n, lcore;
	int ret;

	if (running) {
		tp_err("forwarding is already running: 'stop' first");
		return -EBUSY;
	}
	engine = NULL;
	for (i = 0; tp_engines[i] != NULL; i++)
		if (strcmp(tp_engines[i]->name, name) == 0)
			engine = tp_engines[i];
	if (engine == NULL) {
		char names[128];

		tp_fwd_engines_list(names, sizeof(names));
		tp_err("unknown engine '%s' (%s)", name, names);
		return -EINVAL;
	}
	if (rte_get_next_lcore(-1, 1, 0) >= RTE_MAX_LCORE) {
		tp_err("forwarding needs a worker lcore: start with -l 0-1 or more");
		return -ENOTSUP;
	}
	ret = parse_qps(list, ids, &n);
	if (ret < 0)
		return ret;
	for (i = 0; i < n; i++) {
		ret = stream_setup(&streams[i], ids[i], ids, i, n);
		if (ret < 0)
			return ret;
	}
	/* Streams go round robin over the worker lcores. */
	lcore = rte_get_next_lcore(-1, 1, 0);
	for (i = 0; i < n; i++) {
		streams[i].lcore = lcore;
		lcore = rte_get_next_lcore(lcore, 1, 1);
	}
	for (i = 0; i < n; i++) {
		ret = engine->begin(&streams[i]);
		if (ret < 0) {
			tp_err_errno(ret, "engine %s on QP %u", engine->name, ids[i]);
			return ret;
		}
		streams[i].q->in_fwd = 1;
	}
	nb_streams = n;
	fwd_stop = 0;
	start_tsc = rte_rdtsc();
	for (i = 0; i < n; i++)
		streams[i].last_tsc = start_tsc;
	RTE_LCORE_FOREACH_WORKER(lcore) {
		ret = rte_eal_remote_launch(worker, NULL, lcore);
		if (ret < 0) {
			tp_err_errno(ret, "launching lcore %u", lcore);
			fwd_stop = 1;
			rte_eal_mp_wait_lcore();
			return ret;
		}
	}
	running = 1;
	tp_out("fwd %s started: %u stream(s), %u bytes, depth %u", engine->name, n, fwd_size,
	       fwd_depth);
	for (i = 0; i < n; i++)
		tp_out("  stream %u: qp %u on lcore %u%s", i, streams[i].qp_id, streams[i].lcore,
		       streams[i].passive ? " (passive peer)" : "");
	return 0;
}

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

void
tp_fwd_show_stats(void)
{
	static uint64_t sorted[TP_LAT_RING];
	double hz = (double)rte_get_tsc_hz(), dt, us;
	uint64_t now = rte_rdtsc(), ops, bytes, tot_ops = 0, tot_bytes = 0, n;
	unsigned int i;

	if (nb_streams == 0) {
		tp_out("no forwarding has run ('start fwd <engine> <qps>')");
		return;
	}
	tp_out("fwd %s %s, %.1f s since start", engine->name, running ? "running" : "stopped",
	       (double)(now - start_tsc) / hz);
	tp_out("%-7s %-4s %-8s %14s %16s %12s %10s %10s %10s %8s", "stream", "qp", "role",
	       "ops", "bytes", "ops/s", "Gb/s", "p50[us]", "p99[us]", "errors");
	for (i = 0; i < nb_streams; i++) {
		struct tp_stream *st = &streams[i];
		char p50[16] = "-", p99[16] = "-";

		ops = st->ops;
		bytes = st->bytes;
		dt = (double)(now - st->last_tsc) / hz;
		n = RTE_MIN(st->nb_samples, (uint64_t)TP_LAT_RING);
		if (n > 0) {
			/* A racy copy of the ring is good enough for statistics. */
			memcpy(sorted, st->samples, n * sizeof(sorted[0]));
			qsort(sorted, n, sizeof(sorted[0]), cmp_u64);
			us = 1e6 / hz / 2;  /* half a round trip */
			snprintf(p50, sizeof(p50), "%.2f", (double)sorted[(n - 1) / 2] * us);
			snprintf(p99, sizeof(p99), "%.2f", (double)sorted[(n * 99 - 1) / 100] * us);
		}
		tp_out("%-7u %-4u %-8s %14" PRIu64 " %16" PRIu64 " %12.0f %10.3f %10s %10s %8"
		       PRIu64 "%s", i, st->qp_id, st->passive ? "passive" : "active", ops, bytes,
		       dt > 0 ? (double)(ops - st->last_ops) / dt : 0.0,
		       dt > 0 ? (double)(bytes - st->last_bytes) * 8 / dt / 1e9 : 0.0, p50, p99,
		       (uint64_t)st->errors, st->failed ? " (stopped on an error)" : "");
		st->last_ops = ops;
		st->last_bytes = bytes;
		st->last_tsc = now;
		tot_ops += ops;
		tot_bytes += bytes;
	}
	tp_out("total: %" PRIu64 " ops, %" PRIu64 " bytes", tot_ops, tot_bytes);
}

int
tp_fwd_stop(void)
{
	uint64_t deadline;
	unsigned int i;

	if (!running) {
		tp_err("forwarding is not running");
		return -EINVAL;
	}
	fwd_stop = 1;
	rte_eal_mp_wait_lcore();
	running = 0;
	/* Let requests in flight complete, so the QPs can be reused. */
	deadline = rte_rdtsc() + rte_get_tsc_hz() / 2;
	for (i = 0; i < nb_streams; i++) {
		struct tp_stream *st = &streams[i];
		struct prdma_wc wc[16];
		int n, k;

		while (st->outstanding > 0 && rte_rdtsc() < deadline) {
			n = prdma_cq_poll(tp.cqs[st->q->scq].cq, RTE_DIM(wc), wc);
			for (k = 0; k < n; k++)
				if (wc[k].opcode < PRDMA_WC_RECV)
					st->outstanding--;
			if (st->peer_dev != NULL)
				prdma_dev_progress(st->peer_dev);
		}
		st->q->in_fwd = 0;
	}
	tp_out("fwd %s stopped", engine->name);
	tp_fwd_show_stats();
	return 0;
}
