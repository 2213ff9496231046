/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-market-data: a multicast tick feed and its subscribers.
 *
 *   market-data [EAL args] -- [--ticks N] [--subscribers 1-8] [--skip-every K]
 *               [--publisher DEVARGS] [--subscriber-dev DEVARGS] [--timeout S]
 *
 * The publisher runs on the main lcore; the subscribers, each a UD QP
 * attached to the group on the second device, are spread over the worker
 * lcores. --skip-every K makes the publisher leave out every K-th sequence
 * number, so the subscribers' gap detection has something to find. The run
 * passes (exit 0) when every subscriber saw exactly the gaps the publisher
 * made, nothing out of order, and the last tick.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "md.h"

static volatile int md_abort;

static int
parse_args(int argc, char **argv, struct md_conf *conf, const char **devargs)
{
	static const struct option opts[] = {
		{ "ticks", required_argument, NULL, 'n' },
		{ "subscribers", required_argument, NULL, 's' },
		{ "skip-every", required_argument, NULL, 'k' },
		{ "publisher", required_argument, NULL, 'p' },
		{ "subscriber-dev", required_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'p' || c == 'd') {
			devargs[c == 'd'] = optarg;
			continue;
		}
		if (c != 'n' && c != 's' && c != 'k' && c != 't')
			goto usage;
		if (ex_parse_u64(optarg, 0, UINT64_MAX, &v) < 0)
			goto usage;
		if (c == 'n' && v >= 1 && v <= 100000000)
			conf->ticks = v;
		else if (c == 's' && v >= 1 && v <= MD_MAX_SUBS)
			conf->subs = (uint32_t)v;
		else if (c == 'k' && v != 1 && v <= 1000000)
			conf->skip_every = (uint32_t)v;
		else if (c == 't' && v >= 1 && v <= 3600)
			conf->timeout_s = (double)v;
		else
			goto usage;
	}
	if (optind == argc)
		return 0;
usage:
	printf("usage: %s [EAL args] -- [--ticks N] [--subscribers 1-%d] [--skip-every K>1]\n"
	       "       [--publisher DEVARGS] [--subscriber-dev DEVARGS] [--timeout S]\n",
	       argv[0], MD_MAX_SUBS);
	return -EINVAL;
}

/* The group in the publisher's address family. */
static void
md_group(const struct ex_dev *d, union prdma_gid *g)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (memcmp(d->gid.raw, v4mapped, sizeof(v4mapped)) == 0)
		prdma_gid_from_ipv4(g, 0xef4d4401u);              /* 239.77.68.1 */
	else
		prdma_gid_from_str(g, "ff0e::4d44:1");
}

static int
md_setup(struct md_pub *p, struct md_sub *subs, struct ex_dev *da, struct ex_dev *db,
	 const struct md_conf *conf, const union prdma_gid *g)
{
	struct prdma_ah_attr aa;
	uint32_t i;

	p->cq = ex_cq_create(da, MD_SQ_DEPTH);
	if (p->cq == NULL)
		return -1;
	p->qp = ex_qp_create(da, PRDMA_QPT_UD, p->cq, p->cq, MD_SQ_DEPTH, 1,
			     sizeof(struct md_tick));
	if (p->qp == NULL || ex_ud_up(p->qp, MD_QKEY, 0x10) < 0)
		return -1;
	/* An AH to the group: the provider sends to the group's IP and MAC. */
	memset(&aa, 0, sizeof(aa));
	aa.dgid = *g;
	aa.port_num = 1;
	p->ah = prdma_ah_create(da->pd, &aa);
	if (p->ah == NULL) {
		EX_ERR("AH to the group: %s", rte_strerror(rte_errno));
		return -1;
	}
	for (i = 0; i < conf->subs; i++) {
		struct md_sub *s = &subs[i];

		s->id = i;
		s->d = db;
		s->lat = calloc(conf->ticks, sizeof(*s->lat));
		s->cq = ex_cq_create(db, MD_RQ_DEPTH);
		if (s->lat == NULL || s->cq == NULL)
			return -1;
		s->qp = ex_qp_create(db, PRDMA_QPT_UD, s->cq, s->cq, 1, MD_RQ_DEPTH, 0);
		if (s->qp == NULL || ex_ud_up(s->qp, MD_QKEY, 0x20) < 0 ||
		    ex_buf_alloc(db, &s->buf, (size_t)MD_RQ_DEPTH * MD_SLOT,
				 PRDMA_ACCESS_LOCAL_WRITE) < 0)
			return -1;
		if (md_sub_post_all(s) < 0) {
			EX_ERR("subscriber %u: posting receives: %s", i, rte_strerror(rte_errno));
			return -1;
		}
		if (prdma_qp_attach_mcast(s->qp, g) < 0) {
			EX_ERR("subscriber %u: joining the group: %s", i, rte_strerror(rte_errno));
			return -1;
		}
	}
	return 0;
}

