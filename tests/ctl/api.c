/* SPDX-License-Identifier: MIT */
/*
 * api.c - libtrawl-ctl used directly, as a program embedding it would:
 * connect (starting the daemon), describe and create sessions, channels,
 * event rules and contexts, read every field of every record back through
 * the typed records, exercise the error codes and the records' struct_size
 * rules (an older and a newer caller), and destroy it all. With the kernel
 * domain (root daemon), also a kernel snapshot and the kernel's tracepoints
 * with their fields. Runs against a private daemon (the test sets
 * TRAWL_RUNTIME_DIR / TRAWL_ROOT_RUNTIME_DIR / HOME).
 */
#include <trawl/ctl.h>

#include "../lib/check.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static int create(struct trawl_ctl *ctl, const char *name, const char *output, int snapshot,
		  struct trawl_ctl_list **out)
{
	struct trawl_ctl_session_attr *a = trawl_ctl_session_attr_create();
	int ret;

	CHECK(a != NULL);
	CHECK(trawl_ctl_session_attr_set_name(a, name) == 0);
	CHECK(trawl_ctl_session_attr_set_output(a, output) == 0);
	CHECK(trawl_ctl_session_attr_set_snapshot(a, snapshot) == 0);
	ret = trawl_ctl_session_create(ctl, a, out);
	trawl_ctl_session_attr_destroy(a);
	return ret;
}

/* The session description object: names, outputs, and their limits. */
static void test_session_attr(struct trawl_ctl *ctl)
{
	struct trawl_ctl_session_attr *a = trawl_ctl_session_attr_create();
	struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};
	char longname[TRAWL_CTL_NAME_MAX + 1], longpath[TRAWL_CTL_OUTPUT_MAX + 8];
	char cwd[PATH_MAX], want[PATH_MAX + 16];
	struct trawl_ctl_list *l;

	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	memset(longpath, 'p', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	CHECK(trawl_ctl_session_attr_set_name(a, "bad/name") == -EINVAL);
	CHECK(trawl_ctl_session_attr_set_name(a, longname) == -ENAMETOOLONG);
	CHECK(trawl_ctl_session_attr_set_output(a, "ftp://host/x") == -EINVAL);
	CHECK(trawl_ctl_session_attr_set_output(a, longpath) == -ENAMETOOLONG);
	CHECK(trawl_ctl_session_attr_set_output(a, "file://") == -EINVAL);

	/* A relative folder is the caller's: made absolute against its cwd. */
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(want, sizeof(want), "%s/rel-out", cwd);
	CHECK(trawl_ctl_session_attr_set_name(a, "rel") == 0);
	CHECK(trawl_ctl_session_attr_set_output(a, "rel-out") == 0);
	CHECK(trawl_ctl_session_create(ctl, a, &l) == 0);
	CHECK(trawl_ctl_list_count(l) == 1 && trawl_ctl_list_session_at(l, 0, &s) == 0);
	CHECK(!strcmp(s.name, "rel") && !strcmp(s.output, want));
	trawl_ctl_list_destroy(l);
	CHECK(trawl_ctl_session_destroy(ctl, "rel") == 0);
	trawl_ctl_session_attr_destroy(a);

	/* Every default: the daemon names it, the output is under $HOME. */
	CHECK(trawl_ctl_session_create(ctl, NULL, &l) == 0);
	s.struct_size = sizeof(s);
	CHECK(trawl_ctl_list_session_at(l, 0, &s) == 0);
	CHECK(!strncmp(s.name, "auto-", 5));
	snprintf(want, sizeof(want), "%s/trawl-traces/%s", getenv("HOME"), s.name);
	CHECK(!strcmp(s.output, want));
	CHECK(trawl_ctl_session_destroy(ctl, s.name) == 0);
	trawl_ctl_list_destroy(l);

	/* Live: nothing listens on port 1. As LTTng's, the create does not
	 * need trawl-relayd; the start does, and says where it is. */
	a = trawl_ctl_session_attr_create();
	trawl_ctl_session_attr_set_name(a, "live");
	trawl_ctl_session_attr_set_output(a, "net://127.0.0.1:1:2");
	trawl_ctl_session_attr_set_live(a, 5000);
	CHECK(trawl_ctl_session_create(ctl, a, NULL) == 0);
	/* as LTTng's, a session with no channel does not start */
	CHECK(trawl_ctl_session_start(ctl, "live") == -ENOENT);
	CHECK(strstr(trawl_ctl_last_error(ctl), "no channel") != NULL);
	{
		struct trawl_ctl_channel_attr *ca = trawl_ctl_channel_attr_create("c");

		CHECK(ca && trawl_ctl_channel_enable(ctl, "live", TRAWL_CTL_DOMAIN_UST, ca) == 0);
		trawl_ctl_channel_attr_destroy(ca);
	}
	CHECK(trawl_ctl_session_start(ctl, "live") < 0);
	CHECK(strstr(trawl_ctl_last_error(ctl), "127.0.0.1") != NULL);
	CHECK(trawl_ctl_session_destroy(ctl, "live") == 0);
	trawl_ctl_session_attr_destroy(a);
}

