#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""User-space filters (`trawl enable-event -u NAME --filter EXPR`) through the
real trawl commands and daemons, checked with babeltrace2's Python bindings.

    filter.py values   one channel without filter (the reference) and up to 7
                       filtered channels per run of ust-app-filter; each
                       filtered channel must hold exactly the reference events
                       for which a Python predicate (the same condition,
                       written independently) is true
    filter.py rules    two sessions with different filters on the same app; a
                       rule with a filter plus one without; two filtered rules
                       on one event (their union); disable one of them
    filter.py space    200,000 events, 196 passing, through a 16 KiB channel: all
                       196 recorded, none discarded (no space for the others)
    filter.py nowrite  filters on fields for filters only (ctf_*_nowrite), which
                       are not recorded
    filter.py errors   bad filters: one line on stderr naming the column, a
                       non-zero exit, nothing created; `trawl list` shows filters
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402

require_bt2()
import bt2  # noqa: E402

APP = os.path.join(BIN, "ust-app-filter")


class Env(trawltest.Env):
    def __init__(self):
        super().__init__("trawl-ust-filter.")

    def run_app(self):
        """Runs the app to its end; returns its pid."""
        p = subprocess.Popen([APP], env=self.env)
        if p.wait(timeout=60) != 0:
            raise RuntimeError("ust-app-filter exited %d" % p.returncode)
        return p.pid


def val(f):
    """A bt2 field as a plain Python value (enums: their integer)."""
    if isinstance(f, bt2._StringFieldConst):
        return str(f)
    if isinstance(f, bt2._EnumerationFieldConst):
        return int(f)
    if isinstance(f, bt2._ArrayFieldConst):
        if f.cls.element_field_class is not None and \
                isinstance(f.cls.element_field_class, bt2._StringFieldClassConst):
            return str(f)
        return [val(x) for x in f]
    if isinstance(f, bt2._RealFieldConst):
        return float(f)
    if isinstance(f, bt2._IntegerFieldConst):
        return int(f)
    return str(f)


def read_channels(path):
    """{stream class id: [(event name, {field: value})]} in trace order.
    A filtered-out event is neither recorded nor discarded: any discarded
    event is a failure."""
    out = {}
    for m in bt2.TraceCollectionMessageIterator(path):
        if type(m) is bt2._DiscardedEventsMessageConst:
            fail("%s: %s events discarded" % (path, m.count))
        if type(m) is not bt2._EventMessageConst:
            continue
        p = m.event.payload_field
        d = {k: val(p[k]) for k in p.keys()} if p is not None else {}
        out.setdefault(m.event.stream.cls.id, []).append((m.event.name, d))
    return out


def key(ev):
    name, d = ev
    return name + repr(sorted(d.items()))