static void
md_teardown(struct md_pub *p, struct md_sub *subs, const struct md_conf *conf,
	    const union prdma_gid *g)
{
	uint32_t i;

	for (i = 0; i < conf->subs; i++) {
		if (subs[i].qp != NULL) {
			prdma_qp_detach_mcast(subs[i].qp, g);
			prdma_qp_destroy(subs[i].qp);
		}
		ex_buf_free(&subs[i].buf);
		if (subs[i].cq != NULL)
			prdma_cq_destroy(subs[i].cq);
		free(subs[i].lat);
	}
	if (p->ah != NULL)
		prdma_ah_destroy(p->ah);
	if (p->qp != NULL)
		prdma_qp_destroy(p->qp);
	if (p->cq != NULL)
		prdma_cq_destroy(p->cq);
}

static int
md_report(const struct md_pub *p, struct md_sub *subs, const struct md_conf *conf)
{
	char label[32];
	double secs;
	uint32_t i;
	int ok = 1;

	printf("publisher: %" PRIu64 " ticks sent, %" PRIu64 " sequence numbers skipped on "
	       "purpose\n", p->sent, p->skipped);
	for (i = 0; i < conf->subs; i++) {
		struct md_sub *s = &subs[i];

		secs = ex_tsc_to_us(s->last_tsc - s->first_tsc) / 1e6;
		printf("subscriber %u: %" PRIu64 " ticks, gaps %" PRIu64 " (expected %" PRIu64
		       "), bad %" PRIu64 ", %.0f ticks/s\n", i, s->received, s->gaps,
		       p->skipped, s->bad, secs > 0 ? s->received / secs : 0.0);
		snprintf(label, sizeof(label), "subscriber %u one-way", i);
		ex_print_latency(label, s->lat, (uint32_t)s->received);
		if (s->gaps != p->skipped || s->bad != 0 || s->received != p->sent ||
		    s->next_seq != conf->ticks)
			ok = 0;
	}
	return ok;
}

int
main(int argc, char **argv)
{
	const char *devargs[2] = { "roce:ring=md,side=0,ip=192.0.2.1",
				   "roce:ring=md,side=1,ip=192.0.2.2" };
	struct md_conf conf = { .ticks = 100000, .subs = 3, .timeout_s = 60 };
	struct md_worker workers[RTE_MAX_LCORE];
	struct md_sub subs[MD_MAX_SUBS];
	struct ex_dev da, db;
	struct md_pub p;
	union prdma_gid g;
	unsigned int lcore, nw = 0, i;
	uint64_t deadline;
	int ret, ok = 0;

	if (ex_eal_init(&argc, &argv) < 0)
		return EXIT_FAILURE;
	memset(&da, 0, sizeof(da));
	memset(&db, 0, sizeof(db));
	memset(&p, 0, sizeof(p));
	memset(subs, 0, sizeof(subs));
	memset(workers, 0, sizeof(workers));
	da.id = db.id = -1;
	if (parse_args(argc, argv, &conf, devargs) < 0)
		goto out_eal;
	if (rte_lcore_count() < 2) {
		EX_ERR("the subscribers need a worker lcore: give EAL -l 0-1 or more");
		goto out_eal;
	}
	if (ex_dev_open(&da, devargs[0]) < 0 || ex_dev_open(&db, devargs[1]) < 0)
		goto out_dev;
	md_group(&da, &g);
	if (md_setup(&p, subs, &da, &db, &conf, &g) < 0)
		goto out_obj;
	p.d = &da;
	p.conf = &conf;
	p.subs = subs;

	printf("market data: %" PRIu64 " ticks to group, %" PRIu32 " subscribers on %u "
	       "worker lcore(s), skip every %" PRIu32 "\n", conf.ticks, conf.subs,
	       rte_lcore_count() - 1, conf.skip_every);
	deadline = rte_rdtsc() + (uint64_t)(conf.timeout_s * rte_get_tsc_hz());
	/* Subscribers round-robin over the workers. */
	RTE_LCORE_FOREACH_WORKER(lcore) {
		workers[nw].conf = &conf;
		workers[nw].abort_flag = &md_abort;
		workers[nw].deadline = deadline;
		nw++;
	}
	for (i = 0; i < conf.subs; i++)
		workers[i % nw].subs[workers[i % nw].nb++] = &subs[i];
	i = 0;
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (workers[i].nb != 0)
			rte_eal_remote_launch(md_sub_lcore, &workers[i], lcore);
		i++;
	}
	ret = md_pub_run(&p, &md_abort, deadline);
	if (ret < 0)
		md_abort = 1;
	rte_eal_mp_wait_lcore();
	if (ret < 0 || md_abort)
		EX_ERR("run failed: %s", ret < 0 ? rte_strerror(-ret) : "a subscriber stopped");
	ok = md_report(&p, subs, &conf) && ret == 0 && !md_abort;
	printf("result: %s\n", ok ? "PASS" : "FAIL");
out_obj:
	md_teardown(&p, subs, &conf, &g);
out_dev:
	ex_dev_close(&da);
	ex_dev_close(&db);
out_eal:
	rte_eal_cleanup();
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
