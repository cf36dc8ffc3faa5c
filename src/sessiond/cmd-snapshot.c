/* SPDX-License-Identifier: MIT */
/*
 * cmd-snapshot.c - snapshots of flight-recorder sessions, as LTTng 2.13
 * has them: a session's snapshot output (add, del, list: at most one), and
 * record, to that output or to a URL given for one snapshot.
 *
 * A snapshot goes to OUTPUT/NAME-YYYYMMDD-HHMMSS-N: NAME the output's
 * (snapshot-ID, or as named, or the record's -n), N the session's count of
 * snapshots before it. With a max size, each stream gives its newest
 * packets, as many of each as fit counting every packet as a whole
 * sub-buffer (LTTng's get_session_nb_packets_per_stream()).
 *
 * An output may be trawl-relayd (net://HOST[:CTRL[:DATA]]), as LTTng's:
 * the snapshot then goes to NAME-YYYYMMDD-HHMMSS-N in the session's folder
 * on relayd (HOSTNAME/SESSION-CREATED/, relayd/proto.h's HELLO), each
 * trace over its own connection (consumerd/output.h), named by the
 * session's token as a streaming session's are. Such a session streams
 * nothing between snapshots (its domains' output is the URL, which the
 * consumer takes as "no files").
 *
 * Every string comes from the client: names are checked by the protocol
 * (trawl_ctl_req_check()), folders here (absolute, no control character,
 * room for what goes under them); folders are created as the session's
 * owner (sd_mkdir_checked_as()), the data written by the domains' consumers, which
 * run as the owner too.
 */
#include "common/common.h"
#include "common/fs.h"
#include "consumerd/output.h"
#include "relayd/proto.h"
#include "relayd/url.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* Room left under a snapshot folder for the domains' subfolders
 * (ust/uid/UID/64-bit, ust/pid/NAME-PID-DATE/...): the consumer's paths
 * hold TRAWL_CTL_PATH_MAX bytes. */
#define SNAP_SUBDIR_ROOM 400

void sd_snapshot_default_output(struct sd_session *s)
{
	struct sd_snapshot_output *o = &s->snap_out;

	/* (the session's output fits: both are TRAWL_CTL_PATH_MAX) */
	if (trawl_path_fmt(o->path, sizeof(o->path), "%s", s->output) ||
	    trawl_path_fmt(o->name, sizeof(o->name), "snapshot-%" PRIu32, s->snap_last_id + 1)) {
		memset(o, 0, sizeof(*o));
		return;
	}
	o->id = ++s->snap_last_id;
	o->max_size = 0;
}

/* The session @req names, if it is a snapshot session; else NULL, @r failed. */
static struct sd_session *snapshot_session(const struct trawl_ctl_wire_req *req,
					   const struct sd_peer *p, struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);

	/* LTTng's rule: a session that writes no trace (--snapshot, or --no-output) */
	if (s && !s->snapshot && s->output[0]) {
		sd_fail(r, -EINVAL, "session '%s' is not in snapshot mode: snapshot commands "
				    "apply to sessions created with --snapshot or --no-output", s->name);
		return NULL;
	}
	return s;
}

int sd_snapshot_relay_output(char *buf, size_t len, const char *url, struct sd_reply *r)
{
	struct trawl_relay_url u;
	char why[128];

	if (trawl_relay_url_parse(url, TRAWL_RELAY_DEFAULT_CTRL_PORT, &u, why, sizeof(why)) ||
	    u.tcp)
		return sd_fail(r, -EINVAL, "bad URL '%s': %s", url,
			       u.tcp ? "expected net://HOST[:CTRLPORT[:DATAPORT]]" : why);
	if (trawl_relay_url_format(&u, buf, len))
		return sd_fail(r, -ENAMETOOLONG, "URL '%s' too long", url);
	return 0;
}

/*
 * Whether @url (from the client) can be a snapshot output; else @r failed.
 * @path gets what the output is: the folder, or the normalized URL.
 */
static int output_ok(const char *url, const char *data_url, char *path, size_t len,
		     struct sd_reply *r)
{
	size_t i, n = strlen(url);

