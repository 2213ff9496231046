/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef T_EAL_H
#define T_EAL_H

/*
 * Test helpers shared by every suite.
 *
 * t_eal_init() starts DPDK's EAL once per process with the arguments in the
 * environment variable PRDMA_TEST_EAL_ARGS (meson test sets it; the default
 * runs without hugepages: "--no-huge -m 1024 --no-shconf --no-pci ...";
 * --no-huge cannot be combined with --in-memory, and --no-shconf lets
 * several test processes run at once).
 */

#include <stddef.h>
#include <stdint.h>

/* Start EAL (idempotent). Returns 0 or a negative errno. */
int t_eal_init(void);

/* Fill @buf with a pattern that depends on @seed and the byte offset. */
void t_pattern_fill(void *buf, size_t len, uint32_t seed);

/* Offset of the first byte that differs from the pattern, or -1 if none. */
long t_pattern_check(const void *buf, size_t len, uint32_t seed);

#endif /* T_EAL_H */
