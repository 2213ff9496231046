/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Completion queues: depth, peek, arming and the event fd, resize, busy. */

#include <poll.h>
#include <string.h>

#include <rte_cycles.h>

#include "conf.h"

#define CQ_ACCESS (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE)

/* Is @p fd readable within @p ms, while both devices progress? */
static int
fd_readable(int fd, uint64_t ms)
{
	uint64_t end = rte_get_tsc_cycles() + conf_ms_to_tsc(ms);
	struct pollfd pfd;
	int ret;

	do {
		pfd.fd = fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		ret = poll(&pfd, 1, 0);
		if (ret < 0)
			fail_msg("poll(2) on the CQ event fd failed");
		if (ret == 1 && (pfd.revents & POLLIN))
			return 1;
		conf_progress();
	} while (rte_get_tsc_cycles() < end);
	return 0;
}

struct cq_env {
	struct conf_pair p;
	struct conf_buf a;
	struct conf_buf b;
};

static void
cq_env_make(struct conf_ctx *ctx, struct cq_env *e, uint32_t depth, uint32_t flags)
{
	struct conf_qp_opts o;

	conf_opts_default(&o, PRDMA_QPT_RC);
	o.cq_depth = depth;
	o.cq_flags = flags;
	o.max_send_wr = 16;
	o.max_recv_wr = 16;
	conf_pair_make(ctx, &e->p, &o);
	conf_buf_make(ctx, &e->a, CONF_A->pd, 4096, CQ_ACCESS);
	conf_buf_make(ctx, &e->b, CONF_B->pd, 4096, CQ_ACCESS);
}

/* A posts a SEND (B must have a receive), optionally solicited. */
static void
cq_send(struct cq_env *e, uint64_t wr_id, uint32_t flags)
{
	struct prdma_send_wr wr;
	struct prdma_sge sge;

	conf_wr_init(&wr, &sge, wr_id, PRDMA_WR_SEND, e->a.p, 8, e->a.mr->lkey);
	wr.send_flags |= flags;
	conf_post_send(e->p.s[0].qp, &wr, "SEND");
}

/* Progress until @p cq holds @p n completions (peek), bounded. */
static void
wait_peek(struct prdma_cq *cq, int n, const char *what)
{
	uint64_t end = rte_get_tsc_cycles() + conf_ms_to_tsc(CONF_WAIT_MS);
	int got;

	while ((got = prdma_cq_peek(cq)) < n && rte_get_tsc_cycles() < end)
		conf_progress();
	if (got != n)
		fail_msg("%s: expected prdma_cq_peek = %d, got %d", what, n, got);
}

static void
test_cq_depth(void **state)
{
	static const uint32_t req[] = { 1, 3, 100, 1000 };
	struct conf_ctx *ctx = *state;
	struct prdma_cq_init_attr ia;
	struct prdma_cq *cq = NULL;
	unsigned int i;
	char what[64];

	for (i = 0; i < RTE_DIM(req); i++) {
		if (req[i] > CONF_A->attr.max_cqe)
			continue;
		cq = conf_cq(ctx, CONF_A, req[i], 0);
		snprintf(what, sizeof(what), "CQ of %u: actual depth >= requested", req[i]);
		CONF_TRUE(what, cq->cqe >= req[i]);
		CONF_EQ("event_fd of a CQ without PRDMA_CQ_F_EVENT_FD", -1, cq->event_fd);
	}
	if (cq == NULL)
		cq = conf_cq(ctx, CONF_A, 1, 0);
	conf_check_rc(prdma_cq_event_fd(cq), -ENOTSUP,
		      "prdma_cq_event_fd without PRDMA_CQ_F_EVENT_FD");
	conf_check_rc(prdma_cq_get_event(cq), -ENOTSUP,
		      "prdma_cq_get_event without PRDMA_CQ_F_EVENT_FD");
	memset(&ia, 0, sizeof(ia));
	ia.cqe = CONF_A->attr.max_cqe + 1;
	rte_errno = 0;
	CONF_TRUE("CQ above max_cqe refused", prdma_cq_create(CONF_A->dev, &ia) == NULL);
	CONF_EQ("rte_errno for a CQ above max_cqe", EINVAL, rte_errno);
	ia.cqe = 0;
	rte_errno = 0;
	CONF_TRUE("CQ of depth 0 refused", prdma_cq_create(CONF_A->dev, &ia) == NULL);
	CONF_EQ("rte_errno for a CQ of depth 0", EINVAL, rte_errno);
}

