/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PRDMA_CM_H
#define PRDMA_CM_H

/**
 * @file
 * prdma connection manager: IB CM over the GSI QP (QP1), with librdmacm's
 * conventions on RoCE (IP-based service IDs, the 36-byte addressing header
 * at the start of the REQ private data), so a prdma endpoint connects to a
 * Linux rdma_cm peer (rping, ucmatose, perftest -R) and to another prdma.
 *
 * Model (as rdma_cm's):
 *  - an event channel queues events; its file descriptor becomes readable
 *    when an event is queued; prdma_cm_get_event() is non-blocking and every
 *    event is handed back with prdma_cm_ack_event();
 *  - a connection id belongs to one channel and is bound to one device port;
 *  - the CM runs when prdma_cm_channel_progress() is called (poll-mode
 *    lcores call it) or, for a channel created with
 *    PRDMA_CM_CHANNEL_F_THREAD, from the channel's own thread;
 *  - the CM moves the application's QP through INIT, RTR and RTS with the
 *    parameters exchanged, and to ERR on disconnect or failure.
 *
 * RC and UC connect with REQ/REP/RTU and disconnect with DREQ/DREP
 * (RDMA_PS_TCP service IDs, 0x0000000001060000 | port). UD ids resolve the
 * peer's QPN and Q_Key with SIDR_REQ/SIDR_REP (RDMA_PS_UDP,
 * 0x0000000001110000 | port).
 *
 * Errors follow prdma.h: 0 or a negative errno with rte_errno set; creators
 * return NULL with rte_errno set. All functions are thread safe.
 */

#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <prdma.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Port spaces (the high half of an IP-based service ID). */
enum prdma_cm_port_space {
	PRDMA_CM_PS_TCP = 0x0106,          /**< RC (and UC) connections */
	PRDMA_CM_PS_UDP = 0x0111,          /**< UD, resolved through SIDR */
	PRDMA_CM_PS_IB = 0x013F,           /**< any QP type */
};

/** The service ID of @p port in port space @p ps. */
#define PRDMA_CM_SERVICE_ID(ps, port) \
	(((uint64_t)(ps) << 16) | (uint64_t)(uint16_t)(port))

/** rdma_cm's default Q_Key for UD ids (RDMA_UDP_QKEY). */
#define PRDMA_CM_UDP_QKEY 0x01234567u

/** Wire limits of the private data (IB CM sizes, less librdmacm's header). */
#define PRDMA_CM_REQ_PRIVATE_DATA      56   /**< REQ: 92 - 36 */
#define PRDMA_CM_REP_PRIVATE_DATA      196
#define PRDMA_CM_REJ_PRIVATE_DATA      148
#define PRDMA_CM_SIDR_REQ_PRIVATE_DATA 180  /**< SIDR_REQ: 216 - 36 */
#define PRDMA_CM_SIDR_REP_PRIVATE_DATA 136
/** Largest private data an event carries. */
#define PRDMA_CM_MAX_PRIVATE_DATA      196

/** IB CM reject reasons an application meets (prdma_cm_event.status). */
enum prdma_cm_rej_reason {
	PRDMA_CM_REJ_NO_QP = 1,
	PRDMA_CM_REJ_NO_RESOURCES = 3,
	PRDMA_CM_REJ_TIMEOUT = 4,
	PRDMA_CM_REJ_UNSUPPORTED = 5,
	PRDMA_CM_REJ_INVALID_SERVICE_ID = 8, /**< nobody listens */
	PRDMA_CM_REJ_INVALID_TRANSPORT = 9,
	PRDMA_CM_REJ_STALE_CONN = 10,
	PRDMA_CM_REJ_INVALID_GID = 12,
	PRDMA_CM_REJ_CONSUMER_DEFINED = 28,  /**< prdma_cm_reject() */
};

