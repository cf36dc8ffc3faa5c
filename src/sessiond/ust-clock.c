/* SPDX-License-Identifier: MIT */
/*
 * ust-clock.c - the clock of user-space traces whose apps have no clock
 * plugin: the x86-64 TSC in cycles where it is invariant (constant_tsc and
 * nonstop_tsc) and the kernel trusts it (lists it as a clocksource), else
 * CLOCK_MONOTONIC in ns; chosen once, at the first trace. TRAWL_UST_CLOCK=
 * monotonic in the session daemon's environment forces CLOCK_MONOTONIC,
 * =tsc the TSC (where it is usable; else CLOCK_MONOTONIC, said in the log).
 *
 * The kernel's verdict, not the CPU's flags alone: a kernel that marked the
 * TSC unstable (tsc=unstable on its command line, or its watchdog saw the
 * TSC drift or jump) takes it off the clocksources it lists, and keeps its
 * own clock on something else. A VM's TSC is such a case: a Firecracker or
 * KVM guest moved to another host (migration, snapshot restore) may see its
 * TSC jump, which kvm-clock, and so CLOCK_MONOTONIC, corrects and a raw
 * TSC stamp would not. Such a guest may still show tsc_reliable in
 * /proc/cpuinfo (the hypervisor's word, or tsc=reliable, which only skips
 * the watchdog): that flag alone no longer picks the TSC.
 *
 * Why: an event's CLOCK_MONOTONIC read (vDSO) costs ~25 ns here, half of a
 * user-space event; LFENCE+RDTSC costs a few. The trace declares the TSC's
 * frequency and an offset so that babeltrace2 prints the same wall-clock
 * times as for CLOCK_MONOTONIC: value 0 is, on the Epoch's scale,
 * offset_mono + m0 - c0 / f, from a (TSC c0, CLOCK_MONOTONIC m0) pair read
 * when the trace is made, and offset_mono the one every trace of the daemon
 * declares ($TRAWL_CLOCK_OFFSET_NS, else measured as for the monotonic
 * clock). The frequency f is measured once against CLOCK_MONOTONIC: pairs
 * 50 ms apart or more, until f's error bound (the pairs' read windows over
 * their distance) is below 0.5 ppm.
 *
 * The bound that holds: a TSC time t after the pair maps to
 * m0 + (t - c0) / f, CLOCK_MONOTONIC to m0 plus its own rate's integral.
 * They differ by the pair's window (~50 ns) plus (|f's error| + NTP's
 * frequency adjustment) x the time since the pair: f's error is below
 * 0.5 ppm (0.01 ppm measured here against a 3 s baseline), NTP may slew
 * CLOCK_MONOTONIC by up to 500 ppm (the kernel's limit; a few ppm when
 * disciplined, 0 here: no NTP). A second after the pair: under 1 us
 * without NTP. Kernel events of the same session (tracefs "mono",
 * bpf_ktime_get_ns, perf's CLOCK_MONOTONIC) merge with these in the right
 * order when they are further apart than that (tests/kernel's
 * kernel-combined: 100 us); events closer than the bound, hours into a
 * trace on an NTP-slewed machine, may merge out of order. Exact for any
 * distance would need kernel traces on the same counter (tracefs's
 * x86-tsc, BPF's and perf's times converted): not done. Machines where
 * that matters can run the daemon with TRAWL_UST_CLOCK=monotonic.
 */
#include "sessiond/ust-internal.h"
#include "common/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t tsc_hz;	  /* 0: not measured or not usable */
static double tsc_hz_err; /* f's error bound, in ppm */

static int file_has_word(const char *path, const char *word)
{
	char line[4096];
	size_t n = strlen(word);
	int found = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *p = line;

		while (!found && (p = strstr(p, word))) {
			found = (p == line || p[-1] == ' ' || p[-1] == '\t') &&
				(p[n] == ' ' || p[n] == '\n' || p[n] == '\0');
			p += n;
		}
	}
	fclose(f);
	return found;
}

static int tsc_invariant(void)
{
#if defined(__x86_64__)
	/* A kernel that found the TSC unstable drops it from the clocksources
	 * (top comment); tsc_reliable does not overrule that. */
	return file_has_word("/proc/cpuinfo", "constant_tsc") &&
	       file_has_word("/proc/cpuinfo", "nonstop_tsc") &&
	       file_has_word("/sys/devices/system/clocksource/clocksource0/available_clocksource", "tsc");
#else
	return 0;
#endif
}

/* A (TSC, CLOCK_MONOTONIC ns) pair: of 16 tries the one whose two TSC reads
 * are closest, the TSC taken half-way; the window, in TSC cycles. */