static void
test_cq_peek(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_wc wc[4];
	struct cq_env e;
	unsigned int i;

	cq_env_make(ctx, &e, 16, 0);
	CONF_EQ("peek of an empty CQ", 0, prdma_cq_peek(e.p.s[0].scq));
	for (i = 0; i < 3; i++) {
		conf_post_recv(e.p.s[1].qp, i, e.b.p, 64, e.b.mr->lkey, "receive");
		cq_send(&e, i, 0);
	}
	wait_peek(e.p.s[0].scq, 3, "three sends done");
	CONF_EQ("poll after peek = 3", 3, prdma_cq_poll(e.p.s[0].scq, 4, wc));
	for (i = 0; i < 3; i++) {
		CONF_EQ("polled wr_id (in order)", i, wc[i].wr_id);
		CONF_EQ("polled status", PRDMA_WC_SUCCESS, wc[i].status);
	}
	CONF_EQ("peek after polling everything", 0, prdma_cq_peek(e.p.s[0].scq));
}

static void
test_cq_arm_next(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_wc wc;
	struct cq_env e;
	int fd;

	cq_env_make(ctx, &e, 16, PRDMA_CQ_F_EVENT_FD);
	fd = prdma_cq_event_fd(e.p.s[0].scq);
	CONF_TRUE("prdma_cq_event_fd >= 0", fd >= 0);
	CONF_EQ("prdma_cq_event_fd equals cq->event_fd", e.p.s[0].scq->event_fd, fd);
	CONF_EQ("get_event before anything", 0, prdma_cq_get_event(e.p.s[0].scq));

	conf_check_rc(prdma_cq_arm(e.p.s[0].scq, PRDMA_CQ_ARM_NEXT), 0, "arm NEXT");
	conf_post_recv(e.p.s[1].qp, 1, e.b.p, 64, e.b.mr->lkey, "receive");
	cq_send(&e, 1, 0);
	if (!fd_readable(fd, CONF_WAIT_MS))
		fail_msg("armed CQ (NEXT): expected the event fd readable after a "
			 "completion, it was not within %d ms", CONF_WAIT_MS);
	CONF_TRUE("get_event after firing >= 1", prdma_cq_get_event(e.p.s[0].scq) >= 1);
	CONF_EQ("get_event again", 0, prdma_cq_get_event(e.p.s[0].scq));
	conf_expect_wc(e.p.s[0].scq, &wc, "the completion that fired", 1,
		       PRDMA_WC_SUCCESS, PRDMA_WC_SEND);

	/* Not re-armed: the next completion is silent. */
	conf_post_recv(e.p.s[1].qp, 2, e.b.p, 64, e.b.mr->lkey, "receive");
	cq_send(&e, 2, 0);
	conf_expect_wc(e.p.s[0].scq, &wc, "completion without arming", 2,
		       PRDMA_WC_SUCCESS, PRDMA_WC_SEND);
	if (fd_readable(fd, 1))
		fail_msg("unarmed CQ: expected no notification, the fd became readable");
}

