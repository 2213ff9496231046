/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PRDMA_ROCE_H
#define PRDMA_ROCE_H

/**
 * @file
 * Functions specific to the software RoCE provider ("roce:"): fault
 * injection for loss and reordering tests, and the provider's own
 * statistics (fault hits, congestion control, address resolution).
 * Each function returns -ENODEV (and sets rte_errno) for a device of
 * another provider.
 */

#include <stdint.h>

#include <prdma.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where a fault is applied: frames leaving or entering the device. */
enum prdma_roce_fault_dir {
	PRDMA_ROCE_FAULT_TX = 0,
	PRDMA_ROCE_FAULT_RX,
	PRDMA_ROCE_FAULT_DIR_NB,
};

/** What happens to a frame a fault hits. */
enum prdma_roce_fault_kind {
	PRDMA_ROCE_FAULT_DROP = 0,  /**< the frame is lost */
	PRDMA_ROCE_FAULT_DUP,       /**< the frame is delivered twice */
	PRDMA_ROCE_FAULT_REORDER,   /**< the frame is overtaken by the next one */
	PRDMA_ROCE_FAULT_CORRUPT,   /**< one bit after the BTH is flipped */
	PRDMA_ROCE_FAULT_DELAY,     /**< the frame is held for the delay (µs) */
	PRDMA_ROCE_FAULT_CE,        /**< the IP ECN field is marked CE */
	PRDMA_ROCE_FAULT_KIND_NB,
};

/**
 * Set one fault: each frame in direction @p dir is hit with probability
 * @p rate_ppm / 10^6, drawn from a generator seeded with @p seed (so a run
 * is repeatable). A rate of 0 turns the fault off. Safe at any time.
 *
 * @return 0, -ENODEV (not a roce device), -EINVAL (dir, kind, rate).
 */
int prdma_roce_fault_set(struct prdma_dev *dev, enum prdma_roce_fault_dir dir,
			 enum prdma_roce_fault_kind kind, uint32_t rate_ppm,
			 uint64_t seed);

/** How long PRDMA_ROCE_FAULT_DELAY holds a frame (1..1000000 µs). */
int prdma_roce_fault_delay_set(struct prdma_dev *dev,
			       enum prdma_roce_fault_dir dir, uint32_t delay_us);

/** Turn every fault off; frames held for reordering or delay go out. */
int prdma_roce_fault_clear(struct prdma_dev *dev);

/** The provider's own statistics. */
struct prdma_roce_stats {
	/** frames each fault hit, per direction and kind */
	uint64_t fault[PRDMA_ROCE_FAULT_DIR_NB][PRDMA_ROCE_FAULT_KIND_NB];
	uint64_t ce_received;     /**< frames that arrived marked CE */
	uint64_t cnp_sent;        /**< CNPs sent (at most one per QP per interval) */
	uint64_t cnp_received;    /**< CNPs received for a QP of this device */
	uint64_t rate_cuts;       /**< reaction-point rate decreases */
	uint64_t rate_increases;  /**< recovery steps (fast, additive, hyper) */
	uint64_t arp_requests;    /**< ARP requests / neighbour solicitations sent */
	uint64_t arp_replies;     /**< ARP replies / neighbour advertisements sent */
	uint64_t neigh_learned;   /**< MACs learned from the wire */
	uint64_t neigh_kernel;    /**< MACs read from the kernel's neighbour table */
	uint64_t neigh_ignored;   /**< ARP about us not learnt: unsolicited, or from
				   *   an address neither cached nor being resolved */
	uint64_t zc_active;       /**< 1: payloads of zc_min= bytes and more leave
				   *   from the registered memory (zero-copy) */
	uint64_t zc_frames;       /**< frames sent zero-copy */
	uint64_t tlp_probes;      /**< tail-loss probes sent (RC: the last
				   *   unacknowledged packet again, with AckReq,
				   *   after about two RTTs without an ACK) */
	uint64_t tlp_acked;       /**< probed tails acknowledged before the ACK
				   *   timeout (recoveries, or slow ACKs) */
	uint64_t acks_held;       /**< ACKs that waited to be coalesced */
	uint64_t engines;         /**< engines of the device (engines=) */
	uint64_t rx_handoff;      /**< frames an engine received for another
				   *   engine's QP and handed to it */
	uint64_t rx_handoff_drops; /**< of those, lost to a full handoff ring */
	uint64_t flow_active;     /**< rte_flow steering (flow=): 0 none (frames on
				   *   another engine's queue are handed over), 1 a
				   *   rule per QP on its QPN, 2 a rule per RC/UC QP
				   *   on its peer's address and UDP source port */
	uint64_t flow_rules;      /**< rules installed now */
	uint64_t flow_created;    /**< rules installed since the probe */
	uint64_t flow_failed;     /**< rules the port refused (that QP's frames
				   *   stay with the software handoff) */
	uint64_t ack_watch_looks; /**< wake-ups of the ACK watch thread
				   *   (progress=inline with ACK coalescing) */
	uint64_t ack_watch_steps; /**< engine steps it ran to send an ACK held
				   *   when the application stopped calling */
};

/** Read the provider's statistics. @return 0 or -ENODEV/-EINVAL. */
int prdma_roce_stats_get(struct prdma_dev *dev, struct prdma_roce_stats *st);

/**
 * The current send rate of an RC/UC QP in Mbit/s as its congestion
 * reaction point sets it (the line rate when not limited).
 */
int prdma_roce_qp_rate_get(struct prdma_qp *qp, uint64_t *mbps);

#ifdef __cplusplus
}
#endif

#endif /* PRDMA_ROCE_H */
