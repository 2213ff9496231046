/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The first EQ: asynchronous events (port changes, catastrophic errors,
 * and in part 2 the QP/CQ/SRQ errors). Its one page is described to the
 * device by an MTT entry written with WRITE_MTT; it is polled from the
 * control path (dev_progress, port_query), never from the fast path.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "hermon_barrier.h"
#include "hermon_dev.h"
#include "hermon_logs.h"
#include "hermon_mmio.h"
#include "hermon_obj.h"

#define HERMON_EQ_LOG_SIZE 6
#define HERMON_EQE_SIZE    HERMON_PRM_SIZE(event_queue_entry)

/* Every event type but command completions: one EQ serves them all. */
#define HERMON_ASYNC_EVENTS (RTE_BIT64(HERMON_EV_COMP) | \
	RTE_BIT64(HERMON_EV_PATH_MIG) | RTE_BIT64(HERMON_EV_COMM_EST) | \
	RTE_BIT64(HERMON_EV_SQ_DRAINED) | RTE_BIT64(HERMON_EV_CQ_ERROR) | \
	RTE_BIT64(HERMON_EV_WQ_CATAS) | RTE_BIT64(HERMON_EV_PATH_MIG_FAILED) | \
	RTE_BIT64(HERMON_EV_LOCAL_CATAS) | RTE_BIT64(HERMON_EV_PORT_CHANGE) | \
	RTE_BIT64(HERMON_EV_WQ_INVAL_REQ) | RTE_BIT64(HERMON_EV_WQ_ACCESS_ERR) | \
	RTE_BIT64(HERMON_EV_SRQ_CATAS) | RTE_BIT64(HERMON_EV_SRQ_LAST_WQE) | \
	RTE_BIT64(HERMON_EV_SRQ_LIMIT))

static struct hermon_prm_event_queue_entry *
eqe_at(struct hermon_eq *eq, uint32_t idx)
{
	return (struct hermon_prm_event_queue_entry *)((uint8_t *)eq->buf.va +
		(size_t)(idx & ((1u << eq->log_size) - 1)) * HERMON_EQE_SIZE);
}

static int
eq_write_mtt(struct hermon_dev *hd, struct hermon_eq *eq)
{
	struct hermon_write_mtt_mbox *mb;
	int ret;

	mb = calloc(1, sizeof(*mb));
	if (mb == NULL) {
		rte_errno = ENOMEM;
		return -ENOMEM;
	}
	HERMON_FILL64(&mb->hdr, write_mtt_hdr, mtt_addr_h, mtt_addr_l,
		      (uint64_t)eq->mtt_index * hd->caps.mtt_entry_sz);
	HERMON_FILL64(&mb->mtt[0], mtt, ptag_h, ptag_l, eq->buf.iova);
	HERMON_FILL(&mb->mtt[0], mtt, p, 1);
	ret = hermon_cmd_write_mtt(&hd->cmd, mb, 1);
	free(mb);
	return ret;
}

