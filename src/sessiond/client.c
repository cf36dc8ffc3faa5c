/* SPDX-License-Identifier: MIT */
/*
 * client.c - the daemon's side of the ctl socket.
 *
 * Who may talk: the user daemon serves its own uid (and root); the root
 * daemon serves uid 0 and members of group `tracing`. Both decide from
 * SO_PEERCRED (and SO_PEERGROUPS, peers.c), read by the kernel at connect
 * time, never from anything the client sends. The root daemon's socket is
 * root:tracing 0660 besides (LTTng's rule), so others cannot even connect;
 * one that does anyway (no group 'tracing': the socket is 0600) is told
 * why at its first request and closed.
 *
 * No client can hold the loop: requests are read without blocking into a
 * per-client buffer, and must arrive whole within sd_limits.msg_ms of
 * their first byte; replies are written without blocking, the rest sent
 * when the socket takes it, within the same time; a client sends its next
 * request once it has read the last reply. A uid other than root and the
 * daemon's own (in root's daemon: a member of 'tracing') may hold
 * sd_limits.ctl_conns_per_uid connections, each closed after
 * sd_limits.ctl_idle_ms without a request (libtrawl-ctl then reconnects).
 * A malformed message is logged and answered with -EPROTO, then the
 * connection is closed; the daemon goes on serving everyone else.
 *
 * While a command waits for apps (loop.c's nested rounds), clients are
 * still read, and requests that only read the daemon's state (list, ping)
 * are answered; others are parked, served in order at the top level. A
 * command that waits for a consumer (stop, destroy) answers later
 * (sd_reply.later): its client is only watched for a hang-up meanwhile.
 */
#include "common/common.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <poll.h>
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
	struct sd_uid *owner; /* counts this connection */
	int refused;          /* not allowed: answered -EACCES, then closed */
	int close_after;      /* closed once its reply is out */
	int parked;           /* a whole request waits for the top level */
	int retry;            /* ... and for an op to end (sd_reply.retry) */
	struct sd_later *later; /* its command answers later (sd_reply.later) */
	struct sd_client *next_parked;
	size_t got;           /* bytes of buf filled */
	uint64_t begun_ms;    /* the first byte of the request in progress */
	uint64_t idle_ms;     /* since when nothing is in progress */
	char *out;            /* owned: the reply not yet sent */
	size_t out_len, out_off;
	uint64_t out_ms;      /* when it was queued */
	union {
		struct {
			struct trawl_ctl_wire_hdr hdr;
			struct trawl_ctl_wire_req req;
		} __attribute__((packed)) msg;
		unsigned char buf[sizeof(struct trawl_ctl_wire_hdr) +
				  sizeof(struct trawl_ctl_wire_req)];
	} u;
};

static struct sd_client *parked_head, **parked_tail = &parked_head;

