/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * rte_flow steering (flow=, engines= of 2 or more): a rule per QP sends
 * its frames to its engine's rx queue, so they need no handoff between
 * engines. The probe asks the port (rte_flow_validate) which of two rule
 * shapes it takes:
 *  - the QPN rule, whoever the peer: ETH / IP / UDP 4791 / RAW (the BTH's
 *    destination QP, 5 bytes into the UDP payload) -> QUEUE, installed
 *    when a QP (RC, UC or UD) reaches RTR;
 *  - else the connection rule: ETH / IP src peer, dst ours / UDP src port
 *    -> QUEUE, for RC and UC QPs, keyed on what the first frame handed
 *    over for the QP shows. The engine that hands it over posts the key to
 *    a ring; a control context (an EAL alarm, or the next QP modify)
 *    installs the rule: rte_flow calls are not fast-path safe.
 * A port that takes neither (net_ring, net_af_packet, net_af_xdp in DPDK
 * 22.11) keeps the software handoff. A rule the port refuses is counted
 * (flow_failed) and its QP stays with the handoff: never a QP error.
 * Rules go when their QP is modified to RESET or ERR, is destroyed, or the
 * device is removed. All of it runs with every engine flag held, which
 * also serialises this device's rte_flow calls.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_alarm.h>
#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring_elem.h>

#include "roce.h"
#include "roce_flow.h"

#define ROCE_FLOW_SEEN       64      /* QPNs an engine remembers having reported */
#define ROCE_FLOW_REQS       256     /* keys an engine may queue for the control path */
#define ROCE_FLOW_SERVICE_US 10000   /* how often the alarm installs learnt rules */

enum roce_flow_mode {
	ROCE_FLOW_NONE = 0,
	ROCE_FLOW_QPN,            /* the QPN rule */
	ROCE_FLOW_PEER,           /* the connection rule, learnt */
};

/* A key learnt from a handed-over frame (24 bytes: a ring element). */
struct roce_flow_req {
	uint32_t qpn;
	uint16_t sport;           /* host order */
	uint8_t ipv6;
	uint8_t reserved;
	uint8_t src[16];
};

/* Written by its engine (flag held), or by the control path (all flags). */
struct roce_flow_eng {
	struct rte_ring *req;     /* SP: the engine; SC: the control path */
	uint32_t seen[ROCE_FLOW_SEEN];
} __rte_cache_aligned;

struct roce_flow {
	const struct roce_flow_ops *ops;  /* those of the probe, for life */
	uint8_t mode;             /* enum roce_flow_mode */
	uint8_t refused_logged;   /* a refused rule was logged at NOTICE */
	uint32_t alarm_on;        /* the alarm re-arms itself while set */
	struct roce_flow_eng eng[];
};

static const struct roce_flow_ops flow_ops_default = {
	.validate = rte_flow_validate,
	.create = rte_flow_create,
	.destroy = rte_flow_destroy,
};

static const struct roce_flow_ops *flow_ops = &flow_ops_default;
static uint32_t flow_gen;

void
roce_flow_ops_set(const struct roce_flow_ops *ops)
{
	__atomic_store_n(&flow_ops, ops != NULL ? ops : &flow_ops_default,
			 __ATOMIC_RELEASE);
}

