/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Devices, contexts, and the device/port/GID/P_Key queries. */

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "pv_private.h"

#undef ibv_query_port

static struct pv_device pv_devs[PRDMA_MAX_DEVS];
static uint8_t pv_dev_valid[PRDMA_MAX_DEVS];
static pthread_mutex_t pv_dev_lock = PTHREAD_MUTEX_INITIALIZER;

/* Shared contexts of the bridge (prdma_verbs_context_get), one per device. */
static struct ibv_context *pv_shared_ctx[PRDMA_MAX_DEVS];

static void
dev_fill(struct pv_device *d, uint16_t id)
{
	struct prdma_dev_attr attr;
	struct prdma_dev *dev;
	const char *name = prdma_dev_name(id);

	memset(d, 0, sizeof(*d));
	d->dev_id = id;
	d->dev.node_type = IBV_NODE_CA;
	d->dev.transport_type = IBV_TRANSPORT_IB;
	snprintf(d->dev.name, sizeof(d->dev.name), "%s", name != NULL ? name : "prdma");
	snprintf(d->dev.dev_name, sizeof(d->dev.dev_name), "uverbs%u", id);
	snprintf(d->dev.dev_path, sizeof(d->dev.dev_path),
		 "/sys/class/infiniband_verbs/uverbs%u", id);
	snprintf(d->dev.ibdev_path, sizeof(d->dev.ibdev_path),
		 "/sys/class/infiniband/%s", d->dev.name);
	dev = prdma_dev_open(id);
	if (dev != NULL) {
		if (prdma_dev_query(dev, &attr) == 0)
			d->node_guid = htobe64(attr.node_guid);
		prdma_dev_close(dev);
	}
}

/* Refresh the table from prdma's device list: a device keeps its entry. */
static unsigned int
dev_refresh(void)
{
	unsigned int n = 0;
	uint16_t id;

	pthread_mutex_lock(&pv_dev_lock);
	for (id = prdma_dev_next(0); id < PRDMA_MAX_DEVS; id = prdma_dev_next(id + 1)) {
		if (!pv_dev_valid[id]) {
			dev_fill(&pv_devs[id], id);
			pv_dev_valid[id] = 1;
		}
		n++;
	}
	pthread_mutex_unlock(&pv_dev_lock);
	return n;
}

struct pv_device *
pv_device_of(uint16_t dev_id)
{
	if (dev_id >= PRDMA_MAX_DEVS)
		return NULL;
	dev_refresh();
	return pv_dev_valid[dev_id] ? &pv_devs[dev_id] : NULL;
}

struct ibv_device **
ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list;
	unsigned int n = 0;
	uint16_t id;
	int ret;

	if (num_devices != NULL)
		*num_devices = 0;
	/* A PMD that EAL loads while we start it (net_mlx4/5 link libibverbs)
	 * sees no device rather than recursing into the start-up. */
	if (pv_in_init())
		return calloc(1, sizeof(*list));
	ret = pv_init();
	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	dev_refresh();
	list = calloc(PRDMA_MAX_DEVS + 1, sizeof(*list));
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&pv_dev_lock);
	for (id = 0; id < PRDMA_MAX_DEVS; id++)
		if (pv_dev_valid[id] && prdma_dev_name(id) != NULL)
			list[n++] = &pv_devs[id].dev;
	pthread_mutex_unlock(&pv_dev_lock);
	if (num_devices != NULL)
		*num_devices = (int)n;
	return list;
}

void
ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *
ibv_get_device_name(struct ibv_device *device)
{
	return device != NULL ? device->name : NULL;
}

__be64
ibv_get_device_guid(struct ibv_device *device)
{
	return device != NULL ? container_of(device, struct pv_device, dev)->node_guid : 0;
}

int
ibv_get_device_index(struct ibv_device *device)
{
	return device != NULL ? container_of(device, struct pv_device, dev)->dev_id : -1;
}

static int pv_query_port_ex(struct ibv_context *c, uint8_t port, struct ibv_port_attr *a,
			    size_t len);

