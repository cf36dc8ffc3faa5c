/* SPDX-License-Identifier: MIT */
/*
 * ust-registry.c - traces and their registries: per-channel event ids and
 * the CTF metadata (ctf.h) that each new id adds, pushed to the consumer.
 */
#include "common/common.h"
#include "sessiond/ust-internal.h"

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

	/* An event without fields still has its (empty) payload structure,
	 * as LTTng declares it: viewers show "{ }". */
	{
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

int metadata_push(struct trawl_domain_session *s, struct ust_trace *t)
{
	size_t len;
	char *text;
	int ret;

	if (!t->metadata_dirty)
		return 0;
	text = trawl_ctf_trace_metadata(t->ctf, &len);
	if (!text)
		return -errno;
	ust_shm_metadata(t, text, len);
	ret = cons_send(s, TRAWL_CONS_METADATA, t->key, 0, text, (uint32_t)len, NULL, 0);
	free(text);
	if (!ret)
		t->metadata_dirty = 0;
	return ret;
}

/* The clock @a's events would carry in a new trace: its own, or ours
 * when it can stamp it (the TSC from ABI minor 5 on). */
static uint32_t app_clock_kind(const struct ust_app *a)
{
	uint32_t k = ust_clock_default();

	if (a->info.has_clock)
		return TRAWL_USTCTL_CLOCK_APP;
	return k == TRAWL_USTCTL_CLOCK_TSC && a->info.abi_minor < 5 ? TRAWL_USTCTL_CLOCK_MONOTONIC : k;
}

/* Whether @a's events carry @t's clock. */
static int same_clock(const struct ust_trace *t, const struct ust_app *a)
{
	const struct trawl_ustctl_clock *x = &t->clock, *y = &a->info.clock;

	if (t->clock_kind != (a->info.has_clock ? TRAWL_USTCTL_CLOCK_APP
						 : t->clock_kind == TRAWL_USTCTL_CLOCK_TSC && a->info.abi_minor >= 5
							   ? TRAWL_USTCTL_CLOCK_TSC
							   : TRAWL_USTCTL_CLOCK_MONOTONIC))
		return 0;
	return t->clock_kind != TRAWL_USTCTL_CLOCK_APP ||
	       (!strcmp(x->name, y->name) && x->freq == y->freq && x->has_uuid == y->has_uuid &&
		(!x->has_uuid || !memcmp(x->uuid, y->uuid, sizeof(x->uuid))));
}

/* Adds @a's own clock (REGISTER's) to @t as its clock. */
static int add_app_clock(struct ust_trace *t, const struct ust_app *a)
{
	const struct trawl_ustctl_clock *c = &a->info.clock;
	struct trawl_ctf_clock_desc d = {
		.name = c->name,
		.description = c->description,
		.freq = c->freq,
		.precision = 1,
		.offset_s = c->offset_s,
		.offset = c->offset,
		.uuid = c->has_uuid ? c->uuid : NULL,
		.no_uuid = !c->has_uuid,
	};

	t->clock = *c;
	return trawl_ctf_trace_add_clock(t->ctf, &d);
}

static const char *clock_name(const struct ust_trace *t)
{
	return t->clock_kind == TRAWL_USTCTL_CLOCK_APP ? t->clock.name : "monotonic";
}

/* ISO 8601 as LTTng's time_to_iso8601_str(): YYYYMMDDThhmmss+zzzz, local time. */
static void iso8601(time_t when, char *buf, size_t len)
{
	struct tm tm;

	localtime_r(&when, &tm);
	if (!strftime(buf, len, "%Y%m%dT%H%M%S%z", &tm))
		buf[0] = '\0';
}

/*
 * The trace's env block, LTTng 2.13's (ust_metadata_session_statedump()),
 * in its order: per-user traces name their user in tracer_buffering_id,
 * per-process ones their process, with its name and registration time.
 */
static void trace_env(const struct trawl_domain_session *s, struct ust_trace *t,
		      const struct ust_app *a, int pid_mode)
{
	struct trawl_ctf_trace *c = t->ctf;
	char host[256] = "", when[40];

	trawl_ctf_trace_env_add_string(c, "domain", "ust");
	trawl_ctf_trace_env_add_string(c, "tracer_name", "lttng-ust");
	trawl_ctf_trace_env_add_int(c, "tracer_major", 2);
	trawl_ctf_trace_env_add_int(c, "tracer_minor", 13);
	trawl_ctf_trace_env_add_string(c, "tracer_buffering_scheme", pid_mode ? "pid" : "uid");
	trawl_ctf_trace_env_add_int(c, "tracer_buffering_id", pid_mode ? a->info.pid : (int64_t)t->uid);
	trawl_ctf_trace_env_add_int(c, "architecture_bit_width", t->bits);
	trawl_ctf_trace_env_add_string(c, "trace_name", s->name);
	iso8601((time_t)s->created, when, sizeof(when));
	trawl_ctf_trace_env_add_string(c, "trace_creation_datetime", when);
	gethostname(host, sizeof(host) - 1);
	trawl_ctf_trace_env_add_string(c, "hostname", host);
	if (pid_mode) {
		struct tm tm = {0};

		trawl_ctf_trace_env_add_int(c, "vpid", a->info.pid);
		trawl_ctf_trace_env_add_string(c, "procname", a->info.procname);
		/* the registration time the trace's folder is named by */
		if (strptime(a->stamp, "%Y%m%d-%H%M%S", &tm)) {
			tm.tm_isdst = -1;
			iso8601(mktime(&tm), when, sizeof(when));
			trawl_ctf_trace_env_add_string(c, "vpid_datetime", when);
		}
	}
}

struct ust_trace *trace_get(struct trawl_domain_session *s, const struct ust_app *a,
			    struct trawl_domain_err *err)
{
	int pid_mode = per_pid(s);
	const char *out;
	struct trawl_cons_add_trace at;
	struct ust_trace *t;
	int ret;

	for (t = s->traces; t; t = t->next) {
		if (t->gone)
			continue;
		if (!(pid_mode ? t->pid == a->info.pid
			       : (!t->pid && t->uid == a->uid && t->bits == a->info.bits_per_long)))
			continue;
		if (same_clock(t, a))
			return t;
		/* Its times would mean nothing in the buffers the others share. */
		trawl_domain_err_set(err, "app %d stamps its events with clock %s, the trace %s with clock %s",
				     (int)a->info.pid,
				     a->info.has_clock			       ? a->info.clock.name
				     : t->clock_kind == TRAWL_USTCTL_CLOCK_TSC ? "monotonic (app ABI minor < 5)"
									       : "monotonic",
				     t->path, t->clock_kind == TRAWL_USTCTL_CLOCK_TSC ? "tsc" : clock_name(t));
		return NULL;
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
	/* a session with no output: "none:/ust/...", no files (consumer-proto.h), never
	 * folders made under / */
	out = s->output[0] ? s->output : "none:";
	if (pid_mode ? trawl_path_fmt(t->path, sizeof(t->path), "%s/ust/pid/%s-%d-%s", out,
				      a->info.procname, (int)a->info.pid, a->stamp)
		     : trawl_path_fmt(t->path, sizeof(t->path), "%s/ust/uid/%u/%u-bit", out,
				      (unsigned)a->uid, a->info.bits_per_long)) {
		sd_log("%s: trace folder too long for the consumer (%u bytes at most)", s->output,
		       TRAWL_CONS_PATH_LEN - 1);
		free(t);
		return NULL;
	}
	t->shm_meta_fd = -1;
	t->ctf = trawl_ctf_trace_create(0);
	t->clock_kind = app_clock_kind(a);
	if (!t->ctf || (t->clock_kind == TRAWL_USTCTL_CLOCK_APP   ? add_app_clock(t, a)
			: t->clock_kind == TRAWL_USTCTL_CLOCK_TSC ? ust_clock_add_tsc(t->ctf)
							      : trawl_ctf_trace_add_monotonic_clock(t->ctf))) {
		if (t->ctf && a->info.has_clock)
			trawl_domain_err_set(err, "app %d's clock %s cannot be a trace's clock", (int)a->info.pid,
					     a->info.clock.name);
		trawl_ctf_trace_destroy(t->ctf);
		free(t);
		return NULL;
	}
	if (ust_shm_trace_init(s, t, a, err)) {
		ust_shm_trace_fini(t);
		trawl_ctf_trace_destroy(t->ctf);
		free(t);
		return NULL;
	}
	trace_env(s, t, a, pid_mode);
	memset(&at, 0, sizeof(at));
	snprintf(at.path, sizeof(at.path), "%s", t->path);
	t->metadata_dirty = 1;
	t->next = s->traces;
	s->traces = t;
	cons_send(s, TRAWL_CONS_ADD_TRACE, t->key, 0, &at, sizeof(at), NULL, 0);
	return t;
}

struct trace_chan *trace_chan_get(struct trawl_domain_session *s, struct ust_trace *t,
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
	ua.subbuf_size = c->attr.subbuf_size;
	ua.num_subbuf = c->attr.num_subbuf;
	ua.overwrite = c->attr.overwrite;
	ua.nr_streams = trawl_ustctl_possible_cpus();
	if (ua.nr_streams > TRAWL_USTCTL_MAX_STREAMS)
		ua.nr_streams = TRAWL_USTCTL_MAX_STREAMS;
	/* --shm-path: its files first, made as the owner without the loop
	 * waiting (ust-shm.c): NULL while they are being made
	 * (ust_shm_chan_making() says so), before anything is described. */
	if (t->shm && ust_shm_chan_fds(s, t, c, &ua, fds, err))
		return NULL;
	/* The stream event context declares exactly what the apps write before
	 * each payload (the bits' order, not the order the user added them). */
	ctx_type = trawl_ustctl_contexts_ctf_type(&c->ctx);
	if ((c->ctx.bits || c->ctx.nr_counters || c->ctx.nr_app) && !ctx_type) {
		trawl_domain_err_set(err, "cannot describe the contexts of channel %s: %s",
				     c->attr.name, strerror(errno ? errno : ENOMEM));
		goto close_fds;
	}
	ret = trawl_ctf_trace_add_stream_class(t->ctf, c->index, TRAWL_CTF_HEADER_COMPACT,
					       ctx_type, clock_name(t));
	if (ret) {
		trawl_domain_err_set(err, "cannot describe channel %s: %s", c->attr.name,
				     strerror(-ret));
		goto close_fds;
	}
	t->metadata_dirty = 1;
	tc = calloc(1, sizeof(*tc));
	if (!tc)
		goto close_fds;
	ua.stream_id = c->index;
	ua.clock = t->clock_kind;
	memcpy(ua.uuid, trawl_ctf_trace_uuid(t->ctf), sizeof(ua.uuid));
	if (t->shm) {
		/* (takes the fds: closed on failure) */
		ret = trawl_ustctl_channel_create_in(&ua, fds, &tc->rb);
		if (ret) {
			if (err && !err->msg[0])
				trawl_domain_err_set(err, "cannot set up the buffer files of channel %s: %s",
						     c->attr.name, strerror(-ret));
			free(tc);
			return NULL;
		}
	} else {
		ret = trawl_ustctl_channel_create(&ua, &tc->rb);
	}
	if (ret) {
		trawl_domain_err_set(err, "cannot create buffers for channel %s: %s", c->attr.name,
				     strerror(-ret));
		free(tc);
		return NULL;
	}
	tc->chan = c;
	/* Linked first: a consumer restarted while we send is told of it by
	 * the replay (ust-consumer.c). */
	tc->next = t->chans;
	t->chans = tc;
	/* The stream class is in the metadata the consumer has before the
	 * channel's first packet is on disk: a setup that fails after this
	 * (an app that died meanwhile) must not leave a stream no reader can
	 * decode, which makes babeltrace2 refuse the whole trace. */
	metadata_push(s, t);
	cons_channel_msg(s, tc, &ac);
	cons_send(s, TRAWL_CONS_ADD_CHANNEL, t->key, c->index + 1, &ac, sizeof(ac), fds,
		  cons_channel_fds(tc, &ac, fds));
	cons_chan_sent(s, tc);
	return tc;
close_fds:
	for (i = 0; t->shm && i < ua.nr_streams; i++)
		close(fds[i]);
	return NULL;
}

/* Appends @n bytes at @v to the layout being measured (@buf NULL) or written. */
static void layout_put(unsigned char *buf, size_t *off, const void *v, size_t n)
{
	if (buf)
		memcpy(buf + *off, v, n);
	*off += n;
}

/* What makes two events of one name the same class: every field's name,
 * type and encoding, enum mappings included. Writes it at @buf (NULL: only
 * measures); returns its size in bytes. */
static size_t class_layout(const struct trawl_ustctl_event *ev, unsigned char *buf)
{
	size_t off = 0;
	uint32_t i, k;

	for (i = 0; i < ev->nr_fields; i++) {
		const struct trawl_ustctl_field *f = &ev->fields[i];
		uint32_t num[8] = { (uint32_t)f->type, f->size_bits, f->is_signed, f->base, (uint32_t)f->byte_order,
				    f->is_text, f->length, f->nr_enum_entries };

		layout_put(buf, &off, f->name, strlen(f->name) + 1);
		layout_put(buf, &off, num, sizeof(num));
		layout_put(buf, &off, f->length_name, strlen(f->length_name) + 1);
		layout_put(buf, &off, f->enum_name, strlen(f->enum_name) + 1);
		for (k = 0; k < f->nr_enum_entries; k++) {
			const struct trawl_ustctl_enum_entry *e = &f->enum_entries[k];

			layout_put(buf, &off, &e->start, sizeof(e->start));
			layout_put(buf, &off, &e->end, sizeof(e->end));
			layout_put(buf, &off, e->label, strlen(e->label) + 1);
		}
	}
	return off;
}

/* The id of @ev in @tc, registered (with its event class) on first use. */
int class_id(struct ust_trace *t, struct trace_chan *tc,
	     const struct trawl_ustctl_event *ev, uint32_t *id)
{
	size_t len = class_layout(ev, NULL);
	struct ust_class *k;
	int ret;

	k = calloc(1, sizeof(*k) + len);
	if (!k)
		return -ENOMEM;
	k->layout_len = class_layout(ev, k->layout);
	for (struct ust_class *c = tc->classes; c; c = c->next) {
		if (!strcmp(c->name, ev->name) && c->layout_len == k->layout_len &&
		    !memcmp(c->layout, k->layout, k->layout_len)) {
			*id = c->id;
			free(k);
			return 0;
		}
	}
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

void trace_free(struct ust_trace *t)
{
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
	ust_shm_trace_fini(t);
	if (t->shm_meta_fd >= 0)
		close(t->shm_meta_fd);
	trawl_ctf_trace_destroy(t->ctf);
	free(t);
}

/* 1 if process @pid has exited (gone, or a zombie). */
static int pid_exited(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the name may hold anything */
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/*
 * Per-process traces of @s whose app is gone are complete. The consumer
 * writes what is left and closes each, and its buffers go: a session
 * tracing thousands of short-lived programs would otherwise hold two
 * files and a memfd per CPU for each until destroyed (3,000 programs ran
 * the consumer out of fds), and a new process given a recycled pid would
 * be written into the old one's folder. Only once the process has exited
 * (its socket closes before it does: those wait for the next call): a
 * living one whose connection was dropped registers again, and goes on in
 * the same trace. A snapshot session keeps them: its next snapshot wants
 * them. Each is freed once the consumer has drained it
 * (cons_remove_trace()), at a later call. Returns 1 while a trace waits for
 * its process to exit or for the consumer (ust-conn.c calls again then).
 */
int trace_release_gone(struct trawl_domain_session *s)
{
	struct ust_trace **tp = &s->traces, *t;
	struct app_sess *as;
	int waiting = 0;

	if (!per_pid(s) || s->snapshot)
		return 0;
	while ((t = *tp)) {
		int lingers;

		for (as = s->apps; as && as->app->info.pid != t->pid; as = as->next)
			;
		lingers = t->pid && app_tally_lingers(t->pid);
		if (!t->gone && !as && t->pid && !lingers) {
			if (pid_exited(t->pid))
				cons_remove_trace(s, t);
			else
				waiting = 1; /* its socket closed before it exited */
		}
		if (!t->gone || !cons_trace_removed(s, t)) {
			waiting |= t->gone;
			tp = &t->next;
			continue;
		}
		*tp = t->next;
		trace_free(t);
	}
	return waiting;
}
