/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "t_cm_pcap.h"

#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define ROCE_PORT 4791
#define BTH_LEN 12
#define DETH_LEN 8

static uint32_t
rd32(const uint8_t *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

int
t_pcap_mad(const char *path, unsigned int frame, uint8_t mad[256])
{
	uint8_t gh[24], rh[16], pkt[2048];
	unsigned int n, ihl, off;
	uint32_t magic, caplen;
	int swap, ret = -EINVAL;
	FILE *f;

	f = fopen(path, "rb");
	if (f == NULL)
		return -ENOENT;
	if (fread(gh, sizeof(gh), 1, f) != 1)
		goto out;
	memcpy(&magic, gh, 4);
	if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS)
		swap = 0;
	else if (__builtin_bswap32(magic) == PCAP_MAGIC_US ||
		 __builtin_bswap32(magic) == PCAP_MAGIC_NS)
		swap = 1;
	else
		goto out;
	for (n = 1;; n++) {
		if (fread(rh, sizeof(rh), 1, f) != 1)
			goto out;
		caplen = rd32(rh + 8, swap);
		if (caplen > sizeof(pkt) || fread(pkt, caplen, 1, f) != 1)
			goto out;
		if (n == frame)
			break;
	}
	off = 12;
	if (pkt[off] == 0x81 && pkt[off + 1] == 0x00)
		off += 4;
	if (pkt[off] != 0x08 || pkt[off + 1] != 0x00)
		goto out;
	off += 2;
	ihl = (pkt[off] & 0xf) * 4u;
	if (pkt[off + 9] != 17)
		goto out;
	off += ihl;
	if ((unsigned int)(pkt[off + 2] << 8 | pkt[off + 3]) != ROCE_PORT)
		goto out;
	off += 8 + BTH_LEN + DETH_LEN;
	if (off + 256 > caplen)
		goto out;
	memcpy(mad, pkt + off, 256);
	ret = 0;
out:
	fclose(f);
	return ret;
}
