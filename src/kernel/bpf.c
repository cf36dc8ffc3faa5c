/* SPDX-License-Identifier: MIT */
/*
 * The kernel consumer's BPF programs (trawl.bpf.c): loaded once, each
 * attached only when a channel records the event it completes, so a
 * session that does not record forks or syscalls with strings pays nothing
 * for them. Their records
 * come back through one BPF ring buffer, read without blocking by
 * trawl_kernel_bpf_drain() at each consumer round and whenever the
 * converter misses one (fork.c).
 *
 * Measured (2-CPU dev VM, Linux 6.18, libbpf 1.1): opening and loading the
 * object takes 30-60 ms, most of it libbpf reading the kernel's BTF for the
 * CO-RE relocations; a fork with the program attached costs ~1 us more out
 * of ~60 us. The credential program (trackers) runs at every syscall exit
 * of the machine: kernel.bpf_stats_enabled gave 107-110 ns per run for it
 * against 80 ns for trawl_sys_exit's lookup-and-return, side by side over
 * 1 M getppid() calls on that VM at load 11-13 (the ids read at each run,
 * not only when the cred pointer changed: 275 ns; an LRU hash instead of
 * the array: 170-185 ns).
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"
#include "kernel/bpf-records.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef TRAWL_HAVE_BPF_SKEL
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trawl.skel.h"

struct trawl_kernel_bpf {
	struct trawl_bpf *skel;         /* owned */
	struct ring_buffer *rb;         /* owned */
	struct bpf_link *fork_link;     /* owned; NULL until attached */
	struct bpf_link *enter_link, *exit_link; /* owned; NULL until a syscall needs them */
	struct bpf_link *cred_link;     /* owned; NULL until a user or group tracker restricts */
	struct trawl_kernel_trackers *trackers; /* not owned, may be NULL */
	struct trawl_kernel_forks *forks; /* not owned */
	struct trawl_kernel_scaux *scaux; /* not owned */
	int ncpus;
};

static char libbpf_msg[256];

/* libbpf's messages: the last warning is kept for the one line we print on failure. */
__attribute__((format(printf, 2, 0)))
static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_DEBUG)
		vsnprintf(libbpf_msg, sizeof(libbpf_msg), fmt, ap);
	return 0;
}

static int on_record(void *arg, void *data, size_t len)
{
	struct trawl_kernel_bpf *b = arg;
	const struct trawl_bpf_hdr *h = data;

	if (len < sizeof(*h) || h->size > len)
		return 0;
	if (h->type == TRAWL_BPF_SC_ENTER || h->type == TRAWL_BPF_SC_EXIT) {
		trawl_kernel_scaux_add(b->scaux, data, len);
		return 0;
	}
	if (h->type == TRAWL_BPF_FORK && len >= sizeof(struct trawl_bpf_fork)) {
		const struct trawl_bpf_fork *r = data;
		struct trawl_kernel_fork_info info;

		memset(&info, 0, sizeof(info));
		info.parent_pid = r->parent_pid;
		info.child_pid = r->child_pid;
		info.parent_ns = r->parent_ns;
		info.child_ns = r->child_ns;
		info.nvtids = (uint8_t)TRAWL_MIN(r->nvtids, (uint32_t)TRAWL_KERNEL_MAX_PID_NS);
		memcpy(info.vtids, r->vtids, 4u * info.nvtids);
		trawl_kernel_forks_add(b->forks, r->child_tid, &info);
		if (b->trackers) {
			struct trawl_kernel_ident id = {
				.tgid = r->child_pid, .vpid = r->child_vpid, .uid = r->uid,
				.gid = r->gid, .vuid = r->vuid, .vgid = r->vgid,
			};

			trawl_kernel_trackers_ident_add(b->trackers, r->child_tid, h->ts, &id);
		}
		return 0;
	}
	if (h->type == TRAWL_BPF_CRED && len >= sizeof(struct trawl_bpf_cred) && b->trackers) {
		const struct trawl_bpf_cred *r = data;
		struct trawl_kernel_ident id = {
			.tgid = r->tgid, .vpid = r->vpid, .uid = r->uid,
			.gid = r->gid, .vuid = r->vuid, .vgid = r->vgid,
		};

		trawl_kernel_trackers_ident_add(b->trackers, (int32_t)h->tid, h->ts, &id);
	}
	return 0;
}

int trawl_kernel_bpf_create(struct trawl_kernel_forks *forks, struct trawl_kernel_scaux *scaux,
			    struct trawl_kernel_bpf **out, char *err, size_t errlen)
{
	struct trawl_kernel_bpf *b = calloc(1, sizeof(*b));
	int ret;

	if (!b)
		return -ENOMEM;
	libbpf_set_print(libbpf_log);
	b->forks = forks;
	b->scaux = scaux;
	b->skel = trawl_bpf__open();
	if (b->skel) {
		b->skel->rodata->trawl_self_tgid = (__u32)getpid();
		if ((ret = trawl_bpf__load(b->skel)) < 0) {
			trawl_bpf__destroy(b->skel);
			b->skel = NULL;
			errno = -ret;
		}
	}
	if (!b->skel) {
		ret = -errno;
		trawl_msg_fmt(err, errlen, "cannot load trawl's BPF programs: %s%s%.200s",
			      strerror(-ret), libbpf_msg[0] ? ": " : "", libbpf_msg);
		goto err;
	}
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.trawl_rb), on_record, b, NULL);
	if (!b->rb) {
		ret = -errno;
		trawl_msg_fmt(err, errlen, "cannot map trawl's BPF ring buffer: %s",
			      strerror(-ret));
		goto err;
	}
	b->ncpus = libbpf_num_possible_cpus();
	*out = b;
	return 0;
