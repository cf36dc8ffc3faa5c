/* SPDX-License-Identifier: MIT */
/*
 * statedump.c - the user-space state dump and the loaded-object table, as
 * LTTng-UST 2.13 records them, so that viewers resolve addresses (the ip
 * context, lttng_ust_cyg_profile's addr) to binaries and symbols.
 *
 * The table lists the objects loaded (program, libraries, vDSO) by base
 * address: the address of their first loadable segment. It is filled from
 * dl_iterate_phdr() when libtrawl-ust starts (addresses and names only:
 * nothing is read from disk then, so start-up stays cheap), and compared
 * with the loader's list again by trawl_ust_dl_update() - after each
 * dlopen()/dlclose() that the dl helper (libtrawl-ust-dl) sees, and before
 * each state dump: objects that appeared are "loaded" (lttng_ust_lib:load,
 * build_id, debug_link), those that went "unloaded" (lttng_ust_lib:unload).
 * An object's path (realpath()), extent, build id and debug link are read
 * from its file (elf.c) the first time they are needed.
 *
 * A state dump, for one session: lttng_ust_statedump:start, procname, then
 * bin_info (and build_id, debug_link when the object has them) for each
 * object of the table, then end. It runs in the agent thread after the
 * session's START and on REGENERATE_STATEDUMP (wire.h), and records only
 * into that session's channels (the events' first argument is the session:
 * trawl_ust_session_check()). LTTNG_UST_WITHOUT_BADDR_STATEDUMP and
 * LTTNG_UST_WITHOUT_PROCNAME_STATEDUMP leave the objects or the procname
 * out, as with LTTng-UST.
 *
 * Locking: table_lock guards the table; it is taken inside the loader's
 * lock only by nothing (dl_iterate_phdr()'s callback copies into a local
 * list, the table is updated after), and never with trawl_ust_lock.
 */
#define _GNU_SOURCE
#include "common/array.h"
#include "ust/ust.h"

#include <limits.h>
#include <pthread.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "ust/elf.h"
#include <trawl/ust-helpers.h>

#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#define _TRAWL_PROVIDER_REGISTER trawl_ust_provider_register_internal
#define TP_SESSION_CHECK
#include "ust/tp-statedump.h"
#undef TP_SESSION_CHECK
#define TP_IP_PARAM ip
#include "ust/tp-lib.h"
#undef TP_IP_PARAM

struct obj {
	void *baddr;     /* first PT_LOAD's address: the key */
	char *name;      /* the loader's name ("" for the program), malloc'd */
	int marked;      /* seen by the current update */
	int prog;        /* the program (the loader's first unnamed object) */
	int info_read;   /* path and info below are filled */
	int vdso;        /* no file: "[name]", nothing read */
	char *path;      /* malloc'd */
	struct trawl_ust_elf_info info;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct obj *objs;
static size_t nr_objs;
static int table_ready;

/* One object as the loader lists it (copied out of its callback). */
struct seen {
	void *baddr;
	char name[PATH_MAX];
	int prog; /* the program: the first unnamed object (the others: vDSOs) */
};

struct seen_list {
	struct seen *v;
	size_t n, cap;
	int failed;
	int prog_seen;
};

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct seen_list *l = arg;
	int j;

	(void)size;
	for (j = 0; j < info->dlpi_phnum; j++) {
		struct seen *s;

		if (info->dlpi_phdr[j].p_type != PT_LOAD)
			continue;
		if (trawl_array_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v), 32)) {
			l->failed = 1;
			return 1;
		}
		s = &l->v[l->n++];
		s->baddr = (void *)(info->dlpi_addr + info->dlpi_phdr[j].p_vaddr);
		s->prog = (!info->dlpi_name || !info->dlpi_name[0]) && !l->prog_seen;
		l->prog_seen |= s->prog;
		snprintf(s->name, sizeof(s->name), "%s", info->dlpi_name ? info->dlpi_name : "");
		break;
	}
	return 0;
}

