/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-packet-pipeline: ethdev packets batched into RDMA WRITEs into a
 * ring in the consumer's memory.
 *
 *   packet-pipeline [EAL args] -- [--packets N] [--drop-on-full]
 *                   [--producer DEVARGS] [--consumer DEVARGS] [--timeout S]
 *
 * The producer (source port, generator, WRITEs) runs on the main lcore and
 * the consumer on the next. The run passes (exit 0) when every packet that
 * was not counted as a drop reached the consumer intact and in order, and,
 * without --drop-on-full (back-pressure instead), nothing was dropped.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "app_run.h"
#include "pp.h"

static void
usage(const char *prog)
{
	printf("usage: %s [EAL args] -- [--packets N] [--drop-on-full]\n"
	       "       [--producer DEVARGS] [--consumer DEVARGS] [--timeout SECONDS]\n", prog);
}

static int
parse_args(int argc, char **argv, struct pp_conf *conf, const char **devargs)
{
	static const struct option opts[] = {
		{ "packets", required_argument, NULL, 'n' },
		{ "drop-on-full", no_argument, NULL, 'd' },
		{ "producer", required_argument, NULL, 'p' },
		{ "consumer", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
		case 't':
			if (ex_parse_u64(optarg, 1, c == 'n' ? 1000000000 : 3600, &v) < 0) {
				EX_ERR("bad value '%s'", optarg);
				return -EINVAL;
			}
			if (c == 'n')
				conf->packets = v;
			else
				conf->timeout_s = (double)v;
			break;
		case 'd':
			conf->drop_on_full = 1;
			break;
		case 'p':
			devargs[0] = optarg;
			break;
		case 'c':
			devargs[1] = optarg;
			break;
		default:
			usage(argv[0]);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		usage(argv[0]);
		return -EINVAL;
	}
	return 0;
}

static int
pp_end_open(struct pp_end *e, const char *devargs, size_t mem_len)
{
	if (ex_rc_end_open(&e->rc, devargs, PP_SQ_DEPTH, PP_RQ_DEPTH, 64) < 0)
		return -1;
	/* The consumer reads a slot once the producer index says it is
	 * written: that holds only if the WRITEs land in order. */
	if (!(e->rc.d.attr.flags & PRDMA_DEV_CAP_IN_ORDER_DMA)) {
		EX_ERR("%s does not place data in order; this ring protocol needs it",
		       devargs);
		return -1;
	}
	if (ex_buf_alloc(&e->rc.d, &e->mem, mem_len,
			 PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE) < 0 ||
	    ex_buf_alloc(&e->rc.d, &e->small, RTE_CACHE_LINE_SIZE, PRDMA_ACCESS_LOCAL_WRITE) < 0)
		return -1;
	return 0;
}

static void
pp_end_close(struct pp_end *e)
{
	struct ex_buf *const bufs[] = { &e->mem, &e->small };

	ex_rc_end_close(&e->rc, bufs, RTE_DIM(bufs));
}

static int
pp_setup(struct pp_end *pe, struct pp_end *ce, const char *const devargs[2])
{
	uint32_t i;

	if (pp_end_open(pe, devargs[0], sizeof(struct pp_stage_mem)) < 0 ||
	    pp_end_open(ce, devargs[1], sizeof(struct pp_ring_mem)) < 0)
		return -1;
	if (ex_rc_connect_pair(&pe->rc, &ce->rc, 0x300, 0x400) < 0)
		return -1;
	/* Only the producer receives anything: the credit notifications. */
	for (i = 0; i < PP_RQ_DEPTH; i++) {
		if (ex_post_recv(pe->rc.qp, 0, NULL, 0, 0) < 0) {
			EX_ERR("posting receives: %s", rte_strerror(rte_errno));
			return -1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *devargs[2] = { "roce:ring=pp,side=0,ip=192.0.2.1",
				   "roce:ring=pp,side=1,ip=192.0.2.2" };
	struct pp_conf conf = { .packets = 200000, .timeout_s = 60 };
	struct pp_end pe, ce;
	struct pp_source src;
	struct pp_producer p;
	struct pp_consumer c;
	struct app_runner r;
	double secs;
	int ret, ok = 0;

	if (ex_eal_init(&argc, &argv) < 0)
		return EXIT_FAILURE;
	memset(&pe, 0, sizeof(pe));
	memset(&ce, 0, sizeof(ce));
	memset(&src, 0, sizeof(src));
	pe.rc.d.id = ce.rc.d.id = -1;       /* nothing to remove yet */
	src.port = RTE_MAX_ETHPORTS;
	if (parse_args(argc, argv, &conf, devargs) < 0)
		goto out;
	if (pp_source_open(&src) < 0 || pp_setup(&pe, &ce, devargs) < 0)
		goto out;

	memset(&p, 0, sizeof(p));
	memset(&c, 0, sizeof(c));
	p.e = &pe;
	p.src = &src;
	p.conf = &conf;
	p.remote_addr = (uintptr_t)ce.mem.p;
	p.remote_rkey = ce.mem.mr->rkey;
	c.e = &ce;
	c.p = &p;
	c.remote_addr = (uintptr_t)&((struct pp_stage_mem *)pe.mem.p)->cons;
	c.remote_rkey = pe.mem.mr->rkey;

	printf("packet pipeline: %" PRIu64 " packets from ethdev port %u, %d slots of %d "
	       "bytes, %s\n", conf.packets, src.port, PP_RING_SLOTS, PP_SLOT_SIZE,
	       conf.drop_on_full ? "drop on full" : "back-pressure");
	app_runner_init(&r, conf.timeout_s);
	ret = app_run_pair(&r, pp_producer_step, &p, pp_consumer_step, &c);
	if (ret < 0) {
		EX_ERR("run failed: %s (generated %" PRIu64 ", written %" PRIu64
		       ", consumed %" PRIu64 ")", rte_strerror(-ret), src.generated, p.prod,
		       c.cons);
		goto out;
	}
	secs = ex_tsc_to_us(c.last_tsc - c.first_tsc) / 1e6;
	printf("consumed: %" PRIu64 " packets, %" PRIu64 " bytes in %.3f s: %.0f packets/s, "
	       "%.1f Mbit/s\n", c.cons, c.bytes, secs, secs > 0 ? c.cons / secs : 0.0,
	       secs > 0 ? c.bytes * 8 / secs / 1e6 : 0.0);
	printf("producer: %" PRIu64 " batches, %" PRIu64 " WRITEs, source ring full %" PRIu64
	       " times\n", p.batches, p.posted, src.src_full);
	printf("drops: %" PRIu64 " (no credit %" PRIu64 ", oversize %" PRIu64 "), bad %"
	       PRIu64 "\n", p.drops + p.oversize, p.drops, p.oversize, c.bad);
	ok = c.bad == 0 && src.generated == conf.packets &&
	     c.cons + p.drops + p.oversize == conf.packets &&
	     (conf.drop_on_full || p.drops + p.oversize == 0);
out:
	printf("result: %s\n", ok ? "PASS" : "FAIL");
	pp_end_close(&pe);
	pp_end_close(&ce);
	pp_source_close(&src);
	rte_eal_cleanup();
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
