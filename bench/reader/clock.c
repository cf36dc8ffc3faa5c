/* SPDX-License-Identifier: MIT */
/*
 * trawl-bench-clock RUNS CMD [ARG...]: runs CMD RUNS times, one after the
 * other, its stdout and stderr to /dev/null, and prints one line per run:
 *
 *   WALL_S CPU_S MAXRSS_KIB MINOR_FAULTS
 *
 * WALL_S is CLOCK_MONOTONIC from just before the spawn to the child's exit
 * being reaped; CPU_S is the child's user + system time from wait4() (the
 * scheduler's accounting); both printed in µs. MAXRSS_KIB is its peak
 * resident set, MINOR_FAULTS its page faults served from memory: for a
 * reader that maps a trace held in the page cache, how many times the
 * kernel was entered to map some of it (fewer when the page cache holds
 * the file in larger folios). /usr/bin/time, which the
 * bench used before, prints wall time in 10 ms steps: a 30 ms run was
 * 0.03 or 0.04 s, a third apart. On a machine shared with other work, the
 * CPU time is the figure that does not move with the load; the wall time
 * includes the time spent waiting for a core.
 *
 * Exits 1 (one line on stderr) when CMD cannot be run or does not exit 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One run of @argv: its figures, or -1 (message printed). */
static int run_once(char **argv, int devnull)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	double t0, t1;
	int status, err;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, devnull, STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, devnull, STDERR_FILENO);
	t0 = mono_s();
	err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		fprintf(stderr, "trawl-bench-clock: cannot run %s: %s\n", argv[0], strerror(err));
		return -1;
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "trawl-bench-clock: wait4: %s\n", strerror(errno));
			return -1;
		}
	}
	t1 = mono_s();
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "trawl-bench-clock: %s did not exit 0 (status 0x%x)\n", argv[0],
			(unsigned)status);
		return -1;
	}
	printf("%.6f %.6f %ld %ld\n", t1 - t0, tv_s(ru.ru_utime) + tv_s(ru.ru_stime), ru.ru_maxrss,
	       ru.ru_minflt);
	return 0;
}

int main(int argc, char **argv)
{
	char *end;
	long runs, i;
	int devnull;

	if (argc < 3) {
		fprintf(stderr, "usage: trawl-bench-clock RUNS CMD [ARG...]\n");
		return 2;
	}
	errno = 0;
	runs = strtol(argv[1], &end, 10);
	if (errno || *end || runs < 1 || runs > 1000) {
		fprintf(stderr, "trawl-bench-clock: RUNS must be 1 to 1000, not '%s'\n", argv[1]);
		return 2;
	}
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0) {
		fprintf(stderr, "trawl-bench-clock: cannot open /dev/null: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < runs; i++) {
		if (run_once(argv + 2, devnull))
			return 1;
		fflush(stdout);
	}
	close(devnull);
	return 0;
}
