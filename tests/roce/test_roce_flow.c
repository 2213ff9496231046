/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * rte_flow steering between engines (flow=, roce_flow.c). No PMD on this
 * machine takes rules, so a fake flow-capable port stands in for the three
 * rte_flow calls (roce_flow_ops_set): it records every rule the provider
 * creates and destroys, and a matcher written here evaluates each recorded
 * rule's pattern (spec, mask, RAW relative offsets) against real frames:
 * those the provider sent and received (its pcap= capture) and Linux
 * Soft-RoCE's (tests/data/pcaps). A rule must match exactly the frames of
 * its QP and name its engine's queue. With the real rte_flow (net_ring:
 * no flow ops) flow=auto falls back quietly and flow=1 fails the probe.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_flow.h>

#include "roce.h"
#include "roce_flow.h"
#include "t_roce.h"

#ifndef T_PCAP_DIR
#define T_PCAP_DIR "tests/data/pcaps"
#endif

/* ------------------------------------------------------------------ */
/* Frames from classic libpcap files                                   */
/* ------------------------------------------------------------------ */

struct t_frame {
	uint8_t *b;
	uint32_t len;
};

struct t_frames {
	struct t_frame f[4096];
	unsigned int n;
};

/* Append the frames of @path to @fs; returns how many it had. */
static unsigned int
pcap_load(const char *path, struct t_frames *fs)
{
	uint32_t fh[6], rh[4];
	unsigned int n = 0;
	FILE *f = fopen(path, "rb");

	if (f == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	assert_int_equal(fread(fh, sizeof(fh), 1, f), 1);
	assert_int_equal(fh[0], 0xa1b2c3d4u);    /* little endian, microseconds */
	assert_int_equal(fh[5], 1);              /* Ethernet */
	while (fread(rh, sizeof(rh), 1, f) == 1 && fs->n < RTE_DIM(fs->f)) {
		struct t_frame *fr = &fs->f[fs->n];

		fr->len = rh[2];
		fr->b = malloc(rh[2] + 1);
		assert_non_null(fr->b);
		assert_int_equal(fread(fr->b, 1, rh[2], f), rh[2]);
		fs->n++;
		n++;
	}
	fclose(f);
	return n;
}

static void
frames_free(struct t_frames *fs)
{
	unsigned int i;

	for (i = 0; i < fs->n; i++)
		free(fs->f[i].b);
	fs->n = 0;
}

/*
 * What a frame is, read here from its bytes (not the provider's parser):
 * 1 for an IPv4 or IPv6 UDP 4791 frame, with its destination QP, source
 * address (4 or 16 bytes), destination address and UDP source port.
 */
struct t_key {
	uint32_t dqpn;
	uint8_t src[16], dst[16];
	uint8_t alen;
	uint16_t sport;
};

static int
frame_key(const struct t_frame *fr, struct t_key *k)
{
	const uint8_t *b = fr->b;
	uint32_t l3 = 14, l4;
	uint16_t et;

	if (fr->len < 14)
		return 0;
	et = (uint16_t)(b[12] << 8 | b[13]);
	memset(k, 0, sizeof(*k));
	if (et == 0x0800 && fr->len >= l3 + 20 && b[l3 + 9] == 17) {
		l4 = l3 + (b[l3] & 0xf) * 4u;
		k->alen = 4;
		memcpy(k->src, b + l3 + 12, 4);
		memcpy(k->dst, b + l3 + 16, 4);
	} else if (et == 0x86dd && fr->len >= l3 + 40 && b[l3 + 6] == 17) {
		l4 = l3 + 40;
		k->alen = 16;
		memcpy(k->src, b + l3 + 8, 16);
		memcpy(k->dst, b + l3 + 24, 16);
	} else {
		return 0;
	}
	if (fr->len < l4 + 8 + 12 || (b[l4 + 2] << 8 | b[l4 + 3]) != 4791)
		return 0;
	k->sport = (uint16_t)(b[l4] << 8 | b[l4 + 1]);
	k->dqpn = (uint32_t)b[l4 + 8 + 5] << 16 | (uint32_t)b[l4 + 8 + 6] << 8 |
		b[l4 + 8 + 7];
	return 1;
}

/* ------------------------------------------------------------------ */
/* A fake port that takes rules                                        */
/* ------------------------------------------------------------------ */

#define T_ITEM_MAX 8
#define T_RULES 64

struct t_item {
	enum rte_flow_item_type type;
	int has_spec, has_mask;
	/* the item structure, copied (aligned: RAW's holds a pointer) */
	uint8_t spec[64] __rte_aligned(8);
	uint8_t mask[64] __rte_aligned(8);
	uint8_t pat[64], pat_mask[64];    /* RAW: the pattern bytes */
	int has_pat_mask;
};

struct t_rule {
	uint16_t port;
	int live;
	int destroyed;                    /* times destroyed */
	unsigned int nb_item;
	struct t_item item[T_ITEM_MAX];
	uint16_t queue;
};

static struct t_rule rules[T_RULES];
static unsigned int nb_rules;
static int refuse_raw, fail_create, validate_calls, bad_destroys;

static void
fake_reset(void)
{
	memset(rules, 0, sizeof(rules));
	nb_rules = 0;
	refuse_raw = 0;
	fail_create = 0;
	validate_calls = 0;
	bad_destroys = 0;
}

static size_t
item_size(enum rte_flow_item_type t)
{
	switch (t) {
	case RTE_FLOW_ITEM_TYPE_ETH: return sizeof(struct rte_flow_item_eth);
	case RTE_FLOW_ITEM_TYPE_IPV4: return sizeof(struct rte_flow_item_ipv4);
	case RTE_FLOW_ITEM_TYPE_IPV6: return sizeof(struct rte_flow_item_ipv6);
	case RTE_FLOW_ITEM_TYPE_UDP: return sizeof(struct rte_flow_item_udp);
	case RTE_FLOW_ITEM_TYPE_RAW: return sizeof(struct rte_flow_item_raw);
	default: return 0;
	}
}

/* What a port with a queue-steering flow engine would check (8 queues). */
static int
fake_check(const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
	   const struct rte_flow_action actions[], struct rte_flow_error *err,
	   struct t_rule *out)
{
	const struct rte_flow_action_queue *q;
	unsigned int i;

	if (!attr->ingress || attr->egress || attr->transfer)
		return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR, attr,
					   "ingress only");
	for (i = 0; pattern[i].type != RTE_FLOW_ITEM_TYPE_END; i++) {
		const struct rte_flow_item *it = &pattern[i];
		size_t sz = item_size(it->type);

		if (sz == 0 || i >= T_ITEM_MAX)
			return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM,
						   it, "item not supported");
		if (it->type == RTE_FLOW_ITEM_TYPE_RAW && refuse_raw)
			return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM,
						   it, "RAW not supported");
		if (it->last != NULL)
			return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM,
						   it, "no ranges");
		if (out == NULL)
			continue;
		out->item[i].type = it->type;
		if (it->spec != NULL) {
			memcpy(out->item[i].spec, it->spec, sz);
			out->item[i].has_spec = 1;
		}
		if (it->mask != NULL) {
			memcpy(out->item[i].mask, it->mask, sz);
			out->item[i].has_mask = 1;
		}
		if (it->type == RTE_FLOW_ITEM_TYPE_RAW && it->spec != NULL) {
			const struct rte_flow_item_raw *rs = it->spec, *rm = it->mask;

			assert_true(rs->length <= sizeof(out->item[i].pat));
			memcpy(out->item[i].pat, rs->pattern, rs->length);
			if (rm != NULL && rm->pattern != NULL) {
				memcpy(out->item[i].pat_mask, rm->pattern, rs->length);
				out->item[i].has_pat_mask = 1;
			}
		}
	}
	if (out != NULL)
		out->nb_item = i;
	if (actions[0].type != RTE_FLOW_ACTION_TYPE_QUEUE ||
	    actions[1].type != RTE_FLOW_ACTION_TYPE_END)
		return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION,
					   actions, "QUEUE only");
	q = actions[0].conf;
	if (q == NULL || q->index >= 8)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					   q, "no such queue");
	if (out != NULL)
		out->queue = q->index;
	return 0;
}

