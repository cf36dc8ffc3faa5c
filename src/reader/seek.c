/* SPDX-License-Identifier: MIT */
/*
 * Seeking by time.
 *
 * For each stream, find the first packet that may hold an event at or
 * after the target time (its end time is >= the target):
 *  - with an LTTng index file (index/<stream>.idx: a 16-byte big-endian
 *    header, then one entry per packet: offset, packet and content sizes in
 *    bits, begin and end times in cycles, ...), by binary search over the
 *    mmap'd entries: O(log packets), a few pages touched;
 *  - without one, when packets all have one size (LTTng), by binary search
 *    over the packet contexts;
 *  - otherwise by walking the packet headers (packet sizes chain them).
 * Then skip the events before the target inside that packet. An index that
 * does not match its stream file (offsets out of order or out of bounds) is
 * ignored, not trusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/decode_int.h"
#include "reader/reader_int.h"

#define IDX_MAGIC 0xC1F1DCC1u
#define IDX_HEADER 16u
#define IDX_MIN_ENTRY 56u

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

struct index_map {
	const uint8_t *base;
	size_t size;
	uint32_t entry_len;
	uint64_t count;
};

/* Maps index/<basename>.idx beside @s's file. Returns 0 or -ENOENT. */
static int index_open(const struct rd_stream *s, struct index_map *im)
{
	char path[4096];
	const char *slash = strrchr(s->path, '/');
	struct stat st;
	void *m;
	int fd;

	memset(im, 0, sizeof(*im));
	if (!slash)
		return -ENOENT;
	if (snprintf(path, sizeof(path), "%.*s/index/%s.idx",
		     (int)(slash - s->path), s->path, slash + 1) >= (int)sizeof(path))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO never holds us */
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)IDX_HEADER) {
		close(fd);
		return -ENOENT;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -ENOENT;
	im->base = m;
	im->size = (size_t)st.st_size;
	im->entry_len = be32(im->base + 12);
	if (be32(im->base) != IDX_MAGIC || im->entry_len < IDX_MIN_ENTRY ||
	    im->entry_len > 4096) {
		munmap(m, im->size);
		memset(im, 0, sizeof(*im));
		return -ENOENT;
	}
	im->count = (im->size - IDX_HEADER) / im->entry_len;
	return 0;
}

static void index_close(struct index_map *im)
{
	if (im->base)
		munmap((void *)im->base, im->size);
}

static const uint8_t *entry(const struct index_map *im, uint64_t i)
{
	return im->base + IDX_HEADER + i * im->entry_len;
}

/* End time (ns) of index entry @i; false if it is unusable. */
static bool entry_end_ns(const struct rd_stream *s, const struct index_map *im,
			 uint64_t i, int64_t *ns)
{
	const uint8_t *e = entry(im, i);

	if (be64(e) >= s->size || be64(e + 8) / 8 > s->size - be64(e))
		return false;
	return rd_stream_cycles_to_ns(s, be64(e + 32), ns) == 0;
}

/* What the packet before the seek point said, for discard accounting. */
struct prev_info {
	bool valid, has_seq;
	uint64_t disc, ts_end, seq;
};

/* Byte offset of the first packet ending at or after @ns, via the index. */
static int seek_index(struct rd_stream *s, int64_t target, uint64_t *off,
		      struct prev_info *prev)
{
	struct index_map im;
	uint64_t lo = 0, hi, mid;
	int64_t ns;

	if (index_open(s, &im))
		return -ENOENT;
	hi = im.count;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (!entry_end_ns(s, &im, mid, &ns)) {
			index_close(&im);
			return -ENOENT;
		}
		if (ns < target)
			lo = mid + 1;
		else
			hi = mid;
	}
	*off = lo < im.count ? be64(entry(&im, lo)) : s->size;
	if (lo > 0) {
		const uint8_t *e = entry(&im, lo - 1);

		prev->valid = true;
		prev->ts_end = be64(e + 32);
		prev->disc = be64(e + 40);
		prev->has_seq = im.entry_len >= 72;
		prev->seq = prev->has_seq ? be64(e + 64) : 0;
	}
	index_close(&im);
	return 0;
}

static void prev_from_stream(const struct rd_stream *s, struct prev_info *prev)
{
	prev->valid = true;
	prev->ts_end = s->ts_end;
	prev->disc = s->disc;
	prev->has_seq = s->has_seq;
	prev->seq = s->seq;
}

/*
 * Without an index: LTTng's packets are all one size (the sub-buffer
 * size), so packet k starts at k * size and a binary search over packet
 * contexts works. Every probed packet must have that size; if one does
 * not, returns -EAGAIN and the caller walks the headers instead.
 */
