/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PRDMA_H
#define PRDMA_H

/**
 * @file
 * prdma: poll-mode RDMA verbs on DPDK — control path.
 *
 * Objects and their lifetime:
 *
 *   device (prdma_dev_probe / prdma_dev_open) ─┬─ PD ─┬─ MR, MW, AH, SRQ
 *                                              │      └─ QP (needs CQs, optional SRQ)
 *                                              └─ CQ
 *
 * Every object is destroyed before the object it was created from.
 *
 * Error conventions (the same for every function in this header):
 *  - functions returning int return 0 (or a count / id >= 0) on success and a
 *    negative errno on failure, and set rte_errno to the positive value;
 *  - creators return a pointer, or NULL with rte_errno set;
 *  - fast-path post functions (prdma_fp.h) return 0 or a negative errno and
 *    report the first failing work request through @p bad_wr;
 *  - poll functions return a count; per-request errors are in prdma_wc.status.
 *
 * Threading: the control path (this header) is thread safe. A QP's send side,
 * a QP's receive side, an SRQ and a CQ are each owned by one lcore on the fast
 * path; the fast path takes no lock. Modifying or destroying an object while
 * another lcore posts to or polls it is not allowed.
 */

#include <stdint.h>
#include <stddef.h>

#include <rte_common.h>
#include <rte_ether.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest number of devices (and entries in the fast-path table). */
#ifndef PRDMA_MAX_DEVS
#define PRDMA_MAX_DEVS 32
#endif

/** Longest device name, including the NUL. */
#define PRDMA_DEV_NAME_LEN 64
/** Node description length (IB NodeDescription). */
#define PRDMA_NODE_DESC_LEN 64

struct prdma_dev;
struct prdma_pd;
struct prdma_mr;
struct prdma_mw;
struct prdma_cq;
struct prdma_srq;
struct prdma_qp;
struct prdma_ah;

/* ------------------------------------------------------------------------ */
/* Devices                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * Create a device from a devargs string "<provider>:<key>=<value>,...",
 * for instance "roce:ring=loop0,side=0" or "hermon:model".
 *
 * @return the device id (>= 0), or a negative errno:
 *   -EINVAL bad devargs (the offending key is logged), -ENODEV no such
 *   provider, -ENOSPC device table full, -EEXIST name in use, or the
 *   provider's own error.
 */
int prdma_dev_probe(const char *devargs);

/**
 * Remove a probed device. Fails with -EBUSY while it is open.
 */
int prdma_dev_remove(uint16_t dev_id);

/** Number of probed devices. */
uint16_t prdma_dev_count(void);

/**
 * Iterate over probed device ids: start with 0, returns the next valid id
 * >= @p start, or PRDMA_MAX_DEVS when there is none.
 */
uint16_t prdma_dev_next(uint16_t start);

/** Device id by name, or negative errno (-ENODEV). */
int prdma_dev_get_by_name(const char *name);

/** Name of a device ("roce0", "hermon0", ...), NULL if the id is invalid. */
const char *prdma_dev_name(uint16_t dev_id);

/** Open a device (reference counted). NULL + rte_errno on failure. */
struct prdma_dev *prdma_dev_open(uint16_t dev_id);

/** Close a device handle; every object created from it must be gone (-EBUSY). */
int prdma_dev_close(struct prdma_dev *dev);

/** Id of an open device. */
uint16_t prdma_dev_id(const struct prdma_dev *dev);

/**
 * Drive a device's progress engine once (receive, timers, transmit).
 * Hardware devices progress by themselves and return 0; the software
 * provider progresses from its poll calls, from this function, or from its
 * own thread (devarg progress=thread). Returns the amount of work done (>= 0).
 */
int prdma_dev_progress(struct prdma_dev *dev);

