/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef APP_PORTS_H
#define APP_PORTS_H

/*
 * Two net_ring ethdev ports cross-connected in this process: the link the
 * apps measure on, and the raw baseline runs on.
 */

#include <stdint.h>

#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mempool.h>

extern int app_logtype;
#define APP_LOG(fmt, ...) \
	rte_log(RTE_LOG_ERR, app_logtype, "apps: " fmt "\n", ##__VA_ARGS__)

struct app_ports {
	uint16_t port[2];
	struct rte_ring *ring[2];
	struct rte_mempool *pool;
	struct rte_ether_addr mac[2];
	int same_mac;               /* net_ring gave one MAC: pass mac= */
	int created;
};

int app_ports_create(struct app_ports *p);
/* Configure one rx and one tx queue on @p port and start it. */
int app_port_start(struct rte_mempool *pool, uint16_t port);
void app_ports_destroy(struct app_ports *p);

/* The roce devargs of side @p i ("roce:port=N,ip=...[,mac=...]"). */
void app_ports_devargs(char *buf, size_t len, const struct app_ports *p, unsigned int i,
		       const char *ip);

#endif /* APP_PORTS_H */
