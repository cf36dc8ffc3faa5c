/* SPDX-License-Identifier: MIT */
/*
 * common/fs.c and common/ids.c: the walk follows only root's and our own
 * links, never any inside a trace; files are always new (a link, a FIFO or
 * a hard link in the way is replaced, its target untouched, nothing
 * blocks); replace is atomic; private-folder checks; ids_run as another
 * user. Cases that need another user's files are made as root (lchown) and
 * skipped otherwise.
 *
 * usage: fs-test (in a scratch folder it makes under /tmp)
 */
#define _GNU_SOURCE
#include "common/fs.h"
#include "common/ids.h"
#include "../lib/check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OTHER_UID 65534 /* nobody: another user, without useradd */

static char top[64];

static void put(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(p);
		exit(1);
	}
}

/* The content of @rel (a static buffer), "" if unreadable. */
static const char *get(const char *rel)
{
	static char buf[256];
	char p[256];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	buf[0] = '\0';
	fd = open(p, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return buf;
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	return buf;
}

static char *at(const char *rel)
{
	static char p[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", top, rel);
	return p[i];
}

static int lmode(const char *rel)
{
	struct stat st;

	return lstat(at(rel), &st) ? -1 : (int)(st.st_mode & S_IFMT);
}

static void test_walk(int root)
{
	char where[512];
	int fd, t = open(top, O_PATH | O_DIRECTORY);

	/* created, nested; "." and "//" ignored; "" is the folder itself */
	fd = trawl_fs_dir_open(AT_FDCWD, at("a//b/./c"), TRAWL_FS_CREATE, 0750, NULL, 0);
	CHECK(fd >= 0 && lmode("a/b/c") == S_IFDIR);
	close(fd);
	fd = trawl_fs_dir_open(t, "", 0, 0, NULL, 0);
	CHECK(fd >= 0);
	close(fd);
	/* our own link is followed (relative and absolute), ".." too outside BELOW */
	CHECK(!symlink("a/b", at("mine")) && !symlink(at("a"), at("mine-abs")));
	fd = trawl_fs_dir_open(t, "mine/c", 0, 0, NULL, 0);
	CHECK(fd >= 0);
	close(fd);
	fd = trawl_fs_dir_open(AT_FDCWD, at("mine-abs/b/../b/c"), 0, 0, NULL, 0);
	CHECK(fd >= 0);
	close(fd);
	/* not a folder; missing without CREATE */
	put("plain", "x");
	CHECK(trawl_fs_dir_open(t, "plain/x", TRAWL_FS_CREATE, 0750, NULL, 0) == -ENOTDIR);
	CHECK(trawl_fs_dir_open(t, "nothere", 0, 0, NULL, 0) == -ENOENT);
	/* BELOW: no link at all, no "..", no absolute path */
	CHECK(trawl_fs_dir_open(t, "mine", TRAWL_FS_BELOW, 0, NULL, 0) == -ELOOP);
	CHECK(trawl_fs_dir_open(t, "a/..", TRAWL_FS_BELOW, 0, NULL, 0) == -EINVAL);
	CHECK(trawl_fs_dir_open(t, "/tmp", TRAWL_FS_BELOW, 0, NULL, 0) == -EINVAL);
	/* a loop ends */
	CHECK(!symlink("loop2", at("loop1")) && !symlink("loop1", at("loop2")));
	CHECK(trawl_fs_dir_open(t, "loop1", 0, 0, NULL, 0) == -ELOOP);
	if (root) {
		/* another user's link, even to a harmless place, is not followed */
		CHECK(!symlink("a", at("theirs")) && !lchown(at("theirs"), OTHER_UID, OTHER_UID));
		where[0] = '\0';
		CHECK(trawl_fs_dir_open(t, "theirs/b", 0, 0, where, sizeof(where)) == -ELOOP);
		CHECK(!strcmp(where, at("theirs")));
		/* nor our own link in another user's folder (they could swap it) */
		CHECK(!mkdir(at("their-dir"), 0777) && !chown(at("their-dir"), OTHER_UID, OTHER_UID));
		CHECK(!symlink(at("a"), at("their-dir/ours")));
		CHECK(trawl_fs_dir_open(t, "their-dir/ours", 0, 0, NULL, 0) == -ELOOP);
	}
	close(t);
}

static void test_files(int root)
{
	int t = open(top, O_PATH | O_DIRECTORY), fd;
	char where[512];

	put("victim", "precious");
	/* a link where the file goes: replaced, its target untouched */
	CHECK(!mkdir(at("tr"), 0750) && !symlink(at("victim"), at("tr/metadata")));
	fd = trawl_fs_file_create(t, "tr/metadata", 0640, NULL, 0);
	CHECK(fd >= 0 && write(fd, "new", 3) == 3);
	close(fd);
	CHECK(!strcmp(get("victim"), "precious") && lmode("tr/metadata") == S_IFREG &&
	      !strcmp(get("tr/metadata"), "new"));
	/* a hard link: the other name keeps its content */
	CHECK(!link(at("victim"), at("tr/chan_0")));
	fd = trawl_fs_file_create(t, "tr/chan_0", 0640, NULL, 0);
	CHECK(fd >= 0);
	close(fd);
	CHECK(!strcmp(get("victim"), "precious") && !strcmp(get("tr/chan_0"), ""));
	/* a FIFO (no reader: an open for writing would block): replaced at once */
	CHECK(!mkfifo(at("tr/chan_1"), 0666));
	fd = trawl_fs_file_create(t, "tr/chan_1", 0640, NULL, 0);
	CHECK(fd >= 0 && lmode("tr/chan_1") == S_IFREG);
	close(fd);
	/* a link as a folder inside the trace: refused, named */
	CHECK(!symlink(at("a"), at("tr/index")));
	where[0] = '\0';
	CHECK(trawl_fs_file_create(t, "tr/index/chan_0.idx", 0640, where, sizeof(where)) == -ELOOP);
	CHECK(!strcmp(where, at("tr/index")));
	/* a folder where the file goes */
	CHECK(!mkdir(at("tr/dir"), 0750));
	CHECK(trawl_fs_file_create(t, "tr/dir", 0640, NULL, 0) == -EISDIR);
	CHECK(trawl_fs_file_create(t, "tr/..", 0640, NULL, 0) == -EINVAL);
	CHECK(trawl_fs_file_create(t, "../x", 0640, NULL, 0) == -EINVAL);
	/* reads: links and FIFOs refused without blocking */
	CHECK(!symlink(at("victim"), at("tr/rlink")) && !mkfifo(at("tr/rfifo"), 0666));
	CHECK(trawl_fs_file_read(t, "tr/rlink", NULL, 0) == -ELOOP);
	CHECK(trawl_fs_file_read(t, "tr/rfifo", NULL, 0) == -EINVAL);
	fd = trawl_fs_file_read(t, "tr/metadata", NULL, 0);
	CHECK(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK));
	close(fd);
	/* keep: the content stays; a link, a FIFO, a hard link refused, without blocking */
	fd = trawl_fs_file_keep(t, "tr/metadata", 0640, NULL, 0);
	CHECK(fd >= 0 && write(fd, "+", 1) == 1);
	close(fd);
	CHECK(!strcmp(get("tr/metadata"), "new+"));
	CHECK(trawl_fs_file_keep(t, "tr/rlink", 0640, NULL, 0) == -ELOOP);
	CHECK(trawl_fs_file_keep(t, "tr/rfifo", 0640, NULL, 0) == -EINVAL);
	CHECK(!link(at("victim"), at("tr/hard")));
	CHECK(trawl_fs_file_keep(t, "tr/hard", 0640, NULL, 0) == -EINVAL);
	CHECK(!strcmp(get("victim"), "precious"));
	fd = trawl_fs_file_keep(t, "tr/index/../fresh", 0640, NULL, 0);
	CHECK(fd == -EINVAL || fd == -ELOOP);
	fd = trawl_fs_file_keep(t, "tr/fresh", 0640, NULL, 0);
	CHECK(fd >= 0 && lmode("tr/fresh") == S_IFREG);
	close(fd);
	/* replace: over a link, atomic, nothing left aside */
	CHECK(!unlink(at("tr/metadata")) && !symlink(at("victim"), at("tr/metadata")));
	fd = trawl_fs_replace(t, "tr/metadata", "whole", 5, 0640);
	CHECK(fd >= 0);
	close(fd);
	CHECK(!strcmp(get("victim"), "precious") && !strcmp(get("tr/metadata"), "whole") &&
	      lmode("tr/.metadata.tmp") == -1);
	/* a link planted at the name written aside changes nothing either */
	CHECK(!symlink(at("victim"), at("tr/.metadata.tmp")));
	fd = trawl_fs_replace(t, "tr/metadata", "again", 5, 0640);
	CHECK(fd >= 0);
	close(fd);
	CHECK(!strcmp(get("victim"), "precious") && !strcmp(get("tr/metadata"), "again"));
	if (root) {
		struct stat st;

		/* the mode given, whatever the umask of the caller's file creation */
		CHECK(!stat(at("tr/metadata"), &st) && (st.st_mode & 0777) == 0640);
	}
	close(t);
}

static void test_private(int root)
{
	int fd;
	char where[512];

	CHECK(!mkdir(at("priv"), 0750) && !mkdir(at("priv/in"), 0750));
	fd = open(at("priv/in"), O_PATH | O_DIRECTORY);
	/* /tmp is sticky: fine above; our folders are ours */
	CHECK(trawl_fs_dir_private(fd, NULL, 0) == 0);
	close(fd);
	CHECK(!chmod(at("priv"), 0770));
	fd = open(at("priv/in"), O_PATH | O_DIRECTORY);
	where[0] = '\0';
	CHECK(trawl_fs_dir_private(fd, where, sizeof(where)) == -EPERM);
	CHECK(!strcmp(where, at("priv")));
	close(fd);
	CHECK(!chmod(at("priv"), 0750));
	if (root) {
		CHECK(!chown(at("priv"), OTHER_UID, OTHER_UID));
		fd = open(at("priv/in"), O_PATH | O_DIRECTORY);
		CHECK(trawl_fs_dir_private(fd, NULL, 0) == -EPERM);
		close(fd);
	}
}

static int whoami(void *arg)
{
	(void)arg;
	/* the identity took, for good, and the groups with it */
	if (getuid() != OTHER_UID || geteuid() != OTHER_UID || getegid() != OTHER_UID)
		return -EINVAL;
	if (setresuid(0, 0, 0) == 0)
		return -EPERM;
	return getgroups(0, NULL) >= 1 ? -ENOTSUP : -EIO;
}

static void test_ids(void)
{
	struct trawl_ids ids;

	trawl_ids_lookup(OTHER_UID, OTHER_UID, &ids);
	CHECK(ids.ngroups >= 1 && ids.groups[0] == OTHER_UID);
	CHECK(!trawl_ids_is_self(&ids));
	CHECK(trawl_ids_run(&ids, whoami, NULL) == -ENOTSUP);
}

int main(void)
{
	int root = geteuid() == 0;
	char cmd[128];

	snprintf(top, sizeof(top), "/tmp/trawl-fs-test.XXXXXX");
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		return 1;
	}
	test_walk(root);
	test_files(root);
	test_private(root);
	if (root)
		test_ids();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", top);
	if (check_fails) {
		fprintf(stderr, "%d failure(s)\n", check_fails);
		return 1;
	}
	printf("ok%s\n", root ? "" : " (as a user: the other-user cases were skipped)");
	return 0;
}
