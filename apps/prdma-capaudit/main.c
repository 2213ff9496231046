/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-capaudit: audit RoCE captures. Verifies every ICRC, follows each
 * QP's PSNs, ACKs, NAKs and READ responses, and lists every anomaly.
 * Exit status: 0 all clean, 1 anomalies found, 2 unreadable input.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_audit.h"
#include "cap_decode.h"
#include "cap_pcap.h"
#include "cap_report.h"

#define EXIT_CLEAN 0
#define EXIT_ANOMALY 1
#define EXIT_UNREADABLE 2

static void
usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [--json FILE|-] [--quiet] CAPTURE...\n"
		"  Audits RoCEv2 (UDP 4791, IPv4/IPv6) and RoCEv1 (EtherType 0x8915)\n"
		"  frames in pcap or pcapng captures.\n"
		"  --json FILE  also write the results as JSON (\"-\" = stdout, then\n"
		"               the text summary goes to stderr)\n"
		"  --quiet      no text summary\n"
		"exit status: 0 all clean, 1 anomalies found, 2 unreadable input\n",
		prog);
}

/* Run one pass over the file: 0, or -1 with a message on stderr. */
static int
pass(const char *path, struct cap_audit *a, int learn)
{
	struct cap_reader r;
	struct cap_frame fr;
	struct cap_pkt pkt;
	int ret;

	if (cap_reader_open(&r, path) < 0) {
		fprintf(stderr, "prdma-capaudit: %s\n", r.err);
		return -1;
	}
	while ((ret = cap_reader_next(&r, &fr)) == 1) {
		cap_decode(&fr, &pkt);
		if (learn)
			cap_audit_learn(a, &pkt);
		else
			cap_audit_frame(a, fr.number, &pkt);
	}
	if (ret < 0)
		fprintf(stderr, "prdma-capaudit: %s: %s\n", path, r.err);
	cap_reader_close(&r);
	return ret < 0 ? -1 : 0;
}

static int
audit_file(const char *path, FILE *text, FILE *json, int first)
{
	struct cap_audit a;
	int rc;

	cap_audit_init(&a);
	if (pass(path, &a, 1) < 0 || pass(path, &a, 0) < 0) {
		cap_audit_free(&a);
		return EXIT_UNREADABLE;
	}
	cap_audit_finish(&a);
	if (text != NULL) {
		if (!first)
			fprintf(text, "\n");
		cap_report_text(text, path, &a);
	}
	if (json != NULL) {
		fprintf(json, "%s", first ? "" : ",\n");
		cap_report_json(json, path, &a);
	}
	rc = a.nb_anomalies == 0 && !a.oom ? EXIT_CLEAN : EXIT_ANOMALY;
	cap_audit_free(&a);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *json_path = NULL;
	FILE *text = stdout, *json = NULL;
	int quiet = 0, c, i, rc, worst = EXIT_CLEAN;

	while ((c = getopt_long(argc, argv, "j:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json_path = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return EXIT_CLEAN;
		default:
			usage(stderr, argv[0]);
			return EXIT_UNREADABLE;
		}
	}
	if (optind >= argc) {
		usage(stderr, argv[0]);
		return EXIT_UNREADABLE;
	}
	if (json_path != NULL) {
		if (strcmp(json_path, "-") == 0) {
			json = stdout;
			text = stderr;
		} else {
			json = fopen(json_path, "w");
			if (json == NULL) {
				perror(json_path);
				return EXIT_UNREADABLE;
			}
		}
		fprintf(json, "[");
	}
	if (quiet)
		text = NULL;
	for (i = optind; i < argc; i++) {
		rc = audit_file(argv[i], text, json, i == optind);
		if (rc > worst)
			worst = rc;
	}
	if (json != NULL) {
		fprintf(json, "]\n");
		if (json != stdout && fclose(json) != 0) {
			perror(json_path);
			return EXIT_UNREADABLE;
		}
	}
	return worst;
}
