/* SPDX-License-Identifier: MIT */
/*
 * records.c - the records a daemon returns, as the public typed structs.
 *
 * A list keeps the reply it came from: the reply was checked whole
 * (trawl_ctl_reply_check()) before a list is made of it, so each record's
 * body has its kind's size and each string its NUL, and the public structs
 * point their strings into it. A getter copies as much of its struct as the
 * caller's struct_size asks for, which is what lets the structs grow.
 */
#include "common/common.h"
#include "ctl/ctl-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct trawl_ctl_list *ctl_list_from_reply(unsigned char *payload, size_t len)
{
	struct trawl_ctl_wire_reply head;
	struct trawl_ctl_list *l = calloc(1, sizeof(*l));
	size_t off = sizeof(head), i, k;

	memcpy(&head, payload, sizeof(head));
	if (!l || (head.nr_records && !(l->recs = calloc(head.nr_records, sizeof(*l->recs))))) {
		free(l);
		free(payload);
		return NULL;
	}
	l->payload = payload;
	l->nr = head.nr_records;
	for (i = 0; i < l->nr; i++) {
		struct ctl_rec *r = &l->recs[i];
		const struct trawl_ctl_rec_layout *lay;
		struct trawl_ctl_wire_rec rec;
		size_t s;

		memcpy(&rec, payload + off, sizeof(rec));
		lay = trawl_ctl_rec_layout(rec.kind);
		r->kind = rec.kind;
		r->body = payload + off + sizeof(rec);
		s = off + sizeof(rec) + lay->body_size;
		for (k = 0; k < lay->nr_strings; k++) {
			r->str[k] = (const char *)payload + s;
			s += strlen(r->str[k]) + 1;
		}
		off += rec.size;
	}
	(void)len; /* checked by trawl_ctl_reply_check() */
	return l;
}

TRAWL_EXPORT void trawl_ctl_list_destroy(struct trawl_ctl_list *list)
{
	if (!list)
		return;
	free(list->recs);
	free(list->payload);
	free(list);
}

TRAWL_EXPORT size_t trawl_ctl_list_count(const struct trawl_ctl_list *list)
{
	return list->nr;
}

TRAWL_EXPORT enum trawl_ctl_item_kind trawl_ctl_list_kind(const struct trawl_ctl_list *list,
							  size_t i)
{
	return i < list->nr ? (enum trawl_ctl_item_kind)list->recs[i].kind : TRAWL_CTL_ITEM_NONE;
}

/*
 * Record @i if it is of @kind, its body copied into @body (the kind's wire
 * struct); NULL with *@ret set otherwise.
 */
static const struct ctl_rec *rec_at(const struct trawl_ctl_list *l, size_t i, uint32_t kind,
				    const void *info, void *body, int *ret)
{
	uint32_t size;

	*ret = -EINVAL;
	if (!l || !info)
		return NULL;
	memcpy(&size, info, sizeof(size));
	if (!size)
		return NULL;
	if (i >= l->nr) {
		*ret = -ERANGE;
		return NULL;
	}
	if (l->recs[i].kind != kind)
		return NULL;
	memcpy(body, l->recs[i].body, trawl_ctl_rec_layout(kind)->body_size);
	*ret = 0;
	return &l->recs[i];
}

/* Copies the first struct_size bytes of @full (@full_size bytes) into @info. */
static int info_fill(void *info, void *full, size_t full_size)
{
	uint32_t want, n;

	memcpy(&want, info, sizeof(want));
	n = want < full_size ? want : (uint32_t)full_size;
	memcpy(full, &n, sizeof(n));
	memcpy(info, full, n < sizeof(n) ? sizeof(n) : n);
	return 0;
}

TRAWL_EXPORT int trawl_ctl_list_session_at(const struct trawl_ctl_list *list, size_t i,
					   struct trawl_ctl_session_info *info)
{
	struct trawl_ctl_session_info v = {0};
	struct trawl_ctl_wire_session w;
	const struct ctl_rec *r;
	int ret;

	if (!(r = rec_at(list, i, TRAWL_CTL_ITEM_SESSION, info, &w, &ret)))
		return ret;
	v.name = r->str[0];
	v.output = r->str[1];
	v.shm_path = r->str[2];
	v.active = (int32_t)w.active;
	v.snapshot = (int32_t)w.snapshot;
	v.live_timer_us = w.live_timer_us;
	v.uid = w.uid;
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_domain_at(const struct trawl_ctl_list *list, size_t i,
					  struct trawl_ctl_domain_info *info)
{
	struct trawl_ctl_domain_info v = {0};
	struct trawl_ctl_wire_domain w;
	const struct ctl_rec *r;
	int ret;

