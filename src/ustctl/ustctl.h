/* SPDX-License-Identifier: MIT */
/*
 * ustctl.h - what the daemons use to talk to traced applications and to
 * operate their ring buffers (trawl's liblttng-ust-ctl).
 *
 * The session daemon and the consumer never touch the app protocol or the
 * ring buffer internals; they call this. Two halves:
 *
 * App side (session daemon)
 *   A traced app (libtrawl-ust) connects to "apps.sock" in its user's runtime
 *   folder and in root's (trawl_runtime_dir()). The daemon accept()s and hands
 *   the fd to trawl_ustctl_app_accept(), which reads the registration (pid,
 *   uid, procname, ...) and every event description the app offers. The daemon
 *   then sends channels (ring buffer fds), enables events with the ids it
 *   assigned, starts and stops sessions, and asks for flushes:
 *
 *     accept(apps.sock) ─▶ trawl_ustctl_app_accept ─▶ app_send_channel*
 *        ─▶ app_enable_event* ─▶ app_start ─▶ app_registration_done
 *        ─▶ app_stop ─▶ app_flush
 *        ─▶ trawl_ustctl_app_destroy (closes the fd)
 *
 *   An app is gone when its fd polls POLLHUP/POLLERR/POLLIN-with-EOF, or when
 *   any call returns -EPIPE / -ECONNRESET / -ETIMEDOUT. Every message from an
 *   app is untrusted and checked.
 *
 *   Two ways to drive an app. trawl_ustctl_app_accept() makes a *blocking*
 *   handle: it reads the registration, and each command waits (at most
 *   TRAWL_USTCTL_TIMEOUT_MS) for its reply (tests, tools). A daemon that
 *   serves several peers from one loop uses trawl_ustctl_app_open()
 *   instead: nothing then ever waits on the app. Its bytes are read when
 *   its fd is readable (trawl_ustctl_app_input(), which hands back the
 *   registration, additions, and replies as they complete), commands are
 *   queued and sent as the socket takes them (trawl_ustctl_app_output()
 *   when it is writable), and trawl_ustctl_app_deadline() says by when the
 *   app must have finished what it began or answered what it was asked,
 *   else it is to be dropped. What one app may make the daemon hold is
 *   bounded by struct trawl_ustctl_app_limits; a registration or addition
 *   beyond is refused (trawl_ustctl_app_refuse()), not kept.
 *
 *   Event ids: the daemon owns them (per channel, as in the metadata). The app
 *   writes the id it was given in the event header (compact header when the
 *   id is <= 30, extended otherwise, see src/ctf/layout.h).
 *
 *   Events registered by the app after it connected (a provider dlopen()ed
 *   later) come on the same connection (EVENTS_ADDED, wire.h) once the daemon
 *   said it takes them (trawl_ustctl_app_registration_done_flags()).
 *
 * Buffer side (session daemon creates, consumer maps)
 *   A channel is one ring buffer ("stream") per possible CPU, each a sealed
 *   memfd: a control page (positions, per-sub-buffer commit counts, counters)
 *   then num_subbuf sub-buffers of subbuf_size bytes. A sub-buffer is a CTF
 *   packet (src/ctf/layout.h): the consumer writes its packet header and
 *   context from the control page when it takes the packet, so a packet on
 *   disk is exactly the sub-buffer's bytes.
 *   Per-user buffers: the daemon creates the channel once and sends the same
 *   fds to every app of the user; per-process buffers: one channel per app.
 *
 *   The consumer learns that data is ready by polling: every call here is
 *   non-blocking, and the consumer calls trawl_ustctl_stream_get_packet() on
 *   each stream on a timer (the channel's read timer; 1 ms is a good default:
 *   the default channel holds 2 MiB per CPU, ~4 ms at 20 M events/s/CPU). No
 *   syscall is ever made by the traced app to wake the consumer. The switch
 *   timer is the consumer's too: trawl_ustctl_stream_flush() closes the current
 *   partial packet from the consumer side, without the app's help.
 *
 *   Everything read from the shared memory is untrusted (a buggy or hostile
 *   app may scribble on it): sizes come from the consumer's own attributes,
 *   and every offset read from the control page is checked.
 *
 * Ownership is noted on each function. Threading: an app handle or a stream is
 * used by one thread at a time; different ones may be used concurrently.
 */
#ifndef TRAWL_USTCTL_H
#define TRAWL_USTCTL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ustabi/ustabi.h"

#define TRAWL_USTCTL_TIMEOUT_MS 3000 /* longest wait for an app's reply */

/* ------------------------------------------------------------------ */
/* Event descriptions, as the app registered them.                    */
/* ------------------------------------------------------------------ */


/* One mapping of an enum: [start, end] inclusive. For an unsigned container
 * the values are the uint64_t bit patterns. */
struct trawl_ustctl_enum_entry {
	int64_t start;
	int64_t end;
	char label[TRAWL_USTCTL_FIELD_NAME_MAX];
};

struct trawl_ustctl_field {
	char name[TRAWL_USTCTL_FIELD_NAME_MAX];
	enum trawl_ustctl_field_type type;
	/* Integer, enum container, or array/sequence element: */
	uint32_t size_bits;  /* 8, 16, 32, 64 (float: 32, 64) */
	uint32_t is_signed;  /* 0/1 */
	uint32_t base;       /* 10 or 16 (ctf_integer_hex), 8, 2 */
	enum trawl_ustctl_byte_order byte_order;
	uint32_t is_text;    /* array/sequence of char meant as text (ctf_*_text):
				CTF "encoding = UTF8" on the element */
	/* Array: */
	uint32_t length;     /* elements */
	/* Sequence: */
	char length_name[TRAWL_USTCTL_FIELD_NAME_MAX]; /* the length field's name */
	/* Enum (owned by the app handle): */
	char enum_name[TRAWL_USTCTL_FIELD_NAME_MAX];   /* "provider_enumname" */
	const struct trawl_ustctl_enum_entry *enum_entries;
	uint32_t nr_enum_entries;
};

