/* SPDX-License-Identifier: MIT */
/*
 * load.c - where session files are found and how they are read, as
 * LTTng 2.13's config_load_session(): a file, or the *.lttng files of a
 * folder (here in name order, so a load is the same each time); without a
 * path the user's folder then the system's; for a daemon that starts, the
 * "auto" folders, each only if its owner is the daemon's user (or the
 * daemon is root's), so a user's daemon does not try root's kernel
 * sessions at every start.
 *
 * Every file is read by this process, as the user it runs as: the daemon
 * receives commands, never a path (docs/SECURITY.md).
 */
#include "common/common.h"
#include "config/config.h"
#include "config/model.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYSTEM_DIR "/etc/lttng/sessions"
#define AUTO_DIR "auto"

int trawl_config_home_dir(char *buf, size_t len)
{
	const char *home = getenv("LTTNG_HOME");

	if (!home || home[0] != '/')
		home = getenv("HOME");
	if (!home || home[0] != '/') {
		struct passwd *pw = getpwuid(getuid());

		if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/')
			return -ENOENT;
		home = pw->pw_dir;
	}
	return trawl_path_fmt(buf, len, "%s/.lttng/sessions", home);
}

/* The whole of regular file @path into a malloc'd *@buf. */
static int read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	size_t got = 0;
	char *b;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), ret;

	if (fd < 0) {
		ret = -errno;
		trawl_msg_fmt(err, errlen, "cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		trawl_msg_fmt(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	if (st.st_size > (off_t)TRAWL_CONFIG_MAX_BYTES) {
		close(fd);
		trawl_msg_fmt(err, errlen, "%s: larger than %u MiB", path,
			      TRAWL_CONFIG_MAX_BYTES >> 20);
		return -EFBIG;
	}
	b = malloc((size_t)st.st_size + 1);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	/* The size is the stat's: a file that grows meanwhile is read as it was. */
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, b + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			free(b);
			close(fd);
			trawl_msg_fmt(err, errlen, "cannot read %s: %s", path, strerror(-ret));
			return ret;
		}
		got += (size_t)n;
	}
	close(fd);
	b[got] = '\0';
	*buf = b;
	*len = got;
	return 0;
}

/* Sessions of file @path: all of them, or @o->session only (-ENOENT: not in it). */
static int load_file(struct trawl_ctl *ctl, const char *path,
		     const struct trawl_config_load_opts *o, size_t *loaded, char *err,
		     size_t errlen)
{
	struct trawl_config_doc *doc;
	size_t len = 0, i, found = 0;
	char *buf = NULL;
	int ret = read_file(path, &buf, &len, err, errlen);

	if (ret)
		return ret;
	ret = trawl_config_doc_parse(buf, len, path, &doc, err, errlen);
	free(buf);
	if (ret)
		return ret;
	for (i = 0; i < trawl_config_doc_count(doc) && !ret; i++) {
		if (o->session && strcmp(o->session, trawl_config_doc_name(doc, i)))
			continue;
		ret = trawl_config_doc_apply(ctl, doc, i, o, err, errlen);
		if (!ret)
			(*loaded)++;
		found = 1;
		if (o->session)
			break;
	}
	trawl_config_doc_destroy(doc);
	return ret ? ret : found || !o->session ? 0 : -ENOENT;
}

static int is_session_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name), e = strlen(TRAWL_CONFIG_EXT);

	return n > e && !strcmp(d->d_name + n - e, TRAWL_CONFIG_EXT);
}

/*
 * A file or a folder's *.lttng files. With @o->session: stops where it is
 * found (-ENOENT: in none). -ENOENT too when @path does not exist.
 */
