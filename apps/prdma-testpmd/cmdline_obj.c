/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Object commands: pd, mr, cq, srq, qp create/destroy; qp modify/connect. */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "tp.h"

#define UNUSED_CL_DATA() do { RTE_SET_USED(cl); RTE_SET_USED(data); } while (0)

/* pd create <dev> / cq create <dev> <depth> share nothing but the verb. */
struct cmd_pd_create_result {
	cmdline_fixed_string_t pd;
	cmdline_fixed_string_t create;
	uint16_t dev;
};

static cmdline_parse_token_string_t cmd_pd_create_pd =
	TOKEN_STRING_INITIALIZER(struct cmd_pd_create_result, pd, "pd");
static cmdline_parse_token_string_t cmd_pd_create_create =
	TOKEN_STRING_INITIALIZER(struct cmd_pd_create_result, create, "create");
static cmdline_parse_token_num_t cmd_pd_create_dev =
	TOKEN_NUM_INITIALIZER(struct cmd_pd_create_result, dev, RTE_UINT16);

static void
cmd_pd_create_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_pd_create_result *r = parsed;
	int id;

	UNUSED_CL_DATA();
	id = tp_pd_create(r->dev);
	if (id >= 0)
		tp_out("pd %d created on device %u", id, r->dev);
}

static cmdline_parse_inst_t cmd_pd_create = {
	.f = cmd_pd_create_parsed,
	.help_str = "pd create <dev>: allocate a protection domain",
	.tokens = { (void *)&cmd_pd_create_pd, (void *)&cmd_pd_create_create,
		    (void *)&cmd_pd_create_dev, NULL },
};

/* mr create <pd> <size> <access> */
struct cmd_mr_create_result {
	cmdline_fixed_string_t mr;
	cmdline_fixed_string_t create;
	uint32_t pd;
	uint32_t size;
	cmdline_fixed_string_t access;
};

static cmdline_parse_token_string_t cmd_mr_create_mr =
	TOKEN_STRING_INITIALIZER(struct cmd_mr_create_result, mr, "mr");
static cmdline_parse_token_string_t cmd_mr_create_create =
	TOKEN_STRING_INITIALIZER(struct cmd_mr_create_result, create, "create");
static cmdline_parse_token_num_t cmd_mr_create_pd =
	TOKEN_NUM_INITIALIZER(struct cmd_mr_create_result, pd, RTE_UINT32);
static cmdline_parse_token_num_t cmd_mr_create_size =
	TOKEN_NUM_INITIALIZER(struct cmd_mr_create_result, size, RTE_UINT32);
static cmdline_parse_token_string_t cmd_mr_create_access =
	TOKEN_STRING_INITIALIZER(struct cmd_mr_create_result, access, NULL);

/* "lw,rw,rr,ra,mw" or "all" or "local". */
static int
parse_access(const char *s, uint32_t *acc)
{
	char buf[sizeof(cmdline_fixed_string_t)], *tok, *save = NULL;

	*acc = 0;
	if (strcmp(s, "all") == 0) {
		*acc = PRDMA_ACCESS_ALL;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "lw") == 0 || strcmp(tok, "local") == 0)
			*acc |= PRDMA_ACCESS_LOCAL_WRITE;
		else if (strcmp(tok, "rw") == 0)
			*acc |= PRDMA_ACCESS_REMOTE_WRITE;
		else if (strcmp(tok, "rr") == 0)
			*acc |= PRDMA_ACCESS_REMOTE_READ;
		else if (strcmp(tok, "ra") == 0)
			*acc |= PRDMA_ACCESS_REMOTE_ATOMIC;
		else if (strcmp(tok, "mw") == 0)
			*acc |= PRDMA_ACCESS_MW_BIND;
		else if (strcmp(tok, "none") != 0)
			return -EINVAL;
	}
	return 0;
}

