/* SPDX-License-Identifier: MIT */
/*
 * context.c - the context fields a thread writes before each event's
 * payload (src/ustabi/ustabi.h, enum trawl_ustctl_context, then the perf counters).
 *
 * Cached per thread at its first event: tid, procname, pthread_id (they do
 * not change; procname is the name when the thread first recorded, as
 * documented in src/ustabi/ustabi.h).
 *
 * Read at every event: prio and nice. Another thread or process can change
 * them at any time (setpriority(2) on our tid, renice(1), sched_setattr(2))
 * and the kernel tells nobody, so no cache can be proved right: a change
 * between two events must show in the second. The cheapest exact read is one
 * system call per event: getpriority(PRIO_PROCESS, 0) when only nice is
 * recorded, else sched_getattr(2), which gives the policy, the real-time
 * priority and nice at once. Measured on the 2-core dev VM (syscalls cost
 * ~170 ns there): getpriority 161-171 ns, sched_getattr 262-345 ns;
 * bench/ust/run.sh has the per-event figure. prio is computed as the kernel's
 * task_prio() (what LTTng's kernel prio context and /proc's "priority" show)
 * from the thread's policy: 20 + nice for SCHED_OTHER/BATCH/IDLE, -1 - the
 * real-time priority for FIFO/RR, -101 for DEADLINE. It is the normal
 * priority: a thread boosted for a while by a priority-inheritance futex
 * shows its own, not the boosted one. A failed read (a seccomp filter)
 * records INT32_MIN.
 *
 * Perf counters (perf:thread:NAME, as LTTng-UST does it). The process keeps
 * one table of the distinct counters (type, config) its channels asked for
 * (perf_slots, appended under trawl_ust_lock, never changed: a channel, and
 * with it the slot numbers, reaches the fast path through the event slots'
 * release/acquire). Each thread opens its own counter lazily, at its first
 * event in a channel recording it - perf_event_open(pid 0, cpu -1) - and
 * reads it at every event: rdpmc through the counter's mmap'ed page when the
 * kernel allows it (hardware counters, cap_user_rdpmc), else read(2) on the
 * fd (software counters, and any PMU counter rdpmc cannot read: one system
 * call per counter per event, as LTTng-UST). The values are what the counter
 * counted since the thread opened it.
 *
 * A thread that cannot open a counter (perf_event_paranoid, a seccomp
 * filter, too many open files) records TRAWL_USTCTL_COUNTER_UNAVAILABLE
 * (UINT64_MAX, never a real count; LTTng-UST records 0, which reads as "no
 * fault since..." and hides the failure) for it at every event and does not
 * retry: the app itself is never hurt.
 *
 * Lifetime of a thread's counters. A thread's fds live in a perf_thread
 * block (an anonymous mmap, not malloc: the first event may be in a signal
 * handler that interrupted malloc), reached from initial-exec TLS (one
 * pointer: libtrawl-ust may be dlopen()ed, where static TLS is scarce).
 *   - thread exit: the block is the thread's value of perf_key, whose
 *     destructor closes the fds and frees the block. An event traced by a
 *     later destructor opens the counter again and sets the key again, so
 *     glibc runs our destructor once more (PTHREAD_DESTRUCTOR_ITERATIONS).
 *   - fork: the child inherits every thread's perf fds, but they count the
 *     parent's threads. Every block is on perf_threads (perf_lock); the
 *     child closes all their fds and frees the blocks (the perf pages are
 *     VM_DONTCOPY: not in the child), and its threads open their own
 *     counters at their next events. perf_lock is held across fork()
 *     (agent.c's atfork handlers), so the list is whole in the child.
 *   - signals are blocked while a thread opens a counter or its block is
 *     destroyed: a handler tracing an event then would otherwise take
 *     perf_lock twice or open the same counter twice (one fd leaked).
 * A block is only touched by its thread, except by the fork child (one
 * thread then) and under perf_lock for the list links.
 */
#define _GNU_SOURCE
#include "ust/ust.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/common.h"
#include "ustabi/wire.h"

/* ---- the per-thread cache ---- */

struct thread_ctx {
	int32_t tid;
	char procname[17];
	uint64_t pthread_id;
	uint32_t ns_read;                        /* bit k: ns[k] is read */
	uint64_t ns[TRAWL_USTCTL_CTX_NS_COUNT]; /* the namespaces' inode numbers */
};
static __thread struct thread_ctx tctx __attribute__((tls_model("initial-exec")));

