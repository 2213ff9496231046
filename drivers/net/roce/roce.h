/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef ROCE_H
#define ROCE_H

/*
 * The software RoCEv2 provider: private structures and prototypes, grouped
 * by the file that defines them.
 *
 * Model: the application's post calls write work queue entries into per-QP
 * rings and its poll calls read completions from per-CQ rings; the engines
 * of a device (engines=, one by default) move everything else (transmit,
 * receive, timers, completions). A QP, and the CQs and SRQ it uses, belong
 * to one engine for life; engine i owns the QP slots with slot % N == i,
 * its rx and tx queue i. Each engine is guarded by a try-acquire flag:
 * whoever gets it runs a step, nobody ever waits for it on the fast path.
 * Control operations take every engine's flag, in index order (waiting for
 * them), so no engine ever sees a half-built object.
 */

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "prdma_provider.h"
#include "prdma_roce.h"
#include "roce_wire.h"
#include "roce_mcast.h"

extern int roce_logtype;
#define ROCE_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, roce_logtype, "roce: " fmt "\n", ##__VA_ARGS__)

/* Limits this provider enforces (reported by dev_query). */
/*
 * QPs: max_qp= (default ROCE_DEFAULT_MAX_QP) sizes the QP table at probe to
 * the power of two above max_qp + 2 (QPN 0 unused, QPN 1 the GSI QP); a
 * QPN's low bits index it, the rest change on every reuse of the slot. The
 * ceiling keeps at least 4 such bits in a 24-bit QPN.
 */
#define ROCE_DEFAULT_MAX_QP ((1u << 15) - 2)
#define ROCE_MAX_QP_LIMIT   ((1u << 20) - 2)
#define ROCE_QPN_BITS       24
#define ROCE_MAX_QP_WR      4096
#define ROCE_MAX_SGE        8
#define ROCE_MAX_INLINE     256
#define ROCE_MAX_CQ         1024
#define ROCE_MAX_CQE        65536
#define ROCE_MAX_SRQ        256
#define ROCE_MAX_SRQ_WR     4096
#define ROCE_MAX_KEYS       8192          /* key table: MRs and MWs */
#define ROCE_MAX_MR         4096
#define ROCE_MAX_MW         (ROCE_MAX_KEYS - 1 - ROCE_MAX_MR)
#define ROCE_MAX_PD         65536
#define ROCE_MAX_AH         65536
#define ROCE_MAX_RD_ATOMIC  16            /* responder resources per QP */
/*
 * READs and atomics a requester may have outstanding: only a count (the
 * send queue holds their state), so as many as rxe and ConnectX allow.
 * perftest sets max_rd_atomic to the peer's max_qp_rd_atom (rxe: 128),
 * which a smaller bound here refused at RTS.
 */
#define ROCE_MAX_INIT_RD_ATOMIC 128
#define ROCE_MAX_MSG        (1u << 31)
/* Responses queued by one QP: 2 * (max_dest_rd_atomic + 1) rounded up to a
 * power of two, READ/atomic answers and the ACKs between them; 64 at most. */
#define ROCE_OUTQ_SIZE(rd)  rte_align32pow2(2 * ((rd) + 1))
#define ROCE_ACK_EVERY      64            /* AckReq every N packets of long messages */
#define ROCE_DEFAULT_BURST  32
#define ROCE_MAX_BURST      512
#define ROCE_TXQ_SIZE       1024          /* per-device staging of frames to send */
#define ROCE_RING_SIZE      1024          /* ring mode: each direction */
#define ROCE_NB_MBUF        8191
#define ROCE_MBUF_DATAROOM  (RTE_PKTMBUF_HEADROOM + 4096 + 256)
#define ROCE_UD_HOP_LIMIT   64
#define ROCE_TX_STASH       32            /* mbufs allocated ahead for frames */
#define ROCE_RX_CQS         8             /* CQs a receive burst publishes at its end */
#define ROCE_IDLE_TSC_STEPS 8             /* idle steps between timer checks */
#define ROCE_PEER_IDLE_DIV  20000         /* a side idle for 1/20000 s = 50 us */
#define ROCE_ZC_REFS        4096          /* zero-copy frames in flight per device */
#define ROCE_ZC_MIN_DEFAULT 1024          /* payloads from this size leave zero-copy */
#define ROCE_ZC_WAIT_MS     100           /* dereg/destroy wait for held frames */
/*
 * ACK coalescing (roce_engine.c): a plain ACK may wait up to ack_delay_us
 * (this by default) for a later one to replace it or for a request of its
 * QP to leave with it, never for more than ROCE_ACK_COUNT packets.
 */
#define ROCE_ACK_DELAY_US   16
#define ROCE_ACK_COUNT      16            /* packets one ACK may cover at most */
/* An AckReq ACK of one-way traffic waits only this long (an answer of its
 * QP, if one comes, takes that long to be posted). */
#define ROCE_ACK_GRACE_US   2
/* Inline progress: how often the ACK watch looks for a held ACK that an
 * application which stopped polling left behind (roce_ack_watch.c): every
 * ROCE_ACK_WATCH_US once the engines are idle, backing off to at most
 * ROCE_ACK_WATCH_MAX_US while the application keeps stepping them (each
 * look wakes a thread that takes a CPU from a polling lcore). A held ACK
 * leaves at most two of the longest looks after the last step. */
#define ROCE_ACK_WATCH_US     50
#define ROCE_ACK_WATCH_MAX_US 1000
/* Tail-loss probe (roce_req.c): after PTO = max(2 x SRTT, SRTT + 4 x
 * RTTVAR) + the larger of this and ack_delay_us, at least ROCE_PTO_MIN_US,
 * the last unacknowledged packet is sent again; none before a first RTT
 * sample. */
#define ROCE_PTO_SLACK_US   4
#define ROCE_PTO_MIN_US     10
/*
 * Retransmission backoff (roce_req.c): each ACK timeout in a row without
 * an answer doubles the next wait, up to the interval of timeout exponent
 * ROCE_RTO_BACKOFF_EXP (67 ms, perftest's default) unless the QP's own is
 * longer; any answer resets it. A soft responder answers only while its
 * process runs, and a process on a shared CPU can be off it for tens of
 * milliseconds: with timeout 10 (4.2 ms) and retry_cnt 7 the fixed timer
 * gave up after 34 ms of silence, the backoff after 331 ms, about what
 * timeout 14 tolerates (537 ms). A lost frame still costs one plain timeout.
 */
#define ROCE_RTO_BACKOFF_EXP   14
/* engines=: at most this many per device (a bound for the handoff rings). */
#define ROCE_MAX_ENGINES    8
#define ROCE_HANDOFF_SIZE   1024          /* frames one engine hands another */

/* ------------------------------------------------------------------ */
/* Configuration (roce_args.c)                                         */
/* ------------------------------------------------------------------ */

