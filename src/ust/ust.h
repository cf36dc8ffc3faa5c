/* SPDX-License-Identifier: MIT */
/*
 * ust.h - libtrawl-ust's internals: channels as the app sees them, the
 * registry of providers and tracepoints, and the agent (registration thread).
 *
 * Locking: trawl_ust_lock guards the registry, the connections and the
 * channel lists. It is taken by the agent thread while it applies a command
 * (never across blocking I/O) and by provider/tracepoint registration (from
 * constructors). The fast path takes no lock: it reads the per-event slots
 * and the channel's active flag with atomics.
 *
 * Lifetime: a channel's mappings are never unmapped while the process runs
 * (a thread may still be writing into one it loaded from a slot); a released
 * channel only becomes inactive and unreachable.
 */
#ifndef TRAWL_UST_UST_H
#define TRAWL_UST_UST_H

#include <pthread.h>
#include <stdint.h>

#include <trawl/tracepoint.h>

#include "ringbuffer/ringbuffer.h"
#include "ustabi/wire.h"

struct trawl_ust_conn;

struct trawl_ust_chan {
	uint32_t handle;
	uint32_t session_handle;
	int active; /* read relaxed by the fast path; written under the lock */
	uint32_t contexts;     /* enum trawl_ustctl_context bits, fixed at creation */
	uint32_t context_size; /* bytes they and the counters take before each payload */
	uint32_t nr_counters;  /* perf counters, written after the bits' fields */
	uint8_t counter_slot[16]; /* TRAWL_USTCTL_MAX_COUNTERS: trawl_ust_perf_slot()s */
	uint32_t nr_streams;
	int wake_fd; /* the consumer's wake-up eventfd its streams write (wire.h
			TRAWL_WIRE_CHAN_WAKE), or -1; never closed once mapped */
	struct trawl_rb *rbs; /* nr_streams, one per CPU; 0 streams: a tally (slots.c) */
	/* Its application contexts (app-context.c), written after the other
	 * contexts; NULL without: the fast path's one test of them, in the
	 * first cache line with the fields every event reads (offset 56).
	 * Fixed at creation, freed never (as the channel). */
	struct trawl_ust_app_ctx *app_ctx;
	uint64_t *tally;      /* a tally's counts, by event (the slot's id); else NULL */
	uint32_t nr_tally;
	/* Most a writer waits for room when the buffer is full, ms: 0 never
	 * (drop and count), UINT32_MAX without end (fastpath.c). Fixed at
	 * creation: the channel's timeout if the app allows blocking. */
	uint32_t blocking_ms;
	uint32_t tally_stride; /* uint64_t from one count to the next (trawl_ust_tally_count()) */
	/* A tally's kinds past its memfd's table (counted in memory): their
	 * sum, also, in the memfd's overflow bucket (wire.h), which the daemon
	 * reads if the program is killed or dropped; else NULL. A probe adds
	 * to it before the kind's count, a take subtracts after exchanging the
	 * kind's count: the bucket is never below what the kinds hold. */
	uint64_t *tally_overflow;
	/* A tally's probes counting now (trawl_ust_tally_count_event()), and
	 * where each kind's late events go once the tally's end moved it to
	 * its channels (NULL until then): slots.c, "A probe late". */
	uint32_t tally_busy;
	struct trawl_ust_tally_fwd **tally_fwd; /* nr_tally of them */
	/* An event notifier (wire.h NOTIFIER, ustabi/notify.h): 0 streams,
	 * each event goes to this ring instead; else NULL. */
	struct trawl_ust_notify *notify;
	/* The notifier's drop counter in its ring's head (NOTIFIER's
	 * event_id, wire.h), or NULL: fastpath.c adds each dropped record. */
	uint64_t *notify_dropped;
	struct trawl_ust_conn *conn;
	struct trawl_ust_chan *next;
};

/* A channel's application contexts: their names ("$app.P:N"), in order. */
struct trawl_ust_app_ctx {
	uint32_t nr; /* 1 .. TRAWL_USTCTL_MAX_APP_CTX */
	char *names[TRAWL_USTCTL_MAX_APP_CTX];
};
struct trawl_ust_app_value;
/* app-context.c: the @nr names at @names, one after the other, each
 * NUL-terminated (as CHANNEL carries them, checked): NULL on ENOMEM. */
struct trawl_ust_app_ctx *trawl_ust_app_ctx_create(const char *names, uint32_t nr);
/* Frees @a (NULL: nothing), which no channel holds. */
void trawl_ust_app_ctx_destroy(struct trawl_ust_app_ctx *a);
/* The values of @a for the calling thread's event, asked of the providers
 * into @v (room for @a->nr): the bytes they take. */
size_t trawl_ust_app_ctx_get(const struct trawl_ust_app_ctx *a, struct trawl_ust_app_value *v);
/* Writes @v (from trawl_ust_app_ctx_get(): exactly the bytes it said) at
 * @p: the end. */
char *trawl_ust_app_ctx_write(char *p, const struct trawl_ust_app_ctx *a,
			      const struct trawl_ust_app_value *v);

