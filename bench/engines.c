/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * engines: the 64 B RC WRITE message rate of one soft-provider port pair
 * with 1 engine on 1 lcore, then with 2 engines on 2 lcores (each lcore its
 * own CQ and its half of the QPs), in one run. Both endpoints are in this
 * process, over the embedded net_ring link (engines=N gives it N ring
 * pairs); each lcore's polls step its engine on both devices. A program,
 * not a test: it prints figures (bench/engines.sh puts them in the doc).
 *
 *   engines [EAL args] -- [-q QPs] [-t in flight per QP] [-d seconds] [-r runs]
 *   (EAL default: -l 0-1 --no-huge -m 1024 --no-pci --no-shconf)
 *
 * The two configurations alternate -r times (after a warm-up run of
 * each, not counted), the single lane on the main lcore and on the worker
 * in turn; the best run of each is reported, so a moment of load on the
 * shared machine, or one CPU busier than the other, weighs on neither
 * configuration more than on the other.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include <prdma.h>

#define MAX_QP   1024
#define BUF_LEN  (1u << 16)
#define SIGNAL   16              /* one WRITE in SIGNAL is signaled */

struct side {
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_mr *mr;
	uint8_t *buf;
	union prdma_gid gid;
	int id;
};

/* What one lcore drives: its CQ on each device and its QP pairs. */
struct lane {
	struct prdma_cq *cq[2][2];       /* [side][send, recv] */
	struct prdma_qp *qp[2][MAX_QP];
	uint32_t nb_qp;
	uint64_t msgs;
	uint64_t tsc;
	int err;
};

static uint32_t opt_qps = 64, opt_depth = 16, opt_reps = 3;
static double opt_secs = 2.0;
static struct side sides[2];
static struct lane lanes[RTE_MAX_LCORE];
static volatile int go;

static int
side_open(struct side *s, const char *args)
{
	s->id = prdma_dev_probe(args);
	if (s->id < 0)
		return s->id;
	s->dev = prdma_dev_open((uint16_t)s->id);
	s->pd = s->dev != NULL ? prdma_pd_alloc(s->dev) : NULL;
	s->buf = rte_zmalloc(NULL, BUF_LEN, 64);
	if (s->pd == NULL || s->buf == NULL)
		return -1;
	s->mr = prdma_mr_reg(s->pd, s->buf, BUF_LEN, PRDMA_ACCESS_ALL);
	if (s->mr == NULL || prdma_gid_query(s->dev, 1, 0, &s->gid) != 0)
		return -1;
	return 0;
}

static void
side_close(struct side *s)
{
	prdma_mr_dereg(s->mr);
	rte_free(s->buf);
	prdma_pd_free(s->pd);
	prdma_dev_close(s->dev);
	prdma_dev_remove((uint16_t)s->id);
}

static int
qp_up(struct prdma_qp *qp, uint32_t dqpn, const union prdma_gid *dgid)
{
	struct prdma_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE;
	if (prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT |
			    PRDMA_QP_ACCESS_FLAGS) != 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = PRDMA_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.dgid = *dgid;
	a.ah_attr.port_num = 1;
	if (prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU |
			    PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
			    PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER) != 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN | PRDMA_QP_TIMEOUT |
			       PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
			       PRDMA_QP_MAX_QP_RD_ATOMIC);
}

/* Lane @l: its CQs and @n connected QP pairs (created one lane after the
 * other, so each lane's QPs land on the engine its first QP got). */
