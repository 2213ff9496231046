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

struct hermon_model {
	TAILQ_ENTRY(hermon_model) next;
	char name[64];
	int refs;
	struct hermon_model_conf conf;

	uint8_t *bar0;
	uint8_t *bar2;
	uint32_t cfg[64];

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
	uint16_t last_opcode;
	uint8_t last_status;
};

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

/* hermon_model_fw.c */
void hm_fw_reset(struct hermon_model *m);
void hm_fw_raise_catas(struct hermon_model *m, uint32_t syndrome);

/* hermon_model_eq.c: post an event to the EQ its type is mapped to. */
void hm_eq_post(struct hermon_model *m, uint8_t type, uint8_t subtype,
		const uint32_t data[6]);

#endif /* HERMON_MODEL_PRIV_H */
