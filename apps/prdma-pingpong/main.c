/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-pingpong [EAL args] -- rc|uc|ud|srq [the tool's options] [server]
 *
 * As ibv_<kind>_pingpong: open the device, post the receives, exchange
 * the addresses over TCP, connect, ping-pong -n messages of -s bytes,
 * print the tool's two result lines; --chk checks the data.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "pp.h"
#include "pp_run.h"

RTE_LOG_REGISTER_DEFAULT(pp_logtype, INFO);

enum { OPT_DEVARGS = 256, OPT_DMAC, OPT_TIMEOUT };

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL args] -- rc|uc|ud|srq [options] [server]\n"
		"  the options of ibv_rc/uc/ud/srq_pingpong (rdma-core 44):\n"
		"  -p, --port=N       TCP port (default 18515)\n"
		"  -i, --ib-port=N    port of the device (only 1)\n"
		"  -s, --size=N       message size (default 4096; ud 1024)\n"
		"  -m, --mtu=N        path MTU 256..4096 (default 1024; not ud)\n"
		"  -q, --num_qp=N     QPs (srq only, default 16)\n"
		"  -r, --rx-depth=N   receives posted at a time (default 500)\n"
		"  -n, --iters=N      exchanges (default 1000)\n"
		"  -l, --sl=N         service level\n"
		"  -g, --gid-idx=N    local GID index (needed on RoCE)\n"
		"  -c, --chk          check the received data\n"
		"  prdma's own:\n"
		"      --devargs STR  the device (e.g. roce:port=0,ip=10.0.0.1)\n"
		"      --dmac MAC     the peer's MAC (links without ARP)\n"
		"      --timeout S    give up after S seconds without progress (30)\n", prog);
}

static int
parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || x < min || x > max)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

static int
mtu_enum(uint32_t bytes)
{
	switch (bytes) {
	case 256: return PRDMA_MTU_256;
	case 512: return PRDMA_MTU_512;
	case 1024: return PRDMA_MTU_1024;
	case 2048: return PRDMA_MTU_2048;
	case 4096: return PRDMA_MTU_4096;
	default: return -1;
	}
}

#define BAD(...) do { \
		fprintf(stderr, "prdma-pingpong: " __VA_ARGS__); \
		fputc('\n', stderr); \
		return -EINVAL; \
	} while (0)

int
pp_opts_parse(struct pp_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "ib-dev", required_argument, NULL, 'd' },
		{ "ib-port", required_argument, NULL, 'i' },
		{ "size", required_argument, NULL, 's' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "num_qp", required_argument, NULL, 'q' },
		{ "rx-depth", required_argument, NULL, 'r' },
		{ "iters", required_argument, NULL, 'n' },
		{ "sl", required_argument, NULL, 'l' },
		{ "gid-idx", required_argument, NULL, 'g' },
		{ "chk", no_argument, NULL, 'c' },
		{ "events", no_argument, NULL, 'e' },
		{ "devargs", required_argument, NULL, OPT_DEVARGS },
		{ "dmac", required_argument, NULL, OPT_DMAC },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t v;
	int c, size_set = 0, m;

	memset(o, 0, sizeof(*o));
	o->port = PP_DEFAULT_PORT;
	o->size = 4096;
	o->mtu = PRDMA_MTU_1024;
	o->rx_depth = 500;
	o->iters = 1000;
	o->gidx = -1;
	o->num_qp = 16;
	o->timeout_s = 30;
	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(argc < 2 ? stderr : stdout, argv[0]);
		if (argc < 2)
			return -EINVAL;
		return 1;
	}
	if (strcmp(argv[1], "rc") == 0)
		o->kind = PP_RC;
	else if (strcmp(argv[1], "uc") == 0)
		o->kind = PP_UC;
	else if (strcmp(argv[1], "ud") == 0)
		o->kind = PP_UD;
	else if (strcmp(argv[1], "srq") == 0)
		o->kind = PP_SRQ;
	else
		BAD("unknown kind '%s': name one of rc uc ud srq", argv[1]);
	optind = 2;
	while ((c = getopt_long(argc, argv, "p:d:i:s:m:q:r:n:l:g:ceh", longs, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_u32(optarg, 1, 65535, &v) < 0)
				BAD("-p %s: a TCP port", optarg);
			o->port = (uint16_t)v;
			break;
		case 'd':
			break;    /* the device is --devargs' */
		case 'i':
			if (parse_u32(optarg, 1, 1, &v) < 0)
				BAD("-i %s: the device has port 1 only", optarg);
			break;
		case 's':
			if (parse_u32(optarg, 1, 1u << 30, &v) < 0)
				BAD("-s %s: a size from 1 byte", optarg);
			o->size = v;
			size_set = 1;
			break;
		case 'm':
			if (parse_u32(optarg, 256, 4096, &v) < 0 || (m = mtu_enum(v)) < 0)
				BAD("-m %s: 256, 512, 1024, 2048 or 4096", optarg);
			o->mtu = (uint8_t)m;
			break;
		case 'q':
			if (parse_u32(optarg, 1, PP_MAX_QP, &v) < 0)
				BAD("-q %s: 1 to %d QPs", optarg, PP_MAX_QP);
			o->num_qp = v;
			break;
		case 'r':
			if (parse_u32(optarg, 1, 65536, &v) < 0)
				BAD("-r %s: 1 to 65536 receives", optarg);
			o->rx_depth = v;
			break;
		case 'n':
			if (parse_u32(optarg, 1, UINT32_MAX, &v) < 0)
				BAD("-n %s: at least 1 exchange", optarg);
			o->iters = v;
			break;
		case 'l':
			if (parse_u32(optarg, 0, 15, &v) < 0)
				BAD("-l %s: a service level 0..15", optarg);
			o->sl = (uint8_t)v;
			break;
		case 'g':
			if (parse_u32(optarg, 0, 255, &v) < 0)
				BAD("-g %s: a GID index", optarg);
			o->gidx = (int)v;
			break;
		case 'c':
			o->chk = 1;
			break;
		case 'e':
			BAD("-e (CQ events) is not supported: prdma polls");
		case OPT_DEVARGS:
			o->devargs = optarg;
			break;
		case OPT_DMAC:
			if (rte_ether_unformat_addr(optarg, &o->dmac) < 0)
				BAD("--dmac %s: a MAC address", optarg);
			o->dmac_set = 1;
			break;
		case OPT_TIMEOUT:
			if (parse_u32(optarg, 1, 3600, &v) < 0)
				BAD("--timeout %s: 1 to 3600 seconds", optarg);
			o->timeout_s = v;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 1;
		default:
			return -EINVAL;
		}
	}
	if (optind == argc - 1)
		o->host = argv[optind];
	else if (optind < argc)
		BAD("one server name at most");
	if (o->devargs == NULL)
		BAD("give the device with --devargs");
	if (o->kind == PP_UD && !size_set)
		o->size = 1024;
	if (o->kind == PP_SRQ && o->num_qp > o->rx_depth)
		BAD("rx_depth %u is too small for %u qps -- must have at least one receive "
		    "per qp", o->rx_depth, o->num_qp);
	return 0;
}

