/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * rping's ping loop on an established connection (rdma-core 44
 * librdmacm/examples/rping.c): server and client sides, one receive of
 * 16 bytes posted at a time and re-posted as soon as it completes, every
 * SEND signaled.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>

#include <prdma_fp.h>

#include "rping.h"

#define RECV_OFF 0
#define SEND_OFF 16
#define RDMA_OFF 64

static char *
rdma_buf(struct rping_ep *e)
{
	return (char *)e->c.mem + RDMA_OFF;
}

static char *
start_buf(struct rping_ep *e)
{
	return (char *)e->c.mem + RDMA_OFF + e->o->size;
}

void
rping_fill(char *buf, uint32_t size, int ping)
{
	/* The letters 'A'..'z' from a start letter that moves by one each
	 * ping, after "rdma-ping-N: ", NUL at the end (as rping). */
	int start = 65 + ping % 58;
	uint32_t i;
	int cc;
	unsigned char c;

	cc = snprintf(buf, size, "rdma-ping-%d: ", ping);
	if (cc < 0)
		cc = 0;
	for (i = (uint32_t)cc, c = (unsigned char)start; i < size; i++) {
		buf[i] = (char)c;
		if (++c > 122)
			c = 65;
	}
	buf[size - 1] = 0;
}

static int
post_recv(struct rping_ep *e)
{
	struct prdma_sge sge = { .addr = (uintptr_t)e->c.mem + RECV_OFF,
				 .length = sizeof(struct rping_info), .lkey = e->c.mr->lkey };
	struct prdma_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	const struct prdma_recv_wr *bad;

	return prdma_post_recv(e->c.qp, &wr, &bad);
}

static int
post(struct rping_ep *e, enum prdma_wr_opcode op, void *laddr, uint32_t len,
     uint64_t raddr, uint32_t rkey)
{
	struct prdma_sge sge = { .addr = (uintptr_t)laddr, .length = len, .lkey = e->c.mr->lkey };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return prdma_post_send(e->c.qp, &wr, &bad);
}

/* SEND the 16-byte advertisement of @p buf. */
static int
advertise(struct rping_ep *e, const void *buf)
{
	struct rping_info *in = (struct rping_info *)(e->c.mem + SEND_OFF);

	in->buf = rte_cpu_to_be_64((uint64_t)(uintptr_t)buf);
	in->rkey = rte_cpu_to_be_32(e->c.mr->rkey);
	in->size = rte_cpu_to_be_32(e->o->size);
	return post(e, PRDMA_WR_SEND, in, sizeof(*in), 0, 0);
}

/* Handle queued CM events: a DISCONNECTED ends the loop. */
static int
cm_events(struct rping_ep *e)
{
	struct prdma_cm_event *ev;

	while (prdma_cm_get_event(e->c.ch, &ev) == 0) {
		switch (ev->event) {
		case PRDMA_CM_EVENT_DISCONNECTED:
			fprintf(stderr, "%s DISCONNECT EVENT...\n",
				e->o->server ? "server" : "client");
			e->disconnected = 1;
			break;
		case PRDMA_CM_EVENT_ESTABLISHED:
		case PRDMA_CM_EVENT_TIMEWAIT_EXIT:
			break;
		default:
			fprintf(stderr, "cma event %s, error %d\n",
				prdma_cm_event_str(ev->event), ev->status);
			prdma_cm_ack_event(ev);
			return -1;
		}
		prdma_cm_ack_event(ev);
	}
	return 0;
}

/*
 * Wait for the next completion of kind @p want (a receive, or the READ or
 * WRITE), taking SEND completions on the way. 0, 1 when the peer
 * disconnected, -1 on an error or the timeout.
 */
