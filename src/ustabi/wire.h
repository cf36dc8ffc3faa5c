/* SPDX-License-Identifier: MIT */
/*
 * wire.h - the app protocol between libtrawl-ust (the app) and a session
 * daemon (through ustctl), over a Unix stream socket: part of the app ABI
 * (src/ustabi, with ustabi.h), linked by both sides.
 *
 * Every message starts with struct trawl_wire_hdr (magic, version, type,
 * size of the whole message in bytes). Structs are fixed-width with natural
 * alignment, the same on 32- and 64-bit hosts, in the host's byte order (both
 * ends are on one machine).
 *
 *   app                                   daemon
 *   REGISTER (nr_events = N)        ──▶   (+ the app's clock: REG_CLOCK)
 *   EVENT × N                       ──▶   (then the app only answers)
 *                                   ◀──   CMD (CHANNEL carries fds: SCM_RIGHTS)
 *   REPLY (ret: 0 or -errno)        ──▶   (CHANNEL is followed by nr_counters
 *                                          struct trawl_wire_counter, in its size)
 *   ...                                   (the initial setup: channels,
 *                                          enables and starts of the
 *                                          active sessions, then)
 *                                   ◀──   CMD REGISTRATION_DONE
 *   REPLY                           ──▶
 *   ...
 *
 * Providers that appear later (a dlopen()ed one, or the next constructor of
 * a program with several) are added on the same connection, if the daemon's
 * REGISTRATION_DONE carried TRAWL_WIRE_DONE_TAKES_ADDED:
 *
 *   EVENTS_ADDED (first, nr = M)    ──▶   (unasked: the daemon may be
 *   EVENT × M                       ──▶    waiting for a REPLY; it reads
 *                                          this first, then the REPLY)
 *                                   ◀──   CMD ... (their enables)
 *                                   ◀──   CMD REGISTRATION_DONE (event_index
 *   REPLY                           ──▶    = first + M: every event it has)
 *
 * A program whose daemon had not set it up when its events fired (a late
 * daemon: the app counts them, src/ust/slots.c) and that exits before the
 * setup is complete says what it counted (ABI minor 3), unasked, between
 * whole messages of its own, once its registration was sent:
 *
 *   TALLY (nr = K)                  ──▶   (the daemon adds each count to the
 *                                          discarded events of the channels
 *                                          of the sessions that would have
 *                                          recorded the event; no answer)
 *
 * A TALLY goes at exit: a program killed then (SIGKILL), or dropped by the
 * daemon first (a deadline), could not send it. So the counts also live in
 * a memfd the daemon reads when the connection goes (ABI minor 7): the
 * first time the app counts for a daemon, it sends, unasked, as a TALLY,
 *
 *   TALLY_SHM (nr_max)              ──▶   (+ the memfd: SCM_RIGHTS; at most
 *                                          one per connection; no answer)
 *
 * The memfd holds struct trawl_wire_tally_head, then nr_max entries (struct
 * trawl_wire_tally_entry; head.nr of them in use, each written before nr
 * grows past it): the app counts into their count fields, and takes a count
 * out (exchanged with 0) when it hands it to a setup or a TALLY, so the
 * daemon charges, when the connection closes, what is left in it: what the
 * program counted and handed to nobody; a dropped app counts on until it
 * notices, so the daemon keeps its memfd and reads it again at the next
 * stop (what grew since). A daemon older than minor 7 takes
 * TALLY_SHM for a protocol error (the app is dropped).
 *
 * Each entry names the event (and its loglevel, what rules match) rather
 * than its index: its provider may have registered after the registration
 * went, and its addition could not go before the daemon's answer.
 *
 * At most one EVENTS_ADDED is unanswered at a time. A daemon that did not
 * say it takes them gets the older behaviour: the app drops the connection
 * and registers again. Events of a provider that goes away (dlclose) stay
 * with the daemon (they cannot fire); the app answers an ENABLE naming one
 * -ENOENT.
 *
 * Each side decodes what the other sends as hostile: the app its commands
 * (trawl_wire_cmd_decode(), here), the daemon the app's messages
 * (src/ustctl/wire-decode.c); fuzz/ustctl/ feeds both arbitrary bytes.
 */
