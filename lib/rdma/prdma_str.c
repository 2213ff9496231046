/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Names of states, statuses and events; GID helpers. */

#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_random.h>

#include "prdma_private.h"

const char *
prdma_wc_status_str(enum prdma_wc_status status)
{
#define PRDMA_WC_STR_(name, str) [PRDMA_WC_##name] = str,
	static const char *const names[] = {
		PRDMA_WC_STATUS_LIST(PRDMA_WC_STR_)
	};
#undef PRDMA_WC_STR_
	if ((unsigned int)status >= RTE_DIM(names))
		return "unknown status";
	return names[status];
}

const char *
prdma_qp_state_str(enum prdma_qp_state state)
{
	static const char *const names[] = {
		[PRDMA_QPS_RESET] = "RESET", [PRDMA_QPS_INIT] = "INIT",
		[PRDMA_QPS_RTR] = "RTR", [PRDMA_QPS_RTS] = "RTS",
		[PRDMA_QPS_SQD] = "SQD", [PRDMA_QPS_SQE] = "SQE",
		[PRDMA_QPS_ERR] = "ERR",
	};

	if ((unsigned int)state >= RTE_DIM(names))
		return "UNKNOWN";
	return names[state];
}

const char *
prdma_event_type_str(enum prdma_event_type type)
{
	static const char *const names[] = {
		[PRDMA_EVENT_CQ_ERR] = "CQ error",
		[PRDMA_EVENT_QP_FATAL] = "QP fatal",
		[PRDMA_EVENT_QP_REQ_ERR] = "QP request error",
		[PRDMA_EVENT_QP_ACCESS_ERR] = "QP access error",
		[PRDMA_EVENT_COMM_EST] = "communication established",
		[PRDMA_EVENT_SQ_DRAINED] = "SQ drained",
		[PRDMA_EVENT_PATH_MIG] = "path migrated",
		[PRDMA_EVENT_PATH_MIG_ERR] = "path migration error",
		[PRDMA_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[PRDMA_EVENT_PORT_ACTIVE] = "port active",
		[PRDMA_EVENT_PORT_ERR] = "port down",
		[PRDMA_EVENT_LID_CHANGE] = "LID change",
		[PRDMA_EVENT_PKEY_CHANGE] = "P_Key change",
		[PRDMA_EVENT_SM_CHANGE] = "SM change",
		[PRDMA_EVENT_SRQ_ERR] = "SRQ error",
		[PRDMA_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[PRDMA_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[PRDMA_EVENT_CLIENT_REREGISTER] = "client reregister",
		[PRDMA_EVENT_GID_CHANGE] = "GID change",
	};

	if ((unsigned int)type >= RTE_DIM(names))
		return "unknown event";
	return names[type];
}

void
prdma_gid_from_ipv4(union prdma_gid *gid, uint32_t ipv4)
{
	uint32_t be = htonl(ipv4);

	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &be, sizeof(be));
}

char *
prdma_gid_to_str(const union prdma_gid *gid, char *buf, size_t len)
{
	if (buf == NULL || len == 0)
		return buf;
	if (gid == NULL || inet_ntop(AF_INET6, gid->raw, buf, len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

int
prdma_gid_from_str(union prdma_gid *gid, const char *str)
{
	struct in_addr v4;

	if (gid == NULL || str == NULL)
		return prdma_err(EINVAL);
	if (inet_pton(AF_INET, str, &v4) == 1) {
		prdma_gid_from_ipv4(gid, ntohl(v4.s_addr));
		return 0;
	}
	if (inet_pton(AF_INET6, str, gid->raw) == 1)
		return 0;
	return prdma_err(EINVAL);
}

uint32_t
prdma_random32(void)
{
	return (uint32_t)rte_rand();
}
