/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Object builders, posting, bounded polling and checks. */

#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "conf.h"

void
conf_opts_default(struct conf_qp_opts *o, enum prdma_qp_type type)
{
	memset(o, 0, sizeof(*o));
	o->type = type;
	o->max_send_wr = 64;
	o->max_recv_wr = 64;
	o->max_sge = 4;
	o->max_inline = 64;
	o->access = PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE;
	if (type == PRDMA_QPT_RC)
		o->access |= PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_ATOMIC;
	o->rnr_retry = 7;
	o->min_rnr_timer = 1;           /* 0.01 ms */
	o->retry_cnt = 7;
	o->timeout = 14;                /* about 67 ms */
	o->cq_depth = 256;
}

struct prdma_cq *
conf_cq(struct conf_ctx *ctx, struct conf_dev *d, uint32_t depth, uint32_t flags)
{
	struct prdma_cq_init_attr a;
	struct prdma_cq *cq;

	memset(&a, 0, sizeof(a));
	a.cqe = depth;
	a.flags = flags;
	cq = prdma_cq_create(d->dev, &a);
	if (cq == NULL)
		fail_msg("%s: prdma_cq_create(%u, flags 0x%x): expected a CQ, got NULL "
			 "(%s)", d->attr.name, depth, flags, rte_strerror(rte_errno));
	conf_track(ctx, CONF_OBJ_CQ, cq);
	return cq;
}

struct prdma_qp *
conf_qp(struct conf_ctx *ctx, struct conf_dev *d, struct prdma_pd *pd,
	const struct conf_qp_opts *o, struct prdma_cq *scq, struct prdma_cq *rcq,
	struct prdma_srq *srq)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = o->type;
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.srq = srq;
	ia.sq_sig_all = o->sq_sig_all;
	ia.cap.max_send_wr = RTE_MIN(o->max_send_wr, d->attr.max_qp_wr);
	ia.cap.max_recv_wr = srq != NULL ? 0 : RTE_MIN(o->max_recv_wr, d->attr.max_qp_wr);
	ia.cap.max_send_sge = RTE_MIN(o->max_sge, d->attr.max_send_sge);
	ia.cap.max_recv_sge = srq != NULL ? 0 : RTE_MIN(o->max_sge, d->attr.max_recv_sge);
	ia.cap.max_inline_data = RTE_MIN(o->max_inline, d->attr.max_inline_data);
	qp = prdma_qp_create(pd != NULL ? pd : d->pd, &ia);
	if (qp == NULL)
		fail_msg("%s: prdma_qp_create(type %d, send %u, recv %u): expected a QP, "
			 "got NULL (%s)", d->attr.name, o->type, ia.cap.max_send_wr,
			 ia.cap.max_recv_wr, rte_strerror(rte_errno));
	conf_track(ctx, CONF_OBJ_QP, qp);
	if (ia.cap.max_send_wr < RTE_MIN(o->max_send_wr, d->attr.max_qp_wr))
		fail_msg("%s: QP actual max_send_wr %u below the requested %u",
			 d->attr.name, ia.cap.max_send_wr,
			 RTE_MIN(o->max_send_wr, d->attr.max_qp_wr));
	CONF_EQ("new QP state (query)", PRDMA_QPS_RESET, qp->state);
	return qp;
}

static void
modify_or_fail(struct prdma_qp *qp, const struct prdma_qp_attr *a, uint32_t mask,
	       const char *step)
{
	int ret = prdma_qp_modify(qp, a, mask);

	if (ret != 0)
		fail_msg("QP 0x%x: modify to %s (mask 0x%x): expected 0, got %d (%s)",
			 qp->qp_num, step, mask, ret, rte_strerror(-ret));
}

