/* SPDX-License-Identifier: MIT */
/*
 * client.c - the daemon's side of the ctl socket.
 *
 * Who may talk: the user daemon serves its own uid (and root); the root
 * daemon serves uid 0 and members of group `tracing`. Both decide from
 * SO_PEERCRED, read by the kernel at connect time, never from anything the
 * client sends.
 *
 * Requests are read without blocking into a per-client buffer, so a client
 * that sends half a message (slow or hostile) never stalls the others. A
 * malformed message is logged and answered with -EPROTO, then the
 * connection is closed; the daemon goes on serving everyone else.
 */
#include "common/common.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

struct sd_client {
	int fd;
	struct sd_peer peer;
	int refused; /* not allowed: every request is answered -EACCES */
	size_t got; /* bytes of buf filled */
	union {
		struct {
			struct trawl_ctl_wire_hdr hdr;
			struct trawl_ctl_wire_req req;
		} __attribute__((packed)) msg;
		unsigned char buf[sizeof(struct trawl_ctl_wire_hdr) +
				  sizeof(struct trawl_ctl_wire_req)];
	} u;
};

static int listen_fd = -1;

const char *sd_domain_name(uint32_t domain)
{
	switch (domain) {
	case TRAWL_CTL_DOMAIN_KERNEL:
		return "kernel";
	case TRAWL_CTL_DOMAIN_UST:
		return "user space";
	default:
		return "no";
	}
}

int sd_fail(struct sd_reply *r, int status, const char *fmt, ...)
{
	va_list ap;

	r->status = status;
	va_start(ap, fmt);
	vsnprintf(r->head.err, sizeof(r->head.err), fmt, ap);
	va_end(ap);
	return status;
}

static int peer_in_tracing_group(uid_t uid, gid_t gid)
{
	struct group *gr = getgrnam("tracing");
	struct passwd *pw;
	gid_t groups[256];
	int i, n = TRAWL_ARRAY_SIZE(groups);

	if (!gr)
		return 0;
	if (gid == gr->gr_gid)
		return 1;
	pw = getpwuid(uid);
	if (!pw)
		return 0;
	if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0)
		return 0;
	for (i = 0; i < n; i++)
		if (groups[i] == gr->gr_gid)
			return 1;
	return 0;
}

static int peer_allowed(const struct sd_peer *p)
{
	if (p->uid == 0 || p->uid == geteuid())
		return 1;
	return sd.root_daemon && peer_in_tracing_group(p->uid, p->gid);
}

static void client_close(struct sd_client *c)
{
	sd_watch_del(c->fd);
	close(c->fd);
	free(c);
}

static int send_reply(struct sd_client *c, uint16_t cmd, struct sd_reply *r)
{
	struct trawl_ctl_wire_hdr hdr = {
		.magic = TRAWL_CTL_MAGIC,
		.version = TRAWL_CTL_VERSION,
		.cmd = cmd,
		.status = r->status,
	};
	int ret;

	/* A failed command's records (a list cut short) are not sent. */
	if (r->status) {
		r->len = 0;
		r->head.nr_records = 0;
	}
	r->head.struct_size = sizeof(r->head);
	hdr.size = (uint32_t)(sizeof(r->head) + r->len);
	ret = trawl_ctl_write_all(c->fd, &hdr, sizeof(hdr));
	if (!ret)
		ret = trawl_ctl_write_all(c->fd, &r->head, sizeof(r->head));
	if (!ret && r->len)
		ret = trawl_ctl_write_all(c->fd, r->recs, r->len);
	return ret;
}

/* Answers a message we could not parse; the connection is closed after. */
static void reject(struct sd_client *c, uint16_t cmd, int status, const char *why)
{
	struct sd_reply r = {0};

	sd_log("rejected a message from pid %d uid %d: %s", (int)c->peer.pid, (int)c->peer.uid,
	       why);
	if (cmd == 0 || cmd >= TRAWL_CTL_CMD_MAX_)
		cmd = TRAWL_CTL_CMD_PING;
	sd_fail(&r, status, "the session daemon rejected a malformed request: %s", why);
	send_reply(c, cmd, &r);
}

static void handle_message(struct sd_client *c)
{
	struct sd_reply r = {0};
	uint16_t cmd = c->u.msg.hdr.cmd;
	int ret;

	if (c->refused) {
		sd_fail(&r, -EACCES, "permission denied: the root session daemon serves root "
				     "and members of group 'tracing' only");
		send_reply(c, cmd, &r);
		client_close(c);
		return;
	}
	ret = trawl_ctl_req_check(cmd, &c->u.msg.req, sizeof(c->u.msg.req));
	if (ret) {
		reject(c, cmd, ret, ret == -EPROTO ? "bad structure" : "bad field value");
		if (ret == -EPROTO) {
			client_close(c);
			return;
		}
		c->got = 0;
		return;
	}
	sd_cmd_dispatch(cmd, &c->u.msg.req, &c->peer, &r);
	if (send_reply(c, cmd, &r))
		client_close(c);
	else
		c->got = 0;
	free(r.recs);
}

