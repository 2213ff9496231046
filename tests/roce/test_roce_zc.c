/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Zero-copy transmit (roce_zc.c): a send completes only once the port has
 * released the frames that read its buffer, an MR (or QP) with frames still
 * held cannot be deregistered (destroyed), and the path is chosen at probe
 * from what the port takes.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_bus_vdev.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include <prdma_roce.h>

#include "t_roce.h"

#define HOLD_US 1000000  /* the port holds each frame this long: the most the
                          * fault delay takes, well past the 100 ms a dereg
                          * waits, even on a loaded host */

static uint64_t
ms_since(uint64_t t0)
{
	return (rte_get_tsc_cycles() - t0) * 1000 / rte_get_tsc_hz();
}

/* Poll @cq for @ms, progressing both sides: completions seen. */
static int
poll_for(struct t_side s[2], struct prdma_cq *cq, unsigned int ms, struct prdma_wc *wc)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * ms / 1000;

	do {
		if (prdma_cq_poll(cq, 1, wc) == 1)
			return 1;
		prdma_dev_progress(s[0].dev);
		prdma_dev_progress(s[1].dev);
	} while (rte_get_tsc_cycles() < end);
	return 0;
}

static uint64_t
zc_stat(struct prdma_dev *dev, int frames)
{
	struct prdma_roce_stats st;

	assert_int_equal(prdma_roce_stats_get(dev, &st), 0);
	return frames ? st.zc_frames : st.zc_active;
}

/* Side 0's port keeps every frame HOLD_US before it leaves. */
static void
hold_tx(struct t_side *s)
{
	assert_int_equal(prdma_roce_fault_delay_set(s->dev, PRDMA_ROCE_FAULT_TX, HOLD_US), 0);
	assert_int_equal(prdma_roce_fault_set(s->dev, PRDMA_ROCE_FAULT_TX,
					      PRDMA_ROCE_FAULT_DELAY, 1000000, 1), 0);
}

/*
 * UC (no ACK to wait for): the WRITE's completion waits for the port to
 * let go of its frame, not for the frame to be queued. With the copy path
 * it completes at once; before zero-copy gating, so did this one.
 */
static void
test_completion_after_release(void **state)
{
	struct t_side s[2];
	struct prdma_wc wc;
	uint64_t t0;
	uint32_t i;

	(void)state;
	t_pair_open(s, "roce:ring=zc1,side=0,zc=1,zc_min=1",
		    "roce:ring=zc1,side=1,zc=1,zc_min=1");
	assert_int_equal(zc_stat(s[0].dev, 0), 1);
	t_pair_connect(s, PRDMA_QPT_UC, 0);
	for (i = 0; i < 4096; i++)
		s[0].buf[i] = (uint8_t)(i * 7 + 1);
	memset(s[1].buf, 0, 4096);
	hold_tx(&s[0]);
	t0 = rte_get_tsc_cycles();
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 1000,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 7), 0);
	/* Sent (zero-copy), held by the port: no completion yet. */
	assert_int_equal(poll_for(s, s[0].scq, HOLD_US / 1000 / 2, &wc), 0);
	assert_true(zc_stat(s[0].dev, 1) >= 1);
	assert_int_equal(poll_for(s, s[0].scq, HOLD_US / 1000 + 3000, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 7);
	assert_true(ms_since(t0) >= HOLD_US / 1000 - 20);
	/* The payload left from the buffer itself, and arrived whole. */
	for (i = 0; i < 200 && s[1].buf[999] == 0; i++)
		poll_for(s, s[1].scq, 1, &wc);
	assert_memory_equal(s[1].buf, s[0].buf, 1000);
	assert_int_equal(prdma_roce_fault_clear(s[0].dev), 0);
	t_pair_close(s);
}