/* A connection's notification ring (ustabi/notify.h), mapped for the
 * process's lifetime (a probe may still hold a channel pointing at it). */
struct trawl_ust_notify {
	char *map;
	uint32_t nr_slots, slot_size;
	int efd; /* the daemon's eventfd */
};
/* Each connection's ring, or NULL (agent.c; one per daemon connection):
 * the commit finds the eventfd of a record's ring here. */
#define TRAWL_UST_MAX_NOTIFY 2
extern struct trawl_ust_notify *trawl_ust_notifies[TRAWL_UST_MAX_NOTIFY];

extern pthread_mutex_t trawl_ust_lock;

/* fastpath.c: the calling thread never waits for room in a full buffer
 * (the agent's thread: it is the one that would stop the wait). */
void trawl_ust_never_wait(void);
/* Whether this process lets its writers wait (LTTNG_UST_ALLOW_BLOCKING or
 * TRAWL_UST_ALLOW_BLOCKING in its environment, read once). */
int trawl_ust_allow_blocking(void);
/* A tally channel's count of the event of slot id @id: in the memfd the
 * daemon reads (each a wire entry's count, wire.h TALLY_SHM), or in the
 * process's memory (stride 1). */
static inline uint64_t *trawl_ust_tally_count(const struct trawl_ust_chan *c, uint32_t id)
{
	return c->tally + (size_t)id * c->tally_stride;
}

/* A tally channel's event of slot id @id (fastpath.c: its probe found no
 * buffer, or found the channel inactive): counted, or, if the tally's end
 * moved that kind to its channels already, added to their lost events
 * (slots.c). Takes no lock. */
void trawl_ust_tally_count_event(struct trawl_ust_chan *chan, uint32_t id);

/* Registry (registry.c), called with the lock held. */
/* Every event of every registered provider, in a new malloc'd array the
 * caller frees; *nr receives the count. */
struct trawl_ust_event_desc **trawl_ust_registry_events(uint32_t *nr);
int trawl_ust_registry_loglevel(const struct trawl_ust_event_desc *ev);
/* Whether @ev belongs to a registered provider (1) or not (0: never was,
 * or unloaded; do not dereference it). */
int trawl_ust_registry_has_event(const struct trawl_ust_event_desc *ev);
/* Sets each tracepoint's state from its event's slots and channels. */
void trawl_ust_registry_update_states(void);
/* Removes every slot pointing at @chan (NULL: every slot). */
void trawl_ust_registry_clear_slots(struct trawl_ust_chan *chan);
/* Bumped whenever a provider comes or goes. */
extern uint64_t trawl_ust_registry_generation;

/* This process's pid and parent's, refreshed in a fork()ed child. */
extern int32_t trawl_ust_pid, trawl_ust_ppid;

/* getcpu.c: the getcpu plugin's function (NULL: the kernel's number), set
 * by trawl_ust_getcpu_init() from the library's constructor. */
extern int (*trawl_ust_getcpu_fn)(void);
void trawl_ust_getcpu_init(void);

/* clock.c: the clock plugin's read64() (NULL: CLOCK_MONOTONIC), set by
 * trawl_ust_clock_init() from the library's constructor, before any
 * channel; each channel's streams read it (trawl_rb.read_clock). */
extern uint64_t (*trawl_ust_clock_read)(void);
void trawl_ust_clock_init(void);
/* Fills @w with the plugin's clock for REGISTER: 1, or 0 (no plugin, @w
 * zeroed). Measures the clock's offset now. */
int trawl_ust_clock_wire(struct trawl_wire_clock *w);

/* Context fields (context.c). Writes @chan's context fields at @p (room
 * for chan->context_size bytes); returns the end. */
char *trawl_ust_write_contexts(char *p, const struct trawl_ust_chan *chan, void *ip);
/* The process's slot for perf counter (@type, @config), for
 * chan->counter_slot: >= 0, or -ENOSPC. Call with trawl_ust_lock held. */
int trawl_ust_perf_slot(uint32_t type, uint64_t config);
/* fork(): perf_lock held across it; the child forgets the parent's
 * per-thread cache and closes every parent thread's counters. */
void trawl_ust_context_before_fork(void);
void trawl_ust_context_after_fork_parent(void);
void trawl_ust_context_after_fork_child(void);

/* For filters (context.c): the calling thread's cached context values,
 * and its prio and nice read now (INT32_MIN when the read failed). */
void trawl_ust_context_thread(int32_t *tid, const char **procname, uint64_t *pthread_id);
void trawl_ust_context_sched(int32_t *prio, int32_t *nice);

/* Filters (filter.c), called with the lock held: the filter word for a
 * slot of @ev recording the events that pass one of @texts (@len bytes of
 * NUL-terminated expressions; 0 bytes: *id = 0, no filter). 0, -EINVAL
 * (a bad expression), -ENOMEM, -ENOSPC (too many distinct filters). */
int trawl_ust_filter_get(const struct trawl_ust_event_desc *ev, const char *texts, size_t len, uint32_t *id);

/* Slots (slots.c), called with the lock held. Makes @ev record into @chan
 * with @id and @filter (@enable), or no longer. 0 or -ENOMEM. */