/** Adapter capability flags (prdma_dev_attr.flags). */
#define PRDMA_DEV_CAP_IN_ORDER_DMA      RTE_BIT64(0)  /**< data placed in order */
#define PRDMA_DEV_CAP_CQ_RESIZE         RTE_BIT64(1)  /**< prdma_cq_resize works */
#define PRDMA_DEV_CAP_LOOPBACK_CONN     RTE_BIT64(2)  /**< QPs of one device connect */
#define PRDMA_DEV_CAP_MULTI_ENGINE      RTE_BIT64(3)  /**< several engines in parallel */
#define PRDMA_DEV_CAP_SRQ               RTE_BIT64(4)
#define PRDMA_DEV_CAP_MW_TYPE1          RTE_BIT64(5)
#define PRDMA_DEV_CAP_MW_TYPE2          RTE_BIT64(6)
#define PRDMA_DEV_CAP_ATOMIC            RTE_BIT64(7)  /**< CAS and FADD */
#define PRDMA_DEV_CAP_UD_MCAST          RTE_BIT64(8)
#define PRDMA_DEV_CAP_RC                RTE_BIT64(9)
#define PRDMA_DEV_CAP_UC                RTE_BIT64(10)
#define PRDMA_DEV_CAP_UD                RTE_BIT64(11)
#define PRDMA_DEV_CAP_SEND_INV          RTE_BIT64(12) /**< SEND with invalidate */
#define PRDMA_DEV_CAP_PORT_MODIFY       RTE_BIT64(13)
#define PRDMA_DEV_CAP_NODE_DESC_MODIFY  RTE_BIT64(14)

/** Transports the device speaks on the wire. */
enum prdma_transport {
	PRDMA_TRANSPORT_IB = 0,
	PRDMA_TRANSPORT_ROCE_V1 = 1,
	PRDMA_TRANSPORT_ROCE_V2 = 2,
};

/**
 * Device capabilities: what NDK_ADAPTER_INFO and IB_CA_ATTR describe.
 * Output only; fields the library does not know yet stay zero.
 */
struct prdma_dev_attr {
	char name[PRDMA_DEV_NAME_LEN];     /**< device name */
	char provider[16];                 /**< "roce", "hermon" */
	char node_desc[PRDMA_NODE_DESC_LEN]; /**< node description */
	uint32_t vendor_id;                /**< PCI/IEEE vendor id */
	uint32_t vendor_part_id;           /**< PCI device id */
	uint32_t hw_ver;
	uint64_t fw_ver;                   /**< major << 32 | minor << 16 | sub */
	uint64_t node_guid;
	uint64_t sys_image_guid;
	uint64_t max_mr_size;              /**< max registration size */
	uint64_t page_size_cap;
	uint32_t max_transfer_length;      /**< max bytes in one request */
	uint32_t max_inline_data;          /**< max inline bytes per send */
	uint32_t max_qp;
	uint32_t max_qp_wr;                /**< max work requests per queue */
	uint32_t max_send_sge;             /**< max SGEs per initiator request */
	uint32_t max_recv_sge;             /**< max SGEs per receive request */
	uint32_t max_read_sge;             /**< max SGEs per RDMA READ request */
	uint32_t max_cq;
	uint32_t max_cqe;                  /**< max CQ depth */
	uint32_t max_mr;
	uint32_t max_pd;
	uint32_t max_mw;
	uint32_t max_ah;
	uint32_t max_srq;
	uint32_t max_srq_wr;               /**< max SRQ depth */
	uint32_t max_srq_sge;
	uint32_t max_qp_rd_atom;           /**< inbound READ/atomic limit per QP */
	uint32_t max_qp_init_rd_atom;      /**< outbound READ/atomic limit per QP */
	uint32_t max_res_rd_atom;          /**< responder resources per device */
	uint32_t max_mcast_grp;
	uint32_t max_mcast_qp_attach;      /**< QPs per multicast group */
	uint32_t max_total_mcast_qp_attach;
	uint32_t large_request_threshold;  /**< bytes above which reads beat sends */
	uint32_t max_caller_data;          /**< CM private data in REQ */
	uint32_t max_callee_data;          /**< CM private data in REP */
	uint32_t max_pkeys;
	uint8_t local_ca_ack_delay;
	uint8_t phys_port_cnt;             /**< ports are numbered 1..phys_port_cnt */
	uint8_t transport;                 /**< enum prdma_transport */
	uint8_t reserved0;
	uint64_t flags;                    /**< PRDMA_DEV_CAP_* */
	uint64_t reserved[8];
};

/** Fill @p attr with the device's capabilities. */
int prdma_dev_query(struct prdma_dev *dev, struct prdma_dev_attr *attr);

/** prdma_dev_modify() mask bits. */
#define PRDMA_DEV_MODIFY_NODE_DESC RTE_BIT32(0)

