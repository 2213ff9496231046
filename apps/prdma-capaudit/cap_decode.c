/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "cap_crc32.h"
#include "cap_decode.h"

#define ETH_HLEN 14
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86DD
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88A8
#define IPPROTO_UDP_ 17
#define GRH_LEN 40
#define GRH_NEXT_BTH 0x1B
#define BTH_LEN 12

/* Extension headers after the BTH, per opcode (IBA 9.2 table 38). */
#define X_RETH   RTE_BIT32(0)
#define X_AETH   RTE_BIT32(1)
#define X_IMM    RTE_BIT32(2)
#define X_IETH   RTE_BIT32(3)
#define X_ATOM   RTE_BIT32(4)
#define X_AACK   RTE_BIT32(5)
#define X_DETH   RTE_BIT32(6)
#define X_VALID  RTE_BIT32(7)

static const struct {
	const char *name;
	uint32_t ext;
} op_table[32] = {
	[CAP_OP_SEND_FIRST] = { "SEND_FIRST", X_VALID },
	[CAP_OP_SEND_MIDDLE] = { "SEND_MIDDLE", X_VALID },
	[CAP_OP_SEND_LAST] = { "SEND_LAST", X_VALID },
	[CAP_OP_SEND_LAST_IMM] = { "SEND_LAST_WITH_IMMEDIATE", X_VALID | X_IMM },
	[CAP_OP_SEND_ONLY] = { "SEND_ONLY", X_VALID },
	[CAP_OP_SEND_ONLY_IMM] = { "SEND_ONLY_WITH_IMMEDIATE", X_VALID | X_IMM },
	[CAP_OP_WRITE_FIRST] = { "RDMA_WRITE_FIRST", X_VALID | X_RETH },
	[CAP_OP_WRITE_MIDDLE] = { "RDMA_WRITE_MIDDLE", X_VALID },
	[CAP_OP_WRITE_LAST] = { "RDMA_WRITE_LAST", X_VALID },
	[CAP_OP_WRITE_LAST_IMM] = { "RDMA_WRITE_LAST_WITH_IMMEDIATE", X_VALID | X_IMM },
	[CAP_OP_WRITE_ONLY] = { "RDMA_WRITE_ONLY", X_VALID | X_RETH },
	[CAP_OP_WRITE_ONLY_IMM] = { "RDMA_WRITE_ONLY_WITH_IMMEDIATE",
				    X_VALID | X_RETH | X_IMM },
	[CAP_OP_READ_REQ] = { "RDMA_READ_REQUEST", X_VALID | X_RETH },
	[CAP_OP_READ_RESP_FIRST] = { "RDMA_READ_RESPONSE_FIRST", X_VALID | X_AETH },
	[CAP_OP_READ_RESP_MIDDLE] = { "RDMA_READ_RESPONSE_MIDDLE", X_VALID },
	[CAP_OP_READ_RESP_LAST] = { "RDMA_READ_RESPONSE_LAST", X_VALID | X_AETH },
	[CAP_OP_READ_RESP_ONLY] = { "RDMA_READ_RESPONSE_ONLY", X_VALID | X_AETH },
	[CAP_OP_ACK] = { "ACKNOWLEDGE", X_VALID | X_AETH },
	[CAP_OP_ATOMIC_ACK] = { "ATOMIC_ACKNOWLEDGE", X_VALID | X_AETH | X_AACK },
	[CAP_OP_CMP_SWAP] = { "COMPARE_SWAP", X_VALID | X_ATOM },
	[CAP_OP_FETCH_ADD] = { "FETCH_ADD", X_VALID | X_ATOM },
	[CAP_OP_SEND_LAST_INV] = { "SEND_LAST_WITH_INVALIDATE", X_VALID | X_IETH },
	[CAP_OP_SEND_ONLY_INV] = { "SEND_ONLY_WITH_INVALIDATE", X_VALID | X_IETH },
};

