/* SPDX-License-Identifier: MIT */
/*
 * pipe.h - one producer thread and its consumer, passing records in blocks
 * (pipe.c).
 */
#ifndef TRAWL_TOP_PIPE_H
#define TRAWL_TOP_PIPE_H

#include <stddef.h>

struct trawl_top_pipe;

/* The producer: runs in its own thread until it returns. */
typedef void (*trawl_top_pipe_fn)(struct trawl_top_pipe *p, void *arg);

/* The largest record trawl_top_pipe_put() gives room for. */
#define TRAWL_TOP_PIPE_MAX_RECORD (128u * 1024u)

/* Starts @fn(pipe, @arg) in a thread of its own: 0, or a negative errno. */
int trawl_top_pipe_start(struct trawl_top_pipe **out, trawl_top_pipe_fn fn, void *arg);

/*
 * Producer: room for the next record, up to @max bytes (8-byte aligned);
 * NULL when the consumer stopped the pipe (the producer then returns) or
 * @max is over TRAWL_TOP_PIPE_MAX_RECORD. The record is the consumer's
 * once trawl_top_pipe_commit() says how long it came out (<= @max).
 */
void *trawl_top_pipe_reserve(struct trawl_top_pipe *p, size_t max);
void trawl_top_pipe_commit(struct trawl_top_pipe *p, size_t len);

/*
 * Consumer: the next record (NULL: the producer returned and every record
 * was taken), the same until trawl_top_pipe_next().
 */
const void *trawl_top_pipe_peek(struct trawl_top_pipe *p);
void trawl_top_pipe_next(struct trawl_top_pipe *p);

/* Consumer: stops the producer (at its next put), waits for it, frees all. */
void trawl_top_pipe_stop(struct trawl_top_pipe *p);

#endif
