/* SPDX-License-Identifier: MIT */
/*
 * An SDT probe behind a semaphore (as dtrace -G makes them): the program
 * fires trawl_test:guarded only while its semaphore is non-zero, which the
 * kernel makes it while a uprobe with this reference counter is enabled.
 * Its own file: sys/sdt.h gives every probe of a file a semaphore or none.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

int ksdt_guarded(long i);

__attribute__((used, section(".probes"))) unsigned short trawl_test_guarded_semaphore;

int ksdt_guarded(long i)
{
	if (!*(volatile unsigned short *)&trawl_test_guarded_semaphore)
		return 0;
	STAP_PROBE1(trawl_test, guarded, i);
	return 1;
}
