/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * hermon devargs: "pci=0000:03:00.0[,kdrv=vfio|uio][,sysfs=/path]" or
 * "model[,ports=1|2][,mac=MAC]", each with optional "name=" and "cmd_timeout_ms=",
 * and the port's addresses: "ip=IPv4" and "neigh=IP/MAC" (IPv4 or IPv6, repeatable).
 * "model_bf=0|1" (model: report BlueFlame), "model_ack_delay=0..31" (model:
 * the CA ACK delay it reports), "model_rocev2=0|1" (model: a ConnectX-3 Pro
 * that reports RoCE v1/v2) and, everywhere, "bf=0|1"
 * (BlueFlame for small inline sends where the device has it; default 1).
 */

#include <errno.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_kvargs.h>

#include "prdma_provider.h"
#include "hermon_args.h"
#include "hermon_logs.h"

static const char *const hermon_keys[] = {
	"pci", "kdrv", "model", "ports", "name", "sysfs", "cmd_timeout_ms", "link",
	"side", "ip", "ip6", "neigh", "mac", "bf", "model_bf",
	"model_ack_delay", "model_rocev2", NULL
};

static int
bad(const char *key, const char *value, const char *why)
{
	HERMON_LOG(ERR, "devargs %s=%s: %s", key, value != NULL ? value : "", why);
	rte_errno = EINVAL;
	return -EINVAL;
}

static const char *
one(struct rte_kvargs *kv, const char *key, int *err)
{
	unsigned int n = rte_kvargs_count(kv, key);
	unsigned int i;

	if (n > 1) {
		*err = bad(key, "", "given more than once");
		return NULL;
	}
	for (i = 0; i < kv->count; i++)
		if (strcmp(kv->pairs[i].key, key) == 0)
			return kv->pairs[i].value != NULL ? kv->pairs[i].value : "";
	return NULL;
}

static int
parse_mac(const char *key, const char *v, uint8_t mac[6])
{
	struct rte_ether_addr e;

	if (v == NULL || rte_ether_unformat_addr(v, &e) != 0 ||
	    !rte_is_unicast_ether_addr(&e) || rte_is_zero_ether_addr(&e))
		return bad(key, v, "a unicast MAC address xx:xx:xx:xx:xx:xx expected");
	memcpy(mac, e.addr_bytes, 6);
	return 0;
}

static int
parse_ip(const char *key, const char *v, uint8_t ip[4])
{
	struct in_addr in;

	if (v == NULL || inet_pton(AF_INET, v, &in) != 1 || in.s_addr == 0)
		return bad(key, v, "an IPv4 address expected");
	memcpy(ip, &in.s_addr, 4);
	return 0;
}

/* A unicast IPv6 address (a neighbour's: not ::, not multicast). */
static int
parse_ip6(const char *key, const char *v, uint8_t ip[16])
{
	struct in6_addr in6;

	if (v == NULL || inet_pton(AF_INET6, v, &in6) != 1 ||
	    IN6_IS_ADDR_UNSPECIFIED(&in6) || IN6_IS_ADDR_MULTICAST(&in6))
		return bad(key, v, "a unicast IPv6 address expected");
	memcpy(ip, &in6, 16);
	return 0;
}