/* Record @i must be a CHANNEL named "chan" with every attribute as set. */
static void check_channel(const struct trawl_ctl_list *l, size_t i)
{
	struct trawl_ctl_channel_info c = {.struct_size = sizeof(c)};

	CHECK(trawl_ctl_list_channel_at(l, i, &c) == 0);
	CHECK(c.struct_size == sizeof(c));
	CHECK(c.domain == TRAWL_CTL_DOMAIN_UST && !strcmp(c.name, "chan") && c.enabled == 1);
	CHECK(c.subbuf_size == 65536 && c.num_subbuf == 8 && c.overwrite == 1);
	CHECK(c.switch_timer_us == 100000 && c.read_timer_us == 2000);
	CHECK(c.buffers == TRAWL_CTL_BUFFERS_PER_PID);
}

/* The records' struct_size rules, on record @i (a CHANNEL). */
static void check_struct_size(const struct trawl_ctl_list *l, size_t i)
{
	struct {
		struct trawl_ctl_channel_info c;
		uint64_t newer; /* a field a later version would add */
	} big;
	union {
		struct trawl_ctl_channel_info c;
		unsigned char b[sizeof(struct trawl_ctl_channel_info)];
	} old;
	size_t k, cut = offsetof(struct trawl_ctl_channel_info, subbuf_size);

	/* An older caller knows fewer fields: only those are written. */
	memset(&old, 0xa5, sizeof(old));
	old.c.struct_size = (uint32_t)cut;
	CHECK(trawl_ctl_list_channel_at(l, i, &old.c) == 0);
	CHECK(old.c.struct_size == cut && !strcmp(old.c.name, "chan") && old.c.overwrite == 1);
	for (k = cut; k < sizeof(old); k++)
		CHECK(old.b[k] == 0xa5);
	/* A newer caller learns how much this library filled. */
	memset(&big, 0, sizeof(big));
	big.newer = 42;
	big.c.struct_size = sizeof(big);
	CHECK(trawl_ctl_list_channel_at(l, i, &big.c) == 0);
	CHECK(big.c.struct_size == sizeof(big.c) && big.newer == 42 && big.c.num_subbuf == 8);
	/* Misuse. */
	big.c.struct_size = 0;
	CHECK(trawl_ctl_list_channel_at(l, i, &big.c) == -EINVAL);
	big.c.struct_size = sizeof(big.c);
	CHECK(trawl_ctl_list_channel_at(l, 0, &big.c) == -EINVAL); /* a SESSION */
	CHECK(trawl_ctl_list_channel_at(l, trawl_ctl_list_count(l), &big.c) == -ERANGE);
	CHECK(trawl_ctl_list_kind(l, trawl_ctl_list_count(l)) == TRAWL_CTL_ITEM_NONE);
}

static void check_event(const struct trawl_ctl_event_info *e, int *seen)
{
	CHECK(e->domain == TRAWL_CTL_DOMAIN_UST && !strcmp(e->channel, "chan"));
	CHECK(e->kind == TRAWL_CTL_EVENT_TRACEPOINT && !strcmp(e->target, ""));
	if (!strcmp(e->name, "prov:*")) {
		seen[0]++;
		CHECK(e->loglevel_type == TRAWL_CTL_LOGLEVEL_RANGE && e->loglevel == 4);
		CHECK(!strcmp(e->filter, "x > 2 && y == \"z\"") && e->enabled == 1);
	} else if (!strcmp(e->name, "other:ev")) {
		seen[1]++;
		CHECK(e->loglevel_type == TRAWL_CTL_LOGLEVEL_SINGLE && e->loglevel == 14);
		CHECK(!strcmp(e->filter, "") && e->enabled == 0);
	} else {
		CHECK(!"unexpected event");
	}
}

