/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The connection manager in testpmd: one event channel, driven by a
 * control thread that accepts every connect request on a listened address
 * with a QP of its own (and its PD and CQs). Each side tells the other
 * its QP buffer in the private data (address and rkey, as rping does), so
 * the WRITE and READ engines run on CM connections too.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include <prdma_cm.h>

#include "tp.h"

#define TP_CM_MAX_LISTEN 8
#define TP_CM_WAIT_S 5

static struct prdma_cm_channel *ch;
static pthread_t cm_thread;
static volatile int cm_thread_run;
static struct prdma_cm_id *listeners[TP_CM_MAX_LISTEN];
/* Per QP index: 1 established, -1 failed, 0 pending. */
static volatile int conn_state[TP_MAX_OBJ];

struct tp_cm_pdata {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

/*
 * What either side offers, connecting or accepting: QP @p q's buffer in the
 * private data @p pd (which must live until @p p is sent), 4 READs or
 * atomics in flight each way as the RTR/RTS of 'qp connect' set, and the
 * most retries, so both kinds of connection behave alike.
 */
static void
conn_param_fill(struct prdma_cm_conn_param *p, struct tp_cm_pdata *pd, const struct tp_qp *q)
{
	pd->addr = rte_cpu_to_be_64((uintptr_t)q->buf);
	pd->rkey = rte_cpu_to_be_32(q->mr->rkey);
	pd->len = rte_cpu_to_be_32(TP_QP_BUF_LEN);
	memset(p, 0, sizeof(*p));
	p->private_data = pd;
	p->private_data_len = sizeof(*pd);
	p->responder_resources = 4;
	p->initiator_depth = 4;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

static void
pdata_take(struct tp_qp *q, const void *data, uint16_t len)
{
	struct tp_cm_pdata p;

	if (data == NULL || len < sizeof(p))
		return;
	memcpy(&p, data, sizeof(p));
	q->peer_addr = rte_be_to_cpu_64(p.addr);
	q->peer_rkey = rte_be_to_cpu_32(p.rkey);
}

/* A PD, one CQ and an RC QP on @p dev, marked to go with the QP. */
static int
auto_qp(uint16_t dev)
{
	int pd, cq, qp;

	pd = tp_pd_create(dev);
	if (pd < 0)
		return pd;
	cq = tp_cq_create(dev, 1024);
	if (cq < 0) {
		tp_pd_destroy((uint32_t)pd);
		return cq;
	}
	qp = tp_qp_create((uint32_t)pd, PRDMA_QPT_RC, (uint32_t)cq, (uint32_t)cq, 256, 256, -1);
	if (qp < 0) {
		tp_cq_destroy((uint32_t)cq);
		tp_pd_destroy((uint32_t)pd);
		return qp;
	}
	tp.qps[qp].auto_objs = 1;
	return qp;
}

static int
qp_of_id(const struct prdma_cm_id *id)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(tp.qps); i++)
		if (tp.qps[i].used && tp.qps[i].cm_id == id)
			return (int)i;
	return -1;
}

static void
on_request(struct prdma_cm_event *ev)
{
	struct prdma_cm_conn_param p;
	struct tp_cm_pdata pd;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ev->id->peer_addr;
	char ip[INET6_ADDRSTRLEN] = "?";
	int qp, ret;

	inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
	qp = auto_qp(prdma_dev_id(ev->id->dev));
	if (qp < 0) {
		prdma_cm_reject(ev->id, NULL, 0, PRDMA_CM_REJ_NO_RESOURCES);
		return;
	}
	pdata_take(&tp.qps[qp], ev->param.conn.private_data, ev->param.conn.private_data_len);
	tp.qps[qp].cm_id = ev->id;
	tp.qps[qp].peer_qpn = ev->param.conn.qp_num;
	conn_param_fill(&p, &pd, &tp.qps[qp]);
	ret = prdma_cm_accept(ev->id, tp.qps[qp].qp, &p);
	if (ret < 0) {
		tp_err_errno(ret, "cm: accepting %s", ip);
		tp.qps[qp].cm_id = NULL;
		prdma_cm_reject(ev->id, NULL, 0, PRDMA_CM_REJ_NO_RESOURCES);
		tp_qp_destroy((uint32_t)qp);
		return;
	}
	tp_out("cm: connect request from %s accepted on qp %d (QPN 0x%06x)", ip, qp,
	       tp.qps[qp].qp->qp_num);
}

