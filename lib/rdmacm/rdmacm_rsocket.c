/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * rsockets are not provided: every call fails with ENOSYS, except rpoll()
 * and rselect(), which Debian's rdmacm-utils import through their shared
 * helpers and use on ordinary file descriptors (the event channel's fd):
 * on those they are poll(2) and select(2), as librdmacm's are.
 */

#include <poll.h>
#include <sys/select.h>

#include <rdma/rsocket.h>

#include "rdmacm_private.h"

int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	return poll(fds, nfds, timeout);
}

int rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
	    struct timeval *timeout)
{
	return select(nfds, readfds, writefds, exceptfds, timeout);
}

#define RS_NONE(ret) do { errno = ENOSYS; return (ret)-1; } while (0)

int rsocket(int domain, int type, int protocol)
{ (void)domain; (void)type; (void)protocol; RS_NONE(int); }
int rbind(int s, const struct sockaddr *a, socklen_t l)
{ (void)s; (void)a; (void)l; RS_NONE(int); }
int rlisten(int s, int b)
{ (void)s; (void)b; RS_NONE(int); }
int raccept(int s, struct sockaddr *a, socklen_t *l)
{ (void)s; (void)a; (void)l; RS_NONE(int); }
int rconnect(int s, const struct sockaddr *a, socklen_t l)
{ (void)s; (void)a; (void)l; RS_NONE(int); }
int rshutdown(int s, int how)
{ (void)s; (void)how; RS_NONE(int); }
int rclose(int s)
{ (void)s; RS_NONE(int); }
ssize_t rrecv(int s, void *b, size_t l, int f)
{ (void)s; (void)b; (void)l; (void)f; RS_NONE(ssize_t); }
ssize_t rrecvfrom(int s, void *b, size_t l, int f, struct sockaddr *a, socklen_t *al)
{ (void)s; (void)b; (void)l; (void)f; (void)a; (void)al; RS_NONE(ssize_t); }
ssize_t rrecvmsg(int s, struct msghdr *m, int f)
{ (void)s; (void)m; (void)f; RS_NONE(ssize_t); }
ssize_t rsend(int s, const void *b, size_t l, int f)
{ (void)s; (void)b; (void)l; (void)f; RS_NONE(ssize_t); }
ssize_t rsendto(int s, const void *b, size_t l, int f, const struct sockaddr *a,
		socklen_t al)
{ (void)s; (void)b; (void)l; (void)f; (void)a; (void)al; RS_NONE(ssize_t); }
ssize_t rsendmsg(int s, const struct msghdr *m, int f)
{ (void)s; (void)m; (void)f; RS_NONE(ssize_t); }
ssize_t rread(int s, void *b, size_t c)
{ (void)s; (void)b; (void)c; RS_NONE(ssize_t); }
ssize_t rreadv(int s, const struct iovec *v, int n)
{ (void)s; (void)v; (void)n; RS_NONE(ssize_t); }
ssize_t rwrite(int s, const void *b, size_t c)
{ (void)s; (void)b; (void)c; RS_NONE(ssize_t); }
ssize_t rwritev(int s, const struct iovec *v, int n)
{ (void)s; (void)v; (void)n; RS_NONE(ssize_t); }
int rgetpeername(int s, struct sockaddr *a, socklen_t *l)
{ (void)s; (void)a; (void)l; RS_NONE(int); }
int rgetsockname(int s, struct sockaddr *a, socklen_t *l)
{ (void)s; (void)a; (void)l; RS_NONE(int); }
int rsetsockopt(int s, int lv, int o, const void *v, socklen_t l)
{ (void)s; (void)lv; (void)o; (void)v; (void)l; RS_NONE(int); }
int rgetsockopt(int s, int lv, int o, void *v, socklen_t *l)
{ (void)s; (void)lv; (void)o; (void)v; (void)l; RS_NONE(int); }
int rfcntl(int s, int cmd, ...)
{ (void)s; (void)cmd; RS_NONE(int); }
off_t riomap(int s, void *b, size_t l, int p, int f, off_t o)
{ (void)s; (void)b; (void)l; (void)p; (void)f; (void)o; RS_NONE(off_t); }
int riounmap(int s, void *b, size_t l)
{ (void)s; (void)b; (void)l; RS_NONE(int); }
size_t riowrite(int s, const void *b, size_t c, off_t o, int f)
{ (void)s; (void)b; (void)c; (void)o; (void)f; errno = ENOSYS; return 0; }
