/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * QP0 (SMI) on InfiniBand ports (F7 of issue 14): PRDMA_QP_CREATE_SMI gives
 * the port's SMI QP, an MLX QP whose WQEs carry LRH + BTH + DETH (no GRH)
 * on VL15; the model carries them across its cable to the other model's
 * QP0. A minimal subnet manager written here runs on one model and
 * manages the port at the other end of the cable: it discovers it
 * (NodeInfo to the permissive LID), assigns LIDs, and moves PortInfo from
 * INIT through ARMED to ACTIVE. The managed node runs no code of its own:
 * the PMD's SMP agent (hermon_sma.c, as Linux's MAD layer and iPXE's SMA
 * do) hands each SMP its QP0 receives to the firmware's SMA through
 * MAD_IFC and sends the response back on QP0. The managed port then
 * reports ACTIVE with its LID. An application's own QP0 takes the port
 * over from the agent until it is destroyed.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "prdma_provider.h"
#include "t_eal.h"
#include "hermon_dev.h"
#include "hermon_mad.h"
#include "hermon_model.h"
#include "hermon_sqp_wire.h"

#define SLOT 512                    /* receive slots: 40 (GRH) + 256 */
#define NRECV 8
#define SEND_OFF (NRECV * SLOT)

struct node {
	struct hermon_model *m;
	int id;
	struct prdma_dev *dev;
	struct hermon_dev *hd;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp;
	struct prdma_mr *mr;
	struct prdma_ah *ah;            /* to the permissive LID */
	uint8_t *buf;
};

static struct node sm, mgd;
static bool t_sm_ran;       /* node_up: ports ACTIVE, LID side + 1 (conf sm_active) */
static uint32_t t_dqpn;     /* send_mad's destination QP: 0, or 1 (Q_Key 0x80010000) */
static uint64_t tid = 0x5100;

static void
post_recv(struct node *n, unsigned int slot)
{
	const struct prdma_recv_wr *bad;
	struct prdma_sge sge = { .addr = (uintptr_t)(n->buf + slot * SLOT), .length = SLOT,
				 .lkey = n->mr->lkey };
	struct prdma_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };

	assert_int_equal(prdma_post_recv(n->qp, &wr, &bad), 0);
}

static struct prdma_ah *
ah_to(struct node *n, uint16_t dlid)
{
	struct prdma_ah_attr aa = { .port_num = 1, .dlid = dlid };
	struct prdma_ah *ah = prdma_ah_create(n->pd, &aa);

	assert_non_null(ah);
	return ah;
}

