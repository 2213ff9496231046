/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Device commands: probe, remove. */

#include <errno.h>

#include <rte_errno.h>

#include "tp.h"

/* probe <devargs> */
struct cmd_probe_result {
	cmdline_fixed_string_t probe;
	cmdline_fixed_string_t devargs;
};

static cmdline_parse_token_string_t cmd_probe_probe =
	TOKEN_STRING_INITIALIZER(struct cmd_probe_result, probe, "probe");
static cmdline_parse_token_string_t cmd_probe_devargs =
	TOKEN_STRING_INITIALIZER(struct cmd_probe_result, devargs, NULL);

static void
cmd_probe_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_probe_result *r = parsed;
	struct tp_dev *d;
	int id;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	id = prdma_dev_probe(r->devargs);
	if (id < 0) {
		tp_err_errno(id, "probe '%s'", r->devargs);
		return;
	}
	d = &tp.devs[id];
	d->dev = prdma_dev_open((uint16_t)id);
	if (d->dev == NULL) {
		tp_err_errno(-rte_errno, "open device %d", id);
		prdma_dev_remove((uint16_t)id);
		return;
	}
	snprintf(d->devargs, sizeof(d->devargs), "%s", r->devargs);
	d->used = 1;
	tp_out("device %d (%s) probed: %s", id, prdma_dev_name((uint16_t)id), r->devargs);
}

static cmdline_parse_inst_t cmd_probe = {
	.f = cmd_probe_parsed,
	.help_str = "probe <devargs>: probe and open a device, e.g. roce:ring=l0,side=0,ip=192.0.2.1",
	.tokens = { (void *)&cmd_probe_probe, (void *)&cmd_probe_devargs, NULL },
};

/* remove <dev> */
struct cmd_remove_result {
	cmdline_fixed_string_t remove;
	uint16_t dev;
};

static cmdline_parse_token_string_t cmd_remove_remove =
	TOKEN_STRING_INITIALIZER(struct cmd_remove_result, remove, "remove");
static cmdline_parse_token_num_t cmd_remove_dev =
	TOKEN_NUM_INITIALIZER(struct cmd_remove_result, dev, RTE_UINT16);

static void
cmd_remove_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_remove_result *r = parsed;
	struct tp_dev *d = tp_dev_get(r->dev);
	int ret;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	if (d == NULL)
		return;
	ret = prdma_dev_close(d->dev);
	if (ret < 0) {
		tp_err_errno(ret, "device %u still has objects: destroy them first", r->dev);
		return;
	}
	ret = prdma_dev_remove(r->dev);
	d->used = 0;
	if (ret < 0) {
		tp_err_errno(ret, "remove device %u", r->dev);
		return;
	}
	tp_out("device %u removed", r->dev);
}

static cmdline_parse_inst_t cmd_remove = {
	.f = cmd_remove_parsed,
	.help_str = "remove <dev>: close and remove a device (its objects must be gone)",
	.tokens = { (void *)&cmd_remove_remove, (void *)&cmd_remove_dev, NULL },
};

cmdline_parse_inst_t *tp_cmds_dev[] = { &cmd_probe, &cmd_remove, NULL };
