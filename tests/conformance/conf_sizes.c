/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Message sizes across MTU boundaries, scatter/gather, inline data,
 * unsignaled sends, fence and the solicited flag (RC).
 */

#include <string.h>

#include "conf.h"

#define SZ_MAX (1024 * 1024)
#define SZ_GUARD 64
#define SZ_ACCESS (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE | \
		   PRDMA_ACCESS_REMOTE_READ)

struct sz_env {
	struct conf_pair p;
	struct conf_buf a;
	struct conf_buf b;
};

static void
sz_env_make(struct conf_ctx *ctx, struct sz_env *e, const struct conf_qp_opts *o,
	    size_t len)
{
	conf_pair_make(ctx, &e->p, o);
	conf_buf_make(ctx, &e->a, CONF_A->pd, len, SZ_ACCESS);
	conf_buf_make(ctx, &e->b, CONF_B->pd, len, SZ_ACCESS);
}

/* The sizes of the sweep, from the path MTU. */
static unsigned int
sizes(uint32_t *out)
{
	uint32_t mtu = conf_mtu_bytes();
	unsigned int n = 0;

	out[n++] = 0;
	out[n++] = 1;
	out[n++] = mtu - 1;
	out[n++] = mtu;
	out[n++] = mtu + 1;
	out[n++] = 2 * mtu;
	out[n++] = 64 * 1024;
	out[n++] = SZ_MAX;
	return n;
}

/*
 * One transfer of @p len bytes with @p op, data checked by content and the
 * bytes just past the destination checked untouched.
 */
static void
sz_one(struct sz_env *e, enum prdma_wr_opcode op, uint32_t len, uint32_t seed)
{
	int read = op == PRDMA_WR_RDMA_READ, send = op == PRDMA_WR_SEND;
	uint8_t *src = (read ? e->b.p : e->a.p) + SZ_GUARD;
	uint8_t *dst = (read ? e->a.p : e->b.p) + SZ_GUARD;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;
	char what[96];

	memset(dst - SZ_GUARD, 0xee, len + 2 * SZ_GUARD);
	t_pattern_fill(src, len, seed);
	if (send) {
		snprintf(what, sizeof(what), "SEND %u B: receive", len);
		conf_post_recv(e->p.s[1].qp, seed, dst, len + SZ_GUARD, e->b.mr->lkey, what);
	}
	conf_wr_init(&wr, &sge, seed, op, read ? dst : src, len, e->a.mr->lkey);
	wr.wr.rdma.remote_addr = (uintptr_t)(read ? src : dst);
	wr.wr.rdma.rkey = e->b.mr->rkey;
	snprintf(what, sizeof(what), "%s %u B: requester",
		 send ? "SEND" : read ? "READ" : "WRITE", len);
	conf_post_send(e->p.s[0].qp, &wr, what);
	conf_expect_wc(e->p.s[0].scq, &wc, what, seed, PRDMA_WC_SUCCESS,
		       send ? PRDMA_WC_SEND : read ? PRDMA_WC_RDMA_READ :
		       PRDMA_WC_RDMA_WRITE);
	if (read)
		CONF_EQ(what, len, wc.byte_len);
	if (send) {
		snprintf(what, sizeof(what), "SEND %u B: responder", len);
		conf_expect_wc(e->p.s[1].rcq, &wc, what, seed, PRDMA_WC_SUCCESS,
			       PRDMA_WC_RECV);
		CONF_EQ(what, len, wc.byte_len);
	}
	snprintf(what, sizeof(what), "%s %u B: data",
		 send ? "SEND" : read ? "READ" : "WRITE", len);
	conf_check_data(dst, len, seed, what);
	conf_check_bytes(dst + len, SZ_GUARD, 0xee, what);
	conf_check_bytes(dst - SZ_GUARD, SZ_GUARD, 0xee, what);
}

static void
sz_sweep(struct conf_ctx *ctx, enum prdma_wr_opcode op)
{
	struct conf_qp_opts o;
	uint32_t sz[16];
	struct sz_env e;
	unsigned int i, n;

	conf_opts_default(&o, PRDMA_QPT_RC);
	sz_env_make(ctx, &e, &o, SZ_MAX + 2 * SZ_GUARD);
	n = sizes(sz);
	for (i = 0; i < n; i++)
		sz_one(&e, op, sz[i], 7000 + i);
}

