/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-perf [EAL args] -- <test> [options] [server]
 *
 * perftest's flow: open the device, set up the out-of-band connection,
 * exchange versions and keys, connect the QPs, synchronize, run, report.
 * --loopback runs both sides in this process, one lcore each.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "app_ports.h"
#include "app_raw.h"
#include "perf.h"
#include "perf_seq.h"

RTE_LOG_REGISTER_DEFAULT(perf_logtype, INFO);

#define PERF_MAX_ROWS 24
#define RAW_RULE "---------------------------------------------------------------------------------------\n"

static unsigned int
size_list(const struct perf_opts *o, uint32_t *sizes)
{
	unsigned int n = 0;
	uint32_t sz;

	if (!o->all_sizes) {
		sizes[0] = o->size;
		return 1;
	}
	for (sz = 2; sz <= PERF_MAX_SIZE && n < PERF_MAX_ROWS; sz <<= 1)
		sizes[n++] = sz;
	return n;
}

/* UD carries one packet per message: as perftest, sizes stop at the MTU. */
static unsigned int
ud_size_cap(const struct perf_opts *o, const struct perf_side *s, uint32_t *sizes,
	    unsigned int n)
{
	uint32_t mtu = prdma_mtu_bytes(s->mtu);
	unsigned int i;

	if (o->conn != PERF_CONN_UD)
		return n;
	if (o->all_sizes) {
		for (i = 0; i < n && sizes[i] <= mtu; i++)
			;
		return i;
	}
	if (sizes[0] > mtu) {
		printf(" Max msg size in UD is MTU %u\n Changing to this MTU\n", mtu);
		sizes[0] = mtu;
	}
	return n;
}

/* Run one size; @p client or @p server may be NULL (the other process). */
static int
run_size(const struct perf_opts *o, struct perf_side *client, struct perf_side *server,
	 uint32_t size, struct perf_row *row)
{
	struct prdma_dev_counters c0, c1;
	struct perf_run rc, rs, *rep;
	struct app_runner runner;
	volatile int client_done = 0;
	uint64_t deadline;
	int ret, step;

	memset(&rc, 0, sizeof(rc));
	memset(&rs, 0, sizeof(rs));
	memset(&c0, 0, sizeof(c0));
	memset(&c1, 0, sizeof(c1));
	prdma_dev_counters_get(client != NULL ? client->dev : server->dev, &c0);
	/*
	 * The advertised buffers start zeroed (rte_zmalloc) and are not
	 * cleared between sizes when the peer is another process: perftest's
	 * write_lat peer starts the next size without a handshake, so its
	 * first WRITE may already have landed. Each size polls its own last
	 * byte, which no smaller size wrote.
	 */
	if (client != NULL && server != NULL) {
		memset(perf_rx_slot(client, 0), 0, client->slot_len * client->nqp);
		memset(perf_rx_slot(server, 0), 0, server->slot_len * server->nqp);
	}
	if (client != NULL) {
		ret = perf_run_init(&rc, client, size);
		if (ret < 0)
			return ret;
	}
	if (server != NULL) {
		ret = perf_run_init(&rs, server, size);
		if (ret < 0) {
			perf_run_fini(&rc);
			return ret;
		}
	}
	if (client != NULL && server != NULL) {
		client->peer_done_flag = &client_done;
		server->peer_done_flag = &client_done;
		app_runner_init(&runner, o->timeout_s + o->duration);
		ret = app_run_pair(&runner, perf_step_client, &rc, perf_step_server, &rs);
		client->peer_done_flag = server->peer_done_flag = NULL;
	} else {
		struct perf_run *r = client != NULL ? &rc : &rs;
		unsigned int n = 0;

		deadline = rte_rdtsc() + (uint64_t)((o->timeout_s + o->duration) *
						    rte_get_tsc_hz());
		app_abort = 0;
		do {
			step = client != NULL ? perf_step_client(r) : perf_step_server(r);
			if (++n % 1024 == 0 && rte_rdtsc() > deadline) {
				app_abort = 1;
				step = -ETIMEDOUT;
			}
		} while (step == 0);
		ret = step < 0 ? step : 0;
	}
	/* Both sides here: the row is the one perftest's first poster prints
	 * (write_lat's server, the other tests' client). */
	rep = client != NULL ? &rc : &rs;
	if (client != NULL && server != NULL && perf_test_is_lat(o->test) &&
	    perf_lat_initiator(server))
		rep = &rs;
	if (ret == 0) {
		perf_row_from_run(o, rep, row);
		/* Losses show as retransmissions: worth knowing beside a figure. */
		prdma_dev_counters_get(client != NULL ? client->dev : server->dev, &c1);
		row->retransmits = c1.value[PRDMA_DEV_CNT_RETRANSMITS] -
				   c0.value[PRDMA_DEV_CNT_RETRANSMITS];
		row->naks = c1.value[PRDMA_DEV_CNT_NAKS_RECEIVED] -
			    c0.value[PRDMA_DEV_CNT_NAKS_RECEIVED];
	}
	if (ret == 0 && o->samples_path != NULL && perf_test_is_lat(o->test) &&
	    perf_lat_initiator(rep->side))
		ret = perf_report_samples(o->samples_path, o, rep);
	perf_run_fini(&rc);
	perf_run_fini(&rs);
	if (ret < 0)
		PERF_LOG(ERR, "%u-byte %s failed: %s", size, perf_test_name(o->test),
			 rte_strerror(-ret));
	return ret;
}

