/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Firmware command opcode names, for logs and for the device model's trace.
 * One table below both the PMD and the model, so the two never disagree on
 * what an opcode is called.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#include "hermon_regs.h"

static const struct {
	uint16_t op;
	const char *name;
} hermon_opnames[] = {
	{ HERMON_CMD_QUERY_DEV_CAP, "QUERY_DEV_CAP" },
	{ HERMON_CMD_QUERY_FW, "QUERY_FW" },
	{ HERMON_CMD_QUERY_ADAPTER, "QUERY_ADAPTER" },
	{ HERMON_CMD_INIT_HCA, "INIT_HCA" },
	{ HERMON_CMD_CLOSE_HCA, "CLOSE_HCA" },
	{ HERMON_CMD_INIT_PORT, "INIT_PORT" },
	{ HERMON_CMD_CLOSE_PORT, "CLOSE_PORT" },
	{ HERMON_CMD_QUERY_HCA, "QUERY_HCA" },
	{ HERMON_CMD_SET_PORT, "SET_PORT" },
	{ HERMON_CMD_SW2HW_MPT, "SW2HW_MPT" },
	{ HERMON_CMD_QUERY_MPT, "QUERY_MPT" },
	{ HERMON_CMD_HW2SW_MPT, "HW2SW_MPT" },
	{ HERMON_CMD_WRITE_MTT, "WRITE_MTT" },
	{ HERMON_CMD_MAP_EQ, "MAP_EQ" },
	{ HERMON_CMD_SW2HW_EQ, "SW2HW_EQ" },
	{ HERMON_CMD_HW2SW_EQ, "HW2SW_EQ" },
	{ HERMON_CMD_QUERY_EQ, "QUERY_EQ" },
	{ HERMON_CMD_SW2HW_CQ, "SW2HW_CQ" },
	{ HERMON_CMD_HW2SW_CQ, "HW2SW_CQ" },
	{ HERMON_CMD_QUERY_CQ, "QUERY_CQ" },
	{ HERMON_CMD_RST2INIT_QP, "RST2INIT_QP" },
	{ HERMON_CMD_INIT2RTR_QP, "INIT2RTR_QP" },
	{ HERMON_CMD_RTR2RTS_QP, "RTR2RTS_QP" },
	{ HERMON_CMD_RTS2RTS_QP, "RTS2RTS_QP" },
	{ HERMON_CMD_SQERR2RTS_QP, "SQERR2RTS_QP" },
	{ HERMON_CMD_2ERR_QP, "2ERR_QP" },
	{ HERMON_CMD_RTS2SQD_QP, "RTS2SQD_QP" },
	{ HERMON_CMD_SQD2RTS_QP, "SQD2RTS_QP" },
	{ HERMON_CMD_2RST_QP, "2RST_QP" },
	{ HERMON_CMD_QUERY_QP, "QUERY_QP" },
	{ HERMON_CMD_READ_MCG, "READ_MCG" },
	{ HERMON_CMD_WRITE_MCG, "WRITE_MCG" },
	{ HERMON_CMD_SET_MCAST_FLTR, "SET_MCAST_FLTR" },
	{ HERMON_CMD_QUERY_FUNC, "QUERY_FUNC" },
	{ HERMON_CMD_MGID_HASH, "MGID_HASH" },
	{ HERMON_CMD_MODIFY_CQ, "MODIFY_CQ" },
	{ HERMON_CMD_INIT2INIT_QP, "INIT2INIT_QP" },
	{ HERMON_CMD_NOP, "NOP" },
	{ HERMON_CMD_MOD_STAT_CFG, "MOD_STAT_CFG" },
	{ HERMON_CMD_SW2HW_SRQ, "SW2HW_SRQ" },
	{ HERMON_CMD_HW2SW_SRQ, "HW2SW_SRQ" },
	{ HERMON_CMD_QUERY_SRQ, "QUERY_SRQ" },
	{ HERMON_CMD_SQD2SQD_QP, "SQD2SQD_QP" },
	{ HERMON_CMD_ARM_SRQ, "ARM_SRQ" },
	{ HERMON_CMD_QUERY_PORT, "QUERY_PORT" },
	{ HERMON_CMD_SENSE_PORT, "SENSE_PORT" },
	{ HERMON_CMD_CONF_SPECIAL_QP, "CONF_SPECIAL_QP" },
	{ HERMON_CMD_MAD_IFC, "MAD_IFC" },
	{ HERMON_CMD_RUN_FW, "RUN_FW" },
	{ HERMON_CMD_UNMAP_ICM, "UNMAP_ICM" },
	{ HERMON_CMD_MAP_ICM, "MAP_ICM" },
	{ HERMON_CMD_UNMAP_ICM_AUX, "UNMAP_ICM_AUX" },
	{ HERMON_CMD_MAP_ICM_AUX, "MAP_ICM_AUX" },
	{ HERMON_CMD_SET_ICM_SIZE, "SET_ICM_SIZE" },
	{ HERMON_CMD_UNMAP_FA, "UNMAP_FA" },
	{ HERMON_CMD_MAP_FA, "MAP_FA" },
};

const char *
hermon_cmd_opcode_name(uint16_t opcode)
{
	size_t i;

	for (i = 0; i < RTE_DIM(hermon_opnames); i++)
		if (hermon_opnames[i].op == opcode)
			return hermon_opnames[i].name;
	return NULL;
}
