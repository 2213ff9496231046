/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * rdma_cm ids: creation, addresses (bind, resolve, listen), requests,
 * options. A synchronous id (no channel given) gets a channel of its own
 * and every call that starts an exchange waits for its outcome, as
 * librdmacm's do; the event stays in id->event until the next such call.
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdmacm_private.h"

enum prdma_cm_port_space
rcm_ps(enum rdma_port_space ps)
{
	switch (ps) {
	case RDMA_PS_TCP:
		return PRDMA_CM_PS_TCP;
	case RDMA_PS_UDP:
		return PRDMA_CM_PS_UDP;
	case RDMA_PS_IB:
		return PRDMA_CM_PS_IB;
	default:
		return 0;
	}
}

/* Under rcm_lock. */
struct rcm_id *
rcm_id_new(struct rcm_channel *ch, void *context, enum rdma_port_space ps,
	   enum ibv_qp_type qpt)
{
	struct rcm_id *id = calloc(1, sizeof(*id));

	if (id == NULL)
		return NULL;
	id->ch = ch;
	id->pub.channel = &ch->pub;
	id->pub.context = context;
	id->pub.ps = ps;
	id->pub.qp_type = qpt;
	id->ack_timeout = 0;
	TAILQ_INSERT_TAIL(&rcm_ids, id, next);
	ch->ids++;
	return id;
}

int
rcm_id_attach(struct rcm_id *id, struct prdma_dev *dev)
{
	struct ibv_context *ctx;

	if (id->dev == dev)
		return 0;
	if (id->dev != NULL)
		return -EINVAL;
	ctx = prdma_verbs_context_get(dev);
	if (ctx == NULL)
		return -ENODEV;
	id->dev = dev;
	id->pub.verbs = ctx;
	id->pub.port_num = 1;
	return 0;
}

