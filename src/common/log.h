/* SPDX-License-Identifier: MIT */
/*
 * log.h - the daemons' one logger: leveled, bounded in size, and rate
 * limited per peer.
 *
 * A daemon that serves other users must not let them choose what it
 * writes, nor how much: every line names its level, a line about a peer
 * goes through trawl_log_peer(), which lets a burst through and then one
 * line per second per peer (the lines held back are counted, and said with
 * the next one that passes), and the file is cut at a size: when it passes
 * max_bytes it is renamed to PATH.1 (replacing the previous one) and a new
 * one is started, so the two never hold more than 2 x max_bytes.
 *
 * The file is created (never through a symlink) with the mode, owner and
 * group given, and they are set again on an existing file: the root
 * daemon's log names every user's sessions and paths, it is not for
 * everyone to read.
 *
 * Before trawl_log_open() (or with no path) lines go to stderr. Thread-safe:
 * one lock around each line.
 */
#ifndef TRAWL_COMMON_LOG_H
#define TRAWL_COMMON_LOG_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>

enum trawl_log_level {
	TRAWL_LOG_ERROR = 0,
	TRAWL_LOG_WARN = 1,
	TRAWL_LOG_INFO = 2, /* the default: what an operator wants to keep */
	TRAWL_LOG_DEBUG = 3,
};

/* A peer's burst, then one line per second (per peer). */
#define TRAWL_LOG_PEER_BURST 20
/* All peers together: at most this many lines per second. */
#define TRAWL_LOG_PEERS_PER_SEC 50

struct trawl_log_config {
	const char *ident;          /* "trawl-sessiond": starts each line */
	const char *path;           /* the file; NULL: stderr */
	enum trawl_log_level level; /* lines above it are dropped */
	uint64_t max_bytes;         /* cut at this size (0: never) */
	mode_t mode;                /* of the file, e.g. 0600 */
	uid_t uid;                  /* owner and group; (uid_t)-1: the caller's */
	gid_t gid;
	int to_stderr;              /* also make fd 2 the file (a daemon's stray
				       writes and sanitizer reports land there) */
};

/**
 * trawl_log_open - send the log to a file
 * @cfg: copied (the strings too)
 *
 * Opens (creates) @cfg->path with O_APPEND|O_NOFOLLOW, sets its mode and
 * owner, and uses it for every line from now on. 0, or a negative errno
 * (then lines keep going where they went).
 */
int trawl_log_open(const struct trawl_log_config *cfg);

/* Sets the level (also before trawl_log_open()). */
void trawl_log_set_level(enum trawl_log_level level);
/* "error", "warning", "info", "debug" (or 0-3): 0, or -EINVAL. */
int trawl_log_level_parse(const char *name, enum trawl_log_level *level);
/* 1 if a line at @level would be written. */
int trawl_log_enabled(enum trawl_log_level level);

void trawl_log(enum trawl_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void trawl_vlog(enum trawl_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/*
 * trawl_log_peer - a line caused by a peer (a uid, a pid: @key), rate
 * limited: TRAWL_LOG_PEER_BURST lines, then one per second for that peer,
 * and TRAWL_LOG_PEERS_PER_SEC for all peers together. Returns 1 if the line
 * was written, 0 if it was held back (and counted).
 */
int trawl_log_peer(uint64_t key, enum trawl_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Bytes written to the current file since it was opened (tests, status). */
uint64_t trawl_log_bytes(void);

#endif /* TRAWL_COMMON_LOG_H */
