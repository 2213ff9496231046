/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include <prdma_cm.h>

#include "roce.h"
#include "t_sec.h"

/* The sender of t_inject_mad on a device with no frame injection. */
#define PEER_SLOTS 16
#define PEER_SLOT  512                  /* GRH + MAD */
#define PEER_WAIT_MS 10000

struct t_peer {
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *cq;
	struct prdma_qp *qp;               /* a GSI QP of its own: no CM there */
	struct prdma_ah *ah;               /* to the device under test */
	struct prdma_mr *mr;
	uint8_t *buf;                      /* receive slots, then one send slot */
	uint32_t ip;
};

static struct prdma_dev *
dev_up(const char *devargs)
{
	struct prdma_dev *dev;
	int id;

	id = prdma_dev_probe(devargs);
	assert_true(id >= 0);
	dev = prdma_dev_open((uint16_t)id);
	assert_non_null(dev);
	return dev;
}

/* The port's IPv4 GID (index 0 on the soft provider; after the link-local
 * one on hermon). */
static uint8_t
ipv4_gid(struct prdma_dev *dev, union prdma_gid *gid)
{
	uint8_t i;

	for (i = 0; i < 16; i++)
		if (prdma_gid_query(dev, 1, i, gid) == 0 && gid->raw[10] == 0xff &&
		    gid->raw[11] == 0xff)
			return i;
	fail_msg("%s: no IPv4 GID", dev->name);
	return 0;
}

void
t_dev_open(struct t_dev *d, const char *devargs)
{
	struct prdma_cq_init_attr ca = { .cqe = 256 };

	memset(d, 0, sizeof(*d));
	d->dev = dev_up(devargs);
	d->pd = prdma_pd_alloc(d->dev);
	assert_non_null(d->pd);
	d->cq = prdma_cq_create(d->dev, &ca);
	assert_non_null(d->cq);
	(void)ipv4_gid(d->dev, &d->gid);
}

static void
peer_post_recv(struct t_peer *p, uint32_t slot)
{
	const struct prdma_recv_wr *bad;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;

	sge.addr = (uintptr_t)(p->buf + slot * PEER_SLOT);
	sge.length = PEER_SLOT;
	sge.lkey = p->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	assert_int_equal(prdma_post_recv(p->qp, &wr, &bad), 0);
}

