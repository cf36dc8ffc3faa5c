/* SPDX-License-Identifier: MIT */
/*
 * dl.c - libtrawl-ust-dl (LTTng-UST's liblttng-ust-dl), preloaded: dlopen(),
 * dlmopen() and dlclose() call the C library's and record
 * lttng_ust_dl:dlopen / dlmopen (with build_id and debug_link, read from
 * the object's file: src/ust/elf.c) and lttng_ust_dl:dlclose, with their
 * caller's address; then libtrawl-ust records the objects that came or
 * went with them (lttng_ust_lib:*, trawl_ust_dl_update()). The object's
 * address is its load bias (link map's l_addr), as LTTng-UST reports it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

#include <trawl/ust-helpers.h>

#include "common/common.h"
#include "ust/elf.h"

#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_PROVIDER_HIDDEN_DEFINITION
#define TP_IP_PARAM ip
#include "ust-helpers/tp-dl.h"

static void *next_fn(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f)
		fprintf(stderr, "libtrawl-ust-dl: no %s to wrap: %s\n", name, dlerror());
	return f;
}

/* The link map of @handle with a non-zero load bias (not the program). */
static struct link_map *map_of(void *handle)
{
	struct link_map *m = NULL;

	if (!handle || dlinfo(handle, RTLD_DI_LINKMAP, &m) == -1 || !m || !m->l_addr)
		return NULL;
	return m;
}

/* The object's file information; 0, or -1 when it has no readable file. */
static int object_info(const struct link_map *m, char *path, struct trawl_ust_elf_info *info)
{
	if (!m->l_name || !realpath(m->l_name, path))
		return -1;
	return trawl_ust_elf_read(path, info) ? -1 : 0;
}

static void emit_ids(void *ip, void *baddr, const struct trawl_ust_elf_info *info)
{
	if (info->has_build_id)
		tracepoint(lttng_ust_dl, build_id, ip, baddr, info->build_id, info->build_id_len);
	if (info->has_debug_link)
		tracepoint(lttng_ust_dl, debug_link, ip, baddr, info->debug_link, info->crc);
}

/* From now on, libtrawl-ust follows the loader: a module that registers
 * tracepoints while being dlopen()ed has its objects recorded as loaded
 * before its dlopen event, in LTTng-UST's order. */
static void __attribute__((constructor)) dl_helper_init(void)
{
	trawl_ust_dl_update(NULL);
}

TRAWL_EXPORT void *dlopen(const char *filename, int flags)
{
	static void *(*real)(const char *, int);
	void *ip = __builtin_return_address(0), *h;
	struct trawl_ust_elf_info info;
	char path[PATH_MAX];
	struct link_map *m;

	if (!real && !(*(void **)&real = next_fn("dlopen")))
		return NULL;
	h = real(filename, flags);
	m = map_of(h);
	if (m && tracepoint_enabled(lttng_ust_dl, dlopen) && !object_info(m, path, &info)) {
		tracepoint(lttng_ust_dl, dlopen, ip, (void *)m->l_addr, path, flags, info.memsz, info.has_build_id,
			   info.has_debug_link);
		emit_ids(ip, (void *)m->l_addr, &info);
	}
	trawl_ust_dl_update(ip);
	return h;
}

TRAWL_EXPORT void *dlmopen(Lmid_t nsid, const char *filename, int flags)
{
	static void *(*real)(Lmid_t, const char *, int);
	void *ip = __builtin_return_address(0), *h;
	struct trawl_ust_elf_info info;
	char path[PATH_MAX];
	struct link_map *m;

	if (!real && !(*(void **)&real = next_fn("dlmopen")))
		return NULL;
	h = real(nsid, filename, flags);
	m = map_of(h);
	if (m && tracepoint_enabled(lttng_ust_dl, dlmopen) && !object_info(m, path, &info)) {
		tracepoint(lttng_ust_dl, dlmopen, ip, (void *)m->l_addr, nsid, path, flags, info.memsz,
			   info.has_build_id, info.has_debug_link);
		emit_ids(ip, (void *)m->l_addr, &info);
	}
	trawl_ust_dl_update(ip);
	return h;
}

TRAWL_EXPORT int dlclose(void *handle)
{
	static int (*real)(void *);
	void *ip = __builtin_return_address(0);
	struct link_map *m = map_of(handle);
	int ret;

	if (!real && !(*(void **)&real = next_fn("dlclose")))
		return -1;
	if (m)
		tracepoint(lttng_ust_dl, dlclose, ip, (void *)m->l_addr);
	ret = real(handle);
	trawl_ust_dl_update(ip);
	return ret;
}
