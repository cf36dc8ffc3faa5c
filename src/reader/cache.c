/* SPDX-License-Identifier: MIT */
/*
 * The decoder's caches (struct rd_dec, stream.h): for each stream class and
 * event class of a trace class, the plans compiled from it (on first use)
 * and a table from event id to event class. The trace class is only read.
 */
#include <errno.h>
#include <stdlib.h>

#include "reader/decode_int.h"

/* Event ids up to this get a table entry; larger ones are searched. */
#define BY_ID_MAX (1u << 16)

static int dec_sc_init(struct rd_dec_sc *dsc, const struct stream_class *sc)
{
	uint64_t max_id = 0;
	uint32_t i;

	dsc->sc = sc;
	dsc->has_header = sc->event_header != NULL;
	dsc->clock = sc->clock;
	/* every event needs it: compiled now, not on first use */
	if (sc->event_header) {
		dsc->header_plan = rd_plan_scope(&dsc->header_plan, sc->event_header, 0);
		rd_plan_hdr_fast_init(dsc->header_plan, &dsc->hdr_fast);
	}
	dsc->events = calloc(sc->nevents ? sc->nevents : 1, sizeof(*dsc->events));
	if (!dsc->events)
		return -ENOMEM;
	for (i = 0; i < sc->nevents; i++) {
		dsc->events[i].ec = sc->events[i];
		if (sc->events[i]->id > max_id)
			max_id = sc->events[i]->id;
	}
	dsc->nby_id = sc->nevents ? TRAWL_MIN(max_id + 1, (uint64_t)BY_ID_MAX) : 0;
	dsc->by_id = calloc(dsc->nby_id ? dsc->nby_id : 1, sizeof(*dsc->by_id));
	if (!dsc->by_id)
		return -ENOMEM;
	for (i = 0; i < sc->nevents; i++)
		if (sc->events[i]->id < dsc->nby_id)
			dsc->by_id[sc->events[i]->id] = &dsc->events[i];
	return 0;
}

static void dec_sc_fini(struct rd_dec_sc *dsc)
{
	uint32_t i, k;

	for (k = 0; k < 3; k++)
		rd_plan_destroy(dsc->pc_plans[k]);
	rd_plan_destroy(dsc->header_plan);
	for (i = 0; dsc->events && i < dsc->sc->nevents; i++) {
		for (k = 0; k < RD_BODY_KEYS; k++)
			rd_plan_destroy(dsc->events[i].plans[k]);
		free(dsc->events[i].flat_layout);
	}
	free(dsc->events);
	free(dsc->by_id);
}

int rd_dec_create(const struct trace_class *tc, struct rd_dec **out)
{
	struct rd_dec *dec = calloc(1, sizeof(*dec));
	uint32_t i;

	*out = NULL;
	if (!dec)
		return -ENOMEM;
	dec->tc = tc;
	dec->scs = calloc(tc->nstreams ? tc->nstreams : 1, sizeof(*dec->scs));
	if (!dec->scs) {
		free(dec);
		return -ENOMEM;
	}
	for (i = 0; i < tc->nstreams; i++) {
		if (dec_sc_init(&dec->scs[i], tc->streams[i])) {
			dec->scs[i].sc = tc->streams[i];
			rd_dec_destroy(dec);
			return -ENOMEM;
		}
	}
	*out = dec;
	return 0;
}

void rd_dec_destroy(struct rd_dec *dec)
{
	uint32_t i, k;

	if (!dec)
		return;
	for (i = 0; i < dec->tc->nstreams; i++)
		if (dec->scs[i].sc)
			dec_sc_fini(&dec->scs[i]);
	for (k = 0; k < 3; k++)
		rd_plan_destroy(dec->ph_plans[k]);
	free(dec->scs);
	free(dec);
}

struct rd_dec_sc *rd_dec_sc_of(struct rd_dec *dec, const struct stream_class *sc)
{
	uint32_t i;

	for (i = 0; i < dec->tc->nstreams; i++)
		if (dec->tc->streams[i] == sc)
			return &dec->scs[i];
	return NULL;
}

struct rd_dec_event *rd_dec_event_search(const struct rd_dec_sc *dsc, uint64_t id)
{
	const struct event_class *ec;

	if (id < dsc->nby_id)
		return dsc->by_id[id];
	ec = stream_class_event(dsc->sc, id);
	return ec ? &dsc->events[ec->index] : NULL;
}