static uint64_t tsc_pair(uint64_t *c, uint64_t *m)
{
	uint64_t best = UINT64_MAX;
	int i;

	*c = *m = 0;
	for (i = 0; i < 16; i++) {
		uint64_t a = trawl_ustctl_clock_now(TRAWL_USTCTL_CLOCK_TSC);
		uint64_t mono = trawl_ustctl_clock_now(TRAWL_USTCTL_CLOCK_MONOTONIC);
		uint64_t b = trawl_ustctl_clock_now(TRAWL_USTCTL_CLOCK_TSC);

		if (b - a < best) {
			best = b - a;
			*c = a + (b - a) / 2;
			*m = mono;
		}
	}
	return best;
}

/* The TSC's frequency in Hz (0: unusable): pairs 50 ms apart, again further
 * while the error bound is over 0.5 ppm (a preempted read), up to 1 s. */
static uint64_t tsc_measure_hz(void)
{
	struct timespec d;
	uint64_t c0, m0, c1, m1, w0, w1, hz = 0;
	int i;

	w0 = tsc_pair(&c0, &m0);
	for (i = 0; i < 20; i++) {
		d.tv_sec = 0;
		d.tv_nsec = 50000000;
		while (nanosleep(&d, &d))
			;
		w1 = tsc_pair(&c1, &m1);
		if (c1 <= c0 || m1 <= m0)
			return 0;
		hz = (uint64_t)((unsigned __int128)(c1 - c0) * 1000000000u / (m1 - m0));
		/* each pair's TSC is within half its window of its mono read */
		tsc_hz_err = (double)(w0 + w1) / 2 / (double)(c1 - c0) * 1e6;
		if (tsc_hz_err < 0.5)
			break;
	}
	return hz;
}

uint32_t ust_clock_default(void)
{
	static int chosen = -1;

	if (chosen < 0) {
		const char *e = getenv("TRAWL_UST_CLOCK");
		int force_tsc = e && !strcmp(e, "tsc");

		chosen = 0;
		if (e && *e && strcmp(e, "tsc") && strcmp(e, "monotonic") && strcmp(e, "auto"))
			trawl_log(TRAWL_LOG_WARN,
				  "TRAWL_UST_CLOCK=%s: not tsc, monotonic or auto; auto", e);
		if (!(e && !strcmp(e, "monotonic")) && tsc_invariant()) {
			tsc_hz = tsc_measure_hz();
			chosen = tsc_hz != 0;
		}
		if (chosen)
			trawl_log(TRAWL_LOG_INFO,
				  "user-space traces on the TSC: %llu Hz (+- %.3f ppm)",
				  (unsigned long long)tsc_hz, tsc_hz_err);
		else if (force_tsc)
			trawl_log(TRAWL_LOG_WARN,
				  "TRAWL_UST_CLOCK=tsc: no invariant TSC the kernel trusts here; CLOCK_MONOTONIC");
	}
	return chosen ? TRAWL_USTCTL_CLOCK_TSC : TRAWL_USTCTL_CLOCK_MONOTONIC;
}

int ust_clock_add_tsc(struct trawl_ctf_trace *ctf)
{
	uint8_t boot[16];
	int have_boot = trawl_ctf_boot_id(boot) == 0;
	uint64_t c0, m0;
	int64_t off, s, t;
	struct trawl_ctf_clock_desc d = {
		/* Named as the kernel trace's clock: babeltrace2 2.0 takes an LTTng
		 * trace's "monotonic" clock as absolute (Epoch-based) and refuses
		 * to merge it with a clock of another name ("Expecting an absolute
		 * clock class"); freq and offset say what its values are. */
		.name = "monotonic",
		.description = "x86 TSC (invariant) on CLOCK_MONOTONIC's scale",
		.freq = tsc_hz,
		.precision = 1,
		.absolute = 0,
		/* This boot's, as the kernel's monotonic clock: babeltrace2
		 * merges the two (within the bound above). */
		.uuid = have_boot ? boot : NULL,
	};

	if (!tsc_hz)
		return -EINVAL;
	off = trawl_ctf_clock_offset();
	tsc_pair(&c0, &m0);
	/* value 0 = off + m0 ns - c0 ticks, in s + ticks (0 <= ticks < f) */
	s = (off + (int64_t)m0) / 1000000000;
	t = (int64_t)((unsigned __int128)(uint64_t)((off + (int64_t)m0) % 1000000000 + 1000000000) *
		      tsc_hz / 1000000000u) -
	    (int64_t)tsc_hz;
	s -= (int64_t)(c0 / tsc_hz);
	t -= (int64_t)(c0 % tsc_hz);
	while (t < 0) {
		t += (int64_t)tsc_hz;
		s--;
	}
	while (t >= (int64_t)tsc_hz) {
		t -= (int64_t)tsc_hz;
		s++;
	}
	d.offset_s = s;
	d.offset = t;
	return trawl_ctf_trace_add_clock(ctf, &d);
}
