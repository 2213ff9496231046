/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef T_HERMON_COMMON_H
#define T_HERMON_COMMON_H

/* Helpers shared by the Hermon tests: resource counting for leak checks. */

#include <dirent.h>
#include <stdint.h>

#include <rte_malloc.h>
#include <rte_memzone.h>

struct t_res {
	unsigned int memzones;
	unsigned int fds;
	uint64_t malloc_allocs;
};

static void
t_count_mz(const struct rte_memzone *mz, void *arg)
{
	(void)mz;
	(*(unsigned int *)arg)++;
}

static inline void
t_res_snapshot(struct t_res *r)
{
	struct rte_malloc_socket_stats st;
	struct dirent *e;
	DIR *d;

	r->memzones = 0;
	rte_memzone_walk(t_count_mz, &r->memzones);
	r->fds = 0;
	d = opendir("/proc/self/fd");
	if (d != NULL) {
		while ((e = readdir(d)) != NULL)
			r->fds += e->d_name[0] != '.';
		closedir(d);
	}
	r->malloc_allocs = 0;
	if (rte_malloc_get_socket_stats(0, &st) == 0)
		r->malloc_allocs = st.alloc_count;
}

#endif /* T_HERMON_COMMON_H */