struct roce_cfg {
	char ring[32];            /* ring mode: link name, "" otherwise */
	int side;                 /* ring mode: 0 or 1 */
	int port;                 /* port mode: ethdev port id, -1 otherwise */
	int has_ip;
	union prdma_gid gid;      /* ip= as a GID */
	int has_mac;
	struct rte_ether_addr mac;
	uint8_t mtu;              /* enum prdma_mtu cap, 0 = automatic */
	char pcap[PATH_MAX];
	uint8_t progress_thread;
	uint8_t progress_hybrid;  /* with progress_thread: pollers step too */
	char name[PRDMA_DEV_NAME_LEN];
	uint16_t burst;
	char iface[32];           /* kernel interface of the port, "" = find it */
	uint8_t roce_version;     /* 1 or 2 */
	uint8_t ecn;              /* send ECT(0) */
	uint8_t cc;               /* react to CNPs (DCQCN-style) */
	uint32_t cnp_interval_us; /* at most one CNP per QP per interval */
	uint32_t ack_delay_us;    /* hold a lone ACK this long for coalescing, 0 = off */
	uint8_t ack_delay_set;    /* given in devargs: AckReq ACKs wait for it too */
	uint8_t tlp;              /* RC tail-loss probe (roce_req.c) */
	uint8_t rto_backoff;      /* ACK timer backs off while nothing answers */
	uint32_t fault_rate[PRDMA_ROCE_FAULT_DIR_NB][PRDMA_ROCE_FAULT_KIND_NB];
	uint64_t fault_seed;
	uint32_t fault_delay_us;
	uint8_t mcast_loop;       /* own multicast sends reach own QPs */
	uint8_t igmp;             /* send IGMPv2/MLDv2 membership reports */
	uint32_t max_qp;          /* QPs the device holds (QP table size) */
	uint8_t zc;               /* 0 copy, 1 zero-copy (or fail), 2 if the port can */
	uint32_t zc_min;          /* smallest payload sent zero-copy */
	uint32_t engines;         /* engines (and port queues) per device */
	uint8_t nb_engine_cpus;   /* engine_cpus= given: one per engine */
	uint16_t engine_cpus[ROCE_MAX_ENGINES]; /* progress thread i runs on this CPU */
	uint8_t flow;             /* rte_flow steering: ROCE_FLOW_* (roce_flow.c) */
};

/* flow=: never, required (the probe fails without), where the port takes them */
#define ROCE_FLOW_OFF  0
#define ROCE_FLOW_ON   1
#define ROCE_FLOW_AUTO 2

/* The keys accepted in devargs (NULL terminated). */
extern const char *const roce_args_keys[];
int roce_args_parse(const char *args, struct roce_cfg *cfg);

/* ------------------------------------------------------------------ */
/* Counters kept by the provider                                       */
/* ------------------------------------------------------------------ */

/* Device-level drops that have no counter in prdma_counters.h. */
struct roce_dev_drops {
	uint64_t not_roce;        /* non-RoCE frames (ARP, other UDP, ...) */
	uint64_t malformed;       /* lengths, versions, truncation */
	uint64_t bad_opcode;
	uint64_t bad_icrc;
	uint64_t wrong_ip;        /* destination IP not ours, or an RC/UC
				   * frame whose source is not the QP's peer */
	uint64_t unknown_qp;      /* no such QP, or the wrong type */
	uint64_t bad_pkey;
	uint64_t bad_qkey;
	uint64_t ud_no_wqe;       /* UD/UC receive without a WQE */
	uint64_t qp_state;        /* QP cannot receive in its state */
	uint64_t tx_no_mbuf;      /* mempool empty when building */
	uint64_t tx_purged;       /* queued frames of a destroyed QP the port
				   * never took (roce_zc_purge_txq) */
	uint64_t cq_overrun;
};

struct roce_stats {
	uint64_t dev[PRDMA_DEV_CNT_MAX];   /* indexed by enum prdma_dev_counter */
	struct roce_dev_drops drop;
};

/* ------------------------------------------------------------------ */
/* Fault injection (roce_fault.c)                                      */
/* ------------------------------------------------------------------ */

#define ROCE_FAULT_HOLD 256       /* frames held back by DELAY, per direction */

struct roce_fault_held {
	struct rte_mbuf *m;
	uint64_t due;             /* TSC */
};

struct roce_fault_dir {
	uint8_t on;               /* a rate is set or frames are held */
	uint32_t rate[PRDMA_ROCE_FAULT_KIND_NB];   /* ppm */
	uint64_t rng[PRDMA_ROCE_FAULT_KIND_NB];
	uint64_t hits[PRDMA_ROCE_FAULT_KIND_NB];
	uint64_t delay_tsc;
	struct rte_mbuf *reorder; /* held to be overtaken */
	uint64_t reorder_due;
	uint32_t dq_head;
	uint32_t dq_tail;
	struct roce_fault_held delayq[ROCE_FAULT_HOLD];
};

struct roce_dev;
struct roce_eng;
/* Every engine gets the setting (its own random stream, seed + index). */
void roce_fault_config(struct roce_dev *dev, unsigned int dir, unsigned int kind,
		       uint32_t rate_ppm, uint64_t seed);
void roce_fault_delay_config(struct roce_dev *dev, unsigned int dir, uint32_t us);
/* Apply the faults of @dir to @m; the frames to pass on now go to @out. */
unsigned int roce_fault_frame(struct roce_eng *e, unsigned int dir,
			      struct rte_mbuf *m, struct rte_mbuf *out[2],
			      uint64_t now);
/* Frames held back whose time has come (all with @now = UINT64_MAX). */
unsigned int roce_fault_release(struct roce_eng *e, unsigned int dir,
				uint64_t now, struct rte_mbuf **out,
				unsigned int cap);
void roce_fault_fini(struct roce_dev *dev);

/* ------------------------------------------------------------------ */
/* Frames                                                              */
/* ------------------------------------------------------------------ */

/* A prebuilt Ethernet + IP + UDP header for one destination. */
/* A QP's transmit templates: the longest header + BTH + AETH, rounded. */
#define ROCE_TX_TMPL_LEN RTE_ALIGN_CEIL(ROCE_L2L4_MAX + ROCE_BTH_LEN + ROCE_AETH_LEN, 16)

struct roce_path {
	uint8_t hdr[ROCE_L2L4_MAX];
	uint8_t hdr_len;          /* bytes of hdr in use */
	uint8_t l3_off;
	uint8_t ipv6;
	uint8_t loopback;         /* destination is this device itself */
	uint8_t v1;               /* RoCEv1: GRH after Ethernet, no IP/UDP */
	/* IPv4: the header's 16-bit one's complement sum with the total
	 * length and checksum at zero; a frame adds its length to it. */
	uint32_t ip_csum_base;
};

/* ------------------------------------------------------------------ */
/* Ring mode link (roce_link.c)                                        */
/* ------------------------------------------------------------------ */

struct roce_dev;

struct roce_link {
	char name[32];
	/* ring[i][q]: frames to side i, its rx queue q (the peer's tx queue q) */
	struct rte_ring *ring[2][ROCE_MAX_ENGINES];
	uint32_t nb_q;                    /* queues per side (engines= of the first) */
	uint16_t port[2];
	struct rte_mempool *mp;
	struct rte_ether_addr mac[2];
	struct roce_dev *dev[2];          /* probed sides (NULL if not) */
	unsigned int refs;
	/*
	 * Per engine index, each on its own line (engines of one side must
	 * not share a written line): peer steps in progress by that index's
	 * engines, and the TSC of each side's last own step, refreshed
	 * coarsely so the line stays shared: a side's engine is stepped by
	 * its peer only when idle.
	 */
	struct roce_link_q {
		uint32_t stepping;
		uint64_t last_step[2];
	} __rte_cache_aligned q[ROCE_MAX_ENGINES];
};

