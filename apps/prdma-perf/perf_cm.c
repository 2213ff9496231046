/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * perftest -R: every RC connection comes from the connection manager
 * (service 0x0106 << 16 | port), as in perftest's rdma_cm mode: first the
 * one the out-of-band messages travel on (signaled RC SENDs, client
 * first); the versions and a handshake travel on it; then, on a new
 * listener, one per data QP (-q), and another handshake. The messages have their own QP and
 * CQs, so they never mix with the test's SENDs and the serving side of a
 * timed (-D) run sees the client's next message as soon as it lands.
 * With -c UD the data QPs are not connected but resolved, as perftest
 * does with RDMA_PS_UDP: one SIDR_REQ/SIDR_REP per QP (0x0111 << 16 |
 * port) gives the client the server's QPN, Q_Key and path, and the
 * server the path back; the messages' connection stays RC.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include <prdma_cm.h>

#include "perf.h"

#define PERF_CTL_WRID 0xffffffffull
#define PERF_CTL_SLOT 128

struct perf_cm {
	struct perf_side *side;
	struct prdma_cm_channel *ch;
	struct prdma_cm_id *listen_id;
	struct prdma_cm_id **id;     /* [0]: the messages' connection, then one per QP */
	uint32_t nb_id;              /* connections asked for or accepted */
	uint32_t want;               /* this phase's last connection + 1 */
	uint32_t *sidr_qpn;          /* -c UD client: per data QP, from the SIDR_REP */
};

/* The QP of connection @p k: the control QP first, then the data QPs. */
static struct prdma_qp *
conn_qp(const struct perf_side *s, uint32_t k)
{
	return k == 0 ? s->ctl_qp : s->qp[k - 1];
}

static int
ctl_create(struct perf_side *s)
{
	struct prdma_qp_init_attr qpa;
	struct prdma_cq_init_attr cqa;

	memset(&cqa, 0, sizeof(cqa));
	cqa.cqe = 16;
	s->ctl_scq = prdma_cq_create(s->dev, &cqa);
	s->ctl_rcq = prdma_cq_create(s->dev, &cqa);
	if (s->ctl_scq == NULL || s->ctl_rcq == NULL)
		return -rte_errno;
	memset(&qpa, 0, sizeof(qpa));
	qpa.qp_type = PRDMA_QPT_RC;
	qpa.send_cq = s->ctl_scq;
	qpa.recv_cq = s->ctl_rcq;
	qpa.cap.max_send_wr = 4;
	qpa.cap.max_recv_wr = 4;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	s->ctl_qp = prdma_qp_create(s->pd, &qpa);
	return s->ctl_qp == NULL ? -rte_errno : 0;
}

/*
 * To INIT before the CM takes the QP (it accepts one in INIT, as
 * librdmacm's rdma_create_qp leaves it), so a receive can be posted before
 * the peer can send: perftest's first message, or its UD QPN message.
 */
static int
qp_to_init(struct prdma_qp *qp)
{
	struct prdma_qp_attr at;
	uint32_t mask = PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT;

	if (qp->state == PRDMA_QPS_INIT)
		return 0;
	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_INIT;
	at.port_num = 1;
	if (qp->qp_type == PRDMA_QPT_UD) {
		at.qkey = PRDMA_CM_UDP_QKEY;
		mask |= PRDMA_QP_QKEY;
	} else {
		mask |= PRDMA_QP_ACCESS_FLAGS;
	}
	return prdma_qp_modify(qp, &at, mask);
}

/* The port space of connection @p k: the messages always ride on RC; with
 * -c UD the data QPs resolve their peers with SIDR (RDMA_PS_UDP). */
static enum prdma_cm_port_space
conn_ps(const struct perf_side *s, uint32_t k)
{
	return k > 0 && s->o->conn == PERF_CONN_UD ? PRDMA_CM_PS_UDP : PRDMA_CM_PS_TCP;
}

/* The Q_Key the CM gave our own UD QP (the serving side's peer shares it,
 * both being rdma_cm's default). */
