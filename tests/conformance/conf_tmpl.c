/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The contract of work-request templates (prdma_wr_template_create,
 * prdma_post_template, prdma_post_template_burst, prdma_wr_template_destroy): a request validated
 * once, posted with only its data, length, remote address and wr_id, with
 * the errors of prdma_post_send (-EINVAL, -ENOMEM, -EBADMSG and rte_errno),
 * and EINVAL for a template used on another QP, after its destroy or after
 * its QP's. Every provider runs it, natively (Hermon) or through the
 * library's fallback (the soft provider).
 */

#include <string.h>

#include "conf.h"

#define T_ACCESS (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE | \
		  PRDMA_ACCESS_REMOTE_READ)

static struct prdma_wr_tmpl *
tmpl_make(struct conf_ctx *ctx, struct prdma_qp *qp, const struct prdma_send_wr *proto,
	  const char *what)
{
	struct prdma_wr_tmpl *t = prdma_wr_template_create(qp, proto, 0);

	if (t == NULL)
		fail_msg("%s: prdma_wr_template_create failed: %s", what,
			 rte_strerror(rte_errno));
	conf_track(ctx, CONF_OBJ_TMPL, t);
	return t;
}

/* A prototype: @op, one SGE of @max bytes under @lkey, signaled. */
static void
proto_init(struct prdma_send_wr *wr, struct prdma_sge *sge, enum prdma_wr_opcode op,
	   uint32_t max, uint32_t lkey, uint32_t extra_flags)
{
	memset(wr, 0, sizeof(*wr));
	memset(sge, 0, sizeof(*sge));
	sge->length = max;
	sge->lkey = lkey;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = op;
	wr->send_flags = PRDMA_SEND_SIGNALED | extra_flags;
}

/*
 * Inline and gather WRITEs of every length class (0, one chunk, two chunks,
 * the bound), WRITE with immediate, inline SEND and a READ, each from its
 * template: they complete with their wr_id and opcode and the bytes land.
 */
