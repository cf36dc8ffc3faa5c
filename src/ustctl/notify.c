/* SPDX-License-Identifier: MIT */
/*
 * notify.c - the reader's side of an app's notification ring (ustctl.h,
 * ustabi/notify.h: the layout, the protocol and why nothing in it is
 * trusted).
 */
#define _GNU_SOURCE
#include "ustctl/ustctl.h"
#include "ustabi/notify.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct trawl_ustctl_notify_ring {
	char *map;
	size_t size;
	int fd; /* the memfd, until trawl_ustctl_notify_ring_close_fd() */
	uint32_t nr_slots, slot_size;
	uint64_t read; /* ours: the ring's head.read is only the writers' copy */
	struct trawl_notify_rec rec;
	unsigned char *payload; /* slot_size bytes: the last record's copy */
};

int trawl_ustctl_notify_ring_create(uint32_t nr_slots, uint32_t slot_size,
				    struct trawl_ustctl_notify_ring **out)
{
	struct trawl_ustctl_notify_ring *r;
	struct trawl_notify_head *h;
	int ret;

	if (nr_slots < TRAWL_NOTIFY_MIN_SLOTS || nr_slots > TRAWL_NOTIFY_MAX_SLOTS ||
	    slot_size < TRAWL_NOTIFY_MIN_SLOT || slot_size > TRAWL_NOTIFY_MAX_SLOT || slot_size % 8)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->payload = malloc(slot_size);
	if (!r->payload) {
		ret = -ENOMEM;
		goto err_free;
	}
	r->nr_slots = nr_slots;
	r->slot_size = slot_size;
	r->size = trawl_notify_size(nr_slots, slot_size);
	r->fd = memfd_create("trawl-notify", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (r->fd < 0) {
		ret = -errno;
		goto err_free;
	}
	/* Sealed: the app cannot shrink it under our reads (SIGBUS). */
	if (ftruncate(r->fd, (off_t)r->size) ||
	    fcntl(r->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		ret = -errno;
		goto err_close;
	}
	r->map = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->map == MAP_FAILED) {
		ret = -errno;
		goto err_close;
	}
	h = (struct trawl_notify_head *)r->map;
	h->magic = TRAWL_NOTIFY_MAGIC;
	h->nr_slots = nr_slots;
	h->slot_size = slot_size;
	*out = r;
	return 0;
err_close:
	close(r->fd);
err_free:
	free(r->payload);
	free(r);
	return ret;
}

int trawl_ustctl_notify_ring_fd(const struct trawl_ustctl_notify_ring *r)
{
	return r->fd;
}

void trawl_ustctl_notify_ring_close_fd(struct trawl_ustctl_notify_ring *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

static struct trawl_notify_rec *slot_of(const struct trawl_ustctl_notify_ring *r, uint64_t k)
{
	return (struct trawl_notify_rec *)(r->map + TRAWL_NOTIFY_HEAD_SIZE +
					   (size_t)(k % r->nr_slots) * r->slot_size);
}

int trawl_ustctl_notify_ring_pending(const struct trawl_ustctl_notify_ring *r)
{
	/* Relaxed: only a hint (take() loads it again with acquire). */
	return __atomic_load_n(&slot_of(r, r->read)->commit, __ATOMIC_RELAXED) != 0;
}

int trawl_ustctl_notify_ring_take(struct trawl_ustctl_notify_ring *r, struct trawl_ustctl_notification *n)
{
	struct trawl_notify_head *h = (struct trawl_notify_head *)r->map;
	struct trawl_notify_rec *shared = slot_of(r, r->read);
	int ret = 1;

	/* Acquire: pairs with the writer's release store of commit. */
	if (!__atomic_load_n(&shared->commit, __ATOMIC_ACQUIRE))
		return 0;
	memcpy(&r->rec, shared, sizeof(r->rec));
	if (r->rec.len > r->slot_size - sizeof(r->rec) || r->rec.commit != (uint64_t)r->rec.len + 1)
		ret = -EPROTO;
	else
		memcpy(r->payload, shared + 1, r->rec.len);
	/* Cleared before read moves on (the release below orders it). */
	__atomic_store_n(&shared->commit, 0, __ATOMIC_RELAXED);
	r->read++;
	/* Release: pairs with the writers' acquire load of read. */
	__atomic_store_n(&h->read, r->read, __ATOMIC_RELEASE);
	if (ret < 0)
		return ret;
	n->chan_handle = r->rec.chan_handle;
	n->id = r->rec.id;
	n->ts = r->rec.ts;
	n->len = r->rec.len;
	n->payload = r->payload;
	return 1;
}

void trawl_ustctl_notify_ring_dropped(const struct trawl_ustctl_notify_ring *r, uint64_t *full, uint64_t *big)
{
	const struct trawl_notify_head *h = (const struct trawl_notify_head *)r->map;

	/* The app's word (it writes them): for reports only. */
	*full = __atomic_load_n(&h->dropped_full, __ATOMIC_RELAXED);
	*big = __atomic_load_n(&h->dropped_big, __ATOMIC_RELAXED);
}

_Static_assert(TRAWL_USTCTL_NOTIFY_COUNTERS == TRAWL_NOTIFY_COUNTERS, "ustctl.h's count");

uint64_t trawl_ustctl_notify_ring_dropped_by(const struct trawl_ustctl_notify_ring *r, uint32_t counter)
{
	const struct trawl_notify_head *h = (const struct trawl_notify_head *)r->map;

	if (counter < 1 || counter > TRAWL_NOTIFY_COUNTERS)
		return 0;
	return __atomic_load_n(&h->dropped_by[counter - 1], __ATOMIC_RELAXED);
}

void trawl_ustctl_notify_ring_destroy(struct trawl_ustctl_notify_ring *r)
{
	if (!r)
		return;
	trawl_ustctl_notify_ring_close_fd(r);
	munmap(r->map, r->size);
	free(r->payload);
	free(r);
}