/* Create @n's QP0 (the PMD's agent yields the port to it). */
static void
qp0_up(struct node *n)
{
	struct prdma_qp_init_attr qa;
	struct prdma_qp_attr a;
	unsigned int i;

	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_UD;
	qa.send_cq = n->cq;
	qa.recv_cq = n->cq;
	qa.cap.max_send_wr = 8;
	qa.cap.max_recv_wr = NRECV;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.create_flags = PRDMA_QP_CREATE_SMI;
	n->qp = prdma_qp_create(n->pd, &qa);
	assert_non_null(n->qp);
	assert_int_equal(n->qp->qp_num, 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	assert_int_equal(prdma_qp_modify(n->qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_QKEY), 0);
	a.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(prdma_qp_modify(n->qp, &a, PRDMA_QP_STATE), 0);
	a.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(prdma_qp_modify(n->qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	for (i = 0; i < NRECV; i++)
		post_recv(n, i);
}

static void
qp0_down(struct node *n)
{
	struct prdma_wc wc;

	assert_int_equal(prdma_qp_destroy(n->qp), 0);
	n->qp = NULL;
	while (prdma_cq_poll(n->cq, 1, &wc) == 1)
		;
}

static void
node_up(struct node *n, int side, const char *link, bool qp0)
{
	struct hermon_model_conf c = { .ports = 1, .port_types = 1, .port_type = 1,
				       .link = link, .side = (uint8_t)side };
	struct prdma_cq_init_attr ca = { .cqe = 64 };
	char name[32], args[128];

	memset(n, 0, sizeof(*n));
	c.sm_active = t_sm_ran;
	c.lid = t_sm_ran ? (uint16_t)(side + 1) : 0;
	snprintf(name, sizeof(name), "%s.%d", link, side);
	c.name = name;
	n->m = hermon_model_create(&c);
	assert_non_null(n->m);
	snprintf(args, sizeof(args), "hermon:model,name=%s,link=%s,side=%d", name, link, side);
	n->id = prdma_dev_probe(args);
	assert_true(n->id >= 0);
	n->dev = prdma_dev_open((uint16_t)n->id);
	assert_non_null(n->dev);
	n->hd = n->dev->priv;
	n->pd = prdma_pd_alloc(n->dev);
	n->cq = prdma_cq_create(n->dev, &ca);
	assert_non_null(n->cq);
	n->buf = rte_zmalloc("t_smi", SEND_OFF + 4 * 256, 64);
	assert_non_null(n->buf);
	n->mr = prdma_mr_reg(n->pd, n->buf, SEND_OFF + 4 * 256, PRDMA_ACCESS_LOCAL_WRITE);
	assert_non_null(n->mr);
	if (qp0)
		qp0_up(n);
	n->ah = ah_to(n, HERMON_LID_PERMISSIVE);
}

static void
node_down(struct node *n)
{
	assert_int_equal(prdma_ah_destroy(n->ah), 0);
	if (n->qp != NULL)
		qp0_down(n);
	assert_int_equal(prdma_mr_dereg(n->mr), 0);
	rte_free(n->buf);
	assert_int_equal(prdma_cq_destroy(n->cq), 0);
	assert_int_equal(prdma_pd_free(n->pd), 0);
	prdma_dev_close(n->dev);
	assert_int_equal(prdma_dev_remove((uint16_t)n->id), 0);
	hermon_model_put(n->m);
}

/* Send the 256-byte MAD @mad from @n's QP0 through @ah. */
static void
send_mad(struct node *n, struct prdma_ah *ah, const uint8_t *mad, unsigned int k)
{
	uint8_t *p = n->buf + SEND_OFF + (k & 3) * 256;
	struct prdma_sge sge = { .addr = (uintptr_t)p, .length = 256, .lkey = n->mr->lkey };
	struct prdma_send_wr wr = {
		.wr_id = 1000 + k, .sg_list = &sge, .num_sge = 1, .opcode = PRDMA_WR_SEND,
		.send_flags = PRDMA_SEND_SIGNALED,
	};
	const struct prdma_send_wr *bad;

	memcpy(p, mad, 256);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = t_dqpn;
	wr.wr.ud.remote_qkey = t_dqpn == 0 ? 0 : 0x80010000;
	assert_int_equal(prdma_post_send(n->qp, &wr, &bad), 0);
}

/*
 * Send the SMP @mad from the SM to DLID @dlid over QP0 and wait up to
 * @secs for the response with its TID (the managed node's PMD answers by
 * itself); 0 with the whole response MAD in @resp, -ETIMEDOUT if none.
 */
static int
sm_exchange(uint16_t dlid, const uint8_t *mad, uint8_t resp[HERMON_MAD_SIZE],
	    unsigned int secs)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * secs;
	uint64_t t = hermon_mad_get64(mad + HERMON_MAD_TID);
	struct prdma_ah *ah = dlid == HERMON_LID_PERMISSIVE ? sm.ah : ah_to(&sm, dlid);
	struct prdma_wc wc;
	int ret = -ETIMEDOUT;

	send_mad(&sm, ah, mad, (unsigned int)t);
	while (ret == -ETIMEDOUT && rte_get_tsc_cycles() < end) {
		while (prdma_cq_poll(sm.cq, 1, &wc) == 1) {
			const uint8_t *r = sm.buf + wc.wr_id * SLOT + 40;

			assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
			if (wc.opcode != PRDMA_WC_RECV)
				continue;
			if (hermon_mad_get64(r + HERMON_MAD_TID) == t &&
			    r[HERMON_MAD_METHOD] == HERMON_MAD_METHOD_GET_RESP) {
				memcpy(resp, r, HERMON_MAD_SIZE);
				ret = 0;
			}
			post_recv(&sm, (unsigned int)wc.wr_id);
		}
	}
	if (ah != sm.ah)
		assert_int_equal(prdma_ah_destroy(ah), 0);
	return ret;
}

static void
smp_init(uint8_t mad[HERMON_MAD_SIZE], uint8_t cls, uint8_t method, uint16_t attr,
	 uint32_t mod, const uint8_t *set)
{
	memset(mad, 0, HERMON_MAD_SIZE);
	mad[HERMON_MAD_BASE_VERSION] = 1;
	mad[HERMON_MAD_MGMT_CLASS] = cls;
	mad[HERMON_MAD_CLASS_VERSION] = 1;
	mad[HERMON_MAD_METHOD] = method;
	hermon_mad_put64(mad + HERMON_MAD_TID, ++tid);
	hermon_mad_put16(mad + HERMON_MAD_ATTR_ID, attr);
	hermon_mad_put32(mad + HERMON_MAD_ATTR_MOD, mod);
	if (set != NULL)
		memcpy(mad + HERMON_SMP_DATA, set, HERMON_SMP_DATA_LEN);
}

/*
 * One LID-routed SubnGet/SubnSet from the SM to DLID @dlid; 0 with the
 * response's data and status, -ETIMEDOUT when no response came.
 */
static int
sm_rpc(uint16_t dlid, uint8_t method, uint16_t attr, uint32_t mod, const uint8_t *set,
       uint8_t data[HERMON_SMP_DATA_LEN], uint16_t *status)
{
	uint8_t mad[HERMON_MAD_SIZE], r[HERMON_MAD_SIZE];
	int ret;

	smp_init(mad, HERMON_MGMT_CLASS_SUBN_LID, method, attr, mod, set);
	ret = sm_exchange(dlid, mad, r, 5);
	if (ret == 0) {
		memcpy(data, r + HERMON_SMP_DATA, HERMON_SMP_DATA_LEN);
		*status = hermon_mad_get16(r + HERMON_MAD_STATUS);
	}
	return ret;
}

/*
 * A directed-route SMP over one hop, as OpenSM reaches the node at the
 * other end of its port before any LID exists: hop count 1, the initial
 * path's hop 1 the SM's port 1, DrSLID and DrDLID permissive, sent to the
 * permissive LID with the hop pointer already advanced to 1 (the sender's
 * C14-9:1 step, IBA 14.2.2.2). The response must come back with D set,
 * the hop pointer back at 1 and the managed node's port in the return
 * path (its C14-9:3 and C14-13:1 steps); the SM then takes it (C14-13:3).
 */
static int
sm_rpc_dr(uint8_t method, uint16_t attr, uint32_t mod, const uint8_t *set,
	  uint8_t data[HERMON_SMP_DATA_LEN], uint16_t *status)
{
	uint8_t mad[HERMON_MAD_SIZE], r[HERMON_MAD_SIZE];
	int ret;

	smp_init(mad, HERMON_MGMT_CLASS_SUBN_DR, method, attr, mod, set);
	mad[HERMON_MAD_HOP_CNT] = 1;
	mad[HERMON_MAD_HOP_PTR] = 1;
	mad[HERMON_SMP_INIT_PATH + 1] = 1;
	hermon_mad_put16(mad + HERMON_SMP_DR_SLID, HERMON_LID_PERMISSIVE);
	hermon_mad_put16(mad + HERMON_SMP_DR_DLID, HERMON_LID_PERMISSIVE);
	ret = sm_exchange(HERMON_LID_PERMISSIVE, mad, r, 5);
	if (ret < 0)
		return ret;
	assert_int_equal(r[HERMON_MAD_MGMT_CLASS], HERMON_MGMT_CLASS_SUBN_DR);
	assert_true(hermon_mad_get16(r + HERMON_MAD_STATUS) & HERMON_MAD_STATUS_D);
	assert_int_equal(r[HERMON_MAD_HOP_CNT], 1);
	assert_int_equal(r[HERMON_MAD_HOP_PTR], 1);
	assert_int_equal(r[HERMON_SMP_RET_PATH + 1], 1);
	assert_int_equal(r[HERMON_SMP_INIT_PATH + 1], 1);
	memcpy(data, r + HERMON_SMP_DATA, HERMON_SMP_DATA_LEN);
	*status = hermon_mad_get16(r + HERMON_MAD_STATUS) & (uint16_t)~HERMON_MAD_STATUS_D;
	return 0;
}

/* Set the managed port's PortInfo state to @state (the rest as it is). */
static void
sm_set_state(uint16_t dlid, uint8_t state, uint16_t want_status)
{
	uint8_t d[HERMON_SMP_DATA_LEN];
	uint16_t st;

	assert_int_equal(sm_rpc(dlid, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PORT_INFO, 1,
				NULL, d, &st), 0);
	assert_int_equal(st, 0);
	d[HERMON_PI_SPEED_STATE] = (uint8_t)((d[HERMON_PI_SPEED_STATE] & 0xf0) | state);
	assert_int_equal(sm_rpc(dlid, HERMON_MAD_METHOD_SET, HERMON_SMP_ATTR_PORT_INFO, 1,
				d, d, &st), 0);
	assert_int_equal(st, want_status);
}

/* The SM's own port: through its own SMA, as Linux's MAD layer does for
 * an SMP to the local port (the SM's QP0 is the application's, so the
 * PMD's agent is not on this port). */
static void
sm_local_port(uint16_t lid)
{
	uint8_t d[HERMON_SMP_DATA_LEN];
	uint8_t s;

	assert_int_equal(hermon_mad_subn(sm.hd, 1, HERMON_MAD_METHOD_GET,
					 HERMON_SMP_ATTR_PORT_INFO, 1, NULL, d), 0);
	hermon_mad_put16(d + HERMON_PI_LID, lid);
	hermon_mad_put16(d + HERMON_PI_SM_LID, lid);
	for (s = HERMON_IB_PORT_ARMED; s <= HERMON_IB_PORT_ACTIVE; s++) {
		d[HERMON_PI_SPEED_STATE] = (uint8_t)((d[HERMON_PI_SPEED_STATE] & 0xf0) | s);
		assert_int_equal(hermon_mad_subn(sm.hd, 1, HERMON_MAD_METHOD_SET,
						 HERMON_SMP_ATTR_PORT_INFO, 1, d, d), 0);
	}
}

static void
port_is(struct node *n, uint8_t state, uint16_t lid)
{
	struct prdma_port_attr pa;

	assert_int_equal(prdma_port_query(n->dev, 1, &pa), 0);
	assert_int_equal(pa.state, state);
	assert_int_equal(pa.lid, lid);
}

static void
test_sm_over_qp0(void **state)
{
	uint8_t d[HERMON_SMP_DATA_LEN];
	struct prdma_async_event e;
	struct hermon_sma_stats ss;
	struct prdma_wc wc;
	bool active = false;
	uint16_t st;

	(void)state;
	node_up(&sm, 0, "tsmi", true);
	node_up(&mgd, 1, "tsmi", false);
	port_is(&sm, PRDMA_PORT_INIT, 0);
	port_is(&mgd, PRDMA_PORT_INIT, 0);
	sm_local_port(1);
	port_is(&sm, PRDMA_PORT_ACTIVE, 1);
	/* discovery: NodeInfo of whatever is at the other end of the cable,
	 * directed route over one hop as OpenSM sweeps */
	assert_int_equal(sm_rpc_dr(HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_NODE_INFO, 0, NULL,
				   d, &st), 0);
	assert_int_equal(st, 0);
	assert_int_equal(d[HERMON_NI_NODE_TYPE], 1);
	assert_true(hermon_mad_get64(d + HERMON_NI_NODE_GUID) ==
		    hermon_model_node_guid(mgd.m));
	assert_true(hermon_mad_get64(d + HERMON_NI_PORT_GUID) ==
		    hermon_model_port_guid(mgd.m, 1));
	/* LIDs: the port's, the SM's, and the subnet prefix */
	assert_int_equal(sm_rpc_dr(HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PORT_INFO, 1, NULL,
				   d, &st), 0);
	assert_int_equal(d[HERMON_PI_SPEED_STATE] & 0xf, HERMON_IB_PORT_INIT);
	assert_int_equal(hermon_mad_get16(d + HERMON_PI_LID), 0);
	hermon_mad_put16(d + HERMON_PI_LID, 2);
	hermon_mad_put16(d + HERMON_PI_SM_LID, 1);
	hermon_mad_put64(d + HERMON_PI_GID_PREFIX, 0xfe80000000000077ull);
	d[HERMON_PI_SPEED_STATE] &= 0xf0;
	assert_int_equal(sm_rpc_dr(HERMON_MAD_METHOD_SET, HERMON_SMP_ATTR_PORT_INFO, 1, d, d,
				   &st), 0);
	assert_int_equal(st, 0);
	assert_int_equal(hermon_mad_get16(d + HERMON_PI_LID), 2);
	port_is(&mgd, PRDMA_PORT_INIT, 2);
	/* from now on LID routed to LID 2; INIT -> ACTIVE is refused */
	sm_set_state(2, HERMON_IB_PORT_ACTIVE, HERMON_MAD_STATUS_BAD_VALUE);
	sm_set_state(2, HERMON_IB_PORT_ARMED, 0);
	port_is(&mgd, PRDMA_PORT_ARMED, 2);
	sm_set_state(2, HERMON_IB_PORT_ACTIVE, 0);
	port_is(&mgd, PRDMA_PORT_ACTIVE, 2);
	/* the PMD's agent answered every one of them */
	assert_int_equal(hermon_sma_get_stats(mgd.hd, 1, &ss), 0);
	assert_true(ss.answered >= 7);
	assert_int_equal(ss.answered, ss.received);
	while (prdma_event_get(mgd.dev, &e) == 1)
		if (e.type == PRDMA_EVENT_PORT_ACTIVE)
			active = true;
	assert_true(active);
	/* an SMP to a LID nobody has is dropped on the way: no answer */
	assert_int_equal(sm_rpc(9, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_NODE_INFO, 0, NULL,
				d, &st), -ETIMEDOUT);
	while (prdma_cq_poll(sm.cq, 1, &wc) == 1)
		;
	node_down(&mgd);
	node_down(&sm);
}

/*
 * An application's QP0 takes its port over from the PMD's agent: the SMPs
 * reach the application's QP (and nobody answers them), until it is
 * destroyed and the agent answers again.
 */
static void
test_app_qp0_takes_over(void **state)
{
	uint8_t d[HERMON_SMP_DATA_LEN];
	struct hermon_sma_stats ss;
	struct prdma_wc wc;
	uint64_t end;
	uint16_t st;
	int got = 0;

	(void)state;
	node_up(&sm, 0, "tsmo", true);
	node_up(&mgd, 1, "tsmo", false);
	assert_int_equal(hermon_sma_get_stats(mgd.hd, 1, &ss), 0);
	assert_int_equal(sm_rpc(HERMON_LID_PERMISSIVE, HERMON_MAD_METHOD_GET,
				HERMON_SMP_ATTR_NODE_INFO, 0, NULL, d, &st), 0);
	qp0_up(&mgd);
	assert_int_equal(hermon_sma_get_stats(mgd.hd, 1, &ss), -ENOENT);
	assert_int_equal(sm_rpc(HERMON_LID_PERMISSIVE, HERMON_MAD_METHOD_GET,
				HERMON_SMP_ATTR_NODE_INFO, 0, NULL, d, &st), -ETIMEDOUT);
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 5;
	while (got == 0 && rte_get_tsc_cycles() < end)
		while (prdma_cq_poll(mgd.cq, 1, &wc) == 1)
			if (wc.opcode == PRDMA_WC_RECV && wc.status == PRDMA_WC_SUCCESS)
				got++;
	assert_int_equal(got, 1);
	qp0_down(&mgd);
	assert_int_equal(hermon_sma_get_stats(mgd.hd, 1, &ss), 0);
	assert_int_equal(ss.received, 0);
	assert_int_equal(sm_rpc(HERMON_LID_PERMISSIVE, HERMON_MAD_METHOD_GET,
				HERMON_SMP_ATTR_NODE_INFO, 0, NULL, d, &st), 0);
	assert_int_equal(st, 0);
	assert_true(hermon_mad_get64(d + HERMON_NI_NODE_GUID) ==
		    hermon_model_node_guid(mgd.m));
	node_down(&mgd);
	node_down(&sm);
}

/* Wait (generously) until the managed node's agent has dropped @n DR SMPs. */
static void
wait_dr_dropped(uint64_t n)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 10;
	struct hermon_sma_stats ss;

	do {
		assert_int_equal(hermon_sma_get_stats(mgd.hd, 1, &ss), 0);
		if (ss.dr_dropped >= n)
			break;
		rte_delay_us_sleep(1000);
	} while (rte_get_tsc_cycles() < end);
	assert_int_equal(ss.dr_dropped, n);
}

/*
 * Directed-route SMPs an end node must not answer (IBA 14.2.2.2 C14-9,
 * Linux smi_handle_dr_smp_recv for a CA): the hop pointer not advanced by
 * the sender (C14-9:1), an intermediate hop (C14-9:2: a CA forwards
 * nothing), the end of the directed part with a LID-routed part still to
 * go (DrDLID not permissive, C14-9:3), a hop pointer past the path
 * (C14-9:5), a hop count over 63, and a returning SMP (D set: there is no
 * SM behind the agent). Each is dropped and counted, none answered; a
 * good one still is.
 */
static void
test_dr_smp_checks(void **state)
{
	static const struct { uint8_t cnt, ptr; uint16_t dlid; bool d; } bad[] = {
		{ 1, 0, HERMON_LID_PERMISSIVE, false },
		{ 2, 1, HERMON_LID_PERMISSIVE, false },
		{ 1, 1, 5, false },
		{ 1, 3, HERMON_LID_PERMISSIVE, false },
		{ 64, 64, HERMON_LID_PERMISSIVE, false },
		{ 1, 1, HERMON_LID_PERMISSIVE, true },
	};
	uint8_t mad[HERMON_MAD_SIZE], r[HERMON_MAD_SIZE], d[HERMON_SMP_DATA_LEN];
	struct hermon_sma_stats ss;
	struct prdma_wc wc;
	unsigned int i;
	uint16_t st;

	(void)state;
	node_up(&sm, 0, "tsmd", true);
	node_up(&mgd, 1, "tsmd", false);
	for (i = 0; i < RTE_DIM(bad); i++) {
		smp_init(mad, HERMON_MGMT_CLASS_SUBN_DR, HERMON_MAD_METHOD_GET,
			 HERMON_SMP_ATTR_NODE_INFO, 0, NULL);
		mad[HERMON_MAD_HOP_CNT] = bad[i].cnt;
		mad[HERMON_MAD_HOP_PTR] = bad[i].ptr;
		mad[HERMON_SMP_INIT_PATH + 1] = 1;
		if (bad[i].d)
			hermon_mad_put16(mad + HERMON_MAD_STATUS, HERMON_MAD_STATUS_D);
		hermon_mad_put16(mad + HERMON_SMP_DR_SLID, HERMON_LID_PERMISSIVE);
		hermon_mad_put16(mad + HERMON_SMP_DR_DLID, bad[i].dlid);
		send_mad(&sm, sm.ah, mad, i);
		wait_dr_dropped(i + 1);
	}
	/* nothing came back for any of them */
	smp_init(mad, HERMON_MGMT_CLASS_SUBN_LID, HERMON_MAD_METHOD_GET,
		 HERMON_SMP_ATTR_NODE_INFO, 0, NULL);
	assert_int_equal(sm_exchange(HERMON_LID_PERMISSIVE, mad, r, 5), 0);
	assert_int_equal(hermon_sma_get_stats(mgd.hd, 1, &ss), 0);
	assert_int_equal(ss.answered, 1);
	assert_int_equal(ss.dr_dropped, RTE_DIM(bad));
	assert_int_equal(sm_rpc_dr(HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_NODE_INFO, 0, NULL,
				   d, &st), 0);
	assert_int_equal(st, 0);
	assert_true(hermon_mad_get64(d + HERMON_NI_NODE_GUID) ==
		    hermon_model_node_guid(mgd.m));
	while (prdma_cq_poll(sm.cq, 1, &wc) == 1)
		;
	node_down(&mgd);
	node_down(&sm);
}

/*
 * Wait up to @secs for a MAD with method @method on the SM's QP0; 0 with
 * it in @r. Everything else received is dropped.
 */
static int
sm_wait_method(uint8_t method, uint8_t r[HERMON_MAD_SIZE], unsigned int secs)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * secs;
	struct prdma_wc wc;
	int ret = -ETIMEDOUT;

	while (ret == -ETIMEDOUT && rte_get_tsc_cycles() < end) {
		while (prdma_cq_poll(sm.cq, 1, &wc) == 1) {
			const uint8_t *m = sm.buf + wc.wr_id * SLOT + 40;

			assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
			if (wc.opcode != PRDMA_WC_RECV)
				continue;
			if (ret != 0 && m[HERMON_MAD_METHOD] == method) {
				memcpy(r, m, HERMON_MAD_SIZE);
				ret = 0;
			}
			post_recv(&sm, (unsigned int)wc.wr_id);
		}
	}
	return ret;
}

