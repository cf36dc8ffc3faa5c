/* SPDX-License-Identifier: MIT */
/*
 * proto.h - the ctl protocol between libtrawl-ctl (client) and
 * trawl-sessiond (server), over the Unix socket `sessiond.sock`.
 *
 * One request, one reply, on a connection that may carry many. Each message
 * is a header followed by `size` bytes of payload:
 *
 *   request:  hdr{cmd, size = sizeof(req)}    req
 *   reply:    hdr{cmd, status, size}          reply_head  record[nr_records]
 *
 * A reply's records are what the public API hands out as typed records
 * (struct trawl_ctl_*_info in <trawl/ctl.h>), in a wire form of their own:
 *
 *   record:   rec{size, kind, nr_strings}  body  string[nr_strings]  0..7 NULs
 *
 * `body` is the kind's fixed-width struct below; each string ends with its
 * NUL; `size` counts everything, padded to a multiple of 8 bytes. The wire
 * structs are not the public ones: they have no pointers, only fixed-width
 * fields, and change only with TRAWL_CTL_VERSION, which a peer checks
 * first. Enum fields carry the values of <trawl/ctl-types.h> unconverted.
 *
 * The receiver trusts nothing: it reads exactly `size` bytes (bounded by
 * TRAWL_CTL_MAX_PAYLOAD) and checks every field with trawl_ctl_req_check() /
 * trawl_ctl_reply_check() before use. The daemon treats each request as
 * hostile (any local user may connect to root's socket); the library checks
 * replies just as hard. fuzz/ctl feeds both checks random bytes.
 */
#ifndef TRAWL_CTL_PROTO_H
#define TRAWL_CTL_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/ctl-types.h"

#define TRAWL_CTL_MAGIC 0x4c435254u /* "TRCL" */
/* 2: typed records in replies instead of positional items; live timer field.
 * 3: process-attribute trackers (TRACK/UNTRACK, req.process_attr and
 *    req.value, TRACKER and TRACKER_VALUE records).
 * 4: REGENERATE_METADATA, REGENERATE_STATEDUMP.
 * 5: CLEAR, ROTATE (ROTATION record), ROTATION_SET, ROTATION_UNSET
 *    (req.rotation_kind, req.rotation_value).
 * 6: ROTATION_SCHEDULE records in LIST_SESSION's reply.
 * 7: snapshot outputs (SNAPSHOT_ADD/DEL/LIST_OUTPUT, SNAPSHOT_OUTPUT records,
 *    req.max_size); SNAPSHOT_RECORD takes an output name, URL and size.
 * 9: trace file limits: req.tracefile_size and req.tracefile_count
 *    (ENABLE_CHANNEL), the same in CHANNEL records.
 * 10: channel blocking timeout (req.blocking_timeout_us, the channel record's
 *    blocking_timeout_us).
 * 11: triggers: ADD_TRIGGER, LIST_TRIGGERS, REMOVE_TRIGGER (req.trigger,
 *    TRIGGER and TRIGGER_ACTION records).
 * 12: SET_SHM_PATH (create --shm-path); the SESSION record's third string,
 *    shm_path.
 * 13: per-channel counters in CHANNEL records (discarded_events, lost_packets);
 *    channel output type (req.chan_output, was reserved2; the CHANNEL record's output).
 * 14: NOTIFY_WAIT (req.rotation_value: the cursor, req.value: ms), NOTIFY_CURSOR
 *    and NOTIFICATION records: triggers' notify action.
 * 15: channel monitor timer (req.monitor_timer_us, was reserved; the channel
 *    record's monitor_timer_us, was reserved): what buffer-usage and
 *    session-consumed-size triggers sample.
 * 16: the DOMAIN record's events_tallied.
 * 17: the CHANNEL record's memory_resident and memory_size (list SESSION:
 *    what its buffers hold, LTTng 2.15's "Memory usage").
 * 18: the agent domains JUL, LOG4J, PYTHON (req.domain, every record's
 *    domain); their log levels are any int32 (req.loglevel, EVENT records).
 * 19: a trigger's snapshot action keeps the -C/-D URLs its output was given
 *    as (req.trigger.actions[].ctrl_url, data_url; the TRIGGER_ACTION
 *    record's fourth and fifth strings).
 * 20: kernel probe triggers (event_kind PROBE or USERSPACE_PROBE, the
 *    location in req.target, the event name in req.name; the TRIGGER
 *    record's eighth string is the location).
 * 21: the reply's err holds TRAWL_CTL_ERROR_MAX 1024 bytes (was 256: a
 *    rotation's line, the consumer's behind the daemon's words, was cut).
 * 22: the TRIGGER record's discarded (list-triggers' "discarded tracer
 *    messages"). */