void
conf_qp_connect(struct prdma_qp *qp, const struct conf_qp_opts *o,
		const union prdma_gid *rgid, uint32_t rqpn, uint32_t rq_psn,
		uint32_t sq_psn)
{
	const struct conf_dev *d = qp->dev == CONF_A->dev ? CONF_A : CONF_B;
	struct prdma_qp_attr a;
	uint32_t mask;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	mask = PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT;
	if (o->type == PRDMA_QPT_UD) {
		a.qkey = CONF_QKEY;
		mask |= PRDMA_QP_QKEY;
	} else {
		a.qp_access_flags = o->access;
		mask |= PRDMA_QP_ACCESS_FLAGS;
	}
	modify_or_fail(qp, &a, mask, "INIT");

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	mask = PRDMA_QP_STATE;
	if (o->type != PRDMA_QPT_UD) {
		a.path_mtu = conf_path_mtu();
		a.dest_qp_num = rqpn;
		a.rq_psn = rq_psn;
		a.ah_attr.dgid = *rgid;
		a.ah_attr.port_num = 1;
		a.ah_attr.sgid_index = 0;
		mask |= PRDMA_QP_AV | PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
			PRDMA_QP_RQ_PSN;
	}
	if (o->type == PRDMA_QPT_RC) {
		a.max_dest_rd_atomic = (uint8_t)RTE_MIN(d->attr.max_qp_rd_atom, 16u);
		a.min_rnr_timer = o->min_rnr_timer;
		mask |= PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER;
	}
	modify_or_fail(qp, &a, mask, "RTR");

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTS;
	a.sq_psn = sq_psn;
	mask = PRDMA_QP_STATE | PRDMA_QP_SQ_PSN;
	if (o->type == PRDMA_QPT_RC) {
		a.timeout = o->timeout;
		a.retry_cnt = o->retry_cnt;
		a.rnr_retry = o->rnr_retry;
		a.max_rd_atomic = (uint8_t)RTE_MIN(d->attr.max_qp_init_rd_atom, 16u);
		mask |= PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
			PRDMA_QP_MAX_QP_RD_ATOMIC;
	}
	modify_or_fail(qp, &a, mask, "RTS");
	conf_check_qp_state(qp, PRDMA_QPS_RTS, "after connect");
}

void
conf_pair_make(struct conf_ctx *ctx, struct conf_pair *p, const struct conf_qp_opts *o)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->o = *o;
	for (i = 0; i < 2; i++) {
		struct conf_side *s = &p->s[i];

		s->d = &conf_devs[i];
		s->pd = o->pd[i] != NULL ? o->pd[i] : s->d->pd;
		s->scq = conf_cq(ctx, s->d, o->cq_depth, o->cq_flags);
		s->rcq = conf_cq(ctx, s->d, o->cq_depth, o->cq_flags);
		s->qp = conf_qp(ctx, s->d, s->pd, o, s->scq, s->rcq, o->srq[i]);
		s->psn = i == 0 ? CONF_PSN_A : CONF_PSN_B;
	}
	for (i = 0; i < 2; i++)
		conf_qp_connect(p->s[i].qp, o, &p->s[1 - i].d->gid, p->s[1 - i].qp->qp_num,
				p->s[1 - i].psn, p->s[i].psn);
}

void
conf_buf_make(struct conf_ctx *ctx, struct conf_buf *b, struct prdma_pd *pd,
	      size_t len, uint32_t access)
{
	memset(b, 0, sizeof(*b));
	b->len = len;
	b->p = rte_zmalloc("conf_buf", len > 0 ? len : 1, 64);
	if (b->p == NULL)
		fail_msg("rte_zmalloc(%zu): out of DPDK memory", len);
	conf_track(ctx, CONF_OBJ_MEM, b->p);
	if (access == 0)
		return;
	b->mr = prdma_mr_reg(pd, b->p, len, access);
	if (b->mr == NULL)
		fail_msg("prdma_mr_reg(%zu bytes, access 0x%x): expected an MR, got NULL "
			 "(%s)", len, access, rte_strerror(rte_errno));
	conf_track(ctx, CONF_OBJ_MR, b->mr);
}

