/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The embedded subnet management agent, as ConnectX-3 firmware runs it:
 * MAD_IFC hands it one SMP (the host forwards what its QP0 received, or
 * asks on its own behalf) and gets the response MAD back. It serves
 * NodeDescription, NodeInfo, PortInfo, GUIDInfo and PKeyTable with Get and
 * Set (IBA 14.2.5); NodeInfo and NodeDescription are read-only, GUID 0 is
 * the port GUID and cannot be set. The PortInfo port state follows the
 * IBA 14.2.5.6 / 7.2 link state machine: DOWN until INIT_PORT, then INIT;
 * only an SM's SubnSet moves INIT to ARMED and ARMED to ACTIVE, and the
 * move to ACTIVE raises the port-change event (Linux mlx4_ib's IB ports
 * become ACTIVE only this way). The capability mask is the firmware's
 * default until SET_PORT(IB) dword 1 replaces it (Linux sends the default
 * it read, mlx4_get_port_ib_caps; a host that sends 0 clears it).
 *
 * Refusals: before INIT_HCA BAD_SYS_STATE; a port that does not exist
 * BAD_PARAM; a MAD the agent discards (base version not 1, a class other
 * than the two SMP classes, an M_Key mismatch with the M_Key check on)
 * BAD_PKT. Wrong methods and attributes are answered, with the MAD
 * status IBA 13.4.7 gives. A received MAD comes with its extended info
 * (op_mod bit 2: the SLID in in_mod, QP, SL, P_Key index and GRH after
 * the MAD): an SMP must have come in on QP0, and a failed M_Key check
 * raises trap 256 naming the requester (hm_sma_bad_mkey). The firmware's performance management agent
 * (class 0x04, which Linux also reaches through MAD_IFC) is not modelled:
 * its MADs get "unsupported attribute". An Ethernet port's agent answers only the node
 * attributes (there is no IB port behind it).
 */

#include <string.h>

#include "hermon_model_exec.h"
#include "../hermon_mad_wire.h"

static const char hm_node_desc[] = "prdma hermon model";

uint64_t
hm_sma_node_guid(const struct hermon_model *m)
{
	const uint8_t *mac = m->mac[0];

	/* Mellanox OUI 00:02:c9, then bits the port MACs do not share with
	 * their EUI-64 (so a GID made from the MAC is not this GUID) */
	return 0x0002c90300000000ull | (uint64_t)mac[3] << 28 | (uint64_t)mac[4] << 20 |
		(uint64_t)mac[5] << 12;
}

uint64_t
hm_sma_port_guid(const struct hermon_model *m, uint8_t port)
{
	return hm_sma_node_guid(m) + port;
}

/* The GID table the port's firmware routes by: prefix + each GUID. */
static void
hm_sma_gids(struct hermon_model *m, uint8_t port)
{
	struct hm_sma_port *s = &m->sma[port - 1];
	unsigned int i;

	for (i = 0; i < HM_SMA_GUIDS && i < HERMON_GID_TABLE_LEN; i++) {
		memset(m->gid[port - 1][i], 0, 16);
		if (s->guid[i] == 0)
			continue;
		hermon_mad_put64(m->gid[port - 1][i], s->gid_prefix);
		hermon_mad_put64(m->gid[port - 1][i] + 8, s->guid[i]);
	}
}

void
hm_sma_reset(struct hermon_model *m)
{
	uint8_t p;

	memset(m->sma, 0, sizeof(m->sma));
	for (p = 1; p <= 2; p++) {
		struct hm_sma_port *s = &m->sma[p - 1];

		s->state = HERMON_IB_PORT_DOWN;
		s->gid_prefix = 0xfe80000000000000ull;
		s->cap_mask = HM_SMA_DEFAULT_CAP_MASK;
		s->guid[0] = hm_sma_port_guid(m, p);
		s->pkey[0] = 0xffff;
	}
}

