/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * The pingpong tools' TCP exchange (rdma-core 44 libibverbs/examples
 * rc_pingpong.c pp_client_exch_dest / pp_server_exch_dest, the same in
 * uc_, ud_ and srq_pingpong.c): one 52-byte message per QP each way,
 * client first, then "done" from the client. The GID travels as its 16
 * bytes in order, 32 hex digits (pingpong.c gid_to_wire_gid).
 */

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "pp.h"

void
pp_msg_encode(const struct pp_dest *d, char msg[PP_MSG_LEN])
{
	int n, i;

	n = snprintf(msg, PP_MSG_LEN, "%04x:%06x:%06x:", d->lid & 0xffff, d->qpn & 0xffffff,
		     d->psn & 0xffffff);
	for (i = 0; i < 16 && n + 2 < PP_MSG_LEN; i++)
		n += snprintf(msg + n, (size_t)(PP_MSG_LEN - n), "%02x", d->gid.raw[i]);
	msg[PP_MSG_LEN - 1] = '\0';
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* @p width hex digits at @p s into *@p v. */
static int
hexfield(const char *s, unsigned int width, uint32_t *v)
{
	unsigned int i;
	int h;

	*v = 0;
	for (i = 0; i < width; i++) {
		h = hexval(s[i]);
		if (h < 0)
			return -EINVAL;
		*v = *v << 4 | (uint32_t)h;
	}
	return 0;
}

int
pp_msg_decode(const char msg[PP_MSG_LEN], struct pp_dest *d)
{
	uint32_t b;
	int i;

	memset(d, 0, sizeof(*d));
	if (msg[4] != ':' || msg[11] != ':' || msg[18] != ':' || msg[PP_MSG_LEN - 1] != '\0' ||
	    hexfield(msg, 4, &d->lid) < 0 || hexfield(msg + 5, 6, &d->qpn) < 0 ||
	    hexfield(msg + 12, 6, &d->psn) < 0)
		return -EINVAL;
	for (i = 0; i < 16; i++) {
		if (hexfield(msg + 19 + 2 * i, 2, &b) < 0)
			return -EINVAL;
		d->gid.raw[i] = (uint8_t)b;
	}
	return 0;
}

/*
 * Exactly @p len bytes, within the timeout. The device is progressed
 * while waiting: the peer may be resolving our MAC (its ARP, when its
 * QP goes to RTR) while we wait for its next message, and a software
 * provider answers only from its poll calls.
 */
static int
read_full(int fd, void *buf, size_t len, double timeout_s, struct prdma_dev *dev)
{
	uint64_t deadline = rte_rdtsc() + (uint64_t)(timeout_s * rte_get_tsc_hz());
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		if (poll(&pfd, 1, dev != NULL ? 1 : 100) <= 0) {
			if (dev != NULL)
				prdma_dev_progress(dev);
			if (rte_rdtsc() > deadline) {
				PP_LOG(ERR, "the peer sent nothing for %.0f s", timeout_s);
				return -ETIMEDOUT;
			}
			continue;
		}
		n = read(fd, (uint8_t *)buf + got, len - got);
		if (n == 0) {
			PP_LOG(ERR, "the peer closed the connection");
			return -ECONNRESET;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	return 0;
}

/* One write() per message: the tools read each with one read(). */
static int
write_msg(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	if (n != (ssize_t)len) {
		PP_LOG(ERR, "couldn't send to the peer: %s", n < 0 ? strerror(errno) : "short");
		return -EIO;
	}
	return 0;
}

static int
send_all(int fd, const struct pp_dest *mine, unsigned int n)
{
	char msg[PP_MSG_LEN];
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		pp_msg_encode(&mine[i], msg);
		ret = write_msg(fd, msg, sizeof(msg));
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int
recv_all(int fd, struct pp_dest *peer, unsigned int n, double timeout_s,
	 struct prdma_dev *dev)
{
	char msg[PP_MSG_LEN];
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = read_full(fd, msg, sizeof(msg), timeout_s, dev);
		if (ret < 0)
			return ret;
		if (pp_msg_decode(msg, &peer[i]) < 0) {
			PP_LOG(ERR, "the peer's address %u is malformed: '%.*s'", i,
			       PP_MSG_LEN - 1, msg);
			return -EPROTO;
		}
	}
	return 0;
}

static int
tcp_connect(const struct pp_opts *o)
{
	uint64_t deadline = rte_rdtsc() + (uint64_t)(o->timeout_s * rte_get_tsc_hz());
	struct addrinfo hints, *res, *t;
	char service[8];
	int fd = -1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(service, sizeof(service), "%u", o->port);
	if (getaddrinfo(o->host, service, &hints, &res) != 0) {
		PP_LOG(ERR, "cannot resolve '%s'", o->host);
		return -EHOSTUNREACH;
	}
	/* The server may still be starting (the tools connect once). */
	while (fd < 0 && rte_rdtsc() < deadline) {
		for (t = res; t != NULL; t = t->ai_next) {
			fd = socket(t->ai_family, t->ai_socktype, t->ai_protocol);
			if (fd < 0)
				continue;
			if (connect(fd, t->ai_addr, t->ai_addrlen) == 0)
				break;
			close(fd);
			fd = -1;
		}
		if (fd < 0)
			rte_delay_us_sleep(100 * 1000);
	}
	freeaddrinfo(res);
	if (fd < 0)
		PP_LOG(ERR, "couldn't connect to %s:%u", o->host, o->port);
	return fd < 0 ? -ECONNREFUSED : fd;
}

static int
tcp_accept(const struct pp_opts *o)
{
	struct sockaddr_in6 sin6;
	struct pollfd pfd;
	int one = 1, lfd, fd;

	lfd = socket(AF_INET6, SOCK_STREAM, 0);
	if (lfd < 0)
		return -errno;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons(o->port);
	sin6.sin6_addr = in6addr_any;
	if (bind(lfd, (struct sockaddr *)&sin6, sizeof(sin6)) < 0 || listen(lfd, 1) < 0) {
		PP_LOG(ERR, "couldn't listen to port %u: %s", o->port, strerror(errno));
		close(lfd);
		return -EADDRINUSE;
	}
	pfd.fd = lfd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, (int)(o->timeout_s * 1000)) <= 0) {
		PP_LOG(ERR, "no client within %.0f s", o->timeout_s);
		close(lfd);
		return -ETIMEDOUT;
	}
	fd = accept(lfd, NULL, NULL);
	/* One client, as the tools: the port is free again at once. */
	close(lfd);
	return fd < 0 ? -errno : fd;
}

