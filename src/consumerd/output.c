/* SPDX-License-Identifier: MIT */
/*
 * output.c - a trace's destination for the consumers: local files, or
 * trawl-relayd over TCP (output.h; the protocol is relayd/proto.h). Its
 * streams (packets and their index, split files, resuming) are
 * output-stream.c's.
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
 * more for each stream opened (trawl_output_reserve_grow()), given back when the disk
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

void trawl_output_reserve_grow(struct trawl_output *o)
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

struct ofile *trawl_output_file_get(struct trawl_output *o, int h)
{
	return h >= 0 && (uint32_t)h < o->nr_files && o->files[h].fd >= 0 ? &o->files[h] : NULL;
}

int trawl_output_file_open(struct trawl_output *o, const char *rel, enum trawl_output_kind kind)
{
	return trawl_output_file_open_as(o, rel, kind, 0);
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
int trawl_output_file_open_as(struct trawl_output *o, const char *rel, enum trawl_output_kind kind, int keep)
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
void trawl_output_local_fail(struct trawl_output *o, const struct ofile *f, int err)
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
	struct ofile *f = trawl_output_file_get(o, h);
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
		trawl_output_local_fail(o, f, -ret);
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
	struct ofile *f = trawl_output_file_get(o, h);
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
		trawl_output_local_fail(o, f, -ret);
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
	struct ofile *f = trawl_output_file_get(o, h);

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
