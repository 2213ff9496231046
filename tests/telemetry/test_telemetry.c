/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The /prdma/ telemetry commands, read the way dpdk-telemetry.py reads them:
 * through the process's telemetry socket, while two devices run traffic.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_malloc.h>

#include <prdma.h>

#include "t_eal.h"

static char sock_path[256];

/* Send one command and return the JSON reply in @buf. */
static int
tel_query(const char *cmd, char *buf, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	ssize_t n;
	int fd;

	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return -errno;
	if (strlen(sock_path) >= sizeof(sun.sun_path)) {
		close(fd);
		return -ENAMETOOLONG;
	}
	memcpy(sun.sun_path, sock_path, strlen(sock_path) + 1);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		close(fd);
		return -errno;
	}
	/* The server first sends its info message, as dpdk-telemetry.py expects. */
	n = read(fd, buf, len - 1);
	if (n <= 0 || write(fd, cmd, strlen(cmd)) < 0) {
		close(fd);
		return -EIO;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	return 0;
}

struct ctx {
	int id[2];
	struct prdma_dev *dev[2];
	struct prdma_pd *pd[2];
	struct prdma_cq *cq[2];
	struct prdma_qp *qp[2];
	struct prdma_mr *mr[2];
	void *buf[2];
};

static struct ctx c;

static void
connect_qp(int i, uint32_t dqpn, const union prdma_gid *dgid)
{
	struct prdma_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ;
	assert_int_equal(prdma_qp_modify(c.qp[i], &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS), 0);
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = PRDMA_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.dgid = *dgid;
	a.ah_attr.port_num = 1;
	assert_int_equal(prdma_qp_modify(c.qp[i], &a, PRDMA_QP_STATE | PRDMA_QP_AV |
					 PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
					 PRDMA_QP_RQ_PSN | PRDMA_QP_MAX_DEST_RD_ATOMIC |
					 PRDMA_QP_MIN_RNR_TIMER), 0);
	a.qp_state = PRDMA_QPS_RTS;
	a.sq_psn = 100;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	assert_int_equal(prdma_qp_modify(c.qp[i], &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
					 PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT |
					 PRDMA_QP_RNR_RETRY | PRDMA_QP_MAX_QP_RD_ATOMIC), 0);
}

static int
setup(void **state)
{
	static const char *const devargs[2] = {
		"roce:ring=tel,side=0,ip=192.0.2.1", "roce:ring=tel,side=1,ip=192.0.2.2",
	};
	struct prdma_cq_init_attr cqa = { .cqe = 64 };
	struct prdma_qp_init_attr qa;
	union prdma_gid gid[2];
	char args[256];
	int i;

	(void)state;
	/* A private runtime directory gives this process its own socket. */
	snprintf(args, sizeof(args), "--no-huge -m 512 --no-pci --file-prefix=prdmatel%d "
		 "--log-level=lib.eal:error", (int)getpid());
	setenv("PRDMA_TEST_EAL_ARGS", args, 1);
	if (t_eal_init() < 0)
		return -1;
	snprintf(sock_path, sizeof(sock_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	for (i = 0; i < 2; i++) {
		c.id[i] = prdma_dev_probe(devargs[i]);
		assert_true(c.id[i] >= 0);
		c.dev[i] = prdma_dev_open(c.id[i]);
		c.pd[i] = prdma_pd_alloc(c.dev[i]);
		c.cq[i] = prdma_cq_create(c.dev[i], &cqa);
		assert_non_null(c.cq[i]);
		memset(&qa, 0, sizeof(qa));
		qa.qp_type = PRDMA_QPT_RC;
		qa.send_cq = c.cq[i];
		qa.recv_cq = c.cq[i];
		qa.cap.max_send_wr = 16;
		qa.cap.max_recv_wr = 16;
		qa.cap.max_send_sge = 1;
		qa.cap.max_recv_sge = 1;
		c.qp[i] = prdma_qp_create(c.pd[i], &qa);
		assert_non_null(c.qp[i]);
		c.buf[i] = rte_zmalloc(NULL, 4096, 64);
		c.mr[i] = prdma_mr_reg(c.pd[i], c.buf[i], 4096, PRDMA_ACCESS_LOCAL_WRITE |
				       PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ);
		assert_non_null(c.mr[i]);
		assert_int_equal(prdma_gid_query(c.dev[i], 1, 0, &gid[i]), 0);
	}
	connect_qp(0, c.qp[1]->qp_num, &gid[1]);
	connect_qp(1, c.qp[0]->qp_num, &gid[0]);
	return 0;
}

static int
teardown(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		prdma_qp_destroy(c.qp[i]);
		prdma_mr_dereg(c.mr[i]);
		rte_free(c.buf[i]);
		prdma_cq_destroy(c.cq[i]);
		prdma_pd_free(c.pd[i]);
		prdma_dev_close(c.dev[i]);
		prdma_dev_remove(c.id[i]);
	}
	rte_eal_cleanup();
	return 0;
}

/* Write 10 x 1000 bytes from device 0 to device 1 and wait for them. */
static void
run_traffic(void)
{
	struct prdma_sge sge = {
		.addr = (uintptr_t)c.buf[0], .length = 1000, .lkey = c.mr[0]->lkey,
	};
	struct prdma_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = PRDMA_WR_RDMA_WRITE,
		.send_flags = PRDMA_SEND_SIGNALED,
	};
	const struct prdma_send_wr *bad;
	struct prdma_wc wc;
	int sent, done = 0, spins = 0;

	wr.wr.rdma.remote_addr = (uintptr_t)c.buf[1];
	wr.wr.rdma.rkey = c.mr[1]->rkey;
	for (sent = 0; sent < 10; sent++)
		assert_int_equal(prdma_post_send(c.qp[0], &wr, &bad), 0);
	while (done < 10 && spins++ < 10000000) {
		prdma_cq_poll(c.cq[1], 1, &wc);
		if (prdma_cq_poll(c.cq[0], 1, &wc) == 1) {
			assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
			done++;
		}
	}
	assert_int_equal(done, 10);
}