static int
fake_validate(uint16_t port, const struct rte_flow_attr *attr,
	      const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
	      struct rte_flow_error *err)
{
	(void)port;
	validate_calls++;
	return fake_check(attr, pattern, actions, err, NULL);
}

static struct rte_flow *
fake_create(uint16_t port, const struct rte_flow_attr *attr,
	    const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
	    struct rte_flow_error *err)
{
	struct t_rule *r;
	int ret;

	if (fail_create) {
		rte_flow_error_set(err, ENOSPC, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
				   "flow table full");
		return NULL;
	}
	assert_true(nb_rules < T_RULES);
	r = &rules[nb_rules];
	memset(r, 0, sizeof(*r));
	ret = fake_check(attr, pattern, actions, err, r);
	if (ret < 0) {
		rte_errno = -ret;
		return NULL;
	}
	r->port = port;
	r->live = 1;
	nb_rules++;
	return (struct rte_flow *)r;
}

static int
fake_destroy(uint16_t port, struct rte_flow *flow, struct rte_flow_error *err)
{
	struct t_rule *r = (struct t_rule *)flow;

	if (r < rules || r >= rules + nb_rules || !r->live || r->port != port) {
		bad_destroys++;
		return rte_flow_error_set(err, ENOENT, RTE_FLOW_ERROR_TYPE_HANDLE, flow,
					   "no such rule");
	}
	r->live = 0;
	r->destroyed++;
	return 0;
}