static void
on_event(struct prdma_cm_event *ev)
{
	int qp = qp_of_id(ev->id);

	switch (ev->event) {
	case PRDMA_CM_EVENT_CONNECT_REQUEST:
		on_request(ev);
		return;
	case PRDMA_CM_EVENT_ESTABLISHED:
		if (qp < 0)
			return;
		if (tp.qps[qp].peer_addr == 0)
			pdata_take(&tp.qps[qp], ev->param.conn.private_data,
				   ev->param.conn.private_data_len);
		if (ev->param.conn.qp_num != 0)
			tp.qps[qp].peer_qpn = ev->param.conn.qp_num;
		conn_state[qp] = 1;
		tp_out("cm: qp %d established (QPN 0x%06x <-> 0x%06x)", qp,
		       tp.qps[qp].qp->qp_num, tp.qps[qp].peer_qpn);
		return;
	case PRDMA_CM_EVENT_DISCONNECTED:
		if (qp >= 0)
			tp_out("cm: qp %d disconnected", qp);
		return;
	case PRDMA_CM_EVENT_TIMEWAIT_EXIT:
		return;
	default:
		if (qp >= 0)
			conn_state[qp] = -1;
		tp_err("cm: %s (status %d) on qp %d", prdma_cm_event_str(ev->event), ev->status,
		       qp);
		return;
	}
}

static void *
cm_loop(void *arg)
{
	struct prdma_cm_event *ev;

	RTE_SET_USED(arg);
	while (cm_thread_run) {
		pthread_mutex_lock(&tp.lock);
		prdma_cm_channel_progress(ch);
		while (prdma_cm_get_event(ch, &ev) == 0) {
			on_event(ev);
			prdma_cm_ack_event(ev);
		}
		pthread_mutex_unlock(&tp.lock);
		usleep(200);
	}
	return NULL;
}

static int
cm_start(void)
{
	int ret;

	if (ch != NULL)
		return 0;
	ch = prdma_cm_channel_create(0);
	if (ch == NULL) {
		tp_err_errno(-rte_errno, "cm: event channel");
		return -rte_errno;
	}
	cm_thread_run = 1;
	ret = rte_ctrl_thread_create(&cm_thread, "tp-cm", NULL, cm_loop, NULL);
	if (ret != 0) {
		cm_thread_run = 0;
		prdma_cm_channel_destroy(ch);
		ch = NULL;
		tp_err_errno(-ret, "cm: thread");
		return -ret;
	}
	return 0;
}

static int
parse_addr(const char *ip, uint16_t port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &sin->sin_addr) != 1) {
		tp_err("bad IPv4 address '%s'", ip);
		return -EINVAL;
	}
	return 0;
}

int
tp_cm_listen(uint16_t dev, const char *ip, uint16_t port)
{
	struct tp_dev *d = tp_dev_get(dev);
	struct sockaddr_in sin;
	unsigned int i;
	int ret;

	if (d == NULL)
		return -ENODEV;
	if (port == 0) {
		tp_err("cm listen needs a port other than 0");
		return -EINVAL;
	}
	ret = parse_addr(ip, port, &sin);
	if (ret == 0)
		ret = cm_start();
	if (ret < 0)
		return ret;
	for (i = 0; i < TP_CM_MAX_LISTEN && listeners[i] != NULL; i++)
		;
	if (i == TP_CM_MAX_LISTEN) {
		tp_err("cm: %d listeners already", TP_CM_MAX_LISTEN);
		return -ENOSPC;
	}
	listeners[i] = prdma_cm_id_create(ch, d->dev, 1, PRDMA_CM_PS_TCP, NULL);
	if (listeners[i] == NULL) {
		tp_err_errno(-rte_errno, "cm: id on device %u", dev);
		return -rte_errno;
	}
	ret = prdma_cm_listen(listeners[i], (struct sockaddr *)&sin, 0);
	if (ret < 0) {
		tp_err_errno(ret, "cm: listen on %s:%u", ip, port);
		prdma_cm_id_destroy(listeners[i]);
		listeners[i] = NULL;
		return ret;
	}
	tp_out("cm: device %u listening on %s:%u", dev, ip, port);
	return 0;
}