/* The events of @n's port 1 so far, one bit per prdma_event_type. */
static uint32_t
port_events(struct node *n)
{
	struct prdma_async_event e;
	uint32_t got = 0;

	while (prdma_event_get(n->dev, &e) == 1)
		if (e.element.port_num == 1)
			got |= RTE_BIT32(e.type);
	return got;
}

/*
 * The managed node: LID 2, SM LID 1 on SL 3, M_Key @mkey, set by DR as an
 * SM does at first (the SM's own port: sm_local_port).
 */
static void
mgd_managed(uint64_t mkey)
{
	uint8_t d[HERMON_SMP_DATA_LEN];
	uint16_t st;

	assert_int_equal(sm_rpc_dr(HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PORT_INFO, 1, NULL,
				   d, &st), 0);
	hermon_mad_put64(d + HERMON_PI_MKEY, mkey);
	hermon_mad_put16(d + HERMON_PI_LID, 2);
	hermon_mad_put16(d + HERMON_PI_SM_LID, 1);
	d[HERMON_PI_MTU_SMSL] = (uint8_t)((d[HERMON_PI_MTU_SMSL] & 0xf0) | 3);
	d[HERMON_PI_SPEED_STATE] &= 0xf0;
	assert_int_equal(sm_rpc_dr(HERMON_MAD_METHOD_SET, HERMON_SMP_ATTR_PORT_INFO, 1, d, d,
				   &st), 0);
	assert_int_equal(st, 0);
}

