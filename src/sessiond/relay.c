/* SPDX-License-Identifier: MIT */
/*
 * relay.c - sessions that stream to trawl-relayd (`trawl create --set-url
 * net://HOST[:CTRL[:DATA]]`, `--live[=US]`).
 *
 * The session's output becomes the normalized URL (what `trawl list` and
 * `trawl status` show), and its domains get a relay destination instead of
 * a folder (consumerd/output.h): each consumer connects to relayd's data
 * port itself, one connection per trace.
 *
 * The daemon holds one more connection per streaming session, to relayd's
 * control port, from create to destroy: its HELLO makes relayd create the
 * session's folder (and show a live session to viewers) at create, as
 * LTTng's relayd does, before any consumer streams; its END at destroy
 * closes the session there. It is also how the daemon learns that relayd
 * went away (the connection hangs up: relayd never sends after its reply),
 * whatever the consumers can tell: `trawl status` and `trawl list` say so.
 * An unreachable relayd is one line at start (start connects again when
 * the connection was lost, or never made): as LTTng's, create does not fail
 * for it (`trawl status` says it), only for a host name that does not
 * resolve.
 *
 * Connecting again. A connection lost (or never made at create) is made
 * again by the daemon on its own, as the consumers do theirs: a try
 * RELAY_RETRY_FIRST_MS later, then backing off to RELAY_RETRY_MAX_MS, each
 * try the same non-blocking steps as create's, within relay-ms a step; a
 * request that needs relayd meanwhile (a rotation's or a clear's CHUNK)
 * fails in one line and has the next try made at once. Without it, a
 * relayd that came back served the consumers but every rotation of the
 * session failed until it was stopped and started again. A session's try
 * waits while a command holds it (its start connects itself).
 *
 * Resolving relayd's host name. getaddrinfo() waits on the DNS servers for
 * as long as the resolver's options say (5 s per try by default, and more
 * if configured), and the daemon has one thread. A name is resolved by a
 * child process (fork, no exec) that writes the addresses, whole, to a pipe
 * the loop watches, within relay-ms like the other steps; an address
 * written as numbers (the common case, and most tests') is taken at once,
 * no child. A child rather than a thread or getaddrinfo_a() (threads
 * underneath): the daemon forks elsewhere and runs code in the child before
 * any exec (common/as-user.c, ids.c: setuid, then mkdir or open), which is
 * safe only while it has one thread; and a child that overruns is killed
 * and reaped, where a thread stuck in the resolver cannot be stopped.
 */
#include "common/common.h"
#include "consumerd/output.h"
#include "relayd/proto.h"
#include "relayd/url.h"
#include "sessiond/sessiond.h"

#include <endian.h>
#include <netdb.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int sd_relay_is_url(const char *output)
{
	return !strncmp(output, "net://", 6) || !strncmp(output, "net6://", 7);
}

#define RELAY_RETRY_FIRST_MS 1000u
#define RELAY_RETRY_MAX_MS 8000u

static void retry_schedule(void);

/* @s lost relayd (or never reached it): it is tried again (top comment). */
static void retry_begin(struct sd_session *s)
{
	s->relay_backoff_ms = RELAY_RETRY_FIRST_MS;
	s->relay_retry_ms = sd_now_ms() + s->relay_backoff_ms;
	retry_schedule();
}

/* (non-blocking: a message this small fits in an idle socket's buffer) */
static int msg_send(int fd, uint16_t cmd, const void *payload, uint32_t size)
{
	struct trawl_relay_hdr h = {
		.magic = htole32(TRAWL_RELAY_MAGIC),
		.version = htole16(TRAWL_RELAY_VERSION),
		.cmd = htole16(cmd),
		.size = htole32(size),
	};
	struct iovec v[2] = {{&h, sizeof(h)}, {(void *)payload, size}};
	struct msghdr m = {.msg_iov = v, .msg_iovlen = size ? 2 : 1};

	return sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)(sizeof(h) + size) ? 0
											   : -EPIPE;
}

/* The CHUNK round trip of @s is over (@ret), or there is none. */
static void relay_wait_over(struct sd_session *s, int ret)
{
	struct sd_owner_job *j = s->relay_wait;

	s->relay_wait = NULL;
	if (!j)
		return;
	if (ret)
		sd_log("session %s: trawl-relayd did not confirm a trace chunk's close or clear: %s",
		       s->name, strerror(-ret));
	j->ret = ret;
	j->over = 1;
	if (j->done)
		j->done(j, j->arg);
}