int
hermon_eq_create(struct hermon_dev *hd)
{
	struct hermon_eq *eq = &hd->eq;
	struct hermon_prm_eqc eqc;
	uint32_t i;
	int ret;

	memset(eq, 0, sizeof(*eq));
	eq->eqn = hd->caps.rsvd_eqs;
	eq->log_size = HERMON_EQ_LOG_SIZE;
	/* the first MTT entry after the firmware's reserved ones */
	eq->mtt_index = 1u << hd->caps.log2_rsvd_mtts;
	eq->mask = HERMON_ASYNC_EVENTS;
	ret = hermon_dma_alloc(&eq->buf, "eq", HERMON_ICM_PAGE_SIZE,
			       HERMON_ICM_PAGE_SIZE, hd->pdev->socket_id);
	if (ret < 0)
		return ret;
	/* entries start in hardware ownership for the first pass */
	for (i = 0; i < (1u << eq->log_size); i++)
		HERMON_FILL(eqe_at(eq, i), event_queue_entry, owner, 1);
	ret = eq_write_mtt(hd, eq);
	if (ret < 0)
		goto err_mtt;
	memset(&eqc, 0, sizeof(eqc));
	/*
	 * F6: polled, never interrupting: the EQ starts "fired" (it raises no
	 * interrupt until armed, and the PMD never arms it) and ignores
	 * overflow, as iPXE hermon_create_eq does. ARMED would raise an
	 * interrupt nobody clears.
	 */
	HERMON_FILL(&eqc, eqc, st, HERMON_EQ_ST_FIRED);
	HERMON_FILL(&eqc, eqc, oi, 1);
	HERMON_FILL(&eqc, eqc, log_eq_size, eq->log_size);
	HERMON_FILL(&eqc, eqc, log2_page_size, 0);
	HERMON_FILL(&eqc, eqc, page_offset, 0);
	HERMON_FILL64(&eqc, eqc, mtt_base_addr_h, mtt_base_addr_l,
		      (uint64_t)eq->mtt_index * hd->caps.mtt_entry_sz);
	ret = hermon_cmd_sw2hw_eq(&hd->cmd, eq->eqn, &eqc);
	if (ret < 0)
		goto err_mtt;
	eq->hw = true;
	ret = hermon_cmd_map_eq(&hd->cmd, eq->eqn, eq->mask, false);
	if (ret < 0)
		goto err_map;
	eq->mapped = true;
	return 0;

err_map:
	if (hermon_cmd_hw2sw_eq(&hd->cmd, eq->eqn, NULL) == 0)
		eq->hw = false;
err_mtt:
	if (!eq->hw)
		hermon_dma_free(&eq->buf);
	return ret;
}

void
hermon_eq_destroy(struct hermon_dev *hd)
{
	struct hermon_eq *eq = &hd->eq;

	if (eq->mapped && hermon_cmd_map_eq(&hd->cmd, eq->eqn, eq->mask, true) == 0)
		eq->mapped = false;
	if (eq->hw && hermon_cmd_hw2sw_eq(&hd->cmd, eq->eqn, NULL) == 0)
		eq->hw = false;
	/* a buffer the device may still write is only freed after reset */
	if (!eq->hw)
		hermon_dma_free(&eq->buf);
}

static void
eq_port_change(struct hermon_dev *hd, const struct hermon_prm_event_queue_entry *e)
{
	uint32_t port = (rte_be_to_cpu_32(e->dw[3]) >> 28) & 3;
	uint32_t sub = HERMON_GET(e, event_queue_entry, event_sub_type);
	struct prdma_async_event ev = { .element.port_num = (uint8_t)port };

	if (port < 1 || port > hd->caps.num_ports) {
		HERMON_LOG(WARNING, "%s: port change event for port %u ignored",
			   hd->pdev->name, port);
		return;
	}
	if (sub == HERMON_PORT_CHANGE_ACTIVE) {
		hd->port[port - 1].state = PRDMA_PORT_ACTIVE;
		ev.type = PRDMA_EVENT_PORT_ACTIVE;
	} else {
		hd->port[port - 1].state = PRDMA_PORT_DOWN;
		ev.type = PRDMA_EVENT_PORT_ERR;
	}
	HERMON_LOG(INFO, "%s: port %u %s", hd->pdev->name, port,
		   sub == HERMON_PORT_CHANGE_ACTIVE ? "active" : "down");
	prdma_dev_raise_event(hd->pdev, &ev);
}

static uint32_t
eqe_word(const struct hermon_prm_event_queue_entry *e, unsigned int i)
{
	return rte_be_to_cpu_32(e->dw[1 + i]);
}

