/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Start-up: a verbs program never calls rte_eal_init, so the first verbs
 * call does, with the EAL arguments and prdma devargs the environment or a
 * small config file gives (doc/guides/verbs.md).
 *
 *   PRDMA_VERBS_EAL      EAL arguments, split at white space
 *   PRDMA_VERBS_DEVARGS  prdma devargs, several separated by ';'
 *   PRDMA_VERBS_CONF     a file of lines "eal <args>" and "dev <devargs>"
 *                        ('#' starts a comment); the environment wins
 *   PRDMA_VERBS_LINK_WAIT  seconds to wait for the ports to come up
 *                        (default 10; 0 does not wait)
 *   PRDMA_VERBS_LINK_SETTLE_MS  once they are up, wait this long more
 *                        (default 0): a client started together with its
 *                        server gives the server time to listen
 */

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_cycles.h>
#include <rte_log.h>

#include "pv_private.h"
#include "prdma_verbs_bridge.h"

#define PV_MAX_ARGS 64
#define PV_MAX_DEVS 16
#define PV_LINE 4096

/* Used when nothing configures EAL: no hugepages, no PCI, no shared files. */
static const char pv_default_eal[] =
	"--no-huge -m 512 --no-shconf --no-pci --no-telemetry -l 0 --log-level=lib.eal:error";

static pthread_once_t pv_once = PTHREAD_ONCE_INIT;
static int pv_init_ret;
static __thread int pv_initialising;

struct pv_conf {
	char eal[PV_LINE];
	char devs[PV_MAX_DEVS][PV_LINE];
	unsigned int nb_devs;
	int have_eal;
};

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int
add_devs(struct pv_conf *c, const char *list)
{
	char buf[PV_LINE], *tok, *save = NULL;

	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ";", &save); tok != NULL; tok = strtok_r(NULL, ";", &save)) {
		tok = trim(tok);
		if (*tok == '\0')
			continue;
		if (c->nb_devs >= PV_MAX_DEVS || strlen(tok) >= PV_LINE)
			return -E2BIG;
		strcpy(c->devs[c->nb_devs++], tok);
	}
	return 0;
}

static int
read_conf_file(struct pv_conf *c, const char *path)
{
	char line[PV_LINE], *s, *hash;
	unsigned int lineno = 0;
	FILE *f;
	int ret = 0;

	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, "prdma verbs: cannot open PRDMA_VERBS_CONF %s: %s\n",
			path, strerror(errno));
		return -errno;
	}
	while (ret == 0 && fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		hash = strchr(line, '#');
		if (hash != NULL)
			*hash = '\0';
		s = trim(line);
		if (*s == '\0')
			continue;
		if (strncmp(s, "eal", 3) == 0 && isspace((unsigned char)s[3])) {
			snprintf(c->eal, sizeof(c->eal), "%s", trim(s + 3));
			c->have_eal = 1;
		} else if (strncmp(s, "dev", 3) == 0 && isspace((unsigned char)s[3])) {
			ret = add_devs(c, trim(s + 3));
		} else {
			fprintf(stderr, "prdma verbs: %s:%u: \"eal <args>\" or \"dev <devargs>\" "
				"expected\n", path, lineno);
			ret = -EINVAL;
		}
	}
	fclose(f);
	return ret;
}

static int
read_conf(struct pv_conf *c)
{
	const char *v;
	int ret;

	memset(c, 0, sizeof(*c));
	v = getenv("PRDMA_VERBS_CONF");
	if (v != NULL && *v != '\0') {
		ret = read_conf_file(c, v);
		if (ret < 0)
			return ret;
	}
	v = getenv("PRDMA_VERBS_EAL");
	if (v != NULL) {
		if (strlen(v) >= sizeof(c->eal))
			return -E2BIG;
		strcpy(c->eal, v);
		c->have_eal = 1;
	}
	v = getenv("PRDMA_VERBS_DEVARGS");
	if (v != NULL) {
		c->nb_devs = 0;
		ret = add_devs(c, v);
		if (ret < 0)
			return ret;
	}
	if (!c->have_eal)
		strcpy(c->eal, pv_default_eal);
	return 0;
}

/*
 * Software RoCE devices progress in hybrid mode unless told otherwise:
 * verbs programs often spin on memory a peer writes, or sleep on a CQ
 * event, and never poll in the meantime, so a progress thread must step
 * for them; but a thread busy next to a program that polls doubles the
 * busy threads of the process. In hybrid mode the polls and posts step
 * the engine themselves and the thread steps only while nobody polls.
 */
