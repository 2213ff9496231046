/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef CAP_AUDIT_H
#define CAP_AUDIT_H

/*
 * The audit: per-QP accounting, PSN following, request/response matching
 * and the list of anomalies. A QP is named by the address it receives on
 * and its QPN, the only identity a packet carries (RC packets have no
 * source QPN); requests and the responses that answer them are joined by
 * the address pair.
 */

#include <stddef.h>
#include <stdint.h>

#include "cap_decode.h"

#define CAP_ANOMALY_LIST(X) \
	X(BAD_ICRC,        "bad ICRC") \
	X(MALFORMED,       "malformed RoCE frame") \
	X(UNKNOWN_OPCODE,  "unknown opcode") \
	X(PSN_GAP,         "PSN gap") \
	X(PSN_DUPLICATE,   "PSN duplicate (retransmission)") \
	X(OPCODE_SEQUENCE, "opcode out of sequence") \
	X(UNANSWERED,      "unanswered request at the end") \
	X(INCOMPLETE,      "message not finished at the end") \
	X(NAK_PSN_SEQ,     "NAK: PSN sequence error") \
	X(NAK_INV_REQ,     "NAK: invalid request") \
	X(NAK_REM_ACCESS,  "NAK: remote access error") \
	X(NAK_REM_OP,      "NAK: remote operational error") \
	X(NAK_INV_RD_REQ,  "NAK: invalid RD request") \
	X(NAK_RESERVED,    "NAK: reserved code") \
	X(RNR_NAK,         "RNR NAK") \
	X(UNEXPECTED_RESP, "response matching no request") \
	X(DUP_RESPONSE,    "duplicate response")

#define CAP_ANOM_ENUM_(name, str) CAP_ANOM_##name,
enum cap_anomaly_kind {
	CAP_ANOMALY_LIST(CAP_ANOM_ENUM_)
	CAP_ANOM_MAX
};
#undef CAP_ANOM_ENUM_

struct cap_anomaly {
	uint64_t frame;
	uint64_t seq;           /* order of detection */
	enum cap_anomaly_kind kind;
	int qp;                 /* index in cap_audit.qps, -1 if none */
	char detail[160];
};

/* A QP as seen on the wire: (receiving address, QPN). */
struct cap_qp {
	uint8_t addr[16];
	uint8_t ipv4;
	uint8_t version;        /* RoCE version of its packets */
	uint32_t qpn;
	uint32_t transports;    /* bit per BTH transport seen */
	uint64_t packets;
	uint64_t wire_bytes;    /* frame lengths as on the wire */
	uint64_t payload_bytes;
	uint64_t bad_icrc;
	uint64_t unchecked;     /* cut by the snap length */
	uint64_t opcodes[256];
	int have_psn;
	uint32_t first_psn;
	uint32_t last_psn;
};

/* One message a requester sent and awaits an answer to (RC only). */
struct cap_msg {
	uint64_t frame;
	uint32_t first_psn;
	uint32_t last_psn;
	uint8_t opcode;
	uint8_t done;
};

/* The requests arriving at one QP from one sender. */
struct cap_stream {
	int qp;                 /* the receiving (responder) QP */
	int requester;          /* the QP receiving our responses, -1 until known */
	uint8_t src[16];
	uint32_t src_qpn;       /* UD: DETH source QP; 0 otherwise */
	uint8_t transport;
	int have_epsn;
	uint32_t epsn;          /* next PSN expected from the requester */
	uint32_t first_psn;     /* of the first request seen */
	uint64_t first_frame;
	int gap_open;           /* a gap was reported, no PSN NAK seen since */
	int in_msg;             /* a FIRST was seen, LAST not yet */
	uint32_t msg_first;
	uint64_t msg_frame;
	uint8_t msg_opcode;
	struct cap_msg *msgs;
	size_t nb_msgs;
	size_t head;            /* every message before it is done */
	size_t cap_msgs;
};

struct cap_pmtu {
	uint8_t a[16];
	uint8_t b[16];
	uint32_t pmtu;
};

struct cap_audit {
	uint64_t frames;
	uint64_t roce_frames;
	uint64_t other_frames;
	uint64_t icrc_ok;
	uint64_t icrc_bad;
	uint64_t icrc_unchecked;
	uint64_t malformed;
	uint64_t anomaly_count[CAP_ANOM_MAX];
	struct cap_qp *qps;
	size_t nb_qps, cap_qps;
	struct cap_stream *streams;
	size_t nb_streams, cap_streams;
	struct cap_anomaly *anomalies;
	size_t nb_anomalies, cap_anomalies;
	struct cap_pmtu *pmtus;
	size_t nb_pmtus, cap_pmtus;
	int oom;                /* an allocation failed: results incomplete */
};

/* Signed distance a - b in 24-bit PSN space. */
static inline int32_t
cap_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

void cap_audit_init(struct cap_audit *a);
void cap_audit_free(struct cap_audit *a);

/* First pass: learn each address pair's path MTU from full-size packets. */
void cap_audit_learn(struct cap_audit *a, const struct cap_pkt *pkt);

/* Second pass: account and check one frame. */
void cap_audit_frame(struct cap_audit *a, uint64_t frame, const struct cap_pkt *pkt);

/* After the last frame: report what was never answered. */
void cap_audit_finish(struct cap_audit *a);

const char *cap_anomaly_str(enum cap_anomaly_kind kind);
/* Short machine name ("bad_icrc", ...). */
const char *cap_anomaly_key(enum cap_anomaly_kind kind);

#endif /* CAP_AUDIT_H */