/* The copy path: the frame holds a copy, the completion need not wait. */
static void
test_copy_completes_at_send(void **state)
{
	struct t_side s[2];
	struct prdma_wc wc;

	(void)state;
	t_pair_open(s, "roce:ring=zc2,side=0,zc=0", "roce:ring=zc2,side=1,zc=0");
	assert_int_equal(zc_stat(s[0].dev, 0), 0);
	t_pair_connect(s, PRDMA_QPT_UC, 0);
	hold_tx(&s[0]);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 1000,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 8), 0);
	assert_int_equal(poll_for(s, s[0].scq, 1000, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(zc_stat(s[0].dev, 1), 0);
	assert_int_equal(prdma_roce_fault_clear(s[0].dev), 0);
	/* the held frame leaves before the close */
	poll_for(s, s[1].scq, HOLD_US / 1000 + 50, &wc);
	t_pair_close(s);
}

/*
 * Deregistering an MR whose bytes a held frame still points at fails with
 * -EBUSY (after a short wait), and succeeds once the frame is released;
 * destroying the QP likewise.
 */
static void
test_dereg_while_held(void **state)
{
	struct t_side s[2];
	struct prdma_mr *mr;
	struct prdma_wc wc;
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;

	(void)state;
	t_pair_open(s, "roce:ring=zc3,side=0,zc=1,zc_min=1",
		    "roce:ring=zc3,side=1,zc=1,zc_min=1");
	t_pair_connect(s, PRDMA_QPT_UC, 0);
	mr = prdma_mr_reg(s[0].pd, s[0].buf + 8192, 8192, PRDMA_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	hold_tx(&s[0]);
	sge.addr = (uintptr_t)(s[0].buf + 8192);
	sge.length = 2048;
	sge.lkey = mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 9;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)s[1].buf;
	wr.wr.rdma.rkey = s[1].mr->rkey;
	assert_int_equal(prdma_post_send(s[0].qp, &wr, &bad), 0);
	assert_true(zc_stat(s[0].dev, 1) >= 1);
	assert_int_equal(prdma_mr_dereg(mr), -EBUSY);
	assert_int_equal(prdma_qp_destroy(s[0].qp), -EBUSY);
	/* Released: the completion, then the dereg and the destroy. */
	assert_int_equal(poll_for(s, s[0].scq, HOLD_US / 1000 + 3000, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(prdma_mr_dereg(mr), 0);
	assert_int_equal(prdma_roce_fault_clear(s[0].dev), 0);
	t_pair_close(s);
}

/* RC: a go-back-N resend of a zero-copy WRITE builds a new chain. */
static void
test_resend_zc(void **state)
{
	struct t_side s[2];
	struct prdma_wc wc;
	struct prdma_qp_counters c;
	uint32_t i;

	(void)state;
	t_pair_open(s, "roce:ring=zc4,side=0,zc=1,zc_min=1",
		    "roce:ring=zc4,side=1,zc=1,zc_min=1");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	for (i = 0; i < 16384; i++)
		s[0].buf[i] = (uint8_t)(i * 13 + 5);
	memset(s[1].buf, 0, 16384);
	/* Lose the first transmission of every frame at the receiver. */
	assert_int_equal(prdma_roce_fault_set(s[1].dev, PRDMA_ROCE_FAULT_RX,
					      PRDMA_ROCE_FAULT_DROP, 300000, 3), 0);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 16384,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 11), 0);
	assert_int_equal(poll_for(s, s[0].scq, 10000, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(s[1].buf, s[0].buf, 16384);
	assert_int_equal(prdma_qp_counters_get(s[0].qp, &c), 0);
	assert_true(c.value[PRDMA_QP_CNT_RETRANSMITS] > 0);
	assert_int_equal(prdma_roce_fault_clear(s[1].dev), 0);
	t_pair_close(s);
}

/*
 * The payload leaves from the buffer after its ICRC was taken: on the ring
 * link the peer reads it when it receives the frame. A byte the application
 * rewrites in between (against the verbs rule) fails the frame's ICRC at
 * the peer, and the go-back-N after the NAK delivers the new bytes: no
 * corruption, no error completion (doc/guides/roce.md, Zero-copy transmit).
 * What prdma-perf's timed write_bw did at its tail (tests/tools/perf_bw).
 */
static void
test_rewrite_in_flight(void **state)
{
	struct t_side s[2];
	struct prdma_wc wc;
	struct prdma_dev_counters c;
	struct prdma_qp_counters qc;
	uint64_t end;
	uint32_t i;

	(void)state;
	t_pair_open(s, "roce:ring=zc6,side=0,zc=1,zc_min=1",
		    "roce:ring=zc6,side=1,zc=1,zc_min=1");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	for (i = 0; i < 8192; i++)
		s[0].buf[i] = (uint8_t)(i * 11 + 3);
	memset(s[1].buf, 0, 8192);
	/* The port holds the frames: built (ICRC taken), not yet read. */
	assert_int_equal(prdma_roce_fault_delay_set(s[0].dev, PRDMA_ROCE_FAULT_TX, 20000), 0);
	assert_int_equal(prdma_roce_fault_set(s[0].dev, PRDMA_ROCE_FAULT_TX,
					      PRDMA_ROCE_FAULT_DELAY, 1000000, 1), 0);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 8192,
				(uintptr_t)s[1].buf, s[1].mr->rkey, 13), 0);
	end = rte_get_tsc_cycles() + rte_get_tsc_hz();
	while (zc_stat(s[0].dev, 1) == 0 && rte_get_tsc_cycles() < end)
		prdma_dev_progress(s[0].dev);
	assert_true(zc_stat(s[0].dev, 1) >= 1);
	s[0].buf[100] ^= 0xff;     /* the first packet's payload */
	assert_int_equal(poll_for(s, s[0].scq, 10000, &wc), 1);
	assert_int_equal(prdma_roce_fault_clear(s[0].dev), 0);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(s[1].buf, s[0].buf, 8192);
	assert_int_equal(prdma_dev_counters_get(s[1].dev, &c), 0);
	assert_true(c.value[PRDMA_DEV_CNT_ICRC_DROPS] >= 1);
	assert_int_equal(prdma_qp_counters_get(s[0].qp, &qc), 0);
	assert_true(qc.value[PRDMA_QP_CNT_RETRANSMITS] > 0);
	t_pair_close(s);
}

/* Probe roce on @port with @extra: the zc_active statistic, or -1. */
static int
probe_zc(int port, const char *extra)
{
	char args[128];
	struct prdma_dev *dev;
	int id, zc;

	snprintf(args, sizeof(args), "roce:port=%d,ip=10.9.0.1%s", port, extra);
	id = prdma_dev_probe(args);
	if (id < 0)
		return -1;
	dev = prdma_dev_open((uint16_t)id);
	assert_non_null(dev);
	zc = (int)zc_stat(dev, 0);
	assert_int_equal(prdma_dev_close(dev), 0);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
	return zc;
}

/*
 * The path is chosen at probe: the embedded ring link takes chains
 * (zero-copy by default, as with zc=auto), zc=0 copies, a port whose PMD
 * offers RTE_ETH_TX_OFFLOAD_MULTI_SEGS (net_ring) is zero-copy, and one
 * that does not (net_null, as net_af_xdp in DPDK 22.11) copies by default
 * and refuses zc=1.
 */
static void
test_fallback_selection(void **state)
{
	struct rte_eth_dev_info info;
	struct rte_ring *r[2];
	struct prdma_dev *dev;
	uint16_t null_port;
	int port, id;

	(void)state;
	assert_int_equal(t_eal_init(), 0);
	id = prdma_dev_probe("roce:ring=zc5,side=0,zc=auto");
	assert_true(id >= 0);
	dev = prdma_dev_open((uint16_t)id);
	assert_non_null(dev);
	assert_int_equal(zc_stat(dev, 0), 1);
	assert_int_equal(prdma_dev_close(dev), 0);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);

	r[0] = rte_ring_create("zc5_r0", 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	r[1] = rte_ring_create("zc5_r1", 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(r[0]);
	assert_non_null(r[1]);
	port = rte_eth_from_rings("net_zc5", &r[0], 1, &r[1], 1, 0);
	assert_true(port >= 0);
	assert_int_equal(rte_eth_dev_info_get((uint16_t)port, &info), 0);
	assert_true(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
	assert_int_equal(probe_zc(port, ""), 1);
	assert_int_equal(probe_zc(port, ",zc=auto"), 1);
	assert_int_equal(probe_zc(port, ",zc=1"), 1);
	assert_int_equal(probe_zc(port, ",zc=0"), 0);

	assert_int_equal(rte_vdev_init("net_null_zc5", NULL), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name("net_null_zc5", &null_port), 0);
	assert_int_equal(rte_eth_dev_info_get(null_port, &info), 0);
	assert_false(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
	assert_int_equal(probe_zc(null_port, ""), 0);
	assert_int_equal(probe_zc(null_port, ",zc=auto"), 0);
	assert_int_equal(probe_zc(null_port, ",zc=1"), -1);
	assert_int_equal(probe_zc(null_port, ",zc=0"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_completion_after_release),
		cmocka_unit_test(test_copy_completes_at_send),
		cmocka_unit_test(test_dereg_while_held),
		cmocka_unit_test(test_resend_zc),
		cmocka_unit_test(test_rewrite_in_flight),
		cmocka_unit_test(test_fallback_selection),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