struct prdma_dev_modify_attr {
	uint32_t comp_mask;                /**< reserved, must be 0 */
	char node_desc[PRDMA_NODE_DESC_LEN];
};

/** Change device attributes (-ENOTSUP where the provider does not allow it). */
int prdma_dev_modify(struct prdma_dev *dev, uint32_t mask,
		     const struct prdma_dev_modify_attr *attr);

/** Port state (IB PortState). */
enum prdma_port_state {
	PRDMA_PORT_NOP = 0,
	PRDMA_PORT_DOWN = 1,
	PRDMA_PORT_INIT = 2,
	PRDMA_PORT_ARMED = 3,
	PRDMA_PORT_ACTIVE = 4,
};

/** Path MTU (IB enumeration: payload bytes per packet). */
enum prdma_mtu {
	PRDMA_MTU_256 = 1,
	PRDMA_MTU_512 = 2,
	PRDMA_MTU_1024 = 3,
	PRDMA_MTU_2048 = 4,
	PRDMA_MTU_4096 = 5,
};

/** Bytes of an enum prdma_mtu, 0 for an invalid value. */
static inline uint32_t
prdma_mtu_bytes(int mtu)
{
	return (mtu >= PRDMA_MTU_256 && mtu <= PRDMA_MTU_4096) ?
		128u << mtu : 0;
}

enum prdma_link_layer {
	PRDMA_LINK_LAYER_INFINIBAND = 1,
	PRDMA_LINK_LAYER_ETHERNET = 2,
};

/** Port capability flags (IB PortInfo:CapabilityMask subset). */
#define PRDMA_PORT_CAP_SM               RTE_BIT32(1)
#define PRDMA_PORT_CAP_CM_SUP           RTE_BIT32(16)
#define PRDMA_PORT_CAP_DEVICE_MGMT_SUP  RTE_BIT32(19)
#define PRDMA_PORT_CAP_IP_BASED_GIDS    RTE_BIT32(26)

/** Port attributes: IB_PORT_ATTR's fields. */
struct prdma_port_attr {
	uint8_t state;                     /**< enum prdma_port_state */
	uint8_t max_mtu;                   /**< enum prdma_mtu */
	uint8_t active_mtu;                /**< enum prdma_mtu */
	uint8_t link_layer;                /**< enum prdma_link_layer */
	uint32_t gid_tbl_len;
	uint32_t port_cap_flags;           /**< PRDMA_PORT_CAP_* */
	uint32_t max_msg_sz;
	uint16_t pkey_tbl_len;
	uint16_t lid;                      /**< 0 on RoCE */
	uint8_t active_width;              /**< IB encoding: 1=1x 2=4x 4=8x 8=12x */
	uint8_t active_speed;              /**< IB encoding: 1=SDR 2=DDR 4=QDR ... */
	uint8_t phys_state;                /**< 5 = LinkUp, 3 = Disabled */
	uint8_t lmc;                       /**< IB: LID mask control, 0 on RoCE */
	uint32_t link_speed_mbps;          /**< Ethernet link speed, 0 if unknown */
	struct rte_ether_addr mac;         /**< Ethernet ports: the port's MAC */
	uint16_t sm_lid;                   /**< IB: the master SM's LID, 0 on RoCE */
	uint8_t sm_sl;                     /**< IB: the SL to reach it */
	uint8_t reserved2[3];
	uint64_t reserved[4];
};

/** Query a port (ports are numbered from 1). */
int prdma_port_query(struct prdma_dev *dev, uint8_t port,
		     struct prdma_port_attr *attr);

/** A 128-bit GID, network byte order. */
union prdma_gid {
	uint8_t raw[16];
	struct {
		uint64_t subnet_prefix;
		uint64_t interface_id;
	} global;
};

/** Read GID table entry @p index of @p port (-ENOENT for an empty entry). */
int prdma_gid_query(struct prdma_dev *dev, uint8_t port, uint32_t index,
		    union prdma_gid *gid);

/** Set and clear port capability flags (-ENOTSUP where not allowed). */
int prdma_port_modify(struct prdma_dev *dev, uint8_t port,
		      uint32_t set_cap_flags, uint32_t clear_cap_flags);