struct ibv_context *
pv_context_open(struct pv_device *pvdev)
{
	struct pv_context *ctx;
	struct ibv_context *c;

	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ctx->dev = prdma_dev_open(pvdev->dev_id);
	if (ctx->dev == NULL) {
		errno = rte_errno != 0 ? rte_errno : ENODEV;
		free(ctx);
		return NULL;
	}
	c = &ctx->vctx.context;
	ctx->magic = PV_MAGIC_CTX;
	ctx->pvdev = pvdev;
	ctx->refs = 1;
	/* The extended ops this library has; verbs.h's inlines treat the
	 * missing (NULL) ones as a provider without the extension does. */
	ctx->vctx.sz = sizeof(ctx->vctx);
	ctx->vctx.query_port = pv_query_port_ex;
	c->device = &pvdev->dev;
	c->ops.post_send = pv_post_send;
	c->ops.post_recv = pv_post_recv;
	c->ops.post_srq_recv = pv_post_srq_recv;
	c->ops.poll_cq = pv_poll_cq;
	c->ops.req_notify_cq = pv_req_notify_cq;
	c->cmd_fd = -1;
	c->async_fd = eventfd(0, EFD_CLOEXEC);
	c->num_comp_vectors = 1;
	pthread_mutex_init(&c->mutex, NULL);
	c->abi_compat = __VERBS_ABI_IS_EXTENDED;
	return c;
}

struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	int ret = pv_init();

	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	if (device == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return pv_context_open(container_of(device, struct pv_device, dev));
}

int
ibv_close_device(struct ibv_context *c)
{
	struct pv_context *ctx;

	if (c == NULL)
		return pv_err(EINVAL);
	ctx = pv_ctx(c);
	if (ctx->magic != PV_MAGIC_CTX)
		return pv_err(EINVAL);
	if (prdma_dev_close(ctx->dev) < 0) {
		/*
		 * Objects still exist (perftest leaks a CQ, for one). Verbs
		 * lets a context close anyway; the objects stay usable and the
		 * device open until the process exits.
		 */
		ctx->magic = PV_MAGIC_CTX;
		return 0;
	}
	if (c->async_fd >= 0)
		close(c->async_fd);
	pthread_mutex_destroy(&c->mutex);
	ctx->magic = 0;
	free(ctx);
	return 0;
}

/* ------------------------------------------------------------------ */

static int
ctx_attr(struct ibv_context *c, struct prdma_dev_attr *attr)
{
	if (c == NULL || pv_ctx(c)->magic != PV_MAGIC_CTX)
		return EINVAL;
	return -prdma_dev_query(pv_ctx(c)->dev, attr);
}

int
ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	struct prdma_dev_attr attr;
	int ret;

	if (a == NULL)
		return pv_err(EINVAL);
	ret = ctx_attr(c, &attr);
	if (ret != 0)
		return pv_err(ret);
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%u.%u.%u",
		 (unsigned int)(attr.fw_ver >> 32), (unsigned int)(attr.fw_ver >> 16) & 0xffff,
		 (unsigned int)attr.fw_ver & 0xffff);
	a->node_guid = htobe64(attr.node_guid);
	a->sys_image_guid = htobe64(attr.sys_image_guid);
	a->max_mr_size = attr.max_mr_size;
	a->page_size_cap = attr.page_size_cap;
	a->vendor_id = attr.vendor_id;
	a->vendor_part_id = attr.vendor_part_id;
	a->hw_ver = attr.hw_ver;
	a->max_qp = (int)attr.max_qp;
	a->max_qp_wr = (int)attr.max_qp_wr;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT;
	if (attr.flags & PRDMA_DEV_CAP_SRQ)
		a->device_cap_flags |= IBV_DEVICE_SRQ_RESIZE;
	a->max_sge = (int)RTE_MIN(attr.max_send_sge, attr.max_recv_sge);
	a->max_sge_rd = (int)attr.max_read_sge;
	a->max_cq = (int)attr.max_cq;
	a->max_cqe = (int)attr.max_cqe;
	a->max_mr = (int)attr.max_mr;
	a->max_pd = (int)attr.max_pd;
	a->max_qp_rd_atom = (int)attr.max_qp_rd_atom;
	a->max_res_rd_atom = (int)attr.max_res_rd_atom;
	a->max_qp_init_rd_atom = (int)attr.max_qp_init_rd_atom;
	a->atomic_cap = (attr.flags & PRDMA_DEV_CAP_ATOMIC) ? IBV_ATOMIC_HCA : IBV_ATOMIC_NONE;
	a->max_mcast_grp = (int)attr.max_mcast_grp;
	a->max_mcast_qp_attach = (int)attr.max_mcast_qp_attach;
	a->max_total_mcast_qp_attach = (int)attr.max_total_mcast_qp_attach;
	a->max_ah = (int)attr.max_ah;
	a->max_srq = (int)attr.max_srq;
	a->max_srq_wr = (int)attr.max_srq_wr;
	a->max_srq_sge = (int)attr.max_srq_sge;
	a->max_pkeys = (uint16_t)(attr.max_pkeys != 0 ? attr.max_pkeys : 1);
	a->local_ca_ack_delay = attr.local_ca_ack_delay;
	a->phys_port_cnt = attr.phys_port_cnt;
	return 0;
}

