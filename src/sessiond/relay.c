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
 * An unreachable relayd is one line at create, or at start (when the
 * connection was lost, start connects again).
 */
#include "common/common.h"
#include "consumerd/output.h"
#include "relayd/proto.h"
#include "relayd/url.h"
#include "sessiond/sessiond.h"

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define SD_RELAY_TIMEOUT_MS 3000

int sd_relay_is_url(const char *output)
{
	return !strncmp(output, "net://", 6) || !strncmp(output, "net6://", 7);
}

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

	return sendmsg(fd, &m, MSG_NOSIGNAL) == (ssize_t)(sizeof(h) + size) ? 0 : -EPIPE;
}

/* relayd hung up on the session's connection (or sent what it never sends). */
static void relay_hup(int fd, short revents, void *arg)
{
	struct sd_session *s = arg;

	sd_watch_del(fd);
	close(fd);
	s->relay_fd = -1;
	trawl_msg_fmt(
		s->relay_problem, sizeof(s->relay_problem),
		"trawl-relayd at %.150s closed the session's connection: streaming has stopped",
		s->output);
	sd_log("session %s: %s", s->name, s->relay_problem);
}

/*
 * Connects to relayd's control port and says HELLO for @s. Returns 0 (the
 * connection watched for hang-ups), or fills @r (if not NULL) and returns
 * the error, with @when ("create", "start") in the line.
 */
static int session_connect(struct sd_session *s, const char *when, struct sd_reply *r)
{
	struct trawl_relay_hello hello = {
		.creation_time = htole64((uint64_t)s->created),
		.token = htole64(s->relay_token),
		.flags = htole32(s->live_timer_us ? TRAWL_RELAY_F_LIVE : 0),
		.live_timer_us = htole32(s->live_timer_us),
	};
	struct timeval tv = {.tv_sec = SD_RELAY_TIMEOUT_MS / 1000};
	struct trawl_relay_reply rep;
	struct trawl_relay_url u;
	char why[256];
	const char *what;
	int fd, ret;
	ssize_t n;

	if (trawl_relay_url_parse(s->output, 0, &u, why, sizeof(why)))
		return r ? sd_fail(r, -EINVAL, "bad URL '%s': %s", s->output, why) : -EINVAL;
	if (trawl_path_fmt(hello.session, sizeof(hello.session), "%s", s->name) ||
	    trawl_path_fmt(hello.hostname, sizeof(hello.hostname), "%s", s->hostname))
		return r ? sd_fail(r, -ENAMETOOLONG,
				   "session name '%s' or host name '%s' too long "
				   "for trawl-relayd (at most %zu bytes)",
				   s->name, s->hostname, sizeof(hello.session) - 1)
			 : -ENAMETOOLONG;
	fd = trawl_relay_connect(u.host, u.ctrl_port, u.ipv6, SD_RELAY_TIMEOUT_MS);
	ret = fd < 0 ? fd : 0;
	if (!ret) {
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		ret = msg_send(fd, TRAWL_RELAY_HELLO, &hello, sizeof(hello));
	}
	if (!ret) {
		n = recv(fd, &rep, sizeof(rep), MSG_WAITALL);
		if (n != (ssize_t)sizeof(rep) || le32toh(rep.magic) != TRAWL_RELAY_MAGIC)
			ret = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? -ETIMEDOUT : -EPROTO;
		else
			ret = (int32_t)le32toh((uint32_t)rep.status);
		if (ret > 0 || ret < -4095)
			ret = -EPROTO; /* relayd answers 0 or a negative errno; a positive one passed for success */
	}
	if (!ret)
		ret = sd_watch_add(fd, relay_hup, s);
	if (ret) {
		if (fd >= 0)
			close(fd);
		what = ret == -ENOENT ? "unknown host"
		       : ret == -EPROTO ? "it does not speak trawl-relayd's protocol"
					: strerror(-ret);
		return r ? sd_fail(r, ret, "cannot reach trawl-relayd at %s:%u (control port) at %s: %s",
				   u.host, u.ctrl_port, when, what)
			 : ret;
	}
	s->relay_fd = fd;
	s->relay_problem[0] = '\0';
	return 0;
}

int sd_relay_setup(struct sd_session *s, const char *url, uint32_t live_timer_us,
		   struct sd_reply *r)
{
	struct trawl_relay_url u;
	char why[256], norm[300];
	int ret;

	s->relay_fd = -1;
	ret = trawl_relay_url_parse(url, 0, &u, why, sizeof(why));
	if (ret || u.tcp)
		return sd_fail(r, -EINVAL, "bad URL '%s': %s", url,
			       ret ? why : "expected net://HOST[:CTRLPORT[:DATAPORT]]");
	if (s->snapshot)
		return sd_fail(r, -EOPNOTSUPP, "snapshot sessions cannot stream to trawl-relayd "
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
	if (!s->relay[0] || s->relay_fd < 0)
		return;
	sd_watch_del(s->relay_fd);
	msg_send(s->relay_fd, TRAWL_RELAY_END, NULL, 0);
	close(s->relay_fd);
	s->relay_fd = -1;
}
