/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * End to end over the provider: RC WRITE/READ/SEND/atomics, UD SEND, in
 * ring mode (inline and thread progress), in port mode over ethdevs the
 * test builds itself (as the demo does), and between two QPs of one device.
 */

#include <string.h>

#include <rte_cycles.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "t_roce.h"

static void
expect_wc(struct t_side s[2], struct prdma_cq *cq, uint64_t wr_id,
	  enum prdma_wc_opcode op, enum prdma_wc_status st)
{
	struct prdma_wc wc;

	if (t_poll_one(s, cq, &wc) != 1)
		fail_msg("no completion for wr_id %" PRIu64, wr_id);
	if (wc.wr_id != wr_id || wc.opcode != op || wc.status != st)
		fail_msg("completion wr_id %" PRIu64 " op %d status %s, expected %"
			 PRIu64 " op %d status %s", wc.wr_id, wc.opcode,
			 prdma_wc_status_str(wc.status), wr_id, op,
			 prdma_wc_status_str(st));
}

/* RC: every operation once, with data checks, over a connected pair. */
static void
rc_ops(struct t_side s[2])
{
	uint64_t raddr = (uintptr_t)s[1].buf;
	uint32_t rkey = s[1].mr->rkey;
	struct prdma_wc wc;
	uint64_t v;

	/* WRITE of 5000 bytes: 5 packets at MTU 1024, across the PSN wrap. */
	t_pattern_fill(s[0].buf, 5000, 1);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 5000, raddr + 8192, rkey, 1), 0);
	expect_wc(s, s[0].scq, 1, PRDMA_WC_RDMA_WRITE, PRDMA_WC_SUCCESS);
	assert_int_equal(t_pattern_check(s[1].buf + 8192, 5000, 1), -1);

	/* READ it back into another place. */
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_READ, 16384, 5000, raddr + 8192, rkey, 2), 0);
	expect_wc(s, s[0].scq, 2, PRDMA_WC_RDMA_READ, PRDMA_WC_SUCCESS);
	assert_int_equal(t_pattern_check(s[0].buf + 16384, 5000, 1), -1);

	/* SEND of 3000 bytes into a posted receive. */
	t_pattern_fill(s[0].buf + 100, 3000, 2);
	assert_int_equal(t_post_recv(&s[1], 32768, 4096, 77), 0);
	assert_int_equal(t_post(&s[0], PRDMA_WR_SEND, 100, 3000, 0, 0, 3), 0);
	expect_wc(s, s[0].scq, 3, PRDMA_WC_SEND, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(s, s[1].rcq, &wc), 1);
	assert_int_equal(wc.wr_id, 77);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.opcode, PRDMA_WC_RECV);
	assert_int_equal(wc.byte_len, 3000);
	assert_int_equal(wc.qp_num, s[1].qp->qp_num);
	assert_int_equal(t_pattern_check(s[1].buf + 32768, 3000, 2), -1);

	/* Fetch-and-add then compare-and-swap on an aligned word. */
	v = 40;
	memcpy(s[1].buf + 64, &v, 8);
	{
		const struct prdma_send_wr *bad;
		struct prdma_send_wr wr;
		struct prdma_sge sge = { (uintptr_t)(s[0].buf + 128), 8, s[0].mr->lkey };

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 4;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = PRDMA_WR_ATOMIC_FETCH_AND_ADD;
		wr.send_flags = PRDMA_SEND_SIGNALED;
		wr.wr.atomic.remote_addr = raddr + 64;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 2;
		assert_int_equal(prdma_post_send(s[0].qp, &wr, &bad), 0);
		expect_wc(s, s[0].scq, 4, PRDMA_WC_FETCH_ADD, PRDMA_WC_SUCCESS);
		memcpy(&v, s[0].buf + 128, 8);
		assert_true(v == 40);
		memcpy(&v, s[1].buf + 64, 8);
		assert_true(v == 42);

		wr.wr_id = 5;
		wr.opcode = PRDMA_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.compare_add = 42;
		wr.wr.atomic.swap = 7;
		assert_int_equal(prdma_post_send(s[0].qp, &wr, &bad), 0);
		expect_wc(s, s[0].scq, 5, PRDMA_WC_COMP_SWAP, PRDMA_WC_SUCCESS);
		memcpy(&v, s[0].buf + 128, 8);
		assert_true(v == 42);
		memcpy(&v, s[1].buf + 64, 8);
		assert_true(v == 7);
	}

	/* WRITE with immediate consumes a receive on the other side. */
	assert_int_equal(t_post_recv(&s[1], 0, 0, 88), 0);
	{
		const struct prdma_send_wr *bad;
		struct prdma_send_wr wr;
		struct prdma_sge sge = { (uintptr_t)s[0].buf, 64, s[0].mr->lkey };

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 6;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = PRDMA_WR_RDMA_WRITE_WITH_IMM;
		wr.send_flags = PRDMA_SEND_SIGNALED;
		wr.imm_data = 0x12345678;
		wr.wr.rdma.remote_addr = raddr + 40000;
		wr.wr.rdma.rkey = rkey;
		assert_int_equal(prdma_post_send(s[0].qp, &wr, &bad), 0);
		expect_wc(s, s[0].scq, 6, PRDMA_WC_RDMA_WRITE, PRDMA_WC_SUCCESS);
		assert_int_equal(t_poll_one(s, s[1].rcq, &wc), 1);
		assert_int_equal(wc.wr_id, 88);
		assert_int_equal(wc.opcode, PRDMA_WC_RECV_RDMA_WITH_IMM);
		assert_int_equal(wc.imm_data, 0x12345678);
		assert_true(wc.wc_flags & PRDMA_WC_WITH_IMM);
		assert_int_equal(wc.byte_len, 64);
	}
	/* A bad rkey ends in REM_ACCESS_ERR and the QP in ERR. */
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 8, raddr, rkey ^ 0x100, 9), 0);
	expect_wc(s, s[0].scq, 9, PRDMA_WC_RDMA_WRITE, PRDMA_WC_REM_ACCESS_ERR);
	assert_int_equal(s[0].qp->state, PRDMA_QPS_ERR);
}

