/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_CMD_H
#define HERMON_CMD_H

/*
 * Firmware command engine (HCR, polling mode) and one typed wrapper per
 * opcode. Each wrapper takes the PRM buffer type of its mailbox, so handing
 * a command the wrong mailbox does not compile. All return 0 or a negative
 * errno (rte_errno set): the firmware status mapped by hermon_cmd_errno(),
 * -ETIMEDOUT when go never clears, -EIO once the device is dead.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "hermon_dma.h"
#include "hermon_prm.h"
#include "hermon_regs.h"

struct hermon_cmd {
	uint8_t *bar0;
	uint32_t timeout_ms;
	uint32_t toggle;              /**< T of the last command posted */
	bool dead;                    /**< timed out or catastrophic: no more */
	pthread_mutex_t lock;
	struct hermon_dma mbox_in;
	struct hermon_dma mbox_out;
	uint64_t count;
	uint64_t naps;                /**< completion waits that slept */
	/**
	 * Called after the go bit is written, with c->lock held (NULL on a
	 * card, which sees the write itself): the model's bus carries the
	 * command out there, so the wait finds it done.
	 */
	void (*posted)(void *arg);
	void *posted_arg;
	uint16_t last_opcode;
	uint8_t last_status;
	const char *name;             /**< device name, for logs */
};

/* MAP_FA / MAP_ICM_AUX / MAP_ICM mailbox. */
struct hermon_map_mbox {
	struct hermon_prm_virtual_physical_mapping e[HERMON_MAP_ENTRIES_PER_MBOX];
};

/* WRITE_MTT mailbox. */
struct hermon_write_mtt_mbox {
	struct hermon_prm_write_mtt_hdr hdr;
	struct hermon_prm_mtt mtt[HERMON_WRITE_MTT_MAX];
};

int hermon_cmd_init(struct hermon_cmd *c, void *bar0, uint32_t timeout_ms,
		    int socket, const char *name);
void hermon_cmd_fini(struct hermon_cmd *c);
/* Call @fn(@arg) after each go write (see struct hermon_cmd's posted). */
void hermon_cmd_set_posted(struct hermon_cmd *c, void (*fn)(void *arg), void *arg);
/* After a device reset: the device's T is 0 again and it answers again. */
void hermon_cmd_reset(struct hermon_cmd *c);

/* Status -> errno (the one table) and name. */
int hermon_cmd_errno(uint8_t status);
const char *hermon_cmd_status_str(uint8_t status);
const char *hermon_cmd_opcode_str(uint16_t opcode);

/* Bring-up and teardown. */
int hermon_cmd_query_fw(struct hermon_cmd *c, struct hermon_prm_query_fw *out);
int hermon_cmd_map_fa(struct hermon_cmd *c, const struct hermon_map_mbox *in,
		      uint32_t n);
int hermon_cmd_unmap_fa(struct hermon_cmd *c);
int hermon_cmd_run_fw(struct hermon_cmd *c);
int hermon_cmd_query_dev_cap(struct hermon_cmd *c,
			     struct hermon_prm_query_dev_cap *out);
int hermon_cmd_query_adapter(struct hermon_cmd *c,
			     struct hermon_prm_query_adapter *out);
int hermon_cmd_set_icm_size(struct hermon_cmd *c, uint64_t icm_bytes,
			    uint64_t *aux_pages);
int hermon_cmd_map_icm_aux(struct hermon_cmd *c, const struct hermon_map_mbox *in,
			   uint32_t n);
int hermon_cmd_unmap_icm_aux(struct hermon_cmd *c);
int hermon_cmd_map_icm(struct hermon_cmd *c, const struct hermon_map_mbox *in,
		       uint32_t n);
int hermon_cmd_unmap_icm(struct hermon_cmd *c, uint64_t icm_va, uint32_t pages);
int hermon_cmd_init_hca(struct hermon_cmd *c, const struct hermon_prm_init_hca *in);
int hermon_cmd_close_hca(struct hermon_cmd *c, bool panic);
int hermon_cmd_sense_port(struct hermon_cmd *c, uint8_t port, uint32_t *type);
int hermon_cmd_init_port(struct hermon_cmd *c, uint8_t port);
int hermon_cmd_close_port(struct hermon_cmd *c, uint8_t port);
int hermon_cmd_nop(struct hermon_cmd *c);

/* EQs and MTT. */
int hermon_cmd_write_mtt(struct hermon_cmd *c,
			 const struct hermon_write_mtt_mbox *in, uint32_t n);
int hermon_cmd_sw2hw_eq(struct hermon_cmd *c, uint32_t eqn,
			const struct hermon_prm_eqc *in);
/* @out may be NULL (no output mailbox). */
int hermon_cmd_hw2sw_eq(struct hermon_cmd *c, uint32_t eqn,
			struct hermon_prm_eqc *out);
int hermon_cmd_query_eq(struct hermon_cmd *c, uint32_t eqn,
			struct hermon_prm_eqc *out);
int hermon_cmd_map_eq(struct hermon_cmd *c, uint32_t eqn, uint64_t mask,
		      bool unmap);

/* Objects (part 2). @out may be NULL where the command allows it. */
struct hermon_gid_table_mbox;
struct hermon_roce_gid_table_mbox;
struct hermon_prm_query_port;
struct hermon_prm_set_port_ib;
int hermon_cmd_sw2hw_mpt(struct hermon_cmd *c, uint32_t index,
			 const struct hermon_prm_mpt *in);
