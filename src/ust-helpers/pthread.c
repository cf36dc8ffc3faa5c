/* SPDX-License-Identifier: MIT */
/*
 * pthread.c - libtrawl-ust-pthread-wrapper (LTTng-UST's
 * liblttng-ust-pthread-wrapper), preloaded: pthread_mutex_lock, _trylock
 * and _unlock call the C library's and record lttng_ust_pthread:* (a lock
 * as its request, then its acquisition with the status), with the caller's
 * address. A thread's calls made while it records (the tracer's own locks)
 * go straight through (initial-exec TLS: reading it never locks).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "common/common.h"

#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_PROVIDER_HIDDEN_DEFINITION
#define TP_IP_PARAM ip
#include "ust-helpers/tp-pthread.h"

typedef int (*mutex_fn)(pthread_mutex_t *);

static __thread int in_trace __attribute__((tls_model("initial-exec")));

static mutex_fn next_fn(mutex_fn *cache, const char *name)
{
	if (!*cache) {
		*(void **)cache = dlsym(RTLD_NEXT, name);
		if (!*cache)
			fprintf(stderr, "libtrawl-ust-pthread-wrapper: no %s to wrap\n", name);
	}
	return *cache;
}

TRAWL_EXPORT int pthread_mutex_lock(pthread_mutex_t *mutex)
{
	static mutex_fn real;
	mutex_fn f = next_fn(&real, "pthread_mutex_lock");
	void *ip = __builtin_return_address(0);
	int ret;

	if (!f)
		return EINVAL;
	if (in_trace)
		return f(mutex);
	in_trace = 1;
	tracepoint(lttng_ust_pthread, pthread_mutex_lock_req, mutex, ip);
	ret = f(mutex);
	tracepoint(lttng_ust_pthread, pthread_mutex_lock_acq, mutex, ret, ip);
	in_trace = 0;
	return ret;
}

TRAWL_EXPORT int pthread_mutex_trylock(pthread_mutex_t *mutex)
{
	static mutex_fn real;
	mutex_fn f = next_fn(&real, "pthread_mutex_trylock");
	int ret;

	if (!f)
		return EINVAL;
	if (in_trace)
		return f(mutex);
	in_trace = 1;
	ret = f(mutex);
	tracepoint(lttng_ust_pthread, pthread_mutex_trylock, mutex, ret, __builtin_return_address(0));
	in_trace = 0;
	return ret;
}

TRAWL_EXPORT int pthread_mutex_unlock(pthread_mutex_t *mutex)
{
	static mutex_fn real;
	mutex_fn f = next_fn(&real, "pthread_mutex_unlock");
	int ret;

	if (!f)
		return EINVAL;
	if (in_trace)
		return f(mutex);
	in_trace = 1;
	ret = f(mutex);
	tracepoint(lttng_ust_pthread, pthread_mutex_unlock, mutex, ret, __builtin_return_address(0));
	in_trace = 0;
	return ret;
}