/* Fills @o's path and file information (once), as LTTng-UST names them:
 * the program's /proc/self/exe, a library's real path, "[vdso]" or
 * "[name]" for what has no file. Called with table_lock held. */
static void obj_read_info(struct obj *o)
{
	char buf[PATH_MAX];
	ssize_t n;

	if (o->info_read)
		return;
	o->info_read = 1;
	if (o->prog) {
		n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
		if (n <= 0)
			return;
		buf[n] = '\0';
	} else if (!o->name[0]) {
		snprintf(buf, sizeof(buf), "[vdso]");
		o->vdso = 1;
	} else if (!realpath(o->name, buf)) {
		snprintf(buf, sizeof(buf), "[%.*s]", PATH_MAX - 3, o->name);
		o->vdso = 1;
	}
	o->path = strdup(buf);
	if (!o->vdso)
		(void)trawl_ust_elf_read(buf, &o->info);
}

static void emit_load(struct obj *o, void *ip)
{
	tracepoint(lttng_ust_lib, load, ip, o->baddr, o->path ? o->path : "", o->info.memsz, o->info.has_build_id,
		   o->info.has_debug_link);
	if (o->info.has_build_id)
		tracepoint(lttng_ust_lib, build_id, ip, o->baddr, o->info.build_id, o->info.build_id_len);
	if (o->info.has_debug_link)
		tracepoint(lttng_ust_lib, debug_link, ip, o->baddr, o->info.debug_link, o->info.crc);
}

/* Marks the objects of @l in the table, adds the new ones (reporting
 * them when @report), removes the gone ones (same). With table_lock held. */
static void table_merge(const struct seen_list *l, int report, void *ip)
{
	int on = report && tracepoint_enabled(lttng_ust_lib, load);
	size_t i, k;

	for (i = 0; i < l->n; i++) {
		struct obj *o = NULL, *no;

		for (k = 0; k < nr_objs && !o; k++)
			if (objs[k].baddr == l->v[i].baddr && !strcmp(objs[k].name, l->v[i].name))
				o = &objs[k];
		if (o) {
			o->marked = 1;
			continue;
		}
		no = realloc(objs, (nr_objs + 1) * sizeof(*objs));
		if (!no)
			continue;
		objs = no;
		o = &objs[nr_objs];
		memset(o, 0, sizeof(*o));
		o->baddr = l->v[i].baddr;
		o->name = strdup(l->v[i].name);
		if (!o->name)
			continue;
		o->marked = 1;
		o->prog = l->v[i].prog;
		nr_objs++;
		if (on) {
			obj_read_info(o);
			emit_load(o, ip);
		}
	}
	for (k = 0; k < nr_objs;) {
		if (objs[k].marked) {
			objs[k].marked = 0;
			k++;
			continue;
		}
		if (report)
			tracepoint(lttng_ust_lib, unload, ip, objs[k].baddr);
		free(objs[k].name);
		free(objs[k].path);
		objs[k] = objs[--nr_objs];
	}
}

static void dl_update(int report, void *ip)
{
	struct seen_list l = { NULL, 0, 0, 0, 0 };

	dl_iterate_phdr(collect, &l);
	if (l.failed) {
		free(l.v);
		return;
	}
	pthread_mutex_lock(&table_lock);
	/* The first listing is the state at start-up: nothing to report. */
	table_merge(&l, report && table_ready, ip);
	table_ready = 1;
	pthread_mutex_unlock(&table_lock);
	free(l.v);
}

/* The dl helper is loaded (it calls trawl_ust_dl_update() from its
 * constructor on): the objects' table follows the loader from then on. */
static int dl_watched;

/* Called by the dl helper after each dlopen()/dlclose() it wraps, with its
 * caller's address (the events' ip). */
TRAWL_EXPORT void trawl_ust_dl_update(void *ip)
{
	__atomic_store_n(&dl_watched, 1, __ATOMIC_RELAXED);
	if (getenv("LTTNG_UST_WITHOUT_BADDR_STATEDUMP"))
		return;
	dl_update(1, ip);
}

