/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Probe and removal, device and port queries, the ops tables. */

#include <errno.h>
#include <sched.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "roce.h"

RTE_LOG_REGISTER_DEFAULT(roce_logtype, NOTICE);

/* Ring mode addresses: TEST-NET-1 (RFC 5737), never routed. */
#define ROCE_RING_IP0 (192u << 24 | 0u << 16 | 2u << 8 | 1u)
#define ROCE_RING_IP1 (192u << 24 | 0u << 16 | 2u << 8 | 2u)
/* What a RoCEv2 packet adds around its payload (kernel rule, wire facts §9). */
#define ROCE_MTU_OVERHEAD 96

static uint32_t dev_gen;

static uint8_t
mtu_from_eth(uint32_t eth_mtu)
{
	uint8_t m;

	for (m = PRDMA_MTU_4096; m > PRDMA_MTU_256; m--)
		if (prdma_mtu_bytes(m) + ROCE_MTU_OVERHEAD <= eth_mtu)
			return m;
	return PRDMA_MTU_256;
}

/*
 * Whether the application already started @port. 22.11 has no public
 * "is started" call: ask the queue state where the PMD reports it, else
 * probe with a configure whose refusal (-EBUSY, started) is expected, with
 * ethdev's error line for that case muted for the moment of the call.
 */
static int
port_is_started(uint16_t port)
{
	struct rte_eth_rxq_info qi;
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	int lt, level, ret;

	/* Both probes may log an error for the case they exist to detect. */
	lt = rte_log_register("lib.ethdev");
	level = lt >= 0 ? rte_log_get_level((uint32_t)lt) : -1;
	if (level >= 0)
		rte_log_set_level((uint32_t)lt, RTE_LOG_CRIT);
	memset(&qi, 0, sizeof(qi));
	ret = -ENOTSUP;
	if (rte_eth_dev_info_get(port, &info) == 0 && info.nb_rx_queues > 0)
		ret = rte_eth_rx_queue_info_get(port, 0, &qi);
	if (ret == 0) {
		ret = qi.queue_state == RTE_ETH_QUEUE_STATE_STARTED ? -EBUSY : 0;
	} else {
		memset(&conf, 0, sizeof(conf));
		ret = rte_eth_dev_configure(port, 1, 1, &conf);
	}
	if (level >= 0)
		rte_log_set_level((uint32_t)lt, (uint32_t)level);
	return ret == -EBUSY;
}

/*
 * Configure and start a port we own: an rx and a tx queue per engine. With
 * several engines, RSS on the UDP ports where the PMD hashes them (RoCEv2
 * derives the source port from the QP, so a QP's frames stay on one queue);
 * frames on the wrong queue are handed to their engine (roce_engine.c).
 */
