/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* The CM's lock, statistics, time arithmetic and test hook. */

#include <string.h>

#include <rte_cycles.h>

#include "cm_private.h"
#include "prdma_cm_test.h"

RTE_LOG_REGISTER_SUFFIX(prdma_cm_logtype, cm, NOTICE);

pthread_mutex_t cm_lock = PTHREAD_MUTEX_INITIALIZER;
struct cm_agent_list cm_agents = TAILQ_HEAD_INITIALIZER(cm_agents);

/* Per device id; atomics so prdma_cm_stats_get needs no lock. */
static uint64_t cm_stats[PRDMA_MAX_DEVS][CM_ST_IDS + 1];

static prdma_cm_test_tx_filter_t test_filter;
static void *test_filter_arg;

/* PRDMA_CM_TEST_TX_HOLD's copy: the port by device and number, looked up
 * again at release, so a CM gone meanwhile is noticed, not dereferenced. */
static struct {
	bool valid;
	const struct prdma_dev *dev;
	uint8_t port_num;
	union prdma_gid dgid;
	uint8_t sgid_index;
	uint8_t mad[CM_MAD_SIZE];
} test_held;

void
cm_stat_add(const struct prdma_dev *dev, enum cm_stat s, int64_t delta)
{
	__atomic_fetch_add(&cm_stats[dev->dev_id][s], (uint64_t)delta,
			   __ATOMIC_RELAXED);
}

int
prdma_cm_stats_get(struct prdma_dev *dev, struct prdma_cm_stats *st)
{
	const uint64_t *v;

	if (dev == NULL || st == NULL || dev->dev_id >= PRDMA_MAX_DEVS)
		return cm_err(EINVAL);
	v = cm_stats[dev->dev_id];
	memset(st, 0, sizeof(*st));
	st->tx_mads = __atomic_load_n(&v[CM_ST_TX], __ATOMIC_RELAXED);
	st->rx_mads = __atomic_load_n(&v[CM_ST_RX], __ATOMIC_RELAXED);
	st->tx_resends = __atomic_load_n(&v[CM_ST_RESEND], __ATOMIC_RELAXED);
	st->tx_errors = __atomic_load_n(&v[CM_ST_TX_ERR], __ATOMIC_RELAXED);
	st->rx_malformed = __atomic_load_n(&v[CM_ST_MALFORMED], __ATOMIC_RELAXED);
	st->rx_unmatched = __atomic_load_n(&v[CM_ST_UNMATCHED], __ATOMIC_RELAXED);
	st->rx_duplicates = __atomic_load_n(&v[CM_ST_DUP], __ATOMIC_RELAXED);
	st->ids = __atomic_load_n(&v[CM_ST_IDS], __ATOMIC_RELAXED);
	st->tx_unresolved = __atomic_load_n(&v[CM_ST_UNRESOLVED], __ATOMIC_RELAXED);
	st->rx_refused = __atomic_load_n(&v[CM_ST_REFUSED], __ATOMIC_RELAXED);
	return 0;
}

const char *
prdma_cm_event_str(enum prdma_cm_event_type type)
{
	static const char *const names[] = {
		[PRDMA_CM_EVENT_CONNECT_REQUEST] = "CONNECT_REQUEST",
		[PRDMA_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
		[PRDMA_CM_EVENT_REJECTED] = "REJECTED",
		[PRDMA_CM_EVENT_UNREACHABLE] = "UNREACHABLE",
		[PRDMA_CM_EVENT_CONNECT_ERROR] = "CONNECT_ERROR",
		[PRDMA_CM_EVENT_DISCONNECTED] = "DISCONNECTED",
		[PRDMA_CM_EVENT_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
	};

	if ((unsigned int)type >= RTE_DIM(names))
		return "UNKNOWN";
	return names[type];
}

uint64_t
cm_now(void)
{
	return rte_get_tsc_cycles();
}

uint64_t
cm_time_tsc(uint8_t t)
{
	/* 4.096 us * 2^31 times a GHz clock overflows 64 bits: use double. */
	double ns = 4096.0 * (double)(UINT64_C(1) << (t & 31));

	return (uint64_t)(ns * (double)rte_get_tsc_hz() / 1e9);
}

/*
 * The local ACK timeout rdma_cm derives from the CA's ACK delay and the
 * packet lifetime: one more than the larger of (lifetime + 1) and the
 * delay when the two are within a factor of two of each other.
 */
uint8_t
cm_ack_timeout(uint8_t ca_ack_delay, uint8_t lifetime)
{
	unsigned int t = lifetime + 1u;

	if (t >= ca_ack_delay)
		t += (ca_ack_delay >= t - 1);
	else
		t = ca_ack_delay + (t >= ca_ack_delay - 1u);
	return (uint8_t)RTE_MIN(t, 31u);
}

void
prdma_cm_test_set_tx_filter(prdma_cm_test_tx_filter_t fn, void *arg)
{
	pthread_mutex_lock(&cm_lock);
	test_filter = fn;
	test_filter_arg = arg;
	pthread_mutex_unlock(&cm_lock);
}

void
cm_test_tx_hold(const struct cm_agent *ag, const union prdma_gid *dgid,
		uint8_t sgid_index, const uint8_t mad[CM_MAD_SIZE])
{
	test_held.valid = true;
	test_held.dev = ag->dev;
	test_held.port_num = ag->port_num;
	test_held.dgid = *dgid;
	test_held.sgid_index = sgid_index;
	memcpy(test_held.mad, mad, CM_MAD_SIZE);
}

int
prdma_cm_test_tx_release(void)
{
	struct cm_agent *ag;
	int ret = -ENOENT;

	pthread_mutex_lock(&cm_lock);
	if (test_held.valid) {
		test_held.valid = false;
		TAILQ_FOREACH(ag, &cm_agents, next)
			if (ag->dev == test_held.dev && ag->port_num == test_held.port_num) {
				ret = cm_agent_send(ag, &test_held.dgid, test_held.sgid_index,
						    test_held.mad);
				break;
			}
	}
	pthread_mutex_unlock(&cm_lock);
	return ret;
}

int
cm_test_tx_action(struct prdma_dev *dev, uint16_t attr_id)
{
	if (test_filter == NULL)
		return PRDMA_CM_TEST_TX_SEND;
	return test_filter(dev, attr_id, test_filter_arg);
}