#ifndef TRAWL_USTABI_WIRE_H
#define TRAWL_USTABI_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "ustabi/ustabi.h"

#define TRAWL_WIRE_MAGIC 0x54525755u /* "UWRT" */
#define TRAWL_WIRE_VERSION 1u
#define TRAWL_WIRE_MAX_MSG (1u << 20) /* bytes */
#define TRAWL_WIRE_MAX_FIELDS 1024u
#define TRAWL_WIRE_MAX_ENUM 4096u
#define TRAWL_WIRE_MAX_EVENTS 65536u
#define TRAWL_WIRE_MAX_FILTERS 65536u /* bytes of filter text after an ENABLE */
#define TRAWL_UST_WIRE_ABI_MAJOR 1u
/* Minor 1: context bits prio and nice, and perf counters after CHANNEL.
 * Minor 2: REGENERATE_STATEDUMP. Minor 3: TALLY (app -> daemon).
 * Minor 4: REGISTER may carry the app's clock (TRAWL_WIRE_REG_CLOCK).
 * Minor 5: CHANNEL says the clock (before: reserved, CLOCK_MONOTONIC).
 * Minor 6: CHANNEL may carry a blocking timeout (TRAWL_WIRE_CHAN_BLOCKING).
 * Minor 7: TALLY_SHM (app -> daemon: the tally's memfd).
 * Minor 8: the memfd's head has an overflow bucket (was reserved, 0).
 * Minor 9: NOTIFIER (event notifiers of triggers, ustabi/notify.h).
 * Minor 10: the namespace context bits (cgroup_ns...); NOTIFIER's contexts:
 *           written before each of its records' payload (captures of
 *           $ctx.NAME; older apps ignore the field and write none).
 * Minor 11: CHANNEL may carry the consumer's wake-up eventfd
 *           (TRAWL_WIRE_CHAN_WAKE), and the app writes it when it closes
 *           a packet while the consumer sleeps (ringbuffer.h, "Wake-ups");
 *           the daemon marks the channels it gives older apps, which the
 *           consumer then polls.
 * Minor 12: CHANNEL may carry application contexts (TRAWL_WIRE_CHAN_APP_CTX).
 * Minor 13: NOTIFIER may carry application contexts too (the same flag and
 *           names), whose values the app writes into each record after
 *           the context fields, before the payload (captures of
 *           $app.PROVIDER:NAME; the daemon sends none to older apps, whose
 *           such captures are unavailable).
 * Minor 14: NOTIFIER's event_id names the notifier's drop counter in the
 *           ring's head (ustabi/notify.h dropped_by; 0: none), which the
 *           app adds each of its dropped records to (older apps ignore
 *           the field: their drops are counted in the head's totals only). */
#define TRAWL_UST_WIRE_ABI_MINOR 14u
/* A TALLY's entries, at most (a program with more splits them), and one
 * entry's count, at most (2^48: 163 days of 20 M events/s). */
#define TRAWL_WIRE_MAX_TALLY 1024u
#define TRAWL_WIRE_MAX_TALLY_COUNT (1ull << 48)
/* A TALLY_SHM memfd's entries, at most (an app with more counts the others
 * in its own memory, by kind, and in the head's overflow bucket, their sum:
 * by kind they go by TALLY, the sum when the app is killed or dropped). */
#define TRAWL_WIRE_MAX_TALLY_SHM 16384u
#define TRAWL_WIRE_TALLY_SHM_MAGIC 0x59544c54u /* "TLTY" */

