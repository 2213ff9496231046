/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * UD multicast groups, kept where the device looks for them: the MCG ICM
 * table, read and written only through READ_MCG / WRITE_MCG, with the bucket
 * of a group given by the firmware's MGID_HASH. A group lives in its hash
 * bucket when that is free, else in an AMGM entry (allocated here, as the
 * firmware leaves that area to the driver) chained from the bucket's chain
 * tail. A new entry is written before the link to it, and an entry is
 * unlinked before it is cleared, so the device never follows a link into a
 * half-written entry.
 *
 * Limits: a 64-byte entry lists eight QPs, so a group has at most
 * min(8, 2^log_max_qp_mcg) members. Groups: however the hash falls, n
 * groups need at most n - 1 AMGM entries (the first takes its bucket), so
 * as many groups as there are usable AMGM entries always fit; that is the
 * number reported and enforced, whatever the hash does.
 *
 * The device lock (held by the library around every call here) serialises
 * all of it; a small mirror of the groups counts them and finds the groups
 * of a QP being destroyed without reading the whole table.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "hermon_arp.h"
#include "hermon_dev.h"
#include "hermon_logs.h"
#include "hermon_mcast.h"
#include "hermon_mgm.h"
#include "hermon_obj.h"
#include "hermon_prm_ext.h"

#define MCG_NO_PREV UINT32_MAX

struct hermon_mcast_grp {
	uint8_t gid[16];
	uint32_t nqp;                 /* 0: slot free */
	uint32_t qpn[HERMON_MGM_QPS];
};

struct hermon_mcast {
	uint32_t nb_hash;             /* buckets: entries [0, nb_hash) */
	uint32_t nb_amgm;             /* AMGM: entries [nb_hash, nb_hash + nb_amgm) */
	uint32_t max_grp;
	uint32_t max_qp;
	uint32_t nb_grp;
	struct hermon_bitmap amgm;    /* AMGM entries by index - nb_hash */
	struct hermon_mcast_grp *grp; /* max_grp slots */
};

/* Where a group is, or where it would go. */
struct mcg_pos {
	uint32_t hash;
	uint32_t index;               /* the group's entry, or the chain tail */
	uint32_t prev;                /* entry linking to index, or MCG_NO_PREV */
	bool found;
	bool bucket_free;
	struct hermon_prm_mgm_entry e;   /* entry at index */
	struct hermon_prm_mgm_entry pe;  /* entry at prev */
};

static int
mcg_err(int err)
{
	rte_errno = err;
	return -err;
}

int
hermon_mcast_init(struct hermon_dev *hd)
{
	const struct hermon_icm_table *t = &hd->icm.t[HERMON_ICM_MCG];
	struct hermon_mcast *mc;
	uint32_t rsvd;

	hd->mcast = NULL;
	/* a table of one entry has no hash half and no AMGM half: no groups */
	if (t->log_num < 1 || !hd->caps.ud)
		return 0;
	mc = calloc(1, sizeof(*mc));
	if (mc == NULL)
		return mcg_err(ENOMEM);
	mc->nb_hash = 1u << (t->log_num - 1);    /* INIT_HCA's log_mc_table_hash_sz */
	mc->nb_amgm = (1u << t->log_num) - mc->nb_hash;
	rsvd = RTE_MIN((uint32_t)hd->caps.num_rsvd_mcgs, mc->nb_amgm);
	mc->max_grp = mc->nb_amgm - rsvd;
	mc->max_qp = RTE_MIN((uint32_t)HERMON_MGM_QPS,
			     hd->caps.log_max_qp_mcg >= 31 ? UINT32_MAX :
			     1u << hd->caps.log_max_qp_mcg);
	if (mc->max_grp == 0) {
		free(mc);
		return 0;
	}
	mc->amgm.bits = calloc((mc->nb_amgm + 63) / 64, sizeof(uint64_t));
	mc->grp = calloc(mc->max_grp, sizeof(*mc->grp));
	if (mc->amgm.bits == NULL || mc->grp == NULL) {
		free(mc->amgm.bits);
		free(mc->grp);
		free(mc);
		return mcg_err(ENOMEM);
	}
	mc->amgm.n = mc->nb_amgm;
	mc->amgm.first = rsvd;
	mc->amgm.next = rsvd;
	hd->mcast = mc;
	return 0;
}

