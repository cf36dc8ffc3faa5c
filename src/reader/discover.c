/* SPDX-License-Identifier: MIT */
/*
 * Finding the traces under the input paths (every folder holding a
 * `metadata` file, at any depth, in name order) and opening them: their
 * babeltrace2 names, folders that babeltrace2 reads as one trace, and
 * stream files that continue one another.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "reader/reader_int.h"

#define MAX_TRACES 4096
#define MAX_DEPTH 32

struct found {
	char **dirs;
	char **rel;
	uint32_t n;
	size_t dirs_cap, rel_cap;
};

static int found_add(struct found *f, const char *dir, const char *rel)
{
	if (f->n >= MAX_TRACES)
		return -E2BIG;
	if (trawl_array_grow((void **)&f->dirs, &f->dirs_cap, (size_t)f->n + 1, sizeof(*f->dirs), 8) ||
	    trawl_array_grow((void **)&f->rel, &f->rel_cap, (size_t)f->n + 1, sizeof(*f->rel), 8))
		return -ENOMEM;
	f->dirs[f->n] = strdup(dir);
	f->rel[f->n] = strdup(rel);
	if (!f->dirs[f->n] || !f->rel[f->n]) {
		free(f->dirs[f->n]);
		free(f->rel[f->n]);
		return -ENOMEM;
	}
	f->n++;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int discover(struct found *f, const char *dir, const char *rel,
		    int depth)
{
	char path[4096];
	struct stat st;
	DIR *d;
	struct dirent *de;
	char **subs = NULL;
	uint32_t n = 0, i;
	size_t cap = 0;
	int ret = 0;

	if (depth > MAX_DEPTH)
		return 0;
	if (snprintf(path, sizeof(path), "%s/metadata", dir) >= (int)sizeof(path))
		return 0;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return found_add(f, dir, rel);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path))
			continue;
		if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (trawl_array_grow((void **)&subs, &cap, (size_t)n + 1, sizeof(*subs), 8)) {
			ret = -ENOMEM;
			break;
		}
		subs[n] = strdup(de->d_name);
		if (!subs[n]) {
			ret = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(subs, n, sizeof(*subs), cmp_name);
	for (i = 0; i < n; i++) {
		char sub[4096], srel[4096];

		if (!ret &&
		    snprintf(sub, sizeof(sub), "%s/%s", dir, subs[i]) < (int)sizeof(sub) &&
		    snprintf(srel, sizeof(srel), "%s%s%s", rel, *rel ? "/" : "",
			     subs[i]) < (int)sizeof(srel))
			ret = discover(f, sub, srel, depth + 1);
		free(subs[i]);
	}
	free(subs);
	return ret;
}

static char *trace_name(const char *rel, const char *hostname)
{
	size_t n = strlen(rel) + (hostname ? strlen(hostname) : 0) + 2;
	char *s = malloc(n);

	if (!s)
		return NULL;
	if (hostname)
		snprintf(s, n, "%s%s%s", hostname, *rel ? "/" : "", rel);
	else
		snprintf(s, n, "%s", rel);
	return s;
}

/*
 * babeltrace2 2.0 reads trace folders that share a trace UUID as one trace
 * (LTTng's session rotation writes one folder per trace chunk, all with the
 * session's UUID): files of the same stream class and stream_instance_id,
 * in any of the folders, are one data stream, read file after file in the
 * order of their first packet's begin time (also within one folder: LTTng's
 * tracefile rotation), and the trace is named after the hostname alone (no
 * folder suffix), taken from the folder whose metadata has the most stream
 * and event classes. Discarded-record reports compare each file's first
 * packet with the previous file's last one, and name the stream after its
 * earliest file.
 *
 * Here each folder stays an rd_trace decoded with its own metadata; the
 * folders of a group share one name and one merge index (rd_trace.index,
 * the leader's), and their files are chained (rd_stream.next_file): only
 * the first file of each data stream enters the merge heap, and the next
 * one takes its place when it ends (rd_reader_stream_continue()).
 */
static uint64_t class_count(const struct rd_trace *t)
{
	uint64_t n = t->tc->nstreams;
	uint32_t i;

	for (i = 0; i < t->tc->nstreams; i++)
		n += t->tc->streams[i]->nevents;
	return n;
}

static int name_groups(struct trawl_reader *r)
{
	uint32_t i, j;

	for (i = 0; i < r->ntraces; i++) {
		struct rd_trace *t = &r->traces[i];

		if (!t->tc->has_uuid)
			continue;
		for (j = 0; j < i; j++) {
			struct rd_trace *o = &r->traces[j];

			if (o->tc->has_uuid && !memcmp(o->tc->uuid, t->tc->uuid, 16)) {
				t->index = o->index;
				break;
			}
		}
	}
	for (i = 0; i < r->ntraces; i++) {
		const struct rd_trace *win = &r->traces[i];
		uint64_t best = class_count(win);
		uint32_t members = 0;
		char *name;

		if (r->traces[i].index != i)	/* not a group's first folder */
			continue;
		for (j = i; j < r->ntraces; j++) {
			if (r->traces[j].index != i)
				continue;
			members++;
			if (class_count(&r->traces[j]) > best) {
				best = class_count(&r->traces[j]);
				win = &r->traces[j];
			}
		}
		if (members < 2)
			continue;
		for (j = i; j < r->ntraces; j++) {
			if (r->traces[j].index != i)
				continue;
			name = trace_name("", win->hostname);
			if (!name)
				return -ENOMEM;
			free(r->traces[j].name);
			r->traces[j].name = name;
		}
	}
	return 0;
}