# (filter, predicate over (event name, fields, app pid)). A predicate
# touching a field the event lacks raises KeyError: false, as LTTng's rule.
CASES = [
    # integers, each size and signedness, hex and network byte order
    ('s32 == -3', lambda n, f, pid: f["s32"] == -3),
    ('s8 < -2', lambda n, f, pid: f["s8"] < -2),
    ('u32 >= 0x40000000', lambda n, f, pid: f["u32"] >= 0x40000000),
    ('u64 > 6000000000', lambda n, f, pid: f["u64"] > 6000000000),
    ('s64 > -2 && s64 <= 2', lambda n, f, pid: -2 < f["s64"] <= 2),
    ('hex == 0x30000000', lambda n, f, pid: f["hex"] == 0x30000000),
    ('net == 805306368', lambda n, f, pid: f["net"] == 805306368),
    ('u8 == 0 && s16 != 0', lambda n, f, pid: f["u8"] == 0 and f["s16"] != 0),
    ('raw == 012', lambda n, f, pid: f["raw"] == 10),
    ('-s64 == 3', lambda n, f, pid: -f["s64"] == 3),
    ('u32 > -1', lambda n, f, pid: f["u32"] > -1),
    # floats, and integers against floats
    ('d > 1.0', lambda n, f, pid: f["d"] > 1.0),
    ('f == 0.5', lambda n, f, pid: f["f"] == 0.5),
    ('d < -.5e0', lambda n, f, pid: f["d"] < -0.5),
    ('s64 >= 1.5', lambda n, f, pid: f["s64"] >= 1.5),
    ('d == 2', lambda n, f, pid: f["d"] == 2),
    # strings, globs, escapes, text arrays and sequences, ordering
    ('str == "gamma"', lambda n, f, pid: f["str"] == "gamma"),
    ('str == "*ta"', lambda n, f, pid: f["str"].endswith("ta")),
    ('str == "e*a"', lambda n, f, pid: f["str"].startswith("e") and f["str"].endswith("a")),
    ('str != "*a*"', lambda n, f, pid: "a" not in f["str"]),
    ('str == "*"', lambda n, f, pid: "str" in f),
    ('str < "d*"', lambda n, f, pid: f["str"] < "d"),
    ('str == "alpha\\*"', lambda n, f, pid: False and f["str"]),
    ('str < "c"', lambda n, f, pid: f["str"] < "c"),
    ('str >= "theta"', lambda n, f, pid: f["str"] >= "theta"),
    ('arrtext == "delt"', lambda n, f, pid: f["arrtext"] == "delt"),
    ('seqtext == "bet*"', lambda n, f, pid: f["seqtext"].startswith("bet")),
    ('str == seqtext && arrtext != "eta"', lambda n, f, pid: f["str"] == f["seqtext"] and f["arrtext"] != "eta"),
    # arrays and sequences by index; past the end: false
    ('arr[1] == -3', lambda n, f, pid: f["arr"][1] == -3),
    ('arr[2] > 10', lambda n, f, pid: f["arr"][2] > 10),
    ('arr[3] == 0 || 1', lambda n, f, pid: False and f["arr"]),
    ('seq[2] == 9', lambda n, f, pid: len(f["seq"]) > 2 and f["seq"][2] == 9),
    ('seq[0] >= 0', lambda n, f, pid: len(f["seq"]) > 0),
    ('seqhex[1] < 0 || _seq_length == 0', lambda n, f, pid: len(f["seq"]) > 1 and f["seqhex"][1] < 0),
    # enums compare as integers
    ('color == 12', lambda n, f, pid: f["color"] == 12),
    ('color >= 10 && color <= 19', lambda n, f, pid: 10 <= f["color"] <= 19),
    # context fields
    ('$ctx.vpid == %(pid)d', lambda n, f, pid: True),
    ('$ctx.vpid != %(pid)d', lambda n, f, pid: False),
    ('$ctx.vtid == %(pid)d && a < 3', lambda n, f, pid: f["a"] < 3),
    ('$ctx.procname == "ust-app-filter"', lambda n, f, pid: True),
    ('$ctx.procname == "ust-app-*" && raw == 1', lambda n, f, pid: f["raw"] == 1),
    ('$ctx.procname == "other*"', lambda n, f, pid: False),
    ('$ctx.nice <= 19 && $ctx.prio >= -101 && a == 1', lambda n, f, pid: f["a"] == 1),
    # && || ! and parentheses
    ('(s32 == -5 || s32 == 4) && !(u32 == 0)', lambda n, f, pid: f["s32"] == 4),
    ('a == 3 || b == -3', lambda n, f, pid: f["a"] == 3 or f["b"] == -3),
    ('!(a > 2)', lambda n, f, pid: not f["a"] > 2),
    ('!raw', lambda n, f, pid: f["raw"] == 0),
    # a field the event lacks: the whole filter is false for it
    ('nosuch == 1 || 1', lambda n, f, pid: False),
    ('s32 == 1 || str == "alpha"', lambda n, f, pid: False),
    # bitwise operators
    ('(u32 & 0x30000000) == 0x30000000', lambda n, f, pid: f["u32"] & 0x30000000 == 0x30000000),
    # ">>" is logical, on the value's 64 bits (LTTng's)
    ('(s64 >> 1) == 0x7ffffffffffffffd', lambda n, f, pid: (f["s64"] % 2**64) >> 1 == 0x7ffffffffffffffd),
    # bitwise operators bind tighter than comparisons (LTTng's grammar)
    ('raw & 1 == 1', lambda n, f, pid: f["raw"] & 1 == 1),
    ('~s64 == 0', lambda n, f, pid: f["s64"] == -1),
    ('(raw ^ 1) == 0', lambda n, f, pid: f["raw"] == 1),
    ('(1 << 4) == 16 && (raw | 1) == 99', lambda n, f, pid: f["raw"] | 1 == 99),
    ('(b << 1) == -4', lambda n, f, pid: f["b"] * 2 == -4),
    ('(a << 64) == 0', lambda n, f, pid: False and f["a"]),
    # literals alone
    ('1', lambda n, f, pid: True),
    ('0.0', lambda n, f, pid: False),
]


