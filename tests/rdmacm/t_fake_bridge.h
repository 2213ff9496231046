/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef T_FAKE_BRIDGE_H
#define T_FAKE_BRIDGE_H

/*
 * A test double of prdma's libibverbs bridge (lib/verbs/prdma_verbs_bridge.h)
 * so the rdmacm library's CM paths run in one process without the verbs
 * library: prdma_verbs_init() starts EAL and probes two soft RoCE devices
 * joined by an in-process ring (192.0.2.13 side 0, 192.0.2.12 side 1);
 * verbs contexts and QPs are thin wrappers of prdma objects.
 */

#include <infiniband/verbs.h>

#include <prdma.h>

#define T_IP_A "192.0.2.13"
#define T_IP_B "192.0.2.12"

/* A verbs QP wrapping a new prdma QP of @type on @ctx's device. */
struct ibv_qp *t_fake_qp(struct ibv_context *ctx, enum ibv_qp_type type);
void t_fake_qp_free(struct ibv_qp *qp);
/* How often the library told a QP its state changed. */
unsigned int t_fake_syncs(void);

#endif /* T_FAKE_BRIDGE_H */
