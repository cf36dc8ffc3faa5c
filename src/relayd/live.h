/* SPDX-License-Identifier: MIT */
/*
 * live.h - the live-viewer server of trawl-relayd.
 *
 * Serves LTTng's live viewer protocol (version 2.4, what babeltrace2 2.0's
 * lttng-live source speaks) from trace folders on disk that are still being
 * written: `babeltrace2 --input-format=lttng-live
 * net://HOST:PORT/host/HOSTNAME/SESSION` follows a session while it records.
 *
 * A session is a trace root in trawl's layout (DESIGN.md, "Trace layout"):
 * every folder under it holding a `metadata` file is one trace, each file
 * with an index/<file>.idx beside it is one of its streams. Streams and
 * metadata are read as they grow; nothing is written.
 *
 * Thread safety: every function may be called from any thread, concurrently
 * with the server's own threads, except that relay_live_stop() must be the
 * last call on its handle.
 */
#ifndef TRAWL_RELAYD_LIVE_H
#define TRAWL_RELAYD_LIVE_H

#include <stdint.h>
#include <sys/types.h>

struct relay_live;

/*
 * relay_live_start - serves viewers connecting to @listen_fd (a listening
 * TCP socket) in threads of its own. The server owns @listen_fd from now on
 * (relay_live_stop() closes it), also when it fails. Returns the handle, to
 * be freed with relay_live_stop(), or NULL with errno set.
 */
struct relay_live *relay_live_start(int listen_fd);

/*
 * relay_live_session_add - makes the session @id (unique, chosen by the
 * caller) visible to viewers under @hostname / @name; its trace root is the
 * folder @path (which may not exist yet). @live_timer_us is the session's
 * live timer: how often its partial packets are flushed to disk, which
 * bounds how late data may still appear. Strings are copied.
 * Returns 0, -EEXIST (id in use), -EINVAL (bad argument) or -ENOMEM.
 */
int relay_live_session_add(struct relay_live *rl, uint64_t id, const char *name,
			   const char *hostname, const char *path, uint32_t live_timer_us);

/*
 * relay_live_session_close - no more data will come for session @id: viewers
 * attached to it get what remains on disk, then are told it hung up. The
 * session is no longer listed or attachable. Unknown ids are ignored.
 */
void relay_live_session_close(struct relay_live *rl, uint64_t id);

/*
 * relay_live_beacon - a live beacon (relayd/proto.h's BEACON) of session
 * @id: the stream whose index file is (@dev, @ino) holds no event up to
 * @ts_end (the stream's clock) after the entries in the file's first
 * @idx_size bytes. Kept, the newest per file, until the session is freed;
 * viewers that had those entries are told the stream is quiet up to it.
 * To be called after those entries were written. Unknown ids are ignored.
 */
void relay_live_beacon(struct relay_live *rl, uint64_t id, dev_t dev, ino_t ino,
		       uint64_t idx_size, uint64_t ts_end);

/*
 * relay_live_stop - disconnects every viewer, stops the threads, closes the
 * listening socket and frees @rl. NULL is a no-op.
 */
void relay_live_stop(struct relay_live *rl);

#endif /* TRAWL_RELAYD_LIVE_H */
