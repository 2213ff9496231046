/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "perf.h"

#define PERF_MAX_CQE 65536u
#define PERF_CTL_SLOTS 8
#define PERF_CTL_SLOT 128

static int
fail(const struct perf_side *s, const char *what)
{
	int err = rte_errno != 0 ? rte_errno : EIO;

	PERF_LOG(ERR, "%s: %s failed: %s", s->devargs, what, rte_strerror(err));
	return -err;
}

static uint64_t
heap_used(void)
{
	struct rte_malloc_socket_stats st;
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < rte_socket_count(); i++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			sum += st.heap_allocsz_bytes;
	return sum;
}

static size_t
slot_size(const struct perf_opts *o)
{
	size_t sz = o->all_sizes ? PERF_MAX_SIZE : o->size;

	/* UD receives take the 40-byte GRH area before the data. */
	if (o->conn == PERF_CONN_UD)
		sz += PERF_GRH_LEN;
	return RTE_ALIGN_CEIL(RTE_MAX(sz, (size_t)64), 64);
}

static int
create_qps(struct perf_side *s, const struct prdma_dev_attr *da)
{
	const struct perf_opts *o = s->o;
	struct prdma_qp_init_attr qpa;
	uint64_t before;
	uint32_t i, rx;

	rx = perf_test_verb(o->test) == PERF_VERB_SEND ?
		RTE_MIN(o->rx_depth, PERF_MAX_CQE / s->nqp) : PERF_CTL_SLOTS;
	if (rx == 0)
		rx = 1;
	before = heap_used();
	for (i = 0; i < s->nqp; i++) {
		memset(&qpa, 0, sizeof(qpa));
		qpa.qp_type = o->conn == PERF_CONN_UD ? PRDMA_QPT_UD :
			      (o->conn == PERF_CONN_UC ? PRDMA_QPT_UC : PRDMA_QPT_RC);
		qpa.send_cq = s->scq;
		qpa.recv_cq = s->rcq;
		qpa.cap.max_send_wr = RTE_MIN(o->tx_depth + 1, da->max_qp_wr);
		qpa.cap.max_recv_wr = RTE_MIN(rx, da->max_qp_wr);
		qpa.cap.max_send_sge = 1;
		qpa.cap.max_recv_sge = 1;
		qpa.cap.max_inline_data = RTE_MIN(o->inline_size, da->max_inline_data);
		s->qp[i] = prdma_qp_create(s->pd, &qpa);
		if (s->qp[i] == NULL) {
			if (rte_errno == ENOSPC || rte_errno == ENOMEM)
				PERF_LOG(ERR, "%s: QP %u of %u: the device holds %u QPs at most",
					 s->devargs, i + 1, s->nqp, da->max_qp);
			return fail(s, "QP create");
		}
		s->max_send_wr = qpa.cap.max_send_wr;
		s->max_recv_wr = qpa.cap.max_recv_wr;
		s->max_inline = qpa.cap.max_inline_data;
	}
	s->mem_qps = heap_used() - before;
	if (o->inline_size > s->max_inline)
		PERF_LOG(WARNING, "%s: inline data limited to %u bytes", s->devargs,
			 s->max_inline);
	return 0;
}

/*
 * The port's attributes once its link is up (--timeout at most): a link
 * that comes up after the process starts (memif connecting to its peer,
 * a NIC negotiating) would otherwise lose the first frames, and with -R
 * the first is the CM's ARP.
 */
static int
wait_link(const struct perf_side *s, struct prdma_port_attr *pa)
{
	uint64_t deadline = rte_rdtsc() + (uint64_t)(s->o->timeout_s * rte_get_tsc_hz());
	int told = 0;

	for (;;) {
		if (prdma_port_query(s->dev, 1, pa) < 0)
			return -1;
		if (pa->state == PRDMA_PORT_ACTIVE || rte_rdtsc() > deadline)
			return 0;
		if (!told++)
			PERF_LOG(INFO, "%s: waiting for the link to come up", s->devargs);
		rte_delay_us_sleep(10 * 1000);
	}
}

