/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * How the model reaches host memory: by IOVA only, as a device does by
 * DMA, and ICM through the blocks the driver handed over with MAP_ICM.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_memory.h>

#include "hermon_model_priv.h"

void *
hm_dma_ptr(rte_iova_t iova, size_t len)
{
	uint8_t *va, *end;

	if (len == 0 || iova == RTE_BAD_IOVA || iova + len < iova)
		return NULL;
	va = rte_mem_iova2virt(iova);
	if (va == NULL)
		return NULL;
	if (len > 1) {
		/* a DMA burst must not run off the end of the memory it hit */
		end = rte_mem_iova2virt(iova + len - 1);
		if (end != va + len - 1)
			return NULL;
	}
	return va;
}

void *
hm_icm_ptr(struct hermon_model *m, uint64_t icm_va, size_t len)
{
	uint32_t i;

	for (i = 0; i < m->icm.nb; i++) {
		const struct hm_map *e = &m->icm.e[i];

		if (icm_va >= e->va && icm_va + len <= e->va + e->size)
			return hm_dma_ptr(e->iova + (icm_va - e->va), len);
	}
	return NULL;
}

int
hm_maps_add(struct hm_maps *maps, uint64_t va, uint64_t iova, uint64_t size)
{
	if (maps->nb == maps->cap) {
		uint32_t cap = maps->cap != 0 ? maps->cap * 2 : 64;
		struct hm_map *e = realloc(maps->e, cap * sizeof(*e));

		if (e == NULL)
			return -1;
		maps->e = e;
		maps->cap = cap;
	}
	maps->e[maps->nb++] = (struct hm_map){ .va = va, .iova = iova, .size = size };
	maps->pages += size >> HERMON_ICM_PAGE_SHIFT;
	return 0;
}

void
hm_maps_clear(struct hm_maps *maps)
{
	free(maps->e);
	memset(maps, 0, sizeof(*maps));
}

static bool
hm_icm_overlaps(const struct hermon_model *m, uint64_t va, uint64_t size)
{
	uint32_t i;

	for (i = 0; i < m->icm.nb; i++)
		if (va < m->icm.e[i].va + m->icm.e[i].size &&
		    m->icm.e[i].va < va + size)
			return true;
	return false;
}

/* Validate a whole MAP_FA / MAP_ICM_AUX / MAP_ICM mailbox, then record it. */
int
hm_parse_map_mbox(struct hermon_model *m, const struct hm_cmd *c,
		  struct hm_maps *maps, bool with_va)
{
	const struct hermon_prm_virtual_physical_mapping *ent;
	uint32_t i;

	if (c->in_mod == 0 || c->in_mod > HERMON_MAP_ENTRIES_PER_MBOX)
		return HERMON_STAT_BAD_PARAM;
	ent = hm_dma_ptr(c->in_param, (size_t)c->in_mod * sizeof(*ent));
	if (ent == NULL)
		return HERMON_STAT_INTERNAL_ERR;
	for (i = 0; i < c->in_mod; i++) {
		uint32_t lg = HERMON_GET(&ent[i], virtual_physical_mapping, log2size);
		uint64_t pa = HERMON_GET64(&ent[i], virtual_physical_mapping, pa_h, pa_l);
		uint64_t va = HERMON_GET64(&ent[i], virtual_physical_mapping, va_h, va_l);
		uint64_t size;

		if (lg > 30)
			return HERMON_STAT_BAD_PARAM;
		size = (uint64_t)HERMON_ICM_PAGE_SIZE << lg;
		if ((pa & (size - 1)) != 0 || hm_dma_ptr(pa, size) == NULL)
			return HERMON_STAT_BAD_PARAM;
		if (with_va) {
			if ((va & (size - 1)) != 0 || va + size > m->icm_size ||
			    va + size < va)
				return HERMON_STAT_BAD_PARAM;
			if (hm_icm_overlaps(m, va, size))
				return HERMON_STAT_ICM_ERROR;
		}
	}
	for (i = 0; i < c->in_mod; i++) {
		uint32_t lg = HERMON_GET(&ent[i], virtual_physical_mapping, log2size);
		uint64_t pa = HERMON_GET64(&ent[i], virtual_physical_mapping, pa_h, pa_l);
		uint64_t va = with_va ?
			HERMON_GET64(&ent[i], virtual_physical_mapping, va_h, va_l) : 0;

		if (hm_maps_add(maps, va, pa, (uint64_t)HERMON_ICM_PAGE_SIZE << lg) < 0)
			return HERMON_STAT_INTERNAL_ERR;
	}
	return HERMON_STAT_OK;
}
