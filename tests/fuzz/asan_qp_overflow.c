/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Death test of the sanitizer builds: does ASan see the provider's own
 * objects, which live in DPDK's heap (lib/rdma/prdma_asan_alloc.c)?
 *
 *   asan_qp_overflow overflow   write one byte past the soft provider's
 *                               QP object (struct roce_qp)
 *   asan_qp_overflow underflow  write one byte before its allocation
 *                               (before the library's object header)
 *   asan_qp_overflow uaf        read the QP after prdma_qp_destroy
 *   asan_qp_overflow inside     write the QP's last byte (must pass)
 *
 * asan_expect.sh runs it and wants ASan's report and a failing exit for
 * the first three, a clean exit for the last.
 */

#include <stdio.h>
#include <string.h>

#include "roce.h"
#include "t_eal.h"

int
main(int argc, char **argv)
{
	struct prdma_cq_init_attr ca = { .cqe = 16 };
	struct prdma_qp_init_attr ia;
	volatile uint8_t *p;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp;
	const char *mode = argc > 1 ? argv[1] : "inside";
	int id;

	if (t_eal_init() < 0)
		return 2;
	id = prdma_dev_probe("roce:ring=asanqp,side=0,ip=192.0.2.1");
	if (id < 0 || (dev = prdma_dev_open((uint16_t)id)) == NULL)
		return 2;
	pd = prdma_pd_alloc(dev);
	cq = pd != NULL ? prdma_cq_create(dev, &ca) : NULL;
	if (cq == NULL)
		return 2;
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = prdma_qp_create(pd, &ia);
	if (qp == NULL)
		return 2;
	p = (volatile uint8_t *)qp;
	printf("struct roce_qp: %zu bytes at %p, mode %s\n", sizeof(struct roce_qp),
	       (void *)qp, mode);
	fflush(stdout);
	if (strcmp(mode, "overflow") == 0) {
		p[sizeof(struct roce_qp)] = 1;
	} else if (strcmp(mode, "underflow") == 0) {
		/* before the allocation: the library's object header (its
		 * validity marker) sits between it and the QP */
		p[-(long)sizeof(struct prdma__obj_hdr) - 1] = 1;
	} else if (strcmp(mode, "uaf") == 0) {
		if (prdma_qp_destroy(qp) != 0)
			return 2;
		printf("read after destroy: %u\n", p[0]);
		return 0;
	} else {
		p[sizeof(struct roce_qp) - 1] ^= 0;
	}
	printf("no report\n");
	prdma_qp_destroy(qp);
	prdma_cq_destroy(cq);
	prdma_pd_free(pd);
	prdma_dev_close(dev);
	return 0;
}
