/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Protection domains, memory regions, memory windows and address handles.
 * A region's dMPT entry goes to the device with SW2HW_MPT; its MTT lists the
 * IOVA of every page of the region (the page size of the memory segment
 * list it lies in) and is written with WRITE_MTT. A key is the dMPT index
 * shifted left by 8 with a key byte drawn at random each time the index is
 * used and never the same twice in a row, so a stale key never matches a
 * new entry and keys are not guessable in sequence.
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_memory.h>

#include "hermon_logs.h"
#include "hermon_obj.h"

static uint32_t
rotr8(uint32_t k)
{
	return (k >> 8) | (k << 24);
}

int
hermon_pd_alloc(struct prdma_pd *pd)
{
	struct hermon_dev *hd = pd->dev->priv;
	int i = hermon_bitmap_alloc(&hd->pds);

	if (i < 0)
		return i;
	pd->pd_num = (uint32_t)i;
	return 0;
}

int
hermon_pd_free(struct prdma_pd *pd)
{
	struct hermon_dev *hd = pd->dev->priv;

	hermon_bitmap_free(&hd->pds, pd->pd_num);
	return 0;
}

/* A dMPT index and a fresh key for it. */
static int
mpt_get(struct hermon_dev *hd, uint32_t *index, uint32_t *key)
{
	int i = hermon_bitmap_alloc(&hd->mpts);
	uint8_t kb;

	if (i < 0)
		return i;
	*index = (uint32_t)i;
	/*
	 * A random key byte, never the one this index had last: a peer cannot
	 * guess the next key from the last, and a stale key stays stale.
	 */
	kb = (uint8_t)prdma_random32();
	if (kb == hd->mpt_key[i])
		kb++;
	hd->mpt_key[i] = kb;
	*key = ((uint32_t)i << 8) | kb;
	return 0;
}

static void
mpt_access(struct hermon_prm_mpt *mpt, uint32_t access)
{
	HERMON_FILL(mpt, mpt, lr, 1);
	HERMON_FILL(mpt, mpt, lw, (access & PRDMA_ACCESS_LOCAL_WRITE) != 0);
	HERMON_FILL(mpt, mpt, rr, (access & PRDMA_ACCESS_REMOTE_READ) != 0);
	HERMON_FILL(mpt, mpt, rw, (access & PRDMA_ACCESS_REMOTE_WRITE) != 0);
	HERMON_FILL(mpt, mpt, atomic, (access & PRDMA_ACCESS_REMOTE_ATOMIC) != 0);
	HERMON_FILL(mpt, mpt, eb, (access & PRDMA_ACCESS_MW_BIND) != 0);
}

/* Build and write the MTT of [addr, addr+len); 0 or a negative errno. */
static int
mr_mtt(struct hermon_dev *hd, struct hermon_mr *m, uint32_t *shift)
{
	const struct rte_memseg_list *msl = rte_mem_virt2memseg_list(m->pub.addr);
	uintptr_t start = (uintptr_t)m->pub.addr, first, end;
	rte_iova_t *pages;
	uint64_t pg;
	uint32_t n, i;
	int ret;

	if (msl == NULL || msl->page_sz == 0) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	pg = msl->page_sz;
	first = RTE_ALIGN_FLOOR(start, pg);
	end = RTE_ALIGN_CEIL(start + m->pub.length, pg);
	n = (uint32_t)((end - first) / pg);
	pages = malloc(n * sizeof(*pages));
	if (pages == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		pages[i] = rte_mem_virt2iova((void *)(first + (uintptr_t)i * pg));
		if (pages[i] == RTE_BAD_IOVA) {
			HERMON_LOG(ERR, "%s: no IOVA for %p", hd->pdev->name,
				   (void *)(first + (uintptr_t)i * pg));
			free(pages);
			rte_errno = EINVAL;
			return -EINVAL;
		}
	}
	ret = hermon_mtt_alloc(hd, n);
	if (ret >= 0) {
		m->mtt = (uint32_t)ret;
		m->nmtt = n;
		ret = hermon_mtt_write(hd, m->mtt, pages, n);
		if (ret < 0) {
			hermon_mtt_free(hd, m->mtt, n);
			m->nmtt = 0;
		}
	}
	free(pages);
	*shift = (uint32_t)__builtin_ctzll(pg);
	return ret < 0 ? ret : 0;
}

