/* SPDX-License-Identifier: MIT */
/*
 * sched_process_fork as LTTng records it.
 *
 * The kernel's ftrace record of a fork holds the parent's and the child's
 * thread ids and names only; LTTng-modules also records both process ids
 * (tgid), the inode of each one's active pid namespace and the child's id
 * in every pid namespace from the root down (vtids), which lttng-analyses
 * and Trace Compass use to tell threads from processes. None of these can be
 * derived from the record, so the kernel consumer's BPF program (bpf.c,
 * trawl.bpf.c) reads them from the tasks at the tracepoint, into a table
 * keyed by the child's thread id that this file looks up when the ftrace
 * record is converted. Without BPF (an older kernel, no BTF), or when its
 * record was lost, they are read from /proc while both tasks live: exact
 * then, since a task's tgid and pid namespace do not change (except a thread
 * that execs, which becomes the leader: rare, and then the /proc value is
 * the new one). A child already gone by then gets what the record itself
 * tells: vtids = [child tid] (its id in the root namespace, the only level
 * known), ids and namespaces 0, which no real process or namespace has.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FORK_SLOTS 4096u

struct fork_entry {
	int32_t child_tid;   /* 0: empty */
	struct trawl_kernel_fork_info info;
};

struct trawl_kernel_forks {
	struct fork_entry e[FORK_SLOTS];
	struct {
		int32_t tid, tgid, ppid; /* tid 0: empty */
	} id[FORK_SLOTS];		/* trawl_kernel_forks_ids() */
};

int trawl_kernel_forks_create(struct trawl_kernel_forks **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void trawl_kernel_forks_destroy(struct trawl_kernel_forks *f)
{
	free(f);
}

/*
 * A newer fork of the same tid (pid reuse) replaces the older one; two
 * children whose tids share a slot before their records are converted
 * (4,096 forks apart) lose the older one to /proc.
 */
void trawl_kernel_forks_add(struct trawl_kernel_forks *f, int32_t child_tid,
			    const struct trawl_kernel_fork_info *info)
{
	struct fork_entry *e = &f->e[(uint32_t)child_tid % FORK_SLOTS];

	if (child_tid <= 0)
		return;
	e->child_tid = child_tid;
	e->info = *info;
	if (e->info.nvtids > TRAWL_KERNEL_MAX_PID_NS)
		e->info.nvtids = TRAWL_KERNEL_MAX_PID_NS;
	f->id[(uint32_t)child_tid % FORK_SLOTS].tid = child_tid;
	f->id[(uint32_t)child_tid % FORK_SLOTS].tgid = info->child_pid;
	/* a new process's parent is the forking process; a thread's is its process's */
	f->id[(uint32_t)child_tid % FORK_SLOTS].ppid = info->child_pid == child_tid ? info->parent_pid : 0;
}

int trawl_kernel_forks_ids(const struct trawl_kernel_forks *f, int32_t tid, int32_t *tgid,
			   int32_t *ppid)
{
	if (!f || tid <= 0 || f->id[(uint32_t)tid % FORK_SLOTS].tid != tid ||
	    f->id[(uint32_t)tid % FORK_SLOTS].tgid <= 0)
		return -ENOENT;
	*tgid = f->id[(uint32_t)tid % FORK_SLOTS].tgid;
	*ppid = f->id[(uint32_t)tid % FORK_SLOTS].ppid;
	return 0;
}

static int forks_take(struct trawl_kernel_forks *f, int32_t child_tid, struct trawl_kernel_fork_info *info)
{
	struct fork_entry *e;

	if (!f || child_tid <= 0)
		return -ENOENT;
	e = &f->e[(uint32_t)child_tid % FORK_SLOTS];
	if (e->child_tid != child_tid)
		return -ENOENT;
	*info = e->info;
	e->child_tid = 0; /* one record per fork: a later fork of a reused tid must not see it */
	return 0;
}

/* Tgid and NSpid (ids from the root namespace down) of /proc/@tid/status. */
static int proc_ids(int32_t tid, int32_t *tgid, int32_t *vtids, uint8_t *n)
{
	char path[64], buf[2048], *p;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return -EIO;
	buf[r] = '\0';
	p = strstr(buf, "\nTgid:\t");
	if (!p)
		return -EIO;
	*tgid = (int32_t)strtol(p + 7, NULL, 10);
	if (!vtids)
		return 0;
	*n = 0;
	p = strstr(buf, "\nNSpid:\t");
	if (!p)
		return 0;
	for (p += 8; *n < TRAWL_KERNEL_MAX_PID_NS;) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		vtids[(*n)++] = (int32_t)v;
		p = end;
		if (*p != '\t' && *p != ' ')
			break;
	}
	return 0;
}

static uint32_t proc_ns(int32_t tid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", tid);
	return stat(path, &st) == 0 ? (uint32_t)st.st_ino : 0;
}

void trawl_kernel_fork_info_get(struct trawl_kernel_converter *c, const struct trawl_kernel_event *ev,
				const uint8_t *rec, uint32_t len, struct trawl_kernel_fork_info *info)
{
	int32_t child = 0, parent = 0;

	memset(info, 0, sizeof(*info));
	if (ev->hook == TRAWL_KHOOK_COMM && (uint32_t)ev->hook_off[1] + 4 <= len &&
	    (uint32_t)ev->hook_off[2] + 4 <= len) {
		memcpy(&child, rec + ev->hook_off[1], 4);
		memcpy(&parent, rec + ev->hook_off[2], 4);
	}
	if (forks_take(c->forks, child, info) == 0)
		return;
	/* BPF's record of this fork may not have been read yet: read, then look again */
	if (c->forks && c->bpf_drain) {
		c->bpf_drain(c->bpf_arg);
		if (forks_take(c->forks, child, info) == 0)
			return;
	}
	info->nvtids = 1;
	info->vtids[0] = child;
	if (child > 0 && proc_ids(child, &info->child_pid, info->vtids, &info->nvtids) == 0) {
		info->child_ns = proc_ns(child);
		if (!info->nvtids) { /* no NSpid line (kernels before 4.1) */
			info->nvtids = 1;
			info->vtids[0] = child;
		}
	}
	if (parent > 0 && proc_ids(parent, &info->parent_pid, NULL, NULL) == 0)
		info->parent_ns = proc_ns(parent);
}

uint8_t *trawl_kernel_fork_info_write(const struct trawl_kernel_fork_info *info, int xform, uint8_t *o)
{
	uint32_t v;

	switch (xform) {
	case TRAWL_KX_FORK_VTIDS:
		*o++ = info->nvtids;
		memcpy(o, info->vtids, 4u * info->nvtids);
		return o + 4u * info->nvtids;
	case TRAWL_KX_FORK_PARENT_PID:
		v = (uint32_t)info->parent_pid;
		break;
	case TRAWL_KX_FORK_CHILD_PID:
		v = (uint32_t)info->child_pid;
		break;
	case TRAWL_KX_FORK_PARENT_NS:
		v = info->parent_ns;
		break;
	default:
		v = info->child_ns;
		break;
	}
	memcpy(o, &v, 4);
	return o + 4;
}
