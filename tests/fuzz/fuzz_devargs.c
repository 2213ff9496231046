/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Fuzz the devargs of every provider: each input, as a string, goes to the
 * providers' own parsers (roce_args_parse, hermon_args_parse) and to
 * prdma_dev_probe as "roce:<s>", "hermon:<s>" and "<s>" itself. A probe
 * that succeeds is removed again, so nothing may leak.
 *
 * Probing is skipped (the parsers still run) for strings naming keys that
 * reach outside the process: pci= maps real devices, sysfs= reads host
 * files and pcap= writes a file where the string says.
 */

#include <string.h>

#include <prdma.h>

#include "fz_common.h"
#include "hermon_args.h"
#include "roce.h"

#define FZ_MAX_ARGS 512

static int ready;

static void
setup(void)
{
	fz_eal_init();
	ready = 1;
}

static void
probe(const char *prefix, const char *s)
{
	char args[FZ_MAX_ARGS + 16];
	int id;

	snprintf(args, sizeof(args), "%s%s", prefix, s);
	id = prdma_dev_probe(args);
	if (id >= 0)
		FZ_CHECK(prdma_dev_remove((uint16_t)id) == 0);
	else
		FZ_CHECK(rte_errno > 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[FZ_MAX_ARGS + 1];
	struct hermon_args ha;
	struct roce_cfg rc;
	size_t n = RTE_MIN(size, (size_t)FZ_MAX_ARGS);

	if (!ready)
		setup();
	memcpy(s, data, n);
	s[n] = '\0';
	(void)roce_args_parse(s, &rc);
	(void)hermon_args_parse(s, &ha);
	if (strstr(s, "pci") != NULL || strstr(s, "sysfs") != NULL ||
	    strstr(s, "pcap") != NULL)
		return 0;
	probe("roce:", s);
	probe("hermon:", s);
	probe("", s);
	return 0;
}
