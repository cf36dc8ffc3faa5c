/* SPDX-License-Identifier: MIT */
/*
 * output.h - where a consumer's trace goes: a local folder or trawl-relayd.
 *
 * The user-space and the kernel consumer say "open this file of the trace,
 * append these bytes, this packet and its index entry, replace the
 * metadata" and do not care where it goes. A destination is a string:
 *
 *   /abs/folder                          a local trace folder (created)
 *   relay:SESSION,HOSTNAME,CTIME,LIVE_US,TOKEN,BASE,net://HOST:CTRL:DATA/REL/PATH
 *                                        streamed to trawl-relayd, into
 *                                        REL/PATH of the session's folder
 *                                        (BASE: "" or the URL's path, which
 *                                        names that folder: relayd/proto.h)
 *                                        (trawl_output_relay_spec() makes it)
 *
 * Streaming failures. When relayd goes away (or does not take a message
 * whole within TRAWL_OUTPUT_SEND_TIMEOUT_MS plus its size at
 * TRAWL_OUTPUT_MIN_RATE, or is past the caller's trawl_output_deadline()),
 * or says it could not write (a PING's reply, relayd/proto.h), the output
 * is "broken": it logs one line,
 * trawl_output_broken() says why, and every later write is dropped and
 * reported as done, so a consumer goes on emptying its ring buffers (the
 * traced programs keep their discard semantics) and what relayd received
 * stays readable there.
 *
 * Local write failures (a full disk, a quota) are the same: a write that
 * fails is cut back, so a stream file ends at its last whole packet, its
 * index names exactly those, and the metadata is never half a statement;
 * then nothing more of the trace is written (a packet written after a
 * metadata update that failed would not decode), and what was is readable;
 * at the stop, trawl_output_seal() writes, in room held back for it, one
 * empty packet per stream saying what that stream lost.
 *
 * What never landed is counted: packets dropped once broken or failed, and
 * over the network the packets relayd had not confirmed writing when it
 * went (it confirms on each PING, sent every 256 KiB and by
 * trawl_output_sync()). trawl_output_broken() gives the count in its line.
 *
 * Threading: an output and its streams are used by one thread.
 */
#ifndef TRAWL_CONSUMERD_OUTPUT_H
#define TRAWL_CONSUMERD_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#define TRAWL_OUTPUT_SEND_TIMEOUT_MS 3000 /* no progress for that long: relayd is given up on */
#define TRAWL_OUTPUT_CONNECT_TIMEOUT_MS 3000
#define TRAWL_OUTPUT_SYNC_TIMEOUT_MS 6000 /* under the daemon's 10 s wait for a reply */
/*
 * A relayd (or whoever is in the middle) that takes our bytes a few at a
 * time would otherwise hold a consumer in one send for ever: a message must
 * go out whole within TRAWL_OUTPUT_SEND_TIMEOUT_MS plus its size at this
 * rate (bytes a second), or the connection is cut (taken up again later).
 */
#define TRAWL_OUTPUT_MIN_RATE (1u << 20)

enum trawl_output_kind {
	TRAWL_OUTPUT_DATA = 0,     /* a stream file */
	TRAWL_OUTPUT_INDEX = 1,    /* index/<stream>.idx */
	TRAWL_OUTPUT_METADATA = 2, /* appended, or replaced whole */
};

struct trawl_output;
struct trawl_output_stream;

/**
 * trawl_output_create - opens a trace's destination
 * @dest: a folder or a relay spec (above)
 * @uid, @gid: owner of local files and folders ((uid_t)-1: the caller).
 *             A root caller given another owner creates everything
 *             through a process running as that owner (consumerd/opener.h).
 * @out: the output, to free with trawl_output_destroy()
 * @err, @err_len: a one-line reason on failure
 *
 * Local: creates the folder and its index/ folder. Relay: connects to the
 * data port and says HELLO (relayd creates the session's folder).
 * Returns 0 or a negative errno.
 */
