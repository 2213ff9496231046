/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef FZ_COMMON_H
#define FZ_COMMON_H

/*
 * Shared by the fuzz harnesses. Each harness defines
 * LLVMFuzzerTestOneInput; the same source builds either as a libFuzzer
 * binary (clang, -Dfuzz=true) or, in every build, as a replay test that
 * feeds the files of its corpus and of its past findings through the same
 * entry point (fz_replay_main.c).
 */

#include <stddef.h>
#include <stdint.h>

/* Start EAL quietly (idempotent); a harness that cannot start aborts. */
void fz_eal_init(void);

/* Report a broken invariant: print and abort so libFuzzer saves the input. */
void fz_fail(const char *what, const char *file, int line) __attribute__((noreturn));
#define FZ_CHECK(cond) do { if (!(cond)) fz_fail(#cond, __FILE__, __LINE__); } while (0)

/*
 * A buffer with canary bytes on both sides: only [fz_area_data, +len) may
 * ever be written by the stack.
 */
#define FZ_CANARY_LEN 4096
struct fz_area {
	uint8_t *base;         /* canary | data | canary */
	uint8_t *data;
	size_t len;
};
void fz_area_alloc(struct fz_area *a, size_t len);
void fz_area_free(struct fz_area *a);
/* 0 when both canaries are intact. */
int fz_area_canary_ok(const struct fz_area *a);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* FZ_COMMON_H */