static int
do_connect(void *arg)
{
	void **a = arg;

	return pp_connect(a[0], a[1], a[2]);
}

static void
show(const char *which, const struct pp_dest *d)
{
	char gid[INET6_ADDRSTRLEN];

	/* The tools print the GID with inet_ntop, e.g. ::ffff:10.99.0.3. */
	if (inet_ntop(AF_INET6, d->gid.raw, gid, sizeof(gid)) == NULL)
		snprintf(gid, sizeof(gid), "?");
	printf("  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n", which, d->lid, d->qpn,
	       d->psn, gid);
}

static int
run(const struct pp_opts *o)
{
	static struct pp_dest mine[PP_SRQ_MSGS], peer[PP_SRQ_MSGS];
	unsigned int nmsg = o->kind == PP_SRQ ? PP_SRQ_MSGS : 1;
	struct pp_ctx c;
	void *args[3];
	uint32_t i;
	double bytes;
	int ret, routs, ret2;

	ret = pp_ctx_open(&c, o);
	if (ret < 0)
		goto out;
	/* Receives before the exchange, as the tools: none is ever missing. */
	routs = pp_post_recv(&c, o->rx_depth);
	if (routs < (int)o->rx_depth) {
		PP_LOG(ERR, "Couldn't post receive (%d)", routs);
		ret = -ENOMEM;
		goto out;
	}
	memset(mine, 0, sizeof(mine));
	pp_my_dests(&c, mine);
	for (i = 0; i < c.nqp; i++)
		show("local address: ", &mine[i]);
	args[0] = &c;
	args[1] = mine;
	args[2] = peer;
	ret = pp_exchange(o, mine, peer, nmsg, c.dev, do_connect, args);
	if (ret < 0)
		goto out;
	for (i = 0; i < c.nqp; i++)
		show("remote address:", &peer[i]);
	if (o->host != NULL) {
		ret = pp_connect(&c, mine, peer);
		if (ret < 0)
			goto out;
	}
	ret = pp_run(&c, routs);
	if (ret < 0)
		goto out;
	bytes = (double)o->size * o->iters * 2;
	printf("%.0f bytes in %.2f seconds = %.2f Mbit/sec\n", bytes, c.usec / 1e6,
	       bytes * 8 / c.usec);
	printf("%u iters in %.2f seconds = %.2f usec/iter\n", o->iters, c.usec / 1e6,
	       c.usec / o->iters);
	if (o->host == NULL && o->chk)
		ret = pp_check(&c);
out:
	ret2 = pp_ctx_close(&c);
	return ret == 0 ? ret2 : ret;
}

int
main(int argc, char **argv)
{
	struct pp_opts o;
	uint16_t pid;
	int ret, nargs;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "prdma-pingpong: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	nargs = ret;
	argv[nargs] = argv[0];
	ret = pp_opts_parse(&o, argc - nargs, argv + nargs);
	if (ret != 0) {
		rte_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	ret = run(&o);
	RTE_ETH_FOREACH_DEV(pid)
		rte_eth_dev_close(pid);
	rte_eal_cleanup();
	if (ret < 0) {
		fprintf(stderr, "prdma-pingpong: failed: %s\n", rte_strerror(-ret));
		return 1;
	}
	return 0;
}
