/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef CM_MAD_H
#define CM_MAD_H

/*
 * CM MADs as they travel on QP1: the 24-byte MAD common header and the
 * 232-byte bodies of the IB CM messages (IBTA Vol 1 chapter 12), decoded
 * into host-order structures and encoded back bit for bit. Also the
 * librdmacm addressing header carried at the start of REQ and SIDR_REQ
 * private data. No state, no allocation: the fuzzers and the unit tests
 * build this file on its own.
 */

#include <stddef.h>
#include <stdint.h>

#define CM_MAD_SIZE            256
#define CM_MAD_HDR_SIZE        24
#define CM_MAD_BODY_SIZE       (CM_MAD_SIZE - CM_MAD_HDR_SIZE)

#define CM_MAD_BASE_VERSION    1
#define CM_MAD_MGMT_CLASS      0x07
#define CM_MAD_CLASS_VERSION   2
#define CM_MAD_METHOD_SEND     0x03

enum cm_attr_id {
	CM_ATTR_REQ = 0x0010,
	CM_ATTR_MRA = 0x0011,
	CM_ATTR_REJ = 0x0012,
	CM_ATTR_REP = 0x0013,
	CM_ATTR_RTU = 0x0014,
	CM_ATTR_DREQ = 0x0015,
	CM_ATTR_DREP = 0x0016,
	CM_ATTR_SIDR_REQ = 0x0017,
	CM_ATTR_SIDR_REP = 0x0018,
};

/* Private-data sizes: 232 bytes less each message's fixed part. */
#define CM_REQ_PDATA       92
#define CM_MRA_PDATA       222
#define CM_REJ_PDATA       148
#define CM_REP_PDATA       196
#define CM_RTU_PDATA       224
#define CM_DREQ_PDATA      220
#define CM_DREP_PDATA      224
#define CM_SIDR_REQ_PDATA  216
#define CM_SIDR_REP_PDATA  136
#define CM_REJ_ARI_LEN     72
#define CM_SIDR_INFO_LEN   72

/* Message MRAed / REJected field values. */
#define CM_MSG_REQ   0
#define CM_MSG_REP   1
#define CM_MSG_OTHER 2

/* Transport service types of the REQ. */
#define CM_TRANSPORT_RC 0
#define CM_TRANSPORT_UC 1

/* SIDR_REP status. */
#define CM_SIDR_SUCCESS      0
#define CM_SIDR_UNSUPPORTED  1   /* no listener on the service ID */
#define CM_SIDR_REJECT       2
#define CM_SIDR_NO_QP        3

struct cm_mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;             /* with the R bit (0x80) */
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;
	uint16_t attr_id;
	uint16_t reserved;
	uint32_t attr_mod;
};

struct cm_path {
	uint16_t local_lid;
	uint16_t remote_lid;
	uint8_t local_gid[16];
	uint8_t remote_gid[16];
	uint32_t flow_label;        /* 20 bits */
	uint8_t packet_rate;        /* 6 bits */
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;                 /* 4 bits */
	uint8_t subnet_local;
	uint8_t local_ack_timeout;  /* 5 bits */
};

struct cm_req {
	uint32_t local_comm_id;
	uint32_t ece_vendor_id;     /* 24 bits */
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn;         /* 24 bits */
	uint8_t responder_resources;
	uint32_t local_eecn;
	uint8_t initiator_depth;
	uint32_t remote_eecn;
	uint8_t remote_cm_response_timeout;
	uint8_t transport_type;     /* 2 bits */
	uint8_t e2e_flow_control;
	uint32_t starting_psn;      /* 24 bits */
	uint8_t local_cm_response_timeout;
	uint8_t retry_count;        /* 3 bits */
	uint16_t pkey;
	uint8_t path_mtu;           /* 4 bits */
	uint8_t rdc_exists;
	uint8_t rnr_retry_count;    /* 3 bits */
	uint8_t max_cm_retries;     /* 4 bits */
	uint8_t srq;
	uint8_t ext_transport_type; /* 3 bits */
	struct cm_path primary;
	struct cm_path alternate;
	uint8_t private_data[CM_REQ_PDATA];
};

struct cm_mra {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_mraed;          /* CM_MSG_* */
	uint8_t service_timeout;    /* 5 bits */
	uint8_t private_data[CM_MRA_PDATA];
};

