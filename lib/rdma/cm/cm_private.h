/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef CM_PRIVATE_H
#define CM_PRIVATE_H

/*
 * Connection manager internals. One lock (cm_lock) guards every CM object:
 * the CM is control path, its message rate is low, and one lock keeps the
 * user calls, prdma_cm_channel_progress() on any lcore and the channels'
 * threads from ever seeing half a state change.
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_errno.h>
#include <rte_log.h>

#include "prdma_provider.h"
#include "prdma_cm.h"
#include "cm_mad.h"

extern int prdma_cm_logtype;
#define CM_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, prdma_cm_logtype, "prdma_cm: " fmt "\n", \
		##__VA_ARGS__)

/* GSI QP resources per port. */
#define CM_RECV_SLOTS     64
#define CM_SEND_SLOTS     64
#define CM_GRH_SIZE       40
#define CM_RECV_SLOT_SIZE 320            /* GRH + MAD, rounded up */
#define CM_AH_CACHE       32
#define CM_SEND_TAG       (UINT64_C(1) << 32) /* wr_id bit of a send slot */
/* MADs waiting for their peer's MAC (never waited for under cm_lock). */
#define CM_TXQ_SIZE        32
#define CM_RESOLVE_MS      1000             /* then the MAD is dropped, counted */
#define CM_RESOLVE_POLL_US 500              /* between two looks at one MAD */

/* rdma_cm's defaults. */
#define CM_DEF_RESPONSE_TIMEOUT 20
#define CM_DEF_MAX_RETRIES      15
#define CM_DEF_LIFETIME         18
#define CM_DEF_MIN_RNR_TIMER    12
#define CM_MRA_SERVICE_TIMEOUT  24
#define CM_DEF_BACKLOG          128
#define CM_HOP_LIMIT            64
#define CM_PKEY_DEFAULT         0xffff

/*
 * Bounds on the timers a peer's REQ chooses for us (F5 of the security
 * review). The REP resend interval is the REQ's local CM response timeout
 * within [10, 20] (4.2 ms .. 4.3 s), so a half-open connection lives at
 * most 16 x 4.3 s; the packet lifetime behind our MRA waits and the
 * time-wait is at most 19 (the time-wait at most 2^20 x 4.096 us = 4.3 s);
 * a peer's MRA service timeout at most 24 (68.7 s).
 */
#define CM_MIN_RESPONSE_TIMEOUT 10
#define CM_MAX_RESPONSE_TIMEOUT 20
#define CM_MAX_LIFETIME         19
#define CM_MAX_TIMEWAIT         20
#define CM_MAX_MRA_TIMEOUT      24

/* Every agent's MADs and timers, once (cm_lock held); the work done. */
int cm_progress_locked(void);

/* How long a destroy waits for the DREP of the id's DREQ (prdma_cm_id_destroy). */
#define CM_DESTROY_LINGER_MS 250

enum cm_state {
	CM_IDLE = 0,
	CM_LISTEN,
	CM_REQ_SENT,          /* active: REQ out, waiting for REP */
	CM_REQ_RCVD,          /* passive: CONNECT_REQUEST given to the app */
	CM_REP_SENT,          /* passive: REP out, waiting for RTU */
	CM_ESTABLISHED,
	CM_DREQ_SENT,
	CM_TIMEWAIT,
	CM_SIDR_REQ_SENT,
	CM_SIDR_REQ_RCVD,
	CM_SIDR_DONE,         /* passive: SIDR_REP sent (kept for duplicates) */
	CM_CLOSED,            /* rejected, unreachable, error or time-wait over */
};

struct cm_ah {
	union prdma_gid dgid;
	uint8_t sgid_index;
	struct prdma_ah *ah;
};

/* A MAD parked until the provider knows its peer's MAC. */
struct cm_tx_wait {
	union prdma_gid dgid;
	uint8_t sgid_index;
	bool dup;                          /* test hook: send it twice */
	uint64_t deadline;                 /* TSC: give up then */
	uint64_t next_try;
	uint8_t mad[CM_MAD_SIZE];
};

/*
 * The REJ a passive id sent for a REQ, kept after the application
 * destroyed the id for as long as the peer may still resend that REQ: a
 * late copy is answered with the REJ again, not taken for a new
 * connection. Bounded: a full table drops its oldest record (then a late
 * copy is a new connection again, as before the record existed).
 */
