/* SPDX-License-Identifier: MIT */
/*
 * pipe.c - one producer thread and its consumer, passing records in blocks.
 *
 * trawltop --batch over a recorded trace decodes in one thread and updates
 * its model in another (source.c): on two cores the reader's cost and the
 * model's overlap, and a run takes about the longer of the two rather than
 * their sum (bench/top/bench-top.sh). Records are written in place in
 * blocks of BLOCK_BYTES, and a block changes hands whole under a mutex:
 * one lock round per block of thousands of records, so the lock costs
 * nothing measurable, and there is no lock-free code to get wrong. A fixed
 * pool of blocks bounds the memory and how far the producer runs ahead.
 */
#include "pipe.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define BLOCK_BYTES (256u * 1024u)
#define NR_BLOCKS 8
#define HDR 8u	/* each record: its length (uint32_t), padding, then the record */

struct block {
	struct block *next;
	size_t len;
	_Alignas(8) unsigned char data[BLOCK_BYTES];
};

struct trawl_top_pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* any change below: both sides wait on it */
	struct block *free;		/* blocks nobody holds */
	struct block *full, *full_tail;	/* written, in order, not taken yet */
	int done;			/* the producer returned */
	int stop;			/* the consumer stopped the pipe */
	pthread_t thread;
	trawl_top_pipe_fn fn;
	void *arg;
	struct block *wr;		/* the producer's */
	struct block *rd;		/* the consumer's, and where it reads */
	size_t rd_pos;
	struct block blocks[NR_BLOCKS];
};

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Producer: the block it filled, to the consumer. */
static void hand_over(struct trawl_top_pipe *p)
{
	struct block *b = p->wr;

	p->wr = NULL;
	if (!b)
		return;
	b->next = NULL;
	pthread_mutex_lock(&p->mu);
	if (p->full_tail)
		p->full_tail->next = b;
	else
		p->full = b;
	p->full_tail = b;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void *trawl_top_pipe_reserve(struct trawl_top_pipe *p, size_t max)
{
	size_t need = HDR + align8(max);

	if (max > TRAWL_TOP_PIPE_MAX_RECORD)
		return NULL;
	if (p->wr && p->wr->len + need > BLOCK_BYTES)
		hand_over(p);
	if (!p->wr) {
		pthread_mutex_lock(&p->mu);
		while (!p->free && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->stop) {
			p->wr = p->free;
			p->free = p->wr->next;
		}
		pthread_mutex_unlock(&p->mu);
		if (!p->wr)
			return NULL;
		p->wr->len = 0;
	}
	return p->wr->data + p->wr->len + HDR;
}

void trawl_top_pipe_commit(struct trawl_top_pipe *p, size_t len)
{
	unsigned char *at = p->wr->data + p->wr->len;

	*(uint32_t *)at = (uint32_t)align8(len);
	p->wr->len += HDR + align8(len);
}

static void *producer(void *arg)
{
	struct trawl_top_pipe *p = arg;

	p->fn(p, p->arg);
	hand_over(p);
	pthread_mutex_lock(&p->mu);
	p->done = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int trawl_top_pipe_start(struct trawl_top_pipe **out, trawl_top_pipe_fn fn, void *arg)
{
	struct trawl_top_pipe *p = calloc(1, sizeof(*p));
	int ret;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	for (int i = 0; i < NR_BLOCKS; i++) {
		p->blocks[i].next = p->free;
		p->free = &p->blocks[i];
	}
	p->fn = fn;
	p->arg = arg;
	*out = p;	/* before the thread: @fn may read it through @arg */
	ret = pthread_create(&p->thread, NULL, producer, p);
	if (ret) {
		*out = NULL;
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		free(p);
		return -ret;
	}
	return 0;
}

const void *trawl_top_pipe_peek(struct trawl_top_pipe *p)
{
	for (;;) {
		if (p->rd && p->rd_pos < p->rd->len)
			return p->rd->data + p->rd_pos + HDR;
		pthread_mutex_lock(&p->mu);
		if (p->rd) {	/* read through: back to the pool */
			p->rd->next = p->free;
			p->free = p->rd;
			p->rd = NULL;
			pthread_cond_broadcast(&p->cv);
		}
		while (!p->full && !p->done)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->full) {
			p->rd = p->full;
			p->full = p->rd->next;
			if (!p->full)
				p->full_tail = NULL;
			p->rd_pos = 0;
		}
		pthread_mutex_unlock(&p->mu);
		if (!p->rd)
			return NULL;
	}
}

void trawl_top_pipe_next(struct trawl_top_pipe *p)
{
	if (p->rd && p->rd_pos < p->rd->len)
		p->rd_pos += HDR + *(const uint32_t *)(p->rd->data + p->rd_pos);
}

void trawl_top_pipe_stop(struct trawl_top_pipe *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
