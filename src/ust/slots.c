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
 * counted (old array) or recorded (new one), never both, never neither; the
 * one left out is a thread preempted between loading the old array and
 * counting, for as long as the switch takes (its count comes too late).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A counted event: its counting channel and its count's index there. */
struct tally_event {
	struct trawl_ust_event_desc *ev;
	struct trawl_ust_chan *chan;
	uint32_t id;
};

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
		t->events[t->nr_events++] = (struct tally_event){all[i], chan, i};
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

/*
 * Each of @ev's slots but the tally's, and those the shadow gives it, in a
 * new array published at once (release). Then the count: into each shadow
 * channel's lost events. 0 or -ENOMEM (then the tally slot stays: the
 * event goes on being counted, and lost).
 */
static int tally_switch(struct trawl_ust_tally *t, uint32_t k, uint64_t *counted)
{
	struct trawl_ust_event_desc *ev = t->events[k].ev;
	struct trawl_ust_chan *mine = t->events[k].chan;
	struct trawl_ust_slots *old = ev->slots, *s;
	uint64_t n;
	uint32_t i, j, want = 0;

	for (i = 0; i < t->nr_shadow; i++)
		want += t->shadow[i].ev == ev;
	s = slots_new(NULL, (old ? old->nr : 0) + want + 1);
	if (!s)
		return -ENOMEM;
	for (j = 0; old && j < old->nr; j++)
		if (old->slot[j].chan && old->slot[j].chan != mine)
			s->slot[s->nr++] = old->slot[j];
	for (i = 0; i < t->nr_shadow; i++)
		if (t->shadow[i].ev == ev)
			s->slot[s->nr++] = t->shadow[i].slot;
	__atomic_store_n(&ev->slots, s, __ATOMIC_RELEASE);
	/* Exchanged: what a TALLY took already is not counted twice. Relaxed:
	 * a counter; the probes that counted loaded the old array. */
	n = __atomic_exchange_n(trawl_ust_tally_count(mine, t->events[k].id), 0, __ATOMIC_RELAXED);
	overflow_sub(mine, n);
	*counted = n;
	for (i = 0; n && i < t->nr_shadow; i++) {
		struct trawl_ust_chan *c = t->shadow[i].slot.chan;

		/* lost_tally first: a reader that sees the lost_full add sees
		 * no more tallied than lost (relaxed: both are counters, read
		 * again at the stop once every producer is quiet) */
		if (t->shadow[i].ev == ev && c->nr_streams) {
			__atomic_fetch_add(&c->rbs[0].ctrl->lost_tally, n, __ATOMIC_RELAXED);
			__atomic_fetch_add(&c->rbs[0].ctrl->lost_full, n, __ATOMIC_RELAXED);
		}
	}
	return 0;
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

	for (k = 0; k < t->nr_events; k++) {
		uint64_t n;

		if (apply && trawl_ust_registry_has_event(t->events[k].ev) && !tally_switch(t, k, &n))
			counted += n;
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
