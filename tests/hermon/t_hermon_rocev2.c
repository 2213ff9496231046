/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * RoCE v2 framing of QP1 (issue 14): a model that reports RoCE v1/v2
 * (model_rocev2=1, ConnectX-3 Pro firmware) takes the typed GID table
 * (entries 0 and 1 RoCE v2, 2 and 3 the same addresses as RoCE v1); the
 * PMD builds each MAD's MLX header by its source GID's type, as Linux
 * build_mlx_header does: IPv4/UDP for an IPv4-mapped v2 GID, IPv6/UDP for
 * another, the RoCE v1 GRH for a v1 one. The receiving model parses the
 * frame as a card would and drops (and counts) malformed ones. The built
 * frame is checked against a real RoCE v2 CM REQ from Linux rxe
 * (tests/data/pcaps/rping-roce.pcap) field by field, and the soft
 * provider's frame parser (drivers/net/roce) takes it with its ICRC.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_io.h>
#include <rte_malloc.h>

#include "prdma_provider.h"
#include "t_eal.h"
#include "hermon_dev.h"
#include "hermon_obj.h"
#include "hermon_sqp_wire.h"
#include "hermon_model.h"
#include "roce_wire.h"
#include "t_hermon_common.h"

/* the addresses of the rping capture: client 10.99.0.3, server 10.99.0.2 */
#define A_ARGS "hermon:model,link=v2q,side=0,model_rocev2=1,ip=10.99.0.3," \
	"mac=52:54:00:99:00:03,neigh=10.99.0.2/52:54:00:99:00:02"
#define B_ARGS "hermon:model,link=v2q,side=1,model_rocev2=1,ip=10.99.0.2," \
	"mac=52:54:00:99:00:02,neigh=10.99.0.3/52:54:00:99:00:03"
/* B without RoCE v2 (a ConnectX-3 that is not a Pro) */
#define B1_ARGS "hermon:model,link=v2q,side=1,ip=10.99.0.2," \
	"mac=52:54:00:99:00:02,neigh=10.99.0.3/52:54:00:99:00:03"

static struct t_end ea, eb;
/* the rxe CM REQ of the capture: 322 bytes, Ethernet to ICRC */
static uint8_t req[322];

static uint8_t *
last_wqe(struct t_end *e)
{
	struct hermon_qp *qp = (struct hermon_qp *)e->qp;

	return qp->sq + (((qp->sq_head - 1) & qp->sq_mask) << qp->sq_shift);
}

/*
 * The header the last MLX WQE of @e carries (its inline chunks from byte
 * 16: each fills its 64-byte block but the last); its length.
 */
static uint32_t
wqe_hdr(struct t_end *e, uint8_t *h)
{
	const uint8_t *w = last_wqe(e);
	uint32_t off = 16, n = 0, dw, k, room;

	for (;;) {
		dw = rte_be_to_cpu_32(*(const rte_be32_t *)(w + off));
		assert_true(dw & RTE_BIT32(31));
		k = dw & 0x3ff;
		room = 64 - ((off + 4) & 63);
		/* a chunk never crosses a 64-byte boundary */
		assert_true(k <= room);
		memcpy(h + n, w + off + 4, k);
		n += k;
		off += 4 + k;
		if (k < room)
			return n;
	}
}

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static bool
ip4_sum_ok(const uint8_t *ip)
{
	uint32_t s = 0, i;

	for (i = 0; i < 20; i += 2)
		s += be16(ip + i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

static void
stats(const char *name, struct hermon_model_stats *st)
{
	struct hermon_model *m = hermon_model_get(name);

	assert_non_null(m);
	assert_int_equal(hermon_model_get_stats(m, st), 0);
	hermon_model_put(m);
}

/* Read the capture's first frame to QP1 (the CM REQ). */
static void
load_req(void)
{
	char path[512];
	uint8_t rec[16];
	uint32_t incl;
	FILE *f;

	snprintf(path, sizeof(path), "%s/rping-roce.pcap", T_PCAP_DIR);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 24, SEEK_SET), 0);
	assert_int_equal(fread(rec, 1, 16, f), 16);
	incl = (uint32_t)rec[8] | (uint32_t)rec[9] << 8 | (uint32_t)rec[10] << 16 |
		(uint32_t)rec[11] << 24;
	assert_int_equal(incl, sizeof(req));
	assert_int_equal(fread(req, 1, sizeof(req), f), sizeof(req));
	fclose(f);
}

