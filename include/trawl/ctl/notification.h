/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl/notification.h> - notifications (triggers' notify action).
 *
 * Part of the control API: programs include <trawl/ctl.h>, which includes
 * this header.
 */
#ifndef TRAWL_CTL_NOTIFICATION_H
#define TRAWL_CTL_NOTIFICATION_H

#include <stdint.h>

#include <trawl/ctl-types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A notification channel: a connection of its own to the session daemon on
 * which a program waits for the notifications of its triggers (those whose
 * actions include notify; a user's own triggers only, root's too), from the
 * channel's creation on. LTTng's notification channel, with triggers named
 * rather than conditions: a program subscribes to the triggers it wants.
 *
 * The daemon keeps each user's last 128 notifications; a program that takes
 * longer to come back loses the older ones. A notification is lost too
 * when the event that would have made it is dropped before its trigger
 * runs: the root daemon holds a bounded number of each user's trigger hits
 * waiting (a user whose programs fire faster than the daemon takes them
 * loses their own, never another user's). Either way, receive() says so in
 * turn (TRAWL_CTL_NOTIFICATIONS_DROPPED, as LTTng's
 * LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED), and
 * trawl_ctl_notification_channel_dropped() counts them. Not thread-safe:
 * one thread uses a channel at a time.
 *
 *	struct trawl_ctl_notification_channel *ch;
 *	struct trawl_ctl_notification *n;
 *	int ret;
 *
 *	trawl_ctl_notification_channel_create(&ch);
 *	trawl_ctl_notification_channel_subscribe(ch, "on-error");
 *	while ((ret = trawl_ctl_notification_channel_receive(ch, -1, &n)) >= 0) {
 *		if (ret == TRAWL_CTL_NOTIFICATIONS_DROPPED) {
 *			printf("notifications were lost\n");
 *			continue;
 *		}
 *		printf("%s fired\n", trawl_ctl_notification_trigger(n));
 *		trawl_ctl_notification_destroy(n);
 *	}
 *	trawl_ctl_notification_channel_destroy(ch);
 */
struct trawl_ctl_notification_channel;
struct trawl_ctl_notification;

/**
 * trawl_ctl_notification_channel_create - a channel to the daemon the user
 * should use (as trawl_ctl_connect() finds it; started if none runs)
 * @out: receives it, the caller's to free with
 *       trawl_ctl_notification_channel_destroy()
 *
 * Return: 0, or as trawl_ctl_connect().
 */
int trawl_ctl_notification_channel_create(struct trawl_ctl_notification_channel **out);

/**
 * trawl_ctl_notification_channel_destroy - close a channel and free it, with
 * the notifications it holds not yet received
 * @ch: a channel, or NULL (then nothing happens)
 */
void trawl_ctl_notification_channel_destroy(struct trawl_ctl_notification_channel *ch);

/**
 * trawl_ctl_notification_channel_subscribe - receive @trigger's notifications
 * @ch: a channel
 * @trigger: a trigger's name (of the caller's triggers)
 *
 * A name not (yet) registered is taken: its notifications come once it is.
 * Return: 0, -EEXIST (subscribed already), -ENOSPC (64 subscriptions at
 * most), -EINVAL (not a trigger name), -ENOMEM.
 */
int trawl_ctl_notification_channel_subscribe(struct trawl_ctl_notification_channel *ch,
					     const char *trigger);
/**
 * trawl_ctl_notification_channel_unsubscribe - no more of @trigger's
 * notifications (those already received stay)
 * @ch: a channel
 * @trigger: a name given to trawl_ctl_notification_channel_subscribe()
 *
 * Return: 0 or -ENOENT (not subscribed).
 */
int trawl_ctl_notification_channel_unsubscribe(struct trawl_ctl_notification_channel *ch,
					       const char *trigger);

/* trawl_ctl_notification_channel_receive()'s answer when notifications were lost. */
#define TRAWL_CTL_NOTIFICATIONS_DROPPED 1

/**
 * trawl_ctl_notification_channel_receive - the next notification
 * @ch: a channel
 * @timeout_ms: how long to wait for one: 0 not at all, -1 without end
 * @out: receives it, the caller's to free with trawl_ctl_notification_destroy()
 *
 * Return: 0; TRAWL_CTL_NOTIFICATIONS_DROPPED (1, @out set to NULL):
 * notifications of the user's triggers were lost at this point of the
 * channel's order, the next call goes on with those that came after;
 * -ETIMEDOUT (none came in time), -ENOTCONN (the daemon went), -EPROTO,
 * -ENOMEM.
 */
int trawl_ctl_notification_channel_receive(struct trawl_ctl_notification_channel *ch, int timeout_ms,
					   struct trawl_ctl_notification **out);

/**
 * trawl_ctl_notification_channel_get_fd - an fd to poll() for POLLIN with
 * the program's other fds: readable when a notification may have come; then
 * call trawl_ctl_notification_channel_receive() with @timeout_ms 0 (it may
 * still answer -ETIMEDOUT: the daemon's wait ended without one).
 * @ch: a channel; the fd is its own (do not close or read it)
 *
 * Return: the fd, or -ENOTCONN.
 */
int trawl_ctl_notification_channel_get_fd(struct trawl_ctl_notification_channel *ch);

/**
 * trawl_ctl_notification_channel_dropped - notifications lost since the
 * channel was created (the daemon's last 128 went by before the program
 * came back for them, or their events were dropped before their triggers
 * ran)
 * @ch: a channel
 *
 * Return: their count (of all the user's triggers, subscribed or not).
 */
uint64_t trawl_ctl_notification_channel_dropped(const struct trawl_ctl_notification_channel *ch);

/**
 * trawl_ctl_notification_trigger - the name of the trigger that notified
 * @n: a notification
 *
 * Return: the name, owned by @n.
 */
const char *trawl_ctl_notification_trigger(const struct trawl_ctl_notification *n);

/**
 * trawl_ctl_notification_owner_uid - the uid owning the trigger that notified
 * @n: a notification
 *
 * Return: the uid.
 */
uint32_t trawl_ctl_notification_owner_uid(const struct trawl_ctl_notification *n);

/**
 * trawl_ctl_notification_condition - the condition of the trigger that notified
 * @n: a notification
 *
 * Return: its kind.
 */
enum trawl_ctl_condition_kind trawl_ctl_notification_condition(const struct trawl_ctl_notification *n);

/**
 * trawl_ctl_notification_timestamp_ns - when the event that fired it happened
 * @n: a notification
 *
 * Return: CLOCK_MONOTONIC ns (the traced program's reading), 0 if unknown.
 */
uint64_t trawl_ctl_notification_timestamp_ns(const struct trawl_ctl_notification *n);

/**
 * trawl_ctl_notification_capture_count - how many captured values it holds
 * @n: a notification
 *
 * Return: the trigger's captures' count (add-trigger --capture), or fewer
 * when the values were too long to send whole (at most 2 KiB in all).
 */
uint32_t trawl_ctl_notification_capture_count(const struct trawl_ctl_notification *n);

/**
 * trawl_ctl_notification_capture - a captured value, as text
 * @n: a notification
 * @i: its index, in the order of the trigger's captures
 *
 * Integers in decimal (hex fields as 0x...), floats as %g, strings as they
 * are with control characters escaped (\n, \xHH), an array as [a, b];
 * "<unavailable>" for a field the event lacks, an index past an array's
 * or a sequence's end, a context the app does not record for triggers
 * (perf counters; an app older than this library) and an application
 * context ($app.PROVIDER:NAME: trawl's apps have none). Context fields
 * ($ctx.vpid, $ctx.procname, $ctx.cgroup_ns...) are the values the app had
 * when the event happened.
 *
 * Return: the value, owned by @n; NULL if @i is out of range.
 */
const char *trawl_ctl_notification_capture(const struct trawl_ctl_notification *n, uint32_t i);

/*
 * Captured values, typed (LTTng's lttng_event_field_value): each capture of
 * a notification is a value of one of these types, owned by the
 * notification (valid until trawl_ctl_notification_destroy()). Integers are
 * the field's value whatever base it is shown in (a hex field's text is
 * 0x..., its value the same number); a signed field's is sign-extended from
 * its width. An enumeration's value is its integer (trawl carries no
 * labels). As with LTTng 2.13 (whose tracers send integers as msgpack,
 * which keeps no signedness), an integer or enumeration value is typed by
 * its value, not its field: unsigned unless negative (a signed field
 * holding 5 is TRAWL_CTL_CAPTURE_UNSIGNED_INT, one holding -5
 * TRAWL_CTL_CAPTURE_SIGNED_INT), and so is each element of an array of
 * signed integers. A string is the field's bytes up to its first NUL (a text array
 * or sequence is one too). An array's elements are integers (CTF arrays and
 * sequences of integers; one element with NAME[N] is an integer itself).
 * A value cut short (all of a hit's captures share 2 KiB) is what was kept:
 * a string's first bytes, an array's first elements.
 */
enum trawl_ctl_capture_type {
	TRAWL_CTL_CAPTURE_UNAVAILABLE = 0, /* the event lacks it (see trawl_ctl_notification_capture()) */
	TRAWL_CTL_CAPTURE_UNSIGNED_INT = 1,
	TRAWL_CTL_CAPTURE_SIGNED_INT = 2,
	TRAWL_CTL_CAPTURE_UNSIGNED_ENUM = 3,
	TRAWL_CTL_CAPTURE_SIGNED_ENUM = 4,
	TRAWL_CTL_CAPTURE_REAL = 5,
	TRAWL_CTL_CAPTURE_STRING = 6,
	TRAWL_CTL_CAPTURE_ARRAY = 7,
};
struct trawl_ctl_capture_value;

/**
 * trawl_ctl_notification_capture_value - a captured value, typed
 * @n: a notification
 * @i: its index, in the order of the trigger's captures
 *
 * Return: the value, owned by @n; NULL if @i is out of range.
 */
const struct trawl_ctl_capture_value *trawl_ctl_notification_capture_value(
	const struct trawl_ctl_notification *n, uint32_t i);

/**
 * trawl_ctl_capture_value_type - what @v holds
 * @v: a value
 *
 * Return: its type.
 */
enum trawl_ctl_capture_type trawl_ctl_capture_value_type(const struct trawl_ctl_capture_value *v);

/**
 * trawl_ctl_capture_value_unsigned - an unsigned integer's or enumeration's value
 * @v: a value
 * @out: receives it
 *
 * Return: 0, or -EINVAL if @v is of another type.
 */
int trawl_ctl_capture_value_unsigned(const struct trawl_ctl_capture_value *v, uint64_t *out);

/**
 * trawl_ctl_capture_value_signed - a signed integer's or enumeration's value
 * @v: a value
 * @out: receives it
 *
 * Return: 0, or -EINVAL if @v is of another type.
 */
int trawl_ctl_capture_value_signed(const struct trawl_ctl_capture_value *v, int64_t *out);

/**
 * trawl_ctl_capture_value_real - a real's value (a float field's, widened)
 * @v: a value
 * @out: receives it
 *
 * Return: 0, or -EINVAL if @v is of another type.
 */
int trawl_ctl_capture_value_real(const struct trawl_ctl_capture_value *v, double *out);

/**
 * trawl_ctl_capture_value_string - a string's bytes, NUL-terminated
 * @v: a value
 *
 * Return: the string (control characters as they were, not escaped),
 * owned by @v's notification; NULL if @v is not a string.
 */
const char *trawl_ctl_capture_value_string(const struct trawl_ctl_capture_value *v);

/**
 * trawl_ctl_capture_value_array_length - an array's element count
 * @v: a value
 *
 * Return: the count; 0 if @v is not an array.
 */
uint32_t trawl_ctl_capture_value_array_length(const struct trawl_ctl_capture_value *v);

/**
 * trawl_ctl_capture_value_array_element - an array's element
 * @v: an array
 * @i: the element's index
 *
 * Return: the element (an integer value), owned by @v's notification; NULL
 * if @v is not an array or @i is out of range.
 */
const struct trawl_ctl_capture_value *trawl_ctl_capture_value_array_element(
	const struct trawl_ctl_capture_value *v, uint32_t i);

/**
 * trawl_ctl_notification_destroy - free a received notification
 * @n: a notification, or NULL (then nothing happens)
 */
void trawl_ctl_notification_destroy(struct trawl_ctl_notification *n);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_NOTIFICATION_H */