struct trawl_ustctl_event {
	char name[TRAWL_USTCTL_NAME_MAX]; /* "provider:event" */
	int32_t loglevel;                 /* LTTng's 0 (TRACE_EMERG) .. 14 (TRACE_DEBUG);
					     13 (TRACE_DEBUG_LINE) when not set */
	uint32_t nr_fields;
	const struct trawl_ustctl_field *fields; /* in payload order; owned by the app handle */
};

/* ------------------------------------------------------------------ */
/* App side.                                                          */
/* ------------------------------------------------------------------ */

/* An app's own clock (REGISTER's struct trawl_wire_clock, checked). */
struct trawl_ustctl_clock {
	char name[TRAWL_USTCTL_CLOCK_NAME_MAX];        /* [A-Za-z_][A-Za-z0-9_]* */
	char description[TRAWL_USTCTL_CLOCK_DESC_MAX]; /* NUL-terminated, any bytes */
	uint8_t uuid[16];
	int has_uuid;
	uint64_t freq;     /* Hz, 1 .. TRAWL_USTCTL_CLOCK_FREQ_MAX */
	int64_t offset_s;  /* the Epoch to value 0: offset_s s + offset ticks */
	int64_t offset;    /* 0 .. freq - 1 */
};

struct trawl_ustctl_app_info {
	pid_t pid;
	pid_t ppid;
	uid_t uid;  /* as the app claims; the daemon checks SO_PEERCRED itself */
	gid_t gid;
	uint32_t bits_per_long; /* 32 or 64: the trace goes to ust/uid/<uid>/<bits>-bit */
	uint32_t abi_major;
	uint32_t abi_minor;
	char procname[TRAWL_USTCTL_PROCNAME_MAX];
	int has_clock; /* its events carry its own clock's time (clock): not CLOCK_MONOTONIC */
	struct trawl_ustctl_clock clock;
};

struct trawl_ustctl_app; /* one connected app; opaque */

/**
 * trawl_ustctl_app_accept - read a new app's registration
 * @fd: a connected socket from accept() on apps.sock; ownership passes to the
 *      app handle on success (closed by trawl_ustctl_app_destroy()); on
 *      failure the caller still owns it.
 * @app: receives the handle; free it with trawl_ustctl_app_destroy().
 *
 * Blocks up to TRAWL_USTCTL_TIMEOUT_MS in all for the registration and the
 * event descriptions. Returns 0, -EPROTO on a malformed or wrong-version
 * message, -ETIMEDOUT, -ECONNRESET, or -ENOMEM. The handle is blocking:
 * each command waits for its reply.
 */
int trawl_ustctl_app_accept(int fd, struct trawl_ustctl_app **app);

/*
 * What one app may make the daemon hold and wait for (0 in a field: the
 * default named). Shared by pointer: @shared_bytes is the caller's, and
 * several apps charge it (the daemon's budget for one user's apps).
 */
struct trawl_ustctl_app_limits {
	uint32_t max_events;   /* events, additions included (TRAWL_WIRE_MAX_EVENTS) */
	uint32_t max_fields;   /* fields of one event (TRAWL_WIRE_MAX_FIELDS) */
	uint64_t max_bytes;    /* bytes of decoded descriptions and input held (none) */
	uint64_t *shared_bytes; /* a budget shared with other apps, or NULL */
	uint64_t shared_max;   /* its bound, bytes */
	uint32_t reply_ms;     /* to answer a command (TRAWL_USTCTL_TIMEOUT_MS) */
	uint32_t unit_ms;      /* to send a whole registration, addition or message,
				  from its first byte (the registration: from the
				  open) (TRAWL_USTCTL_TIMEOUT_MS) */
	uint64_t max_output;   /* bytes of commands queued and not yet taken (4 MiB) */
};

/**
 * trawl_ustctl_app_open - a new app, for a daemon's poll loop
 * @fd: a connected socket from accept() on apps.sock; owned by the handle
 *      on success (closed by trawl_ustctl_app_destroy()). Used with
 *      MSG_DONTWAIT: its own flags are left alone.
 * @lim: copied; NULL for the defaults
 * @app: receives the handle
 *
 * Reads nothing: feed it with trawl_ustctl_app_input(). Its commands
 * (trawl_ustctl_app_send_channel() and the rest) queue and return 0, or
 * -EPIPE (gone), -ENOBUFS (lim.max_output reached: the app is not reading),
 * -ENOMEM; their replies come through trawl_ustctl_app_input(). 0 or -ENOMEM.
 */
int trawl_ustctl_app_open(int fd, const struct trawl_ustctl_app_limits *lim,
			  struct trawl_ustctl_app **app);

enum trawl_ustctl_news_kind {
	TRAWL_USTCTL_NEWS_REGISTERED = 1, /* info and events are there */
	TRAWL_USTCTL_NEWS_ADDED,          /* events added: trawl_ustctl_app_take_added() */
	TRAWL_USTCTL_NEWS_REFUSED,        /* the registration (@registration) or an
					     addition went over a limit (@why): nothing
					     of it was kept; answer with
					     trawl_ustctl_app_refuse() */
	TRAWL_USTCTL_NEWS_REPLY,          /* the oldest command's answer */
	TRAWL_USTCTL_NEWS_TALLY,          /* events the app counted instead of recording
					     them (its setup came too late) and that no
					     setup of it will count: @tally, @nr_tally */
	TRAWL_USTCTL_NEWS_TALLY_SHM,      /* the app's tally memfd came (wire.h): kept
					     until trawl_ustctl_app_tally_shm_take(), or
					     trawl_ustctl_app_tally_shm_drop() */
};