void
hm_sma_port_init(struct hermon_model *m, uint8_t port)
{
	struct hm_sma_port *s = &m->sma[port - 1];

	s->guid[0] = hm_sma_port_guid(m, port);
	/* the link trains; nothing is ACTIVE before an SM says so (or the
	 * conf says one already has: sm_active, with the conf's LIDs) */
	s->state = m->conf.link_down ? HERMON_IB_PORT_DOWN : HERMON_IB_PORT_INIT;
	if (m->conf.sm_active && !m->conf.link_down) {
		s->state = HERMON_IB_PORT_ACTIVE;
		if (m->conf.lid != 0)
			s->lid = (uint16_t)(m->conf.lid + port - 1);
	}
	hm_sma_gids(m, port);
}

void
hm_sma_port_close(struct hermon_model *m, uint8_t port)
{
	m->sma[port - 1].state = HERMON_IB_PORT_DOWN;
}

void
hm_sma_set_caps(struct hermon_model *m, uint8_t port, uint32_t cap_mask)
{
	m->sma[port - 1].cap_mask = cap_mask;
}

bool
hm_sma_port_active(const struct hermon_model *m, uint8_t port)
{
	return port >= 1 && port <= 2 && m->sma[port - 1].state == HERMON_IB_PORT_ACTIVE;
}

uint16_t
hm_sma_lid(const struct hermon_model *m, uint8_t port)
{
	return port >= 1 && port <= 2 ? m->sma[port - 1].lid : 0;
}

static void
node_info(struct hermon_model *m, uint8_t port, uint8_t *d)
{
	d[HERMON_NI_BASE_VERSION] = 1;
	d[HERMON_NI_CLASS_VERSION] = 1;
	d[HERMON_NI_NODE_TYPE] = 1;
	d[HERMON_NI_NUM_PORTS] = m->conf.ports;
	hermon_mad_put64(d + HERMON_NI_SYS_IMAGE_GUID, hm_sma_node_guid(m));
	hermon_mad_put64(d + HERMON_NI_NODE_GUID, hm_sma_node_guid(m));
	hermon_mad_put64(d + HERMON_NI_PORT_GUID, hm_sma_port_guid(m, port));
	hermon_mad_put16(d + HERMON_NI_PARTITION_CAP, HM_SMA_PKEYS);
	hermon_mad_put16(d + HERMON_NI_DEVICE_ID, m->conf.device_id);
	hermon_mad_put32(d + HERMON_NI_REVISION, 0xa0);
	hermon_mad_put32(d + HERMON_NI_LOCAL_PORT, (uint32_t)port << 24 | 0x0002c9);
}

static void
port_info(struct hermon_model *m, uint8_t port, uint8_t *d)
{
	const struct hm_sma_port *s = &m->sma[port - 1];
	bool up = s->state != HERMON_IB_PORT_DOWN;

	hermon_mad_put64(d + HERMON_PI_MKEY, s->mkey);
	hermon_mad_put64(d + HERMON_PI_GID_PREFIX, s->gid_prefix);
	hermon_mad_put16(d + HERMON_PI_LID, s->lid);
	hermon_mad_put16(d + HERMON_PI_SM_LID, s->sm_lid);
	hermon_mad_put32(d + HERMON_PI_CAP_MASK, s->cap_mask);
	d[HERMON_PI_LOCAL_PORT] = port;
	d[HERMON_PI_WIDTH_ENABLED] = 2;      /* 4x */
	d[HERMON_PI_WIDTH_SUPPORTED] = 3;    /* 1x, 4x */
	d[HERMON_PI_WIDTH_ACTIVE] = up ? 2 : 0;
	d[HERMON_PI_SPEED_STATE] = (uint8_t)(7u << 4 | s->state);  /* SDR/DDR/QDR */
	d[HERMON_PI_PHYS_STATE] = (uint8_t)((up ? HERMON_IB_PHYS_LINKUP :
					     HERMON_IB_PHYS_DISABLED) << 4 | 2);
	d[HERMON_PI_LMC] = s->lmc & 7;
	d[HERMON_PI_SPEED_ACTIVE] = (uint8_t)((up ? 4u : 0u) << 4 | 7);  /* QDR */
	d[HERMON_PI_MTU_SMSL] = (uint8_t)(5u << 4 | (s->sm_sl & 0xf));  /* 4096 */
	d[HERMON_PI_VL_CAP] = 4u << 4;       /* VL0-7 */
	d[HERMON_PI_MTU_CAP] = 5;            /* 4096 */
	d[HERMON_PI_OPER_VLS] = 4u << 4;
	hermon_mad_put16(d + HERMON_PI_MKEY_VIOL, s->mkey_viol);
	d[HERMON_PI_GUID_CAP] = HM_SMA_GUIDS;
}

