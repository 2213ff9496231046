/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/* Asynchronous events: a bounded queue per device plus one callback. */

#include "prdma_private.h"

int
prdma_event_callback_register(struct prdma_dev *dev, prdma_event_cb_t cb, void *arg)
{
	if (dev == NULL)
		return prdma_err(EINVAL);
	pthread_mutex_lock(&dev->ev_lock);
	dev->ev_cb = cb;
	dev->ev_cb_arg = arg;
	pthread_mutex_unlock(&dev->ev_lock);
	return 0;
}

void
prdma_dev_raise_event(struct prdma_dev *dev, const struct prdma_async_event *event)
{
	prdma_event_cb_t cb;
	void *arg;

	if (event->type == PRDMA_EVENT_CQ_ERR)
		__atomic_fetch_add(&dev->lib_cnt[PRDMA_DEV_CNT_CQ_ERROR], 1,
				   __ATOMIC_RELAXED);
	pthread_mutex_lock(&dev->ev_lock);
	if (dev->ev_head - dev->ev_tail < PRDMA_EVENT_QUEUE_LEN) {
		dev->ev_queue[dev->ev_head % PRDMA_EVENT_QUEUE_LEN] = *event;
		dev->ev_head++;
	} else {
		dev->ev_lost++;
	}
	cb = dev->ev_cb;
	arg = dev->ev_cb_arg;
	pthread_mutex_unlock(&dev->ev_lock);
	PRDMA_LOG(DEBUG, "%s: event %s", dev->name, prdma_event_type_str(event->type));
	if (cb != NULL)
		cb(dev, event, arg);
}

int
prdma_event_get(struct prdma_dev *dev, struct prdma_async_event *event)
{
	int got = 0;

	if (dev == NULL || event == NULL)
		return prdma_err(EINVAL);
	pthread_mutex_lock(&dev->ev_lock);
	if (dev->ev_head != dev->ev_tail) {
		*event = dev->ev_queue[dev->ev_tail % PRDMA_EVENT_QUEUE_LEN];
		dev->ev_tail++;
		got = 1;
	}
	pthread_mutex_unlock(&dev->ev_lock);
	return got;
}

uint64_t
prdma_event_lost(struct prdma_dev *dev)
{
	uint64_t n;

	if (dev == NULL)
		return 0;
	pthread_mutex_lock(&dev->ev_lock);
	n = dev->ev_lost;
	pthread_mutex_unlock(&dev->ev_lock);
	return n;
}
