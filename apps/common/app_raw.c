/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The baselines: one frame bounced between the two ring ports (lcore A
 * sending, lcore B echoing), and bursts of frames sent one way as fast as
 * the ports take them. They are what the ports cost with no transport, so
 * RDMA figures are read as ratios to them.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "app_ports.h"
#include "app_raw.h"
#include "app_run.h"
#include "app_stats.h"

#define RAW_BURST 32
#define RAW_UDP_PORT 9          /* discard: the frame is never meant for a host */

struct raw_a {
	struct app_ports *p;
	const uint8_t *tmpl;
	uint32_t len;
	uint32_t iters;
	uint32_t i;
	int waiting;
	uint64_t t0;
	uint64_t *samples;
};

struct raw_b {
	struct app_ports *p;
	uint32_t iters;
	uint32_t echoed;
};

static void
raw_template(uint8_t *f, uint32_t len, const struct app_ports *p)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint8_t *pay = (uint8_t *)(udp + 1);
	uint32_t l3 = len - (uint32_t)sizeof(*eth);

	memset(f, 0, len);
	rte_ether_addr_copy(&p->mac[1], &eth->dst_addr);
	rte_ether_addr_copy(&p->mac[0], &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)l3);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	/* 192.0.2.1 -> 192.0.2.2, spelled out: RTE_IPV4() shifts a signed int. */
	ip->src_addr = rte_cpu_to_be_32(0xC0000201u);
	ip->dst_addr = rte_cpu_to_be_32(0xC0000202u);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(0xC000);
	udp->dst_port = rte_cpu_to_be_16(RAW_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(l3 - sizeof(*ip)));
	app_pattern_fill(pay, len - (uint32_t)(pay - f), len);
}

/*
 * The frame every baseline sends, built once: *frame_len is raised to the
 * Ethernet minimum (without the CRC the port adds) and must fit one mbuf.
 * 0 and a malloc'ed template for free(), or a negative errno.
 */
static int
raw_frame_new(uint32_t *frame_len, const struct app_ports *p, uint8_t **tmpl)
{
	if (*frame_len < RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN)
		*frame_len = RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN;
	if (*frame_len > RTE_MBUF_DEFAULT_DATAROOM)
		return -EMSGSIZE;
	*tmpl = malloc(*frame_len);
	if (*tmpl == NULL)
		return -ENOMEM;
	raw_template(*tmpl, *frame_len, p);
	return 0;
}