/* One entry of a TALLY (wire.h): checked, never trusted (the app may lie;
 * it can only charge what would have traced it, ust-app.c). */
struct trawl_ustctl_tally_entry {
	char name[TRAWL_USTCTL_NAME_MAX]; /* "provider:event" */
	int32_t loglevel;                 /* 0 .. 14 */
	uint64_t count;                   /* 1 .. 2^48 */
};

/* The command a REPLY answers (the numbers are wire.h's). */
enum trawl_ustctl_cmd_kind {
	TRAWL_USTCTL_CMD_CHANNEL = 1,
	TRAWL_USTCTL_CMD_ENABLE = 2,
	TRAWL_USTCTL_CMD_DISABLE = 3,
	TRAWL_USTCTL_CMD_START = 4,
	TRAWL_USTCTL_CMD_STOP = 5,
	TRAWL_USTCTL_CMD_FLUSH = 6,
	TRAWL_USTCTL_CMD_RELEASE = 7,
	TRAWL_USTCTL_CMD_REGISTRATION_DONE = 8,
};

struct trawl_ustctl_app_news {
	enum trawl_ustctl_news_kind kind;
	/* REPLY: the command answered (enum trawl_ustctl_cmd_kind, its handles)
	 * and the answer. */
	uint32_t cmd, session_handle, chan_handle, event_index;
	int ret; /* 0 or -errno, from the app */
	/* REFUSED: */
	int registration;
	char why[128];
	/* TALLY: owned by the app handle, valid until the next
	 * trawl_ustctl_app_input() or trawl_ustctl_app_destroy(). Only once
	 * the registration was taken (never for a refused one). */
	const struct trawl_ustctl_tally_entry *tally;
	uint32_t nr_tally;
};

/**
 * trawl_ustctl_app_input - take what the app sent
 * @may_read: 1 to read from the socket once (without waiting), 0 to only
 *            look at what was read already
 * @news: filled when 1 is returned
 *
 * Call with @may_read 1 when the fd is readable, then with 0 until it
 * returns 0: one read per readiness, whatever the app sends, so a flood
 * from one app never starves the loop. 1 (@news), 0 (nothing complete),
 * or -errno: -ECONNRESET (the app left), -EPROTO (malformed, out of turn),
 * -EDQUOT / -ENOMEM: drop the app.
 */
int trawl_ustctl_app_input(struct trawl_ustctl_app *app, int may_read,
			   struct trawl_ustctl_app_news *news);

/* An app's tally memfd (wire.h TALLY_SHM), once taken out of its app. */
struct trawl_ustctl_tally_shm {
	int fd;		 /* owned: trawl_ustctl_tally_shm_close() */
	uint32_t nr_max; /* its entries, as the app said (checked: the file holds them) */
	uint32_t limit;	 /* entries worth reading (the app's events + a TALLY's) */
};

/**
 * trawl_ustctl_app_tally_shm_take - the app's tally memfd, out of @app
 * @shm: receives it (the caller closes it: trawl_ustctl_tally_shm_close())
 *
 * Take it once the app is gone (closed, killed, dropped), when its counts
 * can no longer be taken by anything else; it may be read again later (a
 * dropped app counts on until it notices). 0, or -ENOENT (none: @shm->fd
 * is -1).
 */
int trawl_ustctl_app_tally_shm_take(struct trawl_ustctl_app *app, struct trawl_ustctl_tally_shm *shm);
/**
 * trawl_ustctl_tally_shm_read - what a tally memfd counts now
 * @entries: receives a malloc'd array (free() it) of *@nr entries, one per
 *           entry of the memfd, in its order; one the app wrote wrong (not
 *           as a TALLY's, wire.h) has count 0; NULL and 0 when there is none
 * @overflow: receives the overflow bucket (kinds past the table, wire.h),
 *           at most TRAWL_WIRE_MAX_TALLY_COUNT
 *
 * The memfd is the app's: read with pread() only, at most @shm->limit
 * entries. 0, or -errno (nothing read).
 */
int trawl_ustctl_tally_shm_read(const struct trawl_ustctl_tally_shm *shm,
				struct trawl_ustctl_tally_entry **entries, uint32_t *nr, uint64_t *overflow);
void trawl_ustctl_tally_shm_close(struct trawl_ustctl_tally_shm *shm);
/* Closes the app's tally memfd (its counts will not be read). */
void trawl_ustctl_app_tally_shm_drop(struct trawl_ustctl_app *app);

/* Sends what is queued, as far as the socket takes it. 0 or -errno (drop). */
int trawl_ustctl_app_output(struct trawl_ustctl_app *app);
/* 1 while commands wait to be sent: poll for POLLOUT. */
int trawl_ustctl_app_want_output(const struct trawl_ustctl_app *app);
/* Commands sent (or queued) and not answered. */
uint32_t trawl_ustctl_app_pending(const struct trawl_ustctl_app *app);
/* Bytes the app holds against its limits (descriptions and input). */
uint64_t trawl_ustctl_app_bytes(const struct trawl_ustctl_app *app);

/*
 * By when (CLOCK_MONOTONIC, ms; 0: nothing due) the app must finish the
 * unit or message it began, or answer its oldest command.
 * trawl_ustctl_app_expired(): 1 with the reason in @why once @now (same
 * clock) is past it: drop the app.
 */
uint64_t trawl_ustctl_app_deadline(const struct trawl_ustctl_app *app);
int trawl_ustctl_app_expired(const struct trawl_ustctl_app *app, uint64_t now, char *why,
			     size_t len);

/* Answers a refused registration or addition (REGISTRATION_DONE with
 * TRAWL_USTCTL_DONE_REFUSED): the app goes on, untraced by this daemon (a
 * refused addition: its earlier events stay traced). */
int trawl_ustctl_app_refuse(struct trawl_ustctl_app *app);