const char *sd_domain_name(uint32_t domain)
{
	switch (domain) {
	case TRAWL_CTL_DOMAIN_KERNEL:
		return "kernel";
	case TRAWL_CTL_DOMAIN_UST:
		return "user space";
	case TRAWL_CTL_DOMAIN_JUL:
		return "jul";
	case TRAWL_CTL_DOMAIN_LOG4J:
		return "log4j";
	case TRAWL_CTL_DOMAIN_PYTHON:
		return "python";
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

int sd_text_refused(struct sd_reply *r, const char *what, const char *field, const char *text)
{
	const char *bad = trawl_str_unprintable(text);

	if (!bad)
		return 0;
	/* (the text itself is not repeated: its bytes are the problem) */
	sd_fail(r, -EINVAL, "%s: the %s holds a control character or a byte that is not UTF-8 "
		"(0x%02x at byte %zu): root and the other users are shown it",
		what, field, (unsigned)(unsigned char)*bad, (size_t)(bad - text) + 1);
	return -1;
}

/* Root and the daemon's own user: never capped (they can only stall
 * themselves: the user daemon's socket is theirs alone). */
static int client_capped(const struct sd_peer *p)
{
	return p->uid != 0 && p->uid != geteuid();
}

/* Parks @c (a whole request) until the top level serves it; @retry:
 * not before an op has ended. */
static void park(struct sd_client *c, int retry)
{
	c->parked = 1;
	c->retry = retry;
	c->next_parked = NULL;
	*parked_tail = c;
	parked_tail = &c->next_parked;
}

static void unpark(struct sd_client *c)
{
	struct sd_client **pp;

	for (pp = &parked_head; *pp; pp = &(*pp)->next_parked) {
		if (*pp == c) {
			*pp = c->next_parked;
			break;
		}
	}
	for (parked_tail = &parked_head; *parked_tail; parked_tail = &(*parked_tail)->next_parked)
		;
	c->next_parked = NULL;
	c->parked = 0;
	c->retry = 0;
}

static void client_close(struct sd_client *c)
{
	if (c->parked)
		unpark(c);
	if (c->later)
		c->later->client = NULL; /* the command goes on; nobody to answer */
	sd_watch_del(c->fd);
	close(c->fd);
	c->owner->ctl_conns--;
	sd_uid_put(c->owner);
	free(c->out);
	free(c);
}

static void client_expired(int fd, void *arg);

/* What the client is polled for, and by when it must be done with it. */
static void client_arm(struct sd_client *c)
{
	uint64_t deadline = 0;
	short events = POLLIN;

	if (c->parked || c->later) {
		events = 0; /* (no deadline: the command's own bounds it) */
	} else if (c->out) {
		events = POLLOUT;
		deadline = c->out_ms + sd_limits.msg_ms;
	} else if (c->got) {
		deadline = c->begun_ms + sd_limits.msg_ms;
	} else if (client_capped(&c->peer) && sd_limits.ctl_idle_ms) {
		deadline = c->idle_ms + sd_limits.ctl_idle_ms;
	}
	sd_watch_events(c->fd, events);
	sd_watch_deadline(c->fd, deadline, client_expired);
}

static void client_expired(int fd, void *arg)
{
	struct sd_client *c = arg;

	if (c->out || c->got)
		sd_log_peer(c->peer.uid, TRAWL_LOG_WARN,
			    "client pid %d uid %d: %s not done within %u ms: closed",
			    (int)c->peer.pid, (int)c->peer.uid, c->out ? "reply" : "request",
			    sd_limits.msg_ms);
	else
		sd_debug("client pid %d uid %d idle for %u ms: closed", (int)c->peer.pid,
			 (int)c->peer.uid, sd_limits.ctl_idle_ms);
	client_close(c);
}

/* Sends what the socket takes of the pending reply. 0, or -errno (close it). */
static int client_flush(struct sd_client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		}
		c->out_off += (size_t)n;
	}
	free(c->out);
	c->out = NULL;
	c->idle_ms = sd_now_ms();
	return 0;
}

/* Queues @r as the reply to @cmd and sends what it can now. 0 or -errno. */
static int send_reply(struct sd_client *c, uint16_t cmd, struct sd_reply *r)
{
	struct trawl_ctl_wire_hdr hdr = {
		.magic = TRAWL_CTL_MAGIC,
		.version = TRAWL_CTL_VERSION,
		.cmd = cmd,
		.status = r->status,
	};

	/* A failed command's records (a list cut short) are not sent. */
	if (r->status) {
		r->len = 0;
		r->head.nr_records = 0;
	}
	r->head.struct_size = sizeof(r->head);
	hdr.size = (uint32_t)(sizeof(r->head) + r->len);
	c->out_len = sizeof(hdr) + sizeof(r->head) + r->len;
	c->out = malloc(c->out_len);
	if (!c->out)
		return -ENOMEM;
	memcpy(c->out, &hdr, sizeof(hdr));
	memcpy(c->out + sizeof(hdr), &r->head, sizeof(r->head));
	if (r->len)
		memcpy(c->out + sizeof(hdr) + sizeof(r->head), r->recs, r->len);
	c->out_off = 0;
	c->out_ms = sd_now_ms();
	return client_flush(c);
}