	if (data_url[0])
		return !sd_fail(r, -EOPNOTSUPP, "snapshot outputs to trawl-relayd are one URL, "
						"net://HOST[:CTRLPORT[:DATAPORT]]: -C/-D are not "
						"supported by trawl yet");
	if (sd_relay_is_url(url))
		return !sd_snapshot_relay_output(path, len, url, r);
	if (url[0] != '/')
		return !sd_fail(r, -EINVAL, "a snapshot output is an absolute folder, not '%s'",
				url);
	for (i = 0; i < n; i++)
		if ((unsigned char)url[i] < 0x20 || url[i] == 0x7f)
			return !sd_fail(r, -EINVAL, "snapshot output path holds a control character "
						    "(byte 0x%02x at offset %zu)",
					(unsigned char)url[i], i);
	if (n + TRAWL_CTL_NAME_MAX + 32 + SNAP_SUBDIR_ROOM >= TRAWL_CTL_PATH_MAX)
		return !sd_fail(r, -ENAMETOOLONG, "snapshot output path too long (at most %d "
						  "bytes)", TRAWL_CTL_PATH_MAX - TRAWL_CTL_NAME_MAX -
							     32 - SNAP_SUBDIR_ROOM - 1);
	return !trawl_path_fmt(path, len, "%s", url) ||
	       !sd_fail(r, -ENAMETOOLONG, "snapshot output path too long");
}

static void output_rec(struct sd_reply *r, const struct sd_snapshot_output *o)
{
	struct trawl_ctl_wire_snapshot_output body = {.id = o->id, .max_size = o->max_size};
	const char *strs[] = {o->name, o->path, ""};

	sd_reply_rec(r, TRAWL_CTL_ITEM_SNAPSHOT_OUTPUT, &body, strs);
}

void sd_cmd_snapshot_output(uint16_t cmd, const struct trawl_ctl_wire_req *req,
			    const struct sd_peer *p, struct sd_reply *r)
{
	struct sd_session *s = snapshot_session(req, p, r);
	struct sd_snapshot_output *o;

	if (!s)
		return;
	o = &s->snap_out;
	switch (cmd) {
	case TRAWL_CTL_CMD_SNAPSHOT_ADD_OUTPUT:
		if (o->id)
			return (void)sd_fail(r, -EEXIST, "snapshot output already exists: session "
							 "'%s' has %s (a session has one at most, "
							 "as in LTTng 2.13)", s->name, o->name);
		if (!output_ok(req->output, req->target, o->path, sizeof(o->path), r)) {
			memset(o, 0, sizeof(*o));
			return;
		}
		/* (the request's strings fit: checked NUL-terminated in smaller arrays) */
		if (req->name[0] ? trawl_path_fmt(o->name, sizeof(o->name), "%s", req->name)
				 : trawl_path_fmt(o->name, sizeof(o->name), "snapshot-%" PRIu32,
						  s->snap_last_id + 1)) {
			memset(o, 0, sizeof(*o));
			return (void)sd_fail(r, -ENAMETOOLONG, "snapshot output name or path too long");
		}
		o->id = ++s->snap_last_id;
		o->max_size = req->max_size == TRAWL_CTL_SIZE_UNSET ? 0 : req->max_size;
		output_rec(r, o);
		sd_log("session %s: snapshot output %s added (%s)", s->name, o->name, o->path);
		return;
	case TRAWL_CTL_CMD_SNAPSHOT_DEL_OUTPUT:
		/* LTTng matches a name by its prefix (strncmp over the given
		 * length); we match it whole */
		if (!o->id || (req->value && req->value != o->id) ||
		    (!req->value && strcmp(req->name, o->name))) {
			if (req->value)
				return (void)sd_fail(r, -EINVAL, "session '%s' has no snapshot output "
								 "with id %" PRIu32, s->name, req->value);
			return (void)sd_fail(r, -EINVAL, "session '%s' has no snapshot output named "
							 "'%s'", s->name, req->name);
		}
		sd_log("session %s: snapshot output %s deleted", s->name, o->name);
		memset(o, 0, sizeof(*o));
		return;
	default: /* LIST_OUTPUT */
		if (o->id)
			output_rec(r, o);
		return;
	}
}

/*
 * LTTng's packets per stream for @max_size bytes: 0 for all; -1 when one
 * packet of each stream does not fit (or a domain cannot bound its
 * snapshots: -2).
 */
