/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * perftest's report: the banner, the address lines and the result rows in
 * its column layout, so scripts that parse ib_write_lat and friends parse
 * this too; and the same figures as JSON.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>

#include "perf.h"

#define RULE "---------------------------------------------------------------------------------------\n"

static const char *const titles[PERF_TEST_NB] = {
	[PERF_WRITE_LAT] = "RDMA_Write Latency Test",
	[PERF_WRITE_BW] = "RDMA_Write BW Test",
	[PERF_READ_LAT] = "RDMA_Read Latency Test",
	[PERF_READ_BW] = "RDMA_Read BW Test",
	[PERF_SEND_LAT] = "Send Latency Test",
	[PERF_SEND_BW] = "Send BW Test",
	[PERF_ATOMIC_LAT] = "Atomic FETCH_AND_ADD Latency Test",
	[PERF_ATOMIC_BW] = "Atomic FETCH_AND_ADD BW Test",
	[PERF_RAW_LAT] = "Raw ethdev ping-pong (baseline)",
	[PERF_RAW_BW] = "Raw ethdev burst (baseline)",
	[PERF_MEMCPY_BW] = "memcpy (baseline)",
};

void
perf_report_banner(FILE *out, const struct perf_opts *o, const struct perf_side *s)
{
	fprintf(out, RULE "                    %s\n",
		o->test == PERF_ATOMIC_LAT && o->atomic_cas ? "Atomic CMP_AND_SWAP Latency Test" :
		o->test == PERF_ATOMIC_BW && o->atomic_cas ? "Atomic CMP_AND_SWAP BW Test" :
		titles[o->test]);
	fprintf(out, " Dual-port       : OFF\t\tDevice         : %s\n",
		prdma_dev_name((uint16_t)s->dev_id));
	fprintf(out, " Number of qps   : %u\t\tTransport type : IB\n", s->nqp);
	fprintf(out, " Connection type : %s\t\tUsing SRQ      : OFF\n", perf_conn_name(o->conn));
	fprintf(out, " TX depth        : %u\n", o->tx_depth);
	if (!perf_test_is_lat(o->test))
		fprintf(out, " CQ Moderation   : %u\n", o->cq_mod);
	fprintf(out, " Mtu             : %u[B]\n", prdma_mtu_bytes(s->mtu));
	fprintf(out, " Link type       : %s\n",
		s->link_layer == PRDMA_LINK_LAYER_INFINIBAND ? "IB" : "Ethernet");
	if (s->gid_index >= 0)
		fprintf(out, " GID index       : %d\n", s->gid_index);
	if (perf_test_verb(o->test) == PERF_VERB_READ || perf_test_verb(o->test) == PERF_VERB_ATOMIC)
		fprintf(out, " Outstand reads  : %u\n", s->my[0].out_reads);
	else
		fprintf(out, " Max inline data : %u[B]\n", RTE_MIN(o->inline_size, s->max_inline));
	/* In one process only UD goes through the CM (SIDR): say what ran. */
	fprintf(out, " rdma_cm QPs\t : %s\n",
		o->use_cm && (!o->loopback || o->conn == PERF_CONN_UD) ? "ON" : "OFF");
	fprintf(out, " Data ex. method : %s\n", o->loopback ? "loopback (in process)" :
		(o->use_cm ? "rdma_cm" : "Ethernet"));
	fprintf(out, RULE);
}

static void
key_line(FILE *out, const char *who, const struct perf_key *k, int reads)
{
	unsigned int i;

	fprintf(out, " %s address: LID %04x QPN 0x%04x PSN 0x%06x", who, k->lid, k->qpn, k->psn);
	if (reads)
		fprintf(out, " OUT 0x%02x", k->out_reads);
	fprintf(out, " RKey 0x%06x VAddr 0x%014" PRIx64 "\n GID: ", k->rkey, k->vaddr);
	/* perftest prints the GID bytes in decimal. */
	for (i = 0; i < 16; i++)
		fprintf(out, "%02d%s", k->gid.raw[i], i < 15 ? ":" : "\n");
}

void
perf_report_keys(FILE *out, const struct perf_side *s)
{
	enum perf_verb v = perf_test_verb(s->o->test);
	int reads = v == PERF_VERB_READ || v == PERF_VERB_ATOMIC;
	uint32_t i;

	for (i = 0; i < s->nqp; i++) {
		key_line(out, "local", &s->my[i], reads);
		key_line(out, "remote", &s->peer[i], reads);
		if (i == 3 && s->nqp > 5) {
			fprintf(out, " ... %u more QPs\n", s->nqp - 4);
			break;
		}
	}
	fprintf(out, RULE);
}