/* Releases the app handle and closes its socket; the app sees its daemon go
 * (it then keeps running and tries to register again). NULL is a no-op. */
void trawl_ustctl_app_destroy(struct trawl_ustctl_app *app);

/* The registration. Valid until trawl_ustctl_app_destroy(). */
const struct trawl_ustctl_app_info *trawl_ustctl_app_info(const struct trawl_ustctl_app *app);

/* The app's socket, for poll() (POLLHUP/POLLERR or a readable EOF: gone).
 * Still owned by the app handle. */
int trawl_ustctl_app_fd(const struct trawl_ustctl_app *app);

/* Events the app offers, indexed 0 .. count-1 (the "event index" below).
 * Valid until trawl_ustctl_app_destroy(). */
uint32_t trawl_ustctl_app_event_count(const struct trawl_ustctl_app *app);
const struct trawl_ustctl_event *trawl_ustctl_app_event(const struct trawl_ustctl_app *app,
							uint32_t index);

struct trawl_ustctl_channel; /* below */

/**
 * trawl_ustctl_app_send_channel - give the app a channel's ring buffers
 * @app: the app
 * @chan: the channel (per-user: the same one for every app of the user)
 * @session_handle: the daemon's id for the session (start/stop name it)
 * @chan_handle: the daemon's id for the channel in this app (unique per app)
 *
 * Sends the stream fds with SCM_RIGHTS (the app maps them and closes its
 * copies) and waits for the app's reply. Returns 0, -EEXIST if the handle is
 * taken, -ENOMEM / -EINVAL from the app, or a socket error.
 */
int trawl_ustctl_app_send_channel(struct trawl_ustctl_app *app, const struct trawl_ustctl_channel *chan,
				  uint32_t session_handle, uint32_t chan_handle);


/* The bit of context @name ("vpid", "vtid", "pid", "tid", "procname",
 * "pthread_id", "ppid", "ip", "prio", "nice": LTTng's names). 0, or
 * -ENOENT for another name (perf counters: trawl_ustctl_counter_lookup()). */
int trawl_ustctl_context_from_name(const char *name, uint32_t *bit);


struct trawl_ustctl_counter {
	uint32_t type;   /* perf_event_attr.type: PERF_TYPE_SOFTWARE, _HARDWARE or _HW_CACHE */
	uint64_t config; /* perf_event_attr.config */
	char name[TRAWL_USTCTL_FIELD_NAME_MAX]; /* the CTF field, "perf_thread_page_fault" */
};

/* A channel's context fields. */
struct trawl_ustctl_contexts {
	uint32_t bits;        /* enum trawl_ustctl_context */
	uint32_t nr_counters; /* <= TRAWL_USTCTL_MAX_COUNTERS */
	struct trawl_ustctl_counter counters[TRAWL_USTCTL_MAX_COUNTERS]; /* in recording order */
	uint32_t nr_app; /* application contexts, <= TRAWL_USTCTL_MAX_APP_CTX */
	char app[TRAWL_USTCTL_MAX_APP_CTX][TRAWL_USTCTL_APP_CTX_NAME_MAX]; /* "$app.P:N", in recording order */
};

/**
 * trawl_ustctl_counter_lookup - the perf counter called @name
 * @name: perf's name without the "perf:thread:" prefix: "page-fault",
 *        "faults", "cs", "cpu-cycles", "L1-dcache-load-misses"...
 * @c: receives its type, config and field name ("perf_thread_" + @name
 *     with '-' turned into '_', LTTng's field name)
 *
 * 0, or -ENOENT for a name perf does not have. Hardware counters are
 * known whether or not this machine has a PMU: trawl_ustctl_counter_probe().
 */
int trawl_ustctl_counter_lookup(const char *name, struct trawl_ustctl_counter *c);

/* 1 if @c counts with the CPU's PMU (hardware and cache counters). */
int trawl_ustctl_counter_is_hardware(const struct trawl_ustctl_counter *c);

/**
 * trawl_ustctl_counter_probe - can a thread of this process open @c?
 *
 * Opens and closes the counter for the calling thread as an app would
 * (src/ust/fastpath.c: kernel-mode counting first, then user-mode only).
 * 0, -ENODEV when the machine lacks the PMU it needs, -EACCES when
 * perf_event_paranoid (or a seccomp filter) forbids it, or another -errno.
 */
int trawl_ustctl_counter_probe(const struct trawl_ustctl_counter *c);

/* Bytes the contexts take before each payload. */
uint32_t trawl_ustctl_contexts_size(const struct trawl_ustctl_contexts *ctx);

struct trawl_ctf_type;
/**
 * trawl_ustctl_contexts_ctf_type - the stream event context for @ctx
 *
 * A src/ctf/ctf.h struct type with the chosen fields in the order the app
 * writes them, ready for trawl_ctf_trace_add_stream_class() (which takes
 * it). NULL with errno set on failure, or when @ctx has no field (errno 0).
 * Only in builds where trawl-ctf exists (it is linked in then).
 */
struct trawl_ctf_type *trawl_ustctl_contexts_ctf_type(const struct trawl_ustctl_contexts *ctx);

/* As trawl_ustctl_contexts_ctf_type() for context bits alone. */
struct trawl_ctf_type *trawl_ustctl_context_ctf_type(uint32_t contexts);

/* As trawl_ustctl_app_send_channel(), the app writing the context fields
 * @contexts (enum trawl_ustctl_context bits) before each event of the
 * channel. -EINVAL for unknown bits. */
int trawl_ustctl_app_send_channel_ctx(struct trawl_ustctl_app *app, const struct trawl_ustctl_channel *chan,
				      uint32_t session_handle, uint32_t chan_handle, uint32_t contexts);

/* The same with every context @ctx holds, perf counters included. -EINVAL
 * for unknown bits or too many counters; -EPROTONOSUPPORT when @ctx has
 * counters or prio/nice and the app's libtrawl-ust predates them (ABI
 * minor 0). */
