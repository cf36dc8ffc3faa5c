/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - snapshots of flight-recorder sessions: the output object,
 * add/del/list of a session's outputs and record (LTTng's `snapshot`).
 */
#include "common/common.h"
#include "ctl/ctl-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct trawl_ctl_snapshot_output {
	char name[TRAWL_CTL_NAME_MAX];       /* "" = the daemon's default */
	char ctrl_url[TRAWL_CTL_OUTPUT_MAX]; /* absolute folder or URL; "" = none */
	char data_url[TRAWL_CTL_TARGET_MAX]; /* network data URL, or "" */
	uint64_t max_size;                   /* TRAWL_CTL_SIZE_UNSET: not given */
};

TRAWL_EXPORT struct trawl_ctl_snapshot_output *trawl_ctl_snapshot_output_create(void)
{
	struct trawl_ctl_snapshot_output *o = calloc(1, sizeof(*o));

	if (o)
		o->max_size = TRAWL_CTL_SIZE_UNSET;
	return o;
}

TRAWL_EXPORT void trawl_ctl_snapshot_output_destroy(struct trawl_ctl_snapshot_output *o)
{
	free(o);
}

TRAWL_EXPORT int trawl_ctl_snapshot_output_set_name(struct trawl_ctl_snapshot_output *o,
						    const char *name)
{
	if (name && strlen(name) >= sizeof(o->name))
		return -ENAMETOOLONG;
	if (name && !trawl_ctl_name_valid(name))
		return -EINVAL;
	return ctl_copy_str(o->name, sizeof(o->name), name);
}

static int is_net(const char *url)
{
	return !strncmp(url, "net://", 6) || !strncmp(url, "net6://", 7) ||
	       !strncmp(url, "tcp://", 6) || !strncmp(url, "tcp6://", 7);
}

TRAWL_EXPORT int trawl_ctl_snapshot_output_set_url(struct trawl_ctl_snapshot_output *o,
						   const char *ctrl_url, const char *data_url)
{
	char ctrl[sizeof(o->ctrl_url)];
	int ret;

	if (ctrl_url && is_net(ctrl_url)) {
		/* kept as given: the daemon says it cannot stream snapshots */
		if (data_url && !is_net(data_url))
			return -EINVAL;
		ret = ctl_copy_str(ctrl, sizeof(ctrl), ctrl_url);
	} else {
		/* as LTTng: "Cannot have a data URL when destination is file://" */
		if (data_url && data_url[0])
			return -EINVAL;
		ret = ctl_output_resolve(ctrl, sizeof(ctrl), ctrl_url);
	}
	if (ret)
		return ret;
	ret = ctl_copy_str(o->data_url, sizeof(o->data_url), data_url);
	if (ret)
		return ret;
	memcpy(o->ctrl_url, ctrl, sizeof(ctrl));
	return 0;
}

TRAWL_EXPORT int trawl_ctl_snapshot_output_set_max_size(struct trawl_ctl_snapshot_output *o,
							uint64_t bytes)
{
	o->max_size = bytes == TRAWL_CTL_SIZE_UNSET ? TRAWL_CTL_SIZE_UNSET - 1 : bytes;
	return 0;
}

/* A request for @session carrying @o (NULL: nothing but the session). */
static int output_req(struct trawl_ctl_wire_req *r, const char *session,
		      const struct trawl_ctl_snapshot_output *o)
{
	ctl_req_init(r);
	if (ctl_copy_str(r->session, sizeof(r->session), session))
		return -ENAMETOOLONG;
	if (!o)
		return 0;
	memcpy(r->name, o->name, sizeof(r->name));
	memcpy(r->output, o->ctrl_url, sizeof(r->output));
	memcpy(r->target, o->data_url, sizeof(r->target));
	r->max_size = o->max_size;
	return 0;
}

int ctl_snapshot_output_req(struct trawl_ctl_wire_req *r, const struct trawl_ctl_snapshot_output *o)
{
	return output_req(r, "", o);
}

TRAWL_EXPORT int trawl_ctl_snapshot_add_output(struct trawl_ctl *ctl, const char *session,
					       const struct trawl_ctl_snapshot_output *o,
					       struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_req r;

	if (!o || !o->ctrl_url[0])
		return -EINVAL;
	if (output_req(&r, session, o))
		return -ENAMETOOLONG;
	if (r.max_size == TRAWL_CTL_SIZE_UNSET)
		r.max_size = 0; /* no limit */
	return ctl_transact(ctl, TRAWL_CTL_CMD_SNAPSHOT_ADD_OUTPUT, &r, out);
}

TRAWL_EXPORT int trawl_ctl_snapshot_del_output(struct trawl_ctl *ctl, const char *session,
					       uint32_t id, const char *name)
{
	struct trawl_ctl_wire_req r;

	if (!id == !(name && name[0]))
		return -EINVAL;
	if (output_req(&r, session, NULL))
		return -ENAMETOOLONG;
	r.value = id;
	if (!id && ctl_copy_str(r.name, sizeof(r.name), name))
		return -ENAMETOOLONG;
	if (!id && !trawl_ctl_name_valid(r.name))
		return -EINVAL;
	return ctl_transact(ctl, TRAWL_CTL_CMD_SNAPSHOT_DEL_OUTPUT, &r, NULL);
}

TRAWL_EXPORT int trawl_ctl_snapshot_list_outputs(struct trawl_ctl *ctl, const char *session,
						 struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_req r;

	if (output_req(&r, session, NULL))
		return -ENAMETOOLONG;
	return ctl_transact(ctl, TRAWL_CTL_CMD_SNAPSHOT_LIST_OUTPUT, &r, out);
}

TRAWL_EXPORT int trawl_ctl_snapshot_record_output(struct trawl_ctl *ctl, const char *session,
						  const struct trawl_ctl_snapshot_output *o,
						  struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_req r;

	if (output_req(&r, session, o))
		return -ENAMETOOLONG;
	return ctl_transact(ctl, TRAWL_CTL_CMD_SNAPSHOT_RECORD, &r, out);
}

TRAWL_EXPORT int trawl_ctl_snapshot_record(struct trawl_ctl *ctl, const char *session,
					   struct trawl_ctl_list **out)
{
	return trawl_ctl_snapshot_record_output(ctl, session, NULL, out);
}
