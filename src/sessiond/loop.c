/* SPDX-License-Identifier: MIT */
/*
 * loop.c - the daemon's one poll loop: fd watches, their deadlines, and
 * the nested rounds a command runs while it waits for apps.
 *
 * Watches live in a table that grows with them (the daemon holds as many
 * connections as its fd limit and the per-uid caps allow, peers.c), found
 * by fd through an fd-indexed map. A watch says what it waits for (POLLIN,
 * POLLOUT, or nothing for a while) and may carry a deadline: a peer that
 * must finish a message, or answer, by then is handed to its expiry
 * callback instead of being waited for. Nothing in the loop ever blocks on
 * one peer: every read and write a callback does is non-blocking.
 *
 * Nested rounds. A command that sent apps something they must act on
 * before it answers its client (start, stop, enable-event) waits for their
 * replies with sd_loop_wait(): the loop runs again inside the command,
 * until every reply is in or each app that missed its deadline is dropped.
 * Meanwhile only the watches marked with sd_watch_nested() run, and their
 * callbacks must not change what the waiting command relies on: they read
 * and buffer, answer read-only requests, and leave the rest (a new app's
 * set-up, another client's command) to the top level, where the functions
 * given to sd_loop_on_top() run after every round. One level only: the
 * work done in a nested round never waits for apps itself.
 *
 * Deleting a watch only marks it (a round may be iterating the table, a
 * nested round inside it too); the table is compacted at the top level.
 */
#include "common/array.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

struct watch {
	int fd; /* -1: deleted */
	short events;
	int nested;
	uint64_t deadline_ms; /* 0: none */
	sd_watch_cb cb;
	sd_expire_cb expired;
	void *arg;
};

static struct watch *watches;
static size_t nr_watches, cap_watches;
static int *slot_of; /* fd -> index in watches, or -1 */
static size_t cap_slots;
static int depth;
static int sig_fd = -1;
static void (*on_top[8])(void);

uint64_t sd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static struct watch *find(int fd)
{
	if (fd < 0 || (size_t)fd >= cap_slots || slot_of[fd] < 0)
		return NULL;
	return &watches[slot_of[fd]];
}

static int map_fd(int fd, int slot)
{
	if ((size_t)fd >= cap_slots) {
		size_t old = cap_slots, i;

		if (trawl_array_grow((void **)&slot_of, &cap_slots, (size_t)fd + 1, sizeof(*slot_of),
				     256))
			return -ENOMEM;
		for (i = old; i < cap_slots; i++)
			slot_of[i] = -1;
	}
	slot_of[fd] = slot;
	return 0;
}

int sd_watch_add(int fd, sd_watch_cb cb, void *arg)
{
	if (fd < 0)
		return -EBADF;
	if (trawl_array_grow((void **)&watches, &cap_watches, nr_watches + 1, sizeof(*watches), 64))
		return -ENOMEM;
	if (map_fd(fd, (int)nr_watches))
		return -ENOMEM;
	watches[nr_watches++] = (struct watch){.fd = fd, .events = POLLIN, .cb = cb, .arg = arg};
	return 0;
}

void sd_watch_del(int fd)
{
	struct watch *w = find(fd);

	if (!w)
		return;
	w->fd = -1; /* compacted after the round (the top level's) */
	slot_of[fd] = -1;
}

void sd_watch_events(int fd, short events)
{
	struct watch *w = find(fd);

	if (w)
		w->events = events;
}

void sd_watch_deadline(int fd, uint64_t deadline_ms, sd_expire_cb expired)
{
	struct watch *w = find(fd);

	if (w) {
		w->deadline_ms = deadline_ms;
		w->expired = expired;
	}
}

void sd_watch_nested(int fd, int yes)
{
	struct watch *w = find(fd);

	if (w)
		w->nested = yes;
}

int sd_loop_nested(void)
{
	return depth > 0;
}

void sd_loop_on_top(void (*fn)(void))
{
	size_t i;

	for (i = 0; i < TRAWL_ARRAY_SIZE(on_top); i++) {
		if (!on_top[i]) {
			on_top[i] = fn;
			return;
		}
	}
	abort(); /* a fixed set of parts register here: a bug */
}

static void wake_read(int fd, short revents, void *arg)
{
	uint64_t v;

	(void)revents;
	(void)arg;
	if (read(fd, &v, sizeof(v)) < 0) {
		/* nothing: it only wakes the loop */
	}
}

