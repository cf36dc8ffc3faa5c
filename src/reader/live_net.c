/* SPDX-License-Identifier: MIT */
/*
 * The lttng-live client's socket and exchanges (live_net.h). A request is
 * sent in one write (header and payload together: two writes would meet
 * Nagle and the peer's delayed ACK); a reply is read to its exact size.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/common.h"
#include "reader/live_net.h"

/* How long a reply may take once asked for, and a connection to be made. */
#define REPLY_TIMEOUT_MS 60000
#define CONNECT_TIMEOUT_MS 10000

static int wait_fd(struct lv_conn *c, short ev, int ms)
{
	struct pollfd p = { .fd = c->fd, .events = ev };
	int n;

	do
		n = poll(&p, 1, ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

static int io_fail(struct lv_conn *c, int ret, const char *what)
{
	if (ret == -ETIMEDOUT)
		rd_err_set(c->err, "relay daemon at %s: no %s within %d s", c->where, what,
			   REPLY_TIMEOUT_MS / 1000);
	else if (ret == -ECONNRESET || ret == -EPIPE)
		rd_err_set(c->err, "relay daemon at %s closed the connection (%s)", c->where,
			   what);
	else
		rd_err_set(c->err, "relay daemon at %s: %s: %s", c->where, what, strerror(-ret));
	return ret == -EPIPE ? -ECONNRESET : ret;
}

static int send_all(struct lv_conn *c, const void *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = send(c->fd, (const char *)buf + off, len - off, MSG_NOSIGNAL);
		int ret;

		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return io_fail(c, -errno, "request sent");
		ret = wait_fd(c, POLLOUT, REPLY_TIMEOUT_MS);
		if (ret)
			return io_fail(c, ret, "room for a request");
	}
	return 0;
}

static int recv_all(struct lv_conn *c, void *buf, size_t len, const char *what)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = recv(c->fd, (char *)buf + off, len - off, 0);
		int ret;

		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == 0)
			return io_fail(c, -ECONNRESET, what);
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return io_fail(c, -errno, what);
		ret = wait_fd(c, POLLIN, REPLY_TIMEOUT_MS);
		if (ret)
			return io_fail(c, ret, what);
	}
	c->bytes_in += len;
	return 0;
}

/* Sends command @cmd with its payload, then reads @rlen reply bytes. */
static int exchange(struct lv_conn *c, uint32_t cmd, const void *payload, uint32_t len,
		    void *reply, size_t rlen, const char *what)
{
	unsigned char buf[sizeof(struct live_wire_cmd) + LIVE_MAX_PAYLOAD];
	int ret;

	ret = send_all(c, buf, lv_cmd_build(buf, cmd, payload, len));
	return ret ? ret : recv_all(c, reply, rlen, what);
}

static int bad_reply(struct lv_conn *c, int ret, const char *what)
{
	rd_err_set(c->err, "relay daemon at %s: %s %s", c->where,
		   ret == -EMSGSIZE ? "over the client's limits:" : "malformed:", what);
	return ret;
}

/* ---- connecting ---------------------------------------------------------- */

static int connect_one(struct lv_conn *c, const struct addrinfo *ai)
{
	socklen_t sl = sizeof(int);
	int one = 1, soerr = 0, ret;

	c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       ai->ai_protocol);
	if (c->fd < 0)
		return -errno;
	if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			ret = -errno;
			goto fail;
		}
		ret = wait_fd(c, POLLOUT, CONNECT_TIMEOUT_MS);
		if (!ret && getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
			ret = -errno;
		if (!ret && soerr)
			ret = -soerr;
		if (ret)
			goto fail;
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
fail:
	close(c->fd);
	c->fd = -1;
	return ret;
}