enum trawl_wire_type {
	TRAWL_WIRE_REGISTER = 1,
	TRAWL_WIRE_EVENT = 2,
	TRAWL_WIRE_CMD = 3,
	TRAWL_WIRE_REPLY = 4,
	TRAWL_WIRE_EVENTS_ADDED = 5, /* app -> daemon, unasked (above) */
	TRAWL_WIRE_TALLY = 6,        /* app -> daemon, unasked (above) */
	TRAWL_WIRE_TALLY_SHM = 7,    /* app -> daemon, unasked, + a memfd (above) */
};

enum trawl_wire_cmd_kind {
	TRAWL_WIRE_CMD_CHANNEL = 1, /* + nr_streams fds (and the wake-up eventfd
				       with TRAWL_WIRE_CHAN_WAKE), + nr_counters wire counters */
	/* May be followed by filter expressions, NUL-terminated one after the
	 * other (hdr.size says how many bytes, at most TRAWL_WIRE_MAX_FILTERS):
	 * the event records when any is true. None: every event records. */
	TRAWL_WIRE_CMD_ENABLE = 2,
	TRAWL_WIRE_CMD_DISABLE = 3,
	TRAWL_WIRE_CMD_START = 4,
	TRAWL_WIRE_CMD_STOP = 5,
	TRAWL_WIRE_CMD_FLUSH = 6,
	TRAWL_WIRE_CMD_RELEASE = 7,
	/* The daemon has set the app up (channels, enabled events and start of
	 * every active session, or nothing): the app's constructor, waiting
	 * for it, may return. Apps older than this command answer -EINVAL,
	 * which the daemon ignores. flags: TRAWL_WIRE_DONE_*; event_index:
	 * how many of the app's events the daemon has (first + nr of the last
	 * EVENTS_ADDED, or REGISTER's nr_events), when it takes them. */
	TRAWL_WIRE_CMD_REGISTRATION_DONE = 8,
	/* Record the user-space state dump (lttng_ust_statedump:*) again into
	 * the session's channels, as after START. Apps older than this
	 * command answer -EINVAL. */
	TRAWL_WIRE_CMD_REGENERATE_STATEDUMP = 9,
	/* An event notifier of a trigger (ABI minor >= 9, ustabi/notify.h):
	 * a channel of handle chan_handle that records nothing but hands each
	 * event its ENABLEs (event_id: the daemon's token) give it to the
	 * connection's notification ring. The first NOTIFIER of a connection
	 * carries the ring's memfd and the daemon's eventfd (2 fds, SCM_RIGHTS;
	 * num_subbuf: its slots, subbuf_size: a slot's bytes); the next ones
	 * carry none and share it. RELEASE removes one. Apps older than this
	 * command answer -EINVAL. flags: TRAWL_WIRE_CHAN_APP_CTX only (ABI
	 * minor >= 13), with its names after the command as CHANNEL's (no
	 * counters): each record holds, after its context fields, their
	 * values (ustabi.h's layout: a tag, then the value), then the
	 * payload. event_id (ABI minor >= 14; 0 before): k in
	 * 1..TRAWL_NOTIFY_COUNTERS, the notifier counts its dropped records
	 * in the ring head's dropped_by[k - 1]; 0, it has no counter. */
	TRAWL_WIRE_CMD_NOTIFIER = 10,
};

/* REGISTRATION_DONE flags. */
#define TRAWL_WIRE_DONE_TAKES_ADDED 1u /* the daemon reads EVENTS_ADDED */
/* The daemon refused the registration (or the addition) it answers: over
 * its limits on what one app may register. The app is not traced by that
 * daemon; the flag lacks TAKES_ADDED, so it adds nothing more on this
 * connection (older apps read it the same way: flags they do not know are
 * ignored). */
#define TRAWL_WIRE_DONE_REFUSED 2u