#define TRAWL_CTL_VERSION 22u

/* Bounds on a reply: what a client allocates for one. */
#define TRAWL_CTL_MAX_RECORDS (1u << 20)
#define TRAWL_CTL_MAX_PAYLOAD (64u << 20) /* bytes */

/* The last value of each enum the protocol knows. */
#define TRAWL_CTL_WIRE_DOMAIN_LAST TRAWL_CTL_DOMAIN_PYTHON
#define TRAWL_CTL_WIRE_EVENT_KIND_LAST TRAWL_CTL_EVENT_USERSPACE_PROBE
#define TRAWL_CTL_WIRE_LOGLEVEL_TYPE_LAST TRAWL_CTL_LOGLEVEL_SINGLE
#define TRAWL_CTL_WIRE_BUFFERS_LAST TRAWL_CTL_BUFFERS_GLOBAL
#define TRAWL_CTL_WIRE_LOGLEVEL_MAX 14
/* An agent domain (its log levels are the framework's, any int32). */
#define TRAWL_CTL_WIRE_IS_AGENT(d) ((d) >= TRAWL_CTL_DOMAIN_JUL && (d) <= TRAWL_CTL_DOMAIN_PYTHON)
#define TRAWL_CTL_WIRE_PROCESS_ATTR_LAST TRAWL_CTL_PROCESS_ATTR_VGID
#define TRAWL_CTL_WIRE_ROTATION_LAST TRAWL_CTL_ROTATION_SIZE
#define TRAWL_CTL_WIRE_CONDITION_LAST TRAWL_CTL_CONDITION_BUFFER_USAGE_LOW
#define TRAWL_CTL_WIRE_ACTION_LAST TRAWL_CTL_ACTION_SNAPSHOT_SESSION
#define TRAWL_CTL_WIRE_RATE_LAST TRAWL_CTL_RATE_ONCE_AFTER_N
#define TRAWL_CTL_WIRE_RATIO_ONE 1000000u /* a buffer-usage ratio of 1, in millionths */
#define TRAWL_CTL_WIRE_OUTPUT_LAST TRAWL_CTL_OUTPUT_MMAP

