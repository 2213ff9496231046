/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* prdma-nsdemo: options and dispatch (see nsdemo.h). */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "app_stats.h"
#include "nsdemo.h"

static void
usage(const char *prog)
{
	printf("usage: %s <EAL args> -- --mode cm|tcp|raw (--server | --connect <ip>)\n"
	       "  [--port <n>] [--iters <n>] [--size <bytes>] [--verify <bytes>]\n"
	       "  [--devargs <extra roce devargs>] [--peer-mac <mac>] [--timeout <s>]\n",
	       prog);
}

double
nsd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
nsd_report(const char *name, uint64_t *rtt, uint32_t n)
{
	struct app_lat l;

	app_lat_summary(rtt, n, 2, &l);
	printf("RESULT %s half-rtt-us p50=%.3f p99=%.3f p99.9=%.3f avg=%.3f samples=%u\n",
	       name, l.p50, l.p99, l.p999, l.avg, l.samples);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "server", no_argument, NULL, 's' },
		{ "connect", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' },
		{ "iters", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 'z' },
		{ "verify", required_argument, NULL, 'v' },
		{ "devargs", required_argument, NULL, 'd' },
		{ "peer-mac", required_argument, NULL, 'M' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct nsd_opts o;
	int ret, c;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "EAL init failed: %s (hugepages short? try --no-huge -m 512)\n",
			rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	memset(&o, 0, sizeof(o));
	o.mode = "cm";
	o.port = 7471;
	o.iters = 10000;
	o.size = 64;
	o.verify_len = 65536;
	o.timeout_s = 20;
	o.devargs = "";
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'm': o.mode = optarg; break;
		case 's': o.server = 1; break;
		case 'c': o.peer = optarg; break;
		case 'p': o.port = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'n': o.iters = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'z': o.size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'v': o.verify_len = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'd': o.devargs = optarg; break;
		case 't': o.timeout_s = strtod(optarg, NULL); break;
		case 'M':
			if (rte_ether_unformat_addr(optarg, &o.peer_mac) < 0) {
				fprintf(stderr, "--peer-mac %s: not a MAC address\n", optarg);
				return 2;
			}
			o.has_peer_mac = 1;
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if ((!o.server && o.peer == NULL) || o.iters == 0 || o.size < 8 || o.size > 1024 ||
	    o.verify_len > (1u << 20)) {
		usage(argv[0]);
		return 2;
	}
	if (strcmp(o.mode, "cm") == 0)
		ret = nsd_cm(&o);
	else if (strcmp(o.mode, "tcp") == 0)
		ret = nsd_tcp(&o);
	else if (strcmp(o.mode, "raw") == 0)
		ret = nsd_raw(&o);
	else {
		usage(argv[0]);
		ret = 2;
	}
	rte_eal_cleanup();
	return ret;
}
