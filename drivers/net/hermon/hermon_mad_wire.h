/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_MAD_WIRE_H
#define HERMON_MAD_WIRE_H

/*
 * MAD_IFC (0x024) and the subnet management packets it carries, shared by
 * the PMD and the model's embedded SMA. The input mailbox holds one 256-byte
 * MAD, the output mailbox gets the response MAD; in_mod = the port (bits
 * 31:16 the source LID when the extended info of op_mod bit 2 follows at
 * byte 256); op_mod bit 0 = ignore the M_Key, bit 1 = ignore the B_Key
 * (Linux mlx4_MAD_IFC, mlx4_get_port_ib_caps: op_mod 3 without a received
 * work completion; iPXE hermon_mad: op_mod 3). A MAD the SMA discards
 * (wrong base version, a class it does not serve, an M_Key mismatch) fails
 * the command with status 0x30 (bad management packet).
 *
 * The SMP layout is IBA 14.2.1.1 (LID routed, class 0x01) and 14.2.1.2
 * (directed route, class 0x81); attributes IBA 14.2.5.
 */

#include <stdint.h>

#define HERMON_MAD_SIZE          256
#define HERMON_MAD_IFC_IGNORE_MKEY 0x1
#define HERMON_MAD_IFC_IGNORE_BKEY 0x2
#define HERMON_MAD_IFC_IGNORE_KEYS 0x3
#define HERMON_MAD_IFC_EXT_INFO    0x4     /* a received MAD: info at 256 */

/*
 * The extended info of a received MAD (op_mod bit 2), bytes 256-511 of the
 * input mailbox; the SLID goes in in_mod bits 31:16 (Linux mlx4_MAD_IFC
 * with in_wc). Offsets from byte 256.
 */
#define HERMON_MAD_IFC_MBOX_EXT  512    /* the input mailbox with it */
#define HERMON_MAD_EXT_MY_QPN    0      /* be32: the QP it came in on (0/1) */
#define HERMON_MAD_EXT_RQPN      8      /* be32: the sender's QP */
#define HERMON_MAD_EXT_SL        12     /* 7:4 the SL */
#define HERMON_MAD_EXT_G_PATH    13     /* 7 GRH present, 6:0 DLID path bits */
#define HERMON_MAD_EXT_PKEY      18     /* be16: the P_Key index */
#define HERMON_MAD_EXT_GRH       64     /* 40 bytes: the GRH, if any */

/* The common MAD header (IBA 13.4.2) and the SMP fields. */
#define HERMON_MAD_BASE_VERSION  0      /* 1 */
#define HERMON_MAD_MGMT_CLASS    1
#define HERMON_MAD_CLASS_VERSION 2      /* 1 */
#define HERMON_MAD_METHOD        3
#define HERMON_MAD_STATUS        4      /* be16; DR SMP: bit 15 = D */
#define HERMON_MAD_HOP_PTR       6      /* DR SMP */
#define HERMON_MAD_HOP_CNT       7      /* DR SMP */
#define HERMON_MAD_TID           8      /* be64 */
#define HERMON_MAD_ATTR_ID       16     /* be16 */
#define HERMON_MAD_ATTR_MOD      20     /* be32 */
#define HERMON_SMP_MKEY          24     /* be64 */
#define HERMON_SMP_DR_SLID       32     /* be16 */
#define HERMON_SMP_DR_DLID       34     /* be16 */
#define HERMON_SMP_DATA          64
#define HERMON_SMP_DATA_LEN      64
#define HERMON_SMP_INIT_PATH     128    /* DR SMP: 64 bytes */
#define HERMON_SMP_RET_PATH      192    /* DR SMP: 64 bytes */

#define HERMON_MGMT_CLASS_SUBN_LID 0x01
#define HERMON_MGMT_CLASS_SUBN_DR  0x81
#define HERMON_MGMT_CLASS_PERF     0x04

#define HERMON_MAD_METHOD_GET      0x01
#define HERMON_MAD_METHOD_SET      0x02
#define HERMON_MAD_METHOD_TRAP     0x05
#define HERMON_MAD_METHOD_TRAP_REPRESS 0x07
#define HERMON_MAD_METHOD_GET_RESP 0x81

/* MAD status (IBA 13.4.7): bits 4:2 the invalid-field code. */
#define HERMON_MAD_STATUS_BAD_VERSION 0x0004
#define HERMON_MAD_STATUS_BAD_METHOD  0x0008
#define HERMON_MAD_STATUS_BAD_ATTR    0x000c  /* method/attribute combination */
#define HERMON_MAD_STATUS_BAD_VALUE   0x001c  /* attribute or modifier value */
#define HERMON_MAD_STATUS_D           0x8000  /* DR SMP direction bit */

#define HERMON_SMP_ATTR_NOTICE     0x0002
#define HERMON_SMP_ATTR_NODE_DESC  0x0010
#define HERMON_SMP_ATTR_NODE_INFO  0x0011
#define HERMON_SMP_ATTR_GUID_INFO  0x0014
#define HERMON_SMP_ATTR_PORT_INFO  0x0015
#define HERMON_SMP_ATTR_PKEY_TABLE 0x0016
#define HERMON_SMP_ATTR_SM_INFO    0x0020

