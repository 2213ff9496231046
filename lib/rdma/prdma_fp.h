/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PRDMA_FP_H
#define PRDMA_FP_H

/**
 * @file
 * prdma fast path: work requests, completions and the inline post/poll
 * wrappers. Included by prdma.h; do not include it on its own.
 *
 * Each wrapper is one indirect call through the per-device fast-path table
 * (prdma_fp_ops), with the object itself as the provider's argument. No
 * argument is checked unless the library is built with fast_path_debug.
 */

#include <stdint.h>
#include <errno.h>
#include <sys/queue.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_errno.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A scatter/gather element. */
struct prdma_sge {
	uint64_t addr;                     /**< virtual address */
	uint32_t length;
	uint32_t lkey;
};

/** Send work request opcodes. */
enum prdma_wr_opcode {
	PRDMA_WR_SEND = 0,
	PRDMA_WR_SEND_WITH_IMM,
	PRDMA_WR_SEND_WITH_INV,
	PRDMA_WR_RDMA_WRITE,
	PRDMA_WR_RDMA_WRITE_WITH_IMM,
	PRDMA_WR_RDMA_READ,
	PRDMA_WR_ATOMIC_CMP_AND_SWP,
	PRDMA_WR_ATOMIC_FETCH_AND_ADD,
	PRDMA_WR_LOCAL_INV,
	PRDMA_WR_BIND_MW,
	PRDMA_WR_MAX
};

/** Send flags. */
#define PRDMA_SEND_FENCE     RTE_BIT32(0) /**< wait for prior READ/atomic */
#define PRDMA_SEND_SIGNALED  RTE_BIT32(1) /**< generate a completion */
#define PRDMA_SEND_SOLICITED RTE_BIT32(2) /**< set SE on the last packet */
#define PRDMA_SEND_INLINE    RTE_BIT32(3) /**< copy the data at post time */

struct prdma_ah;
struct prdma_mw;
struct prdma_mr;

/** A send-queue work request. */
struct prdma_send_wr {
	uint64_t wr_id;
	struct prdma_send_wr *next;        /**< chain, NULL-terminated */
	struct prdma_sge *sg_list;
	uint32_t num_sge;
	enum prdma_wr_opcode opcode;
	uint32_t send_flags;               /**< PRDMA_SEND_* */
	union {
		uint32_t imm_data;         /**< *_WITH_IMM, host order */
		uint32_t invalidate_rkey;  /**< SEND_WITH_INV, LOCAL_INV */
	};
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;  /**< compare (CAS) or add (FADD) */
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct prdma_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
		struct {
			struct prdma_mw *mw;
			uint32_t rkey;         /**< new rkey (key byte chosen by caller) */
			struct prdma_mr *mr;
			uint64_t addr;
			uint64_t length;
			uint32_t access;
		} bind_mw;
	} wr;
};

/** A receive work request. */
struct prdma_recv_wr {
	uint64_t wr_id;
	struct prdma_recv_wr *next;
	struct prdma_sge *sg_list;
	uint32_t num_sge;
};

/*
 * Completion status: X(name, string).
 */
#define PRDMA_WC_STATUS_LIST(X) \
	X(SUCCESS,             "success") \
	X(LOC_LEN_ERR,         "local length error") \
	X(LOC_QP_OP_ERR,       "local QP operation error") \
	X(LOC_PROT_ERR,        "local protection error") \
	X(WR_FLUSH_ERR,        "work request flushed") \
	X(MW_BIND_ERR,         "memory window bind error") \
	X(BAD_RESP_ERR,        "bad response") \
	X(LOC_ACCESS_ERR,      "local access error") \
	X(REM_INV_REQ_ERR,     "remote invalid request") \
	X(REM_ACCESS_ERR,      "remote access error") \
	X(REM_OP_ERR,          "remote operation error") \
	X(RETRY_EXC_ERR,       "transport retry counter exceeded") \
	X(RNR_RETRY_EXC_ERR,   "RNR retry counter exceeded") \
	X(REM_ABORT_ERR,       "remote aborted") \
	X(FATAL_ERR,           "fatal error") \
	X(GENERAL_ERR,         "general error")

