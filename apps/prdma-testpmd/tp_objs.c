/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* The object tables and what creates, connects and destroys their entries. */

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include <prdma_cm.h>

#include "tp.h"

struct tp_state tp = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * Every answer is one whole line, flushed at once: a batch driver reading
 * the pipe must see it before it sends the next command.
 */
static __rte_format_printf(3, 0) void
out_line(const char *prefix, const char *suffix, const char *fmt, va_list ap)
{
	fputs(prefix, stdout);
	vprintf(fmt, ap);
	fputs(suffix, stdout);
	putchar('\n');
	fflush(stdout);
}

void
tp_out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_line("", "", fmt, ap);
	va_end(ap);
}

void
tp_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_line("Error: ", "", fmt, ap);
	va_end(ap);
}

void
tp_err_errno(int ret, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	snprintf(why, sizeof(why), ": %s (%d)", rte_strerror(ret < 0 ? -ret : ret), ret);
	va_start(ap, fmt);
	out_line("Error: ", why, fmt, ap);
	va_end(ap);
}

int
tp_parse_u32(const char *s, uint32_t *v)
{
	unsigned long long x;
	char *end;

	if (s == NULL || *s == '\0' || *s == '-')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0' || x > UINT32_MAX)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

#define TP_GETTER(name, arr, what) \
struct tp_ ## name * \
tp_ ## name ## _get(uint32_t id) \
{ \
	if (id >= RTE_DIM(tp.arr) || !tp.arr[id].used) { \
		tp_err("no " what " %u", id); \
		return NULL; \
	} \
	return &tp.arr[id]; \
}

TP_GETTER(pd, pds, "PD")
TP_GETTER(mr, mrs, "MR")
TP_GETTER(cq, cqs, "CQ")
TP_GETTER(srq, srqs, "SRQ")
TP_GETTER(qp, qps, "QP")

struct tp_dev *
tp_dev_get(uint32_t id)
{
	if (id >= RTE_DIM(tp.devs) || !tp.devs[id].used) {
		tp_err("no device %u (see 'show devices')", id);
		return NULL;
	}
	return &tp.devs[id];
}

int
tp_qp_find(uint16_t dev, uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(tp.qps); i++)
		if (tp.qps[i].used && tp.qps[i].dev == dev && tp.qps[i].qp->qp_num == qpn)
			return (int)i;
	return -1;
}

int
tp_free_slot(const void *table, size_t entry_size, size_t n, const char *what)
{
	size_t i;

	/* Every table entry starts with its "used" flag. */
	for (i = 0; i < n; i++)
		if (*(const int *)(const void *)((const char *)table + i * entry_size) == 0)
			return (int)i;
	tp_err("%s table full (%u)", what, TP_MAX_OBJ);
	return -ENOSPC;
}

/* The device an object is to be made on and a free entry for it: the
 * entry's index, or a negative errno after the error line. */
static int
dev_slot(uint16_t dev, struct tp_dev **d, const void *table, size_t entry_size, size_t n,
	 const char *what)
{
	*d = tp_dev_get(dev);
	if (*d == NULL)
		return -ENODEV;
	return tp_free_slot(table, entry_size, n, what);
}

#define TP_DEV_SLOT(dev, d, arr, what) \
	dev_slot(dev, d, tp.arr, sizeof(tp.arr[0]), RTE_DIM(tp.arr), what)

int
tp_pd_create(uint16_t dev)
{
	struct tp_dev *d;
	struct tp_pd *p;
	int slot = TP_DEV_SLOT(dev, &d, pds, "PD");

	if (slot < 0)
		return slot;
	p = &tp.pds[slot];
	p->pd = prdma_pd_alloc(d->dev);
	if (p->pd == NULL) {
		tp_err_errno(-rte_errno, "PD alloc on device %u", dev);
		return -rte_errno;
	}
	p->dev = dev;
	p->used = 1;
	return slot;
}

