/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "prdma_cm_test.h"
#include "t_eal.h"
#include "t_cm_util.h"

struct t_side t_a, t_b;
unsigned int t_timeout_shift;

/* A test holds a few of each at once; the bound only catches a test bug. */
#define T_TRACK_MAX 64

struct t_track {
	const char *what;
	void *p[T_TRACK_MAX];
	unsigned int n;
};

static struct t_track t_ids = { .what = "id" };
static struct t_track t_evs = { .what = "event" };
static struct t_track t_qps = { .what = "QP" };
static struct t_track t_ahs = { .what = "AH" };
static struct t_track t_chs = { .what = "channel" };

static void
track(struct t_track *t, void *p)
{
	unsigned int i;

	if (p == NULL)
		return;
	for (i = 0; i < t->n; i++)
		if (t->p[i] == p)
			return;
	if (t->n == T_TRACK_MAX) {
		printf("t_cm: more than %u %ss at once: not tracked\n", T_TRACK_MAX, t->what);
		return;
	}
	t->p[t->n++] = p;
}

static void
untrack(struct t_track *t, void *p)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (t->p[i] == p) {
			t->p[i] = t->p[--t->n];
			return;
		}
}

unsigned int
t_ms(unsigned int ms)
{
	return ms << t_timeout_shift;
}

uint64_t
t_deadline(unsigned int ms)
{
	return rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;
}

int
t_expired(uint64_t deadline)
{
	return rte_get_tsc_cycles() >= deadline;
}

struct prdma_cm_conn_param t_fast = {
	.retry_count = 7,
	.rnr_retry_count = 7,
	.ack_timeout = 8,                  /* ~1 ms time-wait */
	.cm_response_timeout = 10,         /* ~4 ms */
	.max_cm_retries = 4,
};

static int
side_up(struct t_side *s, const char *devargs)
{
	struct prdma_cq_init_attr ca = { .cqe = 256 };
	uint32_t i;

	memset(s, 0, sizeof(*s));
	s->dev_id = prdma_dev_probe(devargs);
	if (s->dev_id < 0)
		return s->dev_id;
	s->dev = prdma_dev_open((uint16_t)s->dev_id);
	if (s->dev == NULL)
		return -rte_errno;
	s->pd = prdma_pd_alloc(s->dev);
	s->cq = prdma_cq_create(s->dev, &ca);
	s->ch = prdma_cm_channel_create(0);
	s->buf = rte_zmalloc("t_cm_buf", T_BUF_SIZE, 64);
	if (s->pd == NULL || s->cq == NULL || s->ch == NULL || s->buf == NULL)
		return -ENOMEM;
	s->mr = prdma_mr_reg(s->pd, s->buf, T_BUF_SIZE, PRDMA_ACCESS_ALL & ~PRDMA_ACCESS_MW_BIND);
	if (s->mr == NULL)
		return -rte_errno;
	for (i = 0; i < 16; i++)
		if (prdma_gid_query(s->dev, 1, i, &s->gid) == 0 &&
		    s->gid.raw[10] == 0xff && s->gid.raw[11] == 0xff)
			return 0;
	return -EADDRNOTAVAIL;
}

int
t_cm_setup(const char *devargs_a, const char *devargs_b)
{
	struct prdma_cm_id *probe;
	const char *shift;
	int ret;

	ret = t_eal_init();
	if (ret < 0)
		return ret;
	shift = getenv("PRDMA_CM_TEST_TIMEOUT_SHIFT");
	if (shift != NULL && atoi(shift) > 0 && atoi(shift) <= 8) {
		t_timeout_shift = (unsigned int)atoi(shift);
		t_fast.cm_response_timeout = (uint8_t)(t_fast.cm_response_timeout +
						       t_timeout_shift);
	}
	ret = side_up(&t_a, devargs_a);
	if (ret == 0)
		ret = side_up(&t_b, devargs_b);
	if (ret < 0) {
		printf("setup failed: %s\n", strerror(-ret));
		return ret;
	}
	probe = prdma_cm_id_create(t_a.ch, t_a.dev, 1, PRDMA_CM_PS_TCP, NULL);
	if (probe == NULL && rte_errno == ENOTSUP) {
		printf("SKIP: the provider answers -ENOTSUP to PRDMA_QP_CREATE_GSI: "
		       "the CM needs the port's GSI QP (QP1, Q_Key 0x80010000)\n");
		return 77;
	}
	if (probe == NULL) {
		printf("setup failed: no CM id (%s)\n", rte_strerror(rte_errno));
		return -rte_errno;
	}
	prdma_cm_id_destroy(probe);
	return 0;
}

