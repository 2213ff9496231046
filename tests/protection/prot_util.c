/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "prot.h"

#define P_CANARY_BYTE 0xa7

struct p_side p_a, p_b;
char p_devargs[2][256];

void
p_area_alloc(struct p_area *ar, size_t len, uint8_t fill)
{
	ar->base = rte_malloc(NULL, len + 2 * P_CANARY, 4096);
	assert_non_null(ar->base);
	ar->shadow = malloc(len + 2 * P_CANARY);
	assert_non_null(ar->shadow);
	memset(ar->base, P_CANARY_BYTE, len + 2 * P_CANARY);
	ar->data = ar->base + P_CANARY;
	ar->len = len;
	memset(ar->data, fill, len);
}

void
p_area_free(struct p_area *ar)
{
	rte_free(ar->base);
	free(ar->shadow);
	memset(ar, 0, sizeof(*ar));
}

void
p_snap(struct p_area *ar)
{
	memcpy(ar->shadow, ar->base, ar->len + 2 * P_CANARY);
}

long
p_changed(const struct p_area *ar)
{
	size_t i, n = ar->len + 2 * P_CANARY;

	for (i = 0; i < n; i++)
		if (ar->base[i] != ar->shadow[i])
			return (long)i;
	return -1;
}

static void
side_open(struct p_side *s, const char *args, uint8_t fill)
{
	struct prdma_cq_init_attr ca;
	struct prdma_port_attr pa;

	s->id = prdma_dev_probe(args);
	if (s->id < 0)
		fail_msg("probe %s: %d", args, s->id);
	s->dev = prdma_dev_open((uint16_t)s->id);
	assert_non_null(s->dev);
	s->pd = prdma_pd_alloc(s->dev);
	assert_non_null(s->pd);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 1024;
	s->scq = prdma_cq_create(s->dev, &ca);
	s->rcq = prdma_cq_create(s->dev, &ca);
	assert_non_null(s->scq);
	assert_non_null(s->rcq);
	p_area_alloc(&s->area, P_LEN, fill);
	s->mr = prdma_mr_reg(s->pd, s->area.data, P_LEN, PRDMA_ACCESS_ALL);
	assert_non_null(s->mr);
	assert_int_equal(prdma_gid_query(s->dev, 1, 0, &s->gid), 0);
	assert_int_equal(prdma_port_query(s->dev, 1, &pa), 0);
	s->mac = pa.mac;
}

void
p_open(void)
{
	const char *e;

	assert_int_equal(t_eal_init(), 0);
	e = getenv("PRDMA_PROT_DEVARGS_A");
	snprintf(p_devargs[0], sizeof(p_devargs[0]), "%s",
		 e != NULL && e[0] != '\0' ? e : "roce:ring=prot,side=0");
	e = getenv("PRDMA_PROT_DEVARGS_B");
	snprintf(p_devargs[1], sizeof(p_devargs[1]), "%s",
		 e != NULL && e[0] != '\0' ? e : "roce:ring=prot,side=1");
	memset(&p_a, 0, sizeof(p_a));
	memset(&p_b, 0, sizeof(p_b));
	side_open(&p_a, p_devargs[0], 0x11);
	side_open(&p_b, p_devargs[1], 0x22);
}

static void
side_close(struct p_side *s)
{
	if (s->qp != NULL)
		assert_int_equal(prdma_qp_destroy(s->qp), 0);
	s->qp = NULL;
	assert_int_equal(prdma_mr_dereg(s->mr), 0);
	p_area_free(&s->area);
	assert_int_equal(prdma_cq_destroy(s->scq), 0);
	assert_int_equal(prdma_cq_destroy(s->rcq), 0);
	assert_int_equal(prdma_pd_free(s->pd), 0);
	assert_int_equal(prdma_dev_close(s->dev), 0);
	assert_int_equal(prdma_dev_remove((uint16_t)s->id), 0);
}

void
p_close(void)
{
	side_close(&p_a);
	side_close(&p_b);
}

int
p_is_roce(void)
{
	return strncmp(p_devargs[0], "roce:", 5) == 0;
}

static struct prdma_qp *
qp_new(struct p_side *s, enum prdma_qp_type type)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = type;
	ia.send_cq = s->scq;
	ia.recv_cq = s->rcq;
	ia.cap.max_send_wr = 128;
	ia.cap.max_recv_wr = 128;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 2;
	qp = prdma_qp_create(s->pd, &ia);
	assert_non_null(qp);
	return qp;
}

static void
drain(struct prdma_cq *cq)
{
	struct prdma_wc wc[32];

	while (prdma_cq_poll(cq, RTE_DIM(wc), wc) > 0)
		;
}

static void
events_drop(struct prdma_dev *dev)
{
	struct prdma_async_event ev;

	while (prdma_event_get(dev, &ev) == 1)
		;
}

