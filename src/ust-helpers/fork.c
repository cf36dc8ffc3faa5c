/* SPDX-License-Identifier: MIT */
/*
 * fork.c - libtrawl-ust-fork (LTTng-UST's liblttng-ust-fork): a child made
 * by fork(), daemon() or clone() is traced from its first event, under its
 * own pid.
 *
 * libtrawl-ust itself resets a fork()ed child (pthread_atfork: the parent's
 * buffers dropped, a new registration started) and makes fork() return in
 * the child once the child is set up by the running session daemons (at
 * most TRAWL_UST_REGISTER_TIMEOUT ms, as a program's start-up: src/ust/agent.c),
 * so fork() and daemon() need nothing more; this library wraps them all the
 * same (the wait is then already done), as liblttng-ust-fork does. What it
 * adds is clone() without CLONE_VM: a new process the C library's fork
 * handlers never see, which would otherwise record into its parent's
 * shared buffers under the parent's pid (tests/ust e2e.py fork-helper).
 * With CLONE_VM (a thread) clone() is left alone.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#include <trawl/ust-helpers.h>

#include "common/common.h"

/* The next definition of @name (the C library's): NULL, said once, if none. */
static void *next_fn(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f)
		fprintf(stderr, "libtrawl-ust-fork: no %s to wrap: %s\n", name, dlerror());
	return f;
}

TRAWL_EXPORT pid_t fork(void)
{
	static pid_t (*real)(void);
	pid_t pid;
	int err;

	if (!real && !(*(void **)&real = next_fn("fork"))) {
		errno = ENOSYS;
		return -1;
	}
	pid = real();
	err = errno;
	if (pid == 0)
		trawl_ust_fork_child_wait();
	errno = err;
	return pid;
}

TRAWL_EXPORT int daemon(int nochdir, int noclose)
{
	static int (*real)(int, int);
	int ret, err;

	if (!real && !(*(void **)&real = next_fn("daemon"))) {
		errno = ENOSYS;
		return -1;
	}
	/* The C library's daemon() forks: its fork handlers reset the child. */
	ret = real(nochdir, noclose);
	err = errno;
	if (ret == 0)
		trawl_ust_fork_child_wait();
	errno = err;
	return ret;
}

struct clone_call {
	int (*fn)(void *);
	void *arg;
};

/* The child's start: it has a copy of the parent's memory (no CLONE_VM),
 * @arg included. */
static int clone_child(void *arg)
{
	const struct clone_call *c = arg;

	trawl_ust_fork_child();
	trawl_ust_fork_child_wait();
	return c->fn(c->arg);
}

TRAWL_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	static int (*real)(int (*)(void *), void *, int, void *, ...);
	struct clone_call c = { fn, arg };
	pid_t *ptid, *ctid;
	void *tls;
	va_list ap;
	int ret, err;

	va_start(ap, arg);
	ptid = va_arg(ap, pid_t *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, pid_t *);
	va_end(ap);
	if (!real && !(*(void **)&real = next_fn("clone"))) {
		errno = ENOSYS;
		return -1;
	}
	if (flags & CLONE_VM)
		return real(fn, stack, flags, arg, ptid, tls, ctid);
	trawl_ust_fork_prepare();
	ret = real(clone_child, stack, flags, &c, ptid, tls, ctid);
	err = errno;
	trawl_ust_fork_parent();
	errno = err;
	return ret;
}
