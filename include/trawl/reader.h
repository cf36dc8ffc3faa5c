/* SPDX-License-Identifier: MIT */
/*
 * libtrawl-reader: read CTF 1.8 traces (trawl's, LTTng's, barectf's...).
 *
 * Open one or more paths; every folder below them holding a `metadata` file
 * is a trace. Events of all streams of all traces come out merged in time
 * order, as babeltrace2 orders them: by time, then trace name, trace UUID,
 * stream class, stream and event class. Everything read from disk is
 * untrusted: a malformed trace gives an error naming the file, the offset
 * and the problem (trawl_reader_error()), never a crash.
 *
 *	#include <inttypes.h>
 *	#include <stdio.h>
 *	#include <trawl/reader.h>
 *
 *	int main(int argc, char **argv)
 *	{
 *		struct trawl_reader *r;
 *		const struct trawl_reader_field *payload, *f;
 *		int ret;
 *
 *		if (trawl_reader_open((const char *const *)argv + 1, argc - 1, &r) < 0) {
 *			fprintf(stderr, "%s\n", trawl_reader_error(r));
 *			trawl_reader_destroy(r);
 *			return 1;
 *		}
 *		while ((ret = trawl_reader_next(r)) > 0) {
 *			int64_t ns = 0;
 *
 *			trawl_reader_event_time_ns(r, &ns);
 *			printf("%" PRId64 " %s", ns, trawl_reader_event_name(r));
 *			if (trawl_reader_event_field(r, TRAWL_READER_SCOPE_EVENT_PAYLOAD,
 *						     &payload) == 0 &&
 *			    (f = trawl_reader_field_member(payload, "size")))
 *				printf(" size=%" PRIu64, trawl_reader_field_uint(f));
 *			printf("\n");
 *		}
 *		if (ret < 0)
 *			fprintf(stderr, "%s\n", trawl_reader_error(r));
 *		trawl_reader_destroy(r);
 *		return ret < 0;
 *	}
 *
 * The same events as babeltrace2's text lines, byte for byte:
 *
 *	struct trawl_reader_buf line = { 0 };
 *
 *	while ((ret = trawl_reader_next(r)) > 0) {
 *		line.len = 0;
 *		if ((ret = trawl_reader_event_append_line(r, &line)) < 0)
 *			break;
 *		fwrite(line.data, 1, line.len, stdout);
 *	}
 *	free(line.data);
 *
 * Lifetimes. Everything a function returns by pointer is borrowed from the
 * reader; the caller frees nothing but the reader (trawl_reader_destroy())
 * and the data of its own struct trawl_reader_buf (free()).
 *  - Traces, streams and event classes: valid until trawl_reader_destroy().
 *  - The current event's fields (struct trawl_reader_field, their names and
 *    strings) and trawl_reader_event_text(): valid until the next call of
 *    trawl_reader_next(), trawl_reader_seek_ns() or trawl_reader_destroy().
 *  - trawl_reader_error(): until the next call that can fail.
 *
 * Errors are negative errno values: -EINVAL (a malformed trace: see
 * trawl_reader_error()), -ENOMEM, -ENOENT (no such path or trace),
 * -ENODATA (the current event has no such thing), -EBUSY (a setting that
 * must come before the first trawl_reader_next()).
 *
 * Not thread-safe: one reader is used by one thread at a time. Several
 * readers of the same traces in several threads are fine.
 */
#ifndef TRAWL_READER_H
#define TRAWL_READER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct trawl_reader;			/* the traces being read, and a position */
struct trawl_reader_trace;		/* one trace (a folder with a metadata file) */
struct trawl_reader_stream;		/* one stream file of a trace */
struct trawl_reader_event_class;	/* what the metadata says of an event */
struct trawl_reader_field;		/* a field of the current event */

/*
 * A caller's growable text buffer, for the functions that append text.
 * Start with { 0 } (or any buffer from malloc()). The reader appends at
 * @len and grows @data with realloc() when @cap is too small; the caller
 * owns @data and frees it with free(). On error nothing is appended (@len
 * is as it was), though @data may have grown. The text is not NUL-
 * terminated.
 */
struct trawl_reader_buf {
	char *data;
	size_t len;		/* bytes used */
	size_t cap;		/* bytes allocated */
};

/* ---- opening ------------------------------------------------------------ */

/**
 * trawl_reader_open - finds the traces under @paths and opens them
 * @paths: folders; each is a trace (it holds a `metadata` file) or holds
 *         traces in its subfolders, found at any depth
 * @npaths: how many
 * @out: the reader, which the caller frees with trawl_reader_destroy()
 *
 * Stream files are mapped, not read: opening costs the metadata and one
 * packet header per file. Returns 0, or a negative errno; then, if *@out
 * is not NULL, it holds the error message (trawl_reader_error()) and must
 * be destroyed too.
 */
int trawl_reader_open(const char *const *paths, size_t npaths,
		      struct trawl_reader **out);

/**
 * trawl_reader_destroy - closes every file and frees @r and everything it
 * lent (traces, streams, classes, fields). NULL is fine.
 */
void trawl_reader_destroy(struct trawl_reader *r);

/**
 * trawl_reader_error - why the last call that failed failed, as one line
 * ("FILE: offset N: problem"); "" when it gave no reason. Borrowed from @r
 * until the next call that can fail (which clears it). @r may be NULL.
 */
const char *trawl_reader_error(const struct trawl_reader *r);

/* ---- following a live session (lttng-live) -------------------------------- */

