/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef CAP_DECODE_H
#define CAP_DECODE_H

/* Decoding one captured frame down to the InfiniBand transport headers. */

#include <stdint.h>

#include <rte_bitops.h>

#include "cap_pcap.h"

#define CAP_ROCE_PORT 4791
#define CAP_ETH_ROCEV1 0x8915

/* BTH opcode low 5 bits (IBA 9.2, the same within RC/UC/RD/UD). */
enum cap_op {
	CAP_OP_SEND_FIRST = 0x00,
	CAP_OP_SEND_MIDDLE = 0x01,
	CAP_OP_SEND_LAST = 0x02,
	CAP_OP_SEND_LAST_IMM = 0x03,
	CAP_OP_SEND_ONLY = 0x04,
	CAP_OP_SEND_ONLY_IMM = 0x05,
	CAP_OP_WRITE_FIRST = 0x06,
	CAP_OP_WRITE_MIDDLE = 0x07,
	CAP_OP_WRITE_LAST = 0x08,
	CAP_OP_WRITE_LAST_IMM = 0x09,
	CAP_OP_WRITE_ONLY = 0x0A,
	CAP_OP_WRITE_ONLY_IMM = 0x0B,
	CAP_OP_READ_REQ = 0x0C,
	CAP_OP_READ_RESP_FIRST = 0x0D,
	CAP_OP_READ_RESP_MIDDLE = 0x0E,
	CAP_OP_READ_RESP_LAST = 0x0F,
	CAP_OP_READ_RESP_ONLY = 0x10,
	CAP_OP_ACK = 0x11,
	CAP_OP_ATOMIC_ACK = 0x12,
	CAP_OP_CMP_SWAP = 0x13,
	CAP_OP_FETCH_ADD = 0x14,
	CAP_OP_SEND_LAST_INV = 0x16,
	CAP_OP_SEND_ONLY_INV = 0x17,
};

/* BTH opcode high 3 bits. */
enum cap_transport {
	CAP_TR_RC = 0,
	CAP_TR_UC = 1,
	CAP_TR_RD = 2,
	CAP_TR_UD = 3,
	CAP_TR_CNP = 4,
	CAP_TR_XRC = 5,
	CAP_TR_VENDOR = 7,
};

#define CAP_OPCODE_CNP 0x81

/* Packet position inside its message. */
#define CAP_POS_FIRST RTE_BIT32(0)
#define CAP_POS_LAST  RTE_BIT32(1)

enum cap_frame_kind {
	CAP_FRAME_OTHER,        /* not RoCE: ignored */
	CAP_FRAME_ROCE,         /* decoded */
	CAP_FRAME_MALFORMED,    /* RoCE by its ports/EtherType, but broken */
};

enum cap_icrc_state {
	CAP_ICRC_OK,
	CAP_ICRC_BAD,
	CAP_ICRC_UNCHECKED,     /* the capture cut the frame short */
};

struct cap_pkt {
	enum cap_frame_kind kind;
	uint8_t version;        /* 1 = RoCEv1 (GRH), 2 = RoCEv2 (UDP) */
	uint8_t ipv4;           /* addresses are IPv4 (stored mapped) */
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport;
	enum cap_icrc_state icrc;
	uint32_t icrc_wire;     /* as carried, LSB first */
	uint32_t icrc_calc;
	/* BTH */
	uint8_t opcode;
	uint8_t se, mig, padcnt, tver, ackreq;
	uint16_t pkey;
	uint32_t dqpn;
	uint32_t psn;
	/* Extension headers that were present. */
	uint8_t has_reth, has_aeth, has_deth, has_imm, has_ieth, has_atomic;
	uint8_t has_atomic_ack;
	uint8_t known_op;       /* the opcode is in the IBA table */
	uint64_t reth_va;
	uint32_t reth_rkey;
	uint32_t reth_len;
	uint8_t aeth_syndrome;
	uint32_t aeth_msn;
	uint32_t deth_qkey;
	uint32_t deth_srcqp;
	uint32_t payload_len;   /* without pad */
	uint32_t wire_len;      /* the frame's original length */
	char why[96];           /* CAP_FRAME_MALFORMED: the reason */
};

/* Decode a captured frame. Never reads beyond fr->caplen. */
void cap_decode(const struct cap_frame *fr, struct cap_pkt *pkt);

/* Opcode helpers. */
const char *cap_opcode_name(uint8_t opcode);
static inline unsigned int cap_op_transport(uint8_t opcode) { return opcode >> 5; }
static inline unsigned int cap_op_code(uint8_t opcode) { return opcode & 0x1F; }
/* CAP_POS_* bits of a request or READ response opcode. */
unsigned int cap_op_position(uint8_t opcode);
/* Request (sent by a requester) rather than a response or CNP. */
int cap_op_is_request(uint8_t opcode);
/* Address as text (IPv4 dotted or IPv6); returns @p buf. */
char *cap_addr_str(const uint8_t addr[16], int ipv4, char *buf, size_t len);

#endif /* CAP_DECODE_H */
