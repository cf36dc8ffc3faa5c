/* SPDX-License-Identifier: MIT */
/*
 * A program with three providers in three shared objects it is linked with
 * (libtp-ma.so, libtp-mb.so, libtp-mc.so: each one's constructor registers
 * it), and a fourth (libtp-md.so) that it dlopen()s. It emits N events of
 * each linked provider first thing in main(), then dlopen()s the fourth and
 * emits N of its events right away, and exits: with no wait of its own, so
 * every event is in the trace only if each provider's constructor returned
 * once the daemons had set it up (src/ust/agent.c).
 *
 * Then it dlclose()s the fourth and emits N more events of the first
 * (n = 1000 + i): the connection, its channels and the other providers'
 * events go on undisturbed.
 *
 *   app-multi N [PROVIDER.so]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void tma_emit(int n);
void tmb_emit(int n);
void tmc_emit(int n);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50, i;
	void (*tmd_emit)(int);
	void *h;

	for (i = 0; i < n; i++) {
		tma_emit(i);
		tmb_emit(i);
		tmc_emit(i);
	}
	if (argc < 3)
		return 0;
	h = dlopen(argv[2], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "app-multi: %s\n", dlerror());
		return 1;
	}
	*(void **)&tmd_emit = dlsym(h, "tmd_emit");
	if (!tmd_emit)
		return 1;
	for (i = 0; i < n; i++)
		tmd_emit(i);
	if (dlclose(h))
		return 1;
	for (i = 0; i < n; i++)
		tma_emit(1000 + i);
	return 0;
}