struct cm_rej {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_rejected;       /* CM_MSG_* */
	uint8_t ari_length;         /* 7 bits, <= 72 */
	uint16_t reason;
	uint8_t ari[CM_REJ_ARI_LEN];
	uint8_t private_data[CM_REJ_PDATA];
};

struct cm_rep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;         /* 24 bits */
	uint32_t local_eecn;        /* 24 bits */
	uint32_t starting_psn;      /* 24 bits */
	uint32_t ece_vendor_id;     /* 24 bits, spread over three bytes */
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t target_ack_delay;   /* 5 bits */
	uint8_t failover_accepted;  /* 2 bits */
	uint8_t e2e_flow_control;
	uint8_t rnr_retry_count;    /* 3 bits */
	uint8_t srq;
	uint64_t local_ca_guid;
	uint8_t private_data[CM_REP_PDATA];
};

/* RTU and DREP: the same shape. */
struct cm_rtu {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t private_data[CM_RTU_PDATA];
};

struct cm_dreq {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t remote_qpn;        /* 24 bits */
	uint8_t private_data[CM_DREQ_PDATA];
};

struct cm_sidr_req {
	uint32_t request_id;
	uint16_t pkey;
	uint64_t service_id;
	uint8_t private_data[CM_SIDR_REQ_PDATA];
};

struct cm_sidr_rep {
	uint32_t request_id;
	uint8_t status;
	uint8_t info_length;
	uint16_t ece_vendor_hi;
	uint32_t qpn;               /* 24 bits */
	uint8_t ece_vendor_lo;
	uint64_t service_id;
	uint32_t qkey;
	uint8_t info[CM_SIDR_INFO_LEN];
	uint8_t private_data[CM_SIDR_REP_PDATA];
};

struct cm_msg {
	struct cm_mad_hdr hdr;
	union {
		struct cm_req req;
		struct cm_mra mra;
		struct cm_rej rej;
		struct cm_rep rep;
		struct cm_rtu rtu;
		struct cm_rtu drep;
		struct cm_dreq dreq;
		struct cm_sidr_req sidr_req;
		struct cm_sidr_rep sidr_rep;
	};
};

/*
 * Decode a received MAD. Returns 0, or a negative errno naming what is
 * wrong: -EMSGSIZE shorter than a MAD, -EPROTONOSUPPORT base or class
 * version, -EPROTO not the CM class, -EOPNOTSUPP not a Send, -ENOMSG an
 * attribute the CM does not handle, -EBADMSG a field out of range.
 */
int cm_mad_decode(const uint8_t *buf, size_t len, struct cm_msg *msg);

/* Encode @msg (hdr.attr_id selects the body) into CM_MAD_SIZE bytes. */
int cm_mad_encode(const struct cm_msg *msg, uint8_t buf[CM_MAD_SIZE]);

/* Fill a CM header: base/class/class version, Send, @attr_id and @tid. */
void cm_mad_hdr_init(struct cm_mad_hdr *hdr, uint16_t attr_id, uint64_t tid);

/* Name of a CM attribute ("REQ", ...), "?" if unknown. */
const char *cm_attr_str(uint16_t attr_id);

/* ---- the librdmacm addressing header (36 bytes) ------------------------ */

#define CM_CMA_HDR_SIZE    36
#define CM_CMA_VERSION     0x00

struct cm_cma_hdr {
	uint8_t version;            /* must be CM_CMA_VERSION */
	uint8_t ip_version;         /* 4 or 6 */
	uint16_t src_port;          /* host order */
	uint8_t src_ip[16];         /* IPv4: 12 zero bytes, then the address */
	uint8_t dst_ip[16];
};

void cm_cma_hdr_encode(const struct cm_cma_hdr *h, uint8_t buf[CM_CMA_HDR_SIZE]);
/* Returns 0, or -EBADMSG for a version or IP version librdmacm refuses. */
int cm_cma_hdr_decode(const uint8_t buf[CM_CMA_HDR_SIZE], struct cm_cma_hdr *h);

/* Transaction ID as Linux forms it: agent half << 32 | the comm ID's bytes
 * read little-endian (what an x86 peer produces). */
uint64_t cm_tid_make(uint32_t hi, uint32_t comm_id);

#endif /* CM_MAD_H */
