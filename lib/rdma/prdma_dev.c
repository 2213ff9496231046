/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Device registry: providers, probe/remove, open/close, queries. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "prdma_private.h"

RTE_LOG_REGISTER_DEFAULT(prdma_logtype, NOTICE);

static TAILQ_HEAD(, prdma_provider) providers = TAILQ_HEAD_INITIALIZER(providers);
static struct prdma_dev *devices[PRDMA_MAX_DEVS];
/* Guards devices[] and the provider list. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

void
prdma_provider_register(struct prdma_provider *provider)
{
	pthread_mutex_lock(&registry_lock);
	TAILQ_INSERT_TAIL(&providers, provider, next);
	pthread_mutex_unlock(&registry_lock);
}

static const struct prdma_provider *
provider_find(const char *name, size_t len)
{
	const struct prdma_provider *p;

	TAILQ_FOREACH(p, &providers, next) {
		if (strlen(p->name) == len && strncmp(p->name, name, len) == 0)
			return p;
	}
	return NULL;
}

static int
name_in_use(const char *name)
{
	unsigned int i;

	for (i = 0; i < PRDMA_MAX_DEVS; i++)
		if (devices[i] != NULL && strcmp(devices[i]->name, name) == 0)
			return 1;
	return 0;
}

static int
obj_sizes_valid(const struct prdma_obj_size *s)
{
	return s->pd >= sizeof(struct prdma_pd) && s->mr >= sizeof(struct prdma_mr) &&
		s->mw >= sizeof(struct prdma_mw) && s->cq >= sizeof(struct prdma_cq) &&
		s->srq >= sizeof(struct prdma_srq) && s->qp >= sizeof(struct prdma_qp) &&
		s->ah >= sizeof(struct prdma_ah);
}

int
prdma_dev_probe(const char *devargs)
{
	const struct prdma_provider *prov;
	struct prdma_dev *dev;
	const char *colon, *args;
	size_t plen;
	unsigned int id, n;
	int ret;

	if (devargs == NULL || devargs[0] == '\0') {
		PRDMA_LOG(ERR, "probe: empty devargs");
		return prdma_err(EINVAL);
	}
	colon = strchr(devargs, ':');
	plen = colon != NULL ? (size_t)(colon - devargs) : strlen(devargs);
	args = colon != NULL ? colon + 1 : "";

	pthread_mutex_lock(&registry_lock);
	prov = provider_find(devargs, plen);
	if (prov == NULL) {
		pthread_mutex_unlock(&registry_lock);
		PRDMA_LOG(ERR, "probe \"%s\": no provider \"%.*s\"", devargs,
			  (int)plen, devargs);
		return prdma_err(ENODEV);
	}
	for (id = 0; id < PRDMA_MAX_DEVS; id++)
		if (devices[id] == NULL)
			break;
	if (id == PRDMA_MAX_DEVS) {
		pthread_mutex_unlock(&registry_lock);
		PRDMA_LOG(ERR, "probe \"%s\": device table full (%d)", devargs,
			  PRDMA_MAX_DEVS);
		return prdma_err(ENOSPC);
	}
	dev = rte_zmalloc("prdma_dev", sizeof(*dev), RTE_CACHE_LINE_SIZE);
	if (dev == NULL) {
		pthread_mutex_unlock(&registry_lock);
		return prdma_err(ENOMEM);
	}
	dev->dev_id = id;
	dev->provider = prov;
	dev->socket_id = (int)rte_socket_id();
	pthread_mutex_init(&dev->lock, NULL);
	TAILQ_INIT(&dev->qps);
	pthread_mutex_init(&dev->ev_lock, NULL);
	for (n = 0; ; n++) {
		snprintf(dev->name, sizeof(dev->name), "%s%u", prov->name, n);
		if (!name_in_use(dev->name))
			break;
	}
	prdma_fp_reset(&dev->fp);
	/* Reserve the slot while the provider probes (it may take a while). */
	devices[id] = dev;
	pthread_mutex_unlock(&registry_lock);

	ret = prov->probe(dev, args);
	if (ret == 0 && (!obj_sizes_valid(&dev->obj_size) ||
			 prdma_ops_complete(dev) < 0)) {
		PRDMA_LOG(ERR, "probe \"%s\": provider %s left ops or sizes unset",
			  devargs, prov->name);
		if (dev->ops != NULL && dev->ops->dev_remove != NULL)
			dev->ops->dev_remove(dev);
		ret = -EPROTO;
	}
	pthread_mutex_lock(&registry_lock);
	if (ret == 0) {
		devices[id] = NULL; /* so that the name check skips ourselves */
		if (name_in_use(dev->name)) {
			PRDMA_LOG(ERR, "probe \"%s\": device name %s in use",
				  devargs, dev->name);
			if (dev->ops->dev_remove != NULL)
				dev->ops->dev_remove(dev);
			ret = -EEXIST;
		}
	}
	if (ret < 0) {
		devices[id] = NULL;
		pthread_mutex_unlock(&registry_lock);
		rte_free(dev);
		return prdma_err(-ret);
	}
	prdma_fp_install(id, &dev->fp);
	devices[id] = dev;
	pthread_mutex_unlock(&registry_lock);
	PRDMA_LOG(INFO, "device %u: %s (%s)", id, dev->name, devargs);
	return (int)id;
}