int
perf_side_open(struct perf_side *s, const struct perf_opts *o, const char *devargs,
	       int server)
{
	struct prdma_cq_init_attr cqa;
	struct prdma_dev_attr da;
	struct prdma_port_attr pa;
	uint32_t i;
	int ret;

	memset(s, 0, sizeof(*s));
	s->o = o;
	s->server = server;
	s->dev_id = -1;
	s->oob_fd = -1;
	s->nqp = o->nqp;
	s->dmac = o->dmac;
	s->dmac_set = o->dmac_set;
	snprintf(s->devargs, sizeof(s->devargs), "%s", devargs);
	ret = prdma_dev_probe(devargs);
	if (ret < 0)
		return fail(s, "device probe");
	s->dev_id = ret;
	s->dev = prdma_dev_open((uint16_t)s->dev_id);
	if (s->dev == NULL)
		return fail(s, "device open");
	if (prdma_dev_query(s->dev, &da) < 0 || wait_link(s, &pa) < 0)
		return fail(s, "device query");
	if (s->nqp > da.max_qp) {
		PERF_LOG(ERR, "%s: -q %u: the device holds %u QPs at most", s->devargs, s->nqp,
			 da.max_qp);
		rte_errno = ENOSPC;
		return -ENOSPC;
	}
	s->mac = pa.mac;
	s->mtu = pa.active_mtu;
	s->lid = pa.lid;
	/* perftest's check_link: no -x on an Ethernet link means GID 0; only
	 * an InfiniBand link keeps -1, and with it the 59-byte key. */
	s->port_link_layer = pa.link_layer;
	s->link_layer = o->force_link != 0 ? (uint8_t)o->force_link : pa.link_layer;
	s->gid_index = o->gid_index >= 0 ? o->gid_index :
		       (s->link_layer == PRDMA_LINK_LAYER_ETHERNET ? 0 : -1);
	s->key_len = s->gid_index >= 0 ? PERF_KEY_MSG_LEN : PERF_KEY_MSG_LEN_NOGID;
	s->max_init_rd = (uint8_t)RTE_MAX(1u, RTE_MIN(da.max_qp_init_rd_atom, 255u));
	s->qp = calloc(s->nqp, sizeof(*s->qp));
	s->my = calloc(s->nqp, sizeof(*s->my));
	s->peer = calloc(s->nqp, sizeof(*s->peer));
	s->ah = calloc(s->nqp, sizeof(*s->ah));
	s->peer_qkey = calloc(s->nqp, sizeof(*s->peer_qkey));
	if (s->qp == NULL || s->my == NULL || s->peer == NULL || s->ah == NULL ||
	    s->peer_qkey == NULL) {
		rte_errno = ENOMEM;
		return fail(s, "allocation");
	}
	/* -R replaces them with the Q_Keys SIDR gives. */
	for (i = 0; i < s->nqp; i++)
		s->peer_qkey[i] = PERF_UD_QKEY;
	s->pd = prdma_pd_alloc(s->dev);
	if (s->pd == NULL)
		return fail(s, "PD alloc");
	memset(&cqa, 0, sizeof(cqa));
	cqa.cqe = RTE_MIN(PERF_MAX_CQE, RTE_MAX(256u, s->nqp * (o->tx_depth + 1)));
	cqa.cqe = RTE_MIN(cqa.cqe, da.max_cqe);
	s->scq = prdma_cq_create(s->dev, &cqa);
	if (s->scq == NULL)
		return fail(s, "send CQ create");
	cqa.cqe = RTE_MIN(PERF_MAX_CQE, RTE_MAX(256u, s->nqp * o->rx_depth));
	cqa.cqe = RTE_MIN(cqa.cqe, da.max_cqe);
	s->rcq = prdma_cq_create(s->dev, &cqa);
	if (s->rcq == NULL)
		return fail(s, "receive CQ create");
	ret = create_qps(s, &da);
	if (ret < 0)
		return ret;
	s->slot_len = slot_size(o);
	/*
	 * Per QP: a receive slot (the advertised one) and a source slot, then
	 * room for the cycle buffer: a perftest bandwidth peer moves each
	 * request's remote address on by the size (at least a cache line)
	 * and wraps only at the larger cycle buffer of the two sides
	 * (perftest_resources.c increase_rem_addr), so QP i's advertised
	 * address plus that much must be inside the MR. The slots may
	 * overlap that way: bandwidth tests place no data anyone reads.
	 */
	s->buf_len = 2 * s->slot_len * s->nqp + PERF_CYCLE_BUFFER_MAX;
	s->buf = rte_zmalloc("perf_buf", s->buf_len, 4096);
	s->ctl = rte_zmalloc("perf_ctl", PERF_CTL_SLOTS * PERF_CTL_SLOT * 2, 64);
	if (s->buf == NULL || s->ctl == NULL) {
		PERF_LOG(ERR, "%s: %zu bytes of DPDK memory not available (give -m more)",
			 s->devargs, s->buf_len);
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	s->mr = prdma_mr_reg(s->pd, s->buf, s->buf_len, PRDMA_ACCESS_LOCAL_WRITE |
			     PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ |
			     PRDMA_ACCESS_REMOTE_ATOMIC);
	if (s->mr == NULL)
		return fail(s, "MR registration");
	s->ctl_mr = prdma_mr_reg(s->pd, s->ctl, PERF_CTL_SLOTS * PERF_CTL_SLOT * 2,
				 PRDMA_ACCESS_LOCAL_WRITE);
	if (s->ctl_mr == NULL)
		return fail(s, "MR registration");
	perf_side_keys(s);
	return 0;
}

void
perf_side_keys(struct perf_side *s)
{
	enum perf_verb v = perf_test_verb(s->o->test);
	struct prdma_dev_attr da;
	union prdma_gid gid;
	uint32_t i;

	memset(&gid, 0, sizeof(gid));
	if (prdma_gid_query(s->dev, 1, (uint32_t)RTE_MAX(s->gid_index, 0), &gid) < 0)
		PERF_LOG(WARNING, "%s: no GID at index %d", s->devargs, RTE_MAX(s->gid_index, 0));
	memset(&da, 0, sizeof(da));
	prdma_dev_query(s->dev, &da);
	for (i = 0; i < s->nqp; i++) {
		struct perf_key *k = &s->my[i];

		memset(k, 0, sizeof(*k));
		k->lid = s->lid;
		k->out_reads = (v == PERF_VERB_READ || v == PERF_VERB_ATOMIC) ?
			(uint16_t)RTE_MAX(1u, da.max_qp_rd_atom) : 1;
		k->qpn = s->qp[i]->qp_num;
		k->psn = (uint32_t)rte_rand() & 0xffffff;
		/* perftest advertises no rkey for SEND tests. */
		k->rkey = v == PERF_VERB_SEND ? 0 : s->mr->rkey;
		k->vaddr = (uintptr_t)perf_rx_slot(s, i);
		k->gid = gid;
	}
}

/* The path to the peer's QP i. A key without a GID (59 bytes) leaves the
 * GID zero: on an Ethernet port the peer's out-of-band address stands in. */
static void
peer_path(const struct perf_side *s, const struct perf_key *pk, struct prdma_ah_attr *ah)
{
	static const union prdma_gid zero;

	memset(ah, 0, sizeof(*ah));
	ah->dgid = pk->gid;
	if (memcmp(&pk->gid, &zero, sizeof(zero)) == 0 && s->peer_addr_gid_set &&
	    s->port_link_layer == PRDMA_LINK_LAYER_ETHERNET)
		ah->dgid = s->peer_addr_gid;
	ah->dlid = pk->lid;
	ah->sgid_index = (uint8_t)RTE_MAX(s->gid_index, 0);
	ah->hop_limit = 64;
	ah->port_num = 1;
	if (s->dmac_set) {
		ah->flags = PRDMA_AH_F_DMAC;
		ah->dmac = s->dmac;
	}
}

/* UD, as perftest: Q_Key DEF_QKEY, no path in the QP; an AH per peer QP. */
static int
qp_connect_ud(struct perf_side *s, uint32_t i)
{
	struct prdma_qp *qp = s->qp[i];
	struct prdma_ah_attr aha;
	struct prdma_qp_attr at;

	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_INIT;
	at.port_num = 1;
	at.qkey = PERF_UD_QKEY;
	if (prdma_qp_modify(qp, &at, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX | PRDMA_QP_PORT |
			    PRDMA_QP_QKEY) < 0)
		return fail(s, "QP RESET->INIT");
	at.qp_state = PRDMA_QPS_RTR;
	if (prdma_qp_modify(qp, &at, PRDMA_QP_STATE) < 0)
		return fail(s, "QP INIT->RTR");
	at.qp_state = PRDMA_QPS_RTS;
	at.sq_psn = s->my[i].psn;
	if (prdma_qp_modify(qp, &at, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN) < 0)
		return fail(s, "QP RTR->RTS");
	peer_path(s, &s->peer[i], &aha);
	s->ah[i] = prdma_ah_create(s->pd, &aha);
	if (s->ah[i] == NULL)
		return fail(s, "AH create");
	return 0;
}

static int
qp_connect(struct perf_side *s, uint32_t i)
{
	const struct perf_key *me = &s->my[i], *pk = &s->peer[i];
	int uc = s->o->conn == PERF_CONN_UC;
	struct prdma_qp *qp = s->qp[i];
	struct prdma_qp_attr at;
	uint32_t mask;
	int ret;

	if (s->o->conn == PERF_CONN_UD)
		return qp_connect_ud(s, i);
	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_INIT;
	at.port_num = 1;
	/* UC has no READ or atomic responder. */
	at.qp_access_flags = uc ? PRDMA_ACCESS_REMOTE_WRITE :
			     PRDMA_ACCESS_REMOTE_WRITE | PRDMA_ACCESS_REMOTE_READ |
			     PRDMA_ACCESS_REMOTE_ATOMIC;
	ret = prdma_qp_modify(qp, &at, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
			      PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS);
	if (ret < 0)
		return fail(s, "QP RESET->INIT");
	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_RTR;
	at.path_mtu = s->mtu;
	at.dest_qp_num = pk->qpn;
	at.rq_psn = pk->psn;
	at.max_dest_rd_atomic = (uint8_t)RTE_MIN(me->out_reads, 255u);
	at.min_rnr_timer = 1;    /* 10 us: a poll-mode peer reposts fast */
	peer_path(s, pk, &at.ah_attr);
	mask = PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU | PRDMA_QP_DEST_QPN |
	       PRDMA_QP_RQ_PSN;
	if (!uc)
		mask |= PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER;
	ret = prdma_qp_modify(qp, &at, mask);
	if (ret < 0)
		return fail(s, "QP INIT->RTR");
	memset(&at, 0, sizeof(at));
	at.qp_state = PRDMA_QPS_RTS;
	at.sq_psn = me->psn;
	/*
	 * perftest's 14 (67 ms), unless more than 16K requests are in
	 * flight: a soft device answers 16 per QP on 16,384 QPs in longer
	 * than that, and resending what only waited floods it further.
	 */
	at.timeout = (uint64_t)s->nqp * s->o->tx_depth > 16384 ? 18 : 14;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = (uint8_t)RTE_MIN(pk->out_reads, s->max_init_rd);
	mask = PRDMA_QP_STATE | PRDMA_QP_SQ_PSN;
	if (!uc)
		mask |= PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
			PRDMA_QP_MAX_QP_RD_ATOMIC;
	ret = prdma_qp_modify(qp, &at, mask);
	if (ret < 0)
		return fail(s, "QP RTR->RTS");
	return 0;
}

int
perf_side_connect(struct perf_side *s)
{
	uint32_t i;
	int ret;

	for (i = 0; i < s->nqp; i++) {
		ret = qp_connect(s, i);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int
perf_side_fill_recv(struct perf_side *s, uint32_t q, uint32_t n)
{
	const struct prdma_recv_wr *bad;
	struct prdma_recv_wr wr;
	struct prdma_sge sge;
	uint32_t i;
	int ret;

	sge.addr = (uintptr_t)perf_rx_slot(s, q);
	sge.length = (uint32_t)s->slot_len;
	sge.lkey = s->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr_id = q;
	for (i = 0; i < n; i++) {
		ret = prdma_post_recv(s->qp[q], &wr, &bad);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int
perf_side_close(struct perf_side *s)
{
	int ret, first = 0;
	uint32_t i;

#define PERF_CLOSE_STEP(cond, call, what) do { \
		if ((cond) && (ret = (call)) < 0) { \
			PERF_LOG(ERR, "%s: %s: %s", s->devargs, what, rte_strerror(-ret)); \
			if (first == 0) \
				first = ret; \
		} \
	} while (0)
	for (i = 0; s->qp != NULL && i < s->nqp; i++)
		PERF_CLOSE_STEP(s->qp[i] != NULL, prdma_qp_destroy(s->qp[i]), "QP destroy");
	for (i = 0; s->ah != NULL && i < s->nqp; i++)
		PERF_CLOSE_STEP(s->ah[i] != NULL, prdma_ah_destroy(s->ah[i]), "AH destroy");
	PERF_CLOSE_STEP(s->mr != NULL, prdma_mr_dereg(s->mr), "MR dereg");
	PERF_CLOSE_STEP(s->ctl_mr != NULL, prdma_mr_dereg(s->ctl_mr), "MR dereg");
	PERF_CLOSE_STEP(s->scq != NULL, prdma_cq_destroy(s->scq), "CQ destroy");
	PERF_CLOSE_STEP(s->rcq != NULL, prdma_cq_destroy(s->rcq), "CQ destroy");
	PERF_CLOSE_STEP(s->pd != NULL, prdma_pd_free(s->pd), "PD free");
	PERF_CLOSE_STEP(s->dev != NULL, prdma_dev_close(s->dev), "device close");
	PERF_CLOSE_STEP(s->dev_id >= 0, prdma_dev_remove((uint16_t)s->dev_id),
			"device remove");
#undef PERF_CLOSE_STEP
	rte_free(s->buf);
	rte_free(s->ctl);
	free(s->qp);
	free(s->my);
	free(s->peer);
	free(s->ah);
	free(s->peer_qkey);
	memset(s, 0, sizeof(*s));
	s->dev_id = -1;
	return first;
}
