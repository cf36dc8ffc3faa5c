/* SPDX-License-Identifier: MIT */
/*
 * registry.c - providers (probes and event descriptions, registered by the
 * constructors that tracepoint-event.h generates) and tracepoints (call-site
 * state words, registered by TRACEPOINT_DEFINE's constructor), matched by
 * name and argument signature. A tracepoint's probe pointer is set as soon
 * as its provider is known; its state word only while its event records
 * into an active channel.
 *
 * The same event (name and signature) may come from several providers (two
 * dlopen()ed libraries built from one provider header): as with LTTng-UST,
 * a call records it once per provider. The call site calls the first
 * provider's probe, and each event's probe calls the next one's (its
 * "next", rebuilt here whenever a provider comes or goes); each of those
 * events is its own event for the daemon, enabled on its own.
 */
#define _GNU_SOURCE
#include "ust/ust.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

pthread_mutex_t trawl_ust_lock = PTHREAD_MUTEX_INITIALIZER;
uint64_t trawl_ust_registry_generation;

struct tp_array {
	struct trawl_tracepoint *const *start;
	size_t count;
};

static struct trawl_ust_provider **providers;
static size_t nr_providers;
static struct tp_array *tp_arrays;
static size_t nr_tp_arrays;

/* Whether a call with arguments @sig can call @ev's probe (NULL: a call
 * site that does not say, built before signatures existed). */
static int same_signature(const struct trawl_ust_event_desc *ev, const char *sig)
{
	return !sig || !ev->signature || !strcmp(ev->signature, sig);
}

/* The first registered event named @name whose probe takes @sig. */
static struct trawl_ust_event_desc *find_event(const char *name, const char *sig)
{
	size_t i;

	for (i = 0; i < nr_providers; i++) {
		struct trawl_ust_event_desc *const *e;

		for (e = providers[i]->events; *e; e++)
			if (!strcmp((*e)->name, name) && same_signature(*e, sig))
				return *e;
	}
	return NULL;
}

static int event_recording(const struct trawl_ust_event_desc *ev)
{
	const struct trawl_ust_slots *s = ev->slots;
	unsigned int i;

	for (i = 0; s && i < s->nr; i++) {
		struct trawl_ust_chan *c = s->slot[i].chan;

		if (c && c->active)
			return 1;
	}
	return 0;
}

static void update_tracepoint(struct trawl_tracepoint *tp)
{
	const char *sig = tp->abi >= 1 ? tp->signature : NULL;
	struct trawl_ust_event_desc *ev = tp->name ? find_event(tp->name, sig) : NULL, *e;
	int on = 0;

	for (e = ev; e && !on; e = e->next)
		on = event_recording(e);
	/* Release: the probe is visible before the state that makes call
	 * sites load it (pairs with the call site's acquire load). */
	__atomic_store_n(&tp->probe, ev ? ev->probe : NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&tp->state, on, __ATOMIC_RELEASE);
}

/* The next registered event after provider @pi's @ev with its name and
 * signature, or NULL. */
static struct trawl_ust_event_desc *next_same(size_t pi, const struct trawl_ust_event_desc *ev)
{
	size_t i;

	for (i = pi + 1; i < nr_providers; i++) {
		struct trawl_ust_event_desc *const *e;

		for (e = providers[i]->events; *e; e++)
			if (!strcmp((*e)->name, ev->name) && (*e)->signature && ev->signature &&
			    !strcmp((*e)->signature, ev->signature))
				return *e;
	}
	return NULL;
}

/* Rebuilds every event's "next" (top comment). Quadratic in the events
 * sharing the lock's cost with registration only, never with the probes. */
static void link_same_events(void)
{
	size_t i;

	for (i = 0; i < nr_providers; i++) {
		struct trawl_ust_event_desc *const *e;

		/* Release: the next event's description is complete (it was
		 * registered) before a probe follows the pointer (acquire). */
		for (e = providers[i]->events; *e; e++)
			__atomic_store_n(&(*e)->next, next_same(i, *e), __ATOMIC_RELEASE);
	}
}

