/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Endpoints (rdma_create_ep: a synchronous id, bound or resolved, with its
 * QP) and the device list.
 */

#include <stdlib.h>
#include <string.h>

#include "rdmacm_private.h"

int
rdma_create_ep(struct rdma_cm_id **idp, struct rdma_addrinfo *res,
	       struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *pub;
	struct rcm_id *id;
	int err;

	if (idp == NULL || res == NULL)
		return rcm_fail(EINVAL);
	if (rdma_create_id(NULL, &pub, NULL, (enum rdma_port_space)res->ai_port_space) < 0)
		return -1;
	id = (struct rcm_id *)pub;
	/* As librdmacm: the QP type is the address's, whatever the caller set. */
	if (qp_init_attr != NULL)
		qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
	if (res->ai_flags & RAI_PASSIVE) {
		if (res->ai_src_addr == NULL || rdma_bind_addr(pub, res->ai_src_addr) < 0)
			goto fail;
		/* rdma_get_request() makes each request's QP with these. */
		id->ep_pd = pd;
		if (qp_init_attr != NULL) {
			id->ep_attr = *qp_init_attr;
			id->ep_has_attr = true;
		}
		*idp = pub;
		return 0;
	}
	if (rdma_resolve_addr(pub, res->ai_src_len != 0 ? res->ai_src_addr : NULL,
			      res->ai_dst_addr, 2000) < 0 ||
	    rdma_resolve_route(pub, 2000) < 0)
		goto fail;
	if (qp_init_attr != NULL && rdma_create_qp(pub, pd, qp_init_attr) < 0)
		goto fail;
	*idp = pub;
	return 0;
fail:
	err = errno;
	rdma_destroy_ep(pub);
	return rcm_fail(err);
}

void
rdma_destroy_ep(struct rdma_cm_id *pub)
{
	if (pub == NULL)
		return;
	rdma_destroy_qp(pub);
	rdma_destroy_srq(pub);
	rdma_destroy_id(pub);
}

struct ibv_context **
rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;
	uint32_t i, n = 0;

	if (rcm_init() < 0) {
		if (num_devices != NULL)
			*num_devices = 0;
		errno = ENODEV;
		return NULL;
	}
	list = calloc(rcm_dev_count() + 1, sizeof(*list));
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < rcm_dev_count(); i++) {
		list[n] = prdma_verbs_context_get(rcm_dev_at(i));
		if (list[n] != NULL)
			n++;
	}
	if (num_devices != NULL)
		*num_devices = (int)n;
	return list;
}

void
rdma_free_devices(struct ibv_context **list)
{
	uint32_t i;

	if (list == NULL)
		return;
	for (i = 0; list[i] != NULL; i++)
		prdma_verbs_context_put(list[i]);
	free(list);
}