static const char *const tr_prefix[8] = {
	"RC_", "UC_", "RD_", "UD_", "CNP_", "XRC_", "?6_", "VENDOR_",
};

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t
be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* Which opcodes each transport defines (IBA 9.2 table 38). */
static int
op_valid(uint8_t opcode)
{
	unsigned int tr = cap_op_transport(opcode), op = cap_op_code(opcode);

	if (opcode == CAP_OPCODE_CNP)
		return 1;
	if (!(op_table[op].ext & X_VALID))
		return 0;
	switch (tr) {
	case CAP_TR_RC:
		return 1;
	case CAP_TR_UC:
		return op <= CAP_OP_WRITE_ONLY_IMM;
	case CAP_TR_UD:
		return op == CAP_OP_SEND_ONLY || op == CAP_OP_SEND_ONLY_IMM;
	default:
		return 0;
	}
}

const char *
cap_opcode_name(uint8_t opcode)
{
	static char buf[8][48];
	static unsigned int slot;
	char *b;

	if (opcode == CAP_OPCODE_CNP)
		return "CNP";
	b = buf[slot++ % 8];
	if (op_valid(opcode))
		snprintf(b, sizeof(buf[0]), "%s%s", tr_prefix[cap_op_transport(opcode)],
			 op_table[cap_op_code(opcode)].name);
	else
		snprintf(b, sizeof(buf[0]), "UNKNOWN_0x%02x", opcode);
	return b;
}

unsigned int
cap_op_position(uint8_t opcode)
{
	switch (cap_op_code(opcode)) {
	case CAP_OP_SEND_FIRST:
	case CAP_OP_WRITE_FIRST:
	case CAP_OP_READ_RESP_FIRST:
		return CAP_POS_FIRST;
	case CAP_OP_SEND_MIDDLE:
	case CAP_OP_WRITE_MIDDLE:
	case CAP_OP_READ_RESP_MIDDLE:
		return 0;
	case CAP_OP_SEND_LAST:
	case CAP_OP_SEND_LAST_IMM:
	case CAP_OP_SEND_LAST_INV:
	case CAP_OP_WRITE_LAST:
	case CAP_OP_WRITE_LAST_IMM:
	case CAP_OP_READ_RESP_LAST:
		return CAP_POS_LAST;
	default:
		return CAP_POS_FIRST | CAP_POS_LAST;
	}
}

int
cap_op_is_request(uint8_t opcode)
{
	unsigned int op = cap_op_code(opcode);

	if (opcode == CAP_OPCODE_CNP || !op_valid(opcode))
		return 0;
	return !(op >= CAP_OP_READ_RESP_FIRST && op <= CAP_OP_ATOMIC_ACK);
}

char *
cap_addr_str(const uint8_t addr[16], int ipv4, char *buf, size_t len)
{
	if (ipv4)
		inet_ntop(AF_INET, addr + 12, buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, addr, buf, (socklen_t)len);
	return buf;
}

static void
malformed(struct cap_pkt *pkt, const char *why)
{
	pkt->kind = CAP_FRAME_MALFORMED;
	snprintf(pkt->why, sizeof(pkt->why), "%s", why);
}

/*
 * Decode the BTH and what follows. @p p points at the BTH, @p len is the
 * RoCE length from the BTH through the ICRC (from UDP.len or GRH.PayLen),
 * @p avail the bytes the capture holds from @p p on.
 */