int
tp_cq_create(uint16_t dev, uint32_t depth)
{
	struct prdma_cq_init_attr a;
	struct tp_dev *d;
	struct tp_cq *c;
	int slot = TP_DEV_SLOT(dev, &d, cqs, "CQ");

	if (slot < 0)
		return slot;
	c = &tp.cqs[slot];
	memset(&a, 0, sizeof(a));
	a.cqe = depth;
	c->cq = prdma_cq_create(d->dev, &a);
	if (c->cq == NULL) {
		tp_err_errno(-rte_errno, "CQ create on device %u, depth %u", dev, depth);
		return -rte_errno;
	}
	c->dev = dev;
	c->used = 1;
	return slot;
}

/*
 * tp_<name>_destroy(id): destroy the object of entry @p id with @p fn and
 * free the entry. A failure is almost always an object still in use, so
 * its error line (@p fail_fmt, given the id) says which ones to look for.
 */
#define TP_DESTROYER(name, field, fn, fail_fmt) \
int \
tp_ ## name ## _destroy(uint32_t id) \
{ \
	struct tp_ ## name *o = tp_ ## name ## _get(id); \
	int ret; \
\
	if (o == NULL) \
		return -ENOENT; \
	ret = fn(o->field); \
	if (ret < 0) { \
		tp_err_errno(ret, fail_fmt, id); \
		return ret; \
	} \
	memset(o, 0, sizeof(*o)); \
	return 0; \
}

TP_DESTROYER(pd, pd, prdma_pd_free, "PD %u free (destroy its MRs, SRQs and QPs first)")
TP_DESTROYER(cq, cq, prdma_cq_destroy, "CQ %u destroy (a QP or SRQ still uses it)")
TP_DESTROYER(srq, srq, prdma_srq_destroy, "SRQ %u destroy (QPs still use it?)")

int
tp_qp_create(uint32_t pd, enum prdma_qp_type type, uint32_t scq, uint32_t rcq,
	     uint32_t sq_depth, uint32_t rq_depth, int srq)
{
	struct tp_pd *p = tp_pd_get(pd);
	struct tp_cq *s, *r;
	struct prdma_qp_init_attr a;
	struct tp_qp *q;
	int slot;

	if (p == NULL)
		return -ENOENT;
	s = tp_cq_get(scq);
	r = s != NULL ? tp_cq_get(rcq) : NULL;
	if (s == NULL || r == NULL)
		return -ENOENT;
	if (srq >= 0 && tp_srq_get((uint32_t)srq) == NULL)
		return -ENOENT;
	if (s->dev != p->dev || r->dev != p->dev) {
		tp_err("the CQs belong to another device than PD %u", pd);
		return -EINVAL;
	}
	slot = TP_SLOT(qps, "QP");
	if (slot < 0)
		return slot;
	q = &tp.qps[slot];
	memset(&a, 0, sizeof(a));
	a.qp_type = type;
	a.send_cq = s->cq;
	a.recv_cq = r->cq;
	a.srq = srq >= 0 ? tp.srqs[srq].srq : NULL;
	a.cap.max_send_wr = sq_depth;
	a.cap.max_recv_wr = srq >= 0 ? 0 : rq_depth;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	a.cap.max_inline_data = 64;
	q->qp = prdma_qp_create(p->pd, &a);
	if (q->qp == NULL) {
		tp_err_errno(-rte_errno, "QP create (type %d, depths %u/%u)", type, sq_depth,
			     rq_depth);
		return -rte_errno;
	}
	q->buf = rte_zmalloc("tp_qp_buf", TP_QP_BUF_LEN, 4096);
	if (q->buf != NULL)
		q->mr = prdma_mr_reg(p->pd, q->buf, TP_QP_BUF_LEN, PRDMA_ACCESS_LOCAL_WRITE |
				     PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ |
				     PRDMA_ACCESS_REMOTE_ATOMIC);
	if (q->mr == NULL) {
		tp_err_errno(q->buf == NULL ? -ENOMEM : -rte_errno, "QP buffer registration");
		prdma_qp_destroy(q->qp);
		rte_free(q->buf);
		memset(q, 0, sizeof(*q));
		return -ENOMEM;
	}
	q->dev = p->dev;
	q->pd = pd;
	q->scq = scq;
	q->rcq = rcq;
	q->srq = srq;
	q->peer = -1;
	q->used = 1;
	return slot;
}

