/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The QP state machine through prdma_qp_modify: legal walks, refused
 * transitions that leave the state alone, posting in RESET, flushing on
 * ERR and on destroy.
 */

#include <string.h>

#include "conf.h"

#define QS_ACCESS (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE)

/* The attributes a transition needs, for a QP of @p type. */
static uint32_t
qs_attr(enum prdma_qp_type type, enum prdma_qp_state cur, enum prdma_qp_state next,
	struct prdma_qp_attr *a)
{
	uint32_t mask = PRDMA_QP_STATE;

	memset(a, 0, sizeof(*a));
	a->qp_state = next;
	if (cur == PRDMA_QPS_RESET && next == PRDMA_QPS_INIT) {
		a->port_num = 1;
		mask |= PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT;
		if (type == PRDMA_QPT_UD) {
			a->qkey = CONF_QKEY;
			mask |= PRDMA_QP_QKEY;
		} else {
			a->qp_access_flags = QS_ACCESS;
			mask |= PRDMA_QP_ACCESS_FLAGS;
		}
	} else if (cur == PRDMA_QPS_INIT && next == PRDMA_QPS_RTR && type != PRDMA_QPT_UD) {
		a->path_mtu = conf_path_mtu();
		a->dest_qp_num = 0x123;
		a->rq_psn = 7;
		a->ah_attr.dgid = CONF_B->gid;
		a->ah_attr.port_num = 1;
		mask |= PRDMA_QP_AV | PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
			PRDMA_QP_RQ_PSN;
		if (type == PRDMA_QPT_RC) {
			a->max_dest_rd_atomic = 1;
			a->min_rnr_timer = 1;
			mask |= PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER;
		}
	} else if (cur == PRDMA_QPS_RTR && next == PRDMA_QPS_RTS) {
		a->sq_psn = 9;
		mask |= PRDMA_QP_SQ_PSN;
		if (type == PRDMA_QPT_RC) {
			a->timeout = 14;
			a->retry_cnt = 7;
			a->rnr_retry = 7;
			a->max_rd_atomic = 1;
			mask |= PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
				PRDMA_QP_MAX_QP_RD_ATOMIC;
		}
	}
	return mask;
}

static void
qs_step(struct prdma_qp *qp, enum prdma_qp_state next, const char *type_name)
{
	enum prdma_qp_state cur = (enum prdma_qp_state)qp->state;
	struct prdma_qp_attr a;
	uint32_t mask = qs_attr((enum prdma_qp_type)qp->qp_type, cur, next, &a);
	char what[96];
	int ret;

	snprintf(what, sizeof(what), "%s QP: %s -> %s", type_name,
		 prdma_qp_state_str(cur), prdma_qp_state_str(next));
	ret = prdma_qp_modify(qp, &a, mask);
	conf_check_rc(ret, 0, what);
	conf_check_qp_state(qp, next, what);
}

static const enum prdma_qp_state qs_walk[] = {
	PRDMA_QPS_RESET, PRDMA_QPS_RESET, PRDMA_QPS_ERR, PRDMA_QPS_RESET,
	PRDMA_QPS_INIT, PRDMA_QPS_INIT, PRDMA_QPS_RESET,
	PRDMA_QPS_INIT, PRDMA_QPS_ERR, PRDMA_QPS_RESET,
	PRDMA_QPS_INIT, PRDMA_QPS_RTR, PRDMA_QPS_RESET,
	PRDMA_QPS_INIT, PRDMA_QPS_RTR, PRDMA_QPS_ERR, PRDMA_QPS_ERR, PRDMA_QPS_RESET,
	PRDMA_QPS_INIT, PRDMA_QPS_RTR, PRDMA_QPS_RTS, PRDMA_QPS_RTS, PRDMA_QPS_SQD,
	PRDMA_QPS_SQD, PRDMA_QPS_RTS, PRDMA_QPS_SQD, PRDMA_QPS_ERR, PRDMA_QPS_RESET,
	PRDMA_QPS_INIT, PRDMA_QPS_RTR, PRDMA_QPS_RTS, PRDMA_QPS_RESET,
	PRDMA_QPS_INIT, PRDMA_QPS_RTR, PRDMA_QPS_RTS, PRDMA_QPS_SQD, PRDMA_QPS_RESET,
	PRDMA_QPS_INIT, PRDMA_QPS_RTR, PRDMA_QPS_RTS, PRDMA_QPS_ERR,
};

