/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_audit.h"

#define PSN_MASK 0xFFFFFFu
/* Unknown path MTU: assume the largest, which undercounts READ PSNs least. */
#define PMTU_DEFAULT 4096u
/* How far back a response may look for an already answered READ. */
#define DUP_LOOKBACK 256u

#define AETH_ACK   0
#define AETH_RNR   1
#define AETH_NAK   3

#define CAP_ANOM_STR_(name, str) [CAP_ANOM_##name] = str,
static const char *const anomaly_str[CAP_ANOM_MAX] = {
	CAP_ANOMALY_LIST(CAP_ANOM_STR_)
};
#undef CAP_ANOM_STR_

#define CAP_ANOM_KEY_(name, str) [CAP_ANOM_##name] = #name,
static const char *const anomaly_name[CAP_ANOM_MAX] = {
	CAP_ANOMALY_LIST(CAP_ANOM_KEY_)
};
#undef CAP_ANOM_KEY_

/* RNR timer codes in microseconds (IBA table 45; code 0 is the longest). */
static const uint32_t rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

const char *
cap_anomaly_str(enum cap_anomaly_kind kind)
{
	return kind < CAP_ANOM_MAX ? anomaly_str[kind] : "?";
}

const char *
cap_anomaly_key(enum cap_anomaly_kind kind)
{
	static char keys[CAP_ANOM_MAX][24];
	size_t i;

	if (kind >= CAP_ANOM_MAX)
		return "?";
	if (keys[kind][0] == '\0') {
		for (i = 0; anomaly_name[kind][i] != '\0' && i + 1 < sizeof(keys[0]); i++)
			keys[kind][i] = (char)tolower((unsigned char)anomaly_name[kind][i]);
		keys[kind][i] = '\0';
	}
	return keys[kind];
}

/* Grow an array of @p size-byte elements to hold one more. */
static int
grow(struct cap_audit *a, void **arr, size_t *cap, size_t nb, size_t size)
{
	size_t ncap;
	void *n;

	if (nb < *cap)
		return 0;
	ncap = *cap == 0 ? 16 : *cap * 2;
	n = realloc(*arr, ncap * size);
	if (n == NULL) {
		a->oom = 1;
		return -1;
	}
	*arr = n;
	*cap = ncap;
	return 0;
}

static void
anomaly(struct cap_audit *a, uint64_t frame, enum cap_anomaly_kind kind, int qp,
	const char *fmt, ...)
{
	struct cap_anomaly *an;
	va_list ap;

	a->anomaly_count[kind]++;
	if (grow(a, (void **)&a->anomalies, &a->cap_anomalies, a->nb_anomalies,
		 sizeof(*a->anomalies)) < 0)
		return;
	an = &a->anomalies[a->nb_anomalies++];
	an->frame = frame;
	an->seq = a->nb_anomalies;
	an->kind = kind;
	an->qp = qp;
	va_start(ap, fmt);
	vsnprintf(an->detail, sizeof(an->detail), fmt, ap);
	va_end(ap);
}

void
cap_audit_init(struct cap_audit *a)
{
	memset(a, 0, sizeof(*a));
}

void
cap_audit_free(struct cap_audit *a)
{
	size_t i;

	for (i = 0; i < a->nb_streams; i++)
		free(a->streams[i].msgs);
	free(a->streams);
	free(a->qps);
	free(a->anomalies);
	free(a->pmtus);
	memset(a, 0, sizeof(*a));
}

static struct cap_pmtu *
pmtu_find(struct cap_audit *a, const uint8_t *x, const uint8_t *y)
{
	size_t i;

	for (i = 0; i < a->nb_pmtus; i++) {
		struct cap_pmtu *m = &a->pmtus[i];

		if ((memcmp(m->a, x, 16) == 0 && memcmp(m->b, y, 16) == 0) ||
		    (memcmp(m->a, y, 16) == 0 && memcmp(m->b, x, 16) == 0))
			return m;
	}
	return NULL;
}

