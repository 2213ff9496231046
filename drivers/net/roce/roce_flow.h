/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef ROCE_FLOW_H
#define ROCE_FLOW_H

/*
 * The rte_flow rules of roce_flow.c: their shapes, built here so that a
 * test evaluates exactly what the provider installs, and the three
 * rte_flow calls behind a table a test can replace (no PMD on the CI
 * machine takes rules).
 */

#include <stdint.h>

#include <rte_flow.h>

/* One rule, self-contained: its items point into the structure itself,
 * so build it where it stays put until rte_flow_create returns. */
struct roce_flow_rule {
	struct rte_flow_attr attr;
	struct rte_flow_item item[5];
	struct rte_flow_action action[2];
	struct rte_flow_action_queue queue;
	struct rte_flow_item_ipv4 ip4, ip4_mask;
	struct rte_flow_item_ipv6 ip6, ip6_mask;
	struct rte_flow_item_udp udp, udp_mask;
	struct rte_flow_item_raw raw, raw_mask;
	uint8_t qpn[3];
	uint8_t qpn_mask[3];
};

/* The BTH's destination QP: bytes 5 to 7 after the UDP header. */
#define ROCE_FLOW_DQPN_OFF 5

/*
 * The rule of QPN @qpn, whoever the peer: ETH / IPV4 or IPV6 / UDP dst
 * 4791 / RAW 3 bytes at UDP payload + 5 = @qpn -> QUEUE @queue.
 */
void roce_flow_rule_qpn(struct roce_flow_rule *r, int ipv6, uint32_t qpn, uint16_t queue);
/*
 * The rule of one connection, learnt from a frame: ETH / IP src @peer dst
 * @ours / UDP src @sport dst 4791 -> QUEUE @queue (addresses in network
 * order, 4 or 16 bytes; @sport in host order).
 */
void roce_flow_rule_peer(struct roce_flow_rule *r, int ipv6, const uint8_t *peer,
			 const uint8_t *ours, uint16_t sport, uint16_t queue);

/* The three rte_flow calls, replaceable by a test (a port that takes rules). */
struct roce_flow_ops {
	int (*validate)(uint16_t port, const struct rte_flow_attr *attr,
			const struct rte_flow_item pattern[],
			const struct rte_flow_action actions[], struct rte_flow_error *err);
	struct rte_flow *(*create)(uint16_t port, const struct rte_flow_attr *attr,
				   const struct rte_flow_item pattern[],
				   const struct rte_flow_action actions[],
				   struct rte_flow_error *err);
	int (*destroy)(uint16_t port, struct rte_flow *flow, struct rte_flow_error *err);
};

/* Use @ops for the devices probed from now on (NULL: rte_flow's own). */
void roce_flow_ops_set(const struct roce_flow_ops *ops);

#endif /* ROCE_FLOW_H */