/* relayd hung up on the session's connection (or sent what it never sends). */
static void relay_hup(int fd, short revents, void *arg)
{
	struct sd_session *s = arg;
	ssize_t n;

	(void)revents;
	/* the PING reply of a CHUNK's round trip, as it comes */
	while (s->relay_in_due && s->relay_in_got < sizeof(s->relay_in)) {
		n = recv(fd, s->relay_in + s->relay_in_got, sizeof(s->relay_in) - s->relay_in_got,
			 MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (n <= 0)
			break;
		s->relay_in_got += (size_t)n;
		if (s->relay_in_got < sizeof(s->relay_in))
			continue;
		s->relay_in_due = 0;
		s->relay_in_got = 0;
		sd_watch_deadline(fd, 0, NULL);
		{
			struct trawl_relay_reply rep;
			int32_t st;

			memcpy(&rep, s->relay_in, sizeof(rep));
			st = (int32_t)le32toh((uint32_t)rep.status);
			/* the CHUNK's error, if it failed (relayd logged it) */
			relay_wait_over(s, le32toh(rep.magic) == TRAWL_RELAY_MAGIC && st < 0 &&
							   st >= -4095
						   ? st
						   : 0);
		}
		return;
	}
	relay_wait_over(s, -EPIPE);
	s->relay_in_due = 0;
	sd_watch_del(fd);
	close(fd);
	s->relay_fd = -1;
	trawl_msg_fmt(
		s->relay_problem, sizeof(s->relay_problem),
		"trawl-relayd at %.150s closed the session's connection: streaming has stopped",
		s->output);
	sd_log("session %s: %s", s->name, s->relay_problem);
	retry_begin(s);
}

/*
 * A connection to relayd's control port under way (sd_relay_connect()):
 * the connect, the HELLO, its reply, each step non-blocking and watched by
 * the loop, the whole within relay-ms a step. relayd is whoever answers
 * there, chosen by the session's owner: it may accept and never answer,
 * or answer a byte at a time, and the daemon's one thread must not wait
 * for it (docs/SECURITY.md, "No one stalls the root daemon").
 */
enum { RC_RESOLVING, RC_CONNECTING, RC_SENDING, RC_READING };

enum { RESOLVED_MAX = 8 }; /* addresses tried, of those a name has */

/*
 * What the resolver child writes, once, whole: under PIPE_BUF (4096) bytes,
 * so one write() the loop reads in one or a few pieces, never interleaved.
 */
struct resolved {
	int32_t gai; /* 0, or getaddrinfo()'s EAI_* */
	uint32_t n;  /* addresses in a[] */
	struct resolved_addr {
		int32_t family, socktype, protocol;
		uint32_t len; /* of ss's bytes used */
		struct sockaddr_storage ss;
	} a[RESOLVED_MAX];
};
_Static_assert(sizeof(struct resolved) <= 4096, "one atomic pipe write (PIPE_BUF)");

/* Resolving at once for one uid (a create in flight each): more are refused, busy. */
#define RESOLVING_PER_UID 8

struct sd_relay_conn {
	struct trawl_relay_url u;
	struct resolved res; /* the addresses; while resolving, filled from the pipe */
	size_t res_got;	     /* bytes of res read from the child */
	uint32_t ai;	     /* the next address to try, in res.a */
	pid_t child;	     /* the resolver, while it runs; else -1 */
	int fd, state, over, ret;
	char why[96]; /* "" or what resolving the name came to, for the line */
	const char *when;
	unsigned char out[sizeof(struct trawl_relay_hdr) + sizeof(struct trawl_relay_hello)];
	size_t out_done;
	unsigned char in[sizeof(struct trawl_relay_reply)];
	size_t in_got;
};

/* Stops the resolver child, if it runs, and reaps it (SIGKILL: it exits at once). */
static void resolver_reap(struct sd_relay_conn *rc)
{
	if (rc->child <= 0)
		return;
	kill(rc->child, SIGKILL);
	while (waitpid(rc->child, NULL, 0) < 0 && errno == EINTR)
		;
	rc->child = -1;
}

static void conn_close_fd(struct sd_relay_conn *rc)
{
	resolver_reap(rc);
	if (rc->fd < 0)
		return;
	sd_watch_del(rc->fd);
	close(rc->fd);
	rc->fd = -1;
}

static void conn_end(struct sd_session *s, int ret)
{
	struct sd_relay_conn *rc = s->relay_conn;

	rc->over = 1;
	rc->ret = ret;
	if (ret) {
		conn_close_fd(rc);
		if (s->relay_bg)
			retry_schedule();
		return;
	}
	/* connected: from now on only a hang-up is expected (relay_hup) */
	sd_watch_del(rc->fd);
	if (sd_watch_add(rc->fd, relay_hup, s)) {
		close(rc->fd);
		rc->fd = -1;
		rc->ret = -ENOMEM;
		return;
	}
	s->relay_fd = rc->fd;
	rc->fd = -1;
	s->relay_problem[0] = '\0';
	if (s->relay_bg)
		retry_schedule(); /* (the try is over: retry_run() says so) */
}

static void conn_io(int fd, short revents, void *arg);
static void conn_expired(int fd, void *arg);

/* Arms the watch of the step under way: its events, its deadline. */
static void conn_arm(struct sd_relay_conn *rc, short events, int new_deadline)
{
	sd_watch_events(rc->fd, events);
	if (new_deadline)
		sd_watch_deadline(rc->fd, sd_now_ms() + sd_limits.relay_ms, conn_expired);
}

/* Starts connecting to the next address (rc->ai); 0 or the error of the last. */
static int conn_next(struct sd_session *s, int last_err)
{
	struct sd_relay_conn *rc = s->relay_conn;

	for (; rc->ai < rc->res.n; rc->ai++) {
		const struct resolved_addr *ai = &rc->res.a[rc->ai];
		int fd = socket(ai->family, ai->socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
				ai->protocol);

		if (fd < 0) {
			last_err = -errno;
			continue;
		}
		if (connect(fd, (const struct sockaddr *)&ai->ss, ai->len) &&
		    errno != EINPROGRESS) {
			last_err = -errno;
			close(fd);
			continue;
		}
		if (sd_watch_add(fd, conn_io, s)) {
			close(fd);
			return -ENOMEM;
		}
		rc->fd = fd;
		rc->state = RC_CONNECTING;
		rc->ai++;
		conn_arm(rc, POLLOUT, 1);
		return 0;
	}
	return last_err;
}

/* The step under way failed with @err: the next address, or the end. */
static void conn_failed(struct sd_session *s, int err)
{
	struct sd_relay_conn *rc = s->relay_conn;

	if (rc->state == RC_CONNECTING) {
		conn_close_fd(rc);
		err = conn_next(s, err);
		if (!err)
			return;
	}
	conn_end(s, err);
}

static void conn_expired(int fd, void *arg)
{
	struct sd_session *s = arg;
	struct sd_relay_conn *rc = s->relay_conn;

	(void)fd;
	if (rc->state == RC_RESOLVING)
		trawl_msg_fmt(rc->why, sizeof(rc->why),
			      "resolving the host name: no answer within relay-ms (%u ms)",
			      (unsigned)sd_limits.relay_ms);
	conn_failed(s, -ETIMEDOUT);
}

/*
 * The resolver child (top comment): resolves @host, writes struct resolved
 * to @wfd whole and exits. It holds none of the daemon's other fds (a
 * client's connection closed by the daemon stays closed for the client).
 */
static void __attribute__((noreturn))
resolver_child(int wfd, const char *host, const char *service, int family)
{
	struct addrinfo hints = {.ai_family = family, .ai_socktype = SOCK_STREAM}, *res, *ai;
	static struct resolved out; /* (static: the child's own copy, not its stack) */

	if (wfd > 3)
		close_range(3, (unsigned)wfd - 1, 0);
	close_range((unsigned)wfd + 1, ~0U, 0);
	memset(&out, 0, sizeof(out));
	out.gai = getaddrinfo(host, service, &hints, &res);
	if (!out.gai) {
		for (ai = res; ai && out.n < RESOLVED_MAX; ai = ai->ai_next) {
			struct resolved_addr *a = &out.a[out.n];

			if (ai->ai_addrlen > sizeof(a->ss))
				continue;
			a->family = ai->ai_family;
			a->socktype = ai->ai_socktype;
			a->protocol = ai->ai_protocol;
			a->len = (uint32_t)ai->ai_addrlen;
			memcpy(&a->ss, ai->ai_addr, ai->ai_addrlen);
			out.n++;
		}
		freeaddrinfo(res);
	}
	_exit(write(wfd, &out, sizeof(out)) == (ssize_t)sizeof(out) ? 0 : 1);
}

/* The resolver's answer, a piece at a time; once whole, the first connect. */
static void resolver_read(struct sd_session *s, int fd)
{
	struct sd_relay_conn *rc = s->relay_conn;
	unsigned char *p = (unsigned char *)&rc->res;
	ssize_t n = read(fd, p + rc->res_got, sizeof(rc->res) - rc->res_got);
	uint32_t i;
	int ret;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) { /* the child died before its answer */
		trawl_msg_fmt(rc->why, sizeof(rc->why), "resolving the host name failed");
		return conn_end(s, -ENOENT);
	}
	rc->res_got += (size_t)n;
	if (rc->res_got < sizeof(rc->res))
		return;
	conn_close_fd(rc); /* the pipe, and the child reaped */
	if (rc->res.gai) {
		if (rc->res.gai != EAI_NONAME && rc->res.gai != EAI_NODATA)
			trawl_msg_fmt(rc->why, sizeof(rc->why), "%s", gai_strerror(rc->res.gai));
		return conn_end(s, -ENOENT);
	}
	/* ours, but checked as if not: a bad count or length is no address */
	if (rc->res.n > RESOLVED_MAX)
		rc->res.n = 0;
	for (i = 0; i < rc->res.n; i++)
		if (rc->res.a[i].len > sizeof(rc->res.a[i].ss))
			rc->res.n = 0;
	rc->ai = 0;
	ret = conn_next(s, -ENOENT);
	if (ret)
		conn_end(s, ret);
}

