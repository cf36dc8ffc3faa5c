/* SPDX-License-Identifier: MIT */
/*
 * Keeping the tracer out of its own kernel trace.
 *
 * Measured before this file existed (root daemon, `--syscall read,write`,
 * procname+tid contexts, 3 s of an idle 2-CPU machine): 112,570 events, of
 * which 112,544 came from the kernel consumer itself. Each read() of
 * trace_pipe_raw records its own sys_enter_read, so the buffer is never empty
 * when the next read() comes, and the consumer chased its own events forever
 * (~18,700 reads/s). A user looking at their system saw mostly the tracer.
 *
 * Every instance of a session gets, in its own `set_event_notrace_pid`
 * (Linux >= 5.8), the threads of:
 *   - the kernel consumer of the session (it is a child we just spawned);
 *   - every process running the same executable as this process (the root
 *     session daemon, or trawl-ktrace; also a user's own session daemon of
 *     the same installation) or as the consumer program (user-space and
 *     other kernel consumers).
 * Matching on the executable file (device and inode of /proc/PID/exe), not
 * on the process name, so that nobody can hide a program from a root trace
 * by calling it "trawl-consumerd". The `trawl` command itself is left
 * visible: it is what the user ran. The kernel's pid filter drops an event
 * when the current task is listed; sched_switch is dropped only when both
 * tasks are listed, so switches to and from trawl's daemons stay in the
 * trace. Threads or daemons that appear after the session started are not
 * hidden (the list is written again at every start).
 *
 * What it costs: the kernel checks the pid filter on every event of the
 * instance. Measured with bench/kernel (2 M getppid(), sys_enter/exit_getppid,
 * paired runs with and without, 15 pairs, twice, on a loaded 2-core VM): hiding
 * adds 71-80 ns per call, ~35-40 ns per event (an A/A control gave +26 ns, so
 * the noise is of that order); 64 KiB sub-buffers instead of 4 KiB changed
 * nothing (+4 ns). We keep hiding on: without it the consumer's own reads
 * fill the trace of any session that records read/splice/poll or sched
 * events. TRAWL_KERNEL_NOTRACE=off turns it off, to measure.
 *
 * Only the instance's own file is written; the top-level instance's is never
 * touched. Where the file is missing, the daemon says so once on stderr (its
 * log) and tracing goes on with trawl's processes visible.
 */
#define _GNU_SOURCE
#include "kernel/internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pidlist {
	char *text;  /* "tid tid ...", malloc'd */
	size_t len;
	size_t cap;
};

static int pidlist_add(struct pidlist *l, long tid)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%s%ld", l->len ? " " : "", tid);

	if (l->len + (size_t)n + 1 > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		char *t = realloc(l->text, cap);

		if (!t)
			return -ENOMEM;
		l->text = t;
		l->cap = cap;
	}
	memcpy(l->text + l->len, num, (size_t)n + 1);
	l->len += (size_t)n;
	return 0;
}

/* Adds every thread of @pid (its tids from /proc/PID/task). */
static int add_threads(struct pidlist *l, long pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	d = opendir(path);
	if (!d)
		return pidlist_add(l, pid); /* gone, or no procfs: the pid alone */
	while (ret == 0 && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			ret = pidlist_add(l, strtol(de->d_name, NULL, 10));
	closedir(d);
	return ret;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The tids of trawl's own processes (see the top of the file), space-separated. */
static int collect(struct pidlist *l, pid_t consumer, const char *consumer_path)
{
	struct stat self, cons, st;
	int have_self, have_cons, ret = 0;
	char path[64];
	struct dirent *de;
	DIR *d;

	have_self = stat("/proc/self/exe", &self) == 0;
	have_cons = consumer_path && stat(consumer_path, &cons) == 0;
	if (!have_self)
		ret = add_threads(l, getpid());
	if (ret == 0 && consumer > 0)
		ret = add_threads(l, consumer);
	d = opendir("/proc");
	if (!d)
		return ret;
	while (ret == 0 && (de = readdir(d))) {
		long pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtol(de->d_name, NULL, 10);
		if (pid == consumer)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
		if (stat(path, &st) < 0)
			continue; /* kernel thread, or gone */
		if ((have_self && same_file(&st, &self)) || (have_cons && same_file(&st, &cons)))
			ret = add_threads(l, pid);
	}
	closedir(d);
	return ret;
}

int trawl_kernel_instances_hide_tracer(struct trawl_kernel_instance *const *insts, int n,
				       pid_t consumer, const char *consumer_path)
{
	static int said_missing;
	struct pidlist l = { 0 };
	char rel[256];
	int i, ret;

	ret = collect(&l, consumer, consumer_path);
	if (ret < 0 || !l.len)
		goto out_free;
	for (i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "%s/set_event_notrace_pid", insts[i]->path);
		ret = trawl_kernel_write_file(rel, l.text, 0);
		if (ret == -ENOENT) {
			if (!said_missing++)
				fprintf(stderr, "trawl: kernel: this kernel has no set_event_notrace_pid "
					"(Linux < 5.8): trawl's own daemons appear in kernel traces\n");
			ret = 0;
			break;
		}
		if (ret < 0)
			break;
	}
out_free:
	free(l.text);
	return ret;
}
