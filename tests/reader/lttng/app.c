/* SPDX-License-Identifier: MIT */
/* tests/reader/lttng.sh's traced program: ARGV[1] loops of each event. */
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "tp.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
	static const char *const strs[] = {
		"hello", "with \"quotes\" and \\ and ?", "tab\there\nnewline", "x",
		"\x01\x7f\x80\xff high bytes",
	};
	int arr[3] = { -1, 0, 1 };
	long n = argc > 1 ? atol(argv[1]) : 100;
	long i;

	for (i = 0; i < n; i++) {
		tracepoint(trawltest, ints, i);
		tracepoint(trawltest, floats, i);
		arr[0] = (int)-i;
		tracepoint(trawltest, text, strs[i % 5], arr, (unsigned int)(1 + i % 3));
	}
	return 0;
}
