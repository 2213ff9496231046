/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

/*
 * perftest 4.5's out-of-band exchange over TCP (port 18515): versions,
 * system data, MTU, connection keys as barriers, BW reports, "done".
 * In every exchange the client writes first; each message leaves in one
 * write() because perftest reads each with a single read() of its size.
 */

#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include "perf.h"

#define PERF_VERSION "6.06"
#define PERF_VERSION_MIN 5.70     /* older peers are refused, except by write_lat */

static void
trace(struct perf_oob *x, const char *dir, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;

	if (x->trace == NULL)
		return;
	fprintf(x->trace, "%s %zu ", dir, len);
	for (i = 0; i < len; i++)
		fprintf(x->trace, "%02x", p[i]);
	fputc('\n', x->trace);
	fflush(x->trace);
}

static int
tcp_send(struct perf_oob *x, const void *buf, size_t len)
{
	ssize_t n = send(x->fd, buf, len, MSG_NOSIGNAL);

	if (n != (ssize_t)len) {
		PERF_LOG(ERR, "out-of-band send of %zu bytes failed: %s", len,
			 n < 0 ? strerror(errno) : "short write");
		return -EIO;
	}
	trace(x, "tx", buf, len);
	return 0;
}

/* The software provider progresses from its poll calls: a side waiting
 * here must keep its device going or the peer's traffic stalls. */
static int
tcp_recv_raw(struct perf_oob *x, void *buf, size_t len, double timeout_s)
{
	uint64_t deadline = rte_rdtsc() + (uint64_t)(timeout_s * rte_get_tsc_hz());
	struct pollfd pfd = { .fd = x->fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;
	int r;

	while (got < len) {
		r = poll(&pfd, 1, 0);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0) {
			if (x->progress && x->side != NULL && x->side->dev != NULL)
				prdma_dev_progress(x->side->dev);
			if (rte_rdtsc() > deadline) {
				PERF_LOG(ERR, "out-of-band: peer silent for %.0f s", timeout_s);
				return -ETIMEDOUT;
			}
			continue;
		}
		n = recv(x->fd, (uint8_t *)buf + got, len - got, 0);
		if (n == 0) {
			PERF_LOG(ERR, "out-of-band: the peer closed the connection");
			return -ECONNRESET;
		}
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			PERF_LOG(ERR, "out-of-band receive failed: %s", strerror(errno));
			return -errno;
		}
		got += (size_t)n;
	}
	return 0;
}

static int
tcp_recv(struct perf_oob *x, void *buf, size_t len, double timeout_s)
{
	int r = tcp_recv_raw(x, buf, len, timeout_s);

	if (r == 0)
		trace(x, "rx", buf, len);
	return r;
}

/*
 * A key message of either format: its first 59 bytes tell which (byte
 * 58 is the 59-byte message's NUL, or a ':' inside the 108-byte one's
 * GID). The peer sends nothing more until we answer, so reading the
 * rest of a 108-byte message never takes bytes of the next one.
 */
static int
tcp_recv_key(struct perf_oob *x, char *buf, size_t *len, double timeout_s)
{
	int r, n;

	r = tcp_recv_raw(x, buf, PERF_KEY_MSG_LEN_NOGID, timeout_s);
	if (r < 0)
		return r;
	n = perf_key_msg_len(buf);
	if (n == PERF_KEY_MSG_LEN)
		r = tcp_recv_raw(x, buf + PERF_KEY_MSG_LEN_NOGID,
				 PERF_KEY_MSG_LEN - PERF_KEY_MSG_LEN_NOGID, timeout_s);
	*len = n > 0 ? (size_t)n : PERF_KEY_MSG_LEN_NOGID;
	if (r == 0)
		trace(x, "rx", buf, *len);
	return r;
}

/* The OOB peer's address as a GID (IPv4-mapped for IPv4): a 59-byte key
 * carries no GID, and on an Ethernet port the path needs one. */
