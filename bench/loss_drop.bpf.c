/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * A tc classifier (clsact egress, direct-action) that drops about 1 % of
 * the RoCEv2 frames (IPv4, UDP destination port 4791) leaving an
 * interface, chosen by bpf_get_prandom_u32(): the loss of bench/loss-tail.sh,
 * since this kernel has neither netem nor the gact action. Everything else
 * (ARP, other traffic) passes. LOSS_PER_65536 sets the rate at build time.
 */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifndef LOSS_PER_65536
#define LOSS_PER_65536 655   /* 1.0 % */
#endif
#define ROCE_UDP_PORT 4791

SEC("tc")
int
loss_drop(struct __sk_buff *skb)
{
	struct ethhdr *eth;
	struct iphdr *ip;
	struct udphdr *udp;
	void *end;

	/* AF_PACKET's mmap ring sends the frame in page fragments: make the
	 * headers linear before reading them. */
	if (bpf_skb_pull_data(skb, sizeof(*eth) + sizeof(*ip) + sizeof(*udp)) < 0)
		return TC_ACT_OK;
	eth = (void *)(long)skb->data;
	end = (void *)(long)skb->data_end;
	if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	ip = (struct iphdr *)(eth + 1);
	if ((void *)(ip + 1) > end || ip->ihl != 5 || ip->protocol != IPPROTO_UDP)
		return TC_ACT_OK;
	udp = (struct udphdr *)(ip + 1);
	if ((void *)(udp + 1) > end || udp->dest != bpf_htons(ROCE_UDP_PORT))
		return TC_ACT_OK;
	if ((bpf_get_prandom_u32() & 0xffff) < LOSS_PER_65536)
		return TC_ACT_SHOT;
	return TC_ACT_OK;
}

char _license[] SEC("license") = "Dual BSD/GPL";