void
hermon_mcast_fini(struct hermon_dev *hd)
{
	struct hermon_mcast *mc = hd->mcast;

	if (mc == NULL)
		return;
	free(mc->amgm.bits);
	free(mc->grp);
	free(mc);
	hd->mcast = NULL;
}

void
hermon_mcast_query(const struct hermon_dev *hd, struct prdma_dev_attr *attr)
{
	const struct hermon_mcast *mc = hd->mcast;

	if (mc == NULL) {
		attr->max_mcast_grp = 0;
		attr->max_mcast_qp_attach = 0;
		attr->max_total_mcast_qp_attach = 0;
		attr->flags &= ~PRDMA_DEV_CAP_UD_MCAST;
		return;
	}
	attr->max_mcast_grp = mc->max_grp;
	attr->max_mcast_qp_attach = mc->max_qp;
	attr->max_total_mcast_qp_attach = mc->max_grp * mc->max_qp;
	attr->flags |= PRDMA_DEV_CAP_UD_MCAST;
}

/* ---- the table, through the firmware ------------------------------------ */

static int
mcg_corrupt(struct hermon_dev *hd, const char *what, uint32_t index)
{
	HERMON_LOG(ERR, "%s: MCG table: %s at entry %u", hd->pdev->name, what, index);
	return mcg_err(EIO);
}

/* Hash @gid and walk its chain. */
static int
mcg_find(struct hermon_dev *hd, const uint8_t gid[16], struct mcg_pos *pos)
{
	struct hermon_mcast *mc = hd->mcast;
	struct hermon_prm_gid_entry g;
	uint32_t w[4], idx, next, steps;
	uint8_t eg[16];
	int ret;

	memset(&g, 0, sizeof(g));
	memcpy(w, gid, 16);
	HERMON_FILL(&g, gid_entry, gid_127_96, rte_be_to_cpu_32(w[0]));
	HERMON_FILL(&g, gid_entry, gid_95_64, rte_be_to_cpu_32(w[1]));
	HERMON_FILL(&g, gid_entry, gid_63_32, rte_be_to_cpu_32(w[2]));
	HERMON_FILL(&g, gid_entry, gid_31_0, rte_be_to_cpu_32(w[3]));
	ret = hermon_cmd_mgid_hash(&hd->cmd, &g, &pos->hash);
	if (ret < 0)
		return ret;
	if (pos->hash >= mc->nb_hash)
		return mcg_corrupt(hd, "MGID_HASH answered a bucket beyond the hash",
				   pos->hash);
	pos->found = false;
	pos->bucket_free = false;
	pos->prev = MCG_NO_PREV;
	idx = pos->hash;
	/* a chain visits each AMGM entry once at most: longer is a loop */
	for (steps = 0; steps <= mc->nb_amgm; steps++) {
		ret = hermon_cmd_read_mcg(&hd->cmd, idx, &pos->e);
		if (ret < 0)
			return ret;
		pos->index = idx;
		if (hermon_mgm_empty(&pos->e)) {
			if (idx != pos->hash)
				return mcg_corrupt(hd, "chain links to an empty entry", idx);
			pos->bucket_free = true;
			return 0;
		}
		hermon_mgm_gid(&pos->e, eg);
		if (memcmp(eg, gid, 16) == 0) {
			if (hermon_mgm_count(&pos->e) > HERMON_MGM_QPS)
				return mcg_corrupt(hd, "member count beyond the entry", idx);
			pos->found = true;
			return 0;
		}
		next = hermon_mgm_next(&pos->e);
		if (next == 0)
			return 0;
		if (next < mc->nb_hash || next - mc->nb_hash >= mc->nb_amgm)
			return mcg_corrupt(hd, "next_gid_index outside the AMGM area", idx);
		pos->pe = pos->e;
		pos->prev = idx;
		idx = next;
	}
	return mcg_corrupt(hd, "chain loops", pos->hash);
}

/* ---- the mirror ----------------------------------------------------------- */

