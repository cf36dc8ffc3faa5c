/* SPDX-License-Identifier: MIT */
/*
 * tracefs instances: one per session channel (see kernel.h for the naming and
 * cleanup rules). We write the few control files ourselves rather than through
 * libtracefs's instance API because we must be sure which files are opened:
 * libtracefs helpers may read or reset files we promised not to touch (the
 * function tracer's files answer EPERM on kernels that refuse the function
 * tracer, and the top-level instance belongs to the user).
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/kernel.h"
#include "kernel/internal.h"
#include "common/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static char tracefs_dir[256];
static pthread_once_t tracefs_once = PTHREAD_ONCE_INIT;
static int tracefs_err;

static void tracefs_find(void)
{
	FILE *f = fopen("/proc/mounts", "re");
	char dev[256], dir[256], type[64];

	if (f) {
		while (fscanf(f, "%255s %255s %63s %*s %*d %*d", dev, dir, type) == 3) {
			/* fscanf() took at most 255 bytes: it fits. */
			if (!strcmp(type, "tracefs") &&
			    !trawl_path_fmt(tracefs_dir, sizeof(tracefs_dir), "%s", dir))
				break;
		}
		fclose(f);
	}
	if (tracefs_dir[0])
		return;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) < 0) {
		tracefs_err = errno;
		return;
	}
	snprintf(tracefs_dir, sizeof(tracefs_dir), "/sys/kernel/tracing");
}

const char *trawl_kernel_tracefs_dir(void)
{
	pthread_once(&tracefs_once, tracefs_find);
	if (!tracefs_dir[0]) {
		errno = tracefs_err ? tracefs_err : ENOENT;
		return NULL;
	}
	return tracefs_dir;
}

