/* SPDX-License-Identifier: MIT */
/*
 * ust-notify.c - the apps' event notifiers: how a trigger's
 * event-rule-matches condition on user-space events sees the events.
 *
 * Each registered app that a trigger may see (the trigger's owner is root,
 * or the app's uid: a user's trigger never sees another user's programs)
 * gets, for that trigger, a notifier: a channel without buffers (wire.h
 * NOTIFIER) into which the daemon enables the app's events that the
 * trigger's rule matches (name pattern, exclusions, log level; the filter
 * goes with the ENABLE and runs in the app, as a recording rule's does).
 * Each event it takes goes to the app's notification ring (ustabi/notify.h,
 * read through ustctl.h: one sealed memfd per app, with an eventfd the loop
 * watches),
 * tagged with the notifier's handle and the event's index.
 *
 * Reading. The eventfd's callback only puts the app in the `ready` queue;
 * at the top of the loop (notify_on_top()) the queue's apps are read in
 * turn, each uid's apps SD_NOTIFY_HITS_PER_UID_ROUND records a round in
 * all (at most a ring's slots of one app at a time): the daemon's work a
 * round is bounded by the uids firing, not by their programs, so one
 * user's hundreds of programs take no more of it than another user's one.
 * An app its uid's share left unread keeps its place at the queue's head
 * for the next round; one read keeps firing goes to the queue's end
 * (turns among a uid's apps). What is left waits in the app's ring; past
 * the ring's slots the app drops it and counts it (ustabi/notify.h), and
 * the daemon tells each of those as lost ("Drops" below): no hit is lost
 * silently. Each record is checked (ustabi/notify.h: the app may
 * have written anything there) and handed to triggers.c as a hit of the
 * trigger it names, which queues it: the actions run at the top of the
 * loop, never from here. A record naming a notifier or an event the
 * daemon did not give this app is dropped: an app can only make fire what
 * its own events could.
 *
 * Drops. An app (ABI minor >= 14) counts each record it could not put in
 * the ring (full, or larger than a slot) in its notifier's counter in the
 * ring's head (NOTIFIER's counter: the lowest free one of the app's). The
 * counts are the app's word: each is read as what it grew by since last
 * read (a count that went down was rewritten: no growth), after each
 * drain, at the app's end and before a listing, and added to the
 * trigger's discarded messages (triggers.c), as LTTng's tracer counts
 * what it could not send, and told to the owners of the triggers that
 * notify as lost notifications (sd_trigger_ring_dropped()): with the
 * rings read a uid's share a round, a flood's excess is dropped there,
 * and no loss may be silent. They cannot lower a count, and raise only
 * those of the triggers that may see this app (as its events could fire
 * them).
 *
 * Captures. A notifier's captures are resolved against an event's fields
 * once, at the event's first hit (ust-capture.c's plans, kept per event):
 * an app chooses how many fields its events have, and a hit costs the
 * daemon no name lookup. An app's plans take at most NOTIFY_PLAN_BYTES;
 * past that, a hit's plan is made and freed with it (the field names
 * sorted once a hit: still no captures x fields lookup).
 *
 * Handles. A notifier's channel handle is TRAWL_NOTIFY_HANDLE_BIT | the
 * trigger's id (31 bits): session channels' handles (ust-app.c
 * chan_handle()) keep bit 31 clear while session ids stay below 2^23.
 */
#include "common/array.h"
#include "sessiond/ust-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define NOTIFY_HANDLE_BIT 0x80000000u
#define NOTIFY_SLOTS 64u
#define NOTIFY_SLOT_SIZE 4096u /* bytes: a record's head and up to 4064 bytes of payload */
/* The plans one app's notifiers keep (bytes): past it, a hit's plan is made
 * for it alone (an app has up to 16,384 events, a trigger hundreds of
 * captures: kept for all, an app's plans could take the daemon's memory). */
#define NOTIFY_PLAN_BYTES (256u << 10)

struct notifier {
	uint64_t trig_id;
	uint32_t handle;
	int seen;    /* the trigger is still there (sync) */
	uint8_t *on; /* [event index]: enabled in the app */
	/* [event index]: owned, the captures resolved in that event (made at
	 * its first hit; NULL before, or with no captures) */
	struct ust_capture_plan **plan;
	char *captures; /* owned: the trigger's capture descriptors, "" if none */
	uint32_t contexts; /* the context fields the app writes before each payload */
	int app_values;	   /* the app writes the captures' application contexts after them */
	uint32_t counter;  /* its drop counter in the ring's head (1..), 0: none */
	uint64_t dropped_seen; /* that counter's value when last read */
};

