/* SPDX-License-Identifier: MIT */
/*
 * Opening one trace folder: parse and resolve its metadata, then open every
 * stream file beside it (sorted by name, so data stream ids and tie-breaks
 * are the same from run to run). Hidden files, `metadata` and folders (such
 * as `index/`) are not stream files; empty files are skipped.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "common/common.h"
#include "reader/trace.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_stream_files(const char *dir, char ***out, uint32_t *n,
			     struct rd_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	uint32_t cnt = 0;
	size_t cap = 0;

	if (!d) {
		int e = errno;

		rd_err_set(err, "%s: cannot open folder: %s", dir, strerror(e));
		return -e;
	}
	while ((de = readdir(d))) {
		char path[4096];
		struct stat st;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path))
			continue;
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
			continue;
		if (trawl_array_grow((void **)&names, &cap, (size_t)cnt + 1, sizeof(*names), 16))
			goto oom;
		names[cnt] = strdup(path);
		if (!names[cnt])
			goto oom;
		cnt++;
	}
	closedir(d);
	if (cnt)
		qsort(names, cnt, sizeof(*names), cmp_str);
	*out = names;
	*n = cnt;
	return 0;
oom:
	closedir(d);
	while (cnt)
		free(names[--cnt]);
	free(names);
	return -ENOMEM;
}

void rd_trace_env_header(struct rd_trace *t)
{
	const struct env_entry *e;

	e = trace_class_env(t->tc, "hostname");
	t->hostname = e && e->type == ENV_STR ? e->str : NULL;
	e = trace_class_env(t->tc, "domain");
	t->domain = e && e->type == ENV_STR ? e->str : NULL;
	e = trace_class_env(t->tc, "procname");
	t->procname = e && e->type == ENV_STR ? e->str : NULL;
	e = trace_class_env(t->tc, "vpid");
	t->has_vpid = e && e->type == ENV_INT;
	t->vpid = t->has_vpid ? e->i : 0;
}

int rd_trace_open(struct rd_trace *t, const char *dir, const char *name,
		  struct rd_err *err)
{
	char path[4096];
	char *text = NULL;
	size_t len;
	char **files = NULL;
	uint32_t nfiles = 0, i;
	int ret;

	memset(t, 0, sizeof(*t));
	t->dir = strdup(dir);
	t->name = strdup(name);
	if (!t->dir || !t->name)
		return -ENOMEM;
	if (trawl_path_fmt(path, sizeof(path), "%s/metadata", dir)) {
		rd_err_set(err, "%s: folder name too long", dir);
		return -ENAMETOOLONG;
	}
	ret = metadata_read(path, &text, &len, err);
	if (ret)
		return ret;
	ret = tsdl_parse(text, len, path, &t->tc, err);
	if (ret) {
		free(text);
		return ret;
	}
	t->tc->text = text;
	ret = tsdl_resolve(t->tc, path, err);
	if (!ret)
		ret = rd_dec_create(t->tc, &t->dec);
	if (ret)
		return ret;
	rd_trace_env_header(t);
	ret = list_stream_files(dir, &files, &nfiles, err);
	if (ret)
		return ret;
	t->streams = calloc(nfiles ? nfiles : 1, sizeof(*t->streams));
	if (!t->streams) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nfiles; i++) {
		t->nstreams = i + 1;
		ret = rd_stream_open(&t->streams[i], t, t->dec, files[i], i, err);
		if (ret)
			goto out;
		t->streams[i].win_pool = &t->win_pool;
	}
out:
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	return ret;
}

int rd_trace_open_mem(struct rd_trace *t, const char *text, size_t len,
		      const void *stream, size_t stream_len, struct rd_err *err)
{
	char *copy;
	int ret;

	memset(t, 0, sizeof(*t));
	t->dir = strdup("(memory)");
	t->name = strdup("");
	copy = malloc(len + 1);
	if (!t->dir || !t->name || !copy) {
		free(copy);
		return -ENOMEM;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	ret = tsdl_parse(copy, len, "metadata", &t->tc, err);
	if (ret) {
		free(copy);
		return ret;
	}
	t->tc->text = copy;
	ret = tsdl_resolve(t->tc, "metadata", err);
	if (!ret)
		ret = rd_dec_create(t->tc, &t->dec);
	if (ret)
		return ret;
	rd_trace_env_header(t);
	t->streams = calloc(1, sizeof(*t->streams));
	if (!t->streams)
		return -ENOMEM;
	t->nstreams = 1;
	return rd_stream_open_buf(&t->streams[0], t, t->dec, "stream", stream,
				  stream_len, err);
}

void rd_trace_close(struct rd_trace *t)
{
	uint32_t i;

	for (i = 0; i < t->nstreams; i++)
		rd_stream_close(&t->streams[i]);
	free(t->streams);
	rd_dec_destroy(t->dec);
	trace_class_destroy(t->tc);
	free(t->dir);
	free(t->name);
	memset(t, 0, sizeof(*t));
}