void
p_connect(enum prdma_qp_type type, uint32_t b_access)
{
	struct p_side *s[2] = { &p_a, &p_b };
	struct prdma_qp_attr qa;
	uint32_t mask;
	int i;

	for (i = 0; i < 2; i++)
		s[i]->qp = qp_new(s[i], type);
	for (i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_INIT;
		qa.port_num = 1;
		qa.qkey = P_QKEY;
		qa.qp_access_flags = i == 1 ? b_access : PRDMA_ACCESS_REMOTE_WRITE;
		if (type == PRDMA_QPT_UC)
			qa.qp_access_flags &= PRDMA_ACCESS_REMOTE_WRITE;
		mask = PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT |
			(type == PRDMA_QPT_UD ? PRDMA_QP_QKEY : PRDMA_QP_ACCESS_FLAGS);
		assert_int_equal(prdma_qp_modify(s[i]->qp, &qa, mask), 0);
	}
	for (i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RTR;
		mask = PRDMA_QP_STATE;
		if (type != PRDMA_QPT_UD) {
			qa.path_mtu = PRDMA_MTU_1024;
			qa.dest_qp_num = s[1 - i]->qp->qp_num;
			qa.rq_psn = 0x100;
			qa.max_dest_rd_atomic = 4;
			qa.min_rnr_timer = 1;
			qa.ah_attr.dgid = s[1 - i]->gid;
			qa.ah_attr.port_num = 1;
			mask |= PRDMA_QP_AV | PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
				PRDMA_QP_RQ_PSN;
			if (type == PRDMA_QPT_RC)
				mask |= PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER;
		}
		assert_int_equal(prdma_qp_modify(s[i]->qp, &qa, mask), 0);
	}
	for (i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RTS;
		qa.sq_psn = 0x100;
		qa.timeout = 10;
		qa.retry_cnt = 3;
		qa.rnr_retry = 3;
		qa.max_rd_atomic = 4;
		mask = PRDMA_QP_STATE | PRDMA_QP_SQ_PSN;
		if (type == PRDMA_QPT_RC)
			mask |= PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
				PRDMA_QP_MAX_QP_RD_ATOMIC;
		assert_int_equal(prdma_qp_modify(s[i]->qp, &qa, mask), 0);
	}
	events_drop(p_a.dev);
	events_drop(p_b.dev);
}

void
p_disconnect(void)
{
	struct p_side *s[2] = { &p_a, &p_b };
	int i;

	for (i = 0; i < 2; i++) {
		if (s[i]->qp != NULL)
			assert_int_equal(prdma_qp_destroy(s[i]->qp), 0);
		s[i]->qp = NULL;
	}
	p_idle(2);
	for (i = 0; i < 2; i++) {
		drain(s[i]->scq);
		drain(s[i]->rcq);
		events_drop(s[i]->dev);
	}
}

int
p_post(enum prdma_wr_opcode op, uint32_t loff, uint32_t len, uint64_t raddr,
       uint32_t rkey, uint64_t wr_id)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;

	sge.addr = (uintptr_t)(p_a.area.data + loff);
	sge.length = len;
	sge.lkey = p_a.mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	if (op == PRDMA_WR_ATOMIC_CMP_AND_SWP || op == PRDMA_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 0x2222222222222222ull;
		wr.wr.atomic.swap = 0x5555555555555555ull;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return prdma_post_send(p_a.qp, &wr, &bad);
}

int
p_post_recv_b(uint32_t off, uint32_t len, uint64_t wr_id)
{
	const struct prdma_recv_wr *bad;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;

	sge.addr = (uintptr_t)(p_b.area.data + off);
	sge.length = len;
	sge.lkey = p_b.mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return prdma_post_recv(p_b.qp, &wr, &bad);
}

int
p_poll(struct prdma_cq *cq, struct prdma_wc *wc, unsigned int ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;
	int n;

	do {
		n = prdma_cq_poll(cq, 1, wc);
		if (n != 0)
			return n;
		prdma_dev_progress(p_a.dev);
		prdma_dev_progress(p_b.dev);
	} while (rte_get_tsc_cycles() < end);
	return 0;
}

void
p_idle(unsigned int ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;

	do {
		prdma_dev_progress(p_a.dev);
		prdma_dev_progress(p_b.dev);
	} while (rte_get_tsc_cycles() < end);
}

int
p_event(struct prdma_dev *dev, enum prdma_event_type type, unsigned int ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;
	struct prdma_async_event ev;

	do {
		while (prdma_event_get(dev, &ev) == 1)
			if (ev.type == type)
				return 1;
		prdma_dev_progress(p_a.dev);
		prdma_dev_progress(p_b.dev);
	} while (rte_get_tsc_cycles() < end);
	return 0;
}

int64_t
p_qp_counter(struct prdma_qp *qp, enum prdma_qp_counter c)
{
	struct prdma_qp_counters cnt;

	if (prdma_qp_counters_get(qp, &cnt) < 0 || (cnt.missing_mask & RTE_BIT64(c)))
		return -1;
	return (int64_t)cnt.value[c];
}
