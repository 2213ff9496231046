/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The ACK watch. With inline progress the engine runs only inside the
 * application's calls (poll, peek, post, dev_progress), and a coalesced
 * ACK is held until the next engine step. An application that stops
 * calling after the step that held one would leave its peer waiting for
 * the ACK until its retransmit timer fires. This thread looks from time to
 * time: when the last step left an ACK held and no step has run since its
 * previous look, it runs one step itself (under the engine flag, as the
 * progress thread does). Looking only reads two words per engine.
 *
 * Each look wakes this thread, and on a machine whose CPUs all run polling
 * lcores a wake-up preempts one of them: looking every 50 us cost a 64 B
 * ping-pong on two lcores 15,000 context switches a second and a p99 of 4x
 * the one without the watch. So the interval doubles, up to
 * ROCE_ACK_WATCH_MAX_US, after every look that had nothing to do (the
 * application stepped the engine since the previous look, so its next step
 * sends what is held; or nothing is held), and is ROCE_ACK_WATCH_US again
 * after a look that ran a step (which may have received frames and held
 * new ACKs). Whatever the interval, a held ACK leaves at most two of the
 * longest intervals after the application's last step: the first look
 * after it still sees that step, the second acts. The device reports that
 * bound as its local_ca_ack_delay (roce_dev.c).
 */

#include <errno.h>
#include <string.h>
#include <time.h>

#include <rte_lcore.h>

#include "roce.h"

static void *
ack_watch(void *arg)
{
	struct roce_dev *dev = arg;
	uint64_t seen[ROCE_MAX_ENGINES], steps;
	uint32_t us = ROCE_ACK_WATCH_US;
	struct timespec ts;
	struct roce_eng *e;
	bool acted;
	uint32_t i;

	for (i = 0; i < ROCE_MAX_ENGINES; i++)
		seen[i] = UINT64_MAX;
	while (__atomic_load_n(&dev->ack_watch_run, __ATOMIC_ACQUIRE)) {
		ts.tv_sec = 0;
		ts.tv_nsec = (long)us * 1000;
		nanosleep(&ts, NULL);
		acted = false;
		/* every engine: each holds the ACKs of its own QPs */
		for (i = 0; i < dev->nb_eng; i++) {
			e = &dev->eng[i];
			steps = __atomic_load_n(&e->steps, __ATOMIC_RELAXED);
			if (steps == seen[i] &&
			    __atomic_load_n(&e->ack_held_step, __ATOMIC_RELAXED) == steps + 1 &&
			    roce_eng_trylock(e)) {
				roce_eng_step(e);
				roce_eng_unlock(e);
				acted = true;
				__atomic_fetch_add(&dev->ack_watch_steps, 1, __ATOMIC_RELAXED);
				steps = __atomic_load_n(&e->steps, __ATOMIC_RELAXED);
			}
			seen[i] = steps;
		}
		/* relaxed: statistics, read by prdma_roce_stats_get */
		__atomic_fetch_add(&dev->ack_watch_looks, 1, __ATOMIC_RELAXED);
		us = acted ? ROCE_ACK_WATCH_US :
			RTE_MIN(2 * us, (uint32_t)ROCE_ACK_WATCH_MAX_US);
	}
	return NULL;
}

int
roce_ack_watch_start(struct roce_dev *dev)
{
	char name[RTE_MAX_THREAD_NAME_LEN];
	int ret;

	if (dev->ack_delay_tsc == 0)
		return 0; /* ACKs leave at once: nothing is ever held */
	snprintf(name, sizeof(name), "roce-ack-%u", dev->pdev->dev_id);
	dev->ack_watch_run = 1;
	ret = rte_ctrl_thread_create(&dev->ack_watch, name, NULL, ack_watch, dev);
	if (ret != 0) {
		dev->ack_watch_run = 0;
		ROCE_LOG(ERR, "%s: cannot start the ACK watch thread: %s",
			 dev->pdev->name, strerror(ret));
		return -ret;
	}
	dev->ack_watch_started = 1;
	return 0;
}

void
roce_ack_watch_stop(struct roce_dev *dev)
{
	if (!dev->ack_watch_started)
		return;
	__atomic_store_n(&dev->ack_watch_run, 0, __ATOMIC_RELEASE);
	pthread_join(dev->ack_watch, NULL);
	dev->ack_watch_started = 0;
}
