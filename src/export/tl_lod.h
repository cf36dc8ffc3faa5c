/* SPDX-License-Identifier: MIT */
/*
 * tl_lod.h - the timeline's levels of detail, computed as the trace
 * streams by (timeline.c feeds them, tl_html.c writes them).
 *
 * A lane (a CPU, a thread's system calls, a thread's marks, a counter)
 * holds its items (slices, marks, counter samples) once per level. Level 0
 * cuts time into buckets of 1 ns (every event as it is), level L > 0 into
 * buckets of 2^(3L + 6) ns: 512 ns, 4 us, 33 us ... 9.8 hours at level 13
 * (buckets of 8 and 64 ns would merge next to nothing, at the cost of a
 * copy of every item);
 * an item that starts in the bucket where the lane's last item of that
 * level started is merged into it (its end, its count, its counter's
 * range), else it starts a new item. Two items in one bucket of level L
 * are in one bucket of every coarser level, so a level never holds more
 * items than a finer one, and an item that merges at level L merges at
 * every coarser level.
 *
 * A level holds at most `budget` items over all lanes: past that it is
 * dropped (and every finer one with it), so memory and the page's size are
 * bounded by the budget and grow with the trace's duration (coarse levels)
 * and the detail asked for, never with the count of events. Each item
 * keeps the fields of its first event (JSON text) in its level's arena.
 */
#ifndef TRAWL_EXPORT_TL_LOD_H
#define TRAWL_EXPORT_TL_LOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <trawl/reader.h>

#define TL_LEVELS 14
#define TL_LEVEL_SHIFT(l) ((l) ? 3 * (l) + 6 : 0)	/* bucket of level l: 2^shift ns */
#define TL_DETAIL_MAX 4096		/* bytes of an item's fields kept at most */

enum tl_lane_kind {
	TL_LANE_CPU,		/* runs of threads on a CPU: slices, v = tid */
	TL_LANE_CPU_EV,		/* events of a CPU with no thread: marks */
	TL_LANE_SYS,		/* a thread's system calls: slices */
	TL_LANE_EV,		/* a thread's other events: marks */
	TL_LANE_CTR,		/* a counter of a thread: samples, v = value */
};

struct tl_item {
	int64_t t0, t1;		/* ns from the trace's origin; marks: first, last */
	int64_t v, lo, hi;	/* CPU runs: v tid, lo the longest run merged;
				 * counters: last, lowest, highest value */
	uint32_t name;		/* string id (tl_strings) */
	uint32_t n : 31;	/* events (runs, calls, samples) merged into it, at most 2^31 - 1 */
	uint32_t mixed : 1;	/* merged items of different names */
	uint32_t doff, dlen;	/* first event's fields in the level's arena; dlen 0: none */
};

struct tl_vec {
	struct tl_item *v;	/* owned */
	size_t n, cap;
};

struct tl_lane {
	enum tl_lane_kind kind;
	int64_t id;		/* the CPU or the tid (-1: no thread, no CPU) */
	uint32_t sub;		/* counters: the counter's name id */
	struct tl_vec lv[TL_LEVELS];
	/* a system call's entry fields until its exit (TL_LANE_SYS) */
	struct trawl_reader_buf pend;	/* owned */
	bool pend_ok;
};

struct tl_lod {
	struct tl_lane **lanes;		/* owned, in order of creation */
	size_t nlanes, cap;
	size_t budget;			/* items a level may hold over all lanes */
	size_t count[TL_LEVELS];
	int finest;			/* the finest level not dropped */
	struct trawl_reader_buf det[TL_LEVELS];	/* owned: fields of items */
};

void tl_lod_init(struct tl_lod *d, size_t budget);
void tl_lod_fini(struct tl_lod *d);

/* tl_lod_lane - a new lane (owned by @d); NULL when out of memory. */
struct tl_lane *tl_lod_lane(struct tl_lod *d, enum tl_lane_kind kind, int64_t id, uint32_t sub);

/* Whether an item starting at @t0 would start a new item at some level
 * kept: then its fields are worth formatting. */
bool tl_lod_opens(const struct tl_lod *d, const struct tl_lane *l, int64_t t0);

/*
 * tl_lod_add - adds @it (n, mixed, doff and dlen ignored) to every level
 * kept, with @detail (@dlen bytes of JSON, may be NULL) as its fields where
 * it starts an item. Returns 0 or -ENOMEM.
 */
int tl_lod_add(struct tl_lod *d, struct tl_lane *l, const struct tl_item *it,
	       const char *detail, size_t dlen);

/* Levels to write: the finest kept, then each coarser one holding at most
 * half the items of the last one written. Fills @out (TL_LEVELS), returns
 * how many. */
int tl_lod_pick(const struct tl_lod *d, int *out);

#endif /* TRAWL_EXPORT_TL_LOD_H */
