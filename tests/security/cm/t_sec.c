/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include <prdma_cm.h>

#include "roce.h"
#include "t_sec.h"

void
t_dev_open(struct t_dev *d, const char *devargs)
{
	struct prdma_cq_init_attr ca = { .cqe = 256 };
	int id;

	memset(d, 0, sizeof(*d));
	id = prdma_dev_probe(devargs);
	assert_true(id >= 0);
	d->dev = prdma_dev_open((uint16_t)id);
	assert_non_null(d->dev);
	d->pd = prdma_pd_alloc(d->dev);
	assert_non_null(d->pd);
	d->cq = prdma_cq_create(d->dev, &ca);
	assert_non_null(d->cq);
	assert_int_equal(prdma_gid_query(d->dev, 1, 0, &d->gid), 0);
}

void
t_dev_close(struct t_dev *d)
{
	uint16_t id = d->dev->dev_id;

	prdma_cq_destroy(d->cq);
	prdma_pd_free(d->pd);
	prdma_dev_close(d->dev);
	prdma_dev_remove(id);
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
	dev->now = rte_rdtsc();
	roce_engine_rx_frame(dev, m);
	roce_engine_unlock(dev);
	rte_pktmbuf_free(m);
}

void
t_inject_mad(struct t_dev *d, uint32_t src_ip, const uint8_t mad[CM_MAD_SIZE])
{
	struct roce_dev *dev = roce_dev_of(d->dev);
	uint8_t f[ROCE_ETH_LEN + ROCE_IPV4_LEN + ROCE_UDP_LEN + ROCE_BTH_LEN +
		  ROCE_DETH_LEN + CM_MAD_SIZE + ROCE_ICRC_LEN];
	uint8_t *ip = f + ROCE_ETH_LEN, *udp = ip + ROCE_IPV4_LEN;
	uint8_t *bth = udp + ROCE_UDP_LEN;
	uint32_t crc, len = sizeof(f);

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
	struct roce_dev *dev = roce_dev_of(d->dev);
	uint8_t f[60];

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