static void
cmd_mr_create_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_mr_create_result *r = parsed;
	struct tp_pd *p = tp_pd_get(r->pd);
	struct tp_mr *m;
	uint32_t acc;
	int slot;

	UNUSED_CL_DATA();
	if (p == NULL)
		return;
	if (parse_access(r->access, &acc) < 0) {
		tp_err("bad access '%s': all, or a comma list of lw,rw,rr,ra,mw", r->access);
		return;
	}
	if (r->size == 0) {
		tp_err("an MR needs a size > 0");
		return;
	}
	slot = TP_SLOT(mrs, "MR");
	if (slot < 0)
		return;
	m = &tp.mrs[slot];
	m->buf = rte_zmalloc("tp_mr", r->size, 64);
	if (m->buf == NULL) {
		tp_err("%u bytes of DPDK memory not available", r->size);
		return;
	}
	m->mr = prdma_mr_reg(p->pd, m->buf, r->size, acc);
	if (m->mr == NULL) {
		tp_err_errno(-rte_errno, "MR registration (%u bytes, access 0x%x)", r->size, acc);
		rte_free(m->buf);
		return;
	}
	m->pd = r->pd;
	m->len = r->size;
	m->used = 1;
	tp_out("mr %u created: %u bytes, lkey 0x%x rkey 0x%x", (unsigned int)(m - tp.mrs),
	       r->size, m->mr->lkey, m->mr->rkey);
}

static cmdline_parse_inst_t cmd_mr_create = {
	.f = cmd_mr_create_parsed,
	.help_str = "mr create <pd> <size> <access>: register DPDK memory; access all or "
		    "lw,rw,rr,ra,mw",
	.tokens = { (void *)&cmd_mr_create_mr, (void *)&cmd_mr_create_create,
		    (void *)&cmd_mr_create_pd, (void *)&cmd_mr_create_size,
		    (void *)&cmd_mr_create_access, NULL },
};

/* cq create <dev> <depth> and srq create <pd> <depth> */
struct cmd_depth_create_result {
	cmdline_fixed_string_t obj;
	cmdline_fixed_string_t create;
	uint32_t parent;
	uint32_t depth;
};

static cmdline_parse_token_string_t cmd_depth_create_obj =
	TOKEN_STRING_INITIALIZER(struct cmd_depth_create_result, obj, "cq#srq");
static cmdline_parse_token_string_t cmd_depth_create_create =
	TOKEN_STRING_INITIALIZER(struct cmd_depth_create_result, create, "create");
static cmdline_parse_token_num_t cmd_depth_create_parent =
	TOKEN_NUM_INITIALIZER(struct cmd_depth_create_result, parent, RTE_UINT32);
static cmdline_parse_token_num_t cmd_depth_create_depth =
	TOKEN_NUM_INITIALIZER(struct cmd_depth_create_result, depth, RTE_UINT32);

static void
cmd_depth_create_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_depth_create_result *r = parsed;
	struct prdma_srq_init_attr sa;
	struct tp_srq *s;
	struct tp_pd *p;
	int id;

	UNUSED_CL_DATA();
	if (strcmp(r->obj, "cq") == 0) {
		if (r->parent > UINT16_MAX) {
			tp_err("no device %u", r->parent);
			return;
		}
		id = tp_cq_create((uint16_t)r->parent, r->depth);
		if (id >= 0)
			tp_out("cq %d created on device %u: depth %u", id, r->parent,
			       tp.cqs[id].cq->cqe);
		return;
	}
	p = tp_pd_get(r->parent);
	if (p == NULL)
		return;
	id = TP_SLOT(srqs, "SRQ");
	if (id < 0)
		return;
	s = &tp.srqs[id];
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = r->depth;
	sa.attr.max_sge = 1;
	s->srq = prdma_srq_create(p->pd, &sa);
	if (s->srq == NULL) {
		tp_err_errno(-rte_errno, "SRQ create (depth %u)", r->depth);
		return;
	}
	s->pd = r->parent;
	s->used = 1;
	tp_out("srq %d created on pd %u: depth %u", id, r->parent, sa.attr.max_wr);
}

static cmdline_parse_inst_t cmd_depth_create = {
	.f = cmd_depth_create_parsed,
	.help_str = "cq create <dev> <depth> | srq create <pd> <depth>: a CQ or an SRQ",
	.tokens = { (void *)&cmd_depth_create_obj, (void *)&cmd_depth_create_create,
		    (void *)&cmd_depth_create_parent, (void *)&cmd_depth_create_depth, NULL },
};

/* pd|mr|cq|srq|qp destroy <id> */
struct cmd_destroy_result {
	cmdline_fixed_string_t obj;
	cmdline_fixed_string_t destroy;
	uint32_t id;
};

