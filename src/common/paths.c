/* SPDX-License-Identifier: MIT */
#include "common/common.h"

#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int put_path(char *buf, size_t len, const char *a, const char *b)
{
	int n = snprintf(buf, len, "%s%s", a, b);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int trawl_runtime_dir(char *buf, size_t len, int root_daemon)
{
	const char *dir;

	/* Tests (and users who want it) relocate every socket with these. */
	dir = getenv(root_daemon ? "TRAWL_ROOT_RUNTIME_DIR" : "TRAWL_RUNTIME_DIR");
	if (dir && dir[0] == '/')
		return put_path(buf, len, dir, "");
	if (root_daemon)
		return put_path(buf, len, "/run/trawl", "");
	dir = getenv("XDG_RUNTIME_DIR");
	if (dir && dir[0] == '/')
		return put_path(buf, len, dir, "/trawl");
	dir = getenv("HOME");
	if (dir && dir[0] == '/')
		return put_path(buf, len, dir, "/.trawl");
	return -ENOENT;
}

int trawl_traces_dir(char *buf, size_t len)
{
	const char *dir = getenv("LTTNG_HOME");
	struct passwd *pw;

	/* LTTNG_HOME says the user wants LTTng's layout (its scripts set it) */
	if (dir && dir[0] == '/')
		return put_path(buf, len, dir, "/lttng-traces");
	dir = getenv("HOME");
	if (!dir || dir[0] != '/') {
		pw = getpwuid(geteuid());
		if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/')
			return -ENOENT;
		dir = pw->pw_dir;
	}
	return put_path(buf, len, dir, "/trawl-traces");
}

int trawl_runtime_dir_create(char *buf, size_t len, int root_daemon)
{
	mode_t mode = root_daemon ? 0755 : 0700;
	struct stat st;
	int ret = trawl_runtime_dir(buf, len, root_daemon);

	if (ret)
		return ret;
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	if (lstat(buf, &st))
		return -errno;
	/* Never trust a folder someone else made for us, nor a symlink. */
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return -EPERM;
	if ((st.st_mode & 07777) != mode && chmod(buf, mode))
		return -errno;
	return 0;
}

int trawl_self_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n < 0)
		return -errno;
	if ((size_t)n >= len - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	return 0;
}

int trawl_find_program(const char *name, char *buf, size_t len)
{
	char env[64] = "TRAWL_";
	char dir[4096];
	size_t i, n = strlen(env);
	const char *v;

	for (i = 0; name[i] && n < sizeof(env) - 6; i++)
		env[n++] = name[i] == '-' ? '_' : (char)toupper((unsigned char)name[i]);
	memcpy(env + n, "_PATH", 6);
	v = getenv(env);
	if (v && *v)
		return put_path(buf, len, v, "");
	if (trawl_self_dir(dir, sizeof(dir)))
		return -ENOENT;
	if (snprintf(buf, len, "%s/%s", dir, name) < (int)len && access(buf, X_OK) == 0)
		return 0;
	if (snprintf(buf, len, "%s/../libexec/trawl/%s", dir, name) < (int)len &&
	    access(buf, X_OK) == 0)
		return 0;
	return -ENOENT;
}