int
pp_exchange(const struct pp_opts *o, const struct pp_dest *mine, struct pp_dest *peer,
	    unsigned int n, struct prdma_dev *dev, int (*connect_cb)(void *arg), void *arg)
{
	static const char done[PP_DONE_LEN] = "done";
	char in[PP_DONE_LEN];
	int fd, ret;

	fd = o->host != NULL ? tcp_connect(o) : tcp_accept(o);
	if (fd < 0)
		return fd;
	if (o->host != NULL) {
		ret = send_all(fd, mine, n);
		if (ret == 0)
			ret = recv_all(fd, peer, n, o->timeout_s, dev);
		if (ret == 0)
			ret = write_msg(fd, done, sizeof(done));
	} else {
		ret = recv_all(fd, peer, n, o->timeout_s, dev);
		/* The server is ready to receive before the client can send. */
		if (ret == 0)
			ret = connect_cb(arg);
		if (ret == 0)
			ret = send_all(fd, mine, n);
		if (ret == 0)
			ret = read_full(fd, in, sizeof(in), o->timeout_s, dev);
		if (ret == 0 && memcmp(in, done, sizeof(done)) != 0) {
			PP_LOG(ERR, "the client ended the exchange with '%.4s', not 'done'", in);
			ret = -EPROTO;
		}
	}
	close(fd);
	return ret;
}
