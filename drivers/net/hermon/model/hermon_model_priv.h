/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_MODEL_PRIV_H
#define HERMON_MODEL_PRIV_H

/* Internals of the Hermon model, shared by its files. */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_log.h>

#include "hermon_model.h"
#include "../hermon_prm.h"
#include "../hermon_regs.h"
#include "../hermon_prm_ext.h"

extern int hermon_model_logtype;

#define HM_LOG(level, m, fmt, ...) \
	rte_log(RTE_LOG_ ## level, hermon_model_logtype, \
		"hermon.model %s: " fmt "\n", (m)->name, ##__VA_ARGS__)

/* Where the model keeps the catastrophic-error buffer (BAR0, dwords). */
#define HM_ERROR_BUF_OFFSET  0x80400
#define HM_ERROR_BUF_DWORDS  16
#define HM_UAR_BAR_SIZE      (1u << 20)      /* uar_sz 0: 2^20 bytes */
#define HM_MAX_EQS           64              /* 2^log_max_eq */
#define HM_FW_PAGES          64
#define HM_MAX_FAULTS        8
#define HM_VSD_BOARD_ID      0xd0            /* in the VSD */
#define HM_BOARD_ID          "MT_PRDMA000001"
#define HM_MC_FLTR_MAX       4096            /* multicast MACs a port filters */

/* One MAP_FA / MAP_ICM_AUX / MAP_ICM block. */
struct hm_map {
	uint64_t va;          /* ICM virtual address (MAP_ICM only) */
	uint64_t iova;
	uint64_t size;
};

struct hm_maps {
	struct hm_map *e;
	uint32_t nb;
	uint32_t cap;
	uint64_t pages;
};

struct hm_fault {
	bool armed;
	bool timeout;
	uint16_t opcode;
	uint8_t status;
	uint32_t nth;
};

/* ICM layout given by INIT_HCA. */
struct hm_layout {
	bool valid;
	uint64_t base[HERMON_MODEL_TABLE_NB];
	uint32_t log_num_qp, log_num_srq, log_num_cq, log_num_eq, log_rd;
	uint32_t log_dmpt, log_mc;
	uint32_t log_mc_hash, log_mc_entry;  /* MCG: buckets, entry bytes */
};

/* A decoded command. */
struct hm_cmd {
	uint64_t in_param;
	uint64_t out_param;
	uint32_t in_mod;
	uint16_t opcode;
	uint8_t op_mod;
	bool event;
	uint16_t token;
};

/* Model-private runtime of one QP (what silicon keeps beside the QPC). */
struct hm_qp_rt {
	bool active;                  /* left RESET: scanned by the engine */
	bool comm_est;                /* COMM_EST already raised */
	uint8_t rnr_tries;            /* RNR NAKs taken by the head WQE */
	uint8_t retry_tries;          /* transport timeouts of the head WQE */
	uint64_t wait_until;          /* TSC before which the head WQE waits */
};

struct hm_cq_rt {
	bool hw;                      /* SW2HW_CQ done */
	uint8_t armed;                /* HERMON_CQ_DB_REQ_NOT[_SOL] or 0 */
	uint32_t arm_seen;            /* last arm word taken from the record */
};

struct hm_srq_rt {
	bool hw;
	uint16_t head;                /* next WQE the device takes */
};

/* Per-model object runtime, sized from INIT_HCA's table sizes. */
struct hm_objs {
	uint32_t nqp, ncq, nsrq;
	struct hm_qp_rt *qp;
	struct hm_cq_rt *cq;
	struct hm_srq_rt *srq;
	uint32_t *active;             /* QPNs out of RESET */
	uint32_t nactive;
};

#define HM_QPC_ENTRY 256
#define HM_CQC_ENTRY 64
#define HM_SRQC_ENTRY 64
#define HM_MPT_ENTRY 64
#define HM_MTT_ENTRY 8
#define HM_CQE_SIZE 32
#define HM_RSVD_MTT_ENTRIES 16
#define HM_RSVD_MPTS 16
#define HM_RSVD_QPS 64              /* QUERY_DEV_CAP log2_rsvd_qps 6 */

/*
 * hermon_model_sma.c: the embedded SMA's view of one port (PortInfo,
 * GUIDInfo and PKeyTable as IBA 14.2.5 defines them).
 */
#define HM_SMA_GUIDS 128                    /* PortInfo GUIDCap */
#define HM_SMA_PKEYS 128                    /* NodeInfo PartitionCap */
/* The PortInfo capability mask before SET_PORT: IsTrapSupported,
 * IsAutomaticMigrationSupported, IsSLMappingSupported, IsLEDInfoSupported,
 * bits 20, 22 and IsClientReregistrationSupported; no CM (the host's CM
 * sets that). */
#define HM_SMA_DEFAULT_CAP_MASK HERMON_MODEL_DEFAULT_CAP_MASK
struct hm_sma_port {
	uint64_t mkey, gid_prefix;
	uint16_t lid, sm_lid;
	uint8_t state;                        /* HERMON_IB_PORT_* */
	uint8_t lmc, sm_sl;
	uint32_t cap_mask;
	uint16_t mkey_viol;                   /* PortInfo M_KeyViolations */
	uint16_t notice_count;                /* traps this port issued */
	uint64_t guid[HM_SMA_GUIDS];
	uint16_t pkey[HM_SMA_PKEYS];
};

struct hermon_model {
	TAILQ_ENTRY(hermon_model) next;
	char name[64];
	int refs;
	struct hermon_model_conf conf;

	uint8_t *bar0;
	uint8_t *bar2;
	uint32_t cfg[64];
	/*
	 * F27: the HW semaphore at BAR0 0xf03fc (a read of 0 takes it, the
	 * reset frees it; sem_held: a flash update holds it) and the config
	 * dwords written since the last reset, in order.
	 */
	bool sem_taken, sem_held;
	uint32_t cfg_log[128];
	uint32_t cfg_log_n;

	pthread_t thread;
	pthread_mutex_t lock;        /* state below, against API callers */
	pthread_cond_t cond;
	bool stop;
	bool paused;
	bool in_reset;

	/* firmware state */
	bool running;
	bool hca_init;
	bool catas;
	bool hung;
	struct hm_maps fa;
	struct hm_maps aux;
	struct hm_maps icm;
	uint64_t icm_size;
	uint64_t aux_needed;
	struct hm_layout layout;
	uint32_t ports_up;
	uint64_t eq_hw;                       /* bit per EQ in HW ownership */
	uint64_t eq_mask[HM_MAX_EQS];         /* MAP_EQ event routes */
	struct hm_fault fault[HM_MAX_FAULTS];

	uint64_t resets;
	uint64_t commands;
	uint64_t commands_at_post;            /* by hermon_model_hcr_posted */
	uint64_t interrupts;                  /* raised by armed EQs */
	uint32_t log_pg_sz;                   /* smallest page (MOD_STAT_CFG) */
	uint64_t eq_overflows;                /* EQs that overran without oi */
	uint16_t last_opcode;
	uint8_t last_status;

	/* execution half */
	struct hm_objs obj;
	struct hermon_model *peer;            /* the other end of the cable */
	char link[32];                        /* cable name, "" if none */
	uint8_t side;
	uint8_t mac[2][6];
	uint8_t gid[2][HERMON_GID_TABLE_LEN][16];
	bool gid_v2[2][HERMON_GID_TABLE_LEN];  /* RoCE v2 entry (SET_PORT 0xd) */
	bool mac_valid[2][HERMON_MAC_TABLE_LEN];  /* SET_PORT MAC table */
	/*
	 * F31: each Ethernet port's multicast MAC filter (SET_MCAST_FLTR).
	 * It starts on and empty: a port takes no multicast MAC nobody
	 * registered; "off" (mode DISABLE) takes every one.
	 */
	struct {
		bool off;
		uint32_t n;
		uint64_t mac[HM_MC_FLTR_MAX];
	} mc_fltr[2];
	uint64_t mc_filtered;                 /* multicast frames the filter dropped */
	uint16_t port_mtu[2];                     /* SET_PORT general */
	uint8_t ib_port_set;      /* bit p-1: IB port p has MTU/VL caps (F29) */
	uint64_t exec_work;                   /* WQEs and flushes done */
	uint64_t rnr_naks, timeouts, drops;
	uint64_t bf_exec, bf_fallback, bf_half[2];  /* BlueFlame copies */
	/* hermon_model_trace.c */
	struct hermon_model_trace_ev *trace;
	uint32_t trace_cap, trace_n, trace_lost;
	bool trace_on;
	uint32_t trace_eq_db[HM_MAX_EQS];
	bool mgid_hash_forced;                /* hermon_model_mgid_hash_force */
	/* hermon_model_sqp.c: CONF_SPECIAL_QP */
	bool sqp_conf;                        /* a special-QP block is set */
	uint32_t sqp_base;                    /* its first QPN */
	uint64_t sqp_drops;                   /* special-QP frames nobody took */
	uint64_t sqp_ib_sent;                 /* LRH-framed MADs delivered */
	uint64_t rocev2_rx;                   /* RoCE v2 MADs delivered */
	uint64_t rocev2_bad;                  /* malformed RoCE v2 frames dropped */
	uint64_t ib_inactive_drops;           /* data on an IB port not ACTIVE */
	uint32_t mgid_hash_value;
	struct hm_sma_port sma[2];            /* hermon_model_sma.c */
	/* hermon_model_raw.c: raw Ethernet frames and A0 steering (F13) */
	struct {
		bool valid;                   /* SET_PORT RQP_CALC done */
		bool promisc, mcast_default;
		uint32_t base_qpn;
	} rqp[2];
	uint64_t raw_sent, raw_delivered, raw_unsteered, raw_dropped;
};

/* BAR2: the UAR pages, then as much again of BlueFlame registers. */
static inline size_t
hm_bar2_len(const struct hermon_model *m)
{
	return (size_t)HM_UAR_BAR_SIZE << (m->conf.bf ? 1 : 0);
}

/* BlueFlame: 8 registers of 512 B (two 256 B halves) per page. */
#define HM_LOG_BF_REGS 3
#define HM_BF_REG_SIZE 512u

/* log2 of the UAR pages (QUERY_DEV_CAP uar_sz 0: 2^20 bytes of 4 KiB). */
#define HM_LOG_UARS 8

/* Every QP/CQ/SRQ/MPT command and every data-path step runs under it. */
void hm_wire_lock(void);
void hm_wire_unlock(void);

/* hermon_model_dma.c: host memory by IOVA, ICM by ICM address. */
void *hm_dma_ptr(rte_iova_t iova, size_t len);
void *hm_icm_ptr(struct hermon_model *m, uint64_t icm_va, size_t len);
int hm_maps_add(struct hm_maps *maps, uint64_t va, uint64_t iova, uint64_t size);
void hm_maps_clear(struct hm_maps *maps);
int hm_parse_map_mbox(struct hermon_model *m, const struct hm_cmd *c,
		      struct hm_maps *maps, bool with_va);

/* hermon_model_cmd.c */
void hm_cmd_poll(struct hermon_model *m);

/* Command handlers: return a PRM status. */
uint8_t hm_fw_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled);
uint8_t hm_icm_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled);
uint8_t hm_eq_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled);

