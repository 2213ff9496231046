/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <string.h>

#include "demo.h"

/* The milestone's figure of merit: RDMA WRITE half round trip at 64 B
 * within twice the raw ethdev ping-pong of a frame of the same size. */
#define DEMO_TARGET_RATIO 2.0

static void
size_str(uint32_t s, char *buf, size_t len)
{
	if (s >= (1u << 20) && s % (1u << 20) == 0)
		snprintf(buf, len, "%uM", s >> 20);
	else if (s >= 1024 && s % 1024 == 0)
		snprintf(buf, len, "%uK", s >> 10);
	else
		snprintf(buf, len, "%u", s);
}

static void
bw_cell(FILE *out, const struct demo_row *row, enum demo_bw_op op)
{
	if (row->bw_done[op])
		fprintf(out, " %8.3f", row->bw[op].gbps);
	else
		fprintf(out, " %8s", "-");
}

void
demo_report_table(FILE *out, const struct demo_result *res)
{
	const struct demo_row *row;
	char sz[16];
	unsigned int i;

	fprintf(out, "\nRDMA WRITE ping-pong latency (half round trip, us) and bandwidth "
		"(Gbit/s), %s <-> %s, %s\n", res->dev_a, res->dev_b,
		res->two_lcores ? "one lcore per endpoint" :
		"ONE lcore driving both endpoints in turn");
	fprintf(out, "%6s | %8s %8s %8s %8s | %8s %8s %8s | %-8s\n",
		"size", "lat p50", "p99", "p99.9", "max", "WRITE", "READ", "SEND",
		"verified");
	fprintf(out, "-------+-------------------------------------+"
		"----------------------------+---------\n");
	for (i = 0; i < res->nb_rows; i++) {
		row = &res->rows[i];
		size_str(row->size, sz, sizeof(sz));
		if (row->lat_done)
			fprintf(out, "%6s | %8.2f %8.2f %8.2f %8.2f |", sz, row->lat.p50,
				row->lat.p99, row->lat.p999, row->lat.max);
		else
			fprintf(out, "%6s | %8s %8s %8s %8s |", sz, "-", "-", "-", "-");
		bw_cell(out, row, DEMO_BW_WRITE);
		bw_cell(out, row, DEMO_BW_READ);
		bw_cell(out, row, DEMO_BW_SEND);
		fprintf(out, " | %s\n", !row->verified ? "MISMATCH" :
			row->lat_done || row->bw_done[DEMO_BW_WRITE] ? "yes" : "-");
	}
	fprintf(out, "\nMessage rate (Mmsg/s):\n%6s | %8s %8s %8s\n", "size", "WRITE",
		"READ", "SEND");
	for (i = 0; i < res->nb_rows; i++) {
		row = &res->rows[i];
		size_str(row->size, sz, sizeof(sz));
		fprintf(out, "%6s |", sz);
		if (row->bw_done[DEMO_BW_WRITE])
			fprintf(out, " %8.4f", row->bw[DEMO_BW_WRITE].mmsgs);
		else
			fprintf(out, " %8s", "-");
		if (row->bw_done[DEMO_BW_READ])
			fprintf(out, " %8.4f", row->bw[DEMO_BW_READ].mmsgs);
		else
			fprintf(out, " %8s", "-");
		if (row->bw_done[DEMO_BW_SEND])
			fprintf(out, " %8.4f\n", row->bw[DEMO_BW_SEND].mmsgs);
		else
			fprintf(out, " %8s\n", "-");
	}
	if (!res->baseline) {
		fprintf(out, "\nRaw ethdev baseline: not measured (devices given with "
			"--devargs-a/-b)\n");
		return;
	}
	fprintf(out, "\nRaw ethdev ping-pong on the same ring ports (half round trip, us), "
		"frame = the RoCEv2 RDMA_WRITE_ONLY frame of that size:\n");
	fprintf(out, "%6s | %6s | %8s %8s %8s %8s | %10s\n", "size", "frame", "raw p50",
		"p99", "p99.9", "max", "ours/raw");
	for (i = 0; i < res->nb_rows; i++) {
		row = &res->rows[i];
		if (!row->raw_done)
			continue;
		size_str(row->size, sz, sizeof(sz));
		fprintf(out, "%6s | %6u | %8.2f %8.2f %8.2f %8.2f |", sz, row->raw_frame,
			row->raw.p50, row->raw.p99, row->raw.p999, row->raw.max);
		if (row->lat_done && row->raw.p50 > 0)
			fprintf(out, " %9.2fx%s\n", row->lat.p50 / row->raw.p50,
				row->size == 64 ? "  <- 64 B" : "");
		else
			fprintf(out, " %10s\n", "-");
	}
	for (i = 0; i < res->nb_rows; i++) {
		row = &res->rows[i];
		if (row->size != 64 || !row->raw_done || !row->lat_done || row->raw.p50 <= 0)
			continue;
		fprintf(out, "\n64 B RDMA WRITE p50 %.2f us vs raw %.2f us: ratio %.2fx "
			"(benchmark target <= %.1fx: %s)\n", row->lat.p50, row->raw.p50,
			row->lat.p50 / row->raw.p50, DEMO_TARGET_RATIO,
			row->lat.p50 / row->raw.p50 <= DEMO_TARGET_RATIO ? "met" : "not met");
	}
}