static void
test_rc_ring_inline(void **state)
{
	struct t_side s[2];

	(void)state;
	t_pair_open(s, "roce:ring=sm1,side=0", "roce:ring=sm1,side=1");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	rc_ops(s);
	t_pair_close(s);
}

static void
test_rc_ring_thread(void **state)
{
	struct t_side s[2];

	(void)state;
	t_pair_open(s, "roce:ring=sm2,side=0,progress=thread",
		    "roce:ring=sm2,side=1,progress=thread");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	rc_ops(s);
	t_pair_close(s);
}

static void
test_rc_ring_hybrid(void **state)
{
	struct t_side s[2];

	(void)state;
	t_pair_open(s, "roce:ring=sm3,side=0,progress=hybrid",
		    "roce:ring=sm3,side=1,progress=hybrid");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	rc_ops(s);
	t_pair_close(s);
}

/* Spin on a byte until it reads @v (never polling anything), 10 s at most. */
static void
spin_for(const uint8_t *p, uint8_t v, const char *what, unsigned int round)
{
	uint64_t deadline = rte_get_timer_cycles() + 10 * rte_get_timer_hz();

	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != v)
		if (rte_get_timer_cycles() > deadline)
			fail_msg("round %u: %s never landed", round, what);
}

/*
 * progress=hybrid: a program that spins on memory the peer WRITEs
 * (perftest's write_lat) polls nothing while it waits, so the progress
 * thread must step for it, also right after a long stretch of CQ polls
 * that sent the thread to nap. A WRITE ping-pong with both sides spinning
 * on memory, every tenth round after 5 ms of polling an empty CQ.
 */
