/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Forwarding and fault commands. */

#include <string.h>

#include "tp.h"

/* start fwd <engine> <qp,qp,...> */
struct cmd_start_fwd_result {
	cmdline_fixed_string_t start;
	cmdline_fixed_string_t fwd;
	cmdline_fixed_string_t engine;
	cmdline_fixed_string_t qps;
};

static cmdline_parse_token_string_t cmd_start_fwd_start =
	TOKEN_STRING_INITIALIZER(struct cmd_start_fwd_result, start, "start");
static cmdline_parse_token_string_t cmd_start_fwd_fwd =
	TOKEN_STRING_INITIALIZER(struct cmd_start_fwd_result, fwd, "fwd");
static cmdline_parse_token_string_t cmd_start_fwd_engine =
	TOKEN_STRING_INITIALIZER(struct cmd_start_fwd_result, engine, NULL);
static cmdline_parse_token_string_t cmd_start_fwd_qps =
	TOKEN_STRING_INITIALIZER(struct cmd_start_fwd_result, qps, NULL);

static void
cmd_start_fwd_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_start_fwd_result *r = parsed;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	tp_fwd_start(r->engine, r->qps);
}

static cmdline_parse_inst_t cmd_start_fwd = {
	.f = cmd_start_fwd_parsed,
	.help_str = "start fwd <pingpong|write_bw|read_bw|send_bw|echo|rxonly> <qp[,qp...]>: "
		    "one stream per QP on the worker lcores",
	.tokens = { (void *)&cmd_start_fwd_start, (void *)&cmd_start_fwd_fwd,
		    (void *)&cmd_start_fwd_engine, (void *)&cmd_start_fwd_qps, NULL },
};

/* stop */
struct cmd_stop_result {
	cmdline_fixed_string_t stop;
};

static cmdline_parse_token_string_t cmd_stop_stop =
	TOKEN_STRING_INITIALIZER(struct cmd_stop_result, stop, "stop");

static void
cmd_stop_parsed(void *parsed, struct cmdline *cl, void *data)
{
	RTE_SET_USED(parsed);
	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	tp_fwd_stop();
}

static cmdline_parse_inst_t cmd_stop = {
	.f = cmd_stop_parsed,
	.help_str = "stop: stop forwarding and print the statistics",
	.tokens = { (void *)&cmd_stop_stop, NULL },
};

/* show fwd stats */
struct cmd_show_fwd_result {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t fwd;
	cmdline_fixed_string_t stats;
};

static cmdline_parse_token_string_t cmd_show_fwd_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_fwd_result, show, "show");
static cmdline_parse_token_string_t cmd_show_fwd_fwd =
	TOKEN_STRING_INITIALIZER(struct cmd_show_fwd_result, fwd, "fwd");
static cmdline_parse_token_string_t cmd_show_fwd_stats =
	TOKEN_STRING_INITIALIZER(struct cmd_show_fwd_result, stats, "stats");

static void
cmd_show_fwd_parsed(void *parsed, struct cmdline *cl, void *data)
{
	RTE_SET_USED(parsed);
	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	tp_fwd_show_stats();
}

static cmdline_parse_inst_t cmd_show_fwd = {
	.f = cmd_show_fwd_parsed,
	.help_str = "show fwd stats: ops, bytes, rate since the last look, latency p50/p99",
	.tokens = { (void *)&cmd_show_fwd_show, (void *)&cmd_show_fwd_fwd,
		    (void *)&cmd_show_fwd_stats, NULL },
};

/* set fwd size|depth <n> */
struct cmd_set_fwd_result {
	cmdline_fixed_string_t set;
	cmdline_fixed_string_t fwd;
	cmdline_fixed_string_t what;
	uint32_t value;
};

static cmdline_parse_token_string_t cmd_set_fwd_set =
	TOKEN_STRING_INITIALIZER(struct cmd_set_fwd_result, set, "set");
static cmdline_parse_token_string_t cmd_set_fwd_fwd =
	TOKEN_STRING_INITIALIZER(struct cmd_set_fwd_result, fwd, "fwd");
static cmdline_parse_token_string_t cmd_set_fwd_what =
	TOKEN_STRING_INITIALIZER(struct cmd_set_fwd_result, what, "size#depth");
static cmdline_parse_token_num_t cmd_set_fwd_value =
	TOKEN_NUM_INITIALIZER(struct cmd_set_fwd_result, value, RTE_UINT32);

