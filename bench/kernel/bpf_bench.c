/* SPDX-License-Identifier: MIT */
/*
 * bench-bpf OBJ -- PROGRAM ARGS...: loads bpf_getppid.bpf.o, attaches it,
 * runs PROGRAM, drains the BPF ring buffer every 20 ms while it runs, and
 * prints "bpf events=N lost=L bytes=B consumer_cpu_ns=C" on stderr.
 */
#define _GNU_SOURCE
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long events;

static int on_rec(void *ctx, void *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	events++;
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *p;
	struct ring_buffer *rb;
	struct rusage ru;
	unsigned long long lost = 0;
	int status, k = 0, done = 0;
	pid_t pid;

	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: bench-bpf OBJ -- PROGRAM ARGS...\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "bench-bpf: cannot load %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, obj) {
		if (!bpf_program__attach(p)) {
			fprintf(stderr, "bench-bpf: cannot attach %s: %s\n", bpf_program__name(p), strerror(errno));
			return 1;
		}
	}
	rb = ring_buffer__new(bpf_object__find_map_fd_by_name(obj, "rb"), on_rec, NULL, NULL);
	if (!rb)
		return 1;
	pid = fork();
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	while (!done) {
		usleep(20000);
		ring_buffer__consume(rb);
		done = waitpid(pid, &status, WNOHANG) == pid;
	}
	ring_buffer__consume(rb);
	bpf_map_lookup_elem(bpf_object__find_map_fd_by_name(obj, "lost"), &k, &lost);
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "bpf events=%llu lost=%llu bytes=%llu consumer_cpu_ns=%lld\n", events, lost,
		events * 24 /* 8-byte ring-buffer header + 16-byte record */,
		(long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
			(long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL);
	ring_buffer__free(rb);
	bpf_object__close(obj);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
