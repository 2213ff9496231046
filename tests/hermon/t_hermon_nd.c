/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * F13, IPv6: two cabled models with ip6= and no neigh= find each other's
 * MAC by neighbour discovery (hermon_arp.c, hermon_nd.c: an NS to the
 * target's solicited-node group, which the peer's multicast filter
 * passes, and its NA). RC paths and UD AHs to the peer's IPv6 GID
 * resolve; NOWAIT is EAGAIN, then success; nobody answering is
 * EHOSTUNREACH within the bound; an unsolicited NA is not learnt; an NS
 * with a bad checksum or hop limit is a counted drop; an NS to a group
 * the filter does not pass is dropped by the model; a Linux kernel's NS
 * and NA (a capture) are what the PMD builds, and its NS is answered.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_malloc.h>

#include "prdma.h"
#include "prdma_provider.h"
#include "t_eal.h"
#include "hermon_arp.h"
#include "hermon_dev.h"
#include "hermon_model.h"
#include "hermon_nd.h"
#include "hermon_obj.h"
#include "hermon_prm_ext.h"

#define A_ARGS "hermon:model,link=nd,side=0,ip6=2001:db8::3,mac=02:c9:00:00:01:03"
#define B_ARGS "hermon:model,link=nd,side=1,ip6=2001:db8::2,mac=02:c9:00:00:01:02"

static const uint8_t mac_a[6] = { 0x02, 0xc9, 0, 0, 0x01, 0x03 };
static const uint8_t mac_b[6] = { 0x02, 0xc9, 0, 0, 0x01, 0x02 };

struct end {
	int id;
	struct prdma_dev *dev;
	struct hermon_dev *hd;
	struct hermon_model *m;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_mr *mr;
	uint8_t *buf;
};

static struct end ea, eb;

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* 2001:db8::<last> */
static void
v6_ip(uint8_t *g, uint8_t last)
{
	memset(g, 0, 16);
	g[0] = 0x20;
	g[1] = 0x01;
	g[2] = 0x0d;
	g[3] = 0xb8;
	g[15] = last;
}

/* Forget what the wire taught @e's cache (static entries stay). */
static void
cache_flush(struct end *e)
{
	unsigned int i;

	rte_spinlock_lock(&e->hd->neigh.lock);
	for (i = 0; i < HERMON_NEIGH_MAX; i++)
		if (!e->hd->neigh_ent[i].is_static)
			e->hd->neigh_ent[i].valid = 0;
	memset(e->hd->neigh_req, 0, sizeof(e->hd->neigh_req));
	rte_spinlock_unlock(&e->hd->neigh.lock);
}

static struct prdma_ah *
ah_to(struct end *e, uint8_t last, uint32_t flags)
{
	struct prdma_ah_attr aa;

	memset(&aa, 0, sizeof(aa));
	v6_ip(aa.dgid.raw, last);
	aa.port_num = 1;
	aa.sgid_index = 2;           /* ip6= */
	aa.flags = flags;
	return prdma_ah_create(e->pd, &aa);
}

static struct prdma_qp *
qp_new(struct end *e, enum prdma_qp_type t)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp_attr a;
	struct prdma_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = t;
	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.sq_sig_all = 1;
	qp = prdma_qp_create(e->pd, &ia);
	assert_non_null(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x11111111;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | (t == PRDMA_QPT_UD ? PRDMA_QP_QKEY :
							  PRDMA_QP_ACCESS_FLAGS)), 0);
	return qp;
}

static int
rc_rtr(struct prdma_qp *qp, uint8_t last, uint32_t dqpn, uint32_t flags)
{
	struct prdma_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = PRDMA_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	v6_ip(a.ah_attr.dgid.raw, last);
	a.ah_attr.port_num = 1;
	a.ah_attr.sgid_index = 2;           /* ip6= */
	a.ah_attr.flags = flags;
	return prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU |
			       PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
			       PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER);
}

static void
rc_rts(struct prdma_qp *qp)
{
	struct prdma_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
					 PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT |
					 PRDMA_QP_RNR_RETRY | PRDMA_QP_MAX_QP_RD_ATOMIC), 0);
}