static cmdline_parse_token_string_t cmd_destroy_obj =
	TOKEN_STRING_INITIALIZER(struct cmd_destroy_result, obj, "pd#mr#cq#srq#qp");
static cmdline_parse_token_string_t cmd_destroy_destroy =
	TOKEN_STRING_INITIALIZER(struct cmd_destroy_result, destroy, "destroy");
static cmdline_parse_token_num_t cmd_destroy_id =
	TOKEN_NUM_INITIALIZER(struct cmd_destroy_result, id, RTE_UINT32);

static void
cmd_destroy_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_destroy_result *r = parsed;
	struct tp_mr *m;
	int ret = -EINVAL;

	UNUSED_CL_DATA();
	if (strcmp(r->obj, "pd") == 0) {
		ret = tp_pd_destroy(r->id);
	} else if (strcmp(r->obj, "cq") == 0) {
		ret = tp_cq_destroy(r->id);
	} else if (strcmp(r->obj, "qp") == 0) {
		ret = tp_qp_destroy(r->id);
	} else if (strcmp(r->obj, "srq") == 0) {
		ret = tp_srq_destroy(r->id);
	} else {
		m = tp_mr_get(r->id);
		if (m == NULL)
			return;
		ret = prdma_mr_dereg(m->mr);
		if (ret < 0) {
			tp_err_errno(ret, "MR %u deregistration", r->id);
			return;
		}
		rte_free(m->buf);
		memset(m, 0, sizeof(*m));
	}
	if (ret == 0)
		tp_out("%s %u destroyed", r->obj, r->id);
}

static cmdline_parse_inst_t cmd_destroy = {
	.f = cmd_destroy_parsed,
	.help_str = "pd|mr|cq|srq|qp destroy <id>: destroy an object (children first)",
	.tokens = { (void *)&cmd_destroy_obj, (void *)&cmd_destroy_destroy,
		    (void *)&cmd_destroy_id, NULL },
};

/* qp create <pd> <rc|uc|ud> <scq> <rcq> <sq_depth> <rq_depth> */
struct cmd_qp_create_result {
	cmdline_fixed_string_t qp;
	cmdline_fixed_string_t create;
	uint32_t pd;
	cmdline_fixed_string_t type;
	uint32_t scq;
	uint32_t rcq;
	uint32_t sq;
	uint32_t rq;
	cmdline_fixed_string_t srq_kw;
	uint32_t srq;
};

static cmdline_parse_token_string_t cmd_qp_create_qp =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_create_result, qp, "qp");
static cmdline_parse_token_string_t cmd_qp_create_create =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_create_result, create, "create");
static cmdline_parse_token_num_t cmd_qp_create_pd =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_create_result, pd, RTE_UINT32);
static cmdline_parse_token_string_t cmd_qp_create_type =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_create_result, type, "rc#uc#ud");
static cmdline_parse_token_num_t cmd_qp_create_scq =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_create_result, scq, RTE_UINT32);
static cmdline_parse_token_num_t cmd_qp_create_rcq =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_create_result, rcq, RTE_UINT32);
static cmdline_parse_token_num_t cmd_qp_create_sq =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_create_result, sq, RTE_UINT32);
static cmdline_parse_token_num_t cmd_qp_create_rq =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_create_result, rq, RTE_UINT32);
static cmdline_parse_token_string_t cmd_qp_create_srq_kw =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_create_result, srq_kw, "srq");
static cmdline_parse_token_num_t cmd_qp_create_srq =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_create_result, srq, RTE_UINT32);

static void
qp_create(struct cmd_qp_create_result *r, int srq)
{
	enum prdma_qp_type t = r->type[1] == 'c' ?
		(r->type[0] == 'r' ? PRDMA_QPT_RC : PRDMA_QPT_UC) : PRDMA_QPT_UD;
	int id;

	if (r->sq == 0 || (srq < 0 && r->rq == 0)) {
		tp_err("QP depths must be > 0");
		return;
	}
	id = tp_qp_create(r->pd, t, r->scq, r->rcq, r->sq, srq < 0 ? r->rq : 0, srq);
	if (id >= 0)
		tp_out("qp %d created: QPN 0x%06x %s on device %u", id, tp.qps[id].qp->qp_num,
		       r->type, tp.qps[id].dev);
}

