/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * F13, the network half: two cabled models with ip= and no neigh= find
 * each other's MAC by ARP (hermon_arp.c: a raw Ethernet QP per port, A0
 * steering, the "hermon-arp" thread; the model carries the frames,
 * hermon_model_raw.c). RC paths and UD AHs resolve; NOWAIT is EAGAIN,
 * then success; nobody answering is EHOSTUNREACH within the bound; a
 * forged reply is not learnt; a frame no steering entry takes is a
 * counted drop; a RoCE datagram does not reach a raw QP; the device's own
 * address needs no neigh=.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "prdma.h"
#include "prdma_provider.h"
#include "t_eal.h"
#include "hermon_arp.h"
#include "hermon_dev.h"
#include "hermon_model.h"
#include "hermon_obj.h"
#include "hermon_prm_ext.h"
#include "t_hermon_common.h"

#define A_ARGS "hermon:model,link=arp,side=0,ip=192.0.2.3,mac=02:c9:00:00:00:03"
#define B_ARGS "hermon:model,link=arp,side=1,ip=192.0.2.2,mac=02:c9:00:00:00:02"

static const uint8_t mac_a[6] = { 0x02, 0xc9, 0, 0, 0, 0x03 };
static const uint8_t mac_b[6] = { 0x02, 0xc9, 0, 0, 0, 0x02 };

static struct t_end ea, eb;

/* An RC connection A <-> B with no neigh=: both paths by ARP, a SEND lands. */
static void
test_rc_connection(void **state)
{
	struct prdma_qp *qa = t_qp_new(&ea, PRDMA_QPT_RC), *qb = t_qp_new(&eb, PRDMA_QPT_RC);
	struct prdma_neigh_stats s;
	struct prdma_wc wc;

	(void)state;
	t_cache_flush(&ea);
	t_cache_flush(&eb);
	assert_int_equal(t_rc_rtr(&ea, qa, 2, qb->qp_num, 0), 0);
	assert_int_equal(t_rc_rtr(&eb, qb, 3, qa->qp_num, 0), 0);
	t_rc_rts(qa);
	t_rc_rts(qb);
	t_post_recv(&eb, qb, 7);
	memcpy(ea.buf, "over arp", 8);
	assert_int_equal(t_post_send(&ea, qa, NULL, 0, 0, 8), 0);
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(eb.buf + T_RX, "over arp", 8);
	prdma_neigh_stats_get(&ea.hd->neigh, &s);
	assert_true(s.solicits >= 1);
	assert_true(s.learned >= 1);
	assert_int_equal(prdma_qp_destroy(qa), 0);
	assert_int_equal(prdma_qp_destroy(qb), 0);
}

