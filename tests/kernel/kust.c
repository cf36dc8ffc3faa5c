/* SPDX-License-Identifier: MIT */
/*
 * The combined kernel + user-space test's app: waits until kmix:before is
 * enabled, then 5 times: kmix:before(i), lseek(1001, i, SEEK_CUR) (a kernel
 * syscall event), kmix:after(i). A 100 us busy wait separates each step so
 * that the order is beyond the clocks' offset estimates. Prints "pid=<pid>".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kust-tp.h"

static void spin_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

int main(void)
{
	int i;

	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	for (i = 0; i < 500 && !tracepoint_enabled(kmix, before); i++)
		usleep(10000);
	for (i = 0; i < 5; i++) {
		tracepoint(kmix, before, i);
		spin_us(100);
		syscall(SYS_lseek, 1001, i, SEEK_CUR);
		spin_us(100);
		tracepoint(kmix, after, i);
		spin_us(100);
	}
	return 0;
}
