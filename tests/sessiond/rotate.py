#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`trawl clear`, `trawl rotate`, `trawl enable-rotation` and `trawl
disable-rotation` through the real daemons, traces read with babeltrace2's
bt2. Events are ust-app-tick's tall:seq, each with its counter n, so what a
trace holds is known exactly.

    rotate.py clear     clear before any start (nothing), of a stopped
                        session (its files deleted, the folder stays; the
                        next start records only what follows), of a started
                        one (only the events after the clear are read), of
                        a snapshot session (its buffers emptied), clear -a,
                        clear and rotate of a session streamed to relayd
                        accepted (tests/relayd/rotate.sh checks their files)
    rotate.py rotate    chunks laid out as LTTng 2.13's
                        (OUTPUT/archives/BEGIN-END-ID, the last one by
                        destroy, which names it in LTTng's line), each
                        read alone by bt2 holding exactly the
                        events emitted between its rotations, also when an
                        app emits during the rotations (no event in two
                        chunks or in none); LTTng's refusals and messages
    rotate.py schedule  enable-rotation --timer and --size rotate a started
                        session by themselves (waited for, not timed), the
                        archives together hold every event once;
                        disable-rotation and its errors
    rotate.py kernel    (root, tracefs) the same for the kernel domain: the
                        sched_process_exec events of a program of the
                        test's own, run a known number of times between
                        clears and rotations, counted in each chunk
    rotate.py kernel-busy (root, tracefs) a kernel and user-space session
                        whose kernel domain is busy at a rotation (the
                        daemon's fault injection, TRAWL_SESSIOND_FAULT_KERNEL_BUSY=1):
                        the rotation fails in one line naming the kernel
                        domain, and nothing moves (no archive, no chunk
                        folder: the daemon once moved user space on and
                        archived the chunk the kernel went on writing in);
                        the next rotation works, and each archive holds
                        exactly its events of both domains
"""
import glob
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import FAILS, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402
from trackers import App, compress, expect_refused as refused, wait_registered  # noqa: E402

CHUNK = r"\d{8}T\d{6}[+-]\d{4}"
ARCHIVE = re.compile(r"^(%s)-(%s)-(\d+)$" % (CHUNK, CHUNK))


def ns(path):
    """The n of every tall:seq event under @path, sorted ([] if no trace there)."""
    import bt2
    if not glob.glob(path + "/**/metadata", recursive=True):
        return []
    got = []
    for m in bt2.TraceCollectionMessageIterator(path):
        if type(m) is bt2._DiscardedEventsMessageConst:
            fail("%s: %d events discarded" % (path, m.count))
        if type(m) is bt2._EventMessageConst and m.event.name == "tall:seq":
            got.append(int(m.event.payload_field["n"]))
    return sorted(got)


def want(path, lo, hi, what):
    got = ns(path)
    if got != list(range(lo, hi)):
        fail("%s: %s holds n %s, want [%d..%d]" % (what, path, compress(got), lo, hi - 1))


def said(r, text):
    if r.stdout != text:
        fail("trawl said %r, want %r" % (r.stdout, text))


def files(path):
    return sorted(os.path.relpath(os.path.join(d, f), path)
                  for d, _, fs in os.walk(path) for f in fs)


def wait_gone(env, pid):
    """Until the daemon no longer lists @pid's app (its exit handled)."""
    for _ in range(600):
        if "PID: %d " % pid not in env.trawl("list", "-u").stdout + " ":
            return
        time.sleep(0.1)
    fail("app %d still listed 60 s after it exited" % pid)


def test_clear(env):
    app = App(env.env, 1)
    wait_registered(env, [app.pid])
    env.trawl("create", "s", "-o", env.out)
    env.trawl("enable-event", "-u", "tall:seq")
    said(env.trawl("clear"), 'Session "s" cleared\n')  # never started: nothing to do
    env.trawl("start")
    app.emit(100)                                      # n 0..99
    env.trawl("stop")
    want(env.out, 0, 100, "before any clear")
    said(env.trawl("clear", "s"), 'Session "s" cleared\n')
    # LTTng deletes the chunk's files and folders; the output folder stays
    if not os.path.isdir(env.out) or os.listdir(env.out):
        fail("after clear of a stopped session: %s holds %s" % (env.out, files(env.out)))
    said(env.trawl("clear", "s"), 'Session "s" cleared\n')  # again: nothing to do
    env.trawl("start")
    app.emit(50)                                       # n 100..149
    env.trawl("stop")
    want(env.out, 100, 150, "recorded after a clear while stopped")
    # a started session: what came before the clear is gone, what comes after stays
    env.trawl("start")
    app.emit(30)                                       # n 150..179: cleared
    said(env.trawl("clear"), 'Session "s" cleared\n')
    app.emit(20)                                       # n 180..199
    env.trawl("stop")
    want(env.out, 180, 200, "cleared while started")
    if any(f.startswith("archives") for f in files(env.out)):
        fail("clear made archives: %s" % files(env.out))

    # a snapshot session: its buffers are emptied
    snap = env.dir + "/snap"
    env.trawl("create", "snap", "--snapshot", "-o", snap)
    env.trawl("enable-event", "-u", "tall:seq", "-s", "snap")
    env.trawl("start", "snap")
    app.emit(40)                                       # n 200..239: cleared
    said(env.trawl("clear", "snap"), 'Session "snap" cleared\n')
    app.emit(10)                                       # n 240..249
    r = env.trawl("snapshot", "record", "-s", "snap")
    dirs = glob.glob(snap + "/snapshot-1-*")
    if len(dirs) != 1:
        fail("snapshot after clear: %s (%s)" % (dirs, r.stdout))
    else:
        want(dirs[0], 240, 250, "snapshot after a clear")

    # clear -a: every session of the user, LTTng's line for each
    r = env.trawl("clear", "-a")
    if sorted(r.stdout.splitlines()) != ['Session "s" cleared', 'Session "snap" cleared']:
        fail("clear -a said %r" % r.stdout)
    refused(env, ["clear", "nosuch"], "nosuch")
    env.trawl("destroy", "-a")
    said(env.trawl("clear", "-a"), "No session found, nothing to do.\n")
    app.close()

    # per-process buffers of a program that exited (LTTng's test_ust_local
    # --buffers-pid): cleared while started or stopped, OUTPUT/ust is empty
    for active in (1, 0):
        out = "%s/pid%d" % (env.dir, active)
        env.trawl("create", "p", "-o", out)
        env.trawl("enable-channel", "-u", "--buffers-pid", "c")
        env.trawl("enable-event", "-u", "tall:seq", "-c", "c")
        env.trawl("start")
        gone = App(env.env, 2)
        gone.emit(10)
        gone.close()
        wait_gone(env, gone.pid)
        if not active:
            env.trawl("stop")
        env.trawl("clear")
        if not active:
            env.trawl("start")
        env.trawl("stop")
        if not os.path.isdir(out + "/ust") or os.listdir(out + "/ust"):
            fail("per-process clear (%s): %s/ust holds %s" %
                 ("started" if active else "stopped", out, files(out)))
        env.trawl("destroy")

    # streamed to trawl-relayd: accepted (tests/relayd/rotate.sh checks what relayd holds)
    relayd = os.path.join(trawltest.BIN, "trawl-relayd")
    if os.path.exists(relayd):
        import subprocess
        log = open(env.dir + "/relayd.log", "w+")
        rd = subprocess.Popen([relayd, "-o", env.dir + "/relay", "-C", "tcp://127.0.0.1:0",
                               "-D", "tcp://127.0.0.1:0", "-L", "tcp://127.0.0.1:0"],
                              env=env.env, stdout=subprocess.DEVNULL, stderr=log)
        try:
            ports = None
            for _ in range(600):
                log.seek(0)
                m = re.search(r"control port (\d+), data port (\d+)", log.read())
                if m or rd.poll() is not None:
                    ports = m and m.groups()
                    break
                time.sleep(0.05)
            env.trawl("create", "net", "--set-url",
                      "net://127.0.0.1:%s:%s" % (ports[0], ports[1]))
            env.trawl("enable-event", "-u", "tall:seq", "-s", "net")
            env.trawl("start", "net")
            env.trawl("clear", "net")
            env.trawl("rotate", "net")
            env.trawl("destroy", "net")
        except (OSError, TypeError) as e:
            print("relayd part skipped: %s" % e)
        finally:
            rd.terminate()
            rd.wait(timeout=30)


def archives(out):
    """{chunk id: folder} of OUTPUT/archives, checking each name."""
    got = {}
    for d in sorted(os.listdir(out + "/archives")) if os.path.isdir(out + "/archives") else []:
        m = ARCHIVE.match(d)
        if not m:
            fail("archive folder %r is not named BEGIN-END-ID" % d)
            continue
        if m.group(1) > m.group(2):
            fail("archive %s ends before it begins" % d)
        got[int(m.group(3))] = out + "/archives/" + d
    return got


def rotated(r, out, chunk_id):
    """The archive folder `trawl rotate` printed, checked against LTTng's lines."""
    lines = r.stdout.splitlines()
    if (len(lines) != 2 or lines[0] != "Waiting for rotation to complete..." or
            not lines[1].startswith("Trace chunk archive for session r is now readable at ")):
        fail("rotate said %r" % r.stdout)
        return None
    path = lines[1].split(" is now readable at ", 1)[1]
    m = ARCHIVE.match(os.path.basename(path))
    if os.path.dirname(path) != out + "/archives" or not m or int(m.group(3)) != chunk_id:
        fail("rotate archived chunk %d in %s" % (chunk_id, path))
    return path


def test_rotate(env):
    uid = os.getuid()
    app = App(env.env, 1)
    wait_registered(env, [app.pid])
    env.trawl("create", "r", "-o", env.out)
    env.trawl("enable-event", "-u", "tall:seq")
    refused(env, ["rotate"], "Session needs to be started once")
    env.trawl("start")
    app.emit(100)                                      # n 0..99: chunk 0
    a0 = rotated(env.trawl("rotate"), env.out, 0)
    if a0:
        want(a0, 0, 100, "chunk 0")
        if not os.path.isfile("%s/ust/uid/%d/64-bit/metadata" % (a0, uid)):
            fail("chunk 0 lacks ust/uid/%d/64-bit/metadata: %s" % (uid, files(a0)))
    cur = [d for d in os.listdir(env.out) if d != "archives"]
    if len(cur) != 1 or not re.match(r"^%s-1$" % CHUNK, cur[0]):
        fail("after the first rotation, the output holds %s (want archives and BEGIN-1)" %
             os.listdir(env.out))
    app.emit(50)                                       # n 100..149: chunk 1
    r = env.trawl("rotate", "--no-wait", "r")
    said(r, "Rotation ongoing for session r\n")
    app.emit(25)                                       # n 150..174: chunk 2
    env.trawl("stop")
    a2 = rotated(env.trawl("rotate", "r"), env.out, 2)
    refused(env, ["rotate"], "Session was already rotated once since it became inactive")
    # an app emitting while the session rotates: every event in one chunk
    env.trawl("start")
    app.p.stdin.write("30000\n")                       # n 175..30174
    app.p.stdin.flush()
    for _ in range(3):
        env.trawl("rotate")                            # chunks 3, 4, 5
    if app.p.stdout.readline().strip() != "ok":
        fail("the app did not answer")
    app.emit(10)                                       # n 30175..30184: last chunk, 6
    d = env.trawl("destroy", "r")
    app.close()
    got = archives(env.out)
    # LTTng's line naming the archive the destroy made, before its own
    want_said = "Trace chunk archive for session r is now readable at %s\nSession r destroyed\n" \
        % got.get(6, "?")
    if d.stdout != want_said:
        fail("destroy said %r, want %r" % (d.stdout, want_said))
    if sorted(got) != list(range(7)):
        fail("archives %s, want chunks 0..6" % sorted(got))
    if 1 in got:
        want(got[1], 100, 150, "chunk 1 (rotate --no-wait)")
    if a2:
        want(a2, 150, 175, "chunk 2 (rotated while stopped)")
    if 6 in got:
        want(got[6], 30175, 30185, "chunk 6 (archived by destroy)")
    every = []
    for k in sorted(got):
        every += ns(got[k])
    if sorted(every) != list(range(30185)):
        fail("the chunks together hold n %s, want each of [0..30184] once (%d events)" %
             (compress(sorted(every)), len(every)))
    left = [d for d in os.listdir(env.out) if d != "archives"]
    if left:
        fail("after destroy, the output holds %s besides archives" % left)

    # A clear is LTTng's rotation that deletes the chunk it ends: it takes a
    # chunk ID; cleared after its stop, destroy archives nothing and leaves
    # no chunk folder (as LTTng 2.13 does: checked side by side by hand).
    out = env.dir + "/k"
    app = App(env.env, 1)
    wait_registered(env, [app.pid])
    env.trawl("create", "k", "-o", out)
    env.trawl("enable-event", "-u", "tall:seq", "-s", "k")
    env.trawl("start", "k")
    app.emit(5)
    env.trawl("rotate", "k")                           # chunk 0 archived
    app.emit(5)
    env.trawl("clear", "k")                            # chunk 1 deleted, chunk 2 begins
    r = env.trawl("rotate", "k")
    if not re.search(r"/archives/%s-%s-2\n" % (CHUNK, CHUNK), r.stdout):
        fail("rotate after a clear: %r, want the archive of chunk 2" % r.stdout)
    env.trawl("stop", "k")
    env.trawl("clear", "k")
    d = env.trawl("destroy", "k")
    app.close()
    if d.stdout != "Session k destroyed\n":
        fail("destroy after stop and clear said %r (want no archive)" % d.stdout)
    if sorted(archives(out)) != [0, 2]:
        fail("archives after clears: %s, want chunks 0 and 2" % sorted(archives(out)))
    left = [d for d in os.listdir(out) if d != "archives"]
    if left:
        fail("after stop, clear and destroy, the output holds %s besides archives" % left)

    # LTTng's refusals
    env.trawl("create", "snap", "--snapshot", "-o", env.dir + "/snap")
    env.trawl("enable-event", "-u", "tall:seq", "-s", "snap")
    env.trawl("start", "snap")
    refused(env, ["rotate", "snap"], "not available for this session's creation mode")
    refused(env, ["enable-rotation", "-s", "snap", "--timer", "1s"],
            "not available for this session's creation mode")
    refused(env, ["rotate", "nosuch"], "nosuch")
    env.trawl("create", "c", "-o", env.dir + "/c")
    env.trawl("enable-event", "-u", "tall:seq", "-s", "c")
    env.trawl("start", "c")
    env.trawl("stop", "c")
    env.trawl("clear", "c")
    refused(env, ["rotate", "c"], "Session was already cleared since it became inactive")


def wait_archives(out, n):
    for _ in range(1200):
        if len(archives(out)) >= n:
            return
        time.sleep(0.05)
    fail("%s: fewer than %d archives after 60 s: %s" % (out, n, sorted(archives(out))))


def test_schedule(env):
    app = App(env.env, 1)
    wait_registered(env, [app.pid])
    env.trawl("create", "t", "-o", env.out)
    env.trawl("enable-event", "-u", "tall:seq")
    # LTTng's unit: "µs" where the locale has UTF-8, else "us"
    env.env["LC_ALL"] = "C"
    said(env.trawl("enable-rotation", "--timer", "200ms"),
         "Enabled periodic rotations every 200000 us on session t\n")
    env.env["LC_ALL"] = "C.UTF-8"
    refused(env, ["enable-rotation", "--timer", "2s"], "already set")
    said(env.trawl("enable-rotation", "-s", "t", "--size", "1G"),
         "Enabled size-based rotations every 1073741824 bytes written on session t\n")
    said(env.trawl("disable-rotation", "--size"), "Disabled size-based rotation on session t\n")
    del env.env["LC_ALL"]
    refused(env, ["enable-rotation", "--timer", "1s"], "already set")
    env.trawl("enable-rotation", "--size", "1G")
    env.env["LC_ALL"] = "C"
    lines = env.trawl("list", "t").stdout.splitlines()
    del env.env["LC_ALL"]
    want_lines = ["Automatic rotation schedules:", "    timer period: 200000 us",
                  "    size threshold: 1073741824 bytes"]
    k = lines.index(want_lines[0]) if want_lines[0] in lines else -1
    if k < 2 or lines[k:k + 3] != want_lines or lines[k - 1] != "":
        fail("list t: no LTTng schedules section: %s" % lines[:8])
    env.trawl("disable-rotation", "--size")
    refused(env, ["enable-rotation", "--timer", "abc"], "Invalid value for --timer option")
    refused(env, ["enable-rotation"], "No session rotation schedule parameter provided")
    env.trawl("start")
    app.emit(100)                                      # n 0..99
    wait_archives(env.out, 2)
    app.emit(100)                                      # n 100..199
    said(env.trawl("disable-rotation", "--timer"), "Disabled periodic rotation on session t\n")
    refused(env, ["disable-rotation", "--timer"],
            "No periodic rotation schedule active on session t")
    refused(env, ["disable-rotation"], "No session rotation schedule type provided")
    env.trawl("stop")
    env.trawl("destroy")
    every = []
    for k, d in sorted(archives(env.out).items()):
        every += ns(d)
    if sorted(every) != list(range(200)):
        fail("timer: the chunks hold n %s, want [0..199] once" % compress(sorted(every)))

    size_out = env.dir + "/size"
    env.trawl("create", "z", "-o", size_out)
    env.trawl("enable-event", "-u", "tall:seq")
    said(env.trawl("enable-rotation", "--size", "64k"),
         "Enabled size-based rotations every 65536 bytes written on session z\n")
    env.trawl("start")
    total = 0
    for _ in range(600):
        app.emit(2000)
        total += 2000
        if len(archives(size_out)) >= 2:
            break
        time.sleep(0.05)
    wait_archives(size_out, 2)
    said(env.trawl("disable-rotation", "--size"), "Disabled size-based rotation on session z\n")
    env.trawl("destroy")
    every = []
    for k, d in sorted(archives(size_out).items()):
        every += ns(d)
    if sorted(every) != list(range(200, 200 + total)):
        fail("size: the chunks hold n %s, want [200..%d] once" %
             (compress(sorted(every)), 199 + total))
    app.close()


def execs(path, prog):
    """sched_process_exec events of @prog under @path."""
    import bt2
    if not glob.glob(path + "/**/metadata", recursive=True):
        return 0
    n = 0
    for m in bt2.TraceCollectionMessageIterator(path):
        if (type(m) is bt2._EventMessageConst and m.event.name == "sched_process_exec" and
                str(m.event.payload_field["filename"]) == prog):
            n += 1
    return n


def test_kernel(env):
    import shutil
    import subprocess
    if os.geteuid() != 0 or not os.path.isdir("/sys/kernel/tracing/instances"):
        print("SKIP: kernel tracing needs root and tracefs")
        sys.exit(77)
    prog = env.dir + "/rotate-true"
    shutil.copy("/bin/true", prog)

    def run(n):
        for _ in range(n):
            subprocess.run([prog], check=True)

    def count(path, n, what):
        got = execs(path, prog)
        if got != n:
            fail("%s: %d execs of %s read in %s, want %d" % (what, got, prog, path, n))

    env.trawl("create", "k", "-o", env.out)
    env.trawl("enable-event", "-k", "sched_process_exec")
    env.trawl("start")
    run(5)
    env.trawl("stop")
    count(env.out, 5, "before any clear")
    said(env.trawl("clear"), 'Session "k" cleared\n')
    if os.listdir(env.out):
        fail("after clear of a stopped session: %s holds %s" % (env.out, files(env.out)))
    env.trawl("start")
    run(3)
    env.trawl("stop")
    count(env.out, 3, "recorded after a clear while stopped")
    env.trawl("start")
    run(4)
    said(env.trawl("clear"), 'Session "k" cleared\n')
    run(2)
    env.trawl("stop")
    count(env.out, 2, "cleared while started")
    env.trawl("destroy")

    out = env.dir + "/rot"
    env.trawl("create", "kr", "-o", out)
    env.trawl("enable-event", "-k", "sched_process_exec")
    env.trawl("enable-event", "-u", "tall:seq")
    app = App(env.env, 1)
    wait_registered(env, [app.pid])
    env.trawl("start")
    run(5)
    app.emit(10)
    env.trawl("rotate")
    run(3)
    app.emit(20)
    env.trawl("rotate")
    run(2)
    app.emit(30)
    env.trawl("destroy")
    app.close()
    got = archives(out)
    if sorted(got) != [0, 1, 2]:
        fail("kernel archives %s, want chunks 0..2" % sorted(got))
    for k, n, lo, hi in ((0, 5, 0, 10), (1, 3, 10, 30), (2, 2, 30, 60)):
        if k in got:
            count(got[k] + "/kernel", n, "chunk %d" % k)
            want(got[k] + "/ust", lo, hi, "chunk %d" % k)


def test_kernel_busy(env):
    import shutil
    import subprocess
    if os.geteuid() != 0 or not os.path.isdir("/sys/kernel/tracing/instances"):
        print("SKIP: kernel tracing needs root and tracefs")
        sys.exit(77)
    prog = env.dir + "/rotate-true"
    shutil.copy("/bin/true", prog)

    def run(n):
        for _ in range(n):
            subprocess.run([prog], check=True)

    # (the daemon is started by the first command, with this in its environment)
    env.env["TRAWL_SESSIOND_FAULT_KERNEL_BUSY"] = "1"
    out = env.dir + "/busy"
    env.trawl("create", "kb", "-o", out)
    env.trawl("enable-event", "-k", "sched_process_exec")
    env.trawl("enable-event", "-u", "tall:seq")
    app = App(env.env, 1)
    wait_registered(env, [app.pid])
    env.trawl("start")
    run(5)
    app.emit(10)
    r = env.trawl("rotate", check=False)
    line = "Rotation failure on consumer (session 'kb', kernel): the kernel consumer is still finishing a command"
    if r.returncode == 0 or r.stderr.count("\n") != 1 or line not in r.stderr:
        fail("rotate with the kernel domain busy: exit %d, %r; want one line naming %r" %
             (r.returncode, r.stdout + r.stderr, line))
    moved = sorted(d for d in os.listdir(out) if d == "archives" or re.match(CHUNK, d))
    if moved:
        fail("a rotation refused moved something: %s holds %s" % (out, moved))
    run(3)
    app.emit(20)
    env.trawl("rotate")
    run(2)
    app.emit(30)
    env.trawl("destroy")
    app.close()
    got = archives(out)
    if sorted(got) != [0, 1]:
        fail("archives %s, want chunks 0 and 1 (%s)" % (sorted(got), files(out)))
    for k, n, lo, hi in ((0, 8, 0, 30), (1, 2, 30, 60)):
        if k in got:
            got_execs = execs(got[k] + "/kernel", prog)
            if got_execs != n:
                fail("chunk %d: %d execs of %s, want %d" % (k, got_execs, prog, n))
            want(got[k] + "/ust", lo, hi, "chunk %d" % k)


def main():
    require_bt2()
    what = sys.argv[1]
    env = trawltest.Env("trawl-rotate-%s." % what)
    try:
        {"clear": test_clear, "rotate": test_rotate, "schedule": test_schedule,
         "kernel": test_kernel, "kernel-busy": test_kernel_busy}[what](env)
    finally:
        env.close(keep=bool(FAILS))
    if FAILS:
        sys.exit(1)
    print("ok")


main()