static void
devargs_with_progress(char *out, size_t len, const char *devargs)
{
	if (strncmp(devargs, "roce:", 5) == 0 && strstr(devargs, "progress=") == NULL)
		snprintf(out, len, "%s,progress=hybrid", devargs);
	else
		snprintf(out, len, "%s", devargs);
}

/*
 * A verbs program checks its port once, at start-up, as it would a cabled
 * HCA; a memif or veth link comes up only when the peer process starts.
 * Wait (bounded) for every port of every device to become active.
 */
static void
wait_links(void)
{
	const char *v = getenv("PRDMA_VERBS_LINK_WAIT");
	struct prdma_port_attr pa;
	struct prdma_dev_attr da;
	struct prdma_dev *dev;
	uint64_t deadline;
	double secs = 10;
	uint16_t id;
	int down;
	uint8_t p;

	if (v != NULL && *v != '\0') {
		char *end;

		secs = strtod(v, &end);
		if (*end != '\0' || secs < 0 || secs > 3600)
			secs = 10;
	}
	deadline = rte_get_timer_cycles() + (uint64_t)(secs * (double)rte_get_timer_hz());
	do {
		down = 0;
		for (id = prdma_dev_next(0); id < PRDMA_MAX_DEVS; id = prdma_dev_next(id + 1)) {
			dev = prdma_dev_open(id);
			if (dev == NULL)
				continue;
			if (prdma_dev_query(dev, &da) == 0)
				for (p = 1; p <= da.phys_port_cnt; p++)
					if (prdma_port_query(dev, p, &pa) == 0 &&
					    pa.state != PRDMA_PORT_ACTIVE)
						down = 1;
			prdma_dev_close(dev);
		}
		if (down)
			rte_delay_us_sleep(10000);
	} while (down && rte_get_timer_cycles() < deadline);
	v = getenv("PRDMA_VERBS_LINK_SETTLE_MS");
	if (v != NULL && *v != '\0') {
		long ms = strtol(v, NULL, 10);

		if (ms > 0 && ms <= 60000)
			rte_delay_us_sleep((unsigned int)ms * 1000u);
	}
}

static void
do_init(void)
{
	static struct pv_conf conf; /* large: not on the caller's stack */
	char *argv[PV_MAX_ARGS + 2], *tok, *save = NULL;
	char dev[PV_LINE + 32];
	cpu_set_t cpus;
	int argc = 0, ret, have_cpus;
	unsigned int i;

	ret = read_conf(&conf);
	if (ret < 0) {
		pv_init_ret = ret;
		return;
	}
	argv[argc++] = (char *)(uintptr_t)"prdma-verbs";
	for (tok = strtok_r(conf.eal, " \t\n", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (argc >= PV_MAX_ARGS) {
			fprintf(stderr, "prdma verbs: more than %d EAL arguments\n", PV_MAX_ARGS);
			pv_init_ret = -E2BIG;
			return;
		}
		argv[argc++] = tok;
	}
	argv[argc] = NULL;

	/* EAL pins the calling thread to its main lcore: the program's own
	 * thread keeps the CPUs it had. */
	have_cpus = pthread_getaffinity_np(pthread_self(), sizeof(cpus), &cpus) == 0;
	pv_initialising = 1;
	ret = rte_eal_init(argc, argv);
	pv_initialising = 0;
	if (have_cpus)
		pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	if (ret < 0) {
		fprintf(stderr, "prdma verbs: EAL init failed: %s\n", rte_strerror(rte_errno));
		pv_init_ret = -(rte_errno != 0 ? rte_errno : ENODEV);
		return;
	}
	for (i = 0; i < conf.nb_devs; i++) {
		devargs_with_progress(dev, sizeof(dev), conf.devs[i]);
		ret = prdma_dev_probe(dev);
		if (ret < 0) {
			/* The others still serve; a missing device is visible in the list. */
			fprintf(stderr, "prdma verbs: cannot probe \"%s\": %s\n", dev,
				strerror(-ret));
		}
	}
	wait_links();
	pv_init_ret = 0;
}

int
pv_init(void)
{
	if (pv_initialising)
		return -EDEADLK;
	pthread_once(&pv_once, do_init);
	return pv_init_ret;
}

/* True on the thread running rte_eal_init: a PMD EAL loads calls verbs. */
int
pv_in_init(void)
{
	return pv_initialising;
}

int
prdma_verbs_init(void)
{
	int ret = pv_init();

	if (ret < 0) {
		rte_errno = -ret;
		errno = -ret;
	}
	return ret;
}
