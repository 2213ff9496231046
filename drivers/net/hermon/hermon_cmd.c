/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The HCR protocol (polling mode). The HCR is free when go is clear and T
 * equals the toggle of the last command posted (the device keeps the last T
 * written). A post writes dwords 0-5, then the go word with the flipped
 * toggle; completion is go clearing; status is in the go word's top byte.
 * Only 32-bit MMIO accesses reach the HCR.
 *
 * The wait spins a little, then naps (5 us asked, 50 us or more with the
 * kernel's timer slack): a nap longer than the command multiplies its
 * cost. On the model's bus the posted hook has run the command before the
 * wait's first look, so the wait never naps there (c->naps counts them).
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include <rte_errno.h>
#include <rte_pause.h>

#include "hermon_barrier.h"
#include "hermon_cmd.h"
#include "hermon_logs.h"
#include "hermon_mad_wire.h"
#include "hermon_mmio.h"
#include "hermon_prm_ext.h"

#define HERMON_CMD_SPINS 256
#define HERMON_CMD_SLEEP_NS 5000

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint32_t
hcr_read(const struct hermon_cmd *c, unsigned int dw)
{
	return hermon_mmio_read32(c->bar0, HERMON_HCR_OFFSET + 4 * dw);
}

static void
hcr_write(struct hermon_cmd *c, unsigned int dw, uint32_t v)
{
	hermon_mmio_write32(c->bar0, HERMON_HCR_OFFSET + 4 * dw, v);
}

/* Poll the go word until @done says so or the timeout expires. */
static int
hcr_wait(struct hermon_cmd *c, bool need_toggle, uint32_t *go_word)
{
	const struct timespec nap = { 0, HERMON_CMD_SLEEP_NS };
	uint64_t deadline = now_ms() + c->timeout_ms;
	unsigned int spins = 0;
	uint32_t v;

	for (;;) {
		v = hcr_read(c, HERMON_HCR_GO_DWORD);
		if ((v & HERMON_HCR_GO) == 0 &&
		    (!need_toggle || ((v & HERMON_HCR_T) != 0) == (c->toggle != 0))) {
			*go_word = v;
			return 0;
		}
		if (++spins < HERMON_CMD_SPINS) {
			rte_pause();
			continue;
		}
		if (now_ms() > deadline)
			return -ETIMEDOUT;
		c->naps++;
		nanosleep(&nap, NULL);
	}
}

/* Post one command and wait for it; the caller holds c->lock. */
static int
hcr_exec(struct hermon_cmd *c, uint64_t in_param, uint64_t out_param,
	 uint32_t in_mod, uint8_t op_mod, uint16_t opcode, uint64_t *out_imm)
{
	uint32_t go, status;
	int ret;

	if (c->dead) {
		HERMON_CMD_LOG(ERR, "%s: %s refused: device is not responding",
			       c->name, hermon_cmd_opcode_str(opcode));
		return -EIO;
	}
	ret = hcr_wait(c, true, &go);
	if (ret < 0) {
		HERMON_CMD_LOG(ERR, "%s: HCR busy before %s (go word 0x%08x)", c->name,
			       hermon_cmd_opcode_str(opcode),
			       hcr_read(c, HERMON_HCR_GO_DWORD));
		c->dead = true;
		return ret;
	}
	c->toggle ^= 1;
	hcr_write(c, 0, (uint32_t)(in_param >> 32));
	hcr_write(c, 1, (uint32_t)in_param);
	hcr_write(c, 2, in_mod);
	hcr_write(c, 3, (uint32_t)(out_param >> 32));
	hcr_write(c, 4, (uint32_t)out_param);
	hcr_write(c, 5, 0);                       /* token: polling mode */
	hermon_barrier_hcr_before_go();
	hcr_write(c, HERMON_HCR_GO_DWORD, HERMON_HCR_GO |
		  (c->toggle != 0 ? HERMON_HCR_T : 0) |
		  ((uint32_t)(op_mod & 0xf) << 12) | (opcode & 0xfffu));
	if (c->posted != NULL)
		c->posted(c->posted_arg);
	ret = hcr_wait(c, false, &go);
	c->count++;
	c->last_opcode = opcode;
	if (ret < 0) {
		HERMON_CMD_LOG(ERR, "%s: %s (0x%03x) timed out after %" PRIu32 " ms",
			       c->name, hermon_cmd_opcode_str(opcode), opcode,
			       c->timeout_ms);
		c->dead = true;
		c->last_status = 0xff;
		return -ETIMEDOUT;
	}
	hermon_barrier_go_before_result();
	status = go >> HERMON_HCR_STATUS_SHIFT;
	c->last_status = (uint8_t)status;
	if (status != HERMON_STAT_OK) {
		HERMON_CMD_LOG(ERR, "%s: %s (0x%03x) in_mod 0x%x op_mod %u: status 0x%02x (%s)",
			       c->name, hermon_cmd_opcode_str(opcode), opcode, in_mod,
			       op_mod, status, hermon_cmd_status_str((uint8_t)status));
		return -hermon_cmd_errno((uint8_t)status);
	}
	if (out_imm != NULL)
		*out_imm = ((uint64_t)hcr_read(c, 3) << 32) | hcr_read(c, 4);
	HERMON_CMD_LOG(DEBUG, "%s: %s in 0x%" PRIx64 " mod 0x%x ok", c->name,
		       hermon_cmd_opcode_str(opcode), in_param, in_mod);
	return 0;
}

/* Run a command with optional input and output mailboxes. */
static int
cmd_run(struct hermon_cmd *c, const void *in, size_t in_len, void *out,
	size_t out_len, uint64_t in_imm, uint32_t in_mod, uint8_t op_mod,
	uint16_t opcode, uint64_t *out_imm)
{
	uint64_t in_param = in_imm, out_param = 0;
	int ret;

	pthread_mutex_lock(&c->lock);
	if (in != NULL) {
		memcpy(c->mbox_in.va, in, in_len);
		in_param = c->mbox_in.iova;
	}
	if (out != NULL) {
		memset(c->mbox_out.va, 0, out_len);
		out_param = c->mbox_out.iova;
	}
	hermon_barrier_mailbox_before_hcr();
	ret = hcr_exec(c, in_param, out_param, in_mod, op_mod, opcode, out_imm);
	if (ret == 0 && out != NULL) {
		hermon_barrier_complete_before_mailbox();
		memcpy(out, c->mbox_out.va, out_len);
	}
	pthread_mutex_unlock(&c->lock);
	if (ret < 0)
		rte_errno = -ret;
	return ret;
}

int
hermon_cmd_init(struct hermon_cmd *c, void *bar0, uint32_t timeout_ms,
		int socket, const char *name)
{
	int ret;

	memset(c, 0, sizeof(*c));
	c->bar0 = bar0;
	c->timeout_ms = timeout_ms;
	c->name = name;
	ret = hermon_dma_alloc(&c->mbox_in, "mbox_in", HERMON_MAILBOX_SIZE,
			       HERMON_MAILBOX_SIZE, socket);
	if (ret < 0)
		return ret;
	ret = hermon_dma_alloc(&c->mbox_out, "mbox_out", HERMON_MAILBOX_SIZE,
			       HERMON_MAILBOX_SIZE, socket);
	if (ret < 0) {
		hermon_dma_free(&c->mbox_in);
		return ret;
	}
	pthread_mutex_init(&c->lock, NULL);
	return 0;
}

void
hermon_cmd_fini(struct hermon_cmd *c)
{
	hermon_dma_free(&c->mbox_in);
	hermon_dma_free(&c->mbox_out);
	pthread_mutex_destroy(&c->lock);
}

void
hermon_cmd_set_posted(struct hermon_cmd *c, void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&c->lock);
	c->posted = fn;
	c->posted_arg = arg;
	pthread_mutex_unlock(&c->lock);
}