	if (!(r = rec_at(list, i, TRAWL_CTL_ITEM_DOMAIN, info, &w, &ret)))
		return ret;
	v.domain = (enum trawl_ctl_domain)w.domain;
	v.consumer_alive = (int32_t)w.consumer_alive;
	v.events_discarded = w.events_discarded;
	v.bytes_written = w.bytes_written;
	v.events_tallied = w.events_tallied < w.events_discarded ? w.events_tallied : w.events_discarded;
	v.problem = r->str[0];
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_channel_at(const struct trawl_ctl_list *list, size_t i,
					   struct trawl_ctl_channel_info *info)
{
	struct trawl_ctl_channel_info v = {0};
	struct trawl_ctl_wire_channel w;
	const struct ctl_rec *r;
	int ret;

	if (!(r = rec_at(list, i, TRAWL_CTL_ITEM_CHANNEL, info, &w, &ret)))
		return ret;
	v.domain = (enum trawl_ctl_domain)w.domain;
	v.name = r->str[0];
	v.enabled = (int32_t)w.enabled;
	v.overwrite = (int32_t)w.overwrite;
	v.subbuf_size = w.subbuf_size;
	v.num_subbuf = w.num_subbuf;
	v.switch_timer_us = w.switch_timer_us;
	v.read_timer_us = w.read_timer_us;
	v.buffers = (enum trawl_ctl_buffers)w.buffers;
	v.tracefile_size = w.tracefile_size;
	v.tracefile_count = w.tracefile_count;
	v.blocking_timeout_us = w.blocking_timeout_us;
	v.discarded_events = w.discarded_events;
	v.lost_packets = w.lost_packets;
	v.output = (enum trawl_ctl_output)w.output;
	v.monitor_timer_us = w.monitor_timer_us;
	v.memory_resident = w.memory_resident;
	v.memory_size = w.memory_size;
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_event_at(const struct trawl_ctl_list *list, size_t i,
					 struct trawl_ctl_event_info *info)
{
	struct trawl_ctl_event_info v = {0};
	struct trawl_ctl_wire_event w;
	const struct ctl_rec *r;
	int ret;

	if (!(r = rec_at(list, i, TRAWL_CTL_ITEM_EVENT, info, &w, &ret)))
		return ret;
	v.domain = (enum trawl_ctl_domain)w.domain;
	v.channel = r->str[0];
	v.name = r->str[1];
	v.kind = (enum trawl_ctl_event_kind)w.kind;
	v.enabled = (int32_t)w.enabled;
	v.loglevel_type = (enum trawl_ctl_loglevel_type)w.loglevel_type;
	v.loglevel = w.loglevel;
	v.filter = r->str[2];
	v.target = r->str[3];
	v.exclusions = r->str[4];
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_context_at(const struct trawl_ctl_list *list, size_t i,
					   struct trawl_ctl_context_info *info)
{
	struct trawl_ctl_context_info v = {0};
	struct trawl_ctl_wire_context w;
	const struct ctl_rec *r;
	int ret;

	if (!(r = rec_at(list, i, TRAWL_CTL_ITEM_CONTEXT, info, &w, &ret)))
		return ret;
	v.domain = (enum trawl_ctl_domain)w.domain;
	v.channel = r->str[0];
	v.name = r->str[1];
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_available_at(const struct trawl_ctl_list *list, size_t i,
					     struct trawl_ctl_available_info *info)
{
	struct trawl_ctl_available_info v = {0};
	struct trawl_ctl_wire_available w;
	const struct ctl_rec *r;
	int ret;

	if (!(r = rec_at(list, i, TRAWL_CTL_ITEM_AVAILABLE, info, &w, &ret)))
		return ret;
	v.domain = (enum trawl_ctl_domain)w.domain;
	v.name = r->str[0];
	v.kind = (enum trawl_ctl_event_kind)w.kind;
	v.loglevel = w.loglevel;
	v.pid = w.pid;
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_field_at(const struct trawl_ctl_list *list, size_t i,
					 struct trawl_ctl_field_info *info)
{
	struct trawl_ctl_field_info v = {0};
	struct trawl_ctl_wire_field w;
	const struct ctl_rec *r;
	int ret;

	if (!(r = rec_at(list, i, TRAWL_CTL_ITEM_FIELD, info, &w, &ret)))
		return ret;
	v.domain = (enum trawl_ctl_domain)w.domain;
	v.event = r->str[0];
	v.name = r->str[1];
	v.type = r->str[2];
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_snapshot_at(const struct trawl_ctl_list *list, size_t i,
					    struct trawl_ctl_snapshot_info *info)
{
	struct trawl_ctl_snapshot_info v = {0};
	struct trawl_ctl_wire_snapshot w;
	const struct ctl_rec *r;
	int ret;

	if (!(r = rec_at(list, i, TRAWL_CTL_ITEM_SNAPSHOT, info, &w, &ret)))
		return ret;
	v.session = r->str[0];
	v.path = r->str[1];
	v.seq = w.seq;
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_rotation_at(const struct trawl_ctl_list *list, size_t i,
					    struct trawl_ctl_rotation_info *info)
{
	struct trawl_ctl_rotation_info v = {0};
	struct trawl_ctl_wire_rotation w;
	const struct ctl_rec *r;
	int ret;

