/* SPDX-License-Identifier: MIT */
/*
 * live-trace.c - what the live server knows of a session's trace folders:
 * finding traces and streams as their files appear, following the metadata
 * as it grows, and reading index entries. No sockets here (live.c).
 *
 * The writer's promises this relies on (trawl-relayd and the consumers keep
 * them): a packet's data is written before its index entry; an index file
 * only grows, by whole entries eventually (a reader may see part of one);
 * the metadata file only grows, either by appends or by being replaced whole
 * (rename) with a longer file of which the old one is a prefix.
 *
 * Locking: a session's traces and streams arrays, each trace's metadata
 * buffer and scanner, and the scan bookkeeping are under the session's lock.
 * A trace or stream, once created, keeps its address and its fds until the
 * session is freed, so viewers use them (pread) without the lock.
 */
#include "common/array.h"
#include "common/common.h"
#include "relayd/live-internal.h"
#include "common/fs.h"

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Bounds on what one session may make us hold: files are trusted to be
 * trace files, not to be small. */
#define MAX_METADATA (64u << 20)
#define MAX_TRACES 256u
#define MAX_STREAMS 8192u
#define MAX_DEPTH 6
/* A session's folders are listed at most this often (viewers poll); short,
 * as a new trace found late may have events older than what a viewer was
 * already sent of the others. */
#define SCAN_INTERVAL_NS 1000000u

uint64_t live_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t live_trace_to_ns(const struct live_trace *t, uint64_t v)
{
	int64_t ns;

	if (!t->clock_freq)
		return v;
	ns = t->clock_base_ns + (int64_t)((unsigned __int128)v * 1000000000u / t->clock_freq);
	return ns > 0 ? (uint64_t)ns : 0;
}

uint64_t live_trace_from_ns(const struct live_trace *t, uint64_t ns)
{
	if (!t->clock_freq)
		return ns;
	if ((int64_t)ns <= t->clock_base_ns)
		return 0;
	return (uint64_t)((unsigned __int128)((int64_t)ns - t->clock_base_ns) * t->clock_freq / 1000000000u);
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC in ns: of 16 tries, the closest pair. */
static int64_t mono_epoch_offset(void)
{
	int64_t best_gap = INT64_MAX, best = 0;
	int i;

	for (i = 0; i < 16; i++) {
		struct timespec m1, r, m2;
		int64_t a, b, gap;

		clock_gettime(CLOCK_MONOTONIC, &m1);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &m2);
		a = (int64_t)m1.tv_sec * 1000000000 + m1.tv_nsec;
		b = (int64_t)m2.tv_sec * 1000000000 + m2.tv_nsec;
		gap = b - a;
		if (gap < best_gap) {
			best_gap = gap;
			best = (int64_t)r.tv_sec * 1000000000 + r.tv_nsec - (a + gap / 2);
		}
	}
	return best;
}

