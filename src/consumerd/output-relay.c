/* SPDX-License-Identifier: MIT */
/*
 * output-relay.c - a trace streamed to trawl-relayd (output.h): the
 * connection, relayd's confirmations, and taking the stream up again when
 * the connection is lost (relayd restarted, the network was cut).
 *
 * Every packet sent is kept until relayd confirms writing it (a PING's
 * reply says how many data bytes of ours it wrote; relayd acts on messages
 * in order), at most TRAWL_OUTPUT_KEEP_BYTES: past that the consumer waits
 * for confirmations. So a lost connection loses nothing sent: the output
 * reconnects (at each write, and when asked whether it is broken; backing
 * off from TRAWL_OUTPUT_RETRY_FIRST_MS to TRAWL_OUTPUT_RETRY_MAX_MS), says
 * HELLO again (relayd finds the session's folder by its token, also after
 * a restart), RESUMEs each open file cut to what relayd confirmed, says the
 * metadata whole again, and sends the kept packets again, in order.
 * Packets the consumer hands over while disconnected are dropped and
 * counted; the next packet of their stream shows the gap to readers (its
 * packet_seq_num follows theirs, its events_discarded counts their events:
 * output.c), or the stream's seal at the stop does.
 *
 * A relayd that could not write (a full disk: a PING's reply says so) ends
 * streaming for good (broken): what it did not confirm is lost, counted;
 * at the stop, trawl_output_seal() sends SEAL (relayd frees the room it held
 * back), cuts each file to what landed and writes each stream's gap.
 */
#include "common/array.h"
#include "consumerd/output.h"
#include "consumerd/output-internal.h"
#include "common/common.h"

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void unacked_lose(struct trawl_output *o);

/* When a wait of @ms from now ends: then, or at the caller's deadline if sooner. */
static uint64_t wait_until(const struct trawl_output *o, uint64_t ms)
{
	uint64_t t = now_ms() + ms;

	return o->deadline_ms && o->deadline_ms < t ? o->deadline_ms : t;
}

/* Milliseconds left until @until, for poll(): 0 once it has passed. */
static int ms_left(uint64_t until)
{
	uint64_t t = now_ms();

	return t >= until ? 0 : (int)TRAWL_MIN(until - t, (uint64_t)INT_MAX);
}

void trawl_output_deadline(struct trawl_output *o, uint32_t ms)
{
	if (o)
		o->deadline_ms = ms ? now_ms() + ms : 0;
}

/* What relayd may answer: 0 or a negative errno; anything else breaks the protocol. */
static int status_ok(int32_t status)
{
	return status <= 0 && status >= -4095;
}

/* Streaming ends for good (relayd could not write, or broke the protocol). */
static void broken_set(struct trawl_output *o, int err)
{
	if (o->broken)
		return;
	o->broken = err ? err : EIO;
	unacked_lose(o);
	fprintf(stderr, "trawl-consumerd[%d]: streaming to trawl-relayd at %s stopped: %s "
		"(what it received stays there; the rest of this trace is dropped)\n",
		(int)getpid(), o->peer, strerror(o->broken));
}

/* An interruption begins (@err: why): the connection is tried again from now on. */
static void down_begin(struct trawl_output *o, int err)
{
	o->down = o->last_down = err ? err : EIO;
	o->interruptions++;
	o->down_at_ms = o->retry_at_ms = now_ms();
	o->backoff_ms = TRAWL_OUTPUT_RETRY_FIRST_MS;
}

