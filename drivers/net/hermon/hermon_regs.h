/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_REGS_H
#define HERMON_REGS_H

/* Hermon register map, firmware opcodes, status codes and event types. */

#include <rte_bitops.h>
#include <rte_common.h>

#define HERMON_PCI_VENDOR_MELLANOX 0x15b3

/* BARs: configuration space (with the HCR) and the UAR pages. */
#define HERMON_BAR_CFG            0
#define HERMON_BAR_UAR            2
#define HERMON_BAR_CFG_SIZE       0x100000
#define HERMON_UAR_PAGE_SIZE      4096

/* BAR0 offsets. */
#define HERMON_HCR_OFFSET         0x80680
#define HERMON_HCR_DWORDS         7
#define HERMON_RESET_OFFSET       0xf0010
#define HERMON_RESET_VALUE        1          /* written big-endian */
#define HERMON_SEMAPHORE_OFFSET   0xf03fc

/* HCR dword 6 ("go" word) bits. */
#define HERMON_HCR_GO_DWORD       6
#define HERMON_HCR_GO             RTE_BIT32(23)
#define HERMON_HCR_E              RTE_BIT32(22)
#define HERMON_HCR_T              RTE_BIT32(21)
#define HERMON_HCR_STATUS_SHIFT   24

/* UAR page offsets. */
#define HERMON_UAR_SEND_DB        0x14
#define HERMON_UAR_CQ_DB          0x20
#define HERMON_UAR_EQ_DB(eqn)     (0x800 + 8 * ((eqn) % 4))
#define HERMON_UAR_EQ_DB_PAGE(eqn) ((eqn) / 4)

/* Firmware command opcodes (HCR dword 6 bits 11:0), sorted by value. */
enum hermon_opcode {
	HERMON_CMD_QUERY_DEV_CAP  = 0x003,
	HERMON_CMD_QUERY_FW       = 0x004,
	HERMON_CMD_QUERY_ADAPTER  = 0x006,
	HERMON_CMD_INIT_HCA       = 0x007,
	HERMON_CMD_CLOSE_HCA      = 0x008,
	HERMON_CMD_INIT_PORT      = 0x009,
	HERMON_CMD_CLOSE_PORT     = 0x00a,
	HERMON_CMD_QUERY_HCA      = 0x00b,
	HERMON_CMD_SET_PORT       = 0x00c,
	HERMON_CMD_SW2HW_MPT      = 0x00d,
	HERMON_CMD_QUERY_MPT      = 0x00e,
	HERMON_CMD_HW2SW_MPT      = 0x00f,
	HERMON_CMD_WRITE_MTT      = 0x011,
	HERMON_CMD_MAP_EQ         = 0x012,
	HERMON_CMD_SW2HW_EQ       = 0x013,
	HERMON_CMD_HW2SW_EQ       = 0x014,
	HERMON_CMD_QUERY_EQ       = 0x015,
	HERMON_CMD_SW2HW_CQ       = 0x016,
	HERMON_CMD_HW2SW_CQ       = 0x017,
	HERMON_CMD_QUERY_CQ       = 0x018,
	HERMON_CMD_RST2INIT_QP    = 0x019,
	HERMON_CMD_INIT2RTR_QP    = 0x01a,
	HERMON_CMD_RTR2RTS_QP     = 0x01b,
	HERMON_CMD_RTS2RTS_QP     = 0x01c,
	HERMON_CMD_SQERR2RTS_QP   = 0x01d,
	HERMON_CMD_2ERR_QP        = 0x01e,
	HERMON_CMD_RTS2SQD_QP     = 0x01f,
	HERMON_CMD_SQD2RTS_QP     = 0x020,
	HERMON_CMD_2RST_QP        = 0x021,
	HERMON_CMD_QUERY_QP       = 0x022,
	HERMON_CMD_CONF_SPECIAL_QP = 0x023,
	HERMON_CMD_MAD_IFC        = 0x024,
	HERMON_CMD_READ_MCG       = 0x025,
	HERMON_CMD_WRITE_MCG      = 0x026,
	HERMON_CMD_MGID_HASH      = 0x027,
	HERMON_CMD_MODIFY_CQ      = 0x02c,
	HERMON_CMD_INIT2INIT_QP   = 0x02d,
	HERMON_CMD_NOP            = 0x031,
	HERMON_CMD_MOD_STAT_CFG   = 0x034,
	HERMON_CMD_SW2HW_SRQ      = 0x035,
	HERMON_CMD_HW2SW_SRQ      = 0x036,
	HERMON_CMD_QUERY_SRQ      = 0x037,
	HERMON_CMD_SQD2SQD_QP     = 0x038,
	HERMON_CMD_ARM_SRQ        = 0x040,
	HERMON_CMD_QUERY_PORT     = 0x043,
	HERMON_CMD_SET_MCAST_FLTR = 0x048,
	HERMON_CMD_SENSE_PORT     = 0x04d,
	HERMON_CMD_QUERY_FUNC     = 0x056,
	HERMON_CMD_RUN_FW         = 0xff6,
	HERMON_CMD_UNMAP_ICM      = 0xff9,
	HERMON_CMD_MAP_ICM        = 0xffa,
	HERMON_CMD_UNMAP_ICM_AUX  = 0xffb,
	HERMON_CMD_MAP_ICM_AUX    = 0xffc,
	HERMON_CMD_SET_ICM_SIZE   = 0xffd,
	HERMON_CMD_UNMAP_FA       = 0xffe,
	HERMON_CMD_MAP_FA         = 0xfff,
};

