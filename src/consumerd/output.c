/* SPDX-License-Identifier: MIT */
/*
 * output.c - a trace's destination for the consumers: local files, or
 * trawl-relayd over TCP (output.h; the protocol is relayd/proto.h).
 *
 * Both kinds keep a table of open files by handle. Locally a handle's
 * writes go to its fd; over the network each becomes one message on the
 * trace's one connection, so relayd writes in the order we did: a packet
 * before its index entry.
 *
 * The socket is blocking, with a send timeout: a consumer that cannot send
 * waits at most TRAWL_OUTPUT_SEND_TIMEOUT_MS, while the ring buffers keep
 * filling and the traced programs drop (and count) what does not fit; a
 * relayd that does not take our bytes in that time is given up on, like one
 * that went away.
 */
#include "consumerd/output.h"
#include "consumerd/output-internal.h"
#include "consumerd/opener.h"
#include "common/common.h"
#include "ctf/layout.h"
#include "ctf/packet.h"
#include "relayd/proto.h"
#include "relayd/url.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

int trawl_output_dest_is_relay(const char *dest)
{
	return !strncmp(dest, "relay:", 6);
}

int trawl_output_relay_spec(char *buf, size_t len, const char *url, const char *session,
			    const char *hostname, int64_t creation_time, uint32_t live_timer_us,
			    uint64_t token)
{
	struct trawl_relay_url u;
	char why[128], plain[300];
	int n;

	/* the URL's path (LTTng's base path) goes in a field of its own */
	if (trawl_relay_url_parse(url, TRAWL_RELAY_DEFAULT_CTRL_PORT, &u, why, sizeof(why)))
		return -EINVAL;
	n = snprintf(buf, len, "relay:%s,%s,%lld,%u,%llu,%s,", session, hostname,
		     (long long)creation_time, live_timer_us, (unsigned long long)token, u.path);
	u.path[0] = '\0';
	if (n < 0 || (size_t)n >= len || trawl_relay_url_format(&u, plain, sizeof(plain)))
		return -ENAMETOOLONG;
	return trawl_path_fmt(buf + n, len - (size_t)n, "%s", plain);
}

int trawl_output_sync(struct trawl_output *o)
{
	return o && o->relay ? trawl_output_relay_sync(o) : 0;
}

/* ---- both --------------------------------------------------------------- */

/*
 * local: the disk room held back for the seal (output-loss.c), in a hidden
 * file (readers skip names starting with '.'): TRAWL_OUTPUT_RESERVE_BYTES
 * more for each stream opened (reserve_grow()), given back when the disk
 * fills. What the disk has no room for is not held: that seal is best effort.
 */
static void reserve_make(struct trawl_output *o)
{
	o->reserve = trawl_opener_replace_begin(o->opener, "reserve");
}

/* Holds @bytes more (whole pages) in the reserve, as far as the disk has room. */
static void reserve_add(struct trawl_output *o, uint64_t bytes)
{
	static const char zero[4096];
	uint64_t i;

	for (i = 0; o->reserve >= 0 && !o->failed && i < bytes; i += sizeof(zero))
		if (trawl_write_all(o->reserve, zero, sizeof(zero)))
			break;
}

static void reserve_grow(struct trawl_output *o)
{
	reserve_add(o, TRAWL_OUTPUT_RESERVE_BYTES);
}

/*
 * Gives @bytes (and a page) of the reserve back to the disk, for a metadata
 * update the disk had no room for. Returns 0 if it gave any.
 */
static int reserve_give(struct trawl_output *o, uint64_t bytes)
{
	struct stat st;
	uint64_t keep;

	if (o->reserve < 0 || fstat(o->reserve, &st) || st.st_size <= 0)
		return -1;
	bytes = (bytes + 2 * 4096 - 1) & ~(uint64_t)4095;
	keep = (uint64_t)st.st_size > bytes ? (uint64_t)st.st_size - bytes : 0;
	if (ftruncate(o->reserve, (off_t)keep))
		return -1;
	if (lseek(o->reserve, (off_t)keep, SEEK_SET) < 0)
		return -1;
	o->meta_room = 0;
	return 0;
}

