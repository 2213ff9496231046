/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Addresses: RoCEv2 GIDs are IP addresses (IPv4 as ::ffff:a.b.c.d), the
 * librdmacm header carries IPv4 as 12 zero bytes and the address, and the
 * rdma_cm source port of an active id comes from the ephemeral range.
 */

#include <string.h>

#include <rte_byteorder.h>

#include "cm_private.h"

static const uint8_t v4_mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
};

bool
cm_gid_is_v4(const union prdma_gid *gid)
{
	return memcmp(gid->raw, v4_mapped_prefix, sizeof(v4_mapped_prefix)) == 0;
}

int
cm_sockaddr_to_gid(const struct sockaddr *sa, union prdma_gid *gid,
		   uint16_t *port, bool *any)
{
	const struct sockaddr_in *s4;
	const struct sockaddr_in6 *s6;

	memset(gid, 0, sizeof(*gid));
	if (sa->sa_family == AF_INET) {
		s4 = (const struct sockaddr_in *)sa;
		memcpy(gid->raw, v4_mapped_prefix, sizeof(v4_mapped_prefix));
		memcpy(gid->raw + 12, &s4->sin_addr.s_addr, 4);
		*port = rte_be_to_cpu_16(s4->sin_port);
		*any = s4->sin_addr.s_addr == 0;
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		s6 = (const struct sockaddr_in6 *)sa;
		memcpy(gid->raw, s6->sin6_addr.s6_addr, 16);
		*port = rte_be_to_cpu_16(s6->sin6_port);
		*any = memcmp(&s6->sin6_addr, &in6addr_any, 16) == 0;
		return 0;
	}
	return -EAFNOSUPPORT;
}

void
cm_gid_to_sockaddr(const union prdma_gid *gid, uint16_t port,
		   struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (cm_gid_is_v4(gid)) {
		s4->sin_family = AF_INET;
		s4->sin_port = rte_cpu_to_be_16(port);
		memcpy(&s4->sin_addr.s_addr, gid->raw + 12, 4);
	} else {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = rte_cpu_to_be_16(port);
		memcpy(s6->sin6_addr.s6_addr, gid->raw, 16);
	}
}

void
cm_gid_to_cma_ip(const union prdma_gid *gid, uint8_t ip[16])
{
	if (cm_gid_is_v4(gid)) {
		memset(ip, 0, 12);
		memcpy(ip + 12, gid->raw + 12, 4);
	} else {
		memcpy(ip, gid->raw, 16);
	}
}

void
cm_cma_ip_to_gid(const uint8_t ip[16], uint8_t ip_version, union prdma_gid *gid)
{
	if (ip_version == 4) {
		memcpy(gid->raw, v4_mapped_prefix, sizeof(v4_mapped_prefix));
		memcpy(gid->raw + 12, ip + 12, 4);
	} else {
		memcpy(gid->raw, ip, 16);
	}
}

/*
 * The sender's address from the 40 bytes before a UD payload: an IPv6
 * header (source at byte 8), or for RoCEv2 over IPv4 the IPv4 header in the
 * last 20 bytes (source at byte 32), as verbs providers place them.
 */
bool
cm_gid_from_grh(const uint8_t grh[CM_GRH_SIZE], union prdma_gid *gid)
{
	if ((grh[0] >> 4) == 6) {
		memcpy(gid->raw, grh + 8, 16);
		return true;
	}
	if (grh[20] == 0x45) {
		memcpy(gid->raw, v4_mapped_prefix, sizeof(v4_mapped_prefix));
		memcpy(gid->raw + 12, grh + 32, 4);
		return true;
	}
	return false;
}

/*
 * Find the GID table entry of @p want (exact), or with @p any the first
 * entry of the family (@p v4: IPv4-mapped).
 */
int
cm_find_sgid(struct cm_agent *ag, const union prdma_gid *want, bool any, bool v4,
	     uint8_t *index, union prdma_gid *gid)
{
	static const union prdma_gid zero;
	struct prdma_port_attr pa;
	union prdma_gid g;
	uint32_t i, n;
	int ret;

	ret = prdma_port_query(ag->dev, ag->port_num, &pa);
	if (ret < 0)
		return ret;
	n = RTE_MIN(pa.gid_tbl_len, 256u);
	for (i = 0; i < n; i++) {
		if (prdma_gid_query(ag->dev, ag->port_num, i, &g) < 0)
			continue;
		if (memcmp(&g, &zero, sizeof(g)) == 0)
			continue;
		if (any ? cm_gid_is_v4(&g) == v4 : memcmp(&g, want, sizeof(g)) == 0) {
			*index = (uint8_t)i;
			*gid = g;
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}

uint16_t
cm_ephemeral_port(void)
{
	static uint32_t next;

	if (next == 0)
		next = prdma_random32() % 16384u;
	return (uint16_t)(49152u + (next++ % 16384u));
}