/* `list SESSION`: the order of records and every field of each. */
static void check_session_list(struct trawl_ctl *ctl, const char *out)
{
	struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};
	struct trawl_ctl_domain_info d = {.struct_size = sizeof(d)};
	struct trawl_ctl_context_info x = {.struct_size = sizeof(x)};
	struct trawl_ctl_event_info e = {.struct_size = sizeof(e)};
	struct trawl_ctl_list *l;
	int seen[2] = {0, 0};
	size_t i, n;

	CHECK(trawl_ctl_list_session(ctl, "api", &l) == 0);
	n = trawl_ctl_list_count(l);
	CHECK(n == 9);
	if (n != 9) {
		trawl_ctl_list_destroy(l);
		return;
	}
	CHECK(trawl_ctl_list_kind(l, 0) == TRAWL_CTL_ITEM_SESSION);
	CHECK(trawl_ctl_list_session_at(l, 0, &s) == 0);
	CHECK(!strcmp(s.name, "api") && !strcmp(s.output, out) && s.active == 0 &&
	      s.snapshot == 0 && s.live_timer_us == 0 && s.uid == geteuid());
	CHECK(trawl_ctl_list_domain_at(l, 1, &d) == 0);
	CHECK(d.domain == TRAWL_CTL_DOMAIN_UST && d.consumer_alive == 1 && d.problem);
	/* user space's three trackers, including all by default */
	for (i = 2; i < 5; i++) {
		struct trawl_ctl_tracker_info t = {.struct_size = sizeof(t)};

		CHECK(trawl_ctl_list_tracker_at(l, i, &t) == 0);
		CHECK(t.domain == TRAWL_CTL_DOMAIN_UST && t.include_all == 1 && t.nr_values == 0);
		CHECK(t.process_attr == (i == 2   ? TRAWL_CTL_PROCESS_ATTR_VPID
					 : i == 3 ? TRAWL_CTL_PROCESS_ATTR_VUID
						  : TRAWL_CTL_PROCESS_ATTR_VGID));
	}
	CHECK(trawl_ctl_list_kind(l, 5) == TRAWL_CTL_ITEM_CHANNEL);
	check_channel(l, 5);
	check_struct_size(l, 5);
	CHECK(trawl_ctl_list_context_at(l, 6, &x) == 0);
	CHECK(x.domain == TRAWL_CTL_DOMAIN_UST && !strcmp(x.channel, "chan") &&
	      !strcmp(x.name, "vpid"));
	for (i = 7; i < 9; i++) {
		CHECK(trawl_ctl_list_event_at(l, i, &e) == 0);
		check_event(&e, seen);
	}
	CHECK(seen[0] == 1 && seen[1] == 1);
	trawl_ctl_list_destroy(l);
}

