/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * F5 of the security review: what forged REQs that never send the RTU
 * cost a listener. The backlog bounds every request the listener holds
 * until it is established (undecided, or accepted with the REP out), and
 * the timers a REQ chooses for us (REP resend interval, time-wait) are
 * clamped.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cmocka.h>

#include <rte_cycles.h>

#include <prdma.h>
#include <prdma_cm.h>

#include "cm_private.h"
#include "t_eal.h"
#include "t_sec.h"

static struct t_dev b;
static struct prdma_cm_channel *ch;

static struct prdma_cm_stats
stats(void)
{
	struct prdma_cm_stats st;

	memset(&st, 0, sizeof(st));
	prdma_cm_stats_get(b.dev, &st);
	return st;
}

static struct prdma_cm_id *
listen_on(uint16_t port, int backlog)
{
	struct prdma_cm_id *id = prdma_cm_id_create(ch, b.dev, 1, PRDMA_CM_PS_TCP, NULL);
	struct sockaddr_in sin;

	assert_non_null(id);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	assert_int_equal(prdma_cm_listen(id, (struct sockaddr *)&sin, backlog), 0);
	return id;
}

static struct prdma_qp *
rc_qp(void)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = b.cq;
	ia.recv_cq = b.cq;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = prdma_qp_create(b.pd, &ia);
	assert_non_null(qp);
	return qp;
}

#define MAXC 16
struct server {
	struct prdma_cm_id *ids[MAXC];
	struct prdma_qp *qps[MAXC];
	unsigned int accepted;
	unsigned int established;
};

/* The application: accept every CONNECT_REQUEST with a QP of its own. */
static void
serve(struct server *s)
{
	struct prdma_cm_event *ev;
	int i;

	for (i = 0; i < 4; i++) {
		prdma_cm_channel_progress(ch);
		prdma_dev_progress(b.dev);
	}
	while (prdma_cm_get_event(ch, &ev) == 0) {
		if (ev->event == PRDMA_CM_EVENT_CONNECT_REQUEST && s->accepted < MAXC) {
			s->qps[s->accepted] = rc_qp();
			assert_int_equal(prdma_cm_accept(ev->id, s->qps[s->accepted], NULL), 0);
			s->ids[s->accepted++] = ev->id;
		} else if (ev->event == PRDMA_CM_EVENT_ESTABLISHED) {
			s->established++;
		}
		prdma_cm_ack_event(ev);
	}
}

static void
server_end(struct server *s)
{
	unsigned int i;

	for (i = 0; i < s->accepted; i++) {
		assert_int_equal(prdma_cm_id_destroy(s->ids[i]), 0);
		assert_int_equal(prdma_qp_destroy(s->qps[i]), 0);
	}
}

static void
client_req(uint32_t n, uint16_t port, uint8_t resp_timeout, uint8_t ack_timeout)
{
	uint8_t mad[CM_MAD_SIZE];

	t_make_req(mad, n, port, &b.gid, T_PEER(1), resp_timeout, ack_timeout);
	t_inject_mad(&b, T_PEER(1), mad);
}

/* The client's RTU for the server's id @id (the client's comm ID @n). */
static void
client_rtu(uint32_t n, struct prdma_cm_id *id)
{
	uint8_t mad[CM_MAD_SIZE];
	struct cm_msg m;

	memset(&m, 0, sizeof(m));
	cm_mad_hdr_init(&m.hdr, CM_ATTR_RTU, 0x5ec0000000ull + n);
	m.rtu.local_comm_id = 0x51000000u + n;
	m.rtu.remote_comm_id = CM_ID(id)->local_id;
	assert_int_equal(cm_mad_encode(&m, mad), 0);
	t_inject_mad(&b, T_PEER(1), mad);
}

static void
test_halfopen_bounded(void **state)
{
	struct prdma_cm_id *l = listen_on(7200, 4);
	struct prdma_cm_stats s0 = stats();
	struct server s;
	uint32_t n;

	(void)state;
	memset(&s, 0, sizeof(s));
	/* 10 clients that never send the RTU: accepting one no longer frees
	 * its slot, so only the backlog's worth get a QP. */
	for (n = 0; n < 10; n++) {
		client_req(100 + n, 7200, 20, 18);
		serve(&s);
	}
	assert_int_equal(s.accepted, 4);
	assert_int_equal(stats().rx_refused - s0.rx_refused, 6);
	/* An RTU establishes one: its slot is free for the next client. */
	client_rtu(100, s.ids[0]);
	serve(&s);
	assert_int_equal(s.established, 1);
	client_req(110, 7200, 20, 18);
	serve(&s);
	assert_int_equal(s.accepted, 5);
	client_req(111, 7200, 20, 18);
	serve(&s);
	assert_int_equal(s.accepted, 5);
	server_end(&s);
	assert_int_equal(prdma_cm_id_destroy(l), 0);
}

