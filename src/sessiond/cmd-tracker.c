/* SPDX-License-Identifier: MIT */
/*
 * cmd-tracker.c - process-attribute trackers: `track` and `untrack`, and
 * their records in `list SESSION`.
 *
 * LTTng's rules: each tracker of a session's domain includes every value
 * (the default), or only the values of its inclusion set, which may be
 * empty (then nothing is traced: `untrack --all`). A process is traced only
 * if every tracker includes its value. Tracking a value of a tracker that
 * includes all makes the set that one value. The daemon keeps the sets
 * (sorted, at most TRAWL_CTL_TRACKER_MAX_VALUES values each, so no client
 * makes it hold more) and tells the domain, which applies them to the
 * processes it traces before the command returns.
 */
#include "common/common.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Where @v is, or would go, in @t's sorted values. */
static uint32_t value_pos(const struct trawl_domain_tracker *t, uint32_t v)
{
	uint32_t lo = 0, hi = t->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->values[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void tracker_clear(struct trawl_domain_tracker *t, int restricted)
{
	free(t->values);
	t->values = NULL;
	t->nr = 0;
	t->restricted = restricted;
}

void sd_trackers_fini(struct sd_domain *d)
{
	int a;

	for (a = 0; a < TRAWL_CTL_PROCESS_ATTR_COUNT; a++)
		tracker_clear(&d->trackers.attr[a], 0);
}

static int tracker_add(struct trawl_domain_tracker *t, uint32_t v, struct sd_reply *r,
		       const char *what)
{
	uint32_t pos = value_pos(t, v), *nv;

	if (!t->restricted) {
		tracker_clear(t, 0); /* restricted once @v is in */
		pos = 0;
	} else if (pos < t->nr && t->values[pos] == v) {
		return sd_fail(r, -EEXIST, "%u is already in the %s inclusion set", v, what);
	} else if (t->nr >= TRAWL_CTL_TRACKER_MAX_VALUES) {
		return sd_fail(r, -ENOSPC, "the %s inclusion set holds %u values, the most it may",
			       what, (unsigned)TRAWL_CTL_TRACKER_MAX_VALUES);
	}
	nv = realloc(t->values, (t->nr + 1) * sizeof(*nv));
	if (!nv)
		return sd_fail(r, -ENOMEM, "out of memory");
	memmove(nv + pos + 1, nv + pos, (t->nr - pos) * sizeof(*nv));
	nv[pos] = v;
	t->values = nv;
	t->nr++;
	t->restricted = 1;
	return 0;
}

static int tracker_remove(struct trawl_domain_tracker *t, uint32_t v, struct sd_reply *r,
			  const char *what)
{
	uint32_t pos = value_pos(t, v);

	if (!t->restricted || pos >= t->nr || t->values[pos] != v)
		return sd_fail(r, -ENXIO, "%u is not in the %s inclusion set", v, what);
	memmove(t->values + pos, t->values + pos + 1, (t->nr - pos - 1) * sizeof(*t->values));
	t->nr--;
	return 0;
}

/*
 * Values in the trackers of @uid's sessions. Each set is bounded, but a
 * user has up to 1024 sessions of two domains with six trackers each: 192
 * MiB of a daemon everybody shares, without this count.
 */
static uint32_t user_values(uid_t uid)
{
	const struct sd_session *s;
	uint32_t n = 0;
	int d, a;

	for (s = sd.sessions; s; s = s->next)
		for (d = 0; s->uid == uid && d < SD_NR_DOMAINS; d++)
			for (a = 0; a < TRAWL_CTL_PROCESS_ATTR_COUNT; a++)
				n += s->dom[d].trackers.attr[a].nr;
	return n;
}

/* The session's domain for a tracker command on @attr; NULL with @r filled. */
static struct sd_domain *tracker_domain(const struct trawl_ctl_wire_req *req,
					const struct sd_peer *p, struct sd_reply *r,
					struct sd_session **sp)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);
	const struct trawl_domain_ops *ops;

	*sp = s;
	if (!s)
		return NULL;
	ops = req->domain < SD_NR_DOMAINS ? sd.domains[req->domain] : NULL;
	if (ops && !ops->process_attrs) {
		sd_fail(r, -EOPNOTSUPP, "the %s domain of trawl has no process trackers",
			sd_domain_name(req->domain));
		return NULL;
	}
	if (ops && !(ops->process_attrs & (1u << req->process_attr))) {
		sd_fail(r, -EINVAL, "the %s process attribute cannot be tracked in the %s domain",
			trawl_ctl_wire_process_attr_name(req->process_attr),
			sd_domain_name(req->domain));
		return NULL;
	}
	return sd_domain_get(s, req->domain, r);
}

static void tracker_cmd(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			struct sd_reply *r, int track)
{
	const char *what =
		trawl_ctl_wire_process_attr_name(req->process_attr);
	struct sd_session *s;
	struct sd_domain *d = tracker_domain(req, p, r, &s);
	struct trawl_domain_tracker *t;
	struct trawl_domain_err err = {""};
	int ret;

	if (!d)
		return;
	t = &d->trackers.attr[req->process_attr];
	if (track && !(req->flags & TRAWL_CTL_F_ALL) && s->uid != 0 &&
	    user_values(s->uid) >= sd_limits.tracker_values_per_uid) {
		sd_fail(r, -ENOSPC, "the trackers of user %u's sessions hold %u values, the most "
			"they may (trawl-sessiond --limit tracker-values-per-uid)", (unsigned)s->uid,
			(unsigned)sd_limits.tracker_values_per_uid);
		return;
	}
	if (req->flags & TRAWL_CTL_F_ALL)
		tracker_clear(t, !track);
	else if ((track ? tracker_add : tracker_remove)(t, req->value, r, what))
		return;
	ret = d->ops->trackers_changed(d->ds, &err);
	if (ret)
		sd_fail(r, ret, "applying the %s tracker: %s", what,
			err.msg[0] ? err.msg : strerror(-ret));
}

void sd_cmd_track(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		  struct sd_reply *r)
{
	tracker_cmd(req, p, r, 1);
}

void sd_cmd_untrack(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		    struct sd_reply *r)
{
	tracker_cmd(req, p, r, 0);
}

void sd_trackers_rec(struct sd_reply *r, uint32_t domain, const struct sd_domain *d)
{
	uint32_t a, i;

	if (!d->ops)
		return;
	for (a = 0; a < TRAWL_CTL_PROCESS_ATTR_COUNT; a++) {
		const struct trawl_domain_tracker *t = &d->trackers.attr[a];
		struct trawl_ctl_wire_tracker body = {
			.domain = domain,
			.process_attr = a,
			.include_all = !t->restricted,
			.nr_values = t->nr,
		};

		if (!(d->ops->process_attrs & (1u << a)))
			continue;
		sd_reply_rec(r, TRAWL_CTL_ITEM_TRACKER, &body, NULL);
		for (i = 0; i < t->nr; i++) {
			struct trawl_ctl_wire_tracker_value v = {
				.domain = domain,
				.process_attr = a,
				.value = t->values[i],
			};

			sd_reply_rec(r, TRAWL_CTL_ITEM_TRACKER_VALUE, &v, NULL);
		}
	}
}