void
t_dev_open_peer(struct t_dev *d, const char *devargs, const char *peer_devargs,
		uint32_t peer_ip)
{
	struct prdma_cq_init_attr ca = { .cqe = 2 * PEER_SLOTS };
	struct prdma_qp_init_attr qa;
	struct prdma_ah_attr aa;
	struct prdma_qp_attr a;
	union prdma_gid pgid;
	struct t_peer *p;
	uint32_t i;

	t_dev_open(d, devargs);
	p = calloc(1, sizeof(*p));
	assert_non_null(p);
	p->ip = peer_ip;
	p->dev = dev_up(peer_devargs);
	p->pd = prdma_pd_alloc(p->dev);
	assert_non_null(p->pd);
	p->cq = prdma_cq_create(p->dev, &ca);
	assert_non_null(p->cq);
	p->buf = rte_zmalloc("t_sec_peer", (PEER_SLOTS + 1) * PEER_SLOT, 64);
	assert_non_null(p->buf);
	p->mr = prdma_mr_reg(p->pd, p->buf, (PEER_SLOTS + 1) * PEER_SLOT,
			     PRDMA_ACCESS_LOCAL_WRITE);
	assert_non_null(p->mr);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = PRDMA_QPT_UD;
	qa.send_cq = p->cq;
	qa.recv_cq = p->cq;
	qa.cap.max_send_wr = PEER_SLOTS;
	qa.cap.max_recv_wr = PEER_SLOTS;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.create_flags = PRDMA_QP_CREATE_GSI;
	p->qp = prdma_qp_create(p->pd, &qa);
	assert_non_null(p->qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = PRDMA_QPS_INIT;
	a.port_num = 1;
	a.qkey = PRDMA_GSI_QKEY;
	assert_int_equal(prdma_qp_modify(p->qp, &a, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
					 PRDMA_QP_PORT | PRDMA_QP_QKEY), 0);
	a.qp_state = PRDMA_QPS_RTR;
	assert_int_equal(prdma_qp_modify(p->qp, &a, PRDMA_QP_STATE), 0);
	a.qp_state = PRDMA_QPS_RTS;
	a.sq_psn = 0;
	assert_int_equal(prdma_qp_modify(p->qp, &a, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN), 0);
	for (i = 0; i < PEER_SLOTS; i++)
		peer_post_recv(p, i);
	memset(&aa, 0, sizeof(aa));
	aa.dgid = d->gid;
	aa.sgid_index = ipv4_gid(p->dev, &pgid);
	assert_int_equal(rte_be_to_cpu_32(*(uint32_t *)&pgid.raw[12]), peer_ip);
	aa.port_num = 1;
	aa.hop_limit = 64;
	p->ah = prdma_ah_create(p->pd, &aa);
	assert_non_null(p->ah);
	d->peer = p;
}

bool
t_dev_soft(const struct t_dev *d)
{
	return d->peer == NULL;
}

void
t_dev_close(struct t_dev *d)
{
	uint16_t id = d->dev->dev_id;
	struct t_peer *p = d->peer;

	prdma_cq_destroy(d->cq);
	prdma_pd_free(d->pd);
	prdma_dev_close(d->dev);
	prdma_dev_remove(id);
	if (p == NULL)
		return;
	id = p->dev->dev_id;
	prdma_ah_destroy(p->ah);
	prdma_qp_destroy(p->qp);
	prdma_mr_dereg(p->mr);
	rte_free(p->buf);
	prdma_cq_destroy(p->cq);
	prdma_pd_free(p->pd);
	prdma_dev_close(p->dev);
	prdma_dev_remove(id);
	free(p);
	d->peer = NULL;
}

/* Completions on the peer: receives (the CM's answers) are put back. */
static void
peer_poll(struct t_peer *p, bool *sent)
{
	struct prdma_wc wc[8];
	int n, i;

	n = prdma_cq_poll(p->cq, RTE_DIM(wc), wc);
	for (i = 0; i < n; i++) {
		if (wc[i].opcode >= PRDMA_WC_RECV) {
			peer_post_recv(p, (uint32_t)wc[i].wr_id);
			continue;
		}
		assert_int_equal(wc[i].status, PRDMA_WC_SUCCESS);
		*sent = true;
	}
}

/* Send @mad from the peer to the device's QP1, and progress the device's
 * CM until it has received it (the model moves it on its own thread). */
static void
peer_inject_mad(struct t_dev *d, uint32_t src_ip, const uint8_t mad[CM_MAD_SIZE])
{
	struct t_peer *p = d->peer;
	const struct prdma_send_wr *bad;
	struct prdma_cm_stats st;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	uint64_t rx0, t0;
	bool sent = false;

	/* the GRH names the peer's one address whatever @src_ip says; the CM
	 * answers a REQ where its path says (a forged address there works) */
	(void)src_ip;
	assert_non_null(d->ch);
	memset(&st, 0, sizeof(st));
	prdma_cm_stats_get(d->dev, &st);
	rx0 = st.rx_mads;
	memcpy(p->buf + PEER_SLOTS * PEER_SLOT, mad, CM_MAD_SIZE);
	sge.addr = (uintptr_t)(p->buf + PEER_SLOTS * PEER_SLOT);
	sge.length = CM_MAD_SIZE;
	sge.lkey = p->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = UINT64_MAX;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PRDMA_WR_SEND;
	wr.send_flags = PRDMA_SEND_SIGNALED;
	wr.wr.ud.ah = p->ah;
	wr.wr.ud.remote_qpn = 1;
	wr.wr.ud.remote_qkey = PRDMA_GSI_QKEY;
	assert_int_equal(prdma_post_send(p->qp, &wr, &bad), 0);
	t0 = rte_get_tsc_cycles();
	for (;;) {
		peer_poll(p, &sent);
		prdma_cm_channel_progress(d->ch);
		prdma_cm_stats_get(d->dev, &st);
		if (sent && st.rx_mads > rx0)
			break;
		if (t_ms_since(t0) > PEER_WAIT_MS)
			fail_msg("the injected MAD did not arrive within %u ms", PEER_WAIT_MS);
		rte_delay_us_sleep(50);
	}
}

static void
rx(struct t_dev *d, const uint8_t *frame, uint32_t len)
{
	struct roce_dev *dev = roce_dev_of(d->dev);
	struct rte_mbuf *m = rte_pktmbuf_alloc(dev->mp);

	assert_non_null(m);
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), frame, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	roce_engine_lock(dev);
	dev->eng[0].now = rte_rdtsc();
	roce_engine_rx_frame(&dev->eng[0], m);
	roce_engine_unlock(dev);
	rte_pktmbuf_free(m);
}

