/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef ROCE_WIRE_H
#define ROCE_WIRE_H

/*
 * RoCEv2 wire format: the InfiniBand transport headers carried in UDP 4791
 * (shared/reference/roce-wire-facts.md). Pure codec, no device state, so the
 * unit tests can drive it without EAL.
 */

#include <stdint.h>
#include <string.h>

#include <rte_bitops.h>
#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>

#define ROCE_UDP_PORT      4791
#define ROCE_ETH_LEN       14
#define ROCE_VLAN_LEN      4
#define ROCE_IPV4_LEN      20
#define ROCE_IPV6_LEN      40
#define ROCE_UDP_LEN       8
#define ROCE_BTH_LEN       12
#define ROCE_RETH_LEN      16
#define ROCE_AETH_LEN      4
#define ROCE_ATMETH_LEN    28
#define ROCE_ATMACK_LEN    8
#define ROCE_IMM_LEN       4
#define ROCE_IETH_LEN      4
#define ROCE_DETH_LEN      8
#define ROCE_ICRC_LEN      4
#define ROCE_GRH_LEN       40
#define ROCE_CNP_LEN       16
/* Longest header stack we build: Ethernet + IPv6 + UDP. */
#define ROCE_L2L4_MAX      (ROCE_ETH_LEN + ROCE_IPV6_LEN + ROCE_UDP_LEN)
/* Longest transport header stack: BTH + RETH + ImmDt (or AtomicETH). */
#define ROCE_TRANSPORT_MAX (ROCE_BTH_LEN + ROCE_ATMETH_LEN + ROCE_IMM_LEN)
#define ROCE_MIN_FRAME     60
/* RoCEv1: the IB transport after a GRH, straight on Ethernet. */
#define ROCE_ETHERTYPE_V1  0x8915
#define ROCE_GRH_NXT_BTH   0x1b
/* IP ECN field (low two bits of the TOS / traffic class). */
#define ROCE_ECN_MASK      0x03
#define ROCE_ECN_ECT0      0x02
#define ROCE_ECN_CE        0x03

#define ROCE_DEFAULT_PKEY  0xffff
#define ROCE_PKEY_MASK     0x7fff

/* Transport (opcode bits 7..5). */
#define ROCE_TR_RC 0x00
#define ROCE_TR_UC 0x20
#define ROCE_TR_UD 0x60
#define ROCE_TR_MASK 0xe0
#define ROCE_OP_CNP 0x81

/* Operation (opcode bits 4..0). */
enum roce_op {
	ROCE_OP_SEND_FIRST = 0x00,
	ROCE_OP_SEND_MIDDLE = 0x01,
	ROCE_OP_SEND_LAST = 0x02,
	ROCE_OP_SEND_LAST_IMM = 0x03,
	ROCE_OP_SEND_ONLY = 0x04,
	ROCE_OP_SEND_ONLY_IMM = 0x05,
	ROCE_OP_WRITE_FIRST = 0x06,
	ROCE_OP_WRITE_MIDDLE = 0x07,
	ROCE_OP_WRITE_LAST = 0x08,
	ROCE_OP_WRITE_LAST_IMM = 0x09,
	ROCE_OP_WRITE_ONLY = 0x0a,
	ROCE_OP_WRITE_ONLY_IMM = 0x0b,
	ROCE_OP_READ_REQ = 0x0c,
	ROCE_OP_READ_RESP_FIRST = 0x0d,
	ROCE_OP_READ_RESP_MIDDLE = 0x0e,
	ROCE_OP_READ_RESP_LAST = 0x0f,
	ROCE_OP_READ_RESP_ONLY = 0x10,
	ROCE_OP_ACK = 0x11,
	ROCE_OP_ATOMIC_ACK = 0x12,
	ROCE_OP_CMP_SWAP = 0x13,
	ROCE_OP_FETCH_ADD = 0x14,
	ROCE_OP_SEND_LAST_INV = 0x16,
	ROCE_OP_SEND_ONLY_INV = 0x17,
	ROCE_OP_NB = 0x20,
};

