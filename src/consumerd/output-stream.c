/* SPDX-License-Identifier: MIT */
/*
 * output-stream.c - a trace's streams for the consumers (output.h): each a
 * stream file and its index (index/<name>.idx), written a packet and its
 * index entry at a time, locally or to relayd (output-relay.c); split in
 * numbered files (--tracefile-size, --tracefile-count); taken up again
 * where what was written ends (a consumer started again). The output
 * (files by handle, the reserve) is output.c's.
 */
#include "consumerd/output.h"
#include "consumerd/output-internal.h"
#include "consumerd/opener.h"
#include "common/common.h"
#include "ctf/layout.h"
#include "ctf/packet.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* In the output's list of open streams (what trawl_output_seal() goes through). */
static void stream_link(struct trawl_output_stream *st)
{
	st->next = st->o->streams;
	st->o->streams = st;
	trawl_output_reserve_grow(st->o);
}

/* Opens @st's stream file @name and index/<name>.idx, writes the index's header. 0 or -errno. */
static int stream_files_open(struct trawl_output_stream *st, const char *name)
{
	struct trawl_ctf_index_header ih;
	struct iovec v = {&ih, sizeof(ih)};
	struct trawl_output *o = st->o;
	char rel[300];
	int ret;

	trawl_ctf_index_header_init(&ih);
	st->data = trawl_output_file_open(o, name, TRAWL_OUTPUT_DATA);
	if (st->data < 0)
		return st->data;
	ret = trawl_path_fmt(rel, sizeof(rel), "index/%s.idx", name);
	st->index = ret ? ret : trawl_output_file_open(o, rel, TRAWL_OUTPUT_INDEX);
	if (st->index < 0) {
		ret = st->index;
		trawl_output_file_close(o, st->data);
		st->data = -1;
		return ret;
	}
	return trawl_output_file_append(o, st->index, &v, 1);
}

/* The name of file @n of split stream @st. 0 or -ENAMETOOLONG. */
static int split_name(const struct trawl_output_stream *st, uint64_t n, char *buf, size_t len)
{
	return trawl_path_fmt(buf, len, "%s_%llu", st->base, (unsigned long long)n);
}

/* @st split in files (open_split()): its settings. 0 or -errno. */
static int split_init(struct trawl_output_stream *st, const char *name, uint64_t file_size,
		      uint32_t file_count)
{
	if (!file_size)
		return 0;
	st->base = strdup(name);
	if (!st->base)
		return -ENOMEM;
	st->file_size = file_size;
	st->file_count = file_count;
	return 0;
}

struct trawl_output_stream *trawl_output_stream_open_split(struct trawl_output *o, const char *name,
							   uint64_t instance_id, uint64_t file_size,
							   uint32_t file_count)
{
	struct trawl_output_stream *st = calloc(1, sizeof(*st));
	char first[300];
	int ret;

	if (!st)
		return NULL;
	st->o = o;
	st->instance_id = instance_id;
	st->data = st->index = -1;
	ret = split_init(st, name, file_size, file_count);
	if (!ret && st->base)
		ret = split_name(st, 0, first, sizeof(first));
	if (!ret)
		ret = stream_files_open(st, st->base ? first : name);
	if (ret) {
		if (st->data >= 0) {
			trawl_output_file_close(o, st->data);
			trawl_output_file_close(o, st->index);
		}
		free(st->base);
		free(st);
		errno = -ret;
		return NULL;
	}
	stream_link(st);
	return st;
}

struct trawl_output_stream *trawl_output_stream_open(struct trawl_output *o, const char *name,
						     uint64_t instance_id)
{
	return trawl_output_stream_open_split(o, name, instance_id, 0, 0);
}

/*
 * A split stream's packet of @bytes would take its file past the limit:
 * the stream goes on in its next file (numbered modulo the count: the
 * oldest is truncated, as LTTng's consumer does). A file that cannot be
 * opened ends the trace's writing as a failed write does. 0 or -errno.
 */
