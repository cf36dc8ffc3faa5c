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
	int n = snprintf(buf, len, "relay:%s,%s,%lld,%u,%llu,%s", session, hostname,
			 (long long)creation_time, live_timer_us, (unsigned long long)token, url);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* ---- relay -------------------------------------------------------------- */

static void broken_set(struct trawl_output *o, int err)
{
	if (o->broken)
		return;
	o->broken = err ? err : EIO;
	trawl_output_unacked_lose(o);
	fprintf(stderr, "trawl-consumerd[%d]: streaming to trawl-relayd at %s stopped: %s "
		"(what it received stays there; the rest of this trace is dropped)\n",
		(int)getpid(), o->peer, strerror(o->broken));
}

/* Sends a message: header, then @iov. 0, or -errno after marking the output broken. */
/* Writes all of @v (@n entries, modified). 0, or -errno after marking the output broken. */
static int relay_writev(struct trawl_output *o, struct iovec *v, int n)
{
	int first = 0;

	while (first < n) {
		ssize_t w = writev(o->sock, v + first, n - first);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			broken_set(o, errno == EAGAIN ? ETIMEDOUT : errno);
			return -o->broken;
		}
		while (first < n && (size_t)w >= v[first].iov_len) {
			w -= (ssize_t)v[first].iov_len;
			first++;
		}
		if (first < n) {
			v[first].iov_base = (char *)v[first].iov_base + w;
			v[first].iov_len -= (size_t)w;
		}
	}
	return 0;
}

/*
 * Appends a message (header for @cmd and @handle, then @iov) to @v from
 * index *@n. @h is the header's storage. Returns 0 or -EMSGSIZE / -EINVAL.
 */
static int msg_add(struct iovec *v, int *n, int max, struct trawl_relay_hdr *h, uint16_t cmd,
		   uint32_t handle, const struct iovec *iov, int cnt)
{
	size_t size = 0;
	int i;

	if (*n + 1 + cnt > max)
		return -EINVAL;
	*h = (struct trawl_relay_hdr){
		.magic = htole32(TRAWL_RELAY_MAGIC),
		.version = htole16(TRAWL_RELAY_VERSION),
		.cmd = htole16(cmd),
		.handle = htole32(handle),
	};
	v[(*n)++] = (struct iovec){h, sizeof(*h)};
	for (i = 0; i < cnt; i++) {
		size += iov[i].iov_len;
		v[(*n)++] = iov[i];
	}
	if (size > TRAWL_RELAY_MAX_PAYLOAD)
		return -EMSGSIZE;
	h->size = htole32((uint32_t)size);
	return 0;
}

/* Sends one message. 0, or -errno (broken: marked so). */
static int relay_send(struct trawl_output *o, uint16_t cmd, uint32_t handle,
		      const struct iovec *iov, int cnt)
{
	struct trawl_relay_hdr h;
	struct iovec v[9];
	int n = 0, ret;

	if (o->broken)
		return -EPIPE;
	ret = msg_add(v, &n, 9, &h, cmd, handle, iov, cnt);
	return ret ? ret : relay_writev(o, v, n);
}