static int64_t packets_per_stream(struct sd_session *s, uint64_t max_size, uint64_t *first)
{
	uint64_t left = max_size, nr = 0, one;
	int i;

	*first = 0;
	if (!max_size)
		return 0;
	for (i = 1; i < SD_NR_DOMAINS; i++)
		if (s->dom[i].ops && s->dom[i].ds && !s->dom[i].ops->snapshot_one_more)
			return -2;
	for (;;) {
		one = 0;
		for (i = 1; i < SD_NR_DOMAINS; i++)
			if (s->dom[i].ops && s->dom[i].ds)
				one += s->dom[i].ops->snapshot_one_more(s->dom[i].ds, nr);
		if (!nr)
			*first = one;
		if (!one || one > left)
			break;
		left -= one;
		nr++;
	}
	return !nr && *first ? -1 : (int64_t)nr;
}

/* A snapshot under way (sd_op_domains()'s argument). */
struct snapshot_job {
	uint64_t nr_packets; /* of each stream, 0: all */
	int relay;           /* dir is a relay destination (consumerd/output.h) */
	char dir[TRAWL_CTL_PATH_MAX];   /* where the domains write it */
	char shown[TRAWL_CTL_PATH_MAX]; /* what the reply and the log say: dir, or on relayd */
};

static int snapshot_step(struct sd_session *s, int i, void *arg, struct trawl_domain_err *err)
{
	const struct snapshot_job *j = arg;

	return s->dom[i].ops->snapshot_record(s->dom[i].ds, j->dir, j->nr_packets, err);
}

static void snapshot_end(struct sd_session *s, int i, int ret, const struct trawl_domain_err *err,
			 void *arg, struct sd_reply *r)
{
	const struct snapshot_job *j = arg;
	struct trawl_ctl_wire_snapshot body = {.seq = s->snapshot_seq + 1};
	const char *strs[] = {s->name, j->shown};

	if (ret && !i)
		return (void)sd_fail(r, ret, "%s", err->msg); /* its folder (snapshot_before()) */
	if (ret) {
		sd_fail(r, ret, "snapshot of %s buffers failed: %s", sd_domain_name((uint32_t)i),
			err->msg[0] ? err->msg : strerror(-ret));
		return;
	}
	sd_reply_rec(r, TRAWL_CTL_ITEM_SNAPSHOT, &body, strs);
	sd_log("session %s: snapshot %u recorded in %s", s->name, s->snapshot_seq + 1, j->shown);
	s->snapshot_seq++;
}

/* The snapshot's folder, made first by a child as the owner (awaited in the loop). */
static int snapshot_before(struct sd_session *s, void *arg, struct sd_owner_job *job, char *what,
			   size_t len)
{
	const struct snapshot_job *j = arg;

	if (j->relay)
		return 0; /* relayd makes its folders */
	trawl_msg_fmt(what, len, "cannot create %s", j->dir);
	return sd_mkdir_checked_begin(job, j->dir, s->uid, s->gid);
}

static const struct sd_domains_cmd snapshot_cmd = {
	.what = "a snapshot record",
	.step = snapshot_step,
	.end = snapshot_end,
	.before = snapshot_before,
};

/*
 * A snapshot to relayd: the domains' destination (j->dir: the session's
 * folder there, named by its name, host, creation time and token, then
 * NAME-STAMP-N), and where it is as LTTng would say it. 0, or -errno with
 * @r failed (or not, for a name too long: the caller says it).
 */
static int relay_dir(struct sd_session *s, const struct sd_snapshot_output *o, const char *stamp,
		     struct snapshot_job *j, struct sd_reply *r)
{
	char spec[TRAWL_CTL_PATH_MAX], rel[TRAWL_CTL_NAME_MAX + 48];
	int i, ret;

	for (i = 1; i < SD_NR_DOMAINS; i++)
		if (s->dom[i].ops && s->dom[i].ds && s->dom[i].ops->type == TRAWL_CTL_DOMAIN_KERNEL)
			return sd_fail(r, -EOPNOTSUPP, "snapshots of the kernel domain to trawl-relayd "
						       "are not supported by trawl yet (session '%s')",
				       s->name);
	if (!trawl_relay_name_ok(s->name) || !trawl_relay_name_ok(o->name))
		return sd_fail(r, -EINVAL, "session name '%s' or snapshot name '%s' cannot name a "
					   "folder on trawl-relayd", s->name, o->name);
	if (!s->hostname[0]) {
		gethostname(s->hostname, sizeof(s->hostname) - 1);
		if (!trawl_relay_name_ok(s->hostname))
			snprintf(s->hostname, sizeof(s->hostname), "localhost");
	}
	/* names the session on relayd with its name and host (relay.c) */
	while (!s->relay_token)
		if (getrandom(&s->relay_token, sizeof(s->relay_token), 0) != sizeof(s->relay_token))
			s->relay_token = (uint64_t)s->created << 20 ^ (uint64_t)getpid() << 8 ^ s->id;
	ret = trawl_output_relay_spec(spec, sizeof(spec), o->path, s->name, s->hostname,
				      s->created, 0, s->relay_token);
	if (!ret)
		ret = trawl_path_fmt(rel, sizeof(rel), "%s-%s-%u", o->name, stamp, s->snapshot_seq);
	if (!ret)
		ret = trawl_path_fmt(j->dir, sizeof(j->dir), "%s/%s", spec, rel);
	if (!ret)
		ret = sd_relay_location(s, o->path, rel, j->shown, sizeof(j->shown));
	return ret;
}

