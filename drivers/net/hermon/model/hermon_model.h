/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_MODEL_H
#define HERMON_MODEL_H

/**
 * @file
 * A software model of a Hermon device, firmware half.
 *
 * The model owns BAR0- and BAR2-shaped memory regions and a thread that
 * watches them as silicon would: the reset register and the HCR go bit.
 * It executes firmware commands, reading and writing host memory only by
 * IOVA (translated with rte_mem_iova2virt, as a device does by DMA), and
 * keeps its contexts in the ICM pages the driver mapped. The PMD maps these
 * regions through its "model" bus exactly as it maps real BARs.
 *
 * The API below is for that bus and for tests: lookup by name, pause and
 * step, fault injection and a view of the firmware state.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hermon_model;

/** The vendor syndrome (error CQE byte 0x1a) the model writes for @p s. */
#define HERMON_MODEL_VENDOR_SYND(s) ((uint8_t)(0xc0 | ((s) & 0x3f)))

/** EQs the SYS_EQS firmware variant reserves (its QUERY_FUNC rsvd_eqs). */
#define HERMON_MODEL_SYS_RSVD_EQS 20

/** Configuration of a new model. */
struct hermon_model_conf {
	const char *name;          /**< unique; found again by hermon_model_find */
	uint16_t device_id;        /**< PCI device id (0: 0x1003, ConnectX-3) */
	uint8_t ports;             /**< 1 or 2 (0: 1) */
	uint8_t port_type;         /**< SENSE_PORT answer: 1 IB, 2 Ethernet (0: 2) */
	/**
	 * Cable: models created with the same link name and sides 0 and 1
	 * are joined port to port (NULL: no cable; the ports still loop back).
	 */
	const char *link;
	uint8_t side;              /**< 0 or 1 */
	/**
	 * Link types the ports support (QUERY_PORT bits 1:0: 1 IB, 2 Ethernet,
	 * 3 both; 0: 3). SENSE_PORT is answered only when both are supported:
	 * fixed-type firmware refuses it (BAD_PARAM).
	 */
	uint8_t port_types;
	/** The link is down (uncabled): SENSE_PORT answers 0 (none), INIT_PORT
	 * brings no ACTIVE event, QUERY_PORT reports the link down. */
	bool link_down;
	uint8_t log_max_mtts;      /**< QUERY_DEV_CAP log_max_mtts (0: 20) */
	/**
	 * The smallest page the device takes after reset (0: 12, 4 KiB); a
	 * MOD_STAT_CFG page-size override changes it. Contexts whose pages
	 * are smaller are refused.
	 */
	uint8_t log_pg_sz;
	/** QUERY_DEV_CAP log_max_msg (0: 31); a QPC msg_max above it is refused */
	uint8_t log_max_msg;
	/**
	 * QUERY_DEV_CAP num_rsvd_uars (0: 1). The EQ doorbells on those pages
	 * belong to the firmware: SW2HW_EQ refuses an EQ whose doorbell is
	 * there (Linux mlx4_QUERY_DEV_CAP, iPXE hermon_create_eq).
	 */
	uint8_t rsvd_uars;
	/**
	 * F5, "SYS_EQS" firmware (ConnectX-3 Pro): QUERY_DEV_CAP reports this
	 * many system EQs (0: none, the default firmware), QUERY_FUNC answers
	 * (reserved EQs HERMON_MODEL_SYS_RSVD_EQS, 64 EQs, rsvd_uars), and
	 * INIT_HCA is refused unless it carries log_num_eqs 0x1f and this
	 * number; SW2HW_EQ refuses the EQs QUERY_FUNC reserves.
	 */
	uint16_t sys_eqs;
	/**
	 * BlueFlame: DEV_CAP bf = 1 and BAR2 twice the UAR space (half UAR
	 * pages, half BlueFlame registers, as Linux map_bf_area lays it out).
	 */
	bool bf;
	/**
	 * RoCE v2 (ConnectX-3 Pro firmware): QUERY_DEV_CAP reports RoCE
	 * v1/v2 (BMME flags bit 19, Linux MLX4_BMME_FLAG_ROCE_V1_V2), SET_PORT
	 * takes the typed GID table (selector 0xd, Linux
	 * MLX4_SET_PORT_ROCE_ADDR) and the ports take RoCE v2 (IP/UDP 4791)
	 * frames. Off: a ConnectX-3 without it (RoCE v1 only).
	 */
	bool rocev2;
	/** The ports' MAC when set (port 2: last byte + 1); otherwise one
	 * derived from the name. */
	bool has_mac;
	uint8_t mac[6];
	/**
	 * InfiniBand ports' LID (port 2: lid + 1) as a subnet manager would
	 * have assigned it; 0: none. A packet without a GRH (path grh bit or
	 * UD address vector g bit clear) is routed by its DLID alone, so it
	 * reaches nobody without one.
	 */
	uint16_t lid;
	/**
	 * InfiniBand ports come up ACTIVE at INIT_PORT (with the LIDs of
	 * @lid, if set), as if a subnet manager had already run. Otherwise
	 * they stay INIT until an SM moves them, and carry no data packets
	 * before (IBA 7.2: SMPs only).
	 */
	bool sm_active;
	/**
	 * QUERY_DEV_CAP local_ca_ack_delay when set (else 15, what a
	 * ConnectX-3 reports). The CM derives its time-wait from it (4.096 us
	 * x 2^15 = 134 ms per connection at 15): tests that cycle many
	 * connections report less.
	 */
	bool has_ack_delay;
	uint8_t ack_delay;
};

