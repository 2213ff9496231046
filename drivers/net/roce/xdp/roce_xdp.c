/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * XDP steering for the roce provider over net_af_xdp: RoCEv2 (UDP 4791 over
 * IPv4 or IPv6, optionally behind one VLAN tag) and RoCEv1 (EtherType
 * 0x8915) go to the AF_XDP socket of the receive queue; everything else
 * (ARP, ND, ICMP, TCP, other UDP) goes on to the kernel, so the interface
 * stays usable by the host. net_af_xdp loads this object with its
 * xdp_prog= devarg and puts its socket into the map named xsks_map.
 */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define ROCE_UDP_PORT     4791
#define ROCE_ETHERTYPE_V1 0x8915
#define ETH_P_8021Q_      0x8100

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

static __always_inline int
to_socket(struct xdp_md *ctx)
{
	/* XDP_PASS when no socket is bound to this queue. */
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

SEC("xdp")
int
roce_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct udphdr *udp;
	void *l3;
	__u16 proto;

	if ((void *)(eth + 1) > end)
		return XDP_PASS;
	proto = bpf_ntohs(eth->h_proto);
	l3 = eth + 1;
	if (proto == ETH_P_8021Q_) {
		__u16 *tag = l3;

		if ((void *)(tag + 2) > end)
			return XDP_PASS;
		proto = bpf_ntohs(tag[1]);
		l3 = tag + 2;
	}
	if (proto == ROCE_ETHERTYPE_V1)
		return to_socket(ctx);
	if (proto == ETH_P_IP) {
		struct iphdr *ip = l3;

		if ((void *)(ip + 1) > end || ip->protocol != IPPROTO_UDP || ip->ihl != 5)
			return XDP_PASS;
		udp = (struct udphdr *)(ip + 1);
	} else if (proto == ETH_P_IPV6) {
		struct ipv6hdr *ip6 = l3;

		if ((void *)(ip6 + 1) > end || ip6->nexthdr != IPPROTO_UDP)
			return XDP_PASS;
		udp = (struct udphdr *)(ip6 + 1);
	} else {
		return XDP_PASS;
	}
	if ((void *)(udp + 1) > end || udp->dest != bpf_htons(ROCE_UDP_PORT))
		return XDP_PASS;
	return to_socket(ctx);
}

char _license[] SEC("license") = "Dual BSD/GPL";
