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
#include "t_hermon_common.h"

#define A_ARGS "hermon:model,link=sqp,side=0,ip=192.0.2.3,mac=02:c9:00:00:00:03," \
	"neigh=192.0.2.2/02:c9:00:00:00:02"
#define B_ARGS "hermon:model,link=sqp,side=1,ip=192.0.2.2,mac=02:c9:00:00:00:02," \
	"neigh=192.0.2.3/02:c9:00:00:00:03"

static struct t_end ea, eb;

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
	t_gsi_end_up(&ea, A_ARGS);
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
	t_end_down(&ea);
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
	t_gsi_end_up(&ea, A_ARGS);
	t_gsi_end_up(&eb, B_ARGS);
	t_post_recv(&eb, eb.qp, 11);
	for (i = 0; i < T_MAD; i++)
		ea.buf[i] = (uint8_t)(i * 7 + 1);
	ah = t_gsi_ah(&ea, &eb, 1, 1);
	assert_non_null(ah);
	assert_int_equal(t_gsi_send(&ea, ah, 1), 0);
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.wr_id, T_SEND_ID);
	assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 11);
	assert_int_equal(wc.byte_len, 40 + T_MAD);
	assert_int_equal(wc.src_qp, 1);
	assert_true(wc.wc_flags & PRDMA_WC_GRH);
	/* the GRH as the wire carried it: IPv6 form, next header BTH */
	assert_int_equal(eb.buf[T_RX] >> 4, 6);
	assert_int_equal(eb.buf[T_RX + 6], HERMON_GRH_NXT_BTH);
	memcpy(src.raw, eb.buf + T_RX + 8, 16);
	assert_memory_equal(src.raw, ea.gid.raw, 16);
	assert_memory_equal(eb.buf + T_RX + 40, ea.buf, T_MAD);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	t_end_down(&ea);
	t_end_down(&eb);
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
	t_gsi_end_up(&eb, B_ARGS);
	t_gsi_end_up(&ea, A_ARGS);
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
			t_gsi_make(&ea);
		}
		t_post_recv(&eb, eb.qp, i);
		ah = t_gsi_ah(&ea, &eb, 1, 1);
		assert_non_null(ah);
		assert_int_equal(t_gsi_send(&ea, ah, 1), 0);
		assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_int_equal(wc.wr_id, i);
		assert_int_equal(prdma_ah_destroy(ah), 0);
	}
	t_end_down(&ea);
	t_end_down(&eb);
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
	t_gsi_end_up(&ea, A_ARGS);
	t_gsi_end_up(&eb, B_ARGS);
	/* the port the DMAC names drops what it cannot parse */
	m = hermon_model_get("sqp.1");
	assert_non_null(m);
	t_post_recv(&eb, eb.qp, 11);
	ah = t_gsi_ah(&ea, &eb, 1, 1);
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
	put_be32(wqe + 112, T_MAD);
	put_be32(wqe + 116, ea.mr->lkey);
	*(rte_be64_t *)(wqe + 120) = rte_cpu_to_be_64((uintptr_t)ea.buf);
	assert_int_equal(hermon_model_get_stats(m, &st0), 0);
	t_wqe_post(&ea, wqe, sizeof(wqe));
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(&eb, &wc, 200), 0);
	assert_int_equal(hermon_model_get_stats(m, &st1), 0);
	assert_int_equal(st1.drops, st0.drops + 1);
	/* the same frame with RoCE's EtherType arrives: the header was right */
	wqe[32] = HERMON_ETHERTYPE_ROCE >> 8;
	wqe[33] = HERMON_ETHERTYPE_ROCE & 0xff;
	t_wqe_post(&ea, wqe, sizeof(wqe));
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.src_qp, 1);

	/* no inline header: the gather entry first */
	memset(wqe, 0, sizeof(wqe));
	put_be32(wqe + 4, 32 / 16);
	put_be32(wqe + 8, 3u << 2);
	put_be32(wqe + 16, T_MAD);
	put_be32(wqe + 20, ea.mr->lkey);
	*(rte_be64_t *)(wqe + 24) = rte_cpu_to_be_64((uintptr_t)ea.buf);
	t_wqe_post(&ea, wqe, 32);
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_LOC_QP_OP_ERR);
	hermon_model_put(m);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	t_end_down(&ea);
	t_end_down(&eb);
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
