/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * pcap= capture: every frame sent and received, in the classic libpcap
 * format (microsecond timestamps, LINKTYPE_ETHERNET). A debugging aid: it
 * writes through stdio from the engine, so it costs a copy and, now and
 * then, a system call per frame.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <rte_malloc.h>

#include "roce.h"

#define PCAP_MAGIC     0xa1b2c3d4u
#define PCAP_SNAPLEN   65535u
#define PCAP_LINK_ETH  1u

struct roce_pcap {
	FILE *f;
	pthread_mutex_t lock; /* the engines of two devices may share nothing, but
			       * a device's thread and its remover may race */
};

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t major;
	uint16_t minor;
	int32_t thiszone;
	uint32_t sigfigs;
	uint32_t snaplen;
	uint32_t linktype;
};

struct pcap_rec_hdr {
	uint32_t ts_sec;
	uint32_t ts_usec;
	uint32_t incl_len;
	uint32_t orig_len;
};

struct roce_pcap *
roce_pcap_open(const char *path)
{
	struct pcap_file_hdr h;
	struct roce_pcap *pc;

	pc = calloc(1, sizeof(*pc));
	if (pc == NULL)
		return NULL;
	pc->f = fopen(path, "wb");
	if (pc->f == NULL) {
		ROCE_LOG(ERR, "pcap=%s: %s", path, strerror(errno));
		free(pc);
		return NULL;
	}
	memset(&h, 0, sizeof(h));
	h.magic = PCAP_MAGIC;
	h.major = 2;
	h.minor = 4;
	h.snaplen = PCAP_SNAPLEN;
	h.linktype = PCAP_LINK_ETH;
	if (fwrite(&h, sizeof(h), 1, pc->f) != 1) {
		ROCE_LOG(ERR, "pcap=%s: %s", path, strerror(errno));
		fclose(pc->f);
		free(pc);
		return NULL;
	}
	pthread_mutex_init(&pc->lock, NULL);
	return pc;
}

void
roce_pcap_write(struct roce_pcap *pc, const struct rte_mbuf *m)
{
	struct pcap_rec_hdr r;
	struct timeval tv;
	const struct rte_mbuf *s;

	gettimeofday(&tv, NULL);
	r.ts_sec = (uint32_t)tv.tv_sec;
	r.ts_usec = (uint32_t)tv.tv_usec;
	r.incl_len = RTE_MIN(m->pkt_len, PCAP_SNAPLEN);
	r.orig_len = m->pkt_len;
	pthread_mutex_lock(&pc->lock);
	if (fwrite(&r, sizeof(r), 1, pc->f) == 1) {
		uint32_t left = r.incl_len;

		for (s = m; s != NULL && left > 0; s = s->next) {
			uint32_t n = RTE_MIN((uint32_t)s->data_len, left);

			if (fwrite(rte_pktmbuf_mtod(s, const void *), 1, n, pc->f) != n)
				break;
			left -= n;
		}
	}
	pthread_mutex_unlock(&pc->lock);
}

void
roce_pcap_close(struct roce_pcap *pc)
{
	fclose(pc->f);
	pthread_mutex_destroy(&pc->lock);
	free(pc);
}
