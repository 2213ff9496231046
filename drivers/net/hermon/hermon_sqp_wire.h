/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_SQP_WIRE_H
#define HERMON_SQP_WIRE_H

/*
 * The special QPs (QP0/QP1) and the headers of their MLX WQEs, shared by
 * the PMD (which builds the headers, as Linux mlx4_ib build_mlx_header and
 * iPXE hermon_fill_mlx_send_wqe do) and the model (which puts them on its
 * wire and parses them at the receiving port).
 *
 * CONF_SPECIAL_QP takes the base of an 8-aligned block of QPNs: the SMI
 * QPs (QP0) of ports 1 and 2 are base and base+1, the GSI QPs (QP1)
 * base+2 and base+3 (iPXE hermon_start, Linux mlx4_init_qp_table).
 */

#include <stdint.h>

#define HERMON_SQP_BLOCK 8
#define HERMON_SQP_ALIGN 8

static inline uint32_t
hermon_sqp_qpn(uint32_t base, uint8_t port, uint32_t wire_qpn)
{
	return base + (wire_qpn == 1 ? 2u : 0u) + (uint32_t)(port - 1);
}

/* RoCE v1 (IBoE) framing: Ethernet, then the GRH, BTH, DETH (IBA A16). */
#define HERMON_ETHERTYPE_ROCE 0x8915
#define HERMON_ETH_HLEN 14
#define HERMON_GRH_LEN 40
#define HERMON_BTH_LEN 12
#define HERMON_DETH_LEN 8
#define HERMON_GRH_NXT_BTH 0x1b
#define HERMON_BTH_UD_SEND_ONLY 0x64
#define HERMON_DEFAULT_PKEY 0xffff
/* The MLX header of a RoCE v1 datagram: 74 bytes. */
#define HERMON_SQP_ROCE_HLEN \
	(HERMON_ETH_HLEN + HERMON_GRH_LEN + HERMON_BTH_LEN + HERMON_DETH_LEN)

/*
 * RoCE v2 framing (IBA A17, ConnectX-3 Pro; Linux build_mlx_header with a
 * RoCE v2 source GID): Ethernet (EtherType IPv4 or IPv6), an IPv4 header
 * (no options) when the source GID is IPv4-mapped or else an IPv6 header
 * in the GRH's place (next header UDP), UDP to port 4791, BTH, DETH.
 */
#define HERMON_ETHERTYPE_IPV4 0x0800
#define HERMON_ETHERTYPE_IPV6 0x86dd
#define HERMON_IPV4_HLEN 20
#define HERMON_UDP_HLEN 8
#define HERMON_IPPROTO_UDP 17
#define HERMON_ROCE_V2_DPORT 4791
/* Linux MLX4_ROCEV2_QP1_SPORT: the fixed source port of QP1's frames */
#define HERMON_ROCE_V2_QP1_SPORT 0xc000
#define HERMON_SQP_V2_IP4_HLEN (HERMON_ETH_HLEN + HERMON_IPV4_HLEN + HERMON_UDP_HLEN + \
				HERMON_BTH_LEN + HERMON_DETH_LEN)
#define HERMON_SQP_V2_IP6_HLEN (HERMON_ETH_HLEN + HERMON_GRH_LEN + HERMON_UDP_HLEN + \
				HERMON_BTH_LEN + HERMON_DETH_LEN)
/* The longest MLX header the PMD builds (RoCE v2 over IPv6: 82 bytes). */
#define HERMON_SQP_MAX_HLEN HERMON_SQP_V2_IP6_HLEN

/*
 * InfiniBand framing of QP0/QP1 without a GRH: LRH, BTH, DETH (IBA 7.7,
 * 9.2, 9.3). LRH byte 0: VL (7:4), LVer (3:0); byte 1: SL (7:4), LNH
 * (1:0, 2 = IBA local: a BTH follows); DLID; PktLen (10:0, 4-byte words
 * from the LRH through the ICRC); SLID.
 */
#define HERMON_LRH_LEN 8
#define HERMON_LRH_LNH_IBA_LOCAL 2
#define HERMON_LRH_LNH_IBA_GLOBAL 3   /* a GRH, then the BTH */
#define HERMON_LID_PERMISSIVE 0xffff
#define HERMON_VL_SMI 15
#define HERMON_ICRC_LEN 4
#define HERMON_SQP_IB_HLEN (HERMON_LRH_LEN + HERMON_BTH_LEN + HERMON_DETH_LEN)
/* The same with a GRH (QP1 only; 68 bytes, within the RoCE header's 74). */
#define HERMON_SQP_IB_GRH_HLEN (HERMON_SQP_IB_HLEN + HERMON_GRH_LEN)
/*
 * MLX control segment dword 2 on an IB port (Linux MLX4_WQE_MLX_VL15,
 * MLX4_WQE_MLX_SLR, the SL in bits 11:8): VL15 for QP0; SLR = the SLID
 * is the header's (the permissive LID), not the port's LID. Dword 3 bits
 * 31:16: the DLID (mlx->rlid).
 */
#define HERMON_MLX_VL15 (1u << 17)
#define HERMON_MLX_SLR  (1u << 16)

#endif /* HERMON_SQP_WIRE_H */
