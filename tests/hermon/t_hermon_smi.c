/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * QP0 (SMI) on InfiniBand ports (F7 of issue 14): PRDMA_QP_CREATE_SMI gives
 * the port's SMI QP, an MLX QP of the CONF_SPECIAL_QP block.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_errno.h>

#include "prdma_provider.h"
#include "t_eal.h"

/* QP0 exists on InfiniBand ports only, and not as the GSI QP too. */
static void
test_smi_refused(void **state)
{
	struct prdma_cq_init_attr ca = { .cqe = 16 };
	struct prdma_qp_init_attr qa;
	struct prdma_qp_attr a;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp, *qp2;
	int id;

	(void)state;
	id = prdma_dev_probe("hermon:model,name=tsmie");
	assert_true(id >= 0);
	dev = prdma_dev_open((uint16_t)id);
	pd = prdma_pd_alloc(dev);
	cq = prdma_cq_create(dev, &ca);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_UD;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.create_flags = PRDMA_QP_CREATE_SMI | PRDMA_QP_CREATE_GSI;
	assert_null(prdma_qp_create(pd, &qa));
	assert_int_equal(rte_errno, EINVAL);
	qa.create_flags = PRDMA_QP_CREATE_SMI;
	qp = prdma_qp_create(pd, &qa);
	assert_non_null(qp);
	/* one per port */
	qp2 = prdma_qp_create(pd, &qa);
	assert_null(qp2);
	assert_int_equal(rte_errno, EBUSY);
	/* an Ethernet port has no QP0 */
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_QKEY), -ENOTSUP);
	assert_int_equal(prdma_qp_destroy(qp), 0);
	assert_int_equal(prdma_cq_destroy(cq), 0);
	assert_int_equal(prdma_pd_free(pd), 0);
	prdma_dev_close(dev);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smi_refused),
	};

	if (t_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("hermon-smi", tests, NULL, NULL);
}
