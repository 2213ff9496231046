/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * prdma-perf's out-of-band sequences against perftest 4.5-0.17's, written
 * here as data from perftest's source (doc/perftest-sequences.md has the
 * lines): one word per step, "ALL" for a run of every size in a row.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "perf.h"
#include "perf_seq.h"

struct want {
	int test;
	int server;
	int use_cm;
	int all_sizes;
	const char *steps;
};

/* perftest's sequences, for one QP, 3 sizes with -a. */
static const struct want wants[] = {
	/* write_lat.c: 194 sync, 202 keys, 218 connect, 241 keys, 250 sync,
	 * 267/277 run; no closing handshake and no "done". */
	{ PERF_WRITE_LAT, 0, 0, 0, "versions sync keys connect keys sync run:ALL" },
	{ PERF_WRITE_LAT, 1, 0, 0, "versions sync keys connect keys sync run:ALL" },
	{ PERF_WRITE_LAT, 1, 0, 1, "versions sync keys connect keys sync run:ALL" },
	/* read_lat.c / atomic_lat.c: the server closes right after 241/243. */
	{ PERF_READ_LAT, 0, 0, 0, "versions sync keys connect keys sync run:ALL sync done" },
	{ PERF_READ_LAT, 1, 0, 0, "versions sync keys connect keys sync sync done" },
	{ PERF_ATOMIC_LAT, 0, 0, 0, "versions sync keys connect keys sync run:ALL sync done" },
	{ PERF_ATOMIC_LAT, 1, 0, 0, "versions sync keys connect keys sync sync done" },
	/* send_lat.c: 308 keys, 350 connect, 357 sync, 380 keys, then per size
	 * (419/444) receives, (428/453) sync, (433/458) run; 470 close. */
	{ PERF_SEND_LAT, 0, 0, 0, "versions keys connect sync keys post_recv sync run:0 sync done" },
	{ PERF_SEND_LAT, 1, 0, 0, "versions keys connect sync keys post_recv sync run:0 sync done" },
	{ PERF_SEND_LAT, 0, 0, 1, "versions keys connect sync keys post_recv sync run:0 "
	  "post_recv sync run:1 post_recv sync run:2 sync done" },
	/* send_bw.c: 303 keys, 347 connect, 354 sync, 376 keys; only the server
	 * posts receives (484); 490 sync; run; no report without -b (463/515);
	 * with -a a sync after each size (467); 576 close. */
	{ PERF_SEND_BW, 0, 0, 0, "versions keys connect sync keys sync run:0 sync done" },
	{ PERF_SEND_BW, 1, 0, 0, "versions keys connect sync keys post_recv sync run:0 sync done" },
	{ PERF_SEND_BW, 0, 0, 1, "versions keys connect sync keys sync run:0 sync sync run:1 "
	  "sync sync run:2 sync sync done" },
	{ PERF_SEND_BW, 1, 0, 1, "versions keys connect sync keys post_recv sync run:0 sync "
	  "post_recv sync run:1 sync post_recv sync run:2 sync sync done" },
	/* write_bw.c / read_bw.c: 181 keys, 196 connect, 220 keys, 229 sync; the
	 * half-duplex server 250 sync, 255 report, 258 close; the client runs
	 * every size, then 396 sync, 401 report, 405 close. */
	{ PERF_WRITE_BW, 0, 0, 0, "versions keys connect keys sync run:ALL sync bw_report sync done" },
	{ PERF_WRITE_BW, 1, 0, 0, "versions keys connect keys sync sync bw_report sync done" },
	{ PERF_WRITE_BW, 0, 0, 1, "versions keys connect keys sync run:ALL sync bw_report sync done" },
	{ PERF_READ_BW, 0, 0, 0, "versions keys connect keys sync run:ALL sync bw_report sync done" },
	{ PERF_READ_BW, 1, 0, 0, "versions keys connect keys sync sync bw_report sync done" },
	/* atomic_bw.c: read_bw.c's sequence (Debian's 4.5 binaries traced). */
	{ PERF_ATOMIC_BW, 0, 0, 0, "versions keys connect keys sync run:ALL sync bw_report sync "
	  "done" },
	{ PERF_ATOMIC_BW, 1, 0, 0, "versions keys connect keys sync sync bw_report sync done" },
	/* -R: establish_connection, the versions over it, then
	 * create_rdma_cm_connection (communication.c 2737 sync, 2745/2747 the
	 * data QPs, 2755 sync); no ctx_connect; no "done" (1768). */
	{ PERF_SEND_LAT, 0, 1, 0, "cm_xchg versions sync cm_data sync keys sync keys post_recv "
	  "sync run:0 sync" },
	{ PERF_WRITE_LAT, 1, 1, 0, "cm_xchg versions sync cm_data sync sync keys keys sync run:ALL" },
	{ PERF_WRITE_BW, 1, 1, 0, "cm_xchg versions sync cm_data sync keys keys sync sync bw_report "
	  "sync" },
	{ PERF_SEND_BW, 1, 1, 0, "cm_xchg versions sync cm_data sync keys sync keys post_recv sync "
	  "run:0 sync" },
	{ PERF_READ_LAT, 0, 1, 0, "cm_xchg versions sync cm_data sync sync keys keys sync run:ALL "
	  "sync" },
};