/* What an operation carries and means (roce_op_info[].flags). */
#define ROCE_F_RETH    RTE_BIT32(0)
#define ROCE_F_AETH    RTE_BIT32(1)
#define ROCE_F_ATMETH  RTE_BIT32(2)
#define ROCE_F_ATMACK  RTE_BIT32(3)
#define ROCE_F_IMM     RTE_BIT32(4)
#define ROCE_F_IETH    RTE_BIT32(5)
#define ROCE_F_PAYLOAD RTE_BIT32(6)
#define ROCE_F_FIRST   RTE_BIT32(7)
#define ROCE_F_MIDDLE  RTE_BIT32(8)
#define ROCE_F_LAST    RTE_BIT32(9)
#define ROCE_F_SEND    RTE_BIT32(10)
#define ROCE_F_WRITE   RTE_BIT32(11)
#define ROCE_F_READ    RTE_BIT32(12)
#define ROCE_F_ATOMIC  RTE_BIT32(13)
#define ROCE_F_RESP    RTE_BIT32(14) /* responder -> requester */
#define ROCE_F_RC      RTE_BIT32(15) /* valid on RC */
#define ROCE_F_UC      RTE_BIT32(16) /* valid on UC */
#define ROCE_F_UD      RTE_BIT32(17) /* valid on UD (with DETH) */
#define ROCE_F_ONLY    (ROCE_F_FIRST | ROCE_F_LAST)

struct roce_op_info {
	const char *name;
	uint32_t flags;
	uint8_t hdr_len;   /* BTH + extension headers (RC/UC; UD adds DETH) */
};

extern const struct roce_op_info roce_op_info[ROCE_OP_NB];

/* AETH syndrome. */
#define ROCE_AETH_TYPE_MASK 0x60
#define ROCE_AETH_ACK       0x00
#define ROCE_AETH_RNR_NAK   0x20
#define ROCE_AETH_NAK       0x60
#define ROCE_AETH_ACK_NOCREDIT 0x1f
#define ROCE_NAK_PSN_SEQ    0x60
#define ROCE_NAK_INV_REQ    0x61
#define ROCE_NAK_REM_ACCESS 0x62
#define ROCE_NAK_REM_OP     0x63

/* Byte access in network order at any alignment. */
static inline uint16_t
roce_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
roce_get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t
roce_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return rte_be_to_cpu_32(v);
}

static inline uint64_t
roce_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return rte_be_to_cpu_64(v);
}

static inline void
roce_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
roce_put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void
roce_put32(uint8_t *p, uint32_t v)
{
	v = rte_cpu_to_be_32(v);
	memcpy(p, &v, 4);
}

static inline void
roce_put64(uint8_t *p, uint64_t v)
{
	v = rte_cpu_to_be_64(v);
	memcpy(p, &v, 8);
}

/* PSN arithmetic: 24 bits, compared over a 2^23 half window. */
#define ROCE_PSN_MASK 0xffffffu

static inline uint32_t
roce_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & ROCE_PSN_MASK;
}

/* < 0 when a is before b, 0 when equal, > 0 when a is after b. */
static inline int32_t
roce_psn_cmp(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8);
}

/* Number of PSNs from b to a (a - b modulo 2^24). */
static inline uint32_t
roce_psn_diff(uint32_t a, uint32_t b)
{
	return (a - b) & ROCE_PSN_MASK;
}

/* A BTH and the extension headers, in host order. */
struct roce_bth {
	uint8_t opcode;
	uint8_t se;
	uint8_t mig;
	uint8_t pad;
	uint8_t tver;
	uint8_t becn;      /* byte 4 bit 6 */
	uint8_t fecn;      /* byte 4 bit 7 */
	uint8_t ackreq;
	uint16_t pkey;
	uint32_t dqpn;
	uint32_t psn;
};

struct roce_ext {
	/* RETH, or the address part of an AtomicETH */
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
	/* AtomicETH */
	uint64_t swap_add;
	uint64_t compare;
	/* AETH */
	uint8_t syndrome;
	uint32_t msn;
	/* AtomicAckETH */
	uint64_t orig;
	/* ImmDt (as a host-order integer) / IETH */
	uint32_t imm;
	uint32_t ieth;
	/* DETH */
	uint32_t qkey;
	uint32_t src_qpn;
};

/*
 * Per full opcode (transport bits and operation): its flags and header
 * length, both 0 when the opcode is unknown or not valid on its transport.
 * Filled from roce_op_info when the library loads, so that the receive path
 * classifies a packet with one look-up.
 */
struct roce_opcode_entry {
	uint32_t flags;
	uint32_t hdr_len;      /* BTH + extension headers, DETH included on UD */
};

extern struct roce_opcode_entry roce_opcode_tbl[256];