/**
 * trawl_reader_open_live - follows a live session served by a relay daemon
 * (trawl-relayd, or LTTng's lttng-relayd) over LTTng's live protocol, as
 * babeltrace2's lttng-live source does
 * @url: net://HOST[:PORT]/host/HOSTNAME/SESSION (net4://, net6://, [v6]
 *       addresses; port 5344 by default)
 * @out: the reader, which the caller frees with trawl_reader_destroy()
 *
 * Attaches to every session of that name and host (LTTng's relay daemon
 * lists one per consumer: kernel, 32- and 64-bit user space). Then
 * trawl_reader_next() waits for events: it returns them in babeltrace2's
 * lttng-live order (time order across every stream, a stream waited for
 * until it has data or says, with an inactivity beacon, that it is quiet
 * up to some time), follows streams and traces that appear later and
 * metadata that grows, and returns 0 once every session ended (the relay
 * daemon hung up every stream) with every event shown. An error (the
 * relay daemon died: -ECONNRESET, ...) is returned once; what was
 * returned before stays valid. Every byte from the network is checked.
 *
 * Returns 0, or a negative errno with the message in
 * trawl_reader_error() when *@out is not NULL: -EINVAL (a bad URL, or no
 * session in it), -ENOENT (no such session), -ECONNREFUSED (nothing
 * listens), -EPROTO (the relay daemon refused). Seeking, time ranges and
 * stream intersection are not available on a live reader (-EOPNOTSUPP);
 * trawl_reader_trace_count() is 0 (each event's stream leads to its
 * trace: trawl_reader_stream_trace()).
 */
int trawl_reader_open_live(const char *url, struct trawl_reader **out);

/**
 * trawl_reader_live_time - how far a live reader's merge got: the time (ns
 * from the Epoch) of the last event returned or quiet time merged past.
 * Returns 0, or -ENODATA (not a live reader, or nothing merged yet).
 */
int trawl_reader_live_time(const struct trawl_reader *r, int64_t *ns);

typedef void (*trawl_reader_idle_fn)(void *arg);

/**
 * trawl_reader_set_idle_cb - a live reader calls @fn(@arg) each time it is
 * about to wait for the relay daemon to have more (to flush output that
 * was buffered, say). NULL: none.
 */
void trawl_reader_set_idle_cb(struct trawl_reader *r, trawl_reader_idle_fn fn, void *arg);

/* A session a relay daemon serves (trawl_reader_live_sessions()). */
struct trawl_reader_live_session {
	char url[640];		/* net://HOST:PORT/host/HOSTNAME/NAME, to follow it */
	char hostname[64];
	char name[256];
	uint64_t id;
	uint32_t live_timer_us;
	uint32_t streams;
	uint32_t clients;	/* viewers attached */
};

/**
 * trawl_reader_live_sessions - the sessions the relay daemon at @url
 * (net://HOST[:PORT], any path ignored) serves: *@out, @n of them, freed
 * by the caller with free(). Returns 0, or a negative errno with the
 * reason in @err (@errlen bytes).
 */
int trawl_reader_live_sessions(const char *url, struct trawl_reader_live_session **out,
			       size_t *n, char *err, size_t errlen);

/* ---- how to read (before the first trawl_reader_next()) ------------------ */

/*
 * The caller never looks at fields or text (it counts events, or checks a
 * trace decodes): each event's fields are then decoded with its header,
 * which is faster, and trawl_reader_event_field() and the text functions
 * fail with -EPERM.
 */
#define TRAWL_READER_NO_FIELDS 0x1u
/*
 * A live reader's trawl_reader_next() also returns 2, with no current
 * event, each time the merge moves past a time up to which a stream is
 * known quiet (an inactivity beacon): trawl_reader_live_time() then says
 * how far the session's time got though no event came (for a caller that
 * closes intervals of trace time as they pass). Ignored on traces on disk.
 */
#define TRAWL_READER_LIVE_QUIET 0x2u

/**
 * trawl_reader_set_flags - sets TRAWL_READER_* flags (replacing the ones
 * set). Returns 0, -EINVAL for an unknown flag, or -EBUSY after the first
 * trawl_reader_next().
 */
int trawl_reader_set_flags(struct trawl_reader *r, unsigned int flags);

/**
 * trawl_reader_set_clock_offset - adds @seconds and @ns to the offset of
 * every clock of every trace, as babeltrace2's --clock-offset and
 * --clock-offset-ns do (to align traces from machines whose clocks differ).
 * Event times, ranges and seeks are then in the shifted time. Returns 0 or
 * -EBUSY after the first trawl_reader_next().
 */
int trawl_reader_set_clock_offset(struct trawl_reader *r, int64_t seconds,
				  int64_t ns);

/**
 * trawl_reader_set_time_range - reads only the events from @begin_ns to
 * @end_ns included (ns from the Epoch; INT64_MIN and INT64_MAX for no
 * limit), as babeltrace2's --begin and --end: the reader seeks to
 * @begin_ns (packet indexes make that fast), stops after @end_ns, and
 * reports discarded events only within the range, clipped to it. Events of
 * streams without a clock have time 0. Returns 0, -EINVAL when @begin_ns is
 * after @end_ns, or -EBUSY after the first trawl_reader_next().
 */
int trawl_reader_set_time_range(struct trawl_reader *r, int64_t begin_ns,
				int64_t end_ns);

/**
 * trawl_reader_set_stream_intersection - reads, of each trace, only the
 * time every one of its streams covers (from the latest first packet to the
 * earliest last packet), as babeltrace2's --stream-intersection. Reads the
 * packet contexts of every stream once. Returns 0, -EINVAL when a trace has
 * no streams or its streams have no time in common (trawl_reader_error()
 * says which), or -EBUSY after the first trawl_reader_next().
 */
int trawl_reader_set_stream_intersection(struct trawl_reader *r);

/* ---- discarded events ---------------------------------------------------- */

enum trawl_reader_discarded_kind {
	TRAWL_READER_DISCARDED_EVENTS,	/* a packet's events_discarded went up */
	TRAWL_READER_DISCARDED_PACKETS,	/* a gap in packet_seq_num */
};