int trawl_ustctl_app_send_channel_ctxs(struct trawl_ustctl_app *app, const struct trawl_ustctl_channel *chan,
				       uint32_t session_handle, uint32_t chan_handle,
				       const struct trawl_ustctl_contexts *ctx);

/* The same with a blocking timeout: @blocking_us 0 (never waits), -1
 * (waits without end) or µs (sent in ms, rounded up) that a writer finding
 * the buffer full waits for room, in an app that allows it. An app older
 * than ABI minor 5 gets the channel without it (it never waits). -EINVAL
 * for a timeout below -1 or of 2^32 - 1 ms or more. */
int trawl_ustctl_app_send_channel_opts(struct trawl_ustctl_app *app, const struct trawl_ustctl_channel *chan,
				       uint32_t session_handle, uint32_t chan_handle,
				       const struct trawl_ustctl_contexts *ctx, int64_t blocking_us);

/**
 * trawl_ustctl_app_enable_event - make an event record into a channel
 * @event_index: index in the app's event list (trawl_ustctl_app_event())
 * @event_id: the id the daemon assigned to the event in this channel (its
 *            metadata's "id"); any uint32_t
 *
 * The event records only while the channel's session is started. Enabling an
 * event already enabled in the channel updates its id. An event may be enabled
 * in any number of channels (of any number of sessions) at once; -ENOMEM from
 * an app out of memory.
 */
int trawl_ustctl_app_enable_event(struct trawl_ustctl_app *app, uint32_t chan_handle, uint32_t event_index,
				  uint32_t event_id);
/**
 * trawl_ustctl_app_enable_event_filter - the same, recording only the events
 * that pass one of @filters
 * @filters: filter expressions (src/filter syntax, already checked by the
 *           daemon), each NUL-terminated, one after the other; @filters_len
 *           bytes in all (the last one a NUL), at most TRAWL_WIRE_MAX_FILTERS.
 *           An event records if any of them is true. 0 bytes: no filter.
 *
 * Enabling an event already enabled in the channel replaces its filters.
 * -EINVAL from the app for an expression it cannot parse.
 */
int trawl_ustctl_app_enable_event_filter(struct trawl_ustctl_app *app, uint32_t chan_handle,
					 uint32_t event_index, uint32_t event_id, const char *filters,
					 size_t filters_len);
int trawl_ustctl_app_disable_event(struct trawl_ustctl_app *app, uint32_t chan_handle, uint32_t event_index);

/* Start / stop recording into every channel sent with @session_handle.
 * When stop returns, the app's threads no longer start new events in those
 * channels (an event already being written may still commit for a few µs:
 * the consumer's final flush waits for it). */
int trawl_ustctl_app_start(struct trawl_ustctl_app *app, uint32_t session_handle);
int trawl_ustctl_app_stop(struct trawl_ustctl_app *app, uint32_t session_handle);
/* The app records its user-space state dump (lttng_ust_statedump:*, as at
 * START) again into @session_handle's channels: trawl regenerate statedump.
 * An app older than this command (ABI minor < 2) is left alone (0). */
int trawl_ustctl_app_regenerate_statedump(struct trawl_ustctl_app *app, uint32_t session_handle);

/* Asks the app to close the current partial packet of each of its streams of
 * the channel (the consumer can also do it alone: trawl_ustctl_stream_flush()). */
int trawl_ustctl_app_flush(struct trawl_ustctl_app *app, uint32_t chan_handle);

/*
 * An event notifier of a trigger (wire.h NOTIFIER, ustabi/notify.h): a
 * channel @chan_handle that records nothing and hands the events its
 * ENABLEs (event_id: the daemon's token) give it to the app's notification
 * ring. @ring_fd, @event_fd: the ring's sealed memfd (of
 * trawl_notify_size(@nr_slots, @slot_size) bytes) and the eventfd the app
 * writes, for the app's first notifier only (-1 for the next ones: they
 * share it); not closed here (the caller's). Released as a channel.
 * @contexts: the context fields (ustabi.h bits, no counters) the app writes
 * before each record's payload. @app_ctx: @nr_app application contexts
 * ("$app.P:N", valid, no two the same) whose values the app writes after
 * them (ustabi.h's layout), before the payload. @counter: k in
 * 1..TRAWL_NOTIFY_COUNTERS, the app counts the notifier's dropped records
 * in the ring head's dropped_by[k - 1] (an app older than ABI minor 14
 * does not: it stays 0); 0, no counter. -EPROTONOSUPPORT: an app older
 * than ABI minor 9, or 10 with @contexts, or 13 with @nr_app.
 */
int trawl_ustctl_app_send_notifier(struct trawl_ustctl_app *app, uint32_t chan_handle, int ring_fd,
				   int event_fd, uint32_t nr_slots, uint32_t slot_size,
				   uint32_t contexts,
				   const char (*app_ctx)[TRAWL_USTCTL_APP_CTX_NAME_MAX],
				   uint32_t nr_app, uint32_t counter);

/*
 * The reader's side of an app's notification ring (ustabi/notify.h), for
 * the daemon: it makes the ring (a sealed memfd, zeroed), sends its fd with
 * the app's first notifier, and takes the records. Nothing in the ring is
 * trusted: each record is copied, then checked.
 */
struct trawl_ustctl_notify_ring; /* opaque */

/* One record, as taken: valid until the ring's next take or destroy. */
struct trawl_ustctl_notification {
	uint32_t chan_handle; /* the notifier the app says (check it) */
	uint32_t id;          /* the ENABLE's event_id it says (check it) */
	uint64_t ts;          /* CLOCK_MONOTONIC ns, the app's word */
	uint32_t len;         /* payload bytes, within the slot */
	const void *payload;  /* the event's fields as the probe serialized them */
};

