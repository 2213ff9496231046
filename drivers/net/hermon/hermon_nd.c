/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * F13: IPv6 neighbour discovery frames (RFC 4861) for the raw Ethernet QP
 * of hermon_arp.c, which sends and receives them. Only what resolution
 * needs: a Neighbor Solicitation (ICMPv6 135) to the target's
 * solicited-node group ff02::1:ffXX:XXXX (MAC 33:33:ff:XX:XX:XX) with our
 * source link-layer option, and the Neighbor Advertisement (136) that
 * answers it (solicited and override, our target link-layer option).
 * A received message is valid only as RFC 4861 7.1.1/7.1.2 say: hop
 * limit 255 (it was not routed), code 0, the ICMPv6 checksum over the
 * pseudo-header right, at least 24 bytes, a unicast target, options of
 * non-zero length, no solicited NA to a multicast destination.
 */

#include <string.h>

#include <rte_ether.h>

#include "hermon_nd.h"
#include "hermon_obj.h"

#define ND_ETH_IPV6  0x86dd
#define ND_NH_ICMP6  58
#define ND_HOPS      255
#define ND_IP        14                  /* the IPv6 header in the frame */
#define ND_ICMP      (ND_IP + 40)
#define ND_BODY      24                  /* type .. target */
#define ND_OPT_SLL   1
#define ND_OPT_TLL   2
#define ND_NA_S      0x40                /* solicited (first flags byte) */
#define ND_NA_O      0x20                /* override */

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The ICMPv6 checksum (RFC 4443 2.3) of the @len bytes at @icmp, whose own
 * checksum field is counted as it is: 0 when a received one is right. */
static uint16_t
icmp6_sum(const uint8_t *src, const uint8_t *dst, const uint8_t *icmp, uint32_t len)
{
	uint32_t s = len + ND_NH_ICMP6, i;

	for (i = 0; i < 16; i += 2)
		s += get16(src + i) + get16(dst + i);
	for (i = 0; i + 1 < len; i += 2)
		s += get16(icmp + i);
	if (len & 1)
		s += (uint32_t)icmp[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

void
hermon_nd_snmc(const uint8_t ip[16], uint8_t grp[16], uint8_t mac[6])
{
	static const uint8_t pfx[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff };

	memcpy(grp, pfx, sizeof(pfx));
	memcpy(grp + 13, ip + 13, 3);
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, grp + 12, 4);
}

uint64_t
hermon_nd_snmc_mac(const uint8_t ip[16])
{
	return (0x3333ffull << 24) | ((uint64_t)ip[13] << 16) | ((uint64_t)ip[14] << 8) | ip[15];
}

/* Ethernet, IPv6 and the NS/NA body; the option is the caller's. */
static void
nd_frame(uint8_t *f, const uint8_t dmac[6], const uint8_t smac[6], const uint8_t sip[16],
	 const uint8_t dip[16], uint8_t type, uint8_t flags, const uint8_t tgt[16],
	 uint8_t opt)
{
	uint8_t *icmp = f + ND_ICMP;

	memset(f, 0, HERMON_ND_FRAME);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	put16(f + 12, ND_ETH_IPV6);
	f[ND_IP] = 0x60;
	put16(f + ND_IP + 4, ND_BODY + 8);
	f[ND_IP + 6] = ND_NH_ICMP6;
	f[ND_IP + 7] = ND_HOPS;
	memcpy(f + ND_IP + 8, sip, 16);
	memcpy(f + ND_IP + 24, dip, 16);
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, tgt, 16);
	icmp[ND_BODY] = opt;
	icmp[ND_BODY + 1] = 1;              /* 8 bytes */
	memcpy(icmp + ND_BODY + 2, smac, 6);
	put16(icmp + 2, icmp6_sum(sip, dip, icmp, ND_BODY + 8));
}

uint32_t
hermon_nd_ns(uint8_t *f, const uint8_t smac[6], const uint8_t sip[16], const uint8_t tgt[16])
{
	uint8_t grp[16], gmac[6];

	hermon_nd_snmc(tgt, grp, gmac);
	nd_frame(f, gmac, smac, sip, grp, HERMON_ND_NS, 0, tgt, ND_OPT_SLL);
	return HERMON_ND_FRAME;
}

uint32_t
hermon_nd_na(uint8_t *f, const uint8_t smac[6], const uint8_t dmac[6], const uint8_t tgt[16],
	     const uint8_t dip[16])
{
	nd_frame(f, dmac, smac, tgt, dip, HERMON_ND_NA, ND_NA_S | ND_NA_O, tgt, ND_OPT_TLL);
	return HERMON_ND_FRAME;
}

int
hermon_nd_parse(const uint8_t *f, uint32_t len, struct hermon_nd_msg *m)
{
	const uint8_t *icmp = f + ND_ICMP, *o;
	uint32_t plen, off;

	if (len < ND_ICMP || get16(f + 12) != ND_ETH_IPV6 || (f[ND_IP] >> 4) != 6 ||
	    f[ND_IP + 6] != ND_NH_ICMP6)
		return 0;
	plen = get16(f + ND_IP + 4);
	if (plen < 1 || ND_ICMP + plen > len ||
	    (icmp[0] != HERMON_ND_NS && icmp[0] != HERMON_ND_NA))
		return 0;
	memset(m, 0, sizeof(*m));
	m->type = icmp[0];
	m->src = f + ND_IP + 8;
	m->dst = f + ND_IP + 24;
	m->target = icmp + 8;
	m->solicited = (icmp[4] & ND_NA_S) != 0;
	memcpy(m->eth_src, f + 6, 6);
	/* RFC 4861 7.1.1 and 7.1.2: a message failing any of these is dropped */
	if (f[ND_IP + 7] != ND_HOPS || icmp[1] != 0 || plen < ND_BODY ||
	    icmp6_sum(m->src, m->dst, icmp, plen) != 0 || m->target[0] == 0xff ||
	    (m->type == HERMON_ND_NA && m->solicited && m->dst[0] == 0xff))
		return -1;
	for (off = ND_BODY; off < plen; off += o[1] * 8u) {
		o = icmp + off;
		if (off + 2 > plen || o[1] == 0 || off + o[1] * 8u > plen)
			return -1;
		if (o[1] == 1 && ((m->type == HERMON_ND_NS && o[0] == ND_OPT_SLL) ||
				  (m->type == HERMON_ND_NA && o[0] == ND_OPT_TLL))) {
			memcpy(m->lladdr, o + 2, 6);
			m->has_lladdr = true;
		}
	}
	return 1;
}
