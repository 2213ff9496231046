/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* UD multicast: delivery to every attached QP, detach, the group limits of
 * prdma_dev_query, the attach/detach errors, and the own-send loopback. */

#include <stdlib.h>
#include <string.h>

#include "conf.h"

#define MC_GRH 40
#define MC_BUF 8192
#define MC_QPN 0xffffffu
#define MC_MAX_TESTED 64                   /* larger limits: the total instead */

/* Group @p k in the devices' address family. */
static void
mc_gid(union prdma_gid *g, unsigned int k)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	char s[64];

	if (memcmp(CONF_B->gid.raw, v4mapped, sizeof(v4mapped)) == 0) {
		prdma_gid_from_ipv4(g, 0xef010000u + k);       /* 239.1.x.y */
	} else {
		snprintf(s, sizeof(s), "ff0e::cafe:%x", k);
		CONF_EQ("multicast GID parse", 0, prdma_gid_from_str(g, s));
	}
}

/* A UD QP in RTS with its own send and receive CQs. */
struct mc_qp {
	struct prdma_cq *scq;
	struct prdma_cq *rcq;
	struct prdma_qp *qp;
};

static void
mc_qp_make(struct conf_ctx *ctx, struct conf_dev *d, struct mc_qp *q,
	   struct prdma_cq *shared_cq)
{
	struct conf_qp_opts o;

	conf_opts_default(&o, PRDMA_QPT_UD);
	q->scq = shared_cq != NULL ? shared_cq : conf_cq(ctx, d, o.cq_depth, 0);
	q->rcq = shared_cq != NULL ? shared_cq : conf_cq(ctx, d, o.cq_depth, 0);
	q->qp = conf_qp(ctx, d, NULL, &o, q->scq, q->rcq, NULL);
	conf_qp_connect(q->qp, &o, NULL, 0, 0, 0x300);
}

static void
mc_skip_unless_mcast(const struct conf_dev *d)
{
	if ((d->attr.flags & PRDMA_DEV_CAP_UD_MCAST) == 0 || d->attr.max_mcast_grp == 0) {
		print_message("[ SKIP ] %s: no UD multicast (flag or max_mcast_grp 0)\n",
			      d->attr.name);
		skip();
	}
}

static void
mc_send(struct mc_qp *src, struct prdma_ah *ah, struct conf_buf *a, uint64_t wr_id,
	uint32_t len)
{
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;

	t_pattern_fill(a->p, len, (uint32_t)wr_id);
	conf_wr_init(&wr, &sge, wr_id, PRDMA_WR_SEND, a->p, len, a->mr->lkey);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = MC_QPN;
	wr.wr.ud.remote_qkey = CONF_QKEY;
	conf_post_send(src->qp, &wr, "multicast SEND");
	conf_expect_wc(src->scq, &wc, "multicast SEND", wr_id, PRDMA_WC_SUCCESS,
		       PRDMA_WC_SEND);
}

static void
mc_expect_recv(struct mc_qp *dst, struct mc_qp *src, uint8_t *buf, uint64_t wr_id,
	       uint32_t len, uint32_t seed, const char *what)
{
	struct prdma_wc wc;

	conf_expect_wc(dst->rcq, &wc, what, wr_id, PRDMA_WC_SUCCESS, PRDMA_WC_RECV);
	CONF_EQ(what, MC_GRH + len, wc.byte_len);
	CONF_EQ("multicast receive src_qp", src->qp->qp_num, wc.src_qp);
	CONF_TRUE("multicast receive has a GRH", (wc.wc_flags & PRDMA_WC_GRH) != 0);
	conf_check_data(buf + MC_GRH, len, seed, what);
}

