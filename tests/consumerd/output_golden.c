/* SPDX-License-Identifier: MIT */
/*
 * output-golden: the consumers' output writes, byte for byte, what the CTF
 * writer of the golden tests (tests/ctf and its sample-trace) writes.
 *
 *   output-golden SRC DST STREAM...
 *
 * Each packet of SRC/STREAM (found through SRC/index/STREAM.idx) is put in
 * a sub-buffer as a ring buffer hands it over (4 KiB more than its content,
 * the tail filled with junk, packet_size saying the whole sub-buffer and a
 * stale stream_instance_id) and given to trawl_output_stream_packet() of a
 * local output in DST, as the consumers do. DST's stream and index files
 * must then equal SRC's, and DST gets SRC's metadata, so the caller can read
 * it with babeltrace2. Prints one line and exits 1 on a difference.
 *
 *   output-golden --cut N SRC DST STREAM
 *
 * The metadata arriving after a full disk (issue 10): DST first gets SRC's
 * metadata without its event classes, then STREAM's packets, the stream
 * file limited (RLIMIT_FSIZE) to N whole packets so that writing fails
 * there, and only then the whole metadata, as the daemon's METADATA can
 * reach a consumer after the first packets holding those events. The
 * output must have failed, and DST's metadata must be SRC's whole: else
 * babeltrace2 could read none of the N packets. The packets lost are
 * counted as the user-space consumer counts them (consumerd/count.h): the
 * first metadata cannot (it names no event), so they wait for the whole
 * one; the output's loss line, printed as "lost: LINE", must then give
 * their events exactly (the caller compares it with babeltrace2's reading
 * of SRC and DST).
 */
#include "consumerd/count.h"
#include "consumerd/output.h"
#include "ctf/layout.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLACK 4096 /* sub-buffer bytes past the content */

static int fail(const char *what, const char *name)
{
	fprintf(stderr, "output-golden: %s: %s\n", name, what);
	return 1;
}

/* The whole file @dir/@rel into a malloc'd buffer; @len its size. NULL on error. */
static uint8_t *slurp(const char *dir, const char *rel, size_t *len)
{
	char path[PATH_MAX];
	struct stat sb;
	uint8_t *buf;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path))
		return NULL;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &sb)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (buf && read(fd, buf, (size_t)sb.st_size) != sb.st_size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	*len = (size_t)sb.st_size;
	return buf;
}

/* What --cut counts a lost packet's events with (count.h), or NULL. */
struct lost_count {
	struct trawl_cons_uncounted u;
	const char *metadata;
	size_t first_len, whole_len; /* the text without its event classes, and whole */
};
static struct lost_count *lost_count;

/* One packet of @data at index entry @e, as a sub-buffer, through @st. */
static int replay_packet(struct trawl_output_stream *st, const uint8_t *data, size_t data_len,
			 const struct trawl_ctf_index_entry *e)
{
	uint64_t off = be64toh(e->offset), size = be64toh(e->packet_size) / 8;
	struct trawl_ctf_packet_start *head;
	uint8_t *sub;
	int64_t n;

	if (off > data_len || size > data_len - off || size < sizeof(*head))
		return -EINVAL;
	sub = malloc(size + SLACK);
	if (!sub)
		return -ENOMEM;
	memcpy(sub, data + off, size);
	memset(sub + size, 0xa5, SLACK);
	head = (struct trawl_ctf_packet_start *)sub;
	head->context.packet_size = (size + SLACK) * 8;
	head->header.stream_instance_id = ~head->header.stream_instance_id;
	n = trawl_output_stream_packet(st, sub, size + SLACK, -1);
	if (n == 0 && lost_count)
		trawl_cons_lost_count(&lost_count->u, lost_count->metadata, lost_count->first_len,
				      st, sub, size + SLACK);
	free(sub);
	return n == (int64_t)size ? 0 : n < 0 ? (int)n : -EIO;
}

static int lost_count_arrives(struct trawl_output *o);

static int replay(struct trawl_output *o, const char *src, const char *name)
{
	const size_t hl = sizeof(struct trawl_ctf_index_header);
	const size_t el = sizeof(struct trawl_ctf_index_entry);
	struct trawl_ctf_index_entry e;
	struct trawl_output_stream *st = NULL;
	size_t data_len, idx_len, i;
	uint8_t *data, *idx;
	char rel[PATH_MAX];
	int ret = -EINVAL;

	snprintf(rel, sizeof(rel), "index/%s.idx", name);
	data = slurp(src, name, &data_len);
	idx = slurp(src, rel, &idx_len);
	if (!data || !idx || idx_len < hl + el)
		goto out;
	/* the stream's instance id: what every entry of its index says */
	memcpy(&e, idx + hl, el);
	st = trawl_output_stream_open(o, name, be64toh(e.stream_instance_id));
	if (!st)
		goto out;
	for (i = hl; i + el <= idx_len; i += el) {
		memcpy(&e, idx + i, el);
		ret = replay_packet(st, data, data_len, &e);
		if (ret && (!lost_count || trawl_output_errno(o) != EFBIG))
			goto out;
	}
	/* --cut: the whole metadata comes now, while the stream is open */
	if (lost_count)
		ret = lost_count_arrives(o) ? -EIO : 0;
out:
	trawl_output_stream_close(st);
	free(data);
	free(idx);
	return ret;
}

