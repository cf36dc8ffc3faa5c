/* SPDX-License-Identifier: MIT */
/*
 * ust-consumer.c - the user-space consumer: moves finished packets from the
 * ring buffers (memfds mapped through ustctl) to CTF stream files, with one
 * index entry per packet, and writes the metadata the daemon sends.
 *
 * One consumer serves every session of its owner (the session daemon
 * starts one per uid); traces and channels carry their session's id so
 * that a stop flushes, and a destroy closes, only that session's streams.
 *
 * One thread, one loop: wait for a command on the daemon's socket or for
 * the earliest timer; on the read timer, take every ready packet of every
 * stream (non-blocking: ustctl never makes the traced app wake us); on the
 * switch timer, close partial packets. FLUSH closes every stream's last
 * packet (final flush: waits for events still being written) and drains it
 * before replying, which is what lets `trawl stop` promise a complete trace.
 *
 * If the daemon goes away (EOF on the socket), the consumer drains
 * everything one last time and exits: what was recorded is on disk.
 * Files are created by this process, which runs as the session's owner.
 */
#include "common/common.h"
#include "consumerd/consumer-proto.h"
#include "consumerd/consumerd.h"
#include "ctf/layout.h"
#include "ctl/proto.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/uio.h>
#include <unistd.h>

#define DEFAULT_READ_TIMER_US 1000u

struct cstream {
	struct trawl_ustctl_stream *rb; /* owned */
	int data_fd;                    /* owned: <channel>_<cpu> */
	int index_fd;                   /* owned: index/<channel>_<cpu>.idx */
	uint64_t offset;                /* bytes written to data_fd */
	uint64_t *bytes;                /* the channel's byte count */
	uint64_t instance_id;
};

struct cchannel {
	struct cchannel *next;
	uint64_t key, trace_key, session;
	struct trawl_cons_add_channel info;
	uint32_t nr;
	struct cstream *streams; /* owned, nr of them */
	uint64_t next_read_ns, next_switch_ns;
	uint64_t bytes_written;
	int paused; /* flushed by a stop: no timers until START */
};

struct ctrace {
	struct ctrace *next;
	uint64_t key, session;
	char path[TRAWL_CONS_PATH_LEN];
	char *metadata; /* owned: the last text received */
	size_t metadata_len;
};

