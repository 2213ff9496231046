/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * ACK coalescing with the defaults (no devarg), on two net_ring ethdevs in
 * port mode (no embedded link: nothing steps a device but its own calls).
 * A responder that answers with a request of its own sends the held ACK
 * right behind it; one that stops polling after its step held an ACK
 * still sends it (the ACK watch), well before the peer's timeout; one that
 * stops its QP sends it first.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <prdma_roce.h>

#include "t_roce.h"

#define BTH_OFF (14 + 20 + 8)   /* Ethernet, IPv4, UDP */
#define OP_RC_WRITE_ONLY 0x0a
#define OP_RC_ACK 0x11

struct ports {
	struct rte_ring *r[2];
	int port[2];
};

static void
ports_open(struct ports *p, struct t_side s[2], const char *tag)
{
	char name[32], args[2][128];
	int i;

	assert_int_equal(t_eal_init(), 0);
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "t_ack_%s_r%d", tag, i);
		p->r[i] = rte_ring_create(name, 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		assert_non_null(p->r[i]);
	}
	/* port 0 receives from r0 and sends to r1, port 1 the other way */
	snprintf(name, sizeof(name), "t_ack_%s_p0", tag);
	p->port[0] = rte_eth_from_rings(name, &p->r[0], 1, &p->r[1], 1, 0);
	snprintf(name, sizeof(name), "t_ack_%s_p1", tag);
	p->port[1] = rte_eth_from_rings(name, &p->r[1], 1, &p->r[0], 1, 0);
	assert_true(p->port[0] >= 0 && p->port[1] >= 0);
	snprintf(args[0], sizeof(args[0]), "roce:port=%d,ip=10.9.1.1", p->port[0]);
	snprintf(args[1], sizeof(args[1]), "roce:port=%d,ip=10.9.1.2", p->port[1]);
	t_pair_open(s, args[0], args[1]);
	t_pair_connect(s, PRDMA_QPT_RC, 1);
}

static void
ports_close(struct ports *p, struct t_side s[2])
{
	int i;

	t_pair_close(s);
	for (i = 0; i < 2; i++) {
		rte_eth_dev_stop((uint16_t)p->port[i]);
		rte_eth_dev_close((uint16_t)p->port[i]);
	}
	rte_ring_free(p->r[0]);
	rte_ring_free(p->r[1]);
}

/* Step the responder until s[0]'s WRITE of @byte has landed in it. */
static void
responder_takes(struct t_side s[2], uint8_t byte)
{
	uint64_t end = rte_rdtsc() + 2 * rte_get_tsc_hz();

	while (((volatile uint8_t *)s[1].buf)[63] != byte) {
		prdma_dev_progress(s[1].dev);
		assert_true(rte_rdtsc() < end);
	}
}

/*
 * A ping-pong never waits on a timer: the answer leaves with the ACK of
 * the ping right behind it, in the same burst, without another step of
 * the responder. (Before, the ACK waited for ack_delay_us after the answer
 * and a peer that needs its send completion to post again - a send queue
 * of one, as perftest's write_lat - waited for it each round; a responder
 * that then ended at once left it unsent and the peer retried out.)
 */
static void
test_ack_behind_the_answer(void **state)
{
	struct rte_mbuf *m[8];
	struct prdma_wc wc;
	struct t_side s[2];
	struct ports p;
	unsigned int n, i;

	(void)state;
	ports_open(&p, s, "pp");
	memset(s[0].buf, 0x5a, 64);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)s[1].buf,
				s[1].mr->rkey, 1), 0);
	responder_takes(s, 0x5a);
	memset(s[1].buf + 4096, 0xa5, 64);
	assert_int_equal(t_post(&s[1], PRDMA_WR_RDMA_WRITE, 4096, 64, (uintptr_t)s[0].buf + 4096,
				s[0].mr->rkey, 2), 0);
	/* No further call on the responder: both frames have left. */
	n = rte_ring_dequeue_burst(p.r[0], (void **)m, RTE_DIM(m), NULL);
	print_message("%u frame(s) from the responder:", n);
	for (i = 0; i < n; i++)
		print_message(" 0x%02x", rte_pktmbuf_mtod(m[i], uint8_t *)[BTH_OFF]);
	print_message("\n");
	assert_int_equal(n, 2);
	assert_int_equal(rte_pktmbuf_mtod(m[0], uint8_t *)[BTH_OFF], OP_RC_WRITE_ONLY);
	assert_int_equal(rte_pktmbuf_mtod(m[1], uint8_t *)[BTH_OFF], OP_RC_ACK);
	assert_int_equal(rte_ring_enqueue_burst(p.r[0], (void **)m, n, NULL), n);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(s, s[1].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	ports_close(&p, s);
}

