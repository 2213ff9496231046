/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * A benchmark program (not a test): RC WRITE throughput between the two
 * sides of a ring link, lossless and then with 1 % of the frames dropped
 * each way (the provider's fault injection), printed side by side with
 * their ratio (target >= 50 %). Usage:
 *   roce_lossbench [EAL args] -- [seconds per run] [message bytes] [loss %]
 *                                 [messages in flight]
 * Go-back-N resends the window behind a loss, so the window (default
 * 2 x 64 KiB = 32 packets) sets the cost of each loss.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include <prdma.h>
#include <prdma_fp.h>
#include <prdma_roce.h>

#define DEPTH 64        /* most in flight; the window is a run argument */

struct end {
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp;
	struct prdma_mr *mr;
	uint8_t *buf;
	union prdma_gid gid;
};

static int
open_end(struct end *e, const char *args, size_t len)
{
	struct prdma_cq_init_attr ca = { .cqe = 256 };
	struct prdma_qp_init_attr ia;
	int id = prdma_dev_probe(args);

	if (id < 0)
		return -1;
	e->dev = prdma_dev_open((uint16_t)id);
	e->pd = prdma_pd_alloc(e->dev);
	e->cq = prdma_cq_create(e->dev, &ca);
	e->buf = rte_zmalloc(NULL, len, 64);
	if (e->pd == NULL || e->cq == NULL || e->buf == NULL)
		return -1;
	e->mr = prdma_mr_reg(e->pd, e->buf, len, PRDMA_ACCESS_ALL);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	ia.cap.max_send_wr = DEPTH;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	e->qp = prdma_qp_create(e->pd, &ia);
	if (e->mr == NULL || e->qp == NULL)
		return -1;
	return prdma_gid_query(e->dev, 1, 0, &e->gid);
}

static int
connect_ends(struct end e[2])
{
	struct prdma_qp_attr qa;
	int i;

	for (i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_INIT;
		qa.port_num = 1;
		qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE;
		if (prdma_qp_modify(e[i].qp, &qa, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
				    PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS))
			return -1;
	}
	for (i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RTR;
		qa.path_mtu = PRDMA_MTU_4096;
		qa.dest_qp_num = e[1 - i].qp->qp_num;
		qa.ah_attr.dgid = e[1 - i].gid;
		qa.ah_attr.port_num = 1;
		if (prdma_qp_modify(e[i].qp, &qa, PRDMA_QP_STATE | PRDMA_QP_AV |
				    PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
				    PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER))
			return -1;
	}
	for (i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RTS;
		/* 4 ms: above the time a full window takes to drain through the
		 * ring and both ICRCs (a shorter timer fires on queued frames). */
		qa.timeout = 10;
		qa.retry_cnt = 7;
		qa.rnr_retry = 7;
		if (prdma_qp_modify(e[i].qp, &qa, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
				    PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
				    PRDMA_QP_MAX_QP_RD_ATOMIC))
			return -1;
	}
	return 0;
}

/* Bytes per second written from e[0] to e[1] for @secs. */
static int window = 2;

static double
run(struct end e[2], double secs, uint32_t msg)
{
	uint64_t end, t0 = rte_rdtsc(), bytes = 0;
	struct prdma_sge sge = { .addr = (uintptr_t)e[0].buf, .length = msg,
				 .lkey = e[0].mr->lkey };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	struct prdma_wc wc[DEPTH];
	int out = 0, n, i;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)e[1].buf;
	wr.wr.rdma.rkey = e[1].mr->rkey;
	end = t0 + (uint64_t)(secs * (double)rte_get_tsc_hz());
	while (rte_rdtsc() < end || out > 0) {
		while (out < window && rte_rdtsc() < end && prdma_post_send(e[0].qp, &wr, &bad) == 0)
			out++;
		n = prdma_cq_poll(e[0].cq, DEPTH, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].status != PRDMA_WC_SUCCESS) {
				fprintf(stderr, "WRITE failed: %s\n", prdma_wc_status_str(wc[i].status));
				return -1;
			}
			bytes += msg;
		}
		out -= n;
		prdma_dev_progress(e[1].dev);
	}
	return (double)bytes * (double)rte_get_tsc_hz() / (double)(rte_rdtsc() - t0);
}

int
main(int argc, char **argv)
{
	struct end e[2];
	double secs = 1.0, loss = 1.0, clean, lossy;
	uint32_t msg = 65536;
	int ret, i;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	argc -= ret;
	argv += ret;
	if (argc > 1)
		secs = strtod(argv[1], NULL);
	if (argc > 2)
		msg = (uint32_t)strtoul(argv[2], NULL, 0);
	if (argc > 3)
		loss = strtod(argv[3], NULL);
	if (argc > 4)
		window = RTE_MAX(1, RTE_MIN(DEPTH, atoi(argv[4])));
	memset(e, 0, sizeof(e));
	if (open_end(&e[0], "roce:ring=lossb,side=0", msg) < 0 ||
	    open_end(&e[1], "roce:ring=lossb,side=1", msg) < 0) {
		fprintf(stderr, "device setup failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (connect_ends(e) < 0) {
		fprintf(stderr, "QP connection failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	clean = run(e, secs, msg);
	for (i = 0; i < 2; i++)
		prdma_roce_fault_set(e[i].dev, PRDMA_ROCE_FAULT_TX, PRDMA_ROCE_FAULT_DROP,
				     (uint32_t)(loss * 10000.0), 42 + (uint64_t)i);
	lossy = run(e, secs, msg);
	printf("RC WRITE %u B, %d in flight, ring link, %.1f s per run\n", msg, window, secs);
	printf("  lossless        %10.1f MB/s\n", clean / 1e6);
	printf("  %.2f%% drop each way %8.1f MB/s\n", loss, lossy / 1e6);
	printf("  ratio           %10.1f %% (target >= 50 %%)\n", 100.0 * lossy / clean);
	return 0;
}