static void
test_sizes_send(void **state)
{
	sz_sweep(*state, PRDMA_WR_SEND);
}

static void
test_sizes_write(void **state)
{
	sz_sweep(*state, PRDMA_WR_RDMA_WRITE);
}

static void
test_sizes_read(void **state)
{
	sz_sweep(*state, PRDMA_WR_RDMA_READ);
}

/* PSNs that wrap in the middle of a multi-packet message. */
static void
test_psn_wrap(void **state)
{
	struct conf_ctx *ctx = *state;
	struct conf_qp_opts o;
	struct sz_env e;
	unsigned int i;

	conf_opts_default(&o, PRDMA_QPT_RC);
	conf_buf_make(ctx, &e.a, CONF_A->pd, SZ_MAX + 2 * SZ_GUARD, SZ_ACCESS);
	conf_buf_make(ctx, &e.b, CONF_B->pd, SZ_MAX + 2 * SZ_GUARD, SZ_ACCESS);
	memset(&e.p, 0, sizeof(e.p));
	e.p.o = o;
	for (i = 0; i < 2; i++) {
		e.p.s[i].d = &conf_devs[i];
		e.p.s[i].pd = conf_devs[i].pd;
		e.p.s[i].scq = conf_cq(ctx, e.p.s[i].d, o.cq_depth, 0);
		e.p.s[i].rcq = conf_cq(ctx, e.p.s[i].d, o.cq_depth, 0);
		e.p.s[i].qp = conf_qp(ctx, e.p.s[i].d, NULL, &o, e.p.s[i].scq,
				      e.p.s[i].rcq, NULL);
		e.p.s[i].psn = 0xffffff - 3 - 5 * i;
	}
	for (i = 0; i < 2; i++)
		conf_qp_connect(e.p.s[i].qp, &o, &e.p.s[1 - i].d->gid,
				e.p.s[1 - i].qp->qp_num, e.p.s[1 - i].psn, e.p.s[i].psn);
	sz_one(&e, PRDMA_WR_RDMA_WRITE, 16 * conf_mtu_bytes(), 1);
	sz_one(&e, PRDMA_WR_SEND, 16 * conf_mtu_bytes(), 2);
	sz_one(&e, PRDMA_WR_RDMA_READ, 16 * conf_mtu_bytes(), 3);
	sz_one(&e, PRDMA_WR_SEND, 10, 4);
}