/* The connection is gone: closed at once (unsent bytes discarded), taken up again later. */
static void conn_lost(struct trawl_output *o, int err)
{
	struct linger l = {.l_onoff = 1, .l_linger = 0};

	if (o->sock < 0)
		return;
	/* a reset, so that nothing still queued reaches relayd after our RESUMEs */
	setsockopt(o->sock, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(o->sock);
	o->sock = -1;
	o->pings = 0;
	o->reply_len = 0;
	if (o->down)
		return; /* lost again while being taken up: the same interruption */
	down_begin(o, err);
	fprintf(stderr, "trawl-consumerd[%d]: streaming to trawl-relayd at %s interrupted: %s "
		"(reconnecting; %zu packets sent are kept to send again)\n", (int)getpid(), o->peer,
		strerror(o->down), o->q_len);
}

/*
 * Writes all of @v (@n entries, modified), within TRAWL_OUTPUT_SEND_TIMEOUT_MS
 * plus its size at TRAWL_OUTPUT_MIN_RATE (and the caller's deadline): not
 * per system call, so a peer taking a few bytes at a time holds us no
 * longer. 0, or -errno after losing the connection.
 */
static int relay_writev(struct trawl_output *o, struct iovec *v, int n)
{
	uint64_t bytes = 0, until;
	int first = 0, i;

	for (i = 0; i < n; i++)
		bytes += v[i].iov_len;
	until = wait_until(o, TRAWL_OUTPUT_SEND_TIMEOUT_MS + bytes / (TRAWL_OUTPUT_MIN_RATE / 1000));
	while (first < n) {
		struct msghdr mh = {.msg_iov = v + first, .msg_iovlen = (size_t)(n - first)};
		ssize_t w = sendmsg(o->sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w < 0) {
			struct pollfd p = {.fd = o->sock, .events = POLLOUT};
			int err = errno, left = ms_left(until);

			if (err == EINTR)
				continue;
			if ((err == EAGAIN || err == EWOULDBLOCK) && left) {
				poll(&p, 1, left);
				continue;
			}
			if (err == EAGAIN || err == EWOULDBLOCK)
				err = ETIMEDOUT;
			conn_lost(o, err);
			return -err;
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

/* Sends one message. 0, or -errno (broken, or disconnected: dropped). */
int trawl_output_relay_send(struct trawl_output *o, uint16_t cmd, uint32_t handle,
			    const struct iovec *iov, int cnt)
{
	struct trawl_relay_hdr h;
	struct iovec v[9];
	int n = 0, ret;

	if ((o->broken && !o->sealing) || o->sock < 0)
		return -EPIPE;
	ret = msg_add(v, &n, 9, &h, cmd, handle, iov, cnt);
	return ret ? ret : relay_writev(o, v, n);
}

/* Parses "SESSION,HOSTNAME,CTIME,LIVE_US,TOKEN,BASE,URL/REL" into @hello, @u, @rel. */
static int spec_parse(const char *spec, struct trawl_relay_hello *hello, struct trawl_relay_url *u,
		      char *rel, size_t rel_len, char *err, size_t err_len)
{
	const char *f[6], *p = spec, *url, *slash;
	char urlbuf[300], *end;
	size_t n;
	int i;

	for (i = 0; i < 6; i++) {
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
	n = (size_t)(url - f[5] - 1);
	if (n >= sizeof(hello->base_path))
		goto bad;
	memcpy(hello->base_path, f[5], n);
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
		      c == '.' || c == '-' || c == '_' || c == '/' || c == '+'))
			rel[i] = '_';
	}
	if (!trawl_relay_name_ok(hello->session) || !trawl_relay_name_ok(hello->hostname) ||
	    !trawl_relay_path_ok(rel) ||
	    (hello->base_path[0] && !trawl_relay_path_ok(hello->base_path)))
		goto bad;
	return 0;
bad:
	trawl_msg_fmt(err, err_len, "bad relay destination '%.200s'", spec);
	return -EINVAL;
}

/*
 * Connects and says HELLO. 0, or -errno with @err set; o->sock is -1 then.
 * *@refused (may be NULL) is set when relayd itself answered no (or with
 * what no relayd sends), not when it could not be reached or the
 * connection ended before its answer.
 */
static int relay_connect(struct trawl_output *o, int timeout_ms, int *refused, char *err,
			 size_t err_len)
{
	struct trawl_relay_reply r;
	struct timeval tv = {.tv_sec = TRAWL_OUTPUT_SEND_TIMEOUT_MS / 1000};
	struct iovec v = {.iov_base = &o->hello, .iov_len = sizeof(o->hello)};
	int ret, one = 1, fd;
	ssize_t n;

	if (refused)
		*refused = 0;
	fd = trawl_relay_connect(o->url.host, o->url.data_port, o->url.ipv6, timeout_ms);
	if (fd < 0) {
		trawl_msg_fmt(err, err_len, "cannot reach trawl-relayd at %s: %s", o->peer,
			      fd == -ENOENT ? "unknown host" : strerror(-fd));
		return fd;
	}
	/* Whole messages go out in one writev(): no need for Nagle's coalescing. */
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		ret = -errno;
		close(fd);
		trawl_msg_fmt(err, err_len, "trawl-relayd at %s: %s", o->peer, strerror(-ret));
		return ret;
	}
	o->sock = fd;
	/* (a failed send closes o->sock: conn_lost()) */
	ret = trawl_output_relay_send(o, TRAWL_RELAY_HELLO, 0, &v, 1);
	if (ret) {
		trawl_msg_fmt(err, err_len, "trawl-relayd at %s: %s", o->peer, strerror(-ret));
		goto fail;
	}
	n = recv(fd, &r, sizeof(r), MSG_WAITALL);
	if (n != (ssize_t)sizeof(r)) {
		/* the connection ended before the answer (relayd killed, the
		 * network cut; EAGAIN: SO_RCVTIMEO ran out): relayd said nothing */
		ret = n >= 0 ? -ECONNRESET
		      : errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
		if (ret == -ECONNRESET)
			trawl_msg_fmt(err, err_len, "trawl-relayd at %s did not answer: %s (a "
				      "trawl-relayd older than relay protocol %u drops the HELLO)",
				      o->peer, strerror(-ret), (unsigned)TRAWL_RELAY_VERSION);
		else
			trawl_msg_fmt(err, err_len, "trawl-relayd at %s did not answer: %s",
				      o->peer, strerror(-ret));
		goto fail;
	}
	ret = le32toh(r.magic) != TRAWL_RELAY_MAGIC ? -EPROTO : (int32_t)le32toh((uint32_t)r.status);
	if (!status_ok(ret))
		ret = -EPROTO; /* a positive "error" once made the caller take it for success */
	if (ret) {
		trawl_msg_fmt(err, err_len, "trawl-relayd at %s refused the session: %s", o->peer,
			      ret == -EPROTONOSUPPORT ? "it speaks another relay protocol than "
							"this consumer's (run the same trawl "
							"version on both hosts)"
						      : strerror(-ret));
		if (refused)
			*refused = 1;
		goto fail;
	}
	o->reply_len = 0;
	o->conn_base = o->acked_bytes; /* relayd counts this connection's bytes from 0 */
	o->ping_at = o->sent_bytes;
	return 0;
fail:
	if (o->sock >= 0)
		close(o->sock);
	o->sock = -1;
	return ret;
}

/*
 * @reconnecting: unless relayd refused the session, a first connection that
 * fails leaves the output as a lost one does: disconnected, taken up when
 * relayd is back (trawl_output_relay_ready()), what is written meanwhile
 * dropped and counted. A relayd killed during our HELLO, or gone before a
 * trace was made (a program traced right after), once made the trace fail,
 * silently (relayd-rotate-kill).
 */
int trawl_output_relay_open(struct trawl_output *o, const char *spec, int reconnecting, char *err,
			    size_t err_len)
{
	int ret = spec_parse(spec, &o->hello, &o->url, o->dir, sizeof(o->dir), err, err_len);
	int refused;

	if (ret)
		return ret;
	snprintf(o->peer, sizeof(o->peer), "%s:%u", o->url.host, o->url.data_port);
	o->live_timer_us = le32toh(o->hello.live_timer_us);
	ret = relay_connect(o, TRAWL_OUTPUT_CONNECT_TIMEOUT_MS, &refused, err, err_len);
	if (!ret || !reconnecting || refused || ret == -ENOENT || ret == -ENOMEM)
		return ret;
	if (!o->down) { /* (else said by conn_lost(): the HELLO could not be sent) */
		down_begin(o, -ret);
		fprintf(stderr, "trawl-consumerd[%d]: %s (reconnecting; until then this trace's "
			"packets are dropped, counted)\n", (int)getpid(), err);
	}
	return 0;
}

/* ---- what was sent and not confirmed ------------------------------------ */

void trawl_output_file_free(struct ofile *f)
{
	f->fd = -1;
	free(f->rel);
	free(f->copy);
	*f = (struct ofile){.fd = -1};
}

/* A kept packet is done with (confirmed or lost): its files may go. */
static void unacked_drop(struct trawl_output *o, struct unacked *u)
{
	uint32_t hs[2] = {u->data_h, u->index_h};

	for (int i = 0; i < 2; i++) {
		struct ofile *f = &o->files[hs[i]];

		if (f->pending && !--f->pending && f->closed)
			trawl_output_file_free(f);
	}
	free(u->pkt);
	u->pkt = NULL;
}

/* relayd says it wrote @written data bytes of this connection: the packets they end landed. */
static void acked(struct trawl_output *o, uint64_t written)
{
	/* relayd's claim: past what we sent it only lets go of everything kept */
	uint64_t w = written > UINT64_MAX - o->conn_base ? UINT64_MAX : o->conn_base + written;

	while (o->q_len && o->q[o->q_head].end <= w) {
		struct unacked *u = &o->q[o->q_head];

		o->acked_bytes = u->end;
		o->files[u->data_h].acked = u->data_end;
		o->files[u->index_h].acked = u->index_end;
		unacked_drop(o, u);
		o->q_head++;
		o->q_len--;
	}
	if (!o->q_len)
		o->q_head = 0;
}

/* Makes room for one more kept packet. 0 or -ENOMEM. */
static int unacked_room(struct trawl_output *o)
{
	if (o->q_head && o->q_head + o->q_len == o->q_cap) {
		memmove(o->q, o->q + o->q_head, o->q_len * sizeof(*o->q));
		o->q_head = 0;
	}
	return trawl_array_grow((void **)&o->q, &o->q_cap, o->q_len + 1, sizeof(*o->q), 64);
}

/*
 * Broken for good: what relayd did not confirm is counted lost, in its
 * stream's gap too. A user-space packet's events were not known when it
 * was sent (-1): counted now from the copy kept (output.h,
 * trawl_output_count_events()), so the count is exact.
 */
static void unacked_lose(struct trawl_output *o)
{
	uint64_t prev = o->acked_bytes;

	for (; o->q_len; o->q_head++, o->q_len--) {
		struct unacked *u = &o->q[o->q_head];

		if (u->events < 0 && o->count)
			u->events = o->count(o->count_arg, u->pkt, u->len);
		if (u->st) {
			struct trawl_ctf_packet_start h;

			memcpy(&h, u->pkt, sizeof(h)); /* as the ring buffer gave it */
			h.context.events_discarded -= u->carry;
			trawl_output_stream_lost(u->st, &h, u->end - prev, u->events);
		} else
			trawl_output_lost_add(o, 1, u->end - prev, u->events);
		prev = u->end;
		unacked_drop(o, u);
	}
	o->q_head = 0;
	/* what the streams hold on relayd's side ("Bytes written" counts it) */
	o->sent_bytes = o->acked_bytes;
	for (struct trawl_output_stream *st = o->streams; st; st = st->next)
		st->offset = o->files[st->data].acked;
}

/*
 * The stop with relayd still away: the packets it never confirmed are
 * counted lost (in their streams' gaps too). It may have written some
 * before it went (a relayd killed right after writing), but nothing here
 * can tell, and the stop must say what the trace may lack: before this,
 * a stop said "nothing lost" of the events of a program traced just after
 * relayd died (their packet was the first write to the dead connection,
 * which the kernel accepts), and they were never in any trace
 * (relayd-kernel failed so about 1 run in 6). Taken up again later (the
 * session started again), relayd's files are cut to what it confirmed
 * (file_resume()), so the count stays true of the trace; files go on
 * from there.
 */
static void kept_lose(struct trawl_output *o)
{
	uint32_t h;

	if (!o->q_len)
		return;
	fprintf(stderr, "trawl-consumerd[%d]: trawl-relayd at %s is still away at the stop: the %zu "
		"packets it had not confirmed are counted lost (it may hold some)\n", (int)getpid(),
		o->peer, o->q_len);
	o->lost_unconfirmed += o->q_len;
	unacked_lose(o);
	for (h = 0; h < o->nr_files; h++) {
		struct ofile *f = &o->files[h];

		/* as file_resume() will say: confirmed bytes, or the copy sent again whole */
		if (f->fd >= 0 && f->kind != TRAWL_OUTPUT_METADATA)
			f->sent = f->acked < f->copy_len ? f->copy_len : f->acked;
	}
}

void trawl_output_relay_forget(struct trawl_output_stream *st)
{
	struct trawl_output *o = st->o;

	for (size_t i = 0; i < o->q_len; i++)
		if (o->q[o->q_head + i].st == st)
			o->q[o->q_head + i].st = NULL;
}

/* ---- relayd's replies --------------------------------------------------- */

int trawl_output_relay_reply(struct trawl_output *o, const void *buf)
{
	struct trawl_relay_reply r;
	int32_t status;

	memcpy(&r, buf, sizeof(r));
	status = (int32_t)le32toh((uint32_t)r.status);
	if (le32toh(r.magic) != TRAWL_RELAY_MAGIC || !status_ok(status)) {
		broken_set(o, EPROTO);
		return -EPROTO;
	}
	/* what it wrote of ours, then whether a write of its failed (proto.h) */
	acked(o, le64toh(r.session_id));
	if (status < 0) {
		o->relay_failed = 1;
		if (!o->sealing) {
			broken_set(o, -status);
			return status;
		}
	}
	return status; /* sealing: replies to PINGs sent before the SEAL come first */
}

/*
 * Reads the replies to our PINGs that have come, waiting at most
 * @timeout_ms (and no later than the caller's deadline) for all of them: a
 * reply read in part is kept, so a relayd sending a byte at a time holds us
 * no longer. Returns 0 once none is missing, -ETIMEDOUT, or -errno
 * (disconnected, or broken).
 */
static int replies_read(struct trawl_output *o, int timeout_ms)
{
	uint64_t until = wait_until(o, (uint64_t)timeout_ms);
	int last = 0;

	while (o->pings && o->sock >= 0 && !(o->broken && !o->sealing)) {
		struct pollfd pfd = {.fd = o->sock, .events = POLLIN};
		ssize_t n = recv(o->sock, o->reply + o->reply_len, sizeof(o->reply) - o->reply_len,
				 MSG_DONTWAIT);
		int left;

		if (n > 0) {
			o->reply_len += (size_t)n;
			if (o->reply_len < sizeof(o->reply))
				continue;
			o->reply_len = 0;
			o->pings--;
			last = trawl_output_relay_reply(o, o->reply);
			if (last < 0 && (!o->sealing || last == -EPROTO))
				return last;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			conn_lost(o, n == 0 ? ECONNRESET : errno);
			return -o->down;
		}
		left = ms_left(until);
		if (!left)
			return -ETIMEDOUT;
		poll(&pfd, 1, left);
	}
	if (o->broken && !o->sealing)
		return -o->broken;
	return o->sock < 0 ? -o->down : last;
}

static int ping_send(struct trawl_output *o)
{
	int ret = trawl_output_relay_send(o, TRAWL_RELAY_PING, 0, NULL, 0);

	if (!ret) {
		o->pings++;
		o->ping_at = o->sent_bytes;
		o->ping_ms = now_ms();
	}
	return ret;
}

/*
 * Asks relayd, every TRAWL_OUTPUT_PING_BYTES sent, what it wrote (never
 * waiting for the answer), so that kept packets are let go and "bytes
 * written" follows what landed; past TRAWL_OUTPUT_KEEP_BYTES kept, waits
 * for the answers (a relayd that gives none in time is taken as gone).
 * Live, also once a live period when something was sent: a trickle never
 * reaches the byte mark, and what relayd has not confirmed when it goes
 * is counted lost at the stop (kept_lose()): measured with a 100 ms
 * period, 32-42 packets of 1 s of streaming that relayd had written.
 */
static void ping_maybe(struct trawl_output *o)
{
	int due = o->sent_bytes - o->ping_at >= TRAWL_OUTPUT_PING_BYTES;

	if (!due && o->live_timer_us && o->sent_bytes != o->ping_at)
		due = now_ms() - o->ping_ms >= o->live_timer_us / 1000;
	if (due) {
		if (o->pings)
			replies_read(o, 0);
		if (o->sock >= 0 && !o->broken && o->pings < 16)
			ping_send(o);
	}
	if (o->sock < 0 || o->broken || o->sent_bytes - o->acked_bytes < TRAWL_OUTPUT_KEEP_BYTES)
		return;
	if (!o->pings && ping_send(o))
		return;
	if (replies_read(o, TRAWL_OUTPUT_SEND_TIMEOUT_MS) == -ETIMEDOUT)
		conn_lost(o, ETIMEDOUT);
}

/* ---- taking the connection up again ------------------------------------- */

/*
 * RESUMEs file @h as it was when relayd last confirmed it (or afresh), and
 * says again what is kept of it outside packets. @resend: its kept packets
 * follow (its size comes back to what was sent), else it ends there.
 * 0 or -errno.
 */
static int file_resume(struct trawl_output *o, uint32_t h, int resend)
{
	struct ofile *f = &o->files[h];
	int meta = f->kind == TRAWL_OUTPUT_METADATA;
	uint64_t keep = meta ? 0 : f->acked, keep_le;
	uint32_t k = htole32(f->kind);
	char path[PATH_MAX + 300];
	struct iovec v[3];
	int ret;

	/* the index header was appended outside packets: sent again if not confirmed */
	if (keep < f->copy_len)
		keep = 0;
	if (trawl_path_fmt(path, sizeof(path), "%s/%s", o->dir, f->rel))
		return -ENAMETOOLONG;
	keep_le = htole64(keep);
	v[0] = (struct iovec){&k, 4};
	v[1] = (struct iovec){&keep_le, 8};
	v[2] = (struct iovec){path, strlen(path) + 1};
	ret = trawl_output_relay_send(o, TRAWL_RELAY_RESUME, h, v, 3);
	if (!resend && !meta)
		f->sent = keep ? keep : f->copy_len;
	if (ret || !f->copy_len || (!meta && keep))
		return ret;
	v[0] = (struct iovec){f->copy, f->copy_len};
	return trawl_output_relay_send(o, meta ? TRAWL_RELAY_REPLACE : TRAWL_RELAY_APPEND, h, v, 1);
}

/* Sends kept packet @u again (its two messages). 0 or -errno. */
static int unacked_resend(struct trawl_output *o, struct unacked *u)
{
	struct trawl_relay_hdr hd, hi;
	struct iovec p = {u->pkt, u->len}, ie = {&u->e, sizeof(u->e)}, all[4];
	int n = 0;

	if (msg_add(all, &n, 4, &hd, TRAWL_RELAY_APPEND, u->data_h, &p, 1) ||
	    msg_add(all, &n, 4, &hi, TRAWL_RELAY_APPEND, u->index_h, &ie, 1))
		return -EINVAL;
	return o->sock < 0 ? -EPIPE : relay_writev(o, all, n);
}

/*
 * A new connection: every file taken up again where relayd's confirmed
 * bytes end, the metadata said whole, the kept packets sent again in
 * order, and the files closed meanwhile closed. 0 or -errno.
 */
static int resync(struct trawl_output *o, int resend)
{
	uint32_t h;
	size_t i;
	int ret = 0;

	for (h = 0; h < o->nr_files && !ret; h++)
		if (o->files[h].fd >= 0)
			ret = file_resume(o, h, resend);
	for (i = 0; resend && i < o->q_len && !ret; i++)
		ret = unacked_resend(o, &o->q[o->q_head + i]);
	for (h = 0; h < o->nr_files && !ret; h++)
		if (o->files[h].fd >= 0 && o->files[h].closed)
			ret = trawl_output_relay_send(o, TRAWL_RELAY_CLOSE, h, NULL, 0);
	return ret;
}

/*
 * One round trip after taking the files up: relayd says whether it had
 * what it confirmed before (a relayd started again on an empty folder does
 * not: then streaming ends, said at once) and confirms the packets sent
 * again. 0, or -errno when the attempt failed (broken: o->broken is set).
 */
static int resync_confirm(struct trawl_output *o)
{
	int ret = ping_send(o);

	if (!ret)
		ret = replies_read(o, TRAWL_OUTPUT_SEND_TIMEOUT_MS);
	if (ret == -ETIMEDOUT && o->sock >= 0) {
		close(o->sock);
		o->sock = -1;
	}
	return o->broken ? 0 : ret;
}

/*
 * Called before each write and check: a lost connection is tried again
 * once its back-off has passed (relayd back: taken up again, logged).
 */
void trawl_output_relay_ready(struct trawl_output *o)
{
	char err[400];
	size_t kept = o->q_len;
	uint64_t t;

	if (!o->relay || !o->down || o->broken)
		return;
	t = now_ms();
	if (t < o->retry_at_ms)
		return;
	/* an attempt may take this long (connect, HELLO's reply): not past the deadline */
	if (o->deadline_ms &&
	    t + TRAWL_OUTPUT_RECONNECT_TIMEOUT_MS + TRAWL_OUTPUT_SEND_TIMEOUT_MS > o->deadline_ms)
		return;
	o->pings = 0;
	if (relay_connect(o, TRAWL_OUTPUT_RECONNECT_TIMEOUT_MS, NULL, err, sizeof(err)) ||
	    resync(o, 1) || resync_confirm(o)) {
		if (o->sock >= 0) { /* lost again while taking the files up */
			close(o->sock);
			o->sock = -1;
		}
		o->backoff_ms = TRAWL_MIN(o->backoff_ms * 2, (uint64_t)TRAWL_OUTPUT_RETRY_MAX_MS);
		o->retry_at_ms = now_ms() + o->backoff_ms;
		return;
	}
	o->down = 0;
	if (o->broken)
		return; /* said by broken_set() */
	fprintf(stderr, "trawl-consumerd[%d]: streaming to trawl-relayd at %s resumed after "
		"%llu ms (%zu kept packets sent again)\n", (int)getpid(), o->peer,
		(unsigned long long)(t - o->down_at_ms), kept);
}

/* ---- packets, checks, sync, seal --------------------------------------- */

/*
 * Keeps @len bytes of @buf as @f's copy (METADATA: its text, replaced or
 * appended; else what is appended outside packets). 0 or -ENOMEM.
 */
int trawl_output_relay_copy(struct ofile *f, const void *buf, size_t len, int replace)
{
	size_t at = replace ? 0 : f->copy_len;

	if (len > TRAWL_RELAY_MAX_PAYLOAD || at > TRAWL_RELAY_MAX_PAYLOAD - len)
		return -ENOMEM;
	if (trawl_array_grow((void **)&f->copy, &f->copy_cap, at + len, 1, 4096))
		return -ENOMEM;
	if (len)
		memcpy(f->copy + at, buf, len);
	f->copy_len = at + len;
	return 0;
}

/* The packet's two messages in one system call (one wake-up of relayd), kept until confirmed. */
int64_t trawl_output_relay_packet(struct trawl_output_stream *st, struct iovec *v,
				  const struct trawl_ctf_index_entry *e, uint64_t bytes,
				  int64_t events, uint64_t carry)
{
	struct trawl_output *o = st->o;
	struct unacked *u;
	void *copy;

	if ((o->broken && !o->sealing) || o->sock < 0 || unacked_room(o) ||
	    !(copy = malloc(bytes)))
		return 0; /* lost: counted by the caller */
	/* v: header, content, then the padding's zeros (stream_packet()) */
	memcpy(copy, v[0].iov_base, v[0].iov_len);
	memcpy((char *)copy + v[0].iov_len, v[1].iov_base, v[1].iov_len);
	memset((char *)copy + v[0].iov_len + v[1].iov_len, 0, bytes - v[0].iov_len - v[1].iov_len);
	o->sent_bytes += bytes;
	o->files[st->data].sent += bytes;
	o->files[st->index].sent += sizeof(*e);
	u = &o->q[o->q_head + o->q_len++];
	*u = (struct unacked){
		.end = o->sent_bytes, .events = events, .st = st,
		.data_h = (uint32_t)st->data, .index_h = (uint32_t)st->index,
		.data_end = o->files[st->data].sent, .index_end = o->files[st->index].sent,
		.pkt = copy, .len = bytes, .carry = carry, .e = *e,
	};
	o->files[st->data].pending++;
	o->files[st->index].pending++;
	/* a connection lost while sending: the packet is kept, sent again */
	if (!unacked_resend(o, u))
		ping_maybe(o);
	return (int64_t)bytes;
}

/*
 * relayd never sends after its HELLO reply but to answer PINGs: a readable
 * socket with no PING pending means it closed or reset the connection.
 */
void trawl_output_relay_check(struct trawl_output *o)
{
	char c;
	ssize_t n;

	trawl_output_relay_ready(o);
	if (o->sock < 0 || o->broken)
		return;
	if (o->pings)
		replies_read(o, 0); /* late replies to PINGs first */
	if (o->sock < 0 || o->broken)
		return;
	n = recv(o->sock, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n == 0)
		conn_lost(o, ECONNRESET);
	else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		conn_lost(o, errno);
	else if (n > 0 && !o->pings)
		broken_set(o, EPROTO);
}

int trawl_output_relay_sync(struct trawl_output *o)
{
	uint64_t until = now_ms() + TRAWL_OUTPUT_SYNC_RETRY_MS;
	int ret;

	/*
	 * A lost connection is tried again (backing off) a while: a stop
	 * waits that long per trace for relayd to come back, no longer (the
	 * session daemon waits 10 s for the consumer's reply). That includes
	 * a connection found lost by the PING below or its reply: packets
	 * just written into a connection relayd had already dropped are
	 * accepted by the kernel, and only the peer's reset says it, when it
	 * has come (on a loaded machine, only at the PING). Those packets are
	 * kept, and sent again once taken up; returning at once counted them
	 * lost at the seal while relayd was there to take them
	 * (relayd-rotate-back, about 1 run in 15 at load 30).
	 */
	for (;;) {
		for (;;) {
			uint64_t t;

			trawl_output_relay_ready(o);
			t = now_ms();
			/* (no attempt fits before the deadline: trawl_output_relay_ready()) */
			if (o->broken || !o->down || t + o->backoff_ms >= until ||
			    (o->deadline_ms && t + TRAWL_OUTPUT_RECONNECT_TIMEOUT_MS +
						       TRAWL_OUTPUT_SEND_TIMEOUT_MS > o->deadline_ms))
				break;
			/* one reading of the clock: two could go back, and usleep wrap to 71 minutes */
			if (o->retry_at_ms > t)
				usleep((useconds_t)TRAWL_MIN(o->retry_at_ms - t,
							     (uint64_t)TRAWL_OUTPUT_RETRY_MAX_MS) *
				       1000);
		}
		if (o->broken || o->sock < 0)
			return 0; /* reported by trawl_output_broken() */
		ret = ping_send(o);
		if (!ret)
			ret = replies_read(o, TRAWL_OUTPUT_SYNC_TIMEOUT_MS);
		if (ret == -ETIMEDOUT) {
			fprintf(stderr, "trawl-consumerd[%d]: trawl-relayd at %s is still writing "
				"what we sent %d ms ago\n", (int)getpid(), o->peer,
				TRAWL_OUTPUT_SYNC_TIMEOUT_MS);
			return ret;
		}
		/* lost meanwhile: taken up again (its kept packets sent again) while time is left */
		if (!ret || o->broken || !o->down || now_ms() >= until)
			return 0;
	}
}

/* Sends @cmd (ARCHIVE or REMOVE, @v its payload), then a PING: 0, or what relayd said. */
static int chunk_cmd(struct trawl_output *o, uint16_t cmd, struct iovec *v, int cnt)
{
	int ret;

	trawl_output_relay_ready(o);
	if (o->broken || o->sock < 0)
		return -(o->broken ? o->broken : ENOTCONN);
	ret = trawl_output_relay_send(o, cmd, 0, v, cnt);
	if (ret)
		return ret;
	/* relayd acts in order: the PING's reply comes after the move, and says if it failed */
	if (ping_send(o))
		return -(o->broken ? o->broken : EPIPE);
	ret = replies_read(o, TRAWL_OUTPUT_SYNC_TIMEOUT_MS);
	if (o->broken)
		return -o->broken;
	if (o->down)
		return -o->down;
	return ret < 0 ? ret : 0;
}

int trawl_output_relay_archive(struct trawl_output *o, const char *to)
{
	struct iovec v[2] = {{o->dir, strlen(o->dir) + 1}, {(void *)to, strlen(to) + 1}};

	if (!trawl_relay_path_ok(to) || strncmp(to, "archives/", 9))
		return -EINVAL;
	return chunk_cmd(o, TRAWL_RELAY_ARCHIVE, v, 2);
}

int trawl_output_relay_remove(struct trawl_output *o)
{
	struct iovec v = {o->dir, strlen(o->dir) + 1};

	return chunk_cmd(o, TRAWL_RELAY_REMOVE, &v, 1);
}

/*
 * The stop's seal (output.h): each stream that lost packets since its last
 * one written gets an empty packet saying so. After relayd failed, SEAL
 * first (it frees its held room and writes again) and every file cut back
 * to what landed.
 */
void trawl_output_relay_seal(struct trawl_output *o)
{
	struct trawl_output_stream *st;
	int need = 0, sealed = 0, left = 0;

	if (o->down && !o->broken)
		kept_lose(o);
	for (st = o->streams; st; st = st->next)
		need |= st->lost_packets != 0;
	if (!need || o->sock < 0)
		return;
	if (o->broken) {
		if (!o->relay_failed)
			return;
		o->sealing = 1;
		if (trawl_output_relay_send(o, TRAWL_RELAY_SEAL, 0, NULL, 0) || resync(o, 0)) {
			o->sealing = 0;
			return;
		}
		for (st = o->streams; st; st = st->next)
			st->offset = o->files[st->data].sent;
	}
	trawl_output_streams_seal(o, &sealed, &left);
	if (o->sealing) {
		if (!ping_send(o) && replies_read(o, TRAWL_OUTPUT_SYNC_TIMEOUT_MS) < 0)
			left += sealed, sealed = 0;
		o->sealing = 0;
	}
	if (sealed || left)
		fprintf(stderr, "trawl-consumerd[%d]: trawl-relayd at %s: %d stream%s say in the "
			"trace what they lost%s\n", (int)getpid(), o->peer, sealed,
			sealed == 1 ? "" : "s", left ? ", others could not" : "");
}
