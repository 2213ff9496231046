/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_AGENT_RES_H
#define HERMON_AGENT_RES_H

/*
 * The verbs objects a PMD-owned control agent runs on (hermon_agent_res.c):
 * the SMP agent's QP0 (hermon_sma.c) and the ARP/ND agent's raw Ethernet
 * QP (hermon_arp.c). Each owns a PD, one CQ for both queues, one buffer of
 * receive slots then send slots under one MR, and a QP brought to RTS
 * with every receive slot posted.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hermon_obj.h"

/** What differs between the agents. */
struct hermon_agent_res_attr {
	const char *name;                /**< the buffer's rte_malloc name */
	uint32_t nrecv, nsend;           /**< slots (and WRs) of each queue */
	uint32_t rslot, sslot;           /**< bytes of a receive / send slot */
	enum prdma_qp_type qp_type;
	uint32_t create_flags;           /**< e.g. PRDMA_QP_CREATE_SMI */
	uint32_t init_mask;              /**< RESET->INIT attributes beyond PKEY_INDEX, PORT */
	bool sma_owned;                  /**< the PMD's own QP0 of the port (hermon_sqp.c) */
	bool raw;                        /**< a raw Ethernet QP (MLX on an ordinary QPN) */
};

struct hermon_agent_res {
	struct hermon_pd pd;
	struct hermon_cq cq;
	struct hermon_mr mr;
	struct hermon_qp qp;
	uint8_t *buf;                    /**< nrecv receive slots, then nsend send slots */
	uint32_t nrecv, nsend, rslot, sslot;
	bool pd_ok, cq_ok, mr_ok, qp_ok;
};

/*
 * Make @r (zeroed by the caller) on @port of @hd as @at says: 0, or a
 * negative errno with rte_errno set and nothing of @r left to free.
 */
int hermon_agent_res_new(struct hermon_dev *hd, uint8_t port,
			 const struct hermon_agent_res_attr *at, struct hermon_agent_res *r);
/* Free what @r holds, QP first; again is a no-op. */
void hermon_agent_res_free(struct hermon_agent_res *r);
/* Receive slot @i, and the send slot send number @k goes in (k mod nsend). */
uint8_t *hermon_agent_recv_slot(const struct hermon_agent_res *r, uint32_t i);
uint8_t *hermon_agent_send_slot(const struct hermon_agent_res *r, uint32_t k);
/* Post receive slot @i again (wr_id @i): 0 or a negative errno. */
int hermon_agent_post_recv(struct hermon_agent_res *r, uint32_t i);

#endif /* HERMON_AGENT_RES_H */