static int
lane_setup(struct lane *l, uint32_t n)
{
	struct prdma_cq_init_attr ca;
	struct prdma_qp_init_attr ia;
	uint32_t i, s;

	memset(l, 0, sizeof(*l));
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 4096;
	for (s = 0; s < 2; s++) {
		l->cq[s][0] = prdma_cq_create(sides[s].dev, &ca);
		l->cq[s][1] = prdma_cq_create(sides[s].dev, &ca);
		if (l->cq[s][0] == NULL || l->cq[s][1] == NULL)
			return -1;
	}
	for (i = 0; i < n; i++) {
		for (s = 0; s < 2; s++) {
			memset(&ia, 0, sizeof(ia));
			ia.qp_type = PRDMA_QPT_RC;
			ia.send_cq = l->cq[s][0];
			ia.recv_cq = l->cq[s][1];
			ia.cap.max_send_wr = opt_depth * 2;
			ia.cap.max_recv_wr = 1;
			ia.cap.max_send_sge = 1;
			ia.cap.max_recv_sge = 1;
			l->qp[s][i] = prdma_qp_create(sides[s].pd, &ia);
			if (l->qp[s][i] == NULL)
				return -1;
		}
		if (qp_up(l->qp[0][i], l->qp[1][i]->qp_num, &sides[1].gid) != 0 ||
		    qp_up(l->qp[1][i], l->qp[0][i]->qp_num, &sides[0].gid) != 0)
			return -1;
	}
	l->nb_qp = n;
	return 0;
}

static void
lane_teardown(struct lane *l)
{
	uint32_t i, s;

	for (i = 0; i < l->nb_qp; i++)
		for (s = 0; s < 2; s++)
			prdma_qp_destroy(l->qp[s][i]);
	for (s = 0; s < 2; s++) {
		prdma_cq_destroy(l->cq[s][0]);
		prdma_cq_destroy(l->cq[s][1]);
	}
	l->nb_qp = 0;
}

/* Keep opt_depth WRITEs in flight on each QP for opt_secs. */
static int
lane_run(void *arg)
{
	struct lane *l = arg;
	uint32_t out[MAX_QP], sent[MAX_QP];
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_wc wc[64];
	struct prdma_sge sge;
	uint64_t t0, end, done = 0;
	uint32_t i, k;
	int n, j;

	memset(out, 0, sizeof(out));
	memset(sent, 0, sizeof(sent));
	sge.addr = (uintptr_t)sides[0].buf;
	sge.length = 64;
	sge.lkey = sides[0].mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)sides[1].buf;
	wr.wr.rdma.rkey = sides[1].mr->rkey;
	while (!go)
		;
	t0 = rte_get_tsc_cycles();
	end = t0 + (uint64_t)(opt_secs * (double)rte_get_tsc_hz());
	while (rte_get_tsc_cycles() < end) {
		for (i = 0; i < l->nb_qp; i++) {
			/* signaled every SIGNAL: a completion frees SIGNAL slots */
			for (k = 0; out[i] + SIGNAL <= opt_depth && k < SIGNAL; k++) {
				wr.wr_id = i;
				wr.send_flags = (sent[i] % SIGNAL) == SIGNAL - 1 ?
					PRDMA_SEND_SIGNALED : 0;
				if (prdma_post_send(l->qp[0][i], &wr, &bad) != 0)
					break;
				if (wr.send_flags != 0)
					out[i] += SIGNAL;
				sent[i]++;
			}
		}
		n = prdma_cq_poll(l->cq[0][0], RTE_DIM(wc), wc);
		for (j = 0; j < n; j++) {
			if (wc[j].status != PRDMA_WC_SUCCESS)
				l->err++;
			out[wc[j].wr_id] -= SIGNAL;
			done += SIGNAL;
		}
	}
	l->tsc = rte_get_tsc_cycles() - t0;
	l->msgs = done;
	return 0;
}

/* One configuration: engines= on both devices, @lcores lanes; one lane
 * runs on the main lcore, or (@on_worker) on the first worker. Mpps. */