/** ICM tables the model knows once INIT_HCA has told it their bases. */
enum hermon_model_table {
	HERMON_MODEL_QPC,
	HERMON_MODEL_AUXC,
	HERMON_MODEL_ALTC,
	HERMON_MODEL_RDMARC,
	HERMON_MODEL_SRQC,
	HERMON_MODEL_CQC,
	HERMON_MODEL_EQC,
	HERMON_MODEL_DMPT,
	HERMON_MODEL_CMPT,
	HERMON_MODEL_MTT,
	HERMON_MODEL_MCG,
	HERMON_MODEL_TABLE_NB
};

/** What the firmware holds right now (see hermon_model_get_state). */
struct hermon_model_state {
	bool running;                 /**< RUN_FW done */
	bool hca_init;                /**< INIT_HCA done, CLOSE_HCA not yet */
	bool catastrophic;            /**< an internal error was raised */
	bool hung;                    /**< a command timeout fault has fired */
	uint32_t fa_pages;            /**< 4 KiB pages mapped by MAP_FA */
	uint32_t aux_pages;           /**< 4 KiB pages mapped by MAP_ICM_AUX */
	uint64_t icm_size;            /**< SET_ICM_SIZE value */
	uint64_t icm_pages;           /**< 4 KiB ICM pages mapped by MAP_ICM */
	/** ICM pages mapped inside each table (layout of the last INIT_HCA). */
	uint64_t table_pages[HERMON_MODEL_TABLE_NB];
	uint32_t eqs_hw;              /**< EQs in hardware ownership */
	uint32_t ports_up;            /**< bit n-1: port n initialised */
	uint64_t resets;
	uint64_t commands;            /**< commands executed (any status) */
	/** of those, carried out in the poster's thread (hermon_model_hcr_posted) */
	uint64_t commands_at_post;
	/** Interrupts raised (an EQE written to an ARMED EQ; nobody clears them). */
	uint64_t interrupts;
	uint64_t eq_overflows;        /**< EQs overrun without overflow-ignore */
	uint16_t last_opcode;
	uint8_t last_status;
};

/**
 * The embedded SMA (MAD_IFC): the node GUID and port @p port's GUID its
 * NodeInfo/GUIDInfo report, and its PortInfo capability mask before the
 * host's SET_PORT(IB) replaces it.
 */
uint64_t hermon_model_node_guid(struct hermon_model *m);
uint64_t hermon_model_port_guid(struct hermon_model *m, uint8_t port);
#define HERMON_MODEL_DEFAULT_CAP_MASK 0x02500868u

/** Create a model and start its thread (NULL + rte_errno on failure). */
struct hermon_model *hermon_model_create(const struct hermon_model_conf *conf);

/** Drop a reference; the last one stops the thread and frees the model. */
void hermon_model_put(struct hermon_model *m);