struct ust_notifier {
	struct ust_app *app;
	struct trawl_ustctl_notify_ring *ring; /* owned */
	int efd;
	int sent; /* the app has the ring */
	uint32_t nr_events;
	struct notifier *n;
	uint32_t nr, cap;
	uint64_t bad; /* records dropped as malformed */
	size_t plan_bytes; /* of its notifiers' plans (NOTIFY_PLAN_BYTES) */
	int ready; /* in `ready` */
	struct ust_notifier *next_ready;
};

/* The apps whose rings have records to read, in turn (top comment). */
static struct ust_notifier *ready, **ready_tail = &ready;
static int wake_fd = -1; /* wakes the loop while `ready` is not empty */

/* The hits read this round of each uid that has apps in `ready`. */
static struct uid_share {
	uid_t uid;
	uint32_t used;
} *shares;
static size_t nr_shares, cap_shares;

static void notifier_read(int fd, short revents, void *arg);
static int ready_init(void);

static void notifier_free(struct ust_notifier *un, struct notifier *n)
{
	uint32_t e;

	for (e = 0; n->plan && e <= un->nr_events; e++) {
		if (n->plan[e])
			un->plan_bytes -= ust_capture_plan_size(n->plan[e]);
		ust_capture_plan_destroy(n->plan[e]);
	}
	free(n->plan);
	free(n->on);
	free(n->captures);
}

static struct ust_notifier *notifier_get(struct ust_app *a)
{
	struct ust_notifier *un = a->notifier;
	int ret;

	if (un)
		return un;
	if (!a->notify_fd) {
		if (app_charge_fd(a)) {
			sd_log_peer(a->uid, TRAWL_LOG_WARN, "app %d (uid %d): no event notifiers for "
				    "triggers: its uid, or all untrusted ones, hold the most connections",
				    (int)a->pid, (int)a->uid);
			return NULL;
		}
		a->notify_fd = 1; /* given back by app_gone() */
	}
	if (wake_fd < 0 && ready_init())
		return NULL;
	un = calloc(1, sizeof(*un));
	if (!un)
		return NULL;
	un->app = a;
	ret = trawl_ustctl_notify_ring_create(NOTIFY_SLOTS, NOTIFY_SLOT_SIZE, &un->ring);
	if (ret < 0)
		goto err_free;
	un->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (un->efd < 0)
		goto err_ring;
	if (sd_watch_add(un->efd, notifier_read, un))
		goto err_efd;
	a->notifier = un;
	return un;
err_efd:
	close(un->efd);
err_ring:
	trawl_ustctl_notify_ring_destroy(un->ring);
err_free:
	free(un);
	return NULL;
}

/* @n's captures of event @id of @un's app as lines in @caps (@cap bytes):
 * how many. 0 (and @caps "") if the plan cannot be made (out of memory). */
static uint32_t hit_captures(struct ust_notifier *un, struct notifier *n, uint32_t id,
			     const struct trawl_ustctl_notification *rec, char *caps, size_t cap)
{
	const struct trawl_ustctl_event *ev = trawl_ustctl_app_event(un->app->h, id);
	struct ust_capture_plan *pl = n->plan[id];
	uint32_t nr;

	caps[0] = '\0';
	if (pl && !ust_capture_plan_fits(pl, ev)) {
		un->plan_bytes -= ust_capture_plan_size(pl); /* (never: a defence) */
		ust_capture_plan_destroy(pl);
		n->plan[id] = pl = NULL;
	}
	if (pl)
		return ust_capture_plan_format(pl, ev, rec->payload, rec->len, caps, cap);
	if (ust_capture_plan_create(ev, n->contexts, n->app_values, n->captures, &pl))
		return 0;
	nr = ust_capture_plan_format(pl, ev, rec->payload, rec->len, caps, cap);
	if (un->plan_bytes + ust_capture_plan_size(pl) <= NOTIFY_PLAN_BYTES) {
		un->plan_bytes += ust_capture_plan_size(pl);
		n->plan[id] = pl;
	} else {
		ust_capture_plan_destroy(pl);
	}
	return nr;
}

/* What each notifier's drop counter grew by, counted in its trigger and
 * told to its owner (top comment). */
