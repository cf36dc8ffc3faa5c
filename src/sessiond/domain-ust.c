/* SPDX-License-Identifier: MIT */
/*
 * domain-ust.c - the user-space domain: traced apps, their buffers, the
 * event-id registry and metadata, and the user-space consumer.
 *
 * Objects (all owned by this file, all touched by the daemon's one thread):
 *
 *   ust_app        a registered app (libtrawl-ust), from apps.sock
 *   session        a session's user-space part: channels and their rules
 *   ust_trace      one CTF trace of a session: ust/uid/<uid>/<bits>-bit (per-user
 *                  buffers, shared by every app of that user) or
 *                  ust/pid/<procname>-<pid>-<date>-<time> (per-process)
 *   trace_chan     a session channel's ring buffers in one trace, and its
 *                  registry: event name -> id, the same for every app that
 *                  shares the buffers; each new id adds an event class to
 *                  the trace's metadata, which goes to the consumer at once
 *   app_sess       an app set up for a session: which events are on where
 *
 * An app is set up for a session when both exist and the session has been
 * started (LTTng's order); from then on every rule change is synced to it
 * (app_sync()). Which apps a session traces: those of its owner, or every
 * app when root owns the session (root's daemon sees every user's apps).
 *
 * The consumer (trawl-consumerd --ust) is one per owner, shared by the
 * owner's sessions, started with the first channel of the first of them and
 * running as the owner; it stays (idle: no streams, no polling) for the
 * owner's next sessions until the daemon exits. A
 * consumer that died is not replaced for the sessions it served (their
 * status says so) but new sessions get a new one. Commands to it are
 * pipelined: the
 * replies are read when they arrive (or before a FLUSH, which waits for
 * them all), so setting up an app costs no consumer round trip.
 */
#include "common/common.h"
#include "consumerd/consumer-proto.h"
#include "ctf/ctf.h"
#include "sessiond/sessiond.h"
#include "ustctl/ustctl.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct ust_app {
	struct ust_app *next;
	struct trawl_ustctl_app *h; /* owned */
	struct trawl_ustctl_app_info info;
	uid_t uid; /* from SO_PEERCRED, not from the registration */
	char stamp[32]; /* registration time, YYYYMMDD-HHMMSS */
};

struct ust_rule {
	struct ust_rule *next;
	char name[TRAWL_CTL_NAME_LEN];
	enum trawl_domain_loglevel_type lt;
	int loglevel;
};

struct ust_chan {
	struct ust_chan *next;
	struct trawl_domain_channel_attr attr;
	uint32_t index; /* CTF stream class id; 0, 1, ... */
	int enabled;
	uint32_t contexts; /* enum trawl_ustctl_context bits; fixed at the first start */
	struct ust_rule *rules; /* the enabled rules only */
};

struct ust_class {
	struct ust_class *next;
	char name[TRAWL_USTCTL_NAME_MAX];
	uint32_t id;
};

struct trace_chan {
	struct trace_chan *next;
	struct ust_chan *chan;
	struct trawl_ustctl_channel *rb; /* owned */
	struct ust_class *classes;       /* owned */
	uint32_t next_id;
};

struct ust_trace {
	struct ust_trace *next;
	uint64_t key;
	uid_t uid;
	uint32_t bits;
	pid_t pid; /* 0: per-user */
	char path[TRAWL_CONS_PATH_LEN];
	struct trawl_ctf_trace *ctf; /* owned */
	struct trace_chan *chans;
	int metadata_dirty;
};

struct app_sess {
	struct app_sess *next;
	struct ust_app *app;
	struct ust_trace *trace;
	uint32_t nr_events;
	uint8_t *on; /* [chan index * nr_events + event index]: enabled in the app */
	uint32_t nr_chans;
	int started;
};

struct trawl_domain_session {
	struct trawl_domain_session *next; /* in the domain's list */
	char name[TRAWL_CTL_NAME_LEN];
	char output[TRAWL_CTL_PATH_LEN];
	uint64_t id;
	uid_t uid;
	gid_t gid;
	int snapshot;
	int active, started_once;
	uint32_t nr_chans;
	struct ust_chan *chans;
	struct ust_trace *traces;
	struct app_sess *apps;
	struct ust_consumer *cons; /* the owner's consumer, shared; NULL until needed */
	uint64_t cons_discarded, cons_bytes; /* as of the last stop */
};

static struct ust_app *apps;
static struct trawl_domain_session *sessions;
static int apps_listen_fd = -1;
static char apps_sock_path[4200];
static const char *consumerd_path;
extern char **environ;

/* ---- matching ---- */

