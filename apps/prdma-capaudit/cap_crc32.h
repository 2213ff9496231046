/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef CAP_CRC32_H
#define CAP_CRC32_H

/*
 * CRC-32 (reflected polynomial 0xEDB88320, the zlib/Ethernet CRC) and the
 * RoCE invariant CRC built on it. Table driven and free of DPDK so that the
 * auditor reads captures without starting EAL.
 */

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC-32 over @p len bytes from the raw register @p crc
 * (start with 0xFFFFFFFF; complement the result to finish). */
uint32_t cap_crc32_update(uint32_t crc, const void *buf, size_t len);

/* zlib.crc32() of a buffer. */
uint32_t cap_crc32(const void *buf, size_t len);

/* Where the invariant fields sit, so the ICRC can mask them. */
enum cap_l3 {
	CAP_L3_IPV4,    /* RoCEv2 over IPv4: IP header, UDP, BTH... */
	CAP_L3_IPV6,    /* RoCEv2 over IPv6: IPv6 header, UDP, BTH... */
	CAP_L3_GRH,     /* RoCEv1: GRH, BTH... */
};

/*
 * ICRC of one packet. @p l3 points at the IPv4/IPv6 header or the GRH,
 * @p l3_len is the length of that header (UDP excluded), @p body_len the
 * bytes that follow it up to, not including, the 4 ICRC bytes (UDP header
 * for RoCEv2, then BTH, extension headers, payload and pad).
 * Returns the CRC value; the wire carries it least significant byte first.
 */
uint32_t cap_icrc(enum cap_l3 l3, const uint8_t *hdr, size_t l3_len,
		  size_t body_len);

#endif /* CAP_CRC32_H */
