/* SPDX-License-Identifier: MIT */
/*
 * notify.c - the notify action's notifications, and the clients waiting for
 * them (NOTIFY_WAIT, proto.h; libtrawl-ctl's notification channels).
 *
 * Each trigger owner has a log of its last LOG_LEN notifications, numbered
 * from 1 (the cursor of the next is the owner's `next`). A client asks for
 * those after its cursor: it gets them at once, or, if there are none yet,
 * its request waits (sd_reply.later) until one comes or its time is up (at
 * most TRAWL_CTL_NOTIFY_WAIT_MAX_MS, a timerfd armed at the nearest end). A
 * client sees only its own uid's log (root: root's), so a user's flood of
 * notifications rolls only that user's log; one uid has at most
 * WAITERS_PER_UID requests waiting.
 *
 * Lost notifications. A client is told how many notifications after its
 * cursor it can no longer have (NOTIFY_CURSOR's dropped): those the log
 * rolled over, and those that never came to be, their trigger's hit
 * dropped before it ran (triggers.c: its uid's programs fired more than
 * their share of the queue; sd_notify_lost()). The latter take a place in
 * the log, a "lost" note counting them, so that every client learns of
 * them once, in order, whatever its cursor: they are counted as they come
 * (lost_pending) and written as one note at the owner's next notification,
 * at a client's next wait, or at once for a client waiting (the round's
 * end, sd_notify_lost_tell()). So a flood of lost hits takes one place in
 * the log per notification or per request of the owner's clients, never
 * one per hit.
 *
 * A client behind the log by more than LOG_LEN notes is told of each note
 * it missed: a notification as 1, a "lost" note as its count, so the
 * owner's lost notes that rolled out of the log are remembered (their
 * numbers and counts, the last ROLLED_LEN of them). Past those, a client
 * even further behind is told the counts of all the older ones forgotten
 * (more than it missed, never less: no loss is silent).
 */
#include "common/common.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define LOG_LEN 128u
#define ROLLED_LEN 256u
#define WAITERS_PER_UID 16u

struct note {
	uint64_t seq;
	uint64_t ts_ns;
	uint32_t condition;
	uint32_t nr_captures;
	char trigger[TRAWL_CTL_NAME_MAX];
	char *captures; /* owned, "" when none */
	uint64_t lost;  /* a "lost" note (no notification): notifications that never came */
};

struct owner_log {
	struct owner_log *next;
	uid_t uid;
	uint64_t next_seq; /* the next notification's number (from 1) */
	uint64_t lost_pending; /* notifications lost, not yet in a note */
	struct note notes[LOG_LEN]; /* seq s in notes[s % LOG_LEN] */
	/* The lost notes of more than 1 rolled out of notes[]: the k-th in
	 * rolled[k % ROLLED_LEN] (top comment), those before forgotten. */
	struct {
		uint64_t seq, lost;
	} rolled[ROLLED_LEN];
	uint64_t nr_rolled;
	uint64_t forgot_seq;   /* the forgotten ones are before it */
	uint64_t forgot_extra; /* their counts past 1, summed */
};

struct waiter {
	struct waiter *next;
	struct sd_later later;
	uid_t uid;
	uint64_t cursor;
	uint64_t deadline_ms;
};

static struct owner_log *logs;
static struct waiter *waiters;
static int timer_fd = -1;

static struct owner_log *log_of(uid_t uid, int make)
{
	struct owner_log *l;

	for (l = logs; l; l = l->next)
		if (l->uid == uid)
			return l;
	if (!make || !(l = calloc(1, sizeof(*l))))
		return NULL;
	l->uid = uid;
	l->next_seq = 1;
	l->next = logs;
	logs = l;
	return l;
}

/* The oldest notification @l still holds. */
static uint64_t log_first(const struct owner_log *l)
{
	return l->next_seq > LOG_LEN ? l->next_seq - LOG_LEN : 1;
}

/* @l's slot for its next note, emptied: a lost note of more than 1 that
 * leaves it remembered (top comment). */
static struct note *note_next(struct owner_log *l)
{
	struct note *n = &l->notes[l->next_seq % LOG_LEN];

