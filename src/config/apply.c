/* SPDX-License-Identifier: MIT */
/*
 * apply.c - one parsed session made on a daemon, with the calls the
 * commands make (create, enable-channel, add-context, enable-event,
 * track, enable-rotation, start), in LTTng's order: the session, then
 * each domain's channels with their events and contexts (a channel or
 * event the file says is disabled is made, then disabled), the trackers,
 * the rotation schedules, and start if the file says it was started.
 *
 * The daemon checks each call as it checks the commands: a file cannot
 * make a session its user could not make by hand.
 */
#include "common/common.h"
#include "config/config.h"
#include "config/model.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ax {
	struct trawl_ctl *ctl;
	const char *name; /* the session's name on the daemon */
	char *err;
	size_t errlen;
};

/* "cannot load session NAME: WHAT: the daemon's line (or strerror)". Returns @ret. */
__attribute__((format(printf, 3, 4))) static int afail(struct ax *a, int ret, const char *fmt, ...)
{
	const char *line = trawl_ctl_last_error(a->ctl);
	char what[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	trawl_msg_fmt(a->err, a->errlen, "cannot load session %s: %s%s%s", a->name, what,
		      what[0] ? ": " : "", line[0] ? line : strerror(-ret));
	return ret;
}

static const char *dom_word(enum trawl_ctl_domain d)
{
	return d == TRAWL_CTL_DOMAIN_KERNEL ? "kernel" : "user-space";
}

/*
 * A snapshot session made with a folder has that folder as its one output,
 * snapshot-1 without a size limit: such a file is made the same way, so the
 * session lists as it did. Other outputs are added after creation.
 */
static int made_with_output(const struct cfg_session *s)
{
	const struct cfg_snapshot_output *o = s->snapshot_outputs;

	return s->nr_snapshot_outputs == 1 && o->out.path && o->out.enabled && !o->max_size &&
	       o->name && !strcmp(o->name, "snapshot-1");
}

static int create_session(struct ax *a, const struct cfg_session *s,
			  const struct trawl_config_load_opts *o)
{
	struct trawl_ctl_session_attr *attr = trawl_ctl_session_attr_create();
	const char *url = o->override_url;
	char local[TRAWL_CTL_PATH_MAX];
	int ret;

	if (!attr)
		return -ENOMEM;
	/* A local --override-url is a folder URL to LTTng (its
	 * uri_parse_str_urls()): the session's path ends with '/'. */
	if (url && (url[0] == '/' || !strncmp(url, "file://", 7))) {
		const char *p = url[0] == '/' ? url : url + 7;
		size_t n = strlen(p);

		if (trawl_path_fmt(local, sizeof(local), "%s%s", p,
				   n && p[n - 1] == '/' ? "" : "/")) {
			trawl_msg_fmt(a->err, a->errlen, "cannot load session %s: output '%s': "
				      "too long", a->name, url);
			trawl_ctl_session_attr_destroy(attr);
			return -ENAMETOOLONG;
		}
		url = local;
	}
	ret = trawl_ctl_session_attr_set_name(attr, a->name);
	if (!ret)
		ret = trawl_ctl_session_attr_set_snapshot(attr, s->snapshot);
	if (!ret && s->live_timer_us)
		ret = trawl_ctl_session_attr_set_live(attr, s->live_timer_us);
	if (ret) {
		trawl_msg_fmt(a->err, a->errlen, "cannot load session %s: bad name", a->name);
		goto out;
	}
	if (s->snapshot && !url && made_with_output(s)) {
		url = s->snapshot_outputs[0].out.path;
	} else if (s->snapshot) {
		/* Its outputs are added next (LTTng makes it without one too). */
		ret = trawl_ctl_session_attr_set_no_output(attr, !url);
	} else if (!url && s->output.given && !s->output.enabled) {
		ret = trawl_ctl_session_attr_set_no_output(attr, 1);
	} else if (!url && s->output.given) {
		url = s->output.path ? s->output.path : s->output.ctrl;
	}
	if (!ret && url)
		ret = trawl_ctl_session_attr_set_output(attr, url);
	if (ret) {
		trawl_msg_fmt(a->err, a->errlen, "cannot load session %s: output '%s': %s", a->name,
			      url ? url : "",
			      ret == -ENAMETOOLONG ? "too long" : "not a folder or URL");
		goto out;
	}
	ret = trawl_ctl_session_create(a->ctl, attr, NULL);
	if (ret)
		afail(a, ret, "%s", "");
	if (!ret && s->shm_path && s->shm_path[0]) {
		ret = trawl_ctl_session_set_shm_path(a->ctl, a->name, s->shm_path);
		if (ret) {
			afail(a, ret, "%s", "");
			trawl_ctl_session_destroy(a->ctl, a->name);
		}
	}
out:
	trawl_ctl_session_attr_destroy(attr);
	return ret;
}

static int add_snapshot_outputs(struct ax *a, const struct cfg_session *s,
				const struct trawl_config_load_opts *o)
{
	size_t i;
	int ret = 0;

	if (s->snapshot && (o->override_url || made_with_output(s)))
		return 0; /* the session was made with it */
	for (i = 0; i < s->nr_snapshot_outputs && !ret; i++) {
		const struct cfg_snapshot_output *so = &s->snapshot_outputs[i];
		struct trawl_ctl_snapshot_output *out = trawl_ctl_snapshot_output_create();
		const char *url = so->out.path ? so->out.path : so->out.ctrl;

		if (!out)
			return -ENOMEM;
		ret = trawl_ctl_snapshot_output_set_name(out, so->name);
		if (!ret)
			ret = trawl_ctl_snapshot_output_set_url(out, url, NULL);
		if (!ret)
			ret = trawl_ctl_snapshot_output_set_max_size(out, so->max_size);
		if (ret)
			trawl_msg_fmt(a->err, a->errlen,
				      "cannot load session %s: snapshot output %s: bad name or URL",
				      a->name, so->name ? so->name : "");
		else if ((ret = trawl_ctl_snapshot_add_output(a->ctl, a->name, out, NULL)))
			afail(a, ret, "snapshot output %s", so->name ? so->name : "");
		trawl_ctl_snapshot_output_destroy(out);
	}
	return ret;
}

static int make_channel(struct ax *a, enum trawl_ctl_domain dom, enum trawl_ctl_buffers buffers,
			const struct cfg_channel *ch)
{
	struct trawl_ctl_channel_attr *attr = trawl_ctl_channel_attr_create(ch->name);
	int ret = 0;

	if (!attr)
		return errno == EINVAL ? afail(a, -EINVAL, "channel '%s'", ch->name) : -ENOMEM;
	if (ch->subbuf_size)
		ret = trawl_ctl_channel_attr_set_subbuf_size(attr, ch->subbuf_size);
	if (!ret && ch->num_subbuf)
		ret = trawl_ctl_channel_attr_set_num_subbuf(attr, (uint32_t)ch->num_subbuf);
	if (!ret && ch->overwrite >= 0)
		ret = trawl_ctl_channel_attr_set_overwrite(attr, ch->overwrite);
	if (!ret && ch->has_switch_timer)
		ret = trawl_ctl_channel_attr_set_switch_timer(attr, ch->switch_timer_us);
	if (!ret && ch->has_read_timer)
		ret = trawl_ctl_channel_attr_set_read_timer(attr, ch->read_timer_us);
	if (!ret)
		ret = trawl_ctl_channel_attr_set_buffers(attr, buffers);
	if (!ret)
		ret = trawl_ctl_channel_attr_set_tracefile_size(attr, ch->tracefile_size);
	if (!ret)
		ret = trawl_ctl_channel_attr_set_tracefile_count(attr, ch->tracefile_count);
	if (!ret && ch->has_monitor_timer)
		ret = trawl_ctl_channel_attr_set_monitor_timer(attr, ch->monitor_timer_us);
	if (!ret && ch->has_blocking_timeout)
		ret = trawl_ctl_channel_attr_set_blocking_timeout(attr, ch->blocking_timeout_us);
	if (!ret)
		ret = trawl_ctl_channel_attr_set_output(attr, ch->output);
	if (ret) {
		trawl_msg_fmt(a->err, a->errlen,
			      "cannot load session %s: channel %s: sub-buffers must be a power of "
			      "two of at least 4096 bytes, and at least 2 of them",
			      a->name, ch->name);
	} else {
		ret = trawl_ctl_channel_enable(a->ctl, a->name, dom, attr);
		if (ret)
			afail(a, ret, "%s channel %s", dom_word(dom), ch->name);
	}
	trawl_ctl_channel_attr_destroy(attr);
	return ret;
}

static int enable_event(struct ax *a, enum trawl_ctl_domain dom, const char *channel,
			const struct cfg_event *e, enum trawl_ctl_event_kind kind)
{
	struct trawl_ctl_event *ev = trawl_ctl_event_create(kind, e->name);
	int ret = 0;

	if (!ev)
		return errno == EINVAL ? afail(a, -EINVAL, "event '%s'", e->name) : -ENOMEM;
	if (e->target)
		ret = trawl_ctl_event_set_target(ev, e->target);
	if (!ret && e->filter)
		ret = trawl_ctl_event_set_filter(ev, e->filter);
	if (!ret && e->exclusions) {
		char *list = strdup(e->exclusions), *x, *save = NULL;

		if (!list)
			ret = -ENOMEM;
		for (x = list ? strtok_r(list, ",", &save) : NULL; x && !ret;
		     x = strtok_r(NULL, ",", &save))
			ret = trawl_ctl_event_add_exclusion(ev, x);
		free(list);
	}
	/* a range or single log level of -1 (LTTng's own load-42-complex.lttng
	 * has one) matches every level, as LTTng-UST matches it: all */
	if (!ret && e->loglevel_type != TRAWL_CTL_LOGLEVEL_ALL && e->loglevel >= 0)
		ret = trawl_ctl_event_set_loglevel(ev, e->loglevel_type, e->loglevel);
	if (ret)
		afail(a, ret, "event %s", e->name);
	else if ((ret = trawl_ctl_event_enable(a->ctl, a->name, dom, channel, ev)))
		afail(a, ret, "channel %s: event %s", channel, e->name);
	else if (!e->enabled && (ret = trawl_ctl_event_disable(a->ctl, a->name, dom, channel, ev)))
		afail(a, ret, "channel %s: disabling event %s", channel, e->name);
	trawl_ctl_event_destroy(ev);
	return ret;
}

static int resolve_id(struct ax *a, int attr, const struct cfg_id *id, uint32_t *v)
{
	if (!id->name) {
		*v = id->id;
		return 0;
	}
	if (attr == TRAWL_CTL_PROCESS_ATTR_UID || attr == TRAWL_CTL_PROCESS_ATTR_VUID) {
		struct passwd *pw = getpwnam(id->name);

		if (pw) {
			*v = pw->pw_uid;
			return 0;
		}
	} else {
		struct group *gr = getgrnam(id->name);

		if (gr) {
			*v = gr->gr_gid;
			return 0;
		}
	}
	trawl_msg_fmt(a->err, a->errlen, "cannot load session %s: no %s named %s", a->name,
		      attr == TRAWL_CTL_PROCESS_ATTR_UID || attr == TRAWL_CTL_PROCESS_ATTR_VUID
			      ? "user"
			      : "group",
		      id->name);
	return -ENOENT;
}

/*
 * An agent domain's saved filter is the whole one, with the logger and the
 * levels (sessiond/cmd-agent.c): the user's part of it in @buf ("" if none),
 * so that the rule loads as it was enabled. A filter of another shape is
 * taken whole.
 */
static void agent_user_filter(const struct cfg_event *e, char *buf, size_t len)
{
	char inner[TRAWL_CTL_FILTER_MAX], tail[TRAWL_CTL_NAME_MAX + 64];
	const char *f = e->filter ? e->filter : "";
	size_t n = strlen(f), t;

	trawl_msg_fmt(buf, len, "%s", f);
	trawl_msg_fmt(inner, sizeof(inner), "%s", f);
	if (e->loglevel_type != TRAWL_CTL_LOGLEVEL_ALL) {
		const char *op = e->loglevel_type == TRAWL_CTL_LOGLEVEL_RANGE ? ">=" : "==";

		trawl_msg_fmt(tail, sizeof(tail), "int_loglevel %s %d", op, e->loglevel);
		if (!strcmp(f, tail)) {
			inner[0] = '\0';
		} else {
			trawl_msg_fmt(tail, sizeof(tail), ") && (int_loglevel %s %d)", op, e->loglevel);
			t = strlen(tail);
			if (n < t + 1 || f[0] != '(' || strcmp(f + n - t, tail))
				return;
			trawl_msg_fmt(inner, sizeof(inner), "%.*s", (int)(n - t - 1), f + 1);
		}
	}
	n = strlen(inner);
	if (strcmp(e->name, "*")) {
		trawl_msg_fmt(tail, sizeof(tail), "logger_name == \"%s\"", e->name);
		if (!strcmp(inner, tail)) {
			buf[0] = '\0';
			return;
		}
		trawl_msg_fmt(tail, sizeof(tail), ") && (logger_name == \"%s\")", e->name);
		t = strlen(tail);
		if (n < t + 1 || inner[0] != '(' || strcmp(inner + n - t, tail))
			return;
		trawl_msg_fmt(buf, len, "%.*s", (int)(n - t - 1), inner + 1);
		return;
	}
	trawl_msg_fmt(buf, len, "%s", inner);
}

/* An agent domain's rules (in its one channel): enabled, then disabled if so. */
static int apply_agent_domain(struct ax *a, enum trawl_ctl_domain dom, const struct cfg_domain *d)
{
	size_t i, j;
	int ret = 0;

	for (i = 0; !ret && i < d->nr_channels; i++) {
		for (j = 0; !ret && j < d->channels[i].nr_events; j++) {
			struct cfg_event e = d->channels[i].events[j];
			char user[TRAWL_CTL_FILTER_MAX];

			agent_user_filter(&e, user, sizeof(user));
			e.filter = user[0] ? user : NULL;
			ret = enable_event(a, dom, d->channels[i].name, &e,
					   TRAWL_CTL_EVENT_TRACEPOINT);
		}
		/* The channel's contexts (LTTng writes the user-space channel's
		 * here): a JUL or log4j one as add-context -j|-l adds it
		 * (application contexts also go to the agents), a Python one
		 * as -u (that domain has no contexts of its own). */
		for (j = 0; !ret && j < d->channels[i].nr_contexts; j++) {
			const char *c = d->channels[i].contexts[j];

			ret = trawl_ctl_context_add(a->ctl, a->name,
						    dom == TRAWL_CTL_DOMAIN_PYTHON ? TRAWL_CTL_DOMAIN_UST
										: dom,
						    d->channels[i].name, c);
			if (ret)
				afail(a, ret, "channel %s: context %s", d->channels[i].name, c);
		}
	}
	return ret;
}

/*
 * 1 if event @j of @ch is enabled and a later one of its name is disabled:
 * that disable (trawl_ctl_event_disable(), `disable-event NAME`) disabled
 * it too, and it is enabled again (LTTng's load-42-complex.lttng has two
 * events of one name, log levels apart, one of each).
 */
static int disabled_after(const struct cfg_channel *ch, size_t j)
{
	size_t k;

	if (!ch->events[j].enabled)
		return 0;
	for (k = j + 1; k < ch->nr_events; k++)
		if (!ch->events[k].enabled && ch->events[k].kind == ch->events[j].kind &&
		    !strcmp(ch->events[k].name, ch->events[j].name))
			return 1;
	return 0;
}

static int apply_domain(struct ax *a, enum trawl_ctl_domain dom, const struct cfg_domain *d)
{
	size_t i, j;
	int ret;

	if (dom >= TRAWL_CTL_DOMAIN_JUL)
		return apply_agent_domain(a, dom, d);

	for (i = 0; i < d->nr_channels; i++) {
		const struct cfg_channel *ch = &d->channels[i];

		ret = make_channel(a, dom, d->buffers, ch);
		for (j = 0; !ret && j < ch->nr_events; j++) {
			ret = enable_event(a, dom, ch->name, &ch->events[j], ch->events[j].kind);
			if (!ret && ch->events[j].also_syscalls)
				ret = enable_event(a, dom, ch->name, &ch->events[j],
						   TRAWL_CTL_EVENT_SYSCALL);
		}
		for (j = 0; !ret && j < ch->nr_events; j++)
			if (disabled_after(ch, j))
				ret = enable_event(a, dom, ch->name, &ch->events[j], ch->events[j].kind);
		for (j = 0; !ret && j < ch->nr_contexts; j++)
			if ((ret = trawl_ctl_context_add(a->ctl, a->name, dom, ch->name,
							 ch->contexts[j])))
				afail(a, ret, "channel %s: context %s", ch->name, ch->contexts[j]);
		if (!ret && !ch->enabled &&
		    (ret = trawl_ctl_channel_disable(a->ctl, a->name, dom, ch->name)))
			afail(a, ret, "disabling channel %s", ch->name);
		if (ret)
			return ret;
	}
	for (i = 0; i < TRAWL_CTL_PROCESS_ATTR_COUNT; i++) {
		const struct cfg_tracker *t = &d->trackers[i];
		enum trawl_ctl_process_attr attr = (enum trawl_ctl_process_attr)i;

		if (!t->present)
			continue;
		ret = trawl_ctl_untrack_all(a->ctl, a->name, dom, attr);
		if (ret)
			return afail(a, ret, "%s tracker", cfg_tracker_values[i]);
		for (j = 0; j < t->nr_values; j++) {
			uint32_t v;

			ret = resolve_id(a, (int)i, &t->values[j], &v);
			if (ret)
				return ret;
			ret = trawl_ctl_track(a->ctl, a->name, dom, attr, v);
			/* the same value twice (a name and its ID) is one */
			if (ret && ret != -EEXIST)
				return afail(a, ret, "%s tracker: %u", cfg_tracker_values[i], v);
		}
	}
	return 0;
}

static int apply_session(struct ax *a, const struct cfg_session *s,
			 const struct trawl_config_load_opts *o)
{
	static const enum trawl_ctl_domain doms[] = {TRAWL_CTL_DOMAIN_KERNEL, TRAWL_CTL_DOMAIN_UST,
						     TRAWL_CTL_DOMAIN_JUL, TRAWL_CTL_DOMAIN_LOG4J,
						     TRAWL_CTL_DOMAIN_PYTHON};
	size_t i;
	int ret = add_snapshot_outputs(a, s, o);

	for (i = 0; !ret && i < TRAWL_ARRAY_SIZE(doms); i++)
		if (s->domains[doms[i]].present)
			ret = apply_domain(a, doms[i], &s->domains[doms[i]]);
	if (!ret && s->rotate_timer_us &&
	    (ret = trawl_ctl_rotation_schedule_add(a->ctl, a->name, TRAWL_CTL_ROTATION_TIMER,
						   s->rotate_timer_us)))
		afail(a, ret, "periodic rotation");
	if (!ret && s->rotate_size &&
	    (ret = trawl_ctl_rotation_schedule_add(a->ctl, a->name, TRAWL_CTL_ROTATION_SIZE,
						   s->rotate_size)))
		afail(a, ret, "size-based rotation");
	if (!ret && s->started && (ret = trawl_ctl_session_start(a->ctl, a->name)))
		afail(a, ret, "start");
	return ret;
}

int trawl_config_doc_apply(struct trawl_ctl *ctl, const struct trawl_config_doc *doc, size_t i,
			   const struct trawl_config_load_opts *o, char *err, size_t errlen)
{
	static const struct trawl_config_load_opts none;
	const struct cfg_session *s;
	struct ax a = {.ctl = ctl, .err = err, .errlen = errlen};
	int ret;

	if (i >= doc->nr_sessions)
		return -ERANGE;
	if (!o)
		o = &none;
	s = &doc->sessions[i];
	a.name = o->override_name ? o->override_name : s->name;
	if (o->overwrite) {
		ret = trawl_ctl_session_destroy(ctl, a.name);
		if (ret && ret != -ENOENT) {
			afail(&a, ret, "destroying the session of that name");
			cfg_one_line(err);
			return ret;
		}
	}
	ret = create_session(&a, s, o);
	if (ret) {
		cfg_one_line(err);
		return ret; /* a session of that name, if any, is not ours to destroy */
	}
	ret = apply_session(&a, s, o);
	if (ret) {
		cfg_one_line(err);
		trawl_ctl_session_destroy(ctl, a.name);
	}
	return ret;
}
