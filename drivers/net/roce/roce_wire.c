/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Transport header codec and frame parser (roce-wire-facts.md §2-§4). */

#include <errno.h>
#include <stdbool.h>
#include <netinet/in.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "roce_wire.h"

#define RC ROCE_F_RC
#define UC ROCE_F_UC
#define UD ROCE_F_UD
#define PAY ROCE_F_PAYLOAD

const struct roce_op_info roce_op_info[ROCE_OP_NB] = {
	[ROCE_OP_SEND_FIRST] = { "SEND_FIRST",
		RC | UC | ROCE_F_SEND | ROCE_F_FIRST | PAY, 12 },
	[ROCE_OP_SEND_MIDDLE] = { "SEND_MIDDLE",
		RC | UC | ROCE_F_SEND | ROCE_F_MIDDLE | PAY, 12 },
	[ROCE_OP_SEND_LAST] = { "SEND_LAST",
		RC | UC | ROCE_F_SEND | ROCE_F_LAST | PAY, 12 },
	[ROCE_OP_SEND_LAST_IMM] = { "SEND_LAST_WITH_IMMEDIATE",
		RC | UC | ROCE_F_SEND | ROCE_F_LAST | ROCE_F_IMM | PAY, 16 },
	[ROCE_OP_SEND_ONLY] = { "SEND_ONLY",
		RC | UC | UD | ROCE_F_SEND | ROCE_F_ONLY | PAY, 12 },
	[ROCE_OP_SEND_ONLY_IMM] = { "SEND_ONLY_WITH_IMMEDIATE",
		RC | UC | UD | ROCE_F_SEND | ROCE_F_ONLY | ROCE_F_IMM | PAY, 16 },
	[ROCE_OP_WRITE_FIRST] = { "RDMA_WRITE_FIRST",
		RC | UC | ROCE_F_WRITE | ROCE_F_FIRST | ROCE_F_RETH | PAY, 28 },
	[ROCE_OP_WRITE_MIDDLE] = { "RDMA_WRITE_MIDDLE",
		RC | UC | ROCE_F_WRITE | ROCE_F_MIDDLE | PAY, 12 },
	[ROCE_OP_WRITE_LAST] = { "RDMA_WRITE_LAST",
		RC | UC | ROCE_F_WRITE | ROCE_F_LAST | PAY, 12 },
	[ROCE_OP_WRITE_LAST_IMM] = { "RDMA_WRITE_LAST_WITH_IMMEDIATE",
		RC | UC | ROCE_F_WRITE | ROCE_F_LAST | ROCE_F_IMM | PAY, 16 },
	[ROCE_OP_WRITE_ONLY] = { "RDMA_WRITE_ONLY",
		RC | UC | ROCE_F_WRITE | ROCE_F_ONLY | ROCE_F_RETH | PAY, 28 },
	[ROCE_OP_WRITE_ONLY_IMM] = { "RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		RC | UC | ROCE_F_WRITE | ROCE_F_ONLY | ROCE_F_RETH | ROCE_F_IMM | PAY, 32 },
	[ROCE_OP_READ_REQ] = { "RDMA_READ_REQUEST",
		RC | ROCE_F_READ | ROCE_F_ONLY | ROCE_F_RETH, 28 },
	[ROCE_OP_READ_RESP_FIRST] = { "RDMA_READ_RESPONSE_FIRST",
		RC | ROCE_F_RESP | ROCE_F_READ | ROCE_F_FIRST | ROCE_F_AETH | PAY, 16 },
	[ROCE_OP_READ_RESP_MIDDLE] = { "RDMA_READ_RESPONSE_MIDDLE",
		RC | ROCE_F_RESP | ROCE_F_READ | ROCE_F_MIDDLE | PAY, 12 },
	[ROCE_OP_READ_RESP_LAST] = { "RDMA_READ_RESPONSE_LAST",
		RC | ROCE_F_RESP | ROCE_F_READ | ROCE_F_LAST | ROCE_F_AETH | PAY, 16 },
	[ROCE_OP_READ_RESP_ONLY] = { "RDMA_READ_RESPONSE_ONLY",
		RC | ROCE_F_RESP | ROCE_F_READ | ROCE_F_ONLY | ROCE_F_AETH | PAY, 16 },
	[ROCE_OP_ACK] = { "ACKNOWLEDGE",
		RC | ROCE_F_RESP | ROCE_F_AETH, 16 },
	[ROCE_OP_ATOMIC_ACK] = { "ATOMIC_ACKNOWLEDGE",
		RC | ROCE_F_RESP | ROCE_F_AETH | ROCE_F_ATMACK | ROCE_F_ATOMIC, 24 },
	[ROCE_OP_CMP_SWAP] = { "COMPARE_SWAP",
		RC | ROCE_F_ATOMIC | ROCE_F_ONLY | ROCE_F_ATMETH, 40 },
	[ROCE_OP_FETCH_ADD] = { "FETCH_ADD",
		RC | ROCE_F_ATOMIC | ROCE_F_ONLY | ROCE_F_ATMETH, 40 },
	[ROCE_OP_SEND_LAST_INV] = { "SEND_LAST_WITH_INVALIDATE",
		RC | ROCE_F_SEND | ROCE_F_LAST | ROCE_F_IETH | PAY, 16 },
	[ROCE_OP_SEND_ONLY_INV] = { "SEND_ONLY_WITH_INVALIDATE",
		RC | ROCE_F_SEND | ROCE_F_ONLY | ROCE_F_IETH | PAY, 16 },
};

struct roce_opcode_entry roce_opcode_tbl[256];

RTE_INIT(roce_opcode_tbl_init)
{
	static const struct {
		uint8_t base;
		uint32_t need;
		uint8_t extra;
	} tr[] = {
		{ ROCE_TR_RC, ROCE_F_RC, 0 },
		{ ROCE_TR_UC, ROCE_F_UC, 0 },
		{ ROCE_TR_UD, ROCE_F_UD, ROCE_DETH_LEN },
	};
	unsigned int t, op;

	for (t = 0; t < RTE_DIM(tr); t++) {
		for (op = 0; op < ROCE_OP_NB; op++) {
			const struct roce_op_info *oi = &roce_op_info[op];
			struct roce_opcode_entry *e = &roce_opcode_tbl[tr[t].base | op];

			if ((oi->flags & tr[t].need) == 0)
				continue;
			e->flags = oi->flags;
			e->hdr_len = oi->hdr_len + tr[t].extra;
		}
	}
}

unsigned int
roce_hdr_encode(uint8_t *p, const struct roce_bth *b, const struct roce_ext *e)
{
	uint32_t f = roce_opcode_flags(b->opcode);
	uint8_t *q = p + ROCE_BTH_LEN;

	p[0] = b->opcode;
	p[1] = (uint8_t)((b->se ? 0x80 : 0) | (b->mig ? 0x40 : 0) |
			 ((b->pad & 3) << 4) | (b->tver & 0xf));
	roce_put16(p + 2, b->pkey);
	p[4] = (uint8_t)((b->fecn ? 0x80 : 0) | (b->becn ? 0x40 : 0));
	roce_put24(p + 5, b->dqpn);
	p[8] = b->ackreq ? 0x80 : 0;
	roce_put24(p + 9, b->psn);
	/* Wire order: DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH. */
	if (f & ROCE_F_UD && (b->opcode & ROCE_TR_MASK) == ROCE_TR_UD) {
		roce_put32(q, e->qkey);
		q[4] = 0;
		roce_put24(q + 5, e->src_qpn);
		q += ROCE_DETH_LEN;
	}
	if (f & ROCE_F_RETH) {
		roce_put64(q, e->va);
		roce_put32(q + 8, e->rkey);
		roce_put32(q + 12, e->dma_len);
		q += ROCE_RETH_LEN;
	}
	if (f & ROCE_F_ATMETH) {
		roce_put64(q, e->va);
		roce_put32(q + 8, e->rkey);
		roce_put64(q + 12, e->swap_add);
		roce_put64(q + 20, e->compare);
		q += ROCE_ATMETH_LEN;
	}
	if (f & ROCE_F_AETH) {
		q[0] = e->syndrome;
		roce_put24(q + 1, e->msn);
		q += ROCE_AETH_LEN;
	}
	if (f & ROCE_F_ATMACK) {
		roce_put64(q, e->orig);
		q += ROCE_ATMACK_LEN;
	}
	if (f & ROCE_F_IMM) {
		roce_put32(q, e->imm);
		q += ROCE_IMM_LEN;
	}
	if (f & ROCE_F_IETH) {
		roce_put32(q, e->ieth);
		q += ROCE_IETH_LEN;
	}
	return (unsigned int)(q - p);
}

/* The fields of a BTH and extension headers already checked (flags @f). */
static __rte_always_inline void
hdr_fields(const uint8_t *p, uint32_t f, struct roce_bth *b, struct roce_ext *e)
{
	const uint8_t *q = p + ROCE_BTH_LEN;

	b->opcode = p[0];
	b->se = !!(p[1] & 0x80);
	b->mig = !!(p[1] & 0x40);
	b->pad = (p[1] >> 4) & 3;
	b->tver = 0;
	b->pkey = roce_get16(p + 2);
	b->fecn = !!(p[4] & 0x80);
	b->becn = !!(p[4] & 0x40);
	b->dqpn = roce_get24(p + 5);
	b->ackreq = !!(p[8] & 0x80);
	b->psn = roce_get24(p + 9);
	memset(e, 0, sizeof(*e));
	if ((b->opcode & ROCE_TR_MASK) == ROCE_TR_UD) {
		e->qkey = roce_get32(q);
		e->src_qpn = roce_get24(q + 5);
		q += ROCE_DETH_LEN;
	}
	if (f & ROCE_F_RETH) {
		e->va = roce_get64(q);
		e->rkey = roce_get32(q + 8);
		e->dma_len = roce_get32(q + 12);
		q += ROCE_RETH_LEN;
	}
	if (f & ROCE_F_ATMETH) {
		e->va = roce_get64(q);
		e->rkey = roce_get32(q + 8);
		e->swap_add = roce_get64(q + 12);
		e->compare = roce_get64(q + 20);
		q += ROCE_ATMETH_LEN;
	}
	if (f & ROCE_F_AETH) {
		e->syndrome = q[0];
		e->msn = roce_get24(q + 1);
		q += ROCE_AETH_LEN;
	}
	if (f & ROCE_F_ATMACK) {
		e->orig = roce_get64(q);
		q += ROCE_ATMACK_LEN;
	}
	if (f & ROCE_F_IMM) {
		e->imm = roce_get32(q);
		q += ROCE_IMM_LEN;
	}
	if (f & ROCE_F_IETH)
		e->ieth = roce_get32(q);
}

int
roce_hdr_decode(const uint8_t *p, uint32_t len, struct roce_bth *b,
		struct roce_ext *e)
{
	const struct roce_opcode_entry *oe;
	uint32_t f;

	if (len < ROCE_BTH_LEN)
		return -EBADMSG;
	oe = &roce_opcode_tbl[p[0]];
	f = oe->flags;
	if (f == 0 || (p[1] & 0xf) != 0 || oe->hdr_len > len)
		return -EBADMSG;
	hdr_fields(p, f, b, e);
	return (int)oe->hdr_len;
}

/*
 * BTH..ICRC at pkt->bth_p, pkt->roce_len bytes: every check of the
 * transport headers (opcode, TVer, lengths, pad), on the raw bytes, and the
 * fields the receive path looks a QP up by (opcode, P_Key, destination
 * QP). With @full the rest is decoded too; without, roce_pkt_decode()
 * does it, once the frame is known to be for a QP: garbage is dropped
 * without paying for the extension headers.
 */
static __rte_always_inline enum roce_rx_verdict
parse_transport(struct roce_pkt *pkt, bool full)
{
	const uint8_t *p = pkt->bth_p;
	const struct roce_opcode_entry *oe;
	uint32_t hlen, pad;

	if (p[0] == ROCE_OP_CNP) {
		/* Congestion notification: recognised, carries no transport. */
		memset(&pkt->bth, 0, sizeof(pkt->bth));
		pkt->bth.opcode = ROCE_OP_CNP;
		pkt->bth.dqpn = roce_get24(p + 5);
		/* Checked like any frame's: a CNP must name the QP's P_Key. */
		pkt->bth.pkey = roce_get16(p + 2);
		pkt->flags = 0;
		pkt->payload = NULL;
		pkt->paylen = 0;
		pkt->decoded = 1;
		return ROCE_RX_OK;
	}
	/* roce_len >= BTH + ICRC: the callers check it */
	oe = &roce_opcode_tbl[p[0]];
	if (oe->flags == 0)
		return ROCE_RX_BAD_OPCODE;
	hlen = oe->hdr_len;
	if ((p[1] & 0xf) != 0 || hlen > pkt->roce_len - ROCE_ICRC_LEN)
		return ROCE_RX_MALFORMED;
	pad = (p[1] >> 4) & 3;
	pkt->flags = oe->flags;
	if (hlen + ROCE_ICRC_LEN + pad > pkt->roce_len)
		return ROCE_RX_MALFORMED;
	pkt->payload = pkt->bth_p + hlen;
	pkt->paylen = pkt->roce_len - hlen - ROCE_ICRC_LEN - pad;
	if (!(pkt->flags & ROCE_F_PAYLOAD) && pkt->paylen != 0)
		return ROCE_RX_MALFORMED;
	if (full) {
		hdr_fields(p, pkt->flags, &pkt->bth, &pkt->ext);
		pkt->decoded = 1;
		return ROCE_RX_OK;
	}
	pkt->bth.opcode = p[0];
	pkt->bth.pkey = roce_get16(p + 2);
	pkt->bth.dqpn = roce_get24(p + 5);
	pkt->decoded = 0;
	return ROCE_RX_OK;
}

void
roce_pkt_decode(struct roce_pkt *pkt)
{
	if (pkt->decoded)
		return;
	/* checked by parse_transport already */
	hdr_fields(pkt->bth_p, pkt->flags, &pkt->bth, &pkt->ext);
	pkt->decoded = 1;
}

/*
 * The ICRC covers pkt->l3 up to the ICRC itself (the GRH on RoCEv1, IP and
 * UDP on RoCEv2), its variant fields masked.
 */
enum roce_rx_verdict
roce_pkt_icrc_check(const struct roce_pkt *pkt)
{
	uint32_t covered, got, want, pad;

	if (pkt->trailer != NULL) {
		/* Chained: the headers' register, on over payload and pad. */
		pad = (pkt->bth_p[1] >> 4) & 3;
		want = roce_icrc_start(pkt->l3, pkt->hdr_cov, pkt->ipv6 && !pkt->v1, pkt->v1);
		want = roce_crc32_update(want, pkt->payload, pkt->paylen);
		want = ~roce_crc32_update(want, pkt->trailer, pad);
		got = roce_get32(pkt->trailer + pad);
		return got == rte_bswap32(want) ? ROCE_RX_OK : ROCE_RX_BAD_ICRC;
	}
	covered = (uint32_t)(pkt->bth_p - pkt->l3) + pkt->roce_len - ROCE_ICRC_LEN;
	want = pkt->v1 ? roce_icrc_v1(pkt->l3, covered) :
		roce_icrc(pkt->l3, covered, pkt->ipv6);
	got = roce_get32(pkt->bth_p + pkt->roce_len - ROCE_ICRC_LEN);
	/* On the wire least significant byte first. */
	return got == rte_bswap32(want) ? ROCE_RX_OK : ROCE_RX_BAD_ICRC;
}

enum roce_rx_verdict
roce_pkt_icrc_copy(const struct roce_pkt *pkt, void *dst)
{
	uint32_t pad = (pkt->bth_p[1] >> 4) & 3, hdr, want, got;
	const uint8_t *tail;

	/* The bytes before the payload: a chain's first segment, else the
	 * frame up to the payload; then pad and ICRC right after it. */
	if (pkt->trailer != NULL) {
		hdr = pkt->hdr_cov;
		tail = pkt->trailer;
	} else {
		hdr = (uint32_t)(pkt->payload - pkt->l3);
		tail = pkt->payload + pkt->paylen;
	}
	want = roce_icrc_start(pkt->l3, hdr, pkt->ipv6 && !pkt->v1, pkt->v1);
	want = roce_crc32_copy(want, dst, pkt->payload, pkt->paylen);
	want = ~roce_crc32_update(want, tail, pad);
	got = roce_get32(tail + pad);
	return got == rte_bswap32(want) ? ROCE_RX_OK : ROCE_RX_BAD_ICRC;
}

/* RoCEv1: a GRH (IPv6-like, next header 0x1B) straight after Ethernet. */
static enum roce_rx_verdict
parse_v1(uint8_t *frame, uint32_t len, uint32_t off, struct roce_pkt *pkt, bool full)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	uint8_t *grh = frame + off;
	uint32_t plen;

	if (len - off < ROCE_GRH_LEN)
		return ROCE_RX_MALFORMED;
	if ((grh[0] >> 4) != 6 || grh[6] != ROCE_GRH_NXT_BTH)
		return ROCE_RX_MALFORMED;
	plen = roce_get16(grh + 4);
	if (plen < ROCE_BTH_LEN + ROCE_ICRC_LEN || plen > len - off - ROCE_GRH_LEN)
		return ROCE_RX_MALFORMED;
	pkt->v1 = 1;
	pkt->ecn = (grh[1] >> 4) & ROCE_ECN_MASK;
	memset(pkt->src_ip, 0, sizeof(pkt->src_ip));
	memset(pkt->dst_ip, 0, sizeof(pkt->dst_ip));
	/* GIDs: IPv4-mapped ones compare as IPv4 addresses, as on RoCEv2. */
	if (memcmp(grh + 24, v4mapped, sizeof(v4mapped)) == 0) {
		pkt->ipv6 = 0;
		memcpy(pkt->src_ip, grh + 8 + 12, 4);
		memcpy(pkt->dst_ip, grh + 24 + 12, 4);
	} else {
		pkt->ipv6 = 1;
		memcpy(pkt->src_ip, grh + 8, 16);
		memcpy(pkt->dst_ip, grh + 24, 16);
	}
	pkt->roce_len = plen;
	pkt->bth_p = grh + ROCE_GRH_LEN;
	return parse_transport(pkt, full);
}

