/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "t_roce.h"

void
t_pair_open(struct t_side s[2], const char *a, const char *b)
{
	const char *args[2] = { a, b };
	struct prdma_cq_init_attr ca;
	struct prdma_port_attr pa;
	int i;

	assert_int_equal(t_eal_init(), 0);
	memset(s, 0, sizeof(*s) * 2);
	for (i = 0; i < 2; i++) {
		s[i].id = prdma_dev_probe(args[i]);
		if (s[i].id < 0)
			fail_msg("probe %s: %d", args[i], s[i].id);
		s[i].dev = prdma_dev_open((uint16_t)s[i].id);
		assert_non_null(s[i].dev);
		s[i].pd = prdma_pd_alloc(s[i].dev);
		assert_non_null(s[i].pd);
		memset(&ca, 0, sizeof(ca));
		ca.cqe = 256;
		s[i].scq = prdma_cq_create(s[i].dev, &ca);
		s[i].rcq = prdma_cq_create(s[i].dev, &ca);
		assert_non_null(s[i].scq);
		assert_non_null(s[i].rcq);
		s[i].buf = rte_zmalloc(NULL, T_BUF_LEN, 64);
		assert_non_null(s[i].buf);
		s[i].mr = prdma_mr_reg(s[i].pd, s[i].buf, T_BUF_LEN, PRDMA_ACCESS_ALL);
		assert_non_null(s[i].mr);
		assert_int_equal(prdma_gid_query(s[i].dev, 1, 0, &s[i].gid), 0);
		assert_int_equal(prdma_port_query(s[i].dev, 1, &pa), 0);
		s[i].mac = pa.mac;
	}
}

void
t_pair_close(struct t_side s[2])
{
	int i;

	for (i = 0; i < 2; i++) {
		if (s[i].qp != NULL)
			assert_int_equal(prdma_qp_destroy(s[i].qp), 0);
		assert_int_equal(prdma_mr_dereg(s[i].mr), 0);
		rte_free(s[i].buf);
		assert_int_equal(prdma_cq_destroy(s[i].scq), 0);
		assert_int_equal(prdma_cq_destroy(s[i].rcq), 0);
		assert_int_equal(prdma_pd_free(s[i].pd), 0);
		assert_int_equal(prdma_dev_close(s[i].dev), 0);
		assert_int_equal(prdma_dev_remove((uint16_t)s[i].id), 0);
	}
}

uint32_t t_sq_depth = 64;
uint8_t t_ack_timeout = 14;

void
t_pair_connect(struct t_side s[2], enum prdma_qp_type type, int dmac)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp_attr qa;
	uint32_t mask;
	int i;

	for (i = 0; i < 2; i++) {
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = type;
		ia.send_cq = s[i].scq;
		ia.recv_cq = s[i].rcq;
		ia.cap.max_send_wr = t_sq_depth;
		ia.cap.max_recv_wr = 64;
		ia.cap.max_send_sge = 4;
		ia.cap.max_recv_sge = 4;
		ia.cap.max_inline_data = 64;
		s[i].qp = prdma_qp_create(s[i].pd, &ia);
		assert_non_null(s[i].qp);
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_INIT;
		qa.port_num = 1;
		qa.qkey = 0x11111111;
		qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE |
			(type == PRDMA_QPT_RC ? PRDMA_ACCESS_REMOTE_READ |
			 PRDMA_ACCESS_REMOTE_ATOMIC : 0);
		mask = PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT |
			(type == PRDMA_QPT_UD ? PRDMA_QP_QKEY : PRDMA_QP_ACCESS_FLAGS);
		assert_int_equal(prdma_qp_modify(s[i].qp, &qa, mask), 0);
	}
	for (i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RTR;
		mask = PRDMA_QP_STATE;
		if (type != PRDMA_QPT_UD) {
			qa.path_mtu = PRDMA_MTU_1024;
			qa.dest_qp_num = s[1 - i].qp->qp_num;
			qa.rq_psn = 0xfffff0u + (uint32_t)i; /* cross the PSN wrap */
			qa.max_dest_rd_atomic = 4;
			qa.min_rnr_timer = 1;
			qa.ah_attr.dgid = s[1 - i].gid;
			qa.ah_attr.port_num = 1;
			if (dmac) {
				qa.ah_attr.flags = PRDMA_AH_F_DMAC;
				qa.ah_attr.dmac = s[1 - i].mac;
			}
			mask |= PRDMA_QP_AV | PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
				PRDMA_QP_RQ_PSN;
			if (type == PRDMA_QPT_RC)
				mask |= PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER;
		}
		assert_int_equal(prdma_qp_modify(s[i].qp, &qa, mask), 0);
	}
	for (i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = PRDMA_QPS_RTS;
		qa.sq_psn = 0xfffff0u + (uint32_t)(1 - i);
		qa.timeout = t_ack_timeout;
		qa.retry_cnt = 7;
		qa.rnr_retry = 7;
		qa.max_rd_atomic = 4;
		mask = PRDMA_QP_STATE | PRDMA_QP_SQ_PSN;
		if (type == PRDMA_QPT_RC)
			mask |= PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
				PRDMA_QP_MAX_QP_RD_ATOMIC;
		assert_int_equal(prdma_qp_modify(s[i].qp, &qa, mask), 0);
	}
}

int
t_poll_one(struct t_side s[2], struct prdma_cq *cq, struct prdma_wc *wc)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 2;
	int n;

	do {
		n = prdma_cq_poll(cq, 1, wc);
		if (n != 0)
			return n;
		prdma_dev_progress(s[0].dev);
		prdma_dev_progress(s[1].dev);
	} while (rte_get_tsc_cycles() < end);
	return 0;
}

int
t_post(struct t_side *s, enum prdma_wr_opcode opcode, uint32_t loff, uint32_t len,
       uint64_t raddr, uint32_t rkey, uint64_t wr_id)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;

	sge.addr = (uintptr_t)(s->buf + loff);
	sge.length = len;
	sge.lkey = s->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = opcode;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return prdma_post_send(s->qp, &wr, &bad);
}

int
t_post_recv(struct t_side *s, uint32_t off, uint32_t len, uint64_t wr_id)
{
	const struct prdma_recv_wr *bad;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;

	sge.addr = (uintptr_t)(s->buf + off);
	sge.length = len;
	sge.lkey = s->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return prdma_post_recv(s->qp, &wr, &bad);
}

struct prdma_cq *
t_cq_new(struct t_side *s)
{
	struct prdma_cq_init_attr ca;
	struct prdma_cq *cq;

	memset(&ca, 0, sizeof(ca));
	ca.cqe = 256;
	cq = prdma_cq_create(s->dev, &ca);
	assert_non_null(cq);
	return cq;
}
