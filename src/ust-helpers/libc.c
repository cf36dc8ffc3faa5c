/* SPDX-License-Identifier: MIT */
/*
 * libc.c - libtrawl-ust-libc-wrapper (LTTng-UST's
 * liblttng-ust-libc-wrapper), preloaded: malloc, free, calloc, realloc,
 * memalign and posix_memalign call the C library's and record
 * lttng_ust_libc:* with the result and the caller's address.
 *
 * Two traps, as in any allocator wrapper:
 *  - finding the C library's functions (dlsym()) allocates: until they are
 *    known, allocations come from a small static arena (each block led by
 *    its size, for realloc()); free() of an arena block does nothing.
 *  - recording an event may allocate (a thread's first event, a perf
 *    counter), and so may the code around it: only the outermost call of
 *    each thread is recorded (a per-thread nesting count, initial-exec TLS
 *    so that reading it never allocates).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_PROVIDER_HIDDEN_DEFINITION
#define TP_IP_PARAM ip
#include "ust-helpers/tp-libc.h"

struct real_fns {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*memalign)(size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
};

static struct real_fns real;
static int looking_up;

static __thread int nesting __attribute__((tls_model("initial-exec")));

/* ---- the bootstrap arena ---- */

#define ARENA_SIZE 8192
static union {
	char b[ARENA_SIZE];
	max_align_t align;
} arena;
static size_t arena_used; /* bytes handed out (compare-and-swap) */

static int in_arena(const void *p)
{
	return (const char *)p >= arena.b && (const char *)p < arena.b + ARENA_SIZE;
}

/* @size bytes aligned to @align (a power of two), led by their size; any
 * thread (a thread allocating while another looks the functions up). */
static void *arena_alloc(size_t size, size_t align)
{
	size_t hdr = sizeof(size_t), used, at;

	if (align < sizeof(max_align_t))
		align = sizeof(max_align_t);
	used = __atomic_load_n(&arena_used, __ATOMIC_RELAXED);
	do {
		at = (used + hdr + align - 1) & ~(align - 1);
		if (at > ARENA_SIZE || size > ARENA_SIZE - at)
			return NULL;
		/* Relaxed: the block is this thread's alone once claimed. */
	} while (!__atomic_compare_exchange_n(&arena_used, &used, at + size, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	memcpy(arena.b + at - hdr, &size, hdr);
	return arena.b + at;
}

static size_t arena_size(const void *p)
{
	size_t size;

	memcpy(&size, (const char *)p - sizeof(size), sizeof(size));
	return size;
}

static void lookup(void)
{
	looking_up = 1;
	*(void **)&real.calloc = dlsym(RTLD_NEXT, "calloc");
	*(void **)&real.malloc = dlsym(RTLD_NEXT, "malloc");
	*(void **)&real.free = dlsym(RTLD_NEXT, "free");
	*(void **)&real.realloc = dlsym(RTLD_NEXT, "realloc");
	*(void **)&real.memalign = dlsym(RTLD_NEXT, "memalign");
	*(void **)&real.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	looking_up = 0;
}

/* The C library's functions, or NULL while they are being looked up. */
static const struct real_fns *fns(void)
{
	if (__atomic_load_n(&looking_up, __ATOMIC_RELAXED))
		return NULL;
	if (!__atomic_load_n((void **)&real.posix_memalign, __ATOMIC_ACQUIRE))
		lookup();
	return looking_up ? NULL : &real;
}

/* ---- the wrappers ---- */

TRAWL_EXPORT void *malloc(size_t size)
{
	const struct real_fns *f = fns();
	void *p;

	if (!f || !f->malloc)
		return arena_alloc(size, 1);
	nesting++;
	p = f->malloc(size);
	if (nesting == 1)
		tracepoint(lttng_ust_libc, malloc, size, p, __builtin_return_address(0));
	nesting--;
	return p;
}

TRAWL_EXPORT void free(void *ptr)
{
	const struct real_fns *f;

	if (in_arena(ptr))
		return; /* the arena is never given back */
	f = fns();
	if (!f || !f->free)
		return;
	nesting++;
	if (nesting == 1)
		tracepoint(lttng_ust_libc, free, ptr, __builtin_return_address(0));
	f->free(ptr);
	nesting--;
}

TRAWL_EXPORT void *calloc(size_t nmemb, size_t size)
{
	const struct real_fns *f = fns();
	void *p;

	if (!f || !f->calloc) {
		/* The arena is zeroed and never reused. */
		if (size && nmemb > SIZE_MAX / size)
			return NULL;
		return arena_alloc(nmemb * size, 1);
	}
	nesting++;
	p = f->calloc(nmemb, size);
	if (nesting == 1)
		tracepoint(lttng_ust_libc, calloc, nmemb, size, p, __builtin_return_address(0));
	nesting--;
	return p;
}

TRAWL_EXPORT void *realloc(void *ptr, size_t size)
{
	const struct real_fns *f = fns();
	void *p = NULL;

	nesting++;
	if (in_arena(ptr)) {
		/* Out of the arena into the C library's heap (or the arena
		 * again, while the functions are looked up). */
		size_t old = arena_size(ptr);

		p = f && f->malloc ? f->malloc(size) : arena_alloc(size, 1);
		if (p)
			memcpy(p, ptr, old < size ? old : size);
	} else if (f && f->realloc) {
		p = f->realloc(ptr, size);
	}
	if (f && nesting == 1)
		tracepoint(lttng_ust_libc, realloc, ptr, size, p, __builtin_return_address(0));
	nesting--;
	return p;
}

TRAWL_EXPORT void *memalign(size_t alignment, size_t size)
{
	const struct real_fns *f = fns();
	void *p;

	if (!f || !f->memalign)
		return alignment && !(alignment & (alignment - 1)) ? arena_alloc(size, alignment) : NULL;
	nesting++;
	p = f->memalign(alignment, size);
	if (nesting == 1)
		tracepoint(lttng_ust_libc, memalign, alignment, size, p, __builtin_return_address(0));
	nesting--;
	return p;
}

TRAWL_EXPORT int posix_memalign(void **memptr, size_t alignment, size_t size)
{
	const struct real_fns *f = fns();
	int ret;

	if (!f || !f->posix_memalign) {
		if (!alignment || (alignment & (alignment - 1)) || alignment % sizeof(void *))
			return EINVAL;
		*memptr = arena_alloc(size, alignment);
		return *memptr ? 0 : ENOMEM;
	}
	nesting++;
	ret = f->posix_memalign(memptr, alignment, size);
	if (nesting == 1)
		tracepoint(lttng_ust_libc, posix_memalign, *memptr, alignment, size, ret,
			   __builtin_return_address(0));
	nesting--;
	return ret;
}
