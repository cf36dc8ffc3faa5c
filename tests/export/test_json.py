#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`trawl view --format=json` and `trawl export --format=jsonl`, read by
independent readers: Python's json and jq parse every line, and every
event's fields are compared with babeltrace2's Python bindings (bt2),
value by value and type by type (json_bt2.py), on the CTF corpus, on a
trace with every field type in both byte orders, and on a trace trawl
records (every field macro of the test app, ust-app-all). On that trace,
`trawl view` with babeltrace2's options prints what babeltrace2 prints."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "lib"))
from trawltest import BIN, FAILS, TRAWL, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402

require_bt2()
import json_bt2  # noqa: E402

CORPUS = None
for c in (os.path.join(os.environ.get("TRAWL_SHARED_DIR", ""), "ctf-corpus"),
          "/work/shared/ctf-corpus"):
    if os.path.isdir(os.path.join(c, "succeed")):
        CORPUS = c
        break
ENV = dict(os.environ, TZ="UTC", LC_ALL="C")


def run(args, **kw):
    return subprocess.run(args, capture_output=True, env=ENV, timeout=300, **kw)


def check_trace(label, path, tmp):
    """Both commands on @path; bt2 and jq agree with what they wrote."""
    v = run([TRAWL, "view", "--format=json", path])
    out = os.path.join(tmp, "x.jsonl")
    e = run([TRAWL, "export", "--format=jsonl", "-o", out, path])
    if v.returncode != 0 or e.returncode != 0:
        fail("%s: exit %d/%d: %s%s" % (label, v.returncode, e.returncode, v.stderr[:300],
                                       e.stderr[:300]))
        return
    with open(out, "rb") as f:
        if f.read() != v.stdout:
            fail("%s: trawl export -F jsonl differs from trawl view --format=json" % label)
    lines = v.stdout.decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    err = json_bt2.check(lines, [path])
    if err:
        fail("%s: %s" % (label, err))
    if shutil.which("jq"):
        j = run(["jq", "-c", "[.name, (.payload // {} | keys)]", out])
        if j.returncode != 0 or len(j.stdout.splitlines()) != len(lines):
            fail("%s: jq read %d of %d lines: %s" % (label, len(j.stdout.splitlines()),
                                                       len(lines), j.stderr[:200]))


def trawl_trace(tmp):
    """A trace trawl records: ust-app-all's every field macro (10 tall:seq)."""
    e = trawltest.Env("trawl-export-json.")
    try:
        e.trawl("create", "s", "--output", e.out)
        e.trawl("enable-event", "-u", "-a")
        e.trawl("add-context", "-u", "-t", "vpid", "-t", "vtid", "-t", "procname")
        e.trawl("start")
        subprocess.run([os.path.join(BIN, "ust-app-all"), "1", "10", "5000"], env=e.env,
                       timeout=60, check=True, capture_output=True)
        e.trawl("stop")
        dst = os.path.join(tmp, "trawl-trace")
        shutil.copytree(e.out, dst)
        return dst
    finally:
        e.close()


def same_as_babeltrace2(path):
    for opts in ([], ["--names", "all", "--fields", "all"], ["--no-delta", "--clock-seconds"],
                 ["--clock-date", "--clock-gmt", "-n", "none"], ["--clock-cycles"]):
        b = run(["babeltrace2"] + opts + [path])
        t = run([TRAWL, "view"] + opts + [path])
        if b.returncode != t.returncode or b.stdout != t.stdout:
            fail("trawl view %s on trawl's trace: exit %d (babeltrace2 %d), output %s" %
                 (" ".join(opts), t.returncode, b.returncode,
                  "same" if b.stdout == t.stdout else "differs"))


def failed_export_keeps(tmp):
    """An export that fails midway removes its half-written regular file but
    never a device it was writing to (`-o /dev/null` as root once deleted
    /dev/null): a generated trace with garbage in its fourth packet."""
    bad = os.path.join(tmp, "bad")
    subprocess.run([os.path.join(BIN, "trawl-bench-gen"), bad, "20000", "1", "64"], check=True,
                   capture_output=True)
    with open(os.path.join(bad, "ust", "uid", "0", "64-bit", "chan_0"), "r+b") as f:
        f.seek(3 * 65536 + 4000)
        f.write(b"\xff" * 64)
    out = os.path.join(tmp, "half.jsonl")
    e = run([TRAWL, "export", "--format=jsonl", "-o", out, bad])
    if e.returncode == 0 or os.path.exists(out):
        fail("export of a cut trace: exit %d, output left: %s" % (e.returncode,
                                                                  os.path.exists(out)))
    if os.geteuid() != 0:
        print("not root: the device case is not tested")
        return
    dev = os.path.join(tmp, "null")
    os.mknod(dev, 0o666 | 0o020000, os.makedev(1, 3))
    e = run([TRAWL, "export", "--format=jsonl", "-o", dev, bad])
    import stat
    if e.returncode == 0 or not stat.S_ISCHR(os.lstat(dev).st_mode):
        fail("export of a cut trace to a device: exit %d, device %s" %
             (e.returncode, "kept" if os.path.exists(dev) else "removed"))


def main():
    tmp = tempfile.mkdtemp(prefix="trawl-export-json.")
    try:
        n = 0
        for bo in ("le", "be"):
            d = os.path.join(tmp, "types-" + bo)
            subprocess.run([sys.executable, os.path.join(here, "..", "reader", "gen_types.py"),
                            d, bo], check=True)
            check_trace("types-" + bo, d, tmp)
            n += 1
        if CORPUS:
            for name in sorted(os.listdir(os.path.join(CORPUS, "succeed"))):
                check_trace(name, os.path.join(CORPUS, "succeed", name), tmp)
                n += 1
        t = trawl_trace(tmp)
        check_trace("trawl's trace", t, tmp)
        same_as_babeltrace2(t)
        failed_export_keeps(tmp)
        n += 1
        # the app's known values, as a script would read them
        lines = run([TRAWL, "export", t]).stdout.decode().splitlines()

        evs = [json.loads(x) for x in lines]
        ints = [x for x in evs if x["name"] == "tall:ints"]
        if not ints or ints[0]["payload"]["s64"] != -1234567890123 or \
           ints[0]["payload"]["u64"] != 12000000000:
            fail("tall:ints as JSON: %s" % (ints[:1],))
        enums = [x["payload"]["color"] for x in evs if x["name"] == "tall:enums"]
        if enums[:1] != [{"label": "GREEN", "value": 1}] or enums[3:4] != [{"label": None,
                                                                          "value": 99}]:
            fail("tall:enums as JSON: %s" % enums)
        if not any(x.get("common_context", {}).get("procname") == "ust-app-all" for x in evs):
            fail("no procname context in %s" % lines[:1])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILS:
        sys.exit(1)
    print("json: %d traces, every event as bt2 reads it; jq reads every line" % n)


if __name__ == "__main__":
    main()