int trawl_output_create(const char *dest, uid_t uid, gid_t gid, struct trawl_output **out,
			char *err, size_t err_len);

/**
 * trawl_output_create_reconnecting - trawl_output_create() for a trace that
 * outlives relayd's absence
 *
 * The same, but a relayd that cannot be reached now (refused, gone, or
 * gone before it answered the HELLO) does not fail it: the output begins
 * disconnected, as one whose connection was lost (output-relay.c), and
 * connects once relayd is there; its packets until then are dropped and
 * counted (trawl_output_broken() says so). A relayd that answers no, or an
 * unknown host, still fails it. For a session's traces, not a snapshot's
 * (which is written now or not at all).
 */
int trawl_output_create_reconnecting(const char *dest, uid_t uid, gid_t gid,
				     struct trawl_output **out, char *err, size_t err_len);

/*
 * trawl_output_archive - a rotation of a streamed trace (relay only): closes
 * every file of @o and has relayd move the trace's folder to @to, a path in
 * the session's folder below "archives/" (relayd/proto.h's ARCHIVE), then
 * waits for relayd to say it did (a PING). Call once the chunk's last
 * packets were handed over and synced; trawl_output_destroy() next.
 * Returns 0, -EOPNOTSUPP for a local output, -EINVAL for a bad @to, or the
 * errno that broke the output (trawl_output_broken() says it in a line).
 */
int trawl_output_archive(struct trawl_output *o, const char *to);

/* Tells relayd the trace is complete (relay), closes everything, frees. NULL: no-op. */
void trawl_output_destroy(struct trawl_output *o);

/*
 * trawl_output_destroy_remove - clear (LTTng's `clear`): closes everything,
 * deletes every file the trace opened and its index/ folder (as the
 * folder's owner: consumerd/opener.h), frees. The folder itself stays.
 * Returns 0, or the first error (the rest is removed anyway). A relay
 * destination's files are removed by relayd (relayd/proto.h's REMOVE),
 * which says it did: its error, or the one that broke the output.
 */
int trawl_output_destroy_remove(struct trawl_output *o);

/*
 * 1 if streaming or writing failed, else 0. @why (may be NULL) gets one
 * line: "streaming to trawl-relayd at H:P stopped: REASON, N packets (M
 * events) lost" or "writing the trace in DIR: REASON, N packets (M events)
 * lost" ("(B bytes)" when some lost packet's events could not be counted:
 * it did not decode, or no counter was given, trawl_output_count_events()). Also
 * notices a relayd that closed the connection while we had nothing to send.
 */
int trawl_output_broken(struct trawl_output *o, char *why, size_t len);

/*
 * A packet trawl_output_stream_packet() lost on @st, given with events -1:
 * its @events, counted after all (the user-space consumer decodes it, at
 * once or once the metadata naming them has come: count.h).
 */
void trawl_output_lost_events(struct trawl_output_stream *st, uint64_t events);

/* Counts the events of packet @pkt (@len content bytes): their number, or -1. */
typedef int64_t (*trawl_output_count_fn)(void *arg, const void *pkt, size_t len);

/*
 * trawl_output_count_events - how @o counts, when it loses it, a packet it
 * was given with events -1 and had sent: relayd did not confirm it before it
 * failed or went. The output keeps every such packet whole until confirmed,
 * so its events are counted then, from the copy: nothing per packet sent.
 * @arg (not owned) must outlive @o: the user-space consumer's trace, whose
 * metadata says how to read the packet. Without it such packets are counted
 * in bytes only ("B bytes" in trawl_output_broken()'s line).
 */
void trawl_output_count_events(struct trawl_output *o, trawl_output_count_fn count, void *arg);

