/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Go-back-N costs one window per loss, not the send queue: a write_bw-like
 * load (64 WRITEs of 64 KiB in flight, 4096 packets) through a lossy link
 * must resend at most ROCE_MAX_UNACKED_PSNS + 1 packets for each one lost,
 * as rxe's requester (128 unacknowledged packets) does. Before the bound
 * each loss resent everything posted behind it.
 */

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include <rte_cycles.h>

#include <prdma_roce.h>

#include "roce.h"
#include "t_roce.h"

#define GBN_WRITES 600
#define GBN_DEPTH 64
#define GBN_LEN T_BUF_LEN
#define GBN_WINDOW 128u

static void
write_load(struct t_side s[2], unsigned int writes)
{
	uint64_t end = rte_rdtsc() + 60 * rte_get_tsc_hz();
	unsigned int posted = 0, done = 0, out = 0;
	struct prdma_wc wc[16];
	int n, i;

	while (done < writes) {
		while (out < GBN_DEPTH && posted < writes &&
		       t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, GBN_LEN, (uintptr_t)s[1].buf,
			      s[1].mr->rkey, posted) == 0) {
			posted++;
			out++;
		}
		n = prdma_cq_poll(s[0].scq, 16, wc);
		for (i = 0; i < n; i++)
			assert_int_equal(wc[i].status, PRDMA_WC_SUCCESS);
		out -= (unsigned int)n;
		done += (unsigned int)n;
		prdma_dev_progress(s[1].dev);
		assert_true(rte_rdtsc() < end);
	}
}

static void
run(const char *a, const char *b, uint64_t *lost, uint64_t *resent, uint64_t *naks)
{
	struct prdma_dev_counters c0;
	struct prdma_roce_stats x0;
	struct t_side s[2];

	t_pair_open(s, a, b);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	write_load(s, GBN_WRITES);
	assert_int_equal(prdma_roce_stats_get(s[0].dev, &x0), 0);
	assert_int_equal(prdma_dev_counters_get(s[0].dev, &c0), 0);
	*lost = x0.fault[PRDMA_ROCE_FAULT_TX][PRDMA_ROCE_FAULT_DROP];
	*resent = c0.value[PRDMA_DEV_CNT_RETRANSMITS];
	*naks = c0.value[PRDMA_DEV_CNT_NAKS_RECEIVED];
	t_pair_close(s);
}

static void
test_gbn_bound(void **state)
{
	uint64_t lost, resent, naks;

	(void)state;
	/* 0.05 % of the requester's frames lost: about 19 of 38,400. */
	run("roce:ring=gbn1,side=0,tx_drop=500,fault_seed=11", "roce:ring=gbn1,side=1",
	    &lost, &resent, &naks);
	print_message("lossy: %" PRIu64 " lost, %" PRIu64 " resent, %" PRIu64 " NAKs\n",
		      lost, resent, naks);
	assert_true(lost > 0);
	assert_true(resent >= lost);
	assert_true(resent <= lost * (GBN_WINDOW + 1));
}

/* No spurious work on a lossless link: nothing resent, no NAK. */
static void
test_lossless(void **state)
{
	uint64_t lost, resent, naks;

	(void)state;
	run("roce:ring=gbn2,side=0", "roce:ring=gbn2,side=1", &lost, &resent, &naks);
	print_message("lossless: %" PRIu64 " resent, %" PRIu64 " NAKs\n", resent, naks);
	assert_int_equal(lost, 0);
	assert_int_equal(resent, 0);
	assert_int_equal(naks, 0);
}

/*
 * The responder checks a WRITE MIDDLE's or LAST's ICRC while copying its
 * payload into place (roce_pkt_icrc_copy): a corrupted one, its bytes
 * already in the region, is still dropped, resent and rewritten. 0.2 % of
 * the frames the responder receives get a bit flipped past the BTH (the
 * payload, mostly); every WRITE completes and the region holds the
 * source's bytes, on both transmit paths.
 */
static void
corrupt_in_place(const char *a, const char *b)
{
	struct prdma_dev_counters c1;
	struct prdma_roce_stats x1;
	struct t_side s[2];
	uint32_t i;

	t_pair_open(s, a, b);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	for (i = 0; i < GBN_LEN; i++)
		s[0].buf[i] = (uint8_t)(i * 29 + 7);
	memset(s[1].buf, 0, GBN_LEN);
	write_load(s, GBN_WRITES / 4);
	assert_int_equal(prdma_roce_stats_get(s[1].dev, &x1), 0);
	assert_int_equal(prdma_dev_counters_get(s[1].dev, &c1), 0);
	assert_true(x1.fault[PRDMA_ROCE_FAULT_RX][PRDMA_ROCE_FAULT_CORRUPT] > 0);
	assert_true(c1.value[PRDMA_DEV_CNT_ICRC_DROPS] > 0);
	assert_memory_equal(s[1].buf, s[0].buf, GBN_LEN);
	t_pair_close(s);
}

static void
test_write_corrupt_in_place(void **state)
{
	(void)state;
	corrupt_in_place("roce:ring=gbn4,side=0,zc=0",
			 "roce:ring=gbn4,side=1,rx_corrupt=2000,fault_seed=5");
	corrupt_in_place("roce:ring=gbn5,side=0,zc=1,zc_min=1",
			 "roce:ring=gbn5,side=1,rx_corrupt=2000,fault_seed=6");
}

static void
progress_for(struct t_side *s, uint64_t us)
{
	uint64_t end = rte_rdtsc() + us * rte_get_tsc_hz() / 1000000;

	while (rte_rdtsc() < end)
		prdma_dev_progress(s->dev);
}

/*
 * The ACK timer counts from the message, not from the ACK before it. Every
 * frame the requester receives is held 30 ms: WRITE 1 at 0 is ACKed at 30,
 * WRITE 2 goes at 80 and its ACK comes at 110. The timer (14: 67 ms) must
 * not fire: armed by WRITE 1's ACK it fired at 97, 17 ms after WRITE 2.
 */
static void
test_timer_from_send(void **state)
{
	struct prdma_dev_counters c0;
	struct prdma_wc wc;
	struct t_side s[2];

	(void)state;
	t_pair_open(s, "roce:ring=gbn3,side=0,rx_delay=100%,fault_delay_us=30000",
		    "roce:ring=gbn3,side=1");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)s[1].buf,
				s[1].mr->rkey, 1), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	progress_for(&s[0], 50000);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 64, (uintptr_t)s[1].buf,
				s[1].mr->rkey, 2), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(prdma_dev_counters_get(s[0].dev, &c0), 0);
	print_message("retransmits %" PRIu64 "\n", c0.value[PRDMA_DEV_CNT_RETRANSMITS]);
	assert_int_equal(c0.value[PRDMA_DEV_CNT_RETRANSMITS], 0);
	t_pair_close(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gbn_bound),
		cmocka_unit_test(test_lossless),
		cmocka_unit_test(test_write_corrupt_in_place),
		cmocka_unit_test(test_timer_from_send),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
