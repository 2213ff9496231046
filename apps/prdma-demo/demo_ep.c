/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "demo.h"

#define DEMO_CQ_DEPTH 1024
#define DEMO_PSN_A 0x1000
#define DEMO_PSN_B 0x2000

static int
fail(const struct demo_ep *ep, const char *what)
{
	int err = rte_errno != 0 ? rte_errno : EIO;

	DEMO_LOG(ERR, "%s: %s failed: %s", ep->devargs, what, rte_strerror(err));
	return -err;
}

int
demo_ep_open(struct demo_ep *ep, const char *devargs, size_t buf_len)
{
	struct prdma_cq_init_attr cqa;
	struct prdma_qp_init_attr qpa;
	struct prdma_dev_attr da;
	struct prdma_port_attr pa;
	int ret;

	memset(ep, 0, sizeof(*ep));
	ep->dev_id = -1;
	snprintf(ep->devargs, sizeof(ep->devargs), "%s", devargs);
	ret = prdma_dev_probe(devargs);
	if (ret < 0)
		return fail(ep, "probe");
	ep->dev_id = ret;
	ep->dev = prdma_dev_open((uint16_t)ep->dev_id);
	if (ep->dev == NULL)
		return fail(ep, "open");
	if (prdma_dev_query(ep->dev, &da) < 0)
		return fail(ep, "device query");
	if (prdma_port_query(ep->dev, 1, &pa) < 0)
		return fail(ep, "port query");
	if (prdma_gid_query(ep->dev, 1, 0, &ep->gid) < 0)
		return fail(ep, "GID query");
	ep->mac = pa.mac;
	ep->mtu_bytes = prdma_mtu_bytes(pa.active_mtu);
	ep->max_rd_atomic = (uint8_t)RTE_MIN(da.max_qp_init_rd_atom, 16u);
	if (ep->max_rd_atomic == 0)
		ep->max_rd_atomic = 1;
	ep->pd = prdma_pd_alloc(ep->dev);
	if (ep->pd == NULL)
		return fail(ep, "PD alloc");
	memset(&cqa, 0, sizeof(cqa));
	cqa.cqe = DEMO_CQ_DEPTH;
	ep->scq = prdma_cq_create(ep->dev, &cqa);
	if (ep->scq == NULL)
		return fail(ep, "send CQ create");
	ep->rcq = prdma_cq_create(ep->dev, &cqa);
	if (ep->rcq == NULL)
		return fail(ep, "receive CQ create");
	memset(&qpa, 0, sizeof(qpa));
	qpa.qp_type = PRDMA_QPT_RC;
	qpa.send_cq = ep->scq;
	qpa.recv_cq = ep->rcq;
	qpa.cap.max_send_wr = DEMO_SQ_DEPTH;
	qpa.cap.max_recv_wr = DEMO_RQ_DEPTH;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	ep->qp = prdma_qp_create(ep->pd, &qpa);
	if (ep->qp == NULL)
		return fail(ep, "QP create");
	ep->max_send_wr = qpa.cap.max_send_wr;
	ep->max_recv_wr = qpa.cap.max_recv_wr;
	/* DMA-able memory: hugepages, or DPDK's anonymous memory with --no-huge. */
	ep->buf_len = buf_len;
	ep->buf = rte_zmalloc("demo_buf", buf_len, 4096);
	ep->src = rte_zmalloc("demo_src", buf_len, 4096);
	if (ep->buf == NULL || ep->src == NULL) {
		rte_errno = ENOMEM;
		return fail(ep, "buffer allocation");
	}
	ep->buf_mr = prdma_mr_reg(ep->pd, ep->buf, buf_len, PRDMA_ACCESS_LOCAL_WRITE |
				  PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ);
	if (ep->buf_mr == NULL)
		return fail(ep, "MR registration");
	ep->src_mr = prdma_mr_reg(ep->pd, ep->src, buf_len, PRDMA_ACCESS_LOCAL_WRITE |
				  PRDMA_ACCESS_REMOTE_READ);
	if (ep->src_mr == NULL)
		return fail(ep, "MR registration");
	return 0;
}

