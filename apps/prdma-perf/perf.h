/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PERF_H
#define PERF_H

/*
 * prdma-perf: perftest's tests (ib_write_lat, ib_write_bw, ...) on prdma,
 * with perftest's out-of-band TCP exchange so either side may be a Linux
 * host running perftest 4.5.
 */

#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>
#include <rte_log.h>

#include <prdma.h>

#include "app_run.h"
#include "app_stats.h"

extern int perf_logtype;
#define PERF_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, perf_logtype, "prdma-perf: " fmt "\n", ##__VA_ARGS__)

enum perf_test {
	PERF_WRITE_LAT,
	PERF_WRITE_BW,
	PERF_READ_LAT,
	PERF_READ_BW,
	PERF_SEND_LAT,
	PERF_SEND_BW,
	PERF_ATOMIC_LAT,
	PERF_ATOMIC_BW,
	PERF_RAW_LAT,                /* baselines: raw ethdev frames of */
	PERF_RAW_BW,                 /* a WRITE of -s bytes (--loopback) */
	PERF_MEMCPY_BW,              /* baseline: one core's rte_memcpy */
	PERF_TEST_NB
};

/* What the test does on the wire. */
enum perf_verb { PERF_VERB_WRITE, PERF_VERB_READ, PERF_VERB_SEND, PERF_VERB_ATOMIC };

/* perftest's -c: the transport of the data QPs. */
enum perf_conn { PERF_CONN_RC, PERF_CONN_UC, PERF_CONN_UD };

const char *perf_test_name(enum perf_test t);
const char *perf_conn_name(enum perf_conn c);
int perf_test_is_lat(enum perf_test t);
int perf_test_is_raw(enum perf_test t);
enum perf_verb perf_test_verb(enum perf_test t);

#define PERF_MAX_QP 16384
#define PERF_MAX_DEVARGS 2
#define PERF_DEFAULT_PORT 18515
#define PERF_MAX_SIZE (8u << 20)   /* -a goes up to 8 MiB, as perftest */
#define PERF_UD_QKEY 0x11111111u   /* perftest's DEF_QKEY: never exchanged */
#define PERF_GRH_LEN 40            /* UD receives start with the GRH area */
/* perftest's cycle buffer: what we announce (one page), and the largest a
 * peer may announce (64 KiB pages): our MR covers that much beyond every
 * advertised address. */
#define PERF_CYCLE_BUFFER 4096u
#define PERF_CYCLE_BUFFER_MAX 65536u

struct perf_opts {
	enum perf_test test;
	uint32_t size;
	int all_sizes;
	uint32_t iters;
	int iters_set;
	double duration;             /* -D seconds, 0 = iterations */
	uint32_t inline_size;        /* -I */
	uint32_t nqp;                /* -q */
	uint32_t tx_depth;           /* -t */
	uint32_t rx_depth;           /* -r */
	uint32_t cq_mod;             /* -Q: signal one request in this many */
	int report_gbits;
	int use_cm;                  /* -R */
	uint16_t port;               /* -p */
	const char *host;            /* client when set */
	int loopback;
	int ethdev_ports;             /* loopback over app ports, roce port mode */
	int raw_port;                /* raw_lat across processes: -1 = none */
	const char *devargs[PERF_MAX_DEVARGS];
	unsigned int nb_devargs;
	const char *json_path;
	const char *oob_trace;       /* --oob-trace: every OOB message in hex */
	const char *samples_path;    /* --samples: every latency sample (us) */
	int gid_index;               /* -x; -1 when not given */
	enum perf_conn conn;         /* -c */
	int force_link;              /* --force-link: 0 = the port's, else PRDMA_LINK_LAYER_* */
	int dont_xchg_versions;
	int atomic_cas;              /* -A CMP_AND_SWAP */
	struct rte_ether_addr dmac;  /* --dmac: the peer's MAC in port mode */
	int dmac_set;
	double timeout_s;
};

/* Returns 0 to run, 1 after --help, negative errno on a bad option. */
int perf_opts_parse(struct perf_opts *o, int argc, char **argv);
void perf_opts_usage(FILE *out, const char *prog);

/* What perftest calls a destination: one QP's connection keys. */
struct perf_key {
	uint16_t lid;
	uint16_t out_reads;
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint64_t vaddr;
	union prdma_gid gid;
	uint32_t srqn;
};

/*
 * perftest's ASCII key messages: 108 bytes with the GID (the sender's
 * gid_index >= 0), 59 bytes without (gid_index -1, which perftest keeps
 * only on an InfiniBand link). Byte 58 tells them apart: the 59-byte
 * message ends there with its NUL, the 108-byte one has a ':' between
 * two GID bytes.
 */
