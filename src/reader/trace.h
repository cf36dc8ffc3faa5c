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
	struct rd_stream *streams;	/* owned array */
	uint32_t nstreams;
	uint32_t index;		/* order among the opened traces */
	/* what the text output's header shows, from the environment */
	const char *hostname, *domain, *procname;
	bool has_vpid;
	int64_t vpid;
};

/* Loads the metadata of @dir and opens its stream files. */
int rd_trace_open(struct rd_trace *t, const char *dir, const char *name,
		  struct rd_err *err);
void rd_trace_close(struct rd_trace *t);

#endif /* TRAWL_READER_TRACE_H */
