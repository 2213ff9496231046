/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_ND_H
#define HERMON_ND_H

/* F13: IPv6 neighbour discovery frames (hermon_nd.c, RFC 4861). */

#include <stdbool.h>
#include <stdint.h>

#define HERMON_ND_NS    135
#define HERMON_ND_NA    136
#define HERMON_ND_FRAME 86u             /* Ethernet + IPv6 + NS/NA + one option */

/** A received NS or NA; the pointers point into the frame. */
struct hermon_nd_msg {
	uint8_t type;                    /**< HERMON_ND_NS or HERMON_ND_NA */
	bool solicited;                  /**< NA: the S flag */
	bool has_lladdr;                 /**< NS: source, NA: target link-layer option */
	uint8_t lladdr[6];
	uint8_t eth_src[6];
	const uint8_t *src, *dst, *target;
};

/* @ip's solicited-node group ff02::1:ffXX:XXXX and its MAC 33:33:ff:XX:XX:XX. */
void hermon_nd_snmc(const uint8_t ip[16], uint8_t grp[16], uint8_t mac[6]);
/* That MAC as SET_MCAST_FLTR takes it (bits 47:0). */
uint64_t hermon_nd_snmc_mac(const uint8_t ip[16]);
/* An NS for @tgt from @sip/@smac into @f (HERMON_ND_FRAME bytes): its length. */
uint32_t hermon_nd_ns(uint8_t *f, const uint8_t smac[6], const uint8_t sip[16],
		      const uint8_t tgt[16]);
/* The NA "@tgt is at @smac" to @dip/@dmac (solicited, override). */
uint32_t hermon_nd_na(uint8_t *f, const uint8_t smac[6], const uint8_t dmac[6],
		      const uint8_t tgt[16], const uint8_t dip[16]);
/* 1: a valid NS or NA in @m; 0: not ND; -1: ND failing RFC 4861's checks. */
int hermon_nd_parse(const uint8_t *f, uint32_t len, struct hermon_nd_msg *m);

#endif /* HERMON_ND_H */
