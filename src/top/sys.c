/* SPDX-License-Identifier: MIT */
/*
 * System calls: an entry is remembered per thread; its exit gives the
 * latency (exit time - entry time), the result (negative: an error), and
 * for the calls that act on files, the bytes moved and which file: each
 * process has an fd table filled from open*() results (their path comes
 * from the entry's string argument, as LTTng-modules records it), dup*(),
 * fork (a copy) and LTTng's state dump; close() empties a slot.
 */
#include "top.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	enum trawl_top_sc_kind kind;
} sc_kinds[] = {
	{ "read", TRAWL_TOP_SC_READ },		{ "pread64", TRAWL_TOP_SC_READ },
	{ "readv", TRAWL_TOP_SC_READ },		{ "preadv", TRAWL_TOP_SC_READ },
	{ "preadv2", TRAWL_TOP_SC_READ },	{ "recvfrom", TRAWL_TOP_SC_READ },
	{ "recvmsg", TRAWL_TOP_SC_READ },	{ "write", TRAWL_TOP_SC_WRITE },
	{ "pwrite64", TRAWL_TOP_SC_WRITE },	{ "writev", TRAWL_TOP_SC_WRITE },
	{ "pwritev", TRAWL_TOP_SC_WRITE },	{ "pwritev2", TRAWL_TOP_SC_WRITE },
	{ "sendto", TRAWL_TOP_SC_WRITE },	{ "sendmsg", TRAWL_TOP_SC_WRITE },
	{ "open", TRAWL_TOP_SC_OPEN },		{ "openat", TRAWL_TOP_SC_OPEN },
	{ "openat2", TRAWL_TOP_SC_OPEN },	{ "creat", TRAWL_TOP_SC_OPEN },
	{ "close", TRAWL_TOP_SC_CLOSE },	{ "dup", TRAWL_TOP_SC_DUP },
	{ "dup2", TRAWL_TOP_SC_DUP },		{ "dup3", TRAWL_TOP_SC_DUP },
	{ "lseek", TRAWL_TOP_SC_FD },		{ "fstat", TRAWL_TOP_SC_FD },
	{ "newfstat", TRAWL_TOP_SC_FD },	{ "fsync", TRAWL_TOP_SC_FD },
	{ "fdatasync", TRAWL_TOP_SC_FD },	{ "ioctl", TRAWL_TOP_SC_FD },
	{ "fcntl", TRAWL_TOP_SC_FD },		{ "ftruncate", TRAWL_TOP_SC_FD },
	{ "fallocate", TRAWL_TOP_SC_FD },	{ "getdents64", TRAWL_TOP_SC_FD },
	{ "getdents", TRAWL_TOP_SC_FD },	{ "flock", TRAWL_TOP_SC_FD },
	{ "mmap", TRAWL_TOP_SC_FD },		{ "fadvise64", TRAWL_TOP_SC_FD },
	{ "splice", TRAWL_TOP_SC_FD },		{ "sendfile64", TRAWL_TOP_SC_FD },
};

enum trawl_top_sc_kind trawl_top_sc_kind_of(const char *call)
{
	for (size_t i = 0; i < sizeof(sc_kinds) / sizeof(sc_kinds[0]); i++)
		if (!strcmp(sc_kinds[i].name, call))
			return sc_kinds[i].kind;
	return TRAWL_TOP_SC_OTHER;
}

void trawl_top_sys_entry(struct trawl_top_model *m, struct trawl_top_thread *t, int64_t ts,
			 uint32_t id, int64_t fd, int64_t fd2, int64_t path)
{
	t->sc_pending = 1;
	t->sc_id = id;
	t->sc_begin = ts;
	t->sc_fd = fd;
	t->sc_fd2 = fd2;
	t->sc_path = path;
}

/* pids are below 2^22 (PID_MAX_LIMIT), so (pid << 32) ^ id is unique; -1 too */
static inline uint64_t sc_key(int64_t pid, uint32_t id)
{
	return ((uint64_t)pid << 32) ^ id;
}

static struct trawl_top_sc *sc_get(struct trawl_top_model *m, int64_t pid, uint32_t id)
{
	uint64_t key = sc_key(pid, id);
	struct trawl_top_sc *sc = trawl_top_map_get(&m->scs, key);

	if (sc)
		return sc;
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return NULL;
	sc->pid = pid;
	sc->id = id;
	sc->min_ns = UINT64_MAX;
	if (trawl_top_map_put(&m->scs, key, sc) < 0) {
		free(sc);
		return NULL;
	}
	return sc;
}

static void sc_count(struct trawl_top_sc *sc, int err, int has_lat, uint64_t lat)
{
	if (!sc)
		return;
	sc->count++;
	sc->errors += err;
	if (!has_lat)
		return;
	sc->total_ns += lat;
	if (lat < sc->min_ns)
		sc->min_ns = lat;
	if (lat > sc->max_ns)
		sc->max_ns = lat;
	trawl_top_samples_add(&sc->lat, lat);
}

/* The path of @fd in @p, as interned id, or -1. */
static int64_t fd_path(struct trawl_top_proc *p, int64_t fd)
{
	uintptr_t v = (uintptr_t)trawl_top_map_get(&p->fds, (uint64_t)fd);

	return v ? (int64_t)v - 1 : -1;
}

static void fd_put(struct trawl_top_proc *p, int64_t fd, int64_t path)
{
	if (fd >= 0 && path >= 0)
		trawl_top_map_put(&p->fds, (uint64_t)fd, (void *)(uintptr_t)(path + 1));
}

