/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_ARGS_H
#define HERMON_ARGS_H

/* Devargs of the hermon provider (the part after "hermon:"). */

#include <stdbool.h>
#include <stdint.h>

#include <rte_pci.h>

#include "prdma.h"

enum hermon_bus_kind {
	HERMON_BUS_VFIO,
	HERMON_BUS_UIO,
	HERMON_BUS_MODEL,
};

#define HERMON_SYSFS_DEFAULT          "/sys"
#define HERMON_CMD_TIMEOUT_MS_DEFAULT 10000u

#define HERMON_ARGS_MAX_NEIGH 8

struct hermon_args {
	enum hermon_bus_kind kind;
	char pci[PCI_PRI_STR_SIZE];        /**< canonical DBDF */
	char sysfs[256];                   /**< sysfs root (tests point it at fakes) */
	char name[PRDMA_DEV_NAME_LEN];     /**< device (and model) name, optional */
	uint8_t ports;                     /**< model: number of ports */
	uint32_t cmd_timeout_ms;           /**< HCR completion timeout */
	char link[32];                     /**< model: cable name, "" none */
	uint8_t side;                      /**< model: end of the cable, 0 or 1 */
	/** The port's IPv4 address (ip=): GID 1 is ::ffff:ip, as Linux
	 * mlx4_ib fills the RoCE GID table from the netdev's addresses. */
	bool has_ip;
	uint8_t ip[4];
	/** The port's global IPv6 address (ip6=): GID 2 (4 and 5 on a RoCE
	 * v1/v2 device), answered and asked from by neighbour discovery (F13). */
	bool has_ip6;
	uint8_t ip6[16];
	/** Static neighbours (neigh=IP/MAC, repeatable, IPv4 or IPv6): the
	 * DMAC of a GID that is that address, as a permanent ARP or ND
	 * entry gives it (static entries of the library's neighbour cache). */
	uint8_t nb_neigh;
	struct {
		uint8_t ip[16];            /**< IPv4 in the first 4 bytes */
		uint8_t ipv6;
		uint8_t mac[6];
	} neigh[HERMON_ARGS_MAX_NEIGH];
	/** model: the ports' MAC (mac=; port 2 gets the last byte + 1). */
	bool has_mac;
	uint8_t mac[6];
	bool no_bf;                        /**< bf=0: ring the doorbell, never BlueFlame */
	bool model_bf;                     /**< model_bf=1: the model has BlueFlame */
	/** model_ack_delay=: the model's local CA ACK delay (else 15) */
	bool has_model_ack_delay;
	uint8_t model_ack_delay;
	bool model_rocev2;                 /**< model_rocev2=1: RoCE v1/v2 (CX-3 Pro) */
};

/* Keys, for the provider's help string. */
#define HERMON_ARGS_KEYS "pci,kdrv,model,ports,name,sysfs,cmd_timeout_ms,link,side,ip,neigh,mac,bf,model_bf,model_ack_delay,model_rocev2"

/* Parse @args; 0 or a negative errno after a log line naming the bad key. */
int hermon_args_parse(const char *args, struct hermon_args *out);

#endif /* HERMON_ARGS_H */