/* Trackers: the calls' results, then the records `list SESSION` returns. */
static void check_trackers(struct trawl_ctl *ctl)
{
	const enum trawl_ctl_domain u = TRAWL_CTL_DOMAIN_UST;
	struct trawl_ctl_tracker_value_info v = {.struct_size = sizeof(v)};
	struct trawl_ctl_tracker_info t = {.struct_size = sizeof(t)};
	struct trawl_ctl_list *l;

	CHECK(trawl_ctl_track(ctl, "api", u, TRAWL_CTL_PROCESS_ATTR_VPID, 42) == 0);
	CHECK(trawl_ctl_track(ctl, "api", u, TRAWL_CTL_PROCESS_ATTR_VPID, 7) == 0);
	CHECK(trawl_ctl_track(ctl, "api", u, TRAWL_CTL_PROCESS_ATTR_VPID, 42) == -EEXIST);
	CHECK(trawl_ctl_untrack(ctl, "api", u, TRAWL_CTL_PROCESS_ATTR_VPID, 5) == -ENXIO);
	CHECK(trawl_ctl_untrack(ctl, "api", u, TRAWL_CTL_PROCESS_ATTR_VUID, 5) == -ENXIO);
	CHECK(trawl_ctl_track(ctl, "api", u, TRAWL_CTL_PROCESS_ATTR_UID, 5) == -EINVAL);
	CHECK(strstr(trawl_ctl_last_error(ctl), "user ID") != NULL);
	CHECK(trawl_ctl_track(ctl, "api", u, TRAWL_CTL_PROCESS_ATTR_VPID, UINT32_MAX) == -EINVAL);
	CHECK(trawl_ctl_track(ctl, "api", u, (enum trawl_ctl_process_attr)6, 1) == -EINVAL);
	CHECK(trawl_ctl_track(ctl, "nosuch", u, TRAWL_CTL_PROCESS_ATTR_VPID, 1) == -ENOENT);
	CHECK(trawl_ctl_untrack_all(ctl, "api", u, TRAWL_CTL_PROCESS_ATTR_VGID) == 0);
	CHECK(!strcmp(trawl_ctl_process_attr_name(TRAWL_CTL_PROCESS_ATTR_VGID), "virtual group ID"));
	CHECK(trawl_ctl_process_attr_name((enum trawl_ctl_process_attr)6) == NULL);
	CHECK(trawl_ctl_list_session(ctl, "api", &l) == 0);
	if (trawl_ctl_list_count(l) < 9) {
		CHECK(!"too few records");
		trawl_ctl_list_destroy(l);
		return;
	}
	/* session, domain, VPID {7, 42}, VUID all, VGID none */
	CHECK(trawl_ctl_list_tracker_at(l, 2, &t) == 0 && t.include_all == 0 && t.nr_values == 2);
	CHECK(trawl_ctl_list_tracker_value_at(l, 3, &v) == 0 && v.value == 7 &&
	      v.process_attr == TRAWL_CTL_PROCESS_ATTR_VPID && v.domain == u);
	CHECK(trawl_ctl_list_tracker_value_at(l, 4, &v) == 0 && v.value == 42);
	CHECK(trawl_ctl_list_tracker_at(l, 5, &t) == 0 && t.include_all == 1);
	CHECK(trawl_ctl_list_tracker_at(l, 6, &t) == 0 && t.include_all == 0 &&
	      t.nr_values == 0 && t.process_attr == TRAWL_CTL_PROCESS_ATTR_VGID);
	CHECK(trawl_ctl_list_tracker_at(l, 7, &t) == -EINVAL); /* the channel */
	trawl_ctl_list_destroy(l);
	CHECK(trawl_ctl_track_all(ctl, "api", u, TRAWL_CTL_PROCESS_ATTR_VPID) == 0);
	CHECK(trawl_ctl_track_all(ctl, "api", u, TRAWL_CTL_PROCESS_ATTR_VGID) == 0);
}

static void setup_ust(struct trawl_ctl *ctl)
{
	struct trawl_ctl_channel_attr *attr = trawl_ctl_channel_attr_create("chan");
	struct trawl_ctl_event *ev;

	CHECK(trawl_ctl_channel_attr_create("bad/chan") == NULL && errno == EINVAL);
	CHECK(attr != NULL);
	CHECK(trawl_ctl_channel_attr_set_subbuf_size(attr, 3000) == -EINVAL);
	CHECK(trawl_ctl_channel_attr_set_subbuf_size(attr, 65536) == 0);
	CHECK(trawl_ctl_channel_attr_set_num_subbuf(attr, 8) == 0);
	CHECK(trawl_ctl_channel_attr_set_overwrite(attr, 1) == 0);
	CHECK(trawl_ctl_channel_attr_set_switch_timer(attr, 100000) == 0);
	CHECK(trawl_ctl_channel_attr_set_read_timer(attr, 2000) == 0);
	CHECK(trawl_ctl_channel_attr_set_buffers(attr, (enum trawl_ctl_buffers)99) == -EINVAL);
	CHECK(trawl_ctl_channel_attr_set_buffers(attr, TRAWL_CTL_BUFFERS_GLOBAL) == 0);
	CHECK(trawl_ctl_channel_enable(ctl, "api", TRAWL_CTL_DOMAIN_UST, attr) == -EINVAL);
	CHECK(strstr(trawl_ctl_last_error(ctl), "kernel only") != NULL);
	CHECK(trawl_ctl_channel_attr_set_buffers(attr, TRAWL_CTL_BUFFERS_PER_PID) == 0);
	CHECK(trawl_ctl_channel_enable(ctl, "api", TRAWL_CTL_DOMAIN_UST, attr) == 0);
	trawl_ctl_channel_attr_destroy(attr);

	ev = trawl_ctl_event_create(TRAWL_CTL_EVENT_TRACEPOINT, "prov:*");
	CHECK(ev != NULL);
	/* a user-space level out of 0..14 is refused when enabled (agent
	 * domains take their framework's levels) */
	CHECK(trawl_ctl_event_set_loglevel(ev, (enum trawl_ctl_loglevel_type)9, 1) == -EINVAL);
	CHECK(trawl_ctl_event_set_loglevel(ev, TRAWL_CTL_LOGLEVEL_RANGE, 99) == 0);
	CHECK(trawl_ctl_event_enable(ctl, "api", TRAWL_CTL_DOMAIN_UST, "chan", ev) == -EINVAL);
	CHECK(trawl_ctl_event_set_loglevel(ev, TRAWL_CTL_LOGLEVEL_RANGE,
					   trawl_ctl_loglevel_parse("TRACE_WARNING")) == 0);
	CHECK(trawl_ctl_event_set_filter(ev, "x > 2 && y == \"z\"") == 0);
	CHECK(trawl_ctl_event_enable(ctl, "api", TRAWL_CTL_DOMAIN_UST, "chan", ev) == 0);
	CHECK(trawl_ctl_event_enable(ctl, "api", TRAWL_CTL_DOMAIN_UST, "chan", ev) == -EEXIST);
	trawl_ctl_event_destroy(ev);
	ev = trawl_ctl_event_create(TRAWL_CTL_EVENT_TRACEPOINT, "other:ev");
	CHECK(trawl_ctl_event_set_loglevel(ev, TRAWL_CTL_LOGLEVEL_SINGLE, 14) == 0);
	CHECK(trawl_ctl_event_enable(ctl, "api", TRAWL_CTL_DOMAIN_UST, "chan", ev) == 0);
	CHECK(trawl_ctl_event_disable(ctl, "api", TRAWL_CTL_DOMAIN_UST, "chan", ev) == 0);
	trawl_ctl_event_destroy(ev);
	CHECK(trawl_ctl_context_add(ctl, "api", TRAWL_CTL_DOMAIN_UST, "chan", "vpid") == 0);
	CHECK(trawl_ctl_context_add(ctl, "api", TRAWL_CTL_DOMAIN_UST, "chan", "nosuch") == -EINVAL);
}