static int
port_setup(struct roce_dev *dev)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t nb_rxd = 1024, nb_txd = 1024, nq = (uint16_t)dev->nb_eng, q;
	uint64_t rss;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_info_get(dev->port_id, &info);
	if (ret < 0)
		return ret;
	if (nq > info.max_rx_queues || nq > info.max_tx_queues) {
		ROCE_LOG(ERR, "port %u: engines=%u needs as many rx and tx queues; "
			 "the port has at most %u rx, %u tx", dev->port_id, nq,
			 info.max_rx_queues, info.max_tx_queues);
		return -EINVAL;
	}
	if (port_is_started(dev->port_id)) {
		/* started by the application: use its queues 0..N-1 */
		if (nq > info.nb_rx_queues || nq > info.nb_tx_queues) {
			ROCE_LOG(ERR, "port %u: engines=%u, but the application "
				 "started it with %u rx and %u tx queues", dev->port_id,
				 nq, info.nb_rx_queues, info.nb_tx_queues);
			return -EINVAL;
		}
		return 1;
	}
	/* Zero-copy transmit sends chains (roce_zc.c): where the PMD can. */
	if (dev->cfg.zc != 0 && (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS))
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	rss = info.flow_type_rss_offloads & (RTE_ETH_RSS_UDP | RTE_ETH_RSS_IP);
	if (nq > 1 && rss != 0) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = rss;
	}
	ret = rte_eth_dev_configure(dev->port_id, nq, nq, &conf);
	if (ret < 0) {
		ROCE_LOG(ERR, "port %u: configure: %s", dev->port_id, rte_strerror(-ret));
		return ret;
	}
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(dev->port_id, &nb_rxd, &nb_txd);
	if (ret < 0)
		return ret;
	for (q = 0; q < nq; q++) {
		ret = rte_eth_rx_queue_setup(dev->port_id, q, nb_rxd,
					     (unsigned int)dev->pdev->socket_id, NULL, dev->mp);
		if (ret < 0) {
			ROCE_LOG(ERR, "port %u: rx queue %u: %s", dev->port_id, q,
				 rte_strerror(-ret));
			return ret;
		}
		ret = rte_eth_tx_queue_setup(dev->port_id, q, nb_txd,
					     (unsigned int)dev->pdev->socket_id, NULL);
		if (ret < 0) {
			ROCE_LOG(ERR, "port %u: tx queue %u: %s", dev->port_id, q,
				 rte_strerror(-ret));
			return ret;
		}
	}
	ret = rte_eth_dev_start(dev->port_id);
	if (ret < 0) {
		ROCE_LOG(ERR, "port %u: start: %s", dev->port_id, rte_strerror(-ret));
		return ret;
	}
	if (nq > 1)
		ROCE_LOG(INFO, "port %u: %u queues, %s", dev->port_id, nq,
			 conf.rxmode.mq_mode == RTE_ETH_MQ_RX_RSS ? "RSS on IP/UDP" :
			 "no RSS: software steering");
	dev->port_started = 1;
	return 0;
}

static void
dev_free(struct roce_dev *dev)
{
	/* Rules first: they belong to the port and name the QPs. */
	roce_flow_fini(dev);
	roce_fault_fini(dev);
	/* Queued frames and the stashes go back before the pool may go. */
	roce_eng_fini(dev);
	if (dev->pcap != NULL)
		roce_pcap_close(dev->pcap);
	if (dev->link != NULL) {
		roce_link_detach(dev);
	} else {
		if (dev->port_started)
			rte_eth_dev_stop(dev->port_id);
		if (dev->own_mp)
			rte_mempool_free(dev->mp);
	}
	/* After the port and the link: what they still held is back. */
	roce_zc_fini(dev);
	roce_qp_table_fini(dev);
	rte_free(dev->keys);
	rte_free(dev);
}

/*
 * Several engines: say at removal (INFO) what each one moved, so a run
 * over a real multi-queue port shows whether all its engines had traffic
 * and how much of it came on another engine's queue (tests/netns reads it).
 */
static void
eng_summary(struct roce_dev *dev)
{
	const struct roce_eng *e;
	uint32_t i;

	for (i = 0; dev->eng != NULL && dev->nb_eng > 1 && i < dev->nb_eng; i++) {
		e = &dev->eng[i];
		ROCE_LOG(INFO, "%s: engine %u: rx %" PRIu64 " tx %" PRIu64 " rx_handoff %"
			 PRIu64 " rx_handoff_drops %" PRIu64, dev->pdev->name, i,
			 e->st.dev[PRDMA_DEV_CNT_RDMA_IN_FRAMES],
			 e->st.dev[PRDMA_DEV_CNT_RDMA_OUT_FRAMES],
			 e->xst.rx_handoff, e->xst.rx_handoff_drops);
	}
}

static void
roce_dev_remove(struct prdma_dev *pdev)
{
	struct roce_dev *dev = roce_dev_of(pdev);

	if (dev == NULL)
		return;
	roce_engine_thread_stop(dev);
	roce_ack_watch_stop(dev);
	/* before the flags: its alarm takes them */
	roce_flow_stop(dev);
	if (dev->eng != NULL)
		roce_engine_lock(dev);
	eng_summary(dev);
	dev_free(dev);
	pdev->priv = NULL;
}