static const struct roce_flow_ops fake_ops = {
	.validate = fake_validate,
	.create = fake_create,
	.destroy = fake_destroy,
};

/* ------------------------------------------------------------------ */
/* The matcher: does a rule's pattern match a frame?                   */
/* ------------------------------------------------------------------ */

/* The bytes of header @hdr (@n long) against spec and mask (the item's
 * default mask when none is given, as rte_flow says). */
static int
hdr_match(const struct t_item *it, const void *dflt, const uint8_t *hdr, size_t n)
{
	const uint8_t *mask = it->has_mask ? it->mask : dflt;
	size_t i;

	if (!it->has_spec)
		return 1;
	for (i = 0; i < n; i++)
		if ((hdr[i] & mask[i]) != (it->spec[i] & mask[i]))
			return 0;
	return 1;
}

/* Bytes of an item structure past its header must be unmasked. */
static void
tail_unmasked(const struct t_item *it, size_t from, size_t sz)
{
	size_t i;

	for (i = from; it->has_mask && i < sz; i++)
		assert_int_equal(it->mask[i], 0);
}

static int
rule_match(const struct t_rule *r, const struct t_frame *fr)
{
	const uint8_t *b = fr->b;
	uint32_t off = 0, len = fr->len;
	int etype = -1, proto = -1;
	unsigned int i;

	for (i = 0; i < r->nb_item; i++) {
		const struct t_item *it = &r->item[i];

		switch (it->type) {
		case RTE_FLOW_ITEM_TYPE_ETH:
			if (off != 0 || len < 14 ||
			    !hdr_match(it, &rte_flow_item_eth_mask, b, 14))
				return 0;
			tail_unmasked(it, 14, sizeof(struct rte_flow_item_eth));
			etype = b[12] << 8 | b[13];
			off = 14;
			break;
		case RTE_FLOW_ITEM_TYPE_IPV4:
			if (etype != 0x0800 || len < off + 20 || (b[off] >> 4) != 4 ||
			    !hdr_match(it, &rte_flow_item_ipv4_mask, b + off, 20))
				return 0;
			tail_unmasked(it, 20, sizeof(struct rte_flow_item_ipv4));
			proto = b[off + 9];
			off += (b[off] & 0xf) * 4u;
			break;
		case RTE_FLOW_ITEM_TYPE_IPV6:
			if (etype != 0x86dd || len < off + 40 ||
			    !hdr_match(it, &rte_flow_item_ipv6_mask, b + off, 40))
				return 0;
			tail_unmasked(it, 40, sizeof(struct rte_flow_item_ipv6));
			proto = b[off + 6];
			off += 40;
			break;
		case RTE_FLOW_ITEM_TYPE_UDP:
			if (proto != 17 || len < off + 8 ||
			    !hdr_match(it, &rte_flow_item_udp_mask, b + off, 8))
				return 0;
			off += 8;
			break;
		case RTE_FLOW_ITEM_TYPE_RAW: {
			const struct rte_flow_item_raw *rs = (const void *)it->spec;
			const struct rte_flow_item_raw *rm = (const void *)it->mask;
			int64_t start;
			uint32_t j;

			/* the provider's shape: exact offset, no search */
			assert_true(it->has_spec && it->has_mask);
			assert_int_equal(rm->relative, 1);
			assert_int_equal(rm->offset, -1);
			assert_int_equal(rm->length, 0xffff);
			assert_true(rm->search && !rs->search);
			start = (rs->relative ? (int64_t)off : 0) + rs->offset;
			if (start < 0 || start + rs->length > len)
				return 0;
			for (j = 0; j < rs->length; j++) {
				uint8_t m = it->has_pat_mask ? it->pat_mask[j] : 0xff;

				if ((b[start + j] & m) != (it->pat[j] & m))
					return 0;
			}
			off = (uint32_t)(start + rs->length);
			break;
		}
		default:
			fail_msg("item type %d", (int)it->type);
		}
	}
	return 1;
}

/* ------------------------------------------------------------------ */
/* The rule shapes against Linux Soft-RoCE's frames                    */
/* ------------------------------------------------------------------ */

/* The builder's rule as the fake port records it. */
static struct t_rule *
record(const struct roce_flow_rule *r)
{
	struct rte_flow_error err;
	struct rte_flow *fl;

	fl = fake_create(7, &r->attr, r->item, r->action, &err);
	assert_non_null(fl);
	return (struct t_rule *)fl;
}