/* Snapshot outputs through the API: the default one, add, list, del, errors. */
static void test_snapshot_outputs(struct trawl_ctl *ctl, const char *dir)
{
	struct trawl_ctl_snapshot_output_info so = {.struct_size = sizeof(so)};
	struct trawl_ctl_snapshot_output *o = trawl_ctl_snapshot_output_create();
	struct trawl_ctl_list *l;
	char out[PATH_MAX], other[PATH_MAX];

	snprintf(out, sizeof(out), "%s-so", dir);
	snprintf(other, sizeof(other), "%s-so2", dir);
	CHECK(o != NULL);
	CHECK(create(ctl, "so", out, 1, NULL) == 0);
	CHECK(trawl_ctl_snapshot_list_outputs(ctl, "so", &l) == 0);
	CHECK(trawl_ctl_list_count(l) == 1);
	CHECK(trawl_ctl_list_snapshot_output_at(l, 0, &so) == 0);
	CHECK(so.id == 1 && !strcmp(so.name, "snapshot-1") && !strcmp(so.ctrl_url, out) &&
	      so.max_size == 0);
	trawl_ctl_list_destroy(l);
	CHECK(trawl_ctl_snapshot_add_output(ctl, "so", o, NULL) == -EINVAL); /* no URL */
	CHECK(trawl_ctl_snapshot_output_set_name(o, "bad/name") == -EINVAL);
	CHECK(trawl_ctl_snapshot_output_set_url(o, "ftp://x", NULL) == -EINVAL);
	CHECK(trawl_ctl_snapshot_output_set_url(o, other, "/tmp/data") == -EINVAL);
	CHECK(trawl_ctl_snapshot_output_set_url(o, other, NULL) == 0);
	CHECK(trawl_ctl_snapshot_output_set_name(o, "fr") == 0);
	CHECK(trawl_ctl_snapshot_output_set_max_size(o, 1u << 20) == 0);
	CHECK(trawl_ctl_snapshot_add_output(ctl, "so", o, NULL) == -EEXIST);
	CHECK(trawl_ctl_snapshot_del_output(ctl, "so", 2, NULL) == -EINVAL);
	CHECK(trawl_ctl_snapshot_del_output(ctl, "so", 0, "snapshot-1") == 0);
	CHECK(trawl_ctl_snapshot_add_output(ctl, "so", o, &l) == 0);
	CHECK(trawl_ctl_list_snapshot_output_at(l, 0, &so) == 0);
	CHECK(so.id == 2 && !strcmp(so.name, "fr") && !strcmp(so.ctrl_url, other) &&
	      so.max_size == 1u << 20);
	trawl_ctl_list_destroy(l);
	CHECK(trawl_ctl_snapshot_del_output(ctl, "so", 2, NULL) == 0);
	CHECK(trawl_ctl_snapshot_list_outputs(ctl, "so", &l) == 0);
	CHECK(trawl_ctl_list_count(l) == 0);
	trawl_ctl_list_destroy(l);
	CHECK(trawl_ctl_snapshot_record_output(ctl, "so", o, NULL) == -EBUSY); /* never started */
	CHECK(trawl_ctl_snapshot_list_outputs(ctl, "nosuch", &l) == -ENOENT);
	CHECK(trawl_ctl_session_destroy(ctl, "so") == 0);
	trawl_ctl_snapshot_output_destroy(o);
}

