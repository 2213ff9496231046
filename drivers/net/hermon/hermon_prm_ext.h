/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_PRM_EXT_H
#define HERMON_PRM_EXT_H

/*
 * Structures the data path and port commands need that the reference
 * layout file does not list (hermon_prm_structs.h holds exactly that file's
 * set, so these live apart). Layouts follow the Linux mlx4 byte views
 * quoted in hermon-prm-facts.md §6.2 (bind segment) and the QUERY_PORT /
 * SET_PORT(GID table) mailboxes.
 */

#include <stdbool.h>

#include "hermon_prm.h"

/* BIND_MW send segment (32 B). */
#define HERMON_PRM_WQE_SEGMENT_BIND(F, N) \
	F(reserved0, 0x1d) \
	F(rr, 0x01) \
	F(rw, 0x01) \
	F(a, 0x01) \
	F(reserved1, 0x1e) \
	F(zb, 0x01) \
	F(type2, 0x01) \
	F(new_rkey, 0x20) \
	F(lkey, 0x20) \
	F(addr_h, 0x20) \
	F(addr_l, 0x20) \
	F(length_h, 0x20) \
	F(length_l, 0x20)
HERMON_PRM_DECLARE(wqe_segment_bind, HERMON_PRM_WQE_SEGMENT_BIND, 0x20)

/*
 * The path's link type (Linux mlx4_qp_path.ackto bits 2:0, 1 = Ethernet;
 * hermon-prm-facts.md §5 "bits 2:0 used for RoCE") lies in the top three
 * bits of the iPXE PRM's 4-bit reserved3 (bits 26:24 of path dword 2,
 * byte 0x08 of the path), which iPXE never names.
 */
#define HERMON_PATH_LINK_TYPE_IB  0
#define HERMON_PATH_LINK_TYPE_ETH 1

static inline void
hermon_path_set_link_type(struct hermon_prm_address_path *p, uint32_t type)
{
	uint32_t r = HERMON_GET(p, address_path, reserved3);

	HERMON_FILL(p, address_path, reserved3, (r & 1) | ((type & 7) << 1));
}

static inline uint32_t
hermon_path_link_type(const struct hermon_prm_address_path *p)
{
	return HERMON_GET(p, address_path, reserved3) >> 1;
}

/*
 * QUERY_PORT output mailbox (the part the PMD reads), as Linux
 * mlx4_QUERY_PORT reads it: byte 0 = link state (bit 7), default sense
 * (bit 4), suggested type (bit 3, 1 = Ethernet), supported types (bits 1:0,
 * bit 0 IB, bit 1 Ethernet); byte 1 bits 3:0 = IB MTU; bytes 2-3 =
 * Ethernet MTU; byte 6 bits 3:0 = width; the MAC in the low 48 bits of the
 * qword at 0x10. iPXE hermonprm_query_port_cap agrees on link_state (bit 31)
 * and the ib/eth bits (24/25).
 */
#define HERMON_PRM_QUERY_PORT(F, N) \
	F(eth_mtu, 0x10) \
	F(ib_mtu, 0x04) \
	F(reserved0, 0x04) \
	F(ib, 0x01) \
	F(eth, 0x01) \
	F(reserved1, 0x01) \
	F(suggested_type, 0x01) \
	F(default_sense, 0x01) \
	F(reserved5, 0x02) \
	F(link_up, 0x01) \
	F(max_gid_pkey, 0x08) \
	F(width, 0x08) \
	F(reserved6, 0x10) \
	F(reserved2, 0x40) \
	F(mac_47_32, 0x10) \
	F(reserved3, 0x10) \
	F(mac_31_0, 0x20) \
	F(reserved4, 0x740)
HERMON_PRM_DECLARE(query_port, HERMON_PRM_QUERY_PORT, 0x100)

/* One GID of the SET_PORT GID-table mailbox (selector 5). */
#define HERMON_PRM_GID_ENTRY(F, N) \
	F(gid_127_96, 0x20) \
	F(gid_95_64, 0x20) \
	F(gid_63_32, 0x20) \
	F(gid_31_0, 0x20)
HERMON_PRM_DECLARE(gid_entry, HERMON_PRM_GID_ENTRY, 0x10)