static void
side_down(struct t_side *s)
{
	if (s->mr != NULL)
		prdma_mr_dereg(s->mr);
	rte_free(s->buf);
	if (s->ch != NULL)
		prdma_cm_channel_destroy(s->ch);
	if (s->cq != NULL)
		prdma_cq_destroy(s->cq);
	if (s->pd != NULL)
		prdma_pd_free(s->pd);
	if (s->dev != NULL)
		prdma_dev_close(s->dev);
	if (s->dev_id >= 0)
		prdma_dev_remove((uint16_t)s->dev_id);
}

void
t_cm_teardown(void)
{
	side_down(&t_a);
	side_down(&t_b);
}

void
t_cm_pump(void)
{
	prdma_cm_channel_progress(t_a.ch);
	prdma_cm_channel_progress(t_b.ch);
}

struct prdma_cm_event *
t_cm_wait(struct prdma_cm_channel *ch, unsigned int ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;
	struct prdma_cm_event *ev;

	do {
		if (t_get_event(ch, &ev) == 0)
			return ev;
		t_cm_pump();
	} while (rte_get_tsc_cycles() < end);
	return t_get_event(ch, &ev) == 0 ? ev : NULL;
}

struct prdma_cm_id *
t_id_create(struct prdma_cm_channel *ch, struct prdma_dev *dev, uint8_t port_num,
	    enum prdma_cm_port_space ps, void *context)
{
	struct prdma_cm_id *id = prdma_cm_id_create(ch, dev, port_num, ps, context);

	track(&t_ids, id);
	return id;
}

int
t_id_destroy(struct prdma_cm_id *id)
{
	int ret = prdma_cm_id_destroy(id);

	if (ret == 0)
		untrack(&t_ids, id);
	return ret;
}

int
t_get_event(struct prdma_cm_channel *ch, struct prdma_cm_event **ev)
{
	int ret = prdma_cm_get_event(ch, ev);

	if (ret == 0) {
		track(&t_evs, *ev);
		/* a request brings an id of its own */
		if ((*ev)->event == PRDMA_CM_EVENT_CONNECT_REQUEST)
			track(&t_ids, (*ev)->id);
	}
	return ret;
}

int
t_ack(struct prdma_cm_event *ev)
{
	int ret = prdma_cm_ack_event(ev);

	if (ret == 0)
		untrack(&t_evs, ev);
	return ret;
}

struct prdma_ah *
t_ah_create(struct prdma_pd *pd, const struct prdma_ah_attr *attr)
{
	struct prdma_ah *ah = prdma_ah_create(pd, attr);

	track(&t_ahs, ah);
	return ah;
}

int
t_ah_destroy(struct prdma_ah *ah)
{
	int ret = prdma_ah_destroy(ah);

	if (ret == 0)
		untrack(&t_ahs, ah);
	return ret;
}

struct prdma_cm_channel *
t_ch_create(uint32_t flags)
{
	struct prdma_cm_channel *ch = prdma_cm_channel_create(flags);

	track(&t_chs, ch);
	return ch;
}

int
t_ch_destroy(struct prdma_cm_channel *ch)
{
	int ret = prdma_cm_channel_destroy(ch);

	if (ret == 0)
		untrack(&t_chs, ch);
	return ret;
}

/* Ack every queued event of every channel (tracking the ids they bring). */
static void
drain(void)
{
	struct prdma_cm_channel *chs[2 + T_TRACK_MAX];
	struct prdma_cm_event *ev;
	unsigned int i, n = 0;

	chs[n++] = t_a.ch;
	chs[n++] = t_b.ch;
	for (i = 0; i < t_chs.n; i++)
		chs[n++] = t_chs.p[i];
	for (i = 0; i < n; i++) {
		prdma_cm_channel_progress(chs[i]);
		while (t_get_event(chs[i], &ev) == 0)
			t_ack(ev);
	}
}