enum prdma_cm_event_type {
	/** A peer asks to connect: event->id is a new id (the listener's
	 * channel and context) to accept, reject or destroy; listen_id is
	 * the listener. */
	PRDMA_CM_EVENT_CONNECT_REQUEST = 0,
	/** The connection is up and the QP is in RTS (both sides); for a UD
	 * id, param.ud holds the peer's QPN, Q_Key and path. */
	PRDMA_CM_EVENT_ESTABLISHED,
	/** The peer rejected: status = the reject reason (prdma_cm_rej_reason,
	 * or for SIDR the SIDR_REP status), with the peer's private data. */
	PRDMA_CM_EVENT_REJECTED,
	/** Nobody answered after every retry (status = -ETIMEDOUT). */
	PRDMA_CM_EVENT_UNREACHABLE,
	/** The local side could not complete the exchange (status = the
	 * negative errno, e.g. a QP transition the provider refused); a
	 * REJ was sent to the peer. */
	PRDMA_CM_EVENT_CONNECT_ERROR,
	/** The connection is gone (DREQ/DREP, or the QP entered ERR). */
	PRDMA_CM_EVENT_DISCONNECTED,
	/** The time-wait after a disconnect has passed: the QP may be reused. */
	PRDMA_CM_EVENT_TIMEWAIT_EXIT,
	PRDMA_CM_EVENT_MAX
};

/** Name of an event type ("CONNECT_REQUEST", ...). */
const char *prdma_cm_event_str(enum prdma_cm_event_type type);

/** Connection parameters: inputs to connect/accept, outputs in events. */
struct prdma_cm_conn_param {
	const void *private_data;
	uint16_t private_data_len;         /**< see prdma_cm_connect/accept */
	uint8_t responder_resources;       /**< incoming READ/atomic accepted */
	uint8_t initiator_depth;           /**< outgoing READ/atomic issued */
	uint8_t retry_count;               /**< 0..7 */
	uint8_t rnr_retry_count;           /**< 0..7 (7 = infinite) */
	uint8_t flow_control;              /**< end-to-end flow control */
	uint8_t srq;                       /**< event: the peer's QP uses an SRQ */
	uint32_t qp_num;                   /**< event: the peer's QP number */
	/** Local ACK timeout (4.096 us * 2^t) for the QP and the path;
	 * 0 = derived from the device's ACK delay as rdma_cm does. */
	uint8_t ack_timeout;
	uint8_t min_rnr_timer;             /**< 0 = 12 (0.64 ms) */
	/** CM response timeout (4.096 us * 2^t, 5 bits); 0 = 20 (~4.3 s). */
	uint8_t cm_response_timeout;
	/** REQ/REP/DREQ resends before giving up (4 bits); 0 = 15. */
	uint8_t max_cm_retries;
	uint32_t qkey;                     /**< UD ids: 0 = PRDMA_CM_UDP_QKEY */
};

/** What a UD id learns from SIDR (ESTABLISHED on a UD id). */
struct prdma_cm_ud_param {
	uint32_t qp_num;                   /**< the peer's UD QP */
	uint32_t qkey;
	struct prdma_ah_attr ah_attr;      /**< path to the peer (for prdma_ah_create) */
	const void *private_data;
	uint16_t private_data_len;
};

struct prdma_cm_id;
struct prdma_cm_channel;

/** An event. Owned by the CM until prdma_cm_ack_event(). */
struct prdma_cm_event {
	enum prdma_cm_event_type event;
	int status;                        /**< see prdma_cm_event_type */
	struct prdma_cm_id *id;
	struct prdma_cm_id *listen_id;     /**< CONNECT_REQUEST only */
	union {
		struct prdma_cm_conn_param conn;
		struct prdma_cm_ud_param ud;
	} param;
	/** The private data the param points at (peer's bytes, zero padded
	 * to the message's full private-data size). */
	uint8_t private_data[PRDMA_CM_MAX_PRIVATE_DATA];
};

/**
 * The public head of a connection id. Fields are read-only for the
 * application (context excepted).
 */
struct prdma_cm_id {
	struct prdma_dev *dev;
	struct prdma_cm_channel *channel;
	void *context;                     /**< the application's */
	struct prdma_qp *qp;               /**< set by connect/accept */
	uint16_t ps;                       /**< enum prdma_cm_port_space */
	uint8_t port_num;
	uint8_t reserved0;
	/** Local address once bound, listened or connected (network order). */
	struct sockaddr_storage local_addr;
	/** Peer's address once connected or requested (network order). */
	struct sockaddr_storage peer_addr;
};

/* ------------------------------------------------------------------------ */
/* Event channels                                                            */
/* ------------------------------------------------------------------------ */

/** prdma_cm_channel_create() flags. */
#define PRDMA_CM_CHANNEL_F_THREAD RTE_BIT32(0) /**< run the CM from a thread */