int trawl_ust_slots_set(struct trawl_ust_event_desc *ev, struct trawl_ust_chan *chan, uint32_t id,
			uint32_t filter, int enable);

/* The tally of events that fire while a daemon is late (slots.c: why and
 * how), called with the lock held. start: every registered event that
 * @conn's daemon has not set up is counted from now (NULL when out of
 * memory). set/drop_chan: the daemon's
 * setup meanwhile, in place of trawl_ust_slots_set() and of clearing a
 * channel's slots. finish: @apply, the setup takes effect at once and the
 * counts go to its channels' lost events (returns their sum); else the
 * counting just stops. Frees @t. */
struct trawl_ust_tally;
struct trawl_ust_tally *trawl_ust_tally_start(struct trawl_ust_conn *conn);
/* As start, for a connection being dropped (agent.c conn_close()): every
 * registered event is counted from now, in place of @conn's channels (its
 * array swapped at once: slots.c). */
struct trawl_ust_tally *trawl_ust_tally_start_replacing(struct trawl_ust_conn *conn);
/* Whether @t counts @ev (an event @t's daemon set up already is not
 * counted: its setup goes to the slots, not to the shadow). */
int trawl_ust_tally_covers(const struct trawl_ust_tally *t, const struct trawl_ust_event_desc *ev);
/* Counts the events registered since @t started (or last grew) too. 0 or
 * -ENOMEM (those not added go uncounted). */
int trawl_ust_tally_add(struct trawl_ust_tally *t);
/* Takes the counts of @evs' events (NULL-terminated; NULL: every
 * registered one) out of @t into @out (room for trawl_ust_tally_size()
 * entries), those not 0: how many. The counts restart from 0. */
uint32_t trawl_ust_tally_take(struct trawl_ust_tally *t, struct trawl_ust_event_desc *const *evs,
			      struct trawl_wire_tally_entry *out);
uint32_t trawl_ust_tally_size(const struct trawl_ust_tally *t);
int trawl_ust_tally_set(struct trawl_ust_tally *t, struct trawl_ust_event_desc *ev,
			struct trawl_ust_chan *chan, uint32_t id, uint32_t filter, int enable);
void trawl_ust_tally_drop_chan(struct trawl_ust_tally *t, const struct trawl_ust_chan *chan);
uint64_t trawl_ust_tally_finish(struct trawl_ust_tally *t, int apply);
/* Room for @k more entries in @conn's tally memfd (wire.h TALLY_SHM; made
 * at the first call), their names to be written by the caller before
 * trawl_ust_agent_tally_publish(@conn, @k) shows them to the daemon; NULL
 * when it has none (no memfd, or full: those are counted in memory, and go
 * by TALLY only). Lock held. */
struct trawl_wire_tally_entry *trawl_ust_agent_tally_room(struct trawl_ust_conn *conn, uint32_t k);
void trawl_ust_agent_tally_publish(struct trawl_ust_conn *conn, uint32_t k);
/* @conn's tally memfd's overflow bucket (wire.h), or NULL if it has no
 * memfd. Mapped for the process's lifetime. trawl_ust_lock held. */
uint64_t *trawl_ust_agent_tally_overflow(struct trawl_ust_conn *conn);

/* A session of one daemon connection, as a state dump names it
 * (trawl_ust_session_check()). */
struct trawl_ust_session_ref {
	struct trawl_ust_conn *conn;
	uint32_t handle;
};

/* State dump (statedump.c). init: the loaded objects at start-up (no file
 * read). statedump: records it into @s's channels (agent thread). */
void trawl_ust_statedump_init(void);
void trawl_ust_dl_module_registering(void *ip);
void trawl_ust_statedump(const struct trawl_ust_session_ref *s, const char *procname);

/* Agent (agent.c; the waits and tallies: agent-wait.c). */
void trawl_ust_agent_start(void);
void trawl_ust_agent_wake(void);
/* Waits (at most TRAWL_UST_REGISTER_TIMEOUT ms) until every daemon the
 * agent connected to has confirmed a registration including every provider
 * registered so far; returns at once with no daemon or no agent. A daemon
 * still setting the app up then gets a tally (slots.c). Call with no lock
 * held. */
void trawl_ust_agent_wait_registered(void);
/* A provider going away (exit, dlclose) while a late daemon is setting the
 * app up: waits for that (at most TRAWL_UST_REGISTER_TIMEOUT ms), so that
 * the events counted meanwhile reach the setup's channels, and the
 * provider's events are still there when its ENABLEs come. Call with no
 * lock held. */
void trawl_ust_agent_wait_tallies(void);
/* Then, if a daemon is still late: hands it the counts of @p's events
 * (TALLY, wire.h), once its registration went (at most 1 s). Call with no
 * lock held, before @p goes. */
void trawl_ust_agent_report_tally(const struct trawl_ust_provider *p);
/* A provider was registered (trawl_ust_lock held): a tally running adds
 * its events and lasts until the daemon has them set up. */
void trawl_ust_agent_provider_added(void);

#endif /* TRAWL_UST_UST_H */