/* Kernel: a snapshot session's records, a snapshot, and the tracepoints' fields. */
static void test_kernel(struct trawl_ctl *ctl, const char *dir)
{
	struct trawl_ctl_snapshot_info snap = {.struct_size = sizeof(snap)};
	struct trawl_ctl_channel_info c = {.struct_size = sizeof(c)};
	struct trawl_ctl_available_info a = {.struct_size = sizeof(a)};
	struct trawl_ctl_field_info f = {.struct_size = sizeof(f)};
	struct trawl_ctl_channel_attr *attr;
	struct trawl_ctl_event *ev;
	struct trawl_ctl_list *l;
	char out[PATH_MAX];
	struct stat st;
	size_t i;
	int ret, found = 0, fields = 0;

	snprintf(out, sizeof(out), "%s-snap", dir);
	CHECK(create(ctl, "ksnap", out, 1, NULL) == 0);
	attr = trawl_ctl_channel_attr_create("kchan");
	ret = trawl_ctl_channel_enable(ctl, "ksnap", TRAWL_CTL_DOMAIN_KERNEL, attr);
	trawl_ctl_channel_attr_destroy(attr);
	if (ret) {
		printf("kernel part skipped: %s\n", trawl_ctl_last_error(ctl));
		trawl_ctl_session_destroy(ctl, "ksnap");
		return;
	}
	ev = trawl_ctl_event_create(TRAWL_CTL_EVENT_TRACEPOINT, "sched_switch");
	CHECK(trawl_ctl_event_enable(ctl, "ksnap", TRAWL_CTL_DOMAIN_KERNEL, "kchan", ev) == 0);
	trawl_ctl_event_destroy(ev);
	CHECK(trawl_ctl_list_session(ctl, "ksnap", &l) == 0);
	/* the channel after the domain's trackers */
	for (i = 0; i < trawl_ctl_list_count(l) && trawl_ctl_list_kind(l, i) != TRAWL_CTL_ITEM_CHANNEL; i++)
		;
	CHECK(trawl_ctl_list_channel_at(l, i, &c) == 0);
	/* Resolved defaults: a snapshot session's channels overwrite; the kernel's are global. */
	CHECK(c.overwrite == 1 && c.buffers == TRAWL_CTL_BUFFERS_GLOBAL && c.domain == TRAWL_CTL_DOMAIN_KERNEL);
	trawl_ctl_list_destroy(l);
	CHECK(trawl_ctl_session_start(ctl, "ksnap") == 0);
	usleep(100000);
	CHECK(trawl_ctl_snapshot_record(ctl, "ksnap", &l) == 0);
	CHECK(trawl_ctl_list_snapshot_at(l, 0, &snap) == 0);
	CHECK(!strcmp(snap.session, "ksnap") && snap.seq == 1 && !strncmp(snap.path, out, strlen(out)));
	CHECK(stat(snap.path, &st) == 0 && S_ISDIR(st.st_mode));
	trawl_ctl_list_destroy(l);
	CHECK(trawl_ctl_session_destroy(ctl, "ksnap") == 0);

	CHECK(trawl_ctl_list_available(ctl, TRAWL_CTL_DOMAIN_KERNEL, TRAWL_CTL_EVENT_TRACEPOINT, 1,
				       &l) == 0);
	for (i = 0; i < trawl_ctl_list_count(l); i++) {
		if (trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_AVAILABLE) {
			CHECK(trawl_ctl_list_available_at(l, i, &a) == 0);
			found |= !strcmp(a.name, "sched_switch") && a.kind == TRAWL_CTL_EVENT_TRACEPOINT;
		} else if (trawl_ctl_list_field_at(l, i, &f) == 0 && !strcmp(f.event, "sched_switch")) {
			CHECK(!strcmp(a.name, "sched_switch")); /* fields follow their event */
			fields += !strcmp(f.name, "prev_comm") || !strcmp(f.name, "next_tid"); /* LTTng's names */
		}
	}
	CHECK(found && fields == 2);
	trawl_ctl_list_destroy(l);
}

