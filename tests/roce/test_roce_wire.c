/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The RoCEv2 codec without a device: header round trips for every opcode,
 * the ICRC against the three vectors of roce-wire-facts.md §5.3, PSN
 * arithmetic across the 24-bit wrap, and the frame parser fed broken input.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ip.h>

#include "roce_wire.h"

static size_t
unhex(const char *s, uint8_t *out)
{
	size_t n = 0;

	while (*s != '\0') {
		unsigned int v;

		if (*s == ' ') {
			s++;
			continue;
		}
		sscanf(s, "%2x", &v);
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return n;
}

/* A full frame from the IP..ICRC hex of a vector (Ethernet header added). */
static size_t
vector_frame(const char *ip_hex, uint8_t *frame, int ipv6)
{
	static const uint8_t eth[14] = {
		0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00 };

	memcpy(frame, eth, sizeof(eth));
	if (ipv6) {
		frame[12] = 0x86;
		frame[13] = 0xdd;
	}
	return 14 + unhex(ip_hex, frame + 14);
}

static void
check_vector(const char *ip_hex, uint32_t crc_expected)
{
	uint8_t frame[256], copy[256];
	struct roce_pkt pkt;
	size_t len = vector_frame(ip_hex, frame, 0);
	uint32_t crc;

	memcpy(copy, frame, len);
	crc = roce_icrc(frame + 14, (uint32_t)(len - 14 - 4), 0);
	assert_int_equal(crc, crc_expected);
	/* Everything borrowed or masked was put back. */
	assert_memory_equal(frame, copy, len);
	/* Wire order: least significant byte first. */
	assert_int_equal(frame[len - 4], crc_expected & 0xff);
	assert_int_equal(frame[len - 1], crc_expected >> 24);
	assert_int_equal(roce_pkt_parse(frame, (uint32_t)len, &pkt), ROCE_RX_OK);
}

static void
test_icrc_vectors(void **state)
{
	uint8_t frame[256];
	struct roce_pkt pkt;
	size_t len;

	(void)state;
	/* A: ConnectX-4 Lx CNP. */
	check_vector("45c2003c718c400040119161 0a001101 0a001201"
		     "000012b700280000 8100ffff40000118 00000000"
		     "00000000000000000000000000000000 82fd002a", 0x2a00fd82);
	/* B: UC SEND_ONLY from Scapy's tests. */
	check_vector("45010040047840004011b4d5c0a80007c0a80007"
		     "c00012b7002caca2 2460ffff000000d300cf1710"
		     "4630818be28935d90e9a95505401be885e500000 78f353f3", 0xf353f378);
	/* C: RC ACK. */
	check_vector("4502003000004000401126b90a0000010a000002"
		     "c12312b7001c0000 1100ffff00000012000001 00 1f000001 75b3aa37",
		     0x37aab375);

	/* Variant fields do not matter; invariant ones do. */
	len = vector_frame("4502003000004000401126b90a0000010a000002"
			   "c12312b7001c0000 1100ffff00000012000001 00 1f000001 75b3aa37",
			   frame, 0);
	frame[14 + 1] = 0x03;   /* ECN CE */
	frame[14 + 8] = 5;      /* TTL */
	frame[14 + 28 + 4] = 0x80; /* FECN */
	assert_int_equal(roce_pkt_parse(frame, (uint32_t)len, &pkt), ROCE_RX_OK);
	frame[14 + 28 + 11] ^= 1; /* PSN */
	assert_int_equal(roce_pkt_parse(frame, (uint32_t)len, &pkt), ROCE_RX_BAD_ICRC);
}

/*
 * roce_pkt_icrc_copy(): the ICRC check that copies the payload in the
 * same pass agrees with roce_pkt_parse()'s check, on a packet with pad
 * (vector B: 18 payload bytes, PadCnt 2), and lands the payload at the
 * destination either way.
 */
static void
test_icrc_copy(void **state)
{
	uint8_t frame[256], dst[64];
	struct roce_pkt pkt;
	size_t len;

	(void)state;
	len = vector_frame("45010040047840004011b4d5c0a80007c0a80007"
			   "c00012b7002caca2 2460ffff000000d300cf1710"
			   "4630818be28935d90e9a95505401be885e500000 78f353f3", frame, 0);
	assert_int_equal(roce_pkt_parse(frame, (uint32_t)len, &pkt), ROCE_RX_OK);
	assert_int_equal(pkt.paylen, 18);
	memset(dst, 0xee, sizeof(dst));
	assert_int_equal(roce_pkt_icrc_copy(&pkt, dst + 1), ROCE_RX_OK);
	assert_memory_equal(dst + 1, pkt.payload, 18);
	assert_int_equal(dst[0], 0xee);
	assert_int_equal(dst[19], 0xee);
	/* A payload bit, or a pad bit: bad, as the separate check says. */
	pkt.payload[5] ^= 0x10;
	assert_int_equal(roce_pkt_icrc_copy(&pkt, dst), ROCE_RX_BAD_ICRC);
	assert_int_equal(roce_pkt_icrc_check(&pkt), ROCE_RX_BAD_ICRC);
	assert_memory_equal(dst, pkt.payload, 18);
	pkt.payload[5] ^= 0x10;
	pkt.payload[18] ^= 1;
	assert_int_equal(roce_pkt_icrc_copy(&pkt, dst), ROCE_RX_BAD_ICRC);
	pkt.payload[18] ^= 1;
	assert_int_equal(roce_pkt_icrc_copy(&pkt, dst), ROCE_RX_OK);
	/* A header bit before the payload. */
	frame[14 + 28 + 11] ^= 1;
	assert_int_equal(roce_pkt_icrc_copy(&pkt, dst), ROCE_RX_BAD_ICRC);
}

static void
test_psn(void **state)
{
	(void)state;
	assert_int_equal(roce_psn_add(0xffffff, 1), 0);
	assert_int_equal(roce_psn_add(0xfffffe, 5), 3);
	assert_true(roce_psn_cmp(0, 0xffffff) > 0);
	assert_true(roce_psn_cmp(0xffffff, 0) < 0);
	assert_true(roce_psn_cmp(5, 5) == 0);
	assert_true(roce_psn_cmp(0x7fffff, 0) > 0);
	assert_true(roce_psn_cmp(0x800001, 0) < 0);
	assert_int_equal(roce_psn_diff(2, 0xfffffe), 4);
	assert_int_equal(roce_psn_diff(10, 3), 7);
}

static void
test_rnr_and_timeout(void **state)
{
	(void)state;
	assert_int_equal(roce_rnr_timer_us(0), 655360);
	assert_int_equal(roce_rnr_timer_us(1), 10);
	assert_int_equal(roce_rnr_timer_us(14), 1280);
	assert_int_equal(roce_rnr_timer_us(25), 61440);
	assert_int_equal(roce_rnr_timer_us(31), 491520);
	assert_true(roce_ack_timeout_ns(0) == 0);
	assert_true(roce_ack_timeout_ns(14) == 4096ull << 14);
}

static void
fill_ext(struct roce_ext *e)
{
	e->va = 0x1122334455667788ull;
	e->rkey = 0xdeadbeef;
	e->dma_len = 0x12345;
	e->swap_add = 0xa5a5a5a55a5a5a5aull;
	e->compare = 0x0102030405060708ull;
	e->syndrome = 0x1f;
	e->msn = 0xabcdef;
	e->orig = 0xfedcba9876543210ull;
	e->imm = 0xcafef00d;
	e->ieth = 0x00c0ffee;
	e->qkey = 0x11111111;
	e->src_qpn = 0x123456;
}

static void
test_codec_all_opcodes(void **state)
{
	static const uint8_t tr[] = { ROCE_TR_RC, ROCE_TR_UC, ROCE_TR_UD };
	unsigned int t, op, seen = 0;

	(void)state;
	for (t = 0; t < RTE_DIM(tr); t++) {
		for (op = 0; op < ROCE_OP_NB; op++) {
			uint8_t buf[128];
			uint8_t opcode = (uint8_t)(tr[t] | op);
			struct roce_bth b, b2;
			struct roce_ext e, e2;
			uint32_t f = roce_opcode_flags(opcode);
			int len;

			if (f == 0) {
				memset(buf, 0, sizeof(buf));
				buf[0] = opcode;
				assert_true(roce_hdr_decode(buf, sizeof(buf), &b2, &e2) < 0);
				continue;
			}
			seen++;
			memset(&b, 0, sizeof(b));
			memset(&e, 0, sizeof(e));
			b.opcode = opcode;
			b.se = 1;
			b.pad = 3;
			b.pkey = 0xffff;
			b.dqpn = 0xabcdef;
			b.ackreq = 1;
			b.psn = 0xfedcba;
			b.becn = 1;
			fill_ext(&e);
			len = (int)roce_hdr_encode(buf, &b, &e);
			assert_int_equal(len, roce_hdr_len(opcode));
			assert_int_equal(roce_hdr_decode(buf, (uint32_t)len, &b2, &e2), len);
			/* One byte short is refused. */
			assert_true(roce_hdr_decode(buf, (uint32_t)len - 1, &b2, &e2) < 0);
			assert_int_equal(roce_hdr_decode(buf, (uint32_t)len, &b2, &e2), len);
			assert_int_equal(b2.opcode, opcode);
			assert_int_equal(b2.se, 1);
			assert_int_equal(b2.pad, 3);
			assert_int_equal(b2.pkey, 0xffff);
			assert_int_equal(b2.dqpn, 0xabcdef);
			assert_int_equal(b2.ackreq, 1);
			assert_int_equal(b2.psn, 0xfedcba);
			assert_int_equal(b2.becn, 1);
			if (f & (ROCE_F_RETH | ROCE_F_ATMETH)) {
				assert_true(e2.va == e.va);
				assert_int_equal(e2.rkey, e.rkey);
			}
			if (f & ROCE_F_RETH)
				assert_int_equal(e2.dma_len, e.dma_len);
			if (f & ROCE_F_ATMETH) {
				assert_true(e2.swap_add == e.swap_add);
				assert_true(e2.compare == e.compare);
			}
			if (f & ROCE_F_AETH) {
				assert_int_equal(e2.syndrome, e.syndrome);
				assert_int_equal(e2.msn, e.msn);
			}
			if (f & ROCE_F_ATMACK)
				assert_true(e2.orig == e.orig);
			if (f & ROCE_F_IMM)
				assert_int_equal(e2.imm, e.imm);
			if (f & ROCE_F_IETH)
				assert_int_equal(e2.ieth, e.ieth);
			if (tr[t] == ROCE_TR_UD) {
				assert_int_equal(e2.qkey, e.qkey);
				assert_int_equal(e2.src_qpn, e.src_qpn);
			}
		}
	}
	/* 23 RC operations, 12 UC, 2 UD. */
	assert_int_equal(seen, 23 + 12 + 2);
	/* Known layouts: the AtomicETH is 28 bytes, the UD SEND_ONLY_IMM 24. */
	assert_int_equal(roce_hdr_len(0x13), 40);
	assert_int_equal(roce_hdr_len(0x65), 24);
	assert_int_equal(roce_hdr_len(0x12), 24);
	assert_int_equal(roce_hdr_len(0x0b), 32);
}

/* A valid RC SEND_ONLY frame to mutate. */
static size_t
good_frame(uint8_t *frame)
{
	return vector_frame("45010040047840004011b4d5c0a80007c0a80007"
			    "c00012b7002caca2 2460ffff000000d300cf1710"
			    "4630818be28935d90e9a95505401be885e500000 78f353f3",
			    frame, 0);
}

static void
test_parser_garbage(void **state)
{
	uint8_t frame[512], buf[512];
	struct roce_pkt pkt;
	size_t len = good_frame(frame);
	unsigned int i, seed = 12345;

	(void)state;
	assert_int_equal(roce_pkt_parse(frame, (uint32_t)len, &pkt), ROCE_RX_OK);
	assert_int_equal(pkt.paylen, 18);
	/* Every truncation is refused, none crashes. */
	for (i = 0; i < len; i++) {
		memcpy(buf, frame, len);
		assert_int_not_equal(roce_pkt_parse(buf, (uint32_t)i, &pkt), ROCE_RX_OK);
	}
	/* Trailing Ethernet padding is ignored: the length comes from UDP. */
	memcpy(buf, frame, len);
	memset(buf + len, 0xee, 20);
	assert_int_equal(roce_pkt_parse(buf, (uint32_t)len + 20, &pkt), ROCE_RX_OK);
	/* Lengths that lie. */
	memcpy(buf, frame, len);
	buf[14 + 24] = 0xff; /* UDP length */
	assert_int_equal(roce_pkt_parse(buf, (uint32_t)len, &pkt), ROCE_RX_MALFORMED);
	memcpy(buf, frame, len);
	buf[14 + 2] = 0x0f; /* IP total length beyond the frame */
	assert_int_equal(roce_pkt_parse(buf, (uint32_t)len, &pkt), ROCE_RX_MALFORMED);
	memcpy(buf, frame, len);
	buf[14 + 28 + 1] |= 0x0f; /* TVer */
	assert_int_not_equal(roce_pkt_parse(buf, (uint32_t)len, &pkt), ROCE_RX_OK);
	memcpy(buf, frame, len);
	buf[14 + 28] = 0x35; /* reserved opcode */
	assert_int_equal(roce_pkt_parse(buf, (uint32_t)len, &pkt), ROCE_RX_BAD_OPCODE);
	memcpy(buf, frame, len);
	buf[14 + 23] = 0x13; /* other UDP port */
	assert_int_equal(roce_pkt_parse(buf, (uint32_t)len, &pkt), ROCE_RX_NOT_ROCE);
	memcpy(buf, frame, len);
	buf[12] = 0x08;
	buf[13] = 0x06; /* ARP */
	assert_int_equal(roce_pkt_parse(buf, (uint32_t)len, &pkt), ROCE_RX_NOT_ROCE);
	/* Random bytes after a valid Ethernet/IP/UDP prefix, and fully random. */
	for (i = 0; i < 20000; i++) {
		size_t n = (size_t)(rand_r(&seed) % 200), k;

		memcpy(buf, frame, len);
		for (k = (i & 1) ? 42 : 0; k < n; k++)
			buf[k] = (uint8_t)rand_r(&seed);
		(void)roce_pkt_parse(buf, (uint32_t)n, &pkt);
	}
}

/*
 * roce_icrc_seeded(): from a QP's seed, the same ICRC as roce_icrc() for
 * frames that differ from the QP's template in the per-frame fields only
 * (lengths, opcode, BTH byte 1, AckReq, PSN), on IPv4 and IPv6, any
 * length; and the masked fields change neither. A template field that
 * differs (the destination QP) must give another ICRC.
 */
static void
test_icrc_seeded(void **state)
{
	uint8_t tmpl[8 + 40 + 8 + 12], f[8 + 40 + 8 + 12 + 300], copy[sizeof(f)];
	unsigned int seed = 7, i, k, v6, ipl, udp, bth, len, pay;
	uint32_t qseed, want, got;

	(void)state;
	for (v6 = 0; v6 < 2; v6++) {
		ipl = v6 ? 40 : 20;
		udp = 8 + ipl;
		bth = udp + 8;
		/* The QP's header: random fixed fields. */
		for (k = 0; k < sizeof(tmpl); k++)
			tmpl[k] = (uint8_t)rand_r(&seed);
		tmpl[8] = v6 ? 0x60 | (tmpl[8] & 0x0f) : 0x45;
		qseed = roce_icrc_seed(tmpl + 8, (int)v6);
		for (i = 0; i < 2000; i++) {
			pay = (unsigned int)rand_r(&seed) % 280;
			len = ipl + 8 + 12 + pay;   /* l3 .. end of pad */
			for (k = 0; k < 8 + len; k++)
				f[k] = (uint8_t)rand_r(&seed);
			memcpy(f + 8, tmpl + 8, bth + 12 - 8);
			/* the per-frame fields, and the masked ones, at random */
			for (k = 0; k < 2; k++) {
				f[8 + (v6 ? 4 : 2) + k] = (uint8_t)rand_r(&seed);
				f[udp + 4 + k] = (uint8_t)rand_r(&seed);
				f[udp + 6 + k] = (uint8_t)rand_r(&seed);
			}
			f[bth] = (uint8_t)rand_r(&seed);
			f[bth + 1] = (uint8_t)rand_r(&seed);
			f[bth + 4] = (uint8_t)rand_r(&seed);
			for (k = 8; k < 12; k++)
				f[bth + k] = (uint8_t)rand_r(&seed);
			if (v6) {
				f[8] = (uint8_t)(0x60 | (rand_r(&seed) & 0x0f));
				f[9] = (uint8_t)rand_r(&seed);
				f[11] = (uint8_t)rand_r(&seed);
				f[15] = (uint8_t)rand_r(&seed);
			} else {
				f[9] = (uint8_t)rand_r(&seed);
				f[16] = (uint8_t)rand_r(&seed);
				f[18] = (uint8_t)rand_r(&seed);
				f[19] = (uint8_t)rand_r(&seed);
			}
			memcpy(copy, f, 8 + len);
			want = roce_icrc(f + 8, len, (int)v6);
			got = roce_icrc_seeded(qseed, f + 8, len, (int)v6);
			assert_int_equal(got, want);
			assert_memory_equal(f, copy, 8 + len);
			/* another destination QP: not this QP's frame */
			f[bth + 7] ^= 1;
			assert_int_not_equal(roce_icrc_seeded(qseed, f + 8, len, (int)v6),
					     roce_icrc(f + 8, len, (int)v6));
		}
	}
}

/*
 * roce_pkt_parse_quick() + roce_pkt_decode(), the receive path's split
 * parse: the same verdict as roce_pkt_parse_hdr() for every frame, and
 * for a good one the same headers once decoded. Mutated frames: any
 * byte of the transport headers (opcode, TVer, pad, lengths), every
 * opcode, every truncation.
 */
static void
test_parse_quick(void **state)
{
	uint8_t frame[512], a[512], b[512];
	struct roce_pkt full, quick;
	size_t len = good_frame(frame), n, k;
	unsigned int i, seed = 4242;
	enum roce_rx_verdict vf, vq;

	(void)state;
	for (i = 0; i < 40000; i++) {
		memcpy(a, frame, len);
		n = len;
		if (i < 256) {
			a[14 + 28] = (uint8_t)i;            /* every opcode */
		} else if (i < 256 + len) {
			n = i - 256;                         /* every truncation */
		} else {
			n = 42 + (size_t)(rand_r(&seed) % 60);
			for (k = 0; k < 3; k++)
				a[14 + 20 + (size_t)rand_r(&seed) % (n - 34)] =
					(uint8_t)rand_r(&seed);
		}
		memcpy(b, a, n);
		memset(&full, 0x5a, sizeof(full));
		memset(&quick, 0xa5, sizeof(quick));
		vf = roce_pkt_parse_hdr(a, (uint32_t)n, &full);
		vq = roce_pkt_parse_quick(b, (uint32_t)n, &quick);
		assert_int_equal(vq, vf);
		if (vf != ROCE_RX_OK)
			continue;
		/* what the engine looks a QP up by, before the decode */
		assert_int_equal(quick.bth.opcode, full.bth.opcode);
		assert_int_equal(quick.bth.pkey, full.bth.pkey);
		assert_int_equal(quick.bth.dqpn, full.bth.dqpn);
		assert_int_equal(quick.flags, full.flags);
		assert_int_equal(quick.paylen, full.paylen);
		roce_pkt_decode(&quick);
		assert_int_equal(quick.bth.se, full.bth.se);
		assert_int_equal(quick.bth.mig, full.bth.mig);
		assert_int_equal(quick.bth.pad, full.bth.pad);
		assert_int_equal(quick.bth.tver, full.bth.tver);
		assert_int_equal(quick.bth.fecn, full.bth.fecn);
		assert_int_equal(quick.bth.becn, full.bth.becn);
		assert_int_equal(quick.bth.ackreq, full.bth.ackreq);
		assert_int_equal(quick.bth.psn, full.bth.psn);
		if (full.bth.opcode != ROCE_OP_CNP)
			assert_memory_equal(&quick.ext, &full.ext, sizeof(full.ext));
	}
}

/* A random extension-header set: every field, full width. */
static void
rand_ext(struct roce_ext *e, unsigned int *seed)
{
	e->va = (uint64_t)rand_r(seed) << 40 ^ (uint64_t)rand_r(seed) << 20 ^
		(uint64_t)rand_r(seed);
	e->rkey = (uint32_t)rand_r(seed) << 1 ^ (uint32_t)rand_r(seed);
	e->dma_len = (uint32_t)rand_r(seed) << 1 ^ (uint32_t)rand_r(seed);
	e->swap_add = (uint64_t)rand_r(seed) << 33 ^ (uint64_t)rand_r(seed);
	e->compare = (uint64_t)rand_r(seed) << 31 ^ (uint64_t)rand_r(seed) << 7;
	e->syndrome = (uint8_t)rand_r(seed);
	e->msn = (uint32_t)rand_r(seed) << 1 ^ (uint32_t)rand_r(seed);
	e->orig = (uint64_t)rand_r(seed) << 32 ^ (uint64_t)rand_r(seed);
	e->imm = (uint32_t)rand_r(seed) << 1 ^ (uint32_t)rand_r(seed);
	e->ieth = (uint32_t)rand_r(seed) << 1 ^ (uint32_t)rand_r(seed);
	e->qkey = (uint32_t)rand_r(seed) << 1 ^ (uint32_t)rand_r(seed);
	e->src_qpn = (uint32_t)rand_r(seed);
}

/*
 * roce_tmpl_encode() over roce_tmpl_bth()'s template: the same bytes and
 * length as roce_hdr_encode() for every opcode of RC, UC and UD, with
 * random P_Key, destination QP, PSN (wider than 24 bits, as a caller's
 * arithmetic may leave it), SE, AckReq and extension fields. The
 * template's varying bytes start as garbage: the encoder must write them.
 */
static void
test_tmpl_encode(void **state)
{
	static const uint8_t tr[] = { ROCE_TR_RC, ROCE_TR_UC, ROCE_TR_UD };
	uint8_t gen[64], tpl[64];
	unsigned int seed = 1717, t, op, i, k, n, seen = 0;
	struct roce_bth b;
	struct roce_ext e;

	(void)state;
	for (t = 0; t < RTE_DIM(tr); t++) {
		for (op = 0; op < ROCE_OP_NB; op++) {
			uint8_t opcode = (uint8_t)(tr[t] | op);

			if (roce_opcode_flags(opcode) == 0)
				continue;
			seen++;
			for (i = 0; i < 500; i++) {
				memset(&b, 0, sizeof(b));
				b.opcode = opcode;
				b.se = (uint8_t)(rand_r(&seed) & 1);
				b.ackreq = (uint8_t)(rand_r(&seed) & 1);
				b.pkey = (uint16_t)rand_r(&seed);
				b.dqpn = (uint32_t)rand_r(&seed) & 0xffffff;
				b.psn = (uint32_t)rand_r(&seed);
				rand_ext(&e, &seed);
				for (k = 0; k < sizeof(gen); k++) {
					gen[k] = (uint8_t)rand_r(&seed);
					tpl[k] = gen[k];
				}
				n = roce_hdr_encode(gen, &b, &e);
				roce_tmpl_bth(tpl, b.pkey, b.dqpn);
				tpl[0] = (uint8_t)rand_r(&seed);
				tpl[1] = (uint8_t)rand_r(&seed);
				for (k = 8; k < 12; k++)
					tpl[k] = (uint8_t)rand_r(&seed);
				assert_int_equal(roce_tmpl_encode(tpl, opcode, b.se, b.ackreq,
								  b.psn, &e), n);
				assert_int_equal(n, roce_hdr_len(opcode));
				assert_memory_equal(tpl, gen, n);
			}
		}
	}
	/* RC 23, UC 12, UD 2: a table that lost an opcode shows here */
	assert_int_equal(seen, 23 + 12 + 2);
}

/*
 * A connected QP's whole frames as the engine builds them from its
 * templates (roce_engine.c: qp_tx_build, roce_qp_frame_start,
 * frame_finish, roce_qp_send_ack) against the generic builder (path
 * header, source port, roce_hdr_encode, lengths, checksum by
 * rte_ipv4_cksum, roce_icrc), byte for byte, ICRC included: every RC
 * and UC opcode, random paths on IPv4 and IPv6, random PSNs, lengths,
 * keys and immediates; and plain ACKs from the ACK template.
 */
static void
build_generic(uint8_t *f, const uint8_t *hdr, unsigned int hlen, int v6, uint16_t sport,
	      const struct roce_bth *b, const struct roce_ext *e, const uint8_t *pay,
	      unsigned int plen, unsigned int *flen)
{
	uint8_t *l3 = f + 14, *bth = f + hlen;
	unsigned int tl, pad, udp_len;
	uint32_t crc;

	memcpy(f, hdr, hlen);
	roce_put16(f + hlen - 8, sport);
	tl = roce_hdr_encode(bth, b, e);
	if (plen != 0) /* an ACK has no payload (and @pay may be NULL) */
		memcpy(bth + tl, pay, plen);
	tl += plen;
	pad = -tl & 3;
	memset(bth + tl, 0, pad);
	bth[1] |= (uint8_t)(pad << 4);
	tl += pad;
	udp_len = 8 + tl + 4;
	roce_put16(f + hlen - 8 + 4, (uint16_t)udp_len);
	if (v6) {
		roce_put16(l3 + 4, (uint16_t)udp_len);
	} else {
		roce_put16(l3 + 2, (uint16_t)(20 + udp_len));
		roce_put16(l3 + 10, 0);
		memcpy(l3 + 10, &(uint16_t){ rte_ipv4_cksum((const struct rte_ipv4_hdr *)l3) }, 2);
	}
	crc = rte_cpu_to_le_32(roce_icrc(l3, hlen - 14 + tl, v6));
	memcpy(bth + tl, &crc, 4);
	*flen = hlen + tl + 4;
}

static void
test_tmpl_frames(void **state)
{
	static const uint8_t tr[] = { ROCE_TR_RC, ROCE_TR_UC };
	uint8_t hdr[62], tx_hdr[80], tx_ack[80], pay[300], gen[512], tpl[512];
	unsigned int seed = 99, v6, t, op, i, k, hlen, tl, pad, plen, glen, len;
	uint32_t qseed, aseed, crc, base, udp_len;
	uint16_t sport;
	struct roce_bth b;
	struct roce_ext e;
	uint8_t *l3;

	(void)state;
	for (v6 = 0; v6 < 2; v6++) {
		hlen = 14 + (v6 ? 40 : 20) + 8;
		for (i = 0; i < 300; i++) {
			/* a path as roce_path_build leaves it: lengths, checksum 0 */
			for (k = 0; k < hlen; k++)
				hdr[k] = (uint8_t)rand_r(&seed);
			l3 = hdr + 14;
			if (v6) {
				hdr[12] = 0x86;
				hdr[13] = 0xdd;
				l3[0] = (uint8_t)(0x60 | (l3[0] & 0x0f));
				roce_put16(l3 + 4, 0);
			} else {
				hdr[12] = 0x08;
				hdr[13] = 0x00;
				l3[0] = 0x45;
				roce_put16(l3 + 2, 0);
				roce_put16(l3 + 10, 0);
			}
			roce_put16(hdr + hlen - 8 + 2, 4791);
			roce_put16(hdr + hlen - 8 + 4, 0);
			roce_put16(hdr + hlen - 8 + 6, 0);
			base = v6 ? 0 : rte_raw_cksum(l3, 20);
			sport = (uint16_t)rand_r(&seed);
			memset(&b, 0, sizeof(b));
			b.pkey = 0xffff;
			b.dqpn = (uint32_t)rand_r(&seed) & 0xffffff;
			/* the QP's templates, as qp_tx_build makes them */
			memset(tx_hdr, 0, sizeof(tx_hdr));
			memcpy(tx_hdr, hdr, hlen);
			roce_put16(tx_hdr + hlen - 8, sport);
			roce_tmpl_bth(tx_hdr + hlen, b.pkey, b.dqpn);
			qseed = roce_icrc_seed(tx_hdr + 14, (int)v6);
			memcpy(tx_ack, tx_hdr, sizeof(tx_ack));
			tx_ack[hlen] = ROCE_OP_ACK;
			roce_frame_lengths(tx_ack + 14, (int)v6, 8 + 12 + 4 + 4, base);
			aseed = roce_icrc_seed_psn(qseed, tx_ack + 14, (int)v6);
			for (t = 0; t < RTE_DIM(tr); t++) {
				for (op = 0; op < ROCE_OP_NB; op++) {
					uint32_t f;

					b.opcode = (uint8_t)(tr[t] | op);
					f = roce_opcode_flags(b.opcode);
					if (f == 0)
						continue;
					b.se = (uint8_t)(rand_r(&seed) & 1);
					b.ackreq = (uint8_t)(rand_r(&seed) & 1);
					b.psn = (uint32_t)rand_r(&seed) & 0xffffff;
					rand_ext(&e, &seed);
					plen = (f & ROCE_F_PAYLOAD) ? (unsigned int)rand_r(&seed) % 257 : 0;
					for (k = 0; k < plen; k++)
						pay[k] = (uint8_t)rand_r(&seed);
					build_generic(gen, hdr, hlen, (int)v6, sport, &b, &e, pay, plen,
						      &glen);
					/* templated, as roce_qp_frame_start + frame_finish */
					memset(tpl, 0xa5, sizeof(tpl));
					memcpy(tpl, tx_hdr, sizeof(tx_hdr));
					tl = roce_tmpl_encode(tpl + hlen, b.opcode, b.se, b.ackreq, b.psn,
							      &e);
					memcpy(tpl + hlen + tl, pay, plen);
					tl += plen;
					pad = -tl & 3;
					memset(tpl + hlen + tl, 0, pad);
					tl += pad;
					roce_frame_lengths(tpl + 14, (int)v6, 8 + tl + 4, base);
					tpl[hlen + 1] |= (uint8_t)(pad << 4);
					crc = rte_cpu_to_le_32(roce_icrc_seeded(qseed, tpl + 14,
										hlen - 14 + tl, (int)v6));
					memcpy(tpl + hlen + tl, &crc, 4);
					assert_int_equal(hlen + tl + 4, glen);
					assert_memory_equal(tpl, gen, glen);
				}
			}
			/* plain ACKs and NAKs from the ACK template */
			for (k = 0; k < 8; k++) {
				memset(&b, 0, sizeof(b));
				b.opcode = ROCE_OP_ACK;
				b.pkey = 0xffff;
				b.dqpn = roce_get24(tx_hdr + hlen + 5);
				b.psn = (uint32_t)rand_r(&seed) & 0xffffff;
				memset(&e, 0, sizeof(e));
				e.syndrome = (uint8_t)rand_r(&seed);
				e.msn = (uint32_t)rand_r(&seed) & 0xffffff;
				build_generic(gen, hdr, hlen, (int)v6, sport, &b, &e, NULL, 0, &glen);
				memset(tpl, 0x5a, sizeof(tpl));
				memcpy(tpl, tx_ack, sizeof(tx_ack));
				roce_put32(tpl + hlen + 8, b.psn);
				roce_put32(tpl + hlen + 12, (uint32_t)e.syndrome << 24 | e.msn);
				len = hlen + 16;
				crc = rte_cpu_to_le_32(roce_icrc_seeded_psn(aseed, tpl + 14, len - 14,
									    (int)v6));
				memcpy(tpl + len, &crc, 4);
				assert_int_equal(len + 4, glen);
				assert_memory_equal(tpl, gen, glen);
				/* another PSN is another ICRC: the PSN terms are looked up */
				tpl[hlen + 11] ^= 0x10;
				assert_int_not_equal(roce_icrc_seeded_psn(aseed, tpl + 14, len - 14,
									  (int)v6),
						     roce_icrc_seeded_psn(aseed, gen + 14, len - 14,
									  (int)v6));
			}
			udp_len = 8 + 12 + 4 + 4;
			assert_int_equal(roce_get16(tx_ack + hlen - 8 + 4), udp_len);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_icrc_vectors),
		cmocka_unit_test(test_icrc_copy),
		cmocka_unit_test(test_icrc_seeded),
		cmocka_unit_test(test_psn),
		cmocka_unit_test(test_rnr_and_timeout),
		cmocka_unit_test(test_codec_all_opcodes),
		cmocka_unit_test(test_parser_garbage),
		cmocka_unit_test(test_parse_quick),
		cmocka_unit_test(test_tmpl_encode),
		cmocka_unit_test(test_tmpl_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
