/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Display commands: show devices|device|port|counters|qps|qp|cq|objects|cm. */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "tp.h"

static const char *const port_states[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE" };
static const char *const type_names[] = { [PRDMA_QPT_RC] = "RC", [PRDMA_QPT_UC] = "UC",
					  [PRDMA_QPT_UD] = "UD" };

static const char *
qp_type_str(uint8_t t)
{
	return t < RTE_DIM(type_names) && type_names[t] != NULL ? type_names[t] : "?";
}

/* show devices */
struct cmd_show_devices_result {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t devices;
};

static cmdline_parse_token_string_t cmd_show_devices_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_devices_result, show, "show");
static cmdline_parse_token_string_t cmd_show_devices_devices =
	TOKEN_STRING_INITIALIZER(struct cmd_show_devices_result, devices, "devices");

static void
cmd_show_devices_parsed(void *parsed, struct cmdline *cl, void *data)
{
	unsigned int i, n = 0;

	RTE_SET_USED(parsed);
	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	for (i = 0; i < RTE_DIM(tp.devs); i++) {
		if (!tp.devs[i].used)
			continue;
		tp_out("device %u: %s  %s", i, prdma_dev_name((uint16_t)i), tp.devs[i].devargs);
		n++;
	}
	tp_out("%u device(s)", n);
}

static cmdline_parse_inst_t cmd_show_devices = {
	.f = cmd_show_devices_parsed,
	.help_str = "show devices: the probed devices",
	.tokens = { (void *)&cmd_show_devices_show, (void *)&cmd_show_devices_devices, NULL },
};

/* show device|counters|qps <dev> */
struct cmd_show_dev_result {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t what;
	uint16_t dev;
};

static cmdline_parse_token_string_t cmd_show_dev_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_dev_result, show, "show");
static cmdline_parse_token_string_t cmd_show_dev_what =
	TOKEN_STRING_INITIALIZER(struct cmd_show_dev_result, what, "device#counters#qps");
static cmdline_parse_token_num_t cmd_show_dev_dev =
	TOKEN_NUM_INITIALIZER(struct cmd_show_dev_result, dev, RTE_UINT16);

static void
show_device(uint16_t id, struct prdma_dev *dev)
{
	struct prdma_dev_attr a;
	int ret = prdma_dev_query(dev, &a);

	if (ret < 0) {
		tp_err_errno(ret, "query device %u", id);
		return;
	}
	tp_out("device %u: %s, provider %s, vendor 0x%x part 0x%x, fw 0x%" PRIx64, id, a.name,
	       a.provider, a.vendor_id, a.vendor_part_id, a.fw_ver);
	tp_out("  max: qp %u wr %u sge %u/%u inline %u cq %u cqe %u mr %u pd %u srq %u "
	       "rd_atom %u/%u", a.max_qp, a.max_qp_wr, a.max_send_sge, a.max_recv_sge,
	       a.max_inline_data, a.max_cq, a.max_cqe, a.max_mr, a.max_pd, a.max_srq,
	       a.max_qp_rd_atom, a.max_qp_init_rd_atom);
	tp_out("  max transfer %u, max MR size %" PRIu64 ", ports %u, flags 0x%" PRIx64,
	       a.max_transfer_length, a.max_mr_size, a.phys_port_cnt, a.flags);
}

static void
show_counters(uint16_t id, struct prdma_dev *dev)
{
	struct prdma_dev_counters c;
	int i, ret = prdma_dev_counters_get(dev, &c);

	if (ret < 0) {
		tp_err_errno(ret, "counters of device %u", id);
		return;
	}
	tp_out("device %u counters:", id);
	for (i = 0; i < PRDMA_DEV_CNT_MAX; i++)
		tp_out("  %-18s %" PRIu64 "%s", prdma_dev_counter_name((enum prdma_dev_counter)i),
		       c.value[i], (c.missing_mask & RTE_BIT64(i)) ? " (not supplied)" : "");
}

static void
show_qps(uint16_t id)
{
	unsigned int i, n = 0;

	for (i = 0; i < RTE_DIM(tp.qps); i++) {
		const struct tp_qp *q = &tp.qps[i];

		if (!q->used || q->dev != id)
			continue;
		tp_out("qp %u: QPN 0x%06x %s %s, pd %u, cq %u/%u%s", i, q->qp->qp_num,
		       qp_type_str(q->qp->qp_type),
		       prdma_qp_state_str((enum prdma_qp_state)q->qp->state), q->pd, q->scq,
		       q->rcq, q->cm_id != NULL ? ", via CM" : "");
		n++;
	}
	tp_out("%u QP(s) on device %u", n, id);
}

static void
cmd_show_dev_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_show_dev_result *r = parsed;
	struct tp_dev *d = tp_dev_get(r->dev);

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	if (d == NULL)
		return;
	if (strcmp(r->what, "device") == 0)
		show_device(r->dev, d->dev);
	else if (strcmp(r->what, "counters") == 0)
		show_counters(r->dev, d->dev);
	else
		show_qps(r->dev);
}