void
perf_report_header(FILE *out, const struct perf_opts *o)
{
	if (perf_test_is_lat(o->test))
		fprintf(out, " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
			"    t_avg[usec]    t_stdev[usec]   99%% percentile[usec]"
			"   99.9%% percentile[usec] \n");
	else
		fprintf(out, " #bytes     #iterations    BW peak[%s]    BW average[%s]"
			"   MsgRate[Mpps]\n", o->report_gbits ? "Gb/sec" : "MB/sec",
			o->report_gbits ? "Gb/sec" : "MB/sec");
}

void
perf_report_row(FILE *out, const struct perf_opts *o, const struct perf_row *row)
{
	const struct app_lat *l = &row->lat;

	if (perf_test_is_lat(o->test))
		fprintf(out, " %-7u %-10" PRIu64 "  %-7.2f        %-7.2f      %-7.2f  \t"
			"       %-7.2f     \t%-7.2f \t\t%-7.2f \t\t%-7.2f\n",
			row->size, row->iters, l->min, l->max, l->p50, l->avg, l->stdev,
			l->p99, l->p999);
	else
		fprintf(out, " %-7u    %-10" PRIu64 "     %-7.2f            %-7.2f  \t\t   %-7.6f\n",
			row->size, row->iters, row->bw_peak, row->bw_avg, row->msg_rate);
	fflush(out);
}

void
perf_report_footer(FILE *out)
{
	fprintf(out, RULE);
}

/* The device counters a lossless run must leave at zero. */
static const struct {
	const char *json;
	unsigned int cnt;
} loss_counters[] = {
	{ "retransmits", PRDMA_DEV_CNT_RETRANSMITS },
	{ "naks_sent", PRDMA_DEV_CNT_NAKS_SENT },
	{ "naks_received", PRDMA_DEV_CNT_NAKS_RECEIVED },
	{ "rnr_events", PRDMA_DEV_CNT_RNR_EVENTS },
	{ "duplicates", PRDMA_DEV_CNT_DUPLICATES },
	{ "out_of_sequence", PRDMA_DEV_CNT_OUT_OF_SEQUENCE },
};

/* Local ACK timeouts of the data QPs: what a retransmission without a NAK
 * came from. */
static uint64_t
qp_timeouts(const struct perf_side *s)
{
	struct prdma_qp_counters qc;
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; s->qp != NULL && i < s->nqp; i++)
		if (s->qp[i] != NULL && prdma_qp_counters_get(s->qp[i], &qc) == 0)
			sum += qc.value[PRDMA_QP_CNT_TIMEOUTS];
	return sum;
}

void
perf_report_counters(FILE *out, const struct perf_side *s)
{
	struct prdma_dev_counters c;
	unsigned int i;

	if (s->dev == NULL || prdma_dev_counters_get(s->dev, &c) < 0)
		return;
	fprintf(out, " %s counters:", s->server ? "server" : "client");
	for (i = 0; i < RTE_DIM(loss_counters); i++)
		fprintf(out, " %s %" PRIu64, loss_counters[i].json,
			c.value[loss_counters[i].cnt]);
	fprintf(out, " timeouts %" PRIu64 "\n", qp_timeouts(s));
}

void
perf_row_from_run(const struct perf_opts *o, const struct perf_run *r, struct perf_row *row)
{
	const struct perf_side *s = r->side;
	enum perf_verb v = perf_test_verb(o->test);
	double hz = (double)rte_get_tsc_hz(), secs, bytes, unit;
	uint64_t ops;
	uint32_t n;

	memset(row, 0, sizeof(*row));
	row->size = r->size;
	if (perf_test_is_lat(o->test)) {
		/* The side that posts first times every round trip; the other
		 * the gaps between its answers. READ and atomic samples are whole
		 * round trips, as perftest reports them; WRITE and SEND are
		 * halved (one way). */
		n = !perf_lat_initiator(s) ? (r->i > 0 ? r->i - 1 : 0) : r->i;
		n = RTE_MIN(n, r->nb_samples_max);
		row->iters = r->i;
		app_lat_summary(r->samples, n,
				v == PERF_VERB_READ || v == PERF_VERB_ATOMIC ? 1 : 2, &row->lat);
		return;
	}
	ops = s->server ? r->received : r->completed;
	row->iters = r->iters != 0 ? r->iters : ops / RTE_MAX(1u, s->nqp);
	secs = r->t_last > r->t_first ? (double)(r->t_last - r->t_first) / hz : 0;
	if (secs <= 0 || ops == 0)
		return;
	bytes = (double)ops * r->size;
	unit = o->report_gbits ? 1e9 / 8 : 1048576.0;
	row->bw_avg = bytes / secs / unit;
	row->bw_peak = r->peak_ops_s * r->size / unit;
	if (row->bw_peak < row->bw_avg)
		row->bw_peak = row->bw_avg;
	row->msg_rate = (double)ops / secs / 1e6;
	row->gbps = bytes * 8 / secs / 1e9;
}

