/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include "hermon_logs.h"

RTE_LOG_REGISTER_DEFAULT(hermon_logtype, NOTICE);
RTE_LOG_REGISTER_SUFFIX(hermon_logtype_cmd, cmd, NOTICE);