void
hermon_cmd_reset(struct hermon_cmd *c)
{
	pthread_mutex_lock(&c->lock);
	c->toggle = 0;
	c->dead = false;
	pthread_mutex_unlock(&c->lock);
}

int
hermon_cmd_query_fw(struct hermon_cmd *c, struct hermon_prm_query_fw *out)
{
	return cmd_run(c, NULL, 0, out, sizeof(*out), 0, 0, 0,
		       HERMON_CMD_QUERY_FW, NULL);
}

int
hermon_cmd_map_fa(struct hermon_cmd *c, const struct hermon_map_mbox *in, uint32_t n)
{
	return cmd_run(c, in, n * sizeof(in->e[0]), NULL, 0, 0, n, 0,
		       HERMON_CMD_MAP_FA, NULL);
}

int
hermon_cmd_unmap_fa(struct hermon_cmd *c)
{
	return cmd_run(c, NULL, 0, NULL, 0, 0, 0, 0, HERMON_CMD_UNMAP_FA, NULL);
}

int
hermon_cmd_run_fw(struct hermon_cmd *c)
{
	return cmd_run(c, NULL, 0, NULL, 0, 0, 0, 0, HERMON_CMD_RUN_FW, NULL);
}

int
hermon_cmd_query_dev_cap(struct hermon_cmd *c, struct hermon_prm_query_dev_cap *out)
{
	return cmd_run(c, NULL, 0, out, sizeof(*out), 0, 0, 0,
		       HERMON_CMD_QUERY_DEV_CAP, NULL);
}