static void
test_cq_arm_solicited(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_cq *rcq;
	struct prdma_wc wc;
	struct cq_env e;
	int fd;

	cq_env_make(ctx, &e, 16, PRDMA_CQ_F_EVENT_FD);
	rcq = e.p.s[1].rcq;
	fd = prdma_cq_event_fd(rcq);
	CONF_TRUE("prdma_cq_event_fd >= 0", fd >= 0);
	conf_check_rc(prdma_cq_arm(rcq, PRDMA_CQ_ARM_SOLICITED), 0, "arm SOLICITED");
	conf_post_recv(e.p.s[1].qp, 1, e.b.p, 64, e.b.mr->lkey, "receive");
	conf_post_recv(e.p.s[1].qp, 2, e.b.p, 64, e.b.mr->lkey, "receive");
	cq_send(&e, 1, 0);
	conf_expect_wc(rcq, &wc, "unsolicited receive", 1, PRDMA_WC_SUCCESS, PRDMA_WC_RECV);
	if (fd_readable(fd, 1))
		fail_msg("CQ armed SOLICITED: expected no notification for an unsolicited "
			 "receive, the fd became readable");
	cq_send(&e, 2, PRDMA_SEND_SOLICITED);
	if (!fd_readable(fd, CONF_WAIT_MS))
		fail_msg("CQ armed SOLICITED: expected a notification for a solicited "
			 "receive, none within %d ms", CONF_WAIT_MS);
	CONF_TRUE("get_event >= 1", prdma_cq_get_event(rcq) >= 1);
	conf_expect_wc(rcq, &wc, "solicited receive", 2, PRDMA_WC_SUCCESS, PRDMA_WC_RECV);
}

static void
test_cq_arm_n(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_cq *scq;
	struct cq_env e;
	unsigned int i;
	int fd;

	cq_env_make(ctx, &e, 16, PRDMA_CQ_F_EVENT_FD);
	scq = e.p.s[0].scq;
	fd = prdma_cq_event_fd(scq);
	conf_check_rc(prdma_cq_arm_n(scq, 0), -EINVAL, "arm_n(0)");
	conf_check_rc(prdma_cq_arm_n(scq, scq->cqe + 1), -EINVAL, "arm_n(cqe + 1)");
	conf_check_rc(prdma_cq_arm_n(scq, 3), 0, "arm_n(3)");
	for (i = 0; i < 2; i++) {
		conf_post_recv(e.p.s[1].qp, i, e.b.p, 64, e.b.mr->lkey, "receive");
		cq_send(&e, i, 0);
	}
	wait_peek(scq, 2, "two completions");
	if (fd_readable(fd, 1))
		fail_msg("arm_n(3): expected no notification after 2 completions, got one");
	conf_post_recv(e.p.s[1].qp, 2, e.b.p, 64, e.b.mr->lkey, "receive");
	cq_send(&e, 2, 0);
	if (!fd_readable(fd, CONF_WAIT_MS))
		fail_msg("arm_n(3): expected a notification after the 3rd completion, "
			 "none within %d ms", CONF_WAIT_MS);
	CONF_TRUE("get_event >= 1", prdma_cq_get_event(scq) >= 1);
	{
		struct prdma_wc wc[3];

		CONF_EQ("poll the three", 3, prdma_cq_poll(scq, 3, wc));
	}
}

static void
test_cq_resize(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_cq *scq;
	struct prdma_wc wc[8];
	struct cq_env e;
	unsigned int i, round;
	int ret;

	cq_env_make(ctx, &e, 8, 0);
	scq = e.p.s[0].scq;
	for (round = 0; round < 2; round++) {
		uint32_t target = round == 0 ? 64 : 2;

		for (i = 0; i < 5; i++) {
			conf_post_recv(e.p.s[1].qp, i, e.b.p, 64, e.b.mr->lkey, "receive");
			cq_send(&e, 10 * round + i, 0);
		}
		wait_peek(scq, 5, "five queued completions");
		ret = prdma_cq_resize(scq, target);
		if ((CONF_A->attr.flags & PRDMA_DEV_CAP_CQ_RESIZE) == 0) {
			conf_check_rc(ret, -ENOTSUP, "cq_resize without PRDMA_DEV_CAP_CQ_RESIZE");
			return;
		}
		if (round == 0) {
			conf_check_rc(ret, 0, "cq_resize(64) with 5 queued");
			CONF_TRUE("depth after resize >= 64", scq->cqe >= 64);
		} else if (ret == 0) {
			/* The provider rounded 2 up to a depth that holds the 5. */
			CONF_TRUE("depth after a shrinking resize holds the queued 5",
				  scq->cqe >= 5);
		} else {
			conf_check_rc(ret, -EINVAL, "cq_resize(2) with 5 queued");
		}
		/* B's receive CQ has the same small depth: empty it every round. */
		for (i = 0; i < 5; i++)
			conf_expect_wc(e.p.s[1].rcq, &wc[0], "receive", i, PRDMA_WC_SUCCESS,
				       PRDMA_WC_RECV);
		CONF_EQ("queued completions kept by resize", 5, prdma_cq_peek(scq));
		CONF_EQ("poll after resize", 5, prdma_cq_poll(scq, 8, wc));
		for (i = 0; i < 5; i++) {
			CONF_EQ("wr_id order after resize", 10 * round + i, wc[i].wr_id);
			CONF_EQ("status after resize", PRDMA_WC_SUCCESS, wc[i].status);
		}
	}
}

