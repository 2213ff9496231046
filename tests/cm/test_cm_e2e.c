/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The connection manager end to end over the soft provider's loopback
 * (roce:ring=cm,side=0 and side=1): connect, accept, reject, disconnect
 * with every private-data length, no listener, lost and duplicated CM
 * messages (through the CM's send-path test hook), MRA, stale connections,
 * SIDR for UD, malformed MADs, 1,000 connections without a leak, and the
 * NDK counters against what was done.
 */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include <prdma.h>
#include <prdma_cm.h>
#include <prdma_provider.h>
#include <prdma_roce.h>

#include "prdma_cm_test.h"
#include "t_eal.h"
#include "t_cm_util.h"

/* How long an expected event may take (times 2^shift, t_ms()). */
#define WAIT_MS 2000

/* The devices are the soft provider's (its own fault injection applies). */
static bool t_soft = true;

/*
 * PRDMA_CM_TEST_FAIL_WAIT=<test>:<n>[:taken]: that test's n-th wait for an
 * event fails as a lost event would (with ":taken", as a wrong event
 * would: taken and never acked), leaving what the test made behind; the
 * run then passes only if that was its one failure (cm-e2e-cleanup: a
 * failed test cannot fail the ones after it).
 */
static const char *t_cur;          /* the running test */
static unsigned int t_waits;       /* its waits so far */
static char t_fail_test[64];
static unsigned int t_fail_n;
static bool t_fail_taken;
static bool t_fail_fired;

static bool
forced_failure(void)
{
	t_waits++;
	if (t_fail_n == 0 || t_cur == NULL || t_waits != t_fail_n ||
	    strcmp(t_cur, t_fail_test) != 0)
		return false;
	t_fail_fired = true;
	return true;
}

/* Parse PRDMA_CM_TEST_FAIL_WAIT; false if it is malformed. */
static bool
forced_failure_parse(const char *f)
{
	const char *c1 = strchr(f, ':'), *c2;
	char *end;
	long n;

	if (c1 == NULL || c1 == f || (size_t)(c1 - f) >= sizeof(t_fail_test))
		return false;
	n = strtol(c1 + 1, &end, 10);
	c2 = end;
	if (end == c1 + 1 || n <= 0 || n > 1000000 ||
	    (*c2 != '\0' && strcmp(c2, ":taken") != 0))
		return false;
	memcpy(t_fail_test, f, (size_t)(c1 - f));
	t_fail_n = (unsigned int)n;
	t_fail_taken = *c2 != '\0';
	return true;
}

struct conn {
	struct prdma_cm_id *listen;
	struct prdma_cm_id *cid;           /* active */
	struct prdma_cm_id *sid;           /* passive (from CONNECT_REQUEST) */
	struct prdma_qp *qa;
	struct prdma_qp *qb;
};

static struct prdma_cm_event *
expect(struct prdma_cm_channel *ch, enum prdma_cm_event_type type)
{
	bool forced = forced_failure();
	struct prdma_cm_event *ev;

	if (forced && !t_fail_taken)
		fail_msg("forced: no event, expected %s (PRDMA_CM_TEST_FAIL_WAIT)",
			 prdma_cm_event_str(type));
	ev = t_cm_wait(ch, t_ms(WAIT_MS));
	if (forced && ev != NULL)
		fail_msg("forced: event %s taken as unexpected (PRDMA_CM_TEST_FAIL_WAIT)",
			 prdma_cm_event_str(ev->event));

	if (ev == NULL)
		fail_msg("no event, expected %s", prdma_cm_event_str(type));
	if (ev->event != type)
		fail_msg("event %s (status %d), expected %s", prdma_cm_event_str(ev->event),
			 ev->status, prdma_cm_event_str(type));
	return ev;
}

static void
no_event(struct prdma_cm_channel *ch)
{
	struct prdma_cm_event *ev;

	if (t_get_event(ch, &ev) == 0)
		fail_msg("unexpected event %s", prdma_cm_event_str(ev->event));
}

static struct prdma_cm_id *
listen_on(uint16_t port, enum prdma_cm_port_space ps)
{
	struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct prdma_cm_id *l;

	l = t_id_create(t_b.ch, t_b.dev, 1, ps, NULL);
	assert_non_null(l);
	assert_int_equal(prdma_cm_listen(l, (struct sockaddr *)&any, 0), 0);
	return l;
}

/* Connect A to B's listener; returns the CONNECT_REQUEST (not acked). */
static struct prdma_cm_event *
request(struct conn *c, uint16_t port, const struct prdma_cm_conn_param *p)
{
	struct sockaddr_in dst = t_addr(&t_b, port);
	struct prdma_cm_event *ev;

	c->cid = t_id_create(t_a.ch, t_a.dev, 1, PRDMA_CM_PS_TCP, c);
	assert_non_null(c->cid);
	c->qa = t_qp(&t_a, PRDMA_QPT_RC);
	assert_non_null(c->qa);
	assert_int_equal(prdma_cm_connect(c->cid, c->qa, (struct sockaddr *)&dst, p), 0);
	ev = expect(t_b.ch, PRDMA_CM_EVENT_CONNECT_REQUEST);
	assert_ptr_equal(ev->listen_id, c->listen);
	c->sid = ev->id;
	return ev;
}

static void
accept_it(struct conn *c, const struct prdma_cm_conn_param *p)
{
	c->qb = t_qp(&t_b, PRDMA_QPT_RC);
	assert_non_null(c->qb);
	assert_int_equal(prdma_cm_accept(c->sid, c->qb, p), 0);
}

static void
both_established(struct conn *c, const uint8_t *rep_pd, uint16_t rep_len)
{
	struct prdma_cm_event *ev;

	ev = expect(t_a.ch, PRDMA_CM_EVENT_ESTABLISHED);
	assert_ptr_equal(ev->id, c->cid);
	assert_int_equal(ev->param.conn.private_data_len, PRDMA_CM_REP_PRIVATE_DATA);
	if (rep_len > 0)
		assert_memory_equal(ev->param.conn.private_data, rep_pd, rep_len);
	assert_int_equal(ev->param.conn.qp_num, c->qb->qp_num);
	assert_int_equal(t_ack(ev), 0);
	ev = expect(t_b.ch, PRDMA_CM_EVENT_ESTABLISHED);
	assert_ptr_equal(ev->id, c->sid);
	assert_int_equal(ev->param.conn.qp_num, c->qa->qp_num);
	assert_int_equal(t_ack(ev), 0);
	assert_int_equal(c->qa->state, PRDMA_QPS_RTS);
	assert_int_equal(c->qb->state, PRDMA_QPS_RTS);
}

static void
disconnect_both(struct conn *c, struct prdma_cm_id *who)
{
	struct prdma_cm_event *ev;

	assert_int_equal(prdma_cm_disconnect(who), 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_DISCONNECTED);
	assert_int_equal(t_ack(ev), 0);
	ev = expect(t_b.ch, PRDMA_CM_EVENT_DISCONNECTED);
	assert_int_equal(t_ack(ev), 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_TIMEWAIT_EXIT);
	assert_int_equal(t_ack(ev), 0);
	ev = expect(t_b.ch, PRDMA_CM_EVENT_TIMEWAIT_EXIT);
	assert_int_equal(t_ack(ev), 0);
	assert_int_equal(c->qa->state, PRDMA_QPS_ERR);
	assert_int_equal(c->qb->state, PRDMA_QPS_ERR);
}

static void
conn_free(struct conn *c)
{
	if (c->cid != NULL)
		assert_int_equal(t_id_destroy(c->cid), 0);
	if (c->sid != NULL)
		assert_int_equal(t_id_destroy(c->sid), 0);
	t_qp_free(c->qa);
	t_qp_free(c->qb);
	c->cid = c->sid = NULL;
	c->qa = c->qb = NULL;
}

/*
 * The application destroys its QP while connected, after telling the CM
 * (librdmacm's rdma_destroy_qp): the peer's DREQ is still matched by the
 * QP number, answered, and reported on both ends.
 */
static void
test_release_qp(void **state)
{
	struct conn c = { 0 };
	struct prdma_cm_event *ev;

	(void)state;
	c.listen = listen_on(7390, PRDMA_CM_PS_TCP);
	ev = request(&c, 7390, &t_fast);
	assert_int_equal(t_ack(ev), 0);
	accept_it(&c, &t_fast);
	both_established(&c, NULL, 0);
	assert_int_equal(prdma_cm_id_release_qp(NULL), -EINVAL);
	assert_int_equal(prdma_cm_id_release_qp(c.cid), 0);
	assert_null(c.cid->qp);
	t_qp_free(c.qa);
	c.qa = NULL;
	assert_int_equal(prdma_cm_disconnect(c.sid), 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_DISCONNECTED);
	assert_ptr_equal(ev->id, c.cid);
	assert_int_equal(t_ack(ev), 0);
	ev = expect(t_b.ch, PRDMA_CM_EVENT_DISCONNECTED);
	assert_int_equal(t_ack(ev), 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_TIMEWAIT_EXIT);
	assert_int_equal(t_ack(ev), 0);
	ev = expect(t_b.ch, PRDMA_CM_EVENT_TIMEWAIT_EXIT);
	assert_int_equal(t_ack(ev), 0);
	conn_free(&c);
	assert_int_equal(t_id_destroy(c.listen), 0);
}

/* Every REQ length 0..limit, every REP length 0..limit, data flows. */
static void
test_private_data_lengths(void **state)
{
	uint8_t req_pd[PRDMA_CM_REQ_PRIVATE_DATA], rep_pd[PRDMA_CM_REP_PRIVATE_DATA];
	struct prdma_cm_conn_param p = t_fast, ap = t_fast;
	uint64_t c0 = t_counter(&t_a, PRDMA_DEV_CNT_CONNECT);
	uint64_t a0 = t_counter(&t_b, PRDMA_DEV_CNT_ACCEPT);
	struct prdma_cm_event *ev;
	struct prdma_dev_attr da;
	struct conn c = { 0 };
	unsigned int i, k;

	(void)state;
	assert_int_equal(prdma_dev_query(t_a.dev, &da), 0);
	assert_int_equal(da.max_caller_data, PRDMA_CM_REQ_PRIVATE_DATA);
	assert_int_equal(da.max_callee_data, PRDMA_CM_REP_PRIVATE_DATA);
	c.listen = listen_on(7174, PRDMA_CM_PS_TCP);
	for (i = 0; i <= PRDMA_CM_REP_PRIVATE_DATA; i++) {
		p.private_data_len = (uint16_t)(i % (PRDMA_CM_REQ_PRIVATE_DATA + 1));
		t_pattern_fill(req_pd, sizeof(req_pd), i);
		p.private_data = req_pd;
		p.responder_resources = (uint8_t)(i % 3);
		p.initiator_depth = (uint8_t)(i % 2);
		ev = request(&c, 7174, &p);
		assert_int_equal(ev->param.conn.private_data_len, PRDMA_CM_REQ_PRIVATE_DATA);
		assert_memory_equal(ev->param.conn.private_data, req_pd, p.private_data_len);
		for (k = p.private_data_len; k < PRDMA_CM_REQ_PRIVATE_DATA; k++)
			assert_int_equal(ev->private_data[k], 0);
		/* swapped on receipt: the peer's initiator depth is ours to serve */
		assert_int_equal(ev->param.conn.responder_resources, p.initiator_depth);
		assert_int_equal(ev->param.conn.initiator_depth, p.responder_resources);
		assert_int_equal(ev->param.conn.qp_num, c.qa->qp_num);
		assert_int_equal(c.sid->peer_addr.ss_family, AF_INET);
		/* read before the ack, which frees the event */
		ap.responder_resources = ev->param.conn.responder_resources;
		ap.initiator_depth = ev->param.conn.initiator_depth;
		assert_int_equal(t_ack(ev), 0);
		t_pattern_fill(rep_pd, sizeof(rep_pd), i + 1000);
		ap.private_data = rep_pd;
		ap.private_data_len = (uint16_t)i;
		accept_it(&c, &ap);
		both_established(&c, rep_pd, (uint16_t)i);
		if (i % 50 == 0) {
			assert_int_equal(t_rc_ping(c.qa, &t_a, c.qb, &t_b, 64 + i), 0);
			assert_int_equal(t_rc_ping(c.qb, &t_b, c.qa, &t_a, 100), 0);
		}
		disconnect_both(&c, i % 2 ? c.cid : c.sid);
		conn_free(&c);
	}
	assert_int_equal(t_id_destroy(c.listen), 0);
	assert_int_equal(t_counter(&t_a, PRDMA_DEV_CNT_CONNECT) - c0, i);
	assert_int_equal(t_counter(&t_b, PRDMA_DEV_CNT_ACCEPT) - a0, i);
}

static void
test_limits(void **state)
{
	uint8_t pd[256] = { 0 };
	struct prdma_cm_conn_param p = t_fast;
	struct sockaddr_in dst = t_addr(&t_b, 7175);
	struct prdma_cm_event *ev;
	struct conn c = { 0 };

	(void)state;
	c.listen = listen_on(7175, PRDMA_CM_PS_TCP);
	c.cid = t_id_create(t_a.ch, t_a.dev, 1, PRDMA_CM_PS_TCP, NULL);
	c.qa = t_qp(&t_a, PRDMA_QPT_RC);
	p.private_data = pd;
	p.private_data_len = PRDMA_CM_REQ_PRIVATE_DATA + 1;
	assert_int_equal(prdma_cm_connect(c.cid, c.qa, (struct sockaddr *)&dst, &p), -EINVAL);
	assert_int_equal(rte_errno, EINVAL);
	p.private_data_len = 0;
	p.retry_count = 8;
	assert_int_equal(prdma_cm_connect(c.cid, c.qa, (struct sockaddr *)&dst, &p), -EINVAL);
	p.retry_count = 7;
	assert_int_equal(prdma_cm_connect(c.cid, c.qa, (struct sockaddr *)&dst, &p), 0);
	/* a second connect on a connecting id */
	assert_int_equal(prdma_cm_connect(c.cid, c.qa, (struct sockaddr *)&dst, &p), -EINVAL);
	ev = expect(t_b.ch, PRDMA_CM_EVENT_CONNECT_REQUEST);
	c.sid = ev->id;
	/* an id with an unacked event cannot go */
	assert_int_equal(t_id_destroy(c.sid), -EBUSY);
	assert_int_equal(t_ack(ev), 0);
	c.qb = t_qp(&t_b, PRDMA_QPT_RC);
	p.private_data_len = PRDMA_CM_REP_PRIVATE_DATA + 1;
	assert_int_equal(prdma_cm_accept(c.sid, c.qb, &p), -EINVAL);
	assert_int_equal(prdma_cm_reject(c.sid, pd, PRDMA_CM_REJ_PRIVATE_DATA + 1, 0), -EINVAL);
	assert_int_equal(prdma_cm_disconnect(c.sid), -EINVAL);
	p.private_data_len = PRDMA_CM_REP_PRIVATE_DATA;
	assert_int_equal(prdma_cm_accept(c.sid, c.qb, &p), 0);
	both_established(&c, pd, 0);
	/* listen twice on one service */
	{
		struct prdma_cm_id *l2 = t_id_create(t_b.ch, t_b.dev, 1,
							    PRDMA_CM_PS_TCP, NULL);
		struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(7175) };
		struct sockaddr_in other = t_addr(&t_a, 7176);

		assert_int_equal(prdma_cm_listen(l2, (struct sockaddr *)&any, 0), -EADDRINUSE);
		assert_int_equal(prdma_cm_listen(l2, (struct sockaddr *)&other, 0),
				 -EADDRNOTAVAIL);
		assert_int_equal(t_id_destroy(l2), 0);
	}
	assert_int_equal(t_ch_destroy(t_a.ch), -EBUSY);
	disconnect_both(&c, c.cid);
	conn_free(&c);
	assert_int_equal(t_id_destroy(c.listen), 0);
}

