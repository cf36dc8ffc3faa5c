/* SPDX-License-Identifier: MIT */
/*
 * Reading a stream file's packets with read() into a reused buffer (the
 * stream's window) instead of touching them through its mapping.
 *
 * Why: a mapped page costs a page fault the first time it is touched, and
 * on a VM whose page tables the hypervisor shadows (PVM, the Firecracker
 * machines this project is benched on) every 4 KiB page of the mapping
 * costs a trap to the host on first touch, even when the kernel mapped it
 * ahead (fault-around, MAP_POPULATE, MADV_POPULATE_READ): the guest sees
 * one fault per ~47 pages, but the host's work shows up as the reader's
 * user time. read() copies from the page cache through the kernel's own
 * mapping into a buffer whose pages were touched once.
 *
 * Measured on that VM (2 vCPUs, Linux 6.18, load ~20 from other work),
 * passing over the 310 MB trace of bench/reader/run.sh, one load per
 * 64 bytes, CPU ms (user + system), 2 runs each, interleaved:
 *   mmap + MADV_SEQUENTIAL            164, 153
 *   mmap + MAP_POPULATE               188, 243
 *   mmap + MADV_POPULATE_READ / 2 MiB 164, 151
 *   mmap + MADV_WILLNEED / 2 MiB      170, 186
 *   mmap + MADV_HUGEPAGE              159, 164 (the page cache had small folios)
 *   pread 2 MiB into one buffer        36,  40
 *   pread 256 KiB into one buffer      27,  24, 26 (64 KiB to 1 MiB: 24-36)
 * trawl-view --decode-only on that trace (bench/reader/run.sh, which runs
 * it both ways in each round), CPU ms: 151, 140 with windows against 447,
 * 396 through the mapping (load ~33); 105 against 330 at load ~16. On a
 * machine where faults are cheap the copy should cost about what mapping
 * the pages did (the kernel maps 16 pages a fault there and copies at
 * several GB/s); not measured here.
 *
 * The window holds whole packets: a packet is decoded from one contiguous
 * buffer, as from the mapping. Small packets share a window (one read for
 * many); a larger packet grows it. What a window cannot take goes through
 * the mapping as before: packets over RD_WIN_MAX, streams beyond
 * RD_WIN_STREAMS open at once in a trace or past its RD_WIN_BUDGET bytes,
 * a file that cannot be opened again (no free descriptor) or is no longer
 * the file that was mapped, the probes and packet peeks of seeks.
 *
 * A stream opens its file again at its first packet and closes it, with
 * its window, at its end: a trace of thousands of files (rotations,
 * per-process buffers) holds a descriptor and a window only for the
 * streams being read.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "reader/decode_int.h"

/* The smallest window (bytes): 256 KiB read at a time costs least above. */
#define RD_WIN_MIN (256u << 10)
/* A packet larger than this (bytes) is read through the mapping. */
#define RD_WIN_MAX (64u << 20)
/* Streams of one trace with a window at once, and their bytes together. */
#define RD_WIN_STREAMS 64u
/* What a packet header and context take, at most, in most traces (bytes). */
#define RD_WIN_HEAD 4096u
#define RD_WIN_BUDGET (128u << 20)

struct win_limits {
	uint64_t min, max;	/* bytes; max 0: no windows */
};

/*
 * TRAWL_READER_WINDOW, for tests and benches: "0" reads every packet
 * through the mapping (as before windows), "MIN:MAX" (bytes) sets the
 * smallest window and the largest packet a window takes, so that tests
 * can cut windows anywhere. Anything else: the defaults.
 */
static struct win_limits win_lim;
static pthread_once_t win_lim_once = PTHREAD_ONCE_INIT;

static void win_limits_init(void)
{
	const char *e = secure_getenv("TRAWL_READER_WINDOW");
	unsigned long long a, b;
	char *end;

	win_lim.min = RD_WIN_MIN;
	win_lim.max = RD_WIN_MAX;
	if (!e)
		return;
	if (!strcmp(e, "0")) {
		win_lim.max = 0;
		return;
	}
	errno = 0;
	a = strtoull(e, &end, 10);
	if (errno || *end != ':' || !a || a > RD_WIN_MAX)
		return;
	b = strtoull(end + 1, &end, 10);
	if (errno || *end || !b || b > RD_WIN_MAX)
		return;
	win_lim.min = a;
	win_lim.max = b;
}

static const struct win_limits *win_limits(void)
{
	pthread_once(&win_lim_once, win_limits_init);
	return &win_lim;
}

/*
 * Opens @s's file again for reading. When it cannot for good (no free
 * descriptor, not the file mapped at open), the stream stays with its
 * mapping; when other streams hold all the windows, it tries again at its
 * next packet.
 */
