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
 *
 * A notification's captures come as typed lines (common/capture.h): each is
 * read once, as it is taken, into its text and its typed value.
 *
 * Losses (the daemon's NOTIFY_CURSOR says how many notifications after the
 * cursor it can no longer give) go in the queue as a mark, where they were
 * learnt, and receive() answers TRAWL_CTL_NOTIFICATIONS_DROPPED for it, in
 * turn, as LTTng's lttng_notification_channel_get_next_notification()
 * answers LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED.
 */
#include "common/capture.h"
#include "common/common.h"
#include "ctl/ctl-int.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SUBS 64
/* The daemon's wait per request (it answers then, empty; we ask again). */
#define WAIT_MS 30000u

struct trawl_ctl_notification {
	struct trawl_ctl_notification *next;
	uint64_t lost; /* not 0: no notification, a mark that this many were lost here */
	char trigger[TRAWL_CTL_NAME_MAX];
	uint32_t owner_uid;
	uint32_t condition;
	uint64_t ts_ns;
	uint32_t nr_captures;
	char **captures; /* owned, nr_captures strings in one block after the array */
	struct trawl_ctl_capture_value *values; /* owned, nr_captures */
	char *strings; /* owned: the string values, unescaped, one after the other */
};

struct trawl_ctl_capture_value {
	enum trawl_ctl_capture_type type;
	uint64_t u;  /* an integer's (a signed one's two's complement) */
	double real;
	const char *str; /* STRING: in the notification's strings */
	uint32_t nr;     /* ARRAY: elements */
	struct trawl_ctl_capture_value *elems; /* ARRAY: owned, nr */
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

/* @text's escapes (\n, \\, \xHH) undone, into @out (as long at most). */
static const char *unescape(const char *text, char **out)
{
	const char *s = text, *start = *out;
	char *o = *out;

	while (*s) {
		if (s[0] == '\\' && s[1] == 'n') {
			*o++ = '\n';
			s += 2;
		} else if (s[0] == '\\' && s[1] == '\\') {
			*o++ = '\\';
			s += 2;
		} else if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
			char hex[3] = { s[2], s[3], 0 };

			*o++ = (char)strtoul(hex, NULL, 16);
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o++ = '\0';
	*out = o;
	return start;
}

/* An integer of @type from @s (decimal, or 0x... for hex fields' text): its end. */
static const char *int_parse(const char *s, enum trawl_ctl_capture_type type, uint64_t *u)
{
	char *end;

	errno = 0;
	if (type == TRAWL_CTL_CAPTURE_SIGNED_INT || type == TRAWL_CTL_CAPTURE_SIGNED_ENUM)
		*u = (uint64_t)strtoll(s, &end, 0);
	else
		*u = strtoull(s, &end, 0);
	return errno || end == s ? NULL : end;
}

/*
 * The type LTTng 2.13 gives an integer of @type and value @u: the tracers
 * (LTTng-UST's and LTTng-modules' event notifiers) write a signed field
 * and every enumeration as a msgpack signed integer, and its decoder
 * (event_field_value_from_obj()) types a msgpack integer by its value, not
 * by its encoding: unsigned unless negative. So a signed field holding 5 is
 * an unsigned integer there, an enumeration's 7 an unsigned one's (and an
 * unsigned enumeration's value past INT64_MAX a negative signed one's).
 */
static enum trawl_ctl_capture_type int_type_as_lttng(enum trawl_ctl_capture_type type, uint64_t u)
{
	int neg = (int64_t)u < 0;

	switch (type) {
	case TRAWL_CTL_CAPTURE_SIGNED_INT:
		return neg ? type : TRAWL_CTL_CAPTURE_UNSIGNED_INT;
	case TRAWL_CTL_CAPTURE_UNSIGNED_ENUM:
	case TRAWL_CTL_CAPTURE_SIGNED_ENUM:
		return neg ? TRAWL_CTL_CAPTURE_SIGNED_ENUM : TRAWL_CTL_CAPTURE_UNSIGNED_ENUM;
	default:
		return type;
	}
}

/*
 * An array's elements (@type each, then as int_type_as_lttng()) from @s: "[a, b]" (its text), or
 * "a,b" (@value: the values of a hex array). Those before a value cut
 * short (the captures' room ran out) are kept. 0 or -ENOMEM.
 */
static int array_parse(struct trawl_ctl_capture_value *v, const char *s, int value,
		       enum trawl_ctl_capture_type type)
{
	const char *p = value ? s : s + (s[0] == '[');
	uint32_t cap = 1, k;

	for (k = 0; s[k]; k++)
		cap += s[k] == ',';
	v->elems = calloc(cap, sizeof(*v->elems));
	if (!v->elems)
		return -ENOMEM;
	while (*p && *p != ']' && v->nr < cap) {
		struct trawl_ctl_capture_value *e = &v->elems[v->nr];
		const char *end = int_parse(p, type, &e->u);

		if (!end || (*end && *end != ',' && *end != ']'))
			break;
		e->type = int_type_as_lttng(type, e->u);
		v->nr++;
		p = end + (*end == ',');
		while (*p == ' ')
			p++;
	}
	return 0;
}

static enum trawl_ctl_capture_type type_of_tag(char tag)
{
	switch (tag) {
	case TRAWL_CAPTURE_UNSIGNED:
		return TRAWL_CTL_CAPTURE_UNSIGNED_INT;
	case TRAWL_CAPTURE_SIGNED:
		return TRAWL_CTL_CAPTURE_SIGNED_INT;
	case TRAWL_CAPTURE_UNSIGNED_ENUM:
		return TRAWL_CTL_CAPTURE_UNSIGNED_ENUM;
	case TRAWL_CAPTURE_SIGNED_ENUM:
		return TRAWL_CTL_CAPTURE_SIGNED_ENUM;
	case TRAWL_CAPTURE_REAL:
		return TRAWL_CTL_CAPTURE_REAL;
	case TRAWL_CAPTURE_STRING:
		return TRAWL_CTL_CAPTURE_STRING;
	case TRAWL_CAPTURE_ARRAY:
		return TRAWL_CTL_CAPTURE_ARRAY;
	default:
		return TRAWL_CTL_CAPTURE_UNAVAILABLE;
	}
}

/*
 * One capture line @line (its '\n' made a NUL) into @v, and its text into
 * *@text. A line cut before its tag, or with a value that does not parse,
 * is unavailable. 0 or -ENOMEM.
 */
static int capture_parse(char *line, struct trawl_ctl_capture_value *v, char **text, char **strings)
{
	enum trawl_ctl_capture_type elem = TRAWL_CTL_CAPTURE_UNAVAILABLE;
	char *body = line + !!line[0], *tab, *value;

	v->type = type_of_tag(line[0]);
	if (v->type == TRAWL_CTL_CAPTURE_ARRAY) {
		elem = type_of_tag(*body);
		body += !!*body;
		if (elem != TRAWL_CTL_CAPTURE_UNSIGNED_INT && elem != TRAWL_CTL_CAPTURE_SIGNED_INT)
			v->type = TRAWL_CTL_CAPTURE_UNAVAILABLE;
	}
	/* (text is escaped: its tabs are \x09; the first raw one ends the value) */
	tab = strchr(body, '\t');
	value = tab ? body : NULL;
	if (tab)
		*tab = '\0';
	*text = tab ? tab + 1 : body;
	switch (v->type) {
	case TRAWL_CTL_CAPTURE_UNSIGNED_INT:
	case TRAWL_CTL_CAPTURE_SIGNED_INT:
	case TRAWL_CTL_CAPTURE_UNSIGNED_ENUM:
	case TRAWL_CTL_CAPTURE_SIGNED_ENUM:
		if (!int_parse(value ? value : *text, v->type, &v->u))
			v->type = TRAWL_CTL_CAPTURE_UNAVAILABLE;
		else
			v->type = int_type_as_lttng(v->type, v->u);
		return 0;
	case TRAWL_CTL_CAPTURE_REAL: {
		const char *s = value ? value : *text;
		char *end;

		v->real = strtod(s, &end);
		if (end == s)
			v->type = TRAWL_CTL_CAPTURE_UNAVAILABLE;
		return 0;
	}
	case TRAWL_CTL_CAPTURE_STRING:
		v->str = unescape(*text, strings);
		return 0;
	case TRAWL_CTL_CAPTURE_ARRAY:
		return array_parse(v, value ? value : *text, !!value, elem);
	default:
		return 0;
	}
}

static void values_free(struct trawl_ctl_notification *n)
{
	uint32_t i;

	for (i = 0; n->values && i < n->nr_captures; i++)
		free(n->values[i].elems);
	free(n->values);
	free(n->strings);
	free(n->captures);
}

/* The captures' lines ('\n'-terminated, typed) as their texts and values. */
static int captures_split(struct trawl_ctl_notification *n, const char *text, uint32_t nr)
{
	size_t len = strlen(text);
	char *block, *strings;
	uint32_t i;

	n->captures = malloc((nr + 1) * sizeof(char *) + len + 1);
	n->values = calloc(nr + 1, sizeof(*n->values));
	n->strings = malloc(len + 1); /* unescaped, the strings are no longer */
	n->nr_captures = nr;
	if (!n->captures || !n->values || !n->strings)
		goto err_nomem;
	block = (char *)(n->captures + nr + 1);
	memcpy(block, text, len + 1);
	strings = n->strings;
	for (i = 0; i < nr; i++) {
		char *nl = strchr(block, '\n');

		if (!nl) {
			values_free(n);
			return -EPROTO; /* fewer lines than it said */
		}
		*nl = '\0';
		if (capture_parse(block, &n->values[i], &n->captures[i], &strings))
			goto err_nomem;
		block = nl + 1;
	}
	n->captures[nr] = NULL;
	return 0;
err_nomem:
	values_free(n);
	return -ENOMEM;
}

/* A mark of @n notifications lost, queued (one with the last, if it is one). */
static int lost_mark(struct trawl_ctl_notification_channel *ch, uint64_t n)
{
	struct trawl_ctl_notification *m;

	if (ch->head) {
		for (m = ch->head; m->next; m = m->next)
			;
		if (m->lost) {
			m->lost += n;
			return 0;
		}
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->lost = n;
	*ch->tail = m;
	ch->tail = &m->next;
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
			if (c.dropped && (ret = lost_mark(ch, c.dropped)))
				break;
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
	if ((*out)->lost) {
		free(*out);
		*out = NULL;
		return TRAWL_CTL_NOTIFICATIONS_DROPPED;
	}
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

TRAWL_EXPORT const struct trawl_ctl_capture_value *
trawl_ctl_notification_capture_value(const struct trawl_ctl_notification *n, uint32_t i)
{
	return i < n->nr_captures ? &n->values[i] : NULL;
}

TRAWL_EXPORT enum trawl_ctl_capture_type
trawl_ctl_capture_value_type(const struct trawl_ctl_capture_value *v)
{
	return v->type;
}

TRAWL_EXPORT int trawl_ctl_capture_value_unsigned(const struct trawl_ctl_capture_value *v,
						  uint64_t *out)
{
	if (v->type != TRAWL_CTL_CAPTURE_UNSIGNED_INT && v->type != TRAWL_CTL_CAPTURE_UNSIGNED_ENUM)
		return -EINVAL;
	*out = v->u;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_capture_value_signed(const struct trawl_ctl_capture_value *v,
						int64_t *out)
{
	if (v->type != TRAWL_CTL_CAPTURE_SIGNED_INT && v->type != TRAWL_CTL_CAPTURE_SIGNED_ENUM)
		return -EINVAL;
	*out = (int64_t)v->u;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_capture_value_real(const struct trawl_ctl_capture_value *v, double *out)
{
	if (v->type != TRAWL_CTL_CAPTURE_REAL)
		return -EINVAL;
	*out = v->real;
	return 0;
}

TRAWL_EXPORT const char *trawl_ctl_capture_value_string(const struct trawl_ctl_capture_value *v)
{
	return v->type == TRAWL_CTL_CAPTURE_STRING ? v->str : NULL;
}

TRAWL_EXPORT uint32_t trawl_ctl_capture_value_array_length(const struct trawl_ctl_capture_value *v)
{
	return v->type == TRAWL_CTL_CAPTURE_ARRAY ? v->nr : 0;
}

TRAWL_EXPORT const struct trawl_ctl_capture_value *
trawl_ctl_capture_value_array_element(const struct trawl_ctl_capture_value *v, uint32_t i)
{
	return v->type == TRAWL_CTL_CAPTURE_ARRAY && i < v->nr ? &v->elems[i] : NULL;
}

TRAWL_EXPORT void trawl_ctl_notification_destroy(struct trawl_ctl_notification *n)
{
	if (!n)
		return;
	values_free(n);
	free(n);
}