/* Answers a message we could not parse; the connection is closed after. */
static void reject(struct sd_client *c, uint16_t cmd, int status, const char *why)
{
	struct sd_reply r = {0};

	sd_log_peer(c->peer.uid, TRAWL_LOG_WARN, "rejected a message from pid %d uid %d: %s",
		    (int)c->peer.pid, (int)c->peer.uid, why);
	if (cmd == 0 || cmd >= TRAWL_CTL_CMD_MAX_)
		cmd = TRAWL_CTL_CMD_PING;
	sd_fail(&r, status, "the session daemon rejected a malformed request: %s", why);
	send_reply(c, cmd, &r);
}

/* Ends a request: the reply is out (or on its way); the next may come. */
static void request_done(struct sd_client *c, int ret)
{
	c->got = 0;
	c->idle_ms = sd_now_ms();
	if (ret || (c->close_after && !c->out)) {
		client_close(c);
		return;
	}
	client_arm(c);
}

/* Requests that only read the daemon's state: answered in nested rounds too. */
static int read_only(uint16_t cmd)
{
	return cmd == TRAWL_CTL_CMD_PING || cmd == TRAWL_CTL_CMD_LIST_SESSIONS ||
	       cmd == TRAWL_CTL_CMD_LIST_TRIGGERS ||
	       cmd == TRAWL_CTL_CMD_LIST_SESSION || cmd == TRAWL_CTL_CMD_LIST_AVAILABLE;
}

/* Runs the checked request and queues its reply. */
static void serve(struct sd_client *c)
{
	struct sd_reply r = {0};
	uint16_t cmd = c->u.msg.hdr.cmd;
	int ret;

	/* A command may wait for apps in nested rounds: this client is not
	 * read meanwhile (its request is the one being served). */
	sd_watch_nested(c->fd, 0);
	sd_cmd_dispatch(cmd, &c->u.msg.req, &c->peer, &r);
	if (r.retry && r.status && !r.later) {
		/* its session is busy with a scheduled rotation: served after it */
		free(r.recs);
		park(c, 1);
		client_arm(c);
		return;
	}
	if (r.later) {
		/* answered by sd_later_answer(); only a hang-up is seen meanwhile */
		r.later->client = c;
		r.later->cmd = cmd;
		c->later = r.later;
		free(r.recs);
		client_arm(c);
		return;
	}
	sd_watch_nested(c->fd, 1);
	ret = send_reply(c, cmd, &r);
	free(r.recs);
	request_done(c, ret);
}

void sd_later_answer(struct sd_later *l, struct sd_reply *r)
{
	struct sd_client *c = l->client;

	if (!c)
		return;
	l->client = NULL;
	c->later = NULL;
	sd_watch_nested(c->fd, 1);
	request_done(c, send_reply(c, l->cmd, r));
}

static void handle_message(struct sd_client *c)
{
	struct sd_reply r = {0};
	uint16_t cmd = c->u.msg.hdr.cmd;
	int ret;

	if (c->refused) {
		sd_fail(&r, -EACCES, "permission denied: the root session daemon serves root "
				     "and members of group 'tracing' only");
		c->close_after = 1;
		request_done(c, send_reply(c, cmd, &r));
		return;
	}
	ret = trawl_ctl_req_check(cmd, &c->u.msg.req, sizeof(c->u.msg.req));
	if (ret) {
		reject(c, cmd, ret, ret == -EPROTO ? "bad structure" : "bad field value");
		c->close_after = ret == -EPROTO;
		request_done(c, 0);
		return;
	}
	if (sd_loop_nested() && !read_only(cmd)) {
		/* Served at the top level, in the order they came; not polled
		 * meanwhile (a hang-up would be seen at every nested round). */
		park(c, 0);
		client_arm(c);
		sd_watch_nested(c->fd, 0);
		return;
	}
	serve(c);
}

