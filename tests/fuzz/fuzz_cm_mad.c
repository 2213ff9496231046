/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Fuzz the connection manager: its MAD decoder, and its state machine fed
 * MADs that arrive on QP1 of a device with a listener.
 *
 * Side A holds a raw GSI QP of its own (no CM on A): it sends each MAD of
 * the input to side B's QP1 and swallows what B answers, remembering B's
 * latest communication id. Side B runs the CM with a listener on
 * 0.0.0.0:7174 (the service id in tests/data/pcaps/rping.pcap); every
 * CONNECT_REQUEST is accepted or rejected, and every id born of the input
 * is destroyed at its end.
 *
 * Input: up to 8 chunks of 1 + 256 bytes (the last may be short). The
 * chunk's first byte steers: bit 0 aims the MAD at B (a REQ or SIDR_REQ
 * gets the harness's addresses: path GIDs and the rdma_cm header's IPs;
 * any other message B's latest connection: remote_comm_id and TID
 * patched, through the codec), bit 1 accepts
 * (else rejects) the requests it raises, bit 2 lets the CM timers run a
 * little before the next chunk, bit 3 sends it short, bit 4 leaves the
 * requests it raises undecided until a chunk without bit 4. B listens on
 * port 7174 for PS_TCP (RC, accepted with an RC QP) and PS_UDP (SIDR,
 * accepted with a UD QP). The rest is the MAD. Every MAD also goes
 * straight to cm_mad_decode at every length.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include <prdma.h>
#include <prdma_cm.h>

#include "cm_mad.h"
#include "fz_common.h"

#define FZ_PORT      7174
#define FZ_A_IP      0xc000020bu       /* 192.0.2.11, side A */
#define FZ_RECVS     32
#define FZ_SLOT      (40 + CM_MAD_SIZE)
#define FZ_MAX_CHUNK 8
#define FZ_MAX_IDS   16

static struct {
	int id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp;
	struct prdma_mr *mr;
	uint8_t *buf;
	struct prdma_ah *ah;
} a;

static struct {
	int id;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_cm_channel *ch;
	struct prdma_cm_id *listener;
	struct prdma_cm_id *ulistener;     /* PS_UDP: SIDR */
	union prdma_gid gid;
} b;

static struct prdma_cm_id *born[FZ_MAX_IDS];
static struct prdma_qp *born_qp[FZ_MAX_IDS];
static uint8_t born_held[FZ_MAX_IDS];
static unsigned int nb_born;
static uint32_t b_comm_id;
static uint64_t b_tid;
static int ready;

static void
a_post_recv(uint32_t i)
{
	const struct prdma_recv_wr *bad;
	struct prdma_sge sge = {
		.addr = (uintptr_t)(a.buf + (size_t)i * FZ_SLOT),
		.length = FZ_SLOT,
		.lkey = a.mr->lkey,
	};
	struct prdma_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };

	FZ_CHECK(prdma_post_recv(a.qp, &wr, &bad) == 0);
}

static void
a_setup(void)
{
	struct prdma_qp_init_attr ia;
	struct prdma_cq_init_attr ca;
	struct prdma_ah_attr aa;
	struct prdma_qp_attr qa;
	uint32_t i;

	a.id = prdma_dev_probe("roce:ring=fzcm,side=0,ip=192.0.2.11");
	FZ_CHECK(a.id >= 0);
	a.dev = prdma_dev_open((uint16_t)a.id);
	FZ_CHECK(a.dev != NULL);
	a.pd = prdma_pd_alloc(a.dev);
	FZ_CHECK(a.pd != NULL);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 1024;
	a.cq = prdma_cq_create(a.dev, &ca);
	FZ_CHECK(a.cq != NULL);
	a.buf = rte_zmalloc(NULL, (FZ_RECVS + 1) * FZ_SLOT, 64);
	FZ_CHECK(a.buf != NULL);
	a.mr = prdma_mr_reg(a.pd, a.buf, (FZ_RECVS + 1) * FZ_SLOT,
			    PRDMA_ACCESS_LOCAL_WRITE);
	FZ_CHECK(a.mr != NULL);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_UD;
	ia.send_cq = a.cq;
	ia.recv_cq = a.cq;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = FZ_RECVS;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.create_flags = PRDMA_QP_CREATE_GSI;
	a.qp = prdma_qp_create(a.pd, &ia);
	FZ_CHECK(a.qp != NULL);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_INIT;
	qa.port_num = 1;
	qa.qkey = PRDMA_GSI_QKEY;
	FZ_CHECK(prdma_qp_modify(a.qp, &qa, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
				 PRDMA_QP_PORT | PRDMA_QP_QKEY) == 0);
	qa.qp_state = PRDMA_QPS_RTR;
	FZ_CHECK(prdma_qp_modify(a.qp, &qa, PRDMA_QP_STATE) == 0);
	qa.qp_state = PRDMA_QPS_RTS;
	FZ_CHECK(prdma_qp_modify(a.qp, &qa, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN) == 0);
	for (i = 0; i < FZ_RECVS; i++)
		a_post_recv(i);
	memset(&aa, 0, sizeof(aa));
	aa.dgid = b.gid;
	aa.port_num = 1;
	a.ah = prdma_ah_create(a.pd, &aa);
	FZ_CHECK(a.ah != NULL);
}

