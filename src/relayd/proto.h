/* SPDX-License-Identifier: MIT */
/*
 * proto.h - trawl's streaming protocol, between a consumer (trawl-consumerd,
 * user space or kernel) and trawl-relayd, over TCP.
 *
 * One connection carries one trace of one session (a consumer opens one per
 * trace it streams: the kernel trace, ust/uid/1000/64-bit, ...); several
 * connections name the same session and relayd writes them into one folder.
 * Control and data share the connection, so the order of messages is the
 * order of writes: a packet's bytes reach the disk before its index entry,
 * which is what lets a live viewer (reading the files) see whole packets only.
 * relayd accepts this protocol on its control and its data port alike.
 *
 * Every message is a 16-byte header, then `size` bytes of payload. All
 * integers are little-endian. Only HELLO and PING are answered (with
 * struct trawl_relay_reply); everything else is one-way, so streaming never
 * waits for a round trip. relayd drops a peer at its first bad message.
 *
 *   HELLO    payload: struct trawl_relay_hello. First message of a connection:
 *            names the session (hostname, name, token: connections naming the
 *            same one share it, also after relayd restarted: the token is
 *            kept in the folder's hidden .token); relayd creates its folder
 *            <output>/<hostname>/<session>-<YYYYMMDD>-<HHMMSS>/ (creation time,
 *            relayd's local time; -1, -2... appended if another session has
 *            that folder) and replies with status and session id. With a
 *            base path (the PATH of net://HOST/PATH, LTTng's), the folder is
 *            <output>/<hostname>/<base path>/, shared by every session
 *            naming it, as LTTng's relayd does. relayd started with
 *            --group-output-by-session makes it <output>/<session>/
 *            <hostname>-<YYYYMMDD>-<HHMMSS>[/<base path>]/ instead.
 *   OPEN     handle: a new file handle (< TRAWL_RELAY_MAX_HANDLES);
 *            payload: uint32 kind, then the path relative to the session
 *            folder, NUL-terminated ("kernel/chan_0", "ust/uid/0/64-bit/index/
 *            chan_0.idx"): no '.' or '..' component, no empty one, not
 *            absolute; characters [A-Za-z0-9._+-] and '/'. Creates (truncates)
 *            the file and its folders.
 *   APPEND   handle; payload: bytes appended to the file
 *   REPLACE  handle of a METADATA file; payload: the file's whole new content
 *            (written aside and renamed over it: readers never see half)
 *   CLOSE    handle
 *   END      no more data from this connection (the peer closes it next)
 *   RESUME   handle: as OPEN; payload: uint32 kind, uint64 size, then the
 *            path as OPEN's. A consumer that lost its connection (relayd
 *            restarted, the network was cut) takes a file up again: the
 *            existing file is kept up to @size bytes (what relayd confirmed
 *            writing) and cut there, so the packets sent again follow the
 *            last one that landed; a METADATA file is kept whole (a REPLACE
 *            follows). A missing or shorter file ends the connection's
 *            writing with -ENODATA (PING says it).
 *   SEAL     no payload. At a stop, after relayd could not write (a full
 *            disk): relayd frees the room it held back from the session's
 *            start (TRAWL_RELAY_RESERVE_BYTES per stream file, a hidden
 *            .reserve in its folder) and writes this connection's messages
 *            again, so the consumer can add to each stream one empty packet
 *            saying what it lost (RESUMEs first, cutting the files to what
 *            landed)
 *   PING     answered with status 0, or the negative errno of a write that
 *            failed (a full disk: then nothing more of this connection was
 *            written, and every file ends at its last whole APPEND), and in
 *            session_id the APPEND bytes written to this connection's DATA
 *            files so far: relayd acts on messages in order, so the consumer
 *            knows which of the packets it sent before the PING landed
 *   ARCHIVE  no handle; payload: two paths, FROM then TO, each NUL-terminated
 *            and checked as OPEN's; TO begins with "archives/", FROM does
 *            not. A rotation (LTTng's trace chunks): the consumer closed
 *            the files of its trace folder FROM (one chunk's, as
 *            "ust/uid/1000/64-bit" or "20261205T081500+0000-1/ust/...") and
 *            relayd moves it to TO (the chunk's archive, as
 *            "archives/BEGIN-END-ID/ust/uid/1000/64-bit"), making TO's
 *            parents, never replacing what is there; then FROM's parents
 *            that were left empty go, up to the session folder. A missing
 *            FROM moves nothing. A move that fails ends the connection's
 *            writing as a failed write does (the next PING says it)
 *   REMOVE   no handle; payload: a path, NUL-terminated, checked as
 *            ARCHIVE's FROM. A clear (LTTng's `clear`): the consumer
 *            closed the files of its trace folder, and relayd removes
 *            everything below it (links not followed, at most 16 levels
 *            deep); the folder stays, and the trace's new files come
 *            there. A removal that fails ends the connection's writing as
 *            ARCHIVE's does
 *   CHUNK    no handle; payload: uint32 op, then three strings, FROM, TO and
 *            NEW, each NUL-terminated. Sent by the session daemon on its own
 *            connection (LTTng's sessiond sends its relayd
 *            CREATE_TRACE_CHUNK and CLOSE_TRACE_CHUNK itself): a chunk's
 *            folders are relayd's to make and move even when no consumer
 *            has a trace in it (the per-process traces of programs that
 *            exited were closed with them). FROM is a chunk's folder, one
 *            name as "20261205T081500+0000-1", or "" for the session folder
 *            itself (chunk 0, whose ust/ and kernel/ are the chunk).
 *            op TRAWL_RELAY_CHUNK_CLOSE: the chunk FROM ended; what is left
 *            of it (what no consumer ARCHIVEd) is merged into TO (checked
 *            as ARCHIVE's TO), which is made even when nothing moves (an
 *            empty chunk's archive, as LTTng's), never replacing a file
 *            there; FROM goes if left empty. NEW ("": none, as a rotation
 *            of a stopped session) is the next chunk's folder, made at once
 *            as LTTng's relayd does. Consumers' ARCHIVEs of the same chunk
 *            may come before or after (other connections): either way the
 *            archive ends the same.
 *            op TRAWL_RELAY_CHUNK_CLEAR: the chunk FROM was cleared (TO and
 *            NEW ""): the per-process trace folders under its ust/pid/ in
 *            which no connection of the session has a file open go (what
 *            the consumers did not REMOVE: programs that exited), then
 *            ust/pid/ and ust/ if left empty, as LTTng's clear leaves them.
 *            A relayd that does not allow clears ($TRAWL_RELAYD_DISALLOW_CLEAR)
 *            refuses it (-EPERM), removing nothing.
 *            A CHUNK that fails is logged, and the next PING's reply says
 *            its error (once); the connection goes on.
 *   BEACON   handle: a stream's INDEX file; payload: uint64 timestamp_end.
 *            A live session's quiet stream (LTTng's live beacon, an index
 *            with no packet): it holds no event up to timestamp_end (the
 *            stream's clock) past the entries its index has now. Nothing
 *            is written: relayd's live server keeps the newest per file
 *            and tells viewers the stream is quiet up to it once they had
 *            every entry before it (live-quiet.c). A beacon written as an
 *            empty packet took 4 KiB of a --tracefile-size ring every live
 *            tick and rotated the real data out.
 *
 * Versions. A peer whose header says another version (a message with
 * relayd's magic) is refused in one line in relayd's log; a HELLO of one
 * is answered -EPROTONOSUPPORT first, so an older consumer says so too.
 *
 * Paths and chunk names hold [A-Za-z0-9._+-] ('+': a chunk's time zone,
 * LTTng's 20261205T081500+0000).
 */
