/* SPDX-License-Identifier: MIT */
/* ids.c - becoming a session's owner (ids.h). */
#define _GNU_SOURCE /* setresuid() */
#include "common/ids.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

void trawl_ids_lookup(uid_t uid, gid_t gid, struct trawl_ids *ids)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int n = TRAWL_IDS_MAX_GROUPS;

	ids->uid = uid;
	ids->gid = gid;
	ids->ngroups = 1;
	ids->groups[0] = gid;
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) || !res)
		return;
	if (getgrouplist(res->pw_name, gid, ids->groups, &n) >= 0)
		ids->ngroups = n;
	else
		ids->groups[0] = gid; /* too many: the primary group only */
}

int trawl_ids_is_self(const struct trawl_ids *ids)
{
	return ids->uid == geteuid() && ids->gid == getegid();
}

int trawl_ids_assume(const struct trawl_ids *ids)
{
	uid_t r, e, s;

	if (setgroups((size_t)ids->ngroups, ids->groups) ||
	    setresgid(ids->gid, ids->gid, ids->gid) || setresuid(ids->uid, ids->uid, ids->uid))
		return -errno;
	/* never back: a uid 0 that remained anywhere would be a way back */
	if (getresuid(&r, &e, &s) || r != ids->uid || e != ids->uid || s != ids->uid)
		return -EPERM;
	if (ids->uid != 0 && setresuid(0, 0, 0) == 0)
		return -EPERM;
	return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) ? -errno : 0;
}

int trawl_ids_run(const struct trawl_ids *ids, int (*fn)(void *), void *arg)
{
	int status, ret;
	pid_t pid;

	if (trawl_ids_is_self(ids))
		return fn(arg);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		ret = trawl_ids_assume(ids);
		if (!ret)
			ret = fn(arg);
		_exit(ret < 0 && ret > -256 ? -ret : ret ? EIO : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -EIO;
}