/* CHANNEL flags (ABI minor >= 6; older apps ignore them: they never wait).
 * BLOCKING: a writer finding the buffer full waits for room (if the app
 * allows it, src/ust/fastpath.c) up to `event_id` ms (unused otherwise by CHANNEL), rounded up from the
 * channel's µs; TRAWL_WIRE_BLOCKING_INF: without end. */
#define TRAWL_WIRE_CHAN_BLOCKING 1u
/* CHANNEL flags (ABI minor >= 11): one more fd after the streams, the
 * eventfd the app writes when it closes a packet while the consumer sleeps
 * (ringbuffer.h, "Wake-ups"). Sent only to apps of minor >= 11. */
#define TRAWL_WIRE_CHAN_WAKE 2u
/* CHANNEL: after the counters, the channel's application contexts
 * (ustabi.h), in recording order: their names, each NUL-terminated, one
 * after the other (1 to TRAWL_USTCTL_MAX_APP_CTX of them; ABI minor >= 12;
 * an older app refuses the flag's bytes). NOTIFIER takes it too, from ABI
 * minor 13 (an app of minor 12 or older refuses the names). */
#define TRAWL_WIRE_CHAN_APP_CTX 4u
#define TRAWL_WIRE_BLOCKING_INF UINT32_MAX

struct trawl_wire_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t size; /* bytes, header included */
	uint32_t seq;
};

struct trawl_wire_register {
	struct trawl_wire_hdr hdr;
	uint32_t pid, ppid, uid, gid;
	uint32_t bits_per_long;
	uint32_t abi_major, abi_minor;
	uint32_t nr_events;
	char procname[16];
	uint32_t flags; /* TRAWL_WIRE_REG_* (ABI minor >= 4; was reserved, 0) */
	uint32_t reserved[3];
};

/*
 * REGISTER flags. CLOCK: the app stamps its events with its own clock (an
 * LTTng-UST clock plugin, src/ust/clock.c), described by a struct
 * trawl_wire_clock that follows the REGISTER in the same message (hdr.size
 * covers both). A daemon older than ABI minor 4 refuses such a REGISTER:
 * the app is then not traced, rather than traced with times its trace
 * would misread.
 */
#define TRAWL_WIRE_REG_CLOCK 1u

struct trawl_wire_clock {
	char name[TRAWL_USTCTL_CLOCK_NAME_MAX];
	char description[TRAWL_USTCTL_CLOCK_DESC_MAX];
	uint8_t uuid[16];  /* valid when has_uuid */
	uint32_t has_uuid; /* 0 or 1 */
	uint32_t reserved;
	uint64_t freq;     /* ticks per second, 1 .. TRAWL_USTCTL_CLOCK_FREQ_MAX */
	/* The clock's value at the Epoch's second offset_s plus offset ticks is
	 * 0: offset_s * freq + offset ticks from the Epoch to value 0, with
	 * 0 <= offset < freq, measured by the app (CLOCK_REALTIME against the
	 * clock) when it registered. */
	int64_t offset_s;
	int64_t offset;
};

/* Followed by nr_fields struct trawl_wire_field, then nr_enum_entries
 * struct trawl_wire_enum_entry. */
struct trawl_wire_event {
	struct trawl_wire_hdr hdr;
	char name[TRAWL_USTCTL_NAME_MAX];
	int32_t loglevel;
	uint32_t nr_fields;
	uint32_t nr_enum_entries;
	uint32_t reserved;
};

struct trawl_wire_field {
	char name[TRAWL_USTCTL_FIELD_NAME_MAX];
	char length_name[TRAWL_USTCTL_FIELD_NAME_MAX];
	char enum_name[TRAWL_USTCTL_FIELD_NAME_MAX];
	uint32_t type, size_bits, is_signed, base, byte_order, is_text, length;
	uint32_t enum_first, enum_count; /* a range of the event's enum entries */
	uint32_t reserved;
};

struct trawl_wire_enum_entry {
	int64_t start;
	int64_t end;
	char label[TRAWL_USTCTL_FIELD_NAME_MAX];
};