/* ip=, ip6=, neigh=IP/MAC (repeatable) and the model's mac=. */
static int
parse_addrs(struct rte_kvargs *kv, struct hermon_args *a, const char *ip,
	    const char *ip6, const char *mac)
{
	unsigned int i;
	int err;

	if (ip != NULL) {
		err = parse_ip("ip", ip, a->ip);
		if (err < 0)
			return err;
		a->has_ip = true;
	}
	if (ip6 != NULL) {
		err = parse_ip6("ip6", ip6, a->ip6);
		if (err < 0)
			return err;
		/* the link-local one is the MAC's (GID 0); ::ffff:a.b.c.d is ip= */
		if ((a->ip6[0] == 0xfe && (a->ip6[1] & 0xc0) == 0x80) ||
		    (memcmp(a->ip6, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0))
			return bad("ip6", ip6, "a global IPv6 address expected (not link-local, "
				   "not IPv4-mapped)");
		a->has_ip6 = true;
	}
	if (mac != NULL) {
		if (a->kind != HERMON_BUS_MODEL)
			return bad("mac", mac, "only with model (a card has its own)");
		err = parse_mac("mac", mac, a->mac);
		if (err < 0)
			return err;
		a->has_mac = true;
	}
	for (i = 0; i < kv->count; i++) {
		const char *v = kv->pairs[i].value;
		char buf[64], *slash;

		if (strcmp(kv->pairs[i].key, "neigh") != 0)
			continue;
		if (a->nb_neigh == HERMON_ARGS_MAX_NEIGH)
			return bad("neigh", v, "too many (at most 8)");
		if (v == NULL || strlen(v) >= sizeof(buf))
			return bad("neigh", v, "IP/MAC expected");
		snprintf(buf, sizeof(buf), "%s", v);
		slash = strchr(buf, '/');
		if (slash == NULL)
			return bad("neigh", v, "IP/MAC expected");
		*slash = '\0';
		if (strchr(buf, ':') != NULL)
			err = parse_ip6("neigh", buf, a->neigh[a->nb_neigh].ip);
		else
			err = parse_ip("neigh", buf, a->neigh[a->nb_neigh].ip);
		a->neigh[a->nb_neigh].ipv6 = strchr(buf, ':') != NULL;
		if (err == 0)
			err = parse_mac("neigh", slash + 1, a->neigh[a->nb_neigh].mac);
		if (err < 0)
			return err;
		a->nb_neigh++;
	}
	return 0;
}

static int
parse_kv(struct rte_kvargs *kv, struct hermon_args *a)
{
	const char *pci, *kdrv, *model, *ports, *name, *sysfs, *tmo, *link, *side;
	const char *ip, *ip6, *mac;
	const char *bf, *mbf, *mad, *mv2;
	struct rte_pci_addr addr;
	uint64_t v;
	int err = 0;

	pci = one(kv, "pci", &err);
	kdrv = one(kv, "kdrv", &err);
	model = one(kv, "model", &err);
	ports = one(kv, "ports", &err);
	name = one(kv, "name", &err);
	sysfs = one(kv, "sysfs", &err);
	tmo = one(kv, "cmd_timeout_ms", &err);
	link = one(kv, "link", &err);
	side = one(kv, "side", &err);
	ip = one(kv, "ip", &err);
	ip6 = one(kv, "ip6", &err);
	mac = one(kv, "mac", &err);
	bf = one(kv, "bf", &err);
	mbf = one(kv, "model_bf", &err);
	mad = one(kv, "model_ack_delay", &err);
	mv2 = one(kv, "model_rocev2", &err);
	if (err != 0)
		return err;
	if ((pci == NULL) == (model == NULL))
		return bad(pci != NULL ? "pci" : "model", pci,
			   "give exactly one of pci=<DBDF> or model");
	if (model != NULL) {
		if (model[0] != '\0')
			return bad("model", model, "takes no value");
		if (kdrv != NULL)
			return bad("kdrv", kdrv, "only with pci=");
		if (sysfs != NULL)
			return bad("sysfs", sysfs, "only with pci=");
		a->kind = HERMON_BUS_MODEL;
		a->ports = 1;
		if (side != NULL && link == NULL)
			return bad("side", side, "only with link=");
		if (link != NULL) {
			if (link[0] == '\0' || strlen(link) >= sizeof(a->link))
				return bad("link", link, "empty or longer than 31");
			snprintf(a->link, sizeof(a->link), "%s", link);
			if (side != NULL) {
				if (prdma_args_parse_u64("hermon", "side", side, 0, 1, &v) < 0)
					return -EINVAL;
				a->side = (uint8_t)v;
			}
		}
		if (ports != NULL) {
			if (prdma_args_parse_u64("hermon", "ports", ports, 1, 2, &v) < 0)
				return -EINVAL;
			a->ports = (uint8_t)v;
		}
		if (mbf != NULL) {
			if (prdma_args_parse_u64("hermon", "model_bf", mbf, 0, 1, &v) < 0)
				return -EINVAL;
			a->model_bf = v != 0;
		}
		if (mad != NULL) {
			if (prdma_args_parse_u64("hermon", "model_ack_delay", mad, 0, 31,
						 &v) < 0)
				return -EINVAL;
			a->model_ack_delay = (uint8_t)v;
			a->has_model_ack_delay = true;
		}
		if (mv2 != NULL) {
			if (prdma_args_parse_u64("hermon", "model_rocev2", mv2, 0, 1, &v) < 0)
				return -EINVAL;
			a->model_rocev2 = v != 0;
		}
	} else {
		if (mv2 != NULL)
			return bad("model_rocev2", mv2, "only with model");
		if (mbf != NULL)
			return bad("model_bf", mbf, "only with model");
		if (mad != NULL)
			return bad("model_ack_delay", mad, "only with model");
		if (ports != NULL)
			return bad("ports", ports, "only with model");
		if (link != NULL || side != NULL)
			return bad(link != NULL ? "link" : "side", link != NULL ? link : side,
				   "only with model");
		if (rte_pci_addr_parse(pci, &addr) != 0)
			return bad("pci", pci, "not a PCI address (DDDD:BB:DD.F)");
		rte_pci_device_name(&addr, a->pci, sizeof(a->pci));
		a->kind = HERMON_BUS_VFIO;
		if (kdrv != NULL) {
			if (strcmp(kdrv, "vfio") == 0)
				a->kind = HERMON_BUS_VFIO;
			else if (strcmp(kdrv, "uio") == 0)
				a->kind = HERMON_BUS_UIO;
			else
				return bad("kdrv", kdrv, "must be vfio or uio");
		}
		if (sysfs != NULL) {
			if (sysfs[0] != '/' || strlen(sysfs) >= sizeof(a->sysfs))
				return bad("sysfs", sysfs, "must be an absolute path");
			snprintf(a->sysfs, sizeof(a->sysfs), "%s", sysfs);
		}
	}
	if (name != NULL) {
		if (name[0] == '\0' || strlen(name) >= sizeof(a->name))
			return bad("name", name, "empty or too long");
		snprintf(a->name, sizeof(a->name), "%s", name);
	}
	if (bf != NULL) {
		if (prdma_args_parse_u64("hermon", "bf", bf, 0, 1, &v) < 0)
			return -EINVAL;
		a->no_bf = v == 0;
	}
	if (tmo != NULL) {
		if (prdma_args_parse_u64("hermon", "cmd_timeout_ms", tmo, 1, 600000,
					 &v) < 0)
			return -EINVAL;
		a->cmd_timeout_ms = (uint32_t)v;
	}
	return parse_addrs(kv, a, ip, ip6, mac);
}

int
hermon_args_parse(const char *args, struct hermon_args *out)
{
	struct rte_kvargs *kv;
	int ret;

	memset(out, 0, sizeof(*out));
	snprintf(out->sysfs, sizeof(out->sysfs), "%s", HERMON_SYSFS_DEFAULT);
	out->cmd_timeout_ms = HERMON_CMD_TIMEOUT_MS_DEFAULT;
	if (args == NULL || args[0] == '\0') {
		HERMON_LOG(ERR, "devargs: empty; use hermon:pci=<DBDF> or hermon:model");
		rte_errno = EINVAL;
		return -EINVAL;
	}
	kv = prdma_args_parse("hermon", args, hermon_keys);
	if (kv == NULL)
		return -EINVAL;
	ret = parse_kv(kv, out);
	rte_kvargs_free(kv);
	return ret;
}
