/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The prdma end: a roce device on ethdev port 0 (net_af_xdp), addresses
 * and the peer's MAC found by the provider, the connection set up by the
 * connection manager from the peer's IP and port alone. Then a data check
 * (WRITE + SEND checked by the server, READ checked by the client) and a
 * WRITE ping-pong whose half round trip is reported.
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <linux/if_xdp.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mempool.h>

#include <prdma.h>
#include <prdma_cm.h>
#include <prdma_counters.h>
#include <prdma_fp.h>
#include <prdma_roce.h>

#include "app_stats.h"
#include "nsdemo.h"

/* What each side tells the other in the CM private data. */
struct nsd_peer {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

struct nsd_ep {
	const struct nsd_opts *o;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *scq;
	struct prdma_cq *rcq;
	struct prdma_qp *qp;
	struct prdma_mr *mr;
	uint8_t *buf;          /* [data V][ping S][pong staging S][recv 4 x 64] */
	size_t len;
	struct nsd_peer peer;
	struct prdma_cm_channel *ch;
	struct prdma_cm_id *id;
	struct prdma_cm_id *conn;
	double deadline;
	/* ping-pong loop: TSC of its last look, longest gap, gaps over 1 ms */
	uint64_t last_look;
	uint64_t max_gap;
	uint64_t gaps_1ms;
};

#define RECV_SLOT 64
#define RECV_NB   4

static uint8_t *
data_area(struct nsd_ep *e)
{
	return e->buf;
}

static uint8_t *
ping_area(struct nsd_ep *e)
{
	return e->buf + e->o->verify_len;
}

static uint8_t *
stage_area(struct nsd_ep *e)
{
	return ping_area(e) + e->o->size;
}

static uint8_t *
recv_area(struct nsd_ep *e, unsigned int i)
{
	return stage_area(e) + e->o->size + (size_t)i * RECV_SLOT;
}

static int
timed_out(struct nsd_ep *e, const char *what)
{
	if (nsd_now() < e->deadline)
		return 0;
	fprintf(stderr, "%s: timed out waiting for %s\n", e->o->server ? "server" : "client",
		what);
	return 1;
}

static int
post_recv(struct nsd_ep *e, unsigned int i)
{
	struct prdma_sge sge = { .addr = (uintptr_t)recv_area(e, i), .length = RECV_SLOT,
				 .lkey = e->mr->lkey };
	struct prdma_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	const struct prdma_recv_wr *bad;

	return prdma_post_recv(e->qp, &wr, &bad);
}

static int
setup(struct nsd_ep *e)
{
	char args[512];
	struct prdma_cq_init_attr ca;
	struct prdma_qp_init_attr ia;
	int id;

	snprintf(args, sizeof(args), "roce:port=0%s%s", e->o->devargs[0] != '\0' ? "," : "",
		 e->o->devargs);
	id = prdma_dev_probe(args);
	if (id < 0) {
		fprintf(stderr, "probe %s: %s\n", args, strerror(-id));
		return -1;
	}
	e->dev = prdma_dev_open((uint16_t)id);
	e->pd = e->dev != NULL ? prdma_pd_alloc(e->dev) : NULL;
	if (e->pd == NULL) {
		fprintf(stderr, "open/PD: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 256;
	e->scq = prdma_cq_create(e->dev, &ca);
	e->rcq = prdma_cq_create(e->dev, &ca);
	e->len = e->o->verify_len + 2 * (size_t)e->o->size + RECV_NB * RECV_SLOT;
	e->buf = rte_zmalloc(NULL, e->len, 64);
	if (e->scq == NULL || e->rcq == NULL || e->buf == NULL) {
		fprintf(stderr, "CQ/buffer: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	e->mr = prdma_mr_reg(e->pd, e->buf, e->len, PRDMA_ACCESS_ALL);
	if (e->mr == NULL) {
		fprintf(stderr, "MR: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = e->scq;
	ia.recv_cq = e->rcq;
	ia.cap.max_send_wr = 128;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = 256;
	e->qp = prdma_qp_create(e->pd, &ia);
	if (e->qp == NULL) {
		fprintf(stderr, "QP: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	e->ch = prdma_cm_channel_create(0);
	if (e->ch == NULL) {
		fprintf(stderr, "CM channel: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	e->id = prdma_cm_id_create(e->ch, e->dev, 1, PRDMA_CM_PS_TCP, e);
	if (e->id == NULL) {
		fprintf(stderr, "CM id: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

static void
progress(struct nsd_ep *e)
{
	prdma_cm_channel_progress(e->ch);
	prdma_dev_progress(e->dev);
}

/* Wait for @want; CONNECT_REQUEST is answered on the way (server). */
static int
cm_wait(struct nsd_ep *e, enum prdma_cm_event_type want)
{
	struct prdma_cm_conn_param p;
	struct prdma_cm_event *ev;
	struct nsd_peer me = { .addr = (uintptr_t)e->buf, .rkey = e->mr->rkey,
			       .len = (uint32_t)e->len };
	int ret;

	while (!timed_out(e, prdma_cm_event_str(want))) {
		progress(e);
		if (prdma_cm_get_event(e->ch, &ev) != 0)
			continue;
		if (ev->event == PRDMA_CM_EVENT_CONNECT_REQUEST && e->conn == NULL) {
			memcpy(&e->peer, ev->private_data, sizeof(e->peer));
			e->conn = ev->id;
			memset(&p, 0, sizeof(p));
			p.private_data = &me;
			p.private_data_len = sizeof(me);
			p.responder_resources = 4;
			p.initiator_depth = 4;
			p.retry_count = 7;
			p.rnr_retry_count = 7;
			p.ack_timeout = 10;
			ret = prdma_cm_accept(ev->id, e->qp, &p);
			prdma_cm_ack_event(ev);
			if (ret != 0) {
				fprintf(stderr, "accept: %s\n", strerror(-ret));
				return -1;
			}
			continue;
		}
		if (ev->event == want) {
			if (want == PRDMA_CM_EVENT_ESTABLISHED && !e->o->server)
				memcpy(&e->peer, ev->private_data, sizeof(e->peer));
			prdma_cm_ack_event(ev);
			return 0;
		}
		fprintf(stderr, "%s: unexpected CM event %s (status %d)\n",
			e->o->server ? "server" : "client", prdma_cm_event_str(ev->event),
			ev->status);
		prdma_cm_ack_event(ev);
		return -1;
	}
	return -1;
}

static int
post_send(struct nsd_ep *e, enum prdma_wr_opcode op, void *laddr, uint32_t len,
	  uint64_t raddr, uint32_t flags, uint32_t imm)
{
	struct prdma_sge sge = { .addr = (uintptr_t)laddr, .length = len,
				 .lkey = e->mr->lkey };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = flags;
	wr.imm_data = imm;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = e->peer.rkey;
	return prdma_post_send(e->qp, &wr, &bad);
}

/* Wait for one completion on @cq; returns its status or -1. */
static int
wait_wc(struct nsd_ep *e, struct prdma_cq *cq, struct prdma_wc *wc, const char *what)
{
	while (!timed_out(e, what)) {
		if (prdma_cq_poll(cq, 1, wc) == 1) {
			if (wc->status != PRDMA_WC_SUCCESS)
				fprintf(stderr, "%s: %s\n", what, prdma_wc_status_str(wc->status));
			return wc->status;
		}
		prdma_dev_progress(e->dev);
	}
	return -1;
}

/* WRITE then SEND from the client, checked by the server; READ back. */
static int
data_check(struct nsd_ep *e)
{
	uint32_t v = e->o->verify_len;
	struct prdma_wc wc;
	long bad;

	if (!e->o->server) {
		app_pattern_fill(data_area(e), v, 0x5eed01);
		if (post_send(e, PRDMA_WR_RDMA_WRITE, data_area(e), v, e->peer.addr, 0, 0) ||
		    post_send(e, PRDMA_WR_SEND_WITH_IMM, stage_area(e), 0, 0,
			      PRDMA_SEND_SIGNALED, 1) ||
		    wait_wc(e, e->scq, &wc, "WRITE+SEND completion") != 0)
			return -1;
		/* The server answers when its buffer holds the READ pattern. */
		if (wait_wc(e, e->rcq, &wc, "server's go-ahead") != 0 || wc.imm_data != 2)
			return -1;
		post_recv(e, (unsigned int)wc.wr_id);
		memset(data_area(e), 0, v);
		if (post_send(e, PRDMA_WR_RDMA_READ, data_area(e), v, e->peer.addr,
			      PRDMA_SEND_SIGNALED, 0) ||
		    wait_wc(e, e->scq, &wc, "READ completion") != 0)
			return -1;
		bad = app_pattern_check(data_area(e), v, 0x5eed02);
		if (bad >= 0) {
			fprintf(stderr, "client: READ data wrong at byte %ld\n", bad);
			return -1;
		}
		printf("CHECK client READ %u bytes ok\n", v);
		return 0;
	}
	if (wait_wc(e, e->rcq, &wc, "client's SEND") != 0 || wc.imm_data != 1)
		return -1;
	post_recv(e, (unsigned int)wc.wr_id);
	/* The SEND follows the WRITE on one QP: the data is in place. */
	bad = app_pattern_check(data_area(e), v, 0x5eed01);
	if (bad >= 0) {
		fprintf(stderr, "server: WRITE data wrong at byte %ld\n", bad);
		return -1;
	}
	printf("CHECK server WRITE %u bytes ok\n", v);
	app_pattern_fill(data_area(e), v, 0x5eed02);
	if (post_send(e, PRDMA_WR_SEND_WITH_IMM, stage_area(e), 0, 0, PRDMA_SEND_SIGNALED, 2) ||
	    wait_wc(e, e->scq, &wc, "go-ahead SEND completion") != 0)
		return -1;
	return 0;
}

/*
 * The kernel's counts for this process's AF_XDP sockets (net_af_xdp keeps
 * their descriptors to itself): found among the open descriptors by
 * their address family. Frames dropped there never reach the port's
 * counters.
 */
static void
xsk_lines(const char *side)
{
	struct xdp_statistics xs;
	struct dirent *d;
	socklen_t len;
	int fd, dom;
	DIR *dir;

	dir = opendir("/proc/self/fd");
	if (dir == NULL)
		return;
	while ((d = readdir(dir)) != NULL) {
		fd = atoi(d->d_name);
		len = sizeof(dom);
		if (fd <= 2 || getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) != 0 ||
		    dom != AF_XDP)
			continue;
		len = sizeof(xs);
		memset(&xs, 0, sizeof(xs));
		if (getsockopt(fd, SOL_XDP, XDP_STATISTICS, &xs, &len) != 0)
			continue;
		printf("STATS %s xsk fd=%d rx_dropped=%llu rx_invalid=%llu tx_invalid=%llu "
		       "rx_ring_full=%llu fill_ring_empty=%llu tx_ring_empty=%llu\n", side, fd,
		       xs.rx_dropped, xs.rx_invalid_descs, xs.tx_invalid_descs, xs.rx_ring_full,
		       xs.rx_fill_ring_empty_descs, xs.tx_ring_empty_descs);
	}
	closedir(dir);
}

static void
pool_line(struct rte_mempool *mp, void *arg)
{
	printf("STATS %s pool %s avail=%u in_use=%u size=%u\n", (const char *)arg, mp->name,
	       rte_mempool_avail_count(mp), rte_mempool_in_use_count(mp), mp->size);
}

/*
 * What the QP and the port saw, one line each for the scripts (STATS ...):
 * a stalled run shows there whether the QP retried out, whether frames
 * were resent or answered as duplicates, and what the port dropped.
 */
static void
report_counters(struct nsd_ep *e)
{
	const char *side = e->o->server ? "server" : "client";
	struct prdma_qp_counters qc;
	struct prdma_dev_counters dc;
	struct prdma_roce_stats rs;
	struct rte_eth_stats es;
	struct rusage ru;
	unsigned int i;

	if (e->qp != NULL && prdma_qp_counters_get(e->qp, &qc) == 0) {
		printf("STATS %s qp", side);
		for (i = 0; i < PRDMA_QP_CNT_MAX; i++)
			if (qc.value[i] != 0)
				printf(" %s=%" PRIu64, prdma_qp_counter_name(i), qc.value[i]);
		printf("\n");
	}
	if (e->dev != NULL && prdma_dev_counters_get(e->dev, &dc) == 0) {
		printf("STATS %s dev", side);
		for (i = 0; i < PRDMA_DEV_CNT_MAX; i++)
			if (dc.value[i] != 0 && !(dc.missing_mask & (1ull << i)))
				printf(" %s=%" PRIu64, prdma_dev_counter_name(i), dc.value[i]);
		printf("\n");
	}
	if (e->dev != NULL && prdma_roce_stats_get(e->dev, &rs) == 0)
		printf("STATS %s roce acks_held=%" PRIu64 " tlp_probes=%" PRIu64
		       " fault_tx_drop=%" PRIu64 " fault_rx_drop=%" PRIu64 "\n", side,
		       rs.acks_held, rs.tlp_probes,
		       rs.fault[PRDMA_ROCE_FAULT_TX][PRDMA_ROCE_FAULT_DROP],
		       rs.fault[PRDMA_ROCE_FAULT_RX][PRDMA_ROCE_FAULT_DROP]);
	/* Voluntary switches: the thread slept (a blocking call); involuntary:
	 * the scheduler preempted it. */
	memset(&ru, 0, sizeof(ru));
	getrusage(RUSAGE_THREAD, &ru);
	printf("STATS %s loop max_gap_us=%.0f gaps_over_1ms=%" PRIu64 " voluntary_switches=%ld"
	       " involuntary_switches=%ld\n", side,
	       (double)e->max_gap * 1e6 / (double)rte_get_tsc_hz(), e->gaps_1ms,
	       ru.ru_nvcsw, ru.ru_nivcsw);
	if (rte_eth_stats_get(0, &es) == 0)
		printf("STATS %s port ipackets=%" PRIu64 " opackets=%" PRIu64 " imissed=%"
		       PRIu64 " ierrors=%" PRIu64 " oerrors=%" PRIu64 " rx_nombuf=%" PRIu64
		       "\n", side, es.ipackets, es.opackets, es.imissed, es.ierrors,
		       es.oerrors, es.rx_nombuf);
	rte_mempool_walk(pool_line, (void *)(uintptr_t)side);
	xsk_lines(side);
	fflush(stdout);
}

/*
 * Completions of our own WRITEs (they keep the send queue free): one in
 * error ends the ping-pong with its status, not with a timeout, since a
 * QP that retried out never sees the peer's WRITE again.
 */
static int
reap_sends(struct nsd_ep *e, uint32_t round)
{
	struct prdma_wc wc[16];
	int i, n;

	n = prdma_cq_poll(e->scq, 16, wc);
	for (i = 0; i < n; i++) {
		if (wc[i].status == PRDMA_WC_SUCCESS)
			continue;
		fprintf(stderr, "%s: ping-pong WRITE completed in error at round %u: %s\n",
			e->o->server ? "server" : "client", round,
			prdma_wc_status_str(wc[i].status));
		return -1;
	}
	return 0;
}

/*
 * Spin until the peer's WRITE number @tag lands in our ping area. The
 * longest time between two looks at the clock (every 64 spins) is kept:
 * a process the scheduler took off its CPU shows there, which is what
 * tells a peer that did not answer from a frame that was lost.
 */
static int
wait_tag(struct nsd_ep *e, uint32_t tag)
{
	volatile uint32_t *t = (volatile uint32_t *)(ping_area(e) + e->o->size - 4);
	unsigned int spins = 0;
	uint64_t now, ms = rte_get_tsc_hz() / 1000;

	while (*t != tag) {
		prdma_dev_progress(e->dev);
		if (reap_sends(e, tag) != 0)
			return -1;
		if (++spins % 64 != 0)
			continue;
		now = rte_rdtsc();
		if (e->last_look != 0 && now - e->last_look > e->max_gap)
			e->max_gap = now - e->last_look;
		if (e->last_look != 0 && now - e->last_look > ms)
			e->gaps_1ms++;
		e->last_look = now;
		if (spins % 4096 == 0 && timed_out(e, "ping-pong"))
			return -1;
	}
	return 0;
}

static int
ping_pong(struct nsd_ep *e)
{
	uint32_t n = e->o->iters, s = e->o->size, i, warm = n / 10 + 1;
	uint64_t *rtt = calloc(n, sizeof(*rtt)), t0;
	uint64_t raddr = e->peer.addr + e->o->verify_len;
	uint8_t *st = stage_area(e);
	int ret = -1;

	if (rtt == NULL)
		return -1;
	memset(st, 0xab, s);
	for (i = 0; i < n + warm; i++) {
		uint32_t tag = i + 1;
		/* Signal one in 32: completions only free send queue slots. */
		uint32_t fl = PRDMA_SEND_INLINE | (i % 32 == 0 ? PRDMA_SEND_SIGNALED : 0);

		memcpy(st + s - 4, &tag, 4);
		if (!e->o->server) {
			t0 = rte_rdtsc();
			if (post_send(e, PRDMA_WR_RDMA_WRITE, st, s, raddr, fl, 0) != 0 ||
			    wait_tag(e, tag) != 0)
				goto out;
			if (i >= warm)
				rtt[i - warm] = rte_rdtsc() - t0;
		} else {
			if (wait_tag(e, tag) != 0 ||
			    post_send(e, PRDMA_WR_RDMA_WRITE, st, s, raddr, fl, 0) != 0)
				goto out;
		}
		if (reap_sends(e, tag) != 0)
			goto out;
	}
	if (!e->o->server)
		nsd_report("rdma-write", rtt, n);
	ret = 0;
out:
	free(rtt);
	return ret;
}

int
nsd_cm(const struct nsd_opts *o)
{
	struct nsd_ep e;
	struct sockaddr_in sa;
	struct prdma_cm_conn_param p;
	struct nsd_peer me;
	char gid[64];
	union prdma_gid g;
	unsigned int i;
	int ret = 1;

	memset(&e, 0, sizeof(e));
	e.o = o;
	e.deadline = nsd_now() + o->timeout_s;
	if (setup(&e) != 0) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}
	if (prdma_gid_query(e.dev, 1, 0, &g) == 0)
		printf("%s: GID %s\n", o->server ? "server" : "client",
		       prdma_gid_to_str(&g, gid, sizeof(gid)));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(o->port);
	if (o->server) {
		if (prdma_cm_listen(e.id, (struct sockaddr *)&sa, 4) != 0) {
			fprintf(stderr, "listen on port %u failed\n", o->port);
			goto out;
		}
		printf("server: listening on port %u\n", o->port);
		fflush(stdout);
	} else {
		if (inet_pton(AF_INET, o->peer, &sa.sin_addr) != 1) {
			fprintf(stderr, "--connect %s: an IPv4 address expected\n", o->peer);
			goto out;
		}
		me.addr = (uintptr_t)e.buf;
		me.rkey = e.mr->rkey;
		me.len = (uint32_t)e.len;
		memset(&p, 0, sizeof(p));
		p.private_data = &me;
		p.private_data_len = sizeof(me);
		p.responder_resources = 4;
		p.initiator_depth = 4;
		p.retry_count = 7;
		p.rnr_retry_count = 7;
		p.ack_timeout = 10;
		ret = prdma_cm_connect(e.id, e.qp, (struct sockaddr *)&sa, &p);
		if (ret != 0) {
			fprintf(stderr, "connect to %s:%u: %s\n", o->peer, o->port, strerror(-ret));
			ret = 1;
			goto out;
		}
		ret = 1;
	}
	if (cm_wait(&e, PRDMA_CM_EVENT_ESTABLISHED) != 0)
		goto out;
	printf("%s: ESTABLISHED (QPN 0x%x)\n", o->server ? "server" : "client",
	       e.qp->qp_num);
	/* Receives need the QP out of RESET, which the CM does; an early
	 * SEND meanwhile waits in RNR retries. */
	for (i = 0; i < RECV_NB; i++)
		if (post_recv(&e, i) != 0) {
			fprintf(stderr, "post_recv failed\n");
			goto out;
		}
	fflush(stdout);
	if (data_check(&e) != 0 || ping_pong(&e) != 0) {
		report_counters(&e);
		goto out;
	}
	/* Let the last ACKs leave before the process goes. */
	e.deadline = nsd_now() + 0.2;
	while (nsd_now() < e.deadline)
		progress(&e);
	report_counters(&e);
	printf("%s: done\n", o->server ? "server" : "client");
	ret = 0;
out:
	fflush(stdout);
	return ret;
}
