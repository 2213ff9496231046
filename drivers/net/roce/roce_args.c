/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Devargs of the roce provider (documented in doc/guides/roce.md). */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_kvargs.h>

#include "roce.h"

#define ROCE_ARG_RING     "ring"
#define ROCE_ARG_SIDE     "side"
#define ROCE_ARG_PORT     "port"
#define ROCE_ARG_IP       "ip"
#define ROCE_ARG_MAC      "mac"
#define ROCE_ARG_MTU      "mtu"
#define ROCE_ARG_PCAP     "pcap"
#define ROCE_ARG_PROGRESS "progress"
#define ROCE_ARG_NAME     "name"
#define ROCE_ARG_BURST    "burst"

const char *const roce_args_keys[] = {
	ROCE_ARG_RING, ROCE_ARG_SIDE, ROCE_ARG_PORT, ROCE_ARG_IP, ROCE_ARG_MAC,
	ROCE_ARG_MTU, ROCE_ARG_PCAP, ROCE_ARG_PROGRESS, ROCE_ARG_NAME,
	ROCE_ARG_BURST, NULL,
};

static int
bad(const char *key, const char *value, const char *why)
{
	ROCE_LOG(ERR, "%s=%s: %s", key, value != NULL ? value : "", why);
	return -EINVAL;
}

static int
arg_ring(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	size_t i, n = strlen(value);

	if (n == 0 || n >= sizeof(cfg->ring))
		return bad(key, value, "name of 1 to 31 characters expected");
	for (i = 0; i < n; i++)
		if (!((value[i] >= 'a' && value[i] <= 'z') ||
		      (value[i] >= 'A' && value[i] <= 'Z') ||
		      (value[i] >= '0' && value[i] <= '9') ||
		      value[i] == '_' || value[i] == '-'))
			return bad(key, value, "letters, digits, '_' and '-' only");
	memcpy(cfg->ring, value, n + 1);
	return 0;
}

static int
arg_side(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (prdma_args_parse_u64("roce", key, value, 0, 1, &v) < 0)
		return -EINVAL;
	cfg->side = (int)v;
	return 0;
}

static int
arg_port(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (prdma_args_parse_u64("roce", key, value, 0, RTE_MAX_ETHPORTS - 1, &v) < 0)
		return -EINVAL;
	cfg->port = (int)v;
	return 0;
}

static int
arg_ip(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;

	if (prdma_gid_from_str(&cfg->gid, value) < 0)
		return bad(key, value, "an IPv4 or IPv6 address expected");
	cfg->has_ip = 1;
	return 0;
}

static int
arg_mac(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;

	if (rte_ether_unformat_addr(value, &cfg->mac) < 0 ||
	    rte_is_multicast_ether_addr(&cfg->mac) ||
	    rte_is_zero_ether_addr(&cfg->mac))
		return bad(key, value, "a unicast MAC address xx:xx:xx:xx:xx:xx expected");
	cfg->has_mac = 1;
	return 0;
}

static int
arg_mtu(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;
	uint8_t m;

	if (prdma_args_parse_u64("roce", key, value, 256, 4096, &v) < 0)
		return -EINVAL;
	for (m = PRDMA_MTU_256; m <= PRDMA_MTU_4096; m++)
		if (prdma_mtu_bytes(m) == v)
			break;
	if (m > PRDMA_MTU_4096)
		return bad(key, value, "one of 256, 512, 1024, 2048, 4096 expected");
	cfg->mtu = m;
	return 0;
}

static int
arg_pcap(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	size_t n = strlen(value);

	if (n == 0 || n >= sizeof(cfg->pcap))
		return bad(key, value, "a file name expected");
	memcpy(cfg->pcap, value, n + 1);
	return 0;
}

static int
arg_progress(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;

	if (strcmp(value, "inline") == 0)
		cfg->progress_thread = 0;
	else if (strcmp(value, "thread") == 0)
		cfg->progress_thread = 1;
	else
		return bad(key, value, "\"inline\" or \"thread\" expected");
	return 0;
}

static int
arg_name(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	size_t n = strlen(value);

	if (n == 0 || n >= sizeof(cfg->name) || strpbrk(value, " \t/") != NULL)
		return bad(key, value, "a device name of 1 to 63 characters expected");
	memcpy(cfg->name, value, n + 1);
	return 0;
}

static int
arg_burst(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (prdma_args_parse_u64("roce", key, value, 1, ROCE_MAX_BURST, &v) < 0)
		return -EINVAL;
	cfg->burst = (uint16_t)v;
	return 0;
}

static const struct {
	const char *key;
	arg_handler_t fn;
} handlers[] = {
	{ ROCE_ARG_RING, arg_ring },
	{ ROCE_ARG_SIDE, arg_side },
	{ ROCE_ARG_PORT, arg_port },
	{ ROCE_ARG_IP, arg_ip },
	{ ROCE_ARG_MAC, arg_mac },
	{ ROCE_ARG_MTU, arg_mtu },
	{ ROCE_ARG_PCAP, arg_pcap },
	{ ROCE_ARG_PROGRESS, arg_progress },
	{ ROCE_ARG_NAME, arg_name },
	{ ROCE_ARG_BURST, arg_burst },
};

struct arg_call {
	struct roce_cfg *cfg;
	arg_handler_t fn;
};

/* rte_kvargs gives a NULL value for a bare "key": refuse it here once. */
static int
arg_dispatch(const char *key, const char *value, void *opaque)
{
	struct arg_call *c = opaque;

	if (value == NULL || value[0] == '\0')
		return bad(key, value, "a value is required");
	return c->fn(key, value, c->cfg);
}

int
roce_args_parse(const char *args, struct roce_cfg *cfg)
{
	struct arg_call call;
	struct rte_kvargs *kv;
	unsigned int i;
	int ret = 0;

	memset(cfg, 0, sizeof(*cfg));
	cfg->port = -1;
	cfg->burst = ROCE_DEFAULT_BURST;
	kv = prdma_args_parse("roce", args, roce_args_keys);
	if (kv == NULL)
		return -EINVAL;
	for (i = 0; i < RTE_DIM(handlers) && ret == 0; i++) {
		if (rte_kvargs_count(kv, handlers[i].key) > 1) {
			ROCE_LOG(ERR, "%s: given more than once", handlers[i].key);
			ret = -EINVAL;
			break;
		}
		call.cfg = cfg;
		call.fn = handlers[i].fn;
		if (rte_kvargs_process(kv, handlers[i].key, arg_dispatch, &call) < 0)
			ret = -EINVAL;
	}
	if (ret == 0 && rte_kvargs_count(kv, ROCE_ARG_SIDE) != 0 && cfg->ring[0] == '\0') {
		ROCE_LOG(ERR, "side: only meaningful with ring=");
		ret = -EINVAL;
	}
	if (ret == 0 && (cfg->ring[0] != '\0') == (cfg->port >= 0)) {
		ROCE_LOG(ERR, "ring=<name> or port=<id>: exactly one is required");
		ret = -EINVAL;
	}
	rte_kvargs_free(kv);
	return ret;
}