void
cap_audit_learn(struct cap_audit *a, const struct cap_pkt *pkt)
{
	struct cap_pmtu *m;

	if (pkt->kind != CAP_FRAME_ROCE || !pkt->known_op || pkt->icrc == CAP_ICRC_BAD ||
	    (cap_op_position(pkt->opcode) & CAP_POS_LAST))
		return;
	/* FIRST and MIDDLE packets carry exactly one path MTU of payload. */
	m = pmtu_find(a, pkt->src, pkt->dst);
	if (m == NULL) {
		if (grow(a, (void **)&a->pmtus, &a->cap_pmtus, a->nb_pmtus,
			 sizeof(*a->pmtus)) < 0)
			return;
		m = &a->pmtus[a->nb_pmtus++];
		memcpy(m->a, pkt->src, 16);
		memcpy(m->b, pkt->dst, 16);
		m->pmtu = 0;
	}
	if (pkt->payload_len > m->pmtu)
		m->pmtu = pkt->payload_len;
}

static uint32_t
read_psns(struct cap_audit *a, const struct cap_pkt *pkt)
{
	struct cap_pmtu *m = pmtu_find(a, pkt->src, pkt->dst);
	uint32_t pmtu = m != NULL && m->pmtu != 0 ? m->pmtu : PMTU_DEFAULT;
	uint32_t n = (uint32_t)(((uint64_t)pkt->reth_len + pmtu - 1) / pmtu);

	return n == 0 ? 1 : n;
}

static int
qp_get(struct cap_audit *a, const struct cap_pkt *pkt)
{
	struct cap_qp *q;
	size_t i;

	for (i = 0; i < a->nb_qps; i++)
		if (a->qps[i].qpn == pkt->dqpn && memcmp(a->qps[i].addr, pkt->dst, 16) == 0)
			return (int)i;
	if (grow(a, (void **)&a->qps, &a->cap_qps, a->nb_qps, sizeof(*a->qps)) < 0)
		return -1;
	q = &a->qps[a->nb_qps];
	memset(q, 0, sizeof(*q));
	memcpy(q->addr, pkt->dst, 16);
	q->ipv4 = pkt->ipv4;
	q->version = pkt->version;
	q->qpn = pkt->dqpn;
	return (int)a->nb_qps++;
}

static struct cap_stream *
stream_get(struct cap_audit *a, int qp, const struct cap_pkt *pkt)
{
	uint32_t srcqp = pkt->has_deth ? pkt->deth_srcqp : 0;
	struct cap_stream *s;
	size_t i;

	for (i = 0; i < a->nb_streams; i++) {
		s = &a->streams[i];
		if (s->qp == qp && s->src_qpn == srcqp && memcmp(s->src, pkt->src, 16) == 0)
			return s;
	}
	if (grow(a, (void **)&a->streams, &a->cap_streams, a->nb_streams,
		 sizeof(*a->streams)) < 0)
		return NULL;
	s = &a->streams[a->nb_streams++];
	memset(s, 0, sizeof(*s));
	s->qp = qp;
	s->requester = -1;
	memcpy(s->src, pkt->src, 16);
	s->src_qpn = srcqp;
	s->transport = (uint8_t)cap_op_transport(pkt->opcode);
	return s;
}

/*
 * The request stream a response answers: requests that went from the
 * response's destination to its source, over RC. One QP pair per address
 * pair is the common case; with several, prefer the one already joined to
 * this requester, then one whose outstanding PSNs cover the response.
 */
