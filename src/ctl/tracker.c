/* SPDX-License-Identifier: MIT */
/* tracker.c - process-attribute trackers (LTTng's track/untrack). */
#include "common/common.h"
#include "ctl/ctl-int.h"

#include <errno.h>

/* One TRACK or UNTRACK request: @value, or every value when @all. */
static int tracker_cmd(struct trawl_ctl *ctl, uint16_t cmd, const char *session,
		       enum trawl_ctl_domain domain, enum trawl_ctl_process_attr attr,
		       uint32_t value, int all)
{
	struct trawl_ctl_wire_req r;

	if ((unsigned)attr >= TRAWL_CTL_PROCESS_ATTR_COUNT || domain == TRAWL_CTL_DOMAIN_NONE ||
	    (!all && value == UINT32_MAX))
		return -EINVAL;
	ctl_req_init(&r);
	if (ctl_copy_str(r.session, sizeof(r.session), session))
		return -ENAMETOOLONG;
	r.domain = (uint32_t)domain;
	r.process_attr = (uint32_t)attr;
	r.value = value;
	r.flags = all ? TRAWL_CTL_F_ALL : 0;
	return ctl_transact(ctl, cmd, &r, NULL);
}

TRAWL_EXPORT int trawl_ctl_track(struct trawl_ctl *ctl, const char *session,
				 enum trawl_ctl_domain domain, enum trawl_ctl_process_attr attr,
				 uint32_t value)
{
	return tracker_cmd(ctl, TRAWL_CTL_CMD_TRACK, session, domain, attr, value, 0);
}

TRAWL_EXPORT int trawl_ctl_untrack(struct trawl_ctl *ctl, const char *session,
				   enum trawl_ctl_domain domain, enum trawl_ctl_process_attr attr,
				   uint32_t value)
{
	return tracker_cmd(ctl, TRAWL_CTL_CMD_UNTRACK, session, domain, attr, value, 0);
}

TRAWL_EXPORT int trawl_ctl_track_all(struct trawl_ctl *ctl, const char *session,
				     enum trawl_ctl_domain domain, enum trawl_ctl_process_attr attr)
{
	return tracker_cmd(ctl, TRAWL_CTL_CMD_TRACK, session, domain, attr, 0, 1);
}

TRAWL_EXPORT int trawl_ctl_untrack_all(struct trawl_ctl *ctl, const char *session,
				       enum trawl_ctl_domain domain,
				       enum trawl_ctl_process_attr attr)
{
	return tracker_cmd(ctl, TRAWL_CTL_CMD_UNTRACK, session, domain, attr, 0, 1);
}
