/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma's librdmacm over prdma's CM, in one process: two soft RoCE devices
 * joined by a ring, the verbs side replaced by a test double
 * (t_fake_bridge.c). Event channels (a pollable fd, non-blocking reads),
 * address resolution onto devices, RC connect/accept/disconnect with
 * private data both ways, reject, UD through SIDR, synchronous endpoints,
 * rdma_getaddrinfo, options and errors. Nothing is polled but the event
 * channels' fds: the library's CM thread makes all the progress.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "t_fake_bridge.h"

static uint16_t next_port = 18500;

static struct sockaddr_in
addr_of(const char *ip, uint16_t port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

/* The next event, waiting for it on the channel's fd only. */
static struct rdma_cm_event *
wait_event(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev = NULL;

	assert_int_equal(poll(&p, 1, 10000), 1);
	assert_int_equal(rdma_get_cm_event(ch, &ev), 0);
	if (ev->event != want)
		printf("got %s (status %d), want %s\n", rdma_event_str(ev->event),
		       ev->status, rdma_event_str(want));
	assert_int_equal(ev->event, want);
	return ev;
}

static void
ack_next(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	assert_int_equal(rdma_ack_cm_event(wait_event(ch, want)), 0);
}

static void
set_nonblock(struct rdma_event_channel *ch)
{
	int fl = fcntl(ch->fd, F_GETFL);

	assert_int_equal(fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK), 0);
}

static void
test_channel_fd(void **state)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct pollfd p;
	struct rdma_cm_event *ev;

	(void)state;
	assert_non_null(ch);
	assert_true(ch->fd >= 0);
	p.fd = ch->fd;
	p.events = POLLIN;
	assert_int_equal(poll(&p, 1, 0), 0);
	set_nonblock(ch);
	errno = 0;
	assert_int_equal(rdma_get_cm_event(ch, &ev), -1);
	assert_int_equal(errno, EAGAIN);
	rdma_destroy_event_channel(ch);
}

struct waiter {
	struct rdma_event_channel *ch;
	int ret;
	int err;
};

static void *
wait_thread(void *arg)
{
	struct waiter *w = arg;
	struct rdma_cm_event *ev;

	w->ret = rdma_get_cm_event(w->ch, &ev);
	w->err = errno;
	return NULL;
}

/*
 * rping destroys its channel while its CM thread still waits in
 * rdma_get_cm_event(): as with librdmacm the waiter stays blocked (rping
 * then exits 0 around it), and never touches the freed channel.
 */
static void
test_channel_destroy_waiter(void **state)
{
	struct waiter w = { .ret = 0 };
	struct timespec ts;
	pthread_t t;
	void *res;

	(void)state;
	w.ch = rdma_create_event_channel();
	assert_non_null(w.ch);
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	ts.tv_sec = 0;
	ts.tv_nsec = 50 * 1000 * 1000;
	nanosleep(&ts, NULL);
	rdma_destroy_event_channel(w.ch);
	nanosleep(&ts, NULL);
	assert_int_equal(pthread_tryjoin_np(t, &res), EBUSY);
	assert_int_equal(pthread_cancel(t), 0);
	assert_int_equal(pthread_join(t, &res), 0);
	assert_ptr_equal(res, PTHREAD_CANCELED);
	/* The library is still usable: its lock was not left held. */
	w.ch = rdma_create_event_channel();
	assert_non_null(w.ch);
	rdma_destroy_event_channel(w.ch);
}

/* Client and server ids with their channels. */
struct pair {
	struct rdma_event_channel *cch, *sch;
	struct rdma_cm_id *cid, *lid, *sid;
	struct ibv_qp *cqp, *sqp;
	uint16_t port;
};