def expected(ref, pred, pid):
    out = []
    for ev in ref:
        try:
            ok = pred(ev[0], ev[1], pid)
        except (KeyError, IndexError):
            ok = False
        if ok:
            out.append(ev)
    return out


CHECKED = [0, 0]


def compare(label, got, want):
    CHECKED[0] += 1
    CHECKED[1] += len(want)
    g, w = sorted(map(key, got)), sorted(map(key, want))
    if g != w:
        missing = [x for x in w if x not in g][:3]
        extra = [x for x in g if x not in w][:3]
        fail("%s: %d events, expected %d; missing %s; unexpected %s" %
             (label, len(got), len(want), missing, extra))
        return False
    return True


def test_values():
    per_run = 7
    e = Env()
    try:
        for start in range(0, len(CASES), per_run):
            cases = CASES[start:start + per_run]
            out = "%s/trace%d" % (e.dir, start)
            e.trawl("create", "s", "--output", out)
            e.trawl("enable-channel", "-u", "ref")
            e.trawl("enable-event", "-u", "tall:*", "-c", "ref")
            # The app first, so that filters may name its pid: it waits (up
            # to 5 s) for its events to be enabled, which start does.
            # (14 commands before the start: under ASan on a loaded machine
            # they took over the app's default 5 s, and the reference
            # channel had 40 of its 80 events)
            p = subprocess.Popen([APP], env=dict(e.env, TRAWL_UST_REGISTER_TIMEOUT="0",
                                                  FILTER_APP_WAIT_MS="50000"))
            pid = p.pid
            for i, (text, _) in enumerate(cases):
                ch = "f%d" % i
                e.trawl("enable-channel", "-u", ch)
                e.trawl("enable-event", "-u", "tall:*", "-c", ch, "--filter", text % {"pid": pid})
            e.trawl("start")
            if p.wait(timeout=60) != 0:
                raise RuntimeError("ust-app-filter exited %d" % p.returncode)
            e.trawl("stop")
            e.trawl("destroy")
            chans = read_channels(out)
            ref = chans.get(0, [])
            if len(ref) != 80:
                fail("reference channel: %d events, expected 80" % len(ref))
                continue
            for i, (text, pred) in enumerate(cases):
                text = text % {"pid": pid}
                compare("filter '%s'" % text, chans.get(i + 1, []), expected(ref, pred, pid))
    finally:
        e.close()


def one_session(e, name, out, rules):
    e.trawl("create", name, "--output", out)
    e.trawl("enable-channel", "-u", "ch", "-s", name)
    for r in rules:
        e.trawl("enable-event", "-u", "-s", name, "-c", "ch", *r)
    e.trawl("start", name)