static struct cap_stream *
stream_for_response(struct cap_audit *a, int req_qp, const struct cap_pkt *pkt)
{
	struct cap_stream *best = NULL, *s;
	size_t i, k;

	for (i = 0; i < a->nb_streams; i++) {
		s = &a->streams[i];
		if (s->transport != CAP_TR_RC || memcmp(s->src, pkt->dst, 16) != 0 ||
		    memcmp(a->qps[s->qp].addr, pkt->src, 16) != 0)
			continue;
		if (s->requester == req_qp)
			return s;
		if (s->requester != -1)
			continue;
		for (k = s->head; k < s->nb_msgs; k++)
			if (cap_psn_diff(pkt->psn, s->msgs[k].first_psn) >= 0 &&
			    cap_psn_diff(pkt->psn, s->msgs[k].last_psn) <= 0)
				break;
		if (best == NULL || k < s->nb_msgs)
			best = s;
	}
	if (best != NULL)
		best->requester = req_qp;
	return best;
}

static void
msg_push(struct cap_audit *a, struct cap_stream *s, uint64_t frame, uint32_t first,
	 uint32_t last, uint8_t opcode)
{
	struct cap_msg *m;

	if (grow(a, (void **)&s->msgs, &s->cap_msgs, s->nb_msgs, sizeof(*s->msgs)) < 0)
		return;
	m = &s->msgs[s->nb_msgs++];
	m->frame = frame;
	m->first_psn = first & PSN_MASK;
	m->last_psn = last & PSN_MASK;
	m->opcode = opcode;
	m->done = 0;
}

static void
msgs_compact(struct cap_stream *s)
{
	while (s->head < s->nb_msgs && s->msgs[s->head].done)
		s->head++;
}

static int
msg_is_read_or_atomic(const struct cap_msg *m)
{
	unsigned int op = cap_op_code(m->opcode);

	return op == CAP_OP_READ_REQ || op == CAP_OP_CMP_SWAP || op == CAP_OP_FETCH_ADD;
}

/* Complete every SEND/WRITE whose last PSN is before (or at, if @p incl) @p psn. */
static void
ack_upto(struct cap_stream *s, uint32_t psn, int incl)
{
	size_t k;
	int32_t d;

	for (k = s->head; k < s->nb_msgs; k++) {
		struct cap_msg *m = &s->msgs[k];

		d = cap_psn_diff(m->last_psn, psn);
		if (d > 0 || (d == 0 && !incl))
			break;
		if (!msg_is_read_or_atomic(m))
			m->done = 1;
	}
	msgs_compact(s);
}

/* A NAK asks for a resend from @p psn: what follows is forgotten, as the
 * requester will send it again. */
static void
forget_from(struct cap_stream *s, uint32_t psn)
{
	size_t k;

	for (k = s->head; k < s->nb_msgs; k++)
		if (cap_psn_diff(s->msgs[k].first_psn, psn) >= 0)
			s->msgs[k].done = 1;
	msgs_compact(s);
}