/* Gather on send from three SGEs, scatter on receive into three. */
static void
test_sge_gather_scatter(void **state)
{
	static const uint32_t slen[3] = { 1000, 1, 5000 };
	static const uint32_t rlen[3] = { 3000, 7, 4000 };
	struct conf_ctx *ctx = *state;
	struct prdma_sge ss[3], rs[3];
	const struct prdma_recv_wr *rbad;
	struct prdma_recv_wr rwr;
	struct prdma_send_wr wr;
	struct conf_qp_opts o;
	struct prdma_wc wc;
	struct sz_env e;
	uint8_t *flat;
	uint32_t total = 0, off, i;
	uint32_t nsge = RTE_MIN(3u, RTE_MIN(CONF_A->attr.max_send_sge,
					    CONF_B->attr.max_recv_sge));

	if (nsge < 3) {
		print_message("[ SKIP ] fewer than 3 SGEs supported\n");
		skip();
	}
	conf_opts_default(&o, PRDMA_QPT_RC);
	sz_env_make(ctx, &e, &o, 64 * 1024);
	/* Source pieces at scattered offsets of A's buffer. */
	flat = e.a.p + 32 * 1024;
	for (i = 0; i < 3; i++)
		total += slen[i];
	t_pattern_fill(flat, total, 77);
	off = 0;
	for (i = 0; i < 3; i++) {
		uint8_t *piece = e.a.p + 100 + 9000 * i;

		memcpy(piece, flat + off, slen[i]);
		ss[i].addr = (uintptr_t)piece;
		ss[i].length = slen[i];
		ss[i].lkey = e.a.mr->lkey;
		off += slen[i];
	}
	memset(e.b.p, 0xee, 64 * 1024);
	for (i = 0; i < 3; i++) {
		rs[i].addr = (uintptr_t)(e.b.p + 50 + 10000 * i);
		rs[i].length = rlen[i];
		rs[i].lkey = e.b.mr->lkey;
	}
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 9;
	rwr.sg_list = rs;
	rwr.num_sge = 3;
	conf_check_rc(prdma_post_recv(e.p.s[1].qp, &rwr, &rbad), 0,
		      "post_recv with 3 SGEs");
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 8;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.sg_list = ss;
	wr.num_sge = 3;
	conf_post_send(e.p.s[0].qp, &wr, "SEND with 3 SGEs");
	conf_expect_wc(e.p.s[0].scq, &wc, "gather SEND", 8, PRDMA_WC_SUCCESS,
		       PRDMA_WC_SEND);
	conf_expect_wc(e.p.s[1].rcq, &wc, "scatter receive", 9, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RECV);
	CONF_EQ("scatter receive byte_len", total, wc.byte_len);
	/* The message fills the receive SGEs in order. */
	off = 0;
	for (i = 0; i < 3 && off < total; i++) {
		uint32_t n = RTE_MIN(rlen[i], total - off);
		char what[64];

		snprintf(what, sizeof(what), "receive SGE %u", i);
		if (memcmp((void *)(uintptr_t)rs[i].addr, flat + off, n) != 0)
			fail_msg("%s: %u bytes differ from message bytes %u..%u", what, n,
				 off, off + n - 1);
		conf_check_bytes((uint8_t *)(uintptr_t)rs[i].addr + n, 16, 0xee, what);
		off += n;
	}

	/* WRITE gathers, READ scatters, through the same SGE lists. */
	memset(e.b.p + 40000, 0, total);
	wr.wr_id = 10;
	wr.opcode = PRDMA_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)(e.b.p + 40000);
	wr.wr.rdma.rkey = e.b.mr->rkey;
	conf_post_send(e.p.s[0].qp, &wr, "WRITE with 3 SGEs");
	conf_expect_wc(e.p.s[0].scq, &wc, "gather WRITE", 10, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RDMA_WRITE);
	conf_check_data(e.b.p + 40000, total, 77, "gather WRITE data");
	for (i = 0; i < 3; i++)
		memset((void *)(uintptr_t)ss[i].addr, 0, ss[i].length);
	wr.wr_id = 11;
	wr.opcode = PRDMA_WR_RDMA_READ;
	if (CONF_A->attr.max_read_sge < 3)
		wr.num_sge = 1;
	conf_post_send(e.p.s[0].qp, &wr, "READ with 3 SGEs");
	conf_expect_wc(e.p.s[0].scq, &wc, "scatter READ", 11, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RDMA_READ);
	off = 0;
	for (i = 0; i < wr.num_sge; i++) {
		if (memcmp((void *)(uintptr_t)ss[i].addr, flat + off, ss[i].length) != 0)
			fail_msg("scatter READ: SGE %u differs from remote bytes %u..%u", i,
				 off, off + ss[i].length - 1);
		off += ss[i].length;
	}
}

