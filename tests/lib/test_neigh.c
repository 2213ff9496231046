/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The providers' neighbour cache (prdma_neigh.c) without a provider: the
 * test is the "provider", counting the requests the cache asks for and
 * feeding it answers. Ageing is tested by moving entries' timestamps
 * back, never by sleeping.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <prdma_provider.h>

#define NB_ENT 4
#define NB_REQ 8

static struct prdma_neigh_cache c;
static struct prdma_neigh_entry ent[NB_ENT];
static struct prdma_neigh_req req[NB_REQ];
static unsigned int solicited;
static int solicit_ret;
static int lookup_hit;

static int
t_solicit(void *ctx, const uint8_t *ip, int ipv6)
{
	(void)ctx;
	(void)ip;
	(void)ipv6;
	solicited++;
	return solicit_ret;
}

static int
t_lookup(void *ctx, const uint8_t *ip, int ipv6, struct rte_ether_addr *mac)
{
	(void)ctx;
	(void)ip;
	(void)ipv6;
	if (!lookup_hit)
		return 0;
	memset(mac->addr_bytes, 0, 6);
	mac->addr_bytes[0] = 0x02;
	mac->addr_bytes[5] = 0xee;
	return 1;
}

static const struct prdma_neigh_ops ops = { .solicit = t_solicit };
static const struct prdma_neigh_ops ops_lookup = { .solicit = t_solicit,
						   .lookup = t_lookup };

static int
setup(void **state)
{
	(void)state;
	solicited = 0;
	solicit_ret = 0;
	lookup_hit = 0;
	return prdma_neigh_init(&c, ent, NB_ENT, req, NB_REQ, &ops, NULL, 2);
}

static void
ip_of(uint8_t ip[4], unsigned int n)
{
	ip[0] = 198;
	ip[1] = 51;
	ip[2] = 100;
	ip[3] = (uint8_t)n;
}

static struct rte_ether_addr
mac_of(unsigned int n)
{
	struct rte_ether_addr m = { { 0x02, 0x5e, 0, 0, (uint8_t)(n >> 8), (uint8_t)n } };

	return m;
}

static struct prdma_neigh_entry *
entry_of(unsigned int n)
{
	uint8_t ip[4];
	unsigned int i;

	ip_of(ip, n);
	for (i = 0; i < NB_ENT; i++)
		if (ent[i].valid && !ent[i].ipv6 && memcmp(ent[i].ip, ip, 4) == 0)
			return &ent[i];
	return NULL;
}

/* Resolve peer @n: our request, its answer, then the entry. */
static void
learn(unsigned int n)
{
	struct rte_ether_addr mac, want = mac_of(n);
	unsigned int s0 = solicited;
	uint8_t ip[4];

	ip_of(ip, n);
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), -EAGAIN);
	assert_int_equal(solicited, s0 + 1);
	assert_int_equal(prdma_neigh_input(&c, ip, 0, &want, 0), 1);
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), 0);
	assert_memory_equal(&mac, &want, 6);
}

static void
test_bad_init(void **state)
{
	struct prdma_neigh_cache x;

	(void)state;
	assert_int_equal(prdma_neigh_init(&x, NULL, 1, req, 1, NULL, NULL, 0), -EINVAL);
	assert_int_equal(prdma_neigh_init(&x, ent, 0, req, 1, NULL, NULL, 0), -EINVAL);
	assert_int_equal(prdma_neigh_init(&x, ent, 1, req, 0, NULL, NULL, 0), -EINVAL);
}

static void
test_unsolicited_refused(void **state)
{
	struct rte_ether_addr mac = mac_of(1), got;
	struct prdma_neigh_stats st;
	uint8_t ip[4];

	(void)state;
	ip_of(ip, 1);
	/* a reply and a request nobody asked for: counted, not learnt */
	assert_int_equal(prdma_neigh_input(&c, ip, 0, &mac, 0), 0);
	assert_int_equal(prdma_neigh_input(&c, ip, 0, &mac, 1), 0);
	prdma_neigh_stats_get(&c, &st);
	assert_int_equal(st.ignored, 2);
	assert_int_equal(st.learned, 0);
	assert_null(entry_of(1));
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &got), -EAGAIN);
	/* a multicast or zero "MAC" is never taken, even when asked for */
	mac.addr_bytes[0] = 0x01;
	assert_int_equal(prdma_neigh_input(&c, ip, 0, &mac, 0), 0);
	memset(&mac, 0, sizeof(mac));
	assert_int_equal(prdma_neigh_input(&c, ip, 0, &mac, 0), 0);
	assert_null(entry_of(1));
}

