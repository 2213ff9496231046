/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * LD_PRELOAD shim for rdmacm_perftest.sh: makes one perftest server late
 * to its data connection's rdma_listen (the second of the process), as a
 * descheduled server on a loaded machine is, so that the client's data
 * REQ arrives first. The delay applies once, while the file named by
 * PRDMA_SLOW_LISTEN_FLAG exists (the first process to remove it is the
 * slow one), for PRDMA_SLOW_LISTEN_MS milliseconds.
 *
 * With PRDMA_SLOW_DISCONNECT_MS, every rdma_disconnect() of the process
 * waits that long first: a client that disconnects after its server
 * (perftest's atomic_lat server returns from main with its connection up)
 * has exited.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

struct rdma_cm_id;

int rdma_listen(struct rdma_cm_id *id, int backlog);
int rdma_disconnect(struct rdma_cm_id *id);

int
rdma_listen(struct rdma_cm_id *id, int backlog)
{
	static int calls;
	int (*next)(struct rdma_cm_id *, int);
	const char *ms = getenv("PRDMA_SLOW_LISTEN_MS");
	const char *flag = getenv("PRDMA_SLOW_LISTEN_FLAG");

	*(void **)&next = dlsym(RTLD_NEXT, "rdma_listen");
	if (next == NULL)
		return -1;
	if (++calls == 2 && ms != NULL && flag != NULL && unlink(flag) == 0)
		usleep((useconds_t)atoi(ms) * 1000);
	return next(id, backlog);
}

int
rdma_disconnect(struct rdma_cm_id *id)
{
	int (*next)(struct rdma_cm_id *);
	const char *ms = getenv("PRDMA_SLOW_DISCONNECT_MS");

	*(void **)&next = dlsym(RTLD_NEXT, "rdma_disconnect");
	if (next == NULL)
		return -1;
	if (ms != NULL)
		usleep((useconds_t)atoi(ms) * 1000);
	return next(id);
}