static bool win_open(struct rd_stream *s)
{
	struct rd_win_pool *pool = s->win_pool;
	struct stat st;
	int fd;

	if (!win_limits()->max) {
		s->read_mode = RD_READ_MAP;
		return false;
	}
	if (!pool) {
		s->read_mode = RD_READ_MAP;
		return false;
	}
	if (pool->streams >= RD_WIN_STREAMS)
		return false;
	/* O_NONBLOCK: a FIFO swapped in since never holds us (a regular
	 * file's reads ignore the flag); fstat below refuses it. */
	fd = open(s->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		s->read_mode = RD_READ_MAP;
		return false;
	}
	/* the file mapped at open, still as long as it was */
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_dev != s->file_dev ||
	    (uint64_t)st.st_ino != s->file_ino || (uint64_t)st.st_size < s->size) {
		close(fd);
		s->read_mode = RD_READ_MAP;
		return false;
	}
	s->fd = fd;
	s->win_len = 0;
	pool->streams++;
	s->read_mode = RD_READ_WIN;
	return true;
}

void rd_stream_win_fini(struct rd_stream *s)
{
	if (s->read_mode != RD_READ_WIN)
		return;
	close(s->fd);
	s->fd = -1;
	free(s->win);
	s->win_pool->bytes -= s->win_cap;
	s->win_pool->streams--;
	s->win = NULL;
	s->win_cap = s->win_len = 0;
	s->read_mode = RD_READ_TRY;
}

/*
 * A window of at least @len bytes, RD_WIN_MIN or the file's size at least
 * (a larger one loses what it held): false when over the limits.
 *
 * A larger window is the smaller one grown by realloc(), not a new
 * buffer: glibc moves a buffer this size with mremap(), so the pages the
 * smaller one touched stay mapped, and on the PVM VM (see the top) the
 * first touch of a page of fresh memory costs 10-20 us (the first packet
 * of the bench trace, 1 MiB, after a 256 KiB window for its header: 64
 * such pages, ~1 ms, of the ~50 ms a decode of its 10 M events takes).
 */
static bool win_reserve(struct rd_stream *s, uint64_t len)
{
	const struct win_limits *lim = win_limits();
	struct rd_win_pool *pool = s->win_pool;
	uint64_t cap = s->size < lim->min ? s->size : lim->min;
	uint8_t *w;

	if (cap < len)
		cap = len;
	if (cap <= s->win_cap)
		return true;
	if (len > lim->max)
		return false;
	if (cap >= 4096)	/* whole pages (tests use smaller windows) */
		cap = (cap + 4095) & ~(uint64_t)4095;
	if (pool->bytes - s->win_cap + cap > RD_WIN_BUDGET)
		return false;
	s->win_len = 0;		/* (what it held is not kept) */
	w = realloc(s->win, cap);
	if (!w)
		return false;
	pool->bytes += cap - s->win_cap;
	s->win = w;
	s->win_cap = cap;
	return true;
}

/*
 * Reads [off, off + len) of the file into the window. -EIO with @err set
 * when the file gives less (it shrank: the mapping would have faulted).
 */
static int win_fill(struct rd_stream *s, uint64_t off, uint64_t len,
		    struct rd_err *err)
{
	uint64_t got = 0;

	s->win_len = 0;
	while (got < len) {
		ssize_t n = pread(s->fd, s->win + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rd_err_set(err, "%s: offset %" PRIu64 ": cannot read: %s", s->path,
				   off + got, n < 0 ? strerror(errno) : "the file shrank");
			return -EIO;
		}
		got += (uint64_t)n;
	}
	s->win_off = off;
	s->win_len = len;
	return 0;
}

int rd_stream_win_get(struct rd_stream *s, uint64_t off, uint64_t len,
		      uint64_t *avail, const uint8_t **p, struct rd_err *err)
{
	uint64_t want = *avail;

	*p = NULL;
	if (s->read_mode != RD_READ_WIN &&
	    (s->read_mode == RD_READ_MAP || !win_open(s)))
		return 0;
	/* already in the window? */
	if (off >= s->win_off && off - s->win_off < s->win_len) {
		uint64_t in = s->win_len - (off - s->win_off);

		if (in >= len) {
			*p = s->win + (off - s->win_off);
			*avail = in < want ? in : want;
			return 0;
		}
	}
	if (!win_reserve(s, len))
		return 0;
	/* as much as the window takes, from @off on */
	if (want > s->win_cap)
		want = s->win_cap;
	if (want < len)
		want = len;
	if (win_fill(s, off, want, err))
		return -EIO;
	*p = s->win;
	*avail = want;
	return 0;
}

int rd_stream_win_head(struct rd_stream *s, uint64_t off, uint64_t *avail,
		       const uint8_t **p, struct rd_err *err)
{
	uint64_t need = *avail < RD_WIN_HEAD ? *avail : RD_WIN_HEAD;

	if (need > win_limits()->min)	/* tests: cut headers too */
		need = win_limits()->min;
	return rd_stream_win_get(s, off, need, avail, p, err);
}
