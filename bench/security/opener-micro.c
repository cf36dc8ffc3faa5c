/* SPDX-License-Identifier: MIT */
/*
 * The kernel consumer's opener, alone: what setting up a kernel trace's
 * files costs with the opener (a child forked as another user, fds passed
 * back) and in place (root's own session), same run, alternating. One
 * round = the folder and index/, metadata, and a stream file plus its index
 * file per CPU (what trawl-consumerd --kernel opens at start), then destroy.
 *
 * usage: bench-opener-micro [ROUNDS] [CPUS]   (as root; uid 65534 owns the member's folder)
 */
#define _GNU_SOURCE
#include "consumerd/opener.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define OTHER_UID 65534

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One round in @dir as @uid; its time in us, or -1. */
static double round_us(const char *dir, uid_t uid, int cpus)
{
	struct trawl_opener *op;
	char err[512], rel[64];
	double t = now_us();
	int i, fd;

	if (trawl_opener_create(dir, uid, uid, &op, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	for (i = -1; i < 2 * cpus; i++) {
		if (i < 0)
			snprintf(rel, sizeof(rel), "metadata");
		else if (i % 2)
			snprintf(rel, sizeof(rel), "index/channel0_%d.idx", i / 2);
		else
			snprintf(rel, sizeof(rel), "channel0_%d", i / 2);
		fd = trawl_opener_file(op, rel, 0, err, sizeof(err));
		if (fd < 0) {
			fprintf(stderr, "%s\n", err);
			trawl_opener_destroy(op);
			return -1;
		}
		close(fd);
	}
	trawl_opener_destroy(op);
	return now_us() - t;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200, cpus = argc > 2 ? atoi(argv[2]) : 2, i;
	char top[] = "/tmp/trawl-bench-opener.XXXXXX", mine[128], theirs[128], cmd[160];
	double *in_place, *opener;

	if (geteuid() != 0 || n <= 0 || !mkdtemp(top)) {
		fprintf(stderr, "usage: bench-opener-micro [ROUNDS] [CPUS] (as root)\n");
		return 2;
	}
	in_place = calloc((size_t)n, sizeof(double));
	opener = calloc((size_t)n, sizeof(double));
	snprintf(mine, sizeof(mine), "%s/root", top);
	snprintf(theirs, sizeof(theirs), "%s/member", top);
	if (!in_place || !opener || chmod(top, 0755) || mkdir(theirs, 0755) ||
	    chown(theirs, OTHER_UID, OTHER_UID))
		return 1;
	strcat(theirs, "/kernel");
	for (i = 0; i < n; i++) {
		in_place[i] = round_us(mine, (uid_t)-1, cpus);
		opener[i] = round_us(theirs, OTHER_UID, cpus);
		if (in_place[i] < 0 || opener[i] < 0)
			return 1;
	}
	qsort(in_place, (size_t)n, sizeof(double), cmp);
	qsort(opener, (size_t)n, sizeof(double), cmp);
	printf("%d rounds, %d CPUs (%d files): median in place %.0f us, with the opener %.0f us "
	       "(+%.0f us, p90 %.0f vs %.0f)\n", n, cpus, 2 * cpus + 1, in_place[n / 2],
	       opener[n / 2], opener[n / 2] - in_place[n / 2], in_place[n * 9 / 10],
	       opener[n * 9 / 10]);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	return system(cmd) ? 1 : 0;
}