int
prdma_dev_remove(uint16_t dev_id)
{
	struct prdma_dev *dev;

	pthread_mutex_lock(&registry_lock);
	dev = dev_id < PRDMA_MAX_DEVS ? devices[dev_id] : NULL;
	if (dev == NULL) {
		pthread_mutex_unlock(&registry_lock);
		return prdma_err(ENODEV);
	}
	if (dev->open_count != 0) {
		pthread_mutex_unlock(&registry_lock);
		PRDMA_LOG(ERR, "remove %s: still open %u time(s)", dev->name,
			  dev->open_count);
		return prdma_err(EBUSY);
	}
	devices[dev_id] = NULL;
	prdma_fp_reset(&prdma_fp_ops[dev_id]);
	pthread_mutex_unlock(&registry_lock);

	if (dev->ops->dev_remove != NULL)
		dev->ops->dev_remove(dev);
	prdma__obj_cache_free(dev);
	pthread_mutex_destroy(&dev->lock);
	pthread_mutex_destroy(&dev->ev_lock);
	rte_free(dev);
	return 0;
}

uint16_t
prdma_dev_count(void)
{
	uint16_t i, n = 0;

	pthread_mutex_lock(&registry_lock);
	for (i = 0; i < PRDMA_MAX_DEVS; i++)
		n += devices[i] != NULL;
	pthread_mutex_unlock(&registry_lock);
	return n;
}

uint16_t
prdma_dev_next(uint16_t start)
{
	uint16_t i;

	pthread_mutex_lock(&registry_lock);
	for (i = start; i < PRDMA_MAX_DEVS; i++)
		if (devices[i] != NULL)
			break;
	pthread_mutex_unlock(&registry_lock);
	return i;
}