static void
test_learnt_not_overwritten(void **state)
{
	struct rte_ether_addr evil = mac_of(0x666), fresh = mac_of(0x777), mac;
	uint8_t ip[4];

	(void)state;
	learn(2);
	ip_of(ip, 2);
	/* an unsolicited reply does not redirect the peer */
	assert_int_equal(prdma_neigh_input(&c, ip, 0, &evil, 0), 0);
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), 0);
	assert_int_equal(mac.addr_bytes[5], 2);
	/* a request from the known peer refreshes it (the peer moved) */
	assert_int_equal(prdma_neigh_input(&c, ip, 0, &fresh, 1), 1);
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), 0);
	assert_memory_equal(&mac, &fresh, 6);
}

static void
test_ageing(void **state)
{
	struct rte_ether_addr mac;
	unsigned int s0;
	uint8_t ip[4];

	(void)state;
	learn(3);
	ip_of(ip, 3);
	entry_of(3)->confirmed_ms -= PRDMA_NEIGH_TTL_MS - 1000;
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), 0);
	/* past its lifetime: asked again */
	entry_of(3)->confirmed_ms -= 2000;
	s0 = solicited;
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), -EAGAIN);
	assert_int_equal(solicited, s0 + 1);
}

static void
test_abandoned_request(void **state)
{
	struct rte_ether_addr mac = mac_of(4);
	unsigned int i;
	uint8_t ip[4];

	(void)state;
	ip_of(ip, 4);
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), -EAGAIN);
	for (i = 0; i < NB_REQ; i++)
		req[i].started_ms -= PRDMA_NEIGH_REQ_TTL_MS;
	assert_int_equal(prdma_neigh_input(&c, ip, 0, &mac, 0), 0);
	assert_null(entry_of(4));
}

static void
test_retry_paced(void **state)
{
	struct rte_ether_addr mac;
	uint64_t t0 = prdma_neigh_now_ms();
	unsigned int i;
	uint8_t ip[4];

	(void)state;
	ip_of(ip, 5);
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), -EAGAIN);
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), -EAGAIN);
	/* one request per PRDMA_NEIGH_RETRY_MS (unless this machine stalled) */
	if (prdma_neigh_now_ms() - t0 < PRDMA_NEIGH_RETRY_MS)
		assert_int_equal(solicited, 1);
	/* a request that did not go out is tried again at the next step */
	solicit_ret = -ENOBUFS;
	ip_of(ip, 6);
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), -EAGAIN);
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), -EAGAIN);
	assert_true(solicited >= 3);
	/* a provider that cannot ask fails the resolution */
	solicit_ret = -EHOSTUNREACH;
	ip_of(ip, 7);
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), -EHOSTUNREACH);
	for (i = 0; i < NB_REQ; i++)
		assert_false(req[i].valid && memcmp(req[i].ip, ip, 4) == 0);
}

static void
test_bound_and_held(void **state)
{
	struct rte_ether_addr mac, want = mac_of(20);
	struct prdma_neigh_stats st;
	unsigned int n;
	uint8_t ip[4];

	(void)state;
	for (n = 10; n < 10 + NB_ENT; n++)
		learn(n);
	/* every slot is held: a new answer is not cached, nothing evicted... */
	ip_of(ip, 20);
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), -EAGAIN);
	assert_int_equal(prdma_neigh_input(&c, ip, 0, &want, 0), 1);
	for (n = 10; n < 10 + NB_ENT; n++)
		assert_non_null(entry_of(n));
	assert_null(entry_of(20));
	/* ...but the resolution that asked still takes it, once */
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), 0);
	assert_memory_equal(&mac, &want, 6);
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), -EAGAIN);
	prdma_neigh_stats_get(&c, &st);
	assert_int_equal(st.full, 1);
	assert_int_equal(st.evicted, 0);
	/* a slot nobody used for PRDMA_NEIGH_HOLD_MS is taken (the LRU one) */
	entry_of(11)->used_ms -= PRDMA_NEIGH_HOLD_MS + 2000;
	entry_of(11)->confirmed_ms -= PRDMA_NEIGH_HOLD_MS + 2000;
	entry_of(12)->used_ms -= PRDMA_NEIGH_HOLD_MS + 1000;
	entry_of(12)->confirmed_ms -= PRDMA_NEIGH_HOLD_MS + 1000;
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), -EAGAIN);
	assert_int_equal(prdma_neigh_input(&c, ip, 0, &want, 0), 1);
	assert_null(entry_of(11));
	assert_non_null(entry_of(12));
	assert_non_null(entry_of(20));
	prdma_neigh_stats_get(&c, &st);
	assert_int_equal(st.evicted, 1);
}

