/* SPDX-License-Identifier: MIT */
/*
 * Keeping the tracer out of its own kernel trace.
 *
 * Measured before this file existed (root daemon, `--syscall read,write`,
 * procname+tid contexts, 3 s of an idle 2-CPU machine): 112,570 events, of
 * which 112,544 came from the kernel consumer itself. Each read() of
 * trace_pipe_raw recorded its own sys_enter_read, so the buffer was never
 * empty when the next read() came, and the consumer chased its own events
 * forever (~18,700 reads/s). A user looking at their system saw mostly the
 * tracer. (The consumer now takes only full sub-buffers while tracing runs,
 * which ended the chase; its few syscalls a round still showed.)
 *
 * The consumer drops, as it converts, the records of the threads of:
 *   - itself;
 *   - every process running the same executable as it (user-space and
 *     other kernel consumers; trawl-ktrace, whose consumer is itself) or
 *     as its parent (the root session daemon, or trawl-ktrace).
 * Matching on the executable file (device and inode of /proc/PID/exe), not
 * on the process name, so that nobody can hide a program from a root trace
 * by calling it "trawl-consumerd"; and only processes whose every uid
 * (real, effective, saved, filesystem) is the consumer's own (root's, for
 * the root daemon's): any user may run trawl-sessiond, and LD_PRELOAD or
 * ptrace put their code in it, which would then have run unseen by root's
 * kernel traces (security-notrace-user). Users' own daemons, and the root
 * daemon's consumers that became a session's owner, show in root's
 * traces as any program does. The `trawl` command itself is left
 * visible: it is what the user ran. A record is dropped only when the
 * thread that made it is trawl's and every other thread it names is too
 * (convert.c): switches to and from trawl's daemons, and wake-ups of a
 * traced program by the consumer (a pipe it writes to), stay in the trace.
 * Measured before that rule: a program woken 50 times by writes from the
 * consumer's thread showed 49 wake-ups. The set is taken again every second
 * while tracing runs, so threads and daemons that appear later are hidden
 * too. A process forked by one of trawl's that has not called exec yet
 * (trawl-ktrace's command between fork() and execvp()) runs trawl's
 * executable with its parent's command line: it is about to become the
 * traced program, and hiding its thread id for the second until the next
 * collect dropped every event of a short program (one run in a few under
 * load), so such a process is not hidden; nor is the command trawl-ktrace
 * traces once it runs, even when it is trawl's own executable.
 *
 * Why not the kernel's set_event_notrace_pid, which this file used to fill:
 * the kernel then checks the pid filter on every event of the instance, and
 * bench/kernel (2 M getppid(), sys_enter/exit_getppid) measured that at
 * 35-127 ns per event on this machine's kernel (paired runs, noisy), about a
 * third of trawl's whole cost; dropping a record in the consumer is one
 * binary search in a few dozen tids, off the traced program's path. The
 * records of trawl's threads still take ring-buffer space: a few syscalls
 * per round, and a round every 20 ms at most.
 *
 * TRAWL_KERNEL_NOTRACE=off leaves trawl visible, to measure.
 */
#define _GNU_SOURCE
#include "common/array.h"
#include "kernel/internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int hidden_add(struct trawl_kernel_hidden *h, long tid)
{
	if (trawl_array_grow((void **)&h->tids, &h->cap, (size_t)h->n + 1, sizeof(*h->tids), 64))
		return -ENOMEM;
	h->tids[h->n++] = (int32_t)tid;
	return 0;
}