/*
 * For every destination QP in rxe's captures (RC and UD, as well as CM
 * MADs to QP 1) the QPN rule matches exactly that QP's frames, whatever
 * else the capture holds (ARP, TCP); the connection rule of each frame's
 * (source, destination, source port) matches exactly the frames with that
 * key: rc_pingpong's two directions share one UDP port, so the addresses
 * must tell them apart.
 */
static void
test_rxe_frames(void **state)
{
	static const char *const files[] = {
		T_PCAP_DIR "/rc_pingpong.pcap", T_PCAP_DIR "/ud_pingpong.pcap",
		T_PCAP_DIR "/rping.pcap", T_PCAP_DIR "/read_lat-roce.pcap",
	};
	static struct t_frames fs;
	struct roce_flow_rule r;
	struct t_key k, kx;
	struct t_rule *t;
	uint32_t qpns[64];
	unsigned int nq = 0, i, j, f, yes, no, other = 0;

	(void)state;
	fake_reset();
	for (f = 0; f < RTE_DIM(files); f++)
		assert_true(pcap_load(files[f], &fs) > 0);
	for (i = 0; i < fs.n; i++) {
		if (!frame_key(&fs.f[i], &k)) {
			other++;
			continue;
		}
		for (j = 0; j < nq && qpns[j] != k.dqpn; j++)
			;
		if (j == nq && nq < RTE_DIM(qpns))
			qpns[nq++] = k.dqpn;
	}
	/* rxe numbers its first QPs alike in every capture: 0x11 and 0x12
	 * (RC and UD, one rule matches them all, whoever the peer), and
	 * rping's CM MADs go to QP 1 */
	assert_int_equal(nq, 3);
	assert_true(other > 0);                 /* ARP and TCP */
	for (j = 0; j < nq; j++) {
		roce_flow_rule_qpn(&r, 0, qpns[j], 3);
		t = record(&r);
		assert_int_equal(t->queue, 3);
		for (i = yes = no = 0; i < fs.n; i++) {
			int want = frame_key(&fs.f[i], &k) && k.dqpn == qpns[j];

			assert_int_equal(rule_match(t, &fs.f[i]), want);
			yes += want;
			no += !want;
		}
		assert_true(yes > 0 && no > 0);
	}
	for (i = 0; i < fs.n; i++) {
		if (!frame_key(&fs.f[i], &k))
			continue;
		roce_flow_rule_peer(&r, 0, k.src, k.dst, k.sport, 1);
		t = record(&r);
		for (j = yes = no = 0; j < fs.n; j++) {
			int want = frame_key(&fs.f[j], &kx) && kx.sport == k.sport &&
				memcmp(kx.src, k.src, 4) == 0 && memcmp(kx.dst, k.dst, 4) == 0;

			assert_int_equal(rule_match(t, &fs.f[j]), want);
			yes += want;
			no += !want;
		}
		assert_true(yes > 0 && no > 0);
		nb_rules = 0;   /* the table is small: start over */
	}
	frames_free(&fs);
}

