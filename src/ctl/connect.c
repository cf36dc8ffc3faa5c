/* SPDX-License-Identifier: MIT */
/*
 * connect.c - libtrawl-ctl's connection to a session daemon: which daemon,
 * starting one, and one request/reply exchange of the ctl protocol (proto.h).
 *
 * A daemon that is not running is started here (connect_to()); the daemon
 * itself makes sure only one instance per runtime folder survives, so two
 * clients racing to start it are harmless. The daemon started is the one
 * installed with this library (found relative to the library's own file),
 * so that a program linking libtrawl-ctl from anywhere, a Python module
 * included, starts a daemon that speaks its protocol version.
 */
#include "common/io.h"
#include "common/common.h"
#include "ctl/ctl-int.h"

#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int sock_connect(const char *dir)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, n;

	n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sessiond.sock", dir);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/*
 * The daemon installed with this library: TRAWL_CTL_LIB_TO_BIN is the
 * relative path from the installed library's folder to the programs'; the
 * build tree keeps them in lib/ and bin/. 0 or -ENOENT.
 */
static int daemon_beside_library(char *buf, size_t len)
{
	static const char *const rel[] = {TRAWL_CTL_LIB_TO_BIN, "../bin"};
	const char *slash;
	Dl_info info;
	size_t i;
	int n;

	if (!dladdr((void *)trawl_ctl_connect, &info) || !info.dli_fname ||
	    !(slash = strrchr(info.dli_fname, '/')))
		return -ENOENT;
	for (i = 0; i < TRAWL_ARRAY_SIZE(rel); i++) {
		n = snprintf(buf, len, "%.*s/%s/trawl-sessiond", (int)(slash - info.dli_fname),
			     info.dli_fname, rel[i]);
		if (n > 0 && (size_t)n < len && access(buf, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* Starts trawl-sessiond --daemonize, which returns once its socket listens. */
static int spawn_daemon(void)
{
	char path[4096];
	pid_t pid;
	int status;

	/* $TRAWL_TRAWL_SESSIOND_PATH first, then beside the library, then the program. */
	if ((getenv("TRAWL_TRAWL_SESSIOND_PATH") || daemon_beside_library(path, sizeof(path))) &&
	    trawl_find_program("trawl-sessiond", path, sizeof(path)))
		return -ENOTCONN;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char *argv[] = {path, (char *)"--daemonize", NULL};

		execv(path, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -ENOTCONN;
	return 0;
}

static int in_tracing_group(void)
{
	struct group *gr = getgrnam("tracing");
	gid_t groups[256];
	int i, n;

	if (!gr)
		return 0;
	if (getegid() == gr->gr_gid)
		return 1;
	n = getgroups(TRAWL_ARRAY_SIZE(groups), groups);
	for (i = 0; i < n; i++)
		if (groups[i] == gr->gr_gid)
			return 1;
	return 0;
}

static int connect_to(int root, unsigned flags)
{
	char dir[4096];
	int fd, ret, i;

	ret = trawl_runtime_dir(dir, sizeof(dir), root);
	if (ret)
		return -ENOTCONN;
	fd = sock_connect(dir);
	if (fd >= 0 || (flags & TRAWL_CTL_CONNECT_NO_SPAWN))
		return fd >= 0 ? fd : (fd == -EACCES ? -EACCES : -ENOTCONN);
	if (fd == -EACCES)
		return fd;
	/*
	 * Our daemon listens when spawn_daemon() returns; but when several
	 * clients start daemons at once, ours may have lost the race for the
	 * lock and exited while the winner is still starting (a loaded machine
	 * can take seconds). So wait for a listener, and every second start a
	 * daemon again: it exits at once while the winner holds the lock, or
	 * takes over if the winner died. A daemon that fails to start ends the
	 * wait with its error; a winner that never listens ends it after 30 s.
	 */
	for (i = 0; i < 3000; i++) {
		struct timespec ms = {0, 10000000};

		if (i % 100 == 0) {
			ret = spawn_daemon();
			if (ret)
				return ret;
		}
		fd = sock_connect(dir);
		if (fd >= 0 || (fd != -ENOENT && fd != -ECONNREFUSED))
			break;
		nanosleep(&ms, NULL);
	}
	return fd >= 0 ? fd : -ENOTCONN;
}

/* A hung daemon must not hang the client forever; stop may take a while
 * (flushing the kernel's buffers), so the bound is generous. */
static void sock_timeouts(int fd)
{
	struct timeval tv = {.tv_sec = 120};

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/*
 * The root daemon closes a connection idle too long (ctl-idle-ms, for users
 * other than root): a daemon never writes unasked, so a connection that is
 * readable between requests was closed, and the request goes on a new one
 * to the same daemon (never a daemon started here). 0 or -ENOTCONN.
 */
static int ctl_reconnect_if_closed(struct trawl_ctl *ctl)
{
	struct pollfd pfd = {.fd = ctl->fd, .events = POLLIN};
	int fd;

	if (poll(&pfd, 1, 0) <= 0)
		return 0;
	fd = connect_to(ctl->root_daemon, TRAWL_CTL_CONNECT_NO_SPAWN);
	if (fd < 0)
		return -ENOTCONN;
	sock_timeouts(fd);
	close(ctl->fd);
	ctl->fd = fd;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_connect(struct trawl_ctl **out, unsigned flags)
{
	struct trawl_ctl_wire_req r;
	struct trawl_ctl *ctl;
	int fd = -ENOTCONN, root = 0, ret;

	if (geteuid() == 0) {
		root = 1;
		fd = connect_to(1, flags);
	} else {
		if (!(flags & TRAWL_CTL_CONNECT_USER) && in_tracing_group()) {
			fd = connect_to(1, flags | TRAWL_CTL_CONNECT_NO_SPAWN);
			root = fd >= 0;
		}
		if (fd < 0)
			fd = connect_to(0, flags);
	}
	if (fd < 0)
		return fd;
	ctl = calloc(1, sizeof(*ctl));
	if (!ctl) {
		close(fd);
		return -ENOMEM;
	}
	ctl->fd = fd;
	ctl->root_daemon = root;
	sock_timeouts(fd);
	/* One round trip now, so a refused client learns it here, with the reason. */
	ctl_req_init(&r);
	ret = ctl_transact(ctl, TRAWL_CTL_CMD_PING, &r, NULL);
	if (ret) {
		trawl_ctl_disconnect(ctl);
		return ret == -EACCES || ret == -EPROTONOSUPPORT ? ret : -ENOTCONN;
	}
	*out = ctl;
	return 0;
}

TRAWL_EXPORT void trawl_ctl_disconnect(struct trawl_ctl *ctl)
{
	if (!ctl)
		return;
	close(ctl->fd);
	free(ctl);
}

TRAWL_EXPORT int trawl_ctl_is_root_daemon(const struct trawl_ctl *ctl)
{
	return ctl->root_daemon;
}

TRAWL_EXPORT const char *trawl_ctl_last_error(const struct trawl_ctl *ctl)
{
	return ctl->err;
}

TRAWL_EXPORT int trawl_ctl_daemon_quit(struct trawl_ctl *ctl)
{
	return ctl_session_cmd(ctl, TRAWL_CTL_CMD_QUIT, NULL, 0);
}

/* ---- one request, one reply ---- */

int ctl_copy_str(char *dst, size_t len, const char *src)
{
	size_t n;

	if (!src) {
		dst[0] = '\0';
		return 0;
	}
	n = strlen(src);
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(dst, src, n + 1);
	return 0;
}

void ctl_req_init(struct trawl_ctl_wire_req *r)
{
	memset(r, 0, sizeof(*r));
	r->struct_size = sizeof(*r);
	r->max_size = TRAWL_CTL_SIZE_UNSET;
}

/* Reads and checks a reply's header; @cmd is the request's. */
static int reply_hdr_read(struct trawl_ctl *ctl, uint16_t cmd, struct trawl_ctl_wire_hdr *hdr)
{
	int ret = trawl_io_recv_all(ctl->fd, hdr, sizeof(*hdr), -1);

	if (ret)
		return -ENOTCONN;
	ret = trawl_ctl_hdr_check(hdr, 1);
	if (ret == -EPROTONOSUPPORT) {
		trawl_msg_fmt(ctl->err, sizeof(ctl->err),
			      "the session daemon is from another version of trawl (ctl protocol "
			      "%u, this library's is %u): stop it, and the next command starts a "
			      "matching one",
			      (unsigned)hdr->version, TRAWL_CTL_VERSION);
		return ret;
	}
	return ret || hdr->cmd != cmd ? -EPROTO : 0;
}

int ctl_send_req(struct trawl_ctl *ctl, uint16_t cmd, const struct trawl_ctl_wire_req *req)
{
	struct trawl_ctl_wire_hdr hdr = {
		.magic = TRAWL_CTL_MAGIC,
		.version = TRAWL_CTL_VERSION,
		.cmd = cmd,
		.size = sizeof(*req),
	};
	int ret;

	ctl->err[0] = '\0';
	if (ctl_reconnect_if_closed(ctl))
		return -ENOTCONN;
	ret = trawl_io_send_all(ctl->fd, &hdr, sizeof(hdr));
	if (!ret)
		ret = trawl_io_send_all(ctl->fd, req, sizeof(*req));
	return ret ? -ENOTCONN : 0;
}

int ctl_recv_reply(struct trawl_ctl *ctl, uint16_t cmd, struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_reply head;
	struct trawl_ctl_wire_hdr hdr;
	unsigned char *payload;
	int ret;

	ret = reply_hdr_read(ctl, cmd, &hdr);
	if (ret)
		return ret;
	payload = malloc(hdr.size);
	if (!payload)
		return -ENOMEM;
	ret = trawl_io_recv_all(ctl->fd, payload, hdr.size, -1);
	if (ret) {
		free(payload);
		return -ENOTCONN;
	}
	if (trawl_ctl_reply_check(payload, hdr.size)) {
		free(payload);
		return -EPROTO;
	}
	memcpy(&head, payload, sizeof(head));
	memcpy(ctl->err, head.err, sizeof(ctl->err)); /* NUL-terminated: checked */
	if (hdr.status == 0 && out) {
		*out = ctl_list_from_reply(payload, hdr.size);
		return *out ? 0 : -ENOMEM;
	}
	free(payload);
	return hdr.status;
}

int ctl_transact(struct trawl_ctl *ctl, uint16_t cmd, const struct trawl_ctl_wire_req *req,
		 struct trawl_ctl_list **out)
{
	int ret = ctl_send_req(ctl, cmd, req);

	return ret ? ret : ctl_recv_reply(ctl, cmd, out);
}

int ctl_session_cmd(struct trawl_ctl *ctl, uint16_t cmd, const char *session, uint32_t flags)
{
	struct trawl_ctl_wire_req r;

	ctl_req_init(&r);
	r.flags = flags;
	if (ctl_copy_str(r.session, sizeof(r.session), session))
		return -ENAMETOOLONG;
	return ctl_transact(ctl, cmd, &r, NULL);
}