#define HERMON_GID_TABLE_LEN 128
/*
 * MOD_STAT_CFG input mailbox (the part Linux mlx4_MOD_STAT_CFG fills):
 * byte 2 = page-size modify flag, byte 3 = log2 page size - 12.
 */
#define HERMON_PRM_MOD_STAT_CFG(F, N) \
	F(log_pg_sz, 0x08) \
	F(log_pg_sz_m, 0x08) \
	F(reserved0, 0x10) \
	F(reserved1, 0x7e0)
HERMON_PRM_DECLARE(mod_stat_cfg, HERMON_PRM_MOD_STAT_CFG, 0x100)

/*
 * F5, "SYS_EQS" firmware (ConnectX-3 Pro), byte offsets Linux mlx4 uses
 * (fw.c); the iPXE-derived structures have these bytes reserved.
 * QUERY_DEV_CAP: num_sys_eqs, be16 low 12 bits at 0x26. INIT_HCA:
 * num_sys_eqs be16 at 0x8a, with log_num_eqs 0x1f. QUERY_FUNC output:
 * rsvd_eqs be16 at 0x04, max_eq be16 at 0x06, rsvd_uars low 4 bits of
 * byte 0x0b.
 */
#define HERMON_DEV_CAP_NUM_SYS_EQS   0x26
#define HERMON_INIT_HCA_NUM_SYS_EQS  0x8a
#define HERMON_INIT_HCA_SYS_LOG_EQS  0x1f
#define HERMON_FUNC_RSVD_EQS         0x04
#define HERMON_FUNC_MAX_EQ           0x06
#define HERMON_FUNC_RSVD_UARS        0x0b
#define HERMON_FUNC_MBOX_SIZE        0x100

