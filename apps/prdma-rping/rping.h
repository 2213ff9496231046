/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef RPING_H
#define RPING_H

/*
 * prdma-rping: the counterpart of rdma-core 44's rping (librdmacm/examples):
 * one RC connection through prdma's CM (RDMA_PS_TCP, port 7174 by default),
 * then rping's loop: the client advertises its "start" buffer in a 16-byte
 * SEND, the server READs it and answers with a SEND, the client advertises
 * its "rdma" (sink) buffer, the server WRITEs the data back and answers
 * again; the client compares the two buffers (-V) and prints them (-v).
 */

#include <stdint.h>

#include <prdma.h>
#include <prdma_cm.h>

#include "app_cm_ep.h"

#define RPING_DEFAULT_PORT 7174
#define RPING_DEFAULT_SIZE 64
#define RPING_MAX_SIZE (64 * 1024 - 1)
/* rping's RPING_MIN_BUFSIZE: sizeof("2147483647") + sizeof("rdma-ping-%d: ") */
#define RPING_MIN_SIZE 26

/* What each SEND carries (rping's struct rping_rdma_info, big endian). */
struct rping_info {
	uint64_t buf;
	uint32_t rkey;
	uint32_t size;
} __attribute__((packed));

struct rping_opts {
	int server;                  /* -s 1, -c 0 */
	const char *addr;            /* -a */
	uint16_t port;               /* -p */
	int count;                   /* -C, 0 = forever */
	uint32_t size;               /* -S */
	int verbose;                 /* -v */
	int validate;                /* -V */
	const char *devargs;         /* --devargs */
	double timeout_s;            /* --timeout: without progress */
};

struct rping_ep {
	const struct rping_opts *o;
	struct app_cm_ep c;          /* mem: [recv 16][send 16][rdma size][start size] */
	int disconnected;
	double deadline;
};

/* The client's start-buffer pattern of ping @p ping (rping's, exactly). */
void rping_fill(char *buf, uint32_t size, int ping);

int rping_run_server(struct rping_ep *e);
int rping_run_client(struct rping_ep *e);

#endif /* RPING_H */