/* Note that engine @e ran a step at @now (ring mode). */
void roce_link_stepped(struct roce_eng *e, uint64_t now);

int roce_link_attach(struct roce_dev *dev, const char *name, int side);
void roce_link_detach(struct roce_dev *dev);
/*
 * Run one engine step of the other side (inline mode): in one process a
 * test or an application often waits on one side only, and the other side
 * must still answer.
 */
int roce_link_step_peer(struct roce_eng *e, uint64_t now);

/* ------------------------------------------------------------------ */
/* Memory keys (roce_mr.c)                                             */
/* ------------------------------------------------------------------ */

enum roce_key_kind {
	ROCE_KEY_FREE = 0,
	ROCE_KEY_MR,
	ROCE_KEY_MW,
};

struct roce_key {
	uint32_t key;             /* current key (index << 8 | key byte) */
	uint8_t kind;             /* enum roce_key_kind */
	uint8_t valid;            /* usable (MR not invalidated, MW bound) */
	uint8_t dma;              /* the DMA MR: any DPDK memory, local only */
	uint8_t last_byte;        /* last key byte handed out */
	uint32_t access;
	struct prdma_pd *pd;
	uint64_t addr;
	uint64_t length;
	struct prdma_mr *mr;      /* MR: itself; MW: the MR bound to */
	struct prdma_mw *mw;
	uint32_t mw_qpn;          /* type 2 MW: the QP it is bound to */
	uint32_t binds;           /* MR: windows bound to it */
	/*
	 * Bumped whenever the key stops granting what it granted (dereg,
	 * dealloc, invalidate, bind, unbind), never reset: a responder that
	 * checked the key on a WRITE's FIRST packet re-checks only this on
	 * the MIDDLE/LAST packets.
	 */
	uint32_t gen;
	/*
	 * Bumped each time the slot is given to a new MR or MW, never
	 * reset: a bind posted for a window runs only if its slot still
	 * holds the window the post saw, not one allocated since at the
	 * same address.
	 */
	uint32_t life;
};

struct roce_mr {
	struct prdma_mr base;
	uint32_t slot;
};

struct roce_mw {
	struct prdma_mw base;
	uint32_t slot;
};

/* Look a key up: NULL when unknown or stale. */
static inline struct roce_key *roce_key_get(struct roce_dev *dev, uint32_t key);

/*
 * Check [va, va+len) against @key for @access in @pd; for remote access
 * @qpn is the QP the request came on (type 2 windows). Returns 0 or
 * -EACCES (key, range, rights) / -EPERM (wrong PD).
 */
int roce_key_check(struct roce_dev *dev, uint32_t key, struct prdma_pd *pd,
		   uint32_t qpn, uint64_t va, uint64_t len, uint32_t access,
		   int remote, struct roce_key **out);
/* Invalidate a key (LOCAL_INV, SEND_WITH_INV); 0 or -EINVAL. */
int roce_key_invalidate(struct roce_dev *dev, uint32_t key, struct prdma_pd *pd,
			uint32_t qpn);
/*
 * SEND_WITH_INV from the peer: only a type 2 window bound to @qpn may be
 * invalidated remotely, never a region from prdma_mr_reg (the IBA allows
 * remote invalidation of type 2 windows and fast-register MRs only, and
 * Linux rxe refuses the rest too); 0 or -EINVAL.
 */
int roce_key_invalidate_remote(struct roce_dev *dev, uint32_t key,
			       struct prdma_pd *pd, uint32_t qpn);
struct roce_qp;
struct roce_swqe;
/* Execute a BIND_MW work request; returns a completion status. */
int roce_mw_bind_exec(struct roce_qp *qp, const struct roce_swqe *w);
int roce_mr_reg(struct prdma_mr *mr);
int roce_mr_dereg(struct prdma_mr *mr);
int roce_mw_alloc(struct prdma_mw *mw);
int roce_mw_dealloc(struct prdma_mw *mw);

/* ------------------------------------------------------------------ */
/* CQ (roce_cq.c)                                                      */
/* ------------------------------------------------------------------ */

enum roce_cq_arm {
	ROCE_ARM_NONE = 0,
	ROCE_ARM_NEXT,
	ROCE_ARM_SOLICITED,
	ROCE_ARM_N,
};

struct roce_cq {
	struct prdma_cq base;
	struct roce_dev *rdev;
	struct prdma_wc *ring;
	uint32_t mask;
	uint32_t head;            /* producer (engine), release-published */
	uint32_t tail;            /* consumer (poll), release-published */
	uint32_t arm;             /* enum roce_cq_arm, set by cq_arm */
	uint32_t arm_n;           /* ROCE_ARM_N: completions still to come */
	uint32_t overrun;         /* stopped after an overrun */
	uint32_t staged;          /* entries past head, not yet published */
	int32_t eng;              /* engine that produces into it, -1: none yet */
};

/* Queue a completion (engine or control path with the engine flag). */
void roce_cq_push(struct roce_cq *cq, const struct prdma_wc *wc);
/*
 * roce_cq_push() in two halves, for a run of completions: the slot for
 * the next entry (NULL: overrun, the entry is lost as with a push), not
 * visible until roce_cq_commit() publishes every staged entry with one
 * release store of the head. The producer commits before it lets go of
 * the engine flag, so nothing else ever sees staged entries.
 */
struct prdma_wc *roce_cq_stage(struct roce_cq *cq);
void roce_cq_commit(struct roce_cq *cq);
/*
 * A receive completion of engine @e was staged in @cq: published now, or,
 * inside a receive burst, with the burst's others (roce_eng_rx_publish).
 */
void roce_cq_commit_rx(struct roce_eng *e, struct roce_cq *cq);
/* The end of a receive burst: every CQ it staged completions in is published. */
void roce_eng_rx_publish(struct roce_eng *e);
int roce_cq_create(struct prdma_cq *cq, const struct prdma_cq_init_attr *attr);
int roce_cq_destroy(struct prdma_cq *cq);
int roce_cq_resize(struct prdma_cq *cq, uint32_t cqe);
int roce_cq_arm(struct prdma_cq *cq, enum prdma_cq_arm_flags flags, uint32_t n);
int roce_poll_cq(struct prdma_cq *cq, uint16_t nb, struct prdma_wc *wc);
int roce_peek_cq(struct prdma_cq *cq);

/* ------------------------------------------------------------------ */
/* Receive queues (roce_srq.c)                                         */
/* ------------------------------------------------------------------ */

struct roce_rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t reserved;
	struct prdma_sge sge[ROCE_MAX_SGE];
};

/* A single-producer single-consumer ring of receive WQEs. */
struct roce_rq {
	struct roce_rwqe *wqe;
	uint32_t mask;
	uint32_t max_sge;
	uint32_t head;            /* producer (post_recv) */
	uint32_t tail;            /* consumer (engine) */
};

struct roce_srq {
	struct prdma_srq base;
	struct roce_rq rq;
	uint32_t max_wr;          /* as reported */
	uint32_t limit;           /* armed watermark, 0 = disarmed */
	int32_t eng;              /* engine that consumes it, -1: none yet */
};

