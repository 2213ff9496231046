/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* A program outside the tree: it sees only the installed headers. */

#include <stdio.h>
#include <string.h>

#include <prdma.h>

int
main(void)
{
	union prdma_gid gid;
	char buf[64];

	if (prdma_gid_from_str(&gid, "192.0.2.1") != 0)
		return 1;
	prdma_gid_to_str(&gid, buf, sizeof(buf));
	if (strcmp(buf, "::ffff:192.0.2.1") != 0) {
		fprintf(stderr, "gid: got %s\n", buf);
		return 1;
	}
	printf("prdma from outside: %s, %s, %u devices\n",
	       prdma_qp_state_str(PRDMA_QPS_RTS),
	       prdma_wc_status_str(PRDMA_WC_RETRY_EXC_ERR), prdma_dev_count());
	return 0;
}