static void
on_request(struct cap_audit *a, uint64_t frame, int qp, const struct cap_pkt *pkt)
{
	struct cap_stream *s = stream_get(a, qp, pkt);
	unsigned int op = cap_op_code(pkt->opcode), pos;
	uint32_t n;
	int32_t d;
	int first_seen;

	if (s == NULL)
		return;
	first_seen = !s->have_epsn;
	if (first_seen) {
		s->have_epsn = 1;
		s->epsn = pkt->psn;
		s->first_psn = pkt->psn;
		s->first_frame = frame;
	}
	d = cap_psn_diff(pkt->psn, s->epsn);
	if (d < 0) {
		anomaly(a, frame, CAP_ANOM_PSN_DUPLICATE, qp,
			"%s PSN %u again (next new PSN would be %u)",
			cap_opcode_name(pkt->opcode), pkt->psn, s->epsn);
		return;
	}
	if (d > 0) {
		anomaly(a, frame, CAP_ANOM_PSN_GAP, qp,
			"%s PSN %u, expected %u: %d PSN(s) missing",
			cap_opcode_name(pkt->opcode), pkt->psn, s->epsn, d);
		/* A lost LAST leaves the message open; the new one restarts. */
		s->in_msg = 0;
		s->gap_open = 1;
	}
	pos = cap_op_position(pkt->opcode);
	n = 1;
	if (op == CAP_OP_READ_REQ)
		n = read_psns(a, pkt);
	s->epsn = (pkt->psn + n) & PSN_MASK;

	if (op == CAP_OP_READ_REQ || op == CAP_OP_CMP_SWAP || op == CAP_OP_FETCH_ADD) {
		if (s->in_msg)
			anomaly(a, frame, CAP_ANOM_OPCODE_SEQUENCE, qp,
				"%s while a %s message (frame %" PRIu64 ") is open",
				cap_opcode_name(pkt->opcode),
				cap_opcode_name(s->msg_opcode), s->msg_frame);
		s->in_msg = 0;
		if (s->transport == CAP_TR_RC)
			msg_push(a, s, frame, pkt->psn, pkt->psn + n - 1, pkt->opcode);
		return;
	}
	if (pos & CAP_POS_FIRST) {
		if (s->in_msg)
			anomaly(a, frame, CAP_ANOM_OPCODE_SEQUENCE, qp,
				"%s while a %s message (frame %" PRIu64 ") is open",
				cap_opcode_name(pkt->opcode),
				cap_opcode_name(s->msg_opcode), s->msg_frame);
		s->in_msg = 1;
		s->msg_first = pkt->psn;
		s->msg_frame = frame;
		s->msg_opcode = pkt->opcode;
	} else if (!s->in_msg) {
		/* A capture may start in the middle of a message. */
		if (!first_seen && d == 0)
			anomaly(a, frame, CAP_ANOM_OPCODE_SEQUENCE, qp,
				"%s without a FIRST", cap_opcode_name(pkt->opcode));
		s->in_msg = 1;
		s->msg_first = pkt->psn;
		s->msg_frame = frame;
		s->msg_opcode = pkt->opcode;
	}
	if (pos & CAP_POS_LAST) {
		if (s->transport == CAP_TR_RC)
			msg_push(a, s, s->msg_frame, s->msg_first, pkt->psn, s->msg_opcode);
		s->in_msg = 0;
	}
}

static void
on_nak(struct cap_audit *a, uint64_t frame, int qp, struct cap_stream *s,
       const struct cap_pkt *pkt)
{
	uint8_t syn = pkt->aeth_syndrome;
	unsigned int code = syn & 0x1F;
	enum cap_anomaly_kind kind;
	int32_t d;

	if ((syn >> 5) == AETH_RNR) {
		anomaly(a, frame, CAP_ANOM_RNR_NAK, qp,
			"PSN %u, RNR timer code %u (%u.%02u ms)", pkt->psn, code,
			rnr_us[code] / 1000, (rnr_us[code] % 1000) / 10);
		if (s != NULL) {
			ack_upto(s, pkt->psn, 0);
			forget_from(s, pkt->psn);
			s->epsn = pkt->psn;
		}
		return;
	}
	switch (code) {
	case 0:
		kind = CAP_ANOM_NAK_PSN_SEQ;
		break;
	case 1:
		kind = CAP_ANOM_NAK_INV_REQ;
		break;
	case 2:
		kind = CAP_ANOM_NAK_REM_ACCESS;
		break;
	case 3:
		kind = CAP_ANOM_NAK_REM_OP;
		break;
	case 4:
		kind = CAP_ANOM_NAK_INV_RD_REQ;
		break;
	default:
		kind = CAP_ANOM_NAK_RESERVED;
		break;
	}
	if (kind != CAP_ANOM_NAK_PSN_SEQ) {
		anomaly(a, frame, kind, qp, "PSN %u, AETH syndrome 0x%02x", pkt->psn, syn);
		if (s != NULL) {
			ack_upto(s, pkt->psn, 0);
			/* The NAK'd request is answered, with an error. */
			forget_from(s, pkt->psn);
		}
		return;
	}
	anomaly(a, frame, kind, qp, "responder expects PSN %u", pkt->psn);
	if (s == NULL)
		return;
	/* The first request of a stream sets the base, so a gap there only
	 * shows once the responder names the PSN it expected. */
	d = s->have_epsn ? cap_psn_diff(s->first_psn, pkt->psn) : 0;
	if (d > 0 && !s->gap_open && cap_psn_diff(s->epsn, pkt->psn) > 0)
		anomaly(a, s->first_frame, CAP_ANOM_PSN_GAP, s->qp,
			"PSN %u sent while the responder expected %u "
			"(%d PSN(s) skipped, per the NAK in frame %" PRIu64 ")",
			s->first_psn, pkt->psn, d, frame);
	s->gap_open = 0;
	ack_upto(s, pkt->psn, 0);
	forget_from(s, pkt->psn);
	/* The requester resends from the NAK's PSN: that is not a duplicate. */
	s->epsn = pkt->psn;
	s->in_msg = 0;
}

