/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_ARP_H
#define HERMON_ARP_H

/* F13: ARP on the Hermon PMD's Ethernet ports (hermon_arp.c). */

#include <stdint.h>

struct hermon_dev;

/** What the ARP agent of one Ethernet port did. */
struct hermon_arp_stats {
	uint64_t received;               /**< frames the raw QP received */
	uint64_t not_arp;                /**< of them neither IPv4 ARP nor an NS/NA */
	uint64_t not_ours;               /**< ARP or ND about another address (ignored) */
	uint64_t answered;               /**< replies sent to requests for our address */
	uint64_t requests;               /**< requests sent for the cache */
	uint64_t send_fail;              /**< frames that could not be posted */
	uint64_t nd_bad;                 /**< NS/NA failing RFC 4861 7.1 (hop limit, checksum..) */
	uint64_t nd_answered;            /**< NAs sent to solicitations for our addresses */
	uint64_t nd_solicits;            /**< NSs sent for the cache */
};

/* The raw QPs, their steering and the "hermon-arp" thread: 0 or a negative
 * errno (no agent is not an error: a device without ip= asks nothing). */
int hermon_arp_start(struct hermon_dev *hd);
void hermon_arp_stop(struct hermon_dev *hd);
/* The cache's solicit(): an ARP request for IPv4 @ip, or an NS for IPv6 @ip
 * to its solicited-node group, on every agent's port. */
int hermon_arp_solicit(void *ctx, const uint8_t *ip, int ipv6);
/* The QPN of @port's raw QP (0: no agent) and its counters. */
uint32_t hermon_arp_qpn(struct hermon_dev *hd, uint8_t port);
/* The solicited-node MACs of @port's IPv6 addresses the multicast filter
 * must pass (hermon_mcast.c keeps them): how many in @macs (0..2). */
int hermon_arp_nd_macs(const struct hermon_dev *hd, uint8_t port, uint64_t macs[2]);
int hermon_arp_get_stats(struct hermon_dev *hd, uint8_t port, struct hermon_arp_stats *st);

#endif /* HERMON_ARP_H */