static int
poll_one(struct end *e, struct prdma_wc *wc, unsigned int ms)
{
	uint64_t t0 = now_ms();

	do {
		if (prdma_cq_poll(e->cq, 1, wc) == 1)
			return 1;
	} while (now_ms() - t0 < ms);
	return 0;
}

static void
post_recv(struct end *e, struct prdma_qp *qp, uint32_t off)
{
	const struct prdma_recv_wr *bad;
	struct prdma_sge sge = { .addr = (uintptr_t)(e->buf + off), .length = 1024,
				 .lkey = e->mr->lkey };
	struct prdma_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };

	assert_int_equal(prdma_post_recv(qp, &wr, &bad), 0);
}

static int
post_send(struct end *e, struct prdma_qp *qp, struct prdma_ah *ah, uint32_t dqpn,
	  uint32_t qkey, uint32_t len)
{
	const struct prdma_send_wr *bad;
	struct prdma_sge sge = { .addr = (uintptr_t)e->buf, .length = len,
				 .lkey = e->mr->lkey };
	struct prdma_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 9;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = dqpn;
	wr.wr.ud.remote_qkey = qkey;
	return prdma_post_send(qp, &wr, &bad);
}

/* A raw QP of the test's own on @e (the PMD's internal object). */
static struct hermon_qp *
raw_qp(struct end *e)
{
	struct prdma_qp_init_attr qa;
	struct hermon_qp *q = rte_zmalloc("t_raw", sizeof(*q), 64);
	struct prdma_qp_attr at;

	assert_non_null(q);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_RC;
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.sq_sig_all = 1;
	q->pub.dev = e->dev;
	q->pub.pd = e->pd;
	q->pub.send_cq = e->cq;
	q->pub.recv_cq = e->cq;
	q->pub.qp_type = PRDMA_QPT_RC;
	q->raw = true;
	assert_int_equal(hermon_qp_create(&q->pub, &qa), 0);
	memset(&at, 0, sizeof(at));
	at.port_num = 1;
	at.qp_state = PRDMA_QPS_INIT;
	assert_int_equal(hermon_qp_modify(&q->pub, &at, PRDMA_QP_STATE | PRDMA_QP_PORT |
					  PRDMA_QP_PKEY_INDEX), 0);
	q->pub.state = PRDMA_QPS_INIT;
	at.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(hermon_qp_modify(&q->pub, &at, PRDMA_QP_STATE), 0);
	q->pub.state = PRDMA_QPS_RTR;
	at.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(hermon_qp_modify(&q->pub, &at, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	q->pub.state = PRDMA_QPS_RTS;
	return q;
}

/* Send @len bytes of @e->buf as a frame on @q; wait for its completion. */
static void
raw_send(struct end *e, struct hermon_qp *q, uint32_t len)
{
	const struct prdma_send_wr *bad;
	struct prdma_sge sge = { .addr = (uintptr_t)e->buf, .length = len,
				 .lkey = e->mr->lkey };
	struct prdma_send_wr wr;
	struct prdma_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	assert_int_equal(hermon_post_send(&q->pub, &wr, &bad), 0);
	assert_int_equal(poll_one(e, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
}

static void
wait_received(struct end *e, uint64_t before)
{
	struct hermon_arp_stats st;
	uint64_t t0 = now_ms();

	do {
		assert_int_equal(hermon_arp_get_stats(e->hd, 1, &st), 0);
		if (st.received > before)
			return;
		usleep(1000);
	} while (now_ms() - t0 < 2000);
	fail_msg("the agent received nothing");
}

/* An RC connection A <-> B to the IPv6 GIDs, no neigh=: ND both ways. */
static void
test_rc_connection(void **state)
{
	struct prdma_qp *qa = qp_new(&ea, PRDMA_QPT_RC), *qb = qp_new(&eb, PRDMA_QPT_RC);
	struct hermon_arp_stats sa, sb;
	struct prdma_neigh_stats s;
	struct prdma_wc wc;

	(void)state;
	cache_flush(&ea);
	cache_flush(&eb);
	assert_int_equal(rc_rtr(qa, 2, qb->qp_num, 0), 0);
	assert_int_equal(rc_rtr(qb, 3, qa->qp_num, 0), 0);
	rc_rts(qa);
	rc_rts(qb);
	post_recv(&eb, qb, 4096);
	memcpy(ea.buf, "over nd!", 8);
	assert_int_equal(post_send(&ea, qa, NULL, 0, 0, 8), 0);
	assert_int_equal(poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(eb.buf + 4096, "over nd!", 8);
	prdma_neigh_stats_get(&ea.hd->neigh, &s);
	assert_true(s.solicits >= 1);
	assert_true(s.learned >= 1);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &sa), 0);
	assert_int_equal(hermon_arp_get_stats(eb.hd, 1, &sb), 0);
	assert_true(sa.nd_solicits >= 1 && sb.nd_answered >= 1);
	assert_int_equal(sa.requests, 0);           /* no ARP for an IPv6 peer */
	assert_int_equal(prdma_qp_destroy(qa), 0);
	assert_int_equal(prdma_qp_destroy(qb), 0);
}

/* A UD AH (blocking) to A's IPv6 GID takes A's MAC from ND; a datagram lands. */
static void
test_ud_ah(void **state)
{
	struct prdma_qp *qa = qp_new(&ea, PRDMA_QPT_UD), *qb = qp_new(&eb, PRDMA_QPT_UD);
	struct prdma_qp_attr a;
	struct prdma_ah *ah;
	struct prdma_wc wc;

	(void)state;
	cache_flush(&eb);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(prdma_qp_modify(qa, &a, PRDMA_QP_STATE), 0);
	assert_int_equal(prdma_qp_modify(qb, &a, PRDMA_QP_STATE), 0);
	a.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(prdma_qp_modify(qa, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	assert_int_equal(prdma_qp_modify(qb, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	ah = ah_to(&eb, 3, 0);
	assert_non_null(ah);
	assert_memory_equal(((struct hermon_ah *)ah)->l2 + 2, mac_a, 6);
	post_recv(&ea, qa, 4096);
	memcpy(eb.buf, "ud by nd", 8);
	assert_int_equal(post_send(&eb, qb, ah, qa->qp_num, 0x11111111, 8), 0);
	assert_int_equal(poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(ea.buf + 4096 + 40, "ud by nd", 8);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	assert_int_equal(prdma_qp_destroy(qa), 0);
	assert_int_equal(prdma_qp_destroy(qb), 0);
}

/* NOWAIT: EAGAIN while the NS is out, then the AH. */
static void
test_nowait(void **state)
{
	uint64_t t0 = now_ms();
	struct prdma_ah *ah;
	unsigned int eagain = 0;

	(void)state;
	cache_flush(&ea);
	for (;;) {
		ah = ah_to(&ea, 2, PRDMA_AH_F_NOWAIT);
		if (ah != NULL)
			break;
		assert_int_equal(rte_errno, EAGAIN);
		eagain++;
		assert_true(now_ms() - t0 < 2000);
		usleep(1000);
	}
	assert_true(eagain >= 1);
	assert_memory_equal(((struct hermon_ah *)ah)->l2 + 2, mac_b, 6);
	assert_int_equal(prdma_ah_destroy(ah), 0);
}

/* Nobody at 2001:db8::99: EHOSTUNREACH after the 1 s bound, not before;
 * B's model drops the NS (its group's MAC is not in B's filter). */
static void
test_unanswered_filtered(void **state)
{
	struct prdma_qp *qa = qp_new(&ea, PRDMA_QPT_RC);
	struct hermon_model_stats m0, m1;
	struct hermon_arp_stats st0, st1;
	uint64_t t0 = now_ms(), dt;

	(void)state;
	assert_int_equal(hermon_model_get_stats(eb.m, &m0), 0);
	assert_int_equal(hermon_arp_get_stats(eb.hd, 1, &st0), 0);
	assert_null(ah_to(&ea, 99, PRDMA_AH_F_NOWAIT));
	assert_int_equal(rte_errno, EAGAIN);
	assert_null(ah_to(&ea, 99, 0));
	assert_int_equal(rte_errno, EHOSTUNREACH);
	dt = now_ms() - t0;
	assert_true(dt >= 900 && dt < 5000);
	assert_int_equal(rc_rtr(qa, 99, 1, 0), -EHOSTUNREACH);
	assert_int_equal(hermon_model_get_stats(eb.m, &m1), 0);
	assert_true(m1.mc_filtered > m0.mc_filtered);
	assert_int_equal(hermon_arp_get_stats(eb.hd, 1, &st1), 0);
	assert_int_equal(st1.received, st0.received);
	assert_int_equal(prdma_qp_destroy(qa), 0);
}

/* An NA nobody asked for ("2001:db8::77 is at 02:66..") is not learnt. */
static void
test_forged_na(void **state)
{
	static const uint8_t evil[6] = { 0x02, 0x66, 0x66, 0x66, 0x66, 0x66 };
	struct hermon_qp *q = raw_qp(&eb);
	struct prdma_neigh_stats s0, s1;
	struct hermon_arp_stats st;
	struct rte_ether_addr mac;
	uint8_t tgt[16], ipa[16];

	(void)state;
	v6_ip(tgt, 77);
	v6_ip(ipa, 3);
	prdma_neigh_stats_get(&ea.hd->neigh, &s0);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st), 0);
	raw_send(&eb, q, hermon_nd_na(eb.buf, evil, mac_a, tgt, ipa));
	wait_received(&ea, st.received);
	prdma_neigh_stats_get(&ea.hd->neigh, &s1);
	assert_int_equal(s1.ignored - s0.ignored, 1);
	assert_int_equal(s1.learned, s0.learned);
	assert_int_equal(prdma_neigh_lookup(&ea.hd->neigh, tgt, 1, &mac), -ENOENT);
	assert_null(ah_to(&ea, 77, PRDMA_AH_F_NOWAIT));
	assert_int_equal(rte_errno, EAGAIN);
	assert_int_equal(hermon_qp_destroy(&q->pub), 0);
	rte_free(q);
}

/* B's NS for A's address, as it is, then with a bad checksum or hop
 * limit 254: A answers the first, drops (counts) the others. */
static void
test_bad_ns(void **state)
{
	struct hermon_qp *q = raw_qp(&eb);
	struct hermon_arp_stats st0, st1;
	uint8_t ipa[16], ipb[16];
	uint32_t len;

	(void)state;
	v6_ip(ipa, 3);
	v6_ip(ipb, 2);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st0), 0);
	len = hermon_nd_ns(eb.buf, mac_b, ipb, ipa);
	/* the checksum as DPDK computes it over the same pseudo-header */
	assert_int_equal(rte_ipv6_udptcp_cksum_verify((const void *)(eb.buf + 14),
						      eb.buf + 54), 0);
	assert_int_equal(len, 86);
	assert_int_equal(eb.buf[21], 255);
	raw_send(&eb, q, len);
	wait_received(&ea, st0.received);
	usleep(20000);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st1), 0);
	assert_int_equal(st1.nd_answered - st0.nd_answered, 1);
	assert_int_equal(st1.nd_bad, st0.nd_bad);
	/* the checksum (ICMPv6 at byte 54, its checksum at 56) */
	st0 = st1;
	eb.buf[57] ^= 0x01;
	raw_send(&eb, q, len);
	wait_received(&ea, st0.received);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st1), 0);
	assert_int_equal(st1.nd_bad - st0.nd_bad, 1);
	assert_int_equal(st1.nd_answered, st0.nd_answered);
	/* a routed NS: hop limit 254 (not in the checksum) */
	st0 = st1;
	len = hermon_nd_ns(eb.buf, mac_b, ipb, ipa);
	eb.buf[21] = 254;
	raw_send(&eb, q, len);
	wait_received(&ea, st0.received);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st1), 0);
	assert_int_equal(st1.nd_bad - st0.nd_bad, 1);
	assert_int_equal(st1.nd_answered, st0.nd_answered);
	assert_int_equal(hermon_qp_destroy(&q->pub), 0);
	rte_free(q);
}

