/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

static const char *const test_names[PERF_TEST_NB] = {
	[PERF_WRITE_LAT] = "write_lat",
	[PERF_WRITE_BW] = "write_bw",
	[PERF_READ_LAT] = "read_lat",
	[PERF_READ_BW] = "read_bw",
	[PERF_SEND_LAT] = "send_lat",
	[PERF_SEND_BW] = "send_bw",
	[PERF_ATOMIC_LAT] = "atomic_lat",
	[PERF_ATOMIC_BW] = "atomic_bw",
	[PERF_RAW_LAT] = "raw_lat",
	[PERF_RAW_BW] = "raw_bw",
	[PERF_MEMCPY_BW] = "memcpy_bw",
};

const char *
perf_test_name(enum perf_test t)
{
	return t < PERF_TEST_NB ? test_names[t] : "?";
}

static const char *const conn_names[] = {
	[PERF_CONN_RC] = "RC",
	[PERF_CONN_UC] = "UC",
	[PERF_CONN_UD] = "UD",
};

const char *
perf_conn_name(enum perf_conn c)
{
	return (unsigned int)c < RTE_DIM(conn_names) ? conn_names[c] : "?";
}

int
perf_test_is_lat(enum perf_test t)
{
	return t == PERF_WRITE_LAT || t == PERF_READ_LAT || t == PERF_SEND_LAT ||
	       t == PERF_ATOMIC_LAT || t == PERF_RAW_LAT;
}

int
perf_test_is_raw(enum perf_test t)
{
	return t == PERF_RAW_LAT || t == PERF_RAW_BW || t == PERF_MEMCPY_BW;
}

enum perf_verb
perf_test_verb(enum perf_test t)
{
	switch (t) {
	case PERF_READ_LAT:
	case PERF_READ_BW:
		return PERF_VERB_READ;
	case PERF_SEND_LAT:
	case PERF_SEND_BW:
		return PERF_VERB_SEND;
	case PERF_ATOMIC_LAT:
	case PERF_ATOMIC_BW:
		return PERF_VERB_ATOMIC;
	default:
		return PERF_VERB_WRITE;
	}
}

void
perf_opts_usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [EAL args] -- <test> [options] [server host]\n"
		"  tests: write_lat write_bw read_lat read_bw send_lat send_bw atomic_lat atomic_bw\n"
		"  baselines (--loopback): raw_lat raw_bw: raw ethdev ping-pong and burst of\n"
		"         the frames a -s byte RDMA WRITE makes, on the same ring ports;\n"
		"         memcpy_bw: one core copying -s bytes -n times (rte_memcpy)\n"
		"  Without a host the program is the server; with one, the client.\n"
		"  -s, --size N           message size (default 2; 8 for atomic_*; 65536 for *_bw)\n"
		"  -a, --all              every size from 2 to 8M (powers of two)\n"
		"  -n, --iters N          iterations (default 1000 latency, 5000 bandwidth)\n"
		"  -D, --duration S       run for S seconds instead of -n\n"
		"  -I, --inline_size N    send messages up to N bytes inline\n"
		"  -q, --qp N             QPs (bandwidth tests; default 1)\n"
		"  -t, --tx-depth N       outstanding requests per QP (default 128 bw, 1 lat)\n"
		"  -r, --rx-depth N       receives posted per QP (send tests; default 512)\n"
		"  -Q, --cq-mod N         one signaled request in N (default 100)\n"
		"  -p, --port N           TCP port of the out-of-band exchange (default 18515)\n"
		"  -R, --rdma_cm          connect through the connection manager, no TCP\n"
		"  -c, --connection T     RC (default), UC (WRITE, SEND tests) or UD (SEND tests)\n"
		"  -x, --gid-index N      local GID index; without it perftest's rule: 0 on an\n"
		"                         Ethernet link, none on InfiniBand (59-byte keys)\n"
		"      --force-link L     treat the port as IB or Ethernet (perftest's flag)\n"
		"  -A, --atomic_type T    FETCH_AND_ADD (default) or CMP_AND_SWAP\n"
		"  -F                     accepted for perftest compatibility, ignored\n"
		"      --report_gbits     bandwidth in Gb/s instead of MB/s\n"
		"      --dont_xchg_versions  skip the version/system/MTU exchange\n"
		"      --loopback         both sides in this process on two lcores, no TCP\n"
		"      --devargs STR      device (twice with --loopback: server, client);\n"
		"                         default with --loopback: the embedded ring link\n"
		"      --raw-port N       raw_lat between processes on ethdev port N (a --vdev):\n"
		"                         the server echoes, the client (any host arg) pings\n"
		"      --ethdev-ports     --loopback over two net_ring ethdevs made here, the\n"
		"                         provider in port mode (the raw baselines' ports)\n"
		"      --dmac MAC         the peer's MAC (port mode has no ARP yet)\n"
		"      --json FILE        write the results as JSON\n"
		"      --oob-trace FILE   log every out-of-band message (direction, length, hex)\n"
		"      --samples FILE     latency tests: every sample, one-way us, one a line\n"
		"      --timeout S        give up after S seconds without progress (default 30)\n",
		prog);
}