static void
decode_ib(struct cap_pkt *pkt, const uint8_t *p, uint32_t len, uint32_t avail)
{
	uint32_t ext, off = BTH_LEN, need;

	if (len < BTH_LEN + 4) {
		malformed(pkt, "shorter than BTH + ICRC");
		return;
	}
	if (avail < BTH_LEN) {
		malformed(pkt, "capture cut inside the BTH");
		return;
	}
	pkt->opcode = p[0];
	pkt->se = p[1] >> 7;
	pkt->mig = (p[1] >> 6) & 1;
	pkt->padcnt = (p[1] >> 4) & 3;
	pkt->tver = p[1] & 0xF;
	pkt->pkey = be16(p + 2);
	pkt->dqpn = be24(p + 5);
	pkt->ackreq = p[8] >> 7;
	pkt->psn = be24(p + 9);
	pkt->known_op = (uint8_t)op_valid(pkt->opcode);
	pkt->kind = CAP_FRAME_ROCE;
	if (pkt->opcode == CAP_OPCODE_CNP) {
		pkt->payload_len = len - BTH_LEN - 4;
		return;
	}
	if (!pkt->known_op)
		return;
	ext = op_table[cap_op_code(pkt->opcode)].ext;
	if (cap_op_transport(pkt->opcode) == CAP_TR_UD)
		ext |= X_DETH;
	need = BTH_LEN + (ext & X_DETH ? 8 : 0) + (ext & X_RETH ? 16 : 0) +
	       (ext & X_AETH ? 4 : 0) + (ext & X_AACK ? 8 : 0) +
	       (ext & X_ATOM ? 28 : 0) + (ext & X_IMM ? 4 : 0) + (ext & X_IETH ? 4 : 0);
	if (len < need + 4 + pkt->padcnt) {
		malformed(pkt, "shorter than its opcode's headers");
		return;
	}
	if (avail < need) {
		malformed(pkt, "capture cut inside the extension headers");
		return;
	}
	/* Wire order: DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt/IETH. */
	if (ext & X_DETH) {
		pkt->has_deth = 1;
		pkt->deth_qkey = be32(p + off);
		pkt->deth_srcqp = be24(p + off + 5);
		off += 8;
	}
	if (ext & X_RETH) {
		pkt->has_reth = 1;
		pkt->reth_va = be64(p + off);
		pkt->reth_rkey = be32(p + off + 8);
		pkt->reth_len = be32(p + off + 12);
		off += 16;
	}
	if (ext & X_ATOM) {
		pkt->has_atomic = 1;
		pkt->reth_va = be64(p + off);
		pkt->reth_rkey = be32(p + off + 8);
		pkt->reth_len = 8;
		off += 28;
	}
	if (ext & X_AETH) {
		pkt->has_aeth = 1;
		pkt->aeth_syndrome = p[off];
		pkt->aeth_msn = be24(p + off + 1);
		off += 4;
	}
	if (ext & X_AACK) {
		pkt->has_atomic_ack = 1;
		off += 8;
	}
	if (ext & X_IMM) {
		pkt->has_imm = 1;
		off += 4;
	}
	if (ext & X_IETH) {
		pkt->has_ieth = 1;
		off += 4;
	}
	pkt->payload_len = len - off - 4 - pkt->padcnt;
}