void trawl_ust_registry_update_states(void)
{
	size_t i, j;

	for (i = 0; i < nr_tp_arrays; i++)
		for (j = 0; j < tp_arrays[i].count; j++)
			if (tp_arrays[i].start[j])
				update_tracepoint(tp_arrays[i].start[j]);
}

void trawl_ust_registry_clear_slots(struct trawl_ust_chan *chan)
{
	size_t i;

	for (i = 0; i < nr_providers; i++) {
		struct trawl_ust_event_desc *const *e;

		for (e = providers[i]->events; *e; e++) {
			struct trawl_ust_slots *s = (*e)->slots;
			unsigned int k;

			for (k = 0; s && k < s->nr; k++)
				if (s->slot[k].chan && (!chan || s->slot[k].chan == chan))
					__atomic_store_n(&s->slot[k].chan, NULL, __ATOMIC_RELEASE);
		}
	}
}

struct trawl_ust_event_desc **trawl_ust_registry_events(uint32_t *nr)
{
	struct trawl_ust_event_desc **out;
	size_t i, n = 0;

	for (i = 0; i < nr_providers; i++) {
		struct trawl_ust_event_desc *const *e;

		for (e = providers[i]->events; *e; e++)
			n++;
	}
	out = calloc(n ? n : 1, sizeof(*out));
	if (!out)
		return NULL;
	n = 0;
	for (i = 0; i < nr_providers; i++) {
		struct trawl_ust_event_desc *const *e;

		for (e = providers[i]->events; *e; e++)
			out[n++] = *e;
	}
	*nr = (uint32_t)n;
	return out;
}

int trawl_ust_registry_has_event(const struct trawl_ust_event_desc *ev)
{
	size_t i;

	for (i = 0; i < nr_providers; i++) {
		struct trawl_ust_event_desc *const *e;

		for (e = providers[i]->events; *e; e++)
			if (*e == ev)
				return 1;
	}
	return 0;
}

int trawl_ust_registry_loglevel(const struct trawl_ust_event_desc *ev)
{
	size_t i;

	for (i = 0; i < nr_providers; i++) {
		const struct trawl_ust_loglevel_desc *l;
		struct trawl_ust_event_desc *const *e;
		int mine = 0;

		for (e = providers[i]->events; *e; e++)
			mine |= *e == ev;
		if (!mine)
			continue;
		for (l = providers[i]->loglevels; l && l->name; l++)
			if (!strcmp(l->name, ev->name))
				return l->loglevel;
	}
	return TRACE_DEBUG_LINE; /* LTTng's default */
}

/* Adds @p (top comment); waits for the daemons' setup if @wait. */
static int provider_register(struct trawl_ust_provider *p, int wait, void *ip)
{
	struct trawl_ust_provider **np;
	size_t i;

	if (!p)
		return -1;
	if (p->abi_major != TRAWL_UST_ABI_MAJOR) {
		/* Its descriptions are laid out otherwise: never read them. */
		fprintf(stderr, "trawl-ust: provider built for trawl's instrumentation ABI %u, this library has %u: "
				"not traced (rebuild it)\n",
			p->abi_major, (unsigned int)TRAWL_UST_ABI_MAJOR);
		return -1;
	}
	pthread_mutex_lock(&trawl_ust_lock);
	for (i = 0; i < nr_providers; i++)
		if (providers[i] == p)
			goto out;
	np = realloc(providers, (nr_providers + 1) * sizeof(*np));
	if (!np)
		goto out;
	providers = np;
	providers[nr_providers++] = p;
	__atomic_add_fetch(&trawl_ust_registry_generation, 1, __ATOMIC_RELAXED);
	link_same_events();
	trawl_ust_registry_update_states();
	/* A late daemon's tally counts these too (slots.c). */
	trawl_ust_agent_provider_added();
out:
	pthread_mutex_unlock(&trawl_ust_lock);
	trawl_ust_dl_module_registering(ip);
	trawl_ust_agent_start();
	trawl_ust_agent_wake();
	/* A provider's constructor returns once the daemons have set up the
	 * app with its events (agent-wait.c: early events). The library's own
	 * providers (tracef, tracelog, state dump) do not wait: they register
	 * before the program's, whose registration is the one worth waiting
	 * for. */
	if (wait)
		trawl_ust_agent_wait_registered();
	return 0;
}