static void
test_rep_resend_interval_clamped(void **state)
{
	struct prdma_cm_id *l = listen_on(7201, 8);
	struct prdma_cm_stats s0 = stats();
	struct server s;
	uint64_t t0;

	(void)state;
	memset(&s, 0, sizeof(s));
	/* local_cm_response_timeout 0: 15 REP resends in 65 us, unclamped. */
	client_req(200, 7201, 0, 18);
	serve(&s);
	assert_int_equal(s.accepted, 1);
	t0 = rte_get_tsc_cycles();
	while (t_ms_since(t0) < 3.0)
		prdma_cm_channel_progress(ch);
	assert_true(stats().tx_resends - s0.tx_resends <= 1);
	assert_true(CM_ID(s.ids[0])->interval >= cm_time_tsc(10));
	/* 31: one resend every 2.4 hours, unclamped; at most 4.3 s now. */
	client_req(201, 7201, 31, 18);
	serve(&s);
	assert_int_equal(s.accepted, 2);
	assert_true(CM_ID(s.ids[1])->interval <= cm_time_tsc(20));
	server_end(&s);
	assert_int_equal(prdma_cm_id_destroy(l), 0);
}

static void
test_timewait_clamped(void **state)
{
	struct prdma_cm_id *l = listen_on(7202, 8);
	struct server s;
	struct cm_msg m;
	uint8_t mad[CM_MAD_SIZE];
	struct cm_id_priv *id;

	(void)state;
	memset(&s, 0, sizeof(s));
	/* local_ack_timeout 31: a 2.4 h time-wait, unclamped. */
	client_req(300, 7202, 20, 31);
	serve(&s);
	assert_int_equal(s.accepted, 1);
	client_rtu(300, s.ids[0]);
	serve(&s);
	assert_int_equal(s.established, 1);
	id = CM_ID(s.ids[0]);
	memset(&m, 0, sizeof(m));
	cm_mad_hdr_init(&m.hdr, CM_ATTR_DREQ, 0x300);
	m.dreq.local_comm_id = 0x51000000u + 300;
	m.dreq.remote_comm_id = id->local_id;
	m.dreq.remote_qpn = s.qps[0]->qp_num;
	assert_int_equal(cm_mad_encode(&m, mad), 0);
	t_inject_mad(&b, T_PEER(1), mad);
	serve(&s);
	assert_int_equal(id->state, CM_TIMEWAIT);
	assert_true(id->deadline - cm_now() <= cm_time_tsc(20));
	server_end(&s);
	assert_int_equal(prdma_cm_id_destroy(l), 0);
}

static void
test_mra_wait_clamped(void **state)
{
	struct prdma_cm_id *l = listen_on(7203, 8);
	struct server s;
	struct cm_msg m;
	uint8_t mad[CM_MAD_SIZE];
	struct cm_id_priv *id;

	(void)state;
	memset(&s, 0, sizeof(s));
	client_req(400, 7203, 20, 18);
	serve(&s);
	assert_int_equal(s.accepted, 1);
	id = CM_ID(s.ids[0]);
	/* The peer's MRA asks us to wait 2^31 x 4.096 us for its RTU. */
	memset(&m, 0, sizeof(m));
	cm_mad_hdr_init(&m.hdr, CM_ATTR_MRA, 0x400);
	m.mra.local_comm_id = 0x51000000u + 400;
	m.mra.remote_comm_id = id->local_id;
	m.mra.msg_mraed = CM_MSG_REP;
	m.mra.service_timeout = 31;
	assert_int_equal(cm_mad_encode(&m, mad), 0);
	t_inject_mad(&b, T_PEER(1), mad);
	serve(&s);
	assert_int_equal(id->state, CM_REP_SENT);
	assert_true(id->deadline - cm_now() <= cm_time_tsc(24) + cm_time_tsc(19));
	server_end(&s);
	assert_int_equal(prdma_cm_id_destroy(l), 0);
}

static int
setup(void **state)
{
	const char *dev = getenv("PRDMA_SEC_DEVARGS");
	const char *peer = getenv("PRDMA_SEC_PEER_DEVARGS");

	(void)state;
	/* meson runs it again on hermon:model: the forged MADs then come from
	 * a second model device (198.51.100.1) cabled to the listener's */
	if (dev != NULL && peer != NULL)
		t_dev_open_peer(&b, dev, peer, T_PEER(1));
	else
		t_dev_open(&b, "roce:ring=sechalf,side=1,ip=192.0.2.12");
	ch = prdma_cm_channel_create(0);
	assert_non_null(ch);
	b.ch = ch;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	prdma_cm_channel_destroy(ch);
	t_dev_close(&b);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_halfopen_bounded),
		cmocka_unit_test(test_rep_resend_interval_clamped),
		cmocka_unit_test(test_timewait_clamped),
		cmocka_unit_test(test_mra_wait_clamped),
	};

	if (t_eal_init() != 0)
		return 1;
	return cmocka_run_group_tests_name("cm_halfopen", tests, setup, teardown);
}
