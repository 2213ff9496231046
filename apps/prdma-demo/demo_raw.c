/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* The raw ethdev baseline of the demo (apps/common/app_raw.c). */

#include <errno.h>
#include <stdlib.h>

#include "app_raw.h"
#include "demo.h"

int
demo_raw_pingpong(const struct app_runner *r, struct app_ports *p, uint32_t frame_len,
		  uint32_t iters, struct demo_lat *out)
{
	uint64_t *samples = calloc(iters, sizeof(*samples));
	uint32_t n = 0;
	int ret;

	if (samples == NULL)
		return -ENOMEM;
	ret = app_raw_pingpong(r, p, frame_len, iters, samples, &n);
	if (ret == 0)
		demo_lat_summary(samples, n, out);
	free(samples);
	return ret;
}