/* Inline data is copied at post time: changing it afterwards is harmless. */
static void
test_inline(void **state)
{
	struct conf_ctx *ctx = *state;
	uint32_t max_inline = RTE_MIN(CONF_A->attr.max_inline_data, 256u);
	const uint32_t lens[] = { 1, max_inline / 2, max_inline };
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct conf_qp_opts o;
	struct prdma_wc wc;
	struct sz_env e;
	unsigned int i;
	uint8_t *tmp;
	char what[64];

	if (max_inline == 0) {
		print_message("[ SKIP ] max_inline_data is 0\n");
		skip();
	}
	conf_opts_default(&o, PRDMA_QPT_RC);
	o.max_inline = max_inline;
	sz_env_make(ctx, &e, &o, 8192);
	/* Inline data need not be registered: use unregistered DPDK memory. */
	conf_buf_make(ctx, &e.a, CONF_A->pd, 1024, 0);
	tmp = e.a.p;
	for (i = 0; i < RTE_DIM(lens); i++) {
		int write = i == 2;

		memset(e.b.p, 0, 8192);
		t_pattern_fill(tmp, lens[i], 300 + i);
		if (!write)
			conf_post_recv(e.p.s[1].qp, i, e.b.p, 1024, e.b.mr->lkey, "receive");
		conf_wr_init(&wr, &sge, i, write ? PRDMA_WR_RDMA_WRITE : PRDMA_WR_SEND,
			     tmp, lens[i], 0xdeadbeef);
		wr.send_flags |= PRDMA_SEND_INLINE;
		wr.wr.rdma.remote_addr = (uintptr_t)e.b.p;
		wr.wr.rdma.rkey = e.b.mr->rkey;
		snprintf(what, sizeof(what), "inline %s of %u B",
			 write ? "WRITE" : "SEND", lens[i]);
		conf_post_send(e.p.s[0].qp, &wr, what);
		memset(tmp, 0x3c, lens[i]);
		conf_expect_wc(e.p.s[0].scq, &wc, what, i, PRDMA_WC_SUCCESS, -1);
		if (!write) {
			conf_expect_wc(e.p.s[1].rcq, &wc, what, i, PRDMA_WC_SUCCESS,
				       PRDMA_WC_RECV);
			CONF_EQ(what, lens[i], wc.byte_len);
		}
		conf_check_data(e.b.p, lens[i], 300 + i, what);
	}
	/* More than max_inline_data is refused at post time. */
	conf_wr_init(&wr, &sge, 99, PRDMA_WR_SEND, tmp, max_inline + 1, 0);
	wr.send_flags |= PRDMA_SEND_INLINE;
	{
		const struct prdma_send_wr *bad = NULL;
		uint32_t qcap;
		struct prdma_qp_init_attr ia;

		CONF_EQ("qp_query", 0, prdma_qp_query(e.p.s[0].qp, NULL, &ia));
		qcap = ia.cap.max_inline_data;
		CONF_TRUE("QP max_inline_data >= requested", qcap >= max_inline);
		sge.length = qcap + 1;
		if (qcap + 1 <= 1024) {
			conf_check_rc(prdma_post_send(e.p.s[0].qp, &wr, &bad), -EINVAL,
				      "inline send above the QP's max_inline_data");
			CONF_TRUE("bad_wr names the refused request", bad == &wr);
		}
	}
}

/* Unsignaled sends complete silently; signaled ones in between do not. */
static void
test_unsignaled(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr[8];
	struct prdma_sge sge[8];
	struct conf_qp_opts o;
	struct prdma_wc wc;
	struct sz_env e;
	unsigned int i;
	char what[64];

	conf_opts_default(&o, PRDMA_QPT_RC);
	sz_env_make(ctx, &e, &o, 8192);
	for (i = 0; i < 8; i++) {
		t_pattern_fill(e.a.p + 512 * i, 100, 40 + i);
		conf_post_recv(e.p.s[1].qp, 20 + i, e.b.p + 512 * i, 512, e.b.mr->lkey,
			       "receive");
		conf_wr_init(&wr[i], &sge[i], i, PRDMA_WR_SEND, e.a.p + 512 * i, 100,
			     e.a.mr->lkey);
		if (i % 4 != 3)
			wr[i].send_flags = 0;
		wr[i].next = i < 7 ? &wr[i + 1] : NULL;
	}
	conf_post_send(e.p.s[0].qp, &wr[0], "chain of 8 sends, 2 signaled");
	for (i = 0; i < 8; i++) {
		snprintf(what, sizeof(what), "receive %u", i);
		conf_expect_wc(e.p.s[1].rcq, &wc, what, 20 + i, PRDMA_WC_SUCCESS,
			       PRDMA_WC_RECV);
		conf_check_data(e.b.p + 512 * i, 100, 40 + i, what);
	}
	conf_expect_wc(e.p.s[0].scq, &wc, "first signaled send", 3, PRDMA_WC_SUCCESS,
		       PRDMA_WC_SEND);
	conf_expect_wc(e.p.s[0].scq, &wc, "second signaled send", 7, PRDMA_WC_SUCCESS,
		       PRDMA_WC_SEND);
	conf_expect_no_wc(e.p.s[0].scq, CONF_QUIET_MS, "unsignaled sends");
}

