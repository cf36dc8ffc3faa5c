#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Triggers firing on user-space events (issue 16), through the real
daemons: LTTng 2.13's flight recorder "triggering a snapshot when an error
occurs", and the other session actions with their rate policies.

    triggers.py snapshot   an app emits one trig:error among 1,100
                           trig:info; the trigger's snapshot-session action
                           records the snapshot session; babeltrace2 reads
                           the snapshot and finds the error event
    triggers.py rate       10 trig:warn against every:1, every:3 and
                           once-after:4 (and a filter and a log level that
                           take only some): each action ran as its policy
                           says (its runs, counted by the daemon)
    triggers.py startstop  trig:mark("start") starts a session, and
                           trig:mark("after") stops it
    triggers.py rotate     trig:mark("rotate") rotates a session: its first
                           trace chunk is archived
    triggers.py notify     a C program waits on a notification channel for
                           two triggers' notify action (of three), and gets
                           their captured fields
    triggers.py typed      the C API's typed values (trawl_ctl_capture_value)
                           of a field of each type, beside their text, as
                           LTTng 2.13 types them; side by side with LTTng's
                           (liblttng-ctl's API) for the same event
    triggers.py appctx     captures of application contexts from a C
                           program's provider ($app.c:NAME), typed
    triggers.py captures   captures of array and sequence elements (a[1],
                           s[1]; out of range: unavailable), of context
                           fields ($ctx.vpid, vtid, procname, pthread_id,
                           cgroup_ns, pid_ns: the app's own values) and of
                           an application context (unavailable, as
                           LTTng-UST's without a provider)
    triggers.py discarded  list-triggers' "discarded tracer messages" (LTTng
                           2.13's text and meaning): an event too large for
                           the app's notification ring is 1; side by side
                           with LTTng's text, before and after discards
    triggers.py flood      300,000 trig:warn as fast as the app can, each
                           firing a trigger: the app ends, the daemon answers
                           commands meanwhile, and each event is counted
                           once, as a hit or as discarded
    triggers.py usage      buffer-usage high and low (the C API's: LTTng's
                           add-trigger has no option for them) on a snapshot
                           session's small discard-mode channel, which only a
                           clear empties: high fires once per crossing (not
                           at each sample while full), low once cleared, high
                           again once refilled, an every:2 action at the
                           second crossing only (with a snapshot-session,
                           read back by babeltrace2); a C program gets them
                           on a notification channel, in that order
    triggers.py consumed   session-consumed-size: a session whose consumer
                           wrote 256 KiB is stopped by the trigger's
                           stop-session action, and notified; its trace holds
                           at least that much

No timing is asserted: each wait polls the outcome, up to 60 s.
"""
import glob
import os
import queue
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, fail  # noqa: E402
import trawltest  # noqa: E402
from lttngref import LttngRef  # noqa: E402

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib")

APP = os.path.join(BIN, "ust-app-trig")
LAPP = APP + "-lttng"  # the same program built against LTTng-UST (side-by-side runs)
STATS = os.path.join(BIN, "ust-trig-stats")
NOTIFY = os.path.join(BIN, "ust-trig-notify")
COND = os.path.join(BIN, "ust-trig-cond")
ERM = ["--condition", "event-rule-matches", "--type=user"]
WAIT_S = 60


class Env(trawltest.Env):
    def __init__(self):
        super().__init__("trawl-ust-triggers.")

    def app(self, *args, wait=True):
        p = subprocess.Popen([APP] + [str(a) for a in args], env=self.env)
        if wait and p.wait(timeout=120) != 0:
            raise RuntimeError("ust-app-trig %s exited %d" % (" ".join(map(str, args)), p.returncode))
        return p

    def stats(self):
        """{trigger: (occurrences, [(kind, runs, failures), ...])}"""
        return {k: v[:2] for k, v in self.counts().items()}

    def counts(self):
        """{trigger: (occurrences, [(kind, runs, failures), ...], discarded)}"""
        r = subprocess.run([STATS, "-d"], env=self.env, capture_output=True, text=True, timeout=60)
        if r.returncode:
            raise RuntimeError("ust-trig-stats: " + r.stderr.strip())
        out, cur = {}, None
        for line in r.stdout.splitlines():
            if not line.startswith(" "):
                name, counts = line.rsplit(" occurrences=", 1)
                occ, disc = counts.split(" discarded=")
                cur = out[name] = (int(occ), [], int(disc))
            else:
                kind, runs, fails = line.split()
                cur[1].append((int(kind), int(runs.split("=")[1]), int(fails.split("=")[1])))
        return out


def until(what, fn):
    """Polls fn() until true (at most WAIT_S); False with a failure if never."""
    v = trawltest.until(fn, WAIT_S)
    if not v:
        fail("never happened: " + what)
        return False
    return v


def bt2_text(path):
    r = subprocess.run(["babeltrace2", path], capture_output=True, text=True, timeout=60)
    if r.returncode:
        return None
    return r.stdout


def case_snapshot(e):
    snap = e.dir + "/snap"
    e.trawl("create", "fr", "--snapshot", "-o", snap)
    e.trawl("enable-event", "-u", "trig:*", "-s", "fr")
    e.trawl("start", "fr")
    e.trawl("add-trigger", "--name", "on-error", *ERM, "--name=trig:error",
            "--action", "snapshot-session", "fr")
    e.app("error", 1000)
    if not until("the trigger's snapshot-session ran",
                 lambda: e.stats()["on-error"][1][0][1] == 1):
        return
    st = e.stats()["on-error"]
    if st[0] != 1 or st[1][0][2] != 0:
        fail("on-error: one occurrence, no failure expected: %r" % (st,))

    def read_snapshot():
        dirs = glob.glob(snap + "/*-*-*")
        if len(dirs) != 1:
            return None
        text = bt2_text(dirs[0])
        return text if text and "trig:error" in text else None
    text = until("babeltrace2 reads trig:error in the snapshot", read_snapshot)
    if text:
        errs = [l for l in text.splitlines() if "trig:error" in l]
        if len(errs) != 1 or "code = 42" not in errs[0] or 'msg = "disk on fire"' not in errs[0]:
            fail("the snapshot's trig:error: %r" % errs)
        if text.count("trig:info") < 100:
            fail("the snapshot holds %d trig:info, fewer than the 100 after the error"
                 % text.count("trig:info"))


def case_rate(e):
    # actions on a session that does not exist: each run fails, and counts
    e.trawl("add-trigger", "--name", "each", *ERM, "--name=trig:warn",
            "--action", "stop-session", "nosuch")
    e.trawl("add-trigger", "--name", "third", *ERM, "--name=trig:warn",
            "--action", "stop-session", "nosuch", "--rate-policy=every:3",
            "--action", "start-session", "nosuch", "--rate-policy=once-after:4")
    e.trawl("add-trigger", "--name", "filtered", *ERM, "--name=trig:*", "--filter", "n >= 7",
            "--action", "stop-session", "nosuch")
    e.trawl("add-trigger", "--name", "loglevel", *ERM, "--name=trig:*", "--log-level=TRACE_ERR",
            "--action", "stop-session", "nosuch")
    e.app("warn", 10)
    want = {
        "each": (10, [(2, 10, 10)]),
        "third": (10, [(2, 3, 3), (1, 1, 1)]),
        "filtered": (3, [(2, 3, 3)]),
        "loglevel": (0, [(2, 0, 0)]),
    }
    got = until("10 trig:warn counted by 'each'", lambda: e.stats()["each"][0] == 10 and e.stats())
    if got:
        got = e.stats()
        for k, v in want.items():
            if got.get(k) != v:
                fail("trigger %s: want %r, got %r" % (k, v, got.get(k)))


def active(e, name):
    r = e.trawl("list", name)
    return "[active]" in r.stdout.splitlines()[0] if r.stdout else False


def case_startstop(e):
    e.trawl("create", "later", "-o", e.dir + "/later")
    e.trawl("enable-event", "-u", "trig:*", "-s", "later")
    e.trawl("add-trigger", "--name", "go", *ERM, "--name=trig:mark", "--filter", 'what == "start"',
            "--action", "start-session", "later")
    e.trawl("add-trigger", "--name", "halt", *ERM, "--name=trig:mark", "--filter", 'what == "after"',
            "--action", "stop-session", "later")
    flag = e.dir + "/go-on"
    p = e.app("mark", "start", flag, wait=False)
    until("start-session made 'later' active", lambda: active(e, "later"))
    open(flag, "w").close()
    if p.wait(timeout=120) != 0:
        fail("ust-app-trig mark exited %d" % p.returncode)
    until("stop-session made 'later' inactive", lambda: not active(e, "later"))
    st = e.stats()
    if st["go"] != (1, [(1, 1, 0)]) or st["halt"] != (1, [(2, 1, 0)]):
        fail("go/halt: %r" % (st,))


def case_rotate(e):
    out = e.dir + "/rot"
    e.trawl("create", "rot", "-o", out)
    e.trawl("enable-event", "-u", "trig:*", "-s", "rot")
    e.trawl("start", "rot")
    e.trawl("add-trigger", "--name", "turn", *ERM, "--name=trig:mark",
            "--action", "rotate-session", "rot")
    e.app("mark", "rotate")
    if not until("rotate-session ran", lambda: e.stats()["turn"][1][0][1] == 1):
        return
    chunks = until("the first chunk archived",
                   lambda: glob.glob(out + "/archives/*"))
    if chunks:
        text = until("babeltrace2 reads the archived chunk",
                     lambda: bt2_text(sorted(chunks)[0]))
        if text is not None and "trig:mark" not in text:
            fail("the archived chunk lacks trig:mark")
    st = e.stats()["turn"]
    if st[1][0][2]:
        fail("rotate-session failed: %r" % (st,))


def case_flood(e):
    # every event of a tight loop fires (every:1): the app never waits (the
    # ring drops what the daemon has not taken yet), and the daemon keeps
    # serving its clients meanwhile
    e.trawl("add-trigger", "--name", "storm", *ERM, "--name=trig:warn",
            "--action", "stop-session", "nosuch")
    p = e.app("warn", 300000, wait=False)
    served = 0
    while p.poll() is None and served < 10:
        e.trawl("list")  # raises if the daemon does not answer (60 s)
        served += 1
    if p.wait(timeout=120) != 0:
        fail("ust-app-trig warn exited %d" % p.returncode)
    e.trawl("list")
    # every event is counted once, as a hit or as discarded (by the app's
    # ring or the daemon's queue): once the app's end is read, they add up
    until("the storm's 300000 events counted", lambda: sum(e.counts()["storm"][0::2]) >= 300000)
    occ, _, disc = e.counts()["storm"]
    if occ + disc != 300000 or not occ:
        fail("storm: %d occurrences and %d discarded out of 300000 events" % (occ, disc))
    print("storm: %d of 300000 events fired the trigger, %d discarded (dropped in the app's "
          "ring or the daemon's queue); the daemon answered %d commands meanwhile"
          % (occ, disc, served))


def lttng_ref(prefix):
    """An LttngRef (lttngref.py) to run LAPP under, or None (said why)
    where this host has no LTTng or no LAPP."""
    if not os.path.exists(LAPP):
        print("note: no ust-app-trig-lttng (no liblttng-ust-dev): no LTTng side-by-side run")
        return None
    return LttngRef.make(prefix)


def listing_of(text, name):
    """Trigger @name's lines in list-triggers' @text, its owner uid and
    counts made N (each tool's own)."""
    out, keep = [], False
    for line in text.splitlines():
        if line.startswith("- name: "):
            keep = line == "- name: " + name
        if keep:
            line = re.sub(r"^  owner uid: \d+$", "  owner uid: UID", line)
            out.append(re.sub(r": \d+$", ": N", line) if "messages: " in line else line)
    return out


def discarded_lttng():
    """LTTng 2.13's list-triggers of the same trigger once its tracer
    discarded messages (ust-app-trig built against LTTng-UST, a tight loop
    of 1,000,000 events: its notification pipe fills), its counts made N,
    as (before any event, after; None where it discarded none); None (said
    why) without LTTng."""
    ref = lttng_ref("trawldisc")
    if not ref:
        return None
    try:
        ref.lttng("add-trigger", "--name", "dm", *ERM, "--name=trig:*", "--action", "notify")
        before = listing_of(ref.lttng("list-triggers").stdout, "dm")
        ref.run([LAPP, "warn", "1000000"])
        after = listing_of(ref.lttng("list-triggers").stdout, "dm")
    finally:
        ref.close()
    if "      discarded tracer messages: N" not in after:
        print("note: LTTng's tracer discarded none of 1,000,000 messages here: its text "
              "with a count is not compared")
        return before, None
    return before, after


def case_discarded(e):
    """list-triggers' condition errors, as LTTng 2.13 prints them
    ("errors: none" until its tracer discards one of the trigger's
    messages, then "errors:" and "discarded tracer messages: N") and with
    their meaning: a matched event whose hit never reached the trigger.
    An event larger than a slot of the app's notification ring is one,
    deterministically: 1 discarded, and the small one after it fires
    (occurrences 1); --mi xml carries the same count. Side by side, LTTng's
    text of the same trigger before any event and once it discarded some."""
    e.trawl("add-trigger", "--name", "dm", *ERM, "--name=trig:*", "--action", "notify")
    before = listing_of(e.trawl("list-triggers").stdout, "dm")
    if "    errors: none" not in before:
        fail("before any event: %r" % before)
    e.app("mark", "x" * 5000)  # its notifier's record would not fit a slot (4 KiB)
    e.app("mark", "small")
    if not until("the small mark fired dm", lambda: e.stats()["dm"][0] == 1):
        return
    occ, _, disc = e.counts()["dm"]
    if (occ, disc) != (1, 1):
        fail("dm: %d occurrences, %d discarded (wanted 1 and 1)" % (occ, disc))
    text = e.trawl("list-triggers").stdout
    if "    errors:\n      discarded tracer messages: 1\n  actions:" not in text:
        fail("list-triggers: no \"discarded tracer messages: 1\":\n" + text)
    mi = e.trawl("--mi", "xml", "list-triggers").stdout
    m = re.search(r"<name>discarded tracer messages</name>.*?<value>(\d+)</value>", mi, re.S)
    if not m or m.group(1) != "1":
        fail("--mi xml list-triggers: discarded tracer messages %s:\n%s"
             % (m.group(1) if m else "missing", mi))
    after = listing_of(text, "dm")
    theirs = discarded_lttng()
    if theirs is None:
        return
    if theirs[0] != before:
        fail("before any event, printed differently\n--- lttng\n%s\n--- trawl\n%s"
             % ("\n".join(theirs[0]), "\n".join(before)))
    if theirs[1] is not None and theirs[1] != after:
        fail("once messages were discarded, printed differently\n--- lttng\n%s\n--- trawl\n%s"
             % ("\n".join(theirs[1]), "\n".join(after)))
    print("list-triggers prints dm's errors as LTTng 2.13 does%s"
          % ("" if theirs[1] is not None else " (before any discard)"))


def case_notify(e):
    # a C program waits on a notification channel (<trawl/ctl.h>) for the
    # notify action of two of three triggers, with their captured fields
    e.trawl("add-trigger", "--name", "n1", *ERM, "--name=trig:error", "--capture", "code",
            "--capture", "msg", "--capture", "nosuch", "--action", "notify")
    e.trawl("add-trigger", "--name", "n2", *ERM, "--name=trig:warn", "--filter", "n >= 6",
            "--capture", "n", "--action", "notify", "--rate-policy=every:2")
    e.trawl("add-trigger", "--name", "n3", *ERM, "--name=trig:*", "--action", "notify")
    w = subprocess.Popen([NOTIFY, "3", str(WAIT_S * 1000), "n1", "n2"], env=e.env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if w.stdout.readline().strip() != "ready":
        fail("ust-trig-notify did not get ready: " + w.stderr.read())
        return
    e.app("error", 10)
    e.app("warn", 10)
    out, err = w.communicate(timeout=WAIT_S + 30)
    if w.returncode:
        fail("ust-trig-notify exited %d: %s" % (w.returncode, err.strip()))
    got = [(l.split()[0], l.split(" captures=", 1)[1]) for l in out.splitlines()
           if " captures=" in l]
    want = [("n1", "42|disk on fire|<unavailable>"), ("n2", "7"), ("n2", "9")]
    if got != want:
        fail("notifications: want %r, got %r" % (want, out))
    # trig:* saw the 12 events of `error 10` and the 10 of `warn 10`
    if not until("n3 (not subscribed) counts 22 occurrences",
                 lambda: e.stats()["n3"][0] == 22):
        fail("n3: %r" % (e.stats()["n3"],))


def case_appctx(e):
    """Captures of application contexts ($app.PROVIDER:NAME) from a C
    program's provider (ust-app-trig appctx: its answers there), typed
    through the C API: signed integers unsigned unless negative and a float
    a real, as LTTng's msgpack carries them; a string past 1024 bytes cut
    there, as a channel records it; a type past the known ones, a name the
    provider does not answer and a provider never registered unavailable;
    the event's own fields, after the values in the record, as they were."""
    caps = ["code", "$app.c:s8", "$app.c:s32", "$app.c:u64", "$app.c:f", "$app.c:d",
            "$app.c:str", "$app.c:long", "$app.c:bad", "$app.c:nokey", "$app.x:y", "msg",
            "$app.c:s8", "$app.c:s8[0]"]
    args = []
    for c in caps:
        args += ["--capture", c]
    e.trawl("add-trigger", "--name", "ac", *ERM, "--name=trig:error", *args, "--action", "notify")
    w = subprocess.Popen([NOTIFY, "-t", "1", str(WAIT_S * 1000), "ac"], env=e.env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if w.stdout.readline().strip() != "ready":
        fail("ust-trig-notify did not get ready: " + w.stderr.read())
        return
    a = subprocess.run([APP, "appctx", "3"], env=e.env, capture_output=True, text=True,
                       timeout=120)
    if a.returncode:
        fail("ust-app-trig appctx exited %d: %s" % (a.returncode, a.stderr))
        return
    out, err = w.communicate(timeout=WAIT_S + 30)
    if w.returncode:
        fail("ust-trig-notify -t exited %d: %s" % (w.returncode, err.strip()))
        return
    lines = out.splitlines()
    text = [l.split(" captures=", 1)[1].split("|") for l in lines if " captures=" in l]
    typed = [l.split("typed=", 1)[1] for l in lines if l.startswith("  typed=")]
    want = ["u:3", "i:-5", "u:7", "u:18446744073709551615", "r:1.5", "r:0.10000000000000001",
            "t:tab\\x09here", "t:" + "y" * 1024, "?", "?", "?", "t:appctx", "i:-5", "?"]
    want_text = ["3", "-5", "7", "18446744073709551615", "1.5", "0.1", "tab\\x09here",
                 "y" * 1024, "<unavailable>", "<unavailable>", "<unavailable>", "appctx", "-5",
                 "<unavailable>"]
    if typed != want or text != [want_text]:
        fail("application contexts' captures:\n  typed %r\n  want  %r\n  text  %r\n  want  %r" % (
            typed, want, text, [want_text]))


def typed_lttng(caps):
    """LTTng 2.13's typed values (lttngnotify.py, through liblttng-ctl's
    lttng_evaluation_event_rule_matches_get_captured_values()) of the
    same trigger on the same event, from ust-app-trig built against
    LTTng-UST; None (said why) where this host has no LTTng to run."""
    ref = lttng_ref("trawltyped")
    if not ref:
        return None
    w = None
    try:
        args = []
        for c in caps:
            args += ["--capture", c]
        ref.lttng("add-trigger", "--name", "ty", *ERM, "--name=trig:typed", *args,
                  "--action", "notify")
        w = subprocess.Popen(["runuser", "-u", ref.user, "--"] + ref.env() +
                             ["python3", LIB + "/lttngnotify.py", "1", "ty"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if w.stdout.readline().strip() != "ready":
            fail("lttngnotify.py did not get ready: " + w.stderr.read())
            return None
        ref.run([LAPP, "typed", "5"])
        out, err = w.communicate(timeout=WAIT_S + 30)
        if w.returncode:
            fail("lttngnotify.py exited %d: %s" % (w.returncode, err.strip()))
            return None
        return [l.split("typed=", 1)[1] for l in out.splitlines() if l.startswith("  typed=")]
    finally:
        if w and w.poll() is None:
            w.kill()
            w.wait()
        ref.close()


def case_typed(e):
    """The C API's typed values (ust-trig-notify -t) of one field of each
    type, beside their text: integers beyond int64 and negative, a hex
    field (its value, not its text), reals exact (%.17g), a string with its
    control characters as they were, an array, a text array, an enum, an
    array element, and unavailable ones. Integers are typed as LTTng 2.13
    types them (its tracers' msgpack keeps no signedness): unsigned unless
    negative, whatever the field's signedness; and, where LTTng is there,
    the same trigger on the same event under LTTng 2.13 gives the same
    typed values (lttngnotify.py: liblttng-ctl's own API)."""
    caps = ["big", "neg", "hx", "d", "f", "msg", "a", "txt", "col", "a[2]", "nosuch", "a[9]",
            "h", "h[0]", "a[0]", "$ctx.vpid"]
    args = []
    for c in caps:
        args += ["--capture", c]
    e.trawl("add-trigger", "--name", "ty", *ERM, "--name=trig:typed", *args, "--action", "notify")
    w = subprocess.Popen([NOTIFY, "-t", "1", str(WAIT_S * 1000), "ty"], env=e.env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if w.stdout.readline().strip() != "ready":
        fail("ust-trig-notify did not get ready: " + w.stderr.read())
        return
    a = subprocess.run([APP, "typed", "5"], env=e.env, capture_output=True, text=True,
                       timeout=120)
    if a.returncode:
        fail("ust-app-trig typed exited %d: %s" % (a.returncode, a.stderr))
        return
    out, err = w.communicate(timeout=WAIT_S + 30)
    if w.returncode:
        fail("ust-trig-notify -t exited %d: %s" % (w.returncode, err.strip()))
        return
    lines = out.splitlines()
    text = [l for l in lines if " captures=" in l]
    typed = [l.split("typed=", 1)[1] for l in lines if l.startswith("  typed=")]
    want_text = ["18446744073709551610", "-5", "0xfffffffe", "0.1", "1.5",
                 "tab\\x09here\\nnl\\\\", "[5, -1, -2147483648]", "ab\\x01", "7",
                 "-2147483648", "<unavailable>", "<unavailable>", "[0xfffd, 0xff]", "0xfffd",
                 "5", "PID"]
    want = ["u:18446744073709551610", "i:-5", "i:-2", "r:0.10000000000000001", "r:1.5",
            "t:tab\\x09here\\x0anl\\x5c", "a:u:5,i:-1,i:-2147483648", "t:ab\\x01", "U:7",
            "i:-2147483648", "?", "?", "a:i:-3,u:255", "i:-3", "u:5"]
    if len(text) != 1:
        fail("one notification expected: %r" % out)
        return
    got_text = text[0].split(" captures=", 1)[1].split("|")
    # $ctx.vpid: the app's pid (a signed integer's field, positive: unsigned)
    if len(typed) != len(caps) or not typed[-1].startswith("u:") or \
            got_text[-1] != typed[-1][2:]:
        fail("typed values: %r (text %r)" % (typed, got_text))
        return
    if got_text[:-1] != want_text[:-1]:
        fail("captures as text: want %r, got %r" % (want_text[:-1], got_text[:-1]))
    if typed[:-1] != want:
        fail("typed captures: want %r, got %r" % (want, typed[:-1]))
    print("typed: " + " ".join(typed))
    theirs = typed_lttng(caps)
    if theirs is None:
        return
    # (each side's own pid: the vpid's type only)
    if len(theirs) != len(typed) or theirs[:-1] != typed[:-1] or theirs[-1][:2] != typed[-1][:2]:
        fail("typed captures differ from LTTng 2.13's:\n  lttng %r\n  trawl %r" % (theirs, typed))
    else:
        print("the same typed values as LTTng 2.13's")


def case_captures(e):
    caps = ["a[0]", "a[1]", "a[2]", "a[3]", "s[1]", "s[2]", "a", "$ctx.vpid", "$ctx.vtid",
            "$ctx.procname", "$ctx.cgroup_ns", "$ctx.pid_ns", "$ctx.pthread_id",
            "$app.prov:ctx", "$ctx.vpid[0]"]
    args = []
    for c in caps:
        args += ["--capture", c]
    e.trawl("add-trigger", "--name", "c1", *ERM, "--name=trig:arr", *args, "--action", "notify")
    w = subprocess.Popen([NOTIFY, "1", str(WAIT_S * 1000), "c1"], env=e.env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if w.stdout.readline().strip() != "ready":
        fail("ust-trig-notify did not get ready: " + w.stderr.read())
        return
    a = subprocess.run([APP, "arr", "5"], env=e.env, capture_output=True, text=True, timeout=120)
    if a.returncode:
        fail("ust-app-trig arr exited %d: %s" % (a.returncode, a.stderr))
        return
    pid = a.stdout.strip()
    out, err = w.communicate(timeout=WAIT_S + 30)
    if w.returncode:
        fail("ust-trig-notify exited %d: %s" % (w.returncode, err.strip()))
        return
    lines = [l for l in out.splitlines() if " captures=" in l]
    if len(lines) != 1:
        fail("one notification expected: %r" % out)
        return
    got = lines[0].split(" captures=", 1)[1].split("|")
    ns = [str(os.stat("/proc/self/ns/" + n).st_ino) for n in ("cgroup", "pid")]
    want = ["-1", "5", "7", "<unavailable>", "7", "<unavailable>", "[-1, 5, 7]", pid, pid,
            "ust-app-trig"] + ns + ["PTHREAD", "<unavailable>", "<unavailable>"]
    if len(got) != len(want):
        fail("%d captures expected, got %r" % (len(want), got))
        return
    if not got[12].startswith("0x") or int(got[12], 16) == 0:
        fail("$ctx.pthread_id: a non-zero hex value expected, got %r" % got[12])
    got[12] = "PTHREAD"
    if got != want:
        fail("captures: want %r, got %r" % (want, got))
    print("captures: " + lines[0])


class Waiter:
    """ust-trig-notify COUNT for TRIGGERS, its lines read as they come."""

    def __init__(self, e, count, *triggers):
        self.p = subprocess.Popen([NOTIFY, str(count), str(WAIT_S * 4 * 1000)] + list(triggers),
                                  env=e.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.ok = self.next() == "ready"
        if not self.ok:
            fail("ust-trig-notify did not get ready")

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)

    def next(self):
        """The next line (None: it exited, or nothing within WAIT_S)."""
        try:
            return self.lines.get(timeout=WAIT_S)
        except queue.Empty:
            return None

    def trigger(self, want):
        """Takes the next notification: True if of trigger @want."""
        line = self.next()
        if line is None or line.split()[0] != want:
            fail("notification of %s expected, got %r (stderr: %s)"
                 % (want, line, self.p.stderr.read() if line is None else ""))
            return False
        print("received: " + line)  # latency_us: from the sample that fired it
        return True

    def close(self):
        rest = []
        while True:
            line = self.next()
            if line is None:
                break
            rest.append(line)
        if self.p.wait(timeout=WAIT_S) != 0:
            fail("ust-trig-notify exited %d: %s (%r)"
                 % (self.p.returncode, self.p.stderr.read().strip(), rest))
        return rest


def cond(e, *args):
    r = subprocess.run([COND] + [str(a) for a in args], env=e.env, capture_output=True,
                       text=True, timeout=60)
    if r.returncode:
        raise RuntimeError("ust-trig-cond %s: %s" % (" ".join(map(str, args)), r.stderr.strip()))


def case_usage(e):
    # 4 x 4 KiB per CPU, discard mode, never drained (a snapshot session):
    # the app's 20,000 events (~30 bytes each) fill a CPU's buffer, which
    # stays full until `clear`
    e.trawl("create", "fill", "--snapshot", "-o", e.dir + "/fill")
    e.trawl("enable-channel", "-u", "-s", "fill", "small", "--discard", "--subbuf-size=4096",
            "--num-subbuf=4", "--monitor-timer=50ms")
    r = e.trawl("list", "fill")
    if "Monitor timer:    50000 " not in r.stdout:
        fail("list shows no 50 ms monitor timer:\n" + r.stdout)
    e.trawl("enable-event", "-u", "trig:*", "-s", "fill", "-c", "small")
    e.trawl("start", "fill")
    w = Waiter(e, 4, "hi", "lo", "hi2")
    if not w.ok:
        return
    cond(e, "hi", "high", "fill", "small", "0.5", "notify")
    cond(e, "hi2", "high", "fill", "small", "8192", "notify/every:2", "snapshot:fill/every:2")
    e.app("warn", 20000)
    if not (w.trigger("hi")):
        return
    # full through many samples (50 ms each) meanwhile: no second "hi"
    cond(e, "lo", "low", "fill", "small", "0.25", "notify")
    time.sleep(0.5)
    e.trawl("clear", "fill")
    if not w.trigger("lo"):
        return
    e.app("warn", 20000)
    if not (w.trigger("hi") and w.trigger("hi2")):
        return
    rest = w.close()
    if rest[:-1]:
        fail("notifications after the expected four: %r" % rest)
    st = e.stats()
    want = {"hi": (2, [(0, 2, 0)]), "hi2": (2, [(0, 1, 0), (4, 1, 0)]), "lo": (1, [(0, 1, 0)])}
    for k, v in want.items():
        if st.get(k) != v:
            fail("trigger %s: want %r, got %r" % (k, v, st.get(k)))

    # hi2's snapshot-session (the flight recorder's "snapshot when the
    # buffers fill"): the refilled buffer's events, which babeltrace2 reads
    def read_snapshot():
        dirs = glob.glob(e.dir + "/fill/*-*-*")
        text = bt2_text(dirs[0]) if len(dirs) == 1 else None
        return text if text and "trig:warn" in text else None
    text = until("babeltrace2 reads trig:warn in hi2's snapshot", read_snapshot)
    if text and text.count("trig:warn") < 100:
        fail("hi2's snapshot holds %d trig:warn" % text.count("trig:warn"))


def case_consumed(e):
    out = e.dir + "/cons"
    e.trawl("create", "cons", "-o", out)
    e.trawl("enable-channel", "-u", "-s", "cons", "ch", "--subbuf-size=4096",
            "--num-subbuf=8", "--switch-timer=20000", "--monitor-timer=100ms")
    e.trawl("enable-event", "-u", "trig:*", "-s", "cons", "-c", "ch")
    e.trawl("start", "cons")
    w = Waiter(e, 1, "big")
    if not w.ok:
        return
    cond(e, "big", "size", "cons", 256 * 1024, "notify", "stop:cons")
    # ~30 bytes an event: 20,000 events a round; rounds until the trigger stopped it
    rounds = 0
    while active(e, "cons") and rounds < 100:
        e.app("warn", 20000)
        rounds += 1
    if not until("the trigger's stop-session stopped 'cons'", lambda: not active(e, "cons")):
        return
    if not w.trigger("big"):
        return
    w.close()
    size = sum(os.path.getsize(f) for f in glob.glob(out + "/**/*", recursive=True)
               if os.path.isfile(f))
    if size < 256 * 1024:
        fail("the trace holds %d bytes, less than the trigger's 256 KiB" % size)
    st = e.stats()["big"]
    if st != (1, [(0, 1, 0), (2, 1, 0)]):
        fail("big: one occurrence, notify and stop-session run once each: %r" % (st,))
    print("consumed-size: stopped after %d rounds of 20,000 events, the trace %d bytes"
          % (rounds, size))


CASES = {"discarded": case_discarded, "captures": case_captures, "typed": case_typed, "appctx": case_appctx, "usage": case_usage, "consumed": case_consumed, "snapshot": case_snapshot, "flood": case_flood, "notify": case_notify, "rate": case_rate, "startstop": case_startstop,
         "rotate": case_rotate}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        sys.exit("usage: triggers.py " + "|".join(CASES))
    e = Env()
    try:
        CASES[sys.argv[1]](e)
    finally:
        e.close(keep=bool(FAILS))
    if FAILS:
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
