/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_LOGS_H
#define HERMON_LOGS_H

#include <rte_log.h>

extern int hermon_logtype;       /* pmd.net.hermon */
extern int hermon_logtype_cmd;   /* pmd.net.hermon.cmd */

#define HERMON_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, hermon_logtype, "hermon: " fmt "\n", \
		##__VA_ARGS__)

#define HERMON_CMD_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, hermon_logtype_cmd, "hermon.cmd: " fmt "\n", \
		##__VA_ARGS__)

#endif /* HERMON_LOGS_H */