static void test_current(void)
{
	char buf[TRAWL_CTL_NAME_MAX], small[3];

	CHECK(trawl_ctl_current_session_set("bad/name") == -EINVAL);
	CHECK(trawl_ctl_current_session_set("api") == 0);
	CHECK(trawl_ctl_current_session_get(buf, sizeof(buf)) == 0 && !strcmp(buf, "api"));
	strcpy(small, "ok");
	CHECK(trawl_ctl_current_session_get(small, sizeof(small)) == -ERANGE);
	CHECK(!strcmp(small, "ok"));
	CHECK(trawl_ctl_current_session_clear("other") == 0);
	CHECK(trawl_ctl_current_session_get(buf, sizeof(buf)) == 0);
	CHECK(trawl_ctl_current_session_clear("api") == 0);
	CHECK(trawl_ctl_current_session_get(buf, sizeof(buf)) == -ENOENT);
}

/*
 * An agent domain (JUL): the rule's whole filter and level, its user-space
 * channel (the rule not listed there), disabled, and its level names.
 */
static void test_agent(struct trawl_ctl *ctl, const char *dir)
{
	struct trawl_ctl_event *ev = trawl_ctl_event_create(TRAWL_CTL_EVENT_TRACEPOINT, "org.x");
	struct trawl_ctl_list *l;
	size_t i;
	int level = 0, jul_events = 0, jul_domain = 0, jul_channel = 0, ust_events = 0;

	CHECK(trawl_ctl_agent_loglevel_parse(TRAWL_CTL_DOMAIN_JUL, "severe", &level) == 0 &&
	      level == TRAWL_CTL_JUL_SEVERE);
	CHECK(trawl_ctl_agent_loglevel_parse(TRAWL_CTL_DOMAIN_JUL, "ALL", &level) == -EINVAL);
	CHECK(trawl_ctl_agent_loglevel_parse(TRAWL_CTL_DOMAIN_UST, "INFO", &level) == -EINVAL);
	CHECK(!strcmp(trawl_ctl_agent_loglevel_name(TRAWL_CTL_DOMAIN_PYTHON, 20), "PYTHON_INFO"));
	CHECK(trawl_ctl_agent_loglevel_name(TRAWL_CTL_DOMAIN_LOG4J, 7) == NULL);
	CHECK(create(ctl, "agt", dir, 0, NULL) == 0);
	CHECK(ev && trawl_ctl_event_set_loglevel(ev, TRAWL_CTL_LOGLEVEL_RANGE,
						 TRAWL_CTL_JUL_SEVERE) == 0);
	CHECK(trawl_ctl_event_enable(ctl, "agt", TRAWL_CTL_DOMAIN_JUL, NULL, ev) == 0);
	CHECK(trawl_ctl_event_enable(ctl, "agt", TRAWL_CTL_DOMAIN_JUL, NULL, ev) == -EEXIST);
	CHECK(trawl_ctl_event_disable(ctl, "agt", TRAWL_CTL_DOMAIN_JUL, NULL, ev) == 0);
	CHECK(trawl_ctl_list_session(ctl, "agt", &l) == 0);
	for (i = 0; i < trawl_ctl_list_count(l); i++) {
		struct trawl_ctl_domain_info d = {.struct_size = sizeof(d)};
		struct trawl_ctl_channel_info c = {.struct_size = sizeof(c)};
		struct trawl_ctl_event_info e = {.struct_size = sizeof(e)};

		if (!trawl_ctl_list_domain_at(l, i, &d))
			jul_domain += d.domain == TRAWL_CTL_DOMAIN_JUL;
		if (!trawl_ctl_list_channel_at(l, i, &c))
			jul_channel += c.domain == TRAWL_CTL_DOMAIN_UST &&
				       !strcmp(c.name, "lttng_jul_channel");
		if (trawl_ctl_list_event_at(l, i, &e))
			continue;
		ust_events += e.domain == TRAWL_CTL_DOMAIN_UST;
		if (e.domain != TRAWL_CTL_DOMAIN_JUL)
			continue;
		jul_events++;
		CHECK(!strcmp(e.name, "org.x") && !e.enabled && e.loglevel == 1000 &&
		      e.loglevel_type == TRAWL_CTL_LOGLEVEL_RANGE &&
		      !strcmp(e.filter, "(logger_name == \"org.x\") && (int_loglevel >= 1000)"));
	}
	CHECK(jul_domain == 1 && jul_channel == 1 && jul_events == 1 && ust_events == 0);
	trawl_ctl_list_destroy(l);
	CHECK(trawl_ctl_event_enable(ctl, "agt", TRAWL_CTL_DOMAIN_JUL, NULL, ev) == 0);
	trawl_ctl_event_destroy(ev);
	ev = trawl_ctl_event_create(TRAWL_CTL_EVENT_SYSCALL, "x");
	CHECK(trawl_ctl_event_enable(ctl, "agt", TRAWL_CTL_DOMAIN_PYTHON, NULL, ev) == -EINVAL);
	trawl_ctl_event_destroy(ev);
	CHECK(trawl_ctl_session_destroy(ctl, "agt") == 0);
}