int roce_rq_init(struct roce_rq *rq, uint32_t nb, uint32_t max_sge, int socket);
void roce_rq_fini(struct roce_rq *rq);
int roce_rq_post(struct roce_rq *rq, const struct prdma_recv_wr *wr,
		 const struct prdma_recv_wr **bad_wr);
int roce_srq_create(struct prdma_srq *srq, struct prdma_srq_init_attr *attr);
int roce_srq_modify(struct prdma_srq *srq, const struct prdma_srq_attr *attr,
		    uint32_t mask);
int roce_srq_query(struct prdma_srq *srq, struct prdma_srq_attr *attr);
int roce_srq_destroy(struct prdma_srq *srq);
int roce_post_srq_recv(struct prdma_srq *srq, const struct prdma_recv_wr *wr,
		       const struct prdma_recv_wr **bad_wr);
/* Engine: take the next receive WQE for @qp (its RQ or its SRQ), or NULL. */
struct roce_rwqe *roce_recv_take(struct roce_qp *qp);

/* ------------------------------------------------------------------ */
/* QP                                                                  */
/* ------------------------------------------------------------------ */

/* Send WQE flags. */
#define ROCE_SWQE_SIGNALED  RTE_BIT32(0)
#define ROCE_SWQE_FENCE     RTE_BIT32(1)
#define ROCE_SWQE_SOLICITED RTE_BIT32(2)
#define ROCE_SWQE_INLINE    RTE_BIT32(3)

struct roce_ah {
	struct prdma_ah base;
	struct roce_path path;
};

struct roce_swqe {
	uint64_t wr_id;
	uint8_t opcode;           /* enum prdma_wr_opcode */
	uint8_t flags;            /* ROCE_SWQE_* */
	uint8_t num_sge;
	uint8_t done;             /* finished; completes when it is the oldest */
	uint8_t started;          /* PSNs assigned */
	uint8_t status;           /* enum prdma_wc_status once done */
	uint8_t reserved[2];
	uint32_t imm_inv;         /* immediate (host order), rkey to invalidate,
	                           * or BIND_MW: the window slot's life at post */
	uint32_t length;          /* total bytes of the SGEs / inline data */
	uint64_t raddr;
	uint32_t rkey;
	uint32_t first_psn;
	uint32_t last_psn;
	uint32_t resp_psn;        /* READ: next response PSN expected */
	uint32_t rereq_psn;       /* READ: PSN asked again after a gap */
	uint8_t rereq;            /* READ: rereq_psn is valid */
	uint64_t compare_add;
	uint64_t swap;
	/* UD */
	struct roce_ah *ah;
	uint32_t remote_qpn;
	uint32_t remote_qkey;
	/* BIND_MW */
	struct prdma_mw *mw;
	struct prdma_mr *mr;
	uint64_t bind_addr;
	uint64_t bind_len;
	uint32_t bind_rkey;
	uint32_t bind_access;
	uint8_t *inl;             /* inline data area of this slot */
	/* Zero-copy frames of this WQE the port still holds (atomic: the
	 * ethdev's release decrements it, on any lcore); it completes at 0. */
	uint32_t zc_out;
	struct prdma_sge sge[ROCE_MAX_SGE];
};

/* Responder resources: READ and atomic state kept for duplicates. */
struct roce_res {
	uint8_t valid;
	uint8_t atomic;
	uint32_t first_psn;
	uint32_t last_psn;
	uint64_t va;
	uint32_t rkey;
	uint32_t len;
	uint64_t orig;            /* atomic: value returned */
	uint32_t msn;
};

enum roce_out_kind {
	ROCE_OUT_ACK = 0,         /* ACK or NAK (syndrome) */
	ROCE_OUT_READ,            /* READ responses */
	ROCE_OUT_ATOMIC,          /* ATOMIC ACKNOWLEDGE */
};

/* One queued response, sent in PSN order. */
struct roce_out {
	uint8_t kind;
	uint8_t syndrome;
	uint8_t replay;           /* answers a duplicate: holds no new resource */
	uint8_t lazy;             /* ACK no AckReq asked for: may wait its deadline */
	uint8_t urgent;           /* ACK of a message that completed a receive */
	uint32_t psn;             /* ACK/atomic PSN; READ: next PSN to send */
	uint32_t msn;
	uint32_t off;             /* READ: bytes already sent */
	uint32_t len;             /* READ: bytes from the first PSN */
	uint32_t first_psn;       /* READ: first PSN of the sent range */
	uint64_t va;
	uint32_t rkey;
	uint64_t orig;
};

/* Congestion control of one QP (roce_cc.c). */
struct roce_cc {
	uint8_t limited;          /* the reaction point holds the rate down */
	uint8_t cnp_due;          /* notification point: a CE arrived, CNP to send */
	uint32_t alpha;           /* congestion estimate, 1024 = 1.0 */
	uint32_t stage;           /* increase steps since the last cut */
	uint64_t rc;              /* current rate, Mbit/s */
	uint64_t rt;              /* target rate, Mbit/s */
	uint64_t next_tx;         /* TSC before which no packet leaves */
	uint64_t alpha_tsc;       /* next alpha decay */
	uint64_t inc_tsc;         /* next rate increase */
	uint64_t cnp_tsc;         /* no CNP before this TSC */
};

struct roce_qp {
	struct prdma_qp base;
	struct roce_dev *rdev;
	struct roce_eng *eng;     /* the engine it belongs to (slot % N) */
	struct roce_cq *scq;
	struct roce_cq *rcq;
	struct roce_srq *srq;
	uint32_t slot;
	uint8_t sq_sig_all;
	uint8_t gsi;
	uint8_t comm_est_sent;
	uint8_t sqd_event_sent;

	/* attributes */
	uint8_t path_mtu;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t en_sqd_async_notify;
	uint8_t port_num;
	uint16_t pkey_index;
	uint32_t qkey;
	uint32_t rq_psn_attr;
	uint32_t sq_psn_attr;
	uint32_t dest_qpn;
	uint32_t access;
	struct prdma_ah_attr ah_attr;
	struct roce_path path;
	/* RC/UC: the peer's address as roce_pkt.src_ip holds it (set with the
	 * AV); frames from anyone else are not this connection's. */
	uint8_t peer_ip[16];
	uint8_t peer_ip_len;      /* 4, 16, or 0 before the AV is set */
	uint16_t sport;
	/* RC/UC on RoCEv2: the ICRC register over the QP's fixed header
	 * fields (roce_icrc_seed), built by the first frame after a modify
	 * (tx_seed_ok = 0) and used by every frame until the next one; with
	 * a plain ACK's lengths and opcode folded in (roce_icrc_seed_psn). */
	uint8_t tx_seed_ok;
	uint32_t tx_icrc_seed;
	uint32_t tx_ack_seed;
	/*
	 * Built with the seed (roce_qp_tx_build), RC/UC: the first bytes of
	 * every frame (the path's header with the QP's UDP port, then the
	 * BTH's fixed fields, roce_tmpl_bth), and (RoCEv2) a whole plain ACK
	 * up to its AETH: opcode, lengths and IP checksum in; a frame patches
	 * what varies. Copied at their full, constant size (a few vector
	 * moves, no memcpy call): the bytes past a frame's headers are
	 * overwritten or beyond its length.
	 */
	uint8_t tx_hdr[ROCE_TX_TMPL_LEN];
	uint8_t tx_ack[ROCE_TX_TMPL_LEN];
	uint32_t mtu;             /* effective payload bytes per packet */

