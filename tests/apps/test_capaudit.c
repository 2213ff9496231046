/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-capaudit's engine: the ICRC against the reference vectors
 * (roce-wire-facts.md 5.3), the pcap/pcapng reader, and every anomaly
 * kind on hand-built frames.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cap_audit.h"
#include "cap_crc32.h"
#include "cap_decode.h"
#include "cap_pcap.h"

static size_t
unhex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned int v;

	while (*hex != '\0' && n < max) {
		if (*hex == ' ') {
			hex++;
			continue;
		}
		assert_int_equal(sscanf(hex, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	return n;
}

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void
test_crc32_zlib(void **state)
{
	(void)state;
	/* zlib.crc32(b"123456789") */
	assert_int_equal(cap_crc32("123456789", 9), 0xCBF43926u);
	/* The state after 8 x 0xFF, as rxe precomputes it. */
	assert_int_equal(cap_crc32_update(0xFFFFFFFFu, "\xff\xff\xff\xff\xff\xff\xff\xff", 8),
			 0xDEBB20E3u);
}

static void
test_icrc_vectors(void **state)
{
	uint8_t b[256];
	size_t n;

	(void)state;
	/* A: ConnectX-4 Lx CNP (IP..ICRC). */
	n = unhex("45c2003c718c400040119161 0a001101 0a001201 000012b700280000"
		  "8100ffff40000118 00000000 00000000000000000000000000000000"
		  "82fd002a", b, sizeof(b));
	assert_int_equal(n, 60);
	assert_int_equal(cap_icrc(CAP_L3_IPV4, b, 20, n - 20 - 4), 0x2A00FD82u);
	assert_int_equal(le32(b + n - 4), 0x2A00FD82u);
	/* B: UC SEND_ONLY with a non-zero UDP checksum and 2 pad bytes. */
	n = unhex("45010040047840004011b4d5c0a80007c0a80007 c00012b7002caca2"
		  "2460ffff000000d300cf1710 4630818be28935d90e9a95505401be885e500000"
		  "78f353f3", b, sizeof(b));
	assert_int_equal(n, 64);
	assert_int_equal(cap_icrc(CAP_L3_IPV4, b, 20, n - 20 - 4), 0xF353F378u);
	/* C: RC ACK. */
	n = unhex("4502003000004000401126b90a0000010a000002 c12312b7001c0000"
		  "1100ffff00000012000001 00 1f000001 75b3aa37", b, sizeof(b));
	assert_int_equal(n, 48);
	assert_int_equal(cap_icrc(CAP_L3_IPV4, b, 20, n - 20 - 4), 0x37AAB375u);
	/* Variant fields do not count: ECN CE, TTL 5, FECN set. */
	b[1] |= 3;
	b[8] = 5;
	b[20 + 8 + 4] = 0x80;
	assert_int_equal(cap_icrc(CAP_L3_IPV4, b, 20, n - 20 - 4), 0x37AAB375u);
	/* An invariant one does: the PSN. */
	b[20 + 8 + 11] ^= 1;
	assert_int_not_equal(cap_icrc(CAP_L3_IPV4, b, 20, n - 20 - 4), 0x37AAB375u);
}

/* ---- building frames ---- */

enum l3 { V4, V6, V1 };

struct fb {
	enum l3 l3;
	uint8_t src, dst;       /* last address byte */
	uint8_t opcode;
	uint32_t dqpn, psn;
	int ackreq;
	uint8_t syndrome;       /* AETH */
	uint32_t reth_len;      /* RETH or READ length */
	uint32_t payload;
	int corrupt;
};

static const uint8_t ext_aeth[] = { 0x0D, 0x0F, 0x10, 0x11, 0x12 };

static size_t
ext_len(uint8_t op)
{
	size_t n = 0, i;

	switch (op & 0x1F) {
	case 0x06: case 0x0A: case 0x0C:
		n += 16;
		break;
	case 0x13: case 0x14:
		n += 28;
		break;
	default:
		break;
	}
	for (i = 0; i < sizeof(ext_aeth); i++)
		if ((op & 0x1F) == ext_aeth[i])
			n += 4;
	if ((op & 0x1F) == 0x12)
		n += 8;
	if ((op >> 5) == 3)
		n += 8;
	return n;
}

static size_t
build(const struct fb *f, uint8_t *out)
{
	size_t l3len = f->l3 == V4 ? 20 : 40, udp = f->l3 == V1 ? 0 : 8;
	size_t pad = (4 - f->payload % 4) % 4, ext = ext_len(f->opcode);
	size_t ib = 12 + ext + f->payload + pad + 4, off;
	uint8_t *l3 = out + 14, *bth = l3 + l3len + udp, *e;
	uint32_t crc;

	memset(out, 0, 14 + l3len + udp + ib);
	out[12] = f->l3 == V4 ? 0x08 : f->l3 == V6 ? 0x86 : 0x89;
	out[13] = f->l3 == V4 ? 0x00 : f->l3 == V6 ? 0xDD : 0x15;
	if (f->l3 == V4) {
		l3[0] = 0x45;
		l3[2] = (uint8_t)((20 + 8 + ib) >> 8);
		l3[3] = (uint8_t)(20 + 8 + ib);
		l3[6] = 0x40;
		l3[8] = 64;
		l3[9] = 17;
		l3[12] = 192; l3[13] = 0; l3[14] = 2; l3[15] = f->src;
		l3[16] = 192; l3[17] = 0; l3[18] = 2; l3[19] = f->dst;
	} else {
		l3[0] = 0x60;
		l3[4] = (uint8_t)((udp + ib) >> 8);
		l3[5] = (uint8_t)(udp + ib);
		l3[6] = f->l3 == V6 ? 17 : 0x1B;
		l3[7] = 64;
		l3[8] = 0xfe; l3[9] = 0x80; l3[23] = f->src;
		l3[24] = 0xfe; l3[25] = 0x80; l3[39] = f->dst;
	}
	if (udp) {
		uint8_t *u = l3 + l3len;

		u[0] = 0xC0;
		u[2] = 0x12;
		u[3] = 0xB7;
		u[4] = (uint8_t)((8 + ib) >> 8);
		u[5] = (uint8_t)(8 + ib);
	}
	bth[0] = f->opcode;
	bth[1] = (uint8_t)(pad << 4);
	bth[2] = bth[3] = 0xFF;
	bth[5] = (uint8_t)(f->dqpn >> 16);
	bth[6] = (uint8_t)(f->dqpn >> 8);
	bth[7] = (uint8_t)f->dqpn;
	bth[8] = f->ackreq ? 0x80 : 0;
	bth[9] = (uint8_t)(f->psn >> 16);
	bth[10] = (uint8_t)(f->psn >> 8);
	bth[11] = (uint8_t)f->psn;
	e = bth + 12;
	off = 0;
	if ((f->opcode >> 5) == 3) {
		e[4 + 1] = 0; e[4 + 3] = 7;         /* DETH src QP 7 */
		off += 8;
	}
	if (ext - off >= 16 && ((f->opcode & 0x1F) == 0x0C || (f->opcode & 0x1F) == 0x06 ||
				(f->opcode & 0x1F) == 0x0A)) {
		e[off + 12] = (uint8_t)(f->reth_len >> 24);
		e[off + 13] = (uint8_t)(f->reth_len >> 16);
		e[off + 14] = (uint8_t)(f->reth_len >> 8);
		e[off + 15] = (uint8_t)f->reth_len;
		off += 16;
	}
	if (off < ext && ext - off <= 12)
		e[off] = f->syndrome;          /* AETH first byte */
	memset(bth + 12 + ext, 0x5A, f->payload);
	crc = cap_icrc(f->l3 == V4 ? CAP_L3_IPV4 : f->l3 == V6 ? CAP_L3_IPV6 : CAP_L3_GRH,
		       l3, l3len, udp + ib - 4);
	if (f->corrupt)
		crc ^= 0x100;
	e = bth + ib - 4;
	e[0] = (uint8_t)crc;
	e[1] = (uint8_t)(crc >> 8);
	e[2] = (uint8_t)(crc >> 16);
	e[3] = (uint8_t)(crc >> 24);
	return 14 + l3len + udp + ib;
}

struct scen {
	struct cap_audit a;
	uint64_t n;
	uint8_t frames[32][2200];
	size_t len[32];
};

static void
feed(struct scen *s, const struct fb *list, size_t nb)
{
	struct cap_frame fr;
	struct cap_pkt pkt;
	size_t i;
	int pass;

	assert_true(nb <= 32);
	for (i = 0; i < nb; i++)
		s->len[i] = build(&list[i], s->frames[i]);
	cap_audit_init(&s->a);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nb; i++) {
			memset(&fr, 0, sizeof(fr));
			fr.linktype = CAP_LINK_ETHERNET;
			fr.caplen = fr.origlen = (uint32_t)s->len[i];
			fr.data = s->frames[i];
			fr.number = i + 1;
			cap_decode(&fr, &pkt);
			assert_int_not_equal(pkt.kind, CAP_FRAME_OTHER);
			if (pass == 0)
				cap_audit_learn(&s->a, &pkt);
			else
				cap_audit_frame(&s->a, fr.number, &pkt);
		}
	}
	cap_audit_finish(&s->a);
}

