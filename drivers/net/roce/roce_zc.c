/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Zero-copy transmit: a frame whose payload leaves from the registered
 * memory itself. The frame is three segments - the headers (a pool mbuf),
 * the payload (a pool mbuf attached to the MR's bytes as an external
 * buffer) and the pad + ICRC (a pool mbuf) - and the ICRC is computed over
 * them in place. Each frame holds a reference whose free callback runs
 * where the ethdev (or the peer's receive, on the ring link) releases the
 * payload; until then the send WQE does not complete, the MR cannot be
 * deregistered and the QP cannot be destroyed. The callback may run on any
 * lcore: it touches only this block and the WQE's atomic count, and
 * returns the reference through an rte_ring.
 *
 * Below the engine and the requester/responder: they call it, it calls
 * only the frame staging of the engine.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "roce.h"

struct roce_zc_ref {
	struct rte_mbuf_ext_shared_info sh;
	struct roce_zc *zc;
	uint32_t *wqe_out;        /* the send WQE's frames held, or NULL */
	uint32_t slot;            /* QP slot */
	uint32_t key;             /* key slot of the MR */
};

struct roce_zc {
	struct rte_ring *free;    /* references not in use (any lcore returns) */
	uint32_t *slot_out;       /* frames held, per QP slot */
	uint32_t *key_out;        /* frames held, per key slot */
	uint64_t *wake;           /* QP slots whose frames came back, a bit each */
	uint64_t *wake_sum;       /* words of wake with a bit set, a bit each */
	uint32_t wake_words;
	uint32_t sum_words;
	uint32_t wake_any;        /* some bit of wake_sum is set */
	uint32_t out;             /* frames held in all */
	uint8_t iova_va;          /* IOVA is the virtual address */
	struct roce_zc_ref ref[ROCE_ZC_REFS];
};

static uint32_t zc_gen;

/* The port takes chains: our own ring link, or a PMD that says so. */
static bool
port_takes_chains(struct roce_dev *dev)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;

	if (dev->link != NULL)
		return true; /* both ends are this stack, which takes our chains */
	if (rte_eth_dev_info_get(dev->port_id, &info) != 0 ||
	    !(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS))
		return false;
	/* Configured with it: by us (port_setup asks) or by the application. */
	memset(&conf, 0, sizeof(conf));
	return rte_eth_dev_conf_get(dev->port_id, &conf) == 0 &&
		(conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
}

int
roce_zc_setup(struct roce_dev *dev)
{
	char name[RTE_RING_NAMESIZE];
	struct roce_zc *zc;
	uint32_t slots = dev->qp_slot_mask + 1, i;
	size_t words = (slots + 63) / 64, sums = (words + 63) / 64;

	dev->xst.zc_active = 0;
	if (dev->cfg.zc == 0)
		return 0;
	if (!port_takes_chains(dev)) {
		if (dev->cfg.zc == 1) {
			ROCE_LOG(ERR, "port %u: zc=1, but the port does not take chained mbufs "
				 "(no RTE_ETH_TX_OFFLOAD_MULTI_SEGS)", dev->port_id);
			return -ENOTSUP;
		}
		ROCE_LOG(INFO, "port %u: no chained mbufs: payload is copied into frames",
			 dev->port_id);
		return 0;
	}
	zc = rte_zmalloc_socket("roce_zc", sizeof(*zc), RTE_CACHE_LINE_SIZE,
				dev->pdev->socket_id);
	if (zc == NULL)
		return -ENOMEM;
	zc->slot_out = rte_zmalloc_socket("roce_zc_slot", slots * sizeof(uint32_t), 0,
					  dev->pdev->socket_id);
	zc->key_out = rte_zmalloc_socket("roce_zc_key", ROCE_MAX_KEYS * sizeof(uint32_t), 0,
					 dev->pdev->socket_id);
	zc->wake = rte_zmalloc_socket("roce_zc_wake", words * sizeof(uint64_t), 0,
				      dev->pdev->socket_id);
	zc->wake_sum = rte_zmalloc_socket("roce_zc_wsum", sums * sizeof(uint64_t), 0,
					  dev->pdev->socket_id);
	snprintf(name, sizeof(name), "roce_zc_%u", __atomic_add_fetch(&zc_gen, 1,
								      __ATOMIC_RELAXED));
	/* Any lcore returns references (multi-producer), the engine takes them. */
	/* several engines take references: a multi-consumer ring then */
	zc->free = rte_ring_create(name, ROCE_ZC_REFS, dev->pdev->socket_id,
				   (dev->nb_eng == 1 ? RING_F_SC_DEQ : 0) | RING_F_EXACT_SZ);
	if (zc->slot_out == NULL || zc->key_out == NULL || zc->wake == NULL ||
	    zc->wake_sum == NULL || zc->free == NULL) {
		rte_ring_free(zc->free);
		rte_free(zc->wake_sum);
		rte_free(zc->wake);
		rte_free(zc->key_out);
		rte_free(zc->slot_out);
		rte_free(zc);
		return -ENOMEM;
	}
	zc->wake_words = (uint32_t)words;
	zc->sum_words = (uint32_t)sums;
	zc->iova_va = rte_eal_iova_mode() == RTE_IOVA_VA;
	for (i = 0; i < ROCE_ZC_REFS; i++) {
		zc->ref[i].zc = zc;
		rte_ring_enqueue(zc->free, &zc->ref[i]);
	}
	dev->zc = zc;
	dev->xst.zc_active = 1;
	return 0;
}

void
roce_zc_fini(struct roce_dev *dev)
{
	struct roce_zc *zc = dev->zc;

	if (zc == NULL)
		return;
	dev->zc = NULL;
	if (__atomic_load_n(&zc->out, __ATOMIC_ACQUIRE) != 0) {
		/* A frame still in a ring may come back later: keep what its
		 * callback touches rather than free it under it. */
		ROCE_LOG(WARNING, "%s: %u zero-copy frame(s) still held by the port: "
			 "%zu bytes left allocated", dev->pdev->name, zc->out, sizeof(*zc));
		return;
	}
	rte_ring_free(zc->free);
	rte_free(zc->wake_sum);
	rte_free(zc->wake);
	rte_free(zc->key_out);
	rte_free(zc->slot_out);
	rte_free(zc);
}

/* Where the ethdev let go of a payload: possibly another lcore. */
static void
zc_free_cb(void *addr __rte_unused, void *opaque)
{
	struct roce_zc_ref *r = opaque;
	struct roce_zc *zc = r->zc;
	uint32_t slot = r->slot;

	/* release: the port's reads of the payload happen before the
	 * completion (or the dereg) that sees the count drop */
	if (r->wqe_out != NULL)
		__atomic_fetch_sub(r->wqe_out, 1, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&zc->key_out[r->key], 1, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&zc->slot_out[slot], 1, __ATOMIC_RELEASE);
	if (__atomic_fetch_or(&zc->wake[slot >> 6], RTE_BIT64(slot & 63),
			      __ATOMIC_RELEASE) == 0)
		__atomic_fetch_or(&zc->wake_sum[slot >> 12], RTE_BIT64((slot >> 6) & 63),
				  __ATOMIC_RELEASE);
	__atomic_store_n(&zc->wake_any, 1, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&zc->out, 1, __ATOMIC_RELEASE);
	/* Last: once queued the engine may reuse it. Never full (sized). */
	rte_ring_mp_enqueue(zc->free, r);
}

/* The bits of word @w whose slots engine @i of @n owns. */
static uint64_t
eng_slots(uint32_t w, uint32_t i, uint32_t n)
{
	uint64_t m = 0;
	uint32_t b;

	for (b = 0; b < 64; b++)
		if ((w * 64 + b) % n == i)
			m |= RTE_BIT64(b);
	return m;
}

void
roce_zc_wake(struct roce_dev *dev)
{
	struct roce_zc *zc = dev->zc;
	uint64_t sum, bits, b;
	struct roce_eng *e;
	uint32_t s, w, i;

	/* acquire: pairs with the callback's release */
	if (likely(zc == NULL) ||
	    __atomic_load_n(&zc->wake_any, __ATOMIC_ACQUIRE) == 0)
		return;
	__atomic_store_n(&zc->wake_any, 0, __ATOMIC_RELAXED);
	/* Only the words the summary marks: a wake costs the same with
	 * thousands of QPs. */
	for (s = 0; s < zc->sum_words; s++) {
		if (__atomic_load_n(&zc->wake_sum[s], __ATOMIC_RELAXED) == 0)
			continue;
		sum = __atomic_exchange_n(&zc->wake_sum[s], 0, __ATOMIC_ACQUIRE);
		while (sum != 0) {
			w = s * 64 + (uint32_t)rte_bsf64(sum);
			sum &= sum - 1;
			bits = __atomic_exchange_n(&zc->wake[w], 0, __ATOMIC_ACQUIRE);
			/* as roce_qp_wake: the step of each slot's engine runs
			 * its marked QPs (slot s is engine s mod N's) */
			for (i = 0; bits != 0 && i < dev->nb_eng; i++) {
				b = dev->nb_eng == 1 ? bits : bits & eng_slots(w, i, dev->nb_eng);
				if (b == 0)
					continue;
				e = &dev->eng[i];
				if (__atomic_fetch_or(&e->qp_act[w], b, __ATOMIC_RELEASE) == 0)
					__atomic_fetch_or(&e->qp_act_sum[w >> 6],
							  RTE_BIT64(w & 63), __ATOMIC_RELEASE);
			}
		}
	}
}

uint32_t
roce_zc_slot_held(const struct roce_dev *dev, uint32_t slot)
{
	return dev->zc == NULL ? 0 :
		__atomic_load_n(&dev->zc->slot_out[slot], __ATOMIC_ACQUIRE);
}

uint32_t
roce_zc_key_held(const struct roce_dev *dev, uint32_t key_slot)
{
	return dev->zc == NULL ? 0 :
		__atomic_load_n(&dev->zc->key_out[key_slot], __ATOMIC_ACQUIRE);
}

int
roce_zc_frame_send(struct roce_eng *e, struct roce_qp *qp, struct rte_mbuf *m,
		   const struct roce_path *path, uint32_t hlen, uint64_t va,
		   uint32_t pay, const struct roce_key *k, uint32_t *wqe_out)
{
	static const uint8_t zero[4];
	struct roce_dev *dev = e->dev;
	struct roce_zc *zc = dev->zc;
	struct rte_mbuf *seg[2];
	struct roce_zc_ref *r;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *), *l3 = p + path->l3_off, *t;
	uint8_t *udp = p + path->hdr_len - ROCE_UDP_LEN;
	uint32_t pad = (uint32_t)(-(int32_t)pay) & 3, tlen = hlen + pay + pad;
	uint32_t reg, crc, len = path->hdr_len + tlen + ROCE_ICRC_LEN, kslot;
	rte_iova_t iova;

	if (len < ROCE_MIN_FRAME || pay > UINT16_MAX)
		return -ENOBUFS; /* too small to be worth it: the copy path */
	if (rte_ring_dequeue(zc->free, (void **)&r) != 0)
		return -ENOBUFS;
	if (rte_pktmbuf_alloc_bulk(dev->mp, seg, 2) != 0) {
		rte_ring_mp_enqueue(zc->free, r);
		e->st.drop.tx_no_mbuf++;
		return -ENOBUFS;
	}
	iova = zc->iova_va ? (rte_iova_t)va : rte_mem_virt2iova((void *)(uintptr_t)va);
	if (unlikely(iova == RTE_BAD_IOVA)) {
		rte_pktmbuf_free_bulk(seg, 2);
		rte_ring_mp_enqueue(zc->free, r);
		return -ENOBUFS;
	}
	kslot = (uint32_t)(k - dev->keys);
	r->wqe_out = wqe_out;
	r->slot = qp->slot;
	r->key = kslot;
	r->sh.free_cb = zc_free_cb;
	r->sh.fcb_opaque = r;
	rte_mbuf_ext_refcnt_set(&r->sh, 1);
	/* Counted before the frame can be freed anywhere. */
	if (wqe_out != NULL)
		__atomic_fetch_add(wqe_out, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&zc->key_out[kslot], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&zc->slot_out[r->slot], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&zc->out, 1, __ATOMIC_RELAXED);

	/* Lengths and checksum as roce_frame_send() writes them. */
	p[path->hdr_len + 1] |= (uint8_t)(pad << 4);
	if (path->v1) {
		roce_put16(l3 + 4, (uint16_t)(tlen + ROCE_ICRC_LEN));
		reg = roce_icrc_start(l3, ROCE_GRH_LEN + hlen, 1, 1);
	} else {
		roce_frame_lengths(l3, path->ipv6, ROCE_UDP_LEN + tlen + ROCE_ICRC_LEN,
				   path->ip_csum_base);
		reg = roce_icrc_start(l3, (uint32_t)(udp - l3) + ROCE_UDP_LEN + hlen,
				      path->ipv6, 0);
	}
	/* The one pass over the payload: in the MR, where it stays. */
	reg = roce_crc32_update(reg, (const uint8_t *)(uintptr_t)va, pay);
	if (pad != 0)
		reg = roce_crc32_update(reg, zero, pad);
	crc = rte_cpu_to_le_32(~reg);

	rte_pktmbuf_attach_extbuf(seg[0], (void *)(uintptr_t)va, iova, (uint16_t)pay, &r->sh);
	seg[0]->data_len = (uint16_t)pay;
	t = rte_pktmbuf_mtod(seg[1], uint8_t *);
	memset(t, 0, pad);
	memcpy(t + pad, &crc, 4);
	seg[1]->data_len = (uint16_t)(pad + ROCE_ICRC_LEN);
	m->data_len = (uint16_t)(path->hdr_len + hlen);
	m->next = seg[0];
	seg[0]->next = seg[1];
	m->nb_segs = 3;
	m->pkt_len = len;
	e->xst.zc_frames++;
	roce_frame_stage(e, m, path);
	return 0;
}