struct prdma_ah *
conf_ah(struct conf_ctx *ctx, struct conf_dev *local, struct prdma_pd *pd,
	const union prdma_gid *dgid)
{
	struct prdma_ah_attr a;
	struct prdma_ah *ah;

	memset(&a, 0, sizeof(a));
	a.dgid = *dgid;
	a.port_num = 1;
	ah = prdma_ah_create(pd != NULL ? pd : local->pd, &a);
	if (ah == NULL)
		fail_msg("%s: prdma_ah_create: expected an AH, got NULL (%s)",
			 local->attr.name, rte_strerror(rte_errno));
	conf_track(ctx, CONF_OBJ_AH, ah);
	return ah;
}

void
conf_wr_init(struct prdma_send_wr *wr, struct prdma_sge *sge, uint64_t wr_id,
	     enum prdma_wr_opcode op, void *addr, uint32_t len, uint32_t lkey)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->opcode = op;
	wr->send_flags = PRDMA_SEND_SIGNALED;
	sge->addr = (uintptr_t)addr;
	sge->length = len;
	sge->lkey = lkey;
	wr->sg_list = sge;
	wr->num_sge = len > 0 ? 1 : 0;
}

void
conf_post_send(struct prdma_qp *qp, const struct prdma_send_wr *wr, const char *what)
{
	const struct prdma_send_wr *bad = NULL;
	int ret = prdma_post_send(qp, wr, &bad);

	if (ret != 0)
		fail_msg("%s: prdma_post_send: expected 0, got %d (%s), bad_wr %s",
			 what, ret, rte_strerror(-ret),
			 bad == wr ? "= first" : bad == NULL ? "NULL" : "later");
}

void
conf_post_recv(struct prdma_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
	       uint32_t lkey, const char *what)
{
	const struct prdma_recv_wr *bad = NULL;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	sge.addr = (uintptr_t)addr;
	sge.length = len;
	sge.lkey = lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = prdma_post_recv(qp, &wr, &bad);
	if (ret != 0)
		fail_msg("%s: prdma_post_recv: expected 0, got %d (%s)", what, ret,
			 rte_strerror(-ret));
}

void
conf_post_srq_recv(struct prdma_srq *srq, uint64_t wr_id, void *addr, uint32_t len,
		   uint32_t lkey, const char *what)
{
	const struct prdma_recv_wr *bad = NULL;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	sge.addr = (uintptr_t)addr;
	sge.length = len;
	sge.lkey = lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = prdma_post_srq_recv(srq, &wr, &bad);
	if (ret != 0)
		fail_msg("%s: prdma_post_srq_recv: expected 0, got %d (%s)", what, ret,
			 rte_strerror(-ret));
}

void
conf_progress(void)
{
	int ret;

	ret = prdma_dev_progress(CONF_A->dev);
	if (ret < 0)
		fail_msg("prdma_dev_progress(A): expected >= 0, got %d", ret);
	ret = prdma_dev_progress(CONF_B->dev);
	if (ret < 0)
		fail_msg("prdma_dev_progress(B): expected >= 0, got %d", ret);
}

uint64_t
conf_ms_to_tsc(uint64_t ms)
{
	return rte_get_tsc_hz() / 1000 * ms;
}

int
conf_poll_one(struct prdma_cq *cq, struct prdma_wc *wc, uint64_t ms)
{
	uint64_t end = rte_get_tsc_cycles() + conf_ms_to_tsc(ms);
	int n;

	for (;;) {
		n = prdma_cq_poll(cq, 1, wc);
		if (n == 1)
			return 1;
		if (n != 0)
			fail_msg("prdma_cq_poll(nb=1): expected 0 or 1, got %d", n);
		if (rte_get_tsc_cycles() > end)
			return 0;
		conf_progress();
	}
}