int
hermon_cmd_query_adapter(struct hermon_cmd *c, struct hermon_prm_query_adapter *out)
{
	return cmd_run(c, NULL, 0, out, sizeof(*out), 0, 0, 0,
		       HERMON_CMD_QUERY_ADAPTER, NULL);
}

int
hermon_cmd_set_icm_size(struct hermon_cmd *c, uint64_t icm_bytes,
			uint64_t *aux_pages)
{
	return cmd_run(c, NULL, 0, NULL, 0, icm_bytes, 0, 0,
		       HERMON_CMD_SET_ICM_SIZE, aux_pages);
}

int
hermon_cmd_map_icm_aux(struct hermon_cmd *c, const struct hermon_map_mbox *in,
		       uint32_t n)
{
	return cmd_run(c, in, n * sizeof(in->e[0]), NULL, 0, 0, n, 0,
		       HERMON_CMD_MAP_ICM_AUX, NULL);
}

int
hermon_cmd_unmap_icm_aux(struct hermon_cmd *c)
{
	return cmd_run(c, NULL, 0, NULL, 0, 0, 0, 0, HERMON_CMD_UNMAP_ICM_AUX, NULL);
}

int
hermon_cmd_map_icm(struct hermon_cmd *c, const struct hermon_map_mbox *in,
		   uint32_t n)
{
	return cmd_run(c, in, n * sizeof(in->e[0]), NULL, 0, 0, n, 0,
		       HERMON_CMD_MAP_ICM, NULL);
}

int
hermon_cmd_unmap_icm(struct hermon_cmd *c, uint64_t icm_va, uint32_t pages)
{
	return cmd_run(c, NULL, 0, NULL, 0, icm_va, pages, 0,
		       HERMON_CMD_UNMAP_ICM, NULL);
}

int
hermon_cmd_init_hca(struct hermon_cmd *c, const struct hermon_prm_init_hca *in)
{
	return cmd_run(c, in, sizeof(*in), NULL, 0, 0, 0, 0, HERMON_CMD_INIT_HCA,
		       NULL);
}

int
hermon_cmd_close_hca(struct hermon_cmd *c, bool panic)
{
	return cmd_run(c, NULL, 0, NULL, 0, 0, 0, panic ? 1 : 0,
		       HERMON_CMD_CLOSE_HCA, NULL);
}

