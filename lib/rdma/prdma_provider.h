/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef PRDMA_PROVIDER_H
#define PRDMA_PROVIDER_H

/**
 * @file
 * prdma provider SDK: what a provider (drivers/net/roce, drivers/net/hermon)
 * implements and what the library gives it. Applications do not include it.
 *
 * Objects: the library allocates every object with the size the provider
 * declares in prdma_dev.obj_size (zeroed, cache aligned, on the device's
 * NUMA socket), fills the public head (the first member of the provider's
 * struct: struct prdma_qp, struct prdma_cq, ...) and then calls the
 * provider's create op, which initialises the rest and returns 0 or a
 * negative errno. The destroy op releases what create acquired; the library
 * frees the memory. Arguments are validated by the library before an op is
 * called: ops see only well-formed requests.
 *
 * Control ops are called with the device's control lock held, so they are
 * serialised per device. Fast-path functions (prdma_fp_ops) never are.
 */

#include <stdint.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_log.h>

#include "prdma.h"
#include "prdma_neigh.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The public head of a PD (providers embed it first). */
struct prdma_pd {
	struct prdma_dev *dev;
	uint32_t pd_num;
	uint32_t users;                    /**< objects created from it */
};

/** The public head of an AH. */
struct prdma_ah {
	struct prdma_dev *dev;
	struct prdma_pd *pd;
	struct prdma_ah_attr attr;
};

/** Sizes of the provider's objects (each >= the public head's size). */
struct prdma_obj_size {
	size_t pd;
	size_t mr;
	size_t mw;
	size_t cq;
	size_t srq;
	size_t qp;
	size_t ah;
};

/** Control operations of a provider. Keep sorted by object. */
struct prdma_dev_ops {
	/** Release everything the probe acquired (device removal). */
	void (*dev_remove)(struct prdma_dev *dev);
	int (*dev_query)(struct prdma_dev *dev, struct prdma_dev_attr *attr);
	int (*dev_modify)(struct prdma_dev *dev, uint32_t mask,
			  const struct prdma_dev_modify_attr *attr);
	/** Optional: drive the device once; NULL for self-progressing devices. */
	int (*dev_progress)(struct prdma_dev *dev);
	int (*port_query)(struct prdma_dev *dev, uint8_t port,
			  struct prdma_port_attr *attr);
	int (*port_modify)(struct prdma_dev *dev, uint8_t port,
			   uint32_t set_cap, uint32_t clear_cap);
	int (*gid_query)(struct prdma_dev *dev, uint8_t port, uint32_t index,
			 union prdma_gid *gid);

	int (*pd_alloc)(struct prdma_pd *pd);
	int (*pd_free)(struct prdma_pd *pd);

	/** Register; the library has checked that the range is DPDK memory. */
	int (*mr_reg)(struct prdma_mr *mr);
	int (*mr_dereg)(struct prdma_mr *mr);

	int (*mw_alloc)(struct prdma_mw *mw);
	int (*mw_dealloc)(struct prdma_mw *mw);

	int (*cq_create)(struct prdma_cq *cq, const struct prdma_cq_init_attr *attr);
	int (*cq_destroy)(struct prdma_cq *cq);
	int (*cq_resize)(struct prdma_cq *cq, uint32_t cqe);
	/** Arm: @p n == 0 for next/solicited per @p flags, else the next n. */
	int (*cq_arm)(struct prdma_cq *cq, enum prdma_cq_arm_flags flags,
		      uint32_t n);

	int (*srq_create)(struct prdma_srq *srq, struct prdma_srq_init_attr *attr);
	int (*srq_modify)(struct prdma_srq *srq, const struct prdma_srq_attr *attr,
			  uint32_t mask);
	int (*srq_query)(struct prdma_srq *srq, struct prdma_srq_attr *attr);
	int (*srq_destroy)(struct prdma_srq *srq);

