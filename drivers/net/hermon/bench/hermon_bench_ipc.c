/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Instructions per fast-path call of the Hermon PMD, for callgrind: an RC
 * pair on two model HCAs joined by a cable; each iteration posts one 64-byte
 * inline RDMA WRITE (bench_post_one) and polls its one CQE (bench_poll_one),
 * the CQE being waited for outside the measured function. Baselines in the
 * same run: an rte_ring enqueue + dequeue of one pointer (bench_ring_one)
 * and a 64-byte memcpy (bench_memcpy_one). Then the same request in bursts
 * of BENCH_BURST through prdma_post_send_burst (bench_post_burst) and one
 * poll of as many CQEs (bench_poll_burst): divided by BENCH_BURST, the cost
 * per request when the checks, doorbell and consumer index are shared.
 * Last, the same burst with only its last request signaled (one CQE says
 * the RC QP completed all of them): bench_post_burst_sel, bench_poll_burst_sel.
 * Then the same request from a work-request template (prdma_post_template:
 * bench_post_tmpl, its CQE by bench_poll_tmpl), and sixteen template posts
 * in a row (bench_post_tmpl16) with one poll of their sixteen CQEs
 * (bench_poll_tmpl16), every request signaled; then the same sixteen in one
 * prdma_post_template_burst (bench_post_tmpl_burst, bench_poll_tmpl_burst).
 * A second argument is appended to both devargs (",model_bf=1" for a
 * model with BlueFlame, ",model_bf=1,bf=0" for that model with the PMD
 * ringing the doorbell); the single post's round trip (post to its CQE
 * seen) is printed in TSC cycles and ns (meaningful without valgrind).
 * Run it as
 *   valgrind --tool=callgrind --toggle-collect=bench_post_one <this> [iters] [devargs]
 * (bench/hermon-ipc.sh does, once per function, and divides by iters).
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include <prdma.h>

#define BENCH_LEN 64
/* requests per prdma_post_send_burst call (and CQEs per poll call) */
#define BENCH_BURST 16

__attribute__((noinline)) int
bench_post_one(struct prdma_qp *qp, const struct prdma_send_wr *wr)
{
	const struct prdma_send_wr *bad;

	return prdma_post_send(qp, wr, &bad);
}

__attribute__((noinline)) int
bench_poll_one(struct prdma_cq *cq, struct prdma_wc *wc)
{
	return prdma_cq_poll(cq, 1, wc);
}

__attribute__((noinline)) int
bench_post_burst(struct prdma_qp *qp, const struct prdma_send_wr *wr)
{
	const struct prdma_send_wr *bad;

	return prdma_post_send_burst(qp, wr, BENCH_BURST, &bad);
}

__attribute__((noinline)) int
bench_poll_burst(struct prdma_cq *cq, struct prdma_wc *wc)
{
	return prdma_cq_poll(cq, BENCH_BURST, wc);
}

/* the same burst with only its last request signaled: one CQE for the burst */
__attribute__((noinline)) int
bench_post_burst_sel(struct prdma_qp *qp, const struct prdma_send_wr *wr)
{
	const struct prdma_send_wr *bad;

	return prdma_post_send_burst(qp, wr, BENCH_BURST, &bad);
}

__attribute__((noinline)) int
bench_poll_burst_sel(struct prdma_cq *cq, struct prdma_wc *wc)
{
	return prdma_cq_poll(cq, BENCH_BURST, wc);
}

__attribute__((noinline)) int
bench_post_tmpl(struct prdma_qp *qp, const struct prdma_wr_tmpl *t, const void *src,
		uint64_t raddr)
{
	return prdma_post_template(qp, t, src, BENCH_LEN, raddr, 1);
}

__attribute__((noinline)) int
bench_poll_tmpl(struct prdma_cq *cq, struct prdma_wc *wc)
{
	return prdma_cq_poll(cq, 1, wc);
}