static void
test_tmpl_post(void **state)
{
	static const uint32_t lens[] = { 0, 1, 16, 28, 29, 44, 45, 63, 64 };
	struct conf_ctx *ctx = *state;
	struct prdma_wr_tmpl *wi, *wg, *wimm, *si, *rd;
	struct prdma_send_wr pr;
	struct prdma_sge ps;
	struct conf_qp_opts o;
	struct conf_buf a, b;
	struct conf_pair p;
	struct prdma_wc wc;
	uint64_t id = 1000;
	char what[80];
	uint32_t i, k;

	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, 16384, T_ACCESS);
	conf_buf_make(ctx, &b, CONF_B->pd, 16384, T_ACCESS);
	proto_init(&pr, &ps, PRDMA_WR_RDMA_WRITE, 64, a.mr->lkey, PRDMA_SEND_INLINE);
	pr.wr.rdma.rkey = b.mr->rkey;
	wi = tmpl_make(ctx, p.s[0].qp, &pr, "inline WRITE");
	CONF_EQ("max_len", 64, wi->max_len);
	CONF_TRUE("bound QP", wi->qp == p.s[0].qp);
	pr.send_flags = PRDMA_SEND_SIGNALED;
	ps.length = 4096;
	wg = tmpl_make(ctx, p.s[0].qp, &pr, "gather WRITE");
	for (k = 0; k < 2; k++) {
		for (i = 0; i < RTE_DIM(lens); i++) {
			uint8_t *src = a.p + 128 * i, *dst = b.p + 4096 * k + 128 * i;

			memset(src, 0x40 + i + 16 * k, 128);
			memset(dst, 0, 128);
			snprintf(what, sizeof(what), "%s WRITE of %u bytes",
				 k == 0 ? "inline" : "gather", lens[i]);
			conf_check_rc(prdma_post_template(p.s[0].qp, k == 0 ? wi : wg, src,
							  lens[i], (uintptr_t)dst, id),
				      0, what);
			conf_expect_wc(p.s[0].scq, &wc, what, id, PRDMA_WC_SUCCESS,
				       PRDMA_WC_RDMA_WRITE);
			id++;
			conf_check_bytes(dst, lens[i], 0x40 + i + 16 * k, what);
			conf_check_bytes(dst + lens[i], 128 - lens[i], 0, what);
		}
	}
	/* the gather template's own bound, past what inline takes */
	memset(a.p + 8192, 0x77, 4096);
	conf_check_rc(prdma_post_template(p.s[0].qp, wg, a.p + 8192, 4096,
					  (uintptr_t)(b.p + 8192), id), 0, "gather WRITE of 4096");
	conf_expect_wc(p.s[0].scq, &wc, "gather WRITE of 4096", id++, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RDMA_WRITE);
	conf_check_bytes(b.p + 8192, 4096, 0x77, "gather WRITE of 4096");

	/* WRITE with immediate: the template's immediate reaches the receiver */
	proto_init(&pr, &ps, PRDMA_WR_RDMA_WRITE_WITH_IMM, 32, a.mr->lkey, PRDMA_SEND_INLINE);
	pr.imm_data = 0x12345678;
	pr.wr.rdma.rkey = b.mr->rkey;
	wimm = tmpl_make(ctx, p.s[0].qp, &pr, "WRITE with immediate");
	conf_post_recv(p.s[1].qp, 77, b.p, 16, b.mr->lkey, "receive for the immediate");
	memset(a.p, 0x21, 32);
	conf_check_rc(prdma_post_template(p.s[0].qp, wimm, a.p, 32, (uintptr_t)(b.p + 12288),
					  id), 0, "WRITE with immediate");
	conf_expect_wc(p.s[0].scq, &wc, "WRITE with immediate", id++, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RDMA_WRITE);
	conf_expect_wc(p.s[1].rcq, &wc, "WRITE with immediate, receiver", 77,
		       PRDMA_WC_SUCCESS, PRDMA_WC_RECV_RDMA_WITH_IMM);
	CONF_TRUE("immediate flag", (wc.wc_flags & PRDMA_WC_WITH_IMM) != 0);
	CONF_EQ("immediate", 0x12345678, wc.imm_data);
	conf_check_bytes(b.p + 12288, 32, 0x21, "WRITE with immediate");

	/* inline SEND: remote_addr is ignored */
	proto_init(&pr, &ps, PRDMA_WR_SEND, 60, a.mr->lkey, PRDMA_SEND_INLINE);
	si = tmpl_make(ctx, p.s[0].qp, &pr, "inline SEND");
	for (i = 0; i < 3; i++) {
		uint32_t len = i == 0 ? 0 : i == 1 ? 44 : 60;

		memset(b.p + 256 * i, 0, 256);
		conf_post_recv(p.s[1].qp, 200 + i, b.p + 256 * i, 256, b.mr->lkey, "receive");
		memset(a.p + 256 * i, 0x60 + i, len);
		snprintf(what, sizeof(what), "inline SEND of %u bytes", len);
		conf_check_rc(prdma_post_template(p.s[0].qp, si, a.p + 256 * i, len, 0xdead,
						  id), 0, what);
		conf_expect_wc(p.s[0].scq, &wc, what, id++, PRDMA_WC_SUCCESS, PRDMA_WC_SEND);
		conf_expect_wc(p.s[1].rcq, &wc, what, 200 + i, PRDMA_WC_SUCCESS, PRDMA_WC_RECV);
		CONF_EQ(what, len, wc.byte_len);
		conf_check_bytes(b.p + 256 * i, len, 0x60 + i, what);
	}

	/* READ into the local buffer given per post */
	proto_init(&pr, &ps, PRDMA_WR_RDMA_READ, 256, a.mr->lkey, 0);
	pr.wr.rdma.rkey = b.mr->rkey;
	rd = tmpl_make(ctx, p.s[0].qp, &pr, "READ");
	memset(b.p + 14336, 0x5c, 200);
	memset(a.p + 14336, 0, 256);
	conf_check_rc(prdma_post_template(p.s[0].qp, rd, a.p + 14336, 200,
					  (uintptr_t)(b.p + 14336), id), 0, "READ");
	conf_expect_wc(p.s[0].scq, &wc, "READ", id++, PRDMA_WC_SUCCESS, PRDMA_WC_RDMA_READ);
	conf_check_bytes(a.p + 14336, 200, 0x5c, "READ");
	conf_check_bytes(a.p + 14336 + 200, 56, 0, "READ");
	conf_expect_no_wc(p.s[0].scq, 1, "after the template posts");
}