#define CM_REJ_MEMO 32

struct cm_rej_memo {
	uint64_t expires;                  /* TSC; 0: a free slot */
	uint32_t remote_id;                /* the REQ's local comm ID */
	uint64_t remote_guid;              /* and its CA GUID */
	union prdma_gid dgid;
	uint8_t sgid_index;
	uint8_t mad[CM_MAD_SIZE];          /* the REJ */
};

/* The CM on one device port: its GSI QP and MAD buffers. */
struct cm_agent {
	TAILQ_ENTRY(cm_agent) next;
	struct prdma_dev *dev;
	uint8_t port_num;
	uint8_t ack_delay;                 /* the device's local CA ACK delay */
	uint8_t active_mtu;
	uint32_t refs;                     /* ids on this port */
	uint32_t tid_hi;
	uint64_t node_guid;
	uint16_t max_caller;               /* REQ user private data */
	uint16_t max_callee;               /* REP private data */
	uint32_t max_rd_atom;
	uint32_t max_init_rd_atom;
	struct prdma_pd *pd;
	struct prdma_cq *scq;
	struct prdma_cq *rcq;
	struct prdma_qp *qp;
	struct prdma_mr *mr;
	uint8_t *buf;                      /* recv slots, then send slots */
	uint32_t send_free[CM_SEND_SLOTS];
	uint32_t nb_send_free;
	uint32_t ah_next;                  /* round-robin eviction */
	struct cm_ah ahs[CM_AH_CACHE];
	struct cm_tx_wait txq[CM_TXQ_SIZE];
	uint32_t nb_txq;
	struct cm_rej_memo rej_memo[CM_REJ_MEMO];
	uint32_t rej_memo_next;            /* round-robin: the oldest */
	TAILQ_HEAD(, cm_id_priv) ids;
};

/* An id: the public head plus its connection. */
struct cm_id_priv {
	struct prdma_cm_id pub;
	TAILQ_ENTRY(cm_id_priv) next;      /* agent->ids */
	struct cm_agent *agent;
	enum cm_state state;
	uint32_t events_out;               /* events handed out, not acked */
	bool destroying;                   /* lingering in its destroy: no events */
	bool passive;
	bool bound;
	bool established;                  /* counted in ActiveConnection */
	bool pending_counted;              /* in listener->pending */

	/* listener */
	struct cm_id_priv *listener;       /* a request's listener */
	uint32_t backlog;
	uint32_t pending;                  /* requests not yet answered */

	/* addressing */
	union prdma_gid sgid;
	union prdma_gid dgid;
	uint8_t sgid_index;
	uint16_t src_port;                 /* rdma_cm ports, host order */
	uint16_t dst_port;
	uint64_t service_id;

	/* connection */
	uint32_t local_id;
	uint32_t remote_id;
	uint64_t remote_guid;
	uint32_t remote_qpn;
	uint32_t qp_num;                   /* our QP's, kept past a release */
	bool has_qp_num;
	uint64_t tid;
	uint32_t rq_psn;                   /* announced in our REQ/REP */
	uint32_t sq_psn;                   /* the peer's announcement */
	uint8_t transport;                 /* CM_TRANSPORT_* */
	uint8_t resp_res;                  /* our max_dest_rd_atomic */
	uint8_t init_depth;                /* our max_rd_atomic */
	uint8_t retry_count;
	uint8_t rnr_retry;
	uint8_t ack_timeout;
	uint8_t lifetime;                  /* packet lifetime (ack timeout - 1) */
	uint8_t min_rnr_timer;
	uint8_t path_mtu;
	uint8_t flow_control;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint32_t flow_label;
	uint32_t qkey;                     /* UD */
	uint8_t cm_timeout;                /* ours: REQ's response timeouts */
	uint8_t peer_cm_timeout;           /* the peer's, from its REQ */
	uint8_t max_retries;
	uint8_t retries_left;

	/* an accept waiting for the peer's MAC (cm_passive_path_retry) */
	bool path_wait;
	uint64_t path_deadline;
	uint64_t path_next;

	/* timer: 0 when off */
	uint64_t deadline;
	uint64_t interval;

	/* the last message sent, for resends and duplicates */
	uint8_t mad[CM_MAD_SIZE];
	bool mad_valid;
	bool rej_kept;                     /* mad is the REJ of the peer's REQ */
};

