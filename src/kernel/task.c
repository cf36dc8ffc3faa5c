/* SPDX-License-Identifier: MIT */
/*
 * task.c - the task attributes of the kernel converter's pid, ppid, prio,
 * nice, procname and namespace contexts (convert.c writes them).
 *
 * ftrace records carry only the thread id. The other contexts come from
 * /proc/<tid>, read once per thread and cached (a thread that exited before
 * we saw its first record gets pid = tid, ppid 0, its name from sched events
 * when those are traced, else ""; prio 20 and nice 0, the defaults). While
 * tracing runs the consumer converts a full sub-buffer at a time, so a
 * thread that makes few events and exits soon may get the defaults. prio
 * and nice are those read at the thread's first converted record, not at
 * each event (a thread reniced later keeps its old values). This is best
 * effort, and documented so: ftrace records carry neither, and only a
 * perf or BPF path could read them at the event.
 *
 * The namespace contexts (cgroup_ns ... uts_ns) are the inode numbers of
 * /proc/<tid>/ns/<name>, read (8 stat() calls) the first time a thread's
 * record needs one, and again after the thread's exec when
 * sched_process_exec is in the channel. Why /proc and not BPF at each
 * event: a thread changes namespaces only through unshare(2), setns(2)
 * or its clone(2) (a new thread: a new cache entry, read afresh), which
 * tools follow with an exec (unshare, nsenter, ip netns exec), so the
 * values read once are the thread's for its whole life in all but a
 * program that calls setns() itself mid-way; a BPF program at every event
 * would cost each traced event a map write for values that almost never
 * change. A thread gone from /proc before its first record is converted
 * takes its process's namespaces, else its parent's (from the fork
 * record), else 0: a short-lived program that unshared and exited before
 * the consumer converted its events is the case this gets wrong.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * A thread that exited before we converted its first record has no /proc
 * entry; the kernel's saved_cmdlines (top-level tracefs, read only) still
 * maps recently traced pids to their names. Re-read at most every 50 ms.
 */
