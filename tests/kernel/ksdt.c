/* SPDX-License-Identifier: MIT */
/*
 * A traced program with SDT probes (sys/sdt.h), for user-space probes of
 * kind sdt:PATH:PROVIDER:NAME:
 *   ksdt N   N rounds; round i fires trawl_test:tick(i) at one of its two
 *            sites (even rounds at one, odd rounds at the other), then
 *            trawl_test:guarded(i) if that probe's semaphore is raised
 *            (ksdt-sem.c: the kernel raises it while a probe is enabled).
 * Prints "pid=<pid>", then "guarded=<rounds in which guarded fired>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <unistd.h>

int ksdt_guarded(long i);

/* Two sites of one probe (their code differs, so the compiler keeps both). */
static volatile long evens, odds;

__attribute__((noinline)) static void tick_even(long i)
{
	evens++;
	STAP_PROBE1(trawl_test, tick, i);
}

__attribute__((noinline)) static void tick_odd(long i)
{
	odds += 2;
	STAP_PROBE1(trawl_test, tick, i);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, i, guarded = 0;

	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	for (i = 0; i < n; i++) {
		if (i & 1)
			tick_odd(i);
		else
			tick_even(i);
		guarded += ksdt_guarded(i);
	}
	printf("guarded=%ld\n", guarded);
	return 0;
}
