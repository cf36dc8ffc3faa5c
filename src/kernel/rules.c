/* SPDX-License-Identifier: MIT */
/*
 * rules.c - LTTng's kernel event rules on one tracefs instance.
 *
 * In LTTng 2.13 every `enable-event -k` rule is an event of its own in the
 * kernel tracer, with its own filter: a record is kept when ANY enabled rule
 * matches it. ftrace has one enable and one filter per event and instance,
 * so the instance keeps its enabled rules (tracepoint patterns, syscall
 * patterns, each with its filter or none) and, whenever one is enabled or
 * disabled, every event that rule names is recomputed from the rules that
 * match it:
 *
 *   no enabled rule matches          -> enable 0, filter cleared
 *   one matching rule has no filter  -> enable 1, no filter
 *   else                             -> enable 1, "(f1) || (f2) ..."
 *
 * A rule's filter the kernel refuses on an event (a field the event lacks)
 * counts as false there, as lttng-modules' filter that fails to link rejects
 * every record: the other rules' parts are kept, and an event left with no
 * part gets NEVER_FILTER. Every part passed trawl_kernel_check_filter() when
 * its rule came, and so does each union (ftrace's grammar, 1024 bytes)
 * before anything is written: a union too long refuses the new rule.
 *
 * Filters go in before an event is enabled, and an event is disabled before
 * its filter is cleared, so an event never records more than its rules ask
 * (save the instant a refused union leaves it unfiltered, as ftrace does on
 * a refused write, before its parts go in one by one).
 */
#include "common/common.h"
#include "common/log.h"
#include "kernel/kernel.h"
#include "kernel/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One enabled rule of an instance. */
struct trawl_kernel_rule {
	struct trawl_kernel_rule *next;
	int syscalls;  /* a --syscall rule: its syscalls' entry and exit events */
	char *pattern; /* owned */
	char *filter;  /* owned; NULL: none */
};

/* A union is refused past trawl_kernel_check_filter()'s 1024 bytes; the
 * buffer only has to hold one a little longer to see it refused. */
#define UNION_MAX 2048

struct rules_ctx {
	struct trawl_kernel_instance *inst;
	const struct trawl_kernel_rule *changed; /* the rule enabled or disabled */
	int check;        /* pass 1: unions checked, nothing written */
	int skip_enable;  /* the enable files were written at once ("*") */
	const char **parts; /* this event's distinct filters (nrules) */
	int count;        /* events @changed names */
	int never;        /* of them: given NEVER_FILTER */
	int error;        /* the first write that failed */
	char *err;
	size_t errlen;
	char buf[UNION_MAX];
};

static void rule_free(struct trawl_kernel_rule *r)
{
	free(r->pattern);
	free(r->filter);
	free(r);
}

void trawl_kernel_rules_free(struct trawl_kernel_instance *inst)
{
	while (inst->rules) {
		struct trawl_kernel_rule *r = inst->rules;

		inst->rules = r->next;
		rule_free(r);
	}
}

static int same(const struct trawl_kernel_rule *r, const char *pattern, const char *filter,
		int syscalls)
{
	return r->syscalls == syscalls && !strcmp(r->pattern, pattern) &&
	       (r->filter ? filter && !strcmp(r->filter, filter) : !filter);
}

/* Joins @n parts as "(a) || (b)", or @parts[0] alone; -ENAMETOOLONG past @buf. */
static int union_fmt(char *buf, size_t len, const char **parts, int n)
{
	size_t at = 0;
	int i, w;

	if (n == 1)
		return trawl_path_fmt(buf, len, "%s", parts[0]);
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		w = snprintf(buf + at, len - at, "%s(%s)", i ? " || " : "", parts[i]);
		if (w < 0 || (size_t)w >= len - at)
			return -ENAMETOOLONG;
		at += (size_t)w;
	}
	return 0;
}

/*
 * Writes the union of @n parts to @rel; a part the kernel refuses on this
 * event drops out (tried alone), and with none left NEVER_FILTER goes in.
 */