/* The opcode's name (hermon_cmd_names.c), or NULL for an unknown one. */
const char *hermon_cmd_opcode_name(uint16_t opcode);

/* Command status (HCR dword 6 bits 31:24). */
enum hermon_status {
	HERMON_STAT_OK              = 0x00,
	HERMON_STAT_INTERNAL_ERR    = 0x01,
	HERMON_STAT_BAD_OP          = 0x02,
	HERMON_STAT_BAD_PARAM       = 0x03,
	HERMON_STAT_BAD_SYS_STATE   = 0x04,
	HERMON_STAT_BAD_RESOURCE    = 0x05,
	HERMON_STAT_RESOURCE_BUSY   = 0x06,
	HERMON_STAT_EXCEED_LIM      = 0x08,
	HERMON_STAT_BAD_RES_STATE   = 0x09,
	HERMON_STAT_BAD_INDEX       = 0x0a,
	HERMON_STAT_BAD_NVMEM       = 0x0b,
	HERMON_STAT_ICM_ERROR       = 0x0c,
	HERMON_STAT_BAD_QP_STATE    = 0x10,
	HERMON_STAT_BAD_SEG_PARAM   = 0x20,
	HERMON_STAT_REG_BOUND       = 0x21,
	HERMON_STAT_LAM_NOT_PRE     = 0x22,
	HERMON_STAT_BAD_PKT         = 0x30,
	HERMON_STAT_BAD_SIZE        = 0x40,
	HERMON_STAT_MULTI_FUNC_REQ  = 0x50,
};

/* Event types (EQE event_type) and MAP_EQ mask bits. */
enum hermon_event {
	HERMON_EV_COMP              = 0x00,
	HERMON_EV_PATH_MIG          = 0x01,
	HERMON_EV_COMM_EST          = 0x02,
	HERMON_EV_SQ_DRAINED        = 0x03,
	HERMON_EV_CQ_ERROR          = 0x04,
	HERMON_EV_WQ_CATAS          = 0x05,
	HERMON_EV_PATH_MIG_FAILED   = 0x07,
	HERMON_EV_LOCAL_CATAS       = 0x08,
	HERMON_EV_PORT_CHANGE       = 0x09,
	HERMON_EV_CMD               = 0x0a,
	HERMON_EV_WQ_INVAL_REQ      = 0x10,
	HERMON_EV_WQ_ACCESS_ERR     = 0x11,
	HERMON_EV_SRQ_CATAS         = 0x12,
	HERMON_EV_SRQ_LAST_WQE      = 0x13,
	HERMON_EV_SRQ_LIMIT         = 0x14,
};

/* Port state change subtypes. */
#define HERMON_PORT_CHANGE_DOWN   1
#define HERMON_PORT_CHANGE_ACTIVE 4

/* EQ context states. */
#define HERMON_EQ_ST_ARMED        0x9
#define HERMON_EQ_ST_FIRED        0xa
#define HERMON_EQ_ST_ALWAYS_ARMED 0xb

/* SENSE_PORT answers. */
#define HERMON_PORT_TYPE_IB       1
#define HERMON_PORT_TYPE_ETH      2

/* ICM is mapped in 4 KiB pages; MAP_* entries carry log2(size) - 12. */
#define HERMON_ICM_PAGE_SHIFT     12
#define HERMON_ICM_PAGE_SIZE      (1u << HERMON_ICM_PAGE_SHIFT)
#define HERMON_MAILBOX_SIZE       4096
#define HERMON_MAP_ENTRIES_PER_MBOX (HERMON_MAILBOX_SIZE / 16)
#define HERMON_WRITE_MTT_MAX      ((HERMON_MAILBOX_SIZE - 16) / 8)

/* cMPT: four regions (QP, SRQ, CQ, EQ), each spanning 2^24 entries. */
#define HERMON_CMPT_SHIFT         24
#define HERMON_CMPT_TYPES         4

/* INIT_HCA version Hermon firmware expects. */
#define HERMON_INIT_HCA_VERSION   2

#endif /* HERMON_REGS_H */
