/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef T_SEC_H
#define T_SEC_H

/*
 * What a peer on the wire can send a device, built by hand: CM MADs to
 * QP1 and ARP frames. On a soft RoCE device both are fed to its receive
 * path. On a device with a peer (hermon:model: two models joined by their
 * cable carry RoCE messages, not Ethernet frames) a MAD is sent from a GSI
 * QP of the peer's own, through the cable, from the peer's one address;
 * there is no ARP to inject.
 */

#include <stdbool.h>
#include <stdint.h>

#include <prdma.h>

#include "cm_mad.h"

#define T_PEER(n) (0xc6336400u + (n))          /* 198.51.100.n */

struct t_peer;

struct t_dev {
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	union prdma_gid gid;
	/* hermon: the sender's device, and the channel whose progress
	 * receives the MAD (t_inject_mad waits until the CM has it) */
	struct t_peer *peer;
	struct prdma_cm_channel *ch;
};

/* A device; with @peer_devargs (not NULL) a second device, cabled to it,
 * that t_inject_mad sends from. @peer_ip: the peer's IPv4 address. */
void t_dev_open(struct t_dev *d, const char *devargs);
void t_dev_open_peer(struct t_dev *d, const char *devargs, const char *peer_devargs,
		     uint32_t peer_ip);
void t_dev_close(struct t_dev *d);
/* True when the device is the soft provider's (frames can be injected). */
bool t_dev_soft(const struct t_dev *d);

/* A UD SEND to QP1 from IPv4 @src_ip carrying @mad (from the peer's own
 * address on a device with a peer). */
void t_inject_mad(struct t_dev *d, uint32_t src_ip, const uint8_t mad[CM_MAD_SIZE]);
/* An ARP frame (@op 1 request, 2 reply) from @sha/@spa for @tpa. */
void t_inject_arp(struct t_dev *d, uint16_t op, const uint8_t sha[6], uint32_t spa,
		  uint32_t tpa);

/* A REQ of "client" @n from @src_ip for @port, as rdma_cm sends it. */
void t_make_req(uint8_t mad[CM_MAD_SIZE], uint32_t n, uint16_t port,
		const union prdma_gid *dst, uint32_t src_ip, uint8_t resp_timeout,
		uint8_t ack_timeout);

/* One call's duration in ms. */
double t_ms_since(uint64_t tsc0);

#endif /* T_SEC_H */
