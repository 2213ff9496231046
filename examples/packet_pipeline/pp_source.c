/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* The packet source: a net_ring ethdev and a generator that fills its
 * receive ring with numbered frames of varying length. */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "app_stats.h"
#include "pp.h"

#define PP_ETHERTYPE 0x88b5               /* IEEE local experimental */
#define PP_NB_MBUF 4095

uint32_t
pp_packet_len(uint64_t seq)
{
	/* 64..1514 bytes, a different length almost every packet. */
	return PP_MIN_PKT + (uint32_t)((seq * 7919) % (1514 - PP_MIN_PKT + 1));
}

int
pp_source_open(struct pp_source *s)
{
	struct rte_eth_conf conf;
	int ret;

	memset(s, 0, sizeof(*s));
	s->port = RTE_MAX_ETHPORTS;
	s->pool = rte_pktmbuf_pool_create("pp_pool", PP_NB_MBUF, 256, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	s->rx_ring = rte_ring_create("pp_rx", PP_SRC_RING, (int)rte_socket_id(),
				     RING_F_SP_ENQ | RING_F_SC_DEQ);
	s->tx_ring = rte_ring_create("pp_tx", 64, (int)rte_socket_id(),
				     RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (s->pool == NULL || s->rx_ring == NULL || s->tx_ring == NULL) {
		EX_ERR("packet source: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	ret = rte_eth_from_rings("pp_src", &s->rx_ring, 1, &s->tx_ring, 1,
				 (unsigned int)rte_socket_id());
	if (ret < 0) {
		EX_ERR("packet source port: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	s->port = (uint16_t)ret;
	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(s->port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(s->port, 0, 512, (unsigned int)rte_socket_id(),
					     NULL, s->pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(s->port, 0, 512, (unsigned int)rte_socket_id(),
					     NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(s->port);
	if (ret < 0) {
		EX_ERR("packet source port %u: %s", s->port, rte_strerror(-ret));
		return ret;
	}
	s->port_ok = 1;
	return 0;
}

void
pp_source_close(struct pp_source *s)
{
	struct rte_mbuf *m;

	if (s->port < RTE_MAX_ETHPORTS) {
		if (s->port_ok)
			rte_eth_dev_stop(s->port);
		rte_eth_dev_close(s->port);
	}
	while (s->rx_ring != NULL && rte_ring_dequeue(s->rx_ring, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(s->rx_ring);
	rte_ring_free(s->tx_ring);
	rte_mempool_free(s->pool);
	memset(s, 0, sizeof(*s));
}

static struct rte_mbuf *
pp_packet_make(struct pp_source *s, uint64_t seq)
{
	uint32_t len = pp_packet_len(seq);
	struct rte_ether_hdr *eh;
	struct rte_mbuf *m;
	uint8_t *p;

	m = rte_pktmbuf_alloc(s->pool);
	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	eh = (struct rte_ether_hdr *)p;
	memset(eh, 0, sizeof(*eh));
	eh->dst_addr.addr_bytes[0] = 0x02;
	eh->src_addr.addr_bytes[0] = 0x02;
	eh->src_addr.addr_bytes[5] = 1;
	eh->ether_type = rte_cpu_to_be_16(PP_ETHERTYPE);
	memcpy(p + sizeof(*eh), &seq, sizeof(uint32_t));
	app_pattern_fill(p + sizeof(*eh) + 4, len - sizeof(*eh) - 4, (uint32_t)seq);
	return m;
}

void
pp_source_generate(struct pp_source *s, uint64_t limit, unsigned int n)
{
	struct rte_mbuf *m;

	while (n-- > 0 && s->generated < limit) {
		/* A lossless source: a full ring means "try again later". */
		if (rte_ring_free_count(s->rx_ring) == 0) {
			s->src_full++;
			return;
		}
		m = pp_packet_make(s, s->generated);
		if (m == NULL)
			return;
		if (rte_ring_enqueue(s->rx_ring, m) != 0) {
			rte_pktmbuf_free(m);
			return;
		}
		s->generated++;
	}
}