/* An unsignaled template on a QP that does not signal all: no CQE for it. */
static void
test_tmpl_unsignaled(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_wr_tmpl *t, *ts;
	struct prdma_send_wr pr;
	struct prdma_sge ps;
	struct conf_qp_opts o;
	struct conf_buf a, b;
	struct conf_pair p;
	struct prdma_wc wc;

	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, 4096, T_ACCESS);
	conf_buf_make(ctx, &b, CONF_B->pd, 4096, T_ACCESS);
	proto_init(&pr, &ps, PRDMA_WR_RDMA_WRITE, 64, a.mr->lkey, PRDMA_SEND_INLINE);
	pr.send_flags &= ~PRDMA_SEND_SIGNALED;
	pr.wr.rdma.rkey = b.mr->rkey;
	t = tmpl_make(ctx, p.s[0].qp, &pr, "unsignaled WRITE");
	pr.send_flags |= PRDMA_SEND_SIGNALED;
	ts = tmpl_make(ctx, p.s[0].qp, &pr, "signaled WRITE");
	memset(a.p, 0x3a, 64);
	conf_check_rc(prdma_post_template(p.s[0].qp, t, a.p, 64, (uintptr_t)b.p, 1), 0,
		      "unsignaled WRITE");
	conf_check_rc(prdma_post_template(p.s[0].qp, ts, a.p, 64, (uintptr_t)(b.p + 64), 2),
		      0, "signaled WRITE");
	conf_expect_wc(p.s[0].scq, &wc, "the signaled WRITE only", 2, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RDMA_WRITE);
	conf_expect_no_wc(p.s[0].scq, 1, "the unsignaled WRITE");
	conf_check_bytes(b.p, 128, 0x3a, "both WRITEs");
}

/* A UD SEND template (with its address handle): posted and received. */
static void
test_tmpl_ud(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_wr_tmpl *t;
	struct prdma_send_wr pr;
	struct prdma_sge ps;
	struct conf_qp_opts o;
	struct conf_buf a, b;
	struct conf_pair p;
	struct prdma_wc wc;

	CONF_REQUIRE_CAP(CONF_A, PRDMA_DEV_CAP_UD);
	conf_opts_default(&o, PRDMA_QPT_UD);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, 4096, T_ACCESS);
	conf_buf_make(ctx, &b, CONF_B->pd, 4096, T_ACCESS);
	proto_init(&pr, &ps, PRDMA_WR_SEND, 64, a.mr->lkey, 0);
	pr.wr.ud.ah = conf_ah(ctx, CONF_A, NULL, &CONF_B->gid);
	pr.wr.ud.remote_qpn = p.s[1].qp->qp_num;
	pr.wr.ud.remote_qkey = CONF_QKEY;
	t = tmpl_make(ctx, p.s[0].qp, &pr, "UD SEND");
	conf_post_recv(p.s[1].qp, 9, b.p, 40 + 64, b.mr->lkey, "UD receive");
	memset(a.p, 0x4d, 64);
	conf_check_rc(prdma_post_template(p.s[0].qp, t, a.p, 48, 0, 8), 0, "UD SEND");
	conf_expect_wc(p.s[0].scq, &wc, "UD SEND", 8, PRDMA_WC_SUCCESS, PRDMA_WC_SEND);
	conf_expect_wc(p.s[1].rcq, &wc, "UD SEND, receiver", 9, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RECV);
	CONF_EQ("UD byte_len", 40 + 48, wc.byte_len);
	conf_check_bytes(b.p + 40, 48, 0x4d, "UD SEND");
}

struct tmpl_bad {
	const char *name;
	enum prdma_qp_type type;
	enum prdma_wr_opcode op;
	uint32_t send_flags;
	uint32_t num_sge;
	uint32_t len;                      /* UINT32_MAX: max_inline + 1 */
	bool chain;
	uint32_t flags;
	bool no_ah;                        /* UD without an address handle */
};