int sd_loop_wake_fd(void (*fn)(void))
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	if (fd < 0)
		return -1;
	if (sd_watch_add(fd, wake_read, NULL)) {
		close(fd);
		return -1;
	}
	sd_loop_on_top(fn);
	return fd;
}

void sd_loop_wake(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0) {
		/* the counter is full: readable anyway */
	}
}

static void compact(void)
{
	size_t i, j = 0;

	for (i = 0; i < nr_watches; i++) {
		if (watches[i].fd < 0)
			continue;
		watches[j] = watches[i];
		slot_of[watches[j].fd] = (int)j;
		j++;
	}
	nr_watches = j;
}

static int runs_here(const struct watch *w)
{
	return w->fd >= 0 && (depth == 0 || w->nested);
}

/* The poll timeout (ms) for the nearest deadline of a watch that runs at this depth. */
static int next_timeout(uint64_t now, uint64_t until_ms)
{
	uint64_t next = until_ms;
	size_t i;

	for (i = 0; i < nr_watches; i++)
		if (runs_here(&watches[i]) && watches[i].deadline_ms &&
		    (!next || watches[i].deadline_ms < next))
			next = watches[i].deadline_ms;
	if (!next)
		return -1;
	return next <= now ? 0 : (int)TRAWL_MIN(next - now, 60000u);
}

static void expire(uint64_t now)
{
	size_t i, n = nr_watches;

	for (i = 0; i < n && !sd.quit; i++) {
		struct watch *w = &watches[i];

		if (runs_here(w) && w->deadline_ms && w->deadline_ms <= now) {
			int fd = w->fd;
			sd_expire_cb cb = w->expired;
			void *arg = w->arg;

			w->deadline_ms = 0;
			if (cb)
				cb(fd, arg);
		}
	}
}

/* One round: poll the watches that run at this depth, run their callbacks. */
static int round_once(uint64_t until_ms)
{
	struct pollfd *pfd;
	size_t *idx, i, n = 0, total = nr_watches;
	int ret;

	pfd = malloc((total + 1) * sizeof(*pfd));
	idx = malloc((total + 1) * sizeof(*idx));
	if (!pfd || !idx) {
		free(pfd);
		free(idx);
		return -ENOMEM;
	}
	pfd[n].fd = sig_fd;
	pfd[n].events = POLLIN;
	idx[n++] = SIZE_MAX;
	for (i = 0; i < total; i++) {
		if (!runs_here(&watches[i]))
			continue;
		pfd[n].fd = watches[i].fd;
		/* No interest: polled anyway so a hang-up is seen, but only that. */
		pfd[n].events = watches[i].events;
		idx[n++] = i;
	}
	ret = poll(pfd, n, next_timeout(sd_now_ms(), until_ms));
	if (ret < 0) {
		ret = errno == EINTR ? 0 : -errno;
		goto out;
	}
	ret = 0;
	if (pfd[0].revents & POLLIN) {
		struct signalfd_siginfo si;

		if (read(sig_fd, &si, sizeof(si)) == sizeof(si)) {
			sd_log("signal %u: exiting", si.ssi_signo);
			sd.quit = 1;
		}
	}
	for (i = 1; i < n && !sd.quit; i++) {
		struct watch *w = &watches[idx[i]];

		/* A callback may have removed it (or its fd been reused). */
		if (pfd[i].revents && w->fd == pfd[i].fd && runs_here(w))
			w->cb(w->fd, pfd[i].revents, w->arg);
	}
	expire(sd_now_ms());
	/* an owner child that reported before it exited: no zombie left */
	sd_owner_reap();
out:
	free(idx);
	free(pfd);
	return ret;
}

void sd_loop_wait(int (*done)(void *arg), void *arg, uint64_t until_ms)
{
	if (depth > 0)
		abort(); /* one level (top comment) */
	depth++;
	while (!sd.quit && !done(arg) && (!until_ms || sd_now_ms() < until_ms))
		if (round_once(until_ms))
			break;
	depth--;
}

int sd_loop_run(int sigfd)
{
	int ret = 0;
	size_t i;

	sig_fd = sigfd;
	while (!sd.quit) {
		ret = round_once(0);
		if (ret) {
			sd_log("poll: %s", strerror(-ret));
			break;
		}
		for (i = 0; i < TRAWL_ARRAY_SIZE(on_top) && on_top[i] && !sd.quit; i++)
			on_top[i]();
		compact();
	}
	return ret;
}