/** Make the IPv4-mapped GID ::ffff:a.b.c.d (RoCEv2) of a host-order IPv4 address. */
void prdma_gid_from_ipv4(union prdma_gid *gid, uint32_t ipv4);

/** Format a GID as an IPv6-style string; returns @p buf. */
char *prdma_gid_to_str(const union prdma_gid *gid, char *buf, size_t len);

/** Parse an IPv4 or IPv6 address into a GID (IPv4 becomes IPv4-mapped). */
int prdma_gid_from_str(union prdma_gid *gid, const char *str);

/* ------------------------------------------------------------------------ */
/* Protection domains and memory                                             */
/* ------------------------------------------------------------------------ */

/** Allocate a protection domain. */
struct prdma_pd *prdma_pd_alloc(struct prdma_dev *dev);

/** Free a PD; -EBUSY while objects created from it exist. */
int prdma_pd_free(struct prdma_pd *pd);

/** Access flags of MRs, MWs and QPs. */
#define PRDMA_ACCESS_LOCAL_WRITE   RTE_BIT32(0)
#define PRDMA_ACCESS_REMOTE_WRITE  RTE_BIT32(1)
#define PRDMA_ACCESS_REMOTE_READ   RTE_BIT32(2)
#define PRDMA_ACCESS_REMOTE_ATOMIC RTE_BIT32(3)
#define PRDMA_ACCESS_MW_BIND       RTE_BIT32(4)
#define PRDMA_ACCESS_ALL (PRDMA_ACCESS_LOCAL_WRITE | PRDMA_ACCESS_REMOTE_WRITE | \
			  PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_ATOMIC | \
			  PRDMA_ACCESS_MW_BIND)

/** A registered memory region. Read-only for the application. */
struct prdma_mr {
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	void *addr;                        /**< start (virtual address) */
	uint64_t length;
	uint32_t lkey;
	uint32_t rkey;                     /**< 0 when no remote access */
	uint32_t access;                   /**< PRDMA_ACCESS_* */
	uint32_t flags;                    /**< PRDMA_MR_F_* */
};

/** The MR covers all of DPDK's memory (prdma_mr_get_dma). */
#define PRDMA_MR_F_DMA RTE_BIT32(0)

/**
 * Register [addr, addr + length) of DPDK memory (memzone, rte_malloc,
 * mempool, external memory registered with rte_extmem_register).
 * Memory the stack cannot DMA (plain malloc, stack) gives -EINVAL and a
 * log line naming the address. Remote write or atomic require local write.
 */
struct prdma_mr *prdma_mr_reg(struct prdma_pd *pd, void *addr, size_t length,
			      uint32_t access);

/**
 * The local DMA MR: an lkey spanning all of DPDK's memory, for trusted local
 * use (NDK's GetDmaMr). Only local access flags are accepted.
 */
struct prdma_mr *prdma_mr_get_dma(struct prdma_pd *pd, uint32_t access);

/**
 * Deregister an MR. When it returns, no remote or local access to the
 * region will happen through its keys.
 */
int prdma_mr_dereg(struct prdma_mr *mr);

enum prdma_mw_type {
	PRDMA_MW_TYPE_1 = 1,
	PRDMA_MW_TYPE_2 = 2,
};

/** A memory window. */
struct prdma_mw {
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	uint32_t rkey;                     /**< current rkey (changes on bind) */
	uint8_t type;                      /**< enum prdma_mw_type */
};

/** Allocate a memory window. */
struct prdma_mw *prdma_mw_alloc(struct prdma_pd *pd, enum prdma_mw_type type);

/** Free a memory window (it is invalidated first). */
int prdma_mw_dealloc(struct prdma_mw *mw);

/** What a window binds to. */
struct prdma_mw_bind_info {
	struct prdma_mr *mr;               /**< the MR, with PRDMA_ACCESS_MW_BIND */
	uint64_t addr;                     /**< start, inside the MR */
	uint64_t length;                   /**< 0 unbinds */
	uint32_t access;                   /**< remote access of the window */
};

/**
 * Bind a type 1 window through @p qp's send queue (the verbs ibv_bind_mw):
 * posts a bind request with wr_id @p wr_id and @p send_flags and returns the
 * new rkey in mw->rkey once posted. The completion reports the outcome.
 * Type 2 windows are bound with a PRDMA_WR_BIND_MW work request instead.
 */