static int handshake(struct lv_conn *c)
{
	struct live_wire_connect rq = {
		.major = htobe32(LIVE_PROTO_MAJOR),
		.minor = htobe32(LIVE_PROTO_MINOR),
		.type = htobe32(LIVE_CONNECTION_COMMAND),
	}, rp;
	uint32_t status;
	int ret;

	ret = exchange(c, LIVE_CMD_CONNECT, &rq, sizeof(rq), &rp, sizeof(rp), "CONNECT reply");
	if (ret)
		return ret;
	if (be32toh(rp.major) != LIVE_PROTO_MAJOR) {
		rd_err_set(c->err, "relay daemon at %s speaks live protocol %u.%u, not %u.x",
			   c->where, be32toh(rp.major), be32toh(rp.minor), LIVE_PROTO_MAJOR);
		return -EPROTO;
	}
	ret = exchange(c, LIVE_CMD_CREATE_SESSION, NULL, 0, &status, sizeof(status),
		       "CREATE_SESSION reply");
	if (ret)
		return ret;
	if (be32toh(status) != LIVE_CREATE_SESSION_OK) {
		rd_err_set(c->err, "relay daemon at %s refused a viewer session", c->where);
		return -EPROTO;
	}
	return 0;
}

int lv_conn_open(struct lv_conn *c, const struct lv_url *u, struct rd_err *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int ret = -ECONNREFUSED, g;

	c->fd = -1;
	c->err = err;
	c->bytes_in = 0;
	trawl_msg_fmt(c->where, sizeof(c->where), strchr(u->host, ':') ? "[%s]:%s" : "%s:%s",
		      u->host, u->port);
	g = getaddrinfo(u->host, u->port, &hints, &res);
	if (g) {
		rd_err_set(err, "relay daemon at %s: cannot resolve: %s", c->where, gai_strerror(g));
		return -EHOSTUNREACH;
	}
	for (ai = res; ai && c->fd < 0; ai = ai->ai_next)
		ret = connect_one(c, ai);
	freeaddrinfo(res);
	if (c->fd < 0) {
		rd_err_set(err, "nothing listens for live viewers at %s (%s; is a relay daemon running?)",
			   c->where, strerror(-ret));
		return ret;
	}
	ret = handshake(c);
	if (ret)
		lv_conn_close(c);
	return ret;
}

int lv_conn_adopt(struct lv_conn *c, int fd, const char *where, struct rd_err *err)
{
	int ret;

	c->fd = fd;
	c->err = err;
	c->bytes_in = 0;
	trawl_msg_fmt(c->where, sizeof(c->where), "%s", where);
	ret = handshake(c);
	if (ret)
		lv_conn_close(c);
	return ret;
}