TRAWL_EXPORT int trawl_ust_provider_register(struct trawl_ust_provider *p)
{
	return provider_register(p, 1, __builtin_return_address(0));
}

TRAWL_EXPORT int trawl_ust_provider_register_internal(struct trawl_ust_provider *p)
{
	return provider_register(p, 0, __builtin_return_address(0));
}

/* What <trawl/tracef.h> and <trawl/tracelog.h> make each file that
 * includes them call in its constructor: a program whose only events are
 * the library's own waits for its daemons as a provider's constructor does. */
TRAWL_EXPORT void trawl_ust_wait_registered(void)
{
	trawl_ust_agent_start();
	trawl_ust_agent_wait_registered();
}

TRAWL_EXPORT void trawl_ust_provider_unregister(struct trawl_ust_provider *p)
{
	size_t i;

	trawl_ust_agent_wait_tallies();
	/* Still late: the daemon gets the counts now, or never (TALLY). */
	trawl_ust_agent_report_tally(p);
	pthread_mutex_lock(&trawl_ust_lock);
	for (i = 0; i < nr_providers; i++) {
		if (providers[i] != p)
			continue;
		/* Moved down, not swapped: the registration order decides
		 * which provider's probe the call sites call first. */
		memmove(&providers[i], &providers[i + 1], (nr_providers - i - 1) * sizeof(*providers));
		nr_providers--;
		__atomic_add_fetch(&trawl_ust_registry_generation, 1, __ATOMIC_RELAXED);
		break;
	}
	link_same_events();
	trawl_ust_registry_update_states();
	pthread_mutex_unlock(&trawl_ust_lock);
	trawl_ust_agent_wake();
}

TRAWL_EXPORT void trawl_ust_tracepoints_register(struct trawl_tracepoint *const *start, size_t count)
{
	struct tp_array *na;
	size_t i, j;

	pthread_mutex_lock(&trawl_ust_lock);
	for (i = 0; i < nr_tp_arrays; i++)
		if (tp_arrays[i].start == start)
			goto out;
	na = realloc(tp_arrays, (nr_tp_arrays + 1) * sizeof(*na));
	if (!na)
		goto out;
	tp_arrays = na;
	tp_arrays[nr_tp_arrays].start = start;
	tp_arrays[nr_tp_arrays].count = count;
	nr_tp_arrays++;
	for (j = 0; j < count; j++)
		if (start[j])
			update_tracepoint(start[j]);
out:
	pthread_mutex_unlock(&trawl_ust_lock);
	trawl_ust_dl_module_registering(__builtin_return_address(0));
	trawl_ust_agent_start();
}

TRAWL_EXPORT void trawl_ust_tracepoints_unregister(struct trawl_tracepoint *const *start)
{
	size_t i, j;

	pthread_mutex_lock(&trawl_ust_lock);
	for (i = 0; i < nr_tp_arrays; i++) {
		if (tp_arrays[i].start != start)
			continue;
		for (j = 0; j < tp_arrays[i].count; j++) {
			if (!start[j])
				continue;
			__atomic_store_n(&start[j]->state, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&start[j]->probe, NULL, __ATOMIC_RELEASE);
		}
		tp_arrays[i] = tp_arrays[--nr_tp_arrays];
		break;
	}
	pthread_mutex_unlock(&trawl_ust_lock);
}