/* A UD AH (blocking) takes the peer's MAC from ARP; a datagram lands. */
static void
test_ud_ah(void **state)
{
	struct prdma_qp *qa = t_qp_new(&ea, PRDMA_QPT_UD), *qb = t_qp_new(&eb, PRDMA_QPT_UD);
	struct prdma_qp_attr a;
	struct prdma_ah *ah;
	struct prdma_wc wc;

	(void)state;
	t_cache_flush(&eb);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(prdma_qp_modify(qa, &a, PRDMA_QP_STATE), 0);
	assert_int_equal(prdma_qp_modify(qb, &a, PRDMA_QP_STATE), 0);
	a.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(prdma_qp_modify(qa, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	assert_int_equal(prdma_qp_modify(qb, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	ah = t_ah_to(&eb, 3, 0);
	assert_non_null(ah);
	assert_memory_equal(((struct hermon_ah *)ah)->l2 + 2, mac_a, 6);
	t_post_recv(&ea, qa, 7);
	memcpy(eb.buf, "ud by arp", 9);
	assert_int_equal(t_post_send(&eb, qb, ah, qa->qp_num, 0x11111111, 9), 0);
	assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(ea.buf + T_RX + 40, "ud by arp", 9);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	assert_int_equal(prdma_qp_destroy(qa), 0);
	assert_int_equal(prdma_qp_destroy(qb), 0);
}

/* NOWAIT: EAGAIN while the answer is out, then the AH. */
static void
test_nowait(void **state)
{
	uint64_t t0 = t_now_ms();
	struct prdma_ah *ah;
	unsigned int eagain = 0;

	(void)state;
	t_cache_flush(&ea);
	for (;;) {
		ah = t_ah_to(&ea, 2, PRDMA_AH_F_NOWAIT);
		if (ah != NULL)
			break;
		assert_int_equal(rte_errno, EAGAIN);
		eagain++;
		assert_true(t_now_ms() - t0 < 2000);
		usleep(1000);
	}
	assert_true(eagain >= 1);
	assert_memory_equal(((struct hermon_ah *)ah)->l2 + 2, mac_b, 6);
	assert_int_equal(prdma_ah_destroy(ah), 0);
}

/* Nobody at 192.0.2.99: EHOSTUNREACH after the 1 s bound, not before. */
static void
test_unanswered(void **state)
{
	struct prdma_qp *qa = t_qp_new(&ea, PRDMA_QPT_RC);
	uint64_t t0 = t_now_ms(), dt;

	(void)state;
	assert_null(t_ah_to(&ea, 99, PRDMA_AH_F_NOWAIT));
	assert_int_equal(rte_errno, EAGAIN);
	assert_null(t_ah_to(&ea, 99, 0));
	assert_int_equal(rte_errno, EHOSTUNREACH);
	dt = t_now_ms() - t0;
	assert_true(dt >= 900 && dt < 5000);
	assert_int_equal(t_rc_rtr(&ea, qa, 99, 1, 0), -EHOSTUNREACH);
	assert_int_equal(prdma_qp_destroy(qa), 0);
}

static void
arp_frame(uint8_t *p, uint16_t op, const uint8_t *dmac, const uint8_t *sha,
	  uint8_t spa_last, uint8_t tpa_last)
{
	memset(p, 0, 60);
	memcpy(p, dmac, 6);
	memcpy(p + 6, sha, 6);
	p[12] = 0x08;
	p[13] = 0x06;
	p[15] = 1;
	p[16] = 0x08;
	p[18] = 6;
	p[19] = 4;
	p[21] = (uint8_t)op;
	memcpy(p + 22, sha, 6);
	p[28] = 192;
	p[30] = 2;
	p[31] = spa_last;
	memcpy(p + 32, dmac, 6);
	p[38] = 192;
	p[40] = 2;
	p[41] = tpa_last;
}

/* Forged replies (unsolicited, or for an address being asked) do not poison. */
static void
test_forged_reply(void **state)
{
	static const uint8_t evil[6] = { 0x02, 0x66, 0x66, 0x66, 0x66, 0x66 };
	struct hermon_qp *q = t_raw_qp(&eb);
	struct prdma_neigh_stats s0, s1;
	struct hermon_arp_stats st;
	struct rte_ether_addr mac;
	uint8_t ip[4] = { 192, 0, 2, 77 };

	(void)state;
	prdma_neigh_stats_get(&ea.hd->neigh, &s0);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st), 0);
	/* "192.0.2.77 is at 02:66:..": nobody asked */
	arp_frame(eb.buf, 2, mac_a, evil, 77, 3);
	t_raw_send(&eb, q, 60);
	t_wait_received(&ea, st.received);
	prdma_neigh_stats_get(&ea.hd->neigh, &s1);
	assert_int_equal(s1.ignored - s0.ignored, 1);
	assert_int_equal(s1.learned, s0.learned);
	assert_int_equal(prdma_neigh_lookup(&ea.hd->neigh, ip, 0, &mac), -ENOENT);
	assert_null(t_ah_to(&ea, 77, PRDMA_AH_F_NOWAIT));
	assert_int_equal(rte_errno, EAGAIN);
	assert_int_equal(hermon_qp_destroy(&q->pub), 0);
	rte_free(q);
}

/* With no steering entry at A's port the frame is a counted drop. */
static void
test_unsteered_drop(void **state)
{
	struct hermon_qp *q = t_raw_qp(&eb);
	struct hermon_model_stats m0, m1;
	struct hermon_arp_stats st0, st1;
	uint8_t mbox[0x20] = { 0 };
	uint32_t qpn = hermon_arp_qpn(ea.hd, 1);
	uint64_t t0;

	(void)state;
	assert_true(qpn != 0);
	/* A's port without steering (RQP_CALC base QPN 0) */
	assert_int_equal(hermon_cmd_set_port_eth(&ea.hd->cmd, 1, HERMON_SET_PORT_RQP_CALC,
						 mbox, sizeof(mbox)), 0);
	assert_int_equal(hermon_model_get_stats(ea.m, &m0), 0);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st0), 0);
	arp_frame(eb.buf, 1, mac_a, mac_b, 2, 3);
	t_raw_send(&eb, q, 60);
	t0 = t_now_ms();
	do {
		assert_int_equal(hermon_model_get_stats(ea.m, &m1), 0);
	} while (m1.raw_unsteered == m0.raw_unsteered && t_now_ms() - t0 < 2000);
	assert_int_equal(m1.raw_unsteered - m0.raw_unsteered, 1);
	assert_int_equal(m1.raw_delivered, m0.raw_delivered);
	usleep(20000);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st1), 0);
	assert_int_equal(st1.received, st0.received);
	/* steering back: the same frame reaches A's agent */
	*(rte_be32_t *)mbox = rte_cpu_to_be_32(qpn);
	*(rte_be32_t *)(mbox + 0x14) = rte_cpu_to_be_32(qpn);
	*(rte_be32_t *)(mbox + 0x18) = rte_cpu_to_be_32(2u << 30 | qpn);
	assert_int_equal(hermon_cmd_set_port_eth(&ea.hd->cmd, 1, HERMON_SET_PORT_RQP_CALC,
						 mbox, sizeof(mbox)), 0);
	t_raw_send(&eb, q, 60);
	t_wait_received(&ea, st1.received);
	assert_int_equal(hermon_qp_destroy(&q->pub), 0);
	rte_free(q);
}