int
hermon_mr_reg(struct prdma_mr *pmr)
{
	struct hermon_mr *m = (struct hermon_mr *)pmr;
	struct hermon_dev *hd = pmr->dev->priv;
	struct hermon_prm_mpt mpt;
	uint32_t key, shift = 12;
	bool dma = (pmr->flags & PRDMA_MR_F_DMA) != 0;
	int ret;

	ret = mpt_get(hd, &m->index, &key);
	if (ret < 0)
		return ret;
	if (!dma) {
		ret = mr_mtt(hd, m, &shift);
		if (ret < 0)
			goto err_idx;
	}
	memset(&mpt, 0, sizeof(mpt));
	HERMON_FILL(&mpt, mpt, r_w, 1);
	mpt_access(&mpt, pmr->access);
	HERMON_FILL(&mpt, mpt, mem_key, rotr8(key));
	HERMON_FILL(&mpt, mpt, pd, pmr->pd->pd_num);
	/*
	 * No remote invalidation of an ordinary region (security review F3):
	 * IBA and Linux rxe let a peer's SEND_WITH_INV retire only fast-
	 * registered regions and type-2 windows, and this API can neither
	 * fast-register nor revalidate a region. EN_INV stays clear, so the
	 * device refuses it.
	 */
	if (dma) {
		/* a physical region: SGE addresses are IOVAs, no MTT */
		HERMON_FILL(&mpt, mpt, pa, 1);
		HERMON_FILL(&mpt, mpt, len64, 1);
	} else {
		HERMON_FILL64(&mpt, mpt, start_addr_h, start_addr_l,
			      (uint64_t)(uintptr_t)pmr->addr);
		HERMON_FILL64(&mpt, mpt, len_h, len_l, pmr->length);
		HERMON_FILL64(&mpt, mpt, mtt_adr_h, mtt_adr_l,
			      (uint64_t)m->mtt * hd->caps.mtt_entry_sz);
		HERMON_FILL(&mpt, mpt, mtt_size, m->nmtt);
		HERMON_FILL(&mpt, mpt, entity_size, shift);
	}
	ret = hermon_cmd_sw2hw_mpt(&hd->cmd, m->index, &mpt);
	if (ret < 0)
		goto err_mtt;
	hd->mpt_dma[m->index] = dma;
	pmr->lkey = key;
	pmr->rkey = (pmr->access & (PRDMA_ACCESS_REMOTE_READ | PRDMA_ACCESS_REMOTE_WRITE |
				    PRDMA_ACCESS_REMOTE_ATOMIC)) ? key : 0;
	return 0;
err_mtt:
	if (m->nmtt != 0)
		hermon_mtt_free(hd, m->mtt, m->nmtt);
err_idx:
	hermon_bitmap_free(&hd->mpts, m->index);
	return ret;
}

int
hermon_mr_dereg(struct prdma_mr *pmr)
{
	struct hermon_mr *m = (struct hermon_mr *)pmr;
	struct hermon_dev *hd = pmr->dev->priv;
	int ret = hermon_cmd_hw2sw_mpt(&hd->cmd, m->index);

	if (ret < 0)
		return ret;
	hd->mpt_dma[m->index] = 0;
	if (m->nmtt != 0)
		hermon_mtt_free(hd, m->mtt, m->nmtt);
	hermon_bitmap_free(&hd->mpts, m->index);
	return 0;
}

int
hermon_mw_alloc(struct prdma_mw *pmw)
{
	struct hermon_mw *w = (struct hermon_mw *)pmw;
	struct hermon_dev *hd = pmw->dev->priv;
	struct hermon_prm_mpt mpt;
	uint32_t key;
	int ret;

	ret = mpt_get(hd, &w->index, &key);
	if (ret < 0)
		return ret;
	memset(&mpt, 0, sizeof(mpt));
	HERMON_FILL(&mpt, mpt, r_w, 0);
	HERMON_FILL(&mpt, mpt, mem_key, rotr8(key));
	HERMON_FILL(&mpt, mpt, pd, pmw->pd->pd_num);
	/*
	 * F20: a type-2 window starts free, bound-to-QP, remotely
	 * invalidatable (Linux mlx4_mw_enable: MLX4_MPT_FLAG_FREE,
	 * MLX4_MPT_QP_FLAG_BOUND_QP, MLX4_MPT_PD_FLAG_EN_INV = bits 24-25).
	 */
	if (pmw->type == PRDMA_MW_TYPE_2) {
		HERMON_FILL(&mpt, mpt, status, HERMON_MPT_FREE);
		HERMON_FILL(&mpt, mpt, bqp, 1);
		HERMON_FILL(&mpt, mpt, en_rinv, 1);
		HERMON_FILL(&mpt, mpt, ei, 1);
	}
	ret = hermon_cmd_sw2hw_mpt(&hd->cmd, w->index, &mpt);
	if (ret < 0) {
		hermon_bitmap_free(&hd->mpts, w->index);
		return ret;
	}
	pmw->rkey = key;
	return 0;
}

/*
 * Whether a bind WQE for dMPT @index is in @qp's send queue: posted, its
 * completion not yet polled. The WQE names the window only by the index
 * in its new R_Key, and the device binds whatever window holds that index
 * when it runs the WQE (a type 2 bind needs a FREE window, which a new one
 * is), so the index must not be handed to another window before then.
 */