static uint32_t
qp_qkey(struct prdma_qp *qp)
{
	struct prdma_qp_attr at;

	if (prdma_qp_query(qp, &at, NULL) == 0 && at.qkey != 0)
		return at.qkey;
	return PRDMA_CM_UDP_QKEY;
}

/*
 * UD: the address handle to the peer's QP @p i from the path SIDR gave
 * (the client: the SIDR_REP's sender; the server: the SIDR_REQ's), and the
 * Q_Key to send with.
 */
static int
ud_peer(struct perf_side *s, uint32_t i, const struct prdma_cm_ud_param *u, uint32_t qkey)
{
	struct prdma_ah_attr a = u->ah_attr;

	if (s->dmac_set) {
		a.flags |= PRDMA_AH_F_DMAC;
		a.dmac = s->dmac;
	}
	s->ah[i] = prdma_ah_create(s->pd, &a);
	if (s->ah[i] == NULL) {
		PERF_LOG(ERR, "rdma_cm: UD QP %u: AH create: %s", i, rte_strerror(rte_errno));
		return -rte_errno;
	}
	s->peer_qkey[i] = qkey;
	return 0;
}

/* perftest's client tries a connection 10 times, 100 ms apart
 * (retry_rdma_connect, rdma_cm_client_connection). */
#define PERF_CM_TRIES 10
#define PERF_CM_RETRY_US (100 * 1000)
/* wr_id of the UD QPN message (-R -c UD latency tests). */
#define PERF_UDQPN_WRID 0xfffffffeull

/* Ask for connection cm->nb_id (a REQ, or a SIDR_REQ for a UD data QP). */
static int
conn_start(struct perf_cm *cm, const struct sockaddr_in *dst, const struct prdma_cm_conn_param *p)
{
	struct perf_side *s = cm->side;
	uint32_t k = cm->nb_id;

	cm->id[k] = prdma_cm_id_create(cm->ch, s->dev, 1, conn_ps(s, k), NULL);
	if (cm->id[k] == NULL)
		return -rte_errno;
	cm->nb_id++;
	return prdma_cm_connect(cm->id[k], conn_qp(s, k), (const struct sockaddr *)dst, p);
}

/* perftest -R -c UD, latency tests: the client sends its QPN in the
 * immediate of a UD SEND, the server builds its address from it
 * (rdma_cm_send_ud_connection_parameters, _initialize_). */
static int
udqpn_needed(const struct perf_side *s)
{
	return s->o->conn == PERF_CONN_UD && perf_test_is_lat(s->o->test);
}

static int
udqpn_post_recv(struct perf_side *s, uint32_t i)
{
	const struct prdma_recv_wr *bad;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;

	sge.addr = (uintptr_t)(s->ctl + 2 * PERF_CTL_SLOT);
	sge.length = PERF_GRH_LEN + 4;
	sge.lkey = s->ctl_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = PERF_UDQPN_WRID;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return prdma_post_recv(s->qp[i], &wr, &bad);
}

static int
udqpn_wait(struct perf_side *s, struct prdma_cq *cq, int recv, uint32_t *imm)
{
	uint64_t deadline = rte_rdtsc() + (uint64_t)(s->o->timeout_s * rte_get_tsc_hz());
	struct prdma_wc wc;

	while (prdma_cq_poll(cq, 1, &wc) == 0) {
		if (rte_rdtsc() > deadline) {
			PERF_LOG(ERR, "rdma_cm: no UD QPN message within %.0f s", s->o->timeout_s);
			return -ETIMEDOUT;
		}
	}
	if (wc.status != PRDMA_WC_SUCCESS || wc.wr_id != PERF_UDQPN_WRID ||
	    (recv && !(wc.wc_flags & PRDMA_WC_WITH_IMM))) {
		PERF_LOG(ERR, "rdma_cm: UD QPN message: %s", prdma_wc_status_str(wc.status));
		return -EPROTO;
	}
	if (imm != NULL)
		*imm = wc.imm_data;
	return 0;
}