static void
cmd_set_fwd_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_set_fwd_result *r = parsed;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	if (strcmp(r->what, "size") == 0)
		tp_fwd_set_size(r->value);
	else
		tp_fwd_set_depth(r->value);
}

static cmdline_parse_inst_t cmd_set_fwd = {
	.f = cmd_set_fwd_parsed,
	.help_str = "set fwd size|depth <n>: message size (default 64) or requests in flight "
		    "per stream (default 32)",
	.tokens = { (void *)&cmd_set_fwd_set, (void *)&cmd_set_fwd_fwd,
		    (void *)&cmd_set_fwd_what, (void *)&cmd_set_fwd_value, NULL },
};

/* set fault <dev> <tx|rx> <kind> <ppm> */
struct cmd_set_fault_result {
	cmdline_fixed_string_t set;
	cmdline_fixed_string_t fault;
	uint16_t dev;
	cmdline_fixed_string_t dir;
	cmdline_fixed_string_t kind;
	uint32_t ppm;
};

static cmdline_parse_token_string_t cmd_set_fault_set =
	TOKEN_STRING_INITIALIZER(struct cmd_set_fault_result, set, "set");
static cmdline_parse_token_string_t cmd_set_fault_fault =
	TOKEN_STRING_INITIALIZER(struct cmd_set_fault_result, fault, "fault");
static cmdline_parse_token_num_t cmd_set_fault_dev =
	TOKEN_NUM_INITIALIZER(struct cmd_set_fault_result, dev, RTE_UINT16);
static cmdline_parse_token_string_t cmd_set_fault_dir =
	TOKEN_STRING_INITIALIZER(struct cmd_set_fault_result, dir, "tx#rx");
static cmdline_parse_token_string_t cmd_set_fault_kind =
	TOKEN_STRING_INITIALIZER(struct cmd_set_fault_result, kind,
				 "drop#dup#reorder#corrupt#delay#ce");
static cmdline_parse_token_num_t cmd_set_fault_ppm =
	TOKEN_NUM_INITIALIZER(struct cmd_set_fault_result, ppm, RTE_UINT32);

static void
cmd_set_fault_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_set_fault_result *r = parsed;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	tp_fault_set(r->dev, r->dir, r->kind, r->ppm);
}

static cmdline_parse_inst_t cmd_set_fault = {
	.f = cmd_set_fault_parsed,
	.help_str = "set fault <dev> <tx|rx> <drop|dup|reorder|corrupt|delay|ce> <ppm>: "
		    "the provider's fault injection (0 ppm turns it off)",
	.tokens = { (void *)&cmd_set_fault_set, (void *)&cmd_set_fault_fault,
		    (void *)&cmd_set_fault_dev, (void *)&cmd_set_fault_dir,
		    (void *)&cmd_set_fault_kind, (void *)&cmd_set_fault_ppm, NULL },
};

/* clear fault <dev> */
struct cmd_clear_fault_result {
	cmdline_fixed_string_t clear;
	cmdline_fixed_string_t fault;
	uint16_t dev;
};

static cmdline_parse_token_string_t cmd_clear_fault_clear =
	TOKEN_STRING_INITIALIZER(struct cmd_clear_fault_result, clear, "clear");
static cmdline_parse_token_string_t cmd_clear_fault_fault =
	TOKEN_STRING_INITIALIZER(struct cmd_clear_fault_result, fault, "fault");
static cmdline_parse_token_num_t cmd_clear_fault_dev =
	TOKEN_NUM_INITIALIZER(struct cmd_clear_fault_result, dev, RTE_UINT16);

static void
cmd_clear_fault_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_clear_fault_result *r = parsed;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	tp_fault_clear(r->dev);
}

static cmdline_parse_inst_t cmd_clear_fault = {
	.f = cmd_clear_fault_parsed,
	.help_str = "clear fault <dev>: turn every fault off",
	.tokens = { (void *)&cmd_clear_fault_clear, (void *)&cmd_clear_fault_fault,
		    (void *)&cmd_clear_fault_dev, NULL },
};

cmdline_parse_inst_t *tp_cmds_fwd[] = {
	&cmd_start_fwd, &cmd_stop, &cmd_show_fwd, &cmd_set_fwd, &cmd_set_fault,
	&cmd_clear_fault, NULL,
};