int
tp_qp_destroy(uint32_t id)
{
	struct tp_qp *q = tp_qp_get(id);
	unsigned int i;
	int ret;

	if (q == NULL)
		return -ENOENT;
	if (q->in_fwd) {
		tp_err("QP %u is forwarding: 'stop' first", id);
		return -EBUSY;
	}
	if (q->cm_id != NULL) {
		prdma_cm_id_destroy(q->cm_id);
		q->cm_id = NULL;
	}
	if (q->mr != NULL)
		prdma_mr_dereg(q->mr);
	ret = prdma_qp_destroy(q->qp);
	if (ret < 0) {
		tp_err_errno(ret, "QP %u destroy", id);
		return ret;
	}
	rte_free(q->buf);
	if (q->auto_objs) {
		prdma_cq_destroy(tp.cqs[q->scq].cq);
		memset(&tp.cqs[q->scq], 0, sizeof(tp.cqs[0]));
		if (q->rcq != q->scq) {
			prdma_cq_destroy(tp.cqs[q->rcq].cq);
			memset(&tp.cqs[q->rcq], 0, sizeof(tp.cqs[0]));
		}
		prdma_pd_free(tp.pds[q->pd].pd);
		memset(&tp.pds[q->pd], 0, sizeof(tp.pds[0]));
	}
	for (i = 0; i < RTE_DIM(tp.qps); i++)
		if (tp.qps[i].used && tp.qps[i].peer == (int)id)
			tp.qps[i].peer = -1;
	memset(q, 0, sizeof(*q));
	return 0;
}

static int
to_init(struct tp_qp *q)
{
	struct prdma_qp_attr at;

	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_INIT;
	at.port_num = 1;
	at.qkey = 0x11111111;
	at.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ |
			     PRDMA_ACCESS_REMOTE_ATOMIC;
	if (q->qp->qp_type == PRDMA_QPT_UD)
		return prdma_qp_modify(q->qp, &at, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
				       PRDMA_QP_PORT | PRDMA_QP_QKEY);
	return prdma_qp_modify(q->qp, &at, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
			       PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS);
}

static int
to_rtr(struct tp_qp *q)
{
	struct prdma_port_attr pa;
	struct prdma_qp_attr at;
	uint32_t mask = PRDMA_QP_STATE;

	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_RTR;
	if (q->qp->qp_type != PRDMA_QPT_UD) {
		if (q->peer_qpn == 0) {
			tp_err("QP %u has no peer: use 'qp connect'", (unsigned int)(q - tp.qps));
			return -EINVAL;
		}
		at.path_mtu = PRDMA_MTU_1024;
		at.dest_qp_num = q->peer_qpn;
		at.rq_psn = 0;
		at.max_dest_rd_atomic = 4;
		at.min_rnr_timer = 1;
		at.ah_attr.dgid = q->peer_gid;
		at.ah_attr.hop_limit = 64;
		at.ah_attr.port_num = 1;
		if (q->peer >= 0 && prdma_port_query(tp.devs[tp.qps[q->peer].dev].dev, 1,
						     &pa) == 0) {
			at.ah_attr.flags = PRDMA_AH_F_DMAC;
			at.ah_attr.dmac = pa.mac;
		}
		mask |= PRDMA_QP_AV | PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN;
		if (q->qp->qp_type == PRDMA_QPT_RC)
			mask |= PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER;
	}
	return prdma_qp_modify(q->qp, &at, mask);
}

static int
to_rts(struct tp_qp *q)
{
	struct prdma_qp_attr at;
	uint32_t mask = PRDMA_QP_STATE | PRDMA_QP_SQ_PSN;

	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_RTS;
	at.sq_psn = 0;
	if (q->qp->qp_type == PRDMA_QPT_RC) {
		at.timeout = 14;
		at.retry_cnt = 7;
		at.rnr_retry = 7;
		at.max_rd_atomic = 4;
		mask |= PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
			PRDMA_QP_MAX_QP_RD_ATOMIC;
	}
	return prdma_qp_modify(q->qp, &at, mask);
}

