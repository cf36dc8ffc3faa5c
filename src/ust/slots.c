/* SPDX-License-Identifier: MIT */
/*
 * slots.c - where each event records (its slots, tracepoint.h), and the
 * tally of events that fire while a daemon is late setting the app up.
 *
 * Slots. An event's slot array is changed in place under trawl_ust_lock
 * (each field with the atomics the probe pairs with); to grow, it is copied
 * into an array twice as large, published whole with release order. Arrays
 * are never freed while the process runs (a probe may be reading one it
 * loaded), which bounds an event's arrays to twice its largest.
 *
 * Tally. A program's start-up waits (TRAWL_UST_REGISTER_TIMEOUT ms) for its
 * daemons to set it up, so that its first events are recorded. When a
 * daemon is later than that (a loaded machine, a stalled daemon), the
 * events the program records before its setup is complete would be lost
 * without a trace: its tracepoints are not on yet, and no buffer knows of
 * them. Instead, from the end of that wait until the daemon's
 * REGISTRATION_DONE, every registered event records into a *tally*: one
 * slot whose channel has no buffer and counts the events by kind. The
 * daemon's setup meanwhile goes to a shadow list, not to the slots. When
 * the setup is complete, each event's array is replaced at once by one
 * without the tally slot and with the shadow slots, and each event's count
 * is added to the lost-events counter (ringbuffer.h: what the consumer
 * writes as the packets' events_discarded) of every channel the setup made
 * it record into. A probe loads an event's array once: each event is either
 * counted (old array) or recorded (new one), never both, never neither.
 *
 * A probe late. A probe that loaded the old array counts after the switch:
 * it was preempted in between, or simply slower than the switch (a thread
 * recording in a loop while the setup completes did so 4 times in 10;
 * the tally's channel was then inactive already, and the event dropped,
 * uncounted). So the end of a tally goes in three steps: each event's new
 * array is published with, for its kind, where late events go (the
 * channel's tally_fwd[id]: the lost-events counters of the channels the
 * setup gave it); then the switch waits until no probe is counting on the
 * tally's channels (tally_busy); then it takes the counts. A probe counting
 * raises tally_busy, then reads tally_fwd[id]: either it sees it and adds
 * its event to those channels' lost events itself, or the switch, which
 * stores tally_fwd[id] before it reads tally_busy, sees the probe and waits
 * for its count (both sequentially consistent: the store-load order of each
 * side holds). The wait is bounded (TALLY_QUIET_MS): a thread stopped in
 * those few instructions (a debugger) counts into the kind's count when it
 * goes on, which the daemon reads from the memfd when the program goes.
 * Counted events are counted whatever the rules' filters would have said:
 * over-counting what was lost, never under-counting it. A provider
 * loaded during the tally has its events added to it (trawl_ust_tally_add():
 * a counting channel of their own), and the tally then lasts until the
 * daemon has set up that addition too.
 *
 * The same tally covers a program its daemon dropped (it missed a
 * deadline) while a session traced it: from the moment its agent notices
 * until its next registration is set up, its events would be neither
 * recorded nor counted. trawl_ust_tally_start_replacing() swaps each
 * event's array at once for one without the dropped connection's channels
 * and with the tally's slot, so each event is recorded (into the old
 * channels, which the consumer still reads: per-user buffers, or the
 * per-process trace the daemon keeps for a living process) or counted;
 * the setup of the registration that follows then takes the counts as
 * above, into the same buffers (per-user) or the same per-process trace.
 *
 * A program that exits before its setup is complete hands its counts to
 * the daemon instead (TALLY, wire.h): each provider's destructor takes its
 * events' counts (trawl_ust_tally_take(), exchanged with 0, so that a setup
 * completing meanwhile counts only what came after) and the agent sends
 * them by name; the daemon charges the channels that would have recorded
 * them.
 */
#define _GNU_SOURCE
#include "common/array.h"
#include "ust/ust.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/common.h"

/* ---- slots ---- */

/*
 * Every slot array ever made, newest first, each behind its link. None is
 * freed while the process runs (top comment); the list keeps them
 * reachable, so a leak checker does not report the retired ones, nor the
 * last one of an event whose provider was unloaded (dlclose took the
 * event's pointer with it). Written under trawl_ust_lock.
 */
struct slots_kept {
	struct slots_kept *next;
	struct trawl_ust_slots s;
};
static struct slots_kept *slots_kept;

