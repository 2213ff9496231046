/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The special QPs (F7, issue 14): CONF_SPECIAL_QP and its rules in the
 * model, the GSI QP (QP1) as an MLX QP of that block, MADs in MLX WQEs
 * between two model HCAs on a cable (RoCE v1 headers built by the PMD,
 * parsed at the receiving port), and the WQEs and frames the model
 * refuses as a card would.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_io.h>
#include <rte_malloc.h>

#include "prdma_provider.h"
#include "t_eal.h"
#include "hermon_dev.h"
#include "hermon_obj.h"
#include "hermon_sqp_wire.h"
#include "hermon_model.h"

#define A_ARGS "hermon:model,link=sqp,side=0,ip=192.0.2.3,mac=02:c9:00:00:00:03," \
	"neigh=192.0.2.2/02:c9:00:00:00:02"
#define B_ARGS "hermon:model,link=sqp,side=1,ip=192.0.2.2,mac=02:c9:00:00:00:02," \
	"neigh=192.0.2.3/02:c9:00:00:00:03"
#define MAD 256

struct end {
	int id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp;
	struct prdma_mr *mr;
	uint8_t *buf;
	union prdma_gid gid;
};

static struct end ea, eb;

static void
gsi_make(struct end *e)
{
	struct prdma_qp_init_attr qa;
	struct prdma_qp_attr a;

	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_UD;
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	qa.cap.max_send_wr = 8;
	qa.cap.max_recv_wr = 8;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.create_flags = PRDMA_QP_CREATE_GSI;
	e->qp = prdma_qp_create(e->pd, &qa);
	assert_non_null(e->qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qkey = PRDMA_GSI_QKEY;
	assert_int_equal(prdma_qp_modify(e->qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_QKEY), 0);
	a.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(prdma_qp_modify(e->qp, &a, PRDMA_QP_STATE), 0);
	a.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(prdma_qp_modify(e->qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
}

static void
end_up(struct end *e, const char *args)
{
	struct prdma_cq_init_attr ca = { .cqe = 64 };

	memset(e, 0, sizeof(*e));
	e->id = prdma_dev_probe(args);
	assert_true(e->id >= 0);
	e->dev = prdma_dev_open((uint16_t)e->id);
	assert_non_null(e->dev);
	e->pd = prdma_pd_alloc(e->dev);
	e->cq = prdma_cq_create(e->dev, &ca);
	e->buf = rte_zmalloc("t_sqp", 8192, 64);
	assert_non_null(e->buf);
	e->mr = prdma_mr_reg(e->pd, e->buf, 8192, PRDMA_ACCESS_LOCAL_WRITE);
	assert_non_null(e->mr);
	gsi_make(e);
	assert_int_equal(prdma_gid_query(e->dev, 1, 1, &e->gid), 0);
}

static void
end_down(struct end *e)
{
	assert_int_equal(prdma_qp_destroy(e->qp), 0);
	assert_int_equal(prdma_mr_dereg(e->mr), 0);
	rte_free(e->buf);
	assert_int_equal(prdma_cq_destroy(e->cq), 0);
	assert_int_equal(prdma_pd_free(e->pd), 0);
	prdma_dev_close(e->dev);
	assert_int_equal(prdma_dev_remove((uint16_t)e->id), 0);
}

static void
post_recv(struct end *e, uint64_t id)
{
	const struct prdma_recv_wr *bad;
	struct prdma_sge sge = { .addr = (uintptr_t)(e->buf + 4096), .length = 1024,
				 .lkey = e->mr->lkey };
	struct prdma_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	assert_int_equal(prdma_post_recv(e->qp, &wr, &bad), 0);
}

/* One completion from @e's CQ within 2 s (the model runs on its thread). */
static int
poll_one(struct end *e, struct prdma_wc *wc, unsigned int ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;
	int n;

	do {
		n = prdma_cq_poll(e->cq, 1, wc);
		if (n != 0)
			return n;
	} while (rte_get_tsc_cycles() < end);
	return 0;
}

static struct prdma_ah *
ah_to(struct end *from, const struct end *to)
{
	struct prdma_ah_attr at;

	memset(&at, 0, sizeof(at));
	at.dgid = to->gid;
	at.sgid_index = 1;
	at.hop_limit = 64;
	at.port_num = 1;
	return prdma_ah_create(from->pd, &at);
}

static int
send_mad(struct end *e, struct prdma_ah *ah, uint32_t dqpn)
{
	const struct prdma_send_wr *bad;
	struct prdma_sge sge = { .addr = (uintptr_t)e->buf, .length = MAD,
				 .lkey = e->mr->lkey };
	struct prdma_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 7;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = dqpn;
	wr.wr.ud.remote_qkey = PRDMA_GSI_QKEY;
	return prdma_post_send(e->qp, &wr, &bad);
}

/*
 * The GSI QP is QP1 of the CONF_SPECIAL_QP block (QPN base + 2 for port
 * 1), one per port; the firmware takes the block only aligned and clear of
 * its own QPs, and takes the MLX service type only there. Before this
 * change the PMD refused PRDMA_QP_CREATE_GSI with -ENOTSUP.
 */
static void
test_special_block(void **state)
{
	struct prdma_qp_init_attr qa;
	struct hermon_qp *hq;
	struct hermon_dev *hd;
	struct hermon_prm_qp_ee_state_transitions *mb;
	struct prdma_qp *ud;

	(void)state;
	end_up(&ea, A_ARGS);
	hd = ea.dev->priv;
	assert_int_equal(hd->sqp_base, 0x40);
	assert_int_equal(ea.qp->qp_num, 1);
	hq = (struct hermon_qp *)ea.qp;
	assert_int_equal(hq->qpn, hermon_sqp_qpn(0x40, 1, 1));
	/* a second GSI QP on the port: busy */
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_UD;
	qa.send_cq = ea.cq;
	qa.recv_cq = ea.cq;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.create_flags = PRDMA_QP_CREATE_GSI;
	assert_null(prdma_qp_create(ea.pd, &qa));
	assert_int_equal(rte_errno, EBUSY);
	/* the block again, misaligned, or on the firmware's QPs: refused */
	assert_int_equal(hermon_cmd_conf_special_qp(&hd->cmd, 0x41), -EINVAL);
	assert_int_equal(hermon_cmd_conf_special_qp(&hd->cmd, 0x8), -EINVAL);
	/* while QP1 is out of RESET the block cannot move */
	assert_true(hermon_cmd_conf_special_qp(&hd->cmd, 0x40) < 0);
	/* an ordinary QPN cannot be made an MLX QP */
	qa.create_flags = 0;
	ud = prdma_qp_create(ea.pd, &qa);
	assert_non_null(ud);
	mb = rte_zmalloc("t_sqp_mb", sizeof(*mb), 64);
	assert_non_null(mb);
	memcpy(HERMON_NESTED(mb, qp_ee_state_transitions, qpc_eec_data,
			     queue_pair_ee_context_entry), &((struct hermon_qp *)ud)->qpc,
	       sizeof(((struct hermon_qp *)ud)->qpc));
	HERMON_FILL(HERMON_NESTED(mb, qp_ee_state_transitions, qpc_eec_data,
				  queue_pair_ee_context_entry),
		    queue_pair_ee_context_entry, st, HERMON_QPST_MLX);
	assert_int_equal(hermon_cmd_qp_modify(&hd->cmd, HERMON_CMD_RST2INIT_QP,
					      ((struct hermon_qp *)ud)->qpn, 0, mb), -EINVAL);
	rte_free(mb);
	assert_int_equal(prdma_qp_destroy(ud), 0);
	end_down(&ea);
}

/*
 * A MAD from A's QP1 to B's QP1 in an MLX WQE: B receives it on its GSI
 * QP with the RoCE v1 GRH first (source GID A's ::ffff:192.0.2.3), from
 * source QP 1, and A's send completes.
 */
static void
test_gsi_mad(void **state)
{
	struct prdma_ah *ah;
	struct prdma_wc wc;
	union prdma_gid src;
	unsigned int i;

	(void)state;
	end_up(&ea, A_ARGS);
	end_up(&eb, B_ARGS);
	post_recv(&eb, 11);
	for (i = 0; i < MAD; i++)
		ea.buf[i] = (uint8_t)(i * 7 + 1);
	ah = ah_to(&ea, &eb);
	assert_non_null(ah);
	assert_int_equal(send_mad(&ea, ah, 1), 0);
	assert_int_equal(poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 7);
	assert_int_equal(poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 11);
	assert_int_equal(wc.byte_len, 40 + MAD);
	assert_int_equal(wc.src_qp, 1);
	assert_true(wc.wc_flags & PRDMA_WC_GRH);
	/* the GRH as the wire carried it: IPv6 form, next header BTH */
	assert_int_equal(eb.buf[4096] >> 4, 6);
	assert_int_equal(eb.buf[4096 + 6], HERMON_GRH_NXT_BTH);
	memcpy(src.raw, eb.buf + 4096 + 8, 16);
	assert_memory_equal(src.raw, ea.gid.raw, 16);
	assert_memory_equal(eb.buf + 4096 + 40, ea.buf, MAD);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	end_down(&ea);
	end_down(&eb);
}

/*
 * The CM makes and destroys a port's GSI QP with its first and last id:
 * a GSI QP made again at the same QPN sends and receives its first MAD at
 * once, every time.
 */
static void
test_gsi_again(void **state)
{
	struct prdma_ah *ah;
	struct prdma_wc wc;
	unsigned int i;

	(void)state;
	end_up(&eb, B_ARGS);
	end_up(&ea, A_ARGS);
	for (i = 0; i < 300; i++) {
		if (i != 0) {
			struct prdma_cq_init_attr ca = { .cqe = 64 };

			/* all of the CM agent's objects, as it makes them again */
			assert_int_equal(prdma_qp_destroy(ea.qp), 0);
			assert_int_equal(prdma_mr_dereg(ea.mr), 0);
			assert_int_equal(prdma_cq_destroy(ea.cq), 0);
			assert_int_equal(prdma_pd_free(ea.pd), 0);
			ea.pd = prdma_pd_alloc(ea.dev);
			assert_non_null(ea.pd);
			ea.cq = prdma_cq_create(ea.dev, &ca);
			assert_non_null(ea.cq);
			ea.mr = prdma_mr_reg(ea.pd, ea.buf, 8192, PRDMA_ACCESS_LOCAL_WRITE);
			assert_non_null(ea.mr);
			gsi_make(&ea);
		}
		post_recv(&eb, i);
		ah = ah_to(&ea, &eb);
		assert_non_null(ah);
		assert_int_equal(send_mad(&ea, ah, 1), 0);
		assert_int_equal(poll_one(&ea, &wc, 2000), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_int_equal(poll_one(&eb, &wc, 2000), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_int_equal(wc.wr_id, i);
		assert_int_equal(prdma_ah_destroy(ah), 0);
	}
	end_down(&ea);
	end_down(&eb);
}

/* Write a raw WQE of @n bytes in the next SQ slot of @e's QP1; doorbell. */
static void
raw_post(struct end *e, const uint8_t *wqe, uint32_t n)
{
	struct hermon_qp *qp = (struct hermon_qp *)e->qp;
	uint8_t *w = qp->sq + ((qp->sq_head & qp->sq_mask) << qp->sq_shift);
	uint32_t own = (qp->sq_head >> qp->sq_log) & 1 ? RTE_BIT32(31) : 0;

	memcpy(w + 4, wqe + 4, n - 4);
	qp->sq_wrid[qp->sq_head & qp->sq_mask] = 99;
	rte_wmb();
	*(rte_be32_t *)w = rte_cpu_to_be_32(own | HERMON_WQE_SEND);
	qp->sq_head++;
	rte_wmb();
	rte_write32_relaxed(qp->db_val, qp->uar_db);
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * WQEs a card refuses and frames no port takes. An MLX WQE without its
 * inline headers (a gather entry first) completes with a local QP
 * operation error, and the QP goes to ERR; a frame whose EtherType is not
 * RoCE's leaves the sender but reaches no QP (a counted drop at the
 * receiving model, the one its DMAC names).
 */
static void
test_mlx_refused(void **state)
{
	struct hermon_model_stats st0, st1;
	struct hermon_model *m;
	struct prdma_ah *ah;
	struct prdma_wc wc;
	uint8_t wqe[128];
	struct hermon_ah *hah;
	uint8_t *g;

	(void)state;
	end_up(&ea, A_ARGS);
	end_up(&eb, B_ARGS);
	/* the port the DMAC names drops what it cannot parse */
	m = hermon_model_get("sqp.1");
	assert_non_null(m);
	post_recv(&eb, 11);
	ah = ah_to(&ea, &eb);
	assert_non_null(ah);
	hah = (struct hermon_ah *)ah;

	/* a RoCE header with the IPv4 EtherType: sent, taken by nobody */
	memset(wqe, 0, sizeof(wqe));
	put_be32(wqe + 4, 128 / 16);
	put_be32(wqe + 8, 3u << 2);
	put_be32(wqe + 16, RTE_BIT32(31) | 44);
	memcpy(wqe + 20, hah->l2 + 2, 6);
	wqe[32] = 0x08;                          /* EtherType 0x0800 */
	wqe[33] = 0x00;
	g = wqe + 34;
	g[0] = 0x60;
	g[4] = 0x01;                             /* PayLen 12 + 8 + 256 + 4 */
	g[5] = 0x18;
	g[6] = HERMON_GRH_NXT_BTH;
	memcpy(g + 8, ea.gid.raw, 16);
	memcpy(g + 24, eb.gid.raw, 6);           /* up to the 64-byte boundary */
	put_be32(wqe + 64, RTE_BIT32(31) | 30);
	memcpy(wqe + 68, eb.gid.raw + 6, 10);
	wqe[78] = HERMON_BTH_UD_SEND_ONLY;       /* BTH at 78, DETH at 90 */
	put_be32(wqe + 82, 1);
	put_be32(wqe + 90, PRDMA_GSI_QKEY);
	put_be32(wqe + 94, 1);
	put_be32(wqe + 112, MAD);
	put_be32(wqe + 116, ea.mr->lkey);
	*(rte_be64_t *)(wqe + 120) = rte_cpu_to_be_64((uintptr_t)ea.buf);
	assert_int_equal(hermon_model_get_stats(m, &st0), 0);
	raw_post(&ea, wqe, sizeof(wqe));
	assert_int_equal(poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(poll_one(&eb, &wc, 200), 0);
	assert_int_equal(hermon_model_get_stats(m, &st1), 0);
	assert_int_equal(st1.drops, st0.drops + 1);
	/* the same frame with RoCE's EtherType arrives: the header was right */
	wqe[32] = HERMON_ETHERTYPE_ROCE >> 8;
	wqe[33] = HERMON_ETHERTYPE_ROCE & 0xff;
	raw_post(&ea, wqe, sizeof(wqe));
	assert_int_equal(poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.src_qp, 1);

	/* no inline header: the gather entry first */
	memset(wqe, 0, sizeof(wqe));
	put_be32(wqe + 4, 32 / 16);
	put_be32(wqe + 8, 3u << 2);
	put_be32(wqe + 16, MAD);
	put_be32(wqe + 20, ea.mr->lkey);
	*(rte_be64_t *)(wqe + 24) = rte_cpu_to_be_64((uintptr_t)ea.buf);
	raw_post(&ea, wqe, 32);
	assert_int_equal(poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_LOC_QP_OP_ERR);
	hermon_model_put(m);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	end_down(&ea);
	end_down(&eb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_special_block),
		cmocka_unit_test(test_gsi_mad),
		cmocka_unit_test(test_gsi_again),
		cmocka_unit_test(test_mlx_refused),
	};

	if (t_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("hermon_sqp", tests, NULL, NULL);
}
