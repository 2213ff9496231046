/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Baseline (b), the floor: frames the size of a 64 B RC WRITE (Ethernet,
 * IPv4, UDP 4791 so the XDP program steers them, and the same number of
 * bytes behind) bounced between the two AF_XDP ports with no transport.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "nsdemo.h"

/* A 64 B RC WRITE_ONLY frame: 14 + 20 + 8 + BTH 12 + RETH 16 + data + ICRC 4. */
#define RAW_OVERHEAD (14 + 20 + 8 + 12 + 16 + 4)

/*
 * net_af_xdp keeps 2048 buffers of this pool in its fill ring and frees
 * sent ones only once 1024 completions are pending: the pool must hold
 * far more than both, or receiving stops when it runs dry.
 */
static int
port_up(struct rte_mempool **mp)
{
	struct rte_eth_conf conf;
	int ret;

	*mp = rte_pktmbuf_pool_create("nsd_raw", 16383, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				      (int)rte_socket_id());
	if (*mp == NULL)
		return -1;
	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(0, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(0, 0, 1024, rte_socket_id(), NULL, *mp);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(0, 0, 1024, rte_socket_id(), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(0);
	if (ret != 0)
		fprintf(stderr, "raw: port 0 setup: %s\n", rte_strerror(-ret));
	return ret;
}

static struct rte_mbuf *
frame(struct rte_mempool *mp, const struct rte_ether_addr *dst,
      const struct rte_ether_addr *src, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ipv4_hdr *ip;
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memset(p, 0, len);
	memcpy(p, dst->addr_bytes, 6);
	memcpy(p + 6, src->addr_bytes, 6);
	p[12] = 0x08;
	ip = (struct rte_ipv4_hdr *)(p + 14);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - 14));
	ip->time_to_live = 64;
	ip->next_proto_id = 17;
	/* TEST-NET-1 addresses: these frames never leave the veth pair. */
	p[26] = 192; p[27] = 0; p[28] = 2; p[29] = 1;
	p[30] = 192; p[31] = 0; p[32] = 2; p[33] = 2;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	p[34] = 0x12; p[35] = 0xb7;     /* source port 4791 */
	p[36] = 0x12; p[37] = 0xb7;     /* destination port 4791 */
	p[38] = (uint8_t)((len - 34) >> 8);
	p[39] = (uint8_t)(len - 34);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return m;
}

int
nsd_raw(const struct nsd_opts *o)
{
	double deadline = nsd_now() + o->timeout_s, last_rx = 0;
	uint32_t n = o->iters, warm = n / 10 + 1, i, len = RAW_OVERHEAD + o->size;
	uint64_t *rtt = calloc(n, sizeof(*rtt)), t0 = 0;
	struct rte_ether_addr me, peer = o->peer_mac;
	struct rte_mempool *mp;
	struct rte_mbuf *m, *rx[32];
	uint16_t k, j;
	int ret = 1;

	if (rtt == NULL || port_up(&mp) != 0)
		goto out;
	rte_eth_macaddr_get(0, &me);
	if (!o->server && !o->has_peer_mac) {
		fprintf(stderr, "raw client: --peer-mac is required\n");
		goto out;
	}
	printf("%s: raw ping-pong, %u-byte frames\n", o->server ? "server" : "client", len);
	fflush(stdout);
	/* The server echoes until the client has been quiet for a second:
	 * resent rounds make the counts differ. */
	for (i = 0; o->server || i < n + warm; i++) {
		if (!o->server) {
			m = frame(mp, &peer, &me, len);
			t0 = rte_rdtsc();
			/* Resend until answered: the server may not be up yet. */
			if (m == NULL || rte_eth_tx_burst(0, 0, &m, 1) != 1)
				goto out;
		}
		for (;;) {
			k = rte_eth_rx_burst(0, 0, rx, 32);
			if (k > 0)
				break;
			if (o->server && i > 0 && nsd_now() - last_rx > 1.0)
				goto done;
			if (nsd_now() > deadline) {
				struct rte_eth_stats es;

				rte_eth_stats_get(0, &es);
				fprintf(stderr, "raw: timed out at round %u (port: rx %" PRIu64
					" tx %" PRIu64 " missed %" PRIu64 " nombuf %" PRIu64
					" rx errors %" PRIu64 ", pool %u free)\n", i, es.ipackets,
					es.opackets, es.imissed, es.rx_nombuf, es.ierrors,
					rte_mempool_avail_count(mp));
				goto out;
			}
			/* A frame lost on the way: send the round again. */
			if (!o->server && rte_rdtsc() - t0 > rte_get_tsc_hz() / 100) {
				m = frame(mp, &peer, &me, len);
				t0 = rte_rdtsc();
				if (m != NULL && rte_eth_tx_burst(0, 0, &m, 1) != 1)
					rte_pktmbuf_free(m);
			}
		}
		last_rx = nsd_now();
		if (o->server) {
			memcpy(peer.addr_bytes, rte_pktmbuf_mtod(rx[0], uint8_t *) + 6, 6);
			m = frame(mp, &peer, &me, len);
			if (m == NULL || rte_eth_tx_burst(0, 0, &m, 1) != 1)
				goto out;
		} else if (i >= warm) {
			rtt[i - warm] = rte_rdtsc() - t0;
		}
		for (j = 0; j < k; j++)
			rte_pktmbuf_free(rx[j]);
	}
done:
	if (!o->server)
		nsd_report("raw-afxdp", rtt, n);
	else
		printf("server: echoed %u rounds\n", i);
	ret = 0;
out:
	free(rtt);
	return ret;
}
