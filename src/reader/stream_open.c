/* SPDX-License-Identifier: MIT */
/*
 * Opening a stream file (mapped whole) or a caller's buffer, finding its
 * stream class from the first packet header, rebinding it to a newer
 * decoder (live metadata), closing it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "reader/decode_int.h"

#define CTF_MAGIC 0xC1FC1FC1u

/* ---- opening --------------------------------------------------------- */

/* Which stream class the file's first packet header names, and its instance id. */
static int identify_stream(struct rd_stream *s, struct rd_err *err)
{
	const struct trace_class *tc = s->dec->tc;
	struct dctx d = { .s = s, .err = err, .pkt = s->base, .end = s->size * 8 };
	uint64_t id = 0;
	uint32_t i;

	s->pos = 0;
	s->pkt_off = 0;
	if (!tc->packet_header) {
		if (tc->nstreams == 0) {
			rd_err_set(err, "%s: offset 0: the metadata declares no stream class for this data",
				   s->path);
			return -EINVAL;
		}
		if (tc->nstreams != 1) {
			rd_err_set(err, "%s: offset 0: no packet header to tell which of %u stream classes this stream belongs to",
				   s->path, tc->nstreams);
			return -EINVAL;
		}
		s->sc = tc->streams[0];
		s->dsc = &s->dec->scs[0];
		return 0;
	}
	/* the fields read back here have slots (resolve.c) */
	if (rd_decode_fc(&d, tc->packet_header, NULL))
		return -EINVAL;
	if (tc->slot_magic >= 0 && s->slots[tc->slot_magic] != CTF_MAGIC) {
		s->pos = 0;
		return rd_derr(&d, "bad packet magic number");
	}
	if (tc->slot_stream_id >= 0)
		id = s->slots[tc->slot_stream_id];
	if (tc->slot_stream_instance_id >= 0) {
		s->has_instance_id = true;
		s->id = s->slots[tc->slot_stream_instance_id];
	}
	s->sc = NULL;
	for (i = 0; i < tc->nstreams; i++) {
		if (tc->streams[i]->id == id) {
			s->sc = tc->streams[i];
			s->dsc = &s->dec->scs[i];
		}
	}
	if (!s->sc) {
		char msg[96];

		trawl_msg_fmt(msg, sizeof(msg), "unknown stream class id %" PRIu64, id);
		s->pos = 0;
		return rd_derr(&d, msg);
	}
	return 0;
}

int rd_stream_open(struct rd_stream *s, struct rd_trace *trace,
		   struct rd_dec *dec, const char *path, uint64_t file_index,
		   struct rd_err *err)
{
	struct stat st;
	int fd, ret;

	memset(s, 0, sizeof(*s));
	s->trace = trace;
	s->dec = dec;
	s->id = file_index;
	/* absolute, as babeltrace2 names streams in its warnings */
	s->path = realpath(path, NULL);
	if (!s->path)
		s->path = strdup(path);
	s->slots = calloc(dec->tc->nslots ? dec->tc->nslots : 1, sizeof(uint64_t));
	if (!s->path || !s->slots)
		return -ENOMEM;
	s->stream_name = s->path;
	/* O_NONBLOCK: the folder listed a regular file, but whoever owns it
	 * can swap in a FIFO since; opening that must not hold the reader
	 * (a regular file's reads ignore the flag). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		rd_err_set(err, "%s: cannot open: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		rd_err_set(err, "%s: cannot stat: %s", path, strerror(-ret));
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		rd_err_set(err, "%s: not a regular file", path);
		return -EINVAL;
	}
	s->size = (uint64_t)st.st_size;
	s->file_dev = (uint64_t)st.st_dev;
	s->file_ino = (uint64_t)st.st_ino;
	s->read_mode = RD_READ_TRY;
	s->fd = -1;
	if (s->size) {
		void *m = mmap(NULL, s->size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m == MAP_FAILED) {
			ret = -errno;
			close(fd);
			rd_err_set(err, "%s: cannot map: %s", path, strerror(-ret));
			return ret;
		}
		madvise(m, s->size, MADV_SEQUENTIAL);
		s->base = m;
	}
	close(fd);
	if (s->size)
		return identify_stream(s, err);
	return 0;
}

int rd_stream_open_buf(struct rd_stream *s, struct rd_trace *trace,
		       struct rd_dec *dec, const char *name, const void *buf,
		       uint64_t size, struct rd_err *err)
{
	memset(s, 0, sizeof(*s));
	s->trace = trace;
	s->dec = dec;
	s->path = strdup(name);
	s->slots = calloc(dec->tc->nslots ? dec->tc->nslots : 1, sizeof(uint64_t));
	if (!s->path || !s->slots)
		return -ENOMEM;
	s->stream_name = s->path;
	s->base = buf;
	s->size = size;
	s->borrowed = true;
	return size ? identify_stream(s, err) : 0;
}

/*
 * A live stream's trace got new metadata (a new trace class and decoder,
 * which only add to the old ones): from its next packet on, @s decodes
 * with @dec, its stream class found again by id. Called between packets.
 */
int rd_stream_rebind(struct rd_stream *s, struct rd_dec *dec, struct rd_err *err)
{
	const struct trace_class *tc = dec->tc;
	uint64_t *slots;
	uint32_t i;

	slots = calloc(tc->nslots ? tc->nslots : 1, sizeof(uint64_t));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < tc->nstreams && tc->streams[i]->id != s->sc->id; i++)
		;
	if (i == tc->nstreams) {
		free(slots);
		rd_err_set(err, "%s: stream class %" PRIu64 " is gone from the new metadata",
			   s->path, s->sc->id);
		return -EINVAL;
	}
	free(s->slots);
	s->slots = slots;
	s->dec = dec;
	s->sc = tc->streams[i];
	s->dsc = &dec->scs[i];
	s->dev = NULL;
	return 0;
}

void rd_stream_close(struct rd_stream *s)
{
	rd_stream_win_fini(s);
	if (s->base && !s->borrowed)
		munmap((void *)s->base, s->size);
	free(s->path);
	free(s->slots);
	free(s->pc_text.buf);
	memset(s, 0, sizeof(*s));
}
