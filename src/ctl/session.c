/* SPDX-License-Identifier: MIT */
/*
 * session.c - sessions in libtrawl-ctl: the session attribute object,
 * create, destroy, start, stop, snapshot, and the user's current session.
 *
 * What depends on the caller, not the daemon, is settled here: a relative
 * output folder is made absolute against the caller's current directory,
 * the default name and output carry the caller's clock and $HOME.
 */
#include "common/common.h"
#include "common/fs.h"
#include "ctl/ctl-int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct trawl_ctl_session_attr {
	char name[TRAWL_CTL_NAME_MAX];     /* "" = automatic */
	char output[TRAWL_CTL_OUTPUT_MAX]; /* absolute folder or URL; "" = default */
	int no_output;
	int snapshot;
	uint32_t live_timer_us;            /* 0 = not live */
};

TRAWL_EXPORT struct trawl_ctl_session_attr *trawl_ctl_session_attr_create(void)
{
	return calloc(1, sizeof(struct trawl_ctl_session_attr));
}

TRAWL_EXPORT void trawl_ctl_session_attr_destroy(struct trawl_ctl_session_attr *attr)
{
	free(attr);
}

TRAWL_EXPORT int trawl_ctl_session_attr_set_name(struct trawl_ctl_session_attr *attr,
						 const char *name)
{
	if (name && strlen(name) >= sizeof(attr->name))
		return -ENAMETOOLONG;
	if (name && !trawl_ctl_name_valid(name))
		return -EINVAL;
	return ctl_copy_str(attr->name, sizeof(attr->name), name);
}