	/** Create; update @p attr->cap with the actual capacities. */
	int (*qp_create)(struct prdma_qp *qp, struct prdma_qp_init_attr *attr);
	/** Modify; the library has checked the transition and the mask. */
	int (*qp_modify)(struct prdma_qp *qp, const struct prdma_qp_attr *attr,
			 uint32_t mask);
	int (*qp_query)(struct prdma_qp *qp, struct prdma_qp_attr *attr);
	/** Destroy; flush outstanding work to the CQs first. */
	int (*qp_destroy)(struct prdma_qp *qp);
	/**
	 * Optional: prepare a work-request template the library has
	 * validated (t->qp, t->proto, t->max_len set): prebuild what the
	 * provider needs in t->prov and set t->post (and t->post_burst, or
	 * leave the library's loop over t->post) to the provider's posts.
	 * -ENOTSUP (or NULL) leaves t->post the library's, which builds a
	 * prdma_send_wr and calls post_send.
	 */
	int (*wr_tmpl_create)(struct prdma_qp *qp, struct prdma_wr_tmpl *t);

	/** Fill the counters the provider keeps; set missing_mask bits for
	 * the others (the library adds the CM and CQ-error counters). */
	int (*dev_counters_get)(struct prdma_dev *dev, struct prdma_dev_counters *c);
	int (*dev_counters_reset)(struct prdma_dev *dev);
	int (*qp_counters_get)(struct prdma_qp *qp, struct prdma_qp_counters *c);
	int (*qp_counters_reset)(struct prdma_qp *qp);

	/** Attach/detach a UD QP to a multicast GID. The library has checked
	 * the QP type and that the GID is multicast; the provider keeps the
	 * group tables, so it answers -EEXIST (already attached), -ENOENT (not
	 * attached) and -ENOSPC (a group limit reached) itself. */
	int (*mcast_attach)(struct prdma_qp *qp, const union prdma_gid *gid);
	int (*mcast_detach)(struct prdma_qp *qp, const union prdma_gid *gid);

	int (*ah_create)(struct prdma_ah *ah);
	int (*ah_modify)(struct prdma_ah *ah, const struct prdma_ah_attr *attr);
	int (*ah_destroy)(struct prdma_ah *ah);
};

/** Depth of the per-device asynchronous event queue. */
#define PRDMA_EVENT_QUEUE_LEN 256

/** A device: one per probe. */
struct prdma_dev {
	uint16_t dev_id;
	uint16_t open_count;
	int socket_id;
	char name[PRDMA_DEV_NAME_LEN];
	const struct prdma_provider *provider;
	/**
	 * Set by the provider's probe; after it, the library points it at
	 * ops_full, a copy where every op the provider left NULL returns
	 * -ENOTSUP (or does nothing, for dev_remove/dev_progress/pd_*).
	 */
	const struct prdma_dev_ops *ops;
	struct prdma_dev_ops ops_full;
	struct prdma_fp_ops fp;            /**< set by the provider's probe */
	struct prdma_obj_size obj_size;    /**< set by the provider's probe */
	void *priv;                        /**< the provider's device */
	uint32_t objects;                  /**< live objects (PD, CQ, ...) */
	/** dead objects' memory per kind, reused first (guarded by lock) */
	struct prdma__obj_hdr *obj_cache[PRDMA__OBJ_KINDS];
	TAILQ_HEAD(, prdma_qp) qps;        /**< live QPs (guarded by lock) */
	/** Counters the library keeps (CM, CQ errors); atomic updates. */
	uint64_t lib_cnt[PRDMA_DEV_CNT_MAX];
	pthread_mutex_t lock;              /**< control-path lock */

	/* asynchronous events (control path; guarded by ev_lock) */
	pthread_mutex_t ev_lock;
	prdma_event_cb_t ev_cb;
	void *ev_cb_arg;
	uint32_t ev_head;
	uint32_t ev_tail;
	uint64_t ev_lost;
	struct prdma_async_event ev_queue[PRDMA_EVENT_QUEUE_LEN];
};

/** A provider: registered from a constructor with PRDMA_PROVIDER_REGISTER. */
struct prdma_provider {
	TAILQ_ENTRY(prdma_provider) next;
	const char *name;                  /**< devargs prefix: "roce", "hermon" */
	/** Comma-separated list of accepted keys, for help and validation. */
	const char *params;
	/**
	 * Probe a device: parse @p args (the part after "name:"; never NULL),
	 * set dev->ops, dev->fp, dev->obj_size and dev->priv, and may rename the
	 * device (dev->name holds a default "<provider><n>").
	 * Return 0 or a negative errno (with a log line naming the bad key).
	 */
	int (*probe)(struct prdma_dev *dev, const char *args);
};