static void
peer_addr_gid(struct perf_oob *x, struct perf_side *s)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getpeername(x->fd, (struct sockaddr *)&ss, &sl) < 0)
		return;
	memset(&s->peer_addr_gid, 0, sizeof(s->peer_addr_gid));
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&ss;

		s->peer_addr_gid.raw[10] = 0xff;
		s->peer_addr_gid.raw[11] = 0xff;
		memcpy(&s->peer_addr_gid.raw[12], &sin->sin_addr, 4);
	} else if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&ss;

		memcpy(s->peer_addr_gid.raw, &sin6->sin6_addr, 16);
	} else {
		return;
	}
	s->peer_addr_gid_set = 1;
}

static int
tcp_listen(struct perf_oob *x, const struct perf_opts *o)
{
	struct sockaddr_in sin;
	struct pollfd pfd;
	int one = 1, lfd, r;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		return -errno;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(o->port);
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(lfd, 1) < 0) {
		r = -errno;
		PERF_LOG(ERR, "out-of-band: cannot listen on TCP port %u: %s", o->port,
			 strerror(-r));
		close(lfd);
		return r;
	}
	printf("\n************************************\n"
	       "* Waiting for client to connect... *\n"
	       "************************************\n");
	fflush(stdout);
	pfd.fd = lfd;
	pfd.events = POLLIN;
	r = poll(&pfd, 1, (int)(o->timeout_s * 1000));
	if (r <= 0) {
		PERF_LOG(ERR, "out-of-band: no client within %.0f s", o->timeout_s);
		close(lfd);
		return -ETIMEDOUT;
	}
	x->fd = accept(lfd, NULL, NULL);
	r = x->fd < 0 ? -errno : 0;
	close(lfd);
	return r;
}

static int
tcp_connect(struct perf_oob *x, const struct perf_opts *o)
{
	uint64_t deadline = rte_rdtsc() + (uint64_t)(o->timeout_s * rte_get_tsc_hz());
	struct addrinfo hints, *res = NULL, *ai;
	char port[8];
	int r;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof(port), "%u", o->port);
	r = getaddrinfo(o->host, port, &hints, &res);
	if (r != 0) {
		PERF_LOG(ERR, "out-of-band: cannot resolve '%s': %s", o->host, gai_strerror(r));
		return -EHOSTUNREACH;
	}
	/* The server may still be starting: retry until the deadline. */
	for (;;) {
		for (ai = res; ai != NULL; ai = ai->ai_next) {
			x->fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
			if (x->fd < 0)
				continue;
			if (connect(x->fd, ai->ai_addr, ai->ai_addrlen) == 0) {
				freeaddrinfo(res);
				return 0;
			}
			close(x->fd);
			x->fd = -1;
		}
		if (rte_rdtsc() > deadline)
			break;
		rte_delay_us_sleep(100 * 1000);
	}
	freeaddrinfo(res);
	PERF_LOG(ERR, "out-of-band: cannot connect to %s:%u", o->host, o->port);
	return -ECONNREFUSED;
}