int trawl_kernel_path(char *buf, size_t len, const char *rel)
{
	const char *dir = trawl_kernel_tracefs_dir();
	int n;

	if (!dir)
		return -errno;
	n = snprintf(buf, len, "%s/%s", dir, rel);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int trawl_kernel_read_file(const char *rel, char *buf, size_t len)
{
	char path[512];
	size_t got = 0;
	int fd, ret;

	ret = trawl_kernel_path(path, sizeof(path), rel);
	if (ret < 0)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			close(fd);
			return ret;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	close(fd);
	return (int)got;
}

int trawl_kernel_write_file(const char *rel, const char *val, int append)
{
	char path[512];
	size_t len = strlen(val);
	int fd, ret;
	ssize_t n;

	ret = trawl_kernel_path(path, sizeof(path), rel);
	if (ret < 0)
		return ret;
	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	/*
	 * A signal can make tracefs give up a long write with EINTR (enabling
	 * every kernel event: ~2,300 of them, seen in a loaded CI run as
	 * "cannot enable all kernel events: Interrupted system call"). It is
	 * written again: an enable or a filter written twice is the same state,
	 * and a probe definition the kernel already took is refused (EEXIST)
	 * in one line rather than doubled.
	 */
	for (int tries = 0;; tries++) {
		n = write(fd, val, len);
		if (n >= 0 || errno != EINTR || tries == 100)
			break;
	}
	ret = n < 0 ? -errno : ((size_t)n == len ? 0 : -EIO);
	close(fd);
	return ret;
}

/* Parses "trawl-<pid>-..." (instances) or "trawl_<pid>" (probe groups); 0 if not ours. */
pid_t trawl_kernel_owner_pid(const char *name)
{
	char *end;
	long pid;

	if (strncmp(name, "trawl", 5) || (name[5] != '-' && name[5] != '_'))
		return 0;
	pid = strtol(name + 6, &end, 10);
	if (end == name + 6 || pid <= 0 || (*end != '-' && *end != '_' && *end != '\0' && *end != '/'))
		return 0;
	return (pid_t)pid;
}

/* A killed daemon may stay a zombie until its parent reaps it: that is dead too. */
int trawl_kernel_pid_alive(pid_t pid)
{
	char path[64], buf[256], *p;
	int fd;
	ssize_t n;

	if (kill(pid, 0) < 0 && errno != EPERM)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

static int remove_dead_instances(void)
{
	char path[512];
	struct dirent *de;
	DIR *d;
	int removed = 0, ret;

	ret = trawl_kernel_path(path, sizeof(path), "instances");
	if (ret < 0)
		return ret;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t pid = trawl_kernel_owner_pid(de->d_name);
		char rel[512];

		if (pid <= 0 || trawl_kernel_pid_alive(pid))
			continue;
		/* A name too long for trawl's own instances is not one of them. */
		if (trawl_path_fmt(rel, sizeof(rel), "instances/%s/tracing_on", de->d_name))
			continue;
		trawl_kernel_write_file(rel, "0", 0);
		if (trawl_path_fmt(rel, sizeof(rel), "instances/%s/events/enable", de->d_name))
			continue;
		trawl_kernel_write_file(rel, "0", 0);
		if (trawl_path_fmt(rel, sizeof(rel), "instances/%s", de->d_name))
			continue;
		if (trawl_kernel_path(path, sizeof(path), rel) == 0 && rmdir(path) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}

/* Removes the dynamic events of group trawl_<pid> from @file (uprobe_events, kprobe_events). */
int trawl_kernel_dynevents_remove(const char *file, pid_t only_pid)
{
	char buf[65536], *line, *save = NULL;
	int removed = 0, ret;

	ret = trawl_kernel_read_file(file, buf, sizeof(buf));
	if (ret < 0)
		return ret == -ENOENT ? 0 : ret;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* "p:trawl_123/name /path:0x..." */
		char *ev = strchr(line, ':'), *sp, cmd[256];
		pid_t pid;

		if (!ev)
			continue;
		ev++;
		sp = strchr(ev, ' ');
		if (sp)
			*sp = '\0';
		pid = trawl_kernel_owner_pid(ev);
		if (pid <= 0)
			continue;
		if (only_pid ? pid != only_pid : trawl_kernel_pid_alive(pid))
			continue;
		/* A cut command would remove another event: a name too long is not ours. */
		if (trawl_path_fmt(cmd, sizeof(cmd), "-:%s\n", ev))
			continue;
		if (trawl_kernel_write_file(file, cmd, 1) == 0)
			removed++;
	}
	return removed;
}

int trawl_kernel_cleanup_dead(void)
{
	int a, b, c;

	a = remove_dead_instances();
	if (a < 0)
		return a;
	b = trawl_kernel_dynevents_remove("uprobe_events", 0);
	c = trawl_kernel_dynevents_remove("kprobe_events", 0);
	return a + (b > 0 ? b : 0) + (c > 0 ? c : 0);
}

static void sanitize(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++) {
		char c = src[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == '_' || c == '.';
		dst[i] = ok ? c : '_';
	}
	dst[i] = '\0';
}

int trawl_kernel_instance_write(struct trawl_kernel_instance *inst, const char *file,
				const char *val)
{
	char rel[512];
	int ret = trawl_path_fmt(rel, sizeof(rel), "%s/%s", inst->path, file);

	if (ret)
		return ret;
	return trawl_kernel_write_file(rel, val, 0);
}

int trawl_kernel_instance_create(const char *session, const char *channel,
				 const struct trawl_kernel_channel_attr *attr,
				 struct trawl_kernel_instance **out)
{
	static unsigned seq; /* instances this process made */
	struct trawl_kernel_instance *inst;
	char s[64], c[64], path[512], val[32];
	uint64_t size;
	int ret;

	inst = calloc(1, sizeof(*inst));
	if (!inst)
		return -ENOMEM;
	sanitize(s, sizeof(s), session ? session : "s");
	sanitize(c, sizeof(c), channel ? channel : "channel0");
	/*
	 * The names are cut and their odd characters replaced: two sessions
	 * (of two users of the root daemon, say) can come out the same. The
	 * sequence number keeps every instance of this process its own.
	 */
	ret = trawl_path_fmt(inst->name, sizeof(inst->name), "trawl-%d-%u-%s-%s", (int)getpid(),
			     ++seq, s, c);
	if (!ret)
		ret = trawl_path_fmt(inst->path, sizeof(inst->path), "instances/%s", inst->name);
	if (!ret)
		ret = trawl_kernel_path(path, sizeof(path), inst->path);
	if (ret < 0)
		goto err_free;
	if (mkdir(path, 0700) < 0) {
		ret = -errno;
		goto err_free;
	}
	inst->created = 1;
	/* A new instance starts with tracing on: stop it before anything is enabled. */
	ret = trawl_kernel_instance_write(inst, "tracing_on", "0");
	if (ret < 0)
		goto err_rmdir;
	ret = trawl_kernel_instance_write(inst, "trace_clock", "mono");
	if (ret < 0)
		goto err_rmdir;
	ret = trawl_kernel_instance_write(inst, "options/overwrite", attr && attr->overwrite ? "1" : "0");
	if (ret < 0)
		goto err_rmdir;
	inst->overwrite = attr && attr->overwrite;
	if (attr && attr->subbuf_size >= 4096) {
		/* Older kernels lack buffer_subbuf_size_kb: keep their 4 KiB pages. */
		snprintf(val, sizeof(val), "%llu", (unsigned long long)(attr->subbuf_size / 1024));
		trawl_kernel_instance_write(inst, "buffer_subbuf_size_kb", val);
	}
	size = attr && attr->buffer_size ? attr->buffer_size : 4u << 20;
	snprintf(val, sizeof(val), "%llu", (unsigned long long)(size / 1024));
	ret = trawl_kernel_instance_write(inst, "buffer_size_kb", val);
	if (ret < 0)
		goto err_rmdir;
	*out = inst;
	return 0;

err_rmdir:
	rmdir(path);
err_free:
	free(inst);
	return ret;
}

const char *trawl_kernel_instance_name(const struct trawl_kernel_instance *inst)
{
	return inst->name;
}

const char *trawl_kernel_instance_path(const struct trawl_kernel_instance *inst)
{
	return inst->path;
}

int trawl_kernel_instance_set_tracing(struct trawl_kernel_instance *inst, int on)
{
	return trawl_kernel_instance_write(inst, "tracing_on", on ? "1" : "0");
}

void trawl_kernel_instance_destroy(struct trawl_kernel_instance *inst)
{
	char path[512];

	if (!inst)
		return;
	if (inst->created) {
		trawl_kernel_instance_write(inst, "tracing_on", "0");
		trawl_kernel_instance_write(inst, "events/enable", "0");
		if (trawl_kernel_path(path, sizeof(path), inst->path) == 0)
			rmdir(path);
	}
	/* Our dynamic events are shared by the daemon's instances: remove only this one's. */
	trawl_kernel_probes_release(inst);
	trawl_kernel_rules_free(inst);
	free(inst);
}

/* Calls @fn(system, event) for every tracepoint of the instance. Stops on a non-zero return. */
int trawl_kernel_foreach_event(const char *events_rel,
			       int (*fn)(const char *sys, const char *ev, void *arg), void *arg)
{
	char path[512];
	struct dirent *sd;
	DIR *d;
	int ret = 0;

	ret = trawl_kernel_path(path, sizeof(path), events_rel);
	if (ret < 0)
		return ret;
	d = opendir(path);
	if (!d)
		return -errno;
	while (!ret && (sd = readdir(d))) {
		char sub[768];
		struct dirent *ed;
		DIR *e;

		if (sd->d_name[0] == '.' || (sd->d_type != DT_DIR && sd->d_type != DT_UNKNOWN))
			continue;
		if (trawl_path_fmt(sub, sizeof(sub), "%s/%s", path, sd->d_name)) {
			ret = -ENAMETOOLONG;
			break;
		}
		e = opendir(sub);
		if (!e)
			continue;
		while (!ret && (ed = readdir(e))) {
			if (ed->d_name[0] == '.' || (ed->d_type != DT_DIR && ed->d_type != DT_UNKNOWN))
				continue;
			if (ed->d_type == DT_UNKNOWN) {
				struct stat st;

				if (fstatat(dirfd(e), ed->d_name, &st, 0) < 0 || !S_ISDIR(st.st_mode))
					continue;
			}
			ret = fn(sd->d_name, ed->d_name, arg);
		}
		closedir(e);
	}
	closedir(d);
	return ret;
}

struct enable_ctx {
	struct trawl_kernel_instance *inst;
	const char *pattern;
	const char *value;    /* "1", "0", or a filter */
	const char *file;     /* "enable" or "filter" */
	int syscalls;         /* match syscall names */
	int count;
	int never;            /* of count: events given NEVER_FILTER instead */
	int error;
};

int trawl_kernel_event_matches(const char *pattern, int syscalls, const char *sys, const char *ev)
{
	char full[512], lttng_name[256];

	if (syscalls) {
		const char *name = trawl_kernel_syscall_of(sys, ev);

		return name && !fnmatch(pattern, name, 0);
	}
	/* ftrace's own "events" describe tracer entries and cannot be enabled;
	 * raw_syscalls duplicates the syscalls system (LTTng has no such
	 * events): "*" (-k --all) leaves it out. */
	if (!strcmp(sys, "ftrace") || (!strcmp(pattern, "*") && !strcmp(sys, "raw_syscalls")))
		return 0;
	/* Two folder names (at most 255 bytes each) fit in @full. */
	if (trawl_path_fmt(full, sizeof(full), "%s:%s", sys, ev))
		return -ENAMETOOLONG;
	if (trawl_kernel_event_ctf_name(sys, ev, lttng_name, sizeof(lttng_name)))
		return -ENAMETOOLONG;
	return !fnmatch(pattern, ev, 0) || !fnmatch(pattern, full, 0) ||
	       !fnmatch(pattern, lttng_name, 0);
}

static int enable_one(const char *sys, const char *ev, void *arg)
{
	struct enable_ctx *c = arg;
	char rel[768];
	int ret;

	ret = trawl_kernel_event_matches(c->pattern, c->syscalls, sys, ev);
	if (ret <= 0)
		return ret;
	ret = trawl_path_fmt(rel, sizeof(rel), "%s/events/%s/%s/%s", c->inst->path, sys, ev,
			     c->file);
	if (!ret)
		ret = trawl_kernel_write_file(rel, c->value, 0);
	/* The filter is within ftrace's grammar (enable_common()), so EINVAL
	 * is this event's fields or their types. */
	if (ret == -EINVAL && !strcmp(c->file, "filter")) {
		ret = trawl_kernel_write_file(rel, NEVER_FILTER, 0);
		c->never += ret == 0;
	}
	if (ret < 0) {
		if (!c->error)
			c->error = ret;
		return 0;
	}
	c->count++;
	return 0;
}

static int enable_common(struct trawl_kernel_instance *inst, const char *pattern, const char *file,
			 const char *value, int syscalls, char *err, size_t errlen)
{
	struct enable_ctx c = { inst, pattern, value, file, syscalls, 0, 0, 0 };
	char rel[512];
	int ret;

	/*
	 * @pattern only selects folders we list (fnmatch), it is never
	 * written; a filter is written as given, so it must be ftrace's
	 * grammar and nothing more.
	 */
	ret = trawl_kernel_check_event_pattern(pattern, err, errlen);
	if (ret == 0 && !strcmp(file, "filter"))
		ret = trawl_kernel_check_filter(value, err, errlen);
	if (ret < 0)
		return ret;
	if (!syscalls && !strcmp(pattern, "*") && !strcmp(file, "enable")) {
		/* One write enables every event, syscalls included (LTTng's -k --all). */
		ret = trawl_kernel_instance_write(inst, "events/enable", value);
		if (ret < 0) {
			trawl_msg_fmt(err, errlen, "cannot enable all kernel events: %s",
				      strerror(-ret));
			return ret;
		}
		/*
		 * raw_syscalls duplicates every syscall event of the syscalls
		 * system (LTTng has no such events): keep it out of --all.
		 */
		if (value[0] == '1')
			trawl_kernel_instance_write(inst, "events/raw_syscalls/enable", "0");
		return 1;
	}
	ret = trawl_path_fmt(rel, sizeof(rel), "%s/events", inst->path);
	if (!ret)
		ret = trawl_kernel_foreach_event(rel, enable_one, &c);
	if (ret < 0) {
		trawl_msg_fmt(err, errlen, "cannot list kernel events: %s", strerror(-ret));
		return ret;
	}
	if (c.count == 0) {
		if (c.error && !strcmp(file, "filter")) {
			trawl_msg_fmt(err, errlen,
				      "the kernel refused the filter \"%s\" on %s (ftrace syntax: "
				      "FIELD OP VALUE joined by && and ||)",
				      value, pattern);
			return c.error;
		}
		if (c.error) {
			trawl_msg_fmt(err, errlen, "kernel event %s%s: %s",
				      syscalls ? "syscall " : "", pattern, strerror(-c.error));
			return c.error;
		}
		trawl_msg_fmt(err, errlen, "no kernel %s matches \"%s\"",
			      syscalls ? "syscall" : "event", pattern);
		return -ENOENT;
	}
	if (c.never)
		trawl_log(TRAWL_LOG_INFO, "filter \"%s\": %d of the %d kernel events matching %s "
			  "lack its fields (or their types): they are never recorded",
			  value, c.never, c.count, pattern);
	return c.count;
}

int trawl_kernel_instance_enable_event(struct trawl_kernel_instance *inst, const char *pattern,
				       int enable, char *err, size_t errlen)
{
	/* LTTng's state dump events are the consumer's, not tracefs's (statedump.c) */
	int sd = trawl_kernel_statedump_enable(inst, pattern, enable);
	int ret;

	if (sd && !strncmp(pattern, "lttng_statedump", 15))
		return sd;
	ret = enable_common(inst, pattern, "enable", enable ? "1" : "0", 0, err, errlen);
	if (ret == -ENOENT && sd) {
		err[0] = '\0';
		return sd;
	}
	return ret < 0 ? ret : ret + sd;
}

int trawl_kernel_instance_enable_syscall(struct trawl_kernel_instance *inst, const char *pattern,
					 int enable, char *err, size_t errlen)
{
	return enable_common(inst, pattern ? pattern : "*", "enable", enable ? "1" : "0", 1, err,
			     errlen);
}

int trawl_kernel_instance_set_filter(struct trawl_kernel_instance *inst, const char *pattern,
				     const char *filter, char *err, size_t errlen)
{
	return enable_common(inst, pattern, "filter", filter, 0, err, errlen);
}

int trawl_kernel_instance_set_syscall_filter(struct trawl_kernel_instance *inst,
					     const char *pattern, const char *filter, char *err,
					     size_t errlen)
{
	return enable_common(inst, pattern ? pattern : "*", "filter", filter, 1, err, errlen);
}