/* hermon_model_mcg.c: the multicast group table. */
#define HM_MCG_LOG_ENTRY_MAX 10              /* 1 KiB entries: 248 QPs */
#define HM_MCG_MAX_QPS (((1u << HM_MCG_LOG_ENTRY_MAX) - 32) / 4)
uint8_t hm_mcg_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled);
/* The QPNs (up to @max) of the group @gid in @m's table; 0 if none. */
/* F31: port @port (0-based) takes multicast frames to @mac. */
bool hm_mc_fltr_pass(const struct hermon_model *m, uint32_t port, const uint8_t mac[6]);
uint32_t hm_mcg_members(struct hermon_model *m, const uint8_t gid[16], uint32_t *qpn,
			uint32_t max);

/* hermon_model_sqp.c: CONF_SPECIAL_QP. */
uint8_t hm_sqp_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled);
/* May QP @qpn be of service type @st (MLX only in the special block)? */
bool hm_sqp_type_ok(const struct hermon_model *m, uint32_t qpn, uint32_t st);

/* hermon_model_raw.c: may QP @qpn with context @ctx be a raw Ethernet QP
 * (MLX, MTU code 7, outside the special block, on an Ethernet device)? */
bool hm_raw_type_ok(const struct hermon_model *m, uint32_t qpn,
		    const struct hermon_prm_queue_pair_ee_context_entry *ctx);