/*
 * A module's tracepoints or provider register, from its constructor: when it
 * is being dlopen()ed, its objects are loaded now, before the dl helper's
 * lttng_ust_dl:dlopen. LTTng-UST 2.13 records lttng_ust_lib:load for them
 * first (the module's constructor dlopen()s liblttng-ust-tracepoint through
 * liblttng-ust-dl, which updates the table), so trawl does too; with no dl
 * helper, nothing (the next update or state dump sees them).
 */
void trawl_ust_dl_module_registering(void *ip)
{
	if (__atomic_load_n(&dl_watched, __ATOMIC_RELAXED))
		trawl_ust_dl_update(ip);
}

TRAWL_EXPORT int trawl_ust_session_check(void *chanp, const void *session)
{
	const struct trawl_ust_chan *chan = chanp;
	const struct trawl_ust_session_ref *s = session;

	return s && chan->conn == s->conn && chan->session_handle == s->handle;
}

static int statedump_on(void)
{
	return tracepoint_enabled(lttng_ust_statedump, start) || tracepoint_enabled(lttng_ust_statedump, bin_info) ||
	       tracepoint_enabled(lttng_ust_statedump, build_id) ||
	       tracepoint_enabled(lttng_ust_statedump, debug_link) ||
	       tracepoint_enabled(lttng_ust_statedump, procname) || tracepoint_enabled(lttng_ust_statedump, end);
}

/* The events of one state dump (trawl_ust_statedump()), dump_lock held. */
static void statedump_record(const struct trawl_ust_session_ref *s, const char *procname)
{
	size_t k;

	tracepoint(lttng_ust_statedump, start, s);
	if (!getenv("LTTNG_UST_WITHOUT_PROCNAME_STATEDUMP"))
		tracepoint(lttng_ust_statedump, procname, s, procname);
	if (!getenv("LTTNG_UST_WITHOUT_BADDR_STATEDUMP")) {
		dl_update(1, NULL);
		pthread_mutex_lock(&table_lock);
		for (k = 0; k < nr_objs; k++) {
			struct obj *o = &objs[k];

			obj_read_info(o);
			tracepoint(lttng_ust_statedump, bin_info, s, o->baddr, o->path ? o->path : "", o->info.memsz,
				   o->info.is_pic, o->info.has_build_id, o->info.has_debug_link);
			if (o->info.has_build_id)
				tracepoint(lttng_ust_statedump, build_id, s, o->baddr, o->info.build_id,
					   o->info.build_id_len);
			if (o->info.has_debug_link)
				tracepoint(lttng_ust_statedump, debug_link, s, o->baddr, o->info.debug_link,
					   o->info.crc);
		}
		pthread_mutex_unlock(&table_lock);
	}
	tracepoint(lttng_ust_statedump, end, s);
}

/*
 * Held for a whole state dump, taken for good by the library's destructor:
 * a program that exits while the agent thread is between reserving and
 * committing one of its events would leave that sub-buffer uncommitted
 * for ever, and with it every event of the program's threads after it
 * (per-user buffers outlive the process). The exit waits for the dump to
 * end (LTTng-UST's exit waits on its lock the same way).
 */
static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;
static int dump_closed; /* under dump_lock */

static void __attribute__((destructor)) statedump_fini(void)
{
	struct timespec until;

	/* Bounded: a dump stuck on a file must not hang the exit. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 3;
	if (pthread_mutex_timedlock(&dump_lock, &until))
		return;
	dump_closed = 1;
	pthread_mutex_unlock(&dump_lock);
}

void trawl_ust_statedump(const struct trawl_ust_session_ref *s, const char *procname)
{
	if (!statedump_on())
		return;
	pthread_mutex_lock(&dump_lock);
	if (!dump_closed)
		statedump_record(s, procname);
	pthread_mutex_unlock(&dump_lock);
}

void trawl_ust_statedump_init(void)
{
	dl_update(0, NULL);
}
