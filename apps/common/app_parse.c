/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <stdlib.h>

#include "app_parse.h"

int
app_parse_long(const char *s, long min, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || *v < min || *v > max)
		return -EINVAL;
	return 0;
}