static void client_readable(int fd, short revents, void *arg)
{
	struct sd_client *c = arg;
	size_t want = sizeof(c->u.msg.hdr);
	ssize_t n;

	if (c->got >= sizeof(c->u.msg.hdr))
		want = sizeof(c->u.buf);
	n = recv(fd, c->u.buf + c->got, want - c->got, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		if (c->got)
			sd_log("client pid %d left mid-message", (int)c->peer.pid);
		client_close(c);
		return;
	}
	if (n < 0)
		return;
	c->got += (size_t)n;
	if (c->got == sizeof(c->u.msg.hdr)) {
		if (trawl_ctl_hdr_check(&c->u.msg.hdr, 0)) {
			reject(c, c->u.msg.hdr.cmd, -EPROTO, "bad header");
			client_close(c);
		}
		return;
	}
	if (c->got == sizeof(c->u.buf))
		handle_message(c);
}

static void accept_ready(int fd, short revents, void *arg)
{
	struct sd_client *c;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct timeval tv = {.tv_sec = 5};
	int cfd;

	cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (cfd < 0)
		return;
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		close(cfd);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(cfd);
		return;
	}
	c->fd = cfd;
	c->peer.pid = cred.pid;
	c->peer.uid = cred.uid;
	c->peer.gid = cred.gid;
	/* Replies are written blocking, but never wait forever on a stuck reader. */
	setsockopt(cfd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (!peer_allowed(&c->peer)) {
		/* Answered at its first request, so the client learns why. */
		sd_log("refusing uid %d (pid %d): not root nor in group 'tracing'", (int)cred.uid,
		       (int)cred.pid);
		c->refused = 1;
	}
	if (sd_watch_add(cfd, client_readable, c)) {
		close(cfd);
		free(c);
	}
}

int sd_client_listen(const char *path, int root_daemon)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(path); /* stale, from a dead daemon: we hold the lock */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    /* Root's socket is connectable by all; SO_PEERCRED decides who is served. */
	    chmod(path, root_daemon ? 0666 : 0600) || listen(fd, 64)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	if (sd_watch_add(fd, accept_ready, NULL)) {
		close(fd);
		return -EMFILE;
	}
	listen_fd = fd;
	return fd;
}

void sd_cmd_dispatch(uint16_t cmd, const struct trawl_ctl_wire_req *req,
		     const struct sd_peer *peer, struct sd_reply *r)
{
	switch (cmd) {
	case TRAWL_CTL_CMD_PING:
		break;
	case TRAWL_CTL_CMD_CREATE:
		sd_cmd_create(req, peer, r);
		break;
	case TRAWL_CTL_CMD_DESTROY:
		sd_cmd_destroy(req, peer, r);
		break;
	case TRAWL_CTL_CMD_ENABLE_CHANNEL:
		sd_cmd_enable_channel(req, peer, r);
		break;
	case TRAWL_CTL_CMD_DISABLE_CHANNEL:
		sd_cmd_disable_channel(req, peer, r);
		break;
	case TRAWL_CTL_CMD_ENABLE_EVENT:
		sd_cmd_enable_event(req, peer, r);
		break;
	case TRAWL_CTL_CMD_DISABLE_EVENT:
		sd_cmd_disable_event(req, peer, r);
		break;
	case TRAWL_CTL_CMD_ADD_CONTEXT:
		sd_cmd_add_context(req, peer, r);
		break;
	case TRAWL_CTL_CMD_START:
		sd_cmd_start(req, peer, r);
		break;
	case TRAWL_CTL_CMD_STOP:
		sd_cmd_stop(req, peer, r);
		break;
	case TRAWL_CTL_CMD_LIST_SESSIONS:
		sd_cmd_list_sessions(req, peer, r);
		break;
	case TRAWL_CTL_CMD_LIST_SESSION:
		sd_cmd_list_session(req, peer, r);
		break;
	case TRAWL_CTL_CMD_LIST_AVAILABLE:
		sd_cmd_list_available(req, peer, r);
		break;
	case TRAWL_CTL_CMD_SNAPSHOT_RECORD:
		sd_cmd_snapshot(req, peer, r);
		break;
	case TRAWL_CTL_CMD_QUIT:
		if (peer->uid != 0 && peer->uid != geteuid()) {
			sd_fail(r, -EACCES, "permission denied: only the daemon's owner may stop it");
			break;
		}
		sd.quit = 1;
		break;
	default:
		sd_fail(r, -EPROTO, "unknown command %u", cmd);
		break;
	}
}