	/* send queue */
	struct roce_swqe *sq;
	uint8_t *sq_inline;
	uint32_t sq_mask;
	uint32_t max_send_sge;
	uint32_t max_inline;
	uint32_t sq_head;         /* producer (post_send) */
	uint32_t sq_tail;         /* oldest not completed (engine) */
	uint32_t sq_next;         /* next to transmit (engine) */
	uint32_t sq_off;          /* bytes of sq_next already sent */
	uint32_t sq_psn;          /* next PSN to send */
	uint32_t una_psn;         /* oldest PSN not acknowledged */
	uint32_t max_psn;         /* next PSN never sent (sq_psn goes back on retry) */
	uint32_t rd_out;          /* READ/atomic in flight */
	uint32_t pkts_noack;      /* packets since the last AckReq */
	uint8_t retry_left;
	uint8_t rto_shift;        /* ACK timeouts in a row: the backoff's doublings */
	uint8_t rnr_left;
	uint8_t in_rnr_wait;
	uint8_t tx_halt;          /* a local error waits to be completed */
	uint64_t timer_tsc;       /* local ACK timeout deadline, 0 = off */
	uint64_t rnr_tsc;         /* RNR wait deadline */
	uint32_t rnr_psn;
	/* RTT estimate and tail-loss probe (roce_req.c) */
	uint64_t srtt_tsc;        /* smoothed RTT, 0 before the first sample */
	uint64_t rttvar_tsc;      /* its mean deviation */
	uint64_t rtt_t0;          /* when the sampled packet left */
	uint32_t rtt_psn;         /* the sampled packet (an AckReq one) */
	uint8_t rtt_on;           /* a sample is in flight */
	uint8_t probe_sent;       /* this tail was probed already */
	uint8_t probe_next;       /* the next packet sent is the probe */
	uint64_t probe_tsc;       /* probe deadline, 0 = off */
	uint32_t probe_psn;

	/* receive queue (unless an SRQ is used) */
	struct roce_rq rq;

	/* responder */
	uint32_t epsn;
	uint32_t msn;
	uint8_t nak_sent;         /* PSN sequence NAK latch */
	uint8_t resp_op;          /* ROCE_F_SEND / ROCE_F_WRITE in progress, 0 none */
	uint8_t uc_drop;          /* UC: drop until the next FIRST/ONLY */
	uint8_t resp_err;         /* receive-side error: drop everything */
	struct roce_rwqe cur_rwqe;  /* receive WQE being filled */
	uint8_t have_rwqe;
	uint32_t rcv_off;         /* bytes placed in cur_rwqe */
	uint64_t wr_va;           /* WRITE in progress */
	uint32_t wr_resid;
	uint32_t wr_len;
	struct roce_key *wr_key;  /* key slot of the WRITE in progress */
	uint32_t wr_gen;          /* its generation when FIRST was checked */
	/* Sized from max_dest_rd_atomic (grown by modify, never shrunk), in one
	 * block: most QPs answer no READs and need a few entries, not 64. */
	struct roce_res *res;     /* res_cap entries */
	uint32_t res_cap;
	uint32_t res_next;
	struct roce_out *outq;    /* out_mask + 1 entries */
	uint32_t out_mask;
	uint32_t out_head;
	uint32_t out_tail;
	uint64_t ack_hold_tsc;    /* a lone ACK waits until then (ack_delay_us) */
	uint64_t ack_grace_tsc;   /* a one-way AckReq ACK leaves after then */
	uint32_t ack_last_psn;    /* PSN of the last plain ACK sent */

	uint64_t cnt[PRDMA_QP_CNT_MAX];
	struct roce_cc cc;

	/* rte_flow steering (roce_flow.c), changed with every engine flag held */
	struct rte_flow *flow;    /* the rule steering its frames, NULL: none */
	uint8_t flow_want;        /* learnt rules: waiting for a handed-off frame */
	uint16_t flow_sport;      /* learnt rules: the peer's UDP source port */
};

/* roce_qp.c */
/* The QP table and the engine's marks, sized from cfg.max_qp (probe). */
int roce_qp_table_init(struct roce_dev *dev, int socket);
void roce_qp_table_fini(struct roce_dev *dev);
int roce_qp_create(struct prdma_qp *qp, struct prdma_qp_init_attr *attr);
int roce_qp_modify(struct prdma_qp *qp, const struct prdma_qp_attr *attr,
		   uint32_t mask);
int roce_qp_query(struct prdma_qp *qp, struct prdma_qp_attr *attr);
int roce_qp_destroy(struct prdma_qp *qp);
/* Move a QP to ERR from the engine (flushes, raises @ev unless MAX). */
void roce_qp_error(struct roce_qp *qp, enum prdma_event_type ev);
/* Complete every WQE not yet completed with WR_FLUSH_ERR. */
void roce_qp_flush(struct roce_qp *qp);
int roce_path_build(struct roce_dev *dev, const struct prdma_ah_attr *ah,
		    struct roce_path *path);
int roce_ah_create(struct prdma_ah *ah);
int roce_ah_modify(struct prdma_ah *ah, const struct prdma_ah_attr *attr);
int roce_ah_destroy(struct prdma_ah *ah);

/* roce_post.c */
int roce_post_send(struct prdma_qp *qp, const struct prdma_send_wr *wr,
		   const struct prdma_send_wr **bad_wr);
int roce_post_recv(struct prdma_qp *qp, const struct prdma_recv_wr *wr,
		   const struct prdma_recv_wr **bad_wr);

/* roce_req.c: the requester */
enum prdma_wc_opcode roce_wc_opcode(uint8_t wr_opcode);
/* Transmit new or rewound work of @qp; returns packets queued. */
unsigned int roce_req_tx(struct roce_qp *qp, uint64_t now);
/* An ACK, NAK, READ response or atomic ACK for @qp. */
void roce_req_rx(struct roce_qp *qp, struct roce_pkt *pkt, uint64_t now);
/* Timers of @qp (local ACK timeout, RNR wait). */
void roce_req_timers(struct roce_qp *qp, uint64_t now);
/* The wait of the ACK timer now: the QP's timeout with its backoff. */
uint64_t roce_rto_tsc(const struct roce_qp *qp);
/* Complete finished WQEs from the oldest on. */
void roce_req_complete(struct roce_qp *qp);

/* roce_resp.c: the responder */
void roce_resp_rx(struct roce_qp *qp, struct roce_pkt *pkt);
/* Send queued ACKs/NAKs/READ responses; returns packets queued. */
unsigned int roce_resp_tx(struct roce_qp *qp);

/* ------------------------------------------------------------------ */
/* Device (roce_dev.c) and engine (roce_engine.c)                      */
/* ------------------------------------------------------------------ */

struct roce_pcap;

#define ROCE_NEIGH_MAX     32
#define ROCE_NEIGH_PENDING 64

/*
 * One engine: everything a step touches besides the QPs, CQs and SRQs it
 * owns. Only its flag holder writes it (the work marks excepted: any
 * thread sets those, atomically), so engines share no written line.
 */