/* A SubnSet(PortInfo): the MAD status it earns (0: applied). */
static uint16_t
port_info_set(struct hermon_model *m, uint8_t port, const uint8_t *d)
{
	struct hm_sma_port *s = &m->sma[port - 1];
	uint8_t want = d[HERMON_PI_SPEED_STATE] & 0xf;
	bool new_prefix = s->gid_prefix != hermon_mad_get64(d + HERMON_PI_GID_PREFIX);
	uint16_t lid = hermon_mad_get16(d + HERMON_PI_LID);
	uint32_t ev[6] = { 0 };

	/* IBA 14.2.5.6: INIT -> ARMED -> ACTIVE, DOWN from any; LIDs are
	 * unicast (1..0xbfff) */
	if (want > HERMON_IB_PORT_ACTIVE ||
	    (want == HERMON_IB_PORT_INIT && s->state != HERMON_IB_PORT_INIT) ||
	    (want == HERMON_IB_PORT_ARMED && s->state != HERMON_IB_PORT_INIT &&
	     s->state != HERMON_IB_PORT_ARMED) ||
	    (want == HERMON_IB_PORT_ACTIVE && s->state != HERMON_IB_PORT_ARMED &&
	     s->state != HERMON_IB_PORT_ACTIVE) ||
	    lid >= 0xc000)
		return HERMON_MAD_STATUS_BAD_VALUE;
	s->mkey = hermon_mad_get64(d + HERMON_PI_MKEY);
	s->gid_prefix = hermon_mad_get64(d + HERMON_PI_GID_PREFIX);
	s->lid = lid;
	s->sm_lid = hermon_mad_get16(d + HERMON_PI_SM_LID);
	s->lmc = d[HERMON_PI_LMC] & 7;
	s->sm_sl = d[HERMON_PI_MTU_SMSL] & 0xf;
	if (new_prefix)
		hm_sma_gids(m, port);
	if (want == HERMON_IB_PORT_NOP || want == s->state)
		return 0;
	if (want == HERMON_IB_PORT_DOWN) {
		/* the link retrains and comes back in INIT */
		s->state = HERMON_IB_PORT_INIT;
		ev[2] = (uint32_t)port << 28;
		hm_eq_post(m, HERMON_EV_PORT_CHANGE, HERMON_PORT_CHANGE_DOWN, ev);
		return 0;
	}
	s->state = want;
	if (want == HERMON_IB_PORT_ACTIVE) {
		ev[2] = (uint32_t)port << 28;
		hm_eq_post(m, HERMON_EV_PORT_CHANGE, HERMON_PORT_CHANGE_ACTIVE, ev);
	}
	return 0;
}

