/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * A healthy RC connection keeps making progress while its target's port
 * receives a full receive burst of garbage before every engine step: all
 * WRITEs complete successfully with their data in place, and every garbage
 * frame is dropped and counted. (bench/flood.sh measures the throughput
 * ratio; this test asserts only progress.)
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "flood.h"
#include "t_eal.h"

static void
test_progress_under_flood(void **state)
{
	struct flood_result r;

	(void)state;
	assert_int_equal(t_eal_init(), 0);
	assert_int_equal(flood_open(), 0);
	assert_int_equal(flood_run(1.0, 4096, 16, 32, &r), 0);
	printf("under flood: %" PRIu64 " WRITEs (%.1f MB/s), %" PRIu64 " garbage frames, "
	       "%" PRIu64 " dropped, %" PRIu64 " errors\n", r.ops,
	       (double)r.bytes / r.seconds / 1e6, r.garbage, r.dropped, r.errors);
	assert_true(r.ops >= 100);
	assert_int_equal(r.errors, 0);
	assert_true(r.data_ok);
	assert_true(r.garbage >= 1000);
	assert_true(r.dropped >= r.garbage);
	flood_close();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress_under_flood),
	};

	return cmocka_run_group_tests_name("exhaustion-flood", tests, NULL, NULL);
}
