/* SPDX-License-Identifier: MIT */
/*
 * The filter test app: emits, for k = 0..9, one of each "tall" event with
 * values derived from k (tests/ust/filter.py reads them back from an
 * unfiltered channel as the reference), then exits.
 *
 *   ints(i = k - 5, u = k * 0x10000000)    floats(d = k / 2 - 1)
 *   strings(names[k], strlen)              arrays({k, -k, k*k}, k % 4)
 *   enums(colors[k])                       first(k, 2k)  second(k, -k)  noargs
 *   tfilt:hidden(k, "t<5k>", {k, k*k, -k}) (tp-filter.h: fields for filters only)
 *
 * Its start-up waits for the daemon's setup (started sessions apply
 * before main()); it also waits up to 5 s (FILTER_APP_WAIT_MS) for
 * tall:ints or tfilt:hidden to be enabled.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tp-all.h"
#include "tp-filter.h"

int main(void)
{
	static const char *const names[10] = { "alpha", "beta", "gamma", "delta", "epsilon",
					       "zeta",  "eta",  "theta", "iota",  "kappa" };
	static const int colors[10] = { 0, 1, 10, 12, 19, 20, 21, 99, 1, 0 };
	const char *w = getenv("FILTER_APP_WAIT_MS");
	int k, wait_ms = w ? atoi(w) : 5000;

	for (k = 0; k < wait_ms && !tracepoint_enabled(tall, ints) && !tracepoint_enabled(tfilt, hidden); k++)
		usleep(1000);
	for (k = 0; k < 10; k++) {
		int arr[3] = { k, -k, k * k };

		tracepoint(tall, ints, (int64_t)k - 5, (uint32_t)k * 0x10000000u);
		tracepoint(tall, floats, k / 2.0 - 1.0);
		tracepoint(tall, strings, names[k], (int)strlen(names[k]));
		tracepoint(tall, arrays, arr, (unsigned int)(k % 4));
		tracepoint(tall, enums, colors[k]);
		tracepoint(tall, first, k, 2 * k);
		tracepoint(tall, second, k, -k);
		tracepoint(tall, noargs);
		{
			int harr[3] = { k, k * k, -k };
			char tag[16];

			snprintf(tag, sizeof(tag), "t%d", 5 * k);
			tracepoint(tfilt, hidden, k, tag, harr);
		}
	}
	return 0;
}