/* Parses "SESSION,HOSTNAME,CTIME,LIVE_US,TOKEN,URL/REL" into @hello, @u, @rel. */
static int spec_parse(const char *spec, struct trawl_relay_hello *hello, struct trawl_relay_url *u,
		      char *rel, size_t rel_len, char *err, size_t err_len)
{
	const char *f[5], *p = spec, *url, *slash;
	char urlbuf[300], *end;
	size_t n;
	int i;

	for (i = 0; i < 5; i++) {
		f[i] = p;
		p = strchr(p, ',');
		if (!p)
			goto bad;
		p++;
	}
	url = p;
	n = (size_t)(f[1] - f[0] - 1);
	if (n == 0 || n >= sizeof(hello->session))
		goto bad;
	memcpy(hello->session, f[0], n);
	n = (size_t)(f[2] - f[1] - 1);
	if (n == 0 || n >= sizeof(hello->hostname))
		goto bad;
	memcpy(hello->hostname, f[1], n);
	hello->creation_time = htole64((uint64_t)strtoll(f[2], &end, 10));
	if (*end != ',')
		goto bad;
	hello->live_timer_us = htole32((uint32_t)strtoul(f[3], &end, 10));
	if (*end != ',')
		goto bad;
	hello->token = htole64((uint64_t)strtoull(f[4], &end, 10));
	if (*end != ',')
		goto bad;
	hello->flags = htole32(hello->live_timer_us ? TRAWL_RELAY_F_LIVE : 0);
	p = strstr(url, "://");
	if (!p)
		goto bad;
	p += 3;
	if (*p == '[')
		p = strchr(p, ']');
	slash = p ? strchr(p, '/') : NULL;
	if (!slash || (size_t)(slash - url) >= sizeof(urlbuf) || strlen(slash + 1) >= rel_len)
		goto bad;
	memcpy(urlbuf, url, (size_t)(slash - url));
	urlbuf[slash - url] = '\0';
	if (trawl_relay_url_parse(urlbuf, TRAWL_RELAY_DEFAULT_DATA_PORT, u, err, err_len))
		return -EINVAL;
	/* A per-process folder carries the program's name: keep it a name relayd takes. */
	snprintf(rel, rel_len, "%s", slash + 1);
	for (i = 0; rel[i]; i++) {
		char c = rel[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '-' || c == '_' || c == '/'))
			rel[i] = '_';
	}
	if (!trawl_relay_name_ok(hello->session) || !trawl_relay_name_ok(hello->hostname) ||
	    !trawl_relay_path_ok(rel))
		goto bad;
	return 0;
bad:
	snprintf(err, err_len, "bad relay destination '%.200s'", spec);
	return -EINVAL;
}