/**
 * Create an event channel. With PRDMA_CM_CHANNEL_F_THREAD, a control
 * thread ("prdma-cm") drives the CM so an application may simply block on
 * prdma_cm_channel_fd(); otherwise the application calls
 * prdma_cm_channel_progress().
 */
struct prdma_cm_channel *prdma_cm_channel_create(uint32_t flags);

/** Destroy a channel: -EBUSY while ids use it or events are unacked. */
int prdma_cm_channel_destroy(struct prdma_cm_channel *ch);

/**
 * A file descriptor (an eventfd) that is readable while the channel has a
 * queued event. Do not read or close it; prdma_cm_get_event() drains it.
 */
int prdma_cm_channel_fd(struct prdma_cm_channel *ch);

/**
 * Run the CM once for every device the channel's ids use: receive CM
 * messages, fire timers (resends, time-waits). Returns the amount of work
 * done (>= 0). Any channel may be progressed from any thread.
 */
int prdma_cm_channel_progress(struct prdma_cm_channel *ch);

/**
 * Take the oldest event (non-blocking).
 * @return 0 with *@p event set, -EAGAIN when none is queued.
 */
int prdma_cm_get_event(struct prdma_cm_channel *ch, struct prdma_cm_event **event);

/** Hand an event back (its id may be destroyed only after this). */
int prdma_cm_ack_event(struct prdma_cm_event *event);

/* ------------------------------------------------------------------------ */
/* Connection ids                                                            */
/* ------------------------------------------------------------------------ */

/**
 * Create an id on port @p port_num of @p dev in port space @p ps.
 * The first id on a port creates the port's GSI QP (-ENOTSUP if the
 * provider has none).
 */
struct prdma_cm_id *prdma_cm_id_create(struct prdma_cm_channel *ch,
				       struct prdma_dev *dev, uint8_t port_num,
				       enum prdma_cm_port_space ps, void *context);

/**
 * Destroy an id. A connection still up is disconnected (one DREQ, no
 * wait), a request not yet answered is rejected, and the id's queued
 * events are dropped. -EBUSY while an event about it is unacked.
 */
int prdma_cm_id_destroy(struct prdma_cm_id *id);

/**
 * Bind the local address (IPv4 or IPv6; the port is only used as the
 * source port of a connect). The address must be one of the port's GIDs
 * (-EADDRNOTAVAIL); INADDR_ANY / in6addr_any picks the first GID of that
 * family. Optional before connect (the first IPv4 GID is used).
 */
int prdma_cm_bind(struct prdma_cm_id *id, const struct sockaddr *addr);

/**
 * Listen on @p addr (a specific local address or the wildcard, and a
 * port != 0). -EADDRINUSE when another id listens on the same service.
 * @p backlog (0 = 128) bounds the requests the listener holds until they
 * are established: not answered yet, or accepted and waiting for the
 * peer's RTU (or for its MAC); further requests are rejected with
 * NO_RESOURCES and counted in prdma_cm_stats.rx_refused.
 */
int prdma_cm_listen(struct prdma_cm_id *id, const struct sockaddr *addr,
		    int backlog);

/**
 * Connect to @p dst (address and port) with @p qp (RC or UC in RESET or
 * INIT for PS_TCP/PS_IB, UD for PS_UDP). @p param may be NULL (defaults:
 * no private data, 0 READ/atomic, retries 7/7). private_data_len above the
 * device's max_caller_data (PRDMA_CM_REQ_PRIVATE_DATA at most; SIDR:
 * PRDMA_CM_SIDR_REQ_PRIVATE_DATA) gives -EINVAL.
 * The outcome is an event: ESTABLISHED, REJECTED, UNREACHABLE or
 * CONNECT_ERROR. Never waits for the network: when the peer's MAC is not
 * known within 1 s, UNREACHABLE with status -EHOSTUNREACH.
 */
int prdma_cm_connect(struct prdma_cm_id *id, struct prdma_qp *qp,
		     const struct sockaddr *dst,
		     const struct prdma_cm_conn_param *param);

