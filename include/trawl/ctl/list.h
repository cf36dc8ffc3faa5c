/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl/list.h> - lists of records.
 *
 * Results come back as a struct trawl_ctl_list of typed records, each a
 * struct trawl_ctl_*_info declared with its topic (<trawl/ctl/session.h>,
 * <trawl/ctl/channel.h>, ...); the list is the caller's to free with
 * trawl_ctl_list_destroy(), and the strings in a record belong to it.
 * How records grow (struct_size): the top of <trawl/ctl.h>.
 *
 * Part of the control API: programs include <trawl/ctl.h>, which includes
 * this header.
 */
#ifndef TRAWL_CTL_LIST_H
#define TRAWL_CTL_LIST_H

#include <stddef.h>

#include <trawl/ctl-types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct trawl_ctl_list; /* records returned by a daemon */

/* The records, each defined in its topic's header. */
struct trawl_ctl_session_info;
struct trawl_ctl_domain_info;
struct trawl_ctl_channel_info;
struct trawl_ctl_event_info;
struct trawl_ctl_context_info;
struct trawl_ctl_available_info;
struct trawl_ctl_field_info;
struct trawl_ctl_snapshot_info;
struct trawl_ctl_tracker_info;
struct trawl_ctl_rotation_info;
struct trawl_ctl_rotation_schedule_info;
struct trawl_ctl_tracker_value_info;
struct trawl_ctl_snapshot_output_info;
struct trawl_ctl_trigger_info;
struct trawl_ctl_trigger_action_info;

/* What a record of a list is; new kinds are added at the end. */
enum trawl_ctl_item_kind {
	TRAWL_CTL_ITEM_NONE = 0,      /* no such record */
	TRAWL_CTL_ITEM_SESSION = 1,   /* struct trawl_ctl_session_info */
	TRAWL_CTL_ITEM_DOMAIN = 2,    /* struct trawl_ctl_domain_info */
	TRAWL_CTL_ITEM_CHANNEL = 3,   /* struct trawl_ctl_channel_info */
	TRAWL_CTL_ITEM_EVENT = 4,     /* struct trawl_ctl_event_info */
	TRAWL_CTL_ITEM_CONTEXT = 5,   /* struct trawl_ctl_context_info */
	TRAWL_CTL_ITEM_AVAILABLE = 6, /* struct trawl_ctl_available_info */
	TRAWL_CTL_ITEM_FIELD = 7,     /* struct trawl_ctl_field_info */
	TRAWL_CTL_ITEM_SNAPSHOT = 8,  /* struct trawl_ctl_snapshot_info */
	TRAWL_CTL_ITEM_TRACKER = 9,   /* struct trawl_ctl_tracker_info */
	TRAWL_CTL_ITEM_TRACKER_VALUE = 10, /* struct trawl_ctl_tracker_value_info */
	TRAWL_CTL_ITEM_ROTATION = 11, /* struct trawl_ctl_rotation_info */
	TRAWL_CTL_ITEM_ROTATION_SCHEDULE = 12, /* struct trawl_ctl_rotation_schedule_info */
	TRAWL_CTL_ITEM_SNAPSHOT_OUTPUT = 13, /* struct trawl_ctl_snapshot_output_info */
	TRAWL_CTL_ITEM_TRIGGER = 14,  /* struct trawl_ctl_trigger_info */
	TRAWL_CTL_ITEM_TRIGGER_ACTION = 15, /* struct trawl_ctl_trigger_action_info */
	/* Notification channels' own (read through trawl_ctl_notification_*): */
	TRAWL_CTL_ITEM_NOTIFY_CURSOR = 16,
	TRAWL_CTL_ITEM_NOTIFICATION = 17,
};

/**
 * trawl_ctl_list_destroy - free a list and every string of its records
 * @list: the list, or NULL (then nothing happens)
 */
void trawl_ctl_list_destroy(struct trawl_ctl_list *list);

/**
 * trawl_ctl_list_count - how many records @list holds
 * @list: a list
 *
 * Return: the count.
 */
size_t trawl_ctl_list_count(const struct trawl_ctl_list *list);

/**
 * trawl_ctl_list_kind - what record @i of @list is
 * @list: a list
 * @i: the record's index
 *
 * Return: its kind, or TRAWL_CTL_ITEM_NONE if @i >= trawl_ctl_list_count().
 */
enum trawl_ctl_item_kind trawl_ctl_list_kind(const struct trawl_ctl_list *list, size_t i);

/*
 * trawl_ctl_list_*_at - record @i of @list, as its typed struct.
 *
 * @info->struct_size must be set to sizeof(*info) first (at least 4); on
 * success it becomes the bytes filled, and fields past it are left alone.
 * The strings stay valid until trawl_ctl_list_destroy(@list).
 *
 * Return: 0, -ERANGE if @i >= trawl_ctl_list_count(), -EINVAL if record @i
 * is of another kind, struct_size is 0, or @list or @info is NULL.
 */
int trawl_ctl_list_session_at(const struct trawl_ctl_list *list, size_t i,
			      struct trawl_ctl_session_info *info);
int trawl_ctl_list_domain_at(const struct trawl_ctl_list *list, size_t i,
			     struct trawl_ctl_domain_info *info);
int trawl_ctl_list_channel_at(const struct trawl_ctl_list *list, size_t i,
			      struct trawl_ctl_channel_info *info);
int trawl_ctl_list_event_at(const struct trawl_ctl_list *list, size_t i,
			    struct trawl_ctl_event_info *info);
int trawl_ctl_list_context_at(const struct trawl_ctl_list *list, size_t i,
			      struct trawl_ctl_context_info *info);
int trawl_ctl_list_available_at(const struct trawl_ctl_list *list, size_t i,
				struct trawl_ctl_available_info *info);
int trawl_ctl_list_field_at(const struct trawl_ctl_list *list, size_t i,
			    struct trawl_ctl_field_info *info);
int trawl_ctl_list_snapshot_at(const struct trawl_ctl_list *list, size_t i,
			       struct trawl_ctl_snapshot_info *info);
int trawl_ctl_list_tracker_at(const struct trawl_ctl_list *list, size_t i,
			      struct trawl_ctl_tracker_info *info);
int trawl_ctl_list_rotation_at(const struct trawl_ctl_list *list, size_t i,
			       struct trawl_ctl_rotation_info *info);
int trawl_ctl_list_rotation_schedule_at(const struct trawl_ctl_list *list, size_t i,
					struct trawl_ctl_rotation_schedule_info *info);
int trawl_ctl_list_tracker_value_at(const struct trawl_ctl_list *list, size_t i,
				    struct trawl_ctl_tracker_value_info *info);
int trawl_ctl_list_snapshot_output_at(const struct trawl_ctl_list *list, size_t i,
				      struct trawl_ctl_snapshot_output_info *info);
int trawl_ctl_list_trigger_at(const struct trawl_ctl_list *list, size_t i,
			      struct trawl_ctl_trigger_info *info);
int trawl_ctl_list_trigger_action_at(const struct trawl_ctl_list *list, size_t i,
				     struct trawl_ctl_trigger_action_info *info);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_LIST_H */