struct roce_eng {
	struct roce_dev *dev;
	uint16_t idx;             /* engine i: slots i mod N, rx/tx queue i */
	uint16_t queue;           /* the port queue it polls and sends on */

	/* the engine flag: 0 free, 1 held */
	uint32_t busy __rte_cache_aligned;
	uint64_t now;             /* TSC of the step's work (see roce_eng_step) */
	uint32_t idle_steps;      /* steps that found nothing, for the timer checks */
	uint64_t steps;           /* engine steps run (the ACK watch reads it) */
	uint64_t ack_held_step;   /* 1 + the last step that left an ACK held */

	/*
	 * The step runs only QPs with work: qp_act has a bit per slot, set
	 * by whoever gives a QP work (post_send from any thread: atomically);
	 * qp_act_sum has a bit per word of qp_act, so a step finds the marked
	 * QPs without reading the whole map. QPs that wait only for a timer
	 * have their bit in qp_tmr (engine only) and are looked at when the
	 * earliest deadline, timer_next, has come.
	 */
	uint32_t qp_run_next;     /* slot the next step starts from */
	uint64_t *qp_act;
	uint64_t *qp_act_sum;
	uint64_t *qp_tmr;
	uint64_t timer_next;      /* TSC of the earliest armed timer, or later */

	/* frames waiting for the port (or for ourselves) */
	struct rte_mbuf *txq[ROCE_TXQ_SIZE];
	uint32_t txq_len;
	/* Frames to build come from here, allocated and prefetched a burst
	 * at a time: each mbuf was last written by the peer's lcore. */
	struct rte_mbuf *tx_stash[ROCE_TX_STASH];
	uint32_t tx_stash_len;
	/*
	 * Receive completions of a burst: staged in their CQs as the frames
	 * complete receives, published at the burst's end with one store of
	 * each CQ's head (rx_frames); rx_cqs lists the CQs to publish.
	 */
	uint32_t rx_batch;        /* inside rx_frames: completions may wait */
	uint32_t nb_rx_cqs;
	struct roce_cq *rx_cqs[ROCE_RX_CQS];
	struct rte_ring *loop;    /* frames this engine sent to its own device */
	/* hand_in[j]: frames engine j received for a QP of ours (SP/SC) */
	struct rte_ring *hand_in[ROCE_MAX_ENGINES];

	pthread_t thread;         /* progress=thread: this engine's */
	volatile int thread_run;
	uint8_t thread_started;
	/* progress=hybrid: set by a poller, cleared by the thread; its own
	 * line, written at most once per thread look. */
	uint32_t polled __rte_cache_aligned;
	/* TSC of the last step a poll of this engine's own ran, refreshed
	 * coarsely (several engines: an engine nobody polls is stepped by
	 * the others, see roce_eng_poll) */
	uint64_t last_poll;

	struct roce_stats st __rte_cache_aligned; /* summed over the engines when read */
	struct prdma_roce_stats xst;
	struct roce_fault_dir fault[PRDMA_ROCE_FAULT_DIR_NB];
} __rte_cache_aligned;

/* The engine that owns QP slot @slot: no table, the slot says. */
static inline uint32_t
roce_slot_eng(uint32_t slot, uint32_t nb_eng)
{
	return nb_eng == 1 ? 0 : slot % nb_eng;
}

struct roce_dev {
	struct prdma_dev *pdev;
	struct roce_cfg cfg;
	uint16_t port_id;
	uint8_t port_started;     /* we configured and started the port */
	uint8_t ipv6;
	struct roce_link *link;
	int side;
	struct rte_mempool *mp;
	uint8_t own_mp;
	struct rte_ether_addr mac;
	union prdma_gid gid;
	uint8_t ip[16];           /* IPv4 in the first 4 bytes */
	uint8_t max_mtu;          /* enum prdma_mtu the port can carry */
	uint8_t active_mtu;       /* min(max_mtu, mtu= cap) */
	uint16_t burst;
	char node_desc[PRDMA_NODE_DESC_LEN];
	uint32_t port_cap;
	uint64_t tsc_hz;
	uint64_t line_mbps;       /* link speed, the congestion control's ceiling */
	uint64_t ack_delay_tsc;   /* ack_delay_us in TSC ticks, 0 = ACK at once */
	uint64_t ack_grace_tsc;   /* ROCE_ACK_GRACE_US in TSC ticks */

	/* inline progress: roce_ack_watch.c (watches every engine) */
	pthread_t ack_watch;
	volatile int ack_watch_run;
	uint8_t ack_watch_started;
	uint64_t ack_watch_looks;   /* the watch's wake-ups (written by it only) */
	uint64_t ack_watch_steps;   /* engine steps it ran itself */

	/*
	 * QPs (changed only with every engine flag held). qp_tbl has
	 * qp_slot_mask + 1 entries, allocated at probe from max_qp=; slot s
	 * belongs to engine s % nb_eng, whose work marks (struct roce_eng)
	 * are the only ones that ever carry its bit.
	 */
	struct roce_qp **qp_tbl;
	uint32_t qp_slot_mask;
	uint32_t qp_slot_bits;
	uint32_t nb_qps;
	uint32_t qp_slot_next;
	uint32_t qp_act_words;    /* words of each engine's qp_act and qp_tmr */
	uint32_t qp_sum_words;    /* words of each engine's qp_act_sum */
	uint32_t eng_next;        /* engine the next QP with unbound CQs gets */
	uint8_t place_logged;     /* a QP refused for its CQs' engines was logged */
	uint32_t *qpn_gen;        /* the upper QPN bits last given to each slot */
	struct roce_key *keys;
	uint32_t key_next;
	uint32_t nb_mr;
	uint32_t nb_mw;
	uint32_t nb_cq;
	uint32_t nb_srq;
	uint32_t nb_pd;
	uint32_t nb_ah;

	struct roce_zc *zc;       /* zero-copy transmit (roce_zc.c), NULL: copy */

	struct roce_pcap *pcap;

	struct roce_flow *flow;   /* rte_flow steering (roce_flow.c), NULL: none */
	uint8_t flow_learn;       /* rules keyed on what a handed-off frame shows */

	/* provider statistics kept by the control path (zc_active); the
	 * engines' counters are summed with it when read */
	struct prdma_roce_stats xst;
	char ifname[32];                  /* kernel interface of the port, "" if none */
	unsigned int ifindex;
	/* the library's neighbour cache (prdma_neigh.h) over these tables */
	struct prdma_neigh_cache neigh_cache;
	struct prdma_neigh_entry neigh[ROCE_NEIGH_MAX];
	struct prdma_neigh_req neigh_req[ROCE_NEIGH_PENDING];
	struct roce_mcast mcast;          /* roce_mcast.c */

	uint32_t nb_eng;                  /* engines= */
	struct roce_eng *eng;             /* nb_eng engines, cache aligned */
};

extern const struct prdma_dev_ops roce_ops;
/* The roce device behind @pdev, or NULL (rte_errno = ENODEV) if another provider's. */
struct roce_dev *roce_dev_checked(struct prdma_dev *pdev);

static inline struct roce_dev *
roce_dev_of(struct prdma_dev *pdev)
{
	return pdev->priv;
}

