/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The model's multicast group table: MGID_HASH, READ_MCG and WRITE_MCG
 * against the MCG ICM pages the driver mapped, and the group lookup the
 * receive side does for a datagram to DestQP 0xFFFFFF.
 *
 * The hash. The PRM leaves the function to firmware; this model's is the
 * CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and
 * final XOR 0xFFFFFFFF) of the 16 MGID bytes in wire order, of which the
 * low log_mc_table_hash_sz bits (INIT_HCA) are the bucket. The driver never
 * computes it: it asks MGID_HASH, as it must on silicon. A test can pin
 * every MGID to one bucket (hermon_model_mgid_hash_force) to build chains.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "hermon_model_priv.h"
#include "../hermon_mgm.h"

static uint32_t
hm_crc32c(const uint8_t *p, size_t n)
{
	uint32_t crc = UINT32_MAX;
	unsigned int b;

	while (n-- != 0) {
		crc ^= *p++;
		for (b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return ~crc;
}

static uint32_t
hm_mgid_hash(const struct hermon_model *m, const uint8_t gid[16])
{
	uint32_t mask = (1u << m->layout.log_mc_hash) - 1;

	if (m->mgid_hash_forced)
		return m->mgid_hash_value & mask;
	return hm_crc32c(gid, 16) & mask;
}

static uint32_t
hm_mcg_entries(const struct hermon_model *m)
{
	return 1u << m->layout.log_mc;
}

static struct hermon_prm_mgm_entry *
hm_mcg_entry(struct hermon_model *m, uint32_t index)
{
	uint32_t esz = 1u << m->layout.log_mc_entry;

	return hm_icm_ptr(m, m->layout.base[HERMON_MODEL_MCG] + (uint64_t)index * esz,
			  esz);
}

/* An entry the driver may write: a bounded member count, a chain link that
 * stays inside the AMGM area. */
static bool
hm_mgm_valid(const struct hermon_model *m, const struct hermon_prm_mgm_entry *e)
{
	uint32_t esz = 1u << m->layout.log_mc_entry;
	uint32_t slots = (esz - 32) / 4;
	uint32_t next = hermon_mgm_next(e);

	if (hermon_mgm_count(e) > slots)
		return false;
	return next == 0 || (next >= (1u << m->layout.log_mc_hash) &&
			     next < hm_mcg_entries(m));
}

/*
 * SET_MCAST_FLTR (as Linux mlx4_SET_MCAST_FLTR issues it): in_mod the
 * port, op_mod 0 configure (in_param bit 63: clear; else add the MAC in
 * bits 47:0), 1 disable the filter (every multicast MAC passes), 2 enable.
 */
static uint8_t
hm_mc_fltr_cmd(struct hermon_model *m, struct hm_cmd *c)
{
	uint64_t mac = c->in_param & 0xffffffffffffull;
	uint32_t i;

	if (!m->hca_init)
		return HERMON_STAT_BAD_SYS_STATE;
	if (c->in_mod < 1 || c->in_mod > m->conf.ports ||
	    m->conf.port_type != HERMON_PORT_TYPE_ETH)
		return HERMON_STAT_BAD_PARAM;
	switch (c->op_mod) {
	case 0:
		if (c->in_param & RTE_BIT64(63)) {
			m->mc_fltr[c->in_mod - 1].n = 0;
			return HERMON_STAT_OK;
		}
		/* a multicast MAC only: the group bit of the first byte */
		if (!(mac & (1ull << 40)))
			return HERMON_STAT_BAD_PARAM;
		for (i = 0; i < m->mc_fltr[c->in_mod - 1].n; i++)
			if (m->mc_fltr[c->in_mod - 1].mac[i] == mac)
				return HERMON_STAT_OK;
		if (i == HM_MC_FLTR_MAX)
			return HERMON_STAT_BAD_RESOURCE;
		m->mc_fltr[c->in_mod - 1].mac[m->mc_fltr[c->in_mod - 1].n++] = mac;
		return HERMON_STAT_OK;
	case 1:
	case 2:
		m->mc_fltr[c->in_mod - 1].off = c->op_mod == 1;
		return HERMON_STAT_OK;
	default:
		return HERMON_STAT_BAD_PARAM;
	}
}

bool
hm_mc_fltr_pass(const struct hermon_model *m, uint32_t port, const uint8_t mac[6])
{
	uint64_t v = ((uint64_t)mac[0] << 40) | ((uint64_t)mac[1] << 32) |
		((uint64_t)mac[2] << 24) | ((uint64_t)mac[3] << 16) |
		((uint64_t)mac[4] << 8) | mac[5];
	uint32_t i;

	if (m->conf.port_type != HERMON_PORT_TYPE_ETH || port >= 2 || m->mc_fltr[port].off)
		return true;
	for (i = 0; i < m->mc_fltr[port].n; i++)
		if (m->mc_fltr[port].mac[i] == v)
			return true;
	return false;
}

uint8_t
hm_mcg_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled)
{
	struct hermon_prm_mgm_entry *e;
	const uint8_t *gid;
	void *mbox;
	uint32_t esz;

	*handled = true;
	switch (c->opcode) {
	case HERMON_CMD_READ_MCG: case HERMON_CMD_WRITE_MCG: case HERMON_CMD_MGID_HASH:
		break;
	case HERMON_CMD_SET_MCAST_FLTR:
		return hm_mc_fltr_cmd(m, c);
	default:
		*handled = false;
		return HERMON_STAT_BAD_OP;
	}
	if (!m->hca_init)
		return HERMON_STAT_BAD_SYS_STATE;
	esz = 1u << m->layout.log_mc_entry;
	if (c->opcode == HERMON_CMD_MGID_HASH) {
		gid = hm_dma_ptr(c->in_param, 16);
		if (gid == NULL)
			return HERMON_STAT_BAD_PARAM;
		c->out_param = hm_mgid_hash(m, gid);
		return HERMON_STAT_OK;
	}
	if (c->in_mod >= hm_mcg_entries(m))
		return HERMON_STAT_BAD_INDEX;
	e = hm_mcg_entry(m, c->in_mod);
	if (e == NULL)
		return HERMON_STAT_ICM_ERROR;
	if (c->opcode == HERMON_CMD_READ_MCG) {
		mbox = hm_dma_ptr(c->out_param, esz);
		if (mbox == NULL)
			return HERMON_STAT_BAD_PARAM;
		memcpy(mbox, e, esz);
		return HERMON_STAT_OK;
	}
	mbox = hm_dma_ptr(c->in_param, esz);
	if (mbox == NULL)
		return HERMON_STAT_BAD_PARAM;
	if (!hm_mgm_valid(m, mbox))
		return HERMON_STAT_BAD_PARAM;
	memcpy(e, mbox, esz);
	return HERMON_STAT_OK;
}

uint32_t
hm_mcg_members(struct hermon_model *m, const uint8_t gid[16], uint32_t *qpn,
	       uint32_t max)
{
	const struct hermon_prm_mgm_entry *e;
	uint32_t idx, steps, cnt, k, n = 0;
	uint8_t eg[16];

	if (!m->hca_init || !m->layout.valid || m->layout.log_mc_hash == 0)
		return 0;
	idx = hm_mgid_hash(m, gid);
	if (idx >= hm_mcg_entries(m))
		return 0;
	/* a chain cannot be longer than the table: longer is a loop */
	for (steps = 0; steps < hm_mcg_entries(m); steps++) {
		e = hm_mcg_entry(m, idx);
		if (e == NULL || hermon_mgm_empty(e))
			return 0;
		hermon_mgm_gid(e, eg);
		if (memcmp(eg, gid, 16) == 0) {
			cnt = RTE_MIN(hermon_mgm_count(e),
				      ((1u << m->layout.log_mc_entry) - 32) / 4);
			for (k = 0; k < cnt && n < max; k++)
				qpn[n++] = hermon_mgm_qpn(e, k);
			return n;
		}
		idx = hermon_mgm_next(e);
		if (idx == 0 || idx >= hm_mcg_entries(m))
			return 0;
	}
	return 0;
}

int
hermon_model_mgid_hash_force(struct hermon_model *m, bool on, uint32_t bucket)
{
	if (m == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	hm_wire_lock();
	m->mgid_hash_forced = on;
	m->mgid_hash_value = bucket;
	hm_wire_unlock();
	return 0;
}
