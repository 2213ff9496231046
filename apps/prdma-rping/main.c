/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-rping [EAL args] -- -s|-c [-vV] [-S size] [-C count] [-a addr]
 *             [-p port] --devargs STR [--timeout S]
 *
 * rping's options (rdma-core 44); the device, its setup and the CM
 * handshake. The ping loop is in rping_loop.c.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "app_parse.h"
#include "rping.h"

enum { OPT_DEVARGS = 256, OPT_TIMEOUT };

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: prdma-rping [EAL args] -- -s|-c [-vV] [-S size] [-C count] [-a addr] "
		"[-p port] --devargs STR\n"
		"  -s / -c        server / client\n"
		"  -a addr        address (client: the server's; server: to listen on)\n"
		"  -p port        port (default 7174)\n"
		"  -C count       pings (default: until the peer disconnects / forever)\n"
		"  -S size        ping data size, %d..%d (default 64)\n"
		"  -v             print the ping data\n"
		"  -V             validate the ping data (client)\n"
		"  --devargs STR  the prdma device (e.g. roce:port=0,ip=10.0.0.1)\n"
		"  --timeout S    give up after S seconds without progress (30)\n",
		RPING_MIN_SIZE, RPING_MAX_SIZE);
}

#define BAD(...) do { \
		fprintf(stderr, "prdma-rping: " __VA_ARGS__); \
		fputc('\n', stderr); \
		return -EINVAL; \
	} while (0)