static void
test_qp_legal_transitions(void **state)
{
	static const struct {
		enum prdma_qp_type type;
		const char *name;
		uint64_t cap;
	} types[] = {
		{ PRDMA_QPT_RC, "RC", PRDMA_DEV_CAP_RC },
		{ PRDMA_QPT_UC, "UC", PRDMA_DEV_CAP_UC },
		{ PRDMA_QPT_UD, "UD", PRDMA_DEV_CAP_UD },
	};
	struct conf_ctx *ctx = *state;
	struct prdma_cq *cq;
	unsigned int t, i;

	cq = conf_cq(ctx, CONF_A, 64, 0);
	for (t = 0; t < RTE_DIM(types); t++) {
		struct conf_qp_opts o;
		struct prdma_qp *qp;

		if ((CONF_A->attr.flags & types[t].cap) == 0) {
			print_message("note: %s not supported, its walk is skipped\n",
				      types[t].name);
			continue;
		}
		conf_opts_default(&o, types[t].type);
		qp = conf_qp(ctx, CONF_A, NULL, &o, cq, cq, NULL);
		for (i = 1; i < RTE_DIM(qs_walk); i++)
			qs_step(qp, qs_walk[i], types[t].name);
	}
}

struct qs_bad {
	const char *name;
	enum prdma_qp_state from;          /* state to bring the QP to first */
	enum prdma_qp_state to;
	uint32_t add;                      /* extra mask bits */
	uint32_t remove;                   /* required bits left out */
	int bad_value;                     /* 1: path_mtu 9, 2: port 0 */
};

static const struct qs_bad qs_bad[] = {
	{ "RESET -> RTS", PRDMA_QPS_RESET, PRDMA_QPS_RTS, 0, 0, 0 },
	{ "RESET -> RTR", PRDMA_QPS_RESET, PRDMA_QPS_RTR, 0, 0, 0 },
	{ "RESET -> SQD", PRDMA_QPS_RESET, PRDMA_QPS_SQD, 0, 0, 0 },
	{ "INIT -> RTS", PRDMA_QPS_INIT, PRDMA_QPS_RTS, 0, 0, 0 },
	{ "INIT -> SQD", PRDMA_QPS_INIT, PRDMA_QPS_SQD, 0, 0, 0 },
	{ "RTR -> INIT", PRDMA_QPS_RTR, PRDMA_QPS_INIT, 0, 0, 0 },
	{ "RTS -> RTR", PRDMA_QPS_RTS, PRDMA_QPS_RTR, 0, 0, 0 },
	{ "RTS -> INIT", PRDMA_QPS_RTS, PRDMA_QPS_INIT, 0, 0, 0 },
	{ "ERR -> RTS", PRDMA_QPS_ERR, PRDMA_QPS_RTS, 0, 0, 0 },
	{ "ERR -> INIT", PRDMA_QPS_ERR, PRDMA_QPS_INIT, 0, 0, 0 },
	{ "RESET -> INIT without PORT", PRDMA_QPS_RESET, PRDMA_QPS_INIT, 0,
	  PRDMA_QP_PORT, 0 },
	{ "RESET -> INIT without ACCESS_FLAGS", PRDMA_QPS_RESET, PRDMA_QPS_INIT, 0,
	  PRDMA_QP_ACCESS_FLAGS, 0 },
	{ "RESET -> INIT with SQ_PSN (not allowed)", PRDMA_QPS_RESET, PRDMA_QPS_INIT,
	  PRDMA_QP_SQ_PSN, 0, 0 },
	{ "INIT -> RTR without DEST_QPN", PRDMA_QPS_INIT, PRDMA_QPS_RTR, 0,
	  PRDMA_QP_DEST_QPN, 0 },
	{ "INIT -> RTR without MIN_RNR_TIMER", PRDMA_QPS_INIT, PRDMA_QPS_RTR, 0,
	  PRDMA_QP_MIN_RNR_TIMER, 0 },
	{ "INIT -> RTR with SQ_PSN (not allowed)", PRDMA_QPS_INIT, PRDMA_QPS_RTR,
	  PRDMA_QP_SQ_PSN, 0, 0 },
	{ "INIT -> RTR with path_mtu 9", PRDMA_QPS_INIT, PRDMA_QPS_RTR, 0, 0, 1 },
	{ "RTR -> RTS without SQ_PSN", PRDMA_QPS_RTR, PRDMA_QPS_RTS, 0,
	  PRDMA_QP_SQ_PSN, 0 },
	{ "RTR -> RTS without RETRY_CNT", PRDMA_QPS_RTR, PRDMA_QPS_RTS, 0,
	  PRDMA_QP_RETRY_CNT, 0 },
	{ "RTR -> RTS with DEST_QPN (not allowed)", PRDMA_QPS_RTR, PRDMA_QPS_RTS,
	  PRDMA_QP_DEST_QPN, 0, 0 },
	{ "RTS -> SQD with PATH_MTU (not allowed)", PRDMA_QPS_RTS, PRDMA_QPS_SQD,
	  PRDMA_QP_PATH_MTU, 0, 0 },
	{ "RESET -> INIT with port 0", PRDMA_QPS_RESET, PRDMA_QPS_INIT, 0, 0, 2 },
	{ "RTS -> RESET with SQ_PSN (not allowed)", PRDMA_QPS_RTS, PRDMA_QPS_RESET,
	  PRDMA_QP_SQ_PSN, 0, 0 },
};

