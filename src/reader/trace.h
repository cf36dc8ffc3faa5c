/* SPDX-License-Identifier: MIT */
/*
 * A trace on disk: one folder with a `metadata` file and its stream files.
 */
#ifndef TRAWL_READER_TRACE_H
#define TRAWL_READER_TRACE_H

#include "reader/internal.h"
#include "reader/stream.h"

struct rd_trace {
	char *dir;		/* owned */
	char *name;		/* babeltrace2's trace name, owned */
	struct trace_class *tc;	/* owned */
	struct rd_dec *dec;	/* owned: the decoder's caches for tc */
	struct rd_stream *streams;	/* owned array */
	uint32_t nstreams;
	/*
	 * Order among the opened traces; folders that share a trace UUID
	 * share the first one's (babeltrace2 reads them as one trace).
	 */
	uint32_t index;
	/* what the text output's header shows, from the environment */
	const char *hostname, *domain, *procname;
	bool has_vpid;
	int64_t vpid;
	struct rd_win_pool win_pool;	/* its streams' windows */
};

/* Loads the metadata of @dir and opens its stream files. */
int rd_trace_open(struct rd_trace *t, const char *dir, const char *name,
		  struct rd_err *err);
void rd_trace_close(struct rd_trace *t);
/* Sets the text header's fields (hostname, domain, ...) from t->tc's environment. */
void rd_trace_env_header(struct rd_trace *t);
/*
 * A trace from memory (for fuzzing): metadata text and one stream's bytes,
 * both borrowed for the duration of the call / the trace's life.
 */
int rd_trace_open_mem(struct rd_trace *t, const char *text, size_t len,
		      const void *stream, size_t stream_len, struct rd_err *err);

#endif /* TRAWL_READER_TRACE_H */
