/* SPDX-License-Identifier: MIT */
/*
 * notify.h - the notification ring of an app's event notifiers (triggers'
 * event-rule-matches conditions on user-space events): part of the app
 * ABI (minor 9, wire.h's NOTIFIER), shared by libtrawl-ust (writers) and
 * the session daemon (the one reader).
 *
 * One ring per app connection, in a sealed memfd the daemon made (its size
 * cannot change under the reader: no SIGBUS), with an eventfd the daemon
 * polls. Layout:
 *
 *   +------------------------------+  0
 *   | struct trawl_notify_head     |  the positions, the drop counters
 *   +------------------------------+  TRAWL_NOTIFY_HEAD_SIZE
 *   | slot 0 (slot_size bytes)     |  struct trawl_notify_rec, then the
 *   | ...                          |  event's payload as the probe
 *   | slot nr_slots - 1            |  serialized it (byte-aligned fields)
 *   +------------------------------+
 *
 * Fixed-size slots keep both sides simple: record k lives in slot
 * k % nr_slots. A writer (any thread of the app) claims the next record
 * with a CAS on head.write, only while write - read < nr_slots (else the
 * notification is dropped and counted in head.dropped_full: the app never
 * waits), fills the record and the payload, then stores rec.commit = len + 1
 * with release order (pairs with the reader's acquire load: the record's
 * bytes are visible once commit is), and writes 1 to the eventfd. A payload
 * larger than a slot is dropped and counted in head.dropped_big. Either
 * drop is also counted in the notifier's own counter, head.dropped_by[k - 1],
 * when its NOTIFIER gave it one (k, ABI minor >= 14: wire.h): what
 * list-triggers shows as the trigger's "discarded tracer messages".
 *
 * The reader keeps its own position (head.read is a copy for the writers,
 * never read back): it takes slot read % nr_slots while its commit is not 0,
 * copies it out, checks it (commit == len + 1, len within the slot), clears
 * commit, then publishes read + 1 (release: pairs with the writers' acquire
 * load before they claim the slot again; the cleared commit is seen first).
 * The app may scribble anywhere in the memfd: the reader trusts only its
 * own position and sizes, copies before it looks, and hands on a record
 * only for a notifier (chan_handle) and event (id) it gave this app. A
 * writer killed between its claim and its commit stops the ring for that
 * app: the app's own loss.
 */
#ifndef TRAWL_USTABI_NOTIFY_H
#define TRAWL_USTABI_NOTIFY_H

#include <stdint.h>

#define TRAWL_NOTIFY_MAGIC 0x46544f4eu /* "NOTF" */
#define TRAWL_NOTIFY_HEAD_SIZE 4096u
#define TRAWL_NOTIFY_MIN_SLOTS 4u
#define TRAWL_NOTIFY_MAX_SLOTS 4096u
#define TRAWL_NOTIFY_MIN_SLOT 64u     /* bytes */
#define TRAWL_NOTIFY_MAX_SLOT 65536u  /* bytes */
/* Per-notifier drop counters in the head (ABI minor >= 14). */
#define TRAWL_NOTIFY_COUNTERS 256u

struct trawl_notify_head {
	uint32_t magic;
	uint32_t nr_slots;  /* informational: each side uses its own */
	uint32_t slot_size;
	uint32_t pad0;
	uint64_t write __attribute__((aligned(64))); /* records claimed (writers' CAS) */
	uint64_t read __attribute__((aligned(64)));  /* records taken (the reader) */
	uint64_t dropped_full __attribute__((aligned(64))); /* writers, atomic add */
	uint64_t dropped_big;
	/* each notifier's drops (full or big), by its NOTIFIER's counter - 1:
	 * writers, atomic add; 0 in older apps' rings (never written) */
	uint64_t dropped_by[TRAWL_NOTIFY_COUNTERS] __attribute__((aligned(64)));
};

struct trawl_notify_rec {
	uint64_t commit;      /* 0: free or being written; len + 1: complete */
	uint32_t chan_handle; /* the notifier (NOTIFIER's chan_handle) */
	uint32_t id;          /* the ENABLE's event_id: the daemon's token */
	uint64_t ts;          /* CLOCK_MONOTONIC, ns, when the event fired */
	uint32_t len;         /* payload bytes after this struct */
	uint32_t pad;
};

_Static_assert(sizeof(struct trawl_notify_head) <= TRAWL_NOTIFY_HEAD_SIZE, "notify head");
_Static_assert(sizeof(struct trawl_notify_rec) == 32, "notify record");

static inline uint64_t trawl_notify_size(uint32_t nr_slots, uint32_t slot_size)
{
	return TRAWL_NOTIFY_HEAD_SIZE + (uint64_t)nr_slots * slot_size;
}

#endif /* TRAWL_USTABI_NOTIFY_H */