/* A new array of @cap slots holding @old's (may be NULL). Not published. */
static struct trawl_ust_slots *slots_new(const struct trawl_ust_slots *old, unsigned int cap)
{
	struct trawl_ust_slots *s;
	struct slots_kept *k;
	unsigned int i;

	if (cap > 1u << 20)
		return NULL;
	k = calloc(1, sizeof(*k) + cap * sizeof(*s->slot));
	if (!k)
		return NULL;
	k->next = slots_kept;
	slots_kept = k;
	s = &k->s;
	s->slot = (struct trawl_ust_slot *)(k + 1);
	s->cap = cap;
	for (i = 0; old && i < old->nr; i++)
		s->slot[i] = old->slot[i]; /* only this thread writes them (lock held) */
	s->nr = old ? old->nr : 0;
	return s;
}

/* Room for one more slot in @ev: its array, or a larger copy, published
 * (release: pairs with the probe's acquire load of ev->slots). */
static struct trawl_ust_slots *slots_room(struct trawl_ust_event_desc *ev)
{
	struct trawl_ust_slots *old = ev->slots, *s;

	if (old && old->nr < old->cap)
		return old;
	s = slots_new(old, old ? old->cap * 2 : 4);
	if (s)
		__atomic_store_n(&ev->slots, s, __ATOMIC_RELEASE);
	return s;
}

int trawl_ust_slots_set(struct trawl_ust_event_desc *ev, struct trawl_ust_chan *chan, uint32_t id,
			uint32_t filter, int enable)
{
	struct trawl_ust_slots *s = ev->slots;
	unsigned int i, free_slot = ~0u;

	for (i = 0; s && i < s->nr; i++) {
		if (s->slot[i].chan == chan) {
			if (enable) {
				/* Release: pairs with the probe's acquire load
				 * (filter.c: the entry is published first). */
				__atomic_store_n(&s->slot[i].filter, filter, __ATOMIC_RELEASE);
				__atomic_store_n(&s->slot[i].id, id, __ATOMIC_RELAXED);
			} else {
				__atomic_store_n(&s->slot[i].chan, NULL, __ATOMIC_RELEASE);
			}
			return 0;
		}
		if (!s->slot[i].chan && free_slot == ~0u)
			free_slot = i;
	}
	if (!enable)
		return 0;
	if (free_slot == ~0u) {
		s = slots_room(ev);
		if (!s)
			return -ENOMEM;
		free_slot = s->nr;
	}
	/* The id and filter first, then the channel with release order: a
	 * probe that sees the channel (acquire) sees its id and filter, so no
	 * event records unfiltered. */
	__atomic_store_n(&s->slot[free_slot].id, id, __ATOMIC_RELAXED);
	__atomic_store_n(&s->slot[free_slot].filter, filter, __ATOMIC_RELEASE);
	__atomic_store_n(&s->slot[free_slot].chan, chan, __ATOMIC_RELEASE);
	if (s->nr < free_slot + 1)
		__atomic_store_n(&s->nr, free_slot + 1, __ATOMIC_RELEASE);
	return 0;
}

/* ---- tally ---- */

struct shadow {
	struct trawl_ust_event_desc *ev;
	struct trawl_ust_slot slot;
};

/* Where a kind's events counted after its tally ended go: the lost-events
 * counters of the channels the setup made it record into (top comment, "A
 * probe late"). Kept for ever, as the counting channel that points at it. */
struct trawl_ust_tally_fwd {
	uint32_t nr;
	struct trawl_rb_ctrl *ctrl[];
};

/* A counted event: its counting channel and its count's index there; fwd
 * once its new array is published (trawl_ust_tally_finish()). */
struct tally_event {
	struct trawl_ust_event_desc *ev;
	struct trawl_ust_chan *chan;
	uint32_t id;
	struct trawl_ust_tally_fwd *fwd;
};

/* How long a tally's end waits for probes counting on its channels (top
 * comment): they take a few instructions, unless preempted. */
#define TALLY_QUIET_MS 1000

struct trawl_ust_tally {
	struct trawl_ust_conn *conn;          /* the late daemon's connection */
	struct tally_event *events;           /* owned */
	uint32_t nr_events, cap_events;
	struct trawl_ust_chan **chans;        /* owned array; the channels are kept for ever */
	uint32_t nr_chans;
	struct shadow *shadow;                /* owned: the daemon's setup meanwhile */
	uint32_t nr_shadow;
	size_t cap_shadow;
};