enum trawl_ctl_cmd {
	TRAWL_CTL_CMD_PING = 1,
	TRAWL_CTL_CMD_CREATE = 2,          /* reply: one SESSION record */
	TRAWL_CTL_CMD_DESTROY = 3,
	TRAWL_CTL_CMD_ENABLE_CHANNEL = 4,
	TRAWL_CTL_CMD_DISABLE_CHANNEL = 5,
	TRAWL_CTL_CMD_ENABLE_EVENT = 6,
	TRAWL_CTL_CMD_DISABLE_EVENT = 7,
	TRAWL_CTL_CMD_ADD_CONTEXT = 8,
	TRAWL_CTL_CMD_START = 9,
	TRAWL_CTL_CMD_STOP = 10,
	TRAWL_CTL_CMD_LIST_SESSIONS = 11,
	TRAWL_CTL_CMD_LIST_SESSION = 12,   /* one session: domains, channels, events */
	TRAWL_CTL_CMD_LIST_AVAILABLE = 13, /* events a domain offers */
	/* session; name, output, max_size override the session's outputs (""
	 * and TRAWL_CTL_SIZE_UNSET: theirs); reply: a SNAPSHOT record per output */
	TRAWL_CTL_CMD_SNAPSHOT_RECORD = 14,
	TRAWL_CTL_CMD_QUIT = 15,           /* daemon exits (its owner or root only) */
	TRAWL_CTL_CMD_TRACK = 16,   /* domain, process_attr, value (or F_ALL): include */
	TRAWL_CTL_CMD_UNTRACK = 17, /* domain, process_attr, value (or F_ALL): exclude */
	TRAWL_CTL_CMD_REGENERATE_METADATA = 18,  /* session: its metadata files rewritten */
	TRAWL_CTL_CMD_REGENERATE_STATEDUMP = 19, /* session: its state dump written again */
	TRAWL_CTL_CMD_CLEAR = 20,          /* session: buffers discarded, trace files deleted */
	TRAWL_CTL_CMD_ROTATE = 21,         /* session: reply: one ROTATION record */
	TRAWL_CTL_CMD_ROTATION_SET = 22,   /* session, rotation_kind, rotation_value */
	TRAWL_CTL_CMD_ROTATION_UNSET = 23, /* session, rotation_kind */
	/* session, name ("" = snapshot-ID), output (folder or URL), max_size:
	 * reply: the new SNAPSHOT_OUTPUT record */
	TRAWL_CTL_CMD_SNAPSHOT_ADD_OUTPUT = 24,
	TRAWL_CTL_CMD_SNAPSHOT_DEL_OUTPUT = 25,  /* session, value (id) or name */
	TRAWL_CTL_CMD_SNAPSHOT_LIST_OUTPUT = 26, /* session: its SNAPSHOT_OUTPUT records */
	/* req.trigger (its condition's event rule in domain, event_kind, name,
	 * filter, loglevel*, exclusions; its session and channel in session,
	 * channel); F_OWNER: as user req.value (root only); reply: its TRIGGER
	 * record then its TRIGGER_ACTION records */
	TRAWL_CTL_CMD_ADD_TRIGGER = 27,
	/* reply: each trigger the client may see (root: all), as ADD_TRIGGER's */
	TRAWL_CTL_CMD_LIST_TRIGGERS = 28,
	/* req.trigger.name; F_OWNER: the trigger of user req.value (root only) */
	TRAWL_CTL_CMD_REMOVE_TRIGGER = 29,
	/* session, output (an absolute folder): the user-space buffers of the
	 * session's traces are files under it (LTTng's set_session_shm_path) */
	TRAWL_CTL_CMD_SET_SHM_PATH = 30,
	/* The notifications of the client's triggers (their notify action)
	 * after cursor req.rotation_value (TRAWL_CTL_NOTIFY_NOW: none, only
	 * the cursor); if none, the reply waits for one, at most req.value ms
	 * (<= TRAWL_CTL_NOTIFY_WAIT_MAX_MS). Reply: one NOTIFY_CURSOR record,
	 * then NOTIFICATION records, oldest first. */
	TRAWL_CTL_CMD_NOTIFY_WAIT = 31,
	TRAWL_CTL_CMD_MAX_ = 32,
};

/*
 * The header of every message, in both directions. Its layout is the same in
 * every version, so that a peer of another version is recognised and told so.
 */
struct trawl_ctl_wire_hdr {
	uint32_t magic;   /* TRAWL_CTL_MAGIC */
	uint16_t version; /* TRAWL_CTL_VERSION */
	uint16_t cmd;     /* enum trawl_ctl_cmd */
	uint32_t size;    /* bytes of payload after this header */
	int32_t status;   /* reply: 0 or a negative errno; request: 0 */
} __attribute__((packed));