/* The IPv6 shapes against a frame of IPv6 framing built by hand. */
static void
test_ipv6_shape(void **state)
{
	struct t_frame fr;
	struct roce_flow_rule r;
	uint8_t b[14 + 40 + 8 + 12 + 4] = { 0 }, src[16] = { 0x20, 0x01, 0x0d, 0xb8 },
		dst[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	struct t_rule *t;

	(void)state;
	fake_reset();
	src[15] = 2;
	dst[15] = 3;
	b[12] = 0x86;
	b[13] = 0xdd;
	b[14] = 0x60;
	b[14 + 6] = 17;
	memcpy(b + 14 + 8, src, 16);
	memcpy(b + 14 + 24, dst, 16);
	b[54] = 0xc1;
	b[55] = 0x23;                           /* source port 0xc123 */
	b[56] = 4791 >> 8;
	b[57] = 4791 & 0xff;
	b[62 + 5] = 0x12;
	b[62 + 6] = 0x34;
	b[62 + 7] = 0x56;
	fr.b = b;
	fr.len = sizeof(b);
	roce_flow_rule_qpn(&r, 1, 0x123456, 2);
	assert_true(rule_match(record(&r), &fr));
	roce_flow_rule_qpn(&r, 1, 0x123457, 2);
	assert_false(rule_match(record(&r), &fr));
	roce_flow_rule_qpn(&r, 0, 0x123456, 2);      /* IPv4 rule: no */
	assert_false(rule_match(record(&r), &fr));
	roce_flow_rule_peer(&r, 1, src, dst, 0xc123, 2);
	t = record(&r);
	assert_true(rule_match(t, &fr));
	roce_flow_rule_peer(&r, 1, dst, src, 0xc123, 2);
	assert_false(rule_match(record(&r), &fr));
	roce_flow_rule_peer(&r, 1, src, dst, 0xc124, 2);
	assert_false(rule_match(record(&r), &fr));
}

/* ------------------------------------------------------------------ */
/* The provider's rules over a ring link                               */
/* ------------------------------------------------------------------ */

static struct roce_qp *
rqp(struct prdma_qp *qp)
{
	return (struct roce_qp *)qp;
}

static uint16_t
port_of(const struct t_side *s)
{
	return roce_dev_of(s->dev)->port_id;
}

static struct prdma_roce_stats
stats(const struct t_side *s)
{
	struct prdma_roce_stats x;

	assert_int_equal(prdma_roce_stats_get(s->dev, &x), 0);
	return x;
}

/* The live rules of @port. */
static unsigned int
live_rules(uint16_t port)
{
	unsigned int i, n = 0;

	for (i = 0; i < nb_rules; i++)
		n += rules[i].live && rules[i].port == port;
	return n;
}

/* @qp's rule: the one its flow handle is, on its port, to its engine's queue. */
static struct t_rule *
rule_of(struct prdma_qp *qp)
{
	struct t_rule *t = (struct t_rule *)rqp(qp)->flow;

	assert_non_null(t);
	assert_true(t >= rules && t < rules + nb_rules);
	assert_true(t->live);
	assert_int_equal(t->port, rqp(qp)->rdev->port_id);
	assert_int_equal(t->queue, rqp(qp)->eng->queue);
	return t;
}

static void
qp_state(struct prdma_qp *qp, enum prdma_qp_state st)
{
	struct prdma_qp_attr qa;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = st;
	assert_int_equal(prdma_qp_modify(qp, &qa, PRDMA_QP_STATE), 0);
}

/* A QP on @s taking the next engine, so the next pair is placed crosswise. */
static struct prdma_qp *
qp_spare(struct t_side *s, struct prdma_cq **cq)
{
	struct prdma_qp_init_attr ia;
	struct prdma_qp *qp;

	*cq = t_cq_new(s);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PRDMA_QPT_RC;
	ia.send_cq = *cq;
	ia.recv_cq = *cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = prdma_qp_create(s->pd, &ia);
	assert_non_null(qp);
	return qp;
}

/* WRITE, READ and SEND from side 0 to side 1, data checked. */
static void
traffic(struct t_side s[2])
{
	struct prdma_wc wc;
	unsigned int i;

	for (i = 0; i < 512; i++)
		s[0].buf[i] = (uint8_t)(i * 13 + 5);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_WRITE, 0, 512, (uintptr_t)s[1].buf,
				s[1].mr->rkey, 1), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_memory_equal(s[1].buf, s[0].buf, 512);
	assert_int_equal(t_post(&s[0], PRDMA_WR_RDMA_READ, 4096, 3000, (uintptr_t)s[1].buf,
				s[1].mr->rkey, 2), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_post_recv(&s[1], 8192, 100, 3), 0);
	assert_int_equal(t_post(&s[0], PRDMA_WR_SEND, 0, 77, 0, 0, 3), 0);
	assert_int_equal(t_poll_one(s, s[0].scq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
	assert_int_equal(t_poll_one(s, s[1].rcq, &wc), 1);
	assert_int_equal(wc.status, PRDMA_WC_SUCCESS);
}

static void
pair_open(struct t_side s[2], const char *link, const char *extra, char pcap[2][64])
{
	char a[2][256];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(pcap[i], sizeof(pcap[i]), "/tmp/roce_flow_%d_%s_%d.pcap",
			 (int)getpid(), link, i);
		snprintf(a[i], sizeof(a[i]), "roce:ring=%s,side=%d,engines=2,pcap=%s%s",
			 link, i, pcap[i], extra);
	}
	t_pair_open(s, a[0], a[1]);
}

/* A recorded rule against every frame both sides captured and rxe's: it
 * matches a frame exactly when @want says; returns the matches. */
static unsigned int
rule_vs_frames(const struct t_rule *t, const struct t_frames *fs,
	       int (*want)(const struct t_key *k, const void *arg), const void *arg)
{
	unsigned int i, yes = 0;
	struct t_key k;

	for (i = 0; i < fs->n; i++) {
		int w = frame_key(&fs->f[i], &k) && want(&k, arg);

		if (rule_match(t, &fs->f[i]) != w)
			fail_msg("frame %u (QP 0x%x): rule %s it", i, k.dqpn,
				 w ? "does not match" : "matches");
		yes += (unsigned int)w;
	}
	return yes;
}

static int
want_qpn(const struct t_key *k, const void *arg)
{
	return k->dqpn == *(const uint32_t *)arg;
}

static void
load_all(struct t_frames *fs, char pcap[2][64])
{
	int i;

	for (i = 0; i < 2; i++) {
		assert_true(pcap_load(pcap[i], fs) > 0);
		unlink(pcap[i]);
	}
	/* and frames we did not write */
	assert_true(pcap_load(T_PCAP_DIR "/send_lat-roce.pcap", fs) > 0);
}

/*
 * The QPN rule: each RC and UD QP gets one at RTR, on its port, to its
 * engine's queue; ERR and RESET remove it, destroy removes the rest, and
 * every rule is destroyed once. Each recorded rule matches exactly its
 * QP's frames among everything both sides sent and received, and rxe's.
 */
static void
test_qpn_rules(void **state)
{
	static struct t_frames fs;
	struct t_side s[2], u[2];
	struct t_rule rc[2], ud[2], *t;
	char pcap[2][64];
	uint32_t qpn[2], udqpn[2];
	unsigned int i;

	(void)state;
	fake_reset();
	roce_flow_ops_set(&fake_ops);
	pair_open(s, "fl1", "", pcap);
	assert_true(validate_calls >= 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(stats(&s[i]).flow_active, 1);
		assert_int_equal(live_rules(port_of(&s[i])), 0);
	}
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(live_rules(port_of(&s[i])), 1);
		rc[i] = *rule_of(s[i].qp);
		qpn[i] = s[i].qp->qp_num;
	}
	/* a UD pair on the other engine */
	memcpy(u, s, sizeof(u));
	for (i = 0; i < 2; i++) {
		u[i].scq = t_cq_new(&u[i]);
		u[i].rcq = t_cq_new(&u[i]);
	}
	t_pair_connect(u, PRDMA_QPT_UD, 0);
	for (i = 0; i < 2; i++) {
		assert_int_not_equal(rqp(u[i].qp)->eng->idx, rqp(s[i].qp)->eng->idx);
		assert_int_equal(live_rules(port_of(&s[i])), 2);
		ud[i] = *rule_of(u[i].qp);
		udqpn[i] = u[i].qp->qp_num;
		assert_int_equal(stats(&s[i]).flow_rules, 2);
		assert_int_equal(stats(&s[i]).flow_created, 2);
	}
	traffic(s);
	/* ERR removes side 0's RC rule, RESET side 1's UD rule */
	qp_state(s[0].qp, PRDMA_QPS_ERR);
	assert_null(rqp(s[0].qp)->flow);
	assert_int_equal(live_rules(port_of(&s[0])), 1);
	assert_int_equal(stats(&s[0]).flow_rules, 1);
	qp_state(u[1].qp, PRDMA_QPS_RESET);
	assert_null(rqp(u[1].qp)->flow);
	assert_int_equal(live_rules(port_of(&s[1])), 1);
	/* destroy removes the others */
	for (i = 0; i < 2; i++) {
		assert_int_equal(prdma_qp_destroy(u[i].qp), 0);
		assert_int_equal(prdma_cq_destroy(u[i].scq), 0);
		assert_int_equal(prdma_cq_destroy(u[i].rcq), 0);
	}
	assert_int_equal(live_rules(port_of(&s[0])), 0);
	assert_int_equal(live_rules(port_of(&s[1])), 1);
	t_pair_close(s);
	for (i = 0; i < nb_rules; i++) {
		assert_false(rules[i].live);
		assert_int_equal(rules[i].destroyed, 1);
	}
	assert_int_equal(nb_rules, 4);
	assert_int_equal(bad_destroys, 0);
	roce_flow_ops_set(NULL);

	load_all(&fs, pcap);
	for (i = 0; i < 2; i++) {
		/* the frames of each RC QP: requests to side 1, ACKs and READ
		 * responses to side 0, each seen on both sides */
		assert_true(rule_vs_frames(&rc[i], &fs, want_qpn, &qpn[i]) >= 2);
		assert_int_equal(rule_vs_frames(&ud[i], &fs, want_qpn, &udqpn[i]), 0);
	}
	/* and a UD QP's rule against UD frames: rxe's to QP 0x11 */
	t = &ud[0];
	frames_free(&fs);
	assert_true(pcap_load(T_PCAP_DIR "/ud_pingpong-roce.pcap", &fs) > 0);
	t->item[3].pat[0] = 0;
	t->item[3].pat[1] = 0;
	t->item[3].pat[2] = 0x11;               /* the recorded shape, rxe's QPN */
	i = 0x11;
	assert_int_equal(rule_vs_frames(t, &fs, want_qpn, &i), 5);
	frames_free(&fs);
}

