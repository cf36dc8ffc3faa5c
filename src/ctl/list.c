/* SPDX-License-Identifier: MIT */
/* list.c - the commands that return lists of records (records.c reads them). */
#include "common/common.h"
#include "ctl/ctl-int.h"

#include <errno.h>

TRAWL_EXPORT int trawl_ctl_list_sessions(struct trawl_ctl *ctl, struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_req r;

	ctl_req_init(&r);
	return ctl_transact(ctl, TRAWL_CTL_CMD_LIST_SESSIONS, &r, out);
}

TRAWL_EXPORT int trawl_ctl_list_session(struct trawl_ctl *ctl, const char *session,
					struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_req r;

	ctl_req_init(&r);
	if (ctl_copy_str(r.session, sizeof(r.session), session))
		return -ENAMETOOLONG;
	return ctl_transact(ctl, TRAWL_CTL_CMD_LIST_SESSION, &r, out);
}

TRAWL_EXPORT int trawl_ctl_list_available(struct trawl_ctl *ctl, enum trawl_ctl_domain domain,
					  enum trawl_ctl_event_kind kind, int fields,
					  struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_req r;

	ctl_req_init(&r);
	r.domain = (uint32_t)domain;
	r.event_kind = (uint32_t)kind;
	r.flags = fields ? TRAWL_CTL_F_FIELDS : 0;
	return ctl_transact(ctl, TRAWL_CTL_CMD_LIST_AVAILABLE, &r, out);
}