/* Reject with every private-data length 0..148. */
static void
test_reject(void **state)
{
	uint8_t pd[PRDMA_CM_REJ_PRIVATE_DATA];
	uint64_t f0 = t_counter(&t_a, PRDMA_DEV_CNT_CONNECT_FAILURE);
	struct prdma_cm_event *ev;
	struct conn c = { 0 };
	unsigned int i;

	(void)state;
	c.listen = listen_on(7177, PRDMA_CM_PS_TCP);
	for (i = 0; i <= PRDMA_CM_REJ_PRIVATE_DATA; i++) {
		ev = request(&c, 7177, &t_fast);
		assert_int_equal(t_ack(ev), 0);
		t_pattern_fill(pd, sizeof(pd), i);
		assert_int_equal(prdma_cm_reject(c.sid, pd, (uint16_t)i, 0), 0);
		ev = expect(t_a.ch, PRDMA_CM_EVENT_REJECTED);
		assert_int_equal(ev->status, PRDMA_CM_REJ_CONSUMER_DEFINED);
		assert_int_equal(ev->param.conn.private_data_len, PRDMA_CM_REJ_PRIVATE_DATA);
		assert_memory_equal(ev->param.conn.private_data, pd, i);
		assert_int_equal(t_ack(ev), 0);
		assert_int_equal(c.qa->state, PRDMA_QPS_ERR);
		conn_free(&c);
	}
	/* an application reason */
	ev = request(&c, 7177, &t_fast);
	assert_int_equal(t_ack(ev), 0);
	assert_int_equal(prdma_cm_reject(c.sid, NULL, 0, PRDMA_CM_REJ_NO_RESOURCES), 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_REJECTED);
	assert_int_equal(ev->status, PRDMA_CM_REJ_NO_RESOURCES);
	assert_int_equal(t_ack(ev), 0);
	conn_free(&c);
	assert_int_equal(t_id_destroy(c.listen), 0);
	assert_int_equal(t_counter(&t_a, PRDMA_DEV_CNT_CONNECT_FAILURE) - f0, i + 1);
	assert_int_equal(t_counter(&t_a, PRDMA_DEV_CNT_ACTIVE_CONNECTION), 0);
}

