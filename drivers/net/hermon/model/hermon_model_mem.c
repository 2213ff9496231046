/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Memory keys as silicon checks them (hermon-prm-facts §8): the dMPT entry
 * at key >> 8 must hold the whole key (rotated), be hardware-owned, belong
 * to the QP's PD, grant the access and cover the range; windows also name a
 * live region and, for type 2, the QP they are bound to. Translation walks
 * the region's MTT page by page.
 */

#include <string.h>

#include "hermon_model_priv.h"

#define MPT(f) HERMON_GET(mpt, mpt, f)

static uint32_t
rotr8(uint32_t k)
{
	return (k >> 8) | (k << 24);
}

static struct hermon_prm_mpt *
hm_mpt_of_key(struct hermon_model *m, uint32_t key)
{
	struct hermon_prm_mpt *mpt = hm_mpt(m, key >> 8);

	if (mpt == NULL || MPT(status) != HERMON_MPT_HW || MPT(mem_key) == 0 ||
	    MPT(mem_key) != rotr8(key))
		return NULL;
	return mpt;
}

static bool
hm_in_range(const struct hermon_prm_mpt *mpt, uint64_t addr, uint64_t len)
{
	uint64_t start = HERMON_GET64(mpt, mpt, start_addr_h, start_addr_l);
	uint64_t size = HERMON_GET64(mpt, mpt, len_h, len_l);

	if (MPT(len64))
		return true;
	if (addr < start || addr - start > size)
		return false;
	return len <= size - (addr - start);
}

int
hm_key_check(struct hermon_model *m, uint32_t key, uint32_t pd, uint64_t addr,
	     uint64_t len, uint32_t acc, uint32_t qpn)
{
	struct hermon_prm_mpt *mpt = hm_mpt_of_key(m, key), *reg;

	if (mpt == NULL || MPT(pd) != pd)
		return -1;
	if (((acc & HM_ACC_LR) && !MPT(lr)) || ((acc & HM_ACC_LW) && !MPT(lw)) ||
	    ((acc & HM_ACC_RR) && !MPT(rr)) || ((acc & HM_ACC_RW) && !MPT(rw)) ||
	    ((acc & HM_ACC_AT) && !MPT(atomic)))
		return -1;
	if (addr + len < addr || !hm_in_range(mpt, addr, len))
		return -1;
	if (MPT(r_w))
		return 0;
	/* a window: remote use only, through a region that still exists */
	if (acc & (HM_ACC_LR | HM_ACC_LW))
		return -1;
	if (MPT(bqp) && MPT(qpn) != qpn)
		return -1;
	reg = hm_mpt_of_key(m, MPT(lkey));
	if (reg == NULL || !HERMON_GET(reg, mpt, r_w) || !hm_in_range(reg, addr, len))
		return -1;
	return 0;
}

void *
hm_xlate(struct hermon_model *m, uint32_t key, uint64_t addr, uint32_t *len)
{
	struct hermon_prm_mpt *mpt = hm_mpt_of_key(m, key);
	const struct hermon_prm_mtt *mtt;
	uint64_t off, pg, pa;
	uint32_t shift;

	if (mpt != NULL && !MPT(r_w))
		mpt = hm_mpt_of_key(m, MPT(lkey));
	if (mpt == NULL)
		return NULL;
	if (MPT(pa)) {
		/* physical region: the address is an IOVA; stay within 4 KiB */
		pg = HERMON_ICM_PAGE_SIZE - (addr & (HERMON_ICM_PAGE_SIZE - 1));
		if (*len > pg)
			*len = (uint32_t)pg;
		return hm_dma_ptr(addr, *len);
	}
	shift = MPT(entity_size);
	if (shift < 12 || shift > 30)
		return NULL;
	/* the MTT starts at the page holding the region's first byte */
	off = addr - HERMON_GET64(mpt, mpt, start_addr_h, start_addr_l) +
		(HERMON_GET64(mpt, mpt, start_addr_h, start_addr_l) & ((1ull << shift) - 1));
	pg = (1ull << shift) - (off & ((1ull << shift) - 1));
	if (*len > pg)
		*len = (uint32_t)pg;
	mtt = hm_icm_ptr(m, m->layout.base[HERMON_MODEL_MTT] +
			 HERMON_GET64(mpt, mpt, mtt_adr_h, mtt_adr_l) +
			 (off >> shift) * HM_MTT_ENTRY, HM_MTT_ENTRY);
	if (mtt == NULL || HERMON_GET(mtt, mtt, p) == 0)
		return NULL;
	pa = HERMON_GET64(mtt, mtt, ptag_h, ptag_l) & ~((1ull << shift) - 1);
	return hm_dma_ptr(pa + (off & ((1ull << shift) - 1)), *len);
}

/* A cursor over a segment list. */
struct hm_cur {
	struct hermon_model *m;
	const struct hm_seg *s;
	uint32_t n, i, off;
};

/* Next contiguous host span of at most @max bytes; NULL on a hole. */
static uint8_t *
hm_cur_span(struct hm_cur *c, uint32_t max, uint32_t *got)
{
	const struct hm_seg *s;
	uint32_t n;
	uint8_t *p;

	while (c->i < c->n && c->off == c->s[c->i].len) {
		c->i++;
		c->off = 0;
	}
	if (c->i == c->n)
		return NULL;
	s = &c->s[c->i];
	n = RTE_MIN(max, s->len - c->off);
	if (s->direct != NULL)
		p = (uint8_t *)(uintptr_t)(s->direct + c->off);
	else
		p = hm_xlate(c->m, s->key, s->addr + c->off, &n);
	*got = n;
	return p;
}

int
hm_copy(struct hermon_model *dm, const struct hm_seg *dst, uint32_t nd,
	struct hermon_model *sm, const struct hm_seg *src, uint32_t ns,
	uint32_t len)
{
	struct hm_cur d = { .m = dm, .s = dst, .n = nd };
	struct hm_cur s = { .m = sm, .s = src, .n = ns };

	while (len > 0) {
		uint32_t a, b;
		uint8_t *sp = hm_cur_span(&s, len, &a);
		uint8_t *dp;

		if (sp == NULL)
			return -1;
		dp = hm_cur_span(&d, a, &b);
		if (dp == NULL)
			return -1;
		memcpy(dp, sp, b);
		s.off += b;
		d.off += b;
		len -= b;
	}
	return 0;
}
