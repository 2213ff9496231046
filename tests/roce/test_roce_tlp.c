/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Tail-loss probe: a lost last packet, or the lost ACK of one, is
 * recovered by the probe (the last unacknowledged packet sent again with
 * AckReq after about two RTTs), not by the ACK timeout. Deterministic: the
 * one frame is dropped by the provider's fault injection, the QP's
 * timeout is 67 ms, and the counters say which mechanism recovered it
 * (tlp_acked, and no timeout, no retry spent), not a clock.
 */

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include <rte_cycles.h>

#include <prdma_roce.h>

#include "t_roce.h"

/* Drop every frame @dev sends while one WRITE leaves, then heal the link. */
static void
write_through_one_drop(struct t_side s[2], struct prdma_dev *dropper, uint64_t wr_id)
{
	struct prdma_wc wc;
	int i;

	/* A few round trips first: no probe is armed before an RTT sample. */
	for (i = 0; i < 4; i++) {
		assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)s[1].buf,
					s[1].mr->rkey, 100 + (uint64_t)i), 0);
		assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	}
	assert_int_equal(prdma_roce_fault_set(dropper, PRDMA_ROCE_FAULT_TX,
					      PRDMA_ROCE_FAULT_DROP, 1000000, 1), 0);
	memset(s[0].buf, (int)wr_id, 64);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)s[1].buf + 4096,
				s[1].mr->rkey, wr_id), 0);
	/* The WRITE (or its ACK) is gone: let the responder see what came. */
	while (1) {
		struct prdma_roce_stats x;

		prdma_dev_progress(s[0].dev);
		prdma_dev_progress(s[1].dev);
		assert_int_equal(prdma_roce_stats_get(dropper, &x), 0);
		if (x.fault[PRDMA_ROCE_FAULT_TX][PRDMA_ROCE_FAULT_DROP] != 0)
			break;
	}
	assert_int_equal(prdma_roce_fault_clear(dropper), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.wr_id, wr_id);
	assert_memory_equal(s[1].buf + 4096, s[0].buf, 64);
}

static void
check(struct t_side s[2], struct prdma_dev *dropper, uint64_t *dups)
{
	struct prdma_qp_counters q0, q1;
	struct prdma_roce_stats x0, xd;

	assert_int_equal(prdma_roce_stats_get(s[0].dev, &x0), 0);
	assert_int_equal(prdma_roce_stats_get(dropper, &xd), 0);
	assert_int_equal(prdma_qp_counters_get(s[0].qp, &q0), 0);
	assert_int_equal(prdma_qp_counters_get(s[1].qp, &q1), 0);
	print_message("dropped %" PRIu64 ", probes %" PRIu64 ", probed tails acked %" PRIu64
		      ", timeouts %" PRIu64 ", retransmits %" PRIu64 ", duplicates %" PRIu64 "\n",
		      xd.fault[PRDMA_ROCE_FAULT_TX][PRDMA_ROCE_FAULT_DROP], x0.tlp_probes,
		      x0.tlp_acked, q0.value[PRDMA_QP_CNT_TIMEOUTS],
		      q0.value[PRDMA_QP_CNT_RETRANSMITS], q1.value[PRDMA_QP_CNT_DUPLICATES]);
	assert_int_equal(xd.fault[PRDMA_ROCE_FAULT_TX][PRDMA_ROCE_FAULT_DROP], 1);
	/* Recovered by the probe: no timeout, no go-back-N, nothing else resent. */
	assert_int_equal(q0.value[PRDMA_QP_CNT_TIMEOUTS], 0);
	assert_int_equal(q0.value[PRDMA_QP_CNT_RETRANSMITS], 0);
	assert_true(x0.tlp_probes >= 1);
	assert_true(x0.tlp_acked >= 1);
	*dups = q1.value[PRDMA_QP_CNT_DUPLICATES];
}

/* The WRITE itself is lost: the probe delivers it. */
static void
test_lost_last_packet(void **state)
{
	struct t_side s[2];
	uint64_t dups;

	(void)state;
	t_pair_open(s, "roce:ring=tlp1,side=0,tlp=1", "roce:ring=tlp1,side=1,tlp=1");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	write_through_one_drop(s, s[0].dev, 7);
	check(s, s[0].dev, &dups);
	assert_int_equal(dups, 0);
	t_pair_close(s);
}

/* The WRITE's ACK is lost: the probe is a duplicate, answered as one. */
static void
test_lost_ack(void **state)
{
	struct t_side s[2];
	uint64_t dups;

	(void)state;
	t_pair_open(s, "roce:ring=tlp2,side=0,tlp=1", "roce:ring=tlp2,side=1,tlp=1");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	write_through_one_drop(s, s[1].dev, 9);
	check(s, s[1].dev, &dups);
	assert_true(dups >= 1);
	t_pair_close(s);
}

/* Many round trips first: the probe then waits for the measured RTT. */
static void
test_after_rtt_samples(void **state)
{
	struct prdma_wc wc;
	struct t_side s[2];
	uint64_t dups;
	int i;

	(void)state;
	t_pair_open(s, "roce:ring=tlp3,side=0,tlp=1", "roce:ring=tlp3,side=1,tlp=1");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	for (i = 0; i < 32; i++) {
		assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)s[1].buf,
					s[1].mr->rkey, (uint64_t)i), 0);
		assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	}
	write_through_one_drop(s, s[0].dev, 11);
	check(s, s[0].dev, &dups);
	t_pair_close(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_last_packet),
		cmocka_unit_test(test_lost_ack),
		cmocka_unit_test(test_after_rtt_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
