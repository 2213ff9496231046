/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Firmware status codes: the one table mapping them to errno and names. */

#include <errno.h>
#include <stddef.h>

#include <rte_common.h>

#include "hermon_cmd.h"

static const struct {
	uint8_t status;
	int err;
	const char *name;
} hermon_status_tab[] = {
	{ HERMON_STAT_OK,             0,          "ok" },
	{ HERMON_STAT_INTERNAL_ERR,   EIO,        "internal error" },
	{ HERMON_STAT_BAD_OP,         EOPNOTSUPP, "bad opcode" },
	{ HERMON_STAT_BAD_PARAM,      EINVAL,     "bad parameter" },
	{ HERMON_STAT_BAD_SYS_STATE,  ENXIO,      "bad system state" },
	{ HERMON_STAT_BAD_RESOURCE,   ENOENT,     "bad resource" },
	{ HERMON_STAT_RESOURCE_BUSY,  EBUSY,      "resource busy" },
	{ HERMON_STAT_EXCEED_LIM,     ENOSPC,     "exceeds device limits" },
	{ HERMON_STAT_BAD_RES_STATE,  EBADFD,     "bad resource state" },
	{ HERMON_STAT_BAD_INDEX,      ERANGE,     "bad index" },
	{ HERMON_STAT_BAD_NVMEM,      ENOEXEC,    "bad NVMEM (firmware image)" },
	{ HERMON_STAT_ICM_ERROR,      ENOBUFS,    "ICM error" },
	{ HERMON_STAT_BAD_QP_STATE,   ESTALE,     "bad QP state" },
	{ HERMON_STAT_BAD_SEG_PARAM,  EFAULT,     "bad segment parameters" },
	{ HERMON_STAT_REG_BOUND,      EADDRINUSE, "memory windows still bound" },
	{ HERMON_STAT_LAM_NOT_PRE,    ENODEV,     "local memory not present" },
	{ HERMON_STAT_BAD_PKT,        EBADMSG,    "bad management packet" },
	{ HERMON_STAT_BAD_SIZE,       EOVERFLOW,  "bad size" },
	{ HERMON_STAT_MULTI_FUNC_REQ, EACCES,     "multi-function support required" },
};

int
hermon_cmd_errno(uint8_t status)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(hermon_status_tab); i++)
		if (hermon_status_tab[i].status == status)
			return hermon_status_tab[i].err;
	return EIO;
}

const char *
hermon_cmd_status_str(uint8_t status)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(hermon_status_tab); i++)
		if (hermon_status_tab[i].status == status)
			return hermon_status_tab[i].name;
	return "unknown status";
}

const char *
hermon_cmd_opcode_str(uint16_t opcode)
{
	const char *n = hermon_cmd_opcode_name(opcode);

	return n != NULL ? n : "?";
}
