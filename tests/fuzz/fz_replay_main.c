/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Replay driver for the normal (non-libFuzzer) build: every file named on
 * the command line, or found in a directory named there, goes once through
 * the harness's LLVMFuzzerTestOneInput. A crash, a sanitizer report or a
 * broken invariant fails the test; the closing line says how many ran.
 */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fz_common.h"

#define FZ_MAX_INPUT (1u << 20)

static unsigned int nb_run;

static int
run_file(const char *path)
{
	static uint8_t buf[FZ_MAX_INPUT];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	nb_run++;
	return 0;
}

static int
run_path(const char *path)
{
	char sub[4096];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = 0;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	d = opendir(path);
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (run_path(sub) < 0)
			ret = -1;
	}
	closedir(d);
	return ret;
}

int
main(int argc, char **argv)
{
	int i, ret = 0;

	for (i = 1; i < argc; i++)
		if (run_path(argv[i]) < 0)
			ret = 1;
	if (nb_run == 0) {
		fprintf(stderr, "no input replayed\n");
		ret = 1;
	}
	printf("%s: %u inputs replayed\n", argv[0], nb_run);
	return ret;
}