static int
port_fill(struct ibv_context *c, uint8_t port, struct ibv_port_attr *a)
{
	struct prdma_port_attr pa;
	int ret;

	if (c == NULL || pv_ctx(c)->magic != PV_MAGIC_CTX || a == NULL)
		return EINVAL;
	ret = prdma_port_query(pv_ctx(c)->dev, port, &pa);
	if (ret < 0)
		return -ret;
	memset(a, 0, sizeof(*a));
	a->state = (enum ibv_port_state)pa.state;
	a->max_mtu = (enum ibv_mtu)pa.max_mtu;
	a->active_mtu = (enum ibv_mtu)pa.active_mtu;
	a->gid_tbl_len = (int)pa.gid_tbl_len;
	a->port_cap_flags = pa.port_cap_flags;
	a->max_msg_sz = pa.max_msg_sz;
	a->pkey_tbl_len = pa.pkey_tbl_len != 0 ? pa.pkey_tbl_len : 1;
	a->lid = pa.lid;
	a->max_vl_num = 1;
	a->active_width = pa.active_width;
	a->active_speed = pa.active_speed;
	a->phys_state = pa.phys_state;
	a->link_layer = pa.link_layer;
	return 0;
}

static int
pv_query_port_ex(struct ibv_context *c, uint8_t port, struct ibv_port_attr *a, size_t len)
{
	struct ibv_port_attr full;
	int ret;

	if (a == NULL || len == 0)
		return pv_err(EINVAL);
	ret = port_fill(c, port, &full);
	if (ret != 0)
		return pv_err(ret);
	memcpy(a, &full, RTE_MIN(len, sizeof(full)));
	return 0;
}

/* The old entry point: the struct before flags and port_cap_flags2. */
int
ibv_query_port(struct ibv_context *c, uint8_t port, struct _compat_ibv_port_attr *a)
{
	return pv_query_port_ex(c, port, (struct ibv_port_attr *)a,
				offsetof(struct ibv_port_attr, flags));
}

static uint32_t
gid_type_of(struct ibv_context *c)
{
	struct prdma_dev_attr attr;

	if (ctx_attr(c, &attr) != 0)
		return IBV_GID_TYPE_IB;
	switch (attr.transport) {
	case PRDMA_TRANSPORT_ROCE_V1:
		return IBV_GID_TYPE_ROCE_V1;
	case PRDMA_TRANSPORT_ROCE_V2:
		return IBV_GID_TYPE_ROCE_V2;
	default:
		return IBV_GID_TYPE_IB;
	}
}

/* 0, ENODATA for an empty entry, or EINVAL. */
static int
gid_read(struct ibv_context *c, uint32_t port, uint32_t index, union ibv_gid *gid)
{
	struct prdma_port_attr pa;
	union prdma_gid pg;
	int ret;

	if (c == NULL || pv_ctx(c)->magic != PV_MAGIC_CTX || gid == NULL || port > UINT8_MAX)
		return EINVAL;
	if (prdma_port_query(pv_ctx(c)->dev, (uint8_t)port, &pa) < 0 || index >= pa.gid_tbl_len)
		return EINVAL;
	ret = prdma_gid_query(pv_ctx(c)->dev, (uint8_t)port, index, &pg);
	if (ret == -ENOENT)
		return ENODATA;
	if (ret < 0)
		return -ret;
	memcpy(gid->raw, pg.raw, sizeof(gid->raw));
	return 0;
}

int
ibv_query_gid(struct ibv_context *c, uint8_t port, int index, union ibv_gid *gid)
{
	int ret;

	if (index < 0)
		return pv_err(EINVAL), -1;
	ret = gid_read(c, port, (uint32_t)index, gid);
	if (ret == ENODATA) {
		memset(gid, 0, sizeof(*gid)); /* an empty entry reads as zeros */
		return 0;
	}
	if (ret != 0) {
		errno = ret;
		return -1;
	}
	return 0;
}