/* Notice (IBA 14.2.5.1 / 13.4.8.2) of a generic trap, offsets into the
 * SMP data; trap 256 (Bad M_Key) details from byte 10. */
#define HERMON_NOTICE_GENERIC_TYPE 0    /* 7 IsGeneric, 6:0 type */
#define HERMON_NOTICE_PRODUCER     1    /* 24 bits: 1 = channel adapter */
#define HERMON_NOTICE_TRAP_NUM     4    /* be16 */
#define HERMON_NOTICE_ISSUER_LID   6    /* be16 */
#define HERMON_NOTICE_LIDADDR      10   /* be16: trap 256, the requester */
#define HERMON_NOTICE_DRSLID       12   /* be16 */
#define HERMON_NOTICE_METHOD       14
#define HERMON_NOTICE_ATTR_ID      16   /* be16 */
#define HERMON_NOTICE_ATTR_MOD     18   /* be32 */
#define HERMON_NOTICE_MKEY         22   /* be64 */
#define HERMON_NOTICE_TYPE_SECURITY 2
#define HERMON_TRAP_BAD_MKEY       256

/* NodeInfo (IBA 14.2.5.3), offsets into the SMP data. */
#define HERMON_NI_BASE_VERSION   0
#define HERMON_NI_CLASS_VERSION  1
#define HERMON_NI_NODE_TYPE      2      /* 1: channel adapter */
#define HERMON_NI_NUM_PORTS      3
#define HERMON_NI_SYS_IMAGE_GUID 4
#define HERMON_NI_NODE_GUID      12
#define HERMON_NI_PORT_GUID      20
#define HERMON_NI_PARTITION_CAP  28
#define HERMON_NI_DEVICE_ID      30
#define HERMON_NI_REVISION       32
#define HERMON_NI_LOCAL_PORT     36
#define HERMON_NI_VENDOR_ID      37     /* 24 bits */

/* PortInfo (IBA 14.2.5.6), offsets into the SMP data (Linux mlx4_ib
 * ib_link_query_port reads the same ones). */
#define HERMON_PI_MKEY           0      /* be64 */
#define HERMON_PI_GID_PREFIX     8      /* be64 */
#define HERMON_PI_LID            16     /* be16 */
#define HERMON_PI_SM_LID         18     /* be16 */
#define HERMON_PI_CAP_MASK       20     /* be32 */
#define HERMON_PI_LOCAL_PORT     28
#define HERMON_PI_WIDTH_ENABLED  29
#define HERMON_PI_WIDTH_SUPPORTED 30
#define HERMON_PI_WIDTH_ACTIVE   31
#define HERMON_PI_SPEED_STATE    32     /* 7:4 speed supported, 3:0 state */
#define HERMON_PI_PHYS_STATE     33     /* 7:4 physical state */
#define HERMON_PI_LMC            34     /* 2:0 */
#define HERMON_PI_SPEED_ACTIVE   35     /* 7:4 active, 3:0 enabled */
#define HERMON_PI_MTU_SMSL       36     /* 7:4 neighbour MTU, 3:0 SM SL */
#define HERMON_PI_VL_CAP         37     /* 7:4 */
#define HERMON_PI_MTU_CAP        41     /* 3:0 */
#define HERMON_PI_OPER_VLS       43     /* 7:4 */
#define HERMON_PI_MKEY_VIOL      44     /* be16 M_KeyViolations */
#define HERMON_PI_PKEY_VIOL      46     /* be16 */
#define HERMON_PI_QKEY_VIOL      48     /* be16 */
#define HERMON_PI_GUID_CAP       50
#define HERMON_PI_CLIENT_REREG   51     /* 7 ClientReregister */

/* PortInfo PortState (IBA 14.2.5.6): 0 on a SubnSet = no change. */
#define HERMON_IB_PORT_NOP    0
#define HERMON_IB_PORT_DOWN   1
#define HERMON_IB_PORT_INIT   2
#define HERMON_IB_PORT_ARMED  3
#define HERMON_IB_PORT_ACTIVE 4
#define HERMON_IB_PHYS_DISABLED 3
#define HERMON_IB_PHYS_LINKUP   5

#define HERMON_GUIDS_PER_BLOCK 8
#define HERMON_PKEYS_PER_BLOCK 32

static inline uint16_t
hermon_mad_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
hermon_mad_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t
hermon_mad_get64(const uint8_t *p)
{
	return (uint64_t)hermon_mad_get32(p) << 32 | hermon_mad_get32(p + 4);
}

static inline void
hermon_mad_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
hermon_mad_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void
hermon_mad_put64(uint8_t *p, uint64_t v)
{
	hermon_mad_put32(p, (uint32_t)(v >> 32));
	hermon_mad_put32(p + 4, (uint32_t)v);
}

#endif /* HERMON_MAD_WIRE_H */