static int
addr_setup(struct roce_dev *dev)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	int ret;

	if (dev->cfg.has_ip) {
		dev->gid = dev->cfg.gid;
	} else if (dev->link != NULL) {
		prdma_gid_from_ipv4(&dev->gid, dev->side == 0 ? ROCE_RING_IP0 :
				    ROCE_RING_IP1);
	} else {
		ret = roce_iface_gid(dev, &dev->gid);
		if (ret < 0)
			return ret;
	}
	memset(dev->ip, 0, sizeof(dev->ip));
	if (memcmp(dev->gid.raw, v4mapped, sizeof(v4mapped)) == 0) {
		dev->ipv6 = 0;
		memcpy(dev->ip, &dev->gid.raw[12], 4);
	} else {
		dev->ipv6 = 1;
		memcpy(dev->ip, dev->gid.raw, 16);
	}
	return 0;
}

/* The congestion control's ceiling: the link speed, 100 Gb/s if unknown. */
static void
line_rate(struct roce_dev *dev)
{
	struct rte_eth_link link;

	memset(&link, 0, sizeof(link));
	if (rte_eth_link_get_nowait(dev->port_id, &link) == 0 &&
	    link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
	    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
		dev->line_mbps = link.link_speed;
	else
		dev->line_mbps = RTE_ETH_SPEED_NUM_100G;
}

static void
faults_from_args(struct roce_dev *dev)
{
	unsigned int d, k;

	for (d = 0; d < PRDMA_ROCE_FAULT_DIR_NB; d++) {
		roce_fault_delay_config(dev, d, dev->cfg.fault_delay_us);
		for (k = 0; k < PRDMA_ROCE_FAULT_KIND_NB; k++)
			if (dev->cfg.fault_rate[d][k] != 0)
				roce_fault_config(dev, d, k, dev->cfg.fault_rate[d][k],
						  dev->cfg.fault_seed);
	}
}

static int
roce_probe(struct prdma_dev *pdev, const char *args)
{
	char buf[RTE_RING_NAMESIZE];
	struct rte_eth_dev_info info;
	uint32_t room, link_mtu, cap;
	struct roce_dev *dev;
	uint16_t eth_mtu;
	int ret;

	dev = rte_zmalloc_socket("roce_dev", sizeof(*dev), RTE_CACHE_LINE_SIZE,
				 pdev->socket_id);
	if (dev == NULL)
		return -ENOMEM;
	ret = roce_args_parse(args, &dev->cfg);
	if (ret < 0) {
		rte_free(dev);
		return ret;
	}
	dev->keys = rte_zmalloc_socket("roce_keys", sizeof(struct roce_key) * ROCE_MAX_KEYS,
				       RTE_CACHE_LINE_SIZE, pdev->socket_id);
	if (dev->keys == NULL) {
		rte_free(dev);
		return -ENOMEM;
	}
	dev->pdev = pdev;
	dev->burst = dev->cfg.burst;
	dev->tsc_hz = rte_get_tsc_hz();
	dev->key_next = 1 + (prdma_random32() % (ROCE_MAX_KEYS - 1));
	pdev->priv = dev;
	ret = roce_neigh_init(dev);
	if (ret < 0)
		goto err;
	ret = roce_qp_table_init(dev, pdev->socket_id);
	if (ret < 0)
		goto err;
	ret = roce_eng_init(dev, pdev->socket_id);
	if (ret < 0)
		goto err;

	if (dev->cfg.ring[0] != '\0') {
		ret = roce_link_attach(dev, dev->cfg.ring, dev->cfg.side);
		if (ret < 0)
			goto err;
		ret = port_setup(dev);
		if (ret < 0)
			goto err;
		dev->max_mtu = PRDMA_MTU_4096;
	} else {
		dev->port_id = (uint16_t)dev->cfg.port;
		if (!rte_eth_dev_is_valid_port(dev->port_id)) {
			ROCE_LOG(ERR, "port=%d: no such ethdev port (for net_af_xdp: "
				 "--vdev net_af_xdp0,iface=<if>,start_queue=0,queue_count=1)",
				 dev->cfg.port);
			ret = -ENODEV;
			goto err;
		}
		ret = roce_iface_discover(dev);
		if (ret < 0)
			goto err;
		snprintf(buf, sizeof(buf), "roce_mpd_%u", ++dev_gen);
		ret = rte_eth_dev_info_get(dev->port_id, &info);
		if (ret < 0)
			goto err;
		if (rte_eth_dev_get_mtu(dev->port_id, &eth_mtu) < 0)
			eth_mtu = RTE_ETHER_MTU;
		/*
		 * Buffers no larger than the port's frames need: net_af_xdp
		 * builds its UMEM on this pool and takes no chunk over a page.
		 * net_af_packet needs a whole ring slot (framesz=) per mbuf.
		 */
		room = eth_mtu + RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN + RTE_ETHER_CRC_LEN <=
			RTE_MBUF_DEFAULT_DATAROOM ? RTE_MBUF_DEFAULT_BUF_SIZE :
			ROCE_MBUF_DATAROOM;
		room = RTE_MAX(room, RTE_PKTMBUF_HEADROOM + roce_port_rx_room(&info));
		if (room > UINT16_MAX) {
			ROCE_LOG(ERR, "port=%d: frames of %u bytes do not fit an mbuf",
				 dev->cfg.port, room - RTE_PKTMBUF_HEADROOM);
			ret = -EINVAL;
			goto err;
		}
		dev->mp = rte_pktmbuf_pool_create(buf, ROCE_NB_MBUF, 256, 0, (uint16_t)room,
						  pdev->socket_id);
		if (dev->mp == NULL) {
			ROCE_LOG(ERR, "port=%d: no mbuf pool: %s", dev->cfg.port,
				 rte_strerror(rte_errno));
			ret = -ENOMEM;
			goto err;
		}
		dev->own_mp = 1;
		ret = rte_eth_macaddr_get(dev->port_id, &dev->mac);
		if (ret < 0)
			goto err;
		ret = port_setup(dev);
		if (ret < 0)
			goto err;
		/*
		 * The link decides (rxe follows its netdev's MTU the same way),
		 * within what reaches us whole: the ethdev's frames and our mbufs.
		 */
		link_mtu = roce_port_link_mtu(dev->port_id, dev->ifindex);
		cap = roce_port_frame_cap(&info, room - RTE_PKTMBUF_HEADROOM);
		cap = cap > RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN ?
			cap - RTE_ETHER_HDR_LEN - RTE_VLAN_HLEN : 0;
		cap = RTE_MIN(cap, (uint32_t)info.max_mtu);
		dev->max_mtu = mtu_from_eth(RTE_MIN(link_mtu, cap));
		if (mtu_from_eth(link_mtu) > dev->max_mtu)
			ROCE_LOG(NOTICE, "port=%d: interface MTU %u, but %s frames carry %u bytes "
				 "of IP: MTU %u (net_af_packet: framesz=8192,blocksz=8192 "
				 "allows 4096)", dev->cfg.port, link_mtu,
				 info.driver_name != NULL ? info.driver_name : "?", cap,
				 prdma_mtu_bytes(dev->max_mtu));
		if (dev->cfg.mtu > dev->max_mtu) {
			ROCE_LOG(ERR, "port=%d: mtu=%u does not fit the link: interface MTU %u, "
				 "frames up to %u bytes of IP (%s); the port carries at most %u",
				 dev->cfg.port, prdma_mtu_bytes(dev->cfg.mtu), link_mtu, cap,
				 info.driver_name != NULL ? info.driver_name : "?",
				 prdma_mtu_bytes(dev->max_mtu));
			ret = -EINVAL;
			goto err;
		}
	}
	if (dev->cfg.has_mac)
		dev->mac = dev->cfg.mac;
	ret = addr_setup(dev);
	if (ret < 0)
		goto err;
	dev->active_mtu = dev->cfg.mtu != 0 ? RTE_MIN(dev->cfg.mtu, dev->max_mtu) :
		dev->max_mtu;
	ret = roce_zc_setup(dev);
	if (ret < 0)
		goto err;
	line_rate(dev);
	faults_from_args(dev);
	dev->ack_delay_tsc = (uint64_t)dev->cfg.ack_delay_us * dev->tsc_hz / 1000000;
	dev->ack_grace_tsc = (uint64_t)ROCE_ACK_GRACE_US * dev->tsc_hz / 1000000;
	if (dev->cfg.pcap[0] != '\0') {
		dev->pcap = roce_pcap_open(dev->cfg.pcap);
		if (dev->pcap == NULL) {
			ret = -EINVAL;
			goto err;
		}
	}
	if (dev->cfg.name[0] != '\0')
		strlcpy(pdev->name, dev->cfg.name, sizeof(pdev->name));
	/* After the port and the addresses: the rules are the port's. */
	ret = roce_flow_setup(dev);
	if (ret < 0)
		goto err;
	snprintf(dev->node_desc, sizeof(dev->node_desc), "prdma roce %.50s", pdev->name);
	dev->port_cap = PRDMA_PORT_CAP_IP_BASED_GIDS;

	pdev->ops = &roce_ops;
	pdev->fp.post_send = roce_post_send;
	pdev->fp.post_recv = roce_post_recv;
	pdev->fp.post_srq_recv = roce_post_srq_recv;
	pdev->fp.poll_cq = roce_poll_cq;
	pdev->fp.peek_cq = roce_peek_cq;
	pdev->obj_size.pd = sizeof(struct prdma_pd);
	pdev->obj_size.mr = sizeof(struct roce_mr);
	pdev->obj_size.mw = sizeof(struct roce_mw);
	pdev->obj_size.cq = sizeof(struct roce_cq);
	pdev->obj_size.srq = sizeof(struct roce_srq);
	pdev->obj_size.qp = sizeof(struct roce_qp);
	pdev->obj_size.ah = sizeof(struct roce_ah);
	if (dev->cfg.progress_thread)
		ret = roce_engine_thread_start(dev);
	else
		ret = roce_ack_watch_start(dev);
	if (ret < 0)
		goto err;
	ROCE_LOG(INFO, "%s: port %u, %s mode, active MTU %u, %s transmit", pdev->name,
		 dev->port_id, dev->link != NULL ? "ring" : "port",
		 prdma_mtu_bytes(dev->active_mtu), dev->zc != NULL ? "zero-copy" : "copy");
	return 0;
err:
	dev_free(dev);
	pdev->priv = NULL;
	return ret;
}

static uint8_t
ack_delay_exp(const struct roce_dev *dev)
{
	uint64_t ns = (uint64_t)RTE_MAX(dev->cfg.ack_delay_us, 2u * ROCE_ACK_WATCH_MAX_US) * 1000;
	uint8_t e = 0;

	if (dev->cfg.ack_delay_us == 0)
		return 0;
	while (e < 31 && (4096ull << e) < ns)
		e++;
	return e;
}

static int
roce_dev_query(struct prdma_dev *pdev, struct prdma_dev_attr *a)
{
	struct roce_dev *dev = roce_dev_of(pdev);
	const uint8_t *m = dev->mac.addr_bytes;
	uint64_t guid;

	strlcpy(a->node_desc, dev->node_desc, sizeof(a->node_desc));
	a->vendor_id = 0xffffff;          /* no IEEE OUI: a software device */
	a->vendor_part_id = 0;
	a->hw_ver = 0;
	a->fw_ver = 1ull << 32;
	/* EUI-64 from the MAC, as RoCE devices derive their GUID. */
	guid = (uint64_t)(m[0] ^ 2) << 56 | (uint64_t)m[1] << 48 |
		(uint64_t)m[2] << 40 | 0xfffeull << 24 | (uint64_t)m[3] << 16 |
		(uint64_t)m[4] << 8 | m[5];
	a->node_guid = guid;
	a->sys_image_guid = guid;
	a->max_mr_size = 1ull << 32;
	a->page_size_cap = RTE_PGSIZE_4K | RTE_PGSIZE_2M | RTE_PGSIZE_1G;
	a->max_transfer_length = ROCE_MAX_MSG;
	a->max_inline_data = ROCE_MAX_INLINE;
	a->max_qp = dev->cfg.max_qp;
	a->max_qp_wr = ROCE_MAX_QP_WR;
	a->max_send_sge = ROCE_MAX_SGE;
	a->max_recv_sge = ROCE_MAX_SGE;
	a->max_read_sge = ROCE_MAX_SGE;
	a->max_cq = ROCE_MAX_CQ;
	a->max_cqe = ROCE_MAX_CQE;
	a->max_mr = ROCE_MAX_MR;
	a->max_pd = ROCE_MAX_PD;
	a->max_mw = ROCE_MAX_MW;
	a->max_ah = ROCE_MAX_AH;
	a->max_srq = ROCE_MAX_SRQ;
	a->max_srq_wr = ROCE_MAX_SRQ_WR;
	a->max_srq_sge = ROCE_MAX_SGE;
	a->max_qp_rd_atom = ROCE_MAX_RD_ATOMIC;
	a->max_qp_init_rd_atom = ROCE_MAX_INIT_RD_ATOMIC;
	a->max_res_rd_atom = ROCE_MAX_RD_ATOMIC * dev->cfg.max_qp;
	a->max_mcast_grp = ROCE_MCAST_MAX_GRP;
	a->max_mcast_qp_attach = ROCE_MCAST_MAX_QP_ATTACH;
	a->max_total_mcast_qp_attach = ROCE_MCAST_MAX_TOTAL;
	a->large_request_threshold = prdma_mtu_bytes(dev->active_mtu);
	a->max_caller_data = 56;
	a->max_callee_data = 196;
	a->max_pkeys = 1;
	/* 4.096 us x 2^n covering the longest an ACK is held (ack_delay_us,
	 * or two of the ACK watch's longest intervals when the application
	 * stops polling). */
	a->local_ca_ack_delay = ack_delay_exp(dev);
	a->phys_port_cnt = 1;
	a->transport = dev->cfg.roce_version == 1 ? PRDMA_TRANSPORT_ROCE_V1 :
		PRDMA_TRANSPORT_ROCE_V2;
	a->flags = PRDMA_DEV_CAP_IN_ORDER_DMA | PRDMA_DEV_CAP_CQ_RESIZE |
		PRDMA_DEV_CAP_LOOPBACK_CONN | PRDMA_DEV_CAP_SRQ |
		PRDMA_DEV_CAP_MW_TYPE1 | PRDMA_DEV_CAP_MW_TYPE2 |
		PRDMA_DEV_CAP_ATOMIC | PRDMA_DEV_CAP_RC | PRDMA_DEV_CAP_UC |
		PRDMA_DEV_CAP_UD | PRDMA_DEV_CAP_SEND_INV | PRDMA_DEV_CAP_UD_MCAST |
		PRDMA_DEV_CAP_PORT_MODIFY | PRDMA_DEV_CAP_NODE_DESC_MODIFY;
	return 0;
}

static int
roce_dev_modify(struct prdma_dev *pdev, uint32_t mask,
		const struct prdma_dev_modify_attr *attr)
{
	struct roce_dev *dev = roce_dev_of(pdev);

	if (mask & PRDMA_DEV_MODIFY_NODE_DESC)
		strlcpy(dev->node_desc, attr->node_desc, sizeof(dev->node_desc));
	return 0;
}

static int
roce_dev_progress(struct prdma_dev *pdev)
{
	struct roce_dev *dev = roce_dev_of(pdev);
	uint32_t i;
	int n = 0;

	for (i = 0; i < dev->nb_eng; i++)
		if (roce_eng_polls(&dev->eng[i]))
			n += roce_eng_poll(&dev->eng[i]);
	return n;
}

/* IB width/speed encodings for an Ethernet speed (best effort). */
static void
ib_speed(uint32_t mbps, uint8_t *width, uint8_t *speed)
{
	*width = 1;
	if (mbps >= 400000) {
		*width = 8; *speed = 64;      /* 8x HDR */
	} else if (mbps >= 200000) {
		*width = 2; *speed = 64;      /* 4x HDR */
	} else if (mbps >= 100000) {
		*width = 2; *speed = 32;      /* 4x EDR */
	} else if (mbps >= 50000) {
		*width = 2; *speed = 2;       /* 4x ~QDR/DDR class */
	} else if (mbps >= 40000) {
		*width = 2; *speed = 4;       /* 4x QDR */
	} else if (mbps >= 25000) {
		*speed = 32;                  /* 1x EDR */
	} else if (mbps >= 10000) {
		*speed = 4;                   /* 1x QDR */
	} else if (mbps >= 5000) {
		*speed = 2;                   /* 1x DDR */
	} else {
		*speed = 1;                   /* 1x SDR */
	}
}

static int
roce_port_query(struct prdma_dev *pdev, uint8_t port, struct prdma_port_attr *a)
{
	struct roce_dev *dev = roce_dev_of(pdev);
	struct rte_eth_link link;

	RTE_SET_USED(port);
	memset(&link, 0, sizeof(link));
	if (rte_eth_link_get_nowait(dev->port_id, &link) < 0)
		link.link_status = RTE_ETH_LINK_DOWN;
	a->state = link.link_status == RTE_ETH_LINK_UP ? PRDMA_PORT_ACTIVE :
		PRDMA_PORT_DOWN;
	a->phys_state = link.link_status == RTE_ETH_LINK_UP ? 5 : 3;
	a->max_mtu = dev->max_mtu;
	a->active_mtu = dev->active_mtu;
	a->link_layer = PRDMA_LINK_LAYER_ETHERNET;
	a->gid_tbl_len = 1;
	a->port_cap_flags = dev->port_cap;
	a->max_msg_sz = ROCE_MAX_MSG;
	a->pkey_tbl_len = 1;
	a->lid = 0;
	a->link_speed_mbps = link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN ? 0 :
		link.link_speed;
	ib_speed(a->link_speed_mbps, &a->active_width, &a->active_speed);
	a->mac = dev->mac;
	return 0;
}

static int
roce_port_modify(struct prdma_dev *pdev, uint8_t port, uint32_t set, uint32_t clear)
{
	struct roce_dev *dev = roce_dev_of(pdev);

	RTE_SET_USED(port);
	/* RoCE GIDs are IP based: that bit is not the caller's to clear. */
	if (clear & PRDMA_PORT_CAP_IP_BASED_GIDS)
		return -EINVAL;
	dev->port_cap = (dev->port_cap | set) & ~clear;
	return 0;
}

static int
roce_gid_query(struct prdma_dev *pdev, uint8_t port, uint32_t index,
	       union prdma_gid *gid)
{
	struct roce_dev *dev = roce_dev_of(pdev);

	RTE_SET_USED(port);
	if (index != 0)
		return -ENOENT;
	*gid = dev->gid;
	return 0;
}

static int
roce_pd_alloc(struct prdma_pd *pd)
{
	struct roce_dev *dev = roce_dev_of(pd->dev);

	if (dev->nb_pd >= ROCE_MAX_PD)
		return -ENOSPC;
	dev->nb_pd++;
	return 0;
}

static int
roce_pd_free(struct prdma_pd *pd)
{
	roce_dev_of(pd->dev)->nb_pd--;
	return 0;
}

static int
roce_dev_counters_get(struct prdma_dev *pdev, struct prdma_dev_counters *c)
{
	struct roce_dev *dev = roce_dev_of(pdev);
	struct roce_stats st;
	unsigned int i;

	/* the device's totals: every engine's counts */
	roce_eng_stats(dev, &st, NULL);
	for (i = 0; i < PRDMA_DEV_CNT_MAX; i++)
		c->value[i] = st.dev[i];
	c->missing_mask = RTE_BIT64(PRDMA_DEV_CNT_CONNECT) |
		RTE_BIT64(PRDMA_DEV_CNT_ACCEPT) |
		RTE_BIT64(PRDMA_DEV_CNT_CONNECT_FAILURE) |
		RTE_BIT64(PRDMA_DEV_CNT_CONNECTION_ERROR) |
		RTE_BIT64(PRDMA_DEV_CNT_ACTIVE_CONNECTION) |
		RTE_BIT64(PRDMA_DEV_CNT_CQ_ERROR);
	return 0;
}

static int
roce_dev_counters_reset(struct prdma_dev *pdev)
{
	struct roce_dev *dev = roce_dev_of(pdev);
	uint32_t i;

	roce_engine_lock(dev);
	for (i = 0; i < dev->nb_eng; i++)
		memset(&dev->eng[i].st, 0, sizeof(dev->eng[i].st));
	roce_engine_unlock(dev);
	return 0;
}

static int
roce_qp_counters_get(struct prdma_qp *pqp, struct prdma_qp_counters *c)
{
	struct roce_qp *qp = (struct roce_qp *)pqp;
	unsigned int i;

	for (i = 0; i < PRDMA_QP_CNT_MAX; i++)
		c->value[i] = __atomic_load_n(&qp->cnt[i], __ATOMIC_RELAXED);
	c->missing_mask = 0;
	return 0;
}

static int
roce_qp_counters_reset(struct prdma_qp *pqp)
{
	struct roce_qp *qp = (struct roce_qp *)pqp;

	roce_engine_lock(qp->rdev);
	memset(qp->cnt, 0, sizeof(qp->cnt));
	roce_engine_unlock(qp->rdev);
	return 0;
}

void
roce_qp_event(struct roce_qp *qp, enum prdma_event_type type)
{
	struct prdma_async_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.element.qp = &qp->base;
	ev.qp_num = qp->base.qp_num;
	prdma_dev_raise_event(qp->base.dev, &ev);
}

const struct prdma_dev_ops roce_ops = {
	.dev_remove = roce_dev_remove,
	.dev_query = roce_dev_query,
	.dev_modify = roce_dev_modify,
	.dev_progress = roce_dev_progress,
	.port_query = roce_port_query,
	.port_modify = roce_port_modify,
	.gid_query = roce_gid_query,
	.dev_counters_get = roce_dev_counters_get,
	.dev_counters_reset = roce_dev_counters_reset,
	.qp_counters_get = roce_qp_counters_get,
	.qp_counters_reset = roce_qp_counters_reset,
	.pd_alloc = roce_pd_alloc,
	.pd_free = roce_pd_free,
	.mr_reg = roce_mr_reg,
	.mr_dereg = roce_mr_dereg,
	.mw_alloc = roce_mw_alloc,
	.mw_dealloc = roce_mw_dealloc,
	.cq_create = roce_cq_create,
	.cq_destroy = roce_cq_destroy,
	.cq_resize = roce_cq_resize,
	.cq_arm = roce_cq_arm,
	.srq_create = roce_srq_create,
	.srq_modify = roce_srq_modify,
	.srq_query = roce_srq_query,
	.srq_destroy = roce_srq_destroy,
	.qp_create = roce_qp_create,
	.qp_modify = roce_qp_modify,
	.qp_query = roce_qp_query,
	.qp_destroy = roce_qp_destroy,
	.mcast_attach = roce_mcast_attach,
	.mcast_detach = roce_mcast_detach,
	.ah_create = roce_ah_create,
	.ah_modify = roce_ah_modify,
	.ah_destroy = roce_ah_destroy,
};

static struct prdma_provider roce_provider = {
	.name = "roce",
	.params = "ring=<name>,side=0|1,port=<id>,ip=<addr>,mac=<addr>,"
		  "mtu=256|512|1024|2048|4096,pcap=<file>,progress=inline|thread,"
		  "name=<name>,burst=<n>,iface=<ifname>,roce_version=1|2,ecn=0|1,cc=0|1,"
		  "cnp_interval_us=<n>,ack_delay_us=<n>,engines=<n>,engine_cpus=<cpu>|<a-b>|[list],flow=auto|0|1,rto_backoff=0|1,fault_seed=<n>,fault_delay_us=<n>,"
		  "{tx,rx}_{drop,dup,reorder,corrupt,delay,ce}=<ppm>|<pct>%",
	.probe = roce_probe,
};

PRDMA_PROVIDER_REGISTER(roce_provider);
