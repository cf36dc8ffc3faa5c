# SPDX-License-Identifier: MIT
"""trawltop's curses view, driven in tmux (send-keys, capture-pane) on a
recorded kernel trace: it starts, switches views, sorts, filters, shows its
help and details, steps in time, and q quits with the terminal restored."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import toptest  # noqa: E402
import trawltest  # noqa: E402

if subprocess.run(["which", "tmux"], capture_output=True).returncode != 0:
    toptest.ktest.skip("tmux missing")
d = toptest.setup()
trace = os.path.join(d, "trace")
# The time navigation below steps through 10 ms intervals and seeks to 50 ms:
# the trace must last longer than that however fast the calls run (on a quiet
# machine 2000 calls take ~2 ms), so the recording goes on 0.3 s after them.
out = toptest.record(trace, ["sched_switch", "sched_wakeup", "sched_process_exec"], ["getpgid"],
                     ["sh", "-c", '"$0" calls 2000 && sleep 0.3', toptest.LOAD])
pid = out["pid"]
sock = "trawltop-test-%d" % os.getpid()
done = os.path.join(d, "exited")


def tmux(*args):
    return subprocess.run(["tmux", "-L", sock] + list(args), capture_output=True, text=True,
                          timeout=30)


def screen():
    return tmux("capture-pane", "-p", "-t", "ui").stdout


def wait_for(what, cond, timeout=60):
    got = trawltest.until(lambda: [s for s in (screen(),) if cond(s)], timeout, 0.1)
    if not got:
        raise SystemExit("timed out waiting for %s; screen:\n%s" % (what, screen()))
    return got[0]


def colours():
    """The colour escapes (SGR 30-47, 90-107, 38;/48;) on the screen."""
    esc = tmux("capture-pane", "-e", "-p", "-t", "ui").stdout
    return re.findall(r"\x1b\[(?:[0-9;]*;)?(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9;]*)?m", esc)


def keys(*k):
    tmux("send-keys", "-t", "ui", *k)


try:
    # -f topl: on a busy machine the trace holds more processes than the
    # screen has rows, and topload may not be among the first 40 by CPU; the
    # "/" filter below then narrows it to "topload" (a real change).
    cmd = "TERM=xterm-256color %s -d 0 -f topl %s; echo EXITED=$? > %s; echo SHELL-BACK; " \
          "sleep 60" % (toptest.TOP, trace, done)
    r = tmux("new-session", "-d", "-s", "ui", "-x", "150", "-y", "40", cmd)
    assert r.returncode == 0, r.stderr
    s = wait_for("the processes view", lambda s: "1:processes" in s and "topload" in s)
    assert "CPU%v" in s, s  # sorted by CPU% by default
    assert colours(), "no colours on a colour terminal"
    keys("3")
    s = wait_for("the syscalls view", lambda s: "SYSCALL" in s and "getpgid" in s)
    row = [l for l in s.splitlines() if "getpgid" in l and " %s " % pid in l]
    assert row and " 2000 " in row[0], row
    keys(">")
    wait_for("the sort on ERRORS", lambda s: "ERRORSv" in s)
    keys("<", "<")
    wait_for("the sort on SYSCALL", lambda s: "SYSCALLv" in s)
    keys("r")
    wait_for("the reversed sort", lambda s: "SYSCALL^" in s)
    keys("/")
    wait_for("the filter prompt", lambda s: "filter (pid or name" in s)
    keys("topload", "Enter")
    s = wait_for("the filter", lambda s: "filter: topload" in s)
    body = [l for l in s.splitlines()[4:-1] if l.strip()]
    assert body and all("topload" in l for l in body[1:]), s
    keys("1")
    wait_for("the processes view, filtered",
             lambda s: "1:processes" in s and "topload" in s and "trawl-ktrace" not in s)
    keys("Enter")
    wait_for("the details", lambda s: "details (ENTER closes)" in s and "COMMAND    topload" in s)
    keys("?")
    wait_for("the help", lambda s: "trawltop keys" in s)
    keys("?")
    wait_for("no help", lambda s: "trawltop keys" not in s)
    keys("/", "Enter")  # an empty filter: every process again
    wait_for("no filter", lambda s: "filter:" not in s)
    keys("q")
    s = wait_for("the shell again", lambda s: "SHELL-BACK" in s)
    with open(done) as f:
        assert f.read().strip() == "EXITED=0"
    assert "1:processes" not in s, s  # the terminal is restored (alternate screen left)

    # time navigation: 10 ms intervals, step forward and back, seek, play.
    # The same pane runs it (respawn-pane -k): killing the only session ends
    # the tmux server, and a new-session right after it could reach the
    # server while it exits and fail (once: 60 s of an empty screen).
    os.unlink(done)
    # (renamed into place: "echo > FILE" creates the file before it writes)
    cmd = "TERM=vt100 %s -d 0.01 %s; echo EXITED=$? > %s.tmp; mv %s.tmp %s; sleep 60" % (
        toptest.TOP, trace, done, done, done)
    r = tmux("respawn-pane", "-k", "-t", "ui", cmd)
    assert r.returncode == 0, r.stderr
    s = wait_for("the first interval", lambda s: "[0.000/" in s and "paused" in s)
    assert not colours(), colours()  # vt100 has none
    keys("n")
    wait_for("the second interval", lambda s: "[0.010/" in s)
    keys("n")
    wait_for("the third interval", lambda s: "[0.020/" in s)
    keys("p")
    wait_for("back to the second", lambda s: "[0.010/" in s)
    keys("g")
    wait_for("the seek prompt", lambda s: "go to" in s)
    keys("0.05", "Enter")
    wait_for("the seek", lambda s: "[0.050/" in s)
    keys(" ")
    wait_for("playing to the end", lambda s: " end " in s, timeout=120)
    keys("q")
    wait_for("the exit", lambda s: os.path.exists(done))
    with open(done) as f:
        assert f.read().strip() == "EXITED=0"
finally:
    tmux("kill-server")
print("ok")
