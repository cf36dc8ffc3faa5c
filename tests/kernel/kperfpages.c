/* SPDX-License-Identifier: MIT */
/*
 * A traced program for the perf counter context test (test_perf.py):
 *   kperfpages CPU N
 * pins itself to CPU, then between two marker syscalls with known arguments,
 *   lseek(3001, N, SEEK_SET)   -> -EBADF   (start marker)
 *   lseek(3002, N, SEEK_SET)   -> -EBADF   (end marker)
 * touches N fresh pages of an anonymous mapping (N page faults at least) and
 * sleeps 20 ms (one context switch at least). Prints "pid=<pid>" first.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	long pg = sysconf(_SC_PAGESIZE), n, i;
	cpu_set_t set;
	volatile char *mem;

	if (argc != 3) {
		fprintf(stderr, "usage: kperfpages CPU N\n");
		return 2;
	}
	n = atol(argv[2]);
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("kperfpages: sched_setaffinity");
		return 1;
	}
	mem = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("kperfpages: mmap");
		return 1;
	}
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	syscall(SYS_lseek, 3001, n, SEEK_SET);
	for (i = 0; i < n; i++)
		mem[i * pg] = 1;
	nanosleep(&nap, NULL);
	syscall(SYS_lseek, 3002, n, SEEK_SET);
	return 0;
}