int
perf_oob_open(struct perf_oob *x, const struct perf_opts *o, struct perf_side *s)
{
	int one = 1, r;

	memset(x, 0, sizeof(*x));
	x->fd = -1;
	x->client = o->host != NULL;
	x->side = s;
	x->progress = 1;
	x->peer_version = atof(PERF_VERSION);
	if (o->oob_trace != NULL) {
		x->trace = fopen(o->oob_trace, "w");
		if (x->trace == NULL) {
			PERF_LOG(ERR, "cannot write %s: %s", o->oob_trace, strerror(errno));
			return -errno;
		}
	}
	if (o->use_cm) {
		x->cm = 1;
		return 0;
	}
	r = x->client ? tcp_connect(x, o) : tcp_listen(x, o);
	if (r < 0)
		return r;
	setsockopt(x->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	s->oob_fd = x->fd;
	peer_addr_gid(x, s);
	return 0;
}

void
perf_oob_close(struct perf_oob *x)
{
	struct pollfd pfd = { .fd = x->fd, .events = POLLIN };
	char junk[64];

	/* The server lets the client go first: a link the two share (memif)
	 * is then torn down from the client's side. Bounded: 2 s. */
	if (x->fd >= 0 && !x->client) {
		shutdown(x->fd, SHUT_WR);
		while (poll(&pfd, 1, 2000) > 0 && recv(x->fd, junk, sizeof(junk), 0) > 0)
			;
	}
	if (x->fd >= 0)
		close(x->fd);
	if (x->side != NULL)
		x->side->oob_fd = -1;
	x->fd = -1;
	if (x->trace != NULL)
		fclose(x->trace);
	x->trace = NULL;
}

int
perf_oob_xchg(struct perf_oob *x, const void *out, void *in, size_t len)
{
	double to = x->side != NULL ? x->side->o->timeout_s : 30;
	int r;

	if (x->cm)
		return perf_cm_msg(x, out, in, len);
	if (x->client) {
		r = tcp_send(x, out, len);
		return r < 0 ? r : tcp_recv(x, in, len, to);
	}
	r = tcp_recv(x, in, len, to);
	return r < 0 ? r : tcp_send(x, out, len);
}

int
perf_oob_versions(struct perf_oob *x, const struct perf_opts *o, struct perf_side *s)
{
	char mine[16], peer[16];
	uint32_t v, pv;
	char mtu[4], pmtu[4];
	size_t mtu_len;
	int r, peer_mtu;

	if (o->dont_xchg_versions)
		return 0;
	memset(mine, 0, sizeof(mine));
	strcpy(mine, PERF_VERSION);
	r = perf_oob_xchg(x, mine, peer, sizeof(mine));
	if (r < 0)
		return r;
	peer[sizeof(peer) - 1] = '\0';
	x->peer_version = atof(peer);
	if (o->test != PERF_WRITE_LAT && x->peer_version < PERF_VERSION_MIN) {
		PERF_LOG(ERR, "the peer runs perftest version '%s'; this test needs %.2f or newer",
			 peer, PERF_VERSION_MIN);
		return -EPROTO;
	}
	if (x->peer_version >= 5.32) {
		v = rte_cpu_to_be_32(PERF_CYCLE_BUFFER);
		r = perf_oob_xchg(x, &v, &pv, sizeof(v));
		if (r < 0)
			return r;
		/* perftest keeps the larger and walks its remote addresses over
		 * it: our MR must cover it beyond each advertised address. */
		pv = rte_be_to_cpu_32(pv);
		if (pv > PERF_CYCLE_BUFFER_MAX) {
			PERF_LOG(ERR, "the peer's cycle buffer is %u bytes; this side "
				 "registers %u beyond each address", pv, PERF_CYCLE_BUFFER_MAX);
			return -EPROTO;
		}
	}
	v = rte_cpu_to_be_32(RTE_CACHE_LINE_SIZE);
	r = perf_oob_xchg(x, &v, &pv, sizeof(v));
	if (r < 0)
		return r;
	/* The MTU as the verbs enum in ASCII; peers before 5.31 send 4 bytes. */
	mtu_len = x->peer_version >= 5.31 ? 2 : 4;
	memset(mtu, 0, sizeof(mtu));
	memset(pmtu, 0, sizeof(pmtu));
	mtu[0] = (char)('0' + s->mtu);
	r = perf_oob_xchg(x, mtu, pmtu, mtu_len);
	if (r < 0)
		return r;
	peer_mtu = pmtu[0] - '0';
	if (peer_mtu < PRDMA_MTU_256 || peer_mtu > PRDMA_MTU_4096) {
		PERF_LOG(ERR, "the peer sent a bad MTU '%c'", pmtu[0]);
		return -EPROTO;
	}
	if (peer_mtu < s->mtu)
		s->mtu = (uint8_t)peer_mtu;
	return 0;
}

/* Show a malformed message on one line: printable characters as they are. */
static void
log_bad_key(const char *what, const uint8_t *m, size_t len)
{
	char txt[PERF_KEY_MSG_LEN + 1];
	size_t i;

	for (i = 0; i < len && i < PERF_KEY_MSG_LEN; i++)
		txt[i] = m[i] >= 0x20 && m[i] < 0x7f ? (char)m[i] : '.';
	txt[i] = '\0';
	PERF_LOG(ERR, "%s: the peer's %zu-byte key message is malformed: '%s'", what, len, txt);
}

static int
key_xchg(struct perf_oob *x, const struct perf_key *mine, struct perf_key *peer)
{
	struct perf_side *s = x->side;
	double to = s->o->timeout_s;
	uint8_t out[PERF_KEY_MSG_LEN], in[PERF_KEY_MSG_LEN];
	size_t len;
	int r;

	if (x->cm) {
		perf_key_encode_bin(mine, out);
		r = perf_oob_xchg(x, out, in, PERF_KEY_BIN_LEN);
		if (r == 0)
			perf_key_decode_bin(in, peer);
		return r;
	}
	if (!x->client) {
		/* Answer in the client's format: perftest reads the length its
		 * own gid_index gives, and the client's message shows that. */
		r = tcp_recv_key(x, (char *)in, &len, to);
		if (r < 0)
			return r;
		if (perf_key_msg_len((const char *)in) < 0) {
			log_bad_key("key exchange", in, len);
			return -EPROTO;
		}
		if (len != s->key_len)
			PERF_LOG(INFO, "the client sends %zu-byte keys: answering with %zu bytes",
				 len, len);
		s->key_len = len;
	}
	r = perf_key_encode(mine, (char *)out, s->key_len);
	if (r < 0)
		return r;
	r = tcp_send(x, out, s->key_len);
	if (r < 0)
		return r;
	if (x->client) {
		r = tcp_recv_key(x, (char *)in, &len, to);
		if (r < 0)
			return r;
	}
	if (perf_key_msg_len((const char *)in) < 0 ||
	    perf_key_decode((const char *)in, len, peer) < 0) {
		log_bad_key("key exchange", in, len);
		return -EPROTO;
	}
	return 0;
}

int
perf_oob_keys(struct perf_oob *x, struct perf_side *s)
{
	struct perf_key k;
	uint32_t i;
	int r;

	if (s == NULL) {
		/* A barrier: QP 0's key again, as perftest's ctx_hand_shake. */
		return key_xchg(x, &x->side->my[0], &k);
	}
	for (i = 0; i < s->nqp; i++) {
		r = key_xchg(x, &s->my[i], &s->peer[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

int
perf_oob_bw_report(struct perf_oob *x, const double mine[5], double peer[5])
{
	uint64_t out, in;
	unsigned int i;
	int r;

	for (i = 0; i < 5; i++) {
		/* Size and iterations are integers, the rest doubles, all big-endian. */
		if (i < 2) {
			out = rte_cpu_to_be_64((uint64_t)mine[i]);
		} else {
			memcpy(&out, &mine[i], 8);
			out = rte_cpu_to_be_64(out);
		}
		r = perf_oob_xchg(x, &out, &in, 8);
		if (r < 0)
			return r;
		in = rte_be_to_cpu_64(in);
		if (i < 2)
			peer[i] = (double)in;
		else
			memcpy(&peer[i], &in, 8);
	}
	return 0;
}

int
perf_oob_done(struct perf_oob *x)
{
	static const char done[5] = "done";

	if (x->cm)
		return 0;
	/* Both sides write it and neither reads the other's. */
	return tcp_send(x, done, sizeof(done));
}
