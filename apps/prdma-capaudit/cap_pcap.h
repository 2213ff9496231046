/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef CAP_PCAP_H
#define CAP_PCAP_H

/*
 * A reader for classic pcap (micro- and nanosecond, either byte order) and
 * pcapng (section header, interface description, enhanced, simple and
 * obsolete packet blocks), with no libpcap dependency.
 */

#include <stdint.h>
#include <stdio.h>

/* Link types the decoder understands. */
#define CAP_LINK_ETHERNET  1
#define CAP_LINK_RAW       101
#define CAP_LINK_SLL       113
#define CAP_LINK_IPV4      228
#define CAP_LINK_IPV6      229
#define CAP_LINK_SLL2      276

#define CAP_MAX_IFACES 64

struct cap_frame {
	uint64_t number;        /* 1-based, as Wireshark numbers frames */
	uint64_t ts_ns;
	uint32_t linktype;
	uint32_t caplen;
	uint32_t origlen;
	const uint8_t *data;
};

struct cap_reader {
	FILE *f;
	int ng;                 /* pcapng */
	int swap;               /* file byte order differs from the host's */
	int nsec;               /* classic pcap: nanosecond timestamps */
	uint32_t linktype;      /* classic pcap */
	uint32_t nb_if;         /* pcapng interfaces in this section */
	uint32_t if_link[CAP_MAX_IFACES];
	uint32_t if_snap[CAP_MAX_IFACES];
	uint64_t count;
	uint8_t *buf;
	uint32_t buf_len;
	char err[160];
};

/* Open a capture; returns 0 or -1 with r->err set. */
int cap_reader_open(struct cap_reader *r, const char *path);

/*
 * Read the next frame: 1 with @p fr filled (data valid until the next
 * call), 0 at the end, -1 on a malformed file (r->err says why).
 */
int cap_reader_next(struct cap_reader *r, struct cap_frame *fr);

void cap_reader_close(struct cap_reader *r);

#endif /* CAP_PCAP_H */