/*
 * What a stream says it lost between two of its packets. Filled by the
 * reader and lent to the callback for the time of the call.
 */
struct trawl_reader_discarded {
	size_t struct_size;	/* the size the reader filled (fields come only at the end) */
	enum trawl_reader_discarded_kind kind;
	uint64_t count;		/* events or packets lost */
	/*
	 * The tracer says they may have been lost, not that they were: the
	 * stream's first packet already counts them (before or within it), or
	 * the range was clipped to the time range read. babeltrace2 then says
	 * "may have discarded" and no count.
	 */
	int approximate;
	int has_range;		/* begin_ns/end_ns are known */
	int64_t begin_ns, end_ns;	/* when, in ns from the Epoch */
	const struct trawl_reader_stream *stream;
};

typedef void (*trawl_reader_discarded_fn)(void *arg,
					  const struct trawl_reader_discarded *d);

/**
 * trawl_reader_set_discarded_cb - calls @fn(@arg, record) for each loss of
 * events or packets, as babeltrace2 warns of them and in its order: from
 * trawl_reader_next(), before the first event at or after the loss began
 * (losses without a time range right away; the rest at the end). @fn may
 * be NULL (none; the default). @fn may use the accessors and
 * trawl_reader_discarded_append_text(), but must not move or destroy @r.
 */
void trawl_reader_set_discarded_cb(struct trawl_reader *r,
				   trawl_reader_discarded_fn fn, void *arg);

/**
 * trawl_reader_discarded_totals - events and packets lost in the packets
 * read so far (approximate counts included, and losses outside the time
 * range too). Either pointer may be NULL.
 */
void trawl_reader_discarded_totals(const struct trawl_reader *r,
				   uint64_t *events, uint64_t *packets);

/**
 * trawl_reader_discarded_append_text - appends babeltrace2's warning for
 * @d ("WARNING: Tracer discarded N events between [T1] and [T2] in trace
 * ... within stream ... .\n"), times formatted as the text options say.
 * Returns 0 or -ENOMEM.
 */
int trawl_reader_discarded_append_text(struct trawl_reader *r,
				       const struct trawl_reader_discarded *d,
				       struct trawl_reader_buf *buf);

/* ---- moving ------------------------------------------------------------- */

/**
 * trawl_reader_next - moves to the next event in time order. Returns 1
 * when an event is current, 0 at the end, a negative errno on error (then
 * the reader stays at the end); a live reader with TRAWL_READER_LIVE_QUIET
 * also 2 (no event: the session's time moved on).
 */
int trawl_reader_next(struct trawl_reader *r);

/**
 * trawl_reader_next_n - moves on by up to @max events, as that many
 * trawl_reader_next() calls would (each event decoded and checked the same
 * way), and stores in *@n how many it moved to. Returns what the last of
 * those calls returned: 1 (the last event moved to is current; *@n is
 * @max), 0 at the end, 2 (live, TRAWL_READER_LIVE_QUIET) or a negative
 * errno (-EINVAL: @max is 0); *@n counts the events moved to before it
 * in every case. With TRAWL_READER_NO_FIELDS, a run of one stream's
 * events before the next event of any other stream is decoded in a loop
 * of its own: for readers that look at few events (--decode-only, counts
 * every so many events).
 */
int trawl_reader_next_n(struct trawl_reader *r, uint64_t max, uint64_t *n);

/**
 * trawl_reader_seek_ns - positions the reader so that the next event is
 * the first one at or after @ns (ns from the Epoch; with a time range, not
 * before its beginning). Uses the packet index files when present, else a
 * binary search over packets. Returns 0 or a negative errno.
 */
int trawl_reader_seek_ns(struct trawl_reader *r, int64_t ns);

/**
 * trawl_reader_time_range - the time the traces span: the earliest packet
 * beginning and the latest packet end of all streams with a clock, in ns
 * from the Epoch. Reads the packet contexts (does not move the reader).
 * Returns 0, -ENODATA when no stream has times, or a negative errno.
 */
int trawl_reader_time_range(struct trawl_reader *r, int64_t *begin_ns,
			    int64_t *end_ns);

/**
 * trawl_reader_progress - how far reading got: the bytes of stream files
 * before the packets being read, or all of the files read to their end
 * (@done), out of all (@total). Either pointer may be NULL.
 */
void trawl_reader_progress(const struct trawl_reader *r, uint64_t *done,
			   uint64_t *total);

/* ---- the current event --------------------------------------------------- */

/**
 * trawl_reader_event_name - the current event's name ("<unknown>" when its
 * class has none, "" when there is no current event). Borrowed: valid
 * until trawl_reader_destroy().
 */
const char *trawl_reader_event_name(const struct trawl_reader *r);

/**
 * trawl_reader_event_class_of - the current event's class, or NULL when
 * there is no current event. Borrowed: valid until trawl_reader_destroy(),
 * so that a caller can key tables by it.
 */
const struct trawl_reader_event_class *
trawl_reader_event_class_of(const struct trawl_reader *r);

/**
 * trawl_reader_event_time_ns - the current event's time in ns from the
 * Epoch (the clock's origin, offsets applied). Returns 0, or -ENODATA when
 * there is no current event or its stream has no clock.
 */
int trawl_reader_event_time_ns(const struct trawl_reader *r, int64_t *ns);

/**
 * trawl_reader_event_cycles - the current event's time in its clock's
 * cycles, as babeltrace2's --clock-cycles prints it. Returns 0 or -ENODATA.
 */
int trawl_reader_event_cycles(const struct trawl_reader *r, uint64_t *cycles);

/**
 * trawl_reader_event_stream - the stream file the current event comes
 * from (NULL: no current event). Borrowed until trawl_reader_destroy();
 * its trace: trawl_reader_stream_trace().
 */