int hermon_cmd_hw2sw_mpt(struct hermon_cmd *c, uint32_t index);
int hermon_cmd_sw2hw_cq(struct hermon_cmd *c, uint32_t cqn,
			const struct hermon_prm_completion_queue_context *in);
int hermon_cmd_hw2sw_cq(struct hermon_cmd *c, uint32_t cqn);
int hermon_cmd_query_cq(struct hermon_cmd *c, uint32_t cqn,
			struct hermon_prm_completion_queue_context *out);
/* MODIFY_CQ op_mod 0: the new ring in a CQ context (Linux mlx4_cq_resize) */
int hermon_cmd_resize_cq(struct hermon_cmd *c, uint32_t cqn,
			 const struct hermon_prm_completion_queue_context *in);
int hermon_cmd_sw2hw_srq(struct hermon_cmd *c, uint32_t srqn,
			 const struct hermon_prm_srq_context *in);
int hermon_cmd_hw2sw_srq(struct hermon_cmd *c, uint32_t srqn);
int hermon_cmd_query_srq(struct hermon_cmd *c, uint32_t srqn,
			 struct hermon_prm_srq_context *out);
int hermon_cmd_arm_srq(struct hermon_cmd *c, uint32_t srqn, uint32_t lwm);
/* A QP transition (RST2INIT ... SQD2RTS) with its mailbox; @in NULL for
 * the ones that take none (2ERR, RTS2SQD, 2RST). */
int hermon_cmd_qp_modify(struct hermon_cmd *c, uint16_t opcode, uint32_t in_mod,
			 uint8_t op_mod, const struct hermon_prm_qp_ee_state_transitions *in);
int hermon_cmd_query_qp(struct hermon_cmd *c, uint32_t qpn,
			struct hermon_prm_qp_ee_state_transitions *out);
struct hermon_prm_mod_stat_cfg;
/* The base of the 8-QPN block of QP0/QP1 (0: none). */
int hermon_cmd_conf_special_qp(struct hermon_cmd *c, uint32_t base);
/* MAD_IFC: one 256-byte MAD in, the 256-byte response out (hermon_mad_wire.h). */
int hermon_cmd_mad_ifc(struct hermon_cmd *c, uint8_t port, uint8_t op_mod,
		       const void *in_mad, void *out_mad);
/* MAD_IFC for a MAD received from @slid: @in_ext is the MAD and its
 * extended info (HERMON_MAD_IFC_MBOX_EXT bytes, op_mod bit 2 added). */
int hermon_cmd_mad_ifc_wc(struct hermon_cmd *c, uint8_t port, uint16_t slid, uint8_t op_mod,
			  const void *in_ext, void *out_mad);
int hermon_cmd_mod_stat_cfg(struct hermon_cmd *c, const struct hermon_prm_mod_stat_cfg *in);

/* SET_PORT(op_mod 1 = Ethernet, in_mod = port | selector << 8) */
int hermon_cmd_set_port_eth(struct hermon_cmd *c, uint8_t port, uint8_t selector,
			    const void *in, size_t len);
int hermon_cmd_query_func(struct hermon_cmd *c, void *out, size_t len);
int hermon_cmd_set_port_ib(struct hermon_cmd *c, uint8_t port,
			   const struct hermon_prm_set_port_ib *in);
/* SET_PORT(ROCE_ADDR, 0xd): the typed GID table of a RoCE v1/v2 device. */
int hermon_cmd_set_port_roce_gids(struct hermon_cmd *c, uint8_t port,
				  const struct hermon_roce_gid_table_mbox *in);
int hermon_cmd_set_port_gids(struct hermon_cmd *c, uint8_t port, bool eth,
			     const struct hermon_gid_table_mbox *in);
int hermon_cmd_query_port(struct hermon_cmd *c, uint8_t port,
			  struct hermon_prm_query_port *out);

/* Multicast groups: the MCG table entry @index, and the hash bucket the
 * firmware assigns to an MGID (already reduced to the hash size). */
struct hermon_prm_gid_entry;
int hermon_cmd_read_mcg(struct hermon_cmd *c, uint32_t index,
			struct hermon_prm_mgm_entry *out);
/*
 * SET_MCAST_FLTR (Linux mlx4_SET_MCAST_FLTR): the Ethernet port's multicast
 * MAC filter. in_param = the MAC, bit 63 "clear the filter"; op_mod: 0
 * configure (add the MAC, or clear), 1 disable filtering, 2 enable it.
 */
enum hermon_mcast_fltr_mode {
	HERMON_MCAST_CONFIG = 0,
	HERMON_MCAST_DISABLE = 1,
	HERMON_MCAST_ENABLE = 2,
};
int hermon_cmd_set_mcast_fltr(struct hermon_cmd *c, uint8_t port, uint64_t mac, bool clear,
			      enum hermon_mcast_fltr_mode mode);
int hermon_cmd_write_mcg(struct hermon_cmd *c, uint32_t index,
			 const struct hermon_prm_mgm_entry *in);
int hermon_cmd_mgid_hash(struct hermon_cmd *c, const struct hermon_prm_gid_entry *mgid,
			 uint32_t *hash);

#endif /* HERMON_CMD_H */