static int boot_id(uint8_t out[16])
{
	char buf[64];
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	int ret = -ENOENT;
	uint8_t clock_uuid[16];
	int has;
	uint64_t freq;
	char md[128];

	if (!f)
		return -errno;
	if (fgets(buf, sizeof(buf), f)) {
		/* Reuse the metadata parser on a one-line clock block. */
		snprintf(md, sizeof(md), "clock { uuid = \"%.36s\"; };", buf);
		if (live_metadata_clock(md, strlen(md), clock_uuid, &has, &freq) == 0 && has) {
			memcpy(out, clock_uuid, 16);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* ---- metadata ---- */

static void trace_clock_check(struct live_trace *t)
{
	uint8_t uuid[16], boot[16];
	uint64_t freq;
	int has;

	if (t->clock_known || !t->scan.usable)
		return;
	if (live_metadata_clock(t->md, (size_t)t->scan.usable, uuid, &has, &freq))
		return;
	t->clock_known = 1;
	/* Our CLOCK_MONOTONIC is the trace's clock when the trace says it is
	 * this boot's monotonic clock (trawl names clocks by boot id) at 1 GHz;
	 * a linear map of it at another frequency (the TSC of user-space traces,
	 * whose offset puts it on CLOCK_MONOTONIC's scale, ust-clock.c). */
	t->clock_local = has && freq && boot_id(boot) == 0 && !memcmp(uuid, boot, 16);
	if (t->clock_local && freq != 1000000000u) {
		int64_t off_s, off;

		live_metadata_clock_offset(t->md, (size_t)t->scan.usable, &off_s, &off);
		t->clock_freq = freq;
		/* mono = value / f + the clock's offset - our mono's on the Epoch */
		t->clock_base_ns = off_s * 1000000000 + (int64_t)((__int128)off * 1000000000 / (__int128)freq) -
				   mono_epoch_offset();
	}
}

/*
 * Opens @rel ("metadata", "index/X.idx", "X") of @t for reading as
 * common/fs.h does: a link, a FIFO or a device put there is refused without
 * blocking this viewer's thread (and no link leads the server to a file
 * that is not the trace's). fd or -1.
 */
static int trace_file_open(const struct live_trace *t, const char *rel)
{
	int dir = trawl_fs_dir_open(AT_FDCWD, t->dir, 0, 0, NULL, 0), fd;

	if (dir < 0)
		return -1;
	fd = trawl_fs_file_read(dir, rel, NULL, 0);
	close(dir);
	return fd < 0 ? -1 : fd;
}

/* Reads what the metadata file gained since last time. Session lock held. */
static void trace_metadata_update(struct live_trace *t)
{
	char path[LIVE_PATH_MAX + 16];
	struct stat st;
	uint64_t want;
	ssize_t n;
	int fd;

	trawl_msg_fmt(path, sizeof(path), "%s/metadata", t->dir); /* for the log only */
	fd = trace_file_open(t, "metadata");
	if (fd < 0)
		return;
	if (fstat(fd, &st) || (uint64_t)st.st_size <= t->md_read)
		goto out;
	want = (uint64_t)st.st_size;
	if (want > MAX_METADATA) {
		if (!t->md_too_big)
			fprintf(stderr, "trawl-relayd: live: %s is over %u bytes: not served past that\n",
				path, MAX_METADATA);
		t->md_too_big = 1;
		want = MAX_METADATA;
		if (want <= t->md_read)
			goto out;
	}
	if (trawl_array_grow((void **)&t->md, &t->md_cap, (size_t)want, 1, 4096))
		goto out;
	while (t->md_read < want) {
		n = pread(fd, t->md + t->md_read, (size_t)(want - t->md_read), (off_t)t->md_read);
		if (n <= 0)
			break;
		t->md_read += (uint64_t)n;
	}
	live_tsdl_scan_feed(&t->scan, t->md, (size_t)t->md_read);
	trace_clock_check(t);
out:
	close(fd);
}

/* ---- discovery ---- */

static struct live_trace *trace_find_or_add(struct live_session *s, const char *abs, const char *rel)
{
	struct live_trace *t, **a;
	size_t i;

	for (i = 0; i < s->nr_traces; i++)
		if (!strcmp(s->traces[i]->dir, abs))
			return s->traces[i];
	if (s->nr_traces >= MAX_TRACES)
		return NULL;
	t = calloc(1, sizeof(*t));
	a = realloc(s->traces, (s->nr_traces + 1) * sizeof(*a));
	if (!t || !a) {
		free(t);
		if (a)
			s->traces = a;
		return NULL;
	}
	s->traces = a;
	t->dir = strdup(abs);
	t->rel = strdup(rel[0] ? rel : ".");
	if (!t->dir || !t->rel) {
		free(t->dir);
		free(t->rel);
		free(t);
		return NULL;
	}
	t->id = live_next_id(s->rl);
	t->md_stream_id = live_next_id(s->rl);
	t->found_ns = s->prev_scan_ns;
	{
		const char *base = strrchr(abs, '/');

		t->kernel = !strcmp(base ? base + 1 : abs, "kernel");
	}
	live_tsdl_scan_init(&t->scan);
	s->traces[s->nr_traces++] = t;
	return t;
}

/* A stream follows this many files at most (each holds two fds until the
 * session ends); past that, its next files are not served (logged once). */
#define MAX_SEGS 1024u

/* 1 if a segment of @t's streams has file @sb (its data file, or its index: @idx). */
static int file_known(const struct live_session *s, const struct live_trace *t,
		      const struct stat *sb, int idx)
{
	const struct live_seg *g;
	size_t i;

	for (i = 0; i < s->nr_streams; i++) {
		if (s->streams[i]->trace != t)
			continue;
		for (g = s->streams[i]->segs; g; g = __atomic_load_n(&g->next, __ATOMIC_RELAXED))
			if (g->dev == sb->st_dev && (idx ? g->idx_ino : g->data_ino) == sb->st_ino)
				return 1;
	}
	return 0;
}

/* The length of @name's base when it is a split stream's file name,
 * <channel>_<cpu>_<n> (two numbered parts); else 0. */
static size_t split_base(const char *name)
{
	size_t n = strlen(name), i = n, parts = 0;

	while (parts < 2) {
		size_t d = i;

		while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
			i--;
		if (i == d || i < 2 || name[i - 1] != '_')
			return 0;
		if (!parts)
			n = i - 1; /* the base: up to the last '_' */
		i--;
		parts++;
	}
	return n;
}

/* The CTF stream (class id, instance id) of the first entry of @idx_fd's
 * index (entries @len bytes): 0, or -EAGAIN while it has none. */
static int first_stream(int idx_fd, uint32_t len, uint64_t id[2])
{
	unsigned char buf[64];

	if (len < sizeof(buf) ||
	    pread(idx_fd, buf, sizeof(buf), LIVE_INDEX_HEADER_SIZE) != (ssize_t)sizeof(buf))
		return -EAGAIN;
	memcpy(id, buf + 48, 2 * sizeof(*id)); /* stream_id, stream_instance_id */
	id[0] = be64toh(id[0]);
	id[1] = be64toh(id[1]);
	return 0;
}

/*
 * The stream of @t that file @name (its index open as @idx_fd, entries
 * @len bytes) goes on: one whose last file had that name (replaced: a
 * clear, a split stream's count going round), or, for a split stream's
 * file <base>_<n> (--tracefile-size), one whose last file is <base>_<m>
 * and whose first packet is of the same CTF stream (a channel may be
 * named <x>_<k>: its CPUs' files then look like a split stream's). NULL:
 * a new stream; with *@again set: cannot tell until the file has a packet.
 */
static struct live_stream *stream_continued(struct live_session *s, struct live_trace *t,
					    const char *name, int idx_fd, uint32_t len,
					    int *again)
{
	size_t i, b = split_base(name);
	uint64_t mine[2], theirs[2];

	*again = 0;
	for (i = 0; i < s->nr_streams; i++)
		if (s->streams[i]->trace == t && !strcmp(s->streams[i]->last->name, name))
			return s->streams[i];
	if (!b)
		return NULL;
	for (i = 0; i < s->nr_streams; i++) {
		struct live_stream *st = s->streams[i];
		const char *other = st->last->name;

		if (st->trace != t || split_base(other) != b || strncmp(other, name, b))
			continue;
		if (first_stream(idx_fd, len, mine) || first_stream(st->last->idx_fd, len, theirs)) {
			*again = 1;
			return NULL;
		}
		if (mine[0] == theirs[0] && mine[1] == theirs[1])
			return st;
	}
	return NULL;
}

/*
 * 0 if index @idx_fd may be data @data_fd's: a writer makes a stream's data
 * file, then its index, so an index born before its data file is the one
 * of the file that data file replaced (a count gone round, or a clear,
 * between two scans): its entries name another file's packets. -EAGAIN
 * then (the next scan finds the pair whole). Birth times (statx); a file
 * system without them is taken at its word.
 */
static int pair_whole(int data_fd, int idx_fd)
{
	struct statx d, x;

	if (statx(data_fd, "", AT_EMPTY_PATH, STATX_BTIME, &d) ||
	    statx(idx_fd, "", AT_EMPTY_PATH, STATX_BTIME, &x) || !(d.stx_mask & STATX_BTIME) ||
	    !(x.stx_mask & STATX_BTIME))
		return 0;
	if (x.stx_btime.tv_sec < d.stx_btime.tv_sec ||
	    (x.stx_btime.tv_sec == d.stx_btime.tv_sec && x.stx_btime.tv_nsec < d.stx_btime.tv_nsec))
		return -EAGAIN;
	return 0;
}

/* @g goes on @st after its last segment, whose entries and bytes are final now. */
static void seg_append(struct live_stream *st, struct live_seg *g)
{
	struct live_seg *prev = st->last;
	struct stat d, x;

	if (fstat(prev->data_fd, &d) || fstat(prev->idx_fd, &x)) {
		d.st_size = 0;
		x.st_size = 0;
	}
	prev->nr = (uint64_t)x.st_size < LIVE_INDEX_HEADER_SIZE
			   ? 0
			   : ((uint64_t)x.st_size - LIVE_INDEX_HEADER_SIZE) / st->entry_len;
	prev->size = (uint64_t)d.st_size;
	g->first = prev->first + prev->nr;
	g->base = prev->base + prev->size;
	/* whole before it is seen: pairs with the acquire loads of viewers */
	__atomic_store_n(&prev->next, g, __ATOMIC_RELEASE);
	st->last = g;
	st->nr_segs++;
}

/* Opens file @name of @t (a new stream's, or the next file of one) if its
 * index file is there with a whole header. */
static void stream_try_add(struct live_session *s, struct live_trace *t, const char *name)
{
	char path[LIVE_PATH_MAX + LIVE_NAME_MAX + 32], rel[LIVE_NAME_MAX + 16];
	unsigned char hdr[LIVE_INDEX_HEADER_SIZE];
	struct live_stream *st = NULL, *host, **a;
	struct live_seg *g;
	struct stat dsb, isb;
	int data_fd, idx_fd, len, again;

	if (s->nr_streams >= MAX_STREAMS || strlen(name) >= LIVE_NAME_MAX)
		return;
	trawl_msg_fmt(path, sizeof(path), "%s/index/%s.idx", t->dir, name); /* for the log only */
	snprintf(rel, sizeof(rel), "index/%s.idx", name);
	idx_fd = trace_file_open(t, rel);
	if (idx_fd < 0)
		return;
	if (pread(idx_fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
		goto close_idx; /* header not written yet: next scan */
	len = live_index_header_check(hdr);
	if (len < 0) {
		fprintf(stderr, "trawl-relayd: live: %s: not an index file, stream ignored\n", path);
		goto close_idx;
	}
	data_fd = trace_file_open(t, name);
	if (data_fd < 0)
		goto close_idx;
	/* known; or replaced by half (a writer makes the data file, then the
	 * index): the next scan */
	if (fstat(data_fd, &dsb) || fstat(idx_fd, &isb) || file_known(s, t, &dsb, 0) ||
	    file_known(s, t, &isb, 1) || pair_whole(data_fd, idx_fd))
		goto close_both;
	host = stream_continued(s, t, name, idx_fd, (uint32_t)len, &again);
	if (again || (host && (uint32_t)len != host->entry_len))
		goto close_both;
	if (host && host->nr_segs >= MAX_SEGS) {
		if (host->nr_segs++ == MAX_SEGS)
			fprintf(stderr, "trawl-relayd: live: %s/%s: over %u files, the next are not "
				"served\n", t->dir, host->name, MAX_SEGS);
		goto close_both;
	}
	g = calloc(1, sizeof(*g));
	if (!g || !(g->name = strdup(name))) {
		free(g);
		goto close_both;
	}
	g->data_fd = data_fd;
	g->idx_fd = idx_fd;
	g->dev = dsb.st_dev;
	g->data_ino = dsb.st_ino;
	g->idx_ino = isb.st_ino;
	if (host) {
		seg_append(host, g);
		return;
	}
	st = calloc(1, sizeof(*st));
	a = realloc(s->streams, (s->nr_streams + 1) * sizeof(*a));
	if (a)
		s->streams = a;
	if (!st || !a || !(st->name = strdup(name))) {
		free(st);
		free(g->name);
		free(g);
		goto close_both;
	}
	st->id = live_next_id(s->rl);
	st->trace = t;
	st->segs = st->last = g;
	st->nr_segs = 1;
	st->entry_len = (uint32_t)len;
	st->found_ns = s->prev_scan_ns;
	s->streams[s->nr_streams++] = st;
	t->nr_streams++;
	return;
close_both:
	close(data_fd);
close_idx:
	close(idx_fd);
}

static int is_dir(const char *path, const struct dirent *d)
{
	struct stat st;

	if (d->d_type == DT_DIR)
		return 1;
	if (d->d_type != DT_UNKNOWN)
		return 0;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_reg(const char *path, const struct dirent *d)
{
	struct stat st;

	if (d->d_type == DT_REG)
		return 1;
	if (d->d_type != DT_UNKNOWN)
		return 0;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* 1 if a segment of @t's streams has data file @ino (readdir's: no
 * syscall; a segment's fd is open, so its inode number is not reused). */
static int ino_known(const struct live_session *s, const struct live_trace *t, ino_t ino)
{
	const struct live_seg *g;
	size_t i;

	for (i = 0; i < s->nr_streams; i++)
		if (s->streams[i]->trace == t)
			for (g = s->streams[i]->segs; g; g = __atomic_load_n(&g->next, __ATOMIC_RELAXED))
				if (g->data_ino == ino)
					return 1;
	return 0;
}

/* A stream file not known yet, and the begin time of its first packet
 * (UINT64_MAX: none yet). */
struct found_file {
	char name[LIVE_NAME_MAX];
	uint64_t first_ts;
};

static int found_cmp(const void *a, const void *b)
{
	const struct found_file *x = a, *y = b;

	if (x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Files of one scan taken in time order at most: the rest, next scan. */
#define MAX_FOUND 64u

/*
 * A trace folder: its metadata, then its streams (once it has metadata).
 * New files are taken in the order of their first packets: a split
 * stream's files found in one scan (a viewer attached late, the count
 * gone round) go on their stream oldest first, whatever the folder's
 * order.
 */
static void scan_trace(struct live_session *s, const char *abs, const char *rel)
{
	char path[LIVE_PATH_MAX + LIVE_NAME_MAX + 8], irel[LIVE_NAME_MAX + 16];
	struct live_trace *t = trace_find_or_add(s, abs, rel);
	struct found_file found[MAX_FOUND];
	unsigned char e[32];
	size_t nf = 0, i;
	struct dirent *d;
	DIR *dir;

	if (!t)
		return;
	trace_metadata_update(t);
	if (!t->scan.usable)
		return; /* announced with its streams once it has metadata */
	dir = opendir(abs);
	if (!dir)
		return;
	while (nf < MAX_FOUND && (d = readdir(dir))) {
		size_t n = strlen(d->d_name);
		int fd;

		if (d->d_name[0] == '.' || !strcmp(d->d_name, "metadata") ||
		    (n > 4 && !strcmp(d->d_name + n - 4, ".tmp")) || n >= LIVE_NAME_MAX ||
		    ino_known(s, t, d->d_ino))
			continue;
		if (trawl_path_fmt(path, sizeof(path), "%s/%s", abs, d->d_name) || !is_reg(path, d))
			continue;
		memcpy(found[nf].name, d->d_name, n + 1);
		found[nf].first_ts = UINT64_MAX;
		fd = trawl_path_fmt(irel, sizeof(irel), "index/%s.idx", d->d_name)
			     ? -1
			     : trace_file_open(t, irel);
		if (fd >= 0 && pread(fd, e, sizeof(e), LIVE_INDEX_HEADER_SIZE) == (ssize_t)sizeof(e)) {
			memcpy(&found[nf].first_ts, e + 24, sizeof(found[nf].first_ts));
			found[nf].first_ts = be64toh(found[nf].first_ts); /* timestamp_begin */
		}
		if (fd >= 0)
			close(fd);
		nf++;
	}
	closedir(dir);
	qsort(found, nf, sizeof(found[0]), found_cmp);
	for (i = 0; i < nf; i++)
		stream_try_add(s, t, found[i].name);
}

static void scan_tree(struct live_session *s, const char *abs, const char *rel, int depth)
{
	char path[LIVE_PATH_MAX], sub[LIVE_PATH_MAX];
	struct stat st;
	struct dirent *d;
	DIR *dir;

	if (!trawl_path_fmt(path, sizeof(path), "%s/metadata", abs) && stat(path, &st) == 0 &&
	    S_ISREG(st.st_mode)) {
		scan_trace(s, abs, rel);
		return;
	}
	if (depth >= MAX_DEPTH)
		return;
	dir = opendir(abs);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, "index"))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", abs, d->d_name) >= sizeof(path) ||
		    (size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", d->d_name) >=
			    sizeof(sub))
			continue;
		if (is_dir(path, d))
			scan_tree(s, path, sub, depth + 1);
	}
	closedir(dir);
}

void live_session_scan(struct live_session *s, int force)
{
	uint64_t now = live_now_ns();
	size_t i;

	if (!force && s->scanned && now - s->last_scan_ns < SCAN_INTERVAL_NS)
		return;
	/*
	 * What this scan finds was not there (whole) when the previous one
	 * began: its found_ns is that time, a bound for its first events
	 * however late we look (live-quiet.c holds other streams there).
	 */
	s->prev_scan_ns = s->scanned ? s->last_scan_ns : now;
	s->last_scan_ns = now;
	s->scanned = 1;
	scan_tree(s, s->root, "", 0);
	/* Metadata of traces already known, even when nothing new appeared. */
	for (i = 0; i < s->nr_traces; i++)
		trace_metadata_update(s->traces[i]);
}

/* ---- index ---- */

/* @st's last published segment (viewers: without the session lock). */
static const struct live_seg *seg_last(const struct live_stream *st)
{
	const struct live_seg *g = st->segs, *n;

	while ((n = __atomic_load_n(&g->next, __ATOMIC_ACQUIRE)))
		g = n;
	return g;
}

int live_stream_beacon(const struct live_session *s, const struct live_stream *st,
		       uint64_t *entries, uint64_t *ts_end)
{
	const struct live_seg *g = seg_last(st);
	size_t i;

	for (i = 0; i < s->nr_beacons; i++) {
		const struct live_beacon *b = &s->beacons[i];

		if (b->dev != g->dev || b->ino != g->idx_ino)
			continue;
		*entries = g->first + (b->idx_size < LIVE_INDEX_HEADER_SIZE
					       ? 0
					       : (b->idx_size - LIVE_INDEX_HEADER_SIZE) / st->entry_len);
		*ts_end = b->ts_end;
		return 1;
	}
	return 0;
}

int live_stream_entries(const struct live_stream *st, uint64_t *count)
{
	const struct live_seg *g = seg_last(st);
	struct stat sb;

	if (fstat(g->idx_fd, &sb))
		return -errno;
	*count = g->first + ((uint64_t)sb.st_size < LIVE_INDEX_HEADER_SIZE
				     ? 0
				     : ((uint64_t)sb.st_size - LIVE_INDEX_HEADER_SIZE) / st->entry_len);
	return 0;
}

int live_stream_entry(const struct live_stream *st, uint64_t k, struct live_index_entry *e)
{
	unsigned char buf[LIVE_INDEX_ENTRY_MIN];
	const struct live_seg *g = st->segs, *n;
	struct stat sb;
	uint64_t off, size;
	int ret;

	/* the segment holding entry @k: the last, or one a later one follows */
	while ((n = __atomic_load_n(&g->next, __ATOMIC_ACQUIRE)) && k >= n->first)
		g = n;
	k -= g->first;
	if (k > (UINT64_MAX - LIVE_INDEX_HEADER_SIZE) / st->entry_len)
		return -EINVAL;
	off = LIVE_INDEX_HEADER_SIZE + k * st->entry_len;
	if (pread(g->idx_fd, buf, sizeof(buf), (off_t)off) != (ssize_t)sizeof(buf))
		return -EAGAIN;
	if (n) {
		size = g->size; /* final */
	} else {
		if (fstat(g->data_fd, &sb))
			return -errno;
		size = (uint64_t)sb.st_size;
	}
	ret = live_index_entry_decode(buf, size, e);
	if (!ret)
		e->offset += g->base;
	return ret;
}

ssize_t live_stream_read(const struct live_stream *st, uint64_t offset, void *buf, size_t len)
{
	const struct live_seg *g = st->segs, *n;
	struct stat sb;
	uint64_t size;
	size_t got = 0;

	while ((n = __atomic_load_n(&g->next, __ATOMIC_ACQUIRE)) && offset >= n->base)
		g = n;
	if (n) {
		size = g->size;
	} else {
		if (fstat(g->data_fd, &sb))
			return -errno;
		size = (uint64_t)sb.st_size;
	}
	offset -= g->base;
	if (offset >= size)
		return -ERANGE;
	/* no more than the segment has (a packet is in one segment) */
	if (len > size - offset)
		len = (size_t)(size - offset);
	if (!buf)
		return (ssize_t)len;
	while (got < len) {
		ssize_t r = pread(g->data_fd, (char *)buf + got, len - got, (off_t)(offset + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got ? (ssize_t)got : -EIO;
}

/* ---- session lifetime ---- */

void live_session_free(struct live_session *s)
{
	size_t i;

	for (i = 0; i < s->nr_streams; i++) {
		struct live_seg *g = s->streams[i]->segs, *n;

		for (; g; g = n) {
			n = g->next;
			close(g->data_fd);
			close(g->idx_fd);
			free(g->name);
			free(g);
		}
		free(s->streams[i]->name);
		free(s->streams[i]);
	}
	for (i = 0; i < s->nr_traces; i++) {
		free(s->traces[i]->dir);
		free(s->traces[i]->rel);
		free(s->traces[i]->md);
		free(s->traces[i]);
	}
	free(s->streams);
	free(s->traces);
	free(s->beacons);
	free(s->root);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