static void __attribute__((noinline)) thread_ctx_init(void)
{
	tctx.tid = (int32_t)gettid();
	prctl(PR_GET_NAME, tctx.procname, 0, 0, 0);
	tctx.procname[16] = '\0';
	tctx.pthread_id = (uint64_t)pthread_self();
}

/* ---- namespaces ---- */

/*
 * The inode number of the thread's namespace @k (enum trawl_ustctl_context,
 * from TRAWL_USTCTL_CTX_NS_FIRST on), read once per thread: stat(2) is
 * async-signal-safe and allocates nothing, and a thread's namespaces change
 * only through its own unshare(2) or setns(2) (LTTng-UST resets its cache in
 * its wrappers of those; trawl does not wrap them, so a thread that calls
 * them keeps recording the namespaces it had) or a fork, whose child starts
 * with an empty cache. 0 where the kernel lacks the namespace (time: 5.6).
 */
static uint64_t ns_inode(uint32_t k)
{
	static const char *const names[TRAWL_USTCTL_CTX_NS_COUNT] = {
		"cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts",
	};
	char path[40] = "/proc/thread-self/ns/";
	struct stat st;
	size_t n = strlen(path);

	if (tctx.ns_read & (1u << k))
		return tctx.ns[k];
	memcpy(path + n, names[k], strlen(names[k]) + 1);
	tctx.ns[k] = stat(path, &st) ? 0 : (uint64_t)st.st_ino;
	tctx.ns_read |= 1u << k;
	return tctx.ns[k];
}

/* ---- prio and nice ---- */

/* sched_getattr(2)'s struct, first version (48 bytes): glibc 2.36 has no
 * declaration, and <linux/sched/types.h> clashes with newer glibc's. */
struct sched_attr_v0 {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

#define POLICY_DEADLINE 6 /* SCHED_DEADLINE, not in every libc's sched.h */

static void read_sched(int want_prio, int32_t *prio, int32_t *nice)
{
	struct sched_attr_v0 a;
	long r;

	if (!want_prio) {
		/* The raw system call returns 20 - nice (1..40), never < 0. */
		r = syscall(SYS_getpriority, PRIO_PROCESS, 0);
		*nice = r < 0 ? INT32_MIN : (int32_t)(20 - r);
		return;
	}
	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0)) {
		*prio = *nice = INT32_MIN;
		return;
	}
	switch (a.sched_policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		*prio = -1 - (int32_t)a.sched_priority;
		break;
	case POLICY_DEADLINE:
		*prio = -101;
		break;
	default:
		*prio = 20 + a.sched_nice;
		*nice = a.sched_nice;
		return;
	}
	/* Real-time threads: sched_getattr() leaves sched_nice 0, yet they
	 * have a nice value; rare enough to pay a second system call. */
	r = syscall(SYS_getpriority, PRIO_PROCESS, 0);
	*nice = r < 0 ? INT32_MIN : (int32_t)(20 - r);
}

/* ---- perf counters ---- */

/* Distinct counters a process can use over its life, all channels
 * together (each channel up to TRAWL_USTCTL_MAX_COUNTERS). */
#define PERF_SLOTS 32
#define PERF_FD_UNOPENED (-2)
#define PERF_FD_FAILED (-1)

static struct {
	uint32_t type;
	uint64_t config;
} perf_slots[PERF_SLOTS]; /* appended under trawl_ust_lock; then constant */
static uint32_t nr_perf_slots;

struct perf_thread {
	struct perf_thread *next, **pprev;              /* perf_threads, under perf_lock */
	int fd[PERF_SLOTS];                              /* an fd, or PERF_FD_* */
	struct perf_event_mmap_page *page[PERF_SLOTS]; /* hardware counters: for rdpmc */
};

static __thread struct perf_thread *perf_self __attribute__((tls_model("initial-exec")));
static pthread_mutex_t perf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct perf_thread *perf_threads;
static pthread_key_t perf_key;
static int perf_key_ok;

int trawl_ust_perf_slot(uint32_t type, uint64_t config)
{
	uint32_t i;

	for (i = 0; i < nr_perf_slots; i++)
		if (perf_slots[i].type == type && perf_slots[i].config == config)
			return (int)i;
	if (nr_perf_slots == PERF_SLOTS)
		return -ENOSPC;
	perf_slots[nr_perf_slots].type = type;
	perf_slots[nr_perf_slots].config = config;
	return (int)nr_perf_slots++;
}