static void dropped_sync(struct ust_notifier *un)
{
	uint32_t i;

	for (i = 0; i < un->nr; i++) {
		struct notifier *n = &un->n[i];
		uint64_t v;

		if (!n->counter)
			continue;
		v = trawl_ustctl_notify_ring_dropped_by(un->ring, n->counter);
		if (v > n->dropped_seen)
			sd_trigger_ring_dropped(n->trig_id, un->app->uid, v - n->dropped_seen);
		n->dropped_seen = v;
	}
}

/* Takes at most @max records of the ring (one round's worth of its app's
 * uid's share, at most the ring's slots): how many it took. */
static uint32_t ring_drain(struct ust_notifier *un, uint32_t max)
{
	struct trawl_ustctl_notification rec;
	uint32_t k, i;

	for (k = 0; k < max; k++) {
		int ret = trawl_ustctl_notify_ring_take(un->ring, &rec);

		if (!ret)
			break;
		if (ret < 0) {
			un->bad++;
			continue;
		}
		for (i = 0; i < un->nr; i++)
			if (un->n[i].handle == rec.chan_handle)
				break;
		if (i == un->nr || rec.id >= un->nr_events || !un->n[i].on[rec.id]) {
			un->bad++;
			continue;
		}
		if (un->n[i].captures[0]) {
			char caps[TRAWL_CTL_NOTIFY_CAPTURES_MAX];
			uint32_t nr = hit_captures(un, &un->n[i], rec.id, &rec, caps, sizeof(caps));

			sd_trigger_hit(un->n[i].trig_id, un->app->uid, rec.ts, nr, caps);
		} else {
			sd_trigger_hit(un->n[i].trig_id, un->app->uid, rec.ts, 0, NULL);
		}
	}
	dropped_sync(un);
	return k;
}

/* The lowest drop counter none of @un's notifiers has, or 0 (all taken). */
static uint32_t counter_free(const struct ust_notifier *un)
{
	uint8_t used[TRAWL_USTCTL_NOTIFY_COUNTERS + 1] = {0};
	uint32_t i;

	for (i = 0; i < un->nr; i++)
		used[un->n[i].counter] = 1;
	for (i = 1; i <= TRAWL_USTCTL_NOTIFY_COUNTERS; i++)
		if (!used[i])
			return i;
	return 0;
}

static struct uid_share *share_of(uid_t uid)
{
	size_t i;

	for (i = 0; i < nr_shares; i++)
		if (shares[i].uid == uid)
			return &shares[i];
	if (trawl_array_grow((void **)&shares, &cap_shares, nr_shares + 1, sizeof(*shares), 16))
		return NULL;
	shares[nr_shares] = (struct uid_share){uid, 0};
	return &shares[nr_shares++];
}

static void ready_add(struct ust_notifier *un)
{
	if (un->ready)
		return;
	un->ready = 1;
	un->next_ready = NULL;
	*ready_tail = un;
	ready_tail = &un->next_ready;
}

/*
 * Reads the ready apps' rings, each uid's SD_NOTIFY_HITS_PER_UID_ROUND
 * hits at most (top comment). The apps its share left unread first next
 * round, in their order, then those read that have more.
 */
static void notify_on_top(void)
{
	struct ust_notifier *un = ready, *next, *again = NULL, **again_tail = &again;

	ready = NULL;
	ready_tail = &ready;
	nr_shares = 0;
	for (; un; un = next) {
		struct uid_share *sh = share_of(un->app->uid);
		uint32_t left, took;

		next = un->next_ready;
		un->next_ready = NULL;
		/* (no room to count it in: read as before, a ring's worth) */
		left = sh ? SD_NOTIFY_HITS_PER_UID_ROUND - sh->used : NOTIFY_SLOTS;
		if (!left) {
			*ready_tail = un; /* its turn first, next round */
			ready_tail = &un->next_ready;
			continue;
		}
		took = ring_drain(un, TRAWL_MIN(left, NOTIFY_SLOTS));
		if (sh)
			sh->used += took;
		if (trawl_ustctl_notify_ring_pending(un->ring)) {
			*again_tail = un;
			again_tail = &un->next_ready;
		} else {
			un->ready = 0; /* its eventfd says when it has more */
		}
	}
	*ready_tail = again;
	if (again)
		ready_tail = again_tail;
	if (ready)
		sd_loop_wake(wake_fd);
}