static const enum prdma_qp_state qs_path[] = {
	PRDMA_QPS_INIT, PRDMA_QPS_RTR, PRDMA_QPS_RTS,
};

static void
test_qp_illegal_transitions(void **state)
{
	struct conf_ctx *ctx = *state;
	struct conf_qp_opts o;
	struct prdma_qp_attr a;
	struct prdma_qp *qp;
	struct prdma_cq *cq;
	unsigned int i, k;
	char what[128];

	conf_opts_default(&o, PRDMA_QPT_RC);
	cq = conf_cq(ctx, CONF_A, 64, 0);
	qp = conf_qp(ctx, CONF_A, NULL, &o, cq, cq, NULL);
	for (i = 0; i < RTE_DIM(qs_bad); i++) {
		const struct qs_bad *b = &qs_bad[i];
		uint32_t mask;

		/* Bring the QP to the starting state through legal steps. */
		qs_step(qp, PRDMA_QPS_RESET, "RC");
		if (b->from == PRDMA_QPS_ERR) {
			qs_step(qp, PRDMA_QPS_ERR, "RC");
		} else {
			for (k = 0; k < RTE_DIM(qs_path) && b->from != PRDMA_QPS_RESET; k++) {
				qs_step(qp, qs_path[k], "RC");
				if (qs_path[k] == b->from)
					break;
			}
		}
		mask = qs_attr(PRDMA_QPT_RC, b->from, b->to, &a);
		mask = (mask | b->add) & ~b->remove;
		if (b->bad_value == 1)
			a.path_mtu = 9;
		if (b->bad_value == 2)
			a.port_num = 0;
		rte_errno = 0;
		snprintf(what, sizeof(what), "illegal modify %s", b->name);
		conf_check_rc(prdma_qp_modify(qp, &a, mask), -EINVAL, what);
		snprintf(what, sizeof(what), "state after the refused %s", b->name);
		conf_check_qp_state(qp, b->from, what);
	}
	/* CUR_STATE that does not match the QP's state. */
	qs_step(qp, PRDMA_QPS_RESET, "RC");
	qs_step(qp, PRDMA_QPS_INIT, "RC");
	qs_step(qp, PRDMA_QPS_RTR, "RC");
	qs_attr(PRDMA_QPT_RC, PRDMA_QPS_RTR, PRDMA_QPS_RTS, &a);
	a.cur_qp_state = PRDMA_QPS_INIT;
	conf_check_rc(prdma_qp_modify(qp, &a, qs_attr(PRDMA_QPT_RC, PRDMA_QPS_RTR,
			PRDMA_QPS_RTS, &a) | PRDMA_QP_CUR_STATE), -EINVAL,
		      "RTR -> RTS with a wrong CUR_STATE");
	conf_check_qp_state(qp, PRDMA_QPS_RTR, "after a wrong CUR_STATE");
}

