/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef RDMACM_PRIVATE_H
#define RDMACM_PRIVATE_H

/*
 * prdma's librdmacm-compatible library: rdma_cm ids, event channels and
 * connections of Debian's <rdma/rdma_cma.h>, run over prdma's CM
 * (prdma_cm.h). The verbs objects the program holds come from prdma's
 * libibverbs-compatible library; lib/verbs/prdma_verbs_bridge.h maps them
 * to prdma objects.
 *
 * One lock (rcm_lock) guards every object of this library. One process-
 * wide prdma CM channel carries every id's events; a control thread
 * ("prdma-rdmacm") progresses the CM, takes its events, turns each into an
 * rdma_cm_event and queues it on the channel its id belongs to now, so a
 * program only ever waits on its event channel's fd (an eventfd whose
 * counter is the number of queued events).
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include <prdma.h>
#include <prdma_cm.h>

#include "prdma_verbs_bridge.h"

/*
 * The bridge is looked up when the program runs: it comes from prdma's
 * libibverbs.so.1, and with any other libibverbs these stay NULL and rcm_init()
 * fails with ENODEV, so no call that needs them runs, instead of misreading memory.
 */
#pragma weak prdma_verbs_init
#pragma weak prdma_verbs_context_get
#pragma weak prdma_verbs_context_put
#pragma weak prdma_verbs_context_dev
#pragma weak prdma_verbs_pd
#pragma weak prdma_verbs_cq
#pragma weak prdma_verbs_srq
#pragma weak prdma_verbs_qp
#pragma weak prdma_verbs_qp_sync_state

/* Devices and ports one process can address. */
#define RCM_MAX_DEVS  16
#define RCM_MAX_LISTEN RCM_MAX_DEVS

struct rcm_id;

struct rcm_event {
	struct rdma_cm_event pub;
	TAILQ_ENTRY(rcm_event) next;
	struct rcm_id *owner;              /* the id it is about */
	struct prdma_cm_event *pev;        /* NULL: made here (ADDR_RESOLVED...) */
	uint8_t pdata[PRDMA_CM_MAX_PRIVATE_DATA];
};

TAILQ_HEAD(rcm_event_list, rcm_event);

struct rcm_channel {
	struct rdma_event_channel pub;     /* fd: eventfd, EFD_SEMAPHORE */
	struct rcm_event_list queue;       /* not yet handed out */
	uint32_t ids;
	uint32_t handed;                   /* handed out, not acked */
	uint32_t waiters;                  /* threads in rdma_get_cm_event() */
	bool own;                          /* made for a synchronous id */
	bool dead;                         /* destroyed under a waiter */
	struct rcm_channel *next_dead;
};

struct rcm_id {
	struct rdma_cm_id pub;
	TAILQ_ENTRY(rcm_id) next;          /* rcm_ids */
	struct rcm_channel *ch;
	struct prdma_cm_id *pid;           /* NULL until a device is known */
	struct prdma_cm_id *plisten[RCM_MAX_LISTEN]; /* wildcard listeners */
	uint32_t nb_plisten;
	struct prdma_dev *dev;
	struct rcm_id *listener;           /* a request's listener */
	bool sync;                         /* created with no channel */
	bool bound;
	bool listening;
	bool connected;
	bool disconnected;                 /* DISCONNECTED seen */
	bool destroying;
	uint32_t handed;                   /* its events handed out, not acked */
	struct sockaddr_storage bind_addr;
	struct ibv_sa_path_rec path;
	/* rdma_set_option() */
	uint8_t tos;
	uint8_t ack_timeout;
	/* what a CONNECT_REQUEST asked: rdma_accept(NULL) answers it */
	uint8_t req_resp_res;
	uint8_t req_init_depth;
	/* rdma_create_ep(RAI_PASSIVE): what rdma_get_request creates */
	struct ibv_pd *ep_pd;
	struct ibv_qp_init_attr ep_attr;
	bool ep_has_attr;
	/* CQs rdma_create_qp made (destroyed with the id) */
	bool own_send_cq;
	bool own_recv_cq;
};

extern pthread_mutex_t rcm_lock;
extern pthread_cond_t rcm_cond;
extern TAILQ_HEAD(rcm_id_list, rcm_id) rcm_ids;

static inline int
rcm_fail(int err)
{
	errno = err;
	return -1;
}

/* rdmacm_core.c */
int rcm_init(void);                    /* EAL, devices, the CM thread */
struct prdma_cm_channel *rcm_cm_channel(void);
int rcm_dev_of_addr(const struct sockaddr *sa, struct prdma_dev **dev);
int rcm_dev_route(const struct sockaddr *dst, struct prdma_dev **dev,
		  struct sockaddr_storage *src);
struct prdma_dev *rcm_dev_at(uint32_t i);
uint32_t rcm_dev_count(void);
struct ibv_pd *rcm_default_pd(struct ibv_context *ctx);
socklen_t rcm_addr_len(const struct sockaddr *sa);
bool rcm_addr_is_any(const struct sockaddr *sa);
uint16_t rcm_addr_port(const struct sockaddr *sa);
void rcm_addr_set_port(struct sockaddr *sa, uint16_t port);

/* rdmacm_channel.c */
void rcm_dispatch(struct prdma_cm_event *pev);
struct rcm_event *rcm_event_alloc(struct rcm_id *id, enum rdma_cm_event_type type,
				  int status);
void rcm_event_queue(struct rcm_event *ev);
void rcm_event_free(struct rcm_event *ev);
struct rcm_channel *rcm_channel_new(bool own);
void rcm_channel_free(struct rcm_channel *ch);
void rcm_id_purge(struct rcm_id *id);
struct rcm_event *rcm_wait_event_locked(struct rcm_id *id);
void rcm_ack_locked(struct rcm_event *ev);

/* rdmacm_id.c */
struct rcm_id *rcm_id_new(struct rcm_channel *ch, void *context,
			  enum rdma_port_space ps, enum ibv_qp_type qpt);
int rcm_id_attach(struct rcm_id *id, struct prdma_dev *dev);
void rcm_id_fill_addrs(struct rcm_id *id);
int rcm_sync_wait(struct rcm_id *id, enum rdma_cm_event_type want);
void rcm_sync_release(struct rcm_id *id);
enum prdma_cm_port_space rcm_ps(enum rdma_port_space ps);

/* rdmacm_qp.c */
int rcm_qp_prepare(struct rcm_id *id, struct ibv_qp *qp);
void rcm_qp_sync(struct rcm_id *id);
void rcm_cqs_destroy(struct rcm_id *id);

#endif /* RDMACM_PRIVATE_H */