#ifndef TRAWL_RELAY_PROTO_H
#define TRAWL_RELAY_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TRAWL_RELAY_MAGIC 0x594c5254u /* "TRLY" */
#define TRAWL_RELAY_VERSION 5u /* 2: ARCHIVE, REMOVE, '+' in paths; 3: HELLO's base path; 4: CHUNK;
				 * 5: BEACON */
#define TRAWL_RELAY_MAX_PAYLOAD (64u << 20) /* bytes: metadata, or a packet */
#define TRAWL_RELAY_MAX_HANDLES 65536u      /* per connection */
#define TRAWL_RELAY_NAME_LEN 256u           /* bytes, NUL included */
#define TRAWL_RELAY_PATH_LEN 1024u          /* bytes, NUL included */

#define TRAWL_RELAY_DEFAULT_CTRL_PORT 5342
#define TRAWL_RELAY_DEFAULT_DATA_PORT 5343
#define TRAWL_RELAY_DEFAULT_LIVE_PORT 5344

enum trawl_relay_cmd {
	TRAWL_RELAY_HELLO = 1,
	TRAWL_RELAY_OPEN = 2,
	TRAWL_RELAY_APPEND = 3,
	TRAWL_RELAY_REPLACE = 4,
	TRAWL_RELAY_CLOSE = 5,
	TRAWL_RELAY_END = 6,
	TRAWL_RELAY_PING = 7,
	TRAWL_RELAY_RESUME = 8,
	TRAWL_RELAY_SEAL = 9,
	TRAWL_RELAY_ARCHIVE = 10,
	TRAWL_RELAY_REMOVE = 11,
	TRAWL_RELAY_CHUNK = 12,
	TRAWL_RELAY_BEACON = 13,
};