/* Every tally's counting channel, linked by ->next: a probe may still hold
 * one after its tally ends (ust.h's rule), so none is freed; the list keeps
 * them reachable. Written under trawl_ust_lock. */
static struct trawl_ust_chan *tally_chans;

static int tally_has(const struct trawl_ust_tally *t, const struct trawl_ust_event_desc *ev)
{
	uint32_t i;

	for (i = 0; i < t->nr_events; i++)
		if (t->events[i].ev == ev)
			return 1;
	return 0;
}

/* Whether @ev records, now, into a channel @conn's daemon gave (its setup
 * of it is done: a started session). */
static int set_up_by(const struct trawl_ust_event_desc *ev, const struct trawl_ust_conn *conn)
{
	const struct trawl_ust_slots *s = ev->slots;
	unsigned int i;

	for (i = 0; s && i < s->nr; i++) {
		const struct trawl_ust_chan *c = s->slot[i].chan;

		if (c && c->nr_streams && c->conn == conn && __atomic_load_n(&c->active, __ATOMIC_RELAXED))
			return 1;
	}
	return 0;
}

/* @ev's slots in @conn's channels (none recording: set_up_by() said so),
 * a setup begun before the tally, go to its shadow: a START coming
 * meanwhile would otherwise make the event both recorded and counted. */
static void to_shadow(struct trawl_ust_tally *t, struct trawl_ust_event_desc *ev)
{
	struct trawl_ust_slots *s = ev->slots;
	unsigned int i;

	for (i = 0; s && i < s->nr; i++) {
		struct trawl_ust_slot sl = s->slot[i];
		struct trawl_ust_chan *c = sl.chan;

		if (!c || !c->nr_streams || c->conn != t->conn)
			continue;
		if (trawl_ust_tally_set(t, ev, c, sl.id, sl.filter, 1))
			continue; /* stays live: its events may be counted and recorded */
		__atomic_store_n(&s->slot[i].chan, NULL, __ATOMIC_RELEASE);
	}
}

int trawl_ust_tally_covers(const struct trawl_ust_tally *t, const struct trawl_ust_event_desc *ev)
{
	return tally_has(t, ev);
}

/*
 * @ev's array without @conn's channels and with the tally's slot (@chan,
 * @id), published at once (release): a probe loads either the old array
 * (records into @conn's channels, still mapped and read) or this one
 * (counts), never both, never neither. 0 or -ENOMEM (then @ev goes on
 * recording into @conn's channels until they are dropped).
 */
static int slots_swap_in(struct trawl_ust_event_desc *ev, const struct trawl_ust_conn *conn,
			 struct trawl_ust_chan *chan, uint32_t id)
{
	struct trawl_ust_slots *old = ev->slots, *s;
	uint32_t j;

	s = slots_new(NULL, (old ? old->nr : 0) + 1);
	if (!s)
		return -ENOMEM;
	for (j = 0; old && j < old->nr; j++) {
		const struct trawl_ust_chan *c = old->slot[j].chan;

		if (c && c->conn != conn)
			s->slot[s->nr++] = old->slot[j];
	}
	s->slot[s->nr++] = (struct trawl_ust_slot){chan, id, 0};
	__atomic_store_n(&ev->slots, s, __ATOMIC_RELEASE);
	return 0;
}