static void
addr_gid(const struct sockaddr *sa, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (sa->sa_family == AF_INET) {
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		memcpy(gid->raw + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(gid->raw, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

/* The route as rdma_cm shows it: addresses, GIDs, one path record. */
void
rcm_id_fill_addrs(struct rcm_id *id)
{
	struct rdma_route *r = &id->pub.route;

	if (id->pid != NULL) {
		if (id->pid->local_addr.ss_family != 0)
			memcpy(&r->addr.src_storage, &id->pid->local_addr,
			       sizeof(r->addr.src_storage));
		if (id->pid->peer_addr.ss_family != 0)
			memcpy(&r->addr.dst_storage, &id->pid->peer_addr,
			       sizeof(r->addr.dst_storage));
	}
	addr_gid(&r->addr.src_addr, &r->addr.addr.ibaddr.sgid);
	addr_gid(&r->addr.dst_addr, &r->addr.addr.ibaddr.dgid);
	r->addr.addr.ibaddr.pkey = 0xffff;
	if (r->addr.dst_addr.sa_family != 0) {
		memset(&id->path, 0, sizeof(id->path));
		id->path.sgid = r->addr.addr.ibaddr.sgid;
		id->path.dgid = r->addr.addr.ibaddr.dgid;
		id->path.pkey = htons(0xffff);
		id->path.hop_limit = 64;
		id->path.traffic_class = id->tos;
		id->path.mtu = IBV_MTU_1024;
		id->path.mtu_selector = 2;  /* exactly */
		id->path.packet_life_time = 18;
		r->path_rec = &id->path;
		r->num_paths = 1;
	}
}

int
rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **idp,
	       void *context, enum rdma_port_space ps)
{
	struct rcm_channel *ch = (struct rcm_channel *)channel;
	struct rcm_id *id;
	int ret;

	if (idp == NULL || rcm_ps(ps) == 0)
		return rcm_fail(EINVAL);
	ret = rcm_init();
	if (ret < 0)
		return rcm_fail(-ret);
	if (ch == NULL) {
		ch = rcm_channel_new(true);
		if (ch == NULL)
			return rcm_fail(ENOMEM);
	}
	pthread_mutex_lock(&rcm_lock);
	id = rcm_id_new(ch, context, ps, ps == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC);
	if (id == NULL) {
		if (channel == NULL)
			rcm_channel_free(ch);
		pthread_mutex_unlock(&rcm_lock);
		return rcm_fail(ENOMEM);
	}
	id->sync = channel == NULL;
	pthread_mutex_unlock(&rcm_lock);
	*idp = &id->pub;
	return 0;
}

/* Under rcm_lock: hand back the event a synchronous call left in id->event. */
static void
sync_release_locked(struct rcm_id *id)
{
	if (id->pub.event != NULL)
		rcm_ack_locked((struct rcm_event *)id->pub.event);
}

void
rcm_sync_release(struct rcm_id *id)
{
	pthread_mutex_lock(&rcm_lock);
	sync_release_locked(id);
	pthread_mutex_unlock(&rcm_lock);
}

int
rcm_sync_wait(struct rcm_id *id, enum rdma_cm_event_type want)
{
	struct rcm_event *ev;
	int st;

	pthread_mutex_lock(&rcm_lock);
	sync_release_locked(id);
	ev = rcm_wait_event_locked(id);
	id->pub.event = &ev->pub;
	pthread_mutex_unlock(&rcm_lock);
	st = ev->pub.status;
	if (ev->pub.event == want && st == 0)
		return 0;
	if (ev->pub.event == RDMA_CM_EVENT_REJECTED)
		return rcm_fail(ECONNREFUSED);
	if (st < 0)
		return rcm_fail(-st);
	return rcm_fail(st != 0 ? st : ECONNABORTED);
}

int
rdma_destroy_id(struct rdma_cm_id *pub)
{
	struct rcm_id *id = (struct rcm_id *)pub, *o;
	struct rcm_channel *ch;
	uint32_t i;

	if (id == NULL)
		return rcm_fail(EINVAL);
	pthread_mutex_lock(&rcm_lock);
	id->destroying = true;
	sync_release_locked(id);
	rcm_id_purge(id);
	/* As librdmacm: wait until the program has acked every event about it. */
	while (id->handed > 0)
		pthread_cond_wait(&rcm_cond, &rcm_lock);
	for (i = 0; i < id->nb_plisten; i++)
		prdma_cm_id_destroy(id->plisten[i]);
	if (id->pid != NULL) {
		id->pid->context = NULL;
		prdma_cm_id_destroy(id->pid);
	}
	TAILQ_FOREACH(o, &rcm_ids, next)
		if (o->listener == id)
			o->listener = NULL;
	TAILQ_REMOVE(&rcm_ids, id, next);
	ch = id->ch;
	ch->ids--;
	if (ch->own && ch->ids == 0)
		rcm_channel_free(ch);
	pthread_mutex_unlock(&rcm_lock);
	rcm_cqs_destroy(id);
	if (id->pub.verbs != NULL)
		prdma_verbs_context_put(id->pub.verbs);
	free(id);
	return 0;
}

/* Give @id its prdma id on @dev, bound to @addr (NULL: any). */
static int
make_pid(struct rcm_id *id, struct prdma_dev *dev, const struct sockaddr *addr)
{
	int ret;

	ret = rcm_id_attach(id, dev);
	if (ret < 0)
		return ret;
	if (id->pid == NULL) {
		id->pid = prdma_cm_id_create(rcm_cm_channel(), dev, 1, rcm_ps(id->pub.ps),
					     id);
		if (id->pid == NULL)
			return -rte_errno;
	}
	if (addr != NULL) {
		ret = prdma_cm_bind(id->pid, addr);
		if (ret < 0)
			return ret;
	}
	rcm_id_fill_addrs(id);
	return 0;
}

int
rdma_bind_addr(struct rdma_cm_id *pub, struct sockaddr *addr)
{
	struct rcm_id *id = (struct rcm_id *)pub;
	struct prdma_dev *dev;
	socklen_t len = rcm_addr_len(addr);
	int ret;

	if (id == NULL || len == 0)
		return rcm_fail(addr == NULL || len != 0 ? EINVAL : EAFNOSUPPORT);
	if (id->bound)
		return rcm_fail(EINVAL);
	memset(&id->bind_addr, 0, sizeof(id->bind_addr));
	memcpy(&id->bind_addr, addr, len);
	if (!rcm_addr_is_any(addr)) {
		ret = rcm_dev_of_addr(addr, &dev);
		if (ret < 0)
			return rcm_fail(EADDRNOTAVAIL);
		ret = make_pid(id, dev, addr);
		if (ret < 0)
			return rcm_fail(-ret);
	}
	memcpy(&pub->route.addr.src_storage, &id->bind_addr, sizeof(id->bind_addr));
	id->bound = true;
	return 0;
}

static int
queue_simple(struct rcm_id *id, enum rdma_cm_event_type type)
{
	struct rcm_event *ev;

	pthread_mutex_lock(&rcm_lock);
	ev = rcm_event_alloc(id, type, 0);
	if (ev != NULL)
		rcm_event_queue(ev);
	pthread_mutex_unlock(&rcm_lock);
	if (ev == NULL)
		return rcm_fail(ENOMEM);
	return id->sync ? rcm_sync_wait(id, type) : 0;
}

int
rdma_resolve_addr(struct rdma_cm_id *pub, struct sockaddr *src, struct sockaddr *dst,
		  int timeout_ms)
{
	struct rcm_id *id = (struct rcm_id *)pub;
	struct sockaddr_storage via;
	struct prdma_dev *dev;
	socklen_t len = rcm_addr_len(dst);
	int ret;

	(void)timeout_ms;                  /* resolution is local and immediate */
	if (id == NULL || len == 0)
		return rcm_fail(EINVAL);
	if (src != NULL && rcm_addr_len(src) != 0 && !id->bound) {
		if (rdma_bind_addr(pub, src) < 0)
			return -1;
	}
	if (id->pid == NULL) {
		ret = rcm_dev_route(dst, &dev, &via);
		if (ret < 0)
			return rcm_fail(ENODEV);
		/* The port a wildcard bind chose is kept as the source port. */
		if (id->bound)
			rcm_addr_set_port((struct sockaddr *)&via,
					  rcm_addr_port((struct sockaddr *)&id->bind_addr));
		ret = make_pid(id, dev, (struct sockaddr *)&via);
		if (ret < 0)
			return rcm_fail(-ret);
		id->bound = true;
	}
	memset(&pub->route.addr.dst_storage, 0, sizeof(pub->route.addr.dst_storage));
	memcpy(&pub->route.addr.dst_storage, dst, len);
	rcm_id_fill_addrs(id);
	return queue_simple(id, RDMA_CM_EVENT_ADDR_RESOLVED);
}

int
rdma_resolve_route(struct rdma_cm_id *pub, int timeout_ms)
{
	struct rcm_id *id = (struct rcm_id *)pub;

	(void)timeout_ms;
	if (id == NULL || id->pid == NULL || pub->route.addr.dst_addr.sa_family == 0)
		return rcm_fail(EINVAL);
	rcm_id_fill_addrs(id);
	return queue_simple(id, RDMA_CM_EVENT_ROUTE_RESOLVED);
}

int
rdma_listen(struct rdma_cm_id *pub, int backlog)
{
	struct rcm_id *id = (struct rcm_id *)pub;
	struct sockaddr *la = (struct sockaddr *)&id->bind_addr;
	struct prdma_cm_id *p;
	uint32_t i;
	int ret = -ENODEV;

	if (id == NULL || !id->bound || id->listening)
		return rcm_fail(EINVAL);
	if (backlog < 0)
		backlog = 0;
	if (rcm_addr_port(la) == 0) {
		/* rdma_cm picks a port for a listener bound to port 0. */
		rcm_addr_set_port(la, (uint16_t)(49152u + (uint32_t)rand() % 16384u));
		rcm_addr_set_port(&pub->route.addr.src_addr, rcm_addr_port(la));
	}
	if (id->pid != NULL) {
		ret = prdma_cm_listen(id->pid, la, backlog);
		if (ret < 0)
			return rcm_fail(-ret);
		id->listening = true;
		return 0;
	}
	/* A wildcard listens on every device, as rdma_cm does. */
	for (i = 0; i < rcm_dev_count() && id->nb_plisten < RCM_MAX_LISTEN; i++) {
		p = prdma_cm_id_create(rcm_cm_channel(), rcm_dev_at(i), 1,
				       rcm_ps(pub->ps), id);
		if (p == NULL) {
			ret = -rte_errno;
			continue;
		}
		ret = prdma_cm_listen(p, la, backlog);
		if (ret < 0) {
			prdma_cm_id_destroy(p);
			break;
		}
		id->plisten[id->nb_plisten++] = p;
	}
	if (ret < 0 || id->nb_plisten == 0) {
		while (id->nb_plisten > 0)
			prdma_cm_id_destroy(id->plisten[--id->nb_plisten]);
		return rcm_fail(-ret);
	}
	id->listening = true;
	return 0;
}

int
rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **idp)
{
	struct rcm_id *l = (struct rcm_id *)listen, *id;
	struct rcm_event *ev = NULL;
	struct ibv_qp_init_attr attr;

	if (l == NULL || idp == NULL || !l->sync || !l->listening)
		return rcm_fail(EINVAL);
	pthread_mutex_lock(&rcm_lock);
	sync_release_locked(l);
	while (ev == NULL) {
		TAILQ_FOREACH(ev, &l->ch->queue, next)
			if (ev->pub.listen_id == listen &&
			    ev->pub.event == RDMA_CM_EVENT_CONNECT_REQUEST)
				break;
		if (ev == NULL)
			pthread_cond_wait(&rcm_cond, &rcm_lock);
	}
	TAILQ_REMOVE(&l->ch->queue, ev, next);
	TAILQ_INSERT_HEAD(&l->ch->queue, ev, next);
	ev = rcm_wait_event_locked(ev->owner);
	id = ev->owner;
	id->pub.event = &ev->pub;
	pthread_mutex_unlock(&rcm_lock);
	if (l->ep_has_attr) {
		attr = l->ep_attr;
		if (rdma_create_qp(&id->pub, l->ep_pd, &attr) < 0) {
			int err = errno;

			rdma_reject(&id->pub, NULL, 0);
			rdma_destroy_id(&id->pub);
			return rcm_fail(err);
		}
	}
	*idp = &id->pub;
	return 0;
}

int
rdma_migrate_id(struct rdma_cm_id *pub, struct rdma_event_channel *channel)
{
	struct rcm_id *id = (struct rcm_id *)pub;
	struct rcm_channel *to = (struct rcm_channel *)channel, *from;
	struct rcm_event *ev, *tmp;
	uint64_t v, one = 1;

	if (id == NULL)
		return rcm_fail(EINVAL);
	if (to == NULL) {
		to = rcm_channel_new(true);
		if (to == NULL)
			return rcm_fail(ENOMEM);
	}
	pthread_mutex_lock(&rcm_lock);
	while (id->handed > 0 && id->pub.event == NULL)
		pthread_cond_wait(&rcm_cond, &rcm_lock);
	from = id->ch;
	for (ev = TAILQ_FIRST(&from->queue); ev != NULL; ev = tmp) {
		tmp = TAILQ_NEXT(ev, next);
		if (ev->owner != id)
			continue;
		TAILQ_REMOVE(&from->queue, ev, next);
		if (read(from->pub.fd, &v, sizeof(v)) < 0)
			v = 0;
		TAILQ_INSERT_TAIL(&to->queue, ev, next);
		if (write(to->pub.fd, &one, sizeof(one)) < 0)
			v = 0;
	}
	from->ids--;
	to->ids++;
	id->ch = to;
	id->pub.channel = &to->pub;
	id->sync = channel == NULL;
	if (from->own && from->ids == 0)
		rcm_channel_free(from);
	pthread_cond_broadcast(&rcm_cond);
	pthread_mutex_unlock(&rcm_lock);
	return 0;
}

int
rdma_set_option(struct rdma_cm_id *pub, int level, int optname, void *optval,
		size_t optlen)
{
	struct rcm_id *id = (struct rcm_id *)pub;

	if (id == NULL || optval == NULL)
		return rcm_fail(EINVAL);
	if (level == RDMA_OPTION_ID) {
		switch (optname) {
		case RDMA_OPTION_ID_TOS:
			if (optlen != sizeof(uint8_t))
				return rcm_fail(EINVAL);
			id->tos = *(uint8_t *)optval;
			return 0;
		case RDMA_OPTION_ID_REUSEADDR:
		case RDMA_OPTION_ID_AFONLY:
			/* Listeners never hold a port past their id here, and
			 * an IPv6 wildcard takes IPv4 unless bound otherwise. */
			return optlen == sizeof(int) ? 0 : rcm_fail(EINVAL);
		case RDMA_OPTION_ID_ACK_TIMEOUT:
			if (optlen != sizeof(uint8_t))
				return rcm_fail(EINVAL);
			id->ack_timeout = *(uint8_t *)optval;
			return 0;
		default:
			return rcm_fail(ENOSYS);
		}
	}
	if (level == RDMA_OPTION_IB && optname == RDMA_OPTION_IB_PATH)
		return rcm_fail(ENOSYS);       /* paths come from the CM itself */
	return rcm_fail(ENOSYS);
}

__be16
rdma_get_src_port(struct rdma_cm_id *pub)
{
	return htons(rcm_addr_port(&pub->route.addr.src_addr));
}

__be16
rdma_get_dst_port(struct rdma_cm_id *pub)
{
	return htons(rcm_addr_port(&pub->route.addr.dst_addr));
}
