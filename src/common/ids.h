/* SPDX-License-Identifier: MIT */
/*
 * ids.h - becoming a session's owner.
 *
 * The root session daemon serves other users' sessions. Whatever it does
 * on their behalf in the file system - making their trace folder, running
 * their user-space consumer, probing perf counters their apps will open,
 * and the kernel consumer's file opener (consumerd/opener.h) - runs in a
 * process that has taken the owner's identity for good: their uid, their
 * primary group, and their supplementary groups (as login gives them: a
 * trace folder in a group-writable place works as it would for them).
 */
#ifndef TRAWL_COMMON_IDS_H
#define TRAWL_COMMON_IDS_H

#include <sys/types.h>

#define TRAWL_IDS_MAX_GROUPS 256

struct trawl_ids {
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[TRAWL_IDS_MAX_GROUPS];
};

/*
 * Fills @ids with @uid, @gid and the user's supplementary groups from the
 * user database (getgrouplist(3)); @gid alone when the user has no entry or
 * more than TRAWL_IDS_MAX_GROUPS groups. Not async-signal-safe: call it
 * before fork().
 */
void trawl_ids_lookup(uid_t uid, gid_t gid, struct trawl_ids *ids);

/* 1 if the process already is @ids' user (its effective uid and gid). */
int trawl_ids_is_self(const struct trawl_ids *ids);

/*
 * Becomes @ids for good: groups, gid, then uid (real, effective and saved),
 * and not dumpable, so the user cannot read what the process held before.
 * Only system calls: safe in the child of a fork(). 0 or a negative errno,
 * after which the caller must exit.
 */
int trawl_ids_assume(const struct trawl_ids *ids);

/*
 * Runs @fn(@arg) as @ids: in place if the process is that user, else in a
 * child that assumed @ids. Returns @fn's result, which must be 0 or a
 * negative errno above -256 (-EIO if the child died otherwise).
 */
int trawl_ids_run(const struct trawl_ids *ids, int (*fn)(void *), void *arg);

#endif /* TRAWL_COMMON_IDS_H */