/* trawl_ust_tally_add(); @replace: trawl_ust_tally_start_replacing()'s. */
static int tally_add(struct trawl_ust_tally *t, int replace)
{
	struct trawl_ust_event_desc **all;
	struct trawl_ust_chan *chan, **chans;
	struct trawl_wire_tally_entry *shm;
	uint32_t nr_all = 0, i, k = 0;
	int ret = -ENOMEM;

	all = trawl_ust_registry_events(&nr_all);
	if (!all)
		return -ENOMEM;
	/* The new ones first, to the front of @all. One the daemon has set up
	 * already records (a provider of an earlier registration): counted, it
	 * would be both in the trace and in a TALLY. */
	for (i = 0; i < nr_all; i++)
		if (!tally_has(t, all[i]) && (replace || !set_up_by(all[i], t->conn)))
			all[k++] = all[i];
	if (!k) {
		free(all);
		return 0;
	}
	if (t->nr_events + k > t->cap_events) {
		uint32_t cap = t->nr_events + k;
		struct tally_event *n = realloc(t->events, cap * sizeof(*n));

		if (!n)
			goto out;
		t->events = n;
		t->cap_events = cap;
	}
	chans = realloc(t->chans, (t->nr_chans + 1) * sizeof(*chans));
	if (!chans)
		goto out;
	t->chans = chans;
	/* A counting channel of its own for these (a probe may be counting
	 * into the others' arrays: they never grow). Its counts in the memfd
	 * the daemon reads when the connection goes (wire.h TALLY_SHM: a
	 * program killed, or dropped, before its TALLY), else in memory. */
	chan = calloc(1, sizeof(*chan));
	if (!chan)
		goto out;
	chan->tally_fwd = calloc(k, sizeof(*chan->tally_fwd));
	if (!chan->tally_fwd) {
		free(chan);
		goto out;
	}
	shm = trawl_ust_agent_tally_room(t->conn, k);
	if (shm) {
		for (i = 0; i < k; i++) {
			snprintf(shm[i].name, sizeof(shm[i].name), "%s", all[i]->name);
			shm[i].loglevel = trawl_ust_registry_loglevel(all[i]);
		}
		chan->tally = &shm[0].count;
		chan->tally_stride = sizeof(*shm) / sizeof(uint64_t);
		trawl_ust_agent_tally_publish(t->conn, k);
	} else {
		/* Past the table (or no memfd): in memory, and their sum in
		 * the memfd's overflow bucket, for a SIGKILL or a drop. */
		chan->tally = calloc(k, sizeof(uint64_t));
		chan->tally_stride = 1;
		chan->tally_overflow = trawl_ust_agent_tally_overflow(t->conn);
	}
	if (!chan->tally) {
		free(chan->tally_fwd);
		free(chan);
		goto out;
	}
	/* Active, and no buffer: trawl_ust_reserve_ip() counts into tally[id]. */
	chan->active = 1;
	chan->nr_tally = k;
	chan->next = tally_chans;
	tally_chans = chan;
	t->chans[t->nr_chans++] = chan;
	ret = 0;
	for (i = 0; i < k; i++) {
		t->events[t->nr_events++] = (struct tally_event){all[i], chan, i, NULL};
		if (replace) {
			if (slots_swap_in(all[i], t->conn, chan, i))
				ret = -ENOMEM; /* that one goes uncounted */
			continue;
		}
		to_shadow(t, all[i]);
		if (trawl_ust_slots_set(all[i], chan, i, 0, 1))
			ret = -ENOMEM; /* that one goes uncounted */
	}
	trawl_ust_registry_update_states();
out:
	free(all);
	return ret;
}

int trawl_ust_tally_add(struct trawl_ust_tally *t)
{
	return tally_add(t, 0);
}

static struct trawl_ust_tally *tally_start(struct trawl_ust_conn *conn, int replace)
{
	struct trawl_ust_tally *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->conn = conn;
	if (tally_add(t, replace) && !t->nr_chans) {
		free(t->events);
		free(t->chans);
		free(t);
		return NULL;
	}
	return t;
}

struct trawl_ust_tally *trawl_ust_tally_start(struct trawl_ust_conn *conn)
{
	return tally_start(conn, 0);
}

struct trawl_ust_tally *trawl_ust_tally_start_replacing(struct trawl_ust_conn *conn)
{
	return tally_start(conn, 1);
}

int trawl_ust_tally_set(struct trawl_ust_tally *t, struct trawl_ust_event_desc *ev,
			struct trawl_ust_chan *chan, uint32_t id, uint32_t filter, int enable)
{
	uint32_t i;

	for (i = 0; i < t->nr_shadow; i++) {
		struct shadow *sh = &t->shadow[i];

		if (sh->ev != ev || sh->slot.chan != chan)
			continue;
		if (enable) {
			sh->slot.id = id;
			sh->slot.filter = filter;
		} else {
			*sh = t->shadow[--t->nr_shadow];
		}
		return 0;
	}
	if (!enable)
		return 0;
	if (trawl_array_grow((void **)&t->shadow, &t->cap_shadow, (size_t)t->nr_shadow + 1,
			     sizeof(*t->shadow), 16))
		return -ENOMEM;
	t->shadow[t->nr_shadow++] = (struct shadow){ev, {chan, id, filter}};
	return 0;
}