static __rte_always_inline enum roce_rx_verdict
parse_hdr(uint8_t *frame, uint32_t len, struct roce_pkt *pkt, bool full)
{
	uint32_t off = ROCE_ETH_LEN, l3len, udp_len;
	uint16_t etype;
	uint8_t *l3, *udp;

	pkt->trailer = NULL;
	pkt->hdr_cov = 0;
	pkt->icrc_deferred = 0;
	pkt->placed = 0;
	if (len < ROCE_ETH_LEN)
		return ROCE_RX_MALFORMED;
	etype = roce_get16(frame + 12);
	if (etype == RTE_ETHER_TYPE_VLAN) {
		if (len < ROCE_ETH_LEN + ROCE_VLAN_LEN)
			return ROCE_RX_MALFORMED;
		etype = roce_get16(frame + 16);
		off += ROCE_VLAN_LEN;
	}
	l3 = frame + off;
	pkt->frame = frame;
	pkt->l3 = l3;
	if (etype == RTE_ETHER_TYPE_IPV4) {
		uint16_t tot, frag;

		if (len - off < ROCE_IPV4_LEN)
			return ROCE_RX_MALFORMED;
		if (l3[9] != IPPROTO_UDP)
			return ROCE_RX_NOT_ROCE;
		/* Options are not produced by RoCE senders; refuse them. */
		if (l3[0] != 0x45)
			return ROCE_RX_MALFORMED;
		tot = roce_get16(l3 + 2);
		frag = roce_get16(l3 + 6);
		if ((frag & 0x3fff) != 0)
			return ROCE_RX_MALFORMED;
		if (tot < ROCE_IPV4_LEN + ROCE_UDP_LEN || tot > len - off)
			return ROCE_RX_MALFORMED;
		l3len = ROCE_IPV4_LEN;
		pkt->ipv6 = 0;
		pkt->ecn = l3[1] & ROCE_ECN_MASK;
		pkt->v1 = 0;
		memset(pkt->src_ip, 0, sizeof(pkt->src_ip));
		memset(pkt->dst_ip, 0, sizeof(pkt->dst_ip));
		memcpy(pkt->src_ip, l3 + 12, 4);
		memcpy(pkt->dst_ip, l3 + 16, 4);
		udp = l3 + l3len;
		if (roce_get16(udp + 2) != ROCE_UDP_PORT)
			return ROCE_RX_NOT_ROCE;
		udp_len = roce_get16(udp + 4);
		if (udp_len > (uint32_t)tot - ROCE_IPV4_LEN)
			return ROCE_RX_MALFORMED;
	} else if (etype == RTE_ETHER_TYPE_IPV6) {
		uint16_t plen;

		if (len - off < ROCE_IPV6_LEN)
			return ROCE_RX_MALFORMED;
		if (l3[6] != IPPROTO_UDP)
			return ROCE_RX_NOT_ROCE;
		if ((l3[0] >> 4) != 6)
			return ROCE_RX_MALFORMED;
		plen = roce_get16(l3 + 4);
		if (plen < ROCE_UDP_LEN || plen > len - off - ROCE_IPV6_LEN)
			return ROCE_RX_MALFORMED;
		l3len = ROCE_IPV6_LEN;
		pkt->ipv6 = 1;
		pkt->ecn = (l3[1] >> 4) & ROCE_ECN_MASK;
		pkt->v1 = 0;
		memcpy(pkt->src_ip, l3 + 8, 16);
		memcpy(pkt->dst_ip, l3 + 24, 16);
		udp = l3 + l3len;
		if (roce_get16(udp + 2) != ROCE_UDP_PORT)
			return ROCE_RX_NOT_ROCE;
		udp_len = roce_get16(udp + 4);
		if (udp_len > plen)
			return ROCE_RX_MALFORMED;
	} else if (etype == ROCE_ETHERTYPE_V1) {
		return parse_v1(frame, len, off, pkt, full);
	} else {
		return ROCE_RX_NOT_ROCE;
	}
	/* The RoCE length comes from UDP: short frames are padded to 60 bytes. */
	if (udp_len < ROCE_UDP_LEN + ROCE_BTH_LEN + ROCE_ICRC_LEN)
		return ROCE_RX_MALFORMED;
	pkt->roce_len = udp_len - ROCE_UDP_LEN;
	pkt->bth_p = udp + ROCE_UDP_LEN;
	return parse_transport(pkt, full);
}

enum roce_rx_verdict
roce_pkt_parse_hdr(uint8_t *frame, uint32_t len, struct roce_pkt *pkt)
{
	return parse_hdr(frame, len, pkt, true);
}

enum roce_rx_verdict
roce_pkt_parse_quick(uint8_t *frame, uint32_t len, struct roce_pkt *pkt)
{
	return parse_hdr(frame, len, pkt, false);
}

enum roce_rx_verdict
roce_pkt_parse(uint8_t *frame, uint32_t len, struct roce_pkt *pkt)
{
	enum roce_rx_verdict v = roce_pkt_parse_hdr(frame, len, pkt);

	return v == ROCE_RX_OK ? roce_pkt_icrc_check(pkt) : v;
}

uint32_t
roce_rnr_timer_us(uint8_t code)
{
	/* IBA table 45 in microseconds; code 0 is the longest. */
	static const uint32_t us[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640,
		960, 1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480,
		30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680,
		491520,
	};

	return us[code & 31];
}