static void
test_qp_post_in_reset(void **state)
{
	struct conf_ctx *ctx = *state;
	const struct prdma_send_wr *sbad = NULL;
	const struct prdma_recv_wr *rbad = NULL;
	struct prdma_recv_wr rwr;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct conf_qp_opts o;
	struct conf_buf buf;
	struct prdma_qp *qp;
	struct prdma_cq *cq;
	int ret;

	conf_opts_default(&o, PRDMA_QPT_RC);
	cq = conf_cq(ctx, CONF_A, 64, 0);
	qp = conf_qp(ctx, CONF_A, NULL, &o, cq, cq, NULL);
	conf_buf_make(ctx, &buf, CONF_A->pd, 256, QS_ACCESS);
	conf_wr_init(&wr, &sge, 1, PRDMA_WR_SEND, buf.p, 16, buf.mr->lkey);
	ret = prdma_post_send(qp, &wr, &sbad);
	if (ret >= 0)
		fail_msg("post_send in RESET: expected a negative errno, got %d", ret);
	CONF_TRUE("post_send in RESET: bad_wr is the request", sbad == &wr);
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 2;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	ret = prdma_post_recv(qp, &rwr, &rbad);
	if (ret >= 0)
		fail_msg("post_recv in RESET: expected a negative errno, got %d", ret);
	CONF_TRUE("post_recv in RESET: bad_wr is the request", rbad == &rwr);
	conf_expect_no_wc(cq, 1, "CQ after refused posts");
	/* INIT accepts receives (not sends). */
	qs_step(qp, PRDMA_QPS_INIT, "RC");
	conf_check_rc(prdma_post_recv(qp, &rwr, &rbad), 0, "post_recv in INIT");
	ret = prdma_post_send(qp, &wr, &sbad);
	if (ret >= 0)
		fail_msg("post_send in INIT: expected a negative errno, got %d", ret);
}

/*
 * Outstanding work of a QP whose peer never answers: a connected pair where
 * B has no receives and RNR retries forever keeps A's sends pending.
 */
static void
pending_pair(struct conf_ctx *ctx, struct conf_pair *p, struct conf_buf *a)
{
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct conf_qp_opts o;
	unsigned int i;

	conf_opts_default(&o, PRDMA_QPT_RC);
	o.rnr_retry = 7;
	conf_pair_make(ctx, p, &o);
	conf_buf_make(ctx, a, CONF_A->pd, 4096, QS_ACCESS);
	for (i = 0; i < 4; i++)
		conf_post_recv(p->s[0].qp, 100 + i, a->p + 1024, 512, a->mr->lkey,
			       "A's receive");
	for (i = 0; i < 3; i++) {
		conf_wr_init(&wr, &sge, i, PRDMA_WR_SEND, a->p, 64, a->mr->lkey);
		conf_post_send(p->s[0].qp, &wr, "SEND that cannot be received");
	}
	conf_spin(5);
	conf_expect_no_wc(p->s[0].scq, 1, "sends waiting on RNR");
}

static void
expect_flushed(struct prdma_cq *cq, uint64_t first, unsigned int n, const char *what)
{
	struct prdma_wc wc;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!conf_poll_one(cq, &wc, CONF_WAIT_MS))
			fail_msg("%s: expected %u flushed completions, got %u", what, n, i);
		if (wc.status != PRDMA_WC_WR_FLUSH_ERR)
			fail_msg("%s: completion %u: expected \"%s\", got \"%s\"", what, i,
				 prdma_wc_status_str(PRDMA_WC_WR_FLUSH_ERR),
				 prdma_wc_status_str(wc.status));
		CONF_EQ(what, first + i, wc.wr_id);
	}
	conf_expect_no_wc(cq, 1, what);
}

static void
test_qp_modify_err_flushes(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_qp_attr a;
	struct conf_buf buf;
	struct conf_pair p;

	pending_pair(ctx, &p, &buf);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_ERR;
	conf_check_rc(prdma_qp_modify(p.s[0].qp, &a, PRDMA_QP_STATE), 0, "modify to ERR");
	conf_check_qp_state(p.s[0].qp, PRDMA_QPS_ERR, "after modify to ERR");
	expect_flushed(p.s[0].scq, 0, 3, "sends flushed by ERR");
	expect_flushed(p.s[0].rcq, 100, 4, "receives flushed by ERR");
	/* Work posted in ERR is flushed too (or refused). */
	{
		const struct prdma_send_wr *bad;
		struct prdma_send_wr wr;
		struct prdma_sge sge;
		struct prdma_wc wc;
		int ret;

		conf_wr_init(&wr, &sge, 9, PRDMA_WR_SEND, buf.p, 8, buf.mr->lkey);
		ret = prdma_post_send(p.s[0].qp, &wr, &bad);
		if (ret == 0)
			conf_expect_wc(p.s[0].scq, &wc, "send posted in ERR", 9,
				       PRDMA_WC_WR_FLUSH_ERR, -1);
		else if (ret > 0)
			fail_msg("post_send in ERR: expected 0 or a negative errno, got %d",
				 ret);
	}
}

