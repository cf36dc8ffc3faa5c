/* SPDX-License-Identifier: MIT */
/*
 * bench-cons-copy: what moving a packet from a ring buffer's memfd to a
 * stream file costs the consumer per byte, by each way the kernel offers.
 *
 *   bench-cons-copy DIR [PACKET_BYTES [MiB]]     (default 1048576, 1024)
 *
 * A sealed memfd of 8 packets (as a traced app's stream: F_SEAL_SHRINK, so
 * no SIGBUS guard or bounce copy is needed) is written MiB to a file in
 * DIR (a tmpfs, as bench/ust writes its traces), cut back to empty every
 * 256 MiB, by:
 *
 *   writev        one writev(2) per packet straight from the mapping (what
 *                 trawl-consumerd does: output.c, trawl_output_local_append())
 *   writev x4     four packets per writev(2) (batching system calls)
 *   bounce        memcpy() into a buffer, then write(2) (what --shm-path
 *                 buffers need: bus.c)
 *   splice        splice(2) memfd -> pipe -> file (the pipe gets page
 *                 references, the file's write still copies)
 *   sendfile      sendfile(2) memfd -> file
 *   copy_file_range  memfd -> file (EXDEV: not across these filesystems)
 *
 * and prints each one's CPU time (user + system, getrusage) per GB written.
 * The cut-backs are not counted. On the 2-core dev VM (tmpfs, 1 MiB
 * packets, medians of 3, load 3-11): writev 0.38 s/GB, writev x4 0.36,
 * bounce 0.36, splice 0.44, sendfile 0.43; copy_file_range fails (EXDEV).
 * perf on trawl-consumerd writing bench/ust's trace agrees: ~99% of its
 * time is the kernel's tmpfs write (the copy 37%, allocating and charging
 * the page cache's pages most of the rest), its own code ~1%.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

#define NPKT 8u
#define CUT_BYTES (256ull << 20)

enum method { M_WRITEV, M_WRITEV4, M_BOUNCE, M_SPLICE, M_SENDFILE, M_COPY_RANGE, M_COUNT };

static const char *const method_name[M_COUNT] = {
	"writev", "writev x4", "bounce", "splice", "sendfile", "copy_file_range",
};

struct src {
	int fd;         /* the memfd */
	char *map;      /* its NPKT packets, mapped */
	size_t pkt;     /* bytes per packet */
	char *bounce;   /* M_BOUNCE's buffer, pkt bytes */
	int pipe[2];    /* M_SPLICE's */
};

static double cpu_s(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
	       (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

/* Moves all @len bytes at @off of @s's memfd to @out by splice(2). */
static ssize_t splice_out(struct src *s, int out, off_t off, size_t len)
{
	size_t done = 0;

	while (done < len) {
		loff_t in_off = off + (loff_t)done;
		ssize_t n = splice(s->fd, &in_off, s->pipe[1], NULL, len - done, 0), k;

		if (n <= 0)
			return -1;
		for (k = n; k > 0;) {
			ssize_t w = splice(s->pipe[0], NULL, out, NULL, (size_t)k, 0);

			if (w <= 0)
				return -1;
			k -= w;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* Writes packets @i.. to @out by @m; returns the bytes written, -1 (errno). */
static ssize_t move(struct src *s, enum method m, int out, uint64_t i)
{
	off_t off = (off_t)((i % NPKT) * s->pkt);
	struct iovec v[4];
	loff_t lo = off;
	int k;

	switch (m) {
	case M_WRITEV:
		v[0] = (struct iovec){s->map + off, s->pkt};
		return writev(out, v, 1);
	case M_WRITEV4:
		for (k = 0; k < 4; k++)
			v[k] = (struct iovec){s->map + ((i + (uint64_t)k) % NPKT) * s->pkt, s->pkt};
		return writev(out, v, 4);
	case M_BOUNCE:
		memcpy(s->bounce, s->map + off, s->pkt);
		return write(out, s->bounce, s->pkt);
	case M_SPLICE:
		return splice_out(s, out, off, s->pkt);
	case M_SENDFILE:
		return sendfile(out, s->fd, &off, s->pkt);
	case M_COPY_RANGE:
		return copy_file_range(s->fd, &lo, out, NULL, s->pkt, 0);
	default:
		errno = EINVAL;
		return -1;
	}
}

/* CPU seconds per GB that @m took to write @total bytes to @path; < 0: failed. */
static double run(struct src *s, enum method m, const char *path, uint64_t total)
{
	uint64_t done = 0, since_cut = 0, i = 0;
	double used = 0;
	int out = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);

	if (out < 0)
		return -1;
	while (done < total) {
		double c0 = cpu_s();
		ssize_t w = move(s, m, out, i);

		used += cpu_s() - c0;
		if (w <= 0) {
			close(out);
			return -1;
		}
		done += (uint64_t)w;
		since_cut += (uint64_t)w;
		i += (uint64_t)w / s->pkt;
		if (since_cut >= CUT_BYTES) {
			if (ftruncate(out, 0) || lseek(out, 0, SEEK_SET) < 0)
				break;
			since_cut = 0;
		}
	}
	close(out);
	unlink(path);
	return used / ((double)done / 1e9);
}

int main(int argc, char **argv)
{
	struct src s = {.pipe = {-1, -1}};
	uint64_t total;
	char path[4096];
	int m;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-cons-copy DIR [PACKET_BYTES [MiB]]\n");
		return 2;
	}
	s.pkt = argc > 2 ? strtoul(argv[2], NULL, 0) : 1u << 20;
	total = (argc > 3 ? strtoull(argv[3], NULL, 0) : 1024) << 20;
	if (s.pkt < 4096 || s.pkt % 4096 || s.pkt > (64u << 20) || !total) {
		fprintf(stderr, "bench-cons-copy: PACKET_BYTES: a multiple of 4096 up to 64 MiB\n");
		return 2;
	}
	if (snprintf(path, sizeof(path), "%s/bench-cons-copy.out", argv[1]) >= (int)sizeof(path)) {
		fprintf(stderr, "bench-cons-copy: %s: name too long\n", argv[1]);
		return 2;
	}
	m = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	if (m < 0) {
		fprintf(stderr, "bench-cons-copy: %s: %s\n", path, strerror(errno));
		return 1;
	}
	close(m);
	s.fd = memfd_create("bench-cons-copy", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (s.fd < 0 || ftruncate(s.fd, (off_t)(s.pkt * NPKT)) ||
	    fcntl(s.fd, F_ADD_SEALS, F_SEAL_SHRINK) || pipe(s.pipe) ||
	    !(s.bounce = malloc(s.pkt))) {
		perror("bench-cons-copy: set-up");
		return 1;
	}
	/* the pipe as big as a packet, so that each splice moves one */
	fcntl(s.pipe[1], F_SETPIPE_SZ, (int)s.pkt);
	s.map = mmap(NULL, s.pkt * NPKT, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0);
	if (s.map == MAP_FAILED) {
		perror("bench-cons-copy: mmap");
		return 1;
	}
	memset(s.map, 0x5a, s.pkt * NPKT);
	printf("%zu-byte packets, %llu MiB each, to %s\n", s.pkt, (unsigned long long)(total >> 20),
	       argv[1]);
	for (m = 0; m < M_COUNT; m++) {
		double r = run(&s, (enum method)m, path, total);

		if (r < 0)
			printf("%-16s failed: %s\n", method_name[m], strerror(errno));
		else
			printf("%-16s %6.3f s CPU per GB\n", method_name[m], r);
	}
	unlink(path);
	return 0;
}