def test_rules():
    e = Env()
    try:
        # Reference, and two sessions with different filters on one app.
        one_session(e, "ref", e.dir + "/ref", [["tall:*"]])
        one_session(e, "s1", e.dir + "/s1", [["tall:ints", "--filter", "s32 < 0"]])
        one_session(e, "s2", e.dir + "/s2", [["tall:ints", "--filter", "s32 >= 2"],
                                             ["tall:strings", "--filter", 'str == "*a"']])
        # A filtered rule plus one without on the same event: every event.
        one_session(e, "s3", e.dir + "/s3", [["tall:ints", "--filter", "s32 == 0"], ["tall:ints"]])
        # Two filtered rules on one event: their union (a missing field in
        # one does not hide the other's matches).
        one_session(e, "s4", e.dir + "/s4", [["tall:*", "--filter", "s32 == -5"],
                                             ["tall:*", "--filter", 'str == "beta"']])
        # Two rules, then one of them disabled before start.
        e.trawl("create", "s5", "--output", e.dir + "/s5")
        e.trawl("enable-channel", "-u", "ch", "-s", "s5")
        e.trawl("enable-event", "-u", "-s", "s5", "-c", "ch", "tall:ints", "--filter", "s32 == 1")
        e.trawl("enable-event", "-u", "-s", "s5", "-c", "ch", "tall:ints", "--filter", "s32 == 2")
        e.trawl("disable-event", "-u", "-s", "s5", "-c", "ch", "tall:ints", check=False)
        e.trawl("start", "s5")
        # Per-process buffers: the filter goes with the app's own channel.
        e.trawl("create", "s6", "--output", e.dir + "/s6")
        e.trawl("enable-channel", "-u", "ch", "-s", "s6", "--buffers-pid")
        e.trawl("enable-event", "-u", "-s", "s6", "-c", "ch", "tall:*", "--filter",
                'seqtext == "*a" && str != "delta"')
        e.trawl("start", "s6")
        e.run_app()
        for s in ("ref", "s1", "s2", "s3", "s4", "s5", "s6"):
            e.trawl("stop", s)
        ref = read_channels(e.dir + "/ref").get(0, [])
        if len(ref) != 80:
            fail("reference: %d events, expected 80" % len(ref))
            return

        def sel(pred):
            return expected(ref, lambda n, f, pid: pred(n, f), 0)

        def got(s):
            return read_channels(e.dir + "/" + s).get(0, []) if os.path.isdir(e.dir + "/" + s) else []

        compare("session s1 (s32 < 0)", got("s1"), sel(lambda n, f: n == "tall:ints" and f["s32"] < 0))
        compare("session s2", got("s2"), sel(lambda n, f: (n == "tall:ints" and f["s32"] >= 2) or
                                             (n == "tall:strings" and f["str"].endswith("a"))))
        compare("s3 (filtered + unfiltered rule)", got("s3"), sel(lambda n, f: n == "tall:ints"))
        compare("s4 (two filtered rules)", got("s4"), sel(lambda n, f: f.get("s32") == -5 or
                                                        f.get("str") == "beta"))
        compare("s6 (per-process buffers)", got("s6"),
                sel(lambda n, f: f["seqtext"].endswith("a") and f["str"] != "delta"))
        # disable-event names a rule by name: trawl disables every rule of
        # that name or refuses; either way the trace holds a subset of the
        # union, each event matching a rule still enabled.
        s5 = got("s5")
        lst = e.trawl("list", "s5").stdout
        # LTTng 2.13's rule line: "NAME (type: tracepoint) [enabled] [filter: 'EXPR']"
        still = [t for t in ("s32 == 1", "s32 == 2") if "[enabled] [filter: '%s']" % t in lst]
        want = sel(lambda n, f: n == "tall:ints" and any(
            f["s32"] == int(t.split("==")[1]) for t in still))
        compare("s5 after disable-event (rules still enabled: %s)" % still, s5, want)
    finally:
        e.close()


# Filters on fields for filters only (ctf_*_nowrite), never recorded.
NOWRITE_CASES = [
    ('secret == 30', lambda k: k == 3),
    ('tag == "t*5"', lambda k: str(5 * k).endswith("5")),
    ('half > 3.5', lambda k: k / 2.0 > 3.5),
    ('arr[1] == 4 || arr[2] == -9', lambda k: k in (2, 9)),
    ('initial == "t" && shown == 2 && secret == 20', lambda k: k == 2),
    ('_initial_length == 1 && label == "t1*"', lambda k: k in (2, 3)),
]


def test_nowrite():
    e = Env()
    try:
        out = e.dir + "/t"
        e.trawl("create", "s", "--output", out)
        e.trawl("enable-channel", "-u", "ref")
        e.trawl("enable-event", "-u", "tfilt:*", "-c", "ref")
        for i, (text, _) in enumerate(NOWRITE_CASES):
            e.trawl("enable-channel", "-u", "f%d" % i)
            e.trawl("enable-event", "-u", "tfilt:*", "-c", "f%d" % i, "--filter", text)
        e.trawl("start")
        e.run_app()
        e.trawl("stop")
        chans = read_channels(out)
        ref = chans.get(0, [])
        if [f for _, f in ref] != [dict(shown=k, label="t%d" % (5 * k)) for k in range(10)]:
            fail("reference: the recorded fields are not {shown, label} for k = 0..9: %s" % ref[:3])
            return
        for i, (text, pred) in enumerate(NOWRITE_CASES):
            compare("filter '%s' (fields for filters only)" % text, chans.get(i + 1, []),
                    [ev for ev in ref if pred(ev[1]["shown"])])
    finally:
        e.close()