static void
cmd_qp_create_parsed(void *parsed, struct cmdline *cl, void *data)
{
	UNUSED_CL_DATA();
	qp_create(parsed, -1);
}

static void
cmd_qp_create_srq_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_qp_create_result *r = parsed;

	UNUSED_CL_DATA();
	qp_create(r, (int)r->srq);
}

static cmdline_parse_inst_t cmd_qp_create = {
	.f = cmd_qp_create_parsed,
	.help_str = "qp create <pd> <rc|uc|ud> <send_cq> <recv_cq> <sq_depth> <rq_depth>",
	.tokens = { (void *)&cmd_qp_create_qp, (void *)&cmd_qp_create_create,
		    (void *)&cmd_qp_create_pd, (void *)&cmd_qp_create_type,
		    (void *)&cmd_qp_create_scq, (void *)&cmd_qp_create_rcq,
		    (void *)&cmd_qp_create_sq, (void *)&cmd_qp_create_rq, NULL },
};

static cmdline_parse_token_num_t cmd_qp_create_srq_sq =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_create_result, sq, RTE_UINT32);

static cmdline_parse_inst_t cmd_qp_create_srq_inst = {
	.f = cmd_qp_create_srq_parsed,
	.help_str = "qp create <pd> <rc|uc|ud> <send_cq> <recv_cq> <sq_depth> srq <srq>",
	.tokens = { (void *)&cmd_qp_create_qp, (void *)&cmd_qp_create_create,
		    (void *)&cmd_qp_create_pd, (void *)&cmd_qp_create_type,
		    (void *)&cmd_qp_create_scq, (void *)&cmd_qp_create_rcq,
		    (void *)&cmd_qp_create_srq_sq, (void *)&cmd_qp_create_srq_kw,
		    (void *)&cmd_qp_create_srq, NULL },
};

/* qp modify <qp> <state> */
struct cmd_qp_modify_result {
	cmdline_fixed_string_t qp;
	cmdline_fixed_string_t modify;
	uint32_t id;
	cmdline_fixed_string_t state;
};

static cmdline_parse_token_string_t cmd_qp_modify_qp =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_modify_result, qp, "qp");
static cmdline_parse_token_string_t cmd_qp_modify_modify =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_modify_result, modify, "modify");
static cmdline_parse_token_num_t cmd_qp_modify_id =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_modify_result, id, RTE_UINT32);
static cmdline_parse_token_string_t cmd_qp_modify_state =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_modify_result, state, "reset#init#rtr#rts#sqd#err");

static void
cmd_qp_modify_parsed(void *parsed, struct cmdline *cl, void *data)
{
	static const char *const names[] = { "reset", "init", "rtr", "rts", "sqd", "sqe", "err" };
	struct cmd_qp_modify_result *r = parsed;
	unsigned int s;

	UNUSED_CL_DATA();
	for (s = 0; s < RTE_DIM(names) && strcmp(names[s], r->state) != 0; s++)
		;
	if (tp_qp_modify_state(r->id, (enum prdma_qp_state)s) == 0)
		tp_out("qp %u: now %s", r->id,
		       prdma_qp_state_str((enum prdma_qp_state)tp.qps[r->id].qp->state));
}

static cmdline_parse_inst_t cmd_qp_modify = {
	.f = cmd_qp_modify_parsed,
	.help_str = "qp modify <qp> <reset|init|rtr|rts|sqd|err>: one state transition "
		    "(rtr needs a peer from 'qp connect')",
	.tokens = { (void *)&cmd_qp_modify_qp, (void *)&cmd_qp_modify_modify,
		    (void *)&cmd_qp_modify_id, (void *)&cmd_qp_modify_state, NULL },
};

/* qp connect <qp> <dev> <qpn> */
struct cmd_qp_connect_result {
	cmdline_fixed_string_t qp;
	cmdline_fixed_string_t connect;
	uint32_t id;
	uint16_t dev;
	uint32_t qpn;
};

static cmdline_parse_token_string_t cmd_qp_connect_qp =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_connect_result, qp, "qp");
static cmdline_parse_token_string_t cmd_qp_connect_connect =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_connect_result, connect, "connect");
static cmdline_parse_token_num_t cmd_qp_connect_id =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_connect_result, id, RTE_UINT32);
static cmdline_parse_token_num_t cmd_qp_connect_dev =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_connect_result, dev, RTE_UINT16);
static cmdline_parse_token_num_t cmd_qp_connect_qpn =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_connect_result, qpn, RTE_UINT32);