static inline uint16_t
hermon_mbox_be16(const void *mbox, size_t off)
{
	const uint8_t *b = (const uint8_t *)mbox + off;

	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline void
hermon_mbox_put_be16(void *mbox, size_t off, uint16_t v)
{
	uint8_t *b = (uint8_t *)mbox + off;

	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

#define HERMON_VSD_BOARD_ID       0xd0    /* QUERY_ADAPTER VSD: the board id */
#define HERMON_VSD_BOARD_ID_LEN   16
#define HERMON_SET_PORT_GID_TABLE 5
#define HERMON_SET_PORT_GENERAL   0
#define HERMON_SET_PORT_MAC_TABLE 2
#define HERMON_SET_PORT_RQP_CALC  1   /* Linux MLX4_SET_PORT_RQP_CALC (A0 steering) */
#define HERMON_MAC_TABLE_LEN      128
#define HERMON_PORT_SMAC_INDEX    0       /* the port MAC's MAC-table entry */

/*
 * SET_PORT(Ethernet, general) mailbox: iPXE hermon.h
 * set_port_general_context; Linux mlx4_set_port_general_context (flags
 * byte 3, mtu bytes 6-7, pptx byte 8 bit 7, pprx byte 12 bit 7).
 */
#define HERMON_PRM_SET_PORT_GENERAL(F, N) \
	F(v_mtu, 0x01) \
	F(v_pprx, 0x01) \
	F(v_pptx, 0x01) \
	F(reserved0, 0x1d) \
	F(mtu, 0x10) \
	F(reserved1, 0x10) \
	F(reserved2, 0x10) \
	F(pfctx, 0x08) \
	F(reserved3, 0x07) \
	F(pptx, 0x01) \
	F(reserved4, 0x10) \
	F(pfcrx, 0x08) \
	F(reserved5, 0x07) \
	F(pprx, 0x01)
HERMON_PRM_DECLARE(set_port_general, HERMON_PRM_SET_PORT_GENERAL, 0x10)

/*
 * SET_PORT(IB) mailbox (op_mod 0, in_mod = port): Linux mlx4_SET_PORT
 * (dword 0: vl_cap bits 7:4, mtu_cap bits 15:12, change-pkey/VL/MTU flags
 * bits 20-22; dword 1: the capability mask), iPXE set_port_ib. Linux
 * clears 256 bytes.
 */
#define HERMON_PRM_SET_PORT_IB(F, N) \
	F(reserved0, 0x04) \
	F(vl_cap, 0x04) \
	F(reserved1, 0x04) \
	F(mtu_cap, 0x04) \
	F(reserved2, 0x04) \
	F(c_pkey_tbl_sz, 0x01) \
	F(c_vl_cap, 0x01) \
	F(c_mtu_cap, 0x01) \
	F(reserved3, 0x09) \
	F(cap_mask, 0x20) \
	F(reserved4, 0x7c0)
HERMON_PRM_DECLARE(set_port_ib, HERMON_PRM_SET_PORT_IB, 0x100)
#define HERMON_IB_MTU_4096 5      /* IB MTU code: Linux IB_MTU_4096 */
#define HERMON_IB_VL_CAP_MAX 8    /* data VLs Linux asks for first */

/*
 * One entry of the SET_PORT(Ethernet, MAC table) mailbox: iPXE
 * set_port_mac_table; Linux: a big-endian qword, bit 63 valid, MAC in the
 * low 48 bits (MLX4_MAC_VALID).
 */
#define HERMON_PRM_MAC_ENTRY(F, N) \
	F(mac_h, 0x10) \
	F(reserved0, 0x0f) \
	F(v, 0x01) \
	F(mac_l, 0x20)
HERMON_PRM_DECLARE(mac_entry, HERMON_PRM_MAC_ENTRY, 0x08)

struct hermon_mac_table_mbox {
	struct hermon_prm_mac_entry mac[HERMON_MAC_TABLE_LEN];
};

/* The Ethernet frame the port carries for a 1500-byte MTU: + header, VLAN
 * tag and FCS (Linux mlx4_en: MTU + ETH_HLEN + VLAN_HLEN + ETH_FCS_LEN). */
#define HERMON_ETH_PORT_MTU (1500 + 14 + 4 + 4)

/* SET_PORT(GID table) mailbox: the whole table of a port. */
struct hermon_gid_table_mbox {
	struct hermon_prm_gid_entry gid[HERMON_GID_TABLE_LEN];
};

/* Send WQE opcodes (ctrl owner_opcode bits 4:0), hermon-prm-facts.md §7. */
enum hermon_wqe_opcode {
	HERMON_WQE_NOP              = 0x00,
	HERMON_WQE_SEND_INVAL       = 0x01,
	HERMON_WQE_RDMA_WRITE       = 0x08,
	HERMON_WQE_RDMA_WRITE_IMM   = 0x09,
	HERMON_WQE_SEND             = 0x0a,
	HERMON_WQE_SEND_IMM         = 0x0b,
	HERMON_WQE_RDMA_READ        = 0x10,
	HERMON_WQE_ATOMIC_CS        = 0x11,
	HERMON_WQE_ATOMIC_FA        = 0x12,
	HERMON_WQE_BIND_MW          = 0x18,
	HERMON_WQE_LOCAL_INVAL      = 0x1b,
};

/* Responder CQE opcodes (S_R = 0) and the special ones, §6.8. */
#define HERMON_CQE_RECV_WRITE_IMM   0x00
#define HERMON_CQE_RECV_SEND        0x01
#define HERMON_CQE_RECV_SEND_IMM    0x02
#define HERMON_CQE_RECV_SEND_INV    0x03
#define HERMON_CQE_RESIZE           0x16
#define HERMON_CQE_ERROR            0x1e

/* Error CQE syndromes, §6.9. */
#define HERMON_SYND_LOC_LEN         0x01
#define HERMON_SYND_LOC_QP_OP       0x02
#define HERMON_SYND_LOC_PROT        0x04
#define HERMON_SYND_FLUSH           0x05
#define HERMON_SYND_MW_BIND         0x06
#define HERMON_SYND_BAD_RESP        0x10
#define HERMON_SYND_LOC_ACCESS      0x11
#define HERMON_SYND_REM_INV_REQ     0x12
#define HERMON_SYND_REM_ACCESS      0x13
#define HERMON_SYND_REM_OP          0x14
#define HERMON_SYND_RETRY_EXC       0x15
#define HERMON_SYND_RNR_RETRY_EXC   0x16
#define HERMON_SYND_REM_ABORT       0x22

/* QP context states and service types, §5.1. */
#define HERMON_QPS_RST   0
#define HERMON_QPS_INIT  1
#define HERMON_QPS_RTR   2
#define HERMON_QPS_RTS   3
#define HERMON_QPS_SQE   4
#define HERMON_QPS_SQD   5
#define HERMON_QPS_ERR   6
#define HERMON_QPST_RC   0
#define HERMON_QPST_UC   1
#define HERMON_QPST_UD   3
#define HERMON_QPST_MLX  7   /* QP0/QP1: the driver builds the headers */

/* MPT status (dword 0 bits 31:28), §8.2. */
#define HERMON_MPT_HW    0x0
#define HERMON_MPT_FREE  0x3
#define HERMON_MPT_SW    0xf

/* The receive-scatter terminator lkey, §6.2. */
#define HERMON_INVALID_LKEY 0x100

/* CQ arm doorbell commands (§6.10). */
#define HERMON_CQ_DB_REQ_NOT_SOL 1
#define HERMON_CQ_DB_REQ_NOT     2

/* SRQ context states. */
#define HERMON_SRQ_HW    0x0
#define HERMON_SRQ_SW    0xf

/*
 * Where the SQ and the RQ sit in a QP's buffer: the queue with the larger
 * stride first (the SQ on a tie), as the mlx4 drivers lay it out. The PMD
 * and the model share this one rule.
 */
static inline void
hermon_qp_layout(uint32_t log_sq_size, uint32_t log_sq_stride, uint32_t log_rq_size,
		 uint32_t log_rq_stride, uint64_t *sq_off, uint64_t *rq_off)
{
	uint64_t sq_bytes = (uint64_t)16 << (log_sq_stride + log_sq_size);
	uint64_t rq_bytes = (uint64_t)16 << (log_rq_stride + log_rq_size);

	if (log_rq_stride > log_sq_stride) {
		*rq_off = 0;
		*sq_off = rq_bytes;
	} else {
		*sq_off = 0;
		*rq_off = sq_bytes;
	}
}


/*
 * RoCE v2 (ConnectX-3 Pro). QUERY_DEV_CAP reports RoCE v1/v2 in BMME
 * flags bit 19 (dword 0x94; Linux MLX4_BMME_FLAG_ROCE_V1_V2, read by
 * mlx4_QUERY_DEV_CAP into MLX4_DEV_CAP_FLAG2_ROCE_V1_V2): bit 13 of the
 * iPXE PRM's reserved44, which starts at bit 6.
 */
#define HERMON_DEV_CAP_ROCE_V1_V2_BIT 13

static inline bool
hermon_dev_cap_roce_v1_v2(const struct hermon_prm_query_dev_cap *q)
{
	return (HERMON_GET(q, query_dev_cap, reserved44) >>
		HERMON_DEV_CAP_ROCE_V1_V2_BIT) & 1;
}

static inline void
hermon_dev_cap_set_roce_v1_v2(struct hermon_prm_query_dev_cap *q, bool on)
{
	uint32_t r = HERMON_GET(q, query_dev_cap, reserved44);

	r &= ~(1u << HERMON_DEV_CAP_ROCE_V1_V2_BIT);
	HERMON_FILL(q, query_dev_cap, reserved44,
		    r | (uint32_t)on << HERMON_DEV_CAP_ROCE_V1_V2_BIT);
}

/*
 * SET_PORT selector 0xd (Linux MLX4_SET_PORT_ROCE_ADDR, op_mod 1): the
 * typed GID table of a RoCE v1/v2 device, 32 bytes an entry (Linux
 * mlx4_ib_update_gids_v1_v2): the GID, then at byte 26 the type (1 IPv6,
 * 0 IPv4-mapped) and at byte 27 the version (2 RoCE v2, 0 RoCE v1).
 */
#define HERMON_SET_PORT_ROCE_ADDR 0xd
#define HERMON_ROCE_GID_IPV6 1
#define HERMON_ROCE_GID_V2 2

struct hermon_roce_gid_entry {
	uint8_t gid[16];
	uint8_t rsvd1[10];
	uint8_t type;
	uint8_t version;
	uint8_t rsvd2[4];
};

struct hermon_roce_gid_table_mbox {
	struct hermon_roce_gid_entry gid[HERMON_GID_TABLE_LEN];
};

/* RoCE v2 (IBA A17): IP, UDP to port 4791, BTH. */
#define HERMON_ROCE_V2_UDP_DPORT 4791

#endif /* HERMON_PRM_EXT_H */
