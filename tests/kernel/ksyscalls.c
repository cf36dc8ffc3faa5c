/* SPDX-License-Identifier: MIT */
/*
 * A traced program for the kernel tests: makes syscalls with known
 * arguments so that the test can find them, with their values, in the trace.
 *   ksyscalls known      lseek(1000, 4242, SEEK_CUR) -> -EBADF; getppid(); exits 0
 *   ksyscalls flood N    N getpgid(7777777) calls (-ESRCH each)
 *   ksyscalls flood N B  N getpgid(B + i) calls, i = 0..N-1: a test filtering on
 *                        the argument sees its own flood and no other's
 *   ksyscalls thread-flood N B  the same from a second thread, which prints
 *                        "tid=<its tid>" and ends before the program exits
 *   ksyscalls add A B    calls trawl_test_add(A, B) (a uprobe target) and prints the sum
 *   ksyscalls args       the calls whose structures LTTng decodes, with known values
 *                        (ksyscalls-args.c): connect/accept4 on 127.0.0.1, connect to [::1]:9,
 *                        poll/ppoll/epoll_wait/select on pipes, clone(SIGCHLD | CLONE_PARENT_SETTID);
 *                        prints what the test compares ("key=value" lines)
 *   ksyscalls gated N GO DONE   waits for a byte from FIFO GO, makes N getppid() calls,
 *                        then writes a byte to FIFO DONE: a test that filters on this
 *                        pid starts the program before the trace and times the flood
 * Prints "pid=<pid>" first.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

int ksyscalls_args(void); /* ksyscalls-args.c */

static long flood_n, flood_base;

static void *flood_thread(void *arg)
{
	(void)arg;
	printf("tid=%ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	for (long i = 0; i < flood_n; i++)
		syscall(SYS_getpgid, flood_base + i);
	return NULL;
}

__attribute__((noinline, used)) long trawl_test_add(long a, long b);
__attribute__((noinline, used)) long trawl_test_add(long a, long b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}

int main(int argc, char **argv)
{
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	if (argc >= 2 && !strcmp(argv[1], "known")) {
		syscall(SYS_lseek, 1000, 4242, SEEK_CUR);
		syscall(SYS_getppid);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "args"))
		return ksyscalls_args();
	if (argc >= 4 && !strcmp(argv[1], "thread-flood")) {
		pthread_t t;

		flood_n = atol(argv[2]);
		flood_base = atol(argv[3]);
		if (pthread_create(&t, NULL, flood_thread, NULL) || pthread_join(t, NULL))
			return 1;
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "flood")) {
		long n = atol(argv[2]), base = argc >= 4 ? atol(argv[3]) : 7777777;

		for (long i = 0; i < n; i++)
			syscall(SYS_getpgid, argc >= 4 ? base + i : base);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "reads")) {
		/* N reads of 7 bytes from /dev/zero: the test counts them in the trace */
		long n = atol(argv[2]);
		char buf[7];
		int fd = open("/dev/zero", O_RDONLY);

		if (fd < 0)
			return 1;
		printf("fd=%d\n", fd);
		fflush(stdout);
		for (long i = 0; i < n; i++)
			if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				return 1;
		close(fd);
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "gated")) {
		long n = atol(argv[2]);
		char c;
		int fd = open(argv[3], O_RDONLY);

		if (fd < 0 || read(fd, &c, 1) != 1)
			return 1;
		close(fd);
		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);
		fd = open(argv[4], O_WRONLY);
		if (fd < 0 || write(fd, "d", 1) != 1)
			return 1;
		close(fd);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "hold")) {
		/* N getpgid(BASE), then stays until its standard input closes */
		char c;

		for (long i = 0; i < atol(argv[2]); i++)
			syscall(SYS_getpgid, atol(argv[3]));
		printf("done\n");
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "add")) {
		printf("%ld\n", trawl_test_add(atol(argv[2]), atol(argv[3])));
		return 0;
	}
	return 2;
}
