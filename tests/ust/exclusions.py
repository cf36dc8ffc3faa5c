#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`enable-event -u PATTERN --exclude NAMES` (event name exclusions), side by
side with LTTng 2.13: a grid of rules, each in a channel of its own, on
ust-app-compat's events (tcompat:ints, arrays, seqs, strings, first, second,
noargs; tclassic:net; tborrow:borrowed), recorded in one run per tracer. For
each rule both tracers must take or refuse it alike, print the same line
(and warning), and record the same events (read with babeltrace2's bt2, by
channel). Also, trawl-only: `list` shows the exclusions, a rule with
exclusions is another rule than the same one without, the same rule twice
is refused, and the kernel domain refuses exclusions. Without LTTng on the
host the grid runs on trawl only, checked against the names it must keep.
"""
import fnmatch
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402
from lttngref import LttngRef  # noqa: E402

APP = os.path.join(BIN, "ust-app-compat")
APP_LTTNG = os.path.join(BIN, "ust-app-compat-lttng")
LIB = os.path.join(BIN, "..", "lib")
SMALL = ["--subbuf-size", "4096", "--num-subbuf", "2"]
ALL = ["tcompat:ints", "tcompat:arrays", "tcompat:seqs", "tcompat:strings", "tcompat:first",
       "tcompat:second", "tcompat:noargs", "tclassic:net", "tborrow:borrowed"]

# (pattern, exclusions, extra enable-event arguments, refused)
GRID = [
    ("tcompat:*", "tcompat:ints", [], False),
    ("tcompat:*", "tcompat:s*", [], False),
    ("*", "tcompat:*", [], False),
    ("*", "tcompat:*,tclassic:*", [], False),
    ("tcompat:*", "tcompat:nothing", [], False),          # a warning: excludes nothing
    ("tcompat:*", "other:ints", [], False),               # the same
    ("*", "*ints,*net", [], False),                       # stars anywhere
    ("*", "*:*s", [], False),
    ("tcompat:*", "tcompat:f*,tcompat:second", [], False),
    ("tcompat:s*", "tcompat:strings", [], False),
    ("t*t:*", "tcompat:ints", [], False),                 # a star inside: not checked by the client
    ("tcompat:*", "tcompat:first", ["--filter", "a == 3"], False),
    ("tcompat:*", "tcompat:ints", ["--loglevel", "TRACE_WARNING"], False),
    ("tcompat:ints", "x", [], True),                      # not a pattern
    ("tcompat:s*", "tcompat:*", [], True),                # excludes all of it
    ("tcompat:s*", "tcompat:s*", [], True),
]


def channel_of(stream_name):
    base = os.path.basename(stream_name or "")
    ch = base.rsplit("_", 1)[0]
    return ch if ch.startswith("c") and ch[1:].isdigit() else None


def by_channel(trace):
    import bt2
    got = {}
    for m in bt2.TraceCollectionMessageIterator(trace):
        if type(m) is bt2._EventMessageConst:
            ch = channel_of(m.event.stream.name)
            if ch is not None:
                got.setdefault(ch, {}).setdefault(m.event.name, 0)
                got[ch][m.event.name] += 1
    return got


def same_events(evs):
    """What both tracers must record alike: all but the state dump's objects
    (the two programs link other libraries) - its start and end stay."""
    return {n: c for n, c in evs.items()
            if not n.startswith(("lttng_ust_statedump:bin_info", "lttng_ust_statedump:build_id",
                                 "lttng_ust_statedump:debug_link"))}


def expected(pattern, excl):
    """The names a rule keeps, as LTTng's star globs match (fnmatch, with
    no '?' or '[' in these names)."""
    return sorted(n for n in ALL if fnmatch.fnmatchcase(n, pattern)
                  and not any(fnmatch.fnmatchcase(n, x) for x in excl.split(",")))


def record(run_cmd, run_app, prefix, out):
    """One session, a channel per rule; ({k: events}, {k: (refused, stdout, warning)})."""
    said = {}
    run_cmd("create", prefix, "--output", out)
    for k, (pat, excl, extra, _) in enumerate(GRID):
        run_cmd("enable-channel", "-u", "-s", prefix, *SMALL, "c%d" % k)
        r = run_cmd("enable-event", "-u", "-s", prefix, "-c", "c%d" % k, pat, "--exclude", excl,
                    *extra, check=False)
        warn = [ln for ln in r.stderr.splitlines() if ln.startswith("Warning:")]
        said[k] = (r.returncode != 0, r.stdout.strip(), warn)
    run_cmd("start", prefix)
    try:
        run_app()
    finally:
        run_cmd("stop", prefix)
        run_cmd("destroy", prefix)
    got = by_channel(out)
    return {k: got.get("c%d" % k, {}) for k in range(len(GRID))}, said


def trawl_only(e):
    """list, rule identity, kernel refusal."""
    out = e.dir + "/one"
    e.trawl("create", "one", "--output", out)
    e.trawl("enable-event", "-u", "tcompat:*", "-x", "tcompat:ints,tcompat:s*")
    r = e.trawl("enable-event", "-u", "tcompat:*", "-x", "tcompat:ints,tcompat:s*", check=False)
    if r.returncode == 0 or "already enabled" not in r.stderr:
        fail("the same rule with the same exclusions twice: exit %d, %r" % (r.returncode, r.stderr))
    # Without exclusions (or with others) it is another rule.
    e.trawl("enable-event", "-u", "tcompat:*")
    e.trawl("enable-event", "-u", "tcompat:*", "-x", "tcompat:ints")
    lines = [ln.strip() for ln in e.trawl("list", "one").stdout.splitlines() if "tcompat:*" in ln]
    # LTTng 2.13's list.c order (its own session daemon dies listing these)
    want = ["tcompat:* (type: tracepoint) [enabled] [exclusions: tcompat:ints,tcompat:s*]",
            "tcompat:* (type: tracepoint) [enabled]",
            "tcompat:* (type: tracepoint) [enabled] [exclusions: tcompat:ints]"]
    if sorted(lines) != sorted(want):
        fail("list shows %r, wanted %r" % (lines, want))
    e.trawl("destroy", "one")
    # The kernel domain has none (LTTng 2.13's line), in the client...
    r = e.trawl("enable-event", "-k", "sched_*", "-x", "sched_switch", "-s", "one", check=False)
    if r.returncode == 0 or "not yet implemented for kernel events" not in r.stderr:
        fail("kernel exclusions: exit %d, %r" % (r.returncode, r.stderr))


class Env(trawltest.Env):
    def __init__(self):
        super().__init__("trawl-ust-exclusions.")
        self.env["LD_LIBRARY_PATH"] = LIB

    def app(self):
        r = subprocess.run([APP, "1"], env=self.env, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            fail("%s: exit %d: %s" % (APP, r.returncode, r.stderr[-300:]))


def main():
    require_bt2()
    e = Env()
    try:
        got, said = record(e.trawl, e.app, "x", e.dir + "/grid")
        trawl_only(e)
    finally:
        e.close()
    # trawl against the names each rule must keep
    for k, (pat, excl, extra, refused) in enumerate(GRID):
        if said[k][0] != refused:
            fail("rule %s -x %s: trawl %s it" % (pat, excl, "refuses" if said[k][0] else "takes"))
        elif not refused and not extra and \
                sorted(n for n in got[k] if n in ALL) != expected(pat, excl):
            fail("rule %s -x %s: trawl recorded %s, wanted %s" %
                 (pat, excl, sorted(got[k]), expected(pat, excl)))
    if not any(got.values()):
        fail("no rule recorded anything: the grid is not exercised")
    # One state dump per start of the session, in each channel whose rule
    # takes it: the app gets its providers' channels one after the other,
    # and a START that turns on one more must not dump again (it did).
    sd = "lttng_ust_statedump:start"
    for k, (pat, excl, extra, refused) in enumerate(GRID):
        takes = fnmatch.fnmatchcase(sd, pat) and \
            not any(fnmatch.fnmatchcase(sd, x) for x in excl.split(","))
        if not refused and takes and got[k].get(sd) != 1:
            fail("rule %s -x %s: %s state dumps, wanted 1" % (pat, excl, got[k].get(sd)))
    ref = LttngRef.make("trawlexcl") if os.path.exists(APP_LTTNG) else None
    if not ref:
        print("note: no LTTng here: the grid ran on trawl only")
        sys.exit(1 if FAILS else 0)
    try:
        out = "%s/trace" % ref.dir
        os.makedirs(out)
        os.chown(out, ref.uid, -1)

        def lttng(*args, check=True):
            r = ref.lttng_raw("lttng", *args)
            if check and r.returncode != 0:
                raise RuntimeError("lttng %s: %s" % (" ".join(args), r.stderr.strip()))
            return r
        want, want_said = record(lttng, lambda: ref.run([APP_LTTNG, "1"]), "x", out + "/t")
    finally:
        ref.close()
    same = 0
    for k, (pat, excl, extra, _) in enumerate(GRID):
        rule = "%s -x %s %s" % (pat, excl, " ".join(extra))
        if said[k][0] != want_said[k][0]:
            fail("rule %s: trawl %s it, LTTng %s it" % (rule, "refuses" if said[k][0] else "takes",
                                                        "refuses" if want_said[k][0] else "takes"))
        elif said[k][1] != want_said[k][1]:
            fail("rule %s: trawl says %r, LTTng %r" % (rule, said[k][1], want_said[k][1]))
        elif said[k][2] != want_said[k][2]:
            fail("rule %s: trawl warns %r, LTTng %r" % (rule, said[k][2], want_said[k][2]))
        elif same_events(got[k]) != same_events(want[k]):
            fail("rule %s: trawl recorded %s, LTTng %s" % (rule, got[k], want[k]))
        else:
            same += 1
    print("%d of %d rules with exclusions: the same as LTTng 2.13 (taken or refused, the line "
          "said, the events recorded)" % (same, len(GRID)))
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