static cmdline_parse_inst_t cmd_show_dev = {
	.f = cmd_show_dev_parsed,
	.help_str = "show device|counters|qps <dev>: capabilities, counters, or the QPs of a device",
	.tokens = { (void *)&cmd_show_dev_show, (void *)&cmd_show_dev_what,
		    (void *)&cmd_show_dev_dev, NULL },
};

/* show port <dev> <port> */
struct cmd_show_port_result {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t port;
	uint16_t dev;
	uint8_t num;
};

static cmdline_parse_token_string_t cmd_show_port_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_port_result, show, "show");
static cmdline_parse_token_string_t cmd_show_port_port =
	TOKEN_STRING_INITIALIZER(struct cmd_show_port_result, port, "port");
static cmdline_parse_token_num_t cmd_show_port_dev =
	TOKEN_NUM_INITIALIZER(struct cmd_show_port_result, dev, RTE_UINT16);
static cmdline_parse_token_num_t cmd_show_port_num =
	TOKEN_NUM_INITIALIZER(struct cmd_show_port_result, num, RTE_UINT8);

static void
cmd_show_port_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_show_port_result *r = parsed;
	struct tp_dev *d = tp_dev_get(r->dev);
	char mac[RTE_ETHER_ADDR_FMT_SIZE], gid[64];
	struct prdma_port_attr a;
	union prdma_gid g;
	int ret;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	if (d == NULL)
		return;
	ret = prdma_port_query(d->dev, r->num, &a);
	if (ret < 0) {
		tp_err_errno(ret, "device %u port %u", r->dev, r->num);
		return;
	}
	rte_ether_format_addr(mac, sizeof(mac), &a.mac);
	tp_out("device %u port %u: %s, MTU %u (max %u), %s, MAC %s, speed %u Mb/s", r->dev,
	       r->num, a.state < RTE_DIM(port_states) ? port_states[a.state] : "?",
	       prdma_mtu_bytes(a.active_mtu), prdma_mtu_bytes(a.max_mtu),
	       a.link_layer == PRDMA_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand", mac,
	       a.link_speed_mbps);
	if (prdma_gid_query(d->dev, r->num, 0, &g) == 0)
		tp_out("  GID[0] %s", prdma_gid_to_str(&g, gid, sizeof(gid)));
}

static cmdline_parse_inst_t cmd_show_port = {
	.f = cmd_show_port_parsed,
	.help_str = "show port <dev> <port>: port state, MTU, MAC and GID (ports count from 1)",
	.tokens = { (void *)&cmd_show_port_show, (void *)&cmd_show_port_port,
		    (void *)&cmd_show_port_dev, (void *)&cmd_show_port_num, NULL },
};

/* show qp <dev> <qpn> */
struct cmd_show_qp_result {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t qp;
	uint16_t dev;
	uint32_t qpn;
};

static cmdline_parse_token_string_t cmd_show_qp_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_qp_result, show, "show");
static cmdline_parse_token_string_t cmd_show_qp_qp =
	TOKEN_STRING_INITIALIZER(struct cmd_show_qp_result, qp, "qp");
static cmdline_parse_token_num_t cmd_show_qp_dev =
	TOKEN_NUM_INITIALIZER(struct cmd_show_qp_result, dev, RTE_UINT16);
static cmdline_parse_token_num_t cmd_show_qp_qpn =
	TOKEN_NUM_INITIALIZER(struct cmd_show_qp_result, qpn, RTE_UINT32);

static void
cmd_show_qp_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_show_qp_result *r = parsed;
	struct prdma_qp_counters c;
	struct prdma_qp_attr a;
	struct tp_qp *q;
	int id, i, ret;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	if (tp_dev_get(r->dev) == NULL)
		return;
	id = tp_qp_find(r->dev, r->qpn);
	if (id < 0) {
		tp_err("device %u has no QP 0x%06x made here (see 'show qps %u')", r->dev, r->qpn,
		       r->dev);
		return;
	}
	q = &tp.qps[id];
	ret = prdma_qp_query(q->qp, &a, NULL);
	if (ret < 0) {
		tp_err_errno(ret, "query QP 0x%06x", r->qpn);
		return;
	}
	tp_out("qp %d: QPN 0x%06x %s %s, dest QPN 0x%06x, sq_psn 0x%06x rq_psn 0x%06x, MTU %u",
	       id, q->qp->qp_num, qp_type_str(q->qp->qp_type), prdma_qp_state_str(a.qp_state),
	       a.dest_qp_num, a.sq_psn, a.rq_psn, prdma_mtu_bytes(a.path_mtu));
	tp_out("  caps: send %u recv %u sge %u/%u inline %u; timeout %u retry %u rnr %u "
	       "rd_atomic %u/%u", a.cap.max_send_wr, a.cap.max_recv_wr, a.cap.max_send_sge,
	       a.cap.max_recv_sge, a.cap.max_inline_data, a.timeout, a.retry_cnt, a.rnr_retry,
	       a.max_rd_atomic, a.max_dest_rd_atomic);
	if (prdma_qp_counters_get(q->qp, &c) == 0)
		for (i = 0; i < PRDMA_QP_CNT_MAX; i++)
			if (c.value[i] != 0)
				tp_out("  %-16s %" PRIu64,
				       prdma_qp_counter_name((enum prdma_qp_counter)i), c.value[i]);
}