/* Flags of a full opcode (0 if unknown or not valid for its transport). */
static inline uint32_t
roce_opcode_flags(uint8_t opcode)
{
	return roce_opcode_tbl[opcode].flags;
}

/* Header bytes of @opcode including DETH for UD, 0 if unknown. */
static inline unsigned int
roce_hdr_len(uint8_t opcode)
{
	return roce_opcode_tbl[opcode].hdr_len;
}

/* Write the BTH and the extension headers @opcode carries; return bytes. */
unsigned int roce_hdr_encode(uint8_t *p, const struct roce_bth *bth,
			     const struct roce_ext *ext);

/*
 * Transmit templates. Every frame of a connected (RC/UC) QP starts with
 * the same bytes: its path's Ethernet/IP/UDP header with the QP's UDP
 * source port, then a BTH whose P_Key, byte 4 (FECN/BECN zero; TVer is
 * in byte 1's low bits, zero) and destination QP never change. The QP
 * builds them once per modify (roce_tmpl_bth for the BTH part); a frame
 * copies them and roce_tmpl_encode() writes only what varies: the opcode,
 * byte 1 (SE), AckReq with the PSN, and the extension headers its opcode
 * carries. A template per opcode would differ from the QP's in byte 0
 * only, so the opcode is that one store. The bytes are those of
 * roce_hdr_encode() (roce-wire's test_tmpl_encode compares them).
 */
static inline void
roce_tmpl_bth(uint8_t *bth, uint16_t pkey, uint32_t dqpn)
{
	memset(bth, 0, ROCE_BTH_LEN);
	roce_put16(bth + 2, pkey);
	roce_put24(bth + 5, dqpn);
}

/*
 * Over a template BTH at @p (roce_tmpl_bth's, or one of a frame this
 * wrote before): the per-frame fields and the extension headers of
 * @opcode, from the fields of @e that @opcode carries (the others are not
 * read). Returns the header bytes, as roce_hdr_encode().
 */
static __rte_always_inline unsigned int
roce_tmpl_encode(uint8_t *p, uint8_t opcode, uint8_t se, uint8_t ackreq, uint32_t psn,
		 const struct roce_ext *e)
{
	uint32_t f = roce_opcode_flags(opcode);
	uint8_t *q = p + ROCE_BTH_LEN;

	p[0] = opcode;
	p[1] = se ? 0x80 : 0;
	/* AckReq, reserved bits and PSN: one store */
	roce_put32(p + 8, (ackreq ? 0x80000000u : 0) | (psn & ROCE_PSN_MASK));
	if (unlikely((opcode & ROCE_TR_MASK) == ROCE_TR_UD) && (f & ROCE_F_UD)) {
		roce_put32(q, e->qkey);
		roce_put32(q + 4, e->src_qpn & 0xffffff);
		q += ROCE_DETH_LEN;
	}
	if (f & (ROCE_F_RETH | ROCE_F_ATMETH)) {
		roce_put64(q, e->va);
		roce_put32(q + 8, e->rkey);
		if (f & ROCE_F_RETH) {
			roce_put32(q + 12, e->dma_len);
			q += ROCE_RETH_LEN;
		} else {
			roce_put64(q + 12, e->swap_add);
			roce_put64(q + 20, e->compare);
			q += ROCE_ATMETH_LEN;
		}
	}
	if (f & ROCE_F_AETH) {
		roce_put32(q, (uint32_t)e->syndrome << 24 | (e->msn & 0xffffff));
		q += ROCE_AETH_LEN;
	}
	if (f & ROCE_F_ATMACK) {
		roce_put64(q, e->orig);
		q += ROCE_ATMACK_LEN;
	}
	if (f & (ROCE_F_IMM | ROCE_F_IETH)) {
		roce_put32(q, (f & ROCE_F_IMM) ? e->imm : e->ieth);
		q += ROCE_IMM_LEN;
	}
	return (unsigned int)(q - p);
}

/* Fold a one's complement sum and complement it, as rte_ipv4_cksum(). */
static inline uint16_t
roce_ip_cksum_finish(uint32_t sum)
{
	uint16_t c;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	c = (uint16_t)sum;
	return c == 0xffff ? c : (uint16_t)~c;
}

/*
 * The lengths of a RoCEv2 frame whose UDP datagram (UDP header..ICRC) is
 * @udp_len bytes, IP at @l3: the UDP length, the IP length and, on IPv4,
 * the checksum from @csum_base (the header's sum with its total length
 * and checksum zero, roce_path.ip_csum_base): no pass over the header.
 */