void
conf_expect_wc(struct prdma_cq *cq, struct prdma_wc *wc, const char *what,
	       uint64_t wr_id, enum prdma_wc_status status, int opcode)
{
	if (!conf_poll_one(cq, wc, CONF_WAIT_MS))
		fail_msg("%s: expected a completion (wr_id %" PRIu64 ", %s) within %d ms, "
			 "got none", what, wr_id, prdma_wc_status_str(status),
			 CONF_WAIT_MS);
	if (wc->status != status)
		fail_msg("%s: expected status \"%s\", got \"%s\" (wr_id %" PRIu64
			 ", vendor_err 0x%x)", what, prdma_wc_status_str(status),
			 prdma_wc_status_str(wc->status), wc->wr_id, wc->vendor_err);
	if (wc->wr_id != wr_id)
		fail_msg("%s: expected wr_id %" PRIu64 ", got %" PRIu64, what, wr_id,
			 wc->wr_id);
	if (opcode >= 0 && status == PRDMA_WC_SUCCESS && (int)wc->opcode != opcode)
		fail_msg("%s: expected opcode %d, got %d", what, opcode, wc->opcode);
}

void
conf_expect_no_wc(struct prdma_cq *cq, uint64_t ms, const char *what)
{
	struct prdma_wc wc;

	if (conf_poll_one(cq, &wc, ms))
		fail_msg("%s: expected no completion within %" PRIu64 " ms, got wr_id %"
			 PRIu64 " status \"%s\" opcode %d", what, ms, wc.wr_id,
			 prdma_wc_status_str(wc.status), wc.opcode);
}

void
conf_spin(uint64_t ms)
{
	uint64_t end = rte_get_tsc_cycles() + conf_ms_to_tsc(ms);

	while (rte_get_tsc_cycles() < end)
		conf_progress();
}

void
conf_check_data(const void *buf, size_t len, uint32_t seed, const char *what)
{
	long off = t_pattern_check(buf, len, seed);

	if (off >= 0)
		fail_msg("%s: data of %zu bytes differs from the pattern at offset %ld "
			 "(got 0x%02x)", what, len, off, ((const uint8_t *)buf)[off]);
}

void
conf_wait_data(const void *buf, size_t len, uint32_t seed, const char *what)
{
	uint64_t end = rte_get_tsc_cycles() + conf_ms_to_tsc(CONF_WAIT_MS);

	while (t_pattern_check(buf, len, seed) >= 0 && rte_get_tsc_cycles() < end)
		conf_progress();
	conf_check_data(buf, len, seed, what);
}

void
conf_check_bytes(const uint8_t *buf, size_t len, uint8_t val, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != val)
			fail_msg("%s: expected byte %zu of %zu to stay 0x%02x, got 0x%02x",
				 what, i, len, val, buf[i]);
}

void
conf_check_rc(int got, int expected, const char *what)
{
	if (got != expected)
		fail_msg("%s: expected %d (%s), got %d (%s)", what, expected,
			 expected < 0 ? rte_strerror(-expected) : "ok", got,
			 got < 0 ? rte_strerror(-got) : "ok");
	if (expected < 0 && rte_errno != -expected)
		fail_msg("%s: expected rte_errno %d (%s), got %d (%s)", what, -expected,
			 rte_strerror(-expected), rte_errno, rte_strerror(rte_errno));
}

void
conf_check_qp_state(struct prdma_qp *qp, enum prdma_qp_state exp, const char *what)
{
	struct prdma_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	ret = prdma_qp_query(qp, &a, NULL);
	if (ret != 0)
		fail_msg("%s: prdma_qp_query: expected 0, got %d", what, ret);
	if (a.qp_state != exp)
		fail_msg("%s: QP 0x%x: expected state %s, got %s", what, qp->qp_num,
			 prdma_qp_state_str(exp), prdma_qp_state_str(a.qp_state));
}