/* A multicast group leaving B makes the PMD rewrite B's filter (F31):
 * the solicited-node MACs stay in it, so A still finds B. */
static void
test_filter_rewrite_keeps_nd(void **state)
{
	struct prdma_qp *qb = qp_new(&eb, PRDMA_QPT_UD);
	union prdma_gid mgid;
	struct prdma_ah *ah;

	(void)state;
	assert_int_equal(prdma_gid_from_str(&mgid, "ff0e::1:2"), 0);
	assert_int_equal(prdma_qp_attach_mcast(qb, &mgid), 0);
	assert_int_equal(prdma_qp_detach_mcast(qb, &mgid), 0);
	cache_flush(&ea);
	ah = ah_to(&ea, 2, 0);
	assert_non_null(ah);
	assert_memory_equal(((struct hermon_ah *)ah)->l2 + 2, mac_b, 6);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	assert_int_equal(prdma_qp_destroy(qb), 0);
}

/* ip6= is GID 2 (the link-local one stays GID 0). */
static void
test_gid(void **state)
{
	union prdma_gid g, want;

	(void)state;
	v6_ip(want.raw, 3);
	assert_int_equal(prdma_gid_query(ea.dev, 1, 2, &g), 0);
	assert_memory_equal(g.raw, want.raw, 16);
	assert_int_equal(prdma_gid_query(ea.dev, 1, 0, &g), 0);
	assert_int_equal(g.raw[0], 0xfe);
}

