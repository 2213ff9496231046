/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * F13: the DMAC of Hermon RC paths and UD AHs comes from the library's
 * neighbour cache (prdma_neigh.h, the soft provider's), whose static
 * entries are the devargs' neigh=IP/MAC, IPv4 and IPv6. The UD AH's DMAC
 * is read where the PMD keeps it for the datagram segment (hermon_ah.l2).
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_errno.h>

#include "prdma.h"
#include "prdma_provider.h"
#include "t_eal.h"
#include "hermon_dev.h"
#include "hermon_model.h"
#include "hermon_obj.h"

static struct hermon_model *m;
static int id;
static struct prdma_dev *dev;
static struct prdma_pd *pd;
static struct prdma_cq *cq;

static const uint8_t v6_peer[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
static const uint8_t v6_mac[6] = { 0x02, 0xc9, 0, 0, 0, 0x62 };
static const uint8_t v4_mac[6] = { 0x02, 0xc9, 0, 0, 0, 0x42 };

static void
v4_gid(union prdma_gid *g, uint8_t last)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	g->raw[12] = 192;
	g->raw[14] = 2;
	g->raw[15] = last;
}

static struct prdma_ah_attr
ah_to(const union prdma_gid *g, uint32_t flags)
{
	struct prdma_ah_attr aa;

	memset(&aa, 0, sizeof(aa));
	aa.dgid = *g;
	aa.port_num = 1;
	aa.flags = flags;
	return aa;
}

/* The AH's DMAC, or NULL with rte_errno. */
static struct prdma_ah *
ah_mac(const union prdma_gid *g, uint32_t flags, uint8_t mac[6])
{
	struct prdma_ah_attr aa = ah_to(g, flags);
	struct prdma_ah *ah = prdma_ah_create(pd, &aa);

	if (ah != NULL)
		memcpy(mac, ((struct hermon_ah *)ah)->l2 + 2, 6);
	return ah;
}

/* An RC QP taken to RTR towards @g: prdma_qp_modify()'s result. */
static int
rc_rtr(const union prdma_gid *g, uint32_t flags)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp_attr a;
	struct prdma_qp *qp;
	int ret;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = prdma_qp_create(pd, &ia);
	assert_non_null(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = PRDMA_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr = ah_to(g, flags);
	ret = prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU |
			      PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
			      PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER);
	if (ret == 0)
		assert_int_equal(qp->state, PRDMA_QPS_RTR);
	else
		assert_int_equal(qp->state, PRDMA_QPS_INIT);
	assert_int_equal(prdma_qp_destroy(qp), 0);
	return ret;
}

/* IPv6 static neighbours (the PMD took only IPv4 ones) resolve paths and AHs. */
static void
test_ipv6_static_neighbour(void **state)
{
	union prdma_gid g;
	struct prdma_ah *ah;
	uint8_t mac[6];

	(void)state;
	memcpy(g.raw, v6_peer, 16);
	ah = ah_mac(&g, 0, mac);
	assert_non_null(ah);
	assert_memory_equal(mac, v6_mac, 6);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	assert_int_equal(rc_rtr(&g, 0), 0);
	/* another IPv6 peer: no MAC known */
	g.raw[15] = 3;
	assert_null(ah_mac(&g, 0, mac));
	assert_int_equal(rte_errno, EHOSTUNREACH);
	assert_int_equal(rc_rtr(&g, 0), -EHOSTUNREACH);
}

/* IPv4 static neighbours still do; the caller's DMAC wins over them. */
static void
test_ipv4_static_neighbour(void **state)
{
	union prdma_gid g;
	struct prdma_ah *ah;
	uint8_t mac[6];

	(void)state;
	v4_gid(&g, 2);
	ah = ah_mac(&g, 0, mac);
	assert_non_null(ah);
	assert_memory_equal(mac, v4_mac, 6);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	{
		struct prdma_ah_attr aa = ah_to(&g, PRDMA_AH_F_DMAC);

		aa.dmac.addr_bytes[0] = 0x02;
		aa.dmac.addr_bytes[5] = 0x99;
		ah = prdma_ah_create(pd, &aa);
		assert_non_null(ah);
		assert_int_equal(((struct hermon_ah *)ah)->l2[2 + 5], 0x99);
		assert_int_equal(prdma_ah_destroy(ah), 0);
	}
	assert_int_equal(rc_rtr(&g, 0), 0);
}

/*
 * The semantics of a miss without ip=: the PMD has no address to send ARP
 * from (hermon_arp.c starts no agent), so blocking and PRDMA_AH_F_NOWAIT
 * callers both get EHOSTUNREACH at once, never EAGAIN they would retry in
 * vain; and the misses and hits are the shared cache's counters (with
 * ip=, hermon-arp).
 */
static void
test_miss_semantics(void **state)
{
	struct hermon_dev *hd = dev->priv;
	struct prdma_neigh_stats s0, s1;
	union prdma_gid g;
	uint8_t mac[6];
	unsigned int i, statics = 0;

	(void)state;
	for (i = 0; i < HERMON_NEIGH_MAX; i++)
		statics += hd->neigh_ent[i].valid && hd->neigh_ent[i].is_static;
	assert_int_equal(statics, 2);
	prdma_neigh_stats_get(&hd->neigh, &s0);
	v4_gid(&g, 77);
	assert_null(ah_mac(&g, PRDMA_AH_F_NOWAIT, mac));
	assert_int_equal(rte_errno, EHOSTUNREACH);
	assert_int_equal(rc_rtr(&g, PRDMA_AH_F_NOWAIT), -EHOSTUNREACH);
	v4_gid(&g, 2);
	assert_int_equal(rc_rtr(&g, PRDMA_AH_F_NOWAIT), 0);
	prdma_neigh_stats_get(&hd->neigh, &s1);
	assert_int_equal(s1.misses - s0.misses, 2);
	assert_int_equal(s1.hits - s0.hits, 1);
	assert_int_equal(s1.solicits, 0);
}

static int
setup(void **state)
{
	struct hermon_model_conf conf = { .name = "tl2", .ports = 1 };
	struct prdma_cq_init_attr ca = { .cqe = 16 };

	(void)state;
	if (t_eal_init() != 0)
		return -1;
	m = hermon_model_create(&conf);
	if (m == NULL)
		return -1;
	id = prdma_dev_probe("hermon:model,name=tl2,neigh=192.0.2.2/02:c9:00:00:00:42,"
			     "neigh=2001:db8::2/02:c9:00:00:00:62");
	if (id < 0)
		return -1;
	dev = prdma_dev_open((uint16_t)id);
	pd = dev != NULL ? prdma_pd_alloc(dev) : NULL;
	cq = dev != NULL ? prdma_cq_create(dev, &ca) : NULL;
	return pd != NULL && cq != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	prdma_cq_destroy(cq);
	prdma_pd_free(pd);
	prdma_dev_close(dev);
	prdma_dev_remove((uint16_t)id);
	hermon_model_put(m);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv6_static_neighbour),
		cmocka_unit_test(test_ipv4_static_neighbour),
		cmocka_unit_test(test_miss_semantics),
	};

	return cmocka_run_group_tests_name("hermon-l2", tests, setup, teardown);
}
