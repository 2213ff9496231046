/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Runs every conformance group against the devices named by
 * PRDMA_CONF_DEVARGS_A / PRDMA_CONF_DEVARGS_B and removes them at the end.
 * PRDMA_CONF_FILTER (a cmocka pattern such as "test_cq_*") runs a subset,
 * for a provider developer chasing one failure. PRDMA_CONF_SKIP (a pattern)
 * leaves tests out: meson.build uses it only for a provider's known gap,
 * named there.
 */

#include <stdlib.h>

#include "conf.h"

int
main(void)
{
	const char *filter = getenv("PRDMA_CONF_FILTER");
	const char *skip = getenv("PRDMA_CONF_SKIP");
	int failed = 0;
	unsigned int i;

	if (filter != NULL && filter[0] != '\0')
		cmocka_set_test_filter(filter);
	if (skip != NULL && skip[0] != '\0')
		cmocka_set_skip_filter(skip);

	failed += conf_group_dev();
	failed += conf_group_opcodes();
	failed += conf_group_mw();
	failed += conf_group_sizes();
	failed += conf_group_ucud();
	failed += conf_group_srq();
	failed += conf_group_rnr();
	failed += conf_group_cq();
	failed += conf_group_qp_state();
	failed += conf_group_errors();
	failed += conf_group_events();
	failed += conf_group_mr();
	failed += conf_group_post();
	failed += conf_group_burst();
	failed += conf_group_tmpl();
	failed += conf_group_mcast();

	for (i = 0; i < RTE_DIM(conf_devs); i++) {
		if (conf_devs[i].id >= 0 && prdma_dev_remove((uint16_t)conf_devs[i].id) < 0) {
			print_error("removing device %s failed\n", conf_devs[i].devargs);
			failed++;
		}
	}
	print_message("conformance: %d failed test(s) or group setup(s)\n", failed);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