static void
test_mcast_fanout_and_detach(void **state)
{
	struct conf_ctx *ctx = *state;
	struct mc_qp src, dst[2];
	struct conf_buf a, b;
	struct prdma_ah *ah;
	union prdma_gid g;
	unsigned int i;

	mc_skip_unless_mcast(CONF_B);
	mc_gid(&g, 1);
	mc_qp_make(ctx, CONF_A, &src, NULL);
	for (i = 0; i < 2; i++) {
		mc_qp_make(ctx, CONF_B, &dst[i], NULL);
		conf_check_rc(prdma_qp_attach_mcast(dst[i].qp, &g), 0, "attach to the group");
	}
	conf_buf_make(ctx, &a, CONF_A->pd, MC_BUF, PRDMA_ACCESS_LOCAL_WRITE);
	conf_buf_make(ctx, &b, CONF_B->pd, 4 * MC_BUF, PRDMA_ACCESS_LOCAL_WRITE);
	ah = conf_ah(ctx, CONF_A, NULL, &g);

	/* Both members get the datagram, each in its own receive. */
	for (i = 0; i < 2; i++)
		conf_post_recv(dst[i].qp, 10 + i, b.p + i * MC_BUF, MC_BUF, b.mr->lkey,
			       "member receive");
	mc_send(&src, ah, &a, 1, 200);
	mc_expect_recv(&dst[0], &src, b.p, 10, 200, 1, "first member receives");
	mc_expect_recv(&dst[1], &src, b.p + MC_BUF, 11, 200, 1, "second member receives");

	/* After a detach only the member left receives. */
	conf_check_rc(prdma_qp_detach_mcast(dst[0].qp, &g), 0, "detach the first member");
	for (i = 0; i < 2; i++)
		conf_post_recv(dst[i].qp, 20 + i, b.p + (2 + i) * MC_BUF, MC_BUF, b.mr->lkey,
			       "member receive");
	mc_send(&src, ah, &a, 2, 300);
	mc_expect_recv(&dst[1], &src, b.p + 3 * MC_BUF, 21, 300, 2,
		       "remaining member receives");
	conf_expect_no_wc(dst[0].rcq, CONF_QUIET_MS, "detached QP receives nothing");

	/* Nobody left in the group: the datagram is dropped, not delivered. */
	conf_check_rc(prdma_qp_detach_mcast(dst[1].qp, &g), 0, "detach the second member");
	mc_send(&src, ah, &a, 3, 64);
	conf_expect_no_wc(dst[1].rcq, CONF_QUIET_MS, "empty group delivers nothing");
}

static void
test_mcast_errors(void **state)
{
	struct conf_ctx *ctx = *state;
	struct conf_qp_opts o;
	struct prdma_cq *cq;
	struct prdma_qp *rc;
	struct mc_qp ud;
	union prdma_gid g;

	mc_skip_unless_mcast(CONF_B);
	mc_gid(&g, 2);
	mc_qp_make(ctx, CONF_B, &ud, NULL);
	conf_opts_default(&o, PRDMA_QPT_RC);
	cq = conf_cq(ctx, CONF_B, o.cq_depth, 0);
	rc = conf_qp(ctx, CONF_B, NULL, &o, cq, cq, NULL);

	conf_check_rc(prdma_qp_attach_mcast(rc, &g), -EINVAL, "attach an RC QP");
	CONF_EQ("rte_errno after attaching an RC QP", EINVAL, rte_errno);
	conf_check_rc(prdma_qp_attach_mcast(ud.qp, &CONF_B->gid), -EINVAL,
		      "attach to a unicast GID");
	conf_check_rc(prdma_qp_attach_mcast(ud.qp, NULL), -EINVAL, "attach to NULL");
	conf_check_rc(prdma_qp_detach_mcast(ud.qp, &g), -ENOENT, "detach, never attached");
	conf_check_rc(prdma_qp_attach_mcast(ud.qp, &g), 0, "attach");
	conf_check_rc(prdma_qp_attach_mcast(ud.qp, &g), -EEXIST, "attach twice");
	CONF_EQ("rte_errno after attaching twice", EEXIST, rte_errno);
	conf_check_rc(prdma_qp_detach_mcast(ud.qp, &g), 0, "detach");
	conf_check_rc(prdma_qp_detach_mcast(ud.qp, &g), -ENOENT, "detach twice");
	CONF_EQ("rte_errno after detaching twice", ENOENT, rte_errno);
	conf_check_rc(prdma_qp_detach_mcast(rc, &g), -EINVAL, "detach an RC QP");
}

/* Fill one group to max_mcast_qp_attach: the next QP gets -ENOSPC. */
static void
test_mcast_limit_per_group(void **state)
{
	struct conf_ctx *ctx = *state;
	uint32_t max = CONF_B->attr.max_mcast_qp_attach, i;
	struct prdma_qp **qps;
	struct prdma_cq *cq;
	struct mc_qp q;
	union prdma_gid g;

	mc_skip_unless_mcast(CONF_B);
	if (max == 0 || max > MC_MAX_TESTED || max + 2 > CONF_MAX_OBJ) {
		print_message("[ SKIP ] %s: max_mcast_qp_attach %u is more than the %u QPs "
			      "this test creates; the per-device total is tested instead\n",
			      CONF_B->attr.name, max, MC_MAX_TESTED);
		skip();
	}
	qps = calloc(max + 1, sizeof(*qps));
	CONF_TRUE("memory for the QP list", qps != NULL);
	mc_gid(&g, 3);
	cq = conf_cq(ctx, CONF_B, 64, 0);
	for (i = 0; i <= max; i++) {
		mc_qp_make(ctx, CONF_B, &q, cq);
		qps[i] = q.qp;
	}
	for (i = 0; i < max; i++) {
		if (prdma_qp_attach_mcast(qps[i], &g) != 0) {
			free(qps);
			fail_msg("attach QP %u of max_mcast_qp_attach %u: expected 0, got %d",
				 i, max, -rte_errno);
		}
	}
	i = (uint32_t)prdma_qp_attach_mcast(qps[max], &g);
	free(qps);
	CONF_EQ("attach one QP more than max_mcast_qp_attach", -ENOSPC, (int)i);
}