int prdma_mw_bind(struct prdma_qp *qp, struct prdma_mw *mw,
		  const struct prdma_mw_bind_info *info, uint64_t wr_id,
		  uint32_t send_flags);

/* ------------------------------------------------------------------------ */
/* Completion queues                                                         */
/* ------------------------------------------------------------------------ */

/** CQ creation flags. */
#define PRDMA_CQ_F_EVENT_FD RTE_BIT32(0) /**< create the notification fd */

struct prdma_cq_init_attr {
	uint32_t comp_mask;                /**< reserved, must be 0 */
	uint32_t cqe;                      /**< requested depth (>= 1) */
	uint32_t flags;                    /**< PRDMA_CQ_F_* */
	uint32_t reserved;
	void *cq_context;                  /**< returned by prdma_cq_get_event */
};

/**
 * Create a CQ with at least @p attr->cqe entries; the actual depth is in
 * cq->cqe.
 */
struct prdma_cq *prdma_cq_create(struct prdma_dev *dev,
				 const struct prdma_cq_init_attr *attr);

/** Destroy a CQ; -EBUSY while a QP or SRQ uses it. */
int prdma_cq_destroy(struct prdma_cq *cq);

/**
 * Resize a CQ to at least @p cqe entries (completions already queued are
 * kept; -EINVAL when more are queued than would fit).
 */
int prdma_cq_resize(struct prdma_cq *cq, uint32_t cqe);

enum prdma_cq_arm_flags {
	PRDMA_CQ_ARM_NEXT = 0,             /**< notify on the next completion */
	PRDMA_CQ_ARM_SOLICITED = 1,        /**< only on a solicited or error one */
};

/** Arm a CQ for one notification. */
int prdma_cq_arm(struct prdma_cq *cq, enum prdma_cq_arm_flags flags);

/** Arm a CQ to notify once @p n more completions have arrived (RearmNCq). */
int prdma_cq_arm_n(struct prdma_cq *cq, uint32_t n);

/**
 * The notification file descriptor of a CQ created with
 * PRDMA_CQ_F_EVENT_FD: it becomes readable when an armed CQ fires.
 * -ENOTSUP for a CQ created without the flag.
 */
int prdma_cq_event_fd(struct prdma_cq *cq);

/**
 * Consume the pending notifications of a CQ (non-blocking).
 * @return the number of notifications consumed (0 if none), or negative errno.
 */
int prdma_cq_get_event(struct prdma_cq *cq);

/* ------------------------------------------------------------------------ */
/* Shared receive queues                                                     */
/* ------------------------------------------------------------------------ */

struct prdma_srq_attr {
	uint32_t max_wr;                   /**< depth */
	uint32_t max_sge;                  /**< SGEs per receive */
	uint32_t srq_limit;                /**< armed watermark; 0 = disarmed */
};

struct prdma_srq_init_attr {
	uint32_t comp_mask;                /**< reserved, must be 0 */
	struct prdma_srq_attr attr;
	void *srq_context;
};

/** prdma_srq_modify() mask bits. */
#define PRDMA_SRQ_MAX_WR RTE_BIT32(0) /**< resize (PRDMA_DEV_CAP_* permitting) */
#define PRDMA_SRQ_LIMIT  RTE_BIT32(1) /**< arm the limit event */

/** Create an SRQ; actual sizes are returned in @p attr->attr. */
struct prdma_srq *prdma_srq_create(struct prdma_pd *pd,
				   struct prdma_srq_init_attr *attr);

/**
 * Modify an SRQ. Setting srq_limit arms a one-shot
 * PRDMA_EVENT_SRQ_LIMIT_REACHED event when fewer than srq_limit receive
 * requests remain.
 */
int prdma_srq_modify(struct prdma_srq *srq, const struct prdma_srq_attr *attr,
		     uint32_t mask);

int prdma_srq_query(struct prdma_srq *srq, struct prdma_srq_attr *attr);

int prdma_srq_destroy(struct prdma_srq *srq);

/* ------------------------------------------------------------------------ */
/* Address handles                                                           */
/* ------------------------------------------------------------------------ */