/*
 * A responder that destroys its QP (or moves it to ERR) right after the
 * step that took a message sends the ACK it held: the message was
 * executed, and its requester would otherwise retry into a QP that is gone
 * ('transport retry counter exceeded').
 */
static void
ack_before_stop(int destroy)
{
	struct prdma_qp_attr at;
	struct rte_mbuf *m[8];
	struct t_side s[2];
	struct ports p;
	unsigned int n;

	ports_open(&p, s, destroy ? "dy" : "er");
	memset(s[0].buf, 0x77, 64);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)s[1].buf,
				s[1].mr->rkey, 1), 0);
	responder_takes(s, 0x77);
	if (destroy) {
		assert_int_equal(prdma_qp_destroy(s[1].qp), 0);
		s[1].qp = NULL;
	} else {
		memset(&at, 0, sizeof(at));
		at.qp_state = PRDMA_QPS_ERR;
		assert_int_equal(prdma_qp_modify(s[1].qp, &at, PRDMA_QP_STATE), 0);
	}
	n = rte_ring_dequeue_burst(p.r[0], (void **)m, RTE_DIM(m), NULL);
	print_message("%u frame(s) from the responder\n", n);
	assert_int_equal(n, 1);
	assert_int_equal(rte_pktmbuf_mtod(m[0], uint8_t *)[BTH_OFF], OP_RC_ACK);
	rte_pktmbuf_free(m[0]);
	ports_close(&p, s);
}

static void
test_ack_before_destroy(void **state)
{
	(void)state;
	ack_before_stop(1);
}

static void
test_ack_before_error(void **state)
{
	(void)state;
	ack_before_stop(0);
}

static void
test_ack_after_polling_stops(void **state)
{
	struct prdma_qp_counters q0;
	struct prdma_roce_stats x1;
	struct prdma_wc wc;
	struct t_side s[2];
	struct ports p;
	uint64_t end;
	int n = 0;

	(void)state;
	ports_open(&p, s, "st");
	memset(s[0].buf, 0x3c, 64);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)s[1].buf,
				s[1].mr->rkey, 1), 0);
	responder_takes(s, 0x3c);
	/* The responder's application never calls again: only s[0] polls. */
	end = rte_rdtsc() + 2 * rte_get_tsc_hz();
	while (n == 0 && rte_rdtsc() < end)
		n = prdma_cq_poll(s[0].scq, 1, &wc);
	assert_int_equal(n, 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(prdma_qp_counters_get(s[0].qp, &q0), 0);
	assert_int_equal(prdma_roce_stats_get(s[1].dev, &x1), 0);
	print_message("ACKs held %" PRIu64 ", requester timeouts %" PRIu64 "\n",
		      x1.acks_held, q0.value[PRDMA_QP_CNT_TIMEOUTS]);
	assert_true(x1.acks_held >= 1);
	assert_int_equal(q0.value[PRDMA_QP_CNT_TIMEOUTS], 0);
	assert_int_equal(q0.value[PRDMA_QP_CNT_RETRANSMITS], 0);
	ports_close(&p, s);
}

/*
 * The ACK watch backs off while the application keeps stepping the engine:
 * each of its looks wakes a thread, which on a machine whose CPUs all run
 * polling lcores preempts one of them (a look every 50 us, as before, put
 * 15,000 context switches a second and a 4x p99 on a 64 B ping-pong). Over
 * 200 ms of polling it may look about 200 times (1 ms apart once backed
 * off), not 4,000. The held ACK of test_ack_after_polling_stops still
 * leaves, from the watch, once polling stops.
 */