/* A file row for a fd whose path is unknown: "fd N" (opened before the trace). */
static int64_t unknown_path(struct trawl_top_model *m, int64_t fd)
{
	char name[32];
	int n = snprintf(name, sizeof(name), "<fd %lld>", (long long)fd);

	return trawl_top_intern_id(&m->names, name, (size_t)n);
}

static struct trawl_top_file *file_get(struct trawl_top_model *m, int64_t pid, int64_t path)
{
	uint64_t key = ((uint64_t)pid << 32) ^ (uint64_t)path;
	struct trawl_top_file *f = trawl_top_map_get(&m->files, key);

	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->pid = pid;
	f->path = (uint32_t)path;
	if (trawl_top_map_put(&m->files, key, f) < 0) {
		free(f);
		return NULL;
	}
	return f;
}

static void sys_file(struct trawl_top_model *m, struct trawl_top_thread *t,
		     enum trawl_top_sc_kind kind, int64_t ret, int has_lat, uint64_t lat)
{
	struct trawl_top_proc *p = trawl_top_model_proc_of(m, t);
	struct trawl_top_file *f;
	int64_t path = -1;

	if (!p)
		return;
	if (kind == TRAWL_TOP_SC_OPEN) {
		path = t->sc_path;
		if (ret >= 0)
			fd_put(p, ret, path);
	} else if (t->sc_fd >= 0) {
		path = fd_path(p, t->sc_fd);
		if (path < 0) {
			/* remembered, so the next call on it costs a lookup */
			path = unknown_path(m, t->sc_fd);
			fd_put(p, t->sc_fd, path);
		}
		if (kind == TRAWL_TOP_SC_CLOSE && ret == 0)
			trawl_top_map_del(&p->fds, (uint64_t)t->sc_fd);
		if (kind == TRAWL_TOP_SC_DUP && ret >= 0)
			fd_put(p, ret, fd_path(p, t->sc_fd));
	}
	if (path < 0 || !(f = file_get(m, p->pid, path)))
		return;
	f->calls++;
	if (has_lat) {
		f->total_ns += lat;
		if (lat > f->max_ns)
			f->max_ns = lat;
	}
	if (ret < 0)
		return;
	if (kind == TRAWL_TOP_SC_READ) {
		f->reads++;
		f->read_bytes += (uint64_t)ret;
		t->n.read_bytes += (uint64_t)ret;
	} else if (kind == TRAWL_TOP_SC_WRITE) {
		f->writes++;
		f->write_bytes += (uint64_t)ret;
		t->n.write_bytes += (uint64_t)ret;
	}
}

void trawl_top_sys_exit(struct trawl_top_model *m, struct trawl_top_thread *t, int64_t ts,
			uint32_t id, enum trawl_top_sc_kind kind, int64_t ret)
{
	/* -4095..-1 are errors (the kernel's IS_ERR_VALUE); mmap's addresses are not */
	int err = ret < 0 && ret >= -4095;
	int has_lat = t->sc_pending && t->sc_id == id && ts >= t->sc_begin;
	uint64_t lat = has_lat ? (uint64_t)(ts - t->sc_begin) : 0;
	struct trawl_top_proc *p = trawl_top_model_proc_of(m, t);

	t->n.syscalls++;
	t->n.syscall_errors += err;
	if (p) {
		/* the thread's last call's rows, while the interval's calls stand */
		struct trawl_top_sc *mine = t->sc_mine;

		if (!mine || t->sc_gen != m->sc_gen || mine->id != id || mine->pid != p->pid) {
			/* the row of all processes too: trawl_top_sys_interval_end() fills it */
			struct trawl_top_sc *all;

			mine = sc_get(m, p->pid, id);
			all = sc_get(m, -1, id);
			t->sc_mine = mine && all ? mine : NULL;
			t->sc_gen = m->sc_gen;
		}
		sc_count(mine, err, has_lat, lat);
	}
	/* an exit without its entry: the fd argument is not known */
	if (!has_lat)
		t->sc_fd = t->sc_fd2 = t->sc_path = -1;
	if (kind != TRAWL_TOP_SC_OTHER)
		sys_file(m, t, kind, err ? -1 : ret, has_lat, lat);
	t->sc_pending = 0;
	t->sc_fd = t->sc_fd2 = t->sc_path = -1;
}

int trawl_top_sys_interval_end(struct trawl_top_model *m)
{
	int ret = 0;

	TRAWL_TOP_MAP_FOREACH(&m->scs, i) {
		const struct trawl_top_sc *sc = m->scs.vals[i];
		struct trawl_top_sc *all;

		if (sc->pid < 0 || !sc->count ||
		    !(all = trawl_top_map_get(&m->scs, sc_key(-1, sc->id))))
			continue;
		all->count += sc->count;
		all->errors += sc->errors;
		all->total_ns += sc->total_ns;
		all->min_ns = sc->min_ns < all->min_ns ? sc->min_ns : all->min_ns;
		all->max_ns = sc->max_ns > all->max_ns ? sc->max_ns : all->max_ns;
		if (trawl_top_samples_merge(&all->lat, &sc->lat) < 0)
			ret = -ENOMEM;
	}
	return ret;
}

int trawl_top_statedump_fd(struct trawl_top_model *m, int64_t pid, int64_t fd, const char *path)
{
	struct trawl_top_proc *p = trawl_top_model_proc(m, pid);
	int64_t id;

	if (!p || !path)
		return -ENOMEM;
	id = trawl_top_intern_id(&m->names, path, strlen(path));
	if (id < 0)
		return (int)id;
	fd_put(p, fd, id);
	return 0;
}
