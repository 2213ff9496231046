/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-udaddy [EAL args] -- [-s server] [-b bind] [-C count] [-S size]
 *              --devargs STR [--port N] [--timeout S]
 *
 * udaddy's options, its server and client (rdma-core 44), one connection.
 * The data transfers are in udaddy_xfer.c.
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
#include "udaddy.h"

enum { OPT_DEVARGS = 256, OPT_PORT, OPT_TIMEOUT };

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: prdma-udaddy [EAL args] -- [-s server_address] [-b bind_address]\n"
		"       [-C message_count] [-S message_size] --devargs STR\n"
		"  -s addr        client: the server's address (server without)\n"
		"  -b addr        the local address (server: to listen on)\n"
		"  -C count       messages each way (default 10)\n"
		"  -S size        message size (default 100; the path MTU at most)\n"
		"  -P udp         the port space (udp only)\n"
		"  --devargs STR  the prdma device (e.g. roce:port=0,ip=10.0.0.1)\n"
		"  --port N       the port (udaddy's is 7174)\n"
		"  --timeout S    give up after S seconds without progress (30)\n");
}

#define BAD(...) do { \
		fprintf(stderr, "prdma-udaddy: " __VA_ARGS__); \
		fputc('\n', stderr); \
		return -EINVAL; \
	} while (0)

