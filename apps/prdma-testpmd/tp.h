/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef TP_H
#define TP_H

/*
 * prdma-testpmd: an interactive (and batch) tool in the manner of DPDK's
 * testpmd. Objects the user creates live in tables and are named by their
 * index ("pd 0", "qp 3"); devices by their prdma device id.
 */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>

#include <prdma.h>

#define TP_MAX_OBJ 64
/* Every QP gets a buffer (and MR) the forwarding engines move data with. */
#define TP_QP_BUF_LEN 65536u

/* Output: one line each; errors start with "Error: " so scripts find them. */
void tp_out(const char *fmt, ...) __rte_format_printf(1, 2);
void tp_err(const char *fmt, ...) __rte_format_printf(1, 2);
/* Error line for a failed call returning a negative errno. */
void tp_err_errno(int ret, const char *fmt, ...) __rte_format_printf(2, 3);

struct tp_dev {
	int used;
	struct prdma_dev *dev;
	char devargs[256];
};

struct tp_pd {
	int used;
	uint16_t dev;
	struct prdma_pd *pd;
};

struct tp_mr {
	int used;
	uint32_t pd;
	struct prdma_mr *mr;
	void *buf;
	size_t len;
};

struct tp_cq {
	int used;
	uint16_t dev;
	struct prdma_cq *cq;
};

struct tp_srq {
	int used;
	uint32_t pd;
	struct prdma_srq *srq;
};

struct tp_qp {
	int used;
	uint16_t dev;
	uint32_t pd;
	uint32_t scq, rcq;
	int srq;                     /* -1: none */
	struct prdma_qp *qp;
	uint8_t *buf;                /* TP_QP_BUF_LEN, the engines' data */
	struct prdma_mr *mr;
	/* The connected peer: a QP of this process, or a remote one. */
	int peer;                    /* local QP index, -1 if remote or none */
	uint64_t peer_addr;
	uint32_t peer_rkey;
	uint32_t peer_qpn;
	union prdma_gid peer_gid;
	struct prdma_cm_id *cm_id;   /* connected through the CM */
	int auto_objs;               /* PD and CQs were made for it (CM) */
	int in_fwd;
};

struct tp_state {
	pthread_mutex_t lock;        /* tables vs the CM thread */
	struct tp_dev devs[PRDMA_MAX_DEVS];
	struct tp_pd pds[TP_MAX_OBJ];
	struct tp_mr mrs[TP_MAX_OBJ];
	struct tp_cq cqs[TP_MAX_OBJ];
	struct tp_srq srqs[TP_MAX_OBJ];
	struct tp_qp qps[TP_MAX_OBJ];
	volatile int quit;
};

extern struct tp_state tp;

/* Lookups: NULL and an error line naming the id when it does not exist. */
struct tp_dev *tp_dev_get(uint32_t id);
struct tp_pd *tp_pd_get(uint32_t id);
struct tp_mr *tp_mr_get(uint32_t id);
struct tp_cq *tp_cq_get(uint32_t id);
struct tp_srq *tp_srq_get(uint32_t id);
struct tp_qp *tp_qp_get(uint32_t id);
/* The QP of device @p dev with number @p qpn, or -1. */
int tp_qp_find(uint16_t dev, uint32_t qpn);

/* A free entry of a table (its index), or -ENOSPC after the error line
 * "<what> table full"; TP_SLOT(qps, "QP") for one of tp's tables. */
int tp_free_slot(const void *table, size_t entry_size, size_t n, const char *what);
#define TP_SLOT(arr, what) tp_free_slot(tp.arr, sizeof(tp.arr[0]), RTE_DIM(tp.arr), what)

int tp_pd_create(uint16_t dev);
int tp_cq_create(uint16_t dev, uint32_t depth);
int tp_qp_create(uint32_t pd, enum prdma_qp_type type, uint32_t scq, uint32_t rcq,
		 uint32_t sq_depth, uint32_t rq_depth, int srq);
int tp_qp_destroy(uint32_t id);
int tp_pd_destroy(uint32_t id);
int tp_cq_destroy(uint32_t id);
int tp_srq_destroy(uint32_t id);
/* Move QP @p id to RTS toward @p peer (a QP of this process). */
int tp_qp_connect(uint32_t id, uint32_t peer);
int tp_qp_modify_state(uint32_t id, enum prdma_qp_state st);
/* Destroy everything (quit). */
void tp_objs_cleanup(void);

/* Parse "0x1f" or "31"; -EINVAL on junk. */
int tp_parse_u32(const char *s, uint32_t *v);

/* Connection manager (tp_cm.c). */
int tp_cm_listen(uint16_t dev, const char *ip, uint16_t port);
int tp_cm_connect(uint16_t dev, const char *ip, uint16_t port);
int tp_cm_disconnect(uint32_t qp);
void tp_cm_show(void);
void tp_cm_stop(void);

/* Forwarding (tp_fwd.c). */
int tp_fwd_start(const char *engine, const char *qps);
int tp_fwd_stop(void);
void tp_fwd_show_stats(void);
int tp_fwd_set_size(uint32_t size);
int tp_fwd_set_depth(uint32_t depth);
int tp_fwd_running(void);
void tp_fwd_engines_list(char *buf, size_t len);

/* Fault injection (tp_fault.c). */
int tp_fault_set(uint16_t dev, const char *dir, const char *kind, uint32_t ppm);
int tp_fault_clear(uint16_t dev);

/* Command families: NULL-terminated instruction lists (cmdline_*.c). */
extern cmdline_parse_inst_t *tp_cmds_dev[];
extern cmdline_parse_inst_t *tp_cmds_obj[];
extern cmdline_parse_inst_t *tp_cmds_cm[];
extern cmdline_parse_inst_t *tp_cmds_fwd[];
extern cmdline_parse_inst_t *tp_cmds_show[];
extern cmdline_parse_inst_t *tp_cmds_misc[];

/* The whole context (main.c), and the help of the command a line starts with. */
extern cmdline_parse_ctx_t *tp_ctx;
void tp_help_for_line(const char *line);

#endif /* TP_H */
