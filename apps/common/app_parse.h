/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef APP_PARSE_H
#define APP_PARSE_H

/*
 * Strict parsing of command-line numbers for the apps: the whole string
 * must be a number (decimal, 0x hex or 0 octal, as strtol's base 0) within
 * [min, max]; anything else is -EINVAL and *v is left unspecified.
 */
int app_parse_long(const char *s, long min, long max, long *v);

#endif /* APP_PARSE_H */