static double
run(uint32_t engines, uint32_t lcores, int on_worker, const char *link)
{
	char args[2][128];
	unsigned int lc, i, s;
	double mpps = 0;

	for (s = 0; s < 2; s++) {
		snprintf(args[s], sizeof(args[s]), "roce:ring=%s,side=%u,engines=%u", link, s,
			 engines);
		if (side_open(&sides[s], args[s]) != 0) {
			fprintf(stderr, "engines: cannot open %s\n", args[s]);
			exit(1);
		}
	}
	for (i = 0; i < lcores; i++) {
		if (lane_setup(&lanes[i], opt_qps / lcores) != 0) {
			fprintf(stderr, "engines: cannot set up %u QPs\n", opt_qps);
			exit(1);
		}
	}
	go = 0;
	i = on_worker ? 0 : 1;
	RTE_LCORE_FOREACH_WORKER(lc) {
		if (i >= lcores)
			break;
		rte_eal_remote_launch(lane_run, &lanes[i++], lc);
	}
	go = 1;
	if (!on_worker)
		lane_run(&lanes[0]);
	rte_eal_mp_wait_lcore();
	for (i = 0; i < lcores; i++) {
		mpps += (double)lanes[i].msgs / ((double)lanes[i].tsc / (double)rte_get_tsc_hz()) / 1e6;
		if (lanes[i].err != 0)
			fprintf(stderr, "engines: lane %u: %d completions in error\n", i,
				lanes[i].err);
	}
	for (i = 0; i < lcores; i++)
		lane_teardown(&lanes[i]);
	for (s = 0; s < 2; s++)
		side_close(&sides[s]);
	return mpps;
}

int
main(int argc, char **argv)
{
	char *def[] = { argv[0], "-l", "0-1", "--no-huge", "-m", "1024", "--no-pci",
			"--no-shconf", "--log-level=lib.eal:error", NULL };
	double one = 0, two = 0, v, w;
	char link[16];
	uint32_t r;
	int ret, c;

	ret = argc > 1 && strcmp(argv[1], "--") != 0 ? rte_eal_init(argc, argv) :
		rte_eal_init((int)RTE_DIM(def) - 1, def);
	if (ret < 0) {
		fprintf(stderr, "engines: EAL init failed\n");
		return 1;
	}
	argc -= ret;
	argv += ret;
	while ((c = getopt(argc, argv, "q:t:d:r:")) != -1) {
		switch (c) {
		case 'q':
			opt_qps = (uint32_t)atoi(optarg);
			break;
		case 't':
			opt_depth = (uint32_t)atoi(optarg);
			break;
		case 'd':
			opt_secs = atof(optarg);
			break;
		case 'r':
			opt_reps = (uint32_t)atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: engines [EAL] -- [-q QPs] [-t depth] [-d s]\n");
			return 1;
		}
	}
	if (opt_qps < 2 || opt_qps > MAX_QP || opt_depth < SIGNAL) {
		fprintf(stderr, "engines: -q 2..%u, -t >= %u\n", MAX_QP, SIGNAL);
		return 1;
	}
	if (rte_lcore_count() < 2) {
		fprintf(stderr, "engines: needs 2 lcores (-l 0-1)\n");
		return 1;
	}
	for (r = 0; r <= opt_reps; r++) {
		snprintf(link, sizeof(link), "eng_a%u", r);
		/* the one lane on either lcore in turn: on a shared machine
		 * one CPU is often busier than the other */
		v = run(1, 1, (int)(r & 1), link);
		if (r > 0 && v > one)
			one = v;
		snprintf(link, sizeof(link), "eng_b%u", r);
		w = run(2, 2, 0, link);
		if (r > 0 && w > two)
			two = w;
		if (r > 0)
			printf("run %u: one_engine %.3f two_engines %.3f Mpps\n", r, v, w);
	}
	printf("qps %u depth %u seconds %.1f runs %u\n", opt_qps, opt_depth, opt_secs, opt_reps);
	printf("one_engine_mpps %.3f\n", one);
	printf("two_engines_mpps %.3f\n", two);
	printf("ratio %.2f\n", two / one);
	rte_eal_cleanup();
	return 0;
}
