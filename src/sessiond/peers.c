/* SPDX-License-Identifier: MIT */
/*
 * peers.c - who is on the other end of a connection, and what each user
 * may make the daemon hold (docs/SECURITY.md says the same in words).
 *
 * Trust comes from the kernel only: SO_PEERCRED (uid, gid, pid at connect
 * time) and SO_PEERGROUPS (the connecting process's supplementary groups,
 * which is what the socket file's group permission was checked against),
 * never from what a peer sends. A peer is *trusted* when it is root, the
 * daemon's own user, or - for the root daemon - a process in group
 * 'tracing'. Trusted peers are never capped (they always get through);
 * every other uid is capped: connections to apps.sock, bytes its apps'
 * descriptions take. The caps, deadlines and sizes are sd_limits, set with
 * `trawl-sessiond --limit NAME=VALUE`.
 *
 * Per-uid records (struct sd_uid) live while the uid holds something
 * (connections, bytes) and are freed after; an attacker has as many as it
 * has uids.
 */
#include "sessiond/sessiond.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif

struct sd_limits sd_limits = {
	.ctl_conns_per_uid = 64,
	.ctl_idle_ms = 600000,
	.msg_ms = 5000,
	.app_conns_per_uid = 256,
	.app_conns = 0, /* from the fd limit: sd_limits_fds() */
	.app_reply_ms = 3000,
	.relay_ms = 3000,
	.owner_ms = 10000,
	.app_register_ms = 5000,
	.app_events = 16384,
	.app_fields = 512,
	.tracker_values_per_uid = 65536,
	.triggers_per_uid = 128,
	.trigger_hits_per_uid = 1024,
	.app_bytes = 16u << 20,
	.app_bytes_per_uid = 64u << 20,
	.log_bytes = 4u << 20,
};

static const struct {
	const char *name;
	size_t off;
	int bytes; /* 1: takes K/M/G */
	const char *what;
} limit_names[] = {
#define L(n, f, b, w) {n, offsetof(struct sd_limits, f), b, w}
	L("ctl-conns-per-uid", ctl_conns_per_uid, 0,
	  "connections to sessiond.sock per uid (root, the daemon's user: no cap)"),
	L("ctl-idle-ms", ctl_idle_ms, 0,
	  "a client connection idle this long is closed (root's, the daemon user's: never)"),
	L("message-ms", msg_ms, 0, "a request, reply or message must be whole within this"),
	L("app-conns-per-uid", app_conns_per_uid, 0, "connections to apps.sock per untrusted uid"),
	L("app-conns", app_conns, 0, "connections to apps.sock of all untrusted uids together"),
	L("app-reply-ms", app_reply_ms, 0, "an app must answer a command within this"),
	L("relay-ms", relay_ms, 0,
	  "relayd's host name must resolve, its control port accept and answer a HELLO, each within this"),
	L("owner-ms", owner_ms, 0,
	  "a session's folder made, moved or removed as its owner must be done within this"),
	L("app-register-ms", app_register_ms, 0, "an app must register (or add events) within this"),
	L("app-events", app_events, 0, "events one app may register"),
	L("app-fields", app_fields, 0, "fields one event may have"),
	L("tracker-values-per-uid", tracker_values_per_uid, 0,
	  "values in the trackers of one uid's sessions (root: no cap)"),
	L("triggers-per-uid", triggers_per_uid, 0, "triggers one uid may register (root: no cap)"),
	L("trigger-hits-per-uid", trigger_hits_per_uid, 0,
	  "trigger hits of one uid's programs that may wait to run (past it: dropped, counted)"),
	L("app-bytes", app_bytes, 1, "memory one app's descriptions may take"),
	L("app-bytes-per-uid", app_bytes_per_uid, 1, "memory one untrusted uid's apps may take"),
	L("log-bytes", log_bytes, 1, "sessiond.log is cut (to sessiond.log.1) at this size"),
#undef L
};

int sd_limit_set(const char *arg)
{
	const char *eq = strchr(arg, '=');
	unsigned long long v;
	char *end;
	size_t i;

	if (!eq)
		return -EINVAL;
	for (i = 0; i < TRAWL_ARRAY_SIZE(limit_names); i++) {
		if (strlen(limit_names[i].name) != (size_t)(eq - arg) ||
		    strncmp(arg, limit_names[i].name, (size_t)(eq - arg)))
			continue;
		errno = 0;
		v = strtoull(eq + 1, &end, 10);
		if (errno || end == eq + 1 || eq[1] == '-')
			return -EINVAL;
		if (limit_names[i].bytes && *end) {
			int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : -1;

			if (shift < 0 || end[1] || v > (UINT64_MAX >> shift))
				return -EINVAL;
			v <<= shift;
			end++;
		}
		if (*end)
			return -EINVAL;
		if (limit_names[i].bytes) {
			*(uint64_t *)((char *)&sd_limits + limit_names[i].off) = v;
		} else {
			if (v > UINT32_MAX)
				return -ERANGE;
			*(uint32_t *)((char *)&sd_limits + limit_names[i].off) = (uint32_t)v;
		}
		return 0;
	}
	return -ENOENT;
}