static const struct tmpl_bad tmpl_bads[] = {
	{ "a chain", PRDMA_QPT_RC, PRDMA_WR_RDMA_WRITE, 0, 1, 8, true, 0, false },
	{ "no SGE", PRDMA_QPT_RC, PRDMA_WR_RDMA_WRITE, 0, 0, 8, false, 0, false },
	{ "two SGEs", PRDMA_QPT_RC, PRDMA_WR_RDMA_WRITE, 0, 2, 8, false, 0, false },
	{ "create flags", PRDMA_QPT_RC, PRDMA_WR_RDMA_WRITE, 0, 1, 8, false, 1, false },
	{ "an unknown send flag", PRDMA_QPT_RC, PRDMA_WR_RDMA_WRITE, RTE_BIT32(9), 1, 8,
	  false, 0, false },
	{ "compare and swap", PRDMA_QPT_RC, PRDMA_WR_ATOMIC_CMP_AND_SWP, 0, 1, 8, false, 0,
	  false },
	{ "local invalidate", PRDMA_QPT_RC, PRDMA_WR_LOCAL_INV, 0, 1, 8, false, 0, false },
	{ "opcode PRDMA_WR_MAX", PRDMA_QPT_RC, PRDMA_WR_MAX, 0, 1, 8, false, 0, false },
	{ "RDMA_READ on UC", PRDMA_QPT_UC, PRDMA_WR_RDMA_READ, 0, 1, 8, false, 0, false },
	{ "RDMA_WRITE on UD", PRDMA_QPT_UD, PRDMA_WR_RDMA_WRITE, 0, 1, 8, false, 0, false },
	{ "UD SEND without an AH", PRDMA_QPT_UD, PRDMA_WR_SEND, 0, 1, 8, false, 0, true },
	{ "inline READ", PRDMA_QPT_RC, PRDMA_WR_RDMA_READ, PRDMA_SEND_INLINE, 1, 8, false, 0,
	  false },
	{ "inline over max_inline_data", PRDMA_QPT_RC, PRDMA_WR_RDMA_WRITE,
	  PRDMA_SEND_INLINE, 1, UINT32_MAX, false, 0, false },
};

/* Create refuses every request it cannot validate: NULL and EINVAL. */
static void
test_tmpl_create_errors(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr pr, next;
	struct prdma_sge ps[2];
	struct prdma_qp_init_attr ia;
	struct conf_qp_opts o;
	struct prdma_qp *qp;
	struct prdma_cq *cq;
	struct prdma_ah *ah;
	struct conf_buf a;
	char what[96];
	unsigned int i;

	conf_buf_make(ctx, &a, CONF_A->pd, 4096, T_ACCESS);
	cq = conf_cq(ctx, CONF_A, 16, 0);
	ah = conf_ah(ctx, CONF_A, NULL, &CONF_B->gid);
	proto_init(&pr, ps, PRDMA_WR_SEND, 8, a.mr->lkey, 0);
	rte_errno = 0;
	CONF_TRUE("NULL QP", prdma_wr_template_create(NULL, &pr, 0) == NULL);
	CONF_EQ("NULL QP: rte_errno", EINVAL, rte_errno);
	for (i = 0; i < RTE_DIM(tmpl_bads); i++) {
		const struct tmpl_bad *v = &tmpl_bads[i];
		struct prdma_wr_tmpl *t;

		conf_opts_default(&o, v->type);
		qp = conf_qp(ctx, CONF_A, NULL, &o, cq, cq, NULL);
		CONF_EQ("qp_query", 0, prdma_qp_query(qp, NULL, &ia));
		if (i == 0) {
			rte_errno = 0;
			CONF_TRUE("NULL request", prdma_wr_template_create(qp, NULL, 0) == NULL);
			CONF_EQ("NULL request: rte_errno", EINVAL, rte_errno);
		}
		proto_init(&pr, ps, v->op, v->len == UINT32_MAX ? ia.cap.max_inline_data + 1 :
			   v->len, a.mr->lkey, v->send_flags);
		ps[1] = ps[0];
		pr.num_sge = v->num_sge;
		memset(&next, 0, sizeof(next));
		if (v->chain)
			pr.next = &next;
		if (v->type == PRDMA_QPT_UD && !v->no_ah) {
			pr.wr.ud.ah = ah;
			pr.wr.ud.remote_qpn = 0x100;
			pr.wr.ud.remote_qkey = CONF_QKEY;
		}
		snprintf(what, sizeof(what), "template of %s", v->name);
		rte_errno = 0;
		t = prdma_wr_template_create(qp, &pr, v->flags);
		if (t != NULL) {
			prdma_wr_template_destroy(t);
			fail_msg("%s: created", what);
		}
		CONF_EQ(what, EINVAL, rte_errno);
	}
}