static void
test_qp_destroy_flushes(void **state)
{
	struct conf_ctx *ctx = *state;
	struct conf_buf buf;
	struct conf_pair p;
	struct prdma_wc wc[8];
	int n, i;

	pending_pair(ctx, &p, &buf);
	CONF_EQ("destroy with outstanding work", 0, prdma_qp_destroy(p.s[0].qp));
	conf_forget(ctx, p.s[0].qp);
	/* Flushed before destroy returned: no progress needed. */
	n = prdma_cq_poll(p.s[0].scq, 8, wc);
	CONF_EQ("send completions right after destroy", 3, n);
	for (i = 0; i < n; i++) {
		CONF_EQ("flushed send wr_id", i, wc[i].wr_id);
		if (wc[i].status != PRDMA_WC_WR_FLUSH_ERR)
			fail_msg("flushed send %d: expected \"%s\", got \"%s\"", i,
				 prdma_wc_status_str(PRDMA_WC_WR_FLUSH_ERR),
				 prdma_wc_status_str(wc[i].status));
	}
	n = prdma_cq_poll(p.s[0].rcq, 8, wc);
	CONF_EQ("receive completions right after destroy", 4, n);
	for (i = 0; i < n; i++) {
		CONF_EQ("flushed receive wr_id", 100 + i, wc[i].wr_id);
		CONF_EQ("flushed receive status", PRDMA_WC_WR_FLUSH_ERR, wc[i].status);
	}
}

/* prdma_qp_query returns what the modifies set. */
static void
test_qp_query_attrs(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_qp_init_attr ia;
	const struct conf_dev *d = CONF_A;
	struct prdma_qp_attr a;
	struct conf_qp_opts o;
	struct conf_pair p;
	struct prdma_qp *qp;

	conf_opts_default(&o, PRDMA_QPT_RC);
	o.timeout = 12;
	o.retry_cnt = 5;
	o.rnr_retry = 6;
	o.min_rnr_timer = 3;
	conf_pair_make(ctx, &p, &o);
	qp = p.s[0].qp;
	memset(&a, 0xff, sizeof(a));
	memset(&ia, 0xff, sizeof(ia));
	CONF_EQ("prdma_qp_query", 0, prdma_qp_query(qp, &a, &ia));
	CONF_EQ("qp_state", PRDMA_QPS_RTS, a.qp_state);
	CONF_EQ("path_mtu", conf_path_mtu(), a.path_mtu);
	CONF_EQ("dest_qp_num", p.s[1].qp->qp_num, a.dest_qp_num);
	CONF_EQ("sq_psn of an idle QP", CONF_PSN_A, a.sq_psn);
	CONF_EQ("rq_psn of an idle QP", CONF_PSN_B, a.rq_psn);
	CONF_EQ("port_num", 1, a.port_num);
	CONF_EQ("pkey_index", 0, a.pkey_index);
	CONF_EQ("qp_access_flags", o.access, a.qp_access_flags);
	CONF_EQ("timeout", 12, a.timeout);
	CONF_EQ("retry_cnt", 5, a.retry_cnt);
	CONF_EQ("rnr_retry", 6, a.rnr_retry);
	CONF_EQ("min_rnr_timer", 3, a.min_rnr_timer);
	CONF_EQ("max_rd_atomic", RTE_MIN(d->attr.max_qp_init_rd_atom, 16u),
		a.max_rd_atomic);
	CONF_EQ("max_dest_rd_atomic", RTE_MIN(d->attr.max_qp_rd_atom, 16u),
		a.max_dest_rd_atomic);
	CONF_EQ("ah_attr.port_num", 1, a.ah_attr.port_num);
	if (memcmp(&a.ah_attr.dgid, &CONF_B->gid, sizeof(a.ah_attr.dgid)) != 0)
		fail_msg("ah_attr.dgid: expected the peer's GID");
	CONF_TRUE("cap.max_send_wr >= requested", a.cap.max_send_wr >= o.max_send_wr);
	CONF_TRUE("cap.max_recv_wr >= requested", a.cap.max_recv_wr >= o.max_recv_wr);
	CONF_EQ("init_attr.qp_type", PRDMA_QPT_RC, ia.qp_type);
	CONF_TRUE("init_attr.send_cq", ia.send_cq == p.s[0].scq);
	CONF_TRUE("init_attr.recv_cq", ia.recv_cq == p.s[0].rcq);
	CONF_TRUE("init_attr.srq", ia.srq == NULL);
	CONF_EQ("init_attr.cap.max_send_wr", a.cap.max_send_wr, ia.cap.max_send_wr);

	/* RTS -> RTS changes min_rnr_timer and access flags. */
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTS;
	a.min_rnr_timer = 7;
	a.qp_access_flags = PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_READ;
	conf_check_rc(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_MIN_RNR_TIMER |
				      PRDMA_QP_ACCESS_FLAGS), 0, "RTS -> RTS");
	CONF_EQ("prdma_qp_query", 0, prdma_qp_query(qp, &a, NULL));
	CONF_EQ("min_rnr_timer after RTS -> RTS", 7, a.min_rnr_timer);
	CONF_EQ("qp_access_flags after RTS -> RTS",
		PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_READ, a.qp_access_flags);
	CONF_EQ("state after RTS -> RTS", PRDMA_QPS_RTS, a.qp_state);
	conf_check_rc(prdma_qp_query(qp, NULL, NULL), -EINVAL, "qp_query(NULL, NULL)");
}