/* Adds every thread of @pid (its tids from /proc/PID/task). */
static int add_threads(struct trawl_kernel_hidden *l, long pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	d = opendir(path);
	if (!d)
		return hidden_add(l, pid); /* gone, or no procfs: the pid alone */
	while (ret == 0 && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			ret = hidden_add(l, strtol(de->d_name, NULL, 10));
	closedir(d);
	return ret;
}

/* The first @len - 1 bytes of /proc/@pid/@what into @buf, NUL-terminated; their count, or -1. */
static ssize_t proc_read(long pid, const char *what, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* /proc/@pid/cmdline (NULs kept) into @buf; its length, or -1. */
static ssize_t read_cmdline(long pid, char *buf, size_t len)
{
	return proc_read(pid, "cmdline", buf, len);
}

/* The parent pid of @pid (from /proc/PID/stat), or -1. */
static long parent_of(long pid)
{
	char buf[512], *p;

	if (proc_read(pid, "stat", buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] && p[3] == ' ' ? strtol(p + 4, NULL, 10) : -1;
}

/*
 * A fork of a trawl process that has not exec'd yet: same executable and
 * same command line as its parent (see the top of the file).
 */
static int about_to_exec(long pid, const struct stat *exe)
{
	char a[4096], b[4096], path[64];
	long ppid = parent_of(pid);
	struct stat st;
	ssize_t na, nb;

	if (ppid <= 1)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/exe", ppid);
	if (stat(path, &st) < 0 || st.st_dev != exe->st_dev || st.st_ino != exe->st_ino)
		return 0;
	na = read_cmdline(pid, a, sizeof(a));
	nb = read_cmdline(ppid, b, sizeof(b));
	return na > 0 && na == nb && !memcmp(a, b, (size_t)na);
}

/*
 * Whether every uid of @pid (/proc/PID/status: real, effective, saved,
 * filesystem) is @uid: a process another user cannot put code into.
 */
static int owned_by(long pid, uid_t uid)
{
	char buf[4096], *p;
	unsigned long u[4];

	if (proc_read(pid, "status", buf, sizeof(buf)) <= 0)
		return 0;
	p = strstr(buf, "\nUid:");
	if (!p || sscanf(p + 5, "%lu %lu %lu %lu", &u[0], &u[1], &u[2], &u[3]) != 4)
		return 0;
	return u[0] == uid && u[1] == uid && u[2] == uid && u[3] == uid;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * @pid is, or descends from, a child of @spawner other than @consumer: with
 * trawl-ktrace (@spawner, our parent, runs our executable: it is its own
 * consumer) that is the command it traces, whatever it runs. The kernel-vm
 * test traces a second trawl-ktrace: hidden by a collect during its short
 * life, its one uprobe hit went missing now and then; one living 1.5 s lost
 * both its hits in every run (kernel-probes).
 */
static int spawned_command(long pid, pid_t spawner, pid_t consumer)
{
	int depth;

	for (depth = 0; depth < 64 && pid > 1; depth++) {
		long ppid = parent_of(pid);

		if (ppid == spawner)
			return pid != consumer;
		pid = ppid;
	}
	return 0;
}

/*
 * @exe_path (/proc/PID/exe) still names @was. A fork about to exec that
 * calls execve() between our stat() and about_to_exec()'s read of its
 * command line shows the new one, unlike its parent's: it is no longer
 * trawl's, and hiding it would drop its events for a second. Looking again
 * after the command line closes that window (the executable and the command
 * line change together, with the process's memory).
 */
static int still_runs(const char *exe_path, const struct stat *was)
{
	struct stat st;

	return stat(exe_path, &st) == 0 && same_file(&st, was);
}

/* The tids of trawl's own processes (see the top of the file). */
static int collect(struct trawl_kernel_hidden *l, pid_t consumer, const char *consumer_path)
{
	struct stat self, cons, st;
	int have_self, have_cons, ret = 0;
	pid_t spawner;
	char path[64];
	struct dirent *de;
	DIR *d;

	have_self = stat("/proc/self/exe", &self) == 0;
	have_cons = consumer_path && stat(consumer_path, &cons) == 0;
	/* trawl-ktrace: our parent runs our executable (see spawned_command()) */
	spawner = have_self && have_cons && same_file(&self, &cons) ? getppid() : 0;
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
		if (((have_self && same_file(&st, &self)) || (have_cons && same_file(&st, &cons))) &&
		    owned_by(pid, geteuid()) && !about_to_exec(pid, &st) &&
		    !(spawner > 1 && spawned_command(pid, spawner, consumer)) && still_runs(path, &st))
			ret = add_threads(l, pid);
	}
	closedir(d);
	return ret;
}

static int tid_cmp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

int trawl_kernel_hidden_collect(struct trawl_kernel_hidden *h)
{
	/* The parent's executable, resolved once: if the daemon dies, the
	 * consumer's parent becomes init, whose processes are not trawl's. */
	static char parent[4096];
	const char *knob = getenv("TRAWL_KERNEL_NOTRACE");
	int ret;

	h->n = 0;
	if (knob && !strcmp(knob, "off"))
		return 0;
	if (!parent[0]) {
		char link[64];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/%ld/exe", (long)getppid());
		n = readlink(link, parent, sizeof(parent) - 1);
		if (n <= 0 || getppid() == 1)
			snprintf(parent, sizeof(parent), "/proc/self/exe");
		else
			parent[n] = '\0';
	}
	ret = collect(h, getpid(), parent);
	if (ret < 0)
		h->n = 0;
	else if (h->n)
		qsort(h->tids, h->n, sizeof(*h->tids), tid_cmp);
	return ret;
}

int trawl_kernel_hidden_has(const struct trawl_kernel_hidden *h, int32_t tid)
{
	uint32_t lo = 0, hi = h->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (h->tids[mid] == tid)
			return 1;
		if (h->tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

void trawl_kernel_hidden_free(struct trawl_kernel_hidden *h)
{
	free(h->tids);
	memset(h, 0, sizeof(*h));
}