/*
 * The model's receiving port decodes the rxe CM REQ of the capture (an
 * independent RoCE v2 frame): IPv4, UDP to 4791, BTH to QP1, DETH with
 * the GSI Q_Key from QP1; the 40-byte GRH area holds the IPv4 header in
 * its last 20 bytes. With its UDP port or length altered it is not taken.
 */
static void
test_decode_rxe_req(void **state)
{
	struct hermon_model_roce_pkt p;
	uint8_t f[sizeof(req)];

	(void)state;
	load_req();
	assert_int_equal(hermon_model_roce_decode(req, HERMON_SQP_V2_IP4_HLEN,
						  sizeof(req) - HERMON_SQP_V2_IP4_HLEN - 4, &p), 0);
	assert_int_equal(p.version, 2);
	assert_int_equal(p.ipv, 4);
	assert_int_equal(p.dqpn, 1);
	assert_int_equal(p.sqpn, 1);
	assert_int_equal(p.qkey, PRDMA_GSI_QKEY);
	assert_memory_equal(p.grh + 20, req + 14, 20);
	assert_int_equal(p.dgid[10], 0xff);
	assert_memory_equal(p.dgid + 12, req + 30, 4);
	memcpy(f, req, sizeof(f));
	f[37] ^= 1;                              /* UDP dport 4790: not RoCE */
	assert_int_equal(hermon_model_roce_decode(f, HERMON_SQP_V2_IP4_HLEN,
						  sizeof(f) - HERMON_SQP_V2_IP4_HLEN - 4, &p), -1);
	memcpy(f, req, sizeof(f));
	f[39] += 4;                              /* UDP length */
	assert_int_equal(hermon_model_roce_decode(f, HERMON_SQP_V2_IP4_HLEN,
						  sizeof(f) - HERMON_SQP_V2_IP4_HLEN - 4, &p), -2);
}

/*
 * A RoCE v1/v2 device: QUERY_DEV_CAP says so, the port reports RoCE v2,
 * GIDs 0 and 2 (and 1 and 3) are the same addresses. A MAD from GID 1
 * (::ffff:10.99.0.3, v2) goes out as Ethernet + IPv4 + UDP + BTH + DETH;
 * the header matches the rxe CM REQ of the capture byte for byte but for
 * the IP ID and checksum, the UDP source port and the BTH PSN dword; the
 * soft provider's parser takes the frame with its ICRC; B receives it with
 * the IPv4 header in the last 20 bytes of the GRH area.
 */