static struct hermon_mcast_grp *
grp_find(struct hermon_mcast *mc, const uint8_t gid[16])
{
	uint32_t i;

	for (i = 0; i < mc->max_grp; i++)
		if (mc->grp[i].nqp != 0 && memcmp(mc->grp[i].gid, gid, 16) == 0)
			return &mc->grp[i];
	return NULL;
}

static void
grp_add(struct hermon_mcast *mc, const uint8_t gid[16], uint32_t qpn)
{
	struct hermon_mcast_grp *g = grp_find(mc, gid);
	uint32_t i;

	if (g == NULL) {
		for (i = 0; i < mc->max_grp && mc->grp[i].nqp != 0; i++)
			;
		if (i == mc->max_grp)
			return;               /* cannot happen: nb_grp < max_grp */
		g = &mc->grp[i];
		memcpy(g->gid, gid, 16);
		mc->nb_grp++;
	}
	if (g->nqp < HERMON_MGM_QPS)
		g->qpn[g->nqp++] = qpn;
}

static void
grp_del(struct hermon_mcast *mc, const uint8_t gid[16], uint32_t qpn)
{
	struct hermon_mcast_grp *g = grp_find(mc, gid);
	uint32_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->nqp && g->qpn[i] != qpn; i++)
		;
	if (i == g->nqp)
		return;
	g->qpn[i] = g->qpn[--g->nqp];
	if (g->nqp == 0)
		mc->nb_grp--;
}

/* ---- the Ethernet ports' multicast MAC filter (F31) ------------------------ */

/*
 * The MAC a RoCE frame to @gid goes to: 33:33 and the MGID's low 32 bits
 * (the model checks the same; Linux rdma_get_mcast_mac for IPv6 MGIDs).
 */
static uint64_t
grp_mac(const uint8_t gid[16])
{
	return (0x3333ull << 32) | ((uint64_t)gid[12] << 24) | ((uint64_t)gid[13] << 16) |
		((uint64_t)gid[14] << 8) | gid[15];
}

/*
 * F31: an Ethernet port receives only the multicast MACs its filter
 * holds. A group's removal rewrites it as mlx4_en's set_rx_mode does:
 * clear, one SET_MCAST_FLTR per group's MAC, enable; a new group only adds
 * its MAC (the same filter, without N commands per attach).
 * The MCG table (MGM) alone steers a frame to its QPs once the port took it.
 */
/* A new group: its MAC joins every Ethernet port's filter, then enable. */
static int
mcast_fltr_add(struct hermon_dev *hd, const uint8_t gid[16])
{
	uint8_t p;
	int ret;

	for (p = 1; p <= hd->caps.num_ports; p++) {
		if (hd->port[p - 1].type != HERMON_PORT_TYPE_ETH)
			continue;
		ret = hermon_cmd_set_mcast_fltr(&hd->cmd, p, grp_mac(gid), false,
						HERMON_MCAST_CONFIG);
		if (ret == 0)
			ret = hermon_cmd_set_mcast_fltr(&hd->cmd, p, 0, false,
							HERMON_MCAST_ENABLE);
		if (ret < 0) {
			HERMON_LOG(ERR, "%s: port %u: multicast MAC not added (%d)",
				   hd->pdev->name, p, ret);
			return ret;
		}
	}
	return 0;
}

/* A group gone: the filter is rewritten from the groups that remain. */
static int
mcast_fltr_sync(struct hermon_dev *hd)
{
	struct hermon_mcast *mc = hd->mcast;
	uint64_t nd[2];
	uint32_t i;
	uint8_t p;
	int ret, n, k;

	for (p = 1; p <= hd->caps.num_ports; p++) {
		if (hd->port[p - 1].type != HERMON_PORT_TYPE_ETH)
			continue;
		ret = hermon_cmd_set_mcast_fltr(&hd->cmd, p, 0, true, HERMON_MCAST_CONFIG);
		for (i = 0; ret == 0 && i < mc->max_grp; i++)
			if (mc->grp[i].nqp != 0)
				ret = hermon_cmd_set_mcast_fltr(&hd->cmd, p,
								grp_mac(mc->grp[i].gid), false,
								HERMON_MCAST_CONFIG);
		/* and ND's solicited-node MACs (F13, hermon_arp.c) */
		n = hermon_arp_nd_macs(hd, p, nd);
		for (k = 0; ret == 0 && k < n; k++)
			ret = hermon_cmd_set_mcast_fltr(&hd->cmd, p, nd[k], false,
							HERMON_MCAST_CONFIG);
		if (ret == 0)
			ret = hermon_cmd_set_mcast_fltr(&hd->cmd, p, 0, false,
							HERMON_MCAST_ENABLE);
		if (ret < 0) {
			HERMON_LOG(ERR, "%s: port %u: multicast filter not set (%d)",
				   hd->pdev->name, p, ret);
			return ret;
		}
	}
	return 0;
}