struct trawl_wire_cmd {
	struct trawl_wire_hdr hdr;
	uint32_t cmd; /* enum trawl_wire_cmd_kind */
	uint32_t session_handle;
	uint32_t chan_handle;
	uint32_t event_index;
	uint32_t event_id;
	uint32_t nr_streams;
	uint32_t num_subbuf;
	uint32_t overwrite;
	uint64_t subbuf_size;
	uint32_t contexts; /* CHANNEL: enum trawl_ustctl_context bits (0 before they existed) */
	uint32_t nr_counters; /* CHANNEL: wire counters after this struct (ABI minor >= 1);
				 <= TRAWL_USTCTL_MAX_COUNTERS */
	uint32_t flags; /* REGISTRATION_DONE: TRAWL_WIRE_DONE_* (0 before they existed);
			   CHANNEL: TRAWL_WIRE_CHAN_* (ABI minor >= 6) */
	/* CHANNEL: the trace's clock, enum trawl_rb_clock (ABI minor >= 5; older
	 * apps ignore it, so they are given CLOCK_MONOTONIC buffers only). */
	uint32_t clock;
};

/* New events of a registered app: followed by nr_events EVENT messages
 * (separate messages, as after REGISTER). */
struct trawl_wire_events_added {
	struct trawl_wire_hdr hdr;
	uint32_t first_index; /* index of the first new event: the daemon's count */
	uint32_t nr_events;   /* >= 1 */
	uint32_t reserved[2];
};

/* Events a program counted instead of recording them (its daemon was late)
 * and did not hand to a setup: followed by nr_entries entries. */
struct trawl_wire_tally {
	struct trawl_wire_hdr hdr;
	uint32_t nr_entries; /* 1 .. TRAWL_WIRE_MAX_TALLY */
	uint32_t reserved[3];
};

struct trawl_wire_tally_entry {
	char name[TRAWL_USTCTL_NAME_MAX]; /* "provider:event", as its EVENT said */
	int32_t loglevel;                 /* 0 .. 14, as its EVENT said */
	uint32_t reserved;
	uint64_t count; /* 1 .. TRAWL_WIRE_MAX_TALLY_COUNT */
};

/* The tally's memfd (TALLY_SHM, above). */
struct trawl_wire_tally_shm {
	struct trawl_wire_hdr hdr;
	uint32_t nr_max; /* 1 .. TRAWL_WIRE_MAX_TALLY_SHM: the memfd's entries */
	uint32_t reserved[3];
};

/* At the memfd's start; then nr_max struct trawl_wire_tally_entry. */
struct trawl_wire_tally_head {
	uint32_t magic; /* TRAWL_WIRE_TALLY_SHM_MAGIC */
	uint32_t nr;    /* entries in use (release: each is written first) */
	/* Minor 8: the events of the kinds past the table (an app with more
	 * kinds than nr_max), their kinds not said; 0 from an older app. */
	uint64_t overflow;
	uint32_t reserved[4];
};

/* A perf counter of a channel: what the app gives perf_event_open(). */
struct trawl_wire_counter {
	uint32_t type; /* PERF_TYPE_SOFTWARE, _HARDWARE or _HW_CACHE */
	uint32_t reserved;
	uint64_t config;
};

struct trawl_wire_reply {
	struct trawl_wire_hdr hdr;
	int32_t ret;
	uint32_t reserved;
};

