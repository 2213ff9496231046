/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Fuzz the Hermon model's WQE decoder and executor: each input is a send
 * WQE written straight into the send queue of a connected RC QP of a
 * Hermon PMD over its model, announced with the owner bit and the UAR
 * doorbell as the PMD's post_send does, with the peer's MR between
 * canaries. The model must execute or refuse it (an error completion)
 * without touching memory outside the registered buffers; a QP that went
 * to the error state is rebuilt.
 *
 * Input: byte 0 steers: bit 0 clamps the WQE's size field to the slot,
 * bit 1 points every data segment at the local MR (lkey, an address inside
 * it, a length that fits), bit 2 points the remote address segment at the
 * peer's MR (address inside it, its rkey). The rest is the WQE (the owner
 * bit is set by the harness, and every WQE asks for a completion).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_io.h>
#include <rte_malloc.h>

#include <prdma.h>

#include "fz_common.h"
#include "hermon_obj.h"

#define FZ_LEN   (64u * 1024)

struct fz_side {
	int id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct fz_area area;
	struct prdma_mr *mr;
	struct prdma_qp *qp;
	union prdma_gid gid;
};

static struct fz_side sd[2];
/* The PMD's calloc'd state hangs off the devices in DPDK memory, which
 * LeakSanitizer does not scan: these references keep the live devices
 * from being reported as leaks. */
static void *priv_ref[2];
static int ready;
static int verbose;

static void
put32(uint8_t *p, uint32_t v)
{
	v = rte_cpu_to_be_32(v);
	memcpy(p, &v, 4);
}

static void
put64(uint8_t *p, uint64_t v)
{
	v = rte_cpu_to_be_64(v);
	memcpy(p, &v, 8);
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return rte_be_to_cpu_32(v);
}

static void
drain(void)
{
	struct prdma_wc wc[32];
	int i;

	for (i = 0; i < 2; i++)
		while (prdma_cq_poll(sd[i].cq, RTE_DIM(wc), wc) > 0)
			;
}

static void
qps_build(void)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp_attr qa;
	int i;

	for (i = 0; i < 2; i++) {
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = PRDMA_QPT_RC;
		ia.send_cq = sd[i].cq;
		ia.recv_cq = sd[i].cq;
		ia.cap.max_send_wr = 16;
		ia.cap.max_recv_wr = 16;
		ia.cap.max_send_sge = 4;
		ia.cap.max_recv_sge = 1;
		ia.cap.max_inline_data = 64;
		sd[i].qp = prdma_qp_create(sd[i].pd, &ia);
		FZ_CHECK(sd[i].qp != NULL);
	}
	for (i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_INIT;
		qa.port_num = 1;
		qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ |
				     PRDMA_ACCESS_REMOTE_ATOMIC;
		FZ_CHECK(prdma_qp_modify(sd[i].qp, &qa, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS) == 0);
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RTR;
		qa.path_mtu = PRDMA_MTU_1024;
		qa.dest_qp_num = sd[1 - i].qp->qp_num;
		qa.max_dest_rd_atomic = 4;
		qa.min_rnr_timer = 1;
		qa.ah_attr.dgid = sd[1 - i].gid;
		qa.ah_attr.port_num = 1;
		FZ_CHECK(prdma_qp_modify(sd[i].qp, &qa, PRDMA_QP_STATE | PRDMA_QP_AV |
					 PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
					 PRDMA_QP_RQ_PSN | PRDMA_QP_MAX_DEST_RD_ATOMIC |
					 PRDMA_QP_MIN_RNR_TIMER) == 0);
	}
	for (i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RTS;
		qa.timeout = 4;
		qa.retry_cnt = 1;
		qa.rnr_retry = 1;
		qa.max_rd_atomic = 4;
		FZ_CHECK(prdma_qp_modify(sd[i].qp, &qa, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
					 PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT |
					 PRDMA_QP_RNR_RETRY | PRDMA_QP_MAX_QP_RD_ATOMIC) == 0);
	}
}

static void
qps_destroy(void)
{
	int i;

	for (i = 0; i < 2; i++)
		FZ_CHECK(prdma_qp_destroy(sd[i].qp) == 0);
	drain();
}

static void
recv_fill(void)
{
	const struct prdma_recv_wr *bad;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;

	do {
		sge.addr = (uintptr_t)sd[1].area.data;
		sge.length = 4096;
		sge.lkey = sd[1].mr->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
	} while (prdma_post_recv(sd[1].qp, &wr, &bad) == 0);
}