/* @nr_slots slots of @slot_size bytes (a multiple of 8). @out: the caller's,
 * freed with trawl_ustctl_notify_ring_destroy(). 0, -EINVAL, -ENOMEM, -errno. */
int trawl_ustctl_notify_ring_create(uint32_t nr_slots, uint32_t slot_size,
				    struct trawl_ustctl_notify_ring **out);
/* The ring's memfd (owned by the ring), or -1 once closed: close it once the
 * app's first NOTIFIER is queued (the queue holds its own copy). */
int trawl_ustctl_notify_ring_fd(const struct trawl_ustctl_notify_ring *r);
void trawl_ustctl_notify_ring_close_fd(struct trawl_ustctl_notify_ring *r);
/* The next record: 1 (@n filled), 0 (none complete yet), -EPROTO (a
 * malformed one, skipped: take the next). */
int trawl_ustctl_notify_ring_take(struct trawl_ustctl_notify_ring *r, struct trawl_ustctl_notification *n);
/* 1 if a record seems complete at the reader's position (a hint). */
int trawl_ustctl_notify_ring_pending(const struct trawl_ustctl_notify_ring *r);
/* What the app counts as dropped (ring full, payload too large): its word. */
void trawl_ustctl_notify_ring_dropped(const struct trawl_ustctl_notify_ring *r, uint64_t *full, uint64_t *big);
/* The ring head's drop counters (ustabi/notify.h TRAWL_NOTIFY_COUNTERS):
 * a notifier's is one of 1..this. */
#define TRAWL_USTCTL_NOTIFY_COUNTERS 256u
/* What the app counts in the head's drop counter @counter (1..
 * TRAWL_USTCTL_NOTIFY_COUNTERS: a notifier's, trawl_ustctl_app_send_notifier()),
 * its word; 0 for any other @counter. */
uint64_t trawl_ustctl_notify_ring_dropped_by(const struct trawl_ustctl_notify_ring *r, uint32_t counter);
void trawl_ustctl_notify_ring_destroy(struct trawl_ustctl_notify_ring *r);

/* The app stops using the channel and unmaps it (after stop + flush). */
int trawl_ustctl_app_release_channel(struct trawl_ustctl_app *app, uint32_t chan_handle);

/**
 * trawl_ustctl_app_registration_done - end of the app's initial setup
 *
 * Call once, right after accepting the app and giving it the channels,
 * enabled events and start of every active session that traces it (or
 * nothing, when none does). The app's start-up waits for it (bounded by
 * TRAWL_UST_REGISTER_TIMEOUT ms in the app, default 200), so that events
 * emitted at the top of main() are recorded. Returns 0, -EINVAL from an
 * app that predates the message (harmless: ignore it), or a socket error.
 *
 * It says nothing of EVENTS_ADDED (wire.h): the app registers again, on a
 * new connection, when its providers change.
 */
int trawl_ustctl_app_registration_done(struct trawl_ustctl_app *app);

/* trawl_ustctl_app_registration_done_flags(): the caller reads EVENTS_ADDED. */
#define TRAWL_USTCTL_DONE_TAKES_ADDED 1u
/* trawl_ustctl_app_refuse(): registered, and not traced by this daemon. */
#define TRAWL_USTCTL_DONE_REFUSED 2u

/**
 * trawl_ustctl_app_registration_done_flags - the same, with
 * TRAWL_USTCTL_DONE_* @flags
 *
 * With TRAWL_USTCTL_DONE_TAKES_ADDED the app adds the events of providers
 * that appear later on this connection (EVENTS_ADDED), and the caller
 * must read them: trawl_ustctl_app_recv_added() when the app's fd is
 * readable, trawl_ustctl_app_take_added() when notified. Call it again
 * after setting up each addition: the provider's constructor, in the app,
 * waits for it.
 */
int trawl_ustctl_app_registration_done_flags(struct trawl_ustctl_app *app, uint32_t flags);

/**
 * trawl_ustctl_app_recv_added - read the app's EVENTS_ADDED and its events
 *
 * Call when the app's fd is readable (an app speaks unasked only to add
 * events; EOF is it leaving: -ECONNRESET). Blocks up to
 * TRAWL_USTCTL_TIMEOUT_MS for the whole message. The new events get the
 * next indices (trawl_ustctl_app_event()); take them with
 * trawl_ustctl_app_take_added(). 0, -EPROTO (anything else, malformed, or
 * too many events), -ETIMEDOUT, -ECONNRESET, -ENOMEM: drop the app.
 */
int trawl_ustctl_app_recv_added(struct trawl_ustctl_app *app);

/* Events added since the last call: their count (0: none), the first's
 * index in *@first. An EVENTS_ADDED read while a command waited for its
 * reply is also counted here. */
uint32_t trawl_ustctl_app_take_added(struct trawl_ustctl_app *app, uint32_t *first);

/* An eventfd (the caller's; -1: none) that gets 1 added whenever events
 * were added while a command waited for its reply: the app's fd does not
 * become readable for those. */
void trawl_ustctl_app_set_notify_fd(struct trawl_ustctl_app *app, int fd);

/* ------------------------------------------------------------------ */
/* Buffer side: creation (session daemon).                            */
/* ------------------------------------------------------------------ */

/* Whose clock stamps a channel's events (ringbuffer.h's enum trawl_rb_clock). */
enum trawl_ustctl_clock_kind {
	TRAWL_USTCTL_CLOCK_MONOTONIC = 0, /* CLOCK_MONOTONIC, ns */
	TRAWL_USTCTL_CLOCK_APP = 1,       /* the app's own (a clock plugin's): only the app reads it */
	TRAWL_USTCTL_CLOCK_TSC = 2,       /* x86-64's invariant TSC, cycles */
};

/* The time of clock @kind now (not APP: 0); the TSC ordered after every
 * earlier instruction. */
