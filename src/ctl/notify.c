/* SPDX-License-Identifier: MIT */
/*
 * notify.c - notification channels (<trawl/ctl.h>): a connection that keeps
 * one NOTIFY_WAIT outstanding (proto.h) while the program waits, so that the
 * daemon answers it as soon as a notification of the user's triggers comes;
 * the notifications of the triggers the program subscribed to are kept, in
 * order, until it takes them.
 *
 * The daemon knows nothing of subscriptions: it hands a user's connection
 * every notification of the user's triggers after the channel's cursor, and
 * the channel keeps those of its subscribed triggers.
 */
#include "common/common.h"
#include "ctl/ctl-int.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SUBS 64
/* The daemon's wait per request (it answers then, empty; we ask again). */
#define WAIT_MS 30000u

struct trawl_ctl_notification {
	struct trawl_ctl_notification *next;
	char trigger[TRAWL_CTL_NAME_MAX];
	uint32_t owner_uid;
	uint32_t condition;
	uint64_t ts_ns;
	uint32_t nr_captures;
	char **captures; /* owned, nr_captures strings in one block after the array */
};

struct trawl_ctl_notification_channel {
	struct trawl_ctl *ctl;
	uint64_t cursor;
	uint64_t dropped;
	int waiting; /* a NOTIFY_WAIT is outstanding */
	char *subs[MAX_SUBS];
	uint32_t nr_subs;
	struct trawl_ctl_notification *head, **tail;
};

static int wait_send(struct trawl_ctl_notification_channel *ch, uint32_t ms)
{
	struct trawl_ctl_wire_req r;
	int ret;

	ctl_req_init(&r);
	r.rotation_value = ch->cursor;
	r.value = ms;
	ret = ctl_send_req(ch->ctl, TRAWL_CTL_CMD_NOTIFY_WAIT, &r);
	ch->waiting = !ret;
	return ret;
}

static int subscribed(const struct trawl_ctl_notification_channel *ch, const char *name)
{
	uint32_t i;

	for (i = 0; i < ch->nr_subs; i++)
		if (!strcmp(ch->subs[i], name))
			return 1;
	return 0;
}

/* The captures' text ('\n'-terminated lines) as an array of strings. */
static int captures_split(struct trawl_ctl_notification *n, const char *text, uint32_t nr)
{
	size_t len = strlen(text);
	char *block;
	uint32_t i;

	n->captures = malloc((nr + 1) * sizeof(char *) + len + 1);
	if (!n->captures)
		return -ENOMEM;
	block = (char *)(n->captures + nr + 1);
	memcpy(block, text, len + 1);
	for (i = 0; i < nr; i++) {
		char *nl = strchr(block, '\n');

		if (!nl)
			return -EPROTO; /* fewer lines than it said */
		*nl = '\0';
		n->captures[i] = block;
		block = nl + 1;
	}
	n->captures[nr] = NULL;
	n->nr_captures = nr;
	return 0;
}

/* Takes a NOTIFY_WAIT's reply: the cursor, and the subscribed notifications. */
static int wait_take(struct trawl_ctl_notification_channel *ch, struct trawl_ctl_list *l)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < l->nr && !ret; i++) {
		const struct ctl_rec *rec = &l->recs[i];
		struct trawl_ctl_wire_notification w;
		struct trawl_ctl_notification *n;

		if (rec->kind == TRAWL_CTL_ITEM_NOTIFY_CURSOR) {
			struct trawl_ctl_wire_notify_cursor c;

			memcpy(&c, rec->body, sizeof(c));
			ch->cursor = c.next;
			ch->dropped += c.dropped;
			continue;
		}
		if (rec->kind != TRAWL_CTL_ITEM_NOTIFICATION)
			continue;
		memcpy(&w, rec->body, sizeof(w));
		if (w.seq >= ch->cursor)
			ch->cursor = w.seq + 1;
		if (!subscribed(ch, rec->str[0]))
			continue;
		n = calloc(1, sizeof(*n));
		if (!n)
			return -ENOMEM;
		memcpy(n->trigger, rec->str[0], strlen(rec->str[0]) + 1); /* checked: < NAME_MAX */
		n->owner_uid = w.owner_uid;
		n->condition = w.condition;
		n->ts_ns = w.ts_ns;
		ret = captures_split(n, rec->str[1], w.nr_captures);
		if (ret) {
			free(n);
			break;
		}
		*ch->tail = n;
		ch->tail = &n->next;
	}
	return ret;
}

/* Reads the outstanding wait's reply (the fd is readable). */
static int wait_read(struct trawl_ctl_notification_channel *ch)
{
	struct trawl_ctl_list *l = NULL;
	int ret;

	ch->waiting = 0;
	ret = ctl_recv_reply(ch->ctl, TRAWL_CTL_CMD_NOTIFY_WAIT, &l);
	if (ret)
		return ret;
	ret = wait_take(ch, l);
	trawl_ctl_list_destroy(l);
	return ret;
}