static void
test_v2_ipv4_mad(void **state)
{
	struct hermon_model_stats s0, s1;
	struct prdma_dev_attr da;
	union prdma_gid g0, g2;
	uint8_t h[128], f[400];
	struct prdma_ah *ah;
	struct roce_pkt pkt;
	struct prdma_wc wc;
	uint32_t n, crc;

	(void)state;
	load_req();
	t_gsi_end_up(&ea, A_ARGS);
	t_gsi_end_up(&eb, B_ARGS);
	assert_true(((struct hermon_dev *)ea.dev->priv)->caps.roce_v1_v2);
	assert_int_equal(prdma_dev_query(ea.dev, &da), 0);
	assert_int_equal(da.transport, PRDMA_TRANSPORT_ROCE_V2);
	assert_int_equal(prdma_gid_query(ea.dev, 1, 0, &g0), 0);
	assert_int_equal(prdma_gid_query(ea.dev, 1, 2, &g2), 0);
	assert_memory_equal(g0.raw, g2.raw, 16);
	t_post_recv(&eb, eb.qp, 11);
	memcpy(ea.buf, req + 62, T_MAD);           /* the same MAD as the capture */
	ah = t_gsi_ah(&ea, &eb, 1, 1);
	assert_non_null(ah);
	stats("v2q.1", &s0);
	assert_int_equal(t_gsi_send(&ea, ah, 1), 0);
	n = wqe_hdr(&ea, h);
	assert_int_equal(n, HERMON_SQP_V2_IP4_HLEN);
	/* Ethernet: the same addresses and EtherType */
	assert_memory_equal(h, req, 14);
	/* IPv4: all but the ID (rxe counts, Linux mlx4 sends 0) and the checksum */
	assert_memory_equal(h + 14, req + 14, 4);
	assert_int_equal(be16(h + 18), 0);
	assert_memory_equal(h + 20, req + 20, 4);
	assert_memory_equal(h + 26, req + 26, 8);
	assert_true(ip4_sum_ok(h + 14));
	/* UDP: source port Linux mlx4's QP1 port, the rest as rxe */
	assert_int_equal(be16(h + 34), HERMON_ROCE_V2_QP1_SPORT);
	assert_memory_equal(h + 36, req + 36, 6);
	/* BTH (bar AckReq/PSN) and DETH */
	assert_memory_equal(h + 42, req + 42, 8);
	assert_memory_equal(h + 54, req + 54, 8);
	/* the whole frame through the soft provider's parser */
	memcpy(f, h, n);
	memcpy(f + n, req + 62, T_MAD);
	crc = rte_cpu_to_le_32(roce_icrc(f + 14, n - 14 + T_MAD, 0));
	memcpy(f + n + T_MAD, &crc, 4);
	assert_int_equal(roce_pkt_parse(f, n + T_MAD + 4, &pkt), ROCE_RX_OK);
	assert_int_equal(pkt.ipv6, 0);
	assert_int_equal(pkt.paylen, T_MAD);
	assert_int_equal(pkt.bth.opcode, HERMON_BTH_UD_SEND_ONLY);
	assert_int_equal(pkt.bth.dqpn, 1);

	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 40 + T_MAD);
	assert_int_equal(wc.src_qp, 1);
	assert_true(wc.wc_flags & PRDMA_WC_GRH);
	/* 20 undefined bytes (zero), then the IPv4 header */
	assert_int_equal(eb.buf[T_RX], 0);
	assert_memory_equal(eb.buf + T_RX + 20, h + 14, 20);
	assert_memory_equal(eb.buf + T_RX + 40, req + 62, T_MAD);
	stats("v2q.1", &s1);
	assert_int_equal(s1.rocev2_rx, s0.rocev2_rx + 1);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	t_end_down(&ea);
	t_end_down(&eb);
}

/*
 * From GID 0 (fe80::, RoCE v2, not IPv4-mapped): Ethernet + IPv6 (next
 * header UDP, PayLen = UDP..ICRC) + UDP; the receiver gets the IPv6
 * header as its GRH. From GID 3 (the IPv4 address as RoCE v1) the same
 * device sends RoCE v1: EtherType 0x8915 and a GRH whose next header is
 * the BTH.
 */