/*
 * A chained frame as roce_zc_frame_send() builds it: every header in the
 * first segment, the payload in the second, pad and ICRC in the third.
 * Other chains are refused (malformed), as every chain was before.
 */
enum roce_rx_verdict
roce_zc_rx_parse(struct rte_mbuf *m, struct roce_pkt *pkt)
{
	struct rte_mbuf *s1 = m->next, *s2 = s1 != NULL ? s1->next : NULL;
	uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);
	enum roce_rx_verdict v;
	uint32_t pad;

	/* The decode reads at most this much of the first segment: it must
	 * lie in its buffer whatever the (untrusted) lengths say. */
	if (m->nb_segs != 3 || s2 == NULL || s2->next != NULL || RTE_MBUF_HAS_EXTBUF(m) ||
	    (uint32_t)m->buf_len - m->data_off <
	    ROCE_L2L4_MAX + ROCE_VLAN_LEN + ROCE_TRANSPORT_MAX + ROCE_DETH_LEN)
		return ROCE_RX_MALFORMED;
	v = roce_pkt_parse_hdr(frame, m->pkt_len, pkt);
	if (v != ROCE_RX_OK)
		return v;
	pad = (pkt->bth_p[1] >> 4) & 3;
	if (pkt->payload != frame + m->data_len || pkt->paylen != s1->data_len ||
	    s2->data_len != pad + ROCE_ICRC_LEN ||
	    (uint32_t)(pkt->bth_p - frame) + pkt->roce_len != m->pkt_len)
		return ROCE_RX_MALFORMED;
	pkt->payload = rte_pktmbuf_mtod(s1, uint8_t *);
	pkt->trailer = rte_pktmbuf_mtod(s2, uint8_t *);
	pkt->hdr_cov = (uint32_t)(frame + m->data_len - pkt->l3);
	return ROCE_RX_OK;
}

