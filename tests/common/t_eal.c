/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "t_eal.h"

#define T_EAL_DEFAULT "--no-huge -m 1024 --no-shconf --no-pci " \
	"--log-level=lib.eal:error --log-level=pmd.*:error"
#define T_EAL_MAX_ARGS 64

int
t_eal_init(void)
{
	static int done;
	static char buf[1024];
	char *argv[T_EAL_MAX_ARGS];
	const char *env;
	char *tok, *save = NULL;
	int argc = 0, ret;

	if (done)
		return 0;
	env = getenv("PRDMA_TEST_EAL_ARGS");
	snprintf(buf, sizeof(buf), "prdma-test %s",
		 env != NULL && env[0] != '\0' ? env : T_EAL_DEFAULT);
	for (tok = strtok_r(buf, " ", &save); tok != NULL && argc < T_EAL_MAX_ARGS - 1;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "t_eal_init: rte_eal_init failed: %s\n",
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	done = 1;
	return 0;
}

void
t_pattern_fill(void *buf, size_t len, uint32_t seed)
{
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)((i * 131u + seed * 7u + (i >> 8)) ^ (seed >> 3));
}

long
t_pattern_check(const void *buf, size_t len, uint32_t seed)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)((i * 131u + seed * 7u + (i >> 8)) ^ (seed >> 3)))
			return (long)i;
	return -1;
}