/* Sessions of @uid whose relayd host name is being resolved. */
static unsigned resolving_of(uid_t uid)
{
	const struct sd_session *t;
	unsigned n = 0;

	for (t = sd.sessions; t; t = t->next)
		n += t->uid == uid && t->relay_conn && !t->relay_conn->over &&
		     t->relay_conn->state == RC_RESOLVING;
	return n;
}

/*
 * Resolves rc->u.host: an address written as numbers at once (0, or the
 * connect's error), a name by a resolver child (-EINPROGRESS: its answer
 * read by resolver_read()), or an error.
 */
static int resolve(struct sd_session *s)
{
	struct sd_relay_conn *rc = s->relay_conn;
	struct addrinfo hints = {
		.ai_family = rc->u.ipv6 ? AF_INET6 : AF_INET,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
	};
	struct addrinfo *res;
	char service[8];
	int p[2], g;
	pid_t pid;

	snprintf(service, sizeof(service), "%u", rc->u.ctrl_port);
	g = getaddrinfo(rc->u.host, service, &hints, &res);
	if (!g) { /* numbers: nothing to ask anyone */
		if (res->ai_addrlen <= sizeof(rc->res.a[0].ss)) {
			rc->res.a[0] = (struct resolved_addr){.family = res->ai_family,
							      .socktype = res->ai_socktype,
							      .protocol = res->ai_protocol,
							      .len = (uint32_t)res->ai_addrlen};
			memcpy(&rc->res.a[0].ss, res->ai_addr, res->ai_addrlen);
			rc->res.n = 1;
		}
		freeaddrinfo(res);
		return conn_next(s, -ENOENT);
	}
	if (g != EAI_NONAME)
		return -ENOENT;
	if (resolving_of(s->uid) >= RESOLVING_PER_UID && s->uid != 0) {
		trawl_msg_fmt(rc->why, sizeof(rc->why),
			      "%d host names of this user are being resolved: try again",
			      RESOLVING_PER_UID);
		return -EBUSY;
	}
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	pid = fork();
	if (pid < 0) {
		g = -errno;
		close(p[0]);
		close(p[1]);
		return g;
	}
	if (pid == 0)
		resolver_child(p[1], rc->u.host, service, hints.ai_family);
	close(p[1]);
	if (sd_watch_add(p[0], conn_io, s)) {
		close(p[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -ENOMEM;
	}
	rc->child = pid;
	rc->fd = p[0];
	rc->state = RC_RESOLVING;
	conn_arm(rc, POLLIN, 1);
	return 0;
}

static void conn_io(int fd, short revents, void *arg)
{
	struct sd_session *s = arg;
	struct sd_relay_conn *rc = s->relay_conn;
	ssize_t n;
	int err = 0;
	socklen_t len = sizeof(err);

	if (rc->state == RC_RESOLVING)
		return resolver_read(s, fd);
	if (rc->state == RC_CONNECTING) {
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err)
			return conn_failed(s, err ? -err : -errno);
		if (!(revents & POLLOUT))
			return conn_failed(s, -ECONNREFUSED);
		rc->state = RC_SENDING;
		conn_arm(rc, POLLOUT, 1);
	}
	if (rc->state == RC_SENDING) {
		n = send(fd, rc->out + rc->out_done, sizeof(rc->out) - rc->out_done,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (n <= 0)
			return conn_end(s, -EPIPE);
		rc->out_done += (size_t)n;
		if (rc->out_done < sizeof(rc->out))
			return;
		rc->state = RC_READING;
		conn_arm(rc, POLLIN, 1);
		return;
	}
	n = recv(fd, rc->in + rc->in_got, sizeof(rc->in) - rc->in_got, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0)
		return conn_end(s, -EPROTO); /* closed before its whole reply */
	rc->in_got += (size_t)n;
	if (rc->in_got < sizeof(rc->in))
		return;
	{
		struct trawl_relay_reply rep;
		int ret;

		memcpy(&rep, rc->in, sizeof(rep));
		if (le32toh(rep.magic) != TRAWL_RELAY_MAGIC)
			return conn_end(s, -EPROTO);
		ret = (int32_t)le32toh((uint32_t)rep.status);
		/* relayd answers 0 or a negative errno; a positive one passed for success */
		conn_end(s, ret > 0 || ret < -4095 ? -EPROTO : ret);
	}
}

static void conn_free(struct sd_session *s)
{
	struct sd_relay_conn *rc = s->relay_conn;

	if (!rc)
		return;
	conn_close_fd(rc);
	free(rc);
	s->relay_conn = NULL;
}

/* The line of a failed connection @ret, in @r (if not NULL); returns @ret. */
static int conn_fail_line(const struct trawl_relay_url *u, const char *when, const char *why,
			  int ret, struct sd_reply *r)
{
	const char *what = why && why[0]    ? why
			   : ret == -ENOENT ? "unknown host"
			   : ret == -EPROTO ? "it does not speak trawl-relayd's protocol"
					    : strerror(-ret);

	return r ? sd_fail(r, ret, "cannot reach trawl-relayd at %s:%u (control port) at %s: %s",
			   u->host, u->ctrl_port, when, what)
		 : ret;
}

/*
 * Begins connecting to relayd's control port and saying HELLO for @s:
 * -EINPROGRESS (sd_relay_connect_done() says when it is over), or fills
 * @r (if not NULL) and returns the error, with @when ("create", "start")
 * in the line. A host name is resolved first, by a child (top comment).
 */
static int session_connect(struct sd_session *s, const char *when, struct sd_reply *r)
{
	struct trawl_relay_hello hello = {
		.creation_time = htole64((uint64_t)s->created),
		.token = htole64(s->relay_token),
		.flags = htole32(s->live_timer_us ? TRAWL_RELAY_F_LIVE : 0),
		.live_timer_us = htole32(s->live_timer_us),
	};
	struct trawl_relay_hdr h = {
		.magic = htole32(TRAWL_RELAY_MAGIC),
		.version = htole16(TRAWL_RELAY_VERSION),
		.cmd = htole16(TRAWL_RELAY_HELLO),
		.size = htole32(sizeof(hello)),
	};
	struct sd_relay_conn *rc;
	char why[256];
	int ret;

	conn_free(s);
	s->relay_bg = 0; /* (a try of the daemon's own, if one was under way, is over) */
	rc = calloc(1, sizeof(*rc));
	if (!rc)
		return r ? sd_fail(r, -ENOMEM, "out of memory") : -ENOMEM;
	rc->fd = -1;
	rc->child = -1;
	rc->when = when;
	s->relay_conn = rc;
	if (trawl_relay_url_parse(s->output, 0, &rc->u, why, sizeof(why))) {
		conn_free(s);
		return r ? sd_fail(r, -EINVAL, "bad URL '%s': %s", s->output, why) : -EINVAL;
	}
	if (trawl_path_fmt(hello.session, sizeof(hello.session), "%s", s->name) ||
	    trawl_path_fmt(hello.hostname, sizeof(hello.hostname), "%s", s->hostname) ||
	    trawl_path_fmt(hello.base_path, sizeof(hello.base_path), "%s", rc->u.path)) {
		conn_free(s);
		return r ? sd_fail(r, -ENAMETOOLONG,
				   "session name '%s' or host name '%s' too long "
				   "for trawl-relayd (at most %zu bytes)",
				   s->name, s->hostname, sizeof(hello.session) - 1)
			 : -ENAMETOOLONG;
	}
	memcpy(rc->out, &h, sizeof(h));
	memcpy(rc->out + sizeof(h), &hello, sizeof(hello));
	ret = resolve(s);
	if (ret) {
		struct trawl_relay_url u = rc->u;
		char rc_why[sizeof(rc->why)];

		memcpy(rc_why, rc->why, sizeof(rc_why));
		conn_free(s);
		return conn_fail_line(&u, when, rc_why, ret, r);
	}
	return -EINPROGRESS;
}

/* 1 if @rc failed (@ret) for want of anything listening there: no TCP connection made. */
static int never_connected(const struct sd_relay_conn *rc, int ret)
{
	if (rc->why[0])
		return 0; /* resolving the name failed */
	return ret == -ECONNREFUSED || ret == -EHOSTUNREACH || ret == -ENETUNREACH ||
	       ret == -ENETDOWN || ret == -EADDRNOTAVAIL ||
	       (ret == -ETIMEDOUT && rc->state == RC_CONNECTING);
}

int sd_relay_connect_done(struct sd_session *s, struct sd_reply *r)
{
	struct sd_relay_conn *rc = s->relay_conn;
	int ret;

	if (!rc)
		return 1;
	if (!rc->over)
		return 0;
	ret = rc->ret;
	if (ret && !strcmp(rc->when, "create") && never_connected(rc, ret)) {
		/*
		 * LTTng's create does not reach relayd (its consumer does, at the
		 * session's first domain command): a relayd not there yet does
		 * not fail it. status says so; start connects again, and fails.
		 * A host name that does not resolve fails it, as LTTng's (its
		 * URL parser resolves the name), and so does a relayd that
		 * answered wrong.
		 */
		trawl_msg_fmt(s->relay_problem, sizeof(s->relay_problem),
			      "cannot reach trawl-relayd at %s:%u (control port) at create: %s",
			      rc->u.host, rc->u.ctrl_port,
			      strerror(-ret));
		sd_log("session %s: %s", s->name, s->relay_problem);
		retry_begin(s);
	} else if (ret) {
		conn_fail_line(&rc->u, rc->when, rc->why, ret, r);
	}
	conn_free(s);
	return 1;
}

int sd_relay_setup(struct sd_session *s, const char *url, uint32_t live_timer_us,
		   struct sd_reply *r)
{
	struct trawl_relay_url u;
	char why[256], norm[TRAWL_CTL_PATH_MAX];
	int ret;

	s->relay_fd = -1;
	ret = trawl_relay_url_parse(url, 0, &u, why, sizeof(why));
	if (ret || u.tcp)
		return sd_fail(r, -EINVAL, "bad URL '%s': %s", url,
			       ret ? why : "expected net://HOST[:CTRLPORT[:DATAPORT]]");
	if (s->snapshot)
		return sd_fail(r, -EOPNOTSUPP,
			       "snapshot sessions cannot stream to trawl-relayd "
			       "(yet): give them a local --output");
	if (!trawl_relay_name_ok(s->name))
		return sd_fail(r, -EINVAL, "session name '%s' cannot name a folder on trawl-relayd",
			       s->name);
	gethostname(s->hostname, sizeof(s->hostname) - 1);
	if (!trawl_relay_name_ok(s->hostname))
		snprintf(s->hostname, sizeof(s->hostname), "localhost");
	if (trawl_relay_url_format(&u, norm, sizeof(norm)))
		return sd_fail(r, -ENAMETOOLONG, "URL '%s' too long", url);
	s->created = (int64_t)time(NULL);
	s->live_timer_us = live_timer_us;
	/* names the session on relayd, with its name and host: not the time alone */
	if (getrandom(&s->relay_token, sizeof(s->relay_token), 0) != sizeof(s->relay_token))
		s->relay_token = (uint64_t)s->created << 20 ^ (uint64_t)getpid() << 8 ^ s->id;
	if (trawl_path_fmt(s->output, sizeof(s->output), "%s", norm))
		return sd_fail(r, -ENAMETOOLONG, "URL '%s' too long", url);
	if (trawl_output_relay_spec(s->relay, sizeof(s->relay), norm, s->name, s->hostname,
				    s->created, live_timer_us, s->relay_token))
		return sd_fail(r, -ENAMETOOLONG, "session name and URL too long to stream");
	return session_connect(s, "create", r);
}

int sd_relay_location(const struct sd_session *s, const char *url, const char *rel, char *buf,
		      size_t len)
{
	struct trawl_relay_url u;
	char why[128], stamp[32];
	time_t t = (time_t)s->created;
	struct tm tm;

	/* relayd's session folder (relayd/proto.h's HELLO): HOSTNAME/NAME-STAMP, or
	 * HOSTNAME/BASE for a URL with a path (relayd grouping by host, its default) */
	if (trawl_relay_url_parse(url, TRAWL_RELAY_DEFAULT_CTRL_PORT, &u, why, sizeof(why)) ||
	    !localtime_r(&t, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		return -EINVAL;
	if (u.path[0])
		return trawl_path_fmt(buf, len, "tcp://%s/%s/%s/%s [control port %u, data port %u]",
				      u.host, s->hostname, u.path, rel, (unsigned)u.ctrl_port,
				      (unsigned)u.data_port);
	return trawl_path_fmt(buf, len, "tcp://%s/%s/%s-%s/%s [control port %u, data port %u]",
			     u.host, s->hostname, s->name, stamp, rel, (unsigned)u.ctrl_port,
			     (unsigned)u.data_port);
}

int sd_relay_check(struct sd_session *s, struct sd_reply *r)
{
	if (!s->relay[0] || s->relay_fd >= 0)
		return 0;
	return session_connect(s, "start", r);
}

int sd_relay_problem(const struct sd_session *s, char *msg, size_t len)
{
	if (!s->relay[0] || !s->relay_problem[0])
		return 0;
	trawl_msg_fmt(msg, len, "%s", s->relay_problem);
	return 1;
}

void sd_relay_end(struct sd_session *s)
{
	conn_free(s);
	s->relay_bg = 0;
	s->relay_retry_ms = 0;
	relay_wait_over(s, -EPIPE);
	s->relay_in_due = 0;
	if (!s->relay[0] || s->relay_fd < 0)
		return;
	sd_watch_del(s->relay_fd);
	msg_send(s->relay_fd, TRAWL_RELAY_END, NULL, 0);
	close(s->relay_fd);
	s->relay_fd = -1;
}

int sd_relay_chunk(struct sd_session *s, uint32_t op, const char *from, const char *to,
		   const char *next)
{
	char payload[4 + 3 * TRAWL_RELAY_PATH_LEN];
	const char *strs[] = {from, to, next};
	uint32_t le = htole32(op);
	size_t n = sizeof(le), i;
	int ret;

	if (!s->relay[0])
		return -ENOTCONN;
	if (s->relay_fd < 0) {
		/* the next try at once: the request after this one may find it */
		if (s->relay_retry_ms && !s->relay_conn) {
			s->relay_retry_ms = sd_now_ms();
			retry_schedule();
		}
		return -ENOTCONN;
	}
	memcpy(payload, &le, sizeof(le));
	for (i = 0; i < TRAWL_ARRAY_SIZE(strs); i++) {
		size_t len = strlen(strs[i]) + 1;

		if (len > TRAWL_RELAY_PATH_LEN)
			return -ENAMETOOLONG;
		memcpy(payload + n, strs[i], len);
		n += len;
	}
	ret = msg_send(s->relay_fd, TRAWL_RELAY_CHUNK, payload, (uint32_t)n);
	if (ret)
		sd_log("session %s: cannot tell trawl-relayd of trace chunk %s: %s", s->name,
		       from[0] ? from : "0", strerror(-ret));
	return ret;
}

/* relayd did not answer a CHUNK's PING within relay-ms: the wait ends (the
 * reply, if it comes, is still read: relay_hup()). */
static void relay_wait_expired(int fd, void *arg)
{
	(void)fd;
	relay_wait_over(arg, -ETIMEDOUT);
}

int sd_relay_chunk_begin(struct sd_session *s, struct sd_owner_job *j, uint32_t op,
			 const char *from, const char *to, const char *next)
{
	int ret;

	*j = (struct sd_owner_job){.fd = -1};
	if (s->relay_wait || s->relay_in_due)
		return -EBUSY; /* (an op at a time: cannot happen) */
	ret = sd_relay_chunk(s, op, from, to, next);
	if (!ret)
		ret = msg_send(s->relay_fd, TRAWL_RELAY_PING, NULL, 0);
	if (ret)
		return ret;
	s->relay_wait = j;
	s->relay_in_due = 1;
	s->relay_in_got = 0;
	sd_watch_deadline(s->relay_fd, sd_now_ms() + sd_limits.relay_ms, relay_wait_expired);
	return -EINPROGRESS;
}

/* ---- connecting again (top comment) ---------------------------------------- */

static int retry_fd = -1; /* timerfd, owned; armed at the next thing to do */

/* A try of the daemon's own is over: connected, or the next is scheduled. */
static void retry_over(struct sd_session *s)
{
	struct sd_relay_conn *rc = s->relay_conn;
	int ret = rc->ret;

	if (!ret) {
		sd_log("session %s: connected to trawl-relayd at %s again", s->name, s->output);
		s->relay_retry_ms = 0;
	} else {
		char line[sizeof(s->relay_problem)];

		trawl_msg_fmt(line, sizeof(line),
			      "lost trawl-relayd at %s:%u (control port), cannot reach it again: %s "
			      "(trying every %u s)",
			      rc->u.host, rc->u.ctrl_port,
			      rc->why[0] ? rc->why : ret == -EPROTO ? "it does not speak "
								       "trawl-relayd's protocol"
								     : strerror(-ret),
			      RELAY_RETRY_MAX_MS / 1000);
		/* (logged when it changes: not every few seconds for a relayd long gone) */
		if (strcmp(line, s->relay_problem))
			sd_log("session %s: %s", s->name, line);
		memcpy(s->relay_problem, line, sizeof(line));
		s->relay_backoff_ms = TRAWL_MIN(s->relay_backoff_ms * 2, RELAY_RETRY_MAX_MS);
		s->relay_retry_ms = sd_now_ms() + s->relay_backoff_ms;
	}
	conn_free(s);
	s->relay_bg = 0;
}

/* Runs the tries due, finishes those over, and arms the timer at the next. */
static void retry_run(int fd, short revents, void *arg)
{
	struct itimerspec its = {{0, 0}, {0, 0}};
	uint64_t now = sd_now_ms(), next = UINT64_MAX, n;
	struct sd_session *s;

	(void)revents;
	(void)arg;
	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	for (s = sd.sessions; s; s = s->next) {
		if (s->relay_bg && s->relay_conn && s->relay_conn->over)
			retry_over(s);
		if (!s->relay_retry_ms || !s->relay[0])
			continue;
		if (s->relay_fd >= 0) { /* (its start connected it) */
			s->relay_retry_ms = 0;
			continue;
		}
		if (s->relay_conn || s->op) /* a try under way; or busy: later */
			continue;
		if (now >= s->relay_retry_ms) {
			int ret = session_connect(s, "reconnect", NULL);

			if (ret == -EINPROGRESS) {
				s->relay_bg = 1;
				continue;
			}
			/* failed at once: as a try that failed (no conn to say why) */
			s->relay_backoff_ms = TRAWL_MIN(s->relay_backoff_ms * 2, RELAY_RETRY_MAX_MS);
			s->relay_retry_ms = now + s->relay_backoff_ms;
		}
		if (s->relay_retry_ms < next)
			next = s->relay_retry_ms;
	}
	/* busy sessions and tries under way: looked at again within a second */
	for (s = sd.sessions; s; s = s->next)
		if (s->relay_retry_ms && (s->relay_conn || s->op) && now + 1000 < next)
			next = now + 1000;
	if (next != UINT64_MAX) {
		uint64_t in = next > now ? next - now : 1;

		its.it_value.tv_sec = (time_t)(in / 1000);
		its.it_value.tv_nsec = (long)(in % 1000) * 1000000L;
	}
	timerfd_settime(fd, 0, &its, NULL);
}

/* Has retry_run() run soon (the timer made at the first need). */
static void retry_schedule(void)
{
	struct itimerspec its = {{0, 0}, {0, 1000000L}}; /* 1 ms: from the loop, not here */

	if (retry_fd < 0) {
		retry_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (retry_fd < 0)
			return;
		if (sd_watch_add(retry_fd, retry_run, NULL)) {
			close(retry_fd);
			retry_fd = -1;
			return;
		}
	}
	timerfd_settime(retry_fd, 0, &its, NULL);
}