static struct cchannel *channels;
static struct ctrace *traces;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Logs "<what> <name>: <strerror(err)>" to stderr (the daemon's log file). */
static void cons_log(const char *what, const char *name, int err)
{
	fprintf(stderr, "trawl-consumerd[%d]: %s %s: %s\n", (int)getpid(), what, name,
		strerror(err));
}

static struct ctrace *trace_find(uint64_t key)
{
	struct ctrace *t;

	for (t = traces; t; t = t->next)
		if (t->key == key)
			return t;
	return NULL;
}

/* Writes @len bytes of @text as DIR/metadata, atomically (tmp + rename). */
static int metadata_write(const char *dir, const char *text, size_t len)
{
	char path[TRAWL_CONS_PATH_LEN + 32], tmp[TRAWL_CONS_PATH_LEN + 32];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	snprintf(tmp, sizeof(tmp), "%s/.metadata.tmp", dir);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	ret = trawl_write_all(fd, text, len);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

static int stream_files_open(struct cstream *cs, const char *dir, const char *name, uint32_t cpu)
{
	struct trawl_ctf_index_header h = {
		.magic = htobe32(TRAWL_CTF_INDEX_MAGIC),
		.index_major = htobe32(1),
		.index_minor = htobe32(1),
		.packet_index_len = htobe32(sizeof(struct trawl_ctf_index_entry)),
	};
	char path[TRAWL_CONS_PATH_LEN + 300];
	int ret;

	snprintf(path, sizeof(path), "%s/%s_%u", dir, name, cpu);
	cs->data_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (cs->data_fd < 0)
		return -errno;
	snprintf(path, sizeof(path), "%s/index/%s_%u.idx", dir, name, cpu);
	cs->index_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (cs->index_fd < 0) {
		ret = -errno;
		close(cs->data_fd);
		cs->data_fd = -1;
		return ret;
	}
	return trawl_write_all(cs->index_fd, &h, sizeof(h));
}

/* Appends one packet to @fd (and its entry to @index_fd, if >= 0). */
/*
 * Writes packet @p and its index entry. Only the content goes to disk: the
 * sub-buffer's unused tail is dropped and packet_size rewritten to match
 * (CTF allows packet_size == content_size), so a trace costs the bytes its
 * events take, not whole sub-buffers.
 */
static int packet_write(int fd, int index_fd, uint64_t *offset, const struct trawl_ustctl_packet *p,
			uint32_t stream_id, uint64_t instance_id, uint64_t *bytes)
{
	const size_t head_len = sizeof(struct trawl_ctf_packet_start);
	struct trawl_ctf_packet_start head;
	uint64_t len = p->content_size;
	struct trawl_ctf_index_entry e = {
		.offset = htobe64(*offset),
		.packet_size = htobe64(len * 8),
		.content_size = htobe64(p->content_size * 8),
		.timestamp_begin = htobe64(p->timestamp_begin),
		.timestamp_end = htobe64(p->timestamp_end),
		.events_discarded = htobe64(p->events_discarded),
		.stream_id = htobe64(stream_id),
		.stream_instance_id = htobe64(instance_id),
		.packet_seq_num = htobe64(p->packet_seq_num),
	};
	struct iovec iov[2];
	ssize_t n;
	int ret;

	if (len < head_len || len > p->packet_size)
		return -EPROTO; /* ustctl checked it; never trust twice-read memory blindly */
	memcpy(&head, p->data, head_len);
	head.context.packet_size = len * 8;
	iov[0].iov_base = &head;
	iov[0].iov_len = head_len;
	iov[1].iov_base = (char *)p->data + head_len;
	iov[1].iov_len = len - head_len;
	n = writev(fd, iov, 2);
	if (n < 0)
		return -errno;
	if ((uint64_t)n < len) { /* a short write: finish it byte-wise */
		const char *rest = (const char *)p->data + n;

		if ((size_t)n < head_len) {
			ret = trawl_write_all(fd, (const char *)&head + n, head_len - (size_t)n);
			if (ret)
				return ret;
			rest = (const char *)p->data + head_len;
			n = (ssize_t)head_len;
		}
		ret = trawl_write_all(fd, rest, len - (uint64_t)n);
		if (ret)
			return ret;
	}
	*offset += len;
	if (bytes)
		*bytes += len;
	return index_fd >= 0 ? trawl_write_all(index_fd, &e, sizeof(e)) : 0;
}

/* Takes every ready packet of @cs. Returns 0 or a negative errno from a write. */
static int stream_drain(struct cchannel *c, struct cstream *cs)
{
	struct trawl_ustctl_packet p;
	int ret, guard = 1 << 20;

	while (guard--) {
		ret = trawl_ustctl_stream_get_packet(cs->rb, &p);
		if (ret == -EAGAIN)
			return 0;
		if (ret == -EPROTO)
			continue; /* skipped and counted by ustctl */
		if (ret)
			return ret;
		ret = packet_write(cs->data_fd, cs->index_fd, &cs->offset, &p, c->info.attr.stream_id,
				   cs->instance_id, &c->bytes_written);
		trawl_ustctl_stream_put_packet(cs->rb);
		if (ret) {
			cons_log("writing a packet of", c->info.name, -ret);
			return ret;
		}
	}
	return 0;
}

static void channel_drain(struct cchannel *c)
{
	uint32_t i;

	if (c->info.snapshot_mode)
		return;
	for (i = 0; i < c->nr; i++)
		stream_drain(c, &c->streams[i]);
}

/* Closes the last packet of every stream of @c and writes it. */
static void channel_flush_final(struct cchannel *c)
{
	uint32_t i;
	int tries;

	for (i = 0; i < c->nr; i++) {
		struct cstream *cs = &c->streams[i];

		for (tries = 0; tries < 64; tries++) {
			int ret = trawl_ustctl_stream_flush(cs->rb, 1);

			if (ret != -EAGAIN)
				break;
			stream_drain(c, cs); /* full: make room, then close the packet */
		}
		stream_drain(c, cs);
	}
}

static void counters(uint64_t session, uint64_t *discarded, uint64_t *bytes)
{
	struct cchannel *c;
	uint32_t i;

	*discarded = *bytes = 0;
	for (c = channels; c; c = c->next) {
		if (session && c->session != session)
			continue;
		*bytes += c->bytes_written;
		for (i = 0; i < c->nr; i++) {
			struct trawl_ustctl_stream_counters k;

			if (!trawl_ustctl_stream_counters(c->streams[i].rb, &k))
				*discarded += k.events_discarded;
		}
	}
}

/* Closes and forgets every channel and trace of @session (already flushed). */
static void session_remove(uint64_t session)
{
	struct cchannel **cp = &channels;
	struct ctrace **tp = &traces;

	while (*cp) {
		struct cchannel *c = *cp;
		uint32_t i;

		if (c->session != session) {
			cp = &c->next;
			continue;
		}
		*cp = c->next;
		for (i = 0; i < c->nr; i++) {
			trawl_ustctl_stream_unmap(c->streams[i].rb);
			if (c->streams[i].data_fd >= 0)
				close(c->streams[i].data_fd);
			if (c->streams[i].index_fd >= 0)
				close(c->streams[i].index_fd);
		}
		free(c->streams);
		free(c);
	}
	while (*tp) {
		struct ctrace *t = *tp;

		if (t->session != session) {
			tp = &t->next;
			continue;
		}
		*tp = t->next;
		free(t->metadata);
		free(t);
	}
}

static int cmd_add_trace(const struct trawl_cons_hdr *h, const void *payload)
{
	struct trawl_cons_add_trace a;
	struct ctrace *t;
	char idx[TRAWL_CONS_PATH_LEN + 16];
	int ret;

	if (h->size != sizeof(a) || trace_find(h->trace_key))
		return -EINVAL;
	memcpy(&a, payload, sizeof(a));
	if (!trawl_ctl_str_ok(a.path, sizeof(a.path)) || a.path[0] != '/')
		return -EINVAL;
	snprintf(idx, sizeof(idx), "%s/index", a.path);
	ret = trawl_mkdir_p(idx, 0770);
	if (ret) {
		cons_log("cannot create", idx, -ret);
		return ret;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->key = h->trace_key;
	t->session = h->session_key;
	memcpy(t->path, a.path, sizeof(t->path));
	t->next = traces;
	traces = t;
	return 0;
}

static int cmd_metadata(const struct trawl_cons_hdr *h, const char *payload)
{
	struct ctrace *t = trace_find(h->trace_key);
	char *copy;

	if (!t)
		return -ENOENT;
	copy = malloc(h->size + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, payload, h->size);
	copy[h->size] = '\0';
	free(t->metadata);
	t->metadata = copy;
	t->metadata_len = h->size;
	return metadata_write(t->path, copy, h->size);
}

static int cmd_add_channel(const struct trawl_cons_hdr *h, const void *payload, int *fds,
			   uint32_t nr_fds)
{
	struct ctrace *t = trace_find(h->trace_key);
	struct cchannel *c;
	uint32_t i;
	int ret;

	if (!t || h->size != sizeof(c->info) || nr_fds == 0)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	memcpy(&c->info, payload, sizeof(c->info));
	if (!trawl_ctl_str_ok(c->info.name, sizeof(c->info.name)) ||
	    !trawl_ctl_name_valid(c->info.name) || c->info.attr.nr_streams != nr_fds) {
		free(c);
		return -EINVAL;
	}
	c->streams = calloc(nr_fds, sizeof(*c->streams));
	if (!c->streams) {
		free(c);
		return -ENOMEM;
	}
	c->key = h->channel_key;
	c->trace_key = h->trace_key;
	c->session = t->session;
	for (i = 0; i < nr_fds; i++) {
		struct trawl_ustctl_channel_attr attr = c->info.attr; /* unpacked copy */
		struct cstream *cs = &c->streams[i];

		cs->data_fd = cs->index_fd = -1;
		cs->instance_id = c->info.first_instance_id + i;

		ret = trawl_ustctl_stream_map(fds[i], &attr, i, cs->instance_id, &cs->rb);
		if (ret)
			goto fail;
		fds[i] = -1; /* the stream owns it now */
		if (!c->info.snapshot_mode) {
			ret = stream_files_open(cs, t->path, c->info.name, i);
			if (ret)
				goto fail;
		}
		c->nr++;
	}
	c->next = channels;
	channels = c;
	return 0;
fail:
	for (i = 0; i <= c->nr && i < nr_fds; i++) {
		if (c->streams[i].rb)
			trawl_ustctl_stream_unmap(c->streams[i].rb);
		if (c->streams[i].data_fd >= 0)
			close(c->streams[i].data_fd);
		if (c->streams[i].index_fd >= 0)
			close(c->streams[i].index_fd);
	}
	free(c->streams);
	free(c);
	return ret;
}

static void cmd_flush(uint64_t session)
{
	struct cchannel *c;

	for (c = channels; c; c = c->next) {
		if ((!session || c->session == session) && !c->info.snapshot_mode) {
			channel_flush_final(c);
			c->paused = 1;
		}
	}
}

/* Writes every snapshot-mode channel's current packets under @dir. */
static int cmd_snapshot(const struct trawl_cons_hdr *h, const void *payload)
{
	struct trawl_cons_add_trace a;
	struct ctrace *t;
	struct cchannel *c;
	int ret;

	if (h->size != sizeof(a))
		return -EINVAL;
	memcpy(&a, payload, sizeof(a));
	if (!trawl_ctl_str_ok(a.path, sizeof(a.path)) || a.path[0] != '/')
		return -EINVAL;
	for (t = traces; t; t = t->next) {
		char dir[TRAWL_CONS_PATH_LEN * 2 + 16];
		const char *rel = strstr(t->path, "/ust/");

		if (h->session_key && t->session != h->session_key)
			continue;
		snprintf(dir, sizeof(dir), "%s%s", a.path, rel ? rel : "/ust");
		ret = trawl_mkdir_p(dir, 0770);
		if (ret)
			return ret;
		if (t->metadata && (ret = metadata_write(dir, t->metadata, t->metadata_len)))
			return ret;
		for (c = channels; c; c = c->next) {
			uint32_t i;

			if (c->trace_key != t->key)
				continue;
			for (i = 0; i < c->nr; i++) {
				struct cstream *cs = &c->streams[i];
				struct trawl_ustctl_packet p;
				char path[sizeof(dir) + 300];
				uint64_t off = 0;
				int fd, guard = 1 << 20;

				trawl_ustctl_stream_flush(cs->rb, 0);
				snprintf(path, sizeof(path), "%s/%s_%u", dir, c->info.name, i);
				fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
				if (fd < 0)
					return -errno;
				while (guard-- && (ret = trawl_ustctl_stream_get_packet(cs->rb, &p)) != -EAGAIN) {
					if (ret)
						continue;
					ret = packet_write(fd, -1, &off, &p, c->info.attr.stream_id,
							   cs->instance_id, NULL);
					trawl_ustctl_stream_put_packet(cs->rb);
					if (ret)
						break;
				}
				close(fd);
			}
		}
	}
	return 0;
}

static void reply(int sock, uint64_t session, int status)
{
	struct trawl_cons_reply r = {.magic = TRAWL_CONS_MAGIC, .status = status};
	uint64_t discarded, bytes;

	counters(session, &discarded, &bytes);
	r.events_discarded = discarded;
	r.bytes_written = bytes;
	if (trawl_write_all(sock, &r, sizeof(r)))
		cons_log("replying to", "the session daemon", errno);
}

/* Reads and runs one command. Returns 0, 1 to quit, or a negative errno. */
static int handle_command(int sock)
{
	struct trawl_cons_hdr h;
	int fds[TRAWL_USTCTL_MAX_STREAMS];
	uint32_t nr_fds = 0, i;
	char *payload = NULL;
	ssize_t n;
	int ret = 0;

	n = trawl_ustctl_recv_fds(sock, &h, sizeof(h), fds, TRAWL_USTCTL_MAX_STREAMS, &nr_fds);
	if (n == 0)
		return 1; /* the daemon went away */
	if (n < 0)
		return (int)n;
	if ((size_t)n < sizeof(h)) {
		ret = trawl_ctl_read_all(sock, (char *)&h + n, sizeof(h) - (size_t)n);
		if (ret)
			goto out;
	}
	if (h.magic != TRAWL_CONS_MAGIC || h.version != TRAWL_CONS_VERSION ||
	    h.size > TRAWL_CONS_MAX_METADATA || h.nr_fds != nr_fds) {
		ret = -EPROTO;
		goto out;
	}
	if (h.size) {
		payload = malloc(h.size);
		if (!payload) {
			ret = -ENOMEM;
			goto out;
		}
		ret = trawl_ctl_read_all(sock, payload, h.size);
		if (ret)
			goto out;
	}
	switch (h.cmd) {
	case TRAWL_CONS_ADD_TRACE:
		ret = cmd_add_trace(&h, payload);
		break;
	case TRAWL_CONS_METADATA:
		ret = cmd_metadata(&h, payload);
		break;
	case TRAWL_CONS_ADD_CHANNEL:
		ret = cmd_add_channel(&h, payload, fds, nr_fds);
		break;
	case TRAWL_CONS_FLUSH:
		cmd_flush(h.session_key);
		break;
	case TRAWL_CONS_REMOVE_SESSION:
		if (!h.session_key) {
			ret = -EINVAL;
			break;
		}
		cmd_flush(h.session_key);
		session_remove(h.session_key);
		break;
	case TRAWL_CONS_SNAPSHOT:
		ret = cmd_snapshot(&h, payload);
		break;
	case TRAWL_CONS_START: {
		struct cchannel *c;

		for (c = channels; c; c = c->next)
			if (!h.session_key || c->session == h.session_key)
				c->paused = 0;
		break;
	}
	case TRAWL_CONS_QUIT:
		cmd_flush(0);
		reply(sock, 0, 0);
		free(payload);
		return 1;
	default:
		ret = -EPROTO;
		break;
	}
	reply(sock, h.session_key, ret);
out:
	for (i = 0; i < nr_fds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(payload);
	return ret == -EPROTO ? ret : 0;
}

/* Runs due timers; returns the ns until the next one is due. */
static uint64_t run_timers(void)
{
	uint64_t now = now_ns(), next = 100000000u; /* idle: 100 ms */
	struct cchannel *c;
	uint32_t i;

	for (c = channels; c; c = c->next) {
		uint64_t rd = (c->info.read_timer_us ? c->info.read_timer_us
						     : DEFAULT_READ_TIMER_US) * 1000ull;

		if (c->paused)
			continue;

		if (c->info.switch_timer_us && now >= c->next_switch_ns) {
			for (i = 0; i < c->nr; i++)
				trawl_ustctl_stream_flush(c->streams[i].rb, 0);
			c->next_switch_ns = now + c->info.switch_timer_us * 1000ull;
		}
		if (now >= c->next_read_ns) {
			channel_drain(c);
			c->next_read_ns = now + rd;
		}
		if (c->next_read_ns - now < next)
			next = c->next_read_ns - now;
		if (c->info.switch_timer_us && c->next_switch_ns - now < next)
			next = c->next_switch_ns - now;
	}
	return next;
}

int trawl_ust_consumer_main(int argc, char **argv)
{
	int sock = -1, i, ret = 0;

	for (i = 2; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--fd"))
			sock = atoi(argv[i + 1]);
	if (sock < 3) {
		fprintf(stderr, "usage: trawl-consumerd --ust --fd N (started by trawl-sessiond)\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		uint64_t wait_ns = run_timers();
		struct timespec ts = {.tv_sec = (time_t)(wait_ns / 1000000000u),
				      .tv_nsec = (long)(wait_ns % 1000000000u)};
		struct pollfd pfd = {.fd = sock, .events = POLLIN};

		ret = ppoll(&pfd, 1, &ts, NULL);
		if (ret < 0 && errno != EINTR)
			break;
		if (ret > 0) {
			ret = handle_command(sock);
			if (ret)
				break;
		}
	}
	/* The daemon is gone or said quit: whatever was recorded goes to disk. */
	cmd_flush(0);
	return ret < 0 ? 1 : 0;
}
