/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The id API: every argument is checked here, under cm_lock, before the
 * protocol code sees it.
 */

#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "cm_private.h"

static const struct prdma_cm_conn_param default_param = {
	.retry_count = 7,
	.rnr_retry_count = 7,
};

static bool
ps_valid(enum prdma_cm_port_space ps)
{
	return ps == PRDMA_CM_PS_TCP || ps == PRDMA_CM_PS_UDP || ps == PRDMA_CM_PS_IB;
}

struct prdma_cm_id *
prdma_cm_id_create(struct prdma_cm_channel *ch, struct prdma_dev *dev,
		   uint8_t port_num, enum prdma_cm_port_space ps, void *context)
{
	struct cm_agent *ag;
	struct cm_id_priv *id;

	if (ch == NULL || dev == NULL || port_num == 0 || !ps_valid(ps)) {
		rte_errno = EINVAL;
		return NULL;
	}
	id = rte_zmalloc_socket("prdma_cm_id", sizeof(*id), 0, dev->socket_id);
	if (id == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&cm_lock);
	ag = cm_agent_get(dev, port_num);
	if (ag == NULL) {
		pthread_mutex_unlock(&cm_lock);
		rte_free(id);
		return NULL;
	}
	id->pub.dev = dev;
	id->pub.channel = ch;
	id->pub.context = context;
	id->pub.ps = (uint16_t)ps;
	id->pub.port_num = port_num;
	id->agent = ag;
	id->state = CM_IDLE;
	TAILQ_INSERT_TAIL(&ag->ids, id, next);
	ch->ids++;
	cm_stat_add(dev, CM_ST_IDS, 1);
	pthread_mutex_unlock(&cm_lock);
	return &id->pub;
}

/*
 * A DREQ of @id the peer has not answered yet may still be on its way out
 * of this process (a frame the port has not taken, a memif ring the peer
 * has not read): a program that disconnects, destroys and exits at once
 * would take it along, and its peer would never see the disconnect. The
 * kernel's CM outlives the process; here the destroy waits for the DREP
 * (or the peer's own DREQ), progressing the CM itself, for at most
 * CM_DESTROY_LINGER_MS. Called and returns with cm_lock held.
 */
static void
linger_for_drep(struct cm_id_priv *id)
{
	const struct timespec nap = { .tv_sec = 0, .tv_nsec = 50000 };
	uint64_t end = rte_get_timer_cycles() +
		rte_get_timer_hz() * CM_DESTROY_LINGER_MS / 1000;

	while (id->state == CM_DREQ_SENT && rte_get_timer_cycles() < end) {
		if (cm_progress_locked() != 0)
			continue;
		pthread_mutex_unlock(&cm_lock);
		nanosleep(&nap, NULL);
		pthread_mutex_lock(&cm_lock);
	}
}

/*
 * What the destroy sent (a DREQ without resends, a REJ) and the DREP the
 * id may have just given the peer's DREQ sit in the provider's send queue:
 * a program that exits now takes them along. Wait, for at most
 * CM_DRAIN_US, until the port's MAD sends have completed, napping with
 * cm_lock released (another thread may progress the CM meanwhile). Called
 * and returns with cm_lock held.
 */
static void
drain_sends(struct cm_agent *ag)
{
	const struct timespec nap = { .tv_sec = 0, .tv_nsec = 20000 };
	uint64_t end = cm_agent_drain_end();

	while (!cm_agent_idle(ag) && cm_now() < end) {
		pthread_mutex_unlock(&cm_lock);
		nanosleep(&nap, NULL);
		pthread_mutex_lock(&cm_lock);
	}
}

int
prdma_cm_id_destroy(struct prdma_cm_id *pub)
{
	struct cm_id_priv *id = CM_ID(pub);

	if (pub == NULL)
		return cm_err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	if (id->events_out != 0) {
		pthread_mutex_unlock(&cm_lock);
		return cm_err(EBUSY);
	}
	id->destroying = true;
	linger_for_drep(id);
	cm_event_purge(id);
	cm_conn_abort(id);
	drain_sends(id->agent);
	cm_id_free(id);
	pthread_mutex_unlock(&cm_lock);
	return 0;
}

/* Resolve @p sa to one of the port's GIDs (the wildcard: the first of its
 * family). */
static int
local_gid(struct cm_id_priv *id, const struct sockaddr *sa, uint16_t *port)
{
	union prdma_gid want;
	bool any;
	int ret;

	ret = cm_sockaddr_to_gid(sa, &want, port, &any);
	if (ret < 0)
		return ret;
	return cm_find_sgid(id->agent, &want, any, sa->sa_family == AF_INET,
			    &id->sgid_index, &id->sgid);
}