static void
pair_listen(struct pair *p, enum rdma_port_space ps, const char *bind_ip)
{
	struct sockaddr_in sa;
	int ctx_tag = 0x5e;

	memset(p, 0, sizeof(*p));
	p->port = next_port++;
	p->cch = rdma_create_event_channel();
	p->sch = rdma_create_event_channel();
	assert_non_null(p->cch);
	assert_non_null(p->sch);
	assert_int_equal(rdma_create_id(p->sch, &p->lid, (void *)(uintptr_t)ctx_tag, ps), 0);
	sa = addr_of(bind_ip, p->port);
	assert_int_equal(rdma_bind_addr(p->lid, (struct sockaddr *)&sa), 0);
	assert_int_equal(rdma_listen(p->lid, 8), 0);
	assert_int_equal(rdma_create_id(p->cch, &p->cid, p, ps), 0);
}

static void
pair_resolve(struct pair *p)
{
	struct sockaddr_in dst = addr_of(T_IP_B, p->port);
	struct sockaddr_in src = addr_of(T_IP_A, 0);
	char buf[INET_ADDRSTRLEN];

	/* From device A to device B, as two hosts would. */
	assert_int_equal(rdma_resolve_addr(p->cid, (struct sockaddr *)&src,
					   (struct sockaddr *)&dst, 2000), 0);
	ack_next(p->cch, RDMA_CM_EVENT_ADDR_RESOLVED);
	assert_non_null(p->cid->verbs);
	inet_ntop(AF_INET, &p->cid->route.addr.src_sin.sin_addr, buf, sizeof(buf));
	assert_string_equal(buf, T_IP_A);
	assert_int_equal(rdma_resolve_route(p->cid, 2000), 0);
	ack_next(p->cch, RDMA_CM_EVENT_ROUTE_RESOLVED);
	assert_int_equal(p->cid->route.num_paths, 1);
	assert_int_equal(ntohs(rdma_get_dst_port(p->cid)), p->port);
}

static void
pair_down(struct pair *p)
{
	if (p->sid != NULL)
		assert_int_equal(rdma_destroy_id(p->sid), 0);
	assert_int_equal(rdma_destroy_id(p->cid), 0);
	assert_int_equal(rdma_destroy_id(p->lid), 0);
	t_fake_qp_free(p->cqp);
	t_fake_qp_free(p->sqp);
	rdma_destroy_event_channel(p->cch);
	rdma_destroy_event_channel(p->sch);
}

static void
test_rc_connect(void **state)
{
	static const char req[] = "request from the client";
	static const char rep[] = "reply from the server";
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct pair p;
	unsigned int syncs;

	(void)state;
	pair_listen(&p, RDMA_PS_TCP, "0.0.0.0");
	pair_resolve(&p);
	p.cqp = t_fake_qp(p.cid->verbs, IBV_QPT_RC);
	assert_non_null(p.cqp);
	p.cid->qp = p.cqp;
	memset(&cp, 0, sizeof(cp));
	cp.private_data = req;
	cp.private_data_len = sizeof(req);
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	assert_int_equal(rdma_connect(p.cid, &cp), 0);

	ev = wait_event(p.sch, RDMA_CM_EVENT_CONNECT_REQUEST);
	assert_ptr_equal(ev->listen_id, p.lid);
	p.sid = ev->id;
	assert_ptr_not_equal(p.sid, p.lid);
	assert_ptr_equal(p.sid->context, p.lid->context);
	assert_non_null(p.sid->verbs);
	assert_true(ev->param.conn.private_data_len >= sizeof(req));
	assert_memory_equal(ev->param.conn.private_data, req, sizeof(req));
	assert_int_equal(ev->param.conn.qp_num, p.cqp->qp_num);
	assert_int_equal(ev->param.conn.initiator_depth, 1);
	assert_int_equal(ntohs(rdma_get_src_port(p.sid)), p.port);
	assert_int_equal(rdma_ack_cm_event(ev), 0);

	p.sqp = t_fake_qp(p.sid->verbs, IBV_QPT_RC);
	p.sid->qp = p.sqp;
	memset(&cp, 0, sizeof(cp));
	cp.private_data = rep;
	cp.private_data_len = sizeof(rep);
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	assert_int_equal(rdma_accept(p.sid, &cp), 0);

	syncs = t_fake_syncs();
	ev = wait_event(p.cch, RDMA_CM_EVENT_ESTABLISHED);
	assert_ptr_equal(ev->id, p.cid);
	assert_true(ev->param.conn.private_data_len >= sizeof(rep));
	assert_memory_equal(ev->param.conn.private_data, rep, sizeof(rep));
	assert_int_equal(ev->param.conn.qp_num, p.sqp->qp_num);
	assert_int_equal(rdma_ack_cm_event(ev), 0);
	ack_next(p.sch, RDMA_CM_EVENT_ESTABLISHED);
	/* The verbs QPs were told the CM moved them. */
	assert_true(t_fake_syncs() > syncs);
	assert_int_equal(p.cqp->state, IBV_QPS_RTS);
	assert_int_equal(p.sqp->state, IBV_QPS_RTS);
	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
		int mask = 0;

		assert_int_equal(rdma_init_qp_attr(p.cid, &a, &mask), 0);
		assert_int_equal(a.dest_qp_num, p.sqp->qp_num);
		assert_true(mask & IBV_QP_DEST_QPN);
	}

	assert_int_equal(rdma_disconnect(p.cid), 0);
	ack_next(p.sch, RDMA_CM_EVENT_DISCONNECTED);
	assert_int_equal(rdma_disconnect(p.sid), 0);
	ack_next(p.cch, RDMA_CM_EVENT_DISCONNECTED);
	assert_int_equal(p.cqp->state, IBV_QPS_ERR);
	pair_down(&p);
}