static void block_signals(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

static void perf_thread_destroy(void *arg)
{
	struct perf_thread *pt = arg;
	sigset_t old;
	int i;

	if (!pt)
		return;
	block_signals(&old);
	pthread_mutex_lock(&perf_lock);
	*pt->pprev = pt->next;
	if (pt->next)
		pt->next->pprev = pt->pprev;
	pthread_mutex_unlock(&perf_lock);
	if (perf_self == pt)
		perf_self = NULL;
	for (i = 0; i < PERF_SLOTS; i++) {
		if (pt->page[i])
			munmap(pt->page[i], (size_t)sysconf(_SC_PAGESIZE));
		if (pt->fd[i] >= 0)
			close(pt->fd[i]);
	}
	munmap(pt, sizeof(*pt));
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The calling thread's block, created (and registered for its exit) on
 * first use; NULL when that fails. Signals blocked. */
static struct perf_thread *perf_thread_get(void)
{
	struct perf_thread *pt = perf_self;
	int i;

	if (pt || !__atomic_load_n(&perf_key_ok, __ATOMIC_ACQUIRE))
		return pt;
	pt = mmap(NULL, sizeof(*pt), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pt == MAP_FAILED)
		return NULL;
	for (i = 0; i < PERF_SLOTS; i++)
		pt->fd[i] = PERF_FD_UNOPENED;
	/* Without the key's destructor the fds would outlive the thread:
	 * no counter then. */
	if (pthread_setspecific(perf_key, pt)) {
		munmap(pt, sizeof(*pt));
		return NULL;
	}
	pthread_mutex_lock(&perf_lock);
	pt->next = perf_threads;
	pt->pprev = &perf_threads;
	if (perf_threads)
		perf_threads->pprev = &pt->next;
	perf_threads = pt;
	pthread_mutex_unlock(&perf_lock);
	perf_self = pt;
	return pt;
}

/* Opens counter @slot for the calling thread: its fd, or PERF_FD_FAILED. */
static int __attribute__((noinline)) perf_open(uint32_t slot)
{
	struct perf_thread *pt;
	sigset_t old;
	int fd = PERF_FD_FAILED;

	block_signals(&old);
	pt = perf_thread_get();
	if (!pt)
		goto out;
	fd = pt->fd[slot];
	if (fd != PERF_FD_UNOPENED)
		goto out; /* a signal handler opened it before we blocked signals */
	fd = trawl_wire_counter_open(perf_slots[slot].type, perf_slots[slot].config);
	if (fd < 0) {
		fd = PERF_FD_FAILED;
	} else if (perf_slots[slot].type != PERF_TYPE_SOFTWARE) {
		/* The page tells whether rdpmc may read the counter. */
		void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);

		pt->page[slot] = p == MAP_FAILED ? NULL : p;
	}
	pt->fd[slot] = fd;
out:
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return fd;
}

#if defined(__x86_64__)
/* Self-monitoring read of <linux/perf_event.h> (struct
 * perf_event_mmap_page): retried while the kernel updates the page (its
 * seqcount, lock); 0 when rdpmc cannot be used now (no permission, or the
 * counter is not on the PMU: index 0). */
static int perf_rdpmc(const volatile struct perf_event_mmap_page *pc, uint64_t *value)
{
	uint32_t seq, idx, lo, hi;
	uint64_t count;

	do {
		seq = pc->lock;
		__atomic_signal_fence(__ATOMIC_SEQ_CST); /* the loads below after seq */
		idx = pc->index;
		if (!pc->cap_user_rdpmc || !idx)
			return 0;
		count = (uint64_t)pc->offset;
		__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx - 1));
		{
			uint16_t width = pc->pmc_width;
			/* Sign-extend the counter's @width bits. */
			int64_t pmc = (int64_t)(((uint64_t)hi << 32 | lo) << (64 - width)) >> (64 - width);

			count += (uint64_t)pmc;
		}
		__atomic_signal_fence(__ATOMIC_SEQ_CST); /* ... and before seq is checked */
	} while (pc->lock != seq);
	*value = count;
	return 1;
}
#endif

static uint64_t perf_read(uint32_t slot)
{
	struct perf_thread *pt = perf_self;
	uint64_t v;
	int fd;

	if (trawl_unlikely(!pt || pt->fd[slot] == PERF_FD_UNOPENED)) {
		fd = perf_open(slot);
		pt = perf_self;
	} else {
		fd = pt->fd[slot];
	}
	if (fd < 0)
		return TRAWL_USTCTL_COUNTER_UNAVAILABLE;
#if defined(__x86_64__)
	if (pt->page[slot] && perf_rdpmc(pt->page[slot], &v))
		return v;
#endif
	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return TRAWL_USTCTL_COUNTER_UNAVAILABLE;
	return v;
}