static int output_create(const char *dest, uid_t uid, gid_t gid, int reconnecting,
			 struct trawl_output **out, char *err, size_t err_len)
{
	struct trawl_output *o = calloc(1, sizeof(*o));
	int ret;

	if (!o)
		return -ENOMEM;
	o->sock = o->reserve = -1;
	if (trawl_output_dest_is_relay(dest)) {
		o->relay = 1;
		ret = trawl_output_relay_open(o, dest + 6, reconnecting, err, err_len);
	} else if (dest[0] != '/' || strlen(dest) >= sizeof(o->dir)) {
		trawl_msg_fmt(err, err_len, "bad trace folder '%.200s'", dest);
		ret = -EINVAL;
	} else {
		snprintf(o->dir, sizeof(o->dir), "%s", dest);
		/* as @uid: the files are theirs, and their links bind nobody else (opener.h) */
		ret = trawl_opener_create(dest, uid, gid, &o->opener, err, err_len);
		if (!ret)
			reserve_make(o);
	}
	if (ret) {
		free(o);
		return ret;
	}
	*out = o;
	return 0;
}

int trawl_output_create(const char *dest, uid_t uid, gid_t gid, struct trawl_output **out,
			char *err, size_t err_len)
{
	return output_create(dest, uid, gid, 0, out, err, err_len);
}

int trawl_output_create_reconnecting(const char *dest, uid_t uid, gid_t gid,
				     struct trawl_output **out, char *err, size_t err_len)
{
	return output_create(dest, uid, gid, 1, out, err, err_len);
}

int trawl_output_archive(struct trawl_output *o, const char *to)
{
	uint32_t i;

	if (!o->relay)
		return -EOPNOTSUPP;
	for (i = 0; i < o->nr_files; i++)
		if (o->files[i].fd >= 0 && !o->files[i].closed)
			trawl_output_file_close(o, (int)i);
	return trawl_output_relay_archive(o, to);
}

void trawl_output_destroy(struct trawl_output *o)
{
	uint32_t i;

	if (!o)
		return;
	for (i = 0; i < o->nr_files; i++)
		if (o->files[i].fd >= 0 && !o->files[i].closed)
			trawl_output_file_close(o, (int)i);
	if (o->relay) {
		trawl_output_relay_send(o, TRAWL_RELAY_END, 0, NULL, 0);
		if (o->sock >= 0)
			close(o->sock);
	}
	for (size_t k = 0; k < o->q_len; k++)
		free(o->q[o->q_head + k].pkt);
	for (i = 0; i < o->nr_files; i++)
		trawl_output_file_free(&o->files[i]);
	if (o->reserve >= 0) {
		close(o->reserve);
		trawl_opener_replace_commit(o->opener, "reserve", 0); /* removes it */
	}
	trawl_opener_destroy(o->opener);
	for (i = 0; i < o->nr_made; i++)
		free(o->made[i]);
	free(o->made);
	free(o->q);
	free(o->files);
	free(o);
}

int trawl_output_broken(struct trawl_output *o, char *why, size_t len)
{
	char lost[160];

	if (!o)
		return 0;
	if (o->relay)
		trawl_output_relay_check(o); /* also learns of a relayd gone while idle */
	if (!o->broken && !o->failed && !o->down && !o->lost_packets)
		return 0;
	trawl_output_lost_text(o, lost, sizeof(lost));
	if (!why)
		return 1;
	if (o->failed)
		trawl_msg_fmt(why, len, "writing the trace in %.300s: %s%s", o->dir,
			      strerror(o->failed), lost);
	else if (o->broken)
		trawl_msg_fmt(
			why, len, "streaming to trawl-relayd at %s stopped: %s%s%s", o->peer,
			o->relay_failed && o->broken == ENODATA
				? "it lacks what it confirmed writing (restarted elsewhere?): "
			: o->relay_failed ? "it could not write: "
					  : "",
			strerror(o->broken), lost);
	else if (o->down)
		trawl_msg_fmt(why, len,
			      "streaming to trawl-relayd at %s stopped: %s (reconnecting)%s",
			      o->peer, strerror(o->down), lost);
	else
		trawl_msg_fmt(why, len,
			      "streaming to trawl-relayd at %s was interrupted %u time%s "
			      "(last: %s)%s",
			      o->peer, o->interruptions, o->interruptions == 1 ? "" : "s",
			      strerror(o->last_down), lost);
	return 1;
}