TRAWL_EXPORT int trawl_ctl_notification_channel_create(struct trawl_ctl_notification_channel **out)
{
	struct trawl_ctl_notification_channel *ch = calloc(1, sizeof(*ch));
	int ret;

	if (!ch)
		return -ENOMEM;
	ch->tail = &ch->head;
	ret = trawl_ctl_connect(&ch->ctl, 0);
	if (ret) {
		free(ch);
		return ret;
	}
	/* From now on: the daemon's cursor. */
	ch->cursor = TRAWL_CTL_NOTIFY_NOW;
	ret = wait_send(ch, 0);
	if (!ret)
		ret = wait_read(ch);
	if (ret) {
		trawl_ctl_notification_channel_destroy(ch);
		return ret;
	}
	*out = ch;
	return 0;
}

TRAWL_EXPORT void trawl_ctl_notification_channel_destroy(struct trawl_ctl_notification_channel *ch)
{
	struct trawl_ctl_notification *n;
	uint32_t i;

	if (!ch)
		return;
	while ((n = ch->head)) {
		ch->head = n->next;
		trawl_ctl_notification_destroy(n);
	}
	for (i = 0; i < ch->nr_subs; i++)
		free(ch->subs[i]);
	trawl_ctl_disconnect(ch->ctl);
	free(ch);
}

TRAWL_EXPORT int trawl_ctl_notification_channel_subscribe(struct trawl_ctl_notification_channel *ch,
							  const char *trigger)
{
	if (!trigger || !trawl_ctl_trigger_name_valid(trigger))
		return -EINVAL;
	if (subscribed(ch, trigger))
		return -EEXIST;
	if (ch->nr_subs == MAX_SUBS)
		return -ENOSPC;
	ch->subs[ch->nr_subs] = strdup(trigger);
	if (!ch->subs[ch->nr_subs])
		return -ENOMEM;
	ch->nr_subs++;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_notification_channel_unsubscribe(struct trawl_ctl_notification_channel *ch,
							    const char *trigger)
{
	uint32_t i;

	for (i = 0; trigger && i < ch->nr_subs; i++) {
		if (strcmp(ch->subs[i], trigger))
			continue;
		free(ch->subs[i]);
		ch->subs[i] = ch->subs[--ch->nr_subs];
		return 0;
	}
	return -ENOENT;
}

TRAWL_EXPORT int trawl_ctl_notification_channel_get_fd(struct trawl_ctl_notification_channel *ch)
{
	if (!ch->waiting && wait_send(ch, WAIT_MS))
		return -ENOTCONN;
	return ch->ctl->fd;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

TRAWL_EXPORT int trawl_ctl_notification_channel_receive(struct trawl_ctl_notification_channel *ch, int timeout_ms,
							struct trawl_ctl_notification **out)
{
	int64_t end = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	int ret;

	while (!ch->head) {
		struct pollfd pfd = {.fd = ch->ctl->fd, .events = POLLIN};
		int left = end < 0 ? -1 : (int)(end > now_ms() ? end - now_ms() : 0);

		if (!ch->waiting && (ret = wait_send(ch, WAIT_MS)))
			return ret;
		ret = poll(&pfd, 1, left);
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret > 0) {
			ret = wait_read(ch);
			if (ret)
				return ret;
			continue;
		}
		if (end >= 0 && now_ms() >= end)
			return -ETIMEDOUT;
	}
	*out = ch->head;
	ch->head = ch->head->next;
	if (!ch->head)
		ch->tail = &ch->head;
	(*out)->next = NULL;
	return 0;
}

TRAWL_EXPORT uint64_t trawl_ctl_notification_channel_dropped(const struct trawl_ctl_notification_channel *ch)
{
	return ch->dropped;
}

TRAWL_EXPORT const char *trawl_ctl_notification_trigger(const struct trawl_ctl_notification *n)
{
	return n->trigger;
}

TRAWL_EXPORT uint32_t trawl_ctl_notification_owner_uid(const struct trawl_ctl_notification *n)
{
	return n->owner_uid;
}

TRAWL_EXPORT enum trawl_ctl_condition_kind trawl_ctl_notification_condition(const struct trawl_ctl_notification *n)
{
	return (enum trawl_ctl_condition_kind)n->condition;
}

TRAWL_EXPORT uint64_t trawl_ctl_notification_timestamp_ns(const struct trawl_ctl_notification *n)
{
	return n->ts_ns;
}

TRAWL_EXPORT uint32_t trawl_ctl_notification_capture_count(const struct trawl_ctl_notification *n)
{
	return n->nr_captures;
}

TRAWL_EXPORT const char *trawl_ctl_notification_capture(const struct trawl_ctl_notification *n, uint32_t i)
{
	return i < n->nr_captures ? n->captures[i] : NULL;
}

TRAWL_EXPORT void trawl_ctl_notification_destroy(struct trawl_ctl_notification *n)
{
	if (!n)
		return;
	free(n->captures);
	free(n);
}