static int
udqpn_send(struct perf_side *s, uint32_t i, uint32_t peer_qpn)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	int ret;

	sge.addr = (uintptr_t)s->ctl;
	sge.length = 4;
	sge.lkey = s->ctl_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = PERF_UDQPN_WRID;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND_WITH_IMM;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.imm_data = s->qp[i]->qp_num;
	wr.wr.ud.ah = s->ah[i];
	wr.wr.ud.remote_qpn = peer_qpn;
	wr.wr.ud.remote_qkey = s->peer_qkey[i];
	ret = prdma_post_send(s->qp[i], &wr, &bad);
	return ret < 0 ? ret : udqpn_wait(s, s->scq, 0, NULL);
}

/* One CM event of run_connections(); *@p up counts the connections done. */
static int
conn_event(struct perf_cm *cm, const struct prdma_cm_event *ev, const struct sockaddr_in *dst,
	   const struct prdma_cm_conn_param *p, uint32_t *up)
{
	struct perf_side *s = cm->side;
	uint32_t total = cm->want, k = cm->nb_id, imm;
	int ret;

	if (ev->event == PRDMA_CM_EVENT_CONNECT_REQUEST && dst == NULL && k < total) {
		if (ev->id->ps != conn_ps(s, k)) {
			PERF_LOG(ERR, "rdma_cm: connection %u: a request in port space 0x%x, "
				 "expected 0x%x", k + 1, ev->id->ps, conn_ps(s, k));
			return -EPROTO;
		}
		cm->id[k] = ev->id;
		cm->nb_id++;
		/* A receive waits before the peer can send: the exchange's first
		 * message, or the UD QPN message. */
		ret = 0;
		if (k == 0 || (conn_ps(s, k) == PRDMA_CM_PS_UDP && udqpn_needed(s)))
			ret = qp_to_init(conn_qp(s, k));
		if (ret == 0 && k == 0)
			ret = perf_cm_prepost(s);
		else if (ret == 0 && conn_ps(s, k) == PRDMA_CM_PS_UDP && udqpn_needed(s))
			ret = udqpn_post_recv(s, k - 1);
		if (ret == 0)
			ret = prdma_cm_accept(ev->id, conn_qp(s, k), p);
		if (ret < 0 || conn_ps(s, k) != PRDMA_CM_PS_UDP)
			return ret;
		/* SIDR ends with our SIDR_REP: no ESTABLISHED on this side. The
		 * client's QPN comes with its keys, as in perftest. */
		ret = ud_peer(s, k - 1, &ev->param.ud, qp_qkey(conn_qp(s, k)));
		if (ret == 0 && udqpn_needed(s)) {
			ret = udqpn_wait(s, s->rcq, 1, &imm);
			if (ret == 0)
				PERF_LOG(DEBUG, "rdma_cm: UD QP %u: the client's QPN 0x%06x",
					 k - 1, imm);
		}
		if (ret == 0)
			(*up)++;
		return ret;
	}
	if (ev->event == PRDMA_CM_EVENT_ESTABLISHED) {
		(*up)++;
		if (dst == NULL)
			return 0;
		if (ev->id->ps == PRDMA_CM_PS_UDP) {
			/* The SIDR_REP: the server's QPN, Q_Key and the path to it. */
			cm->sidr_qpn[k - 2] = ev->param.ud.qp_num;
			ret = ud_peer(s, k - 2, &ev->param.ud, ev->param.ud.qkey);
			if (ret == 0 && udqpn_needed(s))
				ret = udqpn_send(s, k - 2, ev->param.ud.qp_num);
			if (ret < 0)
				return ret;
		}
		return k == total ? 0 : conn_start(cm, dst, p);
	}
	/* The client tries again: the server's listener may not be up yet. */
	if (dst != NULL)
		PERF_LOG(DEBUG, "rdma_cm: connection %u of %u: %s (status %d)", *up + 1, total,
			 prdma_cm_event_str(ev->event), ev->status);
	else
		PERF_LOG(ERR, "rdma_cm: connection %u of %u: unexpected %s (status %d)",
			 *up + 1, total, prdma_cm_event_str(ev->event), ev->status);
	return -ECONNREFUSED;
}