#define PERF_KEY_MSG_LEN 108
#define PERF_KEY_MSG_LEN_NOGID 59
#define PERF_KEY_FMT_BYTE 58
/* Encode in the format of @p len (59 or 108); returns the length or -errno. */
int perf_key_encode(const struct perf_key *k, char *msg, size_t len);
/* Decode a message of exactly @p len (59 or 108) bytes; 0 or -EINVAL. */
int perf_key_decode(const char *msg, size_t len, struct perf_key *k);
/* From a message's first 59 bytes: its whole length (59 or 108), or -EINVAL. */
int perf_key_msg_len(const char *msg);
/* perftest -R's 56-byte binary key message. */
#define PERF_KEY_BIN_LEN 56
void perf_key_encode_bin(const struct perf_key *k, uint8_t *msg);
void perf_key_decode_bin(const uint8_t *msg, struct perf_key *k);

/* ------------------------------------------------------------------ */
/* One side's resources (perf_res.c)                                   */

struct perf_side {
	const struct perf_opts *o;
	int server;
	char devargs[256];
	int dev_id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *scq;
	struct prdma_cq *rcq;
	struct prdma_qp **qp;
	struct prdma_ah **ah;        /* UD: per QP, to the peer's QP */
	uint32_t *peer_qkey;         /* UD: per QP, the peer QP's Q_Key */
	uint32_t nqp;
	uint8_t *buf;                /* nqp receive slots, then nqp source slots */
	size_t slot_len;
	size_t buf_len;
	struct prdma_mr *mr;
	uint8_t *ctl;                /* OOB messages over RC SENDs (-R) */
	struct prdma_mr *ctl_mr;
	struct prdma_qp *ctl_qp;     /* -R: the connection the messages use */
	struct prdma_cq *ctl_scq;
	struct prdma_cq *ctl_rcq;
	uint8_t link_layer;          /* enum prdma_link_layer, after --force-link */
	uint8_t port_link_layer;     /* the port's own: how the peer is reached */
	uint16_t lid;
	size_t key_len;              /* TCP key messages: 59 or 108 bytes */
	int gid_index;               /* -x, else perftest's rule (-1: no GID sent) */
	union prdma_gid peer_addr_gid; /* the OOB peer's IPv4 as a GID (59-byte keys) */
	int peer_addr_gid_set;
	struct perf_key *my;
	struct perf_key *peer;
	uint8_t mtu;                 /* enum prdma_mtu agreed with the peer */
	uint8_t max_init_rd;         /* device's outbound READ/atomic limit */
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_inline;
	struct rte_ether_addr mac;
	struct rte_ether_addr dmac;  /* the peer's MAC, when known */
	int dmac_set;
	uint64_t mem_qps;            /* heap bytes the QPs took */
	/* Set by the client's data phase when it is done (loopback). */
	volatile int *peer_done_flag;
	int oob_fd;                  /* server: readable = the client is done */
	int cm_mode;                 /* -R: the client's next message is a SEND */
	int ctl_posted;              /* a receive for it is already posted */
};

int perf_side_open(struct perf_side *s, const struct perf_opts *o, const char *devargs,
		   int server);
/* Fill s->my (PSNs, keys, addresses) once the objects exist. */
void perf_side_keys(struct perf_side *s);
/* Move every QP to RTS toward s->peer. */
int perf_side_connect(struct perf_side *s);
int perf_side_close(struct perf_side *s);
/* Post receives until the QP's receive queue is full (send tests). */
int perf_side_fill_recv(struct perf_side *s, uint32_t q, uint32_t n);

/* ------------------------------------------------------------------ */
/* Out-of-band exchange (perf_oob.c)                                   */

struct perf_oob {
	int fd;
	int client;
	FILE *trace;
	double peer_version;
	struct perf_side *side;      /* progressed while waiting */
	int progress;                /* until the traffic ends: the peer may need us */
	int cm;                      /* messages travel as RC SENDs (-R) */
};

int perf_oob_open(struct perf_oob *x, const struct perf_opts *o, struct perf_side *s);
void perf_oob_close(struct perf_oob *x);
/* One exchange: the client writes then reads, the server reads then writes. */
int perf_oob_xchg(struct perf_oob *x, const void *out, void *in, size_t len);
int perf_oob_versions(struct perf_oob *x, const struct perf_opts *o, struct perf_side *s);
int perf_oob_keys(struct perf_oob *x, struct perf_side *s);
/* The BW report exchange: five 8-byte big-endian values each way. */
int perf_oob_bw_report(struct perf_oob *x, const double mine[5], double peer[5]);
int perf_oob_done(struct perf_oob *x);
/* Send or receive over the CM-connected QP (-R). */
int perf_cm_msg(struct perf_oob *x, const void *out, void *in, size_t len);
/* Post the receive the client's first message after the traffic will take. */
int perf_cm_prepost(struct perf_side *s);