const struct trawl_reader_stream *
trawl_reader_event_stream(const struct trawl_reader *r);

/**
 * trawl_reader_event_cpu - the `cpu_id` of the current event's packet
 * context (LTTng's per-CPU streams). Returns 0, or -ENODATA when there is
 * no current event or its packet context has no cpu_id.
 */
int trawl_reader_event_cpu(const struct trawl_reader *r, uint64_t *cpu);

/* The field scopes of an event, as babeltrace2 names them. */
enum trawl_reader_scope {
	TRAWL_READER_SCOPE_PACKET_CONTEXT,	 /* stream.packet.context */
	TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT,   /* stream.event.context */
	TRAWL_READER_SCOPE_EVENT_SPECIFIC_CONTEXT, /* event.context */
	TRAWL_READER_SCOPE_EVENT_PAYLOAD,	 /* event.fields */
};

/**
 * trawl_reader_event_field - the current event's fields in @scope, as a
 * structure field (*@out) whose members are the fields babeltrace2 shows
 * (not the ones it keeps for itself: packet sizes, timestamps, sequence
 * numbers and events_discarded of the packet context, the event header).
 * The first call for an event decodes its fields; *@out is borrowed until
 * the next trawl_reader_next(), trawl_reader_seek_ns() or
 * trawl_reader_destroy(). Returns 0, -ENODATA when there is no current
 * event or the event has nothing in @scope, -EPERM with
 * TRAWL_READER_NO_FIELDS, or -EINVAL when the fields do not decode
 * (trawl_reader_error()).
 */
int trawl_reader_event_field(struct trawl_reader *r, enum trawl_reader_scope scope,
			     const struct trawl_reader_field **out);

/* ---- a few fields of many events, fast ------------------------------------- */

/*
 * trawl_reader_event_field() lists every field of an event as a tree. A
 * program that reads a few members of many events (a top-like view, an
 * aggregation) finds each member's index once per event class with
 * trawl_reader_event_class_field_index(), then reads it per event with the
 * functions below: the first of them for an event decodes its contexts and
 * payload into a flat list of their top-level members (compound members
 * are stepped over), which costs a fraction of the tree. Both ways can be
 * mixed on one event.
 *
 *	int tid = trawl_reader_event_class_field_index(ec,
 *			TRAWL_READER_SCOPE_EVENT_PAYLOAD, "next_tid");
 *	...for each event of class ec:
 *	int64_t v;
 *
 *	if (trawl_reader_event_int(r, TRAWL_READER_SCOPE_EVENT_PAYLOAD, tid, &v) == 0)
 *		...
 *
 * Each returns 0, or: -ENODATA when there is no current event, the event
 * has nothing in @scope or no member @index (a negative @index too, so
 * that the -ENOENT of a member a class lacks can be passed on as it is);
 * -ENOMSG when the member is of another kind (structures, arrays and
 * variants: use trawl_reader_event_field()); -EPERM with
 * TRAWL_READER_NO_FIELDS; -EINVAL when the fields do not decode
 * (trawl_reader_error()); -ENOMEM.
 */

/**
 * trawl_reader_event_int - member @index of @scope of the current event,
 * an integer or enum, to *@value (sign-extended when it is signed; an
 * unsigned value above INT64_MAX wraps, as trawl_reader_field_int()).
 */
int trawl_reader_event_int(struct trawl_reader *r, enum trawl_reader_scope scope,
			   int index, int64_t *value);

/**
 * trawl_reader_event_uint - the same as unsigned (a signed member gives
 * the bits of its two's complement, as trawl_reader_field_uint()).
 */
int trawl_reader_event_uint(struct trawl_reader *r, enum trawl_reader_scope scope,
			    int index, uint64_t *value);

/* trawl_reader_event_double - member @index, a float, to *@value. */
int trawl_reader_event_double(struct trawl_reader *r, enum trawl_reader_scope scope,
			      int index, double *value);

/**
 * trawl_reader_event_string - member @index, a string or a text array or
 * sequence: *@str, NUL-terminated (a text array cut at its first NUL, as
 * trawl_reader_field_string()), and its length in @len (may be NULL).
 * Borrowed as the current event's fields are (see Lifetimes).
 */
int trawl_reader_event_string(struct trawl_reader *r, enum trawl_reader_scope scope,
			      int index, const char **str, size_t *len);

/*
 * Several members of an event in one call: a program that reads the same
 * members of every event of a class lists them once per class (scope and
 * class index, as above) and reads them together per event, which spares
 * it one call, and one set of checks, per member.
 *
 *	struct trawl_reader_member want[2] = {
 *		{ TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT, tid_index },
 *		{ TRAWL_READER_SCOPE_EVENT_PAYLOAD, comm_index },
 *	};
 *	struct trawl_reader_value v[2];
 *
 *	if (trawl_reader_event_read(r, want, 2, v) == 0 && v[0].ret == 0)
 *		...v[0].i, and v[1].str when v[1].ret == 0
 */
struct trawl_reader_member {
	enum trawl_reader_scope scope;
	int index;	/* trawl_reader_event_class_field_index(); negative: none */
};

struct trawl_reader_value {
	/*
	 * 0, or what the accessor of its kind would have said of the member:
	 * -ENODATA (no such member, or a negative index), -ENOMSG (a
	 * structure, array, sequence or variant: trawl_reader_event_field()).
	 */
	int ret;
	/* with ret 0: the kind, and the members of that kind only (the others are not set) */
	int kind;		/* enum trawl_reader_field_kind: integer, enum, float or string */
	int64_t i;		/* integers and enums as trawl_reader_event_int(); strings: the length */
	double d;		/* floats */
	const char *str;	/* strings as trawl_reader_event_string() */
};

