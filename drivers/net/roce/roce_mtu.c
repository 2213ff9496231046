/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * How large a frame the port can carry: the link's MTU (the kernel
 * interface's, for an ethdev that sits on one), capped by the frames the
 * ethdev receives whole into one of our mbufs.
 */

#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_packet.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_kvargs.h>
#include <rte_mbuf.h>

#include "roce.h"

/* net_af_packet's ring frame size when its framesz devarg is absent. */
#define AFP_DEFAULT_FRAMESZ 2048u

static int
afp_kv(const char *key __rte_unused, const char *value, void *opaque)
{
	char *end;
	unsigned long v = strtoul(value, &end, 0);

	if (*end == '\0' && v > 0 && v <= UINT32_MAX)
		*(uint32_t *)opaque = (uint32_t)v;
	return 0;
}

/*
 * net_af_packet copies each frame from a TPACKET_V2 ring slot of framesz
 * bytes into one mbuf, truncated to what the slot holds after the kernel's
 * header; its reported max_rx_pktlen (1518) is not what limits it.
 */
static int
afp_framesz(const struct rte_eth_dev_info *info, uint32_t *framesz)
{
	const struct rte_devargs *da;
	struct rte_kvargs *kv;

	*framesz = AFP_DEFAULT_FRAMESZ;
	if (info->driver_name == NULL || strcmp(info->driver_name, "net_af_packet") != 0 ||
	    info->device == NULL)
		return 0;
	da = rte_dev_devargs(info->device);
	if (da != NULL && da->args != NULL && da->args[0] != '\0') {
		kv = rte_kvargs_parse(da->args, NULL);
		if (kv != NULL) {
			rte_kvargs_process(kv, "framesz", afp_kv, framesz);
			rte_kvargs_free(kv);
		}
	}
	return 1;
}

uint32_t
roce_port_rx_room(const struct rte_eth_dev_info *info)
{
	uint32_t framesz;

	/* The PMD refuses a pool smaller than a whole ring slot's data. */
	if (afp_framesz(info, &framesz))
		return framesz - (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll));
	return 0;
}

uint32_t
roce_port_frame_cap(const struct rte_eth_dev_info *info, uint32_t mbuf_room)
{
	uint32_t framesz, cap;

	if (afp_framesz(info, &framesz))
		/* The kernel puts the MAC header this far into the slot. */
		cap = framesz - TPACKET_ALIGN(TPACKET2_HDRLEN + 16);
	else
		cap = info->max_rx_pktlen > RTE_ETHER_CRC_LEN ?
			info->max_rx_pktlen - RTE_ETHER_CRC_LEN : 0;
	return RTE_MIN(cap, mbuf_room);
}

uint32_t
roce_port_link_mtu(uint16_t port, unsigned int ifindex)
{
	struct ifreq ifr;
	uint16_t mtu;
	int s, ret;

	if (ifindex != 0) {
		memset(&ifr, 0, sizeof(ifr));
		if (if_indextoname(ifindex, ifr.ifr_name) != NULL) {
			s = socket(AF_INET, SOCK_DGRAM, 0);
			if (s >= 0) {
				ret = ioctl(s, SIOCGIFMTU, &ifr);
				close(s);
				if (ret == 0 && ifr.ifr_mtu > 0)
					return (uint32_t)ifr.ifr_mtu;
			}
		}
	}
	if (rte_eth_dev_get_mtu(port, &mtu) < 0)
		mtu = RTE_ETHER_MTU;
	return mtu;
}
