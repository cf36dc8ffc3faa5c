/* SPDX-License-Identifier: MIT */
/*
 * The trigger test app (triggers.py, bench/triggers): its start-up waits
 * for the daemon's setup, triggers' event notifiers included, so its first
 * event can fire them.
 *
 *   app-trig error N       N trig:info, one trig:error(42, "disk on fire"),
 *                          N / 10 trig:info, then exits
 *   app-trig warn K        K trig:warn(n = 0..K-1), then exits
 *   app-trig mark WHAT [FILE]  trig:mark(WHAT); with FILE, waits for it to
 *                          exist (at most 60 s), then trig:mark("after")
 *   app-trig pace K MS     K trig:error, MS ms apart (the latency bench)
 *   app-trig flood FILE    trig:info without pause until FILE exists (at most
 *                          10 minutes): a program firing its trigger in a
 *                          loop (security-triggers-fair)
 *   app-trig arr K         trig:arr(a = {-1, K, 7}, s = {K + 1, K + 2}), its
 *                          pid on stdout first
 *   app-trig typed K       trig:typed(big = UINT64_MAX - K, neg = -K, hx = -2,
 *                          d = 0.1, f = 1.5, msg = "tab\there\nnl\\", a = {K, -1,
 *                          INT32_MIN}, txt = "ab\x01", col = 7, h = {-3, 255} (hex))
 *   app-trig appctx K      registers the application context provider
 *                          "$app.c" (answers below, provider()), then
 *                          trig:error(K, "appctx")
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tp-trig.h"
#ifndef TRAWL_APP_TRIG_LTTNG /* (built against LTTng-UST: no appctx) */
#include "ust/app-context.h"
#include "ustabi/ustabi.h"

/* "$app.c"'s answers, by NAME: s8 -5, s32 7, u64 UINT64_MAX, f 1.5, d 0.1,
 * str "tab\there", long 2000 'y' (cut at 1024 when written), bad a type
 * past the known ones (written as none), anything else none. */
static void provider(const char *name, struct trawl_ust_app_value *v)
{
	static char longs[2001];
	const char *key = strchr(name, ':') + 1;

	if (!strcmp(key, "s8")) {
		v->type = TRAWL_USTCTL_APP_S8;
		v->u.s = -5;
	} else if (!strcmp(key, "s32")) {
		v->type = TRAWL_USTCTL_APP_S32;
		v->u.s = 7;
	} else if (!strcmp(key, "u64")) {
		v->type = TRAWL_USTCTL_APP_U64;
		v->u.u = UINT64_MAX;
	} else if (!strcmp(key, "f")) {
		v->type = TRAWL_USTCTL_APP_FLOAT;
		v->u.f = 1.5f;
	} else if (!strcmp(key, "d")) {
		v->type = TRAWL_USTCTL_APP_DOUBLE;
		v->u.d = 0.1;
	} else if (!strcmp(key, "str")) {
		v->type = TRAWL_USTCTL_APP_STRING;
		v->u.str = "tab\there";
		v->len = 9;
	} else if (!strcmp(key, "long")) {
		memset(longs, 'y', 2000);
		v->type = TRAWL_USTCTL_APP_STRING;
		v->u.str = longs;
		v->len = sizeof(longs);
	} else if (!strcmp(key, "bad")) {
		v->type = 99;
		v->u.s = 1;
	}
}
#endif

int main(int argc, char **argv)
{
	int i, n = argc > 2 ? atoi(argv[2]) : 0;

	if (argc < 3) {
		fprintf(stderr, "usage: app-trig error N | warn K | mark WHAT [FILE] | pace K MS | arr K | "
				"typed K | flood FILE | appctx K\n");
		return 2;
	}
	if (!strcmp(argv[1], "error")) {
		for (i = 0; i < n; i++)
			tracepoint(trig, info, i);
		tracepoint(trig, error, 42, "disk on fire");
		for (i = 0; i < n / 10; i++)
			tracepoint(trig, info, n + i);
	} else if (!strcmp(argv[1], "warn")) {
		for (i = 0; i < n; i++)
			tracepoint(trig, warn, i);
	} else if (!strcmp(argv[1], "mark")) {
		tracepoint(trig, mark, argv[2]);
		if (argc > 3) {
			for (i = 0; i < 6000 && access(argv[3], F_OK); i++)
				usleep(10000);
			tracepoint(trig, mark, "after");
		}
	} else if (!strcmp(argv[1], "pace") && argc > 3) {
		int ms = atoi(argv[3]);

		for (i = 0; i < n; i++) {
			tracepoint(trig, error, i, "paced");
			usleep((useconds_t)ms * 1000);
		}
	} else if (!strcmp(argv[1], "flood")) {
		time_t end = time(NULL) + 600;

		for (i = 0; time(NULL) < end; i++) {
			tracepoint(trig, info, i);
			if (!(i % 4096) && !access(argv[2], F_OK))
				break;
		}
	} else if (!strcmp(argv[1], "typed")) {
		int32_t a[3] = { n, -1, INT32_MIN };
		int16_t h[2] = { -3, 255 };

		tracepoint(trig, typed, UINT64_MAX - (uint64_t)n, (int8_t)-n, -2, 0.1, 1.5f,
			   "tab\there\nnl\\", a, "ab\x01", 7, h);
#ifndef TRAWL_APP_TRIG_LTTNG
	} else if (!strcmp(argv[1], "appctx")) {
		if (trawl_ust_app_provider_register("$app.c", provider))
			return 1;
		tracepoint(trig, error, n, "appctx");
#endif
	} else if (!strcmp(argv[1], "arr")) {
		int32_t a[3] = { -1, n, 7 };
		uint16_t s[2] = { (uint16_t)(n + 1), (uint16_t)(n + 2) };

		printf("%d\n", (int)getpid());
		fflush(stdout);
		tracepoint(trig, arr, a, s, 2);
	} else {
		return 2;
	}
	return 0;
}
