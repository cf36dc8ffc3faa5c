/* SPDX-License-Identifier: MIT */
/*
 * Small helpers every part of trawl uses. Keep this header tiny: a helper
 * belongs here only once two parts need it.
 */
#ifndef TRAWL_COMMON_H
#define TRAWL_COMMON_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Marks a symbol exported from a shared library; everything else is hidden. */
#define TRAWL_EXPORT __attribute__((visibility("default")))

#define TRAWL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define trawl_likely(x) __builtin_expect(!!(x), 1)
#define trawl_unlikely(x) __builtin_expect(!!(x), 0)
#define TRAWL_ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define TRAWL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TRAWL_MAX(a, b) ((a) > (b) ? (a) : (b))

/*
 * trawl_runtime_dir - the per-user daemon state folder.
 * $TRAWL_ROOT_RUNTIME_DIR / $TRAWL_RUNTIME_DIR override everything (tests use
 * them). Root's daemon uses /run/trawl; other users $XDG_RUNTIME_DIR/trawl, or
 * $HOME/.trawl when XDG_RUNTIME_DIR is unset. Writes at most @len bytes
 * (NUL included) into @buf. Returns 0 or -ENAMETOOLONG / -ENOENT.
 * Does not create the folder: see trawl_runtime_dir_create().
 */
int trawl_runtime_dir(char *buf, size_t len, int root_daemon);

/*
 * trawl_traces_dir - where traces go when no output is given (sessions,
 * trawl-relayd): $LTTNG_HOME/lttng-traces when LTTNG_HOME is set, as LTTng
 * 2.13 does; else $HOME/trawl-traces (the password file's home without
 * HOME). 0, -ENOENT or -ENAMETOOLONG.
 */
int trawl_traces_dir(char *buf, size_t len);

/* Creates the folder named by trawl_runtime_dir() with mode 0700 (0750 for root's). */
int trawl_runtime_dir_create(char *buf, size_t len, int root_daemon);

/*
 * trawl_self_dir - the folder holding the running executable (from
 * /proc/self/exe), so an installed tree finds its daemons and libraries
 * relative to itself. Returns 0 or a negative errno.
 */
int trawl_self_dir(char *buf, size_t len);

/*
 * trawl_find_program - the path of a trawl program (@name, e.g.
 * "trawl-sessiond"): first $TRAWL_<NAME>_PATH, then beside the running
 * executable, then ../libexec/trawl/ relative to it. Returns 0 or -ENOENT.
 */
int trawl_find_program(const char *name, char *buf, size_t len);

/*
 * trawl_path_fmt - snprintf() for what a cut would make into something
 * else: paths, names, messages sent on a socket, text written to tracefs.
 * Returns 0, or -ENAMETOOLONG when the result did not fit in @len bytes
 * (then @buf holds "" rather than a cut path, which could name another
 * file). The caller turns -ENAMETOOLONG into a one-line error.
 */
int trawl_path_fmt(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * trawl_msg_fmt - snprintf() for text people read (errors, warnings,
 * status lines): a text longer than @len - 1 bytes is cut and ends in
 * "...", so that the reader sees it was cut. Returns 0, or 1 when it was
 * cut. @buf always holds a NUL-terminated text (when @len > 0).
 */
int trawl_msg_fmt(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * trawl_str_printable - makes @s, text another user chose (a process's
 * name or argv[0]), safe to show on a terminal: a control character (C0,
 * DEL, or C1 in UTF-8) and each byte of a sequence that is not UTF-8
 * become '?', so that no escape sequence of theirs reaches root's screen.
 * Printable ASCII and UTF-8 text are kept. In place; returns @s.
 */
char *trawl_str_printable(char *s);
/* The first byte of @s that trawl_str_printable() would make '?', or NULL. */
const char *trawl_str_unprintable(const char *s);

/*
 * write(2) until all @len bytes are out (EINTR retried). 0 or -errno. For
 * files, and pipes or sockets whose reader is our own (a spawner, a child).
 * The two differ on purpose: a socket whose peer is someone else's process
 * goes through io.h's trawl_io_send_all() instead, whose send(MSG_NOSIGNAL)
 * makes a peer that closed first -EPIPE rather than a SIGPIPE (which kills
 * a traced program that does not expect it); write(2) cannot ask that, and
 * send(2) cannot write a file.
 */
int trawl_write_all(int fd, const void *buf, size_t len);

/*
 * trawl_as_user - runs @fn(@arg, @out, @fd) in a child process holding only
 * @uid's credentials (@gid and @uid's supplementary groups), so that every
 * path @fn opens is opened as that user would open it (as-user.c says why).
 * @fn returns 0 or a negative errno, fills @out (@outlen bytes, copied back
 * to the caller's @out) and may set *@fd to an fd to hand over. A child
 * that has not answered after @timeout_ms is killed (-ETIMEDOUT). When
 * @uid and @gid are the caller's own, @fn runs in the caller. Returns @fn's
 * result or a negative errno; *@fd is then the fd @fn handed over (the
 * caller closes it) or -1.
 */
typedef int (*trawl_as_user_fn)(void *arg, void *out, int *fd);
int trawl_as_user(uid_t uid, gid_t gid, trawl_as_user_fn fn, void *arg, void *out, size_t outlen,
		  int *fd, int timeout_ms);

/* mkdir -p @path with @mode for the folders it creates. 0 or -errno. */
int trawl_mkdir_p(const char *path, unsigned mode);

/*
 * A perf counter by the name add-context takes after "perf:cpu:" or
 * "perf:thread:" (LTTng's and perf-list(1)'s spellings, cache counters as
 * "L1-dcache-load-misses"): its perf_event_attr type and config. 0, or
 * -ENOENT for an unknown name.
 */
int trawl_perf_counter_lookup(const char *name, uint32_t *type, uint64_t *config);
/*
 * The @index-th name trawl_perf_counter_lookup() takes, aliases included,
 * into @buf; *@software: the kernel counts it on every machine (the others
 * need a hardware PMU). 0, -ENAMETOOLONG when it does not fit in @len
 * bytes, or -ENOENT past the last.
 */
int trawl_perf_counter_name(size_t index, char *buf, size_t len, int *software);

/* The value of hex digit @c, or -1. */
static inline int trawl_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The 36 characters "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" at @s into
 * @out: 0, or -EINVAL. Reads no further than the first character that does
 * not fit (so never past a NUL); what follows the 36 is the caller's to check.
 */
static inline int trawl_uuid_parse(const char *s, uint8_t out[16])
{
	int i, n = 0, h, l;

	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -EINVAL;
			continue;
		}
		if ((h = trawl_hexval(s[i])) < 0 || (l = trawl_hexval(s[i + 1])) < 0)
			return -EINVAL;
		out[n++] = (uint8_t)(h << 4 | l);
		i++;
	}
	return 0;
}

#endif /* TRAWL_COMMON_H */