/** prdma_ah_attr.flags */
#define PRDMA_AH_F_DMAC RTE_BIT32(0) /**< dmac is given (else resolved) */
/**
 * Resolve the MAC without waiting for the network: when it is not known
 * yet, the resolution is started (an ARP request or a kernel probe) and
 * the call fails with EAGAIN; call again (with the device progressing)
 * until it succeeds or you give up. Without it, prdma_ah_create() and a
 * QP modify that sets the path may wait up to 1 s on the calling thread.
 */
#define PRDMA_AH_F_NOWAIT RTE_BIT32(1)
/**
 * The path carries a Global Route Header (InfiniBand's "is_global"): dgid,
 * sgid_index, flow_label, hop_limit and traffic_class apply. Without it an
 * InfiniBand port sends a packet with a local route header only, addressed
 * by dlid and sl, and the GRH fields are ignored. RoCE frames always carry
 * the GRH (it is their network header), so on Ethernet ports the flag is
 * implied and may be left out.
 */
#define PRDMA_AH_F_GLOBAL RTE_BIT32(2)

/** A path to a remote port. */
struct prdma_ah_attr {
	union prdma_gid dgid;              /**< destination GID */
	uint32_t flow_label;
	uint8_t sgid_index;                /**< index in the local GID table */
	uint8_t hop_limit;                 /**< 0 = the provider's default (64) */
	uint8_t traffic_class;             /**< DSCP << 2 | ECN */
	uint8_t sl;
	uint8_t port_num;                  /**< local port, from 1 */
	uint8_t reserved0[3];
	uint32_t flags;                    /**< PRDMA_AH_F_* */
	struct rte_ether_addr dmac;        /**< destination MAC (Ethernet) */
	uint16_t dlid;                     /**< InfiniBand only */
};

struct prdma_ah *prdma_ah_create(struct prdma_pd *pd,
				 const struct prdma_ah_attr *attr);
int prdma_ah_query(struct prdma_ah *ah, struct prdma_ah_attr *attr);
int prdma_ah_modify(struct prdma_ah *ah, const struct prdma_ah_attr *attr);
int prdma_ah_destroy(struct prdma_ah *ah);

/* ------------------------------------------------------------------------ */
/* Queue pairs                                                               */
/* ------------------------------------------------------------------------ */

enum prdma_qp_type {
	PRDMA_QPT_RC = 2,
	PRDMA_QPT_UC = 3,
	PRDMA_QPT_UD = 4,
};

enum prdma_qp_state {
	PRDMA_QPS_RESET = 0,
	PRDMA_QPS_INIT,
	PRDMA_QPS_RTR,
	PRDMA_QPS_RTS,
	PRDMA_QPS_SQD,
	PRDMA_QPS_SQE,
	PRDMA_QPS_ERR,
	PRDMA_QPS_MAX
};

/** Name of a QP state ("RESET", "INIT", ...). */
const char *prdma_qp_state_str(enum prdma_qp_state state);

struct prdma_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

struct prdma_qp_init_attr {
	uint32_t comp_mask;                /**< reserved, must be 0 */
	enum prdma_qp_type qp_type;
	struct prdma_cq *send_cq;
	struct prdma_cq *recv_cq;
	struct prdma_srq *srq;             /**< receive from this SRQ (RC, UD, UC) */
	struct prdma_qp_cap cap;           /**< in: requested; out: actual */
	uint8_t sq_sig_all;                /**< every send completes signaled */
	uint8_t reserved[3];
	uint32_t create_flags;             /**< PRDMA_QP_CREATE_* */
	void *qp_context;
};

/**
 * prdma_qp_init_attr.create_flags: the port's General Services Interface QP
 * (QP1, a UD QP for CM MADs, Q_Key 0x80010000). One per port; -EBUSY when
 * it exists, -ENOTSUP where the provider has none.
 */
#define PRDMA_QP_CREATE_GSI RTE_BIT32(0)

/**
 * prdma_qp_init_attr.create_flags: the port's Subnet Management Interface QP
 * (QP0, a UD QP for subnet management packets on an InfiniBand port: sent
 * on VL15 without a GRH, to the AH's DLID, any Q_Key; received from any
 * node's QP0). It is for a subnet manager and for the agent that hands
 * received SMPs to the device's SMA. One per port; -EBUSY when it exists,
 * -ENOTSUP where the provider has none (RoCE has no QP0), -EINVAL with
 * PRDMA_QP_CREATE_GSI. Its qp_num is 0.
 */