static int
parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (s == NULL || *s == '\0' || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int
parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !(v >= min && v <= max))
		return -EINVAL;
	*out = v;
	return 0;
}

enum {
	OPT_REPORT_GBITS = 256,
	OPT_DONT_XCHG,
	OPT_LOOPBACK,
	OPT_ETHDEV_PORTS,
	OPT_RAW_PORT,
	OPT_DEVARGS,
	OPT_DMAC,
	OPT_JSON,
	OPT_OOB_TRACE,
	OPT_SAMPLES,
	OPT_TIMEOUT,
	OPT_FORCE_LINK,
	OPT_HELP,
};

static const struct option long_opts[] = {
	{ "size", required_argument, NULL, 's' },
	{ "all", no_argument, NULL, 'a' },
	{ "iters", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'D' },
	{ "inline_size", required_argument, NULL, 'I' },
	{ "qp", required_argument, NULL, 'q' },
	{ "tx-depth", required_argument, NULL, 't' },
	{ "rx-depth", required_argument, NULL, 'r' },
	{ "cq-mod", required_argument, NULL, 'Q' },
	{ "port", required_argument, NULL, 'p' },
	{ "rdma_cm", no_argument, NULL, 'R' },
	{ "gid-index", required_argument, NULL, 'x' },
	{ "connection", required_argument, NULL, 'c' },
	{ "force-link", required_argument, NULL, OPT_FORCE_LINK },
	{ "atomic_type", required_argument, NULL, 'A' },
	{ "report_gbits", no_argument, NULL, OPT_REPORT_GBITS },
	{ "dont_xchg_versions", no_argument, NULL, OPT_DONT_XCHG },
	{ "loopback", no_argument, NULL, OPT_LOOPBACK },
	{ "ethdev-ports", no_argument, NULL, OPT_ETHDEV_PORTS },
	{ "raw-port", required_argument, NULL, OPT_RAW_PORT },
	{ "devargs", required_argument, NULL, OPT_DEVARGS },
	{ "dmac", required_argument, NULL, OPT_DMAC },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "oob-trace", required_argument, NULL, OPT_OOB_TRACE },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

#define BAD(fmt, ...) do { \
		fprintf(stderr, "prdma-perf: " fmt "\n", ##__VA_ARGS__); \
		return -EINVAL; \
	} while (0)