static void
check_icrc(struct cap_pkt *pkt, enum cap_l3 l3, const uint8_t *l3p, uint32_t l3_len,
	   uint32_t body_len, uint32_t avail)
{
	const uint8_t *t;

	if ((uint64_t)l3_len + body_len + 4 > avail) {
		pkt->icrc = CAP_ICRC_UNCHECKED;
		return;
	}
	t = l3p + l3_len + body_len;
	pkt->icrc_wire = (uint32_t)t[0] | (uint32_t)t[1] << 8 |
			 (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
	pkt->icrc_calc = cap_icrc(l3, l3p, l3_len, body_len);
	pkt->icrc = pkt->icrc_calc == pkt->icrc_wire ? CAP_ICRC_OK : CAP_ICRC_BAD;
}

static void
decode_udp(struct cap_pkt *pkt, enum cap_l3 l3, const uint8_t *l3p, uint32_t l3_len,
	   uint32_t l3_payload, uint32_t avail)
{
	const uint8_t *u = l3p + l3_len;
	uint32_t ulen;

	if (avail < l3_len + 8)
		return;         /* cannot even see the ports */
	if (be16(u + 2) != CAP_ROCE_PORT)
		return;
	pkt->version = 2;
	pkt->sport = be16(u);
	ulen = be16(u + 4);
	if (ulen < 8 || ulen > l3_payload) {
		malformed(pkt, "UDP length disagrees with the IP length");
		return;
	}
	decode_ib(pkt, u + 8, ulen - 8, avail - l3_len - 8);
	if (pkt->kind == CAP_FRAME_ROCE)
		check_icrc(pkt, l3, l3p, l3_len, ulen - 4, avail);
}

static void
decode_ipv4(struct cap_pkt *pkt, const uint8_t *p, uint32_t avail)
{
	uint32_t ihl, tot;

	if (avail < 20 || (p[0] >> 4) != 4)
		return;
	ihl = (p[0] & 0xF) * 4u;
	tot = be16(p + 2);
	if (p[9] != IPPROTO_UDP_ || ihl < 20 || avail < ihl)
		return;
	/* A fragment is not RoCE traffic we can decode. */
	if ((be16(p + 6) & 0x3FFF) != 0)
		return;
	pkt->ipv4 = 1;
	memset(pkt->src, 0, 10);
	pkt->src[10] = pkt->src[11] = 0xFF;
	memcpy(pkt->dst, pkt->src, 12);
	memcpy(pkt->src + 12, p + 12, 4);
	memcpy(pkt->dst + 12, p + 16, 4);
	if (tot < ihl) {
		if (avail >= ihl + 4 && be16(p + ihl + 2) == CAP_ROCE_PORT)
			malformed(pkt, "IPv4 total length below its header length");
		return;
	}
	decode_udp(pkt, CAP_L3_IPV4, p, ihl, tot - ihl, avail);
}

static void
decode_ipv6(struct cap_pkt *pkt, const uint8_t *p, uint32_t avail)
{
	if (avail < 40 || (p[0] >> 4) != 6 || p[6] != IPPROTO_UDP_)
		return;
	memcpy(pkt->src, p + 8, 16);
	memcpy(pkt->dst, p + 24, 16);
	decode_udp(pkt, CAP_L3_IPV6, p, 40, be16(p + 4), avail);
}

static void
decode_grh(struct cap_pkt *pkt, const uint8_t *p, uint32_t avail)
{
	uint32_t paylen;

	pkt->version = 1;
	if (avail < GRH_LEN) {
		malformed(pkt, "capture cut inside the GRH");
		return;
	}
	if ((p[0] >> 4) != 6 || p[6] != GRH_NEXT_BTH) {
		malformed(pkt, "GRH with a bad IPVer or NxtHdr");
		return;
	}
	memcpy(pkt->src, p + 8, 16);
	memcpy(pkt->dst, p + 24, 16);
	paylen = be16(p + 4);
	decode_ib(pkt, p + GRH_LEN, paylen, avail - GRH_LEN);
	if (pkt->kind == CAP_FRAME_ROCE)
		check_icrc(pkt, CAP_L3_GRH, p, GRH_LEN, paylen - 4, avail);
}

static void
decode_ethertype(struct cap_pkt *pkt, uint16_t et, const uint8_t *p, uint32_t avail)
{
	switch (et) {
	case ETHERTYPE_IPV4:
		decode_ipv4(pkt, p, avail);
		break;
	case ETHERTYPE_IPV6:
		decode_ipv6(pkt, p, avail);
		break;
	case CAP_ETH_ROCEV1:
		decode_grh(pkt, p, avail);
		break;
	default:
		break;
	}
}

void
cap_decode(const struct cap_frame *fr, struct cap_pkt *pkt)
{
	const uint8_t *p = fr->data;
	uint32_t avail = fr->caplen, off;
	uint16_t et;

	memset(pkt, 0, sizeof(*pkt));
	pkt->kind = CAP_FRAME_OTHER;
	pkt->wire_len = fr->origlen;
	switch (fr->linktype) {
	case CAP_LINK_ETHERNET:
		if (avail < ETH_HLEN)
			return;
		off = 12;
		et = be16(p + off);
		/* Up to two VLAN tags (802.1Q, QinQ). */
		while ((et == ETHERTYPE_VLAN || et == ETHERTYPE_QINQ) && avail >= off + 6) {
			off += 4;
			et = be16(p + off);
		}
		off += 2;
		decode_ethertype(pkt, et, p + off, avail - off);
		break;
	case CAP_LINK_SLL:
		if (avail < 16)
			return;
		decode_ethertype(pkt, be16(p + 14), p + 16, avail - 16);
		break;
	case CAP_LINK_SLL2:
		if (avail < 20)
			return;
		decode_ethertype(pkt, be16(p), p + 20, avail - 20);
		break;
	case CAP_LINK_RAW:
	case CAP_LINK_IPV4:
	case CAP_LINK_IPV6:
		if (avail < 1)
			return;
		if ((p[0] >> 4) == 4)
			decode_ipv4(pkt, p, avail);
		else if ((p[0] >> 4) == 6)
			decode_ipv6(pkt, p, avail);
		break;
	default:
		break;
	}
}
