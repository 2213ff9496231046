/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The tools' resources and ping-pong (rdma-core 44 libibverbs/examples):
 * one buffer (size, + 40 for UD's GRH) set to 0x7b, one CQ, the QP(s) in
 * INIT with rx_depth receives posted before the exchange; RTR/RTS with the
 * tools' attributes; the client sends first, and each side sends its next
 * message once its last send and a receive have completed (the "pending"
 * bits), until both have sent and received -n messages.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "pp.h"
#include "pp_run.h"

enum { PP_RECV_WRID = 1, PP_SEND_WRID = 2 };

static int
fail(const char *what)
{
	int err = rte_errno != 0 ? rte_errno : EIO;

	PP_LOG(ERR, "%s failed: %s", what, rte_strerror(err));
	return -err;
}

/* What the tools set their buffer to: 0x7b, but 0 in srq_pingpong. */
static uint8_t
fill_byte(const struct pp_ctx *c)
{
	return c->o->kind == PP_SRQ ? 0 : PP_FILL;
}

static size_t
buf_len(const struct pp_ctx *c)
{
	return c->o->size + (c->o->kind == PP_UD ? PP_GRH_LEN : 0);
}

/* Where the payload sits in the buffer: after the GRH room for UD. */
static uint8_t *
payload(const struct pp_ctx *c)
{
	return c->buf + (c->o->kind == PP_UD ? PP_GRH_LEN : 0);
}

static int
qp_init(struct pp_ctx *c, struct prdma_qp *qp)
{
	struct prdma_qp_attr at;
	uint32_t mask = PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT;

	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_INIT;
	at.port_num = 1;
	if (c->o->kind == PP_UD) {
		at.qkey = PP_UD_QKEY;
		mask |= PRDMA_QP_QKEY;
	} else {
		/* The tools give no remote access: SENDs only. */
		mask |= PRDMA_QP_ACCESS_FLAGS;
	}
	return prdma_qp_modify(qp, &at, mask) < 0 ? fail("QP RESET->INIT") : 0;
}

/* The port once its link is up (--timeout at most): a link that comes up
 * late (memif connecting, a NIC negotiating) would lose the first frames. */
static int
wait_link(const struct pp_ctx *c, struct prdma_port_attr *pa)
{
	uint64_t deadline = rte_rdtsc() + (uint64_t)(c->o->timeout_s * rte_get_tsc_hz());
	int told = 0;

	for (;;) {
		if (prdma_port_query(c->dev, 1, pa) < 0)
			return -1;
		if (pa->state == PRDMA_PORT_ACTIVE || rte_rdtsc() > deadline)
			return 0;
		if (!told++)
			PP_LOG(INFO, "waiting for the link to come up");
		rte_delay_us_sleep(10 * 1000);
	}
}

int
pp_ctx_open(struct pp_ctx *c, const struct pp_opts *o)
{
	struct prdma_qp_init_attr qa;
	struct prdma_cq_init_attr ca;
	struct prdma_srq_init_attr sa;
	struct prdma_port_attr pa;
	uint32_t i;
	int ret;

	memset(c, 0, sizeof(*c));
	c->o = o;
	c->dev_id = -1;
	c->nqp = o->kind == PP_SRQ ? o->num_qp : 1;
	ret = prdma_dev_probe(o->devargs);
	if (ret < 0)
		return fail("device probe");
	c->dev_id = ret;
	c->dev = prdma_dev_open((uint16_t)c->dev_id);
	if (c->dev == NULL || wait_link(c, &pa) < 0)
		return fail("device open");
	c->port_mtu = pa.active_mtu;
	c->lid = pa.lid;
	if (o->kind == PP_UD && o->size > prdma_mtu_bytes(pa.active_mtu)) {
		PP_LOG(ERR, "Requested size larger than port MTU (%u)",
		       prdma_mtu_bytes(pa.active_mtu));
		return -EINVAL;
	}
	c->pd = prdma_pd_alloc(c->dev);
	if (c->pd == NULL)
		return fail("PD alloc");
	c->buf = rte_malloc("pp_buf", buf_len(c), PP_PAGE);
	if (c->buf == NULL) {
		rte_errno = ENOMEM;
		return fail("buffer allocation");
	}
	memset(c->buf, fill_byte(c), buf_len(c));
	c->mr = prdma_mr_reg(c->pd, c->buf, buf_len(c), PRDMA_ACCESS_LOCAL_WRITE);
	if (c->mr == NULL)
		return fail("MR registration");
	memset(&ca, 0, sizeof(ca));
	ca.cqe = o->rx_depth + c->nqp + 1;
	c->cq = prdma_cq_create(c->dev, &ca);
	if (c->cq == NULL)
		return fail("CQ create");
	if (o->kind == PP_SRQ) {
		memset(&sa, 0, sizeof(sa));
		sa.attr.max_wr = o->rx_depth;
		sa.attr.max_sge = 1;
		c->srq = prdma_srq_create(c->pd, &sa);
		if (c->srq == NULL)
			return fail("SRQ create");
	}
	for (i = 0; i < c->nqp; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_type = o->kind == PP_UD ? PRDMA_QPT_UD :
			     (o->kind == PP_UC ? PRDMA_QPT_UC : PRDMA_QPT_RC);
		qa.send_cq = c->cq;
		qa.recv_cq = c->cq;
		qa.srq = c->srq;
		qa.cap.max_send_wr = 1;
		qa.cap.max_recv_wr = o->kind == PP_SRQ ? 0 : o->rx_depth;
		qa.cap.max_send_sge = 1;
		qa.cap.max_recv_sge = 1;
		c->qp[i] = prdma_qp_create(c->pd, &qa);
		if (c->qp[i] == NULL)
			return fail("QP create");
		ret = qp_init(c, c->qp[i]);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* rx_depth - @p have more receives (the tools' pp_post_recv); the count. */
int
pp_post_recv(struct pp_ctx *c, uint32_t n)
{
	const struct prdma_recv_wr *bad;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;
	uint32_t i;

	sge.addr = (uintptr_t)c->buf;
	sge.length = (uint32_t)buf_len(c);
	sge.lkey = c->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = PP_RECV_WRID;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	for (i = 0; i < n; i++) {
		if ((c->srq != NULL ? prdma_post_srq_recv(c->srq, &wr, &bad) :
		     prdma_post_recv(c->qp[0], &wr, &bad)) < 0)
			break;
	}
	return (int)i;
}

void
pp_my_dests(struct pp_ctx *c, struct pp_dest *mine)
{
	uint32_t i;

	for (i = 0; i < c->nqp; i++) {
		memset(&mine[i], 0, sizeof(mine[i]));
		mine[i].lid = c->lid;
		mine[i].qpn = c->qp[i]->qp_num;
		mine[i].psn = (uint32_t)rte_rand() & 0xffffff;
		if (c->o->gidx >= 0 &&
		    prdma_gid_query(c->dev, 1, (uint32_t)c->o->gidx, &mine[i].gid) < 0)
			PP_LOG(WARNING, "no GID at index %d", c->o->gidx);
	}
}

/* The tools' address: global (a GRH) when the peer's GID has an interface
 * id. They ask for hop limit 1; the kernel's RoCE path puts the route's
 * TTL (64) on the wire, so 64 is what the peer sees from them. */
static void
peer_ah(const struct pp_ctx *c, const struct pp_dest *d, struct prdma_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dgid = d->gid;
	ah->dlid = (uint16_t)d->lid;
	ah->sl = c->o->sl;
	ah->sgid_index = (uint8_t)(c->o->gidx >= 0 ? c->o->gidx : 0);
	ah->hop_limit = 64;
	ah->port_num = 1;
	if (c->o->dmac_set) {
		ah->flags = PRDMA_AH_F_DMAC;
		ah->dmac = c->o->dmac;
	}
}

static int
connect_one(struct pp_ctx *c, uint32_t i, const struct pp_dest *me, const struct pp_dest *pd)
{
	const struct pp_opts *o = c->o;
	struct prdma_qp *qp = c->qp[i];
	struct prdma_ah_attr aha;
	struct prdma_qp_attr at;
	uint32_t mask;

	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_RTR;
	if (o->kind == PP_UD) {
		if (prdma_qp_modify(qp, &at, PRDMA_QP_STATE) < 0)
			return fail("QP INIT->RTR");
		at.qp_state = PRDMA_QPS_RTS;
		at.sq_psn = me->psn;
		if (prdma_qp_modify(qp, &at, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN) < 0)
			return fail("QP RTR->RTS");
		peer_ah(c, pd, &aha);
		c->ah = prdma_ah_create(c->pd, &aha);
		return c->ah == NULL ? fail("AH create") : 0;
	}
	at.path_mtu = o->mtu;
	at.dest_qp_num = pd->qpn;
	at.rq_psn = pd->psn;
	at.max_dest_rd_atomic = 1;
	at.min_rnr_timer = 12;
	peer_ah(c, pd, &at.ah_attr);
	mask = PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
	       PRDMA_QP_RQ_PSN;
	if (o->kind != PP_UC)
		mask |= PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER;
	if (prdma_qp_modify(qp, &at, mask) < 0)
		return fail("QP INIT->RTR");
	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_RTS;
	at.sq_psn = me->psn;
	at.timeout = 14;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = 1;
	mask = PRDMA_QP_STATE | PRDMA_QP_SQ_PSN;
	if (o->kind != PP_UC)
		mask |= PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
			PRDMA_QP_MAX_QP_RD_ATOMIC;
	return prdma_qp_modify(qp, &at, mask) < 0 ? fail("QP RTR->RTS") : 0;
}

int
pp_connect(struct pp_ctx *c, const struct pp_dest *mine, const struct pp_dest *peer)
{
	uint32_t i;
	int ret;

	for (i = 0; i < c->nqp; i++) {
		ret = connect_one(c, i, &mine[i], &peer[i]);
		if (ret < 0)
			return ret;
	}
	c->peer_qpn = peer[0].qpn;
	return 0;
}

static int
post_send(struct pp_ctx *c, uint32_t i)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;

	sge.addr = (uintptr_t)payload(c);
	sge.length = c->o->size;
	sge.lkey = c->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = PP_SEND_WRID;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	if (c->o->kind == PP_UD) {
		wr.wr.ud.ah = c->ah;
		wr.wr.ud.remote_qpn = c->peer_qpn;
		wr.wr.ud.remote_qkey = PP_UD_QKEY;
	}
	return prdma_post_send(c->qp[i], &wr, &bad);
}

static int
find_qp(const struct pp_ctx *c, uint32_t qpn)
{
	uint32_t i;

	for (i = 0; i < c->nqp; i++)
		if (c->qp[i]->qp_num == qpn)
			return (int)i;
	return -1;
}

/*
 * With several QPs (srq) a side can reach its counts while the peer still
 * waits for the ACKs of messages posted on other QPs. A device ACKs
 * without being polled; this one progresses from its polls, so it keeps
 * polling until the link is quiet (200 ms, 2 s at most): the peer then
 * completes what it sent. What arrives meanwhile is not counted.
 */
static void
linger(struct pp_ctx *c)
{
	uint64_t hz = rte_get_tsc_hz(), end = rte_rdtsc() + 2 * hz, quiet = rte_rdtsc() + hz / 5;
	struct prdma_wc wc[16];
	uint64_t now;

	do {
		if (prdma_cq_poll(c->cq, RTE_DIM(wc), wc) > 0)
			quiet = rte_rdtsc() + hz / 5;
		prdma_dev_progress(c->dev);
		now = rte_rdtsc();
	} while (now < quiet && now < end);
}

int
pp_run(struct pp_ctx *c, int routs)
{
	const struct pp_opts *o = c->o;
	uint64_t idle_limit = (uint64_t)(o->timeout_s * rte_get_tsc_hz()), last;
	uint32_t rcnt = 0, scnt = 0, i, low = o->kind == PP_SRQ ? c->nqp : 1;
	struct prdma_wc wc[16];
	struct timeval t0, t1;
	int n, k, q;

	/* --chk: the client marks the first byte of each page (the tools'
	 * "i / page_size % sizeof(char)", which is 0). */
	if (o->host != NULL && o->chk)
		for (i = 0; i < o->size; i += PP_PAGE)
			payload(c)[i] = 0;
	for (i = 0; i < c->nqp; i++) {
		c->pending[i] = PP_RECV_WRID;
		if (o->host != NULL) {
			if (post_send(c, i) < 0)
				return fail("post send");
			c->pending[i] |= PP_SEND_WRID;
		}
	}
	gettimeofday(&t0, NULL);
	last = rte_rdtsc();
	while (rcnt < o->iters || scnt < o->iters) {
		n = prdma_cq_poll(c->cq, RTE_DIM(wc), wc);
		if (n < 0)
			return n;
		if (n == 0) {
			if (rte_rdtsc() - last > idle_limit) {
				PP_LOG(ERR, "no completion for %.0f s: %u sent, %u received",
				       o->timeout_s, scnt, rcnt);
				return -ETIMEDOUT;
			}
			continue;
		}
		last = rte_rdtsc();
		for (k = 0; k < n; k++) {
			if (wc[k].status != PRDMA_WC_SUCCESS) {
				PP_LOG(ERR, "Failed status %s (%d) for wr_id %d",
				       prdma_wc_status_str(wc[k].status), wc[k].status,
				       (int)wc[k].wr_id);
				return -EIO;
			}
			q = find_qp(c, wc[k].qp_num);
			if (q < 0) {
				PP_LOG(ERR, "Couldn't find QPN %06x", wc[k].qp_num);
				return -EIO;
			}
			if (wc[k].wr_id == PP_SEND_WRID) {
				scnt++;
			} else if (wc[k].wr_id == PP_RECV_WRID) {
				if (--routs <= (int)low) {
					routs += pp_post_recv(c, o->rx_depth - (uint32_t)routs);
					if (routs < (int)o->rx_depth) {
						PP_LOG(ERR, "Couldn't post receive (%d)", routs);
						return -ENOMEM;
					}
				}
				rcnt++;
			} else {
				PP_LOG(ERR, "Completion for unknown wr_id %d", (int)wc[k].wr_id);
				return -EIO;
			}
			c->pending[q] &= ~(int)wc[k].wr_id;
			if (scnt < o->iters && c->pending[q] == 0) {
				if (post_send(c, (uint32_t)q) < 0)
					return fail("post send");
				c->pending[q] = PP_RECV_WRID | PP_SEND_WRID;
			}
		}
	}
	gettimeofday(&t1, NULL);
	c->usec = (double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_usec - t0.tv_usec);
	linger(c);
	return 0;
}

/*
 * --chk on the server, as the tools: the first byte of every page must be
 * the client's 0. prdma goes further, for a test to rely on: the rest of
 * the last message must be the client's fill (0x7b; 0 for srq), and a bad
 * page is an error.
 */
int
pp_check(const struct pp_ctx *c)
{
	const uint8_t *p = payload(c);
	uint32_t i, bad = 0;

	for (i = 0; i < c->o->size; i++) {
		uint8_t want = i % PP_PAGE == 0 ? 0 : fill_byte(c);

		if (p[i] != want) {
			printf("invalid data in page %u\n", i / PP_PAGE);
			bad++;
			i = (i / PP_PAGE + 1) * PP_PAGE - 1;
		}
	}
	return bad == 0 ? 0 : -EILSEQ;
}

int
pp_ctx_close(struct pp_ctx *c)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; i < c->nqp; i++)
		if (c->qp[i] != NULL && prdma_qp_destroy(c->qp[i]) < 0)
			ret = -EIO;
	if (c->ah != NULL)
		prdma_ah_destroy(c->ah);
	if (c->srq != NULL)
		prdma_srq_destroy(c->srq);
	if (c->cq != NULL)
		prdma_cq_destroy(c->cq);
	if (c->mr != NULL)
		prdma_mr_dereg(c->mr);
	if (c->pd != NULL)
		prdma_pd_free(c->pd);
	rte_free(c->buf);
	if (c->dev != NULL)
		prdma_dev_close(c->dev);
	if (c->dev_id >= 0)
		prdma_dev_remove((uint16_t)c->dev_id);
	memset(c, 0, sizeof(*c));
	c->dev_id = -1;
	return ret;
}