static int
opts_check(struct perf_opts *o, int size_set, int depth_set)
{
	enum perf_verb v = perf_test_verb(o->test);

	if (!size_set)
		o->size = v == PERF_VERB_ATOMIC ? 8 : (perf_test_is_lat(o->test) ? 2 : 65536);
	if (v == PERF_VERB_ATOMIC && o->size != 8)
		BAD("%s moves 8 bytes: -s must be 8", perf_test_name(o->test));
	if (v == PERF_VERB_ATOMIC && o->all_sizes)
		BAD("%s has one size: -a is not allowed", perf_test_name(o->test));
	if (!o->iters_set)
		o->iters = perf_test_is_lat(o->test) ? 1000 : 5000;
	if (!depth_set)
		o->tx_depth = perf_test_is_lat(o->test) ? 1 : 128;
	if (perf_test_is_lat(o->test) && o->nqp != 1)
		BAD("latency tests use one QP (-q 1)");
	if (o->cq_mod > o->tx_depth)
		o->cq_mod = o->tx_depth;
	if (o->inline_size > 0 && v != PERF_VERB_WRITE && v != PERF_VERB_SEND)
		BAD("-I applies to WRITE and SEND tests only");
	if (o->loopback && o->host != NULL)
		BAD("--loopback runs both sides here: give no server host");
	if (!o->loopback && o->raw_port < 0 && o->nb_devargs != 1)
		BAD("give the device with --devargs (or run --loopback)");
	if (o->loopback && o->nb_devargs == 1)
		BAD("--loopback takes two --devargs (server, client) or none");
	if (o->raw_port >= 0 && o->test != PERF_RAW_LAT)
		BAD("--raw-port goes with raw_lat");
	if (perf_test_is_raw(o->test) && o->raw_port < 0 &&
	    (!o->loopback || o->nb_devargs != 0 || o->duration > 0))
		BAD("raw_lat, raw_bw and memcpy_bw run with --loopback on their own ports, with -n "
		    "(raw_lat also across processes with --raw-port)");
	if ((o->test == PERF_RAW_LAT || o->test == PERF_RAW_BW) && o->size > 1024)
		BAD("raw frames hold one packet: -s up to 1024");
	/* perftest's own words for the transports a verb cannot use. */
	if (o->conn == PERF_CONN_UC && (v == PERF_VERB_READ || v == PERF_VERB_ATOMIC))
		BAD("UC connection not possible in READ/ATOMIC verbs (%s)", perf_test_name(o->test));
	if (o->conn == PERF_CONN_UD && v != PERF_VERB_SEND)
		BAD("UD connection only possible in SEND verb (%s)", perf_test_name(o->test));
	if (o->conn != PERF_CONN_RC && perf_test_is_raw(o->test))
		BAD("-c applies to the RDMA tests, not to %s", perf_test_name(o->test));
	if (o->use_cm && o->conn == PERF_CONN_UC)
		BAD("UC is not supported in librdmacm (-R goes with RC or UD)");
	return 0;
}