static void
test_hybrid_memory_spin(void **state)
{
	struct prdma_wc wc;
	struct t_side s[2];
	unsigned int r;
	uint64_t until;
	uint8_t v;

	(void)state;
	t_pair_open(s, "roce:ring=sm4,side=0,progress=hybrid",
		    "roce:ring=sm4,side=1,progress=hybrid");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	for (r = 0; r < 200; r++) {
		v = (uint8_t)(r + 1);
		if (r % 10 == 0) {
			until = rte_get_timer_cycles() + rte_get_timer_hz() / 200;
			while (rte_get_timer_cycles() < until)
				assert_int_equal(prdma_cq_poll(s[0].rcq, 1, &wc), 0);
		}
		s[0].buf[0] = v;
		assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 1,
					(uintptr_t)(s[1].buf + 4096), s[1].mr->rkey, r), 0);
		spin_for(s[1].buf + 4096, v, "the ping", r);
		s[1].buf[0] = v;
		assert_int_equal(t_post(&s[1], PRDMA_WR_RDMA_WRITE, 0, 1,
					(uintptr_t)(s[0].buf + 4096), s[0].mr->rkey, r), 0);
		spin_for(s[0].buf + 4096, v, "the pong", r);
		expect_wc(s, s[0].scq, r, PRDMA_WC_RDMA_WRITE, PRDMA_WC_SUCCESS);
		expect_wc(s, s[1].scq, r, PRDMA_WC_RDMA_WRITE, PRDMA_WC_SUCCESS);
	}
	t_pair_close(s);
}

/*
 * With the progress thread, a send completion must not be seen before its
 * send-queue slot is free again: a verbs program with a full queue posts
 * the next request as soon as it polls a completion. Keep the queue full
 * and post one WRITE for every completion polled: no post may find the
 * queue full (ENOMEM). Failed before roce_req_complete freed the slot
 * before pushing the completion.
 */
static void
test_rc_thread_slot_before_wc(void **state)
{
	struct prdma_cq_init_attr ca;
	struct prdma_qp_attr qa;
	struct prdma_wc wc;
	struct t_side s[2];
	uint32_t depth, i, posted = 0, done = 0;
	uint64_t deadline;
	int n;

	(void)state;
	t_pair_open(s, "roce:ring=sm9,side=0,progress=thread",
		    "roce:ring=sm9,side=1,progress=thread");
	/* A CQ with an event fd, armed before every poll as ibv_rc_pingpong -e
	 * does: the completion's notification widens the window. */
	assert_int_equal(prdma_cq_destroy(s[0].scq), 0);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 64;
	ca.flags = PRDMA_CQ_F_EVENT_FD;
	s[0].scq = prdma_cq_create(s[0].dev, &ca);
	assert_non_null(s[0].scq);
	t_sq_depth = 1; /* ibv_rc_pingpong's: every post follows a poll */
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	t_sq_depth = 64;
	assert_int_equal(prdma_qp_query(s[0].qp, &qa, NULL), 0);
	depth = qa.cap.max_send_wr;
	for (i = 0; i < depth; i++, posted++)
		assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 8,
					(uintptr_t)s[1].buf, s[1].mr->rkey, posted), 0);
	deadline = rte_get_timer_cycles() + 60 * rte_get_timer_hz();
	assert_int_equal(prdma_cq_arm(s[0].scq, PRDMA_CQ_ARM_NEXT), 0);
	while (done < 2000 && rte_get_timer_cycles() < deadline) {
		n = prdma_cq_poll(s[0].scq, 1, &wc);
		if (n == 0)
			continue;
		prdma_cq_get_event(s[0].scq);
		assert_int_equal(prdma_cq_arm(s[0].scq, PRDMA_CQ_ARM_NEXT), 0);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		done++;
		assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 8,
					(uintptr_t)s[1].buf, s[1].mr->rkey, posted), 0);
		posted++;
	}
	assert_int_equal(done, 2000);
	while (done < posted && rte_get_timer_cycles() < deadline)
		done += (uint32_t)prdma_cq_poll(s[0].scq, 1, &wc);
	assert_int_equal(done, posted);
	t_pair_close(s);
}