static int relay_open(struct trawl_output *o, const char *spec, char *err, size_t err_len)
{
	struct trawl_relay_hello hello;
	struct trawl_relay_reply r;
	struct trawl_relay_url u;
	struct timeval tv = {.tv_sec = TRAWL_OUTPUT_SEND_TIMEOUT_MS / 1000};
	struct iovec v = {.iov_base = &hello, .iov_len = sizeof(hello)};
	int ret, one = 1;

	memset(&hello, 0, sizeof(hello));
	ret = spec_parse(spec, &hello, &u, o->dir, sizeof(o->dir), err, err_len);
	if (ret)
		return ret;
	snprintf(o->peer, sizeof(o->peer), "%s:%u", u.host, u.data_port);
	o->live_timer_us = le32toh(hello.live_timer_us);
	ret = trawl_relay_connect(u.host, u.data_port, u.ipv6, TRAWL_OUTPUT_CONNECT_TIMEOUT_MS);
	if (ret < 0) {
		snprintf(err, err_len, "cannot reach trawl-relayd at %s: %s", o->peer,
			 ret == -ENOENT ? "unknown host" : strerror(-ret));
		return ret;
	}
	o->sock = ret;
	/* Whole messages go out in one writev(): no need for Nagle's coalescing. */
	if (setsockopt(o->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
	    setsockopt(o->sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(o->sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	ret = relay_send(o, TRAWL_RELAY_HELLO, 0, &v, 1);
	if (!ret) {
		ret = read(o->sock, &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : -EPROTO;
		if (!ret && le32toh(r.magic) != TRAWL_RELAY_MAGIC)
			ret = -EPROTO;
		if (!ret)
			ret = (int32_t)le32toh((uint32_t)r.status);
	}
	if (ret) {
		snprintf(err, err_len, "trawl-relayd at %s refused the session: %s", o->peer,
			 strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * Reads the replies to our PINGs that have come, waiting at most
 * @timeout_ms for all of them. Returns 0 once none is missing, -ETIMEDOUT,
 * or -errno after marking the output broken.
 */
static int replies_read(struct trawl_output *o, int timeout_ms)
{
	struct pollfd pfd = {.fd = o->sock, .events = POLLIN};
	struct trawl_relay_reply r;
	ssize_t n;

	while (o->pings) {
		int ret = poll(&pfd, 1, timeout_ms);

		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			broken_set(o, errno);
			return -o->broken;
		}
		if (ret == 0)
			return -ETIMEDOUT;
		n = recv(o->sock, &r, sizeof(r), MSG_WAITALL);
		if (n != (ssize_t)sizeof(r) || le32toh(r.magic) != TRAWL_RELAY_MAGIC) {
			broken_set(o, n < 0 ? errno : n == 0 ? ECONNRESET : EPROTO);
			return -o->broken;
		}
		o->pings--;
		/* what it wrote of ours, then whether a write of its failed (proto.h) */
		trawl_output_acked(o, le64toh(r.session_id));
		if ((int32_t)le32toh((uint32_t)r.status) < 0) {
			o->relay_failed = 1;
			broken_set(o, -(int32_t)le32toh((uint32_t)r.status));
			return -o->broken;
		}
	}
	return 0;
}

/*
 * relay: asks relayd, every TRAWL_OUTPUT_PING_BYTES sent, what it wrote
 * (never waiting for the answer), so that a relayd that dies loses at most
 * about that much unnoticed, and "bytes written" follows what landed.
 */
static void ping_maybe(struct trawl_output *o)
{
	if (o->sent_bytes - o->ping_at < TRAWL_OUTPUT_PING_BYTES)
		return;
	if (o->pings)
		replies_read(o, 0);
	if (o->broken || o->pings >= 16)
		return;
	if (!relay_send(o, TRAWL_RELAY_PING, 0, NULL, 0)) {
		o->pings++;
		o->ping_at = o->sent_bytes;
	}
}

int trawl_output_sync(struct trawl_output *o)
{
	int ret;

	if (!o->relay || o->broken)
		return 0;
	if (relay_send(o, TRAWL_RELAY_PING, 0, NULL, 0))
		return 0; /* broken: reported by trawl_output_broken() */
	o->pings++;
	ret = replies_read(o, TRAWL_OUTPUT_SYNC_TIMEOUT_MS);
	if (ret == -ETIMEDOUT)
		fprintf(stderr, "trawl-consumerd[%d]: trawl-relayd at %s is still writing what we "
			"sent %d ms ago\n", (int)getpid(), o->peer, TRAWL_OUTPUT_SYNC_TIMEOUT_MS);
	return ret == -ETIMEDOUT ? ret : 0;
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

static void reserve_grow(struct trawl_output *o)
{
	static const char zero[4096];
	uint32_t i;

	for (i = 0; o->reserve >= 0 && !o->failed && i < TRAWL_OUTPUT_RESERVE_BYTES / sizeof(zero);
	     i++)
		if (trawl_write_all(o->reserve, zero, sizeof(zero)))
			break;
}

int trawl_output_create(const char *dest, uid_t uid, gid_t gid, struct trawl_output **out,
			char *err, size_t err_len)
{
	struct trawl_output *o = calloc(1, sizeof(*o));
	int ret;

	if (!o)
		return -ENOMEM;
	o->sock = o->reserve = -1;
	if (trawl_output_dest_is_relay(dest)) {
		o->relay = 1;
		ret = relay_open(o, dest + 6, err, err_len);
	} else if (dest[0] != '/' || strlen(dest) >= sizeof(o->dir)) {
		snprintf(err, err_len, "bad trace folder '%.200s'", dest);
		ret = -EINVAL;
	} else {
		snprintf(o->dir, sizeof(o->dir), "%s", dest);
		/* as @uid: the files are theirs, and their links bind nobody else (opener.h) */
		ret = trawl_opener_create(dest, uid, gid, &o->opener, err, err_len);
		if (!ret)
			reserve_make(o);
	}
	if (ret) {
		if (o->sock >= 0)
			close(o->sock);
		free(o);
		return ret;
	}
	*out = o;
	return 0;
}

void trawl_output_destroy(struct trawl_output *o)
{
	uint32_t i;

	if (!o)
		return;
	for (i = 0; i < o->nr_files; i++)
		if (o->files[i].fd >= 0)
			trawl_output_file_close(o, (int)i);
	if (o->relay) {
		relay_send(o, TRAWL_RELAY_END, 0, NULL, 0);
		close(o->sock);
	}
	if (o->reserve >= 0) {
		close(o->reserve);
		trawl_opener_replace_commit(o->opener, "reserve", 0); /* removes it */
	}
	trawl_opener_destroy(o->opener);
	free(o->q);
	free(o->files);
	free(o);
}

int trawl_output_broken(struct trawl_output *o, char *why, size_t len)
{
	char c, lost[96];
	ssize_t n;

	if (!o)
		return 0;
	/*
	 * relayd never sends after its HELLO reply: a readable socket means
	 * it closed or reset the connection. Checked here too, so that a
	 * session with nothing more to send still learns it lost relayd.
	 */
	if (o->relay && !o->broken && o->pings)
		replies_read(o, 0); /* late replies to PINGs first */
	if (o->relay && !o->broken) {
		n = recv(o->sock, &c, 1, MSG_PEEK | MSG_DONTWAIT);
		if (n == 0)
			broken_set(o, ECONNRESET);
		else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			broken_set(o, errno);
		else if (n > 0 && !o->pings)
			broken_set(o, EPROTO);
	}
	if (!o->broken && !o->failed)
		return 0;
	trawl_output_lost_text(o, lost, sizeof(lost));
	if (why && o->failed)
		snprintf(why, len, "writing the trace in %.300s: %s%s", o->dir, strerror(o->failed),
			 lost);
	else if (why)
		snprintf(why, len, "streaming to trawl-relayd at %s stopped: %s%s%s", o->peer,
			 o->relay_failed ? "it could not write: " : "", strerror(o->broken), lost);
	return 1;
}

int trawl_output_errno(const struct trawl_output *o)
{
	return !o ? 0 : o->failed ? o->failed : o->broken;
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
	return o->live_timer_us;
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
	if (o->relay) {
		uint32_t k = htole32((uint32_t)kind);
		struct iovec v[2] = {{&k, 4}, {path, strlen(path) + 1}};

		relay_send(o, TRAWL_RELAY_OPEN, h, v, 2); /* a broken relay: dropped */
		o->files[h].fd = 0;
		return (int)h;
	}
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
 * Appends @iov to local file @f, all or nothing: a write that fails part
 * way is cut back (ftruncate frees blocks, it needs none), so the file
 * never ends in half a packet or half a metadata statement. 0 or -errno.
 */
int trawl_output_local_append(struct ofile *f, const struct iovec *iov, int cnt)
{
	struct iovec v[8];
	uint64_t done = 0;
	int first = 0, err;

	memcpy(v, iov, (size_t)cnt * sizeof(*v));
	while (first < cnt) {
		ssize_t w = writev(f->fd, v + first, cnt - first);

		if (w < 0 && errno == EINTR)
			continue;
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
		if (first < cnt) {
			v[first].iov_base = (char *)v[first].iov_base + w;
			v[first].iov_len -= (size_t)w;
		}
	}
	f->size += done;
	return 0;
}

int trawl_output_file_append(struct trawl_output *o, int h, const struct iovec *iov, int cnt)
{
	struct ofile *f = file_get(o, h);
	int ret;

	if (!f || cnt > 8)
		return -EBADF;
	if (o->relay) {
		relay_send(o, TRAWL_RELAY_APPEND, (uint32_t)h, iov, cnt);
		return 0;
	}
	if (o->failed)
		return 0; /* dropped: trawl_output_broken() says so */
	ret = trawl_output_local_append(f, iov, cnt);
	if (ret)
		local_fail(o, f, -ret);
	return 0;
}

int trawl_output_file_replace(struct trawl_output *o, int h, const void *buf, size_t len)
{
	struct ofile *f = file_get(o, h);
	int fd, ret;

	if (!f)
		return -EBADF;
	if (o->relay) {
		struct iovec v = {(void *)buf, len};

		relay_send(o, TRAWL_RELAY_REPLACE, (uint32_t)h, &v, 1);
		return 0;
	}
	if (o->failed)
		return 0;
	fd = trawl_opener_replace_begin(o->opener, f->rel);
	if (fd < 0) {
		local_fail(o, f, -fd);
		return 0;
	}
	ret = trawl_write_all(fd, buf, len);
	if (!ret)
		ret = trawl_opener_replace_commit(o->opener, f->rel, 1);
	else
		trawl_opener_replace_commit(o->opener, f->rel, 0);
	if (ret) {
		close(fd);
		/*
		 * The old text stays whole, but packets holding the events it
		 * lacks would not decode: nothing more is written.
		 */
		local_fail(o, f, -ret);
		return 0;
	}
	close(f->fd);
	f->fd = fd;
	f->size = len;
	return 0;
}

void trawl_output_file_close(struct trawl_output *o, int h)
{
	struct ofile *f = file_get(o, h);

	if (!f)
		return;
	if (o->relay)
		relay_send(o, TRAWL_RELAY_CLOSE, (uint32_t)h, NULL, 0);
	else
		close(f->fd);
	f->fd = -1;
	free(f->rel);
	f->rel = NULL;
}

/* ---- streams ------------------------------------------------------------ */

/* In the output's list of open streams (what trawl_output_seal() goes through). */
static void stream_link(struct trawl_output_stream *st)
{
	st->next = st->o->streams;
	st->o->streams = st;
	reserve_grow(st->o);
}

struct trawl_output_stream *trawl_output_stream_open(struct trawl_output *o, const char *name,
						     uint64_t instance_id)
{
	struct trawl_ctf_index_header ih = {
		.magic = htobe32(TRAWL_CTF_INDEX_MAGIC),
		.index_major = htobe32(1),
		.index_minor = htobe32(1),
		.packet_index_len = htobe32(sizeof(struct trawl_ctf_index_entry)),
	};
	struct iovec v = {&ih, sizeof(ih)};
	struct trawl_output_stream *st = calloc(1, sizeof(*st));
	char rel[300];
	int ret;

	if (!st)
		return NULL;
	st->o = o;
	st->instance_id = instance_id;
	st->data = trawl_output_file_open(o, name, TRAWL_OUTPUT_DATA);
	if (st->data < 0) {
		ret = st->data;
		goto fail;
	}
	snprintf(rel, sizeof(rel), "index/%s.idx", name);
	st->index = trawl_output_file_open(o, rel, TRAWL_OUTPUT_INDEX);
	if (st->index < 0) {
		ret = st->index;
		trawl_output_file_close(o, st->data);
		goto fail;
	}
	stream_link(st);
	ret = trawl_output_file_append(o, st->index, &v, 1);
	if (ret) {
		trawl_output_stream_close(st);
		errno = -ret;
		return NULL;
	}
	return st;
fail:
	free(st);
	errno = -ret;
	return NULL;
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
	trawl_output_file_close(st->o, st->data);
	trawl_output_file_close(st->o, st->index);
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

struct trawl_output_stream *trawl_output_stream_resume(struct trawl_output *o, const char *name,
						       uint64_t instance_id, uint64_t *next_seq)
{
	struct trawl_ctf_index_header ih = {
		.magic = htobe32(TRAWL_CTF_INDEX_MAGIC),
		.index_major = htobe32(1),
		.index_minor = htobe32(1),
		.packet_index_len = htobe32(sizeof(struct trawl_ctf_index_entry)),
	};
	struct iovec v = {&ih, sizeof(ih)};
	struct trawl_output_stream *st;
	char rel[300];
	int ret;

	if (o->relay) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->o = o;
	st->instance_id = instance_id;
	st->data = st->index = -1;
	snprintf(rel, sizeof(rel), "index/%s.idx", name);
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
	free(st);
	errno = -ret;
	return NULL;
}

/* relay: the packet's two messages in one system call (one wake-up of relayd). */
static int64_t relay_packet(struct trawl_output_stream *st, struct iovec *v,
			    struct trawl_ctf_index_entry *e, uint64_t bytes, int64_t events)
{
	struct trawl_output *o = st->o;
	struct trawl_relay_hdr hd, hi;
	struct iovec ie = {e, sizeof(*e)}, all[5];
	int n = 0;

	if (o->broken || msg_add(all, &n, 5, &hd, TRAWL_RELAY_APPEND, (uint32_t)st->data, v, 2) ||
	    msg_add(all, &n, 5, &hi, TRAWL_RELAY_APPEND, (uint32_t)st->index, &ie, 1) ||
	    relay_writev(o, all, n)) {
		trawl_output_lost_add(o, 1, bytes, events); /* a broken relay: dropped (output.h) */
		return 0;
	}
	o->sent_bytes += bytes;
	if (trawl_output_unacked_push(o, events))
		o->acked_bytes = o->sent_bytes; /* no memory to follow it: taken as landed */
	ping_maybe(o);
	return (int64_t)bytes;
}

/* local: the packet, then its index entry; neither stays if both do not fit. */
/* A packet lost: counted for the output, and for the stream's seal (output-loss.c). */
static void stream_lost(struct trawl_output_stream *st, const struct iovec *v, uint64_t bytes,
			int64_t events)
{
	trawl_output_lost_add(st->o, 1, bytes, events);
	if (!st->lost_packets)
		memcpy(&st->lost_first, v[0].iov_base, sizeof(st->lost_first));
	st->lost_packets++;
	st->lost_events += events > 0 ? (uint64_t)events : 0;
	memcpy(&st->lost_head, v[0].iov_base, sizeof(st->lost_head));
}

/*
 * local: the packet, then its index entry; neither stays if both do not
 * fit. @forced: the seal's packet, written even once writing failed
 * (then a failure is only returned).
 */
static int64_t local_packet(struct trawl_output_stream *st, struct iovec *v,
			    struct trawl_ctf_index_entry *e, uint64_t bytes, int64_t events,
			    int forced)
{
	struct trawl_output *o = st->o;
	struct ofile *d = file_get(o, st->data), *x = file_get(o, st->index);
	struct iovec ie = {e, sizeof(*e)};
	int ret;

	if (!d || !x)
		return -EBADF;
	if (o->failed && !forced) {
		stream_lost(st, v, bytes, events);
		return 0;
	}
	ret = trawl_output_local_append(d, v, 2);
	if (!ret) {
		ret = trawl_output_local_append(x, &ie, 1);
		if (ret && !ftruncate(d->fd, (off_t)st->offset))
			d->size = st->offset;
	}
	if (ret && forced)
		return ret;
	if (ret) {
		local_fail(o, d, -ret);
		stream_lost(st, v, bytes, events);
		return 0;
	}
	return (int64_t)bytes;
}

static int64_t stream_packet(struct trawl_output_stream *st, const void *pkt, size_t avail,
			     int64_t events, int forced)
{
	const size_t hl = sizeof(struct trawl_ctf_packet_start);
	struct trawl_ctf_packet_start head;
	struct trawl_ctf_index_entry e;
	struct iovec v[2];
	uint64_t bytes;
	int64_t n;

	if (avail < hl)
		return -EPROTO;
	memcpy(&head, pkt, hl); /* once: @pkt may change under us */
	if (head.context.content_size > (uint64_t)avail * 8)
		return -EPROTO;
	bytes = (head.context.content_size + 7) / 8;
	if (bytes < hl)
		return -EPROTO;
	head.context.packet_size = bytes * 8;
	head.header.stream_instance_id = st->instance_id;
	v[0] = (struct iovec){&head, hl};
	v[1] = (struct iovec){(char *)pkt + hl, bytes - hl};
	e = (struct trawl_ctf_index_entry){
		.offset = htobe64(st->offset),
		.packet_size = htobe64(bytes * 8),
		.content_size = htobe64(head.context.content_size),
		.timestamp_begin = htobe64(head.context.timestamp_begin),
		.timestamp_end = htobe64(head.context.timestamp_end),
		.events_discarded = htobe64(head.context.events_discarded),
		.stream_id = htobe64(head.header.stream_id),
		.stream_instance_id = htobe64(st->instance_id),
		.packet_seq_num = htobe64(head.context.packet_seq_num),
	};
	n = st->o->relay ? relay_packet(st, v, &e, bytes, events)
			 : local_packet(st, v, &e, bytes, events, forced);
	if (n > 0)
		st->offset += bytes;
	return n;
}

int64_t trawl_output_stream_packet(struct trawl_output_stream *st, const void *pkt, size_t avail,
				   int64_t events)
{
	return stream_packet(st, pkt, avail, events, 0);
}

int64_t trawl_output_stream_packet_forced(struct trawl_output_stream *st, const void *pkt,
					  size_t len)
{
	return st->o->relay ? -EOPNOTSUPP : stream_packet(st, pkt, len, 0, 1);
}

uint64_t trawl_output_stream_bytes(const struct trawl_output_stream *st)
{
	return st ? st->offset : 0;
}