/*
 * trawl_output_seal - a local trace whose writing failed says in itself
 * what it lost: each stream that lost packets since the last seal gets one
 * empty packet, written in the room the trace held back from its start
 * (a hidden .reserve.tmp, freed now), numbered after the lost packets and
 * counting their events in events_discarded, so babeltrace2 reports the
 * lost packets and events where they were. Best effort: a stream with no
 * room left gets none (the count stays in trawl_output_broken()'s line).
 * Call at a stop, once the last packets were handed over. Else a no-op.
 */
void trawl_output_seal(struct trawl_output *o);

/* The errno that broke the output (see trawl_output_broken()), else 0. */
int trawl_output_errno(const struct trawl_output *o);

/*
 * Bytes of packets sent to relayd that it has not confirmed writing (in
 * flight, or lost with it); 0 for a local output. "Bytes written" is
 * trawl_output_stream_bytes() over the streams less this.
 */
uint64_t trawl_output_bytes_unlanded(const struct trawl_output *o);

/* Why the last trawl_output_file_open() (or stream open) failed, one line; "" if none did. */
const char *trawl_output_error(const struct trawl_output *o);

/* A live relay destination's live timer (how often packets are to be cut), else 0. */
uint32_t trawl_output_live_timer_us(const struct trawl_output *o);

/*
 * trawl_output_sync - returns once everything written so far is in the
 * destination's files: for relayd, a PING round trip (relayd acts on a
 * connection's messages in order, so its reply means all before it is
 * written). What lets `trawl stop` promise a complete trace on relayd too.
 * Returns 0 (also when broken: see trawl_output_broken()), or -ETIMEDOUT
 * when relayd did not catch up within TRAWL_OUTPUT_SYNC_TIMEOUT_MS (logged;
 * it goes on writing).
 */
int trawl_output_sync(struct trawl_output *o);

/*
 * trawl_output_deadline - bounds what follows: every wait of a streamed
 * output (sending, relayd's replies, reconnecting) ends within @ms from now;
 * one still waiting then cuts the connection (what was sent is kept to send
 * again, what comes until it is taken up again is lost, counted: as when
 * relayd goes). 0: no bound but each step's own. A consumer brackets each
 * round of draining and each command of its daemon with it, so that no
 * relayd makes it answer the daemon later than that (a hostile one could
 * otherwise trickle its reads and hold a stop for ever). Local: nothing.
 */
void trawl_output_deadline(struct trawl_output *o, uint32_t ms);
#define TRAWL_OUTPUT_ROUND_MS 5000 /* a round of draining */
#define TRAWL_OUTPUT_COMMAND_MS 8000 /* a flush: under the daemon's wait for the answer */

/*
 * Opens @rel in the trace: a new, empty file (locally, whatever had its name
 * is replaced, never written through: consumerd/opener.h). Returns a handle
 * >= 0 or a negative errno; then trawl_output_error() says why in one line.
 */
int trawl_output_file_open(struct trawl_output *o, const char *rel, enum trawl_output_kind kind);
/* Appends @iov to the file. 0 or a negative errno (never once broken: dropped). */
int trawl_output_file_append(struct trawl_output *o, int h, const struct iovec *iov, int cnt);
/* Replaces the file's content with @len bytes of @buf (readers never see half). */
int trawl_output_file_replace(struct trawl_output *o, int h, const void *buf, size_t len);
void trawl_output_file_close(struct trawl_output *o, int h);

/**
 * trawl_output_stream_open - a stream file <name> and its index/<name>.idx
 * @instance_id: written into each packet's header and index entry
 * Returns NULL with errno. Closed by trawl_output_stream_close().
 */
struct trawl_output_stream *trawl_output_stream_open(struct trawl_output *o, const char *name,
						     uint64_t instance_id);
void trawl_output_stream_close(struct trawl_output_stream *st);

