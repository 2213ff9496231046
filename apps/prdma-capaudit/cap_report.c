/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <inttypes.h>
#include <string.h>

#include "cap_report.h"

static const char *const tr_name[8] = {
	"RC", "UC", "RD", "UD", "CNP", "XRC", "6", "vendor",
};

static void
transports_str(uint32_t mask, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int t;

	buf[0] = '\0';
	for (t = 0; t < 8 && off < len; t++)
		if (mask & (1u << t))
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
						off != 0 ? "+" : "", tr_name[t]);
}

static const char *
qp_name(const struct cap_audit *a, int qp, char *buf, size_t len)
{
	char addr[64];

	if (qp < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "QP 0x%06x @ %s", a->qps[qp].qpn,
		 cap_addr_str(a->qps[qp].addr, a->qps[qp].ipv4, addr, sizeof(addr)));
	return buf;
}

static uint64_t
anomaly_total(const struct cap_audit *a)
{
	uint64_t n = 0;
	unsigned int k;

	for (k = 0; k < CAP_ANOM_MAX; k++)
		n += a->anomaly_count[k];
	return n;
}

void
cap_report_text(FILE *out, const char *path, const struct cap_audit *a)
{
	char name[96], tr[32];
	size_t i;
	unsigned int op, k;

	fprintf(out, "%s: %" PRIu64 " frames, %" PRIu64 " RoCE, %" PRIu64 " other\n",
		path, a->frames, a->roce_frames, a->other_frames);
	fprintf(out, "ICRC: %" PRIu64 " ok, %" PRIu64 " bad, %" PRIu64
		" not checked (frame cut by the snap length), %" PRIu64 " malformed\n",
		a->icrc_ok, a->icrc_bad, a->icrc_unchecked, a->malformed);
	for (i = 0; i < a->nb_qps; i++) {
		const struct cap_qp *q = &a->qps[i];

		transports_str(q->transports, tr, sizeof(tr));
		fprintf(out, "\n%s (RoCEv%u %s): %" PRIu64 " packets, %" PRIu64
			" bytes on the wire, %" PRIu64 " payload bytes",
			qp_name(a, (int)i, name, sizeof(name)), q->version, tr,
			q->packets, q->wire_bytes, q->payload_bytes);
		if (q->have_psn)
			fprintf(out, ", PSN %u..%u", q->first_psn, q->last_psn);
		fprintf(out, "\n");
		for (op = 0; op < 256; op++)
			if (q->opcodes[op] != 0)
				fprintf(out, "    %-36s %" PRIu64 "\n",
					cap_opcode_name((uint8_t)op), q->opcodes[op]);
	}
	fprintf(out, "\nanomalies: %" PRIu64 "\n", anomaly_total(a));
	for (k = 0; k < CAP_ANOM_MAX; k++)
		if (a->anomaly_count[k] != 0)
			fprintf(out, "    %-36s %" PRIu64 "\n", cap_anomaly_str(k),
				a->anomaly_count[k]);
	for (i = 0; i < a->nb_anomalies; i++) {
		const struct cap_anomaly *an = &a->anomalies[i];

		fprintf(out, "  frame %" PRIu64 ": %s: %s: %s\n", an->frame,
			cap_anomaly_str(an->kind), qp_name(a, an->qp, name, sizeof(name)),
			an->detail);
	}
	if (a->oom)
		fprintf(out, "warning: out of memory, the audit is incomplete\n");
	fprintf(out, "verdict: %s\n", anomaly_total(a) == 0 && !a->oom ?
		"clean" : "anomalies found");
}

static void
json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void
cap_report_json(FILE *out, const char *path, const struct cap_audit *a)
{
	char addr[64], tr[32];
	const char *sep;
	size_t i;
	unsigned int op, k;

	fprintf(out, "{\"file\": ");
	json_str(out, path);
	fprintf(out, ", \"frames\": %" PRIu64 ", \"roce_frames\": %" PRIu64
		", \"other_frames\": %" PRIu64 ", \"icrc_ok\": %" PRIu64
		", \"icrc_bad\": %" PRIu64 ", \"icrc_unchecked\": %" PRIu64
		", \"malformed\": %" PRIu64 ",\n  \"qps\": [",
		a->frames, a->roce_frames, a->other_frames, a->icrc_ok, a->icrc_bad,
		a->icrc_unchecked, a->malformed);
	for (i = 0; i < a->nb_qps; i++) {
		const struct cap_qp *q = &a->qps[i];

		transports_str(q->transports, tr, sizeof(tr));
		fprintf(out, "%s\n    {\"addr\": \"%s\", \"qpn\": %u, \"roce_version\": %u"
			", \"transport\": \"%s\", \"packets\": %" PRIu64
			", \"wire_bytes\": %" PRIu64 ", \"payload_bytes\": %" PRIu64
			", \"bad_icrc\": %" PRIu64 ", \"icrc_unchecked\": %" PRIu64,
			i == 0 ? "" : ",",
			cap_addr_str(q->addr, q->ipv4, addr, sizeof(addr)), q->qpn,
			q->version, tr, q->packets, q->wire_bytes, q->payload_bytes,
			q->bad_icrc, q->unchecked);
		if (q->have_psn)
			fprintf(out, ", \"first_psn\": %u, \"last_psn\": %u",
				q->first_psn, q->last_psn);
		fprintf(out, ", \"opcodes\": {");
		sep = "";
		for (op = 0; op < 256; op++) {
			if (q->opcodes[op] == 0)
				continue;
			fprintf(out, "%s\"%s\": %" PRIu64, sep, cap_opcode_name((uint8_t)op),
				q->opcodes[op]);
			sep = ", ";
		}
		fprintf(out, "}}");
	}
	fprintf(out, "],\n  \"anomaly_counts\": {");
	sep = "";
	for (k = 0; k < CAP_ANOM_MAX; k++) {
		if (a->anomaly_count[k] == 0)
			continue;
		fprintf(out, "%s\"%s\": %" PRIu64, sep, cap_anomaly_key(k),
			a->anomaly_count[k]);
		sep = ", ";
	}
	fprintf(out, "},\n  \"anomalies\": [");
	for (i = 0; i < a->nb_anomalies; i++) {
		const struct cap_anomaly *an = &a->anomalies[i];

		fprintf(out, "%s\n    {\"frame\": %" PRIu64 ", \"kind\": \"%s\"",
			i == 0 ? "" : ",", an->frame, cap_anomaly_key(an->kind));
		if (an->qp >= 0)
			fprintf(out, ", \"addr\": \"%s\", \"qpn\": %u",
				cap_addr_str(a->qps[an->qp].addr, a->qps[an->qp].ipv4,
					     addr, sizeof(addr)), a->qps[an->qp].qpn);
		fprintf(out, ", \"detail\": ");
		json_str(out, an->detail);
		fprintf(out, "}");
	}
	fprintf(out, "],\n  \"complete\": %s, \"verdict\": \"%s\"}",
		a->oom ? "false" : "true",
		anomaly_total(a) == 0 && !a->oom ? "clean" : "anomalies");
}