/* LTTng's star glob: '*' matches any run of characters; nothing else is special. */
static int glob_match(const char *p, const char *s)
{
	const char *star = NULL, *ss = s;

	while (*s) {
		if (*p == '*') {
			star = p++;
			ss = s;
		} else if (*p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star + 1;
			s = ++ss;
		} else {
			return 0;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

static int rule_matches(const struct ust_rule *r, const struct trawl_ustctl_event *ev)
{
	if (!glob_match(r->name, ev->name))
		return 0;
	switch (r->lt) {
	case TRAWL_LOGLEVEL_RANGE:
		return ev->loglevel <= r->loglevel;
	case TRAWL_LOGLEVEL_SINGLE:
		return ev->loglevel == r->loglevel;
	default:
		return 1;
	}
}

static int sess_traces_app(const struct trawl_domain_session *s, const struct ust_app *a)
{
	return s->uid == 0 || s->uid == a->uid;
}

static int per_pid(const struct trawl_domain_session *s)
{
	const struct ust_chan *c;

	for (c = s->chans; c; c = c->next)
		if (c->attr.buffers_pid)
			return 1;
	return 0;
}

/* ---- the consumers: one per owner, shared by the owner's sessions ---- */

struct ust_consumer {
	struct ust_consumer *next;
	uid_t uid;
	gid_t gid;
	pid_t pid;
	int fd;      /* owned: our end of the socketpair */
	int alive;
	int pending; /* replies not read yet */
	int refs;    /* sessions using it */
	struct trawl_cons_reply last; /* the last reply read */
	char msg[TRAWL_DOMAIN_ERR_MAX]; /* why it died */
};

static struct ust_consumer *consumers;
static uint64_t next_trace_key; /* unique in the daemon: consumers are shared */

static void cons_dead(struct ust_consumer *c, int status_known, int status)
{
	if (!c->alive)
		return;
	c->alive = 0;
	sd_watch_del(c->fd);
	close(c->fd);
	c->fd = -1;
	if (!status_known && waitpid(c->pid, &status, WNOHANG) == c->pid)
		status_known = 1;
	if (status_known && WIFSIGNALED(status))
		snprintf(c->msg, sizeof(c->msg), "consumer died (signal %d)", WTERMSIG(status));
	else if (status_known && WIFEXITED(status))
		snprintf(c->msg, sizeof(c->msg), "consumer exited (status %d)",
			 WEXITSTATUS(status));
	else
		snprintf(c->msg, sizeof(c->msg), "consumer died");
	sd_log("uid %d's user-space consumer (pid %d): %s", (int)c->uid, (int)c->pid, c->msg);
}

/* Reads one reply (blocking, bounded by SO_RCVTIMEO). */
static int cons_read_reply(struct ust_consumer *c)
{
	struct trawl_cons_reply r;
	int ret = trawl_ctl_read_all(c->fd, &r, sizeof(r));

	if (ret || r.magic != TRAWL_CONS_MAGIC) {
		cons_dead(c, 0, 0);
		return ret ? ret : -EPROTO;
	}
	c->pending--;
	c->last = r;
	if (r.status)
		sd_log("uid %d's consumer: %s", (int)c->uid, strerror(-r.status));
	return r.status;
}

static void cons_readable(int fd, short revents, void *arg)
{
	struct ust_consumer *c = arg;

	if (c->pending > 0 && (revents & POLLIN))
		cons_read_reply(c);
	else
		cons_dead(c, 0, 0);
}

static int cons_send_to(struct ust_consumer *c, uint16_t cmd, uint64_t session_key,
			uint64_t trace_key, uint64_t chan_key, const void *payload, uint32_t size,
			const int *fds, uint32_t nr_fds)
{
	struct trawl_cons_hdr h = {
		.magic = TRAWL_CONS_MAGIC,
		.version = TRAWL_CONS_VERSION,
		.cmd = cmd,
		.size = size,
		.nr_fds = nr_fds,
		.session_key = session_key,
		.trace_key = trace_key,
		.channel_key = chan_key,
	};
	ssize_t n;
	int ret;

	if (!c || !c->alive)
		return -EPIPE;
	n = trawl_ustctl_send_fds(c->fd, &h, sizeof(h), fds, nr_fds);
	if (n < 0 || (size_t)n != sizeof(h)) {
		cons_dead(c, 0, 0);
		return n < 0 ? (int)n : -EIO;
	}
	if (size && (ret = trawl_ctl_write_all(c->fd, payload, size))) {
		cons_dead(c, 0, 0);
		return ret;
	}
	c->pending++;
	return 0;
}

/* Sends a command about session @s (and fds); the reply is read later. */
static int cons_send(struct trawl_domain_session *s, uint16_t cmd, uint64_t trace_key,
		     uint64_t chan_key, const void *payload, uint32_t size, const int *fds,
		     uint32_t nr_fds)
{
	return cons_send_to(s->cons, cmd, s->id, trace_key, chan_key, payload, size, fds, nr_fds);
}

/* Waits for every pending reply; returns the first error. */
static int cons_sync_c(struct ust_consumer *c)
{
	int ret, first = 0;

	while (c && c->alive && c->pending > 0) {
		ret = cons_read_reply(c);
		if (ret && !first)
			first = ret;
	}
	return c && c->alive ? first : -EPIPE;
}

/* Syncs @s's consumer; the last reply (a session command's) gives @s's counters. */
static int cons_sync(struct trawl_domain_session *s)
{
	int ret = cons_sync_c(s->cons);

	if (!ret) {
		s->cons_discarded = s->cons->last.events_discarded;
		s->cons_bytes = s->cons->last.bytes_written;
	}
	return ret;
}

static int cons_alive(const struct trawl_domain_session *s)
{
	return s->cons && s->cons->alive;
}

static struct ust_consumer *cons_spawn(uid_t uid, gid_t gid, struct trawl_domain_err *err)
{
	struct timeval tv = {.tv_sec = 10};
	struct ust_consumer *c;
	int sv[2];
	pid_t pid;

	if (!consumerd_path || !consumerd_path[0]) {
		trawl_domain_err_set(err, "trawl-consumerd not found beside trawl-sessiond");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		free(c);
		return NULL;
	}
	if (geteuid() == uid) {
		/* The common case: posix_spawn (a vfork underneath) keeps this
		 * off the commands' latency, fork would copy the daemon's tables. */
		char *argv[] = {(char *)consumerd_path, (char *)"--ust", (char *)"--fd",
				(char *)"3", NULL};
		posix_spawn_file_actions_t fa;
		posix_spawnattr_t at;
		sigset_t none;
		int ret;

		sigemptyset(&none);
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
		posix_spawnattr_init(&at);
		posix_spawnattr_setsigmask(&at, &none);
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
		ret = posix_spawn(&pid, consumerd_path, &fa, &at, argv, environ);
		posix_spawnattr_destroy(&at);
		posix_spawn_file_actions_destroy(&fa);
		if (ret)
			pid = -1;
	} else {
		pid = fork();
	}
	if (pid < 0) {
		trawl_domain_err_set(err, "cannot start trawl-consumerd: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		free(c);
		return NULL;
	}
	if (pid == 0) {
		char *argv[] = {(char *)consumerd_path, (char *)"--ust", (char *)"--fd", (char *)"3",
				NULL};
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* The consumer writes the trace: it runs as the session's owner. */
		if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
			_exit(126);
		if (sv[1] == 3)
			fcntl(3, F_SETFD, 0);
		else
			dup2(sv[1], 3);
		execv(consumerd_path, argv);
		_exit(127);
	}
	close(sv[1]);
	c->uid = uid;
	c->gid = gid;
	c->pid = pid;
	c->fd = sv[0];
	c->alive = 1;
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	sd_watch_add(sv[0], cons_readable, c);
	c->next = consumers;
	consumers = c;
	return c;
}

/* Gives @s its owner's consumer, started if none runs. */
static int cons_get(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	struct ust_consumer *c;

	if (s->cons) {
		if (s->cons->alive)
			return 0;
		/* Not replaced: the session's data so far is what it wrote. */
		trawl_domain_err_set(err, "%s", s->cons->msg);
		return -EPIPE;
	}
	for (c = consumers; c; c = c->next)
		if (c->alive && c->uid == s->uid && c->gid == s->gid)
			break;
	if (!c)
		c = cons_spawn(s->uid, s->gid, err);
	if (!c)
		return -ENOMEM;
	c->refs++;
	s->cons = c;
	return 0;
}

/* @s is done with its consumer: its files are closed; the last user stops it. */
static void cons_free(struct ust_consumer *c);

static void cons_put(struct trawl_domain_session *s)
{
	struct ust_consumer *c = s->cons;

	if (!c)
		return;
	s->cons = NULL;
	if (c->alive) {
		cons_send_to(c, TRAWL_CONS_REMOVE_SESSION, s->id, 0, 0, NULL, 0, NULL, 0);
		cons_sync_c(c);
	}
	if (--c->refs > 0)
		return;
	/* Kept for the owner's next session (no start-up cost then), until the
	 * daemon exits. */
	if (c->alive)
		return;
	cons_free(c);
}

/* Stops (if alive) and frees a consumer no session uses. */
static void cons_free(struct ust_consumer *c)
{
	struct ust_consumer **pp;

	if (c->alive) {
		cons_send_to(c, TRAWL_CONS_QUIT, 0, 0, 0, NULL, 0, NULL, 0);
		if (cons_sync_c(c))
			kill(c->pid, SIGKILL); /* hung: never wait on it forever */
	}
	if (c->alive) {
		/* Told to quit: not a death worth logging. */
		sd_watch_del(c->fd);
		close(c->fd);
		c->alive = 0;
	}
	waitpid(c->pid, NULL, 0);
	for (pp = &consumers; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	free(c);
}

/* ---- traces and metadata ---- */

static struct trawl_ctf_type *int_type(const struct trawl_ustctl_field *f)
{
	struct trawl_ctf_type *t = trawl_ctf_type_integer_create(f->size_bits, !!f->is_signed, 8);

	if (!t)
		return NULL;
	if (f->base && f->base != 10)
		trawl_ctf_type_integer_set_base(t, f->base);
	if (f->byte_order == TRAWL_USTCTL_BYTE_ORDER_BE)
		trawl_ctf_type_integer_set_byte_order(t, TRAWL_CTF_BO_NETWORK);
	if (f->is_text && f->size_bits == 8)
		trawl_ctf_type_integer_set_utf8(t);
	return t;
}

static struct trawl_ctf_type *field_type(const struct trawl_ustctl_field *f)
{
	struct trawl_ctf_type *t;
	uint32_t i;

	switch (f->type) {
	case TRAWL_USTCTL_FIELD_INTEGER:
		return int_type(f);
	case TRAWL_USTCTL_FIELD_FLOAT:
		return trawl_ctf_type_float_create(f->size_bits, 8);
	case TRAWL_USTCTL_FIELD_STRING:
		return trawl_ctf_type_string_create();
	case TRAWL_USTCTL_FIELD_ARRAY:
		t = int_type(f);
		return t ? trawl_ctf_type_array_create(t, f->length) : NULL;
	case TRAWL_USTCTL_FIELD_SEQUENCE:
		t = int_type(f);
		return t ? trawl_ctf_type_sequence_create(t, f->length_name) : NULL;
	case TRAWL_USTCTL_FIELD_ENUM:
		t = int_type(f);
		t = t ? trawl_ctf_type_enum_create(t) : NULL;
		for (i = 0; t && i < f->nr_enum_entries; i++)
			trawl_ctf_type_enum_add(t, f->enum_entries[i].label, f->enum_entries[i].start,
						f->enum_entries[i].end);
		return t;
	default:
		return NULL;
	}
}

/* Adds @ev as event class @id of stream class @stream_id. */
static int add_event_class(struct ust_trace *t, uint32_t stream_id, uint32_t id,
			   const struct trawl_ustctl_event *ev)
{
	struct trawl_ctf_event_class_desc d = {
		.name = ev->name,
		.id = id,
		.stream_id = stream_id,
		.loglevel = ev->loglevel,
	};
	struct trawl_ctf_type *payload = NULL;
	uint32_t i;
	int ret;

	if (ev->nr_fields) {
		payload = trawl_ctf_type_struct_create(8);
		if (!payload)
			return -ENOMEM;
		for (i = 0; i < ev->nr_fields; i++) {
			struct trawl_ctf_type *ft = field_type(&ev->fields[i]);

			if (!ft) {
				trawl_ctf_type_destroy(payload);
				return -EINVAL;
			}
			ret = trawl_ctf_type_struct_add(payload, ev->fields[i].name, ft);
			if (ret) {
				trawl_ctf_type_destroy(payload);
				return ret;
			}
		}
	}
	ret = trawl_ctf_trace_add_event_class(t->ctf, &d, payload);
	if (!ret)
		t->metadata_dirty = 1;
	return ret;
}

static int metadata_push(struct trawl_domain_session *s, struct ust_trace *t)
{
	size_t len;
	char *text;
	int ret;

	if (!t->metadata_dirty)
		return 0;
	text = trawl_ctf_trace_metadata(t->ctf, &len);
	if (!text)
		return -errno;
	ret = cons_send(s, TRAWL_CONS_METADATA, t->key, 0, text, (uint32_t)len, NULL, 0);
	free(text);
	if (!ret)
		t->metadata_dirty = 0;
	return ret;
}

static struct ust_trace *trace_get(struct trawl_domain_session *s, const struct ust_app *a,
				   struct trawl_domain_err *err)
{
	int pid_mode = per_pid(s);
	struct trawl_cons_add_trace at;
	struct ust_trace *t;
	char host[256] = "";
	int ret;

	for (t = s->traces; t; t = t->next) {
		if (pid_mode ? t->pid == a->info.pid
			     : (!t->pid && t->uid == a->uid && t->bits == a->info.bits_per_long))
			return t;
	}
	ret = cons_get(s, err);
	if (ret)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->key = ++next_trace_key;
	t->uid = a->uid;
	t->bits = a->info.bits_per_long;
	t->pid = pid_mode ? a->info.pid : 0;
	if (pid_mode)
		snprintf(t->path, sizeof(t->path), "%.900s/ust/pid/%s-%d-%s", s->output, a->info.procname,
			 (int)a->info.pid, a->stamp);
	else
		snprintf(t->path, sizeof(t->path), "%.900s/ust/uid/%u/%u-bit", s->output,
			 (unsigned)a->uid, a->info.bits_per_long);
	t->ctf = trawl_ctf_trace_create(0);
	if (!t->ctf || trawl_ctf_trace_add_monotonic_clock(t->ctf)) {
		trawl_ctf_trace_destroy(t->ctf);
		free(t);
		return NULL;
	}
	gethostname(host, sizeof(host) - 1);
	trawl_ctf_trace_env_add_string(t->ctf, "hostname", host);
	trawl_ctf_trace_env_add_string(t->ctf, "domain", "ust");
	trawl_ctf_trace_env_add_string(t->ctf, "tracer_name", "lttng-ust");
	trawl_ctf_trace_env_add_int(t->ctf, "tracer_major", 2);
	trawl_ctf_trace_env_add_int(t->ctf, "tracer_minor", 13);
	trawl_ctf_trace_env_add_string(t->ctf, "trace_name", s->name);
	trawl_ctf_trace_env_add_string(t->ctf, "trace_buffering_scheme", pid_mode ? "pid" : "uid");
	if (pid_mode) {
		trawl_ctf_trace_env_add_string(t->ctf, "procname", a->info.procname);
		trawl_ctf_trace_env_add_int(t->ctf, "vpid", a->info.pid);
	}
	memset(&at, 0, sizeof(at));
	snprintf(at.path, sizeof(at.path), "%s", t->path);
	t->metadata_dirty = 1;
	t->next = s->traces;
	s->traces = t;
	cons_send(s, TRAWL_CONS_ADD_TRACE, t->key, 0, &at, sizeof(at), NULL, 0);
	return t;
}

static struct trace_chan *trace_chan_get(struct trawl_domain_session *s, struct ust_trace *t,
					 struct ust_chan *c, struct trawl_domain_err *err)
{
	struct trawl_ustctl_channel_attr ua = {0};
	struct trawl_ctf_type *ctx_type;
	struct trawl_cons_add_channel ac;
	int fds[TRAWL_USTCTL_MAX_STREAMS];
	struct trace_chan *tc;
	uint32_t i;
	int ret;

	for (tc = t->chans; tc; tc = tc->next)
		if (tc->chan == c)
			return tc;
	/* The stream event context declares exactly what the apps write before
	 * each payload (the bits' order, not the order the user added them). */
	ctx_type = trawl_ustctl_context_ctf_type(c->contexts);
	if (c->contexts && !ctx_type) {
		trawl_domain_err_set(err, "cannot describe the contexts of channel %s: %s",
				     c->attr.name, strerror(errno ? errno : ENOMEM));
		return NULL;
	}
	ret = trawl_ctf_trace_add_stream_class(t->ctf, c->index, TRAWL_CTF_HEADER_COMPACT,
					       ctx_type, "monotonic");
	if (ret) {
		trawl_domain_err_set(err, "cannot describe channel %s: %s", c->attr.name,
				     strerror(-ret));
		return NULL;
	}
	t->metadata_dirty = 1;
	tc = calloc(1, sizeof(*tc));
	if (!tc)
		return NULL;
	ua.subbuf_size = c->attr.subbuf_size;
	ua.num_subbuf = c->attr.num_subbuf;
	ua.overwrite = c->attr.overwrite;
	ua.nr_streams = trawl_ustctl_possible_cpus();
	if (ua.nr_streams > TRAWL_USTCTL_MAX_STREAMS)
		ua.nr_streams = TRAWL_USTCTL_MAX_STREAMS;
	ua.stream_id = c->index;
	memcpy(ua.uuid, trawl_ctf_trace_uuid(t->ctf), sizeof(ua.uuid));
	ret = trawl_ustctl_channel_create(&ua, &tc->rb);
	if (ret) {
		trawl_domain_err_set(err, "cannot create buffers for channel %s: %s", c->attr.name,
				     strerror(-ret));
		free(tc);
		return NULL;
	}
	tc->chan = c;
	memset(&ac, 0, sizeof(ac));
	snprintf(ac.name, sizeof(ac.name), "%s", c->attr.name);
	ac.attr = ua;
	ac.first_instance_id = (uint64_t)c->index * ua.nr_streams;
	ac.switch_timer_us = c->attr.switch_timer_us;
	ac.read_timer_us = c->attr.read_timer_us;
	ac.snapshot_mode = (uint32_t)s->snapshot;
	for (i = 0; i < ua.nr_streams; i++)
		fds[i] = trawl_ustctl_channel_stream_fd(tc->rb, i);
	cons_send(s, TRAWL_CONS_ADD_CHANNEL, t->key, c->index + 1, &ac, sizeof(ac), fds,
		  ua.nr_streams);
	tc->next = t->chans;
	t->chans = tc;
	return tc;
}

/* The id of @ev in @tc, registered (with its event class) on first use. */
static int class_id(struct ust_trace *t, struct trace_chan *tc,
		    const struct trawl_ustctl_event *ev, uint32_t *id)
{
	struct ust_class *k;
	int ret;

	for (k = tc->classes; k; k = k->next) {
		if (!strcmp(k->name, ev->name)) {
			*id = k->id;
			return 0;
		}
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	snprintf(k->name, sizeof(k->name), "%s", ev->name);
	k->id = tc->next_id;
	ret = add_event_class(t, tc->chan->index, k->id, ev);
	if (ret) {
		free(k);
		return ret;
	}
	tc->next_id++;
	k->next = tc->classes;
	tc->classes = k;
	*id = k->id;
	return 0;
}

/* ---- apps in sessions ---- */

static uint32_t chan_handle(const struct trawl_domain_session *s, const struct ust_chan *c)
{
	return (uint32_t)(s->id << 8) | (c->index + 1);
}

static struct app_sess *app_sess_find(struct trawl_domain_session *s, struct ust_app *a)
{
	struct app_sess *as;

	for (as = s->apps; as; as = as->next)
		if (as->app == a)
			return as;
	return NULL;
}

/* Makes the app's enabled events match the session's rules, channel by channel. */
static int app_sync(struct trawl_domain_session *s, struct app_sess *as,
		    struct trawl_domain_err *err)
{
	struct ust_app *a = as->app;
	struct ust_chan *c;
	uint32_t e;
	int ret = 0;

	for (c = s->chans; c; c = c->next) {
		struct trace_chan *tc = NULL;

		if (c->index >= as->nr_chans)
			continue;
		for (e = 0; e < as->nr_events; e++) {
			const struct trawl_ustctl_event *ev = trawl_ustctl_app_event(a->h, e);
			uint8_t *on = &as->on[c->index * as->nr_events + e];
			const struct ust_rule *r;
			int want = 0;
			uint32_t id;

			for (r = c->rules; c->enabled && r && !want; r = r->next)
				want = rule_matches(r, ev);
			if (want == *on)
				continue;
			if (!want) {
				trawl_ustctl_app_disable_event(a->h, chan_handle(s, c), e);
				*on = 0;
				continue;
			}
			if (!tc) {
				tc = trace_chan_get(s, as->trace, c, err);
				if (!tc)
					return -ENOMEM;
				/* Per-user buffers: every app of the channel gets
				 * the channel's one context set, so all write the
				 * fields the shared metadata declares. */
				ret = trawl_ustctl_app_send_channel_ctx(a->h, tc->rb, (uint32_t)s->id,
									chan_handle(s, c),
									c->contexts);
				if (ret && ret != -EEXIST) {
					sd_log("app %d: send channel: %s", (int)a->info.pid,
					       strerror(-ret));
					return ret;
				}
			}
			ret = class_id(as->trace, tc, ev, &id);
			if (ret) {
				sd_log("app %d: event %s: cannot describe it: %s", (int)a->info.pid,
				       ev->name, strerror(-ret));
				continue;
			}
			ret = trawl_ustctl_app_enable_event(a->h, chan_handle(s, c), e, id);
			if (ret) {
				sd_log("app %d: enable %s: %s", (int)a->info.pid, ev->name,
				       strerror(-ret));
				continue;
			}
			*on = 1;
		}
	}
	return metadata_push(s, as->trace);
}

static int app_setup(struct trawl_domain_session *s, struct ust_app *a,
		     struct trawl_domain_err *err)
{
	struct app_sess *as = app_sess_find(s, a);
	int ret;

	if (!as) {
		as = calloc(1, sizeof(*as));
		if (!as)
			return -ENOMEM;
		as->app = a;
		as->nr_events = trawl_ustctl_app_event_count(a->h);
		as->nr_chans = s->nr_chans;
		as->on = calloc((size_t)as->nr_events * as->nr_chans + 1, 1);
		as->trace = trace_get(s, a, err);
		if (!as->on || !as->trace) {
			free(as->on);
			free(as);
			return -ENOMEM;
		}
		as->next = s->apps;
		s->apps = as;
	}
	ret = app_sync(s, as, err);
	if (!ret && s->active && !as->started) {
		ret = trawl_ustctl_app_start(a->h, (uint32_t)s->id);
		if (!ret)
			as->started = 1;
	}
	return ret;
}

static void app_sess_free(struct trawl_domain_session *s, struct ust_app *a)
{
	struct app_sess **pp, *as;

	for (pp = &s->apps; *pp; pp = &(*pp)->next) {
		if ((*pp)->app == a) {
			as = *pp;
			*pp = as->next;
			free(as->on);
			free(as);
			return;
		}
	}
}

static void app_gone(struct ust_app *a)
{
	struct trawl_domain_session *s;
	struct ust_app **pp;

	sd_log("app %d (%s) unregistered", (int)a->info.pid, a->info.procname);
	for (s = sessions; s; s = s->next)
		app_sess_free(s, a);
	for (pp = &apps; *pp; pp = &(*pp)->next) {
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	}
	sd_watch_del(trawl_ustctl_app_fd(a->h));
	trawl_ustctl_app_destroy(a->h);
	free(a);
}

static void app_readable(int fd, short revents, void *arg)
{
	/* Apps speak only when asked: anything unasked (or EOF) means it left. */
	app_gone(arg);
}

/*
 * A new connection is read only once its first bytes are there, so an app
 * (or anyone: root's apps.sock is world-connectable) that connects and says
 * nothing never blocks the daemon; one that stops mid-registration blocks
 * it at most TRAWL_USTCTL_TIMEOUT_MS.
 */
static void app_registration_ready(int cfd, short revents, void *arg);

/* The process's name as the kernel knows it (its main thread's), rather than
 * what the app claims (which may be the name of the thread registering). */
static void proc_comm(pid_t pid, char *buf, size_t len)
{
	char path[64], name[TRAWL_USTCTL_PROCNAME_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return;
	name[n] = '\0';
	name[strcspn(name, "\n/")] = '\0';
	if (name[0] && len) {
		size_t k = strnlen(name, len - 1);

		memcpy(buf, name, k);
		buf[k] = '\0';
	}
}

static void apps_accept(int fd, short revents, void *arg)
{
	int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

	if (cfd < 0)
		return;
	if (sd_watch_add(cfd, app_registration_ready, NULL))
		close(cfd);
}

static void app_registration_ready(int cfd, short revents, void *arg)
{
	struct trawl_domain_session *s;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct ust_app *a;
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	sd_watch_del(cfd);
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		close(cfd);
		return;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		close(cfd);
		return;
	}
	ret = trawl_ustctl_app_accept(cfd, &a->h);
	if (ret) {
		sd_log("rejected an app registration from pid %d: %s", (int)cred.pid,
		       strerror(-ret));
		close(cfd);
		free(a);
		return;
	}
	a->info = *trawl_ustctl_app_info(a->h);
	proc_comm(cred.pid, a->info.procname, sizeof(a->info.procname));
	a->uid = cred.uid;
	localtime_r(&now, &tm);
	strftime(a->stamp, sizeof(a->stamp), "%Y%m%d-%H%M%S", &tm);
	a->next = apps;
	apps = a;
	sd_watch_add(trawl_ustctl_app_fd(a->h), app_readable, a);
	sd_log("app %d (%s, uid %d) registered with %u events", (int)a->info.pid,
	       a->info.procname, (int)a->uid, trawl_ustctl_app_event_count(a->h));
	for (s = sessions; s; s = s->next) {
		struct trawl_domain_err err = {""};

		if (s->active && sess_traces_app(s, a) && (ret = app_setup(s, a, &err)))
			sd_log("session %s: setting up app %d: %s", s->name, (int)a->info.pid,
			       err.msg[0] ? err.msg : strerror(-ret));
	}
	/* The app's start-up waits for this (its early events); an app older
	 * than the message answers -EINVAL, and a gone app is seen by poll. */
	trawl_ustctl_app_registration_done(a->h);
}

/* ---- the ops ---- */

static int ust_init(const struct trawl_domain_env *env, struct trawl_domain_err *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	consumerd_path = env->consumerd;
	if ((size_t)snprintf(apps_sock_path, sizeof(apps_sock_path), "%s/apps.sock",
			     env->runtime_dir) >= sizeof(sa.sun_path)) {
		trawl_domain_err_set(err, "runtime folder path too long for a socket");
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, apps_sock_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(apps_sock_path);
	/* Root's apps.sock takes every user's apps (root sessions trace them all). */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(apps_sock_path, env->root_daemon ? 0666 : 0600) || listen(fd, 128)) {
		int ret = -errno;

		trawl_domain_err_set(err, "cannot listen on %s: %s", apps_sock_path, strerror(errno));
		close(fd);
		return ret;
	}
	apps_listen_fd = fd;
	return sd_watch_add(fd, apps_accept, NULL);
}

static void ust_fini(void)
{
	while (apps)
		app_gone(apps);
	while (consumers)
		cons_free(consumers);
	if (apps_listen_fd >= 0) {
		sd_watch_del(apps_listen_fd);
		close(apps_listen_fd);
		unlink(apps_sock_path);
	}
}

static int ust_session_create(const struct trawl_domain_session_info *info,
			      struct trawl_domain_session **out, struct trawl_domain_err *err)
{
	struct trawl_domain_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	snprintf(s->name, sizeof(s->name), "%s", info->name);
	snprintf(s->output, sizeof(s->output), "%s", info->output);
	s->id = info->id;
	s->uid = info->uid;
	s->gid = info->gid;
	s->snapshot = info->snapshot;
	s->next = sessions;
	sessions = s;
	*out = s;
	return 0;
}

static int ust_stop(struct trawl_domain_session *s, struct trawl_domain_err *err);

static void ust_session_destroy(struct trawl_domain_session *s)
{
	struct trawl_domain_session **pp;
	struct app_sess *as;

	if (s->active)
		ust_stop(s, NULL);
	for (as = s->apps; as; as = as->next) {
		struct ust_chan *c;

		for (c = s->chans; c; c = c->next)
			if (c->index < as->nr_chans)
				trawl_ustctl_app_release_channel(as->app->h, chan_handle(s, c));
	}
	while (s->apps)
		app_sess_free(s, s->apps->app);
	cons_put(s);
	while (s->traces) {
		struct ust_trace *t = s->traces;

		s->traces = t->next;
		while (t->chans) {
			struct trace_chan *tc = t->chans;

			t->chans = tc->next;
			while (tc->classes) {
				struct ust_class *k = tc->classes;

				tc->classes = k->next;
				free(k);
			}
			trawl_ustctl_channel_destroy(tc->rb);
			free(tc);
		}
		trawl_ctf_trace_destroy(t->ctf);
		free(t);
	}
	while (s->chans) {
		struct ust_chan *c = s->chans;

		s->chans = c->next;
		while (c->rules) {
			struct ust_rule *r = c->rules;

			c->rules = r->next;
			free(r);
		}
		free(c);
	}
	for (pp = &sessions; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	free(s);
}

static struct ust_chan *chan_find(struct trawl_domain_session *s, const char *name)
{
	struct ust_chan *c;

	for (c = s->chans; c; c = c->next)
		if (!strcmp(c->attr.name, name))
			return c;
	return NULL;
}

static int ust_channel_create(struct trawl_domain_session *s,
			      const struct trawl_domain_channel_attr *attr,
			      struct trawl_domain_err *err)
{
	struct ust_chan *c, **tail;

	if (s->started_once) {
		trawl_domain_err_set(err, "channels are fixed once the session has started");
		return -EBUSY;
	}
	if (s->chans && !!per_pid(s) != !!attr->buffers_pid) {
		trawl_domain_err_set(err, "every user-space channel of a session uses the same "
					  "buffering scheme (--buffers-uid or --buffers-pid)");
		return -EINVAL;
	}
	if (s->nr_chans >= 255) {
		trawl_domain_err_set(err, "at most 255 user-space channels per session");
		return -ENOSPC;
	}
	/* Start the consumer now, so that its exec runs while the user is still
	 * enabling events, not during `start` next to the apps being set up. */
	if (!s->cons)
		cons_get(s, err);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->attr = *attr;
	c->index = s->nr_chans++;
	c->enabled = 1;
	for (tail = &s->chans; *tail; tail = &(*tail)->next)
		;
	*tail = c;
	return 0;
}

/* Syncs every app set up in @s (after a rule or channel change). */
static int sync_all(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	struct app_sess *as;
	int ret, first = 0;

	for (as = s->apps; as; as = as->next) {
		ret = app_sync(s, as, err);
		if (ret && !first)
			first = ret;
	}
	return first;
}

static int ust_channel_enable(struct trawl_domain_session *s, const char *channel, int enable,
			      struct trawl_domain_err *err)
{
	struct ust_chan *c = chan_find(s, channel);

	if (!c)
		return -ENOENT;
	c->enabled = enable;
	return sync_all(s, err);
}

static int ust_event_enable(struct trawl_domain_session *s, const char *channel,
			    const struct trawl_domain_event_rule *rule, struct trawl_domain_err *err)
{
	struct ust_chan *c = chan_find(s, channel);
	struct ust_rule *r;

	if (!c)
		return -ENOENT;
	if (rule->kind != TRAWL_EVENT_TRACEPOINT) {
		trawl_domain_err_set(err, "user space has tracepoints only");
		return -EINVAL;
	}
	if (rule->filter) {
		trawl_domain_err_set(err, "filters on user-space events are not supported yet");
		return -EOPNOTSUPP;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	snprintf(r->name, sizeof(r->name), "%s", rule->name);
	r->lt = rule->loglevel_type;
	r->loglevel = rule->loglevel;
	r->next = c->rules;
	c->rules = r;
	return sync_all(s, err);
}

static int ust_event_disable(struct trawl_domain_session *s, const char *channel,
			     const struct trawl_domain_event_rule *rule, struct trawl_domain_err *err)
{
	struct ust_chan *c = chan_find(s, channel);
	struct ust_rule **pp;

	if (!c)
		return -ENOENT;
	for (pp = &c->rules; *pp; pp = &(*pp)->next) {
		struct ust_rule *r = *pp;

		if (!strcmp(r->name, rule->name) && r->lt == rule->loglevel_type &&
		    (r->lt == TRAWL_LOGLEVEL_ALL || r->loglevel == rule->loglevel)) {
			*pp = r->next;
			free(r);
			return sync_all(s, err);
		}
	}
	return -ENOENT;
}

static int ust_context_add(struct trawl_domain_session *s, const char *channel,
			   const struct trawl_domain_context *ctx, struct trawl_domain_err *err)
{
	struct ust_chan *c = chan_find(s, channel);
	uint32_t bit;

	if (!c)
		return -ENOENT;
	/* The metadata's stream class is written with the first app set up,
	 * which is at start at the earliest: the set is fixed from then on. */
	if (s->started_once) {
		trawl_domain_err_set(err, "contexts are fixed once the session has started");
		return -EBUSY;
	}
	if (trawl_ustctl_context_from_name(ctx->name, &bit)) {
		trawl_domain_err_set(err, "user-space tracing does not record '%s' (it records "
					  "vpid, vtid, pid, tid, procname, pthread_id, ppid, ip)",
				     ctx->name);
		return -EOPNOTSUPP;
	}
	if (c->contexts & bit) {
		trawl_domain_err_set(err, "already in channel '%s'", channel);
		return -EEXIST;
	}
	c->contexts |= bit;
	return 0;
}

static int ust_start(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	struct ust_app *a;
	int ret;

	s->active = 1;
	s->started_once = 1;
	if (cons_alive(s))
		cons_send(s, TRAWL_CONS_START, 0, 0, NULL, 0, NULL, 0);
	for (a = apps; a; a = a->next) {
		if (!sess_traces_app(s, a))
			continue;
		ret = app_setup(s, a, err);
		if (ret)
			sd_log("session %s: setting up app %d: %s", s->name, (int)a->info.pid,
			       err->msg[0] ? err->msg : strerror(-ret));
	}
	return 0;
}

static int ust_stop(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	struct app_sess *as;
	int ret;

	for (as = s->apps; as; as = as->next) {
		if (!as->started)
			continue;
		ret = trawl_ustctl_app_stop(as->app->h, (uint32_t)s->id);
		if (ret)
			sd_log("session %s: stopping app %d: %s", s->name, (int)as->app->info.pid,
			       strerror(-ret));
		as->started = 0;
	}
	s->active = 0;
	if (!cons_alive(s))
		return 0; /* nothing recorded, or the consumer died (status says so) */
	ret = cons_send(s, TRAWL_CONS_FLUSH, 0, 0, NULL, 0, NULL, 0);
	if (!ret)
		ret = cons_sync(s);
	if (ret && err)
		trawl_domain_err_set(err, "the consumer could not write everything: %s",
				     cons_alive(s) ? strerror(-ret) : s->cons->msg);
	return cons_alive(s) ? ret : 0;
}

static int ust_snapshot(struct trawl_domain_session *s, const char *dir,
			struct trawl_domain_err *err)
{
	struct trawl_cons_add_trace at;
	int ret;

	if (!cons_alive(s) || !s->traces) {
		trawl_domain_err_set(err, "no user-space buffers to record yet (no traced app)");
		return -ENOENT;
	}
	memset(&at, 0, sizeof(at));
	snprintf(at.path, sizeof(at.path), "%s", dir);
	ret = cons_send(s, TRAWL_CONS_SNAPSHOT, 0, 0, &at, sizeof(at), NULL, 0);
	return ret ? ret : cons_sync(s);
}

static const char *field_type_name(const struct trawl_ustctl_field *f, char *buf, size_t len)
{
	static const char *const names[] = {"?", "integer", "float", "string", "array",
					    "sequence", "enum"};

	snprintf(buf, len, "%s", f->type <= TRAWL_USTCTL_FIELD_ENUM ? names[f->type] : "?");
	return buf;
}

static int ust_list_events(enum trawl_domain_event_kind kind, int with_fields,
			   trawl_domain_list_cb cb, void *arg, struct trawl_domain_err *err)
{
	struct trawl_domain_field_desc fd[64];
	char types[64][32];
	struct ust_app *a;
	uint32_t e, i;
	int ret;

	if (kind != TRAWL_EVENT_TRACEPOINT)
		return 0;
	for (a = apps; a; a = a->next) {
		for (e = 0; e < trawl_ustctl_app_event_count(a->h); e++) {
			const struct trawl_ustctl_event *ev = trawl_ustctl_app_event(a->h, e);
			struct trawl_domain_event_desc d = {
				.name = ev->name,
				.kind = TRAWL_EVENT_TRACEPOINT,
				.loglevel = ev->loglevel,
				.pid = a->info.pid,
				.fields = fd,
			};

			for (i = 0; with_fields && i < ev->nr_fields && i < 64; i++) {
				fd[i].name = ev->fields[i].name;
				fd[i].type = field_type_name(&ev->fields[i], types[i], sizeof(types[i]));
			}
			d.nr_fields = i;
			ret = cb(arg, &d);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int ust_status(struct trawl_domain_session *s, struct trawl_domain_status *st)
{
	int status;

	if (cons_alive(s) && waitpid(s->cons->pid, &status, WNOHANG) == s->cons->pid)
		cons_dead(s->cons, 1, status);
	st->consumer_alive = s->cons ? (uint32_t)s->cons->alive : 1;
	st->events_discarded = s->cons_discarded;
	st->bytes_written = s->cons_bytes;
	snprintf(st->msg, sizeof(st->msg), "%s", !s->cons || s->cons->alive ? "" : s->cons->msg);
	return 0;
}

const struct trawl_domain_ops trawl_domain_ust_ops = {
	.type = TRAWL_DOMAIN_UST,
	.name = "ust",
	.init = ust_init,
	.fini = ust_fini,
	.session_create = ust_session_create,
	.session_destroy = ust_session_destroy,
	.channel_create = ust_channel_create,
	.channel_enable = ust_channel_enable,
	.event_enable = ust_event_enable,
	.event_disable = ust_event_disable,
	.context_add = ust_context_add,
	.start = ust_start,
	.stop = ust_stop,
	.snapshot_record = ust_snapshot,
	.list_events = ust_list_events,
	.status = ust_status,
};
