/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * rdma_getaddrinfo(): IP names through getaddrinfo(3). A passive request
 * fills the source address (the wildcard when no node is given), an
 * active one the destination, and a source from hints->ai_src_addr. As
 * librdmacm, only the first address is returned; there is no route data.
 */

#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm_private.h"

static struct sockaddr *
dup_addr(const struct sockaddr *sa, socklen_t len)
{
	struct sockaddr *d = calloc(1, sizeof(struct sockaddr_storage));

	if (d != NULL)
		memcpy(d, sa, len);
	return d;
}

static int
gai_errno(int e)
{
	switch (e) {
	case EAI_NONAME:
#ifdef EAI_NODATA
	case EAI_NODATA:
#endif
		return ENOENT;
	case EAI_FAMILY:
		return EAFNOSUPPORT;
	case EAI_MEMORY:
		return ENOMEM;
	case EAI_SYSTEM:
		return errno;
	default:
		return EINVAL;
	}
}

int
rdma_getaddrinfo(const char *node, const char *service,
		 const struct rdma_addrinfo *hints, struct rdma_addrinfo **res)
{
	struct addrinfo h, *ai = NULL;
	struct rdma_addrinfo *r;
	int ret;

	if (res == NULL || (node == NULL && service == NULL &&
			    (hints == NULL || !(hints->ai_flags & RAI_PASSIVE))))
		return rcm_fail(EINVAL);
	memset(&h, 0, sizeof(h));
	h.ai_socktype = SOCK_STREAM;
	if (hints != NULL) {
		if (hints->ai_flags & RAI_PASSIVE)
			h.ai_flags |= AI_PASSIVE;
		if (hints->ai_flags & RAI_NUMERICHOST)
			h.ai_flags |= AI_NUMERICHOST;
		h.ai_family = hints->ai_family;
		if (h.ai_family == AF_IB)
			return rcm_fail(EAFNOSUPPORT);
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return rcm_fail(ENOMEM);
	r->ai_flags = hints != NULL ? hints->ai_flags : 0;
	r->ai_port_space = hints != NULL && hints->ai_port_space != 0 ?
			   hints->ai_port_space : RDMA_PS_TCP;
	r->ai_qp_type = hints != NULL && hints->ai_qp_type != 0 ? hints->ai_qp_type :
			r->ai_port_space == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC;
	if (node != NULL || service != NULL) {
		ret = getaddrinfo(node, service, &h, &ai);
		if (ret != 0) {
			ret = gai_errno(ret);
			free(r);
			return rcm_fail(ret);
		}
		r->ai_family = ai->ai_family;
		if (r->ai_flags & RAI_PASSIVE) {
			r->ai_src_addr = dup_addr(ai->ai_addr, ai->ai_addrlen);
			r->ai_src_len = ai->ai_addrlen;
		} else {
			r->ai_dst_addr = dup_addr(ai->ai_addr, ai->ai_addrlen);
			r->ai_dst_len = ai->ai_addrlen;
		}
		if (ai->ai_canonname != NULL)
			r->ai_dst_canonname = strdup(ai->ai_canonname);
		freeaddrinfo(ai);
	} else {
		struct sockaddr_in any = { .sin_family = AF_INET };

		r->ai_family = AF_INET;
		r->ai_src_addr = dup_addr((struct sockaddr *)&any, sizeof(any));
		r->ai_src_len = sizeof(any);
	}
	if (!(r->ai_flags & RAI_PASSIVE) && hints != NULL && hints->ai_src_addr != NULL &&
	    hints->ai_src_len != 0 && hints->ai_src_len <= sizeof(struct sockaddr_storage)) {
		r->ai_src_addr = dup_addr(hints->ai_src_addr, hints->ai_src_len);
		r->ai_src_len = hints->ai_src_len;
	}
	if ((r->ai_src_len != 0 && r->ai_src_addr == NULL) ||
	    (r->ai_dst_len != 0 && r->ai_dst_addr == NULL)) {
		rdma_freeaddrinfo(r);
		return rcm_fail(ENOMEM);
	}
	*res = r;
	return 0;
}

void
rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	struct rdma_addrinfo *n;

	for (; res != NULL; res = n) {
		n = res->ai_next;
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
	}
}
