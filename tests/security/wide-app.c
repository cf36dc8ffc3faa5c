/* SPDX-License-Identifier: MIT */
/*
 * wide-app.c - a hostile traced program: its event twide:ev records one
 * 32-bit integer, but it tells the session daemon the event has
 * WIDE_FIELDS fields (f000 .. f511, 8-bit integers: the record is the
 * first four), the most the daemon takes by default (--limit app-fields).
 * A trigger capturing f511 many times on twide:ev had the daemon look
 * each capture up among the fields for every hit (sessiond/ust-capture.c:
 * now resolved once per event and trigger). The program fires 64 events (a notification ring's worth) every 20 ms, or
 * without pause if FLOOD is set in the environment.
 *
 * usage: wide-app STOPFILE   (fires until STOPFILE exists; prints "ready"
 * once its event is enabled, and at the end "fired=N": the events fired
 * from then on, each a hit the daemon delivers or counts as lost)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "tp-wide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WIDE_FIELDS 512

static struct trawl_ust_field_desc wide[WIDE_FIELDS + 1]; /* NULL-named last */
static char names[WIDE_FIELDS][8];

/* Before the provider's constructor registers the event. */
static void __attribute__((constructor(101))) widen(void)
{
	unsigned int i;

	for (i = 0; i < WIDE_FIELDS; i++) {
		snprintf(names[i], sizeof(names[i]), "f%03u", i);
		wide[i].name = names[i];
		wide[i].type = TRAWL_UST_FIELD_INTEGER;
		wide[i].size_bits = 8;
		wide[i].base = 10;
	}
	__trawl_event_twide___ev.fields = wide;
	__trawl_event_twide___ev.nr_fields = WIDE_FIELDS;
}

int main(int argc, char **argv)
{
	struct timespec pause = {0, 20000000};
	int said = 0, flood = getenv("FLOOD") != NULL;
	unsigned long k, fired = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: wide-app STOPFILE\n");
		return 2;
	}
	for (k = 0;; k++) {
		if (!said && tracepoint_enabled(twide, ev)) {
			printf("ready\n");
			fflush(stdout);
			said = 1;
		}
		/* (enabled, it stays so: the trigger is not removed meanwhile) */
		if (said) {
			tracepoint(twide, ev, 0);
			fired++;
		}
		if (!(k & 63)) {
			if (!access(argv[1], F_OK))
				break;
			if (!flood || !said)
				nanosleep(&pause, NULL);
		}
	}
	printf("fired=%lu\n", fired);
	return 0;
}
