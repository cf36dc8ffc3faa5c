# SPDX-License-Identifier: MIT
"""trawltop with no trace: its own kernel session through the (private) root
daemon, removed on exit (after -n intervals, on SIGINT, and on q in the
curses view driven in tmux); a busy program shows in each interval."""
import glob
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import toptest  # noqa: E402

d = toptest.setup()
env = toptest.ktest.cli_setup(d)
# trawltop's own session's trace goes to $TMPDIR: this test's, so that the
# leftovers it looks for are its own, not those of another run of the suite
tmp = os.path.join(d, "tmp")
os.makedirs(tmp)
env["TMPDIR"] = tmp
before = set(glob.glob(tmp + "/trawltop-*"))
cpu = max(os.sched_getaffinity(0))
burn = subprocess.Popen([toptest.LOAD, "burn", str(cpu), "100000"], stdout=subprocess.PIPE,
                        text=True)
pid = int(burn.stdout.readline().split("=")[1])


def sessions():
    return toptest.ktest.trawl("list").stdout


def no_leftovers(what):
    out = sessions()
    assert "trawltop-" not in out, (what, out)
    left = set(glob.glob(tmp + "/trawltop-*")) - before
    left = [p for p in left if os.path.isdir(p) and os.stat(p).st_uid == 0
            and not p.endswith((".log",))]
    assert not left, (what, left)


try:
    p = subprocess.run([toptest.TOP, "--batch", "--json", "-n", "2", "-d", "0.5"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stderr
    ivs = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(ivs) == 2, p.stdout[:300]
    for iv in ivs:
        mine = toptest.rows(iv, "processes", pid=pid)
        assert mine and mine[0]["cpu_ns"] > 0, [r for r in iv["processes"]][:5]
        assert iv["end_ns"] > iv["begin_ns"] and iv["events"] > 0
    assert ivs[1]["begin_ns"] == ivs[0]["end_ns"], "intervals must follow each other"
    no_leftovers("after -n 2")

    # SIGINT ends it cleanly too
    p = subprocess.Popen([toptest.TOP, "--batch", "-d", "0.3"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    line = p.stdout.readline()
    assert line.startswith("trawltop: interval"), line
    assert "trawltop-%d" % p.pid in sessions()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)  # (reading: a full pipe would block its writes)
    assert p.returncode == 0, err
    no_leftovers("after SIGINT")

    # the curses view, live
    sock = "trawltop-live-%d" % os.getpid()
    done = os.path.join(d, "exited")
    err = os.path.join(d, "top.err")
    # The status goes to a file renamed into place: the shell's "echo > FILE"
    # creates the file before it writes, and a poll between the two read an
    # empty file (top-live failed once so under load: "EXITED=0" check).
    cmd = "TERM=xterm %s -d 0.5 2>%s; echo EXITED=$? > %s.tmp; mv %s.tmp %s; sleep 60" % (
        toptest.TOP, err, done, done, done)
    tenv = dict(env)
    subprocess.run(["tmux", "-L", sock, "new-session", "-d", "-s", "ui", "-x", "150", "-y",
                    "40", cmd], check=True, env=tenv, timeout=30)
    try:
        end = time.time() + 60
        while time.time() < end:
            s = subprocess.run(["tmux", "-L", sock, "capture-pane", "-p", "-t", "ui"],
                               capture_output=True, text=True).stdout
            if "topload" in s and "playing" in s:
                break
            time.sleep(0.2)
        else:
            raise SystemExit("live view never showed topload:\n" + s)
        subprocess.run(["tmux", "-L", sock, "send-keys", "-t", "ui", "3"])
        subprocess.run(["tmux", "-L", sock, "send-keys", "-t", "ui", "q"])
        end = time.time() + 60
        while not os.path.exists(done) and time.time() < end:
            time.sleep(0.2)
        if not os.path.exists(done):
            raise SystemExit("q did not end the live view in 60 s:\n" + subprocess.run(
                ["tmux", "-L", sock, "capture-pane", "-p", "-t", "ui"], capture_output=True,
                text=True).stdout)
        with open(done) as f, open(err) as e:
            status = f.read().strip()
            assert status == "EXITED=0", (status, e.read())
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True)
    no_leftovers("after q")
finally:
    burn.kill()
    burn.wait()
    pid_d = toptest.ktest.daemon_pid()
    if pid_d:
        os.kill(pid_d, signal.SIGTERM)
print("ok")
