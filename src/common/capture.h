/* SPDX-License-Identifier: MIT */
/*
 * capture.h - how a trigger's captured values travel from where they are
 * read (the kernel notifier, src/kernel/notify.c; an app's event,
 * src/sessiond/ust-capture.c) through the session daemon to libtrawl-ctl
 * (src/ctl/notify.c), which gives them to programs both as text and typed
 * (<trawl/ctl.h>'s trawl_ctl_capture_value, LTTng's lttng_event_field_value).
 *
 * The captures of one hit are lines, one per capture descriptor, each
 * ended by '\n':
 *
 *	TAG [VALUE '\t'] TEXT
 *
 * TEXT is the value as people read it (integers in decimal or, for a hex
 * field, 0x...; reals as %g; strings as they are with '\n', '\\' and the
 * other control bytes escaped as \n, \\ and \xHH; arrays as [a, b]), so it
 * never holds a raw tab: the first tab of a line, if any, ends VALUE. VALUE
 * is there only where TEXT does not give the typed value exactly: a hex
 * field's decimal value, a real's C99 hex-float (%a), a hex array's
 * elements in decimal joined by ','. TAG says the type:
 */
#ifndef TRAWL_COMMON_CAPTURE_H
#define TRAWL_COMMON_CAPTURE_H

#define TRAWL_CAPTURE_UNAVAILABLE '?'   /* TEXT "<unavailable>" */
#define TRAWL_CAPTURE_UNSIGNED 'u'      /* an unsigned integer */
#define TRAWL_CAPTURE_SIGNED 's'        /* a signed integer */
#define TRAWL_CAPTURE_UNSIGNED_ENUM 'U' /* an enumeration's value, unsigned */
#define TRAWL_CAPTURE_SIGNED_ENUM 'S'   /* an enumeration's value, signed */
#define TRAWL_CAPTURE_REAL 'r'          /* a float or double */
#define TRAWL_CAPTURE_STRING 't'        /* a string, or a text array or sequence */
/* An array or sequence of integers: this TAG, then its elements' TAG
 * (TRAWL_CAPTURE_UNSIGNED or _SIGNED), then [VALUE '\t'] TEXT. */
#define TRAWL_CAPTURE_ARRAY 'a'

#define TRAWL_CAPTURE_UNAVAILABLE_TEXT "<unavailable>"

#endif /* TRAWL_COMMON_CAPTURE_H */