/** Find a live model by name and take a reference (NULL if none). */
struct hermon_model *hermon_model_get(const char *name);

/** The memory behind BAR @p bar (0 or 2) and its length. */
void *hermon_model_bar(struct hermon_model *m, unsigned int bar, size_t *len);

/** PCI configuration space access (reads 0xffffffff while in reset). */
int hermon_model_cfg_read32(struct hermon_model *m, uint32_t off, uint32_t *val);
int hermon_model_cfg_write32(struct hermon_model *m, uint32_t off, uint32_t val);
/*
 * F27: a read of the HW semaphore (BAR0 0xf03fc) as a card answers it: 0
 * takes it, then 1 until the next reset; the bus layer calls it for the
 * read (plain BAR memory cannot answer a read). hermon_model_sem_hold()
 * makes it read 1 (a flash update in progress).
 */
uint32_t hermon_model_sem_read32(struct hermon_model *m);
void hermon_model_sem_hold(struct hermon_model *m, bool held);
/* Config-space offsets written since the last reset, in order (count). */
uint32_t hermon_model_cfg_writes(struct hermon_model *m, uint32_t *off, uint32_t max);

/**
 * The driver wrote the HCR go bit (the bus layer calls it: plain BAR
 * memory cannot tell the model). Unless paused, the model carries the
 * command out now, in the caller's thread, and it is complete (or hung,
 * by a fault) on return; the device thread would otherwise find it only
 * at its next poll, after its idle sleep and a wait for a core.
 */
void hermon_model_hcr_posted(struct hermon_model *m);

/** Stop executing commands (the go bit stays set) until resumed or stepped. */
void hermon_model_pause(struct hermon_model *m);
void hermon_model_resume(struct hermon_model *m);
/** While paused: execute the pending command if any; returns 1 if it did. */
int hermon_model_step(struct hermon_model *m);

/**
 * Fault injection. Each fault fires once, on the @p nth (1 = next) command
 * with @p opcode, then disarms. Up to 8 faults may be armed.
 */
int hermon_model_fault_status(struct hermon_model *m, uint16_t opcode,
			      uint8_t status, uint32_t nth);
/** Never clear go for that command (the device hangs until reset). */
int hermon_model_fault_timeout(struct hermon_model *m, uint16_t opcode,
			       uint32_t nth);
/**
 * Raise a local catastrophic error now: fill the error buffer with
 * @p syndrome, post a LOCAL_CATAS event where one is mapped, and stop
 * answering commands until reset.
 */
int hermon_model_fault_catastrophic(struct hermon_model *m, uint32_t syndrome);
/** Disarm every pending fault. */
void hermon_model_fault_clear(struct hermon_model *m);

/** Snapshot of the firmware state. */
int hermon_model_get_state(struct hermon_model *m, struct hermon_model_state *st);

/**
 * Join two models with a cable (or cut it with @p b NULL). Packets from one
 * model's QPs reach the QPs of the model whose GID table holds the
 * destination GID: itself or the other end.
 */
int hermon_model_connect(struct hermon_model *a, struct hermon_model *b);

/** Data-path statistics of the model. */
struct hermon_model_stats {
	uint64_t wqes;             /**< send WQEs executed or flushed */
	uint64_t rnr_naks;         /**< RNR NAKs answered */
	uint64_t timeouts;         /**< transport timeouts (no responder) */
	uint64_t drops;            /**< UD/UC messages dropped at a responder */
	uint64_t mc_filtered;      /**< multicast frames the port's MAC filter dropped (F31) */
	uint64_t bf_exec;          /**< send WQEs taken from a BlueFlame copy */
	uint64_t bf_fallback;      /**< BlueFlame copies ignored (torn): ring read instead */
	uint64_t bf_half[2];       /**< BlueFlame copies seen in the first/second half */
	uint64_t ib_inactive;      /**< IB data packets discarded: a port not ACTIVE */
	uint64_t raw_sent;         /**< frames raw Ethernet QPs sent (F13) */
	uint64_t raw_delivered;    /**< frames steered into a raw QP's receive queue */
	uint64_t raw_unsteered;    /**< frames no steering entry took (dropped) */
	uint64_t raw_dropped;      /**< steered frames whose QP could not take them */
	uint64_t rocev2_rx;        /**< RoCE v2 MADs delivered to a special/UD QP */
	uint64_t rocev2_bad;       /**< malformed RoCE v2 frames (UDP 4791) dropped */
};
int hermon_model_get_stats(struct hermon_model *m, struct hermon_model_stats *st);