static void
rule_base(struct roce_flow_rule *r, int ipv6, uint16_t queue)
{
	memset(r, 0, sizeof(*r));
	r->attr.ingress = 1;
	r->item[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	r->item[1].type = ipv6 ? RTE_FLOW_ITEM_TYPE_IPV6 : RTE_FLOW_ITEM_TYPE_IPV4;
	r->udp.hdr.dst_port = RTE_BE16(ROCE_UDP_PORT);
	r->udp_mask.hdr.dst_port = RTE_BE16(0xffff);
	r->item[2].type = RTE_FLOW_ITEM_TYPE_UDP;
	r->item[2].spec = &r->udp;
	r->item[2].mask = &r->udp_mask;
	r->item[3].type = RTE_FLOW_ITEM_TYPE_END;
	r->item[4].type = RTE_FLOW_ITEM_TYPE_END;
	r->queue.index = queue;
	r->action[0].type = RTE_FLOW_ACTION_TYPE_QUEUE;
	r->action[0].conf = &r->queue;
	r->action[1].type = RTE_FLOW_ACTION_TYPE_END;
}

void
roce_flow_rule_qpn(struct roce_flow_rule *r, int ipv6, uint32_t qpn, uint16_t queue)
{
	rule_base(r, ipv6, queue);
	r->qpn[0] = (uint8_t)(qpn >> 16);
	r->qpn[1] = (uint8_t)(qpn >> 8);
	r->qpn[2] = (uint8_t)qpn;
	memset(r->qpn_mask, 0xff, sizeof(r->qpn_mask));
	/* relative to the end of the UDP header: the BTH */
	r->raw.relative = 1;
	r->raw.offset = ROCE_FLOW_DQPN_OFF;
	r->raw.length = sizeof(r->qpn);
	r->raw.pattern = r->qpn;
	r->raw_mask.relative = 1;
	r->raw_mask.search = 1;   /* no search: exactly at the offset */
	r->raw_mask.offset = -1;
	r->raw_mask.limit = 0xffff;
	r->raw_mask.length = 0xffff;
	r->raw_mask.pattern = r->qpn_mask;
	r->item[3].type = RTE_FLOW_ITEM_TYPE_RAW;
	r->item[3].spec = &r->raw;
	r->item[3].mask = &r->raw_mask;
}

void
roce_flow_rule_peer(struct roce_flow_rule *r, int ipv6, const uint8_t *peer,
		    const uint8_t *ours, uint16_t sport, uint16_t queue)
{
	rule_base(r, ipv6, queue);
	if (ipv6) {
		memcpy(r->ip6.hdr.src_addr, peer, 16);
		memcpy(r->ip6.hdr.dst_addr, ours, 16);
		memset(r->ip6_mask.hdr.src_addr, 0xff, 16);
		memset(r->ip6_mask.hdr.dst_addr, 0xff, 16);
		r->item[1].spec = &r->ip6;
		r->item[1].mask = &r->ip6_mask;
	} else {
		memcpy(&r->ip4.hdr.src_addr, peer, 4);
		memcpy(&r->ip4.hdr.dst_addr, ours, 4);
		r->ip4_mask.hdr.src_addr = RTE_BE32(0xffffffff);
		r->ip4_mask.hdr.dst_addr = RTE_BE32(0xffffffff);
		r->item[1].spec = &r->ip4;
		r->item[1].mask = &r->ip4_mask;
	}
	r->udp.hdr.src_port = rte_cpu_to_be_16(sport);
	r->udp_mask.hdr.src_port = RTE_BE16(0xffff);
}

static const char *
err_msg(const struct rte_flow_error *err, int ret)
{
	return err->message != NULL ? err->message : rte_strerror(-ret);
}

static int
validate(const struct roce_flow_ops *ops, uint16_t port, const struct roce_flow_rule *r,
	 char *why, size_t len)
{
	struct rte_flow_error err;
	int ret;

	memset(&err, 0, sizeof(err));
	ret = ops->validate(port, &r->attr, r->item, r->action, &err);
	if (ret < 0)
		snprintf(why, len, "%s", err_msg(&err, ret));
	return ret;
}

/* Forget that the engines reported @qpn: its next handed frame reports again. */
static void
seen_forget(struct roce_dev *dev, uint32_t qpn)
{
	uint32_t i, k = qpn & (ROCE_FLOW_SEEN - 1);

	for (i = 0; i < dev->nb_eng; i++)
		if (dev->flow->eng[i].seen[k] == qpn)
			dev->flow->eng[i].seen[k] = 0;
}

static void
flow_install(struct roce_dev *dev, struct roce_qp *qp, const struct roce_flow_rule *r)
{
	struct roce_flow *f = dev->flow;
	struct rte_flow_error err;
	struct rte_flow *fl;

	memset(&err, 0, sizeof(err));
	fl = f->ops->create(dev->port_id, &r->attr, r->item, r->action, &err);
	if (fl == NULL) {
		dev->xst.flow_failed++;
		/* once at NOTICE: a port that refuses every rule would flood */
		rte_log(f->refused_logged ? RTE_LOG_DEBUG : RTE_LOG_NOTICE, roce_logtype,
			"roce: %s: QP 0x%x: port %u refused its rte_flow rule (%s); its "
			"frames are handed over in software\n", dev->pdev->name,
			qp->base.qp_num, dev->port_id, err_msg(&err, -rte_errno));
		f->refused_logged = 1;
		return;
	}
	qp->flow = fl;
	dev->xst.flow_rules++;
	dev->xst.flow_created++;
}

static void
flow_remove(struct roce_dev *dev, struct roce_qp *qp)
{
	struct rte_flow_error err;
	int ret;

	qp->flow_want = 0;
	if (qp->flow == NULL)
		return;
	memset(&err, 0, sizeof(err));
	ret = dev->flow->ops->destroy(dev->port_id, qp->flow, &err);
	if (ret < 0)
		ROCE_LOG(WARNING, "%s: QP 0x%x: port %u: rte_flow_destroy: %s",
			 dev->pdev->name, qp->base.qp_num, dev->port_id, err_msg(&err, ret));
	qp->flow = NULL;
	dev->xst.flow_rules--;
}

/* The connection rule: wait for a frame of the QP on another engine's queue. */
static void
flow_want(struct roce_dev *dev, struct roce_qp *qp)
{
	if (qp->base.qp_type != PRDMA_QPT_RC && qp->base.qp_type != PRDMA_QPT_UC)
		return;
	qp->flow_want = 1;
	seen_forget(dev, qp->base.qp_num);
}

/* Whether another QP of ours has a connection rule on this key. */
static bool
peer_key_taken(const struct roce_dev *dev, const struct roce_qp *qp, uint16_t sport)
{
	const struct roce_qp *o;
	uint32_t s;

	for (s = 0; s <= dev->qp_slot_mask; s++) {
		o = dev->qp_tbl[s];
		if (o != NULL && o != qp && o->flow != NULL && o->flow_sport == sport &&
		    o->peer_ip_len == qp->peer_ip_len &&
		    memcmp(o->peer_ip, qp->peer_ip, qp->peer_ip_len) == 0)
			return true;
	}
	return false;
}

static unsigned int
flow_learnt(struct roce_dev *dev, const struct roce_flow_req *rq)
{
	struct roce_qp *qp = roce_qp_lookup(dev, rq->qpn);
	struct roce_flow_rule r;
	uint8_t len = rq->ipv6 ? 16 : 4;

	/* gone, or already served */
	if (qp == NULL || !qp->flow_want)
		return 0;
	/* Not its peer's frame (its engine drops it): no rule for a spoofer,
	 * and the peer's own next frame reports again. */
	if (qp->peer_ip_len != len || memcmp(qp->peer_ip, rq->src, len) != 0) {
		seen_forget(dev, rq->qpn);
		return 0;
	}
	qp->flow_want = 0;
	/* Two connections from one peer address and port (the source port
	 * is a 14-bit hash): one rule could steer only one of them. */
	if (peer_key_taken(dev, qp, rq->sport)) {
		dev->xst.flow_failed++;
		ROCE_LOG(DEBUG, "%s: QP 0x%x: another QP has the rule of port %u from "
			 "its peer: software handoff", dev->pdev->name, rq->qpn, rq->sport);
		return 0;
	}
	roce_flow_rule_peer(&r, rq->ipv6, rq->src, dev->ip, rq->sport, qp->eng->queue);
	flow_install(dev, qp, &r);
	if (qp->flow == NULL)
		return 0;
	qp->flow_sport = rq->sport;
	return 1;
}

unsigned int
roce_flow_service(struct roce_dev *dev)
{
	struct roce_flow *f = dev->flow;
	struct roce_flow_req rq;
	unsigned int n = 0;
	uint32_t i;

	if (f == NULL || f->mode != ROCE_FLOW_PEER)
		return 0;
	for (i = 0; i < dev->nb_eng; i++)
		while (rte_ring_sc_dequeue_elem(f->eng[i].req, &rq, sizeof(rq)) == 0)
			n += flow_learnt(dev, &rq);
	return n;
}

static bool
flow_pending(const struct roce_dev *dev)
{
	uint32_t i;

	for (i = 0; i < dev->nb_eng; i++)
		if (rte_ring_count(dev->flow->eng[i].req) != 0)
			return true;
	return false;
}

/* The control context of learnt rules when no control call comes. */
static void
flow_alarm(void *arg)
{
	struct roce_dev *dev = arg;
	struct roce_flow *f = dev->flow;

	if (flow_pending(dev)) {
		roce_engine_lock(dev);
		roce_flow_service(dev);
		roce_engine_unlock(dev);
	}
	if (__atomic_load_n(&f->alarm_on, __ATOMIC_ACQUIRE) &&
	    rte_eal_alarm_set(ROCE_FLOW_SERVICE_US, flow_alarm, dev) < 0) {
		/* the next QP modify still installs what was learnt */
		ROCE_LOG(WARNING, "%s: rte_eal_alarm_set: %s", dev->pdev->name,
			 rte_strerror(rte_errno));
		__atomic_store_n(&f->alarm_on, 0, __ATOMIC_RELEASE);
	}
}

void
roce_flow_learn(struct roce_eng *e, const struct roce_pkt *pkt)
{
	struct roce_dev *dev = e->dev;
	struct roce_flow_eng *fe = &dev->flow->eng[e->idx];
	uint32_t qpn = pkt->bth.dqpn, k = qpn & (ROCE_FLOW_SEEN - 1);
	struct roce_flow_req rq;
	struct roce_qp *qp;

	if (fe->seen[k] == qpn || pkt->v1)
		return;
	/* Another engine's QP: the table and flow_want change only with
	 * every flag held, ours included, so both are stable here. */
	qp = roce_qp_lookup(dev, qpn);
	if (qp == NULL || !qp->flow_want)
		return;
	fe->seen[k] = qpn;
	rq.qpn = qpn;
	rq.sport = (uint16_t)(pkt->bth_p[-8] << 8 | pkt->bth_p[-7]);
	rq.ipv6 = pkt->ipv6;
	rq.reserved = 0;
	memcpy(rq.src, pkt->src_ip, sizeof(rq.src));
	if (rte_ring_sp_enqueue_elem(fe->req, &rq, sizeof(rq)) != 0)
		fe->seen[k] = 0;   /* full: a later frame reports it */
}

void
roce_flow_qp_modify(struct roce_qp *qp, enum prdma_qp_state cur, enum prdma_qp_state next,
		    uint32_t mask)
{
	struct roce_dev *dev = qp->rdev;
	struct roce_flow *f = dev->flow;
	struct roce_flow_rule r;

	if (f == NULL)
		return;
	/* a control call: install what the engines learnt meanwhile */
	roce_flow_service(dev);
	if (next == PRDMA_QPS_RESET || next == PRDMA_QPS_ERR) {
		flow_remove(dev, qp);
		return;
	}
	if (next == PRDMA_QPS_RTR && cur != PRDMA_QPS_RTR) {
		if (f->mode == ROCE_FLOW_QPN) {
			roce_flow_rule_qpn(&r, dev->ipv6, qp->base.qp_num, qp->eng->queue);
			flow_install(dev, qp, &r);
		} else {
			flow_want(dev, qp);
		}
	} else if (f->mode == ROCE_FLOW_PEER && (mask & PRDMA_QP_AV) &&
		   cur != PRDMA_QPS_RESET && cur != PRDMA_QPS_INIT) {
		/* a new path: the peer's address or port may have changed */
		flow_remove(dev, qp);
		flow_want(dev, qp);
	}
}

void
roce_flow_qp_gone(struct roce_qp *qp)
{
	if (qp->rdev->flow != NULL)
		flow_remove(qp->rdev, qp);
}

int
roce_flow_setup(struct roce_dev *dev)
{
	const struct roce_flow_ops *ops = __atomic_load_n(&flow_ops, __ATOMIC_ACQUIRE);
	char why_qpn[128] = "", why_peer[128] = "", name[RTE_RING_NAMESIZE];
	struct roce_flow_rule r;
	struct roce_flow *f;
	uint8_t mode = ROCE_FLOW_NONE;
	uint32_t i, gen;

	if (dev->cfg.flow == ROCE_FLOW_OFF)
		return 0;
	if (dev->nb_eng < 2 || dev->cfg.roce_version == 1) {
		if (dev->cfg.flow != ROCE_FLOW_ON)
			return 0;
		ROCE_LOG(ERR, "%s: flow=1: rte_flow rules steer RoCEv2 frames between "
			 "engines: needs engines= of 2 or more and roce_version=2",
			 dev->pdev->name);
		return -EINVAL;
	}
	/* representative rules: QPN 2 (the first slot) and a peer of our own
	 * address, both to queue 1 */
	roce_flow_rule_qpn(&r, dev->ipv6, 2, 1);
	if (validate(ops, dev->port_id, &r, why_qpn, sizeof(why_qpn)) == 0) {
		mode = ROCE_FLOW_QPN;
	} else {
		roce_flow_rule_peer(&r, dev->ipv6, dev->ip, dev->ip, 0xc000, 1);
		if (validate(ops, dev->port_id, &r, why_peer, sizeof(why_peer)) == 0)
			mode = ROCE_FLOW_PEER;
	}
	if (mode == ROCE_FLOW_NONE) {
		if (dev->cfg.flow == ROCE_FLOW_ON) {
			ROCE_LOG(ERR, "%s: flow=1: port %u takes no rte_flow rule steering "
				 "a QP's frames to a queue (QPN rule: %s; connection rule: %s)",
				 dev->pdev->name, dev->port_id, why_qpn, why_peer);
			return -ENOTSUP;
		}
		ROCE_LOG(INFO, "%s: port %u takes no rte_flow rules (%s): frames on "
			 "another engine's queue are handed over", dev->pdev->name,
			 dev->port_id, why_qpn);
		return 0;
	}
	f = rte_zmalloc_socket("roce_flow", sizeof(*f) + sizeof(f->eng[0]) * dev->nb_eng,
			       RTE_CACHE_LINE_SIZE, dev->pdev->socket_id);
	if (f == NULL)
		return -ENOMEM;
	f->ops = ops;
	f->mode = mode;
	dev->flow = f;
	if (mode == ROCE_FLOW_PEER) {
		gen = __atomic_add_fetch(&flow_gen, 1, __ATOMIC_RELAXED);
		for (i = 0; i < dev->nb_eng; i++) {
			snprintf(name, sizeof(name), "roce_fl%u_%u", gen, i);
			f->eng[i].req = rte_ring_create_elem(name, sizeof(struct roce_flow_req),
							     ROCE_FLOW_REQS, dev->pdev->socket_id,
							     RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (f->eng[i].req == NULL) {
				roce_flow_fini(dev);
				return -ENOMEM;
			}
		}
		__atomic_store_n(&f->alarm_on, 1, __ATOMIC_RELEASE);
		if (rte_eal_alarm_set(ROCE_FLOW_SERVICE_US, flow_alarm, dev) < 0) {
			ROCE_LOG(WARNING, "%s: rte_eal_alarm_set: %s: learnt rules wait for "
				 "a QP modify", dev->pdev->name, rte_strerror(rte_errno));
			f->alarm_on = 0;
		}
		dev->flow_learn = 1;
	}
	dev->xst.flow_active = mode;
	ROCE_LOG(INFO, "%s: port %u: rte_flow rules steer each QP to its engine's queue, "
		 "%s", dev->pdev->name, dev->port_id, mode == ROCE_FLOW_QPN ?
		 "on its QPN" : "on its peer's address and UDP port (RC, UC)");
	if (mode == ROCE_FLOW_PEER)
		ROCE_LOG(INFO, "%s: (the QPN rule was refused: %s)", dev->pdev->name, why_qpn);
	return 0;
}

void
roce_flow_stop(struct roce_dev *dev)
{
	struct roce_flow *f = dev->flow;

	if (f == NULL || !__atomic_load_n(&f->alarm_on, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&f->alarm_on, 0, __ATOMIC_RELEASE);
	/* waits for a callback running on the interrupt thread, and takes
	 * away the alarm it may have set again meanwhile */
	rte_eal_alarm_cancel(flow_alarm, dev);
}

void
roce_flow_fini(struct roce_dev *dev)
{
	struct roce_flow *f = dev->flow;
	struct roce_qp *qp;
	uint32_t s, i;

	if (f == NULL)
		return;
	roce_flow_stop(dev);
	for (s = 0; dev->qp_tbl != NULL && s <= dev->qp_slot_mask; s++) {
		qp = dev->qp_tbl[s];
		if (qp != NULL)
			flow_remove(dev, qp);
	}
	for (i = 0; i < dev->nb_eng; i++)
		rte_ring_free(f->eng[i].req);
	dev->flow_learn = 0;
	dev->flow = NULL;
	dev->xst.flow_active = 0;
	rte_free(f);
}