/*
 * The agent hands MAD_IFC the received packet's extended info (Linux
 * mlx4_MAD_IFC with in_wc: op_mod bit 2, the SLID in in_mod), so the
 * firmware knows who sent an SMP. A SubnSet with the wrong M_Key is
 * discarded, counted in M_KeyViolations, and the SMA raises trap 256 (Bad
 * M_Key) naming the requester's LID; the trap reaches the host on QP0
 * from SLID 0 and the agent forwards it to the master SM (Linux
 * forward_trap). Without the extended info (the agent before) the
 * firmware cannot say who asked and no trap reaches the SM.
 */
static void
test_bad_mkey_trap(void **state)
{
	uint8_t mad[HERMON_MAD_SIZE], r[HERMON_MAD_SIZE], d[HERMON_SMP_DATA_LEN];
	const uint8_t *n = r + HERMON_SMP_DATA;
	struct prdma_ah *ah;
	uint16_t st;

	(void)state;
	memset(r, 0, sizeof(r));
	node_up(&sm, 0, "tmkey", true);
	node_up(&mgd, 1, "tmkey", false);
	sm_local_port(1);
	mgd_managed(0x1122334455667788ull);
	/* a Set with the wrong M_Key from LID 1: no answer, a trap */
	assert_int_equal(sm_rpc(2, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PORT_INFO, 1, NULL,
				d, &st), 0);
	smp_init(mad, HERMON_MGMT_CLASS_SUBN_LID, HERMON_MAD_METHOD_SET,
		 HERMON_SMP_ATTR_PORT_INFO, 1, d);
	hermon_mad_put64(mad + HERMON_SMP_MKEY, 0x99);
	ah = ah_to(&sm, 2);
	send_mad(&sm, ah, mad, 7);
	assert_int_equal(sm_wait_method(HERMON_MAD_METHOD_TRAP, r, 5), 0);
	assert_int_equal(r[HERMON_MAD_MGMT_CLASS], HERMON_MGMT_CLASS_SUBN_LID);
	assert_int_equal(hermon_mad_get16(r + HERMON_MAD_ATTR_ID), HERMON_SMP_ATTR_NOTICE);
	assert_int_equal(n[HERMON_NOTICE_GENERIC_TYPE], 0x80 | HERMON_NOTICE_TYPE_SECURITY);
	assert_int_equal(hermon_mad_get16(n + HERMON_NOTICE_TRAP_NUM), HERMON_TRAP_BAD_MKEY);
	assert_int_equal(hermon_mad_get16(n + HERMON_NOTICE_ISSUER_LID), 2);
	/* the requester: the SM's port, LID 1, from the LRH SLID */
	assert_int_equal(hermon_mad_get16(n + HERMON_NOTICE_LIDADDR), 1);
	assert_int_equal(n[HERMON_NOTICE_METHOD], HERMON_MAD_METHOD_SET);
	assert_int_equal(hermon_mad_get16(n + HERMON_NOTICE_ATTR_ID), HERMON_SMP_ATTR_PORT_INFO);
	assert_true(hermon_mad_get64(n + HERMON_NOTICE_MKEY) == 0x99);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	/* the violation is counted; a Get needs no key */
	assert_int_equal(sm_rpc(2, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PORT_INFO, 1, NULL,
				d, &st), 0);
	assert_int_equal(hermon_mad_get16(d + HERMON_PI_MKEY_VIOL), 1);
	node_down(&mgd);
	node_down(&sm);
}