/* req.flags */
#define TRAWL_CTL_F_SNAPSHOT 0x1u   /* create */
#define TRAWL_CTL_F_LIVE 0x2u       /* create */
#define TRAWL_CTL_F_ALL 0x4u        /* destroy --all; track/untrack --all */
#define TRAWL_CTL_F_FIELDS 0x8u     /* list --fields */
#define TRAWL_CTL_F_NO_OUTPUT 0x10u /* create --no-output */
#define TRAWL_CTL_F_OWNER 0x20u     /* add/remove-trigger --owner-uid: req.value */
#define TRAWL_CTL_F_KNOWN_ 0x3fu

/* req.overwrite */
#define TRAWL_CTL_MODE_DEFAULT 0u
#define TRAWL_CTL_MODE_DISCARD 1u
#define TRAWL_CTL_MODE_OVERWRITE 2u

/* One action of a trigger. */
struct trawl_ctl_wire_action {
	uint32_t kind;        /* enum trawl_ctl_action_kind */
	uint32_t rate_policy; /* enum trawl_ctl_rate_policy */
	uint64_t rate_value;  /* N >= 1 */
	uint64_t max_size;    /* snapshot output: bytes, TRAWL_CTL_SIZE_UNSET: none given */
	char session[TRAWL_CTL_NAME_MAX];  /* all but NOTIFY */
	char name[TRAWL_CTL_NAME_MAX];     /* snapshot output's name, "" */
	char output[TRAWL_CTL_OUTPUT_MAX]; /* snapshot output: absolute folder or URL, "" */
	/* snapshot output: the -C/-D URLs it was given as (output: their
	 * net:// URL), shown by list-triggers only; "" */
	char ctrl_url[TRAWL_CTL_OUTPUT_MAX];
	char data_url[TRAWL_CTL_OUTPUT_MAX];
} __attribute__((packed));

/* A trigger in a request: the rest of its condition is in the request's
 * common fields (ADD_TRIGGER above). */
struct trawl_ctl_wire_trigger_req {
	char name[TRAWL_CTL_NAME_MAX];          /* "" at add: the daemon names it */
	uint32_t condition;                     /* enum trawl_ctl_condition_kind */
	uint32_t nr_actions;                    /* 1..TRAWL_CTL_TRIGGER_MAX_ACTIONS */
	uint64_t threshold;                     /* bytes; buffer usage: or ratio_ppm */
	uint32_t ratio_ppm;                     /* buffer usage: 0..1000000, or
						   UINT32_MAX when in bytes */
	uint32_t reserved;
	char captures[TRAWL_CTL_CAPTURES_MAX];  /* event-rule-matches: joined by ',' */
	struct trawl_ctl_wire_action actions[TRAWL_CTL_TRIGGER_MAX_ACTIONS];
} __attribute__((packed));