static void
test_ack_watch_backs_off(void **state)
{
	struct prdma_roce_stats a, b;
	struct prdma_wc wc;
	struct t_side s[2];
	struct ports p;
	uint64_t end;

	(void)state;
	ports_open(&p, s, "bo");
	assert_int_equal(prdma_roce_stats_get(s[1].dev, &a), 0);
	end = rte_rdtsc() + rte_get_tsc_hz() / 5;
	while (rte_rdtsc() < end) {
		(void)prdma_cq_poll(s[0].scq, 1, &wc);
		(void)prdma_cq_poll(s[1].scq, 1, &wc);
	}
	assert_int_equal(prdma_roce_stats_get(s[1].dev, &b), 0);
	print_message("ACK watch: %" PRIu64 " looks, %" PRIu64 " steps in 200 ms of polling\n",
		      b.ack_watch_looks - a.ack_watch_looks, b.ack_watch_steps - a.ack_watch_steps);
	/* a thread can oversleep, not wake early: no lower bound but one */
	assert_true(b.ack_watch_looks - a.ack_watch_looks >= 1);
	assert_true(b.ack_watch_looks - a.ack_watch_looks <= 400);
	ports_close(&p, s);
}

/*
 * The ACK of a message that completed a receive leaves with the step that
 * executed it, never held: the application takes the CQE from that step
 * and may then do anything but call the engine again, while its peer
 * waits for the ACK to complete its send (perftest's handshake: the side
 * that sent last waits for that completion before it listens for the
 * data connection; the other goes on to connect, and was refused for
 * it while the ACK waited for a thread to run). A WRITE without
 * immediate still coalesces.
 */
static void
test_ack_of_a_receive_not_held(void **state)
{
	struct prdma_roce_stats x1;
	struct rte_mbuf *m[8];
	struct prdma_wc wc;
	struct t_side s[2];
	struct ports p;
	uint64_t end;
	unsigned int n;
	int got = 0;

	(void)state;
	ports_open(&p, s, "rv");
	assert_int_equal(t_post_recv(&s[1], 0, 64, 7), 0);
	memset(s[0].buf, 0x42, 64);
	assert_int_equal(t_post(&s[0], PRDMA_WR_SEND, 0, 64, 0, 0, 1), 0);
	end = rte_rdtsc() + 2 * rte_get_tsc_hz();
	while (got == 0) {
		got = prdma_cq_poll(s[1].rcq, 1, &wc);
		assert_true(rte_rdtsc() < end);
	}
	assert_int_equal(got, 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	/* The poll that returned the CQE stepped the engine: the ACK left. */
	assert_int_equal(prdma_roce_stats_get(s[1].dev, &x1), 0);
	print_message("ACKs held %" PRIu64 "\n", x1.acks_held);
	assert_int_equal(x1.acks_held, 0);
	n = rte_ring_dequeue_burst(p.r[0], (void **)m, RTE_DIM(m), NULL);
	assert_int_equal(n, 1);
	assert_int_equal(rte_pktmbuf_mtod(m[0], uint8_t *)[BTH_OFF], OP_RC_ACK);
	assert_int_equal(rte_ring_enqueue_burst(p.r[0], (void **)m, n, NULL), n);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	/* A WRITE without immediate completes nothing here: held as before. */
	memset(s[0].buf, 0x43, 64);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)s[1].buf,
				s[1].mr->rkey, 2), 0);
	responder_takes(s, 0x43);
	assert_int_equal(prdma_roce_stats_get(s[1].dev, &x1), 0);
	assert_true(x1.acks_held >= 1);
	ports_close(&p, s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ack_behind_the_answer),
		cmocka_unit_test(test_ack_after_polling_stops),
		cmocka_unit_test(test_ack_watch_backs_off),
		cmocka_unit_test(test_ack_before_destroy),
		cmocka_unit_test(test_ack_before_error),
		cmocka_unit_test(test_ack_of_a_receive_not_held),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