/*
 * Snooping what the agent forwards (Linux mlx4_ib smp_snoop): a SubnSet
 * the SMA accepted raises the port events (SM change, LID change, GID
 * change for a new subnet prefix or GUIDInfo, P_Key change, client
 * reregistration) and refreshes the PMD's GID 0 (the SGID of IB QP1's
 * GRH) and P_Key caches; prdma_port_query shows the SM's LID and SL and
 * the LMC.
 */
static void
test_snoop_port_changes(void **state)
{
	uint8_t d[HERMON_SMP_DATA_LEN], g0[16];
	struct prdma_port_attr pa;
	uint32_t ev;
	uint16_t st;

	(void)state;
	node_up(&sm, 0, "tsnoop", true);
	node_up(&mgd, 1, "tsnoop", false);
	sm_local_port(1);
	(void)port_events(&mgd);
	mgd_managed(0);
	ev = port_events(&mgd);
	assert_true(ev & RTE_BIT32(PRDMA_EVENT_LID_CHANGE));
	assert_true(ev & RTE_BIT32(PRDMA_EVENT_SM_CHANGE));
	assert_false(ev & RTE_BIT32(PRDMA_EVENT_GID_CHANGE));
	assert_int_equal(prdma_port_query(mgd.dev, 1, &pa), 0);
	assert_int_equal(pa.lid, 2);
	assert_int_equal(pa.sm_lid, 1);
	assert_int_equal(pa.sm_sl, 3);
	/* the same again: nothing changed, no events */
	mgd_managed(0);
	assert_int_equal(port_events(&mgd), 0);
	/* a new subnet prefix, LMC 1 and a client reregistration request */
	assert_int_equal(sm_rpc(2, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PORT_INFO, 1, NULL,
				d, &st), 0);
	memcpy(g0, mgd.hd->port[0].gid, 16);
	assert_int_equal(g0[7], 0x00);
	hermon_mad_put64(d + HERMON_PI_GID_PREFIX, 0xfe80000000000042ull);
	d[HERMON_PI_LMC] = 1;
	d[HERMON_PI_CLIENT_REREG] |= 0x80;
	d[HERMON_PI_SPEED_STATE] &= 0xf0;
	assert_int_equal(sm_rpc(2, HERMON_MAD_METHOD_SET, HERMON_SMP_ATTR_PORT_INFO, 1, d, d,
				&st), 0);
	assert_int_equal(st, 0);
	ev = port_events(&mgd);
	assert_int_equal(ev, RTE_BIT32(PRDMA_EVENT_GID_CHANGE) |
			 RTE_BIT32(PRDMA_EVENT_CLIENT_REREGISTER));
	assert_int_equal(mgd.hd->port[0].gid[7], 0x42);
	assert_memory_equal(mgd.hd->port[0].gid + 8, g0 + 8, 8);
	assert_int_equal(prdma_port_query(mgd.dev, 1, &pa), 0);
	assert_int_equal(pa.lmc, 1);
	/* P_Key table block 0: entry 1 a limited member of 0x8001 */
	assert_int_equal(mgd.hd->port[0].pkey[0], 0xffff);
	assert_int_equal(mgd.hd->port[0].pkey[1], 0);
	assert_int_equal(sm_rpc(2, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PKEY_TABLE, 0, NULL,
				d, &st), 0);
	hermon_mad_put16(d + 2, 0x0001);
	assert_int_equal(sm_rpc(2, HERMON_MAD_METHOD_SET, HERMON_SMP_ATTR_PKEY_TABLE, 0, d, d,
				&st), 0);
	assert_int_equal(st, 0);
	assert_int_equal(port_events(&mgd), RTE_BIT32(PRDMA_EVENT_PKEY_CHANGE));
	assert_int_equal(mgd.hd->port[0].pkey[1], 0x0001);
	/* GUIDInfo: a second GUID */
	assert_int_equal(sm_rpc(2, HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_GUID_INFO, 0, NULL,
				d, &st), 0);
	hermon_mad_put64(d + 8, 0x0002c90300abcdefull);
	assert_int_equal(sm_rpc(2, HERMON_MAD_METHOD_SET, HERMON_SMP_ATTR_GUID_INFO, 0, d, d,
				&st), 0);
	assert_int_equal(st, 0);
	assert_int_equal(port_events(&mgd), RTE_BIT32(PRDMA_EVENT_GID_CHANGE));
	/* a refused Set changes nothing: no event */
	assert_int_equal(sm_rpc(2, HERMON_MAD_METHOD_SET, HERMON_SMP_ATTR_PKEY_TABLE, 9, d, d,
				&st), 0);
	assert_int_equal(st, HERMON_MAD_STATUS_BAD_VALUE);
	assert_int_equal(port_events(&mgd), 0);
	node_down(&mgd);
	node_down(&sm);
}