/** Register a provider (call from a constructor). */
void prdma_provider_register(struct prdma_provider *provider);

#define PRDMA_PROVIDER_REGISTER(p) \
	RTE_INIT(prdma_provider_init_##p) { prdma_provider_register(&(p)); }

/**
 * Raise an asynchronous event on @p dev: queued for prdma_event_get and
 * passed to the registered callback. Safe from any thread; not for the
 * fast path's common case (it takes the event lock).
 */
void prdma_dev_raise_event(struct prdma_dev *dev,
			   const struct prdma_async_event *event);

/**
 * Signal a CQ's notification fd (provider calls it when an armed CQ fires).
 * One write(2) on the eventfd: only on an armed notification.
 */
void prdma_cq_notify(struct prdma_cq *cq);

/** Fast-path dummies a provider may use for entries it does not support. */
int prdma_fp_dummy_post_send(struct prdma_qp *qp, const struct prdma_send_wr *wr,
			     const struct prdma_send_wr **bad_wr);
int prdma_fp_dummy_post_recv(struct prdma_qp *qp, const struct prdma_recv_wr *wr,
			     const struct prdma_recv_wr **bad_wr);
int prdma_fp_dummy_post_srq_recv(struct prdma_srq *srq,
				 const struct prdma_recv_wr *wr,
				 const struct prdma_recv_wr **bad_wr);
int prdma_fp_dummy_poll_cq(struct prdma_cq *cq, uint16_t nb, struct prdma_wc *wc);
int prdma_fp_dummy_peek_cq(struct prdma_cq *cq);
/** The library's burst post: each request through the device's post_send. */
int prdma_fp_generic_post_send_burst(struct prdma_qp *qp, const struct prdma_send_wr *wr,
				     uint16_t nb, const struct prdma_send_wr **bad_wr);

/**
 * The library's template post (what t->post is unless the provider's
 * wr_tmpl_create set its own): a prdma_send_wr from t->proto with the
 * per-post fields, through the device's post_send. Providers may call it
 * for the requests their own post does not take.
 */
int prdma_fp_generic_post_template(struct prdma_qp *qp, const struct prdma_wr_tmpl *t,
				   const void *data, uint32_t len, uint64_t remote_addr,
				   uint64_t wr_id);
/** The library's template burst: each request through t->post. */
int prdma_fp_generic_post_template_burst(struct prdma_qp *qp, const struct prdma_wr_tmpl *t,
					 const struct prdma_tmpl_req *req, uint16_t nb,
					 uint16_t *posted);

/**
 * True when [addr, addr+len) lies in DPDK memory that a device can reach
 * (one contiguous memseg list, internal or registered external memory).
 */
bool prdma_mem_is_dma(const void *addr, size_t len);

/** Log type of the library (providers register their own). */
extern int prdma_logtype;

#define PRDMA_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, prdma_logtype, "prdma: " fmt "\n", ##__VA_ARGS__)

/**
 * Parse a devargs number: the whole of @p value must be a decimal or 0x
 * hexadecimal integer in [min, max]. Logs "<provider>: <key>=<value>: ..."
 * and returns -EINVAL otherwise.
 */
int prdma_args_parse_u64(const char *provider, const char *key, const char *value,
			 uint64_t min, uint64_t max, uint64_t *out);

/**
 * Check that every key of a "k=v,k=v" string is in the NULL-terminated
 * @p valid list; logs the first unknown key and returns -EINVAL.
 * (A thin wrapper over rte_kvargs_parse that names the offending key.)
 */
struct rte_kvargs;
struct rte_kvargs *prdma_args_parse(const char *provider, const char *args,
				    const char *const valid[]);

/** Add @p delta to a library-owned device counter (CM, CQ error). */
void prdma_dev_counter_add(struct prdma_dev *dev, enum prdma_dev_counter c,
			   int64_t delta);

/** A random 32-bit value for key and QPN seeds (not for the fast path). */
uint32_t prdma_random32(void);

#ifdef __cplusplus
}
#endif

#endif /* PRDMA_PROVIDER_H */