/* ---- attach and detach ---------------------------------------------------- */

static int
mcg_attach(struct hermon_dev *hd, const uint8_t gid[16], uint32_t qpn)
{
	struct hermon_mcast *mc = hd->mcast;
	struct hermon_prm_mgm_entry n;
	struct mcg_pos pos;
	uint32_t cnt, k, idx;
	int a, ret;

	ret = mcg_find(hd, gid, &pos);
	if (ret < 0)
		return ret;
	if (pos.found) {
		cnt = hermon_mgm_count(&pos.e);
		for (k = 0; k < cnt; k++)
			if (hermon_mgm_qpn(&pos.e, k) == qpn)
				return mcg_err(EEXIST);
		if (cnt >= mc->max_qp)
			return mcg_err(ENOSPC);
		HERMON_FILL(hermon_mgm_qp(&pos.e, cnt), mgmqp, qpn_i, qpn);
		HERMON_FILL(hermon_mgm_hdr(&pos.e), mcg_hdr, members_count, cnt + 1);
		ret = hermon_cmd_write_mcg(&hd->cmd, pos.index, &pos.e);
		if (ret < 0)
			return ret;
		grp_add(mc, gid, qpn);
		return 0;
	}
	if (mc->nb_grp >= mc->max_grp)
		return mcg_err(ENOSPC);
	memset(&n, 0, sizeof(n));
	hermon_mgm_set_gid(&n, gid);
	HERMON_FILL(hermon_mgm_qp(&n, 0), mgmqp, qpn_i, qpn);
	HERMON_FILL(hermon_mgm_hdr(&n), mcg_hdr, members_count, 1);
	if (pos.bucket_free) {
		ret = hermon_cmd_write_mcg(&hd->cmd, pos.hash, &n);
		if (ret < 0)
			return ret;
		grp_add(mc, gid, qpn);
		return 0;
	}
	a = hermon_bitmap_alloc(&mc->amgm);
	if (a < 0)
		return mcg_err(ENOSPC);       /* cannot happen below max_grp */
	idx = mc->nb_hash + (uint32_t)a;
	ret = hermon_cmd_write_mcg(&hd->cmd, idx, &n);
	if (ret == 0) {
		HERMON_FILL(&pos.e, mgm_entry, next_gid_index, idx);
		ret = hermon_cmd_write_mcg(&hd->cmd, pos.index, &pos.e);
	}
	if (ret < 0) {
		hermon_bitmap_free(&mc->amgm, (uint32_t)a);
		return ret;
	}
	grp_add(mc, gid, qpn);
	return 0;
}