/**
 * trawl_reader_event_read - the members @members[0..@n) of the current
 * event into @values[0..@n), each as its kind's accessor above reads it.
 * Returns 0 when the event's fields decoded (each value's ret then says
 * whether its member was there; @n 0 only decodes them), or what those
 * accessors return for the event as a whole: -ENODATA (no current event),
 * -EPERM (TRAWL_READER_NO_FIELDS), -EINVAL (the fields do not decode:
 * trawl_reader_error()), -ENOMEM. A scope other than the four of
 * enum trawl_reader_scope makes its value -EINVAL.
 */
int trawl_reader_event_read(struct trawl_reader *r, const struct trawl_reader_member *members,
			    size_t n, struct trawl_reader_value *values);

/*
 * Fastest: the same members of every event of a class, compiled once per
 * class into a selection. The reader works out for each member where it
 * is and how to load it (for a class whose contexts and payload have the
 * same layout in every event: integers, floats and text arrays, no strings,
 * sequences or variants, a load at a fixed offset), so reading an event's
 * members is one pass over that list. Members of other classes' layouts
 * (strings, sequences, variants) and of the packet context are read as
 * trawl_reader_event_read() reads them. What each value's ret and kind
 * will be is known per class (trawl_reader_event_class_field_kind()), so
 * a caller may check them once, not per event.
 *
 *	...the first event of class ec:
 *	struct trawl_reader_member want[2] = {
 *		{ TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT, tid_index },
 *		{ TRAWL_READER_SCOPE_EVENT_PAYLOAD, ret_index },
 *	};
 *	struct trawl_reader_selection *sel;
 *
 *	if (trawl_reader_selection_create(ec, want, 2, &sel) < 0)
 *		...
 *	...for each event of class ec:
 *	struct trawl_reader_value v[2];
 *
 *	if (trawl_reader_event_read_selection(r, sel, v) == 0)
 *		...v[0].i, v[1].i
 *	...at the end:
 *	trawl_reader_selection_destroy(sel);
 */
struct trawl_reader_selection;

/**
 * trawl_reader_selection_create - compiles the members @members[0..@n)
 * (scope and index, as for trawl_reader_event_read()) of every event of
 * class @ec into *@out, which the caller frees with
 * trawl_reader_selection_destroy() (before or after the reader). The
 * list is copied. Returns 0, -EINVAL (@ec NULL, or @members NULL with @n
 * not 0) or -ENOMEM.
 */
int trawl_reader_selection_create(const struct trawl_reader_event_class *ec,
				  const struct trawl_reader_member *members, size_t n,
				  struct trawl_reader_selection **out);

/* trawl_reader_selection_destroy - frees @sel. NULL is fine. */
void trawl_reader_selection_destroy(struct trawl_reader_selection *sel);

/**
 * trawl_reader_event_read_selection - the members of @sel of the current
 * event into @values[0..n) (n: the count @sel was made with), each exactly
 * as trawl_reader_event_read() would read it. The current event must be
 * of the class @sel was made for, from the reader that lent that class.
 * Returns 0, or -ENODATA (no current event), -EPERM
 * (TRAWL_READER_NO_FIELDS), -EINVAL (an event of another class, or the
 * fields do not decode: trawl_reader_error()), -ENOMEM.
 */
int trawl_reader_event_read_selection(struct trawl_reader *r,
				      const struct trawl_reader_selection *sel,
				      struct trawl_reader_value *values);

/*
 * In place: the members of a selection loaded by the caller straight from
 * the event's bytes, with no call per member. For a class with a fixed
 * layout (see above), trawl_reader_selection_layout() says once per class
 * where each member sits in the event's body (the bytes from the start of
 * its common context to the end of its payload) and how to load it; per
 * event, trawl_reader_event_body() lends the body's first byte, checked to
 * hold the whole layout within its packet. Each load gives the value
 * trawl_reader_event_read_selection() would give. A member that is not in
 * place (TRAWL_READER_LOAD_NONE: a string, a sequence, the packet context,
 * another byte order, a float), and every member of an event whose body
 * is not lent (NULL), are read with trawl_reader_event_read_selection().
 *
 *	...the first event of class ec: sel of { common context, tid_index }
 *	struct trawl_reader_layout tid;
 *	int in_place = trawl_reader_selection_layout(sel, 0, &tid) == 0 &&
 *		       tid.load == TRAWL_READER_LOAD_INT && tid.size == 4;
 *	...for each event of class ec:
 *	const unsigned char *body = in_place ? trawl_reader_event_body(r, sel) : NULL;
 *	struct trawl_reader_value v[1];
 *	int32_t t32;
 *	int64_t t;
 *
 *	if (body) {
 *		memcpy(&t32, body + tid.offset, sizeof(t32));
 *		t = t32;
 *	} else if (trawl_reader_event_read_selection(r, sel, v) == 0) {
 *		t = v[0].i;
 *	}
 */

/* How a member is loaded from the body (struct trawl_reader_layout). */
enum trawl_reader_load {
	TRAWL_READER_LOAD_NONE,	/* not in place: trawl_reader_event_read_selection() */
	/* an integer or enum of @size bytes (1, 2, 4 or 8) in the machine's byte order */
	TRAWL_READER_LOAD_UINT,	/* unsigned: zero-extended to the value's i */
	TRAWL_READER_LOAD_INT,	/* signed (two's complement): sign-extended */
	/*
	 * a text array of @size bytes: the string is its bytes up to the
	 * first NUL, or all @size of them when it has none
	 */
	TRAWL_READER_LOAD_TEXT,
};

struct trawl_reader_layout {
	int load;		/* enum trawl_reader_load */
	uint32_t offset;	/* bytes from the body's first byte (unaligned: use memcpy()) */
	uint32_t size;		/* bytes */
};

