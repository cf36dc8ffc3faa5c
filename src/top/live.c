/* SPDX-License-Identifier: MIT */
/*
 * trawltop's own live session (no TRACE_DIR), through <trawl/ctl.h>: a
 * kernel snapshot session (flight recorder, overwrite buffers) with the
 * scheduler's events, every system call and the pid/tid/procname contexts,
 * in a private folder. Each interval records a snapshot, reads only the
 * events after the previous interval's end (a time range), and deletes it.
 * The model carries over from one snapshot to the next (threads, fd
 * tables, who runs where), so each interval is exact as long as the
 * buffers hold an interval's events; when they did not (the oldest event
 * of a snapshot is after the previous interval's end), the interval says
 * so (m->overwritten). The session and the folder are removed on exit.
 */
#include "top_main.h"

#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trawl/ctl.h>

struct trawl_top_live {
	struct trawl_ctl *ctl;
	char name[64];
	char dir[64];		/* the session's output: ours, mode 0700 */
	int started;
	int64_t last_end;	/* the previous interval's end; 0 before the first */
};

static const char *const live_events[] = {
	"sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task",
	"sched_process_fork", "sched_process_exec", "sched_process_exit",
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) < 0 ? -1 : 0;
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int live_fail(struct trawl_top_live *l, int ret, const char *what, char *err,
		     size_t len)
{
	const char *why = l->ctl ? trawl_ctl_last_error(l->ctl) : "";

	snprintf(err, len, "%s: %s", what, why[0] ? why : strerror(-ret));
	return ret;
}

static int live_channel(struct trawl_top_live *l, char *err, size_t len)
{
	struct trawl_ctl_channel_attr *ch = trawl_ctl_channel_attr_create("trawltop");
	int ret;

	if (!ch)
		return -ENOMEM;
	/* 4 MiB per CPU: a busy second of system calls fits */
	trawl_ctl_channel_attr_set_subbuf_size(ch, 1 << 20);
	trawl_ctl_channel_attr_set_num_subbuf(ch, 4);
	ret = trawl_ctl_channel_enable(l->ctl, l->name, TRAWL_CTL_DOMAIN_KERNEL, ch);
	trawl_ctl_channel_attr_destroy(ch);
	return ret < 0 ? live_fail(l, ret, "cannot create the kernel channel", err, len) : 0;
}

static int live_enable(struct trawl_top_live *l, enum trawl_ctl_event_kind kind,
		       const char *name, char *err, size_t len)
{
	struct trawl_ctl_event *ev = trawl_ctl_event_create(kind, name);
	int ret;

	if (!ev)
		return -ENOMEM;
	ret = trawl_ctl_event_enable(l->ctl, l->name, TRAWL_CTL_DOMAIN_KERNEL, "trawltop", ev);
	trawl_ctl_event_destroy(ev);
	if (ret < 0 && ret != -EEXIST) {
		char what[96];

		snprintf(what, sizeof(what), "cannot enable %s", name);
		return live_fail(l, ret, what, err, len);
	}
	return 0;
}

static int live_setup(struct trawl_top_live *l, char *err, size_t len)
{
	static const char *const ctxs[] = { "pid", "tid", "procname" };
	struct trawl_ctl_session_attr *a = trawl_ctl_session_attr_create();
	int ret;

	if (!a)
		return -ENOMEM;
	trawl_ctl_session_attr_set_name(a, l->name);
	trawl_ctl_session_attr_set_output(a, l->dir);
	trawl_ctl_session_attr_set_snapshot(a, 1);
	ret = trawl_ctl_session_create(l->ctl, a, NULL);
	trawl_ctl_session_attr_destroy(a);
	if (ret < 0)
		return live_fail(l, ret, "cannot create a session", err, len);
	if ((ret = live_channel(l, err, len)) < 0)
		return ret;
	for (size_t i = 0; i < sizeof(live_events) / sizeof(live_events[0]); i++)
		if ((ret = live_enable(l, TRAWL_CTL_EVENT_TRACEPOINT, live_events[i], err, len)) < 0)
			return ret;
	if ((ret = live_enable(l, TRAWL_CTL_EVENT_SYSCALL, "*", err, len)) < 0)
		return ret;
	for (size_t i = 0; i < sizeof(ctxs) / sizeof(ctxs[0]); i++) {
		ret = trawl_ctl_context_add(l->ctl, l->name, TRAWL_CTL_DOMAIN_KERNEL, NULL, ctxs[i]);
		if (ret < 0 && ret != -EEXIST)
			return live_fail(l, ret, "cannot add the contexts", err, len);
	}
	ret = trawl_ctl_session_start(l->ctl, l->name);
	if (ret < 0)
		return live_fail(l, ret, "cannot start the session", err, len);
	l->started = 1;
	return 0;
}