struct chain_item {
	struct rd_stream *s;
	uint32_t order;		/* discovery order: ties keep it */
	int64_t begin_ns;
};

static int cmp_chain_id(const void *pa, const void *pb)
{
	const struct chain_item *a = pa, *b = pb;

	if (a->s->trace->index != b->s->trace->index)
		return a->s->trace->index < b->s->trace->index ? -1 : 1;
	if (a->s->sc->id != b->s->sc->id)
		return a->s->sc->id < b->s->sc->id ? -1 : 1;
	if (a->s->id != b->s->id)
		return a->s->id < b->s->id ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static int cmp_chain_time(const void *pa, const void *pb)
{
	const struct chain_item *a = pa, *b = pb;

	if (a->begin_ns != b->begin_ns)
		return a->begin_ns < b->begin_ns ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static bool same_data_stream(const struct rd_stream *a, const struct rd_stream *b)
{
	return a->trace->index == b->trace->index && a->sc->id == b->sc->id &&
	       a->id == b->id;
}

/* Links files of one data stream (sorted by begin time) into a chain. */
static int chain_run(struct chain_item *run, uint32_t n, struct rd_err *err)
{
	uint32_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = rd_stream_begin_ns(run[i].s, &run[i].begin_ns, err);
		if (ret)
			return ret;
	}
	qsort(run, n, sizeof(*run), cmp_chain_time);
	for (i = 0; i < n; i++) {
		run[i].s->stream_name = run[0].s->path;
		run[i].s->continued = i > 0;
		run[i].s->next_file = i + 1 < n ? run[i + 1].s : NULL;
	}
	return 0;
}

static int chain_streams(struct trawl_reader *r, uint32_t nstreams)
{
	struct chain_item *items;
	uint32_t t, i, n = 0, start;
	int ret = 0;

	items = calloc(nstreams ? nstreams : 1, sizeof(*items));
	if (!items)
		return -ENOMEM;
	for (t = 0; t < r->ntraces; t++) {
		for (i = 0; i < r->traces[t].nstreams; i++) {
			struct rd_stream *s = &r->traces[t].streams[i];

			/* without an instance id, a file is a stream of its own */
			if (!s->size || !s->sc || !s->has_instance_id)
				continue;
			items[n].s = s;
			items[n].order = n;
			n++;
		}
	}
	qsort(items, n, sizeof(*items), cmp_chain_id);
	for (start = 0; start < n && !ret; start = i) {
		for (i = start + 1; i < n && same_data_stream(items[i].s, items[start].s); i++)
			;
		if (i - start > 1)
			ret = chain_run(items + start, i - start, &r->err);
	}
	free(items);
	return ret;
}

static int open_traces(struct trawl_reader *r, struct found *f)
{
	uint32_t i, nstreams = 0;
	int ret;

	r->traces = calloc(f->n ? f->n : 1, sizeof(*r->traces));
	if (!r->traces)
		return -ENOMEM;
	for (i = 0; i < f->n; i++) {
		struct rd_trace *t = &r->traces[i];
		char *name;

		r->ntraces = i + 1;
		ret = rd_trace_open(t, f->dirs[i], f->rel[i], &r->err);
		if (ret)
			return ret;
		t->index = i;
		name = trace_name(f->rel[i], t->hostname);
		if (!name)
			return -ENOMEM;
		free(t->name);
		t->name = name;
		nstreams += t->nstreams;
	}
	ret = name_groups(r);
	if (!ret)
		ret = chain_streams(r, nstreams);
	if (ret)
		return ret;
	r->heap = calloc(nstreams ? nstreams : 1, sizeof(*r->heap));
	return r->heap ? 0 : -ENOMEM;
}

int rd_reader_discover(struct trawl_reader *r, const char *const *paths,
		       size_t npaths)
{
	struct found f = { 0 };
	size_t i;
	int ret = 0;

	for (i = 0; i < npaths && !ret; i++) {
		struct stat st;
		uint32_t before = f.n;

		if (stat(paths[i], &st) < 0) {
			ret = -errno;
			rd_err_set(&r->err, "%s: %s", paths[i], strerror(-ret));
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			rd_err_set(&r->err, "%s: not a folder", paths[i]);
			ret = -ENOTDIR;
			break;
		}
		ret = discover(&f, paths[i], "", 0);
		if (ret == -E2BIG)
			rd_err_set(&r->err, "%s: more than %d traces", paths[i],
				   MAX_TRACES);
		if (!ret && f.n == before) {
			rd_err_set(&r->err, "%s: no CTF trace found (no metadata file)",
				   paths[i]);
			ret = -ENOENT;
		}
	}
	if (!ret)
		ret = open_traces(r, &f);
	for (i = 0; i < f.n; i++) {
		free(f.dirs[i]);
		free(f.rel[i]);
	}
	free(f.dirs);
	free(f.rel);
	return ret;
}