/* Nobody listens: REJ "invalid service ID" from a peer whose CM runs,
 * UNREACHABLE after the resends from a peer with no CM at all. */
static void
test_no_listener(void **state)
{
	struct sockaddr_in dst = t_addr(&t_b, 9999);
	uint64_t f0 = t_counter(&t_a, PRDMA_DEV_CNT_CONNECT_FAILURE);
	struct prdma_cm_id *other;
	struct prdma_cm_event *ev;
	struct conn c = { 0 };

	(void)state;
	other = listen_on(9998, PRDMA_CM_PS_TCP);
	c.cid = t_id_create(t_a.ch, t_a.dev, 1, PRDMA_CM_PS_TCP, NULL);
	c.qa = t_qp(&t_a, PRDMA_QPT_RC);
	assert_int_equal(prdma_cm_connect(c.cid, c.qa, (struct sockaddr *)&dst, NULL), 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_REJECTED);
	assert_int_equal(ev->status, PRDMA_CM_REJ_INVALID_SERVICE_ID);
	assert_int_equal(t_ack(ev), 0);
	no_event(t_b.ch);
	conn_free(&c);
	assert_int_equal(t_id_destroy(other), 0);
	/* no id on B: its port runs no CM */
	c.cid = t_id_create(t_a.ch, t_a.dev, 1, PRDMA_CM_PS_TCP, NULL);
	c.qa = t_qp(&t_a, PRDMA_QPT_RC);
	assert_int_equal(prdma_cm_connect(c.cid, c.qa, (struct sockaddr *)&dst, &t_fast), 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_UNREACHABLE);
	assert_int_equal(ev->status, -ETIMEDOUT);
	assert_int_equal(t_ack(ev), 0);
	conn_free(&c);
	assert_int_equal(t_counter(&t_a, PRDMA_DEV_CNT_CONNECT_FAILURE) - f0, 2);
}

/* ---- the send-path hook: lose or duplicate chosen MADs ----------------- */

struct loss {
	uint16_t attr;                     /* 0: every attribute */
	int drop;                          /* how many to drop */
	int dup;                           /* duplicate every one */
	int seen[32];
};

static enum prdma_cm_test_tx_action
loss_filter(struct prdma_dev *dev, uint16_t attr, void *arg)
{
	struct loss *l = arg;

	(void)dev;
	l->seen[attr & 31]++;
	if (l->attr != 0 && attr != l->attr)
		return PRDMA_CM_TEST_TX_SEND;
	if (l->drop > 0) {
		l->drop--;
		return PRDMA_CM_TEST_TX_DROP;
	}
	return l->dup ? PRDMA_CM_TEST_TX_DUP : PRDMA_CM_TEST_TX_SEND;
}

/*
 * perftest -R's server at exit: it releases its QP, disconnects while the
 * client's own DREQ is on its way, and returns from main without
 * destroying the id. prdma_cm_quiesce() (librdmacm's exit hook) runs the
 * CM itself, nobody else progressing it, until both DREQs are answered
 * and every MAD is out; with the peer's answer lost it gives up at its
 * bound.
 */
