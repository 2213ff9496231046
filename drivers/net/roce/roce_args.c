/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Devargs of the roce provider (documented in doc/guides/roce.md). */

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
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
#define ROCE_ARG_IFACE    "iface"
#define ROCE_ARG_VERSION  "roce_version"
#define ROCE_ARG_ECN      "ecn"
#define ROCE_ARG_CC       "cc"
#define ROCE_ARG_CNP_US   "cnp_interval_us"
#define ROCE_ARG_ACK_US   "ack_delay_us"
#define ROCE_ARG_SEED     "fault_seed"
#define ROCE_ARG_DELAY_US "fault_delay_us"
#define ROCE_ARG_MCAST_LOOP "mcast_loop"
#define ROCE_ARG_IGMP     "igmp"
#define ROCE_ARG_MAX_QP   "max_qp"
#define ROCE_ARG_ZC       "zc"
#define ROCE_ARG_ZC_MIN   "zc_min"
#define ROCE_ARG_TLP      "tlp"
#define ROCE_ARG_ENGINES  "engines"
#define ROCE_ARG_ENG_CPUS "engine_cpus"
#define ROCE_ARG_FLOW     "flow"
#define ROCE_ARG_RTO_BO   "rto_backoff"

/* Fault keys: <dir>_<kind>, in the order of the public enums. */
static const char *const fault_keys[PRDMA_ROCE_FAULT_DIR_NB][PRDMA_ROCE_FAULT_KIND_NB] = {
	{ "tx_drop", "tx_dup", "tx_reorder", "tx_corrupt", "tx_delay", "tx_ce" },
	{ "rx_drop", "rx_dup", "rx_reorder", "rx_corrupt", "rx_delay", "rx_ce" },
};

