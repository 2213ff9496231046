/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef UDADDY_H
#define UDADDY_H

/*
 * prdma-udaddy: the counterpart of rdma-core 44's udaddy (librdmacm/
 * examples): RDMA_PS_UDP ids on port 7174; the client resolves the
 * server's QPN and Q_Key with SIDR and sends -C SEND-with-immediates of -S
 * bytes (the immediate: its QPN); the server receives them all, then
 * answers each from its receive buffer (the GRH room and the start of the
 * last message, as udaddy does) to the QPN of the immediate, with the
 * address the requests came from.
 */

#include <stdint.h>

#include <prdma.h>
#include <prdma_cm.h>

#include "app_cm_ep.h"

#define UDADDY_PORT 7174
#define UDADDY_GRH 40

struct udaddy_opts {
	const char *dst;             /* -s: client when set */
	const char *bind;            /* -b */
	int count;                   /* -C (10) */
	uint32_t size;               /* -S (100) */
	uint16_t port;               /* --port (udaddy's is fixed: 7174) */
	const char *devargs;
	double timeout_s;
};

struct udaddy_ep {
	const struct udaddy_opts *o;
	struct app_cm_ep c;          /* mem: [GRH 40][size] */
	uint32_t remote_qpn;
	uint32_t remote_qkey;
};

/* The client's message bytes (udaddy sends whatever its buffer holds;
 * we send a pattern so our own client can check the server's replies). */
void udaddy_pattern(uint8_t *buf, uint32_t len);

/* Post -C receives of GRH + size into the one buffer (as udaddy). */
int udaddy_post_recvs(struct udaddy_ep *e);
/* Post -C SEND-with-immediates of size bytes from the buffer's start
 * (@p off: 0 for the server's replies, the GRH room for the client). */
int udaddy_post_sends(struct udaddy_ep *e, uint32_t off);
/* Wait for @p n receive completions (@p first: the first one's). */
int udaddy_wait_recvs(struct udaddy_ep *e, int n, struct prdma_wc *first);
/* Wait for @p n send completions. */
int udaddy_wait_sends(struct udaddy_ep *e, int n);

#endif /* UDADDY_H */