/* sixteen requests from one template, each its own post (and doorbell) */
__attribute__((noinline)) int
bench_post_tmpl16(struct prdma_qp *qp, const struct prdma_wr_tmpl *t, const uint8_t *src,
		  uint64_t raddr)
{
	int k, ret = 0;

	for (k = 0; k < BENCH_BURST; k++)
		ret |= prdma_post_template(qp, t, src, BENCH_LEN, raddr + BENCH_LEN * k,
					   2 + (uint64_t)k);
	return ret;
}

__attribute__((noinline)) int
bench_poll_tmpl16(struct prdma_cq *cq, struct prdma_wc *wc)
{
	return prdma_cq_poll(cq, BENCH_BURST, wc);
}

__attribute__((noinline)) int
bench_post_tmpl_burst(struct prdma_qp *qp, const struct prdma_wr_tmpl *t,
		      const struct prdma_tmpl_req *req)
{
	uint16_t posted;

	return prdma_post_template_burst(qp, t, req, BENCH_BURST, &posted);
}

__attribute__((noinline)) int
bench_poll_tmpl_burst(struct prdma_cq *cq, struct prdma_wc *wc)
{
	return prdma_cq_poll(cq, BENCH_BURST, wc);
}

__attribute__((noinline)) int
bench_ring_one(struct rte_ring *r, void *obj)
{
	void *out;

	if (rte_ring_enqueue(r, obj) != 0)
		return -1;
	return rte_ring_dequeue(r, &out);
}

__attribute__((noinline)) void
bench_memcpy_one(void *dst, const void *src)
{
	memcpy(dst, src, BENCH_LEN);
	__asm__ volatile("" : : "r"(dst) : "memory");
}

static int
die(const char *what)
{
	fprintf(stderr, "hermon-bench-ipc: %s failed: %s\n", what, rte_strerror(rte_errno));
	return EXIT_FAILURE;
}

