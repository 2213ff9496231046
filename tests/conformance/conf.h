/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef CONF_H
#define CONF_H

/*
 * The public-API conformance suite. It uses prdma.h only, so every provider
 * runs it unchanged: PRDMA_CONF_DEVARGS_A and PRDMA_CONF_DEVARGS_B name the
 * two devices (a connected pair: A talks to B).
 *
 * Fixtures are layered: a cmocka group opens both devices and allocates a PD
 * on each (conf_group_setup); every test gets a struct conf_ctx that records
 * what the test creates, so that the teardown releases it even when a check
 * fails half way (cmocka leaves the test with a longjmp).
 *
 * Every check prints what it expected and what it got.
 */

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include <prdma.h>

#include "t_eal.h"

#define CONF_DEVARGS_A_DEFAULT "roce:ring=conf,side=0"
#define CONF_DEVARGS_B_DEFAULT "roce:ring=conf,side=1"

/* Longest wait for anything the devices must do by themselves. */
#define CONF_WAIT_MS 2000
/* How long "nothing arrives" is observed. */
#define CONF_QUIET_MS 50

#define CONF_QKEY 0x11111111u
#define CONF_PSN_A 0x001000u
#define CONF_PSN_B 0x002000u

/* One of the two devices, opened by the group setup. */
struct conf_dev {
	const char *devargs;
	char provider[16];
	int id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_dev_attr attr;
	struct prdma_port_attr port;
	union prdma_gid gid;
};

extern struct conf_dev conf_devs[2];
#define CONF_A (&conf_devs[0])
#define CONF_B (&conf_devs[1])

/* Path MTU both ports support (enum prdma_mtu) and its size in bytes. */
uint8_t conf_path_mtu(void);
uint32_t conf_mtu_bytes(void);

/* What a test created; released in reverse order by the teardown. */
enum conf_obj_kind {
	CONF_OBJ_MEM,
	CONF_OBJ_PD,
	CONF_OBJ_CQ,
	CONF_OBJ_MR,
	CONF_OBJ_MW,
	CONF_OBJ_SRQ,
	CONF_OBJ_AH,
	CONF_OBJ_QP,
	CONF_OBJ_TMPL,
};

#define CONF_MAX_OBJ 64

struct conf_obj {
	enum conf_obj_kind kind;
	void *ptr;
};

struct conf_ctx {
	unsigned int n;
	struct conf_obj obj[CONF_MAX_OBJ];
};

/* cmocka fixtures. */
int conf_group_setup(void **state);
int conf_group_teardown(void **state);
int conf_test_setup(void **state);
int conf_test_teardown(void **state);

/* Stop tracking @p ptr (the test released it itself). */
void conf_forget(struct conf_ctx *ctx, void *ptr);
void conf_track(struct conf_ctx *ctx, enum conf_obj_kind kind, void *ptr);

/* Options of a connected QP pair. */
struct conf_qp_opts {
	enum prdma_qp_type type;
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_sge;
	uint32_t max_inline;
	uint32_t access;                   /* QP access flags (RC/UC) */
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t retry_cnt;
	uint8_t timeout;
	uint8_t sq_sig_all;
	uint32_t cq_depth;
	uint32_t cq_flags;                 /* PRDMA_CQ_F_* of every CQ */
	struct prdma_srq *srq[2];          /* per side, NULL: own RQ */
	struct prdma_pd *pd[2];            /* per side, NULL: the group PD */
};

/* One end of a pair. */
struct conf_side {
	struct conf_dev *d;
	struct prdma_pd *pd;
	struct prdma_cq *scq;
	struct prdma_cq *rcq;
	struct prdma_qp *qp;
	uint32_t psn;                      /* the side's first send PSN */
};

struct conf_pair {
	struct conf_qp_opts o;
	struct conf_side s[2];             /* [0] on A, [1] on B */
};

/* A buffer of DPDK memory and, if access != 0, its MR. */
struct conf_buf {
	uint8_t *p;
	size_t len;
	struct prdma_mr *mr;
};

void conf_opts_default(struct conf_qp_opts *o, enum prdma_qp_type type);
struct prdma_cq *conf_cq(struct conf_ctx *ctx, struct conf_dev *d, uint32_t depth,
			 uint32_t flags);
struct prdma_qp *conf_qp(struct conf_ctx *ctx, struct conf_dev *d,
			 struct prdma_pd *pd, const struct conf_qp_opts *o,
			 struct prdma_cq *scq, struct prdma_cq *rcq,
			 struct prdma_srq *srq);