static uint64_t
total(const struct cap_audit *a)
{
	uint64_t n = 0;
	unsigned int k;

	for (k = 0; k < CAP_ANOM_MAX; k++)
		n += a->anomaly_count[k];
	return n;
}

#define REQ(op, q, p) { V4, 1, 2, op, q, p, 1, 0, 0, 64, 0 }
#define RSP(op, q, p, syn) { V4, 2, 1, op, q, p, 0, syn, 0, 0, 0 }

static struct scen sc;

static void
test_clean_rc(void **state)
{
	const struct fb f[] = {
		REQ(0x04, 0x11, 100), RSP(0x11, 0x22, 100, 0x1F),
		{ V4, 1, 2, 0x0C, 0x11, 101, 1, 0, 2048, 0, 0 },     /* READ 2 KiB */
		{ V4, 2, 1, 0x0D, 0x22, 101, 0, 0x1F, 0, 1024, 0 },
		{ V4, 2, 1, 0x0F, 0x22, 102, 0, 0x1F, 0, 1024, 0 },
		REQ(0x0A, 0x11, 103), RSP(0x11, 0x22, 103, 0x1F),
		{ V4, 1, 2, 0x14, 0x11, 104, 1, 0, 0, 0, 0 },        /* FETCH_ADD */
		RSP(0x12, 0x22, 104, 0x1F),
	};

	(void)state;
	feed(&sc, f, RTE_DIM(f));
	assert_int_equal(total(&sc.a), 0);
	assert_int_equal(sc.a.icrc_ok, RTE_DIM(f));
	assert_int_equal(sc.a.nb_qps, 2);
	cap_audit_free(&sc.a);
}