static int split_next(struct trawl_output_stream *st)
{
	struct trawl_output *o = st->o;
	uint64_t n = st->file_index + 1;
	char name[300];
	int ret;

	if (st->file_count)
		n %= st->file_count;
	ret = split_name(st, n, name, sizeof(name));
	if (ret)
		return ret;
	/*
	 * relayd: a file taken again (the count wrapped) is opened afresh
	 * only once relayd confirmed what was sent to it before, so that
	 * taking the connection up again (output-relay.c's resync()) never
	 * has two handles, the old one still kept, naming one file. One
	 * round trip per file of at least a packet.
	 */
	if (o->relay && st->file_count && n <= st->file_index)
		trawl_output_sync(o);
	trawl_output_file_close(o, st->data);
	trawl_output_file_close(o, st->index);
	st->data = st->index = -1;
	st->closed_bytes += st->offset;
	st->offset = 0;
	st->file_index = n;
	ret = stream_files_open(st, name);
	if (ret && !o->failed) {
		o->failed = -ret;
		fprintf(stderr,
			"trawl-consumerd[%d]: opening %s/%s: %s (the trace ends at its "
			"last whole packet; the rest of it is dropped)\n",
			(int)getpid(), o->dir, name, strerror(-ret));
	}
	return ret;
}