int
hermon_cmd_sense_port(struct hermon_cmd *c, uint8_t port, uint32_t *type)
{
	uint64_t out = 0;
	int ret;

	ret = cmd_run(c, NULL, 0, NULL, 0, 0, port, 0, HERMON_CMD_SENSE_PORT, &out);
	if (ret == 0)
		*type = (uint32_t)out;
	return ret;
}

int
hermon_cmd_init_port(struct hermon_cmd *c, uint8_t port)
{
	return cmd_run(c, NULL, 0, NULL, 0, 0, port, 0, HERMON_CMD_INIT_PORT, NULL);
}

int
hermon_cmd_close_port(struct hermon_cmd *c, uint8_t port)
{
	return cmd_run(c, NULL, 0, NULL, 0, 0, port, 0, HERMON_CMD_CLOSE_PORT, NULL);
}

int
hermon_cmd_nop(struct hermon_cmd *c)
{
	return cmd_run(c, NULL, 0, NULL, 0, 0, 0, 0, HERMON_CMD_NOP, NULL);
}

int
hermon_cmd_write_mtt(struct hermon_cmd *c, const struct hermon_write_mtt_mbox *in,
		     uint32_t n)
{
	if (n == 0 || n > HERMON_WRITE_MTT_MAX) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	return cmd_run(c, in, sizeof(in->hdr) + n * sizeof(in->mtt[0]), NULL, 0, 0,
		       n, 0, HERMON_CMD_WRITE_MTT, NULL);
}

int
hermon_cmd_sw2hw_eq(struct hermon_cmd *c, uint32_t eqn,
		    const struct hermon_prm_eqc *in)
{
	return cmd_run(c, in, sizeof(*in), NULL, 0, 0, eqn, 0, HERMON_CMD_SW2HW_EQ,
		       NULL);
}

int
hermon_cmd_hw2sw_eq(struct hermon_cmd *c, uint32_t eqn, struct hermon_prm_eqc *out)
{
	/* op_mod 1: no output mailbox */
	return cmd_run(c, NULL, 0, out, out != NULL ? sizeof(*out) : 0, 0, eqn,
		       out != NULL ? 0 : 1, HERMON_CMD_HW2SW_EQ, NULL);
}

int
hermon_cmd_query_eq(struct hermon_cmd *c, uint32_t eqn, struct hermon_prm_eqc *out)
{
	return cmd_run(c, NULL, 0, out, sizeof(*out), 0, eqn, 0, HERMON_CMD_QUERY_EQ,
		       NULL);
}

int
hermon_cmd_map_eq(struct hermon_cmd *c, uint32_t eqn, uint64_t mask, bool unmap)
{
	return cmd_run(c, NULL, 0, NULL, 0, mask,
		       eqn | (unmap ? RTE_BIT32(31) : 0), 0, HERMON_CMD_MAP_EQ, NULL);
}

int
hermon_cmd_sw2hw_mpt(struct hermon_cmd *c, uint32_t index, const struct hermon_prm_mpt *in)
{
	return cmd_run(c, in, sizeof(*in), NULL, 0, 0, index, 0, HERMON_CMD_SW2HW_MPT,
		       NULL);
}

int
hermon_cmd_hw2sw_mpt(struct hermon_cmd *c, uint32_t index)
{
	return cmd_run(c, NULL, 0, NULL, 0, 0, index, 1, HERMON_CMD_HW2SW_MPT, NULL);
}

int
hermon_cmd_sw2hw_cq(struct hermon_cmd *c, uint32_t cqn,
		    const struct hermon_prm_completion_queue_context *in)
{
	return cmd_run(c, in, sizeof(*in), NULL, 0, 0, cqn, 0, HERMON_CMD_SW2HW_CQ, NULL);
}

int
hermon_cmd_hw2sw_cq(struct hermon_cmd *c, uint32_t cqn)
{
	/* op_mod 1: no output mailbox */
	return cmd_run(c, NULL, 0, NULL, 0, 0, cqn, 1, HERMON_CMD_HW2SW_CQ, NULL);
}