void lv_conn_close(struct lv_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* ---- exchanges ----------------------------------------------------------- */

int lv_list(struct lv_conn *c, struct lv_session_info **out, size_t *n)
{
	unsigned char head[4], wire[sizeof(struct live_wire_session)];
	struct lv_session_info *s = NULL;
	int64_t count;
	int ret;

	*out = NULL;
	*n = 0;
	ret = exchange(c, LIVE_CMD_LIST_SESSIONS, NULL, 0, head, sizeof(head), "session list");
	if (ret)
		return ret;
	count = lv_sessions_count(head);
	if (count < 0)
		return bad_reply(c, (int)count, "session list of too many sessions");
	if (count && !(s = calloc((size_t)count, sizeof(*s))))
		return -ENOMEM;
	for (int64_t i = 0; i < count; i++) {
		ret = recv_all(c, wire, sizeof(wire), "session list");
		if (ret) {
			free(s);
			return ret;
		}
		lv_session_decode(wire, &s[i]);
	}
	*out = s;
	*n = (size_t)count;
	return 0;
}

int lv_streams(struct lv_conn *c, int attach, uint64_t sid, uint32_t *status,
	       struct lv_stream_info **out, uint32_t *n)
{
	struct live_wire_attach_request rq = { .session_id = htobe64(sid),
					       .seek = htobe32(LIVE_SEEK_LAST) };
	unsigned char head[sizeof(struct live_wire_streams_reply)];
	unsigned char *wire = NULL;
	struct lv_stream_info *s = NULL;
	const char *what = attach ? "ATTACH_SESSION reply" : "GET_NEW_STREAMS reply";
	uint32_t count = 0, i;
	int ret;

	*out = NULL;
	*n = 0;
	/* GET_NEW_STREAMS carries the session id alone (8 bytes) */
	ret = exchange(c, attach ? LIVE_CMD_ATTACH_SESSION : LIVE_CMD_GET_NEW_STREAMS, &rq,
		       attach ? sizeof(rq) : sizeof(rq.session_id), head, sizeof(head), what);
	if (ret)
		return ret;
	ret = lv_streams_reply(head, attach, status, &count);
	if (ret)
		return bad_reply(c, ret, what);
	if (!count)
		return 0;
	s = calloc(count, sizeof(*s));
	wire = malloc(sizeof(struct live_wire_stream));
	if (!s || !wire) {
		ret = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < count; i++) {
		ret = recv_all(c, wire, sizeof(struct live_wire_stream), what);
		if (ret)
			goto fail;
		if (lv_stream_decode(wire, &s[i])) {
			ret = bad_reply(c, -EBADMSG, "stream with a metadata flag not 0 or 1");
			goto fail;
		}
	}
	free(wire);
	*out = s;
	*n = count;
	return 0;
fail:
	free(wire);
	free(s);
	return ret;
}

int lv_next_index(struct lv_conn *c, uint64_t id, struct lv_index *ix)
{
	unsigned char wire[sizeof(struct live_wire_index)];
	uint64_t rq = htobe64(id);
	const char *why;
	int ret;

	ret = exchange(c, LIVE_CMD_GET_NEXT_INDEX, &rq, sizeof(rq), wire, sizeof(wire),
		       "GET_NEXT_INDEX reply");
	if (ret)
		return ret;
	ret = lv_index_decode(wire, ix, &why);
	return ret ? bad_reply(c, ret, why) : 0;
}

int lv_get_packet(struct lv_conn *c, uint64_t id, uint64_t offset, uint32_t len, void *buf,
		  uint32_t *status, uint32_t *flags, uint32_t *got)
{
	struct live_wire_get_packet rq = {
		.stream_id = htobe64(id), .offset = htobe64(offset), .len = htobe32(len),
	};
	unsigned char head[sizeof(struct live_wire_packet_reply)];
	int ret;

	*got = 0;
	ret = exchange(c, LIVE_CMD_GET_PACKET, &rq, sizeof(rq), head, sizeof(head),
		       "GET_PACKET reply");
	if (ret)
		return ret;
	ret = lv_packet_reply(head, len, status, flags, got);
	if (ret)
		return bad_reply(c, ret, "packet reply of a bad status or length");
	return *got ? recv_all(c, buf, *got, "packet data") : 0;
}

int lv_get_metadata(struct lv_conn *c, uint64_t id, char **buf, size_t *len, uint32_t *status)
{
	unsigned char head[sizeof(struct live_wire_metadata_reply)];
	uint64_t rq = htobe64(id), n;
	char *nb;
	int ret;

	ret = exchange(c, LIVE_CMD_GET_METADATA, &rq, sizeof(rq), head, sizeof(head),
		       "GET_METADATA reply");
	if (ret)
		return ret;
	ret = lv_metadata_reply(head, LV_MAX_METADATA - *len, status, &n);
	if (ret)
		return bad_reply(c, ret, "metadata reply (status, or more than 64 MiB in all)");
	if (!n)
		return 0;
	nb = realloc(*buf, *len + n + 1);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	ret = recv_all(c, nb + *len, n, "metadata");
	if (ret)
		return ret;
	*len += n;
	nb[*len] = '\0';
	return 0;
}

int lv_detach(struct lv_conn *c, uint64_t sid)
{
	uint64_t rq = htobe64(sid);
	uint32_t status;

	return exchange(c, LIVE_CMD_DETACH_SESSION, &rq, sizeof(rq), &status, sizeof(status),
			"DETACH_SESSION reply");
}
