/* SPDX-License-Identifier: MIT */
/* Small file helpers shared by the writers of trace files. */
#include "common/common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int trawl_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int trawl_mkdir_p(const char *path, unsigned mode)
{
	size_t i, n = strlen(path);
	char *buf = strdup(path);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, (mode_t)mode) && errno != EEXIST) {
			ret = -errno;
			break;
		}
		buf[i] = path[i];
	}
	free(buf);
	return ret;
}
