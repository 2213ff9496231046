/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "app_stats.h"
#include "ex_rdma.h"

static int
ex_fail(const char *what)
{
	int err = rte_errno != 0 ? rte_errno : EIO;

	EX_ERR("%s: %s", what, rte_strerror(err));
	rte_errno = err;                   /* for callers of NULL-returning helpers */
	return -err;
}

/* Teardown goes on past a failed release: what is left goes with the
 * process, and the line says what it was. */
static void
ex_released(int ret, const char *what)
{
	if (ret < 0)
		EX_ERR("%s: %s", what, rte_strerror(rte_errno));
}

int
ex_eal_init(int *argc, char ***argv)
{
	int ret = rte_eal_init(*argc, *argv);

	if (ret < 0) {
		EX_ERR("EAL init: %s", rte_strerror(rte_errno));
		return -1;
	}
	*argc -= ret;
	*argv += ret;
	return 0;
}

int
ex_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || x < min || x > max)
		return -EINVAL;
	*v = x;
	return 0;
}

int
ex_dev_open(struct ex_dev *d, const char *devargs)
{
	struct prdma_port_attr pa;
	int ret;

	memset(d, 0, sizeof(*d));
	d->id = -1;
	ret = prdma_dev_probe(devargs);
	if (ret < 0) {
		EX_ERR("probe %s: %s", devargs, rte_strerror(-ret));
		return ret;
	}
	d->id = ret;
	d->dev = prdma_dev_open((uint16_t)d->id);
	if (d->dev == NULL)
		return ex_fail("device open");
	if (prdma_dev_query(d->dev, &d->attr) < 0)
		return ex_fail("device query");
	if (prdma_port_query(d->dev, 1, &pa) < 0)
		return ex_fail("port query");
	d->mtu_bytes = prdma_mtu_bytes(pa.active_mtu);
	if (prdma_gid_query(d->dev, 1, 0, &d->gid) < 0)
		return ex_fail("GID query");
	d->pd = prdma_pd_alloc(d->dev);
	if (d->pd == NULL)
		return ex_fail("PD alloc");
	return 0;
}

void
ex_dev_close(struct ex_dev *d)
{
	if (d->pd != NULL)
		ex_released(prdma_pd_free(d->pd), "PD free");
	d->pd = NULL;
	if (d->dev != NULL)
		ex_released(prdma_dev_close(d->dev), "device close");
	d->dev = NULL;
	if (d->id >= 0)
		ex_released(prdma_dev_remove((uint16_t)d->id), "device remove");
	d->id = -1;
}

struct prdma_cq *
ex_cq_create(struct ex_dev *d, uint32_t depth)
{
	struct prdma_cq_init_attr ca;
	struct prdma_cq *cq;

	memset(&ca, 0, sizeof(ca));
	ca.cqe = depth;
	cq = prdma_cq_create(d->dev, &ca);
	if (cq == NULL)
		ex_fail("CQ create");
	return cq;
}

struct prdma_qp *
ex_qp_create(struct ex_dev *d, enum prdma_qp_type type, struct prdma_cq *scq,
	     struct prdma_cq *rcq, uint32_t sq_depth, uint32_t rq_depth,
	     uint32_t inline_len)
{
	struct prdma_qp_init_attr qa;
	struct prdma_qp *qp;

	memset(&qa, 0, sizeof(qa));
	qa.qp_type = type;
	qa.send_cq = scq;
	qa.recv_cq = rcq;
	qa.cap.max_send_wr = sq_depth;
	qa.cap.max_recv_wr = rq_depth;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = inline_len;
	qp = prdma_qp_create(d->pd, &qa);
	if (qp == NULL)
		ex_fail("QP create");
	return qp;
}

int
ex_buf_alloc(struct ex_dev *d, struct ex_buf *b, size_t len, uint32_t access)
{
	memset(b, 0, sizeof(*b));
	/* The stack can only reach DPDK memory (hugepages, or --no-huge's). */
	b->p = rte_zmalloc("ex_buf", len, 4096);
	if (b->p == NULL) {
		rte_errno = ENOMEM;
		return ex_fail("buffer allocation");
	}
	b->len = len;
	b->mr = prdma_mr_reg(d->pd, b->p, len, access);
	if (b->mr == NULL)
		return ex_fail("MR registration");
	return 0;
}

void
ex_buf_free(struct ex_buf *b)
{
	if (b->mr != NULL)
		ex_released(prdma_mr_dereg(b->mr), "MR deregistration");
	rte_free(b->p);
	memset(b, 0, sizeof(*b));
}

static uint8_t
ex_path_mtu(uint32_t a, uint32_t b)
{
	uint32_t m = RTE_MIN(a, b);

	if (m >= 4096)
		return PRDMA_MTU_4096;
	if (m >= 2048)
		return PRDMA_MTU_2048;
	return PRDMA_MTU_1024;
}