	if (n->lost > 1) {
		uint32_t k = (uint32_t)(l->nr_rolled % ROLLED_LEN);

		if (l->nr_rolled >= ROLLED_LEN) {
			l->forgot_extra += l->rolled[k].lost - 1;
			l->forgot_seq = l->rolled[k].seq + 1;
		}
		l->rolled[k].seq = n->seq;
		l->rolled[k].lost = n->lost;
		l->nr_rolled++;
	}
	free(n->captures);
	memset(n, 0, sizeof(*n));
	return n;
}

/* The notifications lost in the notes @l no longer holds from @cursor on
 * (before log_first()): 1 a note, a lost note's count. */
static uint64_t rolled_lost(const struct owner_log *l, uint64_t cursor, uint64_t first)
{
	uint64_t n = first - cursor, k;

	k = l->nr_rolled > ROLLED_LEN ? l->nr_rolled - ROLLED_LEN : 0;
	for (; k < l->nr_rolled; k++)
		if (l->rolled[k % ROLLED_LEN].seq >= cursor)
			n += l->rolled[k % ROLLED_LEN].lost - 1;
	if (cursor < l->forgot_seq)
		n += l->forgot_extra;
	return n;
}

/* @l's lost notifications so far written as a note of their own. */
static void lost_write(struct owner_log *l)
{
	struct note *n;

	if (!l || !l->lost_pending)
		return;
	n = note_next(l);
	n->seq = l->next_seq++;
	n->lost = l->lost_pending;
	l->lost_pending = 0;
}

/* @uid's notifications from @cursor on, after a NOTIFY_CURSOR record, in @r. */
static void reply_from(struct sd_reply *r, uid_t uid, uint64_t cursor)
{
	struct owner_log *l = log_of(uid, 0);
	struct trawl_ctl_wire_notify_cursor c = {0};
	uint64_t s, first;

	/* (before the cursor is read: a client from now on, NOTIFY_NOW, then
	 * learns nothing of what was lost before it came) */
	lost_write(l);
	c.next = l ? l->next_seq : 1;
	first = l ? log_first(l) : 1;
	if (cursor == TRAWL_CTL_NOTIFY_NOW)
		cursor = c.next;
	if (cursor < first) {
		c.dropped = l ? rolled_lost(l, cursor, first) : first - cursor;
		cursor = first;
	}
	for (s = cursor; l && s < l->next_seq; s++)
		c.dropped += l->notes[s % LOG_LEN].lost;
	sd_reply_rec(r, TRAWL_CTL_ITEM_NOTIFY_CURSOR, &c, NULL);
	for (s = cursor; l && s < l->next_seq && !r->status; s++) {
		const struct note *n = &l->notes[s % LOG_LEN];
		struct trawl_ctl_wire_notification w = {
			.seq = n->seq,
			.ts_ns = n->ts_ns,
			.owner_uid = uid,
			.condition = n->condition,
			.nr_captures = n->nr_captures,
		};
		const char *strs[] = {n->trigger, n->captures};

		if (n->lost)
			continue;
		sd_reply_rec(r, TRAWL_CTL_ITEM_NOTIFICATION, &w, strs);
	}
}

static void timer_arm(void)
{
	struct itimerspec its = {{0, 0}, {0, 0}};
	uint64_t next = 0, now = sd_now_ms();
	struct waiter *w;

	for (w = waiters; w; w = w->next)
		if (!next || w->deadline_ms < next)
			next = w->deadline_ms;
	if (next) {
		uint64_t in = next > now ? next - now : 1;

		its.it_value.tv_sec = (time_t)(in / 1000);
		its.it_value.tv_nsec = (long)(in % 1000) * 1000000;
	}
	if (timer_fd >= 0)
		timerfd_settime(timer_fd, 0, &its, NULL);
}

/* Answers and frees the waiters of @uid (all: UINT32_MAX) that have
 * something after their cursor, or whose time is up (@now_ms), or all
 * (@all: the daemon exits). */