/* SQD: drained event, nothing new leaves until RTS again. */
static void
test_qp_sqd(void **state)
{
	struct conf_ctx *ctx = *state;
	const struct prdma_send_wr *bad = NULL;
	struct prdma_async_event ev;
	struct prdma_send_wr wr;
	struct prdma_qp_attr a;
	struct conf_qp_opts o;
	struct prdma_sge sge;
	struct conf_buf buf, rbuf;
	struct conf_pair p;
	struct prdma_wc wc;
	int ret, seen = 0;

	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &buf, CONF_A->pd, 4096, QS_ACCESS);
	conf_buf_make(ctx, &rbuf, CONF_B->pd, 4096, QS_ACCESS);
	conf_post_recv(p.s[1].qp, 1, rbuf.p, 4096, rbuf.mr->lkey, "receive");
	conf_post_recv(p.s[1].qp, 2, rbuf.p, 4096, rbuf.mr->lkey, "receive");
	conf_wr_init(&wr, &sge, 1, PRDMA_WR_SEND, buf.p, 64, buf.mr->lkey);
	conf_post_send(p.s[0].qp, &wr, "SEND before SQD");
	conf_expect_wc(p.s[0].scq, &wc, "SEND before SQD", 1, PRDMA_WC_SUCCESS,
		       PRDMA_WC_SEND);
	conf_expect_wc(p.s[1].rcq, &wc, "first receive", 1, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RECV);
	while (prdma_event_get(CONF_A->dev, &ev) == 1)
		;
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_SQD;
	a.en_sqd_async_notify = 1;
	conf_check_rc(prdma_qp_modify(p.s[0].qp, &a, PRDMA_QP_STATE |
				      PRDMA_QP_EN_SQD_ASYNC_NOTIFY), 0, "RTS -> SQD");
	conf_spin(5);
	while (prdma_event_get(CONF_A->dev, &ev) == 1)
		if (ev.type == PRDMA_EVENT_SQ_DRAINED && ev.element.qp == p.s[0].qp)
			seen = 1;
	if (!seen)
		fail_msg("RTS -> SQD with en_sqd_async_notify: expected "
			 "PRDMA_EVENT_SQ_DRAINED for the QP, got none");
	conf_check_qp_state(p.s[0].qp, PRDMA_QPS_SQD, "after RTS -> SQD");
	wr.wr_id = 2;
	ret = prdma_post_send(p.s[0].qp, &wr, &bad);
	if (ret == 0) {
		conf_expect_no_wc(p.s[0].scq, 20, "SEND posted in SQD");
		conf_expect_no_wc(p.s[1].rcq, 1, "receiver while the sender is in SQD");
	} else if (ret >= 0) {
		fail_msg("post_send in SQD: expected 0 or a negative errno, got %d", ret);
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTS;
	conf_check_rc(prdma_qp_modify(p.s[0].qp, &a, PRDMA_QP_STATE), 0, "SQD -> RTS");
	if (ret != 0)
		conf_post_send(p.s[0].qp, &wr, "SEND after SQD -> RTS");
	conf_expect_wc(p.s[0].scq, &wc, "SEND after SQD -> RTS", 2, PRDMA_WC_SUCCESS,
		       PRDMA_WC_SEND);
	conf_expect_wc(p.s[1].rcq, &wc, "receive after SQD -> RTS", 2, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RECV);
}

int
conf_group_qp_state(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_qp_legal_transitions, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_qp_illegal_transitions,
						conf_test_setup, conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_qp_post_in_reset, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_qp_modify_err_flushes,
						conf_test_setup, conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_qp_destroy_flushes, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_qp_query_attrs, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_qp_sqd, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("qp-state", tests, conf_group_setup,
					   conf_group_teardown);
}
