/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Arming a CQ against a completion written at the same moment by another
 * lcore (the engine thread, in a verbs program's event loop). The consumer
 * arms, then polls; the producer writes the entry, then reads the arm. One
 * of the two must see the other: either the poll finds the entry or the
 * producer fires the event. Each side's store followed by a load of the
 * other's variable is the store-buffer pattern, which x86 reorders unless
 * a full barrier sits between them: without one, both miss and a program
 * waiting in ibv_get_cq_event sleeps forever (Debian's ibv_rc_pingpong -e
 * hung this way, once in about twenty runs).
 *
 * The check is exact, not timed: after both sides of an iteration are done,
 * a poll that found nothing must have an event waiting on the fd.
 */

#include <pthread.h>
#include <sched.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "roce.h"
#include "t_roce.h"

#define ITERS 200000u

struct race {
	struct roce_cq *cq;
	uint32_t go;    /* iteration the producer may write */
	uint32_t done;  /* iteration the producer has written */
	uint32_t stop;  /* the consumer ran out of time: the producer quits */
};

/* A loaded machine may run something else on the other CPU: give it the
 * CPU now and then rather than spinning away our time slice. */
static void
spin(const uint32_t *what)
{
	static __thread unsigned int n;

	(void)what;
	if ((++n & 1023) == 0)
		sched_yield();
	else
		rte_pause();
}

static void *
producer(void *arg)
{
	struct race *r = arg;
	struct prdma_wc wc;
	uint32_t i;

	memset(&wc, 0, sizeof(wc));
	wc.status = PRDMA_WC_SUCCESS;
	for (i = 1; i <= ITERS; i++) {
		while (__atomic_load_n(&r->go, __ATOMIC_ACQUIRE) != i &&
		       !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
			spin(&r->go);
		if (__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
			break;
		wc.wr_id = i;
		roce_cq_push(r->cq, &wc);
		__atomic_store_n(&r->done, i, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void
test_arm_poll_race_loses_no_wakeup(void **state)
{
	struct prdma_cq_init_attr ca;
	struct prdma_wc wc;
	struct prdma_cq *pcq;
	struct race r;
	struct t_side s[2];
	pthread_t th;
	cpu_set_t cpus;
	uint32_t i, lost = 0, empty = 0;
	uint64_t deadline;
	int n, ev;

	(void)state;
	t_pair_open(s, "roce:ring=cqarm,side=0,progress=thread",
		    "roce:ring=cqarm,side=1");
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 16;
	ca.flags = PRDMA_CQ_F_EVENT_FD;
	pcq = prdma_cq_create(s[0].dev, &ca);
	assert_non_null(pcq);
	memset(&r, 0, sizeof(r));
	r.cq = (struct roce_cq *)pcq;
	assert_int_equal(pthread_create(&th, NULL, producer, &r), 0);
	/* EAL pinned this thread to one CPU and the new one inherited it: the
	 * race needs the two sides on two CPUs at once. */
	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	if (pthread_setaffinity_np(th, sizeof(cpus), &cpus) != 0) {
		CPU_ZERO(&cpus);
		for (n = 0; n < CPU_SETSIZE; n++)
			CPU_SET(n, &cpus);
		pthread_setaffinity_np(th, sizeof(cpus), &cpus);
	}
	/* The check holds for however many iterations ran: a loaded machine
	 * gets a time budget instead of a timeout. */
	deadline = rte_get_timer_cycles() + 20 * rte_get_timer_hz();
	for (i = 1; i <= ITERS; i++) {
		if ((i & 1023) == 0 && rte_get_timer_cycles() > deadline) {
			__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
			break;
		}
		__atomic_store_n(&r.go, i, __ATOMIC_RELEASE);
		assert_int_equal(prdma_cq_arm(pcq, PRDMA_CQ_ARM_NEXT), 0);
		n = prdma_cq_poll(pcq, 1, &wc);
		while (__atomic_load_n(&r.done, __ATOMIC_ACQUIRE) != i)
			spin(&r.done);
		ev = prdma_cq_get_event(pcq);
		assert_true(ev >= 0);
		if (n == 0) {
			empty++;
			if (ev == 0)
				lost++;
			assert_int_equal(prdma_cq_poll(pcq, 1, &wc), 1);
		}
		assert_int_equal(wc.wr_id, i);
		/* An arm the entry did not consume must not make the next
		 * iteration's producer fire on a stale read of it. */
		__atomic_store_n(&r.cq->arm, ROCE_ARM_NONE, __ATOMIC_RELEASE);
	}
	assert_int_equal(pthread_join(th, NULL), 0);
	print_message("%u iterations, %u polls found nothing, %u of those had no event\n",
		      i - 1, empty, lost);
	assert_int_equal(prdma_cq_destroy(pcq), 0);
	t_pair_close(s);
	assert_int_equal(lost, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm_poll_race_loses_no_wakeup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