int trawl_top_live_start(struct trawl_top_live **out, char *err, size_t len)
{
	struct trawl_top_live *l = calloc(1, sizeof(*l));
	const char *tmp;
	int ret;

	*out = l;
	if (!l)
		return -ENOMEM;
	snprintf(l->name, sizeof(l->name), "trawltop-%d", (int)getpid());
	/* the session's trace, in $TMPDIR as other programs' temporary files */
	tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	ret = snprintf(l->dir, sizeof(l->dir), "%s/trawltop-XXXXXX", tmp);
	ret = ret < 0 || (size_t)ret >= sizeof(l->dir) ? -ENAMETOOLONG : 0;
	if (!ret && !mkdtemp(l->dir))
		ret = -errno;
	if (ret) {
		l->dir[0] = 0;
		snprintf(err, len, "cannot make a folder in %s: %s", tmp, strerror(-ret));
		return ret;
	}
	ret = trawl_ctl_connect(&l->ctl, 0);
	if (ret < 0)
		return live_fail(l, ret, "cannot reach a session daemon", err, len);
	if (!trawl_ctl_is_root_daemon(l->ctl)) {
		snprintf(err, len, "a live view of the kernel needs root or group tracing "
				   "(or give a TRACE_DIR)");
		return -EACCES;
	}
	return live_setup(l, err, len);
}

void trawl_top_live_stop(struct trawl_top_live *l)
{
	if (!l)
		return;
	if (l->ctl && l->name[0])
		trawl_ctl_session_destroy(l->ctl, l->name);
	trawl_ctl_disconnect(l->ctl);
	if (l->dir[0])
		rm_tree(l->dir);
	free(l);
}

/* The folder of a new snapshot, in @path. */
static int live_snapshot(struct trawl_top_live *l, char *path, size_t len, char *err,
			 size_t errlen)
{
	struct trawl_ctl_list *list = NULL;
	struct trawl_ctl_snapshot_info si = { .struct_size = sizeof(si) };
	int ret = trawl_ctl_snapshot_record(l->ctl, l->name, &list);

	if (ret < 0)
		return live_fail(l, ret, "cannot record a snapshot", err, errlen);
	ret = trawl_ctl_list_snapshot_at(list, 0, &si);
	if (ret == 0 && (size_t)snprintf(path, len, "%s", si.path) >= len)
		ret = live_fail(l, -ENAMETOOLONG, "snapshot path too long", err, errlen);
	trawl_ctl_list_destroy(list);
	return ret;
}

int trawl_top_live_interval(struct trawl_top_live *l, struct trawl_top_model *m, char *err,
			    size_t errlen)
{
	struct trawl_top_source *src = NULL;
	char path[1100];
	const char *paths[1] = { path };
	int64_t begin, end;
	int ret = live_snapshot(l, path, sizeof(path), err, errlen);

	if (ret < 0)
		return ret;
	ret = trawl_top_source_open(paths, 1, &src);
	if (ret == 0 && l->last_end)
		ret = trawl_top_source_set_begin(src, l->last_end);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", path, trawl_top_source_error(src));
		goto out;
	}
	trawl_top_source_range(src, &begin, &end);
	m->overwritten = l->last_end && begin > l->last_end;
	if (!l->last_end)
		l->last_end = begin;
	if (end < l->last_end)
		end = l->last_end;	/* nothing new */
	ret = trawl_top_source_interval(src, m, l->last_end, end + 1 - l->last_end);
	if (ret == 0) {	/* nothing new: an empty interval */
		trawl_top_model_interval_begin(m, l->last_end, l->last_end);
		trawl_top_model_interval_end(m);
	}
	if (ret < 0)
		snprintf(err, errlen, "%s: %s", path, trawl_top_source_error(src));
	l->last_end = end + 1;
out:
	trawl_top_source_destroy(src);
	rm_tree(path);
	return ret < 0 ? ret : 0;
}
