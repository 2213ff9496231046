/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef NSDEMO_H
#define NSDEMO_H

/*
 * prdma-nsdemo: one end of a two-process test or benchmark, each process in
 * its own network namespace on one end of a veth pair. Modes:
 *   cm   - prdma over net_af_xdp: connect by IP and port through the
 *          connection manager, check WRITE/SEND/READ data, then measure
 *          a 64 B RC WRITE ping-pong;
 *   tcp  - busy-polled kernel TCP ping-pong (non-blocking, TCP_NODELAY);
 *   raw  - raw frame ping-pong on the same AF_XDP port (the floor).
 */

#include <stdint.h>

#include <rte_ether.h>

struct nsd_opts {
	const char *mode;          /* "cm", "tcp", "raw" */
	int server;                /* 1: wait for the peer; 0: connect to it */
	const char *peer;          /* peer IP (client) */
	uint16_t port;             /* CM / TCP port */
	uint32_t iters;
	uint32_t size;
	uint32_t verify_len;       /* bytes moved by each data check */
	const char *devargs;       /* extra roce devargs */
	struct rte_ether_addr peer_mac;   /* raw mode */
	int has_peer_mac;
	double timeout_s;
};

/* Latency report of @n round trips (TSC ticks), one line for scripts. */
void nsd_report(const char *name, uint64_t *rtt, uint32_t n);
/* Seconds since an arbitrary start (for timeouts). */
double nsd_now(void);

int nsd_cm(const struct nsd_opts *o);
int nsd_tcp(const struct nsd_opts *o);
int nsd_raw(const struct nsd_opts *o);

#endif /* NSDEMO_H */