static cmdline_parse_inst_t cmd_show_qp = {
	.f = cmd_show_qp_parsed,
	.help_str = "show qp <dev> <qpn>: one QP by its number (hex 0x... or decimal)",
	.tokens = { (void *)&cmd_show_qp_show, (void *)&cmd_show_qp_qp,
		    (void *)&cmd_show_qp_dev, (void *)&cmd_show_qp_qpn, NULL },
};

/* show cq <cq> */
struct cmd_show_cq_result {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t cq;
	uint32_t id;
};

static cmdline_parse_token_string_t cmd_show_cq_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_cq_result, show, "show");
static cmdline_parse_token_string_t cmd_show_cq_cq =
	TOKEN_STRING_INITIALIZER(struct cmd_show_cq_result, cq, "cq");
static cmdline_parse_token_num_t cmd_show_cq_id =
	TOKEN_NUM_INITIALIZER(struct cmd_show_cq_result, id, RTE_UINT32);

static void
cmd_show_cq_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_show_cq_result *r = parsed;
	struct tp_cq *c = tp_cq_get(r->id);

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	if (c == NULL)
		return;
	/* A CQ belongs to the lcore polling it: no peeking while it forwards. */
	if (tp_fwd_running())
		tp_out("cq %u: device %u, depth %u, %u user(s) (forwarding: not peeked)", r->id,
		       c->dev, c->cq->cqe, c->cq->users);
	else
		tp_out("cq %u: device %u, depth %u, %u user(s), %d completion(s) ready", r->id,
		       c->dev, c->cq->cqe, c->cq->users, prdma_cq_peek(c->cq));
}

static cmdline_parse_inst_t cmd_show_cq = {
	.f = cmd_show_cq_parsed,
	.help_str = "show cq <cq>: a CQ's depth, users and ready completions",
	.tokens = { (void *)&cmd_show_cq_show, (void *)&cmd_show_cq_cq, (void *)&cmd_show_cq_id,
		    NULL },
};

/* show objects */
struct cmd_show_objects_result {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t objects;
};

static cmdline_parse_token_string_t cmd_show_objects_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_objects_result, show, "show");
static cmdline_parse_token_string_t cmd_show_objects_objects =
	TOKEN_STRING_INITIALIZER(struct cmd_show_objects_result, objects, "objects");

static void
cmd_show_objects_parsed(void *parsed, struct cmdline *cl, void *data)
{
	unsigned int i;

	RTE_SET_USED(parsed);
	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	for (i = 0; i < TP_MAX_OBJ; i++) {
		if (tp.pds[i].used)
			tp_out("pd %u: device %u", i, tp.pds[i].dev);
		if (tp.mrs[i].used)
			tp_out("mr %u: pd %u, %zu bytes, lkey 0x%x rkey 0x%x", i, tp.mrs[i].pd,
			       tp.mrs[i].len, tp.mrs[i].mr->lkey, tp.mrs[i].mr->rkey);
		if (tp.cqs[i].used)
			tp_out("cq %u: device %u, depth %u", i, tp.cqs[i].dev, tp.cqs[i].cq->cqe);
		if (tp.srqs[i].used)
			tp_out("srq %u: pd %u, SRQN 0x%x", i, tp.srqs[i].pd, tp.srqs[i].srq->srq_num);
		if (tp.qps[i].used)
			tp_out("qp %u: device %u QPN 0x%06x %s %s", i, tp.qps[i].dev,
			       tp.qps[i].qp->qp_num, qp_type_str(tp.qps[i].qp->qp_type),
			       prdma_qp_state_str((enum prdma_qp_state)tp.qps[i].qp->state));
	}
}

static cmdline_parse_inst_t cmd_show_objects = {
	.f = cmd_show_objects_parsed,
	.help_str = "show objects: every PD, MR, CQ, SRQ and QP made here",
	.tokens = { (void *)&cmd_show_objects_show, (void *)&cmd_show_objects_objects, NULL },
};

/* show cm */
struct cmd_show_cm_result {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t cm;
};

static cmdline_parse_token_string_t cmd_show_cm_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_cm_result, show, "show");
static cmdline_parse_token_string_t cmd_show_cm_cm =
	TOKEN_STRING_INITIALIZER(struct cmd_show_cm_result, cm, "cm");

static void
cmd_show_cm_parsed(void *parsed, struct cmdline *cl, void *data)
{
	RTE_SET_USED(parsed);
	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	tp_cm_show();
}

static cmdline_parse_inst_t cmd_show_cm = {
	.f = cmd_show_cm_parsed,
	.help_str = "show cm: listeners, CM connections and CM statistics",
	.tokens = { (void *)&cmd_show_cm_show, (void *)&cmd_show_cm_cm, NULL },
};

cmdline_parse_inst_t *tp_cmds_show[] = {
	&cmd_show_devices, &cmd_show_dev, &cmd_show_port, &cmd_show_qp, &cmd_show_cq,
	&cmd_show_objects, &cmd_show_cm, NULL,
};
