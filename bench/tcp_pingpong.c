/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * Kernel TCP ping-pong baseline for bench/afxdp_veth.sh: a 64-byte (or -s)
 * message bounced over one TCP connection, both ends spinning on
 * non-blocking sockets (busy polling, no sleeping in the kernel).
 *
 *   tcp_pingpong server <port> <size> <iters>
 *   tcp_pingpong client <ip> <port> <size> <iters>   -> p50/p99 of half the RTT
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int
xfer(int fd, char *buf, size_t len, int sending)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = sending ? send(fd, buf + done, len - done, MSG_NOSIGNAL) :
			      recv(fd, buf + done, len - done, 0);
		if (n > 0)
			done += (size_t)n;
		else if (n == 0)
			return -1;
		else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -1;
	}
	return 0;
}

static int
cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sin;
	uint64_t *rtt, t0;
	int fd, lfd, one = 1, i, iters, port;
	size_t size;
	char *buf;

	if (argc < 5 || (strcmp(argv[1], "client") == 0 && argc < 6)) {
		fprintf(stderr, "usage: %s server <port> <size> <iters> | "
			"client <ip> <port> <size> <iters>\n", argv[0]);
		return 2;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	if (strcmp(argv[1], "server") == 0) {
		port = atoi(argv[2]);
		size = (size_t)atol(argv[3]);
		iters = atoi(argv[4]);
		buf = calloc(1, size);
		lfd = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sin.sin_port = htons((uint16_t)port);
		if (buf == NULL || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
		    listen(lfd, 1) < 0) {
			perror("tcp_pingpong: listen");
			return 1;
		}
		fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			perror("tcp_pingpong: accept");
			return 1;
		}
		tune(fd);
		for (i = 0; i < iters; i++)
			if (xfer(fd, buf, size, 0) < 0 || xfer(fd, buf, size, 1) < 0)
				return 1;
		close(fd);
		close(lfd);
		return 0;
	}
	port = atoi(argv[3]);
	size = (size_t)atol(argv[4]);
	iters = atoi(argv[5]);
	buf = calloc(1, size);
	rtt = calloc((size_t)iters, sizeof(*rtt));
	fd = socket(AF_INET, SOCK_STREAM, 0);
	sin.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, argv[2], &sin.sin_addr);
	for (i = 0; i < 50 && connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0; i++) {
		close(fd);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		usleep(100000);
	}
	if (buf == NULL || rtt == NULL || i == 50) {
		perror("tcp_pingpong: connect");
		return 1;
	}
	tune(fd);
	for (i = 0; i < iters; i++) {
		t0 = now_ns();
		if (xfer(fd, buf, size, 1) < 0 || xfer(fd, buf, size, 0) < 0)
			return 1;
		rtt[i] = now_ns() - t0;
	}
	qsort(rtt, (size_t)iters, sizeof(*rtt), cmp);
	printf("{\"p50_us\": %.3f, \"p99_us\": %.3f, \"p999_us\": %.3f, \"min_us\": %.3f, "
	       "\"samples\": %d}\n", rtt[iters / 2] / 2000.0, rtt[(iters * 99) / 100] / 2000.0,
	       rtt[(iters * 999) / 1000] / 2000.0, rtt[0] / 2000.0, iters);
	close(fd);
	return 0;
}
