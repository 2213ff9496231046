/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The CM's agent on one device port: the GSI QP (QP1, Q_Key 0x80010000),
 * its CQ, MAD buffers in DPDK memory and a small cache of address handles.
 * Created by the port's first id and destroyed with its last. Everything
 * here runs with cm_lock held.
 */

#include <string.h>
#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "cm_private.h"
#include "prdma_cm_test.h"

#define CM_BUF_SIZE (CM_RECV_SLOTS * CM_RECV_SLOT_SIZE + CM_SEND_SLOTS * CM_MAD_SIZE)
static uint32_t cm_tid_hi_next = 1;

static int reap_sends(struct cm_agent *ag);

static uint8_t *
recv_slot(struct cm_agent *ag, uint32_t i)
{
	return ag->buf + (size_t)i * CM_RECV_SLOT_SIZE;
}

static uint8_t *
send_slot(struct cm_agent *ag, uint32_t i)
{
	return ag->buf + (size_t)CM_RECV_SLOTS * CM_RECV_SLOT_SIZE +
	       (size_t)i * CM_MAD_SIZE;
}

static int
post_recv(struct cm_agent *ag, uint32_t i)
{
	const struct prdma_recv_wr *bad;
	struct prdma_sge sge = {
		.addr = (uintptr_t)recv_slot(ag, i),
		.length = CM_RECV_SLOT_SIZE,
		.lkey = ag->mr->lkey,
	};
	struct prdma_recv_wr wr = {
		.wr_id = i,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return prdma_post_recv(ag->qp, &wr, &bad);
}

static int
gsi_qp_up(struct cm_agent *ag)
{
	struct prdma_qp_attr a;
	uint32_t i;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = ag->port_num;
	a.qkey = PRDMA_GSI_QKEY;
	ret = prdma_qp_modify(ag->qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
			      PRDMA_QP_PORT | PRDMA_QP_QKEY);
	if (ret < 0)
		return ret;
	a.qp_state = PRDMA_QPS_RTR;
	ret = prdma_qp_modify(ag->qp, &a, PRDMA_QP_STATE);
	if (ret < 0)
		return ret;
	a.qp_state = PRDMA_QPS_RTS;
	a.sq_psn = 0;
	ret = prdma_qp_modify(ag->qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN);
	if (ret < 0)
		return ret;
	for (i = 0; i < CM_RECV_SLOTS; i++) {
		ret = post_recv(ag, i);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void
agent_free(struct cm_agent *ag)
{
	uint32_t i;

	for (i = 0; i < CM_AH_CACHE; i++)
		if (ag->ahs[i].ah != NULL)
			prdma_ah_destroy(ag->ahs[i].ah);
	if (ag->qp != NULL)
		prdma_qp_destroy(ag->qp);
	if (ag->scq != NULL)
		prdma_cq_destroy(ag->scq);
	if (ag->rcq != NULL)
		prdma_cq_destroy(ag->rcq);
	if (ag->mr != NULL)
		prdma_mr_dereg(ag->mr);
	if (ag->pd != NULL)
		prdma_pd_free(ag->pd);
	rte_free(ag->buf);
	rte_free(ag);
}

static struct cm_agent *
agent_create(struct prdma_dev *dev, uint8_t port_num)
{
	struct prdma_qp_init_attr qa;
	struct prdma_cq_init_attr ca;
	struct prdma_port_attr pattr;
	struct prdma_dev_attr dattr;
	struct cm_agent *ag;
	uint32_t i;
	int ret;

	ret = prdma_dev_query(dev, &dattr);
	if (ret < 0)
		return NULL;
	if (port_num == 0 || port_num > dattr.phys_port_cnt) {
		rte_errno = EINVAL;
		return NULL;
	}
	ret = prdma_port_query(dev, port_num, &pattr);
	if (ret < 0)
		return NULL;
	ag = rte_zmalloc_socket("prdma_cm_agent", sizeof(*ag), 0, dev->socket_id);
	if (ag == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	TAILQ_INIT(&ag->ids);
	ag->dev = dev;
	ag->port_num = port_num;
	ag->ack_delay = dattr.local_ca_ack_delay;
	ag->active_mtu = pattr.active_mtu != 0 ? pattr.active_mtu : PRDMA_MTU_1024;
	ag->node_guid = dattr.node_guid;
	ag->tid_hi = cm_tid_hi_next++;
	ag->max_caller = dattr.max_caller_data != 0 ?
		RTE_MIN(dattr.max_caller_data, (uint32_t)PRDMA_CM_REQ_PRIVATE_DATA) :
		PRDMA_CM_REQ_PRIVATE_DATA;
	ag->max_callee = dattr.max_callee_data != 0 ?
		RTE_MIN(dattr.max_callee_data, (uint32_t)PRDMA_CM_REP_PRIVATE_DATA) :
		PRDMA_CM_REP_PRIVATE_DATA;
	ag->max_rd_atom = dattr.max_qp_rd_atom;
	ag->max_init_rd_atom = dattr.max_qp_init_rd_atom;
	ag->buf = rte_zmalloc_socket("prdma_cm_mads", CM_BUF_SIZE, RTE_CACHE_LINE_SIZE,
				     dev->socket_id);
	if (ag->buf == NULL) {
		rte_errno = ENOMEM;
		goto fail;
	}
	ag->pd = prdma_pd_alloc(dev);
	if (ag->pd == NULL)
		goto fail;
	ag->mr = prdma_mr_reg(ag->pd, ag->buf, CM_BUF_SIZE, PRDMA_ACCESS_LOCAL_WRITE);
	if (ag->mr == NULL)
		goto fail;
	memset(&ca, 0, sizeof(ca));
	ca.cqe = CM_SEND_SLOTS;
	ag->scq = prdma_cq_create(dev, &ca);
	if (ag->scq == NULL)
		goto fail;
	ca.cqe = CM_RECV_SLOTS;
	ag->rcq = prdma_cq_create(dev, &ca);
	if (ag->rcq == NULL)
		goto fail;
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_UD;
	qa.send_cq = ag->scq;
	qa.recv_cq = ag->rcq;
	qa.cap.max_send_wr = CM_SEND_SLOTS;
	qa.cap.max_recv_wr = CM_RECV_SLOTS;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.create_flags = PRDMA_QP_CREATE_GSI;
	ag->qp = prdma_qp_create(ag->pd, &qa);
	if (ag->qp == NULL) {
		CM_LOG(ERR, "%s port %u: no GSI QP (%s)", dev->name, port_num,
		       rte_strerror(rte_errno));
		goto fail;
	}
	ret = gsi_qp_up(ag);
	if (ret < 0) {
		CM_LOG(ERR, "%s port %u: GSI QP bring-up failed (%d)", dev->name,
		       port_num, ret);
		rte_errno = -ret;
		goto fail;
	}
	for (i = 0; i < CM_SEND_SLOTS; i++)
		ag->send_free[i] = CM_SEND_SLOTS - 1 - i;
	ag->nb_send_free = CM_SEND_SLOTS;
	TAILQ_INSERT_TAIL(&cm_agents, ag, next);
	CM_LOG(DEBUG, "%s port %u: CM agent up, GSI QP %u", dev->name, port_num,
	       ag->qp->qp_num);
	return ag;
fail:
	ret = rte_errno;
	agent_free(ag);
	rte_errno = ret;
	return NULL;
}

struct cm_agent *
cm_agent_get(struct prdma_dev *dev, uint8_t port_num)
{
	struct cm_agent *ag;

	TAILQ_FOREACH(ag, &cm_agents, next)
		if (ag->dev == dev && ag->port_num == port_num)
			break;
	if (ag == NULL)
		ag = agent_create(dev, port_num);
	if (ag != NULL)
		ag->refs++;
	return ag;
}

bool
cm_agent_idle(struct cm_agent *ag)
{
	reap_sends(ag);
	if (ag->nb_txq > 0)
		cm_agent_flush(ag);
	return ag->nb_send_free == CM_SEND_SLOTS && ag->nb_txq == 0;
}

uint64_t
cm_agent_drain_end(void)
{
	return cm_now() + rte_get_tsc_hz() / (1000000 / CM_DRAIN_US);
}

void
cm_agent_put(struct cm_agent *ag)
{
	uint64_t end;

	if (--ag->refs > 0)
		return;
	/* Let the last REJ/DREQ/DREP leave before the QP is flushed. */
	end = cm_agent_drain_end();
	while (!cm_agent_idle(ag) && cm_now() < end)
		;
	TAILQ_REMOVE(&cm_agents, ag, next);
	agent_free(ag);
}

/* Send completions free their slots (sends have a CQ of their own so the
 * send path can reap them without re-entering the receive handlers). */
static int
reap_sends(struct cm_agent *ag)
{
	struct prdma_wc wc[16];
	int n, i, work = 0;

	do {
		n = prdma_cq_poll(ag->scq, RTE_DIM(wc), wc);
		for (i = 0; i < n; i++) {
			ag->send_free[ag->nb_send_free++] =
				(uint32_t)(wc[i].wr_id & (CM_SEND_SLOTS - 1));
			if (wc[i].status != PRDMA_WC_SUCCESS &&
			    wc[i].status != PRDMA_WC_WR_FLUSH_ERR)
				cm_stat_add(ag->dev, CM_ST_TX_ERR, 1);
		}
		work += n;
	} while (n == (int)RTE_DIM(wc));
	return work;
}

/*
 * The AH for @dgid, from the cache or made now. The MAC is resolved
 * without waiting (PRDMA_AH_F_NOWAIT): NULL with rte_errno EAGAIN while
 * the neighbour is unknown; the resolution goes on in the provider.
 */
static struct prdma_ah *
ah_get(struct cm_agent *ag, const union prdma_gid *dgid, uint8_t sgid_index)
{
	struct prdma_ah_attr attr;
	struct prdma_ah *ah;
	struct cm_ah *e;
	uint32_t i;

	for (i = 0; i < CM_AH_CACHE; i++) {
		e = &ag->ahs[i];
		if (e->ah != NULL && e->sgid_index == sgid_index &&
		    memcmp(&e->dgid, dgid, sizeof(*dgid)) == 0)
			return e->ah;
	}
	for (i = 0; i < CM_AH_CACHE; i++)
		if (ag->ahs[i].ah == NULL)
			break;
	if (i == CM_AH_CACHE) {
		/* A MAD in flight may still use the victim's AH. */
		reap_sends(ag);
		if (ag->nb_send_free < CM_SEND_SLOTS) {
			rte_errno = EBUSY;
			return NULL;
		}
	}
	memset(&attr, 0, sizeof(attr));
	attr.dgid = *dgid;
	attr.sgid_index = sgid_index;
	attr.hop_limit = CM_HOP_LIMIT;
	attr.port_num = ag->port_num;
	attr.flags = PRDMA_AH_F_NOWAIT;
	ah = prdma_ah_create(ag->pd, &attr);
	if (ah == NULL)
		return NULL;
	if (i == CM_AH_CACHE) {
		i = ag->ah_next++ % CM_AH_CACHE;
		prdma_ah_destroy(ag->ahs[i].ah);
	}
	e = &ag->ahs[i];
	e->ah = ah;
	e->dgid = *dgid;
	e->sgid_index = sgid_index;
	return ah;
}

int
cm_agent_path_ready(struct cm_agent *ag, const union prdma_gid *dgid,
		    uint8_t sgid_index)
{
	if (ah_get(ag, dgid, sgid_index) != NULL)
		return 0;
	return -rte_errno;
}

static int
post_mad(struct cm_agent *ag, struct prdma_ah *ah, const uint8_t mad[CM_MAD_SIZE])
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	uint32_t slot;
	int ret;

	if (ag->nb_send_free == 0)
		reap_sends(ag);
	if (ag->nb_send_free == 0)
		return -ENOBUFS;
	slot = ag->send_free[--ag->nb_send_free];
	memcpy(send_slot(ag, slot), mad, CM_MAD_SIZE);
	sge.addr = (uintptr_t)send_slot(ag, slot);
	sge.length = CM_MAD_SIZE;
	sge.lkey = ag->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = CM_SEND_TAG | slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 1;
	wr.wr.ud.remote_qkey = PRDMA_GSI_QKEY;
	ret = prdma_post_send(ag->qp, &wr, &bad);
	if (ret < 0)
		ag->send_free[ag->nb_send_free++] = slot;
	return ret;
}

static void
send_failed(struct cm_agent *ag, uint16_t attr_id, int ret)
{
	cm_stat_add(ag->dev, CM_ST_TX_ERR, 1);
	CM_LOG(WARNING, "%s: cannot send %s (%d); a resend or the peer's will recover",
	       ag->dev->name, cm_attr_str(attr_id), ret);
}

static int
send_now(struct cm_agent *ag, struct prdma_ah *ah, const uint8_t mad[CM_MAD_SIZE],
	 int action)
{
	uint16_t attr_id = (uint16_t)(mad[16] << 8 | mad[17]);
	int ret;

	ret = post_mad(ag, ah, mad);
	if (ret == 0 && action == PRDMA_CM_TEST_TX_DUP)
		ret = post_mad(ag, ah, mad);
	if (ret == 0) {
		CM_LOG(DEBUG, "%s: sent %s", ag->dev->name, cm_attr_str(attr_id));
		return 0;
	}
	send_failed(ag, attr_id, ret);
	return ret;
}

static bool
txq_has_path(const struct cm_agent *ag, const union prdma_gid *dgid, uint8_t sgid_index)
{
	uint32_t i;

	for (i = 0; i < ag->nb_txq; i++)
		if (ag->txq[i].sgid_index == sgid_index &&
		    memcmp(&ag->txq[i].dgid, dgid, sizeof(*dgid)) == 0)
			return true;
	return false;
}

/* Park a MAD until its peer's MAC is known (cm_agent_flush sends it). */
static int
txq_add(struct cm_agent *ag, const union prdma_gid *dgid, uint8_t sgid_index,
	const uint8_t mad[CM_MAD_SIZE], int action)
{
	struct cm_tx_wait *w;
	uint64_t now = cm_now();
	uint32_t i;

	for (i = 0; i < ag->nb_txq; i++)
		if (memcmp(ag->txq[i].mad, mad, CM_MAD_SIZE) == 0 &&
		    memcmp(&ag->txq[i].dgid, dgid, sizeof(*dgid)) == 0)
			return 0;       /* a resend of a MAD still waiting */
	if (ag->nb_txq == CM_TXQ_SIZE) {
		/* Full (a flood of MADs from unresolvable addresses): drop the
		 * newest; the peer's resend or ours gets another chance. */
		cm_stat_add(ag->dev, CM_ST_UNRESOLVED, 1);
		return -ENOBUFS;
	}
	w = &ag->txq[ag->nb_txq++];
	w->dgid = *dgid;
	w->sgid_index = sgid_index;
	w->dup = action == PRDMA_CM_TEST_TX_DUP;
	w->deadline = now + rte_get_tsc_hz() / 1000 * CM_RESOLVE_MS;
	w->next_try = now + rte_get_tsc_hz() / 1000000 * CM_RESOLVE_POLL_US;
	memcpy(w->mad, mad, CM_MAD_SIZE);
	return 0;
}

/* A MAD that cannot leave (its peer's MAC unknown after the wait, or
 * @at_once the provider's EHOSTUNREACH): a REQ or SIDR_REQ of ours fails
 * its connect now. */
static void
txq_gave_up(struct cm_agent *ag, const uint8_t mad[CM_MAD_SIZE], bool at_once)
{
	uint16_t attr_id = (uint16_t)(mad[16] << 8 | mad[17]);
	const uint8_t *b = mad + CM_MAD_HDR_SIZE;
	uint32_t local_id = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
			    (uint32_t)b[2] << 8 | b[3];
	struct cm_id_priv *id = NULL;
	char ip[INET6_ADDRSTRLEN];

	if (attr_id == CM_ATTR_REQ || attr_id == CM_ATTR_SIDR_REQ)
		id = cm_find_by_local(ag, local_id);
	if (id == NULL || id->passive) {
		/* A reply to whoever asked: DEBUG only, a flood must not
		 * become a flood of log lines. */
		if (at_once)
			CM_LOG(DEBUG, "%s: dropped %s: the provider has no MAC for the peer",
			       ag->dev->name, cm_attr_str(attr_id));
		else
			CM_LOG(DEBUG, "%s: dropped %s: the peer's address did not resolve "
			       "within %u ms", ag->dev->name, cm_attr_str(attr_id),
			       CM_RESOLVE_MS);
		return;
	}
	if (cm_gid_is_v4(&id->dgid))
		inet_ntop(AF_INET, &id->dgid.raw[12], ip, sizeof(ip));
	else
		inet_ntop(AF_INET6, id->dgid.raw, ip, sizeof(ip));
	if (at_once)
		CM_LOG(ERR, "%s: connect: the provider has no MAC for %s", ag->dev->name,
		       ip);
	else
		CM_LOG(ERR, "%s: connect: %s does not answer %s within %u ms",
		       ag->dev->name, ip,
		       cm_gid_is_v4(&id->dgid) ? "ARP" : "neighbour discovery",
		       CM_RESOLVE_MS);
	cm_unresolved(id);
}

/*
 * Linux CMs always answer to QP 1 at the peer's address (never to the
 * source QP of a datagram), so every MAD goes to QP 1 of @p dgid. A MAD
 * whose peer's MAC is not known yet is queued, never waited for: the CM
 * holds cm_lock and must not stall on the network (F2).
 */
int
cm_agent_send(struct cm_agent *ag, const union prdma_gid *dgid, uint8_t sgid_index,
	      const uint8_t mad[CM_MAD_SIZE])
{
	uint16_t attr_id = (uint16_t)(mad[16] << 8 | mad[17]);
	struct prdma_ah *ah;
	int action;

	cm_stat_add(ag->dev, CM_ST_TX, 1);
	action = cm_test_tx_action(ag->dev, attr_id);
	if (action == PRDMA_CM_TEST_TX_DROP)
		return 0;
	if (action == PRDMA_CM_TEST_TX_HOLD) {
		cm_test_tx_hold(ag, dgid, sgid_index, mad);
		action = PRDMA_CM_TEST_TX_SEND;
	}
	/* Behind MADs already waiting for this peer: keep their order. */
	if (txq_has_path(ag, dgid, sgid_index))
		return txq_add(ag, dgid, sgid_index, mad, action);
	ah = ah_get(ag, dgid, sgid_index);
	if (ah == NULL && rte_errno == EAGAIN)
		return txq_add(ag, dgid, sgid_index, mad, action);
	if (ah == NULL && rte_errno == EHOSTUNREACH) {
		/* The provider knows now that it has no MAC for the peer (the
		 * Hermon PMD: not a static neighbour): what a resolution that
		 * never answers ends in, without the wait. A REQ of ours fails
		 * its connect now; a reply is dropped and counted, quietly (a
		 * flood of forged MADs must not become log lines, F2). */
		cm_stat_add(ag->dev, CM_ST_UNRESOLVED, 1);
		txq_gave_up(ag, mad, true);
		return -EHOSTUNREACH;
	}
	if (ah == NULL) {
		send_failed(ag, attr_id, -rte_errno);
		return -rte_errno;
	}
	return send_now(ag, ah, mad, action);
}

/* Send the queued MADs whose peer is now known; drop the overdue ones. */
int
cm_agent_flush(struct cm_agent *ag)
{
	uint64_t now = cm_now();
	uint8_t done[CM_TXQ_SIZE], dropped[CM_TXQ_SIZE][CM_MAD_SIZE];
	struct cm_tx_wait *w;
	struct prdma_ah *ah;
	uint32_t i, j, n = ag->nb_txq, nd = 0;
	int work = 0;

	memset(done, 0, sizeof(done));
	for (i = 0; i < n; i++) {
		w = &ag->txq[i];
		if (now < w->next_try)
			continue;
		/* An earlier MAD to the same peer still waits: keep order. */
		for (j = 0; j < i; j++)
			if (!done[j] && ag->txq[j].sgid_index == w->sgid_index &&
			    memcmp(&ag->txq[j].dgid, &w->dgid, sizeof(w->dgid)) == 0)
				break;
		if (j < i)
			continue;
		ah = ah_get(ag, &w->dgid, w->sgid_index);
		if (ah != NULL) {
			send_now(ag, ah, w->mad, w->dup ? PRDMA_CM_TEST_TX_DUP :
							  PRDMA_CM_TEST_TX_SEND);
			done[i] = 1;
		} else if (rte_errno != EAGAIN || now >= w->deadline) {
			cm_stat_add(ag->dev, rte_errno == EAGAIN ? CM_ST_UNRESOLVED :
							     CM_ST_TX_ERR, 1);
			done[i] = 2;
		} else {
			w->next_try = now + rte_get_tsc_hz() / 1000000 * CM_RESOLVE_POLL_US;
		}
	}
	/* Copy out and compact first, then notify: cm_unresolved may queue. */
	for (i = 0; i < n; i++)
		if (done[i] == 2)
			memcpy(dropped[nd++], ag->txq[i].mad, CM_MAD_SIZE);
	for (i = 0, j = 0; i < n; i++) {
		if (done[i] == 0) {
			if (i != j)
				ag->txq[j] = ag->txq[i];
			j++;
		} else {
			work++;
		}
	}
	ag->nb_txq = j;
	for (i = 0; i < nd; i++)
		txq_gave_up(ag, dropped[i], false);
	return work;
}

/* Find the MAD and its sender in a receive slot. */
static void
recv_one(struct cm_agent *ag, const struct prdma_wc *wc)
{
	const uint8_t *slot = recv_slot(ag, (uint32_t)wc->wr_id);
	union prdma_gid src;
	bool have_src = false;
	struct cm_msg msg;
	const uint8_t *mad = slot;
	size_t len = wc->byte_len;
	int ret;

	if (wc->wc_flags & PRDMA_WC_GRH) {
		if (len < CM_GRH_SIZE) {
			len = 0;
		} else {
			have_src = cm_gid_from_grh(slot, &src);
			mad = slot + CM_GRH_SIZE;
			len -= CM_GRH_SIZE;
		}
	}
	cm_stat_add(ag->dev, CM_ST_RX, 1);
	ret = cm_mad_decode(mad, len, &msg);
	if (ret < 0) {
		cm_stat_add(ag->dev, CM_ST_MALFORMED, 1);
		CM_LOG(DEBUG, "%s: dropped a malformed MAD (%u bytes, %s)",
		       ag->dev->name, (unsigned int)len, strerror(-ret));
		return;
	}
	CM_LOG(DEBUG, "%s: received %s", ag->dev->name, cm_attr_str(msg.hdr.attr_id));
	cm_recv_msg(ag, &msg, &src, have_src);
}

int
cm_agent_poll(struct cm_agent *ag)
{
	struct prdma_wc wc[16];
	int n, i, work = 0;

	work += reap_sends(ag);
	if (ag->nb_txq > 0)
		work += cm_agent_flush(ag);
	do {
		n = prdma_cq_poll(ag->rcq, RTE_DIM(wc), wc);
		for (i = 0; i < n; i++) {
			if (wc[i].wr_id >= CM_RECV_SLOTS)
				continue;
			if (wc[i].status == PRDMA_WC_WR_FLUSH_ERR)
				continue;
			if (wc[i].status == PRDMA_WC_SUCCESS)
				recv_one(ag, &wc[i]);
			if (post_recv(ag, (uint32_t)wc[i].wr_id) < 0)
				CM_LOG(ERR, "%s: cannot repost a GSI receive",
				       ag->dev->name);
		}
		work += n;
	} while (n == (int)RTE_DIM(wc));
	return work;
}

uint32_t
cm_alloc_comm_id(void)
{
	struct cm_id_priv *id;
	struct cm_agent *ag;
	uint32_t v;
	bool used;

	do {
		v = prdma_random32();
		used = (v == 0);
		TAILQ_FOREACH(ag, &cm_agents, next)
			TAILQ_FOREACH(id, &ag->ids, next)
				if (id->local_id == v)
					used = true;
	} while (used);
	return v;
}