/** A RoCE UD datagram's headers as the model's receiving port decodes them. */
struct hermon_model_roce_pkt {
	uint8_t version;           /**< 1 or 2 */
	uint8_t ipv;               /**< RoCE v2: 4 or 6 */
	uint16_t sport;            /**< RoCE v2: UDP source port */
	uint8_t grh[40];           /**< what a receive buffer gets first */
	uint8_t dgid[16];          /**< destination GID (IPv4: ::ffff:a.b.c.d) */
	uint32_t dqpn, sqpn, qkey;
};
/**
 * Decode the @p hlen header bytes (Ethernet through DETH) of a RoCE UD
 * SEND of @p plen payload bytes as a receiving port does: 0, -1 (not a
 * RoCE frame a port takes) or -2 (a malformed RoCE v2 frame).
 */
int hermon_model_roce_decode(const uint8_t *h, uint32_t hlen, uint32_t plen,
			     struct hermon_model_roce_pkt *out);

/**
 * Answer MGID_HASH with bucket @p bucket (masked to the hash size) for every
 * MGID while @p on, so that tests can force groups into one chain; off:
 * the model's own hash (CRC-32C of the MGID, see hermon_model_mcg.c).
 */
int hermon_model_mgid_hash_force(struct hermon_model *m, bool on, uint32_t bucket);

/**
 * Trace of what the driver told the device: every firmware command (with
 * the mailbox fields that matter for the opcode), every UAR doorbell write
 * the device saw and every reset, in the order the device observed them.
 */
enum hermon_model_trace_kind {
	HERMON_MODEL_TRACE_CMD = 1,
	HERMON_MODEL_TRACE_DB,
	HERMON_MODEL_TRACE_RESET,
};

#define HERMON_MODEL_TRACE_FIELDS 4

struct hermon_model_trace_ev {
	uint8_t kind;              /**< enum hermon_model_trace_kind */
	uint8_t op_mod;            /**< CMD */
	uint8_t status;            /**< CMD: the status the device answered */
	uint16_t opcode;           /**< CMD */
	uint32_t in_mod;           /**< CMD */
	uint64_t in_param;         /**< CMD: immediate or input mailbox IOVA */
	uint64_t out_param;        /**< CMD: immediate answer or output mailbox */
	/**
	 * CMD: mailbox fields by opcode (hermon_model_trace.c says which):
	 * INIT_HCA log_num_qp, log_max_uars, log_num_eq, uar_page_sz;
	 * SW2HW_EQ st, log_eq_size; QP transitions st, path link type
	 * (ackto bits 2:0), path smac index, dmac present;
	 * SET_PORT the first two mailbox dwords; MAD_IFC the SMP's class,
	 * method, attribute id and modifier.
	 */
	uint32_t field[HERMON_MODEL_TRACE_FIELDS];
	uint32_t uar_page;         /**< DB: UAR page index in BAR2 */
	uint32_t db_offset;        /**< DB: offset in the page */
	uint32_t db_value;         /**< DB: the dword written (CPU order) */
	uint32_t db_value2;        /**< DB: the next dword (CQ doorbell ci) */
};

/** Start recording (clears the trace); up to @p max_events are kept. */
int hermon_model_trace_start(struct hermon_model *m, uint32_t max_events);
/** Stop recording; the events recorded stay readable. */
void hermon_model_trace_stop(struct hermon_model *m);
/**
 * Copy up to @p max recorded events from index @p first into @p ev;
 * returns how many were copied. *total (if not NULL) gets the number
 * recorded, and *lost the number dropped because the trace was full.
 */
uint32_t hermon_model_trace_read(struct hermon_model *m, uint32_t first,
				 struct hermon_model_trace_ev *ev, uint32_t max,
				 uint32_t *total, uint32_t *lost);

/** Name of a table ("QPC", ...). */
const char *hermon_model_table_name(enum hermon_model_table t);

#ifdef __cplusplus
}
#endif

#endif /* HERMON_MODEL_H */