#define CM_ID(p) ((struct cm_id_priv *)(p))

struct cm_event_priv {
	struct prdma_cm_event pub;
	TAILQ_ENTRY(cm_event_priv) next;
	struct prdma_cm_channel *ch;
};

struct prdma_cm_channel {
	int efd;
	uint32_t flags;
	uint32_t ids;
	uint32_t unacked;
	TAILQ_HEAD(, cm_event_priv) events;
	pthread_t thread;
	bool has_thread;
	volatile bool stop;
};

/* cm_core.c: the lock, statistics, helpers */
extern pthread_mutex_t cm_lock;
extern TAILQ_HEAD(cm_agent_list, cm_agent) cm_agents;
enum cm_stat {
	CM_ST_TX, CM_ST_RX, CM_ST_RESEND, CM_ST_TX_ERR, CM_ST_MALFORMED,
	CM_ST_UNMATCHED, CM_ST_DUP, CM_ST_UNRESOLVED, CM_ST_REFUSED, CM_ST_IDS,
};
void cm_stat_add(const struct prdma_dev *dev, enum cm_stat s, int64_t delta);
uint64_t cm_now(void);
uint64_t cm_time_tsc(uint8_t t);      /* 4.096 us * 2^t in TSC cycles */
uint8_t cm_ack_timeout(uint8_t ca_ack_delay, uint8_t lifetime);
static inline int
cm_err(int err)
{
	rte_errno = err;
	return -err;
}

/* cm_agent.c: the GSI QP of a port */
struct cm_agent *cm_agent_get(struct prdma_dev *dev, uint8_t port_num);
void cm_agent_put(struct cm_agent *ag);
int cm_agent_send(struct cm_agent *ag, const union prdma_gid *dgid,
		  uint8_t sgid_index, const uint8_t mad[CM_MAD_SIZE]);
int cm_agent_poll(struct cm_agent *ag);
int cm_agent_flush(struct cm_agent *ag);
/* Every MAD posted has completed and none waits for a MAC (reaps, flushes). */
bool cm_agent_idle(struct cm_agent *ag);
/* How long a dying agent or a destroy waits for the MADs to leave. */
#define CM_DRAIN_US 50000
/* The TSC CM_DRAIN_US from now. */
uint64_t cm_agent_drain_end(void);
/* 0 when MADs and QPs can reach @dgid now, -EAGAIN while it resolves. */
int cm_agent_path_ready(struct cm_agent *ag, const union prdma_gid *dgid,
			uint8_t sgid_index);
uint32_t cm_alloc_comm_id(void);

/* cm_addr.c: addresses, GIDs, ports */
int cm_sockaddr_to_gid(const struct sockaddr *sa, union prdma_gid *gid,
		       uint16_t *port, bool *any);
void cm_gid_to_sockaddr(const union prdma_gid *gid, uint16_t port,
			struct sockaddr_storage *ss);
bool cm_gid_is_v4(const union prdma_gid *gid);
int cm_find_sgid(struct cm_agent *ag, const union prdma_gid *want, bool any,
		 bool v4, uint8_t *index, union prdma_gid *gid);
uint16_t cm_ephemeral_port(void);
void cm_gid_to_cma_ip(const union prdma_gid *gid, uint8_t ip[16]);
void cm_cma_ip_to_gid(const uint8_t ip[16], uint8_t ip_version,
		      union prdma_gid *gid);
bool cm_gid_from_grh(const uint8_t grh[CM_GRH_SIZE], union prdma_gid *gid);

/* cm_event.c: event queueing */
struct cm_event_priv *cm_event_new(struct cm_id_priv *id,
				   enum prdma_cm_event_type type, int status);
void cm_event_queue(struct cm_event_priv *ev);
void cm_event_purge(struct cm_id_priv *id);

/* cm_qp.c: moving the application's QP */
int cm_qp_init(struct cm_id_priv *id, struct prdma_qp *qp);
int cm_qp_rtr_rts(struct cm_id_priv *id);
void cm_qp_error(struct cm_id_priv *id);

/* cm_conn.c: what every connection shares */
void cm_recv_msg(struct cm_agent *ag, struct cm_msg *msg,
		 const union prdma_gid *src, bool have_src);
