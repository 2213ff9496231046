/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The PMD's own counters, for failures that are the peer's doing rather
 * than the host's: counted, logged at DEBUG, with at most one NOTICE line
 * per device and interval, so that forged CM requests naming addresses
 * the PMD cannot reach do not become a log line each (issue 14). Read by
 * hermon_stats_get() and by DPDK telemetry as /hermon/stats,<dev_id>.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_telemetry.h>

#include "hermon_logs.h"
#include "hermon_obj.h"

/* One NOTICE line per device at most every this many seconds. */
#define HERMON_STATS_LOG_INTERVAL_S 60

void
hermon_stats_unresolved(struct hermon_dev *hd, const char *addr)
{
	uint64_t n = __atomic_add_fetch(&hd->stats.l2_unresolved, 1, __ATOMIC_RELAXED);
	uint64_t now = rte_get_timer_cycles(), last;
	uint64_t gap = rte_get_timer_hz() * HERMON_STATS_LOG_INTERVAL_S;

	HERMON_LOG(DEBUG, "%s: no MAC for %s (%" PRIu64 " so far)", hd->pdev->name, addr, n);
	last = __atomic_load_n(&hd->stats.unresolved_logged, __ATOMIC_RELAXED);
	/* the first miss, then one per interval: whoever swaps the time logs */
	if ((last != 0 && now - last < gap) ||
	    !__atomic_compare_exchange_n(&hd->stats.unresolved_logged, &last, now | 1, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	HERMON_LOG(NOTICE, "%s: no MAC for %s: the PMD cannot send ARP or neighbour "
		   "discovery; give it (PRDMA_AH_F_DMAC) or a static neighbour "
		   "(neigh=IP/MAC). Further misses are counted (l2_unresolved, "
		   "%" PRIu64 " so far; telemetry /hermon/stats)", hd->pdev->name, addr, n);
}

int
hermon_stats_get(struct hermon_dev *hd, struct hermon_stats *st)
{
	if (hd == NULL || st == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	memset(st, 0, sizeof(*st));
	st->l2_unresolved = __atomic_load_n(&hd->stats.l2_unresolved, __ATOMIC_RELAXED);
	return 0;
}

int
hermon_stats_telemetry(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct hermon_stats st;
	struct prdma_dev *dev;
	char *end = NULL;
	unsigned long id;
	int ret;

	(void)cmd;
	if (params == NULL || params[0] < '0' || params[0] > '9')
		return -EINVAL;
	id = strtoul(params, &end, 10);
	if (*end != '\0' || id > UINT16_MAX)
		return -EINVAL;
	dev = prdma_dev_open((uint16_t)id);
	if (dev == NULL)
		return -ENODEV;
	/* another provider's device has no such counters */
	if (dev->provider == NULL || strcmp(dev->provider->name, "hermon") != 0) {
		prdma_dev_close(dev);
		return -ENODEV;
	}
	ret = hermon_stats_get(dev->priv, &st);
	if (ret == 0) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_u64(d, "l2_unresolved", st.l2_unresolved);
	}
	prdma_dev_close(dev);
	return ret;
}

RTE_INIT(hermon_stats_init)
{
	rte_telemetry_register_cmd("/hermon/stats", hermon_stats_telemetry,
		"Returns a hermon device's PMD counters. Parameters: int dev_id");
}