/* One request struct serves every command; a command ignores the fields it has no use for. */
struct trawl_ctl_wire_req {
	uint32_t struct_size;   /* sizeof(struct trawl_ctl_wire_req) */
	uint32_t domain;        /* enum trawl_ctl_domain */
	uint32_t flags;         /* TRAWL_CTL_F_* */
	uint32_t event_kind;    /* enum trawl_ctl_event_kind */
	int32_t loglevel;       /* 0..14 */
	uint32_t loglevel_type; /* enum trawl_ctl_loglevel_type */
	uint64_t subbuf_size;   /* bytes, 0 = default */
	uint32_t num_subbuf;    /* 0 = default */
	uint32_t overwrite;     /* TRAWL_CTL_MODE_* */
	uint32_t switch_timer_us;
	uint32_t read_timer_us;
	uint32_t buffers;       /* enum trawl_ctl_buffers */
	uint32_t live_timer_us; /* create with TRAWL_CTL_F_LIVE; 0 = default */
	char session[TRAWL_CTL_NAME_MAX];
	char channel[TRAWL_CTL_NAME_MAX];
	char name[TRAWL_CTL_NAME_MAX];   /* event, context, or new session's name */
	char target[TRAWL_CTL_TARGET_MAX]; /* probe location */
	char filter[TRAWL_CTL_FILTER_MAX];
	char output[TRAWL_CTL_OUTPUT_MAX]; /* create: absolute trace folder or URL, "" = none */
	uint32_t process_attr; /* track/untrack: enum trawl_ctl_process_attr */
	uint32_t value;        /* track/untrack without F_ALL: the ID; snapshot
				  del-output: the output's id (0: by name) */
	uint32_t rotation_kind; /* rotation set/unset: enum trawl_ctl_rotation_schedule */
	uint32_t monitor_timer_us; /* enable-channel: µs; 0: the default (1 s),
				      TRAWL_CTL_WIRE_MONITOR_OFF: none */
	uint64_t rotation_value; /* rotation set: µs (TIMER) or bytes (SIZE), > 0 */
	uint64_t max_size;     /* snapshot outputs: bytes, 0 = no limit,
				  TRAWL_CTL_SIZE_UNSET = not given */
	char exclusions[TRAWL_CTL_EXCLUSIONS_MAX]; /* enable-event: names joined by ',' */
	uint64_t tracefile_size;  /* enable-channel: bytes per stream file, 0 = unlimited */
	uint32_t tracefile_count; /* enable-channel: files kept per stream, 0 = all */
	uint32_t chan_output;     /* enable-channel: enum trawl_ctl_output */
	int64_t blocking_timeout_us; /* enable-channel: µs, TRAWL_CTL_BLOCKING_INF
					(-1): without end, 0: never block */
	struct trawl_ctl_wire_trigger_req trigger; /* the trigger commands */
} __attribute__((packed));

#define TRAWL_CTL_SIZE_UNSET UINT64_MAX
/* req.monitor_timer_us: the channel has no monitor timer (LTTng's --monitor-timer 0) */
#define TRAWL_CTL_WIRE_MONITOR_OFF UINT32_MAX

struct trawl_ctl_wire_reply {
	uint32_t struct_size; /* sizeof(struct trawl_ctl_wire_reply) */
	uint32_t nr_records;
	char err[TRAWL_CTL_ERROR_MAX]; /* "" or the one line to show */
} __attribute__((packed));

struct trawl_ctl_wire_rec {
	uint32_t size;       /* bytes of the whole record, a multiple of 8 */
	uint16_t kind;       /* enum trawl_ctl_item_kind */
	uint16_t nr_strings; /* as the kind has: see trawl_ctl_rec_layout() */
} __attribute__((packed));

/* Record bodies, one per kind; strings in the order named. */
struct trawl_ctl_wire_session { /* strings: name, output, shm_path */
	uint32_t active;
	uint32_t snapshot;
	uint32_t live_timer_us;
	uint32_t uid;
} __attribute__((packed));

struct trawl_ctl_wire_domain { /* strings: problem */
	uint32_t domain;
	uint32_t consumer_alive;
	uint64_t events_discarded;
	uint64_t bytes_written;
	uint64_t events_tallied; /* of events_discarded (at most it) */
} __attribute__((packed));

struct trawl_ctl_wire_channel { /* strings: name */
	uint32_t domain;
	uint32_t enabled;
	uint64_t subbuf_size;
	uint32_t num_subbuf;
	uint32_t overwrite; /* 0 or 1 */
	uint32_t switch_timer_us;
	uint32_t read_timer_us;
	uint32_t buffers;
	uint32_t tracefile_count; /* 0: unlimited */
	uint64_t tracefile_size;  /* bytes, 0: unlimited */
	int64_t blocking_timeout_us; /* -1: infinite, 0: never blocks */
	uint64_t discarded_events;   /* list SESSION: as far as known */
	uint64_t lost_packets;
	uint32_t output;             /* enum trawl_ctl_output: SPLICE or MMAP */
	uint32_t monitor_timer_us;   /* 0: none */
	uint64_t memory_resident;    /* list SESSION: bytes of buffer pages written */
	uint64_t memory_size;        /* of buffer files of this many bytes; 0: none made */
} __attribute__((packed));