void sd_limits_usage(FILE *f)
{
	size_t i;

	for (i = 0; i < TRAWL_ARRAY_SIZE(limit_names); i++) {
		const char *p = (const char *)&sd_limits + limit_names[i].off;

		fprintf(f, "  %-18s %-10llu %s\n", limit_names[i].name,
			limit_names[i].bytes ? (unsigned long long)*(const uint64_t *)p
					     : (unsigned long long)*(const uint32_t *)p,
			limit_names[i].what);
	}
}

/*
 * Raises the soft fd limit to the hard one (root: to 65536 at least), and
 * derives the connections untrusted users may hold from it: half of it,
 * so that root's commands, trusted apps, ring buffers and consumers keep
 * the other half.
 */
void sd_limits_fds(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (geteuid() == 0 && rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 65536)
			rl.rlim_max = 65536;
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl)) {
			getrlimit(RLIMIT_NOFILE, &rl);
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	sd.fd_limit = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 30) ? (1u << 30)
									     : (uint32_t)rl.rlim_cur;
	if (!sd_limits.app_conns)
		sd_limits.app_conns = sd.fd_limit / 2;
}

/* ---- uids ---- */

static struct sd_uid *uids;

struct sd_uid *sd_uid_get(uid_t uid)
{
	struct sd_uid *u;

	for (u = uids; u; u = u->next)
		if (u->uid == uid)
			return u;
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->uid = uid;
	u->next = uids;
	uids = u;
	return u;
}

void sd_uid_put(struct sd_uid *u)
{
	struct sd_uid **pp;

	if (!u || u->ctl_conns || u->app_conns || u->app_bytes)
		return;
	for (pp = &uids; *pp; pp = &(*pp)->next) {
		if (*pp == u) {
			*pp = u->next;
			free(u);
			return;
		}
	}
}

/* ---- peers ---- */

/* Group 'tracing', looked up again at most every 10 s (NSS may be slow). */
static int tracing_gid(gid_t *gid)
{
	static uint64_t when;
	static int known;
	static gid_t cached;
	uint64_t now = sd_now_ms();

	if (!when || now - when > 10000) {
		struct group *gr = getgrnam("tracing");

		known = gr != NULL;
		cached = gr ? gr->gr_gid : 0;
		when = now;
	}
	*gid = cached;
	return known;
}

int sd_tracing_gid(gid_t *gid)
{
	return tracing_gid(gid);
}

/* Whether the process behind @fd has group @g (SO_PEERGROUPS; else the
 * groups its user has in the group database). */
static int peer_has_group(int fd, const struct sd_peer *p, gid_t g)
{
	gid_t small[64], *groups = small;
	socklen_t len = sizeof(small);
	int i, n, found = 0;

	if (p->gid == g)
		return 1;
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len)) {
		/* the process's own groups */
	} else if (errno == ERANGE) {
		groups = malloc(len);
		if (!groups)
			return 0;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len))
			len = 0;
	} else {
		/* A kernel before 4.13: the groups its user is given. */
		struct passwd *pw = getpwuid(p->uid);

		n = TRAWL_ARRAY_SIZE(small);
		if (!pw || getgrouplist(pw->pw_name, pw->pw_gid, small, &n) < 0)
			return 0;
		len = (socklen_t)((size_t)n * sizeof(gid_t));
	}
	for (i = 0; (size_t)i < len / sizeof(gid_t); i++)
		found |= groups[i] == g;
	if (groups != small)
		free(groups);
	return found;
}

int sd_peer_get(int fd, struct sd_peer *p)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	gid_t g;

	memset(p, 0, sizeof(*p));
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return -errno;
	p->pid = cred.pid;
	p->uid = cred.uid;
	p->gid = cred.gid;
	p->trusted = cred.uid == 0 || cred.uid == geteuid() ||
		     (sd.root_daemon && tracing_gid(&g) && peer_has_group(fd, p, g));
	return 0;
}