static void
b_setup(void)
{
	struct prdma_cq_init_attr ca;
	struct sockaddr_in sin;

	b.id = prdma_dev_probe("roce:ring=fzcm,side=1,ip=192.0.2.12");
	FZ_CHECK(b.id >= 0);
	b.dev = prdma_dev_open((uint16_t)b.id);
	FZ_CHECK(b.dev != NULL);
	FZ_CHECK(prdma_gid_query(b.dev, 1, 0, &b.gid) == 0);
	b.pd = prdma_pd_alloc(b.dev);
	FZ_CHECK(b.pd != NULL);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 1024;
	b.cq = prdma_cq_create(b.dev, &ca);
	FZ_CHECK(b.cq != NULL);
	b.ch = prdma_cm_channel_create(0);
	FZ_CHECK(b.ch != NULL);
	b.listener = prdma_cm_id_create(b.ch, b.dev, 1, PRDMA_CM_PS_TCP, NULL);
	FZ_CHECK(b.listener != NULL);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(FZ_PORT);
	FZ_CHECK(prdma_cm_listen(b.listener, (struct sockaddr *)&sin, 16) == 0);
	b.ulistener = prdma_cm_id_create(b.ch, b.dev, 1, PRDMA_CM_PS_UDP, NULL);
	FZ_CHECK(b.ulistener != NULL);
	FZ_CHECK(prdma_cm_listen(b.ulistener, (struct sockaddr *)&sin, 16) == 0);
}

static void
setup(void)
{
	fz_eal_init();
	b_setup();
	a_setup();
	ready = 1;
}

static struct prdma_qp *
b_qp(enum prdma_qp_type type)
{
	struct prdma_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = type;
	ia.send_cq = b.cq;
	ia.recv_cq = b.cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return prdma_qp_create(b.pd, &ia);
}

/* What B sent to A: remember B's communication id and TID. */
static void
a_reap(void)
{
	struct prdma_wc wc[16];
	struct cm_msg msg;
	int n, i;

	while ((n = prdma_cq_poll(a.cq, RTE_DIM(wc), wc)) > 0)
		for (i = 0; i < n; i++) {
			if (wc[i].opcode != PRDMA_WC_RECV)
				continue;
			if (wc[i].status == PRDMA_WC_SUCCESS &&
			    wc[i].byte_len >= 40 + CM_MAD_SIZE &&
			    cm_mad_decode(a.buf + wc[i].wr_id * FZ_SLOT + 40,
					  CM_MAD_SIZE, &msg) == 0) {
				b_tid = msg.hdr.tid;
				/* local_comm_id leads every body but SIDR's */
				b_comm_id = msg.req.local_comm_id;
			}
			if (wc[i].status != PRDMA_WC_WR_FLUSH_ERR)
				a_post_recv((uint32_t)wc[i].wr_id);
		}
}

/* Answer a request born of the input: accept with a QP of its type, or
 * reject. */
static void
b_answer(unsigned int i, int accept)
{
	struct prdma_cm_conn_param p;
	struct prdma_cm_id *id = born[i];
	struct prdma_qp *qp;

	if (!accept) {
		(void)prdma_cm_reject(id, NULL, 0, PRDMA_CM_REJ_CONSUMER_DEFINED);
		return;
	}
	qp = b_qp(id->ps == PRDMA_CM_PS_UDP ? PRDMA_QPT_UD : PRDMA_QPT_RC);
	FZ_CHECK(qp != NULL);
	born_qp[i] = qp;
	memset(&p, 0, sizeof(p));
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.cm_response_timeout = 8;
	p.max_cm_retries = 2;
	(void)prdma_cm_accept(id, qp, &p);
}

/* @hold: leave new requests undecided (a duplicate REQ then gets an MRA);
 * without it, requests held by earlier chunks are answered first. */
static void
b_events(int accept, int hold)
{
	struct prdma_cm_event *ev;
	unsigned int i;

	if (!hold)
		for (i = 0; i < nb_born; i++)
			if (born_held[i]) {
				born_held[i] = 0;
				b_answer(i, accept);
			}
	while (prdma_cm_get_event(b.ch, &ev) == 0) {
		if (ev->event == PRDMA_CM_EVENT_CONNECT_REQUEST) {
			struct prdma_cm_id *id = ev->id;

			prdma_cm_ack_event(ev);
			if (nb_born == FZ_MAX_IDS) {
				prdma_cm_id_destroy(id);
				continue;
			}
			born[nb_born] = id;
			born_qp[nb_born] = NULL;
			born_held[nb_born] = (uint8_t)hold;
			if (!hold)
				b_answer(nb_born, accept);
			nb_born++;
			continue;
		}
		prdma_cm_ack_event(ev);
	}
}

