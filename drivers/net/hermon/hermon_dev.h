/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_DEV_H
#define HERMON_DEV_H

/* The Hermon PMD's device: bus, command engine, firmware, ICM, EQ, ports. */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "prdma_provider.h"
#include "hermon_args.h"
#include "hermon_bus.h"
#include "hermon_cmd.h"
#include "hermon_dma.h"

#define HERMON_MAX_PORTS 2

/* What QUERY_FW said. */
struct hermon_fw_info {
	uint16_t major, minor, subminor;
	uint16_t fw_pages;
	uint16_t cmd_if_rev;
	uint64_t error_buf_offset;
	uint32_t error_buf_size;         /**< dwords */
	uint8_t error_buf_bar;
};

/* What QUERY_DEV_CAP and QUERY_ADAPTER said. */
struct hermon_caps {
	uint8_t log_max_qp, log2_rsvd_qps, log_max_qp_sz;
	uint8_t log_max_srqs, log2_rsvd_srqs, log_max_srq_sz;
	uint8_t log_max_cq, log2_rsvd_cqs, log_max_cq_sz;
	uint8_t log_max_eq, log_max_eq_sz;
	uint32_t rsvd_eqs;
	uint16_t num_sys_eqs;            /* F5: != 0 on SYS_EQS firmware */
	uint8_t log_max_mpts, log2_rsvd_mrws, log_max_mrw_sz;
	uint8_t log_max_mtts, log2_rsvd_mtts;
	uint8_t log_max_ra_res_qp, log_max_ra_req_qp, log_max_ra_res_global;
	uint8_t num_ports, local_ca_ack_delay;
	uint8_t log_max_gid, log_max_msg, log_max_pkey;
	uint8_t log_max_mcg, log_max_qp_mcg, log_max_pd, num_rsvd_pds;
	uint8_t num_rsvd_mcgs;
	uint8_t uar_sz, num_rsvd_uars;
	bool bf;                         /**< BlueFlame registers in BAR2's upper part */
	bool roce_v1_v2;                 /**< RoCE v1 and v2 (BMME bit 19, CX-3 Pro) */
	uint8_t log_bf_reg_size, log_max_bf_regs_per_page;
	uint16_t max_desc_sz_sq, max_desc_sz_rq;
	uint8_t max_sg_sq, max_sg_rq;
	bool rc, uc, ud, srq, atomic, mw;
	uint16_t qpc_entry_sz, rdmarc_entry_sz, altc_entry_sz, aux_entry_sz;
	uint16_t cqc_entry_sz, eqc_entry_sz, cmpt_entry_sz, srq_entry_sz;
	uint16_t dmpt_entry_sz, mtt_entry_sz;
	uint32_t resd_lkey;
	uint64_t max_icm_size;
	char board_id[32];               /**< from QUERY_ADAPTER's VSD */
};

enum hermon_icm_id {
	HERMON_ICM_CMPT_QP,
	HERMON_ICM_CMPT_SRQ,
	HERMON_ICM_CMPT_CQ,
	HERMON_ICM_CMPT_EQ,
	HERMON_ICM_QPC,
	HERMON_ICM_AUXC,
	HERMON_ICM_ALTC,
	HERMON_ICM_RDMARC,
	HERMON_ICM_SRQC,
	HERMON_ICM_CQC,
	HERMON_ICM_EQC,
	HERMON_ICM_DMPT,
	HERMON_ICM_MTT,
	HERMON_ICM_MCG,
	HERMON_ICM_NB
};

struct hermon_icm_table {
	const char *name;
	uint64_t va;                     /**< ICM virtual address */
	uint64_t size;                   /**< bytes backed by host memory */
	uint64_t mapped_len;             /**< bytes MAP_ICM accepted */
	uint32_t log_num;
	uint32_t entry_sz;
	struct hermon_dma mem;
	bool mapped;
};

struct hermon_icm {
	struct hermon_icm_table t[HERMON_ICM_NB];
	uint64_t total;                  /**< ICM address space (SET_ICM_SIZE) */
	uint64_t aux_pages;
	struct hermon_dma aux;
	bool aux_mapped;
	uint32_t log_rd_per_qp;
};

struct hermon_eq {
	uint32_t eqn;
	uint32_t log_size;
	uint32_t ci;
	uint32_t mtt_index;
	uint64_t mask;
	struct hermon_dma buf;
	bool hw;                         /**< SW2HW_EQ done */
	bool mapped;                     /**< MAP_EQ done */
};