void
t_inject_mad(struct t_dev *d, uint32_t src_ip, const uint8_t mad[CM_MAD_SIZE])
{
	struct roce_dev *dev;
	uint8_t f[ROCE_ETH_LEN + ROCE_IPV4_LEN + ROCE_UDP_LEN + ROCE_BTH_LEN +
		  ROCE_DETH_LEN + CM_MAD_SIZE + ROCE_ICRC_LEN];
	uint8_t *ip = f + ROCE_ETH_LEN, *udp = ip + ROCE_IPV4_LEN;
	uint8_t *bth = udp + ROCE_UDP_LEN;
	uint32_t crc, len = sizeof(f);

	if (d->peer != NULL) {
		peer_inject_mad(d, src_ip, mad);
		return;
	}
	dev = roce_dev_of(d->dev);
	memset(f, 0, sizeof(f));
	memcpy(f, dev->mac.addr_bytes, 6);
	f[6] = 0x02;                         /* a locally administered sender */
	f[11] = 0x99;
	roce_put16(f + 12, RTE_ETHER_TYPE_IPV4);
	ip[0] = 0x45;
	roce_put16(ip + 2, (uint16_t)(len - ROCE_ETH_LEN));
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	roce_put32(ip + 12, src_ip);
	memcpy(ip + 16, &d->gid.raw[12], 4);
	roce_put16(udp, 0xc123);
	roce_put16(udp + 2, ROCE_UDP_PORT);
	roce_put16(udp + 4, (uint16_t)(len - ROCE_ETH_LEN - ROCE_IPV4_LEN));
	bth[0] = ROCE_TR_UD | ROCE_OP_SEND_ONLY;
	roce_put16(bth + 2, 0xffff);
	roce_put24(bth + 5, 1);              /* QP1 */
	roce_put32(bth + ROCE_BTH_LEN, PRDMA_GSI_QKEY);
	roce_put24(bth + ROCE_BTH_LEN + 5, 1);
	memcpy(bth + ROCE_BTH_LEN + ROCE_DETH_LEN, mad, CM_MAD_SIZE);
	crc = rte_cpu_to_le_32(roce_icrc(ip, len - ROCE_ETH_LEN - ROCE_ICRC_LEN, 0));
	memcpy(f + len - ROCE_ICRC_LEN, &crc, 4);
	rx(d, f, len);
}

void
t_inject_arp(struct t_dev *d, uint16_t op, const uint8_t sha[6], uint32_t spa,
	     uint32_t tpa)
{
	struct roce_dev *dev;
	uint8_t f[60];

	/* hermon:model's cable carries no Ethernet frames: no ARP there */
	assert_null(d->peer);
	dev = roce_dev_of(d->dev);

	memset(f, 0, sizeof(f));
	if (op == 1)
		memset(f, 0xff, 6);
	else
		memcpy(f, dev->mac.addr_bytes, 6);
	memcpy(f + 6, sha, 6);
	roce_put16(f + 12, RTE_ETHER_TYPE_ARP);
	roce_put16(f + 14, 1);
	roce_put16(f + 16, RTE_ETHER_TYPE_IPV4);
	f[18] = 6;
	f[19] = 4;
	roce_put16(f + 20, op);
	memcpy(f + 22, sha, 6);
	roce_put32(f + 28, spa);
	if (op == 2)
		memcpy(f + 32, dev->mac.addr_bytes, 6);
	roce_put32(f + 38, tpa);
	rx(d, f, sizeof(f));
}

void
t_make_req(uint8_t mad[CM_MAD_SIZE], uint32_t n, uint16_t port,
	   const union prdma_gid *dst, uint32_t src_ip, uint8_t resp_timeout,
	   uint8_t ack_timeout)
{
	struct cm_cma_hdr h;
	struct cm_msg m;
	uint32_t be = htonl(src_ip);

	memset(&m, 0, sizeof(m));
	cm_mad_hdr_init(&m.hdr, CM_ATTR_REQ, 0x5ec0000000ull + n);
	m.req.local_comm_id = 0x51000000u + n;
	m.req.service_id = PRDMA_CM_SERVICE_ID(PRDMA_CM_PS_TCP, port);
	m.req.local_ca_guid = 0x0a00000000000000ull + n;
	m.req.local_qpn = 0x200 + n;
	m.req.responder_resources = 1;
	m.req.initiator_depth = 1;
	m.req.remote_cm_response_timeout = 20;
	m.req.transport_type = CM_TRANSPORT_RC;
	m.req.starting_psn = 0x4242;
	m.req.local_cm_response_timeout = resp_timeout;
	m.req.retry_count = 7;
	m.req.pkey = 0xffff;
	m.req.path_mtu = PRDMA_MTU_1024;
	m.req.rnr_retry_count = 7;
	m.req.max_cm_retries = 15;
	m.req.primary.local_lid = 0xffff;
	m.req.primary.remote_lid = 0xffff;
	m.req.primary.local_gid[10] = 0xff;
	m.req.primary.local_gid[11] = 0xff;
	memcpy(&m.req.primary.local_gid[12], &be, 4);
	memcpy(m.req.primary.remote_gid, dst->raw, 16);
	m.req.primary.hop_limit = 64;
	m.req.primary.local_ack_timeout = ack_timeout;
	memset(&h, 0, sizeof(h));
	h.version = CM_CMA_VERSION;
	h.ip_version = 4;
	h.src_port = 41000;
	memcpy(&h.src_ip[12], &be, 4);
	memcpy(&h.dst_ip[12], &dst->raw[12], 4);
	cm_cma_hdr_encode(&h, m.req.private_data);
	assert_int_equal(cm_mad_encode(&m, mad), 0);
}

double
t_ms_since(uint64_t tsc0)
{
	return (double)(rte_get_tsc_cycles() - tsc0) * 1000.0 / (double)rte_get_tsc_hz();
}
