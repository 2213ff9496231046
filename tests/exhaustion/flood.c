/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include <prdma.h>

#include "flood.h"
#include "roce.h"

#define FL_BUF      (1u << 20)
#define FL_VARIANTS 64
#define FL_FRAME    1100

struct fl_side {
	int id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp;
	uint8_t *buf;
	struct prdma_mr *mr;
	union prdma_gid gid;
};

static struct fl_side fa, fb;
static uint8_t garbage[FL_VARIANTS][FL_FRAME];
static uint16_t garbage_len[FL_VARIANTS];

static int
side_up(struct fl_side *s, const char *args)
{
	struct prdma_cq_init_attr ca;
	struct prdma_qp_init_attr ia;

	s->id = prdma_dev_probe(args);
	if (s->id < 0)
		return s->id;
	s->dev = prdma_dev_open((uint16_t)s->id);
	s->pd = s->dev != NULL ? prdma_pd_alloc(s->dev) : NULL;
	if (s->pd == NULL)
		return -rte_errno;
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 4096;
	s->cq = prdma_cq_create(s->dev, &ca);
	s->buf = rte_zmalloc(NULL, FL_BUF, 4096);
	if (s->cq == NULL || s->buf == NULL)
		return -ENOMEM;
	s->mr = prdma_mr_reg(s->pd, s->buf, FL_BUF, PRDMA_ACCESS_ALL);
	if (s->mr == NULL)
		return -rte_errno;
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.cap.max_send_wr = 256;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	s->qp = prdma_qp_create(s->pd, &ia);
	if (s->qp == NULL)
		return -rte_errno;
	return prdma_gid_query(s->dev, 1, 0, &s->gid);
}

static int
qp_connect(struct fl_side *s, const struct fl_side *peer)
{
	struct prdma_qp_attr qa;
	int ret;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_INIT;
	qa.port_num = 1;
	qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE;
	ret = prdma_qp_modify(s->qp, &qa, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
			      PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS);
	if (ret < 0)
		return ret;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTR;
	qa.path_mtu = PRDMA_MTU_1024;
	qa.dest_qp_num = peer->qp->qp_num;
	qa.max_dest_rd_atomic = 1;
	qa.min_rnr_timer = 1;
	qa.ah_attr.dgid = peer->gid;
	qa.ah_attr.port_num = 1;
	ret = prdma_qp_modify(s->qp, &qa, PRDMA_QP_STATE | PRDMA_QP_AV |
			      PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
			      PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER);
	if (ret < 0)
		return ret;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTS;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 1;
	return prdma_qp_modify(s->qp, &qa, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
			       PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT |
			       PRDMA_QP_RNR_RETRY | PRDMA_QP_MAX_QP_RD_ATOMIC);
}

/*
 * Garbage the target must look at and drop: random bytes; RoCEv2 frames
 * to its address with a bad ICRC; with a good ICRC but an unknown QP or a
 * foreign P_Key (the last two cost a full ICRC check each).
 */
static void
garbage_build(void)
{
	struct roce_dev *b = roce_dev_of(fb.dev);
	unsigned int i, k;
	uint32_t len, crc;
	uint8_t *f, *l3, *bth;

	for (i = 0; i < FL_VARIANTS; i++) {
		f = garbage[i];
		len = 60 + (uint32_t)(rte_rand() % (FL_FRAME - 60));
		len &= ~3u;
		for (k = 0; k < len; k++)
			f[k] = (uint8_t)rte_rand();
		garbage_len[i] = (uint16_t)len;
		if (i % 4 == 0)
			continue;
		memcpy(f, &b->mac, RTE_ETHER_ADDR_LEN);
		roce_put16(f + 12, RTE_ETHER_TYPE_IPV4);
		l3 = f + ROCE_ETH_LEN;
		l3[0] = 0x45;
		roce_put16(l3 + 2, (uint16_t)(len - ROCE_ETH_LEN));
		roce_put16(l3 + 6, 0);
		l3[8] = 64;
		l3[9] = IPPROTO_UDP;
		memcpy(l3 + 16, b->ip, 4);
		roce_put16(l3 + ROCE_IPV4_LEN + 2, ROCE_UDP_PORT);
		roce_put16(l3 + ROCE_IPV4_LEN + 4, (uint16_t)(len - ROCE_ETH_LEN - ROCE_IPV4_LEN));
		bth = l3 + ROCE_IPV4_LEN + ROCE_UDP_LEN;
		bth[0] = ROCE_TR_RC | ROCE_OP_SEND_MIDDLE;
		bth[1] = 0;
		roce_put16(bth + 2, i % 4 == 3 ? 0x1234 : ROCE_DEFAULT_PKEY);
		bth[4] = 0;
		roce_put24(bth + 5, i % 4 == 2 ? 0xfff000u + i : fb.qp->qp_num);
		if (i % 4 == 1)
			continue;    /* random ICRC: almost surely wrong */
		crc = roce_icrc(l3, len - ROCE_ETH_LEN - ROCE_ICRC_LEN, 0);
		crc = rte_cpu_to_le_32(crc);
		memcpy(f + len - ROCE_ICRC_LEN, &crc, 4);
	}
}