/* Frame @k of a little-endian pcap into @f: its length (0: none). */
static uint32_t
pcap_frame(const char *path, unsigned int k, uint8_t *f, uint32_t cap)
{
	FILE *fp = fopen(path, "rb");
	uint32_t rec[4], got = 0;
	unsigned int i;

	if (fp == NULL || fseek(fp, 24, SEEK_SET) != 0)
		goto out;
	for (i = 0; i <= k; i++) {
		if (fread(rec, sizeof(rec), 1, fp) != 1 || rec[2] > cap ||
		    fread(f, 1, rec[2], fp) != rec[2])
			goto out;
	}
	got = rec[2];
out:
	if (fp != NULL)
		fclose(fp);
	return got;
}

/*
 * A Linux kernel's NS (2001:db8::2 at 02:c9:00:00:01:02, B's addresses,
 * asking for 2001:db8::3, A's) and the kernel's NA answering it, captured
 * on a veth pair (tests/data/pcaps/README.md): the PMD builds the same
 * bytes, parses both, and answers the kernel's NS.
 */
static void
test_linux_frames(void **state)
{
	struct hermon_qp *q = raw_qp(&eb);
	struct hermon_arp_stats st0, st1;
	struct hermon_nd_msg m;
	uint8_t ns[128], na[128], ours[HERMON_ND_FRAME], ipa[16], ipb[16];
	uint32_t ns_len, na_len;

	(void)state;
	v6_ip(ipa, 3);
	v6_ip(ipb, 2);
	ns_len = pcap_frame(T_PCAP_DIR "/nd-linux.pcap", 0, ns, sizeof(ns));
	na_len = pcap_frame(T_PCAP_DIR "/nd-linux.pcap", 1, na, sizeof(na));
	assert_int_equal(ns_len, HERMON_ND_FRAME);
	assert_int_equal(na_len, HERMON_ND_FRAME);
	assert_int_equal(hermon_nd_ns(ours, mac_b, ipb, ipa), ns_len);
	assert_memory_equal(ours, ns, ns_len);
	assert_int_equal(hermon_nd_na(ours, mac_a, mac_b, ipa, ipb), na_len);
	assert_memory_equal(ours, na, na_len);
	assert_int_equal(hermon_nd_parse(ns, ns_len, &m), 1);
	assert_int_equal(m.type, HERMON_ND_NS);
	assert_true(m.has_lladdr);
	assert_memory_equal(m.lladdr, mac_b, 6);
	assert_memory_equal(m.target, ipa, 16);
	assert_int_equal(hermon_nd_parse(na, na_len, &m), 1);
	assert_int_equal(m.type, HERMON_ND_NA);
	assert_true(m.solicited && m.has_lladdr);
	assert_memory_equal(m.lladdr, mac_a, 6);
	/* the kernel's NS, sent on the cable: A's agent answers it */
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st0), 0);
	memcpy(eb.buf, ns, ns_len);
	raw_send(&eb, q, ns_len);
	wait_received(&ea, st0.received);
	usleep(20000);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st1), 0);
	assert_int_equal(st1.nd_answered - st0.nd_answered, 1);
	assert_int_equal(hermon_qp_destroy(&q->pub), 0);
	rte_free(q);
}

