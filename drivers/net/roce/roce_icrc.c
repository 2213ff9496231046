/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Invariant CRC (roce-wire-facts.md §5): CRC-32 over an 8-byte all-ones
 * pseudo LRH, the IP and UDP headers and the transport packet, with the
 * variant fields set to all ones. The fields are masked in place and the
 * pseudo LRH borrows the 8 bytes before the IP header (the end of the
 * Ethernet header), so no byte of the packet is copied.
 */

#include "roce_wire.h"

static uint32_t
icrc_v2(uint8_t *l3, uint32_t len, int ipv6)
{
	uint8_t save_lrh[8], save_l3[8], save_udp[2], save_bth4;
	uint8_t *pre = l3 - 8, *udp, *bth;
	uint32_t crc;

	memcpy(save_lrh, pre, 8);
	memset(pre, 0xff, 8);
	if (ipv6) {
		/* Traffic class and flow label (version kept), hop limit. */
		memcpy(save_l3, l3, 8);
		l3[0] |= 0x0f;
		l3[1] = 0xff;
		l3[2] = 0xff;
		l3[3] = 0xff;
		l3[7] = 0xff;
		udp = l3 + ROCE_IPV6_LEN;
	} else {
		/* TOS, TTL and header checksum. */
		save_l3[0] = l3[1];
		save_l3[1] = l3[8];
		save_l3[2] = l3[10];
		save_l3[3] = l3[11];
		l3[1] = 0xff;
		l3[8] = 0xff;
		l3[10] = 0xff;
		l3[11] = 0xff;
		udp = l3 + ROCE_IPV4_LEN;
	}
	save_udp[0] = udp[6];
	save_udp[1] = udp[7];
	udp[6] = 0xff;
	udp[7] = 0xff;
	bth = udp + ROCE_UDP_LEN;
	save_bth4 = bth[4];
	bth[4] = 0xff;

	crc = roce_crc32_update(0xffffffffu, pre, len + 8);

	bth[4] = save_bth4;
	udp[6] = save_udp[0];
	udp[7] = save_udp[1];
	if (ipv6) {
		memcpy(l3, save_l3, 8);
	} else {
		l3[1] = save_l3[0];
		l3[8] = save_l3[1];
		l3[10] = save_l3[2];
		l3[11] = save_l3[3];
	}
	memcpy(pre, save_lrh, 8);
	return crc;
}

static uint32_t
icrc_v1(uint8_t *grh, uint32_t len)
{
	uint8_t save_lrh[8], save_grh[8], save_bth4;
	uint8_t *pre = grh - 8, *bth = grh + ROCE_GRH_LEN;
	uint32_t crc;

	memcpy(save_lrh, pre, 8);
	memcpy(save_grh, grh, 8);
	save_bth4 = bth[4];
	/* The LRH (absent on RoCEv1) counts as all ones, like RoCEv2's
	 * pseudo header; the GRH's traffic class, flow label and hop limit
	 * are variant (IBA ICRC rules), the version nibble is not. */
	memset(pre, 0xff, 8);
	grh[0] |= 0x0f;
	grh[1] = 0xff;
	grh[2] = 0xff;
	grh[3] = 0xff;
	grh[7] = 0xff;
	bth[4] = 0xff;
	crc = roce_crc32_update(0xffffffffu, pre, len + 8);
	bth[4] = save_bth4;
	memcpy(grh, save_grh, 8);
	memcpy(pre, save_lrh, 8);
	return crc;
}

uint32_t
roce_icrc_start(uint8_t *l3, uint32_t len, int ipv6, int v1)
{
	return v1 ? icrc_v1(l3, len) : icrc_v2(l3, len, ipv6);
}

uint32_t
roce_icrc(uint8_t *l3, uint32_t len, int ipv6)
{
	return ~icrc_v2(l3, len, ipv6);
}

uint32_t
roce_icrc_v1(uint8_t *grh, uint32_t len)
{
	return ~icrc_v1(grh, len);
}
