/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma's libibverbs.so.1 on its own: the verbs calls' documented answers
 * (errno values, what verbs.h's inline functions do with the context this
 * library lays out, MRs on ordinary memory, the bridge's refusals). One
 * soft-RoCE device on net_null, configured by the environment meson sets.
 */

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/verbs.h>

#include "prdma_verbs_bridge.h"

static struct ibv_context *ctx;
static struct ibv_pd *pd;

static int
setup(void **state)
{
	struct ibv_device **list;
	int n = -1;

	(void)state;
	list = ibv_get_device_list(&n);
	if (list == NULL || n != 1 || strcmp(ibv_get_device_name(list[0]), "roce0") != 0)
		return -1;
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (ctx == NULL)
		return -1;
	pd = ibv_alloc_pd(ctx);
	return pd == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	ibv_dealloc_pd(pd);
	return ibv_close_device(ctx);
}

/* The extended inlines answer as for a provider without the extensions. */
static void
test_inlines(void **state)
{
	struct ibv_device_attr_ex dx;
	struct ibv_cq_init_attr_ex cx;
	struct ibv_port_attr pa;
	struct ibv_cq *cq;
	struct ibv_qp_init_attr qa;
	struct ibv_qp *qp;

	(void)state;
	memset(&dx, 0xff, sizeof(dx));
	assert_int_equal(ibv_query_device_ex(ctx, NULL, &dx), 0);
	assert_true(dx.orig_attr.max_qp > 0);
	assert_int_equal(dx.orig_attr.phys_port_cnt, 1);
	assert_int_equal(dx.device_cap_flags_ex, 0); /* legacy path: zeroed */
	memset(&pa, 0xff, sizeof(pa));
	assert_int_equal(ibv_query_port(ctx, 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_ACTIVE);
	assert_int_equal(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	assert_int_equal(pa.port_cap_flags2, 0);
	assert_int_equal(ibv_query_port(ctx, 2, &pa), EINVAL);
	memset(&cx, 0, sizeof(cx));
	cx.cqe = 4;
	errno = 0;
	assert_null(ibv_create_cq_ex(ctx, &cx));
	assert_int_equal(errno, EOPNOTSUPP);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	assert_non_null(cq);
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 1;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &qa);
	assert_non_null(qp);
	assert_null(ibv_qp_to_qp_ex(qp));
	assert_int_equal(qp->state, IBV_QPS_RESET);
	/* A CQ in use and a PD in use stay: EBUSY. */
	assert_int_equal(ibv_destroy_cq(cq), EBUSY);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	qa.qp_type = IBV_QPT_XRC_SEND;
	errno = 0;
	assert_null(ibv_create_qp(pd, &qa));
	assert_int_equal(errno, EOPNOTSUPP);
}

static void
test_gid(void **state)
{
	struct ibv_gid_entry e;
	union ibv_gid gid;
	static const uint8_t want[16] = { [10] = 0xff, [11] = 0xff, 10, 9, 1, 1 };

	(void)state;
	assert_int_equal(ibv_query_gid(ctx, 1, 0, &gid), 0);
	assert_memory_equal(gid.raw, want, 16);
	assert_int_equal(ibv_query_gid_ex(ctx, 1, 0, &e, 0), 0);
	assert_memory_equal(e.gid.raw, want, 16);
	assert_int_equal(e.gid_type, IBV_GID_TYPE_ROCE_V2);
	assert_int_equal(e.port_num, 1);
	assert_int_equal(ibv_query_gid_ex(ctx, 1, 1000, &e, 0), EINVAL);
	assert_int_equal(ibv_query_gid_ex(ctx, 1, 0, &e, 1), EINVAL);
	assert_int_equal(ibv_query_gid(ctx, 1, 1000, &gid), -1);
	assert_int_equal(errno, EINVAL);
}

/*
 * The reply path of a RoCEv2 datagram over IPv4: the 40-byte GRH area
 * holds 20 zero bytes and the IPv4 header (as rdma-core's providers lay
 * it out), so the peer is the IPv4 source, not the IPv6 GRH's SGID.
 */
static void
test_ah_from_wc_ipv4(void **state)
{
	static const uint8_t peer[16] = { [10] = 0xff, [11] = 0xff, 10, 9, 1, 2 };
	uint8_t area[40] = { 0 };
	struct ibv_ah_attr at;
	struct ibv_wc wc;

	(void)state;
	area[20] = 0x45;                       /* IPv4, 5 words */
	area[21] = 0x68;                       /* TOS: DSCP 26 */
	area[20 + 9] = 17;                     /* UDP */
	memcpy(&area[20 + 12], &peer[12], 4);  /* source: the peer */
	area[36] = 10; area[37] = 9; area[38] = 1; area[39] = 1; /* us */
	memset(&wc, 0, sizeof(wc));
	wc.wc_flags = IBV_WC_GRH;
	assert_int_equal(ibv_init_ah_from_wc(ctx, 1, &wc, (struct ibv_grh *)area, &at), 0);
	assert_int_equal(at.is_global, 1);
	assert_memory_equal(at.grh.dgid.raw, peer, 16);
	assert_int_equal(at.grh.sgid_index, 0);
	assert_int_equal(at.grh.traffic_class, 0x68);
	assert_int_equal(at.port_num, 1);
	/* Addressed to someone else: no GID of ours to answer from. */
	area[39] = 7;
	assert_int_equal(ibv_init_ah_from_wc(ctx, 1, &wc, (struct ibv_grh *)area, &at), -1);
}

/* MRs on malloc'd and stack memory; a range inside another; an overlap. */
static void
test_mr(void **state)
{
	char stack_buf[3000];
	struct ibv_mr *a, *b, *c, *s;
	uint8_t *buf;

	(void)state;
	buf = malloc(3 * 4096 + 100);
	assert_non_null(buf);
	a = ibv_reg_mr(pd, buf + 10, 2 * 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(a);
	assert_ptr_equal(a->addr, buf + 10);
	assert_int_equal(a->length, 2 * 4096);
	assert_int_not_equal(a->rkey, 0);
	b = ibv_reg_mr(pd, buf + 100, 100, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(b);
	assert_int_equal(b->rkey, 0);
	/* Starts inside the first range's pages, ends past them: verbs allows
	 * it (rping's buffers share pages), and both MRs stay usable. */
	c = ibv_reg_mr(pd, buf + 4096, 3 * 4096, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(c);
	assert_int_equal(c->length, 3 * 4096);
	s = ibv_reg_mr(pd, stack_buf, sizeof(stack_buf), IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(s);
	/* Remote write without local write: EINVAL (verbs). */
	errno = 0;
	assert_null(ibv_reg_mr(pd, buf, 64, IBV_ACCESS_REMOTE_WRITE));
	assert_int_equal(errno, EINVAL);
	/* A PD with MRs stays. */
	assert_int_equal(ibv_dealloc_pd(pd), EBUSY);
	assert_int_equal(ibv_dereg_mr(s), 0);
	assert_int_equal(ibv_dereg_mr(a), 0);
	/* The merged region lives while c and b use it. */
	a = ibv_reg_mr(pd, buf + 2 * 4096, 100, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(a);
	assert_int_equal(ibv_dereg_mr(c), 0);
	assert_int_equal(ibv_dereg_mr(b), 0);
	assert_int_equal(ibv_dereg_mr(a), 0);
	/* After the last user the range can be registered again. */
	a = ibv_reg_mr(pd, buf, 3 * 4096, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(a);
	assert_int_equal(ibv_dereg_mr(a), 0);
	free(buf);
}

static void
test_channel(void **state)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *ev_cq;
	void *ev_ctx;

	(void)state;
	ch = ibv_create_comp_channel(ctx);
	assert_non_null(ch);
	assert_true(ch->fd >= 0);
	cq = ibv_create_cq(ctx, 8, &ch, ch, 0);
	assert_non_null(cq);
	assert_true(cq->cqe >= 8);
	assert_int_equal(ibv_req_notify_cq(cq, 0), 0);
	/* Nothing happened: a non-blocking channel says EAGAIN. */
	assert_int_equal(fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK), 0);
	assert_int_equal(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(ibv_destroy_comp_channel(ch), EBUSY);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
}

static void
test_qp_modify(void **state)
{
	struct ibv_qp_init_attr qa;
	struct ibv_qp_attr at;
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	(void)state;
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	assert_non_null(cq);
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_UD;
	qa.cap.max_send_wr = 2;
	qa.cap.max_recv_wr = 2;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &qa);
	assert_non_null(qp);
	memset(&at, 0, sizeof(at));
	/* RESET -> RTR skips INIT: EINVAL, the QP unchanged. */
	at.qp_state = IBV_QPS_RTR;
	assert_int_equal(ibv_modify_qp(qp, &at, IBV_QP_STATE), EINVAL);
	/* An attribute prdma does not take. */
	at.qp_state = IBV_QPS_INIT;
	assert_int_equal(ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_ALT_PATH), EINVAL);
	at.pkey_index = 0;
	at.port_num = 1;
	at.qkey = 0x11111111;
	assert_int_equal(ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_QKEY), 0);
	assert_int_equal(qp->state, IBV_QPS_INIT);
	memset(&at, 0, sizeof(at));
	assert_int_equal(ibv_query_qp(qp, &at, IBV_QP_STATE | IBV_QP_QKEY, &qa), 0);
	assert_int_equal(at.qp_state, IBV_QPS_INIT);
	assert_int_equal(at.qkey, 0x11111111);
	assert_int_equal(qa.qp_type, IBV_QPT_UD);
	/* Posting a send in INIT fails and names the request. */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.wr.ud.ah = NULL;
	assert_int_not_equal(ibv_post_send(qp, &wr, &bad), 0);
	assert_ptr_equal(bad, &wr);
	/* An opcode with no prdma counterpart: EINVAL, named. */
	bad = NULL;
	wr.opcode = IBV_WR_TSO;
	assert_int_equal(ibv_post_send(qp, &wr, &bad), EINVAL);
	assert_ptr_equal(bad, &wr);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
}

static void
test_bridge(void **state)
{
	struct ibv_context *shared, *again;
	struct ibv_cq *cq;
	uint64_t junk[64];

	(void)state;
	assert_int_equal(prdma_verbs_init(), 0);
	assert_non_null(prdma_verbs_pd(pd));
	assert_non_null(prdma_verbs_context_dev(ctx));
	memset(junk, 0, sizeof(junk));
	errno = 0;
	assert_null(prdma_verbs_qp((struct ibv_qp *)&junk[32]));
	assert_int_equal(errno, EINVAL);
	assert_null(prdma_verbs_cq(NULL));
	assert_null(prdma_verbs_context_dev((struct ibv_context *)&junk[32]));
	shared = prdma_verbs_context_get(prdma_verbs_context_dev(ctx));
	assert_non_null(shared);
	again = prdma_verbs_context_get(prdma_verbs_context_dev(ctx));
	assert_ptr_equal(shared, again);
	cq = ibv_create_cq(shared, 4, NULL, NULL, 0);
	assert_non_null(cq);
	assert_non_null(prdma_verbs_cq(cq));
	assert_int_equal(ibv_destroy_cq(cq), 0);
	prdma_verbs_context_put(again);
	prdma_verbs_context_put(shared);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inlines),
		cmocka_unit_test(test_gid),
		cmocka_unit_test(test_ah_from_wc_ipv4),
		cmocka_unit_test(test_mr),
		cmocka_unit_test(test_channel),
		cmocka_unit_test(test_qp_modify),
		cmocka_unit_test(test_bridge),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
