/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Multicast membership announcements of the soft provider (igmp=1): on the
 * first attach to a group it sends an IGMPv2 report (IPv4 groups) or an
 * MLDv2 report (IPv6 groups), on the last detach a leave, so that switches
 * and a kernel sharing the port keep the group's traffic flowing. The test
 * gives each provider (an IPv4 and an IPv6 one) one end of a net_ring pair
 * and reads the other end raw.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <prdma.h>

#include "t_eal.h"

struct env {
	uint16_t port[2];
	int id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp[2];
};

static struct rte_mempool *mp;
static struct env v4, v6;

/* A device on one end of a net_ring pair, the other end read raw. */
static void
env_make(struct env *e, const char *name, const char *ip)
{
	struct rte_eth_conf conf;
	struct rte_ring *r[2];
	struct prdma_cq_init_attr ca = { .cqe = 16 };
	struct prdma_qp_init_attr qa;
	char buf[128];
	int i, p;

	for (i = 0; i < 2; i++) {
		snprintf(buf, sizeof(buf), "%s_r%d", name, i);
		r[i] = rte_ring_create(buf, 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		assert_non_null(r[i]);
	}
	for (i = 0; i < 2; i++) {
		snprintf(buf, sizeof(buf), "%s_p%d", name, i);
		p = rte_eth_from_rings(buf, &r[i], 1, &r[1 - i], 1, SOCKET_ID_ANY);
		assert_true(p >= 0);
		e->port[i] = (uint16_t)p;
	}
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(rte_eth_dev_configure(e->port[1], 1, 1, &conf), 0);
	assert_int_equal(rte_eth_rx_queue_setup(e->port[1], 0, 256, SOCKET_ID_ANY, NULL,
						mp), 0);
	assert_int_equal(rte_eth_tx_queue_setup(e->port[1], 0, 256, SOCKET_ID_ANY, NULL), 0);
	assert_int_equal(rte_eth_dev_start(e->port[1]), 0);

	snprintf(buf, sizeof(buf), "roce:port=%u,ip=%s,igmp=1", e->port[0], ip);
	e->id = prdma_dev_probe(buf);
	assert_true(e->id >= 0);
	e->dev = prdma_dev_open(e->id);
	e->pd = prdma_pd_alloc(e->dev);
	e->cq = prdma_cq_create(e->dev, &ca);
	assert_non_null(e->cq);
	for (i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_type = PRDMA_QPT_UD;
		qa.send_cq = e->cq;
		qa.recv_cq = e->cq;
		qa.cap.max_send_wr = 4;
		qa.cap.max_recv_wr = 4;
		qa.cap.max_send_sge = 1;
		qa.cap.max_recv_sge = 1;
		e->qp[i] = prdma_qp_create(e->pd, &qa);
		assert_non_null(e->qp[i]);
	}
}

static void
env_free(struct env *e)
{
	prdma_qp_destroy(e->qp[0]);
	prdma_qp_destroy(e->qp[1]);
	prdma_cq_destroy(e->cq);
	prdma_pd_free(e->pd);
	prdma_dev_close(e->dev);
	prdma_dev_remove(e->id);
	rte_eth_dev_stop(e->port[1]);
}

static int
setup(void **state)
{
	(void)state;
	if (t_eal_init() < 0)
		return -1;
	mp = rte_pktmbuf_pool_create("mcann_mp", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	assert_non_null(mp);
	env_make(&v4, "mca4", "192.0.2.1");
	env_make(&v6, "mca6", "2001:db8::1");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	env_free(&v4);
	env_free(&v6);
	return 0;
}

/* Everything the provider sent so far, as one frame (fails unless exactly one). */
static struct rte_mbuf *
one_frame(struct env *e, const char *what)
{
	struct rte_mbuf *m[8];
	uint16_t n, i, tries;

	for (tries = 0, n = 0; tries < 1000 && n == 0; tries++) {
		prdma_dev_progress(e->dev);
		n = rte_eth_rx_burst(e->port[1], 0, m, RTE_DIM(m));
	}
	if (n != 1) {
		for (i = 0; i < n; i++)
			rte_pktmbuf_free(m[i]);
		fail_msg("%s: expected exactly one frame on the wire, got %u", what, n);
	}
	return m[0];
}

static void
no_frame(struct env *e, const char *what)
{
	struct rte_mbuf *m[8];
	uint16_t n, i, tries, total = 0;

	for (tries = 0; tries < 200; tries++) {
		prdma_dev_progress(e->dev);
		n = rte_eth_rx_burst(e->port[1], 0, m, RTE_DIM(m));
		for (i = 0; i < n; i++)
			rte_pktmbuf_free(m[i]);
		total += n;
	}
	if (total != 0)
		fail_msg("%s: expected no frame on the wire, got %u", what, total);
}

/* Check an IGMPv2 message: Ethernet to the group MAC, IP with Router Alert. */
static void
check_igmp(struct rte_mbuf *m, uint8_t type, uint32_t group, uint32_t ip_dst)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv4_hdr *ip = (const void *)(p + 14);
	const uint8_t *igmp = p + 14 + 24;
	const uint8_t mac[6] = { 0x01, 0x00, 0x5e, (ip_dst >> 16) & 0x7f,
				 (ip_dst >> 8) & 0xff, ip_dst & 0xff };
	uint32_t g;

	assert_true(rte_pktmbuf_data_len(m) >= 14 + 24 + 8);
	assert_memory_equal(p, mac, 6);
	assert_int_equal(p[12], 0x08);
	assert_int_equal(p[13], 0x00);
	assert_int_equal(ip->version_ihl, 0x46);          /* 24-byte header: RA */
	assert_int_equal(ip->next_proto_id, 2);
	assert_int_equal(ip->time_to_live, 1);
	assert_int_equal(rte_be_to_cpu_32(ip->dst_addr), ip_dst);
	assert_int_equal(rte_be_to_cpu_32(ip->src_addr), 0xc0000201u); /* 192.0.2.1 */
	assert_int_equal(p[14 + 20], 0x94);                /* Router Alert option */
	assert_int_equal((uint16_t)~rte_raw_cksum(ip, 24), 0);
	assert_int_equal(igmp[0], type);
	assert_int_equal((uint16_t)~rte_raw_cksum(igmp, 8), 0);
	memcpy(&g, igmp + 4, 4);
	assert_int_equal(rte_be_to_cpu_32(g), group);
}

static void
test_igmp_join_leave(void **state)
{
	union prdma_gid gid;
	struct rte_mbuf *m;

	(void)state;
	assert_int_equal(prdma_gid_from_str(&gid, "239.1.2.3"), 0);
	no_frame(&v4, "before any attach");
	assert_int_equal(prdma_qp_attach_mcast(v4.qp[0], &gid), 0);
	m = one_frame(&v4, "first attach to 239.1.2.3");
	check_igmp(m, 0x16, 0xef010203u, 0xef010203u);
	rte_pktmbuf_free(m);
	/* A second member joins nothing new on the wire. */
	assert_int_equal(prdma_qp_attach_mcast(v4.qp[1], &gid), 0);
	no_frame(&v4, "second attach to the same group");
	assert_int_equal(prdma_qp_detach_mcast(v4.qp[0], &gid), 0);
	no_frame(&v4, "detach while a member remains");
	assert_int_equal(prdma_qp_detach_mcast(v4.qp[1], &gid), 0);
	m = one_frame(&v4, "last detach from 239.1.2.3");
	check_igmp(m, 0x17, 0xef010203u, 0xe0000002u);     /* to all routers */
	rte_pktmbuf_free(m);
}

static void
test_mld_join_leave(void **state)
{
	static const uint8_t mld_mac[6] = { 0x33, 0x33, 0, 0, 0, 0x16 };
	union prdma_gid gid;
	struct rte_mbuf *m;
	const uint8_t *p, *icmp;
	unsigned int pass;

	(void)state;
	assert_int_equal(prdma_gid_from_str(&gid, "ff0e::1:2345"), 0);
	for (pass = 0; pass < 2; pass++) {
		if (pass == 0)
			assert_int_equal(prdma_qp_attach_mcast(v6.qp[0], &gid), 0);
		else
			assert_int_equal(prdma_qp_detach_mcast(v6.qp[0], &gid), 0);
		m = one_frame(&v6, pass == 0 ? "MLD join" : "MLD leave");
		p = rte_pktmbuf_mtod(m, const uint8_t *);
		assert_true(rte_pktmbuf_data_len(m) >= 14 + 40 + 8 + 28);
		assert_memory_equal(p, mld_mac, 6);               /* ff02::16 */
		assert_int_equal(p[12], 0x86);
		assert_int_equal(p[13], 0xdd);
		assert_int_equal(p[14 + 6], 0);                   /* hop-by-hop */
		assert_int_equal(p[14 + 7], 1);                   /* hop limit 1 */
		assert_int_equal(p[14 + 40], 58);                 /* then ICMPv6 */
		icmp = p + 14 + 40 + 8;
		assert_int_equal(icmp[0], 143);                   /* MLDv2 report */
		assert_int_equal(icmp[8], pass == 0 ? 4 : 3);     /* TO_EX / TO_IN */
		assert_memory_equal(icmp + 12, gid.raw, 16);
		rte_pktmbuf_free(m);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_igmp_join_leave),
		cmocka_unit_test(test_mld_join_leave),
	};

	return cmocka_run_group_tests_name("mcast-announce", tests, setup, teardown);
}