/*
 * Run the CM until connections [cm->nb_id, cm->want) are established: the
 * client asks for them one after the other (each once the previous one is
 * up), so the server, which takes the requests in their order of arrival,
 * gives each the same QP as the client did. With -c UD a data QP's
 * "connection" is a SIDR: up on the client at the SIDR_REP, on the server
 * once answered.
 */
static int
run_connections(struct perf_cm *cm, const struct perf_opts *o, const struct sockaddr_in *dst,
		const struct prdma_cm_conn_param *p)
{
	uint32_t total = cm->want - cm->nb_id, up = 0;
	uint64_t deadline = rte_rdtsc() + (uint64_t)(o->timeout_s * rte_get_tsc_hz());
	struct prdma_cm_event *ev;
	int ret;

	if (dst != NULL) {
		ret = conn_start(cm, dst, p);
		if (ret < 0)
			return ret;
	}
	while (up < total) {
		prdma_cm_channel_progress(cm->ch);
		if (prdma_cm_get_event(cm->ch, &ev) != 0) {
			if (rte_rdtsc() > deadline) {
				PERF_LOG(ERR, "rdma_cm: %u of %u connections up after %.0f s", up,
					 total, o->timeout_s);
				return -ETIMEDOUT;
			}
			continue;
		}
		ret = conn_event(cm, ev, dst, p, &up);
		prdma_cm_ack_event(ev);
		if (ret < 0)
			return ret;
		deadline = rte_rdtsc() + (uint64_t)(o->timeout_s * rte_get_tsc_hz());
	}
	return 0;
}

/*
 * Before the client tries again: the ids from @p first go, and their QPs
 * back to RESET (a rejected REQ leaves its QP in ERR, which the CM will
 * not take; perftest creates new QPs for each try). The exchange QP gets
 * its receive back, which the reset flushed.
 */
static int
client_reset(struct perf_cm *cm, uint32_t first)
{
	struct perf_side *s = cm->side;
	struct prdma_qp_attr at;
	uint32_t k;
	int ret;

	for (k = first; k < cm->nb_id; k++) {
		prdma_cm_id_destroy(cm->id[k]);
		cm->id[k] = NULL;
		memset(&at, 0, sizeof(at));
		at.qp_state = PRDMA_QPS_RESET;
		ret = prdma_qp_modify(conn_qp(s, k), &at, PRDMA_QP_STATE);
		if (ret < 0)
			return ret;
	}
	cm->nb_id = first;
	/* Completions of the reset QPs' flushed work are stale. */
	if (first == 0) {
		struct prdma_wc wc;

		while (prdma_cq_poll(s->ctl_rcq, 1, &wc) > 0)
			;
		s->ctl_posted = 0;
		ret = qp_to_init(s->ctl_qp);
		return ret < 0 ? ret : perf_cm_prepost(s);
	}
	return 0;
}

/* The client: connections [first, want), tried again from @p first (ids
 * destroyed) up to perftest's 10 times, 100 ms apart, when the server
 * rejects them (its listener is not up yet) or does not answer. */
static int
client_connections(struct perf_cm *cm, const struct perf_opts *o, const struct sockaddr_in *dst,
		   const struct prdma_cm_conn_param *p)
{
	uint32_t first = cm->nb_id;
	int ret = -ECONNREFUSED, t;

	for (t = 0; t < PERF_CM_TRIES; t++) {
		if (t > 0) {
			ret = client_reset(cm, first);
			if (ret < 0)
				return ret;
			rte_delay_us_sleep(PERF_CM_RETRY_US);
		}
		ret = run_connections(cm, o, dst, p);
		if (ret == 0 || ret == -ETIMEDOUT)
			return ret;
		PERF_LOG(DEBUG, "rdma_cm: try %d of %d: %s", t + 1, PERF_CM_TRIES,
			 rte_strerror(-ret));
	}
	PERF_LOG(ERR, "rdma_cm: the server refused the connection %d times", PERF_CM_TRIES);
	return ret;
}