static __rte_always_inline void
roce_frame_lengths(uint8_t *l3, int ipv6, uint32_t udp_len, uint32_t csum_base)
{
	uint16_t tot;

	if (ipv6) {
		roce_put16(l3 + ROCE_IPV6_LEN + 4, (uint16_t)udp_len);
		roce_put16(l3 + 4, (uint16_t)udp_len);
		return;
	}
	roce_put16(l3 + ROCE_IPV4_LEN + 4, (uint16_t)udp_len);
	tot = rte_cpu_to_be_16((uint16_t)(ROCE_IPV4_LEN + udp_len));
	memcpy(l3 + 2, &tot, 2);
	tot = roce_ip_cksum_finish(csum_base + tot);
	memcpy(l3 + 10, &tot, 2);
}

/*
 * Decode the BTH and extension headers from @p (@len bytes available).
 * Returns the header length, or -EBADMSG (unknown opcode, truncated, TVer).
 */
int roce_hdr_decode(const uint8_t *p, uint32_t len, struct roce_bth *bth,
		    struct roce_ext *ext);

/*
 * The ICRC of a RoCEv2 packet whose IP header starts at @l3 and whose
 * transport part (BTH..pad) ends at @l3 + @len. The 8 bytes before @l3 must
 * be writable (they are borrowed for the pseudo LRH and restored), as are
 * the variant fields, which are masked in place and restored.
 */
uint32_t roce_icrc(uint8_t *l3, uint32_t len, int ipv6);

/*
 * Transmit side, a connected QP: roce_icrc_seed() takes the QP's frame
 * header from @l3 (IP, UDP and BTH with its fixed fields: addresses,
 * ports, P_Key, destination QP; the rest is ignored) once, at set-up;
 * roce_icrc_seeded() then gives roce_icrc(l3, len, ipv6) of any frame of
 * the QP from that seed, reading only the fields that vary per frame
 * (lengths, opcode, BTH byte 1, AckReq, PSN) and the bytes after the BTH.
 * Read only: the frame is not masked in place.
 */
uint32_t roce_icrc_seed(const uint8_t *l3, int ipv6);
uint32_t roce_icrc_seeded(uint32_t seed, const uint8_t *l3, uint32_t len, int ipv6);

/*
 * A seed for the frames of a QP that differ from the frame at @l3 in the
 * PSN (and the bytes after the BTH) only: roce_icrc_seed()'s @seed with
 * the lengths, the opcode, BTH byte 1 and AckReq of @l3 folded in
 * (a QP's plain ACKs: one length, one opcode, AckReq 0). Then
 * roce_icrc_seeded_psn(that, l3, len, ipv6) == roce_icrc(l3, len, ipv6)
 * with three look-ups for the header instead of ten.
 */
uint32_t roce_icrc_seed_psn(uint32_t seed, const uint8_t *l3, int ipv6);
uint32_t roce_icrc_seeded_psn(uint32_t seed, const uint8_t *l3, uint32_t len, int ipv6);

/* CRC-32 as RTE_NET_CRC32_ETH computes it, many lanes folded at once. */
uint32_t roce_crc32(const uint8_t *p, uint32_t len);

/*
 * The CRC register carried over @len more bytes, no initial or final XOR:
 * roce_crc32(p, len) == ~roce_crc32_update(0xffffffff, p, len), and a
 * buffer in pieces is the update of each piece in turn (a chained frame).
 */
uint32_t roce_crc32_update(uint32_t crc, const uint8_t *p, uint32_t len);

/*
 * roce_crc32_update() over @len bytes of @src that also copies them to
 * @dst, in one pass (each block is stored from the register it was loaded
 * into for the fold): the receive path's copy and ICRC of a payload.
 * @dst and @src must not overlap; any alignment.
 */
uint32_t roce_crc32_copy(uint32_t crc, void *dst, const void *src, uint32_t len);

/*
 * The ICRC register over the first @len bytes of a packet from @l3 (the
 * IP header, or the GRH when @v1), variant fields masked as roce_icrc()
 * does: continue it with roce_crc32_update() over the rest of the packet
 * (payload segments, pad) and complement it for the ICRC.
 */
uint32_t roce_icrc_start(uint8_t *l3, uint32_t len, int ipv6, int v1);