static void waiters_answer(uid_t uid, uint64_t now_ms, int all)
{
	struct waiter **pp = &waiters, *w;

	while ((w = *pp)) {
		const struct owner_log *l = log_of(w->uid, 0);
		int has = l && w->cursor != TRAWL_CTL_NOTIFY_NOW && w->cursor < l->next_seq;
		struct sd_reply r = {0};

		if (!all && !(has && (uid == UINT32_MAX || w->uid == uid)) && w->deadline_ms > now_ms) {
			pp = &w->next;
			continue;
		}
		*pp = w->next;
		reply_from(&r, w->uid, w->cursor);
		sd_later_answer(&w->later, &r);
		free(r.recs);
		free(w);
	}
	timer_arm();
}

static void timer_fired(int fd, short revents, void *arg)
{
	uint64_t v;

	(void)revents;
	(void)arg;
	if (read(fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing due */
	}
	waiters_answer(UINT32_MAX, sd_now_ms(), 0);
}

void sd_notify_push(uid_t owner, const char *trigger, uint32_t condition, uint64_t ts_ns,
		    uint32_t nr_captures, const char *captures)
{
	struct owner_log *l = log_of(owner, 1);
	struct note *n;
	char *c;

	if (!l)
		return;
	c = strdup(captures ? captures : "");
	if (!c)
		return;
	lost_write(l);
	n = note_next(l);
	n->captures = c;
	n->seq = l->next_seq++;
	n->ts_ns = ts_ns;
	n->condition = condition;
	n->nr_captures = nr_captures;
	n->lost = 0;
	/* (a trigger's name is shorter: the protocol checked it) */
	memcpy(n->trigger, trigger, strnlen(trigger, sizeof(n->trigger) - 1));
	n->trigger[strnlen(trigger, sizeof(n->trigger) - 1)] = '\0';
	waiters_answer(owner, 0, 0);
}

void sd_cmd_notify_wait(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			struct sd_reply *r)
{
	struct owner_log *l = log_of(p->uid, 0);
	uint64_t cursor = req->rotation_value;
	struct waiter *w;
	uint32_t mine = 0;

	lost_write(l);
	if (cursor == TRAWL_CTL_NOTIFY_NOW || !req->value || (l && cursor < l->next_seq))
		return reply_from(r, p->uid, cursor);
	for (w = waiters; w; w = w->next)
		mine += w->uid == p->uid;
	if (mine >= WAITERS_PER_UID)
		return (void)sd_fail(r, -EBUSY, "user %u has %u notification waits going on, the "
				     "most one user may", (unsigned)p->uid, WAITERS_PER_UID);
	if (timer_fd < 0) {
		timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (timer_fd < 0 || sd_watch_add(timer_fd, timer_fired, NULL)) {
			if (timer_fd >= 0)
				close(timer_fd);
			timer_fd = -1;
			return (void)sd_fail(r, -ENOMEM, "cannot wait for notifications: out of "
						       "resources");
		}
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return (void)sd_fail(r, -ENOMEM, "out of memory");
	w->uid = p->uid;
	w->cursor = cursor;
	w->deadline_ms = sd_now_ms() + req->value;
	w->next = waiters;
	waiters = w;
	r->later = &w->later;
	timer_arm();
}

void sd_notify_lost(uid_t owner, uint64_t n)
{
	struct owner_log *l = log_of(owner, 1);

	if (l)
		l->lost_pending += n;
}

void sd_notify_lost_tell(void)
{
	struct owner_log *l;
	struct waiter *w;

	for (l = logs; l; l = l->next) {
		if (!l->lost_pending)
			continue;
		for (w = waiters; w && w->uid != l->uid; w = w->next)
			;
		if (!w)
			continue;
		lost_write(l);
		waiters_answer(l->uid, 0, 0);
	}
}

void sd_notify_fini(void)
{
	struct owner_log *l;
	uint32_t i;

	waiters_answer(UINT32_MAX, 0, 1);
	while ((l = logs)) {
		logs = l->next;
		for (i = 0; i < LOG_LEN; i++)
			free(l->notes[i].captures);
		free(l);
	}
	if (timer_fd >= 0) {
		sd_watch_del(timer_fd);
		close(timer_fd);
		timer_fd = -1;
	}
}
