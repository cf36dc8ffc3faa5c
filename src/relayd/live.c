/* SPDX-License-Identifier: MIT */
/*
 * live.c - the live-viewer server of trawl-relayd: LTTng's live protocol 2.4
 * served from trace folders still being written (live.h). This file holds
 * the server: its threads, the viewers' admission, and the open sessions
 * (the streaming side's calls: add, close, beacons).
 *
 * Threads: one acceptor, plus one thread per connected viewer (at most
 * MAX_VIEWERS), each running the protocol's request/reply loop with blocking
 * I/O. A viewer thread that ends marks itself done and wakes the acceptor,
 * which joins it and closes its socket; relay_live_stop() shuts every
 * viewer's socket down, which unblocks it, and joins them all. A viewer's
 * socket is closed only after its thread is joined, so a shutdown() never
 * hits a reused fd. One viewer's requests and replies: live-viewer.c.
 */
#include "relayd/live-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define MAX_VIEWERS 64u
/* One host (or the local machine) may hold this many: the rest stay for others. */
#define MAX_VIEWERS_PER_HOST 16u
/* A viewer silent this long is gone (a live viewer asks again and again);
 * one that takes no reply this long is too. A thread per viewer: these
 * bound how long one can hold its slot for nothing. */
#define VIEWER_IDLE_S 600
#define VIEWER_SEND_S 60

uint64_t live_next_id(struct relay_live *rl)
{
	return __atomic_add_fetch(&rl->next_id, 1, __ATOMIC_RELAXED);
}

void live_session_put(struct relay_live *rl, struct live_session *s)
{
	int last;

	pthread_mutex_lock(&rl->lock);
	last = --s->refs == 0;
	pthread_mutex_unlock(&rl->lock);
	if (last)
		live_session_free(s);
}

/* ---- server ---- */

static void viewer_free(struct viewer *v)
{
	close(v->fd);
	free(v->buf);
	free(v);
}

/* Joins and frees viewers whose thread ended (all of them when @all). */
static void reap_viewers(struct relay_live *rl, int all)
{
	struct viewer **pp, *v, *done = NULL;

	pthread_mutex_lock(&rl->lock);
	for (pp = &rl->viewers; (v = *pp);) {
		if (v->done || all) {
			*pp = v->next;
			v->next = done;
			done = v;
			rl->nr_viewers--;
			if (all)
				shutdown(v->fd, SHUT_RDWR);
		} else {
			pp = &v->next;
		}
	}
	pthread_mutex_unlock(&rl->lock);
	while ((v = done)) {
		done = v->next;
		pthread_join(v->thread, NULL);
		viewer_free(v);
	}
}

/* @ss's host: the address without the port. */
static void host_only(struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = 0;
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = 0;
}

/* Viewers from @host. Under rl->lock. */
static unsigned viewers_of(const struct relay_live *rl, const struct sockaddr_storage *host)
{
	const struct viewer *v;
	unsigned n = 0;

	for (v = rl->viewers; v; v = v->next)
		n += !memcmp(&v->host, host, sizeof(*host));
	return n;
}

static void accept_one(struct relay_live *rl)
{
	struct timeval idle = {.tv_sec = VIEWER_IDLE_S}, snd = {.tv_sec = VIEWER_SEND_S};
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct viewer *v;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	fd = accept4(rl->listen_fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	host_only(&ss);
	/* Replies are small and answered one at a time: do not let Nagle hold them. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof(idle));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &snd, sizeof(snd));
	pthread_mutex_lock(&rl->lock);
	if (rl->nr_viewers >= MAX_VIEWERS || viewers_of(rl, &ss) >= MAX_VIEWERS_PER_HOST) {
		int all = rl->nr_viewers >= MAX_VIEWERS;

		pthread_mutex_unlock(&rl->lock);
		if (!rl->full_logged)
			fprintf(stderr, "trawl-relayd: live: %u viewers %s: connections refused\n",
				all ? MAX_VIEWERS : MAX_VIEWERS_PER_HOST,
				all ? "already" : "from one host already");
		rl->full_logged = 1;
		close(fd);
		return;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		pthread_mutex_unlock(&rl->lock);
		close(fd);
		return;
	}
	v->rl = rl;
	v->fd = fd;
	v->host = ss;
	if (pthread_create(&v->thread, NULL, live_viewer_main, v)) {
		pthread_mutex_unlock(&rl->lock);
		viewer_free(v);
		return;
	}
	v->next = rl->viewers;
	rl->viewers = v;
	rl->nr_viewers++;
	rl->full_logged = 0;
	pthread_mutex_unlock(&rl->lock);
}

static void *acceptor_main(void *arg)
{
	struct relay_live *rl = arg;
	struct pollfd p[2] = {{.fd = rl->listen_fd, .events = POLLIN}, {.fd = rl->wake[0], .events = POLLIN}};
	char drain[64];

	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents & POLLIN) {
			if (read(rl->wake[0], drain, sizeof(drain)) < 0) {
				/* Non-blocking pipe, woken spuriously. */
			}
		}
		if (__atomic_load_n(&rl->stopping, __ATOMIC_ACQUIRE))
			break;
		reap_viewers(rl, 0);
		if (p[0].revents & POLLIN)
			accept_one(rl);
	}
	return NULL;
}