const char *const roce_args_keys[] = {
	ROCE_ARG_RING, ROCE_ARG_SIDE, ROCE_ARG_PORT, ROCE_ARG_IP, ROCE_ARG_MAC,
	ROCE_ARG_MTU, ROCE_ARG_PCAP, ROCE_ARG_PROGRESS, ROCE_ARG_NAME,
	ROCE_ARG_BURST, ROCE_ARG_IFACE, ROCE_ARG_VERSION, ROCE_ARG_ECN, ROCE_ARG_CC,
	ROCE_ARG_CNP_US, ROCE_ARG_SEED, ROCE_ARG_DELAY_US, ROCE_ARG_ACK_US, ROCE_ARG_MCAST_LOOP, ROCE_ARG_IGMP,
	ROCE_ARG_MAX_QP, ROCE_ARG_ZC, ROCE_ARG_ZC_MIN, ROCE_ARG_TLP, ROCE_ARG_ENGINES,
	ROCE_ARG_ENG_CPUS, ROCE_ARG_FLOW, ROCE_ARG_RTO_BO,
	"tx_drop", "tx_dup", "tx_reorder", "tx_corrupt", "tx_delay", "tx_ce",
	"rx_drop", "rx_dup", "rx_reorder", "rx_corrupt", "rx_delay", "rx_ce",
	NULL,
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

	cfg->progress_hybrid = 0;
	if (strcmp(value, "inline") == 0) {
		cfg->progress_thread = 0;
	} else if (strcmp(value, "thread") == 0) {
		cfg->progress_thread = 1;
	} else if (strcmp(value, "hybrid") == 0) {
		cfg->progress_thread = 1;
		cfg->progress_hybrid = 1;
	} else {
		return bad(key, value, "\"inline\", \"thread\" or \"hybrid\" expected");
	}
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

static int
arg_iface(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	size_t n = strlen(value);

	if (n == 0 || n >= 16 || strpbrk(value, " \t/:") != NULL)
		return bad(key, value, "an interface name of 1 to 15 characters expected");
	memcpy(cfg->iface, value, n + 1);
	return 0;
}

static int
arg_version(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (prdma_args_parse_u64("roce", key, value, 1, 2, &v) < 0)
		return -EINVAL;
	cfg->roce_version = (uint8_t)v;
	return 0;
}

static int
arg_bool(const char *key, const char *value, uint8_t *out)
{
	uint64_t v;

	if (prdma_args_parse_u64("roce", key, value, 0, 1, &v) < 0)
		return -EINVAL;
	*out = (uint8_t)v;
	return 0;
}

static int
arg_ecn(const char *key, const char *value, void *opaque)
{
	return arg_bool(key, value, &((struct roce_cfg *)opaque)->ecn);
}

static int
arg_cc(const char *key, const char *value, void *opaque)
{
	return arg_bool(key, value, &((struct roce_cfg *)opaque)->cc);
}

static int
arg_mcast_loop(const char *key, const char *value, void *opaque)
{
	return arg_bool(key, value, &((struct roce_cfg *)opaque)->mcast_loop);
}

static int
arg_igmp(const char *key, const char *value, void *opaque)
{
	return arg_bool(key, value, &((struct roce_cfg *)opaque)->igmp);
}

static int
arg_cnp_us(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (prdma_args_parse_u64("roce", key, value, 1, 1000000, &v) < 0)
		return -EINVAL;
	cfg->cnp_interval_us = (uint32_t)v;
	return 0;
}

static int
arg_ack_us(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (prdma_args_parse_u64("roce", key, value, 0, 1000, &v) < 0)
		return -EINVAL;
	cfg->ack_delay_us = (uint32_t)v;
	cfg->ack_delay_set = 1;
	return 0;
}

static int
arg_rto_backoff(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (prdma_args_parse_u64("roce", key, value, 0, 1, &v) < 0)
		return -EINVAL;
	cfg->rto_backoff = (uint8_t)v;
	return 0;
}

static int
arg_tlp(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (prdma_args_parse_u64("roce", key, value, 0, 1, &v) < 0)
		return -EINVAL;
	cfg->tlp = (uint8_t)v;
	return 0;
}

static int
arg_seed(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;

	return prdma_args_parse_u64("roce", key, value, 0, UINT64_MAX, &cfg->fault_seed);
}

static int
arg_delay_us(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (prdma_args_parse_u64("roce", key, value, 1, 1000000, &v) < 0)
		return -EINVAL;
	cfg->fault_delay_us = (uint32_t)v;
	return 0;
}

/* zc=0 copies every payload into its frame, zc=1 insists on zero-copy
 * transmit (the probe fails where the port cannot take chained mbufs),
 * zc=auto (the default) uses it where the port can. */
static int
arg_zc(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (strcmp(value, "auto") == 0) {
		cfg->zc = 2;
		return 0;
	}
	if (prdma_args_parse_u64("roce", key, value, 0, 1, &v) < 0)
		return -EINVAL;
	cfg->zc = (uint8_t)v;
	return 0;
}

static int
arg_zc_min(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (prdma_args_parse_u64("roce", key, value, 1, 65536, &v) < 0)
		return -EINVAL;
	cfg->zc_min = (uint32_t)v;
	return 0;
}

/* The QP table is allocated at probe: a bound keeps a typo from asking for
 * gigabytes, and QPNs keep enough bits above the slot index to vary. */
static int
arg_max_qp(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (prdma_args_parse_u64("roce", key, value, 1, ROCE_MAX_QP_LIMIT, &v) < 0)
		return -EINVAL;
	cfg->max_qp = (uint32_t)v;
	return 0;
}

/* Engines (and port queues): the port's queue limits are checked at probe. */
static int
arg_engines(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (prdma_args_parse_u64("roce", key, value, 1, ROCE_MAX_ENGINES, &v) < 0)
		return -EINVAL;
	cfg->engines = (uint32_t)v;
	return 0;
}

/* flow=: rte_flow steering between engines (roce_flow.c). auto (the
 * default) uses rules where the port validates them, 0 never, 1 requires
 * them (the probe fails where the port takes none). */
static int
arg_flow(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	uint64_t v;

	if (strcmp(value, "auto") == 0) {
		cfg->flow = ROCE_FLOW_AUTO;
		return 0;
	}
	if (prdma_args_parse_u64("roce", key, value, 0, 1, &v) < 0)
		return -EINVAL;
	cfg->flow = v != 0 ? ROCE_FLOW_ON : ROCE_FLOW_OFF;
	return 0;
}

/* One CPU number of an engine_cpus= list: decimal, below CPU_SETSIZE. */
static int
cpu_num(const char *p, const char **end, uint16_t *cpu)
{
	unsigned long v = 0;
	const char *q = p;

	while (*q >= '0' && *q <= '9' && q - p < 6)
		v = v * 10 + (unsigned long)(*q++ - '0');
	if (q == p || (*q >= '0' && *q <= '9') || v >= CPU_SETSIZE)
		return -1;
	*cpu = (uint16_t)v;
	*end = q;
	return 0;
}

/*
 * engine_cpus=: the CPU of each engine's progress thread, in engine order:
 * "3", "2-3", or a bracketed list of those ("[0,2-3]", the DPDK devargs
 * list form). The count must match engines= (checked once all keys are
 * read, as is progress=thread).
 */
static int
arg_engine_cpus(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	size_t len = strlen(value);
	const char *p = value, *last = value + len;
	uint16_t a, b;

	if (value[0] == '[') {
		if (len < 3 || value[len - 1] != ']')
			return bad(key, value, "a list in brackets expected, e.g. [0,2-3]");
		p++;
		last--;
	}
	cfg->nb_engine_cpus = 0;
	for (;;) {
		if (cpu_num(p, &p, &a) < 0)
			return bad(key, value, "CPU numbers (below CPU_SETSIZE) or ranges a-b expected");
		b = a;
		if (*p == '-' && (cpu_num(p + 1, &p, &b) < 0 || b < a))
			return bad(key, value, "a range a-b with a <= b expected");
		if ((uint32_t)cfg->nb_engine_cpus + (b - a) + 1 > ROCE_MAX_ENGINES)
			return bad(key, value, "more CPUs than the most engines (8)");
		while (a <= b)
			cfg->engine_cpus[cfg->nb_engine_cpus++] = a++;
		if (p == last)
			return 0;
		if (*p != ',' || p + 1 == last)
			return bad(key, value, "CPUs separated by ',' expected");
		p++;
	}
}

/* A rate: parts per million ("10000"), or a percentage ("1%", "0.1%"). */
static int
arg_fault(const char *key, const char *value, void *opaque)
{
	struct roce_cfg *cfg = opaque;
	unsigned int d, k;
	uint64_t v;

	for (d = 0; d < PRDMA_ROCE_FAULT_DIR_NB; d++)
		for (k = 0; k < PRDMA_ROCE_FAULT_KIND_NB; k++)
			if (strcmp(key, fault_keys[d][k]) == 0)
				goto found;
	return bad(key, value, "unknown fault");
found:
	if (value[strlen(value) - 1] == '%') {
		char *end;
		double pct;

		errno = 0;
		pct = strtod(value, &end);
		if (errno != 0 || end != value + strlen(value) - 1 || end == value ||
		    !(pct >= 0.0 && pct <= 100.0))
			return bad(key, value, "a percentage from 0% to 100% expected");
		cfg->fault_rate[d][k] = (uint32_t)(pct * 10000.0 + 0.5);
		return 0;
	}
	if (prdma_args_parse_u64("roce", key, value, 0, 1000000, &v) < 0)
		return -EINVAL;
	cfg->fault_rate[d][k] = (uint32_t)v;
	return 0;
}

static const struct {
	const char *key;
	arg_handler_t fn;
} handlers[] = {
	{ ROCE_ARG_IFACE, arg_iface },
	{ ROCE_ARG_VERSION, arg_version },
	{ ROCE_ARG_ECN, arg_ecn },
	{ ROCE_ARG_CC, arg_cc },
	{ ROCE_ARG_MCAST_LOOP, arg_mcast_loop },
	{ ROCE_ARG_IGMP, arg_igmp },
	{ ROCE_ARG_CNP_US, arg_cnp_us },
	{ ROCE_ARG_ACK_US, arg_ack_us },
	{ ROCE_ARG_SEED, arg_seed },
	{ ROCE_ARG_DELAY_US, arg_delay_us },
	{ ROCE_ARG_MAX_QP, arg_max_qp },
	{ ROCE_ARG_ENGINES, arg_engines },
	{ ROCE_ARG_ENG_CPUS, arg_engine_cpus },
	{ ROCE_ARG_FLOW, arg_flow },
	{ ROCE_ARG_ZC, arg_zc },
	{ ROCE_ARG_ZC_MIN, arg_zc_min },
	{ "tx_drop", arg_fault }, { "tx_dup", arg_fault }, { "tx_reorder", arg_fault },
	{ "tx_corrupt", arg_fault }, { "tx_delay", arg_fault }, { "tx_ce", arg_fault },
	{ "rx_drop", arg_fault }, { "rx_dup", arg_fault }, { "rx_reorder", arg_fault },
	{ "rx_corrupt", arg_fault }, { "rx_delay", arg_fault }, { "rx_ce", arg_fault },
	{ ROCE_ARG_RING, arg_ring },
	{ ROCE_ARG_SIDE, arg_side },
	{ ROCE_ARG_PORT, arg_port },
	{ ROCE_ARG_IP, arg_ip },
	{ ROCE_ARG_MAC, arg_mac },
	{ ROCE_ARG_MTU, arg_mtu },
	{ ROCE_ARG_PCAP, arg_pcap },
	{ ROCE_ARG_PROGRESS, arg_progress },
	{ ROCE_ARG_TLP, arg_tlp },
	{ ROCE_ARG_RTO_BO, arg_rto_backoff },
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
	cfg->roce_version = 2;
	cfg->ecn = 1;
	cfg->cc = 1;
	cfg->cnp_interval_us = 50;
	cfg->ack_delay_us = ROCE_ACK_DELAY_US;
	cfg->rto_backoff = 1;
	cfg->fault_seed = 1;
	cfg->fault_delay_us = 100;
	cfg->mcast_loop = 1;
	cfg->max_qp = ROCE_DEFAULT_MAX_QP;
	cfg->engines = 1;
	cfg->zc = 2;
	cfg->zc_min = ROCE_ZC_MIN_DEFAULT;
	cfg->flow = ROCE_FLOW_AUTO;
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
	if (ret == 0 && cfg->nb_engine_cpus != 0 && !cfg->progress_thread) {
		ROCE_LOG(ERR, "engine_cpus: needs progress=thread or progress=hybrid");
		ret = -EINVAL;
	}
	if (ret == 0 && cfg->nb_engine_cpus != 0 && cfg->nb_engine_cpus != cfg->engines) {
		ROCE_LOG(ERR, "engine_cpus: %u CPUs for %u engines (one per engine expected)",
			 cfg->nb_engine_cpus, cfg->engines);
		ret = -EINVAL;
	}
	rte_kvargs_free(kv);
	return ret;
}