static void
test_ud_ring(void **state)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_ah_attr aa;
	struct prdma_ah *ah;
	struct prdma_sge sge;
	struct prdma_wc wc;
	struct t_side s[2];

	(void)state;
	t_pair_open(s, "roce:ring=sm3,side=0", "roce:ring=sm3,side=1");
	t_pair_connect(s, PRDMA_QPT_UD, 0);
	memset(&aa, 0, sizeof(aa));
	aa.dgid = s[1].gid;
	aa.port_num = 1;
	ah = prdma_ah_create(s[0].pd, &aa);
	assert_non_null(ah);
	t_pattern_fill(s[0].buf, 1000, 3);
	assert_int_equal(t_post_recv(&s[1], 0, 2048, 5), 0);
	sge.addr = (uintptr_t)s[0].buf;
	sge.length = 1000;
	sge.lkey = s[0].mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND_WITH_IMM;
	wr.imm_data = 0xabcd;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = s[1].qp->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	assert_int_equal(prdma_post_send(s[0].qp, &wr, &bad), 0);
	expect_wc(s, s[0].scq, 1, PRDMA_WC_SEND, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(s, s[1].rcq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 40 + 1000);
	assert_int_equal(wc.src_qp, s[0].qp->qp_num);
	assert_true(wc.wc_flags & PRDMA_WC_GRH);
	assert_true(wc.wc_flags & PRDMA_WC_WITH_IMM);
	assert_int_equal(wc.imm_data, 0xabcd);
	/* The GRH area holds the IPv4 header in its last 20 bytes. */
	assert_int_equal(s[1].buf[20], 0x45);
	assert_memory_equal(s[1].buf + 20 + 12, &s[0].gid.raw[12], 4);
	assert_int_equal(t_pattern_check(s[1].buf + 40, 1000, 3), -1);
	/* Wrong Q_Key: dropped, nothing arrives. */
	assert_int_equal(t_post_recv(&s[1], 0, 2048, 6), 0);
	wr.wr_id = 2;
	wr.wr.ud.remote_qkey = 0x22222222;
	assert_int_equal(prdma_post_send(s[0].qp, &wr, &bad), 0);
	expect_wc(s, s[0].scq, 2, PRDMA_WC_SEND, PRDMA_WC_SUCCESS);
	prdma_dev_progress(s[1].dev);
	assert_int_equal(prdma_cq_poll(s[1].rcq, 1, &wc), 0);
	/* A controlled Q_Key (MSB set) means the sender QP's own Q_Key. */
	wr.wr_id = 3;
	wr.wr.ud.remote_qkey = 0x80000000;
	assert_int_equal(prdma_post_send(s[0].qp, &wr, &bad), 0);
	expect_wc(s, s[0].scq, 3, PRDMA_WC_SEND, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(s, s[1].rcq, &wc), 1);
	assert_int_equal(wc.wr_id, 6);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	t_pair_close(s);
}

