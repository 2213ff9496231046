/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * roce_bench: 64-byte ping-pong half round trip on two lcores, raw net_ring
 * frames first (the baseline) and RC WRITE over the roce provider in ring
 * mode, measured in the same run. A program, not a test: it prints figures.
 *
 *   roce_bench [EAL args]   (default: -l 0-1 --no-huge -m 512 --no-pci --no-shconf)
 */

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include <prdma.h>

#define ITERS 200000
#define WARM  10000
#define SIZE  64

static uint16_t raw_port[2];
static struct rte_mempool *raw_mp;

static int
raw_side(void *arg)
{
	int side = (int)(uintptr_t)arg, i;
	struct rte_mbuf *m;

	for (i = 0; i < ITERS + WARM; i++) {
		if (side == 0) {
			m = rte_pktmbuf_alloc(raw_mp);
			m->data_len = m->pkt_len = SIZE;
			while (rte_eth_tx_burst(raw_port[0], 0, &m, 1) == 0)
				rte_pause();
		}
		while (rte_eth_rx_burst(raw_port[side], 0, &m, 1) == 0)
			;
		if (side == 1) {
			while (rte_eth_tx_burst(raw_port[1], 0, &m, 1) == 0)
				rte_pause();
		} else {
			rte_pktmbuf_free(m);
		}
	}
	return 0;
}

