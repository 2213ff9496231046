/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* The model's HCR: watch the go bit, decode, dispatch, answer. */

#include <inttypes.h>
#include <string.h>

#include <rte_atomic.h>

#include "hermon_model_priv.h"

static uint32_t
hm_hcr_read(const struct hermon_model *m, unsigned int dw)
{
	return rte_be_to_cpu_32(*(volatile uint32_t *)
				(m->bar0 + HERMON_HCR_OFFSET + 4 * dw));
}

static void
hm_hcr_write(struct hermon_model *m, unsigned int dw, uint32_t v)
{
	*(volatile uint32_t *)(m->bar0 + HERMON_HCR_OFFSET + 4 * dw) =
		rte_cpu_to_be_32(v);
}

/* An armed fault for this opcode whose turn has come, or NULL. */
static struct hm_fault *
hm_fault_match(struct hermon_model *m, uint16_t opcode)
{
	unsigned int i;

	for (i = 0; i < HM_MAX_FAULTS; i++) {
		struct hm_fault *f = &m->fault[i];

		if (f->armed && f->opcode == opcode && --f->nth == 0) {
			f->armed = false;
			return f;
		}
	}
	return NULL;
}

void
hm_cmd_poll(struct hermon_model *m)
{
	struct hermon_prm_hca_command_register hcr;
	struct hm_cmd c;
	struct hm_fault *f;
	bool handled = false;
	uint8_t status;
	uint32_t go;
	unsigned int i;

	if ((rte_be_to_cpu_32(*(volatile uint32_t *)(m->bar0 + HERMON_RESET_OFFSET)) &
	     HERMON_RESET_VALUE) != 0) {
		hm_fw_reset(m);
		return;
	}
	if (m->catas || m->hung)
		return;
	go = hm_hcr_read(m, HERMON_HCR_GO_DWORD);
	if ((go & HERMON_HCR_GO) == 0)
		return;
	/* the driver wrote dwords 0-5 before go: read them after it */
	rte_io_rmb();
	for (i = 0; i < HERMON_HCR_DWORDS; i++)
		hcr.dw[i] = rte_cpu_to_be_32(hm_hcr_read(m, i));
	memset(&c, 0, sizeof(c));
	c.in_param = HERMON_GET64(&hcr, hca_command_register, in_param_h, in_param_l);
	c.in_mod = HERMON_GET(&hcr, hca_command_register, input_modifier);
	c.out_param = HERMON_GET64(&hcr, hca_command_register, out_param_h,
				   out_param_l);
	c.token = (uint16_t)HERMON_GET(&hcr, hca_command_register, token);
	c.opcode = (uint16_t)HERMON_GET(&hcr, hca_command_register, opcode);
	c.op_mod = (uint8_t)HERMON_GET(&hcr, hca_command_register, opcode_modifier);
	c.event = HERMON_GET(&hcr, hca_command_register, e) != 0;

	f = hm_fault_match(m, c.opcode);
	if (f != NULL && f->timeout) {
		HM_LOG(NOTICE, m, "fault: opcode 0x%03x never completes", c.opcode);
		m->hung = true;
		return;
	}
	if (f != NULL) {
		status = f->status;
		HM_LOG(NOTICE, m, "fault: opcode 0x%03x answers status 0x%02x",
		       c.opcode, status);
	} else {
		status = hm_fw_cmd(m, &c, &handled);
		if (!handled)
			status = hm_icm_cmd(m, &c, &handled);
		if (!handled)
			status = hm_eq_cmd(m, &c, &handled);
		if (!handled)
			status = hm_obj_cmd(m, &c, &handled);
		if (!handled)
			status = hm_mcg_cmd(m, &c, &handled);
		if (!handled)
			status = hm_sqp_cmd(m, &c, &handled);
		if (!handled)
			status = hm_sma_cmd(m, &c, &handled);
		if (!handled)
			status = HERMON_STAT_BAD_OP;
	}
	if (status == HERMON_STAT_OK) {
		hm_hcr_write(m, 3, (uint32_t)(c.out_param >> 32));
		hm_hcr_write(m, 4, (uint32_t)c.out_param);
	}
	hm_trace_cmd(m, &c, status == HERMON_STAT_OK ? c.out_param : 0, status);
	m->commands++;
	/* a running firmware keeps diagnostics in the error buffer past
	 * dword 0, which alone says "fatal" */
	if (m->running && !m->catas)
		*(volatile uint32_t *)(m->bar0 + HM_ERROR_BUF_OFFSET + 8) =
			rte_cpu_to_be_32(0x00c0ffee);
	m->last_opcode = c.opcode;
	m->last_status = status;
	HM_LOG(DEBUG, m, "cmd 0x%03x in 0x%" PRIx64 " mod 0x%x opmod %u -> 0x%02x",
	       c.opcode, c.in_param, c.in_mod, c.op_mod, status);
	/* results and mailbox writes land before go clears */
	rte_io_wmb();
	go &= ~(HERMON_HCR_GO | (0xffu << HERMON_HCR_STATUS_SHIFT));
	hm_hcr_write(m, HERMON_HCR_GO_DWORD,
		     go | ((uint32_t)status << HERMON_HCR_STATUS_SHIFT));
}
