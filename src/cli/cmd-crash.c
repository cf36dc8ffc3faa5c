/* SPDX-License-Identifier: MIT */
/*
 * cmd-crash.c - `trawl crash`: LTTng's lttng-crash. Reads the buffer files
 * a --shm-path session leaves (src/sessiond/ust-shm.c) after the traced app,
 * or the daemons, died, and makes a CTF trace of what they still held
 * (src/ringbuffer/crash.h): written to -x DIR, or shown as `trawl view`
 * shows a trace (from a temporary folder, removed after).
 *
 * Input: every folder under the path given that holds a file named
 * "metadata" is one trace; its other regular files are streams. The files
 * are their owner's (and the traced apps') to write, so they are hostile:
 * each is read whole (at most what a buffer can be), checked, and refused
 * in one line if it is not a buffer. A link to a file is followed only when
 * the file has the link's owner (`cp -rs` of a buffer folder, which LTTng's
 * crash test reads): root reading a user's folder never reads a file of
 * someone else's through that user's link. Links to folders are not
 * followed. The output is written as fs.h writes trace files (new inodes,
 * no link followed).
 */
#include "cli/cli.h"
#include "common/common.h"
#include "common/fs.h"
#include "ringbuffer/crash.h"
#include "ringbuffer/ringbuffer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef TRAWL_HAVE_VIEW
#include "view/view.h"
#endif

#define CRASH_MAX_DEPTH 16
#define CRASH_MAX_METADATA (64u << 20) /* bytes */

