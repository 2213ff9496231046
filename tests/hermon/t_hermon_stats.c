/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * An AH or QP path the PMD cannot address (no MAC for its GID) is a
 * counted failure (issue 14): the PMD's l2_unresolved counter, read by
 * hermon_stats_get() and telemetry /hermon/stats, and no ERR line for
 * each; a NOTICE at most once per interval, the address at DEBUG. Forged
 * CM REQs naming such addresses used to become an ERR line each.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_errno.h>
#include <rte_log.h>
#include <rte_telemetry.h>

#include "prdma.h"
#include "prdma_provider.h"
#include "t_eal.h"
#include "hermon_dev.h"
#include "hermon_logs.h"
#include "hermon_obj.h"

static int id;
static struct prdma_dev *dev;
static struct prdma_pd *pd;
static struct prdma_cq *cq;
static char *logbuf;
static size_t loglen;
static FILE *logf;

/* An AH to 192.0.2.@last (no neighbour known): refused. */
static void
miss_ah(uint8_t last)
{
	struct prdma_ah_attr aa;

	memset(&aa, 0, sizeof(aa));
	aa.dgid.raw[10] = 0xff;
	aa.dgid.raw[11] = 0xff;
	aa.dgid.raw[12] = 192;
	aa.dgid.raw[14] = 2;
	aa.dgid.raw[15] = last;
	aa.port_num = 1;
	assert_null(prdma_ah_create(pd, &aa));
	assert_int_equal(rte_errno, EHOSTUNREACH);
}

/* An RC path to 2001:db8::@last (no neighbour known): refused at RTR. */
static void
miss_path(uint8_t last)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp_attr a;
	struct prdma_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = prdma_qp_create(pd, &ia);
	assert_non_null(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = PRDMA_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.dgid.raw[0] = 0x20;
	a.ah_attr.dgid.raw[1] = 0x01;
	a.ah_attr.dgid.raw[2] = 0x0d;
	a.ah_attr.dgid.raw[3] = 0xb8;
	a.ah_attr.dgid.raw[15] = last;
	a.ah_attr.port_num = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_AV |
					 PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
					 PRDMA_QP_RQ_PSN | PRDMA_QP_MAX_DEST_RD_ATOMIC |
					 PRDMA_QP_MIN_RNR_TIMER), -EHOSTUNREACH);
	assert_int_equal(prdma_qp_destroy(qp), 0);
}

/* How many lines of what was logged since the last call hold @what. */
static unsigned int
logged(const char *what)
{
	unsigned int n = 0;
	const char *p;

	fflush(logf);
	for (p = logbuf; what[0] != '\0' && p != NULL && (p = strstr(p, what)) != NULL;
	     p += strlen(what))
		n++;
	/* start again */
	fclose(logf);
	free(logbuf);
	logbuf = NULL;
	logf = open_memstream(&logbuf, &loglen);
	assert_non_null(logf);
	rte_openlog_stream(logf);
	return n;
}

static uint64_t
unresolved(void)
{
	struct hermon_stats st;

	assert_int_equal(hermon_stats_get(dev->priv, &st), 0);
	return st.l2_unresolved;
}

/*
 * Five misses on a fresh device: one NOTICE line (the hint), not five;
 * at the ERR level none at all; at DEBUG one line per miss. The counter
 * counts every one, AHs and RC paths alike.
 */
static void
test_unresolved_counted(void **state)
{
	unsigned int i;

	(void)state;
	assert_int_equal(unresolved(), 0);
	(void)logged("");
	rte_log_set_level(hermon_logtype, RTE_LOG_NOTICE);
	for (i = 0; i < 5; i++)
		miss_ah((uint8_t)(10 + i));
	assert_int_equal(logged("no MAC for"), 1);
	assert_int_equal(unresolved(), 5);

	rte_log_set_level(hermon_logtype, RTE_LOG_ERR);
	for (i = 0; i < 5; i++) {
		miss_ah((uint8_t)(20 + i));
		miss_path((uint8_t)(20 + i));
	}
	assert_int_equal(logged("no MAC for"), 0);
	assert_int_equal(unresolved(), 15);

	/* the lines are there to see at DEBUG: the capture works */
	rte_log_set_level(hermon_logtype, RTE_LOG_DEBUG);
	miss_ah(30);
	miss_path(31);
	assert_int_equal(logged("no MAC for"), 2);
	assert_int_equal(unresolved(), 17);
	rte_log_set_level(hermon_logtype, RTE_LOG_NOTICE);
}

/* /hermon/stats,<dev_id> answers for a hermon device only. */
static void
test_telemetry(void **state)
{
	struct rte_tel_data *d = rte_tel_data_alloc();
	char arg[16];

	(void)state;
	assert_non_null(d);
	snprintf(arg, sizeof(arg), "%d", id);
	assert_int_equal(hermon_stats_telemetry("/hermon/stats", arg, d), 0);
	assert_int_equal(hermon_stats_telemetry("/hermon/stats", "x", d), -EINVAL);
	assert_int_equal(hermon_stats_telemetry("/hermon/stats", NULL, d), -EINVAL);
	assert_int_equal(hermon_stats_telemetry("/hermon/stats", "1,2", d), -EINVAL);
	snprintf(arg, sizeof(arg), "%d", id + 7);
	assert_int_equal(hermon_stats_telemetry("/hermon/stats", arg, d), -ENODEV);
	rte_tel_data_free(d);
	assert_int_equal(hermon_stats_get(NULL, NULL), -EINVAL);
}

static int
setup(void **state)
{
	struct prdma_cq_init_attr ca = { .cqe = 16 };

	(void)state;
	id = prdma_dev_probe("hermon:model,name=tst,ip=192.0.2.3,"
			     "neigh=192.0.2.2/02:c9:00:00:00:42");
	if (id < 0)
		return -1;
	dev = prdma_dev_open((uint16_t)id);
	pd = dev != NULL ? prdma_pd_alloc(dev) : NULL;
	cq = dev != NULL ? prdma_cq_create(dev, &ca) : NULL;
	logf = open_memstream(&logbuf, &loglen);
	if (pd == NULL || cq == NULL || logf == NULL)
		return -1;
	rte_openlog_stream(logf);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	rte_openlog_stream(NULL);
	fclose(logf);
	free(logbuf);
	prdma_cq_destroy(cq);
	prdma_pd_free(pd);
	prdma_dev_close(dev);
	return prdma_dev_remove((uint16_t)id);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unresolved_counted),
		cmocka_unit_test(test_telemetry),
	};

	if (t_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("hermon_stats", tests, setup, teardown);
}