int
tp_cm_connect(uint16_t dev, const char *ip, uint16_t port)
{
	struct prdma_cm_conn_param p;
	struct tp_cm_pdata pd;
	struct sockaddr_in sin;
	uint64_t deadline;
	int qp, ret;

	if (tp_dev_get(dev) == NULL)
		return -ENODEV;
	ret = parse_addr(ip, port, &sin);
	if (ret == 0)
		ret = cm_start();
	if (ret < 0)
		return ret;
	qp = auto_qp(dev);
	if (qp < 0)
		return qp;
	tp.qps[qp].cm_id = prdma_cm_id_create(ch, tp.devs[dev].dev, 1, PRDMA_CM_PS_TCP, NULL);
	if (tp.qps[qp].cm_id == NULL) {
		tp_err_errno(-rte_errno, "cm: id on device %u", dev);
		tp_qp_destroy((uint32_t)qp);
		return -rte_errno;
	}
	conn_param_fill(&p, &pd, &tp.qps[qp]);
	conn_state[qp] = 0;
	ret = prdma_cm_connect(tp.qps[qp].cm_id, tp.qps[qp].qp, (struct sockaddr *)&sin, &p);
	if (ret < 0) {
		tp_err_errno(ret, "cm: connect to %s:%u", ip, port);
		tp_qp_destroy((uint32_t)qp);
		return ret;
	}
	/* The CM thread needs the tables while the exchange runs. */
	pthread_mutex_unlock(&tp.lock);
	deadline = rte_get_timer_cycles() + TP_CM_WAIT_S * rte_get_timer_hz();
	while (conn_state[qp] == 0 && rte_get_timer_cycles() < deadline)
		usleep(1000);
	pthread_mutex_lock(&tp.lock);
	if (conn_state[qp] != 1) {
		tp_err("cm: connect to %s:%u %s", ip, port,
		       conn_state[qp] == 0 ? "timed out" : "failed");
		tp_qp_destroy((uint32_t)qp);
		return -ECONNREFUSED;
	}
	tp_out("cm: connected qp %d to %s:%u", qp, ip, port);
	return qp;
}

int
tp_cm_disconnect(uint32_t id)
{
	struct tp_qp *q = tp_qp_get(id);
	int ret;

	if (q == NULL)
		return -ENOENT;
	if (q->cm_id == NULL) {
		tp_err("QP %u was not connected through the CM", id);
		return -EINVAL;
	}
	ret = prdma_cm_disconnect(q->cm_id);
	if (ret < 0)
		tp_err_errno(ret, "cm: disconnect qp %u", id);
	return ret;
}

void
tp_cm_show(void)
{
	struct prdma_cm_stats st;
	char ip[INET6_ADDRSTRLEN];
	unsigned int i;

	for (i = 0; i < TP_CM_MAX_LISTEN; i++) {
		struct sockaddr_in *sin;

		if (listeners[i] == NULL)
			continue;
		sin = (struct sockaddr_in *)&listeners[i]->local_addr;
		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
		tp_out("listener: device %u %s:%u", prdma_dev_id(listeners[i]->dev), ip,
		       ntohs(sin->sin_port));
	}
	for (i = 0; i < RTE_DIM(tp.qps); i++) {
		struct sockaddr_in *sin;

		if (!tp.qps[i].used || tp.qps[i].cm_id == NULL)
			continue;
		sin = (struct sockaddr_in *)&tp.qps[i].cm_id->peer_addr;
		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
		tp_out("connection: qp %u (QPN 0x%06x) peer %s QPN 0x%06x state %s", i,
		       tp.qps[i].qp->qp_num, ip, tp.qps[i].peer_qpn,
		       prdma_qp_state_str((enum prdma_qp_state)tp.qps[i].qp->state));
	}
	for (i = 0; i < RTE_DIM(tp.devs); i++)
		if (tp.devs[i].used && prdma_cm_stats_get(tp.devs[i].dev, &st) == 0)
			tp_out("device %u: MADs tx %" PRIu64 " rx %" PRIu64 " resends %" PRIu64
			       " malformed %" PRIu64 " unmatched %" PRIu64 " ids %" PRIu64, i,
			       st.tx_mads, st.rx_mads, st.tx_resends, st.rx_malformed,
			       st.rx_unmatched, st.ids);
}

void
tp_cm_stop(void)
{
	unsigned int i;

	if (ch == NULL)
		return;
	cm_thread_run = 0;
	pthread_mutex_unlock(&tp.lock);
	pthread_join(cm_thread, NULL);
	pthread_mutex_lock(&tp.lock);
	for (i = 0; i < RTE_DIM(tp.qps); i++)
		if (tp.qps[i].used && tp.qps[i].cm_id != NULL) {
			prdma_cm_id_destroy(tp.qps[i].cm_id);
			tp.qps[i].cm_id = NULL;
		}
	for (i = 0; i < TP_CM_MAX_LISTEN; i++)
		if (listeners[i] != NULL) {
			prdma_cm_id_destroy(listeners[i]);
			listeners[i] = NULL;
		}
	prdma_cm_channel_destroy(ch);
	ch = NULL;
}