uint64_t trawl_ustctl_clock_now(uint32_t kind);

struct trawl_ustctl_channel_attr {
	uint64_t subbuf_size;  /* bytes, power of two, >= 4096 */
	uint32_t num_subbuf;   /* power of two, >= 2 */
	uint32_t overwrite;    /* 0: discard (default), 1: overwrite */
	uint32_t nr_streams;   /* usually trawl_ustctl_possible_cpus(); <= TRAWL_USTCTL_MAX_STREAMS */
	uint32_t stream_id;    /* the CTF stream class id of this channel in the metadata */
	uint8_t uuid[16];      /* the trace's uuid (written in every packet header) */
	uint32_t clock;        /* enum trawl_ustctl_clock_kind: whose clock stamps the events */
	uint32_t reserved;
};

/* Number of possible CPUs (the default nr_streams), >= 1. */
uint32_t trawl_ustctl_possible_cpus(void);

/**
 * trawl_ustctl_channel_create - allocate a channel's buffers
 * @attr: copied
 * @chan: receives the channel; free it with trawl_ustctl_channel_destroy()
 *
 * Creates nr_streams sealed memfds (size fixed: an app can neither shrink nor
 * grow them). Returns 0, -EINVAL for bad sizes, -ENOMEM, or -errno.
 */
int trawl_ustctl_channel_create(const struct trawl_ustctl_channel_attr *attr,
				struct trawl_ustctl_channel **chan);

/**
 * trawl_ustctl_channel_create_in - a channel's buffers in files given
 * @attr: copied
 * @fds: nr_streams fds of new, empty regular files (a --shm-path session's,
 *       created as its owner), each of trawl_ustctl_stream_shm_size() bytes;
 *       taken in every case (closed on failure)
 * @chan: receives the channel; free it with trawl_ustctl_channel_destroy()
 *
 * As trawl_ustctl_channel_create(), but the files cannot be sealed: their
 * owner can shrink them (see docs/SECURITY.md). Returns 0 or a negative errno.
 */
int trawl_ustctl_channel_create_in(const struct trawl_ustctl_channel_attr *attr, int *fds,
				   struct trawl_ustctl_channel **chan);

/* Bytes of one stream's buffer file for @attr's sizes. */
uint64_t trawl_ustctl_stream_shm_size(const struct trawl_ustctl_channel_attr *attr);

/**
 * trawl_ustctl_channel_add_discarded - count @n more events discarded in
 * the channel (its first stream's lost-events counter: the consumer writes
 * it as the next packets' events_discarded)
 *
 * For events an app counted instead of recording them (TALLY): counted as
 * a tally's too (ringbuffer.h, lost_tally), which `trawl stop` says apart
 * from full buffers. The counters stop at 2^48 rather than wrap (a hostile app's counts, summed over
 * many streams, never wrap a 64-bit total). 0 or -errno (the mapping failed).
 */
int trawl_ustctl_channel_add_discarded(const struct trawl_ustctl_channel *chan, uint64_t n);

/* Closes the channel's fds (mappings already made elsewhere stay valid). */
void trawl_ustctl_channel_destroy(struct trawl_ustctl_channel *chan);

const struct trawl_ustctl_channel_attr *trawl_ustctl_channel_attr(const struct trawl_ustctl_channel *chan);

/*
 * trawl_ustctl_channel_memory - what the channel's buffers cost
 * @resident: receives the bytes of memory its stream files hold (the pages
 *            written so far: memfds, and --shm-path files, allocate a page
 *            on its first write), over every stream
 * @size: receives the bytes those files would hold if every page were
 *        written (each stream's trawl_ustctl_stream_shm_size())
 *
 * A stream whose CPU never traced costs its control pages only. 0 or
 * -errno (fstat() failed; the figures are then what the streams before it
 * hold).
 */
int trawl_ustctl_channel_memory(const struct trawl_ustctl_channel *chan, uint64_t *resident,
				uint64_t *size);

/* The memfd of stream @cpu, still owned by the channel (dup() it to keep it,
 * e.g. to pass it to the consumer with trawl_ustctl_send_fds()). -EINVAL if
 * out of range. */
int trawl_ustctl_channel_stream_fd(const struct trawl_ustctl_channel *chan, uint32_t cpu);

/*
 * The channel's eventfd, still owned by the channel, that its apps write
 * when they close a packet while the consumer sleeps (ringbuffer.h,
 * "Wake-ups"): sent to the consumer after the streams (consumer-proto.h)
 * and to each app of wire ABI minor >= 11 after them in CHANNEL. -1: none
 * (the consumer polls the channel).
 */
int trawl_ustctl_channel_wake_fd(const struct trawl_ustctl_channel *chan);
/*
 * The channel was given to an app that cannot wake the consumer (older
 * than wire ABI minor 11): counted in its first stream's control page, and
 * the consumer woken, so that it polls the channel from then on
 * (trawl_ustctl_stream_arm()). 0 or -errno.
 * trawl_ustctl_app_send_channel_opts() calls it.
 */
int trawl_ustctl_channel_mark_legacy(const struct trawl_ustctl_channel *chan);


/* ------------------------------------------------------------------ */
/* Buffer side: reading (consumer).                                   */
/* ------------------------------------------------------------------ */

struct trawl_ustctl_stream; /* the consumer's mapping of one stream */

/**
 * trawl_ustctl_stream_map - map one stream in the consumer
 * @fd: the stream's memfd; ownership passes to the stream on success
 * @attr: the channel's attributes, as the daemon created it (trusted: the
 *        size is checked against the fd, never read from the shared memory)
 * @cpu: the stream's cpu (packet context's cpu_id)
 * @stream_instance_id: written in every packet header (unique per stream
 *        file in the trace)
 * @stream: receives the stream; free with trawl_ustctl_stream_unmap()
 */