/*
 * The post's errors: -EBADMSG before RTS, -ENOMEM on a full ring, -EINVAL
 * for a length past the bound, another QP's template, NULL, a destroyed
 * template and a template whose QP was destroyed; rte_errno each time, and
 * nothing posted.
 */
static void
test_tmpl_post_errors(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_wr_tmpl *t, *t2, *td;
	struct prdma_qp_init_attr ia;
	struct prdma_send_wr pr;
	struct prdma_sge ps;
	struct conf_qp_opts o;
	struct conf_buf a, b;
	struct conf_pair p;
	struct prdma_qp *qp;
	struct prdma_cq *cq;
	struct prdma_wc wc;
	uint32_t cap, i;

	conf_buf_make(ctx, &a, CONF_A->pd, 4096, T_ACCESS);
	cq = conf_cq(ctx, CONF_A, 64, 0);
	conf_opts_default(&o, PRDMA_QPT_RC);
	qp = conf_qp(ctx, CONF_A, NULL, &o, cq, cq, NULL);
	/* a template may be made in RESET; posting then is -EBADMSG */
	proto_init(&pr, &ps, PRDMA_WR_SEND, 32, a.mr->lkey, PRDMA_SEND_INLINE);
	t = tmpl_make(ctx, qp, &pr, "SEND in RESET");
	rte_errno = 0;
	conf_check_rc(prdma_post_template(qp, t, a.p, 8, 0, 1), -EBADMSG,
		      "a template post in RESET");
	CONF_EQ("RESET: rte_errno", EBADMSG, rte_errno);
	conf_expect_no_wc(cq, 1, "a post refused in RESET");

	/* full ring: no receive at B, RNR retried forever, nothing completes */
	o.max_send_wr = 8;
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &b, CONF_B->pd, 4096, T_ACCESS);
	CONF_EQ("qp_query", 0, prdma_qp_query(p.s[0].qp, NULL, &ia));
	cap = ia.cap.max_send_wr;
	t2 = tmpl_make(ctx, p.s[0].qp, &pr, "SEND");
	for (i = 0; i < cap; i++)
		conf_check_rc(prdma_post_template(p.s[0].qp, t2, a.p, 8, 0, 10 + i), 0,
			      "SEND that fits");
	rte_errno = 0;
	conf_check_rc(prdma_post_template(p.s[0].qp, t2, a.p, 8, 0, 99), -ENOMEM,
		      "a template post on a full ring");
	CONF_EQ("full: rte_errno", ENOMEM, rte_errno);

	/* length past the template's bound */
	rte_errno = 0;
	conf_check_rc(prdma_post_template(p.s[0].qp, t2, a.p, 33, 0, 98), -EINVAL,
		      "a post of max_len + 1 bytes");
	CONF_EQ("length: rte_errno", EINVAL, rte_errno);
	/* another QP's template, no template */
	rte_errno = 0;
	conf_check_rc(prdma_post_template(p.s[0].qp, t, a.p, 8, 0, 97), -EINVAL,
		      "another QP's template");
	CONF_EQ("wrong QP: rte_errno", EINVAL, rte_errno);
	rte_errno = 0;
	conf_check_rc(prdma_post_template(p.s[0].qp, NULL, a.p, 8, 0, 96), -EINVAL,
		      "a NULL template");
	CONF_EQ("NULL: rte_errno", EINVAL, rte_errno);
	/* a destroyed template */
	td = prdma_wr_template_create(p.s[0].qp, &pr, 0);
	CONF_TRUE("template to destroy", td != NULL);
	CONF_EQ("template destroy", 0, prdma_wr_template_destroy(td));
	rte_errno = 0;
	conf_check_rc(prdma_post_template(p.s[0].qp, td, a.p, 8, 0, 95), -EINVAL,
		      "a destroyed template");
	CONF_EQ("destroyed: rte_errno", EINVAL, rte_errno);
	rte_errno = 0;
	conf_check_rc(prdma_wr_template_destroy(td), -EINVAL, "destroying it again");
	CONF_EQ("destroyed twice: rte_errno", EINVAL, rte_errno);

	/* the sends that fitted complete once B has receives; no more */
	for (i = 0; i < cap; i++)
		conf_post_recv(p.s[1].qp, i, b.p, 4096, b.mr->lkey, "receive");
	for (i = 0; i < cap; i++)
		conf_expect_wc(p.s[0].scq, &wc, "SEND that fitted", 10 + i, PRDMA_WC_SUCCESS,
			       PRDMA_WC_SEND);
	conf_expect_no_wc(p.s[0].scq, 1, "the posts that failed");

	/* the template of a destroyed QP: unbound, still destroyable */
	CONF_EQ("QP destroy", 0, prdma_qp_destroy(qp));
	conf_forget(ctx, qp);
	CONF_TRUE("unbound", t->qp == NULL);
	rte_errno = 0;
	conf_check_rc(prdma_post_template(qp, t, a.p, 8, 0, 94), -EINVAL,
		      "the template of a destroyed QP, on that QP");
	CONF_EQ("destroyed QP: rte_errno", EINVAL, rte_errno);
	rte_errno = 0;
	conf_check_rc(prdma_post_template(p.s[0].qp, t, a.p, 8, 0, 93), -EINVAL,
		      "the template of a destroyed QP, on another");
	conf_expect_no_wc(cq, 1, "the posts through an unbound template");
	conf_expect_no_wc(p.s[0].scq, 1, "the posts through an unbound template");
	CONF_EQ("destroying an unbound template", 0, prdma_wr_template_destroy(t));
	conf_forget(ctx, t);
}