/* A port that refuses to create: counted, the QP works by handoff. */
static void
test_create_refused(void **state)
{
	struct t_side s[2];
	struct prdma_cq *cq;
	struct prdma_qp *spare;
	char pcap[2][64];
	unsigned int i;

	(void)state;
	fake_reset();
	fail_create = 1;
	roce_flow_ops_set(&fake_ops);
	pair_open(s, "fl2", "", pcap);
	spare = qp_spare(&s[1], &cq);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	assert_int_not_equal(rqp(s[0].qp)->eng->idx, rqp(s[1].qp)->eng->idx);
	traffic(s);
	for (i = 0; i < 2; i++) {
		assert_null(rqp(s[i].qp)->flow);
		assert_int_equal(stats(&s[i]).flow_active, 1);
		assert_int_equal(stats(&s[i]).flow_failed, 1);
		assert_int_equal(stats(&s[i]).flow_rules, 0);
		assert_true(stats(&s[i]).rx_handoff >= 1);
	}
	assert_int_equal(prdma_qp_destroy(spare), 0);
	assert_int_equal(prdma_cq_destroy(cq), 0);
	t_pair_close(s);
	assert_int_equal(nb_rules, 0);
	assert_int_equal(bad_destroys, 0);
	roce_flow_ops_set(NULL);
	for (i = 0; i < 2; i++)
		unlink(pcap[i]);
}