/* Serves the parked requests (@all: those waiting for an op to end too). */
static void serve_parked(int all)
{
	struct sd_client *c, *next, *last = NULL;

	/* (one pass over those parked now: serving one may park it again, at the end) */
	for (c = parked_head; c; c = c->next_parked)
		last = c;
	for (c = parked_head; c; c = next) {
		int was_last = c == last;

		next = c->next_parked;
		if (all || !c->retry) {
			unpark(c);
			serve(c);
		}
		if (was_last)
			break;
	}
}

static void clients_on_top(void)
{
	serve_parked(0);
}

void sd_clients_retry(void)
{
	serve_parked(1);
}

static void client_read(struct sd_client *c)
{
	size_t want = sizeof(c->u.msg.hdr);
	ssize_t n;

	if (c->got >= sizeof(c->u.msg.hdr))
		want = sizeof(c->u.buf);
	n = recv(c->fd, c->u.buf + c->got, want - c->got, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		if (c->got)
			sd_log_peer(c->peer.uid, TRAWL_LOG_INFO, "client pid %d left mid-message",
				    (int)c->peer.pid);
		client_close(c);
		return;
	}
	if (n < 0)
		return;
	if (!c->got)
		c->begun_ms = sd_now_ms();
	c->got += (size_t)n;
	if (c->got == sizeof(c->u.msg.hdr) && c->refused) {
		/* Nothing it sends is read: it learns why at once. */
		handle_message(c);
		return;
	}
	if (c->got == sizeof(c->u.msg.hdr) && trawl_ctl_hdr_check(&c->u.msg.hdr, 0)) {
		reject(c, c->u.msg.hdr.cmd, -EPROTO, "bad header");
		c->close_after = 1;
		request_done(c, 0);
		return;
	}
	if (c->got == sizeof(c->u.buf)) {
		handle_message(c);
		return;
	}
	client_arm(c);
}

static void client_io(int fd, short revents, void *arg)
{
	struct sd_client *c = arg;

	if (c->parked)
		return; /* waits for the top level (clients_on_top()) */
	if (c->later) {
		/* its answer is not out yet: only a hang-up (or an error) wakes us */
		if (revents & (POLLERR | POLLHUP | POLLNVAL))
			client_close(c);
		return;
	}
	if (c->out) {
		if (client_flush(c) || (revents & (POLLERR | POLLHUP)))
			client_close(c);
		else if (!c->out && c->close_after)
			client_close(c);
		else
			client_arm(c);
		return;
	}
	client_read(c);
}

/* One connection: its peer, its uid's cap, then it is watched. */
static void client_accept(int cfd)
{
	struct sd_client *c;
	struct sd_uid *owner;
	struct sd_peer peer;

	if (sd_peer_get(cfd, &peer) || !(owner = sd_uid_get(peer.uid))) {
		close(cfd);
		return;
	}
	if (client_capped(&peer) && owner->ctl_conns >= sd_limits.ctl_conns_per_uid) {
		owner->refused++;
		sd_log_peer(peer.uid, TRAWL_LOG_WARN,
			    "uid %d holds %u connections to the client socket (the cap): "
			    "refusing pid %d's", (int)peer.uid, owner->ctl_conns, (int)peer.pid);
		close(cfd);
		sd_uid_put(owner);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c || sd_watch_add(cfd, client_io, c)) {
		free(c);
		close(cfd);
		sd_uid_put(owner);
		return;
	}
	c->fd = cfd;
	c->peer = peer;
	c->owner = owner;
	c->idle_ms = sd_now_ms();
	owner->ctl_conns++;
	sd_watch_nested(cfd, 1);
	if (!peer.trusted) {
		/* Answered at its first request, so the client learns why. */
		sd_log_peer(peer.uid, TRAWL_LOG_WARN,
			    "refusing uid %d (pid %d): not root nor in group 'tracing'",
			    (int)peer.uid, (int)peer.pid);
		c->refused = 1;
	}
	client_arm(c);
}