static bool
sq_holds_bind(const struct hermon_qp *qp, uint32_t index)
{
	uint32_t head = qp->sq_head, i;
	const struct hermon_prm_wqe_segment_bind *b;
	const uint8_t *w;

	for (i = qp->sq_tail; i != head; i++) {
		w = qp->sq + ((i & qp->sq_mask) << qp->sq_shift);
		b = (const void *)(w + 16);   /* after the control segment */
		if ((rte_be_to_cpu_32(*(const rte_be32_t *)w) & 0x1f) == HERMON_WQE_BIND_MW &&
		    HERMON_GET(b, wqe_segment_bind, new_rkey) >> 8 == index)
			return true;
	}
	return false;
}

int
hermon_mw_dealloc(struct prdma_mw *pmw)
{
	struct hermon_mw *w = (struct hermon_mw *)pmw;
	struct hermon_dev *hd = pmw->dev->priv;
	bool pending = false;
	uint32_t q;
	int ret;

	pthread_mutex_lock(&hd->ev_lock);
	for (q = 0; q < hd->qps.n && !pending; q++)
		pending = hd->qp_table[q] != NULL && hd->qp_table[q]->pub.pd == pmw->pd &&
			  sq_holds_bind(hd->qp_table[q], w->index);
	pthread_mutex_unlock(&hd->ev_lock);
	if (pending) {
		HERMON_LOG(DEBUG, "MW %#x: a bind for it is still queued", pmw->rkey);
		rte_errno = EBUSY;
		return -EBUSY;
	}
	ret = hermon_cmd_hw2sw_mpt(&hd->cmd, w->index);
	if (ret < 0)
		return ret;
	hermon_bitmap_free(&hd->mpts, w->index);
	return 0;
}

/* ---- address handles ---------------------------------------------------- */

static void
gid_words(const union prdma_gid *g, uint32_t w[4])
{
	memcpy(w, g->raw, 16);
}

static int
ah_fill(struct hermon_ah *a, const struct prdma_ah_attr *at)
{
	struct hermon_dev *hd = a->pub.dev->priv;
	struct hermon_prm_ud_address_vector *av = &a->av;
	uint32_t w[4];
	int ret;

	if (at->port_num < 1 || at->port_num > hd->caps.num_ports ||
	    at->sgid_index >= HERMON_GID_TABLE_LEN || at->sl > 15) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	memset(av, 0, sizeof(*av));
	HERMON_FILL(av, ud_address_vector, pd, a->pub.pd->pd_num);
	HERMON_FILL(av, ud_address_vector, port_number, at->port_num);
	/* F9: the GRH only when the AH has one on IB (rdma-core mlx4
	 * create_ah: g_slid bit 7 from is_global); always on RoCE */
	HERMON_FILL(av, ud_address_vector, g,
		    hd->port[at->port_num - 1].type != HERMON_PORT_TYPE_IB ||
		    (at->flags & PRDMA_AH_F_GLOBAL) != 0);
	HERMON_FILL(av, ud_address_vector, hop_limit,
		    at->hop_limit != 0 ? at->hop_limit : 64);
	HERMON_FILL(av, ud_address_vector, mgid_index, at->sgid_index);
	HERMON_FILL(av, ud_address_vector, flow_label, at->flow_label);
	HERMON_FILL(av, ud_address_vector, tclass, at->traffic_class);
	HERMON_FILL(av, ud_address_vector, sl, at->sl);
	HERMON_FILL(av, ud_address_vector, rlid, at->dlid);
	gid_words(&at->dgid, w);
	HERMON_FILL(av, ud_address_vector, rgid_127_96, rte_be_to_cpu_32(w[0]));
	HERMON_FILL(av, ud_address_vector, rgid_95_64, rte_be_to_cpu_32(w[1]));
	HERMON_FILL(av, ud_address_vector, rgid_63_32, rte_be_to_cpu_32(w[2]));
	HERMON_FILL(av, ud_address_vector, rgid_31_0, rte_be_to_cpu_32(w[3]));
	/* F12: the frame's DMAC travels in the datagram segment (no VLAN) */
	memset(a->l2, 0, sizeof(a->l2));
	/* F13: no MAC, no AH (a UD frame to a zero MAC reaches nobody) */
	ret = hermon_l2_resolve(hd, at);
	if (ret < 0) {
		rte_errno = -ret;
		return ret;
	}
	if (hd->port[at->port_num - 1].type == HERMON_PORT_TYPE_ETH)
		hermon_l2_dmac(hd, at, a->l2 + 2);
	return 0;
}

int
hermon_ah_create(struct prdma_ah *ah)
{
	return ah_fill((struct hermon_ah *)ah, &ah->attr);
}

int
hermon_ah_modify(struct prdma_ah *ah, const struct prdma_ah_attr *attr)
{
	return ah_fill((struct hermon_ah *)ah, attr);
}

int
hermon_ah_destroy(struct prdma_ah *ah)
{
	RTE_SET_USED(ah);
	return 0;
}
