/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef T_SEC_H
#define T_SEC_H

/*
 * What a peer on the wire can send a soft RoCE device, built by hand and
 * fed to the device's receive path: CM MADs to QP1 and ARP frames.
 */

#include <stdint.h>

#include <prdma.h>

#include "cm_mad.h"

#define T_PEER(n) (0xc6336400u + (n))          /* 198.51.100.n */

struct t_dev {
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	union prdma_gid gid;
};

void t_dev_open(struct t_dev *d, const char *devargs);
void t_dev_close(struct t_dev *d);

/* A UD SEND to QP1 from IPv4 @src_ip carrying @mad. */
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
