/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cap_pcap.h"

#define PCAP_MAGIC_US   0xA1B2C3D4u
#define PCAP_MAGIC_NS   0xA1B23C4Du
#define PCAPNG_SHB      0x0A0D0D0Au
#define PCAPNG_IDB      0x00000001u
#define PCAPNG_OPB      0x00000002u
#define PCAPNG_SPB      0x00000003u
#define PCAPNG_EPB      0x00000006u
#define PCAPNG_BOM      0x1A2B3C4Du
/* Refuse absurd records rather than allocate whatever a bad file says. */
#define CAP_MAX_RECORD  (16u << 20)

static int
fail(struct cap_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return -1;
}

static uint32_t
bswap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

static uint32_t
rd32(const struct cap_reader *r, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return r->swap ? bswap32(v) : v;
}

static uint16_t
rd16(const struct cap_reader *r, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return r->swap ? (uint16_t)((v >> 8) | (v << 8)) : v;
}

static int
buf_reserve(struct cap_reader *r, uint32_t len)
{
	uint8_t *nb;

	if (len <= r->buf_len)
		return 0;
	nb = realloc(r->buf, len);
	if (nb == NULL)
		return fail(r, "out of memory (%u bytes)", len);
	r->buf = nb;
	r->buf_len = len;
	return 0;
}

/* Read exactly @p len bytes; 1 = done, 0 = clean end of file, -1 = short. */
static int
read_exact(struct cap_reader *r, void *dst, size_t len, int eof_ok)
{
	size_t n = fread(dst, 1, len, r->f);

	if (n == len)
		return 1;
	if (n == 0 && eof_ok && feof(r->f))
		return 0;
	return fail(r, "truncated file (record cut after %zu of %zu bytes)", n, len);
}

int
cap_reader_open(struct cap_reader *r, const char *path)
{
	uint8_t h[24];
	uint32_t magic;
	int ret;

	memset(r, 0, sizeof(*r));
	r->f = fopen(path, "rb");
	if (r->f == NULL)
		return fail(r, "%s: %s", path, strerror(errno));
	ret = read_exact(r, h, sizeof(h), 0);
	if (ret <= 0) {
		fail(r, "%s: too short for a capture header", path);
		goto err;
	}
	memcpy(&magic, h, 4);
	if (magic == PCAPNG_SHB) {
		r->ng = 1;
		/* The section header is parsed by the block loop. */
		if (fseek(r->f, 0, SEEK_SET) != 0) {
			fail(r, "%s: %s", path, strerror(errno));
			goto err;
		}
		return 0;
	}
	if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS) {
		r->swap = 0;
	} else if (bswap32(magic) == PCAP_MAGIC_US || bswap32(magic) == PCAP_MAGIC_NS) {
		r->swap = 1;
		magic = bswap32(magic);
	} else {
		fail(r, "%s: not a pcap or pcapng file (magic 0x%08x)", path, magic);
		goto err;
	}
	r->nsec = magic == PCAP_MAGIC_NS;
	if (rd16(r, h + 4) != 2) {
		fail(r, "%s: unsupported pcap version %u.%u", path, rd16(r, h + 4),
		     rd16(r, h + 6));
		goto err;
	}
	r->linktype = rd32(r, h + 20) & 0x0FFFFFFFu;
	return 0;
err:
	fclose(r->f);
	r->f = NULL;
	return -1;
}

static int
next_classic(struct cap_reader *r, struct cap_frame *fr)
{
	uint8_t h[16];
	uint32_t sec, frac;
	int ret;

	ret = read_exact(r, h, sizeof(h), 1);
	if (ret <= 0)
		return ret;
	sec = rd32(r, h);
	frac = rd32(r, h + 4);
	fr->caplen = rd32(r, h + 8);
	fr->origlen = rd32(r, h + 12);
	if (fr->caplen > CAP_MAX_RECORD)
		return fail(r, "frame %" PRIu64 ": captured length %u is absurd",
			    r->count + 1, fr->caplen);
	if (buf_reserve(r, fr->caplen + 1) < 0)
		return -1;
	if (fr->caplen > 0 && read_exact(r, r->buf, fr->caplen, 0) <= 0)
		return -1;
	fr->ts_ns = (uint64_t)sec * 1000000000u + (r->nsec ? frac : (uint64_t)frac * 1000u);
	fr->linktype = r->linktype;
	fr->data = r->buf;
	return 1;
}