static void
test_v2_ipv6_and_v1(void **state)
{
	struct prdma_ah *ah6, *ah1;
	union prdma_gid ga, gb;
	struct prdma_wc wc;
	uint8_t h[128];
	uint32_t n;

	(void)state;
	t_gsi_end_up(&ea, A_ARGS);
	t_gsi_end_up(&eb, B_ARGS);
	assert_int_equal(prdma_gid_query(ea.dev, 1, 0, &ga), 0);
	assert_int_equal(prdma_gid_query(eb.dev, 1, 0, &gb), 0);
	t_post_recv(&eb, eb.qp, 11);
	ah6 = t_gsi_ah(&ea, &eb, 0, 0);
	assert_non_null(ah6);
	assert_int_equal(t_gsi_send(&ea, ah6, 1), 0);
	n = wqe_hdr(&ea, h);
	assert_int_equal(n, HERMON_SQP_V2_IP6_HLEN);
	assert_int_equal(be16(h + 12), HERMON_ETHERTYPE_IPV6);
	assert_int_equal(h[14] >> 4, 6);
	assert_int_equal(be16(h + 18), 8 + 12 + 8 + T_MAD + 4);
	assert_int_equal(h[20], HERMON_IPPROTO_UDP);
	assert_memory_equal(h + 22, ga.raw, 16);
	assert_memory_equal(h + 38, gb.raw, 16);
	assert_int_equal(be16(h + 56), HERMON_ROCE_V2_DPORT);
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.src_qp, 1);
	assert_memory_equal(eb.buf + T_RX, h + 14, 40);

	t_post_recv(&eb, eb.qp, 12);
	ah1 = t_gsi_ah(&ea, &eb, 3, 3);
	assert_non_null(ah1);
	assert_int_equal(t_gsi_send(&ea, ah1, 1), 0);
	n = wqe_hdr(&ea, h);
	assert_int_equal(n, HERMON_SQP_ROCE_HLEN);
	assert_int_equal(be16(h + 12), HERMON_ETHERTYPE_ROCE);
	assert_int_equal(h[20], HERMON_GRH_NXT_BTH);
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 12);
	assert_int_equal(eb.buf[T_RX + 6], HERMON_GRH_NXT_BTH);
	assert_int_equal(prdma_ah_destroy(ah6), 0);
	assert_int_equal(prdma_ah_destroy(ah1), 0);
	t_end_down(&ea);
	t_end_down(&eb);
}

/* Frame byte @k of a WQE whose header chunks start at 16 (44 + the rest). */
static uint8_t *
fb(uint8_t *wqe, uint32_t k)
{
	return k < 44 ? wqe + 20 + k : wqe + 68 + (k - 44);
}

static void
ip4_fix_sum(uint8_t *wqe)
{
	uint32_t s = 0, i;

	*fb(wqe, 24) = 0;
	*fb(wqe, 25) = 0;
	for (i = 0; i < 20; i += 2)
		s += (uint32_t)*fb(wqe, 14 + i) << 8 | *fb(wqe, 15 + i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	s = ~s & 0xffff;
	*fb(wqe, 24) = (uint8_t)(s >> 8);
	*fb(wqe, 25) = (uint8_t)s;
}

/* One raw frame: sent, and B gets nothing; B's counters after it. */
static void
refused(uint8_t *wqe, struct hermon_model_stats *st)
{
	struct prdma_wc wc;

	t_wqe_post(&ea, wqe, 128);
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(&eb, &wc, 100), 0);
	stats("v2q.1", st);
}

/*
 * Malformed RoCE v2 frames reach no QP: UDP to another port is not RoCE
 * (a drop), a wrong UDP length, IPv4 total length or header checksum is a
 * malformed RoCE v2 frame (a drop counted as such at the receiving
 * model); the good frame they were made from arrives.
 */