#define PRDMA_QP_CREATE_SMI RTE_BIT32(1)

/** The GSI QP's well-known (controlled) Q_Key. */
#define PRDMA_GSI_QKEY 0x80010000u

/** prdma_qp_modify() attribute mask. */
#define PRDMA_QP_STATE               RTE_BIT32(0)
#define PRDMA_QP_CUR_STATE           RTE_BIT32(1)
#define PRDMA_QP_EN_SQD_ASYNC_NOTIFY RTE_BIT32(2)
#define PRDMA_QP_ACCESS_FLAGS        RTE_BIT32(3)
#define PRDMA_QP_PKEY_INDEX          RTE_BIT32(4)
#define PRDMA_QP_PORT                RTE_BIT32(5)
#define PRDMA_QP_QKEY                RTE_BIT32(6)
#define PRDMA_QP_AV                  RTE_BIT32(7)
#define PRDMA_QP_PATH_MTU            RTE_BIT32(8)
#define PRDMA_QP_TIMEOUT             RTE_BIT32(9)
#define PRDMA_QP_RETRY_CNT           RTE_BIT32(10)
#define PRDMA_QP_RNR_RETRY           RTE_BIT32(11)
#define PRDMA_QP_RQ_PSN              RTE_BIT32(12)
#define PRDMA_QP_MAX_QP_RD_ATOMIC    RTE_BIT32(13)
#define PRDMA_QP_MIN_RNR_TIMER       RTE_BIT32(15)
#define PRDMA_QP_SQ_PSN              RTE_BIT32(16)
#define PRDMA_QP_MAX_DEST_RD_ATOMIC  RTE_BIT32(17)
#define PRDMA_QP_DEST_QPN            RTE_BIT32(20)

struct prdma_qp_attr {
	enum prdma_qp_state qp_state;
	enum prdma_qp_state cur_qp_state;
	uint8_t path_mtu;                  /**< enum prdma_mtu */
	uint8_t sq_draining;               /**< query: SQD and still draining */
	uint8_t en_sqd_async_notify;
	uint8_t max_rd_atomic;             /**< initiator depth */
	uint8_t max_dest_rd_atomic;        /**< responder resources */
	uint8_t min_rnr_timer;             /**< RNR NAK timer code (0..31) */
	uint8_t port_num;
	uint8_t timeout;                   /**< local ACK timeout 4.096us * 2^t */
	uint8_t retry_cnt;                 /**< 0..7 */
	uint8_t rnr_retry;                 /**< 0..7, 7 = infinite */
	uint16_t pkey_index;
	uint32_t qkey;
	uint32_t rq_psn;                   /**< 24 bits */
	uint32_t sq_psn;                   /**< 24 bits */
	uint32_t dest_qp_num;              /**< 24 bits */
	uint32_t qp_access_flags;          /**< PRDMA_ACCESS_REMOTE_* */
	struct prdma_qp_cap cap;           /**< query only */
	struct prdma_ah_attr ah_attr;      /**< path to the peer (RC/UC) */
};

/** Create a QP in the RESET state. Actual capacities are in attr->cap. */
struct prdma_qp *prdma_qp_create(struct prdma_pd *pd,
				 struct prdma_qp_init_attr *attr);

/**
 * Move a QP through its state machine
 * (RESET→INIT→RTR→RTS, RTS⇄SQD, SQE→RTS, any→ERR, any→RESET).
 * An illegal transition, a missing required attribute or an attribute the
 * transition does not allow gives -EINVAL and leaves the QP unchanged.
 */
int prdma_qp_modify(struct prdma_qp *qp, const struct prdma_qp_attr *attr,
		    uint32_t attr_mask);

/** Query a QP's attributes and its creation attributes (either may be NULL). */
int prdma_qp_query(struct prdma_qp *qp, struct prdma_qp_attr *attr,
		   struct prdma_qp_init_attr *init_attr);

/**
 * Destroy a QP. Outstanding work requests complete with
 * PRDMA_WC_WR_FLUSH_ERR on the QP's CQs before it returns.
 */
int prdma_qp_destroy(struct prdma_qp *qp);

/**
 * Check a modify request against the QP state machine without touching a QP
 * (what prdma_qp_modify checks first). Returns 0 or -EINVAL.
 */
