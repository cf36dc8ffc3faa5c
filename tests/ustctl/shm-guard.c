/* SPDX-License-Identifier: MIT */
/*
 * A --shm-path buffer (a regular file, not a sealed memfd) cut short by a
 * holder of its fd: the session daemon's accesses to its mapping fail with
 * -EFAULT instead of a SIGBUS that would end the daemon (ustctl.c guarded()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ustctl/ustctl.h"

static int file_of(uint64_t size)
{
	char name[] = "/tmp/trawl-shm-guard.XXXXXX";
	int fd = mkstemp(name);

	if (fd < 0)
		return -1;
	unlink(name);
	if (ftruncate(fd, (off_t)size)) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(void)
{
	struct trawl_ustctl_channel_attr a = { .subbuf_size = 4096, .num_subbuf = 2, .nr_streams = 1 };
	struct trawl_ustctl_channel *ch;
	int fd = file_of(trawl_ustctl_stream_shm_size(&a)), ret, fails = 0;

	if (fd < 0 || trawl_ustctl_channel_create_in(&a, &fd, &ch)) {
		fprintf(stderr, "FAIL: channel over a file\n");
		return 1;
	}
	ret = trawl_ustctl_channel_add_discarded(ch, 5);
	if (ret) {
		fprintf(stderr, "FAIL: add_discarded on a whole file: %d\n", ret);
		fails++;
	}
	if (ftruncate(trawl_ustctl_channel_stream_fd(ch, 0), 0))
		return 77;
	ret = trawl_ustctl_channel_add_discarded(ch, 5);
	if (ret != -EFAULT) {
		fprintf(stderr, "FAIL: add_discarded on a file cut to 0: %d, wanted -EFAULT\n", ret);
		fails++;
	}
	trawl_ustctl_channel_destroy(ch);
	/* a file cut before its control page is set up: refused, fds closed */
	fd = file_of(trawl_ustctl_stream_shm_size(&a) / 2);
	if (fd >= 0 && trawl_ustctl_channel_create_in(&a, &fd, &ch) != -EINVAL) {
		fprintf(stderr, "FAIL: a file of the wrong size was taken\n");
		fails++;
	}
	if (fails)
		return 1;
	printf("ok\n");
	return 0;
}