static void
test_v2_malformed(void **state)
{
	struct hermon_model_stats s0, s1;
	uint8_t good[128], wqe[128];
	struct prdma_ah *ah;
	struct prdma_wc wc;

	(void)state;
	t_gsi_end_up(&ea, A_ARGS);
	t_gsi_end_up(&eb, B_ARGS);
	ah = t_gsi_ah(&ea, &eb, 1, 1);
	assert_non_null(ah);
	t_post_recv(&eb, eb.qp, 11);
	assert_int_equal(t_gsi_send(&ea, ah, 1), 0);
	memcpy(good, last_wqe(&ea), sizeof(good));
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	t_post_recv(&eb, eb.qp, 12);
	stats("v2q.1", &s0);

	memcpy(wqe, good, sizeof(wqe));
	*fb(wqe, 37) ^= 3;                       /* dport 4788 */
	refused(wqe, &s1);
	assert_int_equal(s1.drops, s0.drops + 1);
	assert_int_equal(s1.rocev2_bad, s0.rocev2_bad);

	memcpy(wqe, good, sizeof(wqe));
	*fb(wqe, 39) += 4;                       /* UDP length */
	refused(wqe, &s1);
	assert_int_equal(s1.rocev2_bad, s0.rocev2_bad + 1);

	memcpy(wqe, good, sizeof(wqe));
	*fb(wqe, 17) -= 4;                       /* IPv4 total length */
	ip4_fix_sum(wqe);
	refused(wqe, &s1);
	assert_int_equal(s1.rocev2_bad, s0.rocev2_bad + 2);

	memcpy(wqe, good, sizeof(wqe));
	*fb(wqe, 25) ^= 0x10;                    /* IPv4 checksum */
	refused(wqe, &s1);
	assert_int_equal(s1.rocev2_bad, s0.rocev2_bad + 3);
	assert_int_equal(s1.drops, s0.drops + 4);
	assert_int_equal(s1.rocev2_rx, s0.rocev2_rx);

	t_wqe_post(&ea, good, sizeof(good));
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 12);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	t_end_down(&ea);
	t_end_down(&eb);
}

/*
 * Without model_rocev2 the model is a ConnectX-3 that has RoCE v1 only:
 * it does not report v1/v2, refuses the typed GID table and takes no
 * RoCE v2 frame (a drop at B); its PMD frames QP1 as RoCE v1.
 */
static void
test_v1_only_device(void **state)
{
	struct hermon_roce_gid_table_mbox *t;
	struct hermon_model_stats s0, s1;
	struct prdma_dev_attr da;
	struct hermon_dev *hd;
	struct prdma_ah *ah;
	struct prdma_wc wc;

	(void)state;
	t_gsi_end_up(&ea, A_ARGS);
	t_gsi_end_up(&eb, B1_ARGS);
	hd = eb.dev->priv;
	assert_false(hd->caps.roce_v1_v2);
	assert_int_equal(prdma_dev_query(eb.dev, &da), 0);
	assert_int_equal(da.transport, PRDMA_TRANSPORT_ROCE_V1);
	t = rte_zmalloc("t_v2_gids", sizeof(*t), 4096);
	assert_non_null(t);
	assert_int_equal(hermon_cmd_set_port_roce_gids(&hd->cmd, 1, t), -EINVAL);
	rte_free(t);
	t_post_recv(&eb, eb.qp, 11);
	/* A (v1/v2) sends RoCE v2 from its GID 1: B cannot take it */
	ah = t_gsi_ah(&ea, &eb, 1, 1);
	assert_non_null(ah);
	stats("v2q.1", &s0);
	assert_int_equal(t_gsi_send(&ea, ah, 1), 0);
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(&eb, &wc, 100), 0);
	stats("v2q.1", &s1);
	assert_int_equal(s1.drops, s0.drops + 1);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	/* from its RoCE v1 GID 3 it reaches B */
	ah = t_gsi_ah(&ea, &eb, 3, 1);
	assert_non_null(ah);
	assert_int_equal(t_gsi_send(&ea, ah, 1), 0);
	assert_int_equal(t_poll_one(&ea, &wc, 2000), 1);
	assert_int_equal(t_poll_one(&eb, &wc, 2000), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(eb.buf[T_RX + 6], HERMON_GRH_NXT_BTH);
	assert_int_equal(prdma_ah_destroy(ah), 0);
	t_end_down(&ea);
	t_end_down(&eb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_rxe_req),
		cmocka_unit_test(test_v2_ipv4_mad),
		cmocka_unit_test(test_v2_ipv6_and_v1),
		cmocka_unit_test(test_v2_malformed),
		cmocka_unit_test(test_v1_only_device),
	};

	if (t_eal_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("hermon_rocev2", tests, NULL, NULL);
}
