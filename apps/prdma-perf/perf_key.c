/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * perftest's connection key messages. The ASCII form is fixed-width
 * lowercase hex (perftest's reader finds the GID bytes by their ':' and
 * then assumes the last one takes 3 characters, so every field must have
 * exactly its width), 108 bytes with the GID or 59 without; the binary
 * form is what perftest -R sends.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>

#include "perf.h"

int
perf_key_encode(const struct perf_key *k, char *msg, size_t len)
{
	size_t off;
	int n, i;

	if (len != PERF_KEY_MSG_LEN && len != PERF_KEY_MSG_LEN_NOGID)
		return -EINVAL;
	memset(msg, 0, len);
	n = snprintf(msg, len, "%04x:%04x:%06x:%06x:%08x:%016" PRIx64 ":",
		     k->lid, k->out_reads, k->qpn & 0xffffff, k->psn & 0xffffff, k->rkey,
		     k->vaddr);
	if (n != 50)
		return -EINVAL;
	off = (size_t)n;
	if (len == PERF_KEY_MSG_LEN) {
		for (i = 0; i < 16; i++, off += 3)
			snprintf(msg + off, len - off, "%02x:", k->gid.raw[i]);
		snprintf(msg + off, len - off, "%08x:", k->srqn);
	} else {
		/* No GID, and no ':' after the srqn: 58 characters and the NUL. */
		snprintf(msg + off, len - off, "%08x", k->srqn);
	}
	return (int)len;
}

int
perf_key_msg_len(const char *msg)
{
	if (msg[PERF_KEY_FMT_BYTE] == '\0')
		return PERF_KEY_MSG_LEN_NOGID;
	if (msg[PERF_KEY_FMT_BYTE] == ':')
		return PERF_KEY_MSG_LEN;
	return -EINVAL;
}

/* @p width hex digits, then @p end. */
static int
hex_field(const char *s, unsigned int width, char end, uint64_t *out)
{
	uint64_t v = 0;
	unsigned int i;
	int d;

	for (i = 0; i < width; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	if (s[width] != end)
		return -EINVAL;
	*out = v;
	return 0;
}

int
perf_key_decode(const char *msg, size_t len, struct perf_key *k)
{
	static const unsigned int width[6] = { 4, 4, 6, 6, 8, 16 };
	uint64_t v[6], b;
	size_t off = 0;
	unsigned int i;

	if ((len != PERF_KEY_MSG_LEN && len != PERF_KEY_MSG_LEN_NOGID) ||
	    msg[len - 1] != '\0')
		goto bad;
	for (i = 0; i < 6; i++) {
		if (hex_field(msg + off, width[i], ':', &v[i]) < 0)
			goto bad;
		off += width[i] + 1;
	}
	memset(k, 0, sizeof(*k));
	k->lid = (uint16_t)v[0];
	k->out_reads = (uint16_t)v[1];
	k->qpn = (uint32_t)v[2];
	k->psn = (uint32_t)v[3];
	k->rkey = (uint32_t)v[4];
	k->vaddr = v[5];
	if (len == PERF_KEY_MSG_LEN_NOGID) {
		/* The GID stays zero: the sender has none to give (gid_index -1). */
		if (hex_field(msg + off, 8, '\0', &b) < 0)
			goto bad;
		k->srqn = (uint32_t)b;
		return 0;
	}
	for (i = 0; i < 16; i++, off += 3) {
		if (hex_field(msg + off, 2, ':', &b) < 0)
			goto bad;
		k->gid.raw[i] = (uint8_t)b;
	}
	if (hex_field(msg + off, 8, ':', &b) < 0)
		goto bad;
	k->srqn = (uint32_t)b;
	return 0;
bad:
	rte_errno = EINVAL;
	return -EINVAL;
}

static void
put32(uint8_t *p, uint32_t v)
{
	v = rte_cpu_to_be_32(v);
	memcpy(p, &v, 4);
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return rte_be_to_cpu_32(v);
}

void
perf_key_encode_bin(const struct perf_key *k, uint8_t *msg)
{
	uint64_t va = rte_cpu_to_be_64(k->vaddr);

	memset(msg, 0, PERF_KEY_BIN_LEN);
	put32(msg + 0, k->lid);
	put32(msg + 4, k->out_reads);
	put32(msg + 8, k->qpn);
	put32(msg + 12, k->psn);
	put32(msg + 16, k->rkey);
	memcpy(msg + 24, &va, 8);
	memcpy(msg + 32, k->gid.raw, 16);
	put32(msg + 48, k->srqn);
	put32(msg + 52, 0);     /* gid_index: ours is always 0 */
}

void
perf_key_decode_bin(const uint8_t *msg, struct perf_key *k)
{
	uint64_t va;

	memset(k, 0, sizeof(*k));
	k->lid = (uint16_t)get32(msg + 0);
	k->out_reads = (uint16_t)get32(msg + 4);
	k->qpn = get32(msg + 8) & 0xffffff;
	k->psn = get32(msg + 12) & 0xffffff;
	k->rkey = get32(msg + 16);
	memcpy(&va, msg + 24, 8);
	k->vaddr = rte_be_to_cpu_64(va);
	memcpy(k->gid.raw, msg + 32, 16);
	k->srqn = get32(msg + 48);
}