static int cmdlines_find(const char *buf, int32_t tid, char comm[16])
{
	char key[24];
	const char *p;
	int n = snprintf(key, sizeof(key), "%d ", tid);

	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, (size_t)n)) {
			size_t l = strcspn(p + n, "\n");

			memset(comm, 0, 16);
			memcpy(comm, p + n, TRAWL_MIN(l, (size_t)15));
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * A miss re-reads the file when the copy is older than 2 ms: a short-lived
 * program (a few ms) that exited between two reads is found, and a stream
 * of misses (threads the kernel forgot) costs at most 500 reads a second.
 */
static int cmdlines_lookup(int32_t tid, char comm[16])
{
	static char *buf;
	static uint64_t read_ns;
	struct timespec now;
	uint64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	if (buf && cmdlines_find(buf, tid, comm) == 0)
		return 0;
	if (buf && ns - read_ns < 2000000u)
		return -ENOENT;
	if (!buf)
		buf = malloc(1u << 20);
	if (!buf || trawl_kernel_read_file("saved_cmdlines", buf, 1u << 20) < 0)
		return -ENOENT;
	read_ns = ns;
	return cmdlines_find(buf, tid, comm);
}

static void task_load(struct task_entry *t, int32_t tid)
{
	char path[64], buf[1024];
	ssize_t n;
	int fd;
	char *p;

	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = tid;
	t->prio = 20;
	if (tid == 0) {
		snprintf(t->comm, sizeof(t->comm), "swapper");
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		cmdlines_lookup(tid, t->comm);
		t->gone = true;
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (!strncmp(buf, "Name:\t", 6)) {
		size_t l = strcspn(buf + 6, "\n");

		memcpy(t->comm, buf + 6, TRAWL_MIN(l, sizeof(t->comm) - 1));
	}
	p = strstr(buf, "\nTgid:\t");
	if (p)
		t->pid = (int32_t)strtol(p + 7, NULL, 10);
	p = strstr(buf, "\nPPid:\t");
	if (p)
		t->ppid = (int32_t)strtol(p + 7, NULL, 10);
	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		int i;

		buf[n] = '\0';
		p = strrchr(buf, ')');
		/* after ") ": state(3) ppid(4) ... priority is field 18, nice 19 */
		for (i = 2; p && i < 18; i++)
			p = strchr(p + 1, ' ');
		if (p)
			t->prio = (int32_t)strtol(p + 1, &p, 10);
		if (p && *p == ' ')
			t->nice = (int32_t)strtol(p + 1, NULL, 10);
	}
}

/* The namespaces of process @pid into @ns: 0, or -1 if it has no /proc entry. */
static int ns_read(int32_t pid, uint32_t ns[TASK_NS])
{
	static const char *const names[TASK_NS] = { "cgroup", "ipc", "mnt",  "net",
						    "pid",    "time", "user", "uts" };
	char path[64];
	struct stat st;
	int i, found = 0;

	for (i = 0; i < TASK_NS; i++) {
		ns[i] = 0;
		if (!trawl_path_fmt(path, sizeof(path), "/proc/%d/ns/%s", pid, names[i]) &&
		    stat(path, &st) == 0) {
			ns[i] = (uint32_t)st.st_ino;
			found = 1;
		}
	}
	return found ? 0 : -1;
}

/* @t's namespaces: its own, else (gone) its process's, else its parent's. */
void trawl_kernel_task_load_ns(struct task_entry *t)
{
	t->ns_loaded = true;
	if (t->tid > 0 && !ns_read(t->tid, t->ns))
		return;
	if (t->pid > 0 && t->pid != t->tid && !ns_read(t->pid, t->ns))
		return;
	if (t->ppid > 0)
		ns_read(t->ppid, t->ns);
	else if (t->tid == 0)
		ns_read(1, t->ns); /* the idle threads: init's (the root namespaces) */
}

struct task_entry *trawl_kernel_task_get(struct trawl_kernel_task_cache *c, int32_t tid)
{
	struct task_entry *t = &c->e[(uint32_t)tid % TASK_SLOTS];

	if (t->tid != tid)
		task_load(t, tid);
	return t;
}

/*
 * A thread gone from /proc before its records are converted: its process
 * id (and a process's parent's) from the fork record BPF made when it was
 * created (the consumer attaches that program whenever a channel has a
 * pid, vpid or ppid context: kernel-refresh.c), not its own tid taken for
 * one. Threads that existed before tracing and are gone keep that guess.
 */
void trawl_kernel_task_ids_of_gone(struct trawl_kernel_converter *c, struct task_entry *t)
{
	int32_t tgid, ppid, ptgid;

	t->gone = false;	/* looked once */
	if (trawl_kernel_forks_ids(c->forks, t->tid, &tgid, &ppid)) {
		if (!c->forks || !c->bpf_drain)
			return;
		c->bpf_drain(c->bpf_arg);	/* its record may not have been read yet */
		if (trawl_kernel_forks_ids(c->forks, t->tid, &tgid, &ppid))
			return;
	}
	t->pid = tgid;
	/* a thread's parent is its process's: that process's own fork record, if traced */
	if (ppid <= 0 && tgid != t->tid && trawl_kernel_forks_ids(c->forks, tgid, &ptgid, &ppid))
		ppid = 0;
	if (ppid > 0)
		t->ppid = ppid;
}

static void task_set_comm(struct trawl_kernel_task_cache *c, int32_t tid, const uint8_t *comm,
			  size_t len)
{
	struct task_entry *t;

	if (tid < 0)
		return;
	t = trawl_kernel_task_get(c, tid);
	memset(t->comm, 0, sizeof(t->comm));
	memcpy(t->comm, comm, TRAWL_MIN(len, sizeof(t->comm) - 1));
}

/*
 * The bytes of a name field of @rec at @off: a char[16], or (when @loc) a
 * __data_loc string. Returns the name's length (0 if out of bounds).
 */
static size_t rec_name(const uint8_t *rec, uint32_t len, uint16_t off, int loc, const uint8_t **name)
{
	uint32_t w, o, l;

	if (!loc) {
		if ((uint32_t)off + 16 > len)
			return 0;
		*name = rec + off;
		return strnlen((const char *)rec + off, 16);
	}
	if ((uint32_t)off + 4 > len)
		return 0;
	memcpy(&w, rec + off, 4);
	o = w & 0xffff;
	l = w >> 16;
	if (o > len || l > len - o)
		return 0;
	*name = rec + o;
	return strnlen((const char *)rec + o, l);
}

/* Keeps the task cache in step with the names the trace itself reports. */
void trawl_kernel_task_hook(struct trawl_kernel_task_cache *c, const struct trawl_kernel_event *ev,
		      const uint8_t *rec, uint32_t len)
{
	const uint16_t *o = ev->hook_off;
	const uint8_t *name = NULL;
	size_t l;
	int32_t tid;

	switch (ev->hook) {
	case TRAWL_KHOOK_EXEC: {
		uint32_t loc, off, n;
		const uint8_t *slash;

		if ((uint32_t)o[0] + 4 > len || (uint32_t)o[1] + 4 > len)
			return;
		memcpy(&loc, rec + o[0], 4);
		memcpy(&tid, rec + o[1], 4);
		off = loc & 0xffff;
		n = loc >> 16;
		if (off > len || n > len - off)
			return;
		name = rec + off;
		n = (uint32_t)strnlen((const char *)name, n);
		while ((slash = memchr(name, '/', n))) {
			n -= (uint32_t)(slash + 1 - name);
			name = slash + 1;
		}
		task_set_comm(c, tid, name, n);
		if (tid >= 0)
			trawl_kernel_task_get(c, tid)->ns_loaded = false; /* (unshare; exec: read again) */
		return;
	}
	case TRAWL_KHOOK_SWITCH:
		if ((uint32_t)o[3] + 4 > len)
			return;
		memcpy(&tid, rec + o[3], 4);
		l = rec_name(rec, len, o[2], ev->hook_loc & 4, &name);
		if (name)
			task_set_comm(c, tid, name, l);
		/* prev_comm / prev_pid are hook_off[0..1] */
		__attribute__((fallthrough));
	case TRAWL_KHOOK_COMM:
		if ((uint32_t)o[1] + 4 > len)
			return;
		memcpy(&tid, rec + o[1], 4);
		name = NULL;
		l = rec_name(rec, len, o[0], ev->hook_loc & 1, &name);
		if (name)
			task_set_comm(c, tid, name, l);
		return;
	}
}