/* QP, CQ and SRQ events -> the library's asynchronous events. */
static void
eq_object_event(struct hermon_dev *hd, uint32_t type,
		const struct hermon_prm_event_queue_entry *e)
{
	uint32_t num = eqe_word(e, 0) & 0xffffff;
	struct prdma_async_event ev;
	struct hermon_qp *qp = NULL;

	memset(&ev, 0, sizeof(ev));
	switch (type) {
	case HERMON_EV_CQ_ERROR:
		if (num >= hd->cqs.n || hd->cq_table[num] == NULL)
			return;
		ev.type = PRDMA_EVENT_CQ_ERR;
		ev.element.cq = &hd->cq_table[num]->pub;
		ev.syndrome = eqe_word(e, 2) & 0xff;
		prdma_dev_raise_event(hd->pdev, &ev);
		return;
	case HERMON_EV_SRQ_LIMIT:
	case HERMON_EV_SRQ_CATAS:
		if (num >= hd->srqs.n || hd->srq_table[num] == NULL)
			return;
		ev.type = type == HERMON_EV_SRQ_LIMIT ? PRDMA_EVENT_SRQ_LIMIT_REACHED :
			PRDMA_EVENT_SRQ_ERR;
		ev.element.srq = &hd->srq_table[num]->pub;
		prdma_dev_raise_event(hd->pdev, &ev);
		return;
	default:
		break;
	}
	if (num < hd->qps.n)
		qp = hd->qp_table[num];
	if (qp == NULL)
		return;
	switch (type) {
	case HERMON_EV_PATH_MIG: ev.type = PRDMA_EVENT_PATH_MIG; break;
	case HERMON_EV_COMM_EST: ev.type = PRDMA_EVENT_COMM_EST; break;
	case HERMON_EV_SQ_DRAINED: ev.type = PRDMA_EVENT_SQ_DRAINED; break;
	case HERMON_EV_WQ_CATAS: ev.type = PRDMA_EVENT_QP_FATAL; break;
	case HERMON_EV_PATH_MIG_FAILED: ev.type = PRDMA_EVENT_PATH_MIG_ERR; break;
	case HERMON_EV_WQ_INVAL_REQ: ev.type = PRDMA_EVENT_QP_REQ_ERR; break;
	case HERMON_EV_WQ_ACCESS_ERR: ev.type = PRDMA_EVENT_QP_ACCESS_ERR; break;
	case HERMON_EV_SRQ_LAST_WQE: ev.type = PRDMA_EVENT_QP_LAST_WQE_REACHED; break;
	default:
		return;
	}
	if (type == HERMON_EV_WQ_CATAS || type == HERMON_EV_WQ_INVAL_REQ ||
	    type == HERMON_EV_WQ_ACCESS_ERR)
		qp->pub.state = PRDMA_QPS_ERR;
	ev.element.qp = &qp->pub;
	ev.qp_num = num;
	prdma_dev_raise_event(hd->pdev, &ev);
}

int
hermon_eq_poll(struct hermon_dev *hd)
{
	struct hermon_eq *eq = &hd->eq;
	uint32_t n = 0;

	if (!eq->hw || eq->buf.va == NULL)
		return 0;
	for (;;) {
		const struct hermon_prm_event_queue_entry *e = eqe_at(eq, eq->ci);
		uint32_t type;

		if (HERMON_GET(e, event_queue_entry, owner) !=
		    ((eq->ci >> eq->log_size) & 1))
			break;
		hermon_barrier_eqe_owner_before_data();
		type = HERMON_GET(e, event_queue_entry, event_type);
		switch (type) {
		case HERMON_EV_PORT_CHANGE:
			eq_port_change(hd, e);
			break;
		case HERMON_EV_LOCAL_CATAS:
			hermon_fw_check_catas(hd);
			break;
		case HERMON_EV_COMP:
			hermon_cq_event(hd, eqe_word(e, 0) & 0xffffff);
			break;
		case HERMON_EV_PATH_MIG: case HERMON_EV_COMM_EST:
		case HERMON_EV_SQ_DRAINED: case HERMON_EV_CQ_ERROR:
		case HERMON_EV_WQ_CATAS: case HERMON_EV_PATH_MIG_FAILED:
		case HERMON_EV_WQ_INVAL_REQ: case HERMON_EV_WQ_ACCESS_ERR:
		case HERMON_EV_SRQ_CATAS: case HERMON_EV_SRQ_LAST_WQE:
		case HERMON_EV_SRQ_LIMIT:
			eq_object_event(hd, type, e);
			break;
		default:
			HERMON_LOG(DEBUG, "%s: event 0x%02x (no object handles it yet)",
				   hd->pdev->name, type);
			break;
		}
		eq->ci = (eq->ci + 1) & 0xffffff;
		n++;
	}
	if (n != 0) {
		hermon_barrier_eqe_before_ci();
		hermon_mmio_write32((uint8_t *)hd->bus.bar[HERMON_BAR_UAR] +
				    HERMON_UAR_EQ_DB_PAGE(eq->eqn) * HERMON_UAR_PAGE_SIZE,
				    HERMON_UAR_EQ_DB(eq->eqn), eq->ci);
	}
	return (int)n;
}