int
prdma_cm_bind(struct prdma_cm_id *pub, const struct sockaddr *addr)
{
	struct cm_id_priv *id = CM_ID(pub);
	uint16_t port;
	int ret;

	if (pub == NULL || addr == NULL)
		return cm_err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	if (id->state != CM_IDLE || id->passive) {
		ret = -EINVAL;
		goto out;
	}
	ret = local_gid(id, addr, &port);
	if (ret < 0)
		goto out;
	id->src_port = port;
	id->bound = true;
	cm_gid_to_sockaddr(&id->sgid, port, &pub->local_addr);
out:
	pthread_mutex_unlock(&cm_lock);
	return ret < 0 ? cm_err(-ret) : 0;
}

int
prdma_cm_listen(struct prdma_cm_id *pub, const struct sockaddr *addr, int backlog)
{
	struct cm_id_priv *id = CM_ID(pub), *other;
	union prdma_gid want;
	uint64_t sid;
	uint16_t port;
	bool any;
	int ret;

	if (pub == NULL || addr == NULL || backlog < 0)
		return cm_err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	ret = cm_sockaddr_to_gid(addr, &want, &port, &any);
	if (ret < 0)
		goto out;
	if (id->state != CM_IDLE || id->passive || port == 0) {
		ret = -EINVAL;
		goto out;
	}
	if (!any) {
		ret = cm_find_sgid(id->agent, &want, false, false, &id->sgid_index,
				   &id->sgid);
		if (ret < 0)
			goto out;
	}
	sid = PRDMA_CM_SERVICE_ID(pub->ps, port);
	TAILQ_FOREACH(other, &id->agent->ids, next)
		if (other->state == CM_LISTEN && other->service_id == sid &&
		    (any || !other->bound ||
		     memcmp(&other->sgid, &id->sgid, sizeof(id->sgid)) == 0)) {
			ret = -EADDRINUSE;
			goto out;
		}
	id->bound = !any;
	id->service_id = sid;
	id->src_port = port;
	id->backlog = backlog != 0 ? (uint32_t)backlog : CM_DEF_BACKLOG;
	memcpy(&pub->local_addr, addr, addr->sa_family == AF_INET ?
	       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	id->state = CM_LISTEN;
	/* A harness waits for this line to start a client (DEBUG only). */
	CM_LOG(DEBUG, "%s: listening on service ID %016" PRIx64 " (port %u)",
	       id->agent->dev->name, sid, port);
	ret = 0;
out:
	pthread_mutex_unlock(&cm_lock);
	return ret < 0 ? cm_err(-ret) : 0;
}

static int
connect_check(struct cm_id_priv *id, struct prdma_qp *qp,
	      const struct prdma_cm_conn_param *p, bool ud)
{
	uint16_t max = ud ? PRDMA_CM_SIDR_REQ_PRIVATE_DATA : id->agent->max_caller;

	if (qp->dev != id->pub.dev)
		return -EINVAL;
	if (ud != (qp->qp_type == PRDMA_QPT_UD))
		return -EINVAL;
	if (id->pub.ps == PRDMA_CM_PS_TCP && qp->qp_type == PRDMA_QPT_UD)
		return -EINVAL;
	if (id->pub.ps == PRDMA_CM_PS_UDP && qp->qp_type != PRDMA_QPT_UD)
		return -EINVAL;
	if (p->private_data_len > max ||
	    (p->private_data_len > 0 && p->private_data == NULL))
		return -EINVAL;
	if (p->retry_count > 7 || p->rnr_retry_count > 7 || p->ack_timeout > 31 ||
	    p->min_rnr_timer > 31 || p->cm_response_timeout > 31 ||
	    p->max_cm_retries > 15)
		return -EINVAL;
	if (!ud && qp->state != PRDMA_QPS_RESET && qp->state != PRDMA_QPS_INIT)
		return -EINVAL;
	return 0;
}

int
prdma_cm_connect(struct prdma_cm_id *pub, struct prdma_qp *qp,
		 const struct sockaddr *dst, const struct prdma_cm_conn_param *param)
{
	struct cm_id_priv *id = CM_ID(pub);
	union prdma_gid dgid;
	bool any, ud;
	uint16_t port;
	int ret;

	if (pub == NULL || qp == NULL || dst == NULL)
		return cm_err(EINVAL);
	if (param == NULL)
		param = &default_param;
	ud = qp->qp_type == PRDMA_QPT_UD;
	pthread_mutex_lock(&cm_lock);
	ret = cm_sockaddr_to_gid(dst, &dgid, &port, &any);
	if (ret < 0)
		goto out;
	if (id->state != CM_IDLE || id->passive || any || port == 0) {
		ret = -EINVAL;
		goto out;
	}
	ret = connect_check(id, qp, param, ud);
	if (ret < 0)
		goto out;
	if (!id->bound) {
		ret = cm_find_sgid(id->agent, NULL, true, dst->sa_family == AF_INET,
				   &id->sgid_index, &id->sgid);
		if (ret < 0)
			goto out;
	}
	if (cm_gid_is_v4(&id->sgid) != cm_gid_is_v4(&dgid)) {
		ret = -EAFNOSUPPORT;
		goto out;
	}
	if (id->src_port == 0)
		id->src_port = cm_ephemeral_port();
	id->dgid = dgid;
	id->dst_port = port;
	id->service_id = PRDMA_CM_SERVICE_ID(pub->ps, port);
	cm_gid_to_sockaddr(&id->sgid, id->src_port, &pub->local_addr);
	cm_gid_to_sockaddr(&dgid, port, &pub->peer_addr);
	pub->qp = qp;
	id->qp_num = qp->qp_num;
	id->has_qp_num = true;
	ret = ud ? cm_sidr_connect(id, param) : cm_active_connect(id, param);
	if (ret < 0) {
		pub->qp = NULL;
		id->state = CM_IDLE;
	}
out:
	pthread_mutex_unlock(&cm_lock);
	return ret < 0 ? cm_err(-ret) : 0;
}

int
prdma_cm_accept(struct prdma_cm_id *pub, struct prdma_qp *qp,
		const struct prdma_cm_conn_param *param)
{
	struct cm_id_priv *id = CM_ID(pub);
	uint16_t max;
	int ret;

	if (pub == NULL || qp == NULL || qp->dev != pub->dev)
		return cm_err(EINVAL);
	if (param == NULL)
		param = &default_param;
	pthread_mutex_lock(&cm_lock);
	if (id->state == CM_SIDR_REQ_RCVD) {
		max = PRDMA_CM_SIDR_REP_PRIVATE_DATA;
	} else if (id->state == CM_REQ_RCVD && !id->path_wait) {
		max = id->agent->max_callee;
	} else {
		ret = -EINVAL;
		goto out;
	}
	if (param->private_data_len > max ||
	    (param->private_data_len > 0 && param->private_data == NULL) ||
	    param->rnr_retry_count > 7 || param->min_rnr_timer > 31) {
		ret = -EINVAL;
		goto out;
	}
	if (id->state == CM_REQ_RCVD && qp->state != PRDMA_QPS_RESET &&
	    qp->state != PRDMA_QPS_INIT) {
		ret = -EINVAL;
		goto out;
	}
	pub->qp = qp;
	id->qp_num = qp->qp_num;
	id->has_qp_num = true;
	ret = id->state == CM_SIDR_REQ_RCVD ? cm_sidr_accept(id, param) :
					      cm_passive_accept(id, param);
out:
	pthread_mutex_unlock(&cm_lock);
	return ret < 0 ? cm_err(-ret) : 0;
}

int
prdma_cm_reject(struct prdma_cm_id *pub, const void *private_data,
		uint16_t private_data_len, uint16_t reason)
{
	struct cm_id_priv *id = CM_ID(pub);
	int ret;

	if (pub == NULL || (private_data_len > 0 && private_data == NULL))
		return cm_err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	if (id->state == CM_SIDR_REQ_RCVD &&
	    private_data_len <= PRDMA_CM_SIDR_REP_PRIVATE_DATA)
		ret = cm_sidr_reject(id, private_data, private_data_len);
	else if (id->state == CM_REQ_RCVD &&
		 private_data_len <= PRDMA_CM_REJ_PRIVATE_DATA)
		ret = cm_passive_reject(id, private_data, private_data_len,
					reason != 0 ? reason :
					PRDMA_CM_REJ_CONSUMER_DEFINED);
	else
		ret = -EINVAL;
	pthread_mutex_unlock(&cm_lock);
	return ret < 0 ? cm_err(-ret) : 0;
}

int
prdma_cm_disconnect(struct prdma_cm_id *pub)
{
	struct cm_id_priv *id = CM_ID(pub);
	int ret;

	if (pub == NULL)
		return cm_err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	if (id->state == CM_ESTABLISHED || id->state == CM_REP_SENT)
		ret = cm_disc_send_dreq(id, true);
	else
		ret = -EINVAL;
	pthread_mutex_unlock(&cm_lock);
	return ret < 0 ? cm_err(-ret) : 0;
}

int
prdma_cm_id_release_qp(struct prdma_cm_id *pub)
{
	struct cm_id_priv *id = CM_ID(pub);

	if (pub == NULL)
		return cm_err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	/* A handshake cannot finish without its QP: end it as a destroy would. */
	switch (id->state) {
	case CM_REQ_SENT:
	case CM_REP_SENT:
	case CM_SIDR_REQ_SENT:
		cm_conn_abort(id);
		break;
	default:
		break;
	}
	id->path_wait = false;
	pub->qp = NULL;
	pthread_mutex_unlock(&cm_lock);
	return 0;
}
