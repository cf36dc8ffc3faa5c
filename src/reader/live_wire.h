/* SPDX-License-Identifier: MIT */
/*
 * The lttng-live client's view of the wire: the requests it builds and the
 * replies it checks, with no I/O (live_net.c sends and receives, live.c
 * keeps the state). Every reply comes from the network and is hostile
 * until one of these functions has checked it: counts and lengths are
 * bounded here, strings are cut at their field's end, statuses are known
 * ones. fuzz/reader/fuzz_live.c feeds them arbitrary bytes.
 *
 * The protocol (LTTng's live viewer protocol 2.4, what trawl-relayd and
 * lttng-relayd serve) is defined once, in relayd/live-proto.h: the wire
 * structs are shared with the server; only their use is the client's.
 */
#ifndef TRAWL_READER_LIVE_WIRE_H
#define TRAWL_READER_LIVE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "relayd/live-proto.h"

/* What one reply may make the client hold (bytes or items). */
#define LV_MAX_SESSIONS 4096u		/* LIST_SESSIONS */
#define LV_MAX_STREAMS_REPLY 4096u	/* ATTACH, GET_NEW_STREAMS */
#define LV_MAX_STREAMS 16384u		/* streams of all sessions */
#define LV_MAX_TRACES 1024u
#define LV_MAX_METADATA (64u << 20)	/* one trace's metadata */
#define LV_MAX_PACKET (64u << 20)	/* one packet (trawl-relayd's reply limit) */
/*
 * Metadata that grows is parsed whole again, and every trace class it made
 * is kept (event classes stay valid for the reader's life): the bytes
 * parsed over a trace's life are bounded, so that a relay daemon sending
 * metadata a byte at a time cannot make the client parse or hold without
 * end.
 */
#define LV_MAX_PARSED (256ull << 20)

/* A live URL: net[4|6]://HOST[:PORT][/host/HOSTNAME[/SESSION]]. */
struct lv_url {
	char host[256];
	char port[8];
	char hostname[LIVE_HOST_NAME_MAX];	/* "": none given */
	char session[LIVE_NAME_MAX];		/* "": none given */
};

#define LV_DEFAULT_PORT "5344"

/* Parses @url; returns 0, or -EINVAL with @why set to a static reason. */
int lv_url_parse(const char *url, struct lv_url *u, const char **why);

/* A command's 16-byte header then its payload, in @buf; returns the size. */
size_t lv_cmd_build(void *buf, uint32_t cmd, const void *payload, uint32_t len);

/* One session of a LIST_SESSIONS reply, host byte order, strings ended. */
struct lv_session_info {
	uint64_t id;
	uint32_t live_timer_us, clients, streams;
	char hostname[LIVE_HOST_NAME_MAX];
	char name[LIVE_NAME_MAX];
};

/*
 * lv_sessions_count - the count at the start of a LIST_SESSIONS reply (4
 * bytes at @p). Returns it, or -EMSGSIZE above LV_MAX_SESSIONS.
 */
int64_t lv_sessions_count(const void *p);
void lv_session_decode(const void *wire, struct lv_session_info *out);

/* One stream of an ATTACH or GET_NEW_STREAMS reply. */
struct lv_stream_info {
	uint64_t id, trace_id;
	int metadata;
	char path[LIVE_PATH_MAX];
	char channel[LIVE_NAME_MAX];
};

/*
 * lv_streams_reply - checks the 8-byte head of an ATTACH or GET_NEW_STREAMS
 * reply: *@status, and *@count streams to read next. Returns 0, or
 * -EMSGSIZE (too many streams) or -EBADMSG (streams with a failure status,
 * or an unknown status). @attach: the statuses are ATTACH's.
 */
int lv_streams_reply(const void *p, int attach, uint32_t *status, uint32_t *count);
/* Decodes one stream; -EBADMSG when its metadata flag is not 0 or 1. */
int lv_stream_decode(const void *wire, struct lv_stream_info *out);

/* A GET_NEXT_INDEX reply, host byte order. */
struct lv_index {
	uint32_t status, flags;
	uint64_t offset;	/* bytes */
	uint64_t packet_bytes, content_bits;
	uint64_t ts_begin, ts_end, discarded, class_id;
};

/*
 * lv_index_decode - checks an index reply (64 bytes): a known status, and
 * for OK a packet of whole bytes, 1 to LV_MAX_PACKET of them, holding its
 * content, at an offset it does not wrap from. Returns 0 or -EBADMSG (@why
 * says which).
 */
int lv_index_decode(const void *wire, struct lv_index *out, const char **why);

/*
 * lv_packet_reply - checks a GET_PACKET reply head (12 bytes) for a request
 * of @asked bytes: *@status, *@flags, and for OK *@len bytes to read next
 * (1 to @asked). Returns 0 or -EBADMSG.
 */
int lv_packet_reply(const void *p, uint32_t asked, uint32_t *status, uint32_t *flags,
		    uint32_t *len);

/*
 * lv_metadata_reply - checks a GET_METADATA reply head (12 bytes): *@status,
 * and *@len bytes to read next, at most @room. Returns 0, -EMSGSIZE (more
 * than @room) or -EBADMSG.
 */
int lv_metadata_reply(const void *p, uint64_t room, uint32_t *status, uint64_t *len);

#endif /* TRAWL_READER_LIVE_WIRE_H */