int
flood_open(void)
{
	int ret;

	ret = side_up(&fa, "roce:ring=flood,side=0");
	if (ret == 0)
		ret = side_up(&fb, "roce:ring=flood,side=1");
	if (ret == 0)
		ret = qp_connect(&fa, &fb);
	if (ret == 0)
		ret = qp_connect(&fb, &fa);
	if (ret == 0)
		garbage_build();
	return ret;
}

static void
side_down(struct fl_side *s)
{
	struct prdma_wc wc[32];

	if (s->qp != NULL)
		prdma_qp_destroy(s->qp);
	if (s->cq != NULL)
		while (prdma_cq_poll(s->cq, RTE_DIM(wc), wc) > 0)
			;
	if (s->mr != NULL)
		prdma_mr_dereg(s->mr);
	rte_free(s->buf);
	if (s->cq != NULL)
		prdma_cq_destroy(s->cq);
	if (s->pd != NULL)
		prdma_pd_free(s->pd);
	if (s->dev != NULL)
		prdma_dev_close(s->dev);
	if (s->id >= 0)
		prdma_dev_remove((uint16_t)s->id);
	memset(s, 0, sizeof(*s));
}

void
flood_close(void)
{
	side_down(&fa);
	side_down(&fb);
}

static uint64_t
dropped(void)
{
	const struct roce_dev_drops *d = &roce_dev_of(fb.dev)->eng[0].st.drop;

	return d->not_roce + d->malformed + d->bad_opcode + d->bad_icrc + d->wrong_ip +
	       d->unknown_qp + d->bad_pkey;
}

static void
inject(uint32_t n, uint64_t *count)
{
	struct roce_dev *b = roce_dev_of(fb.dev);
	struct rte_mbuf *m;
	uint32_t i, v;

	/* The flood arrives in the target's receive path as frames off the
	 * port would: one engine hold per burst. */
	roce_engine_lock(b);
	b->eng[0].now = rte_rdtsc();
	for (i = 0; i < n; i++) {
		m = rte_pktmbuf_alloc(b->mp);
		if (m == NULL)
			break;
		v = (uint32_t)(*count % FL_VARIANTS);
		memcpy(rte_pktmbuf_mtod(m, void *), garbage[v], garbage_len[v]);
		m->data_len = garbage_len[v];
		m->pkt_len = garbage_len[v];
		roce_engine_rx_frame(&b->eng[0], m);
		rte_pktmbuf_free(m);
		(*count)++;
	}
	roce_engine_unlock(b);
}

static int
post_write(uint32_t msg, uint64_t n)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	uint64_t off = (n * msg) % (FL_BUF - msg);

	sge.addr = (uintptr_t)fa.buf + off;
	sge.length = msg;
	sge.lkey = fa.mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = n;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)fb.buf + off;
	wr.wr.rdma.rkey = fb.mr->rkey;
	return prdma_post_send(fa.qp, &wr, &bad);
}

int
flood_run(double seconds, uint32_t msg, uint32_t depth, uint32_t garbage_per_step,
	  struct flood_result *res)
{
	uint64_t hz = rte_get_tsc_hz(), start, end, posted = 0, done = 0, drop0;
	struct prdma_wc wc[32];
	int n, i;

	memset(res, 0, sizeof(*res));
	if (msg == 0 || msg > FL_BUF / 2 || depth == 0 || depth > 256)
		return -EINVAL;
	for (i = 0; i < (int)FL_BUF; i++)
		fa.buf[i] = (uint8_t)(i * 7 + 3);
	memset(fb.buf, 0, FL_BUF);
	drop0 = dropped();
	start = rte_get_tsc_cycles();
	end = start + (uint64_t)(seconds * (double)hz);
	while (rte_get_tsc_cycles() < end || done < posted) {
		while (posted - done < depth && rte_get_tsc_cycles() < end &&
		       post_write(msg, posted) == 0)
			posted++;
		prdma_dev_progress(fa.dev);
		if (garbage_per_step != 0)
			inject(garbage_per_step, &res->garbage);
		prdma_dev_progress(fb.dev);
		n = prdma_cq_poll(fa.cq, RTE_DIM(wc), wc);
		for (i = 0; i < n; i++) {
			if (wc[i].status == PRDMA_WC_SUCCESS) {
				res->ops++;
				res->bytes += msg;
			} else {
				res->errors++;
			}
		}
		done += (uint64_t)n;
		if (rte_get_tsc_cycles() > end + 5 * hz)
			break;       /* stalled: reported as missing completions */
	}
	res->seconds = (double)(rte_get_tsc_cycles() - start) / (double)hz;
	res->dropped = dropped() - drop0;
	res->errors += posted - done;
	/* Every offset written holds the source bytes. */
	res->data_ok = 1;
	for (i = 0; i < (int)RTE_MIN(posted * msg, (uint64_t)(FL_BUF - msg)); i++)
		if (fb.buf[i] != fa.buf[i]) {
			res->data_ok = 0;
			break;
		}
	return 0;
}