static void
test_static(void **state)
{
	struct rte_ether_addr mac, st_mac = mac_of(30), evil = mac_of(0x666);
	struct prdma_neigh_cache x;
	uint8_t ip[4], ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	unsigned int n;

	(void)state;
	/* no way to ask: only static entries resolve */
	assert_int_equal(prdma_neigh_init(&x, ent, NB_ENT, req, NB_REQ, NULL, NULL, 0), 0);
	ip_of(ip, 30);
	assert_int_equal(prdma_neigh_resolve(&x, ip, 0, &mac), -EHOSTUNREACH);
	assert_int_equal(prdma_neigh_lookup(&x, ip, 0, &mac), -ENOENT);
	assert_int_equal(prdma_neigh_add_static(&x, ip, 0, &st_mac), 0);
	assert_int_equal(prdma_neigh_lookup(&x, ip, 0, &mac), 0);
	assert_int_equal(prdma_neigh_add_static(&x, ip6, 1, &st_mac), 0);
	assert_int_equal(prdma_neigh_resolve(&x, ip, 0, &mac), 0);
	assert_memory_equal(&mac, &st_mac, 6);
	assert_int_equal(prdma_neigh_resolve(&x, ip6, 1, &mac), 0);
	/* an IPv4 address is not the IPv6 one that starts with its bytes */
	memcpy(ip, ip6, 4);
	assert_int_equal(prdma_neigh_resolve(&x, ip, 0, &mac), -EHOSTUNREACH);
	/* never aged, never overwritten from the wire */
	ip_of(ip, 30);
	for (n = 0; n < NB_ENT; n++)
		ent[n].confirmed_ms -= 10 * PRDMA_NEIGH_TTL_MS;
	assert_int_equal(prdma_neigh_input(&x, ip, 0, &evil, 1), 0);
	assert_int_equal(prdma_neigh_resolve(&x, ip, 0, &mac), 0);
	assert_memory_equal(&mac, &st_mac, 6);
	/* a bad MAC is refused; the table fills with static entries */
	assert_int_equal(prdma_neigh_add_static(&x, ip, 0, &(struct rte_ether_addr){ { 0 } }),
			 -EINVAL);
	for (n = 31; n < 31 + NB_ENT - 2; n++) {
		ip_of(ip, n);
		assert_int_equal(prdma_neigh_add_static(&x, ip, 0, &st_mac), 0);
	}
	ip_of(ip, 40);
	assert_int_equal(prdma_neigh_add_static(&x, ip, 0, &st_mac), -ENOSPC);
	/* with a solicit() and a full static table: answered, not cached */
	assert_int_equal(prdma_neigh_init(&x, ent, 1, req, NB_REQ, &ops, NULL, 0), 0);
	assert_int_equal(prdma_neigh_add_static(&x, ip6, 1, &st_mac), 0);
	assert_int_equal(prdma_neigh_resolve(&x, ip, 0, &mac), -EAGAIN);
	assert_int_equal(prdma_neigh_input(&x, ip, 0, &evil, 0), 1);
	assert_int_equal(prdma_neigh_resolve(&x, ip6, 1, &mac), 0);
	assert_memory_equal(&mac, &st_mac, 6);
	assert_int_equal(prdma_neigh_resolve(&x, ip, 0, &mac), 0);
	assert_memory_equal(&mac, &evil, 6);
}

static void
test_lookup(void **state)
{
	struct rte_ether_addr mac;
	struct prdma_neigh_stats st;
	uint8_t ip[4];

	(void)state;
	assert_int_equal(prdma_neigh_init(&c, ent, NB_ENT, req, NB_REQ, &ops_lookup,
					  NULL, 2), 0);
	ip_of(ip, 50);
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), -EAGAIN);
	lookup_hit = 1;
	req[0].next_lookup_ms = 0;
	assert_int_equal(prdma_neigh_resolve(&c, ip, 0, &mac), 0);
	assert_int_equal(mac.addr_bytes[5], 0xee);
	prdma_neigh_stats_get(&c, &st);
	assert_int_equal(st.external, 1);
	/* the other resolver's answer is its own: not copied into ours */
	assert_null(entry_of(50));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_init),
		cmocka_unit_test_setup(test_unsolicited_refused, setup),
		cmocka_unit_test_setup(test_learnt_not_overwritten, setup),
		cmocka_unit_test_setup(test_ageing, setup),
		cmocka_unit_test_setup(test_abandoned_request, setup),
		cmocka_unit_test_setup(test_retry_paced, setup),
		cmocka_unit_test_setup(test_bound_and_held, setup),
		cmocka_unit_test_setup(test_static, setup),
		cmocka_unit_test_setup(test_lookup, setup),
	};

	return cmocka_run_group_tests_name("neigh", tests, NULL, NULL);
}
