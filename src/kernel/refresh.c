/* SPDX-License-Identifier: MIT */
/*
 * What the kernel consumer takes again every second (trawl's own threads,
 * notrace.c; the BPF programs its channels need, bpf.c and syscalls.c),
 * taken by a thread of its own so that the thread draining the kernel's
 * buffers never waits for it.
 *
 * Why: both jobs block. Reading an instance's set_event or an event's enable
 * file takes the kernel's event_mutex, which anyone creating or removing a
 * tracefs instance holds for as long as that takes (~2,300 event folders to
 * make): measured 40-120 ms per refresh on the 2-CPU machine while another
 * process made and removed instances, and once 2.3 s at load ~19. The scan
 * of /proc for trawl's processes takes 20-30 ms at that load. While the
 * draining thread waited, a 4 MiB buffer of a 2 M getppid() flood
 * overflowed: 106,634 events lost (counted) in one of four runs, and losses
 * in 5 of 14 bench rounds where the consumer had had none before it began
 * to read those files every second.
 *
 * Threads and what they touch:
 *   - the refresher thread: runs @update (bpf_update: the BPF maps and
 *     links, the consumer's sc_state, which only it touches once started)
 *     and builds a new hidden set, which it publishes in the mailbox;
 *   - the draining thread: takes the mailbox (trawl_kernel_refresher_take)
 *     and swaps the new set into the one its converters read; it alone reads
 *     and frees the sets it took.
 * The mailbox holds at most one set. The refresher's exchange is a release
 * (the set's contents before the pointer) and pairs with the taker's
 * acquire; a set the taker never took is freed by the next exchange, or at
 * destroy.
 */
#define _GNU_SOURCE
#include "kernel/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define REFRESH_PERIOD_MS 1000

struct trawl_kernel_refresher {
	pthread_t thread;
	int wake[2];                       /* a byte on wake[1] ends the thread */
	void (*update)(void *arg);         /* run on the refresher thread; may be NULL */
	void *arg;
	_Atomic(struct trawl_kernel_hidden *) mailbox; /* owned, NULL: nothing new */
};

static void hidden_destroy(struct trawl_kernel_hidden *h)
{
	if (!h)
		return;
	trawl_kernel_hidden_free(h);
	free(h);
}

static void *refresher_main(void *arg)
{
	struct trawl_kernel_refresher *r = arg;
	struct pollfd p = { .fd = r->wake[0], .events = POLLIN };

	for (;;) {
		struct trawl_kernel_hidden *h, *old;
		int n = poll(&p, 1, REFRESH_PERIOD_MS);

		if (n > 0 || (n < 0 && errno != EINTR))
			break; /* told to end (or no poll: the consumer keeps the last set) */
		if (n < 0)
			continue;
		h = calloc(1, sizeof(*h));
		if (r->update)
			r->update(r->arg);
		if (!h)
			continue;
		if (trawl_kernel_hidden_collect(h) < 0) {
			hidden_destroy(h); /* keep the set the consumer has */
			continue;
		}
		/* release: the set's contents are visible to whoever takes the pointer */
		old = atomic_exchange_explicit(&r->mailbox, h, memory_order_acq_rel);
		hidden_destroy(old); /* published a second ago and never taken */
	}
	return NULL;
}

int trawl_kernel_refresher_create(void (*update)(void *arg), void *arg,
				  struct trawl_kernel_refresher **out)
{
	struct trawl_kernel_refresher *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	r->update = update;
	r->arg = arg;
	atomic_init(&r->mailbox, NULL);
	if (pipe2(r->wake, O_CLOEXEC) < 0) {
		ret = -errno;
		free(r);
		return ret;
	}
	ret = -pthread_create(&r->thread, NULL, refresher_main, r);
	if (ret < 0) {
		close(r->wake[0]);
		close(r->wake[1]);
		free(r);
		return ret;
	}
	*out = r;
	return 0;
}

int trawl_kernel_refresher_take(struct trawl_kernel_refresher *r, struct trawl_kernel_hidden *h)
{
	/* acquire: pairs with the refresher's exchange */
	struct trawl_kernel_hidden *n = atomic_exchange_explicit(&r->mailbox, NULL, memory_order_acq_rel);

	if (!n)
		return 0;
	trawl_kernel_hidden_free(h);
	*h = *n;
	free(n);
	return 1;
}

void trawl_kernel_refresher_destroy(struct trawl_kernel_refresher *r)
{
	if (!r)
		return;
	if (write(r->wake[1], "q", 1) != 1) {
		/* a pipe of our own with room: cannot fail; the join below would hang */
		abort();
	}
	pthread_join(r->thread, NULL);
	close(r->wake[0]);
	close(r->wake[1]);
	hidden_destroy(atomic_load_explicit(&r->mailbox, memory_order_acquire));
	free(r);
}