static int
fill_recvs(const struct perf_opts *o, struct perf_side *s)
{
	uint32_t q;
	int ret;

	if (perf_test_verb(o->test) != PERF_VERB_SEND)
		return 0;
	for (q = 0; q < s->nqp; q++) {
		ret = perf_side_fill_recv(s, q, s->max_recv_wr);
		if (ret < 0) {
			PERF_LOG(ERR, "%s: posting receives: %s", s->devargs, rte_strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static int
run_loopback(const struct perf_opts *o, struct perf_row *rows, unsigned int *nb_rows)
{
	char da[256], db[256];
	struct app_ports ports;
	struct perf_side srv, cli;
	uint32_t sizes[PERF_MAX_ROWS];
	unsigned int i, n;
	int ret, ret2;

	if (o->nb_devargs == 2) {
		snprintf(da, sizeof(da), "%s", o->devargs[0]);
		snprintf(db, sizeof(db), "%s", o->devargs[1]);
	} else if (!o->ethdev_ports) {
		/* The provider's embedded loopback link. */
		snprintf(da, sizeof(da), "roce:ring=perf%d,side=0,ip=192.0.2.1", getpid());
		snprintf(db, sizeof(db), "roce:ring=perf%d,side=1,ip=192.0.2.2", getpid());
	} else {
		/* Two cross-connected net_ring ports of this process. */
		ret = app_ports_create(&ports);
		if (ret < 0)
			return ret;
		app_ports_devargs(da, sizeof(da), &ports, 0, "192.0.2.1");
		app_ports_devargs(db, sizeof(db), &ports, 1, "192.0.2.2");
	}
	ret = perf_side_open(&srv, o, da, 1);
	if (ret == 0) {
		ret = perf_side_open(&cli, o, db, 0);
	} else {
		memset(&cli, 0, sizeof(cli));
		cli.dev_id = -1;
	}
	if (ret < 0)
		goto out;
	/* Port mode resolves no MACs yet: each side is told the other's. */
	srv.dmac = cli.mac;
	cli.dmac = srv.mac;
	srv.dmac_set = cli.dmac_set = 1;
	memcpy(srv.peer, cli.my, sizeof(*cli.my) * cli.nqp);
	memcpy(cli.peer, srv.my, sizeof(*srv.my) * srv.nqp);
	srv.mtu = cli.mtu = RTE_MIN(srv.mtu, cli.mtu);
	if (o->use_cm && o->conn == PERF_CONN_UD) {
		ret = perf_cm_loopback_ud(&srv, &cli, o);
	} else {
		ret = perf_side_connect(&srv);
		if (ret == 0)
			ret = perf_side_connect(&cli);
	}
	if (ret == 0)
		ret = fill_recvs(o, &srv);
	if (ret == 0)
		ret = fill_recvs(o, &cli);
	if (ret < 0)
		goto out;
	if (rte_get_next_lcore(rte_lcore_id(), 1, 0) >= RTE_MAX_LCORE)
		printf("prdma-perf: one lcore: it drives both sides in turn (give -l 0-1)\n");
	perf_report_banner(stdout, o, &cli);
	perf_report_keys(stdout, &cli);
	perf_report_header(stdout, o);
	n = ud_size_cap(o, &cli, sizes, size_list(o, sizes));
	for (i = 0; i < n; i++) {
		ret = run_size(o, &cli, &srv, sizes[i], &rows[i]);
		if (ret < 0)
			goto out;
		perf_report_row(stdout, o, &rows[i]);
		*nb_rows = i + 1;
	}
	perf_report_footer(stdout);
	perf_report_counters(stdout, &srv);
	perf_report_counters(stdout, &cli);
	if (o->json_path != NULL)
		ret = perf_report_json(o->json_path, o, &cli, rows, *nb_rows, "loopback");
out:
	ret2 = perf_side_close(&cli);
	if (ret == 0)
		ret = ret2;
	ret2 = perf_side_close(&srv);
	if (o->nb_devargs != 2 && o->ethdev_ports)
		app_ports_destroy(&ports);
	return ret == 0 ? ret2 : ret;
}

/* The baselines: the same frames with no transport, on the same ports. */
static int
run_raw(const struct perf_opts *o, struct perf_row *rows, unsigned int *nb_rows)
{
	uint32_t sizes[PERF_MAX_ROWS], frame, n, i;
	struct app_runner runner;
	struct app_ports ports;
	uint64_t *samples = NULL;
	uint32_t nb = 0;
	double fps;
	int ret;

	ret = app_ports_create(&ports);
	if (ret < 0)
		return ret;
	app_runner_init(&runner, o->timeout_s);
	printf(RAW_RULE "                    %s test on ring ports %u and %u\n" RAW_RULE,
	       o->test == PERF_RAW_LAT ? "Raw ethdev ping-pong" : "Raw ethdev burst",
	       ports.port[0], ports.port[1]);
	perf_report_header(stdout, o);
	n = size_list(o, sizes);
	if (o->test == PERF_RAW_LAT) {
		samples = calloc(o->iters, sizeof(*samples));
		if (samples == NULL) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < n && sizes[i] <= 1024; i++) {
		struct perf_row *row = &rows[i];

		memset(row, 0, sizeof(*row));
		frame = APP_WRITE_ONLY_OVERHEAD + RTE_ALIGN_CEIL(sizes[i], 4);
		row->size = sizes[i];
		row->iters = o->iters;
		if (o->test == PERF_RAW_LAT) {
			ret = app_raw_pingpong(&runner, &ports, frame, o->iters, samples, &nb);
			if (ret == 0)
				app_lat_summary(samples, nb, 2, &row->lat);
		} else {
			ret = app_raw_burst(&runner, &ports, frame, o->iters, &fps);
			row->msg_rate = fps / 1e6;
			row->bw_avg = fps * sizes[i] / (o->report_gbits ? 1e9 / 8 : 1048576.0);
			row->bw_peak = row->bw_avg;
			row->gbps = fps * sizes[i] * 8 / 1e9;
		}
		if (ret < 0)
			goto out;
		perf_report_row(stdout, o, row);
		*nb_rows = i + 1;
	}
	perf_report_footer(stdout);
	if (o->json_path != NULL) {
		struct perf_side s;

		memset(&s, 0, sizeof(s));
		s.dev_id = -1;
		s.nqp = 1;
		ret = perf_report_json(o->json_path, o, &s, rows, *nb_rows, "loopback");
	}
out:
	free(samples);
	app_ports_destroy(&ports);
	return ret;
}

/* raw_lat between two processes, one ethdev port each. */
static int
run_raw_port(const struct perf_opts *o, struct perf_row *rows, unsigned int *nb_rows)
{
	uint16_t port = (uint16_t)o->raw_port;
	struct rte_mempool *pool;
	uint64_t *samples, echoed;
	uint32_t nb = 0;
	int ret;

	pool = rte_pktmbuf_pool_create("perf_raw", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (pool == NULL)
		return -rte_errno;
	ret = app_port_start(pool, port);
	if (ret < 0)
		goto out;
	if (o->host == NULL) {
		printf("prdma-perf: echoing raw frames on port %u until %.0f s pass without one\n",
		       port, o->timeout_s);
		ret = app_raw_echo_port(port, o->timeout_s, &echoed);
		printf("prdma-perf: %" PRIu64 " frames echoed\n", echoed);
		goto out;
	}
	samples = calloc(o->iters, sizeof(*samples));
	if (samples == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	ret = app_raw_ping_port(pool, port, APP_WRITE_ONLY_OVERHEAD + RTE_ALIGN_CEIL(o->size, 4),
				o->iters, o->timeout_s, samples, &nb);
	if (ret == 0) {
		memset(&rows[0], 0, sizeof(rows[0]));
		rows[0].size = o->size;
		rows[0].iters = nb;
		app_lat_summary(samples, nb, 2, &rows[0].lat);
		*nb_rows = 1;
		perf_report_header(stdout, o);
		perf_report_row(stdout, o, &rows[0]);
		perf_report_footer(stdout);
		if (o->json_path != NULL) {
			struct perf_side s;

			memset(&s, 0, sizeof(s));
			s.dev_id = -1;
			s.nqp = 1;
			ret = perf_report_json(o->json_path, o, &s, rows, 1, "client");
		}
	}
	free(samples);
out:
	rte_eth_dev_stop(port);
	rte_mempool_free(pool);
	return ret;
}

/* One core copying: the bound a WRITE's data placement works against. */
static int
run_memcpy(const struct perf_opts *o, struct perf_row *rows, unsigned int *nb_rows)
{
	uint32_t sizes[PERF_MAX_ROWS], n, i, k;
	double secs, unit = o->report_gbits ? 1e9 / 8 : 1048576.0;
	uint8_t *src, *dst;
	uint64_t t0;

	n = size_list(o, sizes);
	src = rte_malloc("perf_memcpy", PERF_MAX_SIZE, 4096);
	dst = rte_malloc("perf_memcpy", PERF_MAX_SIZE, 4096);
	if (src == NULL || dst == NULL) {
		rte_free(src);
		rte_free(dst);
		return -ENOMEM;
	}
	memset(src, 0x5a, PERF_MAX_SIZE);
	memset(dst, 0, PERF_MAX_SIZE);
	printf(RAW_RULE "                    memcpy (baseline): one core, rte_memcpy\n" RAW_RULE);
	perf_report_header(stdout, o);
	for (i = 0; i < n; i++) {
		struct perf_row *row = &rows[i];

		memset(row, 0, sizeof(*row));
		t0 = rte_rdtsc();
		for (k = 0; k < o->iters; k++) {
			rte_memcpy(dst, src, sizes[i]);
			/* Keep the copies from being merged or dropped. */
			rte_compiler_barrier();
		}
		secs = (double)(rte_rdtsc() - t0) / (double)rte_get_tsc_hz();
		row->size = sizes[i];
		row->iters = o->iters;
		row->msg_rate = secs > 0 ? o->iters / secs / 1e6 : 0;
		row->bw_avg = secs > 0 ? (double)sizes[i] * o->iters / secs / unit : 0;
		row->bw_peak = row->bw_avg;
		row->gbps = secs > 0 ? (double)sizes[i] * o->iters * 8 / secs / 1e9 : 0;
		perf_report_row(stdout, o, row);
		*nb_rows = i + 1;
	}
	perf_report_footer(stdout);
	rte_free(src);
	rte_free(dst);
	if (o->json_path != NULL) {
		struct perf_side s;

		memset(&s, 0, sizeof(s));
		s.dev_id = -1;
		s.nqp = 1;
		return perf_report_json(o->json_path, o, &s, rows, *nb_rows, "loopback");
	}
	return 0;
}

/* Wait (2 s at most) until the peer has left the memif links it shares
 * with this process: their link goes down when it disconnects. */
static void
wait_shared_link_down(void)
{
	uint64_t deadline = rte_rdtsc() + 2 * rte_get_tsc_hz();
	struct rte_eth_dev_info info;
	struct rte_eth_link link;
	uint16_t pid;
	int up;

	do {
		up = 0;
		RTE_ETH_FOREACH_DEV(pid) {
			if (rte_eth_dev_info_get(pid, &info) != 0 ||
			    strcmp(info.driver_name, "net_memif") != 0)
				continue;
			if (rte_eth_link_get_nowait(pid, &link) == 0 && link.link_status)
				up = 1;
		}
		if (up)
			rte_delay_us_sleep(1000);
	} while (up && rte_rdtsc() < deadline);
}

/* The state of one remote run as it follows perftest's sequence. */
struct remote_run {
	const struct perf_opts *o;
	int server;
	struct perf_side s;
	struct perf_oob x;
	struct perf_cm *cm;
	uint32_t sizes[PERF_MAX_ROWS];
	unsigned int nb_sizes;
	int keys_known;              /* the first KEYS gave the peer's keys */
	int header_shown;
	struct perf_row *rows;
	unsigned int *nb_rows;
};

/* Whether this side prints latency rows as it goes (perftest: both sides
 * of write_lat and send_lat, only the client of read_lat/atomic_lat). */
static int
lat_rows_here(const struct remote_run *rr)
{
	const struct perf_opts *o = rr->o;

	return perf_test_is_lat(o->test) &&
	       (!rr->server || o->test == PERF_WRITE_LAT || o->test == PERF_SEND_LAT);
}

static int
step_keys(struct remote_run *rr)
{
	struct perf_side *s = &rr->s;
	struct perf_key *tmp;
	int ret;

	if (rr->keys_known) {
		/* perftest exchanges each QP's key again once both print them. */
		tmp = calloc(s->nqp, sizeof(*tmp));
		if (tmp == NULL)
			return -ENOMEM;
		memcpy(tmp, s->peer, sizeof(*tmp) * s->nqp);
		ret = perf_oob_keys(&rr->x, s);
		memcpy(s->peer, tmp, sizeof(*tmp) * s->nqp);
		free(tmp);
		return ret;
	}
	ret = perf_oob_keys(&rr->x, s);
	if (ret < 0)
		return ret;
	rr->keys_known = 1;
	perf_cm_ud_peers(rr->cm, s);
	perf_report_banner(stdout, rr->o, s);
	perf_report_keys(stdout, s);
	return 0;
}

static int
step_run(struct remote_run *rr, uint16_t size_idx)
{
	const struct perf_opts *o = rr->o;
	struct perf_side *s = &rr->s;
	unsigned int i, first = 0, last = rr->nb_sizes;
	int ret;

	if (size_idx != PERF_SEQ_ALL_SIZES) {
		first = size_idx;
		last = size_idx + 1u;
	}
	if (!rr->header_shown && lat_rows_here(rr)) {
		perf_report_header(stdout, o);
		rr->header_shown = 1;
	}
	for (i = first; i < last; i++) {
		ret = run_size(o, rr->server ? NULL : s, rr->server ? s : NULL, rr->sizes[i],
			       &rr->rows[i]);
		if (ret < 0)
			return ret;
		*rr->nb_rows = RTE_MAX(*rr->nb_rows, i + 1);
		if (lat_rows_here(rr))
			perf_report_row(stdout, o, &rr->rows[i]);
	}
	return 0;
}

static int
step_bw_report(struct remote_run *rr)
{
	const struct perf_opts *o = rr->o;
	struct perf_row *r;
	double mine[5], peer[5];
	int ret;

	/* The half-duplex server ran nothing: it shows the client's figures. */
	if (*rr->nb_rows == 0) {
		memset(&rr->rows[0], 0, sizeof(rr->rows[0]));
		*rr->nb_rows = 1;
	}
	r = &rr->rows[*rr->nb_rows - 1];
	mine[0] = r->size;
	mine[1] = (double)r->iters;
	mine[2] = r->bw_peak;
	mine[3] = r->bw_avg;
	mine[4] = r->msg_rate;
	ret = perf_oob_bw_report(&rr->x, mine, peer);
	if (ret == 0 && rr->server) {
		r->size = (uint32_t)peer[0];
		r->iters = (uint64_t)peer[1];
		r->bw_peak = peer[2];
		r->bw_avg = peer[3];
		r->msg_rate = peer[4];
		r->gbps = r->bw_avg * (o->report_gbits ? 1.0 : 1048576.0 * 8 / 1e9);
		r->from_peer = 1;
	}
	return ret;
}

static int
step(struct remote_run *rr, const struct perf_seq_step *st)
{
	struct perf_side *s = &rr->s;

	switch (st->op) {
	case PERF_SEQ_CM_XCHG:
		return perf_cm_xchg(s, rr->o, &rr->cm);
	case PERF_SEQ_VERSIONS:
		return perf_oob_versions(&rr->x, rr->o, s);
	case PERF_SEQ_KEYS:
		return step_keys(rr);
	case PERF_SEQ_SYNC:
		return perf_oob_keys(&rr->x, NULL);
	case PERF_SEQ_CM_DATA:
		return perf_cm_data(rr->cm, rr->o);
	case PERF_SEQ_CONNECT:
		return perf_side_connect(s);
	case PERF_SEQ_POST_RECV:
		return fill_recvs(rr->o, s);
	case PERF_SEQ_RUN:
		return step_run(rr, st->size_idx);
	case PERF_SEQ_BW_REPORT:
		return step_bw_report(rr);
	case PERF_SEQ_DONE:
		return perf_oob_done(&rr->x);
	default:
		return -EINVAL;
	}
}

static int
run_remote(const struct perf_opts *o, struct perf_row *rows, unsigned int *nb_rows)
{
	struct perf_seq_step seq[PERF_SEQ_MAX_STEPS];
	struct perf_seq_cfg cfg;
	struct remote_run rr;
	struct perf_side *s = &rr.s;
	unsigned int i, k, last_run = 0;
	int ret, ret2, nb;

	memset(&rr, 0, sizeof(rr));
	rr.o = o;
	rr.server = o->host == NULL;
	rr.rows = rows;
	rr.nb_rows = nb_rows;
	rr.x.fd = -1;
	ret = perf_side_open(s, o, o->devargs[0], rr.server);
	if (ret < 0)
		goto out;
	ret = perf_oob_open(&rr.x, o, s);
	if (ret < 0)
		goto out;
	memset(&cfg, 0, sizeof(cfg));
	cfg.test = o->test;
	cfg.server = rr.server;
	cfg.use_cm = o->use_cm;
	cfg.nqp = s->nqp;
	cfg.all_sizes = o->all_sizes;
	rr.nb_sizes = size_list(o, rr.sizes);
	cfg.nb_sizes = rr.nb_sizes;
	nb = perf_seq_build(&cfg, seq, RTE_DIM(seq));
	for (k = 0; nb > 0 && k < (unsigned int)nb; k++) {
		ret = step(&rr, &seq[k]);
		if (ret < 0)
			goto out;
		if (seq[k].op == PERF_SEQ_VERSIONS)
			break;
	}
	/* UD's sizes stop at the MTU the versions' exchange agreed on; the
	 * steps up to there do not depend on the count. */
	rr.nb_sizes = ud_size_cap(o, s, rr.sizes, rr.nb_sizes);
	cfg.nb_sizes = rr.nb_sizes;
	nb = perf_seq_build(&cfg, seq, RTE_DIM(seq));
	if (nb < 0 || k >= (unsigned int)nb) {
		ret = nb < 0 ? nb : -EINVAL;
		goto out;
	}
	for (i = 0; i < (unsigned int)nb; i++)
		if (seq[i].op == PERF_SEQ_RUN)
			last_run = i;
	for (i = k + 1; i < (unsigned int)nb; i++) {
		/*
		 * After the last traffic the device is left alone, so a peer
		 * that exits first (and takes a shared link such as memif with
		 * it) is never polled through; but only after the exchange
		 * that follows the traffic. A UC or UD SEND completes once
		 * its frames are staged, before the port has taken them all:
		 * they leave only while the device is progressed, and the
		 * peer, which may wait for every message before it answers
		 * (perftest's send_bw server), is still there until it has
		 * answered that exchange.
		 */
		if (i > last_run + 1 && seq[last_run].op == PERF_SEQ_RUN)
			rr.x.progress = 0;
		ret = step(&rr, &seq[i]);
		if (ret < 0) {
			PERF_LOG(DEBUG, "step %u (%s, perftest %s:%u) failed", i,
				 perf_seq_op_name(seq[i].op), perf_seq_file(o->test, &seq[i]),
				 perf_seq_line(&seq[i]));
			goto out;
		}
	}
	if (!perf_test_is_lat(o->test)) {
		perf_report_header(stdout, o);
		for (i = 0; i < *nb_rows; i++)
			if (!rr.server || o->test == PERF_SEND_BW || i + 1 == *nb_rows)
				perf_report_row(stdout, o, &rows[i]);
	}
	perf_report_footer(stdout);
	perf_report_counters(stdout, s);
	if (o->json_path != NULL)
		ret = perf_report_json(o->json_path, o, s, rows, *nb_rows,
				       rr.server ? "server" : "client");
out:
	/*
	 * One side at a time: the client takes its device (and a link the
	 * two share, memif) down before it closes the exchange; the server
	 * waits for that before its own. Two memif ports stopping at once
	 * race in the PMD's disconnect handling.
	 */
	if (rr.server) {
		perf_oob_close(&rr.x);
		perf_cm_close(rr.cm);
		wait_shared_link_down();
		ret2 = perf_side_close(s);
	} else {
		perf_cm_close(rr.cm);
		ret2 = perf_side_close(s);
		perf_oob_close(&rr.x);
	}
	return ret == 0 ? ret2 : ret;
}

/*
 * Close the ethdev ports (--vdev) before the EAL frees its memory: a
 * memif peer that leaves during rte_eal_cleanup() otherwise wakes the
 * port's interrupt handler on memory already unmapped.
 */
static void
close_ports(void)
{
	uint16_t pid;

	/* The provider stopped the ports it used when it was removed. */
	RTE_ETH_FOREACH_DEV(pid)
		rte_eth_dev_close(pid);
}

int
main(int argc, char **argv)
{
	static struct perf_row rows[PERF_MAX_ROWS];
	unsigned int nb_rows = 0;
	struct perf_opts o;
	int ret, nargs;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "prdma-perf: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	nargs = ret;
	argv[nargs] = argv[0];
	ret = perf_opts_parse(&o, argc - nargs, argv + nargs);
	if (ret != 0) {
		rte_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	if (o.raw_port >= 0)
		ret = run_raw_port(&o, rows, &nb_rows);
	else if (o.test == PERF_MEMCPY_BW)
		ret = run_memcpy(&o, rows, &nb_rows);
	else if (perf_test_is_raw(o.test))
		ret = run_raw(&o, rows, &nb_rows);
	else if (o.loopback)
		ret = run_loopback(&o, rows, &nb_rows);
	else
		ret = run_remote(&o, rows, &nb_rows);
	close_ports();
	if (rte_eal_cleanup() < 0 && ret == 0)
		ret = -EIO;
	if (ret < 0) {
		fprintf(stderr, "prdma-perf: %s failed: %s\n", perf_test_name(o.test),
			rte_strerror(-ret));
		return 1;
	}
	return 0;
}