static void
render(const struct perf_seq_step *st, int n, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "",
					perf_seq_op_name(st[i].op));
		if (st[i].op == PERF_SEQ_RUN && off < len) {
			if (st[i].size_idx == PERF_SEQ_ALL_SIZES)
				off += (size_t)snprintf(buf + off, len - off, ":ALL");
			else
				off += (size_t)snprintf(buf + off, len - off, ":%u", st[i].size_idx);
		}
	}
}

static void
test_sequences(void **state)
{
	struct perf_seq_step st[PERF_SEQ_MAX_STEPS];
	char got[2048];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(wants); i++) {
		const struct want *w = &wants[i];
		struct perf_seq_cfg c = {
			.test = w->test, .server = w->server, .use_cm = w->use_cm,
			.nqp = 1, .nb_sizes = w->all_sizes ? 3 : 1, .all_sizes = w->all_sizes,
		};
		int n = perf_seq_build(&c, st, RTE_DIM(st));

		assert_true(n > 0);
		render(st, n, got, sizeof(got));
		if (strcmp(got, w->steps) != 0)
			fail_msg("test %d %s%s%s:\n got  %s\n want %s", w->test,
				 w->server ? "server" : "client", w->use_cm ? " -R" : "",
				 w->all_sizes ? " -a" : "", got, w->steps);
	}
}

/* Both sides exchange the same number of messages in every test (each
 * exchange is one message each way), so neither waits for a message the
 * other never sends. */
static void
test_sides_agree(void **state)
{
	struct perf_seq_step a[PERF_SEQ_MAX_STEPS], b[PERF_SEQ_MAX_STEPS];
	static const int tests[] = { PERF_WRITE_LAT, PERF_READ_LAT, PERF_ATOMIC_LAT,
				     PERF_SEND_LAT, PERF_SEND_BW, PERF_WRITE_BW,
				     PERF_READ_BW, PERF_ATOMIC_BW };
	unsigned int t, cm, all, q;

	(void)state;
	for (t = 0; t < RTE_DIM(tests); t++)
		for (cm = 0; cm < 2; cm++)
			for (all = 0; all < 2; all++)
				for (q = 1; q <= 4; q += 3) {
					struct perf_seq_cfg c = {
						.test = tests[t], .use_cm = (int)cm, .nqp = q,
						.nb_sizes = all ? 23 : 1, .all_sizes = (int)all,
					};
					int na, nb;

					c.server = 0;
					na = perf_seq_build(&c, a, RTE_DIM(a));
					c.server = 1;
					nb = perf_seq_build(&c, b, RTE_DIM(b));
					assert_true(na > 0 && nb > 0);
					assert_int_equal(perf_seq_messages(a, (unsigned int)na, q),
							 perf_seq_messages(b, (unsigned int)nb, q));
				}
}

/* The lines kept with the steps are perftest's (a few, checked by hand). */
static void
test_lines(void **state)
{
	struct perf_seq_step st[PERF_SEQ_MAX_STEPS];
	struct perf_seq_cfg c = { .test = PERF_SEND_BW, .server = 1, .nqp = 1, .nb_sizes = 1 };
	int n = perf_seq_build(&c, st, RTE_DIM(st));

	(void)state;
	assert_int_equal(n, 10);
	assert_int_equal(perf_seq_line(&st[1]), 303);
	assert_string_equal(perf_seq_file(c.test, &st[1]), "src/send_bw.c");
	assert_int_equal(perf_seq_line(&st[6]), 490);
	assert_int_equal(perf_seq_line(&st[8]), 1764);
	assert_string_equal(perf_seq_file(c.test, &st[8]), "src/perftest_communication.c");
	c.test = PERF_WRITE_LAT;
	c.server = 0;
	n = perf_seq_build(&c, st, RTE_DIM(st));
	assert_int_equal(n, 7);
	assert_int_equal(perf_seq_line(&st[1]), 194);
	assert_int_equal(perf_seq_line(&st[5]), 250);
}

static void
test_bad_input(void **state)
{
	struct perf_seq_step st[4];
	struct perf_seq_cfg c = { .test = PERF_SEND_BW, .nqp = 1, .nb_sizes = 1 };

	(void)state;
	assert_int_equal(perf_seq_build(&c, st, RTE_DIM(st)), -ENOSPC);
	c.test = PERF_RAW_LAT;
	assert_int_equal(perf_seq_build(&c, st, RTE_DIM(st)), -EINVAL);
	c.test = PERF_SEND_BW;
	c.nqp = 0;
	assert_int_equal(perf_seq_build(&c, st, RTE_DIM(st)), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequences),
		cmocka_unit_test(test_sides_agree),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
