/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"

#define DEMO_MAX_MSG (1u << 30)

void
demo_opts_usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [EAL args] -- [options]\n"
		"  --sizes LIST      message sizes: \"8-1M\" (powers of two) or \"64,4096,65536\"\n"
		"                    (suffixes K, M; default 8-1M)\n"
		"  --iters N         write ping-pong round trips per size up to 4 KiB;\n"
		"                    larger sizes scale down to --min-iters (default 1000)\n"
		"  --min-iters N     floor of the scaled iterations (default 20)\n"
		"  --bw-bytes N      bytes moved per size and operation (default 32M)\n"
		"  --bw-max-msgs N   cap on messages per bandwidth run (default 20000)\n"
		"  --window N        outstanding requests in bandwidth runs (default 32)\n"
		"  --no-bw           skip the bandwidth runs\n"
		"  --devargs-a STR   device A (default: roce on ring port 0, ip 192.0.2.1)\n"
		"  --devargs-b STR   device B (default: roce on ring port 1, ip 192.0.2.2);\n"
		"                    with these the raw baseline is skipped\n"
		"  --pcap PREFIX     capture each device's frames to PREFIX-a.pcap, PREFIX-b.pcap\n"
		"  --json FILE       write the results as JSON\n"
		"  --timeout S       seconds without completion before a run fails (default 20)\n",
		prog);
}

static int
parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0' || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'g':
	case 'G':
		v <<= 30;
		end++;
		break;
	default:
		break;
	}
	if (*end != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

static int
parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (parse_u64(s, &v) < 0 || v < min || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int
parse_sizes(struct demo_opts *o, const char *arg)
{
	char buf[512], *tok, *save = NULL, *dash;
	uint64_t lo, hi, s;

	if (strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	o->nb_sizes = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		dash = strchr(tok, '-');
		if (dash != NULL) {
			*dash = '\0';
			if (parse_u64(tok, &lo) < 0 || parse_u64(dash + 1, &hi) < 0 ||
			    lo == 0 || hi < lo || hi > DEMO_MAX_MSG)
				return -EINVAL;
			for (s = lo; s <= hi; s *= 2) {
				if (o->nb_sizes == DEMO_MAX_SIZES)
					return -E2BIG;
				o->sizes[o->nb_sizes++] = (uint32_t)s;
			}
			continue;
		}
		if (parse_u64(tok, &s) < 0 || s == 0 || s > DEMO_MAX_MSG)
			return -EINVAL;
		if (o->nb_sizes == DEMO_MAX_SIZES)
			return -E2BIG;
		o->sizes[o->nb_sizes++] = (uint32_t)s;
	}
	return o->nb_sizes == 0 ? -EINVAL : 0;
}

int
demo_opts_parse(struct demo_opts *o, int argc, char **argv)
{
	enum {
		O_SIZES = 256, O_ITERS, O_MIN_ITERS, O_BW_BYTES, O_BW_MAX, O_WINDOW,
		O_NO_BW, O_DEV_A, O_DEV_B, O_PCAP, O_JSON, O_TIMEOUT, O_HELP,
	};
	static const struct option lopts[] = {
		{ "sizes", required_argument, NULL, O_SIZES },
		{ "iters", required_argument, NULL, O_ITERS },
		{ "min-iters", required_argument, NULL, O_MIN_ITERS },
		{ "bw-bytes", required_argument, NULL, O_BW_BYTES },
		{ "bw-max-msgs", required_argument, NULL, O_BW_MAX },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "no-bw", no_argument, NULL, O_NO_BW },
		{ "devargs-a", required_argument, NULL, O_DEV_A },
		{ "devargs-b", required_argument, NULL, O_DEV_B },
		{ "pcap", required_argument, NULL, O_PCAP },
		{ "json", required_argument, NULL, O_JSON },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	const char *bad = NULL;
	char *end;
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	parse_sizes(o, "8-1M");
	o->iters = 1000;
	o->min_iters = 20;
	o->bw_bytes = 32u << 20;
	o->bw_max_msgs = 20000;
	o->window = 32;
	o->timeout_s = 20.0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case O_SIZES:
			ret = parse_sizes(o, optarg);
			bad = "--sizes";
			break;
		case O_ITERS:
			ret = parse_u32(optarg, 1, 100000000, &o->iters);
			bad = "--iters";
			break;
		case O_MIN_ITERS:
			ret = parse_u32(optarg, 1, 100000000, &o->min_iters);
			bad = "--min-iters";
			break;
		case O_BW_BYTES:
			ret = parse_u64(optarg, &o->bw_bytes);
			if (ret == 0 && o->bw_bytes == 0)
				ret = -EINVAL;
			bad = "--bw-bytes";
			break;
		case O_BW_MAX:
			ret = parse_u32(optarg, 1, 100000000, &o->bw_max_msgs);
			bad = "--bw-max-msgs";
			break;
		case O_WINDOW:
			ret = parse_u32(optarg, 1, DEMO_SQ_DEPTH / 2, &o->window);
			bad = "--window";
			break;
		case O_NO_BW:
			o->no_bw = 1;
			break;
		case O_DEV_A:
			o->devargs_a = optarg;
			break;
		case O_DEV_B:
			o->devargs_b = optarg;
			break;
		case O_PCAP:
			o->pcap_prefix = optarg;
			break;
		case O_JSON:
			o->json_path = optarg;
			break;
		case O_TIMEOUT:
			o->timeout_s = strtod(optarg, &end);
			if (*end != '\0' || !(o->timeout_s > 0 && o->timeout_s < 3600))
				ret = -EINVAL;
			bad = "--timeout";
			break;
		case O_HELP:
			demo_opts_usage(stdout, argv[0]);
			return 1;
		default:
			demo_opts_usage(stderr, argv[0]);
			return -EINVAL;
		}
		if (ret < 0) {
			fprintf(stderr, "prdma-demo: bad value for %s: \"%s\"\n", bad, optarg);
			return ret;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "prdma-demo: unexpected argument \"%s\"\n", argv[optind]);
		return -EINVAL;
	}
	if ((o->devargs_a == NULL) != (o->devargs_b == NULL)) {
		fprintf(stderr, "prdma-demo: give both --devargs-a and --devargs-b, or neither\n");
		return -EINVAL;
	}
	if (o->min_iters > o->iters)
		o->min_iters = o->iters;
	return 0;
}

uint32_t
demo_lat_iters(const struct demo_opts *o, uint32_t size)
{
	uint64_t n = o->iters;

	if (size > 4096)
		n = n * 4096 / size;
	return n < o->min_iters ? o->min_iters : (uint32_t)n;
}

uint32_t
demo_bw_msgs(const struct demo_opts *o, uint32_t size)
{
	uint64_t n = o->bw_bytes / size;

	if (n > o->bw_max_msgs)
		n = o->bw_max_msgs;
	if (n < o->window * 2u)
		n = o->window * 2u;
	return (uint32_t)n;
}
