/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The model's trace of what the driver tells the device: each firmware
 * command as the HCR decoded it (with the few mailbox fields a check of the
 * bring-up or a QP's path needs), each UAR doorbell the device thread saw,
 * and each reset. Tests compare it with the sequence the Linux driver
 * issues (tests/data/hermon/).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>

#include "hermon_model_priv.h"
#include "../hermon_mad_wire.h"



static struct hermon_model_trace_ev *
hm_trace_slot(struct hermon_model *m)
{
	if (!m->trace_on)
		return NULL;
	if (m->trace_n == m->trace_cap) {
		m->trace_lost++;
		return NULL;
	}
	memset(&m->trace[m->trace_n], 0, sizeof(m->trace[0]));
	return &m->trace[m->trace_n++];
}

/* The mailbox fields that matter for @c, read as the device reads them. */
static void
hm_trace_fields(const struct hm_cmd *c, uint32_t *f)
{
	switch (c->opcode) {
	case HERMON_CMD_INIT_HCA: {
		const struct hermon_prm_init_hca *ih = hm_dma_ptr(c->in_param, sizeof(*ih));
		const struct hermon_prm_qpcbaseaddr *q;
		const struct hermon_prm_uar_params *u;

		if (ih == NULL)
			return;
		q = HERMON_NESTED(ih, init_hca, qpc_eec_cqc_eqc_rdb_parameters,
				  qpcbaseaddr);
		u = HERMON_NESTED(ih, init_hca, uar_parameters, uar_params);
		f[0] = HERMON_GET(q, qpcbaseaddr, log_num_of_qp);
		f[1] = HERMON_GET(u, uar_params, log_max_uars);
		f[2] = HERMON_GET(q, qpcbaseaddr, log_num_of_eq);
		f[3] = HERMON_GET(u, uar_params, uar_page_sz);
		break;
	}
	case HERMON_CMD_SW2HW_EQ: {
		const struct hermon_prm_eqc *e = hm_dma_ptr(c->in_param, sizeof(*e));

		if (e == NULL)
			return;
		f[0] = HERMON_GET(e, eqc, st);
		f[1] = HERMON_GET(e, eqc, log_eq_size);
		f[2] = HERMON_GET(e, eqc, oi);
		break;
	}
	case HERMON_CMD_RST2INIT_QP:
	case HERMON_CMD_INIT2RTR_QP:
	case HERMON_CMD_RTR2RTS_QP:
	case HERMON_CMD_RTS2RTS_QP: {
		const struct hermon_prm_qp_ee_state_transitions *t =
			hm_dma_ptr(c->in_param, sizeof(*t));
		const struct hermon_prm_queue_pair_ee_context_entry *q;
		const struct hermon_prm_address_path *p;

		if (t == NULL)
			return;
		q = HERMON_NESTED(t, qp_ee_state_transitions, qpc_eec_data,
				  queue_pair_ee_context_entry);
		p = HERMON_NESTED(q, queue_pair_ee_context_entry, primary_address_path,
				  address_path);
		f[0] = HERMON_GET(q, queue_pair_ee_context_entry, st);
		f[1] = hermon_path_link_type(p);
		f[2] = HERMON_GET(p, address_path, my_lid_smac_idx);
		f[3] = (HERMON_GET(p, address_path, dmac_47_32) |
			HERMON_GET(p, address_path, dmac_31_0)) != 0;
		break;
	}
	case HERMON_CMD_SET_PORT: {
		const uint32_t *d = hm_dma_ptr(c->in_param, 8);

		/* dword 1 of an IB SET_PORT: the capability mask (F29) */
		if (d != NULL) {
			f[0] = rte_be_to_cpu_32(d[0]);
			f[1] = rte_be_to_cpu_32(d[1]);
		}
		break;
	}
	case HERMON_CMD_MAD_IFC: {
		const uint8_t *d = hm_dma_ptr(c->in_param, HERMON_MAD_SIZE);

		/* the SMP: class, method, attribute and modifier */
		if (d != NULL) {
			f[0] = d[HERMON_MAD_MGMT_CLASS];
			f[1] = d[HERMON_MAD_METHOD];
			f[2] = hermon_mad_get16(d + HERMON_MAD_ATTR_ID);
			f[3] = hermon_mad_get32(d + HERMON_MAD_ATTR_MOD);
		}
		break;
	}
	default:
		break;
	}
}

void
hm_trace_cmd(struct hermon_model *m, const struct hm_cmd *c, uint64_t out_param,
	     uint8_t status)
{
	struct hermon_model_trace_ev *e = hm_trace_slot(m);

	if (e == NULL)
		return;
	e->kind = HERMON_MODEL_TRACE_CMD;
	e->opcode = c->opcode;
	e->op_mod = c->op_mod;
	e->status = status;
	e->in_mod = c->in_mod;
	e->in_param = c->in_param;
	e->out_param = out_param;
	hm_trace_fields(c, e->field);
}

void
hm_trace_reset(struct hermon_model *m)
{
	struct hermon_model_trace_ev *e = hm_trace_slot(m);

	if (e != NULL)
		e->kind = HERMON_MODEL_TRACE_RESET;
}

static void
hm_trace_db(struct hermon_model *m, uint32_t page, uint32_t off, uint32_t v,
	    uint32_t v2)
{
	struct hermon_model_trace_ev *e = hm_trace_slot(m);

	if (e == NULL)
		return;
	e->kind = HERMON_MODEL_TRACE_DB;
	e->uar_page = page;
	e->db_offset = off;
	e->db_value = v;
	e->db_value2 = v2;
}

/*
 * Doorbell registers are write-only on silicon: the model takes each write
 * by swapping the register back to 0, so that two equal writes are seen as
 * two. EQ doorbells are left alone (the EQ engine reads their CI) and are
 * recorded when they change.
 */
void
hm_trace_poll_uar(struct hermon_model *m)
{
	uint32_t page, i;

	if (!m->trace_on)
		return;
	for (page = 0; page < HM_UAR_BAR_SIZE / HERMON_UAR_PAGE_SIZE; page++) {
		uint32_t *u = (uint32_t *)(m->bar2 + (size_t)page * HERMON_UAR_PAGE_SIZE);
		uint32_t v;

		v = __atomic_exchange_n(&u[HERMON_UAR_SEND_DB / 4], 0, __ATOMIC_ACQUIRE);
		if (v != 0)
			hm_trace_db(m, page, HERMON_UAR_SEND_DB, rte_be_to_cpu_32(v), 0);
		v = __atomic_exchange_n(&u[HERMON_UAR_CQ_DB / 4], 0, __ATOMIC_ACQUIRE);
		if (v != 0)
			hm_trace_db(m, page, HERMON_UAR_CQ_DB, rte_be_to_cpu_32(v),
				    rte_be_to_cpu_32(__atomic_load_n(&u[HERMON_UAR_CQ_DB / 4 + 1],
							     __ATOMIC_ACQUIRE)));
		if (page >= HM_MAX_EQS / 4)
			continue;
		for (i = 0; i < 4; i++) {
			uint32_t eqn = page * 4 + i;

			v = __atomic_load_n(&u[HERMON_UAR_EQ_DB(eqn) / 4], __ATOMIC_ACQUIRE);
			if (v != m->trace_eq_db[eqn]) {
				m->trace_eq_db[eqn] = v;
				hm_trace_db(m, page, HERMON_UAR_EQ_DB(eqn),
					    rte_be_to_cpu_32(v), 0);
			}
		}
	}
}

int
hermon_model_trace_start(struct hermon_model *m, uint32_t max_events)
{
	struct hermon_model_trace_ev *t;

	if (max_events == 0) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	t = calloc(max_events, sizeof(*t));
	if (t == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	pthread_mutex_lock(&m->lock);
	free(m->trace);
	m->trace = t;
	m->trace_cap = max_events;
	m->trace_n = 0;
	m->trace_lost = 0;
	memset(m->trace_eq_db, 0, sizeof(m->trace_eq_db));
	m->trace_on = true;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

void
hermon_model_trace_stop(struct hermon_model *m)
{
	pthread_mutex_lock(&m->lock);
	m->trace_on = false;
	pthread_mutex_unlock(&m->lock);
}

uint32_t
hermon_model_trace_read(struct hermon_model *m, uint32_t first,
			struct hermon_model_trace_ev *ev, uint32_t max,
			uint32_t *total, uint32_t *lost)
{
	uint32_t n = 0;

	pthread_mutex_lock(&m->lock);
	if (first < m->trace_n) {
		n = RTE_MIN(max, m->trace_n - first);
		memcpy(ev, &m->trace[first], n * sizeof(*ev));
	}
	if (total != NULL)
		*total = m->trace_n;
	if (lost != NULL)
		*lost = m->trace_lost;
	pthread_mutex_unlock(&m->lock);
	return n;
}

void
hm_trace_free(struct hermon_model *m)
{
	free(m->trace);
	m->trace = NULL;
	m->trace_on = false;
	m->trace_cap = m->trace_n = 0;
}