int ctl_output_resolve(char *dst, size_t len, const char *output)
{
	char cwd[TRAWL_CTL_OUTPUT_MAX];
	int n;

	if (!output)
		return ctl_copy_str(dst, len, NULL);
	if (!strncmp(output, "file://", 7))
		output += 7;
	if (!output[0])
		return -EINVAL;
	if (!strncmp(output, "net://", 6) || !strncmp(output, "net6://", 7) || output[0] == '/')
		return ctl_copy_str(dst, len, output);
	if (strstr(output, "://"))
		return -EINVAL; /* a scheme we do not know, not a folder named so */
	/* The daemon may run elsewhere: it gets an absolute path. */
	if (!getcwd(cwd, sizeof(cwd)))
		return errno == ERANGE ? -ENAMETOOLONG : -errno;
	n = snprintf(dst, len, "%s/%s", cwd, output);
	if (n < 0 || (size_t)n >= len) {
		dst[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

TRAWL_EXPORT int trawl_ctl_session_attr_set_output(struct trawl_ctl_session_attr *attr,
						   const char *output)
{
	return ctl_output_resolve(attr->output, sizeof(attr->output), output);
}

TRAWL_EXPORT int trawl_ctl_session_attr_set_no_output(struct trawl_ctl_session_attr *attr,
						      int no_output)
{
	attr->no_output = !!no_output;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_session_attr_set_snapshot(struct trawl_ctl_session_attr *attr,
						     int snapshot)
{
	attr->snapshot = !!snapshot;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_session_attr_set_live(struct trawl_ctl_session_attr *attr,
						 uint32_t timer_us)
{
	attr->live_timer_us = timer_us;
	return 0;
}

static int default_output(const char *name, int auto_name, char *buf, size_t len)
{
	char dir[PATH_MAX];
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int n = trawl_traces_dir(dir, sizeof(dir));

	if (n)
		return n;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	/* An auto name already carries the date, as LTTng's does. */
	if (auto_name)
		n = snprintf(buf, len, "%s/%s", dir, name);
	else
		n = snprintf(buf, len, "%s/%s-%s", dir, name, stamp);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The create request for @a: name, flags, output with the defaults filled in. */
static int create_req(const struct trawl_ctl_session_attr *a, struct trawl_ctl_wire_req *r)
{
	int auto_name = !a->name[0];

	ctl_req_init(r);
	if (auto_name) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(r->name, sizeof(r->name), "auto-%Y%m%d-%H%M%S", &tm);
	} else {
		memcpy(r->name, a->name, sizeof(r->name));
	}
	r->flags = (a->snapshot ? TRAWL_CTL_F_SNAPSHOT : 0) |
		   (a->live_timer_us ? TRAWL_CTL_F_LIVE : 0) |
		   (a->no_output ? TRAWL_CTL_F_NO_OUTPUT : 0);
	r->live_timer_us = a->live_timer_us;
	if (a->output[0])
		return ctl_copy_str(r->output, sizeof(r->output), a->output);
	if (a->live_timer_us) /* as LTTng: a live session streams to a local relayd */
		return ctl_copy_str(r->output, sizeof(r->output), "net://127.0.0.1");
	if (a->no_output)
		return 0;
	return default_output(r->name, auto_name, r->output, sizeof(r->output));
}

TRAWL_EXPORT int trawl_ctl_session_create(struct trawl_ctl *ctl,
					  const struct trawl_ctl_session_attr *attr,
					  struct trawl_ctl_list **out)
{
	static const struct trawl_ctl_session_attr defaults;
	struct trawl_ctl_wire_req r;
	int ret;

	ret = create_req(attr ? attr : &defaults, &r);
	if (ret)
		return ret;
	return ctl_transact(ctl, TRAWL_CTL_CMD_CREATE, &r, out);
}

TRAWL_EXPORT int trawl_ctl_session_destroy(struct trawl_ctl *ctl, const char *session)
{
	return ctl_session_cmd(ctl, TRAWL_CTL_CMD_DESTROY, session, 0);
}

TRAWL_EXPORT int trawl_ctl_session_destroy_all(struct trawl_ctl *ctl)
{
	return ctl_session_cmd(ctl, TRAWL_CTL_CMD_DESTROY, NULL, TRAWL_CTL_F_ALL);
}

TRAWL_EXPORT int trawl_ctl_session_destroy_archived(struct trawl_ctl *ctl, const char *session,
						    struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_req r;

	ctl_req_init(&r);
	if (!session)
		r.flags = TRAWL_CTL_F_ALL;
	else if (ctl_copy_str(r.session, sizeof(r.session), session))
		return -ENAMETOOLONG;
	return ctl_transact(ctl, TRAWL_CTL_CMD_DESTROY, &r, out);
}

TRAWL_EXPORT int trawl_ctl_session_start(struct trawl_ctl *ctl, const char *session)
{
	return ctl_session_cmd(ctl, TRAWL_CTL_CMD_START, session, 0);
}

TRAWL_EXPORT int trawl_ctl_session_stop(struct trawl_ctl *ctl, const char *session)
{
	return ctl_session_cmd(ctl, TRAWL_CTL_CMD_STOP, session, 0);
}

TRAWL_EXPORT int trawl_ctl_session_set_shm_path(struct trawl_ctl *ctl, const char *session,
						const char *path)
{
	struct trawl_ctl_wire_req r;
	int ret;

	if (!path || !path[0] || strstr(path, "://"))
		return -EINVAL;
	ctl_req_init(&r);
	if (ctl_copy_str(r.session, sizeof(r.session), session))
		return -ENAMETOOLONG;
	ret = ctl_output_resolve(r.output, sizeof(r.output), path);
	if (ret)
		return ret;
	return ctl_transact(ctl, TRAWL_CTL_CMD_SET_SHM_PATH, &r, NULL);
}

TRAWL_EXPORT int trawl_ctl_regenerate_metadata(struct trawl_ctl *ctl, const char *session)
{
	return ctl_session_cmd(ctl, TRAWL_CTL_CMD_REGENERATE_METADATA, session, 0);
}

TRAWL_EXPORT int trawl_ctl_regenerate_statedump(struct trawl_ctl *ctl, const char *session)
{
	return ctl_session_cmd(ctl, TRAWL_CTL_CMD_REGENERATE_STATEDUMP, session, 0);
}

TRAWL_EXPORT int trawl_ctl_session_clear(struct trawl_ctl *ctl, const char *session)
{
	return ctl_session_cmd(ctl, TRAWL_CTL_CMD_CLEAR, session, 0);
}

TRAWL_EXPORT int trawl_ctl_session_rotate(struct trawl_ctl *ctl, const char *session,
					  struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_req r;

	ctl_req_init(&r);
	if (ctl_copy_str(r.session, sizeof(r.session), session))
		return -ENAMETOOLONG;
	return ctl_transact(ctl, TRAWL_CTL_CMD_ROTATE, &r, out);
}

static int rotation_cmd(struct trawl_ctl *ctl, uint16_t cmd, const char *session,
			enum trawl_ctl_rotation_schedule kind, uint64_t value)
{
	struct trawl_ctl_wire_req r;

	if (kind != TRAWL_CTL_ROTATION_TIMER && kind != TRAWL_CTL_ROTATION_SIZE)
		return -EINVAL;
	ctl_req_init(&r);
	if (ctl_copy_str(r.session, sizeof(r.session), session))
		return -ENAMETOOLONG;
	r.rotation_kind = (uint32_t)kind;
	r.rotation_value = value;
	return ctl_transact(ctl, cmd, &r, NULL);
}

TRAWL_EXPORT int trawl_ctl_rotation_schedule_add(struct trawl_ctl *ctl, const char *session,
						 enum trawl_ctl_rotation_schedule kind,
						 uint64_t value)
{
	if (!value)
		return -EINVAL;
	return rotation_cmd(ctl, TRAWL_CTL_CMD_ROTATION_SET, session, kind, value);
}

TRAWL_EXPORT int trawl_ctl_rotation_schedule_remove(struct trawl_ctl *ctl, const char *session,
						    enum trawl_ctl_rotation_schedule kind)
{
	return rotation_cmd(ctl, TRAWL_CTL_CMD_ROTATION_UNSET, session, kind, 0);
}

/* ---- the current session ($HOME/.trawlrc: "session=NAME") ---- */

/*
 * $HOME as a folder fd, walked as common/fs.h does it: root may run trawl
 * with another user's HOME (sudo keeps it on some systems), so nothing here
 * follows that user's links, blocks on their FIFO or writes through them.
 */
static int rc_dir(void)
{
	const char *home = getenv("HOME");

	if (!home || home[0] != '/')
		return -ENOENT;
	return trawl_fs_dir_open(AT_FDCWD, home, 0, 0, NULL, 0);
}

TRAWL_EXPORT int trawl_ctl_current_session_get(char *buf, size_t len)
{
	char line[TRAWL_CTL_NAME_MAX + 16], cur[TRAWL_CTL_NAME_MAX] = "";
	int dir = rc_dir(), fd;
	FILE *f;

	if (dir < 0)
		return -ENOENT;
	fd = trawl_fs_file_read(dir, ".trawlrc", NULL, 0);
	close(dir);
	if (fd < 0)
		return -ENOENT;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOENT;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "session=", 8) && trawl_ctl_name_valid(line + 8))
			memcpy(cur, line + 8, strlen(line + 8) + 1);
	}
	fclose(f);
	if (!cur[0])
		return -ENOENT;
	return ctl_copy_str(buf, len, cur) ? -ERANGE : 0;
}

TRAWL_EXPORT int trawl_ctl_current_session_set(const char *name)
{
	char line[TRAWL_CTL_NAME_MAX + 16];
	int dir, fd, n;

	if (!trawl_ctl_name_valid(name))
		return -EINVAL;
	/*
	 * Written aside, then renamed over it, so a reader never sees half a
	 * file; a link put at ~/.trawlrc or at the file written aside is
	 * replaced, never written through.
	 */
	dir = rc_dir();
	if (dir < 0)
		return dir;
	n = snprintf(line, sizeof(line), "session=%s\n", name);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		close(dir);
		return -ENAMETOOLONG;
	}
	fd = trawl_fs_replace(dir, ".trawlrc", line, (size_t)n, 0644);
	close(dir);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

TRAWL_EXPORT int trawl_ctl_current_session_clear(const char *name)
{
	char cur[TRAWL_CTL_NAME_MAX];
	int dir, ret;

	if (trawl_ctl_current_session_get(cur, sizeof(cur)))
		return 0;
	if (name && strcmp(cur, name))
		return 0;
	dir = rc_dir();
	if (dir < 0)
		return dir;
	ret = unlinkat(dir, ".trawlrc", 0) ? -errno : 0;
	close(dir);
	return ret;
}
