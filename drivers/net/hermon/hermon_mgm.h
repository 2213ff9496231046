/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef HERMON_MGM_H
#define HERMON_MGM_H

/*
 * One entry of the MCG ICM table (a multicast group), shared by the PMD and
 * the model. The table is log_mc_table_hash_sz hash buckets followed by the
 * AMGM overflow area; a group whose bucket is taken lives in an AMGM entry
 * chained from the bucket by next_gid_index (0 ends a chain: bucket 0 is
 * never anybody's successor). The PRM's mgm_entry names the QP list; the
 * member count sits where mcg_hdr puts it (dword 1, bits 23:0, as LNX's
 * members_count), so the first 32 bytes are read through mcg_hdr as well.
 * The PMD programs 64-byte entries: eight QPs per group.
 */

#include <stdint.h>
#include <string.h>

#include "hermon_prm.h"

#define HERMON_MGM_QPS    8            /* mgmqp_0 .. mgmqp_7 */
#define HERMON_MCAST_QPN  0xffffffu    /* DestQP of a datagram to a group */

static inline struct hermon_prm_mcg_hdr *
hermon_mgm_hdr(struct hermon_prm_mgm_entry *e)
{
	return (struct hermon_prm_mcg_hdr *)(void *)e->dw;
}

static inline const struct hermon_prm_mcg_hdr *
hermon_mgm_hdr_c(const struct hermon_prm_mgm_entry *e)
{
	return (const struct hermon_prm_mcg_hdr *)(const void *)e->dw;
}

/* QP slot @k (< HERMON_MGM_QPS) of @e. */
static inline struct hermon_prm_mgmqp *
hermon_mgm_qp(struct hermon_prm_mgm_entry *e, unsigned int k)
{
	return (struct hermon_prm_mgmqp *)(void *)
		(e->dw + HERMON_PB_OFF(mgm_entry, mgmqp_0) / 32 + k);
}

static inline uint32_t
hermon_mgm_qpn(const struct hermon_prm_mgm_entry *e, unsigned int k)
{
	const struct hermon_prm_mgmqp *q = (const struct hermon_prm_mgmqp *)
		(const void *)(e->dw + HERMON_PB_OFF(mgm_entry, mgmqp_0) / 32 + k);

	return HERMON_GET(q, mgmqp, qpn_i);
}

static inline uint32_t
hermon_mgm_count(const struct hermon_prm_mgm_entry *e)
{
	return HERMON_GET(hermon_mgm_hdr_c(e), mcg_hdr, members_count);
}

static inline uint32_t
hermon_mgm_next(const struct hermon_prm_mgm_entry *e)
{
	return HERMON_GET(e, mgm_entry, next_gid_index);
}

/* The MGID as 16 bytes in wire order (the words are big-endian already). */
static inline void
hermon_mgm_gid(const struct hermon_prm_mgm_entry *e, uint8_t gid[16])
{
	uint32_t w[4];

	w[0] = rte_cpu_to_be_32(HERMON_GET(e, mgm_entry, mgid_128_96));
	w[1] = rte_cpu_to_be_32(HERMON_GET(e, mgm_entry, mgid_95_64));
	w[2] = rte_cpu_to_be_32(HERMON_GET(e, mgm_entry, mgid_63_32));
	w[3] = rte_cpu_to_be_32(HERMON_GET(e, mgm_entry, mgid_31_0));
	memcpy(gid, w, 16);
}

static inline void
hermon_mgm_set_gid(struct hermon_prm_mgm_entry *e, const uint8_t gid[16])
{
	uint32_t w[4];

	memcpy(w, gid, 16);
	HERMON_FILL(e, mgm_entry, mgid_128_96, rte_be_to_cpu_32(w[0]));
	HERMON_FILL(e, mgm_entry, mgid_95_64, rte_be_to_cpu_32(w[1]));
	HERMON_FILL(e, mgm_entry, mgid_63_32, rte_be_to_cpu_32(w[2]));
	HERMON_FILL(e, mgm_entry, mgid_31_0, rte_be_to_cpu_32(w[3]));
}

/* True when @e holds no group (an all-zero MGID). */
static inline int
hermon_mgm_empty(const struct hermon_prm_mgm_entry *e)
{
	return (e->dw[4] | e->dw[5] | e->dw[6] | e->dw[7]) == 0;
}

#endif /* HERMON_MGM_H */
