/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PRDMA_NEIGH_H
#define PRDMA_NEIGH_H

/**
 * @file
 * The neighbour cache providers share (provider SDK, included by
 * prdma_provider.h): IP address -> MAC for RoCE paths and UD address
 * handles. One implementation of the policy for every provider; the
 * frames (ARP, neighbour discovery, a kernel probe) are the provider's,
 * which the cache reaches through prdma_neigh_ops.
 *
 * Policy (issue 13 item 7, F7 of the security review):
 * - an entry is created only from the answer to a resolution this cache
 *   started (prdma_neigh_input() for an address being resolved), and
 *   refreshed by a request from an address it already holds; anything
 *   else (gratuitous ARP, unsolicited replies, strangers) is counted in
 *   prdma_neigh_stats.ignored and never learnt;
 * - a learnt entry not confirmed for PRDMA_NEIGH_TTL_MS is not used (the
 *   next resolution asks again);
 * - the table is bounded (the provider gives its storage): a new entry
 *   takes a free or expired slot, else the least recently used one no
 *   resolution used or confirmed for PRDMA_NEIGH_HOLD_MS; when every slot
 *   is held nothing is evicted (the answer still reaches the resolution
 *   that asked for it);
 * - static entries (a provider's devargs) never age, are never evicted
 *   and never overwritten from the wire;
 * - a resolution nobody continued for PRDMA_NEIGH_REQ_TTL_MS takes no
 *   answer.
 *
 * Every function takes the cache's own lock for a short table operation
 * and never calls the provider with it held: the callbacks may take the
 * provider's locks, and prdma_neigh_input() may be called with them held.
 * Nothing here waits for the network: a provider that offers a bounded
 * wait loops on prdma_neigh_resolve() itself.
 */

#include <stdint.h>

#include <rte_ether.h>
#include <rte_spinlock.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PRDMA_NEIGH_TTL_MS      60000 /**< a learnt MAC is trusted this long */
#define PRDMA_NEIGH_HOLD_MS     10000 /**< a MAC used this recently is never evicted */
#define PRDMA_NEIGH_REQ_TTL_MS  2000  /**< an abandoned resolution is freed */
#define PRDMA_NEIGH_RETRY_MS    200   /**< between two requests for one address */

/** One entry of the table (storage is the provider's). */
struct prdma_neigh_entry {
	uint8_t valid;
	uint8_t ipv6;
	uint8_t is_static;        /**< from the provider's configuration */
	uint8_t ip[16];           /**< IPv4 in the first 4 bytes */
	struct rte_ether_addr mac;
	uint64_t confirmed_ms;    /**< learnt or refreshed (ages it out) */
	uint64_t used_ms;         /**< last resolution it answered (keeps it) */
};

/** An address being resolved: only its answer is learnt. */
struct prdma_neigh_req {
	uint8_t valid;
	uint8_t ipv6;
	uint8_t answered;         /**< mac holds the answer (the table was full) */
	uint8_t ip[16];
	uint64_t started_ms;
	uint64_t next_probe_ms;   /**< next solicit() */
	uint64_t next_lookup_ms;  /**< next lookup() */
	struct rte_ether_addr mac;
};

/** What the provider does for the cache (called without the cache's lock). */
struct prdma_neigh_ops {
	/**
	 * Ask the network for @p ip: an ARP request, a neighbour
	 * solicitation or a probe that makes another resolver ask. At most
	 * every PRDMA_NEIGH_RETRY_MS per address. 0 when it went out (a
	 * failure is retried at the next step); -EHOSTUNREACH when the
	 * provider cannot ask for this address at all (the resolution fails).
	 */
	int (*solicit)(void *ctx, const uint8_t *ip, int ipv6);
	/**
	 * Optional: read another resolver's table (the kernel's) for @p ip,
	 * at most every lookup_ms. 1 with @p mac, 0 if absent.
	 */
	int (*lookup)(void *ctx, const uint8_t *ip, int ipv6, struct rte_ether_addr *mac);
};

/** Counters (prdma_neigh_stats_get). */
struct prdma_neigh_stats {
	uint64_t learned;         /**< entries learnt or refreshed from answers */
	uint64_t ignored;         /**< answers or requests not learnt (policy) */
	uint64_t external;        /**< MACs taken from lookup() */
	uint64_t solicits;        /**< solicit() calls that went out */
	uint64_t hits;            /**< resolutions answered from the table */
	uint64_t misses;          /**< resolution steps that found no entry */
	uint64_t evicted;         /**< live entries replaced by a new one */
	uint64_t full;            /**< answers not cached: every slot held */
};

/** A cache; embed it in the provider's device and prdma_neigh_init() it. */
struct prdma_neigh_cache {
	rte_spinlock_t lock;
	struct prdma_neigh_entry *ent;
	uint32_t nb_ent;
	struct prdma_neigh_req *req;
	uint32_t nb_req;
	const struct prdma_neigh_ops *ops;
	void *ctx;
	uint32_t lookup_ms;       /**< between two lookup() calls per address */
	struct prdma_neigh_stats st;
};

/**
 * Set up @p c over the provider's arrays (zeroed here). @p ops may be NULL
 * or have NULL members: with no solicit() a miss fails with -EHOSTUNREACH
 * (only static entries resolve). Returns 0 or -EINVAL.
 */
int prdma_neigh_init(struct prdma_neigh_cache *c, struct prdma_neigh_entry *ent,
		     uint32_t nb_ent, struct prdma_neigh_req *req, uint32_t nb_req,
		     const struct prdma_neigh_ops *ops, void *ctx, uint32_t lookup_ms);

/** A static entry. 0, -EINVAL (bad MAC), -ENOSPC (table full of static entries). */
int prdma_neigh_add_static(struct prdma_neigh_cache *c, const uint8_t *ip, int ipv6,
			   const struct rte_ether_addr *mac);

/**
 * One non-blocking step of resolving @p ip: 0 with @p mac; -EAGAIN while
 * the answer is awaited (the request went out or is due later);
 * -EHOSTUNREACH when nothing can ask (no solicit(), or it refused).
 */
int prdma_neigh_resolve(struct prdma_neigh_cache *c, const uint8_t *ip, int ipv6,
			struct rte_ether_addr *mac);

/**
 * The table's answer for @p ip, if any: 0 with @p mac, else -ENOENT.
 * Starts no resolution (for a second read after prdma_neigh_resolve()).
 */
int prdma_neigh_lookup(struct prdma_neigh_cache *c, const uint8_t *ip, int ipv6,
		       struct rte_ether_addr *mac);

/**
 * What the wire said about @p ip: its MAC @p mac, in an answer to us or a
 * request (@p request) from it for our address. The provider passes only
 * frames about its own address. Returns 1 if learnt, 0 if ignored.
 */
int prdma_neigh_input(struct prdma_neigh_cache *c, const uint8_t *ip, int ipv6,
		      const struct rte_ether_addr *mac, int request);

/** Copy the counters. */
void prdma_neigh_stats_get(struct prdma_neigh_cache *c, struct prdma_neigh_stats *st);

/** Milliseconds of the cache's clock (for tests that age entries). */
uint64_t prdma_neigh_now_ms(void);

#ifdef __cplusplus
}
#endif

#endif /* PRDMA_NEIGH_H */
