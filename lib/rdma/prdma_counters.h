/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PRDMA_COUNTERS_H
#define PRDMA_COUNTERS_H

/**
 * @file
 * prdma counters: per device (NDK's performance counter set and more) and
 * per QP. Included by prdma.h.
 *
 * Counters are indexed by enum; each has a name (the NDK name where NDK
 * defines one) used by telemetry and the tools. A provider that cannot
 * supply a counter sets its bit in missing_mask (NDK's MissingCounterMask);
 * such a counter reads 0.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct prdma_dev;
struct prdma_qp;

/*
 * Device counters: X(enum suffix, name, meaning).
 * Octets include layer-2 overhead (Ethernet header and FCS), as NDK says.
 */
#define PRDMA_DEV_COUNTER_LIST(X) \
	X(CONNECT,           "Connect",          "connections initiated (CM REQ sent)") \
	X(ACCEPT,            "Accept",           "connections accepted (CM REP sent)") \
	X(CONNECT_FAILURE,   "ConnectFailure",   "connection attempts that failed") \
	X(CONNECTION_ERROR,  "ConnectionError",  "established connections that failed") \
	X(ACTIVE_CONNECTION, "ActiveConnection", "connections established now") \
	X(CQ_ERROR,          "CQError",          "CQ error events (overruns)") \
	X(RDMA_IN_OCTETS,    "RDMAInOctets",     "RDMA bytes received, with L2 overhead") \
	X(RDMA_OUT_OCTETS,   "RDMAOutOctets",    "RDMA bytes sent, with L2 overhead") \
	X(RDMA_IN_FRAMES,    "RDMAInFrames",     "RDMA frames received") \
	X(RDMA_OUT_FRAMES,   "RDMAOutFrames",    "RDMA frames sent") \
	X(RETRANSMITS,       "Retransmits",      "packets sent again (timeout or NAK)") \
	X(NAKS_SENT,         "NAKsSent",         "NAKs sent (all kinds, RNR included)") \
	X(NAKS_RECEIVED,     "NAKsReceived",     "NAKs received (all kinds, RNR included)") \
	X(RNR_EVENTS,        "RNREvents",        "RNR NAKs sent or received") \
	X(DUPLICATES,        "Duplicates",       "duplicate requests received") \
	X(OUT_OF_SEQUENCE,   "OutOfSequence",    "out-of-sequence packets dropped") \
	X(ICRC_DROPS,        "ICRCDrops",        "frames dropped for a bad ICRC") \
	X(MALFORMED_DROPS,   "MalformedDrops",   "frames dropped as malformed or unroutable") \
	X(CNP_SENT,          "CNPsSent",         "congestion notifications sent") \
	X(CNP_RECEIVED,      "CNPsReceived",     "congestion notifications received")

#define PRDMA_DEV_CNT_ENUM_(e, n, d) PRDMA_DEV_CNT_##e,
enum prdma_dev_counter {
	PRDMA_DEV_COUNTER_LIST(PRDMA_DEV_CNT_ENUM_)
	PRDMA_DEV_CNT_MAX
};
#undef PRDMA_DEV_CNT_ENUM_

struct prdma_dev_counters {
	uint64_t value[PRDMA_DEV_CNT_MAX];
	/** Bit i set: counter i is not supplied by this device. */
	uint64_t missing_mask;
};

/*
 * QP counters: X(enum suffix, name, meaning).
 */
#define PRDMA_QP_COUNTER_LIST(X) \
	X(TX_PACKETS,      "tx_packets",      "packets sent") \
	X(TX_BYTES,        "tx_bytes",        "payload bytes sent") \
	X(RX_PACKETS,      "rx_packets",      "packets received and accepted") \
	X(RX_BYTES,        "rx_bytes",        "payload bytes received") \
	X(RETRANSMITS,     "retransmits",     "packets sent again") \
	X(NAK_SEQ_SENT,    "nak_seq_sent",    "PSN sequence error NAKs sent") \
	X(NAK_INV_SENT,    "nak_inv_sent",    "invalid request NAKs sent") \
	X(NAK_ACC_SENT,    "nak_access_sent", "remote access error NAKs sent") \
	X(NAK_OP_SENT,     "nak_op_sent",     "remote operational error NAKs sent") \
	X(RNR_NAK_SENT,    "rnr_nak_sent",    "RNR NAKs sent") \
	X(NAK_SEQ_RCVD,    "nak_seq_rcvd",    "PSN sequence error NAKs received") \
	X(NAK_INV_RCVD,    "nak_inv_rcvd",    "invalid request NAKs received") \
	X(NAK_ACC_RCVD,    "nak_access_rcvd", "remote access error NAKs received") \
	X(NAK_OP_RCVD,     "nak_op_rcvd",     "remote operational error NAKs received") \
	X(RNR_NAK_RCVD,    "rnr_nak_rcvd",    "RNR NAKs received") \
	X(TIMEOUTS,        "timeouts",        "local ACK timeouts") \
	X(DUPLICATES,      "duplicates",      "duplicate requests received") \
	X(OUT_OF_SEQUENCE, "out_of_sequence", "out-of-sequence packets dropped") \
	X(ICRC_DROPS,      "icrc_drops",      "packets for this QP dropped for a bad ICRC") \
	X(CNP_SENT,        "cnp_sent",        "congestion notifications sent") \
	X(CNP_RCVD,        "cnp_rcvd",        "congestion notifications received") \
	X(ACCESS_DROPS,    "access_drops",    "UC packets dropped: key bad or revoked mid-message")

#define PRDMA_QP_CNT_ENUM_(e, n, d) PRDMA_QP_CNT_##e,
enum prdma_qp_counter {
	PRDMA_QP_COUNTER_LIST(PRDMA_QP_CNT_ENUM_)
	PRDMA_QP_CNT_MAX
};
#undef PRDMA_QP_CNT_ENUM_

struct prdma_qp_counters {
	uint64_t value[PRDMA_QP_CNT_MAX];
	uint64_t missing_mask;
};

/** Name of a device counter (NDK's name where NDK has one), NULL if invalid. */
const char *prdma_dev_counter_name(enum prdma_dev_counter c);

/** Name of a QP counter, NULL if invalid. */
const char *prdma_qp_counter_name(enum prdma_qp_counter c);

/** Read the device counters (since the last reset). */
int prdma_dev_counters_get(struct prdma_dev *dev, struct prdma_dev_counters *c);

/** Reset the device counters (ActiveConnection is a level and is kept). */
int prdma_dev_counters_reset(struct prdma_dev *dev);

/** Read a QP's counters. */
int prdma_qp_counters_get(struct prdma_qp *qp, struct prdma_qp_counters *c);

/** Reset a QP's counters. */
int prdma_qp_counters_reset(struct prdma_qp *qp);

#ifdef __cplusplus
}
#endif

#endif /* PRDMA_COUNTERS_H */
