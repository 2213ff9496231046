/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef T_CM_UTIL_H
#define T_CM_UTIL_H

/*
 * Two soft RoCE devices joined by the in-process ring loopback, one CM
 * channel each: side A connects, side B listens.
 */

#include <stdint.h>
#include <netinet/in.h>

#include <prdma.h>
#include <prdma_cm.h>

#define T_BUF_SIZE 65536

struct t_side {
	int dev_id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_cm_channel *ch;
	union prdma_gid gid;
	uint8_t *buf;
	struct prdma_mr *mr;
};

extern struct t_side t_a, t_b;

/*
 * Short CM timers so loss and timeout cases take milliseconds. A device
 * that answers from a thread of its own (the Hermon model) on a loaded
 * machine takes longer than 4 ms for a round trip now and then:
 * PRDMA_CM_TEST_TIMEOUT_SHIFT=n multiplies the response timeout by 2^n.
 */
extern struct prdma_cm_conn_param t_fast;
/* That n (0 by default): waits tied to the response timeout scale by 2^n. */
extern unsigned int t_timeout_shift;

/* 0 when ready, 77 when the provider has no GSI QP (reason printed). */
int t_cm_setup(const char *devargs_a, const char *devargs_b);
void t_cm_teardown(void);

/* Progress both channels once. */
void t_cm_pump(void);
/* Progress both sides until @ch has an event or @ms pass (NULL). */
struct prdma_cm_event *t_cm_wait(struct prdma_cm_channel *ch, unsigned int ms);
/* Progress both sides for @ms. */
void t_cm_idle(unsigned int ms);

struct prdma_qp *t_qp(struct t_side *s, enum prdma_qp_type type);
void t_qp_free(struct prdma_qp *qp);
/* Side @s's IPv4 address with @port, as a sockaddr_in. */
struct sockaddr_in t_addr(const struct t_side *s, uint16_t port);
uint64_t t_counter(const struct t_side *s, enum prdma_dev_counter c);
struct prdma_cm_stats t_stats(const struct t_side *s);

/* One RC SEND from @from to @to over a connected pair; 0 on success. */
int t_rc_ping(struct prdma_qp *from, struct t_side *fs, struct prdma_qp *to,
	      struct t_side *ts, uint32_t len);

#endif /* T_CM_UTIL_H */