/**
 * Accept a CONNECT_REQUEST with @p qp (in RESET or INIT): moves it to RTS
 * and sends the REP (SIDR_REP for UD). RC/UC: when the peer's MAC is not
 * known yet, both happen once it is, or the id gets UNREACHABLE
 * (-EHOSTUNREACH) after 1 s. private_data_len above the device's
 * max_callee_data (PRDMA_CM_REP_PRIVATE_DATA at most; SIDR:
 * PRDMA_CM_SIDR_REP_PRIVATE_DATA) gives -EINVAL. ESTABLISHED follows when
 * the peer's RTU arrives (a UD id gets none: SIDR ends with the SIDR_REP).
 */
int prdma_cm_accept(struct prdma_cm_id *id, struct prdma_qp *qp,
		    const struct prdma_cm_conn_param *param);

/**
 * Reject a CONNECT_REQUEST with @p reason (0 = CONSUMER_DEFINED) and up to
 * PRDMA_CM_REJ_PRIVATE_DATA bytes of private data (SIDR: the SIDR_REP
 * status "rejected" and up to PRDMA_CM_SIDR_REP_PRIVATE_DATA).
 */
int prdma_cm_reject(struct prdma_cm_id *id, const void *private_data,
		    uint16_t private_data_len, uint16_t reason);

/**
 * Disconnect an established connection (or one whose REP is sent): the QP
 * goes to ERR and a DREQ is sent; DISCONNECTED follows when the DREP
 * arrives or the resends run out, then TIMEWAIT_EXIT.
 */
int prdma_cm_disconnect(struct prdma_cm_id *id);

/**
 * Make the CM forget @p id's QP before the application destroys it
 * (librdmacm's rdma_destroy_qp() on a connected id): the CM never touches
 * it again, yet still answers the peer's DREQ for that connection. A
 * handshake still under way is ended (REJ). 0 or -EINVAL.
 */
int prdma_cm_id_release_qp(struct prdma_cm_id *id);

/**
 * Before the process exits: let what the CM still owes its peers leave
 * (librdmacm's CM lives in the kernel and outlives the process; prdma's
 * dies with it). Runs the CM, for at most @p max_ms, until no id waits
 * for the answer to its DREQ and every CM message posted (a DREQ, the
 * DREP answering a peer's DREQ, a REJ) has completed on its GSI QP, none
 * waiting for its peer's MAC. 0 when all is out, -ETIMEDOUT when the bound
 * passed first (a peer that vanished), -EBUSY when the CM stayed busy in
 * another thread for the whole bound.
 */
int prdma_cm_quiesce(unsigned int max_ms);

/**
 * The process is exiting: what the kernel does when it closes an exiting
 * process's rdma_cm file. Every connection still established (or whose
 * REP is out) is disconnected (a DREQ, its QP to ERR), then the CM is
 * quiesced as by prdma_cm_quiesce(), for at most @p max_ms in all. The
 * ids stay; nothing may use the CM afterwards but to destroy them.
 */
int prdma_cm_exit(unsigned int max_ms);

/* ------------------------------------------------------------------------ */
/* Statistics                                                                */
/* ------------------------------------------------------------------------ */

/** The CM's message statistics for one device id (cumulative). */
struct prdma_cm_stats {
	uint64_t tx_mads;                  /**< CM MADs sent (resends included) */
	uint64_t rx_mads;                  /**< CM MADs received */
	uint64_t tx_resends;               /**< REQ/REP/DREQ/SIDR_REQ resent on timeout */
	uint64_t tx_errors;                /**< MADs that could not be posted */
	uint64_t rx_malformed;             /**< dropped: short, bad class/version/
					    *   method/attribute, bad field */
	uint64_t rx_unmatched;             /**< dropped: no id matches */
	uint64_t rx_duplicates;            /**< duplicate REQ/REP/DREQ/SIDR_REQ */
	uint64_t ids;                      /**< live ids on the device now */
	uint64_t tx_unresolved;            /**< MADs dropped: the peer's MAC was not
					    *   known within 1 s, the provider said
					    *   it cannot be (EHOSTUNREACH), or 32
					    *   MADs were already waiting for theirs */
	uint64_t rx_refused;               /**< REQ/SIDR_REQ refused with NO_RESOURCES:
					    *   the listener's backlog or half-open
					    *   limit was reached */
};

/** Read the CM statistics of @p dev. */
int prdma_cm_stats_get(struct prdma_dev *dev, struct prdma_cm_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* PRDMA_CM_H */