int
hermon_cmd_query_cq(struct hermon_cmd *c, uint32_t cqn,
		    struct hermon_prm_completion_queue_context *out)
{
	return cmd_run(c, NULL, 0, out, sizeof(*out), 0, cqn, 0, HERMON_CMD_QUERY_CQ,
		       NULL);
}

int
hermon_cmd_resize_cq(struct hermon_cmd *c, uint32_t cqn,
		     const struct hermon_prm_completion_queue_context *in)
{
	/* MODIFY_CQ op_mod 0 is the resize */
	return cmd_run(c, in, sizeof(*in), NULL, 0, 0, cqn, 0, HERMON_CMD_MODIFY_CQ,
		       NULL);
}

int
hermon_cmd_sw2hw_srq(struct hermon_cmd *c, uint32_t srqn,
		     const struct hermon_prm_srq_context *in)
{
	return cmd_run(c, in, sizeof(*in), NULL, 0, 0, srqn, 0, HERMON_CMD_SW2HW_SRQ,
		       NULL);
}

int
hermon_cmd_hw2sw_srq(struct hermon_cmd *c, uint32_t srqn)
{
	return cmd_run(c, NULL, 0, NULL, 0, 0, srqn, 1, HERMON_CMD_HW2SW_SRQ, NULL);
}

int
hermon_cmd_query_srq(struct hermon_cmd *c, uint32_t srqn,
		     struct hermon_prm_srq_context *out)
{
	return cmd_run(c, NULL, 0, out, sizeof(*out), 0, srqn, 0, HERMON_CMD_QUERY_SRQ,
		       NULL);
}

int
hermon_cmd_arm_srq(struct hermon_cmd *c, uint32_t srqn, uint32_t lwm)
{
	return cmd_run(c, NULL, 0, NULL, 0, lwm, srqn, 0, HERMON_CMD_ARM_SRQ, NULL);
}

int
hermon_cmd_qp_modify(struct hermon_cmd *c, uint16_t opcode, uint32_t in_mod,
		     uint8_t op_mod, const struct hermon_prm_qp_ee_state_transitions *in)
{
	return cmd_run(c, in, in != NULL ? sizeof(*in) : 0, NULL, 0, 0, in_mod, op_mod,
		       opcode, NULL);
}

int
hermon_cmd_query_qp(struct hermon_cmd *c, uint32_t qpn,
		    struct hermon_prm_qp_ee_state_transitions *out)
{
	return cmd_run(c, NULL, 0, out, sizeof(*out), 0, qpn, 0, HERMON_CMD_QUERY_QP,
		       NULL);
}

int
hermon_cmd_conf_special_qp(struct hermon_cmd *c, uint32_t base)
{
	return cmd_run(c, NULL, 0, NULL, 0, 0, base, 0, HERMON_CMD_CONF_SPECIAL_QP, NULL);
}

int
hermon_cmd_mad_ifc(struct hermon_cmd *c, uint8_t port, uint8_t op_mod, const void *in_mad,
		   void *out_mad)
{
	/* no received work completion: no extended info, in_mod = the port */
	return cmd_run(c, in_mad, HERMON_MAD_SIZE, out_mad, HERMON_MAD_SIZE, 0, port, op_mod,
		       HERMON_CMD_MAD_IFC, NULL);
}

int
hermon_cmd_mad_ifc_wc(struct hermon_cmd *c, uint8_t port, uint16_t slid, uint8_t op_mod,
		      const void *in_ext, void *out_mad)
{
	/* a received MAD: its extended info follows it, the SLID in in_mod */
	return cmd_run(c, in_ext, HERMON_MAD_IFC_MBOX_EXT, out_mad, HERMON_MAD_SIZE, 0,
		       (uint32_t)slid << 16 | port, op_mod | HERMON_MAD_IFC_EXT_INFO,
		       HERMON_CMD_MAD_IFC, NULL);
}