static void
test_quiesce(void **state)
{
	struct loss l = { .attr = 0x16, .drop = 1000 };   /* every DREP */
	struct prdma_cm_conn_param slow;
	struct conn c = { 0 };
	struct prdma_cm_event *ev;
	uint64_t t0, ms;

	(void)state;
	assert_int_equal(prdma_cm_quiesce(0), 0);         /* nothing owed */
	c.listen = listen_on(7391, PRDMA_CM_PS_TCP);
	ev = request(&c, 7391, &t_fast);
	assert_int_equal(t_ack(ev), 0);
	accept_it(&c, &t_fast);
	both_established(&c, NULL, 0);
	assert_int_equal(prdma_cm_id_release_qp(c.sid), 0);
	t_qp_free(c.qb);
	c.qb = NULL;
	assert_int_equal(prdma_cm_disconnect(c.cid), 0);
	assert_int_equal(prdma_cm_disconnect(c.sid), 0);
	assert_int_equal(prdma_cm_quiesce(t_ms(WAIT_MS)), 0);
	/* Taken without progressing: the quiesce did all of it. */
	assert_int_equal(t_get_event(t_a.ch, &ev), 0);
	assert_int_equal(ev->event, PRDMA_CM_EVENT_DISCONNECTED);
	assert_int_equal(ev->status, 0);
	assert_int_equal(t_ack(ev), 0);
	assert_int_equal(t_get_event(t_b.ch, &ev), 0);
	assert_int_equal(ev->event, PRDMA_CM_EVENT_DISCONNECTED);
	assert_int_equal(ev->status, 0);
	assert_int_equal(t_ack(ev), 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_TIMEWAIT_EXIT);
	assert_int_equal(t_ack(ev), 0);
	ev = expect(t_b.ch, PRDMA_CM_EVENT_TIMEWAIT_EXIT);
	assert_int_equal(t_ack(ev), 0);
	conn_free(&c);

	/* The peer's DREP never comes: the bound, not the resends, ends it
	 * (B resends its DREQ after 2^16 x 4.096 us = 268 ms). */
	slow = t_fast;
	slow.cm_response_timeout = 16;
	ev = request(&c, 7391, &slow);
	assert_int_equal(t_ack(ev), 0);
	accept_it(&c, &slow);
	both_established(&c, NULL, 0);
	prdma_cm_test_set_tx_filter(loss_filter, &l);
	assert_int_equal(prdma_cm_disconnect(c.sid), 0);
	t0 = rte_get_timer_cycles();
	assert_int_equal(prdma_cm_quiesce(20), -ETIMEDOUT);
	assert_int_equal(rte_errno, ETIMEDOUT);
	ms = (rte_get_timer_cycles() - t0) * 1000 / rte_get_timer_hz();
	assert_true(ms >= 20);
	assert_true(ms < t_ms(WAIT_MS));
	prdma_cm_test_set_tx_filter(NULL, NULL);
	assert_true(l.seen[0x16] >= 1);                   /* A answered, lost */
	ev = expect(t_a.ch, PRDMA_CM_EVENT_DISCONNECTED);
	assert_int_equal(t_ack(ev), 0);
	ev = expect(t_b.ch, PRDMA_CM_EVENT_DISCONNECTED);
	assert_int_equal(ev->status, 0);                  /* a resend's DREP */
	assert_int_equal(t_ack(ev), 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_TIMEWAIT_EXIT);
	assert_int_equal(t_ack(ev), 0);
	ev = expect(t_b.ch, PRDMA_CM_EVENT_TIMEWAIT_EXIT);
	assert_int_equal(t_ack(ev), 0);
	conn_free(&c);
	assert_int_equal(t_id_destroy(c.listen), 0);
}

/*
 * perftest -R's atomic_lat server returns from main with its connection
 * up: prdma_cm_exit() (the librdmacm drop-in's exit hook) disconnects it
 * as the kernel would on closing the process's rdma_cm file, and returns
 * once the DREQs are answered; no more events, the QPs left alone.
 */
static void
test_exit(void **state)
{
	struct conn c = { 0 };
	struct prdma_cm_event *ev;

	(void)state;
	c.listen = listen_on(7392, PRDMA_CM_PS_TCP);
	ev = request(&c, 7392, &t_fast);
	assert_int_equal(t_ack(ev), 0);
	accept_it(&c, &t_fast);
	both_established(&c, NULL, 0);
	assert_int_equal(prdma_cm_exit(t_ms(WAIT_MS)), 0);
	/* Both ends are disconnected (time-wait) without an event. */
	assert_int_equal(prdma_cm_disconnect(c.cid), -EINVAL);
	assert_int_equal(prdma_cm_disconnect(c.sid), -EINVAL);
	no_event(t_a.ch);
	no_event(t_b.ch);
	assert_int_equal(c.qa->state, PRDMA_QPS_RTS);
	t_cm_idle(t_ms(50));
	no_event(t_a.ch);
	no_event(t_b.ch);
	conn_free(&c);
	assert_int_equal(t_id_destroy(c.listen), 0);
}

/* Nothing answers: UNREACHABLE after the resends. */
static void
test_unreachable(void **state)
{
	struct loss l = { .attr = 0x10, .drop = 1000 };
	struct prdma_cm_stats s0 = t_stats(&t_a), s1;
	uint64_t f0 = t_counter(&t_a, PRDMA_DEV_CNT_CONNECT_FAILURE);
	struct prdma_cm_event *ev;
	struct conn c = { 0 };

	(void)state;
	c.listen = listen_on(7178, PRDMA_CM_PS_TCP);
	prdma_cm_test_set_tx_filter(loss_filter, &l);
	c.cid = t_id_create(t_a.ch, t_a.dev, 1, PRDMA_CM_PS_TCP, NULL);
	c.qa = t_qp(&t_a, PRDMA_QPT_RC);
	{
		struct sockaddr_in dst = t_addr(&t_b, 7178);

		assert_int_equal(prdma_cm_connect(c.cid, c.qa, (struct sockaddr *)&dst,
						  &t_fast), 0);
	}
	ev = expect(t_a.ch, PRDMA_CM_EVENT_UNREACHABLE);
	assert_int_equal(ev->status, -ETIMEDOUT);
	assert_int_equal(t_ack(ev), 0);
	prdma_cm_test_set_tx_filter(NULL, NULL);
	assert_int_equal(l.seen[0x10], 1 + t_fast.max_cm_retries);
	s1 = t_stats(&t_a);
	assert_int_equal(s1.tx_resends - s0.tx_resends, t_fast.max_cm_retries);
	assert_int_equal(t_counter(&t_a, PRDMA_DEV_CNT_CONNECT_FAILURE) - f0, 1);
	no_event(t_b.ch);
	conn_free(&c);
	assert_int_equal(t_id_destroy(c.listen), 0);
}

/* Lose the first REQ, REP, RTU, DREQ or DREP: the exchange recovers. */
static void
test_lost_messages(void **state)
{
	static const uint16_t attrs[] = { 0x10, 0x13, 0x14, 0x15, 0x16 };
	struct prdma_cm_event *ev;
	struct conn c = { 0 };
	unsigned int i;

	(void)state;
	c.listen = listen_on(7179, PRDMA_CM_PS_TCP);
	for (i = 0; i < RTE_DIM(attrs); i++) {
		struct loss l = { .attr = attrs[i], .drop = 1 };
		struct prdma_cm_stats s0 = t_stats(&t_a), s1 = t_stats(&t_b), e0, e1;

		prdma_cm_test_set_tx_filter(loss_filter, &l);
		ev = request(&c, 7179, &t_fast);
		assert_int_equal(t_ack(ev), 0);
		accept_it(&c, &t_fast);
		both_established(&c, NULL, 0);
		disconnect_both(&c, c.cid);
		prdma_cm_test_set_tx_filter(NULL, NULL);
		assert_int_equal(l.drop, 0);
		e0 = t_stats(&t_a);
		e1 = t_stats(&t_b);
		/* REQ, REP, DREQ come back by resend; RTU and DREP because the
		 * peer resends what they answer */
		assert_true(e0.tx_resends + e1.tx_resends > s0.tx_resends + s1.tx_resends);
		conn_free(&c);
	}
	assert_int_equal(t_id_destroy(c.listen), 0);
}

/*
 * The soft provider's own fault injection under the CM: 10 % of frames
 * dropped and 10 % duplicated on both devices' transmit side, and 20
 * connections still come up and go down cleanly by resends and duplicate
 * handling alone.
 */
