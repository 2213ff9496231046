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

/*
 * A connected QP's frames differ, in the bytes the ICRC covers up to the
 * end of the BTH, only in a few fields: the IP and UDP lengths, the BTH
 * opcode, its SE/MigReq/PadCnt byte, AckReq and the PSN. Everything else
 * there is fixed for the QP (addresses, ports, P_Key, destination QP) or
 * masked to ones. The CRC register is linear in the bytes it has folded,
 * so the register after that prefix is the QP's seed (the prefix with the
 * varying fields zero) XOR one table entry per varying byte: the register,
 * from zero, of that byte followed by the zeros up to the prefix's end.
 * Ten look-ups replace the masking, the restoring and the fold of 48 (68
 * on IPv6) bytes; a frame's ICRC stays the same bits.
 */
#define PREFIX_V4 (8 + ROCE_IPV4_LEN + ROCE_UDP_LEN + ROCE_BTH_LEN)
#define PREFIX_V6 (8 + ROCE_IPV6_LEN + ROCE_UDP_LEN + ROCE_BTH_LEN)
#define NVAR 10

/* Offsets in the ICRC's byte stream (the pseudo LRH is bytes 0..7). */
static const uint8_t var_pos[2][NVAR] = {
	/* IPv4: total length, UDP length, BTH bytes 0, 1, 8 and PSN */
	{ 10, 11, 32, 33, 36, 37, 44, 45, 46, 47 },
	/* IPv6: payload length, UDP length, BTH bytes 0, 1, 8 and PSN */
	{ 12, 13, 52, 53, 56, 57, 64, 65, 66, 67 },
};

static uint32_t var_tbl[2][NVAR][256];

/* The register, from 0, after bit 0..7 of a byte and @zeros zero bytes. */
static uint32_t
crc_bit_then_zeros(unsigned int bit, unsigned int zeros)
{
	uint32_t c = RTE_BIT32(bit);
	unsigned int i, n = 8 + 8 * zeros;

	/* reflected CRC-32: the byte enters the low bits; a bit at a time */
	for (i = 0; i < n; i++)
		c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	return c;
}

RTE_INIT(roce_icrc_tables)
{
	uint32_t basis[8];
	unsigned int v, k, bit, b, h;

	for (v = 0; v < 2; v++) {
		h = v ? PREFIX_V6 : PREFIX_V4;
		for (k = 0; k < NVAR; k++) {
			for (bit = 0; bit < 8; bit++)
				basis[bit] = crc_bit_then_zeros(bit, h - 1 - var_pos[v][k]);
			for (b = 0; b < 256; b++) {
				uint32_t c = 0;

				for (bit = 0; bit < 8; bit++)
					if (b & RTE_BIT32(bit))
						c ^= basis[bit];
				var_tbl[v][k][b] = c;
			}
		}
	}
}

uint32_t
roce_icrc_seed(const uint8_t *l3, int ipv6)
{
	uint8_t s[PREFIX_V6];
	uint32_t h = ipv6 ? PREFIX_V6 : PREFIX_V4, k;
	uint8_t *m = s + 8, *udp, *bth;

	memset(s, 0xff, 8);
	memcpy(m, l3, h - 8);
	if (ipv6) {
		m[0] |= 0x0f;
		m[1] = 0xff;
		m[2] = 0xff;
		m[3] = 0xff;
		m[7] = 0xff;
		udp = m + ROCE_IPV6_LEN;
	} else {
		m[1] = 0xff;
		m[8] = 0xff;
		m[10] = 0xff;
		m[11] = 0xff;
		udp = m + ROCE_IPV4_LEN;
	}
	udp[6] = 0xff;
	udp[7] = 0xff;
	bth = udp + ROCE_UDP_LEN;
	bth[4] = 0xff;
	for (k = 0; k < NVAR; k++)
		s[var_pos[ipv6 ? 1 : 0][k]] = 0;
	return roce_crc32_update(0xffffffffu, s, h);
}

/* The varying bytes' terms; @v6 a constant, so every offset is one. */
static __rte_always_inline uint32_t
seeded_prefix(uint32_t c, const uint8_t *pre, unsigned int v6)
{
	const uint8_t *pos = var_pos[v6];
	const uint32_t (*t)[256] = var_tbl[v6];

	/* pre[] is read only at positions >= 10: inside the IP header */
	c ^= t[0][pre[pos[0]]] ^ t[1][pre[pos[1]]];
	c ^= t[2][pre[pos[2]]] ^ t[3][pre[pos[3]]];
	c ^= t[4][pre[pos[4]]] ^ t[5][pre[pos[5]]];
	c ^= t[6][pre[pos[6]]] ^ t[7][pre[pos[7]]];
	c ^= t[8][pre[pos[8]]] ^ t[9][pre[pos[9]]];
	return c;
}

/* The ICRC from the register after the prefix: the rest of the packet. */
static __rte_always_inline uint32_t
seeded_rest(uint32_t c, const uint8_t *pre, uint32_t len, unsigned int v6)
{
	uint32_t plen = v6 ? PREFIX_V6 : PREFIX_V4;

	return ~roce_crc32_update(c, pre + plen, len + 8 - plen);
}

uint32_t
roce_icrc_seeded(uint32_t seed, const uint8_t *l3, uint32_t len, int ipv6)
{
	const uint8_t *pre = l3 - 8;
	unsigned int v6 = ipv6 ? 1 : 0;

	return seeded_rest(seeded_prefix(seed, pre, v6), pre, len, v6);
}

/*
 * Frames of one length and opcode (a QP's plain ACKs): the terms of the
 * lengths, BTH bytes 0, 1 and 8 are the same for every one, so they go
 * into the seed; only the PSN's three are looked up per frame.
 */
#define NVAR_FIXED 7

uint32_t
roce_icrc_seed_psn(uint32_t seed, const uint8_t *l3, int ipv6)
{
	unsigned int v6 = ipv6 ? 1 : 0, k;
	const uint8_t *pre = l3 - 8;

	/* pre[] is read only at positions >= 10: inside the IP header */
	for (k = 0; k < NVAR_FIXED; k++)
		seed ^= var_tbl[v6][k][pre[var_pos[v6][k]]];
	return seed;
}

static __rte_always_inline uint32_t
seeded_psn(uint32_t c, const uint8_t *pre, unsigned int v6)
{
	const uint8_t *pos = var_pos[v6];
	const uint32_t (*t)[256] = var_tbl[v6];

	RTE_BUILD_BUG_ON(NVAR - NVAR_FIXED != 3);
	return c ^ t[7][pre[pos[7]]] ^ t[8][pre[pos[8]]] ^ t[9][pre[pos[9]]];
}

uint32_t
roce_icrc_seeded_psn(uint32_t seed, const uint8_t *l3, uint32_t len, int ipv6)
{
	const uint8_t *pre = l3 - 8;
	unsigned int v6 = ipv6 ? 1 : 0;

	return seeded_rest(seeded_psn(seed, pre, v6), pre, len, v6);
}