struct hermon_port {
	uint32_t type;                   /**< SENSE_PORT: 1 IB, 2 Ethernet */
	uint8_t mac[6];                  /**< QUERY_PORT */
	uint8_t supported;               /**< QUERY_PORT: bit 0 IB, bit 1 Ethernet */
	bool link_up;                    /**< QUERY_PORT link state at probe */
	bool gid_set;                    /**< GID 0 known (SET_PORT on Ethernet) */
	uint8_t gid[16];                 /**< GID table entry 0 */
	bool ip_gid_set;                 /**< entry 1: ::ffff:<ip=> */
	uint8_t ip_gid[16];
	bool ip6_gid_set;                /**< entry 2 (v1/v2: 4 and 5): ip6= */
	/**
	 * A RoCE v1/v2 device's typed table: entries 0 and 1 are RoCE v2
	 * (what the CM finds first, as Linux rdma_cm prefers v2), 2 and 3
	 * the same addresses as RoCE v1.
	 */
	bool roce_v2;
	uint8_t state;                   /**< enum prdma_port_state */
	bool up;                         /**< INIT_PORT done */
	/** IB: P_Key table block 0, kept by the SMP agent (hermon_sma.c) */
	bool pkey_set;
	uint16_t pkey[32];
};

/* An index allocator: one bit per object (control path). */
struct hermon_bitmap {
	uint64_t *bits;
	uint32_t n;                      /**< indices [first, n) */
	uint32_t first;                  /**< reserved below it */
	uint32_t next;                   /**< next-fit cursor: late reuse */
};

struct hermon_qp;
struct hermon_cq;
struct hermon_srq;
struct hermon_mcast;
struct hermon_sma;
struct hermon_arp;

/* What the SMP agent of one IB port did (hermon_sma.c). */
struct hermon_sma_stats {
	uint64_t received;               /**< SMPs QP0 received */
	uint64_t answered;               /**< responses sent back on QP0 */
	uint64_t dr_dropped;             /**< DR SMPs failing IBA 14.2.2.2 checks */
	uint64_t dropped;                /**< other drops: class, method, MAD_IFC refusal */
	uint64_t traps;                  /**< the SMA's traps forwarded to the SM */
	uint64_t sminfo;                 /**< SMInfo answered "unsupported" (no SM here) */
	uint64_t events;                 /**< port events raised by snooping SubnSets */
};

#define HERMON_NEIGH_MAX     32  /**< neighbour cache entries (static ones included) */
#define HERMON_NEIGH_PENDING 16  /**< resolutions in flight */

/* The PMD's own counters (hermon_stats.c). */
struct hermon_stats {
	uint64_t l2_unresolved;          /**< AHs/paths refused: no MAC for the GID */
};

struct hermon_dev {
	struct prdma_dev *pdev;
	struct hermon_args args;
	struct hermon_bus bus;
	struct hermon_cmd cmd;
	struct hermon_fw_info fw;
	struct hermon_dma fw_area;
	bool fa_mapped;
	bool fw_running;
	struct hermon_caps caps;
	struct hermon_icm icm;
	bool hca_init;
	struct hermon_eq eq;
	struct hermon_port port[HERMON_MAX_PORTS];
	struct {
		uint64_t l2_unresolved;  /**< atomic: see struct hermon_stats */
		uint64_t unresolved_logged; /**< timer cycles of the last NOTICE | 1 */
	} stats;
	uint64_t node_guid;              /**< NodeInfo (MAD_IFC), host order */
	uint64_t sys_image_guid;         /**< NodeInfo (MAD_IFC), host order */
	bool fatal;
	uint32_t catas_syndrome;
	pthread_mutex_t ev_lock;         /**< EQ polling: progress vs queries */

