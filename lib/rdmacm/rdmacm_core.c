/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Start-up (EAL and devices through the verbs library), the CM thread, and
 * the map from IP addresses to prdma devices: an address belongs to the
 * device whose GID table holds it; a destination is reached through the
 * device that holds it (loopback) or else the device with a GID of the same
 * family sharing the longest prefix with it.
 */

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>

#include <rte_lcore.h>

#include "rdmacm_private.h"

#define RCM_THREAD_NAP_NS 200000

pthread_mutex_t rcm_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t rcm_cond = PTHREAD_COND_INITIALIZER;
struct rcm_id_list rcm_ids = TAILQ_HEAD_INITIALIZER(rcm_ids);

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_ret;
static struct prdma_cm_channel *cm_ch;
static pthread_t cm_tid;
static struct prdma_dev *devs[RCM_MAX_DEVS];
static uint32_t nb_devs;
static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
} pds[RCM_MAX_DEVS];

static void *
cm_thread(void *arg)
{
	const struct timespec nap = { .tv_sec = 0, .tv_nsec = RCM_THREAD_NAP_NS };
	struct prdma_cm_event *pev;
	int work;

	(void)arg;
	for (;;) {
		work = prdma_cm_channel_progress(cm_ch);
		pthread_mutex_lock(&rcm_lock);
		while (prdma_cm_get_event(cm_ch, &pev) == 0) {
			rcm_dispatch(pev);
			work++;
		}
		pthread_mutex_unlock(&rcm_lock);
		if (work <= 0)
			nanosleep(&nap, NULL);
	}
	return NULL;
}

/*
 * A program that returns from main with its connections up (perftest -R's
 * atomic_lat server) gets, from the kernel, a DREQ for each as its rdma_cm
 * file closes, and the kernel's CM outlives it to answer: here the exit
 * hook disconnects them and lets the DREQs, and the DREP the CM thread is
 * giving a peer's DREQ, leave before the process goes. Bounded: a
 * vanished peer costs this much at exit, no more.
 */
#define RCM_EXIT_QUIESCE_MS 250

static void
at_exit(void)
{
	prdma_cm_exit(RCM_EXIT_QUIESCE_MS);
}

static void
init_run(void)
{
	uint16_t i;
	int ret;

	if (prdma_verbs_init == NULL || prdma_verbs_context_get == NULL ||
	    prdma_verbs_qp == NULL) {
		/* Another libibverbs.so.1 was loaded: there is no prdma device. */
		init_ret = -ENODEV;
		return;
	}
	ret = prdma_verbs_init();
	if (ret < 0) {
		init_ret = ret;
		return;
	}
	for (i = prdma_dev_next(0); i < PRDMA_MAX_DEVS && nb_devs < RCM_MAX_DEVS;
	     i = prdma_dev_next((uint16_t)(i + 1))) {
		devs[nb_devs] = prdma_dev_open(i);
		if (devs[nb_devs] != NULL)
			nb_devs++;
	}
	cm_ch = prdma_cm_channel_create(0);
	if (cm_ch == NULL) {
		init_ret = -rte_errno;
		return;
	}
	ret = rte_ctrl_thread_create(&cm_tid, "prdma-rdmacm", NULL, cm_thread, NULL);
	if (ret != 0) {
		init_ret = ret < 0 ? ret : -ret;
		return;
	}
	/* Fails only without memory: then exit is as before, nothing worse. */
	(void)atexit(at_exit);
}

int
rcm_init(void)
{
	pthread_once(&init_once, init_run);
	return init_ret;
}

struct prdma_cm_channel *
rcm_cm_channel(void)
{
	return cm_ch;
}

uint32_t
rcm_dev_count(void)
{
	return nb_devs;
}

struct prdma_dev *
rcm_dev_at(uint32_t i)
{
	return i < nb_devs ? devs[i] : NULL;
}