def test_space():
    """Filtered-out events take no buffer space: 200,000 events through a
    channel of 4 x 4 KiB, 196 of them passing; a filter evaluated after the
    reservation would fill the buffer thousands of times over."""
    e = Env()
    try:
        e.trawl("create", "s", "--output", e.dir + "/t")
        e.trawl("enable-channel", "-u", "ch", "--subbuf-size", "4096", "--num-subbuf", "4")
        e.trawl("enable-event", "-u", "tall:seq", "-c", "ch", "--filter", "(n & 1023) == 0")
        e.trawl("start")
        p = subprocess.Popen([os.path.join(BIN, "ust-app-all"), "1", "200000", "5000"], env=e.env)
        if p.wait(timeout=60) != 0:
            raise RuntimeError("ust-app-all exited %d" % p.returncode)
        e.trawl("stop")
        got = sorted(f["n"] for _, f in read_channels(e.dir + "/t").get(0, []))
        want = list(range(0, 200000, 1024))
        if got != want:
            fail("space: %d events recorded, expected %d (n = 0, 1024, ...); first ones: %s" %
                 (len(got), len(want), got[:5]))
        else:
            CHECKED[0] += 1
            CHECKED[1] += len(want)
    finally:
        e.close()


def test_errors():
    e = Env()
    try:
        e.trawl("create", "s", "--output", e.dir + "/t")
        bad = [
            ('s32 == )', 8),
            ('(s32 == 1', 10),
            ('str == "abc', 8),
            ('s32 + 1 == 2', 5),
            ('$nope.x == 1', 1),
            ('s32 ==', 7),
            ('str < "a*b"', 5),
            ('"abc" == 1', 7),
            ('1.5 << 1', 5),
            ('"abc"', 1),
            ('s32 = 1', 5),
            ('x[y] == 1', 3),
            ('str == "\\q"', 9),
            (' ', 1),
            ('99999999999999999999 == 1', 1),
            ('(' * 40 + '1' + ')' * 40, 33),
        ]
        for text, col in bad:
            r = e.trawl("enable-event", "-u", "tall:ints", "--filter", text, check=False)
            lines = r.stderr.strip().splitlines()
            if r.returncode == 0 or len(lines) != 1 or ("column %d" % col) not in lines[0] or \
                    "filter:" not in lines[0]:
                fail("bad filter %r: exit %d, stderr %r (want one 'filter: ... column %d' line)" %
                     (text, r.returncode, r.stderr, col))
        r = e.trawl("enable-event", "-u", "tall:ints", "--filter", "s32 == " + "1" * 1100, check=False)
        if r.returncode == 0 or len(r.stderr.strip().splitlines()) != 1:
            fail("overlong filter: exit %d, stderr %r" % (r.returncode, r.stderr))
        # Nothing was created by the bad ones (not even the default channel).
        lst = e.trawl("list", "s").stdout
        if "channel0" in lst or "tall:ints" in lst:
            fail("bad filters left something behind:\n" + lst)
        good = 's32 == -3 && str != "x*"'
        e.trawl("enable-event", "-u", "tall:ints", "--filter", good)
        lst = e.trawl("list", "s").stdout
        if "[filter: '%s']" % good not in lst:
            fail("trawl list does not show the filter:\n" + lst)
        # The same name with another filter is another rule.
        e.trawl("enable-event", "-u", "tall:ints", "--filter", "s32 == 4")
        r = e.trawl("enable-event", "-u", "tall:ints", "--filter", "s32 == 4", check=False)
        if r.returncode == 0:
            fail("the same rule enabled twice")
    finally:
        e.close()


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    tests = {"values": test_values, "rules": test_rules, "errors": test_errors, "space": test_space,
             "nowrite": test_nowrite}
    if what not in tests:
        sys.exit("usage: filter.py values|rules|errors|space|nowrite")
    tests[what]()
    if FAILS:
        print("%d failure(s)" % len(FAILS), file=sys.stderr)
        sys.exit(1)
    print("PASS: %d filtered traces checked, %d events expected in all" % tuple(CHECKED))


if __name__ == "__main__":
    main()