/* max_mcast_grp groups with one QP: the next group gets -ENOSPC; or, where
 * the group limit is large, the per-device total of attachments. */
static void
test_mcast_limit_groups(void **state)
{
	struct conf_ctx *ctx = *state;
	uint32_t grp = CONF_B->attr.max_mcast_grp;
	uint32_t total = CONF_B->attr.max_total_mcast_qp_attach;
	uint32_t limit, i;
	union prdma_gid g;
	struct mc_qp q;
	int ret;

	mc_skip_unless_mcast(CONF_B);
	limit = RTE_MIN(grp, total);
	if (limit > MC_MAX_TESTED * 16) {
		print_message("[ SKIP ] %s: max_mcast_grp %u and max_total_mcast_qp_attach "
			      "%u are both too large to fill in a test\n",
			      CONF_B->attr.name, grp, total);
		skip();
	}
	mc_qp_make(ctx, CONF_B, &q, NULL);
	for (i = 0; i < limit; i++) {
		mc_gid(&g, 0x100 + i);
		ret = prdma_qp_attach_mcast(q.qp, &g);
		if (ret != 0)
			fail_msg("attach to group %u of %u: expected 0, got %d", i, limit, ret);
	}
	mc_gid(&g, 0x100 + limit);
	conf_check_rc(prdma_qp_attach_mcast(q.qp, &g), -ENOSPC,
		      "attach beyond max_mcast_grp / max_total_mcast_qp_attach");
	for (i = 0; i < limit; i++) {
		mc_gid(&g, 0x100 + i);
		ret = prdma_qp_detach_mcast(q.qp, &g);
		if (ret != 0)
			fail_msg("detach from group %u: expected 0, got %d", i, ret);
	}
	/* Everything is free again. */
	conf_check_rc(prdma_qp_attach_mcast(q.qp, &g), 0, "attach after detaching all");
}

/*
 * A device's own send to a group it has members in: delivered to them when
 * the provider loops multicast back (the soft provider's mcast_loop=1, its
 * default), not delivered with mcast_loop=0. The peer receives either way.
 */
static void
test_mcast_loop(void **state)
{
	struct conf_ctx *ctx = *state;
	struct mc_qp src, own, peer;
	struct conf_buf a, b, c;
	struct prdma_ah *ah;
	union prdma_gid g;
	int loop;

	mc_skip_unless_mcast(CONF_A);
	if (strcmp(CONF_A->provider, "roce") != 0) {
		print_message("[ SKIP ] %s: own-send loopback is a soft-provider devarg\n",
			      CONF_A->attr.name);
		skip();
	}
	loop = strstr(CONF_A->devargs, "mcast_loop=0") == NULL;
	mc_gid(&g, 4);
	mc_qp_make(ctx, CONF_A, &src, NULL);
	mc_qp_make(ctx, CONF_A, &own, NULL);
	mc_qp_make(ctx, CONF_B, &peer, NULL);
	conf_check_rc(prdma_qp_attach_mcast(own.qp, &g), 0, "attach a QP of the sender");
	conf_check_rc(prdma_qp_attach_mcast(peer.qp, &g), 0, "attach a QP of the peer");
	conf_buf_make(ctx, &a, CONF_A->pd, MC_BUF, PRDMA_ACCESS_LOCAL_WRITE);
	conf_buf_make(ctx, &b, CONF_A->pd, MC_BUF, PRDMA_ACCESS_LOCAL_WRITE);
	conf_buf_make(ctx, &c, CONF_B->pd, MC_BUF, PRDMA_ACCESS_LOCAL_WRITE);
	ah = conf_ah(ctx, CONF_A, NULL, &g);
	conf_post_recv(own.qp, 1, b.p, MC_BUF, b.mr->lkey, "sender's member receive");
	conf_post_recv(peer.qp, 2, c.p, MC_BUF, c.mr->lkey, "peer's member receive");
	mc_send(&src, ah, &a, 5, 128);
	mc_expect_recv(&peer, &src, c.p, 2, 128, 5, "peer member receives");
	if (loop)
		mc_expect_recv(&own, &src, b.p, 1, 128, 5,
			       "sender's own member receives (mcast_loop=1)");
	else
		conf_expect_no_wc(own.rcq, CONF_QUIET_MS,
				  "sender's own member receives nothing (mcast_loop=0)");
}

int
conf_group_mcast(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mcast_fanout_and_detach,
						conf_test_setup, conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_mcast_errors, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_mcast_limit_per_group, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_mcast_limit_groups, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_mcast_loop, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("mcast", tests, conf_group_setup,
					   conf_group_teardown);
}
