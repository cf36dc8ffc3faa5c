/* SPDX-License-Identifier: MIT */
/*
 * trawl-demo - a small word counter, instrumented with tracepoints of every
 * common kind (enum, strings, hex and plain integers, floats, text
 * sequences, arrays, sequences, tracef) so that `scripts/demo` has something
 * real to show. It writes a text file, reads it back in chunks, counts
 * words, and naps a little between phases so the kernel's view (openat,
 * read, write, sched_switch) shows up beside its own events.
 *
 *   trawl-demo [ROUNDS]     (default 3)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <trawl/tracef.h>

#include "demo-tp.h"

static const char *const words[] = { "trace", "kernel", "packet", "event", "clock",
				     "buffer", "stream", "ring", "consumer", "session" };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap(unsigned int ms)
{
	struct timespec ts = { 0, (long)ms * 1000000L };

	tracepoint(demo, nap, ms);
	nanosleep(&ts, NULL);
}

static int write_file(const char *path, unsigned int seed)
{
	char line[256];
	int fd, i, j;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	tracepoint(demo, file_open, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, fd);
	if (fd < 0)
		return -1;
	for (i = 0; i < 200; i++) {
		size_t n = 0;

		for (j = 0; j < 8; j++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s ",
					      words[rand_r(&seed) % (sizeof(words) / sizeof(words[0]))]);
		line[n - 1] = '\n';
		if (write(fd, line, n) != (ssize_t)n)
			break;
	}
	close(fd);
	return 0;
}

static int count_words(const char *path, uint32_t *counts, uint32_t *by_length)
{
	char buf[4096], word[32];
	size_t wl = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	tracepoint(demo, file_open, path, O_RDONLY | O_CLOEXEC, fd);
	if (fd < 0)
		return -1;
	for (;;) {
		double t0 = now_s(), dt;
		ssize_t i;

		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		dt = now_s() - t0;
		tracepoint(demo, chunk, fd, (int64_t)n, dt > 0 ? (double)n / dt / 1048576.0 : 0.0);
		for (i = 0; i < n; i++) {
			if (buf[i] != ' ' && buf[i] != '\n') {
				if (wl < sizeof(word) - 1)
					word[wl++] = buf[i];
				continue;
			}
			if (!wl)
				continue;
			word[wl] = '\0';
			by_length[wl < 8 ? wl : 7]++;
			for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
				if (!strcmp(word, words[k]))
					counts[k]++;
			wl = 0;
		}
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3, r, i;
	char path[] = "/tmp/trawl-demo-XXXXXX";
	double t0 = now_s();

	/* No wait for tracing to come on: libtrawl-ust's start-up waited for
	 * the session daemon's setup (bounded, and not at all without one). */
	tracepoint(demo, phase, 0, "starting");
	i = mkstemp(path);
	if (i < 0)
		return 1;
	close(i);
	for (r = 0; r < rounds; r++) {
		uint32_t counts[10] = { 0 }, by_length[8] = { 0 };
		uint16_t top[3];
		unsigned int k;

		tracepoint(demo, phase, 1, "writing words");
		write_file(path, (unsigned int)r * 7919u + 1);
		nap(20);
		tracepoint(demo, phase, 2, "reading them back");
		count_words(path, counts, by_length);
		nap(10);
		tracepoint(demo, phase, 3, "counting");
		for (k = 0; k < 10; k++)
			tracepoint(demo, word, words[k], (unsigned int)strlen(words[k]), counts[k]);
		for (k = 0; k < 3; k++)
			top[k] = (uint16_t)(k + 5);
		tracepoint(demo, histogram, by_length, top, 3);
		tracef("round %d of %d done after %.3f s", r + 1, rounds, now_s() - t0);
		nap(30);
	}
	unlink(path);
	tracepoint(demo, phase, 4, "done");
	printf("trawl-demo: %d rounds in %.3f s\n", rounds, now_s() - t0);
	return 0;
}