int
perf_report_samples(const char *path, const struct perf_opts *o, const struct perf_run *r)
{
	enum perf_verb v = perf_test_verb(o->test);
	double us = 1e6 / (double)rte_get_tsc_hz() /
		    (v == PERF_VERB_READ || v == PERF_VERB_ATOMIC ? 1 : 2);
	uint32_t i, n = RTE_MIN(r->i, r->nb_samples_max);
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		PERF_LOG(ERR, "cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%.4f\n", (double)r->samples[i] * us);
	return fclose(f) == 0 ? 0 : -errno;
}

int
perf_report_json(const char *path, const struct perf_opts *o, const struct perf_side *s,
		 const struct perf_row *rows, unsigned int nb_rows, const char *mode)
{
	FILE *f = fopen(path, "w");
	struct prdma_dev_counters c;
	unsigned int i;

	if (f == NULL) {
		PERF_LOG(ERR, "cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "{\n  \"tool\": \"prdma-perf\",\n  \"test\": \"%s\",\n  \"mode\": \"%s\",\n"
		"  \"role\": \"%s\",\n  \"device\": \"%s\",\n  \"connection_type\": \"%s\",\n"
		"  \"key_bytes\": %zu,\n  \"qps\": %u,\n"
		"  \"tx_depth\": %u,\n  \"mtu\": %u,\n  \"inline_size\": %u,\n"
		"  \"qp_memory_bytes\": %" PRIu64 ",\n  \"mem_per_qp_bytes\": %.0f,\n"
		"  \"bw_unit\": \"%s\",\n  \"latency_divisor\": %d,\n  \"results\": [\n",
		perf_test_name(o->test), mode, s->server ? "server" : "client",
		s->dev_id >= 0 ? prdma_dev_name((uint16_t)s->dev_id) : "raw ethdev",
		perf_conn_name(o->conn), o->use_cm ? (size_t)PERF_KEY_BIN_LEN : s->key_len, s->nqp,
		o->tx_depth,
		prdma_mtu_bytes(s->mtu), RTE_MIN(o->inline_size, s->max_inline),
		s->mem_qps, (double)s->mem_qps / RTE_MAX(1u, s->nqp),
		o->report_gbits ? "Gb/sec" : "MB/sec",
		perf_test_verb(o->test) == PERF_VERB_READ ||
		perf_test_verb(o->test) == PERF_VERB_ATOMIC ? 1 : 2);
	for (i = 0; i < nb_rows; i++) {
		const struct perf_row *r = &rows[i];

		fprintf(f, "    {\"bytes\": %u, \"iterations\": %" PRIu64 ", \"retransmits\": %"
			PRIu64 ", \"naks_received\": %" PRIu64, r->size, r->iters, r->retransmits,
			r->naks);
		if (perf_test_is_lat(o->test))
			fprintf(f, ", \"samples\": %u, \"t_min_us\": %.3f, \"t_max_us\": %.3f, "
				"\"t_typical_us\": %.3f, \"t_avg_us\": %.3f, \"t_stdev_us\": %.3f, "
				"\"p50_us\": %.3f, \"p99_us\": %.3f, \"p999_us\": %.3f, "
				"\"max_us\": %.3f",
				r->lat.samples, r->lat.min, r->lat.max, r->lat.p50, r->lat.avg,
				r->lat.stdev, r->lat.p50, r->lat.p99, r->lat.p999, r->lat.max);
		else
			fprintf(f, ", \"bw_peak\": %.3f, \"bw_avg\": %.3f, \"msg_rate_mpps\": %.6f, "
				"\"gbps\": %.4f, \"from_peer\": %s",
				r->bw_peak, r->bw_avg, r->msg_rate, r->gbps,
				r->from_peer ? "true" : "false");
		fprintf(f, "}%s\n", i + 1 < nb_rows ? "," : "");
	}
	fprintf(f, "  ]");
	/* The whole run's, exchange included: the device was opened for it. */
	if (s->dev != NULL && prdma_dev_counters_get(s->dev, &c) == 0) {
		fprintf(f, ",\n  \"counters\": {");
		for (i = 0; i < RTE_DIM(loss_counters); i++)
			fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", loss_counters[i].json,
				c.value[loss_counters[i].cnt]);
		fprintf(f, ", \"timeouts\": %" PRIu64 "}", qp_timeouts(s));
	}
	fprintf(f, "\n}\n");
	if (fclose(f) != 0)
		return -errno;
	return 0;
}
