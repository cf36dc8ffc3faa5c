#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A trigger's captures of application contexts ($app.PROVIDER:KEY) with
LTTng's Java agents under trawl: `trawl add-trigger --condition
event-rule-matches --type=jul|log4j --name=app.db --capture msg --capture
'$app.trawl:int' ... --action notify`, the values of each hit read through
<trawl/ctl.h>'s notification channel (ust-trig-notify -t: typed), for
java/TrawlAppCap.java (Debian's agent jars, unchanged).

What LTTng 2.13.9 does, measured on this machine with its own session
daemon and its notification API (liblttng-ctl, lib/lttngnotify.py), and
run again side by side here when the host can (root, lttng-tools): its
session daemon does not tell the agents of a trigger's application
contexts, and LTTng's Java agent hands the tracer only the contexts it
was told of (add-context -j|-l). So:

    trigger      the trigger alone: every $app capture is unavailable
    contexts     with a session that added the same contexts: each is the
                 value the retriever gave at that event; as msgpack carries
                 it: an integer unsigned unless negative (int 42 u:42, long
                 i:-5000000000, byte i:-7, short u:300, boolean u:1), a
                 float or double a real, a char a string; null, a key the
                 retriever does not know and a provider never registered
                 unavailable; a retriever registered between the two
                 events only in the second

and `trawl list-triggers` shows the captures as `lttng list-triggers`
does. Skips without java, javac or the agent jars (and log4j's).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, fail  # noqa: E402
import trawltest  # noqa: E402
from lttngref import LttngRef  # noqa: E402

COMPAT = os.path.normpath(os.path.join(BIN, "..", "lib", "lttng-compat"))
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "java")
LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib")
NOTIFY = os.path.join(BIN, "ust-trig-notify")
JARS = "/usr/share/java"
KEYS = ["int", "long", "double", "float", "byte", "short", "bool", "string", "char", "null", "nokey"]
CAPS = ["msg"] + ["$app.trawl:" + k for k in KEYS] + ["$app.late:k", "$app.nope:x"]

FLAVOURS = {
    "jul": {"opt": "-j", "jars": ["lttng-ust-agent-common.jar", "lttng-ust-agent-jul.jar"]},
    "log4j": {"opt": "-l", "jars": ["lttng-ust-agent-common.jar", "lttng-ust-agent-log4j.jar",
                                    "log4j-1.2.jar"]},
}

# LTTng 2.13.9's typed values of "cap 1" and "cap 2" (lttngnotify.py's
# lines, ust-trig-notify -t's form), in CAPS's order.
VALUES = ["u:42", "i:-5000000000", "r:2.5", "r:1.25", "i:-7", "u:300", "u:1", "t:hello world",
          "t:x", "?", "?"]
LTTNG = {
    "trigger": {"cap 1": ["t:cap 1"] + ["?"] * 13, "cap 2": ["t:cap 2"] + ["?"] * 13},
    "contexts": {"cap 1": ["t:cap 1"] + VALUES + ["?", "?"],
                 "cap 2": ["t:cap 2"] + VALUES + ["t:late:k", "?"]},
}
# trawl's text of the same values (the captures= of ust-trig-notify)
TEXT = {"?": "<unavailable>", "r:2.5": "2.5", "r:1.25": "1.25"}


def text_of(typed):
    return TEXT.get(typed, typed[2:])


def parse(out, trigger):
    """{msg: [typed values]} of the notifications ust-trig-notify -t (or
    lttngnotify.py) printed; trawl's text is checked against the types."""
    got, cur, text = {}, None, None
    for line in out.splitlines():
        if line.startswith(trigger + " ") or line == trigger:
            cur = []
            text = line.split(" captures=", 1)[1].split("|") if " captures=" in line else None
        elif line.startswith("  typed=") and cur is not None:
            cur.append(line[len("  typed="):])
            if len(cur) == len(CAPS):
                got[cur[0][2:]] = cur
                if text is not None and text != [text_of(v) for v in cur]:
                    fail("the text of %s: %r, its typed values %r" % (cur[0], text, cur))
                cur = None
    return got


def check(who, mode, got):
    for msg, want in LTTNG[mode].items():
        if got.get(msg) != want:
            fail("%s, %s: %s's captures\n  got    %s\n  wanted %s" % (who, mode, msg, got.get(msg), want))


def trigger_args(flavour):
    args = ["add-trigger", "--name", "c1", "--condition", "event-rule-matches",
            "--type=" + flavour, "--name=app.db"]
    for c in CAPS:
        args += ["--capture", c]
    return args + ["--action", "notify"]


def listing(text):
    """list-triggers' text without its owner uid line."""
    return [l for l in text.splitlines() if "owner uid:" not in l]


class Program:
    def __init__(self, folder, fl):
        self.dir = folder
        self.cp = folder + ":" + ":".join(os.path.join(JARS, j) for j in fl["jars"])
        r = subprocess.run(["javac", "-d", folder, "-cp", self.cp, SRC + "/TrawlAppCap.java",
                            SRC + "/TrawlAppCtx.java"], capture_output=True, text=True, timeout=300)
        if r.returncode:
            raise RuntimeError("javac: %s" % r.stderr.strip())

    def argv(self, flavour, mode):
        # with contexts: it waits until its agent has all of them
        return ["java", "-cp", self.cp, "TrawlAppCap", flavour] + \
            ([str(len(CAPS) - 1)] if mode == "contexts" else [])


def run_trawl(env, prog, flavour, fl, mode):
    env.trawl(*trigger_args(flavour))
    listed = env.trawl("list-triggers").stdout
    if mode == "contexts":
        env.trawl("create", "s", "-o", env.dir + "/t-" + mode)
        env.trawl("enable-event", fl["opt"], "app.db", "-s", "s")
        args = ["add-context", fl["opt"], "-s", "s"]
        for c in CAPS[1:]:
            args += ["-t", c]
        env.trawl(*args)
        env.trawl("start", "s")
    w = subprocess.Popen([NOTIFY, "-t", "2", "120000", "c1"], env=env.env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        if w.stdout.readline().strip() != "ready":
            fail("ust-trig-notify did not get ready: " + w.stderr.read())
            return listed
        home = env.dir + "/apphome"
        os.makedirs(home + "/.lttng", exist_ok=True)
        with open(env.env["TRAWL_ROOT_RUNTIME_DIR"] + "/agent.port") as f:
            port = f.read().strip()
        with open(home + "/.lttng/agent.port", "w") as f:
            f.write(port + "\n")
        app_env = dict(env.env, LTTNG_HOME=home, LD_LIBRARY_PATH=COMPAT)
        r = subprocess.run(prog.argv(flavour, mode), env=app_env, capture_output=True, text=True, timeout=300)
        if r.returncode:
            fail("TrawlAppCap (%s) failed (%d): %s" % (mode, r.returncode, r.stderr.strip()[-2000:]))
        out, err = w.communicate(timeout=180)
    finally:
        if w.poll() is None:
            w.kill()
            w.wait()
    if w.returncode:
        fail("ust-trig-notify -t (%s) exited %d: %s" % (mode, w.returncode, err.strip()))
    check("trawl", mode, parse(out, "c1"))
    if mode == "contexts":
        env.trawl("destroy", "s")
    env.trawl("remove-trigger", "c1")
    return listed


def run_lttng(ref, prog, flavour, fl, mode):
    ref.lttng(*trigger_args(flavour))
    listed = ref.lttng("list-triggers").stdout
    if mode == "contexts":
        out = ref.dir + "/out-" + mode
        os.makedirs(out)
        os.chown(out, ref.uid, -1)
        ref.lttng("create", "s", "--output", out + "/t")
        ref.lttng("enable-event", fl["opt"], "app.db", "-s", "s")
        args = ["add-context", fl["opt"], "-s", "s"]
        for c in CAPS[1:]:
            args += ["-t", c]
        ref.lttng(*args)
        ref.lttng("start", "s")
    w = subprocess.Popen(["runuser", "-u", ref.user, "--"] + ref.env() +
                         ["python3", LIB + "/lttngnotify.py", "2", "c1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if w.stdout.readline().strip() != "ready":
            fail("lttngnotify.py did not get ready: " + w.stderr.read())
            return listed
        r = ref.run(prog.argv(flavour, mode), check=False)
        if r.returncode:
            fail("TrawlAppCap under LTTng (%s) failed (%d): %s" % (mode, r.returncode, r.stderr[-2000:]))
        out, err = w.communicate(timeout=180)
    finally:
        if w.poll() is None:
            w.kill()
            w.wait()
    if w.returncode:
        fail("lttngnotify.py (%s) exited %d: %s" % (mode, w.returncode, err.strip()))
    check("LTTng", mode, parse(out, "c1"))
    return listed


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in FLAVOURS:
        print("usage: java-appcap.py jul|log4j", file=sys.stderr)
        return 2
    flavour = sys.argv[1]
    fl = FLAVOURS[flavour]
    for tool in ("java", "javac"):
        if not any(os.access(os.path.join(d, tool), os.X_OK)
                   for d in os.environ.get("PATH", "").split(":")):
            print("SKIP: no %s (scripts/install-deps installs openjdk-17-jdk-headless)" % tool)
            return 77
    for j in fl["jars"]:
        if not os.path.exists(os.path.join(JARS, j)):
            print("SKIP: no %s/%s (scripts/install-deps installs liblttng-ust-agent-java)" % (JARS, j))
            return 77
    env = trawltest.Env("trawl-java-appcap-%s." % flavour)
    ref = None
    try:
        prog = Program(env.dir, fl)
        trawl_listed = [run_trawl(env, prog, flavour, fl, m) for m in ("trigger", "contexts")]
        for c in CAPS:
            if "      - %s" % c not in trawl_listed[0].splitlines():
                fail("trawl list-triggers has no capture line for %s: %s" % (c, trawl_listed[0]))
        # LTTng: a session daemon for each case (its remove-trigger of a
        # trigger that notified failed, and another trigger of the same
        # condition would notify the same channel)
        for mode in ("trigger", "contexts"):
            ref = LttngRef.make("appcap")
            if not ref:
                break
            os.makedirs(ref.dir + "/cls")
            lprog = Program(ref.dir + "/cls", fl)
            subprocess.run(["chmod", "-R", "a+rX", ref.dir])
            lttng_listed = run_lttng(ref, lprog, flavour, fl, mode)
            if listing(trawl_listed[0]) != listing(lttng_listed):
                fail("list-triggers:\n  trawl %r\n  LTTng %r" % (trawl_listed[0], lttng_listed))
            ref.close()
            ref = None
    finally:
        if ref:
            ref.close()
        env.close()
    if FAILS:
        print("%d failure(s)" % len(FAILS))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