/* Whether @m carries a zero-copy payload of the QP in @slot. */
static bool
zc_frame_of(const struct rte_mbuf *m, uint32_t slot)
{
	const struct roce_zc_ref *r;

	for (; m != NULL; m = m->next) {
		if (!RTE_MBUF_HAS_EXTBUF(m) || m->shinfo == NULL ||
		    m->shinfo->free_cb != zc_free_cb)
			continue;
		r = m->shinfo->fcb_opaque;
		if (r->slot == slot)
			return true;
	}
	return false;
}

/*
 * A QP being destroyed: its zero-copy frames still in our transmit queue
 * (the port takes nothing, as when a memif peer has gone and its ring is
 * full) are freed, which returns their payload references; the port had
 * not taken them, so nothing reads that memory any more. The other frames
 * keep their order. Called under the engine flag. Returns the frames freed.
 */
uint32_t
roce_zc_purge_txq(struct roce_dev *dev, uint32_t slot)
{
	struct roce_eng *e;
	uint32_t i, kept = 0, freed = 0;

	if (dev->zc == NULL)
		return 0;
	/* the slot's engine: the only one that builds its frames */
	e = &dev->eng[roce_slot_eng(slot, dev->nb_eng)];
	for (i = 0; i < e->txq_len; i++) {
		struct rte_mbuf *m = e->txq[i];

		if (zc_frame_of(m, slot)) {
			rte_pktmbuf_free(m);
			freed++;
		} else {
			e->txq[kept++] = m;
		}
	}
	e->txq_len = kept;
	e->st.drop.tx_purged += freed;
	return freed;
}

int
roce_zc_wait(struct roce_dev *dev, uint32_t (*held)(const struct roce_dev *, uint32_t),
	     uint32_t idx)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * ROCE_ZC_WAIT_MS / 1000;

	while (held(dev, idx) != 0) {
		if (rte_get_tsc_cycles() > end)
			return -EBUSY;
		/* Frames sit in our queue or the peer's ring: move them. */
		roce_link_drain_orphan(dev);
		if (!dev->cfg.progress_thread)
			roce_engine_poll(dev);  /* and the ring peer, when idle */
		rte_pause();
	}
	return 0;
}
