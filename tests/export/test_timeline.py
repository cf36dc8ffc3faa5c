#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""trawl timeline: the page opened in headless Chromium (cdp.py).

1. Levels of detail, on a 200,000-event user-space trace from
   trawl-bench-gen (events 100 ns apart, no thread) written with
   --detail=5000: the page is self-contained (no src, href, url() or
   @import; the browser fetched nothing), no level holds more than 5000
   items, every level's counts add up to the trace's 200,000 events, the
   page is far smaller than one line per event, and it draws at any zoom.
2. A trace of known content: a kernel + user-space session around kust
   (test_pictures.record: 5 times kmix:before(i), lseek(1001, i, SEEK_CUR),
   kmix:after(i); sched_switch, lseek, a perf counter context). Its page:
   CPU lanes (DOM labels) running kust, kust's process group with its
   syscalls, events and counter lanes; at the zoom of kust's run, the 5
   lseek slices and 10 marks drawn at bt2's times to the ns; hover over an
   lseek shows its fields (fd 1001), a click lists them all; W and
   Ctrl+wheel zoom (the time under the mouse stays put), A pans,
   Shift+drag selects a range whose duration is shown, the search box
   finds the 5 kmix:after marks. A screenshot is written to the build
   folder (TRAWL_TIMELINE_SHOT to choose where).
3. The same recording's kernel folder alone (CPU lanes, lseek slices, no
   marks) and user-space folder alone (10 marks, the counter, no CPU).
Skips (77) when chromium is missing or cannot start here, and the known
trace part when kernel tracing is not possible."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "kernel"))
import cdp  # noqa: E402
import ktest  # noqa: E402

FAILS = []


def fail(msg):
    print("FAIL: " + msg)
    FAILS.append(msg)


def write_page(trace, out, *extra):
    r = subprocess.run([os.path.join(ktest.BIN, "trawl"), "timeline", "-o", out] + list(extra) +
                       [trace], capture_output=True, text=True, timeout=600)
    if r.returncode:
        raise SystemExit("trawl timeline %s: exit %d: %s" % (trace, r.returncode, r.stderr))
    return out


def self_contained(path):
    with open(path, encoding="utf-8") as fh:
        html = fh.read()
    for pat in (r"\bsrc\s*=", r"\bhref\s*=", r"url\(", r"@import", r"<link\b", r"https?://"):
        m = re.search(pat, html)
        if m:
            fail("%s refers to something outside: %r" % (path, html[m.start() - 40:m.end() + 40]))
    return html


def open_page(path):
    b = cdp.Browser("file://" + path)
    if not b.wait("window.trawl && trawl.frames > 0", 120):
        b.close()
        raise SystemExit("the page %s did not draw" % path)
    if b.eval("performance.getEntriesByType('resource').length"):
        fail("the page fetched %s" % b.eval(
            "JSON.stringify(performance.getEntriesByType('resource').map(e => e.name))"))
    return b


def drawn(b, t0, t1):
    """Items drawn with the view at [t0, t1] (ns from the page's origin)."""
    return b.eval("trawl.record = true; trawl.setView(%r, %r); trawl.record = false; "
                  "trawl.drawn" % (float(t0), float(t1)))


