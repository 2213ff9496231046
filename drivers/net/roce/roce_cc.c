/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Congestion signals (roce-wire-facts.md §10). Notification point: a
 * CE-marked request or response makes its QP send a CNP to the peer QP, at
 * most one per QP per cnp_interval_us. Reaction point: a CNP cuts the QP's
 * rate by alpha/2 and raises alpha; without CNPs alpha decays and the rate
 * climbs back by fast recovery, then additive and hyper increase, until the
 * QP runs unlimited again. All timing comes from the TSC of the engine.
 */

#include <string.h>

#include <rte_cycles.h>

#include "roce.h"

#define ALPHA_ONE      1024u     /* alpha fixed point */
#define ALPHA_G_SHIFT  8         /* g = 1/256 */
#define CC_PERIOD_US   55        /* alpha decay and rate increase timer */
#define CC_FAST_STEPS  5         /* fast recovery steps (F) */
#define CC_ADD_STEPS   10        /* then additive increase, then hyper */
#define CC_MIN_MBPS    10

static uint64_t
period_tsc(const struct roce_dev *dev)
{
	return dev->tsc_hz / 1000000 * CC_PERIOD_US;
}

void
roce_cc_cnp(struct roce_qp *qp, uint64_t now)
{
	struct roce_dev *dev = qp->rdev;
	struct roce_cc *cc = &qp->cc;
	uint64_t line = dev->line_mbps;

	if (!dev->cfg.cc)
		return;
	if (!cc->limited) {
		cc->limited = 1;
		cc->rc = line;
		cc->alpha = ALPHA_ONE;
		cc->next_tx = now;
	}
	cc->rt = cc->rc;
	cc->rc -= cc->rc * cc->alpha / (2 * ALPHA_ONE);
	if (cc->rc < CC_MIN_MBPS)
		cc->rc = CC_MIN_MBPS;
	cc->alpha = cc->alpha - (cc->alpha >> ALPHA_G_SHIFT) +
		(ALPHA_ONE >> ALPHA_G_SHIFT);
	cc->stage = 0;
	cc->alpha_tsc = now + period_tsc(dev);
	cc->inc_tsc = now + period_tsc(dev);
	qp->eng->xst.rate_cuts++;
}

void
roce_cc_timers(struct roce_qp *qp, uint64_t now)
{
	struct roce_dev *dev = qp->rdev;
	struct roce_cc *cc = &qp->cc;
	uint64_t line = dev->line_mbps, rai = RTE_MAX(line / 1000, (uint64_t)1);

	if (now >= cc->alpha_tsc) {
		cc->alpha -= cc->alpha >> ALPHA_G_SHIFT;
		cc->alpha_tsc = now + period_tsc(dev);
	}
	if (now < cc->inc_tsc)
		return;
	cc->inc_tsc = now + period_tsc(dev);
	cc->stage++;
	if (cc->stage > CC_FAST_STEPS + CC_ADD_STEPS)
		cc->rt += 10 * rai;     /* hyper increase */
	else if (cc->stage > CC_FAST_STEPS)
		cc->rt += rai;          /* additive increase */
	if (cc->rt > line)
		cc->rt = line;
	cc->rc = (cc->rt + cc->rc + 1) / 2;
	qp->eng->xst.rate_increases++;
	/* Within 1/256 of the line: the limiter is off again. */
	if (cc->rc >= line - line / 256)
		cc->limited = 0;
}

void
roce_cc_paced(struct roce_qp *qp, uint64_t now, uint32_t bytes)
{
	struct roce_cc *cc = &qp->cc;
	uint64_t t = (uint64_t)bytes * 8 * qp->rdev->tsc_hz / (cc->rc * 1000000);

	cc->next_tx = (cc->next_tx > now ? cc->next_tx : now) + t;
}

void
roce_cc_ce(struct roce_qp *qp, uint64_t now)
{
	struct roce_dev *dev = qp->rdev;
	struct roce_bth bth;
	struct roce_ext ext;
	struct rte_mbuf *m;
	unsigned int hlen;
	uint8_t *p;

	qp->eng->xst.ce_received++;
	if (qp->base.qp_type == PRDMA_QPT_UD || now < qp->cc.cnp_tsc)
		return;
	m = roce_frame_start(qp->eng, &qp->path, qp->sport, &p);
	if (m == NULL)
		return;
	memset(&bth, 0, sizeof(bth));
	memset(&ext, 0, sizeof(ext));
	bth.opcode = ROCE_OP_CNP;
	bth.pkey = ROCE_DEFAULT_PKEY;
	bth.becn = 1;
	bth.dqpn = qp->dest_qpn;
	hlen = roce_hdr_encode(p, &bth, &ext);
	memset(p + hlen, 0, ROCE_CNP_LEN);
	roce_frame_send(qp->eng, m, &qp->path, hlen + ROCE_CNP_LEN);
	qp->cc.cnp_tsc = now + (uint64_t)dev->cfg.cnp_interval_us * dev->tsc_hz / 1000000;
	qp->eng->st.dev[PRDMA_DEV_CNT_CNP_SENT]++;
	qp->cnt[PRDMA_QP_CNT_CNP_SENT]++;
}
