/* SPDX-License-Identifier: MIT */
/* url.c - net:// and tcp:// URLs, and connecting to a relay daemon (url.h). */
#include "common/common.h"
#include "relayd/url.h"
#include "relayd/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int port_parse(const char *s, size_t n, uint16_t *port, char *why, size_t why_len)
{
	char buf[16];
	char *end;
	long v;

	if (n == 0 || n >= sizeof(buf)) {
		trawl_msg_fmt(why, why_len, "bad port '%.*s'", (int)(n < 15 ? n : 15), s);
		return -EINVAL;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	v = strtol(buf, &end, 10);
	if (*end || buf[0] == '-' || buf[0] == '+' || v < 1 || v > 65535) {
		trawl_msg_fmt(why, why_len, "port '%s' is not 1-65535", buf);
		return -EINVAL;
	}
	*port = (uint16_t)v;
	return 0;
}

/* The URL's /PATH (@p at its first '/') into @u->path, normalized (url.h). */
static int path_parse(const char *p, struct trawl_relay_url *u, char *why, size_t why_len)
{
	size_t n = 0;

	for (; *p; p++) {
		if (*p == '/' && (n == 0 || u->path[n - 1] == '/'))
			continue;
		if (n + 1 >= sizeof(u->path)) {
			trawl_msg_fmt(why, why_len, "path too long (at most %zu bytes)",
				      sizeof(u->path) - 1);
			return -EINVAL;
		}
		u->path[n++] = *p;
	}
	while (n > 0 && u->path[n - 1] == '/')
		n--;
	u->path[n] = '\0';
	if (n && !trawl_relay_path_ok(u->path)) {
		trawl_msg_fmt(why, why_len, "path '%.200s': use letters, digits, '.', '_', '-', "
					    "'+' and '/', no '.' or '..' component", u->path);
		return -EINVAL;
	}
	return 0;
}

int trawl_relay_url_parse(const char *url, uint16_t default_port, struct trawl_relay_url *u,
			  char *why, size_t why_len)
{
	static const struct {
		const char *prefix;
		int ipv6, tcp;
	} schemes[] = {
		{"net://", 0, 0}, {"net6://", 1, 0}, {"tcp://", 0, 1}, {"tcp6://", 1, 1},
	};
	const char *p = NULL, *host, *ports;
	size_t i, hl;

	memset(u, 0, sizeof(*u));
	for (i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		if (!strncmp(url, schemes[i].prefix, strlen(schemes[i].prefix))) {
			p = url + strlen(schemes[i].prefix);
			u->ipv6 = schemes[i].ipv6;
			u->tcp = schemes[i].tcp;
			break;
		}
	}
	if (!p) {
		trawl_msg_fmt(why, why_len,
			      "unknown URL scheme (expected net://, net6://, tcp://, "
			      "tcp6:// or file://)");
		return -EINVAL;
	}
	if (*p == '[') { /* [v6 address] */
		const char *close = strchr(p, ']');

		if (!close) {
			trawl_msg_fmt(why, why_len, "missing ']' after the IPv6 address");
			return -EINVAL;
		}
		host = p + 1;
		hl = (size_t)(close - host);
		ports = close + 1;
		u->ipv6 = 1;
	} else {
		host = p;
		hl = strcspn(p, ":/");
		ports = p + hl;
	}
	if (hl == 0 || hl >= sizeof(u->host)) {
		trawl_msg_fmt(why, why_len, hl ? "host name too long" : "no host in the URL");
		return -EINVAL;
	}
	memcpy(u->host, host, hl);
	for (i = 0; i < hl; i++) {
		char c = u->host[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '-' || c == '_' || c == ':' || c == '%')) {
			trawl_msg_fmt(why, why_len, "bad character in host '%s'", u->host);
			return -EINVAL;
		}
	}
	if (u->tcp) {
		u->ctrl_port = u->data_port = default_port;
	} else {
		u->ctrl_port = TRAWL_RELAY_DEFAULT_CTRL_PORT;
		u->data_port = TRAWL_RELAY_DEFAULT_DATA_PORT;
	}
	if (*ports == ':') {
		const char *second = strchr(ports + 1, ':'), *slash = strchr(ports + 1, '/');
		size_t n;

		if (second && slash && slash < second)
			second = NULL; /* a ':' in the path */
		n = second ? (size_t)(second - ports - 1) : strcspn(ports + 1, "/");
		if (port_parse(ports + 1, n, &u->ctrl_port, why, why_len))
			return -EINVAL;
		u->data_port = u->tcp ? u->ctrl_port : u->data_port;
		ports += 1 + n;
		if (second) {
			if (u->tcp) {
				trawl_msg_fmt(why, why_len, "a tcp:// URL has one port");
				return -EINVAL;
			}
			n = strcspn(second + 1, "/");
			if (port_parse(second + 1, n, &u->data_port, why, why_len))
				return -EINVAL;
			ports = second + 1 + n;
		}
	}
	if (*ports == '/')
		return path_parse(ports, u, why, why_len);
	if (*ports) {
		trawl_msg_fmt(why, why_len, "unexpected '%s' after the host and ports", ports);
		return -EINVAL;
	}
	return 0;
}

int trawl_relay_url_format(const struct trawl_relay_url *u, char *buf, size_t len)
{
	int brackets = u->ipv6 && strchr(u->host, ':');
	const char *o = brackets ? "[" : "", *c = brackets ? "]" : "";

	const char *slash = u->path[0] ? "/" : "";

	if (u->tcp)
		return trawl_path_fmt(buf, len, "tcp%s://%s%s%s:%u%s%s", u->ipv6 ? "6" : "", o,
				      u->host, c, u->ctrl_port, slash, u->path);
	return trawl_path_fmt(buf, len, "net%s://%s%s%s:%u:%u%s%s", u->ipv6 ? "6" : "", o, u->host,
			      c, u->ctrl_port, u->data_port, slash, u->path);
}

/* connect() with a deadline: the socket is non-blocking until connected. */
static int connect_timeout(int fd, const struct sockaddr *sa, socklen_t len, int timeout_ms)
{
	struct pollfd pfd = {.fd = fd, .events = POLLOUT};
	int flags = fcntl(fd, F_GETFL), err = 0;
	socklen_t el = sizeof(err);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	if (connect(fd, sa, len) < 0) {
		if (errno != EINPROGRESS)
			return -errno;
		for (;;) {
			int n = poll(&pfd, 1, timeout_ms);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -errno;
			if (n == 0)
				return -ETIMEDOUT;
			break;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
			return -errno;
		if (err)
			return -err;
	}
	return fcntl(fd, F_SETFL, flags) < 0 ? -errno : 0;
}

int trawl_relay_connect(const char *host, uint16_t port, int ipv6, int timeout_ms)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_family = ipv6 ? AF_INET6 : AF_INET};
	struct addrinfo *res, *ai;
	char service[8];
	int ret = -ECONNREFUSED, fd;

	snprintf(service, sizeof(service), "%u", port);
	if (getaddrinfo(host, service, &hints, &res))
		return -ENOENT;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		ret = connect_timeout(fd, ai->ai_addr, ai->ai_addrlen, timeout_ms);
		if (!ret) {
			freeaddrinfo(res);
			return fd;
		}
		close(fd);
	}
	freeaddrinfo(res);
	return ret;
}