/* A fenced SEND leaves only after the READ before it has returned. */
static void
test_fence(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr rd, snd;
	struct prdma_sge rs, ss;
	struct conf_qp_opts o;
	struct prdma_wc wc;
	struct sz_env e;
	uint32_t len = 3 * conf_mtu_bytes();

	conf_opts_default(&o, PRDMA_QPT_RC);
	sz_env_make(ctx, &e, &o, 64 * 1024);
	t_pattern_fill(e.b.p, len, 555);
	memset(e.a.p, 0, 64 * 1024);
	conf_post_recv(e.p.s[1].qp, 1, e.b.p + 32768, len, e.b.mr->lkey, "receive");
	conf_wr_init(&rd, &rs, 1, PRDMA_WR_RDMA_READ, e.a.p, len, e.a.mr->lkey);
	rd.wr.rdma.remote_addr = (uintptr_t)e.b.p;
	rd.wr.rdma.rkey = e.b.mr->rkey;
	conf_wr_init(&snd, &ss, 2, PRDMA_WR_SEND, e.a.p, len, e.a.mr->lkey);
	snd.send_flags |= PRDMA_SEND_FENCE;
	rd.next = &snd;
	conf_post_send(e.p.s[0].qp, &rd, "READ then fenced SEND");
	conf_expect_wc(e.p.s[0].scq, &wc, "READ", 1, PRDMA_WC_SUCCESS, PRDMA_WC_RDMA_READ);
	conf_expect_wc(e.p.s[0].scq, &wc, "fenced SEND", 2, PRDMA_WC_SUCCESS,
		       PRDMA_WC_SEND);
	conf_expect_wc(e.p.s[1].rcq, &wc, "fenced SEND received", 1, PRDMA_WC_SUCCESS,
		       PRDMA_WC_RECV);
	conf_check_data(e.b.p + 32768, len, 555,
			"fenced SEND carries the data the READ fetched");
}

/* PRDMA_SEND_SOLICITED shows as PRDMA_WC_SOLICITED at the receiver. */
static void
test_solicited(void **state)
{
	struct conf_ctx *ctx = *state;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct conf_qp_opts o;
	struct prdma_wc wc;
	struct sz_env e;
	unsigned int i;

	conf_opts_default(&o, PRDMA_QPT_RC);
	sz_env_make(ctx, &e, &o, 8192);
	for (i = 0; i < 2; i++) {
		conf_post_recv(e.p.s[1].qp, i, e.b.p, 512, e.b.mr->lkey, "receive");
		conf_wr_init(&wr, &sge, i, i ? PRDMA_WR_SEND_WITH_IMM : PRDMA_WR_SEND,
			     e.a.p, 10, e.a.mr->lkey);
		if (i == 1)
			wr.send_flags |= PRDMA_SEND_SOLICITED;
		conf_post_send(e.p.s[0].qp, &wr, "send");
		conf_expect_wc(e.p.s[0].scq, &wc, "requester", i, PRDMA_WC_SUCCESS,
			       PRDMA_WC_SEND);
		conf_expect_wc(e.p.s[1].rcq, &wc, "receiver", i, PRDMA_WC_SUCCESS,
			       PRDMA_WC_RECV);
		CONF_EQ(i ? "PRDMA_WC_SOLICITED on a solicited send" :
			"PRDMA_WC_SOLICITED on an unsolicited send",
			i ? PRDMA_WC_SOLICITED : 0, wc.wc_flags & PRDMA_WC_SOLICITED);
	}
}

int
conf_group_sizes(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sizes_send, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_sizes_write, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_sizes_read, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_psn_wrap, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_sge_gather_scatter, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_inline, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_unsignaled, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_fence, conf_test_setup,
						conf_test_teardown),
		cmocka_unit_test_setup_teardown(test_solicited, conf_test_setup,
						conf_test_teardown),
	};

	return cmocka_run_group_tests_name("sizes-sge-flags", tests, conf_group_setup,
					   conf_group_teardown);
}