static void
json_lat(FILE *f, const char *key, const struct demo_lat *l)
{
	fprintf(f, "\"%s\": {\"p50_us\": %.3f, \"p99_us\": %.3f, \"p999_us\": %.3f, "
		"\"max_us\": %.3f, \"samples\": %u}", key, l->p50, l->p99, l->p999, l->max,
		l->samples);
}

int
demo_report_json(const char *path, const struct demo_result *res)
{
	static const char *const op_name[DEMO_BW_NB] = { "write", "read", "send" };
	const struct demo_row *row;
	unsigned int i, k;
	FILE *f;
	int ret;

	f = fopen(path, "w");
	if (f == NULL) {
		ret = -errno;
		DEMO_LOG(ERR, "%s: %s", path, strerror(errno));
		return ret;
	}
	fprintf(f, "{\"device_a\": \"%s\", \"device_b\": \"%s\", \"two_lcores\": %s, "
		"\"baseline\": %s, \"tsc_hz\": %.0f, \"target_ratio_64B\": %.1f, "
		"\"failed\": %s,\n \"rows\": [", res->dev_a, res->dev_b,
		res->two_lcores ? "true" : "false", res->baseline ? "true" : "false",
		res->tsc_hz, DEMO_TARGET_RATIO, res->failed ? "true" : "false");
	for (i = 0; i < res->nb_rows; i++) {
		row = &res->rows[i];
		fprintf(f, "%s\n  {\"size\": %u, \"verified\": %s", i == 0 ? "" : ",",
			row->size, row->verified && row->lat_done ? "true" : "false");
		if (row->lat_done) {
			fprintf(f, ", ");
			json_lat(f, "write_lat", &row->lat);
		}
		for (k = 0; k < DEMO_BW_NB; k++)
			if (row->bw_done[k])
				fprintf(f, ", \"%s_bw\": {\"gbps\": %.4f, \"mmsgs\": %.4f, "
					"\"msgs\": %u}", op_name[k], row->bw[k].gbps,
					row->bw[k].mmsgs, row->bw[k].msgs);
		if (row->raw_done) {
			fprintf(f, ", \"raw_frame\": %u, ", row->raw_frame);
			json_lat(f, "raw_lat", &row->raw);
			if (row->lat_done && row->raw.p50 > 0)
				fprintf(f, ", \"ratio_p50\": %.3f", row->lat.p50 / row->raw.p50);
		}
		fprintf(f, "}");
	}
	fprintf(f, "]}\n");
	if (fclose(f) != 0) {
		ret = -errno;
		DEMO_LOG(ERR, "%s: %s", path, strerror(errno));
		return ret;
	}
	return 0;
}