/*
 * Tests: let roce_crc32() use only the folding paths in @allow (and the
 * CPU has); returns the paths now in use. Not for the fast path.
 */
#define ROCE_CRC32_FOLD4  RTE_BIT32(0)   /* PCLMULQDQ, four 128-bit lanes */
#define ROCE_CRC32_FOLD16 RTE_BIT32(1)   /* VPCLMULQDQ, sixteen lanes */
unsigned int roce_crc32_paths(unsigned int allow);
/*
 * The ICRC of a RoCEv1 packet: GRH at @grh, GRH..pad is @len bytes; the 8
 * bytes before @grh are borrowed as for roce_icrc().
 */
uint32_t roce_icrc_v1(uint8_t *grh, uint32_t len);

/* Why a received frame is not a valid RoCEv2 packet. */
enum roce_rx_verdict {
	ROCE_RX_OK = 0,
	ROCE_RX_NOT_ROCE,      /* not IPv4/IPv6 UDP 4791: not ours */
	ROCE_RX_MALFORMED,     /* lengths, versions, truncation */
	ROCE_RX_BAD_OPCODE,
	ROCE_RX_BAD_ICRC,
};

/* A parsed frame: pointers into the frame and the decoded headers. */
struct roce_pkt {
	uint8_t *frame;
	uint8_t *l3;
	uint8_t *bth_p;
	uint8_t *payload;
	uint32_t paylen;
	uint32_t roce_len;     /* BTH..ICRC, from UDP length */
	uint32_t flags;        /* roce_opcode_flags() */
	/* A chained frame (headers | payload | pad + ICRC): the pad and
	 * ICRC, and the bytes from l3 in the first segment. NULL: linear. */
	uint8_t *trailer;
	uint32_t hdr_cov;
	/* The engine left the ICRC to the responder, which checks it while
	 * copying the payload (roce_pkt_icrc_copy) or before anything else;
	 * placed: the payload is in place already. */
	uint8_t icrc_deferred;
	uint8_t placed;
	/* bth and ext hold everything (else only the opcode, P_Key and
	 * destination QP: roce_pkt_parse_quick) */
	uint8_t decoded;
	uint8_t ipv6;
	uint8_t ecn;           /* IP ECN field (ROCE_ECN_*) */
	uint8_t v1;            /* RoCEv1: l3 is the GRH */
	uint8_t src_ip[16];    /* IPv4 in the first 4 bytes */
	uint8_t dst_ip[16];
	struct roce_bth bth;
	struct roce_ext ext;
};

/*
 * The ICRC check of a parsed packet that also copies its payload to @dst
 * in the same pass over the bytes (roce_crc32_copy). The bytes land at
 * @dst whatever the verdict: a caller places them only where the packet,
 * if good, would put them, so that a bad one is dropped as if unseen.
 */
enum roce_rx_verdict roce_pkt_icrc_copy(const struct roce_pkt *pkt, void *dst);

/* Parse and verify a frame of @len bytes (the ICRC included). */
enum roce_rx_verdict roce_pkt_parse(uint8_t *frame, uint32_t len,
				    struct roce_pkt *pkt);

/*
 * roce_pkt_parse() in two halves: the headers and lengths, then the ICRC.
 * The receive path drops frames for no QP of its own or a foreign P_Key
 * before it pays for the ICRC, as Linux rxe's header checks do.
 */
enum roce_rx_verdict roce_pkt_parse_hdr(uint8_t *frame, uint32_t len,
					struct roce_pkt *pkt);
enum roce_rx_verdict roce_pkt_icrc_check(const struct roce_pkt *pkt);
/*
 * roce_pkt_parse_hdr() with the same verdicts, but of the BTH and
 * extension headers only the opcode, P_Key and destination QP decoded:
 * roce_pkt_decode() the rest once the frame is for a QP of ours.
 */
enum roce_rx_verdict roce_pkt_parse_quick(uint8_t *frame, uint32_t len,
					  struct roce_pkt *pkt);
void roce_pkt_decode(struct roce_pkt *pkt);

/* RNR timer code -> microseconds; local ACK timeout exponent -> ns. */
uint32_t roce_rnr_timer_us(uint8_t code);

static inline uint64_t
roce_ack_timeout_ns(uint8_t timeout)
{
	return timeout == 0 ? 0 : 4096ull << timeout;
}

#endif /* ROCE_WIRE_H */
