/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The engines: pingpong (SEND ping-pong, timed), echo (answer every
 * SEND), write_bw / read_bw / send_bw (keep the send queue full), rxonly
 * (count what arrives). A listed peer of an active pingpong or send_bw
 * stream plays echo or rxonly; of write_bw or read_bw, it just progresses.
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>

#include "tp_fwd.h"

#define TP_POLL 16

/* The QP's buffer as a request's one SGE: every engine sends from and
 * receives into it, and the peer's READs and WRITEs target it. */
static void
buf_sge(const struct tp_stream *st, struct prdma_sge *sge, uint32_t len)
{
	sge->addr = (uintptr_t)st->q->buf;
	sge->length = len;
	sge->lkey = st->q->mr->lkey;
}

int
tp_stream_post_recvs(struct tp_stream *st, uint32_t n)
{
	const struct prdma_recv_wr *bad;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;
	uint32_t i;
	int ret;

	buf_sge(st, &sge, TP_QP_BUF_LEN);
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	for (i = 0; i < n; i++) {
		ret = prdma_post_recv(st->q->qp, &wr, &bad);
		if (ret < 0)
			return ret;
		st->rx_posted++;
	}
	return 0;
}

static int
post(struct tp_stream *st, enum prdma_wr_opcode op, uint32_t len)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	int ret;

	buf_sge(st, &sge, len);
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = len > 0 ? 1 : 0;
	wr.opcode = op;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = st->q->peer_addr;
	wr.wr.rdma.rkey = st->q->peer_rkey;
	ret = prdma_post_send(st->q->qp, &wr, &bad);
	if (ret == 0)
		st->outstanding++;
	return ret;
}

/* Poll the QP's CQs; @p on_recv gets every receive's length. Returns the
 * number of send completions, or -EIO on an error status. */
static int
poll_cqs(struct tp_stream *st, uint32_t *recv_lens, uint32_t *nb_recv)
{
	struct prdma_cq *cqs[2] = { tp.cqs[st->q->scq].cq, tp.cqs[st->q->rcq].cq };
	struct prdma_wc wc[TP_POLL];
	unsigned int c, nb_cq = cqs[0] == cqs[1] ? 1 : 2;
	int n, i, sends = 0;

	*nb_recv = 0;
	for (c = 0; c < nb_cq; c++) {
		n = prdma_cq_poll(cqs[c], TP_POLL, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].status != PRDMA_WC_SUCCESS) {
				st->errors++;
				return -EIO;
			}
			if (wc[i].opcode >= PRDMA_WC_RECV) {
				st->rx_posted--;
				recv_lens[(*nb_recv)++] = wc[i].byte_len;
			} else {
				st->outstanding--;
				sends++;
			}
		}
	}
	return sends;
}

static void
lat_sample(struct tp_stream *st, uint64_t cycles)
{
	st->samples[st->nb_samples % TP_LAT_RING] = cycles;
	st->nb_samples++;
}

static int
begin_recv(struct tp_stream *st)
{
	return tp_stream_post_recvs(st, st->depth);
}

static int
begin_none(struct tp_stream *st)
{
	RTE_SET_USED(st);
	return 0;
}

/*
 * What echo and rxonly share: take the receives that completed, count
 * them, and post as many receives again. Echo answers each with a SEND of
 * the same length first; rxonly, which posts nothing while idle, drives
 * the device's progress when nothing arrived.
 */
static int
step_recvs(struct tp_stream *st, int echo)
{
	uint32_t lens[2 * TP_POLL], nb, i;
	int ret;

	ret = poll_cqs(st, lens, &nb);
	if (ret < 0)
		return ret;
	for (i = 0; i < nb; i++) {
		if (echo) {
			ret = post(st, PRDMA_WR_SEND, lens[i]);
			if (ret < 0)
				return ret;
		}
		st->ops++;
		st->bytes += lens[i];
	}
	if (nb > 0)
		return tp_stream_post_recvs(st, nb);
	if (!echo)
		prdma_dev_progress(tp.devs[st->q->dev].dev);
	return 0;
}

static int
step_echo(struct tp_stream *st)
{
	return step_recvs(st, 1);
}

static int
step_rxonly(struct tp_stream *st)
{
	return step_recvs(st, 0);
}

static int
step_pingpong(struct tp_stream *st)
{
	uint32_t lens[2 * TP_POLL], nb;
	uint64_t now;
	int ret;

	if (st->passive)
		return step_echo(st);
	ret = poll_cqs(st, lens, &nb);
	if (ret < 0)
		return ret;
	if (nb > 0) {
		now = rte_rdtsc();
		lat_sample(st, now - st->t0);
		st->ops++;
		st->bytes += st->size;
		st->waiting = 0;
		ret = tp_stream_post_recvs(st, nb);
		if (ret < 0)
			return ret;
	}
	if (!st->waiting && st->outstanding == 0) {
		st->t0 = rte_rdtsc();
		ret = post(st, PRDMA_WR_SEND, st->size);
		if (ret < 0)
			return ret;
		st->waiting = 1;
	}
	return 0;
}

static int
step_bw(struct tp_stream *st, enum prdma_wr_opcode op)
{
	uint32_t lens[2 * TP_POLL], nb;
	int ret;

	ret = poll_cqs(st, lens, &nb);
	if (ret < 0)
		return ret;
	st->ops += (uint64_t)ret;
	st->bytes += (uint64_t)ret * st->size;
	while (st->outstanding < st->depth) {
		ret = post(st, op, st->size);
		if (ret == -ENOMEM)
			break;
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* A one-sided stream: the active side keeps the queue full; the passive
 * side has nothing to post or poll, but a software provider without its
 * own progress thread only answers READs and places WRITEs when driven. */
static int
step_one_sided(struct tp_stream *st, enum prdma_wr_opcode op)
{
	if (st->passive) {
		prdma_dev_progress(tp.devs[st->q->dev].dev);
		return 0;
	}
	return step_bw(st, op);
}

static int
step_write(struct tp_stream *st)
{
	return step_one_sided(st, PRDMA_WR_RDMA_WRITE);
}

static int
step_read(struct tp_stream *st)
{
	return step_one_sided(st, PRDMA_WR_RDMA_READ);
}

static int
step_send(struct tp_stream *st)
{
	if (st->passive)
		return step_rxonly(st);
	return step_bw(st, PRDMA_WR_SEND);
}

static int
begin_send(struct tp_stream *st)
{
	return st->passive ? begin_recv(st) : 0;
}

static const struct tp_engine eng_pingpong = {
	"pingpong", "SEND ping-pong, timed (a listed peer echoes)", 0, begin_recv, step_pingpong,
};
static const struct tp_engine eng_echo = {
	"echo", "answer every SEND with the same bytes", 0, begin_recv, step_echo,
};
static const struct tp_engine eng_write = {
	"write_bw", "RDMA WRITEs into the peer's buffer, queue kept full", 1, begin_none,
	step_write,
};
static const struct tp_engine eng_read = {
	"read_bw", "RDMA READs of the peer's buffer, queue kept full", 1, begin_none, step_read,
};
static const struct tp_engine eng_send = {
	"send_bw", "SENDs, queue kept full (a listed peer receives)", 0, begin_send, step_send,
};
static const struct tp_engine eng_rxonly = {
	"rxonly", "count what arrives, keep receives posted", 0, begin_recv, step_rxonly,
};

const struct tp_engine *const tp_engines[] = {
	&eng_pingpong, &eng_write, &eng_read, &eng_send, &eng_echo, &eng_rxonly, NULL,
};