int
ex_rc_connect(struct prdma_qp *qp, const struct ex_dev *local,
	      const struct ex_dev *peer, uint32_t peer_qpn, uint32_t sq_psn,
	      uint32_t rq_psn)
{
	struct prdma_qp_attr at;

	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_INIT;
	at.port_num = 1;
	at.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE;
	if (prdma_qp_modify(qp, &at, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
			    PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS) < 0)
		return ex_fail("RC QP RESET->INIT");

	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_RTR;
	at.path_mtu = ex_path_mtu(local->mtu_bytes, peer->mtu_bytes);
	at.dest_qp_num = peer_qpn;
	at.rq_psn = rq_psn;
	at.max_dest_rd_atomic = 1;
	at.min_rnr_timer = 1;              /* the peers repost receives at once */
	at.ah_attr.dgid = peer->gid;
	at.ah_attr.hop_limit = 64;
	at.ah_attr.port_num = 1;
	if (prdma_qp_modify(qp, &at, PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU |
			    PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
			    PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER) < 0)
		return ex_fail("RC QP INIT->RTR");

	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_RTS;
	at.sq_psn = sq_psn;
	at.timeout = 14;                   /* 67 ms: a lossless link never waits */
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = 1;
	if (prdma_qp_modify(qp, &at, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN | PRDMA_QP_TIMEOUT |
			    PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
			    PRDMA_QP_MAX_QP_RD_ATOMIC) < 0)
		return ex_fail("RC QP RTR->RTS");
	return 0;
}

int
ex_rc_end_open(struct ex_rc_end *e, const char *devargs, uint32_t sq_depth,
	       uint32_t rq_depth, uint32_t inline_len)
{
	int ret = ex_dev_open(&e->d, devargs);

	if (ret < 0)
		return ret;
	e->scq = ex_cq_create(&e->d, sq_depth);
	e->rcq = ex_cq_create(&e->d, rq_depth);
	if (e->scq == NULL || e->rcq == NULL)
		return -rte_errno;
	e->qp = ex_qp_create(&e->d, PRDMA_QPT_RC, e->scq, e->rcq, sq_depth, rq_depth,
			     inline_len);
	return e->qp == NULL ? -rte_errno : 0;
}

void
ex_rc_end_close(struct ex_rc_end *e, struct ex_buf *const bufs[], unsigned int nb_bufs)
{
	unsigned int i;

	if (e->qp != NULL)
		ex_released(prdma_qp_destroy(e->qp), "QP destroy");
	e->qp = NULL;
	for (i = 0; i < nb_bufs; i++)
		ex_buf_free(bufs[i]);
	if (e->scq != NULL)
		prdma_cq_destroy(e->scq);
	e->scq = NULL;
	if (e->rcq != NULL)
		prdma_cq_destroy(e->rcq);
	e->rcq = NULL;
	ex_dev_close(&e->d);
}

int
ex_rc_connect_pair(struct ex_rc_end *a, struct ex_rc_end *b, uint32_t a_psn, uint32_t b_psn)
{
	int ret = ex_rc_connect(a->qp, &a->d, &b->d, b->qp->qp_num, a_psn, b_psn);

	if (ret == 0)
		ret = ex_rc_connect(b->qp, &b->d, &a->d, a->qp->qp_num, b_psn, a_psn);
	return ret;
}

int
ex_ud_up(struct prdma_qp *qp, uint32_t qkey, uint32_t sq_psn)
{
	struct prdma_qp_attr at;

	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_INIT;
	at.port_num = 1;
	at.qkey = qkey;
	if (prdma_qp_modify(qp, &at, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
			    PRDMA_QP_PORT | PRDMA_QP_QKEY) < 0)
		return ex_fail("UD QP RESET->INIT");
	at.qp_state = PRDMA_QPS_RTR;
	if (prdma_qp_modify(qp, &at, PRDMA_QP_STATE) < 0)
		return ex_fail("UD QP INIT->RTR");
	at.qp_state = PRDMA_QPS_RTS;
	at.sq_psn = sq_psn;
	if (prdma_qp_modify(qp, &at, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN) < 0)
		return ex_fail("UD QP RTR->RTS");
	return 0;
}

int
ex_post_recv(struct prdma_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
	     uint32_t lkey)
{
	struct prdma_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct prdma_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = len ? 1 : 0 };
	const struct prdma_recv_wr *bad;

	return prdma_post_recv(qp, &wr, &bad);
}

void
ex_print_latency(const char *label, uint64_t *tsc, uint32_t n)
{
	struct app_lat l;

	app_lat_summary(tsc, n, 1, &l);
	printf("%s latency us: samples %" PRIu32 " min %.2f p50 %.2f p90 %.2f p99 %.2f "
	       "p99.9 %.2f max %.2f\n", label, l.samples, l.min, l.p50,
	       n ? ex_tsc_to_us(app_percentile(tsc, n, 90.0)) : 0.0, l.p99, l.p999,
	       l.max);
}