def check_levels(tmp):
    trace = os.path.join(tmp, "gen")
    subprocess.run([os.path.join(ktest.BIN, "trawl-bench-gen"), trace, "200000", "1", "64"],
                   check=True, capture_output=True, timeout=300)
    page = write_page(trace, os.path.join(tmp, "gen.html"), "--detail=5000")
    html = self_contained(page)
    data = json.loads(re.search(r'<script id="trawl-data" type="application/json">\n(.*?)\n'
                                r'</script>', html, re.S).group(1))
    if data["events"] != 200000:
        fail("levels: %d events in the page" % data["events"])
    size = os.path.getsize(page)
    if size > 200000 * 20:
        fail("levels: the page is %d bytes for 200000 events with --detail=5000" % size)
    for lv in data["levels"]:
        n = sum(len(nums) // 6 for _, nums in lv["items"])
        total = sum(abs(nums[j + 3]) for _, nums in lv["items"] for j in range(0, len(nums), 6))
        if n > 5000:
            fail("levels: level of 2^%d ns holds %d items" % (lv["shift"], n))
        if total != 200000:
            fail("levels: level of 2^%d ns counts %d events" % (lv["shift"], total))
    b = open_page(page)
    try:
        whole = drawn(b, 0, data["end"])
        close = drawn(b, 0, 20000)  # 20 us: about 200 events
        if not whole or not close:
            fail("levels: nothing drawn (%d, %d)" % (len(whole), len(close)))
        elif not all(d["name"] == "anchor:ev" for d in whole + close):
            fail("levels: drawn %s" % whole[:2])
        elif sum(d["n"] for d in close) < 150 or len(close) > 200:
            fail("levels: 20 us show %d items of %d events" %
                 (len(close), sum(d["n"] for d in close)))
        lanes = b.eval("[...document.querySelectorAll('#labels .lane')].map(e => e.textContent)")
        if lanes != ["CPU 0 events"]:
            fail("levels: lanes %s" % lanes)
    finally:
        b.close()
    return size


def bt2_known(path, pid):
    import bt2
    evs = []
    for m in bt2.TraceCollectionMessageIterator(path):
        if type(m) is bt2._EventMessageConst:
            e = m.event
            c = e.common_context_field
            tid = int(c["tid"]) if c is not None and "tid" in c else \
                int(c["vtid"]) if c is not None and "vtid" in c else -1
            evs.append(dict(name=e.name, ts=m.default_clock_snapshot.ns_from_origin, tid=tid,
                            cpu=int(e.packet.context_field["cpu_id"])))
    marks = [e["ts"] for e in evs if e["name"].startswith("kmix:")]
    entries = [e["ts"] for e in evs if e["name"] == "syscall_entry_lseek" and e["tid"] == pid]
    exits = [e["ts"] for e in evs if e["name"] == "syscall_exit_lseek" and e["tid"] == pid]
    cpus = sorted({e["cpu"] for e in evs if e["name"] == "sched_switch"})
    return marks, list(zip(entries, exits)), cpus


def lane_labels(b):
    return b.eval("[...document.querySelectorAll('#labels .lane')].map(e => "
                  "({kind: e.dataset.kind, id: +e.dataset.id, lane: +e.dataset.lane, "
                  "text: e.textContent}))")


def known_items(b, pid, marks, calls, lane):
    """What is drawn at the zoom of kust's run, scrolled to @lane (a lane
    label): only the lanes in the window are drawn, and above kust's come
    the CPUs' and those of every process that ran an lseek meanwhile (many
    on a loaded machine)."""
    origin = int(b.eval("trawl.origin"))
    t0 = min(marks + [c[0] for c in calls]) - origin - 50000
    t1 = max(marks + [c[1] for c in calls]) - origin + 50000
    b.eval("trawl.reveal(%d)" % lane["lane"])
    items = drawn(b, t0, t1)
    sys_ = [d for d in items if d["kind"] == 2 and d["id"] == pid]
    evs = [d for d in items if d["kind"] == 3 and d["id"] == pid]
    return origin, items, sys_, evs


def check_slices(what, origin, sys_, calls):
    got = [(d["name"], origin + int(d["t0"]), origin + int(d["t1"]), d["n"]) for d in sys_]
    want = [("lseek", a, b, 1) for a, b in calls]
    if got != want or len(want) != 5:
        fail("%s: kust's slices %s, bt2 %s" % (what, got, want))


def check_marks(what, origin, evs, marks):
    got = [(d["name"], origin + int(d["t0"]), d["n"]) for d in evs]
    want = [("kmix:before" if i % 2 == 0 else "kmix:after", ts, 1) for i, ts in enumerate(marks)]
    if got != want or len(want) != 10:
        fail("%s: kust's marks %s, bt2 %s" % (what, got[:4], want[:4]))


def canvas_xy(b, d):
    top = b.eval("document.getElementById('cv').getBoundingClientRect().top")
    return d["x"] + max(d["w"], 1) / 2, top + d["y"] + d["h"] / 2


def check_interaction(b, sys_, shot):
    d = sys_[2]
    x, y = canvas_xy(b, d)
    b.mouse("mouseMoved", x, y)
    tip = b.eval("document.getElementById('tip').hidden ? '' : "
                 "document.getElementById('tip').textContent")
    if "lseek" not in tip or "fd: 1001" not in tip or "offset: 2" not in tip:
        fail("hover over the third lseek: tip %r" % tip)
    b.screenshot(shot)  # with the tip: the picture of the README
    with open(shot, "rb") as fh:
        png = fh.read()
    if png[:8] != b"\x89PNG\r\n\x1a\n" or len(png) < 10000:
        fail("screenshot %s: %d bytes" % (shot, len(png)))
    b.mouse("mousePressed", x, y, button="left", clickCount=1)
    b.mouse("mouseReleased", x, y, button="left", clickCount=1)
    det = b.eval("document.getElementById('details').hidden ? '' : "
                 "document.getElementById('details').innerText")
    if not re.search(r"entry\.payload\.fd\s+1001", det) or "exit.payload.ret" not in det:
        fail("click on the third lseek: details %r" % det[:400])
    b.key("Escape")
    # W zooms in around the middle
    v0 = b.eval("trawl.view()")
    b.key("w", "KeyW", "w")
    b.eval("trawl.draw()")
    v1 = b.eval("trawl.view()")
    if not (abs((v1["t1"] - v1["t0"]) - 0.7 * (v0["t1"] - v0["t0"])) < 2 and
            abs((v1["t0"] + v1["t1"]) - (v0["t0"] + v0["t1"])) < 4):
        fail("W: view %s -> %s" % (v0, v1))
    # Ctrl+wheel: zooms out, the time under the mouse stays where it is
    t_at = b.eval("trawl.tOf(%r)" % x)
    b.mouse("mouseWheel", x, y, deltaX=0, deltaY=300, modifiers=2)
    b.eval("trawl.draw()")
    v2 = b.eval("trawl.view()")
    if not (v2["t1"] - v2["t0"] > v1["t1"] - v1["t0"]) or abs(b.eval("trawl.tOf(%r)" % x) - t_at) > \
            (v2["t1"] - v2["t0"]) / 1000:
        fail("Ctrl+wheel: view %s -> %s" % (v1, v2))
    # A pans left by a fifth
    b.key("a", "KeyA", "a")
    b.eval("trawl.draw()")
    v3 = b.eval("trawl.view()")
    if abs((v2["t0"] - v3["t0"]) - 0.2 * (v2["t1"] - v2["t0"])) > 2:
        fail("A: view %s -> %s" % (v2, v3))
    # Shift+drag selects; its duration is shown
    xa, xb = 400, 700
    b.mouse("mousePressed", xa, y, button="left", clickCount=1, modifiers=8)
    b.mouse("mouseMoved", xb, y, button="left", modifiers=8)
    b.mouse("mouseReleased", xb, y, button="left", clickCount=1, modifiers=8)
    sel = b.eval("trawl.view().sel")
    want = (xb - xa) * 1e9 / b.eval("trawl.xOf(1e9) - trawl.xOf(0)")
    text = b.eval("document.getElementById('sel').textContent")
    if not sel or abs(sel - want) > want / 100 or not text.startswith("selection "):
        fail("Shift+drag: selection %r (want %r), %r" % (sel, want, text))
    found = b.eval("trawl.search('kmix:after')")
    if found != "5 matches":
        fail("search kmix:after: %r" % found)
    b.eval("trawl.search('')")


def check_combined(b, pid, marks, calls, cpus, shot):
    labels = lane_labels(b)
    kinds = {(lb["kind"], lb["id"]) for lb in labels}
    for c in cpus:
        if ("cpu", c) not in kinds:
            fail("combined: no lane for CPU %d (%s)" % (c, labels[:4]))
    for k in ("syscalls", "events", "counter"):
        if (k, pid) not in kinds:
            fail("combined: no %s lane for kust (%d)" % (k, pid))
    groups = b.eval("[...document.querySelectorAll('#labels .group')].map(e => e.textContent)")
    if "kust (pid %d)" % pid not in groups:
        fail("combined: groups %s" % groups)
    if not any(lb["kind"] == "counter" and lb["id"] == pid and "page_fault" in lb["text"]
               for lb in labels):
        fail("combined: counter lanes %s" % [lb for lb in labels if lb["kind"] == "counter"])
    runs = []
    for lb in labels:
        if lb["kind"] == "cpu":
            items = known_items(b, pid, marks, calls, lb)[1]
            runs += [d for d in items if d["lane"] == lb["lane"] and d["name"] == "kust %d" % pid]
    if not runs:
        fail("combined: no CPU runs of kust drawn")
    origin, items, sys_, evs = known_items(b, pid, marks, calls, next(
        lb for lb in labels if lb["kind"] == "syscalls" and lb["id"] == pid))
    check_slices("combined", origin, sys_, calls)
    check_marks("combined", origin, evs, marks)
    ctr = [d for d in items if d["kind"] == 4 and d["id"] == pid]
    if not ctr:
        fail("combined: no counter samples drawn")
    if len(sys_) == 5:
        check_interaction(b, sys_, shot)


def check_alone(tmp, trace, pid, marks, calls):
    for sub in ("kernel", "ust"):
        page = write_page(os.path.join(trace, sub), os.path.join(tmp, sub + ".html"))
        self_contained(page)
        b = open_page(page)
        try:
            labels = lane_labels(b)
            kinds = {lb["kind"] for lb in labels}
            mine = [lb for lb in labels if lb["id"] == pid and lb["kind"] in ("syscalls", "events")]
            if not mine:
                fail("%s alone: no lane of kust (%d) in %s" % (sub, pid, labels[:6]))
                continue
            origin, items, sys_, evs = known_items(b, pid, marks, calls, mine[0])
        finally:
            b.close()
        if sub == "kernel":
            if "cpu" not in kinds or "events" in kinds and evs:
                fail("kernel alone: lanes %s, marks %s" % (kinds, evs[:2]))
            check_slices("kernel alone", origin, sys_, calls)
        else:
            if "cpu" in kinds or "syscalls" in kinds or "counter" not in kinds:
                fail("user space alone: lanes %s" % kinds)
            check_marks("user space alone", origin, evs, marks)


def main():
    if not cdp.find_chromium():
        ktest.skip("chromium is not installed (scripts/install-deps)")
    for prog in ("trawl", "trawl-bench-gen"):
        if not os.path.exists(os.path.join(ktest.BIN, prog)):
            ktest.skip(prog + " not built")
    tmp = tempfile.mkdtemp(prefix="trawl-timeline.")
    try:
        try:
            cdp.Browser("about:blank").close()
        except OSError as e:
            ktest.skip("chromium cannot run here: %s" % str(e).splitlines()[0][:200])
        size = check_levels(tmp)
        print("levels: 200000 events, --detail=5000: page of %d bytes" % size)
        ktest.require_root_tracefs()
        import test_pictures
        d = ktest.tmpdir()
        try:
            trace, pid = test_pictures.record(d)
        finally:
            dp = ktest.daemon_pid()
            if dp:
                os.kill(dp, 15)
        marks, calls, cpus = bt2_known(trace, pid)
        shot = os.environ.get("TRAWL_TIMELINE_SHOT") or \
            os.path.join(os.environ.get("TRAWL_BUILD_DIR", tmp), "timeline.png")
        page = write_page(trace, os.path.join(tmp, "all.html"))
        self_contained(page)
        b = open_page(page)
        try:
            check_combined(b, pid, marks, calls, cpus, shot)
        finally:
            b.close()
        check_alone(tmp, trace, pid, marks, calls)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILS:
        sys.exit(1)
    print("timeline: lanes, slices, marks, hover, click, zoom, pan, selection and search of "
          "kust's trace (combined, kernel alone, user space alone); screenshot " + shot)


if __name__ == "__main__":
    main()