/*
 * SMInfo: no SM runs on the node, so the agent does not pass it to the
 * SMA (Linux mlx4_ib ib_process_mad), and with no SM agent registered to
 * take it ib_mad answers a Get or Set "unsupported method/attribute"
 * (generate_unmatched_resp), D set for a directed-route one.
 */
static void
test_sminfo_unsupported(void **state)
{
	uint8_t d[HERMON_SMP_DATA_LEN];
	struct hermon_sma_stats ss;
	uint16_t st;

	(void)state;
	node_up(&sm, 0, "tsminfo", true);
	node_up(&mgd, 1, "tsminfo", false);
	assert_int_equal(sm_rpc_dr(HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_SM_INFO, 0, NULL,
				   d, &st), 0);
	assert_int_equal(st, HERMON_MAD_STATUS_BAD_ATTR);
	sm_local_port(1);
	mgd_managed(0);
	assert_int_equal(sm_rpc(2, HERMON_MAD_METHOD_SET, HERMON_SMP_ATTR_SM_INFO, 0, d, d,
				&st), 0);
	assert_int_equal(st, HERMON_MAD_STATUS_BAD_ATTR);
	assert_int_equal(hermon_sma_get_stats(mgd.hd, 1, &ss), 0);
	assert_int_equal(ss.sminfo, 2);
	node_down(&mgd);
	node_down(&sm);
}

/* An RC QP of @n on @cq (connected by rc_connect, by DLID: no GRH). */
static struct prdma_qp *
rc_qp(struct node *n, struct prdma_cq *cq)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = prdma_qp_create(n->pd, &ia);
	assert_non_null(qp);
	return qp;
}

