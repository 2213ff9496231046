/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The baseline: one frame bounced between the two ring ports, lcore A
 * sending, lcore B echoing. It is what the ports cost with no transport,
 * so the RDMA latency is read as a ratio to it.
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

#include "demo.h"

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
		memcpy(rte_pktmbuf_mtod(m, void *), a->tmpl, a->len);
		m->data_len = (uint16_t)a->len;
		m->pkt_len = a->len;
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
		DEMO_LOG(ERR, "raw ping-pong: echo of %u bytes, sent %u", m->pkt_len, a->len);
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
demo_raw_pingpong(const struct app_runner *r, struct app_ports *p, uint32_t frame_len,
		  uint32_t iters, struct demo_lat *out)
{
	struct raw_a a;
	struct raw_b b;
	uint8_t *tmpl;
	int ret;

	if (frame_len < RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN)
		frame_len = RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN;
	if (frame_len > RTE_MBUF_DEFAULT_DATAROOM)
		return -EMSGSIZE;
	tmpl = malloc(frame_len);
	memset(&a, 0, sizeof(a));
	a.samples = calloc(iters, sizeof(*a.samples));
	if (tmpl == NULL || a.samples == NULL) {
		free(tmpl);
		free(a.samples);
		return -ENOMEM;
	}
	raw_template(tmpl, frame_len, p);
	a.p = p;
	a.tmpl = tmpl;
	a.len = frame_len;
	a.iters = iters;
	memset(&b, 0, sizeof(b));
	b.p = p;
	b.iters = iters;
	ret = app_run_pair(r, raw_step_a, &a, raw_step_b, &b);
	if (ret == 0)
		demo_lat_summary(a.samples, a.i, out);
	free(tmpl);
	free(a.samples);
	return ret;
}