static int filter_write(struct rules_ctx *c, const char *rel, int n)
{
	int i, kept = 0, ret;

	ret = trawl_kernel_write_file(rel, c->buf, 0);
	if (ret != -EINVAL)
		return ret;
	/* The union is within ftrace's grammar (pass 1), so EINVAL is this
	 * event's fields or their types: find the parts it has (a refused
	 * write leaves the event unfiltered: the end writes it again). */
	for (i = 0; n > 1 && i < n; i++)
		if (trawl_kernel_write_file(rel, c->parts[i], 0) == 0)
			c->parts[kept++] = c->parts[i];
	if (kept && !union_fmt(c->buf, sizeof(c->buf), c->parts, kept) &&
	    trawl_kernel_write_file(rel, c->buf, 0) == 0)
		return 0;
	c->never++;
	return trawl_kernel_write_file(rel, NEVER_FILTER, 0);
}

static int event_apply(struct rules_ctx *c, const char *sys, const char *ev, int any,
		       int unfiltered, int filtered, int n)
{
	char rel[768];
	int ret;

	ret = trawl_path_fmt(rel, sizeof(rel), "%s/events/%s/%s/enable", c->inst->path, sys, ev);
	if (ret < 0)
		return ret;
	if (!any) {
		ret = trawl_kernel_write_file(rel, "0", 0);
		memcpy(rel + strlen(rel) - 6, "filter", 6);
		if (ret == 0 && filtered)
			ret = trawl_kernel_write_file(rel, "0", 0);
		return ret;
	}
	if (filtered) {
		memcpy(rel + strlen(rel) - 6, "filter", 6);
		ret = unfiltered ? trawl_kernel_write_file(rel, "0", 0) : filter_write(c, rel, n);
		memcpy(rel + strlen(rel) - 6, "enable", 6);
	}
	if (ret == 0 && !c->skip_enable)
		ret = trawl_kernel_write_file(rel, "1", 0);
	return ret;
}

/* One tracefs event: recomputed from the rules matching it, if @changed does. */
static int event_recompute(const char *sys, const char *ev, void *arg)
{
	struct rules_ctx *c = arg;
	const struct trawl_kernel_rule *r, *o;
	int any = 0, unfiltered = 0, filtered = c->changed->filter != NULL, n = 0, ret;

	ret = trawl_kernel_event_matches(c->changed->pattern, c->changed->syscalls, sys, ev);
	if (ret <= 0)
		return ret;
	for (r = c->inst->rules; r; r = r->next) {
		ret = trawl_kernel_event_matches(r->pattern, r->syscalls, sys, ev);
		if (ret < 0)
			return ret;
		if (!ret)
			continue;
		any = 1;
		if (!r->filter) {
			unfiltered = 1;
			continue;
		}
		filtered = 1;
		for (o = c->inst->rules; o != r; o = o->next)
			if (o->filter && !strcmp(o->filter, r->filter) &&
			    trawl_kernel_event_matches(o->pattern, o->syscalls, sys, ev) > 0)
				break;
		if (o == r)
			c->parts[n++] = r->filter;
	}
	if (any && !unfiltered && n) {
		ret = union_fmt(c->buf, sizeof(c->buf), c->parts, n);
		if (c->check && n > 1) {
			if (ret < 0 || trawl_kernel_check_filter(c->buf, c->err, c->errlen) < 0) {
				trawl_msg_fmt(c->err, c->errlen, "the filters of the rules on %s:%s "
					      "make a kernel filter longer than 1024 bytes "
					      "(or one ftrace refuses)", sys, ev);
				return -E2BIG;
			}
		}
	}
	if (c->check)
		return 0;
	ret = event_apply(c, sys, ev, any, unfiltered, filtered, n);
	if (ret < 0 && !c->error)
		c->error = ret;
	c->count += ret == 0;
	return 0;
}

/* Both passes over the instance's events; @c->changed listed or not already. */
static int rules_apply(struct rules_ctx *c)
{
	char rel[512];
	int ret;

	ret = trawl_path_fmt(rel, sizeof(rel), "%s/events", c->inst->path);
	if (ret < 0)
		return ret;
	c->check = 1;
	ret = trawl_kernel_foreach_event(rel, event_recompute, c);
	if (ret == -E2BIG)
		return ret;
	if (ret < 0)
		goto list_failed;
	c->check = 0;
	ret = trawl_kernel_foreach_event(rel, event_recompute, c);
	if (ret < 0)
		goto list_failed;
	return 0;
list_failed:
	trawl_msg_fmt(c->err, c->errlen, "cannot list kernel events: %s", strerror(-ret));
	return ret;
}