static void
on_response(struct cap_audit *a, uint64_t frame, int qp, const struct cap_pkt *pkt)
{
	struct cap_stream *s = stream_for_response(a, qp, pkt);
	unsigned int op = cap_op_code(pkt->opcode);
	struct cap_msg *m = NULL;
	size_t k, lo;

	if (pkt->has_aeth && (pkt->aeth_syndrome >> 5) != AETH_ACK) {
		on_nak(a, frame, qp, s, pkt);
		return;
	}
	if (s == NULL) {
		anomaly(a, frame, CAP_ANOM_UNEXPECTED_RESP, qp,
			"%s PSN %u: no RC request was seen in the other direction",
			cap_opcode_name(pkt->opcode), pkt->psn);
		return;
	}
	if (op == CAP_OP_ACK) {
		if (s->have_epsn && cap_psn_diff(pkt->psn, s->epsn) >= 0)
			anomaly(a, frame, CAP_ANOM_UNEXPECTED_RESP, qp,
				"ACK for PSN %u, which was never sent (next is %u)",
				pkt->psn, s->epsn);
		ack_upto(s, pkt->psn, 1);
		return;
	}
	/* READ responses and atomic ACKs answer one READ or atomic request. */
	for (k = s->head; k < s->nb_msgs; k++) {
		struct cap_msg *c = &s->msgs[k];

		if (!c->done && msg_is_read_or_atomic(c) &&
		    cap_psn_diff(pkt->psn, c->first_psn) >= 0 &&
		    cap_psn_diff(pkt->psn, c->last_psn) <= 0) {
			m = c;
			break;
		}
	}
	if (m == NULL) {
		lo = s->head > DUP_LOOKBACK ? s->head - DUP_LOOKBACK : 0;
		for (k = s->head; k > lo; k--) {
			struct cap_msg *c = &s->msgs[k - 1];

			if (msg_is_read_or_atomic(c) &&
			    cap_psn_diff(pkt->psn, c->first_psn) >= 0 &&
			    cap_psn_diff(pkt->psn, c->last_psn) <= 0) {
				anomaly(a, frame, CAP_ANOM_DUP_RESPONSE, qp,
					"%s PSN %u answers the request of frame %" PRIu64
					" again", cap_opcode_name(pkt->opcode), pkt->psn,
					c->frame);
				return;
			}
		}
		anomaly(a, frame, CAP_ANOM_UNEXPECTED_RESP, qp,
			"%s PSN %u matches no outstanding READ or atomic request",
			cap_opcode_name(pkt->opcode), pkt->psn);
		return;
	}
	/* Everything sent before the answered request is acknowledged too. */
	ack_upto(s, m->first_psn, 0);
	if ((op == CAP_OP_ATOMIC_ACK && cap_op_code(m->opcode) != CAP_OP_READ_REQ) ||
	    ((cap_op_position(pkt->opcode) & CAP_POS_LAST) && pkt->psn == m->last_psn &&
	     cap_op_code(m->opcode) == CAP_OP_READ_REQ))
		m->done = 1;
	msgs_compact(s);
}