static int
opts_parse(struct rping_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "devargs", required_argument, NULL, OPT_DEVARGS },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->server = -1;
	o->port = RPING_DEFAULT_PORT;
	o->size = RPING_DEFAULT_SIZE;
	o->timeout_s = 30;
	optind = 1;
	while ((c = getopt_long(argc, argv, "a:p:C:S:scvVdh", longs, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->addr = optarg;
			break;
		case 'p':
			if (app_parse_long(optarg, 1, 65535, &v) < 0)
				BAD("-p %s: a port 1..65535", optarg);
			o->port = (uint16_t)v;
			break;
		case 'C':
			if (app_parse_long(optarg, 0, INT32_MAX, &v) < 0)
				BAD("Invalid count %s", optarg);
			o->count = (int)v;
			break;
		case 'S':
			if (app_parse_long(optarg, RPING_MIN_SIZE, RPING_MAX_SIZE, &v) < 0)
				BAD("Invalid size %s (valid range is %d to %d)", optarg,
				    RPING_MIN_SIZE, RPING_MAX_SIZE);
			o->size = (uint32_t)v;
			break;
		case 's':
			o->server = 1;
			break;
		case 'c':
			o->server = 0;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			o->validate++;
			break;
		case 'd':
			break;   /* rping's debug prints: none here */
		case OPT_DEVARGS:
			o->devargs = optarg;
			break;
		case OPT_TIMEOUT:
			if (app_parse_long(optarg, 1, 3600, &v) < 0)
				BAD("--timeout %s: 1 to 3600 seconds", optarg);
			o->timeout_s = (double)v;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc)
		BAD("unexpected argument '%s'", argv[optind]);
	if (o->server < 0)
		BAD("name the side: -s (server) or -c (client)");
	if (!o->server && o->addr == NULL)
		BAD("the client needs the server's address (-a)");
	if (o->devargs == NULL)
		BAD("give the device with --devargs");
	return 0;
}

static int
fail(const char *what)
{
	fprintf(stderr, "prdma-rping: %s failed: %s\n", what, rte_strerror(rte_errno));
	return -1;
}

static int
qp_to_init(struct prdma_qp *qp)
{
	struct prdma_qp_attr at;

	/* INIT before the CM sees the QP, so the first receive is posted
	 * before the peer can send (as rping posts it before connecting). */
	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_INIT;
	at.port_num = 1;
	at.qp_access_flags = PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_WRITE;
	return prdma_qp_modify(qp, &at, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT |
			       PRDMA_QP_ACCESS_FLAGS);
}

static int
setup(struct rping_ep *e)
{
	struct prdma_cq_init_attr ca;
	struct prdma_qp_init_attr qa;
	const char *what;

	if (app_cm_ep_open(&e->c, e->o->devargs, 64 + 2 * (size_t)e->o->size,
			   PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_READ |
			   PRDMA_ACCESS_REMOTE_WRITE, &what) < 0)
		return fail(what);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 32;             /* rping's RPING_SQ_DEPTH * 2 */
	e->c.cq = prdma_cq_create(e->c.dev, &ca);
	if (e->c.cq == NULL)
		return fail("CQ create");
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_RC;
	qa.send_cq = e->c.cq;
	qa.recv_cq = e->c.cq;
	qa.cap.max_send_wr = 16;
	qa.cap.max_recv_wr = 2;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	e->c.qp = prdma_qp_create(e->c.pd, &qa);
	if (e->c.qp == NULL)
		return fail("QP create");
	if (qp_to_init(e->c.qp) < 0)
		return fail("QP RESET->INIT");
	if (app_cm_ep_cm(&e->c, PRDMA_CM_PS_TCP, e, &what) < 0)
		return fail(what);
	return 0;
}

/* The next CM event (progressing the CM), NULL on the timeout. */
static struct prdma_cm_event *
next_event(struct rping_ep *e)
{
	struct prdma_cm_event *ev = app_cm_ep_next_event(&e->c, e->o->timeout_s);

	if (ev == NULL)
		fprintf(stderr, "prdma-rping: timed out waiting for a CM event\n");
	return ev;
}

static void
conn_param(struct prdma_cm_conn_param *p)
{
	/* rping's rping_init_conn_param: one READ each way, retries 7/7. */
	memset(p, 0, sizeof(*p));
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

static int
expect(struct rping_ep *e, enum prdma_cm_event_type want, struct prdma_cm_id **id)
{
	struct prdma_cm_event *ev = next_event(e);
	int ok;

	if (ev == NULL)
		return -1;
	ok = ev->event == want;
	if (!ok)
		fprintf(stderr, "cma event %s, error %d\n", prdma_cm_event_str(ev->event),
			ev->status);
	else if (id != NULL)
		*id = ev->id;
	prdma_cm_ack_event(ev);
	return ok ? 0 : -1;
}

static int
addr_of(const struct rping_opts *o, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(o->port);
	if (o->addr != NULL && inet_pton(AF_INET, o->addr, &sa->sin_addr) != 1) {
		fprintf(stderr, "prdma-rping: -a %s: an IPv4 address expected\n", o->addr);
		return -1;
	}
	return 0;
}

static int
run_server(struct rping_ep *e)
{
	struct prdma_cm_conn_param p;
	struct sockaddr_in sa;
	int ret;

	if (addr_of(e->o, &sa) < 0)
		return -1;
	ret = prdma_cm_listen(e->c.id, (struct sockaddr *)&sa, 3);
	if (ret < 0) {
		fprintf(stderr, "rdma_listen: %s\n", strerror(-ret));
		return -1;
	}
	/* The interop harness waits for "cm: device N listening". */
	printf("prdma-rping: cm: device %d listening on port %u\n", e->c.dev_id, e->o->port);
	fflush(stdout);
	if (expect(e, PRDMA_CM_EVENT_CONNECT_REQUEST, &e->c.conn) < 0)
		return -1;
	conn_param(&p);
	ret = prdma_cm_accept(e->c.conn, e->c.qp, &p);
	if (ret < 0) {
		fprintf(stderr, "rdma_accept: %s\n", strerror(-ret));
		return -1;
	}
	/* The client's first SEND may precede our ESTABLISHED (its RTU):
	 * the loop takes the event on the way. */
	ret = rping_run_server(e);
	if (ret < 0)
		fprintf(stderr, "rping server failed: %d\n", ret);
	return ret;
}

static void
linger(struct rping_ep *e, double secs)
{
	double end = app_now() + secs;
	struct prdma_cm_event *ev;

	while (app_now() < end && !e->disconnected) {
		prdma_cm_channel_progress(e->c.ch);
		prdma_dev_progress(e->c.dev);
		if (prdma_cm_get_event(e->c.ch, &ev) == 0) {
			if (ev->event == PRDMA_CM_EVENT_DISCONNECTED)
				e->disconnected = 1;
			prdma_cm_ack_event(ev);
		}
	}
}

static int
run_client(struct rping_ep *e)
{
	struct prdma_cm_conn_param p;
	struct sockaddr_in sa;
	int ret;

	if (addr_of(e->o, &sa) < 0)
		return -1;
	conn_param(&p);
	ret = prdma_cm_connect(e->c.id, e->c.qp, (struct sockaddr *)&sa, &p);
	if (ret < 0) {
		fprintf(stderr, "rdma_connect: %s\n", strerror(-ret));
		return -1;
	}
	if (expect(e, PRDMA_CM_EVENT_ESTABLISHED, NULL) < 0) {
		fprintf(stderr, "connect error\n");
		return -1;
	}
	ret = rping_run_client(e);
	if (ret < 0)
		fprintf(stderr, "rping client failed: %d\n", ret);
	if (!e->disconnected) {
		prdma_cm_disconnect(e->c.id);
		linger(e, 2.0);       /* the DREP, so the peer sees a clean end */
	}
	return ret;
}

int
main(int argc, char **argv)
{
	struct rping_opts o;
	struct rping_ep e;
	int ret, nargs;

	nargs = app_eal_start(argc, argv, "prdma-rping");
	if (nargs < 0)
		return 1;
	ret = opts_parse(&o, argc - nargs, argv + nargs);
	if (ret != 0) {
		rte_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	memset(&e, 0, sizeof(e));
	e.o = &o;
	e.c.dev_id = -1;
	ret = setup(&e);
	if (ret == 0)
		ret = o.server ? run_server(&e) : run_client(&e);
	fflush(stdout);
	app_cm_ep_close(&e.c);
	app_eal_stop();
	return ret < 0 ? 1 : 0;
}