static void
cmd_qp_connect_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_qp_connect_result *r = parsed;
	int peer;

	UNUSED_CL_DATA();
	if (tp_qp_get(r->id) == NULL || tp_dev_get(r->dev) == NULL)
		return;
	peer = tp_qp_find(r->dev, r->qpn);
	if (peer < 0) {
		tp_err("device %u has no QP 0x%06x made here", r->dev, r->qpn);
		return;
	}
	if (tp_qp_connect(r->id, (uint32_t)peer) == 0)
		tp_out("qp %u (QPN 0x%06x) connected to qp %d (QPN 0x%06x on device %u): %s/%s",
		       r->id, tp.qps[r->id].qp->qp_num, peer, r->qpn, r->dev,
		       prdma_qp_state_str((enum prdma_qp_state)tp.qps[r->id].qp->state),
		       prdma_qp_state_str((enum prdma_qp_state)tp.qps[peer].qp->state));
}

static cmdline_parse_inst_t cmd_qp_connect = {
	.f = cmd_qp_connect_parsed,
	.help_str = "qp connect <qp> <dev> <qpn>: RESET->RTS toward a QP of this process "
		    "(and back, if that one is in RESET)",
	.tokens = { (void *)&cmd_qp_connect_qp, (void *)&cmd_qp_connect_connect,
		    (void *)&cmd_qp_connect_id, (void *)&cmd_qp_connect_dev,
		    (void *)&cmd_qp_connect_qpn, NULL },
};

/* qp connect <qp> to <peer qp>: the same, naming the peer by its id here */
struct cmd_qp_connect_to_result {
	cmdline_fixed_string_t qp;
	cmdline_fixed_string_t connect;
	uint32_t id;
	cmdline_fixed_string_t to;
	uint32_t peer;
};

static cmdline_parse_token_string_t cmd_qp_connect_to_qp =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_connect_to_result, qp, "qp");
static cmdline_parse_token_string_t cmd_qp_connect_to_connect =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_connect_to_result, connect, "connect");
static cmdline_parse_token_num_t cmd_qp_connect_to_id =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_connect_to_result, id, RTE_UINT32);
static cmdline_parse_token_string_t cmd_qp_connect_to_to =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_connect_to_result, to, "to");
static cmdline_parse_token_num_t cmd_qp_connect_to_peer =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_connect_to_result, peer, RTE_UINT32);

static void
cmd_qp_connect_to_parsed(void *parsed, struct cmdline *cl, void *data)
{
	struct cmd_qp_connect_to_result *r = parsed;

	UNUSED_CL_DATA();
	if (tp_qp_connect(r->id, r->peer) == 0)
		tp_out("qp %u (QPN 0x%06x) connected to qp %u (QPN 0x%06x on device %u): %s/%s",
		       r->id, tp.qps[r->id].qp->qp_num, r->peer, tp.qps[r->peer].qp->qp_num,
		       tp.qps[r->peer].dev,
		       prdma_qp_state_str((enum prdma_qp_state)tp.qps[r->id].qp->state),
		       prdma_qp_state_str((enum prdma_qp_state)tp.qps[r->peer].qp->state));
}

static cmdline_parse_inst_t cmd_qp_connect_to = {
	.f = cmd_qp_connect_to_parsed,
	.help_str = "qp connect <qp> to <peer_qp>: the same, naming the peer by its id here",
	.tokens = { (void *)&cmd_qp_connect_to_qp, (void *)&cmd_qp_connect_to_connect,
		    (void *)&cmd_qp_connect_to_id, (void *)&cmd_qp_connect_to_to,
		    (void *)&cmd_qp_connect_to_peer, NULL },
};

cmdline_parse_inst_t *tp_cmds_obj[] = {
	&cmd_pd_create, &cmd_mr_create, &cmd_depth_create, &cmd_destroy, &cmd_qp_create,
	&cmd_qp_create_srq_inst, &cmd_qp_modify, &cmd_qp_connect, &cmd_qp_connect_to, NULL,
};