struct trawl_ctl_wire_event { /* strings: channel, name, filter, target, exclusions */
	uint32_t domain;
	uint32_t enabled;
	uint32_t kind;
	uint32_t loglevel_type;
	int32_t loglevel;
	uint32_t reserved;
} __attribute__((packed));

struct trawl_ctl_wire_context { /* strings: channel, name */
	uint32_t domain;
	uint32_t reserved;
} __attribute__((packed));

struct trawl_ctl_wire_available { /* strings: name */
	uint32_t domain;
	uint32_t kind;
	int32_t loglevel; /* -1: none */
	int32_t pid;
} __attribute__((packed));

struct trawl_ctl_wire_field { /* strings: event, name, type */
	uint32_t domain;
	uint32_t reserved;
} __attribute__((packed));

struct trawl_ctl_wire_rotation { /* strings: session, path */
	uint64_t chunk_id;
} __attribute__((packed));

struct trawl_ctl_wire_rotation_schedule { /* no strings */
	uint32_t kind; /* enum trawl_ctl_rotation_schedule */
	uint32_t reserved;
	uint64_t value;
} __attribute__((packed));

struct trawl_ctl_wire_snapshot { /* strings: session, path */
	uint32_t seq;
	uint32_t reserved;
} __attribute__((packed));

struct trawl_ctl_wire_snapshot_output { /* strings: name, ctrl_url, data_url */
	uint32_t id;
	uint32_t reserved;
	uint64_t max_size; /* 0: no limit */
} __attribute__((packed));

/* One tracker of a domain; its nr_values TRACKER_VALUE records follow it. */
struct trawl_ctl_wire_tracker { /* no strings */
	uint32_t domain;
	uint32_t process_attr;
	uint32_t include_all; /* 1: every value (the default); 0: the set only */
	uint32_t nr_values;   /* <= TRAWL_CTL_TRACKER_MAX_VALUES */
} __attribute__((packed));

struct trawl_ctl_wire_tracker_value { /* no strings */
	uint32_t domain;
	uint32_t process_attr;
	uint32_t value;
	uint32_t reserved;
} __attribute__((packed));

/* A trigger; its nr_actions TRIGGER_ACTION records follow it. */
struct trawl_ctl_wire_trigger { /* strings: name, pattern, filter, exclusions,
				   captures, session, channel, location */
	uint32_t owner_uid;
	uint32_t condition;
	uint32_t domain;
	uint32_t event_kind;
	uint32_t loglevel_type;
	int32_t loglevel;
	uint32_t nr_actions; /* 1..TRAWL_CTL_TRIGGER_MAX_ACTIONS */
	uint32_t ratio_ppm;
	uint64_t threshold;
	uint64_t occurrences; /* times its condition held so far */
	uint64_t discarded;   /* event rule matches: hits the tracer or daemon dropped */
} __attribute__((packed));

struct trawl_ctl_wire_trigger_action { /* strings: session, name, output, ctrl_url, data_url */
	uint32_t kind;
	uint32_t rate_policy;
	uint64_t rate_value;
	uint64_t max_size; /* TRAWL_CTL_SIZE_UNSET: none given */
	uint64_t runs;     /* times it ran */
	uint64_t failures; /* of which failed */
} __attribute__((packed));

/* A NOTIFY_WAIT's cursor meaning "from now on", and its longest wait. */
#define TRAWL_CTL_NOTIFY_NOW UINT64_MAX
#define TRAWL_CTL_NOTIFY_WAIT_MAX_MS 60000u
/* The captured values of a notification: one line each ('\n'-terminated),
 * control characters in a value escaped, at most this many bytes in all. */