/* On a RoCE v1/v2 device ip6= is GID 4 (v2) and 5 (v1), after 0-3. */
static void
test_gid_v1_v2(void **state)
{
	int id = prdma_dev_probe("hermon:model,name=ndv2,model_rocev2=1,ip6=2001:db8::5");
	union prdma_gid g, want;
	struct prdma_dev *dev;

	(void)state;
	assert_true(id >= 0);
	dev = prdma_dev_open((uint16_t)id);
	assert_non_null(dev);
	v6_ip(want.raw, 5);
	assert_int_equal(prdma_gid_query(dev, 1, 4, &g), 0);
	assert_memory_equal(g.raw, want.raw, 16);
	assert_int_equal(prdma_gid_query(dev, 1, 5, &g), 0);
	assert_memory_equal(g.raw, want.raw, 16);
	assert_int_equal(prdma_gid_query(dev, 1, 2, &g), 0);
	assert_int_equal(g.raw[0], 0xfe);       /* 2 is GID 0 again, as v1 */
	prdma_dev_close(dev);
	prdma_dev_remove((uint16_t)id);
}

/* Our own ip6= is our MAC without asking. */
static void
test_self_address(void **state)
{
	struct prdma_neigh_stats s0, s1;
	struct prdma_ah *ah;

	(void)state;
	prdma_neigh_stats_get(&ea.hd->neigh, &s0);
	ah = ah_to(&ea, 3, PRDMA_AH_F_NOWAIT);
	assert_non_null(ah);
	assert_memory_equal(((struct hermon_ah *)ah)->l2 + 2, mac_a, 6);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	prdma_neigh_stats_get(&ea.hd->neigh, &s1);
	assert_int_equal(s1.solicits, s0.solicits);
}