static void
account(struct cap_audit *a, int qp, const struct cap_pkt *pkt)
{
	struct cap_qp *q = &a->qps[qp];

	q->packets++;
	q->wire_bytes += pkt->wire_len;
	q->payload_bytes += pkt->payload_len;
	q->opcodes[pkt->opcode]++;
	q->transports |= 1u << cap_op_transport(pkt->opcode);
	if (pkt->icrc == CAP_ICRC_BAD)
		q->bad_icrc++;
	else if (pkt->icrc == CAP_ICRC_UNCHECKED)
		q->unchecked++;
	if (pkt->opcode == CAP_OPCODE_CNP)
		return;
	if (!q->have_psn) {
		q->have_psn = 1;
		q->first_psn = pkt->psn;
	}
	q->last_psn = pkt->psn;
}

void
cap_audit_frame(struct cap_audit *a, uint64_t frame, const struct cap_pkt *pkt)
{
	char src[64], dst[64];
	int qp;

	a->frames++;
	if (pkt->kind == CAP_FRAME_OTHER) {
		a->other_frames++;
		return;
	}
	a->roce_frames++;
	if (pkt->kind == CAP_FRAME_MALFORMED) {
		a->malformed++;
		anomaly(a, frame, CAP_ANOM_MALFORMED, -1, "%s", pkt->why);
		return;
	}
	qp = qp_get(a, pkt);
	if (qp < 0)
		return;
	account(a, qp, pkt);
	switch (pkt->icrc) {
	case CAP_ICRC_OK:
		a->icrc_ok++;
		break;
	case CAP_ICRC_UNCHECKED:
		a->icrc_unchecked++;
		break;
	case CAP_ICRC_BAD:
		a->icrc_bad++;
		anomaly(a, frame, CAP_ANOM_BAD_ICRC, qp,
			"%s %s -> %s PSN %u: ICRC on the wire 0x%08x, computed 0x%08x "
			"(receivers drop it)", cap_opcode_name(pkt->opcode),
			cap_addr_str(pkt->src, pkt->ipv4, src, sizeof(src)),
			cap_addr_str(pkt->dst, pkt->ipv4, dst, sizeof(dst)),
			pkt->psn, pkt->icrc_wire, pkt->icrc_calc);
		/* A receiver drops it, so it takes no part in the protocol. */
		return;
	}
	if (pkt->opcode == CAP_OPCODE_CNP)
		return;
	if (!pkt->known_op) {
		anomaly(a, frame, CAP_ANOM_UNKNOWN_OPCODE, qp, "opcode 0x%02x", pkt->opcode);
		return;
	}
	if (cap_op_is_request(pkt->opcode))
		on_request(a, frame, qp, pkt);
	else
		on_response(a, frame, qp, pkt);
}

static int
anomaly_cmp(const void *x, const void *y)
{
	const struct cap_anomaly *p = x, *q = y;

	if (p->frame != q->frame)
		return p->frame < q->frame ? -1 : 1;
	/* Keep the order of detection within a frame. */
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

void
cap_audit_finish(struct cap_audit *a)
{
	size_t i, k;

	for (i = 0; i < a->nb_streams; i++) {
		struct cap_stream *s = &a->streams[i];

		for (k = s->head; k < s->nb_msgs; k++) {
			const struct cap_msg *m = &s->msgs[k];

			if (m->done)
				continue;
			anomaly(a, m->frame, CAP_ANOM_UNANSWERED, s->qp,
				"%s PSN %u..%u never acknowledged",
				cap_opcode_name(m->opcode), m->first_psn, m->last_psn);
		}
		if (s->in_msg)
			anomaly(a, s->msg_frame, CAP_ANOM_INCOMPLETE, s->qp,
				"%s starting at PSN %u has no LAST packet",
				cap_opcode_name(s->msg_opcode), s->msg_first);
	}
	if (a->nb_anomalies > 1)
		qsort(a->anomalies, a->nb_anomalies, sizeof(*a->anomalies), anomaly_cmp);
}