/**
 * trawl_reader_selection_layout - where member @i of @sel (its index in the
 * list it was made with) sits in the body of every event of its class, and
 * how to load it, into *@out; load TRAWL_READER_LOAD_NONE when it is not in
 * place (the class has no fixed layout, or the member is not in it).
 * Returns 0, or -EINVAL when @sel has no member @i.
 */
int trawl_reader_selection_layout(const struct trawl_reader_selection *sel, size_t i,
				  struct trawl_reader_layout *out);

/**
 * trawl_reader_event_body - the current event's body, for loading the
 * members of @sel trawl_reader_selection_layout() says are in place: its
 * first byte, all of the layout's bytes checked to be within its packet.
 * Borrowed as the current event's fields are (see Lifetimes). NULL when
 * the reader does not lend it: no current event, an event of another
 * class than @sel's, a class without a fixed layout, a body not aligned as
 * the layout needs (the header before it was of another size) or that
 * does not fit its packet, TRAWL_READER_NO_FIELDS; then
 * trawl_reader_event_read_selection() reads the members, and says what is
 * wrong. Sets no error (trawl_reader_error() is left as it was).
 */
const void *trawl_reader_event_body(struct trawl_reader *r,
				    const struct trawl_reader_selection *sel);

/* ---- fields --------------------------------------------------------------- */

enum trawl_reader_field_kind {
	TRAWL_READER_FIELD_INTEGER,	/* signed or not: trawl_reader_field_is_signed() */
	TRAWL_READER_FIELD_ENUM,	/* an integer with labels */
	TRAWL_READER_FIELD_FLOAT,
	TRAWL_READER_FIELD_STRING,	/* strings and text arrays/sequences */
	TRAWL_READER_FIELD_STRUCT,	/* members: count and at/member */
	TRAWL_READER_FIELD_ARRAY,	/* fixed length; elements: count and at */
	TRAWL_READER_FIELD_SEQUENCE,	/* length from another field; same */
	TRAWL_READER_FIELD_VARIANT,	/* one member: the selected option */
};

/* trawl_reader_field_kind - what @f holds. */
enum trawl_reader_field_kind trawl_reader_field_kind(const struct trawl_reader_field *f);

/**
 * trawl_reader_field_name - @f's name in the structure holding it, as
 * babeltrace2 shows it (a leading underscore removed), or the option's
 * name for a variant's member; NULL for array elements and scopes.
 */
const char *trawl_reader_field_name(const struct trawl_reader_field *f);

/**
 * trawl_reader_field_count - how many members (structure), elements (array,
 * sequence) or options (variant: 1) @f has; 0 for other kinds.
 */
size_t trawl_reader_field_count(const struct trawl_reader_field *f);

/* trawl_reader_field_at - member or element @i of @f, or NULL past the end. */
const struct trawl_reader_field *
trawl_reader_field_at(const struct trawl_reader_field *f, size_t i);

/**
 * trawl_reader_field_member - the member of structure (or the option of
 * variant) @f named @name, or NULL. A linear search: to read one member of
 * many events, find its index once with trawl_reader_event_class_field_index().
 */
const struct trawl_reader_field *
trawl_reader_field_member(const struct trawl_reader_field *f, const char *name);

/* trawl_reader_field_is_signed - 1 for a signed integer or enum, else 0. */
int trawl_reader_field_is_signed(const struct trawl_reader_field *f);

/**
 * trawl_reader_field_base - the base babeltrace2 prints an integer or enum
 * in (2, 8, 10 or 16); 0 for other kinds.
 */
unsigned int trawl_reader_field_base(const struct trawl_reader_field *f);

/**
 * trawl_reader_field_uint, trawl_reader_field_int - an integer's or enum's
 * value (as unsigned, or sign-extended); 0 for other kinds. For a signed
 * field, trawl_reader_field_uint() gives the bits of the two's complement.
 */
uint64_t trawl_reader_field_uint(const struct trawl_reader_field *f);
int64_t trawl_reader_field_int(const struct trawl_reader_field *f);

/* trawl_reader_field_double - a float's value; 0 for other kinds. */
double trawl_reader_field_double(const struct trawl_reader_field *f);

/**
 * trawl_reader_field_string - a string's bytes, NUL-terminated (a text
 * array is cut at its first NUL, as babeltrace2 prints it), and in @len
 * (may be NULL) its length; NULL for other kinds. Not necessarily valid
 * UTF-8: it is what the trace holds.
 */
const char *trawl_reader_field_string(const struct trawl_reader_field *f,
				      size_t *len);

/**
 * trawl_reader_field_enum_labels - the labels of every range of enum @f
 * holding its value, in the order the metadata declares them (babeltrace2
 * prints them all; none: "<unknown>"). Writes at most @max of them to
 * @labels (borrowed until trawl_reader_destroy()) and returns how many
 * there are (0 for other kinds).
 */
size_t trawl_reader_field_enum_labels(const struct trawl_reader_field *f,
				      const char **labels, size_t max);

/* ---- event classes --------------------------------------------------------- */

/* The name, or "<unknown>" for a class without one. */
const char *trawl_reader_event_class_name(const struct trawl_reader_event_class *ec);
/* The id, unique in its stream class. */
uint64_t trawl_reader_event_class_id(const struct trawl_reader_event_class *ec);
/* The id of its stream class. */
uint64_t trawl_reader_event_class_stream_class_id(const struct trawl_reader_event_class *ec);

/**
 * trawl_reader_event_class_loglevel - the class's log level (LTTng's 0
 * TRACE_EMERG .. 14 TRACE_DEBUG). Returns 0, or -ENODATA when the metadata
 * gives none.
 */
int trawl_reader_event_class_loglevel(const struct trawl_reader_event_class *ec,
				      int64_t *level);

/* The class's model.emf.uri, or NULL. */
const char *trawl_reader_event_class_emf_uri(const struct trawl_reader_event_class *ec);