static void
test_reject(void **state)
{
	static const char why[] = "go away";
	struct rdma_cm_event *ev;
	struct pair p;

	(void)state;
	pair_listen(&p, RDMA_PS_TCP, T_IP_B);
	pair_resolve(&p);
	p.cqp = t_fake_qp(p.cid->verbs, IBV_QPT_RC);
	p.cid->qp = p.cqp;
	assert_int_equal(rdma_connect(p.cid, NULL), 0);
	ev = wait_event(p.sch, RDMA_CM_EVENT_CONNECT_REQUEST);
	p.sid = ev->id;
	assert_int_equal(rdma_ack_cm_event(ev), 0);
	assert_int_equal(rdma_reject(p.sid, why, sizeof(why)), 0);
	ev = wait_event(p.cch, RDMA_CM_EVENT_REJECTED);
	assert_int_equal(ev->status, 28);      /* consumer defined */
	assert_memory_equal(ev->param.conn.private_data, why, sizeof(why));
	assert_int_equal(rdma_ack_cm_event(ev), 0);
	pair_down(&p);
}

static void
test_nobody_listens(void **state)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in dst = addr_of(T_IP_B, 18499);
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct ibv_qp *qp;
	char buf[INET_ADDRSTRLEN];

	(void)state;
	assert_int_equal(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000), 0);
	ack_next(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	/* A local destination is reached through the device that holds it. */
	inet_ntop(AF_INET, &id->route.addr.src_sin.sin_addr, buf, sizeof(buf));
	assert_string_equal(buf, T_IP_B);
	assert_int_equal(rdma_resolve_route(id, 2000), 0);
	ack_next(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
	qp = t_fake_qp(id->verbs, IBV_QPT_RC);
	id->qp = qp;
	assert_int_equal(rdma_connect(id, NULL), 0);
	ev = wait_event(ch, RDMA_CM_EVENT_REJECTED);
	assert_int_equal(ev->status, 8);       /* invalid service ID */
	assert_int_equal(rdma_ack_cm_event(ev), 0);
	assert_int_equal(rdma_destroy_id(id), 0);
	t_fake_qp_free(qp);
	rdma_destroy_event_channel(ch);
}

static void
test_ud_sidr(void **state)
{
	static const char hi[] = "sidr hello";
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct pair p;

	(void)state;
	pair_listen(&p, RDMA_PS_UDP, "0.0.0.0");
	pair_resolve(&p);
	assert_int_equal(p.cid->qp_type, IBV_QPT_UD);
	p.cqp = t_fake_qp(p.cid->verbs, IBV_QPT_UD);
	p.cid->qp = p.cqp;
	memset(&cp, 0, sizeof(cp));
	cp.private_data = hi;
	cp.private_data_len = sizeof(hi);
	assert_int_equal(rdma_connect(p.cid, &cp), 0);
	ev = wait_event(p.sch, RDMA_CM_EVENT_CONNECT_REQUEST);
	p.sid = ev->id;
	assert_memory_equal(ev->param.ud.private_data, hi, sizeof(hi));
	assert_int_equal(rdma_ack_cm_event(ev), 0);
	p.sqp = t_fake_qp(p.sid->verbs, IBV_QPT_UD);
	p.sid->qp = p.sqp;
	assert_int_equal(rdma_accept(p.sid, NULL), 0);
	ev = wait_event(p.cch, RDMA_CM_EVENT_ESTABLISHED);
	assert_int_equal(ev->param.ud.qp_num, p.sqp->qp_num);
	assert_int_equal(ev->param.ud.qkey, RDMA_UDP_QKEY);
	assert_int_equal(ev->param.ud.ah_attr.is_global, 1);
	assert_int_equal(ev->param.ud.ah_attr.grh.dgid.raw[15], 12);
	assert_int_equal(rdma_ack_cm_event(ev), 0);
	pair_down(&p);
}

/* Synchronous endpoints, as rdma_server and rdma_client use them. */
struct sync_srv {
	struct rdma_cm_id *lid, *id;
	struct ibv_qp *qp;
	int accept_ret;
	uint8_t pdata0;
};

static void *
sync_server(void *arg)
{
	struct sync_srv *s = arg;

	if (rdma_get_request(s->lid, &s->id) != 0) {
		s->accept_ret = -100;
		return NULL;
	}
	s->pdata0 = ((const uint8_t *)s->id->event->param.conn.private_data)[0];
	s->qp = t_fake_qp(s->id->verbs, IBV_QPT_RC);
	s->id->qp = s->qp;
	s->accept_ret = rdma_accept(s->id, NULL);
	return NULL;
}

static void
test_sync_ep(void **state)
{
	struct rdma_addrinfo hints, *sres, *cres;
	struct rdma_conn_param cp;
	struct sync_srv s;
	struct rdma_cm_id *cid;
	struct ibv_qp *cqp;
	pthread_t t;
	char port[8];
	uint8_t pd0 = 0xa5;

	(void)state;
	snprintf(port, sizeof(port), "%u", next_port++);
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_TCP;
	assert_int_equal(rdma_getaddrinfo(T_IP_B, port, &hints, &sres), 0);
	assert_non_null(sres->ai_src_addr);
	assert_null(sres->ai_dst_addr);
	memset(&s, 0, sizeof(s));
	assert_int_equal(rdma_create_ep(&s.lid, sres, NULL, NULL), 0);
	assert_int_equal(rdma_listen(s.lid, 0), 0);

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	assert_int_equal(rdma_getaddrinfo(T_IP_B, port, &hints, &cres), 0);
	assert_non_null(cres->ai_dst_addr);
	assert_int_equal(cres->ai_qp_type, IBV_QPT_RC);
	assert_int_equal(rdma_create_ep(&cid, cres, NULL, NULL), 0);
	assert_non_null(cid->verbs);
	assert_int_equal(pthread_create(&t, NULL, sync_server, &s), 0);
	cqp = t_fake_qp(cid->verbs, IBV_QPT_RC);
	cid->qp = cqp;
	memset(&cp, 0, sizeof(cp));
	cp.private_data = &pd0;
	cp.private_data_len = 1;
	assert_int_equal(rdma_connect(cid, &cp), 0);   /* waits for ESTABLISHED */
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(s.accept_ret, 0);
	assert_int_equal(s.pdata0, 0xa5);
	assert_int_equal(cqp->state, IBV_QPS_RTS);
	assert_int_equal(s.qp->state, IBV_QPS_RTS);
	assert_int_equal(rdma_disconnect(cid), 0);      /* waits for DISCONNECTED */
	assert_int_equal(rdma_disconnect(s.id), 0);
	cid->qp = NULL;
	s.id->qp = NULL;
	rdma_destroy_ep(cid);
	rdma_destroy_ep(s.id);
	rdma_destroy_ep(s.lid);
	t_fake_qp_free(cqp);
	t_fake_qp_free(s.qp);
	rdma_freeaddrinfo(sres);
	rdma_freeaddrinfo(cres);
}

static void
test_sync_refused(void **state)
{
	struct rdma_addrinfo hints, *res;
	struct rdma_cm_id *cid;
	struct ibv_qp *qp;

	(void)state;
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_NUMERICHOST;
	assert_int_equal(rdma_getaddrinfo(T_IP_B, "18498", &hints, &res), 0);
	assert_int_equal(rdma_create_ep(&cid, res, NULL, NULL), 0);
	qp = t_fake_qp(cid->verbs, IBV_QPT_RC);
	cid->qp = qp;
	errno = 0;
	assert_int_equal(rdma_connect(cid, NULL), -1);
	assert_int_equal(errno, ECONNREFUSED);
	cid->qp = NULL;
	rdma_destroy_ep(cid);
	t_fake_qp_free(qp);
	rdma_freeaddrinfo(res);
}

static void
test_errors(void **state)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in far = addr_of("203.0.113.1", 7000);
	struct rdma_addrinfo hints, *res;
	struct rdma_cm_id *id, *id2;
	uint8_t tos = 32;
	int one = 1;

	(void)state;
	assert_int_equal(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	errno = 0;
	assert_int_equal(rdma_bind_addr(id, (struct sockaddr *)&far), -1);
	assert_int_equal(errno, EADDRNOTAVAIL);
	errno = 0;
	assert_int_equal(rdma_create_id(ch, &id2, NULL, RDMA_PS_IPOIB), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(rdma_connect(id, NULL), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(rdma_listen(id, 1), -1);   /* not bound */
	assert_int_equal(errno, EINVAL);
	assert_int_equal(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos,
					 sizeof(tos)), 0);
	assert_int_equal(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR,
					 &one, sizeof(one)), 0);
	errno = 0;
	assert_int_equal(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &one,
					 sizeof(one)), -1);
	assert_int_equal(errno, EINVAL);
	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS };
		int mask;

		errno = 0;
		assert_int_equal(rdma_init_qp_attr(id, &a, &mask), -1);
		assert_int_equal(errno, EINVAL);   /* no device yet */
	}
	assert_string_equal(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED),
			    "RDMA_CM_EVENT_ESTABLISHED");
	assert_string_equal(rdma_event_str((enum rdma_cm_event_type)99),
			    "UNKNOWN EVENT");
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_UDP;
	assert_int_equal(rdma_getaddrinfo(NULL, "7174", &hints, &res), 0);
	assert_int_equal(res->ai_qp_type, IBV_QPT_UD);
	assert_int_equal(ntohs(((struct sockaddr_in *)res->ai_src_addr)->sin_port), 7174);
	rdma_freeaddrinfo(res);
	hints.ai_flags = RAI_NUMERICHOST;
	errno = 0;
	assert_int_equal(rdma_getaddrinfo("not-an-address", "1", &hints, &res), -1);
	assert_int_not_equal(errno, 0);
	assert_int_equal(rdma_destroy_id(id), 0);
	rdma_destroy_event_channel(ch);
}

static void
test_devices(void **state)
{
	struct ibv_context **list;
	int n = -1;

	(void)state;
	list = rdma_get_devices(&n);
	assert_non_null(list);
	assert_int_equal(n, 2);
	assert_non_null(list[0]);
	assert_non_null(list[1]);
	assert_null(list[2]);
	rdma_free_devices(list);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_channel_fd),
		cmocka_unit_test(test_channel_destroy_waiter),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_rc_connect),
		cmocka_unit_test(test_reject),
		cmocka_unit_test(test_nobody_listens),
		cmocka_unit_test(test_ud_sidr),
		cmocka_unit_test(test_sync_ep),
		cmocka_unit_test(test_sync_refused),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