static int same(const char *a, const char *b, const char *rel)
{
	size_t la = 0, lb = 0;
	uint8_t *da = slurp(a, rel, &la), *db = slurp(b, rel, &lb);
	int ok = da && db && la == lb && !memcmp(da, db, la);

	free(da);
	free(db);
	return ok;
}

/* --cut's metadata file */
static int cut_meta_h = -1;

/* --cut: the whole metadata arrives after the failure (written, and counting
 * the lost packets), while their stream is open. 0, or 1 (said). */
static int lost_count_arrives(struct trawl_output *o)
{
	const char *m = lost_count->metadata;
	size_t len = lost_count->whole_len;
	char why[512] = "";

	if (trawl_output_file_replace(o, cut_meta_h, m, len))
		return fail("cannot write the whole metadata", "metadata");
	if (!lost_count->u.packets)
		return fail("no lost packet waits for the whole metadata", "cut");
	trawl_cons_uncounted_retry(&lost_count->u, m, len);
	trawl_cons_uncounted_settle(&lost_count->u, m, len, "cut");
	if (!trawl_output_broken(o, why, sizeof(why)))
		return fail("the output does not say it lost packets", "cut");
	printf("lost: %s\n", why);
	return 0;
}

/* The --cut mode (above). */
static int cut(int n, const char *src, const char *dst, const char *name)
{
	struct lost_count lc = {.metadata = NULL};
	const size_t hl = sizeof(struct trawl_ctf_index_header);
	const size_t el = sizeof(struct trawl_ctf_index_entry);
	struct trawl_ctf_index_entry e;
	struct trawl_output *o;
	struct rlimit rl;
	char err[512] = "", rel[PATH_MAX];
	size_t mlen = 0, idx_len = 0;
	uint8_t *meta = slurp(src, "metadata", &mlen), *idx;
	char *ev;
	int h, bad = 0;

	snprintf(rel, sizeof(rel), "index/%s.idx", name);
	idx = slurp(src, rel, &idx_len);
	if (!meta || !idx || idx_len < hl + (size_t)(n + 1) * el)
		return fail("too few packets (or no metadata)", src);
	meta[mlen] = '\0';
	ev = strstr((char *)meta, "\nevent {");
	if (!ev)
		return fail("no event class in the metadata", src);
	/* the file holds N packets whole: the next one's end is past the limit */
	memcpy(&e, idx + hl + (size_t)n * el, el);
	if (trawl_output_create(dst, (uid_t)-1, (gid_t)-1, &o, err, sizeof(err)))
		return fail(err, dst);
	h = trawl_output_file_open(o, "metadata", TRAWL_OUTPUT_METADATA);
	if (h < 0 || trawl_output_file_replace(o, h, meta, (size_t)(ev + 1 - (char *)meta)))
		bad |= fail("cannot write the first metadata", dst);
	/* lost packets are counted with it first (they cannot be), then with the whole */
	lc.metadata = (const char *)meta;
	lc.first_len = (size_t)(ev + 1 - (char *)meta);
	lc.whole_len = mlen;
	lost_count = &lc;
	cut_meta_h = h;
	signal(SIGXFSZ, SIG_IGN);
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0) {
		rl.rlim_cur = be64toh(e.offset) + 1;
		if (rl.rlim_cur < mlen + 1)
			bad |= fail("packets smaller than the metadata: pick a larger N", src);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			bad |= fail("setrlimit", dst);
	}
	/* (a packet past the limit may say so: the output's errno is checked);
	 * the whole text comes after the failure (lost_count_arrives()) */
	if (!bad && replay(o, src, name))
		bad |= fail("could not be replayed through the output", name);
	if (!bad && trawl_output_errno(o) != EFBIG)
		bad |= fail("writing did not fail at the limit", name);
	lost_count = NULL;
	trawl_output_destroy(o);
	if (!bad && !same(src, dst, "metadata"))
		bad |= fail("the metadata after the failure was not written: the trace does not "
			    "decode", dst);
	free(meta);
	free(idx);
	return bad;
}

int main(int argc, char **argv)
{
	struct trawl_output *o;
	char err[512] = "", rel[PATH_MAX];
	size_t mlen;
	uint8_t *meta;
	int i, bad = 0;

	if (argc == 6 && !strcmp(argv[1], "--cut"))
		return cut(atoi(argv[2]), argv[3], argv[4], argv[5]);
	if (argc < 4) {
		fprintf(stderr, "usage: output-golden SRC DST STREAM...\n");
		return 2;
	}
	if (trawl_output_create(argv[2], (uid_t)-1, (gid_t)-1, &o, err, sizeof(err)))
		return fail(err, argv[2]);
	for (i = 3; i < argc; i++)
		if (replay(o, argv[1], argv[i]))
			bad |= fail("could not be replayed through the output", argv[i]);
	meta = slurp(argv[1], "metadata", &mlen);
	if (meta) {
		int h = trawl_output_file_open(o, "metadata", TRAWL_OUTPUT_METADATA);

		if (h < 0 || trawl_output_file_replace(o, h, meta, mlen))
			bad |= fail("cannot write the metadata", argv[2]);
	}
	free(meta);
	trawl_output_destroy(o);
	for (i = 3; i < argc && !bad; i++) {
		snprintf(rel, sizeof(rel), "index/%s.idx", argv[i]);
		if (!same(argv[1], argv[2], argv[i]))
			bad |= fail("stream file differs from the CTF writer's", argv[i]);
		if (!same(argv[1], argv[2], rel))
			bad |= fail("index differs from the CTF writer's", rel);
	}
	return bad;
}
