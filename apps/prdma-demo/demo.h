/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef DEMO_H
#define DEMO_H

/*
 * prdma-demo: two RDMA endpoints on the embedded loopback, measured
 * against a raw ethdev ping-pong on the same ports in the same run.
 */

#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>
#include <rte_log.h>

#include <prdma.h>

#include "app_ports.h"
#include "app_run.h"
#include "app_stats.h"

extern int demo_logtype;
#define DEMO_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, demo_logtype, "prdma-demo: " fmt "\n", ##__VA_ARGS__)

#define DEMO_MAX_SIZES 32
/* A RoCEv2 RDMA_WRITE_ONLY frame: Ethernet, IPv4, UDP, BTH, RETH, ICRC. */
#define DEMO_WRITE_ONLY_OVERHEAD (14 + 20 + 8 + 12 + 16 + 4)
/* Largest payload compared with a raw frame: one packet at MTU 1024. */
#define DEMO_RAW_MAX_PAYLOAD 1024u

/* ------------------------------------------------------------------ */
/* Options (demo_opts.c)                                               */

struct demo_opts {
	uint32_t sizes[DEMO_MAX_SIZES];
	unsigned int nb_sizes;
	uint32_t iters;             /* latency round trips at small sizes */
	uint32_t min_iters;         /* floor once iterations scale down */
	uint64_t bw_bytes;          /* bytes moved per size and operation */
	uint32_t bw_max_msgs;
	uint32_t window;            /* outstanding requests in bandwidth runs */
	const char *devargs_a;      /* NULL: roce on the ring ports */
	const char *devargs_b;
	const char *pcap_prefix;
	const char *json_path;
	int no_bw;
	double timeout_s;           /* per measurement: a stall is a failure */
};

int demo_opts_parse(struct demo_opts *o, int argc, char **argv);
void demo_opts_usage(FILE *out, const char *prog);
/* Round trips for a message size: fewer for large messages. */
uint32_t demo_lat_iters(const struct demo_opts *o, uint32_t size);
uint32_t demo_bw_msgs(const struct demo_opts *o, uint32_t size);

/* ------------------------------------------------------------------ */
/* Statistics (demo_stats.c)                                           */

struct demo_lat {
	double p50, p99, p999, max;  /* microseconds */
	uint32_t samples;
};

/* Sorts @p cycles in place and summarizes half of each round trip. */
void demo_lat_summary(uint64_t *cycles, uint32_t n, struct demo_lat *out);

/* ------------------------------------------------------------------ */
/* Raw ethdev baseline (demo_raw.c)                                    */

int demo_raw_pingpong(const struct app_runner *r, struct app_ports *p,
		      uint32_t frame_len, uint32_t iters, struct demo_lat *out);

/* ------------------------------------------------------------------ */
/* RDMA endpoints (demo_ep.c)                                          */

#define DEMO_SQ_DEPTH 256
#define DEMO_RQ_DEPTH 256

struct demo_ep {
	char devargs[256];
	int dev_id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *scq;
	struct prdma_cq *rcq;
	struct prdma_qp *qp;
	uint8_t *buf;               /* target of the peer's WRITEs and SENDs */
	uint8_t *src;               /* source of our own requests */
	size_t buf_len;
	struct prdma_mr *buf_mr;
	struct prdma_mr *src_mr;
	union prdma_gid gid;
	struct rte_ether_addr mac;
	uint8_t max_rd_atomic;
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t mtu_bytes;
	/* The peer, as exchanged "out of band" in a real deployment. */
	uint64_t peer_addr;
	uint32_t peer_rkey;
};

int demo_ep_open(struct demo_ep *ep, const char *devargs, size_t buf_len);
/* Connect an RC QP pair; @p dmac_known: give each side the other's MAC. */
int demo_ep_connect(struct demo_ep *a, struct demo_ep *b, int dmac_known);
int demo_ep_close(struct demo_ep *ep);
/* Reap send completions; returns how many, or -EIO on an error status. */
int demo_ep_reap(struct demo_ep *ep, uint32_t *outstanding);

/* ------------------------------------------------------------------ */
/* Measurements (demo_lat.c, demo_bw.c)                                */

int demo_write_lat(const struct app_runner *r, struct demo_ep *a, struct demo_ep *b,
		   uint32_t size, uint32_t iters, struct demo_lat *out, int *verified);

enum demo_bw_op {
	DEMO_BW_WRITE,
	DEMO_BW_READ,
	DEMO_BW_SEND,
	DEMO_BW_NB
};

struct demo_bw {
	double gbps;
	double mmsgs;
	uint32_t msgs;
};

int demo_bandwidth(const struct app_runner *r, struct demo_ep *a, struct demo_ep *b,
		   enum demo_bw_op op, uint32_t size, uint32_t msgs, uint32_t window,
		   struct demo_bw *out, int *verified);


/* ------------------------------------------------------------------ */
/* Results (demo_report.c)                                             */

struct demo_row {
	uint32_t size;
	int lat_done;
	struct demo_lat lat;
	int bw_done[DEMO_BW_NB];
	struct demo_bw bw[DEMO_BW_NB];
	int verified;               /* 1 every check passed, 0 a mismatch */
	int raw_done;
	uint32_t raw_frame;
	struct demo_lat raw;
};

struct demo_result {
	struct demo_row rows[DEMO_MAX_SIZES];
	unsigned int nb_rows;
	int two_lcores;
	int baseline;
	const char *dev_a;
	const char *dev_b;
	double tsc_hz;
	int failed;
};

void demo_report_table(FILE *out, const struct demo_result *res);
int demo_report_json(const char *path, const struct demo_result *res);

#endif /* DEMO_H */