#define TRAWL_CTL_NOTIFY_CAPTURES_MAX 2048

struct trawl_ctl_wire_notify_cursor { /* no strings */
	uint64_t next;    /* the cursor of the client's next NOTIFY_WAIT */
	uint64_t dropped; /* notifications after the asked cursor it can no longer have */
} __attribute__((packed));

struct trawl_ctl_wire_notification { /* strings: trigger name, captures */
	uint64_t seq;       /* its cursor: the next is seq + 1 */
	uint64_t ts_ns;     /* when the event fired (CLOCK_MONOTONIC), 0: unknown */
	uint32_t owner_uid; /* the trigger's */
	uint32_t condition; /* enum trawl_ctl_condition_kind */
	uint32_t nr_captures;
	uint32_t reserved;
} __attribute__((packed));

#define TRAWL_CTL_REC_MAX_STRINGS 8

/* What a record of one kind holds: its body's size and its strings' limits. */
struct trawl_ctl_rec_layout {
	uint32_t body_size;
	uint16_t nr_strings;
	uint16_t str_max[TRAWL_CTL_REC_MAX_STRINGS]; /* bytes, NUL included */
};

/* The layout of records of @kind, or NULL if the protocol has no such kind. */
const struct trawl_ctl_rec_layout *trawl_ctl_rec_layout(uint32_t kind);

/*
 * trawl_ctl_rec_size - the bytes a record of @kind takes with @strs (as many
 * as the kind has; NULL ones count as ""). Returns 0 if @kind is unknown or
 * a string is over its limit.
 */
size_t trawl_ctl_rec_size(uint32_t kind, const char *const *strs);

/*
 * trawl_ctl_rec_write - writes a record at @dst, which has
 * trawl_ctl_rec_size(@kind, @strs) bytes: the header, @body (the kind's
 * struct), the strings and the padding.
 */
void trawl_ctl_rec_write(void *dst, uint32_t kind, const void *body, const char *const *strs);

/* LTTng's name of process attribute @attr ("virtual user ID"), NULL if unknown:
 * trawl_ctl_process_attr_name() for the daemon, which does not link libtrawl-ctl. */
const char *trawl_ctl_wire_process_attr_name(uint32_t attr);

/* 1 if @s holds a NUL within @len bytes. */
int trawl_ctl_str_ok(const char *s, size_t len);

/*
 * trawl_ctl_hdr_check - validates a received header. @is_reply: 1 on the
 * client. Returns 0, -EPROTONOSUPPORT (the magic is right, the version is
 * another) or -EPROTO (bad magic, cmd or size).
 */
int trawl_ctl_hdr_check(const struct trawl_ctl_wire_hdr *hdr, int is_reply);

/*
 * trawl_ctl_req_check - validates a request payload of @len bytes for
 * @cmd: size, NUL-terminated strings, enum ranges, names made of
 * printable characters without '/'. Returns 0 or -EPROTO / -EINVAL.
 */
int trawl_ctl_req_check(uint16_t cmd, const void *payload, size_t len);

/*
 * trawl_ctl_reply_check - validates a reply payload of @len bytes: the
 * head, then every record (sizes within the payload, a known kind, its
 * strings NUL-terminated within their limits, enums in range). Returns 0 or
 * -EPROTO.
 */
int trawl_ctl_reply_check(const void *payload, size_t len);

/*
 * trawl_ctl_name_valid - 1 if @name can be a session or channel name: 1 to
 * 255 bytes of [A-Za-z0-9_.:-], not starting with '.' or '-'.
 */
int trawl_ctl_name_valid(const char *name);

/* 1 if @output is a form the daemon takes: an absolute folder or a net:// / net6:// URL. */
int trawl_ctl_output_valid(const char *output);

/* 1 if @name can be a trigger's name: 1 to 255 printable ASCII bytes. */
int trawl_ctl_trigger_name_valid(const char *name);

#endif /* TRAWL_CTL_PROTO_H */