void trawl_output_stream_close(struct trawl_output_stream *st)
{
	struct trawl_output_stream **pp;

	if (!st)
		return;
	for (pp = &st->o->streams; *pp && *pp != st; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = st->next;
	if (st->o->relay)
		trawl_output_relay_forget(st);
	trawl_output_file_close(st->o, st->data);
	trawl_output_file_close(st->o, st->index);
	free(st->base);
	free(st);
}

/*
 * Cuts a resumed local stream's files back to their last whole packet (see
 * trawl_output_stream_resume()). @data, @index: fds open for writing. The
 * index entries were written by the consumer, after their packets: the
 * last one is the only one a kill can have left pointing past the file.
 */
static int stream_cut(int data, int index, uint64_t *end, uint64_t *next_seq)
{
	const off_t hl = (off_t)sizeof(struct trawl_ctf_index_header);
	const off_t el = (off_t)sizeof(struct trawl_ctf_index_entry);
	struct trawl_ctf_index_header ih;
	struct trawl_ctf_index_entry e;
	struct stat ds, is;
	off_t n;

	*end = 0;
	*next_seq = 0;
	if (fstat(data, &ds) || fstat(index, &is))
		return -errno;
	if (is.st_size >= hl && pread(index, &ih, sizeof(ih), 0) < 0)
		return -errno; /* never cut what we could not read */
	if (is.st_size < hl || be32toh(ih.magic) != TRAWL_CTF_INDEX_MAGIC ||
	    be32toh(ih.packet_index_len) != (uint32_t)el) {
		/* Killed before the header went out: nothing was written. */
		if (ftruncate(index, 0) || ftruncate(data, 0))
			return -errno;
		return 1; /* the caller writes a new header */
	}
	for (n = (is.st_size - hl) / el; n > 0; n--) {
		uint64_t off, size;

		ssize_t r = pread(index, &e, sizeof(e), hl + (n - 1) * el);

		if (r != (ssize_t)sizeof(e))
			return r < 0 ? -errno : -EIO;
		off = be64toh(e.offset);
		size = be64toh(e.packet_size) / 8;
		if (off <= (uint64_t)ds.st_size && size <= (uint64_t)ds.st_size - off) {
			*end = off + size;
			*next_seq = be64toh(e.packet_seq_num) + 1;
			break;
		}
	}
	if (ftruncate(index, hl + n * el) || ftruncate(data, (off_t)*end))
		return -errno;
	return 0;
}

/*
 * The file of split stream @st written last: the newest of <base>_<n> (n
 * below the count, or up to the first missing). Its number, 0 if none.
 */
static uint64_t split_last(const struct trawl_output_stream *st)
{
	struct timespec best = {0, 0};
	uint64_t n, last = 0;
	char name[300], path[PATH_MAX + 300];
	struct stat sb;

	for (n = 0; !st->file_count || n < st->file_count; n++) {
		if (split_name(st, n, name, sizeof(name)) ||
		    snprintf(path, sizeof(path), "%s/%s", st->o->dir, name) >= (int)sizeof(path) ||
		    stat(path, &sb)) {
			if (st->file_count)
				continue;
			break;
		}
		if (sb.st_mtim.tv_sec > best.tv_sec ||
		    (sb.st_mtim.tv_sec == best.tv_sec && sb.st_mtim.tv_nsec >= best.tv_nsec)) {
			best = sb.st_mtim;
			last = n;
		}
	}
	return last;
}

struct trawl_output_stream *trawl_output_stream_resume(struct trawl_output *o, const char *name,
						       uint64_t instance_id, uint64_t *next_seq)
{
	return trawl_output_stream_resume_split(o, name, instance_id, 0, 0, next_seq);
}

struct trawl_output_stream *
trawl_output_stream_resume_split(struct trawl_output *o, const char *name, uint64_t instance_id,
				 uint64_t file_size, uint32_t file_count, uint64_t *next_seq)
{
	struct trawl_ctf_index_header ih;
	struct iovec v = {&ih, sizeof(ih)};
	struct trawl_output_stream *st;
	char rel[300], file[300];
	int ret;

	if (o->relay) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	trawl_ctf_index_header_init(&ih);
	st->o = o;
	st->instance_id = instance_id;
	st->data = st->index = -1;
	ret = split_init(st, name, file_size, file_count);
	if (!ret && st->base) {
		st->file_index = split_last(st);
		ret = split_name(st, st->file_index, file, sizeof(file));
		name = file;
	}
	if (ret || (ret = trawl_path_fmt(rel, sizeof(rel), "index/%s.idx", name))) {
		free(st->base);
		free(st);
		errno = -ret;
		return NULL;
	}
	if ((st->data = trawl_output_file_open_as(o, name, TRAWL_OUTPUT_DATA, 1)) < 0 ||
	    (st->index = trawl_output_file_open_as(o, rel, TRAWL_OUTPUT_INDEX, 1)) < 0) {
		ret = st->data < 0 ? st->data : st->index;
		goto fail;
	}
	ret = stream_cut(o->files[st->data].fd, o->files[st->index].fd, &st->offset, next_seq);
	if (ret >= 0) {
		struct stat sb;

		o->files[st->data].size = st->offset;
		if (fstat(o->files[st->index].fd, &sb))
			ret = -errno;
		else
			o->files[st->index].size = (uint64_t)sb.st_size;
	}
	if (ret == 1)
		ret = trawl_output_file_append(o, st->index, &v, 1);
	if (ret)
		goto fail;
	stream_link(st);
	return st;
fail:
	trawl_output_file_close(o, st->data);
	trawl_output_file_close(o, st->index);
	free(st->base);
	free(st);
	errno = -ret;
	return NULL;
}

/*
 * A packet lost: counted for the output, and for the stream's gap (what
 * its next packet, or its seal, says: output-loss.c). @head: the packet's
 * header and context as the ring buffer gave them (no carry added).
 */
void trawl_output_stream_lost(struct trawl_output_stream *st, const void *head, uint64_t bytes,
			      int64_t events)
{
	trawl_output_lost_add(st->o, 1, bytes, events);
	if (!st->lost_packets)
		memcpy(&st->lost_first, head, sizeof(st->lost_first));
	st->lost_packets++;
	st->lost_events += events > 0 ? (uint64_t)events : 0;
	st->carry += events > 0 ? (uint64_t)events : 0;
	memcpy(&st->lost_head, head, sizeof(st->lost_head));
}

/*
 * local: the packet, then its index entry; neither stays if both do not
 * fit. @forced: the seal's packet, written even once writing failed
 * (then a failure is only returned). 0: lost (the caller counts it).
 */
static int64_t local_packet(struct trawl_output_stream *st, struct iovec *v,
			    struct trawl_ctf_index_entry *e, uint64_t bytes, int forced)
{
	struct trawl_output *o = st->o;
	struct ofile *d = trawl_output_file_get(o, st->data), *x = trawl_output_file_get(o, st->index);
	struct iovec ie = {e, sizeof(*e)};
	int ret;

	if (o->failed && !forced)
		return 0;
	if (!d || !x)
		return -EBADF;
	ret = trawl_output_local_append(d, v, v[2].iov_len ? 3 : 2); /* v: stream_packet()'s */
	if (!ret) {
		ret = trawl_output_local_append(x, &ie, 1);
		if (ret && !ftruncate(d->fd, (off_t)st->offset))
			d->size = st->offset;
	}
	if (ret && forced)
		return ret;
	if (ret) {
		trawl_output_local_fail(o, d, -ret);
		return 0;
	}
	return (int64_t)bytes;
}

/*
 * A live relay stream's packet that says nothing but a time: no event, no
 * more events discarded than the packet before, no gap to show, and not
 * the stream's first (relayd's live server finds the stream and its class
 * by that one). The consumers cut one on every quiet stream each live tick
 * (a beacon: its end bounds the stream's next events); written as a packet
 * it took room in the file (4 KiB of a --tracefile-size ring each tick,
 * which rotated the last real packets out of a quiet stream's files).
 * LTTng's live beacons are index entries only, kept by relayd in memory.
 */
static int is_beacon(const struct trawl_output_stream *st, const struct trawl_ctf_packet *p,
		     int flags)
{
	return st->o->relay && !flags && st->packets && !st->lost_packets &&
	       p->bytes <= sizeof(struct trawl_ctf_packet_start) &&
	       be64toh(p->entry.events_discarded) == st->last_discarded &&
	       trawl_output_live_timer_us(st->o);
}

/*
 * Sends beacon @p as a BEACON (relayd/proto.h): its end, on the stream's
 * index file, nothing written. Not one of the stream's packets any more:
 * the later ones are numbered as if it never was. A connection that is
 * down or broken loses it, and nothing is owed: the next one says more.
 * Returns the packet's size (handed over, as a packet sent).
 */
static int64_t stream_beacon(struct trawl_output_stream *st, const struct trawl_ctf_packet *p)
{
	uint64_t end = htole64(be64toh(p->entry.timestamp_end));
	struct iovec v = {&end, sizeof(end)};

	st->beacons++;
	trawl_output_relay_ready(st->o);
	trawl_output_relay_send(st->o, TRAWL_RELAY_BEACON, (uint32_t)st->index, &v, 1);
	return (int64_t)p->size;
}

/* @p's packet_seq_num, in its header and index entry, less the beacons sent before it. */
static void stream_renumber(const struct trawl_output_stream *st, struct trawl_ctf_packet *p)
{
	uint64_t seq = be64toh(p->entry.packet_seq_num) - st->beacons;

	p->entry.packet_seq_num = htobe64(seq);
	p->head.context.packet_seq_num = seq; /* (the host's byte order: exp.big_endian) */
}

/*
 * Writes a packet (output.h). Each packet's events_discarded gets the
 * events of the stream's lost packets added (its carry), so that a packet
 * after a gap tells readers how many were lost (its packet_seq_num, how
 * many packets); @flags: TRAWL_OUTPUT_PKT_*.
 * The packet's check, its header as written and its index entry are
 * trawl_ctf_packet_prepare()'s (ctf/packet.h), the one writer's step.
 */
static int64_t stream_packet(struct trawl_output_stream *st, const void *pkt, size_t avail,
			     int64_t events, int flags)
{
	const size_t hl = sizeof(struct trawl_ctf_packet_start);
	const struct trawl_ctf_packet_expect exp = {
		.big_endian = trawl_ctf_host_big_endian(),
		.stream_id = -1,
		.unpadded = !!(flags & TRAWL_OUTPUT_PKT_FORCED),
	};
	struct trawl_ctf_packet p;
	struct trawl_ctf_packet_start raw;
	struct iovec v[3];
	uint64_t carry = flags & TRAWL_OUTPUT_PKT_NOCARRY ? 0 : st->carry;
	int64_t n;

	if (trawl_ctf_packet_prepare(&p, pkt, avail, &exp, st->instance_id, st->offset))
		return -EPROTO;
	if (is_beacon(st, &p, flags))
		return stream_beacon(st, &p);
	if (st->beacons)
		stream_renumber(st, &p);
	/*
	 * split: a packet that would take the file past its size begins the
	 * next file (not a seal's, written after a failure: its few bytes stay
	 * in the file that lost packets)
	 */
	if (st->base && st->offset && st->offset + p.size > st->file_size &&
	    !(flags & TRAWL_OUTPUT_PKT_FORCED) && !st->o->failed) {
		/*
		 * An empty packet (a stop's flush of a full buffer: no event,
		 * only the count of those discarded, which `stop` says) never
		 * takes a new file: with one file it would replace every
		 * event kept. LTTng 2.13's consumer writes none there either.
		 */
		if (p.bytes <= hl && (st->file_count == 1 || !trawl_output_live_timer_us(st->o)))
			return (int64_t)p.size;
		split_next(st);	    /* a failure is counted as a failed write's */
		p.entry.offset = 0; /* the new file's first */
	}
	/* the head as the ring buffer gave it (its sizes set again), for a loss: a carry changes it */
	if (carry)
		raw = p.head;
	if (st->o->relay)
		trawl_output_relay_ready(st->o);
	/* relay, after a gap at a stream's start: readers take a first packet's count as a base */
	if (st->o->relay && st->o->sock >= 0 && !st->o->broken && st->lost_packets &&
	    !st->offset && !flags) {
		trawl_output_stream_first(st);
		p.entry.offset = htobe64(st->offset); /* after the packet that put first */
	}
	trawl_ctf_packet_add_discarded(&p, carry, exp.big_endian);
	v[0] = (struct iovec){&p.head, hl};
	v[1] = (struct iovec){(char *)pkt + hl, p.bytes - hl};
	v[2] = (struct iovec){(void *)trawl_ctf_packet_zeros, p.size - p.bytes};
	n = st->o->relay ? trawl_output_relay_packet(st, v, &p.entry, p.size, events, carry)
			 : local_packet(st, v, &p.entry, p.size, flags & TRAWL_OUTPUT_PKT_FORCED);
	if (n == 0 && (flags & TRAWL_OUTPUT_PKT_FORCED))
		return -EPIPE; /* a seal's packet: not one of the stream's */
	if (n == 0)
		trawl_output_stream_lost(st, carry ? &raw : &p.head, p.bytes, events);
	if (n > 0) {
		st->packets++;
		st->last_discarded = be64toh(p.entry.events_discarded) - carry;
		st->offset += p.size;
		if (!(flags & TRAWL_OUTPUT_PKT_FORCED))
			st->lost_packets = st->lost_events = 0; /* this one shows the gap */
	}
	return n;
}

int64_t trawl_output_stream_packet(struct trawl_output_stream *st, const void *pkt, size_t avail,
				   int64_t events)
{
	return stream_packet(st, pkt, avail, events, 0);
}

int64_t trawl_output_stream_packet_forced(struct trawl_output_stream *st, const void *pkt,
					  size_t len, int flags)
{
	return stream_packet(st, pkt, len, 0, flags | TRAWL_OUTPUT_PKT_FORCED);
}

uint64_t trawl_output_stream_bytes(const struct trawl_output_stream *st)
{
	return st ? st->closed_bytes + st->offset : 0;
}
