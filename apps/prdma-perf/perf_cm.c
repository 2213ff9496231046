/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * perftest -R: every RC connection comes from the connection manager
 * (service 0x0106 << 16 | port), as in perftest's rdma_cm mode: first the
 * one the out-of-band messages travel on (signaled RC SENDs, client
 * first), then one per data QP (-q). The messages have their own QP and
 * CQs, so they never mix with the test's SENDs and the serving side of a
 * timed (-D) run sees the client's next message as soon as it lands.
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
 * Run the CM until every connection is established: the client asks for
 * them one after the other (each once the previous one is up), so the
 * server, which takes the requests in their order of arrival, gives each
 * the same QP as the client did.
 */
static int
run_connections(struct perf_cm *cm, const struct perf_opts *o, const struct sockaddr_in *dst,
		const struct prdma_cm_conn_param *p)
{
	struct perf_side *s = cm->side;
	uint32_t total = s->nqp + 1, up = 0;
	uint64_t deadline = rte_rdtsc() + (uint64_t)(o->timeout_s * rte_get_tsc_hz());
	enum prdma_cm_event_type got;
	struct prdma_cm_event *ev;
	struct prdma_cm_id *nid;
	int status, ret;

	if (dst != NULL) {
		cm->id[0] = prdma_cm_id_create(cm->ch, s->dev, 1, PRDMA_CM_PS_TCP, NULL);
		if (cm->id[0] == NULL)
			return -rte_errno;
		cm->nb_id = 1;
		ret = prdma_cm_connect(cm->id[0], conn_qp(s, 0), (const struct sockaddr *)dst, p);
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
		got = ev->event;
		status = ev->status;
		nid = ev->id;
		prdma_cm_ack_event(ev);
		if (got == PRDMA_CM_EVENT_CONNECT_REQUEST && dst == NULL && cm->nb_id < total) {
			cm->id[cm->nb_id] = nid;
			ret = prdma_cm_accept(nid, conn_qp(s, cm->nb_id), p);
			cm->nb_id++;
			if (ret < 0)
				return ret;
		} else if (got == PRDMA_CM_EVENT_ESTABLISHED) {
			up++;
			deadline = rte_rdtsc() + (uint64_t)(o->timeout_s * rte_get_tsc_hz());
			if (dst == NULL || cm->nb_id == total)
				continue;
			cm->id[cm->nb_id] = prdma_cm_id_create(cm->ch, s->dev, 1, PRDMA_CM_PS_TCP,
							       NULL);
			if (cm->id[cm->nb_id] == NULL)
				return -rte_errno;
			ret = prdma_cm_connect(cm->id[cm->nb_id], conn_qp(s, cm->nb_id),
					       (const struct sockaddr *)dst, p);
			cm->nb_id++;
			if (ret < 0)
				return ret;
		} else {
			PERF_LOG(ERR, "rdma_cm: connection %u of %u: unexpected %s (status %d)",
				 up + 1, total, prdma_cm_event_str(got), status);
			return -ECONNREFUSED;
		}
	}
	return 0;
}

int
perf_cm_establish(struct perf_side *s, const struct perf_opts *o, struct perf_cm **cmp)
{
	enum perf_verb v = perf_test_verb(o->test);
	struct prdma_cm_conn_param p;
	struct prdma_qp_attr at;
	struct sockaddr_in sin;
	struct perf_cm *cm;
	uint32_t i;
	int ret;

	cm = calloc(1, sizeof(*cm));
	if (cm == NULL)
		return -ENOMEM;
	*cmp = cm;
	cm->side = s;
	cm->id = calloc(s->nqp + 1, sizeof(*cm->id));
	if (cm->id == NULL)
		return -ENOMEM;
	ret = ctl_create(s);
	if (ret < 0)
		return ret;
	cm->ch = prdma_cm_channel_create(0);
	if (cm->ch == NULL)
		return -rte_errno;
	memset(&p, 0, sizeof(p));
	if (v == PERF_VERB_READ || v == PERF_VERB_ATOMIC)
		p.responder_resources = p.initiator_depth =
			(uint8_t)RTE_MIN(s->my[0].out_reads, s->max_init_rd);
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(o->port);
	if (o->host == NULL) {
		cm->listen_id = prdma_cm_id_create(cm->ch, s->dev, 1, PRDMA_CM_PS_TCP, NULL);
		if (cm->listen_id == NULL)
			return -rte_errno;
		ret = prdma_cm_listen(cm->listen_id, (struct sockaddr *)&sin,
				      (int)RTE_MIN(s->nqp + 1, 4096u));
		if (ret < 0)
			return ret;
		printf("\n************************************\n"
		       "* Waiting for client to connect... *\n"
		       "************************************\n");
		fflush(stdout);
		ret = run_connections(cm, o, NULL, &p);
	} else {
		if (inet_pton(AF_INET, o->host, &sin.sin_addr) != 1) {
			PERF_LOG(ERR, "-R needs the server's IPv4 address, not '%s'", o->host);
			return -EINVAL;
		}
		ret = run_connections(cm, o, &sin, &p);
	}
	if (ret < 0)
		return ret;
	s->cm_mode = 1;
	/* The CM chose the PSNs; the keys still carry our own. */
	for (i = 0; i < s->nqp; i++) {
		if (prdma_qp_query(s->qp[i], &at, NULL) == 0) {
			s->my[i].psn = at.sq_psn;
			if (i == 0)
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

	for (k = 0; k < cm->nb_id; k++)
		if (cm->id[k] != NULL && (!active || prdma_cm_disconnect(cm->id[k]) == 0))
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
		disconnect(cm, cm->listen_id == NULL);
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
	free(cm);
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
	return 0;
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