static int seek_uniform(struct rd_stream *s, int64_t target, uint64_t *off,
			struct prev_info *prev, struct rd_err *err)
{
	uint64_t psize, count, lo = 0, hi, mid;
	int64_t ns;
	int ret;

	rd_stream_seek_packet(s, 0, err);
	ret = rd_stream_packet_peek(s, err);
	if (ret)
		return ret;
	psize = s->pkt_bits / 8;
	if (!psize || s->size % psize || s->size / psize < 8)
		return -EAGAIN;
	count = s->size / psize;
	hi = count;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		rd_stream_seek_packet(s, mid * psize, err);
		ret = rd_stream_packet_peek(s, err);
		if (ret)
			return ret;
		if (s->pkt_bits / 8 != psize || !s->has_ts_end ||
		    rd_stream_cycles_to_ns(s, s->ts_end, &ns))
			return -EAGAIN;
		if (ns < target)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		rd_stream_seek_packet(s, (lo - 1) * psize, err);
		ret = rd_stream_packet_peek(s, err);
		if (ret)
			return ret;
		prev_from_stream(s, prev);
	}
	*off = lo * psize;
	return 0;
}

/* Same by walking packet headers from the start. */
static int seek_scan(struct rd_stream *s, int64_t target, uint64_t *off,
		     struct prev_info *prev, struct rd_err *err)
{
	rd_stream_seek_packet(s, 0, err);
	while (s->next_pkt_off < s->size) {
		uint64_t at = s->next_pkt_off;
		int64_t ns;
		int ret = rd_stream_packet_peek(s, err);

		if (ret)
			return ret;
		if (!s->has_ts_end || rd_stream_cycles_to_ns(s, s->ts_end, &ns) ||
		    ns >= target) {
			*off = at;
			return 0;
		}
		prev_from_stream(s, prev);
	}
	*off = s->size;
	return 0;
}

static int heap_refill_from(struct trawl_reader *r, int64_t target)
{
	uint32_t t, i;
	int ret;

	r->nheap = 0;
	r->cur = NULL;
	r->started = true;
	rd_reader_event_changed(r);
	for (t = 0; t < r->ntraces; t++) {
		for (i = 0; i < r->traces[t].nstreams; i++) {
			struct rd_stream *s = &r->traces[t].streams[i];

			if (s->continued)	/* read after the file before it */
				continue;
			for (;;) {
				ret = rd_stream_next(s, &r->cb, &r->err);
				if (ret == 0 && s->next_file)
					ret = rd_reader_stream_continue(r, &s);
				if (ret <= 0)
					break;
				if (!s->sc->clock || s->ev_ns >= target)
					break;
				if (!s->body_pending)	/* decoded with its header */
					continue;
				ret = rd_stream_body(s, NULL, NULL, &r->err);
				if (ret < 0)
					break;
			}
			if (ret < 0)
				return ret;
			if (ret > 0)
				rd_reader_heap_push(r, s);
		}
	}
	return 0;
}

TRAWL_EXPORT int trawl_reader_seek_ns(struct trawl_reader *r, int64_t ns)
{
	uint32_t t, i;
	int ret;

	rd_err_clear(&r->err);
	if (r->live)
		return rd_reader_not_live(r, "trawl_reader_seek_ns");
	if (ns < r->begin_ns)	/* not before the time range */
		ns = r->begin_ns;
	for (t = 0; t < r->ntraces; t++) {
		for (i = 0; i < r->traces[t].nstreams; i++) {
			struct rd_stream *s = &r->traces[t].streams[i];
			struct prev_info prev = { 0 };
			uint64_t off = 0;

			if (!s->size)
				continue;
			if (s->sc->clock && seek_index(s, ns, &off, &prev)) {
				memset(&prev, 0, sizeof(prev));
				ret = seek_uniform(s, ns, &off, &prev, &r->err);
				if (ret == -EAGAIN) {
					memset(&prev, 0, sizeof(prev));
					ret = seek_scan(s, ns, &off, &prev, &r->err);
				}
				if (ret)
					return ret;
			}
			rd_stream_seek_packet(s, off, &r->err);
			s->seeked = true;
			if (prev.valid) {
				s->prev_valid = true;
				s->prev_ts_end = prev.ts_end;
				s->prev_disc = prev.disc;
				/* unknown: a value no sequence number can follow with a gap */
				s->prev_seq = prev.has_seq ? prev.seq : UINT64_MAX - 1;
			}
		}
	}
	return heap_refill_from(r, ns);
}