int
prdma_dev_get_by_name(const char *name)
{
	unsigned int i;

	if (name == NULL)
		return prdma_err(EINVAL);
	pthread_mutex_lock(&registry_lock);
	for (i = 0; i < PRDMA_MAX_DEVS; i++) {
		if (devices[i] != NULL && strcmp(devices[i]->name, name) == 0) {
			pthread_mutex_unlock(&registry_lock);
			return (int)i;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	return prdma_err(ENODEV);
}

const char *
prdma_dev_name(uint16_t dev_id)
{
	const char *name;

	pthread_mutex_lock(&registry_lock);
	name = dev_id < PRDMA_MAX_DEVS && devices[dev_id] != NULL ?
		devices[dev_id]->name : NULL;
	pthread_mutex_unlock(&registry_lock);
	return name;
}

struct prdma_dev *
prdma_dev_open(uint16_t dev_id)
{
	struct prdma_dev *dev;

	pthread_mutex_lock(&registry_lock);
	dev = dev_id < PRDMA_MAX_DEVS ? devices[dev_id] : NULL;
	if (dev != NULL)
		dev->open_count++;
	pthread_mutex_unlock(&registry_lock);
	if (dev == NULL)
		rte_errno = ENODEV;
	return dev;
}

int
prdma_dev_close(struct prdma_dev *dev)
{
	int ret = 0;

	if (dev == NULL)
		return prdma_err(EINVAL);
	pthread_mutex_lock(&registry_lock);
	if (dev->open_count == 0) {
		ret = -EINVAL;
	} else if (dev->open_count == 1 && dev->objects != 0) {
		PRDMA_LOG(ERR, "close %s: %u object(s) still exist", dev->name,
			  dev->objects);
		ret = -EBUSY;
	} else {
		dev->open_count--;
	}
	pthread_mutex_unlock(&registry_lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

uint16_t
prdma_dev_id(const struct prdma_dev *dev)
{
	return dev->dev_id;
}

int
prdma_dev_progress(struct prdma_dev *dev)
{
	if (dev == NULL)
		return prdma_err(EINVAL);
	if (dev->ops->dev_progress == NULL)
		return 0;
	return dev->ops->dev_progress(dev);
}

int
prdma_dev_query(struct prdma_dev *dev, struct prdma_dev_attr *attr)
{
	int ret;

	if (dev == NULL || attr == NULL)
		return prdma_err(EINVAL);
	memset(attr, 0, sizeof(*attr));
	pthread_mutex_lock(&dev->lock);
	ret = dev->ops->dev_query(dev, attr);
	pthread_mutex_unlock(&dev->lock);
	if (ret < 0)
		return prdma_err(-ret);
	strlcpy(attr->name, dev->name, sizeof(attr->name));
	strlcpy(attr->provider, dev->provider->name, sizeof(attr->provider));
	return 0;
}

int
prdma_dev_modify(struct prdma_dev *dev, uint32_t mask,
		 const struct prdma_dev_modify_attr *attr)
{
	int ret;

	if (dev == NULL || attr == NULL || attr->comp_mask != 0 ||
	    (mask & ~PRDMA_DEV_MODIFY_NODE_DESC) != 0)
		return prdma_err(EINVAL);
	if ((mask & PRDMA_DEV_MODIFY_NODE_DESC) &&
	    memchr(attr->node_desc, '\0', sizeof(attr->node_desc)) == NULL)
		return prdma_err(EINVAL);
	pthread_mutex_lock(&dev->lock);
	ret = dev->ops->dev_modify(dev, mask, attr);
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

/* Ports are numbered from 1 to phys_port_cnt. */
static int
port_valid(struct prdma_dev *dev, uint8_t port)
{
	struct prdma_dev_attr attr;

	if (port == 0)
		return 0;
	memset(&attr, 0, sizeof(attr));
	if (dev->ops->dev_query(dev, &attr) < 0)
		return 0;
	return port <= attr.phys_port_cnt;
}

int
prdma_port_query(struct prdma_dev *dev, uint8_t port, struct prdma_port_attr *attr)
{
	int ret;

	if (dev == NULL || attr == NULL)
		return prdma_err(EINVAL);
	pthread_mutex_lock(&dev->lock);
	if (!port_valid(dev, port)) {
		pthread_mutex_unlock(&dev->lock);
		return prdma_err(EINVAL);
	}
	memset(attr, 0, sizeof(*attr));
	ret = dev->ops->port_query(dev, port, attr);
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_gid_query(struct prdma_dev *dev, uint8_t port, uint32_t index,
		union prdma_gid *gid)
{
	int ret;

	if (dev == NULL || gid == NULL)
		return prdma_err(EINVAL);
	pthread_mutex_lock(&dev->lock);
	if (!port_valid(dev, port)) {
		pthread_mutex_unlock(&dev->lock);
		return prdma_err(EINVAL);
	}
	ret = dev->ops->gid_query(dev, port, index, gid);
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma_port_modify(struct prdma_dev *dev, uint8_t port, uint32_t set_cap_flags,
		  uint32_t clear_cap_flags)
{
	int ret;

	if (dev == NULL || (set_cap_flags & clear_cap_flags) != 0)
		return prdma_err(EINVAL);
	pthread_mutex_lock(&dev->lock);
	if (!port_valid(dev, port)) {
		pthread_mutex_unlock(&dev->lock);
		return prdma_err(EINVAL);
	}
	ret = dev->ops->port_modify(dev, port, set_cap_flags, clear_cap_flags);
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? prdma_err(-ret) : 0;
}

int
prdma__dev_attr(struct prdma_dev *dev, struct prdma_dev_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	return dev->ops->dev_query(dev, attr);
}
