/* SPDX-License-Identifier: MIT */
/*
 * ctl.c - libtrawl-ctl: the client side of the ctl protocol (proto.h).
 *
 * Each call builds one wire request, sends it, and reads one reply whose
 * payload is checked with trawl_ctl_reply_check() before anything in it is
 * used. A daemon that is not running is started here (connect_spawn()); the
 * daemon itself makes sure only one instance per runtime folder survives, so
 * two clients racing to start it are harmless.
 */
#include "common/common.h"
#include "ctl/proto.h"
#include "trawl/ctl.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct trawl_ctl {
	int fd;
	int root_daemon;
	char err[TRAWL_CTL_ERR_LEN];
};

struct trawl_ctl_channel_attr {
	char name[TRAWL_CTL_NAME_LEN];
	uint64_t subbuf_size;
	uint32_t num_subbuf;
	uint32_t overwrite; /* TRAWL_CTL_MODE_* */
	uint32_t switch_timer_us;
	uint32_t read_timer_us;
	uint32_t buffers; /* TRAWL_CTL_BUFFERS_* */
};

struct trawl_ctl_event {
	enum trawl_ctl_event_kind kind;
	char name[TRAWL_CTL_NAME_LEN];
	char target[TRAWL_CTL_TEXT_LEN];
	char filter[TRAWL_CTL_TEXT_LEN];
	enum trawl_ctl_loglevel_type loglevel_type;
	int loglevel;
};

struct trawl_ctl_list {
	size_t nr;
	struct trawl_ctl_wire_item *items; /* owned */
};

static int copy_str(char *dst, size_t len, const char *src)
{
	size_t n;

	if (!src) {
		dst[0] = '\0';
		return 0;
	}
	n = strlen(src);
	if (n >= len)
		return -EINVAL;
	memcpy(dst, src, n + 1);
	return 0;
}

static void req_init(struct trawl_ctl_wire_req *r);
static int transact(struct trawl_ctl *ctl, uint16_t cmd, const struct trawl_ctl_wire_req *req,
		    struct trawl_ctl_wire_reply *head, struct trawl_ctl_list **items_out);

/* ---- connecting ---- */

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

/* Starts trawl-sessiond --daemonize, which returns once its socket listens. */
static int spawn_daemon(void)
{
	char path[4096];
	pid_t pid;
	int status;

	if (trawl_find_program("trawl-sessiond", path, sizeof(path)))
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
	ret = spawn_daemon();
	if (ret)
		return ret;
	/*
	 * Our daemon listens when spawn_daemon() returns; but when several
	 * clients start daemons at once, ours may have lost the race for the
	 * lock and exited while the winner is still binding: wait for it a bit.
	 */
	for (i = 0; i < 400; i++) {
		struct timespec ms = {0, 2500000};

		fd = sock_connect(dir);
		if (fd >= 0 || (fd != -ENOENT && fd != -ECONNREFUSED))
			break;
		nanosleep(&ms, NULL);
	}
	return fd >= 0 ? fd : -ENOTCONN;
}

