/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Devargs helpers shared by the providers. */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_kvargs.h>

#include "prdma_private.h"

int
prdma_args_parse_u64(const char *provider, const char *key, const char *value,
		     uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int base;

	/* strtoull would skip any white space and accept a sign. */
	if (value == NULL || value[0] < '0' || value[0] > '9') {
		PRDMA_LOG(ERR, "%s: %s=%s: a number is required", provider, key,
			  value != NULL ? value : "");
		return prdma_err(EINVAL);
	}
	/* Decimal unless 0x: a leading zero must not switch to octal. */
	base = value[0] == '0' && (value[1] == 'x' || value[1] == 'X') ? 16 : 10;
	errno = 0;
	v = strtoull(value, &end, base);
	if (errno != 0 || *end != '\0') {
		PRDMA_LOG(ERR, "%s: %s=%s: not a number", provider, key, value);
		return prdma_err(EINVAL);
	}
	if (v < min || v > max) {
		PRDMA_LOG(ERR, "%s: %s=%s: out of range [%" PRIu64 ", %" PRIu64 "]",
			  provider, key, value, min, max);
		return prdma_err(EINVAL);
	}
	*out = v;
	return 0;
}

/* Find the first "key" of @args that is not in @valid. */
static void
log_unknown_key(const char *provider, const char *args, const char *const valid[])
{
	const char *p = args;

	while (*p != '\0') {
		size_t klen = strcspn(p, "=,");
		unsigned int i;
		int known = 0;

		for (i = 0; valid[i] != NULL; i++)
			if (strlen(valid[i]) == klen && strncmp(valid[i], p, klen) == 0)
				known = 1;
		if (!known && klen != 0) {
			PRDMA_LOG(ERR, "%s: unknown devargs key \"%.*s\"", provider,
				  (int)klen, p);
			return;
		}
		p += strcspn(p, ",");
		if (*p == ',')
			p++;
	}
	PRDMA_LOG(ERR, "%s: malformed devargs \"%s\" (expected key=value,...)",
		  provider, args);
}

struct rte_kvargs *
prdma_args_parse(const char *provider, const char *args, const char *const valid[])
{
	struct rte_kvargs *kv;

	kv = rte_kvargs_parse(args, (const char **)(uintptr_t)valid);
	if (kv == NULL) {
		log_unknown_key(provider, args, valid);
		rte_errno = EINVAL;
	}
	return kv;
}
