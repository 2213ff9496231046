/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-demo [EAL args] -- [demo args]
 *
 * Builds two cross-connected net_ring ports, measures a raw ethdev
 * ping-pong on them, then runs RDMA WRITE latency and WRITE/READ/SEND
 * bandwidth between two RC QPs of the software RoCE provider on the same
 * ports, verifying the data of every size. Exit 0 only if everything ran
 * and every byte matched.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "demo.h"

RTE_LOG_REGISTER_DEFAULT(demo_logtype, INFO);

static void
devargs_build(char *buf, size_t len, const char *base, const char *prefix,
	      const char *side)
{
	if (prefix != NULL)
		snprintf(buf, len, "%s,pcap=%s-%s.pcap", base, prefix, side);
	else
		snprintf(buf, len, "%s", base);
}

static int
run_baseline(const struct app_runner *r, const struct demo_opts *o,
	     struct app_ports *ports, struct demo_result *res)
{
	struct demo_row *row;
	unsigned int i;
	int ret;

	for (i = 0; i < res->nb_rows; i++) {
		row = &res->rows[i];
		if (row->size > DEMO_RAW_MAX_PAYLOAD)
			continue;
		row->raw_frame = DEMO_WRITE_ONLY_OVERHEAD + RTE_ALIGN_CEIL(row->size, 4);
		ret = demo_raw_pingpong(r, ports, row->raw_frame,
					demo_lat_iters(o, row->size), &row->raw);
		if (ret < 0) {
			DEMO_LOG(ERR, "raw ping-pong of %u-byte frames failed: %s",
				 row->raw_frame, rte_strerror(-ret));
			return ret;
		}
		row->raw_done = 1;
	}
	return 0;
}

static int
run_rdma(const struct app_runner *r, const struct demo_opts *o, struct demo_ep *a,
	 struct demo_ep *b, struct demo_result *res)
{
	static const char *const op_name[DEMO_BW_NB] = { "WRITE", "READ", "SEND" };
	struct demo_row *row;
	unsigned int i, k;
	int ret, ok;

	for (i = 0; i < res->nb_rows; i++) {
		row = &res->rows[i];
		row->verified = 1;
		ret = demo_write_lat(r, a, b, row->size, demo_lat_iters(o, row->size),
				     &row->lat, &ok);
		if (ret < 0) {
			DEMO_LOG(ERR, "%u-byte WRITE ping-pong failed: %s", row->size,
				 rte_strerror(-ret));
			return ret;
		}
		row->lat_done = 1;
		row->verified &= ok;
		if (o->no_bw)
			continue;
		for (k = 0; k < DEMO_BW_NB; k++) {
			ret = demo_bandwidth(r, a, b, (enum demo_bw_op)k, row->size,
					     demo_bw_msgs(o, row->size), o->window,
					     &row->bw[k], &ok);
			if (ret < 0) {
				DEMO_LOG(ERR, "%u-byte %s bandwidth failed: %s", row->size,
					 op_name[k], rte_strerror(-ret));
				return ret;
			}
			row->bw_done[k] = 1;
			row->verified &= ok;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	char da[256], db[256], base[128];
	struct app_ports ports;
	struct app_runner runner;
	struct demo_opts o;
	struct demo_result res;
	struct demo_ep a, b;
	uint32_t max_size = 0;
	unsigned int i;
	int ret, nargs, failed = 0;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "prdma-demo: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	nargs = ret;
	argv[nargs] = argv[0];
	ret = demo_opts_parse(&o, argc - nargs, argv + nargs);
	if (ret != 0) {
		rte_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	memset(&res, 0, sizeof(res));
	memset(&ports, 0, sizeof(ports));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.dev_id = b.dev_id = -1;
	res.nb_rows = o.nb_sizes;
	for (i = 0; i < o.nb_sizes; i++) {
		res.rows[i].size = o.sizes[i];
		res.rows[i].verified = 1;
		max_size = RTE_MAX(max_size, o.sizes[i]);
	}
	res.tsc_hz = (double)rte_get_tsc_hz();
	app_runner_init(&runner, o.timeout_s);
	res.two_lcores = runner.lcore_b < RTE_MAX_LCORE;
	if (res.two_lcores)
		printf("prdma-demo: endpoint A on lcore %u, endpoint B on lcore %u\n",
		       rte_lcore_id(), runner.lcore_b);
	else
		printf("prdma-demo: only one lcore given: lcore %u drives both endpoints "
		       "in turn (give -l 0-1 for one lcore per endpoint)\n", rte_lcore_id());
	if (rte_eal_has_hugepages() == 0)
		printf("prdma-demo: no hugepages (--no-huge): buffers come from DPDK's "
		       "anonymous memory; figures are indicative\n");

	if (o.devargs_a == NULL) {
		ret = app_ports_create(&ports);
		if (ret < 0)
			goto out;
		printf("prdma-demo: ring ports %u and %u, cross-connected\n", ports.port[0],
		       ports.port[1]);
		ret = run_baseline(&runner, &o, &ports, &res);
		if (ret < 0)
			goto out;
		res.baseline = 1;
		app_ports_devargs(base, sizeof(base), &ports, 0, "192.0.2.1");
		devargs_build(da, sizeof(da), base, o.pcap_prefix, "a");
		app_ports_devargs(base, sizeof(base), &ports, 1, "192.0.2.2");
		devargs_build(db, sizeof(db), base, o.pcap_prefix, "b");
	} else {
		printf("prdma-demo: devices given with --devargs-a/-b: the raw ethdev "
		       "baseline is skipped\n");
		devargs_build(da, sizeof(da), o.devargs_a, o.pcap_prefix, "a");
		devargs_build(db, sizeof(db), o.devargs_b, o.pcap_prefix, "b");
	}
	res.dev_a = da;
	res.dev_b = db;
	ret = demo_ep_open(&a, da, max_size);
	if (ret == 0)
		ret = demo_ep_open(&b, db, max_size);
	/* Port mode cannot resolve MACs yet, so each side is told the other's. */
	if (ret == 0)
		ret = demo_ep_connect(&a, &b, 1);
	if (ret < 0)
		goto out;
	printf("prdma-demo: %s QPN 0x%06x <-> %s QPN 0x%06x connected (RC)\n", da,
	       a.qp->qp_num, db, b.qp->qp_num);
	ret = run_rdma(&runner, &o, &a, &b, &res);
out:
	if (ret < 0)
		failed = 1;
	for (i = 0; i < res.nb_rows; i++)
		if (!res.rows[i].verified)
			failed = 1;
	res.failed = failed;
	if (res.dev_a != NULL)
		demo_report_table(stdout, &res);
	if (o.json_path != NULL && demo_report_json(o.json_path, &res) < 0)
		failed = 1;
	if (demo_ep_close(&b) < 0 || demo_ep_close(&a) < 0)
		failed = 1;
	if (ports.created)
		app_ports_destroy(&ports);
	if (rte_eal_cleanup() < 0)
		failed = 1;
	if (failed)
		fprintf(stderr, "prdma-demo: FAILED%s\n", ret < 0 ? "" :
			" (data mismatch, see above)");
	else
		printf("prdma-demo: all sizes verified, clean teardown\n");
	return failed;
}