#define PRDMA_WC_ENUM_(name, str) PRDMA_WC_##name,
enum prdma_wc_status {
	PRDMA_WC_STATUS_LIST(PRDMA_WC_ENUM_)
	PRDMA_WC_STATUS_MAX
};
#undef PRDMA_WC_ENUM_

/** Readable text of a completion status. */
const char *prdma_wc_status_str(enum prdma_wc_status status);

/** Completion opcodes. */
enum prdma_wc_opcode {
	PRDMA_WC_SEND = 0,
	PRDMA_WC_RDMA_WRITE,
	PRDMA_WC_RDMA_READ,
	PRDMA_WC_COMP_SWAP,
	PRDMA_WC_FETCH_ADD,
	PRDMA_WC_BIND_MW,
	PRDMA_WC_LOCAL_INV,
	PRDMA_WC_RECV = 128,               /**< receive side from here on */
	PRDMA_WC_RECV_RDMA_WITH_IMM,
};

/** prdma_wc.wc_flags */
#define PRDMA_WC_WITH_IMM RTE_BIT32(0)    /**< imm_data is valid */
#define PRDMA_WC_WITH_INV RTE_BIT32(1)    /**< invalidated_rkey is valid */
#define PRDMA_WC_GRH      RTE_BIT32(2)    /**< UD: a 40-byte GRH precedes the data */
#define PRDMA_WC_SOLICITED RTE_BIT32(3)   /**< the sender set SE */

/** A work completion. */
struct prdma_wc {
	uint64_t wr_id;
	enum prdma_wc_status status;
	enum prdma_wc_opcode opcode;
	uint32_t vendor_err;               /**< provider syndrome */
	uint32_t byte_len;
	union {
		uint32_t imm_data;         /**< host order */
		uint32_t invalidated_rkey;
	};
	uint32_t qp_num;
	uint32_t src_qp;                   /**< UD */
	uint32_t wc_flags;                 /**< PRDMA_WC_* */
	uint16_t pkey_index;               /**< UD */
	uint8_t sl;
	uint8_t reserved;
};

/* ------------------------------------------------------------------------ */
/* Public parts of the fast-path objects                                     */
/* ------------------------------------------------------------------------ */

struct prdma_dev;
struct prdma_pd;
struct prdma_cq;
struct prdma_srq;

/**
 * The public head of a QP. Providers embed it first in their own QP.
 * Fields are read-only for the application.
 */
struct prdma_qp {
	uint16_t dev_id;                   /**< index into prdma_fp_ops */
	uint8_t qp_type;                   /**< enum prdma_qp_type */
	volatile uint8_t state;            /**< enum prdma_qp_state (current) */
	uint32_t qp_num;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_cq *send_cq;
	struct prdma_cq *recv_cq;
	struct prdma_srq *srq;
	void *qp_context;
	TAILQ_ENTRY(prdma_qp) lib_entry;   /**< @internal device's QP list */
	/** @internal templates bound to the QP (control path, device lock) */
	struct prdma_wr_tmpl *lib_tmpl;
};

/** The public head of a CQ. */
struct prdma_cq {
	uint16_t dev_id;
	uint16_t reserved0;
	uint32_t cqe;                      /**< actual depth */
	struct prdma_dev *dev;
	void *cq_context;
	uint32_t flags;                    /**< PRDMA_CQ_F_* */
	int event_fd;                      /**< -1 without PRDMA_CQ_F_EVENT_FD */
	uint32_t users;                    /**< QPs/SRQs using it (control path) */
	uint32_t reserved1;
};

/** The public head of an SRQ. */
struct prdma_srq {
	uint16_t dev_id;
	uint16_t reserved0;
	uint32_t srq_num;
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	void *srq_context;
	uint32_t users;                    /**< QPs attached (control path) */
	uint32_t reserved1;
};

/* ------------------------------------------------------------------------ */
/* Fast-path table (internal: for the inline wrappers below)                 */
/* ------------------------------------------------------------------------ */

typedef int (*prdma_post_send_t)(struct prdma_qp *qp,
				 const struct prdma_send_wr *wr,
				 const struct prdma_send_wr **bad_wr);
typedef int (*prdma_post_send_burst_t)(struct prdma_qp *qp,
				       const struct prdma_send_wr *wr, uint16_t nb,
				       const struct prdma_send_wr **bad_wr);