/**
 * trawl_reader_event_class_field_index - the position of member @name in
 * the fields of @scope of every event of class @ec (for
 * trawl_reader_field_at(), the same for every event of the class).
 * Returns it, or -ENOENT when the scope has no such member shown.
 */
int trawl_reader_event_class_field_index(const struct trawl_reader_event_class *ec,
					 enum trawl_reader_scope scope,
					 const char *name);

/**
 * trawl_reader_event_class_field_kind - the kind of member @index of
 * @scope of every event of class @ec (a text array or sequence is a
 * string): what trawl_reader_event_read() and
 * trawl_reader_event_read_selection() give as that member's kind, their
 * ret being 0 for integers, enums, floats and strings and -ENOMSG for the
 * other kinds. Returns the kind (enum trawl_reader_field_kind), -ENODATA
 * when the scope has no member @index (a negative one too) or -EINVAL for
 * an unknown scope.
 */
int trawl_reader_event_class_field_kind(const struct trawl_reader_event_class *ec,
					enum trawl_reader_scope scope, int index);

/* ---- traces and streams ------------------------------------------------------ */

/* trawl_reader_trace_count, trawl_reader_trace_at - the traces found, in path order. */
size_t trawl_reader_trace_count(const struct trawl_reader *r);
const struct trawl_reader_trace *trawl_reader_trace_at(const struct trawl_reader *r,
						       size_t i);

/**
 * trawl_reader_trace_name - the trace's name as babeltrace2 shows it (the
 * hostname and the folder's path below the path given, e.g.
 * "myhost/kernel"). Folders sharing a trace UUID (LTTng's rotation chunks)
 * are one trace for babeltrace2: they share the name.
 */
const char *trawl_reader_trace_name(const struct trawl_reader_trace *t);

/* trawl_reader_trace_path - the trace's folder, as found. */
const char *trawl_reader_trace_path(const struct trawl_reader_trace *t);

/**
 * trawl_reader_trace_uuid - copies the trace's UUID to @uuid. Returns 0 or
 * -ENODATA when the metadata has none.
 */
int trawl_reader_trace_uuid(const struct trawl_reader_trace *t, uint8_t uuid[16]);

/**
 * trawl_reader_trace_env_count, trawl_reader_trace_env_name - the names in
 * the metadata's env block (hostname, domain "kernel" or "ust", tracer_name,
 * procname, vpid...), in order; NULL past the end.
 */
size_t trawl_reader_trace_env_count(const struct trawl_reader_trace *t);
const char *trawl_reader_trace_env_name(const struct trawl_reader_trace *t, size_t i);

/* trawl_reader_trace_env_string - env entry @name if it is a string, else NULL. */
const char *trawl_reader_trace_env_string(const struct trawl_reader_trace *t,
					  const char *name);

/**
 * trawl_reader_trace_env_int - env entry @name, if it is an integer, to
 * *@value. Returns 0 or -ENOENT.
 */
int trawl_reader_trace_env_int(const struct trawl_reader_trace *t, const char *name,
			       int64_t *value);

/**
 * trawl_reader_trace_metadata - the trace's TSDL metadata text (plain,
 * whatever form the file had), NUL-terminated; its length in @len (may be
 * NULL).
 */
const char *trawl_reader_trace_metadata(const struct trawl_reader_trace *t,
					size_t *len);

/* trawl_reader_trace_stream_count, trawl_reader_trace_stream_at - its stream files. */
size_t trawl_reader_trace_stream_count(const struct trawl_reader_trace *t);
const struct trawl_reader_stream *
trawl_reader_trace_stream_at(const struct trawl_reader_trace *t, size_t i);

/* trawl_reader_stream_trace - the trace @s belongs to. */
const struct trawl_reader_trace *
trawl_reader_stream_trace(const struct trawl_reader_stream *s);

/* trawl_reader_stream_path - the stream file's absolute path. */
const char *trawl_reader_stream_path(const struct trawl_reader_stream *s);

/* trawl_reader_stream_class_id - the id of its stream class. */
uint64_t trawl_reader_stream_class_id(const struct trawl_reader_stream *s);

/**
 * trawl_reader_stream_id - the data stream's id: its packet header's
 * stream_instance_id, else its order among its trace's files. Files of
 * one trace with the same stream class and id are one data stream, read
 * one after the other (LTTng's trace file rotation).
 */
uint64_t trawl_reader_stream_id(const struct trawl_reader_stream *s);

/* ---- one packet alone ---------------------------------------------------------- */

/**
 * trawl_reader_packet_count_events - how many events one packet holds
 * @metadata, @len: the trace's TSDL metadata text (plain, not packetized)
 * @packet, @size: one whole packet of a stream of that trace, @size bytes
 *                 (its packet_size must not exceed them); read as hostile
 *                 input, and only read, for the duration of the call
 * @count: receives the number of events
 *
 * Decodes the packet on its own, every event to its end, as
 * trawl_reader_next() would (for a packet that could not be written, whose
 * events are to be counted as lost). Returns 0, or -EINVAL when the
 * metadata does not parse, the packet does not decode to its end with it,
 * or memory to decode it ran out.
 */
int trawl_reader_packet_count_events(const char *metadata, size_t len, const void *packet,
				     size_t size, uint64_t *count);

/* ---- babeltrace2's text ------------------------------------------------------ */

/* Field names printed: babeltrace2's --names. */
#define TRAWL_READER_TEXT_NAMES_PAYLOAD 0x1u	/* payload */
#define TRAWL_READER_TEXT_NAMES_CONTEXT 0x2u	/* context */
#define TRAWL_READER_TEXT_NAMES_SCOPE 0x4u	/* scope: "stream.packet.context = "... */
#define TRAWL_READER_TEXT_NAMES_HEADER 0x8u	/* header: "timestamp = ", "name = "... */