static int
qp_to_rts(struct demo_ep *ep, const struct demo_ep *peer, uint32_t my_psn,
	  uint32_t peer_psn, int dmac_known)
{
	struct prdma_qp_attr at;
	int ret;

	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_INIT;
	at.pkey_index = 0;
	at.port_num = 1;
	at.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ;
	ret = prdma_qp_modify(ep->qp, &at, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
			      PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS);
	if (ret < 0)
		return fail(ep, "QP RESET->INIT");

	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_RTR;
	at.path_mtu = PRDMA_MTU_1024;
	if (ep->mtu_bytes >= 4096 && peer->mtu_bytes >= 4096)
		at.path_mtu = PRDMA_MTU_4096;
	else if (ep->mtu_bytes >= 2048 && peer->mtu_bytes >= 2048)
		at.path_mtu = PRDMA_MTU_2048;
	at.dest_qp_num = peer->qp->qp_num;
	at.rq_psn = peer_psn;
	at.max_dest_rd_atomic = peer->max_rd_atomic;
	at.min_rnr_timer = 1;           /* 10 us: the poll loop reposts fast */
	at.ah_attr.dgid = peer->gid;
	at.ah_attr.sgid_index = 0;
	at.ah_attr.hop_limit = 64;
	at.ah_attr.port_num = 1;
	if (dmac_known) {
		at.ah_attr.flags = PRDMA_AH_F_DMAC;
		at.ah_attr.dmac = peer->mac;
	}
	ret = prdma_qp_modify(ep->qp, &at, PRDMA_QP_STATE | PRDMA_QP_AV |
			      PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
			      PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER);
	if (ret < 0)
		return fail(ep, "QP INIT->RTR");

	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_RTS;
	at.sq_psn = my_psn;
	at.timeout = 14;                /* 67 ms: a lossless loopback never waits */
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = ep->max_rd_atomic;
	ret = prdma_qp_modify(ep->qp, &at, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
			      PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
			      PRDMA_QP_MAX_QP_RD_ATOMIC);
	if (ret < 0)
		return fail(ep, "QP RTR->RTS");
	return 0;
}

int
demo_ep_connect(struct demo_ep *a, struct demo_ep *b, int dmac_known)
{
	int ret;

	a->peer_addr = (uintptr_t)b->buf;
	a->peer_rkey = b->buf_mr->rkey;
	b->peer_addr = (uintptr_t)a->buf;
	b->peer_rkey = a->buf_mr->rkey;
	ret = qp_to_rts(a, b, DEMO_PSN_A, DEMO_PSN_B, dmac_known);
	if (ret == 0)
		ret = qp_to_rts(b, a, DEMO_PSN_B, DEMO_PSN_A, dmac_known);
	return ret;
}

int
demo_ep_reap(struct demo_ep *ep, uint32_t *outstanding)
{
	struct prdma_wc wc[16];
	int n, i;

	n = prdma_cq_poll(ep->scq, RTE_DIM(wc), wc);
	for (i = 0; i < n; i++) {
		if (wc[i].status != PRDMA_WC_SUCCESS) {
			DEMO_LOG(ERR, "%s: completion wr_id %" PRIu64 ": %s (vendor 0x%x)",
				 ep->devargs, wc[i].wr_id, prdma_wc_status_str(wc[i].status),
				 wc[i].vendor_err);
			return -EIO;
		}
		/* wr_id carries how many requests this completion stands for. */
		*outstanding -= (uint32_t)wc[i].wr_id;
	}
	return n;
}

/* Destroy in reverse order; returns 0 or the first error. */
int
demo_ep_close(struct demo_ep *ep)
{
	int ret, first = 0;

#define DEMO_CLOSE_STEP(cond, call, what) do { \
		if ((cond) && (ret = (call)) < 0) { \
			DEMO_LOG(ERR, "%s: %s: %s", ep->devargs, what, rte_strerror(-ret)); \
			if (first == 0) \
				first = ret; \
		} \
	} while (0)
	DEMO_CLOSE_STEP(ep->qp != NULL, prdma_qp_destroy(ep->qp), "QP destroy");
	DEMO_CLOSE_STEP(ep->buf_mr != NULL, prdma_mr_dereg(ep->buf_mr), "MR dereg");
	DEMO_CLOSE_STEP(ep->src_mr != NULL, prdma_mr_dereg(ep->src_mr), "MR dereg");
	DEMO_CLOSE_STEP(ep->scq != NULL, prdma_cq_destroy(ep->scq), "CQ destroy");
	DEMO_CLOSE_STEP(ep->rcq != NULL, prdma_cq_destroy(ep->rcq), "CQ destroy");
	DEMO_CLOSE_STEP(ep->pd != NULL, prdma_pd_free(ep->pd), "PD free");
	DEMO_CLOSE_STEP(ep->dev != NULL, prdma_dev_close(ep->dev), "device close");
	DEMO_CLOSE_STEP(ep->dev_id >= 0, prdma_dev_remove((uint16_t)ep->dev_id),
			"device remove");
#undef DEMO_CLOSE_STEP
	rte_free(ep->buf);
	rte_free(ep->src);
	memset(ep, 0, sizeof(*ep));
	ep->dev_id = -1;
	return first;
}