TRAWL_EXPORT int trawl_ctl_connect(struct trawl_ctl **out, unsigned flags)
{
	struct trawl_ctl *ctl;
	int fd = -ENOTCONN, root = 0;

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
	{
		/* A hung daemon must not hang the client forever; stop may take a
		 * while (flushing the kernel's buffers), so the bound is generous. */
		struct timeval tv = {.tv_sec = 120};

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	/* One round trip now, so a refused client learns it here, with the reason. */
	{
		struct trawl_ctl_wire_req r;
		int ret;

		req_init(&r);
		ret = transact(ctl, TRAWL_CTL_CMD_PING, &r, NULL, NULL);
		if (ret) {
			trawl_ctl_disconnect(ctl);
			return ret == -EACCES ? -EACCES : -ENOTCONN;
		}
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

/* ---- one request, one reply ---- */

static void req_init(struct trawl_ctl_wire_req *r)
{
	memset(r, 0, sizeof(*r));
	r->struct_size = sizeof(*r);
}

/*
 * Sends @req as @cmd; on success, *items_out (if non-NULL) receives the
 * reply's items (caller frees) and @head the reply head. Returns the
 * daemon's status or a transport error.
 */
static int transact(struct trawl_ctl *ctl, uint16_t cmd, const struct trawl_ctl_wire_req *req,
		    struct trawl_ctl_wire_reply *head, struct trawl_ctl_list **items_out)
{
	struct trawl_ctl_wire_hdr hdr = {
		.magic = TRAWL_CTL_MAGIC,
		.version = TRAWL_CTL_VERSION,
		.cmd = cmd,
		.size = sizeof(*req),
	};
	struct trawl_ctl_wire_reply h;
	char *payload;
	int ret;

	ctl->err[0] = '\0';
	ret = trawl_ctl_write_all(ctl->fd, &hdr, sizeof(hdr));
	if (!ret)
		ret = trawl_ctl_write_all(ctl->fd, req, sizeof(*req));
	if (ret)
		return -ENOTCONN;
	ret = trawl_ctl_read_all(ctl->fd, &hdr, sizeof(hdr));
	if (ret)
		return -ENOTCONN;
	if (trawl_ctl_hdr_check(&hdr, 1) || hdr.cmd != cmd)
		return -EPROTO;
	payload = malloc(hdr.size);
	if (!payload)
		return -ENOMEM;
	ret = trawl_ctl_read_all(ctl->fd, payload, hdr.size);
	if (ret) {
		free(payload);
		return -ENOTCONN;
	}
	if (trawl_ctl_reply_check(payload, hdr.size)) {
		free(payload);
		return -EPROTO;
	}
	memcpy(&h, payload, sizeof(h));
	snprintf(ctl->err, sizeof(ctl->err), "%s", h.err);
	if (head)
		*head = h;
	if (hdr.status == 0 && items_out) {
		struct trawl_ctl_list *l = calloc(1, sizeof(*l));

		if (!l) {
			free(payload);
			return -ENOMEM;
		}
		l->nr = h.nr_items;
		if (l->nr) {
			l->items = malloc(l->nr * sizeof(*l->items));
			if (!l->items) {
				free(l);
				free(payload);
				return -ENOMEM;
			}
			memcpy(l->items, payload + sizeof(h), l->nr * sizeof(*l->items));
		}
		*items_out = l;
	}
	free(payload);
	return hdr.status;
}

static int session_cmd(struct trawl_ctl *ctl, uint16_t cmd, const char *session, uint32_t flags)
{
	struct trawl_ctl_wire_req r;

	req_init(&r);
	r.flags = flags;
	if (copy_str(r.session, sizeof(r.session), session))
		return -EINVAL;
	return transact(ctl, cmd, &r, NULL, NULL);
}

/* ---- sessions ---- */

static int default_output(const char *name, int auto_name, char *buf, size_t len)
{
	const char *home = getenv("HOME");
	struct passwd *pw;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	if (!home || home[0] != '/') {
		pw = getpwuid(geteuid());
		if (!pw)
			return -ENOENT;
		home = pw->pw_dir;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	/* An auto name already carries the date, as LTTng's does. */
	if (auto_name)
		n = snprintf(buf, len, "%s/trawl-traces/%s", home, name);
	else
		n = snprintf(buf, len, "%s/trawl-traces/%s-%s", home, name, stamp);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* An output the daemon takes: an absolute folder, or a relay daemon's net:// URL. */
static int output_ok(const char *output)
{
	return output[0] == '/' || !strncmp(output, "net://", 6) || !strncmp(output, "net6://", 7);
}

static int session_create(struct trawl_ctl *ctl, const char *name, const char *output,
			  unsigned flags, uint32_t live_timer_us, char *name_out, size_t name_len,
			  char *path_out, size_t path_len)
{
	struct trawl_ctl_wire_req r;
	struct trawl_ctl_wire_reply h;
	char autoname[64];
	int ret, auto_name = 0;

	req_init(&r);
	if (!name) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(autoname, sizeof(autoname), "auto-%Y%m%d-%H%M%S", &tm);
		name = autoname;
		auto_name = 1;
	}
	if (copy_str(r.name, sizeof(r.name), name) || !trawl_ctl_name_valid(name))
		return -EINVAL;
	r.flags = flags & (TRAWL_CTL_CREATE_SNAPSHOT | TRAWL_CTL_CREATE_LIVE |
			   TRAWL_CTL_CREATE_NO_OUTPUT);
	r.switch_timer_us = live_timer_us;
	if (!output && (flags & TRAWL_CTL_CREATE_LIVE))
		output = "net://127.0.0.1"; /* as LTTng: a live session streams to a local relayd */
	if (output) {
		if (!output_ok(output) || copy_str(r.output, sizeof(r.output), output))
			return -EINVAL;
	} else if (!(flags & TRAWL_CTL_CREATE_NO_OUTPUT)) {
		ret = default_output(name, auto_name, r.output, sizeof(r.output));
		if (ret)
			return ret;
	}
	ret = transact(ctl, TRAWL_CTL_CMD_CREATE, &r, &h, NULL);
	if (ret)
		return ret;
	if (name_out)
		snprintf(name_out, name_len, "%s", h.name);
	if (path_out)
		snprintf(path_out, path_len, "%s", h.path);
	return 0;
}

TRAWL_EXPORT int trawl_ctl_session_create(struct trawl_ctl *ctl, const char *name, const char *output,
			     unsigned flags, char *name_out, size_t name_len, char *path_out,
			     size_t path_len)
{
	return session_create(ctl, name, output, flags, 0, name_out, name_len, path_out, path_len);
}

TRAWL_EXPORT int trawl_ctl_session_create_live(struct trawl_ctl *ctl, const char *name,
					       const char *url, uint32_t live_timer_us,
					       char *name_out, size_t name_len, char *path_out,
					       size_t path_len)
{
	return session_create(ctl, name, url, TRAWL_CTL_CREATE_LIVE, live_timer_us, name_out,
			      name_len, path_out, path_len);
}

TRAWL_EXPORT int trawl_ctl_session_destroy(struct trawl_ctl *ctl, const char *session)
{
	return session_cmd(ctl, TRAWL_CTL_CMD_DESTROY, session, 0);
}

TRAWL_EXPORT int trawl_ctl_session_destroy_all(struct trawl_ctl *ctl)
{
	return session_cmd(ctl, TRAWL_CTL_CMD_DESTROY, NULL, TRAWL_CTL_F_ALL);
}

TRAWL_EXPORT int trawl_ctl_session_start(struct trawl_ctl *ctl, const char *session)
{
	return session_cmd(ctl, TRAWL_CTL_CMD_START, session, 0);
}

TRAWL_EXPORT int trawl_ctl_session_stop(struct trawl_ctl *ctl, const char *session)
{
	return session_cmd(ctl, TRAWL_CTL_CMD_STOP, session, 0);
}

TRAWL_EXPORT int trawl_ctl_snapshot_record(struct trawl_ctl *ctl, const char *session, char *path_out,
			      size_t path_len)
{
	struct trawl_ctl_wire_req r;
	struct trawl_ctl_wire_reply h;
	int ret;

	req_init(&r);
	if (copy_str(r.session, sizeof(r.session), session))
		return -EINVAL;
	ret = transact(ctl, TRAWL_CTL_CMD_SNAPSHOT_RECORD, &r, &h, NULL);
	if (!ret && path_out)
		snprintf(path_out, path_len, "%s", h.path);
	return ret;
}

TRAWL_EXPORT int trawl_ctl_daemon_quit(struct trawl_ctl *ctl)
{
	return session_cmd(ctl, TRAWL_CTL_CMD_QUIT, NULL, 0);
}

/* ---- channels ---- */

TRAWL_EXPORT struct trawl_ctl_channel_attr *trawl_ctl_channel_attr_create(const char *name)
{
	struct trawl_ctl_channel_attr *a = calloc(1, sizeof(*a));

	if (a && copy_str(a->name, sizeof(a->name), name)) {
		free(a);
		errno = EINVAL;
		return NULL;
	}
	return a;
}

TRAWL_EXPORT void trawl_ctl_channel_attr_destroy(struct trawl_ctl_channel_attr *attr)
{
	free(attr);
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_subbuf_size(struct trawl_ctl_channel_attr *attr, uint64_t bytes)
{
	if (bytes < 4096 || (bytes & (bytes - 1)))
		return -EINVAL;
	attr->subbuf_size = bytes;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_num_subbuf(struct trawl_ctl_channel_attr *attr, uint32_t num)
{
	if (num < 2 || (num & (num - 1)))
		return -EINVAL;
	attr->num_subbuf = num;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_overwrite(struct trawl_ctl_channel_attr *attr, int overwrite)
{
	attr->overwrite = overwrite ? TRAWL_CTL_MODE_OVERWRITE : TRAWL_CTL_MODE_DISCARD;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_switch_timer(struct trawl_ctl_channel_attr *attr, uint32_t us)
{
	attr->switch_timer_us = us;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_read_timer(struct trawl_ctl_channel_attr *attr, uint32_t us)
{
	attr->read_timer_us = us;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_buffers_pid(struct trawl_ctl_channel_attr *attr, int per_pid)
{
	attr->buffers = per_pid ? TRAWL_CTL_BUFFERS_PID : TRAWL_CTL_BUFFERS_UID;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_enable(struct trawl_ctl *ctl, const char *session,
			     enum trawl_ctl_domain domain, const struct trawl_ctl_channel_attr *attr)
{
	struct trawl_ctl_wire_req r;

	req_init(&r);
	r.domain = domain;
	if (copy_str(r.session, sizeof(r.session), session) ||
	    copy_str(r.channel, sizeof(r.channel), attr->name))
		return -EINVAL;
	r.subbuf_size = attr->subbuf_size;
	r.num_subbuf = attr->num_subbuf;
	r.overwrite = attr->overwrite;
	r.switch_timer_us = attr->switch_timer_us;
	r.read_timer_us = attr->read_timer_us;
	r.buffers = attr->buffers;
	return transact(ctl, TRAWL_CTL_CMD_ENABLE_CHANNEL, &r, NULL, NULL);
}

TRAWL_EXPORT int trawl_ctl_channel_disable(struct trawl_ctl *ctl, const char *session,
			      enum trawl_ctl_domain domain, const char *channel)
{
	struct trawl_ctl_wire_req r;

	req_init(&r);
	r.domain = domain;
	if (copy_str(r.session, sizeof(r.session), session) ||
	    copy_str(r.channel, sizeof(r.channel), channel))
		return -EINVAL;
	return transact(ctl, TRAWL_CTL_CMD_DISABLE_CHANNEL, &r, NULL, NULL);
}

/* ---- events and contexts ---- */

TRAWL_EXPORT struct trawl_ctl_event *trawl_ctl_event_create(enum trawl_ctl_event_kind kind, const char *name)
{
	struct trawl_ctl_event *ev;

	if ((unsigned)kind > TRAWL_CTL_EVENT_USERSPACE_PROBE || !name || !name[0]) {
		errno = EINVAL;
		return NULL;
	}
	ev = calloc(1, sizeof(*ev));
	if (ev && copy_str(ev->name, sizeof(ev->name), name)) {
		free(ev);
		errno = EINVAL;
		return NULL;
	}
	if (ev)
		ev->kind = kind;
	return ev;
}

TRAWL_EXPORT void trawl_ctl_event_destroy(struct trawl_ctl_event *ev)
{
	free(ev);
}

TRAWL_EXPORT int trawl_ctl_event_set_target(struct trawl_ctl_event *ev, const char *target)
{
	return copy_str(ev->target, sizeof(ev->target), target);
}

TRAWL_EXPORT int trawl_ctl_event_set_filter(struct trawl_ctl_event *ev, const char *filter)
{
	return copy_str(ev->filter, sizeof(ev->filter), filter);
}

TRAWL_EXPORT int trawl_ctl_event_set_loglevel(struct trawl_ctl_event *ev, enum trawl_ctl_loglevel_type type,
				 int level)
{
	if ((unsigned)type > TRAWL_CTL_LOGLEVEL_SINGLE || level < 0 || level > 14)
		return -EINVAL;
	ev->loglevel_type = type;
	ev->loglevel = level;
	return 0;
}

static int event_req(struct trawl_ctl_wire_req *r, const char *session,
		     enum trawl_ctl_domain domain, const char *channel,
		     const struct trawl_ctl_event *ev)
{
	req_init(r);
	r->domain = domain;
	r->event_kind = ev->kind;
	r->loglevel_type = ev->loglevel_type;
	r->loglevel = ev->loglevel;
	if (copy_str(r->session, sizeof(r->session), session) ||
	    copy_str(r->channel, sizeof(r->channel), channel) ||
	    copy_str(r->name, sizeof(r->name), ev->name) ||
	    copy_str(r->target, sizeof(r->target), ev->target) ||
	    copy_str(r->filter, sizeof(r->filter), ev->filter))
		return -EINVAL;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_event_enable(struct trawl_ctl *ctl, const char *session,
			   enum trawl_ctl_domain domain, const char *channel,
			   const struct trawl_ctl_event *ev)
{
	struct trawl_ctl_wire_req r;

	if (event_req(&r, session, domain, channel, ev))
		return -EINVAL;
	return transact(ctl, TRAWL_CTL_CMD_ENABLE_EVENT, &r, NULL, NULL);
}

TRAWL_EXPORT int trawl_ctl_event_disable(struct trawl_ctl *ctl, const char *session,
			    enum trawl_ctl_domain domain, const char *channel,
			    const struct trawl_ctl_event *ev)
{
	struct trawl_ctl_wire_req r;

	if (event_req(&r, session, domain, channel, ev))
		return -EINVAL;
	return transact(ctl, TRAWL_CTL_CMD_DISABLE_EVENT, &r, NULL, NULL);
}

TRAWL_EXPORT int trawl_ctl_context_add(struct trawl_ctl *ctl, const char *session,
			  enum trawl_ctl_domain domain, const char *channel, const char *context)
{
	struct trawl_ctl_wire_req r;

	req_init(&r);
	r.domain = domain;
	if (!context || copy_str(r.session, sizeof(r.session), session) ||
	    copy_str(r.channel, sizeof(r.channel), channel) ||
	    copy_str(r.name, sizeof(r.name), context))
		return -EINVAL;
	return transact(ctl, TRAWL_CTL_CMD_ADD_CONTEXT, &r, NULL, NULL);
}

/* ---- lists ---- */

TRAWL_EXPORT int trawl_ctl_list_sessions(struct trawl_ctl *ctl, struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_req r;

	req_init(&r);
	return transact(ctl, TRAWL_CTL_CMD_LIST_SESSIONS, &r, NULL, out);
}

TRAWL_EXPORT int trawl_ctl_list_session(struct trawl_ctl *ctl, const char *session,
			   struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_req r;

	req_init(&r);
	if (copy_str(r.session, sizeof(r.session), session))
		return -EINVAL;
	return transact(ctl, TRAWL_CTL_CMD_LIST_SESSION, &r, NULL, out);
}

TRAWL_EXPORT int trawl_ctl_list_available(struct trawl_ctl *ctl, enum trawl_ctl_domain domain,
			     enum trawl_ctl_event_kind kind, int fields,
			     struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_req r;

	req_init(&r);
	r.domain = domain;
	r.event_kind = kind;
	r.flags = fields ? TRAWL_CTL_F_FIELDS : 0;
	return transact(ctl, TRAWL_CTL_CMD_LIST_AVAILABLE, &r, NULL, out);
}

TRAWL_EXPORT void trawl_ctl_list_destroy(struct trawl_ctl_list *list)
{
	if (!list)
		return;
	free(list->items);
	free(list);
}

TRAWL_EXPORT size_t trawl_ctl_list_count(const struct trawl_ctl_list *list)
{
	return list->nr;
}

TRAWL_EXPORT enum trawl_ctl_item_kind trawl_ctl_list_kind(const struct trawl_ctl_list *list, size_t i)
{
	return (enum trawl_ctl_item_kind)list->items[i].kind;
}

TRAWL_EXPORT enum trawl_ctl_domain trawl_ctl_list_domain(const struct trawl_ctl_list *list, size_t i)
{
	return (enum trawl_ctl_domain)list->items[i].domain;
}

TRAWL_EXPORT const char *trawl_ctl_list_name(const struct trawl_ctl_list *list, size_t i)
{
	return list->items[i].name;
}

TRAWL_EXPORT const char *trawl_ctl_list_text(const struct trawl_ctl_list *list, size_t i)
{
	return list->items[i].text;
}

TRAWL_EXPORT const char *trawl_ctl_list_text2(const struct trawl_ctl_list *list, size_t i)
{
	return list->items[i].text2;
}

TRAWL_EXPORT int trawl_ctl_list_enabled(const struct trawl_ctl_list *list, size_t i)
{
	return (int)list->items[i].enabled;
}

TRAWL_EXPORT enum trawl_ctl_event_kind trawl_ctl_list_event_kind(const struct trawl_ctl_list *list, size_t i)
{
	return (enum trawl_ctl_event_kind)list->items[i].event_kind;
}

TRAWL_EXPORT int trawl_ctl_list_loglevel(const struct trawl_ctl_list *list, size_t i)
{
	return list->items[i].loglevel;
}

TRAWL_EXPORT uint64_t trawl_ctl_list_value(const struct trawl_ctl_list *list, size_t i, unsigned k)
{
	return k < TRAWL_ARRAY_SIZE(list->items[i].v) ? list->items[i].v[k] : 0;
}

/* ---- the current session ($HOME/.trawlrc: "session=NAME") ---- */

static int rc_path(char *buf, size_t len)
{
	const char *home = getenv("HOME");
	int n;

	if (!home || home[0] != '/')
		return -ENOENT;
	n = snprintf(buf, len, "%s/.trawlrc", home);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

TRAWL_EXPORT int trawl_ctl_current_session_get(char *buf, size_t len)
{
	char path[4096], line[512];
	FILE *f;
	int ret = -ENOENT;

	if (rc_path(path, sizeof(path)))
		return -ENOENT;
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "session=", 8) && trawl_ctl_name_valid(line + 8)) {
			snprintf(buf, len, "%s", line + 8);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

TRAWL_EXPORT int trawl_ctl_current_session_set(const char *name)
{
	char path[4096], tmp[4200];
	FILE *f;

	if (!trawl_ctl_name_valid(name))
		return -EINVAL;
	if (rc_path(path, sizeof(path)))
		return -ENOENT;
	/* Write-then-rename so a concurrent reader never sees half a file. */
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "session=%s\n", name);
	if (fclose(f) || rename(tmp, path)) {
		int ret = -errno;

		unlink(tmp);
		return ret;
	}
	return 0;
}

TRAWL_EXPORT int trawl_ctl_current_session_clear(const char *name)
{
	char cur[TRAWL_CTL_NAME_LEN], path[4096];

	if (trawl_ctl_current_session_get(cur, sizeof(cur)))
		return 0;
	if (name && strcmp(cur, name))
		return 0;
	if (rc_path(path, sizeof(path)))
		return -ENOENT;
	return unlink(path) ? -errno : 0;
}

/* ---- small things ---- */

TRAWL_EXPORT const char *trawl_ctl_version(void)
{
	return TRAWL_VERSION_STRING;
}

static const char *const loglevels[] = {
	"TRACE_EMERG",          "TRACE_ALERT",         "TRACE_CRIT",
	"TRACE_ERR",            "TRACE_WARNING",       "TRACE_NOTICE",
	"TRACE_INFO",           "TRACE_DEBUG_SYSTEM",  "TRACE_DEBUG_PROGRAM",
	"TRACE_DEBUG_PROCESS",  "TRACE_DEBUG_MODULE",  "TRACE_DEBUG_UNIT",
	"TRACE_DEBUG_FUNCTION", "TRACE_DEBUG_LINE",    "TRACE_DEBUG",
};

TRAWL_EXPORT int trawl_ctl_loglevel_parse(const char *name)
{
	size_t i;
	char *end;
	long v;

	v = strtol(name, &end, 10);
	if (*name && !*end)
		return v >= 0 && v <= 14 ? (int)v : -EINVAL;
	for (i = 0; i < TRAWL_ARRAY_SIZE(loglevels); i++)
		if (!strcasecmp(name, loglevels[i]) || !strcasecmp(name, loglevels[i] + 6))
			return (int)i;
	return -EINVAL;
}

TRAWL_EXPORT const char *trawl_ctl_loglevel_name(int level)
{
	return level >= 0 && level < (int)TRAWL_ARRAY_SIZE(loglevels) ? loglevels[level] : NULL;
}
