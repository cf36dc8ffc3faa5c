/* SPDX-License-Identifier: MIT */
/*
 * The program compat.py runs against trawl and against LTTng-UST 2.13,
 * built from this one source with each one's headers: every event of
 * tp-compat.h and tp-classic.h with known values, through
 * lttng_ust_tracepoint(), lttng_ust_do_tracepoint() behind
 * lttng_ust_tracepoint_enabled(), lttng_ust_tracef/vtracef and
 * lttng_ust_tracelog/vtracelog (app-compat-log.c). Its probes are in a static library, linked
 * only through LTTNG_UST_TRACEPOINT_DEFINE's reference to them. It includes
 * no C library header of its own: <lttng/tracepoint.h> brings them.
 *
 *   app-compat [repeat]
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tp-compat.h"
#include "tp-borrow.h"
#include "tp-classic.h"

/* app-compat-log.c: tracef and tracelog (LTTng-UST's <lttng/tracef.h>
 * cannot share a file with LTTNG_UST_TRACEPOINT_DEFINE). */
void compat_log(int i);

/* Host values 1, 2, 0x01020304 in network byte order (big-endian). */
static uint32_t be32(uint32_t v)
{
	const unsigned char b[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8),
				     (unsigned char)v };
	uint32_t r;

	memcpy(&r, b, 4);
	return r;
}

int main(int argc, char **argv)
{
	const uint32_t a[3] = { 1, 2, 0xdeadbeef };
	const uint32_t be[3] = { be32(1), be32(2), be32(0x01020304) };
	const char text[8] = { 'h', 'e', 'l', 'l', 'o', '\0', 'x', 'y' };
	int i, repeat = argc > 1 ? atoi(argv[1]) : 1;
	bool on;

	tcompat_note("start");
	for (i = 0; i < repeat; i++) {
		lttng_ust_tracepoint(tcompat, ints, -7, be32(0xabcd) >> 16, be32(0x01020304));
		lttng_ust_tracepoint(tcompat, ints, 12, 0, be32(7));
		lttng_ust_tracepoint(tcompat, arrays, a, be, text);
		lttng_ust_tracepoint(tcompat, seqs, a, be, text, 3);
		lttng_ust_tracepoint(tcompat, seqs, a, be, text, 0);
		lttng_ust_tracepoint(tcompat, strings, "quote\"back\\slash\ttab");
		lttng_ust_tracepoint(tcompat, strings, NULL);
		lttng_ust_tracepoint(tcompat, first, 1, 2);
		lttng_ust_tracepoint(tcompat, second, 3, 4);
		lttng_ust_tracepoint(tcompat, noargs);
		on = lttng_ust_tracepoint_enabled(tclassic, net);
		if (on)
			lttng_ust_do_tracepoint(tclassic, net, be, 2, 99);
		lttng_ust_tracepoint(tborrow, borrowed, 5, 6);
		compat_log(i);
	}
	return 0;
}