/* A copy of the template in @p m: the frame is sent whole, in one segment. */
static void
raw_mbuf_fill(struct rte_mbuf *m, const uint8_t *tmpl, uint32_t len)
{
	memcpy(rte_pktmbuf_mtod(m, void *), tmpl, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
}

static int
raw_step_a(void *arg)
{
	struct raw_a *a = arg;
	struct rte_mbuf *m;
	uint64_t t1;

	if (!a->waiting) {
		m = rte_pktmbuf_alloc(a->p->pool);
		if (m == NULL)
			return 0;
		raw_mbuf_fill(m, a->tmpl, a->len);
		a->t0 = rte_rdtsc();
		if (rte_eth_tx_burst(a->p->port[0], 0, &m, 1) != 1) {
			rte_pktmbuf_free(m);
			return 0;
		}
		a->waiting = 1;
		return 0;
	}
	if (rte_eth_rx_burst(a->p->port[0], 0, &m, 1) != 1)
		return 0;
	t1 = rte_rdtsc();
	if (m->pkt_len != a->len) {
		APP_LOG("raw ping-pong: echo of %u bytes, sent %u", m->pkt_len, a->len);
		rte_pktmbuf_free(m);
		return -EIO;
	}
	rte_pktmbuf_free(m);
	a->samples[a->i++] = t1 - a->t0;
	a->waiting = 0;
	return a->i == a->iters;
}

static int
raw_step_b(void *arg)
{
	struct raw_b *b = arg;
	struct rte_mbuf *m[RAW_BURST];
	uint16_t n, sent;

	n = rte_eth_rx_burst(b->p->port[1], 0, m, RAW_BURST);
	if (n == 0)
		return 0;
	sent = rte_eth_tx_burst(b->p->port[1], 0, m, n);
	/* A ring that is full drops the echo, as a wire would; A then stalls
	 * and the run fails on its deadline instead of inventing a sample. */
	if (sent < n)
		rte_pktmbuf_free_bulk(m + sent, n - sent);
	b->echoed += sent;
	return b->echoed >= b->iters;
}

int
app_raw_pingpong(const struct app_runner *r, struct app_ports *p, uint32_t frame_len,
		 uint32_t iters, uint64_t *samples, uint32_t *nb_samples)
{
	struct raw_a a;
	struct raw_b b;
	uint8_t *tmpl;
	int ret;

	ret = raw_frame_new(&frame_len, p, &tmpl);
	if (ret < 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.samples = samples;
	a.p = p;
	a.tmpl = tmpl;
	a.len = frame_len;
	a.iters = iters;
	memset(&b, 0, sizeof(b));
	b.p = p;
	b.iters = iters;
	ret = app_run_pair(r, raw_step_a, &a, raw_step_b, &b);
	*nb_samples = a.i;
	free(tmpl);
	return ret;
}

struct burst_tx {
	struct app_ports *p;
	const uint8_t *tmpl;
	uint32_t len;
	uint64_t count, sent;
};

struct burst_rx {
	struct app_ports *p;
	uint64_t count, got;
	uint64_t t_first, t_last;
};

static int
burst_step_tx(void *arg)
{
	struct burst_tx *t = arg;
	struct rte_mbuf *m[RAW_BURST];
	unsigned int n = (unsigned int)RTE_MIN((uint64_t)RAW_BURST, t->count - t->sent), i;
	uint16_t sent;

	if (n == 0)
		return 1;
	if (rte_pktmbuf_alloc_bulk(t->p->pool, m, n) != 0)
		return 0;
	for (i = 0; i < n; i++)
		raw_mbuf_fill(m[i], t->tmpl, t->len);
	sent = rte_eth_tx_burst(t->p->port[0], 0, m, (uint16_t)n);
	if (sent < n)
		rte_pktmbuf_free_bulk(m + sent, n - sent);
	t->sent += sent;
	return t->sent == t->count;
}

static int
burst_step_rx(void *arg)
{
	struct burst_rx *r = arg;
	struct rte_mbuf *m[RAW_BURST];
	uint16_t n;

	n = rte_eth_rx_burst(r->p->port[1], 0, m, RAW_BURST);
	if (n == 0)
		return 0;
	r->t_last = rte_rdtsc();
	if (r->got == 0)
		r->t_first = r->t_last;
	rte_pktmbuf_free_bulk(m, n);
	r->got += n;
	return r->got >= r->count;
}

int
app_raw_burst(const struct app_runner *r, struct app_ports *p, uint32_t frame_len,
	      uint64_t count, double *frames_per_s)
{
	struct burst_tx t;
	struct burst_rx x;
	uint8_t *tmpl;
	int ret;

	ret = raw_frame_new(&frame_len, p, &tmpl);
	if (ret < 0)
		return ret;
	memset(&t, 0, sizeof(t));
	t.p = p;
	t.tmpl = tmpl;
	t.len = frame_len;
	t.count = count;
	memset(&x, 0, sizeof(x));
	x.p = p;
	x.count = count;
	/* The receiver runs on this lcore so the timing is the receiver's. */
	ret = app_run_pair(r, burst_step_rx, &x, burst_step_tx, &t);
	*frames_per_s = x.t_last > x.t_first ?
		(double)(x.got - 1) * (double)rte_get_tsc_hz() / (double)(x.t_last - x.t_first) : 0;
	free(tmpl);
	return ret;
}

int
app_raw_ping_port(struct rte_mempool *pool, uint16_t port, uint32_t frame_len,
		  uint32_t iters, double timeout_s, uint64_t *samples, uint32_t *nb_samples)
{
	uint64_t hz = rte_get_tsc_hz(), deadline, t0 = 0, resend = hz / 10;
	struct app_ports fake;
	struct rte_mbuf *m;
	uint8_t *tmpl;
	uint32_t i = 0;
	int waiting = 0, ret;

	/* Broadcast: the peer's AF_XDP socket takes every frame of its queue. */
	memset(&fake, 0, sizeof(fake));
	memset(&fake.mac[1], 0xff, sizeof(fake.mac[1]));
	rte_eth_macaddr_get(port, &fake.mac[0]);
	ret = raw_frame_new(&frame_len, &fake, &tmpl);
	if (ret < 0)
		return ret;
	deadline = rte_rdtsc() + (uint64_t)(timeout_s * (double)hz);
	while (i < iters) {
		if (rte_rdtsc() > deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		if (!waiting || rte_rdtsc() - t0 > resend) {
			m = rte_pktmbuf_alloc(pool);
			if (m == NULL)
				continue;
			raw_mbuf_fill(m, tmpl, frame_len);
			t0 = rte_rdtsc();
			if (rte_eth_tx_burst(port, 0, &m, 1) != 1) {
				rte_pktmbuf_free(m);
				continue;
			}
			waiting = 1;
		}
		if (rte_eth_rx_burst(port, 0, &m, 1) != 1)
			continue;
		if (m->pkt_len == frame_len && waiting) {
			samples[i++] = rte_rdtsc() - t0;
			waiting = 0;
		}
		rte_pktmbuf_free(m);
	}
	*nb_samples = i;
	free(tmpl);
	return ret;
}

int
app_raw_echo_port(uint16_t port, double idle_s, uint64_t *echoed)
{
	uint64_t hz = rte_get_tsc_hz(), last = rte_rdtsc();
	struct rte_mbuf *m[RAW_BURST];
	struct rte_ether_hdr *eth;
	struct rte_ether_addr own;
	uint16_t n, sent, k;

	*echoed = 0;
	rte_eth_macaddr_get(port, &own);
	for (;;) {
		n = rte_eth_rx_burst(port, 0, m, RAW_BURST);
		if (n == 0) {
			if (rte_rdtsc() - last > (uint64_t)(idle_s * (double)hz))
				return 0;
			continue;
		}
		last = rte_rdtsc();
		for (k = 0; k < n; k++) {
			eth = rte_pktmbuf_mtod(m[k], struct rte_ether_hdr *);
			rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
			rte_ether_addr_copy(&own, &eth->src_addr);
		}
		sent = rte_eth_tx_burst(port, 0, m, n);
		if (sent < n)
			rte_pktmbuf_free_bulk(m + sent, n - sent);
		*echoed += sent;
	}
}