	if (!(r = rec_at(list, i, TRAWL_CTL_ITEM_ROTATION, info, &w, &ret)))
		return ret;
	v.session = r->str[0];
	v.path = r->str[1];
	v.chunk_id = w.chunk_id;
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_rotation_schedule_at(const struct trawl_ctl_list *list, size_t i,
						     struct trawl_ctl_rotation_schedule_info *info)
{
	struct trawl_ctl_rotation_schedule_info v = {0};
	struct trawl_ctl_wire_rotation_schedule w;
	int ret;

	if (!rec_at(list, i, TRAWL_CTL_ITEM_ROTATION_SCHEDULE, info, &w, &ret))
		return ret;
	v.kind = (enum trawl_ctl_rotation_schedule)w.kind;
	v.value = w.value;
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_tracker_at(const struct trawl_ctl_list *list, size_t i,
					   struct trawl_ctl_tracker_info *info)
{
	struct trawl_ctl_tracker_info v = {0};
	struct trawl_ctl_wire_tracker w;
	int ret;

	if (!rec_at(list, i, TRAWL_CTL_ITEM_TRACKER, info, &w, &ret))
		return ret;
	v.domain = (enum trawl_ctl_domain)w.domain;
	v.process_attr = (enum trawl_ctl_process_attr)w.process_attr;
	v.include_all = (int32_t)w.include_all;
	v.nr_values = w.nr_values;
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_tracker_value_at(const struct trawl_ctl_list *list, size_t i,
						 struct trawl_ctl_tracker_value_info *info)
{
	struct trawl_ctl_tracker_value_info v = {0};
	struct trawl_ctl_wire_tracker_value w;
	int ret;

	if (!rec_at(list, i, TRAWL_CTL_ITEM_TRACKER_VALUE, info, &w, &ret))
		return ret;
	v.domain = (enum trawl_ctl_domain)w.domain;
	v.process_attr = (enum trawl_ctl_process_attr)w.process_attr;
	v.value = w.value;
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_snapshot_output_at(const struct trawl_ctl_list *list, size_t i,
						   struct trawl_ctl_snapshot_output_info *info)
{
	struct trawl_ctl_snapshot_output_info v = {0};
	struct trawl_ctl_wire_snapshot_output w;
	const struct ctl_rec *r;
	int ret;

	if (!(r = rec_at(list, i, TRAWL_CTL_ITEM_SNAPSHOT_OUTPUT, info, &w, &ret)))
		return ret;
	v.id = w.id;
	v.name = r->str[0];
	v.ctrl_url = r->str[1];
	v.data_url = r->str[2];
	v.max_size = w.max_size;
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_trigger_at(const struct trawl_ctl_list *list, size_t i,
					   struct trawl_ctl_trigger_info *info)
{
	struct trawl_ctl_trigger_info v = {0};
	struct trawl_ctl_wire_trigger w;
	const struct ctl_rec *r;
	int ret;

	if (!(r = rec_at(list, i, TRAWL_CTL_ITEM_TRIGGER, info, &w, &ret)))
		return ret;
	v.name = r->str[0];
	v.owner_uid = w.owner_uid;
	v.condition = (enum trawl_ctl_condition_kind)w.condition;
	v.domain = (enum trawl_ctl_domain)w.domain;
	v.event_kind = (enum trawl_ctl_event_kind)w.event_kind;
	v.pattern = r->str[1];
	v.filter = r->str[2];
	v.loglevel_type = (enum trawl_ctl_loglevel_type)w.loglevel_type;
	v.loglevel = w.loglevel;
	v.exclusions = r->str[3];
	v.captures = r->str[4];
	v.session = r->str[5];
	v.channel = r->str[6];
	v.location = r->str[7];
	v.threshold = w.threshold;
	v.ratio_ppm = w.ratio_ppm;
	v.nr_actions = w.nr_actions;
	v.occurrences = w.occurrences;
	v.discarded = w.discarded;
	return info_fill(info, &v, sizeof(v));
}

TRAWL_EXPORT int trawl_ctl_list_trigger_action_at(const struct trawl_ctl_list *list, size_t i,
						  struct trawl_ctl_trigger_action_info *info)
{
	struct trawl_ctl_trigger_action_info v = {0};
	struct trawl_ctl_wire_trigger_action w;
	const struct ctl_rec *r;
	int ret;

	if (!(r = rec_at(list, i, TRAWL_CTL_ITEM_TRIGGER_ACTION, info, &w, &ret)))
		return ret;
	v.kind = (enum trawl_ctl_action_kind)w.kind;
	v.session = r->str[0];
	v.rate_policy = (enum trawl_ctl_rate_policy)w.rate_policy;
	v.rate_value = w.rate_value;
	v.output_name = r->str[1];
	v.output = r->str[2];
	v.max_size = w.max_size;
	v.runs = w.runs;
	v.failures = w.failures;
	v.ctrl_url = r->str[3];
	v.data_url = r->str[4];
	return info_fill(info, &v, sizeof(v));
}