int prdma_qp_modify_is_ok(enum prdma_qp_type type, enum prdma_qp_state cur,
			  enum prdma_qp_state next, uint32_t attr_mask);

/**
 * True when @p gid is a multicast GID: an IPv6 multicast address (ff00::/8)
 * or an IPv4-mapped IPv4 multicast address (::ffff:224.0.0.0/100).
 */
int prdma_gid_is_multicast(const union prdma_gid *gid);

/**
 * Attach a UD QP to the multicast group @p gid: datagrams sent to the group
 * are delivered to it (and to every other attached QP).
 *
 * @return 0, or -EINVAL (not a UD QP, not a multicast GID), -EEXIST (already
 *   attached), -ENOSPC (the device's max_mcast_grp, max_mcast_qp_attach or
 *   max_total_mcast_qp_attach would be exceeded), -ENOTSUP.
 */
int prdma_qp_attach_mcast(struct prdma_qp *qp, const union prdma_gid *gid);

/** Detach a UD QP from a multicast group (-ENOENT when not attached). */
int prdma_qp_detach_mcast(struct prdma_qp *qp, const union prdma_gid *gid);

/* ------------------------------------------------------------------------ */
/* Asynchronous events                                                       */
/* ------------------------------------------------------------------------ */

/** The IB asynchronous event set. */
enum prdma_event_type {
	PRDMA_EVENT_CQ_ERR = 0,            /**< CQ overrun or CQ access error */
	PRDMA_EVENT_QP_FATAL,              /**< local work queue catastrophic error */
	PRDMA_EVENT_QP_REQ_ERR,            /**< invalid request local WQ error */
	PRDMA_EVENT_QP_ACCESS_ERR,         /**< local access violation WQ error */
	PRDMA_EVENT_COMM_EST,              /**< first receive on a QP in RTR */
	PRDMA_EVENT_SQ_DRAINED,            /**< SQD reached and drained */
	PRDMA_EVENT_PATH_MIG,
	PRDMA_EVENT_PATH_MIG_ERR,
	PRDMA_EVENT_DEVICE_FATAL,          /**< local catastrophic error */
	PRDMA_EVENT_PORT_ACTIVE,
	PRDMA_EVENT_PORT_ERR,              /**< port down */
	PRDMA_EVENT_LID_CHANGE,
	PRDMA_EVENT_PKEY_CHANGE,
	PRDMA_EVENT_SM_CHANGE,
	PRDMA_EVENT_SRQ_ERR,
	PRDMA_EVENT_SRQ_LIMIT_REACHED,
	PRDMA_EVENT_QP_LAST_WQE_REACHED,
	PRDMA_EVENT_CLIENT_REREGISTER,
	PRDMA_EVENT_GID_CHANGE,
	PRDMA_EVENT_MAX
};

/** Name of an event type. */
const char *prdma_event_type_str(enum prdma_event_type type);

struct prdma_async_event {
	enum prdma_event_type type;
	union {
		struct prdma_qp *qp;
		struct prdma_cq *cq;
		struct prdma_srq *srq;
		uint8_t port_num;
	} element;
	uint32_t qp_num;                   /**< QP events: the QP number */
	uint32_t syndrome;                 /**< provider detail, 0 if none */
};

typedef void (*prdma_event_cb_t)(struct prdma_dev *dev,
				 const struct prdma_async_event *event,
				 void *arg);

/**
 * Register a callback called for every asynchronous event of @p dev
 * (from the thread that detects it; the callback must not block).
 * One callback per device; NULL unregisters.
 */
int prdma_event_callback_register(struct prdma_dev *dev, prdma_event_cb_t cb,
				  void *arg);

/**
 * Take the oldest queued event (events are queued whether or not a callback
 * is registered). Returns 1 with @p event filled, 0 when none is queued.
 * Events that found the queue full are counted in prdma_event_lost().
 */
int prdma_event_get(struct prdma_dev *dev, struct prdma_async_event *event);

/** Events dropped because the event queue was full. */
uint64_t prdma_event_lost(struct prdma_dev *dev);

#ifdef __cplusplus
}
#endif

#include <prdma_fp.h>
#include <prdma_counters.h>

#endif /* PRDMA_H */