/* Trace and event fields printed: babeltrace2's --fields. */
#define TRAWL_READER_TEXT_FIELD_TRACE 0x1u	/* trace */
#define TRAWL_READER_TEXT_FIELD_HOSTNAME 0x2u	/* trace:hostname */
#define TRAWL_READER_TEXT_FIELD_DOMAIN 0x4u	/* trace:domain */
#define TRAWL_READER_TEXT_FIELD_PROCNAME 0x8u	/* trace:procname */
#define TRAWL_READER_TEXT_FIELD_VPID 0x10u	/* trace:vpid */
#define TRAWL_READER_TEXT_FIELD_LOGLEVEL 0x20u	/* loglevel */
#define TRAWL_READER_TEXT_FIELD_EMF 0x40u	/* emf */
#define TRAWL_READER_TEXT_FIELD_CALLSITE 0x80u	/* callsite (accepted, prints nothing, as babeltrace2) */

/* Times: babeltrace2's --no-delta and --clock-* options. */
#define TRAWL_READER_TEXT_NO_DELTA 0x1u		/* no "(+S.NS)" since the previous line */
#define TRAWL_READER_TEXT_CLOCK_CYCLES 0x2u	/* times in cycles */
#define TRAWL_READER_TEXT_CLOCK_DATE 0x4u	/* "YYYY-MM-DD " before the time */
#define TRAWL_READER_TEXT_CLOCK_GMT 0x8u	/* UTC, not local time (TZ) */
#define TRAWL_READER_TEXT_CLOCK_SECONDS 0x10u	/* seconds since the Epoch */

struct trawl_reader_text_options {
	/* sizeof(struct trawl_reader_text_options) as the caller compiled it */
	size_t struct_size;
	unsigned int names;	/* TRAWL_READER_TEXT_NAMES_* */
	unsigned int fields;	/* TRAWL_READER_TEXT_FIELD_* */
	unsigned int flags;	/* TRAWL_READER_TEXT_NO_DELTA, _CLOCK_* */
};

/**
 * trawl_reader_text_options_init - fills @o with babeltrace2's defaults:
 * names of payload and context fields, the trace's hostname, procname and
 * vpid when it has them, local time of day with the delta.
 */
void trawl_reader_text_options_init(struct trawl_reader_text_options *o);

/**
 * trawl_reader_set_text_options - how the text functions print from now on
 * (before any: the defaults). The reader copies @o; an @o from an older
 * header (smaller struct_size) leaves the newer options at their defaults.
 * Returns 0 or -EINVAL (an unknown bit, or a struct_size too small).
 */
int trawl_reader_set_text_options(struct trawl_reader *r,
				  const struct trawl_reader_text_options *o);

/**
 * trawl_reader_event_append_line - appends the current event as
 * babeltrace2's text output prints it: one whole line, "\n" included
 * ("[22:13:20.510419021] (+0.000001222) host name: { cpu_id = 0 }, ...").
 * The delta is from the previous line appended (by this function), so
 * events a caller skips do not count. Returns 0, -ENODATA (no current
 * event), -EPERM (TRAWL_READER_NO_FIELDS), -EINVAL (the fields do not
 * decode: trawl_reader_error()) or -ENOMEM; on error nothing is appended.
 */
int trawl_reader_event_append_line(struct trawl_reader *r,
				   struct trawl_reader_buf *buf);

/**
 * trawl_reader_append_lines - moves on to the next event and appends its
 * line, as trawl_reader_next() then trawl_reader_event_append_line() would,
 * until @max lines are appended or @buf holds @limit bytes or more (one
 * line at least is tried), and stores in *@n how many lines it appended.
 * Returns 1 (the last event moved to is current, its line appended), 0 at
 * the end, 2 (live, TRAWL_READER_LIVE_QUIET) or a negative errno: from
 * moving on, as trawl_reader_next(), or from the line, as
 * trawl_reader_event_append_line() (then that event is current and its
 * line is not in @buf); -EINVAL when @max is 0. For readers that print
 * every event: one call for many lines.
 */
int trawl_reader_append_lines(struct trawl_reader *r, struct trawl_reader_buf *buf,
			      uint64_t max, size_t limit, uint64_t *n);

/**
 * trawl_reader_event_text - the current event's fields as the line shows
 * them, without the time, trace and name before them and without the
 * newline ("{ cpu_id = 0 }, { a = 1, s = \"x\" }"), in a buffer owned by
 * @r (borrowed until the next trawl_reader_next(), trawl_reader_seek_ns()
 * or trawl_reader_destroy(); NUL-terminated, length in @len). Returns 0 or
 * a negative errno as trawl_reader_event_append_line().
 */
int trawl_reader_event_text(struct trawl_reader *r, const char **text,
			    size_t *len);

/**
 * trawl_reader_append_time - appends @ns (ns from the Epoch) as the lines
 * show a time ("22:13:20.510419021", with the date, in UTC or in seconds
 * as the text options say; in seconds too when negative). Returns 0 or
 * -ENOMEM.
 */
int trawl_reader_append_time(struct trawl_reader *r, int64_t ns,
			     struct trawl_reader_buf *buf);

typedef void (*trawl_reader_warning_fn)(void *arg, const char *msg);

/**
 * trawl_reader_set_warning_cb - calls @fn(@arg, message) for what
 * babeltrace2's text output warns of on its standard error, once each
 * ("[warning] Fallback to [sec.ns] to print negative time value. Use
 * --clock-seconds.", "[warning] Unable to get localtime."). The message,
 * one line without its newline, is borrowed for the time of the call.
 * @fn may be NULL (none; the default): the library itself never prints.
 */
void trawl_reader_set_warning_cb(struct trawl_reader *r, trawl_reader_warning_fn fn,
				 void *arg);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_READER_H */
