/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * F2 of the security review: one forged MAD naming an unresolvable
 * address must not freeze the CM. In port mode (a net_ring port with no
 * kernel interface and no in-process link, as a PCI port or net_af_xdp
 * without iface=) every reply the CM owes such a peer used to resolve its
 * MAC by busy ARP for up to 1 s with cm_lock held. Now no CM call waits
 * for the network: replies wait in a queue, are dropped (counted) after
 * 1 s, and the application's own connect or accept fails asynchronously.
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
#include <rte_errno.h>

#include <prdma.h>
#include <prdma_cm.h>

#include "cm_private.h"
#include "t_eal.h"
#include "t_sec.h"

#define PORT      7174
#define NO_PORT   7175
#define QUICK_MS  50.0        /* what one CM call may take: never 1 s */

static struct t_dev b;
static struct prdma_cm_channel *ch;
static struct prdma_cm_id *lid;

/* One progress call, checked for speed. */
static void
progress(void)
{
	uint64_t t0 = rte_get_tsc_cycles();

	prdma_cm_channel_progress(ch);
	assert_true(t_ms_since(t0) < QUICK_MS);
}

/* Progress (each call quick) until @done or @ms pass; true if done. */
static bool
progress_until(bool (*done)(void *), void *arg, unsigned int ms)
{
	uint64_t t0 = rte_get_tsc_cycles();

	while (t_ms_since(t0) < ms) {
		progress();
		if (done(arg))
			return true;
		rte_delay_us_sleep(200);
	}
	return false;
}

static bool
unresolved_above(void *arg)
{
	struct prdma_cm_stats st;

	prdma_cm_stats_get(b.dev, &st);
	return st.tx_unresolved > *(uint64_t *)arg;
}

static uint64_t
unresolved(void)
{
	struct prdma_cm_stats st;

	prdma_cm_stats_get(b.dev, &st);
	return st.tx_unresolved;
}

/* A reply the CM owes @peer: quick, then dropped and counted (hermon
 * asks by ARP too, hermon_arp.c: the same wait as the soft provider). */
static void
expect_dropped_reply(const uint8_t *mad, uint32_t peer)
{
	uint64_t u0 = unresolved();

	t_inject_mad(&b, peer, mad);
	progress();
	assert_int_equal(unresolved(), u0);          /* waiting, not dropped */
	assert_true(progress_until(unresolved_above, &u0, 2500));
}

/* hermon: a reply to the GRH's source goes to the peer device, which is
 * reachable; ARP cannot be injected. */
static void
soft_only(const char *why)
{
	if (!t_dev_soft(&b)) {
		print_message("%s: the soft provider's only\n", why);
		skip();
	}
}

static void
test_req_rej_unresolvable(void **state)
{
	uint8_t mad[CM_MAD_SIZE];
	int i;

	(void)state;
	/* Three REQs for a service nobody listens on, three REJs owed. */
	for (i = 0; i < 3; i++) {
		t_make_req(mad, (uint32_t)i, NO_PORT, &b.gid, T_PEER(10 + i), 20, 18);
		expect_dropped_reply(mad, T_PEER(10 + i));
	}
}

static void
test_sidr_req_unresolvable(void **state)
{
	struct cm_cma_hdr h;
	struct cm_msg m;
	uint8_t mad[CM_MAD_SIZE];
	uint32_t be = htonl(T_PEER(13));

	(void)state;
	soft_only("a SIDR_REP to the datagram's source");
	memset(&m, 0, sizeof(m));
	cm_mad_hdr_init(&m.hdr, CM_ATTR_SIDR_REQ, 0x77);
	m.sidr_req.request_id = 0x1234;
	m.sidr_req.pkey = 0xffff;
	m.sidr_req.service_id = PRDMA_CM_SERVICE_ID(PRDMA_CM_PS_UDP, NO_PORT);
	memset(&h, 0, sizeof(h));
	h.ip_version = 4;
	h.src_port = 5000;
	memcpy(&h.src_ip[12], &be, 4);
	memcpy(&h.dst_ip[12], &b.gid.raw[12], 4);
	cm_cma_hdr_encode(&h, m.sidr_req.private_data);
	assert_int_equal(cm_mad_encode(&m, mad), 0);
	expect_dropped_reply(mad, T_PEER(13));
}

