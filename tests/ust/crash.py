#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""create --shm-path and `trawl crash` (LTTng's lttng-crash), end to end:
an app records N tall:seq events into a --shm-path session, then the
session daemon and the consumer are stopped, the app SIGKILLed, and they
too, `trawl crash -x OUT SHM` extracts what the buffer files held, and
babeltrace2 (bt2) reads it.

    crash.py discard    a channel big enough for all N (consumer running):
                        exactly N events, 0..N-1 in order
    crash.py pid        the same with per-process buffers (SHM/NAME-DATE/ust/pid/NAME-PID-DATE)
    crash.py overwrite  an overwrite channel smaller than N, the consumer stopped
                        (SIGSTOP: nothing but the app touches the buffer): the
                        newest events are there, a run ending at N-1, in order,
                        the last packet read up to where the app stopped
    crash.py corrupt    buffer files that are garbage, cut short or empty: one
                        line each, exit non-zero, no crash; the good streams of
                        the trace are still extracted
    crash.py cli        create's line, <shared_memory_path> in save's XML (valid
                        against LTTng's session.xsd when it is here), loaded back
The app is pinned to one CPU so that its events are in one stream (the
overwrite case's "newest" is per stream).
"""
import ctypes
import glob
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, TRAWL, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402

APP = os.path.join(BIN, "ust-app-all")


class Env(trawltest.Env):
    def __init__(self):
        super().__init__("trawl-ust-crash.")
        self.shm = self.dir + "/shm"

    def crash(self, *args):
        return subprocess.run([TRAWL, "crash"] + list(args), env=self.env, capture_output=True,
                              text=True, timeout=120)


def pin():
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def record_and_kill(e, n, chan_args, stop_consumer=False, buffers=None):
    """The session, the app writing n events, then everyone SIGKILLed."""
    e.trawl("create", "s", "--output", e.out, "--shm-path", e.shm)
    args = ["enable-channel", "-u", "ch"] + chan_args
    if buffers:
        args.append(buffers)
    e.trawl(*args)
    e.trawl("enable-event", "-u", "tall:seq", "-c", "ch")
    e.trawl("start")
    sd = e.sessiond_pid()
    kids = trawltest.daemon_children(sd) if sd else []
    if not sd or not kids:
        raise RuntimeError("no session daemon or consumer found")
    if stop_consumer:
        for k in kids:
            os.kill(k, signal.SIGSTOP)
    app = subprocess.Popen([APP, "1", str(n), "10000", "hang"], env=e.env, stdout=subprocess.PIPE,
                           text=True, preexec_fn=pin)
    line = app.stdout.readline()  # "ready": all n written and committed
    # The crash: the daemons are stopped before the app dies, so that none
    # of them sees it go (a per-process trace whose app exited is removed,
    # its files with it, as LTTng does), then everyone is SIGKILLed.
    for p in [sd] + kids:
        try:
            os.kill(p, signal.SIGSTOP)
        except OSError:
            pass
    app.kill()
    app.wait()
    for p in [sd] + kids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    if line.strip() != "ready":
        raise RuntimeError("the app did not finish")


def commit_cpu_total(shm):
    """What the buffer files under shm hold in their sub-buffers' second
    commit counts (ringbuffer.h, version 2 and later: meta[].commit_cpu, 40
    bytes into each 64-byte meta after the 256-byte control page): the
    commits the app made on its streams' own CPU, which trawl crash must add."""
    total = 0
    for f in glob.glob(shm + "/**/ch_*", recursive=True):
        data = open(f, "rb").read(4096)
        if len(data) < 24 or data[:4] != (0x74524231).to_bytes(4, "little") or \
                int.from_bytes(data[4:8], "little") < 2:
            continue
        n = int.from_bytes(data[16:20], "little")
        for k in range(min(n, (len(data) - 256) // 64)):
            total += int.from_bytes(data[256 + 64 * k + 40:256 + 64 * k + 48], "little")
    return total


def rseq_registered():
    """Whether glibc registered rseq in this process (and so in the app's
    threads): __rseq_size is 0 where it could not, or was told not to."""
    try:
        return ctypes.c_uint.in_dll(ctypes.CDLL(None), "__rseq_size").value > 0
    except (OSError, ValueError):
        return False


def read_ns(path):
    require_bt2()
    import bt2
    ns = []
    for m in bt2.TraceCollectionMessageIterator(path):
        if type(m) is bt2._EventMessageConst and m.event.name == "tall:seq":
            ns.append(int(m.event.payload_field["n"]))
    return ns


def extract(e, verbose=False):
    out = e.dir + "/out"
    r = e.crash(*(["-v"] if verbose else []), "-x", out, e.shm)
    if r.returncode != 0:
        raise RuntimeError("trawl crash: exit %d: %s" % (r.returncode, r.stderr.strip()))
    return out, r


def case_full(buffers):
    n = 20000
    e = Env()
    try:
        # 8 x 64 KiB per CPU: ~20 bytes an event, all n fit, nothing wraps.
        record_and_kill(e, n, ["--subbuf-size", "65536", "--num-subbuf", "8"], buffers=buffers)
        want = "ust/pid/ust-app-all-*" if buffers else "ust/uid/%d/64-bit" % os.getuid()
        if not glob.glob("%s/s-*/%s/ch_0" % (e.shm, want)) or \
                not glob.glob("%s/s-*/%s/metadata" % (e.shm, want)):
            fail("no buffer files in %s/s-DATE/%s: %s" % (e.shm, want,
                                                          glob.glob(e.shm + "/**", recursive=True)))
        # The app was pinned to one CPU: its events were committed there,
        # with rseq (glibc registers it), in the second count.
        cpu_bytes = commit_cpu_total(e.shm)
        print("%s: %d bytes committed on the streams' own CPU" % (buffers or "uid", cpu_bytes))
        if cpu_bytes == 0 and rseq_registered():
            fail("no commit on the stream's own CPU: the buffers' second counts are all 0")
        out, _ = extract(e)
        ns = read_ns(out)
        print("%s: %d of %d events extracted" % (buffers or "uid", len(ns), n))
        if ns != list(range(n)):
            fail("wanted 0..%d in order, got %d events (first %s, last %s)" %
                 (n - 1, len(ns), ns[:3], ns[-3:]))
        # a copy made of links (`cp -rs`, as LTTng's crash test does): the
        # same events, each link leading to a file of its own owner
        links = e.dir + "/links"
        subprocess.run(["cp", "-rs", e.shm + "/.", links], check=True)
        r = e.crash("-x", e.dir + "/out-links", links)
        if r.returncode != 0 or read_ns(e.dir + "/out-links") != ns:
            fail("trawl crash of a cp -rs copy: exit %d: %s" % (r.returncode, r.stderr.strip()))
        # the default: shown as `trawl view` shows a trace
        r = e.crash(e.shm)
        lines = [x for x in r.stdout.splitlines() if "tall:seq" in x]
        if r.returncode != 0 or len(lines) != n:
            fail("trawl crash (view): exit %d, %d lines: %s" % (r.returncode, len(lines),
                                                              r.stderr.strip()))
    finally:
        e.close()


def case_overwrite():
    n = 20000
    e = Env()
    try:
        # 4 x 4 KiB per CPU in overwrite mode: ~800 of the n events fit.
        record_and_kill(e, n, ["--overwrite", "--subbuf-size", "4096", "--num-subbuf", "4"],
                        stop_consumer=True)
        out, r = extract(e, verbose=True)
        ns = read_ns(out)
    finally:
        e.close()
    print("overwrite: the last %d of %d events extracted" % (len(ns), n))
    print(r.stderr.strip())
    if not ns or len(ns) >= n:
        fail("got %d events" % len(ns))
    elif ns != list(range(n - len(ns), n)):
        fail("not the newest events in order: first %s, last %s" % (ns[:3], ns[-3:]))
    elif len(ns) < 3 * (4096 - 84) // 32:
        fail("only %d events: fewer than the 3 whole packets before the open one" % len(ns))
    if not re.search(r"ch_\d+: 4 packets \(1 cut\)", r.stderr):
        fail("the stream did not give its 3 whole packets and the one being written")


def case_corrupt():
    n = 2000
    e = Env()
    try:
        record_and_kill(e, n, ["--subbuf-size", "65536", "--num-subbuf", "4"])
        tdir = glob.glob(e.shm + "/s-*/ust/uid/*/64-bit")[0]
        good = sorted(glob.glob(tdir + "/ch_*"))
        data = open(good[0], "rb").read()
        open(tdir + "/garbage_0", "wb").write(os.urandom(len(data)))
        open(tdir + "/short_0", "wb").write(data[:len(data) // 2])
        open(tdir + "/empty_0", "wb").close()
        # a buffer whose control page lies: a huge sub-buffer count
        bad = bytearray(data)
        bad[16:20] = (1 << 30).to_bytes(4, "little")
        open(tdir + "/lying_0", "wb").write(bytes(bad))
        # and one whose meta and positions are random (the header kept)
        wild = bytearray(data[:64]) + bytearray(os.urandom(len(data) - 64))
        open(tdir + "/wild_0", "wb").write(bytes(wild))
        # a link, owned by another user, to a good buffer: not followed
        os.symlink(good[0], tdir + "/foreign_0")
        os.lchown(tdir + "/foreign_0", 65534, 65534)
        r = e.crash("-x", e.dir + "/out", e.shm)
        errs = r.stderr.strip().splitlines()
        print("corrupt: exit %d\n%s" % (r.returncode, r.stderr.strip()))
        if r.returncode <= 0:
            fail("trawl crash exited %d on bad files" % r.returncode)
        for name in ("garbage_0", "short_0", "empty_0", "lying_0"):
            hits = [x for x in errs if name in x]
            if len(hits) != 1 or "not a trawl buffer file" not in hits[0]:
                fail("%s: wanted one line saying so, got %s" % (name, hits))
        hits = [x for x in errs if "foreign_0" in x]
        if len(hits) != 1 or "another owner's file: not followed" not in hits[0]:
            fail("foreign_0: wanted one line refusing the link, got %s" % hits)
        ns = read_ns_of(e.dir + "/out", good)
        if ns != list(range(n)):
            fail("the good streams: %d events, wanted %d" % (len(ns), n))
    finally:
        e.close()


def read_ns_of(out, good):
    """The events of the good streams only (the wild one may decode as anything)."""
    import shutil
    tdir = glob.glob(out + "/s-*/ust/uid/*/64-bit")[0]
    for f in os.listdir(tdir):
        if f != "metadata" and f not in [os.path.basename(g) for g in good]:
            os.unlink(os.path.join(tdir, f))
    del shutil
    return read_ns(out)


def case_cli():
    e = Env()
    try:
        r = e.trawl("create", "s", "--output", e.out, "--shm-path", e.shm)
        m = re.search(r"^Shared memory path set to (%s/s-\d{8}-\d{6})$" % re.escape(e.shm),
                      r.stdout, re.M)
        if not m:
            fail("create said: %r" % r.stdout)
            return
        path = m.group(1)
        e.trawl("enable-event", "-u", "tall:seq")
        e.trawl("save", "-o", e.dir + "/saved", "s")
        xml = open(glob.glob(e.dir + "/saved/s.lttng")[0]).read()
        if "<shared_memory_path>%s</shared_memory_path>" % path not in xml:
            fail("save: no <shared_memory_path>: %s" % xml[:400])
        xsd = "/usr/share/xml/lttng/session.xsd"
        r = subprocess.run(["xmllint", "--noout", "--schema", xsd, e.dir + "/saved/s.lttng"],
                           capture_output=True, text=True) if os.path.exists(xsd) else None
        if r is not None and r.returncode != 0:
            fail("xmllint: " + r.stderr.strip())
        e.trawl("destroy", "s")
        e.trawl("load", "-i", e.dir + "/saved", "s")
        e.trawl("save", "-o", e.dir + "/saved2", "s")
        xml = open(glob.glob(e.dir + "/saved2/s.lttng")[0]).read()
        if "<shared_memory_path>%s</shared_memory_path>" % path not in xml:
            fail("load lost the shm path: %s" % xml[:400])
        e.trawl("start", "s")
        r = e.trawl("list", "s")
    finally:
        e.close()


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else "discard"
    if case == "discard":
        case_full(None)
    elif case == "pid":
        case_full("--buffers-pid")
    elif case == "overwrite":
        case_overwrite()
    elif case == "corrupt":
        case_corrupt()
    elif case == "cli":
        case_cli()
    else:
        sys.exit("unknown case " + case)
    if FAILS:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