struct relay_live *relay_live_start(int listen_fd)
{
	struct relay_live *rl = calloc(1, sizeof(*rl));
	int err;

	if (!rl) {
		close(listen_fd);
		errno = ENOMEM;
		return NULL;
	}
	rl->listen_fd = listen_fd;
	if (pipe2(rl->wake, O_CLOEXEC | O_NONBLOCK)) {
		err = errno;
		goto free_rl;
	}
	pthread_mutex_init(&rl->lock, NULL);
	err = pthread_create(&rl->acceptor, NULL, acceptor_main, rl);
	if (err)
		goto close_pipe;
	return rl;
close_pipe:
	pthread_mutex_destroy(&rl->lock);
	close(rl->wake[0]);
	close(rl->wake[1]);
free_rl:
	close(listen_fd);
	free(rl);
	errno = err;
	return NULL;
}

int relay_live_session_add(struct relay_live *rl, uint64_t id, const char *name, const char *hostname,
			   const char *path, uint32_t live_timer_us)
{
	struct live_session *s, *o;

	if (!rl || !name || !hostname || !path || !path[0] || strlen(name) >= LIVE_NAME_MAX ||
	    strlen(hostname) >= LIVE_HOST_NAME_MAX || strlen(path) >= LIVE_PATH_MAX - 64)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->root = strdup(path))) {
		free(s);
		return -ENOMEM;
	}
	s->rl = rl;
	s->id = id;
	live_put_str(s->name, sizeof(s->name), name);
	live_put_str(s->hostname, sizeof(s->hostname), hostname);
	s->live_timer_us = live_timer_us;
	s->refs = 1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_lock(&rl->lock);
	for (o = rl->sessions; o && o->id != id; o = o->next)
		;
	if (o) {
		pthread_mutex_unlock(&rl->lock);
		live_session_free(s);
		return -EEXIST;
	}
	s->next = rl->sessions;
	rl->sessions = s;
	pthread_mutex_unlock(&rl->lock);
	return 0;
}

void relay_live_session_close(struct relay_live *rl, uint64_t id)
{
	struct live_session **pp, *s;

	if (!rl)
		return;
	pthread_mutex_lock(&rl->lock);
	for (pp = &rl->sessions; (s = *pp) && s->id != id; pp = &s->next)
		;
	if (s)
		*pp = s->next;
	pthread_mutex_unlock(&rl->lock);
	if (!s)
		return;
	/* Pairs with the viewers' acquire loads before they look at sizes. */
	__atomic_store_n(&s->closed, 1, __ATOMIC_RELEASE);
	live_session_put(rl, s);
}

void relay_live_beacon(struct relay_live *rl, uint64_t id, dev_t dev, ino_t ino,
		       uint64_t idx_size, uint64_t ts_end)
{
	struct live_session *s;
	struct live_beacon *b = NULL;
	size_t i;

	if (!rl)
		return;
	pthread_mutex_lock(&rl->lock);
	for (s = rl->sessions; s && s->id != id; s = s->next)
		;
	if (s)
		s->refs++;
	pthread_mutex_unlock(&rl->lock);
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->nr_beacons && !b; i++)
		if (s->beacons[i].dev == dev && s->beacons[i].ino == ino)
			b = &s->beacons[i];
	if (!b && !s->beacons)
		s->beacons = calloc(LIVE_BEACONS_MAX, sizeof(*s->beacons));
	if (!b && s->beacons) {
		/* full: the slots go round, the oldest made first (a
		 * --tracefile-count ring's old files, streams long gone;
		 * a stream whose slot went has it back at its next beacon) */
		if (s->nr_beacons < LIVE_BEACONS_MAX)
			b = &s->beacons[s->nr_beacons++];
		else
			b = &s->beacons[s->beacons_next++ % LIVE_BEACONS_MAX];
		b->dev = dev;
		b->ino = ino;
	}
	if (b) {
		b->idx_size = idx_size;
		b->ts_end = ts_end;
	}
	pthread_mutex_unlock(&s->lock);
	live_session_put(rl, s);
}

void relay_live_stop(struct relay_live *rl)
{
	struct live_session *s;
	char c = 's';

	if (!rl)
		return;
	__atomic_store_n(&rl->stopping, 1, __ATOMIC_RELEASE);
	if (write(rl->wake[1], &c, 1) < 0) {
		/* Full pipe: the acceptor wakes anyway. */
	}
	pthread_join(rl->acceptor, NULL);
	reap_viewers(rl, 1);
	while ((s = rl->sessions)) {
		rl->sessions = s->next;
		__atomic_store_n(&s->closed, 1, __ATOMIC_RELEASE);
		live_session_put(rl, s);
	}
	close(rl->listen_fd);
	close(rl->wake[0]);
	close(rl->wake[1]);
	pthread_mutex_destroy(&rl->lock);
	free(rl);
}