int trawl_output_errno(const struct trawl_output *o)
{
	return !o ? 0 : o->failed ? o->failed : o->broken ? o->broken : o->down ? o->down
		: o->lost_packets ? (o->last_down ? o->last_down : EIO) : 0;
}

uint64_t trawl_output_bytes_unlanded(const struct trawl_output *o)
{
	return o && o->relay ? o->sent_bytes - o->acked_bytes : 0;
}

const char *trawl_output_error(const struct trawl_output *o)
{
	return o->err;
}

uint32_t trawl_output_live_timer_us(const struct trawl_output *o)
{
	return o ? o->live_timer_us : 0;
}

static struct ofile *file_get(struct trawl_output *o, int h)
{
	return h >= 0 && (uint32_t)h < o->nr_files && o->files[h].fd >= 0 ? &o->files[h] : NULL;
}

static int file_open(struct trawl_output *o, const char *rel, enum trawl_output_kind kind, int keep);

int trawl_output_file_open(struct trawl_output *o, const char *rel, enum trawl_output_kind kind)
{
	return file_open(o, rel, kind, 0);
}

/* local: remembers @rel among the files the trace has (trawl_output_destroy_remove()). */
static void made_add(struct trawl_output *o, const char *rel)
{
	char **n;
	uint32_t i;

	for (i = 0; i < o->nr_made; i++)
		if (!strcmp(o->made[i], rel))
			return;
	n = realloc(o->made, (o->nr_made + 1) * sizeof(*n));
	if (!n)
		return;
	o->made = n;
	o->made[o->nr_made] = strdup(rel);
	if (o->made[o->nr_made])
		o->nr_made++;
}

int trawl_output_destroy_remove(struct trawl_output *o)
{
	uint32_t i;
	int ret = 0, r;

	if (!o)
		return 0;
	for (i = 0; i < o->nr_files; i++)
		if (o->files[i].fd >= 0 && !o->files[i].closed)
			trawl_output_file_close(o, (int)i);
	if (o->relay) {
		ret = trawl_output_relay_remove(o);
		trawl_output_destroy(o);
		return ret;
	}
	for (i = 0; i < o->nr_made; i++) {
		r = trawl_opener_remove(o->opener, o->made[i]);
		if (r && !ret)
			ret = r;
	}
	r = trawl_opener_remove(o->opener, "index");
	if (r && r != -ENOTEMPTY && r != -EEXIST && !ret)
		ret = r;
	trawl_output_destroy(o);
	return ret;
}

