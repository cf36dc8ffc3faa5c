#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""LTTng's notification API (liblttng-ctl.so.0, through ctypes: Debian ships
the library without its headers) for side-by-side checks of triggers'
captures. Run as the LTTng reference's user (lttngref.py), beside its
session daemon:

    lttngnotify.py COUNT TRIGGER

subscribes to the condition of trigger TRIGGER, prints "ready", then for
each of COUNT notifications the trigger's name and, one line each, its
captured values typed as ust-trig-notify -t prints trawl's: "?"
(unavailable), "u:N", "i:N", "U:N", "E:N", "r:%.17g", "t:S" (printable
ASCII as is, other bytes and '\\' as \\xHH), "a:V,V,...". Exit 0, or 1
naming what failed. It waits without end: its caller bounds it.
"""
import ctypes
import sys

P = ctypes.c_void_p
LTTNG_OK = 10
T_UINT, T_INT, T_UENUM, T_SENUM, T_REAL, T_STRING, T_ARRAY = range(7)


def lib():
    c = ctypes.CDLL("liblttng-ctl.so.0")
    for name, res, args in (
            ("lttng_list_triggers", ctypes.c_int, [ctypes.POINTER(P)]),
            ("lttng_triggers_get_count", ctypes.c_int, [P, ctypes.POINTER(ctypes.c_uint)]),
            ("lttng_triggers_get_at_index", P, [P, ctypes.c_uint]),
            ("lttng_trigger_get_name", ctypes.c_int, [P, ctypes.POINTER(ctypes.c_char_p)]),
            ("lttng_trigger_get_const_condition", P, [P]),
            ("lttng_notification_channel_create", P, [P]),
            ("lttng_notification_channel_subscribe", ctypes.c_int, [P, P]),
            ("lttng_notification_channel_get_next_notification", ctypes.c_int, [P, ctypes.POINTER(P)]),
            ("lttng_notification_get_evaluation", P, [P]),
            ("lttng_notification_get_trigger", P, [P]),
            ("lttng_notification_destroy", None, [P]),
            ("lttng_evaluation_event_rule_matches_get_captured_values", ctypes.c_int,
             [P, ctypes.POINTER(P)]),
            ("lttng_event_field_value_get_type", ctypes.c_int, [P]),
            ("lttng_event_field_value_unsigned_int_get_value", ctypes.c_int,
             [P, ctypes.POINTER(ctypes.c_uint64)]),
            ("lttng_event_field_value_signed_int_get_value", ctypes.c_int,
             [P, ctypes.POINTER(ctypes.c_int64)]),
            ("lttng_event_field_value_real_get_value", ctypes.c_int, [P, ctypes.POINTER(ctypes.c_double)]),
            ("lttng_event_field_value_string_get_value", ctypes.c_int, [P, ctypes.POINTER(ctypes.c_char_p)]),
            ("lttng_event_field_value_array_get_length", ctypes.c_int, [P, ctypes.POINTER(ctypes.c_uint)]),
            ("lttng_event_field_value_array_get_element_at_index", ctypes.c_int,
             [P, ctypes.c_uint, ctypes.POINTER(P)])):
        f = getattr(c, name)
        f.restype, f.argtypes = res, args
    return c


def typed(c, v):
    t = c.lttng_event_field_value_get_type(v)
    if t in (T_UINT, T_UENUM):
        u = ctypes.c_uint64()
        c.lttng_event_field_value_unsigned_int_get_value(v, ctypes.byref(u))
        return "%s:%d" % ("u" if t == T_UINT else "U", u.value)
    if t in (T_INT, T_SENUM):
        s = ctypes.c_int64()
        c.lttng_event_field_value_signed_int_get_value(v, ctypes.byref(s))
        return "%s:%d" % ("i" if t == T_INT else "E", s.value)
    if t == T_REAL:
        r = ctypes.c_double()
        c.lttng_event_field_value_real_get_value(v, ctypes.byref(r))
        return "r:%s" % ("%.17g" % r.value)
    if t == T_STRING:
        s = ctypes.c_char_p()
        c.lttng_event_field_value_string_get_value(v, ctypes.byref(s))
        return "t:" + "".join(chr(b) if 0x20 <= b < 0x7f and b != 0x5c else "\\x%02x" % b
                              for b in s.value)
    if t == T_ARRAY:
        return "a:" + ",".join(elements(c, v))
    return "?"


def elements(c, arr):
    n = ctypes.c_uint()
    if c.lttng_event_field_value_array_get_length(arr, ctypes.byref(n)):
        raise RuntimeError("captured values: not an array")
    out = []
    for i in range(n.value):
        e = P()
        st = c.lttng_event_field_value_array_get_element_at_index(arr, i, ctypes.byref(e))
        out.append("?" if st == -2 else typed(c, e))
    return out


def main():
    if len(sys.argv) != 3:
        print("usage: lttngnotify.py COUNT TRIGGER", file=sys.stderr)
        return 2
    count, name = int(sys.argv[1]), sys.argv[2].encode()
    c = lib()
    trigs, n = P(), ctypes.c_uint()
    if c.lttng_list_triggers(ctypes.byref(trigs)) != LTTNG_OK or \
            c.lttng_triggers_get_count(trigs, ctypes.byref(n)):
        print("lttng_list_triggers failed", file=sys.stderr)
        return 1
    cond = None
    for i in range(n.value):
        t = c.lttng_triggers_get_at_index(trigs, i)
        tn = ctypes.c_char_p()
        if c.lttng_trigger_get_name(t, ctypes.byref(tn)) == 0 and tn.value == name:
            cond = c.lttng_trigger_get_const_condition(t)
    if not cond:
        print("no trigger %s" % name.decode(), file=sys.stderr)
        return 1
    endpoint = P.in_dll(c, "lttng_session_daemon_notification_endpoint")
    ch = c.lttng_notification_channel_create(endpoint)
    if not ch or c.lttng_notification_channel_subscribe(ch, cond):
        print("notification channel: cannot subscribe", file=sys.stderr)
        return 1
    print("ready", flush=True)
    got = 0
    while got < count:
        note = P()
        st = c.lttng_notification_channel_get_next_notification(ch, ctypes.byref(note))
        if st == 1:  # LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED
            print("dropped", flush=True)
            continue
        if st != 0:
            print("get_next_notification: status %d" % st, file=sys.stderr)
            return 1
        caps = P()
        ev = c.lttng_notification_get_evaluation(note)
        if c.lttng_evaluation_event_rule_matches_get_captured_values(ev, ctypes.byref(caps)):
            print("%s" % name.decode(), flush=True)
        else:
            print("%s" % name.decode())
            for v in elements(c, caps):
                print("  typed=" + v)
            sys.stdout.flush()
        c.lttng_notification_destroy(note)
        got += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