static void
test_ipv6_and_v1(void **state)
{
	const struct fb f[] = {
		{ V6, 1, 2, 0x64, 0x33, 5, 0, 0, 0, 100, 0 },        /* UD SEND */
		{ V1, 1, 2, 0x64, 0x33, 6, 0, 0, 0, 33, 0 },
		{ V6, 1, 2, 0x64, 0x33, 7, 0, 0, 0, 1, 1 },          /* bad ICRC */
	};

	(void)state;
	feed(&sc, f, RTE_DIM(f));
	assert_int_equal(sc.a.icrc_ok, 2);
	assert_int_equal(sc.a.icrc_bad, 1);
	assert_int_equal(sc.a.anomaly_count[CAP_ANOM_BAD_ICRC], 1);
	assert_int_equal(sc.a.anomalies[0].frame, 3);
	assert_int_equal(total(&sc.a), 1);
	cap_audit_free(&sc.a);
}

static void
test_gap_dup_unanswered(void **state)
{
	const struct fb f[] = {
		REQ(0x04, 0x11, 10), REQ(0x04, 0x11, 12),            /* gap of 1 */
		REQ(0x04, 0x11, 12),                                  /* duplicate */
		RSP(0x11, 0x22, 12, 0x1F),
		{ V4, 1, 2, 0x0C, 0x11, 13, 1, 0, 64, 0, 0 },        /* no answer */
		{ V4, 1, 2, 0x00, 0x11, 14, 0, 0, 0, 1024, 0 },      /* FIRST, no LAST */
	};

	(void)state;
	feed(&sc, f, RTE_DIM(f));
	assert_int_equal(sc.a.anomaly_count[CAP_ANOM_PSN_GAP], 1);
	assert_int_equal(sc.a.anomaly_count[CAP_ANOM_PSN_DUPLICATE], 1);
	assert_int_equal(sc.a.anomaly_count[CAP_ANOM_UNANSWERED], 1);
	assert_int_equal(sc.a.anomaly_count[CAP_ANOM_INCOMPLETE], 1);
	assert_int_equal(total(&sc.a), 4);
	cap_audit_free(&sc.a);
}