static int
opts_parse(struct udaddy_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "devargs", required_argument, NULL, OPT_DEVARGS },
		{ "port", required_argument, NULL, OPT_PORT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->count = 10;
	o->size = 100;
	o->port = UDADDY_PORT;
	o->timeout_s = 30;
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:b:c:C:S:P:h", longs, NULL)) != -1) {
		switch (c) {
		case 's':
			o->dst = optarg;
			break;
		case 'b':
			o->bind = optarg;
			break;
		case 'c':
			if (app_parse_long(optarg, 1, 1, &v) < 0)
				BAD("-c %s: one connection only", optarg);
			break;
		case 'C':
			if (app_parse_long(optarg, 1, 4096, &v) < 0)
				BAD("-C %s: 1 to 4096 messages", optarg);
			o->count = (int)v;
			break;
		case 'S':
			if (app_parse_long(optarg, 1, 4096, &v) < 0)
				BAD("-S %s: 1 to 4096 bytes", optarg);
			o->size = (uint32_t)v;
			break;
		case 'P':
			if (strcmp(optarg, "udp") != 0)
				BAD("-P %s: the udp port space only", optarg);
			break;
		case OPT_DEVARGS:
			o->devargs = optarg;
			break;
		case OPT_PORT:
			if (app_parse_long(optarg, 1, 65535, &v) < 0)
				BAD("--port %s: 1..65535", optarg);
			o->port = (uint16_t)v;
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
	if (o->devargs == NULL)
		BAD("give the device with --devargs");
	return 0;
}

static int
fail(const char *what)
{
	printf("udaddy: %s failed: %s\n", what, rte_strerror(rte_errno));
	return -1;
}

static int
addr_of(const char *ip, uint16_t port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	if (ip != NULL && inet_pton(AF_INET, ip, &sa->sin_addr) != 1) {
		printf("udaddy: %s: an IPv4 address expected\n", ip);
		return -1;
	}
	return 0;
}

static int
setup(struct udaddy_ep *e)
{
	struct prdma_port_attr pa;
	const char *what;

	/* [the receive buffer: GRH room + size][our client's message] */
	if (app_cm_ep_open(&e->c, e->o->devargs, UDADDY_GRH + 2 * (size_t)e->o->size,
			   PRDMA_ACCESS_LOCAL_WRITE, &what) < 0)
		return fail(what);
	if (prdma_port_query(e->c.dev, 1, &pa) == 0 &&
	    e->o->size > prdma_mtu_bytes(pa.active_mtu)) {
		printf("udaddy: message_size %u is larger than active mtu %u\n", e->o->size,
		       prdma_mtu_bytes(pa.active_mtu));
		return -1;
	}
	if (app_cm_ep_cm(&e->c, PRDMA_CM_PS_UDP, e, &what) < 0)
		return fail(what);
	return 0;
}

/* udaddy's init_node: CQ of 2 x count, a UD QP with count WRs each way,
 * in INIT with rdma_cm's Q_Key so the receives go up before the SIDR. */
static int
init_node(struct udaddy_ep *e)
{
	struct prdma_cq_init_attr ca;
	struct prdma_qp_init_attr qa;
	struct prdma_qp_attr at;

	memset(&ca, 0, sizeof(ca));
	ca.cqe = 2 * (uint32_t)e->o->count;
	e->c.cq = prdma_cq_create(e->c.dev, &ca);
	if (e->c.cq == NULL)
		return fail("CQ create");
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_UD;
	qa.send_cq = e->c.cq;
	qa.recv_cq = e->c.cq;
	qa.cap.max_send_wr = (uint32_t)e->o->count;
	qa.cap.max_recv_wr = (uint32_t)e->o->count;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	e->c.qp = prdma_qp_create(e->c.pd, &qa);
	if (e->c.qp == NULL)
		return fail("QP create");
	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_INIT;
	at.port_num = 1;
	at.qkey = PRDMA_CM_UDP_QKEY;
	if (prdma_qp_modify(e->c.qp, &at, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT |
			    PRDMA_QP_QKEY) < 0)
		return fail("QP RESET->INIT");
	return udaddy_post_recvs(e);
}

static struct prdma_cm_event *
next_event(struct udaddy_ep *e)
{
	struct prdma_cm_event *ev = app_cm_ep_next_event(&e->c, e->o->timeout_s);

	if (ev == NULL)
		printf("udaddy: timed out waiting for a CM event\n");
	return ev;
}

/* The reply's AH: to where the SIDR_REQ came from (for one connection,
 * the address udaddy's ibv_create_ah_from_wc finds in the GRH). */
static int
reply_ah(struct udaddy_ep *e)
{
	const struct sockaddr_in *pa = (const struct sockaddr_in *)&e->c.conn->peer_addr;
	struct prdma_ah_attr at;

	if (pa->sin_family != AF_INET) {
		printf("udaddy: the peer's address is not IPv4\n");
		return -1;
	}
	memset(&at, 0, sizeof(at));
	at.dgid.raw[10] = 0xff;
	at.dgid.raw[11] = 0xff;
	memcpy(&at.dgid.raw[12], &pa->sin_addr, 4);
	at.port_num = 1;
	e->c.ah = prdma_ah_create(e->c.pd, &at);
	if (e->c.ah == NULL)
		return fail("reply AH");
	return 0;
}

static int
run_server(struct udaddy_ep *e)
{
	struct prdma_cm_conn_param p;
	struct prdma_cm_event *ev;
	struct sockaddr_in sa;
	struct prdma_wc wc;
	int ret;

	printf("udaddy: starting server\n");
	if (addr_of(e->o->bind, e->o->port, &sa) < 0)
		return -1;
	ret = prdma_cm_listen(e->c.id, (struct sockaddr *)&sa, 0);
	if (ret < 0) {
		printf("udaddy: failure trying to listen: %s\n", strerror(-ret));
		return -1;
	}
	/* The interop harness waits for "cm: device N listening". */
	printf("udaddy: cm: device %d listening on port %u\n", e->c.dev_id, e->o->port);
	fflush(stdout);
	ev = next_event(e);
	if (ev == NULL)
		return -1;
	if (ev->event != PRDMA_CM_EVENT_CONNECT_REQUEST) {
		printf("udaddy: event: %s, error: %d\n", prdma_cm_event_str(ev->event),
		       ev->status);
		prdma_cm_ack_event(ev);
		return -1;
	}
	e->c.conn = ev->id;
	prdma_cm_ack_event(ev);
	if (init_node(e) < 0) {
		printf("udaddy: failing connection request\n");
		prdma_cm_reject(e->c.conn, NULL, 0, 0);
		return -1;
	}
	memset(&p, 0, sizeof(p));
	p.qp_num = e->c.qp->qp_num;
	ret = prdma_cm_accept(e->c.conn, e->c.qp, &p);
	if (ret < 0) {
		printf("udaddy: failure accepting: %s\n", strerror(-ret));
		return -1;
	}
	printf("receiving data transfers\n");
	fflush(stdout);
	if (udaddy_wait_recvs(e, e->o->count, &wc) < 0)
		return -1;
	/* udaddy answers the QPN in the first message's immediate, with its
	 * own QP's Q_Key. */
	e->remote_qpn = wc.imm_data;
	e->remote_qkey = PRDMA_CM_UDP_QKEY;
	if (reply_ah(e) < 0)
		return -1;
	printf("sending replies\n");
	if (udaddy_post_sends(e, 0) < 0 || udaddy_wait_sends(e, e->o->count) < 0)
		return -1;
	/* A UD send completes once its frame is handed to the port, but a
	 * shared-memory port (memif) carries it only while we stay attached:
	 * keep the port up a moment so the client can take the replies. */
	app_cm_ep_linger(&e->c, 0.25);
	printf("data transfers complete\n");
	return 0;
}

static int
run_client(struct udaddy_ep *e)
{
	uint8_t *msg = e->c.mem + UDADDY_GRH + e->o->size;
	struct prdma_cm_event *ev;
	struct sockaddr_in sa, la;
	int ret;
	uint32_t off;

	printf("udaddy: starting client\n");
	if (addr_of(e->o->dst, e->o->port, &sa) < 0)
		return -1;
	if (e->o->bind != NULL) {
		if (addr_of(e->o->bind, 0, &la) < 0 ||
		    prdma_cm_bind(e->c.id, (struct sockaddr *)&la) < 0)
			return fail("bind");
	}
	printf("udaddy: connecting\n");
	if (init_node(e) < 0)
		return -1;
	ret = prdma_cm_connect(e->c.id, e->c.qp, (struct sockaddr *)&sa, NULL);
	if (ret < 0) {
		printf("udaddy: failure connecting: %s\n", strerror(-ret));
		return -1;
	}
	ev = next_event(e);
	if (ev == NULL)
		return -1;
	if (ev->event != PRDMA_CM_EVENT_ESTABLISHED) {
		printf("udaddy: event: %s, error: %d\n", prdma_cm_event_str(ev->event),
		       ev->status);
		prdma_cm_ack_event(ev);
		return -1;
	}
	e->remote_qpn = ev->param.ud.qp_num;
	e->remote_qkey = ev->param.ud.qkey;
	e->c.ah = prdma_ah_create(e->c.pd, &ev->param.ud.ah_attr);
	prdma_cm_ack_event(ev);
	if (e->c.ah == NULL) {
		printf("udaddy: failure creating address handle\n");
		return -1;
	}
	printf("initiating data transfers\n");
	udaddy_pattern(msg, e->o->size);
	if (udaddy_post_sends(e, UDADDY_GRH + e->o->size) < 0)
		return -1;
	printf("receiving data transfers\n");
	fflush(stdout);
	if (udaddy_wait_recvs(e, e->o->count, NULL) < 0)
		return -1;
	/* udaddy's server answers from its receive buffer: its GRH room,
	 * then the start of (the last of) our messages. */
	if (e->o->size > UDADDY_GRH) {
		off = UDADDY_GRH + UDADDY_GRH;
		if (memcmp(e->c.mem + off, msg, e->o->size - UDADDY_GRH) != 0) {
			printf("udaddy: the replies do not carry our message\n");
			return -1;
		}
		printf("udaddy: replies carry our message's first %u bytes\n",
		       e->o->size - UDADDY_GRH);
	}
	printf("data transfers complete\n");
	return 0;
}

int
main(int argc, char **argv)
{
	struct udaddy_opts o;
	struct udaddy_ep e;
	int ret, nargs;

	nargs = app_eal_start(argc, argv, "prdma-udaddy");
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
		ret = o.dst != NULL ? run_client(&e) : run_server(&e);
	printf("test complete\n");
	printf("return status %d\n", ret);
	fflush(stdout);
	app_cm_ep_close(&e.c);
	app_eal_stop();
	return ret < 0 ? 1 : 0;
}