/* Port mode over two net_ring ethdevs this test creates (the demo's way). */
static void
test_port_mode(void **state)
{
	struct rte_ring *r[2];
	char args[2][128];
	struct t_side s[2];
	int port[2], i;
	struct prdma_qp_attr qa;

	(void)state;
	assert_int_equal(t_eal_init(), 0);
	r[0] = rte_ring_create("t_pm_r0", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	r[1] = rte_ring_create("t_pm_r1", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(r[0]);
	assert_non_null(r[1]);
	port[0] = rte_eth_from_rings("t_pm_p0", &r[0], 1, &r[1], 1, 0);
	port[1] = rte_eth_from_rings("t_pm_p1", &r[1], 1, &r[0], 1, 0);
	assert_true(port[0] >= 0 && port[1] >= 0);
	snprintf(args[0], sizeof(args[0]), "roce:port=%d,ip=10.9.0.1", port[0]);
	snprintf(args[1], sizeof(args[1]), "roce:port=%d,ip=10.9.0.2", port[1]);
	t_pair_open(s, args[0], args[1]);
	/* net_ring reports a 1500-byte MTU: the RoCE MTU is 1024. */
	{
		struct prdma_port_attr pa;

		assert_int_equal(prdma_port_query(s[0].dev, 1, &pa), 0);
		assert_int_equal(pa.active_mtu, PRDMA_MTU_1024);
		assert_int_equal(pa.state, PRDMA_PORT_ACTIVE);
	}
	/* Without the peer's MAC the path cannot be resolved. */
	{
		struct prdma_qp_init_attr ia;

		memset(&ia, 0, sizeof(ia));
		ia.qp_type = PRDMA_QPT_RC;
		ia.send_cq = s[0].scq;
		ia.recv_cq = s[0].rcq;
		ia.cap.max_send_wr = 4;
		ia.cap.max_recv_wr = 4;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		s[0].qp = prdma_qp_create(s[0].pd, &ia);
		assert_non_null(s[0].qp);
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_INIT;
		qa.port_num = 1;
		assert_int_equal(prdma_qp_modify(s[0].qp, &qa, PRDMA_QP_STATE |
						 PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT |
						 PRDMA_QP_ACCESS_FLAGS), 0);
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RTR;
		qa.path_mtu = PRDMA_MTU_1024;
		qa.dest_qp_num = 5;
		qa.ah_attr.dgid = s[1].gid;
		qa.ah_attr.port_num = 1;
		assert_int_equal(prdma_qp_modify(s[0].qp, &qa, PRDMA_QP_STATE | PRDMA_QP_AV |
						 PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
						 PRDMA_QP_RQ_PSN | PRDMA_QP_MAX_DEST_RD_ATOMIC |
						 PRDMA_QP_MIN_RNR_TIMER), -EHOSTUNREACH);
		assert_int_equal(prdma_qp_destroy(s[0].qp), 0);
		s[0].qp = NULL;
	}
	t_pair_connect(s, PRDMA_QPT_RC, 1);
	rc_ops(s);
	t_pair_close(s);
	for (i = 0; i < 2; i++) {
		rte_eth_dev_stop((uint16_t)port[i]);
		rte_eth_dev_close((uint16_t)port[i]);
	}
	rte_ring_free(r[0]);
	rte_ring_free(r[1]);
}

/* Two QPs of one device talk through the device's own loopback. */
static void
test_loopback(void **state)
{
	struct t_side s[2];
	struct t_side l[2];

	(void)state;
	t_pair_open(s, "roce:ring=sm4,side=0", "roce:ring=sm4,side=1");
	/* Both halves of the "pair" are the same device. */
	l[0] = s[0];
	l[1] = s[0];
	l[1].scq = s[1].scq == NULL ? NULL : s[0].rcq;
	l[1].rcq = s[0].scq;
	l[1].buf = s[0].buf + T_BUF_LEN / 2;
	t_pair_connect(l, PRDMA_QPT_RC, 0);
	t_pattern_fill(l[0].buf, 2000, 9);
	assert_int_equal(t_post(&l[0], PRDMA_WR_RDMA_WRITE, 0, 2000,
				(uintptr_t)l[1].buf, l[1].mr->rkey, 1), 0);
	expect_wc(l, l[0].scq, 1, PRDMA_WC_RDMA_WRITE, PRDMA_WC_SUCCESS);
	assert_int_equal(t_pattern_check(l[1].buf, 2000, 9), -1);
	assert_int_equal(prdma_qp_destroy(l[0].qp), 0);
	assert_int_equal(prdma_qp_destroy(l[1].qp), 0);
	t_pair_close(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_ring_inline),
		cmocka_unit_test(test_rc_ring_thread),
		cmocka_unit_test(test_rc_ring_hybrid),
		cmocka_unit_test(test_hybrid_memory_spin),
		cmocka_unit_test(test_rc_thread_slot_before_wc),
		cmocka_unit_test(test_ud_ring),
		cmocka_unit_test(test_port_mode),
		cmocka_unit_test(test_loopback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