int main(int argc, char **argv)
{
	struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};
	struct trawl_ctl_list *l;
	struct trawl_ctl *ctl;
	size_t i;
	int ret, seen = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: api OUTPUT-DIR\n");
		return 2;
	}
	ret = trawl_ctl_connect(&ctl, 0);
	if (ret) {
		fprintf(stderr, "connect: %s\n", strerror(-ret));
		return 1;
	}
	test_session_attr(ctl);
	CHECK(create(ctl, "api", argv[1], 0, NULL) == 0);
	CHECK(create(ctl, "api", argv[1], 0, NULL) == -EEXIST);
	CHECK(strstr(trawl_ctl_last_error(ctl), "already exists") != NULL);
	CHECK(trawl_ctl_session_start(ctl, "nosuch") == -ENOENT);
	CHECK(trawl_ctl_snapshot_record(ctl, "api", NULL) == -EINVAL);
	CHECK(trawl_ctl_snapshot_list_outputs(ctl, "api", NULL) == -EINVAL);
	test_snapshot_outputs(ctl, argv[1]);

	/* Is the user-space domain built? Listing its events changes nothing. */
	ret = trawl_ctl_list_available(ctl, TRAWL_CTL_DOMAIN_UST, TRAWL_CTL_EVENT_TRACEPOINT, 0, &l);
	if (ret == -EOPNOTSUPP) {
		printf("SKIP: user-space domain not built\n");
		trawl_ctl_session_destroy(ctl, "api");
		trawl_ctl_disconnect(ctl);
		return 77;
	}
	CHECK(ret == 0);
	if (!ret)
		trawl_ctl_list_destroy(l);
	test_agent(ctl, argv[1]);
	setup_ust(ctl);
	check_session_list(ctl, argv[1]);
	check_trackers(ctl);
	check_session_list(ctl, argv[1]);

	CHECK(trawl_ctl_list_sessions(ctl, &l) == 0);
	for (i = 0; i < trawl_ctl_list_count(l); i++) {
		CHECK(trawl_ctl_list_session_at(l, i, &s) == 0);
		seen += !strcmp(s.name, "api");
	}
	CHECK(seen == 1);
	trawl_ctl_list_destroy(l);

	CHECK(trawl_ctl_session_start(ctl, "api") == 0);
	CHECK(trawl_ctl_session_start(ctl, "api") == -EBUSY);
	CHECK(trawl_ctl_list_session(ctl, "api", &l) == 0);
	CHECK(trawl_ctl_list_session_at(l, 0, &s) == 0 && s.active == 1);
	trawl_ctl_list_destroy(l);
	CHECK(trawl_ctl_session_stop(ctl, "api") == 0);
	CHECK(trawl_ctl_session_destroy(ctl, "api") == 0);
	CHECK(trawl_ctl_session_destroy(ctl, "api") == -ENOENT);

	if (trawl_ctl_is_root_daemon(ctl))
		test_kernel(ctl, argv[1]);
	test_current();
	CHECK(!strcmp(trawl_ctl_loglevel_name(14), "TRACE_DEBUG"));
	CHECK(trawl_ctl_loglevel_name(15) == NULL);
	CHECK(trawl_ctl_loglevel_parse("debug_line") == 13 && trawl_ctl_loglevel_parse("3") == 3);
	CHECK(trawl_ctl_loglevel_parse("TRACE_NOPE") == -EINVAL);
	CHECK(trawl_ctl_version()[0] != '\0');
	trawl_ctl_disconnect(ctl);
	return CHECK_EXIT();
}