/* @keep: open an existing file as it is (a resumed stream), else truncate it. */
static int file_open(struct trawl_output *o, const char *rel, enum trawl_output_kind kind, int keep)
{
	char path[PATH_MAX + 300];
	uint32_t h;
	int ret;

	for (h = 0; h < o->nr_files && o->files[h].fd >= 0; h++)
		;
	if (h == o->nr_files) {
		uint32_t n = o->nr_files ? o->nr_files * 2 : 16;
		struct ofile *nf;

		if (n > TRAWL_RELAY_MAX_HANDLES)
			return -EMFILE;
		nf = realloc(o->files, n * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		for (uint32_t i = o->nr_files; i < n; i++)
			nf[i] = (struct ofile){.fd = -1};
		o->files = nf;
		o->nr_files = n;
	}
	if (snprintf(path, sizeof(path), "%s/%s", o->dir, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	o->files[h].rel = strdup(rel);
	if (!o->files[h].rel)
		return -ENOMEM;
	o->files[h].kind = (uint32_t)kind;
	if (o->relay) {
		uint32_t k = htole32((uint32_t)kind);
		struct iovec v[2] = {{&k, 4}, {path, strlen(path) + 1}};

		trawl_output_relay_ready(o);
		o->files[h].fd = 0;
		/* broken: dropped; disconnected: RESUMEd at the reconnection */
		trawl_output_relay_send(o, TRAWL_RELAY_OPEN, h, v, 2);
		return (int)h;
	}
	made_add(o, rel);
	/* Kept: read back to find its last whole packet (stream_cut()). */
	ret = trawl_opener_file(o->opener, rel, keep, o->err, sizeof(o->err));
	if (ret < 0) {
		free(o->files[h].rel);
		o->files[h].rel = NULL;
		return ret;
	}
	o->files[h].fd = ret;
	o->files[h].size = 0;
	if (keep) {
		struct stat sb;

		if (fstat(ret, &sb)) {
			ret = -errno;
			trawl_output_file_close(o, (int)h);
			return ret;
		}
		o->files[h].size = (uint64_t)sb.st_size;
	}
	return (int)h;
}

/*
 * A local write failed (a full disk): the trace's writing ends here, once,
 * logged; later writes are dropped as a broken relay's are (output.h).
 */
static void local_fail(struct trawl_output *o, const struct ofile *f, int err)
{
	if (o->failed)
		return;
	o->failed = err ? err : EIO;
	fprintf(stderr, "trawl-consumerd[%d]: writing %s/%s: %s (the trace ends at its last "
		"whole packet; the rest of it is dropped)\n", (int)getpid(), o->dir, f->rel,
		strerror(o->failed));
}

/*
 * trawl_output_local_append() after a first writev() that wrote @w (< 0: failed) of
 * @iov; not inlined: its copy of @iov would cost every packet a larger frame.
 */
static __attribute__((noinline, cold)) int local_append_rest(struct ofile *f, const struct iovec *iov,
							     int cnt, ssize_t w)
{
	struct iovec v[8];
	uint64_t done = 0;
	int first = 0, err;

	if (cnt > 8)
		return -EINVAL;
	memcpy(v, iov, (size_t)cnt * sizeof(*v));
	for (;;) {
		if (w < 0 && errno == EINTR)
			goto again;
		if (w <= 0) {
			err = w < 0 ? errno : EIO;
			if (done && ftruncate(f->fd, (off_t)f->size))
				err = errno; /* cannot happen on a regular file of ours */
			return -err;
		}
		done += (uint64_t)w;
		while (first < cnt && (size_t)w >= v[first].iov_len) {
			w -= (ssize_t)v[first].iov_len;
			first++;
		}
		if (first == cnt)
			break;
		v[first].iov_base = (char *)v[first].iov_base + w;
		v[first].iov_len -= (size_t)w;
again:
		w = writev(f->fd, v + first, cnt - first);
	}
	f->size += done;
	return 0;
}

/*
 * Appends @iov (at most 8 parts) to local file @f, all or nothing: a write
 * that fails part way is cut back (ftruncate frees blocks, it needs none), so
 * the file never ends in half a packet or half a metadata statement. 0 or
 * -errno. Nothing to write is done at once; a packet is one writev() that
 * writes it all, and that case copies nothing.
 */
int trawl_output_local_append(struct ofile *f, const struct iovec *iov, int cnt)
{
	size_t total = 0;
	ssize_t w;

	for (int i = 0; i < cnt; i++)
		total += iov[i].iov_len;
	if (!total)
		return 0;
	w = writev(f->fd, iov, cnt);
	if (w < 0 || (size_t)w != total)
		return local_append_rest(f, iov, cnt, w);
	f->size += total;
	return 0;
}

int trawl_output_file_append(struct trawl_output *o, int h, const struct iovec *iov, int cnt)
{
	struct ofile *f = file_get(o, h);
	int ret;

	if (!f || cnt > 8)
		return -EBADF;
	if (o->relay) {
		trawl_output_relay_ready(o);
		/* kept, to be said again after a reconnection (output-relay.c) */
		for (int i = 0; i < cnt; i++)
			if (trawl_output_relay_copy(f, iov[i].iov_base, iov[i].iov_len, 0))
				return -ENOMEM;
		for (int i = 0; i < cnt; i++)
			f->sent += iov[i].iov_len;
		trawl_output_relay_send(o, TRAWL_RELAY_APPEND, (uint32_t)h, iov, cnt);
		return 0;
	}
	if (o->failed)
		return 0; /* dropped: trawl_output_broken() says so */
	ret = trawl_output_local_append(f, iov, cnt);
	if (ret)
		local_fail(o, f, -ret);
	return 0;
}

/* local: @f's whole text made @buf, by a new file renamed over it; 0 or -errno. */
static int replace_local(struct trawl_output *o, struct ofile *f, const void *buf, size_t len)
{
	int fd = trawl_opener_replace_begin(o->opener, f->rel), ret;

	if (fd < 0)
		return fd;
	ret = trawl_write_all(fd, buf, len);
	if (!ret)
		ret = trawl_opener_replace_commit(o->opener, f->rel, 1);
	else
		trawl_opener_replace_commit(o->opener, f->rel, 0);
	if (ret) {
		close(fd);
		return ret;
	}
	close(f->fd);
	f->fd = fd;
	f->size = len;
	return 0;
}

int trawl_output_file_replace(struct trawl_output *o, int h, const void *buf, size_t len)
{
	struct ofile *f = file_get(o, h);
	int ret;

	if (!f)
		return -EBADF;
	if (o->relay) {
		struct iovec v = {(void *)buf, len};

		trawl_output_relay_ready(o);
		if (trawl_output_relay_copy(f, buf, len, 1))
			return -ENOMEM;
		trawl_output_relay_send(o, TRAWL_RELAY_REPLACE, (uint32_t)h, &v, 1);
		return 0;
	}
	/*
	 * The metadata is written even once writing failed: packets already
	 * on disk may hold events only this text declares (the daemon's
	 * METADATA can reach the consumer after the first of their packets:
	 * the disk-ust CI run whose trace babeltrace2 could not read at all,
	 * "No event class with ID 0"). The reserve gives it room if the disk
	 * has none.
	 */
	if (o->failed && f->kind != TRAWL_OUTPUT_METADATA)
		return 0;
	ret = replace_local(o, f, buf, len);
	if ((ret == -ENOSPC || ret == -EDQUOT) && !reserve_give(o, len))
		ret = replace_local(o, f, buf, len);
	if (ret) {
		/*
		 * The old text stays whole, but packets holding the events it
		 * lacks would not decode: nothing more is written.
		 */
		local_fail(o, f, -ret);
		return 0;
	}
	/* room held for the next update of it, as big as this one */
	if (f->kind == TRAWL_OUTPUT_METADATA && len > o->meta_room) {
		reserve_add(o, len - o->meta_room);
		o->meta_room = len;
	}
	return 0;
}

void trawl_output_file_close(struct trawl_output *o, int h)
{
	struct ofile *f = file_get(o, h);

	if (!f || f->closed)
		return;
	if (o->relay) {
		trawl_output_relay_send(o, TRAWL_RELAY_CLOSE, (uint32_t)h, NULL, 0);
		f->closed = 1;
		if (f->pending)
			return; /* held: its kept packets may be sent again */
	} else {
		close(f->fd);
	}
	trawl_output_file_free(f);
}

/* ---- streams ------------------------------------------------------------ */

/* In the output's list of open streams (what trawl_output_seal() goes through). */
static void stream_link(struct trawl_output_stream *st)
{
	st->next = st->o->streams;
	st->o->streams = st;
	reserve_grow(st->o);
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
	if ((st->data = file_open(o, name, TRAWL_OUTPUT_DATA, 1)) < 0 ||
	    (st->index = file_open(o, rel, TRAWL_OUTPUT_INDEX, 1)) < 0) {
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
	struct ofile *d = file_get(o, st->data), *x = file_get(o, st->index);
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
		local_fail(o, d, -ret);
		return 0;
	}
	return (int64_t)bytes;
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