static void
test_devs(void **state)
{
	char buf[16384], want[64];

	(void)state;
	assert_int_equal(tel_query("/prdma/devs", buf, sizeof(buf)), 0);
	printf("%s\n", buf);
	snprintf(want, sizeof(want), "\"%d\":\"%s\"", c.id[0], prdma_dev_name(c.id[0]));
	assert_non_null(strstr(buf, "\"/prdma/devs\""));
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want), "\"%d\":\"%s\"", c.id[1], prdma_dev_name(c.id[1]));
	assert_non_null(strstr(buf, want));
}

static void
test_info(void **state)
{
	char buf[16384], cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "/prdma/info,%d", c.id[0]);
	assert_int_equal(tel_query(cmd, buf, sizeof(buf)), 0);
	printf("%s\n", buf);
	assert_non_null(strstr(buf, "\"provider\":\"roce\""));
	assert_non_null(strstr(buf, "\"max_qp\":"));
	assert_non_null(strstr(buf, "\"port1_gid0\":\"::ffff:192.0.2.1\""));
	/* A bad parameter is an error reply, not a crash. */
	assert_int_equal(tel_query("/prdma/info,abc", buf, sizeof(buf)), 0);
	assert_null(strstr(buf, "provider"));
	assert_int_equal(tel_query("/prdma/info,31", buf, sizeof(buf)), 0);
	assert_null(strstr(buf, "provider"));
}

/* Counters move with the traffic: frames and octets both ways. */
static void
test_counters(void **state)
{
	struct prdma_dev_counters before, after;
	char buf[16384], cmd[64];

	(void)state;
	assert_int_equal(prdma_dev_counters_get(c.dev[0], &before), 0);
	run_traffic();
	assert_int_equal(prdma_dev_counters_get(c.dev[0], &after), 0);
	if (!(after.missing_mask & RTE_BIT64(PRDMA_DEV_CNT_RDMA_OUT_FRAMES))) {
		assert_true(after.value[PRDMA_DEV_CNT_RDMA_OUT_FRAMES] >=
			    before.value[PRDMA_DEV_CNT_RDMA_OUT_FRAMES] + 10);
		/* 10 x 1000 payload bytes plus headers and L2 overhead. */
		assert_true(after.value[PRDMA_DEV_CNT_RDMA_OUT_OCTETS] -
			    before.value[PRDMA_DEV_CNT_RDMA_OUT_OCTETS] > 10 * 1000);
	}
	snprintf(cmd, sizeof(cmd), "/prdma/counters,%d", c.id[0]);
	assert_int_equal(tel_query(cmd, buf, sizeof(buf)), 0);
	printf("%s\n", buf);
	assert_non_null(strstr(buf, "\"Connect\":"));
	assert_non_null(strstr(buf, "\"CQError\":"));
	assert_non_null(strstr(buf, "\"MissingCounterMask\":"));
}

static void
test_qps(void **state)
{
	char buf[16384], cmd[64], want[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "/prdma/qps,%d", c.id[1]);
	assert_int_equal(tel_query(cmd, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%u", c.qp[1]->qp_num);
	assert_non_null(strstr(buf, want));
	snprintf(cmd, sizeof(cmd), "/prdma/qp,%d,%u", c.id[1], c.qp[1]->qp_num);
	assert_int_equal(tel_query(cmd, buf, sizeof(buf)), 0);
	printf("%s\n", buf);
	assert_non_null(strstr(buf, "\"state\":\"RTS\""));
	assert_non_null(strstr(buf, "\"type\":\"RC\""));
	snprintf(want, sizeof(want), "\"dest_qp_num\":%u", c.qp[0]->qp_num);
	assert_non_null(strstr(buf, want));
	/* An unknown QP number. */
	snprintf(cmd, sizeof(cmd), "/prdma/qp,%d,1", c.id[1]);
	assert_int_equal(tel_query(cmd, buf, sizeof(buf)), 0);
	assert_null(strstr(buf, "\"state\""));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devs),
		cmocka_unit_test(test_info),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_qps),
	};

	return cmocka_run_group_tests_name("telemetry", tests, setup, teardown);
}