/* A RoCE datagram aimed at the raw QP's QPN goes nowhere. */
static void
test_datagram_not_raw(void **state)
{
	struct prdma_qp *qb = t_qp_new(&eb, PRDMA_QPT_UD);
	struct hermon_model_stats m0, m1;
	struct hermon_arp_stats st0, st1;
	struct prdma_qp_attr a;
	struct prdma_ah *ah;
	struct prdma_wc wc;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(prdma_qp_modify(qb, &a, PRDMA_QP_STATE), 0);
	a.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(prdma_qp_modify(qb, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	ah = t_ah_to(&eb, 3, 0);
	assert_non_null(ah);
	assert_int_equal(hermon_model_get_stats(ea.m, &m0), 0);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st0), 0);
	arp_frame(eb.buf, 1, mac_a, mac_b, 2, 3);
	/* the raw QP's Q_Key is 0: only its service type keeps the datagram out */
	assert_int_equal(t_post_send(&eb, qb, ah, hermon_arp_qpn(ea.hd, 1), 0, 60), 0);
	assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
	usleep(20000);
	assert_int_equal(hermon_model_get_stats(ea.m, &m1), 0);
	assert_int_equal(m1.raw_delivered, m0.raw_delivered);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st1), 0);
	assert_int_equal(st1.received, st0.received);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	assert_int_equal(prdma_qp_destroy(qb), 0);
}

/* Our own address is our MAC without asking (no neigh= for loopback). */
static void
test_self_address(void **state)
{
	struct prdma_neigh_stats s0, s1;
	struct prdma_ah *ah;

	(void)state;
	prdma_neigh_stats_get(&ea.hd->neigh, &s0);
	ah = t_ah_to(&ea, 3, PRDMA_AH_F_NOWAIT);
	assert_non_null(ah);
	assert_memory_equal(((struct hermon_ah *)ah)->l2 + 2, mac_a, 6);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	prdma_neigh_stats_get(&ea.hd->neigh, &s1);
	assert_int_equal(s1.solicits, s0.solicits);
}

static int
setup(void **state)
{
	(void)state;
	return t_ends_up(&ea, A_ARGS, &eb, B_ARGS, "arp", false);
}

static int
teardown(void **state)
{
	(void)state;
	t_ends_down(&ea, &eb);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_connection),
		cmocka_unit_test(test_ud_ah),
		cmocka_unit_test(test_nowait),
		cmocka_unit_test(test_unanswered),
		cmocka_unit_test(test_forged_reply),
		cmocka_unit_test(test_unsteered_drop),
		cmocka_unit_test(test_datagram_not_raw),
		cmocka_unit_test(test_self_address),
	};

	return cmocka_run_group_tests_name("hermon-arp", tests, setup, teardown);
}