	/* objects (part 2) */
	struct hermon_bitmap pds, mpts, cqs, srqs, qps;
	uint64_t *mtt_bits;              /**< one bit per MTT entry */
	uint32_t mtt_n;
	uint8_t *mpt_key;                /**< rotating key byte per dMPT index */
	uint8_t *mpt_dma;                /**< dMPT index holds a DMA MR */
	struct hermon_qp **qp_table;     /**< by QPN (guarded by ev_lock) */
	uint32_t sqp_base;               /**< CONF_SPECIAL_QP block, 0: none */
	struct hermon_qp *gsi[2];        /**< each port's GSI QP (QP1) */
	struct hermon_qp *smi[2];        /**< each port's SMI QP (QP0) */
	struct hermon_cq **cq_table;
	struct hermon_srq **srq_table;
	uint8_t *uar;                    /**< the UAR page of QPs and CQs */
	uint32_t uar_idx;                /**< its index (QPC/CQC usr_page) */
	uint32_t log_uars;               /**< INIT_HCA log_max_uars */
	uint8_t *bf_page;                /**< the BlueFlame page of uar_idx, or NULL */
	uint32_t bf_reg_size;            /**< bytes of one register (two halves) */
	uint32_t bf_nregs;               /**< registers in bf_page (<= 32) */
	uint32_t bf_used;                /**< allocated registers, one bit each */
	bool iova_is_va;                 /**< DMA MR addresses need no translation */
	struct hermon_mcast *mcast;      /**< multicast groups (hermon_mcast.c) */
	/** F13: the library's neighbour cache over these tables (hermon_l2.c) */
	struct prdma_neigh_cache neigh;
	struct prdma_neigh_entry neigh_ent[HERMON_NEIGH_MAX];
	struct prdma_neigh_req neigh_req[HERMON_NEIGH_PENDING];
	/* the SMP agent (hermon_sma.c): per IB port, polled by its thread */
	struct hermon_sma *sma[HERMON_MAX_PORTS];
	pthread_mutex_t sma_lock;        /**< the agents vs. their thread */
	pthread_t sma_thread;
	bool sma_thread_on;
	volatile bool sma_quit;
	bool sma_closing;                /**< teardown: no agent restarts */
	/* F13: the ARP agents (hermon_arp.c): per Ethernet port, polled by
	 * their thread; the lock also serialises the solicit()s' sends */
	struct hermon_arp *arp[HERMON_MAX_PORTS];
	pthread_mutex_t arp_lock;
	pthread_t arp_thread;
	bool arp_thread_on;
	volatile bool arp_quit;
};

/* hermon_fw.c */
int hermon_fw_reset(struct hermon_dev *hd);
int hermon_fw_start(struct hermon_dev *hd);
void hermon_fw_stop(struct hermon_dev *hd);
int hermon_fw_query_caps(struct hermon_dev *hd);
int hermon_fw_query_adapter(struct hermon_dev *hd);
/* Read the catastrophic-error buffer; true (and logged, raised) if set. */
bool hermon_fw_check_catas(struct hermon_dev *hd);

/* hermon_icm.c */
int hermon_icm_map(struct hermon_dev *hd);
void hermon_icm_unmap(struct hermon_dev *hd);
int hermon_icm_init_hca(struct hermon_dev *hd);
void hermon_icm_close_hca(struct hermon_dev *hd);
/* Map [va, va+len) at IOVA @pa with @fn, split in naturally aligned blocks. */
int hermon_icm_map_range(struct hermon_cmd *cmd,
			 int (*fn)(struct hermon_cmd *, const struct hermon_map_mbox *,
				   uint32_t),
			 uint64_t va, rte_iova_t pa, uint64_t len, bool with_va,
			 uint64_t *done);

/* hermon_eq.c */
int hermon_eq_create(struct hermon_dev *hd);
void hermon_eq_destroy(struct hermon_dev *hd);
/* Consume pending events; returns the number handled. */
int hermon_eq_poll(struct hermon_dev *hd);

/* hermon_dev.c */
int hermon_ports_init(struct hermon_dev *hd);
/* hermon_port.c: QUERY_PORT, then the link type (sensed only if VPI). */
int hermon_port_type(struct hermon_dev *hd, uint8_t port);
/* hermon_port.c: an Ethernet port's MAC table and MTU, before INIT_PORT. */
int hermon_port_eth_setup(struct hermon_dev *hd, uint8_t port);
int hermon_port_ib_setup(struct hermon_dev *hd, uint8_t port);
void hermon_ports_close(struct hermon_dev *hd);
/* hermon_sma.c: the agent's counters for @port; -ENOENT when it is not running. */
int hermon_sma_get_stats(struct hermon_dev *hd, uint8_t port, struct hermon_sma_stats *st);

/* hermon_stats.c: the PMD's counters; a path with no MAC counted there. */
struct rte_tel_data;
int hermon_stats_get(struct hermon_dev *hd, struct hermon_stats *st);
void hermon_stats_unresolved(struct hermon_dev *hd, const char *addr);
/* telemetry /hermon/stats,<dev_id> */
int hermon_stats_telemetry(const char *cmd, const char *params, struct rte_tel_data *d);

#endif /* HERMON_DEV_H */
