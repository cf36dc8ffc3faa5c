/* SPDX-License-Identifier: MIT */
/*
 * trawl_output_local_append() (consumerd/output-internal.h): a whole write,
 * an empty one, and a write the file size limit (RLIMIT_FSIZE) cuts short,
 * which must fail and leave the file as it was (no half packet), with no
 * timing involved.
 *
 *   cons-local-append FILE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "consumerd/output-internal.h"

static off_t file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : st.st_size;
}

int main(int argc, char **argv)
{
	static char a[4096], b[8192], c[100];
	struct iovec v[3] = {{a, sizeof(a)}, {b, sizeof(b)}, {c, sizeof(c)}};
	struct iovec none[2] = {{a, 0}, {b, 0}};
	struct ofile f = {.fd = -1};
	struct rlimit rl;
	char back[sizeof(c)];

	if (argc != 2)
		return 2;
	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	memset(c, 'c', sizeof(c));
	f.fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	if (f.fd < 0)
		return 1;
	/* whole */
	CHECK(trawl_output_local_append(&f, v, 3) == 0);
	CHECK(f.size == sizeof(a) + sizeof(b) + sizeof(c) && file_size(f.fd) == (off_t)f.size);
	CHECK(pread(f.fd, back, sizeof(back), (off_t)(f.size - sizeof(c))) == (ssize_t)sizeof(back) &&
	      !memcmp(back, c, sizeof(c)));
	/* nothing */
	CHECK(trawl_output_local_append(&f, none, 2) == 0);
	CHECK(f.size == sizeof(a) + sizeof(b) + sizeof(c));
	/* cut short by the size limit: writev() writes part, the next one fails */
	signal(SIGXFSZ, SIG_IGN);
	CHECK(getrlimit(RLIMIT_FSIZE, &rl) == 0);
	rl.rlim_cur = f.size + sizeof(a) + 10;
	CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0);
	CHECK(trawl_output_local_append(&f, v, 3) == -EFBIG);
	CHECK(f.size == sizeof(a) + sizeof(b) + sizeof(c) && file_size(f.fd) == (off_t)f.size);
	/* and what fits still goes */
	CHECK(trawl_output_local_append(&f, v, 1) == 0);
	CHECK(f.size == 2 * sizeof(a) + sizeof(b) + sizeof(c) && file_size(f.fd) == (off_t)f.size);
	close(f.fd);
	unlink(argv[1]);
	return CHECK_EXIT();
}