struct t_conn {
	uint8_t src[4], dst[4];
	uint16_t sport;
};

static int
want_conn(const struct t_key *k, const void *arg)
{
	const struct t_conn *c = arg;

	return k->alen == 4 && memcmp(k->src, c->src, 4) == 0 &&
		memcmp(k->dst, c->dst, 4) == 0 && k->sport == c->sport;
}

/*
 * A port that refuses RAW: the connection rule, learnt from the first
 * frame handed over (the pair is placed crosswise, so every frame is),
 * installed by the alarm, keyed on the peer's address and its QP's UDP
 * source port, and matching exactly that connection's frames one way.
 */
static void
test_learnt_rules(void **state)
{
	static struct t_frames fs;
	struct t_side s[2];
	struct t_rule rule[2];
	struct t_conn c[2];
	struct prdma_cq *cq;
	struct prdma_qp *spare;
	char pcap[2][64];
	uint64_t end;
	unsigned int i;

	(void)state;
	fake_reset();
	refuse_raw = 1;
	roce_flow_ops_set(&fake_ops);
	pair_open(s, "fl3", "", pcap);
	for (i = 0; i < 2; i++)
		assert_int_equal(stats(&s[i]).flow_active, 2);
	spare = qp_spare(&s[1], &cq);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	assert_int_not_equal(rqp(s[0].qp)->eng->idx, rqp(s[1].qp)->eng->idx);
	/* nothing to key on before a frame came */
	assert_int_equal(nb_rules, 0);
	for (i = 0; i < 2; i++)
		assert_true(rqp(s[i].qp)->flow_want);
	traffic(s);
	/* the alarm installs them; no control call in between */
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() * 2;
	while ((stats(&s[0]).flow_rules == 0 || stats(&s[1]).flow_rules == 0) &&
	       rte_get_tsc_cycles() < end) {
		prdma_dev_progress(s[0].dev);
		prdma_dev_progress(s[1].dev);
	}
	for (i = 0; i < 2; i++) {
		struct roce_dev *peer = roce_dev_of(s[1 - i].dev);

		assert_int_equal(stats(&s[i]).flow_rules, 1);
		assert_int_equal(live_rules(port_of(&s[i])), 1);
		rule[i] = *rule_of(s[i].qp);
		assert_false(rqp(s[i].qp)->flow_want);
		/* the key: the peer's address to ours, its QP's source port */
		memcpy(c[i].src, peer->ip, 4);
		memcpy(c[i].dst, roce_dev_of(s[i].dev)->ip, 4);
		c[i].sport = rqp(s[1 - i].qp)->sport;
		assert_int_equal(rqp(s[i].qp)->flow_sport, c[i].sport);
	}
	/* the spare QP never saw a frame: no rule */
	assert_null(rqp(spare)->flow);
	traffic(s);
	assert_int_equal(nb_rules, 2);
	/* ERR removes it; destroy of a QP without a rule destroys nothing */
	qp_state(s[1].qp, PRDMA_QPS_ERR);
	assert_int_equal(live_rules(port_of(&s[1])), 0);
	assert_int_equal(prdma_qp_destroy(spare), 0);
	assert_int_equal(prdma_cq_destroy(cq), 0);
	t_pair_close(s);
	for (i = 0; i < nb_rules; i++)
		assert_int_equal(rules[i].destroyed, 1);
	assert_int_equal(bad_destroys, 0);
	roce_flow_ops_set(NULL);

	load_all(&fs, pcap);
	for (i = 0; i < 2; i++)
		assert_true(rule_vs_frames(&rule[i], &fs, want_conn, &c[i]) >= 2);
	frames_free(&fs);
}

