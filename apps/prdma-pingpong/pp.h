/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PP_H
#define PP_H

/*
 * prdma-pingpong: the counterpart of rdma-core's ibv_rc_pingpong,
 * ibv_uc_pingpong, ibv_ud_pingpong and ibv_srq_pingpong (libibverbs/
 * examples, rdma-core 44): their TCP exchange on port 18515, their QP
 * settings, their ping-pong and their --chk data, so either side may be
 * the real tool on a Linux RDMA host.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_log.h>

#include <prdma.h>

extern int pp_logtype;
#define PP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, pp_logtype, "prdma-pingpong: " fmt "\n", ##__VA_ARGS__)

enum pp_kind { PP_RC, PP_UC, PP_UD, PP_SRQ };

#define PP_DEFAULT_PORT 18515
#define PP_MSG_LEN 52              /* "LLLL:QQQQQQ:PPPPPP:" + 32 hex + NUL */
#define PP_DONE_LEN 5              /* "done" + NUL */
#define PP_SRQ_MSGS 256            /* srq_pingpong's MAX_QP: all are sent */
#define PP_UD_QKEY 0x11111111u
#define PP_GRH_LEN 40              /* UD receives start with the GRH */
#define PP_PAGE 4096u              /* the tools' sysconf(_SC_PAGESIZE) on x86 */
#define PP_FILL 0x7b               /* what rc/uc/ud_pingpong memset their buffer to */

struct pp_opts {
	enum pp_kind kind;
	uint16_t port;               /* -p */
	uint32_t size;               /* -s */
	uint8_t mtu;                 /* -m, enum prdma_mtu (UD: the port's) */
	uint32_t rx_depth;           /* -r */
	uint32_t iters;              /* -n */
	uint8_t sl;                  /* -l */
	int gidx;                    /* -g, -1 without */
	int chk;                     /* -c / --chk */
	uint32_t num_qp;             /* -q (srq) */
	const char *devargs;
	struct rte_ether_addr dmac;  /* --dmac */
	int dmac_set;
	const char *host;            /* client when set */
	double timeout_s;
};

/* Returns 0 to run, 1 after --help, negative errno on a bad option. */
int pp_opts_parse(struct pp_opts *o, int argc, char **argv);

/* One QP's address as the tools exchange it. */
struct pp_dest {
	uint32_t lid;
	uint32_t qpn;
	uint32_t psn;
	union prdma_gid gid;
};

/* The 52-byte message: "%04x:%06x:%06x:" + the GID's 16 bytes as 32 hex. */
void pp_msg_encode(const struct pp_dest *d, char msg[PP_MSG_LEN]);
/* Strict: the exact widths, lowercase or uppercase hex, the NUL; 0 or -EINVAL. */
int pp_msg_decode(const char msg[PP_MSG_LEN], struct pp_dest *d);

/*
 * The exchange of @p n messages each way (1, or PP_SRQ_MSGS): the client
 * writes its n, reads the server's n and writes "done"; the server reads
 * the client's n, calls @p connect (its QPs go to RTS before it answers),
 * writes its n and reads "done". While it waits for a message it progresses
 * @p dev (when not NULL), so that it answers the peer's ARP meanwhile.
 */
int pp_exchange(const struct pp_opts *o, const struct pp_dest *mine, struct pp_dest *peer,
		unsigned int n, struct prdma_dev *dev, int (*connect)(void *arg), void *arg);

#endif /* PP_H */
