/* SPDX-License-Identifier: MIT */
/*
 * kworkload PATH: a traced program whose truth the LTTng-layout test knows.
 * It opens PATH (O_RDONLY | O_CLOEXEC), reads it in 1000-byte calls to the
 * end, closes it, makes a pipe with pipe2(O_CLOEXEC), calls getppid() 1000
 * times, then burns about 200 ms of CPU. It prints, one "key=value" a line:
 * pid, fd, reads (the read() calls, the last one returning 0), bytes,
 * pipe0, pipe1, prio (field 18 of /proc/self/stat: the kernel prio - 100,
 * LTTng's convention) and cpu_ns (its user + system time, from getrusage).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long stat_prio(void)
{
	char buf[1024], *p;
	FILE *f = fopen("/proc/self/stat", "re");
	size_t n;
	int i;

	if (!f)
		return -1000;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (i = 2; p && i < 18; i++) /* after ") ": state is field 3, priority 18 */
		p = strchr(p + 1, ' ');
	return p ? strtol(p + 1, NULL, 10) : -1000;
}

/* the burn loop's sum: volatile and global, so the loop is neither dropped nor warned about */
static volatile unsigned long burn;

int main(int argc, char **argv)
{
	char buf[1000];
	long reads = 0, bytes = 0, n;
	struct timespec t0, t;
	struct rusage ru;
	int fd, p[2], i;

	if (argc != 2)
		return 2;
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	do {
		n = read(fd, buf, sizeof(buf));
		reads++;
		if (n > 0)
			bytes += n;
	} while (n > 0);
	close(fd);
	if (pipe2(p, O_CLOEXEC) < 0)
		return 1;
	for (i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < 100000; i++)
			burn += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000000L);
	getrusage(RUSAGE_SELF, &ru);
	printf("pid=%d\nfd=%d\nreads=%ld\nbytes=%ld\npipe0=%d\npipe1=%d\nprio=%ld\ncpu_ns=%lld\n",
	       (int)getpid(), fd, reads, bytes, p[0], p[1], stat_prio(),
	       (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
		       (long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL);
	return 0;
}