/* Removal sweeps the rules still installed (roce_flow_fini, flags held). */
static void
test_fini_sweeps(void **state)
{
	struct t_side s[2];
	struct roce_dev *dev;
	char pcap[2][64];
	unsigned int i;

	(void)state;
	fake_reset();
	roce_flow_ops_set(&fake_ops);
	pair_open(s, "fl4", "", pcap);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	dev = roce_dev_of(s[0].dev);
	assert_int_equal(live_rules(dev->port_id), 1);
	roce_engine_lock(dev);
	roce_flow_fini(dev);
	roce_engine_unlock(dev);
	assert_int_equal(live_rules(dev->port_id), 0);
	assert_null(rqp(s[0].qp)->flow);
	assert_int_equal(stats(&s[0]).flow_active, 0);
	assert_int_equal(stats(&s[0]).flow_rules, 0);
	/* side 1 untouched; side 0 steers no more */
	assert_int_equal(live_rules(port_of(&s[1])), 1);
	qp_state(s[0].qp, PRDMA_QPS_RESET);
	t_pair_close(s);
	assert_int_equal(bad_destroys, 0);
	for (i = 0; i < nb_rules; i++)
		assert_int_equal(rules[i].destroyed, 1);
	roce_flow_ops_set(NULL);
	for (i = 0; i < 2; i++)
		unlink(pcap[i]);
}

/*
 * The real rte_flow on net_ring (no flow ops: ENOSYS): flow=auto falls
 * back to the handoff quietly, flow=1 fails the probe with -ENOTSUP, as
 * does flow=1 with one engine (-EINVAL). flow=0 never asks the port.
 */
static void
test_real_rte_flow(void **state)
{
	struct t_side s[2];
	struct prdma_cq *cq;
	struct prdma_qp *spare;
	unsigned int i;

	(void)state;
	assert_int_equal(t_eal_init(), 0);
	roce_flow_ops_set(NULL);
	t_pair_open(s, "roce:ring=fl5,side=0,engines=2,flow=auto",
		    "roce:ring=fl5,side=1,engines=2");
	spare = qp_spare(&s[1], &cq);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	traffic(s);
	for (i = 0; i < 2; i++) {
		assert_int_equal(stats(&s[i]).flow_active, 0);
		assert_int_equal(stats(&s[i]).flow_failed, 0);
		assert_null(rqp(s[i].qp)->flow);
		assert_true(stats(&s[i]).rx_handoff >= 1);
	}
	assert_int_equal(prdma_qp_destroy(spare), 0);
	assert_int_equal(prdma_cq_destroy(cq), 0);
	t_pair_close(s);
	assert_int_equal(prdma_dev_probe("roce:ring=fl6,side=0,engines=2,flow=1"), -ENOTSUP);
	assert_int_equal(prdma_dev_probe("roce:ring=fl6,side=0,flow=1"), -EINVAL);
	assert_int_equal(prdma_dev_probe("roce:ring=fl6,side=0,engines=2,flow=1,"
					 "roce_version=1"), -EINVAL);
	/* the link of the refused probes went with them: it can be made again */
	fake_reset();
	roce_flow_ops_set(&fake_ops);
	t_pair_open(s, "roce:ring=fl6,side=0,engines=2,flow=0",
		    "roce:ring=fl6,side=1,engines=2,flow=0");
	assert_int_equal(validate_calls, 0);
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	assert_int_equal(nb_rules, 0);
	assert_int_equal(stats(&s[0]).flow_active, 0);
	t_pair_close(s);
	/* one engine: no rules, nothing asked */
	t_pair_open(s, "roce:ring=fl7,side=0", "roce:ring=fl7,side=1");
	t_pair_connect(s, PRDMA_QPT_RC, 0);
	assert_int_equal(validate_calls, 0);
	assert_int_equal(nb_rules, 0);
	t_pair_close(s);
	/* flow=1 with a port that takes them: the probe succeeds */
	refuse_raw = 1;
	t_pair_open(s, "roce:ring=fl8,side=0,engines=2,flow=1",
		    "roce:ring=fl8,side=1,engines=2,flow=1");
	assert_int_equal(stats(&s[0]).flow_active, 2);
	t_pair_close(s);
	roce_flow_ops_set(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rxe_frames),
		cmocka_unit_test(test_ipv6_shape),
		cmocka_unit_test(test_qpn_rules),
		cmocka_unit_test(test_create_refused),
		cmocka_unit_test(test_learnt_rules),
		cmocka_unit_test(test_fini_sweeps),
		cmocka_unit_test(test_real_rte_flow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