static void
test_provider_faults(void **state)
{
	struct t_side *sides[2] = { &t_a, &t_b };
	struct prdma_roce_stats st;
	struct conn c = { 0 };
	struct prdma_cm_event *ev;
	uint64_t drops = 0, dups = 0;
	unsigned int i;

	(void)state;
	if (!t_soft) {
		print_message("the soft provider's fault injection: not this provider's\n");
		skip();
	}
	for (i = 0; i < 2; i++) {
		assert_int_equal(prdma_roce_fault_set(sides[i]->dev, PRDMA_ROCE_FAULT_TX,
						      PRDMA_ROCE_FAULT_DROP, 100000, 7 + i), 0);
		assert_int_equal(prdma_roce_fault_set(sides[i]->dev, PRDMA_ROCE_FAULT_TX,
						      PRDMA_ROCE_FAULT_DUP, 100000, 11 + i), 0);
	}
	c.listen = listen_on(7183, PRDMA_CM_PS_TCP);
	for (i = 0; i < 20; i++) {
		ev = request(&c, 7183, &t_fast);
		assert_int_equal(t_ack(ev), 0);
		accept_it(&c, &t_fast);
		both_established(&c, NULL, 0);
		disconnect_both(&c, i % 2 ? c.sid : c.cid);
		conn_free(&c);
	}
	assert_int_equal(t_id_destroy(c.listen), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(prdma_roce_fault_clear(sides[i]->dev), 0);
		assert_int_equal(prdma_roce_stats_get(sides[i]->dev, &st), 0);
		drops += st.fault[PRDMA_ROCE_FAULT_TX][PRDMA_ROCE_FAULT_DROP];
		dups += st.fault[PRDMA_ROCE_FAULT_TX][PRDMA_ROCE_FAULT_DUP];
	}
	print_message("20 connections under provider faults: %" PRIu64 " MADs dropped, %"
		      PRIu64 " duplicated\n", drops, dups);
	/* The faults really happened: ~120 MADs each way at 10 %. */
	assert_true(drops > 0);
	assert_true(dups > 0);
}

/* Every MAD twice: duplicates are recognised and answered, not doubled. */
static void
test_duplicates(void **state)
{
	struct loss l = { .dup = 1 };
	struct prdma_cm_stats s0 = t_stats(&t_b);
	struct prdma_cm_event *ev;
	struct conn c = { 0 };

	(void)state;
	c.listen = listen_on(7180, PRDMA_CM_PS_TCP);
	prdma_cm_test_set_tx_filter(loss_filter, &l);
	ev = request(&c, 7180, &t_fast);
	assert_int_equal(t_ack(ev), 0);
	t_cm_idle(t_ms(5));
	no_event(t_b.ch);                  /* one CONNECT_REQUEST for two REQs */
	accept_it(&c, &t_fast);
	both_established(&c, NULL, 0);
	t_cm_idle(t_ms(5));
	no_event(t_a.ch);
	no_event(t_b.ch);
	assert_int_equal(t_rc_ping(c.qa, &t_a, c.qb, &t_b, 256), 0);
	disconnect_both(&c, c.sid);
	t_cm_idle(t_ms(5));
	no_event(t_a.ch);
	no_event(t_b.ch);
	prdma_cm_test_set_tx_filter(NULL, NULL);
	assert_true(t_stats(&t_b).rx_duplicates > s0.rx_duplicates);
	assert_true(l.seen[0x11] >= 1);    /* the duplicate REQ got an MRA */
	conn_free(&c);
	assert_int_equal(t_id_destroy(c.listen), 0);
	assert_int_equal(t_counter(&t_a, PRDMA_DEV_CNT_ACTIVE_CONNECTION), 0);
	assert_int_equal(t_counter(&t_b, PRDMA_DEV_CNT_ACTIVE_CONNECTION), 0);
}

static enum prdma_cm_test_tx_action
hold_req_filter(struct prdma_dev *dev, uint16_t attr, void *arg)
{
	int *left = arg;

	(void)dev;
	if (attr != 0x10 || *left == 0)
		return PRDMA_CM_TEST_TX_SEND;
	(*left)--;
	return PRDMA_CM_TEST_TX_HOLD;
}

/* Progress both sides until B has counted a duplicate and A an unmatched
 * MAD since @b0/@a0 (the REJ resent for a late REQ, and its arrival at an
 * active side that no longer has the id), or t_ms(WAIT_MS) pass. */
static bool
late_rej_seen(const struct prdma_cm_stats *b0, const struct prdma_cm_stats *a0)
{
	unsigned int i;

	for (i = 0; i < t_ms(WAIT_MS); i++) {
		if (t_stats(&t_b).rx_duplicates > b0->rx_duplicates &&
		    t_stats(&t_a).rx_unmatched > a0->rx_unmatched)
			return true;
		t_cm_idle(1);
	}
	return false;
}

/*
 * A resent REQ that reaches the listener only after the application there
 * rejected the connection (or destroyed its id undecided) and destroyed
 * the id: the REJ again, never a new CONNECT_REQUEST. On a device that
 * moves MADs on a thread of its own (hermon:model under load) a REQ
 * resent just before the REJ arrives can be that late; it used to become
 * a connection nobody asked for, whose CONNECT_REQUEST the next test took
 * for its own (test_reject's "no event, expected REJECTED"). The hook
 * keeps a copy of the REQ and the test delivers it at that moment.
 */
static void
test_late_duplicate_req(void **state)
{
	struct prdma_cm_stats a0, b0;
	struct prdma_cm_id *keep;
	struct prdma_cm_event *ev;
	struct conn c = { 0 };
	unsigned int i;
	int hold;

	(void)state;
	c.listen = listen_on(7186, PRDMA_CM_PS_TCP);
	/* keeps A's CM (its GSI QP, which sends the late copy) past the
	 * connecting id's destroy */
	keep = t_id_create(t_a.ch, t_a.dev, 1, PRDMA_CM_PS_TCP, NULL);
	assert_non_null(keep);
	for (i = 0; i < 2; i++) {
		hold = 1;
		prdma_cm_test_set_tx_filter(hold_req_filter, &hold);
		ev = request(&c, 7186, &t_fast);
		prdma_cm_test_set_tx_filter(NULL, NULL);
		assert_int_equal(hold, 0);
		assert_int_equal(t_ack(ev), 0);
		if (i == 0) {
			assert_int_equal(prdma_cm_reject(c.sid, NULL, 0, 0), 0);
		} else {
			/* undecided: the destroy rejects it */
			assert_int_equal(t_id_destroy(c.sid), 0);
			c.sid = NULL;
		}
		ev = expect(t_a.ch, PRDMA_CM_EVENT_REJECTED);
		assert_int_equal(ev->status, PRDMA_CM_REJ_CONSUMER_DEFINED);
		assert_int_equal(t_ack(ev), 0);
		conn_free(&c);
		a0 = t_stats(&t_a);
		b0 = t_stats(&t_b);
		assert_int_equal(prdma_cm_test_tx_release(), 0);
		if (!late_rej_seen(&b0, &a0)) {
			if (t_get_event(t_b.ch, &ev) == 0)
				fail_msg("case %u: the late REQ became a new %s", i,
					 prdma_cm_event_str(ev->event));
			fail_msg("case %u: the late REQ was not answered with the REJ", i);
		}
		t_cm_idle(t_ms(5));
		no_event(t_b.ch);
		no_event(t_a.ch);
	}
	/* and the listener still takes new connections */
	ev = request(&c, 7186, &t_fast);
	assert_int_equal(t_ack(ev), 0);
	accept_it(&c, &t_fast);
	both_established(&c, NULL, 0);
	disconnect_both(&c, c.cid);
	conn_free(&c);
	assert_int_equal(t_id_destroy(c.listen), 0);
	assert_int_equal(t_id_destroy(keep), 0);
	assert_int_equal(prdma_cm_test_tx_release(), -ENOENT);
}

