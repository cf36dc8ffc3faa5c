#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""trawl export --format=chrome-json and --format=perfetto on a trace of
known content: a kernel + user-space session (root daemon) around kust,
which does 5 times kmix:before(i), lseek(1001, i, SEEK_CUR), kmix:after(i),
with sched_switch and a perf counter context recorded.

chrome-json is parsed with Python's json: the app's 5 lseek slices (B/E on
its thread, the entry's fields as args) between its marks, CPU lanes (X)
running it, thread and process names, counters; times exact to the ns
against bt2. perfetto is decoded with `protoc --decode` against
perfetto_min.proto (Perfetto's field numbers) and read with python3-protobuf:
sched_switch ftrace events per CPU equal to bt2's, the app's track events
and track descriptors, timestamps exact. Both formats are also written for
every trace of the CTF corpus and must parse."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "kernel"))
import ktest  # noqa: E402

FAILS = []


def fail(msg):
    print("FAIL: " + msg)
    FAILS.append(msg)


def record(d):
    env = ktest.cli_setup(d, ("kust",))
    out = os.path.join(d, "trace")
    trawl = ktest.trawl
    trawl("create", "pic", "--output", out)
    trawl("enable-event", "--kernel", "sched_switch")
    trawl("enable-event", "--kernel", "--syscall", "lseek")
    trawl("enable-event", "--userspace", "kmix:*")
    trawl("add-context", "--kernel", "-t", "tid")
    trawl("add-context", "--userspace", "-t", "vpid", "-t", "vtid", "-t", "procname",
          "-t", "perf:thread:page-fault")
    trawl("start")
    p = subprocess.run([os.path.join(ktest.BIN, "kust")], capture_output=True, text=True,
                       env=env, timeout=60)
    pid = int(p.stdout.split("pid=")[1].split()[0])
    trawl("stop")
    trawl("destroy")
    return out, pid


def bt2_events(path):
    import bt2
    evs = []
    for m in bt2.TraceCollectionMessageIterator(path):
        if type(m) is bt2._EventMessageConst:
            e = m.event
            f = {k: v for k, v in e.payload_field.items()} if e.payload_field is not None else {}
            c = {k: v for k, v in e.common_context_field.items()} \
                if e.common_context_field is not None else {}
            evs.append(dict(name=e.name, ts=m.default_clock_snapshot.ns_from_origin,
                            cpu=int(e.packet.context_field["cpu_id"]), f=f, c=c))
    return evs


def check_chrome(path, pid, evs, tmp):
    out = os.path.join(tmp, "t.json")
    r = subprocess.run([ktest.BIN + "/trawl", "export", "--format=chrome-json", "-o", out, path],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        return fail("chrome-json: exit %d %s" % (r.returncode, r.stderr))
    with open(out) as fh:
        doc = json.load(fh)
    origin = int(doc["otherData"]["trawl_origin_ns"])
    te = doc["traceEvents"]

    def ns(e):
        return origin + round(e["ts"] * 1000)
    mine = [e for e in te if e.get("pid") == pid and e["ph"] in "BEi"]
    seq = [(e["ph"], e.get("name")) for e in mine]
    want = [("i", "kmix:before"), ("B", "lseek"), ("E", None), ("i", "kmix:after")] * 5
    if [(ph, n if ph != "E" else None) for ph, n in seq] != want:
        fail("chrome-json: the app's events are %s" % seq[:12])
    else:
        for i in range(5):
            b, en = mine[4 * i], mine[4 * i + 1]
            if b["args"] != {"n": i} or en["args"].get("fd") != 1001 or \
               en["args"].get("offset") != i:
                fail("chrome-json: args %s %s" % (b["args"], en["args"]))
    # exact times: the app's marks against bt2's
    bt_marks = [e["ts"] for e in evs if e["name"].startswith("kmix:")]
    js_marks = [ns(e) for e in mine if e["ph"] == "i"]
    if bt_marks != js_marks:
        fail("chrome-json: mark times %s, bt2 %s" % (js_marks[:2], bt_marks[:2]))
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in te
             if e["ph"] == "M" and e["name"] == "thread_name"}
    if names.get((pid, pid)) != "kust":
        fail("chrome-json: the app's thread name is %r" % names.get((pid, pid)))
    # (before its exec the child of the test runs as python3)
    first = min(e["ts"] for e in mine)
    runs = [e for e in te if e["ph"] == "X" and e.get("args", {}).get("tid") == pid and
            e["ts"] + e["dur"] >= first]
    if not runs or any(e["name"] != "kust" or e["dur"] < 0 for e in runs):
        fail("chrome-json: CPU runs of the app: %s" % runs[:2])
    # every run of a CPU lane starts at a sched_switch bt2 saw on that CPU
    sw = {(e["cpu"], e["ts"]) for e in evs if e["name"] == "sched_switch"}
    for e in te:
        if e["ph"] == "X" and (e["tid"], ns(e)) not in sw and ns(e) != origin:
            fail("chrome-json: a run at %d on CPU %d with no sched_switch" % (ns(e), e["tid"]))
            break
    counters = [e for e in te if e["ph"] == "C" and e["pid"] == pid]
    want_c = [int(e["c"]["perf_thread_page_fault"]) for e in evs
              if e["name"].startswith("kmix:") and "perf_thread_page_fault" in e["c"]]
    if [e["args"]["value"] for e in counters] != want_c:
        fail("chrome-json: counters %s, bt2 %s" % ([e["args"] for e in counters][:3], want_c[:3]))


def decode_perfetto(path, tmp):
    out = os.path.join(tmp, "t.pftrace")
    r = subprocess.run([ktest.BIN + "/trawl", "export", "--format=perfetto", "-o", out, path],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        fail("perfetto: exit %d %s" % (r.returncode, r.stderr))
        return None
    with open(out, "rb") as fh:
        d = subprocess.run(["protoc", "--proto_path=" + here, "--decode=perfetto.Trace",
                            "perfetto_min.proto"], stdin=fh, capture_output=True, timeout=300)
    if d.returncode:
        fail("protoc --decode: %s" % d.stderr[:300])
        return None
    subprocess.run(["protoc", "--proto_path=" + here, "--python_out=" + tmp,
                    "perfetto_min.proto"], check=True)
    sys.path.insert(0, tmp)
    import perfetto_min_pb2
    t = perfetto_min_pb2.Trace()
    with open(out, "rb") as fh:
        t.ParseFromString(fh.read())
    return t


def check_perfetto(path, pid, evs, tmp):
    t = decode_perfetto(path, tmp)
    if t is None:
        return
    sw = [(p.ftrace_events.cpu, e.timestamp, e.sched_switch.prev_pid, e.sched_switch.next_pid)
          for p in t.packet if p.HasField("ftrace_events") for e in p.ftrace_events.event]
    want = [(e["cpu"], e["ts"], int(e["f"]["prev_tid"] if "prev_tid" in e["f"] else
                                    e["f"]["prev_pid"]),
             int(e["f"]["next_tid"] if "next_tid" in e["f"] else e["f"]["next_pid"]))
            for e in evs if e["name"] == "sched_switch"]
    if sorted(sw) != sorted(want):
        fail("perfetto: %d sched_switch ftrace events, bt2 %d" % (len(sw), len(want)))
    threads = {p.track_descriptor.uuid: p.track_descriptor.thread for p in t.packet
               if p.HasField("track_descriptor") and p.track_descriptor.HasField("thread")}
    app = [u for u, th in threads.items() if th.tid == pid]
    if not app or threads[app[0]].thread_name != "kust" or threads[app[0]].pid != pid:
        fail("perfetto: no thread track named kust for tid %d" % pid)
        return
    te = [(p.timestamp, p.track_event) for p in t.packet
          if p.HasField("track_event") and p.track_event.track_uuid == app[0]]
    seq = [(e.type, e.name) for _, e in te]
    want = [(3, "kmix:before"), (1, "lseek"), (2, ""), (3, "kmix:after")] * 5
    if seq != want:
        fail("perfetto: the app's track events %s" % seq[:8])
        return
    bt_times = [e["ts"] for e in evs if e["name"].startswith("kmix:") or
                (e["name"].endswith("_lseek") and int(e["c"].get("tid", -1)) == pid)]
    if [ts for ts, _ in te] != bt_times:
        fail("perfetto: times %s, bt2 %s" % ([ts for ts, _ in te][:3], bt_times[:3]))
    ann = {a.name: a.int_value if a.HasField("int_value") else a.uint_value
           for a in te[1][1].debug_annotations}
    if ann.get("fd") != 1001 or ann.get("offset") != 0:
        fail("perfetto: lseek annotations %s" % ann)
    tree = [p.process_tree for p in t.packet if p.HasField("process_tree")]
    if not tree or not any(th.tid == pid and th.name == "kust" for th in tree[-1].threads):
        fail("perfetto: no process tree with kust")


def corpus_parses(tmp):
    corpus = None
    for c in (os.path.join(os.environ.get("TRAWL_SHARED_DIR", ""), "ctf-corpus"),
              "/work/shared/ctf-corpus"):
        if os.path.isdir(os.path.join(c, "succeed")):
            corpus = c
    if not corpus:
        return 0
    n = 0
    for name in sorted(os.listdir(os.path.join(corpus, "succeed"))):
        path = os.path.join(corpus, "succeed", name)
        out = os.path.join(tmp, "c.json")
        r = subprocess.run([ktest.BIN + "/trawl", "export", "-F", "chrome-json", "-o", out, path],
                           capture_output=True, timeout=300)
        if r.returncode:
            fail("chrome-json %s: exit %d" % (name, r.returncode))
            continue
        with open(out) as fh:
            json.load(fh)
        if decode_perfetto(path, tmp) is None:
            fail("perfetto %s" % name)
        n += 1
    return n


def main():
    if not shutil.which("protoc"):
        ktest.skip("protoc (protobuf-compiler) not installed")
    try:
        import google.protobuf  # noqa: F401
    except ImportError:
        ktest.skip("python3-protobuf not installed")
    tmp = tempfile.mkdtemp(prefix="trawl-export-pic.")
    try:
        n = corpus_parses(tmp)
        ktest.require_root_tracefs()
        d = ktest.tmpdir()
        try:
            path, pid = record(d)
        finally:
            dp = ktest.daemon_pid()
            if dp:
                os.kill(dp, 15)
        evs = bt2_events(path)
        check_chrome(path, pid, evs, tmp)
        check_perfetto(path, pid, evs, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILS:
        sys.exit(1)
    print("chrome-json and perfetto: known content of kust's trace, %d corpus traces" % n)


if __name__ == "__main__":
    main()
