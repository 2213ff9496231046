/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef APP_RAW_H
#define APP_RAW_H

#include <stdint.h>

#include "app_ports.h"
#include "app_run.h"

/* A RoCEv2 RDMA_WRITE_ONLY frame: Ethernet, IPv4, UDP, BTH, RETH, ICRC. */
#define APP_WRITE_ONLY_OVERHEAD (14 + 20 + 8 + 12 + 16 + 4)

/* Bounce one frame of @p frame_len bytes @p iters times between the ports;
 * @p samples (iters entries) gets each round trip in TSC cycles. */
int app_raw_pingpong(const struct app_runner *r, struct app_ports *p, uint32_t frame_len,
		     uint32_t iters, uint64_t *samples, uint32_t *nb_samples);

/* Send @p count frames from port 0 to port 1 in bursts; the receiver's
 * rate (frames per second) is the result. */
int app_raw_burst(const struct app_runner *r, struct app_ports *p, uint32_t frame_len,
		  uint64_t count, double *frames_per_s);

/*
 * The same ping-pong between two processes over one port each (a veth
 * pair with net_af_xdp, for instance): the pinger resends a frame that
 * got no echo within 100 ms (the echoer may not be up yet); the echoer
 * returns every frame until @p idle_s pass without one.
 */
int app_raw_ping_port(struct rte_mempool *pool, uint16_t port, uint32_t frame_len,
		      uint32_t iters, double timeout_s, uint64_t *samples, uint32_t *nb_samples);
int app_raw_echo_port(uint16_t port, double idle_s, uint64_t *echoed);

#endif /* APP_RAW_H */