/*
 * prdma_post_template_burst: sixteen inline WRITEs in one call complete in
 * order and land; nb == 0 posts nothing; a request past max_len stops the
 * burst there (-EINVAL, *posted the ones before it, which complete); more
 * than the ring holds is -ENOMEM at the first that does not fit; before
 * RTS -EBADMSG; another QP's template -EINVAL with nothing posted.
 */
static void
test_tmpl_burst(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_tmpl_req req[64];
	struct prdma_wr_tmpl *t, *ts, *tr;
	struct prdma_qp_init_attr ia;
	struct prdma_send_wr pr;
	struct prdma_sge ps;
	struct conf_qp_opts o;
	struct conf_buf a, b;
	struct conf_pair p, q;
	struct prdma_qp *rqp;
	struct prdma_wc wc;
	uint16_t posted;
	uint32_t k, cap;
	char what[64];

	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_pair_make(ctx, &p, &o);
	conf_buf_make(ctx, &a, CONF_A->pd, 8192, T_ACCESS);
	conf_buf_make(ctx, &b, CONF_B->pd, 8192, T_ACCESS);
	proto_init(&pr, &ps, PRDMA_WR_RDMA_WRITE, 64, a.mr->lkey, PRDMA_SEND_INLINE);
	pr.wr.rdma.rkey = b.mr->rkey;
	t = tmpl_make(ctx, p.s[0].qp, &pr, "inline WRITE");
	for (k = 0; k < 16; k++) {
		memset(a.p + 64 * k, 0x10 + k, 64);
		req[k].data = a.p + 64 * k;
		req[k].len = 1 + (k * 13) % 64;
		req[k].remote_addr = (uintptr_t)(b.p + 128 * k);
		req[k].wr_id = 500 + k;
		req[k].reserved = 0;
	}
	posted = 99;
	CONF_EQ("burst of 0", 0, prdma_post_template_burst(p.s[0].qp, t, req, 0, &posted));
	CONF_EQ("burst of 0: posted", 0, posted);
	conf_expect_no_wc(p.s[0].scq, 1, "a burst of 0");
	conf_check_rc(prdma_post_template_burst(p.s[0].qp, t, req, 16, &posted), 0,
		      "template burst");
	CONF_EQ("posted", 16, posted);
	for (k = 0; k < 16; k++) {
		snprintf(what, sizeof(what), "template burst request %u", k);
		conf_expect_wc(p.s[0].scq, &wc, what, 500 + k, PRDMA_WC_SUCCESS,
			       PRDMA_WC_RDMA_WRITE);
		conf_check_bytes(b.p + 128 * k, req[k].len, 0x10 + k, what);
	}
	/* the third request too long: two posted */
	req[2].len = 65;
	rte_errno = 0;
	conf_check_rc(prdma_post_template_burst(p.s[0].qp, t, req, 4, &posted), -EINVAL,
		      "a burst whose third request is past max_len");
	CONF_EQ("too long: rte_errno", EINVAL, rte_errno);
	CONF_EQ("too long: posted", 2, posted);
	conf_expect_wc(p.s[0].scq, &wc, "first of the stopped burst", 500, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RDMA_WRITE);
	conf_expect_wc(p.s[0].scq, &wc, "second of the stopped burst", 501, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RDMA_WRITE);
	conf_expect_no_wc(p.s[0].scq, 1, "the requests from the too long one on");
	req[2].len = 8;

	/* another QP's template */
	rte_errno = 0;
	posted = 99;
	conf_check_rc(prdma_post_template_burst(p.s[1].qp, t, req, 4, &posted), -EINVAL,
		      "a burst through another QP's template");
	CONF_EQ("wrong QP: rte_errno", EINVAL, rte_errno);
	CONF_EQ("wrong QP: posted", 0, posted);

	/* a full ring: SENDs with no receive at B, RNR retried forever */
	o.max_send_wr = 8;
	conf_pair_make(ctx, &q, &o);
	CONF_EQ("qp_query", 0, prdma_qp_query(q.s[0].qp, NULL, &ia));
	cap = ia.cap.max_send_wr;
	if (cap + 1 > RTE_DIM(req)) {
		print_message("[ SKIP ] send queue of %u is deeper than this test\n", cap);
		skip();
	}
	proto_init(&pr, &ps, PRDMA_WR_SEND, 64, a.mr->lkey, PRDMA_SEND_INLINE);
	ts = tmpl_make(ctx, q.s[0].qp, &pr, "SEND");
	for (k = 0; k <= cap; k++) {
		req[k].data = a.p;
		req[k].len = 8;
		req[k].remote_addr = 0;
		req[k].wr_id = 700 + k;
	}
	rte_errno = 0;
	conf_check_rc(prdma_post_template_burst(q.s[0].qp, ts, req, (uint16_t)(cap + 1),
						&posted), -ENOMEM,
		      "a template burst of max_send_wr + 1");
	CONF_EQ("full: rte_errno", ENOMEM, rte_errno);
	CONF_EQ("full: posted", cap, posted);
	for (k = 0; k < cap; k++)
		conf_post_recv(q.s[1].qp, k, b.p, 4096, b.mr->lkey, "receive");
	for (k = 0; k < cap; k++)
		conf_expect_wc(q.s[0].scq, &wc, "SEND that fitted", 700 + k, PRDMA_WC_SUCCESS,
			       PRDMA_WC_SEND);
	conf_expect_no_wc(q.s[0].scq, 1, "the SEND that did not fit");

	/* before RTS */
	rqp = conf_qp(ctx, CONF_A, NULL, &o, q.s[0].scq, q.s[0].scq, NULL);
	tr = tmpl_make(ctx, rqp, &pr, "SEND in RESET");
	rte_errno = 0;
	conf_check_rc(prdma_post_template_burst(rqp, tr, req, 2, &posted), -EBADMSG,
		      "a template burst in RESET");
	CONF_EQ("RESET: rte_errno", EBADMSG, rte_errno);
	CONF_EQ("RESET: posted", 0, posted);
	conf_expect_no_wc(q.s[0].scq, 1, "a burst refused in RESET");
}

int
conf_group_tmpl(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tmpl_post, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_tmpl_unsignaled, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_tmpl_ud, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_tmpl_create_errors, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_tmpl_post_errors, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_tmpl_burst, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("tmpl", tests, conf_group_setup,
					   conf_group_teardown);
}