/* A slow application: the resent REQ gets an MRA and the peer waits. */
static void
test_mra(void **state)
{
	struct loss l = { 0 };
	struct prdma_cm_event *ev;
	struct conn c = { 0 };

	(void)state;
	c.listen = listen_on(7181, PRDMA_CM_PS_TCP);
	prdma_cm_test_set_tx_filter(loss_filter, &l);
	ev = request(&c, 7181, &t_fast);
	assert_int_equal(t_ack(ev), 0);
	/* longer than every resend of the REQ together (~5 x 5 ms, times
	 * 2^shift with PRDMA_CM_TEST_TIMEOUT_SHIFT) */
	t_cm_idle(t_ms(60));
	assert_true(l.seen[0x10] >= 2);
	assert_true(l.seen[0x11] >= 1);
	no_event(t_a.ch);                  /* no UNREACHABLE: the MRA holds it */
	accept_it(&c, &t_fast);
	both_established(&c, NULL, 0);
	prdma_cm_test_set_tx_filter(NULL, NULL);
	disconnect_both(&c, c.cid);
	conn_free(&c);
	assert_int_equal(t_id_destroy(c.listen), 0);
}

/* A restarted peer reuses its QP number: REJ stale, the old one goes. */
static void
test_stale(void **state)
{
	struct sockaddr_in dst = t_addr(&t_b, 7182);
	struct prdma_qp_attr qa = { .qp_state = PRDMA_QPS_RESET };
	uint64_t e0 = t_counter(&t_b, PRDMA_DEV_CNT_CONNECTION_ERROR);
	struct prdma_cm_stats a0, b0;
	struct prdma_cm_id *again;
	struct prdma_cm_event *ev;
	struct conn c = { 0 };
	int hold = 1;

	(void)state;
	c.listen = listen_on(7182, PRDMA_CM_PS_TCP);
	ev = request(&c, 7182, &t_fast);
	assert_int_equal(t_ack(ev), 0);
	accept_it(&c, &t_fast);
	both_established(&c, NULL, 0);
	/* the "restart": same QP, reset, a new id (a copy of its REQ kept) */
	assert_int_equal(prdma_qp_modify(c.qa, &qa, PRDMA_QP_STATE), 0);
	again = t_id_create(t_a.ch, t_a.dev, 1, PRDMA_CM_PS_TCP, NULL);
	prdma_cm_test_set_tx_filter(hold_req_filter, &hold);
	assert_int_equal(prdma_cm_connect(again, c.qa, (struct sockaddr *)&dst, &t_fast), 0);
	prdma_cm_test_set_tx_filter(NULL, NULL);
	assert_int_equal(hold, 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_REJECTED);
	assert_ptr_equal(ev->id, again);
	assert_int_equal(ev->status, PRDMA_CM_REJ_STALE_CONN);
	assert_int_equal(t_ack(ev), 0);
	/* the stale connection is torn down on both sides */
	ev = expect(t_a.ch, PRDMA_CM_EVENT_DISCONNECTED);
	assert_ptr_equal(ev->id, c.cid);
	assert_int_equal(t_ack(ev), 0);
	ev = expect(t_b.ch, PRDMA_CM_EVENT_DISCONNECTED);
	assert_ptr_equal(ev->id, c.sid);
	assert_int_equal(t_ack(ev), 0);
	assert_int_equal(t_counter(&t_b, PRDMA_DEV_CNT_CONNECTION_ERROR) - e0, 1);
	/* A copy of the REQ resent before the REJ arrived, reaching B only
	 * now that the stale connection is gone: REJ stale again, not a new
	 * CONNECT_REQUEST (the REJ went without an id; B keeps it). */
	a0 = t_stats(&t_a);
	b0 = t_stats(&t_b);
	assert_int_equal(prdma_cm_test_tx_release(), 0);
	if (!late_rej_seen(&b0, &a0)) {
		if (t_get_event(t_b.ch, &ev) == 0)
			fail_msg("the late stale REQ became a new %s",
				 prdma_cm_event_str(ev->event));
		fail_msg("the late stale REQ was not answered with the REJ");
	}
	assert_int_equal(t_id_destroy(again), 0);
	conn_free(&c);
	assert_int_equal(t_id_destroy(c.listen), 0);
}

/* UD through SIDR: resolve, send a datagram; no listener; reject. */
static void
test_sidr(void **state)
{
	uint8_t pd[PRDMA_CM_SIDR_REQ_PRIVATE_DATA];
	struct sockaddr_in dst = t_addr(&t_b, 4000), nobody = t_addr(&t_b, 4001);
	struct prdma_cm_conn_param p = t_fast;
	struct prdma_cm_id *l, *cid, *sid;
	struct prdma_qp *qa, *qb;
	struct prdma_cm_event *ev;
	struct prdma_ah *ah;
	struct prdma_wc wc;
	uint32_t qpn, qkey;
	int got = 0, n;

	(void)state;
	l = listen_on(4000, PRDMA_CM_PS_UDP);
	cid = t_id_create(t_a.ch, t_a.dev, 1, PRDMA_CM_PS_UDP, NULL);
	qa = t_qp(&t_a, PRDMA_QPT_UD);
	qb = t_qp(&t_b, PRDMA_QPT_UD);
	t_pattern_fill(pd, sizeof(pd), 9);
	p.private_data = pd;
	p.private_data_len = PRDMA_CM_SIDR_REQ_PRIVATE_DATA + 1;
	assert_int_equal(prdma_cm_connect(cid, qa, (struct sockaddr *)&dst, &p), -EINVAL);
	p.private_data_len = PRDMA_CM_SIDR_REQ_PRIVATE_DATA;
	assert_int_equal(prdma_cm_connect(cid, qa, (struct sockaddr *)&dst, &p), 0);
	ev = expect(t_b.ch, PRDMA_CM_EVENT_CONNECT_REQUEST);
	/* ours (and so a SIDR one) before its UD half is read: another
	 * request's param.ud.private_data is no pointer */
	assert_ptr_equal(ev->listen_id, l);
	sid = ev->id;
	assert_memory_equal(ev->param.ud.private_data, pd, PRDMA_CM_SIDR_REQ_PRIVATE_DATA);
	assert_int_equal(t_ack(ev), 0);
	p.private_data_len = PRDMA_CM_SIDR_REP_PRIVATE_DATA;
	p.qkey = 0x11111111;
	assert_int_equal(prdma_cm_accept(sid, qb, &p), 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_ESTABLISHED);
	assert_ptr_equal(ev->id, cid);
	qpn = ev->param.ud.qp_num;
	qkey = ev->param.ud.qkey;
	assert_int_equal(qpn, qb->qp_num);
	assert_int_equal(qkey, 0x11111111);
	assert_memory_equal(ev->param.ud.private_data, pd, PRDMA_CM_SIDR_REP_PRIVATE_DATA);
	ah = t_ah_create(t_a.pd, &ev->param.ud.ah_attr);
	assert_non_null(ah);
	assert_int_equal(t_ack(ev), 0);
	{
		struct prdma_sge ssge = { (uintptr_t)t_a.buf, 100, t_a.mr->lkey };
		struct prdma_sge rsge = { (uintptr_t)t_b.buf + 1024, 140, t_b.mr->lkey };
		struct prdma_send_wr swr = { .wr_id = 1, .sg_list = &ssge, .num_sge = 1,
					     .opcode = PRDMA_WR_SEND,
					     .send_flags = PRDMA_SEND_SIGNALED };
		struct prdma_recv_wr rwr = { .wr_id = 2, .sg_list = &rsge, .num_sge = 1 };
		const struct prdma_send_wr *bs;
		const struct prdma_recv_wr *br;
		uint64_t end = t_deadline(t_ms(5000));

		swr.wr.ud.ah = ah;
		swr.wr.ud.remote_qpn = qpn;
		swr.wr.ud.remote_qkey = qkey;
		t_pattern_fill(t_a.buf, 100, 5);
		assert_int_equal(prdma_post_recv(qb, &rwr, &br), 0);
		assert_int_equal(prdma_post_send(qa, &swr, &bs), 0);
		/* by time (scaled), not by spins: the model's thread may be
		 * slow to run the send under load (seen over RoCE v2) */
		while (got < 2 && !t_expired(end)) {
			n = prdma_cq_poll(t_a.cq, 1, &wc);
			got += n;
			if (n == 1)
				assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
			n = prdma_cq_poll(t_b.cq, 1, &wc);
			got += n;
			if (n == 1)
				assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		}
		assert_int_equal(got, 2);
		assert_true(t_pattern_check(t_b.buf + 1024 + 40, 100, 5) == -1);
	}
	t_ah_destroy(ah);
	assert_int_equal(t_id_destroy(cid), 0);
	/* no listener: status 1 */
	cid = t_id_create(t_a.ch, t_a.dev, 1, PRDMA_CM_PS_UDP, NULL);
	assert_int_equal(prdma_cm_connect(cid, qa, (struct sockaddr *)&nobody, &t_fast), 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_REJECTED);
	assert_int_equal(ev->status, 1);
	assert_int_equal(t_ack(ev), 0);
	assert_int_equal(t_id_destroy(cid), 0);
	/* rejected: status 2 with the data */
	cid = t_id_create(t_a.ch, t_a.dev, 1, PRDMA_CM_PS_UDP, NULL);
	assert_int_equal(prdma_cm_connect(cid, qa, (struct sockaddr *)&dst, &t_fast), 0);
	assert_int_equal(t_id_destroy(sid), 0);
	ev = expect(t_b.ch, PRDMA_CM_EVENT_CONNECT_REQUEST);
	assert_ptr_equal(ev->listen_id, l);
	sid = ev->id;
	assert_int_equal(t_ack(ev), 0);
	assert_int_equal(prdma_cm_reject(sid, pd, 20, 0), 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_REJECTED);
	assert_ptr_equal(ev->id, cid);
	assert_int_equal(ev->status, 2);
	assert_memory_equal(ev->param.ud.private_data, pd, 20);
	assert_int_equal(t_ack(ev), 0);
	assert_int_equal(t_id_destroy(cid), 0);
	assert_int_equal(t_id_destroy(sid), 0);
	assert_int_equal(t_id_destroy(l), 0);
	t_qp_free(qa);
	t_qp_free(qb);
}