int
t_cm_cleanup(void)
{
	uint64_t end = t_deadline(t_ms(2000));
	unsigned int ids = t_ids.n, evs = t_evs.n, qps = t_qps.n, ahs = t_ahs.n;
	unsigned int chs = t_chs.n, i;
	int held;

	prdma_cm_test_set_tx_filter(NULL, NULL);
	/* a MAD a test kept back goes now, while its consequences are ours */
	held = prdma_cm_test_tx_release() == 0;
	if (ids + evs + qps + ahs + chs == 0 && !held)
		return 0;
	while (t_evs.n > 0)
		if (t_ack(t_evs.p[t_evs.n - 1]) < 0)
			untrack(&t_evs, t_evs.p[t_evs.n - 1]);
	do {
		drain();
		for (i = t_ids.n; i > 0; i--)
			t_id_destroy(t_ids.p[i - 1]);
	} while (t_ids.n > 0 && !t_expired(end));
	while (t_qps.n > 0)
		t_qp_free(t_qps.p[t_qps.n - 1]);
	while (t_ahs.n > 0)
		if (t_ah_destroy(t_ahs.p[t_ahs.n - 1]) < 0)
			untrack(&t_ahs, t_ahs.p[t_ahs.n - 1]);
	/* what the destroys sent (DREQs, REJs) is answered before the next test */
	t_cm_idle(t_ms(20));
	drain();
	for (i = t_chs.n; i > 0; i--)
		t_ch_destroy(t_chs.p[i - 1]);
	printf("cleanup: the test left %u id(s), %u unacked event(s), %u QP(s), %u AH(s), "
	       "%u channel(s)%s; %u id(s) and %u channel(s) could not go\n", ids, evs, qps,
	       ahs, chs, held ? ", a held MAD" : "", t_ids.n, t_chs.n);
	if (t_ids.n > 0 || t_chs.n > 0)
		return -1;
	return (int)(ids + evs + qps + ahs + chs + (held ? 1 : 0));
}

void
t_cm_idle(unsigned int ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;

	while (rte_get_tsc_cycles() < end)
		t_cm_pump();
}

struct prdma_qp *
t_qp(struct t_side *s, enum prdma_qp_type type)
{
	struct prdma_qp_init_attr a;
	struct prdma_qp *qp;

	memset(&a, 0, sizeof(a));
	a.qp_type = type;
	a.send_cq = s->cq;
	a.recv_cq = s->cq;
	a.cap.max_send_wr = 16;
	a.cap.max_recv_wr = 16;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	qp = prdma_qp_create(s->pd, &a);
	track(&t_qps, qp);
	return qp;
}

void
t_qp_free(struct prdma_qp *qp)
{
	struct prdma_wc wc[16];

	if (qp == NULL)
		return;
	untrack(&t_qps, qp);
	prdma_qp_destroy(qp);
	/* flushed completions of the destroyed QP */
	while (prdma_cq_poll(t_a.cq, 16, wc) > 0)
		;
	while (prdma_cq_poll(t_b.cq, 16, wc) > 0)
		;
}

struct sockaddr_in
t_addr(const struct t_side *s, uint16_t port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	memcpy(&a.sin_addr.s_addr, s->gid.raw + 12, 4);
	return a;
}

uint64_t
t_counter(const struct t_side *s, enum prdma_dev_counter c)
{
	struct prdma_dev_counters v;

	if (prdma_dev_counters_get(s->dev, &v) < 0)
		return UINT64_MAX;
	return v.value[c];
}

struct prdma_cm_stats
t_stats(const struct t_side *s)
{
	struct prdma_cm_stats st;

	memset(&st, 0, sizeof(st));
	prdma_cm_stats_get(s->dev, &st);
	return st;
}

int
t_rc_ping(struct prdma_qp *from, struct t_side *fs, struct prdma_qp *to,
	  struct t_side *ts, uint32_t len)
{
	struct prdma_sge ssge = { (uintptr_t)fs->buf, len, fs->mr->lkey };
	struct prdma_sge rsge = { (uintptr_t)ts->buf + 32768, len, ts->mr->lkey };
	struct prdma_send_wr swr = { .wr_id = 1, .sg_list = &ssge, .num_sge = 1,
				     .opcode = PRDMA_WR_SEND,
				     .send_flags = PRDMA_SEND_SIGNALED };
	struct prdma_recv_wr rwr = { .wr_id = 2, .sg_list = &rsge, .num_sge = 1 };
	const struct prdma_send_wr *bs;
	const struct prdma_recv_wr *br;
	uint64_t end = t_deadline(t_ms(1000));
	struct prdma_wc wc;
	int got = 0;

	t_pattern_fill(fs->buf, len, len);
	memset(ts->buf + 32768, 0, len);
	if (prdma_post_recv(to, &rwr, &br) < 0 || prdma_post_send(from, &swr, &bs) < 0)
		return -EIO;
	while (got < 2 && !t_expired(end)) {
		if (prdma_cq_poll(fs->cq, 1, &wc) == 1) {
			if (wc.status != PRDMA_WC_SUCCESS)
				return -EIO;
			got++;
		}
		if (fs->cq != ts->cq && prdma_cq_poll(ts->cq, 1, &wc) == 1) {
			if (wc.status != PRDMA_WC_SUCCESS)
				return -EIO;
			got++;
		}
	}
	if (got < 2)
		return -ETIMEDOUT;
	return t_pattern_check(ts->buf + 32768, len, len) == -1 ? 0 : -EBADMSG;
}