static double
raw_pingpong(void)
{
	struct rte_ring *r[2];
	struct rte_eth_conf conf;
	uint64_t t0, t1;
	int i;

	raw_mp = rte_pktmbuf_pool_create("bench_mp", 1023, 0, 0, 2048, 0);
	r[0] = rte_ring_create("bench_r0", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	r[1] = rte_ring_create("bench_r1", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	memset(&conf, 0, sizeof(conf));
	for (i = 0; i < 2; i++) {
		raw_port[i] = (uint16_t)rte_eth_from_rings(i ? "bench_p1" : "bench_p0",
							   &r[i], 1, &r[1 - i], 1, 0);
		rte_eth_dev_configure(raw_port[i], 1, 1, &conf);
		rte_eth_rx_queue_setup(raw_port[i], 0, 1024, 0, NULL, raw_mp);
		rte_eth_tx_queue_setup(raw_port[i], 0, 1024, 0, NULL);
		rte_eth_dev_start(raw_port[i]);
	}
	t0 = rte_rdtsc();
	rte_eal_remote_launch(raw_side, (void *)1, rte_get_next_lcore(-1, 1, 0));
	raw_side((void *)0);
	rte_eal_mp_wait_lcore();
	t1 = rte_rdtsc();
	return (double)(t1 - t0) * 1e6 / rte_get_tsc_hz() / (2.0 * (ITERS + WARM));
}

struct side {
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp;
	struct prdma_mr *mr;
	volatile uint8_t *buf;
	uint64_t raddr;
	uint32_t rkey;
	union prdma_gid gid;
};

static struct side sd[2];

static int
roce_side(void *arg)
{
	int me = (int)(uintptr_t)arg, i;
	struct side *s = &sd[me];
	struct prdma_sge sge = { (uintptr_t)(s->buf + 4096), SIZE, s->mr->lkey };
	struct prdma_send_wr wr;
	const struct prdma_send_wr *bad;
	struct prdma_wc wc[16];

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = s->raddr;
	wr.wr.rdma.rkey = s->rkey;
	for (i = 1; i <= ITERS + WARM; i++) {
		uint8_t seq = (uint8_t)i;

		if (me == 1) {
			while (s->buf[SIZE - 1] != seq)
				prdma_dev_progress(s->dev);
		}
		s->buf[4096 + SIZE - 1] = seq;
		wr.send_flags = (i % 32) == 0 ? PRDMA_SEND_SIGNALED : 0;
		while (prdma_post_send(s->qp, &wr, &bad) != 0)
			prdma_cq_poll(s->cq, 16, wc);
		if (me == 0) {
			while (s->buf[SIZE - 1] != seq)
				prdma_dev_progress(s->dev);
		}
		prdma_cq_poll(s->cq, 16, wc);
	}
	return 0;
}

static double
roce_pingpong(void)
{
	struct prdma_cq_init_attr ca = { .cqe = 256 };
	struct prdma_qp_init_attr ia;
	struct prdma_qp_attr qa;
	uint64_t t0, t1;
	int i;

	for (i = 0; i < 2; i++) {
		int id = prdma_dev_probe(i ? "roce:ring=bench,side=1" : "roce:ring=bench,side=0");

		sd[i].dev = prdma_dev_open((uint16_t)id);
		sd[i].pd = prdma_pd_alloc(sd[i].dev);
		sd[i].cq = prdma_cq_create(sd[i].dev, &ca);
		sd[i].buf = rte_zmalloc(NULL, 8192, 64);
		sd[i].mr = prdma_mr_reg(sd[i].pd, (void *)(uintptr_t)sd[i].buf, 8192,
					PRDMA_ACCESS_ALL);
		prdma_gid_query(sd[i].dev, 1, 0, &sd[i].gid);
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = PRDMA_QPT_RC;
		ia.send_cq = sd[i].cq;
		ia.recv_cq = sd[i].cq;
		ia.cap.max_send_wr = 128;
		ia.cap.max_recv_wr = 1;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		sd[i].qp = prdma_qp_create(sd[i].pd, &ia);
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_INIT;
		qa.port_num = 1;
		qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE;
		prdma_qp_modify(sd[i].qp, &qa, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
				PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS);
	}
	for (i = 0; i < 2; i++) {
		sd[i].raddr = (uintptr_t)sd[1 - i].buf;
		sd[i].rkey = sd[1 - i].mr->rkey;
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RTR;
		qa.path_mtu = PRDMA_MTU_4096;
		qa.dest_qp_num = sd[1 - i].qp->qp_num;
		qa.max_dest_rd_atomic = 1;
		qa.ah_attr.dgid = sd[1 - i].gid;
		qa.ah_attr.port_num = 1;
		prdma_qp_modify(sd[i].qp, &qa, PRDMA_QP_STATE | PRDMA_QP_AV |
				PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
				PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER);
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RTS;
		qa.timeout = 14;
		qa.retry_cnt = 7;
		qa.rnr_retry = 7;
		qa.max_rd_atomic = 1;
		prdma_qp_modify(sd[i].qp, &qa, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
				PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
				PRDMA_QP_MAX_QP_RD_ATOMIC);
	}
	t0 = rte_rdtsc();
	rte_eal_remote_launch(roce_side, (void *)1, rte_get_next_lcore(-1, 1, 0));
	roce_side((void *)0);
	rte_eal_mp_wait_lcore();
	t1 = rte_rdtsc();
	return (double)(t1 - t0) * 1e6 / rte_get_tsc_hz() / (2.0 * (ITERS + WARM));
}

int
main(int argc, char **argv)
{
	char *def[] = { argv[0], (char *)"-l", (char *)"0-1", (char *)"--no-huge",
			(char *)"-m", (char *)"512", (char *)"--no-pci",
			(char *)"--no-shconf", (char *)"--log-level=*:error", NULL };
	double raw, roce;

	if (argc > 1 ? rte_eal_init(argc, argv) < 0 :
	    rte_eal_init((int)RTE_DIM(def) - 1, def) < 0) {
		fprintf(stderr, "roce_bench: EAL init failed\n");
		return 1;
	}
	if (rte_lcore_count() < 2) {
		fprintf(stderr, "roce_bench: two lcores needed\n");
		return 1;
	}
	raw = raw_pingpong();
	roce = roce_pingpong();
	printf("64 B half round trip: raw net_ring %.3f us, roce RC WRITE %.3f us "
	       "(%.2fx)\n", raw, roce, roce / raw);
	return 0;
}
