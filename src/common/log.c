/* SPDX-License-Identifier: MIT */
/*
 * log.c - the daemons' logger (contract in log.h).
 *
 * Each line is formatted whole into one buffer and written with one
 * write() on an O_APPEND descriptor, so lines from several processes
 * sharing the file never interleave. Bytes that are not printable (a
 * newline in an app's process name, an escape sequence in a session name)
 * are written as '?': a peer must not be able to forge a line, nor drive a
 * terminal that shows the log.
 *
 * The size is taken from the file (fstat), not counted, so writes that
 * bypass the logger (a sanitizer report on fd 2) count too.
 */
#include "common/log.h"
#include "common/common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 2048
#define PEER_SLOTS 64

struct peer_slot {
	uint64_t key;
	int used;
	double tokens;
	uint64_t last_ms; /* last refill, and last use (the slot to evict) */
	uint64_t held;    /* lines not written since the last one that was */
};

static struct {
	pthread_mutex_t lock;
	char ident[64];
	char path[PATH_MAX];
	enum trawl_log_level level;
	uint64_t max_bytes;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	int to_stderr;
	int fd; /* -1: stderr */
	uint64_t bytes;
	struct peer_slot peers[PEER_SLOTS];
	double all_tokens;
	uint64_t all_last_ms;
	uint64_t evicted_held; /* held lines of slots reused for other peers */
} lg = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.ident = "trawl",
	.level = TRAWL_LOG_INFO,
	.fd = -1,
	.all_tokens = TRAWL_LOG_PEERS_PER_SEC,
};