static void
rc_connect(struct prdma_qp *qp, uint32_t dqpn, uint16_t dlid)
{
	struct prdma_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = PRDMA_ACCESS_LOCAL_WRITE;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTR;
	a.path_mtu = PRDMA_MTU_1024;
	a.dest_qp_num = dqpn;
	a.ah_attr.dlid = dlid;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_AV |
					 PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
					 PRDMA_QP_RQ_PSN | PRDMA_QP_MAX_DEST_RD_ATOMIC |
					 PRDMA_QP_MIN_RNR_TIMER), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_RTS;
	a.timeout = 8;                  /* 4.096 us * 2^8: about 1 ms */
	a.retry_cnt = 2;
	a.rnr_retry = 2;
	a.max_rd_atomic = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
					 PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT |
					 PRDMA_QP_RNR_RETRY | PRDMA_QP_MAX_QP_RD_ATOMIC), 0);
}

/* The first completion on @cq within a generous time; 0 if none came. */
static int
cq_wait(struct prdma_cq *cq, struct prdma_wc *wc, unsigned int secs)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * secs;

	do {
		if (prdma_cq_poll(cq, 1, wc) == 1)
			return 1;
	} while (rte_get_tsc_cycles() < end);
	return 0;
}

/*
 * SEND from the SM's node (its port ACTIVE, LID 1) to the managed node
 * (LID 2) over an RC path without a GRH, @active telling whether the SM
 * has activated the managed port. A port that is not ACTIVE carries no
 * data (IBA 7.2: INIT and ARMED take SMPs only), so the request reaches
 * nobody and the RC QP retries to RETRY_EXC_ERR, as it would against a
 * dead peer; once ACTIVE, it arrives.
 */
static void
rc_send_to_mgd(bool active)
{
	struct prdma_cq_init_attr ca = { .cqe = 16 };
	struct prdma_cq *cq0 = prdma_cq_create(sm.dev, &ca), *cq1 = prdma_cq_create(mgd.dev, &ca);
	struct prdma_sge sge = { (uintptr_t)(sm.buf + SEND_OFF), 64, sm.mr->lkey };
	struct prdma_sge rsge = { (uintptr_t)(mgd.buf + SEND_OFF), 256, mgd.mr->lkey };
	struct prdma_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				    .opcode = PRDMA_WR_SEND, .send_flags = PRDMA_SEND_SIGNALED };
	struct prdma_recv_wr rwr = { .wr_id = 8, .sg_list = &rsge, .num_sge = 1 };
	const struct prdma_send_wr *bad;
	const struct prdma_recv_wr *rbad;
	struct hermon_model_stats ms0, ms1;
	struct prdma_qp *q0, *q1;
	struct prdma_wc wc;

	assert_non_null(cq0);
	assert_non_null(cq1);
	q0 = rc_qp(&sm, cq0);
	q1 = rc_qp(&mgd, cq1);
	rc_connect(q0, q1->qp_num, 2);
	rc_connect(q1, q0->qp_num, 1);
	assert_int_equal(hermon_model_get_stats(sm.m, &ms0), 0);
	assert_int_equal(prdma_post_recv(q1, &rwr, &rbad), 0);
	assert_int_equal(prdma_post_send(q0, &wr, &bad), 0);
	assert_int_equal(cq_wait(cq0, &wc, 20), 1);
	assert_int_equal(hermon_model_get_stats(sm.m, &ms1), 0);
	if (active) {
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_int_equal(cq_wait(cq1, &wc, 5), 1);
		assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
		assert_int_equal(wc.byte_len, 64);
		assert_true(ms1.ib_inactive == ms0.ib_inactive);
	} else {
		assert_int_equal(wc.status, PRDMA_WC_RETRY_EXC_ERR);
		assert_int_equal(prdma_cq_poll(cq1, 1, &wc), 0);
		assert_true(ms1.ib_inactive > ms0.ib_inactive);
	}
	assert_int_equal(prdma_qp_destroy(q0), 0);
	assert_int_equal(prdma_qp_destroy(q1), 0);
	while (prdma_cq_poll(cq0, 1, &wc) == 1 || prdma_cq_poll(cq1, 1, &wc) == 1)
		;
	assert_int_equal(prdma_cq_destroy(cq0), 0);
	assert_int_equal(prdma_cq_destroy(cq1), 0);
}

/*
 * Data waits for the SM: the managed port has its LID (2) but is INIT,
 * then ARMED: an RC SEND to it fails with RETRY_EXC_ERR and delivers
 * nothing; after the SM's SubnSet(PortInfo) to ACTIVE the same SEND
 * arrives.
 */
static void
test_data_needs_active_port(void **state)
{
	uint8_t d[HERMON_SMP_DATA_LEN];
	uint16_t st;

	(void)state;
	node_up(&sm, 0, "tsma", true);
	node_up(&mgd, 1, "tsma", false);
	sm_local_port(1);
	assert_int_equal(sm_rpc_dr(HERMON_MAD_METHOD_GET, HERMON_SMP_ATTR_PORT_INFO, 1, NULL,
				   d, &st), 0);
	hermon_mad_put16(d + HERMON_PI_LID, 2);
	hermon_mad_put16(d + HERMON_PI_SM_LID, 1);
	d[HERMON_PI_SPEED_STATE] &= 0xf0;
	assert_int_equal(sm_rpc_dr(HERMON_MAD_METHOD_SET, HERMON_SMP_ATTR_PORT_INFO, 1, d, d,
				   &st), 0);
	port_is(&mgd, PRDMA_PORT_INIT, 2);
	rc_send_to_mgd(false);
	sm_set_state(2, HERMON_IB_PORT_ARMED, 0);
	port_is(&mgd, PRDMA_PORT_ARMED, 2);
	rc_send_to_mgd(false);
	sm_set_state(2, HERMON_IB_PORT_ACTIVE, 0);
	port_is(&mgd, PRDMA_PORT_ACTIVE, 2);
	rc_send_to_mgd(true);
	node_down(&mgd);
	node_down(&sm);
}

