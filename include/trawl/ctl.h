/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl.h> - the public control API of trawl (libtrawl-ctl).
 *
 * Every `trawl` subcommand is a call of this API. A program connects to a
 * session daemon, then creates sessions, channels, event rules and contexts,
 * starts and stops tracing, and lists what exists:
 *
 *	struct trawl_ctl *ctl;
 *	struct trawl_ctl_session_attr *attr = trawl_ctl_session_attr_create();
 *
 *	trawl_ctl_connect(&ctl, 0);
 *	trawl_ctl_session_attr_set_name(attr, "demo");
 *	trawl_ctl_session_create(ctl, attr, NULL);
 *	trawl_ctl_session_attr_destroy(attr);
 *	... trawl_ctl_event_enable(), trawl_ctl_session_start(), _stop() ...
 *	trawl_ctl_session_destroy(ctl, "demo");
 *	trawl_ctl_disconnect(ctl);
 *
 * Which daemon: root (and, when the root daemon runs, members of the group
 * `tracing`) talk to the root daemon, which can trace the kernel; other users
 * talk to their own daemon, started on first use. Users never see each
 * other's sessions.
 *
 * Errors: every function returning int returns 0 or a negative errno:
 *   -ENOENT   unknown session, channel or event     -EEXIST  already exists/enabled
 *   -EINVAL   bad argument (size, name, filter)     -EACCES  permission denied
 *   -EBUSY    wrong state (started / not started)   -ENOTCONN no daemon, could not start one
 *   -EOPNOTSUPP what this domain or kernel cannot do -EPROTO daemon sent garbage
 *   -ENAMETOOLONG a string over its limit (<trawl/ctl-types.h>)
 *   -EPROTONOSUPPORT the daemon speaks another version of the protocol
 * After a failed call, trawl_ctl_last_error() gives the daemon's one-line
 * explanation when it sent one.
 *
 * Objects: the attribute objects (session, channel, event rule) are the
 * caller's, made by *_create and freed by *_destroy; a daemon never keeps a
 * pointer to them. Results come back as a struct trawl_ctl_list of typed
 * records (struct trawl_ctl_*_info), the caller's to free with
 * trawl_ctl_list_destroy(); the strings in a record belong to its list.
 *
 * Records grow at their end in later versions: each starts with struct_size,
 * which the caller sets to sizeof(the struct) before asking for a record, and
 * the library sets to the bytes it filled. A program built against an older
 * header gets the fields it knows; one built against a newer header, run with
 * an older library, finds struct_size smaller and the fields past it unwritten.
 *
 * Thread safety: one struct trawl_ctl must not be used by two threads at once;
 * separate connections are independent. Attribute objects and lists may be
 * read by several threads at once.
 *
 * The declarations are in one header a topic, all included here (a program
 * may include one alone): <trawl/ctl/connect.h>, list.h (lists of records),
 * session.h, snapshot.h, rotation.h (clear and rotation), channel.h,
 * event.h (event rules), context.h, tracker.h, trigger.h, notification.h
 * and names.h (the version, log levels).
 */
#ifndef TRAWL_CTL_H
#define TRAWL_CTL_H

#include <stddef.h>
#include <stdint.h>

#include <trawl/ctl-types.h>
#include <trawl/ctl/connect.h>
#include <trawl/ctl/list.h>
#include <trawl/ctl/session.h>
#include <trawl/ctl/snapshot.h>
#include <trawl/ctl/rotation.h>
#include <trawl/ctl/channel.h>
#include <trawl/ctl/event.h>
#include <trawl/ctl/context.h>
#include <trawl/ctl/tracker.h>
#include <trawl/ctl/trigger.h>
#include <trawl/ctl/notification.h>
#include <trawl/ctl/names.h>

#endif /* TRAWL_CTL_H */