static void
test_naks(void **state)
{
	const struct fb f[] = {
		REQ(0x04, 0x11, 1), RSP(0x11, 0x22, 1, 0x60),        /* PSN seq */
		REQ(0x04, 0x11, 1), RSP(0x11, 0x22, 1, 0x20 | 14),   /* RNR 1.28 ms */
		REQ(0x04, 0x11, 1), RSP(0x11, 0x22, 1, 0x61),
		REQ(0x04, 0x11, 2), RSP(0x11, 0x22, 2, 0x62),
		REQ(0x04, 0x11, 3), RSP(0x11, 0x22, 3, 0x63),
	};
	size_t i;
	int rnr = 0;

	(void)state;
	feed(&sc, f, RTE_DIM(f));
	assert_int_equal(sc.a.anomaly_count[CAP_ANOM_NAK_PSN_SEQ], 1);
	assert_int_equal(sc.a.anomaly_count[CAP_ANOM_RNR_NAK], 1);
	assert_int_equal(sc.a.anomaly_count[CAP_ANOM_NAK_INV_REQ], 1);
	assert_int_equal(sc.a.anomaly_count[CAP_ANOM_NAK_REM_ACCESS], 1);
	assert_int_equal(sc.a.anomaly_count[CAP_ANOM_NAK_REM_OP], 1);
	/* Resends after a NAK are not duplicates, and nothing is left open. */
	assert_int_equal(total(&sc.a), 5);
	for (i = 0; i < sc.a.nb_anomalies; i++)
		if (sc.a.anomalies[i].kind == CAP_ANOM_RNR_NAK)
			rnr = strstr(sc.a.anomalies[i].detail, "1.28 ms") != NULL;
	assert_true(rnr);
	cap_audit_free(&sc.a);
}

static void
test_truncated_and_malformed(void **state)
{
	struct fb f = REQ(0x04, 0x11, 1);
	struct cap_frame fr;
	struct cap_pkt pkt;

	(void)state;
	memset(&fr, 0, sizeof(fr));
	fr.linktype = CAP_LINK_ETHERNET;
	fr.origlen = (uint32_t)build(&f, sc.frames[0]);
	fr.data = sc.frames[0];
	fr.caplen = 60;                        /* snap length: headers only */
	cap_decode(&fr, &pkt);
	assert_int_equal(pkt.kind, CAP_FRAME_ROCE);
	assert_int_equal(pkt.icrc, CAP_ICRC_UNCHECKED);
	assert_int_equal(pkt.psn, 1);
	fr.caplen = 46;                        /* cut inside the BTH */
	cap_decode(&fr, &pkt);
	assert_int_equal(pkt.kind, CAP_FRAME_MALFORMED);
	fr.caplen = fr.origlen;
	sc.frames[0][14 + 20 + 4] = 0;         /* UDP length 0x00xx: too short */
	sc.frames[0][14 + 20 + 5] = 4;
	cap_decode(&fr, &pkt);
	assert_int_equal(pkt.kind, CAP_FRAME_MALFORMED);
}

