/* SPDX-License-Identifier: MIT */
/*
 * live-proto.h - LTTng's live viewer protocol on the wire, and the pure
 * (I/O-free) pieces of the live server that read untrusted bytes: the command
 * decoder, the index file checks, and the metadata scanner. Each is covered
 * by the fuzz target fuzz/relayd-live.
 *
 * Every integer on the wire is big-endian. Wire structs are packed and
 * separate from the server's in-memory structs (live.c). Sizes are fixed by
 * the protocol; the static asserts below keep them honest.
 */
#ifndef TRAWL_RELAYD_LIVE_PROTO_H
#define TRAWL_RELAYD_LIVE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define LIVE_PROTO_MAJOR 2u
#define LIVE_PROTO_MINOR 4u /* babeltrace2 2.0's lttng-live speaks 2.4 */

#define LIVE_PATH_MAX 4096
#define LIVE_NAME_MAX 255
#define LIVE_HOST_NAME_MAX 64

enum live_cmd_id {
	LIVE_CMD_CONNECT = 1,
	LIVE_CMD_LIST_SESSIONS = 2,
	LIVE_CMD_ATTACH_SESSION = 3,
	LIVE_CMD_GET_NEXT_INDEX = 4,
	LIVE_CMD_GET_PACKET = 5,
	LIVE_CMD_GET_METADATA = 6,
	LIVE_CMD_GET_NEW_STREAMS = 7,
	LIVE_CMD_CREATE_SESSION = 8,
	LIVE_CMD_DETACH_SESSION = 9,
};

/* Flags of GET_NEXT_INDEX and GET_PACKET replies. */
#define LIVE_FLAG_NEW_METADATA 0x1u
#define LIVE_FLAG_NEW_STREAM 0x2u

enum { LIVE_CONNECTION_COMMAND = 1, LIVE_CONNECTION_NOTIFICATION = 2 };
enum { LIVE_SEEK_BEGINNING = 1, LIVE_SEEK_LAST = 2 };
enum { LIVE_ATTACH_OK = 1, LIVE_ATTACH_ALREADY = 2, LIVE_ATTACH_UNK = 3, LIVE_ATTACH_NOT_LIVE = 4,
       LIVE_ATTACH_SEEK_ERR = 5, LIVE_ATTACH_NO_SESSION = 6 };
enum { LIVE_INDEX_OK = 1, LIVE_INDEX_RETRY = 2, LIVE_INDEX_HUP = 3, LIVE_INDEX_ERR = 4,
       LIVE_INDEX_INACTIVE = 5, LIVE_INDEX_EOF = 6 };
enum { LIVE_PACKET_OK = 1, LIVE_PACKET_RETRY = 2, LIVE_PACKET_ERR = 3, LIVE_PACKET_EOF = 4 };
enum { LIVE_METADATA_OK = 1, LIVE_METADATA_NO_NEW = 2, LIVE_METADATA_ERR = 3 };
enum { LIVE_NEW_STREAMS_OK = 1, LIVE_NEW_STREAMS_NO_NEW = 2, LIVE_NEW_STREAMS_ERR = 3,
       LIVE_NEW_STREAMS_HUP = 4 };
enum { LIVE_CREATE_SESSION_OK = 1, LIVE_CREATE_SESSION_ERR = 2 };
enum { LIVE_DETACH_OK = 1, LIVE_DETACH_UNK = 2, LIVE_DETACH_ERR = 3 };

/* Every command starts with this header; data_size bytes follow. */
struct live_wire_cmd {
	uint64_t data_size;
	uint32_t cmd;
	uint32_t cmd_version;
} __attribute__((packed));

struct live_wire_connect { /* request and reply */
	uint64_t viewer_session_id;
	uint32_t major;
	uint32_t minor;
	uint32_t type;
} __attribute__((packed));

struct live_wire_session {
	uint64_t id;
	uint32_t live_timer; /* us */
	uint32_t clients;
	uint32_t streams;
	char hostname[LIVE_HOST_NAME_MAX];
	char session_name[LIVE_NAME_MAX];
} __attribute__((packed));

struct live_wire_stream {
	uint64_t id;
	uint64_t ctf_trace_id;
	uint32_t metadata_flag;
	char path_name[LIVE_PATH_MAX];
	char channel_name[LIVE_NAME_MAX];
} __attribute__((packed));

struct live_wire_attach_request {
	uint64_t session_id;
	uint64_t offset;
	uint32_t seek;
} __attribute__((packed));

struct live_wire_streams_reply { /* ATTACH_SESSION and GET_NEW_STREAMS */
	uint32_t status;
	uint32_t streams_count; /* struct live_wire_stream follow */
} __attribute__((packed));

struct live_wire_index {
	uint64_t offset;       /* bytes */
	uint64_t packet_size;  /* bits */
	uint64_t content_size; /* bits */
	uint64_t timestamp_begin;
	uint64_t timestamp_end;
	uint64_t events_discarded;
	uint64_t stream_id; /* the CTF stream class id */
	uint32_t status;
	uint32_t flags;
} __attribute__((packed));

struct live_wire_get_packet {
	uint64_t stream_id;
	uint64_t offset;
	uint32_t len;
} __attribute__((packed));

struct live_wire_packet_reply {
	uint32_t status;
	uint32_t len;
	uint32_t flags; /* len bytes of data follow */
} __attribute__((packed));