/* SET_PORT(Ethernet, RQP_CALC) of port @port: the port's A0 steering. */
uint8_t hm_raw_rqp_calc(struct hermon_model *m, uint32_t port, uint64_t in_param);

/* hermon_model_sma.c: MAD_IFC and the embedded SMA. */
uint8_t hm_sma_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled);
void hm_sma_reset(struct hermon_model *m);
/* INIT_PORT / CLOSE_PORT of an IB port: PortInfo INIT (or DOWN). */
void hm_sma_port_init(struct hermon_model *m, uint8_t port);
void hm_sma_port_close(struct hermon_model *m, uint8_t port);
/* SET_PORT(IB) dword 1 */
void hm_sma_set_caps(struct hermon_model *m, uint8_t port, uint32_t cap_mask);
bool hm_sma_port_active(const struct hermon_model *m, uint8_t port);
uint16_t hm_sma_lid(const struct hermon_model *m, uint8_t port);
uint64_t hm_sma_node_guid(const struct hermon_model *m);
uint64_t hm_sma_port_guid(const struct hermon_model *m, uint8_t port);

/* hermon_model_fw.c */
void hm_fw_reset(struct hermon_model *m);
void hm_fw_raise_catas(struct hermon_model *m, uint32_t syndrome);

/* hermon_model_obj.c: MPT, CQ, SRQ, QP and port commands. */
uint8_t hm_obj_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled);
void hm_obj_free(struct hermon_model *m);
struct hermon_prm_queue_pair_ee_context_entry *hm_qpc(struct hermon_model *m,
						       uint32_t qpn);