static void
test_dreq_unmatched_unresolvable(void **state)
{
	struct cm_msg m;
	uint8_t mad[CM_MAD_SIZE];

	(void)state;
	soft_only("a DREP to the datagram's source");
	memset(&m, 0, sizeof(m));
	cm_mad_hdr_init(&m.hdr, CM_ATTR_DREQ, 0x78);
	m.dreq.local_comm_id = 0xdead0001;
	m.dreq.remote_comm_id = 0xdead0002;
	m.dreq.remote_qpn = 0x99;
	assert_int_equal(cm_mad_encode(&m, mad), 0);
	expect_dropped_reply(mad, T_PEER(14));       /* DREP to the source */
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

struct ev_want {
	enum prdma_cm_event_type type;
	struct prdma_cm_id *id;
	int status;
	bool got;
};

static bool
got_event(void *arg)
{
	struct ev_want *w = arg;
	struct prdma_cm_event *ev;

	while (prdma_cm_get_event(ch, &ev) == 0) {
		if (ev->event == w->type && (w->id == NULL || ev->id == w->id)) {
			w->got = true;
			w->status = ev->status;
			if (w->id == NULL)
				w->id = ev->id;
		}
		prdma_cm_ack_event(ev);
	}
	return w->got;
}

static void
test_connect_unresolvable(void **state)
{
	struct prdma_cm_id *id;
	struct prdma_qp *qp;
	struct sockaddr_in dst;
	struct ev_want w = { .type = PRDMA_CM_EVENT_UNREACHABLE };
	uint64_t t0;

	(void)state;
	id = prdma_cm_id_create(ch, b.dev, 1, PRDMA_CM_PS_TCP, NULL);
	assert_non_null(id);
	qp = rc_qp();
	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	dst.sin_port = htons(PORT);
	dst.sin_addr.s_addr = htonl(T_PEER(40));
	t0 = rte_get_tsc_cycles();
	assert_int_equal(prdma_cm_connect(id, qp, (struct sockaddr *)&dst, NULL), 0);
	assert_true(t_ms_since(t0) < QUICK_MS);
	/* Fails on its own within the resolution bound, not after 15 REQ
	 * timeouts, and with the reason. */
	w.id = id;
	assert_true(progress_until(got_event, &w, 2500));
	assert_int_equal(w.status, -EHOSTUNREACH);
	assert_int_equal(prdma_cm_id_destroy(id), 0);
	assert_int_equal(prdma_qp_destroy(qp), 0);
}

/* A REQ from @peer, its CONNECT_REQUEST, accepted with a new QP: the
 * accept's result in @ret. */
static struct prdma_cm_id *
accept_from(uint32_t n, uint32_t peer, struct prdma_qp **qp, int *ret)
{
	struct ev_want w = { .type = PRDMA_CM_EVENT_CONNECT_REQUEST };
	uint8_t mad[CM_MAD_SIZE];
	uint64_t t0;

	t_make_req(mad, n, PORT, &b.gid, peer, 20, 18);
	t_inject_mad(&b, peer, mad);
	assert_true(progress_until(got_event, &w, 500));
	*qp = rc_qp();
	t0 = rte_get_tsc_cycles();
	*ret = prdma_cm_accept(w.id, *qp, NULL);
	assert_true(t_ms_since(t0) < QUICK_MS);
	return w.id;
}

static uint64_t
accepts(void)
{
	struct prdma_dev_counters v;

	assert_int_equal(prdma_dev_counters_get(b.dev, &v), 0);
	return v.value[PRDMA_DEV_CNT_ACCEPT];
}

static bool
accepts_above(void *arg)
{
	return accepts() > *(uint64_t *)arg;
}

static void
test_accept_waits_for_mac(void **state)
{
	static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0x20, 0x01 };
	struct prdma_cm_id *id;
	struct prdma_qp *qp;
	uint64_t a0 = accepts();
	int ret;

	(void)state;
	soft_only("ARP");
	id = accept_from(50, T_PEER(50), &qp, &ret);
	assert_int_equal(ret, 0);
	/* The REP waits for the peer's MAC: not sent yet, QP not moved. */
	progress();
	assert_int_equal(accepts(), a0);
	assert_int_not_equal(qp->state, PRDMA_QPS_RTS);
	/* The peer answers the ARP request the REQ started. */
	t_inject_arp(&b, 2, mac, T_PEER(50), rte_be_to_cpu_32(*(uint32_t *)&b.gid.raw[12]));
	assert_true(progress_until(accepts_above, &a0, 500));
	assert_int_equal(qp->state, PRDMA_QPS_RTS);
	assert_int_equal(prdma_cm_id_destroy(id), 0);
	assert_int_equal(prdma_qp_destroy(qp), 0);
}

