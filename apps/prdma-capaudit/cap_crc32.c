/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <string.h>

#include "cap_crc32.h"

/* Largest IPv4 header (IHL 15) plus the UDP header. */
#define CAP_MASK_MAX (60 + 8)

static uint32_t crc_table[256];
static int crc_table_ready;

static void
crc_table_init(void)
{
	uint32_t c, n, k;

	for (n = 0; n < 256; n++) {
		c = n;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[n] = c;
	}
	crc_table_ready = 1;
}

uint32_t
cap_crc32_update(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!crc_table_ready)
		crc_table_init();
	while (len-- > 0)
		crc = crc_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return crc;
}

uint32_t
cap_crc32(const void *buf, size_t len)
{
	return ~cap_crc32_update(0xFFFFFFFFu, buf, len);
}

uint32_t
cap_icrc(enum cap_l3 l3, const uint8_t *hdr, size_t l3_len, size_t body_len)
{
	static const uint8_t lrh_mask[8] = {
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	};
	uint8_t m[CAP_MASK_MAX];
	uint8_t bth4 = 0xFF;
	size_t head, bth_off;
	uint32_t crc;

	/* The masked copy covers the L3 header and, for RoCEv2, UDP. */
	head = l3_len + (l3 == CAP_L3_GRH ? 0 : 8);
	if (head > sizeof(m) || body_len + l3_len < head + 12)
		return 0;
	memcpy(m, hdr, head);
	switch (l3) {
	case CAP_L3_IPV4:
		m[1] = 0xFF;                    /* TOS: DSCP and ECN */
		m[8] = 0xFF;                    /* TTL */
		m[10] = 0xFF;                   /* header checksum */
		m[11] = 0xFF;
		m[l3_len + 6] = 0xFF;           /* UDP checksum */
		m[l3_len + 7] = 0xFF;
		break;
	case CAP_L3_IPV6:
	case CAP_L3_GRH:
		/* Traffic class and flow label; the version nibble stays. */
		m[0] |= 0x0F;
		m[1] = 0xFF;
		m[2] = 0xFF;
		m[3] = 0xFF;
		m[7] = 0xFF;                    /* hop limit */
		if (l3 == CAP_L3_IPV6) {
			m[l3_len + 6] = 0xFF;
			m[l3_len + 7] = 0xFF;
		}
		break;
	}
	crc = cap_crc32_update(0xFFFFFFFFu, lrh_mask, sizeof(lrh_mask));
	crc = cap_crc32_update(crc, m, head);
	/* BTH bytes 0..3, then byte 4 (FECN, BECN, resv6a) as all ones. */
	bth_off = head;
	crc = cap_crc32_update(crc, hdr + bth_off, 4);
	crc = cap_crc32_update(crc, &bth4, 1);
	crc = cap_crc32_update(crc, hdr + bth_off + 5,
			       l3_len + body_len - bth_off - 5);
	return ~crc;
}