typedef int (*prdma_post_recv_t)(struct prdma_qp *qp,
				 const struct prdma_recv_wr *wr,
				 const struct prdma_recv_wr **bad_wr);
typedef int (*prdma_post_srq_recv_t)(struct prdma_srq *srq,
				     const struct prdma_recv_wr *wr,
				     const struct prdma_recv_wr **bad_wr);
typedef int (*prdma_poll_cq_t)(struct prdma_cq *cq, uint16_t nb,
			       struct prdma_wc *wc);
typedef int (*prdma_peek_cq_t)(struct prdma_cq *cq);

struct prdma_wr_tmpl;
struct prdma_tmpl_req;
typedef int (*prdma_post_tmpl_t)(struct prdma_qp *qp, const struct prdma_wr_tmpl *t,
				 const void *data, uint32_t len, uint64_t remote_addr,
				 uint64_t wr_id);
typedef int (*prdma_post_tmpl_burst_t)(struct prdma_qp *qp, const struct prdma_wr_tmpl *t,
				       const struct prdma_tmpl_req *req, uint16_t nb,
				       uint16_t *posted);

/**
 * @internal Kinds of object handle, for the validity marker below.
 */
enum prdma__obj_kind {
	PRDMA__OBJ_PD = 1,
	PRDMA__OBJ_MR,
	PRDMA__OBJ_MW,
	PRDMA__OBJ_CQ,
	PRDMA__OBJ_SRQ,
	PRDMA__OBJ_QP,
	PRDMA__OBJ_AH,
	PRDMA__OBJ_TMPL,
};

/** @internal A live object's marker: "PRD" and its kind. */
#define PRDMA__OBJ_MAGIC(kind) (0x50524400u | (uint32_t)(kind))

/** @internal Number of object kinds, for per-kind tables. */
#define PRDMA__OBJ_KINDS (PRDMA__OBJ_TMPL + 1)

/**
 * @internal Every object handle (PD, MR, MW, CQ, SRQ, QP, AH) is preceded
 * by this header, one cache line before it. The marker is set when the
 * object is created and cleared at destroy; the memory then stays the
 * device's (kept for the next object of the same kind, freed when the
 * device is removed), so a call on a destroyed handle reads memory the
 * library owns and fails with EINVAL (doc/security.md says exactly when).
 */
struct prdma__obj_hdr {
	uint32_t magic;
	uint32_t kind;
	void *next_free;          /**< link in the device's cache of dead objects */
} __rte_cache_aligned;

/** @internal 1 if @p obj is a live handle of @p kind. */
static inline int
prdma__obj_live(const void *obj, enum prdma__obj_kind kind)
{
	return obj != NULL &&
		((const struct prdma__obj_hdr *)obj)[-1].magic == PRDMA__OBJ_MAGIC(kind);
}

/**
 * @internal One cache line per device: the provider's fast-path entry
 * points. Unused and stopped devices point at dummies that set rte_errno to
 * ENODEV and fail, so a wrapper never checks for NULL.
 */
struct prdma_fp_ops {
	prdma_post_send_t post_send;
	prdma_post_recv_t post_recv;
	prdma_post_srq_recv_t post_srq_recv;
	prdma_poll_cq_t poll_cq;
	prdma_peek_cq_t peek_cq;
	/** the provider's, or the library's loop over post_send */
	prdma_post_send_burst_t post_send_burst;
	void *reserved[2];
} __rte_cache_aligned;

/** @internal */
extern struct prdma_fp_ops prdma_fp_ops[];

/**
 * Post a chain of send work requests.
 *
 * @return 0, or a negative errno with *@p bad_wr set to the first request
 *   not posted: -ENOMEM queue full, -EINVAL bad request (SGE count,
 *   opcode for the QP type, inline size), -EBADMSG QP in a state that does
 *   not allow posting.
 */