/* The server: a listener for this phase only, destroyed once its
 * connections are accepted, as perftest does (rdma_server_connect,
 * rdma_cm_server_connection). */
static int
server_connections(struct perf_cm *cm, const struct perf_opts *o, enum prdma_cm_port_space ps,
		   uint32_t backlog, const struct prdma_cm_conn_param *p)
{
	struct sockaddr_in sin;
	int ret;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(o->port);
	cm->listen_id = prdma_cm_id_create(cm->ch, cm->side->dev, 1, ps, NULL);
	if (cm->listen_id == NULL)
		return -rte_errno;
	ret = prdma_cm_listen(cm->listen_id, (struct sockaddr *)&sin,
			      (int)RTE_MIN(backlog, 4096u));
	if (ret == 0)
		ret = run_connections(cm, o, NULL, p);
	prdma_cm_id_destroy(cm->listen_id);
	cm->listen_id = NULL;
	return ret;
}

static void
conn_params(const struct perf_side *s, struct prdma_cm_conn_param *p)
{
	enum perf_verb v = perf_test_verb(s->o->test);

	memset(p, 0, sizeof(*p));
	if (v == PERF_VERB_READ || v == PERF_VERB_ATOMIC)
		p->responder_resources = p->initiator_depth =
			(uint8_t)RTE_MIN(s->my[0].out_reads, s->max_init_rd);
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

static int
server_addr(const struct perf_opts *o, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(o->port);
	if (inet_pton(AF_INET, o->host, &sin->sin_addr) != 1) {
		PERF_LOG(ERR, "-R needs the server's IPv4 address, not '%s'", o->host);
		return -EINVAL;
	}
	return 0;
}

int
perf_cm_xchg(struct perf_side *s, const struct perf_opts *o, struct perf_cm **cmp)
{
	struct prdma_cm_conn_param p;
	struct sockaddr_in sin;
	struct perf_cm *cm;
	int ret;

	cm = calloc(1, sizeof(*cm));
	if (cm == NULL)
		return -ENOMEM;
	*cmp = cm;
	cm->side = s;
	cm->id = calloc(s->nqp + 1, sizeof(*cm->id));
	cm->sidr_qpn = calloc(s->nqp, sizeof(*cm->sidr_qpn));
	if (cm->id == NULL || cm->sidr_qpn == NULL)
		return -ENOMEM;
	ret = ctl_create(s);
	if (ret < 0)
		return ret;
	cm->ch = prdma_cm_channel_create(0);
	if (cm->ch == NULL)
		return -rte_errno;
	conn_params(s, &p);
	s->cm_mode = 1;
	cm->want = 1;
	if (o->host == NULL) {
		printf("\n************************************\n"
		       "* Waiting for client to connect... *\n"
		       "************************************\n");
		fflush(stdout);
		return server_connections(cm, o, PRDMA_CM_PS_TCP, 1, &p);
	}
	ret = server_addr(o, &sin);
	if (ret < 0)
		return ret;
	/* The server's first message must find a receive. */
	ret = qp_to_init(s->ctl_qp);
	if (ret == 0)
		ret = perf_cm_prepost(s);
	return ret < 0 ? ret : client_connections(cm, o, &sin, &p);
}

int
perf_cm_data(struct perf_cm *cm, const struct perf_opts *o)
{
	struct perf_side *s = cm->side;
	struct prdma_cm_conn_param p;
	struct prdma_qp_attr at;
	struct sockaddr_in sin;
	uint32_t i;
	int ret;

	conn_params(s, &p);
	cm->want = s->nqp + 1;
	if (o->host == NULL) {
		/* A new listener on the same port, RDMA_PS_UDP for UD. */
		ret = server_connections(cm, o, o->conn == PERF_CONN_UD ? PRDMA_CM_PS_UDP :
					 PRDMA_CM_PS_TCP, s->nqp, &p);
	} else {
		ret = server_addr(o, &sin);
		if (ret == 0)
			ret = client_connections(cm, o, &sin, &p);
	}
	if (ret < 0)
		return ret;
	/* The CM chose the PSNs; the keys still carry our own. */
	for (i = 0; i < s->nqp; i++) {
		if (prdma_qp_query(s->qp[i], &at, NULL) == 0) {
			s->my[i].psn = at.sq_psn;
			if (i == 0 && o->conn != PERF_CONN_UD)
				s->mtu = at.path_mtu;
		}
	}
	return 0;
}

/*
 * The client ends every connection as perftest -R does (rdma_disconnect);
 * running the CM until they are all DISCONNECTED also lets our last ACKs
 * leave before the device goes away. The server waits (as long) for the
 * client's disconnects: the client goes first, as with TCP, and a link
 * the two share (memif) is torn down from its side.
 */
static void
disconnect(struct perf_cm *cm, int active)
{
	uint64_t deadline = rte_rdtsc() + 2 * rte_get_tsc_hz();
	struct prdma_cm_event *ev;
	uint32_t k, asked = 0, done = 0;

	/* A SIDR left nothing to end. */
	for (k = 0; k < cm->nb_id; k++)
		if (cm->id[k] != NULL && cm->id[k]->ps == PRDMA_CM_PS_TCP &&
		    (!active || prdma_cm_disconnect(cm->id[k]) == 0))
			asked++;
	while (done < asked && rte_rdtsc() < deadline) {
		prdma_cm_channel_progress(cm->ch);
		if (prdma_cm_get_event(cm->ch, &ev) == 0) {
			done += ev->event == PRDMA_CM_EVENT_DISCONNECTED;
			prdma_cm_ack_event(ev);
		}
	}
}

void
perf_cm_close(struct perf_cm *cm)
{
	struct perf_side *s;
	uint32_t k;

	if (cm == NULL)
		return;
	s = cm->side;
	if (cm->id != NULL && cm->ch != NULL && s->cm_mode)
		disconnect(cm, s->o->host != NULL);
	for (k = 0; cm->id != NULL && k < cm->nb_id; k++)
		if (cm->id[k] != NULL)
			prdma_cm_id_destroy(cm->id[k]);
	if (cm->listen_id != NULL)
		prdma_cm_id_destroy(cm->listen_id);
	if (cm->ch != NULL)
		prdma_cm_channel_destroy(cm->ch);
	if (s->ctl_qp != NULL)
		prdma_qp_destroy(s->ctl_qp);
	if (s->ctl_scq != NULL)
		prdma_cq_destroy(s->ctl_scq);
	if (s->ctl_rcq != NULL)
		prdma_cq_destroy(s->ctl_rcq);
	s->ctl_qp = NULL;
	s->ctl_scq = s->ctl_rcq = NULL;
	s->cm_mode = 0;
	free(cm->id);
	free(cm->sidr_qpn);
	free(cm);
}

void
perf_cm_ud_peers(const struct perf_cm *cm, struct perf_side *s)
{
	uint32_t i;

	if (cm == NULL || s->server || s->o->conn != PERF_CONN_UD)
		return;
	for (i = 0; i < s->nqp; i++) {
		if (s->peer[i].qpn != cm->sidr_qpn[i])
			PERF_LOG(WARNING, "rdma_cm: QP %u: the keys name QPN 0x%06x, SIDR 0x%06x: "
				 "using SIDR's", i, s->peer[i].qpn, cm->sidr_qpn[i]);
		s->peer[i].qpn = cm->sidr_qpn[i];
	}
}

static int
cm_send(struct perf_oob *x, const void *buf, size_t len)
{
	struct perf_side *s = x->side;
	uint64_t deadline = rte_rdtsc() + (uint64_t)(s->o->timeout_s * rte_get_tsc_hz());
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc;
	int ret;

	memcpy(s->ctl, buf, len);
	sge.addr = (uintptr_t)s->ctl;
	sge.length = (uint32_t)len;
	sge.lkey = s->ctl_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = PERF_CTL_WRID;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	ret = prdma_post_send(s->ctl_qp, &wr, &bad);
	if (ret < 0)
		return ret;
	while (prdma_cq_poll(s->ctl_scq, 1, &wc) == 0) {
		if (rte_rdtsc() > deadline)
			return -ETIMEDOUT;
	}
	if (wc.status != PRDMA_WC_SUCCESS) {
		PERF_LOG(ERR, "rdma_cm: out-of-band SEND: %s", prdma_wc_status_str(wc.status));
		return -EIO;
	}
	return 0;
}

int
perf_cm_prepost(struct perf_side *s)
{
	const struct prdma_recv_wr *bad;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;
	int ret;

	sge.addr = (uintptr_t)(s->ctl + PERF_CTL_SLOT);
	sge.length = PERF_CTL_SLOT;
	sge.lkey = s->ctl_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = PERF_CTL_WRID;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = prdma_post_recv(s->ctl_qp, &wr, &bad);
	if (ret == 0)
		s->ctl_posted = 1;
	return ret;
}

static int
cm_recv(struct perf_oob *x, void *buf, size_t len)
{
	struct perf_side *s = x->side;
	uint64_t deadline = rte_rdtsc() + (uint64_t)(s->o->timeout_s * rte_get_tsc_hz());
	uint8_t *rx = s->ctl + PERF_CTL_SLOT;
	struct prdma_wc wc;
	int ret;

	if (!s->ctl_posted) {
		ret = perf_cm_prepost(s);
		if (ret < 0)
			return ret;
	}
	s->ctl_posted = 0;
	while (prdma_cq_poll(s->ctl_rcq, 1, &wc) == 0) {
		if (rte_rdtsc() > deadline)
			return -ETIMEDOUT;
	}
	if (wc.status != PRDMA_WC_SUCCESS || wc.byte_len != len) {
		PERF_LOG(ERR, "rdma_cm: out-of-band receive: %s, %u bytes (expected %zu)",
			 prdma_wc_status_str(wc.status), wc.byte_len, len);
		return -EPROTO;
	}
	memcpy(buf, rx, len);
	/* The next receive goes up before we answer: the peer sends its next
	 * message only after our answer, so it never meets an empty queue
	 * (perftest's rdma_read_keys does the same). */
	return perf_cm_prepost(s);
}

int
perf_cm_msg(struct perf_oob *x, const void *out, void *in, size_t len)
{
	int ret;

	if (x->client) {
		ret = cm_send(x, out, len);
		return ret < 0 ? ret : cm_recv(x, in, len);
	}
	ret = cm_recv(x, in, len);
	return ret < 0 ? ret : cm_send(x, out, len);
}

/* One event of the loopback's SIDRs; *@p up counts the client's QPs done. */
static int
loopback_event(struct perf_side *srv, struct perf_side *cli, struct prdma_cm_id **id,
	       const struct prdma_cm_event *ev, uint32_t *asked, uint32_t *up)
{
	uint32_t n = cli->nqp, k;
	int ret;

	if (ev->event == PRDMA_CM_EVENT_CONNECT_REQUEST && *asked < 2 * n) {
		/* The requests come one at a time, in the client's QP order. */
		k = *asked - n;
		id[n + k] = ev->id;
		(*asked)++;
		ret = prdma_cm_accept(ev->id, srv->qp[k], NULL);
		return ret < 0 ? ret : ud_peer(srv, k, &ev->param.ud, qp_qkey(srv->qp[k]));
	}
	if (ev->event == PRDMA_CM_EVENT_ESTABLISHED && *up < n && ev->id == id[*up]) {
		k = (*up)++;
		cli->peer[k].qpn = ev->param.ud.qp_num;
		ret = ud_peer(cli, k, &ev->param.ud, ev->param.ud.qkey);
		return ret;
	}
	PERF_LOG(ERR, "rdma_cm: UD QP %u of %u: unexpected %s (status %d)", *up + 1, n,
		 prdma_cm_event_str(ev->event), ev->status);
	return -ECONNREFUSED;
}

/*
 * --loopback -R -c UD: both sides in this process on one event channel.
 * The server listens in RDMA_PS_UDP on its port's first IPv4 address;
 * each client QP sends a SIDR_REQ once the previous one is answered. The
 * client's AH, the server's QPN and Q_Key come from the SIDR_REP; the
 * server's AH from the SIDR_REQ (the client's QPN is in its keys). A SIDR
 * keeps no state, so the ids go once every QP is resolved.
 */
int
perf_cm_loopback_ud(struct perf_side *srv, struct perf_side *cli, const struct perf_opts *o)
{
	uint32_t n = cli->nqp, asked = 0, up = 0, i;
	struct prdma_cm_id *lid = NULL, **id;
	struct prdma_cm_channel *ch;
	struct prdma_cm_event *ev;
	struct prdma_qp_attr at;
	struct sockaddr_in sin;
	uint64_t deadline;
	int ret;

	id = calloc(2 * n, sizeof(*id));
	if (id == NULL)
		return -ENOMEM;
	ch = prdma_cm_channel_create(0);
	if (ch == NULL) {
		free(id);
		return -rte_errno;
	}
	/* The server's address: the first IPv4 GID of its port. */
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	lid = prdma_cm_id_create(ch, srv->dev, 1, PRDMA_CM_PS_UDP, NULL);
	ret = lid == NULL ? -rte_errno : prdma_cm_bind(lid, (struct sockaddr *)&sin);
	if (ret < 0)
		goto out;
	memcpy(&sin, &lid->local_addr, sizeof(sin));
	prdma_cm_id_destroy(lid);
	sin.sin_port = htons(o->port);
	lid = prdma_cm_id_create(ch, srv->dev, 1, PRDMA_CM_PS_UDP, NULL);
	ret = lid == NULL ? -rte_errno :
			    prdma_cm_listen(lid, (struct sockaddr *)&sin, (int)RTE_MIN(n, 4096u));
	if (ret < 0)
		goto out;
	asked = n;       /* id[0..n): the client's; id[n..asked): the server's */
	deadline = rte_rdtsc() + (uint64_t)(o->timeout_s * rte_get_tsc_hz());
	while (up < n) {
		if (id[up] == NULL) {
			id[up] = prdma_cm_id_create(ch, cli->dev, 1, PRDMA_CM_PS_UDP, NULL);
			ret = id[up] == NULL ? -rte_errno :
				prdma_cm_connect(id[up], cli->qp[up], (struct sockaddr *)&sin,
						 NULL);
			if (ret < 0)
				goto out;
		}
		prdma_cm_channel_progress(ch);
		if (prdma_cm_get_event(ch, &ev) != 0) {
			if (rte_rdtsc() > deadline) {
				PERF_LOG(ERR, "rdma_cm: %u of %u UD QPs resolved after %.0f s", up,
					 n, o->timeout_s);
				ret = -ETIMEDOUT;
				goto out;
			}
			continue;
		}
		ret = loopback_event(srv, cli, id, ev, &asked, &up);
		prdma_cm_ack_event(ev);
		if (ret < 0)
			goto out;
	}
	/* The CM chose the send PSNs: the keys report them. */
	for (i = 0; i < n; i++) {
		if (prdma_qp_query(cli->qp[i], &at, NULL) == 0)
			cli->my[i].psn = srv->peer[i].psn = at.sq_psn;
		if (prdma_qp_query(srv->qp[i], &at, NULL) == 0)
			srv->my[i].psn = cli->peer[i].psn = at.sq_psn;
	}
out:
	for (i = 0; i < 2 * n; i++)
		if (id[i] != NULL)
			prdma_cm_id_destroy(id[i]);
	if (lid != NULL)
		prdma_cm_id_destroy(lid);
	prdma_cm_channel_destroy(ch);
	free(id);
	return ret;
}