int
perf_opts_parse(struct perf_opts *o, int argc, char **argv)
{
	int c, i, size_set = 0, depth_set = 0, test_set = 0;
	double d;

	memset(o, 0, sizeof(*o));
	o->nqp = 1;
	o->rx_depth = 512;
	o->cq_mod = 100;
	o->port = PERF_DEFAULT_PORT;
	o->timeout_s = 30;
	o->raw_port = -1;
	o->gid_index = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:an:D:I:q:t:r:Q:p:Rx:c:A:Fd:h", long_opts,
				NULL)) != -1) {
		uint32_t v;

		switch (c) {
		case 's':
			if (parse_u32(optarg, 1, PERF_MAX_SIZE, &o->size) < 0)
				BAD("bad -s '%s': 1..%u bytes", optarg, PERF_MAX_SIZE);
			size_set = 1;
			break;
		case 'a':
			o->all_sizes = 1;
			break;
		case 'n':
			if (parse_u32(optarg, 5, UINT32_MAX, &o->iters) < 0)
				BAD("bad -n '%s': at least 5 iterations", optarg);
			o->iters_set = 1;
			break;
		case 'D':
			if (parse_double(optarg, 0.01, 3600, &o->duration) < 0)
				BAD("bad -D '%s': seconds, 0.01..3600", optarg);
			break;
		case 'I':
			if (parse_u32(optarg, 0, 4096, &o->inline_size) < 0)
				BAD("bad -I '%s'", optarg);
			break;
		case 'q':
			if (parse_u32(optarg, 1, PERF_MAX_QP, &o->nqp) < 0)
				BAD("bad -q '%s': 1..%u QPs", optarg, PERF_MAX_QP);
			break;
		case 't':
			if (parse_u32(optarg, 1, 8192, &o->tx_depth) < 0)
				BAD("bad -t '%s': 1..8192", optarg);
			depth_set = 1;
			break;
		case 'r':
			if (parse_u32(optarg, 1, 8192, &o->rx_depth) < 0)
				BAD("bad -r '%s': 1..8192", optarg);
			break;
		case 'Q':
			if (parse_u32(optarg, 1, 8192, &o->cq_mod) < 0)
				BAD("bad -Q '%s': 1..8192", optarg);
			break;
		case 'p':
			if (parse_u32(optarg, 1, 65535, &v) < 0)
				BAD("bad -p '%s': a TCP port", optarg);
			o->port = (uint16_t)v;
			break;
		case 'R':
			o->use_cm = 1;
			break;
		case 'x':
			if (parse_u32(optarg, 0, 255, &v) < 0)
				BAD("bad -x '%s': a GID index", optarg);
			o->gid_index = (int)v;
			break;
		case 'c':
			if (strcmp(optarg, "RC") == 0)
				o->conn = PERF_CONN_RC;
			else if (strcmp(optarg, "UC") == 0)
				o->conn = PERF_CONN_UC;
			else if (strcmp(optarg, "UD") == 0)
				o->conn = PERF_CONN_UD;
			else
				BAD("bad -c '%s': RC, UC or UD", optarg);
			break;
		case OPT_FORCE_LINK:
			if (strcmp(optarg, "IB") == 0)
				o->force_link = PRDMA_LINK_LAYER_INFINIBAND;
			else if (strcmp(optarg, "Ethernet") == 0)
				o->force_link = PRDMA_LINK_LAYER_ETHERNET;
			else
				BAD("bad --force-link '%s': IB or Ethernet", optarg);
			break;
		case 'A':
			if (strcmp(optarg, "CMP_AND_SWAP") == 0)
				o->atomic_cas = 1;
			else if (strcmp(optarg, "FETCH_AND_ADD") == 0)
				o->atomic_cas = 0;
			else
				BAD("bad -A '%s': FETCH_AND_ADD or CMP_AND_SWAP", optarg);
			break;
		case 'F':
			break;
		case 'd':
		case OPT_DEVARGS:
			if (o->nb_devargs == PERF_MAX_DEVARGS)
				BAD("at most %d --devargs", PERF_MAX_DEVARGS);
			o->devargs[o->nb_devargs++] = optarg;
			break;
		case OPT_REPORT_GBITS:
			o->report_gbits = 1;
			break;
		case OPT_DONT_XCHG:
			o->dont_xchg_versions = 1;
			break;
		case OPT_LOOPBACK:
			o->loopback = 1;
			break;
		case OPT_ETHDEV_PORTS:
			o->ethdev_ports = 1;
			break;
		case OPT_RAW_PORT:
			if (parse_u32(optarg, 0, RTE_MAX_ETHPORTS - 1, &v) < 0)
				BAD("bad --raw-port '%s': an ethdev port id", optarg);
			o->raw_port = (int)v;
			break;
		case OPT_DMAC:
			if (rte_ether_unformat_addr(optarg, &o->dmac) < 0)
				BAD("bad --dmac '%s': xx:xx:xx:xx:xx:xx", optarg);
			o->dmac_set = 1;
			break;
		case OPT_JSON:
			o->json_path = optarg;
			break;
		case OPT_OOB_TRACE:
			o->oob_trace = optarg;
			break;
		case OPT_SAMPLES:
			o->samples_path = optarg;
			break;
		case OPT_TIMEOUT:
			if (parse_double(optarg, 0.1, 86400, &d) < 0)
				BAD("bad --timeout '%s'", optarg);
			o->timeout_s = d;
			break;
		case 'h':
		case OPT_HELP:
			perf_opts_usage(stdout, "prdma-perf");
			return 1;
		default:
			perf_opts_usage(stderr, "prdma-perf");
			return -EINVAL;
		}
	}
	for (i = optind; i < argc; i++) {
		int t, found = -1;

		for (t = 0; t < PERF_TEST_NB; t++) {
			const char *n = test_names[t];

			/* "ib_write_lat" and "write_lat" both name a test. */
			if (strcmp(argv[i], n) == 0 ||
			    (strncmp(argv[i], "ib_", 3) == 0 && strcmp(argv[i] + 3, n) == 0))
				found = t;
		}
		if (found >= 0 && !test_set) {
			o->test = (enum perf_test)found;
			test_set = 1;
		} else if (o->host == NULL && test_set) {
			o->host = argv[i];
		} else if (!test_set) {
			BAD("unknown test '%s': name a test: write_lat write_bw read_lat "
			    "read_bw send_lat send_bw atomic_lat atomic_bw", argv[i]);
		} else {
			BAD("unexpected argument '%s' (the test first, then the server host)",
			    argv[i]);
		}
	}
	if (!test_set)
		BAD("name a test: write_lat write_bw read_lat read_bw send_lat send_bw atomic_lat "
		    "atomic_bw");
	return opts_check(o, size_set, depth_set);
}