/* Try to take engine @e's flag (never waits). */
static inline bool
roce_eng_trylock(struct roce_eng *e)
{
	uint32_t expected = 0;

	/* acquire: the holder sees everything the previous holder wrote */
	return __atomic_compare_exchange_n(&e->busy, &expected, 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void
roce_eng_unlock(struct roce_eng *e)
{
	/* release: publish this step's writes to the next holder */
	__atomic_store_n(&e->busy, 0, __ATOMIC_RELEASE);
}

/* Control path: wait for every engine's flag, in index order. */
void roce_engine_lock(struct roce_dev *dev);
void roce_engine_unlock(struct roce_dev *dev);
/* Run one step of @e if its flag is free (and of its ring peer when
 * that one idles); returns work done. */
int roce_eng_poll(struct roce_eng *e);
/* The same for every engine of @dev. */
int roce_engine_poll(struct roce_dev *dev);
/* Several engines: step those of @e's device nobody stepped for 50 us. */
int roce_eng_step_idle(struct roce_eng *e, uint64_t now);
/* Note that @e was stepped at @now by a poll (its own, or its ring peer's
 * for it); written coarsely, the device's other engines read it. */
static inline void
roce_eng_stamp(struct roce_eng *e, uint64_t now)
{
	const struct roce_dev *dev = e->dev;

	/* relaxed: a coarse hint, and a poller and a ring peer may both
	 * stamp it (either time will do) */
	if (dev->nb_eng > 1 &&
	    (int64_t)(now - __atomic_load_n(&e->last_poll, __ATOMIC_RELAXED)) >
	    (int64_t)(dev->tsc_hz / (4 * ROCE_PEER_IDLE_DIV)))
		__atomic_store_n(&e->last_poll, now, __ATOMIC_RELAXED);
}
/* One step of @e with its flag held. */
int roce_eng_step(struct roce_eng *e);
/* One step of every engine, all flags held (control path, tests). */
int roce_engine_step(struct roce_dev *dev);

/*
 * Whether a poll call steps the engine itself: inline progress, and
 * hybrid (the thread then stays out of the way while someone polls).
 */
static inline bool
roce_eng_polls(struct roce_eng *e)
{
	if (!e->dev->cfg.progress_thread)
		return true;
	if (!e->dev->cfg.progress_hybrid)
		return false;
	/* relaxed: a hint to the thread only; read first so that a
	 * spinning poller writes the line once per thread look */
	if (__atomic_load_n(&e->polled, __ATOMIC_RELAXED) == 0)
		__atomic_store_n(&e->polled, 1, __ATOMIC_RELAXED);
	return true;
}
/* Transmit only @qp's pending work (post_send fast path, its engine's flag held). */
void roce_engine_kick(struct roce_eng *e, struct roce_qp *qp);
int roce_engine_thread_start(struct roce_dev *dev);
void roce_engine_thread_stop(struct roce_dev *dev);
/* Inline progress: the thread that sends an ACK left held when the
 * application stopped polling (roce_ack_watch.c). */
int roce_ack_watch_start(struct roce_dev *dev);
/* A QP leaving RTR/RTS (modify to ERR or RESET, destroy): its held ACK,
 * if any, is sent now, under the engine flags. */
void roce_engine_ack_flush(struct roce_dev *dev, struct roce_qp *qp);
void roce_ack_watch_stop(struct roce_dev *dev);
/* Process one received frame (exposed for the tests' injection): engine
 * @e must own the frame's QP (or be engine 0 for frames of no QP). */
void roce_engine_rx_frame(struct roce_eng *e, struct rte_mbuf *m);
/* Hand @m to engine @to (counted; a full ring is a counted drop). True:
 * @m is no longer the caller's. */
bool roce_eng_handoff(struct roce_eng *e, uint32_t to, struct rte_mbuf *m);
/* Engines: create the per-engine state at probe, free it at removal. */
int roce_eng_init(struct roce_dev *dev, int socket);
void roce_eng_fini(struct roce_dev *dev);
/* Sum the engines' counters (control path, flags held or not: relaxed). */
void roce_eng_stats(const struct roce_dev *dev, struct roce_stats *st,
		    struct prdma_roce_stats *xst);

/* Room left in the transmit staging area. */
static inline uint32_t
roce_tx_room(const struct roce_eng *e)
{
	return ROCE_TXQ_SIZE - e->txq_len;
}

/*
 * Start a frame on @path: returns the mbuf with the L2-L4 headers copied
 * and *@bth pointing where the BTH goes, or NULL (no mbuf, no room).
 */
struct rte_mbuf *roce_frame_start(struct roce_eng *e,
				  const struct roce_path *path, uint16_t sport,
				  uint8_t **bth);
/*
 * Finish a frame whose transport part (BTH..payload, without pad) is
 * @tlen bytes: pad, lengths, checksums, ICRC; then queue it for sending.
 */
/* Queue a finished frame @m (counted, captured, faults applied). */
void roce_frame_stage(struct roce_eng *e, struct rte_mbuf *m,
		      const struct roce_path *path);
void roce_frame_send(struct roce_eng *e, struct rte_mbuf *m,
		     const struct roce_path *path, uint32_t tlen);
/*
 * roce_frame_send() on @qp's own path (RC/UC), of a frame started by
 * roce_qp_frame_start(): its ICRC from the QP's seed.
 */
void roce_frame_send_qp(struct roce_qp *qp, struct rte_mbuf *m, uint32_t tlen);
/*
 * Start a frame of RC/UC @qp: roce_frame_start() with the QP's template
 * (headers and the BTH's fixed fields) copied: roce_tmpl_encode() at
 * *@bth writes the rest of the headers.
 */
struct rte_mbuf *roce_qp_frame_start(struct roce_qp *qp, uint8_t **bth);
/* A plain ACK or NAK of RC @qp, from its ACK template; -ENOBUFS. */
int roce_qp_send_ack(struct roce_qp *qp, uint32_t psn, uint8_t syndrome, uint32_t msn);

/*
 * The engine that serves @cq: its QPs' (bound by the first QP that uses
 * it), engine 0 before. Relaxed: the binding changes only from unbound,
 * under every engine flag, before any QP of it can complete.
 */
static inline struct roce_eng *
roce_cq_eng(const struct roce_cq *cq)
{
	int32_t i = __atomic_load_n(&cq->eng, __ATOMIC_RELAXED);

	return &cq->rdev->eng[i < 0 ? 0 : i];
}

/* roce_dev.c */
static inline struct roce_qp *
roce_qp_lookup(struct roce_dev *dev, uint32_t qpn)
{
	struct roce_qp *qp = dev->qp_tbl[qpn & dev->qp_slot_mask];

	return (qp != NULL && qp->base.qp_num == qpn) ? qp : NULL;
}

/*
 * Mark @qp as having work for the engine, from any thread: the release
 * orders the work (a published sq_head) before the mark the engine takes
 * with acquire. Whoever turns a word non-zero also marks the word.
 */
static inline void
roce_qp_wake(struct roce_qp *qp)
{
	struct roce_eng *e = qp->eng;
	uint32_t w = qp->slot >> 6;

	if (__atomic_fetch_or(&e->qp_act[w], RTE_BIT64(qp->slot & 63),
			      __ATOMIC_RELEASE) == 0)
		__atomic_fetch_or(&e->qp_act_sum[w >> 6], RTE_BIT64(w & 63),
				  __ATOMIC_RELEASE);
}

/* The same with the engine flag held: only the holder clears marks, so a
 * mark seen set stays set and the atomics can be skipped. */
static inline void
roce_qp_wake_locked(struct roce_qp *qp)
{
	if ((__atomic_load_n(&qp->eng->qp_act[qp->slot >> 6], __ATOMIC_RELAXED) &
	     RTE_BIT64(qp->slot & 63)) == 0)
		roce_qp_wake(qp);
}

/* Raise a QP event. */
void roce_qp_event(struct roce_qp *qp, enum prdma_event_type type);

/* Copy between a list of SGEs (checked) and a flat buffer. */
int roce_sge_copy_out(struct roce_dev *dev, struct prdma_pd *pd,
		      const struct prdma_sge *sge, uint32_t nsge, uint32_t off,
		      uint8_t *dst, uint32_t len);
int roce_sge_copy_in(struct roce_dev *dev, struct prdma_pd *pd,
		     const struct prdma_sge *sge, uint32_t nsge, uint32_t off,
		     const uint8_t *src, uint32_t len);

/* roce_zc.c: zero-copy transmit */
struct roce_zc;
/* At probe: zero-copy when cfg.zc allows and the port takes chains. */
int roce_zc_setup(struct roce_dev *dev);
void roce_zc_fini(struct roce_dev *dev);
/* In a step: mark the QPs whose frames the port released. */
void roce_zc_wake(struct roce_dev *dev);
/*
 * Send @pay bytes at @va (inside @k's MR, checked) after the @hlen bytes
 * of transport headers already in @m, without copying them. -ENOBUFS: no
 * reference or mbuf now, @m untouched (copy instead).
 */
int roce_zc_frame_send(struct roce_eng *e, struct roce_qp *qp, struct rte_mbuf *m,
		       const struct roce_path *path, uint32_t hlen, uint64_t va,
		       uint32_t pay, const struct roce_key *k, uint32_t *wqe_out);
/* Zero-copy frames held by the port, per QP slot and per key slot. */
uint32_t roce_zc_slot_held(const struct roce_dev *dev, uint32_t slot);
uint32_t roce_zc_purge_txq(struct roce_dev *dev, uint32_t slot);
uint32_t roce_zc_key_held(const struct roce_dev *dev, uint32_t key_slot);
/* Wait (stepping the engine) until held(idx) is 0: 0, or -EBUSY. */
int roce_zc_wait(struct roce_dev *dev, uint32_t (*held)(const struct roce_dev *, uint32_t),
		 uint32_t idx);
/* Parse a chained frame of ours (headers | payload | pad + ICRC). */
enum roce_rx_verdict roce_zc_rx_parse(struct rte_mbuf *m, struct roce_pkt *pkt);
/* Ring link: frames to a peer that left are dropped (their refs return). */
void roce_link_drain_orphan(struct roce_dev *dev);

/* Whether @pay bytes of @qp's packet may leave zero-copy. */
static inline bool
roce_zc_wanted(const struct roce_dev *dev, uint32_t pay)
{
	return dev->zc != NULL && pay >= dev->cfg.zc_min;
}

/* roce_cc.c: congestion notification and reaction */
/* A CNP arrived for @qp: cut its rate. */
void roce_cc_cnp(struct roce_qp *qp, uint64_t now);
/* A CE-marked packet arrived on @qp: send a CNP unless one went recently. */
void roce_cc_ce(struct roce_qp *qp, uint64_t now);
/* Alpha decay and rate recovery of a limited QP. */
void roce_cc_timers(struct roce_qp *qp, uint64_t now);
/* @bytes left on a limited QP: when the next may go. */
void roce_cc_paced(struct roce_qp *qp, uint64_t now, uint32_t bytes);

/* roce_mtu.c: what frame sizes the port carries (control path) */
struct rte_eth_dev_info;
/* Bytes of frame data the ethdev needs room for in one rx mbuf, 0: no rule. */
uint32_t roce_port_rx_room(const struct rte_eth_dev_info *info);
/* The largest frame (Ethernet header on, no FCS) received whole into an
 * mbuf with @mbuf_room bytes after its headroom. */
uint32_t roce_port_frame_cap(const struct rte_eth_dev_info *info, uint32_t mbuf_room);
/* The link's MTU: that of kernel interface @ifindex (iface=, or the
 * ethdev's if_index), else the ethdev's. */
uint32_t roce_port_link_mtu(uint16_t port, unsigned int ifindex);

/* roce_neigh.c: interfaces, addresses and neighbours (control path) */
int roce_iface_discover(struct roce_dev *dev);
/* Set up the neighbour cache (at probe; its callbacks read ifindex when
 * they run, so before or after roce_iface_discover). */
int roce_neigh_init(struct roce_dev *dev);
int roce_iface_gid(struct roce_dev *dev, union prdma_gid *gid);
/* The MAC of @ip. @nowait: never wait for the network - start (or go on
 * with) the resolution and return -EAGAIN until the answer is in. */
int roce_neigh_resolve(struct roce_dev *dev, const uint8_t *ip, int ipv6,
		       struct rte_ether_addr *mac, int nowait);
/* An ARP frame (engine): learn, answer; 1 if it was ARP. */
int roce_arp_rx(struct roce_dev *dev, const uint8_t *frame, uint32_t len);

/* roce_flow.c: rte_flow rules steering a QP's frames to its engine's queue */
struct rte_flow;
/* (the rule shapes and the replaceable rte_flow calls: roce_flow.h) */
/* Probe, after the port is set up: which rules the port takes (flow=). */
int roce_flow_setup(struct roce_dev *dev);
/* Removal, before the engine flags are taken: no more learning. */
void roce_flow_stop(struct roce_dev *dev);
/* Removal: every rule destroyed. With the flags held only after
 * roce_flow_stop (its alarm, if still armed, would wait for them). */
void roce_flow_fini(struct roce_dev *dev);
/* A modify of @qp from @cur to @next (mask @mask) done, flags held. */
void roce_flow_qp_modify(struct roce_qp *qp, enum prdma_qp_state cur,
			 enum prdma_qp_state next, uint32_t mask);
/* @qp is being destroyed (flags held). */
void roce_flow_qp_gone(struct roce_qp *qp);
/* Engine @e hands a frame of @pkt's QP to its engine: learn its key. */
void roce_flow_learn(struct roce_eng *e, const struct roce_pkt *pkt);
/* Control path (flags held): install the rules learnt since the last call. */
unsigned int roce_flow_service(struct roce_dev *dev);

/* roce_pcap.c */
struct roce_pcap *roce_pcap_open(const char *path);
void roce_pcap_write(struct roce_pcap *pc, const struct rte_mbuf *m);
void roce_pcap_close(struct roce_pcap *pc);

/* Key lookup body (needs struct roce_dev). */
static inline struct roce_key *
roce_key_get(struct roce_dev *dev, uint32_t key)
{
	uint32_t idx = key >> 8;
	struct roce_key *k;

	if (idx == 0 || idx >= ROCE_MAX_KEYS)
		return NULL;
	k = &dev->keys[idx];
	return (k->kind != ROCE_KEY_FREE && k->key == key) ? k : NULL;
}

#endif /* ROCE_H */