static int
connect_qp(struct prdma_qp *qp, const union prdma_gid *gid, uint32_t rqpn)
{
	struct prdma_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE;
	if (prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT |
			    PRDMA_QP_ACCESS_FLAGS) < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = PRDMA_MTU_1024;
	a.dest_qp_num = rqpn;
	a.ah_attr.dgid = *gid;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	if (prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU |
			    PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
			    PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER) < 0)
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

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0], (char *)"--no-huge", (char *)"-m", (char *)"512",
			(char *)"--no-shconf", (char *)"--no-pci", (char *)"--log-level=5" };
	char devargs[2][128];
	struct prdma_dev *dev[2];
	struct prdma_pd *pd[2];
	struct prdma_cq *cq[2];
	struct prdma_qp *qp[2];
	union prdma_gid gid[2];
	struct prdma_qp_init_attr ia;
	struct prdma_cq_init_attr ca;
	struct prdma_send_wr wr, bwr[BENCH_BURST], swr[BENCH_BURST];
	struct prdma_sge sge, bsge[BENCH_BURST];
	struct prdma_wc wc, bwc[BENCH_BURST];
	uint64_t bok = 0, sok = 0, tok = 0, t16ok = 0, tbok = 0;
	struct prdma_tmpl_req treq[BENCH_BURST];
	struct prdma_wr_tmpl *tmpl;
	struct prdma_mr *mr;
	struct rte_ring *ring;
	uint8_t *src, *dst, *tgt;
	uint64_t ok = 0;
	long iters = argc > 1 ? atol(argv[1]) : 2000, i;
	uint64_t rt_sum = 0, rt_min = UINT64_MAX, t0, dt;
	int k, id;

	for (k = 0; k < 2; k++)
		snprintf(devargs[k], sizeof(devargs[k]), "hermon:model,link=bench,side=%d%s", k,
			 argc > 2 ? argv[2] : "");

	if (rte_eal_init(RTE_DIM(eal), eal) < 0)
		return die("rte_eal_init");
	for (k = 0; k < 2; k++) {
		id = prdma_dev_probe(devargs[k]);
		if (id < 0)
			return die("prdma_dev_probe");
		dev[k] = prdma_dev_open((uint16_t)id);
		pd[k] = dev[k] != NULL ? prdma_pd_alloc(dev[k]) : NULL;
		memset(&ca, 0, sizeof(ca));
		ca.cqe = 64;
		cq[k] = pd[k] != NULL ? prdma_cq_create(dev[k], &ca) : NULL;
		if (cq[k] == NULL || prdma_gid_query(dev[k], 1, 0, &gid[k]) < 0)
			return die("device setup");
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = PRDMA_QPT_RC;
		ia.send_cq = cq[k];
		ia.recv_cq = cq[k];
		ia.cap.max_send_wr = 32;
		ia.cap.max_recv_wr = 1;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		ia.cap.max_inline_data = BENCH_LEN;
		qp[k] = prdma_qp_create(pd[k], &ia);
		if (qp[k] == NULL)
			return die("prdma_qp_create");
	}
	for (k = 0; k < 2; k++)
		if (connect_qp(qp[k], &gid[1 - k], qp[1 - k]->qp_num) < 0)
			return die("connect");
	tgt = rte_zmalloc("bench", 4096, 64);
	RTE_BUILD_BUG_ON(BENCH_BURST * BENCH_LEN > 2048);
	src = rte_zmalloc("bench", 4096, 64);
	dst = src + 2048;
	ring = rte_ring_create("bench", 64, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	mr = tgt != NULL ? prdma_mr_reg(pd[1], tgt, 4096, PRDMA_ACCESS_LOCAL_WRITE |
					PRDMA_ACCESS_REMOTE_WRITE) : NULL;
	if (mr == NULL || src == NULL || ring == NULL)
		return die("buffers");
	memset(src, 0x5a, BENCH_LEN);
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)src;
	sge.length = BENCH_LEN;
	sge.lkey = 0;
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.send_flags = PRDMA_SEND_SIGNALED | PRDMA_SEND_INLINE;
	wr.wr.rdma.remote_addr = (uintptr_t)tgt;
	wr.wr.rdma.rkey = mr->rkey;
	/* the burst: the same request to consecutive 64-byte targets */
	for (k = 0; k < BENCH_BURST; k++) {
		bsge[k] = sge;
		bwr[k] = wr;
		bwr[k].wr_id = 2 + (uint64_t)k;
		bwr[k].sg_list = &bsge[k];
		bwr[k].wr.rdma.remote_addr = (uintptr_t)(tgt + 2048 + BENCH_LEN * k);
		swr[k] = bwr[k];
		if (k != BENCH_BURST - 1)
			swr[k].send_flags &= ~PRDMA_SEND_SIGNALED;
	}

	/* the template: the same WRITE, bound to the QP once */
	tmpl = prdma_wr_template_create(qp[0], &wr, 0);
	if (tmpl == NULL)
		return die("prdma_wr_template_create");
	for (k = 0; k < BENCH_BURST; k++) {
		treq[k].data = src;
		treq[k].len = BENCH_LEN;
		treq[k].remote_addr = (uintptr_t)(tgt + 3072 + BENCH_LEN * (k % 16));
		treq[k].wr_id = 2 + (uint64_t)k;
		treq[k].reserved = 0;
	}

	for (i = 0; i < iters; i++) {
		t0 = rte_rdtsc();
		if (bench_post_one(qp[0], &wr) != 0)
			return die("post");
		while (prdma_cq_peek(cq[0]) < 1)
			rte_pause();
		dt = rte_rdtsc() - t0;
		rt_sum += dt;
		rt_min = RTE_MIN(rt_min, dt);
		if (bench_poll_one(cq[0], &wc) == 1 && wc.status == PRDMA_WC_SUCCESS)
			ok++;
		bench_ring_one(ring, &wr);
		bench_memcpy_one(dst, src);
		if (bench_post_burst(qp[0], bwr) != 0)
			return die("post burst");
		while (prdma_cq_peek(cq[0]) < BENCH_BURST)
			rte_pause();
		if (bench_poll_burst(cq[0], bwc) == BENCH_BURST)
			for (k = 0; k < BENCH_BURST; k++)
				bok += bwc[k].status == PRDMA_WC_SUCCESS &&
					bwc[k].wr_id == 2 + (uint64_t)k;
		if (bench_post_burst_sel(qp[0], swr) != 0)
			return die("post burst (last signaled)");
		while (prdma_cq_peek(cq[0]) < 1)
			rte_pause();
		sok += bench_poll_burst_sel(cq[0], bwc) == 1 && bwc[0].status == PRDMA_WC_SUCCESS &&
			bwc[0].wr_id == 1 + BENCH_BURST;
		if (bench_post_tmpl(qp[0], tmpl, src, (uintptr_t)tgt) != 0)
			return die("template post");
		while (prdma_cq_peek(cq[0]) < 1)
			rte_pause();
		tok += bench_poll_tmpl(cq[0], &wc) == 1 && wc.status == PRDMA_WC_SUCCESS &&
			wc.wr_id == 1;
		if (bench_post_tmpl16(qp[0], tmpl, src, (uintptr_t)(tgt + 1024)) != 0)
			return die("template posts");
		while (prdma_cq_peek(cq[0]) < BENCH_BURST)
			rte_pause();
		if (bench_poll_tmpl16(cq[0], bwc) == BENCH_BURST)
			for (k = 0; k < BENCH_BURST; k++)
				t16ok += bwc[k].status == PRDMA_WC_SUCCESS &&
					bwc[k].wr_id == 2 + (uint64_t)k;
		if (bench_post_tmpl_burst(qp[0], tmpl, treq) != 0)
			return die("template burst");
		while (prdma_cq_peek(cq[0]) < BENCH_BURST)
			rte_pause();
		if (bench_poll_tmpl_burst(cq[0], bwc) == BENCH_BURST)
			for (k = 0; k < BENCH_BURST; k++)
				tbok += bwc[k].status == PRDMA_WC_SUCCESS &&
					bwc[k].wr_id == 2 + (uint64_t)k;
	}
	for (k = 0; k < BENCH_BURST; k++)
		if (memcmp(tgt + 1024 + BENCH_LEN * k, src, BENCH_LEN) != 0 ||
		    memcmp(tgt + 3072 + BENCH_LEN * k, src, BENCH_LEN) != 0)
			t16ok = 0;
	for (k = 0; k < BENCH_BURST; k++)
		if (memcmp(tgt + 2048 + BENCH_LEN * k, src, BENCH_LEN) != 0)
			bok = 0;
	printf("iterations %ld completed %" PRIu64 " burst %d completed %" PRIu64
	       " last-signaled bursts completed %" PRIu64 " template posts completed %" PRIu64
	       " template runs completed %" PRIu64 " template bursts completed %" PRIu64
	       " target %s\n", iters, ok, BENCH_BURST, bok, sok, tok, t16ok, tbok,
	       memcmp(tgt, src, BENCH_LEN) == 0 ? "ok" : "WRONG");
	if (iters > 0)
		printf("round trip cycles avg %" PRIu64 " min %" PRIu64 " ns avg %.0f min %.0f\n",
		       rt_sum / (uint64_t)iters, rt_min,
		       (double)rt_sum / (double)iters * 1e9 / (double)rte_get_tsc_hz(),
		       (double)rt_min * 1e9 / (double)rte_get_tsc_hz());
	prdma_wr_template_destroy(tmpl);
	prdma_mr_dereg(mr);
	rte_ring_free(ring);
	for (k = 0; k < 2; k++) {
		prdma_qp_destroy(qp[k]);
		prdma_cq_destroy(cq[k]);
		prdma_pd_free(pd[k]);
		prdma_dev_close(dev[k]);
	}
	rte_free(src);
	rte_free(tgt);
	return ok == (uint64_t)iters && bok == (uint64_t)iters * BENCH_BURST &&
		sok == (uint64_t)iters && tok == (uint64_t)iters &&
		t16ok == (uint64_t)iters * BENCH_BURST &&
		tbok == (uint64_t)iters * BENCH_BURST ?
		EXIT_SUCCESS : EXIT_FAILURE;
}
