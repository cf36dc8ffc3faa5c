/* SPDX-License-Identifier: MIT */
/*
 * Writer micro-benchmark: N events of the ANCHORS.md payload (int64 a,
 * uint32 b, string s = "hello-anchor") through trawl_ctf_event_*() into a
 * stream file, against the floor of copying the same 29-byte records into a
 * buffer and writing it out. Prints ns/event, MB/s and bytes/event.
 *
 * The anchor is babeltrace2's CTF writer (sink.ctf.fs): `babeltrace2 convert
 * TRACE --output-format=ctf` on the first (at most) 1 M events, minus
 * `babeltrace2 TRACE -o dummy` on the same trace, which decodes the same
 * events and starts the same process: the difference is what writing CTF
 * costs babeltrace2 per event. Skipped when babeltrace2 is not installed.
 *
 *   bench-writer [EVENTS] [DIR]
 */
#include "ctf/ctf.h"
#include "ctf_stream.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Writes @n anchor events as the trace @dir; returns the seconds taken, -1 on error. */
static double write_trace(const char *dir, long n, uint64_t *bytes)
{
	struct trawl_ctf_trace *t = trawl_ctf_trace_create(0);
	struct trawl_ctf_type *p = trawl_ctf_type_struct_create(8);
	struct trawl_ctf_stream *s;
	char path[4200];
	double t0, dt;
	long i;

	mkdir(dir, 0755);
	trawl_ctf_trace_add_monotonic_clock(t);
	trawl_ctf_trace_add_stream_class(t, 0, TRAWL_CTF_HEADER_COMPACT, NULL, "monotonic");
	trawl_ctf_type_struct_add(p, "a", trawl_ctf_type_integer_create(64, 1, 8));
	trawl_ctf_type_struct_add(p, "b", trawl_ctf_type_integer_create(32, 0, 8));
	trawl_ctf_type_struct_add(p, "s", trawl_ctf_type_string_create());
	trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = "anchor:ev", .id = 0, .stream_id = 0, .loglevel = 13 }, p);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (trawl_ctf_trace_write_metadata(t, path, 0)) {
		perror("metadata");
		return -1;
	}
	s = trawl_ctf_stream_create(t, 0, dir, "channel0_0", 0, 0, 1 << 20);
	if (!s) {
		perror("stream");
		return -1;
	}
	t0 = now();
	for (i = 0; i < n; i++) {
		trawl_ctf_event_begin(s, 0, 1000 + (uint64_t)i * 40);
		trawl_ctf_write_int(s, i, 64, 8, TRAWL_CTF_BO_NATIVE);
		trawl_ctf_write_uint(s, (uint32_t)i, 32, 8, TRAWL_CTF_BO_NATIVE);
		trawl_ctf_write_string(s, "hello-anchor");
		if (trawl_ctf_event_end(s)) {
			fprintf(stderr, "event_end failed\n");
			return -1;
		}
	}
	trawl_ctf_stream_flush(s);
	dt = now() - t0;
	*bytes = trawl_ctf_stream_bytes(s);
	trawl_ctf_stream_close(s);
	trawl_ctf_trace_destroy(t);
	return dt;
}

/* Wall time of a shell command, or -1 if it failed. */
static double run(const char *cmd)
{
	double t0 = now();

	if (system(cmd) != 0)
		return -1;
	return now() - t0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	const char *dir = argc > 2 ? argv[2] : "/tmp/trawl-bench-writer";
	long m = n < 1000000 ? n : 1000000;
	char path[4200], cmd[9000];
	double t0, t_trawl, t_floor, t_small, t_dummy, t_ctf;
	uint64_t bytes, small_bytes;
	long i;
	int fd;

	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/trace", dir);
	t_trawl = write_trace(path, n, &bytes);
	if (t_trawl < 0)
		return 1;

	/* The floor: 29-byte records copied into 1 MiB buffers, written out. */
	{
		static char buf[1 << 20];
		size_t off = 0;

		snprintf(path, sizeof(path), "%s/floor", dir);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		t0 = now();
		for (i = 0; i < n; i++) {
			uint32_t h = (uint32_t)(i * 40) << 5;
			int64_t a = i;
			uint32_t b = (uint32_t)i;

			if (off + 29 > sizeof(buf)) {
				if (write(fd, buf, off) < 0)
					return 1;
				off = 0;
			}
			memcpy(buf + off, &h, 4);
			memcpy(buf + off + 4, &a, 8);
			memcpy(buf + off + 12, &b, 4);
			memcpy(buf + off + 16, "hello-anchor", 13);
			off += 29;
		}
		if (write(fd, buf, off) < 0)
			return 1;
		t_floor = now() - t0;
		close(fd);
		unlink(path);
	}
	printf("events            %ld\n", n);
	printf("trawl writer      %.1f ns/event  %.0f MB/s  %.2f bytes/event\n",
	       t_trawl * 1e9 / (double)n, (double)bytes / t_trawl / 1e6, (double)bytes / (double)n);
	printf("floor (memcpy)    %.1f ns/event  %.0f MB/s  29.00 bytes/event\n",
	       t_floor * 1e9 / (double)n, 29.0 * (double)n / t_floor / 1e6);
	printf("ratio writer/floor %.2fx\n", t_trawl / t_floor);

	/* The anchor, on a trace of m events. */
	snprintf(path, sizeof(path), "%s/small", dir);
	t_small = write_trace(path, m, &small_bytes);
	if (t_small < 0)
		return 1;
	if (system("babeltrace2 --version >/dev/null 2>&1") != 0) {
		printf("babeltrace2 not installed: no anchor\n");
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s/small' -o dummy", dir);
	t_dummy = run(cmd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/bt2' && babeltrace2 convert '%s/small' "
		 "--output-format=ctf --output='%s/bt2' >/dev/null && rm -rf '%s/bt2'", dir, dir, dir, dir);
	t_ctf = run(cmd);
	if (t_dummy < 0 || t_ctf < 0) {
		printf("babeltrace2 failed: no anchor\n");
		return 1;
	}
	printf("babeltrace2 sink.ctf.fs  %.1f ns/event (convert %.2f s - decode %.2f s, %ld events)\n",
	       (t_ctf - t_dummy) * 1e9 / (double)m, t_ctf, t_dummy, m);
	printf("trawl writer, same %ld   %.1f ns/event\n", m, t_small * 1e9 / (double)m);
	printf("ratio babeltrace2/trawl  %.1fx\n", (t_ctf - t_dummy) / t_small);
	/* The traces are hundreds of MB: not left behind. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/trace' '%s/small'", dir, dir);
	return system(cmd) ? 1 : 0;
}
