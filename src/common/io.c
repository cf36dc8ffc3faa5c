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

int trawl_file_replace(const char *path, const void *buf, size_t len, uid_t uid, gid_t gid)
{
	const char *base = strrchr(path, '/');
	char tmp[PATH_MAX];
	int fd, ret, n;

	if (base)
		n = snprintf(tmp, sizeof(tmp), "%.*s/.%s.tmp", (int)(base - path), path, base + 1);
	else
		n = snprintf(tmp, sizeof(tmp), ".%s.tmp", path);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	ret = trawl_write_all(fd, buf, len);
	if (!ret && uid != (uid_t)-1 && fchown(fd, uid, gid)) {
		/* not fatal: the file stays the writer's */
	}
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		close(fd);
		unlink(tmp);
		return ret;
	}
	return fd;
}