static void
pump(unsigned int rounds, uint8_t ctl)
{
	unsigned int i;

	for (i = 0; i < rounds; i++) {
		prdma_dev_progress(a.dev);
		prdma_dev_progress(b.dev);
		prdma_cm_channel_progress(b.ch);
		a_reap();
		b_events(ctl & RTE_BIT32(1), ctl & RTE_BIT32(4));
	}
}

static void
a_send(const uint8_t *mad, size_t len)
{
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	uint8_t *slot = a.buf + (size_t)FZ_RECVS * FZ_SLOT;

	memcpy(slot, mad, len);
	sge.addr = (uintptr_t)slot;
	sge.length = (uint32_t)len;
	sge.lkey = a.mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.ud.ah = a.ah;
	wr.wr.ud.remote_qpn = 1;
	wr.wr.ud.remote_qkey = PRDMA_GSI_QKEY;
	FZ_CHECK(prdma_post_send(a.qp, &wr, &bad) == 0);
}

static void
a_gid(uint8_t gid[16])
{
	union prdma_gid g;

	prdma_gid_from_ipv4(&g, FZ_A_IP);
	memcpy(gid, g.raw, 16);
}

/* The rdma_cm addressing header at @pdata: from A's IP to B's. */
static void
readdress(uint8_t *pdata)
{
	struct cm_cma_hdr h;
	union prdma_gid g;

	if (cm_cma_hdr_decode(pdata, &h) < 0)
		return;
	h.ip_version = 4;
	memset(h.src_ip, 0, sizeof(h.src_ip));
	memset(h.dst_ip, 0, sizeof(h.dst_ip));
	prdma_gid_from_ipv4(&g, FZ_A_IP);
	memcpy(&h.src_ip[12], &g.raw[12], 4);
	memcpy(&h.dst_ip[12], &b.gid.raw[12], 4);
	cm_cma_hdr_encode(&h, pdata);
}

static void
aim(uint8_t *mad, size_t len)
{
	struct cm_msg msg;

	if (len < CM_MAD_SIZE || cm_mad_decode(mad, CM_MAD_SIZE, &msg) < 0)
		return;
	switch (msg.hdr.attr_id) {
	case CM_ATTR_REQ:
		/* Address it to this harness (a captured REQ names another
		 * network): the path from A to B, and the addressing header's
		 * IPs, so the listener and cm_find_sgid accept it. */
		a_gid(msg.req.primary.local_gid);
		memcpy(msg.req.primary.remote_gid, b.gid.raw, 16);
		readdress(msg.req.private_data);
		break;
	case CM_ATTR_SIDR_REQ:
		readdress(msg.sidr_req.private_data);
		break;
	case CM_ATTR_SIDR_REP:
		return;
	default:
		/* remote_comm_id is the second word of every other body */
		msg.rtu.remote_comm_id = b_comm_id;
		msg.hdr.tid = b_tid;
		break;
	}
	if (cm_mad_encode(&msg, mad) < 0)
		memset(mad, 0, CM_MAD_SIZE);
}

static void
cleanup(void)
{
	unsigned int i;

	for (i = 0; i < nb_born; i++) {
		FZ_CHECK(prdma_cm_id_destroy(born[i]) == 0);
		if (born_qp[i] != NULL)
			FZ_CHECK(prdma_qp_destroy(born_qp[i]) == 0);
	}
	nb_born = 0;
	memset(born_held, 0, sizeof(born_held));
	pump(4, 0);
	if (getenv("FZ_VERBOSE") != NULL) {
		struct prdma_cm_stats st;

		if (prdma_cm_stats_get(b.dev, &st) == 0)
			printf("cm: rx %" PRIu64 " malformed %" PRIu64 " tx %" PRIu64 "\n",
			       st.rx_mads, st.rx_malformed, st.tx_mads);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mad[CM_MAD_SIZE];
	struct cm_msg msg;
	unsigned int c;
	size_t len, i;
	uint8_t ctl;

	if (!ready)
		setup();
	/* The decoder on its own, at every length of the whole input. */
	for (i = 0; i <= RTE_MIN(size, (size_t)CM_MAD_SIZE + 8); i += 37)
		(void)cm_mad_decode(data, i, &msg);
	(void)cm_mad_decode(data, size, &msg);
	for (c = 0; c < FZ_MAX_CHUNK && size > 1; c++) {
		ctl = data[0];
		len = RTE_MIN(size - 1, (size_t)CM_MAD_SIZE);
		memset(mad, 0, sizeof(mad));
		memcpy(mad, data + 1, len);
		if (ctl & RTE_BIT32(0))
			aim(mad, CM_MAD_SIZE);
		(void)cm_mad_decode(mad, len, &msg);
		a_send(mad, (ctl & RTE_BIT32(3)) ? len : CM_MAD_SIZE);
		pump(8, ctl);
		if (ctl & RTE_BIT32(2))
			rte_delay_us_block(200);
		data += 1 + len;
		size -= 1 + len;
	}
	cleanup();
	return 0;
}