int trawl_ustctl_stream_map(int fd, const struct trawl_ustctl_channel_attr *attr, uint32_t cpu,
			    uint64_t stream_instance_id, struct trawl_ustctl_stream **stream);
void trawl_ustctl_stream_unmap(struct trawl_ustctl_stream *stream);

/**
 * trawl_ustctl_stream_resume - take over a stream from a consumer that died
 * @next_seq: the packet_seq_num of the first packet the stream's files lack
 *            (one past the last whole packet on disk; 0 when none), or
 *            UINT64_MAX when unknown (the packets go wherever they went)
 *
 * Call right after trawl_ustctl_stream_map() on the memfd the dead consumer
 * had. Reading carries on from the dead consumer's last packet given back
 * to the producers (ring buffer positions survive it, in the memfd): a
 * packet it took and wrote but did not give back (@next_seq says so) is
 * given back unwritten, one it took but did not write is read again. Returns
 * 0, or -ESTALE when the files and the buffer disagree (packets the dead
 * consumer took never reached the files): reading then follows the buffer,
 * and the trace shows a gap in packet_seq_num there.
 */
int trawl_ustctl_stream_resume(struct trawl_ustctl_stream *stream, uint64_t next_seq);

/* A finished packet, ready to be appended to the stream file as is. */
struct trawl_ustctl_packet {
	const void *data;          /* packet_size bytes; header and context filled in */
	uint64_t packet_size;      /* bytes (the sub-buffer size) */
	uint64_t content_size;     /* bytes: header + context + events */
	uint64_t timestamp_begin;  /* ns, CLOCK_MONOTONIC */
	uint64_t timestamp_end;
	uint64_t events_discarded; /* running count, as in the packet context */
	uint64_t packet_seq_num;
};

/**
 * trawl_ustctl_stream_get_packet - take the next finished packet, if any
 *
 * Non-blocking. Returns 0 with @pkt filled (valid until the matching
 * trawl_ustctl_stream_put_packet(), which must be called before the next
 * get), -EAGAIN when no packet is ready, or -EPROTO when the shared memory
 * was corrupted (the packet is skipped and counted; call again).
 * In overwrite mode the packet is a private copy checked not to have been
 * overwritten while copied; packets lost to overwriting show as gaps in
 * packet_seq_num.
 */
int trawl_ustctl_stream_get_packet(struct trawl_ustctl_stream *stream, struct trawl_ustctl_packet *pkt);

/* Gives the packet back to the producer. */
int trawl_ustctl_stream_put_packet(struct trawl_ustctl_stream *stream);

/*
 * trawl_ustctl_stream_snapshot_begin / _end - read a stream without
 * consuming it (LTTng's snapshots): between them, the packets taken are not
 * handed back to the writers (a discard-mode buffer stays as full as it
 * was), and _end puts the reader back where _begin found it, so the next
 * snapshot reads them again. Not with a stream that is also drained.
 */
void trawl_ustctl_stream_snapshot_begin(struct trawl_ustctl_stream *stream);
void trawl_ustctl_stream_snapshot_end(struct trawl_ustctl_stream *stream);

/**
 * trawl_ustctl_stream_flush - close the current partial packet now
 * @final: 1 at the end of tracing (stop): also waits (up to ~10 ms) for
 *         events still being written, and produces an empty packet if the
 *         stream holds none, so the last events_discarded count is on disk.
 *
 * Call from the switch timer (final = 0) and on stop (final = 1), then
 * drain with get/put. Returns 0, or -EAGAIN when the buffer is full (drain
 * first, then flush again).
 */
int trawl_ustctl_stream_flush(struct trawl_ustctl_stream *stream, int final);

/**
 * trawl_ustctl_stream_flush_live - the live timer's flush, with beacons
 *
 * As trawl_ustctl_stream_flush(@stream, 0), except that a stream with no
 * event since its last packet gets an empty packet (header and context
 * only, timestamp_begin == timestamp_end == the time it was cut,
 * events_discarded the stream's running count): on disk it says the stream
 * is quiet up to that time, which is what a live viewer waits for (LTTng's
 * live timer sends a "beacon" for such streams). Only for live sessions'
 * channels in discard mode: it takes a sub-buffer each period. Wait-free
 * for the traced app (one CAS on the reserve word, as any flush).
 * Returns 0, or -EAGAIN when the buffer is full (no room for an empty
 * packet; the packets waiting say more anyway).
 */
int trawl_ustctl_stream_flush_live(struct trawl_ustctl_stream *stream);

/*
 * trawl_ustctl_stream_arm - before the consumer sleeps (ringbuffer.h,
 * trawl_rb_reader_arm()): arms the stream, and returns its
 * TRAWL_RB_ARM_PENDING (a packet is closed that it has not taken: poll
 * again soon) and TRAWL_RB_ARM_LEGACY (writers that cannot wake it: poll)
 * bits; 0: sleep until the channel's eventfd is written.
 */
int trawl_ustctl_stream_arm(struct trawl_ustctl_stream *stream);

struct trawl_ustctl_stream_counters {
	uint64_t events_discarded;  /* buffer full (discard mode) + larger than a sub-buffer */
	uint64_t events_tallied;    /* of those, a tally's: recorded by a program no session
				       daemon had set up (dropped, or set up late) */
	uint64_t packets_read;      /* packets taken by this consumer */
	uint64_t packets_corrupt;   /* skipped by get_packet with -EPROTO */
	uint64_t bytes_produced;    /* bytes reserved by producers (modulo 2^36) */
	uint64_t bytes_in_buffer;   /* reserved and not yet released by the consumer, at
				       most the buffer's size: how full it is (LTTng's
				       monitor sample) */
};

int trawl_ustctl_stream_counters(const struct trawl_ustctl_stream *stream,
				 struct trawl_ustctl_stream_counters *counters);

#endif /* TRAWL_USTCTL_H */