static const struct cli_option_doc opts_doc[] = {
	{"-x, --extract=DIR", "Write the trace the buffers hold to DIR (a new or empty folder) "
			      "instead of showing it."},
	{"-e, --viewer=CMD", "Show the trace with CMD (e.g. babeltrace2) instead of trawl's viewer."},
	{"-v, --verbose", "Say what each buffer file held."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

struct crash {
	int verbose;
	int out_root;      /* fd of the output folder */
	unsigned traces;   /* folders with a metadata file */
	uint64_t packets;  /* packets written */
	unsigned refused;  /* files that are not buffers */
};

/* Opens @name in @dir for reading: a regular file, or a link to a regular
 * file of the link's owner (the header says why). An fd, or a negative
 * errno (-EINVAL: not a regular file; -EPERM: a link to another owner's). */
static int crash_open(int dir, const char *name, struct stat *st)
{
	struct stat lst;
	int fd;

	if (fstatat(dir, name, &lst, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (!S_ISREG(lst.st_mode) && !S_ISLNK(lst.st_mode))
		return -EINVAL;
	if (S_ISLNK(lst.st_mode)) {
		/* Judged before it is opened: opening a device has effects
		 * (a tape rewinds), whoever's link leads there. */
		if (fstatat(dir, name, st, 0))
			return -errno;
		if (!S_ISREG(st->st_mode))
			return -EINVAL;
		if (st->st_uid != lst.st_uid)
			return -EPERM;
	}
	fd = openat(dir, name,
		    O_RDONLY | O_NONBLOCK | O_CLOEXEC | (S_ISLNK(lst.st_mode) ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return -errno;
	/* Checked again on what was opened: a link changed meanwhile is
	 * judged by the file it led to. */
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (S_ISLNK(lst.st_mode) && st->st_uid != lst.st_uid) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Whether @name in @dir is a file crash_open() would open. */
static int crash_is_file(int dir, const char *name)
{
	struct stat st;
	int fd = crash_open(dir, name, &st);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* The whole regular file @name in @dir, at most @max bytes, into *@buf
 * (the caller frees). Its size, or a negative errno. */
static ssize_t slurp(int dir, const char *name, size_t max, char **buf)
{
	struct stat st;
	size_t off = 0;
	ssize_t ret;
	int fd;

	*buf = NULL;
	fd = crash_open(dir, name, &st);
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > max) {
		ret = -EFBIG;
		goto out;
	}
	*buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!*buf) {
		ret = -ENOMEM;
		goto out;
	}
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + off, (size_t)st.st_size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* shrunk meanwhile: what was read */
		off += (size_t)n;
	}
	ret = (ssize_t)off;
out:
	close(fd);
	if (ret < 0) {
		free(*buf);
		*buf = NULL;
	}
	return ret;
}

static int emit_packet(void *arg, const void *pkt, size_t size)
{
	return trawl_write_all(*(int *)arg, pkt, size);
}

/* One stream file @name of the trace in @in, into @out_rel/@name. */
static void stream_extract(struct crash *c, int in, const char *in_path, const char *out_rel,
			   const char *name)
{
	char rel[PATH_MAX], where[PATH_MAX] = "";
	struct trawl_rb_crash_stats st;
	char *buf;
	ssize_t len;
	int fd, ret;

	len = slurp(in, name, TRAWL_RB_MAX_BUF + trawl_rb_ctrl_size(65536), &buf);
	if (len < 0) {
		fprintf(stderr, "trawl crash: %s/%s: %s\n", in_path, name,
			len == -EINVAL || len == -EFBIG ? "not a trawl buffer file"
			: len == -EPERM			? "a link to another owner's file: not followed"
							: strerror((int)-len));
		c->refused++;
		return;
	}
	/* Checked first (no output file for what is not a buffer), then walked
	 * again to write: the walk only reads and fills headers in the copy. */
	ret = trawl_rb_crash_packets(buf, (size_t)len, NULL, NULL, &st) == -EINVAL ? -EINVAL : 0;
	if (ret) {
		fprintf(stderr, "trawl crash: %s/%s: not a trawl buffer file (or a damaged one)\n",
			in_path, name);
		c->refused++;
		free(buf);
		return;
	}
	if (trawl_path_fmt(rel, sizeof(rel), "%s%s%s", out_rel, out_rel[0] ? "/" : "", name)) {
		fprintf(stderr, "trawl crash: %s/%s: path too long\n", in_path, name);
		c->refused++;
		free(buf);
		return;
	}
	fd = trawl_fs_file_create(c->out_root, rel, 0640, where, sizeof(where));
	if (fd < 0) {
		fprintf(stderr, "trawl crash: cannot write %s: %s\n", where[0] ? where : rel, strerror(-fd));
		c->refused++;
		free(buf);
		return;
	}
	ret = trawl_rb_crash_packets(buf, (size_t)len, emit_packet, &fd, &st);
	close(fd);
	free(buf);
	if (ret) {
		fprintf(stderr, "trawl crash: cannot write %s: %s\n", rel, strerror(-ret));
		c->refused++;
		return;
	}
	c->packets += st.packets;
	if (c->verbose)
		fprintf(stderr, "%s/%s: %llu packets (%llu cut), %llu unreadable, %u x %llu bytes%s\n",
			in_path, name, (unsigned long long)st.packets, (unsigned long long)st.partial,
			(unsigned long long)st.skipped, st.num_subbuf, (unsigned long long)st.subbuf_size,
			st.overwrite ? ", overwrite" : "");
}

/* The trace in folder @in (which holds "metadata"), into @out_rel. */
static void trace_extract(struct crash *c, int in, const char *in_path, const char *out_rel)
{
	char rel[PATH_MAX], *text;
	struct dirent *e;
	ssize_t len;
	DIR *d;
	int fd, dup_in;

	len = slurp(in, "metadata", CRASH_MAX_METADATA, &text);
	if (len < 0 || len < 9 || memcmp(text, "/* CTF 1.", 9)) {
		fprintf(stderr, "trawl crash: %s/metadata: not a CTF metadata file\n", in_path);
		c->refused++;
		free(text);
		return;
	}
	fd = trawl_path_fmt(rel, sizeof(rel), "%s%smetadata", out_rel, out_rel[0] ? "/" : "")
		     ? -ENAMETOOLONG
		     : trawl_fs_file_create(c->out_root, rel, 0640, NULL, 0);
	if (fd < 0 || trawl_write_all(fd, text, (size_t)len)) {
		fprintf(stderr, "trawl crash: cannot write %s: %s\n", rel, strerror(fd < 0 ? -fd : errno));
		c->refused++;
	}
	if (fd >= 0)
		close(fd);
	free(text);
	c->traces++;
	dup_in = openat(in, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = dup_in >= 0 ? fdopendir(dup_in) : NULL;
	if (!d) {
		if (dup_in >= 0)
			close(dup_in);
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata"))
			continue;
		/* Links are judged, and refused aloud, by stream_extract(). */
		if (e->d_type != DT_REG && e->d_type != DT_LNK && e->d_type != DT_UNKNOWN)
			continue;
		stream_extract(c, in, in_path, out_rel, e->d_name);
	}
	closedir(d);
}

/* Every trace under folder @in (@in_path for messages), @out_rel its place in the output. */
static void walk(struct crash *c, int in, const char *in_path, const char *out_rel, int depth)
{
	struct dirent *e;
	DIR *d;
	int fd;

	if (crash_is_file(in, "metadata")) {
		trace_extract(c, in, in_path, out_rel);
		return;
	}
	if (depth >= CRASH_MAX_DEPTH)
		return;
	fd = openat(in, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		char sub_in[PATH_MAX], sub_out[PATH_MAX];
		int sub;

		if (e->d_name[0] == '.')
			continue;
		sub = openat(in, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		if (snprintf(sub_in, sizeof(sub_in), "%s/%s", in_path, e->d_name) < (int)sizeof(sub_in) &&
		    snprintf(sub_out, sizeof(sub_out), "%s%s%s", out_rel, out_rel[0] ? "/" : "", e->d_name) <
			    (int)sizeof(sub_out))
			walk(c, sub, sub_in, sub_out, depth + 1);
		close(sub);
	}
	closedir(d);
}

/* rm -r of the temporary folder @path (made by us, under our own name). */
static int rm_rf_at(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return unlinkat(dir, name, 0);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rm_rf_at(dirfd(d), e->d_name);
	closedir(d);
	return unlinkat(dir, name, AT_REMOVEDIR);
}

/* Shows the trace in @dir with @viewer (NULL: trawl's own). The exit status. */
static int show(const char *viewer, const char *dir)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return cli_error(-errno, "crash: %s", strerror(errno));
	if (pid == 0) {
		if (viewer) {
			execlp("/bin/sh", "sh", "-c", "exec $0 \"$1\"", viewer, dir, (char *)NULL);
			_exit(127);
		}
#ifdef TRAWL_HAVE_VIEW
		{
			char *args[] = {(char *)"view", (char *)dir, NULL};

			_exit(trawl_view_main(2, args));
		}
#else
		execlp("babeltrace2", "babeltrace2", dir, (char *)NULL);
		_exit(127);
#endif
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return cli_error(-ENOENT, "crash: cannot run viewer '%s'", viewer ? viewer : "babeltrace2");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"extract", required_argument, NULL, 'x'},
		{"viewer", required_argument, NULL, 'e'},
		{"verbose", no_argument, NULL, 'v'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	const char *extract = NULL, *viewer = NULL, *input;
	char tmp[PATH_MAX] = "", where[PATH_MAX] = "";
	struct crash c = {0};
	int opt, in, ret = 0;

	while ((opt = getopt_long(argc, argv, "hx:e:v", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			cli_help_print(&cli_cmd_crash);
			return 0;
		case 'x':
			extract = optarg;
			break;
		case 'e':
			viewer = optarg;
			break;
		case 'v':
			c.verbose = 1;
			break;
		default:
			return cli_usage(&cli_cmd_crash, "bad option");
		}
	}
	if (argc - optind != 1)
		return cli_usage(&cli_cmd_crash, "give one folder: the --shm-path of the session");
	input = argv[optind];
	in = open(input, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (in < 0)
		return cli_error(-errno, "crash: cannot open folder %s: %s", input, strerror(errno));
	if (!extract) {
		const char *t = getenv("TMPDIR");

		int err = trawl_path_fmt(tmp, sizeof(tmp), "%s/trawl-crash-XXXXXX", t && t[0] == '/' ? t : "/tmp");

		if (!err && !mkdtemp(tmp))
			err = -errno;
		if (err) {
			tmp[0] = '\0';
			close(in);
			return cli_error(err, "crash: cannot make a temporary folder: %s", strerror(-err));
		}
	}
	c.out_root = trawl_fs_dir_open(AT_FDCWD, extract ? extract : tmp, TRAWL_FS_CREATE, 0750, where,
				       sizeof(where));
	if (c.out_root < 0) {
		ret = cli_error(c.out_root, "crash: cannot make folder %s: %s", where[0] ? where : extract,
				strerror(-c.out_root));
		goto out;
	}
	walk(&c, in, input, "", 0);
	close(c.out_root);
	if (!c.traces) {
		ret = cli_error(-ENOENT, "crash: no trace buffers under %s (no metadata file found)", input);
		goto out;
	}
	if (!extract)
		ret = show(viewer, tmp);
	if (!ret && c.refused)
		ret = cli_error(-EINVAL, "crash: %u file(s) could not be read", c.refused);
out:
	close(in);
	if (tmp[0])
		rm_rf_at(AT_FDCWD, tmp);
	return ret;
}

const struct cli_cmd cli_cmd_crash = {
	.name = "crash",
	.summary = "Read the buffers of a crashed session (--shm-path)",
	.synopsis = "[-x DIR | -e CMD] [-v] SHM_PATH",
	.description = "Reads the user-space buffer files a session created with --shm-path "
		       "left under SHM_PATH after the traced application or the daemons died, "
		       "including the packets that were being written, and shows them as `trawl "
		       "view` does, or writes them as a CTF trace to the folder -x names "
		       "(LTTng's lttng-crash).",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_REFUSED,
};
