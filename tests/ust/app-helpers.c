/* SPDX-License-Identifier: MIT */
/*
 * app-helpers.c - known work for the helper libraries' tests (helpers.py),
 * the same binary under trawl's and LTTng-UST's preloaded helpers. It has
 * no tracepoint of its own: what is recorded comes from the helper.
 *
 *   ust-app-helpers libc      malloc(12345), calloc(7, 111), realloc(to
 *                             22222), memalign(128, 444), posix_memalign(64,
 *                             333), each freed; prints the pointers
 *   ust-app-helpers pthread   locks and unlocks a mutex 5 times (and one
 *                             trylock); prints its address
 *   ust-app-helpers dl LIB    dlopen(LIB), dlclose; prints the handle
 *   ust-app-helpers cyg       calls cyg_leaf() 3 times (instrumented with
 *                             -finstrument-functions); prints its address
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cyg_leaf(int x); /* app-helpers-cyg.c */

static int libc(void)
{
	void *m = malloc(12345), *c = calloc(7, 111), *r, *a = memalign(128, 444), *p = NULL;
	int ret = posix_memalign(&p, 64, 333);

	printf("malloc=%p calloc=%p memalign=%p posix_memalign=%p\n", m, c, a, p);
	r = realloc(m, 22222);
	printf("realloc=%p\n", r);
	free(r);
	free(c);
	free(a);
	free(p);
	return ret || !r || !c || !a;
}

static int mutex(void)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

	printf("mutex=%p\n", (void *)&mu);
	for (int i = 0; i < 5; i++) {
		pthread_mutex_lock(&mu);
		pthread_mutex_unlock(&mu);
	}
	if (pthread_mutex_trylock(&mu) == 0)
		pthread_mutex_unlock(&mu);
	return 0;
}

static int dl(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW);

	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", lib, dlerror());
		return 1;
	}
	printf("handle=%p\n", h);
	return dlclose(h);
}

int main(int argc, char **argv)
{
	int sum = 0;

	if (argc == 2 && !strcmp(argv[1], "libc"))
		return libc();
	if (argc == 2 && !strcmp(argv[1], "pthread"))
		return mutex();
	if (argc == 3 && !strcmp(argv[1], "dl"))
		return dl(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "cyg")) {
		printf("cyg_leaf=%p\n", (void *)cyg_leaf);
		for (int i = 0; i < 3; i++)
			sum += cyg_leaf(i);
		return sum != 3;
	}
	fprintf(stderr, "usage: ust-app-helpers libc | pthread | dl LIB | cyg\n");
	return 2;
}