/* The CM connection (-R, perf_cm.c). */
struct perf_cm;
/* The exchange QP's connection (the server's listener gone after it). */
int perf_cm_xchg(struct perf_side *s, const struct perf_opts *o, struct perf_cm **cmp);
/* The data QPs' connections (SIDRs with -c UD), on a new listener. */
int perf_cm_data(struct perf_cm *cm, const struct perf_opts *o);
void perf_cm_close(struct perf_cm *cm);
/* -R -c UD, client: the peer QPNs SIDR gave replace those of the keys. */
void perf_cm_ud_peers(const struct perf_cm *cm, struct perf_side *s);
/* -R -c UD --loopback: each client QP resolves its server QP with SIDR. */
int perf_cm_loopback_ud(struct perf_side *srv, struct perf_side *cli, const struct perf_opts *o);

/* ------------------------------------------------------------------ */
/* Data phase (perf_lat.c, perf_bw.c)                                  */

struct perf_run {
	struct perf_side *side;
	uint32_t size;
	uint32_t iters;              /* 0 with a duration */
	uint64_t deadline;           /* TSC, with a duration */
	/* private state of the step functions */
	uint64_t posted, completed, received;
	uint32_t i, q, sig_every, nb_samples_max;
	uint32_t *q_out;             /* per QP: posted, not yet completed */
	uint32_t *q_unsig;           /* per QP: posted since the last signaled */
	uint64_t *q_posted;          /* per QP: posted in all */
	uint64_t *samples;
	uint64_t t0, t_first, t_last, t_prev_comp, ops_prev_comp;
	double peak_ops_s;
	unsigned int check;
	int waiting, done, tail_posted;
};

int perf_run_init(struct perf_run *r, struct perf_side *s, uint32_t size);
void perf_run_fini(struct perf_run *r);
/* Post one request of the test's verb on QP @p q (waits for room). */
int perf_post(struct perf_run *r, uint32_t q, uint8_t stamp, int force_signal);
static inline uint8_t *
perf_rx_slot(const struct perf_side *s, uint32_t q)
{
	return s->buf + (size_t)q * s->slot_len;
}
static inline uint8_t *
perf_tx_slot(const struct perf_side *s, uint32_t q)
{
	return s->buf + (size_t)(s->nqp + q) * s->slot_len;
}
/* Latency tests: whether this side posts first (perftest's roles). */
int perf_lat_initiator(const struct perf_side *s);
int perf_step_client(void *arg);
int perf_step_server(void *arg);
int perf_lat_client(struct perf_run *r);
int perf_lat_server(struct perf_run *r);
int perf_bw_client(struct perf_run *r);
int perf_bw_server(struct perf_run *r);
/* Reap send completions; -EIO on an error status. */
int perf_reap(struct perf_run *r);
int perf_peer_done(const struct perf_side *s);
/* The count is posted (-n) or the time is up (-D). */
int perf_run_over(const struct perf_run *r, uint64_t target);
/* Idle side: progress the device; 1 once the peer says it is done. */
int perf_idle_until_peer(struct perf_run *r);
/* Take one receive completion (send tests): 1, 0 if none, -EIO. */
int perf_recv_one(struct perf_run *r, uint32_t *q);
/*
 * Take up to PERF_RECV_BURST receive completions (send_bw's server, as
 * perftest polls a batch): how many, or -EIO. One at a time, a server on
 * the lcore it shares with its client (--loopback -l 0) took one
 * completion per turn while the client sent a window: the receive queue
 * ran dry and the client saw RNR NAKs.
 */
#define PERF_RECV_BURST 16
int perf_recv_burst(struct perf_run *r);

/* ------------------------------------------------------------------ */
/* Results (perf_report.c)                                             */

struct perf_row {
	uint32_t size;
	uint64_t iters;
	struct app_lat lat;
	double bw_peak, bw_avg;      /* MB/s (2^20) or Gb/s with --report_gbits */
	double msg_rate;             /* Mpps */
	double gbps;
	int from_peer;               /* a server shows the client's report */
	uint64_t retransmits;        /* this side's device, during the run */
	uint64_t naks;
};

void perf_report_banner(FILE *out, const struct perf_opts *o, const struct perf_side *s);
void perf_report_keys(FILE *out, const struct perf_side *s);
void perf_report_header(FILE *out, const struct perf_opts *o);
void perf_report_row(FILE *out, const struct perf_opts *o, const struct perf_row *row);
void perf_report_footer(FILE *out);
/* One line: the device's retransmits, NAKs, RNR, duplicates, out of order. */
void perf_report_counters(FILE *out, const struct perf_side *s);
void perf_row_from_run(const struct perf_opts *o, const struct perf_run *r,
		       struct perf_row *row);
/* Write the run's latency samples, one-way microseconds, one a line. */
int perf_report_samples(const char *path, const struct perf_opts *o, const struct perf_run *r);
int perf_report_json(const char *path, const struct perf_opts *o, const struct perf_side *s,
		     const struct perf_row *rows, unsigned int nb_rows, const char *mode);

#endif /* PERF_H */