static void accept_ready(int fd, short revents, void *arg)
{
	int i;

	/* A few per round: a flood of connections does not starve the rest. */
	for (i = 0; i < 16; i++) {
		int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (cfd < 0) {
			if (errno == EMFILE || errno == ENFILE)
				sd_log_peer(UINT32_MAX, TRAWL_LOG_ERROR,
					    "cannot accept a client: %s", strerror(errno));
			return;
		}
		client_accept(cfd);
	}
}

/*
 * Who may open the socket: the root daemon's is root:tracing 0660 (0600
 * when there is no group 'tracing'), a user daemon's 0600 (in a 0700
 * folder besides). SO_PEERCRED still decides who is served.
 */
static int socket_mode(const char *path, int root_daemon)
{
	gid_t g;

	if (root_daemon && sd_tracing_gid(&g)) {
		if (chown(path, 0, g))
			return -errno;
		return chmod(path, 0660) ? -errno : 0;
	}
	return chmod(path, 0600) ? -errno : 0;
}

int sd_client_listen(const char *path, int root_daemon)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	/* Non-blocking: accept_ready() takes connections until there are none. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	unlink(path); /* stale, from a dead daemon: we hold the lock */
	/* Until socket_mode(), 0755 from the umask: no one else can connect. */
	ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : socket_mode(path, root_daemon);
	if (!ret && listen(fd, 128))
		ret = -errno;
	if (ret) {
		close(fd);
		return ret;
	}
	if (sd_watch_add(fd, accept_ready, NULL)) {
		close(fd);
		return -ENOMEM;
	}
	sd_watch_nested(fd, 1);
	sd_loop_on_top(clients_on_top);
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
	case TRAWL_CTL_CMD_SNAPSHOT_ADD_OUTPUT:
	case TRAWL_CTL_CMD_SNAPSHOT_DEL_OUTPUT:
	case TRAWL_CTL_CMD_SNAPSHOT_LIST_OUTPUT:
		sd_cmd_snapshot_output(cmd, req, peer, r);
		break;
	case TRAWL_CTL_CMD_TRACK:
		sd_cmd_track(req, peer, r);
		break;
	case TRAWL_CTL_CMD_UNTRACK:
		sd_cmd_untrack(req, peer, r);
		break;
	case TRAWL_CTL_CMD_REGENERATE_METADATA:
	case TRAWL_CTL_CMD_REGENERATE_STATEDUMP:
		sd_cmd_regenerate(cmd, req, peer, r);
		break;
	case TRAWL_CTL_CMD_SET_SHM_PATH:
		sd_cmd_set_shm_path(req, peer, r);
		break;
	case TRAWL_CTL_CMD_CLEAR:
		sd_cmd_clear(req, peer, r);
		break;
	case TRAWL_CTL_CMD_ROTATE:
		sd_cmd_rotate(req, peer, r);
		break;
	case TRAWL_CTL_CMD_ROTATION_SET:
	case TRAWL_CTL_CMD_ROTATION_UNSET:
		sd_cmd_rotation(cmd, req, peer, r);
		break;
	case TRAWL_CTL_CMD_ADD_TRIGGER:
		sd_cmd_add_trigger(req, peer, r);
		break;
	case TRAWL_CTL_CMD_LIST_TRIGGERS:
		sd_cmd_list_triggers(req, peer, r);
		break;
	case TRAWL_CTL_CMD_REMOVE_TRIGGER:
		sd_cmd_remove_trigger(req, peer, r);
		break;
	case TRAWL_CTL_CMD_NOTIFY_WAIT:
		sd_cmd_notify_wait(req, peer, r);
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