static void
test_cq_destroy_busy(void **state)
{
	struct conf_ctx *ctx = *state;
	struct cq_env e;

	cq_env_make(ctx, &e, 16, 0);
	conf_check_rc(prdma_cq_destroy(e.p.s[0].scq), -EBUSY,
		      "prdma_cq_destroy of the send CQ of a QP");
	conf_check_rc(prdma_cq_destroy(e.p.s[1].rcq), -EBUSY,
		      "prdma_cq_destroy of the receive CQ of a QP");
	/* It still works. */
	conf_post_recv(e.p.s[1].qp, 1, e.b.p, 64, e.b.mr->lkey, "receive");
	cq_send(&e, 1, 0);
	{
		struct prdma_wc wc;

		conf_expect_wc(e.p.s[0].scq, &wc, "send after the refused destroy", 1,
			       PRDMA_WC_SUCCESS, PRDMA_WC_SEND);
	}
}

/* Overrun: the device reports PRDMA_EVENT_CQ_ERR and never overwrites. */
static void
test_cq_overrun(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_async_event ev;
	struct prdma_cq *scq;
	struct prdma_wc wc;
	struct cq_env e;
	unsigned int i, n;
	int seen = 0;

	cq_env_make(ctx, &e, 4, 0);
	scq = e.p.s[0].scq;
	while (prdma_event_get(CONF_A->dev, &ev) == 1)
		;
	n = scq->cqe + 1;
	if (n > 16) {
		print_message("[ SKIP ] CQ of 4 is %u deep, too deep to overrun here\n",
			      scq->cqe);
		skip();
	}
	for (i = 0; i < n; i++) {
		conf_post_recv(e.p.s[1].qp, i, e.b.p, 64, e.b.mr->lkey, "receive");
		cq_send(&e, i, 0);
		/* Keep B's receive CQ (same depth) from overrunning too. */
		conf_expect_wc(e.p.s[1].rcq, &wc, "receive", i, PRDMA_WC_SUCCESS,
			       PRDMA_WC_RECV);
	}
	conf_spin(10);
	while (prdma_event_get(CONF_A->dev, &ev) == 1)
		if (ev.type == PRDMA_EVENT_CQ_ERR && ev.element.cq == scq)
			seen = 1;
	if (!seen)
		fail_msg("%u completions on a CQ of depth %u: expected PRDMA_EVENT_CQ_ERR "
			 "for it, got none", n, scq->cqe);
	/* The completions that fitted are intact and in order. */
	for (i = 0; i < scq->cqe; i++) {
		CONF_EQ("poll of a completion queued before the overrun", 1,
			prdma_cq_poll(scq, 1, &wc));
		CONF_EQ("wr_id of a completion queued before the overrun", i, wc.wr_id);
	}
}

int
conf_group_cq(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cq_depth, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_cq_peek, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_cq_arm_next, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_cq_arm_solicited, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_cq_arm_n, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_cq_resize, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_cq_destroy_busy, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_cq_overrun, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("cq", tests, conf_group_setup,
					   conf_group_teardown);
}