static int
wait_for(struct rping_ep *e, enum prdma_wc_opcode want, struct prdma_wc *out)
{
	struct prdma_wc wc;

	e->deadline = app_now() + e->o->timeout_s;
	for (;;) {
		prdma_cm_channel_progress(e->c.ch);
		prdma_dev_progress(e->c.dev);
		if (cm_events(e) < 0)
			return -1;
		while (prdma_cq_poll(e->c.cq, 1, &wc) == 1) {
			if (wc.status != PRDMA_WC_SUCCESS) {
				if (wc.status == PRDMA_WC_WR_FLUSH_ERR && e->disconnected)
					return 1;
				fprintf(stderr, "cq completion failed status %d (%s)\n",
					wc.status, prdma_wc_status_str(wc.status));
				return -1;
			}
			if (wc.opcode == PRDMA_WC_SEND)
				continue;
			if (wc.opcode != want) {
				fprintf(stderr, "unexpected completion opcode %d\n", wc.opcode);
				return -1;
			}
			if (wc.opcode == PRDMA_WC_RECV) {
				if (wc.byte_len != sizeof(struct rping_info)) {
					fprintf(stderr, "Received bogus data, size %u\n",
						wc.byte_len);
					return -1;
				}
				if (post_recv(e) != 0) {
					fprintf(stderr, "post recv error\n");
					return -1;
				}
			}
			*out = wc;
			return 0;
		}
		if (e->disconnected)
			return 1;
		if (app_now() > e->deadline) {
			fprintf(stderr, "timed out waiting (%.0f s)\n", e->o->timeout_s);
			return -1;
		}
	}
}

static void
peer_info(struct rping_ep *e, uint64_t *addr, uint32_t *rkey, uint32_t *len)
{
	const struct rping_info *in = (const struct rping_info *)(e->c.mem + RECV_OFF);

	*addr = rte_be_to_cpu_64(in->buf);
	*rkey = rte_be_to_cpu_32(in->rkey);
	*len = rte_be_to_cpu_32(in->size);
}

int
rping_run_server(struct rping_ep *e)
{
	struct prdma_wc wc;
	uint64_t raddr;
	uint32_t rkey, rlen, wlen;
	int ret;

	if (post_recv(e) != 0)
		return -1;
	for (;;) {
		/* The client's start buffer. */
		ret = wait_for(e, PRDMA_WC_RECV, &wc);
		if (ret != 0)
			return ret > 0 ? 0 : -1;
		peer_info(e, &raddr, &rkey, &rlen);
		if (rlen > e->o->size) {
			fprintf(stderr, "client's buffer (%u) is larger than ours (%u)\n",
				rlen, e->o->size);
			return -1;
		}
		if (post(e, PRDMA_WR_RDMA_READ, rdma_buf(e), rlen, raddr, rkey) != 0 ||
		    wait_for(e, PRDMA_WC_RDMA_READ, &wc) != 0)
			return -1;
		if (e->o->verbose)
			printf("server ping data: %.*s\n", (int)rlen, rdma_buf(e));
		if (advertise(e, rdma_buf(e)) != 0)
			return -1;
		/* The client's sink buffer. */
		if (wait_for(e, PRDMA_WC_RECV, &wc) != 0)
			return -1;
		peer_info(e, &raddr, &rkey, &rlen);
		/* rping writes strlen + 1: the string and its NUL. */
		wlen = (uint32_t)strnlen(rdma_buf(e), e->o->size);
		if (wlen < e->o->size)
			wlen++;
		if (wlen > rlen) {
			fprintf(stderr, "client's sink (%u) is too small (%u)\n", rlen, wlen);
			return -1;
		}
		if (post(e, PRDMA_WR_RDMA_WRITE, rdma_buf(e), wlen, raddr, rkey) != 0 ||
		    wait_for(e, PRDMA_WC_RDMA_WRITE, &wc) != 0)
			return -1;
		if (advertise(e, rdma_buf(e)) != 0)
			return -1;
		fflush(stdout);
	}
}

int
rping_run_client(struct rping_ep *e)
{
	struct prdma_wc wc;
	int ping;

	if (post_recv(e) != 0)
		return -1;
	for (ping = 0; e->o->count == 0 || ping < e->o->count; ping++) {
		rping_fill(start_buf(e), e->o->size, ping);
		if (advertise(e, start_buf(e)) != 0 || wait_for(e, PRDMA_WC_RECV, &wc) != 0)
			return -1;
		if (advertise(e, rdma_buf(e)) != 0 || wait_for(e, PRDMA_WC_RECV, &wc) != 0)
			return -1;
		if (e->o->validate && memcmp(start_buf(e), rdma_buf(e), e->o->size) != 0) {
			fprintf(stderr, "data mismatch!\n");
			return -1;
		}
		if (e->o->verbose)
			printf("ping data: %.*s\n", (int)e->o->size, rdma_buf(e));
		fflush(stdout);
	}
	return 0;
}