static void
put32(FILE *f, uint32_t v)
{
	assert_int_equal(fwrite(&v, 4, 1, f), 1);
}

static void
test_reader(void **state)
{
	char path[] = "/tmp/capaudit-test-XXXXXX";
	struct fb fb = REQ(0x04, 0x11, 1);
	struct cap_reader r;
	struct cap_frame fr;
	uint32_t len, padded;
	FILE *f;
	int fd, n;

	(void)state;
	len = (uint32_t)build(&fb, sc.frames[0]);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	/* Classic pcap, nanosecond magic, two records. */
	put32(f, 0xA1B23C4D);
	put32(f, 2 | 4u << 16);
	put32(f, 0);
	put32(f, 0);
	put32(f, 65535);
	put32(f, 1);
	for (n = 0; n < 2; n++) {
		put32(f, 1);
		put32(f, 2);
		put32(f, len);
		put32(f, len);
		assert_int_equal(fwrite(sc.frames[0], len, 1, f), 1);
	}
	fclose(f);
	assert_int_equal(cap_reader_open(&r, path), 0);
	n = 0;
	while (cap_reader_next(&r, &fr) == 1) {
		assert_int_equal(fr.caplen, len);
		assert_int_equal(fr.ts_ns, 1000000002u);
		n++;
	}
	assert_int_equal(n, 2);
	cap_reader_close(&r);

	/* pcapng: section, interface, one enhanced packet block. */
	f = fopen(path, "wb");
	padded = (len + 3) & ~3u;
	put32(f, 0x0A0D0D0A);
	put32(f, 28);
	put32(f, 0x1A2B3C4D);
	put32(f, 1);
	put32(f, 0xFFFFFFFF);
	put32(f, 0xFFFFFFFF);
	put32(f, 28);
	put32(f, 1);
	put32(f, 20);
	put32(f, 1);                            /* linktype Ethernet, reserved 0 */
	put32(f, 0);                            /* snaplen: unlimited */
	put32(f, 20);
	put32(f, 6);
	put32(f, 32 + padded);
	put32(f, 0);
	put32(f, 0);
	put32(f, 5);
	put32(f, len);
	put32(f, len);
	assert_int_equal(fwrite(sc.frames[0], len, 1, f), 1);
	for (n = (int)len; n < (int)padded; n++)
		fputc(0, f);
	put32(f, 32 + padded);
	fclose(f);
	assert_int_equal(cap_reader_open(&r, path), 0);
	assert_int_equal(cap_reader_next(&r, &fr), 1);
	assert_int_equal(fr.linktype, CAP_LINK_ETHERNET);
	assert_int_equal(fr.caplen, len);
	assert_memory_equal(fr.data, sc.frames[0], len);
	assert_int_equal(cap_reader_next(&r, &fr), 0);
	cap_reader_close(&r);

	/* Not a capture at all. */
	f = fopen(path, "wb");
	fputs("definitely not a packet capture file", f);
	fclose(f);
	assert_int_equal(cap_reader_open(&r, path), -1);
	assert_non_null(strstr(r.err, "not a pcap"));
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32_zlib),
		cmocka_unit_test(test_icrc_vectors),
		cmocka_unit_test(test_clean_rc),
		cmocka_unit_test(test_ipv6_and_v1),
		cmocka_unit_test(test_gap_dup_unanswered),
		cmocka_unit_test(test_naks),
		cmocka_unit_test(test_truncated_and_malformed),
		cmocka_unit_test(test_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
