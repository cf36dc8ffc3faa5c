/* SPDX-License-Identifier: MIT */
/*
 * The context test app (tests/ust/e2e.py contexts): threads that change
 * their nice value, touch fresh pages and sleep between tctx:mark events,
 * so that the prio, nice and perf:thread contexts can be checked against
 * what happened. Roles and steps (role, step):
 *
 *   main (0): 0 first event; 10 after A, B, C, D and E exited (perf_fds: only
 *             main's counters left open); 99 after the fork child exited
 *   A (1):    0 after nice 5; 1 after touching PAGES fresh pages; 2 after a
 *             20 ms sleep; 3 after main set A's nice to 12 from outside
 *   B (2):    0 after nice 10, concurrently with A's step 0; 1 after A's
 *             step 2 (B's page faults do not count A's)
 *   C (3):    a thread created after A and B exited: 0, then 1 after
 *             touching PAGES pages
 *   child (4): the fork child (a new app): 0 (perf_fds: the parent's
 *             counters were closed at fork), 1 after touching PAGES
 *             pages, 2 (perf_fds: its own counters)
 *   D (5):    a thread that cannot open its counters (RLIMIT_NOFILE at the
 *             lowest free fd: EMFILE): 0 and 1, the app unharmed
 *   E (6):    nice 3, then SCHED_FIFO priority 10: 0 (perf_fds -2: the
 *             policy could not be set, not root)
 *
 * Every event also carries the kernel's own priority and nice of the
 * thread, read from /proc just before it: the prio/nice contexts' oracle.
 *
 *   app-ctx [wait ms]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tp-ctx.h"

#define PAGES 64

/* The kernel's view of the calling thread: /proc's "priority" (task_prio)
 * and "nice", fields 18 and 19 of stat; -1000 when it cannot be read. */
static void proc_prio(int32_t *prio, int32_t *nice)
{
	char buf[1024], *p;
	ssize_t n;
	int fd = open("/proc/thread-self/stat", O_RDONLY | O_CLOEXEC), i;

	*prio = *nice = -1000;
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* After ") ": state is field 3; priority is 15 fields further. */
	for (i = 0; p && i < 16; i++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p + 1, "%d %d", prio, nice);
}

#define MARK(role, step, fds)                                                      \
	do {                                                                        \
		int32_t kprio_, knice_;                                              \
		proc_prio(&kprio_, &knice_);                                        \
		tracepoint(tctx, mark, role, step, fds, kprio_, knice_);             \
	} while (0)

static pthread_barrier_t both_started, a_done;
static sem_t a_ready, a_reniced;
static pid_t tid_a;

/* Open perf_event fds of this process, from /proc/self/fd. */
static int perf_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], target[128];
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = '\0';
			n += strstr(target, "perf_event") != NULL;
		}
	}
	closedir(d);
	return n;
}

static void touch_pages(void)
{
	long size = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)size * PAGES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		exit(3);
	for (i = 0; i < PAGES; i++)
		((volatile char *)p)[(long)i * size] = 1;
	munmap(p, (size_t)size * PAGES);
}

static void *thread_a(void *arg)
{
	struct timespec ms20 = { 0, 20000000 };

	(void)arg;
	tid_a = gettid();
	if (setpriority(PRIO_PROCESS, 0, 5))
		exit(4);
	MARK(1, 0, -1);
	pthread_barrier_wait(&both_started);
	touch_pages();
	MARK(1, 1, -1);
	nanosleep(&ms20, NULL);
	MARK(1, 2, -1);
	pthread_barrier_wait(&a_done);
	sem_post(&a_ready);
	while (sem_wait(&a_reniced))
		;
	MARK(1, 3, -1);
	return NULL;
}

static void *thread_b(void *arg)
{
	(void)arg;
	if (setpriority(PRIO_PROCESS, 0, 10))
		exit(4);
	MARK(2, 0, -1);
	pthread_barrier_wait(&both_started);
	pthread_barrier_wait(&a_done);
	MARK(2, 1, -1);
	return NULL;
}

static void *thread_c(void *arg)
{
	(void)arg;
	MARK(3, 0, -1);
	touch_pages();
	MARK(3, 1, -1);
	return NULL;
}

static void *thread_d(void *arg)
{
	(void)arg;
	MARK(5, 0, -1);
	touch_pages();
	MARK(5, 1, -1);
	return NULL;
}

static void *thread_e(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };

	(void)arg;
	if (setpriority(PRIO_PROCESS, 0, 3))
		exit(4);
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)) {
		MARK(6, 0, -2);
		return NULL;
	}
	MARK(6, 0, -1);
	return NULL;
}

/* Runs thread D with no fd to spare: every open() fails with EMFILE. */
static int run_without_fds(void)
{
	struct rlimit old, none;
	int lowest = dup(0);
	pthread_t d;

	if (lowest < 0 || close(lowest) || getrlimit(RLIMIT_NOFILE, &old))
		return -1;
	none = old;
	none.rlim_cur = (rlim_t)lowest;
	if (setrlimit(RLIMIT_NOFILE, &none) || pthread_create(&d, NULL, thread_d, NULL))
		return -1;
	pthread_join(d, NULL);
	return setrlimit(RLIMIT_NOFILE, &old);
}

int main(int argc, char **argv)
{
	int wait_ms = argc > 1 ? atoi(argv[1]) : 5000;
	pthread_t a, b, c;
	int i, status;
	pid_t pid;

	for (i = 0; i < wait_ms && !tracepoint_enabled(tctx, mark); i++)
		usleep(1000);
	MARK(0, 0, perf_fds());
	pthread_barrier_init(&both_started, NULL, 2);
	pthread_barrier_init(&a_done, NULL, 2);
	sem_init(&a_ready, 0, 0);
	sem_init(&a_reniced, 0, 0);
	if (pthread_create(&a, NULL, thread_a, NULL) || pthread_create(&b, NULL, thread_b, NULL))
		return 2;
	while (sem_wait(&a_ready))
		;
	/* From outside the thread: A never learns of it but by the kernel. */
	if (setpriority(PRIO_PROCESS, (id_t)tid_a, 12))
		return 4;
	sem_post(&a_reniced);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (pthread_create(&c, NULL, thread_c, NULL))
		return 2;
	pthread_join(c, NULL);
	if (run_without_fds())
		return 6;
	if (pthread_create(&c, NULL, thread_e, NULL))
		return 2;
	pthread_join(c, NULL);
	MARK(0, 10, perf_fds());
	pid = fork();
	if (pid == 0) {
		int before = perf_fds();

		/* Not traced until this process registers by itself. */
		for (i = 0; i < wait_ms && !tracepoint_enabled(tctx, mark); i++)
			usleep(1000);
		MARK(4, 0, before);
		touch_pages();
		MARK(4, 1, -1);
		MARK(4, 2, perf_fds());
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 5;
	MARK(0, 99, perf_fds());
	return 0;
}
