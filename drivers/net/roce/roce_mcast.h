/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef ROCE_MCAST_H
#define ROCE_MCAST_H

/*
 * UD multicast of the soft provider: the group table a device keeps, the
 * group's Ethernet address, delivery of a received datagram to every QP
 * attached to its group, the own-send loopback (mcast_loop=) and the
 * IGMPv2 / MLDv2 membership reports (igmp=) a kernel-shared port needs.
 */

#include <stdint.h>

#include <rte_ether.h>

#include "prdma_provider.h"

/* Limits reported by dev_query and enforced by attach. */
#define ROCE_MCAST_MAX_GRP      64
#define ROCE_MCAST_MAX_QP_ATTACH 16       /* QPs per group */
#define ROCE_MCAST_MAX_TOTAL    512       /* attachments per device */
#define ROCE_MCAST_QPN          0xffffffu /* DestQP of a multicast datagram */

struct roce_qp;
struct roce_dev;
struct roce_pkt;

struct roce_mcast_grp {
	union prdma_gid gid;
	uint16_t nb_qp;                   /* 0: the entry is free */
	struct roce_qp *qp[ROCE_MCAST_MAX_QP_ATTACH];
};

/* Counters of multicast receive and transmit. */
struct roce_mcast_stats {
	uint64_t delivered;               /* copies handed to attached QPs */
	uint64_t no_group;                /* no QP of ours is in the group */
	uint64_t bad_dqpn;                /* DestQP not 0xFFFFFF, or not UD */
	uint64_t own_dropped;             /* own send, mcast_loop=0 */
	uint64_t looped;                  /* own sends delivered to ourselves */
	uint64_t reports;                 /* IGMP/MLD frames sent */
};

struct roce_mcast {
	uint32_t nb_grp;
	uint32_t nb_total;
	struct roce_mcast_stats st;
	struct roce_mcast_grp grp[ROCE_MCAST_MAX_GRP];
};

/* Group MAC: 01:00:5e + low 23 bits (IPv4), 33:33 + low 32 bits (IPv6). */
void roce_mcast_mac(const union prdma_gid *gid, struct rte_ether_addr *mac);

int roce_mcast_attach(struct prdma_qp *qp, const union prdma_gid *gid);
int roce_mcast_detach(struct prdma_qp *qp, const union prdma_gid *gid);
/* A QP is going away: leave every group it is in (engine flag held). */
void roce_mcast_qp_gone(struct roce_dev *dev, struct roce_qp *qp);

/*
 * Engine receive: a frame to a multicast IP is taken here (returns 1:
 * delivered to the group's QPs or counted as a drop); 0 for unicast.
 * With several engines, engine @e delivers to its own members only;
 * engine 0, which receives every group frame, first hands @m (one more
 * reference) to each other engine that owns a member.
 */
struct roce_eng;
int roce_mcast_rx(struct roce_eng *e, struct rte_mbuf *m, struct roce_pkt *pkt);
/* Engine transmit of a frame to a group MAC: copy it to our own loop ring
 * when mcast_loop=1 and one of our QPs is in a group. */
void roce_mcast_tx_loop(struct roce_eng *e, struct rte_mbuf *m);

#endif /* ROCE_MCAST_H */
