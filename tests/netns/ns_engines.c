/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * One side of tests/netns/netns_engines.sh: NQP RC QPs, each with its own
 * CQs (so slot mod N spreads them over the engines; QPs sharing one CQ all
 * go to that CQ's engine), over the soft provider in port mode. The two
 * sides swap QPNs, GID, buffer address and rkey through files in a shared
 * directory (the namespaces share the file system), then each writes a
 * pattern of its own into the peer's buffer on every QP, every WRITE
 * signalled and checked; once both said "done", each checks the bytes the
 * peer wrote into its buffer.
 * Usage: ns_engines <EAL args> -- <side 0|1> <dir> <devargs> <peer MAC>
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_malloc.h>

#include <prdma.h>

#define NQP      8
#define SLICE    (64 * 1024)      /* each QP's part of the buffer */
#define WR_LEN   4096
#define WRITES   256              /* per QP */
#define DEPTH    32
#define TIMEOUT_S 30

struct side_info {
	uint32_t qpn[NQP];
	union prdma_gid gid;
	uint64_t addr;
	uint32_t rkey;
};

static struct prdma_dev *dev;
static struct prdma_cq *scq[NQP], *rcq[NQP];
static struct prdma_qp *qp[NQP];
static uint8_t *buf;       /* [0, NQP*SLICE): what we send; then what we get */
static struct prdma_mr *mr;

static int
fail(const char *what)
{
	fprintf(stderr, "ns_engines: %s: %s\n", what, rte_strerror(rte_errno));
	return 1;
}

static uint8_t
pattern(int side, uint32_t q, uint32_t off)
{
	return (uint8_t)(off * 7u + q * 31u + (uint32_t)side * 101u + (off >> 9));
}

static void
progress_wait(const char *path)
{
	while (access(path, F_OK) != 0) {
		prdma_dev_progress(dev);
		usleep(100);
	}
}

static int
put_file(const char *dir, int side, const char *what, const void *p, size_t len)
{
	char tmp[512], path[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/%d.%s.tmp", dir, side, what);
	snprintf(path, sizeof(path), "%s/%d.%s", dir, side, what);
	f = fopen(tmp, "wb");
	if (f == NULL || fwrite(p, 1, len, f) != len || fclose(f) != 0)
		return -1;
	return rename(tmp, path);   /* the peer sees it whole or not at all */
}

/* Create QP i on its own CQs and move it to INIT. */
static int
create_qp(struct prdma_pd *pd, uint32_t i)
{
	struct prdma_qp_init_attr ia;
	struct prdma_cq_init_attr ca;
	struct prdma_qp_attr qa;

	memset(&ca, 0, sizeof(ca));
	ca.cqe = 2 * DEPTH;
	scq[i] = prdma_cq_create(dev, &ca);
	rcq[i] = prdma_cq_create(dev, &ca);
	if (scq[i] == NULL || rcq[i] == NULL)
		return -1;
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = scq[i];
	ia.recv_cq = rcq[i];
	ia.cap.max_send_wr = DEPTH;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp[i] = prdma_qp_create(pd, &ia);
	if (qp[i] == NULL)
		return -1;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_INIT;
	qa.port_num = 1;
	qa.qp_access_flags = PRDMA_ACCESS_REMOTE_WRITE;
	return prdma_qp_modify(qp[i], &qa, PRDMA_QP_STATE | PRDMA_QP_PKEY_INDEX |
			       PRDMA_QP_PORT | PRDMA_QP_ACCESS_FLAGS);
}

/* RTR then RTS against the peer's QP i (its MAC given: no ARP needed). */
static int
connect_qp(uint32_t i, const struct side_info *peer, const struct rte_ether_addr *pmac)
{
	struct prdma_qp_attr qa;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTR;
	qa.path_mtu = PRDMA_MTU_1024;
	qa.dest_qp_num = peer->qpn[i];
	qa.rq_psn = 100 + i;
	qa.max_dest_rd_atomic = 1;
	qa.min_rnr_timer = 1;
	qa.ah_attr.dgid = peer->gid;
	qa.ah_attr.port_num = 1;
	qa.ah_attr.flags = PRDMA_AH_F_DMAC;
	qa.ah_attr.dmac = *pmac;
	if (prdma_qp_modify(qp[i], &qa, PRDMA_QP_STATE | PRDMA_QP_AV | PRDMA_QP_PATH_MTU |
			    PRDMA_QP_DEST_QPN | PRDMA_QP_RQ_PSN |
			    PRDMA_QP_MAX_DEST_RD_ATOMIC | PRDMA_QP_MIN_RNR_TIMER) != 0)
		return -1;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PRDMA_QPS_RTS;
	qa.sq_psn = 100 + i;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 1;
	return prdma_qp_modify(qp[i], &qa, PRDMA_QP_STATE | PRDMA_QP_SQ_PSN |
			       PRDMA_QP_TIMEOUT | PRDMA_QP_RETRY_CNT | PRDMA_QP_RNR_RETRY |
			       PRDMA_QP_MAX_QP_RD_ATOMIC);
}

/* WRITES writes per QP, all QPs at once, each completion checked. */
static int
run_writes(const struct side_info *peer)
{
	uint32_t posted[NQP] = { 0 }, done[NQP] = { 0 }, left = NQP * WRITES, i;
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * TIMEOUT_S;
	const struct prdma_send_wr *bad;
	struct prdma_send_wr wr;
	struct prdma_sge sge;
	struct prdma_wc wc[16];
	int n, k;

	while (left > 0) {
		if (rte_get_tsc_cycles() > end) {
			fprintf(stderr, "ns_engines: timeout, %u writes not completed\n", left);
			return -1;
		}
		for (i = 0; i < NQP; i++) {
			while (posted[i] < WRITES && posted[i] - done[i] < DEPTH) {
				uint32_t off = (posted[i] * WR_LEN) % SLICE;

				sge.addr = (uintptr_t)(buf + i * SLICE + off);
				sge.length = WR_LEN;
				sge.lkey = mr->lkey;
				memset(&wr, 0, sizeof(wr));
				wr.wr_id = posted[i];
				wr.sg_list = &sge;
				wr.num_sge = 1;
				wr.opcode = PRDMA_WR_RDMA_WRITE;
				wr.send_flags = PRDMA_SEND_SIGNALED;
				wr.wr.rdma.remote_addr = peer->addr + NQP * SLICE + i * SLICE + off;
				wr.wr.rdma.rkey = peer->rkey;
				if (prdma_post_send(qp[i], &wr, &bad) != 0)
					break;
				posted[i]++;
			}
			n = prdma_cq_poll(scq[i], RTE_DIM(wc), wc);
			for (k = 0; k < n; k++) {
				if (wc[k].status != PRDMA_WC_SUCCESS ||
				    wc[k].wr_id != done[i]) {
					fprintf(stderr, "ns_engines: QP %u: completion %u: "
						"status %d wr_id %" PRIu64 "\n", i, done[i],
						wc[k].status, wc[k].wr_id);
					return -1;
				}
				done[i]++;
				left--;
			}
		}
		prdma_dev_progress(dev);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct side_info me, peer;
	struct rte_ether_addr pmac;
	struct prdma_pd *pd;
	char path[512];
	const char *dir;
	uint32_t i, off;
	int ret, side, id;
	FILE *f;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return fail("EAL");
	argc -= ret;
	argv += ret;
	if (argc != 5 || rte_ether_unformat_addr(argv[4], &pmac) != 0) {
		fprintf(stderr, "usage: ns_engines <EAL> -- <side> <dir> <devargs> <peer MAC>\n");
		return 2;
	}
	side = atoi(argv[1]);
	dir = argv[2];
	id = prdma_dev_probe(argv[3]);
	if (id < 0)
		return fail("probe");
	dev = prdma_dev_open((uint16_t)id);
	pd = dev != NULL ? prdma_pd_alloc(dev) : NULL;
	buf = rte_zmalloc(NULL, 2 * NQP * SLICE, 4096);
	mr = pd != NULL && buf != NULL ?
		prdma_mr_reg(pd, buf, 2 * NQP * SLICE, PRDMA_ACCESS_LOCAL_WRITE |
			     PRDMA_ACCESS_REMOTE_WRITE) : NULL;
	if (mr == NULL)
		return fail("device, PD, buffer or MR");
	for (off = 0; off < NQP * SLICE; off++)
		buf[off] = pattern(side, off / SLICE, off % SLICE);
	memset(&me, 0, sizeof(me));
	for (i = 0; i < NQP; i++) {
		if (create_qp(pd, i) != 0)
			return fail("QP create");
		me.qpn[i] = qp[i]->qp_num;
	}
	if (prdma_gid_query(dev, 1, 0, &me.gid) != 0)
		return fail("GID");
	me.addr = (uintptr_t)buf;
	me.rkey = mr->rkey;
	if (put_file(dir, side, "info", &me, sizeof(me)) != 0)
		return fail("info file");
	snprintf(path, sizeof(path), "%s/%d.info", dir, 1 - side);
	progress_wait(path);
	f = fopen(path, "rb");
	if (f == NULL || fread(&peer, 1, sizeof(peer), f) != sizeof(peer))
		return fail("peer info");
	fclose(f);
	for (i = 0; i < NQP; i++)
		if (connect_qp(i, &peer, &pmac) != 0)
			return fail("QP connect");
	/* the peer's QPs must be in RTR before our first WRITE reaches them */
	put_file(dir, side, "rtr", "", 0);
	snprintf(path, sizeof(path), "%s/%d.rtr", dir, 1 - side);
	progress_wait(path);
	ret = run_writes(&peer);
	put_file(dir, side, "done", "", 0);
	snprintf(path, sizeof(path), "%s/%d.done", dir, 1 - side);
	progress_wait(path);
	/* keep answering a little: our last ACKs may still be needed */
	for (i = 0; i < 2000; i++) {
		prdma_dev_progress(dev);
		usleep(100);
	}
	for (i = 0; ret == 0 && i < NQP; i++)
		for (off = 0; off < SLICE; off++)
			if (buf[NQP * SLICE + i * SLICE + off] != pattern(1 - side, i, off)) {
				fprintf(stderr, "ns_engines: QP %u: byte %u differs\n", i, off);
				ret = -1;
				break;
			}
	if (ret == 0)
		printf("CHECK side %d: %u QPs x %u WRITEs of %u bytes, data verified\n",
		       side, NQP, WRITES, WR_LEN);
	for (i = 0; i < NQP; i++) {
		prdma_qp_destroy(qp[i]);
		prdma_cq_destroy(scq[i]);
		prdma_cq_destroy(rcq[i]);
	}
	prdma_mr_dereg(mr);
	prdma_pd_free(pd);
	prdma_dev_close(dev);
	prdma_dev_remove((uint16_t)id);   /* logs each engine's counters */
	rte_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