static int
ng_section(struct cap_reader *r, const uint8_t *body, uint32_t len)
{
	uint32_t bom;

	if (len < 4)
		return fail(r, "pcapng section header too short");
	memcpy(&bom, body, 4);
	if (bom == PCAPNG_BOM)
		r->swap = 0;
	else if (bswap32(bom) == PCAPNG_BOM)
		r->swap = 1;
	else
		return fail(r, "pcapng: bad byte-order magic 0x%08x", bom);
	r->nb_if = 0;
	return 0;
}

static int
next_ng(struct cap_reader *r, struct cap_frame *fr)
{
	uint8_t h[8];
	uint32_t type, total, body_len, ifid, snap;
	const uint8_t *b;
	int ret;

	for (;;) {
		ret = read_exact(r, h, sizeof(h), 1);
		if (ret <= 0)
			return ret;
		memcpy(&type, h, 4);
		if (type == PCAPNG_SHB) {
			/* The byte order is only known after the BOM. */
			uint8_t bom[4];

			if (read_exact(r, bom, 4, 0) <= 0)
				return -1;
			if (ng_section(r, bom, 4) < 0)
				return -1;
			total = rd32(r, h + 4);
			if (total < 28 || total % 4 != 0 || total > CAP_MAX_RECORD)
				return fail(r, "pcapng: bad section header length %u", total);
			if (buf_reserve(r, total) < 0)
				return -1;
			if (read_exact(r, r->buf, total - 12, 0) <= 0)
				return -1;
			continue;
		}
		type = rd32(r, h);
		total = rd32(r, h + 4);
		if (total < 12 || total % 4 != 0 || total > CAP_MAX_RECORD)
			return fail(r, "pcapng: block type 0x%x has bad length %u", type, total);
		body_len = total - 12;
		if (buf_reserve(r, total) < 0)
			return -1;
		if (read_exact(r, r->buf, total - 8, 0) <= 0)
			return -1;
		b = r->buf;
		switch (type) {
		case PCAPNG_IDB:
			if (body_len < 8)
				return fail(r, "pcapng: interface block too short");
			if (r->nb_if >= CAP_MAX_IFACES)
				return fail(r, "pcapng: more than %d interfaces", CAP_MAX_IFACES);
			r->if_link[r->nb_if] = rd16(r, b);
			r->if_snap[r->nb_if] = rd32(r, b + 4);
			r->nb_if++;
			continue;
		case PCAPNG_EPB:
		case PCAPNG_OPB:
			if (body_len < 20)
				return fail(r, "pcapng: packet block too short");
			ifid = type == PCAPNG_EPB ? rd32(r, b) : rd16(r, b);
			fr->ts_ns = ((uint64_t)rd32(r, b + 4) << 32 | rd32(r, b + 8)) * 1000u;
			fr->caplen = rd32(r, b + 12);
			fr->origlen = rd32(r, b + 16);
			if (fr->caplen > body_len - 20)
				return fail(r, "frame %" PRIu64 ": captured length %u exceeds its block",
					    r->count + 1, fr->caplen);
			fr->data = b + 20;
			break;
		case PCAPNG_SPB:
			if (body_len < 4)
				return fail(r, "pcapng: simple packet block too short");
			ifid = 0;
			fr->ts_ns = 0;
			fr->origlen = rd32(r, b);
			snap = r->nb_if > 0 && r->if_snap[0] != 0 ? r->if_snap[0] : UINT32_MAX;
			fr->caplen = fr->origlen < snap ? fr->origlen : snap;
			if (fr->caplen > body_len - 4)
				fr->caplen = body_len - 4;
			fr->data = b + 4;
			break;
		default:
			continue;       /* statistics, name resolution, comments */
		}
		if (ifid >= r->nb_if)
			return fail(r, "frame %" PRIu64 ": unknown interface %u",
				    r->count + 1, ifid);
		fr->linktype = r->if_link[ifid];
		return 1;
	}
}

int
cap_reader_next(struct cap_reader *r, struct cap_frame *fr)
{
	int ret;

	if (r->f == NULL)
		return fail(r, "reader not open");
	ret = r->ng ? next_ng(r, fr) : next_classic(r, fr);
	if (ret == 1)
		fr->number = ++r->count;
	return ret;
}

void
cap_reader_close(struct cap_reader *r)
{
	if (r->f != NULL)
		fclose(r->f);
	free(r->buf);
	r->f = NULL;
	r->buf = NULL;
	r->buf_len = 0;
}