/* Raw MADs from a plain UD QP to QP1: each malformed one is counted. */
static void
test_malformed_counted(void **state)
{
	struct prdma_ah_attr aa = { .port_num = 1, .hop_limit = 64 };
	struct prdma_cm_stats s0, s1;
	struct prdma_cm_id *keep;
	struct prdma_qp *qa;
	struct prdma_ah *ah;
	struct prdma_wc wc;
	uint64_t end;
	unsigned int i;
	int n;

	(void)state;
	/* an id keeps B's GSI QP up */
	keep = t_id_create(t_b.ch, t_b.dev, 1, PRDMA_CM_PS_TCP, NULL);
	assert_non_null(keep);
	qa = t_qp(&t_a, PRDMA_QPT_UD);
	{
		/* a controlled Q_Key is sent from the QP's context, not the WR */
		struct prdma_qp_attr a = { .qp_state = PRDMA_QPS_INIT, .port_num = 1,
					   .qkey = PRDMA_GSI_QKEY };

		assert_int_equal(prdma_qp_modify(qa, &a, PRDMA_QP_STATE | PRDMA_QP_PORT |
						 PRDMA_QP_PKEY_INDEX | PRDMA_QP_QKEY), 0);
		a.qp_state = PRDMA_QPS_RTR;
		assert_int_equal(prdma_qp_modify(qa, &a, PRDMA_QP_STATE), 0);
		a.qp_state = PRDMA_QPS_RTS;
		assert_int_equal(prdma_qp_modify(qa, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	}
	aa.dgid = t_b.gid;
	ah = t_ah_create(t_a.pd, &aa);
	assert_non_null(ah);
	s0 = t_stats(&t_b);
	for (i = 0; i < 6; i++) {
		struct prdma_sge sge = { (uintptr_t)t_a.buf, 256, t_a.mr->lkey };
		struct prdma_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
					    .opcode = PRDMA_WR_SEND,
					    .send_flags = PRDMA_SEND_SIGNALED };
		const struct prdma_send_wr *bad;
		uint8_t *m = t_a.buf;

		memset(m, 0, 256);
		m[0] = 1; m[1] = 7; m[2] = 2; m[3] = 3; m[17] = 0x14;
		switch (i) {
		case 0: sge.length = 100; break;        /* short */
		case 1: m[1] = 0x81; break;             /* not the CM class */
		case 2: m[2] = 9; break;                /* class version */
		case 3: m[3] = 0x83; break;             /* a response method */
		case 4: m[17] = 0x19; break;            /* LAP */
		case 5: m[17] = 0x12; m[24 + 9] = 0xfe; break; /* REJ ARI 127 */
		}
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = 1;
		wr.wr.ud.remote_qkey = PRDMA_GSI_QKEY;
		assert_int_equal(prdma_post_send(qa, &wr, &bad), 0);
		end = t_deadline(t_ms(1000));
		while ((n = prdma_cq_poll(t_a.cq, 1, &wc)) == 0 && !t_expired(end))
			;
		assert_int_equal(n, 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	}
	/* all six arrive (B's device may carry them late), and no more */
	end = t_deadline(t_ms(WAIT_MS));
	while (t_stats(&t_b).rx_malformed - s0.rx_malformed < 6 && !t_expired(end))
		t_cm_idle(1);
	t_cm_idle(t_ms(10));
	s1 = t_stats(&t_b);
	assert_int_equal(s1.rx_malformed - s0.rx_malformed, 6);
	assert_int_equal(s1.rx_mads - s0.rx_mads, 6);
	t_ah_destroy(ah);
	t_qp_free(qa);
	assert_int_equal(t_id_destroy(keep), 0);
}

/* A blocking application: the channel's thread runs the CM, the app waits
 * on the fd. */
static void
test_channel_thread(void **state)
{
	struct prdma_cm_channel *ch = t_ch_create(PRDMA_CM_CHANNEL_F_THREAD);
	struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(7183) };
	struct sockaddr_in dst = t_addr(&t_b, 7183);
	struct prdma_cm_id *l, *cid, *sid;
	struct prdma_cm_event *ev;
	struct prdma_qp *qa;
	struct pollfd pfd;

	(void)state;
	assert_non_null(ch);
	assert_int_equal(t_ch_create(0x80) == NULL && rte_errno == EINVAL, 1);
	l = t_id_create(ch, t_b.dev, 1, PRDMA_CM_PS_TCP, NULL);
	assert_int_equal(prdma_cm_listen(l, (struct sockaddr *)&any, 0), 0);
	pfd.fd = prdma_cm_channel_fd(ch);
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 0), 0);
	cid = t_id_create(t_a.ch, t_a.dev, 1, PRDMA_CM_PS_TCP, NULL);
	qa = t_qp(&t_a, PRDMA_QPT_RC);
	assert_int_equal(prdma_cm_connect(cid, qa, (struct sockaddr *)&dst, &t_fast), 0);
	assert_int_equal(poll(&pfd, 1, (int)t_ms(WAIT_MS)), 1);
	assert_int_equal(t_get_event(ch, &ev), 0);
	assert_int_equal(ev->event, PRDMA_CM_EVENT_CONNECT_REQUEST);
	assert_int_equal(poll(&pfd, 1, 0), 0);
	sid = ev->id;
	assert_int_equal(prdma_cm_reject(sid, NULL, 0, 0), 0);
	assert_int_equal(t_ack(ev), 0);
	assert_int_equal(t_id_destroy(sid), 0);
	ev = expect(t_a.ch, PRDMA_CM_EVENT_REJECTED);
	assert_int_equal(t_ack(ev), 0);
	assert_int_equal(t_id_destroy(cid), 0);
	assert_int_equal(t_id_destroy(l), 0);
	t_qp_free(qa);
	assert_int_equal(t_ch_destroy(ch), 0);
}