struct hermon_prm_completion_queue_context *hm_cqc(struct hermon_model *m,
						    uint32_t cqn);
struct hermon_prm_srq_context *hm_srqc(struct hermon_model *m, uint32_t srqn);
struct hermon_prm_mpt *hm_mpt(struct hermon_model *m, uint32_t index);
/* Host pointer of byte @off of a queue mapped by an MTT run. */
void *hm_queue_ptr(struct hermon_model *m, uint64_t mtt_addr, uint32_t log2_pg,
		   uint64_t off, size_t len);

/* hermon_model_mem.c: keys, translation, copies. */
struct hm_seg {
	uint64_t addr;
	uint32_t len;
	uint32_t key;
	const uint8_t *direct;        /* inline data: no key, no translation */
};
#define HM_ACC_LR  RTE_BIT32(0)
#define HM_ACC_LW  RTE_BIT32(1)
#define HM_ACC_RR  RTE_BIT32(2)
#define HM_ACC_RW  RTE_BIT32(3)
#define HM_ACC_AT  RTE_BIT32(4)
/* 0 when @key may access [addr, addr+len) with @acc from PD @pd (QP @qpn). */
int hm_key_check(struct hermon_model *m, uint32_t key, uint32_t pd, uint64_t addr,
		 uint64_t len, uint32_t acc, uint32_t qpn);
/* Host pointer for up to *len bytes at @addr through @key (checked before). */
void *hm_xlate(struct hermon_model *m, uint32_t key, uint64_t addr, uint32_t *len);
/* Copy @len bytes from segments of @sm to segments of @dm. */
int hm_copy(struct hermon_model *dm, const struct hm_seg *dst, uint32_t nd,
	    struct hermon_model *sm, const struct hm_seg *src, uint32_t ns,
	    uint32_t len);

/* hermon_model_cq.c: CQE writing, arming, completion events. */
void hm_cq_push(struct hermon_model *m, uint32_t cqn,
		struct hermon_prm_completion_queue_entry *cqe, bool solicited);

/* hermon_model_exec.c: the send and receive engines. */
unsigned int hm_exec_poll(struct hermon_model *m);

/* hermon_model_link.c: cables between models. */
void hm_link_attach(struct hermon_model *m);
void hm_link_detach(struct hermon_model *m);
/* The model (m itself or its peer) whose port owns @gid; *port set. */
/* IB, no GRH: the port (this model's or the peer's) whose LID is @dlid. */
struct hermon_model *hm_route_lid(struct hermon_model *m, uint16_t dlid, uint8_t *port);
struct hermon_model *hm_route(struct hermon_model *m, const uint8_t gid[16],
			      uint8_t *port);

/* hermon_model_trace.c: the record of commands, doorbells and resets. */
void hm_trace_cmd(struct hermon_model *m, const struct hm_cmd *c, uint64_t out_param,
		  uint8_t status);
void hm_trace_reset(struct hermon_model *m);
void hm_trace_poll_uar(struct hermon_model *m);
void hm_trace_free(struct hermon_model *m);

/* hermon_model_eq.c: post an event to the EQ its type is mapped to. */
void hm_eq_post(struct hermon_model *m, uint8_t type, uint8_t subtype,
		const uint32_t data[6]);

#endif /* HERMON_MODEL_PRIV_H */