/* RESET -> INIT -> RTR -> RTS towards (rgid, rqpn). */
void conf_qp_connect(struct prdma_qp *qp, const struct conf_qp_opts *o,
		     const union prdma_gid *rgid, uint32_t rqpn,
		     uint32_t rq_psn, uint32_t sq_psn);
/* Two QPs, one per device, connected to each other (UD: only brought up). */
void conf_pair_make(struct conf_ctx *ctx, struct conf_pair *p,
		    const struct conf_qp_opts *o);
void conf_buf_make(struct conf_ctx *ctx, struct conf_buf *b, struct prdma_pd *pd,
		   size_t len, uint32_t access);
struct prdma_ah *conf_ah(struct conf_ctx *ctx, struct conf_dev *local,
			 struct prdma_pd *pd, const union prdma_gid *dgid);

/* Posting: fail the test unless the post returns 0. */
void conf_post_send(struct prdma_qp *qp, const struct prdma_send_wr *wr,
		    const char *what);
void conf_post_recv(struct prdma_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
		    uint32_t lkey, const char *what);
void conf_post_srq_recv(struct prdma_srq *srq, uint64_t wr_id, void *addr,
			uint32_t len, uint32_t lkey, const char *what);
/* A one-SGE send work request (sge must outlive the post). */
void conf_wr_init(struct prdma_send_wr *wr, struct prdma_sge *sge, uint64_t wr_id,
		  enum prdma_wr_opcode op, void *addr, uint32_t len, uint32_t lkey);

/* Progress: both devices once. */
void conf_progress(void);
uint64_t conf_ms_to_tsc(uint64_t ms);
/* Poll @p cq for one completion, progressing both devices; 1 or 0 on timeout. */
int conf_poll_one(struct prdma_cq *cq, struct prdma_wc *wc, uint64_t ms);
/* Wait for a completion and check wr_id, status and (unless < 0) opcode. */
void conf_expect_wc(struct prdma_cq *cq, struct prdma_wc *wc, const char *what,
		    uint64_t wr_id, enum prdma_wc_status status, int opcode);
/* Progress both devices for @p ms and fail if @p cq produced a completion. */
void conf_expect_no_wc(struct prdma_cq *cq, uint64_t ms, const char *what);
/* Progress both devices for @p ms. */
void conf_spin(uint64_t ms);

/* Check helpers: print the expectation and what happened. */
void conf_check_data(const void *buf, size_t len, uint32_t seed, const char *what);
/* Progress until @p buf holds the pattern (bounded), then check it. */
void conf_wait_data(const void *buf, size_t len, uint32_t seed, const char *what);
void conf_check_bytes(const uint8_t *buf, size_t len, uint8_t val, const char *what);
void conf_check_rc(int got, int expected, const char *what);
void conf_check_qp_state(struct prdma_qp *qp, enum prdma_qp_state exp,
			 const char *what);

#define CONF_EQ(what, exp, got) do { \
	uint64_t e_ = (uint64_t)(exp), g_ = (uint64_t)(got); \
	if (e_ != g_) \
		fail_msg("%s: expected %" PRIu64 " (0x%" PRIx64 "), got %" \
			 PRIu64 " (0x%" PRIx64 ")", (what), e_, e_, g_, g_); \
} while (0)

#define CONF_TRUE(what, cond) do { \
	if (!(cond)) \
		fail_msg("%s: expected %s", (what), #cond); \
} while (0)

/* Skip a test the device says it cannot run (a capability flag). */
#define CONF_REQUIRE_CAP(d, cap) do { \
	if (((d)->attr.flags & (cap)) == 0) { \
		print_message("[ SKIP ] %s: device lacks " #cap "\n", (d)->attr.name); \
		skip(); \
	} \
} while (0)

/* Groups, one per file. Each returns the number of failed tests. */
int conf_group_dev(void);
int conf_group_opcodes(void);
int conf_group_mw(void);
int conf_group_sizes(void);
int conf_group_ucud(void);
int conf_group_srq(void);
int conf_group_rnr(void);
int conf_group_cq(void);
int conf_group_qp_state(void);
int conf_group_errors(void);
int conf_group_events(void);
int conf_group_mr(void);
int conf_group_post(void);
int conf_group_mcast(void);
int conf_group_burst(void);
int conf_group_tmpl(void);

#endif /* CONF_H */
