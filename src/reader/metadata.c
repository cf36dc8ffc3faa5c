/* SPDX-License-Identifier: MIT */
/*
 * Reading a metadata file: plain TSDL text, or "packetized" metadata (a
 * sequence of packets, each a 37-byte header followed by text), in either
 * byte order. The result is one NUL-terminated text buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/internal.h"

#define TSDL_MAGIC 0x75D11D57u
#define MD_HEADER_SIZE 37
#define MD_MAX_SIZE (1u << 30)	/* refuse metadata above 1 GiB */

static uint32_t rd32(const unsigned char *p, int be)
{
	if (be)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		       (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | p[0];
}

static int read_whole(const char *path, unsigned char **buf, size_t *len,
		      struct rd_err *err)
{
	/* O_NONBLOCK: a FIFO never holds us (fstat below refuses it). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	size_t off = 0;
	unsigned char *b;

	if (fd < 0) {
		int e = errno;

		rd_err_set(err, "%s: cannot open: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > MD_MAX_SIZE) {
		rd_err_set(err, "%s: not a regular file of at most 1 GiB", path);
		close(fd);
		return -EINVAL;
	}
	b = malloc((size_t)st.st_size + 1);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, b + off, (size_t)st.st_size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	b[off] = '\0';
	*buf = b;
	*len = off;
	return 0;
}

static int depacketize(const char *path, const unsigned char *in, size_t len,
		       int be, char **text, size_t *tlen, struct rd_err *err)
{
	char *out = malloc(len + 1);
	size_t off = 0, n = 0;

	if (!out)
		return -ENOMEM;
	while (off < len) {
		uint32_t content, packet;

		if (len - off < MD_HEADER_SIZE) {
			rd_err_set(err, "%s: offset %zu: truncated metadata packet header",
				   path, off);
			goto error;
		}
		if (rd32(in + off, be) != TSDL_MAGIC) {
			rd_err_set(err, "%s: offset %zu: bad metadata packet magic",
				   path, off);
			goto error;
		}
		if (in[off + 35] != 1 || in[off + 36] != 8) {
			rd_err_set(err, "%s: offset %zu: unsupported metadata packet version %u.%u (expected 1.8)",
				   path, off, in[off + 35], in[off + 36]);
			goto error;
		}
		if (in[off + 32] || in[off + 33] || in[off + 34]) {
			rd_err_set(err, "%s: offset %zu: compressed, encrypted or checksummed metadata is not supported",
				   path, off);
			goto error;
		}
		content = rd32(in + off + 24, be);
		packet = rd32(in + off + 28, be);
		if (content % 8 || packet % 8 || content > packet ||
		    content < MD_HEADER_SIZE * 8 || packet / 8 > len - off) {
			rd_err_set(err, "%s: offset %zu: invalid metadata packet sizes (content %u bits, packet %u bits)",
				   path, off, content, packet);
			goto error;
		}
		memcpy(out + n, in + off + MD_HEADER_SIZE, content / 8 - MD_HEADER_SIZE);
		n += content / 8 - MD_HEADER_SIZE;
		off += packet / 8;
	}
	out[n] = '\0';
	*text = out;
	*tlen = n;
	return 0;
error:
	free(out);
	return -EINVAL;
}

int metadata_from_buf(const char *path, const unsigned char *buf, size_t blen, char **text,
		      size_t *len, struct rd_err *err)
{
	char *copy;

	if (blen >= 4 && (rd32(buf, 0) == TSDL_MAGIC || rd32(buf, 1) == TSDL_MAGIC))
		return depacketize(path, buf, blen, rd32(buf, 1) == TSDL_MAGIC, text, len, err);
	copy = malloc(blen + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, blen);
	copy[blen] = '\0';
	*text = copy;
	*len = blen;
	return 0;
}

int metadata_read(const char *path, char **text, size_t *len,
		  struct rd_err *err)
{
	unsigned char *buf = NULL;
	size_t blen = 0;
	int ret;

	ret = read_whole(path, &buf, &blen, err);
	if (ret)
		return ret;
	if (blen >= 4 && (rd32(buf, 0) == TSDL_MAGIC || rd32(buf, 1) == TSDL_MAGIC)) {
		ret = depacketize(path, buf, blen, rd32(buf, 1) == TSDL_MAGIC,
				  text, len, err);
		free(buf);
		return ret;
	}
	*text = (char *)buf;
	*len = blen;
	return 0;
}