void trawl_ust_tally_drop_chan(struct trawl_ust_tally *t, const struct trawl_ust_chan *chan)
{
	uint32_t i = 0;

	while (i < t->nr_shadow) {
		if (t->shadow[i].slot.chan == chan)
			t->shadow[i] = t->shadow[--t->nr_shadow];
		else
			i++;
	}
}

/* @n counts taken out of a kind of @chan (exchanged with 0 first): out of
 * the overflow bucket too, if the kind is past the memfd's table (ust.h). */
static void overflow_sub(const struct trawl_ust_chan *chan, uint64_t n)
{
	if (n && chan->tally_overflow)
		__atomic_fetch_sub(chan->tally_overflow, n, __ATOMIC_RELAXED);
}

void trawl_ust_tally_count_event(struct trawl_ust_chan *chan, uint32_t id)
{
	struct trawl_ust_tally_fwd *fwd;
	uint32_t i;

	if (id >= chan->nr_tally)
		return;
	/* Sequentially consistent, both: against the end's store of fwd and
	 * load of busy (top comment, "A probe late"). */
	__atomic_fetch_add(&chan->tally_busy, 1, __ATOMIC_SEQ_CST);
	fwd = __atomic_load_n(&chan->tally_fwd[id], __ATOMIC_SEQ_CST);
	if (fwd) {
		/* lost_tally first, as tally_collect() */
		for (i = 0; i < fwd->nr; i++) {
			__atomic_fetch_add(&fwd->ctrl[i]->lost_tally, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&fwd->ctrl[i]->lost_full, 1, __ATOMIC_RELAXED);
		}
	} else {
		/* The overflow bucket first (ust.h: never below the kinds'
		 * counts; a SIGKILL between the two over-counts, never under).
		 * Relaxed: counters, taken once the end saw no probe busy. */
		if (chan->tally_overflow)
			__atomic_fetch_add(chan->tally_overflow, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(trawl_ust_tally_count(chan, id), 1, __ATOMIC_RELAXED);
	}
	/* Release: the end that sees busy drop (acquire) sees the count. */
	__atomic_fetch_sub(&chan->tally_busy, 1, __ATOMIC_RELEASE);
}

/*
 * Each of event @k's slots but the tally's, and those the shadow gives it,
 * in a new array published at once (release); then where its late events
 * go (sequentially consistent: top comment, "A probe late"). 0 or -ENOMEM
 * (then the tally slot stays: the event goes on being counted, and lost).
 */
static int tally_publish(struct trawl_ust_tally *t, uint32_t k)
{
	struct trawl_ust_event_desc *ev = t->events[k].ev;
	struct trawl_ust_chan *mine = t->events[k].chan;
	struct trawl_ust_slots *old = ev->slots, *s;
	struct trawl_ust_tally_fwd *fwd;
	uint32_t i, j, want = 0;

	for (i = 0; i < t->nr_shadow; i++)
		want += t->shadow[i].ev == ev;
	fwd = malloc(sizeof(*fwd) + want * sizeof(fwd->ctrl[0]));
	if (!fwd)
		return -ENOMEM;
	s = slots_new(NULL, (old ? old->nr : 0) + want + 1);
	if (!s) {
		free(fwd);
		return -ENOMEM;
	}
	fwd->nr = 0;
	for (j = 0; old && j < old->nr; j++)
		if (old->slot[j].chan && old->slot[j].chan != mine)
			s->slot[s->nr++] = old->slot[j];
	for (i = 0; i < t->nr_shadow; i++) {
		struct trawl_ust_chan *c = t->shadow[i].slot.chan;

		if (t->shadow[i].ev != ev)
			continue;
		s->slot[s->nr++] = t->shadow[i].slot;
		if (c->nr_streams)
			fwd->ctrl[fwd->nr++] = c->rbs[0].ctrl;
	}
	__atomic_store_n(&ev->slots, s, __ATOMIC_RELEASE);
	t->events[k].fwd = fwd;
	__atomic_store_n(&mine->tally_fwd[t->events[k].id], fwd, __ATOMIC_SEQ_CST);
	return 0;
}

/* Until no probe counts on @t's channels, TALLY_QUIET_MS at most (top
 * comment, "A probe late"). */
static void tally_quiet(const struct trawl_ust_tally *t)
{
	uint64_t deadline = trawl_rb_clock_monotonic() + (uint64_t)TALLY_QUIET_MS * 1000000u;
	unsigned int spins = 0;
	uint32_t k;

	for (k = 0; k < t->nr_chans; k++) {
		while (__atomic_load_n(&t->chans[k]->tally_busy, __ATOMIC_SEQ_CST)) {
			struct timespec nap = {0, 50000};

			if (trawl_rb_clock_monotonic() >= deadline)
				return;
			if (spins++ < 64)
				sched_yield();
			else
				nanosleep(&nap, NULL);
		}
	}
}

/* Event @k's count (published: tally_publish()), into the lost events of
 * the channels its late ones go to. Returns it. */
static uint64_t tally_collect(struct trawl_ust_tally *t, uint32_t k)
{
	struct trawl_ust_tally_fwd *fwd = t->events[k].fwd;
	struct trawl_ust_chan *mine = t->events[k].chan;
	uint64_t n;
	uint32_t i;

	/* Exchanged: what a TALLY took already is not counted twice. Relaxed:
	 * a counter; the probes that counted are done (tally_quiet()). */
	n = __atomic_exchange_n(trawl_ust_tally_count(mine, t->events[k].id), 0, __ATOMIC_RELAXED);
	overflow_sub(mine, n);
	for (i = 0; n && i < fwd->nr; i++) {
		/* lost_tally first: a reader that sees the lost_full add sees
		 * no more tallied than lost (relaxed: both are counters, read
		 * again at the stop once every producer is quiet) */
		__atomic_fetch_add(&fwd->ctrl[i]->lost_tally, n, __ATOMIC_RELAXED);
		__atomic_fetch_add(&fwd->ctrl[i]->lost_full, n, __ATOMIC_RELAXED);
	}
	return n;
}

uint32_t trawl_ust_tally_take(struct trawl_ust_tally *t, struct trawl_ust_event_desc *const *evs,
			      struct trawl_wire_tally_entry *out)
{
	uint32_t k, n = 0;

	for (k = 0; k < t->nr_events; k++) {
		struct trawl_ust_event_desc *ev = t->events[k].ev;
		struct trawl_wire_tally_entry *e = &out[n];
		uint64_t c;
		int mine = !evs;

		for (uint32_t j = 0; evs && evs[j] && !mine; j++)
			mine = evs[j] == ev;
		/* An unregistered one's name may be unmapped (dlclose): its
		 * provider's own call took its count. */
		if (!mine || !trawl_ust_registry_has_event(ev))
			continue;
		c = __atomic_exchange_n(trawl_ust_tally_count(t->events[k].chan, t->events[k].id), 0,
					__ATOMIC_RELAXED);
		overflow_sub(t->events[k].chan, c);
		if (!c)
			continue;
		memset(e, 0, sizeof(*e));
		snprintf(e->name, sizeof(e->name), "%s", ev->name);
		e->loglevel = trawl_ust_registry_loglevel(ev);
		e->count = c > TRAWL_WIRE_MAX_TALLY_COUNT ? TRAWL_WIRE_MAX_TALLY_COUNT : c;
		n++;
	}
	return n;
}

uint32_t trawl_ust_tally_size(const struct trawl_ust_tally *t)
{
	return t->nr_events;
}

uint64_t trawl_ust_tally_finish(struct trawl_ust_tally *t, int apply)
{
	uint64_t counted = 0;
	uint32_t k;

	if (apply) {
		for (k = 0; k < t->nr_events; k++)
			if (trawl_ust_registry_has_event(t->events[k].ev))
				(void)tally_publish(t, k); /* -ENOMEM: that one stays counted, and lost */
		tally_quiet(t);
		for (k = 0; k < t->nr_events; k++)
			if (t->events[k].fwd)
				counted += tally_collect(t, k);
	}
	/* Whatever did not switch stops counting; the channels and their
	 * counts stay allocated: a probe may still hold one (ust.h's rule). */
	for (k = 0; k < t->nr_chans; k++) {
		__atomic_store_n(&t->chans[k]->active, 0, __ATOMIC_RELAXED);
		trawl_ust_registry_clear_slots(t->chans[k]);
	}
	trawl_ust_registry_update_states();
	free(t->events);
	free(t->chans);
	free(t->shadow);
	free(t);
	return counted;
}