static void
test_accept_unresolvable(void **state)
{
	struct ev_want w = { .type = PRDMA_CM_EVENT_UNREACHABLE };
	struct prdma_qp *qp;
	uint64_t a0 = accepts();
	int ret;

	(void)state;
	w.id = accept_from(51, T_PEER(51), &qp, &ret);
	assert_int_equal(ret, 0);
	assert_true(progress_until(got_event, &w, 2500));
	assert_int_equal(w.status, -EHOSTUNREACH);
	assert_int_equal(accepts(), a0);
	assert_int_equal(prdma_cm_id_destroy(w.id), 0);
	assert_int_equal(prdma_qp_destroy(qp), 0);
}

static int
setup(void **state)
{
	struct sockaddr_in sin;

	const char *dev = getenv("PRDMA_SEC_DEVARGS");
	const char *peer = getenv("PRDMA_SEC_PEER_DEVARGS");

	(void)state;
	/* meson runs it again on hermon:model: a second model device
	 * (198.51.100.1) sends the MADs; the T_PEER addresses they name are
	 * not its static neighbours */
	if (dev != NULL && peer != NULL)
		t_dev_open_peer(&b, dev, peer, T_PEER(1));
	else
		t_dev_open(&b, "roce:port=0,ip=192.0.2.12");
	ch = prdma_cm_channel_create(0);
	assert_non_null(ch);
	b.ch = ch;
	lid = prdma_cm_id_create(ch, b.dev, 1, PRDMA_CM_PS_TCP, NULL);
	assert_non_null(lid);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(PORT);
	assert_int_equal(prdma_cm_listen(lid, (struct sockaddr *)&sin, 0), 0);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	prdma_cm_id_destroy(lid);
	prdma_cm_channel_destroy(ch);
	t_dev_close(&b);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_req_rej_unresolvable),
		cmocka_unit_test(test_sidr_req_unresolvable),
		cmocka_unit_test(test_dreq_unmatched_unresolvable),
		cmocka_unit_test(test_connect_unresolvable),
		cmocka_unit_test(test_accept_waits_for_mac),
		cmocka_unit_test(test_accept_unresolvable),
	};

	/* Port mode: a net_ring port with no kernel interface and no link. */
	if (getenv("PRDMA_SEC_DEVARGS") == NULL)
		setenv("PRDMA_TEST_EAL_ARGS", "--no-huge -m 512 --no-shconf --no-pci -l 0 "
		       "--vdev=net_ring0 --log-level=lib.eal:error --log-level=pmd.*:error",
		       1);
	if (t_eal_init() != 0)
		return 1;
	return cmocka_run_group_tests_name("cm_unresolved", tests, setup, teardown);
}