int
hermon_cmd_mod_stat_cfg(struct hermon_cmd *c, const struct hermon_prm_mod_stat_cfg *in)
{
	return cmd_run(c, in, sizeof(*in), NULL, 0, 0, 0, 0, HERMON_CMD_MOD_STAT_CFG,
		       NULL);
}

int
hermon_cmd_set_port_eth(struct hermon_cmd *c, uint8_t port, uint8_t selector,
			const void *in, size_t len)
{
	return cmd_run(c, in, len, NULL, 0, 0, port | ((uint32_t)selector << 8), 1,
		       HERMON_CMD_SET_PORT, NULL);
}

int
hermon_cmd_query_func(struct hermon_cmd *c, void *out, size_t len)
{
	return cmd_run(c, NULL, 0, out, len, 0, 0, 0, HERMON_CMD_QUERY_FUNC, NULL);
}

int
hermon_cmd_set_port_ib(struct hermon_cmd *c, uint8_t port,
		       const struct hermon_prm_set_port_ib *in)
{
	return cmd_run(c, in, sizeof(*in), NULL, 0, 0, port, 0, HERMON_CMD_SET_PORT,
		       NULL);
}

int
hermon_cmd_set_port_gids(struct hermon_cmd *c, uint8_t port, bool eth,
			 const struct hermon_gid_table_mbox *in)
{
	return cmd_run(c, in, sizeof(*in), NULL, 0, 0,
		       port | (HERMON_SET_PORT_GID_TABLE << 8), eth ? 1 : 0,
		       HERMON_CMD_SET_PORT, NULL);
}

int
hermon_cmd_set_port_roce_gids(struct hermon_cmd *c, uint8_t port,
			      const struct hermon_roce_gid_table_mbox *in)
{
	/* Linux mlx4_ib_update_gids_v1_v2: op_mod 1 (Ethernet) */
	return cmd_run(c, in, sizeof(*in), NULL, 0, 0,
		       port | (HERMON_SET_PORT_ROCE_ADDR << 8), 1, HERMON_CMD_SET_PORT, NULL);
}

int
hermon_cmd_query_port(struct hermon_cmd *c, uint8_t port, struct hermon_prm_query_port *out)
{
	return cmd_run(c, NULL, 0, out, sizeof(*out), 0, port, 0, HERMON_CMD_QUERY_PORT,
		       NULL);
}

int
hermon_cmd_read_mcg(struct hermon_cmd *c, uint32_t index, struct hermon_prm_mgm_entry *out)
{
	return cmd_run(c, NULL, 0, out, sizeof(*out), 0, index, 0, HERMON_CMD_READ_MCG,
		       NULL);
}

int
hermon_cmd_set_mcast_fltr(struct hermon_cmd *c, uint8_t port, uint64_t mac, bool clear,
			  enum hermon_mcast_fltr_mode mode)
{
	uint64_t in = (mac & 0xffffffffffffull) | (clear ? RTE_BIT64(63) : 0);

	return cmd_run(c, NULL, 0, NULL, 0, in, port, (uint8_t)mode,
		       HERMON_CMD_SET_MCAST_FLTR, NULL);
}

int
hermon_cmd_write_mcg(struct hermon_cmd *c, uint32_t index,
		     const struct hermon_prm_mgm_entry *in)
{
	return cmd_run(c, in, sizeof(*in), NULL, 0, 0, index, 0, HERMON_CMD_WRITE_MCG,
		       NULL);
}

int
hermon_cmd_mgid_hash(struct hermon_cmd *c, const struct hermon_prm_gid_entry *mgid,
		     uint32_t *hash)
{
	uint64_t out = 0;
	int ret;

	ret = cmd_run(c, mgid, sizeof(*mgid), NULL, 0, 0, 0, 0, HERMON_CMD_MGID_HASH, &out);
	if (ret == 0)
		*hash = (uint32_t)out & 0xffff;
	return ret;
}
