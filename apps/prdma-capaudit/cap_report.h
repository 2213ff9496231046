/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef CAP_REPORT_H
#define CAP_REPORT_H

/* The auditor's two outputs: a human summary and JSON. */

#include <stdio.h>

#include "cap_audit.h"

void cap_report_text(FILE *out, const char *path, const struct cap_audit *a);

/* One JSON object describing the file (the caller joins them in a list). */
void cap_report_json(FILE *out, const char *path, const struct cap_audit *a);

#endif /* CAP_REPORT_H */