static int ready_init(void)
{
	wake_fd = sd_loop_wake_fd(notify_on_top);
	return wake_fd < 0 ? -1 : 0;
}

static void notifier_read(int fd, short revents, void *arg)
{
	uint64_t v;

	(void)revents;
	if (read(fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing new since */
	}
	ready_add(arg); /* read at the top of the loop (notify_on_top()) */
}

void ust_notify_app_gone(struct ust_app *a)
{
	struct ust_notifier *un = a->notifier;
	uint32_t i;

	if (!un)
		return;
	if (un->ready) {
		struct ust_notifier **pp;

		for (pp = &ready; *pp != un; pp = &(*pp)->next_ready)
			;
		*pp = un->next_ready;
		if (ready_tail == &un->next_ready)
			ready_tail = pp;
	}
	/* A program's last words (its error, then its exit): one ring's worth,
	 * beyond its uid's share (a program exits once). */
	ring_drain(un, NOTIFY_SLOTS);
	if (un->bad)
		sd_log_peer(a->uid, TRAWL_LOG_WARN, "app %d (uid %d): %llu malformed notifications "
			    "dropped", (int)a->pid, (int)a->uid, (unsigned long long)un->bad);
	sd_watch_del(un->efd);
	close(un->efd);
	trawl_ustctl_notify_ring_destroy(un->ring);
	for (i = 0; i < un->nr; i++)
		notifier_free(un, &un->n[i]);
	free(un->n);
	free(un);
	a->notifier = NULL;
}

/* ---- following the triggers ---- */

static struct notifier *notifier_of(struct ust_notifier *un, uint64_t trig_id)
{
	uint32_t i;

	for (i = 0; i < un->nr; i++)
		if (un->n[i].trig_id == trig_id)
			return &un->n[i];
	return NULL;
}

/* A new notifier for trigger @trig_id, sent to the app. NULL on failure (the
 * app failed, or out of memory). */
static struct notifier *notifier_add(struct ust_notifier *un, const struct sd_trigger_rule *r)
{
	char app[TRAWL_USTCTL_MAX_APP_CTX][TRAWL_USTCTL_APP_CTX_NAME_MAX];
	uint32_t nr_app = 0;
	uint64_t trig_id = r->id;
	struct ust_app *a = un->app;
	struct notifier *n;
	int ret;

	if (un->nr == un->cap) {
		uint32_t cap = un->cap ? un->cap * 2 : 4;
		struct notifier *nn = realloc(un->n, cap * sizeof(*nn));

		if (!nn)
			return NULL;
		un->n = nn;
		un->cap = cap;
	}
	n = &un->n[un->nr];
	memset(n, 0, sizeof(*n));
	n->on = calloc(un->nr_events + 1, 1);
	n->plan = calloc(un->nr_events + 1, sizeof(*n->plan));
	n->captures = strdup(r->captures ? r->captures : "");
	if (!n->on || !n->plan || !n->captures) {
		notifier_free(un, n);
		return NULL;
	}
	n->trig_id = trig_id;
	n->handle = NOTIFY_HANDLE_BIT | (uint32_t)(trig_id & 0x7fffffffu);
	/* $ctx.NAME captures: from ABI minor 10; $app.PROVIDER:NAME: from 13
	 * (older apps write none, and those captures are unavailable). */
	if (trawl_ustctl_app_info(a->h)->abi_minor >= 10)
		n->contexts = ust_capture_contexts(n->captures);
	if (trawl_ustctl_app_info(a->h)->abi_minor >= 13)
		nr_app = ust_capture_app_contexts(n->captures, app);
	n->app_values = nr_app != 0;
	/* (an older app would not count in it: none) */
	if (trawl_ustctl_app_info(a->h)->abi_minor >= 14)
		n->counter = counter_free(un);
	/* what a released notifier counted in it is not this one's */
	n->dropped_seen = trawl_ustctl_notify_ring_dropped_by(un->ring, n->counter);
	ret = trawl_ustctl_app_send_notifier(
		a->h, n->handle, un->sent ? -1 : trawl_ustctl_notify_ring_fd(un->ring),
		un->sent ? -1 : un->efd, NOTIFY_SLOTS, NOTIFY_SLOT_SIZE, n->contexts,
		(const char(*)[TRAWL_USTCTL_APP_CTX_NAME_MAX])app, nr_app, n->counter);
	if (ret) {
		notifier_free(un, n);
		if (ret != -EPROTONOSUPPORT)
			app_fail(a, ret);
		return NULL;
	}
	if (!un->sent) {
		/* The command holds its own copies (ustctl dups them). */
		trawl_ustctl_notify_ring_close_fd(un->ring);
		un->sent = 1;
	}
	un->nr++;
	return n;
}

/* Enables in @n the app's events @r matches, disables the others. */
static int notifier_events(struct ust_notifier *un, struct notifier *n, const struct sd_trigger_rule *r)
{
	struct ust_app *a = un->app;
	size_t flen = r->filter[0] ? strlen(r->filter) + 1 : 0;
	uint32_t e;
	int ret;

	for (e = 0; e < un->nr_events; e++) {
		const struct trawl_ustctl_event *ev = trawl_ustctl_app_event(a->h, e);
		int want = ust_event_matches(r->pattern, r->exclusions, r->loglevel_type, r->loglevel, ev);

		if (want == n->on[e])
			continue;
		if (want)
			ret = trawl_ustctl_app_enable_event_filter(a->h, n->handle, e, e, flen ? r->filter : NULL,
								   flen);
		else
			ret = trawl_ustctl_app_disable_event(a->h, n->handle, e);
		if (ret) {
			app_fail(a, ret);
			return ret;
		}
		n->on[e] = (uint8_t)want;
	}
	return 0;
}

/* Every notifier's per-event state sized for the app's events now. */
static int notifier_grow(struct ust_notifier *un, uint32_t nr_events)
{
	uint32_t i;

	if (nr_events <= un->nr_events)
		return 0;
	for (i = 0; i < un->nr; i++) {
		uint8_t *on = realloc(un->n[i].on, nr_events + 1);
		struct ust_capture_plan **plan;

		if (!on)
			return -ENOMEM;
		memset(on + un->nr_events, 0, nr_events + 1 - un->nr_events);
		un->n[i].on = on;
		plan = realloc(un->n[i].plan, (nr_events + 1) * sizeof(*plan));
		if (!plan)
			return -ENOMEM; /* (the larger `on` kept: grown again next time) */
		memset(plan + un->nr_events, 0,
		       (nr_events + 1 - un->nr_events) * sizeof(*plan));
		un->n[i].plan = plan;
	}
	un->nr_events = nr_events;
	return 0;
}

static int sync_rule(const struct sd_trigger_rule *r, void *arg)
{
	struct ust_app *a = arg;
	struct ust_notifier *un;
	struct notifier *n;

	if (a->dead)
		return 1;
	if (r->owner != 0 && r->owner != a->uid)
		return 0; /* another user's trigger never sees this app */
	un = notifier_get(a);
	if (!un || notifier_grow(un, trawl_ustctl_app_event_count(a->h)))
		return 1;
	n = notifier_of(un, r->id);
	if (!n)
		n = notifier_add(un, r);
	if (!n)
		return 1;
	n->seen = 1;
	return notifier_events(un, n, r) ? 1 : 0;
}

void ust_notify_app_sync(struct ust_app *a)
{
	struct ust_notifier *un = a->notifier;
	uint32_t i, j;

	if (a->dead || !a->h || trawl_ustctl_app_info(a->h)->abi_minor < 9)
		return;
	if (un) {
		if (notifier_grow(un, trawl_ustctl_app_event_count(a->h)))
			return;
		for (i = 0; i < un->nr; i++)
			un->n[i].seen = 0;
	}
	sd_triggers_ust_rules(sync_rule, a);
	un = a->notifier;
	if (!un || a->dead)
		return;
	/* Triggers removed (or no longer this app's): their notifiers go. */
	for (i = j = 0; i < un->nr; i++) {
		if (un->n[i].seen) {
			un->n[j++] = un->n[i];
			continue;
		}
		int ret = trawl_ustctl_app_release_channel(a->h, un->n[i].handle);

		if (ret)
			app_fail(a, ret);
		notifier_free(un, &un->n[i]);
	}
	un->nr = j;
}

void sd_ust_notify_sync_all(void)
{
	struct ust_app *a;

	for (a = apps; a; a = a->next)
		if (a->registered && !a->dead)
			ust_notify_app_sync(a);
}

void sd_ust_notify_discarded_sync(void)
{
	struct ust_app *a;

	for (a = apps; a; a = a->next)
		if (a->notifier)
			dropped_sync(a->notifier);
}