static int
mcg_detach(struct hermon_dev *hd, const uint8_t gid[16], uint32_t qpn)
{
	static const struct hermon_prm_mgm_entry zero;
	struct hermon_mcast *mc = hd->mcast;
	struct hermon_prm_mgm_entry n;
	struct mcg_pos pos;
	uint32_t cnt, k, next;
	int ret;

	ret = mcg_find(hd, gid, &pos);
	if (ret < 0)
		return ret;
	if (!pos.found)
		return mcg_err(ENOENT);
	cnt = hermon_mgm_count(&pos.e);
	for (k = 0; k < cnt && hermon_mgm_qpn(&pos.e, k) != qpn; k++)
		;
	if (k == cnt)
		return mcg_err(ENOENT);
	/* the last member takes the leaving one's slot */
	hermon_mgm_qp(&pos.e, k)->dw[0] = hermon_mgm_qp(&pos.e, cnt - 1)->dw[0];
	hermon_mgm_qp(&pos.e, cnt - 1)->dw[0] = 0;
	HERMON_FILL(hermon_mgm_hdr(&pos.e), mcg_hdr, members_count, cnt - 1);
	if (cnt > 1) {
		ret = hermon_cmd_write_mcg(&hd->cmd, pos.index, &pos.e);
		goto out;
	}
	next = hermon_mgm_next(&pos.e);
	if (pos.prev == MCG_NO_PREV && next != 0) {
		/* the bucket empties: its successor moves in, its AMGM entry frees */
		ret = hermon_cmd_read_mcg(&hd->cmd, next, &n);
		if (ret == 0)
			ret = hermon_cmd_write_mcg(&hd->cmd, pos.index, &n);
		if (ret == 0)
			ret = hermon_cmd_write_mcg(&hd->cmd, next, &zero);
		if (ret == 0)
			hermon_bitmap_free(&mc->amgm, next - mc->nb_hash);
	} else if (pos.prev == MCG_NO_PREV) {
		ret = hermon_cmd_write_mcg(&hd->cmd, pos.index, &zero);
	} else {
		/* an AMGM entry: unlink it, then clear and free it */
		HERMON_FILL(&pos.pe, mgm_entry, next_gid_index, next);
		ret = hermon_cmd_write_mcg(&hd->cmd, pos.prev, &pos.pe);
		if (ret == 0)
			ret = hermon_cmd_write_mcg(&hd->cmd, pos.index, &zero);
		if (ret == 0)
			hermon_bitmap_free(&mc->amgm, pos.index - mc->nb_hash);
	}
out:
	if (ret < 0)
		return ret;
	grp_del(mc, gid, qpn);
	return 0;
}

static struct hermon_dev *
mcast_dev(struct prdma_qp *qp)
{
	struct hermon_dev *hd = qp->dev->priv;

	if (hd->mcast == NULL) {
		rte_errno = ENOTSUP;
		return NULL;
	}
	return hd;
}

int
hermon_mcast_attach(struct prdma_qp *qp, const union prdma_gid *gid)
{
	struct hermon_dev *hd = mcast_dev(qp);
	uint32_t before;
	int ret;

	if (hd == NULL)
		return -ENOTSUP;
	before = hd->mcast->nb_grp;
	ret = mcg_attach(hd, gid->raw, ((struct hermon_qp *)qp)->qpn);
	/* a new group: its MAC joins the ports' filter */
	if (ret == 0 && hd->mcast->nb_grp != before) {
		ret = mcast_fltr_add(hd, gid->raw);
		if (ret < 0) {
			mcg_detach(hd, gid->raw, ((struct hermon_qp *)qp)->qpn);
			rte_errno = -ret;
		}
	}
	return ret;
}

int
hermon_mcast_detach(struct prdma_qp *qp, const union prdma_gid *gid)
{
	struct hermon_dev *hd = mcast_dev(qp);
	uint32_t before;
	int ret;

	if (hd == NULL)
		return -ENOTSUP;
	before = hd->mcast->nb_grp;
	ret = mcg_detach(hd, gid->raw, ((struct hermon_qp *)qp)->qpn);
	/* the group's last member left: its MAC leaves the filter */
	if (ret == 0 && hd->mcast->nb_grp != before)
		mcast_fltr_sync(hd);
	return ret;
}

void
hermon_mcast_qp_gone(struct hermon_dev *hd, uint32_t qpn)
{
	struct hermon_mcast *mc = hd->mcast;
	uint8_t gid[16];
	uint32_t i, k, before;

	if (mc == NULL || mc->nb_grp == 0)
		return;
	before = mc->nb_grp;
	for (i = 0; i < mc->max_grp; i++) {
		struct hermon_mcast_grp *g = &mc->grp[i];

		for (k = 0; k < g->nqp; k++) {
			if (g->qpn[k] != qpn)
				continue;
			memcpy(gid, g->gid, 16);
			if (mcg_detach(hd, gid, qpn) < 0) {
				HERMON_LOG(ERR, "%s: QP 0x%x left in a multicast group: "
					   "detach failed (%d)", hd->pdev->name, qpn, -rte_errno);
				grp_del(mc, gid, qpn);
			}
			break;
		}
	}
	if (mc->nb_grp != before)
		mcast_fltr_sync(hd);
}