int
_ibv_query_gid_ex(struct ibv_context *c, uint32_t port, uint32_t index,
		  struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	int ret;

	if (entry == NULL || flags != 0 || entry_size < sizeof(e))
		return EINVAL;
	memset(&e, 0, sizeof(e));
	ret = gid_read(c, port, index, &e.gid);
	if (ret != 0)
		return ret;
	e.gid_index = index;
	e.port_num = port;
	e.gid_type = gid_type_of(c);
	memcpy(entry, &e, sizeof(e));
	return 0;
}

ssize_t
_ibv_query_gid_table(struct ibv_context *c, struct ibv_gid_entry *entries,
		     size_t max_entries, uint32_t flags, size_t entry_size)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	size_t n = 0;
	uint32_t p, i;
	int ret;

	if (flags != 0 || entry_size < sizeof(*entries) || (entries == NULL && max_entries))
		return -EINVAL;
	if (ibv_query_device(c, &da) != 0)
		return -errno;
	for (p = 1; p <= da.phys_port_cnt; p++) {
		if (port_fill(c, (uint8_t)p, &pa) != 0)
			continue;
		for (i = 0; i < (uint32_t)pa.gid_tbl_len; i++) {
			struct ibv_gid_entry e;

			ret = _ibv_query_gid_ex(c, p, i, &e, 0, sizeof(e));
			if (ret == ENODATA)
				continue;
			if (ret != 0)
				return -ret;
			if (n >= max_entries)
				return -EINVAL;
			memcpy((uint8_t *)entries + n * entry_size, &e, sizeof(e));
			n++;
		}
	}
	return (ssize_t)n;
}

/* rdma-core's private GID-type call perftest imports (IBVERBS_PRIVATE_34). */
enum pv_gid_type_sysfs {
	PV_GID_TYPE_SYSFS_IB_ROCE_V1 = 0,
	PV_GID_TYPE_SYSFS_ROCE_V2 = 1,
};

int ibv_query_gid_type(struct ibv_context *c, uint8_t port, unsigned int index,
		       enum pv_gid_type_sysfs *type);
int
ibv_query_gid_type(struct ibv_context *c, uint8_t port, unsigned int index,
		   enum pv_gid_type_sysfs *type)
{
	union ibv_gid gid;
	int ret;

	if (type == NULL)
		return pv_err(EINVAL), -1;
	ret = gid_read(c, port, index, &gid);
	if (ret == ENODATA) {
		*type = PV_GID_TYPE_SYSFS_IB_ROCE_V1;
		return 0;
	}
	if (ret != 0) {
		errno = ret;
		return -1;
	}
	*type = gid_type_of(c) == IBV_GID_TYPE_ROCE_V2 ? PV_GID_TYPE_SYSFS_ROCE_V2 :
		PV_GID_TYPE_SYSFS_IB_ROCE_V1;
	return 0;
}

int
ibv_query_pkey(struct ibv_context *c, uint8_t port, int index, __be16 *pkey)
{
	struct ibv_port_attr pa;
	int ret;

	if (pkey == NULL || index < 0)
		return pv_err(EINVAL), -1;
	ret = port_fill(c, port, &pa);
	if (ret != 0 || index >= pa.pkey_tbl_len) {
		errno = ret != 0 ? ret : EINVAL;
		return -1;
	}
	*pkey = index == 0 ? htobe16(0xffff) : 0; /* the default partition only */
	return 0;
}

