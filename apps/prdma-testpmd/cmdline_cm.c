/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Connection manager commands: cm listen|connect <dev> <ip> <port>, cm disconnect <qp>. */

#include <string.h>

#include "tp.h"

struct cmd_cm_addr_result {
	cmdline_fixed_string_t cm;
	cmdline_fixed_string_t verb;
	uint16_t dev;
	cmdline_fixed_string_t ip;
	uint16_t port;
};

static cmdline_parse_token_string_t cmd_cm_addr_cm =
	TOKEN_STRING_INITIALIZER(struct cmd_cm_addr_result, cm, "cm");
static cmdline_parse_token_string_t cmd_cm_addr_verb =
	TOKEN_STRING_INITIALIZER(struct cmd_cm_addr_result, verb, "listen#connect");
static cmdline_parse_token_num_t cmd_cm_addr_dev =
	TOKEN_NUM_INITIALIZER(struct cmd_cm_addr_result, dev, RTE_UINT16);
static cmdline_parse_token_string_t cmd_cm_addr_ip =
	TOKEN_STRING_INITIALIZER(struct cmd_cm_addr_result, ip, NULL);
static cmdline_parse_token_num_t cmd_cm_addr_port =
	TOKEN_NUM_INITIALIZER(struct cmd_cm_addr_result, port, RTE_UINT16);

static void
cmd_cm_addr_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_cm_addr_result *r = parsed;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	if (strcmp(r->verb, "listen") == 0)
		tp_cm_listen(r->dev, r->ip, r->port);
	else
		tp_cm_connect(r->dev, r->ip, r->port);
}

static cmdline_parse_inst_t cmd_cm_addr = {
	.f = cmd_cm_addr_parsed,
	.help_str = "cm listen|connect <dev> <ip> <port>: listen (requests are accepted with a "
		    "new QP) or connect a new RC QP through the connection manager",
	.tokens = { (void *)&cmd_cm_addr_cm, (void *)&cmd_cm_addr_verb,
		    (void *)&cmd_cm_addr_dev, (void *)&cmd_cm_addr_ip,
		    (void *)&cmd_cm_addr_port, NULL },
};

struct cmd_cm_disconnect_result {
	cmdline_fixed_string_t cm;
	cmdline_fixed_string_t disconnect;
	uint32_t qp;
};

static cmdline_parse_token_string_t cmd_cm_disconnect_cm =
	TOKEN_STRING_INITIALIZER(struct cmd_cm_disconnect_result, cm, "cm");
static cmdline_parse_token_string_t cmd_cm_disconnect_disconnect =
	TOKEN_STRING_INITIALIZER(struct cmd_cm_disconnect_result, disconnect, "disconnect");
static cmdline_parse_token_num_t cmd_cm_disconnect_qp =
	TOKEN_NUM_INITIALIZER(struct cmd_cm_disconnect_result, qp, RTE_UINT32);

static void
cmd_cm_disconnect_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_cm_disconnect_result *r = parsed;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	if (tp_cm_disconnect(r->qp) == 0)
		tp_out("cm: disconnecting qp %u", r->qp);
}

static cmdline_parse_inst_t cmd_cm_disconnect = {
	.f = cmd_cm_disconnect_parsed,
	.help_str = "cm disconnect <qp>: send a DREQ; the QP goes to ERR",
	.tokens = { (void *)&cmd_cm_disconnect_cm, (void *)&cmd_cm_disconnect_disconnect,
		    (void *)&cmd_cm_disconnect_qp, NULL },
};

cmdline_parse_inst_t *tp_cmds_cm[] = { &cmd_cm_addr, &cmd_cm_disconnect, NULL };