static void
setup(void)
{
	static const char *const args[2] = {
		"hermon:model,link=fzwqe,side=0", "hermon:model,link=fzwqe,side=1" };
	struct prdma_cq_init_attr ca;
	int i;

	fz_eal_init();
	verbose = getenv("FZ_VERBOSE") != NULL;
	for (i = 0; i < 2; i++) {
		sd[i].id = prdma_dev_probe(args[i]);
		FZ_CHECK(sd[i].id >= 0);
		sd[i].dev = prdma_dev_open((uint16_t)sd[i].id);
		FZ_CHECK(sd[i].dev != NULL);
		priv_ref[i] = sd[i].dev->priv;
		sd[i].pd = prdma_pd_alloc(sd[i].dev);
		FZ_CHECK(sd[i].pd != NULL);
		memset(&ca, 0, sizeof(ca));
		ca.cqe = 256;
		sd[i].cq = prdma_cq_create(sd[i].dev, &ca);
		FZ_CHECK(sd[i].cq != NULL);
		fz_area_alloc(&sd[i].area, FZ_LEN);
		sd[i].mr = prdma_mr_reg(sd[i].pd, sd[i].area.data, FZ_LEN, PRDMA_ACCESS_ALL);
		FZ_CHECK(sd[i].mr != NULL);
		FZ_CHECK(prdma_gid_query(sd[i].dev, 1, 0, &sd[i].gid) == 0);
	}
	qps_build();
	recv_fill();
	ready = 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hermon_qp *qp;
	struct prdma_wc wc;
	uint32_t stride, head, len, off, ds, i, op, first;
	uint64_t end;
	uint8_t ctl, *w;
	int got = 0, ok = 0;

	if (!ready)
		setup();
	if (size < 2)
		return 0;
	ctl = data[0];
	data++;
	size--;
	qp = (struct hermon_qp *)sd[0].qp;
	stride = 1u << qp->sq_shift;
	head = qp->sq_head;
	if (head - qp->sq_tail >= qp->sq_cap) {
		qps_destroy();
		qps_build();
		recv_fill();
		qp = (struct hermon_qp *)sd[0].qp;
		head = qp->sq_head;
	}
	w = qp->sq + ((head & qp->sq_mask) << qp->sq_shift);
	len = (uint32_t)RTE_MIN(size, (size_t)stride);
	memset(w + 4, 0, stride - 4);
	if (len > 4)
		memcpy(w + 4, data + 4, len - 4);
	ds = get32(w + 4) & 0x3f;
	if (ctl & RTE_BIT32(0)) {
		ds = RTE_MAX(RTE_MIN(ds, stride / 16), 1u);
		put32(w + 4, (get32(w + 4) & ~0x3fu) | ds);
	}
	if (ctl & RTE_BIT32(2)) {
		put64(w + 16, (uintptr_t)sd[1].area.data + (get32(w + 20) % (FZ_LEN / 2)));
		put32(w + 24, sd[1].mr->rkey);
	}
	/* data segments follow the control segment (SEND), the remote address
	 * (RDMA) or the atomic segment */
	op = len >= 4 ? data[3] & 0x1f : 0;
	first = (op == 0x0a || op == 0x0b || op == 0x01) ? 16 :
		(op == 0x11 || op == 0x12) ? 48 : 32;
	if (ctl & RTE_BIT32(1))
		for (off = first; off + 16 <= RTE_MIN(ds * 16, stride); off += 16) {
			put32(w + off, get32(w + off) % 2048);
			put32(w + off + 4, sd[0].mr->lkey);
			put64(w + off + 8, (uintptr_t)sd[0].area.data +
			      (get32(w + off + 12) % (FZ_LEN / 2)));
		}
	/* every WQE asks for a completion: the PMD's poller follows them */
	put32(w + 8, get32(w + 8) | 3u << 2);
	qp->sq_wrid[head & qp->sq_mask] = head;
	rte_io_wmb(); /* the WQE body before its owner bit, as the PMD does */
	put32(w, (len >= 4 ? get32(data) & 0x7fffffffu : 0) |
	      (((head >> qp->sq_log) & 1) << 31));
	qp->sq_head = head + 1;
	rte_io_wmb(); /* the owner bit before the doorbell */
	rte_write32_relaxed(qp->db_val, qp->uar_db);
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 200;
	while (rte_get_tsc_cycles() < end) {
		if (prdma_cq_poll(sd[0].cq, 1, &wc) == 1) {
			got = 1;
			ok = wc.status == PRDMA_WC_SUCCESS;
			break;
		}
	}
	if (verbose)
		printf("wqe op 0x%02x ds %u: %s\n", w[3], ds,
		       got ? prdma_wc_status_str(wc.status) : "no completion");
	drain();
	FZ_CHECK(fz_area_canary_ok(&sd[0].area) == 0);
	FZ_CHECK(fz_area_canary_ok(&sd[1].area) == 0);
	if (!got || !ok) {
		qps_destroy();
		qps_build();
	}
	recv_fill();
	for (i = 0; i < 2; i++)
		FZ_CHECK(fz_area_canary_ok(&sd[i].area) == 0);
	return 0;
}