int
ibv_get_pkey_index(struct ibv_context *c, uint8_t port, __be16 pkey)
{
	struct ibv_port_attr pa;

	if (port_fill(c, port, &pa) != 0)
		return -1;
	return (be16toh(pkey) & 0x7fff) == 0x7fff ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Asynchronous events: prdma's event queue of the context's device.   */

static const enum ibv_event_type pv_event_map[PRDMA_EVENT_MAX] = {
	[PRDMA_EVENT_CQ_ERR] = IBV_EVENT_CQ_ERR,
	[PRDMA_EVENT_QP_FATAL] = IBV_EVENT_QP_FATAL,
	[PRDMA_EVENT_QP_REQ_ERR] = IBV_EVENT_QP_REQ_ERR,
	[PRDMA_EVENT_QP_ACCESS_ERR] = IBV_EVENT_QP_ACCESS_ERR,
	[PRDMA_EVENT_COMM_EST] = IBV_EVENT_COMM_EST,
	[PRDMA_EVENT_SQ_DRAINED] = IBV_EVENT_SQ_DRAINED,
	[PRDMA_EVENT_PATH_MIG] = IBV_EVENT_PATH_MIG,
	[PRDMA_EVENT_PATH_MIG_ERR] = IBV_EVENT_PATH_MIG_ERR,
	[PRDMA_EVENT_DEVICE_FATAL] = IBV_EVENT_DEVICE_FATAL,
	[PRDMA_EVENT_PORT_ACTIVE] = IBV_EVENT_PORT_ACTIVE,
	[PRDMA_EVENT_PORT_ERR] = IBV_EVENT_PORT_ERR,
	[PRDMA_EVENT_LID_CHANGE] = IBV_EVENT_LID_CHANGE,
	[PRDMA_EVENT_PKEY_CHANGE] = IBV_EVENT_PKEY_CHANGE,
	[PRDMA_EVENT_SM_CHANGE] = IBV_EVENT_SM_CHANGE,
	[PRDMA_EVENT_SRQ_ERR] = IBV_EVENT_SRQ_ERR,
	[PRDMA_EVENT_SRQ_LIMIT_REACHED] = IBV_EVENT_SRQ_LIMIT_REACHED,
	[PRDMA_EVENT_QP_LAST_WQE_REACHED] = IBV_EVENT_QP_LAST_WQE_REACHED,
	[PRDMA_EVENT_CLIENT_REREGISTER] = IBV_EVENT_CLIENT_REREGISTER,
	[PRDMA_EVENT_GID_CHANGE] = IBV_EVENT_GID_CHANGE,
};

int
ibv_get_async_event(struct ibv_context *c, struct ibv_async_event *event)
{
	struct prdma_async_event pe;
	struct pollfd pfd;
	int nonblock;

	if (c == NULL || pv_ctx(c)->magic != PV_MAGIC_CTX || event == NULL)
		return pv_err(EINVAL), -1;
	nonblock = (fcntl(c->async_fd, F_GETFL) & O_NONBLOCK) != 0;
	/* prdma queues events without a file descriptor: poll the queue. */
	while (prdma_event_get(pv_ctx(c)->dev, &pe) != 1) {
		if (nonblock)
			return pv_err(EAGAIN), -1;
		pfd.fd = c->async_fd;
		pfd.events = POLLIN;
		poll(&pfd, 1, 10);
	}
	memset(event, 0, sizeof(*event));
	event->event_type = pe.type < PRDMA_EVENT_MAX ? pv_event_map[pe.type] : IBV_EVENT_DEVICE_FATAL;
	switch (event->event_type) {
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		event->element.port_num = pe.element.port_num;
		break;
	case IBV_EVENT_DEVICE_FATAL:
		break;
	case IBV_EVENT_CQ_ERR:
		event->element.cq = pe.element.cq != NULL ? pe.element.cq->cq_context : NULL;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		event->element.srq = pe.element.srq != NULL ? pe.element.srq->srq_context : NULL;
		break;
	default:
		event->element.qp = pe.element.qp != NULL ? pe.element.qp->qp_context : NULL;
		break;
	}
	return 0;
}

void
ibv_ack_async_event(struct ibv_async_event *event)
{
	RTE_SET_USED(event);
}

/* ------------------------------------------------------------------ */
/* The bridge's shared contexts.                                       */

struct ibv_context *
pv_shared_context_get(uint16_t dev_id)
{
	struct pv_device *pvdev = pv_device_of(dev_id);
	struct ibv_context *c = NULL;

	if (pvdev == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&pv_dev_lock);
	if (pv_shared_ctx[dev_id] == NULL)
		pv_shared_ctx[dev_id] = pv_context_open(pvdev);
	else
		pv_ctx(pv_shared_ctx[dev_id])->refs++;
	c = pv_shared_ctx[dev_id];
	pthread_mutex_unlock(&pv_dev_lock);
	return c;
}

void
pv_shared_context_put(struct ibv_context *c)
{
	struct pv_context *ctx = pv_ctx(c);
	uint16_t id = ctx->pvdev->dev_id;

	pthread_mutex_lock(&pv_dev_lock);
	if (pv_shared_ctx[id] == c && --ctx->refs == 0) {
		if (ibv_close_device(c) == 0)
			pv_shared_ctx[id] = NULL;
		else
			ctx->refs = 1; /* objects remain: keep it for the next user */
	}
	pthread_mutex_unlock(&pv_dev_lock);
}
