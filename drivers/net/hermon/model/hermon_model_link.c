/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The cable between two models and the one lock of the "wire": a data-path
 * step of one model reads and writes the other model's contexts and host
 * memory, so every step and every object command holds it.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "hermon_model_priv.h"

static pthread_mutex_t hm_wire = PTHREAD_MUTEX_INITIALIZER;
static struct hermon_model *hm_ends[64][2];
static char hm_links[64][32];

void
hm_wire_lock(void)
{
	pthread_mutex_lock(&hm_wire);
}

void
hm_wire_unlock(void)
{
	pthread_mutex_unlock(&hm_wire);
}

/* Called with the wire lock held. */
static int
hm_link_slot(const char *link, bool create)
{
	int i, free_slot = -1;

	for (i = 0; i < 64; i++) {
		if (hm_links[i][0] != '\0' && strcmp(hm_links[i], link) == 0)
			return i;
		if (hm_links[i][0] == '\0' && free_slot < 0)
			free_slot = i;
	}
	if (!create || free_slot < 0)
		return -1;
	snprintf(hm_links[free_slot], sizeof(hm_links[free_slot]), "%s", link);
	return free_slot;
}

void
hm_link_attach(struct hermon_model *m)
{
	int s;

	if (m->link[0] == '\0')
		return;
	hm_wire_lock();
	s = hm_link_slot(m->link, true);
	if (s >= 0) {
		hm_ends[s][m->side] = m;
		m->peer = hm_ends[s][!m->side];
		if (m->peer != NULL)
			m->peer->peer = m;
	}
	hm_wire_unlock();
}

void
hm_link_detach(struct hermon_model *m)
{
	int s;

	hm_wire_lock();
	if (m->peer != NULL)
		m->peer->peer = NULL;
	m->peer = NULL;
	if (m->link[0] != '\0') {
		s = hm_link_slot(m->link, false);
		if (s >= 0 && hm_ends[s][m->side] == m) {
			hm_ends[s][m->side] = NULL;
			if (hm_ends[s][!m->side] == NULL)
				hm_links[s][0] = '\0';
		}
	}
	hm_wire_unlock();
}

int
hermon_model_connect(struct hermon_model *a, struct hermon_model *b)
{
	if (a == NULL || a == b) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	hm_wire_lock();
	if (a->peer != NULL)
		a->peer->peer = NULL;
	a->peer = b;
	if (b != NULL) {
		if (b->peer != NULL)
			b->peer->peer = NULL;
		b->peer = a;
	}
	hm_wire_unlock();
	return 0;
}

static bool
hm_owns_gid(const struct hermon_model *m, const uint8_t gid[16], uint8_t *port)
{
	static const uint8_t zero[16];
	unsigned int p, i;

	if (memcmp(gid, zero, 16) == 0)
		return false;
	for (p = 0; p < m->conf.ports; p++) {
		if ((m->ports_up & RTE_BIT32(p)) == 0)
			continue;
		for (i = 0; i < HERMON_GID_TABLE_LEN; i++) {
			if (memcmp(m->gid[p][i], gid, 16) == 0) {
				*port = (uint8_t)(p + 1);
				return true;
			}
		}
	}
	return false;
}

static bool
hm_owns_lid(const struct hermon_model *m, uint16_t dlid, uint8_t *port)
{
	unsigned int p;

	if (m->conf.port_type != HERMON_PORT_TYPE_IB)
		return false;
	/* the LID the SM set through the SMA, or the one the conf presets */
	for (p = 0; p < m->conf.ports; p++)
		if ((m->ports_up & RTE_BIT32(p)) != 0 &&
		    (hm_sma_lid(m, (uint8_t)(p + 1)) == dlid ||
		     (m->conf.lid != 0 && m->conf.lid + p == dlid))) {
			*port = (uint8_t)(p + 1);
			return true;
		}
	return false;
}

struct hermon_model *
hm_route_lid(struct hermon_model *m, uint16_t dlid, uint8_t *port)
{
	if (dlid == 0)
		return NULL;
	if (hm_owns_lid(m, dlid, port))
		return m;
	if (m->peer != NULL && m->peer->hca_init && !m->peer->catas &&
	    hm_owns_lid(m->peer, dlid, port))
		return m->peer;
	return NULL;
}

struct hermon_model *
hm_route(struct hermon_model *m, const uint8_t gid[16], uint8_t *port)
{
	if (hm_owns_gid(m, gid, port))
		return m;
	if (m->peer != NULL && m->peer->hca_init && !m->peer->catas &&
	    hm_owns_gid(m->peer, gid, port))
		return m->peer;
	return NULL;
}
