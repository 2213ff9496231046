/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "app_ports.h"

RTE_LOG_REGISTER_SUFFIX(app_logtype, common, INFO);

#define APP_RING_SIZE 1024
#define APP_NB_MBUF 4095
#define APP_DESC 512

int
app_port_start(struct rte_mempool *pool, uint16_t port)
{
	struct rte_eth_conf conf;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, APP_DESC, (unsigned int)rte_socket_id(),
					     NULL, pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, APP_DESC, (unsigned int)rte_socket_id(),
					     NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret < 0)
		APP_LOG("port %u: configure/start failed: %s", port, rte_strerror(-ret));
	return ret;
}

int
app_ports_create(struct app_ports *p)
{
	static const char *const ring_name[2] = { "app_r0", "app_r1" };
	static const char *const port_name[2] = { "app_p0", "app_p1" };
	struct rte_ring *rx[1], *tx[1];
	unsigned int i;
	int ret;

	memset(p, 0, sizeof(*p));
	p->port[0] = p->port[1] = RTE_MAX_ETHPORTS;
	p->pool = rte_pktmbuf_pool_create("app_pool", APP_NB_MBUF, 256, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (p->pool == NULL) {
		APP_LOG("mbuf pool: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	for (i = 0; i < 2; i++) {
		p->ring[i] = rte_ring_create(ring_name[i], APP_RING_SIZE,
					     (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (p->ring[i] == NULL) {
			APP_LOG("ring %s: %s", ring_name[i], rte_strerror(rte_errno));
			ret = -rte_errno;
			goto err;
		}
	}
	/* Cross-connected: what port 0 sends on ring 0, port 1 receives. */
	for (i = 0; i < 2; i++) {
		rx[0] = p->ring[i ^ 1];
		tx[0] = p->ring[i];
		ret = rte_eth_from_rings(port_name[i], rx, 1, tx, 1, (unsigned int)rte_socket_id());
		if (ret < 0) {
			APP_LOG("rte_eth_from_rings(%s): %s", port_name[i],
				 rte_strerror(rte_errno));
			ret = -rte_errno;
			goto err;
		}
		p->port[i] = (uint16_t)ret;
		ret = app_port_start(p->pool, p->port[i]);
		if (ret < 0)
			goto err;
		ret = rte_eth_macaddr_get(p->port[i], &p->mac[i]);
		if (ret < 0)
			goto err;
	}
	/* net_ring gives every port one fixed address and cannot change it;
	 * a transport that sees its own MAC as the destination loops the
	 * frame back to itself, so the devices get distinct ones (mac=). */
	p->same_mac = rte_is_same_ether_addr(&p->mac[0], &p->mac[1]);
	if (p->same_mac) {
		for (i = 0; i < 2; i++) {
			memset(&p->mac[i], 0, sizeof(p->mac[i]));
			p->mac[i].addr_bytes[0] = 0x02;   /* locally administered */
			p->mac[i].addr_bytes[5] = (uint8_t)(i + 1);
		}
	}
	p->created = 1;
	return 0;
err:
	app_ports_destroy(p);
	return ret;
}

void
app_ports_destroy(struct app_ports *p)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (p->port[i] < RTE_MAX_ETHPORTS) {
			rte_eth_dev_stop(p->port[i]);
			rte_eth_dev_close(p->port[i]);
			p->port[i] = RTE_MAX_ETHPORTS;
		}
	}
	for (i = 0; i < 2; i++) {
		rte_ring_free(p->ring[i]);
		p->ring[i] = NULL;
	}
	rte_mempool_free(p->pool);
	p->pool = NULL;
	p->created = 0;
}

void
app_ports_devargs(char *buf, size_t len, const struct app_ports *p, unsigned int i,
		  const char *ip)
{
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	rte_ether_format_addr(mac, sizeof(mac), &p->mac[i]);
	if (p->same_mac)
		snprintf(buf, len, "roce:port=%u,ip=%s,mac=%s", p->port[i], ip, mac);
	else
		snprintf(buf, len, "roce:port=%u,ip=%s", p->port[i], ip);
}