/* Serve attribute @attr of the SMP in @o (a copy of the request). */
static uint16_t
hm_sma_attr(struct hermon_model *m, uint8_t port, uint8_t *o, bool set)
{
	uint16_t attr = hermon_mad_get16(o + HERMON_MAD_ATTR_ID);
	uint32_t mod = hermon_mad_get32(o + HERMON_MAD_ATTR_MOD), i;
	uint8_t *d = o + HERMON_SMP_DATA;
	struct hm_sma_port *s;
	uint8_t pp;
	uint16_t st;

	if (attr == HERMON_SMP_ATTR_NODE_DESC || attr == HERMON_SMP_ATTR_NODE_INFO) {
		if (set)
			return HERMON_MAD_STATUS_BAD_ATTR;
		memset(d, 0, HERMON_SMP_DATA_LEN);
		if (attr == HERMON_SMP_ATTR_NODE_DESC)
			memcpy(d, hm_node_desc, sizeof(hm_node_desc));
		else
			node_info(m, port, d);
		return 0;
	}
	if (m->conf.port_type != HERMON_PORT_TYPE_IB)
		return HERMON_MAD_STATUS_BAD_ATTR;
	s = &m->sma[port - 1];
	switch (attr) {
	case HERMON_SMP_ATTR_PORT_INFO:
		/* the modifier names the port; 0: the one asked */
		pp = mod == 0 ? port : (uint8_t)mod;
		if (mod > m->conf.ports)
			return HERMON_MAD_STATUS_BAD_VALUE;
		if (set) {
			st = port_info_set(m, pp, d);
			if (st != 0)
				return st;
		}
		memset(d, 0, HERMON_SMP_DATA_LEN);
		port_info(m, pp, d);
		return 0;
	case HERMON_SMP_ATTR_GUID_INFO:
		if (mod >= HM_SMA_GUIDS / HERMON_GUIDS_PER_BLOCK)
			return HERMON_MAD_STATUS_BAD_VALUE;
		/* GUID 0 is the port GUID: the SM sets only the others */
		for (i = 0; set && i < HERMON_GUIDS_PER_BLOCK; i++)
			if (mod != 0 || i != 0)
				s->guid[mod * HERMON_GUIDS_PER_BLOCK + i] =
					hermon_mad_get64(d + 8 * i);
		if (set)
			hm_sma_gids(m, port);
		for (i = 0; i < HERMON_GUIDS_PER_BLOCK; i++)
			hermon_mad_put64(d + 8 * i, s->guid[mod * HERMON_GUIDS_PER_BLOCK + i]);
		return 0;
	case HERMON_SMP_ATTR_PKEY_TABLE:
		if ((mod & 0xffff) >= HM_SMA_PKEYS / HERMON_PKEYS_PER_BLOCK)
			return HERMON_MAD_STATUS_BAD_VALUE;
		mod &= 0xffff;
		for (i = 0; i < HERMON_PKEYS_PER_BLOCK; i++) {
			uint16_t *k = &s->pkey[mod * HERMON_PKEYS_PER_BLOCK + i];

			if (set)
				*k = hermon_mad_get16(d + 2 * i);
			hermon_mad_put16(d + 2 * i, *k);
		}
		return 0;
	default:
		return HERMON_MAD_STATUS_BAD_ATTR;
	}
}

/*
 * A trap the SMA issues goes to the host first: ConnectX firmware puts it
 * on the port's QP0 receive queue from SLID 0, and the host forwards it
 * to the master SM (Linux mlx4_ib ib_process_mad: a Trap with SLID 0 goes
 * to forward_trap, through the SM address snooped from PortInfo). Lost
 * when QP0 has no receive posted, as on the wire.
 */
static void
hm_sma_trap_to_host(struct hermon_model *m, uint8_t port, const uint8_t *mad)
{
	static const uint8_t no_grh[HM_GRH];
	struct hm_seg src[2] = {
		{ .len = HM_GRH, .direct = no_grh },
		{ .len = HERMON_MAD_SIZE, .direct = mad },
	};
	struct hm_rwqe r;
	struct hm_qp q;

	if (m->sqp_base == 0 || hm_qp_load(m, hm_sqp_dest(m, port, 0), &q) < 0 ||
	    !q.rt->active || q.st != HERMON_QPST_MLX ||
	    (q.state != HERMON_QPS_RTR && q.state != HERMON_QPS_RTS) ||
	    hm_rwqe_peek(&q, &r) < 0)
		return;
	if (r.bad_key || r.cap < HM_GRH + HERMON_MAD_SIZE) {
		hm_rwqe_take(&q, &r);
		hm_cqe_err(&q, false, r.ctr, r.bad_key ? HERMON_SYND_LOC_PROT :
			   HERMON_SYND_LOC_LEN);
		return;
	}
	if (hm_copy(m, r.seg, r.nseg, m, src, 2, HM_GRH + HERMON_MAD_SIZE) != 0)
		return;
	hm_rwqe_take(&q, &r);
	hm_cqe_ok_lid(&q, false, HERMON_CQE_RECV_SEND, r.ctr, HM_GRH + HERMON_MAD_SIZE, 0, 0,
		      false, false, m->sma[port - 1].sm_sl, 0);
}