static int
end_up(struct end *e, const char *args, const char *model)
{
	struct prdma_cq_init_attr ca = { .cqe = 64 };

	memset(e, 0, sizeof(*e));
	e->id = prdma_dev_probe(args);
	if (e->id < 0)
		return -1;
	e->dev = prdma_dev_open((uint16_t)e->id);
	if (e->dev == NULL)
		return -1;
	e->hd = e->dev->priv;
	e->m = hermon_model_get(model);
	e->pd = prdma_pd_alloc(e->dev);
	e->cq = prdma_cq_create(e->dev, &ca);
	e->buf = rte_zmalloc("t_nd", 8192, 64);
	if (e->m == NULL || e->pd == NULL || e->cq == NULL || e->buf == NULL)
		return -1;
	e->mr = prdma_mr_reg(e->pd, e->buf, 8192, PRDMA_ACCESS_LOCAL_WRITE);
	return e->mr != NULL ? 0 : -1;
}

static void
end_down(struct end *e)
{
	prdma_mr_dereg(e->mr);
	rte_free(e->buf);
	prdma_cq_destroy(e->cq);
	prdma_pd_free(e->pd);
	prdma_dev_close(e->dev);
	prdma_dev_remove((uint16_t)e->id);
	hermon_model_put(e->m);
}

static int
setup(void **state)
{
	(void)state;
	if (t_eal_init() != 0)
		return -1;
	if (end_up(&ea, A_ARGS, "nd.0") != 0 || end_up(&eb, B_ARGS, "nd.1") != 0)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	end_down(&eb);
	end_down(&ea);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_connection),
		cmocka_unit_test(test_ud_ah),
		cmocka_unit_test(test_nowait),
		cmocka_unit_test(test_unanswered_filtered),
		cmocka_unit_test(test_forged_na),
		cmocka_unit_test(test_bad_ns),
		cmocka_unit_test(test_filter_rewrite_keeps_nd),
		cmocka_unit_test(test_linux_frames),
		cmocka_unit_test(test_gid),
		cmocka_unit_test(test_gid_v1_v2),
		cmocka_unit_test(test_self_address),
	};

	return cmocka_run_group_tests_name("hermon-nd", tests, setup, teardown);
}