static int load_path(struct trawl_ctl *ctl, const char *path,
		     const struct trawl_config_load_opts *o, size_t *loaded, char *err,
		     size_t errlen)
{
	struct dirent **ents;
	struct stat st;
	int nr, i, ret = -ENOENT;

	if (stat(path, &st)) {
		ret = -errno;
		trawl_msg_fmt(err, errlen, "cannot load from %s: %s", path, strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(st.st_mode)) {
		ret = load_file(ctl, path, o, loaded, err, errlen);
		goto out;
	}
	nr = scandir(path, &ents, is_session_file, alphasort);
	if (nr < 0) {
		ret = -errno;
		trawl_msg_fmt(err, errlen, "cannot read folder %s: %s", path, strerror(-ret));
		return ret;
	}
	/* With a session to find, on while it is not found; else on while all goes well. */
	ret = o->session ? -ENOENT : 0;
	for (i = 0; i < nr; i++) {
		char file[4096];

		if (ret == (o->session ? -ENOENT : 0) &&
		    /* as LTTng, a path too long is passed over */
		    !trawl_path_fmt(file, sizeof(file), "%s/%s", path, ents[i]->d_name))
			ret = load_file(ctl, file, o, loaded, err, errlen);
		free(ents[i]);
	}
	free(ents);
out:
	if (ret == -ENOENT && o->session && !err[0])
		trawl_msg_fmt(err, errlen, "session %s not found in %s", o->session, path);
	return ret;
}

static int load(struct trawl_ctl *ctl, const char *path, const struct trawl_config_load_opts *o,
		size_t *loaded, char *err, size_t errlen)
{
	static const struct trawl_config_load_opts all;
	char home[4096];
	size_t n = 0;
	int ret, found = 0;

	if (!o)
		o = &all;
	if (!loaded)
		loaded = &n;
	*loaded = 0;
	err[0] = '\0';
	if (path)
		return load_path(ctl, path, o, loaded, err, errlen);
	/* The user's folder, then the system's: a session may be in either. */
	ret = trawl_config_home_dir(home, sizeof(home));
	if (!ret) {
		ret = access(home, F_OK) ? -ENOENT : load_path(ctl, home, o, loaded, err, errlen);
		if (ret && ret != -ENOENT)
			return ret;
		found = !ret;
	}
	if (!(found && o->session)) {
		ret = access(SYSTEM_DIR, F_OK) ? -ENOENT
					       : load_path(ctl, SYSTEM_DIR, o, loaded, err, errlen);
		if (ret && ret != -ENOENT)
			return ret;
		found |= !ret;
	}
	if (o->session && !found) {
		trawl_msg_fmt(err, errlen, "session %s not found in %s or %s", o->session, home,
			      SYSTEM_DIR);
		return -ENOENT;
	}
	return 0;
}

int trawl_config_load(struct trawl_ctl *ctl, const char *path,
		      const struct trawl_config_load_opts *o, size_t *loaded, char *err,
		      size_t errlen)
{
	int ret = load(ctl, path, o, loaded, err, errlen);

	if (ret)
		cfg_one_line(err); /* a folder's file names are anyone's text */
	return ret;
}

/* LTTng's rule for an autoload folder: ours (or we are root). */
static int owned_by_us(const char *path)
{
	struct stat st;

	return getuid() == 0 || (stat(path, &st) == 0 && st.st_uid == getuid());
}

/* LTTng's autoload folders, "" where there is none. */
static void autoload_dirs(char dirs[2][4096])
{
	if (trawl_config_home_dir(dirs[0], 4096) ||
	    trawl_path_fmt(dirs[0] + strlen(dirs[0]), 4096 - strlen(dirs[0]), "/" AUTO_DIR))
		dirs[0][0] = '\0';
	trawl_path_fmt(dirs[1], 4096, "%s", SYSTEM_DIR "/" AUTO_DIR);
}

int trawl_config_autoload_pending(void)
{
	char dirs[2][4096];
	size_t i;

	autoload_dirs(dirs);
	for (i = 0; i < 2; i++)
		if (dirs[i][0] && !access(dirs[i], F_OK) && owned_by_us(dirs[i]))
			return 1;
	return 0;
}

int trawl_config_autoload(struct trawl_ctl *ctl, const char *path, char *err, size_t errlen)
{
	char dirs[2][4096];
	size_t i, n;
	int ret;

	err[0] = '\0';
	if (path)
		return trawl_config_load(ctl, path, NULL, &n, err, errlen);
	autoload_dirs(dirs);
	for (i = 0; i < 2; i++) {
		if (!dirs[i][0] || access(dirs[i], F_OK) || !owned_by_us(dirs[i]))
			continue;
		ret = trawl_config_load(ctl, dirs[i], NULL, &n, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}