/*
 * An M_Key check failed (IBA 14.2.4.1, C14-16/17): count it and, when
 * the firmware knows who asked (the received packet's extended info: the
 * requester's SLID), raise trap 256 Bad M_Key to the master SM. Without
 * it the firmware has nobody to name and no trap goes out (Linux
 * mlx4_MAD_IFC: "Key check traps can't be generated unless we have in_wc";
 * it then ignores the keys).
 */
static void
hm_sma_bad_mkey(struct hermon_model *m, uint8_t port, const uint8_t *in, bool ext,
		uint16_t slid)
{
	struct hm_sma_port *s = &m->sma[port - 1];
	uint8_t t[HERMON_MAD_SIZE], *d = t + HERMON_SMP_DATA;

	if (s->mkey_viol != 0xffff)
		s->mkey_viol++;
	if (!ext || s->sm_lid == 0)
		return;
	memset(t, 0, sizeof(t));
	t[HERMON_MAD_BASE_VERSION] = 1;
	t[HERMON_MAD_MGMT_CLASS] = HERMON_MGMT_CLASS_SUBN_LID;
	t[HERMON_MAD_CLASS_VERSION] = 1;
	t[HERMON_MAD_METHOD] = HERMON_MAD_METHOD_TRAP;
	hermon_mad_put64(t + HERMON_MAD_TID, 0x4d4b000000000000ull | ++s->notice_count);
	hermon_mad_put16(t + HERMON_MAD_ATTR_ID, HERMON_SMP_ATTR_NOTICE);
	hermon_mad_put64(t + HERMON_SMP_MKEY, s->mkey);
	d[HERMON_NOTICE_GENERIC_TYPE] = 0x80 | HERMON_NOTICE_TYPE_SECURITY;
	d[HERMON_NOTICE_PRODUCER + 2] = 1;
	hermon_mad_put16(d + HERMON_NOTICE_TRAP_NUM, HERMON_TRAP_BAD_MKEY);
	hermon_mad_put16(d + HERMON_NOTICE_ISSUER_LID, s->lid);
	hermon_mad_put16(d + 8, s->notice_count & 0x7fff);
	hermon_mad_put16(d + HERMON_NOTICE_LIDADDR, slid);
	if (in[HERMON_MAD_MGMT_CLASS] == HERMON_MGMT_CLASS_SUBN_DR)
		memcpy(d + HERMON_NOTICE_DRSLID, in + HERMON_SMP_DR_SLID, 2);
	d[HERMON_NOTICE_METHOD] = in[HERMON_MAD_METHOD];
	memcpy(d + HERMON_NOTICE_ATTR_ID, in + HERMON_MAD_ATTR_ID, 2);
	memcpy(d + HERMON_NOTICE_ATTR_MOD, in + HERMON_MAD_ATTR_MOD, 4);
	memcpy(d + HERMON_NOTICE_MKEY, in + HERMON_SMP_MKEY, 8);
	hm_sma_trap_to_host(m, port, t);
}