/* ---- writing ---- */

char *trawl_ust_write_contexts(char *p, const struct trawl_ust_chan *chan, void *ip)
{
	uint32_t contexts = chan->contexts, i;

	if (trawl_unlikely(!tctx.tid))
		thread_ctx_init();
	if (contexts & TRAWL_USTCTL_CTX_VPID) {
		memcpy(p, &trawl_ust_pid, 4);
		p += 4;
	}
	if (contexts & TRAWL_USTCTL_CTX_VTID) {
		memcpy(p, &tctx.tid, 4);
		p += 4;
	}
	if (contexts & TRAWL_USTCTL_CTX_PID) {
		memcpy(p, &trawl_ust_pid, 4);
		p += 4;
	}
	if (contexts & TRAWL_USTCTL_CTX_TID) {
		memcpy(p, &tctx.tid, 4);
		p += 4;
	}
	if (contexts & TRAWL_USTCTL_CTX_PROCNAME) {
		memcpy(p, tctx.procname, 17);
		p += 17;
	}
	if (contexts & TRAWL_USTCTL_CTX_PTHREAD_ID) {
		memcpy(p, &tctx.pthread_id, 8);
		p += 8;
	}
	if (contexts & TRAWL_USTCTL_CTX_PPID) {
		memcpy(p, &trawl_ust_ppid, 4);
		p += 4;
	}
	if (contexts & TRAWL_USTCTL_CTX_IP) {
		uint64_t v = (uint64_t)(uintptr_t)ip;

		memcpy(p, &v, 8);
		p += 8;
	}
	if (contexts & (TRAWL_USTCTL_CTX_PRIO | TRAWL_USTCTL_CTX_NICE)) {
		int32_t prio = 0, nice = 0;

		read_sched(!!(contexts & TRAWL_USTCTL_CTX_PRIO), &prio, &nice);
		if (contexts & TRAWL_USTCTL_CTX_PRIO) {
			memcpy(p, &prio, 4);
			p += 4;
		}
		if (contexts & TRAWL_USTCTL_CTX_NICE) {
			memcpy(p, &nice, 4);
			p += 4;
		}
	}
	for (i = 0; contexts & TRAWL_USTCTL_CTX_NS_ALL && i < TRAWL_USTCTL_CTX_NS_COUNT; i++) {
		uint64_t v;

		if (!(contexts & (1u << (TRAWL_USTCTL_CTX_NS_FIRST + i))))
			continue;
		v = ns_inode(i);
		memcpy(p, &v, 8);
		p += 8;
	}
	for (i = 0; i < chan->nr_counters; i++) {
		uint64_t v = perf_read(chan->counter_slot[i]);

		memcpy(p, &v, 8);
		p += 8;
	}
	return p;
}

/* ---- for filters ($ctx.NAME: filter.c) ---- */

void trawl_ust_context_thread(int32_t *tid, const char **procname, uint64_t *pthread_id)
{
	if (trawl_unlikely(!tctx.tid))
		thread_ctx_init();
	*tid = tctx.tid;
	*procname = tctx.procname;
	*pthread_id = tctx.pthread_id;
}

void trawl_ust_context_sched(int32_t *prio, int32_t *nice)
{
	read_sched(1, prio, nice);
}

/* ---- fork ---- */

void trawl_ust_context_before_fork(void)
{
	pthread_mutex_lock(&perf_lock);
}

void trawl_ust_context_after_fork_parent(void)
{
	pthread_mutex_unlock(&perf_lock);
}

/* A fork()ed child's threads are new threads: forget the parent's cache,
 * and close the counters every parent thread had open (top comment). */
void trawl_ust_context_after_fork_child(void)
{
	struct perf_thread *pt, *next;
	int i;

	memset(&tctx, 0, sizeof(tctx));
	pthread_mutex_init(&perf_lock, NULL);
	for (pt = perf_threads; pt; pt = next) {
		next = pt->next;
		for (i = 0; i < PERF_SLOTS; i++)
			if (pt->fd[i] >= 0)
				close(pt->fd[i]);
		munmap(pt, sizeof(*pt));
	}
	perf_threads = NULL;
	if (perf_self) {
		perf_self = NULL;
		pthread_setspecific(perf_key, NULL);
	}
}

static void __attribute__((constructor)) context_init(void)
{
	if (!pthread_key_create(&perf_key, perf_thread_destroy))
		__atomic_store_n(&perf_key_ok, 1, __ATOMIC_RELEASE);
}