struct cm_id_priv *cm_find_by_local(struct cm_agent *ag, uint32_t local_id);
uint8_t cm_reply_sgid(struct cm_agent *ag, const uint8_t gid[16]);
int cm_msg_send(struct cm_id_priv *id, const struct cm_msg *msg, bool keep);
int cm_send_stored(struct cm_id_priv *id);
int cm_send_rej(struct cm_agent *ag, const union prdma_gid *dgid,
		uint8_t sgid_index, uint64_t tid, uint32_t local_id,
		uint32_t remote_id, uint8_t msg_rejected, uint16_t reason,
		const void *pdata, uint16_t len, uint8_t *keep);
int cm_id_send_rej(struct cm_id_priv *id, uint8_t msg_rejected, uint16_t reason,
		   const void *pdata, uint16_t len, bool keep);
void cm_timer_start(struct cm_id_priv *id, uint64_t interval, uint8_t retries);
void cm_timer_stop(struct cm_id_priv *id);
void cm_timer_fire(struct cm_id_priv *id);
uint64_t cm_active_interval(const struct cm_id_priv *id);
uint64_t cm_passive_interval(const struct cm_id_priv *id);
void cm_set_established(struct cm_id_priv *id, bool up);
void cm_unpend(struct cm_id_priv *id);
int cm_event_simple(struct cm_id_priv *id, enum prdma_cm_event_type type,
		    int status);
void cm_conn_fail(struct cm_id_priv *id, enum prdma_cm_event_type type,
		  int status, const uint8_t *pdata, uint16_t len);
void cm_recv_rej(struct cm_agent *ag, const struct cm_msg *msg);
void cm_recv_mra(struct cm_agent *ag, const struct cm_msg *msg);
void cm_conn_abort(struct cm_id_priv *id);
void cm_unresolved(struct cm_id_priv *id);
struct cm_id_priv *cm_child_new(struct cm_id_priv *listener);
void cm_id_free(struct cm_id_priv *id);

/* cm_active.c: the connecting side */
int cm_active_connect(struct cm_id_priv *id, const struct prdma_cm_conn_param *p);
void cm_active_recv_rep(struct cm_agent *ag, const struct cm_msg *msg);

/* cm_passive.c: the listening side */
void cm_passive_recv_req(struct cm_agent *ag, const struct cm_msg *msg);
void cm_passive_recv_rtu(struct cm_agent *ag, const struct cm_msg *msg);
int cm_passive_accept(struct cm_id_priv *id, const struct prdma_cm_conn_param *p);
int cm_passive_reject(struct cm_id_priv *id, const void *pdata, uint16_t len,
		      uint16_t reason);
struct cm_id_priv *cm_find_listener(struct cm_agent *ag, uint64_t service_id,
				    const struct cm_cma_hdr *h);
uint32_t cm_listener_load(struct cm_agent *ag, const struct cm_id_priv *listener);
void cm_passive_path_retry(struct cm_id_priv *id);
void cm_passive_memo_rej(struct cm_id_priv *id);

/* cm_disc.c: disconnection and time-wait */
int cm_disc_send_dreq(struct cm_id_priv *id, bool retry);
void cm_disc_timewait(struct cm_id_priv *id);
void cm_disc_recv_dreq(struct cm_agent *ag, const struct cm_msg *msg,
		       const union prdma_gid *src, bool have_src);
void cm_disc_recv_drep(struct cm_agent *ag, const struct cm_msg *msg);

/* cm_sidr.c: UD service ID resolution */
int cm_sidr_connect(struct cm_id_priv *id, const struct prdma_cm_conn_param *p);
int cm_sidr_accept(struct cm_id_priv *id, const struct prdma_cm_conn_param *p);
int cm_sidr_reject(struct cm_id_priv *id, const void *pdata, uint16_t len);
void cm_sidr_recv_req(struct cm_agent *ag, const struct cm_msg *msg,
		      const union prdma_gid *src, bool have_src);
void cm_sidr_recv_rep(struct cm_agent *ag, const struct cm_msg *msg);

/* test hook (prdma_cm_test.h) */
int cm_test_tx_action(struct prdma_dev *dev, uint16_t attr_id);
void cm_test_tx_hold(const struct cm_agent *ag, const union prdma_gid *dgid,
		     uint8_t sgid_index, const uint8_t mad[CM_MAD_SIZE]);

#endif /* CM_PRIVATE_H */
