/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_BARRIER_H
#define HERMON_BARRIER_H

/*
 * Named barriers: each says which stores must be seen by the device before
 * which other store, so that no bare fence appears in the PMD.
 */

#include <rte_atomic.h>

/* HCR dwords 0-5 visible before the go word (dword 6) is written. */
static inline void
hermon_barrier_hcr_before_go(void)
{
	rte_io_wmb();
}

/* Mailbox contents in host memory visible before the HCR names them. */
static inline void
hermon_barrier_mailbox_before_hcr(void)
{
	rte_io_wmb();
}

/* The go bit read as clear before the status and out_param are read. */
static inline void
hermon_barrier_go_before_result(void)
{
	rte_io_rmb();
}

/* Output mailbox read only after the command is seen complete. */
static inline void
hermon_barrier_complete_before_mailbox(void)
{
	rte_io_rmb();
}

/* EQE owner bit read before the rest of the entry. */
static inline void
hermon_barrier_eqe_owner_before_data(void)
{
	rte_io_rmb();
}

/* EQE consumed before the consumer index is published to the device. */
static inline void
hermon_barrier_eqe_before_ci(void)
{
	rte_io_wmb();
}

/* Reset register written before the config space is polled for recovery. */
static inline void
hermon_barrier_reset_before_poll(void)
{
	rte_io_mb();
}

/* A send WQE's segments visible before its owner bit hands it over. */
static __rte_always_inline void
hermon_barrier_wqe_before_owner(void)
{
	rte_io_wmb();
}

/*
 * A data segment's key and address (an inline chunk's data) before its
 * first dword: the device may prefetch a 64-byte block whose first dword
 * looks valid (rdma-core set_data_seg / set inline, Linux hw/mlx4).
 */
static __rte_always_inline void
hermon_barrier_dseg_before_count(void)
{
	rte_io_wmb();
}

/* Posted WQEs (owner bits included) visible before the UAR doorbell. */
static __rte_always_inline void
hermon_barrier_wqe_before_doorbell(void)
{
	rte_io_wmb();
}

/*
 * BlueFlame: the ring copy (owner bit included) in memory before the copy
 * to the register, so that the device's fallback to the ring finds it.
 */
static __rte_always_inline void
hermon_barrier_wqe_before_bf(void)
{
	rte_wmb();
}

/* BlueFlame: flush the write-combining buffer so the copy leaves now. */
static __rte_always_inline void
hermon_barrier_bf_flush(void)
{
	rte_wmb();
}

/* Receive descriptors visible before the doorbell record counts them. */
static __rte_always_inline void
hermon_barrier_desc_before_dbrec(void)
{
	rte_io_wmb();
}

/* Doorbell record (CQ arm word) visible before the arm doorbell rings. */
static __rte_always_inline void
hermon_barrier_dbrec_before_doorbell(void)
{
	rte_io_wmb();
}

/* CQE owner bit read before the rest of the CQE. */
static __rte_always_inline void
hermon_barrier_cqe_owner_before_data(void)
{
	rte_io_rmb();
}

/* CQEs read before the consumer index releases their slots. */
static __rte_always_inline void
hermon_barrier_cqe_before_ci(void)
{
	rte_io_mb();
}

#endif /* HERMON_BARRIER_H */