struct live_wire_metadata_reply {
	uint64_t len;
	uint32_t status; /* len bytes of metadata follow */
} __attribute__((packed));

_Static_assert(sizeof(struct live_wire_cmd) == 16, "viewer command header");
_Static_assert(sizeof(struct live_wire_connect) == 20, "connect");
_Static_assert(sizeof(struct live_wire_session) == 339, "session");
_Static_assert(sizeof(struct live_wire_stream) == 4371, "stream");
_Static_assert(sizeof(struct live_wire_attach_request) == 20, "attach request");
_Static_assert(sizeof(struct live_wire_index) == 64, "index reply");
_Static_assert(sizeof(struct live_wire_get_packet) == 20, "get packet");
_Static_assert(sizeof(struct live_wire_packet_reply) == 12, "packet reply");
_Static_assert(sizeof(struct live_wire_metadata_reply) == 12, "metadata reply");

/* A decoded request, in host byte order. */
struct live_request {
	uint32_t cmd;            /* enum live_cmd_id */
	uint64_t id;             /* session id (ATTACH, GET_NEW_STREAMS, DETACH) or stream id */
	uint64_t offset;         /* GET_PACKET: bytes; ATTACH: unused */
	uint32_t len;            /* GET_PACKET: bytes */
	uint32_t major, minor, type, seek;
};

/* Largest payload any command carries; longer ones are refused unread. */
#define LIVE_MAX_PAYLOAD 64u

/*
 * live_cmd_payload_size - checks a command header (16 wire bytes at @hdr)
 * and returns the number of payload bytes that must follow, or -EBADMSG for
 * an unknown command, or -EMSGSIZE when data_size is not what the command
 * carries. The caller reads exactly that many bytes next.
 */
int live_cmd_payload_size(const void *hdr, uint32_t *cmd);

/*
 * live_request_decode - decodes the @len payload bytes of command @cmd into
 * @req. Returns 0 or -EBADMSG. Values are not range-checked against any
 * state here: that is the handlers' job.
 */
int live_request_decode(uint32_t cmd, const void *payload, size_t len, struct live_request *req);

/* Index files: big-endian, LTTng's layout (src/ctf/layout.h). */
#define LIVE_INDEX_HEADER_SIZE 16u
#define LIVE_INDEX_ENTRY_MIN 56u /* index 1.0: seven 64-bit fields */
#define LIVE_INDEX_ENTRY_MAX 4096u

struct live_index_entry {
	uint64_t offset, packet_size, content_size, ts_begin, ts_end, discarded, stream_id;
};

/* Checks an index file header; returns its entry size in bytes, or -EBADMSG. */
int live_index_header_check(const void *hdr16);

/*
 * live_index_entry_decode - decodes one entry (at least LIVE_INDEX_ENTRY_MIN
 * bytes) and checks it against the stream file's size @data_size (bytes):
 * whole bytes, content within packet, packet within file, a packet a
 * viewer can be sent in one reply (< 4 GiB). Returns 0, -EAGAIN when the
 * packet lies (partly) beyond @data_size, or -EBADMSG.
 */
int live_index_entry_decode(const void *buf, uint64_t data_size, struct live_index_entry *e);

/*
 * Metadata scanner. A viewer must get metadata in whole top-level TSDL
 * statements (babeltrace2 parses each reply on its own), but the file may be
 * read while a writer appends to it. The scanner follows braces, strings
 * and comments over the bytes as they come and remembers where the last
 * top-level statement (a ';' at depth 0) ended: the usable length.
 * Packetized metadata (binary packets of TSDL text, as LTTng writes) is cut
 * at the end of the last whole packet instead.
 */
struct live_tsdl_scan {
	uint64_t pos;     /* bytes scanned */
	uint64_t usable;  /* bytes up to the end of the last whole statement */
	uint32_t depth;   /* braces, brackets and parentheses open */
	uint8_t state;    /* code, string, char, comment... */
	uint8_t binary;   /* packetized metadata: cut at packet ends instead */
	uint8_t prev;     /* previous byte, for two-byte tokens */
	uint8_t pad;
	uint64_t next_packet; /* binary: where the next packet starts */
};

void live_tsdl_scan_init(struct live_tsdl_scan *s);
/*
 * Scans the bytes of @all from s->pos to @len: @all holds the file's first
 * @len bytes (the scanner looks back at packet headers of packetized
 * metadata).
 */
void live_tsdl_scan_feed(struct live_tsdl_scan *s, const char *all, size_t len);

/*
 * live_metadata_clock - finds the first clock block of TSDL text @md
 * (@len bytes) and reports its uuid (16 bytes, *has_uuid) and its freq
 * (Hz; 1e9 when not given, as CTF says). Returns 0, or -ENOENT if there
 * is no clock block.
 */
int live_metadata_clock(const char *md, size_t len, uint8_t uuid[16], int *has_uuid, uint64_t *freq);

/*
 * live_metadata_clock_offset - the same clock block's offset_s and offset
 * (0 when not given). Returns 0, or -ENOENT if there is no clock block.
 */
int live_metadata_clock_offset(const char *md, size_t len, int64_t *offset_s, int64_t *offset);

#endif /* TRAWL_RELAYD_LIVE_PROTO_H */