socklen_t
rcm_addr_len(const struct sockaddr *sa)
{
	if (sa == NULL)
		return 0;
	if (sa->sa_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (sa->sa_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return 0;
}

bool
rcm_addr_is_any(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == INADDR_ANY;
	return memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr, &in6addr_any,
		      sizeof(in6addr_any)) == 0;
}

uint16_t
rcm_addr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

void
rcm_addr_set_port(struct sockaddr *sa, uint16_t port)
{
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = htons(port);
	else if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
}

/* The GID an IP address is on RoCE (IPv4 as ::ffff:a.b.c.d). */
static void
addr_to_gid(const struct sockaddr *sa, union prdma_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (sa->sa_family == AF_INET) {
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		memcpy(gid->raw + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else {
		memcpy(gid->raw, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

static bool
gid_is_v4(const union prdma_gid *g)
{
	static const uint8_t p[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(g->raw, p, sizeof(p)) == 0;
}

static void
gid_to_addr(const union prdma_gid *g, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (gid_is_v4(g)) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, g->raw + 12, 4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, g->raw, 16);
	}
}

static uint32_t
common_bits(const uint8_t *a, const uint8_t *b, uint32_t len)
{
	uint32_t i, n = 0;
	uint8_t x;

	for (i = 0; i < len; i++) {
		x = a[i] ^ b[i];
		if (x == 0) {
			n += 8;
			continue;
		}
		while ((x & 0x80) == 0) {
			n++;
			x <<= 1;
		}
		break;
	}
	return n;
}

/*
 * Walk port 1's GID table of every device; with @exact the device holding
 * @want, else the best prefix match of @want's family.
 */
static int
gid_search(const union prdma_gid *want, bool exact, struct prdma_dev **dev,
	   union prdma_gid *found)
{
	static const union prdma_gid zero;
	struct prdma_port_attr pa;
	union prdma_gid g;
	uint32_t d, i, bits, best = 0;
	bool v4 = gid_is_v4(want), have = false;

	for (d = 0; d < nb_devs; d++) {
		if (prdma_port_query(devs[d], 1, &pa) < 0)
			continue;
		for (i = 0; i < RTE_MIN(pa.gid_tbl_len, 256u); i++) {
			if (prdma_gid_query(devs[d], 1, i, &g) < 0 ||
			    memcmp(&g, &zero, sizeof(g)) == 0 || gid_is_v4(&g) != v4)
				continue;
			if (memcmp(&g, want, sizeof(g)) == 0) {
				*dev = devs[d];
				*found = g;
				return 0;
			}
			if (exact)
				continue;
			bits = v4 ? common_bits(g.raw + 12, want->raw + 12, 4) :
				    common_bits(g.raw, want->raw, 16);
			if (!have || bits > best) {
				have = true;
				best = bits;
				*dev = devs[d];
				*found = g;
			}
		}
	}
	return have ? 0 : -ENODEV;
}

int
rcm_dev_of_addr(const struct sockaddr *sa, struct prdma_dev **dev)
{
	union prdma_gid want, g;

	if (rcm_addr_len(sa) == 0)
		return -EAFNOSUPPORT;
	addr_to_gid(sa, &want);
	return gid_search(&want, true, dev, &g);
}

int
rcm_dev_route(const struct sockaddr *dst, struct prdma_dev **dev,
	      struct sockaddr_storage *src)
{
	union prdma_gid want, g;
	int ret;

	if (rcm_addr_len(dst) == 0)
		return -EAFNOSUPPORT;
	addr_to_gid(dst, &want);
	ret = gid_search(&want, false, dev, &g);
	if (ret == 0)
		gid_to_addr(&g, src);
	return ret;
}

/* The PD rdma_create_qp() uses when the program gives none, per device. */
struct ibv_pd *
rcm_default_pd(struct ibv_context *ctx)
{
	static pthread_mutex_t pd_lock = PTHREAD_MUTEX_INITIALIZER;
	struct ibv_pd *pd = NULL;
	uint32_t i;

	pthread_mutex_lock(&pd_lock);
	for (i = 0; i < RCM_MAX_DEVS; i++) {
		if (pds[i].ctx == ctx) {
			pd = pds[i].pd;
			break;
		}
		if (pds[i].ctx == NULL) {
			pd = ibv_alloc_pd(ctx);
			if (pd != NULL) {
				pds[i].pd = pd;
				pds[i].ctx = ctx;
			}
			break;
		}
	}
	pthread_mutex_unlock(&pd_lock);
	if (pd == NULL && i == RCM_MAX_DEVS)
		errno = ENOMEM;
	return pd;
}
