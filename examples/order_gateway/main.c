/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-order-gateway: an order client and its gateway, one RC connection.
 *
 *   order-gateway [EAL args] -- [--orders N] [--window W]
 *                 [--client DEVARGS] [--gateway DEVARGS] [--timeout S]
 *
 * The client runs on the main lcore and the gateway on the next one. The
 * run passes (exit 0) when every order was acknowledged exactly once with
 * the right slot, order id and timestamp, and no completion failed.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "app_run.h"
#include "og.h"

static void
usage(const char *prog)
{
	printf("usage: %s [EAL args] -- [--orders N] [--window 1-%d] [--client DEVARGS]\n"
	       "       [--gateway DEVARGS] [--timeout SECONDS]\n", prog, OG_MAX_WINDOW);
}

static int
parse_args(int argc, char **argv, struct og_conf *conf, const char **devargs)
{
	static const struct option opts[] = {
		{ "orders", required_argument, NULL, 'n' },
		{ "window", required_argument, NULL, 'w' },
		{ "client", required_argument, NULL, 'c' },
		{ "gateway", required_argument, NULL, 'g' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (ex_parse_u64(optarg, 1, 10000000, &v) < 0)
				goto bad;
			conf->orders = (uint32_t)v;
			break;
		case 'w':
			if (ex_parse_u64(optarg, 1, OG_MAX_WINDOW, &v) < 0)
				goto bad;
			conf->window = (uint32_t)v;
			break;
		case 'c':
			devargs[0] = optarg;
			break;
		case 'g':
			devargs[1] = optarg;
			break;
		case 't':
			if (ex_parse_u64(optarg, 1, 3600, &v) < 0)
				goto bad;
			conf->timeout_s = (double)v;
			break;
		default:
			usage(argv[0]);
			return -EINVAL;
		}
	}
	if (optind != argc)
		goto bad;
	return 0;
bad:
	EX_ERR("bad argument near '%s'", optind <= argc ? argv[optind - 1] : "");
	usage(argv[0]);
	return -EINVAL;
}

static void
og_end_close(struct og_end *e)
{
	struct ex_buf *const bufs[] = { &e->buf, &e->out };

	ex_rc_end_close(&e->rc, bufs, RTE_DIM(bufs));
}

static int
og_setup(struct og_end *cl, struct og_end *gw, const char *const devargs[2])
{
	uint32_t i;

	/* Only the client sends inline: its orders; the gateway WRITEs acks
	 * from registered memory. */
	if (ex_rc_end_open(&cl->rc, devargs[0], OG_SQ_DEPTH, OG_RQ_DEPTH, OG_ORDER_SIZE) < 0 ||
	    ex_rc_end_open(&gw->rc, devargs[1], OG_SQ_DEPTH, OG_RQ_DEPTH, 0) < 0)
		return -1;
	/* The client's ring is the only memory the gateway may write. */
	if (ex_buf_alloc(&cl->rc.d, &cl->buf, OG_RING_SLOTS * sizeof(struct og_ack),
			 PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE) < 0 ||
	    ex_buf_alloc(&gw->rc.d, &gw->buf, OG_RQ_DEPTH * OG_ORDER_SIZE,
			 PRDMA_ACCESS_LOCAL_WRITE) < 0 ||
	    ex_buf_alloc(&gw->rc.d, &gw->out, OG_OUT_SLOTS * sizeof(struct og_ack),
			 PRDMA_ACCESS_LOCAL_WRITE) < 0)
		return -1;
	if (ex_rc_connect_pair(&cl->rc, &gw->rc, 0x100, 0x200) < 0)
		return -1;
	/* Receives are accepted from INIT on; both sides post before any order. */
	for (i = 0; i < OG_RQ_DEPTH; i++) {
		if (ex_post_recv(cl->rc.qp, 0, NULL, 0, 0) < 0 ||
		    ex_post_recv(gw->rc.qp, i, gw->buf.p + i * OG_ORDER_SIZE, OG_ORDER_SIZE,
				 gw->buf.mr->lkey) < 0) {
			EX_ERR("posting the first receives: %s", rte_strerror(rte_errno));
			return -1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *devargs[2] = { "roce:ring=og,side=0,ip=192.0.2.1",
				   "roce:ring=og,side=1,ip=192.0.2.2" };
	struct og_conf conf = { .orders = 100000, .window = 1, .timeout_s = 60 };
	struct og_end cl, gw;
	struct og_client c;
	struct og_gateway g;
	struct app_runner r;
	uint64_t t0, t1;
	int ret, ok = 0;

	if (ex_eal_init(&argc, &argv) < 0)
		return EXIT_FAILURE;
	if (parse_args(argc, argv, &conf, devargs) < 0)
		goto out_eal;

	memset(&c, 0, sizeof(c));
	memset(&g, 0, sizeof(g));
	memset(&cl, 0, sizeof(cl));
	memset(&gw, 0, sizeof(gw));
	cl.rc.d.id = gw.rc.d.id = -1;       /* nothing to remove yet */
	c.rtt = calloc(conf.orders, sizeof(*c.rtt));
	c.sent_tsc = calloc(conf.orders, sizeof(*c.sent_tsc));
	if (c.rtt == NULL || c.sent_tsc == NULL) {
		EX_ERR("no memory for %" PRIu32 " samples", conf.orders);
		goto out_mem;
	}
	if (og_setup(&cl, &gw, devargs) < 0)
		goto out_close;
	c.e = &cl;
	c.conf = &conf;
	g.e = &gw;
	g.conf = &conf;
	g.ring_addr = (uintptr_t)cl.buf.p;
	g.ring_rkey = cl.buf.mr->rkey;

	printf("order gateway: %" PRIu32 " orders of %d bytes, window %" PRIu32
	       ", client %s, gateway %s\n", conf.orders, OG_ORDER_SIZE, conf.window,
	       devargs[0], devargs[1]);
	app_runner_init(&r, conf.timeout_s);
	t0 = rte_rdtsc();
	ret = app_run_pair(&r, og_client_step, &c, og_gateway_step, &g);
	t1 = rte_rdtsc();
	if (ret < 0) {
		EX_ERR("run failed: %s (sent %" PRIu32 ", acked %" PRIu32 ", served %" PRIu32 ")",
		       rte_strerror(-ret), c.sent, c.acked, g.served);
	} else {
		og_report(c.rtt, c.acked, ex_tsc_to_us(t1 - t0) / 1e6);
		printf("acks: %" PRIu32 " of %" PRIu32 ", bad %" PRIu32 ", rejected %" PRIu32
		       "\n", c.acked, conf.orders, c.bad_acks, g.rejected);
		ok = c.acked == conf.orders && c.bad_acks == 0 && g.served == conf.orders;
	}
	printf("result: %s\n", ok ? "PASS" : "FAIL");
out_close:
	og_end_close(&cl);
	og_end_close(&gw);
out_mem:
	free(c.rtt);
	free(c.sent_tsc);
out_eal:
	rte_eal_cleanup();
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
