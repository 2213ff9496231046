/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Model lifecycle: registry, BAR memory, the device thread, test controls. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_errno.h>
#include <rte_pause.h>

#include "hermon_model_priv.h"

RTE_LOG_REGISTER_SUFFIX(hermon_model_logtype, model, NOTICE);

static TAILQ_HEAD(, hermon_model) models = TAILQ_HEAD_INITIALIZER(models);
static pthread_mutex_t models_lock = PTHREAD_MUTEX_INITIALIZER;

/* Idle back-off of the device thread: the machine's cores are shared. */
#define HM_IDLE_SPINS  2000
#define HM_IDLE_SLEEP_NS 50000

static void *
hm_thread(void *arg)
{
	struct hermon_model *m = arg;
	struct timespec ts = { 0, HM_IDLE_SLEEP_NS };
	unsigned int idle = 0;

	pthread_mutex_lock(&m->lock);
	while (!m->stop) {
		uint64_t before = m->commands + m->resets;

		if (!m->paused) {
			hm_wire_lock();
			hm_trace_poll_uar(m);
			hm_cmd_poll(m);
			if (hm_exec_poll(m) != 0)
				idle = 0;
			hm_wire_unlock();
		}
		if (m->commands + m->resets != before)
			idle = 0;
		pthread_mutex_unlock(&m->lock);
		if (++idle < HM_IDLE_SPINS)
			rte_pause();
		else
			nanosleep(&ts, NULL);
		pthread_mutex_lock(&m->lock);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

/* A locally administered MAC per port, stable for a model's name. */
static void
hm_mac_init(struct hermon_model *m)
{
	uint32_t h = 2166136261u;
	const char *c;
	unsigned int p;

	for (c = m->name; *c != '\0'; c++)
		h = (h ^ (uint8_t)*c) * 16777619u;
	for (p = 0; p < 2; p++) {
		m->mac[p][0] = 0x02;
		m->mac[p][1] = 0xc9;
		m->mac[p][2] = (uint8_t)(h >> 24);
		m->mac[p][3] = (uint8_t)(h >> 16);
		m->mac[p][4] = (uint8_t)(h >> 8);
		m->mac[p][5] = (uint8_t)((h & 0xf0) | (p + 1));
		if (m->conf.has_mac) {
			memcpy(m->mac[p], m->conf.mac, 6);
			m->mac[p][5] = (uint8_t)(m->conf.mac[5] + p);
		}
	}
}

static void
hm_cfg_init(struct hermon_model *m)
{
	memset(m->cfg, 0, sizeof(m->cfg));
	m->cfg[0] = HERMON_PCI_VENDOR_MELLANOX | ((uint32_t)m->conf.device_id << 16);
	m->cfg[1] = 0x00100006;           /* memory space + bus master */
	m->cfg[2] = 0x02800000;           /* class: network, other */
	m->cfg[4] = 0x0000000c;           /* BAR0: 64-bit prefetchable memory */
	m->cfg[6] = 0x0000000c;           /* BAR2 */
}

struct hermon_model *
hermon_model_create(const struct hermon_model_conf *conf)
{
	struct hermon_model *m, *it;
	int ret;

	if (conf == NULL || conf->name == NULL || conf->name[0] == '\0' ||
	    strlen(conf->name) >= sizeof(m->name) || conf->ports > 2 ||
	    conf->ack_delay > 31 ||
	    (conf->port_type != 0 && conf->port_type != HERMON_PORT_TYPE_IB &&
	     conf->port_type != HERMON_PORT_TYPE_ETH)) {
		rte_errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(m->name, sizeof(m->name), "%s", conf->name);
	m->conf = *conf;
	m->conf.name = m->name;
	if (m->conf.device_id == 0)
		m->conf.device_id = 0x1003;
	if (m->conf.ports == 0)
		m->conf.ports = 1;
	if (m->conf.port_type == 0)
		m->conf.port_type = HERMON_PORT_TYPE_ETH;
	if (m->conf.port_types == 0 || m->conf.port_types > 3)
		m->conf.port_types = 3;
	/* a fixed-type port is of the one type it supports */
	if (m->conf.port_types != 3)
		m->conf.port_type = m->conf.port_types;
	if (m->conf.log_max_msg == 0 || m->conf.log_max_msg > 31)
		m->conf.log_max_msg = 31;
	if (m->conf.log_pg_sz == 0)
		m->conf.log_pg_sz = HERMON_ICM_PAGE_SHIFT;
	m->log_pg_sz = m->conf.log_pg_sz;
	if (m->conf.rsvd_uars == 0)
		m->conf.rsvd_uars = 1;
	if (m->conf.log_max_mtts == 0)
		m->conf.log_max_mtts = 20;
	m->refs = 1;
	if (conf->link != NULL) {
		if (conf->link[0] == '\0' || strlen(conf->link) >= sizeof(m->link) ||
		    conf->side > 1) {
			free(m);
			rte_errno = EINVAL;
			return NULL;
		}
		snprintf(m->link, sizeof(m->link), "%s", conf->link);
		m->side = conf->side;
	}
	m->conf.link = m->link;
	hm_mac_init(m);
	m->bar0 = aligned_alloc(HERMON_UAR_PAGE_SIZE, HERMON_BAR_CFG_SIZE);
	m->bar2 = aligned_alloc(HERMON_UAR_PAGE_SIZE, hm_bar2_len(m));
	if (m->bar0 == NULL || m->bar2 == NULL) {
		ret = ENOMEM;
		goto err_mem;
	}
	memset(m->bar0, 0, HERMON_BAR_CFG_SIZE);
	memset(m->bar2, 0, hm_bar2_len(m));
	hm_cfg_init(m);
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->cond, NULL);
	hm_fw_reset(m);
	m->resets = 0;

	pthread_mutex_lock(&models_lock);
	TAILQ_FOREACH(it, &models, next) {
		if (strcmp(it->name, m->name) == 0) {
			pthread_mutex_unlock(&models_lock);
			ret = EEXIST;
			goto err_name;
		}
	}
	ret = pthread_create(&m->thread, NULL, hm_thread, m);
	if (ret != 0) {
		pthread_mutex_unlock(&models_lock);
		goto err_name;
	}
	TAILQ_INSERT_TAIL(&models, m, next);
	pthread_mutex_unlock(&models_lock);
	hm_link_attach(m);
	HM_LOG(INFO, m, "created (device 0x%04x, %u port(s))",
	       m->conf.device_id, m->conf.ports);
	return m;

err_name:
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
err_mem:
	free(m->bar0);
	free(m->bar2);
	free(m);
	rte_errno = ret;
	return NULL;
}

struct hermon_model *
hermon_model_get(const char *name)
{
	struct hermon_model *m;

	if (name == NULL)
		return NULL;
	pthread_mutex_lock(&models_lock);
	TAILQ_FOREACH(m, &models, next) {
		if (strcmp(m->name, name) == 0) {
			m->refs++;
			break;
		}
	}
	pthread_mutex_unlock(&models_lock);
	return m;
}

void
hermon_model_put(struct hermon_model *m)
{
	if (m == NULL)
		return;
	pthread_mutex_lock(&models_lock);
	if (--m->refs > 0) {
		pthread_mutex_unlock(&models_lock);
		return;
	}
	TAILQ_REMOVE(&models, m, next);
	pthread_mutex_unlock(&models_lock);

	pthread_mutex_lock(&m->lock);
	m->stop = true;
	pthread_mutex_unlock(&m->lock);
	pthread_join(m->thread, NULL);
	hm_link_detach(m);
	hm_obj_free(m);
	hm_maps_clear(&m->fa);
	hm_maps_clear(&m->aux);
	hm_maps_clear(&m->icm);
	hm_trace_free(m);
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
	free(m->bar0);
	free(m->bar2);
	free(m);
}

void *
hermon_model_bar(struct hermon_model *m, unsigned int bar, size_t *len)
{
	if (bar == HERMON_BAR_CFG) {
		*len = HERMON_BAR_CFG_SIZE;
		return m->bar0;
	}
	if (bar == HERMON_BAR_UAR) {
		*len = hm_bar2_len(m);
		return m->bar2;
	}
	*len = 0;
	return NULL;
}

/* A reset written but not yet carried out hides the device, as on the bus. */
static bool
hm_reset_pending(struct hermon_model *m)
{
	uint32_t v = rte_be_to_cpu_32(*(volatile uint32_t *)
				      (m->bar0 + HERMON_RESET_OFFSET));

	return (v & HERMON_RESET_VALUE) != 0;
}

int
hermon_model_cfg_read32(struct hermon_model *m, uint32_t off, uint32_t *val)
{
	if (off % 4 != 0 || off >= sizeof(m->cfg))
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	if (m->in_reset || hm_reset_pending(m))
		*val = UINT32_MAX;
	else
		*val = m->cfg[off / 4];
	pthread_mutex_unlock(&m->lock);
	return 0;
}

int
hermon_model_cfg_write32(struct hermon_model *m, uint32_t off, uint32_t val)
{
	if (off % 4 != 0 || off >= sizeof(m->cfg))
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	/* identity dwords are read-only */
	if (off != 0 && off != 8)
		m->cfg[off / 4] = val;
	if (m->cfg_log_n < RTE_DIM(m->cfg_log))
		m->cfg_log[m->cfg_log_n++] = off;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

uint32_t
hermon_model_sem_read32(struct hermon_model *m)
{
	uint32_t v;

	pthread_mutex_lock(&m->lock);
	v = m->sem_held || m->sem_taken ? 1 : 0;
	if (v == 0)
		m->sem_taken = true;
	pthread_mutex_unlock(&m->lock);
	return v;
}

void
hermon_model_sem_hold(struct hermon_model *m, bool held)
{
	pthread_mutex_lock(&m->lock);
	m->sem_held = held;
	pthread_mutex_unlock(&m->lock);
}

uint32_t
hermon_model_cfg_writes(struct hermon_model *m, uint32_t *off, uint32_t max)
{
	uint32_t n, i;

	pthread_mutex_lock(&m->lock);
	n = m->cfg_log_n;
	for (i = 0; i < n && i < max; i++)
		off[i] = m->cfg_log[i];
	pthread_mutex_unlock(&m->lock);
	return n;
}

void
hermon_model_pause(struct hermon_model *m)
{
	pthread_mutex_lock(&m->lock);
	m->paused = true;
	pthread_mutex_unlock(&m->lock);
}

void
hermon_model_resume(struct hermon_model *m)
{
	pthread_mutex_lock(&m->lock);
	m->paused = false;
	pthread_mutex_unlock(&m->lock);
}

void
hermon_model_hcr_posted(struct hermon_model *m)
{
	uint64_t before;

	pthread_mutex_lock(&m->lock);
	if (!m->paused && !m->stop) {
		before = m->commands;
		hm_wire_lock();
		hm_cmd_poll(m);
		hm_wire_unlock();
		m->commands_at_post += m->commands - before;
	}
	pthread_mutex_unlock(&m->lock);
}

int
hermon_model_step(struct hermon_model *m)
{
	uint64_t before;

	pthread_mutex_lock(&m->lock);
	before = m->commands + m->resets;
	hm_wire_lock();
	hm_cmd_poll(m);
	hm_wire_unlock();
	before = m->commands + m->resets - before;
	pthread_mutex_unlock(&m->lock);
	return before != 0;
}

static int
hm_fault_arm(struct hermon_model *m, uint16_t opcode, uint8_t status,
	     bool timeout, uint32_t nth)
{
	unsigned int i;

	if (nth == 0 || opcode > 0xfff)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	for (i = 0; i < HM_MAX_FAULTS; i++) {
		if (!m->fault[i].armed) {
			m->fault[i] = (struct hm_fault){
				.armed = true, .timeout = timeout,
				.opcode = opcode, .status = status, .nth = nth,
			};
			pthread_mutex_unlock(&m->lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return -ENOSPC;
}

int
hermon_model_fault_status(struct hermon_model *m, uint16_t opcode,
			  uint8_t status, uint32_t nth)
{
	if (status == HERMON_STAT_OK)
		return -EINVAL;
	return hm_fault_arm(m, opcode, status, false, nth);
}

int
hermon_model_fault_timeout(struct hermon_model *m, uint16_t opcode, uint32_t nth)
{
	return hm_fault_arm(m, opcode, 0, true, nth);
}

int
hermon_model_fault_catastrophic(struct hermon_model *m, uint32_t syndrome)
{
	if (syndrome == 0)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	hm_fw_raise_catas(m, syndrome);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

void
hermon_model_fault_clear(struct hermon_model *m)
{
	pthread_mutex_lock(&m->lock);
	memset(m->fault, 0, sizeof(m->fault));
	pthread_mutex_unlock(&m->lock);
}

static uint64_t
hm_pages_in(const struct hm_maps *maps, uint64_t lo, uint64_t hi)
{
	uint64_t pages = 0;
	uint32_t i;

	for (i = 0; i < maps->nb; i++) {
		uint64_t s = RTE_MAX(maps->e[i].va, lo);
		uint64_t e = RTE_MIN(maps->e[i].va + maps->e[i].size, hi);

		if (e > s)
			pages += (e - s) >> HERMON_ICM_PAGE_SHIFT;
	}
	return pages;
}

int
hermon_model_get_state(struct hermon_model *m, struct hermon_model_state *st)
{
	unsigned int t;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&m->lock);
	st->running = m->running;
	st->hca_init = m->hca_init;
	st->catastrophic = m->catas;
	st->hung = m->hung;
	st->fa_pages = (uint32_t)m->fa.pages;
	st->aux_pages = (uint32_t)m->aux.pages;
	st->icm_size = m->icm_size;
	st->icm_pages = m->icm.pages;
	if (m->layout.valid) {
		/* a table extends to the next base above it (or the ICM end) */
		for (t = 0; t < HERMON_MODEL_TABLE_NB; t++) {
			uint64_t lo = m->layout.base[t], hi = UINT64_MAX;
			unsigned int u;

			for (u = 0; u < HERMON_MODEL_TABLE_NB; u++)
				if (m->layout.base[u] > lo && m->layout.base[u] < hi)
					hi = m->layout.base[u];
			st->table_pages[t] = hm_pages_in(&m->icm, lo, hi);
		}
	}
	st->eqs_hw = (uint32_t)__builtin_popcountll(m->eq_hw);
	st->ports_up = m->ports_up;
	st->resets = m->resets;
	st->commands = m->commands;
	st->commands_at_post = m->commands_at_post;
	st->interrupts = m->interrupts;
	st->eq_overflows = m->eq_overflows;
	st->last_opcode = m->last_opcode;
	st->last_status = m->last_status;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

int
hermon_model_get_stats(struct hermon_model *m, struct hermon_model_stats *st)
{
	if (m == NULL || st == NULL)
		return -EINVAL;
	hm_wire_lock();
	st->wqes = m->exec_work;
	st->rnr_naks = m->rnr_naks;
	st->timeouts = m->timeouts;
	st->drops = m->drops;
	st->ib_inactive = m->ib_inactive_drops;
	st->rocev2_rx = m->rocev2_rx;
	st->rocev2_bad = m->rocev2_bad;
	st->mc_filtered = m->mc_filtered;
	st->bf_exec = m->bf_exec;
	st->bf_fallback = m->bf_fallback;
	st->bf_half[0] = m->bf_half[0];
	st->bf_half[1] = m->bf_half[1];
	st->raw_sent = m->raw_sent;
	st->raw_delivered = m->raw_delivered;
	st->raw_unsteered = m->raw_unsteered;
	st->raw_dropped = m->raw_dropped;
	hm_wire_unlock();
	return 0;
}

const char *
hermon_model_table_name(enum hermon_model_table t)
{
	static const char *const names[HERMON_MODEL_TABLE_NB] = {
		[HERMON_MODEL_QPC] = "QPC", [HERMON_MODEL_AUXC] = "AUXC",
		[HERMON_MODEL_ALTC] = "ALTC", [HERMON_MODEL_RDMARC] = "RDMARC",
		[HERMON_MODEL_SRQC] = "SRQC", [HERMON_MODEL_CQC] = "CQC",
		[HERMON_MODEL_EQC] = "EQC", [HERMON_MODEL_DMPT] = "DMPT",
		[HERMON_MODEL_CMPT] = "CMPT", [HERMON_MODEL_MTT] = "MTT",
		[HERMON_MODEL_MCG] = "MCG",
	};

	return (unsigned int)t < HERMON_MODEL_TABLE_NB ? names[t] : "?";
}
