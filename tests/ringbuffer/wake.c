/* SPDX-License-Identifier: MIT */
/*
 * wake.c - the consumer's wake-ups (ringbuffer.h, "Wake-ups"), one producer
 * and one reader over two mappings of one stream, step by step:
 *
 *   - an armed stream: the producer that closes a packet writes the
 *     eventfd once and disarms it; closing more packets writes nothing
 *     until the reader arms it again; filling a packet without closing it
 *     writes nothing;
 *   - arming says a closed packet not taken (PENDING), and nothing once
 *     they are all taken;
 *   - errno is kept across a wake-up (it may run in a signal handler);
 *   - a wake_fd that is not an eventfd is refused, and one whose number
 *     was given to a regular file since is never written: that producer
 *     then counts as one that cannot wake the consumer (LEGACY);
 *   - ustctl: a channel has an eventfd; a fresh stream arms with nothing;
 *     given to an app that cannot wake the consumer
 *     (trawl_ustctl_channel_mark_legacy()), the eventfd is written and the
 *     stream arms with LEGACY.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringbuffer/ringbuffer.h"
#include "ustctl/ustctl.h"

#define SUBBUF 4096u
#define NSUB 4u
#define PAYLOAD 100u

static int failures;

#define CHECK(cond)                                                                     \
	do {                                                                            \
		if (!(cond)) {                                                          \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                     \
		}                                                                       \
	} while (0)

/* What the eventfd holds (0: nothing written), emptied. */
static uint64_t wakes(int efd)
{
	uint64_t v = 0;

	if (read(efd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

/* One event of PAYLOAD bytes: 0, or -1 when dropped (full). */
static int event(struct trawl_rb *rb)
{
	struct trawl_rb_ctx ctx;

	if (trawl_rb_reserve(rb, 1, PAYLOAD, &ctx))
		return -1;
	memset(ctx.p, 0x5a, PAYLOAD);
	trawl_rb_commit(&ctx);
	return 0;
}

/* Events until the producer's position enters a new packet (one closed). */
static void close_one(struct trawl_rb *rb)
{
	uint64_t first =
		(__atomic_load_n(&rb->ctrl->reserve, __ATOMIC_RELAXED) & TRAWL_RB_POS_MASK) /
		SUBBUF;
	int i;

	for (i = 0; i < 1000; i++) {
		if (event(rb))
			break;
		if ((__atomic_load_n(&rb->ctrl->reserve, __ATOMIC_RELAXED) & TRAWL_RB_POS_MASK) /
			    SUBBUF !=
		    first)
			return;
	}
	fprintf(stderr, "FAIL: no packet closed after %d events\n", i);
	failures++;
}

static void drain(struct trawl_rb_reader *r)
{
	struct trawl_rb_packet p;

	while (!trawl_rb_reader_get(r, &p))
		trawl_rb_reader_put(r);
}

static void ring(void)
{
	struct trawl_rb prod;
	struct trawl_rb_reader r;
	int fd = trawl_rb_shm_create(SUBBUF, NSUB, 0, 0, TRAWL_RB_CLOCK_MONOTONIC, NULL);
	int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), memfd, i;

	CHECK(fd >= 0 && efd >= 0);
	CHECK(!trawl_rb_map(&prod, fd, SUBBUF, NSUB, 0, 0));
	memset(&r, 0, sizeof(r));
	CHECK(!trawl_rb_map(&r.rb, fd, SUBBUF, NSUB, 0, 0));
	CHECK(!trawl_rb_reader_init(&r));
	CHECK(prod.ctrl->version == TRAWL_RB_VERSION && TRAWL_RB_VERSION == 3);
	CHECK(prod.wake_fd == -1);

	/* Not an eventfd: refused, the producer keeps none. */
	CHECK(trawl_rb_set_wake_fd(&prod, fd) == -EINVAL && prod.wake_fd == -1);
	CHECK(!trawl_rb_set_wake_fd(&prod, efd) && prod.wake_fd == efd);

	/* Packet 0 (cut at creation) is there to take: pending, then nothing. */
	CHECK(trawl_rb_reader_arm(&r) == TRAWL_RB_ARM_PENDING);
	drain(&r);
	CHECK(trawl_rb_reader_arm(&r) == 0);
	CHECK(__atomic_load_n(&prod.ctrl->wake_armed, __ATOMIC_RELAXED) == 1);

	/* Events that stay in the open packet: no wake-up. */
	for (i = 0; i < 5; i++)
		CHECK(!event(&prod));
	CHECK(wakes(efd) == 0);
	/* The packet closed: one wake-up, the stream disarmed, errno kept. */
	errno = 4242;
	close_one(&prod);
	CHECK(errno == 4242);
	CHECK(wakes(efd) == 1);
	CHECK(__atomic_load_n(&prod.ctrl->wake_armed, __ATOMIC_RELAXED) == 0);
	/* More packets closed, not armed again: nothing. */
	close_one(&prod);
	CHECK(wakes(efd) == 0);
	/* Armed with packets closed and not taken: pending (no wake-up comes). */
	CHECK(trawl_rb_reader_arm(&r) & TRAWL_RB_ARM_PENDING);
	drain(&r);
	CHECK(trawl_rb_reader_arm(&r) == 0);
	close_one(&prod);
	CHECK(wakes(efd) == 1);

	/* The number of the eventfd given to a regular file: never written. */
	drain(&r);
	CHECK(trawl_rb_reader_arm(&r) == 0);
	memfd = memfd_create("not-the-eventfd", MFD_CLOEXEC);
	CHECK(memfd >= 0 && dup2(memfd, efd) == efd);
	close_one(&prod);
	{
		struct stat st;

		CHECK(!fstat(efd, &st) && st.st_size == 0);
	}
	/* ... and that producer can no longer wake the consumer: the stream
	 * says so (LEGACY: the consumer polls it), once taken. */
	CHECK(prod.wake_fd == -1);
	CHECK(trawl_rb_reader_arm(&r) == (TRAWL_RB_ARM_PENDING | TRAWL_RB_ARM_LEGACY));
	drain(&r);
	CHECK(trawl_rb_reader_arm(&r) == TRAWL_RB_ARM_LEGACY);
	close(memfd);
	close(efd);
	trawl_rb_reader_fini(&r);
	trawl_rb_unmap(&r.rb);
	trawl_rb_unmap(&prod);
	close(fd);
}

static void ustctl(void)
{
	struct trawl_ustctl_channel_attr attr;
	struct trawl_ustctl_channel *chan = NULL;
	struct trawl_ustctl_stream *s = NULL;
	struct trawl_ustctl_packet p;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.subbuf_size = SUBBUF;
	attr.num_subbuf = NSUB;
	attr.nr_streams = 2;
	CHECK(!trawl_ustctl_channel_create(&attr, &chan));
	if (!chan)
		return;
	CHECK(trawl_ustctl_channel_wake_fd(chan) >= 0);
	fd = dup(trawl_ustctl_channel_stream_fd(chan, 0));
	CHECK(!trawl_ustctl_stream_map(fd, &attr, 0, 0, &s));
	if (!s)
		goto out;
	while (!trawl_ustctl_stream_get_packet(s, &p)) /* packet 0 */
		trawl_ustctl_stream_put_packet(s);
	CHECK(trawl_ustctl_stream_arm(s) == 0);
	CHECK(wakes(trawl_ustctl_channel_wake_fd(chan)) == 0);
	CHECK(!trawl_ustctl_channel_mark_legacy(chan));
	/* the consumer woken to see it */
	CHECK(wakes(trawl_ustctl_channel_wake_fd(chan)) == 1);
	CHECK(trawl_ustctl_stream_arm(s) == TRAWL_RB_ARM_LEGACY);
	trawl_ustctl_stream_unmap(s);
out:
	trawl_ustctl_channel_destroy(chan);
}

int main(void)
{
	ring();
	ustctl();
	if (failures) {
		fprintf(stderr, "rb-wake: %d failures\n", failures);
		return 1;
	}
	printf("rb-wake: ok\n");
	return 0;
}