uint8_t
hm_sma_cmd(struct hermon_model *m, struct hm_cmd *c, bool *handled)
{
	const uint8_t *in;
	uint8_t *out, o[HERMON_MAD_SIZE], method;
	uint8_t port = (uint8_t)(c->in_mod & 0xffff);
	bool ext = (c->op_mod & HERMON_MAD_IFC_EXT_INFO) != 0;
	uint16_t slid = ext ? (uint16_t)(c->in_mod >> 16) : 0;
	const uint8_t *x = NULL;
	uint16_t st = 0;
	bool dr, pma;

	if (c->opcode != HERMON_CMD_MAD_IFC)
		return HERMON_STAT_OK;
	*handled = true;
	if (!m->hca_init)
		return HERMON_STAT_BAD_SYS_STATE;
	if (port < 1 || port > m->conf.ports)
		return HERMON_STAT_BAD_PARAM;
	/* a received MAD brings its extended info: 512 bytes in */
	in = hm_dma_ptr(c->in_param, ext ? HERMON_MAD_IFC_MBOX_EXT : HERMON_MAD_SIZE);
	out = hm_dma_ptr(c->out_param, HERMON_MAD_SIZE);
	if (in == NULL || out == NULL)
		return HERMON_STAT_BAD_PARAM;
	if (ext)
		x = in + HERMON_MAD_SIZE;
	dr = in[HERMON_MAD_MGMT_CLASS] == HERMON_MGMT_CLASS_SUBN_DR;
	pma = in[HERMON_MAD_MGMT_CLASS] == HERMON_MGMT_CLASS_PERF;
	/* what the agent does not take at all it drops (no response): the
	 * SA, CM and other GSI classes are never the firmware's */
	if (in[HERMON_MAD_BASE_VERSION] != 1 ||
	    (in[HERMON_MAD_MGMT_CLASS] != HERMON_MGMT_CLASS_SUBN_LID && !dr && !pma))
		return HERMON_STAT_BAD_PKT;
	/* a received SMP came in on QP0, a GMP on QP1 (IBA 13.5.1: SMPs
	 * only on QP0); a packet that did not is discarded */
	if (x != NULL && hermon_mad_get32(x + HERMON_MAD_EXT_MY_QPN) != (pma ? 1u : 0u))
		return HERMON_STAT_BAD_PKT;
	/* IBA 14.2.4: with the M_Key check on, a Set (or a Get while the
	 * protect bits say so; not modelled) needs the port's M_Key */
	if (!pma && (c->op_mod & HERMON_MAD_IFC_IGNORE_MKEY) == 0 &&
	    m->sma[port - 1].mkey != 0 && in[HERMON_MAD_METHOD] == HERMON_MAD_METHOD_SET &&
	    hermon_mad_get64(in + HERMON_SMP_MKEY) != m->sma[port - 1].mkey) {
		hm_sma_bad_mkey(m, port, in, ext, slid);
		return HERMON_STAT_BAD_PKT;
	}
	memcpy(o, in, sizeof(o));
	method = in[HERMON_MAD_METHOD];
	if (in[HERMON_MAD_CLASS_VERSION] != 1)
		st = HERMON_MAD_STATUS_BAD_VERSION;
	else if (method != HERMON_MAD_METHOD_GET && method != HERMON_MAD_METHOD_SET)
		st = HERMON_MAD_STATUS_BAD_METHOD;
	else if (pma)
		st = HERMON_MAD_STATUS_BAD_ATTR;      /* counters: not modelled */
	else
		st = hm_sma_attr(m, port, o, method == HERMON_MAD_METHOD_SET);
	o[HERMON_MAD_METHOD] = HERMON_MAD_METHOD_GET_RESP;
	/* a directed-route response travels back: D set */
	hermon_mad_put16(o + HERMON_MAD_STATUS, (uint16_t)(st | (dr ? HERMON_MAD_STATUS_D : 0)));
	memcpy(out, o, sizeof(o));
	return HERMON_STAT_OK;
}

uint64_t
hermon_model_node_guid(struct hermon_model *m)
{
	return hm_sma_node_guid(m);
}

uint64_t
hermon_model_port_guid(struct hermon_model *m, uint8_t port)
{
	return hm_sma_port_guid(m, port);
}
