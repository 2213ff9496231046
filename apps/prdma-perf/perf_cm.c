/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * perftest -R: the RC connection comes from the connection manager
 * (service 0x0106 << 16 | port) and the out-of-band messages travel as
 * signaled RC SENDs on the test's QP, client first.
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
	struct prdma_cm_channel *ch;
	struct prdma_cm_id *listen_id;
	struct prdma_cm_id *id;
};

static int
wait_event(struct perf_cm *cm, const struct perf_opts *o, enum prdma_cm_event_type want,
	   struct prdma_cm_id **new_id)
{
	uint64_t deadline = rte_rdtsc() + (uint64_t)(o->timeout_s * rte_get_tsc_hz());
	struct prdma_cm_event *ev;
	enum prdma_cm_event_type got;
	int status;

	for (;;) {
		prdma_cm_channel_progress(cm->ch);
		if (prdma_cm_get_event(cm->ch, &ev) == 0) {
			got = ev->event;
			status = ev->status;
			if (new_id != NULL && got == PRDMA_CM_EVENT_CONNECT_REQUEST)
				*new_id = ev->id;
			prdma_cm_ack_event(ev);
			if (got == want)
				return 0;
			PERF_LOG(ERR, "rdma_cm: expected %s, got %s (status %d)",
				 prdma_cm_event_str(want), prdma_cm_event_str(got), status);
			return -ECONNREFUSED;
		}
		if (rte_rdtsc() > deadline) {
			PERF_LOG(ERR, "rdma_cm: no %s within %.0f s", prdma_cm_event_str(want),
				 o->timeout_s);
			return -ETIMEDOUT;
		}
	}
}

int
perf_cm_establish(struct perf_side *s, const struct perf_opts *o, struct perf_cm **cmp)
{
	enum perf_verb v = perf_test_verb(o->test);
	struct prdma_cm_conn_param p;
	struct sockaddr_in sin;
	struct perf_cm *cm;
	int ret;

	if (s->nqp != 1) {
		PERF_LOG(ERR, "-R connects one QP (-q 1)");
		return -EINVAL;
	}
	cm = calloc(1, sizeof(*cm));
	if (cm == NULL)
		return -ENOMEM;
	*cmp = cm;
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
		ret = prdma_cm_listen(cm->listen_id, (struct sockaddr *)&sin, 1);
		if (ret < 0)
			return ret;
		printf("\n************************************\n"
		       "* Waiting for client to connect... *\n"
		       "************************************\n");
		fflush(stdout);
		ret = wait_event(cm, o, PRDMA_CM_EVENT_CONNECT_REQUEST, &cm->id);
		if (ret < 0)
			return ret;
		ret = prdma_cm_accept(cm->id, s->qp[0], &p);
		if (ret < 0)
			return ret;
	} else {
		if (inet_pton(AF_INET, o->host, &sin.sin_addr) != 1) {
			PERF_LOG(ERR, "-R needs the server's IPv4 address, not '%s'", o->host);
			return -EINVAL;
		}
		cm->id = prdma_cm_id_create(cm->ch, s->dev, 1, PRDMA_CM_PS_TCP, NULL);
		if (cm->id == NULL)
			return -rte_errno;
		ret = prdma_cm_connect(cm->id, s->qp[0], (struct sockaddr *)&sin, &p);
		if (ret < 0)
			return ret;
	}
	ret = wait_event(cm, o, PRDMA_CM_EVENT_ESTABLISHED, NULL);
	if (ret < 0)
		return ret;
	s->cm_mode = 1;
	/* The CM chose the PSNs; the keys still carry our own. */
	{
		struct prdma_qp_attr at;

		if (prdma_qp_query(s->qp[0], &at, NULL) == 0) {
			s->my[0].psn = at.sq_psn;
			s->mtu = at.path_mtu;
		}
	}
	return 0;
}

/* The client ends the connection as perftest -R does (rdma_disconnect);
 * running the CM until DISCONNECTED also lets our last ACKs leave before
 * the device goes away. */
static void
disconnect(struct perf_cm *cm)
{
	uint64_t deadline = rte_rdtsc() + 2 * rte_get_tsc_hz();
	struct prdma_cm_event *ev;
	int done = 0;

	if (prdma_cm_disconnect(cm->id) < 0)
		return;
	while (!done && rte_rdtsc() < deadline) {
		prdma_cm_channel_progress(cm->ch);
		if (prdma_cm_get_event(cm->ch, &ev) == 0) {
			done = ev->event == PRDMA_CM_EVENT_DISCONNECTED;
			prdma_cm_ack_event(ev);
		}
	}
}

void
perf_cm_close(struct perf_cm *cm)
{
	if (cm == NULL)
		return;
	if (cm->id != NULL && cm->listen_id == NULL)
		disconnect(cm);
	if (cm->id != NULL)
		prdma_cm_id_destroy(cm->id);
	if (cm->listen_id != NULL)
		prdma_cm_id_destroy(cm->listen_id);
	if (cm->ch != NULL)
		prdma_cm_channel_destroy(cm->ch);
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
	ret = prdma_post_send(s->qp[0], &wr, &bad);
	if (ret < 0)
		return ret;
	while (prdma_cq_poll(s->scq, 1, &wc) == 0) {
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
	ret = prdma_post_recv(s->qp[0], &wr, &bad);
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
	while (prdma_cq_poll(s->rcq, 1, &wc) == 0) {
		if (rte_rdtsc() > deadline)
			return -ETIMEDOUT;
	}
	if (wc.status != PRDMA_WC_SUCCESS || wc.byte_len != len) {
		PERF_LOG(ERR, "rdma_cm: out-of-band receive: %s, %u bytes (expected %zu)",
			 prdma_wc_status_str(wc.status), wc.byte_len, len);
		return -EPROTO;
	}
	/* Receives are taken in order: a data receive left over from a SEND
	 * test may hold the message instead of the one just posted. */
	memcpy(buf, wc.wr_id == PERF_CTL_WRID ? rx : perf_rx_slot(s, (uint32_t)wc.wr_id), len);
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