/* The rule listed (or unlisted) and its events recomputed: see kernel.h. */
static int rules_change(struct trawl_kernel_instance *inst, const char *pattern,
			const char *filter, int syscalls, int enable, char *err, size_t errlen)
{
	struct rules_ctx *c;
	struct trawl_kernel_rule *r, *known = NULL, **at;
	int n = 1, added, ret;

	ret = trawl_kernel_check_event_pattern(pattern, err, errlen);
	if (ret == 0 && filter && enable)
		ret = trawl_kernel_check_filter(filter, err, errlen);
	if (ret < 0)
		return ret;
	for (r = inst->rules; r; r = r->next)
		n++;
	for (at = &inst->rules; *at && !same(*at, pattern, filter, syscalls); at = &(*at)->next)
		;
	r = *at;
	added = enable && !r;
	if (enable && r) {
		known = r; /* (listed already: its events recomputed as they are) */
	} else if (enable) {
		r = calloc(1, sizeof(*r));
		if (r) {
			r->syscalls = syscalls;
			r->pattern = strdup(pattern);
			r->filter = filter ? strdup(filter) : NULL;
		}
		if (!r || !r->pattern || (filter && !r->filter)) {
			if (r)
				rule_free(r);
			trawl_msg_fmt(err, errlen, "out of memory");
			return -ENOMEM;
		}
		*at = r; /* (last) */
	} else if (r) {
		*at = r->next; /* recomputed without it, freed after */
		r->next = NULL;
	} else {
		/* never enabled here: its events are recomputed as they are */
		r = calloc(1, sizeof(*r));
		if (!r || !(r->pattern = strdup(pattern))) {
			free(r);
			trawl_msg_fmt(err, errlen, "out of memory");
			return -ENOMEM;
		}
		r->syscalls = syscalls;
	}
	c = calloc(1, sizeof(*c) + (size_t)n * sizeof(*c->parts));
	if (!c) {
		ret = -ENOMEM;
		trawl_msg_fmt(err, errlen, "out of memory");
		goto undo;
	}
	c->parts = (const char **)(c + 1);
	c->inst = inst;
	c->changed = r;
	c->err = err;
	c->errlen = errlen;
	if (enable && !syscalls && !filter && !strcmp(pattern, "*")) {
		/* One write enables every event, syscalls included (LTTng's
		 * -k --all); raw_syscalls goes back out (event_matches()). */
		ret = trawl_kernel_instance_write(inst, "events/enable", "1");
		if (ret == 0)
			trawl_kernel_instance_write(inst, "events/raw_syscalls/enable", "0");
		c->skip_enable = ret == 0;
	}
	ret = rules_apply(c);
	if (ret < 0)
		goto undo;
	if (c->count == 0) {
		ret = c->error ? c->error : -ENOENT;
		if (c->error)
			trawl_msg_fmt(err, errlen, "kernel event %s%s: %s", syscalls ? "syscall " : "",
				      pattern, strerror(-c->error));
		else
			trawl_msg_fmt(err, errlen, "no kernel %s matches \"%s\"",
				      syscalls ? "syscall" : "event", pattern);
		goto undo;
	}
	if (c->never)
		trawl_log(TRAWL_LOG_INFO, "kernel events matching %s: %d of %d lack the fields "
			  "(or types) of every filter of their rules: they are never recorded",
			  pattern, c->never, c->count);
	ret = c->count;
	free(c);
	if (!enable)
		rule_free(r);
	return ret;
undo:
	free(c);
	if (known)
		return ret;
	if (added) {
		/* (the new rule is last: unlink it) */
		for (at = &inst->rules; *at != r; at = &(*at)->next)
			;
		*at = NULL;
	}
	rule_free(r);
	return ret;
}

int trawl_kernel_instance_rule(struct trawl_kernel_instance *inst, const char *pattern,
			       const char *filter, int syscalls, int enable, char *err,
			       size_t errlen)
{
	/* LTTng's state dump events are the consumer's, not tracefs's (statedump.c) */
	int sd = syscalls ? 0 : trawl_kernel_statedump_enable(inst, pattern, enable);
	int ret;

	if (sd && !strncmp(pattern, "lttng_statedump", 15))
		return sd;
	ret = rules_change(inst, pattern, filter, syscalls, enable, err, errlen);
	if (ret == -ENOENT && sd) {
		err[0] = '\0';
		return sd;
	}
	return ret < 0 ? ret : ret + sd;
}
