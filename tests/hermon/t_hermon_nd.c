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
#include "t_hermon_common.h"

#define A_ARGS "hermon:model,link=nd,side=0,ip6=2001:db8::3,mac=02:c9:00:00:01:03"
#define B_ARGS "hermon:model,link=nd,side=1,ip6=2001:db8::2,mac=02:c9:00:00:01:02"

static const uint8_t mac_a[6] = { 0x02, 0xc9, 0, 0, 0x01, 0x03 };
static const uint8_t mac_b[6] = { 0x02, 0xc9, 0, 0, 0x01, 0x02 };

static struct t_end ea, eb;

/* An RC connection A <-> B to the IPv6 GIDs, no neigh=: ND both ways. */
static void
test_rc_connection(void **state)
{
	struct prdma_qp *qa = t_qp_new(&ea, PRDMA_QPT_RC), *qb = t_qp_new(&eb, PRDMA_QPT_RC);
	struct hermon_arp_stats sa, sb;
	struct prdma_neigh_stats s;
	struct prdma_wc wc;

	(void)state;
	t_cache_flush(&ea);
	t_cache_flush(&eb);
	assert_int_equal(t_rc_rtr(&ea, qa, 2, qb->qp_num, 0), 0);
	assert_int_equal(t_rc_rtr(&eb, qb, 3, qa->qp_num, 0), 0);
	t_rc_rts(qa);
	t_rc_rts(qb);
	t_post_recv(&eb, qb, 7);
	memcpy(ea.buf, "over nd!", 8);
	assert_int_equal(t_post_send(&ea, qa, NULL, 0, 0, 8), 0);
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(eb.buf + T_RX, "over nd!", 8);
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
	struct prdma_qp *qa = t_qp_new(&ea, PRDMA_QPT_UD), *qb = t_qp_new(&eb, PRDMA_QPT_UD);
	struct prdma_qp_attr a;
	struct prdma_ah *ah;
	struct prdma_wc wc;

	(void)state;
	t_cache_flush(&eb);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(prdma_qp_modify(qa, &a, PRDMA_QP_STATE), 0);
	assert_int_equal(prdma_qp_modify(qb, &a, PRDMA_QP_STATE), 0);
	a.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(prdma_qp_modify(qa, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	assert_int_equal(prdma_qp_modify(qb, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	ah = t_ah_to(&eb, 3, 0);
	assert_non_null(ah);
	assert_memory_equal(((struct hermon_ah *)ah)->l2 + 2, mac_a, 6);
	t_post_recv(&ea, qa, 7);
	memcpy(eb.buf, "ud by nd", 8);
	assert_int_equal(t_post_send(&eb, qb, ah, qa->qp_num, 0x11111111, 8), 0);
	assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(ea.buf + T_RX + 40, "ud by nd", 8);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	assert_int_equal(prdma_qp_destroy(qa), 0);
	assert_int_equal(prdma_qp_destroy(qb), 0);
}

/* NOWAIT: EAGAIN while the NS is out, then the AH. */
static void
test_nowait(void **state)
{
	uint64_t t0 = t_now_ms();
	struct prdma_ah *ah;
	unsigned int eagain = 0;

	(void)state;
	t_cache_flush(&ea);
	for (;;) {
		ah = t_ah_to(&ea, 2, PRDMA_AH_F_NOWAIT);
		if (ah != NULL)
			break;
		assert_int_equal(rte_errno, EAGAIN);
		eagain++;
		assert_true(t_now_ms() - t0 < 2000);
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
	struct prdma_qp *qa = t_qp_new(&ea, PRDMA_QPT_RC);
	struct hermon_model_stats m0, m1;
	struct hermon_arp_stats st0, st1;
	uint64_t t0 = t_now_ms(), dt;

	(void)state;
	assert_int_equal(hermon_model_get_stats(eb.m, &m0), 0);
	assert_int_equal(hermon_arp_get_stats(eb.hd, 1, &st0), 0);
	assert_null(t_ah_to(&ea, 99, PRDMA_AH_F_NOWAIT));
	assert_int_equal(rte_errno, EAGAIN);
	assert_null(t_ah_to(&ea, 99, 0));
	assert_int_equal(rte_errno, EHOSTUNREACH);
	dt = t_now_ms() - t0;
	assert_true(dt >= 900 && dt < 5000);
	assert_int_equal(t_rc_rtr(&ea, qa, 99, 1, 0), -EHOSTUNREACH);
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
	struct hermon_qp *q = t_raw_qp(&eb);
	struct prdma_neigh_stats s0, s1;
	struct hermon_arp_stats st;
	struct rte_ether_addr mac;
	uint8_t tgt[16], ipa[16];

	(void)state;
	t_v6_ip(tgt, 77);
	t_v6_ip(ipa, 3);
	prdma_neigh_stats_get(&ea.hd->neigh, &s0);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st), 0);
	t_raw_send(&eb, q, hermon_nd_na(eb.buf, evil, mac_a, tgt, ipa));
	t_wait_received(&ea, st.received);
	prdma_neigh_stats_get(&ea.hd->neigh, &s1);
	assert_int_equal(s1.ignored - s0.ignored, 1);
	assert_int_equal(s1.learned, s0.learned);
	assert_int_equal(prdma_neigh_lookup(&ea.hd->neigh, tgt, 1, &mac), -ENOENT);
	assert_null(t_ah_to(&ea, 77, PRDMA_AH_F_NOWAIT));
	assert_int_equal(rte_errno, EAGAIN);
	assert_int_equal(hermon_qp_destroy(&q->pub), 0);
	rte_free(q);
}

/* B's NS for A's address, as it is, then with a bad checksum or hop
 * limit 254: A answers the first, drops (counts) the others. */
static void
test_bad_ns(void **state)
{
	struct hermon_qp *q = t_raw_qp(&eb);
	struct hermon_arp_stats st0, st1;
	uint8_t ipa[16], ipb[16];
	uint32_t len;

	(void)state;
	t_v6_ip(ipa, 3);
	t_v6_ip(ipb, 2);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st0), 0);
	len = hermon_nd_ns(eb.buf, mac_b, ipb, ipa);
	/* the checksum as DPDK computes it over the same pseudo-header */
	assert_int_equal(rte_ipv6_udptcp_cksum_verify((const void *)(eb.buf + 14),
						      eb.buf + 54), 0);
	assert_int_equal(len, 86);
	assert_int_equal(eb.buf[21], 255);
	t_raw_send(&eb, q, len);
	t_wait_received(&ea, st0.received);
	usleep(20000);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st1), 0);
	assert_int_equal(st1.nd_answered - st0.nd_answered, 1);
	assert_int_equal(st1.nd_bad, st0.nd_bad);
	/* the checksum (ICMPv6 at byte 54, its checksum at 56) */
	st0 = st1;
	eb.buf[57] ^= 0x01;
	t_raw_send(&eb, q, len);
	t_wait_received(&ea, st0.received);
	assert_int_equal(hermon_arp_get_stats(ea.hd, 1, &st1), 0);
	assert_int_equal(st1.nd_bad - st0.nd_bad, 1);
	assert_int_equal(st1.nd_answered, st0.nd_answered);
	/* a routed NS: hop limit 254 (not in the checksum) */
	st0 = st1;
	len = hermon_nd_ns(eb.buf, mac_b, ipb, ipa);
	eb.buf[21] = 254;
	t_raw_send(&eb, q, len);
	t_wait_received(&ea, st0.received);
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
	struct prdma_qp *qb = t_qp_new(&eb, PRDMA_QPT_UD);
	union prdma_gid mgid;
	struct prdma_ah *ah;

	(void)state;
	assert_int_equal(prdma_gid_from_str(&mgid, "ff0e::1:2"), 0);
	assert_int_equal(prdma_qp_attach_mcast(qb, &mgid), 0);
	assert_int_equal(prdma_qp_detach_mcast(qb, &mgid), 0);
	t_cache_flush(&ea);
	ah = t_ah_to(&ea, 2, 0);
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
	t_v6_ip(want.raw, 3);
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
	struct hermon_qp *q = t_raw_qp(&eb);
	struct hermon_arp_stats st0, st1;
	struct hermon_nd_msg m;
	uint8_t ns[128], na[128], ours[HERMON_ND_FRAME], ipa[16], ipb[16];
	uint32_t ns_len, na_len;

	(void)state;
	t_v6_ip(ipa, 3);
	t_v6_ip(ipb, 2);
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
	t_raw_send(&eb, q, ns_len);
	t_wait_received(&ea, st0.received);
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
	t_v6_ip(want.raw, 5);
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
	ah = t_ah_to(&ea, 3, PRDMA_AH_F_NOWAIT);
	assert_non_null(ah);
	assert_memory_equal(((struct hermon_ah *)ah)->l2 + 2, mac_a, 6);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	prdma_neigh_stats_get(&ea.hd->neigh, &s1);
	assert_int_equal(s1.solicits, s0.solicits);
}

static int
setup(void **state)
{
	(void)state;
	return t_ends_up(&ea, A_ARGS, &eb, B_ARGS, "nd", true);
}

static int
teardown(void **state)
{
	(void)state;
	t_ends_down(&ea, &eb);
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