static inline int
prdma_post_send(struct prdma_qp *qp, const struct prdma_send_wr *wr,
		const struct prdma_send_wr **bad_wr)
{
#ifdef PRDMA_DEBUG
	if (!prdma__obj_live(qp, PRDMA__OBJ_QP) || wr == NULL || bad_wr == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
#endif
	return prdma_fp_ops[qp->dev_id].post_send(qp, wr, bad_wr);
}

/**
 * Post the @p nb send work requests of the array @p wr (wr[0] .. wr[nb - 1];
 * their @c next fields are ignored) with one doorbell. The QP's state and
 * the ring room are checked once for the burst, so a provider that has its
 * own implementation spends less per request than prdma_post_send does;
 * one without it gets the library's, which posts the requests one by one.
 *
 * @return 0 when all @p nb were posted (also for nb == 0), or a negative
 *   errno with *@p bad_wr set to the first request not posted (those before
 *   it were posted): the same errors as prdma_post_send.
 */
static inline int
prdma_post_send_burst(struct prdma_qp *qp, const struct prdma_send_wr *wr,
		      uint16_t nb, const struct prdma_send_wr **bad_wr)
{
#ifdef PRDMA_DEBUG
	if (!prdma__obj_live(qp, PRDMA__OBJ_QP) || (wr == NULL && nb != 0) ||
	    bad_wr == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
#endif
	return prdma_fp_ops[qp->dev_id].post_send_burst(qp, wr, nb, bad_wr);
}

/** Post a chain of receive work requests (return as prdma_post_send). */
static inline int
prdma_post_recv(struct prdma_qp *qp, const struct prdma_recv_wr *wr,
		const struct prdma_recv_wr **bad_wr)
{
#ifdef PRDMA_DEBUG
	if (!prdma__obj_live(qp, PRDMA__OBJ_QP) || wr == NULL || bad_wr == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
#endif
	return prdma_fp_ops[qp->dev_id].post_recv(qp, wr, bad_wr);
}

/** Post a chain of receive work requests to an SRQ. */
static inline int
prdma_post_srq_recv(struct prdma_srq *srq, const struct prdma_recv_wr *wr,
		    const struct prdma_recv_wr **bad_wr)
{
#ifdef PRDMA_DEBUG
	if (!prdma__obj_live(srq, PRDMA__OBJ_SRQ) || wr == NULL || bad_wr == NULL) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
#endif
	return prdma_fp_ops[srq->dev_id].post_srq_recv(srq, wr, bad_wr);
}

/**
 * Poll up to @p nb completions into @p wc.
 * @return the number of completions written (0..nb).
 */
static inline int
prdma_cq_poll(struct prdma_cq *cq, uint16_t nb, struct prdma_wc *wc)
{
#ifdef PRDMA_DEBUG
	if (!prdma__obj_live(cq, PRDMA__OBJ_CQ) || wc == NULL)
		return 0;
#endif
	return prdma_fp_ops[cq->dev_id].poll_cq(cq, nb, wc);
}

/** Number of completions ready to be polled (without consuming them). */
static inline int
prdma_cq_peek(struct prdma_cq *cq)
{
#ifdef PRDMA_DEBUG
	if (!prdma__obj_live(cq, PRDMA__OBJ_CQ))
		return 0;
#endif
	return prdma_fp_ops[cq->dev_id].peek_cq(cq);
}

/* ------------------------------------------------------------------------ */
/* Work-request templates                                                    */
/* ------------------------------------------------------------------------ */

/**
 * A send work request validated once and bound to one QP
 * (prdma_wr_template_create). Fields are read-only for the application.
 */
struct prdma_wr_tmpl {
	/** the bound QP; NULL once that QP is destroyed */
	struct prdma_qp *qp;
	/** @internal the provider's post, or the library's (prdma_post_template) */
	prdma_post_tmpl_t post;
	/** @internal the same for prdma_post_template_burst */
	prdma_post_tmpl_burst_t post_burst;
	uint32_t max_len;                  /**< bytes one post may carry */
	uint32_t flags;                    /**< as created (0 today) */
	/** @internal next template of the same QP */
	struct prdma_wr_tmpl *lib_next;
	/** @internal the device whose memory holds it */
	struct prdma_dev *lib_dev;
	/** the prototype as validated; sg_list points at @c sge */
	struct prdma_send_wr proto;
	struct prdma_sge sge;
	/** @internal the provider's prebuilt segments */
	uint64_t prov[12] __rte_aligned(16);
};

/**
 * Validate @p proto once for @p qp and return a template that posts it
 * with only the data, its length, the remote address and the wr_id given
 * per post (prdma_post_template).
 *
 * @p proto: @c next NULL; @c num_sge 1, whose @c length is the most bytes a
 * post may carry and whose @c lkey is used for every post (its @c addr is
 * ignored); an opcode among SEND, SEND_WITH_IMM, RDMA_WRITE,
 * RDMA_WRITE_WITH_IMM and RDMA_READ that the QP type takes (UD: SEND and
 * SEND_WITH_IMM, with its @c wr.ud); PRDMA_SEND_* flags only; with
 * PRDMA_SEND_INLINE, a length within the QP's max_inline_data (not for
 * READ). @c wr.rdma.rkey, @c imm_data and the send flags are fixed for the
 * template. @p flags must be 0.
 *
 * A template belongs to its QP: destroying the QP leaves it unbound (a post
 * through it fails with EINVAL) and it must still be destroyed with
 * prdma_wr_template_destroy. Control path (takes the device lock).
 *
 * @return the template, or NULL with rte_errno: EINVAL (a bad QP, request
 *   or flags), ENOMEM.
 */
struct prdma_wr_tmpl *prdma_wr_template_create(struct prdma_qp *qp,
					       const struct prdma_send_wr *proto,
					       uint32_t flags);

/** Destroy a template. @return 0, or -EINVAL (not a live template). */
int prdma_wr_template_destroy(struct prdma_wr_tmpl *t);

/** @internal The failure of a post through a bad template: EINVAL. */
int prdma__post_template_bad(void);

/**
 * Post one request from template @p t on @p qp: @p len bytes at @p data
 * (copied now for an inline template; else a local buffer under the
 * template's lkey), to @p remote_addr (RDMA opcodes; ignored for SEND),
 * completed with @p wr_id. Only what changes per request is written; the
 * rest was validated and, on a provider that supports it, prebuilt when the
 * template was created. Fast path: no lock, no allocation.
 *
 * @return 0, or a negative errno (also in rte_errno), as prdma_post_send:
 *   -EINVAL @p t is not a live template bound to @p qp (another QP's, a
 *   destroyed template, a template of a destroyed QP) or @p len exceeds
 *   t->max_len; -ENOMEM send queue full; -EBADMSG QP in a state that does
 *   not allow posting.
 */
static inline int
prdma_post_template(struct prdma_qp *qp, const struct prdma_wr_tmpl *t,
		    const void *data, uint32_t len, uint64_t remote_addr, uint64_t wr_id)
{
	/* an unbound template (QP destroyed) has qp NULL and a post that fails */
	if (unlikely(!prdma__obj_live(t, PRDMA__OBJ_TMPL) || t->qp != qp ||
		     len > t->max_len))
		return prdma__post_template_bad();
	return t->post(qp, t, data, len, remote_addr, wr_id);
}

/** One request of prdma_post_template_burst: what changes per post. */
struct prdma_tmpl_req {
	const void *data;
	uint64_t remote_addr;
	uint64_t wr_id;
	uint32_t len;
	uint32_t reserved;
};

/**
 * Post the @p nb requests of @p req from template @p t with one doorbell:
 * each as prdma_post_template would post it, the QP's state and the ring
 * room checked once for the burst.
 *
 * @return 0 when all @p nb were posted (also for nb == 0), or a negative
 *   errno (also in rte_errno) with *@p posted the number posted before the
 *   request that failed (req[*posted]): the errors of prdma_post_template
 *   (-EINVAL for a bad template, *@p posted 0, or a request longer than
 *   t->max_len; -ENOMEM for the first request that does not fit; -EBADMSG).
 *   *@p posted is nb on success.
 */
static inline int
prdma_post_template_burst(struct prdma_qp *qp, const struct prdma_wr_tmpl *t,
			  const struct prdma_tmpl_req *req, uint16_t nb, uint16_t *posted)
{
	if (unlikely(!prdma__obj_live(t, PRDMA__OBJ_TMPL) || t->qp != qp)) {
		*posted = 0;
		return prdma__post_template_bad();
	}
	return t->post_burst(qp, t, req, nb, posted);
}

#ifdef __cplusplus
}
#endif

#endif /* PRDMA_FP_H */