/**
 * trawl_output_stream_open_split - a stream in files of at most @file_size
 * bytes (LTTng's trace file limits), local outputs only
 * @file_size: 0: as trawl_output_stream_open(); else the stream's files are
 *             <name>_<n> and index/<name>_<n>.idx, n from 0; a packet that
 *             would take the file past @file_size goes first in the next
 *             one (a file holds at least one packet, whole; each file starts
 *             with a packet, readable alone)
 * @file_count: 0: every file is kept; else n goes modulo @file_count and
 *             the file after the last truncates the oldest, as LTTng 2.13's
 *             consumer does: the newest @file_count files stay
 * Returns NULL with errno (EOPNOTSUPP: a relay destination with @file_size).
 */
struct trawl_output_stream *trawl_output_stream_open_split(struct trawl_output *o, const char *name,
							   uint64_t instance_id, uint64_t file_size,
							   uint32_t file_count);

/**
 * trawl_output_stream_resume - reopens a stream a consumer that died was writing
 * @next_seq: receives the packet_seq_num following the last whole packet
 *            the files hold (0: none)
 *
 * As trawl_output_stream_open(), but keeps what the files hold, up to the
 * last whole packet: the index is cut to its whole entries that point at
 * whole packets, the stream file to the end of the last of them (a packet
 * half written, or written without its index entry, goes: the consumer
 * takes it again from the ring buffer, where it still is). New packets are
 * appended after it. Returns NULL with errno (EOPNOTSUPP: a relay
 * destination).
 */
struct trawl_output_stream *trawl_output_stream_resume(struct trawl_output *o, const char *name,
						       uint64_t instance_id, uint64_t *next_seq);

/*
 * trawl_output_stream_resume_split - trawl_output_stream_resume() of a
 * stream split in files (trawl_output_stream_open_split()): the file of
 * the stream written last (the newest modification time among <name>_<n>)
 * is resumed, and the stream goes on numbering after it. None yet: <name>_0.
 */
struct trawl_output_stream *
trawl_output_stream_resume_split(struct trawl_output *o, const char *name, uint64_t instance_id,
				 uint64_t file_size, uint32_t file_count, uint64_t *next_seq);

/**
 * trawl_output_stream_packet - writes one packet and then its index entry
 * @pkt: a packet in the host's byte order: trawl's packet header and
 *       context (ctf/layout.h), then events; may be memory another process
 *       writes (the header is copied once and only the copy is used)
 * @avail: bytes readable at @pkt; the packet's content_size must fit
 * @events: the events it holds, counted if it is lost; -1: not known
 *
 * Only the content is written: packet_size becomes the content size (in
 * bytes, as CTF allows) and stream_instance_id the stream's. Returns the
 * bytes written (>0; sent, for relayd), 0 when the packet was lost (the
 * output is broken: counted, see trawl_output_broken()), or -EPROTO for a
 * malformed packet. An empty packet (no event) that would begin the next
 * file of a split stream is not written (output-stream.c says why): its size is
 * returned.
 */
int64_t trawl_output_stream_packet(struct trawl_output_stream *st, const void *pkt, size_t avail,
				   int64_t events);

/* Bytes of packets written to the stream so far (over all its files, split). */
uint64_t trawl_output_stream_bytes(const struct trawl_output_stream *st);

/**
 * trawl_output_relay_spec - the destination string of a streamed trace
 * @url: net://HOST:CTRL:DATA[/PATH] (normalized: trawl_relay_url_format())
 * @session, @hostname: names of the session and the traced host
 * @token: random, names the session on relayd with them (see relayd/proto.h)
 * Appending "/kernel" or "/ust/uid/0/64-bit" gives a trace's destination.
 * Returns 0, -EINVAL (a bad @url) or -ENAMETOOLONG.
 */
int trawl_output_relay_spec(char *buf, size_t len, const char *url, const char *session,
			    const char *hostname, int64_t creation_time, uint32_t live_timer_us,
			    uint64_t token);

/* 1 if @dest is a relay spec (starts with "relay:"). */
int trawl_output_dest_is_relay(const char *dest);

#endif /* TRAWL_CONSUMERD_OUTPUT_H */
