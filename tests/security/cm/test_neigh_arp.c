/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * F7 of the security review: the soft RoCE device learns a MAC only from
 * the answer to a request it made, or from a request of an address it
 * already holds; entries age out, and a flood of answers cannot evict
 * the entries of peers in use. Port mode on a net_ring port (the device
 * does its own ARP there).
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include <prdma.h>
#include <prdma_roce.h>

#include "roce.h"
#include "t_eal.h"
#include "t_sec.h"

static struct t_dev b;
static uint32_t our_ip;

static struct prdma_roce_stats
xst(void)
{
	struct prdma_roce_stats st;

	assert_int_equal(prdma_roce_stats_get(b.dev, &st), 0);
	return st;
}

/* A non-blocking AH to @ip: NULL with EAGAIN while it is unresolved. */
static struct prdma_ah *
ah_nowait(uint32_t ip)
{
	struct prdma_ah_attr a;

	memset(&a, 0, sizeof(a));
	prdma_gid_from_ipv4(&a.dgid, ip);
	a.port_num = 1;
	a.hop_limit = 64;
	a.flags = PRDMA_AH_F_NOWAIT;
	return prdma_ah_create(b.pd, &a);
}

static void
mac_of(uint8_t mac[6], uint32_t n)
{
	mac[0] = 0x02;
	mac[1] = 0x5e;
	mac[2] = 0;
	mac[3] = 0;
	mac[4] = (uint8_t)(n >> 8);
	mac[5] = (uint8_t)n;
}

/* The destination MAC an AH to @ip carries. */
static void
expect_ah_mac(uint32_t ip, const uint8_t mac[6])
{
	struct prdma_ah *ah = ah_nowait(ip);

	assert_non_null(ah);
	assert_memory_equal(((struct roce_ah *)ah)->path.hdr, mac, 6);
	assert_int_equal(prdma_ah_destroy(ah), 0);
}

static void
expect_unresolved(uint32_t ip)
{
	assert_null(ah_nowait(ip));
	assert_int_equal(rte_errno, EAGAIN);
}

/* Resolve @ip: our request, then @mac's reply. */
static void
resolve(uint32_t ip, const uint8_t mac[6])
{
	uint64_t r0 = xst().arp_requests;

	expect_unresolved(ip);
	assert_true(xst().arp_requests > r0);      /* the request went out */
	t_inject_arp(&b, 2, mac, ip, our_ip);
	expect_ah_mac(ip, mac);
}

static void
test_unsolicited_not_learnt(void **state)
{
	struct prdma_roce_stats s0 = xst();
	uint8_t mac[6];

	(void)state;
	mac_of(mac, 1);
	/* A reply nobody asked for, and a stranger's request for us. */
	t_inject_arp(&b, 2, mac, T_PEER(101), our_ip);
	t_inject_arp(&b, 1, mac, T_PEER(102), our_ip);
	assert_int_equal(xst().neigh_learned, s0.neigh_learned);
	assert_int_equal(xst().neigh_ignored - s0.neigh_ignored, 2);
	assert_int_equal(xst().arp_replies - s0.arp_replies, 1);   /* answered */
	expect_unresolved(T_PEER(101));
	expect_unresolved(T_PEER(102));
}

static void
test_solicited_learnt_and_not_overwritten(void **state)
{
	uint8_t mac[6], evil[6];

	(void)state;
	mac_of(mac, 2);
	mac_of(evil, 0x666);
	resolve(T_PEER(103), mac);
	/* Someone else's unsolicited reply does not redirect the peer. */
	t_inject_arp(&b, 2, evil, T_PEER(103), our_ip);
	expect_ah_mac(T_PEER(103), mac);
}

static void
test_entries_expire(void **state)
{
	struct roce_dev *dev = roce_dev_of(b.dev);
	uint8_t mac[6];
	unsigned int i;

	(void)state;
	mac_of(mac, 3);
	resolve(T_PEER(104), mac);
	/* Age the entry past its lifetime: the next resolution asks again. */
	for (i = 0; i < ROCE_NEIGH_MAX; i++)
		if (dev->neigh[i].valid && memcmp(dev->neigh[i].ip, &(uint8_t[4]){
			198, 51, 100, 104 }, 4) == 0)
			dev->neigh[i].confirmed_ms -= 61000;
	expect_unresolved(T_PEER(104));
}

static void
test_abandoned_request_takes_no_answer(void **state)
{
	struct roce_dev *dev = roce_dev_of(b.dev);
	struct prdma_roce_stats s0;
	uint8_t mac[6];
	unsigned int i;

	(void)state;
	mac_of(mac, 5);
	expect_unresolved(T_PEER(105));
	/* Nobody asked again for 3 s: a late "answer" is unsolicited. */
	for (i = 0; i < ROCE_NEIGH_PENDING; i++)
		dev->neigh_req[i].started_ms -= 3000;
	s0 = xst();
	t_inject_arp(&b, 2, mac, T_PEER(105), our_ip);
	assert_int_equal(xst().neigh_learned, s0.neigh_learned);
	assert_int_equal(xst().neigh_ignored - s0.neigh_ignored, 1);
	expect_unresolved(T_PEER(105));
}

static unsigned int
cached_of(uint32_t base, unsigned int count)
{
	struct roce_dev *dev = roce_dev_of(b.dev);
	unsigned int i, n, found = 0;

	for (n = 0; n < count; n++) {
		uint32_t ip = rte_cpu_to_be_32(base + n);

		for (i = 0; i < ROCE_NEIGH_MAX; i++)
			if (dev->neigh[i].valid && memcmp(dev->neigh[i].ip, &ip, 4) == 0)
				found++;
	}
	return found;
}

static void
test_flood_cannot_evict_live_peers(void **state)
{
	uint32_t live = T_PEER(1) + 0x10000, flood = T_PEER(1) + 0x20000;
	unsigned int n, before;
	uint8_t mac[6];

	(void)state;
	/* Fill the cache with peers in use (the earlier tests hold a slot). */
	for (n = 0; n < ROCE_NEIGH_MAX; n++) {
		mac_of(mac, 0x100 + n);
		resolve(live + n, mac);
	}
	before = cached_of(live, ROCE_NEIGH_MAX);
	assert_true(before >= ROCE_NEIGH_MAX - 2);
	/* Then 64 more resolutions answered (a host answering everything
	 * we ask): each still gets its answer (resolve() checks)... */
	for (n = 0; n < 64; n++) {
		mac_of(mac, 0x200 + n);
		resolve(flood + n, mac);
	}
	/* ...but none took the place of a live peer's entry. */
	assert_int_equal(cached_of(live, ROCE_NEIGH_MAX), before);
	assert_int_equal(cached_of(flood, 64), 0);
}

static int
setup(void **state)
{
	(void)state;
	t_dev_open(&b, "roce:port=0,ip=192.0.2.12");
	our_ip = 0xc000020c;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	t_dev_close(&b);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unsolicited_not_learnt),
		cmocka_unit_test(test_solicited_learnt_and_not_overwritten),
		cmocka_unit_test(test_entries_expire),
		cmocka_unit_test(test_abandoned_request_takes_no_answer),
		cmocka_unit_test(test_flood_cannot_evict_live_peers),
	};

	setenv("PRDMA_TEST_EAL_ARGS", "--no-huge -m 512 --no-shconf --no-pci -l 0 "
	       "--vdev=net_ring0 --log-level=lib.eal:error --log-level=pmd.*:error", 1);
	if (t_eal_init() != 0)
		return 1;
	return cmocka_run_group_tests_name("neigh_arp", tests, setup, teardown);
}