/*
 * Records @s's buffers to output @o; @stamp: the record's date. The
 * domains' consumers are waited for in the loop (sd_op_domains()): the
 * answer in @r, now or later.
 */
static void record_to(struct sd_session *s, const struct sd_snapshot_output *o,
		      const char *stamp, struct sd_reply *r)
{
	struct snapshot_job *j;
	uint64_t first;
	int64_t nr = packets_per_stream(s, o->max_size, &first);
	int i;

	if (nr == -2)
		return (void)sd_fail(r, -EOPNOTSUPP, "the kernel domain cannot bound its snapshots "
						     "by --max-size yet: record without it");
	if (nr < 0)
		return (void)sd_fail(r, -EFBIG, "invalid snapshot size: %" PRIu64 " bytes cannot "
						"fit at least one packet per stream (%" PRIu64
						" bytes needed)", o->max_size, first);
	for (i = 1; i < SD_NR_DOMAINS; i++)
		if (s->dom[i].ops && s->dom[i].ds && !s->dom[i].ops->snapshot_record)
			return (void)sd_fail(r, -EOPNOTSUPP, "%s domain cannot record snapshots yet",
					     sd_domain_name((uint32_t)i));
	j = calloc(1, sizeof(*j));
	if (!j)
		return (void)sd_fail(r, -ENOMEM, "out of memory");
	j->nr_packets = (uint64_t)nr;
	j->relay = sd_relay_is_url(o->path);
	if (j->relay ? relay_dir(s, o, stamp, j, r)
		     : trawl_path_fmt(j->dir, sizeof(j->dir), "%s/%s-%s-%u", o->path, o->name,
				      stamp, s->snapshot_seq) ||
			       trawl_path_fmt(j->shown, sizeof(j->shown), "%s", j->dir)) {
		free(j);
		if (!r->status)
			sd_fail(r, -ENAMETOOLONG, "snapshot path too long");
		return;
	}
	sd_op_domains(s, &snapshot_cmd, j, 0, r);
}

void sd_cmd_snapshot(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		     struct sd_reply *r)
{
	struct sd_session *s = snapshot_session(req, p, r);
	struct sd_snapshot_output o;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int i, domains = 0;

	if (!s)
		return;
	if (!s->started_once)
		return (void)sd_fail(r, -EBUSY, "session '%s' needs to be started once before a "
						"snapshot", s->name);
	for (i = 1; i < SD_NR_DOMAINS; i++)
		domains += s->dom[i].ops && s->dom[i].ds;
	if (!domains)
		return (void)sd_fail(r, -ENOENT, "session '%s' has no channels", s->name);
	if (req->output[0]) {
		/* a temporary output, for this snapshot only: LTTng names it snapshot-0 */
		memset(&o, 0, sizeof(o));
		if (!output_ok(req->output, req->target, o.path, sizeof(o.path), r))
			return;
		if (trawl_path_fmt(o.name, sizeof(o.name), "snapshot-0"))
			return (void)sd_fail(r, -ENAMETOOLONG, "snapshot output path too long");
	} else {
		if (!s->snap_out.id)
			return (void)sd_fail(r, -ENOENT, "session '%s' has no snapshot output: add "
							 "one (snapshot add-output) or give a URL",
					     s->name);
		o = s->snap_out;
	}
	if (req->name[0] && trawl_path_fmt(o.name, sizeof(o.name), "%s", req->name))
		return (void)sd_fail(r, -ENAMETOOLONG, "snapshot name too long");
	if (req->max_size != TRAWL_CTL_SIZE_UNSET)
		o.max_size = req->max_size;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	record_to(s, &o, stamp, r);
}
