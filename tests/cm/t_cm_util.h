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
/* @ms scaled by 2^n: every wait for something that must happen uses it. */
unsigned int t_ms(unsigned int ms);
/* The TSC @ms from now, and whether it has passed. */
uint64_t t_deadline(unsigned int ms);
int t_expired(uint64_t deadline);

/* 0 when ready, 77 when the provider has no GSI QP (reason printed). */
int t_cm_setup(const char *devargs_a, const char *devargs_b);
void t_cm_teardown(void);

/* Progress both channels once. */
void t_cm_pump(void);
/* Progress both sides until @ch has an event or @ms pass (NULL). The
 * event is tracked (below) until t_ack(). */
struct prdma_cm_event *t_cm_wait(struct prdma_cm_channel *ch, unsigned int ms);
/* Progress both sides for @ms. */
void t_cm_idle(unsigned int ms);

/*
 * What a test makes is tracked until it goes: ids (those it creates and
 * those CONNECT_REQUEST events bring), events not yet acked, QPs, AHs and
 * channels. The tests use these wrappers, never the library's calls, so
 * that t_cm_cleanup() can undo what a failed test left behind; without it
 * the leftovers (an id still resending, an event nobody acks, a MAD
 * filter whose argument was on the dead test's stack) fail the tests after.
 */
struct prdma_cm_id *t_id_create(struct prdma_cm_channel *ch, struct prdma_dev *dev,
				uint8_t port_num, enum prdma_cm_port_space ps,
				void *context);
int t_id_destroy(struct prdma_cm_id *id);
int t_get_event(struct prdma_cm_channel *ch, struct prdma_cm_event **ev);
int t_ack(struct prdma_cm_event *ev);
struct prdma_ah *t_ah_create(struct prdma_pd *pd, const struct prdma_ah_attr *attr);
int t_ah_destroy(struct prdma_ah *ah);
struct prdma_cm_channel *t_ch_create(uint32_t flags);
int t_ch_destroy(struct prdma_cm_channel *ch);
/*
 * Undo whatever is still tracked (after every test: nothing, when it
 * passed): remove the MAD filter, ack the events, destroy the ids (and
 * those the leftovers' events bring), then the QPs, AHs and channels.
 * Returns how many objects it undid, or -1 if some could not go.
 */
int t_cm_cleanup(void);

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
