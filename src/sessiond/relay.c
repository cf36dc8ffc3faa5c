/* SPDX-License-Identifier: MIT */
/*
 * relay.c - sessions that stream to trawl-relayd (`trawl create --set-url
 * net://HOST[:CTRL[:DATA]]`, `--live[=US]`).
 *
 * The session's output becomes the normalized URL (what `trawl list` and
 * `trawl status` show), and its domains get a relay destination instead of
 * a folder (consumerd/output.h): each consumer connects to relayd's data port
 * itself. The daemon checks relayd answers on its control port at create and
 * again at each start, so an unreachable relayd is one line then, not a
 * silent loss later. A relayd lost while tracing is reported by the
 * user-space consumer (its connection broke); for the kernel consumer, which
 * has no way to report, `trawl status` / `trawl list` ask relayd themselves.
 */
#include "consumerd/output.h"
#include "relayd/proto.h"
#include "relayd/url.h"
#include "sessiond/sessiond.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define SD_RELAY_PROBE_MS 3000

int sd_relay_is_url(const char *output)
{
	return !strncmp(output, "net://", 6) || !strncmp(output, "net6://", 7);
}

/* Connects to relayd's control port and expects an answer to PING. 0 or -errno. */
static int probe(const struct trawl_relay_url *u)
{
	struct trawl_relay_hdr h = {
		.magic = htole32(TRAWL_RELAY_MAGIC),
		.version = htole16(TRAWL_RELAY_VERSION),
		.cmd = htole16(TRAWL_RELAY_PING),
	};
	struct timeval tv = {.tv_sec = SD_RELAY_PROBE_MS / 1000};
	struct trawl_relay_reply r;
	int fd, ret = 0;
	ssize_t n;

	fd = trawl_relay_connect(u->host, u->ctrl_port, u->ipv6, SD_RELAY_PROBE_MS);
	if (fd < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (send(fd, &h, sizeof(h), MSG_NOSIGNAL) != (ssize_t)sizeof(h))
		ret = -EPIPE;
	else if ((n = recv(fd, &r, sizeof(r), MSG_WAITALL)) != (ssize_t)sizeof(r) ||
		 le32toh(r.magic) != TRAWL_RELAY_MAGIC)
		ret = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? -ETIMEDOUT : -EPROTO;
	close(fd);
	return ret;
}

static int probe_fail(struct sd_reply *r, const struct trawl_relay_url *u, int ret,
		      const char *when)
{
	const char *why = ret == -ENOENT ? "unknown host"
			  : ret == -EPROTO ? "it does not speak trawl-relayd's protocol"
					   : strerror(-ret);

	return sd_fail(r, ret, "cannot reach trawl-relayd at %s:%u (control port) at %s: %s",
		       u->host, u->ctrl_port, when, why);
}

int sd_relay_setup(struct sd_session *s, const char *url, uint32_t live_timer_us,
		   struct sd_reply *r)
{
	struct trawl_relay_url u;
	char why[256], host[256] = "", norm[300];
	int ret;

	ret = trawl_relay_url_parse(url, 0, &u, why, sizeof(why));
	if (ret || u.tcp)
		return sd_fail(r, -EINVAL, "bad URL '%s': %s", url,
			       ret ? why : "expected net://HOST[:CTRLPORT[:DATAPORT]]");
	if (s->snapshot)
		return sd_fail(r, -EOPNOTSUPP, "snapshot sessions cannot stream to trawl-relayd "
					       "(yet): give them a local --output");
	ret = probe(&u);
	if (ret)
		return probe_fail(r, &u, ret, "create");
	trawl_relay_url_format(&u, norm, sizeof(norm));
	gethostname(host, sizeof(host) - 1);
	if (!trawl_relay_name_ok(host))
		snprintf(host, sizeof(host), "localhost");
	if (!trawl_relay_name_ok(s->name))
		return sd_fail(r, -EINVAL, "session name '%s' cannot name a folder on trawl-relayd",
			       s->name);
	s->created = (int64_t)time(NULL);
	s->live_timer_us = live_timer_us;
	snprintf(s->output, sizeof(s->output), "%s", norm);
	if (trawl_output_relay_spec(s->relay, sizeof(s->relay), norm, s->name, host, s->created,
				    live_timer_us))
		return sd_fail(r, -ENAMETOOLONG, "session name and URL too long to stream");
	return 0;
}

int sd_relay_check(const struct sd_session *s, struct sd_reply *r)
{
	struct trawl_relay_url u;
	char why[256];
	int ret;

	if (!s->relay[0])
		return 0;
	if (trawl_relay_url_parse(s->output, 0, &u, why, sizeof(why)))
		return sd_fail(r, -EINVAL, "bad URL '%s': %s", s->output, why);
	ret = probe(&u);
	return ret ? probe_fail(r, &u, ret, "start") : 0;
}

int sd_relay_problem(const struct sd_session *s, char *msg, size_t len)
{
	struct trawl_relay_url u;
	char why[256];
	int ret;

	if (!s->relay[0] || trawl_relay_url_parse(s->output, 0, &u, why, sizeof(why)))
		return 0;
	ret = probe(&u);
	if (!ret)
		return 0;
	snprintf(msg, len, "trawl-relayd at %s:%u does not answer (%s): streaming has stopped",
		 u.host, u.ctrl_port, strerror(-ret));
	return 1;
}