/* 1,000 connections up and down: objects, memory and counters return. */
static void
test_thousand(void **state)
{
	uint64_t c0 = t_counter(&t_a, PRDMA_DEV_CNT_CONNECT);
	uint64_t a0 = t_counter(&t_b, PRDMA_DEV_CNT_ACCEPT);
	uint64_t f0 = t_counter(&t_a, PRDMA_DEV_CNT_CONNECT_FAILURE);
	struct rte_malloc_socket_stats m0, m1;
	unsigned int waited;
	uint32_t oa, ob;
	uint64_t end;
	struct prdma_cm_event *ev;
	struct conn c = { 0 };
	unsigned int i;

	(void)state;
	c.listen = listen_on(7184, PRDMA_CM_PS_TCP);
	/* one round first so the AH cache and the buffers exist */
	ev = request(&c, 7184, &t_fast);
	assert_int_equal(t_ack(ev), 0);
	accept_it(&c, &t_fast);
	both_established(&c, NULL, 0);
	disconnect_both(&c, c.cid);
	conn_free(&c);
	oa = t_a.dev->objects;
	ob = t_b.dev->objects;
	rte_malloc_get_socket_stats(0, &m0);
	for (i = 0; i < 1000; i++) {
		ev = request(&c, 7184, &t_fast);
		assert_int_equal(t_ack(ev), 0);
		accept_it(&c, &t_fast);
		both_established(&c, NULL, 0);
		assert_int_equal(t_counter(&t_a, PRDMA_DEV_CNT_ACTIVE_CONNECTION), 1);
		assert_int_equal(t_counter(&t_b, PRDMA_DEV_CNT_ACTIVE_CONNECTION), 1);
		disconnect_both(&c, i % 2 ? c.cid : c.sid);
		conn_free(&c);
	}
	/* What the CM holds for a moment after the last destroy (seen once on
	 * the model under load, one object on B) goes by its timers: wait. */
	end = t_deadline(t_ms(WAIT_MS));
	for (waited = 0; (t_a.dev->objects != oa || t_b.dev->objects != ob) && !t_expired(end);
	     waited++)
		t_cm_idle(1);
	if (waited > 0)
		print_message("the objects took %u ms more to return\n", waited);
	rte_malloc_get_socket_stats(0, &m1);
	assert_int_equal(t_a.dev->objects, oa);
	assert_int_equal(t_b.dev->objects, ob);
	assert_int_equal(m1.heap_allocsz_bytes, m0.heap_allocsz_bytes);
	assert_int_equal(m1.alloc_count, m0.alloc_count);
	assert_int_equal(t_stats(&t_a).ids, 0);
	assert_int_equal(t_stats(&t_b).ids, 1);  /* the listener */
	assert_int_equal(t_id_destroy(c.listen), 0);
	assert_int_equal(t_counter(&t_a, PRDMA_DEV_CNT_CONNECT) - c0, 1001);
	assert_int_equal(t_counter(&t_b, PRDMA_DEV_CNT_ACCEPT) - a0, 1001);
	assert_int_equal(t_counter(&t_a, PRDMA_DEV_CNT_CONNECT_FAILURE) - f0, 0);
	assert_int_equal(t_counter(&t_a, PRDMA_DEV_CNT_ACTIVE_CONNECTION), 0);
	assert_int_equal(t_counter(&t_b, PRDMA_DEV_CNT_ACTIVE_CONNECTION), 0);
}

static int
test_setup(void **state)
{
	t_cur = *state;
	t_waits = 0;
	return 0;
}

/* After every test, passed or failed: nothing of it may reach the next. */
static int
test_teardown(void **state)
{
	int ret;

	(void)state;
	if (t_soft) {
		prdma_roce_fault_clear(t_a.dev);
		prdma_roce_fault_clear(t_b.dev);
	}
	ret = t_cm_cleanup();
	t_cur = NULL;
	return ret < 0 ? -1 : 0;
}

/* The test's name is its initial state: test_setup() keeps it. */
#define T_TEST(f) cmocka_unit_test_prestate_setup_teardown(f, test_setup, test_teardown, \
							    (void *)#f)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T_TEST(test_private_data_lengths),
		T_TEST(test_limits),
		T_TEST(test_reject),
		T_TEST(test_release_qp),
		T_TEST(test_quiesce),
		T_TEST(test_exit),
		T_TEST(test_no_listener),
		T_TEST(test_unreachable),
		T_TEST(test_lost_messages),
		T_TEST(test_duplicates),
		T_TEST(test_late_duplicate_req),
		T_TEST(test_provider_faults),
		T_TEST(test_mra),
		T_TEST(test_stale),
		T_TEST(test_sidr),
		T_TEST(test_malformed_counted),
		T_TEST(test_channel_thread),
		T_TEST(test_thousand),
	};
	const char *a, *b, *f;
	int ret;

	/* the devices of the run: the soft provider unless the environment
	 * names others (meson runs it again on hermon:model) */
	a = getenv("PRDMA_CM_DEVARGS_A");
	b = getenv("PRDMA_CM_DEVARGS_B");
	if (a == NULL || b == NULL) {
		a = "roce:ring=cm,side=0,ip=192.0.2.3";
		b = "roce:ring=cm,side=1,ip=192.0.2.2";
	}
	t_soft = strncmp(a, "roce:", 5) == 0;
	ret = t_cm_setup(a, b);
	if (ret == 77)
		return 77;
	if (ret != 0)
		return 1;
	/* PRDMA_CM_TEST_FILTER=test_reject runs only the tests it matches */
	if (getenv("PRDMA_CM_TEST_FILTER") != NULL)
		cmocka_set_test_filter(getenv("PRDMA_CM_TEST_FILTER"));
	f = getenv("PRDMA_CM_TEST_FAIL_WAIT");
	if (f != NULL && !forced_failure_parse(f)) {
		printf("PRDMA_CM_TEST_FAIL_WAIT=%s: want <test>:<n>[:taken], n > 0\n", f);
		t_cm_teardown();
		return 1;
	}
	ret = cmocka_run_group_tests_name("cm_e2e", tests, NULL, NULL);
	t_cm_teardown();
	if (t_fail_n != 0) {
		printf("forced failure of %s's wait %u: %s; %d test(s) failed\n", t_fail_test,
		       t_fail_n, t_fail_fired ? "done" : "never reached", ret);
		return t_fail_fired && ret == 1 ? 0 : 1;
	}
	return ret;
}