err:
	trawl_kernel_bpf_destroy(b);
	return ret;
}

void trawl_kernel_bpf_destroy(struct trawl_kernel_bpf *b)
{
	if (!b)
		return;
	bpf_link__destroy(b->fork_link);
	bpf_link__destroy(b->enter_link);
	bpf_link__destroy(b->exit_link);
	bpf_link__destroy(b->cred_link);
	ring_buffer__free(b->rb);
	trawl_bpf__destroy(b->skel);
	free(b);
}

/* The refresher thread and the draining thread (the trackers) both attach it. */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

int trawl_kernel_bpf_attach_fork(struct trawl_kernel_bpf *b)
{
	int ret = 0;

	pthread_mutex_lock(&fork_lock);
	if (!b->fork_link) {
		b->fork_link = bpf_program__attach(b->skel->progs.trawl_fork);
		ret = b->fork_link ? 0 : -errno;
	}
	pthread_mutex_unlock(&fork_lock);
	return ret;
}

int trawl_kernel_bpf_drain(struct trawl_kernel_bpf *b)
{
	return ring_buffer__consume(b->rb);
}

void trawl_kernel_bpf_set_trackers(struct trawl_kernel_bpf *b, struct trawl_kernel_trackers *t)
{
	b->trackers = t;
}

/* (the draining thread only: the refresher attaches fork and syscall programs, not this one) */
int trawl_kernel_bpf_attach_cred(struct trawl_kernel_bpf *b)
{
	if (b->cred_link)
		return 0;
	b->cred_link = bpf_program__attach(b->skel->progs.trawl_cred_exit);
	return b->cred_link ? 0 : -errno;
}

/*
 * The sys_enter / sys_exit programs run for every syscall of the machine
 * once attached (a map lookup and a return for unmarked ones), so they are
 * attached only when a traced syscall needs them.
 */
int trawl_kernel_bpf_syscall_set(struct trawl_kernel_bpf *b, int nr, uint32_t enter, uint32_t exit)
{
	uint32_t k = (uint32_t)nr;

	if (nr < 0 || nr >= TRAWL_BPF_SC_NR_MAX)
		return -EINVAL;
	if (bpf_map__update_elem(b->skel->maps.trawl_sc_enter, &k, sizeof(k), &enter, sizeof(enter), 0) < 0 ||
	    bpf_map__update_elem(b->skel->maps.trawl_sc_exit, &k, sizeof(k), &exit, sizeof(exit), 0) < 0)
		return -errno;
	if (enter && !b->enter_link) {
		b->enter_link = bpf_program__attach(b->skel->progs.trawl_sys_enter);
		if (!b->enter_link)
			return -errno;
	}
	if (exit && !b->exit_link) {
		b->exit_link = bpf_program__attach(b->skel->progs.trawl_sys_exit);
		if (!b->exit_link)
			return -errno;
	}
	return 0;
}

uint64_t trawl_kernel_bpf_lost(const struct trawl_kernel_bpf *b)
{
	uint64_t v[1024], sum = 0;
	uint32_t k = 0;
	int i;

	if (b->ncpus <= 0 || b->ncpus > 1024 ||
	    bpf_map__lookup_elem(b->skel->maps.trawl_lost, &k, sizeof(k), v,
				 sizeof(uint64_t) * (size_t)b->ncpus, 0) < 0)
		return 0;
	for (i = 0; i < b->ncpus; i++)
		sum += v[i];
	return sum;
}

#else /* no BPF object was built: every completion comes from /proc (fork.c) */

int trawl_kernel_bpf_create(struct trawl_kernel_forks *forks, struct trawl_kernel_scaux *scaux,
			    struct trawl_kernel_bpf **out, char *err, size_t errlen)
{
	(void)forks;
	(void)scaux;
	*out = NULL;
	trawl_msg_fmt(err, errlen, "trawl was built without its BPF programs (clang and bpftool)");
	return -ENOSYS;
}

void trawl_kernel_bpf_destroy(struct trawl_kernel_bpf *b)
{
	(void)b;
}

int trawl_kernel_bpf_attach_fork(struct trawl_kernel_bpf *b)
{
	(void)b;
	return -ENOSYS;
}

int trawl_kernel_bpf_drain(struct trawl_kernel_bpf *b)
{
	(void)b;
	return 0;
}

void trawl_kernel_bpf_set_trackers(struct trawl_kernel_bpf *b, struct trawl_kernel_trackers *t)
{
	(void)b;
	(void)t;
}

int trawl_kernel_bpf_attach_cred(struct trawl_kernel_bpf *b)
{
	(void)b;
	return -ENOSYS;
}

int trawl_kernel_bpf_syscall_set(struct trawl_kernel_bpf *b, int nr, uint32_t enter, uint32_t exit)
{
	(void)b;
	(void)nr;
	(void)enter;
	(void)exit;
	return -ENOSYS;
}

uint64_t trawl_kernel_bpf_lost(const struct trawl_kernel_bpf *b)
{
	(void)b;
	return 0;
}
#endif