/* @n's GSI QP (QP1) on port 1, in RTS with its receives posted. */
static struct prdma_qp *
qp1_up(struct node *n)
{
	struct prdma_qp_init_attr qa;
	struct prdma_qp_attr a;
	struct prdma_qp *qp;
	unsigned int i;

	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_UD;
	qa.send_cq = n->cq;
	qa.recv_cq = n->cq;
	qa.cap.max_send_wr = 8;
	qa.cap.max_recv_wr = NRECV;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.create_flags = PRDMA_QP_CREATE_GSI;
	qp = prdma_qp_create(n->pd, &qa);
	assert_non_null(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x80010000;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_QKEY), 0);
	a.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE), 0);
	a.qp_state = PRDMA_QPS_RTS;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	n->qp = qp;
	for (i = 0; i < NRECV; i++)
		post_recv(n, i);
	n->qp = NULL;
	return qp;
}

/*
 * IB QP1 with a GRH (LNH 3) when the AH asks for one: the MAD reaches the
 * peer's QP1 with the GRH in the first 40 bytes (SGID the sender's GID 0,
 * DGID the receiver's) and the completion says GRH; without
 * PRDMA_AH_F_GLOBAL it goes LRH-only, as before (no GRH flag).
 */
static void
test_gsi_grh_on_ib(void **state)
{
	union prdma_gid g0, g1;
	struct prdma_qp *q0, *q1;
	struct prdma_ah_attr aa;
	struct prdma_ah *ah;
	int k;

	(void)state;
	t_sm_ran = true;
	node_up(&sm, 0, "tsmg", false);
	node_up(&mgd, 1, "tsmg", false);
	t_sm_ran = false;
	port_is(&sm, PRDMA_PORT_ACTIVE, 1);
	port_is(&mgd, PRDMA_PORT_ACTIVE, 2);
	assert_int_equal(prdma_gid_query(sm.dev, 1, 0, &g0), 0);
	assert_int_equal(prdma_gid_query(mgd.dev, 1, 0, &g1), 0);
	q0 = qp1_up(&sm);
	q1 = qp1_up(&mgd);
	for (k = 0; k < 2; k++) {
		uint8_t mad[HERMON_MAD_SIZE];
		uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 5;
		struct prdma_wc wc;
		int got = 0;

		memset(&aa, 0, sizeof(aa));
		aa.port_num = 1;
		aa.dlid = 2;
		if (k == 0) {
			aa.flags = PRDMA_AH_F_GLOBAL;
			aa.dgid = g1;
			aa.hop_limit = 1;
		}
		ah = prdma_ah_create(sm.pd, &aa);
		assert_non_null(ah);
		memset(mad, 0, sizeof(mad));
		mad[HERMON_MAD_BASE_VERSION] = 1;
		mad[HERMON_MAD_MGMT_CLASS] = 0x07;    /* CM: any GSI class */
		mad[HERMON_MAD_CLASS_VERSION] = 2;
		hermon_mad_put64(mad + HERMON_MAD_TID, 0x77 + (uint64_t)k);
		sm.qp = q0;
		t_dqpn = 1;
		send_mad(&sm, ah, mad, (unsigned int)k);
		t_dqpn = 0;
		sm.qp = NULL;
		while (got == 0 && rte_get_tsc_cycles() < end)
			while (prdma_cq_poll(mgd.cq, 1, &wc) == 1) {
				const uint8_t *r = mgd.buf + wc.wr_id * SLOT;

				assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
				assert_int_equal(wc.opcode, PRDMA_WC_RECV);
				assert_int_equal(wc.src_qp, 1);
				assert_int_equal(wc.byte_len, 40 + 256);
				assert_true(hermon_mad_get64(r + 40 + HERMON_MAD_TID) ==
					    0x77 + (uint64_t)k);
				if (k == 0) {
					assert_true(wc.wc_flags & PRDMA_WC_GRH);
					assert_memory_equal(r + 8, g0.raw, 16);
					assert_memory_equal(r + 24, g1.raw, 16);
				} else {
					assert_false(wc.wc_flags & PRDMA_WC_GRH);
				}
				got++;
			}
		assert_int_equal(got, 1);
		assert_int_equal(prdma_ah_destroy(ah), 0);
	}
	assert_int_equal(prdma_qp_destroy(q0), 0);
	assert_int_equal(prdma_qp_destroy(q1), 0);
	node_down(&mgd);
	node_down(&sm);
}

/* QP0 exists on InfiniBand ports only, and not as the GSI QP too. */
static void
test_smi_refused(void **state)
{
	struct prdma_cq_init_attr ca = { .cqe = 16 };
	struct prdma_qp_init_attr qa;
	struct prdma_qp_attr a;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp, *qp2;
	int id;

	(void)state;
	id = prdma_dev_probe("hermon:model,name=tsmie");
	assert_true(id >= 0);
	dev = prdma_dev_open((uint16_t)id);
	pd = prdma_pd_alloc(dev);
	cq = prdma_cq_create(dev, &ca);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_UD;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.create_flags = PRDMA_QP_CREATE_SMI | PRDMA_QP_CREATE_GSI;
	assert_null(prdma_qp_create(pd, &qa));
	assert_int_equal(rte_errno, EINVAL);
	qa.create_flags = PRDMA_QP_CREATE_SMI;
	qp = prdma_qp_create(pd, &qa);
	assert_non_null(qp);
	/* one per port */
	qp2 = prdma_qp_create(pd, &qa);
	assert_null(qp2);
	assert_int_equal(rte_errno, EBUSY);
	/* an Ethernet port has no QP0 */
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	assert_int_equal(prdma_qp_modify(qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_QKEY), -ENOTSUP);
	assert_int_equal(prdma_qp_destroy(qp), 0);
	assert_int_equal(prdma_cq_destroy(cq), 0);
	assert_int_equal(prdma_pd_free(pd), 0);
	prdma_dev_close(dev);
	assert_int_equal(prdma_dev_remove((uint16_t)id), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sm_over_qp0),
		cmocka_unit_test(test_app_qp0_takes_over),
		cmocka_unit_test(test_dr_smp_checks),
		cmocka_unit_test(test_bad_mkey_trap),
		cmocka_unit_test(test_snoop_port_changes),
		cmocka_unit_test(test_sminfo_unsupported),
		cmocka_unit_test(test_data_needs_active_port),
		cmocka_unit_test(test_gsi_grh_on_ib),
		cmocka_unit_test(test_smi_refused),
	};

	if (t_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("hermon-smi", tests, NULL, NULL);
}
