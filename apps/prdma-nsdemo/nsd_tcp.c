/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Baseline (a): the kernel's TCP over the same veth pair, at its fastest
 * for a ping-pong: non-blocking sockets spun on, Nagle off.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "nsdemo.h"

static int
tune(int fd)
{
	int one = 1, fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		return -1;
	return 0;
}

/* Move exactly @len bytes, spinning on EAGAIN, until @deadline. */
static int
xfer(int fd, uint8_t *buf, size_t len, int out, double deadline)
{
	size_t done = 0;
	unsigned int spins = 0;
	ssize_t n;

	while (done < len) {
		n = out ? send(fd, buf + done, len - done, MSG_NOSIGNAL) :
			recv(fd, buf + done, len - done, 0);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			return -1;
		if (++spins % 65536 == 0 && nsd_now() > deadline)
			return -1;
	}
	return 0;
}

int
nsd_tcp(const struct nsd_opts *o)
{
	double deadline = nsd_now() + o->timeout_s;
	uint32_t n = o->iters, warm = n / 10 + 1, i;
	uint64_t *rtt = calloc(n, sizeof(*rtt)), t0;
	uint8_t buf[1024];
	struct sockaddr_in sa;
	int fd = -1, lfd = -1, one = 1, ret = 1;

	if (rtt == NULL)
		return 1;
	memset(buf, 0x5a, sizeof(buf));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(o->port);
	if (o->server) {
		lfd = socket(AF_INET, SOCK_STREAM, 0);
		if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
		    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 1) < 0) {
			perror("tcp server");
			goto out;
		}
		printf("server: listening on port %u\n", o->port);
		fflush(stdout);
		fd = accept(lfd, NULL, NULL);
	} else {
		if (inet_pton(AF_INET, o->peer, &sa.sin_addr) != 1)
			goto out;
		/* The server may still be starting: retry until the deadline. */
		for (;;) {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
				break;
			if (fd >= 0)
				close(fd);
			fd = -1;
			if (nsd_now() > deadline)
				break;
			usleep(20000);
		}
	}
	if (fd < 0 || tune(fd) < 0) {
		perror("tcp connection");
		goto out;
	}
	for (i = 0; i < n + warm; i++) {
		if (!o->server) {
			t0 = rte_rdtsc();
			if (xfer(fd, buf, o->size, 1, deadline) || xfer(fd, buf, o->size, 0, deadline))
				goto out;
			if (i >= warm)
				rtt[i - warm] = rte_rdtsc() - t0;
		} else if (xfer(fd, buf, o->size, 0, deadline) ||
			   xfer(fd, buf, o->size, 1, deadline)) {
			goto out;
		}
	}
	if (!o->server)
		nsd_report("tcp-busy-poll", rtt, n);
	ret = 0;
out:
	if (ret != 0)
		fprintf(stderr, "tcp ping-pong failed\n");
	if (fd >= 0)
		close(fd);
	if (lfd >= 0)
		close(lfd);
	free(rtt);
	return ret;
}