static const char *const level_names[] = {"error", "warning", "info", "debug"};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int open_file(void)
{
	struct stat st;
	int fd;

	fd = open(lg.path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
		  lg.mode);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	/* An older file may have been made with a wider mode: narrow it. */
	if ((lg.uid != (uid_t)-1 && fchown(fd, lg.uid, lg.gid)) || fchmod(fd, lg.mode)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	if (lg.to_stderr)
		dup2(fd, 2);
	lg.bytes = (uint64_t)st.st_size;
	return fd;
}

/* The file passed max_bytes: PATH -> PATH.1, and a new PATH. Under the lock. */
static void rotate(void)
{
	char old[PATH_MAX + 2];
	int fd;

	if (snprintf(old, sizeof(old), "%s.1", lg.path) >= (int)sizeof(old) ||
	    rename(lg.path, old))
		return; /* keep writing where we are rather than lose lines */
	fd = open_file();
	if (fd < 0)
		return;
	close(lg.fd);
	lg.fd = fd;
}

int trawl_log_open(const struct trawl_log_config *cfg)
{
	int fd, ret = 0;

	pthread_mutex_lock(&lg.lock);
	trawl_msg_fmt(lg.ident, sizeof(lg.ident), "%s", cfg->ident ? cfg->ident : "trawl");
	lg.level = cfg->level;
	lg.max_bytes = cfg->max_bytes;
	lg.mode = cfg->mode;
	lg.uid = cfg->uid;
	lg.gid = cfg->gid;
	lg.to_stderr = cfg->to_stderr;
	if (cfg->path) {
		if (snprintf(lg.path, sizeof(lg.path), "%s", cfg->path) >= (int)sizeof(lg.path)) {
			ret = -ENAMETOOLONG;
			goto out;
		}
		fd = open_file();
		if (fd < 0) {
			ret = fd;
			goto out;
		}
		if (lg.fd >= 0)
			close(lg.fd);
		lg.fd = fd;
	}
out:
	pthread_mutex_unlock(&lg.lock);
	return ret;
}

void trawl_log_set_level(enum trawl_log_level level)
{
	pthread_mutex_lock(&lg.lock);
	lg.level = level;
	pthread_mutex_unlock(&lg.lock);
}

int trawl_log_level_parse(const char *name, enum trawl_log_level *level)
{
	size_t i;

	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (!strcmp(name, level_names[i]) || (name[0] == (char)('0' + i) && !name[1]) ||
		    (i == TRAWL_LOG_WARN && !strcmp(name, "warn"))) {
			*level = (enum trawl_log_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

int trawl_log_enabled(enum trawl_log_level level)
{
	return level <= __atomic_load_n(&lg.level, __ATOMIC_RELAXED);
}

uint64_t trawl_log_bytes(void)
{
	uint64_t n;

	pthread_mutex_lock(&lg.lock);
	n = lg.bytes;
	pthread_mutex_unlock(&lg.lock);
	return n;
}

/* Formats and writes one line; @held lines were held back before it. Under the lock. */
__attribute__((format(printf, 3, 0))) static void emit(enum trawl_log_level level, uint64_t held,
							const char *fmt, va_list ap)
{
	char buf[LINE_MAX_BYTES];
	struct timespec ts;
	struct stat st;
	size_t n, start, i;
	int k;

	clock_gettime(CLOCK_REALTIME, &ts);
	k = snprintf(buf, sizeof(buf), "[%lld.%03ld] %s[%d]: %s%s", (long long)ts.tv_sec,
		     ts.tv_nsec / 1000000, lg.ident, (int)getpid(),
		     level == TRAWL_LOG_INFO ? "" : level_names[level],
		     level == TRAWL_LOG_INFO ? "" : ": ");
	n = k < 0 ? 0 : TRAWL_MIN((size_t)k, sizeof(buf) - 1);
	if (held) {
		k = snprintf(buf + n, sizeof(buf) - n, "(%llu similar lines held back) ",
			     (unsigned long long)held);
		n += k < 0 ? 0 : TRAWL_MIN((size_t)k, sizeof(buf) - 1 - n);
	}
	start = n;
	k = vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	n += k < 0 ? 0 : TRAWL_MIN((size_t)k, sizeof(buf) - 1 - n);
	if (n >= sizeof(buf) - 1) {
		/* Cut: says so, and keeps room for the newline. */
		memcpy(buf + sizeof(buf) - 5, "...", 3);
		n = sizeof(buf) - 2;
	}
	for (i = start; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = buf[i] == '\t' ? ' ' : '?';
	buf[n++] = '\n';
	if (write(lg.fd >= 0 ? lg.fd : 2, buf, n) < 0) {
		/* Nowhere else to say it. */
	}
	if (lg.fd < 0 || !lg.max_bytes)
		return;
	lg.bytes = fstat(lg.fd, &st) ? lg.bytes + n : (uint64_t)st.st_size;
	if (lg.bytes >= lg.max_bytes)
		rotate();
}

void trawl_vlog(enum trawl_log_level level, const char *fmt, va_list ap)
{
	if (!trawl_log_enabled(level))
		return;
	pthread_mutex_lock(&lg.lock);
	emit(level, 0, fmt, ap);
	pthread_mutex_unlock(&lg.lock);
}

void trawl_log(enum trawl_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trawl_vlog(level, fmt, ap);
	va_end(ap);
}

/* @key's slot (a free one, or the one unused the longest). Under the lock. */
static struct peer_slot *peer_slot(uint64_t key, uint64_t now)
{
	struct peer_slot *p, *oldest = &lg.peers[0];
	size_t i;

	for (i = 0; i < PEER_SLOTS; i++) {
		p = &lg.peers[i];
		if (p->used && p->key == key)
			return p;
		if (!p->used || (oldest->used && p->last_ms < oldest->last_ms))
			oldest = p;
	}
	lg.evicted_held += oldest->used ? oldest->held : 0;
	*oldest = (struct peer_slot){.key = key, .used = 1, .tokens = TRAWL_LOG_PEER_BURST,
				     .last_ms = now};
	return oldest;
}

static double refill(double tokens, uint64_t *last, uint64_t now, double per_sec, double cap)
{
	tokens += (double)(now - *last) * per_sec / 1000.0;
	*last = now;
	return tokens > cap ? cap : tokens;
}

int trawl_log_peer(uint64_t key, enum trawl_log_level level, const char *fmt, ...)
{
	struct peer_slot *p;
	uint64_t now = now_ms(), held;
	va_list ap;
	int ok;

	if (!trawl_log_enabled(level))
		return 0;
	pthread_mutex_lock(&lg.lock);
	p = peer_slot(key, now);
	p->tokens = refill(p->tokens, &p->last_ms, now, 1.0, TRAWL_LOG_PEER_BURST);
	lg.all_tokens = refill(lg.all_tokens, &lg.all_last_ms, now, TRAWL_LOG_PEERS_PER_SEC,
			       TRAWL_LOG_PEERS_PER_SEC);
	ok = p->tokens >= 1.0 && lg.all_tokens >= 1.0;
	if (ok) {
		p->tokens -= 1.0;
		lg.all_tokens -= 1.0;
		held = p->held + lg.evicted_held;
		p->held = 0;
		lg.evicted_held = 0;
		va_start(ap, fmt);
		emit(level, held, fmt, ap);
		va_end(ap);
	} else {
		p->held++;
	}
	pthread_mutex_unlock(&lg.lock);
	return ok;
}