enum trawl_relay_chunk_op {
	TRAWL_RELAY_CHUNK_CLOSE = 0,
	TRAWL_RELAY_CHUNK_CLEAR = 1,
};

/* Room relayd holds back per stream file for a SEAL (one empty packet and index entry). */
#define TRAWL_RELAY_RESERVE_BYTES (8u << 10)

enum trawl_relay_file_kind {
	TRAWL_RELAY_FILE_DATA = 0,     /* a stream file */
	TRAWL_RELAY_FILE_INDEX = 1,    /* index/<stream>.idx */
	TRAWL_RELAY_FILE_METADATA = 2, /* appended (kernel) or replaced (user space) */
};

struct trawl_relay_hdr {
	uint32_t magic;   /* TRAWL_RELAY_MAGIC */
	uint16_t version; /* TRAWL_RELAY_VERSION */
	uint16_t cmd;     /* enum trawl_relay_cmd */
	uint32_t handle;  /* OPEN, APPEND, REPLACE, CLOSE; else 0 */
	uint32_t size;    /* payload bytes */
} __attribute__((packed));

#define TRAWL_RELAY_F_LIVE 0x1u

struct trawl_relay_hello {
	uint64_t creation_time;         /* the session's, seconds since the epoch */
	uint64_t token;                 /* random, the same for every connection of the session */
	uint32_t flags;                 /* TRAWL_RELAY_F_LIVE */
	uint32_t live_timer_us;         /* live sessions: how often packets are cut */
	char session[TRAWL_RELAY_NAME_LEN];  /* the session's name */
	char hostname[TRAWL_RELAY_NAME_LEN]; /* the traced host's name */
	char base_path[TRAWL_RELAY_PATH_LEN]; /* "" or a path as OPEN's (net://HOST/PATH) */
} __attribute__((packed));

struct trawl_relay_reply {
	uint32_t magic;      /* TRAWL_RELAY_MAGIC */
	int32_t status;      /* 0 or a negative errno */
	uint64_t session_id; /* HELLO: relayd's id of the session; PING: DATA bytes written */
} __attribute__((packed));

/* A message checked by trawl_relay_msg_parse(); pointers into its buffer. */
struct trawl_relay_msg {
	uint16_t cmd;
	uint32_t handle;
	uint32_t size;           /* payload bytes */
	const uint8_t *payload;
	/* HELLO */
	uint64_t creation_time, token;
	uint32_t flags, live_timer_us;
	const char *session, *hostname, *base_path;
	/* OPEN, RESUME */
	uint32_t kind;
	uint64_t keep; /* RESUME: bytes of the file to keep */
	const char *path; /* also ARCHIVE's FROM, REMOVE's */
	const char *to;   /* ARCHIVE, CHUNK */
	/* CHUNK: op in kind, FROM in path ("" allowed), TO in to, and: */
	const char *next; /* the new chunk's folder, or "" */
	/* BEACON */
	uint64_t ts_end;
};

/*
 * trawl_relay_hdr_parse - checks a message header (magic, version, command,
 * size bound, handle bound) and gives its payload size.
 * Returns 0 or -EPROTO.
 */
int trawl_relay_hdr_parse(const void *buf, uint16_t *cmd, uint32_t *handle, uint32_t *size);

/*
 * trawl_relay_hdr_version - the version a header with trawl's magic says,
 * or 0 (not one of ours). What a peer that is refused is told (proto.h's
 * "Versions").
 */
uint16_t trawl_relay_hdr_version(const void *buf);

/*
 * trawl_relay_msg_parse - decodes and checks one whole message
 * @buf, @len: bytes received (possibly less or more than one message)
 * @m: filled on success; its pointers point into @buf
 *
 * Returns the message's length (header + payload) when @buf holds a whole
 * valid one, 0 when more bytes are needed, or -EPROTO for a bad message (the
 * peer is to be dropped). Checks every field: strings NUL-terminated within
 * their arrays, names and paths as the comment at the top says.
 */
ssize_t trawl_relay_msg_parse(const void *buf, size_t len, struct trawl_relay_msg *m);

/* 1 if @path (NUL-terminated) is a relative path relayd may write, else 0. */
int trawl_relay_path_ok(const char *path);

/* 1 if @name is a session or host name relayd may use as a folder name. */
int trawl_relay_name_ok(const char *name);

#endif /* TRAWL_RELAY_PROTO_H */