int
tp_qp_modify_state(uint32_t id, enum prdma_qp_state st)
{
	struct tp_qp *q = tp_qp_get(id);
	struct prdma_qp_attr at;
	int ret;

	if (q == NULL)
		return -ENOENT;
	switch (st) {
	case PRDMA_QPS_INIT:
		ret = to_init(q);
		break;
	case PRDMA_QPS_RTR:
		ret = to_rtr(q);
		break;
	case PRDMA_QPS_RTS:
		if (q->qp->state == PRDMA_QPS_SQD || q->qp->state == PRDMA_QPS_SQE) {
			memset(&at, 0, sizeof(at));
			at.qp_state = PRDMA_QPS_RTS;
			ret = prdma_qp_modify(q->qp, &at, PRDMA_QP_STATE);
		} else {
			ret = to_rts(q);
		}
		break;
	default:
		memset(&at, 0, sizeof(at));
		at.qp_state = st;
		ret = prdma_qp_modify(q->qp, &at, PRDMA_QP_STATE);
		break;
	}
	if (ret < 0)
		tp_err_errno(ret, "QP %u: %s -> %s", id,
			     prdma_qp_state_str((enum prdma_qp_state)q->qp->state),
			     prdma_qp_state_str(st));
	return ret;
}

static int
connect_one(uint32_t id, uint32_t peer)
{
	struct tp_qp *q = &tp.qps[id], *p = &tp.qps[peer];
	int ret;

	q->peer = (int)peer;
	q->peer_qpn = p->qp->qp_num;
	q->peer_addr = (uintptr_t)p->buf;
	q->peer_rkey = p->mr->rkey;
	ret = prdma_gid_query(tp.devs[p->dev].dev, 1, 0, &q->peer_gid);
	if (ret < 0) {
		tp_err_errno(ret, "GID of device %u", p->dev);
		return ret;
	}
	if (q->qp->state == PRDMA_QPS_RTS)
		return 0;
	if (q->qp->state == PRDMA_QPS_RESET) {
		ret = tp_qp_modify_state(id, PRDMA_QPS_INIT);
		if (ret < 0)
			return ret;
	}
	if (q->qp->state == PRDMA_QPS_INIT) {
		ret = tp_qp_modify_state(id, PRDMA_QPS_RTR);
		if (ret < 0)
			return ret;
	}
	return tp_qp_modify_state(id, PRDMA_QPS_RTS);
}

int
tp_qp_connect(uint32_t id, uint32_t peer)
{
	struct tp_qp *q = tp_qp_get(id), *p;
	int ret;

	if (q == NULL)
		return -ENOENT;
	p = tp_qp_get(peer);
	if (p == NULL)
		return -ENOENT;
	if (id == peer || q->qp->qp_type != p->qp->qp_type || q->qp->qp_type == PRDMA_QPT_UD) {
		tp_err("QP %u and QP %u cannot be connected (same QP, different types, or UD)",
		       id, peer);
		return -EINVAL;
	}
	ret = connect_one(id, peer);
	/* The peer is connected back unless it already is. */
	if (ret == 0 && p->qp->state == PRDMA_QPS_RESET)
		ret = connect_one(peer, id);
	return ret;
}

void
tp_objs_cleanup(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(tp.qps); i++)
		if (tp.qps[i].used)
			tp_qp_destroy(i);
	for (i = 0; i < RTE_DIM(tp.mrs); i++)
		if (tp.mrs[i].used) {
			prdma_mr_dereg(tp.mrs[i].mr);
			rte_free(tp.mrs[i].buf);
			tp.mrs[i].used = 0;
		}
	for (i = 0; i < RTE_DIM(tp.srqs); i++)
		if (tp.srqs[i].used) {
			prdma_srq_destroy(tp.srqs[i].srq);
			tp.srqs[i].used = 0;
		}
	for (i = 0; i < RTE_DIM(tp.cqs); i++)
		if (tp.cqs[i].used)
			tp_cq_destroy(i);
	for (i = 0; i < RTE_DIM(tp.pds); i++)
		if (tp.pds[i].used)
			tp_pd_destroy(i);
	for (i = 0; i < RTE_DIM(tp.devs); i++)
		if (tp.devs[i].used) {
			prdma_dev_close(tp.devs[i].dev);
			prdma_dev_remove((uint16_t)i);
			tp.devs[i].used = 0;
		}
}