_Static_assert(sizeof(struct trawl_wire_hdr) == 16, "wire header");
_Static_assert(sizeof(struct trawl_wire_register) == 80, "wire register");
_Static_assert(sizeof(struct trawl_wire_clock) == 368, "wire clock");
_Static_assert(sizeof(struct trawl_wire_event) == 288, "wire event");
_Static_assert(sizeof(struct trawl_wire_field) == 232, "wire field");
_Static_assert(sizeof(struct trawl_wire_enum_entry) == 80, "wire enum entry");
_Static_assert(sizeof(struct trawl_wire_cmd) == 72, "wire cmd");
_Static_assert(sizeof(struct trawl_wire_reply) == 24, "wire reply");
_Static_assert(sizeof(struct trawl_wire_events_added) == 32, "wire events added");
_Static_assert(sizeof(struct trawl_wire_counter) == 16, "wire counter");
_Static_assert(sizeof(struct trawl_wire_tally) == 32, "wire tally");
_Static_assert(sizeof(struct trawl_wire_tally_entry) == 272, "wire tally entry");
_Static_assert(sizeof(struct trawl_wire_tally_shm) == 32, "wire tally shm");
_Static_assert(sizeof(struct trawl_wire_tally_head) == 32, "wire tally head");
_Static_assert(sizeof(struct trawl_wire_tally) + TRAWL_WIRE_MAX_TALLY * sizeof(struct trawl_wire_tally_entry) <=
		       TRAWL_WIRE_MAX_MSG, "a whole tally is one message");
/* The largest command: CHANNEL with every counter and application context. */
#define TRAWL_WIRE_CMD_MAX                                                                   \
	(sizeof(struct trawl_wire_cmd) + TRAWL_USTCTL_MAX_COUNTERS * sizeof(struct trawl_wire_counter) + \
	 TRAWL_USTCTL_MAX_APP_CTX * TRAWL_USTCTL_APP_CTX_NAME_MAX)

void trawl_wire_hdr_init(struct trawl_wire_hdr *h, uint16_t type, uint32_t size);
/* Checks magic, version, @type and that size == @len. 0 or -EPROTO. */
int trawl_wire_hdr_check(const struct trawl_wire_hdr *h, uint16_t type, size_t len);

/**
 * trawl_wire_cmd_decode - check a whole command as the app received it
 * @buf, @len: the command's bytes (struct trawl_wire_cmd, then for CHANNEL
 *             its counters, for ENABLE its filters: at most
 *             TRAWL_WIRE_MAX_FILTERS bytes ending with a NUL, found at
 *             @buf + sizeof(struct trawl_wire_cmd))
 * @cmd: receives the fixed part
 * @counters: receives cmd->nr_counters counters (room for
 *            TRAWL_USTCTL_MAX_COUNTERS), each with a known type and
 *            reserved fields 0
 *
 * A CHANNEL or NOTIFIER with TRAWL_WIRE_CHAN_APP_CTX has its names
 * checked (trawl_ustctl_app_ctx_name_valid(), no duplicate):
 * trawl_wire_app_ctx() finds them.
 *
 * 0 or -EPROTO. Untrusted input (fuzz/ustctl).
 */
int trawl_wire_cmd_decode(const void *buf, size_t len, struct trawl_wire_cmd *cmd,
			  struct trawl_wire_counter *counters);

/*
 * The application contexts of CHANNEL or NOTIFIER @buf (@len bytes, decoded by
 * trawl_wire_cmd_decode()): their count, and *@names the first (the others
 * follow it, each after the previous one's NUL); 0 without any.
 */
uint32_t trawl_wire_app_ctx(const void *buf, size_t len, const char **names);

/* Opens perf counter (@type, @config) for the calling thread, as every
 * trawl process does: the fd (close-on-exec, the caller's) or -errno. */
int trawl_wire_counter_open(uint32_t type, uint64_t config);

/* Receives one whole message into a malloc'd buffer (caller frees): its
 * header's magic and size (at most TRAWL_WIRE_MAX_MSG) checked, waiting at
 * most @timeout_ms (ms; -1 = none) for each part. 0 or a negative errno
 * (-ETIMEDOUT, -ECONNRESET on EOF, -EPROTO). */
int trawl_wire_recv_msg(int fd, void **msg, size_t *len, int timeout_ms);

#endif /* TRAWL_USTABI_WIRE_H */
